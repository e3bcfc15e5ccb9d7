//! Full unrolling of `unroll` loops: IR-text cases (input, expected output, verified after
//! the pass), loops that must be left alone, and nested loops run by the reference
//! interpreter before and after.

mod common;

use common::{check_unchanged, module, run};
use oneshader_ir::{Module, Op};
use oneshader_passes::interp::{Exit, Interpreter, Value};
use oneshader_passes::semantics::Scalar;

/// Argument lists: each `i32` in `ints`, with each `bool` in `bools` after it (or alone when
/// `bools` is empty).
fn args(ints: &[i32], bools: &[bool]) -> Vec<Vec<Value>> {
    let int = |a: i32| Value::Scalar(Scalar::I32, a as u32 as u64);
    ints.iter()
        .flat_map(|&a| {
            if bools.is_empty() {
                vec![vec![int(a)]]
            } else {
                bools
                    .iter()
                    .map(|&b| vec![int(a), Value::Scalar(Scalar::Bool, b as u64)])
                    .collect()
            }
        })
        .collect()
}

/// The first function of `before` and of `after` return the same value for every argument
/// list (run by the reference interpreter).
fn assert_same_results(before: &Module, after: &Module, cases: &[Vec<Value>]) {
    let call = |m: &Module, a: &[Value]| match Interpreter::new(m).call(m.functions()[0], a) {
        Ok(Exit::Return(Some(v))) => v,
        other => panic!("{a:?}: {other:?}"),
    };
    for a in cases {
        assert_eq!(call(before, a), call(after, a), "arguments {a:?}");
    }
}

/// `loop` terminators in the module.
fn loop_count(m: &Module) -> usize {
    m.functions()
        .iter()
        .flat_map(|f| f.blocks(m))
        .filter(|b| b.terminator(m).is_some_and(|t| m.op(t) == Op::Loop))
        .count()
}

/// `loop` terminators marked `run_once`.
fn run_once_count(m: &Module) -> usize {
    m.functions()
        .iter()
        .flat_map(|f| f.blocks(m))
        .filter_map(|b| b.terminator(m))
        .filter(|&t| m.op(t) == Op::Loop && m.has_decoration(t, Op::RunOnce))
        .count()
}

const BREAK_INSIDE: &str = r"
func @f(%a: i32) -> i32 {
bb0:
  loop bb1(i32 0), break bb4, continue bb3 [unroll(0)]
bb1(%i: i32):
  %c = lt %i, i32 4 : bool
  cond_br %c, bb2, bb4
bb2:
  %e = eq %i, %a : bool
  cond_br %e, bb4, bb3
bb3:
  %n = add %i, i32 1 : i32
  br bb1(%n)
bb4:
  return %a
}";

const UNKNOWN_BOUND: &str = r"
func @f(%a: i32) -> i32 {
bb0:
  loop bb1(i32 0), break bb4, continue bb3 [unroll(0)]
bb1(%i: i32):
  %c = lt %i, %a : bool
  cond_br %c, bb2, bb4
bb2:
  br bb3
bb3:
  %n = add %i, i32 1 : i32
  br bb1(%n)
bb4:
  return %i
}";

/// `unroll(2)` asks for at most two copies; the loop runs three times.
const OVER_THE_HINT: &str = r"
func @f(%a: i32) -> i32 {
bb0:
  loop bb1(i32 0, %a), break bb4, continue bb3 [unroll(2)]
bb1(%i: i32, %s: i32):
  %c = lt %i, i32 3 : bool
  cond_br %c, bb2, bb4
bb2:
  %t = add %s, %i : i32
  br bb3
bb3:
  %n = add %i, i32 1 : i32
  br bb1(%n, %t)
bb4:
  return %s
}";

/// A `continue` from inside a selection: unrolled with a run-once loop per copy.
const CONTINUE_IN_IF: &str = r"
func @f(%a: i32, %b: bool) -> i32 {
bb0:
  loop bb1(i32 0, %a), break bb6, continue bb5 [unroll(0)]
bb1(%i: i32, %s: i32):
  %c = lt %i, i32 3 : bool
  cond_br %c, bb2, bb6
bb2:
  if_else %b, bb3, bb4, merge bb4
bb3:
  br bb5(%s)
bb4:
  %t = add %s, %i : i32
  br bb5(%t)
bb5(%u: i32):
  %n = add %i, i32 1 : i32
  br bb1(%n, %u)
bb6:
  return %s
}";

/// Both a `continue` from inside a selection and a `break`: a copied break would have to
/// leave two loops.
const CONTINUE_AND_BREAK: &str = r"
func @f(%a: i32, %b: bool) -> i32 {
bb0:
  loop bb1(i32 0, %a), break bb6, continue bb5 [unroll(0)]
bb1(%i: i32, %s: i32):
  %c = lt %i, i32 3 : bool
  cond_br %c, bb2, bb6
bb2:
  if_else %b, bb3, bb4, merge bb4
bb3:
  br bb5(%s)
bb4:
  %t = add %s, %i : i32
  %e = eq %t, i32 7 : bool
  cond_br %e, bb6, bb7
bb7:
  br bb5(%t)
bb5(%u: i32):
  %n = add %i, i32 1 : i32
  br bb1(%n, %u)
bb6:
  return %s
}";

/// More iterations than the pass copies.
const TOO_MANY_TRIPS: &str = r"
func @f(%a: i32) -> i32 {
bb0:
  loop bb1(i32 0, %a), break bb4, continue bb3 [unroll(0)]
bb1(%i: i32, %s: i32):
  %c = lt %i, i32 5000 : bool
  cond_br %c, bb2, bb4
bb2:
  %t = add %s, %i : i32
  br bb3
bb3:
  %n = add %i, i32 1 : i32
  br bb1(%n, %t)
bb4:
  return %s
}";

#[test]
fn leaves_loops_it_cannot_unroll_exactly() {
    for (what, text) in [
        ("a bound known only at run time", UNKNOWN_BOUND),
        ("more trips than unroll(n) allows", OVER_THE_HINT),
        (
            "a continue from inside a selection and a break",
            CONTINUE_AND_BREAK,
        ),
        ("more trips than the pass copies", TOO_MANY_TRIPS),
    ] {
        let m = module(text);
        let mut after = m.clone();
        run("unroll", &mut after);
        assert_eq!(
            oneshader_ir::print::print_module(&after),
            oneshader_ir::print::print_module(&m),
            "{what}"
        );
    }
    check_unchanged("unroll", CONTINUE_AND_BREAK);
}

/// Loops with `break`s: the copies sit in a run-once loop (so each copied break is still a
/// structured exit) and the values used after the loop arrive as parameters of its break
/// block, from each copy's break and from the last header copy. Same results as the loop.
#[test]
fn loops_with_breaks_unroll_inside_a_run_once_loop() {
    let with_live_out = r"
func @f(%a: i32) -> i32 {
bb0:
  loop bb1(i32 0, i32 1), break bb4, continue bb3 [unroll(0)]
bb1(%i: i32, %s: i32):
  %c = lt %i, i32 3 : bool
  cond_br %c, bb2, bb4
bb2:
  %e = eq %i, %a : bool
  cond_br %e, bb4, bb3
bb3:
  %t = mul %s, i32 5 : i32
  %n = add %i, i32 1 : i32
  br bb1(%n, %t)
bb4:
  %r = add %s, %i : i32
  return %r
}";
    for text in [with_live_out, BREAK_INSIDE] {
        let before = module(text);
        let mut after = before.clone();
        run("unroll", &mut after);
        assert_eq!(loop_count(&after), 1, "the run-once loop");
        assert_eq!(run_once_count(&after), 1, "the run-once loop is marked");
        assert_eq!(run_once_count(&before), 0, "the user's loop is not");
        let printed = oneshader_ir::print::print_module(&after);
        assert!(
            !printed.contains("unroll"),
            "the run-once loop has no hint: {printed}"
        );
        assert_same_results(&before, &after, &args(&[-1, 0, 1, 2, 3, 9], &[]));
        // The rest of the round keeps the run-once loop valid (`run` verifies after each pass).
        let mut folded = before.clone();
        run("unroll,combine,cse,dce,simplify_cfg", &mut folded);
    }
}

/// A `continue` from inside a selection: each copy of the body sits in a run-once loop whose
/// break block is the copy's continue block. Same results as the loop.
#[test]
fn loops_with_continues_unroll_with_a_run_once_loop_per_copy() {
    let before = module(CONTINUE_IN_IF);
    let mut after = before.clone();
    run("unroll", &mut after);
    assert_eq!(loop_count(&after), 3, "one per copy");
    assert_eq!(
        run_once_count(&after),
        3,
        "each copy's run-once loop is marked"
    );
    let printed = oneshader_ir::print::print_module(&after);
    assert!(!printed.contains("unroll"), "{printed}");
    assert_same_results(&before, &after, &args(&[-5, 0, 1, 4], &[false, true]));
    // The rest of the round keeps the copies valid (`run` verifies after each pass).
    let mut rest = before.clone();
    run("unroll,combine,cse,dce,simplify_cfg", &mut rest);
}

/// Nested `unroll` loops whose inner bound depends on the outer variable, a selection and a
/// plain loop inside: the interpreter gives the same results before and after, and only the
/// loop without `unroll` is left.
#[test]
fn nested_loops_compute_the_same_after_unrolling() {
    let text = r"
func @f(%a: i32, %b: bool) -> i32 {
bb0:
  loop bb1(i32 0, %a), break bb9, continue bb8 [unroll(0)]
bb1(%i: i32, %s: i32):
  %c = lt %i, i32 3 : bool
  cond_br %c, bb2, bb9
bb2:
  %lim = add %i, i32 2 : i32
  loop bb3(i32 0, %s), break bb7, continue bb6 [unroll(0)]
bb3(%j: i32, %u: i32):
  %cj = lt %j, %lim : bool
  cond_br %cj, bb4, bb7
bb4:
  %p = mul %i, %j : i32
  if_else %b, bb5, bb10, merge bb10
bb5:
  %q = sub i32 0, %p : i32
  br bb10(%q)
bb10(%v: i32):
  %w = add %u, %v : i32
  br bb6
bb6:
  %jn = add %j, i32 1 : i32
  br bb3(%jn, %w)
bb7:
  loop bb11(i32 0, %u), break bb13, continue bb12
bb11(%k: i32, %x: i32):
  %ck = lt %k, %a : bool
  cond_br %ck, bb14, bb13
bb14:
  %y = add %x, i32 1 : i32
  br bb12
bb12:
  %kn = add %k, i32 1 : i32
  br bb11(%kn, %y)
bb13:
  br bb8
bb8:
  %in = add %i, i32 1 : i32
  br bb1(%in, %x)
bb9:
  %r = mul %s, %i : i32
  return %r
}";
    // `bb10` needs a parameter for the selection to join values.
    let text = text
        .replace(
            "if_else %b, bb5, bb10, merge bb10",
            "if_else %b, bb5, bb15, merge bb10",
        )
        .replace("bb10(%v: i32):", "bb15:\n  br bb10(%p)\nbb10(%v: i32):");
    let before = module(&text);
    let mut after = before.clone();
    run("unroll,combine,simplify_cfg", &mut after);
    assert_eq!(loop_count(&before), 3);
    assert_eq!(
        loop_count(&after),
        3,
        "only the inner loop without `unroll`, in each of 3 copies"
    );
    assert_same_results(
        &before,
        &after,
        &args(&[-3, 0, 1, 2, 7, 1000], &[false, true]),
    );
}

/// Nested loops are unrolled one after the other, each copy of an outer loop holding an inner
/// loop: the function's size bound stops the copies before they multiply (200 x 200 trips
/// would be about 200,000 instructions); what is left stays loops, and the module verifies.
#[test]
fn nested_unrolling_stops_at_the_function_size_bound() {
    let text = r"
func @f(%a: i32) -> i32 {
bb0:
  loop bb1(i32 0, %a), break bb9, continue bb8 [unroll(0)]
bb1(%i: i32, %s: i32):
  %c = lt %i, i32 200 : bool
  cond_br %c, bb2, bb9
bb2:
  loop bb3(i32 0, %s), break bb7, continue bb6 [unroll(0)]
bb3(%j: i32, %u: i32):
  %cj = lt %j, i32 200 : bool
  cond_br %cj, bb4, bb7
bb4:
  %x = xor %i, %j : i32
  %w = add %u, %x : i32
  br bb6
bb6:
  %jn = add %j, i32 1 : i32
  br bb3(%jn, %w)
bb7:
  br bb8
bb8:
  %in = add %i, i32 1 : i32
  br bb1(%in, %u)
bb9:
  return %s
}";
    let mut m = module(text);
    run("unroll", &mut m);
    let f = m.functions()[0];
    let blocks = f.blocks(&m);
    let size: usize = blocks.iter().map(|b| m.children(b.id()).count()).sum();
    assert!(
        size <= oneshader_passes::unroll::MAX_FUNCTION_INSTS,
        "{size} instructions"
    );
    let loops = loop_count(&m);
    assert!(loops > 0, "the inner loops past the bound stay loops");
}
