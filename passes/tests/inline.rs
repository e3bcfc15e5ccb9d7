//! Inlining: IR-text cases (input, expected output), verified after the pass.

mod common;
use common::check;
mod support_b;
use common::module;
use oneshader_passes::inline::{Inline, InlineOptions};
use support_b::{check_no_change, run_passes};

const FIND: &str = r"
func @find(%n: i32, %k: i32) -> i32 {
bb0:
  loop bb1(i32 0), break bb2, continue bb3
bb1(%i: i32):
  %t = lt %i, %n : bool
  cond_br %t, bb4, bb2
bb2:
  return i32 -1
bb3:
  %i2 = add %i, i32 1 : i32
  br bb1(%i2)
bb4:
  %hit = eq %i, %k : bool
  if_else %hit, bb5, bb6, merge bb6
bb5:
  return %i
bb6:
  br bb3
}
";

/// Nested returns in a loop: the callee is wrapped in a run-once loop; the `return` inside its
/// loop sets a flag and breaks that loop; the loop's break block tests the flag and breaks the
/// run-once loop (`cond_br` targeting the innermost loop's break); the other `return` stores
/// the result and breaks the run-once loop directly.
#[test]
fn nested_return_in_a_loop() {
    check(
        "inline",
        &format!(
            r"{FIND}
func @main(%a: i32) -> i32 {{
bb0:
  %c = call @find(%a, i32 3) : i32
  %d = add %c, i32 1 : i32
  return %d
}}"
        ),
        r"
func @main(%a: i32) -> i32 {
bb0:
  %res.find.result = var : ptr<function, i32>
  %flag.find.returned = var : ptr<function, bool>
  store %flag, bool false
  loop bb1, break bb11, continue bb10 [run_once]
bb1:
  br bb2
bb2:
  loop bb3(i32 0), break bb4, continue bb6
bb3(%i: i32):
  %t = lt %i, %a : bool
  cond_br %t, bb7, bb4
bb4:
  %f = load %flag : bool
  cond_br %f, bb11, bb5
bb5:
  store %res, i32 -1
  br bb11
bb6:
  %i2 = add %i, i32 1 : i32
  br bb3(%i2)
bb7:
  %hit = eq %i, i32 3 : bool
  if_else %hit, bb8, bb9, merge bb9
bb8:
  store %res, %i
  store %flag, bool true
  br bb4
bb9:
  br bb6
bb10:
  br bb1
bb11:
  %c = load %res : i32
  %d = add %c, i32 1 : i32
  return %d
}",
    );
}

/// The same call inside a loop of the caller: the hoisted variables are reset to `undef` at
/// the call (each call gets fresh ones) and the full pipeline turns the flag and the result
/// into block parameters. The flag reaches the inner loop's break block from the header's
/// test too, so that test moves into an `if_else` at the top of the body (a loop header's
/// `cond_br` keeps its own break block as a target, OSV0012).
#[test]
fn nested_return_in_a_loop_optimized() {
    check(
        "inline,sroa,mem2reg,simplify_cfg",
        &format!(
            r"{FIND}
func @main(%a: i32) -> i32 {{
bb0:
  %c = call @find(%a, i32 3) : i32
  %d = add %c, i32 1 : i32
  return %d
}}"
        ),
        r"
func @main(%a: i32) -> i32 {
bb0:
  loop bb1, break bb15, continue bb14 [run_once]
bb1:
  br bb2
bb2:
  loop bb3(i32 0), break bb7, continue bb10
bb3(%i: i32):
  %t = lt %i, %a : bool
  br bb4
bb4:
  if_else %t, bb11, bb5, merge bb6
bb5:
  br bb7(bool false)
bb6:
  unreachable
bb7(%flag.find.returned: bool):
  if_else %flag, bb8, bb9, merge bb9
bb8:
  br bb15(%i)
bb9:
  br bb15(i32 -1)
bb10:
  %i2 = add %i, i32 1 : i32
  br bb3(%i2)
bb11:
  %hit = eq %i, i32 3 : bool
  if_else %hit, bb12, bb13, merge bb13
bb12:
  br bb7(bool true)
bb13:
  br bb10
bb14:
  br bb1
bb15(%res.find.result: i32):
  %d = add %res, i32 1 : i32
  return %d
}",
    );
}

const BIG: &str = r"
func @big(%x: i32) -> i32 {
bb0:
  %a = add %x, i32 1 : i32
  %b = add %a, i32 2 : i32
  %c = add %b, i32 3 : i32
  return %c
}";

/// The growth cap: a callee over the size limit is inlined only at its only call site, and
/// nothing is inlined into a caller at its size limit.
#[test]
fn growth_cap() {
    let small = InlineOptions {
        max_callee_insts: 3,
        max_caller_insts: 50,
        ..InlineOptions::default()
    };
    // Two call sites of a 4-instruction callee: left alone.
    let two = format!(
        r"{BIG}
func @main(%x: i32) -> i32 {{
bb0:
  %p = call @big(%x) : i32
  %q = call @big(%p) : i32
  return %q
}}"
    );
    let mut m = module(&two);
    assert!(!run_passes(&mut m, &mut [&mut Inline::with_options(small)]));
    support_b::assert_module(&m, &two);
    // Its only call site: inlined (the callee disappears, so code does not grow).
    let one = format!(
        r"{BIG}
func @main(%x: i32) -> i32 {{
bb0:
  %p = call @big(%x) : i32
  return %p
}}"
    );
    let mut m = module(&one);
    assert!(run_passes(&mut m, &mut [&mut Inline::with_options(small)]));
    support_b::assert_module(
        &m,
        r"
func @main(%x: i32) -> i32 {
bb0:
  %a = add %x, i32 1 : i32
  %b = add %a, i32 2 : i32
  %c = add %b, i32 3 : i32
  return %c
}",
    );
    // A caller already at the caller limit gets nothing.
    let full = InlineOptions {
        max_callee_insts: 100,
        max_caller_insts: 2,
        ..InlineOptions::default()
    };
    let mut m = module(&two);
    assert!(!run_passes(&mut m, &mut [&mut Inline::with_options(full)]));
    // With room for exactly one more callee, the first call is inlined, the second is not.
    let room = InlineOptions {
        max_callee_insts: 100,
        max_caller_insts: 4,
        ..InlineOptions::default()
    };
    let mut m = module(&two);
    assert!(run_passes(&mut m, &mut [&mut Inline::with_options(room)]));
    let out = format!("{m:?}");
    assert_eq!(out.matches("call @big").count(), 1, "{out}");
}

/// The module growth bound: in a chain of functions each calling the next once, every step
/// copies a body as large as everything below it, so the copies grow quadratically; inlining
/// stops once it has added `max_module_growth` instructions (or the module's size). The calls
/// it leaves are ordinary calls, and the module still verifies.
#[test]
fn module_growth_bound_stops_a_chain_of_single_calls() {
    let n = 150;
    let mut text = String::new();
    for k in 0..n {
        if k + 1 < n {
            text.push_str(&format!(
                "func @f{k}(%a: i32) -> i32 {{\nbb0:\n  %c = call @f{}(%a) : i32\n  %r = add %c, i32 1 : i32\n  return %r\n}}\n",
                k + 1
            ));
        } else {
            text.push_str(&format!(
                "func @f{k}(%a: i32) -> i32 {{\nbb0:\n  %r = add %a, i32 1 : i32\n  return %r\n}}\n"
            ));
        }
    }
    let count = |m: &oneshader_ir::Module| -> usize {
        m.functions()
            .iter()
            .flat_map(|f| f.blocks(m))
            .map(|b| b.insts(m).len())
            .sum()
    };
    let mut m = module(&text);
    let before = count(&m);
    assert_eq!(before, 3 * n - 1);
    let bounded = InlineOptions {
        max_module_growth: 2000,
        ..InlineOptions::default()
    };
    assert!(run_passes(
        &mut m,
        &mut [&mut Inline::with_options(bounded)]
    ));
    let after = count(&m);
    // Without the bound the copies add about n * n = 22,500 instructions.
    assert!(after <= before + 2000, "{before} -> {after}");
    let out = format!("{m:?}");
    assert!(out.contains("call @f"), "some calls stay calls");
    // The default bound (a million) lets the whole chain in: every call is gone.
    let mut m = module(&text);
    assert!(run_passes(&mut m, &mut [&mut Inline::default()]));
    assert!(!format!("{m:?}").contains("call @f"));
}

/// HLSL `out`/`inout` parameters are pointers to the caller's variables: the variable's address
/// escapes into the call, so it stays in memory; once the call is inlined the accesses are the
/// caller's own, and SROA and mem2reg promote it (a struct field passed as `out` included).
#[test]
fn out_parameters_promote_after_inlining() {
    let input = r"
struct @S {
  a: f32
  b: f32
}
func @split(%x: f32, %lo: ptr<function, f32>, %hi: ptr<function, f32>) -> void {
bb0:
  %h = mul %x, f32 0.5 : f32
  store %lo, %h
  %old = load %hi : f32
  %n = add %old, %h : f32
  store %hi, %n
  return
}
func @main(%x: f32) -> f32 {
bb0:
  %s = var : ptr<function, @S>
  store %s, @S zero
  %t = var : ptr<function, f32>
  store %t, f32 1.0
  %lo = var : ptr<function, f32>
  call @split(%x, %lo, %t)
  %pa = field_addr %s, 0 : ptr<function, f32>
  %lov = load %lo : f32
  store %pa, %lov
  %a = load %pa : f32
  %b = load %t : f32
  %r = add %a, %b : f32
  return %r
}";
    check(
        "inline,sroa,mem2reg",
        input,
        r"
struct @S {
  a: f32
  b: f32
}
func @main(%x: f32) -> f32 {
bb0:
  %h = mul %x, f32 0.5 : f32
  %n = add f32 1.0, %h : f32
  %r = add %h, %n : f32
  return %r
}",
    );
}

/// Nothing to inline: no change reported.
#[test]
fn nothing_to_inline() {
    check_no_change(
        "inline",
        r"
func @f(%x: i32) -> i32 {
bb0:
  return %x
}",
    );
}

/// Returns nested two loops deep: the inner loop's break tests the flag and breaks the outer
/// loop, whose break tests it again and leaves the run-once loop. After the whole pipeline the
/// module is valid and the run-once machinery has become block parameters.
#[test]
fn returns_two_loops_deep() {
    let input = r"
func @search(%n: i32) -> i32 {
bb0:
  loop bb1(i32 0), break bb2, continue bb3
bb1(%i: i32):
  %ti = lt %i, %n : bool
  cond_br %ti, bb4, bb2
bb4:
  loop bb5(i32 0), break bb6, continue bb7
bb5(%j: i32):
  %tj = lt %j, %n : bool
  cond_br %tj, bb8, bb6
bb8:
  %p = mul %i, %j : i32
  %hit = eq %p, i32 12 : bool
  if_else %hit, bb9, bb10, merge bb10
bb9:
  return %p
bb10:
  br bb7
bb7:
  %j2 = add %j, i32 1 : i32
  br bb5(%j2)
bb6:
  br bb3
bb3:
  %i2 = add %i, i32 1 : i32
  br bb1(%i2)
bb2:
  return i32 0
}
func @main(%n: i32) -> i32 {
bb0:
  %r = call @search(%n) : i32
  return %r
}";
    check(
        "inline",
        input,
        r"
func @main(%n: i32) -> i32 {
bb0:
  %res.search.result = var : ptr<function, i32>
  %flag.search.returned = var : ptr<function, bool>
  store %flag, bool false
  loop bb1, break bb16, continue bb15 [run_once]
bb1:
  br bb2
bb2:
  loop bb3(i32 0), break bb13, continue bb12
bb3(%i: i32):
  %ti = lt %i, %n : bool
  cond_br %ti, bb4, bb13
bb4:
  loop bb5(i32 0), break bb10, continue bb9
bb5(%j: i32):
  %tj = lt %j, %n : bool
  cond_br %tj, bb6, bb10
bb6:
  %p = mul %i, %j : i32
  %hit = eq %p, i32 12 : bool
  if_else %hit, bb7, bb8, merge bb8
bb7:
  store %res, %p
  store %flag, bool true
  br bb10
bb8:
  br bb9
bb9:
  %j2 = add %j, i32 1 : i32
  br bb5(%j2)
bb10:
  %f1 = load %flag : bool
  cond_br %f1, bb13, bb11
bb11:
  br bb12
bb12:
  %i2 = add %i, i32 1 : i32
  br bb3(%i2)
bb13:
  %f2 = load %flag : bool
  cond_br %f2, bb16, bb14
bb14:
  store %res, i32 0
  br bb16
bb15:
  br bb1
bb16:
  %r = load %res : i32
  return %r
}",
    );
    let out = common::run_text("inline,sroa,mem2reg,simplify_cfg", input);
    assert!(!out.contains(" var "), "{out}");
    assert!(!out.contains("call "), "{out}");
}

// ---- semantics: the reference interpreter gives the same results before and after -----------

const PIPELINE: &str = "inline,sroa,mem2reg,simplify_cfg";

fn same_results_both(input: &str, func: &str, args: &[&[i32]]) {
    let after = support_b::same_results(input, "inline", func, args);
    // The results match because the callees were inlined, not because nothing happened.
    let f = after
        .func_by_name(func)
        .unwrap_or_else(|| panic!("@{func} after inlining"));
    let calls = f
        .blocks(&after)
        .iter()
        .flat_map(|b| b.insts(&after))
        .filter(|&i| after.op(i) == oneshader_ir::Op::Call)
        .count();
    assert_eq!(
        calls,
        0,
        "`inline` left {calls} call(s) in @{func}:\n{}",
        oneshader_ir::print::print_module(&after)
    );
    support_b::same_results(input, PIPELINE, func, args);
}

#[test]
fn semantics_nested_return_in_a_loop() {
    let input = format!(
        r"{FIND}
func @main(%a: i32, %k: i32) -> i32 {{
bb0:
  loop bb1(i32 0, i32 0), break bb2, continue bb3
bb1(%i: i32, %acc: i32):
  %t = lt %i, %a : bool
  cond_br %t, bb4, bb2
bb4:
  %c = call @find(%a, %i) : i32
  %acc2 = add %acc, %c : i32
  br bb3
bb3:
  %i2 = add %i, i32 1 : i32
  br bb1(%i2, %acc2)
bb2:
  %miss = call @find(%a, %k) : i32
  %r = add %acc, %miss : i32
  return %r
}}"
    );
    same_results_both(
        &input,
        "main",
        &[&[0, 0], &[1, 5], &[3, 2], &[5, -1], &[6, 9], &[-2, 0]],
    );
}

#[test]
fn semantics_returns_two_loops_deep() {
    let input = r"
func @search(%n: i32) -> i32 {
bb0:
  loop bb1(i32 0), break bb2, continue bb3
bb1(%i: i32):
  %ti = lt %i, %n : bool
  cond_br %ti, bb4, bb2
bb4:
  loop bb5(i32 0), break bb6, continue bb7
bb5(%j: i32):
  %tj = lt %j, %n : bool
  cond_br %tj, bb8, bb6
bb8:
  %p = mul %i, %j : i32
  %hit = eq %p, i32 12 : bool
  if_else %hit, bb9, bb10, merge bb10
bb9:
  return %p
bb10:
  br bb7
bb7:
  %j2 = add %j, i32 1 : i32
  br bb5(%j2)
bb6:
  br bb3
bb3:
  %i2 = add %i, i32 1 : i32
  br bb1(%i2)
bb2:
  return i32 0
}
func @main(%n: i32) -> i32 {
bb0:
  loop bb1(i32 0, i32 0), break bb2, continue bb3
bb1(%k: i32, %acc: i32):
  %t = lt %k, %n : bool
  cond_br %t, bb4, bb2
bb4:
  %r = call @search(%k) : i32
  %acc2 = add %acc, %r : i32
  br bb3
bb3:
  %k2 = add %k, i32 1 : i32
  br bb1(%k2, %acc2)
bb2:
  return %acc
}";
    same_results_both(input, "main", &[&[0], &[3], &[4], &[5], &[8]]);
}

#[test]
fn semantics_switches() {
    let input = r"
func @g(%x: i32, %y: i32) -> i32 {
bb0:
  switch %x, merge bb5, default bb5, [i32 0: bb1, i32 7: bb6]
bb1:
  switch %y, merge bb3, default bb3, [i32 0: bb2, i32 1: bb2]
bb2:
  return i32 1
bb3:
  br bb5
bb6:
  return %y
bb5:
  %s = add %x, %y : i32
  return %s
}
func @main(%x: i32, %y: i32) -> i32 {
bb0:
  %a = call @g(%x, %y) : i32
  %b = call @g(%y, %x) : i32
  %c = mul %a, i32 100 : i32
  %r = add %c, %b : i32
  return %r
}";
    same_results_both(
        input,
        "main",
        &[
            &[0, 0],
            &[0, 1],
            &[0, 5],
            &[7, 3],
            &[3, 7],
            &[7, 0],
            &[2, 2],
        ],
    );
}

#[test]
fn semantics_call_in_loop_header_and_continue() {
    let input = r"
func @pick(%x: i32) -> i32 {
bb0:
  switch %x, merge bb4, default bb3, [i32 0: bb1, i32 1: bb2]
bb1:
  return i32 10
bb2:
  br bb4
bb3:
  return i32 30
bb4:
  return i32 20
}
func @inc(%x: i32) -> i32 {
bb0:
  %y = add %x, i32 1 : i32
  return %y
}
func @main(%a: i32) -> i32 {
bb0:
  loop bb1(i32 0, i32 0), break bb2, continue bb3
bb1(%i: i32, %s: i32):
  %p = call @pick(%i) : i32
  %s2 = add %s, %p : i32
  %lt = lt %i, %a : bool
  cond_br %lt, bb4, bb2
bb2:
  return %s2
bb3:
  %i2 = call @inc(%i) : i32
  br bb1(%i2, %s2)
bb4:
  br bb3
}";
    same_results_both(input, "main", &[&[-1], &[0], &[1], &[2], &[6]]);
}

// ---- property: random callees with nested returns, checked by the interpreter ---------------

use support_b::program_gen::{ProgramGen, Rng};

fn check_program(seed: u64) {
    let text = ProgramGen::program(seed);
    let mut rng = Rng(seed ^ 0x5eed);
    let args: Vec<[i32; 2]> = (0..6)
        .map(|_| [rng.below(13) as i32 - 6, rng.below(13) as i32 - 6])
        .collect();
    let arg_refs: Vec<&[i32]> = args.iter().map(|a| &a[..]).collect();
    let inlined = support_b::same_results(&text, "inline", "main", &arg_refs);
    let printed = oneshader_ir::print::print_module(&inlined);
    assert!(
        !printed.contains("call @callee"),
        "seed {seed}: the callee was not inlined:\n{printed}"
    );
    support_b::same_results(&text, PIPELINE, "main", &arg_refs);
    // The whole -O pipeline, through the pass manager with verification after each pass.
    let mut m = module(&text);
    let mut pm = oneshader_passes::pipeline::optimize(oneshader_passes::pipeline::OptLevel::O)
        .with_options(oneshader_passes::manager::Options {
            verify_each: true,
            ..Default::default()
        });
    if let Err(e) = pm.run(&mut m) {
        panic!("seed {seed}: {e}\n{text}");
    }
    let f = m.func_by_name("main").unwrap();
    let orig = module(&text);
    let fo = orig.func_by_name("main").unwrap();
    for a in &args {
        let vals = [
            oneshader_passes::interp::Value::i32(a[0]),
            oneshader_passes::interp::Value::i32(a[1]),
        ];
        let want = oneshader_passes::interp::Interpreter::new(&orig).call(fo, &vals);
        let got = oneshader_passes::interp::Interpreter::new(&m).call(f, &vals);
        assert_eq!(
            format!("{got:?}"),
            format!("{want:?}"),
            "seed {seed}, args {a:?}, after -O:\n{text}"
        );
    }
}

/// A few fixed seeds, so a regression shows up without proptest's randomness. Seed 1536 once
/// made mem2reg split a `cond_br` edge into an enclosing selection's merge the wrong way (an
/// `if_else` whose arm left two selections at once), which only SPIR-V's rules reject.
#[test]
fn random_callees_fixed_seeds() {
    for seed in [1, 2, 3, 42, 1234, 1536, 99_999] {
        check_program(seed);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 96, ..Default::default() })]
    /// Random callees with nested returns give the same results after inlining alone and
    /// after the whole optimizer, verified after every pass.
    #[test]
    fn random_callees_keep_their_results(seed in proptest::prelude::any::<u64>()) {
        check_program(seed);
    }
}

/// A callee that never returns (an infinite loop) keeps its unreachable `return value`
/// blocks: in a caller of another return type they end in `unreachable`, so the module
/// still verifies (the `return vec4` of `for (;;) {} return 1;` reached a `void` entry).
#[test]
fn a_callee_that_never_returns_leaves_no_return_of_its_type() {
    let mut m = module(
        r"
func @body() -> f32 {
bb0:
  loop bb1, break bb4, continue bb3
bb1:
  br bb2
bb2:
  br bb3
bb3:
  br bb1
bb4:
  return f32 1.0
}
func @main() -> void {
bb0:
  %v = call @body() : f32
  return
}",
    );
    let mut inline = Inline::default();
    run_passes(&mut m, &mut [&mut inline]);
    let text = oneshader_ir::print::print_module(&m);
    assert!(!text.contains("return f32"), "{text}");
    assert!(text.contains("unreachable"), "{text}");
    let diags = oneshader_ir::verify::verify(&m);
    assert!(diags.is_empty(), "{diags:?}\n{text}");
}
