//! `oneshader parse FILE.hlsl [-D NAME=V] [-U NAME] [-I DIR] [--ast]`: preprocesses and parses
//! an HLSL file; exit 0 when it parses, 1 with diagnostics on stderr when not. `--ast` prints the
//! syntax tree.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use oneshader_frontends::hlsl;
use oneshader_ir::diag::SourceMap;

use super::hlsl_args::PreprocessorArgs;

/// Arguments of `oneshader parse`.
#[derive(Args, Debug)]
pub struct ParseArgs {
    /// The HLSL file.
    pub file: PathBuf,
    /// Print the syntax tree.
    #[arg(long)]
    pub ast: bool,
    #[command(flatten)]
    pub pp: PreprocessorArgs,
}

/// Runs `oneshader parse`.
pub fn run(args: ParseArgs) -> ExitCode {
    // A large stack: the front end bounds its recursion, and this keeps the bounds generous.
    let worker = std::thread::Builder::new()
        .stack_size(super::hlsl_args::FRONT_END_STACK)
        .spawn(move || run_inner(args));
    match worker.map(|h| h.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!("error[OSC0001]: internal error in the HLSL front end");
            ExitCode::from(101)
        }
    }
}

fn run_inner(args: ParseArgs) -> ExitCode {
    let mut sources = SourceMap::new();
    let parsed = hlsl::parse_file(
        &args.file,
        &args.pp.options(),
        &hlsl::FsLoader,
        &mut sources,
    );
    eprint!("{}", sources.render_all(&parsed.diagnostics));
    if args.ast {
        let written = super::write_stdout(hlsl::dump(&parsed.unit, &sources).as_bytes());
        if written != ExitCode::SUCCESS {
            return written;
        }
    }
    if parsed.has_errors() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
