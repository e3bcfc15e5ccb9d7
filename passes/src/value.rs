//! The value algebra: what constants and runtime values are, and the meaning of every operator
//! on them. The constant folder ([`crate::combine`]), the loop unroller ([`crate::unroll`]) and
//! the reference interpreter ([`crate::interp`]) all compute with these functions, so a folded
//! constant, an unrolled trip count and an interpreted result agree bit for bit.
//!
//! - A [`Value`] is a scalar (its [`Scalar`] type and bits), a composite (vector components,
//!   matrix rows, array elements or struct fields, in order), a pointer into the interpreter's
//!   memory, or an opaque handle.
//! - Every scalar operator comes from [`crate::semantics`]; the functions here lift them to
//!   vectors and matrices lane by lane ([`zip_n`]) and build the vector intrinsics (`dot`,
//!   `cross`, `length`, matrix products, ...) from them in a fixed order.
//! - An operator result comes with a flag saying whether every lane folds exactly (see
//!   [`crate::semantics::Folded`]): the folder and the unroller use a value only when it does,
//!   the interpreter uses it regardless.
//! - Constants: [`constant_value`] reads any constant (a `spec_const` gives its default, `undef`
//!   zeros) as the interpreter needs; [`known_constant`] only those whose value is fixed now, as
//!   the folder and the unroller need; [`value_to_constant`] makes a constant back.

use smallvec::SmallVec;

use oneshader_ir::print::print_inst;
use oneshader_ir::{AtomicOp, InstId, Intrinsic, Module, Op};

use crate::semantics::{
    self, BinaryOp, CompareOp, Folded, Scalar, SemanticsError, UnaryOp, float_bits, float_value,
};

/// A runtime value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// A scalar: its type and bits (see [`crate::semantics`] for the encoding).
    Scalar(Scalar, u64),
    /// A vector (components), matrix (rows), array (elements) or struct (fields).
    Composite(Vec<Value>),
    /// A pointer into the interpreter's memory.
    Pointer(Pointer),
    /// A handle the interpreter does not look into (texture, sampler, function).
    Opaque,
}

/// A pointer: an allocation and a path of element indices into it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pointer {
    /// The allocation.
    pub alloc: u32,
    /// Indices from the allocation's value down to the pointee.
    pub path: SmallVec<[u32; 4]>,
}

impl Value {
    /// An `i32`.
    pub fn i32(v: i32) -> Value {
        Value::Scalar(Scalar::I32, v as u32 as u64)
    }

    /// A `u32`.
    pub fn u32(v: u32) -> Value {
        Value::Scalar(Scalar::U32, v as u64)
    }

    /// An `f32`.
    pub fn f32(v: f32) -> Value {
        Value::Scalar(Scalar::F32, v.to_bits() as u64)
    }

    /// A `bool`.
    pub fn bool(v: bool) -> Value {
        Value::Scalar(Scalar::Bool, v as u64)
    }

    /// The scalar type and bits, when this is a scalar.
    pub fn as_scalar(&self) -> Option<(Scalar, u64)> {
        match *self {
            Value::Scalar(t, b) => Some((t, b)),
            _ => None,
        }
    }

    /// A `bool`'s truth, when this is a `bool`.
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            Value::Scalar(Scalar::Bool, b) => Some(b & 1 == 1),
            _ => None,
        }
    }

    /// The components of a composite.
    pub fn elements(&self) -> Option<&[Value]> {
        match self {
            Value::Composite(v) => Some(v),
            _ => None,
        }
    }
}

/// Why an operator has no value on its operands.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    /// Operands of the wrong shape (the module does not verify, or a caller passed wrong values).
    #[error("type mismatch: {0}")]
    Type(String),
    /// A scalar operator has no meaning on its operand type.
    #[error("{0}")]
    Semantics(#[from] SemanticsError),
}

// ---- constants and values --------------------------------------------------------------------

/// The value of a constant (`spec_const` gives its default; `undef` gives zeros).
pub fn constant_value(m: &Module, c: InstId) -> Option<Value> {
    match m.try_op(c)? {
        Op::ConstBool | Op::ConstInt | Op::ConstFloat => {
            let s = Scalar::of(m, m.ty(c)?)?;
            Some(Value::Scalar(s, m.literal_bits(c)? & s.mask()))
        }
        Op::Composite => Some(Value::Composite(
            m.operands(c)
                .map(|e| constant_value(m, e))
                .collect::<Option<Vec<_>>>()?,
        )),
        Op::Zero | Op::Undef => zero_value(m, m.ty(c)?),
        Op::SpecConst => constant_value(m, m.try_operand(c, 1)?),
        _ => None,
    }
}

/// The value of a constant whose value is known now: literals, `zero`, and composites of them.
/// Not `undef` and not `spec_const` (whose value is chosen later), nor anything containing them:
/// what the folder and the unroller may compute with.
pub fn known_constant(m: &Module, v: InstId) -> Option<Value> {
    match m.try_op(v)? {
        Op::ConstBool | Op::ConstInt | Op::ConstFloat | Op::Zero => constant_value(m, v),
        Op::Composite => Some(Value::Composite(
            m.operands(v)
                .map(|e| known_constant(m, e))
                .collect::<Option<Vec<_>>>()?,
        )),
        _ => None,
    }
}

/// The all-zero value of a type (`None` for types without a value, like `void`).
pub fn zero_value(m: &Module, ty: InstId) -> Option<Value> {
    Some(match m.try_op(ty)? {
        op if op.is_scalar_type() => Value::Scalar(Scalar::from_op(op)?, 0),
        Op::Vector | Op::Array => {
            let n = m.imm_operand(ty, 1)?;
            let e = zero_value(m, m.try_operand(ty, 0)?)?;
            Value::Composite(vec![e; n as usize])
        }
        Op::Matrix => {
            let (rows, cols) = m.matrix_dims(ty)?;
            let e = zero_value(m, m.try_operand(ty, 0)?)?;
            let row = Value::Composite(vec![e; cols as usize]);
            Value::Composite(vec![row; rows as usize])
        }
        Op::Struct => Value::Composite(
            m.struct_fields(ty)
                .into_iter()
                .map(|f| zero_value(m, m.ty(f)?))
                .collect::<Option<Vec<_>>>()?,
        ),
        Op::RuntimeArray => Value::Composite(Vec::new()),
        Op::Texture | Op::Sampler | Op::SamplerCmp | Op::Ptr | Op::FnType => Value::Opaque,
        _ => return None,
    })
}

/// Makes the constant of type `ty` holding `v` (`None` when `v` does not fit `ty`).
pub fn value_to_constant(m: &mut Module, ty: InstId, v: &Value) -> Option<InstId> {
    match v {
        Value::Scalar(s, bits) => {
            if Scalar::of(m, ty)? != *s {
                return None;
            }
            Some(if s.is_bool() {
                m.const_bool(*bits & 1 == 1)
            } else if s.is_float() {
                m.const_float_bits(ty, *bits)
            } else {
                m.const_int(ty, *bits)
            })
        }
        Value::Composite(elems) => {
            let op = m.try_op(ty)?;
            if !matches!(op, Op::Vector | Op::Matrix | Op::Array | Op::Struct) {
                return None;
            }
            let expected = match op {
                Op::Vector | Op::Array => m.imm_operand(ty, 1)? as usize,
                Op::Matrix => m.matrix_dims(ty)?.0 as usize,
                _ => m.struct_fields(ty).len(),
            };
            if expected != elems.len() {
                return None;
            }
            let mut out = Vec::with_capacity(elems.len());
            for (k, e) in elems.iter().enumerate() {
                let et = m.element_type(ty, k as u32)?;
                out.push(value_to_constant(m, et, e)?);
            }
            Some(m.const_composite(ty, &out))
        }
        _ => None,
    }
}

/// Parses a value of type `ty` from command-line text: `5`, `-2.5`, `true`, `0x7fc00000` (a
/// float's bits), and composites in parentheses or brackets: `(1, 2, 3)`, `[(1, 0), (0, 1)]`.
pub fn parse_value(m: &Module, ty: InstId, text: &str) -> Result<Value, String> {
    let text = text.trim();
    let type_name = || print_inst(m, ty);
    let op = m.try_op(ty).ok_or("unknown type")?;
    if let Some(s) = Scalar::from_op(op) {
        return parse_scalar(s, text)
            .ok_or_else(|| format!("`{text}` is not a valid {}", type_name()));
    }
    let inner = text
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .or_else(|| text.strip_prefix('[').and_then(|t| t.strip_suffix(']')))
        .or_else(|| text.strip_prefix('{').and_then(|t| t.strip_suffix('}')))
        .ok_or_else(|| format!("a {} is written in parentheses: `({text})`", type_name()))?;
    let parts = split_top_level(inner);
    let expected = match op {
        Op::Vector | Op::Array => m.imm_operand(ty, 1).unwrap_or(0) as usize,
        Op::Matrix => m.matrix_dims(ty).map_or(0, |d| d.0 as usize),
        Op::Struct => m.struct_fields(ty).len(),
        _ => return Err(format!("cannot pass a {} on the command line", type_name())),
    };
    if parts.len() != expected {
        return Err(format!(
            "a {} has {expected} elements, got {}",
            type_name(),
            parts.len()
        ));
    }
    let mut out = Vec::with_capacity(parts.len());
    for (k, p) in parts.iter().enumerate() {
        let et = m
            .element_type_of(ty, k as u32)
            .ok_or_else(|| format!("cannot pass a {} on the command line", type_name()))?;
        out.push(parse_value(m, et, p)?);
    }
    Ok(Value::Composite(out))
}

/// Splits a comma-separated list at the top level (commas inside brackets do not split).
pub fn split_top_level(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in text.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() || !parts.is_empty() {
        parts.push(cur.trim().to_string());
    }
    parts
}

fn parse_scalar(s: Scalar, text: &str) -> Option<Value> {
    if s.is_bool() {
        return match text {
            "true" | "1" => Some(Value::bool(true)),
            "false" | "0" => Some(Value::bool(false)),
            _ => None,
        };
    }
    let hex = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .and_then(|h| u64::from_str_radix(h, 16).ok());
    if s.is_float() {
        if let Some(bits) = hex {
            return (bits <= s.mask()).then_some(Value::Scalar(s, bits));
        }
        let x: f64 = match text {
            "inf" | "+inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            "nan" => f64::NAN,
            _ => text.parse().ok()?,
        };
        let bits = match s {
            // Parse f32 text directly so that decimal rounding happens once.
            Scalar::F32 => text
                .parse::<f32>()
                .map(|f| f.to_bits() as u64)
                .unwrap_or_else(|_| float_bits(s, x)),
            _ => float_bits(s, x),
        };
        return Some(Value::Scalar(s, bits));
    }
    let v: i128 = match hex {
        Some(h) => h as i128,
        None => text.parse().ok()?,
    };
    let (lo, hi) = if s.is_signed() {
        (-(1i128 << (s.width() - 1)), (1i128 << s.width()) - 1)
    } else {
        (0, (1i128 << s.width()) - 1)
    };
    (v >= lo && v <= hi).then_some(Value::Scalar(s, v as u64 & s.mask()))
}

/// Formats a value of type `ty` in the IR text's constant syntax (`i32 5`,
/// `vec<f32, 2> {f32 1.0, f32 2.0}`).
pub fn format_value(m: &Module, ty: InstId, v: &Value) -> String {
    let mut scratch = m.clone();
    match value_to_constant(&mut scratch, ty, v) {
        Some(c) => print_inst(&scratch, c),
        None => format!("{v:?}"),
    }
}

// ---- value-level operators --------------------------------------------

/// Collects the scalar lanes of a value, depth first.
pub fn flatten(v: &Value, out: &mut impl Extend<(Scalar, u64)>) {
    match v {
        Value::Scalar(t, b) => out.extend([(*t, *b)]),
        Value::Composite(es) => es.iter().for_each(|e| flatten(e, out)),
        _ => {}
    }
}

/// Applies `f` to every scalar lane of `v` (the result is masked to the lane's width).
pub fn map_lanes(v: &Value, f: &mut dyn FnMut(Scalar, u64) -> u64) -> Value {
    match v {
        Value::Scalar(t, b) => Value::Scalar(*t, f(*t, *b) & t.mask()),
        Value::Composite(es) => Value::Composite(es.iter().map(|e| map_lanes(e, f)).collect()),
        other => other.clone(),
    }
}

/// A function from the scalar lanes of each operand to a result lane.
pub type LaneFn<'a> = dyn FnMut(&[(Scalar, u64)]) -> Result<(Scalar, Folded), ValueError> + 'a;

/// Applies `f` lane by lane to operands of the same shape (a scalar operand is broadcast).
/// Returns the result and whether every lane was foldable.
pub fn zip_n(args: &[&Value], f: &mut LaneFn<'_>) -> Result<(Value, bool), ValueError> {
    let len = args.iter().find_map(|a| a.elements().map(<[Value]>::len));
    match len {
        None => {
            let mut lanes: SmallVec<[(Scalar, u64); 3]> = SmallVec::new();
            for a in args {
                lanes.push(
                    a.as_scalar()
                        .ok_or_else(|| ValueError::Type("operand is not a number".into()))?,
                );
            }
            let (t, r) = f(&lanes)?;
            Ok((Value::Scalar(t, r.bits & t.mask()), r.foldable))
        }
        Some(n) => {
            let mut out = Vec::with_capacity(n);
            let mut foldable = true;
            for k in 0..n {
                let mut sub: SmallVec<[&Value; 3]> = SmallVec::new();
                for a in args {
                    match a {
                        Value::Composite(es) => sub.push(es.get(k).ok_or_else(|| {
                            ValueError::Type("operands of different lengths".into())
                        })?),
                        Value::Scalar(..) => sub.push(a),
                        _ => return Err(ValueError::Type("operand is not a number".into())),
                    }
                }
                let (v, fo) = zip_n(&sub, f)?;
                foldable &= fo;
                out.push(v);
            }
            Ok((Value::Composite(out), foldable))
        }
    }
}

/// The value of an arithmetic, comparison or unary operator `op` on `args` (the meaning the
/// interpreter, the folder and the unroller share), and whether every lane folds exactly;
/// `None` when `op` is not such an operator or `args` has the wrong length.
pub fn operator_value(op: Op, args: &[Value]) -> Option<Result<(Value, bool), ValueError>> {
    match args {
        [a, b] => {
            if let Some(bop) = BinaryOp::from_op(op) {
                return Some(binary_value(bop, a, b));
            }
            CompareOp::from_op(op).map(|cop| compare_value(cop, a, b))
        }
        [a] => UnaryOp::from_op(op).map(|uop| unary_value(uop, a)),
        _ => None,
    }
}

/// `a op b`, component-wise.
pub fn binary_value(op: BinaryOp, a: &Value, b: &Value) -> Result<(Value, bool), ValueError> {
    zip_n(&[a, b], &mut |l| {
        Ok((l[0].0, semantics::binary(op, l[0].0, l[0].1, l[1].1)?))
    })
}

/// `a op b`, component-wise, giving `bool`s.
pub fn compare_value(op: CompareOp, a: &Value, b: &Value) -> Result<(Value, bool), ValueError> {
    zip_n(&[a, b], &mut |l| {
        Ok((
            Scalar::Bool,
            semantics::compare(op, l[0].0, l[0].1, l[1].1)?,
        ))
    })
}

/// `op a`, component-wise.
pub fn unary_value(op: UnaryOp, a: &Value) -> Result<(Value, bool), ValueError> {
    zip_n(&[a], &mut |l| {
        Ok((l[0].0, semantics::unary(op, l[0].0, l[0].1)?))
    })
}

fn target_scalar(m: &Module, ty: InstId) -> Result<Scalar, ValueError> {
    m.scalar_of(ty)
        .and_then(|s| Scalar::of(m, s))
        .ok_or_else(|| ValueError::Type("conversion to a non-numeric type".into()))
}

/// Converts `a` to type `ty` (same shape), component-wise.
pub fn convert_value(m: &Module, a: &Value, ty: InstId) -> Result<(Value, bool), ValueError> {
    let to = target_scalar(m, ty)?;
    zip_n(&[a], &mut |l| {
        Ok((to, semantics::convert(l[0].0, to, l[0].1)?))
    })
}

/// Reinterprets the bits of `a` as type `ty` (same total size; lanes are concatenated
/// little-endian, so `vec<u16, 2>` to `u32` puts component 0 in the low half).
pub fn bitcast_value(m: &Module, a: &Value, ty: InstId) -> Result<(Value, bool), ValueError> {
    let to = target_scalar(m, ty)?;
    let mut lanes = Vec::new();
    flatten(a, &mut lanes);
    let total: u32 = lanes.iter().map(|l| l.0.width()).sum();
    let n = m.vector_len(ty).unwrap_or(1);
    if total != to.width() * n {
        return Err(ValueError::Type("bitcast between different sizes".into()));
    }
    if lanes.len() as u32 == n {
        return zip_n(&[a], &mut |l| {
            Ok((to, semantics::bitcast(l[0].0, to, l[0].1)?))
        });
    }
    // Different lane counts: concatenate the bits, then cut them into the new lanes.
    let mut bytes: Vec<u8> = Vec::new();
    for (t, b) in &lanes {
        let w = t.width() / 8;
        bytes.extend_from_slice(&b.to_le_bytes()[..w as usize]);
    }
    let w = (to.width() / 8) as usize;
    let mut out = Vec::new();
    let mut foldable = true;
    for chunk in bytes.chunks(w) {
        let mut buf = [0u8; 8];
        buf[..chunk.len()].copy_from_slice(chunk);
        let bits = u64::from_le_bytes(buf);
        let r = semantics::bitcast(to, to, bits)?;
        foldable &= r.foldable;
        out.push(Value::Scalar(to, r.bits));
    }
    Ok(if n == 1 {
        (out.pop().unwrap_or(Value::Scalar(to, 0)), foldable)
    } else {
        (Value::Composite(out), foldable)
    })
}

/// `c ? a : b`, component-wise when `c` is a vector.
pub fn select_value(c: &Value, a: &Value, b: &Value) -> Result<Value, ValueError> {
    match c {
        Value::Scalar(Scalar::Bool, bit) => Ok(if bit & 1 == 1 { a.clone() } else { b.clone() }),
        Value::Composite(cs) => {
            let (Some(xs), Some(ys)) = (a.elements(), b.elements()) else {
                return Err(ValueError::Type(
                    "select of a vector condition on scalars".into(),
                ));
            };
            if cs.len() != xs.len() || xs.len() != ys.len() {
                return Err(ValueError::Type(
                    "select operands of different lengths".into(),
                ));
            }
            Ok(Value::Composite(
                cs.iter()
                    .zip(xs.iter().zip(ys))
                    .map(|(c, (x, y))| select_value(c, x, y))
                    .collect::<Result<_, _>>()?,
            ))
        }
        _ => Err(ValueError::Type(
            "the select condition is not a bool".into(),
        )),
    }
}

/// Builds a value of type `ty` from `construct` operands: a vector takes scalars and vectors
/// (flattened in order); other composites take their elements.
pub fn construct_value(m: &Module, ty: InstId, elems: Vec<Value>) -> Result<Value, ValueError> {
    if m.try_op(ty) == Some(Op::Vector) {
        let mut lanes = Vec::new();
        for e in &elems {
            flatten(e, &mut lanes);
        }
        let n = m.vector_len(ty).unwrap_or(0) as usize;
        if lanes.len() != n {
            return Err(ValueError::Type(format!(
                "construct of a {n}-vector from {} components",
                lanes.len()
            )));
        }
        return Ok(Value::Composite(
            lanes
                .into_iter()
                .map(|(t, b)| Value::Scalar(t, b))
                .collect(),
        ));
    }
    Ok(Value::Composite(elems))
}

/// Element `k` of a composite (`Err(len)` when out of bounds).
pub fn element(v: &Value, k: u64) -> Result<Value, usize> {
    let es = v.elements().ok_or(0usize)?;
    usize::try_from(k)
        .ok()
        .and_then(|k| es.get(k))
        .cloned()
        .ok_or(es.len())
}

/// Replaces the element of `v` at `path` with `e` (`Err((index, len))` when an index is out of
/// bounds).
pub fn set_path(v: &mut Value, path: &[u32], e: Value) -> Result<(), (u64, usize)> {
    let Some((&first, rest)) = path.split_first() else {
        *v = e;
        return Ok(());
    };
    let Value::Composite(es) = v else {
        return Err((first as u64, 0));
    };
    let len = es.len();
    let slot = es.get_mut(first as usize).ok_or((first as u64, len))?;
    set_path(slot, rest, e)
}

/// `shuffle a, b, indices`: indices past `a`'s length pick from `b`.
pub fn shuffle_value(a: &Value, b: &Value, idx: &[u32]) -> Result<Value, (u64, usize)> {
    let mut lanes: Vec<Value> = Vec::new();
    for x in [a, b] {
        match x {
            Value::Composite(es) => lanes.extend(es.iter().cloned()),
            other => lanes.push(other.clone()),
        }
    }
    let picked = idx
        .iter()
        .map(|&k| {
            lanes
                .get(k as usize)
                .cloned()
                .ok_or((k as u64, lanes.len()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(if picked.len() == 1 {
        picked.into_iter().next().unwrap_or(Value::Opaque)
    } else {
        Value::Composite(picked)
    })
}

/// A scalar of `v`'s first lane type holding `x` (rounded for floats, truncated for integers).
pub fn scalar_like(v: &Value, x: f64) -> Result<Value, ValueError> {
    let mut lanes = Vec::new();
    flatten(v, &mut lanes);
    let t = lanes
        .first()
        .map(|l| l.0)
        .ok_or_else(|| ValueError::Type("empty value".into()))?;
    Ok(Value::Scalar(
        t,
        if t.is_float() {
            float_bits(t, x)
        } else {
            x as i64 as u64 & t.mask()
        },
    ))
}

/// `dot(a, b)`: products summed left to right, each step rounded.
pub fn dot_value(a: &Value, b: &Value) -> Result<Value, ValueError> {
    let p = binary_value(BinaryOp::Mul, a, b)?.0;
    let lanes = p
        .elements()
        .ok_or_else(|| ValueError::Type("dot of scalars".into()))?;
    let mut acc = lanes
        .first()
        .cloned()
        .ok_or_else(|| ValueError::Type("dot of empty vectors".into()))?;
    for l in &lanes[1..] {
        acc = binary_value(BinaryOp::Add, &acc, l)?.0;
    }
    Ok(acc)
}

/// `length(v)`: the square root of `dot(v, v)` (of `v * v` for a scalar).
pub fn length_value(v: &Value) -> Result<Value, ValueError> {
    let d = match v {
        Value::Scalar(..) => binary_value(BinaryOp::Mul, v, v)?.0,
        _ => dot_value(v, v)?,
    };
    let refs = [&d];
    Ok(zip_n(&refs, &mut |l| {
        Ok((l[0].0, semantics::intrinsic(Intrinsic::Sqrt, l[0].0, l)?))
    })?
    .0)
}

/// `cross(a, b)` of two 3-vectors.
pub fn cross_value(a: &Value, b: &Value) -> Result<Value, ValueError> {
    let (Some(x), Some(y)) = (a.elements(), b.elements()) else {
        return Err(ValueError::Type("cross of non-vectors".into()));
    };
    if x.len() != 3 || y.len() != 3 {
        return Err(ValueError::Type("cross of non-3-vectors".into()));
    }
    let term = |i: usize, j: usize| -> Result<Value, ValueError> {
        let p = binary_value(BinaryOp::Mul, &x[i], &y[j])?.0;
        let q = binary_value(BinaryOp::Mul, &x[j], &y[i])?.0;
        Ok(binary_value(BinaryOp::Sub, &p, &q)?.0)
    };
    Ok(Value::Composite(vec![
        term(1, 2)?,
        term(2, 0)?,
        term(0, 1)?,
    ]))
}

/// `refract(inc, n, eta)`, computed in `f64` and rounded once per component.
pub fn refract_value(inc: &Value, n: &Value, eta: &Value) -> Result<Value, ValueError> {
    let d = dot_value(n, inc)?;
    let (Some((t, db)), Some((_, eb))) = (d.as_scalar(), eta.as_scalar()) else {
        return Err(ValueError::Type("refract operands".into()));
    };
    let (dv, ev) = (float_value(t, db), float_value(t, eb));
    let k = 1.0 - ev * ev * (1.0 - dv * dv);
    if k < 0.0 {
        return Ok(map_lanes(inc, &mut |_, _| 0));
    }
    let s = ev * dv + k.sqrt();
    let mut lanes_i = Vec::new();
    let mut lanes_n = Vec::new();
    flatten(inc, &mut lanes_i);
    flatten(n, &mut lanes_n);
    Ok(Value::Composite(
        lanes_i
            .iter()
            .zip(&lanes_n)
            .map(|(&(t, a), &(_, b))| {
                Value::Scalar(
                    t,
                    float_bits(t, ev * float_value(t, a) - s * float_value(t, b)),
                )
            })
            .collect(),
    ))
}

fn matrix_f64(v: &Value) -> Option<(Scalar, Vec<Vec<f64>>)> {
    let rows = v.elements()?;
    let mut t = Scalar::F32;
    let mut out = Vec::new();
    for r in rows {
        let mut row = Vec::new();
        for e in r.elements()? {
            let (s, b) = e.as_scalar()?;
            t = s;
            row.push(if s.is_float() {
                float_value(s, b)
            } else {
                semantics::int_value(s, b) as f64
            });
        }
        out.push(row);
    }
    Some((t, out))
}

fn det(mat: &[Vec<f64>]) -> f64 {
    match mat.len() {
        0 => 1.0,
        1 => mat[0][0],
        2 => mat[0][0] * mat[1][1] - mat[0][1] * mat[1][0],
        n => (0..n)
            .map(|c| {
                let minor: Vec<Vec<f64>> = mat[1..]
                    .iter()
                    .map(|r| {
                        r.iter()
                            .enumerate()
                            .filter(|&(k, _)| k != c)
                            .map(|(_, &x)| x)
                            .collect()
                    })
                    .collect();
                let sign = if c % 2 == 0 { 1.0 } else { -1.0 };
                sign * mat[0][c] * det(&minor)
            })
            .sum(),
    }
}

/// `determinant(m)` of a square matrix, computed in `f64` and rounded once.
pub fn determinant_value(v: &Value) -> Result<Value, ValueError> {
    let (t, mat) =
        matrix_f64(v).ok_or_else(|| ValueError::Type("determinant of a non-matrix".into()))?;
    if mat.iter().any(|r| r.len() != mat.len()) {
        return Err(ValueError::Type(
            "determinant of a non-square matrix".into(),
        ));
    }
    Ok(Value::Scalar(t, float_bits(t, det(&mat))))
}

/// `transpose(m)`.
pub fn transpose_value(v: &Value) -> Result<Value, ValueError> {
    let rows = v
        .elements()
        .ok_or_else(|| ValueError::Type("transpose of a non-matrix".into()))?;
    let cols = rows
        .first()
        .and_then(Value::elements)
        .map_or(0, <[Value]>::len);
    let mut out = Vec::with_capacity(cols);
    for c in 0..cols {
        let col = rows
            .iter()
            .map(|r| element(r, c as u64).map_err(|_| ValueError::Type("ragged matrix".into())))
            .collect::<Result<Vec<_>, _>>()?;
        out.push(Value::Composite(col));
    }
    Ok(Value::Composite(out))
}

/// The matrix product (HLSL `mul`): matrix * matrix, matrix * vector (the vector is a column),
/// vector * matrix (a row). Each output component is a `dot` of a row and a column.
pub fn matmul_value(a: &Value, b: &Value) -> Result<Value, ValueError> {
    let is_matrix = |v: &Value| {
        v.elements()
            .and_then(|es| es.first())
            .is_some_and(|e| e.elements().is_some())
    };
    let columns = |mat: &Value| -> Result<Vec<Value>, ValueError> {
        match transpose_value(mat)? {
            Value::Composite(c) => Ok(c),
            _ => Err(ValueError::Type("matmul".into())),
        }
    };
    match (is_matrix(a), is_matrix(b)) {
        (true, true) => {
            let cols = columns(b)?;
            let rows = a.elements().unwrap_or(&[]);
            let mut out = Vec::new();
            for r in rows {
                let row = cols
                    .iter()
                    .map(|c| dot_value(r, c))
                    .collect::<Result<Vec<_>, _>>()?;
                out.push(Value::Composite(row));
            }
            Ok(Value::Composite(out))
        }
        (true, false) => {
            let rows = a.elements().unwrap_or(&[]);
            Ok(Value::Composite(
                rows.iter()
                    .map(|r| dot_value(r, b))
                    .collect::<Result<Vec<_>, _>>()?,
            ))
        }
        (false, true) => {
            let cols = columns(b)?;
            Ok(Value::Composite(
                cols.iter()
                    .map(|c| dot_value(a, c))
                    .collect::<Result<Vec<_>, _>>()?,
            ))
        }
        (false, false) => Err(ValueError::Type("matmul of two vectors".into())),
    }
}

/// `frexp(x)`: the mantissas and, shaped like `exp_proto`, the exponents.
pub fn frexp_value(x: &Value, exp_proto: &Value) -> Result<(Value, Value), ValueError> {
    let mut lanes = Vec::new();
    flatten(x, &mut lanes);
    let mut eprot = Vec::new();
    flatten(exp_proto, &mut eprot);
    let mut mant = Vec::new();
    let mut exps = Vec::new();
    for (k, &(t, b)) in lanes.iter().enumerate() {
        let v = float_value(t, b);
        let (mv, e) = if v == 0.0 || !v.is_finite() {
            (v, 0)
        } else {
            let e = v.abs().log2().floor() as i32 + 1;
            let mut mv = v / 2f64.powi(e);
            let mut e = e;
            // Guard against log2 rounding at powers of two.
            if mv.abs() >= 1.0 {
                mv /= 2.0;
                e += 1;
            } else if mv.abs() < 0.5 {
                mv *= 2.0;
                e -= 1;
            }
            (mv, e)
        };
        mant.push(Value::Scalar(t, float_bits(t, mv)));
        let et = eprot.get(k).map_or(Scalar::I32, |l| l.0);
        exps.push(Value::Scalar(
            et,
            if et.is_float() {
                float_bits(et, e as f64)
            } else {
                e as i64 as u64 & et.mask()
            },
        ));
    }
    Ok(if lanes.len() == 1 && x.as_scalar().is_some() {
        (mant.remove(0), exps.remove(0))
    } else {
        (Value::Composite(mant), Value::Composite(exps))
    })
}

/// `modf(x)`: the fractional parts and the integer parts.
pub fn modf_value(x: &Value) -> Result<(Value, Value), ValueError> {
    let frac = map_lanes(x, &mut |t, b| {
        let v = float_value(t, b);
        float_bits(t, v - v.trunc())
    });
    let int = map_lanes(x, &mut |t, b| float_bits(t, float_value(t, b).trunc()));
    Ok((frac, int))
}

/// The new memory value of an atomic read-modify-write (`Some(None)` when the operation only
/// reads), or `None` when the operation is not defined on the operands.
pub fn atomic_value(op: AtomicOp, old: &Value, x: &Value) -> Option<Option<Value>> {
    let (t, a) = old.as_scalar()?;
    let (_, b) = x.as_scalar()?;
    let bin = |o: BinaryOp| semantics::binary(o, t, a, b).ok().map(|r| r.bits);
    let r = match op {
        AtomicOp::Add => bin(BinaryOp::Add)?,
        AtomicOp::Sub => bin(BinaryOp::Sub)?,
        AtomicOp::And => bin(BinaryOp::And)?,
        AtomicOp::Or => bin(BinaryOp::Or)?,
        AtomicOp::Xor => bin(BinaryOp::Xor)?,
        AtomicOp::Min | AtomicOp::Max => {
            let (va, vb) = (semantics::int_value(t, a), semantics::int_value(t, b));
            let pick_b = if op == AtomicOp::Min {
                vb < va
            } else {
                vb > va
            };
            if pick_b { b } else { a }
        }
        AtomicOp::Exchange | AtomicOp::Store => b,
        AtomicOp::Load => return Some(None),
    };
    Some(Some(Value::Scalar(t, r & t.mask())))
}
