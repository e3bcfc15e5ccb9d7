//! Texture operations. The IR's texture ops take the resource *pointer*; the backend loads the
//! image (and sampler) handle next to each use, combines them with `OpSampledImage` where
//! sampling needs it, and shapes the result: SPIR-V sampling, gathering, fetching and reading
//! always yield four components, so a `Texture2D<float>` sample is followed by an extract and a
//! `float2` one by a shuffle.
//!
//! | IR | SPIR-V |
//! |---|---|
//! | `sample` / `sample_bias` | `OpImageSampleImplicitLod` (+ `Bias`) |
//! | `sample_level` / `sample_grad` | `OpImageSampleExplicitLod` with `Lod` / `Grad` |
//! | `sample_cmp` / `sample_cmp_level_zero` | `OpImageSampleDrefImplicitLod` / `...ExplicitLod` with `Lod 0` |
//! | `gather` / `gather_cmp` | `OpImageGather` / `OpImageDrefGather` |
//! | `texture_load` | `OpImageFetch` (sampled; `Lod` or `Sample`) or `OpImageRead` (storage, subpass) |
//! | `texture_store` | `OpImageWrite` |
//! | `query_size` | `OpImageQuerySizeLod` (sampled, single-sample, not buffer) or `OpImageQuerySize` |
//! | `query_levels` / `query_samples` / `query_lod` | `OpImageQueryLevels` / `OpImageQuerySamples` / `OpImageQueryLod` |
//!
//! A constant texel offset is `ConstOffset`; a computed one is `Offset` (with
//! `ImageGatherExtended`).

use oneshader_ir::{Dim, ImageFormat, InstId, Op, TextureAccess, TextureDesc};
use rspirv::spirv::{self, Capability, Decoration};
use smallvec::SmallVec;

use super::encode::inst;
use super::error::{EmitError, MALFORMED, OFFSET_NOT_CONSTANT, OPERANDS, R};
use super::module::Emitter;

type Words = SmallVec<[u32; 12]>;

const BIAS: u32 = 0x1;
const LOD: u32 = 0x2;
const GRAD: u32 = 0x4;
const CONST_OFFSET: u32 = 0x8;
const OFFSET: u32 = 0x10;
const CONST_OFFSETS: u32 = 0x20;
const SAMPLE: u32 = 0x40;
const MIN_LOD: u32 = 0x80;

impl Emitter<'_> {
    /// Loads the image the pointer `p` points to.
    fn load_image(&mut self, p: InstId) -> R<(u32, u32, TextureDesc)> {
        let m = self.m;
        let tex_ty = m
            .ty(p)
            .and_then(|t| m.pointee(t))
            .ok_or_else(|| EmitError::new(OPERANDS, "a texture operand is not a pointer"))?;
        let desc = m.texture_desc(tex_ty).ok_or_else(|| {
            EmitError::new(
                OPERANDS,
                format!(
                    "a texture operand points to `{}`, not a texture",
                    oneshader_ir::print::print_inst(m, tex_ty)
                ),
            )
        })?;
        let img_ty = self.ty(tex_ty)?;
        let ptr = self.val(p)?;
        let img = self.fresh();
        inst(&mut self.f.body, spirv::Op::Load, &[img_ty, img, ptr]);
        if self.nonuniform.contains(&p) {
            self.decorate(img, Decoration::NonUniform, &[]);
        }
        Ok((img, img_ty, desc))
    }

    /// Loads a sampler and combines it with the image.
    fn sampled(&mut self, img: u32, img_ty: u32, tex_p: InstId, sampler_p: InstId) -> R<u32> {
        let m = self.m;
        let s_ty_ir = m
            .ty(sampler_p)
            .and_then(|t| m.pointee(t))
            .filter(|&t| matches!(m.op(t), Op::Sampler | Op::SamplerCmp))
            .ok_or_else(|| {
                EmitError::new(OPERANDS, "a sampler operand is not a sampler pointer")
            })?;
        let s_ty = self.ty(s_ty_ir)?;
        let sp = self.val(sampler_p)?;
        let s = self.fresh();
        inst(&mut self.f.body, spirv::Op::Load, &[s_ty, s, sp]);
        let si_ty = self.sampled_image_ty(img_ty);
        let si = self.fresh();
        inst(
            &mut self.f.body,
            spirv::Op::SampledImage,
            &[si_ty, si, img, s],
        );
        if self.nonuniform.contains(&tex_p) {
            self.decorate(si, Decoration::NonUniform, &[]);
        }
        if self.nonuniform.contains(&sampler_p) {
            self.decorate(s, Decoration::NonUniform, &[]);
        }
        Ok(si)
    }

    /// Adds an offset image operand (constant or computed).
    /// The texel offset of image instruction `i`: `ConstOffset` when constant, else `Offset`,
    /// which Vulkan allows only on gathers (VUID-StandaloneSpirv-Offset-04663): a computed
    /// offset on any other Vulkan image instruction is refused rather than emitted invalid.
    fn offset_operand(&mut self, i: InstId, off: InstId, mask: &mut u32, ops: &mut Words) -> R<()> {
        let m = self.m;
        if m.op(off).is_constant() {
            *mask |= CONST_OFFSET;
        } else {
            let gather = matches!(m.op(i), Op::Gather | Op::GatherCmp);
            if !gather && self.opts.target_env.is_vulkan() {
                return Err(EmitError::new(
                    OFFSET_NOT_CONSTANT,
                    format!(
                        "the texel offset of `{}` is computed at run time; Vulkan takes run-time offsets only for gathers (a constant offset, or a loop this compiler does not unroll?)",
                        m.op(i).spelling()
                    ),
                ));
            }
            *mask |= OFFSET;
            self.caps.add(Capability::ImageGatherExtended);
        }
        ops.push(self.val(off)?);
        Ok(())
    }

    /// Writes an instruction whose SPIR-V result is a 4-component vector, then narrows it
    /// to the IR result type.
    fn four_then_narrow(&mut self, i: InstId, op: spirv::Op, args: &[u32]) -> R<()> {
        let m = self.m;
        let want_ir = m
            .ty(i)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped texture operation"))?;
        let want = self.ty(want_ir)?;
        let id = self.id_of(i);
        let n = m.vector_len(want_ir).ok_or_else(|| {
            EmitError::new(OPERANDS, "a texel result must be a scalar or a vector")
        })?;
        let mut w: Words = SmallVec::new();
        if n == 4 {
            w.extend_from_slice(&[want, id]);
            w.extend_from_slice(args);
            inst(&mut self.f.body, op, &w);
            return Ok(());
        }
        let scalar = m
            .scalar_of(want_ir)
            .ok_or_else(|| EmitError::new(OPERANDS, "a texel result must be numeric"))?;
        let s = self.ty(scalar)?;
        let v4 = self.vec_ty(s, 4);
        let tmp = self.fresh();
        w.extend_from_slice(&[v4, tmp]);
        w.extend_from_slice(args);
        inst(&mut self.f.body, op, &w);
        if n == 1 {
            inst(
                &mut self.f.body,
                spirv::Op::CompositeExtract,
                &[want, id, tmp, 0],
            );
        } else {
            let mut w: Words = SmallVec::new();
            w.extend_from_slice(&[want, id, tmp, tmp]);
            w.extend(0..n);
            inst(&mut self.f.body, spirv::Op::VectorShuffle, &w);
        }
        Ok(())
    }

    /// True when `v` is a constant whose every component is zero (an offset that means none).
    fn is_zero_const(&self, v: InstId) -> bool {
        let m = self.m;
        match m.try_op(v) {
            Some(Op::Zero) => true,
            Some(Op::ConstInt) => m.literal_bits(v) == Some(0),
            Some(Op::Composite) => m.operands(v).all(|e| self.is_zero_const(e)),
            _ => false,
        }
    }

    /// Writes a texel read `op` (four components in SPIR-V, or a scalar for depth
    /// comparisons when `scalar` is set) and shapes it into the IR result: narrowed to the IR
    /// texel type, and for a sparse read (`{u32, T}` result) through the `OpImageSparse*`
    /// form, whose struct is rebuilt when `T` is not what SPIR-V returns.
    fn texel_result(&mut self, i: InstId, op: spirv::Op, args: &[u32], scalar: bool) -> R<()> {
        let m = self.m;
        let want_ir = m
            .ty(i)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped texture operation"))?;
        let Some(texel_ir) = m.sparse_texel_type(want_ir) else {
            if scalar {
                let ty = self.ty(want_ir)?;
                let id = self.id_of(i);
                let mut w: Words = SmallVec::new();
                w.extend_from_slice(&[ty, id]);
                w.extend_from_slice(args);
                inst(&mut self.f.body, op, &w);
                return Ok(());
            }
            return self.four_then_narrow(i, op, args);
        };
        self.caps.add(Capability::SparseResidency);
        use spirv::Op as S;
        let sop = match op {
            S::ImageSampleImplicitLod => S::ImageSparseSampleImplicitLod,
            S::ImageSampleExplicitLod => S::ImageSparseSampleExplicitLod,
            S::ImageSampleDrefImplicitLod => S::ImageSparseSampleDrefImplicitLod,
            S::ImageSampleDrefExplicitLod => S::ImageSparseSampleDrefExplicitLod,
            S::ImageGather => S::ImageSparseGather,
            S::ImageDrefGather => S::ImageSparseDrefGather,
            S::ImageFetch => S::ImageSparseFetch,
            S::ImageRead => S::ImageSparseRead,
            other => {
                return Err(EmitError::new(
                    OPERANDS,
                    format!("`{other:?}` has no sparse-residency form"),
                ));
            }
        };
        let want = self.ty(want_ir)?;
        let id = self.id_of(i);
        let n = m.vector_len(texel_ir).unwrap_or(1);
        let mut w: Words = SmallVec::new();
        if scalar || n == 4 {
            w.extend_from_slice(&[want, id]);
            w.extend_from_slice(args);
            inst(&mut self.f.body, sop, &w);
            return Ok(());
        }
        let scalar_ir = m
            .scalar_of(texel_ir)
            .ok_or_else(|| EmitError::new(OPERANDS, "a texel must be numeric"))?;
        let st = self.ty(scalar_ir)?;
        let v4 = self.vec_ty(st, 4);
        let u = self.u32_ty();
        let sparse = self.tkey(
            super::module::TKey::Sparse(v4),
            spirv::Op::TypeStruct,
            &[u, v4],
        );
        let tmp = self.fresh();
        w.extend_from_slice(&[sparse, tmp]);
        w.extend_from_slice(args);
        inst(&mut self.f.body, sop, &w);
        let code = self.fresh();
        inst(&mut self.f.body, S::CompositeExtract, &[u, code, tmp, 0]);
        let four = self.fresh();
        inst(&mut self.f.body, S::CompositeExtract, &[v4, four, tmp, 1]);
        let tt = self.ty(texel_ir)?;
        let texel = self.fresh();
        if n == 1 {
            inst(&mut self.f.body, S::CompositeExtract, &[tt, texel, four, 0]);
        } else {
            let mut w: Words = SmallVec::new();
            w.extend_from_slice(&[tt, texel, four, four]);
            w.extend(0..n);
            inst(&mut self.f.body, S::VectorShuffle, &w);
        }
        inst(
            &mut self.f.body,
            S::CompositeConstruct,
            &[want, id, code, texel],
        );
        Ok(())
    }

    /// Sampling and gathering: the image operands (bias, lod, gradients, offsets, min-LOD
    /// clamp) in SPIR-V's bit order, then the result shaped by [`Self::texel_result`].
    fn sample_like(&mut self, i: InstId, op: Op, img: u32, img_ty: u32, tex_p: InstId) -> R<()> {
        use spirv::Op as S;
        let m = self.m;
        let n = m.num_operands(i);
        let opt = |k: usize| (k < n).then(|| m.operand(i, k));
        let si = self.sampled(img, img_ty, tex_p, m.operand(i, 1))?;
        let coord = self.val(m.operand(i, 2))?;
        let cmp = matches!(
            op,
            Op::SampleCmp
                | Op::SampleCmpLevelZero
                | Op::GatherCmp
                | Op::SampleCmpLevel
                | Op::SampleCmpBias
                | Op::SampleCmpGrad
        );
        let mut mask = 0;
        let mut ops: Words = SmallVec::new();
        // The operands between the coordinate (and reference) and the offset.
        let first = 3 + cmp as usize;
        match op {
            Op::SampleBias | Op::SampleCmpBias => {
                mask |= BIAS;
                ops.push(self.val(m.operand(i, first))?);
            }
            Op::SampleLevel | Op::SampleCmpLevel => {
                mask |= LOD;
                ops.push(self.val(m.operand(i, first))?);
            }
            Op::SampleCmpLevelZero => {
                mask |= LOD;
                ops.push(self.const_f32(0.0));
            }
            Op::SampleGrad | Op::SampleCmpGrad => {
                mask |= GRAD;
                ops.push(self.val(m.operand(i, first))?);
                ops.push(self.val(m.operand(i, first + 1))?);
            }
            _ => {}
        }
        let sop = match op {
            Op::Sample | Op::SampleBias => S::ImageSampleImplicitLod,
            Op::SampleLevel | Op::SampleGrad => S::ImageSampleExplicitLod,
            Op::SampleCmp | Op::SampleCmpBias => S::ImageSampleDrefImplicitLod,
            Op::SampleCmpLevelZero | Op::SampleCmpLevel | Op::SampleCmpGrad => {
                S::ImageSampleDrefExplicitLod
            }
            Op::Gather => S::ImageGather,
            _ => S::ImageDrefGather,
        };
        let mut four_offsets = None;
        if let Some(off) = op
            .offset_index()
            .and_then(opt)
            .filter(|&o| !self.is_zero_const(o))
        {
            let is_array = m.ty(off).is_some_and(|t| m.op(t) == Op::Array);
            if !is_array {
                self.offset_operand(i, off, &mut mask, &mut ops)?;
            } else if m.op(off).is_constant() {
                mask |= CONST_OFFSETS;
                self.caps.add(Capability::ImageGatherExtended);
                ops.push(self.val(off)?);
            } else {
                four_offsets = Some(off);
            }
        }
        if let Some(c) = op
            .min_lod_index()
            .and_then(opt)
            .filter(|&c| !(m.op(c) == Op::ConstFloat && m.literal_bits(c) == Some(0)))
        {
            mask |= MIN_LOD;
            self.caps.add(Capability::MinLod);
            ops.push(self.val(c)?);
        }
        let mut args: Words = SmallVec::new();
        args.push(si);
        args.push(coord);
        if cmp || op == Op::Gather {
            // The depth reference, or the gathered component.
            args.push(self.val(m.operand(i, 3))?);
        }
        if let Some(off) = four_offsets {
            return self.gather_four_offsets(i, sop, &args, mask, &ops, off);
        }
        if mask != 0 {
            args.push(mask);
            args.extend_from_slice(&ops);
        }
        let scalar = cmp && !matches!(op, Op::GatherCmp);
        self.texel_result(i, sop, &args, scalar)
    }

    /// A gather with four offsets that are not constants (SPIR-V's `ConstOffsets` must be):
    /// four gathers, each with its own `Offset`, and component k taken from the k-th, as DXC
    /// does. The sparse status, when asked for, is the bitwise or of the four (any
    /// non-resident access makes the result non-resident).
    fn gather_four_offsets(
        &mut self,
        i: InstId,
        sop: spirv::Op,
        args: &[u32],
        mask: u32,
        ops: &[u32],
        offsets: InstId,
    ) -> R<()> {
        use spirv::Op as S;
        let m = self.m;
        let want_ir = m
            .ty(i)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped gather"))?;
        let sparse = m.sparse_texel_type(want_ir);
        let texel_ir = sparse.unwrap_or(want_ir);
        let scalar_ir = m
            .scalar_of(texel_ir)
            .ok_or_else(|| EmitError::new(OPERANDS, "a texel must be numeric"))?;
        let st = self.ty(scalar_ir)?;
        let v4 = self.vec_ty(st, 4);
        let u = self.u32_ty();
        let offs = self.val(offsets)?;
        let off_ir = m.ty(offsets).map(|t| m.operand(t, 0));
        let off_ty = match off_ir {
            Some(t) => self.ty(t)?,
            None => return Err(EmitError::new(MALFORMED, "an untyped offset")),
        };
        self.caps.add(Capability::ImageGatherExtended);
        let sparse_ty = if sparse.is_some() {
            self.caps.add(Capability::SparseResidency);
            Some(self.tkey(
                super::module::TKey::Sparse(v4),
                spirv::Op::TypeStruct,
                &[u, v4],
            ))
        } else {
            None
        };
        let gop = match (sop, sparse.is_some()) {
            (S::ImageGather, true) => S::ImageSparseGather,
            (S::ImageDrefGather, true) => S::ImageSparseDrefGather,
            (other, _) => other,
        };
        let mut comps: SmallVec<[u32; 4]> = SmallVec::new();
        let mut status: Option<u32> = None;
        for k in 0..4u32 {
            let o = self.fresh();
            inst(&mut self.f.body, S::CompositeExtract, &[off_ty, o, offs, k]);
            let g = self.fresh();
            let mut w: Words = SmallVec::new();
            w.extend_from_slice(&[sparse_ty.unwrap_or(v4), g]);
            w.extend_from_slice(args);
            w.push(mask | OFFSET);
            // Offset (0x10) comes after Bias/Lod/Grad and before MinLod (0x80).
            let split = ops.len() - (mask & MIN_LOD != 0) as usize;
            w.extend_from_slice(&ops[..split]);
            w.push(o);
            w.extend_from_slice(&ops[split..]);
            inst(&mut self.f.body, gop, &w);
            let texels = if sparse_ty.is_some() {
                let code = self.fresh();
                inst(&mut self.f.body, S::CompositeExtract, &[u, code, g, 0]);
                status = Some(match status {
                    None => code,
                    Some(prev) => {
                        let or = self.fresh();
                        inst(&mut self.f.body, S::BitwiseOr, &[u, or, prev, code]);
                        or
                    }
                });
                let t = self.fresh();
                inst(&mut self.f.body, S::CompositeExtract, &[v4, t, g, 1]);
                t
            } else {
                g
            };
            let c = self.fresh();
            inst(&mut self.f.body, S::CompositeExtract, &[st, c, texels, k]);
            comps.push(c);
        }
        let id = self.id_of(i);
        let texel_ty = self.ty(texel_ir)?;
        let texel = if sparse.is_some() { self.fresh() } else { id };
        inst(
            &mut self.f.body,
            S::CompositeConstruct,
            &[texel_ty, texel, comps[0], comps[1], comps[2], comps[3]],
        );
        if let Some(code) = status {
            let want = self.ty(want_ir)?;
            inst(
                &mut self.f.body,
                S::CompositeConstruct,
                &[want, id, code, texel],
            );
        }
        Ok(())
    }

    /// Emits a texture operation.
    pub(crate) fn texture_op(&mut self, i: InstId) -> R<()> {
        use spirv::Op as S;
        let m = self.m;
        let op = m.op(i);
        let n = m.num_operands(i);
        let tex_p = m.operand(i, 0);
        let (img, img_ty, desc) = self.load_image(tex_p)?;
        let opt = |k: usize| (k < n).then(|| m.operand(i, k));
        match op {
            Op::Sample
            | Op::SampleBias
            | Op::SampleLevel
            | Op::SampleGrad
            | Op::Gather
            | Op::SampleCmp
            | Op::SampleCmpLevelZero
            | Op::GatherCmp
            | Op::SampleCmpLevel
            | Op::SampleCmpBias
            | Op::SampleCmpGrad => self.sample_like(i, op, img, img_ty, tex_p),
            Op::TextureLoad => {
                let coord = self.val(m.operand(i, 1))?;
                let storage = desc.access == TextureAccess::Storage || desc.dim == Dim::SubpassData;
                let mut mask = 0;
                let mut ops: Words = SmallVec::new();
                if desc.multisampled {
                    mask |= SAMPLE;
                    let s = match opt(2) {
                        Some(s) => self.val(s)?,
                        None => self.const_u32(0),
                    };
                    ops.push(s);
                } else if !storage && desc.dim != Dim::Buffer {
                    mask |= LOD;
                    let l = match opt(2) {
                        Some(l) => self.val(l)?,
                        None => self.const_u32(0),
                    };
                    ops.push(l);
                }
                if let Some(off) = opt(3).filter(|&o| !self.is_zero_const(o)) {
                    self.offset_operand(i, off, &mut mask, &mut ops)?;
                }
                let mut args: Words = SmallVec::new();
                args.extend_from_slice(&[img, coord]);
                if mask != 0 {
                    // Image operands are ordered by bit: Lod (0x2) before offsets (0x8, 0x10)
                    // before Sample (0x40).
                    if mask & SAMPLE != 0 && ops.len() == 2 {
                        ops.swap(0, 1);
                    }
                    args.push(mask);
                    args.extend_from_slice(&ops);
                }
                if storage {
                    if desc.format == ImageFormat::Unknown && desc.dim != Dim::SubpassData {
                        self.caps.add(Capability::StorageImageReadWithoutFormat);
                    }
                    self.texel_result(i, S::ImageRead, &args, false)
                } else {
                    self.texel_result(i, S::ImageFetch, &args, false)
                }
            }
            Op::TextureStore => {
                let coord = self.val(m.operand(i, 1))?;
                let texel = self.val(m.operand(i, 2))?;
                if desc.format == ImageFormat::Unknown {
                    self.caps.add(Capability::StorageImageWriteWithoutFormat);
                }
                inst(&mut self.f.body, S::ImageWrite, &[img, coord, texel]);
                Ok(())
            }
            Op::QuerySize | Op::QueryLevels | Op::QuerySamples => {
                self.caps.add(Capability::ImageQuery);
                let ty = self.result_ty(i)?;
                let id = self.id_of(i);
                let sampled = desc.access == TextureAccess::Sampled;
                match op {
                    Op::QuerySize if sampled && !desc.multisampled && desc.dim != Dim::Buffer => {
                        let lod = match opt(1) {
                            Some(l) => self.val(l)?,
                            None => self.const_u32(0),
                        };
                        inst(&mut self.f.body, S::ImageQuerySizeLod, &[ty, id, img, lod]);
                    }
                    Op::QuerySize => inst(&mut self.f.body, S::ImageQuerySize, &[ty, id, img]),
                    Op::QueryLevels => inst(&mut self.f.body, S::ImageQueryLevels, &[ty, id, img]),
                    _ => inst(&mut self.f.body, S::ImageQuerySamples, &[ty, id, img]),
                }
                Ok(())
            }
            Op::QueryLod => {
                self.caps.add(Capability::ImageQuery);
                let si = self.sampled(img, img_ty, tex_p, m.operand(i, 1))?;
                let coord = self.val(m.operand(i, 2))?;
                let ty = self.result_ty(i)?;
                let id = self.id_of(i);
                inst(&mut self.f.body, S::ImageQueryLod, &[ty, id, si, coord]);
                Ok(())
            }
            _ => Err(EmitError::new(MALFORMED, "not a texture operation")),
        }
    }
}
