//! The `oneshader` command line. Each subcommand lives in its own file under `src/cli/`.

use std::process::ExitCode;

use clap::Parser;

mod cli;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    cli::run(args)
}
