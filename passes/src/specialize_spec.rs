//! Spec-constant specialization: overrides replace chosen `spec_const`s by real constants.
//!
//! `spec_const(id, default)` is not a constant: no pass folds it, because a host may set its
//! value when creating the pipeline. When the value is known at compile time, this pass is
//! given overrides (`id -> value`); every `spec_const` with an overridden id is replaced, in
//! every use, by a literal constant of its type (composites that contain it are re-interned by
//! the replacement cascade), and removed. Spec constants without an override stay; folding
//! may run afterwards.
//!
//! A value is given as [`SpecValue`]: `Bool`, `Int` (checked against the type's range),
//! `Float` (for `f32` and `f64`; it must be exactly representable in `f32` for an `f32`
//! constant), or raw `Bits` (truncated to the type's width; the way to give an `f16`).

use rustc_hash::FxHashMap;

use oneshader_ir::{InstId, Module, Op};

use crate::{Pass, PassError};

/// A value for a specialization constant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SpecValue {
    /// For a `bool` spec constant.
    Bool(bool),
    /// For an integer spec constant; must fit the type (signed or unsigned range).
    Int(i128),
    /// For an `f32` or `f64` spec constant; must be exact in the type.
    Float(f64),
    /// Exact bits for any scalar type (truncated to its width).
    Bits(u64),
}

/// The spec-constant specialization pass (`specialize_spec`).
#[derive(Clone, Debug, Default)]
pub struct SpecializeSpecConstants {
    overrides: FxHashMap<u32, SpecValue>,
}

impl SpecializeSpecConstants {
    /// A pass with the given overrides.
    pub fn new(overrides: impl IntoIterator<Item = (u32, SpecValue)>) -> Self {
        SpecializeSpecConstants {
            overrides: overrides.into_iter().collect(),
        }
    }

    /// Adds (or replaces) the override of spec constant `id`.
    pub fn set(&mut self, id: u32, value: SpecValue) -> &mut Self {
        self.overrides.insert(id, value);
        self
    }

    /// The overrides.
    pub fn overrides(&self) -> &FxHashMap<u32, SpecValue> {
        &self.overrides
    }
}

const NAME: &str = "specialize_spec";

/// The literal constant of type `ty` for `value`.
fn literal(m: &mut Module, id: u32, ty: InstId, value: SpecValue) -> Result<InstId, PassError> {
    let op = m.op(ty);
    let bits = m.scalar_bits(ty).unwrap_or(64);
    let err = |what: &str| {
        PassError::new(
            NAME,
            format!(
                "spec constant {id} of type `{}`: {what}",
                oneshader_ir::print::print_inst(m, ty)
            ),
        )
    };
    match (op, value) {
        (Op::Bool, SpecValue::Bool(b)) => Ok(m.const_bool(b)),
        (Op::Bool, SpecValue::Bits(b)) => Ok(m.const_bool(b != 0)),
        (o, SpecValue::Int(v)) if o.is_int_type() => {
            let (lo, hi) = if o.is_signed_int_type() {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            } else {
                (0, (1i128 << bits) - 1)
            };
            if v < lo || v > hi {
                return Err(err(&format!("{v} is out of range")));
            }
            Ok(m.const_int(ty, v as u64))
        }
        (o, SpecValue::Bits(b)) if o.is_int_type() => Ok(m.const_int(ty, b)),
        (Op::F32, SpecValue::Float(v)) => {
            let f = v as f32;
            if (f as f64).to_bits() != v.to_bits() && !(v.is_nan() && f.is_nan()) {
                return Err(err(&format!("{v} is not exact as an f32")));
            }
            Ok(m.const_float_bits(ty, f.to_bits() as u64))
        }
        (Op::F64, SpecValue::Float(v)) => Ok(m.const_float_bits(ty, v.to_bits())),
        (o, SpecValue::Bits(b)) if o.is_float_type() => Ok(m.const_float_bits(ty, b)),
        _ => Err(err(&format!(
            "the override {value:?} does not fit this type"
        ))),
    }
}

impl Pass for SpecializeSpecConstants {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        if self.overrides.is_empty() {
            return Ok(false);
        }
        // Spec constants only have immediate and constant operands, so they live at module
        // level; collect them first (replacing changes the module's child list).
        let specs: Vec<InstId> = m
            .children(m.root())
            .filter(|&c| m.op(c) == Op::SpecConst)
            .collect();
        let mut changed = false;
        for s in specs {
            let s = m.resolve(s);
            if !m.contains(s) || m.op(s) != Op::SpecConst {
                continue;
            }
            let Some(id) = m.imm_operand(s, 0) else {
                continue;
            };
            let Some(&value) = self.overrides.get(&id) else {
                continue;
            };
            let Some(ty) = m.ty(s) else { continue };
            let c = literal(m, id, ty, value)?;
            // The literal keeps no name: it is shared by every use of that value.
            m.replace_uses_with(s, c);
            if m.contains(s) && !m.has_uses(s) {
                // Nothing refers to it any more.
                let _ = m.remove(s);
            }
            changed = true;
        }
        Ok(changed)
    }
}
