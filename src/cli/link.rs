//! `oneshader link A.osir B.osir ... -o OUT.osir [--keep-exports]`: links separately compiled
//! modules (docs/linking.md). Inputs may be `.osir` or `.ir`. Without `--keep-exports` only
//! what the entry points reach is kept; with it (building a library) every export too.
//!
//! | code | meaning |
//! |---|---|
//! | OSC0044 | the output file cannot be written |
//! | OSC0045 | the linked module cannot be saved |
//! | OSC0046 | *warning*: the result is empty: no entry point, and no `--keep-exports` |

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use oneshader_passes::link::{LinkOptions, link};
use oneshader_serialize::{CacheKey, PRODUCER, SaveOptions};

/// Arguments of `oneshader link`.
#[derive(Args, Debug)]
pub struct LinkArgs {
    /// The modules to link (`.osir` or `.ir`).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Where to write the linked `.osir` module.
    #[arg(short = 'o', long = "output", visible_alias = "Fo", value_name = "OUT")]
    pub output: PathBuf,
    /// Keep every export and what it reaches (building a library).
    #[arg(long)]
    pub keep_exports: bool,
}

/// Runs `oneshader link`.
pub fn run(args: LinkArgs) -> ExitCode {
    let mut modules = Vec::with_capacity(args.files.len());
    // The inputs' bytes, for the key (standard input can be read once).
    let mut read = Vec::with_capacity(args.files.len());
    let mut failed = false;
    for f in &args.files {
        match super::ir_input::read_module_bytes(f, &Default::default()) {
            Ok((m, bytes)) => {
                modules.push(m);
                read.push(bytes);
            }
            Err(rendered) => {
                eprint!("{rendered}");
                failed = true;
            }
        }
    }
    if failed {
        return ExitCode::from(1);
    }
    let opts = LinkOptions {
        keep_exports: args.keep_exports,
        module_names: args
            .files
            .iter()
            .map(|f| super::io::input_name(f))
            .collect(),
        ..Default::default()
    };
    let linked = match link(&modules, &opts) {
        Ok(m) => m,
        Err(diags) => {
            for d in &diags {
                eprintln!("{d}");
            }
            return ExitCode::from(1);
        }
    };
    if !args.keep_exports && linked.is_empty() {
        eprintln!(
            "warning[OSC0046]: the linked module is empty: no input has an entry point \
             (use --keep-exports to build a library)"
        );
    }
    // The key covers the inputs' bytes in order and the options, never their paths.
    let mut inputs = Vec::new();
    for bytes in &read {
        inputs.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        inputs.extend_from_slice(bytes);
    }
    let options: &[&str] = if args.keep_exports {
        &["link", "--keep-exports"]
    } else {
        &["link"]
    };
    let save = SaveOptions {
        cache_key: CacheKey::from_inputs(&inputs, options, PRODUCER),
        ..SaveOptions::default()
    };
    let bytes = match oneshader_serialize::save_with(&linked, &save) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error[OSC0045]: {e}");
            return ExitCode::from(1);
        }
    };
    super::io::write(Some(&args.output), &bytes, true, "OSC0044")
}
