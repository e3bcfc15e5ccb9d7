//! mem2reg: IR-text cases (input, expected output), verified after the pass.

mod common;
mod support_b;
use common::module;
use support_b::{check_no_change, run_reporting};

/// Switch targets never take parameters: a variable whose value flows through a case
/// fall-through (cases 0 and 1 share a target that falls into case 2's block) stays in memory.
#[test]
fn switch_with_shared_targets_and_fall_through_stays_in_memory() {
    check_no_change(
        "mem2reg",
        r"
func @classify(%x: i32) -> i32 {
bb0:
  %r.r = var : ptr<function, i32>
  store %r, i32 0
  switch %x, merge bb4, default bb3, [i32 0: bb1, i32 1: bb1, i32 2: bb2]
bb1:
  store %r, i32 10
  br bb2
bb2:
  %a = load %r : i32
  %b = add %a, i32 20 : i32
  store %r, %b
  br bb4
bb3:
  store %r, i32 -1
  br bb4
bb4:
  %v = load %r : i32
  return %v
}",
    );
}

/// The pass reports no change when nothing is promotable, and changes nothing else.
#[test]
fn nothing_to_promote() {
    let text = r"
func @f(%p: ptr<function, i32>) -> i32 {
bb0:
  %a = var : ptr<function, array<i32, 4>>
  %e = element_addr %a, %p_i : ptr<function, i32>
  store %e, i32 1
  %v = load %e : i32
  return %v
}";
    // `%p_i` is not defined: build the case with a real index instead.
    let text = text.replace("%p_i", "i32 2");
    let mut m = module(&text);
    assert!(!run_reporting("mem2reg", &mut m));
    support_b::assert_module(&m, &text);
}

/// Promoting the examples keeps them valid; the nested-loops example's accumulator becomes
/// loop-carried parameters of both headers.
#[test]
fn examples_stay_valid() {
    for name in [
        "arith",
        "atomics",
        "compute",
        "do_while",
        "fragment",
        "globals",
        "if_else",
        "intrinsics",
        "loops",
        "spec_const",
        "struct_array",
        "switch",
        "vertex",
    ] {
        let text = std::fs::read_to_string(format!("../examples/ir/{name}.ir")).unwrap();
        let mut m = module(&text);
        run_reporting("mem2reg", &mut m);
    }
    let text = std::fs::read_to_string("../examples/ir/loops.ir").unwrap();
    let mut m = module(&text);
    assert!(run_reporting("mem2reg", &mut m));
    let out = oneshader_ir::print::print_module(&m);
    assert!(!out.contains(" var "), "{out}");
    assert!(
        out.contains("bb1.outer_header(%1.i: i32, %2.acc: i32)"),
        "{out}"
    );
    assert!(
        out.contains("bb5.inner_header(%5.j: i32, %6.acc: i32)"),
        "{out}"
    );
}

/// The nested-loops example computes the same values after SROA, mem2reg and CFG
/// simplification.
#[test]
fn semantics_of_the_loops_example() {
    let text = std::fs::read_to_string("../examples/ir/loops.ir").unwrap();
    support_b::same_results(
        &text,
        "sroa,mem2reg,simplify_cfg",
        "nested",
        &[&[0], &[1], &[2], &[5], &[7], &[9]],
    );
    let text = std::fs::read_to_string("../examples/ir/switch.ir").unwrap();
    support_b::same_results(
        &text,
        "sroa,mem2reg,simplify_cfg",
        "classify",
        &[&[0], &[1], &[2], &[3], &[-4]],
    );
}
