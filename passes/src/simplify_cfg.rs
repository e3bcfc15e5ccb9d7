//! CFG simplification: constant branches, unreachable blocks, straight-line merging, empty
//! forwarding blocks, block parameters with one incoming value, and loops that never iterate.
//!
//! Per function, until nothing changes:
//!
//! 1. **Constant branches.** `cond_br`/`if_else` on a constant (or with both targets equal)
//!    and `switch` on a constant (or with every target equal) become `br`. Removing an
//!    `if_else` or `switch` removes its construct, so it is done only when every edge into the
//!    merge is a `br` from a block whose innermost construct is that one (a "break" from a
//!    nested construct would otherwise become an illegal exit); a constant `switch` that cannot
//!    be removed keeps only its default, set to the chosen target, so the other cases die.
//! 2. **Unreachable blocks** are removed, except merge, break and continue blocks that a
//!    reachable structured terminator names: those keep their role and are reduced to
//!    `unreachable` (merges and breaks) or to `br header(undef, ...)` (continue blocks).
//! 3. **Loops that never iterate.** A loop whose continue block is unreachable runs its body
//!    once. It becomes a plain `br` into its header when its header ends in `br` and every edge
//!    into its break block is a `br` from a block whose innermost construct is the loop (such
//!    as the run-once loops the inliner builds).
//! 4. **Straight-line merging.** A block ending in `br S(args)`, where that edge is `S`'s only
//!    incoming edge and `S` is neither the entry nor a merge, break or continue block, absorbs
//!    `S` (its parameters become the arguments). The absorbing block keeps its own role: a
//!    merge or break block that absorbs a block ending in `if_else` becomes a merge and a
//!    header at once, which is legal. A loop header absorbs `S` only when `S` ends in `br` or
//!    `cond_br`, so the header keeps its shape.
//! 5. **Empty forwarding blocks** (no parameters, no instructions, `br X` without arguments,
//!    no role) reached by a conditional edge are bypassed when that keeps the structure:
//!    `if_else`/`switch` edges only when `X` is that terminator's own merge, `cond_br` edges
//!    always (the other target keeps the `cond_br` legal).
//! 6. **Block parameters** whose incoming values are all the same value `v` (ignoring the
//!    parameter itself, and `undef` when `v` dominates the block) are replaced by `v`.
//! 7. **Constructs without effect.** A selection, switch or loop whose blocks (a selection's
//!    header aside) hold only instructions removable when unused, none of them used outside
//!    the construct, whose exits all go to its join, and which neither returns nor discards,
//!    computes nothing anyone sees: the terminator declaring it becomes `br join` (the
//!    join's unused parameters get `undef`) and its blocks become unreachable. A loop that
//!    might not terminate goes too, as spirv-opt's aggressive DCE removes it: a shader loop
//!    without effects that never ends is not a behaviour anyone relies on. Outermost
//!    constructs first; the inner ones go with them.

use rustc_hash::FxHashSet;

use oneshader_ir::cfg::Cfg;
use oneshader_ir::{Block, Func, InstId, Module, Op};

use oneshader_ir::constructs::{ConstructKind, Constructs};

use crate::analyses::FunctionAnalyses;
use crate::split_edges::{
    args_start, clear_block, edge_args, has_one_plain_edge, incoming_edges, is_loop_header,
    join_users, remove_block_param, replace_terminator,
};
use crate::{FunctionPass, Pass, PassError, run_per_function};

/// The CFG simplification pass (`simplify_cfg`).
#[derive(Clone, Copy, Debug, Default)]
pub struct SimplifyCfg;

impl Pass for SimplifyCfg {
    fn name(&self) -> &'static str {
        "simplify_cfg"
    }

    /// Each function is simplified until a round changes nothing (short of the round cap,
    /// which only pathological inputs reach).
    fn idempotent(&self) -> bool {
        true
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        run_per_function(self, m)
    }

    fn as_function_pass(&mut self) -> Option<&mut dyn FunctionPass> {
        Some(self)
    }
}

/// The pass rewrites the control flow; the pass manager drops the function's analyses after
/// a run that changed it.
impl FunctionPass for SimplifyCfg {
    fn run_on_function(
        &mut self,
        m: &mut Module,
        f: Func,
        _analyses: &mut FunctionAnalyses,
    ) -> Result<bool, PassError> {
        Ok(simplify_function(m, f))
    }
}

/// Most rounds per function (each round makes progress, so this only bounds pathological
/// inputs).
const MAX_ROUNDS: usize = 64;

/// Simplifies one function's CFG; returns true when anything changed.
///
/// Each round walks the function's block list twice (constant branches, then the CFG
/// snapshot); the later steps work from the snapshot's block list, skipping blocks an
/// earlier step removed. None of the steps adds blocks.
pub fn simplify_function(m: &mut Module, f: Func) -> bool {
    let mut changed = false;
    for _ in 0..MAX_ROUNDS {
        let mut round = false;
        round |= fold_constant_branches(m, f);
        round |= remove_effect_free_constructs(m, f);
        let cfg = Cfg::new(m, f);
        if remove_unreachable(m, &cfg) {
            // Blocks went away and the snapshot is stale: loops are dissolved next round.
            round = true;
        } else {
            round |= dissolve_single_pass_loops(m, f, &cfg);
        }
        let blocks = cfg.blocks();
        round |= merge_straight_lines(m, f, blocks);
        round |= bypass_empty_blocks(m, blocks);
        round |= remove_trivial_params(m, f, blocks);
        if !round {
            break;
        }
        changed = true;
    }
    changed
}

/// The value of a constant condition or selector (`bool`/integer literal or `zero`).
fn const_value(m: &Module, v: InstId) -> Option<u64> {
    match m.try_op(v)? {
        Op::ConstBool | Op::ConstInt => m.literal_bits(v),
        Op::Zero => {
            let t = m.ty(v)?;
            (m.op(t) == Op::Bool || m.op(t).is_int_type()).then_some(0)
        }
        _ => None,
    }
}

/// True when the construct declared by `term` (an `if_else` or `switch`) can be removed: every
/// edge into its merge, other than from the header itself, is a `br` from a block whose
/// innermost construct is this one.
fn construct_removable(m: &Module, cons: &Constructs, term: InstId, merge: Block) -> bool {
    let Some(k) = cons.index_of_term(term) else {
        return false;
    };
    let header = m.block_of(term);
    for e in incoming_edges(m, merge) {
        let Some(p) = m.block_of(e.term) else {
            continue;
        };
        if Some(p) == header {
            continue;
        }
        if m.op(e.term) != Op::Br || cons.innermost(p) != Some(k) {
            return false;
        }
    }
    true
}

fn fold_constant_branches(m: &mut Module, f: Func) -> bool {
    let mut changed = false;
    // One construct analysis per call. Folding only removes constructs and edges, so a stale
    // analysis is conservative (a construct it calls removable still is; one it refuses may
    // become removable and is folded in the next round). Rebuilding it after every fold made
    // the pass quadratic in the number of constant branches.
    let mut analysis: Option<(Cfg, Constructs)> = None;
    for b in f.blocks(m) {
        let Some(t) = b.terminator(m) else { continue };
        match m.op(t) {
            Op::CondBr => {
                let (c, tt, ff) = (m.operand(t, 0), m.operand(t, 1), m.operand(t, 2));
                let target = if tt == ff {
                    Some(tt)
                } else {
                    const_value(m, c).map(|v| if v != 0 { tt } else { ff })
                };
                if let Some(target) = target {
                    replace_terminator(m, b, Op::Br, &[target]);
                    changed = true;
                }
            }
            Op::IfElse => {
                let (c, tt, ee, merge) = (
                    m.operand(t, 0),
                    m.operand(t, 1),
                    m.operand(t, 2),
                    m.operand(t, 3),
                );
                let target = if tt == ee {
                    Some(tt)
                } else {
                    const_value(m, c).map(|v| if v != 0 { tt } else { ee })
                };
                let Some(target) = target else { continue };
                let (_, cons) = analysis.get_or_insert_with(|| {
                    let cfg = Cfg::new(m, f);
                    let cons = Constructs::new(m, f);
                    (cfg, cons)
                });
                if Block::dyn_cast(m, merge).is_some_and(|mb| construct_removable(m, cons, t, mb)) {
                    replace_terminator(m, b, Op::Br, &[target]);
                    changed = true;
                }
            }
            Op::Switch => {
                let ops = m.operands_vec(t);
                let (sel, merge, default) = (ops[0], ops[1], ops[2]);
                let cases: Vec<(InstId, InstId)> =
                    ops[3..].chunks(2).map(|p| (p[0], p[1])).collect();
                let target = if cases.iter().all(|&(_, tb)| tb == default) {
                    Some(default)
                } else {
                    const_value(m, sel).map(|v| {
                        cases
                            .iter()
                            .find(|&&(cv, _)| m.literal_bits(cv) == Some(v))
                            .map(|&(_, tb)| tb)
                            .unwrap_or(default)
                    })
                };
                let Some(target) = target else { continue };
                let (_, cons) = analysis.get_or_insert_with(|| {
                    let cfg = Cfg::new(m, f);
                    let cons = Constructs::new(m, f);
                    (cfg, cons)
                });
                if Block::dyn_cast(m, merge).is_some_and(|mb| construct_removable(m, cons, t, mb)) {
                    replace_terminator(m, b, Op::Br, &[target]);
                    changed = true;
                } else if !cases.is_empty() {
                    replace_terminator(m, b, Op::Switch, &[sel, merge, target]);
                    changed = true;
                }
            }
            _ => {}
        }
    }
    changed
}

fn remove_unreachable(m: &mut Module, cfg: &Cfg) -> bool {
    let blocks = cfg.blocks();
    let dead: Vec<Block> = blocks
        .iter()
        .copied()
        .filter(|&b| !cfg.is_reachable(b))
        .collect();
    if dead.is_empty() {
        return false;
    }
    // Blocks a reachable structured terminator names as merge / break / continue, and for
    // continue blocks the loop header.
    let mut keep: Vec<(Block, Option<Block>)> = Vec::new();
    for &b in blocks {
        if !cfg.is_reachable(b) {
            continue;
        }
        let Some(t) = b.terminator(m) else { continue };
        let joins: Vec<(InstId, Option<InstId>)> = match m.op(t) {
            Op::IfElse => vec![(m.operand(t, 3), None)],
            Op::Switch => vec![(m.operand(t, 1), None)],
            Op::Loop => vec![
                (m.operand(t, 1), None),
                (m.operand(t, 2), Some(m.operand(t, 0))),
            ],
            _ => continue,
        };
        for (j, h) in joins {
            // Join operands name blocks in a well-formed module (OSV0005).
            let Some(jb) = Block::dyn_cast(m, j) else {
                continue;
            };
            if !cfg.is_reachable(jb) {
                let hb = h.and_then(|h| Block::dyn_cast(m, h));
                if let Some(e) = keep.iter_mut().find(|e| e.0 == jb) {
                    if e.1.is_none() {
                        e.1 = hb;
                    }
                } else {
                    keep.push((jb, hb));
                }
            }
        }
    }
    let mut changed = false;
    // A kept block already in its reduced form is left alone.
    let reduced = |m: &Module, b: Block, header: Option<Block>| -> bool {
        let Some(t) = only_child(m, b) else {
            return false;
        };
        match header {
            None => m.op(t) == Op::Unreachable,
            Some(h) => {
                m.op(t) == Op::Br
                    && m.operand(t, 0) == h.id()
                    && edge_args(m, t).iter().all(|&a| m.op(a) == Op::Undef)
            }
        }
    };
    let to_clear: Vec<Block> = dead
        .iter()
        .copied()
        .filter(|&b| match keep.iter().find(|e| e.0 == b) {
            Some(&(_, h)) => !reduced(m, b, h),
            None => true,
        })
        .collect();
    // Terminators first, so blocks lose the uses dead edges make of them.
    for &b in &to_clear {
        if let Some(t) = b.terminator(m) {
            let _ = m.remove(t);
        }
    }
    for &b in &to_clear {
        clear_block(m, b);
        changed = true;
    }
    for &b in &to_clear {
        match keep.iter().find(|e| e.0 == b) {
            Some(&(_, Some(h))) => {
                let args: Vec<InstId> = h
                    .params(m)
                    .iter()
                    .map(|p| {
                        // A parameter always has a type.
                        let t = m.ty(p.id()).unwrap_or_else(|| m.root());
                        m.undef(t)
                    })
                    .collect();
                oneshader_ir::Builder::at_end(m, b).br(h, &args);
            }
            Some(&(_, None)) => {
                oneshader_ir::Builder::at_end(m, b).unreachable();
            }
            None => {
                // No uses remain: its edges were removed and no live terminator names it.
                let _ = m.remove(b.id());
            }
        }
    }
    changed
}

fn dissolve_single_pass_loops(m: &mut Module, f: Func, cfg: &Cfg) -> bool {
    // The construct analysis is only worth building when some reachable loop has an
    // unreachable continue block.
    let candidate = cfg.blocks().iter().any(|&b| {
        cfg.is_reachable(b)
            && b.terminator(m).is_some_and(|t| {
                m.op(t) == Op::Loop
                    && Block::dyn_cast(m, m.operand(t, 2)).is_some_and(|c| !cfg.is_reachable(c))
            })
    });
    if !candidate {
        return false;
    }
    let cons = Constructs::new(m, f);
    let mut changed = false;
    for (k, c) in cons.list().iter().enumerate() {
        if c.kind != ConstructKind::Loop {
            continue;
        }
        let Some(cont) = c.cont else { continue };
        if cfg.is_reachable(cont) || !m.contains(c.term) {
            continue;
        }
        let header = c.entry;
        if header.terminator(m).is_none_or(|ht| m.op(ht) != Op::Br) {
            continue;
        }
        let ok = incoming_edges(m, c.join).iter().all(|e| {
            m.op(e.term) == Op::Br
                && m.block_of(e.term)
                    .is_some_and(|p| !cfg.is_reachable(p) || cons.innermost(p) == Some(k))
        });
        if !ok {
            continue;
        }
        // The continue block must have no other role (it is named only by this loop).
        if join_users(m, cont).len() != 1 {
            continue;
        }
        let args = edge_args(m, c.term);
        let mut ops = vec![header.id()];
        ops.extend(args);
        replace_terminator(m, c.declared_in, Op::Br, &ops);
        // The continue block is unreachable and now has no role: remove it.
        if let Some(t) = cont.terminator(m) {
            let _ = m.remove(t);
        }
        clear_block(m, cont);
        let _ = m.remove(cont.id());
        changed = true;
        // The analysis is stale now; one loop per round.
        break;
    }
    changed
}

fn merge_straight_lines(m: &mut Module, f: Func, blocks: &[Block]) -> bool {
    let mut changed = false;
    let entry = f.entry(m);
    for &b in blocks {
        if !m.contains(b.id()) {
            continue;
        }
        while let Some(t) = b.terminator(m) {
            if m.op(t) != Op::Br {
                break;
            }
            let Some(s) = Block::dyn_cast(m, m.operand(t, 0)) else {
                break;
            };
            if s == b || Some(s) == entry {
                break;
            }
            if !has_one_plain_edge(m, s) {
                break;
            }
            if is_loop_header(m, b) {
                let st = s.terminator(m).map(|x| m.op(x));
                if !matches!(st, Some(Op::Br | Op::CondBr)) {
                    break;
                }
            }
            let args = edge_args(m, t);
            let params = s.params(m);
            if args.len() != params.len() {
                break;
            }
            for (p, a) in params.iter().zip(&args) {
                m.replace_uses_with(p.id(), *a);
            }
            let _ = m.remove(t);
            let mut c = m.first_child(s.id());
            while let Some(x) = c {
                c = m.next_sibling(x);
                if m.op(x) == Op::Param || m.op(x).is_decoration() {
                    continue;
                }
                m.move_to_end(x, b.id());
            }
            // What remains of `s` (its unused parameters) has no outside uses.
            let _ = m.remove(s.id());
            changed = true;
        }
    }
    changed
}

/// The only child of `b`, when it has exactly one.
fn only_child(m: &Module, b: Block) -> Option<InstId> {
    let first = m.first_child(b.id())?;
    m.next_sibling(first).is_none().then_some(first)
}

/// The block a branch to `b` ends up in when it passes through empty forwarding blocks: `b`
/// itself unless `b` holds nothing but `br x` (no arguments, no parameters, no structural
/// role), and then where `x` ends up. Bounded, so a cycle of empty blocks stops.
fn forward_target(m: &Module, b: Block) -> Block {
    let mut cur = b;
    for _ in 0..64 {
        let Some(only) = only_child(m, cur) else {
            break;
        };
        if m.op(only) != Op::Br || m.num_operands(only) != 1 {
            break;
        }
        let Some(x) = Block::dyn_cast(m, m.operand(only, 0)) else {
            break;
        };
        if x == cur || x == b || has_params(m, x) || !join_users(m, cur).is_empty() {
            break;
        }
        cur = x;
    }
    cur
}

/// Bypasses empty forwarding blocks on conditional edges, visiting blocks last to first so
/// that nested constructs collapse from the inside out in one call: an `if_else` whose arms
/// both reach its merge through empty blocks becomes `br merge` on the spot, which empties
/// the block around it for the enclosing `if_else` (a chain of n nested empty `if`s took n
/// rounds of the whole pass before).
fn bypass_empty_blocks(m: &mut Module, blocks: &[Block]) -> bool {
    let mut changed = false;
    for &n in blocks.iter().rev() {
        if !m.contains(n.id()) {
            continue;
        }
        let Some(only) = only_child(m, n) else {
            continue;
        };
        if m.op(only) != Op::Br || m.num_operands(only) != 1 {
            continue;
        }
        let x = m.operand(only, 0);
        if x == n.id() || !join_users(m, n).is_empty() {
            continue;
        }
        let Some(xb) = Block::dyn_cast(m, x) else {
            continue;
        };
        if has_params(m, xb) {
            continue;
        }
        // Where a branch to `n` ends up, for the merge comparisons below.
        let end = forward_target(m, n).id();
        for e in incoming_edges(m, n) {
            let target = match m.op(e.term) {
                Op::CondBr if !is_loop_header(m, n) => Some(x),
                Op::IfElse if m.operand(e.term, 3) == x || m.operand(e.term, 3) == end => {
                    Some(m.operand(e.term, 3))
                }
                Op::Switch if m.operand(e.term, 1) == x || m.operand(e.term, 1) == end => {
                    Some(m.operand(e.term, 1))
                }
                _ => None,
            };
            let Some(target) = target else { continue };
            let _ = m.set_operand(e.term, e.slot, target);
            changed = true;
            // Both arms at the merge: the selection is empty, a plain branch.
            if m.op(e.term) == Op::IfElse
                && m.operand(e.term, 1) == target
                && m.operand(e.term, 2) == target
                && let Some(hb) = m.parent(e.term).and_then(|p| Block::dyn_cast(m, p))
            {
                replace_terminator(m, hb, Op::Br, &[target]);
            }
        }
        if incoming_edges(m, n).is_empty() {
            let _ = m.remove(only);
            let _ = m.remove(n.id());
        }
    }
    changed
}

/// True when `b` has block parameters (they are its first children).
fn has_params(m: &Module, b: Block) -> bool {
    m.first_child(b.id()).is_some_and(|c| m.op(c) == Op::Param)
}

fn remove_trivial_params(m: &mut Module, f: Func, blocks: &[Block]) -> bool {
    let mut changed = false;
    let entry = f.entry(m);
    let mut cfg: Option<Cfg> = None;
    for &b in blocks {
        if Some(b) == entry || !m.contains(b.id()) || !has_params(m, b) {
            continue;
        }
        // Removing a parameter rewrites the edges' argument lists, not the edges.
        let edges = incoming_edges(m, b);
        if edges.is_empty() {
            continue;
        }
        let mut i = 0;
        let mut cur = m.first_child(b.id());
        while let Some(p) = cur {
            if m.op(p) != Op::Param {
                break;
            }
            // Read before `p` may be removed.
            cur = m.next_sibling(p);
            // The incoming values other than the parameter itself: the one defined value (a
            // second distinct one ends the scan: nothing to replace, and a block with many
            // predecessors stays linear) and whether `undef` comes in too.
            let mut defined: Option<InstId> = None;
            let mut undef: Option<InstId> = None;
            let mut ok = true;
            for e in &edges {
                let v = args_start(m.op(e.term)).and_then(|s| m.try_operand(e.term, s + i));
                match v {
                    Some(v) if v == p => {}
                    Some(v) if m.op(v) == Op::Undef => undef = Some(v),
                    Some(v) => match defined {
                        None => defined = Some(v),
                        Some(d) if d == v => {}
                        Some(_) => {
                            ok = false;
                            break;
                        }
                    },
                    None => {
                        ok = false;
                        break;
                    }
                }
            }
            if !ok {
                i += 1;
                continue;
            }
            let replacement = match (defined, undef) {
                (None, None) => m.ty(p).map(|t| m.undef(t)),
                (None, Some(u)) => Some(u),
                (Some(v), None) => Some(v),
                (Some(v), Some(_)) => {
                    let cfg = cfg.get_or_insert_with(|| Cfg::new(m, f));
                    dominates_block(m, cfg, v, b).then_some(v)
                }
            };
            let Some(r) = replacement else {
                i += 1;
                continue;
            };
            m.replace_uses_with(p, r);
            if remove_block_param(m, b, i).is_err() {
                i += 1;
                continue;
            }
            changed = true;
        }
    }
    changed
}

/// True when value `v` is available at the start of block `b`: a module-level value, or a
/// definition whose block strictly dominates `b` (or a parameter of a dominating block).
fn dominates_block(m: &Module, cfg: &Cfg, v: InstId, b: Block) -> bool {
    let Some(db) = m.block_of(v) else {
        // Constants, globals, functions: visible everywhere.
        return true;
    };
    if db == b {
        return false;
    }
    cfg.dominates(db, b)
}

/// Step 7: constructs whose execution nobody can observe become a branch to their join.
fn remove_effect_free_constructs(m: &mut Module, f: Func) -> bool {
    let cons = Constructs::new(m, f);
    let n = cons.list().len();
    if n == 0 {
        return false;
    }
    // The member blocks of every construct (a selection's header is its own member but stays:
    // only its terminator goes).
    let mut members: Vec<Vec<Block>> = vec![Vec::new(); n];
    for b in f.blocks(m) {
        for k in cons.chain(b) {
            members[k].push(b);
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&k| cons.depth(k));
    let mut removed: Vec<usize> = Vec::new();
    let mut changed = false;
    for k in order {
        if removed.iter().any(|&r| cons.encloses(r, k)) {
            continue;
        }
        let c = *cons.get(k);
        let inside: FxHashSet<Block> = members[k]
            .iter()
            .copied()
            .filter(|&b| b != c.declared_in)
            .collect();
        if !effect_free(m, &inside, c.join) {
            continue;
        }
        let join_params = c.join.params(m);
        let types: Option<Vec<InstId>> = join_params.iter().map(|p| m.ty(p.id())).collect();
        let Some(types) = types else { continue };
        if join_params.iter().any(|p| m.uses(p.id()).next().is_some()) {
            continue;
        }
        let mut operands = vec![c.join.id()];
        operands.extend(types.into_iter().map(|t| m.undef(t)));
        replace_terminator(m, c.declared_in, Op::Br, &operands);
        removed.push(k);
        changed = true;
    }
    changed
}

/// True when the blocks of `inside` compute nothing observable: every instruction is
/// removable when unused and used only inside, every terminator is a branch that stays
/// inside or goes to `join`.
fn effect_free(m: &Module, inside: &FxHashSet<Block>, join: Block) -> bool {
    let used_inside = |v: InstId| {
        m.uses(v)
            .all(|u| m.block_of(u.user).is_some_and(|b| inside.contains(&b)))
    };
    for &b in inside {
        if b.params(m).iter().any(|p| !used_inside(p.id())) {
            return false;
        }
        for i in b.insts(m) {
            let op = m.op(i);
            if op.is_terminator() {
                if !matches!(
                    op,
                    Op::Br | Op::CondBr | Op::IfElse | Op::Loop | Op::Switch | Op::Unreachable
                ) {
                    return false;
                }
                let leaves = oneshader_ir::cfg::successors(m, b)
                    .into_iter()
                    .any(|s| s != join && !inside.contains(&s));
                if leaves {
                    return false;
                }
            } else if !m.effects(i).removable_if_unused() || !used_inside(i) {
                return false;
            }
        }
    }
    true
}
