//! IEEE half precision (`f16`) to and from `f64`: the one conversion every crate uses (the
//! folder and the interpreter, the front end's literals, the text parser, the GLSL backend's
//! literals, reflection, the oracle).

/// The exact value of `f16` bits. NaN payloads are kept (shifted into the `f64` mantissa).
pub fn f16_to_f64(bits: u16) -> f64 {
    let sign = (bits >> 15) as u64;
    let exp = ((bits >> 10) & 0x1f) as i32;
    let mant = (bits & 0x3ff) as u64;
    let magnitude = if exp == 0x1f {
        if mant == 0 {
            f64::INFINITY
        } else {
            f64::from_bits((0x7ffu64 << 52) | (mant << 42))
        }
    } else if exp == 0 {
        // Subnormal (or zero): mant * 2^-24, exact in f64.
        mant as f64 * f64::from_bits((1023u64 - 24) << 52)
    } else {
        f64::from_bits((((exp - 15 + 1023) as u64) << 52) | (mant << 42))
    };
    f64::from_bits(magnitude.to_bits() | (sign << 63))
}

/// Rounds an `f64` to the nearest `f16` (ties to even). A NaN keeps its sign and the top of its
/// payload and becomes quiet.
pub fn f64_to_f16(x: f64) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 63) as u16) << 15;
    let exp = ((b >> 52) & 0x7ff) as i64;
    let mant = b & ((1u64 << 52) - 1);
    if exp == 0x7ff {
        if mant == 0 {
            return sign | 0x7c00;
        }
        return sign | 0x7c00 | 0x200 | ((mant >> 42) as u16 & 0x3ff);
    }
    if exp == 0 {
        // f64 zeros and subnormals are far below half the smallest f16 subnormal.
        return sign;
    }
    let e = exp - 1023;
    let sig = mant | (1u64 << 52);
    let (mut out, rem, half) = if e >= -14 {
        if e > 15 {
            return sign | 0x7c00;
        }
        let field = (((e + 15) as u64) << 10) | ((sig >> 42) & 0x3ff);
        (field, sig & ((1u64 << 42) - 1), 1u64 << 41)
    } else {
        // Subnormal result: units of 2^-24; value = sig * 2^(e - 52).
        let shift = (28 - e) as u32;
        if shift >= 64 {
            return sign;
        }
        (
            sig >> shift,
            sig & ((1u64 << shift) - 1),
            1u64 << (shift - 1),
        )
    };
    if rem > half || (rem == half && out & 1 == 1) {
        out += 1;
    }
    if out >= 0x7c00 {
        return sign | 0x7c00;
    }
    sign | out as u16
}

/// The `f16` bits of `x` when `x` is exactly an `f16` value (a finite one); `None` when it
/// would round.
pub fn f16_exact(x: f64) -> Option<u16> {
    if !x.is_finite() {
        return None;
    }
    let h = f64_to_f16(x);
    (f16_to_f64(h) == x && (h & 0x7c00) != 0x7c00).then_some(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_values_and_rounding() {
        assert_eq!(f16_to_f64(0x3c00), 1.0);
        assert_eq!(f16_to_f64(0xc000), -2.0);
        assert_eq!(f16_to_f64(0x0001), 2f64.powi(-24));
        assert_eq!(f16_to_f64(0x7c00), f64::INFINITY);
        assert!(f16_to_f64(0x7e00).is_nan());
        assert_eq!(f64_to_f16(65504.0), 0x7bff);
        assert_eq!(f64_to_f16(65520.0), 0x7c00, "rounds up to infinity");
        // 1 + 2^-11 is halfway between 1 and the next half: ties to even.
        assert_eq!(f64_to_f16(1.0 + 2f64.powi(-11)), 0x3c00);
        assert_eq!(f64_to_f16(1.0 + 3.0 * 2f64.powi(-11)), 0x3c02);
        // Just above the halfway point rounds up, which a detour through f32 would not see.
        assert_eq!(f64_to_f16(1.0 + 2f64.powi(-11) + 2f64.powi(-40)), 0x3c01);
        assert_eq!(f16_exact(0.5), Some(0x3800));
        assert_eq!(f16_exact(-0.0), Some(0x8000));
        assert_eq!(f16_exact(0.1), None);
        assert_eq!(f16_exact(3.0 * 2f64.powi(-24)), Some(0x0003));
        assert_eq!(f16_exact(f64::INFINITY), None);
    }
}
