//! mem2reg: IR-text cases (input, expected output), verified after the pass.

mod common;
use common::check;
mod support_b;
use common::module;
use support_b::{check_no_change, run_reporting};

#[test]
fn straight_line_and_uninitialized_reads() {
    check(
        "mem2reg",
        r"
func @f(%a: i32) -> i32 {
bb0:
  %x = var : ptr<function, i32>
  %y = var : ptr<function, i32>
  %u = load %y : i32
  store %x, %a
  %1 = load %x : i32
  %2 = add %1, %u : i32
  store %x, %2
  %3 = load %x : i32
  return %3
}",
        r"
func @f(%a: i32) -> i32 {
bb0:
  %2 = add %a, i32 undef : i32
  return %2
}",
    );
}

#[test]
fn if_else_join_gets_a_parameter() {
    check(
        "mem2reg",
        r"
func @f(%c: bool, %a: i32) -> i32 {
bb0:
  %r.r = var : ptr<function, i32>
  if_else %c, bb1, bb2, merge bb3
bb1:
  store %r, %a
  br bb3
bb2:
  store %r, i32 7
  br bb3
bb3:
  %v = load %r : i32
  return %v
}",
        r"
func @f(%c: bool, %a: i32) -> i32 {
bb0:
  if_else %c, bb1, bb2, merge bb3
bb1:
  br bb3(%a)
bb2:
  br bb3(i32 7)
bb3(%r.r: i32):
  return %r
}",
    );
}

/// An `if` without `else`: the else edge goes straight to the merge, a conditional edge that
/// cannot carry the value, so it is split and the new block passes it.
#[test]
fn if_without_else_splits_the_else_edge() {
    check(
        "mem2reg",
        r"
func @f(%c: bool, %a: i32) -> i32 {
bb0:
  %r.r = var : ptr<function, i32>
  store %r, i32 0
  if_else %c, bb1, bb2, merge bb2
bb1:
  store %r, %a
  br bb2
bb2:
  %v = load %r : i32
  return %v
}",
        r"
func @f(%c: bool, %a: i32) -> i32 {
bb0:
  if_else %c, bb1, bb3, merge bb2
bb3:
  br bb2(i32 0)
bb1:
  br bb2(%a)
bb2(%r.r: i32):
  return %r
}",
    );
}

/// A loop whose header has several incoming values: an existing counter parameter plus two
/// promoted variables, initial values from the `loop`, next values from the continue block.
#[test]
fn loop_header_with_several_incoming_values() {
    check(
        "mem2reg",
        r"
func @f(%n: i32) -> i32 {
bb0:
  %sum.sum = var : ptr<function, i32>
  %prod.prod = var : ptr<function, i32>
  store %sum, i32 0
  store %prod, i32 1
  loop bb1(i32 0), break bb2, continue bb3
bb1(%i.i: i32):
  %c = lt %i, %n : bool
  cond_br %c, bb4, bb2
bb4:
  %s = load %sum : i32
  %s2 = add %s, %i : i32
  store %sum, %s2
  %p = load %prod : i32
  %p2 = mul %p, %i : i32
  store %prod, %p2
  br bb3
bb3:
  %i2 = add %i, i32 1 : i32
  br bb1(%i2)
bb2:
  %rs = load %sum : i32
  %rp = load %prod : i32
  %r = add %rs, %rp : i32
  return %r
}",
        r"
func @f(%n: i32) -> i32 {
bb0:
  loop bb1(i32 0, i32 0, i32 1), break bb2, continue bb3
bb1(%i.i: i32, %sum.sum: i32, %prod.prod: i32):
  %c = lt %i, %n : bool
  cond_br %c, bb4, bb2
bb4:
  %s2 = add %sum, %i : i32
  %p2 = mul %prod, %i : i32
  br bb3
bb3:
  %i2 = add %i, i32 1 : i32
  br bb1(%i2, %s2, %p2)
bb2:
  %r = add %sum, %prod : i32
  return %r
}",
    );
}

/// A do-while: the header receives the loop-carried value; the break block reads the body's
/// value directly (it has one predecessor, so it needs no parameter).
#[test]
fn do_while_loop_carried_value() {
    check(
        "mem2reg",
        r"
func @f(%n: i32) -> i32 {
bb0:
  %k.k = var : ptr<function, i32>
  store %k, %n
  loop bb1, break bb3, continue bb2
bb1:
  br bb4
bb4:
  %v = load %k : i32
  %v2 = sub %v, i32 1 : i32
  store %k, %v2
  %c = gt %v2, i32 0 : bool
  cond_br %c, bb2, bb3
bb2:
  br bb1
bb3:
  %r = load %k : i32
  return %r
}",
        r"
func @f(%n: i32) -> i32 {
bb0:
  loop bb1(%n), break bb3, continue bb2
bb1(%k.k: i32):
  br bb4
bb4:
  %v2 = sub %k, i32 1 : i32
  %c = gt %v2, i32 0 : bool
  cond_br %c, bb2, bb3
bb2:
  br bb1(%v2)
bb3:
  return %v2
}",
    );
}

/// The continue block needs a parameter and is entered by two `cond_br`s: one whose other
/// target is the same loop's break keeps its `cond_br` (through a new edge block), the other,
/// whose other target is an ordinary block, becomes an `if_else` with a fresh merge.
#[test]
fn continue_block_parameter_from_two_cond_brs() {
    check(
        "mem2reg",
        r"
func @f(%a: bool, %b: bool) -> i32 {
bb0:
  %x.x = var : ptr<function, i32>
  store %x, i32 0
  loop bb1, break bb2, continue bb3
bb1:
  %v = load %x : i32
  %t = lt %v, i32 100 : bool
  cond_br %t, bb4, bb2
bb4:
  store %x, i32 1
  cond_br %a, bb3, bb5
bb5:
  store %x, i32 2
  cond_br %b, bb3, bb2
bb3:
  br bb1
bb2:
  return i32 0
}",
        r"
func @f(%a: bool, %b: bool) -> i32 {
bb0:
  loop bb1(i32 0), break bb2, continue bb3
bb1(%x.x: i32):
  %t = lt %x, i32 100 : bool
  cond_br %t, bb4, bb2
bb4:
  if_else %a, bb6, bb7, merge bb7
bb6:
  br bb3(i32 1)
bb7:
  br bb5
bb5:
  cond_br %b, bb8, bb2
bb8:
  br bb3(i32 2)
bb3(%x2.x: i32):
  br bb1(%x2)
bb2:
  return i32 0
}",
    );
}

/// The break block needs a parameter and is reached from the header's `cond_br` and from a
/// `cond_br` in the body whose other target is an ordinary block: the header's test moves into
/// an `if_else` at the top of the body (a header's `cond_br` keeps its break or continue block
/// as a target, and its split edge now leaves a selection), and the body's `cond_br` becomes an
/// `if_else` with a fresh merge (a `cond_br` must keep a break or continue target).
#[test]
fn break_block_parameter_from_header_and_body() {
    check(
        "mem2reg",
        r"
func @f(%n: i32) -> i32 {
bb0:
  %x.x = var : ptr<function, i32>
  store %x, i32 0
  loop bb1(i32 0), break bb2, continue bb3
bb1(%i: i32):
  %c = lt %i, %n : bool
  cond_br %c, bb4, bb2
bb4:
  store %x, %i
  %big = gt %i, i32 10 : bool
  cond_br %big, bb2, bb5
bb5:
  br bb3
bb3:
  %i2 = add %i, i32 1 : i32
  br bb1(%i2)
bb2:
  %r = load %x : i32
  return %r
}",
        r"
func @f(%n: i32) -> i32 {
bb0:
  loop bb1(i32 0, i32 0), break bb10, continue bb9
bb1(%i: i32, %x1.x: i32):
  %c = lt %i, %n : bool
  br bb2
bb2:
  if_else %c, bb5, bb3, merge bb4
bb3:
  br bb10(%x1)
bb4:
  unreachable
bb5:
  %big = gt %i, i32 10 : bool
  if_else %big, bb6, bb7, merge bb7
bb6:
  br bb10(%i)
bb7:
  br bb8
bb8:
  br bb9
bb9:
  %i2 = add %i, i32 1 : i32
  br bb1(%i2, %i)
bb10(%x2.x: i32):
  return %x2
}",
    );
}

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

/// Switch edges straight into the merge can be split: shared targets get one block per
/// `switch` (one edge block for both case values going to the merge).
#[test]
fn switch_edges_into_the_merge_are_split() {
    check(
        "mem2reg",
        r"
func @f(%x: i32) -> i32 {
bb0:
  %r.r = var : ptr<function, i32>
  store %r, i32 5
  switch %x, merge bb3, default bb3, [i32 0: bb1, i32 1: bb1, i32 2: bb3]
bb1:
  store %r, i32 10
  br bb3
bb3:
  %v = load %r : i32
  return %v
}",
        r"
func @f(%x: i32) -> i32 {
bb0:
  switch %x, merge bb3, default bb4, [i32 0: bb1, i32 1: bb1, i32 2: bb4]
bb4:
  br bb3(i32 5)
bb1:
  br bb3(i32 10)
bb3(%r.r: i32):
  return %r
}",
    );
}

/// A `var` whose address escapes into a call stays in memory; the other is promoted.
#[test]
fn escaping_var_stays_in_memory() {
    check(
        "mem2reg",
        r"
func @set(ptr<function, i32>) -> void
func @f() -> i32 {
bb0:
  %a.a = var : ptr<function, i32>
  %b.b = var : ptr<function, i32>
  store %a, i32 1
  store %b, i32 2
  call @set(%a)
  %x = load %a : i32
  %y = load %b : i32
  %r = add %x, %y : i32
  return %r
}",
        r"
func @set(ptr<function, i32>) -> void
func @f() -> i32 {
bb0:
  %a.a = var : ptr<function, i32>
  store %a, i32 1
  call @set(%a)
  %x = load %a : i32
  %r = add %x, i32 2 : i32
  return %r
}",
    );
}

/// A variable stored in both branches but never read afterwards gets no parameter (pruned by
/// liveness), and one stored in a loop but read only before it gets no header parameter.
#[test]
fn pruned_no_dead_parameters() {
    check(
        "mem2reg",
        r"
func @f(%c: bool, %n: i32) -> i32 {
bb0:
  %d = var : ptr<function, i32>
  %e = var : ptr<function, i32>
  store %e, %n
  %first = load %e : i32
  if_else %c, bb1, bb2, merge bb3
bb1:
  store %d, i32 1
  br bb3
bb2:
  store %d, i32 2
  br bb3
bb3:
  loop bb4, break bb5, continue bb6
bb4:
  %t = lt %first, i32 0 : bool
  cond_br %t, bb7, bb5
bb7:
  store %e, i32 3
  br bb6
bb6:
  br bb4
bb5:
  return %first
}",
        r"
func @f(%c: bool, %n: i32) -> i32 {
bb0:
  if_else %c, bb1, bb2, merge bb3
bb1:
  br bb3
bb2:
  br bb3
bb3:
  loop bb4, break bb5, continue bb6
bb4:
  %t = lt %n, i32 0 : bool
  cond_br %t, bb7, bb5
bb7:
  br bb6
bb6:
  br bb4
bb5:
  return %n
}",
    );
}

/// A value read in a loop body is carried around the loop even if what is computed from it is
/// dead (that is DCE's business).
#[test]
fn loop_carried_value_read_in_the_body() {
    check(
        "mem2reg",
        r"
func @f(%n: i32) -> i32 {
bb0:
  %x = var : ptr<function, i32>
  store %x, i32 0
  loop bb1(i32 0), break bb2, continue bb3
bb1(%i: i32):
  %c = lt %i, %n : bool
  cond_br %c, bb4, bb2
bb4:
  %v = load %x : i32
  %v2 = add %v, i32 1 : i32
  store %x, %v2
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
  loop bb1(i32 0, i32 0), break bb2, continue bb3
bb1(%i: i32, %x: i32):
  %c = lt %i, %n : bool
  cond_br %c, bb4, bb2
bb4:
  %v2 = add %x, i32 1 : i32
  br bb3
bb3:
  %i2 = add %i, i32 1 : i32
  br bb1(%i2, %v2)
bb2:
  return %i
}",
    );
}

/// Parameters that only feed each other (an outer and an inner loop header passing the value
/// around, read only by a load whose result is unused) are all removed: no dead parameters.
#[test]
fn parameters_feeding_only_each_other_are_removed() {
    check(
        "mem2reg",
        r"
func @f(%c: bool) -> void {
bb0:
  %x = var : ptr<function, i32>
  store %x, i32 0
  loop bb1, break bb2, continue bb3
bb1:
  cond_br %c, bb4, bb2
bb4:
  loop bb5, break bb6, continue bb7
bb5:
  cond_br %c, bb8, bb6
bb8:
  %unused = load %x : i32
  store %x, i32 1
  br bb7
bb7:
  br bb5
bb6:
  br bb3
bb3:
  br bb1
bb2:
  return
}",
        r"
func @f(%c: bool) -> void {
bb0:
  loop bb1, break bb2, continue bb3
bb1:
  cond_br %c, bb4, bb2
bb4:
  loop bb5, break bb6, continue bb7
bb5:
  cond_br %c, bb8, bb6
bb8:
  br bb7
bb7:
  br bb5
bb6:
  br bb3
bb3:
  br bb1
bb2:
  return
}",
    );
}

/// Vectors, matrices and aggregates loaded and stored whole are promoted too.
#[test]
fn whole_vectors_matrices_and_structs() {
    check(
        "mem2reg",
        r"
struct @S {
  a: f32
  b: vec<f32, 2>
}
func @f(%v: vec<f32, 4>, %s: @S, %m: mat<f32, 2, 2>) -> f32 {
bb0:
  %pv = var : ptr<function, vec<f32, 4>>
  %ps = var : ptr<function, @S>
  %pm = var : ptr<function, mat<f32, 2, 2>>
  store %pv, %v
  store %ps, %s
  store %pm, %m
  %v1 = load %pv : vec<f32, 4>
  %s1 = load %ps : @S
  %m1 = load %pm : mat<f32, 2, 2>
  %x = extract %v1, 0 : f32
  %y = extract %s1, 0 : f32
  %z = extract %m1, 1, 1 : f32
  %xy = add %x, %y : f32
  %r = add %xy, %z : f32
  return %r
}",
        r"
struct @S {
  a: f32
  b: vec<f32, 2>
}
func @f(%v: vec<f32, 4>, %s: @S, %m: mat<f32, 2, 2>) -> f32 {
bb0:
  %x = extract %v, 0 : f32
  %y = extract %s, 0 : f32
  %z = extract %m, 1, 1 : f32
  %xy = add %x, %y : f32
  %r = add %xy, %z : f32
  return %r
}",
    );
}

/// Loads and stores in unreachable blocks are dropped (reads there are undefined) and edges
/// out of unreachable blocks pass `undef`.
#[test]
fn unreachable_blocks() {
    check(
        "mem2reg",
        r"
func @f(%c: bool) -> i32 {
bb0:
  %x = var : ptr<function, i32>
  if_else %c, bb1, bb2, merge bb3
bb1:
  store %x, i32 1
  br bb3
bb2:
  store %x, i32 2
  br bb3
bb9:
  %d = load %x : i32
  store %x, %d
  br bb3
bb3:
  %r = load %x : i32
  return %r
}",
        r"
func @f(%c: bool) -> i32 {
bb0:
  if_else %c, bb1, bb2, merge bb3
bb1:
  br bb3(i32 1)
bb2:
  br bb3(i32 2)
bb9:
  br bb3(i32 undef)
bb3(%x: i32):
  return %x
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
