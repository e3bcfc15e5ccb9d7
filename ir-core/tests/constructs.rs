//! The structured-construct analysis (`oneshader_ir::constructs`): which construct contains
//! each block, and how each control-flow edge relates to the constructs (`Constructs::edge`),
//! the classification the verifier's OSV0025 and the text backends' statements rest on.

use oneshader_ir::constructs::{BadEdge, ConstructKind, Constructs, EdgeKind};
use oneshader_ir::{Block, Module, parse::parse, verify::verify};

fn module(text: &str) -> Module {
    let m = parse(text).unwrap_or_else(|e| panic!("does not parse: {e:?}\n{text}"));
    let d = verify(&m);
    assert!(d.is_empty(), "does not verify: {d:#?}\n{text}");
    m
}

/// The construct analysis: a `return` in a switch inside a loop inside a selection has the
/// chain switch, loop, selection; merges and breaks belong to the enclosing construct.
#[test]
fn constructs_chain() {
    let m = module(
        r"
func @f(%c: bool, %x: i32) -> i32 {
bb0:
  if_else %c, bb1, bb2, merge bb2
bb1:
  loop bb3, break bb4, continue bb5
bb3:
  cond_br %c, bb6, bb4
bb6:
  switch %x, merge bb8, default bb7, [i32 0: bb9]
bb9:
  return i32 1
bb7:
  br bb8
bb8:
  br bb5
bb5:
  br bb3
bb4:
  br bb2
bb2:
  return i32 0
}",
    );
    let f = m.func_by_name("f").unwrap();
    let cons = Constructs::new(&m, f);
    let blocks = f.blocks(&m);
    let kinds = |b: Block| -> Vec<ConstructKind> {
        cons.chain(b).iter().map(|&k| cons.get(k).kind).collect()
    };
    use ConstructKind::*;
    assert_eq!(
        kinds(blocks[0]),
        vec![],
        "the selection header is not inside"
    );
    assert_eq!(kinds(blocks[1]), vec![Selection], "the loop's pre-header");
    assert_eq!(kinds(blocks[2]), vec![Loop, Selection], "the loop header");
    assert_eq!(kinds(blocks[3]), vec![Loop, Selection], "the switch header");
    assert_eq!(kinds(blocks[4]), vec![Switch, Loop, Selection], "a case");
    assert_eq!(
        kinds(blocks[5]),
        vec![Switch, Loop, Selection],
        "the default"
    );
    assert_eq!(kinds(blocks[6]), vec![Loop, Selection], "the switch merge");
    assert_eq!(
        kinds(blocks[7]),
        vec![Loop, Selection],
        "the continue block"
    );
    assert_eq!(kinds(blocks[8]), vec![Selection], "the loop's break");
    assert_eq!(kinds(blocks[9]), vec![], "the selection's merge");
    let lp = cons.innermost_loop(blocks[4]).unwrap();
    assert_eq!(cons.get(lp).join, blocks[8]);
    assert_eq!(cons.get(lp).cont, Some(blocks[7]));
    assert_eq!(cons.get(lp).declared_in, blocks[1]);
    assert_eq!(cons.list().len(), 3);
}

/// A switch merge reached only by a break from inside a nested selection (the other path
/// returns) is dominated by that selection's header, yet it is outside both constructs; the
/// same for a loop's break reached only from inside an `if`.
#[test]
fn joins_reached_only_from_nested_selections() {
    let m = module(
        r"
func @f(%c: bool, %x: i32) -> i32 {
bb0:
  switch %x, merge bb4, default bb1, []
bb1:
  if_else %c, bb2, bb3, merge bb5
bb2:
  br bb4
bb3:
  return i32 1
bb5:
  unreachable
bb4:
  loop bb6, break bb9, continue bb8
bb6:
  br bb7
bb7:
  if_else %c, bb10, bb11, merge bb11
bb10:
  br bb9
bb11:
  br bb8
bb8:
  br bb6
bb9:
  return i32 0
}",
    );
    let f = m.func_by_name("f").unwrap();
    let cons = Constructs::new(&m, f);
    let blocks = f.blocks(&m);
    let kinds = |b: Block| -> Vec<ConstructKind> {
        cons.chain(b).iter().map(|&k| cons.get(k).kind).collect()
    };
    use ConstructKind::*;
    assert_eq!(
        kinds(blocks[2]),
        vec![Selection, Switch],
        "the break inside the if"
    );
    assert_eq!(kinds(blocks[5]), vec![], "the switch merge is outside both");
    assert_eq!(
        kinds(blocks[8]),
        vec![Selection, Loop],
        "the loop break inside the if"
    );
    assert_eq!(
        kinds(blocks[11]),
        vec![],
        "the loop's break is outside both"
    );
}

/// Every edge of a function with each kind of exit, classified. (Blocks are written in
/// order, so `bbN` is block number N.)
#[test]
fn edges_are_classified_by_the_exit_they_take() {
    let m = module(
        r"
func @f(%c: bool, %x: i32) -> i32 {
bb0:
  loop bb1, break bb7, continue bb6
bb1:
  cond_br %c, bb2, bb7
bb2:
  if_else %c, bb3, bb4, merge bb5
bb3:
  br bb7
bb4:
  br bb6
bb5:
  unreachable
bb6:
  br bb1
bb7:
  switch %x, merge bb13, default bb12, [i32 1: bb8]
bb8:
  if_else %c, bb9, bb10, merge bb11
bb9:
  br bb13
bb10:
  br bb11
bb11:
  br bb12
bb12:
  br bb13
bb13:
  return i32 0
}",
    );
    let f = m.func_by_name("f").unwrap();
    let cons = Constructs::new(&m, f);
    let b = f.blocks(&m);
    let kind = |from: usize, to: usize| cons.edge(b[from], b[to]);
    let term = |i: usize| b[i].terminator(&m).unwrap();
    let lp = cons.loop_of_header(b[1]).expect("bb1 is a loop header");
    let sw = cons.index_of_term(term(7)).unwrap();
    let inner = cons.index_of_term(term(8)).unwrap();
    assert_eq!(
        kind(0, 1),
        Ok(EdgeKind::Inside),
        "entering the loop at its header"
    );
    assert_eq!(
        kind(1, 2),
        Ok(EdgeKind::Inside),
        "the header's test into the body"
    );
    assert_eq!(
        kind(1, 7),
        Ok(EdgeKind::Break(lp)),
        "the while test leaves the loop"
    );
    assert_eq!(kind(2, 3), Ok(EdgeKind::Inside), "into an arm");
    assert_eq!(
        kind(3, 7),
        Ok(EdgeKind::Break(lp)),
        "break from inside the if"
    );
    assert_eq!(
        kind(4, 6),
        Ok(EdgeKind::Continue(lp)),
        "continue from inside the if"
    );
    assert_eq!(kind(6, 1), Ok(EdgeKind::BackEdge(lp)));
    assert_eq!(kind(7, 8), Ok(EdgeKind::Inside), "into the switch's case");
    assert_eq!(
        kind(9, 13),
        Ok(EdgeKind::SwitchBreak(sw)),
        "break out of the switch from an if"
    );
    assert_eq!(
        kind(10, 11),
        Ok(EdgeKind::Merge(inner)),
        "end of the if's arm"
    );
    assert_eq!(
        kind(11, 12),
        Ok(EdgeKind::Inside),
        "the case falls through to the default"
    );
    assert_eq!(
        kind(12, 13),
        Ok(EdgeKind::Merge(sw)),
        "end of the switch's last case"
    );
    assert_eq!(
        cons.innermost(b[5]),
        Some(lp),
        "the unreachable merge is inside the loop (structural dominance)"
    );
    assert_eq!(
        cons.innermost(b[6]),
        Some(lp),
        "the continue block is not in the if"
    );
}

/// Edges the structured rules forbid, classified by what they break (the verifier does not
/// accept these modules, so the analysis runs on them directly).
#[test]
fn bad_edges_say_what_they_break() {
    let m = parse(
        r"
func @f(%c: bool) -> void {
bb0:
  if_else %c, bb1, bb2, merge bb5
bb1:
  if_else %c, bb3, bb4, merge bb4
bb3:
  br bb5
bb4:
  br bb5
bb2:
  br bb5
bb5:
  if_else %c, bb6, bb7, merge bb7
bb6:
  br bb5
bb7:
  return
}",
    )
    .unwrap();
    let f = m.func_by_name("f").unwrap();
    let cons = Constructs::new(&m, f);
    let b = f.blocks(&m);
    let outer = cons.index_of_term(b[0].terminator(&m).unwrap()).unwrap();
    assert_eq!(
        cons.edge(b[2], b[5]),
        Err(BadEdge::Leaves(outer)),
        "bypasses bb4"
    );
    assert_eq!(cons.edge(b[3], b[5]), Ok(EdgeKind::Merge(outer)));
    assert_eq!(
        cons.edge(b[6], b[5]),
        Err(BadEdge::Backward),
        "a cycle without a loop"
    );
}
