//! CFG simplification: IR-text cases (input, expected output), verified after the pass.

mod common;
use common::check;
mod support_b;

use support_b::check_no_change;

/// A constant `if_else` becomes `br`; the untaken branch dies; the merge loses its role and
/// merges into the taken branch, which merges into the header block.
#[test]
fn constant_if_else() {
    check(
        "simplify_cfg",
        r"
func @f(%a: i32) -> i32 {
bb0:
  if_else bool true, bb1, bb2, merge bb3
bb1:
  %x = add %a, i32 1 : i32
  br bb3(%x)
bb2:
  %y = sub %a, i32 1 : i32
  br bb3(%y)
bb3(%r: i32):
  return %r
}",
        r"
func @f(%a: i32) -> i32 {
bb0:
  %x = add %a, i32 1 : i32
  return %x
}",
    );
}

/// `if_else` with both edges to the same block is a `br`.
#[test]
fn if_else_with_identical_targets() {
    check(
        "simplify_cfg",
        r"
func @f(%c: bool) -> i32 {
bb0:
  if_else %c, bb1, bb1, merge bb1
bb1:
  return i32 1
}",
        r"
func @f(%c: bool) -> i32 {
bb0:
  return i32 1
}",
    );
}

/// Both branches return: the merge is unreachable but the live `if_else` names it, so it
/// stays, reduced to `unreachable`.
#[test]
fn unreachable_merge_keeps_its_role() {
    check(
        "simplify_cfg",
        r"
func @f(%c: bool) -> i32 {
bb0:
  if_else %c, bb1, bb2, merge bb3
bb1:
  return i32 1
bb2:
  return i32 2
bb3:
  %z = add i32 1, i32 2 : i32
  return %z
}",
        r"
func @f(%c: bool) -> i32 {
bb0:
  if_else %c, bb1, bb2, merge bb3
bb1:
  return i32 1
bb2:
  return i32 2
bb3:
  unreachable
}",
    );
}

/// A loop whose header test is constantly false: the body and continue block become
/// unreachable, the continue block is reduced to `br header(undef)`, and since the loop never
/// iterates it is dissolved into straight-line code.
#[test]
fn loop_that_never_runs() {
    check(
        "simplify_cfg",
        r"
func @f(%n: i32) -> i32 {
bb0:
  loop bb1(i32 0), break bb2, continue bb3
bb1(%i: i32):
  cond_br bool false, bb4, bb2
bb4:
  br bb3
bb3:
  %i2 = add %i, i32 1 : i32
  br bb1(%i2)
bb2:
  return %i
}",
        r"
func @f(%n: i32) -> i32 {
bb0:
  return i32 0
}",
    );
}

/// A loop whose continue block is unreachable but whose break is taken from inside a nested
/// `if_else` must stay a loop (the break from a selection needs the loop); the continue block
/// is reduced to `br header`.
#[test]
fn run_once_loop_with_nested_break_stays() {
    check(
        "simplify_cfg",
        r"
func @f(%c: bool) -> i32 {
bb0:
  loop bb1, break bb5, continue bb4
bb1:
  br bb6
bb6:
  if_else %c, bb2, bb3, merge bb3
bb2:
  br bb5(i32 1)
bb3:
  br bb5(i32 2)
bb4:
  %z = add i32 1, i32 1 : i32
  br bb1
bb5(%r: i32):
  return %r
}",
        r"
func @f(%c: bool) -> i32 {
bb0:
  loop bb1, break bb5, continue bb4
bb1:
  br bb6
bb6:
  if_else %c, bb2, bb3, merge bb3
bb2:
  br bb5(i32 1)
bb3:
  br bb5(i32 2)
bb4:
  br bb1
bb5(%r: i32):
  return %r
}",
    );
}

/// A constant `switch` becomes a `br` to the chosen case; shared targets and fall-through are
/// fine once the construct is gone.
#[test]
fn constant_switch() {
    check(
        "simplify_cfg",
        r"
func @f() -> i32 {
bb0:
  switch i32 1, merge bb4, default bb3, [i32 0: bb1, i32 1: bb1, i32 2: bb2]
bb1:
  br bb2
bb2:
  br bb4(i32 20)
bb3:
  br bb4(i32 -1)
bb4(%r: i32):
  return %r
}",
        r"
func @f() -> i32 {
bb0:
  return i32 20
}",
    );
}

/// A constant `switch` whose chosen case breaks out of a nested `if_else` keeps the switch
/// (removing it would leave a branch out of the selection to a block that is no merge); only
/// the default remains, set to the chosen case, and the other cases die.
#[test]
fn constant_switch_with_nested_break_keeps_the_construct() {
    check(
        "simplify_cfg",
        r"
func @f(%c: bool) -> i32 {
bb0:
  switch i32 0, merge bb5, default bb4, [i32 0: bb1]
bb1:
  if_else %c, bb2, bb3, merge bb3
bb2:
  store @g, i32 1
  br bb5
bb3:
  br bb5
bb4:
  br bb5
bb5:
  return i32 0
}
global @g : ptr<private, i32>",
        r"
func @f(%c: bool) -> i32 {
bb0:
  switch i32 0, merge bb5, default bb1, []
bb1:
  if_else %c, bb2, bb3, merge bb3
bb2:
  store @g, i32 1
  br bb5
bb3:
  br bb5
bb5:
  return i32 0
}
global @g : ptr<private, i32>",
    );
}

/// Straight-line merging stops at blocks with a role (merge, break, continue) and at loop
/// headers; a header absorbs its single successor only when that ends in `br`/`cond_br`.
#[test]
fn straight_lines_respect_roles() {
    check(
        "simplify_cfg",
        r"
func @f(%n: i32) -> i32 {
bb0:
  br bb6
bb6:
  %a = add %n, i32 1 : i32
  loop bb1(i32 0), break bb2, continue bb3
bb1(%i: i32):
  br bb7
bb7:
  %c = lt %i, %a : bool
  cond_br %c, bb4, bb2
bb4:
  %d = gt %i, i32 3 : bool
  if_else %d, bb8, bb9, merge bb9
bb8:
  store @g, %i
  br bb9
bb9:
  br bb10
bb10:
  br bb3
bb3:
  %i2 = add %i, i32 1 : i32
  br bb1(%i2)
bb2:
  br bb11
bb11:
  return %i
}
global @g : ptr<private, i32>",
        r"
func @f(%n: i32) -> i32 {
bb0:
  %a = add %n, i32 1 : i32
  loop bb1(i32 0), break bb2, continue bb3
bb1(%i: i32):
  %c = lt %i, %a : bool
  cond_br %c, bb4, bb2
bb4:
  %d = gt %i, i32 3 : bool
  if_else %d, bb8, bb9, merge bb9
bb8:
  store @g, %i
  br bb9
bb9:
  br bb3
bb3:
  %i2 = add %i, i32 1 : i32
  br bb1(%i2)
bb2:
  return %i
}
global @g : ptr<private, i32>",
    );
}

/// An `if_else` whose branches are both empty collapses: the empty arm is bypassed (its
/// target is the merge), the `if_else` then has identical targets and becomes a `br`.
#[test]
fn empty_if_else_collapses() {
    check(
        "simplify_cfg",
        r"
func @f(%c: bool, %a: i32) -> i32 {
bb0:
  if_else %c, bb1, bb2, merge bb2
bb1:
  br bb2
bb2:
  %r = add %a, i32 1 : i32
  return %r
}",
        r"
func @f(%c: bool, %a: i32) -> i32 {
bb0:
  %r = add %a, i32 1 : i32
  return %r
}",
    );
}

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

/// Parameters whose incoming values are all the same value (or the parameter itself around a
/// loop) are replaced by that value.
#[test]
fn trivial_parameters() {
    check(
        "simplify_cfg",
        r"
func @f(%c: bool, %a: i32, %n: i32) -> i32 {
bb0:
  if_else %c, bb1, bb2, merge bb3
bb1:
  br bb3(%a, i32 1)
bb2:
  br bb3(%a, i32 2)
bb3(%x: i32, %y: i32):
  loop bb4(%x, i32 0), break bb5, continue bb6
bb4(%inv: i32, %i: i32):
  %t = lt %i, %n : bool
  cond_br %t, bb7, bb5
bb7:
  %i2 = add %i, %inv : i32
  br bb6
bb6:
  br bb4(%inv, %i2)
bb5:
  %r = add %y, %i : i32
  return %r
}",
        r"
func @f(%c: bool, %a: i32, %n: i32) -> i32 {
bb0:
  if_else %c, bb1, bb2, merge bb3
bb1:
  br bb3(i32 1)
bb2:
  br bb3(i32 2)
bb3(%y: i32):
  loop bb4(i32 0), break bb5, continue bb6
bb4(%i: i32):
  %t = lt %i, %n : bool
  cond_br %t, bb7, bb5
bb7:
  %i2 = add %i, %a : i32
  br bb6
bb6:
  br bb4(%i2)
bb5:
  %r = add %y, %i : i32
  return %r
}",
    );
}

/// A loop parameter fed by its initial value and `undef` from an unreachable continue block
/// takes the initial value, which dominates the header.
#[test]
fn parameter_with_undef_from_dead_continue() {
    check(
        "simplify_cfg",
        r"
func @f(%a: i32, %c: bool) -> i32 {
bb0:
  loop bb1(%a), break bb4, continue bb3
bb1(%x: i32):
  br bb2
bb2:
  if_else %c, bb5, bb6, merge bb6
bb5:
  br bb4(%x)
bb6:
  br bb4(i32 0)
bb3:
  br bb1(i32 undef)
bb4(%r: i32):
  return %r
}",
        r"
func @f(%a: i32, %c: bool) -> i32 {
bb0:
  loop bb1, break bb4, continue bb3
bb1:
  br bb2
bb2:
  if_else %c, bb5, bb6, merge bb6
bb5:
  br bb4(%a)
bb6:
  br bb4(i32 0)
bb3:
  br bb1
bb4(%r: i32):
  return %r
}",
    );
}

/// Empty forwarding blocks on conditional edges are bypassed when the structure allows: an
/// `if_else` edge to its own merge, a switch case to its merge, and `cond_br` edges.
#[test]
fn empty_blocks_are_bypassed() {
    check(
        "simplify_cfg",
        r"
func @f(%c: bool, %x: i32, %n: i32) -> void {
bb0:
  if_else %c, bb1, bb2, merge bb3
bb1:
  store @g, i32 1
  br bb3
bb2:
  br bb3
bb3:
  switch %x, merge bb6, default bb4, [i32 1: bb5]
bb4:
  br bb6
bb5:
  store @g, i32 2
  br bb6
bb6:
  loop bb7(i32 0), break bb8, continue bb9
bb7(%i: i32):
  %t = lt %i, %n : bool
  cond_br %t, bb10, bb8
bb10:
  %i2 = add %i, i32 1 : i32
  store @g, %i2
  %u = lt %i2, i32 5 : bool
  cond_br %u, bb8, bb11
bb11:
  br bb9
bb9:
  br bb7(%i2)
bb8:
  return
}
global @g : ptr<private, i32>",
        r"
func @f(%c: bool, %x: i32, %n: i32) -> void {
bb0:
  if_else %c, bb1, bb3, merge bb3
bb1:
  store @g, i32 1
  br bb3
bb3:
  switch %x, merge bb6, default bb6, [i32 1: bb5]
bb5:
  store @g, i32 2
  br bb6
bb6:
  loop bb7(i32 0), break bb8, continue bb9
bb7(%i: i32):
  %t = lt %i, %n : bool
  cond_br %t, bb10, bb8
bb10:
  %i2 = add %i, i32 1 : i32
  store @g, %i2
  %u = lt %i2, i32 5 : bool
  cond_br %u, bb8, bb9
bb9:
  br bb7(%i2)
bb8:
  return
}
global @g : ptr<private, i32>",
    );
}

/// Unreachable blocks that nothing names disappear, including a cycle of them.
#[test]
fn unreachable_cycle_removed() {
    check(
        "simplify_cfg",
        r"
func @f() -> i32 {
bb0:
  return i32 0
bb1:
  %x = add i32 1, %y : i32
  br bb2
bb2:
  %y = add %x, i32 1 : i32
  br bb1
}",
        r"
func @f() -> i32 {
bb0:
  return i32 0
}",
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

/// A switch merge with a parameter: the same value from every case (and `undef` from one)
/// replaces the parameter; a second distinct value, even from the last case, keeps it.
#[test]
fn switch_merge_parameters_same_value_undef_and_a_late_second_value() {
    check(
        "simplify_cfg",
        r"
func @f(%s: i32, %a: i32, %b: i32) -> i32 {
bb0:
  switch %s, merge bb9, default bb4, [i32 0: bb1, i32 1: bb2, i32 2: bb3]
bb1:
  br bb9(%a, %a)
bb2:
  br bb9(i32 undef, %a)
bb3:
  br bb9(%a, %a)
bb4:
  br bb9(%a, %b)
bb9(%x: i32, %y: i32):
  %r = add %x, %y : i32
  return %r
}",
        r"
func @f(%s: i32, %a: i32, %b: i32) -> i32 {
bb0:
  switch %s, merge bb9, default bb4, [i32 0: bb1, i32 1: bb2, i32 2: bb3]
bb1:
  br bb9(%a)
bb2:
  br bb9(%a)
bb3:
  br bb9(%a)
bb4:
  br bb9(%b)
bb9(%y: i32):
  %r = add %a, %y : i32
  return %r
}",
    );
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

/// A loop whose values nobody outside reads and which writes nothing is removed whole, with
/// the loop nested in it (what spirv-opt's aggressive DCE does).
#[test]
fn effect_free_nested_loops_are_removed() {
    check(
        "simplify_cfg",
        r"
func @f(%n: i32) -> i32 {
bb0:
  loop bb1(i32 0), break bb4, continue bb3
bb1(%i: i32):
  %c = lt %i, %n : bool
  cond_br %c, bb2, bb4
bb2:
  loop bb5(i32 0), break bb8, continue bb7
bb5(%j: i32):
  %d = lt %j, i32 10 : bool
  cond_br %d, bb6, bb8
bb6:
  %t = mul %i, %j : i32
  br bb7
bb7:
  %j2 = add %j, i32 1 : i32
  br bb5(%j2)
bb8:
  br bb3
bb3:
  %i2 = add %i, i32 1 : i32
  br bb1(%i2)
bb4:
  return %n
}",
        r"
func @f(%n: i32) -> i32 {
bb0:
  return %n
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
