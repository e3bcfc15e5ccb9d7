//! Full unrolling of loops marked `unroll` (HLSL `[unroll]`, `[unroll(n)]`) whose trip count
//! the compiler can compute.
//!
//! HLSL code relies on it for more than speed: a texel offset must be a constant
//! (`Sample(s, uv, int2(i, 0))` in an `[unroll]` loop over `i` is the usual blur or PCF
//! kernel), and Vulkan refuses a run-time offset on anything but a gather (`OSB0013`).
//!
//! **Which loops.** A `loop h(args), break x, continue c` decorated `unroll(n)` where:
//! - the header `h` ends in `cond_br` with the break block `x` as one target; other edges to
//!   `x` (`break`s) come from blocks whose innermost loop is this one;
//! - `h` is entered only from the `loop` and from `c`, which ends in `br h(...)`; `continue`s
//!   (edges to `c` from inside nested selections) come from blocks whose innermost loop is
//!   this one, and a loop does not have both `continue`s and `break`s;
//! - values defined in the loop are used outside it only if the header defines them (what
//!   dominates the break block);
//! - the trip count is found by evaluating the header and the continue block with the loop's
//!   initial arguments, with the folder's exact semantics (instructions whose operands are not
//!   all known are unknown; the branch condition must be known at every iteration), is at
//!   most [`MAX_TRIPS`], at most `n` when `n` is not 0, and the unrolled code stays under
//!   [`MAX_UNROLLED_INSTS`] instructions, and the function under [`MAX_FUNCTION_INSTS`].
//!
//! Other loops are left as they are (the backend then keeps the `Unroll` loop control hint).
//!
//! **Shape.** Iteration `k` is a copy of the loop's blocks with the header's parameters
//! replaced by the values of iteration `k - 1`'s continue block (the loop's arguments for the
//! first); the header's `cond_br` becomes a `br` into the body, the continue block's branch
//! back a `br` to the next copy. A last copy of the header alone ends in `br x`: its values
//! are what the code after the loop sees. Constant folding and CFG simplification then merge
//! the straight line.
//!
//! **Breaks.** A loop with `break`s keeps a run-once loop around the copies (`loop h0, break x,
//! continue c` with `c: br h0` unreachable), so that each copied `break` is still a structured
//! exit of its innermost loop; the header's values the code after the loop uses become
//! parameters of `x`, each edge into `x` passing its copy's values (a conditional edge through
//! a new block, as edges with arguments must be unconditional). CFG simplification removes the
//! run-once loop when no break is left.
//!
//! **Continues.** A loop whose body reaches the continue block other than by one plain edge
//! (`if (c) continue;`) gets a run-once loop per copy instead: the copy's header ends in
//! `loop w, break c_k, continue r` (`w: br body_k`, `r: br w` unreachable), so each copied
//! `continue` is a break of it to the copy's continue block.
//!
//! Both kinds of run-once loop carry a `run_once` decoration, so analyses tell them from the
//! user's loops.

use rustc_hash::{FxHashMap, FxHashSet};

use oneshader_ir::cfg::Cfg;
use oneshader_ir::{Block, Func, InstId, Module, Op};

use crate::clone::Cloner;
use crate::value::{self, Value, known_constant};
use oneshader_ir::constructs::Constructs;

use crate::analyses::FunctionAnalyses;
use crate::split_edges::{
    clear_block, edge_args, incoming_edges, replace_terminator, split_edges_to,
};
use crate::{FunctionPass, Pass, PassError, run_per_function};

const NAME: &str = "unroll";

/// Most iterations a loop is unrolled into.
pub const MAX_TRIPS: usize = 1024;

/// Most instructions the copies of one loop may hold (trip count times loop size).
pub const MAX_UNROLLED_INSTS: usize = 16_384;

/// Most instructions a function may reach through unrolling: nested loops are unrolled one
/// after the other (the copies of an outer loop hold inner loops, each then unrolled within
/// [`MAX_UNROLLED_INSTS`]), so without this bound 1024 copies of a 1024-trip inner loop would
/// make millions.
pub const MAX_FUNCTION_INSTS: usize = 65_536;

/// The `unroll` pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct Unroll;

impl Pass for Unroll {
    fn name(&self) -> &'static str {
        NAME
    }

    /// Each run unrolls until no loop qualifies, so a second run finds nothing.
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

/// Unrolling rewrites the control flow; the pass manager drops the function's analyses after
/// a run that changed it.
impl FunctionPass for Unroll {
    fn run_on_function(
        &mut self,
        m: &mut Module,
        f: Func,
        _analyses: &mut FunctionAnalyses,
    ) -> Result<bool, PassError> {
        let mut changed = false;
        // Selections merging into a loop's continue or break block share that block with
        // the loop; copies of the body need merges of their own, so they get them first (as
        // legalization would).
        if has_unroll_loop(m, f) {
            changed |= crate::own_merges::own_merges(m, f) > 0;
        }
        // One loop at a time, outermost first: the copies of an outer loop hold copies of its
        // inner loops, whose trip counts may depend on the outer loop's variable. Every
        // unrolled loop is gone afterwards, so this ends.
        while let Some(plan) = find_loop(m, f) {
            apply(m, f, &plan)?;
            changed = true;
        }
        Ok(changed)
    }
}

/// A loop to unroll.
struct Plan {
    /// The block ending in the `loop`.
    pre: Block,
    header: Block,
    exit: Block,
    cont: Block,
    /// The first block of the body (the header's target other than `exit`).
    body: Block,
    /// The loop's blocks in function order (header and continue block included).
    blocks: Vec<Block>,
    /// Terminators in the loop, other than the header's, that branch to `exit`.
    breaks: Vec<InstId>,
    /// Each copy of the body sits in a run-once loop that its `continue`s break out of.
    wrap_body: bool,
    trips: usize,
}

/// One warning (OSO0004) per loop of `m` that still carries its `unroll` hint: after the
/// optimizer has run, these are the `[unroll]` loops it could not unroll (a trip count not
/// known at compile time, a shape it does not handle, or a copy past the size bounds). The
/// hint stays in the output (SPIR-V's `Unroll` loop control) for the driver; the warning,
/// at the loop's HLSL position, says the compiler did not do it.
pub fn not_unrolled(m: &Module) -> Vec<oneshader_ir::Diagnostic> {
    let mut out = Vec::new();
    for f in m.functions() {
        for b in f.blocks(m) {
            let Some(t) = b.terminator(m) else { continue };
            if m.op(t) == Op::Loop && m.has_decoration(t, Op::Unroll) {
                let d = oneshader_ir::Diagnostic::warning(
                    "OSO0004",
                    "`[unroll]` loop was not unrolled (its trip count is not known at \
                         compile time, its shape is not one the unroller handles, or the copies \
                         would exceed the size bounds); the hint is passed on to the driver",
                )
                .at_inst(m, t);
                // A function inlined twice copies its loop: one warning per source loop.
                if !out
                    .iter()
                    .any(|o: &oneshader_ir::Diagnostic| o.span == d.span)
                {
                    out.push(d);
                }
            }
        }
    }
    out
}

/// True when `f` has a loop marked `unroll`: one look at the terminators, no CFG.
fn has_unroll_loop(m: &Module, f: Func) -> bool {
    f.blocks(m).iter().any(|b| {
        b.terminator(m)
            .is_some_and(|t| m.op(t) == Op::Loop && m.has_decoration(t, Op::Unroll))
    })
}

fn find_loop(m: &Module, f: Func) -> Option<Plan> {
    // Most functions have no `unroll` loop.
    if !has_unroll_loop(m, f) {
        return None;
    }
    let cfg = Cfg::new(m, f);
    let size: usize = cfg
        .blocks()
        .iter()
        .map(|b| m.children(b.id()).count())
        .sum();
    let room = MAX_FUNCTION_INSTS.saturating_sub(size);
    let mut cons: Option<Constructs> = None;
    for b in cfg.rpo() {
        let Some(t) = b.terminator(m) else { continue };
        if m.op(t) != Op::Loop || !m.has_decoration(t, Op::Unroll) {
            continue;
        }
        let cons = cons.get_or_insert_with(|| Constructs::new(m, f));
        if let Some(plan) = analyze(m, cons, b, t, room) {
            return Some(plan);
        }
    }
    None
}

fn analyze(m: &Module, cons: &Constructs, pre: Block, term: InstId, room: usize) -> Option<Plan> {
    let limit = m
        .find_decoration(term, Op::Unroll)
        .and_then(|d| m.imm_operand(d, 0))
        .unwrap_or(0) as usize;
    let header = Block::dyn_cast(m, m.operand(term, 0))?;
    let exit = Block::dyn_cast(m, m.operand(term, 1))?;
    let cont = Block::dyn_cast(m, m.operand(term, 2))?;
    let ht = header.terminator(m)?;
    if m.op(ht) != Op::CondBr {
        return None;
    }
    let (on_true, on_false) = (m.operand(ht, 1), m.operand(ht, 2));
    let (body, continue_when) = match (on_true == exit.id(), on_false == exit.id()) {
        (false, true) => (on_true, true),
        (true, false) => (on_false, false),
        _ => return None,
    };
    let body = Block::dyn_cast(m, body)?;
    let k = cons.index_of_term(term)?;
    let mut breaks: Vec<InstId> = Vec::new();
    for e in incoming_edges(m, exit) {
        if e.term == ht || breaks.contains(&e.term) {
            continue;
        }
        let src = m.parent(e.term).and_then(|p| Block::dyn_cast(m, p))?;
        if cons.innermost_loop(src) != Some(k) {
            return None;
        }
        breaks.push(e.term);
    }
    let ct = cont.terminator(m)?;
    if m.op(ct) != Op::Br || m.operand(ct, 0) != header.id() {
        return None;
    }
    if incoming_edges(m, header)
        .iter()
        .any(|e| e.term != term && e.term != ct)
    {
        return None;
    }
    // How the body reaches the continue block. Plainly: one `br` from a block directly in the
    // loop, or one `cond_br` whose other target is the break block (`if (c) break;` ending the
    // body, a structured break of the run-once loop around the copies). Otherwise (`continue`
    // statements: several edges, or edges from inside nested selections) each copy of the
    // body gets a run-once loop of its own, whose break block is the copy's continue block;
    // a `break` would then leave two loops, so loops with both stay loops.
    let into_cont = incoming_edges(m, cont);
    let plain = match into_cont.as_slice() {
        [edge] => {
            let from = m.parent(edge.term).and_then(|p| Block::dyn_cast(m, p))?;
            cons.innermost(from) == Some(k)
                && (m.op(edge.term) == Op::Br || breaks.contains(&edge.term))
        }
        _ => false,
    };
    if !plain {
        if !breaks.is_empty() || into_cont.is_empty() {
            return None;
        }
        for e in &into_cont {
            let from = m.parent(e.term).and_then(|p| Block::dyn_cast(m, p))?;
            if cons.innermost_loop(from) != Some(k) {
                return None;
            }
        }
    }
    // The loop's blocks: what the header dominates and the break block does not, by
    // structural dominance (so merges no path reaches, which selections inside still name,
    // are copied with the body).
    let scfg = cons.cfg();
    let blocks: Vec<Block> = scfg
        .blocks()
        .iter()
        .copied()
        .filter(|&b| scfg.is_reachable(b) && scfg.dominates(header, b) && !scfg.dominates(exit, b))
        .collect();
    if !blocks.contains(&cont) || !blocks.contains(&body) {
        return None;
    }
    let inside: FxHashSet<InstId> = blocks.iter().map(|b| b.id()).collect();
    let mut size = 0usize;
    for &b in &blocks {
        // Entered only from inside (the header also from the `loop`, checked above).
        if b != header
            && incoming_edges(m, b).iter().any(|e| {
                m.parent(e.term)
                    .is_none_or(|p| !inside.contains(&p) && p != pre.id())
            })
        {
            return None;
        }
        for i in m.children(b.id()) {
            size += 1;
            if b == header {
                continue;
            }
            let used_outside = m.uses(i).any(|u| {
                m.block_of(u.user)
                    .is_none_or(|ub| !inside.contains(&ub.id()))
            });
            if used_outside {
                return None;
            }
        }
    }
    let args = edge_args(m, term);
    let mut ev = Evaluator {
        m,
        inside: &inside,
        outside: FxHashMap::default(),
    };
    let trips = trip_count(&mut ev, header, cont, ht, continue_when, &args)?;
    let copies = trips.saturating_mul(size);
    if (limit != 0 && trips > limit) || copies > MAX_UNROLLED_INSTS || copies > room {
        return None;
    }
    Some(Plan {
        pre,
        header,
        exit,
        cont,
        body,
        blocks,
        breaks,
        wrap_body: !plain,
        trips,
    })
}

/// How deep the evaluator follows a value computed before the loop (a bound such as
/// `%i + 2` where `%i` is an outer loop's copied variable) back to constants.
const MAX_DEPTH: u32 = 64;

/// Evaluates a loop's instructions for its trip count, with the folder's exact semantics: a
/// value is known when it is a constant, was computed by an earlier step of this iteration, or
/// is computed before the loop from known values; instructions the folder would not fold
/// (not exact) or cannot (loads, calls, ...) give unknown values.
struct Evaluator<'a> {
    m: &'a Module,
    /// The loop's blocks: their values are known only through `env`.
    inside: &'a FxHashSet<InstId>,
    /// Values computed before the loop (the same at every iteration).
    outside: FxHashMap<InstId, Option<Value>>,
}

impl Evaluator<'_> {
    fn value(&mut self, env: &FxHashMap<InstId, Value>, v: InstId, depth: u32) -> Option<Value> {
        if let Some(x) = env.get(&v) {
            return Some(x.clone());
        }
        if let Some(c) = known_constant(self.m, v) {
            return Some(c);
        }
        let b = self.m.block_of(v)?;
        if self.inside.contains(&b.id()) || depth == 0 {
            return None;
        }
        if let Some(r) = self.outside.get(&v) {
            return r.clone();
        }
        let r = self.fold(env, v, depth - 1);
        self.outside.insert(v, r.clone());
        r
    }

    /// The value of instruction `i` from its operands' values.
    fn fold(&mut self, env: &FxHashMap<InstId, Value>, i: InstId, depth: u32) -> Option<Value> {
        let m = self.m;
        let op = m.op(i);
        if !op.is_instruction() || op.is_terminator() || op == Op::Param {
            return None;
        }
        let operands: Vec<InstId> = m.operands(i).collect();
        let mut ops: Vec<Value> = Vec::with_capacity(operands.len());
        for o in operands {
            ops.push(self.value(env, o, depth)?);
        }
        let folded = match (op, ops.as_slice()) {
            (Op::Convert, [a]) => m.ty(i).and_then(|t| value::convert_value(m, a, t).ok()),
            _ => value::operator_value(op, &ops).and_then(Result::ok),
        };
        match folded {
            Some((v, true)) => Some(v),
            _ => None,
        }
    }

    /// Evaluates the instructions of loop block `b` in order into `env`.
    fn block(&mut self, b: Block, env: &mut FxHashMap<InstId, Value>) {
        for i in self.m.children(b.id()) {
            if let Some(v) = self.fold(env, i, MAX_DEPTH) {
                env.insert(i, v);
            }
        }
    }
}

/// How many times the body runs, from the loop's initial arguments; `None` when a condition
/// is unknown or the count passes [`MAX_TRIPS`].
fn trip_count(
    ev: &mut Evaluator<'_>,
    header: Block,
    cont: Block,
    ht: InstId,
    continue_when: bool,
    init: &[InstId],
) -> Option<usize> {
    let m = ev.m;
    let params: Vec<InstId> = header.params(m).iter().map(|p| p.id()).collect();
    if params.len() != init.len() {
        return None;
    }
    let empty = FxHashMap::default();
    let mut cur: Vec<Option<Value>> = init
        .iter()
        .map(|&a| ev.value(&empty, a, MAX_DEPTH))
        .collect();
    let ct = cont.terminator(m)?;
    let next = edge_args(m, ct);
    for k in 0..=MAX_TRIPS {
        let mut env: FxHashMap<InstId, Value> = FxHashMap::default();
        for (p, v) in params.iter().zip(&cur) {
            if let Some(v) = v {
                env.insert(*p, v.clone());
            }
        }
        ev.block(header, &mut env);
        let Some(Value::Scalar(_, bits)) = ev.value(&env, m.operand(ht, 0), MAX_DEPTH) else {
            return None;
        };
        if (bits != 0) != continue_when {
            return Some(k);
        }
        // The continue block sees the header's values; body values stay unknown.
        ev.block(cont, &mut env);
        cur = next.iter().map(|&a| ev.value(&env, a, MAX_DEPTH)).collect();
    }
    None
}

fn clone_error(e: crate::clone::CloneError) -> PassError {
    PassError::new(NAME, format!("copying a loop body failed: {e}"))
}

/// The copy of block `b` the cloner made.
fn mapped(m: &Module, cl: &Cloner<'_>, b: Block) -> Result<Block, PassError> {
    cl.get(b.id())
        .and_then(|id| Block::dyn_cast(m, id))
        .ok_or_else(|| PassError::new(NAME, "a copied block is missing"))
}

fn apply(m: &mut Module, f: Func, p: &Plan) -> Result<(), PassError> {
    let params: Vec<InstId> = p.header.params(m).iter().map(|x| x.id()).collect();
    let header_insts: Vec<InstId> = m
        .children(p.header.id())
        .filter(|&i| {
            let op = m.op(i);
            op != Op::Param && op.is_instruction() && !op.is_terminator()
        })
        .collect();
    // The header's values that code after the loop uses (only the header's can be: it
    // dominates the break block and no other block of the loop does).
    let inside: FxHashSet<InstId> = p.blocks.iter().map(|b| b.id()).collect();
    let live_out: Vec<InstId> = params
        .iter()
        .chain(&header_insts)
        .copied()
        .filter(|&v| {
            m.uses(v).any(|u| {
                m.block_of(u.user)
                    .is_none_or(|ub| !inside.contains(&ub.id()))
            })
        })
        .collect();
    let loop_term = p
        .pre
        .terminator(m)
        .ok_or_else(|| PassError::new(NAME, "the loop's block lost its terminator"))?;
    let mut args = edge_args(m, loop_term);
    let mut prev = p.pre;
    let mut first: Option<Block> = None;
    // The continue block of the previous copy, to be pointed at the next header.
    let mut pending: Option<Block> = None;
    // Every edge into the break block (its terminator) and the live-out values along it.
    let mut exits: Vec<(InstId, Vec<InstId>)> = Vec::new();
    for k in 0..=p.trips {
        let mut cl = Cloner::new();
        for (&pa, &a) in params.iter().zip(&args) {
            cl.insert(pa, a);
        }
        let last = k == p.trips;
        let to_copy: &[Block] = if last {
            std::slice::from_ref(&p.header)
        } else {
            &p.blocks
        };
        let copies = cl
            .clone_blocks(m, to_copy, f, Some(prev))
            .map_err(clone_error)?;
        let values: Vec<InstId> = live_out
            .iter()
            .map(|&v| match params.iter().position(|&pa| pa == v) {
                Some(j) => args[j],
                None => cl.get(v).unwrap_or(v),
            })
            .collect();
        let hk = mapped(m, &cl, p.header)?;
        match pending.take() {
            Some(ck) => {
                replace_terminator(m, ck, Op::Br, &[hk.id()]);
            }
            None => first = Some(hk),
        }
        if last {
            let t = replace_terminator(m, hk, Op::Br, &[p.exit.id()]);
            exits.push((t, values));
        } else {
            for &t in &p.breaks {
                if let Some(c) = cl.get(t) {
                    exits.push((c, values.clone()));
                }
            }
            let bk = mapped(m, &cl, p.body)?;
            let ck = mapped(m, &cl, p.cont)?;
            if p.wrap_body {
                // `hk: loop w, break ck, continue c` with `w: br bk` and `c: br w` (never
                // reached): the copy's `continue`s are breaks of this loop.
                let w = m.add_block_after(hk);
                oneshader_ir::Builder::at_end(m, w).br(bk, &[]);
                let c = m.add_block_after(ck);
                oneshader_ir::Builder::at_end(m, c).br(w, &[]);
                let lp = replace_terminator(m, hk, Op::Loop, &[w.id(), ck.id(), c.id()]);
                m.decorate(lp, Op::RunOnce, &[]);
            } else {
                replace_terminator(m, hk, Op::Br, &[bk.id()]);
            }
            let back = ck
                .terminator(m)
                .ok_or_else(|| PassError::new(NAME, "a copied continue block has no branch"))?;
            args = edge_args(m, back);
            pending = Some(ck);
        }
        if let Some(&l) = copies.last() {
            prev = l;
        }
    }
    let first = first.ok_or_else(|| PassError::new(NAME, "no copy of the header was made"))?;
    if p.breaks.is_empty() {
        replace_terminator(m, p.pre, Op::Br, &[first.id()]);
        // One way out: the last header copy's values are what follows sees.
        if let Some((_, values)) = exits.last() {
            for (&v, &c) in live_out.iter().zip(values) {
                m.replace_uses_with(v, c);
            }
        }
    } else {
        // A run-once loop keeps the copied breaks structured exits.
        let cont = m.add_block_after(prev);
        oneshader_ir::Builder::at_end(m, cont).br(first, &[]);
        let rl = replace_terminator(m, p.pre, Op::Loop, &[first.id(), p.exit.id(), cont.id()]);
        // The `unroll` hint moved along with the loop terminator; this loop runs once.
        if let Some(d) = m.find_decoration(rl, Op::Unroll) {
            let _ = m.remove(d);
        }
        if !m.has_decoration(rl, Op::RunOnce) {
            m.decorate(rl, Op::RunOnce, &[]);
        }
        join_live_out(m, p.exit, &live_out, &exits)?;
    }
    remove_blocks(m, &p.blocks);
    Ok(())
}

/// Gives `exit` a parameter per live-out value, replacing that value's uses, and passes each
/// edge's values to it (a conditional edge through a new block).
fn join_live_out(
    m: &mut Module,
    exit: Block,
    live_out: &[InstId],
    exits: &[(InstId, Vec<InstId>)],
) -> Result<(), PassError> {
    if live_out.is_empty() {
        return Ok(());
    }
    for &v in live_out {
        let ty = m
            .ty(v)
            .ok_or_else(|| PassError::new(NAME, "a live-out value has no type"))?;
        let param = m.add_block_param(exit, ty);
        m.replace_uses_with(v, param);
    }
    for (t, values) in exits {
        let br = if m.op(*t) == Op::Br {
            *t
        } else {
            let nb = split_edges_to(m, *t, exit)
                .map_err(|e| PassError::new(NAME, format!("splitting a break edge: {e}")))?
                .ok_or_else(|| PassError::new(NAME, "a break does not reach the exit"))?;
            nb.terminator(m)
                .ok_or_else(|| PassError::new(NAME, "a split edge has no branch"))?
        };
        let mut ops = m.operands_vec(br);
        ops.extend_from_slice(values);
        m.set_operands(br, &ops)
            .map_err(|e| PassError::new(NAME, format!("passing values to the exit: {e}")))?;
    }
    Ok(())
}

/// Removes the original loop's blocks: nothing outside refers to them any more.
fn remove_blocks(m: &mut Module, blocks: &[Block]) {
    for &b in blocks {
        if let Some(t) = b.terminator(m) {
            let _ = m.remove(t);
        }
    }
    for &b in blocks {
        clear_block(m, b);
        let _ = m.remove(b.id());
    }
}
