//! `oneshader as FILE.ir -o FILE.osir`: assembles an IR text module into the binary `.osir`
//! form (docs/osir.md). The module must verify: a file that `load` would refuse is never
//! written. The cache key is a hash of the input text and this program's version.
//!
//! | code | meaning |
//! |---|---|
//! | OSC0040 | the module does not verify (the verifier's diagnostics follow) |
//! | OSC0041 | the output file cannot be written |
//! | OSC0042 | the module cannot be saved (an operand outside the module's tree) |

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use oneshader_serialize::{CacheKey, IndexPolicy, PRODUCER, SaveOptions};

/// Arguments of `oneshader as`.
#[derive(Args, Debug)]
pub struct AsArgs {
    /// The module (`.ir`, or `.osir` to re-save).
    pub file: PathBuf,
    /// Where to write the `.osir` file.
    #[arg(short = 'o', long = "output", visible_alias = "Fo", value_name = "OUT")]
    pub output: PathBuf,
    /// Write the symbol index (lazy loads by `oneshader link`) whatever the module's size;
    /// by default only modules of at least 4096 instructions get one (docs/osir.md).
    #[arg(long)]
    pub index: bool,
}

/// Runs `oneshader as`.
pub fn run(args: AsArgs) -> ExitCode {
    let (m, input) = match super::ir_input::read_module_bytes(&args.file, &Default::default()) {
        Ok(read) => read,
        Err(rendered) => {
            eprint!("{rendered}");
            return ExitCode::from(1);
        }
    };
    let diags = oneshader_ir::verify::verify(&m);
    if !diags.is_empty() {
        eprintln!(
            "{}: error[OSC0040]: the module does not verify; nothing written",
            super::io::input_name(&args.file)
        );
        eprint!("{}", super::ir_input::render_unspanned(&args.file, &diags));
        return ExitCode::from(1);
    }
    // Hash the input's bytes (never its path) with the producer's version.
    let opts = SaveOptions {
        cache_key: CacheKey::from_inputs(&input, &["as"], PRODUCER),
        index: if args.index {
            IndexPolicy::Always
        } else {
            IndexPolicy::Auto
        },
        ..SaveOptions::default()
    };
    let bytes = match oneshader_serialize::save_with(&m, &opts) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{}: error[OSC0042]: {e}", super::io::input_name(&args.file));
            return ExitCode::from(1);
        }
    };
    super::io::write(Some(&args.output), &bytes, true, "OSC0041")
}
