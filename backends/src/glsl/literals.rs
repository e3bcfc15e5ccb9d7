//! Constants as GLSL literals, with the exact bits of the IR constant.
//!
//! glslang reads a float literal as a double, rounds it to the literal's type where the
//! value is used, but folds constant expressions in double before rounding the result: the
//! `float` product of `1657711.6 * 116.75` differs from the product of the two `float`s. So
//! a literal whose consumer glslang folds (every operand of an operation is constant, or a
//! module-level `const`) spells the IR value exactly as a double: Rust's shortest form of
//! the value as an `f64` (`0.10000000149011612`). Elsewhere a float is printed in Rust's
//! shortest round-trip form (`0.1`), which glslang's double-then-float reading turns into
//! the same bits. Values no literal can spell keep their bits through a conversion function:
//! infinities and NaNs as `uintBitsToFloat(0x7fc00000u)` (`packDouble2x32` for doubles,
//! `unpackFloat2x16` for halves), `INT_MIN` as `(-2147483647 - 1)`. `undef` prints as zero.

use oneshader_ir::float16::f16_to_f64;
use oneshader_ir::{InstId, Op};

use super::error::{R, malformed};
use super::expr::{E, Prec};
use super::module::ModuleCx;

/// The literal of an `f32` with these bits (finite values only): the value exactly as a
/// double when `exact`, else the shortest decimal whose double rounds to it.
fn f32_text(bits: u32, exact: bool) -> String {
    let x = f32::from_bits(bits);
    let short = format!("{x:?}");
    let survives = short.parse::<f64>().is_ok_and(|d| {
        if exact {
            d.to_bits() == (x as f64).to_bits()
        } else {
            (d as f32).to_bits() == bits
        }
    });
    let s = if survives {
        short
    } else {
        format!("{:?}", x as f64)
    };
    with_point(s)
}

/// Makes sure a float literal has a decimal point or an exponent (`1` would be an int).
fn with_point(s: String) -> String {
    if s.contains(['.', 'e', 'E']) {
        s
    } else {
        format!("{s}.0")
    }
}

/// A literal that needs a leading minus gets unary precedence.
fn signed(text: String) -> E {
    if text.starts_with('-') {
        E::new(text, Prec::Unary)
    } else {
        E::primary(text)
    }
}

impl ModuleCx<'_> {
    /// A scalar constant of IR scalar type `ty` with the given bits.
    pub(crate) fn scalar_literal(&mut self, ty: InstId, bits: u64) -> R<E> {
        let m = self.m;
        let op = m.op(ty);
        self.need_scalar(op);
        Ok(match op {
            Op::Bool => E::primary(if bits != 0 { "true" } else { "false" }),
            Op::I32 => {
                let v = bits as u32 as i32;
                if v == i32::MIN {
                    E::new("(-2147483647 - 1)", Prec::Primary)
                } else {
                    signed(v.to_string())
                }
            }
            Op::U32 => E::primary(format!("{}u", bits as u32)),
            Op::I64 => {
                let v = bits as i64;
                if v == i64::MIN {
                    E::new("(-9223372036854775807l - 1l)", Prec::Primary)
                } else {
                    signed(format!("{v}l"))
                }
            }
            Op::U64 => E::primary(format!("{bits}ul")),
            Op::I16 => E::primary(format!("int16_t({})", bits as u16 as i16)),
            Op::U16 => E::primary(format!("uint16_t({}u)", bits as u16)),
            Op::I8 => E::primary(format!("int8_t({})", bits as u8 as i8)),
            Op::U8 => E::primary(format!("uint8_t({}u)", bits as u8)),
            Op::F32 => {
                let b = bits as u32;
                if f32::from_bits(b).is_finite() {
                    signed(f32_text(b, self.exact_floats))
                } else {
                    E::primary(format!("uintBitsToFloat(0x{b:08x}u)"))
                }
            }
            Op::F64 => {
                let x = f64::from_bits(bits);
                if x.is_finite() {
                    signed(format!("{}lf", with_point(format!("{x:?}"))))
                } else {
                    E::primary(format!(
                        "packDouble2x32(uvec2(0x{:08x}u, 0x{:08x}u))",
                        bits as u32,
                        (bits >> 32) as u32
                    ))
                }
            }
            Op::F16 => {
                let h = bits as u16;
                let x = f16_to_f64(h);
                if (h >> 10) & 0x1f != 0x1f {
                    signed(format!("{}hf", with_point(format!("{x:?}"))))
                } else {
                    E::primary(format!("unpackFloat2x16(0x{h:04x}u).x"))
                }
            }
            _ => return Err(malformed("a scalar constant of a non-scalar type")),
        })
    }

    /// The zero value of a type (also what `undef` prints as).
    pub(crate) fn zero_of(&mut self, ty: InstId) -> R<E> {
        let m = self.m;
        let op = m
            .try_op(ty)
            .ok_or_else(|| malformed("a constant has no type"))?;
        if op.is_scalar_type() {
            return self.scalar_literal(ty, 0);
        }
        match op {
            Op::Vector | Op::Matrix => {
                let s = m
                    .scalar_of(ty)
                    .ok_or_else(|| malformed("a vector without a component type"))?;
                let z = self.scalar_literal(s, 0)?;
                let name = self.type_name(ty)?;
                Ok(E::primary(format!("{name}({})", z.text)))
            }
            Op::Array => {
                let n = m.array_len(ty).unwrap_or(0);
                let e = self.zero_of(m.operand(ty, 0))?;
                let name = self.type_name(ty)?;
                let parts = vec![e.text; n as usize];
                Ok(E::primary(format!("{name}({})", parts.join(", "))))
            }
            Op::Struct => {
                let mut parts = Vec::new();
                for f in m.struct_fields(ty) {
                    let ft = m.ty(f).ok_or_else(|| malformed("an untyped field"))?;
                    parts.push(self.zero_of(ft)?.text);
                }
                if parts.is_empty() {
                    // The placeholder member of a struct without fields.
                    parts.push("0".into());
                }
                let name = self.type_name(ty)?;
                Ok(E::primary(format!("{name}({})", parts.join(", "))))
            }
            _ => Err(super::error::GlslError::new(
                super::error::TYPE,
                format!(
                    "a constant of type `{}` has no GLSL value",
                    oneshader_ir::print::print_inst(m, ty)
                ),
            )),
        }
    }

    /// An IR constant (`const_*`, `composite`, `zero`, `undef`) or spec constant as an
    /// expression.
    pub(crate) fn constant(&mut self, c: InstId) -> R<E> {
        let m = self.m;
        let ty = m.ty(c).ok_or_else(|| malformed("a constant has no type"))?;
        match m.op(c) {
            Op::ConstBool | Op::ConstInt | Op::ConstFloat => {
                self.scalar_literal(ty, m.literal_bits(c).unwrap_or(0))
            }
            Op::Zero | Op::Undef => self.zero_of(ty),
            Op::Composite => {
                let mut parts = Vec::new();
                for e in m.operands(c) {
                    parts.push(self.constant(e)?.text);
                }
                if parts.is_empty() && m.op(ty) == Op::Struct {
                    parts.push("0".into());
                }
                // A vector of one repeated component is a splat.
                if m.op(ty) == Op::Vector && parts.windows(2).all(|w| w[0] == w[1]) {
                    parts.truncate(1);
                }
                let name = self.type_name(ty)?;
                Ok(E::primary(format!("{name}({})", parts.join(", "))))
            }
            Op::SpecConst => Ok(E::primary(self.spec_const_name(c)?)),
            Op::ConstString => Err(super::error::GlslError::new(
                super::error::TYPE,
                "a string constant is used as a value; GLSL has no string values",
            )),
            _ => Err(malformed("not a constant")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_literals_round_to_the_value_or_are_it_exactly() {
        for bits in [
            0x3f80_0000u32,
            0x3dcc_cccd,
            0x0000_0001,
            0x7f7f_ffff,
            0x3eaa_aaab,
            0x8000_0000,
            0x3400_0000,
        ] {
            let s = f32_text(bits, true);
            let back = s.parse::<f64>().expect("a number");
            assert_eq!(back, f32::from_bits(bits) as f64, "{s}");
            assert!(s.contains(['.', 'e']), "{s}");
            let s = f32_text(bits, false);
            let back = s.parse::<f64>().expect("a number") as f32;
            assert_eq!(back.to_bits(), bits, "{s}");
            assert!(s.contains(['.', 'e']), "{s}");
        }
        assert_eq!(f32_text(0x3f80_0000, true), "1.0");
        assert_eq!(f32_text(0x3dcc_cccd, false), "0.1");
        assert_eq!(f32_text(0x3dcc_cccd, true), "0.10000000149011612");
        // Found by the random programs: glslang folded `1657711.6 * 116.75` in double.
        assert_eq!(f32_text(1_657_711.6f32.to_bits(), true), "1657711.625");
        assert_eq!(f32_text(33.75f32.to_bits(), true), "33.75");
        assert_eq!(f16_to_f64(0x3c00), 1.0);
        assert_eq!(f16_to_f64(0x0001), 2f64.powi(-24));
        assert_eq!(f16_to_f64(0xc000), -2.0);
    }
}
