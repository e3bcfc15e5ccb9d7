//! The IR-text test harness for passes.
//!
//! A case is an input module in text, a comma-separated pass list (registry names, see
//! `oneshader_passes::pipeline::PASSES`) and the expected output module in text:
//!
//! ```ignore
//! mod common;
//! use common::check;
//!
//! #[test]
//! fn folds_constants() {
//!     check(
//!         "combine",
//!         r"
//! func @f() -> i32 {
//! bb0:
//!   %0 = add i32 1, i32 2 : i32
//!   return %0
//! }",
//!         r"
//! func @f() -> i32 {
//! bb0:
//!   return i32 3
//! }",
//!     );
//! }
//! ```
//!
//! The input must parse and verify; every pass runs through the pass manager with verification
//! after each pass (a pass that leaves the module invalid fails the test with the verifier's
//! diagnostics). The expected text is parsed and printed before the comparison, so it may use
//! any value ids and labels (`%x`, `bb_exit`): only the canonical form is compared. A mismatch
//! panics with both texts and the first differing line.
//!
//! Use it from another test file with `mod common;` (each integration test is its own crate).

#![allow(dead_code)]

use oneshader_ir::Module;
use oneshader_ir::parse::parse;
use oneshader_ir::print::print_module;
use oneshader_ir::verify::verify;
use oneshader_passes::manager::{Options, PassManager, PrintAfter};
use oneshader_passes::pipeline::pass_by_name;

/// Parses and verifies `text`, panicking with the diagnostics when it is not a valid module.
pub fn module(text: &str) -> Module {
    let m = match parse(text) {
        Ok(m) => m,
        Err(d) => panic!("the test module does not parse: {d:#?}\n{text}"),
    };
    let diags = verify(&m);
    assert!(
        diags.is_empty(),
        "the test module does not verify:\n{}\n{text}",
        diags
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
    m
}

/// The canonical text of `text` (parsed and printed).
pub fn canonical(text: &str) -> String {
    print_module(&module(text))
}

/// A pass manager for `passes` (comma-separated registry names) that verifies after each pass.
pub fn manager(passes: &str) -> PassManager {
    let mut pm = PassManager::new().with_options(Options {
        verify_each: true,
        print_after: PrintAfter::None,
    });
    for name in passes.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let pass = pass_by_name(name).unwrap_or_else(|| panic!("unknown pass `{name}`"));
        pm.add(pass);
    }
    pm
}

/// Runs `passes` on `m`, verifying after each; panics on a pass error or invalid output.
pub fn run(passes: &str, m: &mut Module) {
    if let Err(e) = manager(passes).run(m) {
        let diags: Vec<String> = e.diagnostics.iter().map(|d| d.to_string()).collect();
        panic!(
            "{e}\n{}\nmodule after the failing pass:\n{}",
            diags.join("\n"),
            print_module(m)
        );
    }
}

/// Runs `passes` on `input` and returns the printed result.
pub fn run_text(passes: &str, input: &str) -> String {
    let mut m = module(input);
    run(passes, &mut m);
    print_module(&m)
}

/// Runs `passes` on `input` and checks the printed result against `expected`.
pub fn check(passes: &str, input: &str, expected: &str) {
    let got = run_text(passes, input);
    let want = canonical(expected);
    if got != want {
        let first = got
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| got.lines().count().min(want.lines().count()));
        panic!(
            "`{passes}` gave an unexpected module (first difference at line {}):\n\
             --- got ---\n{got}--- expected ---\n{want}",
            first + 1
        );
    }
}

/// Checks that `passes` leave `input` as it is.
pub fn check_unchanged(passes: &str, input: &str) {
    check(passes, input, input);
}
