//! Extras for passes B's IR-text tests, next to the shared harness in `tests/common` (which
//! runs passes by registry name through the pass manager, verifying after each): comparing a
//! module already at hand with expected text, running configured pass objects (options,
//! overrides), and checking that a pass reports no change.

#![allow(dead_code)]

pub mod program_gen;

use oneshader_ir::Module;
use oneshader_ir::parse::parse;
use oneshader_ir::print::print_module;
use oneshader_ir::verify::verify;
use oneshader_passes::Pass;
use oneshader_passes::pipeline::pass_by_name;

/// Parses and verifies `text`.
fn parsed(text: &str) -> Module {
    let m = match parse(text) {
        Ok(m) => m,
        Err(d) => panic!("the test module does not parse: {d:#?}\n{text}"),
    };
    let d = verify(&m);
    assert!(
        d.is_empty(),
        "the test module does not verify: {d:#?}\n{text}"
    );
    m
}

/// Runs `passes` in order on `m`, verifying after each one. Returns whether any reported a
/// change.
pub fn run_passes(m: &mut Module, passes: &mut [&mut dyn Pass]) -> bool {
    let mut changed = false;
    for p in passes.iter_mut() {
        let before = print_module(m);
        match p.run(m) {
            Ok(c) => changed |= c,
            Err(e) => panic!("pass `{}` failed: {e}\ninput:\n{before}", p.name()),
        }
        let d = verify(m);
        assert!(
            d.is_empty(),
            "verification failed after `{}`: {d:#?}\nbefore:\n{before}\nafter:\n{}",
            p.name(),
            print_module(m)
        );
    }
    changed
}

/// Runs the registry's passes named in `passes` (comma-separated) directly, verifying after
/// each; returns whether any reported a change.
pub fn run_reporting(passes: &str, m: &mut Module) -> bool {
    let mut boxes: Vec<Box<dyn Pass>> = passes
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|n| pass_by_name(n).unwrap_or_else(|| panic!("unknown pass `{n}`")))
        .collect();
    let mut refs: Vec<&mut dyn Pass> = boxes
        .iter_mut()
        .map(|b| &mut **b as &mut dyn Pass)
        .collect();
    run_passes(m, &mut refs)
}

/// Compares the printed module with `expected` (parsed and printed first); the output must
/// also round-trip through the text form.
pub fn assert_module(m: &Module, expected: &str) {
    let got = print_module(m);
    let want = print_module(&parsed(expected));
    if got != want {
        let first = got
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| got.lines().count().min(want.lines().count()));
        panic!(
            "unexpected module (first difference at line {}):\n--- got ---\n{got}--- expected ---\n{want}",
            first + 1
        );
    }
    assert_eq!(
        print_module(&parsed(&got)),
        got,
        "the output does not round-trip"
    );
}

/// Checks that `passes` leave `input` as it is and report no change.
pub fn check_no_change(passes: &str, input: &str) {
    let mut m = parsed(input);
    let changed = run_reporting(passes, &mut m);
    assert_module(&m, input);
    assert!(
        !changed,
        "`{passes}` reported a change but left the module as it was"
    );
}

/// Runs `func` with each argument list in the reference interpreter before and after
/// `passes`, and asserts identical outcomes (return values or discards, and errors alike).
/// Arguments are `i32`s. Returns the transformed module.
pub fn same_results(input: &str, passes: &str, func: &str, arg_sets: &[&[i32]]) -> Module {
    use oneshader_passes::interp::{Interpreter, Value};
    let before = parsed(input);
    let mut after = parsed(input);
    run_reporting(passes, &mut after);
    for args in arg_sets {
        let vals: Vec<Value> = args.iter().map(|&a| Value::i32(a)).collect();
        let fb = before
            .func_by_name(func)
            .unwrap_or_else(|| panic!("@{func} is missing before `{passes}`"));
        let fa = after
            .func_by_name(func)
            .unwrap_or_else(|| panic!("@{func} is missing after `{passes}`"));
        let want = Interpreter::new(&before).call(fb, &vals);
        let got = Interpreter::new(&after).call(fa, &vals);
        assert!(
            want.is_ok(),
            "the original fails on {args:?}: {want:?}\n{input}"
        );
        assert_eq!(
            format!("{got:?}"),
            format!("{want:?}"),
            "@{func}{args:?} differs after `{passes}`:\n{}",
            print_module(&after)
        );
    }
    after
}
