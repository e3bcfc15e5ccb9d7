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

use crate::text::printer::FnText;
use crate::text::walker::CSyntax as _;
use std::fmt::Write as _;

use oneshader_ir::{AddressSpace, Func, InstId, Intrinsic, Module, Op};
use rustc_hash::FxHashSet;

use super::error::{GlslError, OPERANDS, R, malformed};
use super::module::ModuleCx;
use super::names::Namer;
pub(crate) use crate::text::Region;
pub(crate) use crate::text::roles::{Role, has_effect};
use crate::text::table::IdMap;
use crate::text::walker::StatementWalker;
use crate::text::walker::WalkState;

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

/// One function being printed.
pub(crate) struct FnEmitter<'a, 'm> {
    pub cx: &'a mut ModuleCx<'m>,
    pub m: &'m Module,
    pub f: Func,
    pub locals: Namer,
    /// Names of parameters, vars and named values.
    pub names: IdMap<String>,
    pub roles: IdMap<Role>,
    /// Named values declared at the top of the function.
    pub hoisted: FxHashSet<InstId>,
    /// Statements that must follow the one being printed (`frexp`'s exponent conversion).
    pub after: Vec<String>,
    /// Values named `_N` so far.
    pub temps: u32,
    /// Instructions whose operands all print as GLSL constant expressions (memo).
    pub const_exprs: IdMap<bool>,
    /// The statement walker's state (constructs, CFG, output, ...).
    pub walk: WalkState,
}

impl<'a, 'm> FnEmitter<'a, 'm> {
    /// Analyzes `f` for printing.
    pub fn new(cx: &'a mut ModuleCx<'m>, f: Func) -> R<FnEmitter<'a, 'm>> {
        let m = cx.m;
        let (walk, r) = crate::text::printer::analyze_fn(m, f, repeated_operands, needs_local);
        Ok(FnEmitter {
            cx,
            m,
            f,
            locals: super::names::namer(),
            names: IdMap::default(),
            roles: r.roles,
            hoisted: r.hoisted,
            after: Vec::new(),
            temps: 0,
            const_exprs: IdMap::default(),
            walk,
        })
    }

    /// Prints the whole function.
    pub fn emit(mut self, is_entry: bool) -> R<String> {
        let m = self.m;
        let f = self.f;
        let (ret, entry, sig) = self.signature()?;
        let name = if is_entry {
            "main".to_string()
        } else {
            self.cx
                .item_names
                .get(&f.id())
                .cloned()
                .ok_or_else(|| malformed("a function without a name"))?
        };
        let mut params = Vec::new();
        for (_, pname, t) in sig {
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
        self.name_locals();
        // The header at the function's declaration (its name), before anything of the body,
        // and the body printed after it, into the same buffer.
        let header_line = m.position(f.id()).and_then(|s| self.line_directive(s));
        let mut header = header_line.unwrap_or_default();
        writeln!(header, "{ret_name} {name}({}) {{", params.join(", ")).ok();
        self.walk.out.insert_str(0, &header);
        // Variables, then hoisted values, at the top.
        let (vars, hoisted) = self.top_decls()?;
        for (n, t) in vars.into_iter().chain(hoisted) {
            let d = self.cx.decl(t, &n)?;
            self.line_fmt(format_args!("{d};"));
        }
        let top = Region {
            fn_top: true,
            ..Region::default()
        };
        self.region(entry, &top)?;
        if !self.walk.returned && m.op(ret) != Op::Void {
            // No path returns (an endless loop): glslang still wants a return statement.
            let z = self.cx.zero_of(ret)?;
            self.line_fmt(format_args!("return {};", z.text));
        }
        self.walk.out.push_str("}\n\n");
        Ok(std::mem::take(&mut self.walk.out))
    }

    /// Under [`super::Options::line_directives`]: `#line N "file"` before the statement of
    /// `i` when its HLSL line is not the one the previous directive named (`#line` numbers the
    /// line after it).
    pub fn before_line(&mut self, i: InstId) {
        // Most outputs mark no lines: no position looked up.
        if self.cx.lines.is_none() {
            return;
        }
        let Some(span) = self.m.position(i) else {
            return;
        };
        if let Some(d) = self.line_directive(span) {
            self.walk.out.push_str(&d);
        }
    }

    /// The `#line N "file"` directive (with its newline) for the HLSL line of `span`, when
    /// [`super::Options::line_directives`] asks for them and the previous directive named
    /// another line; notes it as the one in effect.
    fn line_directive(&mut self, span: oneshader_ir::Span) -> Option<String> {
        let cx = &mut *self.cx;
        let (name, line) = cx.lines.as_mut()?.next(span)?;
        cx.ext("GL_GOOGLE_cpp_style_line_directive");
        Some(format!("#line {line} \"{name}\"\n"))
    }

    /// A named value: `T name = expr;` (or `name = expr;` when hoisted).
    pub fn named(&mut self, i: InstId) -> R<()> {
        let m = self.m;
        let t = m.ty(i).ok_or_else(|| malformed("an untyped value"))?;
        if !matches!(m.op(i), Op::Insert | Op::InsertDyn) && !has_effect(m, i) {
            // The common case, written straight into the buffer: `T name = e;` with the name
            // and the type's parts borrowed (`decl`'s text, without its `String`).
            let parts = if self.hoisted.contains(&i) {
                None
            } else {
                Some(self.cx.type_parts(t)?)
            };
            let e = self.inst_expr(i)?;
            let name = &self.names[&i];
            let precise = if m.has_decoration(i, Op::Precise) {
                "precise "
            } else {
                ""
            };
            match parts {
                None => self.walk.line(format_args!("{name} = {};", e.text)),
                Some((base, dims)) => self
                    .walk
                    .line(format_args!("{precise}{base} {name}{dims} = {};", e.text)),
            }
            return Ok(());
        }
        let name = self.names[&i].clone();
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
                self.line_fmt(format_args!("{lhs} = {};", base.text));
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
                self.line_fmt(format_args!("{name}{path} = {};", elem.text));
                Ok(())
            }
            // A value with effects (pure ones returned above).
            _ => {
                let e = self.effect_expr(i)?;
                self.line_fmt(format_args!("{lhs} = {e};"));
                self.flush_after();
                Ok(())
            }
        }
    }
}
