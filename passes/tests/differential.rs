//! The differential property test: random well-formed functions run in the reference
//! interpreter before and after the full `-O` pipeline (verified after every pass) must give
//! identical results: the same bits for integers and floats alike, since the optimizer only
//! makes exact rewrites.
//!
//! A generated function has integer (`i32`, `u32`) and `f32` parameters, local variables
//! (scalar `var`s and a three-element array `var` addressed with constant indices, so SROA and
//! mem2reg have work), and a body of statements: assignments of random expressions (wrapping
//! integer arithmetic including division by zero and `MIN / -1`, masked shifts, float
//! arithmetic including NaN, infinities, signed zeros and subnormals, conversions, selects),
//! `if`/`else` statements, `if` expressions whose value joins in a merge-block parameter,
//! `switch`es with a shared target and a fall-through between cases, and counted loops with bounded trip counts (a constant, or a parameter masked to 0..7) whose
//! bodies may `break` or `continue` under a condition. It returns every variable in a struct.
//! It may call up to two helper functions generated the same way, which return early from
//! inside selections and loops (so the inliner wraps them in run-once loops).
//!
//! Random float arguments and constants never are signaling NaNs: quieting a signaling NaN is
//! not an observable difference a GPU guarantees either way, and `x * 1.0` to `x` legitimately
//! changes it.
//!
//! The generator is passes/tests/support_b/fn_gen.rs (the oracle runs the same programs on
//! lavapipe). Each proptest case is a seed; the program and its arguments come from a small deterministic
//! generator, and a failure prints the seed, the program and both results.

mod common;
#[path = "support_b/fn_gen.rs"]
mod fn_gen;

use fn_gen::{Rng, generate, random_bits};
use oneshader_ir::Module;
use oneshader_ir::print::print_module;
use oneshader_passes::interp::{Exit, InterpError, Interpreter, Value};
use oneshader_passes::manager::{Options, PrintAfter};
use oneshader_passes::pipeline::{OptLevel, optimize};
use proptest::prelude::*;

fn run(m: &Module, args: &[Value]) -> Result<Exit, InterpError> {
    let f = m.func_by_name("f").expect("@f exists");
    Interpreter::new(m).call(f, args)
}

fn same_outcome(a: &Result<Exit, InterpError>, b: &Result<Exit, InterpError>) -> bool {
    match (a, b) {
        (Ok(x), Ok(y)) => x == y,
        (Err(x), Err(y)) => std::mem::discriminant(x) == std::mem::discriminant(y),
        _ => false,
    }
}

fn check_seed(seed: u64) -> Result<(), TestCaseError> {
    let (text, params) = generate(seed);
    let original = common::module(&text);
    let mut optimized = original.clone();
    let mut pm = optimize(OptLevel::O).with_options(Options {
        verify_each: true,
        print_after: PrintAfter::None,
    });
    if let Err(e) = pm.run(&mut optimized) {
        let diags: Vec<String> = e.diagnostics.iter().map(|d| d.to_string()).collect();
        return Err(TestCaseError::fail(format!(
            "seed {seed}: {e}\n{}\ninput:\n{text}\nafter the failing pass:\n{}",
            diags.join("\n"),
            print_module(&optimized)
        )));
    }
    let mut rng = Rng(seed ^ 0x5555_5555_5555_5555);
    for _ in 0..8 {
        let args: Vec<Value> = params
            .iter()
            .map(|&t| Value::Scalar(t.scalar(), random_bits(&mut rng, t)))
            .collect();
        let before = run(&original, &args);
        let after = run(&optimized, &args);
        prop_assert!(
            before.is_ok(),
            "seed {seed}: the generated program fails: {before:?}\n{text}"
        );
        prop_assert!(
            same_outcome(&before, &after),
            "seed {seed}: args {args:?}\nbefore: {before:?}\nafter:  {after:?}\ninput:\n{text}\noptimized:\n{}",
            print_module(&optimized)
        );
    }
    Ok(())
}

proptest! {
    // 192 cases by default; PROPTEST_CASES=N runs more (e.g. to hunt for bugs locally).
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(192),
        ..ProptestConfig::default()
    })]

    #[test]
    fn optimized_functions_compute_the_same_bits(seed in any::<u64>()) {
        check_seed(seed)?;
    }
}

/// The optimizer does real work on the generated programs (the test would be vacuous if
/// every function came out unchanged).
#[test]
fn the_optimizer_changes_generated_programs() {
    let mut shrunk = 0;
    for seed in 0..20u64 {
        let (text, _) = generate(seed);
        let original = common::module(&text);
        let mut optimized = original.clone();
        optimize(OptLevel::O)
            .run(&mut optimized)
            .expect("optimizes");
        if optimized.len() < original.len() {
            shrunk += 1;
        }
        // Without a switch no variable survives: every one is promoted. (A value live across
        // switch cases may stay in memory, since switch targets take no parameters.)
        let printed = print_module(&optimized);
        if !text.contains("switch") {
            assert!(!printed.contains(" = var "), "seed {seed}:\n{printed}");
        }
    }
    assert!(shrunk >= 15, "only {shrunk} of 20 programs got smaller");
}

/// Fixed seeds, so a regression reproduces without proptest's random choice.
#[test]
fn fixed_seeds() {
    for seed in [0u64, 1, 2, 3, 42, 1234, 0xdead_beef] {
        if let Err(e) = check_seed(seed) {
            panic!("{e}");
        }
    }
}
