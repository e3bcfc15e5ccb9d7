//! `oneshader opt FILE.ir [-O0|-O] [--passes a,b] [--verify-each] [--time-passes]
//! [--print-after PASS|all] [--no-fallback] [-o OUT]`: runs the optimizer (or a chosen pass
//! list) and prints the resulting module.
//!
//! The input must verify. When a pass fails, the unoptimized module is printed with a warning
//! (OSO0001) unless `--no-fallback` asks for an error instead. Dumps (`--print-after`) and the
//! timing report (`--time-passes`) go to stderr, the module to stdout or `-o`.
//!
//! | code | meaning |
//! |---|---|
//! | OSC0011 | `--passes` or `--print-after` names a pass that does not exist (the message lists the known ones) |
//! | OSC0012 | the output file cannot be written |
//! | OSC0013 | `--no-fallback`: a pass failed |

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use oneshader_passes::manager::{Options, PassManager, PrintAfter};
use oneshader_passes::pipeline::{OptLevel, optimize, pass_names, pipeline_from_list};

/// Arguments of `oneshader opt`.
#[derive(Args, Debug)]
pub struct OptArgs {
    /// The module (`.ir`).
    pub file: PathBuf,
    /// Optimize (the default). `-O0` (or `-Od`) runs legalization only; `-O1`, `-O2` and `-O3`
    /// are the same as `-O`.
    #[arg(short = 'O')]
    pub optimize: bool,
    /// `-O0`: spelled as `-O` followed by the digit (clap reads it as the flag cluster
    /// `-O -0`), as are the other levels below.
    #[arg(short = '0', hide = true)]
    pub level0: bool,
    /// `-Od`: the same as `-O0` (dxc's spelling).
    #[arg(short = 'd', hide = true)]
    pub level_d: bool,
    /// `-O1`.
    #[arg(short = '1', hide = true)]
    pub level1: bool,
    /// `-O2`.
    #[arg(short = '2', hide = true)]
    pub level2: bool,
    /// `-O3`.
    #[arg(short = '3', hide = true)]
    pub level3: bool,
    /// Run exactly these passes, in order, instead of a level's pipeline
    /// (e.g. `inline,sroa,mem2reg`).
    #[arg(long, value_name = "PASSES")]
    pub passes: Option<String>,
    /// Verify the module after every pass.
    #[arg(long)]
    pub verify_each: bool,
    /// Print the time spent in each pass to stderr.
    #[arg(long)]
    pub time_passes: bool,
    /// Print the module to stderr after the named passes (comma-separated, or `all`).
    #[arg(long, value_name = "PASSES")]
    pub print_after: Option<String>,
    /// Fail (exit 1) when a pass fails, instead of printing the unoptimized module.
    #[arg(long)]
    pub no_fallback: bool,
    /// Write the module here instead of stdout.
    #[arg(short = 'o', long = "output", visible_alias = "Fo", value_name = "OUT")]
    pub output: Option<PathBuf>,
}

impl OptArgs {
    /// The level the flags ask for: `-O0`/`-Od` win over everything else.
    fn level(&self) -> OptLevel {
        if self.level0 || self.level_d {
            OptLevel::O0
        } else {
            OptLevel::O
        }
    }
}

/// Runs `oneshader opt`.
pub fn run(args: OptArgs) -> ExitCode {
    let mut m = match super::ir_input::read_module(&args.file) {
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
    let mut pm: PassManager = match &args.passes {
        Some(list) => match pipeline_from_list(list) {
            Ok(pm) => pm,
            Err(e) => {
                eprintln!("error[OSC0011]: {e}");
                return ExitCode::from(1);
            }
        },
        None => optimize(args.level()),
    };
    if let Some(list) = args.print_after.as_deref().filter(|l| *l != "all") {
        let known = pass_names();
        if let Some(bad) = list
            .split(',')
            .map(str::trim)
            .find(|n| !n.is_empty() && !known.contains(n))
        {
            eprintln!(
                "error[OSC0011]: unknown pass `{bad}` in --print-after (known: {})",
                known.join(", ")
            );
            return ExitCode::from(1);
        }
    }
    pm.options = Options {
        verify_each: args.verify_each,
        print_after: match args.print_after.as_deref() {
            None => PrintAfter::None,
            Some("all") => PrintAfter::All,
            Some(list) => PrintAfter::Passes(
                list.split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect(),
            ),
        },
    };
    let report = if args.no_fallback {
        match pm.run(&mut m) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("{}: error[OSC0013]: {e}", super::io::input_name(&args.file));
                eprint!(
                    "{}",
                    super::ir_input::render_unspanned(&args.file, &e.diagnostics)
                );
                return ExitCode::from(1);
            }
        }
    } else {
        let (report, warnings) = pm.run_with_fallback(&mut m);
        eprint!(
            "{}",
            super::ir_input::render_unspanned(&args.file, &warnings)
        );
        report
    };
    for d in &report.dumps {
        eprintln!("// ---- after {} (run {}) ----", d.pass, d.run);
        eprint!("{}", d.text);
    }
    if args.time_passes {
        eprint!("{}", report.timing_table());
    }
    let text = oneshader_ir::print::print_module(&m);
    super::io::write(args.output.as_deref(), text.as_bytes(), false, "OSC0012")
}
