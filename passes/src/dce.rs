//! `dce`: aggressive dead-code elimination by mark and sweep, control flow included.
//!
//! Nothing is live until shown to be (the aggressive DCE of Cytron et al., on structured
//! control flow):
//!
//! 1. Local variables: a `var` whose every use (through `field_addr`/`element_addr` chains)
//!    is the address operand of a `load` or a `store`. Its stores are not roots of the mark
//!    phase: they become live when a live load reads the variable, so a variable nobody
//!    reads, or whose loads only feed dead code, dies with its stores and address
//!    computations (aggressive DCE's rule for memory). An intrinsic whose only effect is
//!    writing through `out` operands into such variables (`frexp`, `modf`, `sincos`) counts
//!    as their store. A `var` whose address goes anywhere else (a call argument, an atomic, a
//!    `select`...) keeps all its stores.
//! 2. Mark. The roots are what may not go even when unused
//!    ([`oneshader_ir::Effects::removable_if_unused`]: barriers and what writes memory: stores
//!    other than those of step 1, calls, atomics, texture and buffer stores, the other
//!    intrinsics that write through a pointer operand), the terminators that leave the function
//!    (`return`, `discard`, ...), and the branches outside every construct. What a live
//!    instruction uses is live. Block parameters are live only when something live uses them;
//!    a branch argument is live only when the parameter it feeds is (so a loop counter nobody
//!    reads dies with its increment). Function parameters (the entry block's) always stay.
//!
//!    Branches are live only when something live depends on them. In structured control flow
//!    a block's control dependences are the branches of the constructs it is in
//!    ([`oneshader_ir::constructs`]), so liveness is decided per construct: a construct is
//!    live when a block inside it holds a live instruction or parameter, when its join has a
//!    live parameter (the join's value depends on which way control went), or when it leaves
//!    to a loop's break or continue block or a switch's merge (a `break`) and that loop or
//!    switch is live. A live construct makes live its declaring terminator and the
//!    terminators of the blocks directly inside it (a loop's header test, its back edge, its
//!    `break`s), and so the conditions they read. This is conservative next to control
//!    dependence from post-dominators (a block inside a construct that post-dominates its
//!    header keeps the construct) and exact on the shapes a front end produces.
//! 3. Sweep. The arguments of dead parameters are dropped from every `br` and `loop` that
//!    passed them; a dead construct not inside another dead one becomes `br join` (its join
//!    has no live parameter), and its blocks, unreachable now, are removed with everything in
//!    them; then every other dead instruction and parameter is removed. A construct that
//!    computes nothing goes even if it might not terminate: a shader loop without effects that
//!    never ends is not a behaviour anyone relies on (spirv-opt's aggressive DCE removes it
//!    too).

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use oneshader_ir::constructs::Constructs;
use oneshader_ir::{Access, Block, Effects, Func, InstId, Module, Op, SlotVec};

use crate::analyses::FunctionAnalyses;
use crate::split_edges::replace_terminator;
use crate::{FunctionPass, Pass, PassError, run_per_function};

/// The `dce` pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct Dce;

impl Pass for Dce {
    fn name(&self) -> &'static str {
        "dce"
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        run_per_function(self, m)
    }

    fn as_function_pass(&mut self) -> Option<&mut dyn FunctionPass> {
        Some(self)
    }
}

impl FunctionPass for Dce {
    fn run_on_function(
        &mut self,
        m: &mut Module,
        f: Func,
        analyses: &mut FunctionAnalyses,
    ) -> Result<bool, PassError> {
        dce_with(m, f, analyses)
    }

    /// The pass invalidates the analyses itself when it removes a construct.
    fn keeps_analyses(&self) -> bool {
        true
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
    dce_with(m, f, &mut FunctionAnalyses::new())
}

/// [`dce_function`] with the function's cached constructs; drops them when it removes one.
fn dce_with(m: &mut Module, f: Func, analyses: &mut FunctionAnalyses) -> Result<bool, PassError> {
    let blocks = f.blocks(m);
    let Some(&entry) = blocks.first() else {
        return Ok(false);
    };
    let locals = LocalVars::new(m, &blocks);
    let cons = analyses.constructs(m, f);
    let live = Marker::run(m, &blocks, entry, cons, &locals);
    let (changed, cfg_changed) = sweep(m, &blocks, entry, cons, &live)?;
    if cfg_changed {
        analyses.invalidate();
    }
    Ok(changed)
}

/// The result of the mark phase: live values and blocks, and live constructs.
struct Liveness {
    marks: Marks,
    /// Per construct (index in [`Constructs::list`]): live.
    constructs: Vec<bool>,
}

/// The mark phase's state: a work list of live values whose operands are still to be marked.
struct Marker<'a> {
    m: &'a Module,
    cons: &'a Constructs,
    locals: &'a LocalVars,
    entry: Block,
    marks: Marks,
    work: Vec<InstId>,
    live_constructs: Vec<bool>,
    /// Per construct: the blocks it is the innermost construct of.
    direct: Vec<Vec<Block>>,
    /// Per construct: the constructs inside it that leave to it other than through their own
    /// join (`break`, `continue`, a `break` out of a switch). They are live when it is.
    exits_to: Vec<Vec<usize>>,
    /// The constructs whose join a block is.
    by_join: FxHashMap<Block, SmallVec<[usize; 1]>>,
}

impl<'a> Marker<'a> {
    fn run(
        m: &'a Module,
        blocks: &[Block],
        entry: Block,
        cons: &'a Constructs,
        locals: &'a LocalVars,
    ) -> Liveness {
        let n = cons.list().len();
        let mut marker = Marker {
            m,
            cons,
            locals,
            entry,
            marks: Marks::default(),
            work: Vec::new(),
            live_constructs: vec![false; n],
            direct: vec![Vec::new(); n],
            exits_to: vec![Vec::new(); n],
            by_join: FxHashMap::default(),
        };
        for (k, c) in cons.list().iter().enumerate() {
            marker.by_join.entry(c.join).or_default().push(k);
        }
        // Constructs that must stay whatever is live: a structured exit whose owner cannot be
        // told (not expected in a well-formed module).
        let mut always: Vec<usize> = Vec::new();
        for &b in blocks {
            if let Some(k) = cons.innermost(b) {
                marker.direct[k].push(b);
                marker.note_exits(b, &mut always);
            }
        }
        for p in entry.params(m) {
            marker.live(p.id());
        }
        for &b in blocks {
            for i in m.children(b.id()) {
                let op = m.op(i);
                let root = if op.is_terminator() {
                    // A structured terminator is live with its construct; the other branches
                    // with the construct they are in, or at once outside every construct.
                    cons.index_of_term(i).is_none()
                        && (!matches!(op, Op::Br | Op::CondBr | Op::Unreachable)
                            || cons.innermost(b).is_none())
                } else {
                    // The opcode's effects bound the instruction's: only when they forbid
                    // removal is the exact answer worth its operand lookups.
                    op.is_instruction()
                        && !op.effects().removable_if_unused()
                        && !m.effects(i).removable_if_unused()
                        && !locals.stores.contains(&i)
                };
                if root {
                    marker.live(i);
                }
            }
        }
        for k in always {
            marker.construct_live(k);
        }
        while let Some(i) = marker.work.pop() {
            marker.visit(i);
        }
        Liveness {
            marks: marker.marks,
            constructs: marker.live_constructs,
        }
    }

    /// Records the structured exits leaving constructs from `b` other than to their own join:
    /// such a construct is live when the construct it exits to (the loop it breaks out of or
    /// continues, the switch it breaks out of) is.
    fn note_exits(&mut self, b: Block, always: &mut Vec<usize>) {
        let (m, cons) = (self.m, self.cons);
        let from = cons.chain(b);
        for s in oneshader_ir::cfg::successors(m, b) {
            let to = cons.chain(s);
            let left: SmallVec<[usize; 4]> = from
                .iter()
                .copied()
                .take_while(|k| !to.contains(k))
                .collect();
            if left.is_empty() {
                continue;
            }
            // A break leaves up to the loop or switch whose join it reaches; a continue stays
            // in the loop whose continue block it reaches.
            let owner = left
                .iter()
                .rev()
                .copied()
                .find(|&k| cons.get(k).join == s)
                .or_else(|| cons.innermost(s).filter(|k| from.contains(k)));
            for &k in &left {
                if cons.get(k).join == s || Some(k) == owner {
                    continue;
                }
                match owner {
                    Some(o) => self.exits_to[o].push(k),
                    None => always.push(k),
                }
            }
        }
    }

    /// Marks a local value (an instruction, terminator or parameter) live.
    fn live(&mut self, v: InstId) {
        let op = self.m.op(v);
        if (op.is_instruction() || op.is_terminator() || op == Op::Param) && self.marks.set_live(v)
        {
            self.work.push(v);
        }
    }

    /// Marks what a live value needs: its operands, the stores it may read, the arguments
    /// that feed it (a parameter), the constructs it is in and those whose join it is.
    fn visit(&mut self, i: InstId) {
        let m = self.m;
        let Some(b) = m.block_of(i) else {
            return;
        };
        if self.marks.add(b.id(), BLOCK)
            && let Some(k) = self.cons.innermost(b)
        {
            self.construct_live(k);
        }
        if m.op(i) == Op::Param {
            if b != self.entry {
                self.param_args(b, i);
            }
            let joined: SmallVec<[usize; 1]> = self.by_join.get(&b).cloned().unwrap_or_default();
            for k in joined {
                self.construct_live(k);
            }
            return;
        }
        let n = m.num_operands(i);
        // Branch arguments become live through their parameters, not their terminator; a
        // block operand is not a value.
        let limit = match m.op(i) {
            Op::Br => 1,
            Op::Loop => 3,
            _ => n,
        };
        for k in 0..limit.min(n) {
            self.live(m.operand(i, k));
        }
        if let Some(var) = self.locals.load_of.get(&i) {
            let stores = self.locals.stores_of.get(var).map(Vec::as_slice);
            for &s in stores.unwrap_or_default() {
                self.live(s);
            }
        }
    }

    /// A live construct: its declaring terminator, the branches of the blocks directly inside
    /// it, and the constructs inside it that exit to it are live.
    fn construct_live(&mut self, k: usize) {
        let mut stack = vec![k];
        while let Some(k) = stack.pop() {
            if self.live_constructs[k] {
                continue;
            }
            self.live_constructs[k] = true;
            self.live(self.cons.get(k).term);
            for j in 0..self.direct[k].len() {
                let b = self.direct[k][j];
                if let Some(t) = b.terminator(self.m)
                    && self.cons.index_of_term(t).is_none()
                {
                    self.live(t);
                }
            }
            stack.extend(self.exits_to[k].iter().copied());
        }
    }

    /// A live parameter of `b` makes the arguments that feed it live.
    fn param_args(&mut self, b: Block, p: InstId) {
        let m = self.m;
        let Some(k) = m
            .children(b.id())
            .take_while(|&c| m.op(c) == Op::Param)
            .position(|c| c == p)
        else {
            return;
        };
        for (term, first) in incoming_args(m, b) {
            if let Some(arg) = m.try_operand(term, first + k) {
                self.live(arg);
            }
        }
    }
}

/// The sweep: dead parameters and their arguments, dead constructs (replaced by a branch to
/// their join, their blocks removed), then every other dead instruction.
/// Returns (anything changed, the control flow changed).
fn sweep(
    m: &mut Module,
    blocks: &[Block],
    entry: Block,
    cons: &Constructs,
    live: &Liveness,
) -> Result<(bool, bool), PassError> {
    let err = |e: &dyn std::fmt::Display| PassError::new("dce", e.to_string());
    let mut changed = false;
    let mut cfg_changed = false;
    // First drop the arguments of dead parameters from the branches feeding them.
    for &b in blocks {
        if b == entry {
            continue;
        }
        let params = b.params(m);
        let dead: Vec<usize> = params
            .iter()
            .enumerate()
            .filter(|(_, p)| !live.marks.is_live(p.id()))
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
            m.set_operands(term, &kept).map_err(|e| err(&e))?;
        }
    }
    // Dead constructs not inside another dead one become a branch to their join (without
    // arguments: the join's parameters are dead, removed below). A live construct's parent is
    // live (its declaring terminator is in the parent), so the dead constructs are whole
    // subtrees.
    for (k, c) in cons.list().iter().enumerate() {
        if live.constructs[k] || c.parent.is_some_and(|p| !live.constructs[p]) {
            continue;
        }
        if c.join.params(m).iter().any(|p| live.marks.is_live(p.id())) {
            // A live parameter of the join makes the construct live.
            return Err(PassError::new(
                "dce",
                "a dead construct's join kept a parameter (a bug in the mark phase)",
            ));
        }
        replace_terminator(m, c.declared_in, Op::Br, &[c.join.id()]);
        changed = true;
        cfg_changed = true;
    }
    // Then unlink every dead instruction's operands, so that removing them in any order
    // works. A block inside a dead construct goes whole (nothing in it is live).
    let in_dead_construct = |b: Block| cons.innermost(b).is_some_and(|k| !live.constructs[k]);
    let mut dead: Vec<InstId> = Vec::new();
    let mut dead_blocks: Vec<Block> = Vec::new();
    for &b in blocks {
        if in_dead_construct(b) {
            dead_blocks.push(b);
            for i in m.children(b.id()) {
                if m.op(i) != Op::Param && !m.op(i).is_decoration() {
                    dead.push(i);
                }
            }
            continue;
        }
        for i in m.children(b.id()) {
            let op = m.op(i);
            let is_dead = if op == Op::Param {
                b != entry && !live.marks.is_live(i)
            } else {
                op.is_instruction() && !live.marks.is_live(i)
            };
            if is_dead {
                dead.push(i);
            }
        }
    }
    for &i in &dead {
        if m.op(i) != Op::Param {
            m.set_operands(i, &[]).map_err(|e| err(&e))?;
        }
    }
    for &i in &dead {
        if m.block_of(i).is_some_and(in_dead_construct) {
            continue;
        }
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
    for &b in &dead_blocks {
        m.remove(b.id())
            .map_err(|e| PassError::new("dce", format!("cannot remove a dead block: {e}")))?;
        changed = true;
    }
    Ok((changed, cfg_changed))
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
                            _ if writes_only_locals(m, u.user, p) => stores.push(u.user),
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
        // An intrinsic writing through several pointers is a store only when every one of
        // them is such a variable's; otherwise its other writes make it a root.
        let writers: Vec<InstId> = out
            .stores
            .iter()
            .copied()
            .filter(|&w| m.op(w) != Op::Store)
            .collect();
        for w in writers {
            let all_tracked = m
                .memory_accesses(w)
                .iter()
                .all(|&(p, _)| root_var(m, p).is_some_and(|v| out.stores_of.contains_key(&v)));
            if !all_tracked {
                out.stores.remove(&w);
            }
        }
        out
    }
}

/// True when `user` (a use of the local address `p`) is an instruction whose only effect is
/// writing through its pointer operands, `p` among them: an intrinsic's `out` operand
/// (`frexp`, `modf`, `sincos`). Such a write is a store to the variable.
fn writes_only_locals(m: &Module, user: InstId, p: InstId) -> bool {
    let accesses = m.memory_accesses(user);
    m.op(user) == Op::CallIntrinsic
        && accesses.iter().any(|&(q, _)| q == p)
        && accesses.iter().all(|&(_, a)| a == Access::WRITE)
        && m.effects(user)
            .without(Effects::WRITE)
            .removable_if_unused()
}

/// The variable an address is computed from (through `field_addr` and `element_addr`).
fn root_var(m: &Module, mut p: InstId) -> Option<InstId> {
    loop {
        match m.try_op(p)? {
            Op::Var => return Some(p),
            Op::FieldAddr | Op::ElementAddr => p = m.operand(p, 0),
            _ => return None,
        }
    }
}

/// Marks of the mark phase, in a table over the function's slot window. Valid while no
/// instruction is created or removed (the mark phase only reads the module), so a slot stands
/// for one instruction or block.
#[derive(Default)]
struct Marks(SlotVec<u8>);

/// A live value.
const LIVE: u8 = 1;
/// A block holding something live (its innermost construct has been made live).
const BLOCK: u8 = 2;

impl Marks {
    fn get(&self, id: InstId) -> u8 {
        self.0.get(id).copied().unwrap_or(0)
    }

    /// Sets `bit` on `id`; true when it was not set.
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

    fn is_live(&self, id: InstId) -> bool {
        self.get(id) & LIVE != 0
    }
}
