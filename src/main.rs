//! The `oneshader` command line. Each subcommand lives in its own file under `src/cli/`.

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;

// Diagnostics to standard error never panic: std's `eprintln!` panics when stderr is a pipe
// nobody reads (`2>&1 | head`). These shadow std's for the whole command line; a message
// that cannot be written is dropped, and the command's exit status stays what it was.
macro_rules! eprintln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}
macro_rules! eprint {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($t)*);
    }};
}

mod cli;

fn main() -> ExitCode {
    let args = cli::Cli::parse_from(dxc_spellings(std::env::args_os()));
    cli::run(args)
}

/// Rewrites dxc's single-dash long options, which clap cannot express, into the long options
/// the subcommands declare: `-fspv-target-env=ENV` becomes `--target-env=ENV`,
/// `-fvk-use-gl-layout` (and `-dx-`, `-scalar-`) and `-fspv-reflect` gain their second dash,
/// `-Fo OUT` becomes
/// `-o OUT`. `compile` reads dxc's spellings itself, so its arguments are left alone.
fn dxc_spellings(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let args: Vec<OsString> = args.into_iter().collect();
    // The subcommand is the first argument after the program name that is not an option.
    let subcommand = args
        .iter()
        .skip(1)
        .find(|a| !a.to_string_lossy().starts_with('-'));
    if subcommand.is_some_and(|s| s == "compile") {
        return args;
    }
    args.into_iter()
        .enumerate()
        .map(|(i, a)| {
            if i == 0 {
                return a;
            }
            let Some(s) = a.to_str() else { return a };
            if let Some(env) = s.strip_prefix("-fspv-target-env=") {
                return OsString::from(format!("--target-env={env}"));
            }
            match s {
                "-fvk-use-gl-layout"
                | "-fvk-use-dx-layout"
                | "-fvk-use-scalar-layout"
                | "-fspv-reflect" => OsString::from(format!("-{s}")),
                "-Fo" => OsString::from("-o"),
                _ => a,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(args: &[&str]) -> Vec<String> {
        dxc_spellings(args.iter().map(OsString::from))
            .into_iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn dxc_options_become_long_options() {
        assert_eq!(
            rewrite(&[
                "oneshader",
                "emit",
                "a.ir",
                "--target",
                "spirv",
                "-fspv-target-env=vulkan1.3",
                "-fvk-use-gl-layout",
                "-Fo",
                "a.spv",
            ]),
            vec![
                "oneshader",
                "emit",
                "a.ir",
                "--target",
                "spirv",
                "--target-env=vulkan1.3",
                "--fvk-use-gl-layout",
                "-o",
                "a.spv",
            ]
        );
        // `compile` reads dxc's spellings itself.
        let compile = [
            "oneshader",
            "compile",
            "a.hlsl",
            "-fspv-target-env=vulkan1.3",
            "-Fo",
            "a.spv",
        ];
        assert_eq!(rewrite(&compile), compile);
    }
}
