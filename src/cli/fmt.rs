//! `oneshader fmt FILE.ir`: parses a module and prints its canonical text.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

/// Arguments of `oneshader fmt`.
#[derive(Args, Debug)]
pub struct FmtArgs {
    /// The module (`.ir`).
    pub file: PathBuf,
}

/// Runs `oneshader fmt`.
pub fn run(args: FmtArgs) -> ExitCode {
    match super::ir_input::read_module(&args.file) {
        Ok(m) => super::write_stdout(oneshader_ir::print::print_module(&m).as_bytes()),
        Err(rendered) => {
            eprint!("{rendered}");
            ExitCode::from(1)
        }
    }
}
