//! CFG simplification: IR-text cases (input, expected output), verified after the pass.

mod common;
use common::check;
mod support_b;

use support_b::check_no_change;

/// A header does not absorb a successor that ends in a structured terminator.
#[test]
fn header_keeps_its_shape() {
    check_no_change(
        "simplify_cfg",
        r"
func @f(%c: bool) -> void {
bb0:
  loop bb1, break bb2, continue bb3
bb1:
  br bb4
bb4:
  if_else %c, bb5, bb6, merge bb6
bb5:
  store @g, i32 1
  br bb2
bb6:
  br bb3
bb3:
  br bb1
bb2:
  return
}
global @g : ptr<private, i32>",
    );
}

/// Nothing to do: no change reported.
#[test]
fn fixpoint_reports_no_change() {
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
        let mut m = common::module(&text);
        support_b::run_reporting("simplify_cfg", &mut m);
        let once = oneshader_ir::print::print_module(&m);
        assert!(
            !support_b::run_reporting("simplify_cfg", &mut m),
            "{name}: a second run changed something"
        );
        assert_eq!(oneshader_ir::print::print_module(&m), once);
    }
}

/// Seventy empty `if`s nested in each other (what is left once the bodies of nested
/// conditionals are dead) collapse in one run of the pass: the innermost selection becomes a
/// branch, which empties the block around it for the next one out. (One level per round
/// left more than 64 levels standing when the round limit ran out.)
#[test]
fn deeply_nested_empty_ifs_collapse_in_one_run() {
    let depth = 70;
    let mut t = String::from("func @f(%c: bool, %x: i32) -> i32 {\nbb0:\n  br bb_h0\n");
    for k in 0..depth {
        t.push_str(&format!(
            "bb_h{k}:\n  if_else %c, bb_t{k}, bb_m{k}, merge bb_m{k}\nbb_t{k}:\n  br bb_h{}\n",
            k + 1
        ));
    }
    t.push_str(&format!("bb_h{depth}:\n  br bb_m{}\n", depth - 1));
    for k in (0..depth).rev() {
        if k > 0 {
            t.push_str(&format!("bb_m{k}:\n  br bb_m{}\n", k - 1));
        } else {
            t.push_str("bb_m0:\n  return %x\n");
        }
    }
    t.push_str("}\n");
    check(
        "simplify_cfg",
        &t,
        r"
func @f(%c: bool, %x: i32) -> i32 {
bb0:
  return %x
}",
    );
}

/// The same loop stays when its counter is read after it, when it stores, and when a
/// selection inside it leaves through the loop's break (control flow others observe).
#[test]
fn constructs_with_an_observable_effect_stay() {
    // The counter is read after the loop.
    check_no_change(
        "simplify_cfg",
        r"
func @f(%n: i32) -> i32 {
bb0:
  loop bb1(i32 0), break bb3, continue bb2
bb1(%i: i32):
  %c = lt %i, %n : bool
  cond_br %c, bb2, bb3
bb2:
  %i2 = add %i, i32 1 : i32
  br bb1(%i2)
bb3:
  return %i
}",
    );
    // A store inside.
    check_no_change(
        "simplify_cfg",
        r"
global @out : ptr<storage_buffer, rtarray<i32>> [binding(0, 0)]
func @f(%n: i32) -> void {
bb0:
  loop bb1(i32 0), break bb3, continue bb2
bb1(%i: i32):
  %c = lt %i, %n : bool
  cond_br %c, bb2, bb3
bb2:
  %p = element_addr @out, %i : ptr<storage_buffer, i32>
  store %p, %i
  %i2 = add %i, i32 1 : i32
  br bb1(%i2)
bb3:
  return
}",
    );
}
