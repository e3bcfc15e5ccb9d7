//! `oneshader dis FILE.osir [-o OUT]`: prints a binary module's text form (the same text
//! `oneshader fmt` prints for the module it was assembled from).
//!
//! `--no-verify` loads a well-formed file whose module does not verify, to inspect it.
//!
//! | code | meaning |
//! |---|---|
//! | OSC0043 | the output file cannot be written |

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use oneshader_serialize::LoadOptions;

/// Arguments of `oneshader dis`.
#[derive(Args, Debug)]
pub struct DisArgs {
    /// The module (`.osir`; `.ir` is accepted too).
    pub file: PathBuf,
    /// Print a module even when it does not verify (the file must still be well formed).
    #[arg(long)]
    pub no_verify: bool,
    /// Write the text here instead of stdout.
    #[arg(short = 'o', long = "output", visible_alias = "Fo", value_name = "OUT")]
    pub output: Option<PathBuf>,
}

/// Runs `oneshader dis`.
pub fn run(args: DisArgs) -> ExitCode {
    let opts = LoadOptions {
        verify: !args.no_verify,
    };
    let m = match super::ir_input::read_module_with(&args.file, &opts) {
        Ok(m) => m,
        Err(rendered) => {
            eprint!("{rendered}");
            return ExitCode::from(1);
        }
    };
    let text = oneshader_ir::print::print_module(&m);
    super::io::write(args.output.as_deref(), text.as_bytes(), false, "OSC0043")
}
