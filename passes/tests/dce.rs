//! `dce`: mark and sweep, dead parameters, write-only variables, and what must stay.

mod common;

use common::{check, check_unchanged};

#[test]
fn removes_a_loop_counter_nobody_reads() {
    // The header has two incoming values per parameter: initial ones from the loop and
    // back-edge ones from the continue block. %j is only fed back to itself.
    check(
        "dce",
        r"
func @f(%n: i32) -> i32 {
bb0:
  loop bb1(i32 0, i32 100, i32 0), break bb3, continue bb2
bb1(%i: i32, %j: i32, %acc: i32):
  %0 = lt %i, %n : bool
  cond_br %0, bb4, bb3
bb4:
  %1 = add %acc, %i : i32
  %2 = mul %j, i32 3 : i32
  br bb2
bb2:
  %3 = add %i, i32 1 : i32
  %4 = sub %j, i32 1 : i32
  br bb1(%3, %4, %1)
bb3:
  return %acc
}",
        r"
func @f(%n: i32) -> i32 {
bb0:
  loop bb1(i32 0, i32 0), break bb3, continue bb2
bb1(%i: i32, %acc: i32):
  %0 = lt %i, %n : bool
  cond_br %0, bb4, bb3
bb4:
  %1 = add %acc, %i : i32
  br bb2
bb2:
  %3 = add %i, i32 1 : i32
  br bb1(%3, %1)
bb3:
  return %acc
}",
    );
}

#[test]
fn switch_with_shared_targets_keeps_its_memory() {
    // The switch example: the result lives in memory because switch targets take no
    // parameters; every store is read by the load at the merge.
    let text = std::fs::read_to_string(format!(
        "{}/../examples/ir/switch.ir",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("example");
    check_unchanged("dce", &text);
}

#[test]
fn keeps_intrinsics_that_write_through_pointers() {
    check(
        "dce",
        r"
func @f(%x: f32) -> f32 {
bb0:
  %s = var : ptr<function, f32>
  %c = var : ptr<function, f32>
  %sc = call_intrinsic sincos(%x, %s, %c) : void
  %i = var : ptr<function, f32>
  %fr = call_intrinsic modf(%x, %i) : f32
  %unused = call_intrinsic sqrt(%x) : f32
  %0 = load %s : f32
  %1 = load %c : f32
  %2 = load %i : f32
  %3 = add %0, %1 : f32
  %4 = add %3, %2 : f32
  return %4
}",
        // modf's own result is unused but it stores the integer part; sqrt goes.
        r"
func @f(%x: f32) -> f32 {
bb0:
  %s = var : ptr<function, f32>
  %c = var : ptr<function, f32>
  %sc = call_intrinsic sincos(%x, %s, %c) : void
  %i = var : ptr<function, f32>
  %fr = call_intrinsic modf(%x, %i) : f32
  %0 = load %s : f32
  %1 = load %c : f32
  %2 = load %i : f32
  %3 = add %0, %1 : f32
  %4 = add %3, %2 : f32
  return %4
}",
    );
}

// ---- control flow: branches are live only when something live depends on them ------------

use common::module;
use oneshader_ir::Module;
use oneshader_ir::print::print_module;
use oneshader_passes::interp::{Exit, Interpreter, Value};
use oneshader_passes::semantics::Scalar;

/// Runs `dce` (verified after the pass) on `input`; the first function returns the same value
/// before and after for every `i32` argument in `args`, and the result is returned.
fn dce_keeping_results(input: &str, args: &[i32]) -> Module {
    let before = module(input);
    let mut after = module(input);
    common::run("dce", &mut after);
    let call = |m: &Module, a: i32| {
        let arg = Value::Scalar(Scalar::I32, a as u32 as u64);
        match Interpreter::new(m).call(m.functions()[0], &[arg]) {
            Ok(Exit::Return(v)) => v,
            other => panic!("argument {a}: {other:?}\n{}", print_module(m)),
        }
    };
    for &a in args {
        assert_eq!(call(&before, a), call(&after, a), "argument {a}");
    }
    after
}

const ARGS: &[i32] = &[-5, -1, 0, 1, 2, 3, 7, 26, 27, 40, 101];

/// A loop and a selection that only update a local variable nobody reads after them (the
/// shape of dxc/shader.debug.line.branch.hlsl): both constructs go, the loop with its
/// `break` out of a nested selection.
#[test]
fn constructs_that_only_feed_dead_locals_go() {
    let after = dce_keeping_results(
        r"
func @f(%a: i32) -> i32 {
bb0:
  %v = var : ptr<function, i32>
  store %v, %a
  loop bb1(i32 0), break bb5, continue bb4
bb1(%i: i32):
  %c = lt %i, i32 10 : bool
  cond_br %c, bb2, bb5
bb2:
  %x = load %v : i32
  %big = gt %x, i32 100 : bool
  if_else %big, bb6, bb7, merge bb4
bb6:
  br bb5
bb7:
  %y = add %x, %i : i32
  store %v, %y
  br bb4
bb4:
  %n = add %i, i32 1 : i32
  br bb1(%n)
bb5:
  %z = load %v : i32
  %p = gt %z, i32 3 : bool
  if_else %p, bb8, bb9, merge bb10
bb8:
  store %v, i32 1
  br bb10
bb9:
  br bb10
bb10:
  return %a
}",
        ARGS,
    );
    assert_eq!(
        print_module(&after),
        common::canonical(
            r"
func @f(%a: i32) -> i32 {
bb0:
  br bb5
bb5:
  br bb10
bb10:
  return %a
}"
        )
    );
}

/// A selection whose join receives a live value, and a loop whose exit decides a live value,
/// stay whole; a selection inside the loop that only computes a dead value goes.
#[test]
fn constructs_deciding_live_values_stay() {
    let after = dce_keeping_results(
        r"
func @f(%a: i32) -> i32 {
bb0:
  %c = lt %a, i32 3 : bool
  if_else %c, bb1, bb2, merge bb3
bb1:
  br bb3(i32 10)
bb2:
  br bb3(%a)
bb3(%s: i32):
  loop bb4(i32 0, %s), break bb8, continue bb7
bb4(%i: i32, %acc: i32):
  %more = lt %i, i32 4 : bool
  cond_br %more, bb5, bb8
bb5:
  %odd = and %i, i32 1 : i32
  %isodd = ne %odd, i32 0 : bool
  if_else %isodd, bb9, bb10, merge bb7
bb9:
  %dead = mul %acc, i32 3 : i32
  br bb7
bb10:
  br bb7
bb7:
  %acc2 = add %acc, %i : i32
  %n = add %i, i32 1 : i32
  br bb4(%n, %acc2)
bb8:
  return %acc
}",
        ARGS,
    );
    let text = print_module(&after);
    assert_eq!(text.matches("if_else").count(), 1, "{text}");
    assert!(text.contains("loop") && !text.contains("mul"), "{text}");
}

/// A `break` out of a selection inside a live loop is what ends the loop: the selection
/// stays although it computes nothing itself.
#[test]
fn a_break_of_a_live_loop_keeps_its_selection() {
    let after = dce_keeping_results(
        r"
func @f(%a: i32) -> i32 {
bb0:
  loop bb1(i32 0), break bb5, continue bb4
bb1(%i: i32):
  br bb2
bb2:
  %stop = gt %i, %a : bool
  if_else %stop, bb6, bb7, merge bb4
bb6:
  br bb5
bb7:
  br bb4
bb4:
  %n = add %i, i32 1 : i32
  br bb1(%n)
bb5:
  return %i
}",
        ARGS,
    );
    let text = print_module(&after);
    assert!(text.contains("if_else %"), "{text}");
}
