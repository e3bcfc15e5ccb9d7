//! `oneshader link A.osir B.osir ... -o OUT.osir [--keep-exports]`: links separately compiled
//! modules (docs/linking.md). Inputs may be `.osir` or `.ir`. Without `--keep-exports` only
//! what the entry points reach is kept; with it (building a library) every export too. An
//! `.osir` input with a symbol index (a large library) is loaded only as far as the link needs,
//! with the same output as a full load (`oneshader::link`, docs/linking.md).
//!
//! | code | meaning |
//! |---|---|
//! | OSC0044 | the output file cannot be written |
//! | OSC0045 | the linked module cannot be saved |
//! | OSC0046 | *warning*: the result is empty: no entry point, and no `--keep-exports` |

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use oneshader::link::{LinkError, LinkInput, link_files};
use oneshader_ir::Module;
use oneshader_passes::link::LinkOptions;
use oneshader_serialize::{CacheKey, LoadOptions, PRODUCER, SaveOptions};

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

/// Runs `oneshader link`. An `.osir` library with a symbol index is loaded only as far as
/// the link needs (`oneshader::link::link_files`); the output is the same as with full loads.
pub fn run(args: LinkArgs) -> ExitCode {
    // The inputs' bytes, for the key (standard input can be read once).
    let mut read = Vec::with_capacity(args.files.len());
    // `.ir` inputs, parsed; `.osir` inputs stay bytes until the linker knows what it needs.
    let mut texts: Vec<Option<Module>> = Vec::with_capacity(args.files.len());
    let mut failed = false;
    for f in &args.files {
        let display = super::io::input_name(f);
        let bytes = match super::io::read(f) {
            Ok(b) => b,
            Err(e) => {
                eprint!("error[OSC0002]: cannot read {display}: {e}\n");
                failed = true;
                continue;
            }
        };
        if oneshader_serialize::is_osir(&bytes) {
            texts.push(None);
        } else {
            match super::ir_input::parse_bytes(f, bytes.clone(), &Default::default()) {
                Ok(m) => texts.push(Some(m)),
                Err(rendered) => {
                    eprint!("{rendered}");
                    failed = true;
                    continue;
                }
            }
        }
        read.push(bytes);
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
    let inputs: Vec<LinkInput<'_>> = read
        .iter()
        .zip(&texts)
        .map(|(bytes, text)| match text {
            Some(m) => LinkInput::Module(m),
            None => LinkInput::Osir(bytes),
        })
        .collect();
    let linked = match link_files(&inputs, &opts, &LoadOptions::default()) {
        Ok(m) => m,
        Err(LinkError::Load { input, error }) => {
            let path = &args.files[input];
            eprint!(
                "{}",
                super::ir_input::render_unspanned(path, &error.diagnostics())
            );
            return ExitCode::from(1);
        }
        Err(LinkError::Link(diags)) => {
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
