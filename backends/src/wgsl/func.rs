//! One function: which values print inline (the text backends' shared [`crate::text::roles`]),
//! the statements of each block, the expressions, and the function's signature.
//!
//! Every operator prints with its operands in parentheses unless they are primary
//! expressions, so no WGSL precedence rule (nor its ban on mixing some operators) matters.
//! Values that need a local are `let` (or `var` when later statements assign parts of them,
//! or when they are declared at the top of the function because a use lies outside the
//! statement list of the definition).

use crate::text::printer::FnText;
use crate::text::walker::CSyntax as _;

use oneshader_ir::{AddressSpace, AtomicOp, BarrierFlags, Func, InstId, Intrinsic, Module};
use oneshader_ir::{Op, ScalarKind};
use rustc_hash::FxHashSet;

use super::error::{OPERANDS, R, TYPE, UNMAPPED, WgslError, malformed};
use super::module::{Loc, ModuleCx};
use super::names::{Namer, namer};
pub(crate) use crate::text::Region;
use crate::text::roles::{Role, has_effect};
use crate::text::table::IdMap;
use crate::text::walker::{StatementWalker, WalkState};

pub(crate) use crate::text::expr::E;
use crate::text::expr::{WordSpelling, bin, call, per_vector};
use crate::text::printer::ExprText;

/// How byte-address words are read in this target.
const WORDS: WordSpelling = WordSpelling {
    atomic_load: |w| format!("atomicLoad(&{w})"),
    bits_as: |s, w| match s {
        Op::I32 => format!("bitcast<i32>({w})"),
        _ => format!("bitcast<f32>({w})"),
    },
    bits_of: |x| format!("bitcast<u32>({x})"),
    offset_as_uint: |x| format!("u32({x})"),
    atomic_store: |w, v| format!("atomicStore(&{w}, {v})"),
};

impl<'m> ExprText<'m> for FnEmitter<'_, 'm> {
    const WORDS: WordSpelling = WORDS;
    const OPERANDS: &'static str = OPERANDS;
    const BOOL_AND_OR: [&'static str; 2] = ["&", "|"];
    const SWIZZLE_RUNS: bool = true;
    const INTEGER_DOT: bool = true;

    fn constant_text(&mut self, v: InstId) -> R<String> {
        // Arrays and structs are module-level constants (one copy, not one per use).
        let m = self.m;
        if m.op(v) == Op::Composite && matches!(m.op(self.ty_of(v)?), Op::Array | Op::Struct) {
            return self.cx.const_name(v);
        }
        self.cx.constant(v)
    }

    fn inst_expr(&mut self, i: InstId) -> R<E> {
        FnEmitter::inst_expr(self, i)
    }

    fn place_text(&mut self, p: InstId) -> R<String> {
        Ok(self.place(p)?.text)
    }

    fn type_name(&mut self, t: InstId) -> R<String> {
        self.cx.type_name(t)
    }

    fn atomic_words(&self, p: InstId) -> bool {
        self.cx
            .loc_of(p)
            .is_some_and(|l| self.cx.atomics.contains(&Loc::Elem(Box::new(l))))
    }
}

const COMPONENTS: [char; 4] = ['x', 'y', 'z', 'w'];

/// The length of a vector type; `None` for anything else.
pub(crate) fn vlen(m: &Module, t: InstId) -> Option<u32> {
    if m.op(t) == Op::Vector {
        m.vector_len(t)
    } else {
        None
    }
}

/// How an access path reaches memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PlaceKind {
    /// An ordinary reference.
    Plain,
    /// An atomic location: read and written with `atomicLoad`/`atomicStore`.
    Atomic,
    /// Part of a location holding atomics (a whole struct or array): not loadable in WGSL.
    HoldsAtomics,
    /// A vector field declared one scalar member per component (see `ModuleCx::split`): the
    /// components' references and the WGSL vector type.
    Split { comps: Vec<String>, vty: String },
    /// Element `idx` (computed at run time) of a split vector field or of a split matrix
    /// stored by rows: `agg` is the WGSL type the parts make up (`vec3<f32>`,
    /// `array<vec2<f32>, 3>`).
    SplitElem {
        comps: Vec<String>,
        agg: String,
        idx: String,
    },
    /// A matrix field declared one vector member per stored row (see
    /// `ModuleCx::split_mats`): the parts' references, their length, and the WGSL type of the
    /// IR matrix.
    SplitMatrix {
        parts: Vec<String>,
        len: u32,
        mty: String,
    },
    /// A padded array (see `ModuleCx::padded`) of `n` elements of WGSL type `elem`: its
    /// elements are `[i].v`.
    Padded { n: u32, elem: String },
}

/// A constant index path into a composite value (see [`FnEmitter::index_path`]).
pub(crate) struct IndexPath {
    /// `.x`, `.field`, `[i]`...
    pub text: String,
    /// When the path ends at a vector stored as separate components (a split vector field):
    /// the components' paths and the vector type.
    pub split: Option<(Vec<String>, String)>,
}

/// Where a pointer leads.
#[derive(Clone, Debug)]
pub(crate) struct Place {
    pub text: String,
    pub kind: PlaceKind,
}

/// Operands `i` prints more than once (they get a local so nothing is computed twice).
fn repeated_operands(m: &Module, i: InstId) -> Vec<InstId> {
    use Intrinsic::*;
    crate::text::printer::repeated_operands(
        m,
        i,
        &[Sincos, IsFinite, Sign, Frexp, Modf, WaveActiveAllEqual],
        |which| match which {
            // Converted component by component.
            F32ToF16 | F16ToF32 if m.ty(i).is_some_and(|t| m.op(t) == Op::Vector) => {
                Some(vec![m.operand(i, 1)])
            }
            _ => None,
        },
    )
}

fn needs_local(m: &Module, i: InstId) -> bool {
    matches!(m.op(i), Op::Insert | Op::InsertDyn)
}

/// One function being printed.
pub(crate) struct FnEmitter<'a, 'm> {
    pub cx: &'a mut ModuleCx<'m>,
    pub m: &'m Module,
    pub f: Func,
    pub locals: Namer,
    pub names: IdMap<String>,
    pub roles: IdMap<Role>,
    pub hoisted: FxHashSet<InstId>,
    /// Pointer parameters (printed `(*p)`).
    pub ptr_params: FxHashSet<InstId>,
    pub temps: u32,
    /// The statement walker's state (constructs, CFG, output, ...).
    pub walk: WalkState,
}

impl<'a, 'm> FnEmitter<'a, 'm> {
    pub fn new(cx: &'a mut ModuleCx<'m>, f: Func) -> R<FnEmitter<'a, 'm>> {
        let m = cx.m;
        let (walk, r) = crate::text::printer::analyze_fn(m, f, repeated_operands, needs_local);
        Ok(FnEmitter {
            cx,
            m,
            f,
            locals: namer(),
            names: IdMap::default(),
            roles: r.roles,
            hoisted: r.hoisted,
            ptr_params: FxHashSet::default(),
            temps: 0,
            walk,
        })
    }

    /// Prints the whole function (`name`: its WGSL name).
    pub fn emit(mut self, name: &str) -> R<String> {
        let m = self.m;
        let (ret, entry, sig) = self.signature()?;
        let mut params = Vec::new();
        for (p, pname, t) in sig {
            if m.op(t) == Op::Ptr {
                self.ptr_params.insert(p);
            }
            let tn = self.cx.type_name(t)?;
            params.push(format!("{pname}: {tn}"));
        }
        let ret_text = if m.op(ret) == Op::Void {
            String::new()
        } else {
            format!(" -> {}", self.cx.type_name(ret)?)
        };
        self.name_locals();
        // The header first: the body is printed after it, into the same buffer.
        let header = format!("fn {name}({}){ret_text} {{\n", params.join(", "));
        self.walk.out.insert_str(0, &header);
        let (vars, hoisted) = self.top_decls()?;
        for (n, t) in vars.into_iter().chain(hoisted) {
            let tn = self.cx.type_name(t)?;
            self.line_fmt(format_args!("var {n}: {tn};"));
        }
        let top = Region {
            fn_top: true,
            ..Region::default()
        };
        self.region(entry, &top)?;
        if !self.walk.returned && m.op(ret) != Op::Void {
            let tn = self.cx.type_name(ret)?;
            self.line_fmt(format_args!("return {tn}();"));
        }
        self.walk.out.push_str("}\n\n");
        Ok(std::mem::take(&mut self.walk.out))
    }

    pub fn named(&mut self, i: InstId) -> R<()> {
        let m = self.m;
        let t = m.ty(i).ok_or_else(|| malformed("an untyped value"))?;
        let tn = self.cx.type_name(t)?;
        let hoisted = self.hoisted.contains(&i);
        match m.op(i) {
            Op::Insert | Op::InsertDyn => {
                let name = self.names[&i].clone();
                let base = self.value(m.operand(i, 0))?;
                if hoisted {
                    self.line_fmt(format_args!("{name} = {};", base.text));
                } else {
                    self.line_fmt(format_args!("var {name}: {tn} = {};", base.text));
                }
                let elem = self.value(m.operand(i, 1))?;
                if m.op(i) == Op::Insert {
                    let comp_ty = self.ty_of(m.operand(i, 0))?;
                    let idx: Vec<u32> = (2..m.num_operands(i))
                        .map(|k| m.imm_operand(i, k).unwrap_or(0))
                        .collect();
                    let path = self.index_path(comp_ty, &idx)?;
                    if let Some((comps, _)) = &path.split {
                        let tmp = self.local_name(Some("vec"), "vec");
                        self.line_fmt(format_args!("let {tmp} = {};", elem.text));
                        for (c, comp) in comps.iter().enumerate() {
                            self.line_fmt(format_args!("{name}{comp} = {tmp}.{};", COMPONENTS[c]));
                        }
                        return Ok(());
                    }
                    self.line_fmt(format_args!("{name}{} = {};", path.text, elem.text));
                } else {
                    let k = self.value(m.operand(i, 2))?;
                    self.line_fmt(format_args!("{name}[{}] = {};", k.text, elem.text));
                }
                Ok(())
            }
            _ => {
                let e = if has_effect(m, i) {
                    self.effect_expr(i)?
                } else {
                    self.inst_expr(i)?.text
                };
                // The name borrowed where the line is written (no copy of it).
                let name = &self.names[&i];
                if hoisted {
                    self.walk.line(format_args!("{name} = {e};"));
                } else {
                    self.walk.line(format_args!("let {name}: {tn} = {e};"));
                }
                Ok(())
            }
        }
    }

    /// The WGSL reference a pointer designates.
    pub fn place(&mut self, p: InstId) -> R<Place> {
        let m = self.m;
        let kind_at = |cx: &ModuleCx<'_>, loc: Option<Loc>| match loc {
            Some(l) if cx.atomics.contains(&l) => PlaceKind::Atomic,
            Some(l) if cx.atomic_prefixes.contains(&l) => PlaceKind::HoldsAtomics,
            _ => PlaceKind::Plain,
        };
        match m.op(p) {
            Op::Global => {
                let name = self
                    .cx
                    .item_names
                    .get(&p)
                    .cloned()
                    .ok_or_else(|| malformed("a global that was not declared"))?;
                let kind = kind_at(self.cx, Some(Loc::Global(p)));
                Ok(Place { text: name, kind })
            }
            Op::Var => {
                let name = self
                    .names
                    .get(&p)
                    .cloned()
                    .ok_or_else(|| malformed("a variable without a name"))?;
                Ok(Place {
                    text: name,
                    kind: PlaceKind::Plain,
                })
            }
            Op::Param => {
                let name = self
                    .names
                    .get(&p)
                    .cloned()
                    .ok_or_else(|| malformed("a parameter without a name"))?;
                Ok(Place {
                    text: format!("(*{name})"),
                    kind: PlaceKind::Plain,
                })
            }
            Op::FieldAddr => {
                let base = m.operand(p, 0);
                let k = m.imm_operand(p, 1).unwrap_or(0) as usize;
                let b = self.place(base)?;
                let st = m
                    .ty(base)
                    .and_then(|t| m.pointee(t))
                    .ok_or_else(|| malformed("a field address of a non-pointer"))?;
                let field = self.cx.field_name(st, k);
                let text = format!("{}.{field}", b.text);
                if self.cx.split_mats.contains_key(&(st, k)) {
                    let ft = self.field_ty(st, k)?;
                    let (_, len) = m.matrix_dims(ft).ok_or_else(|| malformed("a bad matrix"))?;
                    let mty = self.cx.type_name(ft)?;
                    let parts = self
                        .cx
                        .split_names(st, k)?
                        .iter()
                        .map(|c| format!("{}.{c}", b.text))
                        .collect();
                    return Ok(Place {
                        text: String::new(),
                        kind: PlaceKind::SplitMatrix { parts, len, mty },
                    });
                }
                if self.cx.split.contains(&(st, k)) {
                    let ft = self.field_ty(st, k)?;
                    let vty = self.cx.type_name(ft)?;
                    let comps = self
                        .cx
                        .split_names(st, k)?
                        .iter()
                        .map(|c| format!("{}.{c}", b.text))
                        .collect();
                    return Ok(Place {
                        text: String::new(),
                        kind: PlaceKind::Split { comps, vty },
                    });
                }
                let kind = if self.cx.padded.contains_key(&(st, k)) {
                    let at = self.field_ty(st, k)?;
                    let elem = self.cx.type_name(m.operand(at, 0))?;
                    PlaceKind::Padded {
                        n: m.array_len(at).unwrap_or(0),
                        elem,
                    }
                } else {
                    kind_at(self.cx, self.cx.loc_of(p))
                };
                Ok(Place { text, kind })
            }
            Op::ElementAddr => {
                let base = m.operand(p, 0);
                let b = self.place(base)?;
                let idx = self.value(m.operand(p, 1))?;
                let idx = self.index_text(m.operand(p, 1), idx)?;
                if let PlaceKind::Split { comps, vty } = &b.kind {
                    let iv = m.operand(p, 1);
                    if let Some(c) = m.const_int_value(iv) {
                        let text = usize::try_from(c)
                            .ok()
                            .and_then(|c| comps.get(c))
                            .cloned()
                            .ok_or_else(|| {
                                WgslError::new(OPERANDS, "a vector component index out of range")
                            })?;
                        return Ok(Place {
                            text,
                            kind: PlaceKind::Plain,
                        });
                    }
                    return Ok(Place {
                        text: String::new(),
                        kind: PlaceKind::SplitElem {
                            comps: comps.clone(),
                            agg: vty.clone(),
                            idx,
                        },
                    });
                }
                if let PlaceKind::SplitMatrix { parts, len, .. } = &b.kind {
                    // HLSL row `idx`.
                    if let Some(r) = m.const_int_value(m.operand(p, 1)) {
                        let text = usize::try_from(r)
                            .ok()
                            .and_then(|r| parts.get(r))
                            .cloned()
                            .ok_or_else(|| {
                                WgslError::new(OPERANDS, "a matrix row index out of range")
                            })?;
                        return Ok(Place {
                            text,
                            kind: PlaceKind::Plain,
                        });
                    }
                    return Ok(Place {
                        text: String::new(),
                        kind: PlaceKind::SplitElem {
                            comps: parts.clone(),
                            agg: format!("array<vec{len}<f32>, {}>", parts.len()),
                            idx,
                        },
                    });
                }
                if let PlaceKind::Padded { .. } = &b.kind {
                    return Ok(Place {
                        text: format!("{}[{idx}].v", b.text),
                        kind: PlaceKind::Plain,
                    });
                }
                if m.op(base) == Op::Global && self.cx.wrapped_buffers.contains(&base) {
                    // A buffer of a binding array of wrapped runtime arrays.
                    return Ok(Place {
                        text: format!("{}[{idx}].v", b.text),
                        kind: kind_at(self.cx, self.cx.loc_of(p)),
                    });
                }
                let text = format!("{}[{idx}]", b.text);
                let kind = kind_at(self.cx, self.cx.loc_of(p));
                Ok(Place { text, kind })
            }
            Op::TexelAddr => Err(WgslError::new(
                OPERANDS,
                "an atomic on a texel of a storage texture; WGSL has no texture atomics",
            )),
            _ => Err(malformed("a pointer that does not come from a variable")),
        }
    }

    /// An index as WGSL takes it (`i32` or `u32`).
    fn index_text(&mut self, v: InstId, e: E) -> R<String> {
        let m = self.m;
        let t = self.ty_of(v)?;
        Ok(match m.op(t) {
            Op::I32 | Op::U32 => e.text,
            _ => format!("u32({})", e.text),
        })
    }

    /// The value a `load` of `p` reads.
    pub fn load_place(&mut self, p: InstId) -> R<E> {
        let place = self.place(p)?;
        match place.kind {
            PlaceKind::Plain => Ok(E::primary(place.text)),
            PlaceKind::Atomic => Ok(E::primary(format!("atomicLoad(&{})", place.text))),
            PlaceKind::HoldsAtomics => Err(WgslError::new(
                OPERANDS,
                format!(
                    "a load of `{}`, which holds atomics; WGSL loads atomics one by one",
                    place.text
                ),
            )),
            PlaceKind::Split { comps, vty } => {
                Ok(E::primary(format!("{vty}({})", comps.join(", "))))
            }
            PlaceKind::SplitElem { comps, agg, idx } => {
                Ok(E::primary(format!("{agg}({})[{idx}]", comps.join(", "))))
            }
            PlaceKind::SplitMatrix { parts, mty, .. } => {
                Ok(E::primary(format!("{mty}({})", parts.join(", "))))
            }
            PlaceKind::Padded { n, elem } => {
                let parts: Vec<String> = (0..n).map(|k| format!("{}[{k}].v", place.text)).collect();
                Ok(E::primary(format!(
                    "array<{elem}, {n}>({})",
                    parts.join(", ")
                )))
            }
        }
    }

    /// The type of field `k` of struct `st`.
    fn field_ty(&self, st: InstId, k: usize) -> R<InstId> {
        let m = self.m;
        m.struct_fields(st)
            .get(k)
            .and_then(|&f| m.ty(f))
            .ok_or_else(|| malformed("a field address past the struct's fields"))
    }

    /// `.x`, `.field`, `[i]` for constant indices into a composite type; also, when the path
    /// ends at a split vector field, the paths of its components and the vector type.
    pub fn index_path(&mut self, ty: InstId, idx: &[u32]) -> R<IndexPath> {
        let m = self.m;
        let mut s = String::new();
        // A split vector field the path has reached: its components' member names and type.
        let mut split: Option<(Vec<String>, String)> = None;
        let mut cur = Some(ty);
        for &k in idx {
            let Some(ty) = cur else {
                s.push_str(&format!("[{k}]"));
                continue;
            };
            if let Some((comps, _)) = split.take() {
                let c = comps
                    .get(k as usize)
                    .ok_or_else(|| malformed("a vector index out of range"))?;
                s.push('.');
                s.push_str(c);
                cur = Some(m.operand(ty, 0));
                continue;
            }
            match m.op(ty) {
                Op::Vector => {
                    let c = COMPONENTS
                        .get(k as usize)
                        .ok_or_else(|| malformed("a vector index out of range"))?;
                    s.push('.');
                    s.push(*c);
                    cur = Some(m.operand(ty, 0));
                }
                Op::Matrix => {
                    s.push_str(&format!("[{k}]"));
                    cur = None;
                }
                Op::Array | Op::RuntimeArray => {
                    s.push_str(&format!("[{k}]"));
                    cur = Some(m.operand(ty, 0));
                }
                Op::Struct => {
                    let f = self.cx.field_name(ty, k as usize);
                    let ft = m
                        .struct_fields(ty)
                        .get(k as usize)
                        .and_then(|&f| m.ty(f))
                        .ok_or_else(|| malformed("a struct index out of range"))?;
                    if self.cx.split_mats.contains_key(&(ty, k as usize)) {
                        return Err(WgslError::new(
                            OPERANDS,
                            format!(
                                "member `{f}` of a buffer struct (a matrix WGSL declares one \
                                 member per row or column) read from a struct value; not \
                                 supported by the WGSL backend"
                            ),
                        ));
                    }
                    if self.cx.split.contains(&(ty, k as usize)) {
                        let comps = self.cx.split_names(ty, k as usize)?;
                        split = Some((comps, self.cx.type_name(ft)?));
                        cur = Some(ft);
                        continue;
                    }
                    s.push('.');
                    s.push_str(&f);
                    if self.cx.padded.contains_key(&(ty, k as usize)) {
                        return Err(WgslError::new(
                            OPERANDS,
                            format!(
                                "member `{f}` of a constant-buffer struct (an array WGSL declares \
                                 with padded elements) read from a struct value; not supported by \
                                 the WGSL backend"
                            ),
                        ));
                    }
                    cur = Some(
                        m.struct_fields(ty)
                            .get(k as usize)
                            .and_then(|&f| m.ty(f))
                            .ok_or_else(|| malformed("a struct index out of range"))?,
                    );
                }
                _ => return Err(malformed("an index into a non-composite")),
            }
        }
        Ok(IndexPath {
            split: split
                .map(|(comps, vty)| (comps.iter().map(|c| format!("{s}.{c}")).collect(), vty)),
            text: s,
        })
    }

    /// The expression of a pure instruction.
    pub fn inst_expr(&mut self, i: InstId) -> R<E> {
        self.inst_expr_of(i).map_err(|e| self.located(i, e))
    }

    fn inst_expr_of(&mut self, i: InstId) -> R<E> {
        let m = self.m;
        let op = m.op(i);
        match op {
            Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Rem => self.arith(i),
            Op::Neg => {
                let x = m.operand(i, 0);
                let a = self.value(x)?;
                let t = self.ty_of(x)?;
                if m.scalar_kind(t) == Some(ScalarKind::Uint) {
                    // WGSL has no unary minus on unsigned integers: `0 - x` wraps the same.
                    let tn = self.cx.type_name(t)?;
                    return Ok(bin(&E::primary(format!("{tn}()")), "-", &a));
                }
                if m.op(t) == Op::Matrix {
                    // WGSL has no unary minus on matrices: row by row.
                    return self.row_wise(t, |r| format!("-{}[{r}]", a.p()));
                }
                Ok(E::op(format!("-{}", a.p())))
            }
            Op::And | Op::Or | Op::Xor | Op::Not => self.logic(i),
            Op::Shl | Op::Shr => self.shift(i),
            Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge => self.compare(i),
            Op::MatMul => self.matmul(i),
            Op::Convert => {
                let to = self.ty_of(i)?;
                let x = m.operand(i, 0);
                let from = self.ty_of(x)?;
                let a = self.value(x)?;
                if to == from {
                    return Ok(a);
                }
                if m.scalar_kind(to) == Some(ScalarKind::Bool) {
                    // `x != 0` (unordered for floats, as the IR).
                    let tn = self.cx.type_name(from)?;
                    return Ok(bin(&a, "!=", &E::primary(format!("{tn}()"))));
                }
                let tn = self.cx.type_name(to)?;
                Ok(call(&tn, &[&a]))
            }
            Op::Bitcast => {
                let to = self.ty_of(i)?;
                let x = m.operand(i, 0);
                let from = self.ty_of(x)?;
                let a = self.value(x)?;
                if to == from {
                    return Ok(a);
                }
                let tn = self.cx.type_name(to)?;
                self.cx.type_name(from)?;
                if m.vector_len(to) != m.vector_len(from) {
                    return Err(WgslError::new(
                        TYPE,
                        "a `bitcast` between vectors of different lengths",
                    ));
                }
                Ok(E::primary(format!("bitcast<{tn}>({})", a.text)))
            }
            Op::Construct => {
                let ty = self.ty_of(i)?;
                let tn = self.cx.type_name(ty)?;
                let mut parts = Vec::new();
                for k in 0..m.num_operands(i) {
                    let mut e = self.value(m.operand(i, k))?.text;
                    if m.op(ty) == Op::Struct && self.cx.padded.contains_key(&(ty, k)) {
                        return Err(WgslError::new(
                            OPERANDS,
                            "a value of a constant-buffer struct holding an array WGSL declares \
                             with padded elements; not supported by the WGSL backend",
                        ));
                    }
                    if m.op(ty) == Op::Struct && self.cx.split_mats.contains_key(&(ty, k)) {
                        return Err(WgslError::new(
                            OPERANDS,
                            "a value of a buffer struct holding a matrix WGSL declares one \
                             member per row or column; not supported by the WGSL backend",
                        ));
                    }
                    if m.op(ty) == Op::Struct && self.cx.split.contains(&(ty, k)) {
                        let v = self.value(m.operand(i, k))?;
                        let n = self
                            .ty_of(m.operand(i, k))
                            .ok()
                            .and_then(|t| m.vector_len(t))
                            .unwrap_or(0);
                        e = super::module::split_args(&v.p().to_string(), n);
                    }
                    parts.push(e);
                }
                if parts.is_empty() && m.op(ty) == Op::Struct {
                    return Ok(E::primary(format!("{tn}()")));
                }
                if m.op(ty) == Op::Struct && self.cx.lead_pad(ty).is_some() {
                    // The leading padding member (a buffer struct whose first member is at a
                    // non-zero offset).
                    parts.insert(0, "0u".into());
                }
                Ok(E::primary(format!("{tn}({})", parts.join(", "))))
            }
            Op::Extract => {
                let base = m.operand(i, 0);
                let bt = self.ty_of(base)?;
                let b = self.value(base)?;
                let idx: Vec<u32> = (1..m.num_operands(i))
                    .map(|k| m.imm_operand(i, k).unwrap_or(0))
                    .collect();
                let path = self.index_path(bt, &idx)?;
                if let Some((comps, vty)) = &path.split {
                    let parts: Vec<String> =
                        comps.iter().map(|c| format!("{}{c}", b.p())).collect();
                    return Ok(E::primary(format!("{vty}({})", parts.join(", "))));
                }
                Ok(E::primary(format!("{}{}", b.p(), path.text)))
            }
            Op::ExtractDyn => {
                let b = self.value(m.operand(i, 0))?;
                let k = self.value(m.operand(i, 1))?;
                let k = self.index_text(m.operand(i, 1), k)?;
                Ok(E::primary(format!("{}[{k}]", b.p())))
            }
            Op::Shuffle => self.shuffle(i),
            Op::Select => {
                let c = self.value(m.operand(i, 0))?;
                let a = self.value(m.operand(i, 1))?;
                let b = self.value(m.operand(i, 2))?;
                let ty = self.ty_of(i)?;
                if matches!(m.op(ty), Op::Struct | Op::Array | Op::Matrix) {
                    // WGSL's select takes scalars and vectors.
                    return Err(WgslError::new(
                        OPERANDS,
                        "a `select` of structs, arrays or matrices; WGSL selects scalars and \
                         vectors",
                    ));
                }
                Ok(call("select", &[&b, &a, &c]))
            }
            Op::Load => self.load_place(m.operand(i, 0)),
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
            | Op::QuerySize
            | Op::QueryLevels
            | Op::QuerySamples
            | Op::QueryLod
            | Op::SampleCmpLevel
            | Op::SampleCmpBias
            | Op::SampleCmpGrad => self.texture_expr(i),
            Op::BufferLoad => self.buffer_load(i),
            Op::ArrayLength => {
                let p = self.place(m.operand(i, 0))?;
                Ok(E::primary(format!("arrayLength(&{})", p.text)))
            }
            _ => Err(WgslError::new(
                UNMAPPED,
                format!(
                    "the operation `{}` has no WGSL form (WGSL has no ray queries, geometry \
                     streams or mesh outputs)",
                    op.spelling()
                ),
            )),
        }
    }

    fn arith(&mut self, i: InstId) -> R<E> {
        let m = self.m;
        let op = m.op(i);
        let ty = self.ty_of(i)?;
        let a = self.value(m.operand(i, 0))?;
        let b = self.value(m.operand(i, 1))?;
        let matrix = m.op(ty) == Op::Matrix;
        Ok(match op {
            Op::Add => bin(&a, "+", &b),
            Op::Sub => bin(&a, "-", &b),
            // Component-wise, row by row: WGSL's `*` on matrices is the matrix product, and
            // it has no `/` or `%` on matrices.
            Op::Mul | Op::Div | Op::Rem if matrix => {
                let sym = match op {
                    Op::Mul => "*",
                    Op::Div => "/",
                    _ => "%",
                };
                self.row_wise(ty, |r| format!("{}[{r}] {sym} {}[{r}]", a.p(), b.p()))?
            }
            Op::Mul => bin(&a, "*", &b),
            Op::Div => bin(&a, "/", &b),
            // WGSL's `%` truncates (the sign of the dividend) for integers and floats alike:
            // the IR's `rem`.
            _ => bin(&a, "%", &b),
        })
    }

    /// A matrix of type `ty` (printed by HLSL rows) built from the row expressions `row(r)`.
    fn row_wise(&mut self, ty: InstId, row: impl Fn(u32) -> String) -> R<E> {
        let (rows, _) = self
            .m
            .matrix_dims(ty)
            .ok_or_else(|| malformed("a matrix operation whose type is no matrix"))?;
        let tn = self.cx.type_name(ty)?;
        Ok(per_vector(&tn, rows, row))
    }

    fn shift(&mut self, i: InstId) -> R<E> {
        let m = self.m;
        let a = self.value(m.operand(i, 0))?;
        let amount = m.operand(i, 1);
        let at = self.ty_of(amount)?;
        let n = vlen(m, at);
        let in_range = m
            .const_int_value(amount)
            .is_some_and(|v| (0..32).contains(&v));
        let b = self.value(amount)?;
        // WGSL shifts by a u32 (vector) count; the IR masks the count to the width.
        let b = if in_range && m.scalar_kind(at) == Some(ScalarKind::Uint) {
            b
        } else {
            let ut = match n {
                Some(n) => format!("vec{n}<u32>"),
                None => "u32".into(),
            };
            let cast = if m.scalar_kind(at) == Some(ScalarKind::Uint) {
                b
            } else {
                E::primary(format!("{ut}({})", b.text))
            };
            let mask = match n {
                Some(n) => format!("vec{n}<u32>(31u)"),
                None => "31u".into(),
            };
            bin(&cast, "&", &E::primary(mask))
        };
        let sym = if m.op(i) == Op::Shl { "<<" } else { ">>" };
        Ok(bin(&a, sym, &b))
    }

    /// A statement (an instruction whose result nobody uses, or that has effects).
    pub fn statement(&mut self, i: InstId) -> R<()> {
        let m = self.m;
        match m.op(i) {
            Op::Store => self.store(i),
            Op::BufferStore => self.buffer_store(i),
            Op::TextureStore => {
                let s = self.texture_store(i)?;
                self.line_fmt(format_args!("{s};"));
                Ok(())
            }
            Op::Barrier => {
                let s = self.barrier(i)?;
                self.line(&s);
                Ok(())
            }
            Op::AtomicRmw
                if m.imm_operand(i, 0).and_then(AtomicOp::from_u32) == Some(AtomicOp::Store) =>
            {
                let p = self.place(m.operand(i, 1))?;
                let v = self.value(m.operand(i, 2))?;
                self.line_fmt(format_args!("atomicStore(&{}, {});", p.text, v.text));
                Ok(())
            }
            _ => {
                let e = self.effect_expr(i)?;
                let discard = m.ty(i).is_some_and(|t| m.op(t) != Op::Void) && m.op(i) != Op::Call;
                if discard {
                    self.line_fmt(format_args!("_ = {e};"));
                } else {
                    self.line_fmt(format_args!("{e};"));
                }
                Ok(())
            }
        }
    }

    /// The expression of an instruction with effects (a call, an atomic, an out-parameter
    /// intrinsic).
    pub fn effect_expr(&mut self, i: InstId) -> R<String> {
        let m = self.m;
        match m.op(i) {
            Op::Call => self.call_expr(i),
            Op::AtomicRmw | Op::AtomicCmpXchg => self.atomic(i),
            Op::CallIntrinsic => self.out_param_intrinsic(i),
            _ if !has_effect(m, i) => Ok(self.inst_expr(i)?.text),
            op => Err(WgslError::new(
                UNMAPPED,
                format!("the operation `{}` has no WGSL form", op.spelling()),
            )),
        }
    }

    fn call_expr(&mut self, i: InstId) -> R<String> {
        let m = self.m;
        let callee = m.operand(i, 0);
        let name = self
            .cx
            .item_names
            .get(&callee)
            .cloned()
            .ok_or_else(|| malformed("a call of a function that is not printed"))?;
        let mut args = Vec::new();
        for k in 1..m.num_operands(i) {
            let a = m.operand(i, k);
            let at = self.ty_of(a)?;
            if m.op(at) == Op::Ptr {
                let whole = matches!(m.op(a), Op::Var | Op::Global | Op::Param);
                if !whole {
                    return Err(WgslError::new(
                        OPERANDS,
                        "a pointer argument that is not a whole variable; WGSL passes pointers \
                         to whole variables only",
                    ));
                }
                if m.op(a) == Op::Param {
                    args.push(self.names.get(&a).cloned().unwrap_or_default());
                } else {
                    let p = self.place(a)?;
                    args.push(format!("&{}", p.text));
                }
            } else {
                args.push(self.value(a)?.text);
            }
        }
        Ok(format!("{name}({})", args.join(", ")))
    }

    fn store(&mut self, i: InstId) -> R<()> {
        let m = self.m;
        let space = m.ty(m.operand(i, 0)).and_then(|t| m.address_space(t));
        if let Some(vt) = m.ty(m.operand(i, 1))
            && !matches!(
                space,
                Some(AddressSpace::Function | AddressSpace::Private | AddressSpace::Workgroup)
            )
            && let Some(st) = self.cx.lead_padded_in(vt)
        {
            // The padding member is a real WGSL member: a whole store would write its bytes,
            // which our SPIR-V's store leaves alone.
            return Err(WgslError::new(
                OPERANDS,
                format!(
                    "a whole store of a value holding struct `{}` to {} memory; its first member \
                     is at a non-zero offset, and WGSL would write the padding before it",
                    m.name(st).unwrap_or("?"),
                    space.map_or("?".into(), |s| s.spelling().to_string())
                ),
            ));
        }
        let place = self.place(m.operand(i, 0))?;
        let v = self.value(m.operand(i, 1))?;
        match place.kind {
            PlaceKind::Plain => self.line_fmt(format_args!("{} = {};", place.text, v.text)),
            PlaceKind::Atomic => {
                self.line_fmt(format_args!("atomicStore(&{}, {});", place.text, v.text))
            }
            PlaceKind::Split { comps, .. } => {
                let tmp = self.local_name(Some("vec"), "vec");
                self.line_fmt(format_args!("let {tmp} = {};", v.text));
                for (c, comp) in comps.iter().enumerate() {
                    self.line_fmt(format_args!("{comp} = {tmp}.{};", COMPONENTS[c]));
                }
            }
            PlaceKind::SplitMatrix { parts, .. } => {
                let tmp = self.local_name(Some("mat"), "mat");
                self.line_fmt(format_args!("let {tmp} = {};", v.text));
                for (c, part) in parts.iter().enumerate() {
                    self.line_fmt(format_args!("{part} = {tmp}[{c}];"));
                }
            }
            PlaceKind::SplitElem { comps, idx, .. } => {
                let (tv, ti) = (
                    self.local_name(Some("val"), "val"),
                    self.local_name(Some("idx"), "idx"),
                );
                self.line_fmt(format_args!("let {tv} = {};", v.text));
                self.line_fmt(format_args!("let {ti} = {idx};"));
                let arms: Vec<String> = comps
                    .iter()
                    .enumerate()
                    .map(|(c, comp)| format!("if u32({ti}) == {c}u {{ {comp} = {tv}; }}"))
                    .collect();
                self.line(&arms.join(" else "));
            }
            PlaceKind::Padded { n, .. } => {
                let tmp = self.local_name(Some("elems"), "elems");
                self.line_fmt(format_args!("let {tmp} = {};", v.text));
                for k in 0..n {
                    self.line_fmt(format_args!("{}[{k}].v = {tmp}[{k}];", place.text));
                }
            }
            PlaceKind::HoldsAtomics => {
                return Err(WgslError::new(
                    OPERANDS,
                    format!(
                        "a store to `{}`, which holds atomics; WGSL stores atomics one by one",
                        place.text
                    ),
                ));
            }
        }
        Ok(())
    }

    fn atomic(&mut self, i: InstId) -> R<String> {
        let m = self.m;
        let is_rmw = m.op(i) == Op::AtomicRmw;
        let p = if is_rmw {
            m.operand(i, 1)
        } else {
            m.operand(i, 0)
        };
        let place = self.place(p)?;
        if place.kind != PlaceKind::Atomic {
            return Err(malformed("an atomic on a location not declared atomic"));
        }
        let target = format!("&{}", place.text);
        if !is_rmw {
            let cmp = self.value(m.operand(i, 1))?;
            let v = self.value(m.operand(i, 2))?;
            return Ok(format!(
                "atomicCompareExchangeWeak({target}, {}, {}).old_value",
                cmp.text, v.text
            ));
        }
        let aop = m
            .imm_operand(i, 0)
            .and_then(AtomicOp::from_u32)
            .ok_or_else(|| malformed("unknown atomic operation"))?;
        if aop == AtomicOp::Load {
            return Ok(format!("atomicLoad({target})"));
        }
        let v = self.value(m.operand(i, 2))?;
        let f = match aop {
            AtomicOp::Add => "atomicAdd",
            AtomicOp::Sub => "atomicSub",
            AtomicOp::Min => "atomicMin",
            AtomicOp::Max => "atomicMax",
            AtomicOp::And => "atomicAnd",
            AtomicOp::Or => "atomicOr",
            AtomicOp::Xor => "atomicXor",
            AtomicOp::Exchange => "atomicExchange",
            AtomicOp::Store => {
                return Err(WgslError::new(
                    OPERANDS,
                    "the result of an atomic store is used; WGSL's atomicStore returns nothing",
                ));
            }
            AtomicOp::Load => return Ok(format!("atomicLoad({target})")),
        };
        Ok(format!("{f}({target}, {})", v.text))
    }

    /// WGSL's barriers synchronize execution: `workgroupBarrier()` (workgroup memory) and
    /// `storageBarrier()` (storage memory). A memory barrier without execution
    /// synchronization has no WGSL form.
    fn barrier(&mut self, i: InstId) -> R<String> {
        let m = self.m;
        let flags = BarrierFlags(m.imm_operand(i, 0).unwrap_or(0));
        let sync = flags.contains(BarrierFlags::GROUP_SYNC);
        let device = flags.contains(BarrierFlags::DEVICE_MEMORY);
        let workgroup = flags.contains(BarrierFlags::WORKGROUP_MEMORY);
        if !sync {
            // `GroupMemoryBarrier` orders workgroup memory at workgroup scope, which
            // `workgroupBarrier()` also does, synchronizing execution besides: a superset
            // wherever every invocation reaches it, which the entry block of the entry point
            // is (and naga's uniformity analysis accepts). WGSL's `storageBarrier()` orders
            // storage memory at workgroup scope only, less than a device-scope barrier.
            let m = self.m;
            let in_entry_block = self.f == self.cx.entry.func
                && m.parent(i)
                    .is_some_and(|b| Some(b) == self.f.entry(m).map(|e| e.id()));
            if workgroup
                && !device
                && in_entry_block
                && self.cx.entry.stage == oneshader_ir::Stage::Compute
            {
                return Ok("workgroupBarrier();".into());
            }
            return Err(WgslError::new(
                UNMAPPED,
                "a memory barrier without execution synchronization (`DeviceMemoryBarrier`, \
                 `AllMemoryBarrier`, or `GroupMemoryBarrier` where not every invocation is \
                 sure to reach it); WGSL's barriers all synchronize the workgroup, and \
                 `storageBarrier()` orders storage memory at workgroup scope only",
            ));
        }
        Ok(match (workgroup, device) {
            (_, false) => "workgroupBarrier();".into(),
            (false, true) => "storageBarrier();".into(),
            (true, true) => {
                "storageBarrier();\n".to_string()
                    + &"    ".repeat(self.walk.indent)
                    + "workgroupBarrier();"
            }
        })
    }

    /// `frexp`/`modf`/`sincos`, which write through pointers.
    fn out_param_intrinsic(&mut self, i: InstId) -> R<String> {
        let m = self.m;
        let which = m
            .imm_operand(i, 0)
            .and_then(Intrinsic::from_u32)
            .ok_or_else(|| malformed("unknown intrinsic"))?;
        match which {
            Intrinsic::DebugPrintf | Intrinsic::DebugBreak => Err(WgslError::new(
                UNMAPPED,
                format!(
                    "`{}` (HLSL `printf`/`DebugBreak`) has no WGSL form: WGSL has no debug \
                     output; remove the call or guard it with a macro",
                    which.spelling()
                ),
            )),
            Intrinsic::Modf | Intrinsic::Frexp => {
                let mut x = self.value(m.operand(i, 1))?;
                let p = m.operand(i, 2);
                let place = self.place(p)?;
                let tmp = self.local_name(Some("parts"), "parts");
                let f = if which == Intrinsic::Modf {
                    "modf"
                } else {
                    "frexp"
                };
                // naga's `frexp` of an f16 gives an i16 exponent (a type WGSL lacks): split
                // the f32 of the same value instead (exact both ways).
                let xt = self.ty_of(m.operand(i, 1))?;
                let widened = which == Intrinsic::Frexp
                    && m.scalar_of(xt).is_some_and(|s| m.op(s) == Op::F16);
                if widened {
                    let wide = match vlen(m, xt) {
                        Some(n) => format!("vec{n}<f32>"),
                        None => "f32".into(),
                    };
                    x = call(&wide, &[&x]);
                }
                self.line_fmt(format_args!("let {tmp} = {f}({});", x.text));
                let pointee = m
                    .ty(p)
                    .and_then(|t| m.pointee(t))
                    .ok_or_else(|| malformed("an out-parameter that is not a pointer"))?;
                let part = if which == Intrinsic::Modf {
                    format!("{tmp}.whole")
                } else {
                    let tn = self.cx.type_name(pointee)?;
                    format!("{tn}({tmp}.exp)")
                };
                if place.kind != PlaceKind::Plain {
                    return Err(WgslError::new(
                        OPERANDS,
                        "an out-parameter of `frexp`/`modf` into an atomic or split location",
                    ));
                }
                self.line_fmt(format_args!("{} = {part};", place.text));
                if widened {
                    let tn = self.cx.type_name(xt)?;
                    return Ok(format!("{tn}({tmp}.fract)"));
                }
                Ok(format!("{tmp}.fract"))
            }
            Intrinsic::Sincos => {
                let x = self.value(m.operand(i, 1))?;
                let s = self.place(m.operand(i, 2))?;
                let c = self.place(m.operand(i, 3))?;
                self.line_fmt(format_args!("{} = sin({});", s.text, x.text));
                Ok(format!("{} = cos({})", c.text, x.text))
            }
            _ => Ok(self.inst_expr(i)?.text),
        }
    }

    /// The IR intrinsic `i`.
    pub fn intrinsic(&mut self, i: InstId) -> R<E> {
        use Intrinsic as I;
        let m = self.m;
        let which = m
            .imm_operand(i, 0)
            .and_then(Intrinsic::from_u32)
            .ok_or_else(|| malformed("unknown intrinsic"))?;
        let n = m.num_operands(i) - 1;
        let arg_ir: Vec<InstId> = (1..=n).map(|k| m.operand(i, k)).collect();
        let ty = self.ty_of(i)?;
        let arg_ty = arg_ir.first().and_then(|&a| m.ty(a));
        let kind = arg_ty.and_then(|t| m.scalar_kind(t));
        let simple = match which {
            I::Round => Some("round"),
            I::Rsqrt => Some("inverseSqrt"),
            I::Atan2 => Some("atan2"),
            I::Faceforward => Some("faceForward"),
            I::Degrees => Some("degrees"),
            I::Radians => Some("radians"),
            I::ReverseBits => Some("reverseBits"),
            I::CountBits => Some("countOneBits"),
            I::FirstBitLow => Some("firstTrailingBit"),
            I::FirstBitHigh => Some("firstLeadingBit"),
            I::PackHalf2x16 => Some("pack2x16float"),
            I::UnpackHalf2x16 => Some("unpack2x16float"),
            _ => crate::text::intrinsics::common_name(which),
        };
        if matches!(
            which,
            I::PackHalf2x16 | I::UnpackHalf2x16 | I::F32ToF16 | I::F16ToF32
        ) {
            // naga asks for it for `pack2x16float` and `unpack2x16float` (wgpu's downlevel
            // flag for f16 precision held in f32s, which every Vulkan device has).
            self.cx.capabilities.insert("SHADER_FLOAT16_IN_FLOAT32");
        }
        if which == I::Normalize && arg_ty.is_some_and(|t| m.op(t) != Op::Vector) {
            // WGSL's `normalize` takes vectors only; a scalar's is `x / length(x)`.
            let x = self.value(arg_ir[0])?;
            let len = call("abs", &[&x]);
            return Ok(bin(&x, "/", &len));
        }
        if let Some(f) = simple {
            let args: Vec<E> = arg_ir.iter().map(|&a| self.value(a)).collect::<R<_>>()?;
            let refs: Vec<&E> = args.iter().collect();
            let r = call(f, &refs);
            // The IR's result type may differ from WGSL's (countbits of an int is a uint).
            let rt = arg_ty.map(|t| m.scalar_kind(t));
            if matches!(
                which,
                I::CountBits | I::FirstBitLow | I::FirstBitHigh | I::ReverseBits
            ) && rt != Some(m.scalar_kind(ty))
            {
                let tn = self.cx.type_name(ty)?;
                return Ok(call(&tn, &[&r]));
            }
            return Ok(r);
        }
        let args: Vec<E> = arg_ir.iter().map(|&a| self.value(a)).collect::<R<_>>()?;
        // Float literals of the result's precision (`f` or, for f16, `h`).
        let half = m.scalar_of(ty).is_some_and(|s| m.op(s) == Op::F16);
        let suffix = if half { "h" } else { "f" };
        let one = |cx: &mut ModuleCx<'_>, t: InstId| -> R<E> {
            let tn = cx.type_name(t)?;
            Ok(E::primary(if m.op(t) == Op::Vector {
                format!("{tn}(1.0{suffix})")
            } else {
                format!("1.0{suffix}")
            }))
        };
        let arg_half = arg_ty
            .and_then(|t| m.scalar_of(t))
            .is_some_and(|s| m.op(s) == Op::F16);
        if arg_half
            && matches!(
                which,
                I::Ddx | I::Ddy | I::DdxFine | I::DdyFine | I::DdxCoarse | I::DdyCoarse | I::Fwidth
            )
        {
            return Err(WgslError::new(
                OPERANDS,
                format!(
                    "`{}` of an f16 value; WGSL's derivatives take f32 only",
                    which.spelling()
                ),
            ));
        }
        match which {
            I::Abs => Ok(if kind == Some(ScalarKind::Uint) {
                args[0].clone()
            } else {
                call("abs", &[&args[0]])
            }),
            I::Sign => {
                let at = arg_ty.ok_or_else(|| malformed("untyped operand"))?;
                let tn = self.cx.type_name(ty)?;
                match kind {
                    Some(ScalarKind::Float | ScalarKind::Int) => {
                        let s = call("sign", &[&args[0]]);
                        Ok(if Some(ty) == arg_ty {
                            s
                        } else {
                            call(&tn, &[&s])
                        })
                    }
                    _ => {
                        let an = self.cx.type_name(at)?;
                        let ne = bin(&args[0], "!=", &E::primary(format!("{an}()")));
                        Ok(call(&tn, &[&ne]))
                    }
                }
            }
            I::Saturate => {
                let z = if m.op(ty) == Op::Vector {
                    E::primary(format!("{}()", self.cx.type_name(ty)?))
                } else {
                    E::primary(format!("0.0{suffix}"))
                };
                let o = one(self.cx, ty)?;
                Ok(call("clamp", &[&args[0], &z, &o]))
            }
            I::Mad => {
                if kind == Some(ScalarKind::Float) {
                    Ok(call("fma", &[&args[0], &args[1], &args[2]]))
                } else {
                    Ok(bin(&bin(&args[0], "*", &args[1]), "+", &args[2]))
                }
            }
            I::Dot => {
                if kind == Some(ScalarKind::Float)
                    || kind == Some(ScalarKind::Int)
                    || kind == Some(ScalarKind::Uint)
                {
                    let at = arg_ty.ok_or_else(|| malformed("untyped operand"))?;
                    if m.op(at) != Op::Vector {
                        return Ok(bin(&args[0], "*", &args[1]));
                    }
                    return Ok(call("dot", &[&args[0], &args[1]]));
                }
                Err(WgslError::new(OPERANDS, "`dot` of bools"))
            }
            I::IsNan | I::IsInf | I::IsFinite => {
                let at = arg_ty.ok_or_else(|| malformed("untyped operand"))?;
                let len = vlen(m, at);
                let ut = match len {
                    Some(n) => format!("vec{n}<u32>"),
                    None => "u32".into(),
                };
                let splat = |v: &str| match len {
                    Some(n) => format!("vec{n}<u32>({v})"),
                    None => v.to_string(),
                };
                // A half's class is its f32's (the conversion is exact).
                let x = if arg_half {
                    match len {
                        Some(n) => format!("vec{n}<f32>({})", args[0].text),
                        None => format!("f32({})", args[0].text),
                    }
                } else {
                    args[0].text.clone()
                };
                let bits = format!("(bitcast<{ut}>({x}) & {})", splat("0x7fffffffu"));
                let inf = splat("0x7f800000u");
                let sym = match which {
                    I::IsNan => ">",
                    I::IsInf => "==",
                    _ => "<",
                };
                Ok(E::op(format!("{bits} {sym} {inf}")))
            }
            I::All | I::Any => {
                let at = arg_ty.ok_or_else(|| malformed("untyped operand"))?;
                let b = if kind == Some(ScalarKind::Bool) {
                    args[0].clone()
                } else {
                    let an = self.cx.type_name(at)?;
                    bin(&args[0], "!=", &E::primary(format!("{an}()")))
                };
                if m.op(at) == Op::Vector {
                    Ok(call(if which == I::All { "all" } else { "any" }, &[&b]))
                } else {
                    Ok(b)
                }
            }
            I::Ddx | I::Ddy | I::DdxFine | I::DdyFine | I::DdxCoarse | I::DdyCoarse | I::Fwidth => {
                let f = match which {
                    I::Ddx => "dpdx",
                    I::Ddy => "dpdy",
                    I::DdxFine => "dpdxFine",
                    I::DdyFine => "dpdyFine",
                    I::DdxCoarse => "dpdxCoarse",
                    I::DdyCoarse => "dpdyCoarse",
                    _ => "fwidth",
                };
                Ok(call(f, &[&args[0]]))
            }
            I::Ldexp => {
                if m.ty(arg_ir[1]).and_then(|t| m.scalar_kind(t)) == Some(ScalarKind::Float) {
                    let e = call("exp2", &[&args[1]]);
                    Ok(bin(&args[0], "*", &e))
                } else {
                    Ok(call("ldexp", &[&args[0], &args[1]]))
                }
            }
            I::Fmod => Ok(bin(&args[0], "%", &args[1])),
            I::Log10 => {
                let k = if half {
                    self.cx.half();
                    super::module::f16_literal(oneshader_ir::float16::f64_to_f16(
                        std::f64::consts::LOG10_2,
                    ))
                } else {
                    super::module::f32_literal((std::f64::consts::LOG10_2 as f32).to_bits())
                };
                Ok(bin(&call("log2", &[&args[0]]), "*", &E::primary(k)))
            }
            I::Rcp => {
                let o = one(self.cx, ty)?;
                Ok(bin(&o, "/", &args[0]))
            }
            I::WaveGetLaneCount | I::WaveGetLaneIndex => {
                let v = self.cx.subgroup_builtin(if which == I::WaveGetLaneCount {
                    "subgroup_size"
                } else {
                    "subgroup_invocation_id"
                });
                if m.op(ty) == Op::U32 {
                    Ok(E::primary(v))
                } else {
                    let tn = self.cx.type_name(ty)?;
                    Ok(E::primary(format!("{tn}({v})")))
                }
            }
            I::WaveIsFirstLane => {
                // naga 30 has no subgroupElect: the first active lane is the one whose index
                // the first active lane broadcasts.
                let id = self.cx.subgroup_builtin("subgroup_invocation_id");
                Ok(E::op(format!("{id} == subgroupBroadcastFirst({id})")))
            }
            I::WaveActiveAnyTrue
            | I::WaveActiveAllTrue
            | I::WaveActiveBallot
            | I::WaveReadLaneFirst
            | I::WaveActiveSum
            | I::WaveActiveProduct
            | I::WaveActiveMin
            | I::WaveActiveMax
            | I::WaveActiveBitAnd
            | I::WaveActiveBitOr
            | I::WaveActiveBitXor
            | I::WavePrefixSum
            | I::WavePrefixProduct
            | I::QuadReadAcrossX
            | I::QuadReadAcrossY
            | I::QuadReadAcrossDiagonal => {
                self.cx.subgroups();
                let at = arg_ty.ok_or_else(|| malformed("untyped operand"))?;
                self.cx.type_name(at)?;
                let f = match which {
                    I::WaveActiveAnyTrue => "subgroupAny",
                    I::WaveActiveAllTrue => "subgroupAll",
                    I::WaveActiveBallot => "subgroupBallot",
                    I::WaveReadLaneFirst => "subgroupBroadcastFirst",
                    I::WaveActiveSum => "subgroupAdd",
                    I::WaveActiveProduct => "subgroupMul",
                    I::WaveActiveMin => "subgroupMin",
                    I::WaveActiveMax => "subgroupMax",
                    I::WaveActiveBitAnd => "subgroupAnd",
                    I::WaveActiveBitOr => "subgroupOr",
                    I::WaveActiveBitXor => "subgroupXor",
                    I::WavePrefixSum => "subgroupExclusiveAdd",
                    I::WavePrefixProduct => "subgroupExclusiveMul",
                    I::QuadReadAcrossX => "quadSwapX",
                    I::QuadReadAcrossY => "quadSwapY",
                    _ => "quadSwapDiagonal",
                };
                Ok(call(f, &[&args[0]]))
            }
            I::WaveReadLaneAt | I::QuadReadLaneAt => {
                self.cx.subgroups();
                let lane_ir = arg_ir[1];
                let konst = m.op(lane_ir).is_constant();
                let lane = if self.kind_of(lane_ir) == Some(ScalarKind::Uint) {
                    args[1].clone()
                } else {
                    E::primary(format!("u32({})", args[1].text))
                };
                if which == I::QuadReadLaneAt {
                    if !konst {
                        return Err(WgslError::new(
                            OPERANDS,
                            "`QuadReadLaneAt` with a lane computed at run time; WGSL's \
                             quadBroadcast takes a constant",
                        ));
                    }
                    return Ok(call("quadBroadcast", &[&args[0], &lane]));
                }
                Ok(call("subgroupShuffle", &[&args[0], &lane]))
            }
            I::WaveActiveCountBits | I::WavePrefixCountBits => {
                self.cx.subgroups();
                let b = if kind == Some(ScalarKind::Bool) {
                    args[0].clone()
                } else {
                    bin(&args[0], "!=", &E::primary("0u"))
                };
                let e = if which == I::WaveActiveCountBits {
                    let bal = call("subgroupBallot", &[&b]);
                    let ones = call("countOneBits", &[&bal]);
                    call("dot", &[&ones, &E::primary("vec4<u32>(1u)")])
                } else {
                    let one = call("select", &[&E::primary("0u"), &E::primary("1u"), &b]);
                    call("subgroupExclusiveAdd", &[&one])
                };
                if m.op(ty) == Op::U32 {
                    Ok(e)
                } else {
                    let tn = self.cx.type_name(ty)?;
                    Ok(call(&tn, &[&e]))
                }
            }
            I::WaveActiveAllEqual => {
                self.cx.subgroups();
                let first = call("subgroupBroadcastFirst", &[&args[0]]);
                let eq = bin(&args[0], "==", &first);
                let at = arg_ty.ok_or_else(|| malformed("untyped operand"))?;
                let e = if m.op(at) == Op::Vector {
                    call("all", &[&eq])
                } else {
                    eq
                };
                let all = call("subgroupAll", &[&e]);
                if m.op(ty) == Op::Vector {
                    // Component-wise in HLSL for vectors: one answer per component.
                    let tn = self.cx.type_name(ty)?;
                    let parts: Vec<String> = (0..vlen(m, ty).unwrap_or(1))
                        .map(|k| {
                            let c = COMPONENTS[k as usize];
                            format!(
                                "subgroupAll({}.{c} == subgroupBroadcastFirst({}.{c}))",
                                args[0].p(),
                                args[0].p()
                            )
                        })
                        .collect();
                    return Ok(E::primary(format!("{tn}({})", parts.join(", "))));
                }
                Ok(all)
            }
            I::F32ToF16 | I::F16ToF32 => {
                // As the SPIR-V backend (PackHalf2x16/UnpackHalf2x16 per component): a float
                // to half (its bits in the low 16, the high 16 zero: component 0 of
                // `pack2x16float` is bits 0..15); the low 16 bits as a half, widened
                // (component 0 of `unpack2x16float` is the low half).
                let (from, to) = if which == I::F32ToF16 {
                    (Op::F32, Op::U32)
                } else {
                    (Op::U32, Op::F32)
                };
                let at = arg_ty.ok_or_else(|| malformed("untyped operand"))?;
                let fits = |t: InstId, s: Op| {
                    m.op(t) == s
                        || (m.op(t) == Op::Vector && m.scalar_of(t).map(|e| m.op(e)) == Some(s))
                };
                if !fits(at, from) || !fits(ty, to) || vlen(m, at) != vlen(m, ty) {
                    return Err(WgslError::new(
                        OPERANDS,
                        format!(
                            "`{}` takes {} and gives {} of the same shape",
                            which.spelling(),
                            from.spelling(),
                            to.spelling()
                        ),
                    ));
                }
                let one = |x: &str| {
                    if which == I::F32ToF16 {
                        format!("pack2x16float(vec2<f32>({x}, 0.0f))")
                    } else {
                        format!("unpack2x16float({x}).x")
                    }
                };
                Ok(E::primary(match vlen(m, ty) {
                    None => one(&args[0].text),
                    Some(n) => {
                        let tn = self.cx.type_name(ty)?;
                        let parts: Vec<String> = COMPONENTS[..n as usize]
                            .iter()
                            .map(|c| one(&format!("{}.{c}", args[0].p())))
                            .collect();
                        format!("{tn}({})", parts.join(", "))
                    }
                }))
            }
            I::Inverse => Err(WgslError::new(
                UNMAPPED,
                "`inverse` of a matrix; WGSL has no matrix inverse",
            )),
            I::NonUniformIndex => Ok(args[0].clone()),
            I::Sincos | I::Frexp | I::Modf => {
                Err(malformed("an out-parameter intrinsic used as a value"))
            }
            other => Err(WgslError::new(
                UNMAPPED,
                format!(
                    "the intrinsic `{}` has no WGSL mapping in this backend (WGSL has no wave, \
                     quad or interpolation-at built-ins that naga accepts without extra \
                     capabilities)",
                    other.spelling()
                ),
            )),
        }
    }
}
