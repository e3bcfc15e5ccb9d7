//! Inlining: calls are replaced by a copy of the callee's body.
//!
//! **Order.** Functions are visited callee first (the call graph's bottom-up order,
//! [`oneshader_ir::analysis::CallGraph::bottom_up`]), so a callee has already received its own inlined calls when it is
//! copied. Calls inside one strongly connected component (recursion, direct or mutual) are left
//! alone.
//!
//! **What is inlined.** A call of a module-level function with a body, except: entry points
//! (never inlined into anything), functions with resource parameters (resource-parameter
//! specialization clones those first; see [`crate::specialize_resources`]), recursive calls,
//! and calls the growth cap refuses.
//!
//! **Growth cap.** A callee of more than [`InlineOptions::max_callee_insts`] instructions
//! (default 1000) is inlined only at its only call site; and no call is inlined into a caller
//! that has reached [`InlineOptions::max_caller_insts`] instructions (default 50 000, counting
//! what was inlined so far); nor once the calls inlined so far have added
//! [`InlineOptions::max_module_growth`] instructions to the module (default a million, or the
//! module's own size if larger). Counts are of instructions and terminators, not parameters.
//!
//! **Shapes.** The callee is cloned with [`crate::clone::Cloner`], its parameters mapped to the
//! call's arguments; its `var`s move to the caller's entry block. When the caller contains a
//! loop, those variables (and the result variable below) are set to `undef` at the call, so
//! each call starts with fresh ones as before and mem2reg does not carry one call's values
//! around the loop into the next (arrays too big for SROA are left out: that store would cost
//! memory traffic).
//! - A single-block callee is spliced in place: its instructions go before the call and the
//!   returned value replaces the call.
//! - A callee whose only `return` is not inside any structured construct is spliced directly:
//!   the calling block continues with the callee's entry, and the code after the call moves to
//!   the end of the returning block, where the returned value is available directly.
//! - Any other callee is wrapped in a run-once loop: `loop rh, break cont, continue rc` with
//!   `rh: br entry`, `rc: br rh` (never reached); each `return v` becomes a store of `v` to a
//!   result variable and a branch to `cont`, which loads it. A `return` inside one of the
//!   callee's own loops or switches cannot leave with a single branch (SPIR-V's structured
//!   rules allow breaking only out of the innermost loop or switch): it sets a flag variable
//!   and breaks the innermost loop or switch; each such construct's break/merge block first
//!   tests the flag and breaks outward in turn, to the next enclosing loop or switch of the
//!   callee or out of the run-once loop (`cond_br flag, target, rest` when the target is a
//!   loop's break, an `if_else` around a `br` when it is a switch's merge). Returns inside
//!   plain `if_else`s break the run-once loop directly. The loop carries a `run_once`
//!   decoration, so analyses tell it from the user's loops. Mem2reg later turns the variables into
//!   block parameters and CFG simplification removes the loop when it can.
//!
//! **Limits.** A call in a loop's continue block is inlined only when the callee is a single
//! block (a continue block must end in `br` to its header). A callee whose flag test would have
//! to sit in a loop header or continue block is not inlined.

use rustc_hash::{FxHashMap, FxHashSet};

use oneshader_ir::analysis::CallGraph;
use oneshader_ir::cfg::Cfg;
use oneshader_ir::debug_scopes::{Callee, Origin};
use oneshader_ir::{Block, Builder, Func, InsertPoint, InstId, Module, Op};

use crate::clone::Cloner;
use crate::specialize_resources::has_resource_params;
use oneshader_ir::constructs::{Construct, ConstructKind, Constructs};

use crate::split_edges::{is_loop_header, join_users, split_block_before};
use crate::{Pass, PassError};

const NAME: &str = "inline";

/// Limits of the inliner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InlineOptions {
    /// A callee bigger than this (instructions) is inlined only at its only call site.
    pub max_callee_insts: usize,
    /// No call is inlined into a caller that has grown to this many instructions.
    pub max_caller_insts: usize,
    /// Inlining adds at most this many instructions to the whole module, or as many as the
    /// module had before, whichever is larger. Each caller is capped by `max_caller_insts`,
    /// but a chain of functions each calling the next once copies ever larger bodies: without
    /// this bound, a chain of 10,000 two-instruction functions grew to 50 million
    /// instructions (8 GB).
    pub max_module_growth: usize,
}

impl Default for InlineOptions {
    fn default() -> Self {
        InlineOptions {
            max_callee_insts: 1000,
            max_caller_insts: 50_000,
            max_module_growth: 1_000_000,
        }
    }
}

/// The inlining pass (`inline`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Inline {
    /// The growth limits.
    pub options: InlineOptions,
}

impl Inline {
    /// An inliner with the given limits.
    pub fn with_options(options: InlineOptions) -> Inline {
        Inline { options }
    }
}

/// Where a `return` (or a flag test at a construct's join) branches to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Exit {
    /// The run-once loop's break block (the continuation after the call).
    Cont,
    /// The break/merge block of one of the callee's loops or switches.
    Join(Block, ConstructKind),
}

/// How a callee is inlined.
#[derive(Clone, Debug)]
enum Plan {
    /// One block ending in `return`.
    SingleBlock,
    /// One `return`, outside every construct.
    Direct(Block),
    /// No reachable `return` at all: the (unreachable) return blocks, whose copies end in
    /// `unreachable` (a callee's `return value` cannot stay in a caller of another type).
    NoReturn(Vec<Block>),
    /// Wrapped in a run-once loop.
    Wrapped {
        /// Every reachable return block and where it breaks to.
        returns: Vec<(Block, Exit)>,
        /// Joins that test the flag, and where they break to.
        checks: Vec<(Block, Exit)>,
        /// Unreachable return blocks (their `return` becomes `unreachable`).
        dead_returns: Vec<Block>,
    },
    /// Not inlinable.
    Refuse,
}

fn func_size(m: &Module, f: Func) -> usize {
    f.blocks(m)
        .iter()
        .map(|b| m.children(b.id()).filter(|&c| m.op(c) != Op::Param).count())
        .sum()
}

fn plan_callee(m: &Module, g: Func) -> Plan {
    let blocks = g.blocks(m);
    let returns: Vec<Block> = blocks
        .iter()
        .copied()
        .filter(|b| b.terminator(m).is_some_and(|t| m.op(t) == Op::Return))
        .collect();
    if blocks.len() == 1 && returns.len() == 1 {
        return Plan::SingleBlock;
    }
    let cfg = Cfg::new(m, g);
    let live: Vec<Block> = returns
        .iter()
        .copied()
        .filter(|&b| cfg.is_reachable(b))
        .collect();
    let dead_returns: Vec<Block> = returns
        .iter()
        .copied()
        .filter(|&b| !cfg.is_reachable(b))
        .collect();
    let cons = Constructs::new(m, g);
    if live.is_empty() {
        return Plan::NoReturn(dead_returns);
    }
    if live.len() == 1 && dead_returns.is_empty() && cons.innermost(live[0]).is_none() {
        return Plan::Direct(live[0]);
    }
    let breakable = |c: &Construct| matches!(c.kind, ConstructKind::Loop | ConstructKind::Switch);
    let exit_of = |k: Option<usize>| match k {
        Some(k) => {
            let c = cons.get(k);
            Exit::Join(c.join, c.kind)
        }
        None => Exit::Cont,
    };
    let mut ret_exits: Vec<(Block, Exit)> = Vec::new();
    let mut pending: Vec<(Block, usize)> = Vec::new();
    for &r in &live {
        let k = cons.innermost_where(r, breakable);
        ret_exits.push((r, exit_of(k)));
        if let Some(k) = k {
            pending.push((cons.get(k).join, k));
        }
    }
    let mut checks: Vec<(Block, Exit)> = Vec::new();
    let mut seen: FxHashSet<InstId> = FxHashSet::default();
    while let Some((j, k)) = pending.pop() {
        if !seen.insert(j.id()) {
            continue;
        }
        if is_loop_header(m, j)
            || Some(j) == g.entry(m)
            || join_users(m, j)
                .iter()
                .any(|&t| m.op(t) == Op::Loop && m.operand(t, 2) == j.id())
        {
            return Plan::Refuse;
        }
        let next = if cfg.is_reachable(j) {
            cons.innermost_where(j, breakable)
        } else {
            // An unreachable join (e.g. the break of a `while (true)`) lies in the constructs
            // around the one it ends.
            let mut cur = cons.get(k).parent;
            while let Some(p) = cur {
                let c = cons.get(p);
                if breakable(c) && c.join != j {
                    break;
                }
                cur = c.parent;
            }
            cur
        };
        checks.push((j, exit_of(next)));
        if let Some(n) = next {
            pending.push((cons.get(n).join, n));
        }
    }
    Plan::Wrapped {
        returns: ret_exits,
        checks,
        dead_returns,
    }
}

impl Pass for Inline {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        let cg = CallGraph::new(m);
        let mut sizes: FxHashMap<InstId, usize> = cg
            .functions()
            .iter()
            .filter(|f| !f.is_declaration(m))
            .map(|&f| (f.id(), func_size(m, f)))
            .collect();
        let budget = (self.options.max_module_growth).max(sizes.values().sum());
        let mut added = 0usize;
        let mut plans: FxHashMap<InstId, Plan> = FxHashMap::default();
        let mut inlined: Vec<Func> = Vec::new();
        let mut changed = false;
        for f in cg.bottom_up() {
            // Computed once per caller: inlined bodies never hold a call still to inline
            // (callees come first), so their loops do not matter for the calls of `f`.
            let calls: Vec<InstId> = f
                .blocks(m)
                .iter()
                .flat_map(|b| m.children(b.id()))
                .filter(|&c| m.op(c) == Op::Call)
                .collect();
            if calls.is_empty() {
                continue;
            }
            let mut ctx = CallerCtx {
                has_loops: has_loops(m, f),
                last_var: None,
            };
            for call in calls {
                if !m.contains(call) {
                    continue;
                }
                let Some(g) = Func::dyn_cast(m, m.operand(call, 0)) else {
                    continue;
                };
                if cg.component(g) == cg.component(f)
                    || g.is_declaration(m)
                    || m.has_decoration(g.id(), Op::EntryPoint)
                    || has_resource_params(m, g)
                {
                    continue;
                }
                let gsize = sizes.get(&g.id()).copied().unwrap_or(0);
                let fsize = sizes.get(&f.id()).copied().unwrap_or(0);
                let sites = cg.call_sites(g).len();
                if (gsize > self.options.max_callee_insts && sites > 1)
                    || fsize >= self.options.max_caller_insts
                    || added + gsize > budget
                {
                    continue;
                }
                let plan = plans
                    .entry(g.id())
                    .or_insert_with(|| plan_callee(m, g))
                    .clone();
                if inline_call(m, f, call, g, &plan, &mut ctx)? {
                    *sizes.entry(f.id()).or_default() += gsize;
                    added += gsize;
                    if !inlined.contains(&g) {
                        inlined.push(g);
                    }
                    changed = true;
                }
            }
        }
        // Functions whose every call was inlined are no longer needed.
        for g in inlined {
            if m.contains(g.id())
                && !m.has_uses(g.id())
                && !m.has_decoration(g.id(), Op::Export)
                && !m.has_decoration(g.id(), Op::EntryPoint)
            {
                let _ = m.remove(g.id());
            }
        }
        Ok(changed)
    }
}

/// What the inliner remembers about the caller it is working on.
struct CallerCtx {
    /// The caller contains a loop (hoisted variables are then reset at each call).
    has_loops: bool,
    /// The last `var` placed at the top of the caller's entry block (the next goes after it).
    last_var: Option<InstId>,
}

/// True when `b` is the continue block of some loop.
fn is_continue_block(m: &Module, b: Block) -> bool {
    join_users(m, b)
        .iter()
        .any(|&t| m.op(t) == Op::Loop && m.operand(t, 2) == b.id())
}

/// True when `f` contains a loop.
fn has_loops(m: &Module, f: Func) -> bool {
    f.blocks(m)
        .iter()
        .any(|b| b.terminator(m).is_some_and(|t| m.op(t) == Op::Loop))
}

/// Emits `store v, undef` before `anchor`, unless `v` holds an array too big for SROA (a
/// store of it would cost real memory traffic and mem2reg could not remove it).
fn store_undef_before(m: &mut Module, v: InstId, anchor: InstId) {
    let Some(pointee) = m.ty(v).and_then(|t| m.pointee(t)) else {
        return;
    };
    if m.array_len(pointee)
        .is_some_and(|n| n > crate::sroa::MAX_ARRAY_ELEMENTS)
        || m.op(pointee) == Op::RuntimeArray
    {
        return;
    }
    let u = m.undef(pointee);
    let mut b = Builder::new(m);
    b.position_before(anchor);
    b.store(v, u);
}

/// Moves `var`s from the blocks `from` to the top of `f`'s entry block (after its other
/// leading `var`s); returns them.
fn hoist_vars(m: &mut Module, f: Func, from: &[Block], ctx: &mut CallerCtx) -> Vec<InstId> {
    let Some(entry) = f.entry(m) else {
        return Vec::new();
    };
    let mut vars: Vec<InstId> = Vec::new();
    for &b in from {
        if b == entry || !m.contains(b.id()) {
            continue;
        }
        for c in m.children(b.id()) {
            if m.op(c) == Op::Var {
                vars.push(c);
            }
        }
    }
    for &v in &vars {
        place_var(m, entry, v, ctx);
    }
    vars
}

/// Puts `v` at the top of `entry`, after its parameters and leading `var`s (after the last
/// one placed, without scanning again).
fn place_var(m: &mut Module, entry: Block, v: InstId, ctx: &mut CallerCtx) {
    if let Some(last) = ctx.last_var
        && last != v
        && m.contains(last)
        && m.parent(last) == Some(entry.id())
    {
        m.move_after(v, last);
        ctx.last_var = Some(v);
        return;
    }
    let anchor = m
        .children(entry.id())
        .find(|&c| c != v && m.op(c) != Op::Param && m.op(c) != Op::Var);
    match anchor {
        Some(a) => m.move_before(v, a),
        None => m.move_to_end(v, entry.id()),
    }
    ctx.last_var = Some(v);
}

/// A new `var` of `ty` at the top of `f`'s entry block.
fn new_var(m: &mut Module, f: Func, ty: InstId, name: &str, ctx: &mut CallerCtx) -> Option<InstId> {
    let entry = f.entry(m)?;
    let v = {
        let mut b = Builder::new(m);
        b.set_point(InsertPoint::Detached);
        b.var(ty)
    };
    m.move_to_end(v, entry.id());
    place_var(m, entry, v, ctx);
    m.set_name(v, Some(name));
    Some(v)
}

/// The copies of `g`'s instructions in `blocks` (inlined at `call`) are in `g`'s debug scopes
/// re-rooted at the call (see `oneshader_ir::debug_scopes`): `g`'s own body becomes a scope
/// inlined at the call's position and scope, its blocks and inlined calls nest below it.
fn reroot_scopes(m: &mut Module, g: Func, call: InstId, blocks: &[Block]) {
    let Some(at) = m.origin(call) else { return };
    let callee = Callee {
        func: g.id(),
        name: m.name(g.id()).unwrap_or("function").to_string(),
        declared: m.position(g.id()),
        ty: m.ty(g.id()),
    };
    let mut map = FxHashMap::default();
    for b in blocks {
        for i in m.children_snapshot(b.id()) {
            if let Some(o) = m.origin(i) {
                let scope = m.reroot_debug_scope(o.scope, &callee, at, &mut map);
                m.set_origin(i, Some(Origin { scope, ..o }));
            }
            let mut vars = m.debug_variables(i).to_vec();
            if !vars.is_empty() {
                for v in &mut vars {
                    v.scope = m.reroot_debug_scope(v.scope, &callee, at, &mut map);
                }
                m.set_debug_variables(i, vars);
            }
        }
    }
}

/// Inlines `call` (in `f`) of `g` according to `plan`; returns false when the call is left.
/// The callee's copies keep their own positions; the glue made from nothing (branches into
/// and out of the copy, the result's plumbing) takes the call's.
fn inline_call(
    m: &mut Module,
    f: Func,
    call: InstId,
    g: Func,
    plan: &Plan,
    ctx: &mut CallerCtx,
) -> Result<bool, PassError> {
    let outer = m.position_from(call);
    let r = inline_call_here(m, f, call, g, plan, ctx);
    m.set_current_origin(outer);
    r
}

/// [`inline_call`] with the current position set.
fn inline_call_here(
    m: &mut Module,
    f: Func,
    call: InstId,
    g: Func,
    plan: &Plan,
    ctx: &mut CallerCtx,
) -> Result<bool, PassError> {
    let Some(b) = m.block_of(call) else {
        return Ok(false);
    };
    if matches!(plan, Plan::Refuse) {
        return Ok(false);
    }
    let in_continue = is_continue_block(m, b);
    if in_continue && !matches!(plan, Plan::SingleBlock) {
        return Ok(false);
    }
    let args: Vec<InstId> = m.operands(call).skip(1).collect();
    let params = g.params(m);
    if params.len() != args.len() {
        return Ok(false);
    }
    let fresh = ctx.has_loops;
    let mut cloner = Cloner::new();
    for (p, &a) in params.iter().zip(&args) {
        cloner.insert(p.id(), a);
    }
    let src_blocks = g.blocks(m);
    let new_blocks = cloner
        .clone_blocks(m, &src_blocks, f, Some(b))
        .map_err(|e| PassError::new(NAME, e.to_string()))?;
    reroot_scopes(m, g, call, &new_blocks);
    let entry_clone = new_blocks[0];
    let last_clone = *new_blocks.last().unwrap_or(&entry_clone);
    let call_ty = m.ty(call);
    let has_result = call_ty.is_some_and(|t| m.op(t) != Op::Void);
    let hoisted = hoist_vars(m, f, &new_blocks, ctx);
    // Each call gets fresh variables: when the caller loops, reset the hoisted ones to `undef`
    // at the call so mem2reg does not carry one call's values around the loop into the next.
    if fresh {
        for &v in &hoisted {
            store_undef_before(m, v, call);
        }
    }
    let header_b = is_loop_header(m, b);
    match plan {
        Plan::Refuse => return Ok(false),
        Plan::SingleBlock => {
            let term = entry_clone.terminator(m);
            let ret_val = term.and_then(|t| m.try_operand(t, 0));
            for c in m.children_snapshot(entry_clone.id()) {
                if Some(c) == term {
                    continue;
                }
                m.move_before(c, call);
            }
            finish_call(m, call, has_result.then_some(ret_val).flatten());
            if let Some(t) = term {
                let _ = m.remove(t);
            }
            let _ = m.remove(entry_clone.id());
        }
        Plan::Direct(r) => {
            let r = mapped(m, &cloner, *r);
            let rest_first = m.next_sibling(call);
            let ret = r.terminator(m);
            let ret_val = ret.and_then(|t| m.try_operand(t, 0));
            if let Some(t) = ret {
                let _ = m.remove(t);
            }
            move_rest(m, rest_first, r);
            finish_call(m, call, has_result.then_some(ret_val).flatten());
            enter_body(m, b, entry_clone, header_b);
        }
        Plan::NoReturn(dead_returns) => {
            for &r in dead_returns {
                let r = mapped(m, &cloner, r);
                if let Some(t) = r.terminator(m) {
                    let _ = m.remove(t);
                }
                Builder::at_end(m, r).unreachable();
            }
            let rest_first = m.next_sibling(call);
            let u = m.add_block_after(last_clone);
            move_rest(m, rest_first, u);
            let undef = if has_result {
                m.ty(call).map(|t| m.undef(t))
            } else {
                None
            };
            finish_call(m, call, undef);
            enter_body(m, b, entry_clone, header_b);
        }
        Plan::Wrapped {
            returns,
            checks,
            dead_returns,
        } => {
            let gname = m.name(g.id()).unwrap_or("callee").to_string();
            let result_var = if has_result {
                let ty = m.ty(call).unwrap_or_else(|| m.root());
                new_var(m, f, ty, &format!("{gname}.result"), ctx)
            } else {
                None
            };
            let flag = if checks.is_empty() {
                None
            } else {
                let bt = m.bool_type();
                new_var(m, f, bt, &format!("{gname}.returned"), ctx)
            };
            // Blocks: [b] (-> p) -> rh -> clones..., rc, cont.
            let pre = if header_b { m.add_block_after(b) } else { b };
            let rh = m.add_block_after(pre);
            let rc = m.add_block_after(last_clone);
            let cont = m.add_block_after(rc);
            let rest_first = m.next_sibling(call);
            move_rest(m, rest_first, cont);
            // The result.
            let result = match result_var {
                Some(rv) => {
                    let first = m.first_child(cont.id());
                    let mut bld = Builder::new(m);
                    match first {
                        Some(fc) => bld.position_before(fc),
                        None => bld.position_at_end(cont),
                    }
                    Some(bld.load(rv))
                }
                None => None,
            };
            finish_call(m, call, result);
            if pre != b {
                Builder::at_end(m, b).br(pre, &[]);
            }
            if let (Some(rv), true, Some(ty)) = (result_var, fresh, call_ty) {
                let u = m.undef(ty);
                Builder::at_end(m, pre).store(rv, u);
            }
            {
                let mut bld = Builder::at_end(m, pre);
                if let Some(fl) = flag {
                    let f0 = bld.m.const_bool(false);
                    bld.store(fl, f0);
                }
                let lp = bld.loop_(rh, cont, rc, &[]);
                // Marked so analyses tell this wrapper from the user's loops.
                bld.m.decorate(lp, Op::RunOnce, &[]);
            }
            Builder::at_end(m, rh).br(entry_clone, &[]);
            Builder::at_end(m, rc).br(rh, &[]);
            // Returns become stores and breaks.
            for &(r, exit) in returns {
                let r = mapped(m, &cloner, r);
                let Some(t) = r.terminator(m) else { continue };
                let v = m.try_operand(t, 0);
                let _ = m.remove(t);
                let mut bld = Builder::at_end(m, r);
                if let (Some(rv), Some(v)) = (result_var, v) {
                    bld.store(rv, v);
                }
                match exit {
                    Exit::Cont => {
                        bld.br(cont, &[]);
                    }
                    Exit::Join(j, _) => {
                        if let Some(fl) = flag {
                            let t1 = bld.m.const_bool(true);
                            bld.store(fl, t1);
                        }
                        let j = mapped(bld.m, &cloner, j);
                        let undefs = undef_args(bld.m, j);
                        bld.br(j, &undefs);
                    }
                }
            }
            for &r in dead_returns {
                let r = mapped(m, &cloner, r);
                if let Some(t) = r.terminator(m) {
                    let _ = m.remove(t);
                }
                Builder::at_end(m, r).unreachable();
            }
            // Flag tests at the joins of the callee's loops and switches.
            for &(j, exit) in checks {
                let Some(fl) = flag else { break };
                let j = mapped(m, &cloner, j);
                let first = m
                    .children(j.id())
                    .find(|&c| m.op(c) != Op::Param && !m.op(c).is_decoration());
                let Some(first) = first else { continue };
                let rest = split_block_before(m, j, first);
                let (target, kind) = match exit {
                    Exit::Cont => (cont, ConstructKind::Loop),
                    Exit::Join(t, k) => (mapped(m, &cloner, t), k),
                };
                let flag_val = Builder::at_end(m, j).load(fl);
                if kind == ConstructKind::Loop && target.params(m).is_empty() {
                    Builder::at_end(m, j).cond_br(flag_val, target, rest);
                } else {
                    let tb = m.add_block_after(j);
                    let undefs = undef_args(m, target);
                    Builder::at_end(m, tb).br(target, &undefs);
                    Builder::at_end(m, j).if_else(flag_val, tb, rest, rest);
                }
            }
        }
    }
    Ok(true)
}

/// The clone of callee block `blk`: every block of the callee was cloned, and the cloner maps
/// a block to the new block it created.
fn mapped(m: &Module, cloner: &Cloner<'_>, blk: Block) -> Block {
    cloner
        .get(blk.id())
        .and_then(|b| Block::dyn_cast(m, b))
        .unwrap_or(blk)
}

/// `undef` arguments for every parameter of `b`.
fn undef_args(m: &mut Module, b: Block) -> Vec<InstId> {
    b.params(m)
        .iter()
        .map(|p| {
            // Parameters always have a type.
            let t = m.ty(p.id()).unwrap_or_else(|| m.root());
            m.undef(t)
        })
        .collect()
}

/// Moves the instructions from `first` to the end of its block into `to`.
fn move_rest(m: &mut Module, first: Option<InstId>, to: Block) {
    let mut cur = first;
    while let Some(c) = cur {
        cur = m.next_sibling(c);
        m.move_to_end(c, to.id());
    }
}

/// Replaces the call's uses by `value` (or `undef` when none) and removes it.
fn finish_call(m: &mut Module, call: InstId, value: Option<InstId>) {
    if m.has_uses(call) {
        let v = match value {
            Some(v) => v,
            None => {
                let t = m.ty(call).unwrap_or_else(|| m.root());
                m.undef(t)
            }
        };
        m.replace_uses_with(call, v);
    }
    // Its uses were replaced; a call has no children but decorations.
    let _ = m.remove(call);
}

/// Ends `b` by entering the cloned entry block: folds it into `b`, or branches to it when `b`
/// is a loop header (which must keep ending in `br`).
fn enter_body(m: &mut Module, b: Block, entry_clone: Block, b_is_header: bool) {
    if b_is_header || !join_users(m, entry_clone).is_empty() {
        Builder::at_end(m, b).br(entry_clone, &[]);
        return;
    }
    for c in m.children_snapshot(entry_clone.id()) {
        m.move_to_end(c, b.id());
    }
    // Empty now, and never a branch target (it was the callee's entry block).
    let _ = m.remove(entry_clone.id());
}
