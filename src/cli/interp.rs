//! `oneshader interp FILE.ir --func @name --args 1,2.5,true [--max-steps N]`: runs a function
//! in the reference interpreter and prints its result as an IR constant (`i32 5`,
//! `vec<f32, 2> {f32 1.0, f32 2.0}`), `void`, or `discard`.
//!
//! Arguments are comma-separated, one per parameter; a vector, matrix, array or struct is
//! written in parentheses (`--args "(1, 2, 3),0.5"`), a float may be given by its bits
//! (`0x7fc00000`).
//!
//! | code | meaning |
//! |---|---|
//! | OSC0020 | no function with that name |
//! | OSC0021 | wrong number of arguments, or an argument that does not fit its parameter's type |
//! | OSC0022 | the interpreter stopped: step limit, call depth, an unsupported instruction, an out-of-bounds index, `unreachable` |

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use oneshader_passes::interp::{Exit, Interpreter};
use oneshader_passes::value::{format_value, parse_value, split_top_level};

/// Arguments of `oneshader interp`.
#[derive(Args, Debug)]
pub struct InterpArgs {
    /// The module (`.ir`).
    pub file: PathBuf,
    /// The function to run (`@name` or `name`).
    #[arg(long = "func", value_name = "NAME")]
    pub func: String,
    /// The arguments, comma-separated (composites in parentheses).
    #[arg(
        long = "args",
        value_name = "ARGS",
        default_value = "",
        allow_hyphen_values = true
    )]
    pub args: String,
    /// Stop after this many executed instructions.
    #[arg(long, value_name = "N", default_value_t = oneshader_passes::interp::DEFAULT_MAX_STEPS)]
    pub max_steps: u64,
}

/// Runs `oneshader interp`.
pub fn run(args: InterpArgs) -> ExitCode {
    let m = match super::ir_input::read_module(&args.file) {
        Ok(m) => m,
        Err(rendered) => {
            eprint!("{rendered}");
            return ExitCode::from(1);
        }
    };
    let diags = oneshader_ir::verify::verify(&m);
    if !diags.is_empty() {
        eprint!("{}", super::ir_input::render_unspanned(&args.file, &diags));
        return ExitCode::from(1);
    }
    let name = args.func.strip_prefix('@').unwrap_or(&args.func);
    let Some(f) = m.func_by_name(name) else {
        eprintln!(
            "{}: error[OSC0020]: no function named `@{name}`",
            super::io::input_name(&args.file)
        );
        return ExitCode::from(1);
    };
    let params = f.params(&m);
    let texts = split_top_level(&args.args);
    if texts.len() != params.len() {
        eprintln!(
            "{}: error[OSC0021]: @{name} takes {} argument(s), {} given",
            super::io::input_name(&args.file),
            params.len(),
            texts.len()
        );
        return ExitCode::from(1);
    }
    let mut values = Vec::with_capacity(params.len());
    for (k, (p, text)) in params.iter().zip(&texts).enumerate() {
        let Some(ty) = m.ty(p.id()) else {
            eprintln!(
                "{}: error[OSC0021]: parameter {k} has no type",
                super::io::input_name(&args.file)
            );
            return ExitCode::from(1);
        };
        match parse_value(&m, ty, text) {
            Ok(v) => values.push(v),
            Err(msg) => {
                eprintln!(
                    "{}: error[OSC0021]: argument {}: {msg}",
                    super::io::input_name(&args.file),
                    k + 1
                );
                return ExitCode::from(1);
            }
        }
    }
    let mut it = Interpreter::new(&m).with_max_steps(args.max_steps);
    match it.call(f, &values) {
        Ok(Exit::Return(Some(v))) => {
            let text = match f.return_type(&m) {
                Some(ty) => format_value(&m, ty, &v),
                None => format!("{v:?}"),
            };
            super::write_stdout(format!("{text}\n").as_bytes())
        }
        Ok(Exit::Return(None)) => super::write_stdout(b"void\n"),
        Ok(Exit::Discard) => super::write_stdout(b"discard\n"),
        Err(e) => {
            eprintln!("{}: error[OSC0022]: {e}", super::io::input_name(&args.file));
            ExitCode::from(1)
        }
    }
}
