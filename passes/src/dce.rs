//! `dce`: dead-code elimination by mark and sweep.
//!
//! 1. Local variables: a `var` whose every use (through `field_addr`/`element_addr` chains)
//!    is the address operand of a `load` or a `store`. Its stores are not roots of the mark
//!    phase: they become live when a live load reads the variable, so a variable nobody
//!    reads, or whose loads only feed dead code, dies with its stores and address
//!    computations (aggressive DCE's rule for memory). A `var` whose address goes anywhere
//!    else (a call argument, an atomic, an intrinsic's out operand, a `select`...) keeps all
//!    its stores.
//! 2. Mark: what may not go even when unused is live
//!    ([`oneshader_ir::Effects::removable_if_unused`]: terminators, barriers, and what writes
//!    memory: stores other than those of step 1, calls, atomics, texture and buffer stores,
//!    the intrinsics that write through a pointer operand); so is everything a live
//!    instruction uses. Block parameters are live only when something live uses them; a branch
//!    argument is live only when the parameter it feeds is (so a loop counter nobody reads dies
//!    with its increment). Function parameters (the entry block's) always stay.
//! 3. Sweep: unmarked instructions and parameters are removed, and the arguments of removed
//!    parameters are dropped from every `br` and `loop` that passed them.

use rustc_hash::{FxHashMap, FxHashSet};

use oneshader_ir::{Block, Func, InstId, Module, Op, SlotVec};

use crate::{Pass, PassError};

/// The `dce` pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct Dce;

impl Pass for Dce {
    fn name(&self) -> &'static str {
        "dce"
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        for f in m.functions() {
            if !f.is_declaration(m) {
                changed |= dce_function(m, f)?;
            }
        }
        Ok(changed)
    }
}

/// Where arguments for the parameters of a block come from: (terminator, index of the first
/// argument operand).
fn incoming_args(m: &Module, block: Block) -> Vec<(InstId, usize)> {
    let mut out = Vec::new();
    for u in m.uses(block.id()) {
        let oneshader_ir::Slot::Operand(0) = u.slot else {
            continue;
        };
        match m.op(u.user) {
            Op::Br => out.push((u.user, 1)),
            Op::Loop => out.push((u.user, 3)),
            _ => {}
        }
    }
    out
}

/// Runs `dce` on one function; true when it changed anything.
pub fn dce_function(m: &mut Module, f: Func) -> Result<bool, PassError> {
    let blocks = f.blocks(m);
    let Some(&entry) = blocks.first() else {
        return Ok(false);
    };
    let mut changed = false;

    // 1. Local variables (used only as the address of loads and stores, through address
    // computations): their stores are live only when a live load may read them, so a
    // variable nobody reads dies with its stores and address computations.
    let locals = LocalVars::new(m, &blocks);

    // 2. Mark, in one backward sweep over the blocks and their instructions: in block order
    // definitions mostly come before their uses, so the sweep usually meets a value after
    // every user that can make it live, and marks it in passing. A value marked live after
    // the sweep passed it (a value carried around a loop into a parameter, a function whose
    // blocks are not in dominance order) goes on a work list, processed at the end.
    let mut marks = Marks::default();
    let mut work: Vec<InstId> = Vec::new();
    for p in entry.params(m) {
        marks.set_live(p.id());
    }
    for &b in blocks.iter().rev() {
        let mut cur = m.last_child(b.id());
        while let Some(i) = cur {
            cur = m.prev_sibling(i);
            marks.set_seen(i);
            let op = m.op(i);
            if op == Op::Param {
                if b != entry && marks.is_live(i) {
                    mark_param_args(m, b, i, &mut marks, &mut work);
                }
                continue;
            }
            if !marks.is_live(i) {
                // The opcode's effects bound the instruction's: only when they forbid
                // removal is the exact answer worth its operand lookups.
                let root =
                    !op.effects().removable_if_unused() && !m.effects(i).removable_if_unused();
                if !root || locals.stores.contains(&i) {
                    continue;
                }
                marks.set_live(i);
            }
            mark_operands(m, i, &mut marks, &mut work);
            locals.mark_stores_read_by(m, i, &mut marks, &mut work);
        }
    }
    while let Some(i) = work.pop() {
        if m.op(i) == Op::Param {
            if let Some(b) = m.block_of(i)
                && b != entry
            {
                mark_param_args(m, b, i, &mut marks, &mut work);
            }
        } else {
            mark_operands(m, i, &mut marks, &mut work);
            locals.mark_stores_read_by(m, i, &mut marks, &mut work);
        }
    }
    let live = &marks;

    // 3. Sweep. First drop the arguments of dead parameters from the branches feeding them.
    for &b in &blocks {
        if b == entry {
            continue;
        }
        let params = b.params(m);
        let dead: Vec<usize> = params
            .iter()
            .enumerate()
            .filter(|(_, p)| !live.is_live(p.id()))
            .map(|(k, _)| k)
            .collect();
        if dead.is_empty() {
            continue;
        }
        for (term, first) in incoming_args(m, b) {
            let ops = m.operands_vec(term);
            let kept: Vec<InstId> = ops
                .iter()
                .enumerate()
                .filter(|&(k, _)| k < first || !dead.contains(&(k - first)))
                .map(|(_, &v)| v)
                .collect();
            m.set_operands(term, &kept)
                .map_err(|e| PassError::new("dce", e.to_string()))?;
        }
    }
    // Then unlink every dead instruction's operands, so that removing them in any order works.
    let mut dead: Vec<InstId> = Vec::new();
    for &b in &blocks {
        for i in m.children(b.id()) {
            let op = m.op(i);
            let is_dead = if op == Op::Param {
                b != entry && !live.is_live(i)
            } else {
                op.is_instruction() && !live.is_live(i)
            };
            if is_dead {
                dead.push(i);
            }
        }
    }
    for &i in &dead {
        if m.op(i) != Op::Param {
            m.set_operands(i, &[])
                .map_err(|e| PassError::new("dce", e.to_string()))?;
        }
    }
    for &i in &dead {
        m.remove(i).map_err(|e| {
            PassError::new(
                "dce",
                format!(
                    "cannot remove `{}`: {e}",
                    oneshader_ir::print::print_inst(m, i)
                ),
            )
        })?;
        changed = true;
    }
    Ok(changed)
}

/// The function's local variables that only loads and stores use (through `field_addr` and
/// `element_addr`): which variable each load reads, and each variable's stores.
#[derive(Default)]
struct LocalVars {
    /// Load -> the variable it reads.
    load_of: FxHashMap<InstId, InstId>,
    /// Variable -> its stores.
    stores_of: FxHashMap<InstId, Vec<InstId>>,
    /// Every store of such a variable (not a root of the mark phase).
    stores: FxHashSet<InstId>,
}

impl LocalVars {
    fn new(m: &Module, blocks: &[Block]) -> LocalVars {
        let mut out = LocalVars::default();
        for &b in blocks {
            for var in m.children(b.id()) {
                if m.op(var) != Op::Var {
                    continue;
                }
                let mut loads = Vec::new();
                let mut stores = Vec::new();
                let mut work = vec![var];
                let mut only_loads_and_stores = true;
                'walk: while let Some(p) = work.pop() {
                    for u in m.uses(p) {
                        match (m.op(u.user), u.slot) {
                            (Op::Load, oneshader_ir::Slot::Operand(0)) => loads.push(u.user),
                            (Op::Store, oneshader_ir::Slot::Operand(0)) => stores.push(u.user),
                            (Op::FieldAddr | Op::ElementAddr, oneshader_ir::Slot::Operand(0)) => {
                                work.push(u.user)
                            }
                            _ => {
                                only_loads_and_stores = false;
                                break 'walk;
                            }
                        }
                    }
                }
                if !only_loads_and_stores || stores.is_empty() {
                    continue;
                }
                for l in loads {
                    out.load_of.insert(l, var);
                }
                out.stores.extend(stores.iter().copied());
                out.stores_of.insert(var, stores);
            }
        }
        out
    }

    /// When `i` is a live load of a local variable, every store to that variable is live.
    fn mark_stores_read_by(
        &self,
        m: &Module,
        i: InstId,
        marks: &mut Marks,
        work: &mut Vec<InstId>,
    ) {
        let Some(var) = self.load_of.get(&i) else {
            return;
        };
        for &s in self
            .stores_of
            .get(var)
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            marks.reach(m, s, work);
        }
    }
}

/// Marks of the mark phase, in a table over the function's slot window. Valid while no
/// instruction is created or removed (the mark phase only reads the module), so a slot stands
/// for one instruction.
#[derive(Default)]
struct Marks(SlotVec<u8>);

const LIVE: u8 = 1;
const SEEN: u8 = 2;

impl Marks {
    fn get(&self, id: InstId) -> u8 {
        self.0.get(id).copied().unwrap_or(0)
    }

    fn add(&mut self, id: InstId, bit: u8) -> bool {
        let e = self.0.entry(id);
        let old = *e;
        *e = old | bit;
        old & bit == 0
    }

    /// Marks `id` live; true when it was not.
    fn set_live(&mut self, id: InstId) -> bool {
        self.add(id, LIVE)
    }

    fn set_seen(&mut self, id: InstId) {
        self.add(id, SEEN);
    }

    fn is_live(&self, id: InstId) -> bool {
        self.get(id) & LIVE != 0
    }

    /// Marks a local value live; one the sweep already passed goes on the work list.
    fn reach(&mut self, m: &Module, v: InstId, work: &mut Vec<InstId>) {
        // A local value: an instruction or parameter. In a well-formed module (OSV0016) those
        // are the function's own, so no walk up to the enclosing function is needed; marking
        // a foreign one anyway would only make it live, never remove anything here.
        let op = m.op(v);
        if (op.is_instruction() || op == Op::Param) && self.set_live(v) && self.get(v) & SEEN != 0 {
            work.push(v);
        }
    }
}

/// Marks what a live instruction uses. Branch arguments become live through their
/// parameters, not their terminator; the type is a module-level value.
fn mark_operands(m: &Module, i: InstId, marks: &mut Marks, work: &mut Vec<InstId>) {
    let n = m.num_operands(i);
    let limit = match m.op(i) {
        Op::Br => 1,
        Op::Loop => 3,
        _ => n,
    };
    for k in 0..limit.min(n) {
        marks.reach(m, m.operand(i, k), work);
    }
}

/// A live parameter of `b` makes the arguments that feed it live.
fn mark_param_args(m: &Module, b: Block, p: InstId, marks: &mut Marks, work: &mut Vec<InstId>) {
    let Some(k) = m
        .children(b.id())
        .take_while(|&c| m.op(c) == Op::Param)
        .position(|c| c == p)
    else {
        return;
    };
    for (term, first) in incoming_args(m, b) {
        if let Some(arg) = m.try_operand(term, first + k) {
            marks.reach(m, arg, work);
        }
    }
}
