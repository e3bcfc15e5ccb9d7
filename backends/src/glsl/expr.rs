//! Expressions: operands, l-value paths, and the pure instructions, each lowered to GLSL that
//! glslang compiles to the SPIR-V operation the SPIR-V backend emits for it (or to a helper
//! with exactly its meaning where GLSL has no such operator).
//!
//! | IR | GLSL | why |
//! |---|---|---|
//! | `add`/`sub`/`mul`/`div` | `a + b`..., `matrixCompMult` for `mul` on matrices | |
//! | `rem` (signed int) | `os_srem(a, b)` = `a - b * (a / b)` | GLSL `%` is `OpSMod` (sign of the divisor); IR `rem` is `OpSRem` (sign of the dividend) |
//! | `rem` (float) | `os_frem(a, b)` = `a - b * trunc(a / b)` | `OpFRem`; GLSL's `mod` floors |
//! | `rem` (unsigned) | `a % b` | `OpUMod` |
//! | `shl`/`shr` | `a << (b & (bits - 1))` | IR masks the count; a constant count in range is printed as is |
//! | `eq`, `lt`... | `==`, `<` on scalars, `equal`, `lessThan` on vectors | ordered, as the IR |
//! | `ne` | `!=`, `notEqual` | glslang emits `OpFUnordNotEqual`, the IR's unordered `ne` |
//! | `and`/`or`/`xor`/`not` on bool vectors | `mix(bvec(false), b, a)`, `mix(b, bvec(true), a)`, `notEqual`, `not` | GLSL's `&&`... take scalars |
//! | `select` | `c ? a : b`; `mix(b, a, c)` with a vector condition | component-wise `OpSelect` |
//! | `matmul` | `M * v` for `mul(v, M)`, `v * M` for `mul(M, v)`, `B * A` for `mul(A, B)` | HLSL rows are GLSL columns (the SPIR-V backend swaps the same way) |
//! | `convert` | `T(x)` | `bool(x)` is `x != 0` (unordered for floats, as the IR) |
//! | `bitcast` | `T(x)`, `floatBitsToUint`, `uintBitsToFloat`, `packDouble2x32`... | |
//! | `extract`, `extract_dyn`, `shuffle` | `.x`, `.field`, `[i]`, swizzles | |
//! | `load` | the l-value path; a whole block member by member | |

use crate::text::printer::FnText as _;
use oneshader_ir::{InstId, Op, ScalarKind};

use super::error::{GlslError, OPERANDS, R, TYPE, malformed};
use super::func::{FnEmitter, Role};
use super::layout::Shape;
use super::module::{Arrayed, Kind, kind_of_scalar};

/// Operator precedence, lowest first (GLSL's table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Prec {
    Ternary,
    LogOr,
    LogXor,
    LogAnd,
    BitOr,
    BitXor,
    BitAnd,
    Equality,
    Relational,
    Shift,
    Additive,
    Multiplicative,
    Unary,
    Primary,
}

/// An expression and its precedence.
#[derive(Clone, Debug)]
pub(crate) struct E {
    pub text: String,
    pub prec: Prec,
}

impl E {
    /// An expression of precedence `prec`.
    pub fn new(text: impl Into<String>, prec: Prec) -> E {
        E {
            text: text.into(),
            prec,
        }
    }

    /// A primary expression (name, literal, call, member, index).
    pub fn primary(text: impl Into<String>) -> E {
        E::new(text, Prec::Primary)
    }

    /// The text, parenthesized unless its precedence is at least `p` (formatted where it is
    /// written: no `String` of its own).
    pub fn at_least(&self, p: Prec) -> AtLeast<'_> {
        AtLeast(self, p)
    }
}

/// An expression as an operand of precedence at least `.1` ([`E::at_least`]).
pub(crate) struct AtLeast<'a>(&'a E, Prec);

impl AtLeast<'_> {
    /// True when the text printed starts with `c` (a parenthesis never does but for `(`).
    pub fn starts_with(&self, c: char) -> bool {
        if self.0.prec >= self.1 {
            self.0.text.starts_with(c)
        } else {
            c == '('
        }
    }
}

impl std::fmt::Display for AtLeast<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.prec >= self.1 {
            f.write_str(&self.0.text)
        } else {
            write!(f, "({})", self.0.text)
        }
    }
}

/// A binary operator expression (left-associative).
pub(crate) fn binop(a: &E, op: &str, b: &E, p: Prec) -> E {
    let right = match p {
        Prec::Primary => Prec::Primary,
        _ => next_prec(p),
    };
    E::new(format!("{} {op} {}", a.at_least(p), b.at_least(right)), p)
}

fn next_prec(p: Prec) -> Prec {
    use Prec::*;
    match p {
        Ternary => LogOr,
        LogOr => LogXor,
        LogXor => LogAnd,
        LogAnd => BitOr,
        BitOr => BitXor,
        BitXor => BitAnd,
        BitAnd => Equality,
        Equality => Relational,
        Relational => Shift,
        Shift => Additive,
        Additive => Multiplicative,
        Multiplicative => Unary,
        Unary | Primary => Primary,
    }
}

/// `-a`, parenthesized so that a negative operand does not make `--`.
pub(crate) fn negate(a: &E) -> E {
    let inner = a.at_least(Prec::Unary);
    if inner.starts_with('-') {
        E::new(format!("-({inner})"), Prec::Unary)
    } else {
        E::new(format!("-{inner}"), Prec::Unary)
    }
}

/// A call expression.
pub(crate) fn call(f: &str, args: &[&E]) -> E {
    let a: Vec<&str> = args.iter().map(|e| e.text.as_str()).collect();
    E::primary(format!("{f}({})", a.join(", ")))
}

const COMPONENTS: [char; 4] = ['x', 'y', 'z', 'w'];

impl FnEmitter<'_, '_> {
    /// The type of a value.
    pub fn ty_of(&self, v: InstId) -> R<InstId> {
        self.m.ty(v).ok_or_else(|| malformed("an untyped value"))
    }

    /// The scalar kind of a value's type.
    pub fn kind_of(&self, v: InstId) -> Option<ScalarKind> {
        self.m.ty(v).and_then(|t| self.m.scalar_kind(t))
    }

    /// An operand as an expression: a constant, a name, or an inline instruction.
    pub fn value(&mut self, v: InstId) -> R<E> {
        let m = self.m;
        let op = m
            .try_op(v)
            .ok_or_else(|| malformed("an operand refers to a removed instruction"))?;
        if op.is_constant() || op == Op::SpecConst {
            // Arrays and structs are module-level constants (one copy, not one per use).
            if op == Op::Composite || op == Op::Zero || op == Op::Undef {
                let t = self.ty_of(v)?;
                if matches!(m.op(t), Op::Array | Op::Struct) {
                    return Ok(E::primary(self.cx.const_name(v)?));
                }
            }
            return self.cx.constant(v);
        }
        if let Some(n) = self.names.get(&v) {
            return Ok(E::primary(n.clone()));
        }
        match op {
            Op::Global | Op::FieldAddr | Op::ElementAddr | Op::Var => Err(GlslError::new(
                OPERANDS,
                "a pointer is used as a value (GLSL has no pointer values)",
            )),
            Op::Func => Err(GlslError::new(
                OPERANDS,
                "a function is used as a value (GLSL has no function values)",
            )),
            _ if op.is_instruction() => match self.role(v) {
                Role::Inline => self.inst_expr(v),
                _ => Err(malformed("a value used before its definition")),
            },
            _ => Err(malformed(format!("an operand is a `{}`", op.spelling()))),
        }
    }

    /// The GLSL l-value a pointer designates, and the GLSL kind of a built-in it reaches
    /// (whose loads and stores convert). A value spread over several block members (a whole
    /// block, a split vector, a flattened struct) has a `shape` instead.
    pub fn place(&mut self, p: InstId) -> R<Place> {
        let m = self.m;
        match m.op(p) {
            Op::Global => {
                let name = self
                    .cx
                    .item_names
                    .get(&p)
                    .cloned()
                    .ok_or_else(|| malformed("a global that was not declared"))?;
                let builtin = self.cx.builtins.get(&p).map(|b| b.kind);
                if let Some(a) = self.cx.arrayed.get(&p) {
                    return Ok(Place {
                        text: String::new(),
                        builtin,
                        rvalue: true,
                        shape: None,
                        arrayed: Some(a.clone()),
                    });
                }
                if self.cx.pervertex_inputs.contains(&p) {
                    // A `pervertexEXT` input: a plain read is the first vertex's value.
                    return Ok(Place::path(format!("{name}[0]"), builtin));
                }
                match self.cx.blocks.get(&p) {
                    Some(b) if b.descriptors => Ok(Place::path(name, builtin)),
                    Some(b) if b.wrapped => Ok(Place::path(format!("{name}.data"), None)),
                    Some(b) => {
                        let fields = b.fields.clone().unwrap_or_default();
                        Ok(Place::shaped(&format!("{name}."), &Shape::Struct(fields)))
                    }
                    None => Ok(Place::path(name, builtin)),
                }
            }
            Op::Var | Op::Param => {
                let name = self
                    .names
                    .get(&p)
                    .cloned()
                    .ok_or_else(|| malformed("a variable without a name"))?;
                Ok(Place::path(name, None))
            }
            Op::FieldAddr => {
                let base = m.operand(p, 0);
                let k = m.imm_operand(p, 1).unwrap_or(0) as usize;
                let b = self.place(base)?;
                if b.arrayed.is_some() {
                    return Err(malformed("a field address into an array of vertices"));
                }
                if let Some(Shape::Struct(fields)) = &b.shape {
                    let f = fields
                        .get(k)
                        .ok_or_else(|| malformed("a field address past the struct's fields"))?;
                    return Ok(Place::shaped("", f));
                }
                if b.shape.is_some() {
                    return Err(malformed("a field address into a vector"));
                }
                let st = m
                    .ty(base)
                    .and_then(|t| m.pointee(t))
                    .ok_or_else(|| malformed("a field address of a non-pointer"))?;
                let field = self.cx.field_name(st, k);
                Ok(Place {
                    text: format!("{}.{field}", b.text),
                    ..b
                })
            }
            Op::ElementAddr => {
                let base = m.operand(p, 0);
                let b = self.place(base)?;
                if let Some(a) = &b.arrayed {
                    let idx = self.vertex_index(base, m.operand(p, 1))?;
                    return Ok(Place::path(
                        format!("{}[{idx}]{}", a.prefix, a.suffix),
                        b.builtin,
                    ));
                }
                if let Some(Shape::Split(comps)) = &b.shape {
                    // A component of a split vector: its member when the index is known, else
                    // a component of the constructed vector (a value).
                    let iv = m.operand(p, 1);
                    if let Some(c) = m.const_int_value(iv)
                        && let Some(path) = usize::try_from(c).ok().and_then(|c| comps.get(c))
                    {
                        return Ok(Place::path(path.clone(), None));
                    }
                    let shape = Shape::Split(comps.clone());
                    let vec = self.shape_expr(&shape, base)?;
                    let idx = self.index_expr(iv)?;
                    return Ok(Place {
                        text: format!("{}[{idx}]", vec.at_least(Prec::Primary)),
                        builtin: None,
                        rvalue: true,
                        shape: None,
                        arrayed: None,
                    });
                }
                if b.shape.is_some() {
                    return Err(malformed("an element address into a struct"));
                }
                let idx = self.vertex_index(base, m.operand(p, 1))?;
                let nonuniform = m.has_decoration(p, Op::NonUniform);
                let idx = if nonuniform {
                    self.cx.ext("GL_EXT_nonuniform_qualifier");
                    format!("nonuniformEXT({idx})")
                } else {
                    idx
                };
                let text = format!("{}[{idx}]", b.text);
                // An element of an array of buffers is a block.
                if m.op(base) == Op::Global
                    && let Some(bv) = self.cx.blocks.get(&base)
                    && bv.descriptors
                {
                    if bv.wrapped {
                        return Ok(Place::path(format!("{text}.data"), None));
                    }
                    let fields = bv.fields.clone().unwrap_or_default();
                    return Ok(Place::shaped(&format!("{text}."), &Shape::Struct(fields)));
                }
                Ok(Place { text, ..b })
            }
            Op::TexelAddr => Err(malformed("a texel address used as memory")),
            _ => Err(GlslError::new(
                OPERANDS,
                "a pointer that does not come from a variable, a global or an access chain",
            )),
        }
    }

    /// The value a shaped place holds (`p`: a pointer to it, for its type): its members
    /// assembled into the IR type.
    pub fn shape_expr(&mut self, shape: &Shape<String>, p: InstId) -> R<E> {
        let ty = self
            .m
            .ty(p)
            .and_then(|t| self.m.pointee(t))
            .ok_or_else(|| malformed("a load through a non-pointer"))?;
        self.shape_value(shape, ty)
    }

    fn shape_value(&mut self, shape: &Shape<String>, ty: InstId) -> R<E> {
        let m = self.m;
        match shape {
            Shape::Whole(path) => Ok(E::primary(path.clone())),
            Shape::Split(comps) => {
                let tn = self.cx.type_name(ty)?;
                Ok(E::primary(format!("{tn}({})", comps.join(", "))))
            }
            Shape::Struct(fields) => {
                if m.struct_fields(ty).is_empty() {
                    return self.cx.zero_of(ty);
                }
                let name = self.cx.struct_name(ty)?;
                let mut parts = Vec::with_capacity(fields.len());
                for (k, f) in fields.iter().enumerate() {
                    let ft = m
                        .struct_fields(ty)
                        .get(k)
                        .and_then(|&fd| m.ty(fd))
                        .ok_or_else(|| malformed("a shape with more fields than its struct"))?;
                    parts.push(self.shape_value(f, ft)?.text);
                }
                Ok(E::primary(format!("{name}({})", parts.join(", "))))
            }
        }
    }

    /// The l-value path of `p`, for an operation that writes through it (an atomic, an `out`
    /// argument). A vector block member split into components (see [`super::layout`]) is no
    /// single l-value: refused.
    pub fn lvalue(&mut self, p: InstId) -> R<String> {
        let place = self.place(p)?;
        if place.arrayed.is_some() {
            return Err(GlslError::new(
                OPERANDS,
                "an atomic or `out` argument writes a whole array of vertices, which GLSL \
                 reaches only element by element",
            ));
        }
        if place.rvalue {
            let what = match &place.shape {
                Some(Shape::Struct(_)) => {
                    "a whole buffer block or a struct member GLSL \
                                           declares field by field"
                }
                Some(_) => "a vector buffer member GLSL declares one component per member",
                None => {
                    "a run-time component of a vector buffer member GLSL declares one \
                         component per member"
                }
            };
            return Err(GlslError::new(
                OPERANDS,
                format!(
                    "an atomic or `out` argument writes to {what} (its offsets are not \
                     aligned under any GLSL packing): there is no single l-value to pass"
                ),
            ));
        }
        Ok(place.text)
    }

    /// An index operand (any integer type works as a GLSL index).
    fn index_expr(&mut self, v: InstId) -> R<String> {
        Ok(self.value(v)?.text)
    }

    /// The index of element `v` of the array `base` points to. A hull shader's per-vertex
    /// outputs are written only at `gl_InvocationID` itself (glslang accepts no other
    /// expression there, not even a conversion of it), so the IR's load of the
    /// `invocation_id` input prints as that name.
    fn vertex_index(&mut self, base: InstId, v: InstId) -> R<String> {
        let m = self.m;
        if self.cx.entry.stage == oneshader_ir::Stage::Hull {
            let mut root = base;
            while matches!(m.op(root), Op::FieldAddr | Op::ElementAddr) {
                root = m.operand(root, 0);
            }
            let output = m.op(root) == Op::Global
                && m.ty(root).and_then(|t| m.address_space(t))
                    == Some(oneshader_ir::AddressSpace::Output)
                && !m.has_decoration(root, Op::Patch);
            if output
                && m.op(v) == Op::Load
                && let g = m.operand(v, 0)
                && m.op(g) == Op::Global
                && m.find_decoration(g, Op::BuiltinDeco)
                    .and_then(|d| m.imm_operand(d, 0))
                    .and_then(oneshader_ir::BuiltIn::from_u32)
                    == Some(oneshader_ir::BuiltIn::InvocationId)
            {
                return Ok("gl_InvocationID".to_string());
            }
        }
        self.index_expr(v)
    }

    /// The whole IR array `place` (an [`Arrayed`] one) of type `ty`, element by element.
    fn arrayed_value(&mut self, a: &Arrayed, builtin: Option<Kind>, ty: InstId) -> R<E> {
        let m = self.m;
        if m.op(ty) != Op::Array {
            return Err(malformed("a load of an array of vertices as a non-array"));
        }
        let elem = m.operand(ty, 0);
        let mut parts = Vec::with_capacity(a.len as usize);
        for k in 0..a.len {
            let e = E::primary(format!("{}[{k}]{}", a.prefix, a.suffix));
            let e = match builtin {
                Some(kind) => self.convert_kind(e, kind, elem)?,
                None => e,
            };
            parts.push(e.text);
        }
        let tn = self.cx.type_name(ty)?;
        Ok(E::primary(format!("{tn}({})", parts.join(", "))))
    }

    /// `.x`, `.field`, `[i]` for constant indices into a composite type.
    pub fn index_path(&mut self, ty: InstId, idx: &[u32]) -> R<String> {
        let m = self.m;
        let mut s = String::new();
        // `None` while inside a matrix row (a GLSL column vector).
        let mut cur = Some(ty);
        for &k in idx {
            let Some(ty) = cur else {
                // A component of a matrix row.
                s.push_str(&format!("[{k}]"));
                continue;
            };
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
                    s.push('.');
                    s.push_str(&f);
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
        Ok(s)
    }

    /// `T(x)`: converts a GLSL value of component kind `from` to the IR type `ty`'s.
    pub fn convert_kind(&mut self, e: E, from: Kind, ty: InstId) -> R<E> {
        let m = self.m;
        let Some(s) = m.scalar_of(ty) else {
            return Ok(e);
        };
        if kind_of_scalar(m, s) == Some(from) {
            return Ok(e);
        }
        match m.op(ty) {
            Op::Array => {
                let n = m.array_len(ty).unwrap_or(0);
                let et = m.operand(ty, 0);
                let mut parts = Vec::new();
                for k in 0..n {
                    let el = E::primary(format!("{}[{k}]", e.at_least(Prec::Primary)));
                    parts.push(self.convert_kind(el, from, et)?.text);
                }
                let tn = self.cx.type_name(ty)?;
                Ok(E::primary(format!("{tn}({})", parts.join(", "))))
            }
            _ => {
                let tn = self.cx.type_name(ty)?;
                Ok(E::primary(format!("{tn}({})", e.text)))
            }
        }
    }

    /// The GLSL type spelled for a built-in's value of IR type `ty` (its own kind).
    pub fn builtin_type(&mut self, ty: InstId, kind: Kind) -> R<String> {
        let m = self.m;
        let n = m.vector_len(ty).unwrap_or(1);
        let s = match kind {
            Kind::Int => "int",
            Kind::Uint => "uint",
            Kind::Float => "float",
            Kind::Bool => "bool",
        };
        if m.op(ty) == Op::Vector {
            let p = match kind {
                Kind::Int => "i",
                Kind::Uint => "u",
                Kind::Float => "",
                Kind::Bool => "b",
            };
            return Ok(format!("{p}vec{n}"));
        }
        Ok(s.to_string())
    }

    /// A `load` of `p`.
    pub fn load(&mut self, i: InstId) -> R<E> {
        let m = self.m;
        let p = m.operand(i, 0);
        let ty = self.ty_of(i)?;
        let place = self.place(p)?;
        if let Some(shape) = &place.shape {
            return self.shape_value(shape, ty);
        }
        if let Some(a) = &place.arrayed {
            return self.arrayed_value(a, place.builtin, ty);
        }
        let e = E::primary(place.text);
        match place.builtin {
            Some(kind) => self.convert_kind(e, kind, ty),
            None => Ok(e),
        }
    }

    /// The expression of a pure instruction.
    pub fn inst_expr(&mut self, i: InstId) -> R<E> {
        // glslang folds an operation on constants in double: its float literals must be the
        // IR values exactly (see `literals`).
        let exact = self.constant_operands(i);
        let saved = std::mem::replace(&mut self.cx.exact_floats, exact);
        let e = self.inst_expr_of(i).map_err(|e| self.located(i, e));
        self.cx.exact_floats = saved;
        e
    }

    /// Whether every operand of `i` prints as a GLSL constant expression: a constant, or an
    /// inline instruction whose operands all do (memoized).
    fn constant_operands(&mut self, i: InstId) -> bool {
        if let Some(&c) = self.const_exprs.get(&i) {
            return c;
        }
        let m = self.m;
        let mut all = true;
        for k in 0..m.num_operands(i) {
            let v = m.operand(i, k);
            let op = m.op(v);
            let c = op.is_constant()
                || (op.is_instruction()
                    && !self.names.contains_key(&v)
                    && matches!(self.role(v), Role::Inline)
                    && self.constant_operands(v));
            if !c {
                all = false;
                break;
            }
        }
        self.const_exprs.insert(i, all);
        all
    }

    fn inst_expr_of(&mut self, i: InstId) -> R<E> {
        let m = self.m;
        let op = m.op(i);
        match op {
            Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Rem => self.arith(i),
            Op::Neg => {
                let a = self.value(m.operand(i, 0))?;
                Ok(negate(&a))
            }
            Op::And | Op::Or | Op::Xor | Op::Not => self.logic(i),
            Op::Shl | Op::Shr => self.shift(i),
            Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge => self.compare(i),
            Op::MatMul => self.matmul(i),
            Op::Convert => {
                let to = self.ty_of(i)?;
                let from = self.ty_of(m.operand(i, 0))?;
                let a = self.value(m.operand(i, 0))?;
                if to == from {
                    return Ok(a);
                }
                let tn = self.cx.type_name(to)?;
                Ok(call(&tn, &[&a]))
            }
            Op::Bitcast => self.bitcast(i),
            Op::Construct => {
                let ty = self.ty_of(i)?;
                let mut parts = Vec::new();
                for k in 0..m.num_operands(i) {
                    parts.push(self.value(m.operand(i, k))?);
                }
                if parts.is_empty() && m.op(ty) == Op::Struct {
                    // The placeholder member of a struct without fields.
                    parts.push(E::primary("0"));
                }
                // A vector of one scalar repeated is a splat.
                if m.op(ty) == Op::Vector
                    && parts.len() > 1
                    && (1..m.num_operands(i)).all(|k| m.operand(i, k) == m.operand(i, 0))
                    && m.ty(m.operand(i, 0))
                        .is_some_and(|t| m.op(t).is_scalar_type())
                {
                    parts.truncate(1);
                }
                let tn = self.cx.type_name(ty)?;
                let refs: Vec<&E> = parts.iter().collect();
                Ok(call(&tn, &refs))
            }
            Op::Extract => {
                let base = m.operand(i, 0);
                let bt = self.ty_of(base)?;
                let b = self.value(base)?;
                let idx: Vec<u32> = (1..m.num_operands(i))
                    .map(|k| m.imm_operand(i, k).unwrap_or(0))
                    .collect();
                let path = self.index_path(bt, &idx)?;
                Ok(E::primary(format!("{}{path}", b.at_least(Prec::Primary))))
            }
            Op::ExtractDyn => {
                let b = self.value(m.operand(i, 0))?;
                let k = self.value(m.operand(i, 1))?;
                Ok(E::primary(format!(
                    "{}[{}]",
                    b.at_least(Prec::Primary),
                    k.text
                )))
            }
            Op::Shuffle => self.shuffle(i),
            Op::Select => {
                let c = m.operand(i, 0);
                let cv = self.value(c)?;
                let a = self.value(m.operand(i, 1))?;
                let b = self.value(m.operand(i, 2))?;
                let vector_cond = m.ty(c).is_some_and(|t| m.op(t) == Op::Vector);
                if vector_cond {
                    Ok(call("mix", &[&b, &a, &cv]))
                } else {
                    Ok(E::new(
                        format!(
                            "{} ? {} : {}",
                            cv.at_least(Prec::LogOr),
                            a.at_least(Prec::Ternary),
                            b.at_least(Prec::Ternary)
                        ),
                        Prec::Ternary,
                    ))
                }
            }
            Op::Load => self.load(i),
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
            Op::RayQueryGet => self.ray_query_get(i),
            Op::ArrayLength => {
                let p = self.place(m.operand(i, 0))?;
                Ok(E::primary(format!("uint({}.length())", p.text)))
            }
            _ => Err(malformed(format!(
                "`{}` is not a pure instruction",
                op.spelling()
            ))),
        }
    }

    /// `ray_query_get`: the GL_EXT_ray_query function of the SPIR-V instruction the SPIR-V
    /// backend emits; GLSL's `int` results (instance and geometry indices) are converted to
    /// the IR's `u32`, as the SPIR-V backend's unsigned results are the same bits.
    fn ray_query_get(&mut self, i: InstId) -> R<E> {
        use oneshader_ir::RayQueryValue as V;
        let m = self.m;
        self.cx.ext("GL_EXT_ray_query");
        let which = m
            .imm_operand(i, 0)
            .and_then(V::from_u32)
            .ok_or_else(|| malformed("unknown ray-query value"))?;
        let q = self.lvalue(m.operand(i, 1))?;
        let (f, per_intersection, int) = match which {
            V::RayFlags => ("rayQueryGetRayFlagsEXT", false, false),
            V::RayTmin => ("rayQueryGetRayTMinEXT", false, false),
            V::WorldRayOrigin => ("rayQueryGetWorldRayOriginEXT", false, false),
            V::WorldRayDirection => ("rayQueryGetWorldRayDirectionEXT", false, false),
            V::CandidateAabbOpaque => (
                "rayQueryGetIntersectionCandidateAABBOpaqueEXT",
                false,
                false,
            ),
            V::CandidateType | V::CommittedStatus => {
                ("rayQueryGetIntersectionTypeEXT", true, false)
            }
            V::CandidateT | V::CommittedT => ("rayQueryGetIntersectionTEXT", true, false),
            V::CandidateInstanceIndex | V::CommittedInstanceIndex => {
                ("rayQueryGetIntersectionInstanceIdEXT", true, true)
            }
            V::CandidateInstanceId | V::CommittedInstanceId => {
                ("rayQueryGetIntersectionInstanceCustomIndexEXT", true, true)
            }
            V::CandidateSbtOffset | V::CommittedSbtOffset => (
                "rayQueryGetIntersectionInstanceShaderBindingTableRecordOffsetEXT",
                true,
                false,
            ),
            V::CandidateGeometryIndex | V::CommittedGeometryIndex => {
                ("rayQueryGetIntersectionGeometryIndexEXT", true, true)
            }
            V::CandidatePrimitiveIndex | V::CommittedPrimitiveIndex => {
                ("rayQueryGetIntersectionPrimitiveIndexEXT", true, true)
            }
            V::CandidateBarycentrics | V::CommittedBarycentrics => {
                ("rayQueryGetIntersectionBarycentricsEXT", true, false)
            }
            V::CandidateFrontFace | V::CommittedFrontFace => {
                ("rayQueryGetIntersectionFrontFaceEXT", true, false)
            }
            V::CandidateObjectRayDirection | V::CommittedObjectRayDirection => {
                ("rayQueryGetIntersectionObjectRayDirectionEXT", true, false)
            }
            V::CandidateObjectRayOrigin | V::CommittedObjectRayOrigin => {
                ("rayQueryGetIntersectionObjectRayOriginEXT", true, false)
            }
            V::CandidateObjectToWorld | V::CommittedObjectToWorld => {
                ("rayQueryGetIntersectionObjectToWorldEXT", true, false)
            }
            V::CandidateWorldToObject | V::CommittedWorldToObject => {
                ("rayQueryGetIntersectionWorldToObjectEXT", true, false)
            }
        };
        let call = if per_intersection {
            format!("{f}({q}, {})", which.is_committed())
        } else {
            format!("{f}({q})")
        };
        Ok(E::primary(if int { format!("uint({call})") } else { call }))
    }

    fn arith(&mut self, i: InstId) -> R<E> {
        let m = self.m;
        let op = m.op(i);
        let ty = self.ty_of(i)?;
        let a = self.value(m.operand(i, 0))?;
        let b = self.value(m.operand(i, 1))?;
        let kind = m.scalar_kind(ty);
        if kind == Some(ScalarKind::Bool) {
            return Err(GlslError::new(OPERANDS, "arithmetic on bool operands"));
        }
        let matrix = m.op(ty) == Op::Matrix;
        Ok(match (op, kind) {
            (Op::Add, _) => binop(&a, "+", &b, Prec::Additive),
            (Op::Sub, _) => binop(&a, "-", &b, Prec::Additive),
            (Op::Mul, _) if matrix => call("matrixCompMult", &[&a, &b]),
            (Op::Mul, _) => binop(&a, "*", &b, Prec::Multiplicative),
            (Op::Div, _) => binop(&a, "/", &b, Prec::Multiplicative),
            (Op::Rem, Some(ScalarKind::Uint)) => binop(&a, "%", &b, Prec::Multiplicative),
            (Op::Rem, Some(ScalarKind::Int)) => {
                let h = self.rem_helper(ty, false)?;
                call(&h, &[&a, &b])
            }
            (Op::Rem, _) => {
                let h = self.rem_helper(ty, true)?;
                call(&h, &[&a, &b])
            }
            _ => return Err(malformed("not arithmetic")),
        })
    }

    /// The helper computing IR `rem` on `ty`: `os_frem` (float) or `os_srem` (signed), one
    /// overload per type (matrices row by row, as the SPIR-V backend).
    pub fn rem_helper(&mut self, ty: InstId, float: bool) -> R<String> {
        let m = self.m;
        let tn = self.cx.type_name(ty)?;
        let base = if float { "os_frem" } else { "os_srem" };
        let name = base.to_string();
        if m.op(ty) == Op::Matrix {
            let (rows, cols) = m.matrix_dims(ty).unwrap_or((0, 0));
            let e = m.op(m.operand(ty, 0));
            let row = super::types::vector_name(e, cols)
                .ok_or_else(|| malformed("a matrix of non-scalars"))?;
            self.rem_helper_named(&row, float);
            let parts: Vec<String> = (0..rows)
                .map(|r| format!("{base}(a[{r}], b[{r}])"))
                .collect();
            let key = format!("{base} {tn}");
            let code = format!(
                "{tn} {base}({tn} a, {tn} b) {{\n    return {tn}({});\n}}\n",
                parts.join(", ")
            );
            self.cx.helper(&key, || code);
            return Ok(name);
        }
        self.rem_helper_named(&tn, float);
        Ok(name)
    }

    /// The scalar or vector overload of the `rem` helper for the GLSL type `tn`.
    fn rem_helper_named(&mut self, tn: &str, float: bool) {
        let base = if float { "os_frem" } else { "os_srem" };
        let body = if float {
            "a - b * trunc(a / b)"
        } else {
            "a - b * (a / b)"
        };
        let key = format!("{base} {tn}");
        self.cx.helper(&key, || {
            format!("{tn} {base}({tn} a, {tn} b) {{\n    return {body};\n}}\n")
        });
    }

    fn logic(&mut self, i: InstId) -> R<E> {
        let m = self.m;
        let op = m.op(i);
        let ty = self.ty_of(i)?;
        let boolean = m.scalar_kind(ty) == Some(ScalarKind::Bool);
        let vector = m.op(ty) == Op::Vector;
        let a = self.value(m.operand(i, 0))?;
        if op == Op::Not {
            return Ok(match (boolean, vector) {
                (true, true) => call("not", &[&a]),
                (true, false) => E::new(format!("!{}", a.at_least(Prec::Unary)), Prec::Unary),
                _ => E::new(format!("~{}", a.at_least(Prec::Unary)), Prec::Unary),
            });
        }
        let b = self.value(m.operand(i, 1))?;
        Ok(match (op, boolean, vector) {
            (Op::And, false, _) => binop(&a, "&", &b, Prec::BitAnd),
            (Op::Or, false, _) => binop(&a, "|", &b, Prec::BitOr),
            (Op::Xor, false, _) => binop(&a, "^", &b, Prec::BitXor),
            (Op::And, true, false) => binop(&a, "&&", &b, Prec::LogAnd),
            (Op::Or, true, false) => binop(&a, "||", &b, Prec::LogOr),
            (Op::Xor, true, false) => binop(&a, "^^", &b, Prec::LogXor),
            (Op::And, true, true) => {
                let tn = self.cx.type_name(ty)?;
                let f = E::primary(format!("{tn}(false)"));
                call("mix", &[&f, &b, &a])
            }
            (Op::Or, true, true) => {
                let tn = self.cx.type_name(ty)?;
                let t = E::primary(format!("{tn}(true)"));
                call("mix", &[&b, &t, &a])
            }
            (Op::Xor, true, true) => call("notEqual", &[&a, &b]),
            _ => return Err(malformed("not a logic operation")),
        })
    }

    fn shift(&mut self, i: InstId) -> R<E> {
        let m = self.m;
        let a = self.value(m.operand(i, 0))?;
        let amount = m.operand(i, 1);
        let bits = m
            .ty(m.operand(i, 0))
            .and_then(|t| m.scalar_of(t))
            .and_then(|s| m.scalar_bits(s))
            .unwrap_or(32);
        let in_range = m
            .const_int_value(amount)
            .is_some_and(|v| v >= 0 && v < bits as i128);
        let b = self.value(amount)?;
        let b = if in_range {
            b
        } else {
            // The IR masks the count to the width (HLSL's rule).
            let at = self.ty_of(amount)?;
            let s = m
                .scalar_of(at)
                .ok_or_else(|| malformed("a shift count that is not an integer"))?;
            let mask = self.cx.scalar_literal(s, (bits - 1) as u64)?;
            binop(&b, "&", &mask, Prec::BitAnd)
        };
        let sym = if m.op(i) == Op::Shl { "<<" } else { ">>" };
        Ok(binop(&a, sym, &b, Prec::Shift))
    }

    fn compare(&mut self, i: InstId) -> R<E> {
        let m = self.m;
        let op = m.op(i);
        let x = m.operand(i, 0);
        let vector = m.ty(x).is_some_and(|t| m.op(t) == Op::Vector);
        let a = self.value(x)?;
        let b = self.value(m.operand(i, 1))?;
        let boolean = self.kind_of(x) == Some(ScalarKind::Bool);
        if boolean && !matches!(op, Op::Eq | Op::Ne) {
            return Err(GlslError::new(OPERANDS, "ordering comparison of bools"));
        }
        Ok(if vector {
            let f = match op {
                Op::Eq => "equal",
                Op::Ne => "notEqual",
                Op::Lt => "lessThan",
                Op::Le => "lessThanEqual",
                Op::Gt => "greaterThan",
                _ => "greaterThanEqual",
            };
            call(f, &[&a, &b])
        } else {
            let (sym, p) = match op {
                Op::Eq => ("==", Prec::Equality),
                Op::Ne => ("!=", Prec::Equality),
                Op::Lt => ("<", Prec::Relational),
                Op::Le => ("<=", Prec::Relational),
                Op::Gt => (">", Prec::Relational),
                _ => (">=", Prec::Relational),
            };
            binop(&a, sym, &b, p)
        })
    }

    fn matmul(&mut self, i: InstId) -> R<E> {
        let m = self.m;
        let x = m.operand(i, 0);
        let y = m.operand(i, 1);
        let tx = m.ty(x).map(|t| m.op(t));
        let ty = m.ty(y).map(|t| m.op(t));
        let a = self.value(x)?;
        let b = self.value(y)?;
        // HLSL rows are GLSL columns: every product swaps its operands.
        Ok(match (tx, ty) {
            (Some(Op::Vector), Some(Op::Matrix))
            | (Some(Op::Matrix), Some(Op::Vector))
            | (Some(Op::Matrix), Some(Op::Matrix)) => binop(&b, "*", &a, Prec::Multiplicative),
            (Some(Op::Vector), Some(Op::Vector)) => call("dot", &[&a, &b]),
            (Some(Op::Matrix), Some(s)) if s.is_float_type() => {
                binop(&a, "*", &b, Prec::Multiplicative)
            }
            (Some(s), Some(Op::Matrix)) if s.is_float_type() => {
                binop(&b, "*", &a, Prec::Multiplicative)
            }
            _ => {
                return Err(GlslError::new(
                    OPERANDS,
                    "`matmul` needs float matrix and vector operands",
                ));
            }
        })
    }

    fn bitcast(&mut self, i: InstId) -> R<E> {
        let m = self.m;
        let to = self.ty_of(i)?;
        let x = m.operand(i, 0);
        let from = self.ty_of(x)?;
        let a = self.value(x)?;
        if to == from {
            return Ok(a);
        }
        let (fs, ts) = match (m.scalar_of(from), m.scalar_of(to)) {
            (Some(f), Some(t)) => (f, t),
            _ => return Err(GlslError::new(TYPE, "`bitcast` of a non-numeric value")),
        };
        let (fo, to_op) = (m.op(fs), m.op(ts));
        let (fb, tb) = (
            m.scalar_bits(fs).unwrap_or(32),
            m.scalar_bits(ts).unwrap_or(32),
        );
        let (fl, tl) = (
            m.vector_len(from).unwrap_or(1),
            m.vector_len(to).unwrap_or(1),
        );
        let tn = self.cx.type_name(to)?;
        if fb == tb && fl == tl {
            let f = match (fo, to_op) {
                (Op::F32, Op::I32) => "floatBitsToInt",
                (Op::F32, Op::U32) => "floatBitsToUint",
                (Op::I32, Op::F32) => "intBitsToFloat",
                (Op::U32, Op::F32) => "uintBitsToFloat",
                (Op::F64, Op::I64) => "doubleBitsToInt64",
                (Op::F64, Op::U64) => "doubleBitsToUint64",
                (Op::I64, Op::F64) => "int64BitsToDouble",
                (Op::U64, Op::F64) => "uint64BitsToDouble",
                (Op::F16, Op::I16) => "float16BitsToInt16",
                (Op::F16, Op::U16) => "float16BitsToUint16",
                (Op::I16, Op::F16) => "int16BitsToFloat16",
                (Op::U16, Op::F16) => "uint16BitsToFloat16",
                (f, t) if f.is_int_type() && t.is_int_type() => return Ok(call(&tn, &[&a])),
                _ => {
                    return Err(GlslError::new(TYPE, "a `bitcast` GLSL has no function for"));
                }
            };
            if fb == 64 {
                self.cx.ext("GL_EXT_shader_explicit_arithmetic_types_int64");
            }
            if fb == 16 {
                self.cx.ext("GL_EXT_shader_explicit_arithmetic_types_int16");
                self.cx
                    .ext("GL_EXT_shader_explicit_arithmetic_types_float16");
            }
            return Ok(call(f, &[&a]));
        }
        // Different shapes of the same size: through 32-bit words.
        let refuse = || {
            GlslError::new(
                TYPE,
                format!(
                    "a `bitcast` from `{}` to `{}` has no GLSL function",
                    oneshader_ir::print::print_inst(m, from),
                    oneshader_ir::print::print_inst(m, to)
                ),
            )
        };
        let (words, n) = self.words_of(a, fo, fb, fl).ok_or_else(refuse)?;
        self.value_of_words(words, n, to_op, tb, tl, &tn)
            .ok_or_else(refuse)
    }

    /// The 32-bit words of a value of scalar opcode `op`, `bits` wide, `n` components: the
    /// words (`uint` or `uvecN`) and how many there are.
    fn words_of(&mut self, a: E, op: Op, bits: u32, n: u32) -> Option<(E, u32)> {
        Some(match (op, bits, n) {
            (Op::F32, 32, _) => (call("floatBitsToUint", &[&a]), n),
            (Op::U32, 32, _) => (a, n),
            (Op::I32, 32, 1) => (call("uint", &[&a]), 1),
            (Op::I32, 32, _) => (call(&format!("uvec{n}"), &[&a]), n),
            (Op::F64, 64, 1) => (call("unpackDouble2x32", &[&a]), 2),
            (Op::U64, 64, 1) => {
                self.cx.ext("GL_EXT_shader_explicit_arithmetic_types_int64");
                (call("unpackUint2x32", &[&a]), 2)
            }
            (Op::I64, 64, 1) => {
                self.cx.ext("GL_EXT_shader_explicit_arithmetic_types_int64");
                let u = call("uint64_t", &[&a]);
                (call("unpackUint2x32", &[&u]), 2)
            }
            (Op::F16, 16, 2) => (call("packFloat2x16", &[&a]), 1),
            (Op::U16, 16, 2) => {
                self.cx.ext("GL_EXT_shader_explicit_arithmetic_types_int16");
                (call("packUint2x16", &[&a]), 1)
            }
            (Op::I16, 16, 2) => {
                self.cx.ext("GL_EXT_shader_explicit_arithmetic_types_int16");
                let u = call("u16vec2", &[&a]);
                (call("packUint2x16", &[&u]), 1)
            }
            _ => return None,
        })
    }

    /// A value of scalar opcode `op` (`bits` wide, `n` components, GLSL type `tn`) from `k`
    /// 32-bit words.
    fn value_of_words(&mut self, w: E, k: u32, op: Op, bits: u32, n: u32, tn: &str) -> Option<E> {
        let words = match (bits, n) {
            (32, _) => n,
            (64, 1) => 2,
            (16, 2) => 1,
            _ => return None,
        };
        if words != k {
            return None;
        }
        Some(match (op, bits) {
            (Op::F32, 32) => call("uintBitsToFloat", &[&w]),
            (Op::U32, 32) => w,
            (Op::I32, 32) => call(tn, &[&w]),
            (Op::F64, 64) => call("packDouble2x32", &[&w]),
            (Op::U64, 64) => {
                self.cx.ext("GL_EXT_shader_explicit_arithmetic_types_int64");
                call("packUint2x32", &[&w])
            }
            (Op::I64, 64) => {
                self.cx.ext("GL_EXT_shader_explicit_arithmetic_types_int64");
                let u = call("packUint2x32", &[&w]);
                call("int64_t", &[&u])
            }
            (Op::F16, 16) => call("unpackFloat2x16", &[&w]),
            (Op::U16, 16) => {
                self.cx.ext("GL_EXT_shader_explicit_arithmetic_types_int16");
                call("unpackUint2x16", &[&w])
            }
            (Op::I16, 16) => {
                self.cx.ext("GL_EXT_shader_explicit_arithmetic_types_int16");
                let u = call("unpackUint2x16", &[&w]);
                call("i16vec2", &[&u])
            }
            _ => return None,
        })
    }

    fn shuffle(&mut self, i: InstId) -> R<E> {
        let m = self.m;
        let ty = self.ty_of(i)?;
        let xa = m.operand(i, 0);
        let na = m.ty(xa).and_then(|t| m.vector_len(t)).unwrap_or(4);
        let nb = m
            .ty(m.operand(i, 1))
            .and_then(|t| m.vector_len(t))
            .unwrap_or(4);
        let idx: Vec<u32> = (2..m.num_operands(i))
            .map(|k| m.imm_operand(i, k).unwrap_or(0))
            .collect();
        // Runs of components from one source.
        let mut runs: Vec<(usize, String)> = Vec::new();
        for &k in &idx {
            let (src, c) = if k < na {
                (0, k)
            } else if k < na + nb {
                (1, k - na)
            } else {
                return Err(malformed("a shuffle index out of range"));
            };
            let ch = COMPONENTS[c as usize];
            match runs.last_mut() {
                Some((s, sw)) if *s == src && sw.len() < 4 => sw.push(ch),
                _ => runs.push((src, ch.to_string())),
            }
        }
        let srcs = [self.value(xa)?, self.value(m.operand(i, 1))?];
        if runs.len() == 1 {
            let (s, sw) = &runs[0];
            return Ok(E::primary(format!(
                "{}.{sw}",
                srcs[*s].at_least(Prec::Primary)
            )));
        }
        let parts: Vec<String> = runs
            .iter()
            .map(|(s, sw)| format!("{}.{sw}", srcs[*s].at_least(Prec::Primary)))
            .collect();
        let tn = self.cx.type_name(ty)?;
        Ok(E::primary(format!("{tn}({})", parts.join(", "))))
    }

    /// `buffer_load` on a byte-address buffer (`rtarray<u32>`): 32-bit words at
    /// `offset >> 2` (+ k), reinterpreted as the result's components.
    fn buffer_load(&mut self, i: InstId) -> R<E> {
        let m = self.m;
        let ty = self.ty_of(i)?;
        let (arr, index) = self.word_index(i)?;
        let scalar = self.word_scalar(i, ty)?;
        let n = m.vector_len(ty).unwrap_or(1);
        let mut parts = Vec::new();
        for k in 0..n {
            let idx = if k == 0 {
                index.clone()
            } else {
                format!("{index} + {k}u")
            };
            let w = format!("{arr}[{idx}]");
            parts.push(match m.op(scalar) {
                Op::U32 => w,
                Op::I32 => format!("int({w})"),
                _ => format!("uintBitsToFloat({w})"),
            });
        }
        if n == 1 {
            return Ok(E::primary(parts.remove(0)));
        }
        let tn = self.cx.type_name(ty)?;
        Ok(E::primary(format!("{tn}({})", parts.join(", "))))
    }

    /// The scalar type of a byte-address access of `ty`: 32-bit scalars and vectors only.
    pub fn word_scalar(&self, i: InstId, ty: InstId) -> R<InstId> {
        crate::words::word_scalar(self.m, i, ty).map_err(|msg| GlslError::new(OPERANDS, msg))
    }

    /// The word array of a byte-address access and the index of its first word.
    pub fn word_index(&mut self, i: InstId) -> R<(String, String)> {
        let m = self.m;
        let buf = self.place(m.operand(i, 0))?;
        let off_ir = m.operand(i, 1);
        let off = self.value(off_ir)?;
        let signed = self.kind_of(off_ir) == Some(ScalarKind::Int);
        // The SPIR-V backend shifts logically whatever the offset's signedness.
        let off = if signed {
            E::primary(format!("uint({})", off.text))
        } else {
            off
        };
        let two = E::primary("2u");
        let idx = binop(&off, ">>", &two, Prec::Shift);
        Ok((buf.text, idx.at_least(Prec::Additive).to_string()))
    }
}

/// Where a pointer leads: an l-value path, or a value spread over several block members.
#[derive(Clone, Debug)]
pub(crate) struct Place {
    /// The l-value path (or, when `rvalue`, an expression); empty when `shape` is set.
    pub text: String,
    /// The GLSL component kind of the built-in it reaches.
    pub builtin: Option<Kind>,
    /// `text` is a value, not an l-value (a run-time component of a split vector).
    pub rvalue: bool,
    /// The value is spread over block members (full paths): a whole block, a vector split
    /// into components, a flattened struct (see [`super::layout`]).
    pub shape: Option<Shape<String>>,
    /// A per-vertex array reached element by element (`gl_in[i].gl_Position`; see
    /// [`Arrayed`]); `text` is empty.
    pub arrayed: Option<Arrayed>,
}

impl Place {
    /// A plain l-value path.
    fn path(text: String, builtin: Option<Kind>) -> Place {
        Place {
            text,
            builtin,
            rvalue: false,
            shape: None,
            arrayed: None,
        }
    }

    /// A place shaped like `shape` with every member path prefixed by `prefix`; a shape of
    /// one whole member is that member's path.
    fn shaped(prefix: &str, shape: &Shape<String>) -> Place {
        match shape {
            Shape::Whole(m) => Place::path(format!("{prefix}{m}"), None),
            s => Place {
                text: String::new(),
                builtin: None,
                rvalue: true,
                shape: Some(s.map(&mut |m| format!("{prefix}{m}"))),
                arrayed: None,
            },
        }
    }
}
