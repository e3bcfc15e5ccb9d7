//! Constants: IR constants are interned, so each becomes one SPIR-V constant, emitted when first
//! used. Scalar constants the backend needs itself (access-chain indices, scopes, shift masks)
//! share one table keyed by (SPIR-V type, bits), so no constant is declared twice.
//!
//! Literal words follow the specification: 64-bit values take two words, low word first; values
//! narrower than 32 bits sit in the low bits, sign-extended for signed integer types.

use oneshader_ir::{InstId, Op};
use rspirv::spirv::{self, Decoration};
use smallvec::SmallVec;

use super::encode::inst;
use super::error::{EmitError, MALFORMED, R, UNSPECIALIZED, UNSUPPORTED_TYPE};
use super::module::Emitter;

impl Emitter<'_> {
    /// An `OpConstant` of the SPIR-V scalar type `ty` (described by `width` and `signed`) with
    /// the given bits.
    fn scalar_const(&mut self, ty: u32, width: u32, signed: bool, bits: u64) -> u32 {
        if let Some(&id) = self.consts.get(&(ty, bits)) {
            return id;
        }
        let id = self.fresh();
        if width == 64 {
            inst(
                &mut self.s.globals,
                spirv::Op::Constant,
                &[ty, id, bits as u32, (bits >> 32) as u32],
            );
        } else {
            let mut w = bits as u32;
            if signed && width < 32 {
                let shift = 32 - width;
                w = (((w << shift) as i32) >> shift) as u32;
            }
            inst(&mut self.s.globals, spirv::Op::Constant, &[ty, id, w]);
        }
        self.consts.insert((ty, bits), id);
        id
    }

    /// A 32-bit constant of SPIR-V type `ty` (an unsigned or float 32-bit type).
    pub fn const_bits(&mut self, ty: u32, bits: u64) -> u32 {
        self.scalar_const(ty, 32, false, bits)
    }

    /// A `u32` constant.
    pub fn const_u32(&mut self, v: u32) -> u32 {
        let t = self.u32_ty();
        self.const_bits(t, v as u64)
    }

    /// An `f32` constant.
    pub fn const_f32(&mut self, v: f32) -> u32 {
        let t = self.float_ty(32);
        self.const_bits(t, v.to_bits() as u64)
    }

    /// `true` or `false`.
    pub fn const_bool(&mut self, v: bool) -> u32 {
        let t = self.bool_ty();
        if let Some(&id) = self.consts.get(&(t, v as u64)) {
            return id;
        }
        let id = self.fresh();
        let op = if v {
            spirv::Op::ConstantTrue
        } else {
            spirv::Op::ConstantFalse
        };
        inst(&mut self.s.globals, op, &[t, id]);
        self.consts.insert((t, v as u64), id);
        id
    }

    /// A constant of the IR scalar or vector type `ty` whose every component has the value
    /// `v` (converted to the component type: integers as two's complement, floats exactly).
    pub fn splat_const(&mut self, ty: InstId, v: i64) -> R<u32> {
        let m = self.m;
        let scalar = m.scalar_of(ty).ok_or_else(|| {
            EmitError::new(
                MALFORMED,
                format!(
                    "expected a scalar or vector type, found `{}`",
                    oneshader_ir::print::print_inst(m, ty)
                ),
            )
        })?;
        let sop = m.op(scalar);
        let width = m.scalar_bits(scalar).unwrap_or(32);
        let sty = self.ty(scalar)?;
        let c = if sop == Op::Bool {
            self.const_bool(v != 0)
        } else if sop.is_float_type() {
            let bits = match width {
                16 => half_bits(v as f32) as u64,
                64 => (v as f64).to_bits(),
                _ => (v as f32).to_bits() as u64,
            };
            self.scalar_const(sty, width, false, bits)
        } else {
            let bits = oneshader_ir::types::truncate(v as u64, width);
            self.scalar_const(sty, width, sop.is_signed_int_type(), bits)
        };
        let n = m.vector_len(ty).unwrap_or(1);
        if n <= 1 {
            return Ok(c);
        }
        let vty = self.ty(ty)?;
        // Key splats by the vector type and the scalar constant's id.
        if let Some(&id) = self.consts.get(&(vty, c as u64)) {
            return Ok(id);
        }
        let id = self.fresh();
        let mut w: SmallVec<[u32; 6]> = SmallVec::new();
        w.push(vty);
        w.push(id);
        for _ in 0..n {
            w.push(c);
        }
        inst(&mut self.s.globals, spirv::Op::ConstantComposite, &w);
        self.consts.insert((vty, c as u64), id);
        Ok(id)
    }

    /// The id of an operand value: a constant (emitted on first use), a global, a function, or
    /// an instruction result or parameter (allocated on first reference, so forward references
    /// from phis work).
    #[inline]
    pub fn val(&mut self, v: InstId) -> R<u32> {
        if let Some(&id) = self.ids.get(v) {
            return Ok(id);
        }
        self.val_slow(v)
    }

    fn val_slow(&mut self, v: InstId) -> R<u32> {
        let m = self.m;
        match m.try_op(v) {
            None => Err(EmitError::new(
                MALFORMED,
                "an operand refers to a removed instruction",
            )),
            Some(op) if op.is_constant() || op == Op::SpecConst => self.constant(v),
            Some(Op::Specialize) => Err(EmitError::new(
                UNSPECIALIZED,
                format!(
                    "`{}` is a generic left unspecialized; run the legalization pipeline (generic specialization) before emitting SPIR-V",
                    oneshader_ir::print::print_inst(m, v)
                ),
            )),
            Some(op)
                if op.is_instruction()
                    || op == Op::Param
                    || op == Op::Global
                    || op == Op::Func
                    || op == Op::Block =>
            {
                Ok(self.id_of(v))
            }
            Some(op) => Err(EmitError::new(
                MALFORMED,
                format!("an operand is a `{}`, not a value", op.spelling()),
            )),
        }
    }

    /// Emits an IR constant.
    fn constant(&mut self, c: InstId) -> R<u32> {
        let m = self.m;
        let op = m.op(c);
        let ty_ir = m
            .ty(c)
            .ok_or_else(|| EmitError::new(MALFORMED, "a constant has no type"))?;
        if op == Op::ConstString {
            return Err(EmitError::new(
                UNSUPPORTED_TYPE,
                "a string constant is used as a value; SPIR-V has no string values",
            ));
        }
        let ty = self.ty(ty_ir)?;
        let id = match op {
            Op::ConstBool => {
                let b = m.literal_bits(c).unwrap_or(0) != 0;
                self.const_bool(b)
            }
            Op::ConstInt | Op::ConstFloat => {
                let bits = m.literal_bits(c).unwrap_or(0);
                let width = m.scalar_bits(ty_ir).unwrap_or(32);
                let signed = m.op(ty_ir).is_signed_int_type();
                self.scalar_const(ty, width, signed, bits)
            }
            Op::Composite => {
                let n = m.num_operands(c);
                if n + 3 > super::encode::MAX_WORDS {
                    return Err(too_many_elements(m, ty_ir, n, "a constant"));
                }
                let mut w: SmallVec<[u32; 8]> = SmallVec::new();
                w.push(ty);
                w.push(0);
                let mut spec = false;
                for e in m.operands(c) {
                    spec |= self.is_spec(e);
                    w.push(self.val(e)?);
                }
                let id = self.fresh();
                w[1] = id;
                let op = if spec {
                    spirv::Op::SpecConstantComposite
                } else {
                    spirv::Op::ConstantComposite
                };
                inst(&mut self.s.globals, op, &w);
                id
            }
            Op::Zero => {
                let id = self.fresh();
                inst(&mut self.s.globals, spirv::Op::ConstantNull, &[ty, id]);
                id
            }
            Op::Undef => {
                let id = self.fresh();
                inst(&mut self.s.globals, spirv::Op::Undef, &[ty, id]);
                id
            }
            Op::SpecConst => {
                let spec_id = m.imm_operand(c, 0).unwrap_or(0);
                let default = m.operand(c, 1);
                let id = self.fresh();
                let bits = m.literal_bits(default).unwrap_or(0);
                match m.op(ty_ir) {
                    Op::Bool => {
                        let op = if bits != 0 {
                            spirv::Op::SpecConstantTrue
                        } else {
                            spirv::Op::SpecConstantFalse
                        };
                        inst(&mut self.s.globals, op, &[ty, id]);
                    }
                    _ => {
                        let width = m.scalar_bits(ty_ir).unwrap_or(32);
                        if width == 64 {
                            inst(
                                &mut self.s.globals,
                                spirv::Op::SpecConstant,
                                &[ty, id, bits as u32, (bits >> 32) as u32],
                            );
                        } else {
                            let mut w = bits as u32;
                            if m.op(ty_ir).is_signed_int_type() && width < 32 {
                                let shift = 32 - width;
                                w = (((w << shift) as i32) >> shift) as u32;
                            }
                            inst(&mut self.s.globals, spirv::Op::SpecConstant, &[ty, id, w]);
                        }
                    }
                }
                self.decorate(id, Decoration::SpecId, &[spec_id]);
                self.name(id, m.name(c));
                id
            }
            _ => return Err(EmitError::new(MALFORMED, "not a constant")),
        };
        self.ids.insert(c, id);
        Ok(id)
    }

    fn is_spec(&self, c: InstId) -> bool {
        let m = self.m;
        match m.try_op(c) {
            Some(Op::SpecConst) => true,
            Some(Op::Composite) => m.operands(c).any(|e| self.is_spec(e)),
            _ => false,
        }
    }
}

/// The diagnostic for a composite (`what`: "a constant", "`construct`") of type `ty` with `n`
/// elements, more than one SPIR-V instruction can list. SPIR-V has no way to build such a
/// value from parts when the type is one flat array, so it is refused (glslang and DXC fail
/// on it too); an array of arrays is fine, each level being its own instruction.
pub(crate) fn too_many_elements(
    m: &oneshader_ir::Module,
    ty: InstId,
    n: usize,
    what: &str,
) -> EmitError {
    EmitError::new(
        super::error::TOO_LARGE,
        format!(
            "{what} of type `{}` lists {n} elements; one SPIR-V instruction holds at most {} (its word count is 16 bits)",
            oneshader_ir::print::print_inst(m, ty),
            super::encode::MAX_WORDS - 3
        ),
    )
    .note("split the array into an array of smaller arrays, or fill it in a loop")
}

/// The IEEE half-precision bits of `v` (rounded to nearest even), for constants the backend
/// makes itself.
fn half_bits(v: f32) -> u16 {
    let b = v.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        return sign;
    }
    let mut h = ((e as u32) << 10) | (man >> 13);
    let rest = man & 0x1fff;
    if rest > 0x1000 || (rest == 0x1000 && h & 1 == 1) {
        h += 1;
    }
    sign | h as u16
}

#[cfg(test)]
mod tests {
    #[test]
    fn half_bits_of_small_integers() {
        assert_eq!(super::half_bits(1.0), 0x3c00);
        assert_eq!(super::half_bits(0.0), 0);
        assert_eq!(super::half_bits(-2.0), 0xc000);
        assert_eq!(super::half_bits(65536.0), 0x7c00);
    }
}
