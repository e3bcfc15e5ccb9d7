//! HLSL's implicit conversions (which exist, and a rough cost of each), and the result types of
//! the arithmetic operators. Overload resolution uses [`implicit_cost`] only to decide whether a
//! candidate is viable; it ranks viable candidates as DXC does (`overload_rank.rs`).
//!
//! Costs (per conversion, smaller is closer), used where the front end prefers the nearer of
//! two readings of one expression (an initializer of one element, an intrinsic's `out`
//! argument):
//!
//! | conversion | cost |
//! |---|---|
//! | identical type | 0 |
//! | scalar <-> one-component vector or 1x1 matrix | 1 |
//! | a literal to any type of its class (`1` to `uint`, `1.0` to `half`) | 1 |
//! | promotion: a wider type of the same class (`half` to `float`, `int16_t` to `int`) | 2 |
//! | conversion between classes or signedness, narrowing (`int` to `float`, `float` to `int`) | 4 |
//! | splat of a scalar to a vector or matrix | + 8 |
//! | truncation of a vector or matrix (a warning when used) | + 16 |
//!
//! Structs, arrays and resources convert only to themselves.

use crate::hlsl::sema::hir::{Scalar, TyId, TyKind, Types};

/// How a value of one type becomes a value of another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// The same shape.
    Same,
    /// Scalar to vector/matrix.
    Splat,
    /// Fewer components.
    Truncate,
    /// Same component count, different shape (scalar and one-component vectors, one-row
    /// matrices and vectors).
    Reshape,
}

/// The cost of converting scalar `from` to scalar `to` implicitly.
pub fn scalar_cost(from: Scalar, to: Scalar) -> u32 {
    use Scalar::*;
    if from == to {
        return 0;
    }
    match (from, to) {
        (LitInt, t) if t.is_int() => 1,
        (LitFloat, t) if t.is_float() => 1,
        (LitInt, t) if t.is_float() => 2,
        (F16, F32) | (F16, F64) | (F32, F64) => 2,
        (I16, I32) | (I16, I64) | (I32, I64) | (U16, U32) | (U16, U64) | (U32, U64) => 2,
        (U16, I32) | (U16, I64) | (U32, I64) => 3,
        (Bool, _) => 4,
        _ => 4,
    }
}

/// The shape relation and component-count legality of an implicit conversion between two
/// numeric types, `None` when none exists.
pub fn numeric_shape(types: &Types, from: TyId, to: TyId) -> Option<Shape> {
    use TyKind::*;
    let (fk, tk) = (types.kind(from), types.kind(to));
    Some(match (fk, tk) {
        (Scalar(_), Scalar(_)) => Shape::Same,
        (Scalar(_), Vector(_, 1)) => Shape::Reshape,
        (Scalar(_), Matrix(_, 1, 1)) => Shape::Reshape,
        (Scalar(_), Vector(..) | Matrix(..)) => Shape::Splat,
        (Vector(_, 1), Scalar(_)) => Shape::Reshape,
        (Vector(_, n), Scalar(_)) if *n > 1 => Shape::Truncate,
        (Vector(_, 1), Vector(_, m)) if *m > 1 => Shape::Splat,
        (Vector(_, n), Vector(_, m)) if n == m => Shape::Same,
        (Vector(_, n), Vector(_, m)) if m < n => Shape::Truncate,
        (Vector(_, 1), Matrix(..)) => Shape::Splat,
        (Vector(_, n), Matrix(_, r, c)) if *n == r * c && (*r == 1 || *c == 1) => Shape::Reshape,
        (Vector(_, n), Matrix(_, r, c)) if *n == r * c => Shape::Reshape,
        (Matrix(_, 1, 1), Scalar(_)) => Shape::Reshape,
        (Matrix(..), Scalar(_)) => Shape::Truncate,
        (Matrix(_, r, c), Vector(_, n)) if r * c == *n => Shape::Reshape,
        (Matrix(_, r, c), Vector(_, n)) if (*r == 1 || *c == 1) && *n < r * c => Shape::Truncate,
        (Matrix(_, r, c), Matrix(_, r2, c2)) if r == r2 && c == c2 => Shape::Same,
        (Matrix(_, 1, 1), Matrix(..)) => Shape::Splat,
        (Matrix(_, r, c), Matrix(_, r2, c2)) if r2 <= r && c2 <= c => Shape::Truncate,
        _ => return None,
    })
}

/// The cost of an implicit conversion (see the module table), `None` when there is none.
pub fn implicit_cost(types: &Types, from: TyId, to: TyId) -> Option<u32> {
    if from == to {
        return Some(0);
    }
    if types.is_error(from) || types.is_error(to) {
        return Some(0);
    }
    let (Some(fs), Some(ts)) = (types.scalar_of(from), types.scalar_of(to)) else {
        return same_aggregate(types, from, to).then_some(0);
    };
    let shape = numeric_shape(types, from, to)?;
    let base = scalar_cost(fs, ts);
    Some(
        base + match shape {
            Shape::Same => 0,
            Shape::Reshape => 1,
            Shape::Splat => 8,
            Shape::Truncate => 16,
        },
    )
}

/// Two non-numeric types that are interchangeable: the same type, or resources of the same
/// kind and element.
fn same_aggregate(types: &Types, a: TyId, b: TyId) -> bool {
    if a == b {
        return true;
    }
    match (types.kind(a), types.kind(b)) {
        (TyKind::Array(ea, na), TyKind::Array(eb, nb)) => {
            na == nb && implicit_cost(types, *ea, *eb) == Some(0)
        }
        (TyKind::Sampler(_), TyKind::Sampler(_)) => true,
        _ => false,
    }
}

/// The rank of a scalar for the usual arithmetic conversions: the result of a binary
/// operation has the scalar of higher rank.
fn rank(s: Scalar) -> u32 {
    use Scalar::*;
    match s {
        Bool => 0,
        LitInt => 1,
        I16 => 2,
        U16 => 3,
        I32 => 4,
        U32 => 5,
        I64 => 6,
        U64 => 7,
        LitFloat => 8,
        F16 => 9,
        F32 => 10,
        F64 => 11,
    }
}

/// The scalar type a binary arithmetic operation between `a` and `b` runs in.
pub fn common_scalar(a: Scalar, b: Scalar) -> Scalar {
    use Scalar::*;
    if a == b {
        return if a == Bool { I32 } else { a };
    }
    match (a, b) {
        // A float literal next to an integer becomes float; next to a float type, that type.
        (LitFloat, x) | (x, LitFloat) if x.is_int() || x == Bool => F32,
        (LitInt, Bool) | (Bool, LitInt) => I32,
        (Bool, x) | (x, Bool) => x,
        _ => {
            if rank(a) >= rank(b) {
                a
            } else {
                b
            }
        }
    }
}

/// The shape two operands of a component-wise binary operation are brought to, and whether
/// a truncation happens (a warning).
pub fn common_shape(types: &mut Types, a: TyId, b: TyId, s: Scalar) -> Option<(TyId, bool)> {
    use TyKind::*;
    let (ka, kb) = (types.kind(a).clone(), types.kind(b).clone());
    let r = match (ka, kb) {
        (Scalar(_), Scalar(_)) => (types.scalar(s), false),
        (Scalar(_), Vector(_, n)) | (Vector(_, n), Scalar(_)) => (types.vector(s, n), false),
        (Scalar(_), Matrix(_, r, c)) | (Matrix(_, r, c), Scalar(_)) => {
            (types.matrix(s, r, c), false)
        }
        (Vector(_, 1), Vector(_, n)) | (Vector(_, n), Vector(_, 1)) => (types.vector(s, n), false),
        (Vector(_, n), Vector(_, m)) => (types.vector(s, n.min(m)), n != m),
        (Vector(_, 1), Matrix(_, r, c)) | (Matrix(_, r, c), Vector(_, 1)) => {
            (types.matrix(s, r, c), false)
        }
        (Matrix(_, 1, 1), Matrix(_, r, c)) | (Matrix(_, r, c), Matrix(_, 1, 1)) => {
            (types.matrix(s, r, c), false)
        }
        (Matrix(_, r, c), Matrix(_, r2, c2)) => {
            (types.matrix(s, r.min(r2), c.min(c2)), r != r2 || c != c2)
        }
        (Vector(_, n), Matrix(_, r, c)) | (Matrix(_, r, c), Vector(_, n))
            if (r == 1 || c == 1) && n <= r.max(c) =>
        {
            (types.vector(s, n), n != r.max(c))
        }
        (Vector(_, n), Matrix(_, r, c)) if n == r * c => (types.matrix(s, r, c), false),
        (Matrix(_, r, c), Vector(_, n)) if n == r * c => (types.matrix(s, r, c), false),
        _ => return None,
    };
    Some(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usual_arithmetic_conversions() {
        use Scalar::*;
        assert_eq!(common_scalar(I32, U32), U32);
        assert_eq!(common_scalar(I32, F32), F32);
        assert_eq!(common_scalar(LitFloat, F16), F16);
        assert_eq!(common_scalar(LitFloat, I32), F32);
        assert_eq!(common_scalar(LitInt, U32), U32);
        assert_eq!(common_scalar(Bool, Bool), I32);
        assert_eq!(common_scalar(F64, F32), F64);
    }

    #[test]
    fn costs_rank_exact_promotion_conversion() {
        let mut t = Types::new();
        let f = t.float();
        let i = t.int();
        let h = t.scalar(Scalar::F16);
        let d = t.scalar(Scalar::F64);
        let f4 = t.vector(Scalar::F32, 4);
        let f3 = t.vector(Scalar::F32, 3);
        assert_eq!(implicit_cost(&t, f, f), Some(0));
        assert!(implicit_cost(&t, h, f) < implicit_cost(&t, i, f));
        assert!(implicit_cost(&t, f, d) < implicit_cost(&t, f, i));
        assert!(implicit_cost(&t, f, f4) > implicit_cost(&t, i, f));
        assert!(implicit_cost(&t, f4, f3) > implicit_cost(&t, f, f4));
        assert_eq!(implicit_cost(&t, f3, f4), None);
    }
}
