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

use super::error::{EmitError, MALFORMED, OPERANDS, R};
use super::module::{Emitter, inst};

type Words = SmallVec<[u32; 12]>;

const BIAS: u32 = 0x1;
const LOD: u32 = 0x2;
const GRAD: u32 = 0x4;
const CONST_OFFSET: u32 = 0x8;
const OFFSET: u32 = 0x10;
const SAMPLE: u32 = 0x40;

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
    fn offset_operand(&mut self, off: InstId, mask: &mut u32, ops: &mut Words) -> R<()> {
        let m = self.m;
        if m.op(off).is_constant() {
            *mask |= CONST_OFFSET;
        } else {
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

    /// Emits a texture operation.
    pub(crate) fn texture_op(&mut self, i: InstId) -> R<()> {
        use spirv::Op as S;
        let m = self.m;
        let op = m.op(i);
        let n = m.num_operands(i);
        let tex_p = m.operand(i, 0);
        let (img, img_ty, desc) = self.load_image(tex_p)?;
        let opt = |k: usize| (k < n).then(|| m.operand(i, k));
        if matches!(
            op,
            Op::Sample | Op::SampleBias | Op::SampleCmp | Op::QueryLod
        ) {
            self.uses_derivatives();
        }
        match op {
            Op::Sample | Op::SampleBias | Op::SampleLevel | Op::SampleGrad | Op::Gather => {
                let si = self.sampled(img, img_ty, tex_p, m.operand(i, 1))?;
                let coord = self.val(m.operand(i, 2))?;
                let mut mask = 0;
                let mut ops: Words = SmallVec::new();
                let (sop, off_at) = match op {
                    Op::Sample => (S::ImageSampleImplicitLod, 3),
                    Op::SampleBias => {
                        mask |= BIAS;
                        ops.push(self.val(m.operand(i, 3))?);
                        (S::ImageSampleImplicitLod, 4)
                    }
                    Op::SampleLevel => {
                        mask |= LOD;
                        ops.push(self.val(m.operand(i, 3))?);
                        (S::ImageSampleExplicitLod, 4)
                    }
                    Op::SampleGrad => {
                        mask |= GRAD;
                        ops.push(self.val(m.operand(i, 3))?);
                        ops.push(self.val(m.operand(i, 4))?);
                        (S::ImageSampleExplicitLod, 5)
                    }
                    _ => (S::ImageGather, 4),
                };
                if let Some(off) = opt(off_at) {
                    self.offset_operand(off, &mut mask, &mut ops)?;
                }
                let mut args: Words = SmallVec::new();
                args.push(si);
                args.push(coord);
                if op == Op::Gather {
                    args.push(self.val(m.operand(i, 3))?);
                }
                if mask != 0 {
                    args.push(mask);
                    args.extend_from_slice(&ops);
                }
                self.four_then_narrow(i, sop, &args)
            }
            Op::SampleCmp | Op::SampleCmpLevelZero | Op::GatherCmp => {
                let si = self.sampled(img, img_ty, tex_p, m.operand(i, 1))?;
                let coord = self.val(m.operand(i, 2))?;
                let dref = self.val(m.operand(i, 3))?;
                let mut mask = 0;
                let mut ops: Words = SmallVec::new();
                if op == Op::SampleCmpLevelZero {
                    mask |= LOD;
                    ops.push(self.const_f32(0.0));
                }
                if let Some(off) = opt(4) {
                    self.offset_operand(off, &mut mask, &mut ops)?;
                }
                let mut args: Words = SmallVec::new();
                args.extend_from_slice(&[si, coord, dref]);
                if mask != 0 {
                    args.push(mask);
                    args.extend_from_slice(&ops);
                }
                if op == Op::GatherCmp {
                    return self.four_then_narrow(i, S::ImageDrefGather, &args);
                }
                let ty = self.result_ty(i)?;
                let id = self.id_of(i);
                let sop = if op == Op::SampleCmp {
                    S::ImageSampleDrefImplicitLod
                } else {
                    S::ImageSampleDrefExplicitLod
                };
                let mut w: Words = SmallVec::new();
                w.extend_from_slice(&[ty, id]);
                w.extend_from_slice(&args);
                inst(&mut self.f.body, sop, &w);
                Ok(())
            }
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
                if let Some(off) = opt(3) {
                    self.offset_operand(off, &mut mask, &mut ops)?;
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
                    self.four_then_narrow(i, S::ImageRead, &args)
                } else {
                    self.four_then_narrow(i, S::ImageFetch, &args)
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
