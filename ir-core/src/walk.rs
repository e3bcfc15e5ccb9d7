//! Walking every instruction of a module, and matching the shapes tools look for most: a
//! binary operation, a scalar constant's value.
//!
//! ```
//! use oneshader_ir::{Op, parse::parse, walk::ConstScalar};
//!
//! let m = parse(
//!     "func @f(%0: f32) -> f32 {\nbb0:\n  %1 = mul %0, f32 2.0 : f32\n  return %1\n}\n",
//! )?;
//! // Every multiplication by a constant, wherever it is (generics' bodies included).
//! let found: Vec<f64> = m
//!     .walk()
//!     .filter_map(|i| m.as_binary(i))
//!     .filter(|&(op, _, _)| op == Op::Mul)
//!     .filter_map(|(_, _, rhs)| match m.const_scalar(rhs) {
//!         Some(ConstScalar::Float(x)) => Some(x),
//!         _ => None,
//!     })
//!     .collect();
//! assert_eq!(found, [2.0]);
//! # Ok::<(), oneshader_ir::Errors>(())
//! ```

use crate::module::{InstId, Module};
use crate::ops::{Family, Kind, Op, Rest, TypeRule};

/// The value of a scalar constant ([`Module::const_scalar`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConstScalar {
    /// A `bool`.
    Bool(bool),
    /// An integer, sign-extended when its type is signed.
    Int(i128),
    /// A float of any width, exactly as an `f64`.
    Float(f64),
}

impl Op {
    /// True for the binary operations on values: arithmetic, bitwise operations, shifts and
    /// comparisons (two value operands, the result typed like the first or `bool` of its
    /// shape), read off the instruction table.
    pub fn is_binary(self) -> bool {
        let info = self.info();
        info.family == Family::Instruction
            && info.operands == [Kind::Value, Kind::Value]
            && matches!(info.rest, Rest::None)
            && matches!(info.ty, TypeRule::SameAs(0) | TypeRule::BoolOf(0))
    }
}

impl Module {
    /// Every instruction of the module in tree order, parents before children: types,
    /// constants, globals, functions with their blocks and instructions, generics with their
    /// bodies, decorations. The ids are collected first, so the module may be read (not
    /// changed) while walking.
    pub fn walk(&self) -> impl Iterator<Item = InstId> + '_ {
        self.subtree(self.root()).into_iter()
    }

    /// `(op, lhs, rhs)` when `id` is a binary operation ([`Op::is_binary`]).
    pub fn as_binary(&self, id: InstId) -> Option<(Op, InstId, InstId)> {
        let op = self.try_op(id)?;
        op.is_binary()
            .then(|| (op, self.operand(id, 0), self.operand(id, 1)))
    }

    /// The value of a scalar constant (`bool`, integer or float of any width), or `None` for
    /// anything else (vectors and composites included).
    pub fn const_scalar(&self, id: InstId) -> Option<ConstScalar> {
        match self.try_op(id)? {
            Op::ConstBool => Some(ConstScalar::Bool(self.literal_bits(id)? != 0)),
            Op::ConstInt => Some(ConstScalar::Int(self.const_int_value(id)?)),
            Op::ConstFloat => {
                let bits = self.literal_bits(id)?;
                let width = self.scalar_bits(self.ty(id)?)?;
                Some(ConstScalar::Float(match width {
                    16 => crate::float16::f16_to_f64(bits as u16),
                    32 => f64::from(f32::from_bits(bits as u32)),
                    _ => f64::from_bits(bits),
                }))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_ops_are_the_arithmetic_bitwise_and_comparisons() {
        for op in [
            Op::Add,
            Op::Sub,
            Op::Mul,
            Op::Div,
            Op::Rem,
            Op::Shl,
            Op::Xor,
            Op::Lt,
            Op::Ne,
        ] {
            assert!(op.is_binary(), "{op:?}");
        }
        for op in [
            Op::Neg,
            Op::Store,
            Op::Load,
            Op::Select,
            Op::ElementAddr,
            Op::ConstInt,
        ] {
            assert!(!op.is_binary(), "{op:?}");
        }
    }

    #[test]
    fn walk_reaches_generic_bodies_and_constants_read_back() {
        let m = crate::parse::parse(
            "generic @g<%0.T: type> {\n  func @sq(%0) -> %0\n  return @sq\n}\n\
             func @f(%0: i32) -> i32 {\nbb0:\n  %1 = add %0, i32 -3 : i32\n  return %1\n}\n",
        )
        .expect("parses");
        let funcs = m.walk().filter(|&i| m.op(i) == Op::Func).count();
        assert_eq!(funcs, 2, "the generic's function is walked too");
        let (_, _, rhs) = m.walk().find_map(|i| m.as_binary(i)).expect("an add");
        assert_eq!(m.const_scalar(rhs), Some(ConstScalar::Int(-3)));
        let h = {
            let mut m2 = Module::new();
            let t = m2.scalar_type(Op::F16);
            let c = m2.const_float_bits(t, 0x3c00);
            m2.const_scalar(c)
        };
        assert_eq!(h, Some(ConstScalar::Float(1.0)));
    }
}
