//! Functions and their control flow: blocks in reverse post-order, block parameters as
//! `OpPhi`, structured terminators as merges, calls. Each ordinary instruction is selected in
//! `instructions.rs`, memory access in `memory.rs`.
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
use oneshader_ir::{AddressSpace, Block, Func, InstId, Op};
use rspirv::spirv;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::encode::{Words, inst};
use super::error::{DECLARATION, EmitError, MALFORMED, POINTER, R, TOO_LARGE};
use super::instructions::Operands;
use super::module::Emitter;

/// Most (literal, label) pairs of one `OpSwitch` (SPIR-V's universal limits).
const MAX_SWITCH_CASES: usize = 16_383;

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

impl Emitter<'_> {
    /// Emits every module-level function.
    pub(crate) fn emit_functions(&mut self, library: bool) {
        let m = self.m;
        for f in m.functions() {
            let before = self.s.oversized().is_some();
            let done = self.function(f, library);
            self.note_oversized(f.id(), before);
            if let Err(e) = done {
                let name = m.name(f.id()).unwrap_or("?").to_string();
                let mut d: oneshader_ir::Diagnostic = e.into();
                d.message = format!("function @{name}: {}", d.message);
                self.diags.push(d.in_func(m, f.id()));
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
        let mut header = Words::default();
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
        if self.shader_debug() && !blocks.is_empty() {
            self.dbg_function(f.id(), fty);
        }
        if blocks.is_empty() {
            if !library {
                return Err(EmitError::new(
                    DECLARATION,
                    "the function is a declaration without a body (an import); link the module before emitting SPIR-V",
                ));
            }
            inst(&mut header, spirv::Op::FunctionEnd, &[]);
            self.s.functions.append(&header);
            return Ok(());
        }
        self.body(f, &blocks)?;
        let body = std::mem::take(&mut self.f.body);
        let vars = std::mem::take(&mut self.f.vars);
        let out = &mut self.s.functions;
        out.append(&header);
        // The entry block's label, then the variables, then the rest.
        out.append_range(&body, 0..2);
        out.append(&vars);
        out.append_range(&body, 2..body.len());
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
            self.lines_new_block();
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
        self.lines_new_block();
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
        self.dbg_block_start(b, is_entry);
        for c in children {
            let op = m.op(c);
            if op.is_decoration() {
                continue;
            }
            self.line_before(c);
            if op.is_terminator() {
                if let Some(&(merge, cont, lp)) = g.loops.get(&b.id()) {
                    let merge = self.id_of(merge);
                    let cont = self.id_of(cont);
                    let (ctl, extra) = self.loop_control(lp);
                    let mut w: Operands = SmallVec::new();
                    w.extend_from_slice(&[merge, cont, ctl]);
                    w.extend(extra);
                    inst(&mut self.f.body, spirv::Op::LoopMerge, &w);
                }
                return self.terminator(c, g);
            }
            let before = self.f.body.len();
            if let Err(e) = self.instruction(c) {
                return Err(self.located(c, e));
            }
            // An instruction that wrote nothing (folded into its users) defines no id to
            // describe.
            if self.f.body.len() > before {
                self.dbg_values(c);
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
                    )
                    .at(m, Some(t)));
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

    pub(super) fn call(&mut self, i: InstId) -> R<()> {
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
        let mut w: Operands = SmallVec::new();
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
}
