//! `naga-validate FILE.wgsl...`: parses each file with naga's WGSL front end and validates it
//! (`oneshader_test_tools::naga_validate`, the check every WGSL test applies), printing
//! naga's error with the source line for each file it rejects. Exit status 0 when all
//! validate, 1 otherwise, 2 on a usage or I/O error. The corpus measurement of the WGSL
//! backend runs it as `hlsl-corpus-run --validate 'naga-validate {output}'`
//! (docs/wgsl-backend.md).

use std::process::ExitCode;

fn main() -> ExitCode {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: naga-validate FILE.wgsl...");
        return ExitCode::from(2);
    }
    let mut failed = false;
    for f in &files {
        let text = match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{f}: cannot read: {e}");
                return ExitCode::from(2);
            }
        };
        if let Err(e) = oneshader_test_tools::naga_validate(&text) {
            eprintln!("{f}: naga rejects it:\n{e}");
            failed = true;
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
