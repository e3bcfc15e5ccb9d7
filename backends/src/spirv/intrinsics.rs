//! Intrinsics: math through the `GLSL.std.450` extended instruction set (imported on first
//! use), the rest through core instructions (`OpDot`, `OpDPdx`, `OpIsNan`, `OpBitCount`...) and
//! the wave operations through `OpGroupNonUniform*` (SPIR-V 1.3, i.e. vulkan1.1 and later).
//!
//! HLSL's meanings are kept where they differ from GLSL's: `sign` of a float returns an
//! integer (`FSign` then a conversion), `round` rounds half to even (`RoundEven`), `fmod` keeps
//! the dividend's sign (`OpFRem`), `saturate` is `FClamp(x, 0, 1)`, `lerp` is `FMix`, `mad`
//! on floats is `Fma` (HLSL allows fusing), `log10` is `log2(x) * log10(2)`, `rcp` is `1 / x`,
//! `f32tof16`/`f16tof32` go through `PackHalf2x16`/`UnpackHalf2x16` per component.

use oneshader_ir::{InstId, Intrinsic, Op, ScalarKind};
use rspirv::spirv::{self, Capability, Decoration, GlslStd450Op as GLOp};
use smallvec::SmallVec;

use super::encode::{inst, inst_str};
use super::error::{EmitError, INTERPOLANT, MALFORMED, OPERANDS, R, TARGET};
use super::module::Emitter;

type Words = SmallVec<[u32; 8]>;

const SCOPE_SUBGROUP: u32 = 3;
const GROUP_REDUCE: u32 = 0;
const GROUP_EXCLUSIVE_SCAN: u32 = 2;

impl Emitter<'_> {
    /// `OpExtInst ty id GLSL.std.450 op args`.
    fn glsl(&mut self, ty: u32, id: u32, op: GLOp, args: &[u32]) {
        let set = self.glsl_import();
        let mut w: Words = SmallVec::new();
        w.extend_from_slice(&[ty, id, set, op as u32]);
        w.extend_from_slice(args);
        inst(&mut self.f.body, spirv::Op::ExtInst, &w);
    }

    fn group_caps(&mut self, name: &str, cap: Capability) -> R<()> {
        if self.minor < 3 {
            return Err(EmitError::new(
                TARGET,
                format!(
                    "`{name}` needs subgroup operations (SPIR-V 1.3); target vulkan1.1 or later"
                ),
            ));
        }
        self.caps.add(Capability::GroupNonUniform);
        self.caps.add(cap);
        Ok(())
    }

    /// Emits `call_intrinsic`.
    pub(crate) fn intrinsic(&mut self, i: InstId) -> R<()> {
        use GLOp as G;
        use ScalarKind::*;
        use spirv::Op as S;
        let m = self.m;
        let which = m
            .imm_operand(i, 0)
            .and_then(Intrinsic::from_u32)
            .ok_or_else(|| EmitError::new(MALFORMED, "unknown intrinsic"))?;
        let n = m.num_operands(i) - 1;
        let (min, max) = which.arity();
        if n < min || n > max {
            return Err(EmitError::new(
                MALFORMED,
                format!("`{}` takes {min} operand(s), found {n}", which.spelling()),
            ));
        }
        if matches!(which, Intrinsic::DebugPrintf | Intrinsic::DebugBreak) {
            return self.debug_output(i, which);
        }
        let arg_ir: SmallVec<[InstId; 4]> = (1..=n).map(|k| m.operand(i, k)).collect();
        let mut args: SmallVec<[u32; 4]> = SmallVec::new();
        for &a in &arg_ir {
            args.push(self.val(a)?);
        }
        let ty_ir = m
            .ty(i)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped intrinsic call"))?;
        let ty = self.ty(ty_ir)?;
        let id = self.id_of(i);
        let arg_ty = arg_ir.first().and_then(|&a| m.ty(a));
        let kind = arg_ty.and_then(|t| m.scalar_kind(t));
        let by_kind = |f: GLOp, s: GLOp, u: GLOp| match kind {
            Some(Float) => f,
            Some(Int) => s,
            _ => u,
        };
        let simple = |w: Intrinsic| -> Option<GLOp> {
            Some(match w {
                Intrinsic::Floor => G::Floor,
                Intrinsic::Ceil => G::Ceil,
                Intrinsic::Round => G::RoundEven,
                Intrinsic::Trunc => G::Trunc,
                Intrinsic::Frac => G::Fract,
                Intrinsic::Sqrt => G::Sqrt,
                Intrinsic::Rsqrt => G::InverseSqrt,
                Intrinsic::Exp => G::Exp,
                Intrinsic::Exp2 => G::Exp2,
                Intrinsic::Log => G::Log,
                Intrinsic::Log2 => G::Log2,
                Intrinsic::Pow => G::Pow,
                Intrinsic::Sin => G::Sin,
                Intrinsic::Cos => G::Cos,
                Intrinsic::Tan => G::Tan,
                Intrinsic::Asin => G::Asin,
                Intrinsic::Acos => G::Acos,
                Intrinsic::Atan => G::Atan,
                Intrinsic::Atan2 => G::Atan2,
                Intrinsic::Sinh => G::Sinh,
                Intrinsic::Cosh => G::Cosh,
                Intrinsic::Tanh => G::Tanh,
                Intrinsic::Lerp => G::FMix,
                Intrinsic::Step => G::Step,
                Intrinsic::Smoothstep => G::SmoothStep,
                Intrinsic::Fma => G::Fma,
                Intrinsic::Cross => G::Cross,
                Intrinsic::Length => G::Length,
                Intrinsic::Distance => G::Distance,
                Intrinsic::Normalize => G::Normalize,
                Intrinsic::Reflect => G::Reflect,
                Intrinsic::Refract => G::Refract,
                Intrinsic::Faceforward => G::FaceForward,
                Intrinsic::Determinant => G::Determinant,
                Intrinsic::Inverse => G::MatrixInverse,
                Intrinsic::Degrees => G::Degrees,
                Intrinsic::Radians => G::Radians,
                Intrinsic::Modf => G::Modf,
                Intrinsic::PackHalf2x16 => G::PackHalf2x16,
                Intrinsic::UnpackHalf2x16 => G::UnpackHalf2x16,
                _ => return None,
            })
        };
        if let Some(g) = simple(which) {
            self.glsl(ty, id, g, &args);
            return Ok(());
        }
        match which {
            Intrinsic::Abs => {
                if kind == Some(Uint) {
                    inst(&mut self.f.body, S::CopyObject, &[ty, id, args[0]]);
                } else {
                    self.glsl(ty, id, by_kind(G::FAbs, G::SAbs, G::SAbs), &args);
                }
            }
            Intrinsic::Sign => match kind {
                Some(Float) => {
                    let at = self.ty(arg_ty.unwrap_or(ty_ir))?;
                    let result_float = m.scalar_kind(ty_ir) == Some(Float);
                    if result_float {
                        self.glsl(ty, id, G::FSign, &args);
                    } else {
                        let s = self.fresh();
                        self.glsl(at, s, G::FSign, &args);
                        inst(&mut self.f.body, S::ConvertFToS, &[ty, id, s]);
                    }
                }
                Some(Int) => self.glsl(ty, id, G::SSign, &args),
                _ => {
                    let t = arg_ty.unwrap_or(ty_ir);
                    let zero = self.splat_const(t, 0)?;
                    let one = self.splat_const(ty_ir, 1)?;
                    let rz = self.splat_const(ty_ir, 0)?;
                    let bt = m
                        .ty(arg_ir[0])
                        .map(|t| m.vector_len(t).unwrap_or(1))
                        .unwrap_or(1);
                    let b = self.bool_ty();
                    let bv = self.vec_ty(b, bt);
                    let c = self.fresh();
                    inst(&mut self.f.body, S::INotEqual, &[bv, c, args[0], zero]);
                    inst(&mut self.f.body, S::Select, &[ty, id, c, one, rz]);
                }
            },
            Intrinsic::Min => self.glsl(ty, id, by_kind(G::FMin, G::SMin, G::UMin), &args),
            Intrinsic::Max => self.glsl(ty, id, by_kind(G::FMax, G::SMax, G::UMax), &args),
            Intrinsic::Clamp => self.glsl(ty, id, by_kind(G::FClamp, G::SClamp, G::UClamp), &args),
            Intrinsic::Saturate => {
                let zero = self.splat_const(ty_ir, 0)?;
                let one = self.splat_const(ty_ir, 1)?;
                self.glsl(ty, id, G::FClamp, &[args[0], zero, one]);
            }
            Intrinsic::Mad => {
                if kind == Some(Float) {
                    self.glsl(ty, id, G::Fma, &args);
                } else {
                    let t = self.fresh();
                    inst(&mut self.f.body, S::IMul, &[ty, t, args[0], args[1]]);
                    inst(&mut self.f.body, S::IAdd, &[ty, id, t, args[2]]);
                }
            }
            Intrinsic::Dot => {
                if kind == Some(Float) && arg_ty.is_some_and(|t| m.op(t) != Op::Vector) {
                    // `dot(float1, float1)`: `OpDot` takes vectors only, so the product.
                    inst(&mut self.f.body, S::FMul, &[ty, id, args[0], args[1]]);
                } else if kind == Some(Float) {
                    inst(&mut self.f.body, S::Dot, &[ty, id, args[0], args[1]]);
                } else {
                    let len = arg_ty.and_then(|t| m.vector_len(t)).unwrap_or(1);
                    let vt = self.ty(arg_ty.unwrap_or(ty_ir))?;
                    let p = self.fresh();
                    inst(&mut self.f.body, S::IMul, &[vt, p, args[0], args[1]]);
                    if len == 1 {
                        inst(&mut self.f.body, S::CopyObject, &[ty, id, p]);
                    } else {
                        let mut acc = self.fresh();
                        inst(&mut self.f.body, S::CompositeExtract, &[ty, acc, p, 0]);
                        for k in 1..len {
                            let e = self.fresh();
                            inst(&mut self.f.body, S::CompositeExtract, &[ty, e, p, k]);
                            let r = if k + 1 == len { id } else { self.fresh() };
                            inst(&mut self.f.body, S::IAdd, &[ty, r, acc, e]);
                            acc = r;
                        }
                    }
                }
            }
            Intrinsic::Transpose => inst(&mut self.f.body, S::Transpose, &[ty, id, args[0]]),
            Intrinsic::IsNan => inst(&mut self.f.body, S::IsNan, &[ty, id, args[0]]),
            Intrinsic::IsInf => inst(&mut self.f.body, S::IsInf, &[ty, id, args[0]]),
            Intrinsic::IsFinite => {
                let a = self.fresh();
                let b = self.fresh();
                let c = self.fresh();
                inst(&mut self.f.body, S::IsNan, &[ty, a, args[0]]);
                inst(&mut self.f.body, S::IsInf, &[ty, b, args[0]]);
                inst(&mut self.f.body, S::LogicalOr, &[ty, c, a, b]);
                inst(&mut self.f.body, S::LogicalNot, &[ty, id, c]);
            }
            Intrinsic::All | Intrinsic::Any => {
                let t = arg_ty.unwrap_or(ty_ir);
                let len = m.vector_len(t).unwrap_or(1);
                let mut v = args[0];
                if kind != Some(Bool) {
                    let zero = self.splat_const(t, 0)?;
                    let b = self.bool_ty();
                    let bv = self.vec_ty(b, len);
                    let c = self.fresh();
                    let cmp = if kind == Some(Float) {
                        S::FUnordNotEqual
                    } else {
                        S::INotEqual
                    };
                    inst(&mut self.f.body, cmp, &[bv, c, v, zero]);
                    v = c;
                }
                if len == 1 {
                    inst(&mut self.f.body, S::CopyObject, &[ty, id, v]);
                } else {
                    let sop = if which == Intrinsic::All {
                        S::All
                    } else {
                        S::Any
                    };
                    inst(&mut self.f.body, sop, &[ty, id, v]);
                }
            }
            Intrinsic::CountBits => inst(&mut self.f.body, S::BitCount, &[ty, id, args[0]]),
            Intrinsic::ReverseBits => inst(&mut self.f.body, S::BitReverse, &[ty, id, args[0]]),
            Intrinsic::FirstBitHigh => {
                let g = if kind == Some(Int) {
                    G::FindSMsb
                } else {
                    G::FindUMsb
                };
                self.glsl(ty, id, g, &args);
            }
            Intrinsic::FirstBitLow => self.glsl(ty, id, G::FindILsb, &args),
            Intrinsic::F32ToF16 | Intrinsic::F16ToF32 => {
                self.half_conversion(which, ty_ir, ty, id, &arg_ir, &args)?
            }
            Intrinsic::Ddx
            | Intrinsic::Ddy
            | Intrinsic::DdxFine
            | Intrinsic::DdyFine
            | Intrinsic::DdxCoarse
            | Intrinsic::DdyCoarse
            | Intrinsic::Fwidth => {
                let sop = match which {
                    Intrinsic::Ddx => S::DPdx,
                    Intrinsic::Ddy => S::DPdy,
                    Intrinsic::DdxFine => S::DPdxFine,
                    Intrinsic::DdyFine => S::DPdyFine,
                    Intrinsic::DdxCoarse => S::DPdxCoarse,
                    Intrinsic::DdyCoarse => S::DPdyCoarse,
                    _ => S::Fwidth,
                };
                if !matches!(which, Intrinsic::Ddx | Intrinsic::Ddy | Intrinsic::Fwidth) {
                    self.caps.add(Capability::DerivativeControl);
                }
                inst(&mut self.f.body, sop, &[ty, id, args[0]]);
            }
            Intrinsic::Ldexp => {
                if m.ty(arg_ir[1]).and_then(|t| m.scalar_kind(t)) == Some(Float) {
                    // HLSL's exponent is a float: x * exp2(e).
                    let e = self.fresh();
                    self.glsl(ty, e, G::Exp2, &[args[1]]);
                    inst(&mut self.f.body, S::FMul, &[ty, id, args[0], e]);
                } else {
                    self.glsl(ty, id, G::Ldexp, &args);
                }
            }
            Intrinsic::Frexp => {
                let pointee = m.ty(arg_ir[1]).and_then(|t| m.pointee(t));
                if pointee.and_then(|t| m.scalar_kind(t)) == Some(Float) {
                    // HLSL's exponent is a float: take the integer one and convert it.
                    let pt = pointee.unwrap_or(ty_ir);
                    let len = m.vector_len(pt).unwrap_or(1);
                    let i32t = self.int_ty(32, true);
                    let it = self.vec_ty(i32t, len);
                    let st = self.fresh();
                    inst(&mut self.s.globals, S::TypeStruct, &[st, ty, it]);
                    let r = self.fresh();
                    self.glsl(st, r, G::FrexpStruct, &[args[0]]);
                    inst(&mut self.f.body, S::CompositeExtract, &[ty, id, r, 0]);
                    let e = self.fresh();
                    inst(&mut self.f.body, S::CompositeExtract, &[it, e, r, 1]);
                    let ef = self.fresh();
                    let eft = self.ty(pt)?;
                    inst(&mut self.f.body, S::ConvertSToF, &[eft, ef, e]);
                    inst(&mut self.f.body, S::Store, &[args[1], ef]);
                } else {
                    self.glsl(ty, id, G::Frexp, &args);
                }
            }
            Intrinsic::Sincos => {
                let xt = self.ty(arg_ty.unwrap_or(ty_ir))?;
                let s = self.fresh();
                let c = self.fresh();
                self.glsl(xt, s, G::Sin, &[args[0]]);
                self.glsl(xt, c, G::Cos, &[args[0]]);
                inst(&mut self.f.body, S::Store, &[args[1], s]);
                inst(&mut self.f.body, S::Store, &[args[2], c]);
            }
            Intrinsic::Fmod => inst(&mut self.f.body, S::FRem, &[ty, id, args[0], args[1]]),
            Intrinsic::Log10 => {
                let l = self.fresh();
                self.glsl(ty, l, G::Log2, &args);
                let k = self.float_splat(ty_ir, std::f64::consts::LOG10_2)?;
                inst(&mut self.f.body, S::FMul, &[ty, id, l, k]);
            }
            Intrinsic::Rcp => {
                let one = self.splat_const(ty_ir, 1)?;
                inst(&mut self.f.body, S::FDiv, &[ty, id, one, args[0]]);
            }
            Intrinsic::NonUniformIndex => {
                inst(&mut self.f.body, S::CopyObject, &[ty, id, args[0]]);
                self.decorate(id, Decoration::NonUniform, &[]);
                self.caps.add_ext(
                    Capability::ShaderNonUniform,
                    self.minor,
                    5,
                    "SPV_EXT_descriptor_indexing",
                );
            }
            Intrinsic::IsHelperLane => {
                let b = self.bool_ty();
                let existed = self
                    .builtin_vars
                    .contains_key(&(spirv::BuiltIn::HelperInvocation as u32));
                let var = self.builtin_var(spirv::BuiltIn::HelperInvocation, b);
                if !existed && self.minor >= 6 {
                    // From SPIR-V 1.6 on, HelperInvocation can change (demotion): volatile.
                    self.decorate(var, Decoration::Volatile, &[]);
                }
                inst(&mut self.f.body, S::Load, &[ty, id, var]);
            }
            Intrinsic::RenderTargetSampleCount => {
                return Err(EmitError::new(
                    TARGET,
                    "`render_target_sample_count` (GetRenderTargetSampleCount) has no SPIR-V equivalent",
                ));
            }
            Intrinsic::CheckAccessFullyMapped => {
                self.caps.add(Capability::SparseResidency);
                inst(
                    &mut self.f.body,
                    S::ImageSparseTexelsResident,
                    &[ty, id, args[0]],
                );
            }
            Intrinsic::InterpolateAtCentroid
            | Intrinsic::InterpolateAtSample
            | Intrinsic::InterpolateAtOffset => {
                self.caps.add(Capability::InterpolationFunction);
                let p = self.interpolant(arg_ir[0], which)?;
                let (g, rest) = match which {
                    Intrinsic::InterpolateAtCentroid => (G::InterpolateAtCentroid, None),
                    Intrinsic::InterpolateAtSample => (G::InterpolateAtSample, Some(args[1])),
                    _ => (G::InterpolateAtOffset, Some(args[1])),
                };
                let mut w: SmallVec<[u32; 2]> = SmallVec::new();
                w.push(p);
                w.extend(rest);
                self.glsl(ty, id, g, &w);
            }
            Intrinsic::AttributeAtVertex => {
                let (g, indices) = self.per_vertex_source(arg_ir[0])?;
                let base = self.val(g)?;
                let ptr_ty = self.ptr_spv(spirv::StorageClass::Input, ty);
                let p = self.fresh();
                let mut w: Words = SmallVec::new();
                w.extend_from_slice(&[ptr_ty, p, base, args[1]]);
                w.extend_from_slice(&indices);
                inst(&mut self.f.body, S::AccessChain, &w);
                inst(&mut self.f.body, S::Load, &[ty, id, p]);
            }
            _ => self.wave_shaped(i, which, ty_ir, ty, id, &args, &arg_ir)?,
        }
        Ok(())
    }

    /// The SPIR-V pointer to the fragment input an interpolation intrinsic reads: `p` itself
    /// when it points into an `input` global, or, for a function variable that HLSL lowering
    /// filled with one copy of an input (`store %v, load @in`, or an element of one), a
    /// pointer to that input (what spirv-opt's interpolate fixup does for DXC).
    fn interpolant(&mut self, p: InstId, which: Intrinsic) -> R<u32> {
        use spirv::Op as S;
        let m = self.m;
        let space = |v: InstId| m.ty(v).and_then(|t| m.address_space(t));
        if space(p) == Some(oneshader_ir::AddressSpace::Input) {
            return self.val(p);
        }
        let fail = || {
            EmitError::new(
                INTERPOLANT,
                format!(
                    "`{}` needs a fragment-stage input: its operand does not lead back to one (an optimized build inlines the entry point so that it does)",
                    which.spelling()
                ),
            )
        };
        // Follow the copies back: a variable stored once with (an element of) a load of an
        // input, or of another such variable (a parameter copied into its callee's local at
        // -O0, once inlined).
        let mut cur = p;
        let mut indices: SmallVec<[u32; 4]> = SmallVec::new();
        let mut q = None;
        for _ in 0..16 {
            if m.op(cur) != Op::Var {
                return Err(fail());
            }
            let mut stored = None;
            for u in m.uses(cur) {
                match (m.op(u.user), u.slot) {
                    // The inliner resets a callee's variables to `undef` at each call.
                    (Op::Store, oneshader_ir::Slot::Operand(0))
                        if m.try_op(m.operand(u.user, 1)) == Some(Op::Undef) => {}
                    (Op::Store, oneshader_ir::Slot::Operand(0)) => {
                        if stored.replace(m.operand(u.user, 1)).is_some() {
                            return Err(fail());
                        }
                    }
                    (Op::CallIntrinsic | Op::Load, _) => {}
                    _ => return Err(fail()),
                }
            }
            // The stored value: a load, possibly through constant extracts.
            let mut v = stored.ok_or_else(fail)?;
            while m.op(v) == Op::Extract {
                let mut idx: SmallVec<[u32; 4]> = SmallVec::new();
                for k in 1..m.num_operands(v) {
                    idx.push(m.imm_operand(v, k).ok_or_else(fail)?);
                }
                idx.extend_from_slice(&indices);
                indices = idx;
                v = m.operand(v, 0);
            }
            if m.op(v) != Op::Load {
                return Err(fail());
            }
            let from = m.operand(v, 0);
            if space(from) == Some(oneshader_ir::AddressSpace::Input) {
                q = Some(from);
                break;
            }
            cur = from;
        }
        let q = q.ok_or_else(fail)?;
        let base = self.ptr_operand(q)?;
        if indices.is_empty() {
            return Ok(base);
        }
        let pointee = m.ty(p).and_then(|t| m.pointee(t)).ok_or_else(fail)?;
        let pt = self.ty(pointee)?;
        let ptr_ty = self.ptr_spv(spirv::StorageClass::Input, pt);
        let id = self.fresh();
        let mut w: Words = SmallVec::new();
        w.extend_from_slice(&[ptr_ty, id, base]);
        for k in indices {
            w.push(self.const_u32(k));
        }
        inst(&mut self.f.body, S::AccessChain, &w);
        Ok(id)
    }

    /// The per-vertex input an `attribute_at_vertex` operand `p` reads, and the SPIR-V
    /// constant indices of the part of it `p` designates ([`crate::attribute::trace`]); an
    /// operand that does not lead back to a `flat` fragment input is refused (OSB0012) rather
    /// than guessed at.
    fn per_vertex_source(&mut self, p: InstId) -> R<(InstId, SmallVec<[u32; 4]>)> {
        let m = self.m;
        let fail = |why: &str| {
            EmitError::new(
                INTERPOLANT,
                format!(
                    "`attribute_at_vertex` (GetAttributeAtVertex) needs a `nointerpolation` fragment-stage input (or a member or component of one) as its attribute: {why}"
                ),
            )
        };
        let untraced = "its operand does not lead back to one (the value must come straight \
                        from an entry-point input parameter or input struct field, through \
                        copies the compiler can follow; a parameter of a function that is \
                        not inlined, or a value computed from the input, cannot be read per \
                        vertex)";
        let (g, rest) = crate::attribute::trace(m, p).ok_or_else(|| fail(untraced))?;
        if !self.per_vertex.contains_key(g) {
            return Err(fail(&format!(
                "the input `{}` it reads is not `nointerpolation` (only flat inputs have per-vertex values)",
                m.name(g).unwrap_or("?")
            )));
        }
        let mut out: SmallVec<[u32; 4]> = SmallVec::new();
        for k in rest {
            out.push(match k {
                crate::attribute::Idx::Const(c) => self.val(c)?,
                crate::attribute::Idx::Imm(k) => {
                    let u = self.u32_ty();
                    self.const_bits(u, k as u64)
                }
            });
        }
        Ok((g, out))
    }

    /// A float constant (or splat) of the IR type `ty` with value `v`.
    fn float_splat(&mut self, ty: InstId, v: f64) -> R<u32> {
        let m = self.m;
        let s = m
            .scalar_of(ty)
            .ok_or_else(|| EmitError::new(OPERANDS, "expected a float type"))?;
        let st = self.ty(s)?;
        let c = match m.scalar_bits(s) {
            Some(64) => {
                let key = (st, v.to_bits());
                if let Some(&c) = self.consts.get(&key) {
                    c
                } else {
                    let c = self.fresh();
                    let b = v.to_bits();
                    inst(
                        &mut self.s.globals,
                        spirv::Op::Constant,
                        &[st, c, b as u32, (b >> 32) as u32],
                    );
                    self.consts.insert(key, c);
                    c
                }
            }
            Some(32) => self.const_bits(st, (v as f32).to_bits() as u64),
            _ => {
                return Err(EmitError::new(
                    OPERANDS,
                    "this intrinsic needs 32- or 64-bit floats",
                ));
            }
        };
        let n = m.vector_len(ty).unwrap_or(1);
        if n == 1 {
            return Ok(c);
        }
        let vt = self.ty(ty)?;
        let id = self.fresh();
        let mut w: Words = SmallVec::new();
        w.extend_from_slice(&[vt, id]);
        for _ in 0..n {
            w.push(c);
        }
        inst(&mut self.s.globals, spirv::Op::ConstantComposite, &w);
        Ok(id)
    }

    fn half_conversion(
        &mut self,
        which: Intrinsic,
        ty_ir: InstId,
        ty: u32,
        id: u32,
        arg_ir: &[InstId],
        args: &[u32],
    ) -> R<()> {
        use spirv::Op as S;
        let m = self.m;
        let len = m.vector_len(ty_ir).unwrap_or(1);
        let f = self.float_ty(32);
        let u = self.u32_ty();
        let v2 = self.vec_ty(f, 2);
        let zero = self.const_f32(0.0);
        let arg_vec = arg_ir
            .first()
            .and_then(|&a| m.ty(a))
            .is_some_and(|t| m.op(t) == Op::Vector);
        let mut parts: Words = SmallVec::new();
        for k in 0..len {
            let x = if arg_vec {
                let e = self.fresh();
                let et = if which == Intrinsic::F32ToF16 { f } else { u };
                inst(&mut self.f.body, S::CompositeExtract, &[et, e, args[0], k]);
                e
            } else {
                args[0]
            };
            let r = if len == 1 { id } else { self.fresh() };
            if which == Intrinsic::F32ToF16 {
                let v = self.fresh();
                inst(&mut self.f.body, S::CompositeConstruct, &[v2, v, x, zero]);
                self.glsl(u, r, GLOp::PackHalf2x16, &[v]);
            } else {
                let v = self.fresh();
                self.glsl(v2, v, GLOp::UnpackHalf2x16, &[x]);
                inst(&mut self.f.body, S::CompositeExtract, &[f, r, v, 0]);
            }
            parts.push(r);
        }
        if len > 1 {
            let mut w: Words = SmallVec::new();
            w.extend_from_slice(&[ty, id]);
            w.extend_from_slice(&parts);
            inst(&mut self.f.body, S::CompositeConstruct, &w);
        }
        Ok(())
    }

    /// Wave (subgroup) intrinsics, with the operand shapes SPIR-V allows: the group
    /// operations take scalars and vectors only, so a matrix (or an integer or bool matrix,
    /// an array of vectors) is split into its rows and the results put back together, and
    /// `OpGroupNonUniformAllEqual`, whose result is one `bool`, compares a vector component by
    /// component (as DXC does). `QuadReadLaneAt` needs a constant lane before SPIR-V 1.5.
    #[allow(clippy::too_many_arguments)]
    fn wave_shaped(
        &mut self,
        i: InstId,
        which: Intrinsic,
        ty_ir: InstId,
        ty: u32,
        id: u32,
        args: &[u32],
        arg_ir: &[InstId],
    ) -> R<()> {
        use spirv::Op as S;
        let m = self.m;
        let takes_value = matches!(
            which,
            Intrinsic::WaveActiveAllEqual
                | Intrinsic::WaveReadLaneFirst
                | Intrinsic::WaveReadLaneAt
                | Intrinsic::WaveActiveSum
                | Intrinsic::WaveActiveProduct
                | Intrinsic::WaveActiveMin
                | Intrinsic::WaveActiveMax
                | Intrinsic::WaveActiveBitAnd
                | Intrinsic::WaveActiveBitOr
                | Intrinsic::WaveActiveBitXor
                | Intrinsic::WavePrefixSum
                | Intrinsic::WavePrefixProduct
                | Intrinsic::QuadReadAcrossX
                | Intrinsic::QuadReadAcrossY
                | Intrinsic::QuadReadAcrossDiagonal
                | Intrinsic::QuadReadLaneAt
        );
        // The scalar kind of the value (under arrays: integer matrices are arrays of vectors).
        let mut leaf = arg_ir.first().and_then(|&a| m.ty(a)).unwrap_or(ty_ir);
        while matches!(m.try_op(leaf), Some(Op::Array)) {
            leaf = m.operand(leaf, 0);
        }
        let kind = m.scalar_kind(leaf);
        let Some(&value_ir) = arg_ir.first().filter(|_| takes_value) else {
            return self.wave(i, which, kind, ty, id, args, None);
        };
        let vty = m
            .ty(value_ir)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped intrinsic operand"))?;
        // (count, SPIR-V type of a part) of a matrix or array of vectors.
        let parts_of = |e: &mut Self, t: InstId| -> R<Option<(u32, u32, InstId)>> {
            Ok(match m.try_op(t) {
                Some(Op::Matrix) => {
                    let (rows, cols) = m
                        .matrix_dims(t)
                        .ok_or_else(|| EmitError::new(MALFORMED, "a malformed matrix type"))?;
                    let elem_ir = m.operand(t, 0);
                    let elem = e.ty(elem_ir)?;
                    Some((rows, e.vec_ty(elem, cols), elem_ir))
                }
                Some(Op::Array) => {
                    let elem_ir = m.operand(t, 0);
                    let n = m.array_len(t).unwrap_or(0);
                    Some((n, e.ty(elem_ir)?, elem_ir))
                }
                _ => None,
            })
        };
        let Some((n, vpart, part_ir)) = parts_of(self, vty)? else {
            return self.wave(i, which, kind, ty, id, args, Some(vty));
        };
        let Some((rn, rpart, _)) = parts_of(self, ty_ir)? else {
            return Err(EmitError::new(
                MALFORMED,
                format!(
                    "`{}`: a matrix operand with a result that is not one",
                    which.spelling()
                ),
            ));
        };
        // A matrix row is a vector of the matrix's scalar (`part_ir`); an array element is
        // the vector (or scalar) `part_ir` itself.
        let row_vector = m.op(vty) == Op::Matrix || m.try_op(part_ir) == Some(Op::Vector);
        let (cols, comp) = match m.try_op(vty) {
            Some(Op::Matrix) => (m.matrix_dims(vty).map_or(1, |(_, c)| c), self.ty(part_ir)?),
            _ if row_vector => (
                m.vector_len(part_ir).unwrap_or(1),
                self.ty(m.operand(part_ir, 0))?,
            ),
            _ => (1, vpart),
        };
        if rn != n || matches!(m.try_op(part_ir), Some(Op::Array | Op::Matrix | Op::Struct)) {
            return Err(EmitError::new(
                OPERANDS,
                format!(
                    "`{}` of `{}`: only scalars, vectors and matrices can be wave operands",
                    which.spelling(),
                    oneshader_ir::print::print_inst(m, vty)
                ),
            ));
        }
        let mut parts: Words = SmallVec::new();
        for r in 0..n {
            let v = self.fresh();
            inst(
                &mut self.f.body,
                S::CompositeExtract,
                &[vpart, v, args[0], r],
            );
            let mut a: Words = SmallVec::new();
            a.push(v);
            a.extend_from_slice(&args[1..]);
            let out = self.fresh();
            self.wave_value(i, which, kind, rpart, out, &a, cols, comp)?;
            parts.push(out);
        }
        let mut w: Words = SmallVec::new();
        w.extend_from_slice(&[ty, id]);
        w.extend_from_slice(&parts);
        inst(&mut self.f.body, S::CompositeConstruct, &w);
        Ok(())
    }

    /// One wave operation on a scalar or a vector of `len` components of SPIR-V type `comp`;
    /// `WaveActiveAllEqual` of a vector compares each component.
    #[allow(clippy::too_many_arguments)]
    fn wave_value(
        &mut self,
        i: InstId,
        which: Intrinsic,
        kind: Option<ScalarKind>,
        ty: u32,
        id: u32,
        args: &[u32],
        len: u32,
        comp: u32,
    ) -> R<()> {
        use spirv::Op as S;
        if which != Intrinsic::WaveActiveAllEqual || len <= 1 {
            return self.wave_op(i, which, kind, ty, id, args);
        }
        let b = self.bool_ty();
        let mut parts: Words = SmallVec::new();
        for c in 0..len {
            let v = self.fresh();
            inst(
                &mut self.f.body,
                S::CompositeExtract,
                &[comp, v, args[0], c],
            );
            let out = self.fresh();
            self.wave_op(i, which, kind, b, out, &[v])?;
            parts.push(out);
        }
        let mut w: Words = SmallVec::new();
        w.extend_from_slice(&[ty, id]);
        w.extend_from_slice(&parts);
        inst(&mut self.f.body, S::CompositeConstruct, &w);
        Ok(())
    }

    /// [`Emitter::wave_value`] for a value of IR type `vty` (a scalar or vector), or an
    /// operation without a value operand (`vty` `None`).
    #[allow(clippy::too_many_arguments)]
    fn wave(
        &mut self,
        i: InstId,
        which: Intrinsic,
        kind: Option<ScalarKind>,
        ty: u32,
        id: u32,
        args: &[u32],
        vty: Option<InstId>,
    ) -> R<()> {
        match vty {
            Some(t) if self.m.try_op(t) == Some(Op::Vector) => {
                let len = self.m.vector_len(t).unwrap_or(1);
                let comp = self.ty(self.m.operand(t, 0))?;
                self.wave_value(i, which, kind, ty, id, args, len, comp)
            }
            _ => self.wave_op(i, which, kind, ty, id, args),
        }
    }

    /// Emits one `OpGroupNonUniform*` of a scalar or vector (AllEqual: of a scalar) for the
    /// call `i`.
    fn wave_op(
        &mut self,
        i: InstId,
        which: Intrinsic,
        kind: Option<ScalarKind>,
        ty: u32,
        id: u32,
        args: &[u32],
    ) -> R<()> {
        use spirv::Op as S;
        let name = which.spelling();
        let scope = self.const_u32(SCOPE_SUBGROUP);
        let arith = |f: S, i: S| {
            if kind == Some(ScalarKind::Float) {
                f
            } else {
                i
            }
        };
        match which {
            Intrinsic::WaveGetLaneCount | Intrinsic::WaveGetLaneIndex => {
                self.group_caps(name, Capability::GroupNonUniform)?;
                let b = if which == Intrinsic::WaveGetLaneCount {
                    spirv::BuiltIn::SubgroupSize
                } else {
                    spirv::BuiltIn::SubgroupLocalInvocationId
                };
                let u = self.u32_ty();
                let var = self.builtin_var(b, u);
                inst(&mut self.f.body, S::Load, &[ty, id, var]);
            }
            Intrinsic::WaveIsFirstLane => {
                self.group_caps(name, Capability::GroupNonUniform)?;
                inst(&mut self.f.body, S::GroupNonUniformElect, &[ty, id, scope]);
            }
            Intrinsic::WaveActiveAnyTrue
            | Intrinsic::WaveActiveAllTrue
            | Intrinsic::WaveActiveAllEqual => {
                self.group_caps(name, Capability::GroupNonUniformVote)?;
                let sop = match which {
                    Intrinsic::WaveActiveAnyTrue => S::GroupNonUniformAny,
                    Intrinsic::WaveActiveAllTrue => S::GroupNonUniformAll,
                    _ => S::GroupNonUniformAllEqual,
                };
                inst(&mut self.f.body, sop, &[ty, id, scope, args[0]]);
            }
            Intrinsic::WaveActiveBallot => {
                self.group_caps(name, Capability::GroupNonUniformBallot)?;
                inst(
                    &mut self.f.body,
                    S::GroupNonUniformBallot,
                    &[ty, id, scope, args[0]],
                );
            }
            Intrinsic::WaveReadLaneFirst => {
                self.group_caps(name, Capability::GroupNonUniformBallot)?;
                inst(
                    &mut self.f.body,
                    S::GroupNonUniformBroadcastFirst,
                    &[ty, id, scope, args[0]],
                );
            }
            Intrinsic::WaveReadLaneAt => {
                self.group_caps(name, Capability::GroupNonUniformShuffle)?;
                inst(
                    &mut self.f.body,
                    S::GroupNonUniformShuffle,
                    &[ty, id, scope, args[0], args[1]],
                );
            }
            Intrinsic::WaveActiveCountBits | Intrinsic::WavePrefixCountBits => {
                self.group_caps(name, Capability::GroupNonUniformBallot)?;
                let u = self.u32_ty();
                let u4 = self.vec_ty(u, 4);
                let b = self.fresh();
                inst(
                    &mut self.f.body,
                    S::GroupNonUniformBallot,
                    &[u4, b, scope, args[0]],
                );
                let gop = if which == Intrinsic::WaveActiveCountBits {
                    GROUP_REDUCE
                } else {
                    GROUP_EXCLUSIVE_SCAN
                };
                inst(
                    &mut self.f.body,
                    S::GroupNonUniformBallotBitCount,
                    &[ty, id, scope, gop, b],
                );
            }
            Intrinsic::WaveActiveSum
            | Intrinsic::WaveActiveProduct
            | Intrinsic::WaveActiveMin
            | Intrinsic::WaveActiveMax
            | Intrinsic::WaveActiveBitAnd
            | Intrinsic::WaveActiveBitOr
            | Intrinsic::WaveActiveBitXor
            | Intrinsic::WavePrefixSum
            | Intrinsic::WavePrefixProduct => {
                self.group_caps(name, Capability::GroupNonUniformArithmetic)?;
                let signed = kind == Some(ScalarKind::Int);
                let sop = match which {
                    Intrinsic::WaveActiveSum | Intrinsic::WavePrefixSum => {
                        arith(S::GroupNonUniformFAdd, S::GroupNonUniformIAdd)
                    }
                    Intrinsic::WaveActiveProduct | Intrinsic::WavePrefixProduct => {
                        arith(S::GroupNonUniformFMul, S::GroupNonUniformIMul)
                    }
                    Intrinsic::WaveActiveMin => arith(
                        S::GroupNonUniformFMin,
                        if signed {
                            S::GroupNonUniformSMin
                        } else {
                            S::GroupNonUniformUMin
                        },
                    ),
                    Intrinsic::WaveActiveMax => arith(
                        S::GroupNonUniformFMax,
                        if signed {
                            S::GroupNonUniformSMax
                        } else {
                            S::GroupNonUniformUMax
                        },
                    ),
                    Intrinsic::WaveActiveBitAnd => S::GroupNonUniformBitwiseAnd,
                    Intrinsic::WaveActiveBitOr => S::GroupNonUniformBitwiseOr,
                    _ => S::GroupNonUniformBitwiseXor,
                };
                let gop = if matches!(
                    which,
                    Intrinsic::WavePrefixSum | Intrinsic::WavePrefixProduct
                ) {
                    GROUP_EXCLUSIVE_SCAN
                } else {
                    GROUP_REDUCE
                };
                inst(&mut self.f.body, sop, &[ty, id, scope, gop, args[0]]);
            }
            Intrinsic::QuadReadAcrossX
            | Intrinsic::QuadReadAcrossY
            | Intrinsic::QuadReadAcrossDiagonal => {
                self.group_caps(name, Capability::GroupNonUniformQuad)?;
                let dir = match which {
                    Intrinsic::QuadReadAcrossX => 0,
                    Intrinsic::QuadReadAcrossY => 1,
                    _ => 2,
                };
                let d = self.const_u32(dir);
                inst(
                    &mut self.f.body,
                    S::GroupNonUniformQuadSwap,
                    &[ty, id, scope, args[0], d],
                );
            }
            Intrinsic::QuadReadLaneAt => {
                self.group_caps(name, Capability::GroupNonUniformQuad)?;
                // Up to SPIR-V 1.4 the lane of OpGroupNonUniformQuadBroadcast must be a
                // constant (drivers and current validators enforce it).
                let lane_is_constant = self
                    .m
                    .try_operand(i, 2)
                    .and_then(|l| self.m.try_op(l))
                    .is_some_and(|o| o.is_constant() || o == Op::SpecConst);
                if self.minor < 5 && !lane_is_constant {
                    return Err(EmitError::new(
                        TARGET,
                        format!(
                            "`{name}` (HLSL `QuadReadLaneAt`) with a lane computed at run time \
                             needs SPIR-V 1.5; target vulkan1.2 or later, or pass a constant lane"
                        ),
                    ));
                }
                inst(
                    &mut self.f.body,
                    S::GroupNonUniformQuadBroadcast,
                    &[ty, id, scope, args[0], args[1]],
                );
            }
            other => {
                return Err(EmitError::new(
                    TARGET,
                    format!("intrinsic `{}` has no SPIR-V mapping", other.spelling()),
                ));
            }
        }
        Ok(())
    }
}

impl Emitter<'_> {
    /// `debug_printf` and `debug_break` as DXC writes them: instruction 1 of
    /// `NonSemantic.DebugPrintf` (the format an `OpString`, then the values) or of
    /// `NonSemantic.DebugBreak`, with SPV_KHR_non_semantic_info below SPIR-V 1.6.
    fn debug_output(&mut self, i: InstId, which: Intrinsic) -> R<()> {
        let m = self.m;
        let set = if which == Intrinsic::DebugPrintf {
            "NonSemantic.DebugPrintf"
        } else {
            "NonSemantic.DebugBreak"
        };
        let import = match self.debug_imports.get(set) {
            Some(&id) => id,
            None => {
                let id = self.fresh();
                inst_str(
                    &mut self.s.imports,
                    spirv::Op::ExtInstImport,
                    &[id],
                    set,
                    &[],
                );
                if self.minor < 6 {
                    self.caps.ext("SPV_KHR_non_semantic_info");
                }
                self.debug_imports.insert(set, id);
                id
            }
        };
        let void = self.void_ty();
        let id = self.id_of(i);
        let mut w: SmallVec<[u32; 8]> = SmallVec::new();
        w.extend_from_slice(&[void, id, import, 1]);
        if which == Intrinsic::DebugPrintf {
            let format = m
                .literal_str(m.operand(i, 1))
                .ok_or_else(|| EmitError::new(MALFORMED, "a print's format is not a string"))?
                .to_string();
            let s = self.fresh();
            inst_str(&mut self.s.sources, spirv::Op::String, &[s], &format, &[]);
            w.push(s);
            for k in 2..m.num_operands(i) {
                w.push(self.val(m.operand(i, k))?);
            }
        }
        inst(&mut self.f.body, spirv::Op::ExtInst, &w);
        Ok(())
    }
}
