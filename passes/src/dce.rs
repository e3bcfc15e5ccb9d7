//! `dce`: dead-code elimination by mark and sweep.
//!
//! 1. Write-only variables: a `var` whose every use (through `field_addr`/`element_addr`
//!    chains) is the address operand of a `store` is never read, so its stores, its address
//!    computations and the `var` itself are dead. A `var` whose address goes anywhere else (a
//!    load, a call argument, an atomic, an intrinsic's out operand, a `select`...) is kept with
//!    all its stores.
//! 2. Mark: terminators and instructions with side effects (stores other than those of step 1,
//!    calls, atomics, barriers, texture and buffer stores, and the intrinsics that write
//!    through a pointer operand: `frexp`, `modf`, `sincos`) are live; so is everything a live
//!    instruction uses. Block parameters are live only when something live uses them; a branch
//!    argument is live only when the parameter it feeds is (so a loop counter nobody reads dies
//!    with its increment). Function parameters (the entry block's) always stay.
//! 3. Sweep: unmarked instructions and parameters are removed, and the arguments of removed
//!    parameters are dropped from every `br` and `loop` that passed them.

use rustc_hash::{FxHashMap, FxHashSet};

use oneshader_ir::{Block, Func, InstId, Intrinsic, Module, Op};

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

/// The stores, address computations and the `var` itself when `var` is only ever written.
fn write_only_var(m: &Module, var: InstId) -> Option<Vec<InstId>> {
    let mut dead = vec![var];
    let mut k = 0;
    while k < dead.len() {
        let p = dead[k];
        k += 1;
        for u in m.uses(p) {
            let user = u.user;
            match (m.op(user), u.slot) {
                (Op::Store, oneshader_ir::Slot::Operand(0)) => dead.push(user),
                (Op::FieldAddr | Op::ElementAddr, oneshader_ir::Slot::Operand(0)) => {
                    dead.push(user)
                }
                _ => return None,
            }
        }
    }
    Some(dead)
}

/// True for intrinsics that store results through pointer operands (`frexp`, `modf`,
/// `sincos`): they are live even when their own result is unused.
fn writes_through_operand(m: &Module, i: InstId) -> bool {
    m.op(i) == Op::CallIntrinsic
        && matches!(
            m.imm_operand(i, 0).and_then(Intrinsic::from_u32),
            Some(Intrinsic::Frexp | Intrinsic::Modf | Intrinsic::Sincos)
        )
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

    // 1. Write-only variables.
    let mut write_only: FxHashSet<InstId> = FxHashSet::default();
    for &b in &blocks {
        for i in m.children(b.id()) {
            if m.op(i) == Op::Var
                && let Some(dead) = write_only_var(m, i)
            {
                write_only.extend(dead);
            }
        }
    }

    // 2. Mark. (Sets keyed by instruction are slot-indexed tables: passes walk instructions in
    // roughly slot order, so lookups stay cache-friendly on large functions.)
    let mut live: LiveSet = LiveSet::new();
    let mut work: Vec<InstId> = Vec::new();
    let mut param_index: FxHashMap<InstId, (Block, usize)> = FxHashMap::default();
    for &b in &blocks {
        for (k, p) in b.params(m).into_iter().enumerate() {
            param_index.insert(p.id(), (b, k));
            if b == entry {
                live.insert(p.id());
            }
        }
        for i in m.children(b.id()) {
            let op = m.op(i);
            if (op.is_terminator() || op.has_side_effects() || writes_through_operand(m, i))
                && !write_only.contains(&i)
            {
                live.insert(i);
                work.push(i);
            }
        }
    }
    // A local value: an instruction or parameter. In a well-formed module (OSV0016) those
    // are the function's own, so no walk up to the enclosing function is needed; marking a
    // foreign one anyway would only make it live, never remove anything here.
    let local = |m: &Module, v: InstId| {
        let op = m.op(v);
        op.is_instruction() || op == Op::Param
    };
    while let Some(i) = work.pop() {
        let op = m.op(i);
        if op == Op::Param {
            // A live parameter makes the arguments that feed it live.
            if let Some(&(b, k)) = param_index.get(&i) {
                for (term, first) in incoming_args(m, b) {
                    if let Some(arg) = m.try_operand(term, first + k)
                        && local(m, arg)
                        && live.insert(arg)
                    {
                        work.push(arg);
                    }
                }
            }
            continue;
        }
        let n = m.num_operands(i);
        // Branch arguments become live through their parameters, not their terminator.
        let limit = match op {
            Op::Br => 1,
            Op::Loop => 3,
            _ => n,
        };
        for k in 0..limit.min(n) {
            let v = m.operand(i, k);
            if local(m, v) && live.insert(v) {
                work.push(v);
            }
        }
        // The type of an instruction is a module-level value: nothing to mark.
    }

    // 3. Sweep. First drop the arguments of dead parameters from the branches feeding them.
    for &b in &blocks {
        if b == entry {
            continue;
        }
        let params = b.params(m);
        let dead: Vec<usize> = params
            .iter()
            .enumerate()
            .filter(|(_, p)| !live.contains(&p.id()))
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
                b != entry && !live.contains(&i)
            } else {
                op.is_instruction() && !live.contains(&i)
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

/// A set of instructions backed by a slot-indexed table.
struct LiveSet(slotmap::SecondaryMap<InstId, ()>);

impl LiveSet {
    fn new() -> LiveSet {
        LiveSet(slotmap::SecondaryMap::new())
    }

    /// Inserts `id`; true when it was not in the set.
    fn insert(&mut self, id: InstId) -> bool {
        self.0.insert(id, ()).is_none()
    }

    fn contains(&self, id: &InstId) -> bool {
        self.0.contains_key(*id)
    }
}
