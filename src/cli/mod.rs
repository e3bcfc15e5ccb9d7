//! Subcommands of the `oneshader` CLI, one file each. Exit codes: 0 success, 1 bad input
//! (diagnostics on stderr), 2 usage errors (clap).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod as_;
mod build;
mod compile;
mod dis;
mod emit;
mod fmt;
mod hlsl_args;
mod interp;
mod io;
mod ir_input;
mod link;
mod opt;
mod parse;
mod preprocess;
mod verify;

/// OneShader: HLSL in; SPIR-V, WGSL, MSL and GLSL out; one typed IR in between.
#[derive(Parser, Debug)]
#[command(name = "oneshader", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// Every subcommand.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Parse an IR text module and print its canonical form.
    Fmt(fmt::FmtArgs),
    /// Verify an IR module: exit 0 silently when valid, 1 with diagnostics.
    Verify(verify::VerifyArgs),
    /// Preprocess and parse an HLSL file (exit 0 when it parses); `--ast` prints the tree.
    Parse(parse::ParseArgs),
    /// Print an HLSL file after preprocessing, like `cpp -P`.
    Preprocess(preprocess::PreprocessArgs),
    /// Assemble an IR module into the binary `.osir` form.
    As(as_::AsArgs),
    /// Print an `.osir` module as IR text.
    Dis(dis::DisArgs),
    /// Link `.osir` (or `.ir`) modules into one.
    Link(link::LinkArgs),
    /// Optimize an IR module (`-O`, `-O0`, or `--passes a,b`) and print it.
    Opt(opt::OptArgs),
    /// Run a function of an IR module in the reference interpreter.
    Interp(interp::InterpArgs),
    /// Legalize an IR module and emit it for a target (`--target spirv|spirv-asm|glsl|wgsl|msl`).
    Emit(emit::EmitArgs),
    /// Compile HLSL: -T PROFILE -E ENTRY [--target spirv|spirv-asm|glsl|wgsl|msl|ir|osir|reflection] [-O0|-O] -o OUT (dxc spellings).
    Compile(compile::CompileArgs),
    /// Build every variant of a manifest (oneshader.toml) in parallel, through a cache.
    Build(build::BuildArgs),
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Fmt(args) => fmt::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Parse(args) => parse::run(args),
        Command::Preprocess(args) => preprocess::run(args),
        Command::As(args) => as_::run(args),
        Command::Dis(args) => dis::run(args),
        Command::Link(args) => link::run(args),
        Command::Opt(args) => opt::run(args),
        Command::Interp(args) => interp::run(args),
        Command::Emit(args) => emit::run(args),
        Command::Compile(args) => compile::run(args),
        Command::Build(args) => build::run(args),
    }
}

/// Writes a command's output to standard output; a failure is `error[OSC0004]` (exit 1),
/// including a reader that stopped reading (`oneshader opt big.ir | head`): the output was not
/// all delivered, so the command must not report success (`set -o pipefail` scripts see it).
pub(crate) fn write_stdout(bytes: &[u8]) -> ExitCode {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            eprintln!("error[OSC0004]: cannot write stdout: the reader closed the pipe");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("error[OSC0004]: cannot write stdout: {e}");
            ExitCode::from(1)
        }
    }
}
