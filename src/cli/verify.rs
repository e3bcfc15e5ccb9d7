//! `oneshader verify FILE`: exit 0 silently when the module is valid, 1 with the verifier's
//! diagnostics when not.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

/// Arguments of `oneshader verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The module (`.ir`).
    pub file: PathBuf,
}

/// Runs `oneshader verify`.
pub fn run(args: VerifyArgs) -> ExitCode {
    let m = match super::ir_input::read_module(&args.file) {
        Ok(m) => m,
        Err(rendered) => {
            eprint!("{rendered}");
            return ExitCode::from(1);
        }
    };
    let diags = oneshader_ir::verify::verify(&m);
    if diags.is_empty() {
        ExitCode::SUCCESS
    } else {
        eprint!("{}", super::ir_input::render_unspanned(&args.file, &diags));
        ExitCode::from(1)
    }
}
