//! mem2reg: function-local variables become SSA values carried by block parameters.
//!
//! A `var` is promoted when every use is a `load` from it or a `store` to it (it is never
//! addressed by an access chain, stored as a value, or passed to a call): scalars, vectors,
//! matrices, and aggregates that are only loaded and stored whole. SROA runs first and turns
//! most structs and small arrays into such variables.
//!
//! Block parameters go on the iterated dominance frontier of the blocks that store to the
//! variable, pruned by liveness: a block gets a parameter only when the variable may be read
//! before being written on some path from its start, and after renaming every created
//! parameter that feeds nothing but other dead parameters is removed, so no dead parameters
//! remain. Reads before any write become `undef`.
//!
//! Only `br` and `loop` pass arguments, and only they may enter a block with parameters. When
//! a parameter is needed on a block reached by a conditional edge (an `if_else` whose else
//! edge goes straight to the merge, a loop header's `cond_br` into the break block, ...), the
//! edge is split first ([`crate::split_edges`]) so the new block's `br` carries the argument.
//! Where splitting is not allowed (a `switch` edge into a case block that other cases fall
//! into: switch targets never take parameters) the variable stays in memory. A loop header's
//! parameter gets its initial value from the `loop` terminator's arguments and its next value
//! from the continue block's `br`.

use oneshader_ir::debug_values::DebugVariable;
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use oneshader_ir::cfg::Cfg;
use oneshader_ir::{Block, Func, InstId, Module, Op, Slot};

use crate::analyses::FunctionAnalyses;
use crate::split_edges::{
    args_start, can_split_edge, incoming_edges, is_unconditional, remove_block_param,
    split_edges_to,
};
use crate::{FunctionPass, Pass, PassError, run_per_function};

/// The mem2reg pass (`mem2reg`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Mem2Reg;

impl Pass for Mem2Reg {
    fn name(&self) -> &'static str {
        "mem2reg"
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        run_per_function(self, m)
    }

    fn as_function_pass(&mut self) -> Option<&mut dyn FunctionPass> {
        Some(self)
    }
}

/// Promotion may split edges; the pass manager drops the function's analyses after a run
/// that changed it.
impl FunctionPass for Mem2Reg {
    fn run_on_function(
        &mut self,
        m: &mut Module,
        f: Func,
        _analyses: &mut FunctionAnalyses,
    ) -> Result<bool, PassError> {
        Ok(promote_function(m, f))
    }
}

/// True when `var` (a `var` instruction) is only loaded from and stored to.
pub fn is_promotable(m: &Module, var: InstId) -> bool {
    if m.op(var) != Op::Var {
        return false;
    }
    m.uses(var).all(|u| match (m.op(u.user), u.slot) {
        (Op::Load, Slot::Operand(0)) => true,
        (Op::Store, Slot::Operand(0)) => m.operand(u.user, 1) != var,
        _ => false,
    })
}

/// Per-variable facts for placing parameters.
struct VarInfo {
    var: InstId,
    /// Indices of blocks that store to the variable.
    defs: Vec<u32>,
    /// Indices of blocks that read it before writing it.
    upward_uses: Vec<u32>,
}

/// Dense CFG tables of one snapshot.
struct Dense {
    cfg: Cfg,
    df: Vec<Vec<u32>>,
}

impl Dense {
    fn new(m: &Module, f: Func) -> Dense {
        let cfg = Cfg::new(m, f);
        let df = cfg.dominance_frontier_indices();
        Dense { cfg, df }
    }

    fn block(&self, i: u32) -> Block {
        self.cfg.blocks()[i as usize]
    }
}

/// Defining blocks and upward-exposed uses of every variable in `vars`, in one scan.
fn var_infos(m: &Module, d: &Dense, vars: &[InstId]) -> Vec<VarInfo> {
    let index: FxHashMap<InstId, usize> = vars.iter().enumerate().map(|(i, v)| (*v, i)).collect();
    let mut infos: Vec<VarInfo> = vars
        .iter()
        .map(|&var| VarInfo {
            var,
            defs: Vec::new(),
            upward_uses: Vec::new(),
        })
        .collect();
    // Per variable: the last block seen, so each block is recorded once per variable.
    let mut seen_in: Vec<u32> = vec![u32::MAX; vars.len()];
    for (bi, &b) in d.cfg.blocks().iter().enumerate() {
        let bi = bi as u32;
        for c in m.children(b.id()) {
            let op = m.op(c);
            if op != Op::Load && op != Op::Store {
                continue;
            }
            let Some(&vi) = index.get(&m.operand(c, 0)) else {
                continue;
            };
            let first = seen_in[vi] != bi;
            if op == Op::Load {
                if first {
                    infos[vi].upward_uses.push(bi);
                }
            } else if infos[vi].defs.last() != Some(&bi) {
                infos[vi].defs.push(bi);
            }
            seen_in[vi] = bi;
        }
    }
    infos
}

/// The blocks (indices) that need a parameter for the variable: its iterated dominance
/// frontier, restricted to blocks where it is live on entry.
fn phi_blocks(d: &Dense, info: &VarInfo) -> Vec<u32> {
    let n = d.cfg.blocks().len();
    // Liveness on entry.
    let is_def: FxHashSet<u32> = info.defs.iter().copied().collect();
    let mut live_in = vec![false; n];
    let mut work: Vec<u32> = Vec::new();
    for &b in &info.upward_uses {
        if !live_in[b as usize] {
            live_in[b as usize] = true;
            work.push(b);
        }
    }
    while let Some(b) = work.pop() {
        for &p in d.cfg.pred_indices(b as usize) {
            if !live_in[p as usize] && !is_def.contains(&p) {
                live_in[p as usize] = true;
                work.push(p);
            }
        }
    }
    // Iterated dominance frontier of the defining blocks.
    let mut in_idf = vec![false; n];
    let mut queued = vec![false; n];
    let mut work: Vec<u32> = info.defs.clone();
    for &b in &info.defs {
        queued[b as usize] = true;
    }
    let mut out = Vec::new();
    while let Some(b) = work.pop() {
        for &y in &d.df[b as usize] {
            if in_idf[y as usize] {
                continue;
            }
            in_idf[y as usize] = true;
            if live_in[y as usize] {
                out.push(y);
            }
            if !queued[y as usize] {
                queued[y as usize] = true;
                work.push(y);
            }
        }
    }
    out.sort_unstable();
    out
}

/// Promotes the promotable variables of `f`; returns true when any was promoted.
pub fn promote_function(m: &mut Module, f: Func) -> bool {
    let mut vars: Vec<InstId> = Vec::new();
    for b in f.blocks(m) {
        for c in m.children(b.id()) {
            if m.op(c) == Op::Var && is_promotable(m, c) {
                vars.push(c);
            }
        }
    }
    if vars.is_empty() {
        return false;
    }
    // Place parameters, splitting conditional edges into parameter blocks; a variable whose
    // parameter block has an edge that may not be split stays in memory. Splitting changes
    // the CFG, so the placement is recomputed until no split is needed.
    let mut rounds = 0;
    let (dense, placement) = loop {
        rounds += 1;
        let dense = Dense::new(m, f);
        let mut placement: Vec<(InstId, Vec<u32>)> = Vec::new();
        let mut splits: Vec<(InstId, Block)> = Vec::new();
        let mut split_set: FxHashSet<(InstId, Block)> = FxHashSet::default();
        for info in var_infos(m, &dense, &vars) {
            let phis = phi_blocks(&dense, &info);
            let mut ok = true;
            let mut my_splits: Vec<(InstId, Block)> = Vec::new();
            let mut my_set: FxHashSet<(InstId, Block)> = FxHashSet::default();
            for &pb in &phis {
                let b = dense.block(pb);
                for e in incoming_edges(m, b) {
                    if is_unconditional(m.op(e.term)) {
                        continue;
                    }
                    if rounds > 3 || !can_split_edge(m, &dense.cfg, e.term, e.slot) {
                        ok = false;
                        break;
                    }
                    if my_set.insert((e.term, b)) {
                        my_splits.push((e.term, b));
                    }
                }
                if !ok {
                    break;
                }
            }
            if ok {
                placement.push((info.var, phis));
                for s in my_splits {
                    if split_set.insert(s) {
                        splits.push(s);
                    }
                }
            }
        }
        if splits.is_empty() {
            break (dense, placement);
        }
        for (term, b) in splits {
            if m.contains(term) {
                let _ = split_edges_to(m, term, b);
            }
        }
        vars = placement.iter().map(|(v, _)| *v).collect();
    };
    if placement.is_empty() {
        return false;
    }
    rename(m, &dense, &placement);
    true
}

fn rename(m: &mut Module, d: &Dense, placement: &[(InstId, Vec<u32>)]) {
    let var_index: FxHashMap<InstId, usize> = placement
        .iter()
        .enumerate()
        .map(|(i, (v, _))| (*v, i))
        .collect();
    let pointee: Vec<InstId> = placement
        .iter()
        .map(|(v, _)| {
            // A `var`'s type is `ptr<function, T>` (checked by the verifier).
            m.ty(*v)
                .and_then(|t| m.pointee(t))
                .unwrap_or_else(|| m.root())
        })
        .collect();
    // Create the parameters, in variable order per block.
    // Per block number: the created parameters, as (variable, parameter).
    let mut phi_params: Vec<SmallVec<[(usize, InstId); 2]>> =
        vec![SmallVec::new(); d.cfg.blocks().len()];
    let mut created: Vec<InstId> = Vec::new();
    for (vi, (v, blocks)) in placement.iter().enumerate() {
        let name: Option<String> = m.name(*v).map(str::to_string);
        for &bi in blocks {
            let b = d.block(bi);
            let p = m.add_block_param(b, pointee[vi]);
            if let Some(n) = &name {
                m.set_name(p, Some(n));
            }
            phi_params[bi as usize].push((vi, p));
            created.push(p);
        }
    }
    let nvars = placement.len();
    let mut cur: Vec<Option<InstId>> = vec![None; nvars];
    let mut undo: Vec<(usize, Option<InstId>)> = Vec::new();
    enum Ev {
        Enter(Block),
        Exit(usize),
    }
    let mut visited: Vec<bool> = vec![false; d.cfg.blocks().len()];
    if let Some(entry) = d.cfg.entry() {
        let mut stack = vec![Ev::Enter(entry)];
        while let Some(ev) = stack.pop() {
            match ev {
                Ev::Exit(len) => {
                    while undo.len() > len {
                        if let Some((vi, old)) = undo.pop() {
                            cur[vi] = old;
                        }
                    }
                }
                Ev::Enter(b) => {
                    let Some(bi) = d.cfg.index_of(b) else {
                        continue;
                    };
                    visited[bi] = true;
                    let len = undo.len();
                    for &(vi, p) in &phi_params[bi] {
                        undo.push((vi, cur[vi]));
                        cur[vi] = Some(p);
                    }
                    let ctx = Rename {
                        cfg: &d.cfg,
                        var_index: &var_index,
                        pointee: &pointee,
                        phi_params: &phi_params,
                    };
                    rewrite_block(m, b, &ctx, &mut cur, &mut undo);
                    stack.push(Ev::Exit(len));
                    for c in d.cfg.dom_children(b).rev() {
                        stack.push(Ev::Enter(c));
                    }
                }
            }
        }
    }
    // Unreachable blocks: reads are undefined, writes vanish, edges pass `undef`.
    let ctx = Rename {
        cfg: &d.cfg,
        var_index: &var_index,
        pointee: &pointee,
        phi_params: &phi_params,
    };
    for (bi, &b) in d.cfg.blocks().iter().enumerate() {
        if visited[bi] {
            continue;
        }
        let mut none: Vec<Option<InstId>> = vec![None; nvars];
        let mut scratch = Vec::new();
        rewrite_block(m, b, &ctx, &mut none, &mut scratch);
    }
    for (v, _) in placement {
        // Every load and store was rewritten above, so the variable has no uses left.
        let _ = m.remove(*v);
    }
    prune_dead_params(m, &created);
}

/// What renaming reads while it rewrites blocks.
struct Rename<'a> {
    cfg: &'a Cfg,
    var_index: &'a FxHashMap<InstId, usize>,
    pointee: &'a [InstId],
    /// Per block number: the created parameters, as (variable, parameter).
    phi_params: &'a [SmallVec<[(usize, InstId); 2]>],
}

fn rewrite_block(
    m: &mut Module,
    b: Block,
    ctx: &Rename<'_>,
    cur: &mut [Option<InstId>],
    undo: &mut Vec<(usize, Option<InstId>)>,
) {
    let mut next = m.first_child(b.id());
    while let Some(inst) = next {
        // Read before `inst` may be removed.
        next = m.next_sibling(inst);
        match m.op(inst) {
            Op::Load => {
                let Some(&vi) = ctx.var_index.get(&m.operand(inst, 0)) else {
                    continue;
                };
                let value = match cur[vi] {
                    Some(v) => v,
                    None => m.undef(ctx.pointee[vi]),
                };
                m.replace_uses_with(inst, value);
                // Its uses were just replaced.
                let _ = m.remove(inst);
            }
            Op::Store => {
                let Some(&vi) = ctx.var_index.get(&m.operand(inst, 0)) else {
                    continue;
                };
                let value = m.operand(inst, 1);
                // The value is the variable's from here on: debug information says so once
                // the variable is gone (`oneshader_ir::debug_values`).
                let var = m.operand(inst, 0);
                if let Some(name) = m.name(var) {
                    let v = DebugVariable {
                        name: name.into(),
                        declared: m.position(var),
                        scope: m.debug_scope(var),
                    };
                    m.add_debug_variable(value, v);
                }
                undo.push((vi, cur[vi]));
                cur[vi] = Some(value);
                // A store has no uses.
                let _ = m.remove(inst);
            }
            op if op.is_terminator() => {
                if args_start(op).is_none() {
                    continue;
                }
                // `br` and `loop` have one successor: operand 0.
                let Some(ti) =
                    Block::dyn_cast(m, m.operand(inst, 0)).and_then(|t| ctx.cfg.index_of(t))
                else {
                    continue;
                };
                let ps = &ctx.phi_params[ti];
                if ps.is_empty() {
                    continue;
                }
                let mut ops = m.operands_vec(inst);
                for &(vi, _) in ps {
                    ops.push(match cur[vi] {
                        Some(v) => v,
                        None => m.undef(ctx.pointee[vi]),
                    });
                }
                // A terminator is never hoistable, so `set_operands` cannot refuse.
                let _ = m.set_operands(inst, &ops);
            }
            _ => {}
        }
    }
}

/// Removes created parameters that feed nothing but other dead created parameters.
fn prune_dead_params(m: &mut Module, created: &[InstId]) {
    let created_set: FxHashSet<InstId> = created.iter().copied().collect();
    // For each created parameter, the created parameters it is passed to.
    let mut feeds: FxHashMap<InstId, Vec<InstId>> = FxHashMap::default();
    let mut live: FxHashSet<InstId> = FxHashSet::default();
    let mut work: Vec<InstId> = Vec::new();
    for &p in created {
        let mut real_use = false;
        for u in m.uses(p) {
            let target_param = match (args_start(m.op(u.user)), u.slot) {
                (Some(start), Slot::Operand(i)) if i as usize >= start => {
                    let target = m.operand(u.user, 0);
                    Block::dyn_cast(m, target)
                        .and_then(|tb| tb.params(m).get(i as usize - start).map(|q| q.id()))
                }
                _ => None,
            };
            match target_param {
                Some(q) if created_set.contains(&q) => {
                    feeds.entry(p).or_default().push(q);
                }
                _ => real_use = true,
            }
        }
        if real_use {
            live.insert(p);
            work.push(p);
        }
    }
    // Reverse edges: a live parameter keeps alive every created parameter passed to it.
    let mut fed_by: FxHashMap<InstId, Vec<InstId>> = FxHashMap::default();
    for (p, qs) in &feeds {
        for q in qs {
            fed_by.entry(*q).or_default().push(*p);
        }
    }
    while let Some(q) = work.pop() {
        if let Some(ps) = fed_by.get(&q) {
            for &p in ps {
                if live.insert(p) {
                    work.push(p);
                }
            }
        }
    }
    let dead: Vec<InstId> = created
        .iter()
        .copied()
        .filter(|p| !live.contains(p))
        .collect();
    if dead.is_empty() {
        return;
    }
    // Their remaining uses are arguments of other dead parameters: detach them first.
    for &p in &dead {
        let Some(t) = m.ty(p) else { continue };
        let u = m.undef(t);
        for use_ in m.uses_snapshot(p) {
            if let Slot::Operand(i) = use_.slot {
                let _ = m.set_operand(use_.user, i as usize, u);
            }
        }
    }
    for &p in &dead {
        let Some(b) = m.block_of(p) else { continue };
        let Some(idx) = b.params(m).iter().position(|q| q.id() == p) else {
            continue;
        };
        let _ = remove_block_param(m, b, idx);
    }
}
