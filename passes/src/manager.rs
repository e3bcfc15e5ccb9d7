//! The pass manager: runs passes in order, optionally verifying after each one, dumping the
//! module after chosen passes and timing every pass; and the fallback that gives the user the
//! unoptimized module (with a warning) when the optimizer fails.
//!
//! A [`PassManager`] holds [`Step`]s: single passes, and fixed-point groups that repeat a list
//! of passes until none of them changes the module (bounded by an iteration cap, since a pair
//! of passes that undo each other must not loop forever). In a group, a
//! [`crate::FunctionPass`] runs per function with the function's cached analyses
//! ([`crate::analyses`]); a function a whole round left unchanged has converged and is skipped
//! in the rounds after (until a module pass of the group changes something).
//!
//! | code | meaning |
//! |---|---|
//! | OSO0001 | *warning*: a pass failed; the unoptimized module is used instead (the message names the pass, the first note says why, with the cause's code first) |
//! | OSO0002 | the module does not verify after a pass (`--verify-each`); the verifier's diagnostics follow as notes ([`PassError::code`]) |
//! | OSO0003 | a pass panicked (a bug in the pass); reported as OSO0001's reason, naming the pass ([`PassError::code`]) |
//! | OSO0004 | *warning*: an `[unroll]` loop the optimizer could not unroll ([`crate::unroll::not_unrolled`]) |

use std::time::{Duration, Instant};

use oneshader_ir::diag::Diagnostic;
use oneshader_ir::print::print_module;
use oneshader_ir::verify::verify;
use oneshader_ir::{Func, Module};

use crate::analyses::FunctionAnalyses;
use crate::{Pass, PassError};

/// One entry of a pass list.
pub enum Step {
    /// Run a pass once.
    Pass(Box<dyn Pass>),
    /// Repeat the passes, in order, until a whole round changes nothing or `max_rounds` rounds
    /// have run.
    FixedPoint {
        /// The passes of one round.
        passes: Vec<Box<dyn Pass>>,
        /// The most rounds to run.
        max_rounds: usize,
    },
}

/// Which passes to print the module after.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum PrintAfter {
    /// None.
    #[default]
    None,
    /// Every pass.
    All,
    /// The passes with these names.
    Passes(Vec<String>),
}

impl PrintAfter {
    fn wants(&self, name: &str) -> bool {
        match self {
            PrintAfter::None => false,
            PrintAfter::All => true,
            PrintAfter::Passes(names) => names.iter().any(|n| n == name),
        }
    }
}

/// Options of a [`PassManager`].
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Verify the module after every pass; a pass that leaves it invalid fails with OSO0002.
    pub verify_each: bool,
    /// Print the module after these passes (collected in [`Report::dumps`]).
    pub print_after: PrintAfter,
}

/// Time spent in one pass, summed over its runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassTiming {
    /// The pass.
    pub name: &'static str,
    /// How many times it ran.
    pub runs: u32,
    /// How many of those runs changed the module.
    pub changed: u32,
    /// Total time in the pass (verification excluded).
    pub time: Duration,
}

/// What a run of the pass manager did.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// True when any pass changed the module.
    pub changed: bool,
    /// Per-pass timings, in order of first run.
    pub timings: Vec<PassTiming>,
    /// Time spent verifying.
    pub verify_time: Duration,
    /// Module text after the passes `print_after` selected: (pass name, round, text).
    pub dumps: Vec<Dump>,
}

/// The module printed after a pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dump {
    /// The pass that just ran.
    pub pass: &'static str,
    /// Which run of that pass (1 for the first).
    pub run: u32,
    /// The module's text.
    pub text: String,
}

impl Report {
    /// The timing report as a table: one line per pass with runs, changing runs, total time
    /// and share of the total.
    pub fn timing_table(&self) -> String {
        let total: Duration =
            self.timings.iter().map(|t| t.time).sum::<Duration>() + self.verify_time;
        let secs = total.as_secs_f64().max(1e-12);
        let mut out = String::from("pass                  runs  changed      time      %\n");
        for t in &self.timings {
            out.push_str(&format!(
                "{:<20} {:>5} {:>8} {:>9.3}ms {:>5.1}\n",
                t.name,
                t.runs,
                t.changed,
                t.time.as_secs_f64() * 1e3,
                100.0 * t.time.as_secs_f64() / secs
            ));
        }
        if !self.verify_time.is_zero() {
            out.push_str(&format!(
                "{:<20} {:>5} {:>8} {:>9.3}ms {:>5.1}\n",
                "(verify)",
                "",
                "",
                self.verify_time.as_secs_f64() * 1e3,
                100.0 * self.verify_time.as_secs_f64() / secs
            ));
        }
        out.push_str(&format!(
            "{:<20} {:>5} {:>8} {:>9.3}ms\n",
            "total",
            "",
            "",
            total.as_secs_f64() * 1e3
        ));
        out
    }

    fn record(&mut self, name: &'static str, changed: bool, time: Duration) -> u32 {
        self.changed |= changed;
        let entry = match self.timings.iter_mut().find(|t| t.name == name) {
            Some(e) => e,
            None => {
                self.timings.push(PassTiming {
                    name,
                    runs: 0,
                    changed: 0,
                    time: Duration::ZERO,
                });
                // Just pushed: the vector is not empty.
                let last = self.timings.len() - 1;
                &mut self.timings[last]
            }
        };
        entry.runs += 1;
        entry.changed += changed as u32;
        entry.time += time;
        entry.runs
    }
}

/// Runs a list of passes.
#[derive(Default)]
pub struct PassManager {
    steps: Vec<Step>,
    /// Verification and dump options.
    pub options: Options,
    /// The pass running (empty between runs): the pass a panic is reported in.
    running: &'static str,
}

impl PassManager {
    /// An empty pass manager.
    pub fn new() -> PassManager {
        PassManager::default()
    }

    /// With these options.
    pub fn with_options(mut self, options: Options) -> PassManager {
        self.options = options;
        self
    }

    /// Appends a pass.
    pub fn add(&mut self, pass: Box<dyn Pass>) -> &mut PassManager {
        self.steps.push(Step::Pass(pass));
        self
    }

    /// Appends a fixed-point group.
    pub fn add_fixed_point(
        &mut self,
        passes: Vec<Box<dyn Pass>>,
        max_rounds: usize,
    ) -> &mut PassManager {
        self.steps.push(Step::FixedPoint { passes, max_rounds });
        self
    }

    /// The names of the passes, in order (a fixed-point group as `(a, b, ...)*`).
    pub fn describe(&self) -> String {
        let parts: Vec<String> = self
            .steps
            .iter()
            .map(|s| match s {
                Step::Pass(p) => p.name().to_string(),
                Step::FixedPoint { passes, .. } => format!(
                    "({})*",
                    passes
                        .iter()
                        .map(|p| p.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            })
            .collect();
        parts.join(", ")
    }

    /// Runs every step on `m`. On error the module may be partly rewritten: see
    /// [`PassManager::run_with_fallback`].
    pub fn run(&mut self, m: &mut Module) -> Result<Report, PassError> {
        let mut report = Report::default();
        let options = self.options.clone();
        let running = &mut self.running;
        for step in &mut self.steps {
            match step {
                Step::Pass(p) => {
                    *running = p.name();
                    run_one(p.as_mut(), m, &options, &mut report)?;
                }
                Step::FixedPoint { passes, max_rounds } => {
                    run_group(passes, *max_rounds, m, &options, &mut report, running)?;
                }
            }
        }
        *running = "";
        Ok(report)
    }

    /// Runs every step; when a pass fails (an error, invalid output under `verify_each`, or a
    /// panic), `m` is restored to a copy taken before the first pass and a warning (OSO0001)
    /// names the pass and says why (the cause's code first in the note: OSO0002, OSO0003).
    /// The user always gets a module.
    pub fn run_with_fallback(&mut self, m: &mut Module) -> (Report, Vec<Diagnostic>) {
        let original = m.clone();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.run(m)));
        let error = match result {
            Ok(Ok(report)) => return (report, Vec::new()),
            Ok(Err(e)) => e,
            Err(panic) => {
                let msg = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into());
                PassError {
                    pass: if self.running.is_empty() {
                        "?"
                    } else {
                        self.running
                    },
                    code: Some("OSO0003"),
                    message: format!("a pass panicked: {msg}"),
                    diagnostics: Vec::new(),
                }
            }
        };
        self.running = "";
        *m = original;
        let cause = match error.code {
            Some(code) => format!("{code}: {}", error.message),
            None => error.message.clone(),
        };
        let mut warning = Diagnostic::warning(
            "OSO0001",
            format!(
                "the optimizer failed in pass `{}`; using the unoptimized module",
                error.pass
            ),
        )
        .with_note(cause);
        for d in &error.diagnostics {
            warning = warning.with_note(format!("{d}"));
        }
        (Report::default(), vec![warning])
    }
}

/// Runs one fixed-point group. Module passes run on the module; function passes
/// ([`Pass::as_function_pass`]) run per function, with that function's cached analyses. A
/// function whose whole round changed nothing has converged and is skipped from then on,
/// until a module pass changes the module (then every function is looked at again). An
/// idempotent pass is skipped on a function (or, for a module pass, on the module) that
/// nothing has changed since its last run there. Timings count one run per pass and round.
fn run_group(
    passes: &mut [Box<dyn Pass>],
    max_rounds: usize,
    m: &mut Module,
    options: &Options,
    report: &mut Report,
    running: &mut &'static str,
) -> Result<(), PassError> {
    let funcs: Vec<Func> = m
        .functions()
        .into_iter()
        .filter(|f| !f.is_declaration(m))
        .collect();
    let n = funcs.len();
    let mut analyses: Vec<FunctionAnalyses> = (0..n).map(|_| FunctionAnalyses::new()).collect();
    let mut converged = vec![false; n];
    // Changes so far per function (and in the module, last), and their value after each
    // pass's last run there.
    let mut changes: Vec<u64> = vec![0; n + 1];
    let mut after_last_run: Vec<Vec<Option<u64>>> = vec![vec![None; n + 1]; passes.len()];
    for _ in 0..max_rounds {
        let mut touched = vec![false; n];
        let mut any = false;
        for (k, p) in passes.iter_mut().enumerate() {
            *running = p.name();
            let idempotent = p.idempotent();
            let name = p.name();
            if p.as_function_pass().is_none() {
                if idempotent && after_last_run[k][n] == Some(changes[n]) {
                    continue;
                }
                if run_one(p.as_mut(), m, options, report)? {
                    any = true;
                    changes[n] += 1;
                    // The module pass may have changed any function.
                    for j in 0..n {
                        converged[j] = false;
                        touched[j] = true;
                        changes[j] += 1;
                        analyses[j].invalidate();
                    }
                }
                after_last_run[k][n] = Some(changes[n]);
                continue;
            }
            let Some(fp) = p.as_function_pass() else {
                continue;
            };
            let keeps = fp.keeps_analyses();
            let start = Instant::now();
            let mut changed_any = false;
            let mut ran = false;
            for j in 0..n {
                if converged[j]
                    || !m.contains(funcs[j].id())
                    || (idempotent && after_last_run[k][j] == Some(changes[j]))
                {
                    continue;
                }
                ran = true;
                // No position carries over from one pass to the next (see
                // `oneshader_ir::positions`).
                m.set_current_position(None);
                if fp.run_on_function(m, funcs[j], &mut analyses[j])? {
                    changed_any = true;
                    touched[j] = true;
                    changes[j] += 1;
                    if !keeps {
                        analyses[j].invalidate();
                    }
                }
                after_last_run[k][j] = Some(changes[j]);
            }
            if !ran {
                continue;
            }
            if changed_any {
                any = true;
                changes[n] += 1;
            }
            finish_run(name, changed_any, start.elapsed(), m, options, report)?;
        }
        for j in 0..n {
            if !touched[j] {
                converged[j] = true;
            }
        }
        if !any {
            break;
        }
    }
    Ok(())
}

fn run_one(
    p: &mut dyn Pass,
    m: &mut Module,
    options: &Options,
    report: &mut Report,
) -> Result<bool, PassError> {
    let name = p.name();
    let start = Instant::now();
    // No position carries over from one pass to the next (see `oneshader_ir::positions`).
    m.set_current_position(None);
    let changed = p.run(m)?;
    finish_run(name, changed, start.elapsed(), m, options, report)?;
    Ok(changed)
}

/// Records a run of pass `name`, then verifies and prints as the options ask.
fn finish_run(
    name: &'static str,
    changed: bool,
    time: Duration,
    m: &Module,
    options: &Options,
    report: &mut Report,
) -> Result<(), PassError> {
    let run = report.record(name, changed, time);
    if options.verify_each {
        let start = Instant::now();
        let diags = verify(m);
        report.verify_time += start.elapsed();
        if !diags.is_empty() {
            return Err(PassError {
                pass: name,
                code: Some("OSO0002"),
                message: format!(
                    "the module does not verify after `{name}` ({} problem(s))",
                    diags.len()
                ),
                diagnostics: diags,
            });
        }
    }
    if options.print_after.wants(name) {
        report.dumps.push(Dump {
            pass: name,
            run,
            text: print_module(m),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pass that counts down and reports a change while the counter is positive.
    struct Countdown(u32);
    impl Pass for Countdown {
        fn name(&self) -> &'static str {
            "countdown"
        }
        fn run(&mut self, _m: &mut Module) -> Result<bool, PassError> {
            if self.0 == 0 {
                return Ok(false);
            }
            self.0 -= 1;
            Ok(true)
        }
    }

    /// A pass that breaks the module: adds a block without a terminator.
    struct Breaker;
    impl Pass for Breaker {
        fn name(&self) -> &'static str {
            "breaker"
        }
        fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
            if let Some(f) = m.functions().first() {
                m.add_block(*f);
            }
            Ok(true)
        }
    }

    struct Failing;
    impl Pass for Failing {
        fn name(&self) -> &'static str {
            "failing"
        }
        fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
            // Change something first, to check that the fallback restores it.
            let i = m.i32_type();
            m.add_func("scratch", i, &[]);
            Err(PassError::new("failing", "could not do it"))
        }
    }

    fn sample() -> Module {
        oneshader_ir::parse::parse("func @f(%0: i32) -> i32 {\nbb0:\n  return %0\n}\n")
            .expect("parses")
    }

    #[test]
    fn fixed_point_stops_when_nothing_changes() {
        let mut pm = PassManager::new();
        pm.add_fixed_point(vec![Box::new(Countdown(3))], 10);
        let mut m = sample();
        let report = pm.run(&mut m).expect("runs");
        assert!(report.changed);
        // Three changing rounds and one that changes nothing.
        assert_eq!(report.timings[0].runs, 4);
        assert_eq!(report.timings[0].changed, 3);
        let mut pm = PassManager::new();
        pm.add_fixed_point(vec![Box::new(Countdown(100))], 5);
        let report = pm.run(&mut m).expect("runs");
        assert_eq!(report.timings[0].runs, 5);
        assert!(pm.describe().contains("(countdown)*"));
    }

    /// Changes the module on its first `n` runs, declaring itself idempotent or not.
    struct Settles {
        name: &'static str,
        left: u32,
        idempotent: bool,
    }
    impl Pass for Settles {
        fn name(&self) -> &'static str {
            self.name
        }
        fn run(&mut self, _m: &mut Module) -> Result<bool, PassError> {
            let changed = self.left > 0;
            self.left = self.left.saturating_sub(1);
            Ok(changed)
        }
        fn idempotent(&self) -> bool {
            self.idempotent
        }
    }

    /// Runs one fixed-point group of `Settles` passes (name, changing runs, idempotent) and
    /// returns each pass's number of runs.
    fn group_runs(passes: &[(&'static str, u32, bool)]) -> Vec<u32> {
        let mut pm = PassManager::new();
        pm.add_fixed_point(
            passes
                .iter()
                .map(|&(name, left, idempotent)| {
                    Box::new(Settles {
                        name,
                        left,
                        idempotent,
                    }) as Box<dyn Pass>
                })
                .collect(),
            8,
        );
        let report = pm.run(&mut sample()).expect("runs");
        passes
            .iter()
            .map(|p| {
                report
                    .timings
                    .iter()
                    .find(|t| t.name == p.0)
                    .map_or(0, |t| t.runs)
            })
            .collect()
    }

    #[test]
    fn fixed_point_skips_an_idempotent_pass_nothing_changed_since() {
        // Round 1: `a` and `b` change; round 2: `a` does not, so nothing changed since `b`
        // ran: `b` (idempotent) is skipped and the group stops.
        assert_eq!(group_runs(&[("a", 1, false), ("b", 1, true)]), vec![2, 1]);
        // The same group with `b` not idempotent runs it again to confirm.
        assert_eq!(group_runs(&[("a", 1, false), ("b", 1, false)]), vec![2, 2]);
        // An idempotent pass still runs again when another pass changed the module after it.
        assert_eq!(group_runs(&[("b", 1, true), ("a", 2, false)]), vec![3, 3]);
    }

    #[test]
    fn verify_each_catches_a_broken_module_and_fallback_restores_it() {
        let mut pm = PassManager::new().with_options(Options {
            verify_each: true,
            print_after: PrintAfter::None,
        });
        pm.add(Box::new(Breaker));
        let mut m = sample();
        let err = pm.run(&mut m).expect_err("must fail");
        assert_eq!(err.pass, "breaker");
        assert_eq!(err.code, Some("OSO0002"));
        assert!(
            err.to_string()
                .contains("OSO0002: the module does not verify")
        );
        assert!(!err.diagnostics.is_empty());

        let mut m = sample();
        let before = print_module(&m);
        let (_, warnings) = pm.run_with_fallback(&mut m);
        assert_eq!(print_module(&m), before);
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].code, "OSO0001");
        assert!(!warnings[0].is_error());
    }

    #[test]
    fn failing_pass_falls_back_with_a_warning() {
        let mut pm = PassManager::new();
        pm.add(Box::new(Failing));
        let mut m = sample();
        let before = print_module(&m);
        let (_, warnings) = pm.run_with_fallback(&mut m);
        assert_eq!(print_module(&m), before);
        assert_eq!(warnings[0].code, "OSO0001");
        assert!(
            warnings[0]
                .notes
                .iter()
                .any(|n| n.contains("could not do it"))
        );
        assert_eq!(m.functions().len(), 1);
    }

    #[test]
    fn print_after_and_timing_table() {
        let mut pm = PassManager::new().with_options(Options {
            verify_each: true,
            print_after: PrintAfter::Passes(vec!["countdown".into()]),
        });
        pm.add(Box::new(Countdown(1)));
        pm.add(Box::new(Countdown(0)));
        let mut m = sample();
        let report = pm.run(&mut m).expect("runs");
        assert_eq!(report.dumps.len(), 2);
        assert_eq!(report.dumps[1].run, 2);
        assert!(report.dumps[0].text.contains("func @f"));
        let table = report.timing_table();
        assert!(table.contains("countdown"));
        assert!(table.contains("(verify)"));
        assert!(table.contains("total"));
    }
    /// Panics on its first run.
    struct Panicker;
    impl Pass for Panicker {
        fn name(&self) -> &'static str {
            "panicker"
        }
        fn run(&mut self, _m: &mut Module) -> Result<bool, PassError> {
            panic!("a bug in the pass")
        }
    }

    #[test]
    fn a_panic_is_reported_in_the_pass_that_panicked() {
        let mut pm = PassManager::new();
        pm.add(Box::new(Countdown(1)));
        pm.add_fixed_point(vec![Box::new(Countdown(0)), Box::new(Panicker)], 3);
        let mut m = sample();
        let (_, warnings) = pm.run_with_fallback(&mut m);
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].code, "OSO0001");
        assert!(
            warnings[0].message.contains("`panicker`"),
            "{}",
            warnings[0].message
        );
        assert!(
            warnings[0].notes[0].starts_with("OSO0003: a pass panicked: a bug in the pass"),
            "{:?}",
            warnings[0].notes
        );
    }

    /// Each run of a `PerFunction` pass: (pass, function, analyses the function's cache had
    /// computed).
    type Runs = std::rc::Rc<std::cell::RefCell<Vec<(&'static str, Func, u32)>>>;

    /// A function pass that changes each function a given number of times, and records how
    /// often it ran on each and how many analyses the function's cache had computed.
    struct PerFunction {
        name: &'static str,
        left: Vec<(Func, u32)>,
        runs: Runs,
    }
    impl Pass for PerFunction {
        fn name(&self) -> &'static str {
            self.name
        }
        fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
            crate::run_per_function(self, m)
        }
        fn as_function_pass(&mut self) -> Option<&mut dyn crate::FunctionPass> {
            Some(self)
        }
    }
    impl crate::FunctionPass for PerFunction {
        fn run_on_function(
            &mut self,
            m: &mut Module,
            f: Func,
            analyses: &mut FunctionAnalyses,
        ) -> Result<bool, PassError> {
            analyses.cfg(m, f);
            self.runs
                .borrow_mut()
                .push((self.name, f, analyses.computed()));
            let Some(e) = self.left.iter_mut().find(|e| e.0 == f) else {
                return Ok(false);
            };
            let changed = e.1 > 0;
            e.1 = e.1.saturating_sub(1);
            Ok(changed)
        }
        fn keeps_analyses(&self) -> bool {
            true
        }
    }

    #[test]
    fn a_fixed_point_group_skips_converged_functions_and_shares_analyses() {
        let mut m = oneshader_ir::parse::parse(
            "func @a(%0: i32) -> i32 {\nbb0:\n  return %0\n}\n\
             func @b(%0: i32) -> i32 {\nbb0:\n  return %0\n}\n",
        )
        .expect("parses");
        let (fa, fb) = (m.functions()[0], m.functions()[1]);
        let runs = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let mut pm = PassManager::new();
        pm.add_fixed_point(
            vec![
                Box::new(PerFunction {
                    name: "p",
                    left: vec![(fa, 3), (fb, 1)],
                    runs: runs.clone(),
                }),
                Box::new(PerFunction {
                    name: "q",
                    left: Vec::new(),
                    runs: runs.clone(),
                }),
            ],
            10,
        );
        let report = pm.run(&mut m).expect("runs");
        let runs = runs.borrow();
        let count = |pass: &str, f: Func| runs.iter().filter(|r| r.0 == pass && r.1 == f).count();
        // `@a` changes in rounds 1-3 and converges in round 4; `@b` changes in round 1 and
        // converges in round 2, after which it is skipped.
        assert_eq!((count("p", fa), count("p", fb)), (4, 2));
        assert_eq!((count("q", fa), count("q", fb)), (4, 2));
        // Both passes keep the analyses valid: each function's CFG is computed once.
        assert!(runs.iter().all(|r| r.2 == 1), "{runs:?}");
        // The report counts one run per pass and round.
        assert_eq!(report.timings[0].runs, 4);
        assert_eq!(report.timings[0].changed, 3);
    }
}
