//! Edge splitting, and the small CFG-editing utilities the passes share.
//!
//! Only unconditional edges (`br`, `loop`) carry block arguments (architecture §2). A pass that
//! wants to pass a value along a conditional edge (`cond_br`, `if_else`, `switch`) first puts a
//! block of its own on that edge: [`split_edge`] / [`split_edges_to`] insert a new block that
//! `br`s to the old target, and the pass then adds arguments to that `br`.
//!
//! Splitting keeps the structured form legal:
//! - an `if_else` or `switch` edge simply gets a new block inside the construct; the new block
//!   leaves it the way the old edge did (to the merge, or as a loop break/continue);
//! - a loop header's `cond_br` must keep its loop's break or continue block as a target
//!   (SPIR-V allows no selection in a loop header); when a split would hide it, the test moves
//!   into an `if_else` at the top of the body (its merge unreachable: both arms leave or run
//!   the body);
//! - any other `cond_br` is legal only because one of its targets is the innermost loop's break
//!   or continue block. Splitting the other edge keeps the `cond_br`. When the split would
//!   hide that loop exit behind the new block, the `cond_br` becomes an `if_else` with a fresh
//!   merge block (`if_else c, new, m, merge m` with `m: br other`): the new block breaks (or
//!   continues) from inside the selection, a legal exit, and the other edge leaves through the
//!   merge;
//! - the edges into a loop header are never split (a header is entered by its `loop` and by
//!   its continue block's back edge only), and splitting a `switch` edge into a case block that
//!   other cases fall into would turn the new block into a case that falls through, which
//!   [`can_split_edge`] reports as not allowed (such values stay in memory, per the
//!   architecture).
//!
//! Which blocks each structured construct contains, and whether an exit is a legal structured
//! exit, is [`oneshader_ir::constructs`]: the one analysis the verifier, the passes and the
//! backends share.

use smallvec::SmallVec;

use oneshader_ir::cfg::Cfg;
use oneshader_ir::{Block, Builder, Func, InsertPoint, InstId, Module, Op, Slot};

/// Why an edge could not be edited.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EdgeError {
    /// The instruction is not a terminator inside a block.
    #[error("the instruction is not a terminator inside a block")]
    NotATerminator,
    /// The operand is not a successor block of the terminator.
    #[error("operand {0} of the terminator is not a successor block")]
    NotASuccessor(usize),
    /// The edge of a `loop` into its header cannot be split.
    #[error("the edge from a `loop` terminator into its header cannot be split")]
    LoopEntry,
    /// A loop's back edge (the continue block's `br` to the header) cannot be split.
    #[error("a loop's back edge cannot be split")]
    BackEdge,
    /// The block has no parameter with this index.
    #[error("the block has no parameter {0}")]
    NoSuchParam(usize),
    /// The parameter is still used.
    #[error("the block parameter is still used")]
    ParamInUse,
}

/// One incoming control-flow edge: operand `slot` of terminator `term` names the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Edge {
    /// The terminator.
    pub term: InstId,
    /// The successor operand of the terminator.
    pub slot: usize,
}

/// Where the block arguments of an edge-carrying terminator start (`br`: 1, `loop`: 3), or
/// `None` for terminators whose edges carry no arguments.
pub fn args_start(op: Op) -> Option<usize> {
    match op {
        Op::Br => Some(1),
        Op::Loop => Some(3),
        _ => None,
    }
}

/// True when the terminator's edges are unconditional (`br`, `loop`): only those may carry
/// arguments or target a block with parameters.
pub fn is_unconditional(op: Op) -> bool {
    matches!(op, Op::Br | Op::Loop)
}

/// The incoming edges of `block`: every successor operand of a terminator that names it, in
/// use-list order (one entry per operand, so a `switch` naming the block twice gives two).
pub fn incoming_edges(m: &Module, block: Block) -> SmallVec<[Edge; 2]> {
    let mut out: SmallVec<[Edge; 2]> = SmallVec::new();
    for u in m.uses(block.id()) {
        let Slot::Operand(i) = u.slot else { continue };
        let op = m.op(u.user);
        if op.is_terminator() && op.is_successor_slot(i as usize) && m.parent(u.user).is_some() {
            out.push(Edge {
                term: u.user,
                slot: i as usize,
            });
        }
    }
    if out.len() > 1 {
        out.sort_by_key(|e| (e.slot, e.term));
        out.dedup();
    }
    out
}

/// True when exactly one successor edge of a terminator in the tree names `block`, and no
/// structured terminator names it as merge, break, continue block or loop header: a block that
/// can be merged into its one predecessor. Stops at the second edge, so asking about the merge
/// block of a switch with n cases costs O(1) and not O(n) (asked for each case, O(n) was a
/// quadratic).
pub fn has_one_plain_edge(m: &Module, block: Block) -> bool {
    let mut edges = 0;
    for u in m.uses(block.id()) {
        let Slot::Operand(i) = u.slot else { continue };
        let op = m.op(u.user);
        if !op.is_terminator() {
            continue;
        }
        if (op == Op::Loop && i == 0)
            || matches!(
                op.info().kind(i as usize),
                Some(oneshader_ir::Kind::Join(_))
            )
        {
            return false;
        }
        if op.is_successor_slot(i as usize) && m.parent(u.user).is_some() {
            edges += 1;
            if edges > 1 {
                return false;
            }
        }
    }
    edges == 1
}

/// Removes every instruction and parameter of `b` (not `b` itself), replacing remaining uses
/// by `undef`; a child without a type (a terminator) that is still used is kept.
pub fn clear_block(m: &mut Module, b: Block) {
    let kids = m.children_snapshot(b.id());
    for &c in kids.iter().rev() {
        if m.op(c).is_decoration() {
            continue;
        }
        if m.has_uses(c) {
            match m.ty(c) {
                Some(t) => {
                    let u = m.undef(t);
                    m.replace_uses_with(c, u);
                }
                None => continue,
            }
        }
        // Uses were just replaced; the subtree is only decorations.
        let _ = m.remove(c);
    }
}

/// The block arguments a `br` or `loop` passes (empty for other terminators).
pub fn edge_args(m: &Module, term: InstId) -> Vec<InstId> {
    match args_start(m.op(term)) {
        Some(s) => m.operands(term).skip(s).collect(),
        None => Vec::new(),
    }
}

/// Appends `arg` to the arguments of a `br` or `loop`.
pub fn append_edge_arg(m: &mut Module, term: InstId, arg: InstId) {
    let mut ops = m.operands_vec(term);
    ops.push(arg);
    // A terminator is never hoistable, so `set_operands` cannot refuse.
    let _ = m.set_operands(term, &ops);
}

/// True when `block` is the header of a loop: the first operand of some `loop` terminator.
pub fn is_loop_header(m: &Module, block: Block) -> bool {
    loop_of_header(m, block).is_some()
}

/// The `loop` terminator whose header is `block`.
pub fn loop_of_header(m: &Module, block: Block) -> Option<InstId> {
    m.uses(block.id())
        .find(|u| u.slot == Slot::Operand(0) && m.op(u.user) == Op::Loop)
        .map(|u| u.user)
}

/// The `loop` terminators that name `block` as their break or continue block.
fn loops_joining_at(m: &Module, block: Block) -> SmallVec<[InstId; 2]> {
    m.uses(block.id())
        .filter(|u| {
            m.op(u.user) == Op::Loop && matches!(u.slot, Slot::Operand(1) | Slot::Operand(2))
        })
        .map(|u| u.user)
        .collect()
}

/// The structured terminators (`if_else`, `switch`, `loop`) that name `block` as a join
/// (merge, break or continue) operand.
pub fn join_users(m: &Module, block: Block) -> SmallVec<[InstId; 2]> {
    let mut out: SmallVec<[InstId; 2]> = SmallVec::new();
    for u in m.uses(block.id()) {
        let Slot::Operand(i) = u.slot else { continue };
        let op = m.op(u.user);
        if matches!(
            op.info().kind(i as usize),
            Some(oneshader_ir::Kind::Join(_))
        ) && !out.contains(&u.user)
        {
            out.push(u.user);
        }
    }
    out
}

/// Replaces the terminator of `block` by a new one (`op`, `operands`), moving the old one's
/// decorations (hints such as `flatten`) over when the opcode stays structured. Returns it.
pub fn replace_terminator(m: &mut Module, block: Block, op: Op, operands: &[InstId]) -> InstId {
    let old = block.terminator(m);
    let new = Builder::at_end(m, block).emit(op, None, operands);
    if let Some(old) = old {
        let keep_decos = matches!(op, Op::IfElse | Op::Switch | Op::Loop) && m.op(old) == op;
        for d in m.decorations(old).collect::<Vec<_>>() {
            if keep_decos {
                m.move_to_end(d, new);
            }
        }
        // The old terminator has no uses (terminators yield nothing); removing its subtree
        // (decorations) cannot be refused.
        let _ = m.remove(old);
    }
    new
}

/// Splits the edge leaving terminator `term` through its successor operand `slot`: a new
/// block that branches to the old target is inserted on it. Returns the new block. For a `br`
/// the arguments move to the new block's `br`.
pub fn split_edge(m: &mut Module, term: InstId, slot: usize) -> Result<Block, EdgeError> {
    if !m.contains(term) || !m.op(term).is_terminator() || m.block_of(term).is_none() {
        return Err(EdgeError::NotATerminator);
    }
    let op = m.op(term);
    if slot >= m.num_operands(term) || !op.is_successor_slot(slot) {
        return Err(EdgeError::NotASuccessor(slot));
    }
    split_slots(m, term, &[slot])
}

/// Like [`split_edge`] for every successor operand of `term` that names `target`: one new
/// block carries all of them. Returns `Ok(None)` when `term` does not branch to `target`.
pub fn split_edges_to(
    m: &mut Module,
    term: InstId,
    target: Block,
) -> Result<Option<Block>, EdgeError> {
    if !m.contains(term) || !m.op(term).is_terminator() || m.block_of(term).is_none() {
        return Err(EdgeError::NotATerminator);
    }
    let op = m.op(term);
    let slots: SmallVec<[usize; 4]> = (0..m.num_operands(term))
        .filter(|&i| op.is_successor_slot(i) && m.operand(term, i) == target.id())
        .collect();
    if slots.is_empty() {
        return Ok(None);
    }
    split_slots(m, term, &slots).map(Some)
}

fn split_slots(m: &mut Module, term: InstId, slots: &[usize]) -> Result<Block, EdgeError> {
    let op = m.op(term);
    // Checked by the callers: `term` sits in a block.
    let Some(pred) = m.block_of(term) else {
        return Err(EdgeError::NotATerminator);
    };
    // A successor slot of a well-formed terminator names a block (OSV0005); refuse otherwise.
    let Some(target) = Block::dyn_cast(m, m.operand(term, slots[0])) else {
        return Err(EdgeError::NotASuccessor(slots[0]));
    };
    match op {
        Op::Loop => Err(EdgeError::LoopEntry),
        Op::Br => {
            if is_loop_header(m, target) {
                return Err(EdgeError::BackEdge);
            }
            let args = edge_args(m, term);
            let n = m.add_block_after(pred);
            Builder::at_end(m, n).br(target, &args);
            let _ = m.set_operands(term, &[n.id()]);
            Ok(n)
        }
        Op::IfElse | Op::Switch => {
            let n = m.add_block_after(pred);
            Builder::at_end(m, n).br(target, &[]);
            for &s in slots {
                let _ = m.set_operand(term, s, n.id());
            }
            Ok(n)
        }
        Op::CondBr => {
            let n = m.add_block_after(pred);
            Builder::at_end(m, n).br(target, &[]);
            let other_slot = if slots.contains(&1) && slots.contains(&2) {
                None
            } else if slots.contains(&1) {
                Some(2)
            } else {
                Some(1)
            };
            let Some(os) = other_slot else {
                // Both edges go to the new block: an unconditional branch.
                replace_terminator(m, pred, Op::Br, &[n.id()]);
                return Ok(n);
            };
            let Some(other) = Block::dyn_cast(m, m.operand(term, os)) else {
                return Err(EdgeError::NotASuccessor(os));
            };
            let cond = m.operand(term, 0);
            if let Some(lp) = loop_of_header(m, pred) {
                // A loop header's `cond_br` must keep its own loop's break or continue block
                // as a target (SPIR-V: a branch after `OpLoopMerge` may not introduce two
                // new blocks). When the split hides that exit, the test moves into a
                // selection at the top of the body: the header branches to a new block
                // ending in `if_else c, ..., merge mg` (`mg` unreachable), whose arms leave
                // it as the loop's break or continue or run the body.
                let exits = [m.operand(lp, 1), m.operand(lp, 2)];
                if exits.contains(&other.id()) {
                    for &s in slots {
                        let _ = m.set_operand(term, s, n.id());
                    }
                    return Ok(n);
                }
                let test = m.add_block_after(pred);
                let mg = m.add_block_after(n);
                Builder::at_end(m, mg).emit(Op::Unreachable, None, &[]);
                let (t, e) = if os == 2 { (n, other) } else { (other, n) };
                Builder::at_end(m, test).emit(Op::IfElse, None, &[cond, t.id(), e.id(), mg.id()]);
                replace_terminator(m, pred, Op::Br, &[test.id()]);
                return Ok(n);
            }
            let ol = loops_joining_at(m, other);
            let tl = loops_joining_at(m, target);
            // The `cond_br` was legal because one target is the innermost loop's break or
            // continue. It stays legal when that is the other target: certainly when the
            // split target is no loop's break or continue, and when both belong to the same
            // loop. Otherwise (the split target is the loop exit that made it legal) it
            // becomes an `if_else`, whose new block then leaves the selection as a loop
            // break or continue.
            let keep_cond_br =
                !ol.is_empty() && (tl.is_empty() || ol.iter().any(|l| tl.contains(l)));
            if keep_cond_br {
                for &s in slots {
                    let _ = m.set_operand(term, s, n.id());
                }
                return Ok(n);
            }
            // Convert to `if_else c, ..., merge mg` where `mg: br other`.
            let mg = m.add_block_after(n);
            Builder::at_end(m, mg).br(other, &[]);
            let (t, e) = if os == 2 { (n, mg) } else { (mg, n) };
            replace_terminator(m, pred, Op::IfElse, &[cond, t.id(), e.id(), mg.id()]);
            Ok(n)
        }
        _ => Err(EdgeError::NotASuccessor(slots[0])),
    }
}

/// True when the edge through successor operand `slot` of `term` may be split without
/// breaking the structured form: never an edge into a loop header, and a `switch` edge only when
/// it leads to the switch's merge or out of the switch (not into a case block that is part of
/// the switch, which other cases may fall into).
pub fn can_split_edge(m: &Module, cfg: &Cfg, term: InstId, slot: usize) -> bool {
    if !m.contains(term) || !m.op(term).is_successor_slot(slot) || slot >= m.num_operands(term) {
        return false;
    }
    match m.op(term) {
        Op::Loop => false,
        Op::Br => Block::dyn_cast(m, m.operand(term, 0)).is_some_and(|t| !is_loop_header(m, t)),
        Op::Switch => {
            let Some(target) = Block::dyn_cast(m, m.operand(term, slot)) else {
                return false;
            };
            let merge = m.operand(term, 1);
            if target.id() == merge {
                return true;
            }
            let Some(sw) = m.block_of(term) else {
                return false;
            };
            !(cfg.dominates(sw, target) && sw != target)
        }
        _ => true,
    }
}

/// Splits every conditional edge into a block that has more than one incoming edge, where
/// [`can_split_edge`] allows it, so that such blocks can receive block parameters. Returns the
/// number of blocks inserted.
pub fn split_critical_edges(m: &mut Module, func: Func) -> usize {
    let cfg = Cfg::new(m, func);
    let mut work: Vec<(InstId, Block)> = Vec::new();
    for &b in cfg.blocks() {
        let edges = incoming_edges(m, b);
        if edges.len() < 2 {
            continue;
        }
        for e in &edges {
            if !is_unconditional(m.op(e.term))
                && can_split_edge(m, &cfg, e.term, e.slot)
                && !work.contains(&(e.term, b))
            {
                work.push((e.term, b));
            }
        }
    }
    let mut count = 0;
    for (term, b) in work {
        // A `cond_br` converted to `if_else` by an earlier split is a new instruction; find the
        // block's current terminator again.
        let term = if m.contains(term) {
            term
        } else {
            continue;
        };
        if let Ok(Some(_)) = split_edges_to(m, term, b) {
            count += 1;
        }
    }
    count
}

/// Removes parameter `index` of `block` (it must have no uses) and the matching argument of
/// every incoming `br`/`loop`.
pub fn remove_block_param(m: &mut Module, block: Block, index: usize) -> Result<(), EdgeError> {
    let params = block.params(m);
    let Some(p) = params.get(index).copied() else {
        return Err(EdgeError::NoSuchParam(index));
    };
    if m.has_uses(p.id()) {
        return Err(EdgeError::ParamInUse);
    }
    for e in incoming_edges(m, block) {
        let Some(start) = args_start(m.op(e.term)) else {
            continue;
        };
        let mut ops = m.operands_vec(e.term);
        if start + index < ops.len() {
            ops.remove(start + index);
            let _ = m.set_operands(e.term, &ops);
        }
    }
    // No uses (checked above) and no children but decorations.
    let _ = m.remove(p.id());
    Ok(())
}

/// Moves every instruction of `block` from `first` (inclusive) to the end, terminator
/// included, into a new block inserted after `block`; returns the new block. `block` is left
/// without terminator: the caller adds one.
pub fn split_block_before(m: &mut Module, block: Block, first: InstId) -> Block {
    let rest = m.add_block_after(block);
    let mut cur = Some(first);
    while let Some(c) = cur {
        cur = m.next_sibling(c);
        m.move_to_end(c, rest.id());
    }
    rest
}

/// Creates a builder inserting just before the terminator of `block` (or at its end when it
/// has none).
pub fn builder_before_terminator(m: &mut Module, block: Block) -> Builder<'_> {
    let point = match block.terminator(m) {
        Some(t) => InsertPoint::Before(t),
        None => InsertPoint::End(block),
    };
    let mut b = Builder::new(m);
    b.set_point(point);
    b
}
