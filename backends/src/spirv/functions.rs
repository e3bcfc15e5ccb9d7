//! Functions: blocks in reverse post-order, block parameters as `OpPhi`, structured
//! terminators as merges, and every ordinary instruction.
//!
//! - Each IR block is one SPIR-V block. Reachable blocks are emitted in the reverse post-order
//!   of the function's `Cfg` (so every block follows its dominators, as SPIR-V requires), and
//!   loops come from the one construct analysis (`oneshader_ir::constructs`), not from a map
//!   of the emitter's own; blocks no path reaches but that a
//!   structured terminator names (a merge after two returns, a continue block of a loop that
//!   always breaks) follow as `OpUnreachable` blocks, or as a branch back to the header for an
//!   unreachable continue target.
//! - A block parameter becomes an `OpPhi` with one (value, predecessor) pair per edge into the
//!   block: `br` arguments and `loop` arguments.
//! - `loop header(args), break B, continue C` is the pre-header's `OpBranch header`; the
//!   header gets `OpLoopMerge B C` just before its own terminator (`br` or `cond_br`).
//!   `if_else` becomes `OpSelectionMerge` + `OpBranchConditional`, `switch` `OpSelectionMerge`
//!   + `OpSwitch`; any other `cond_br` is a break or continue and needs no merge.
//! - Every selection has a merge block of its own (SPIR-V gives each merge block to one
//!   construct): legalization's `own_merges` guarantees it, so merges are emitted as named.
//! - `var`s move to the start of the entry block (SPIR-V requires function variables there).
//! - `discard` is `OpKill` up to SPIR-V 1.5 (vulkan1.0 to vulkan1.2) and
//!   `OpTerminateInvocation` from SPIR-V 1.6 (vulkan1.3), where it is core.

use oneshader_ir::cfg::Cfg;
use oneshader_ir::constructs::{ConstructKind, Constructs};
use oneshader_ir::{AddressSpace, AtomicOp, BarrierFlags, Block, Func, InstId, Op, ScalarKind};
use rspirv::spirv::{self, Capability, Decoration};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::error::{DECLARATION, EmitError, MALFORMED, OPERANDS, POINTER, R, TOO_LARGE};
use super::module::{Emitter, Lk, inst};

/// Most (literal, label) pairs of one `OpSwitch` (SPIR-V's universal limits).
const MAX_SWITCH_CASES: usize = 16_383;

type Words = SmallVec<[u32; 8]>;

/// An edge into a block with parameters: a `br`/`loop` terminator and the block it ends.
#[derive(Clone, Copy, Debug)]
struct Incoming(InstId, InstId);

/// What the emitter knows about one function's control flow.
#[derive(Default)]
struct FnCfg {
    /// Loop header -> (merge, continue, the `loop` terminator).
    loops: FxHashMap<InstId, (InstId, InstId, InstId)>,
    /// Edges into blocks with parameters.
    incoming: FxHashMap<InstId, Vec<Incoming>>,
    /// Unreachable continue block -> its loop header.
    back_to: FxHashMap<InstId, InstId>,
    rpo_index: FxHashMap<InstId, u32>,
}

/// Memory scopes and semantics (SPIR-V enumerants).
const SCOPE_DEVICE: u32 = 1;
const SCOPE_WORKGROUP: u32 = 2;
const SCOPE_INVOCATION: u32 = 4;
const SEM_ACQ_REL: u32 = 0x8;
const SEM_UNIFORM: u32 = 0x40;
const SEM_WORKGROUP: u32 = 0x100;
const SEM_IMAGE: u32 = 0x800;

impl Emitter<'_> {
    /// Emits every module-level function.
    pub(crate) fn emit_functions(&mut self, library: bool) {
        let m = self.m;
        for f in m.functions() {
            if let Err(e) = self.function(f, library) {
                let name = m.name(f.id()).unwrap_or("?").to_string();
                let mut d: oneshader_ir::Diagnostic = e.into();
                d.message = format!("function @{name}: {}", d.message);
                self.diags.push(d);
            }
        }
        self.cur_func = None;
    }

    fn function(&mut self, f: Func, library: bool) -> R<()> {
        let m = self.m;
        self.cur_func = Some(f.id());
        self.f.body.clear();
        self.f.vars.clear();
        let fid = self.id_of(f.id());
        let fty = m
            .ty(f.id())
            .ok_or_else(|| EmitError::new(MALFORMED, "a function has no type"))?;
        let ret = m
            .fn_return(fty)
            .ok_or_else(|| EmitError::new(MALFORMED, "a function's type is not a `fn` type"))?;
        let ret_id = self.ty(ret)?;
        let mut header: Vec<u32> = Vec::new();
        let mut fn_key: SmallVec<[u32; 6]> = SmallVec::new();
        fn_key.push(ret_id);
        let blocks = f.blocks(m);
        let mut params: SmallVec<[(u32, u32); 4]> = SmallVec::new();
        if let Some(entry) = blocks.first() {
            for p in entry.params(m) {
                let t = self.param_type(p.id())?;
                fn_key.push(t);
                params.push((t, self.id_of(p.id())));
            }
        } else {
            for t in m.fn_params(fty) {
                if m.op(t) == Op::Ptr {
                    return Err(EmitError::new(
                        POINTER,
                        "a declaration takes a pointer parameter",
                    ));
                }
                let id = self.ty(t)?;
                fn_key.push(id);
                params.push((id, self.fresh()));
            }
        }
        let args = fn_key.clone();
        let fn_ty = self.fn_type(fn_key, &args);
        inst(&mut header, spirv::Op::Function, &[ret_id, fid, 0, fn_ty]);
        for (t, id) in &params {
            inst(&mut header, spirv::Op::FunctionParameter, &[*t, *id]);
        }
        self.name(fid, m.name(f.id()));
        if self.opts.debug_names
            && let Some(entry) = blocks.first()
        {
            for p in entry.params(m) {
                if let Some(n) = m.name(p.id()) {
                    let id = self.id_of(p.id());
                    self.name(id, Some(n));
                }
            }
        }
        if blocks.is_empty() {
            if !library {
                return Err(EmitError::new(
                    DECLARATION,
                    "the function is a declaration without a body (an import); link the module before emitting SPIR-V",
                ));
            }
            inst(&mut header, spirv::Op::FunctionEnd, &[]);
            self.s.functions.extend_from_slice(&header);
            return Ok(());
        }
        self.body(f, &blocks)?;
        let body = std::mem::take(&mut self.f.body);
        let vars = std::mem::take(&mut self.f.vars);
        let out = &mut self.s.functions;
        out.extend_from_slice(&header);
        // The entry block's label, then the variables, then the rest.
        out.extend_from_slice(&body[..2]);
        out.extend_from_slice(&vars);
        out.extend_from_slice(&body[2..]);
        inst(out, spirv::Op::FunctionEnd, &[]);
        self.f.body = body;
        self.f.vars = vars;
        self.f.body.clear();
        self.f.vars.clear();
        Ok(())
    }

    fn fn_type(&mut self, key: SmallVec<[u32; 6]>, args: &[u32]) -> u32 {
        use super::module::TKey;
        if let Some(&id) = self.tkeys.get(&TKey::Function(key.clone())) {
            return id;
        }
        let id = self.fresh();
        let mut w: SmallVec<[u32; 8]> = SmallVec::new();
        w.push(id);
        w.extend_from_slice(args);
        inst(&mut self.s.globals, spirv::Op::TypeFunction, &w);
        self.tkeys.insert(TKey::Function(key), id);
        id
    }

    /// The type of a function parameter; pointer parameters must be in storage SPIR-V's
    /// logical addressing can pass.
    fn param_type(&mut self, p: InstId) -> R<u32> {
        let m = self.m;
        let t = m
            .ty(p)
            .ok_or_else(|| EmitError::new(MALFORMED, "a parameter has no type"))?;
        if m.op(t) == Op::Ptr {
            let space = m.address_space(t);
            if !matches!(
                space,
                Some(AddressSpace::Function | AddressSpace::Private | AddressSpace::Workgroup)
            ) {
                return Err(EmitError::new(
                    POINTER,
                    format!(
                        "a parameter of type `{}` passes a resource or buffer pointer, which SPIR-V's logical addressing cannot do; run the legalization pipeline (resource-parameter specialization) first",
                        oneshader_ir::print::print_inst(m, t)
                    ),
                ));
            }
            return self.value_ptr_type(p);
        }
        self.ty(t)
    }

    /// Emits the blocks of a function body.
    fn body(&mut self, f: Func, blocks: &[Block]) -> R<()> {
        let m = self.m;
        let entry = blocks[0];
        // Reverse post-order of the reachable blocks (the CFG's), and the loops (the one
        // construct analysis, oneshader_ir::constructs).
        let cfg = Cfg::new(m, f);
        let order: Vec<Block> = cfg.rpo().collect();
        let cons = Constructs::new(m, f);
        let mut g = FnCfg::default();
        for c in cons.list() {
            if let (ConstructKind::Loop, Some(cont)) = (c.kind, c.cont) {
                g.loops
                    .insert(c.entry.id(), (c.join.id(), cont.id(), c.term));
            }
        }
        for (i, &b) in order.iter().enumerate() {
            g.rpo_index.insert(b.id(), i as u32);
            let term = b
                .terminator(m)
                .ok_or_else(|| EmitError::new(MALFORMED, "a block has no terminator"))?;
            let carries_args = match m.op(term) {
                Op::Loop => true,
                Op::Br => m.num_operands(term) > 1,
                _ => false,
            };
            if carries_args {
                g.incoming
                    .entry(m.operand(term, 0))
                    .or_default()
                    .push(Incoming(b.id(), term));
            }
        }
        // Unreachable continue targets branch back to their header (with undef phi values).
        for (&header, &(_, cont, _)) in &g.loops {
            if !cfg.is_reachable(Block::cast(m, cont)) {
                g.back_to.insert(cont, header);
            }
        }
        for &b in &order {
            self.block(b, b == entry, &g)?;
        }
        for &b in blocks {
            if cfg.is_reachable(b) {
                continue;
            }
            let label = self.id_of(b.id());
            inst(&mut self.f.body, spirv::Op::Label, &[label]);
            match g.back_to.get(&b.id()) {
                Some(&h) => {
                    let h = self.id_of(h);
                    inst(&mut self.f.body, spirv::Op::Branch, &[h]);
                }
                None => inst(&mut self.f.body, spirv::Op::Unreachable, &[]),
            }
        }
        Ok(())
    }

    /// The value an edge passes to parameter `i` of its target, and the edge's source label.
    fn edge_value(&mut self, e: Incoming, i: usize) -> R<(u32, u32)> {
        let m = self.m;
        let Incoming(pred, term) = e;
        let arg_at = if m.op(term) == Op::Loop { 3 } else { 1 };
        let arg = m
            .try_operand(term, arg_at + i)
            .ok_or_else(|| EmitError::new(MALFORMED, "a branch passes too few arguments"))?;
        Ok((self.val(arg)?, self.id_of(pred)))
    }

    fn block(&mut self, b: Block, is_entry: bool, g: &FnCfg) -> R<()> {
        let m = self.m;
        let label = self.id_of(b.id());
        inst(&mut self.f.body, spirv::Op::Label, &[label]);
        let mut children = m.children(b.id()).peekable();
        let mut param_index = 0usize;
        while let Some(&c) = children.peek() {
            if m.op(c) != Op::Param {
                break;
            }
            children.next();
            if !is_entry {
                self.phi(b, c, param_index, g)?;
            }
            param_index += 1;
        }
        for c in children {
            let op = m.op(c);
            if op.is_decoration() {
                continue;
            }
            if op.is_terminator() {
                if let Some(&(merge, cont, lp)) = g.loops.get(&b.id()) {
                    let merge = self.id_of(merge);
                    let cont = self.id_of(cont);
                    let (ctl, extra) = self.loop_control(lp);
                    let mut w: Words = SmallVec::new();
                    w.extend_from_slice(&[merge, cont, ctl]);
                    w.extend(extra);
                    inst(&mut self.f.body, spirv::Op::LoopMerge, &w);
                }
                return self.terminator(c, g);
            }
            if let Err(e) = self.instruction(c) {
                return Err(self.located(c, e));
            }
        }
        Err(EmitError::new(MALFORMED, "a block has no terminator"))
    }

    fn phi(&mut self, b: Block, p: InstId, index: usize, g: &FnCfg) -> R<()> {
        let m = self.m;
        let t = m
            .ty(p)
            .ok_or_else(|| EmitError::new(MALFORMED, "a block parameter has no type"))?;
        if m.op(t) == Op::Ptr {
            return Err(EmitError::new(
                POINTER,
                "a block parameter of pointer type needs variable pointers, which this backend does not emit; keep the pointer in a variable",
            ));
        }
        let ty = self.ty(t)?;
        let id = self.id_of(p);
        let mut w: SmallVec<[u32; 8]> = SmallVec::new();
        w.push(ty);
        w.push(id);
        if let Some(edges) = g.incoming.get(&b.id()) {
            for &e in edges {
                let (v, pred) = self.edge_value(e, index)?;
                w.push(v);
                w.push(pred);
            }
        }
        for (&cont, &header) in &g.back_to {
            if header == b.id() {
                let u = self.undef(ty);
                w.push(u);
                w.push(self.id_of(cont));
            }
        }
        inst(&mut self.f.body, spirv::Op::Phi, &w);
        if let Some(n) = m.name(p) {
            self.name(id, Some(n));
        }
        Ok(())
    }

    /// An `OpUndef` of a SPIR-V type.
    fn undef(&mut self, ty: u32) -> u32 {
        let key = (ty, u64::MAX - 1);
        if let Some(&id) = self.consts.get(&key) {
            return id;
        }
        let id = self.fresh();
        inst(&mut self.s.globals, spirv::Op::Undef, &[ty, id]);
        self.consts.insert(key, id);
        id
    }

    fn loop_control(&self, lp: InstId) -> (u32, Option<u32>) {
        let m = self.m;
        if let Some(d) = m.find_decoration(lp, Op::Unroll) {
            let n = m.imm_operand(d, 0).unwrap_or(0);
            if n > 0 && self.minor >= 4 {
                return (0x1 | 0x100, Some(n));
            }
            return (0x1, None);
        }
        if m.has_decoration(lp, Op::DontUnroll) {
            return (0x2, None);
        }
        (0, None)
    }

    fn selection_control(&self, t: InstId) -> u32 {
        if self.m.has_decoration(t, Op::Flatten) {
            0x1
        } else if self.m.has_decoration(t, Op::DontFlatten) {
            0x2
        } else {
            0
        }
    }

    fn terminator(&mut self, t: InstId, g: &FnCfg) -> R<()> {
        let m = self.m;
        match m.op(t) {
            Op::Br | Op::Loop => {
                let target = self.id_of(m.operand(t, 0));
                inst(&mut self.f.body, spirv::Op::Branch, &[target]);
            }
            Op::CondBr => {
                let c = self.val(m.operand(t, 0))?;
                let x = self.id_of(m.operand(t, 1));
                let y = self.id_of(m.operand(t, 2));
                inst(&mut self.f.body, spirv::Op::BranchConditional, &[c, x, y]);
            }
            Op::IfElse => {
                let c = self.val(m.operand(t, 0))?;
                let x = self.id_of(m.operand(t, 1));
                let y = self.id_of(m.operand(t, 2));
                let merge = self.id_of(m.operand(t, 3));
                let ctl = self.selection_control(t);
                inst(&mut self.f.body, spirv::Op::SelectionMerge, &[merge, ctl]);
                inst(&mut self.f.body, spirv::Op::BranchConditional, &[c, x, y]);
            }
            Op::Switch => {
                let sel_ir = m.operand(t, 0);
                let sel = self.val(sel_ir)?;
                let merge = self.id_of(m.operand(t, 1));
                let default = self.id_of(m.operand(t, 2));
                let sel_ty = m
                    .ty(sel_ir)
                    .ok_or_else(|| EmitError::new(MALFORMED, "an untyped switch selector"))?;
                let width = m.scalar_bits(sel_ty).unwrap_or(32);
                let signed = m.op(sel_ty).is_signed_int_type();
                // Cases sorted by the position of their target, so that a case falling
                // through to another precedes it in the list, as SPIR-V requires.
                let mut cases: SmallVec<[(u32, u64, InstId); 8]> = SmallVec::new();
                let n = m.num_operands(t);
                let mut i = 3;
                while i + 1 < n {
                    let value = m.operand(t, i);
                    let target = m.operand(t, i + 1);
                    let bits = m.literal_bits(value).unwrap_or(0);
                    let pos = g.rpo_index.get(&target).copied().unwrap_or(u32::MAX);
                    cases.push((pos, bits, target));
                    i += 2;
                }
                // SPIR-V's universal limits allow 16,383 (literal, label) pairs per OpSwitch.
                if cases.len() > MAX_SWITCH_CASES {
                    return Err(EmitError::new(
                        TOO_LARGE,
                        format!(
                            "a `switch` with {} cases; SPIR-V allows at most {MAX_SWITCH_CASES} in one OpSwitch",
                            cases.len()
                        ),
                    ));
                }
                cases.sort_by_key(|c| c.0);
                let ctl = self.selection_control(t);
                inst(&mut self.f.body, spirv::Op::SelectionMerge, &[merge, ctl]);
                let mut w: Vec<u32> = vec![sel, default];
                for (_, bits, target) in cases {
                    if width == 64 {
                        w.push(bits as u32);
                        w.push((bits >> 32) as u32);
                    } else {
                        let mut v = bits as u32;
                        if signed && width < 32 {
                            let s = 32 - width;
                            v = (((v << s) as i32) >> s) as u32;
                        }
                        w.push(v);
                    }
                    w.push(self.id_of(target));
                }
                inst(&mut self.f.body, spirv::Op::Switch, &w);
            }
            Op::Return => {
                if m.num_operands(t) == 1 {
                    let v = self.val(m.operand(t, 0))?;
                    inst(&mut self.f.body, spirv::Op::ReturnValue, &[v]);
                } else {
                    inst(&mut self.f.body, spirv::Op::Return, &[]);
                }
            }
            Op::Discard => {
                if self.minor >= 6 {
                    inst(&mut self.f.body, spirv::Op::TerminateInvocation, &[]);
                } else {
                    inst(&mut self.f.body, spirv::Op::Kill, &[]);
                }
            }
            Op::Unreachable => inst(&mut self.f.body, spirv::Op::Unreachable, &[]),
            Op::IgnoreHit => inst(&mut self.f.body, spirv::Op::IgnoreIntersectionKHR, &[]),
            Op::AcceptHit => inst(&mut self.f.body, spirv::Op::TerminateRayKHR, &[]),
            Op::DispatchMesh => {
                let mut args: SmallVec<[u32; 4]> = SmallVec::new();
                for k in 0..m.num_operands(t) {
                    args.push(self.val(m.operand(t, k))?);
                }
                inst(&mut self.f.body, spirv::Op::EmitMeshTasksEXT, &args);
            }
            op => {
                return Err(EmitError::new(
                    MALFORMED,
                    format!("`{}` is not a terminator", op.spelling()),
                ));
            }
        }
        Ok(())
    }

    /// The kind of the scalar type of operand `i` of `inst` (on the hot path: reads the
    /// opcode of the type, or of a vector's or matrix's component type).
    #[inline]
    fn kind_of(&self, inst_id: InstId, i: usize) -> R<ScalarKind> {
        let m = self.m;
        if let Some(t) = m.ty(m.operand(inst_id, i)) {
            let mut op = m.op(t);
            if op == Op::Vector || op == Op::Matrix {
                op = m.op(m.operand(t, 0));
            }
            if op == Op::Bool {
                return Ok(ScalarKind::Bool);
            }
            if op.is_signed_int_type() {
                return Ok(ScalarKind::Int);
            }
            if op.is_int_type() {
                return Ok(ScalarKind::Uint);
            }
            if op.is_float_type() {
                return Ok(ScalarKind::Float);
            }
        }
        Err(EmitError::new(
            OPERANDS,
            format!(
                "`{}` needs scalar, vector or matrix operands",
                m.op(inst_id).spelling()
            ),
        ))
    }

    /// Emits `ty id a b` with opcode `op`, or row by row when the operands are matrices
    /// (SPIR-V arithmetic takes scalars and vectors only).
    fn binary(&mut self, i: InstId, op: spirv::Op) -> R<()> {
        self.componentwise(i, op, 2)
    }

    /// Emits `ty id a` with opcode `op`, row by row for matrices.
    fn unary(&mut self, i: InstId, op: spirv::Op) -> R<()> {
        self.componentwise(i, op, 1)
    }

    /// The first `arity` operands of `i` through `op`: one instruction for scalars and
    /// vectors, one per row (extract, operate, construct) for matrices.
    fn componentwise(&mut self, i: InstId, op: spirv::Op, arity: usize) -> R<()> {
        let m = self.m;
        let ty_ir = m
            .ty(i)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped instruction"))?;
        let ty = self.ty(ty_ir)?;
        let id = self.id_of(i);
        let mut args: SmallVec<[u32; 2]> = SmallVec::new();
        for k in 0..arity {
            args.push(self.val(m.operand(i, k))?);
        }
        if m.op(ty_ir) == Op::Matrix {
            let (rows, cols) = m.matrix_dims(ty_ir).unwrap_or((0, 0));
            let elem = self.ty(m.operand(ty_ir, 0))?;
            let row_ty = self.vec_ty(elem, cols);
            let mut w: Words = SmallVec::new();
            w.push(ty);
            w.push(id);
            for r in 0..rows {
                let mut row_op: Words = SmallVec::new();
                let rr = self.fresh();
                row_op.push(row_ty);
                row_op.push(rr);
                for &a in &args {
                    let ra = self.fresh();
                    inst(
                        &mut self.f.body,
                        spirv::Op::CompositeExtract,
                        &[row_ty, ra, a, r],
                    );
                    row_op.push(ra);
                }
                inst(&mut self.f.body, op, &row_op);
                w.push(rr);
            }
            inst(&mut self.f.body, spirv::Op::CompositeConstruct, &w);
        } else {
            let mut w: Words = SmallVec::new();
            w.push(ty);
            w.push(id);
            w.extend_from_slice(&args);
            inst(&mut self.f.body, op, &w);
        }
        self.precise(i, id);
        Ok(())
    }

    fn precise(&mut self, i: InstId, id: u32) {
        if self.m.first_child(i).is_some() && self.m.has_decoration(i, Op::Precise) {
            self.decorate(id, Decoration::NoContraction, &[]);
        }
    }

    /// `e` with the source range of instruction `i` (its `src_loc` decoration), when it has
    /// one and `e` has no position yet.
    pub(crate) fn located(&self, i: InstId, mut e: EmitError) -> EmitError {
        let m = self.m;
        if e.0.span.is_none()
            && let Some(d) = m.find_decoration(i, Op::SrcLoc)
            && let (Some(file), Some(start), Some(end)) = (
                m.imm_operand(d, 0),
                m.imm_operand(d, 1),
                m.imm_operand(d, 2),
            )
        {
            e.0.span = Some(oneshader_ir::diag::Span {
                file: oneshader_ir::diag::FileId(file),
                start,
                end,
            });
        }
        e
    }

    /// Emits one ordinary instruction.
    pub(crate) fn instruction(&mut self, i: InstId) -> R<()> {
        use ScalarKind::*;
        use spirv::Op as S;
        let m = self.m;
        let op = m.op(i);
        match op {
            Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Rem => {
                let k = self.kind_of(i, 0)?;
                let sop = match (op, k) {
                    (Op::Add, Float) => S::FAdd,
                    (Op::Add, _) => S::IAdd,
                    (Op::Sub, Float) => S::FSub,
                    (Op::Sub, _) => S::ISub,
                    (Op::Mul, Float) => S::FMul,
                    (Op::Mul, _) => S::IMul,
                    (Op::Div, Float) => S::FDiv,
                    (Op::Div, Int) => S::SDiv,
                    (Op::Div, _) => S::UDiv,
                    (Op::Rem, Float) => S::FRem,
                    (Op::Rem, Int) => S::SRem,
                    _ => S::UMod,
                };
                if k == Bool {
                    return Err(EmitError::new(OPERANDS, "arithmetic on bool operands"));
                }
                if sop == S::FMul
                    && let Some((v, s)) = self.vector_times_scalar(i)
                {
                    let ty = self.result_ty(i)?;
                    let id = self.id_of(i);
                    let (v, s) = (self.val(v)?, self.val(s)?);
                    inst(&mut self.f.body, S::VectorTimesScalar, &[ty, id, v, s]);
                    self.precise(i, id);
                    return Ok(());
                }
                self.binary(i, sop)
            }
            Op::Neg => {
                let k = self.kind_of(i, 0)?;
                self.unary(i, if k == Float { S::FNegate } else { S::SNegate })
            }
            Op::And | Op::Or | Op::Xor => {
                let k = self.kind_of(i, 0)?;
                let sop = match (op, k) {
                    (Op::And, Bool) => S::LogicalAnd,
                    (Op::Or, Bool) => S::LogicalOr,
                    (Op::Xor, Bool) => S::LogicalNotEqual,
                    (Op::And, _) => S::BitwiseAnd,
                    (Op::Or, _) => S::BitwiseOr,
                    _ => S::BitwiseXor,
                };
                self.binary(i, sop)
            }
            Op::Not => {
                let k = self.kind_of(i, 0)?;
                self.unary(i, if k == Bool { S::LogicalNot } else { S::Not })
            }
            Op::Shl | Op::Shr => self.shift(i),
            Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge => {
                let k = self.kind_of(i, 0)?;
                let sop = match (op, k) {
                    (Op::Eq, Float) => S::FOrdEqual,
                    (Op::Eq, Bool) => S::LogicalEqual,
                    (Op::Eq, _) => S::IEqual,
                    (Op::Ne, Float) => S::FUnordNotEqual,
                    (Op::Ne, Bool) => S::LogicalNotEqual,
                    (Op::Ne, _) => S::INotEqual,
                    (Op::Lt, Float) => S::FOrdLessThan,
                    (Op::Lt, Int) => S::SLessThan,
                    (Op::Lt, _) => S::ULessThan,
                    (Op::Le, Float) => S::FOrdLessThanEqual,
                    (Op::Le, Int) => S::SLessThanEqual,
                    (Op::Le, _) => S::ULessThanEqual,
                    (Op::Gt, Float) => S::FOrdGreaterThan,
                    (Op::Gt, Int) => S::SGreaterThan,
                    (Op::Gt, _) => S::UGreaterThan,
                    (Op::Ge, Float) => S::FOrdGreaterThanEqual,
                    (Op::Ge, Int) => S::SGreaterThanEqual,
                    _ => S::UGreaterThanEqual,
                };
                if k == Bool && !matches!(op, Op::Eq | Op::Ne) {
                    return Err(EmitError::new(OPERANDS, "ordering comparison of bools"));
                }
                let ty = self.result_ty(i)?;
                let id = self.id_of(i);
                let a = self.val(m.operand(i, 0))?;
                let b = self.val(m.operand(i, 1))?;
                inst(&mut self.f.body, sop, &[ty, id, a, b]);
                Ok(())
            }
            Op::MatMul => self.matmul(i),
            Op::Convert => self.convert(i),
            Op::Bitcast => self.unary(i, S::Bitcast),
            Op::Construct => self.construct(i),
            Op::Extract => {
                let ty = self.result_ty(i)?;
                let id = self.id_of(i);
                let mut w: Words = SmallVec::new();
                w.push(ty);
                w.push(id);
                w.push(self.val(m.operand(i, 0))?);
                for k in 1..m.num_operands(i) {
                    w.push(m.imm_operand(i, k).unwrap_or(0));
                }
                inst(&mut self.f.body, S::CompositeExtract, &w);
                Ok(())
            }
            Op::Insert => {
                let ty = self.result_ty(i)?;
                let id = self.id_of(i);
                let composite = self.val(m.operand(i, 0))?;
                let object = self.val(m.operand(i, 1))?;
                let mut w: Words = SmallVec::new();
                w.extend_from_slice(&[ty, id, object, composite]);
                for k in 2..m.num_operands(i) {
                    w.push(m.imm_operand(i, k).unwrap_or(0));
                }
                inst(&mut self.f.body, S::CompositeInsert, &w);
                Ok(())
            }
            Op::ExtractDyn | Op::InsertDyn => self.dynamic_index(i),
            Op::Shuffle => {
                let ty = self.result_ty(i)?;
                let id = self.id_of(i);
                let a = self.val(m.operand(i, 0))?;
                let b = self.val(m.operand(i, 1))?;
                let mut w: Words = SmallVec::new();
                w.extend_from_slice(&[ty, id, a, b]);
                for k in 2..m.num_operands(i) {
                    w.push(m.imm_operand(i, k).unwrap_or(0));
                }
                inst(&mut self.f.body, S::VectorShuffle, &w);
                Ok(())
            }
            Op::Select => self.select(i),
            Op::Var => {
                let ty = self.result_ty(i)?;
                let id = self.id_of(i);
                inst(
                    &mut self.f.vars,
                    S::Variable,
                    &[ty, id, spirv::StorageClass::Function as u32],
                );
                self.name(id, m.name(i));
                Ok(())
            }
            Op::Load => self.load(i),
            Op::Store => self.store(i),
            Op::FieldAddr | Op::ElementAddr => self.access_chain(i),
            Op::TexelAddr => {
                let ty = self.result_ty(i)?;
                let id = self.id_of(i);
                let img = self.val(m.operand(i, 0))?;
                let coord = self.val(m.operand(i, 1))?;
                let sample = self.val(m.operand(i, 2))?;
                inst(
                    &mut self.f.body,
                    S::ImageTexelPointer,
                    &[ty, id, img, coord, sample],
                );
                Ok(())
            }
            Op::Call => self.call(i),
            Op::CallIntrinsic => self.intrinsic(i),
            Op::Sample
            | Op::SampleBias
            | Op::SampleLevel
            | Op::SampleGrad
            | Op::SampleCmp
            | Op::SampleCmpLevelZero
            | Op::Gather
            | Op::GatherCmp
            | Op::TextureLoad
            | Op::TextureStore
            | Op::QuerySize
            | Op::QueryLevels
            | Op::QuerySamples
            | Op::QueryLod
            | Op::SampleCmpLevel
            | Op::SampleCmpBias
            | Op::SampleCmpGrad => self.texture_op(i),
            Op::BufferLoad | Op::BufferStore => self.byte_buffer(i),
            Op::AtomicRmw | Op::AtomicCmpXchg => self.atomic(i),
            Op::Barrier => self.barrier(i),
            Op::ArrayLength => self.array_length(i),
            Op::EmitVertex | Op::EndPrimitive => {
                let stream = m.imm_operand(i, 0).unwrap_or(0);
                let emit = m.op(i) == Op::EmitVertex;
                if stream == 0 {
                    let op = if emit { S::EmitVertex } else { S::EndPrimitive };
                    inst(&mut self.f.body, op, &[]);
                } else {
                    self.caps.add(rspirv::spirv::Capability::GeometryStreams);
                    let c = self.const_u32(stream);
                    let op = if emit {
                        S::EmitStreamVertex
                    } else {
                        S::EndStreamPrimitive
                    };
                    inst(&mut self.f.body, op, &[c]);
                }
                Ok(())
            }
            Op::SetMeshOutputs => {
                let v = self.val(m.operand(i, 0))?;
                let p = self.val(m.operand(i, 1))?;
                inst(&mut self.f.body, S::SetMeshOutputsEXT, &[v, p]);
                Ok(())
            }
            Op::TraceRay => {
                let accel = self.load_accel(m.operand(i, 0))?;
                let mut args: SmallVec<[u32; 11]> = SmallVec::new();
                args.push(accel);
                for k in 1..11 {
                    args.push(self.val(m.operand(i, k))?);
                }
                inst(&mut self.f.body, S::TraceRayKHR, &args);
                Ok(())
            }
            Op::ReportHit => {
                let ty = self.result_ty(i)?;
                let id = self.id_of(i);
                let t = self.val(m.operand(i, 0))?;
                let kind = self.val(m.operand(i, 1))?;
                inst(
                    &mut self.f.body,
                    S::ReportIntersectionKHR,
                    &[ty, id, t, kind],
                );
                Ok(())
            }
            Op::ExecuteCallable => {
                let sbt = self.val(m.operand(i, 0))?;
                let data = self.val(m.operand(i, 1))?;
                inst(&mut self.f.body, S::ExecuteCallableKHR, &[sbt, data]);
                Ok(())
            }
            Op::RayQueryInit
            | Op::RayQueryProceed
            | Op::RayQueryAbort
            | Op::RayQueryConfirm
            | Op::RayQueryGenerate
            | Op::RayQueryGet => self.ray_query(i),
            other => Err(EmitError::new(
                MALFORMED,
                format!("`{}` is not an instruction", other.spelling()),
            )),
        }
    }

    fn shift(&mut self, i: InstId) -> R<()> {
        use spirv::Op as S;
        let m = self.m;
        let k = self.kind_of(i, 0)?;
        let sop = match (m.op(i), k) {
            (Op::Shl, _) => S::ShiftLeftLogical,
            (_, ScalarKind::Int) => S::ShiftRightArithmetic,
            _ => S::ShiftRightLogical,
        };
        let ty = self.result_ty(i)?;
        let id = self.id_of(i);
        let a = self.val(m.operand(i, 0))?;
        let amount = m.operand(i, 1);
        let amount_ty = m
            .ty(amount)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped shift amount"))?;
        let bits = m
            .ty(m.operand(i, 0))
            .and_then(|t| m.scalar_of(t))
            .and_then(|s| m.scalar_bits(s))
            .unwrap_or(32);
        // The IR masks the shift amount to the width (HLSL's rule); SPIR-V leaves larger
        // amounts undefined, so mask unless the amount is a constant already in range.
        let in_range = m
            .const_int_value(amount)
            .is_some_and(|v| v >= 0 && v < bits as i128);
        let b = if in_range {
            self.val(amount)?
        } else {
            let mask = self.splat_const(amount_ty, bits as i64 - 1)?;
            let b = self.val(amount)?;
            let t = self.ty(amount_ty)?;
            let r = self.fresh();
            inst(&mut self.f.body, S::BitwiseAnd, &[t, r, b, mask]);
            r
        };
        inst(&mut self.f.body, sop, &[ty, id, a, b]);
        Ok(())
    }

    fn matmul(&mut self, i: InstId) -> R<()> {
        use spirv::Op as S;
        let m = self.m;
        let ty = self.result_ty(i)?;
        let id = self.id_of(i);
        let a_ir = m.operand(i, 0);
        let b_ir = m.operand(i, 1);
        let ta = m.ty(a_ir).map(|t| m.op(t));
        let tb = m.ty(b_ir).map(|t| m.op(t));
        let a = self.val(a_ir)?;
        let b = self.val(b_ir)?;
        // HLSL rows are SPIR-V columns: every product swaps its operands.
        let (sop, x, y) = match (ta, tb) {
            (Some(Op::Vector), Some(Op::Matrix)) => (S::MatrixTimesVector, b, a),
            (Some(Op::Matrix), Some(Op::Vector)) => (S::VectorTimesMatrix, b, a),
            (Some(Op::Matrix), Some(Op::Matrix)) => (S::MatrixTimesMatrix, b, a),
            (Some(Op::Vector), Some(Op::Vector)) => (S::Dot, a, b),
            (Some(Op::Matrix), Some(s)) if s.is_float_type() => (S::MatrixTimesScalar, a, b),
            (Some(s), Some(Op::Matrix)) if s.is_float_type() => (S::MatrixTimesScalar, b, a),
            _ => {
                return Err(EmitError::new(
                    OPERANDS,
                    "`matmul` needs float matrix and vector operands",
                ));
            }
        };
        inst(&mut self.f.body, sop, &[ty, id, x, y]);
        self.precise(i, id);
        Ok(())
    }

    fn convert(&mut self, i: InstId) -> R<()> {
        use spirv::Op as S;
        let m = self.m;
        let to_ir = m
            .ty(i)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped conversion"))?;
        let from_ir = m
            .ty(m.operand(i, 0))
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped operand"))?;
        let id = self.id_of(i);
        let v = self.val(m.operand(i, 0))?;
        if m.op(to_ir) == Op::Matrix {
            let (rows, cols) = m.matrix_dims(to_ir).unwrap_or((0, 0));
            let to_elem_ir = m.operand(to_ir, 0);
            let from_elem_ir = m.operand(from_ir, 0);
            let to_row = {
                let e = self.ty(to_elem_ir)?;
                self.vec_ty(e, cols)
            };
            let from_row = {
                let e = self.ty(from_elem_ir)?;
                self.vec_ty(e, cols)
            };
            let ty = self.ty(to_ir)?;
            let sop = self.conversion_op(from_elem_ir, to_elem_ir)?;
            let mut w: Words = SmallVec::new();
            w.push(ty);
            w.push(id);
            for r in 0..rows {
                let x = self.fresh();
                let y = self.fresh();
                inst(&mut self.f.body, S::CompositeExtract, &[from_row, x, v, r]);
                match sop {
                    Some(sop) => inst(&mut self.f.body, sop, &[to_row, y, x]),
                    None => inst(&mut self.f.body, S::CopyObject, &[to_row, y, x]),
                }
                w.push(y);
            }
            inst(&mut self.f.body, S::CompositeConstruct, &w);
            return Ok(());
        }
        let ty = self.ty(to_ir)?;
        let from_s = m
            .scalar_of(from_ir)
            .ok_or_else(|| EmitError::new(OPERANDS, "`convert` of a non-numeric value"))?;
        let to_s = m
            .scalar_of(to_ir)
            .ok_or_else(|| EmitError::new(OPERANDS, "`convert` to a non-numeric type"))?;
        if m.op(to_s) == Op::Bool {
            // Nonzero is true.
            let zero = self.splat_const(from_ir, 0)?;
            let sop = if m.op(from_s).is_float_type() {
                S::FUnordNotEqual
            } else if m.op(from_s) == Op::Bool {
                inst(&mut self.f.body, S::CopyObject, &[ty, id, v]);
                return Ok(());
            } else {
                S::INotEqual
            };
            inst(&mut self.f.body, sop, &[ty, id, v, zero]);
            return Ok(());
        }
        if m.op(from_s) == Op::Bool {
            let one = self.splat_const(to_ir, 1)?;
            let zero = self.splat_const(to_ir, 0)?;
            inst(&mut self.f.body, S::Select, &[ty, id, v, one, zero]);
            return Ok(());
        }
        let (fop, top) = (m.op(from_s), m.op(to_s));
        if fop.is_int_type()
            && !fop.is_signed_int_type()
            && top.is_signed_int_type()
            && m.scalar_bits(from_s) != m.scalar_bits(to_s)
        {
            // Zero-extension into a signed type: OpUConvert yields unsigned, then a bitcast.
            let width = m.scalar_bits(to_s).unwrap_or(32);
            let u = self.int_ty(width, false);
            let ut = self.vec_ty(u, m.vector_len(to_ir).unwrap_or(1));
            let t = self.fresh();
            inst(&mut self.f.body, S::UConvert, &[ut, t, v]);
            inst(&mut self.f.body, S::Bitcast, &[ty, id, t]);
            return Ok(());
        }
        match self.conversion_op(from_s, to_s)? {
            Some(sop) => inst(&mut self.f.body, sop, &[ty, id, v]),
            None => inst(&mut self.f.body, S::CopyObject, &[ty, id, v]),
        }
        Ok(())
    }

    /// The opcode converting scalars of IR type `from` to `to` (`None`: the same type).
    fn conversion_op(&self, from: InstId, to: InstId) -> R<Option<spirv::Op>> {
        use spirv::Op as S;
        let m = self.m;
        let (f, t) = (m.op(from), m.op(to));
        if f == t {
            return Ok(None);
        }
        let fb = m.scalar_bits(from).unwrap_or(32);
        let tb = m.scalar_bits(to).unwrap_or(32);
        Ok(Some(match (f.is_float_type(), t.is_float_type()) {
            (true, true) => S::FConvert,
            (true, false) => {
                if t.is_signed_int_type() {
                    S::ConvertFToS
                } else {
                    S::ConvertFToU
                }
            }
            (false, true) => {
                if f.is_signed_int_type() {
                    S::ConvertSToF
                } else {
                    S::ConvertUToF
                }
            }
            (false, false) => {
                if fb == tb {
                    S::Bitcast
                } else if f.is_signed_int_type() {
                    // Sign-extend from a signed source (SConvert may change signedness).
                    S::SConvert
                } else {
                    S::UConvert
                }
            }
        }))
    }

    /// The scalar a splat `construct` repeats (`construct vec<T, N>(s)` or `(s, s, .., s)`).
    fn splat_scalar(&self, v: InstId) -> Option<InstId> {
        let m = self.m;
        let ty = m.ty(v)?;
        if m.try_op(v) != Some(Op::Construct) || m.op(ty) != Op::Vector {
            return None;
        }
        let s = m.operand(v, 0);
        let scalar = m.ty(s).is_some() && m.ty(s) == m.scalar_of(ty);
        (scalar && m.operands(v).all(|x| x == s)).then_some(s)
    }

    /// `(vector, scalar)` when the float `mul` `i` multiplies a vector by a splat of a
    /// scalar (and not a splat by a splat): SPIR-V's `OpVectorTimesScalar`, which spares the
    /// splat.
    fn vector_times_scalar(&self, i: InstId) -> Option<(InstId, InstId)> {
        let m = self.m;
        if m.ty(i).is_none_or(|t| m.op(t) != Op::Vector) {
            return None;
        }
        let (a, b) = (m.operand(i, 0), m.operand(i, 1));
        match (self.splat_scalar(a), self.splat_scalar(b)) {
            (None, Some(s)) => Some((a, s)),
            (Some(s), None) => Some((b, s)),
            _ => None,
        }
    }

    fn construct(&mut self, i: InstId) -> R<()> {
        let m = self.m;
        // A splat only vector-times-scalar multiplications use is never needed: each of
        // them reads the scalar.
        if self.splat_scalar(i).is_some()
            && m.uses(i).all(|u| {
                m.op(u.user) == Op::Mul
                    && self.kind_of(u.user, 0).ok() == Some(ScalarKind::Float)
                    && self.vector_times_scalar(u.user).is_some()
            })
            && m.uses(i).next().is_some()
        {
            return Ok(());
        }
        let ty_ir = m
            .ty(i)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped construct"))?;
        let ty = self.ty(ty_ir)?;
        let id = self.id_of(i);
        let n = m.num_operands(i);
        if n + 3 > super::module::MAX_WORDS {
            return Err(super::constants::too_many_elements(
                m,
                ty_ir,
                n,
                "`construct`",
            ));
        }
        let mut w: Words = SmallVec::new();
        w.push(ty);
        w.push(id);
        for k in 0..n {
            w.push(self.val(m.operand(i, k))?);
        }
        if m.op(ty_ir) == Op::Vector && n == 1 {
            // A splat: one scalar for every component.
            let len = m.vector_len(ty_ir).unwrap_or(1);
            let s = w[2];
            for _ in 1..len {
                w.push(s);
            }
        }
        inst(&mut self.f.body, spirv::Op::CompositeConstruct, &w);
        Ok(())
    }

    /// `extract_dyn` / `insert_dyn`: on vectors directly; on arrays and matrices through a
    /// function variable (SPIR-V has no dynamic extract from an array value).
    fn dynamic_index(&mut self, i: InstId) -> R<()> {
        use spirv::Op as S;
        let m = self.m;
        let comp_ir = m.operand(i, 0);
        let comp_ty_ir = m
            .ty(comp_ir)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped operand"))?;
        let ty = self.result_ty(i)?;
        let id = self.id_of(i);
        let comp = self.val(comp_ir)?;
        let is_extract = m.op(i) == Op::ExtractDyn;
        let index_ir = if is_extract {
            m.operand(i, 1)
        } else {
            m.operand(i, 2)
        };
        let index = self.val(index_ir)?;
        if m.op(comp_ty_ir) == Op::Vector {
            if is_extract {
                inst(
                    &mut self.f.body,
                    S::VectorExtractDynamic,
                    &[ty, id, comp, index],
                );
            } else {
                let v = self.val(m.operand(i, 1))?;
                inst(
                    &mut self.f.body,
                    S::VectorInsertDynamic,
                    &[ty, id, comp, v, index],
                );
            }
            return Ok(());
        }
        let comp_ty = self.ty(comp_ty_ir)?;
        let var_ty = self.ptr_spv(spirv::StorageClass::Function, comp_ty);
        let var = self.fresh();
        inst(
            &mut self.f.vars,
            S::Variable,
            &[var_ty, var, spirv::StorageClass::Function as u32],
        );
        inst(&mut self.f.body, S::Store, &[var, comp]);
        let elem_ir = if is_extract {
            m.ty(i)
        } else {
            m.ty(m.operand(i, 1))
        }
        .ok_or_else(|| EmitError::new(MALFORMED, "an untyped operand"))?;
        let elem = self.ty(elem_ir)?;
        let elem_ptr = self.ptr_spv(spirv::StorageClass::Function, elem);
        let p = self.fresh();
        inst(&mut self.f.body, S::AccessChain, &[elem_ptr, p, var, index]);
        if is_extract {
            inst(&mut self.f.body, S::Load, &[ty, id, p]);
        } else {
            let v = self.val(m.operand(i, 1))?;
            inst(&mut self.f.body, S::Store, &[p, v]);
            inst(&mut self.f.body, S::Load, &[ty, id, var]);
        }
        Ok(())
    }

    fn select(&mut self, i: InstId) -> R<()> {
        let m = self.m;
        let ty_ir = m
            .ty(i)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped select"))?;
        let ty = self.ty(ty_ir)?;
        let id = self.id_of(i);
        let c_ir = m.operand(i, 0);
        let mut c = self.val(c_ir)?;
        let a = self.val(m.operand(i, 1))?;
        let b = self.val(m.operand(i, 2))?;
        let cond_scalar = m.ty(c_ir).is_some_and(|t| m.op(t) == Op::Bool);
        match m.op(ty_ir) {
            Op::Vector if cond_scalar && self.minor < 4 => {
                // Before SPIR-V 1.4 the condition of a vector select is a vector.
                let n = m.vector_len(ty_ir).unwrap_or(1);
                let bt = self.bool_ty();
                let bv = self.vec_ty(bt, n);
                let s = self.fresh();
                let mut w: Words = SmallVec::new();
                w.extend_from_slice(&[bv, s]);
                for _ in 0..n {
                    w.push(c);
                }
                inst(&mut self.f.body, spirv::Op::CompositeConstruct, &w);
                c = s;
            }
            op if !op.is_scalar_type() && op != Op::Vector && self.minor < 4 => {
                if !cond_scalar {
                    return Err(EmitError::new(
                        OPERANDS,
                        "`select` of a composite value needs a scalar condition",
                    ));
                }
                // Before SPIR-V 1.4 OpSelect takes scalars and vectors only: select member
                // by member.
                let r = self.select_members(c, a, b, ty_ir)?;
                inst(&mut self.f.body, spirv::Op::CopyObject, &[ty, id, r]);
                return Ok(());
            }
            _ => {}
        }
        inst(&mut self.f.body, spirv::Op::Select, &[ty, id, c, a, b]);
        Ok(())
    }

    /// `c ? a : b` on composites of IR type `t`, member by member (scalar condition).
    fn select_members(&mut self, c: u32, a: u32, b: u32, t: InstId) -> R<u32> {
        use spirv::Op as S;
        let m = self.m;
        let ty = self.ty(t)?;
        let r = self.fresh();
        let op = m.op(t);
        if op.is_scalar_type() || op == Op::Vector {
            let mut cond = c;
            if op == Op::Vector {
                let n = m.vector_len(t).unwrap_or(1);
                let bt = self.bool_ty();
                let bv = self.vec_ty(bt, n);
                cond = self.fresh();
                let mut w: Words = SmallVec::new();
                w.extend_from_slice(&[bv, cond]);
                for _ in 0..n {
                    w.push(c);
                }
                inst(&mut self.f.body, S::CompositeConstruct, &w);
            }
            inst(&mut self.f.body, S::Select, &[ty, r, cond, a, b]);
            return Ok(r);
        }
        let members: Vec<InstId> = match op {
            Op::Struct => m.struct_fields(t).iter().filter_map(|&f| m.ty(f)).collect(),
            Op::Array => {
                let n = m.array_len(t).unwrap_or(0);
                vec![m.operand(t, 0); n as usize]
            }
            Op::Matrix => {
                // Rows are vectors: select each with the splatted condition.
                let (rows, cols) = m.matrix_dims(t).unwrap_or((0, 0));
                let elem = self.ty(m.operand(t, 0))?;
                let row_ty = self.vec_ty(elem, cols);
                let bt = self.bool_ty();
                let bv = self.vec_ty(bt, cols);
                let cond = self.fresh();
                let mut w: Words = SmallVec::new();
                w.extend_from_slice(&[bv, cond]);
                for _ in 0..cols {
                    w.push(c);
                }
                inst(&mut self.f.body, S::CompositeConstruct, &w);
                let mut out: Vec<u32> = vec![ty, r];
                for k in 0..rows {
                    let x = self.fresh();
                    let y = self.fresh();
                    let z = self.fresh();
                    inst(&mut self.f.body, S::CompositeExtract, &[row_ty, x, a, k]);
                    inst(&mut self.f.body, S::CompositeExtract, &[row_ty, y, b, k]);
                    inst(&mut self.f.body, S::Select, &[row_ty, z, cond, x, y]);
                    out.push(z);
                }
                inst(&mut self.f.body, S::CompositeConstruct, &out);
                return Ok(r);
            }
            _ => {
                return Err(EmitError::new(
                    OPERANDS,
                    "`select` of this type needs SPIR-V 1.4 (target vulkan1.1spirv1.4 or later)",
                ));
            }
        };
        let mut w: Vec<u32> = vec![ty, r];
        for (k, &mt) in members.iter().enumerate() {
            let mty = self.ty(mt)?;
            let x = self.fresh();
            let y = self.fresh();
            inst(
                &mut self.f.body,
                S::CompositeExtract,
                &[mty, x, a, k as u32],
            );
            inst(
                &mut self.f.body,
                S::CompositeExtract,
                &[mty, y, b, k as u32],
            );
            w.push(self.select_members(c, x, y, mt)?);
        }
        inst(&mut self.f.body, S::CompositeConstruct, &w);
        Ok(r)
    }

    /// The pointer operand `p` as a SPIR-V pointer: a buffer global wrapped in a `Block`
    /// struct is reached through its member 0.
    pub(crate) fn ptr_operand(&mut self, p: InstId) -> R<u32> {
        if self.wrapped.contains_key(p) {
            let ty = self.member_ptr_type(p)?;
            let g = self.val(p)?;
            let zero = self.const_u32(0);
            let id = self.fresh();
            inst(&mut self.f.body, spirv::Op::AccessChain, &[ty, id, g, zero]);
            return Ok(id);
        }
        self.val(p)
    }

    /// The SPIR-V pointer type to the member 0 of a wrapped buffer pointer `p`: the IR
    /// pointee with its explicit layout.
    fn member_ptr_type(&mut self, p: InstId) -> R<u32> {
        if !self.block_ptrs.contains_key(p) {
            return self.value_ptr_type(p);
        }
        let m = self.m;
        let t = m
            .ty(p)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped pointer"))?;
        let (Some(space), Some(pointee)) = (m.address_space(t), m.pointee(t)) else {
            return Err(EmitError::new(MALFORMED, "not a pointer"));
        };
        let rm = self.ptr_row_major(p);
        let lk = self.lk_of_value(p, space, rm);
        self.ptr_type(space, pointee, lk)
    }

    /// The layout of values reached through the pointer `p`.
    fn lk_of_ptr(&self, p: InstId) -> Lk {
        let m = self.m;
        let Some(space) = m.ty(p).and_then(|t| m.address_space(t)) else {
            return Lk::Logical;
        };
        match self.rule_of_ptr(p, space) {
            // A buffer global that is a struct is the `Block` struct itself (so is an element
            // of an array of buffers).
            Some(rule)
                if (m.op(p) == Op::Global || self.block_ptrs.contains_key(p))
                    && !self.wrapped.contains_key(p) =>
            {
                Lk::Block(rule, false)
            }
            Some(rule) => Lk::Explicit(rule, self.ptr_row_major(p)),
            None => Lk::Logical,
        }
    }

    fn load(&mut self, i: InstId) -> R<()> {
        let m = self.m;
        let p = m.operand(i, 0);
        let t = m
            .ty(i)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped load"))?;
        let lt = self.ty(t)?;
        let ptr = self.ptr_operand(p)?;
        let id = self.id_of(i);
        let lk = self.lk_of_ptr(p);
        if lk != Lk::Logical {
            let xt = self.ty_in(t, lk)?;
            if xt != lt {
                let tmp = self.fresh();
                inst(&mut self.f.body, spirv::Op::Load, &[xt, tmp, ptr]);
                self.convert_layout(tmp, t, lk, Lk::Logical, Some(id))?;
                return Ok(());
            }
        }
        inst(&mut self.f.body, spirv::Op::Load, &[lt, id, ptr]);
        if self.nonuniform.contains(&p) {
            self.decorate(id, Decoration::NonUniform, &[]);
        }
        Ok(())
    }

    fn store(&mut self, i: InstId) -> R<()> {
        let m = self.m;
        let p = m.operand(i, 0);
        let v_ir = m.operand(i, 1);
        let t = m
            .ty(v_ir)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped stored value"))?;
        let ptr = self.ptr_operand(p)?;
        let mut v = self.val(v_ir)?;
        let lk = self.lk_of_ptr(p);
        if lk != Lk::Logical {
            v = self.convert_layout(v, t, Lk::Logical, lk, None)?;
        }
        inst(&mut self.f.body, spirv::Op::Store, &[ptr, v]);
        Ok(())
    }

    /// Converts the value `v` of IR type `t` from layout `from` to layout `to` (a struct or
    /// array in a buffer and the same as a value differ in type id: `OpCopyLogical` from SPIR-V
    /// 1.4, member by member before). Writes the result to `result` when given.
    pub(crate) fn convert_layout(
        &mut self,
        v: u32,
        t: InstId,
        from: Lk,
        to: Lk,
        result: Option<u32>,
    ) -> R<u32> {
        use spirv::Op as S;
        let m = self.m;
        let fid = self.ty_in(t, from)?;
        let tid = self.ty_in(t, to)?;
        if fid == tid {
            if let Some(r) = result {
                inst(&mut self.f.body, S::CopyObject, &[tid, r, v]);
                return Ok(r);
            }
            return Ok(v);
        }
        let r = result.unwrap_or_else(|| self.fresh());
        if self.minor >= 4 {
            inst(&mut self.f.body, S::CopyLogical, &[tid, r, v]);
            return Ok(r);
        }
        let inner = |lk: Lk, row_major: bool| match lk {
            Lk::Logical => Lk::Logical,
            Lk::Explicit(rule, _) | Lk::Block(rule, _) | Lk::Descriptors(rule, _) => {
                Lk::Explicit(rule, row_major)
            }
        };
        match m.op(t) {
            Op::Struct => {
                let fields = m.struct_fields(t);
                let mut w: Words = SmallVec::new();
                w.push(tid);
                w.push(r);
                for (k, &f) in fields.iter().enumerate() {
                    let ft = m
                        .ty(f)
                        .ok_or_else(|| EmitError::new(MALFORMED, "an untyped field"))?;
                    let rm = oneshader_ir::layout::is_row_major(m, f);
                    let (ff, tf) = (inner(from, rm), inner(to, rm));
                    let fty = self.ty_in(ft, ff)?;
                    let e = self.fresh();
                    inst(
                        &mut self.f.body,
                        S::CompositeExtract,
                        &[fty, e, v, k as u32],
                    );
                    w.push(self.convert_layout(e, ft, ff, tf, None)?);
                }
                inst(&mut self.f.body, S::CompositeConstruct, &w);
            }
            Op::Array => {
                let n = m.array_len(t).unwrap_or(0);
                let et = m.operand(t, 0);
                let rm = |lk: Lk| match lk {
                    Lk::Explicit(_, rm) | Lk::Block(_, rm) | Lk::Descriptors(_, rm) => rm,
                    Lk::Logical => false,
                };
                let (ff, tf) = (inner(from, rm(from)), inner(to, rm(to)));
                let ety = self.ty_in(et, ff)?;
                let mut w: Vec<u32> = vec![tid, r];
                for k in 0..n {
                    let e = self.fresh();
                    inst(&mut self.f.body, S::CompositeExtract, &[ety, e, v, k]);
                    w.push(self.convert_layout(e, et, ff, tf, None)?);
                }
                inst(&mut self.f.body, S::CompositeConstruct, &w);
            }
            _ => {
                return Err(EmitError::new(
                    OPERANDS,
                    format!(
                        "cannot copy a `{}` between a buffer and a value",
                        oneshader_ir::print::print_inst(m, t)
                    ),
                ));
            }
        }
        Ok(r)
    }

    fn access_chain(&mut self, i: InstId) -> R<()> {
        let m = self.m;
        if self.folds_into_users(i) {
            return Ok(());
        }
        let base = m.operand(i, 0);
        let idx_ir = m.operand(i, 1);
        let element_buffer = self.desc_arrays.contains_key(base) && m.op(i) == Op::ElementAddr;
        if element_buffer {
            // An element of an array of buffers is a buffer: a pointer to a `Block` struct,
            // wrapped when the element type is not a struct.
            self.block_ptrs.insert(i, ());
            let elem = m.ty(i).and_then(|t| m.pointee(t));
            if elem.is_some_and(|t| m.op(t) != Op::Struct) {
                self.wrapped.insert(i, ());
            }
        }
        let ty = self.result_ty(i)?;
        let id = self.id_of(i);
        let idx = self.val(idx_ir)?;
        let nonuniform = m.has_decoration(i, Op::NonUniform)
            || self.nonuniform.contains(&base)
            || (m.op(idx_ir) == Op::CallIntrinsic
                && m.imm_operand(idx_ir, 0)
                    == Some(oneshader_ir::Intrinsic::NonUniformIndex.to_u32()));
        if element_buffer {
            let b = self.val(base)?;
            inst(&mut self.f.body, spirv::Op::AccessChain, &[ty, id, b, idx]);
        } else {
            let mut w: Words = SmallVec::from_slice(&[ty, id]);
            self.chain_base(base, &mut w)?;
            w.push(idx);
            inst(&mut self.f.body, spirv::Op::AccessChain, &w);
        }
        if nonuniform {
            self.nonuniform.insert(i);
            self.decorate(id, Decoration::NonUniform, &[]);
            self.nonuniform_caps(i);
        }
        Ok(())
    }

    /// Capabilities for indexing the resource array `p` points into non-uniformly.
    fn nonuniform_caps(&mut self, p: InstId) {
        let m = self.m;
        self.caps.add_ext(
            Capability::ShaderNonUniform,
            self.minor,
            5,
            "SPV_EXT_descriptor_indexing",
        );
        let Some(t) = m.ty(p) else { return };
        let space = m.address_space(t);
        let pointee = m.pointee(t);
        let cap = match (space, pointee.and_then(|pt| m.texture_desc(pt))) {
            (Some(AddressSpace::UniformConstant), Some(d)) => {
                let storage = d.access == oneshader_ir::TextureAccess::Storage;
                match (d.dim == oneshader_ir::Dim::Buffer, storage) {
                    (true, true) => Capability::StorageTexelBufferArrayNonUniformIndexing,
                    (true, false) => Capability::UniformTexelBufferArrayNonUniformIndexing,
                    (false, true) => Capability::StorageImageArrayNonUniformIndexing,
                    (false, false) => Capability::SampledImageArrayNonUniformIndexing,
                }
            }
            (Some(AddressSpace::UniformConstant), None) => {
                Capability::SampledImageArrayNonUniformIndexing
            }
            (Some(AddressSpace::StorageBuffer), _) => {
                Capability::StorageBufferArrayNonUniformIndexing
            }
            (Some(AddressSpace::Uniform), _) => Capability::UniformBufferArrayNonUniformIndexing,
            _ => return,
        };
        self.caps.add(cap);
    }

    fn call(&mut self, i: InstId) -> R<()> {
        let m = self.m;
        let callee = m.operand(i, 0);
        match m.try_op(callee) {
            Some(Op::Func) => {}
            Some(Op::Specialize) => {
                self.val(callee)?;
            }
            _ => {
                return Err(EmitError::new(
                    MALFORMED,
                    "a call's callee is not a function",
                ));
            }
        }
        let ty = self.result_ty(i)?;
        let id = self.id_of(i);
        let f = self.id_of(callee);
        let mut w: Words = SmallVec::new();
        w.extend_from_slice(&[ty, id, f]);
        for k in 1..m.num_operands(i) {
            let a = m.operand(i, k);
            if let Some(t) = m.ty(a)
                && m.op(t) == Op::Ptr
                && !matches!(
                    m.address_space(t),
                    Some(AddressSpace::Function | AddressSpace::Private | AddressSpace::Workgroup)
                )
            {
                return Err(EmitError::new(
                    POINTER,
                    format!(
                        "a call passes a resource or buffer pointer (`{}`), which SPIR-V's logical addressing cannot do; run the legalization pipeline (resource-parameter specialization) first",
                        oneshader_ir::print::print_inst(m, t)
                    ),
                ));
            }
            w.push(self.val(a)?);
        }
        inst(&mut self.f.body, spirv::Op::FunctionCall, &w);
        Ok(())
    }

    /// `buffer_load` / `buffer_store` on a byte-address buffer (`rtarray<u32>`): the byte
    /// offset is divided by 4 and each 32-bit component is read or written in turn.
    fn byte_buffer(&mut self, i: InstId) -> R<()> {
        use spirv::Op as S;
        let m = self.m;
        let buf = m.operand(i, 0);
        let off_ir = m.operand(i, 1);
        let is_load = m.op(i) == Op::BufferLoad;
        let vty_ir = if is_load {
            m.ty(i)
        } else {
            m.ty(m.operand(i, 2))
        }
        .ok_or_else(|| EmitError::new(MALFORMED, "an untyped buffer access"))?;
        let scalar =
            crate::words::word_scalar(m, i, vty_ir).map_err(|msg| EmitError::new(OPERANDS, msg))?;
        let n = m.vector_len(vty_ir).unwrap_or(1);
        let off_ty_ir = m
            .ty(off_ir)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped offset"))?;
        let off_ty = self.ty(off_ty_ir)?;
        let off = self.val(off_ir)?;
        let two = self.splat_const(off_ty_ir, 2)?;
        let index = self.fresh();
        inst(
            &mut self.f.body,
            S::ShiftRightLogical,
            &[off_ty, index, off, two],
        );
        let u = self.u32_ty();
        let elem_ptr = self.ptr_spv(spirv::StorageClass::StorageBuffer, u);
        let wrapped = self.wrapped.contains_key(buf);
        let base = self.val(buf)?;
        let zero = self.const_u32(0);
        let sty = self.ty(scalar)?;
        let needs_cast = m.op(scalar) != Op::U32;
        let mut parts: Words = SmallVec::new();
        let value = if is_load {
            None
        } else {
            Some(self.val(m.operand(i, 2))?)
        };
        let vty = self.ty(vty_ir)?;
        for k in 0..n {
            let idx = if k == 0 {
                index
            } else {
                let kc = self.splat_const(off_ty_ir, k as i64)?;
                let r = self.fresh();
                inst(&mut self.f.body, S::IAdd, &[off_ty, r, index, kc]);
                r
            };
            let p = self.fresh();
            if wrapped {
                inst(
                    &mut self.f.body,
                    S::AccessChain,
                    &[elem_ptr, p, base, zero, idx],
                );
            } else {
                inst(&mut self.f.body, S::AccessChain, &[elem_ptr, p, base, idx]);
            }
            if let Some(v) = value {
                let mut c = v;
                if n > 1 {
                    c = self.fresh();
                    inst(&mut self.f.body, S::CompositeExtract, &[sty, c, v, k]);
                }
                if needs_cast {
                    let b = self.fresh();
                    inst(&mut self.f.body, S::Bitcast, &[u, b, c]);
                    c = b;
                }
                inst(&mut self.f.body, S::Store, &[p, c]);
            } else {
                let l = self.fresh();
                inst(&mut self.f.body, S::Load, &[u, l, p]);
                let mut c = l;
                if needs_cast {
                    c = self.fresh();
                    inst(&mut self.f.body, S::Bitcast, &[sty, c, l]);
                }
                parts.push(c);
            }
        }
        if is_load {
            let id = self.id_of(i);
            if n == 1 {
                inst(&mut self.f.body, S::CopyObject, &[vty, id, parts[0]]);
            } else {
                let mut w: Words = SmallVec::new();
                w.extend_from_slice(&[vty, id]);
                w.extend_from_slice(&parts);
                inst(&mut self.f.body, S::CompositeConstruct, &w);
            }
        }
        Ok(())
    }

    fn atomic(&mut self, i: InstId) -> R<()> {
        use spirv::Op as S;
        let m = self.m;
        let is_rmw = m.op(i) == Op::AtomicRmw;
        let p_ir = if is_rmw {
            m.operand(i, 1)
        } else {
            m.operand(i, 0)
        };
        let ty_ir = m
            .ty(i)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped atomic"))?;
        let k = m.scalar_kind(ty_ir);
        if !matches!(k, Some(ScalarKind::Int | ScalarKind::Uint)) || m.op(ty_ir) == Op::Vector {
            return Err(EmitError::new(
                OPERANDS,
                format!(
                    "atomics on `{}` are not supported (integer scalars only)",
                    oneshader_ir::print::print_inst(m, ty_ir)
                ),
            ));
        }
        if m.scalar_bits(ty_ir) == Some(64) {
            self.caps.add(Capability::Int64Atomics);
        }
        let space = m.ty(p_ir).and_then(|t| m.address_space(t));
        let scope = if space == Some(AddressSpace::Workgroup) {
            SCOPE_WORKGROUP
        } else {
            SCOPE_DEVICE
        };
        let ty = self.ty(ty_ir)?;
        let id = self.id_of(i);
        let p = self.ptr_operand(p_ir)?;
        let scope = self.const_u32(scope);
        let relaxed = self.const_u32(0);
        if is_rmw {
            let aop = m
                .imm_operand(i, 0)
                .and_then(AtomicOp::from_u32)
                .ok_or_else(|| EmitError::new(MALFORMED, "unknown atomic operation"))?;
            let v = self.val(m.operand(i, 2))?;
            let signed = k == Some(ScalarKind::Int);
            let sop = match aop {
                AtomicOp::Add => S::AtomicIAdd,
                AtomicOp::Sub => S::AtomicISub,
                AtomicOp::Min if signed => S::AtomicSMin,
                AtomicOp::Min => S::AtomicUMin,
                AtomicOp::Max if signed => S::AtomicSMax,
                AtomicOp::Max => S::AtomicUMax,
                AtomicOp::And => S::AtomicAnd,
                AtomicOp::Or => S::AtomicOr,
                AtomicOp::Xor => S::AtomicXor,
                AtomicOp::Exchange | AtomicOp::Store => S::AtomicExchange,
                AtomicOp::Load => {
                    inst(
                        &mut self.f.body,
                        S::AtomicLoad,
                        &[ty, id, p, scope, relaxed],
                    );
                    return Ok(());
                }
            };
            inst(&mut self.f.body, sop, &[ty, id, p, scope, relaxed, v]);
        } else {
            let cmp = self.val(m.operand(i, 1))?;
            let v = self.val(m.operand(i, 2))?;
            inst(
                &mut self.f.body,
                S::AtomicCompareExchange,
                &[ty, id, p, scope, relaxed, relaxed, v, cmp],
            );
        }
        Ok(())
    }

    /// Loads the acceleration structure the pointer `p` designates (SPIR-V's ray
    /// instructions take the handle).
    fn load_accel(&mut self, p: InstId) -> R<u32> {
        let m = self.m;
        let pointee = m.ty(p).and_then(|t| m.pointee(t)).ok_or_else(|| {
            EmitError::new(
                MALFORMED,
                "an acceleration structure operand is not a pointer",
            )
        })?;
        let t = self.ty(pointee)?;
        let ptr = self.ptr_operand(p)?;
        let id = self.fresh();
        inst(&mut self.f.body, spirv::Op::Load, &[t, id, ptr]);
        Ok(id)
    }

    /// The `ray_query_*` instructions (SPV_KHR_ray_query).
    fn ray_query(&mut self, i: InstId) -> R<()> {
        use oneshader_ir::RayQueryValue as V;
        use spirv::Op as S;
        let m = self.m;
        self.ray_query_caps();
        let op = m.op(i);
        let q_index = if op == Op::RayQueryGet { 1 } else { 0 };
        let q = self.ptr_operand(m.operand(i, q_index))?;
        match op {
            Op::RayQueryInit => {
                let accel = self.load_accel(m.operand(i, 1))?;
                let mut args: SmallVec<[u32; 8]> = SmallVec::new();
                args.push(q);
                args.push(accel);
                for k in 2..8 {
                    args.push(self.val(m.operand(i, k))?);
                }
                inst(&mut self.f.body, S::RayQueryInitializeKHR, &args);
            }
            Op::RayQueryProceed => {
                let ty = self.result_ty(i)?;
                let id = self.id_of(i);
                inst(&mut self.f.body, S::RayQueryProceedKHR, &[ty, id, q]);
            }
            Op::RayQueryAbort => inst(&mut self.f.body, S::RayQueryTerminateKHR, &[q]),
            Op::RayQueryConfirm => inst(&mut self.f.body, S::RayQueryConfirmIntersectionKHR, &[q]),
            Op::RayQueryGenerate => {
                let t = self.val(m.operand(i, 1))?;
                inst(
                    &mut self.f.body,
                    S::RayQueryGenerateIntersectionKHR,
                    &[q, t],
                );
            }
            _ => {
                let which = m
                    .imm_operand(i, 0)
                    .and_then(V::from_u32)
                    .ok_or_else(|| EmitError::new(MALFORMED, "unknown ray-query value"))?;
                let ty = self.result_ty(i)?;
                let id = self.id_of(i);
                // The reads of the ray itself take no intersection operand.
                let (sop, per_intersection) = match which {
                    V::RayFlags => (S::RayQueryGetRayFlagsKHR, false),
                    V::RayTmin => (S::RayQueryGetRayTMinKHR, false),
                    V::WorldRayOrigin => (S::RayQueryGetWorldRayOriginKHR, false),
                    V::WorldRayDirection => (S::RayQueryGetWorldRayDirectionKHR, false),
                    V::CandidateAabbOpaque => {
                        (S::RayQueryGetIntersectionCandidateAABBOpaqueKHR, false)
                    }
                    V::CandidateType | V::CommittedStatus => {
                        (S::RayQueryGetIntersectionTypeKHR, true)
                    }
                    V::CandidateT | V::CommittedT => (S::RayQueryGetIntersectionTKHR, true),
                    V::CandidateInstanceIndex | V::CommittedInstanceIndex => {
                        (S::RayQueryGetIntersectionInstanceIdKHR, true)
                    }
                    V::CandidateInstanceId | V::CommittedInstanceId => {
                        (S::RayQueryGetIntersectionInstanceCustomIndexKHR, true)
                    }
                    V::CandidateSbtOffset | V::CommittedSbtOffset => (
                        S::RayQueryGetIntersectionInstanceShaderBindingTableRecordOffsetKHR,
                        true,
                    ),
                    V::CandidateGeometryIndex | V::CommittedGeometryIndex => {
                        (S::RayQueryGetIntersectionGeometryIndexKHR, true)
                    }
                    V::CandidatePrimitiveIndex | V::CommittedPrimitiveIndex => {
                        (S::RayQueryGetIntersectionPrimitiveIndexKHR, true)
                    }
                    V::CandidateBarycentrics | V::CommittedBarycentrics => {
                        (S::RayQueryGetIntersectionBarycentricsKHR, true)
                    }
                    V::CandidateFrontFace | V::CommittedFrontFace => {
                        (S::RayQueryGetIntersectionFrontFaceKHR, true)
                    }
                    V::CandidateObjectRayDirection | V::CommittedObjectRayDirection => {
                        (S::RayQueryGetIntersectionObjectRayDirectionKHR, true)
                    }
                    V::CandidateObjectRayOrigin | V::CommittedObjectRayOrigin => {
                        (S::RayQueryGetIntersectionObjectRayOriginKHR, true)
                    }
                    V::CandidateObjectToWorld | V::CommittedObjectToWorld => {
                        (S::RayQueryGetIntersectionObjectToWorldKHR, true)
                    }
                    V::CandidateWorldToObject | V::CommittedWorldToObject => {
                        (S::RayQueryGetIntersectionWorldToObjectKHR, true)
                    }
                };
                if per_intersection {
                    let committed = self.const_u32(which.is_committed() as u32);
                    inst(&mut self.f.body, sop, &[ty, id, q, committed]);
                } else {
                    inst(&mut self.f.body, sop, &[ty, id, q]);
                }
            }
        }
        Ok(())
    }

    fn barrier(&mut self, i: InstId) -> R<()> {
        let m = self.m;
        let flags = BarrierFlags(m.imm_operand(i, 0).unwrap_or(0));
        let device = flags.contains(BarrierFlags::DEVICE_MEMORY);
        let mut sem = 0;
        if flags.contains(BarrierFlags::WORKGROUP_MEMORY) {
            sem |= SEM_WORKGROUP;
        }
        if device {
            sem |= SEM_UNIFORM | SEM_IMAGE;
        }
        if sem != 0 {
            sem |= SEM_ACQ_REL;
        }
        // Without memory semantics the memory scope names no memory: `Invocation` (glslang's
        // choice; Vulkan forbids a `Workgroup` memory scope in tessellation control shaders).
        let mem_scope = self.const_u32(if device {
            SCOPE_DEVICE
        } else if sem == 0 {
            SCOPE_INVOCATION
        } else {
            SCOPE_WORKGROUP
        });
        let sem = self.const_u32(sem);
        if flags.contains(BarrierFlags::GROUP_SYNC) {
            let exec = self.const_u32(SCOPE_WORKGROUP);
            inst(
                &mut self.f.body,
                spirv::Op::ControlBarrier,
                &[exec, mem_scope, sem],
            );
        } else {
            inst(
                &mut self.f.body,
                spirv::Op::MemoryBarrier,
                &[mem_scope, sem],
            );
        }
        Ok(())
    }

    fn array_length(&mut self, i: InstId) -> R<()> {
        let m = self.m;
        let p = m.operand(i, 0);
        let ty = self.result_ty(i)?;
        let id = self.id_of(i);
        let (st, member) = if self.wrapped.contains_key(p) {
            (self.val(p)?, 0)
        } else if m.op(p) == Op::FieldAddr {
            let base = m.operand(p, 0);
            if m.op(base) != Op::Global && !self.block_ptrs.contains_key(base) {
                return Err(EmitError::new(
                    OPERANDS,
                    "`array_length` needs the runtime array member of a buffer global (or of an element of an array of buffers)",
                ));
            }
            (self.val(base)?, m.imm_operand(p, 1).unwrap_or(0))
        } else {
            return Err(EmitError::new(
                OPERANDS,
                "`array_length` needs a buffer global's runtime array (the global itself or a field_addr of its last field)",
            ));
        };
        inst(
            &mut self.f.body,
            spirv::Op::ArrayLength,
            &[ty, id, st, member],
        );
        Ok(())
    }
}
