//! `oneshader preprocess FILE.hlsl [-D NAME=V] [-U NAME] [-I DIR]`: prints the preprocessed text
//! like `cpp -P` (no line markers, `#pragma` lines kept); exit 1 with diagnostics on errors.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use oneshader::{CompileOptions, Compiler};

use super::hlsl_args::PreprocessorArgs;

/// Arguments of `oneshader preprocess`.
#[derive(Args, Debug)]
pub struct PreprocessArgs {
    /// The HLSL file.
    pub file: PathBuf,
    #[command(flatten)]
    pub pp: PreprocessorArgs,
}

/// Runs `oneshader preprocess`.
pub fn run(args: PreprocessArgs) -> ExitCode {
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

fn run_inner(args: PreprocessArgs) -> ExitCode {
    // The profile does not reach the preprocessor; only the macros and include folders do.
    let opts = CompileOptions {
        macros: args.pp.macros.clone(),
        include_dirs: args.pp.include_dirs.clone(),
        ..CompileOptions::default()
    };
    match Compiler::new().preprocess_file(&args.file, &opts) {
        Ok(out) => {
            eprint!("{}", out.diagnostics.render());
            super::write_stdout(out.text.as_bytes())
        }
        Err(e) => {
            eprint!("{}", e.diagnostics.render());
            ExitCode::from(1)
        }
    }
}
