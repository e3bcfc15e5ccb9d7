//! Comparing what two voices left in one resource.
//!
//! # The rules
//!
//! - [`Rule::Exact`], the default: every scalar bit for bit, with one exception: **any NaN
//!   equals any NaN** (of the same type). SPIR-V and Vulkan do not define the sign or
//!   payload of a NaN an operation produces, so two correct programs may leave different
//!   NaN bits; a NaN against a number is still a disagreement. Bytes no reflected scalar
//!   covers (padding, or a resource reflection does not describe) are compared as words,
//!   bit for bit.
//! - [`Rule::Ulp`]: floats within a stated number of units in the last place (integers
//!   still exact). Only for what the Vulkan specification leaves inexact, and only where a
//!   test names it: transcendental intrinsics (`sin`, `exp`, `pow`... whose precision
//!   Vulkan bounds but does not fix) compared against the reference interpreter, whose
//!   Rust `std` implementations round differently from the GPU's. Two voices on the same
//!   driver run the same GLSL.std.450 instructions and compare exactly.
//! - [`Rule::SignlessZero`]: exact, except that +0 equals -0. Vulkan lets a shader without
//!   the `SignedZeroInfNanPreserve` execution mode ignore the sign of zero; a caller
//!   comparing a GPU voice with the IEEE interpreter names this rule (two GPU voices on one
//!   driver compare exactly).
//! - [`Rule::Unordered`]: the resource is a list whose order depends on scheduling (an
//!   append buffer, a list compacted with an atomic counter): its elements are compared as
//!   a multiset.
//! - [`Rule::Ignore`]: not compared, with the reason (reported).

use std::fmt;

use oneshader::reflect::Scalar;

use crate::layout::{Slot, scalar_size};

/// How one resource's contents are compared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Bit for bit; NaNs compare as a class.
    Exact,
    /// Floats within this many ULP (NaNs as a class); everything else bit for bit.
    Ulp(u32),
    /// Bit for bit, NaNs as a class, and +0 equal to -0.
    SignlessZero,
    /// A multiset of elements of this many words.
    Unordered {
        /// Words per element.
        element_words: usize,
    },
    /// Not compared.
    Ignore(String),
}

/// The first difference between two voices' contents of one resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// Where: the slot's path (`[3].velocity.y`), or `word[17]` for bytes outside the
    /// reflected scalars.
    pub path: String,
    /// Byte offset in the resource.
    pub offset: u32,
    /// The scalar type, when the place has one.
    pub scalar: Option<Scalar>,
    /// The first voice's bits.
    pub a: u64,
    /// The second voice's bits.
    pub b: u64,
    /// How many scalars (or words) differ in all.
    pub count: usize,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "first difference at {} (byte {}): {} vs {}",
            self.path,
            self.offset,
            show(self.scalar, self.a),
            show(self.scalar, self.b)
        )?;
        if self.count > 1 {
            write!(f, "; {} elements differ", self.count)?;
        }
        Ok(())
    }
}

/// Bits shown in hex, and as the value of their type.
pub fn show(scalar: Option<Scalar>, bits: u64) -> String {
    match scalar {
        Some(Scalar::F32) => format!("{bits:#010x} ({:?})", f32::from_bits(bits as u32)),
        Some(Scalar::F64) => format!("{bits:#018x} ({:?})", f64::from_bits(bits)),
        Some(Scalar::F16) => format!("{bits:#06x} ({:?})", f16_to_f64(bits as u16)),
        Some(Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64) => {
            let size = scalar.map(scalar_size).unwrap_or(4);
            let v = sign_extend(bits, size);
            format!("{bits:#x} ({v})")
        }
        Some(_) => format!("{bits:#x} ({bits})"),
        None => format!("{bits:#010x}"),
    }
}

fn sign_extend(bits: u64, size: u32) -> i64 {
    let shift = 64 - size * 8;
    ((bits << shift) as i64) >> shift
}

/// A half's value (exact in an `f64`).
pub use oneshader::ir::float16::f16_to_f64;

fn read(words: &[u32], offset: u32, size: u32) -> Option<u64> {
    let mut v = 0u64;
    for k in 0..size {
        let at = offset + k;
        let w = *words.get((at / 4) as usize)?;
        let byte = (w >> ((at % 4) * 8)) & 0xff;
        v |= (byte as u64) << (k * 8);
    }
    Some(v)
}

fn is_nan(scalar: Scalar, bits: u64) -> bool {
    match scalar {
        Scalar::F16 => bits & 0x7c00 == 0x7c00 && bits & 0x03ff != 0,
        Scalar::F32 => f32::from_bits(bits as u32).is_nan(),
        Scalar::F64 => f64::from_bits(bits).is_nan(),
        _ => false,
    }
}

/// The distance in ULP between two floats of `scalar` that are not NaNs (+0 and -0 are 0
/// apart).
pub fn ulp_distance(scalar: Scalar, a: u64, b: u64) -> u64 {
    let bits = scalar_size(scalar) * 8;
    let ordered = |x: u64| -> i128 {
        let sign = (x >> (bits - 1)) & 1;
        let mag = (x & ((1u64 << (bits - 1)) - 1)) as i128;
        if sign == 1 { -mag } else { mag }
    };
    (ordered(a) - ordered(b)).unsigned_abs() as u64
}

fn same(scalar: Scalar, a: u64, b: u64, ulp: u32, signless_zero: bool) -> bool {
    if a == b {
        return true;
    }
    match scalar {
        Scalar::F16 | Scalar::F32 | Scalar::F64 => {
            let (na, nb) = (is_nan(scalar, a), is_nan(scalar, b));
            if na || nb {
                return na && nb;
            }
            let sign = 1u64 << (scalar_size(scalar) * 8 - 1);
            if signless_zero && (a | sign) == sign && (b | sign) == sign {
                return true;
            }
            ulp > 0 && ulp_distance(scalar, a, b) <= ulp as u64
        }
        _ => false,
    }
}

/// Compares two voices' words of one resource under `rule`; `slots` says what each byte
/// holds. `None` when they agree.
pub fn compare(a: &[u32], b: &[u32], slots: &[Slot], rule: &Rule) -> Option<Difference> {
    let (ulp, signless_zero) = match rule {
        Rule::Ignore(_) => return None,
        Rule::Unordered { element_words } => return unordered(a, b, (*element_words).max(1)),
        Rule::Exact => (0, false),
        Rule::SignlessZero => (0, true),
        Rule::Ulp(n) => (*n, false),
    };
    if a == b {
        return None;
    }
    let mut first: Option<Difference> = None;
    let mut count = 0;
    // Which words the slots cover entirely (the rest are compared as raw words).
    let mut covered = vec![0u8; a.len().max(b.len()) * 4];
    for s in slots {
        let size = scalar_size(s.scalar);
        for k in 0..size {
            if let Some(c) = covered.get_mut((s.offset + k) as usize) {
                *c = 1;
            }
        }
        if !s.defined {
            continue;
        }
        let (Some(x), Some(y)) = (read(a, s.offset, size), read(b, s.offset, size)) else {
            continue;
        };
        if !same(s.scalar, x, y, ulp, signless_zero) {
            count += 1;
            if first.is_none() {
                first = Some(Difference {
                    path: if s.path.is_empty() {
                        "the value".into()
                    } else {
                        s.path.clone()
                    },
                    offset: s.offset,
                    scalar: Some(s.scalar),
                    a: x,
                    b: y,
                    count: 0,
                });
            }
        }
    }
    let n = a.len().max(b.len());
    for w in 0..n {
        let raw_mask: u32 = (0..4)
            .filter(|k| covered.get(w * 4 + k).copied() == Some(0))
            .map(|k| 0xffu32 << (k * 8))
            .sum();
        if raw_mask == 0 {
            continue;
        }
        let (x, y) = (a.get(w).copied(), b.get(w).copied());
        if x.map(|x| x & raw_mask) != y.map(|y| y & raw_mask) {
            count += 1;
            if first.as_ref().is_none_or(|f| f.offset > (w * 4) as u32) {
                first = Some(Difference {
                    path: format!("word[{w}]"),
                    offset: (w * 4) as u32,
                    scalar: None,
                    a: x.unwrap_or(0) as u64,
                    b: y.unwrap_or(0) as u64,
                    count: 0,
                });
            }
        }
    }
    first.map(|mut d| {
        d.count = count;
        d
    })
}

fn unordered(a: &[u32], b: &[u32], k: usize) -> Option<Difference> {
    let mut x: Vec<&[u32]> = a.chunks(k).collect();
    let mut y: Vec<&[u32]> = b.chunks(k).collect();
    x.sort_unstable();
    y.sort_unstable();
    let count = x.iter().zip(&y).filter(|(p, q)| p != q).count() + x.len().abs_diff(y.len());
    let i = x.iter().zip(&y).position(|(p, q)| p != q)?;
    let w = x[i].iter().zip(y[i]).position(|(p, q)| p != q).unwrap_or(0);
    Some(Difference {
        path: format!("sorted element {i}, word {w}"),
        offset: ((i * k + w) * 4) as u32,
        scalar: None,
        a: x[i].get(w).copied().unwrap_or(0) as u64,
        b: y[i].get(w).copied().unwrap_or(0) as u64,
        count,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32_slots(n: u32) -> Vec<Slot> {
        (0..n)
            .map(|i| Slot {
                offset: i * 4,
                scalar: Scalar::F32,
                path: format!("[{i}]"),
                defined: true,
            })
            .collect()
    }

    #[test]
    fn the_first_differing_float_is_reported_in_hex_and_as_a_float() {
        let a = [1.0f32.to_bits(), 2.0f32.to_bits(), 3.0f32.to_bits()];
        let b = [1.0f32.to_bits(), 2.5f32.to_bits(), 4.0f32.to_bits()];
        let d = compare(&a, &b, &f32_slots(3), &Rule::Exact).expect("they differ");
        assert_eq!((d.path.as_str(), d.offset, d.count), ("[1]", 4, 2));
        assert_eq!(
            d.to_string(),
            "first difference at [1] (byte 4): 0x40000000 (2.0) vs 0x40200000 (2.5); 2 elements differ"
        );
    }

    #[test]
    fn nans_compare_as_a_class_but_not_with_numbers() {
        let slots = f32_slots(1);
        assert_eq!(
            compare(&[0x7fc0_0000], &[0xffc0_0001], &slots, &Rule::Exact),
            None
        );
        assert!(compare(&[0x7fc0_0000], &[0], &slots, &Rule::Exact).is_some());
    }

    #[test]
    fn the_sign_of_zero_counts_unless_the_rule_says_otherwise() {
        let slots = f32_slots(1);
        let (p, n) = ([0u32], [0x8000_0000u32]);
        assert!(compare(&p, &n, &slots, &Rule::Exact).is_some());
        assert_eq!(compare(&p, &n, &slots, &Rule::SignlessZero), None);
        assert!(compare(&[1.0f32.to_bits()], &n, &slots, &Rule::SignlessZero).is_some());
    }

    #[test]
    fn ulp_bounds_apply_to_floats_only() {
        let slots = f32_slots(1);
        let one = 1.0f32.to_bits();
        assert_eq!(compare(&[one], &[one + 2], &slots, &Rule::Ulp(2)), None);
        assert!(compare(&[one], &[one + 3], &slots, &Rule::Ulp(2)).is_some());
        let ints = [Slot {
            offset: 0,
            scalar: Scalar::U32,
            path: String::new(),
            defined: true,
        }];
        assert!(compare(&[5], &[6], &ints, &Rule::Ulp(2)).is_some());
    }

    #[test]
    fn padding_is_compared_as_words_and_unordered_lists_as_multisets() {
        // One float slot at byte 0; word 1 is padding.
        let slots = f32_slots(1);
        let d = compare(&[0, 7], &[0, 8], &slots, &Rule::Exact).expect("padding differs");
        assert_eq!(d.path, "word[1]");
        let rule = Rule::Unordered { element_words: 1 };
        assert_eq!(compare(&[3, 1, 2], &[1, 2, 3], &[], &rule), None);
        assert!(compare(&[3, 1, 2], &[1, 2, 2], &[], &rule).is_some());
    }

    #[test]
    fn channels_a_shader_cannot_define_are_not_compared() {
        // `RWTexture2D<float3>` on an rgba32f image: the fourth channel is the API's.
        let slots = crate::layout::texel_slots(oneshader_vulkan_harness::Format::Rgba32Float, 1, 3);
        let one = 1.0f32.to_bits();
        assert_eq!(
            compare(
                &[one, one, one, 7],
                &[one, one, one, 0],
                &slots,
                &Rule::Exact
            ),
            None
        );
        let d = compare(&[one, one, 0, 7], &[one, one, one, 0], &slots, &Rule::Exact)
            .expect("blue differs");
        assert_eq!(d.path, "texel[0].b");
    }
}
