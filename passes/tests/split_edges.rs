//! Edge splitting and the construct analysis: each edit is checked against the expected text
//! and verified.

mod common;
mod support_b;
use common::module;
use oneshader_ir::cfg::Cfg;
use oneshader_ir::verify::verify;
use oneshader_ir::{Block, Module, Op};
use oneshader_passes::split_edges::{
    EdgeError, can_split_edge, remove_block_param, split_critical_edges, split_edge, split_edges_to,
};
use support_b::assert_module;

fn block(m: &Module, f: &str, i: usize) -> Block {
    m.func_by_name(f).unwrap().blocks(m)[i]
}

fn term(m: &Module, f: &str, i: usize) -> oneshader_ir::InstId {
    block(m, f, i).terminator(m).unwrap()
}

fn verified(m: &Module) {
    let d = verify(m);
    assert!(d.is_empty(), "{d:#?}\n{m:?}");
}

#[test]
fn if_else_edge_into_merge() {
    let mut m = module(
        r"
func @f(%c: bool) -> void {
bb0:
  if_else %c, bb1, bb2, merge bb2
bb1:
  br bb2
bb2:
  return
}",
    );
    let t = term(&m, "f", 0);
    let n = split_edge(&mut m, t, 2).unwrap();
    verified(&m);
    assert_eq!(m.op(n.terminator(&m).unwrap()), Op::Br);
    assert_module(
        &m,
        r"
func @f(%c: bool) -> void {
bb0:
  if_else %c, bb1, bb3, merge bb2
bb3:
  br bb2
bb1:
  br bb2
bb2:
  return
}",
    );
}

const LOOP: &str = r"
func @f(%n: i32, %b: bool) -> void {
bb0:
  loop bb1(i32 0), break bb2, continue bb3
bb1(%i: i32):
  %t = lt %i, %n : bool
  cond_br %t, bb4, bb2
bb4:
  cond_br %b, bb2, bb5
bb5:
  cond_br %b, bb3, bb2
bb3:
  %i2 = add %i, i32 1 : i32
  br bb1(%i2)
bb2:
  return
}";

/// Splitting a loop header's edge to its break block would leave the header's `cond_br`
/// without a loop exit (OSV0012: SPIR-V puts no selection in a header): the test moves into
/// an `if_else` at the top of the body, whose merge no path reaches, and the new block breaks
/// out of it.
#[test]
fn header_cond_br() {
    let mut m = module(LOOP);
    let t = term(&m, "f", 1);
    split_edge(&mut m, t, 2).unwrap();
    verified(&m);
    assert_module(
        &m,
        r"
func @f(%n: i32, %b: bool) -> void {
bb0:
  loop bb1(i32 0), break bb8, continue bb7
bb1(%i: i32):
  %t = lt %i, %n : bool
  br bb2
bb2:
  if_else %t, bb5, bb3, merge bb4
bb3:
  br bb8
bb4:
  unreachable
bb5:
  cond_br %b, bb8, bb6
bb6:
  cond_br %b, bb7, bb8
bb7:
  %i2 = add %i, i32 1 : i32
  br bb1(%i2)
bb8:
  return
}",
    );
}

/// A body `cond_br` whose only loop-exit target is split becomes an `if_else` with a fresh
/// merge (the new block breaks from inside the selection).
#[test]
fn body_cond_br_becomes_if_else() {
    let mut m = module(LOOP);
    let t = term(&m, "f", 2);
    split_edge(&mut m, t, 1).unwrap();
    verified(&m);
    assert_module(
        &m,
        r"
func @f(%n: i32, %b: bool) -> void {
bb0:
  loop bb1(i32 0), break bb2, continue bb3
bb1(%i: i32):
  %t = lt %i, %n : bool
  cond_br %t, bb4, bb2
bb4:
  if_else %b, bb6, bb7, merge bb7
bb6:
  br bb2
bb7:
  br bb5
bb5:
  cond_br %b, bb3, bb2
bb3:
  %i2 = add %i, i32 1 : i32
  br bb1(%i2)
bb2:
  return
}",
    );
}

/// A body `cond_br` between the continue and break blocks of the same loop stays a `cond_br`
/// when one edge is split: the other target keeps it legal.
#[test]
fn body_cond_br_between_continue_and_break_stays() {
    let mut m = module(LOOP);
    let t = term(&m, "f", 3);
    split_edge(&mut m, t, 1).unwrap();
    verified(&m);
    assert_module(
        &m,
        r"
func @f(%n: i32, %b: bool) -> void {
bb0:
  loop bb1(i32 0), break bb2, continue bb3
bb1(%i: i32):
  %t = lt %i, %n : bool
  cond_br %t, bb4, bb2
bb4:
  cond_br %b, bb2, bb5
bb5:
  cond_br %b, bb6, bb2
bb6:
  br bb3
bb3:
  %i2 = add %i, i32 1 : i32
  br bb1(%i2)
bb2:
  return
}",
    );
}

/// Splitting a `br` moves its arguments to the new block.
#[test]
fn br_edge_moves_arguments() {
    let mut m = module(
        r"
func @f(%c: bool) -> i32 {
bb0:
  if_else %c, bb1, bb3, merge bb2
bb1:
  br bb2(i32 1)
bb3:
  br bb2(i32 2)
bb2(%r: i32):
  return %r
}",
    );
    let t = term(&m, "f", 1);
    split_edge(&mut m, t, 0).unwrap();
    verified(&m);
    assert_module(
        &m,
        r"
func @f(%c: bool) -> i32 {
bb0:
  if_else %c, bb1, bb3, merge bb2
bb1:
  br bb4
bb4:
  br bb2(i32 1)
bb3:
  br bb2(i32 2)
bb2(%r: i32):
  return %r
}",
    );
}

#[test]
fn errors() {
    let mut m = module(LOOP);
    let lp = term(&m, "f", 0);
    assert_eq!(split_edge(&mut m, lp, 0), Err(EdgeError::LoopEntry));
    assert_eq!(split_edge(&mut m, lp, 1), Err(EdgeError::NotASuccessor(1)));
    let back = term(&m, "f", 4);
    assert_eq!(split_edge(&mut m, back, 0), Err(EdgeError::BackEdge));
    let cfg = Cfg::new(&m, m.func_by_name("f").unwrap());
    assert!(!can_split_edge(&m, &cfg, back, 0));
    assert!(!can_split_edge(&m, &cfg, lp, 0));
    let t = term(&m, "f", 1);
    assert_eq!(split_edge(&mut m, t, 0), Err(EdgeError::NotASuccessor(0)));
    let cond = m.operand(t, 0);
    assert_eq!(split_edge(&mut m, cond, 0), Err(EdgeError::NotATerminator));
    // Nothing changed.
    assert_module(&m, LOOP);
}

const SWITCH: &str = r"
func @f(%x: i32) -> void {
bb0:
  switch %x, merge bb3, default bb3, [i32 0: bb1, i32 1: bb1, i32 2: bb2, i32 3: bb3]
bb1:
  br bb2
bb2:
  br bb3
bb3:
  return
}";

/// Switch edges into the merge may be split (all slots naming it share one new block); edges
/// into a case block that another case falls into may not.
#[test]
fn switch_edges() {
    let mut m = module(SWITCH);
    let cfg = Cfg::new(&m, m.func_by_name("f").unwrap());
    let t = term(&m, "f", 0);
    assert!(can_split_edge(&m, &cfg, t, 2), "default into the merge");
    assert!(
        !can_split_edge(&m, &cfg, t, 8),
        "case 2 into a fall-through target"
    );
    // Conservatively, no edge into a case block inside the switch is split (a case block with
    // a single predecessor never needs a parameter anyway).
    assert!(!can_split_edge(&m, &cfg, t, 4), "case 0's own block");
    let merge = block(&m, "f", 3);
    let n = split_edges_to(&mut m, t, merge).unwrap().unwrap();
    verified(&m);
    assert_eq!(
        m.operand(n.terminator(&m).unwrap(), 0),
        block(&m, "f", 4).id()
    );
    assert_module(
        &m,
        r"
func @f(%x: i32) -> void {
bb0:
  switch %x, merge bb3, default bb4, [i32 0: bb1, i32 1: bb1, i32 2: bb2, i32 3: bb4]
bb4:
  br bb3
bb1:
  br bb2
bb2:
  br bb3
bb3:
  return
}",
    );
    // No edge to split: `None`.
    let t = term(&m, "f", 0);
    let b2 = block(&m, "f", 0);
    assert_eq!(split_edges_to(&mut m, t, b2), Ok(None));
}

/// Splitting every conditional edge into a join block, where allowed.
#[test]
fn critical_edges() {
    let mut m = module(
        r"
func @f(%c: bool, %x: i32) -> void {
bb0:
  if_else %c, bb1, bb2, merge bb2
bb1:
  br bb2
bb2:
  switch %x, merge bb5, default bb5, [i32 0: bb3, i32 1: bb4]
bb3:
  br bb4
bb4:
  br bb5
bb5:
  return
}",
    );
    let f = m.func_by_name("f").unwrap();
    assert_eq!(split_critical_edges(&mut m, f), 2);
    verified(&m);
    assert_module(
        &m,
        r"
func @f(%c: bool, %x: i32) -> void {
bb0:
  if_else %c, bb1, bb6, merge bb2
bb6:
  br bb2
bb1:
  br bb2
bb2:
  switch %x, merge bb5, default bb7, [i32 0: bb3, i32 1: bb4]
bb7:
  br bb5
bb3:
  br bb4
bb4:
  br bb5
bb5:
  return
}",
    );
}

#[test]
fn removing_a_block_parameter_removes_its_arguments() {
    let mut m = module(
        r"
func @f(%c: bool) -> i32 {
bb0:
  if_else %c, bb1, bb2, merge bb3
bb1:
  br bb3(i32 1, i32 2)
bb2:
  br bb3(i32 3, i32 4)
bb3(%a: i32, %b: i32):
  return %b
}",
    );
    let b3 = block(&m, "f", 3);
    assert_eq!(
        remove_block_param(&mut m, b3, 1),
        Err(EdgeError::ParamInUse)
    );
    assert_eq!(
        remove_block_param(&mut m, b3, 2),
        Err(EdgeError::NoSuchParam(2))
    );
    remove_block_param(&mut m, b3, 0).unwrap();
    verified(&m);
    assert_module(
        &m,
        r"
func @f(%c: bool) -> i32 {
bb0:
  if_else %c, bb1, bb2, merge bb3
bb1:
  br bb3(i32 2)
bb2:
  br bb3(i32 4)
bb3(%b: i32):
  return %b
}",
    );
}
