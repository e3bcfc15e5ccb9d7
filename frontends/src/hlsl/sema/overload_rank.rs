//! DXC's ranking of overload candidates (docs/hlsl-overloads.md has the table of cases).
//!
//! DXC does not use C++'s pairwise comparison of conversion sequences for HLSL functions: it
//! gives every viable candidate one number and takes the smallest (its `ScoreCast` and
//! `GetBestViableFunction` in `SemaHLSL.cpp`; the facts below are from there, the code is
//! ours). For each argument it compares the parameter type `P` with the argument type `A`
//! component by component: `C` is the type the two combine to under the usual arithmetic
//! conversions, and each side of `P <- C <- A` is classified as a promotion, a signedness
//! change or a conversion. Each classification, and each change of component count, sets one
//! bit of the argument's score; from cheapest to dearest:
//!
//! | bit | meaning |
//! |---|---|
//! | [`Rank::Splat`] | the argument has fewer components (a scalar splat) |
//! | [`Rank::ParamPromotion`] | `C` promotes to `P` (a parameter wider than the combination) |
//! | [`Rank::ArgPromotion`] | `A` promotes to `C` (`half` to `float`, `int` to `int64_t`) |
//! | [`Rank::ParamSignChange`] | `C` to `P` changes signedness only (`uint` argument, `int` parameter) |
//! | [`Rank::ArgSignChange`] | `A` to `C` changes signedness only (`int` argument, `uint` parameter) |
//! | [`Rank::ParamConversion`] | `C` to `P` converts (`float` argument, `int` parameter; narrowing) |
//! | [`Rank::ArgConversion`] | `A` to `C` converts (`int` argument, `float` parameter; `bool`) |
//! | [`Rank::Truncation`] | the argument has more components (a truncation) |
//!
//! A candidate's score is the sum over its arguments, the copy-in and, for `out`/`inout`
//! parameters, the copy-out (which goes from the parameter to the argument). Bits are seven
//! apart, so up to 127 arguments with the same bit never carry into the next rank. The
//! smallest score wins; two candidates with the smallest score are ambiguous.
//!
//! Literals are what make `f(1)` ambiguous between `f(int)` and `f(uint)`: an integer literal
//! combines with every integer type to that type, and so costs nothing; a float literal
//! likewise with every float type.

use crate::hlsl::sema::hir::{Scalar, TyId, TyKind, Types};

/// One bit of an argument's score (see the module table), cheapest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rank {
    /// The argument has fewer components than the parameter.
    Splat = 0,
    /// The combined type promotes to the parameter type.
    ParamPromotion = 1,
    /// The argument type promotes to the combined type.
    ArgPromotion = 2,
    /// The combined type becomes the parameter type by a change of signedness.
    ParamSignChange = 3,
    /// The argument type becomes the combined type by a change of signedness.
    ArgSignChange = 4,
    /// The combined type converts to the parameter type.
    ParamConversion = 5,
    /// The argument type converts to the combined type.
    ArgConversion = 6,
    /// The argument has more components than the parameter.
    Truncation = 7,
}

impl Rank {
    /// The score of this rank alone.
    pub fn score(self) -> u64 {
        1u64 << (2 + 7 * self as u32)
    }

    /// Every rank set in `score`.
    #[cfg(test)]
    pub fn in_score(score: u64) -> Vec<Rank> {
        use Rank::*;
        [
            Splat,
            ParamPromotion,
            ArgPromotion,
            ParamSignChange,
            ArgSignChange,
            ParamConversion,
            ArgConversion,
            Truncation,
        ]
        .into_iter()
        .filter(|r| (score >> (2 + 7 * *r as u32)) & 0x7f != 0)
        .collect()
    }
}

const FLOATING: u8 = 1;
const INTEGER: u8 = 2;
const UNSIGNED: u8 = 4;
const LITERAL: u8 = 8;
const BOOLEAN: u8 = 16;

/// A scalar's width (0 for `bool` and the literals) and its property flags.
fn props(s: Scalar) -> (u32, u8) {
    use Scalar::*;
    match s {
        Bool => (0, BOOLEAN | INTEGER),
        LitInt => (0, INTEGER | LITERAL),
        LitFloat => (0, FLOATING | LITERAL),
        I16 => (16, INTEGER),
        U16 => (16, INTEGER | UNSIGNED),
        I32 => (32, INTEGER),
        U32 => (32, INTEGER | UNSIGNED),
        I64 => (64, INTEGER),
        U64 => (64, INTEGER | UNSIGNED),
        F16 => (16, FLOATING),
        F32 => (32, FLOATING),
        F64 => (64, FLOATING),
    }
}

/// The scalar two scalars combine to in DXC's overload ranking (its `CombineBasicTypes`).
pub fn combine(a: Scalar, b: Scalar) -> Scalar {
    if a == b {
        return a;
    }
    let ((abits, ap), (bbits, bp)) = (props(a), props(b));
    let both = ap & bp;
    let either = ap | bp;
    let float = either & FLOATING != 0;
    if both & LITERAL != 0 {
        return if float {
            Scalar::LitFloat
        } else {
            Scalar::LitInt
        };
    }
    let mut bits = abits.max(bbits);
    let mut flags =
        (both & INTEGER) | (either & FLOATING) | if float { 0 } else { either & UNSIGNED };
    if float && both & FLOATING == 0 {
        // One side is a float: the result is that side's type (an int literal next to
        // `half` gives `half`).
        let (fbits, fp) = if ap & FLOATING != 0 {
            (abits, ap)
        } else {
            (bbits, bp)
        };
        bits = fbits;
        flags = fp & !LITERAL;
    }
    if bits == 0 {
        bits = 32;
    }
    let unsigned = flags & UNSIGNED != 0;
    match (float, bits, unsigned) {
        (true, 16, _) => Scalar::F16,
        (true, 32, _) => Scalar::F32,
        (true, _, _) => Scalar::F64,
        (false, 16, false) => Scalar::I16,
        (false, 16, true) => Scalar::U16,
        (false, 32, false) => Scalar::I32,
        (false, 32, true) => Scalar::U32,
        (false, _, false) => Scalar::I64,
        (false, _, true) => Scalar::U64,
    }
}

/// `from` widens to `to` without changing class (signedness does not matter).
fn is_promotion(to: Scalar, from: Scalar) -> bool {
    use Scalar::*;
    match from {
        F16 => matches!(to, F32 | F64),
        F32 => to == F64,
        I16 | U16 => matches!(to, I32 | I64 | U32 | U64),
        I32 | U32 => matches!(to, I64 | U64),
        _ => false,
    }
}

/// `a` and `b` differ only in signedness.
fn sign_pair(a: Scalar, b: Scalar) -> bool {
    use Scalar::*;
    matches!(
        (a, b),
        (I16, U16) | (U16, I16) | (I32, U32) | (U32, I32) | (I64, U64) | (U64, I64)
    )
}

/// A literal meets a type of its class: free.
fn literal_fit(a: Scalar, b: Scalar) -> bool {
    (a == Scalar::LitInt && b.is_int() && b != Scalar::LitInt)
        || (b == Scalar::LitInt && a.is_int() && a != Scalar::LitInt)
        || (a == Scalar::LitFloat && b.is_float())
        || (b == Scalar::LitFloat && a.is_float())
}

/// The rank of the step between `wide` (or the parameter) and `narrow`, as DXC classifies it:
/// `None` when the two are the same or a literal meets its own class.
fn step(to: Scalar, from: Scalar) -> Option<StepKind> {
    if to == from || literal_fit(to, from) {
        return None;
    }
    if is_promotion(to, from) {
        return Some(StepKind::Promotion);
    }
    if sign_pair(to, from) {
        return Some(StepKind::SignChange);
    }
    Some(StepKind::Conversion)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum StepKind {
    Promotion,
    SignChange,
    Conversion,
}

/// The number of components DXC counts for a numeric type (1 for anything else).
fn components(types: &Types, t: TyId) -> u32 {
    match types.kind(t) {
        TyKind::Vector(_, n) => u32::from(*n),
        TyKind::Matrix(_, r, c) => u32::from(*r) * u32::from(*c),
        _ => 1,
    }
}

/// The score of passing a value of type `arg` where `param` is expected (DXC's `ScoreCast`
/// with the parameter on the left). Only meaningful for a viable conversion; two identical
/// types, and non-numeric types, score 0.
pub fn conversion_score(types: &Types, param: TyId, arg: TyId) -> u64 {
    if param == arg {
        return 0;
    }
    let (Some(p), Some(a)) = (types.scalar_of(param), types.scalar_of(arg)) else {
        return 0;
    };
    let (np, na) = (components(types, param), components(types, arg));
    let mut score = 0;
    if na < np {
        score += Rank::Splat.score();
    }
    if np < na {
        score += Rank::Truncation.score();
    }
    let c = combine(p, a);
    score += match step(p, c) {
        Some(StepKind::Promotion) => Rank::ParamPromotion.score(),
        Some(StepKind::SignChange) => Rank::ParamSignChange.score(),
        Some(StepKind::Conversion) => Rank::ParamConversion.score(),
        None => 0,
    };
    score += match step(c, a) {
        Some(StepKind::Promotion) => Rank::ArgPromotion.score(),
        Some(StepKind::SignChange) => Rank::ArgSignChange.score(),
        Some(StepKind::Conversion) => Rank::ArgConversion.score(),
        None => 0,
    };
    score
}

#[cfg(test)]
mod tests {
    use super::*;
    use Scalar::*;

    #[test]
    fn combine_follows_the_usual_arithmetic_conversions() {
        assert_eq!(combine(I32, U32), U32);
        assert_eq!(combine(U16, I32), U32);
        assert_eq!(combine(F32, I32), F32);
        assert_eq!(combine(F16, LitInt), F16);
        assert_eq!(combine(I64, LitFloat), F32);
        assert_eq!(combine(LitInt, LitFloat), LitFloat);
        assert_eq!(combine(Bool, I32), I32);
        assert_eq!(combine(Bool, LitInt), I32);
        assert_eq!(combine(F16, F64), F64);
    }

    fn ranks(p: Scalar, a: Scalar) -> Vec<Rank> {
        let mut t = Types::new();
        let (p, a) = (t.scalar(p), t.scalar(a));
        Rank::in_score(conversion_score(&t, p, a))
    }

    #[test]
    fn scalar_steps_classify_as_dxc_does() {
        use Rank::*;
        assert_eq!(ranks(F32, F32), vec![]);
        assert_eq!(ranks(U16, LitInt), vec![]);
        assert_eq!(ranks(F16, LitFloat), vec![]);
        assert_eq!(ranks(F32, F16), vec![ArgPromotion]);
        assert_eq!(ranks(I64, I32), vec![ArgPromotion]);
        assert_eq!(ranks(I32, U32), vec![ParamSignChange]);
        assert_eq!(ranks(U32, I32), vec![ArgSignChange]);
        assert_eq!(ranks(I32, F32), vec![ParamConversion]);
        assert_eq!(ranks(F32, I32), vec![ArgConversion]);
        assert_eq!(ranks(F32, LitInt), vec![ArgConversion]);
        assert_eq!(ranks(F16, F32), vec![ParamConversion]);
        assert_eq!(ranks(I32, U16), vec![ArgPromotion, ParamSignChange]);
        assert_eq!(ranks(Bool, I32), vec![ParamConversion]);
        assert_eq!(ranks(I32, Bool), vec![ArgConversion]);
    }

    #[test]
    fn shape_changes_are_the_cheapest_and_the_dearest_bits() {
        let mut t = Types::new();
        let f = t.float();
        let f4 = t.vector(F32, 4);
        let i = t.int();
        assert_eq!(
            Rank::in_score(conversion_score(&t, f4, f)),
            vec![Rank::Splat]
        );
        assert_eq!(
            Rank::in_score(conversion_score(&t, f, f4)),
            vec![Rank::Truncation]
        );
        // A splat is cheaper than any change of component type.
        assert!(conversion_score(&t, f4, f) < conversion_score(&t, f, i));
        assert!(conversion_score(&t, i, f) < conversion_score(&t, f, i));
    }
}
