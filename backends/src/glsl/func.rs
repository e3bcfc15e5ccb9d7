//! One function: which values print inline and which get a local, the statements of each
//! block, and the function's signature.
//!
//! A value prints inline at its use when it is used once, in the same block, writes nothing
//! and synchronizes nothing (stores, calls, atomics, barriers, image and buffer writes and
//! out-parameter intrinsics are statements), carries no `precise`, and may be moved past
//! every statement between its definition and the point its expression is evaluated
//! ([`Effects::may_reorder`]: a read does not cross a write, nothing that touches memory or
//! is convergent crosses a barrier). Address computations (`field_addr`,
//! `element_addr`, `texel_addr`) are not values in GLSL: they print as l-value paths
//! (`buf.data[i].pos`) wherever they are used, so their operands count as used where the
//! address is. Every other value gets a local, declared where it is defined, or at the top
//! of the function when a use lies outside the statement list of its definition (a value of
//! an `if` arm used after the `if`, when the other arm cannot reach it).

use std::fmt::Write as _;

use oneshader_ir::cfg::Cfg;
use oneshader_ir::constructs::{ConstructKind, Constructs};
use oneshader_ir::effects::Effects;
use oneshader_ir::{AddressSpace, Block, Func, InstId, Intrinsic, Module, Op};
use rustc_hash::{FxHashMap, FxHashSet};

use super::error::{GlslError, OPERANDS, R, malformed};
use super::module::ModuleCx;
use super::names::Namer;

/// How a non-terminator instruction is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// A `var`: a local declared at the top of the function.
    Var,
    /// An address: printed as an l-value path where used.
    Address,
    /// Printed at its single use.
    Inline,
    /// A local holding the value.
    Named,
    /// A statement without a used result.
    Statement,
    /// A pure value nobody uses: not printed.
    Dead,
}

/// True when `i` writes memory or synchronizes ([`Effects::removable_if_unused`] is false):
/// it is a statement of its own, never printed inside another expression.
pub(crate) fn has_effect(m: &Module, i: InstId) -> bool {
    !m.effects(i).removable_if_unused()
}

/// True for instructions that print as a local assigned by statements (`insert`).
fn needs_local(m: &Module, i: InstId) -> bool {
    matches!(m.op(i), Op::Insert | Op::InsertDyn)
}

/// Operands `i` prints more than once (they get a local so nothing is computed twice).
fn repeated_operands(m: &Module, i: InstId) -> Vec<InstId> {
    match m.op(i) {
        Op::Shuffle => {
            let na = m
                .ty(m.operand(i, 0))
                .and_then(|t| m.vector_len(t))
                .unwrap_or(4);
            // Runs of consecutive components from one source print as one swizzle.
            let mut runs = [0usize; 2];
            let mut last: Option<usize> = None;
            for k in 2..m.num_operands(i) {
                let src = (m.imm_operand(i, k).unwrap_or(0) >= na) as usize;
                if last != Some(src) {
                    runs[src] += 1;
                }
                last = Some(src);
            }
            let mut out = Vec::new();
            if runs[0] > 1 {
                out.push(m.operand(i, 0));
            }
            if runs[1] > 1 {
                out.push(m.operand(i, 1));
            }
            out
        }
        Op::BufferLoad => {
            let multi = m.ty(i).and_then(|t| m.vector_len(t)).unwrap_or(1) > 1;
            if multi {
                vec![m.operand(i, 1)]
            } else {
                Vec::new()
            }
        }
        Op::BufferStore => {
            let v = m.operand(i, 2);
            let multi = m.ty(v).and_then(|t| m.vector_len(t)).unwrap_or(1) > 1;
            if multi {
                vec![m.operand(i, 1), v]
            } else {
                Vec::new()
            }
        }
        // A whole struct stored into a buffer block member by member.
        Op::Store => {
            let p = m.operand(i, 0);
            let whole_block = m.op(p) == Op::Global
                && m.ty(p).is_some_and(|t| {
                    m.address_space(t) == Some(AddressSpace::StorageBuffer)
                        && m.pointee(t).is_some_and(|s| m.op(s) == Op::Struct)
                });
            if whole_block {
                vec![m.operand(i, 1)]
            } else {
                Vec::new()
            }
        }
        Op::CallIntrinsic
            if m.imm_operand(i, 0).and_then(Intrinsic::from_u32) == Some(Intrinsic::Sincos) =>
        {
            vec![m.operand(i, 1)]
        }
        _ => Vec::new(),
    }
}

/// A breakable statement around the current position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Brk {
    Loop(usize),
    Switch(usize),
}

/// Where a statement list sits.
#[derive(Clone, Debug, Default)]
pub(crate) struct Region {
    /// Enclosing loops and switches, innermost last.
    pub breakables: Vec<Brk>,
    /// The loop whose body's top level this list is (a `continue` at its end is implicit).
    pub loop_top: Option<usize>,
    /// The switch whose case this list is the top level of (reaching another case target
    /// is a fall-through).
    pub case_top: Option<usize>,
    /// The function body's own list (a `return;` at its end is implicit).
    pub fn_top: bool,
}

impl Region {
    /// A list nested one level deeper (an `if` arm).
    pub fn nested(&self) -> Region {
        Region {
            breakables: self.breakables.clone(),
            loop_top: None,
            case_top: None,
            fn_top: false,
        }
    }
}

/// One function being printed.
pub(crate) struct FnEmitter<'a, 'm> {
    pub cx: &'a mut ModuleCx<'m>,
    pub m: &'m Module,
    pub f: Func,
    pub cons: Constructs,
    pub cfg: Cfg,
    pub locals: Namer,
    /// Names of parameters, vars and named values.
    pub names: FxHashMap<InstId, String>,
    pub roles: FxHashMap<InstId, Role>,
    /// Named values declared at the top of the function.
    pub hoisted: FxHashSet<InstId>,
    /// Loops needing a break flag (a `break` out of them from inside a `switch`), and the
    /// flag's name.
    pub loop_flags: FxHashMap<usize, String>,
    /// Flags set since the innermost enclosing switch started (checked after it).
    pub flags_set: Vec<FxHashSet<usize>>,
    /// Case targets of each switch construct.
    pub case_targets: FxHashMap<usize, Vec<Block>>,
    /// Blocks already printed (a continue block prints at every `continue`, the rest once).
    pub emitted: FxHashSet<InstId>,
    /// Statements that must follow the one being printed (`frexp`'s exponent conversion).
    pub after: Vec<String>,
    /// True once a `return` statement is printed.
    pub returned: bool,
    /// Values named `_N` so far.
    pub temps: u32,
    /// Instructions whose operands all print as GLSL constant expressions (memo).
    pub const_exprs: FxHashMap<InstId, bool>,
    pub out: String,
    pub indent: usize,
}

impl<'a, 'm> FnEmitter<'a, 'm> {
    /// Analyzes `f` for printing.
    pub fn new(cx: &'a mut ModuleCx<'m>, f: Func) -> R<FnEmitter<'a, 'm>> {
        let m = cx.m;
        let cons = Constructs::new(m, f);
        let cfg = Cfg::new(m, f);
        let mut e = FnEmitter {
            cx,
            m,
            f,
            cons,
            cfg,
            locals: Namer::new(),
            names: FxHashMap::default(),
            roles: FxHashMap::default(),
            hoisted: FxHashSet::default(),
            loop_flags: FxHashMap::default(),
            flags_set: Vec::new(),
            case_targets: FxHashMap::default(),
            emitted: FxHashSet::default(),
            after: Vec::new(),
            returned: false,
            temps: 0,
            const_exprs: FxHashMap::default(),
            out: String::new(),
            indent: 1,
        };
        e.analyze()?;
        Ok(e)
    }

    /// A fresh local name.
    pub fn local_name(&mut self, hint: Option<&str>, fallback: &str) -> String {
        self.locals.fresh(hint, fallback, Some(&self.cx.names))
    }

    /// The name of a value or variable: from its hint, or `_N` without one. Names from hints
    /// never start with `_` ([`Namer::fresh`]), so `_N` needs no lookup.
    fn value_name(&mut self, v: InstId) -> String {
        match self.m.name(v) {
            Some(h) => self.local_name(Some(h), "v"),
            None => {
                self.temps += 1;
                format!("_{}", self.temps)
            }
        }
    }

    /// Writes one line at the current indentation.
    pub fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    /// The uses of `v` as (user block, position of the user in its block), looking through
    /// address instructions to where the address is used.
    fn use_sites(&self, v: InstId, pos: &FxHashMap<InstId, usize>, out: &mut Vec<(InstId, usize)>) {
        let m = self.m;
        for u in m.uses(v) {
            let user = u.user;
            if matches!(m.op(user), Op::FieldAddr | Op::ElementAddr | Op::TexelAddr) {
                self.use_sites(user, pos, out);
                continue;
            }
            if m.op(user).is_decoration() {
                continue;
            }
            let b = m.parent(user).unwrap_or(user);
            out.push((b, pos.get(&user).copied().unwrap_or(usize::MAX)));
        }
    }

    /// True when a use in block `u` is inside the statement list where `d`'s definitions
    /// are declared.
    fn in_scope(&self, d: Block, u: Block) -> bool {
        if d == u {
            return true;
        }
        let ds = self.cons.innermost(d);
        // Case bodies are brace-delimited: a value of a case reaches no other case.
        if let Some(k) = ds
            && self.cons.get(k).kind == ConstructKind::Switch
        {
            return false;
        }
        match (ds, self.cons.innermost(u)) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(a), Some(b)) => self.cons.encloses(a, b),
        }
    }

    fn analyze(&mut self) -> R<()> {
        let m = self.m;
        let blocks = self.f.blocks(m);
        let mut pos: FxHashMap<InstId, usize> = FxHashMap::default();
        // Per block, the positions of the statements that write memory and of those that
        // synchronize: what an inline value may not move past.
        let mut writes: FxHashMap<InstId, Vec<usize>> = FxHashMap::default();
        let mut barriers: FxHashMap<InstId, Vec<usize>> = FxHashMap::default();
        for &b in &blocks {
            let (mut w, mut br) = (Vec::new(), Vec::new());
            for (k, c) in m.children(b.id()).enumerate() {
                pos.insert(c, k);
                let fx = m.effects(c);
                if fx.contains(Effects::WRITE) {
                    w.push(k);
                }
                if fx.contains(Effects::BARRIER) {
                    br.push(k);
                }
            }
            writes.insert(b.id(), w);
            barriers.insert(b.id(), br);
        }
        let any_in = |list: Option<&Vec<usize>>, from: usize, to: usize| {
            list.is_some_and(|l| {
                let next = l.partition_point(|&k| k <= from);
                l.get(next).is_some_and(|&k| k < to)
            })
        };
        let mut forced: FxHashSet<InstId> = FxHashSet::default();
        for &b in &blocks {
            for c in m.children(b.id()) {
                for v in repeated_operands(m, c) {
                    forced.insert(v);
                }
            }
        }
        // Where each inline value's expression is evaluated: its user's position, or where
        // its user is evaluated when that is inline too. Blocks are walked backwards so a
        // user's role is known before its operands'.
        let mut eval_at: FxHashMap<InstId, usize> = FxHashMap::default();
        for &b in &blocks {
            let children: Vec<InstId> = m.children(b.id()).collect();
            for &c in children.iter().rev() {
                let op = m.op(c);
                if op == Op::Param || op.is_decoration() || op.is_terminator() {
                    continue;
                }
                let mut sites: Vec<(InstId, usize)> = Vec::new();
                let role = match op {
                    Op::Var => Role::Var,
                    Op::FieldAddr | Op::ElementAddr | Op::TexelAddr => Role::Address,
                    _ => {
                        let used = m.has_uses(c);
                        if used {
                            self.use_sites(c, &pos, &mut sites);
                        }
                        if has_effect(m, c) {
                            if used { Role::Named } else { Role::Statement }
                        } else if !used {
                            Role::Dead
                        } else if needs_local(m, c)
                            || forced.contains(&c)
                            || m.has_decoration(c, Op::Precise)
                            || sites.len() != 1
                            || sites[0].0 != b.id()
                        {
                            Role::Named
                        } else {
                            let user = sites[0].1;
                            let at = children
                                .get(user)
                                .and_then(|u| eval_at.get(u).copied())
                                .unwrap_or(user);
                            let pc = pos.get(&c).copied().unwrap_or(0);
                            let fx = m.effects(c);
                            let blocked = (fx.intersects(Effects::READ | Effects::CONVERGENT)
                                && any_in(barriers.get(&b.id()), pc, at))
                                || (fx.contains(Effects::READ)
                                    && any_in(writes.get(&b.id()), pc, at));
                            if blocked {
                                Role::Named
                            } else {
                                eval_at.insert(c, at);
                                Role::Inline
                            }
                        }
                    }
                };
                self.roles.insert(c, role);
                if role == Role::Named {
                    let hoist = sites.iter().any(|&(ub, _)| {
                        Block::dyn_cast(m, ub).is_none_or(|ub| !self.in_scope(b, ub))
                    });
                    if hoist {
                        self.hoisted.insert(c);
                    }
                }
            }
        }
        // Loops a `break` leaves from inside a switch need a flag.
        for &b in &blocks {
            let Some(t) = b.terminator(m) else { continue };
            if !matches!(m.op(t), Op::Br | Op::CondBr) || !self.cfg.is_reachable(b) {
                continue;
            }
            for s in oneshader_ir::cfg::successors(m, b) {
                if let Ok(oneshader_ir::constructs::EdgeKind::Break(k)) = self.cons.edge(b, s) {
                    let mut cur = self.cons.innermost(b);
                    while let Some(c) = cur
                        && c != k
                    {
                        if self.cons.get(c).kind == ConstructKind::Switch {
                            self.loop_flags.insert(k, String::new());
                            break;
                        }
                        cur = self.cons.get(c).parent;
                    }
                }
            }
        }
        Ok(())
    }

    /// The role of an instruction.
    pub fn role(&self, i: InstId) -> Role {
        self.roles.get(&i).copied().unwrap_or(Role::Named)
    }

    /// Prints the whole function.
    pub fn emit(mut self, is_entry: bool) -> R<String> {
        let m = self.m;
        let f = self.f;
        let fty = m
            .ty(f.id())
            .ok_or_else(|| malformed("a function has no type"))?;
        let ret = m
            .fn_return(fty)
            .ok_or_else(|| malformed("a function's type is not a `fn` type"))?;
        let name = if is_entry {
            "main".to_string()
        } else {
            self.cx
                .item_names
                .get(&f.id())
                .cloned()
                .ok_or_else(|| malformed("a function without a name"))?
        };
        let entry = f
            .entry(m)
            .ok_or_else(|| malformed("a function without a body"))?;
        let mut params = Vec::new();
        for p in entry.params(m) {
            let t = m
                .ty(p.id())
                .ok_or_else(|| malformed("an untyped parameter"))?;
            let pname = self.local_name(m.name(p.id()), "arg");
            self.names.insert(p.id(), pname.clone());
            if m.op(t) == Op::Ptr {
                let space = m.address_space(t);
                if space != Some(AddressSpace::Function) {
                    return Err(GlslError::new(
                        OPERANDS,
                        format!(
                            "parameter `{pname}` points into {} memory; GLSL passes only local \
                             variables (as `inout`)",
                            space.map(|s| s.spelling()).unwrap_or("?")
                        ),
                    ));
                }
                let pointee = m
                    .pointee(t)
                    .ok_or_else(|| malformed("pointer without pointee"))?;
                if m.op(pointee) == Op::RayQuery {
                    // An opaque ray query: glslang passes it by reference (a pointer
                    // parameter, as the IR's), and accepts no `inout` on it.
                    params.push(self.cx.decl(pointee, &pname)?);
                } else {
                    params.push(format!("inout {}", self.cx.decl(pointee, &pname)?));
                }
            } else {
                params.push(self.cx.decl(t, &pname)?);
            }
        }
        let ret_name = self.cx.type_name(ret)?;
        // Names of vars and named values, in block order.
        for b in f.blocks(m) {
            for c in m.children(b.id()) {
                if let Some(Role::Var | Role::Named) = self.roles.get(&c) {
                    let n = self.value_name(c);
                    self.names.insert(c, n);
                }
            }
        }
        for k in self.loop_flags.keys().copied().collect::<Vec<_>>() {
            let n = self.local_name(Some("break_flag"), "flag");
            self.loop_flags.insert(k, n);
        }
        for (k, c) in self.cons.list().iter().enumerate() {
            if c.kind == ConstructKind::Switch {
                let t = c.term;
                let mut targets = vec![Block::cast(m, m.operand(t, 2))];
                let mut i = 3;
                while i + 1 < m.num_operands(t) {
                    targets.push(Block::cast(m, m.operand(t, i + 1)));
                    i += 2;
                }
                self.case_targets.insert(k, targets);
            }
        }
        // Variables, then hoisted values, at the top.
        for b in f.blocks(m) {
            for c in m.children(b.id()) {
                if self.roles.get(&c) == Some(&Role::Var) {
                    let t = m
                        .ty(c)
                        .and_then(|t| m.pointee(t))
                        .ok_or_else(|| malformed("a var without a pointee type"))?;
                    let n = self.names[&c].clone();
                    let d = self.cx.decl(t, &n)?;
                    self.line(&format!("{d};"));
                }
            }
        }
        let mut hoisted: Vec<InstId> = self.hoisted.iter().copied().collect();
        hoisted.sort_by_key(|h| self.names.get(h).cloned());
        for h in hoisted {
            let t = m.ty(h).ok_or_else(|| malformed("an untyped value"))?;
            let n = self.names[&h].clone();
            let d = self.cx.decl(t, &n)?;
            self.line(&format!("{d};"));
        }
        let top = Region {
            fn_top: true,
            ..Region::default()
        };
        self.region(entry, &top)?;
        if !self.returned && m.op(ret) != Op::Void {
            // No path returns (an endless loop): glslang still wants a return statement.
            let z = self.cx.zero_of(ret)?;
            self.line(&format!("return {};", z.text));
        }
        let mut text = String::new();
        writeln!(text, "{ret_name} {name}({}) {{", params.join(", ")).ok();
        text.push_str(&self.out);
        text.push_str("}\n\n");
        Ok(text)
    }

    /// `e` with the source range of instruction `i` (its `src_loc` decoration, which the
    /// front end puts on intrinsic calls and texture reads), when it has one and `e` has no
    /// position yet: a refusal points at the HLSL it came from, as the SPIR-V backend's do.
    pub fn located(&self, i: InstId, mut e: GlslError) -> GlslError {
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

    /// Prints the instructions of `b` (not its terminator).
    pub fn block_body(&mut self, b: Block) -> R<()> {
        let m = self.m;
        let children: Vec<InstId> = m.children(b.id()).collect();
        for c in children {
            let op = m.op(c);
            if op == Op::Param || op.is_decoration() || op.is_terminator() {
                continue;
            }
            match self.role(c) {
                Role::Var | Role::Address | Role::Inline | Role::Dead => {}
                Role::Statement => self.statement(c).map_err(|e| self.located(c, e))?,
                Role::Named => self.named(c).map_err(|e| self.located(c, e))?,
            }
        }
        Ok(())
    }

    /// A named value: `T name = expr;` (or `name = expr;` when hoisted).
    fn named(&mut self, i: InstId) -> R<()> {
        let m = self.m;
        let name = self.names[&i].clone();
        let t = m.ty(i).ok_or_else(|| malformed("an untyped value"))?;
        let lhs = if self.hoisted.contains(&i) {
            name.clone()
        } else {
            let d = self.cx.decl(t, &name)?;
            if m.has_decoration(i, Op::Precise) {
                format!("precise {d}")
            } else {
                d
            }
        };
        match m.op(i) {
            Op::Insert | Op::InsertDyn => {
                let base = self.value(m.operand(i, 0))?;
                self.line(&format!("{lhs} = {};", base.text));
                let elem = self.value(m.operand(i, 1))?;
                let path = if m.op(i) == Op::Insert {
                    let comp_ty = m.ty(m.operand(i, 0)).ok_or_else(|| malformed("untyped"))?;
                    let idx: Vec<u32> = (2..m.num_operands(i))
                        .map(|k| m.imm_operand(i, k).unwrap_or(0))
                        .collect();
                    self.index_path(comp_ty, &idx)?
                } else {
                    format!("[{}]", self.value(m.operand(i, 2))?.text)
                };
                self.line(&format!("{name}{path} = {};", elem.text));
                Ok(())
            }
            _ if has_effect(m, i) => {
                let e = self.effect_expr(i)?;
                self.line(&format!("{lhs} = {e};"));
                self.flush_after();
                Ok(())
            }
            _ => {
                let e = self.inst_expr(i)?;
                self.line(&format!("{lhs} = {};", e.text));
                Ok(())
            }
        }
    }
}
