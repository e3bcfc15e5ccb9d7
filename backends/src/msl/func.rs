//! One function: which values print inline (the text backends' shared [`crate::text::roles`]),
//! the statements of each block, the expressions, and the function's signature.
//!
//! Every operator prints with its operands in parentheses unless they are primary
//! expressions, so no C++ precedence rule matters. Values that need a local are declared
//! where they are defined (or at the top of the function when a use lies outside the
//! statement list of the definition). C++ arithmetic is made to mean the IR's: signed
//! addition, subtraction, multiplication and negation go through `uint` (`as_type`), so they
//! wrap instead of overflowing (undefined in C++); shift counts are masked to the width, and a
//! signed left shift shifts the `uint` bits; every literal carries its type.

use crate::text::printer::FnText;
use crate::text::walker::CSyntax as _;

use oneshader_ir::{AtomicOp, BarrierFlags, Func, InstId, Intrinsic, Module};
use oneshader_ir::{Op, ScalarKind};
use rustc_hash::FxHashSet;

use super::error::{DERIVATIVES, MslError, OPERANDS, R, TYPE, UNMAPPED, malformed};
use super::module::{FieldForm, ModuleCx};
use super::names::{Namer, namer};
use crate::text::atomics::Loc;
use crate::text::roles::{Role, has_effect};
use crate::text::table::IdMap;
use crate::text::walker::WalkState;

pub(crate) use crate::text::expr::E;
use crate::text::expr::{WordSpelling, bin, call, per_vector};
use crate::text::printer::ExprText;

/// How byte-address words are read in this target.
const WORDS: WordSpelling = WordSpelling {
    atomic_load: |w| format!("atomic_load_explicit(&{w}, memory_order_relaxed)"),
    bits_as: |s, w| match s {
        Op::I32 => format!("as_type<int>({w})"),
        _ => format!("as_type<float>({w})"),
    },
    bits_of: |x| format!("as_type<uint>({x})"),
    offset_as_uint: |x| format!("as_type<uint>({x})"),
    atomic_store: |w, v| format!("atomic_store_explicit(&{w}, {v}, memory_order_relaxed)"),
};

impl<'m> ExprText<'m> for FnEmitter<'_, 'm> {
    const WORDS: WordSpelling = WORDS;
    const OPERANDS: &'static str = OPERANDS;
    const BOOL_AND_OR: [&'static str; 2] = ["&&", "||"];
    const SWIZZLE_RUNS: bool = false;
    const INTEGER_DOT: bool = false;

    fn constant_text(&mut self, v: InstId) -> R<String> {
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
            .is_some_and(|l| self.cx.atomics.atomics.contains(&Loc::Elem(Box::new(l))))
    }
}

const COMPONENTS: [char; 4] = ['x', 'y', 'z', 'w'];

/// How an access path reaches memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PlaceKind {
    /// An ordinary l-value.
    Plain,
    /// An atomic location: read and written with `atomic_load_explicit`/`atomic_store_explicit`.
    Atomic,
    /// Part of a location holding atomics (a whole struct or array): not loadable.
    HoldsAtomics,
    /// A packed vector member: read through a conversion.
    Packed(String),
    /// A matrix declared as an array of `float4` ([`FieldForm::PaddedMatrix`]): `rows`
    /// HLSL rows of 2 components, of IR type `ty`.
    PaddedMatrix { rows: u32, ty: InstId },
    /// An array declared with [`FieldForm::PaddedMatrices`]: `len` such matrices of IR type
    /// `ty`, of `rows` rows each.
    PaddedMatrices { rows: u32, len: u32, ty: InstId },
    /// An array declared with 4-vector elements ([`FieldForm::Padded`]): `len` elements of
    /// `n` components of MSL scalar type `scalar`.
    Padded { n: u32, len: u32, scalar: String },
    /// One element of a padded array: its first `n` components.
    PaddedElem { n: u32, scalar: String },
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
        &[
            Sincos,
            IsFinite,
            Sign,
            Frexp,
            Modf,
            FirstBitLow,
            FirstBitHigh,
            WaveActiveAllEqual,
        ],
        |which| match which {
            // An integer dot is printed component by component.
            Dot if m
                .try_operand(i, 1)
                .and_then(|a| m.ty(a))
                .and_then(|t| m.scalar_kind(t))
                .is_some_and(|k| k != oneshader_ir::ScalarKind::Float) =>
            {
                Some((1..m.num_operands(i)).map(|k| m.operand(i, k)).collect())
            }
            _ => None,
        },
    )
}

/// The matrix (MSL type `tn`) declared as `rows` padded rows at `text`
/// ([`FieldForm::PaddedMatrix`]): each row's leading two components.
fn padded_matrix(tn: &str, text: &str, rows: u32) -> String {
    let parts: Vec<String> = (0..rows).map(|k| format!("{text}[{k}].xy")).collect();
    format!("{tn}({})", parts.join(", "))
}

/// Element `text` of a padded array: its first `n` components.
fn padded_elem(text: &str, n: u32, scalar: &str) -> String {
    if n == 1 {
        format!("{text}.x")
    } else {
        format!("{scalar}{n}({text}.xy)")
    }
}

fn needs_local(m: &Module, i: InstId) -> bool {
    matches!(m.op(i), Op::Insert | Op::InsertDyn | Op::AtomicCmpXchg)
}

pub(crate) use crate::text::Region;
use crate::text::walker::StatementWalker;

/// One function being printed.
pub(crate) struct FnEmitter<'a, 'm> {
    pub cx: &'a mut ModuleCx<'m>,
    pub m: &'m Module,
    pub f: Func,
    pub locals: Namer,
    pub names: IdMap<String>,
    pub roles: IdMap<Role>,
    pub hoisted: FxHashSet<InstId>,
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
            temps: 0,
            walk,
        })
    }

    /// Prints the whole function (`name`: its MSL name); every function takes the
    /// environment (the entry's globals) after its own parameters.
    pub fn emit(mut self, name: &str) -> R<String> {
        let m = self.m;
        let (ret, entry, sig) = self.signature()?;
        let mut params = Vec::new();
        for (_, pname, t) in sig {
            let tn = self.cx.type_name(t)?;
            params.push(format!("{tn} {pname}"));
        }
        for e in &self.cx.env {
            params.push(e.param.clone());
        }
        let ret_text = if m.op(ret) == Op::Void {
            "void".to_string()
        } else {
            self.cx.type_name(ret)?
        };
        self.name_locals();
        // The header first: the body is printed after it, into the same buffer.
        let header = format!(
            "static inline {ret_text} {name}({})\n{{\n",
            params.join(", ")
        );
        self.walk.out.insert_str(0, &header);
        let (vars, hoisted) = self.top_decls()?;
        for (n, t) in vars {
            let tn = self.cx.type_name(t)?;
            self.line_fmt(format_args!("{tn} {n} = {{}};"));
        }
        for (n, t) in hoisted {
            let tn = self.cx.type_name(t)?;
            self.line_fmt(format_args!("{tn} {n};"));
        }
        let top = Region {
            fn_top: true,
            ..Region::default()
        };
        self.region(entry, &top)?;
        if !self.walk.returned && m.op(ret) != Op::Void {
            let tn = self.cx.type_name(ret)?;
            self.line_fmt(format_args!("return {tn}{{}};"));
        }
        self.walk.out.push_str("}\n\n");
        Ok(std::mem::take(&mut self.walk.out))
    }

    pub fn named(&mut self, i: InstId) -> R<()> {
        let m = self.m;
        let t = m.ty(i).ok_or_else(|| malformed("an untyped value"))?;
        let tn = self.cx.type_name(t)?;
        let hoisted = self.hoisted.contains(&i);
        if !matches!(m.op(i), Op::Insert | Op::InsertDyn | Op::AtomicCmpXchg) {
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
                self.walk.line(format_args!("{tn} {name} = {e};"));
            }
            return Ok(());
        }
        let name = self.names[&i].clone();
        let decl = |s: &Self| {
            if s.hoisted.contains(&i) {
                name.clone()
            } else {
                format!("{tn} {name}")
            }
        };
        match m.op(i) {
            Op::Insert | Op::InsertDyn => {
                let base = self.value(m.operand(i, 0))?;
                let d = decl(self);
                self.line_fmt(format_args!("{d} = {};", base.text));
                let elem = self.value(m.operand(i, 1))?;
                if m.op(i) == Op::Insert {
                    let comp_ty = self.ty_of(m.operand(i, 0))?;
                    let idx: Vec<u32> = (2..m.num_operands(i))
                        .map(|k| m.imm_operand(i, k).unwrap_or(0))
                        .collect();
                    let (path, form) = self.index_path(comp_ty, &idx)?;
                    let v = match form {
                        FieldForm::Padded(_)
                        | FieldForm::PaddedMatrix
                        | FieldForm::PaddedMatrices => {
                            return Err(MslError::new(
                                OPERANDS,
                                "an insert into a constant-buffer array declared with 16-byte \
                                 elements in a struct value; not supported by the MSL backend",
                            ));
                        }
                        _ => elem.text,
                    };
                    self.line_fmt(format_args!("{name}{path} = {v};"));
                } else {
                    let k = self.value(m.operand(i, 2))?;
                    self.line_fmt(format_args!("{name}[{}] = {};", k.text, elem.text));
                }
                Ok(())
            }
            Op::AtomicCmpXchg => {
                // MSL's compare-exchange writes the value it found into `expected` and
                // reports whether it stored; a weak one may fail spuriously, so it is retried
                // while it failed and found the expected value.
                let place = self.place(m.operand(i, 0))?;
                if place.kind != PlaceKind::Atomic {
                    return Err(malformed("an atomic on a location not declared atomic"));
                }
                let cmp = self.value(m.operand(i, 1))?;
                let v = self.value(m.operand(i, 2))?;
                let c = self.local_name(Some("expected"), "expected");
                self.line_fmt(format_args!("{tn} {c} = {};", cmp.text));
                let d = decl(self);
                self.line_fmt(format_args!("{d} = {c};"));
                self.line_fmt(format_args!(
                    "while (!atomic_compare_exchange_weak_explicit(&{}, &{name}, {}, \
                     memory_order_relaxed, memory_order_relaxed) && {name} == {c}) {{}}",
                    place.text, v.text
                ));
                Ok(())
            }
            _ => Err(malformed("a local defined by a statement of its own")),
        }
    }

    /// The MSL l-value a pointer designates.
    pub fn place(&mut self, p: InstId) -> R<Place> {
        let m = self.m;
        let kind_at = |cx: &ModuleCx<'_>, loc: Option<Loc>| match loc {
            Some(l) if cx.atomics.atomics.contains(&l) => PlaceKind::Atomic,
            Some(l) if cx.atomics.prefixes.contains(&l) => PlaceKind::HoldsAtomics,
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
            Op::Var | Op::Param => {
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
                let kind = match self.cx.form(st, k) {
                    FieldForm::PaddedMatrix => {
                        let ft = m
                            .struct_fields(st)
                            .get(k)
                            .and_then(|&f| m.ty(f))
                            .ok_or_else(|| malformed("a field address past the fields"))?;
                        let (rows, _) = m
                            .matrix_dims(ft)
                            .ok_or_else(|| malformed("a padded matrix that is not a matrix"))?;
                        PlaceKind::PaddedMatrix { rows, ty: ft }
                    }
                    FieldForm::PaddedMatrices => {
                        let at = m
                            .struct_fields(st)
                            .get(k)
                            .and_then(|&f| m.ty(f))
                            .ok_or_else(|| malformed("a field address past the fields"))?;
                        let ty = m.operand(at, 0);
                        let (rows, _) = m
                            .matrix_dims(ty)
                            .ok_or_else(|| malformed("padded matrices that are not matrices"))?;
                        PlaceKind::PaddedMatrices {
                            rows,
                            len: m.array_len(at).unwrap_or(0),
                            ty,
                        }
                    }
                    FieldForm::Packed => {
                        let ft = m
                            .struct_fields(st)
                            .get(k)
                            .and_then(|&f| m.ty(f))
                            .ok_or_else(|| malformed("a field address past the fields"))?;
                        PlaceKind::Packed(self.cx.type_name(ft)?)
                    }
                    FieldForm::Padded(n) => {
                        let ft = m
                            .struct_fields(st)
                            .get(k)
                            .and_then(|&f| m.ty(f))
                            .ok_or_else(|| malformed("a field address past the fields"))?;
                        let e = m.operand(ft, 0);
                        let scalar = self.cx.type_name(m.scalar_of(e).unwrap_or(e))?;
                        PlaceKind::Padded {
                            n,
                            len: m.array_len(ft).unwrap_or(0),
                            scalar,
                        }
                    }
                    FieldForm::Plain => kind_at(self.cx, self.cx.loc_of(p)),
                };
                Ok(Place { text, kind })
            }
            Op::ElementAddr => {
                let base = m.operand(p, 0);
                if let Some(&blocks) = self.cx.buffer_arrays.get(&base) {
                    // An element of an array of buffers: a pointer, dereferenced when it
                    // points to a block.
                    let name = self
                        .cx
                        .item_names
                        .get(&base)
                        .cloned()
                        .ok_or_else(|| malformed("a global that was not declared"))?;
                    let idx = self.value(m.operand(p, 1))?;
                    let text = if blocks {
                        format!("(*{name}[{}])", idx.text)
                    } else {
                        format!("{name}[{}]", idx.text)
                    };
                    return Ok(Place {
                        text,
                        kind: PlaceKind::Plain,
                    });
                }
                let b = self.place(base)?;
                let idx = self.value(m.operand(p, 1))?;
                if let PlaceKind::Padded { n, scalar, .. } = &b.kind {
                    return Ok(Place {
                        text: format!("{}[{}]", b.text, idx.text),
                        kind: PlaceKind::PaddedElem {
                            n: *n,
                            scalar: scalar.clone(),
                        },
                    });
                }
                if let PlaceKind::PaddedMatrices { rows, ty, .. } = &b.kind {
                    return Ok(Place {
                        text: format!("{}[{}]", b.text, idx.text),
                        kind: PlaceKind::PaddedMatrix {
                            rows: *rows,
                            ty: *ty,
                        },
                    });
                }
                if let PlaceKind::PaddedMatrix { .. } = &b.kind {
                    // HLSL row `idx`: a vector's leading two components.
                    return Ok(Place {
                        text: format!("{}[{}]", b.text, idx.text),
                        kind: PlaceKind::PaddedElem {
                            n: 2,
                            scalar: "float".into(),
                        },
                    });
                }
                if let PlaceKind::Packed(_) | PlaceKind::PaddedElem { .. } = &b.kind {
                    return Ok(Place {
                        text: format!("{}[{}]", b.text, idx.text),
                        kind: PlaceKind::Plain,
                    });
                }
                let text = format!("{}[{}]", b.text, idx.text);
                let kind = kind_at(self.cx, self.cx.loc_of(p));
                Ok(Place { text, kind })
            }
            Op::TexelAddr => Err(MslError::new(
                OPERANDS,
                "an atomic on a texel of a storage texture; not supported by the MSL backend",
            )),
            _ => Err(malformed("a pointer that does not come from a variable")),
        }
    }

    /// The value a `load` of `p` reads.
    pub fn load_place(&mut self, p: InstId) -> R<E> {
        let place = self.place(p)?;
        match place.kind {
            PlaceKind::Plain => Ok(E::primary(place.text)),
            PlaceKind::Atomic => Ok(E::primary(format!(
                "atomic_load_explicit(&{}, memory_order_relaxed)",
                place.text
            ))),
            PlaceKind::HoldsAtomics => Err(MslError::new(
                OPERANDS,
                format!(
                    "a load of `{}`, which holds atomics; MSL loads atomics one by one",
                    place.text
                ),
            )),
            PlaceKind::Packed(t) => Ok(E::primary(format!("{t}({})", place.text))),
            PlaceKind::PaddedMatrix { rows, ty } => {
                let tn = self.cx.type_name(ty)?;
                Ok(E::primary(padded_matrix(&tn, &place.text, rows)))
            }
            PlaceKind::PaddedMatrices { rows, len, ty } => {
                let tn = self.cx.type_name(ty)?;
                let parts: Vec<String> = (0..len)
                    .map(|k| padded_matrix(&tn, &format!("{}[{k}]", place.text), rows))
                    .collect();
                Ok(E::primary(format!(
                    "array<{tn}, {len}>{{{}}}",
                    parts.join(", ")
                )))
            }
            PlaceKind::PaddedElem { n, scalar } => {
                Ok(E::primary(padded_elem(&place.text, n, &scalar)))
            }
            PlaceKind::Padded { n, len, scalar } => {
                let et = if n == 1 {
                    scalar.clone()
                } else {
                    format!("{scalar}{n}")
                };
                let parts: Vec<String> = (0..len)
                    .map(|k| padded_elem(&format!("{}[{k}]", place.text), n, &scalar))
                    .collect();
                Ok(E::primary(format!(
                    "array<{et}, {len}>{{{}}}",
                    parts.join(", ")
                )))
            }
        }
    }

    /// `.x`, `.field`, `[i]` for constant indices into a composite type; also how the last
    /// struct member on the path is declared.
    pub fn index_path(&mut self, ty: InstId, idx: &[u32]) -> R<(String, FieldForm)> {
        let m = self.m;
        let mut s = String::new();
        let mut cur = Some(ty);
        let mut form = FieldForm::Plain;
        for &k in idx {
            let Some(ty) = cur else {
                s.push_str(&format!("[{k}]"));
                continue;
            };
            if let FieldForm::Padded(_) | FieldForm::PaddedMatrix | FieldForm::PaddedMatrices = form
            {
                return Err(MslError::new(
                    OPERANDS,
                    "an element of a constant-buffer array of scalars or 2-vectors, or of a \
                     matrix of 2-vectors (declared with 16-byte elements), read from a struct \
                     value; not supported by the MSL backend",
                ));
            }
            form = FieldForm::Plain;
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
                    // A column: later indices are printed as `[k]` on the vector.
                    cur = None;
                }
                Op::Array | Op::RuntimeArray => {
                    s.push_str(&format!("[{k}]"));
                    cur = Some(m.operand(ty, 0));
                }
                Op::Struct => {
                    let f = self.cx.field_name(ty, k as usize);
                    s.push('.');
                    s.push_str(&f);
                    form = self.cx.form(ty, k as usize);
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
        Ok((s, form))
    }

    /// The expression of a pure instruction.
    pub fn inst_expr(&mut self, i: InstId) -> R<E> {
        self.inst_expr_of(i).map_err(|e| self.located(i, e))
    }

    /// `T(0)` for a numeric scalar or vector type.
    fn zero_of(&mut self, ty: InstId) -> R<E> {
        let m = self.m;
        let tn = self.cx.type_name(ty)?;
        let s = m.scalar_of(ty).unwrap_or(ty);
        let z = self.cx.scalar_literal(s, 0)?;
        Ok(if m.op(ty) == Op::Vector {
            E::primary(format!("{tn}({z})"))
        } else {
            E::primary(z)
        })
    }

    /// The unsigned type of the shape and width of `ty` (`uint`, `uint3`, `ulong2`).
    fn uint_of(&self, ty: InstId) -> std::borrow::Cow<'static, str> {
        let m = self.m;
        let base = if m.scalar_of(ty).and_then(|s| m.scalar_bits(s)) == Some(64) {
            "ulong"
        } else {
            "uint"
        };
        match m.vector_len(ty) {
            Some(n) if m.op(ty) == Op::Vector => format!("{base}{n}").into(),
            _ => base.into(),
        }
    }

    /// 16-bit integer arithmetic: computed in the 32-bit type of the same signedness and
    /// shape (C++ promotes 16-bit scalars to `int` anyway, where `ushort * ushort` could
    /// overflow), then converted back, which wraps as the IR does. Signed products of 16-bit
    /// values cannot overflow `int`; shift counts are masked to 15.
    fn short_int_op(&mut self, i: InstId) -> R<E> {
        let m = self.m;
        let op = m.op(i);
        let ty = self.ty_of(i)?;
        let tn = self.cx.type_name(ty)?;
        let signed = m.scalar_kind(ty) == Some(ScalarKind::Int);
        let shape = match m.vector_len(ty) {
            Some(n) if m.op(ty) == Op::Vector => n.to_string(),
            _ => String::new(),
        };
        let wt = format!("{}{shape}", if signed { "int" } else { "uint" });
        let ut = format!("uint{shape}");
        let a = self.value(m.operand(i, 0))?;
        let wa = E::primary(format!("{wt}({})", a.text));
        let r = match op {
            Op::Neg => E::op(format!("-{}", wa.p())),
            Op::Not => E::op(format!("~{}", wa.p())),
            Op::Shl | Op::Shr => {
                let c = self.value(m.operand(i, 1))?;
                let mask = if shape.is_empty() {
                    "15u".to_string()
                } else {
                    format!("{ut}(15u)")
                };
                let count = E::op(format!("{ut}({}) & {mask}", c.text));
                if op == Op::Shl {
                    // On the unsigned bits (a signed left shift may overflow in C++).
                    bin(&E::primary(format!("{ut}({})", a.text)), "<<", &count)
                } else if signed {
                    bin(&wa, ">>", &E::primary(format!("{wt}({})", count.text)))
                } else {
                    bin(&wa, ">>", &count)
                }
            }
            _ => {
                let b = self.value(m.operand(i, 1))?;
                let wb = E::primary(format!("{wt}({})", b.text));
                let sym = match op {
                    Op::Add => "+",
                    Op::Sub => "-",
                    Op::Mul => "*",
                    Op::Div => "/",
                    Op::Rem => "%",
                    Op::And => "&",
                    Op::Or => "|",
                    _ => "^",
                };
                bin(&wa, sym, &wb)
            }
        };
        Ok(E::primary(format!("{tn}({})", r.text)))
    }

    fn inst_expr_of(&mut self, i: InstId) -> R<E> {
        let m = self.m;
        let op = m.op(i);
        if matches!(
            op,
            Op::Add
                | Op::Sub
                | Op::Mul
                | Op::Div
                | Op::Rem
                | Op::Neg
                | Op::Not
                | Op::And
                | Op::Or
                | Op::Xor
                | Op::Shl
                | Op::Shr
        ) {
            let ty = self.ty_of(i)?;
            let s = m.scalar_of(ty).unwrap_or(ty);
            if matches!(m.op(s), Op::I16 | Op::U16) {
                return self.short_int_op(i);
            }
        }
        match op {
            Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Rem => self.arith(i),
            Op::Neg => {
                let ty = self.ty_of(i)?;
                let a = self.value(m.operand(i, 0))?;
                if m.scalar_kind(ty) == Some(ScalarKind::Int) {
                    let tn = self.cx.type_name(ty)?;
                    let ut = self.uint_of(ty);
                    return Ok(E::primary(format!(
                        "as_type<{tn}>(-as_type<{ut}>({}))",
                        a.text
                    )));
                }
                if m.op(ty) == Op::Matrix {
                    // MSL has no unary minus on matrices: column by column.
                    return self.per_column(ty, |r| format!("-{}[{r}]", a.p()));
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
                    let z = self.zero_of(from)?;
                    return Ok(bin(&a, "!=", &z));
                }
                let tn = self.cx.type_name(to)?;
                if m.scalar_kind(from) == Some(ScalarKind::Bool) {
                    // `select(0, 1, b)`: no reliance on bool-to-number promotion.
                    let one = {
                        let s = m.scalar_of(to).unwrap_or(to);
                        let bits = match m.op(s) {
                            Op::F32 => u64::from(1.0f32.to_bits()),
                            Op::F16 => 0x3c00,
                            _ => 1,
                        };
                        self.cx.scalar_literal(s, bits)?
                    };
                    let z = self.zero_of(to)?;
                    let o = if m.op(to) == Op::Vector {
                        E::primary(format!("{tn}({one})"))
                    } else {
                        E::primary(one)
                    };
                    return Ok(call("select", &[&z, &o, &a]));
                }
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
                    return Err(MslError::new(
                        TYPE,
                        "a `bitcast` between vectors of different lengths",
                    ));
                }
                Ok(E::primary(format!("as_type<{tn}>({})", a.text)))
            }
            Op::Construct => {
                let ty = self.ty_of(i)?;
                let mut parts = Vec::new();
                for k in 0..m.num_operands(i) {
                    parts.push(self.value(m.operand(i, k))?.text);
                }
                Ok(E::primary(self.cx.composite(ty, parts)?))
            }
            Op::Extract => {
                let base = m.operand(i, 0);
                let bt = self.ty_of(base)?;
                let b = self.value(base)?;
                let idx: Vec<u32> = (1..m.num_operands(i))
                    .map(|k| m.imm_operand(i, k).unwrap_or(0))
                    .collect();
                let (path, form) = self.index_path(bt, &idx)?;
                let e = format!("{}{path}", b.p());
                Ok(E::primary(match form {
                    FieldForm::Padded(_) | FieldForm::PaddedMatrix | FieldForm::PaddedMatrices => {
                        return Err(MslError::new(
                            OPERANDS,
                            "a constant-buffer array of scalars or 2-vectors (declared with \
                             16-byte elements) read from a struct value; not supported by the \
                             MSL backend",
                        ));
                    }
                    FieldForm::Packed => {
                        let t = self.ty_of(i)?;
                        format!("{}({e})", self.cx.type_name(t)?)
                    }
                    FieldForm::Plain => e,
                }))
            }
            Op::ExtractDyn => {
                let b = self.value(m.operand(i, 0))?;
                let k = self.value(m.operand(i, 1))?;
                Ok(E::primary(format!("{}[{}]", b.p(), k.text)))
            }
            Op::Shuffle => self.shuffle(i),
            Op::Select => {
                let cond = m.operand(i, 0);
                let c = self.value(cond)?;
                let a = self.value(m.operand(i, 1))?;
                let b = self.value(m.operand(i, 2))?;
                let ct = self.ty_of(cond)?;
                if m.op(ct) == Op::Vector {
                    return Ok(call("select", &[&b, &a, &c]));
                }
                Ok(E::op(format!("{} ? {} : {}", c.p(), a.p(), b.p())))
            }
            Op::Load => self.load_place(m.operand(i, 0)),
            Op::CallIntrinsic => self.intrinsic(i),
            Op::BufferLoad => self.buffer_load(i),
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
            Op::ArrayLength => {
                // `(size - offset) / stride` from the buffer-sizes buffer (as spirv-cross
                // computes it): the byte size of the buffer at its `[[buffer(n)]]` index.
                let (g, offset, stride) = self.cx.runtime_array_extent(m.operand(i, 0))?;
                let sizes = self.cx.buffer_sizes.clone().ok_or_else(|| {
                    malformed("`array_length` in a function the entry point does not reach")
                })?;
                let index =
                    self.cx.buffer_index.get(&g).copied().ok_or_else(|| {
                        malformed("`array_length` of a global that is not a buffer")
                    })?;
                Ok(E::op(format!("({sizes}[{index}] - {offset}u) / {stride}u")))
            }
            _ => Err(MslError::new(
                UNMAPPED,
                format!(
                    "the operation `{}` has no MSL form in this backend (ray queries, geometry \
                     streams and mesh outputs are not supported)",
                    op.spelling()
                ),
            )),
        }
    }

    /// A matrix of type `ty` built from its column expressions `col(r)` (MSL's columns are
    /// HLSL's rows).
    fn per_column(&mut self, ty: InstId, col: impl Fn(u32) -> String) -> R<E> {
        let (rows, _) = self
            .m
            .matrix_dims(ty)
            .ok_or_else(|| malformed("a matrix operation whose type is no matrix"))?;
        let tn = self.cx.type_name(ty)?;
        Ok(per_vector(&tn, rows, col))
    }

    fn arith(&mut self, i: InstId) -> R<E> {
        let m = self.m;
        let op = m.op(i);
        let ty = self.ty_of(i)?;
        let a = self.value(m.operand(i, 0))?;
        let b = self.value(m.operand(i, 1))?;
        if m.op(ty) == Op::Matrix {
            return Ok(match op {
                Op::Add => bin(&a, "+", &b),
                Op::Sub => bin(&a, "-", &b),
                // Component-wise (MSL's `*` on matrices is the matrix product): column by
                // column.
                Op::Rem => {
                    self.per_column(ty, |r| format!("fmod({}[{r}], {}[{r}])", a.p(), b.p()))?
                }
                _ => {
                    let sym = if op == Op::Mul { "*" } else { "/" };
                    self.per_column(ty, |r| format!("{}[{r}] {sym} {}[{r}]", a.p(), b.p()))?
                }
            });
        }
        let kind = m.scalar_kind(ty);
        let sym = match op {
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Div => "/",
            _ => "%",
        };
        if kind == Some(ScalarKind::Float) && op == Op::Rem {
            // The IR's float `rem` has the sign of the dividend: `fmod`.
            return Ok(call("fmod", &[&a, &b]));
        }
        if kind == Some(ScalarKind::Int) && matches!(op, Op::Add | Op::Sub | Op::Mul) {
            // Signed overflow is undefined in C++; the IR wraps.
            let tn = self.cx.type_name(ty)?;
            let ut = self.uint_of(ty);
            return Ok(E::primary(format!(
                "as_type<{tn}>(as_type<{ut}>({}) {sym} as_type<{ut}>({}))",
                a.text, b.text
            )));
        }
        Ok(bin(&a, sym, &b))
    }

    fn shift(&mut self, i: InstId) -> R<E> {
        let m = self.m;
        let ty = self.ty_of(i)?;
        let a = self.value(m.operand(i, 0))?;
        let amount = m.operand(i, 1);
        let at = self.ty_of(amount)?;
        let bits = m.scalar_of(ty).and_then(|s| m.scalar_bits(s)).unwrap_or(32);
        let in_range = m
            .const_int_value(amount)
            .is_some_and(|v| (0..i128::from(bits)).contains(&v));
        let b = self.value(amount)?;
        let ut = self.uint_of(at);
        // The IR masks the count to the width (C++ leaves larger counts undefined).
        let b = if in_range && m.scalar_kind(at) == Some(ScalarKind::Uint) {
            b
        } else {
            let cast = if m.scalar_kind(at) == Some(ScalarKind::Uint) {
                b
            } else {
                E::primary(format!("as_type<{ut}>({})", b.text))
            };
            // `bits - 1` in the (unsigned) type of the count.
            let wide = m.scalar_of(at).and_then(|s| m.scalar_bits(s)) == Some(64);
            let lit = format!("{}u{}", bits - 1, if wide { "l" } else { "" });
            let mask = if m.op(at) == Op::Vector {
                format!("{ut}({lit})")
            } else {
                lit
            };
            bin(&cast, "&", &E::primary(mask))
        };
        // A count of another width than the value's is converted to the value's unsigned
        // type (MSL's vector shifts take operands of one type).
        let vt_unsigned = self.uint_of(ty);
        let b = if m.scalar_of(at).and_then(|s| m.scalar_bits(s)) != Some(bits) {
            E::primary(format!("{vt_unsigned}({})", b.text))
        } else {
            b
        };
        if m.op(i) == Op::Shr && m.scalar_kind(ty) == Some(ScalarKind::Int) {
            // An arithmetic shift: the masked count in the value's (signed) type, so both
            // operands have one type.
            let tn = self.cx.type_name(ty)?;
            return Ok(bin(
                &a,
                ">>",
                &E::primary(format!("as_type<{tn}>({})", b.text)),
            ));
        }
        if m.op(i) == Op::Shl && m.scalar_kind(ty) == Some(ScalarKind::Int) {
            // A left shift of a negative value is undefined in C++14: shift the bits.
            let tn = self.cx.type_name(ty)?;
            let vt = self.uint_of(ty);
            return Ok(E::primary(format!(
                "as_type<{tn}>(as_type<{vt}>({}) << {})",
                a.text,
                b.p()
            )));
        }
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
            Op::AtomicCmpXchg => {
                let name = self.local_name(Some("found"), "found");
                self.names.insert(i, name);
                self.named(i)
            }
            Op::AtomicRmw
                if m.imm_operand(i, 0).and_then(AtomicOp::from_u32) == Some(AtomicOp::Store) =>
            {
                let p = self.place(m.operand(i, 1))?;
                if p.kind != PlaceKind::Atomic {
                    return Err(malformed("an atomic on a location not declared atomic"));
                }
                let v = self.value(m.operand(i, 2))?;
                self.line_fmt(format_args!(
                    "atomic_store_explicit(&{}, {}, memory_order_relaxed);",
                    p.text, v.text
                ));
                Ok(())
            }
            _ => {
                let e = self.effect_expr(i)?;
                self.line_fmt(format_args!("{e};"));
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
            Op::AtomicRmw => self.atomic(i),
            Op::CallIntrinsic => self.out_param_intrinsic(i),
            _ if !has_effect(m, i) => Ok(self.inst_expr(i)?.text),
            op => Err(MslError::new(
                UNMAPPED,
                format!(
                    "the operation `{}` has no MSL form in this backend",
                    op.spelling()
                ),
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
                // Reference parameters bind to the l-value itself.
                let p = self.place(a)?;
                if p.kind != PlaceKind::Plain {
                    return Err(MslError::new(
                        OPERANDS,
                        "a pointer argument into an atomic, packed or padded location; not \
                         supported by the MSL backend",
                    ));
                }
                args.push(p.text);
            } else {
                args.push(self.value(a)?.text);
            }
        }
        for e in &self.cx.env {
            args.push(e.name.clone());
        }
        Ok(format!("{name}({})", args.join(", ")))
    }

    fn store(&mut self, i: InstId) -> R<()> {
        let m = self.m;
        let place = self.place(m.operand(i, 0))?;
        let v = self.value(m.operand(i, 1))?;
        match place.kind {
            PlaceKind::Plain | PlaceKind::Packed(_) => {
                self.line_fmt(format_args!("{} = {};", place.text, v.text))
            }
            PlaceKind::Atomic => self.line_fmt(format_args!(
                "atomic_store_explicit(&{}, {}, memory_order_relaxed);",
                place.text, v.text
            )),
            PlaceKind::PaddedMatrix { rows, ty } => {
                let tmp = self.local_name(Some("vectors"), "vectors");
                let tn = self.cx.type_name(ty)?;
                // MSL's columns of the value: its `rows` HLSL rows of 2 components.
                self.line_fmt(format_args!("{tn} {tmp} = {};", v.text));
                for k in 0..rows {
                    for ch in ['x', 'y'] {
                        self.line_fmt(format_args!("{}[{k}].{ch} = {tmp}[{k}].{ch};", place.text));
                    }
                }
            }
            PlaceKind::PaddedMatrices { rows, len, ty } => {
                let tmp = self.local_name(Some("matrices"), "matrices");
                let tn = self.cx.type_name(ty)?;
                self.line_fmt(format_args!("array<{tn}, {len}> {tmp} = {};", v.text));
                for e in 0..len {
                    for k in 0..rows {
                        for ch in ['x', 'y'] {
                            self.line_fmt(format_args!(
                                "{}[{e}][{k}].{ch} = {tmp}[{e}][{k}].{ch};",
                                place.text
                            ));
                        }
                    }
                }
            }
            PlaceKind::PaddedElem { n, .. } => {
                for c in 0..n {
                    let ch = COMPONENTS[c as usize];
                    let comp = if n == 1 {
                        v.text.clone()
                    } else {
                        format!("{}.{ch}", v.p())
                    };
                    self.line_fmt(format_args!("{}.{ch} = {comp};", place.text));
                }
            }
            PlaceKind::Padded { n, len, .. } => {
                for k in 0..len {
                    for c in 0..n {
                        let ch = COMPONENTS[c as usize];
                        let comp = if n == 1 {
                            format!("{}[{k}]", v.p())
                        } else {
                            format!("{}[{k}].{ch}", v.p())
                        };
                        self.line_fmt(format_args!("{}[{k}].{ch} = {comp};", place.text));
                    }
                }
            }
            PlaceKind::HoldsAtomics => {
                return Err(MslError::new(
                    OPERANDS,
                    format!(
                        "a store to `{}`, which holds atomics; MSL stores atomics one by one",
                        place.text
                    ),
                ));
            }
        }
        Ok(())
    }

    fn atomic(&mut self, i: InstId) -> R<String> {
        let m = self.m;
        let place = self.place(m.operand(i, 1))?;
        if place.kind != PlaceKind::Atomic {
            return Err(malformed("an atomic on a location not declared atomic"));
        }
        let target = format!("&{}", place.text);
        let aop = m
            .imm_operand(i, 0)
            .and_then(AtomicOp::from_u32)
            .ok_or_else(|| malformed("unknown atomic operation"))?;
        if aop == AtomicOp::Load {
            return Ok(format!(
                "atomic_load_explicit({target}, memory_order_relaxed)"
            ));
        }
        let v = self.value(m.operand(i, 2))?;
        let f = match aop {
            AtomicOp::Add => "atomic_fetch_add_explicit",
            AtomicOp::Sub => "atomic_fetch_sub_explicit",
            AtomicOp::Min => "atomic_fetch_min_explicit",
            AtomicOp::Max => "atomic_fetch_max_explicit",
            AtomicOp::And => "atomic_fetch_and_explicit",
            AtomicOp::Or => "atomic_fetch_or_explicit",
            AtomicOp::Xor => "atomic_fetch_xor_explicit",
            AtomicOp::Exchange => "atomic_exchange_explicit",
            AtomicOp::Store | AtomicOp::Load => {
                return Err(MslError::new(
                    OPERANDS,
                    "the result of an atomic store is used; MSL's atomic_store_explicit \
                     returns nothing",
                ));
            }
        };
        Ok(format!("{f}({target}, {}, memory_order_relaxed)", v.text))
    }

    /// MSL's `threadgroup_barrier` synchronizes the threadgroup's execution and orders the
    /// memory its flags name. A memory barrier without execution synchronization has no MSL
    /// form that means the same.
    fn barrier(&mut self, i: InstId) -> R<String> {
        let m = self.m;
        let flags = BarrierFlags(m.imm_operand(i, 0).unwrap_or(0));
        let sync = flags.contains(BarrierFlags::GROUP_SYNC);
        let device = flags.contains(BarrierFlags::DEVICE_MEMORY);
        let workgroup = flags.contains(BarrierFlags::WORKGROUP_MEMORY);
        if !sync {
            return Err(MslError::new(
                UNMAPPED,
                "a memory barrier without execution synchronization (`DeviceMemoryBarrier`, \
                 `GroupMemoryBarrier`, `AllMemoryBarrier`); not supported by the MSL backend \
                 (MSL's threadgroup_barrier synchronizes the threadgroup)",
            ));
        }
        Ok(match (workgroup, device) {
            (false, false) => "threadgroup_barrier(mem_flags::mem_none);".into(),
            (true, false) => "threadgroup_barrier(mem_flags::mem_threadgroup);".into(),
            (false, true) => "threadgroup_barrier(mem_flags::mem_device);".into(),
            (true, true) => {
                "threadgroup_barrier(mem_flags::mem_device | mem_flags::mem_threadgroup);".into()
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
            Intrinsic::DebugPrintf | Intrinsic::DebugBreak => Err(MslError::new(
                UNMAPPED,
                format!(
                    "`{}` (HLSL `printf`/`DebugBreak`) has no Metal form: Metal has no debug \
                     output; remove the call or guard it with a macro",
                    which.spelling()
                ),
            )),
            Intrinsic::Modf | Intrinsic::Frexp => {
                let x = self.value(m.operand(i, 1))?;
                let p = m.operand(i, 2);
                let place = self.place(p)?;
                if place.kind != PlaceKind::Plain {
                    return Err(MslError::new(
                        OPERANDS,
                        "an out-parameter of `frexp`/`modf` into an atomic, packed or padded \
                         location",
                    ));
                }
                let xt = self.ty_of(m.operand(i, 1))?;
                let pointee = m
                    .ty(p)
                    .and_then(|t| m.pointee(t))
                    .ok_or_else(|| malformed("an out-parameter that is not a pointer"))?;
                let tmp = self.local_name(Some("part"), "part");
                let rt = self.local_name(Some("fraction"), "fraction");
                let xn = self.cx.type_name(xt)?;
                if which == Intrinsic::Modf {
                    self.line_fmt(format_args!("{xn} {tmp};"));
                    self.line_fmt(format_args!("{xn} {rt} = modf({}, {tmp});", x.text));
                    self.line_fmt(format_args!("{} = {tmp};", place.text));
                } else {
                    let it = match m.vector_len(xt) {
                        Some(n) if m.op(xt) == Op::Vector => format!("int{n}"),
                        _ => "int".into(),
                    };
                    let pn = self.cx.type_name(pointee)?;
                    self.line_fmt(format_args!("{it} {tmp};"));
                    self.line_fmt(format_args!("{xn} {rt} = frexp({}, {tmp});", x.text));
                    self.line_fmt(format_args!("{} = {pn}({tmp});", place.text));
                }
                Ok(rt)
            }
            Intrinsic::Sincos => {
                let x = self.value(m.operand(i, 1))?;
                let s = self.place(m.operand(i, 2))?;
                let c = self.place(m.operand(i, 3))?;
                if s.kind != PlaceKind::Plain || c.kind != PlaceKind::Plain {
                    return Err(MslError::new(
                        OPERANDS,
                        "an out-parameter of `sincos` into an atomic, packed or padded \
                         location",
                    ));
                }
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
        let wide = |t: Option<InstId>| {
            t.and_then(|t| m.scalar_of(t))
                .and_then(|s| m.scalar_bits(s))
                .is_some_and(|b| b == 64)
        };
        let bits_of = |t: Option<InstId>| {
            t.and_then(|t| m.scalar_of(t))
                .and_then(|s| m.scalar_bits(s))
        };
        let short_int = |t: Option<InstId>| {
            bits_of(t) == Some(16) && t.and_then(|t| m.scalar_kind(t)) != Some(ScalarKind::Float)
        };
        let half = |t: Option<InstId>| {
            bits_of(t) == Some(16) && t.and_then(|t| m.scalar_kind(t)) == Some(ScalarKind::Float)
        };
        let all_types: Vec<Option<InstId>> = std::iter::once(Some(ty))
            .chain(arg_ir.iter().map(|&a| m.ty(a)))
            .collect();
        if all_types.iter().any(|&t| short_int(t))
            && !matches!(which, I::Min | I::Max | I::Clamp | I::Abs)
        {
            return Err(MslError::new(
                UNMAPPED,
                format!(
                    "the intrinsic `{}` on 16-bit integers; the MSL backend maps min, max, \
                     clamp and abs of them only",
                    which.spelling()
                ),
            ));
        }
        if all_types.iter().any(|&t| half(t))
            && !matches!(
                which,
                I::Min
                    | I::Max
                    | I::Clamp
                    | I::Abs
                    | I::Floor
                    | I::Ceil
                    | I::Round
                    | I::Trunc
                    | I::Frac
                    | I::Sqrt
                    | I::Rsqrt
                    | I::Exp
                    | I::Exp2
                    | I::Log
                    | I::Log2
                    | I::Pow
                    | I::Sin
                    | I::Cos
                    | I::Tan
                    | I::Asin
                    | I::Acos
                    | I::Atan
                    | I::Atan2
                    | I::Lerp
                    | I::Step
                    | I::Smoothstep
                    | I::Fma
                    | I::Length
                    | I::Normalize
                    | I::Saturate
                    | I::Ddx
                    | I::Ddy
                    | I::DdxCoarse
                    | I::DdyCoarse
                    | I::Fwidth
            )
        {
            return Err(MslError::new(
                UNMAPPED,
                format!(
                    "the intrinsic `{}` on `half` values; not supported by the MSL backend \
                     (the elementary math functions of half are)",
                    which.spelling()
                ),
            ));
        }
        if (wide(Some(ty)) || arg_ir.iter().any(|&a| wide(m.ty(a))))
            && !matches!(which, I::Min | I::Max | I::Clamp | I::Abs)
        {
            return Err(MslError::new(
                UNMAPPED,
                format!(
                    "the intrinsic `{}` on 64-bit integers; the MSL backend maps min, max, \
                     clamp and abs of them only",
                    which.spelling()
                ),
            ));
        }
        let kind = arg_ty.and_then(|t| m.scalar_kind(t));
        let float = kind == Some(ScalarKind::Float);
        let simple = match which {
            // HLSL's round rounds halves to even (SPIR-V RoundEven): MSL's rint.
            I::Round => Some("rint"),
            I::Rsqrt => Some("rsqrt"),
            I::Atan2 => Some("atan2"),
            I::Faceforward => Some("faceforward"),
            I::Saturate if float => Some("saturate"),
            I::ReverseBits => Some("reverse_bits"),
            I::CountBits => Some("popcount"),
            I::Fmod => Some("fmod"),
            I::Ddx | I::DdxCoarse => Some("dfdx"),
            I::Ddy | I::DdyCoarse => Some("dfdy"),
            I::Fwidth => Some("fwidth"),
            _ => crate::text::intrinsics::common_name(which),
        };
        if matches!(
            which,
            I::Ddx | I::DdxCoarse | I::Ddy | I::DdyCoarse | I::Fwidth
        ) && self.cx.entry.stage != oneshader_ir::Stage::Fragment
        {
            return Err(MslError::new(
                DERIVATIVES,
                "a derivative outside a fragment shader; MSL has derivatives in fragment \
                 functions only",
            ));
        }
        if let Some(f) = simple {
            let args: Vec<E> = arg_ir.iter().map(|&a| self.value(a)).collect::<R<_>>()?;
            let refs: Vec<&E> = args.iter().collect();
            let r = call(f, &refs);
            // The IR's result type may differ from MSL's (countbits of an int is a uint).
            if which == I::CountBits && arg_ty != Some(ty) {
                let tn = self.cx.type_name(ty)?;
                return Ok(call(&tn, &[&r]));
            }
            return Ok(r);
        }
        let args: Vec<E> = arg_ir.iter().map(|&a| self.value(a)).collect::<R<_>>()?;
        match which {
            I::F16ToF32 | I::F32ToF16 => {
                // The low 16 bits as a half, widened; a float rounded to half (to nearest
                // even), its bits zero-extended.
                let n = match m.vector_len(ty) {
                    Some(n) if m.op(ty) == Op::Vector => n.to_string(),
                    _ => String::new(),
                };
                let x = &args[0];
                return Ok(E::primary(if which == I::F16ToF32 {
                    let mask = if n.is_empty() {
                        "0xffffu".to_string()
                    } else {
                        format!("uint{n}(0xffffu)")
                    };
                    format!("float{n}(as_type<half{n}>(ushort{n}({} & {mask})))", x.p())
                } else {
                    format!("uint{n}(as_type<ushort{n}>(half{n}({})))", x.text)
                }));
            }
            I::WaveGetLaneCount | I::WaveGetLaneIndex => {
                let attr = if which == I::WaveGetLaneCount {
                    "threads_per_simdgroup"
                } else {
                    "thread_index_in_simdgroup"
                };
                let v = self
                    .cx
                    .simd_vars
                    .get(attr)
                    .cloned()
                    .ok_or_else(|| malformed("a SIMD-group built-in that was not declared"))?;
                if m.op(ty) == Op::U32 {
                    return Ok(E::primary(v));
                }
                let tn = self.cx.type_name(ty)?;
                return Ok(E::primary(format!("as_type<{tn}>({v})")));
            }
            I::WaveIsFirstLane => {
                self.simd_stage(which)?;
                return Ok(E::primary("simd_is_first()"));
            }
            I::IsHelperLane => return Ok(E::primary("simd_is_helper_thread()")),
            _ => {}
        }
        let Some(at) = arg_ty else {
            return Err(MslError::new(
                UNMAPPED,
                format!(
                    "the intrinsic `{}` has no MSL mapping in this backend (wave and quad \
                     operations, helper-lane and render-target queries are not supported)",
                    which.spelling()
                ),
            ));
        };
        let scaled = |e: &E, k: f32| -> E {
            bin(e, "*", &E::primary(super::module::f32_literal(k.to_bits())))
        };
        match which {
            I::Abs => Ok(if kind == Some(ScalarKind::Uint) {
                args[0].clone()
            } else {
                call("abs", &[&args[0]])
            }),
            I::Degrees => Ok(scaled(&args[0], 57.295_78)),
            I::Radians => Ok(scaled(&args[0], 0.017_453_292)),
            I::Saturate => Err(MslError::new(
                OPERANDS,
                "`saturate` of integers; HLSL saturates floats",
            )),
            I::Sign => {
                let tn = self.cx.type_name(ty)?;
                let z = self.zero_of(at)?;
                let one = self.cx.scalar_literal(m.scalar_of(ty).unwrap_or(ty), 1)?;
                let minus = self
                    .cx
                    .scalar_literal(m.scalar_of(ty).unwrap_or(ty), (-1i64) as u64)?;
                let zero = self.cx.scalar_literal(m.scalar_of(ty).unwrap_or(ty), 0)?;
                let (o, mo, zz) = if m.op(ty) == Op::Vector {
                    (
                        format!("{tn}({one})"),
                        format!("{tn}({minus})"),
                        format!("{tn}({zero})"),
                    )
                } else {
                    (one, minus, zero)
                };
                if kind == Some(ScalarKind::Uint) {
                    let ne = bin(&args[0], "!=", &z);
                    return Ok(call("select", &[&E::primary(zz), &E::primary(o), &ne]));
                }
                let gt = bin(&args[0], ">", &z);
                let lt = bin(&args[0], "<", &z);
                let pos = call("select", &[&E::primary(zz), &E::primary(o), &gt]);
                Ok(call("select", &[&pos, &E::primary(mo), &lt]))
            }
            I::Rcp => {
                let tn = self.cx.type_name(ty)?;
                let one = if m.op(ty) == Op::Vector {
                    E::primary(format!("{tn}(1.0f)"))
                } else {
                    E::primary("1.0f")
                };
                Ok(bin(&one, "/", &args[0]))
            }
            I::Mad => {
                if float {
                    Ok(call("fma", &[&args[0], &args[1], &args[2]]))
                } else {
                    let tn = self.cx.type_name(ty)?;
                    let ut = self.uint_of(ty);
                    if kind == Some(ScalarKind::Int) {
                        return Ok(E::primary(format!(
                            "as_type<{tn}>(as_type<{ut}>({}) * as_type<{ut}>({}) + \
                             as_type<{ut}>({}))",
                            args[0].text, args[1].text, args[2].text
                        )));
                    }
                    Ok(bin(&bin(&args[0], "*", &args[1]), "+", &args[2]))
                }
            }
            I::Dot => {
                if float {
                    if m.op(at) != Op::Vector {
                        return Ok(bin(&args[0], "*", &args[1]));
                    }
                    return Ok(call("dot", &[&args[0], &args[1]]));
                }
                // Integers: the sum of the component products in `uint`, which wraps as the
                // IR's arithmetic does (MSL's dot takes floats only); both operands are
                // locals (`repeated_operands`).
                let n = match m.vector_len(at) {
                    Some(n) if m.op(at) == Op::Vector => n,
                    _ => 1,
                };
                let terms: Vec<String> = (0..n)
                    .map(|k| {
                        let sw = |e: &E| {
                            if n == 1 {
                                e.p().to_string()
                            } else {
                                format!("{}.{}", e.p(), COMPONENTS[k as usize])
                            }
                        };
                        format!("uint({}) * uint({})", sw(&args[0]), sw(&args[1]))
                    })
                    .collect();
                let sum = terms.join(" + ");
                Ok(if kind == Some(ScalarKind::Int) {
                    E::primary(format!("as_type<int>({sum})"))
                } else {
                    E::op(sum)
                })
            }
            I::IsNan | I::IsInf | I::IsFinite => {
                let ut = self.uint_of(at);
                let vec = m.op(at) == Op::Vector;
                let splat = |v: &str| {
                    if vec {
                        format!("{ut}({v})")
                    } else {
                        v.to_string()
                    }
                };
                let bits = format!(
                    "(as_type<{ut}>({}) & {})",
                    args[0].text,
                    splat("0x7fffffffu")
                );
                let inf = splat("0x7f800000u");
                let sym = match which {
                    I::IsNan => ">",
                    I::IsInf => "==",
                    _ => "<",
                };
                Ok(E::op(format!("{bits} {sym} {inf}")))
            }
            I::All | I::Any => {
                let b = if kind == Some(ScalarKind::Bool) {
                    args[0].clone()
                } else {
                    let z = self.zero_of(at)?;
                    bin(&args[0], "!=", &z)
                };
                if m.op(at) == Op::Vector {
                    Ok(call(if which == I::All { "all" } else { "any" }, &[&b]))
                } else {
                    Ok(b)
                }
            }
            I::FirstBitLow => {
                // HLSL's firstbitlow(0) is all ones; MSL's ctz(0) is the width.
                let tn = self.cx.type_name(ty)?;
                let ut = self.uint_of(at);
                let x = E::primary(format!("as_type<{ut}>({})", args[0].text));
                let z = self.zero_of_uint(at);
                let ones = if m.op(at) == Op::Vector {
                    format!("{ut}(0xffffffffu)")
                } else {
                    "0xffffffffu".into()
                };
                let ctz = call("ctz", &[&x]);
                let is0 = bin(&x, "==", &E::primary(z));
                let r = call("select", &[&ctz, &E::primary(ones), &is0]);
                Ok(E::primary(format!("as_type<{tn}>({})", r.text)))
            }
            I::FirstBitHigh => {
                // The index of the highest bit that differs from the sign bit (SPIR-V
                // FindSMsb/FindUMsb): 31 - clz, which is all ones for 0 (and for -1).
                let tn = self.cx.type_name(ty)?;
                let ut = self.uint_of(at);
                let x = if kind == Some(ScalarKind::Int) {
                    let z = self.zero_of(at)?;
                    let neg = bin(&args[0], "<", &z);
                    let inv = E::op(format!("~{}", args[0].p()));
                    let pick = call("select", &[&args[0], &inv, &neg]);
                    E::primary(format!("as_type<{ut}>({})", pick.text))
                } else {
                    E::primary(format!("as_type<{ut}>({})", args[0].text))
                };
                let k = if m.op(at) == Op::Vector {
                    format!("{ut}(31u)")
                } else {
                    "31u".into()
                };
                let r = bin(&E::primary(k), "-", &call("clz", &[&x]));
                Ok(E::primary(format!("as_type<{tn}>({})", r.text)))
            }
            I::Ldexp => {
                if m.ty(arg_ir[1]).and_then(|t| m.scalar_kind(t)) == Some(ScalarKind::Float) {
                    let e = call("exp2", &[&args[1]]);
                    Ok(bin(&args[0], "*", &e))
                } else {
                    Ok(call("ldexp", &[&args[0], &args[1]]))
                }
            }
            I::Log10 => {
                let k = super::module::f32_literal((std::f64::consts::LOG10_2 as f32).to_bits());
                Ok(bin(&call("log2", &[&args[0]]), "*", &E::primary(k)))
            }
            I::NonUniformIndex => Ok(args[0].clone()),
            I::WaveActiveSum
            | I::WaveActiveProduct
            | I::WaveActiveMin
            | I::WaveActiveMax
            | I::WaveActiveBitAnd
            | I::WaveActiveBitOr
            | I::WaveActiveBitXor
            | I::WavePrefixSum
            | I::WavePrefixProduct
            | I::WaveReadLaneFirst
            | I::WaveActiveAllTrue
            | I::WaveActiveAnyTrue
            | I::QuadReadAcrossX
            | I::QuadReadAcrossY
            | I::QuadReadAcrossDiagonal => {
                self.simd_stage(which)?;
                let e = match which {
                    I::WaveActiveSum => call("simd_sum", &[&args[0]]),
                    I::WaveActiveProduct => call("simd_product", &[&args[0]]),
                    I::WaveActiveMin => call("simd_min", &[&args[0]]),
                    I::WaveActiveMax => call("simd_max", &[&args[0]]),
                    I::WaveActiveBitAnd => call("simd_and", &[&args[0]]),
                    I::WaveActiveBitOr => call("simd_or", &[&args[0]]),
                    I::WaveActiveBitXor => call("simd_xor", &[&args[0]]),
                    I::WavePrefixSum => call("simd_prefix_exclusive_sum", &[&args[0]]),
                    I::WavePrefixProduct => call("simd_prefix_exclusive_product", &[&args[0]]),
                    I::WaveReadLaneFirst => call("simd_broadcast_first", &[&args[0]]),
                    I::WaveActiveAllTrue => call("simd_all", &[&args[0]]),
                    I::WaveActiveAnyTrue => call("simd_any", &[&args[0]]),
                    I::QuadReadAcrossX => call("quad_shuffle_xor", &[&args[0], &E::primary("1u")]),
                    I::QuadReadAcrossY => call("quad_shuffle_xor", &[&args[0], &E::primary("2u")]),
                    _ => call("quad_shuffle_xor", &[&args[0], &E::primary("3u")]),
                };
                Ok(e)
            }
            I::WaveActiveBallot | I::WaveActiveCountBits | I::WavePrefixCountBits => {
                self.simd_stage(which)?;
                let b = if kind == Some(ScalarKind::Bool) {
                    args[0].clone()
                } else {
                    let z = self.zero_of(at)?;
                    bin(&args[0], "!=", &z)
                };
                let e = match which {
                    // The 64 lanes of MSL's vote in HLSL's four words (lanes past 64 are 0).
                    I::WaveActiveBallot => {
                        return Ok(E::primary(format!(
                            "uint4(as_type<uint2>(ulong(simd_ballot({}))), 0u, 0u)",
                            b.text
                        )));
                    }
                    I::WaveActiveCountBits => {
                        E::primary(format!("uint(popcount(ulong(simd_ballot({}))))", b.text))
                    }
                    _ => E::primary(format!(
                        "simd_prefix_exclusive_sum(select(0u, 1u, {}))",
                        b.text
                    )),
                };
                if m.op(ty) == Op::U32 {
                    return Ok(e);
                }
                let tn = self.cx.type_name(ty)?;
                Ok(E::primary(format!("as_type<{tn}>({})", e.text)))
            }
            I::WaveActiveAllEqual => {
                self.simd_stage(which)?;
                let one = |x: &str| format!("simd_all({x} == simd_broadcast_first({x}))");
                if m.op(at) == Op::Vector {
                    // Component-wise in HLSL for vectors: one answer per component.
                    let n = m.vector_len(at).unwrap_or(4);
                    let parts: Vec<String> = (0..n)
                        .map(|k| one(&format!("{}.{}", args[0].p(), COMPONENTS[k as usize])))
                        .collect();
                    return Ok(E::primary(format!("bool{n}({})", parts.join(", "))));
                }
                Ok(E::primary(one(&args[0].p().to_string())))
            }
            I::WaveReadLaneAt | I::QuadReadLaneAt => {
                self.simd_stage(which)?;
                let lane = if self.kind_of(arg_ir[1]) == Some(ScalarKind::Uint) {
                    args[1].clone()
                } else {
                    E::primary(format!("as_type<uint>({})", args[1].text))
                };
                let f = if which == I::WaveReadLaneAt {
                    "simd_shuffle"
                } else {
                    "quad_shuffle"
                };
                Ok(call(f, &[&args[0], &lane]))
            }
            I::DdxFine | I::DdyFine => Err(MslError::new(
                UNMAPPED,
                format!(
                    "`{}`: MSL's dfdx/dfdy do not promise fine derivatives",
                    which.spelling()
                ),
            )),
            I::Sincos | I::Frexp | I::Modf => {
                Err(malformed("an out-parameter intrinsic used as a value"))
            }
            other => Err(MslError::new(
                UNMAPPED,
                format!(
                    "the intrinsic `{}` has no MSL mapping in this backend (wave and quad \
                     operations, interpolation at a position, half conversions and matrix \
                     inverses are not supported)",
                    other.spelling()
                ),
            )),
        }
    }

    /// SIMD-group functions exist in fragment and kernel functions only.
    fn simd_stage(&self, which: Intrinsic) -> R<()> {
        if self.cx.entry.stage == oneshader_ir::Stage::Vertex {
            return Err(MslError::new(
                UNMAPPED,
                format!(
                    "`{}` in a vertex function; MSL has SIMD-group functions in fragment and \
                     kernel functions only",
                    which.spelling()
                ),
            ));
        }
        Ok(())
    }

    /// `0u` or `uintN(0u)` in the shape of `ty`.
    fn zero_of_uint(&self, ty: InstId) -> String {
        let ut = self.uint_of(ty);
        if self.m.op(ty) == Op::Vector {
            format!("{ut}(0u)")
        } else {
            "0u".into()
        }
    }
}
