//! Texture operations. Textures and samplers are separate objects (`texture2D`, `sampler`),
//! combined at each use (`sampler2D(t, s)`, `sampler2DShadow(t, s)`), as the SPIR-V backend
//! combines them with `OpSampledImage`; fetches and size queries take the texture itself
//! (`GL_EXT_samplerless_texture_functions`). GLSL returns four components where the IR's
//! texel may have fewer, so the result is swizzled down (`.x`, `.xy`), as the SPIR-V backend
//! extracts it.
//!
//! | IR | GLSL |
//! |---|---|
//! | `sample` / `sample_bias` | `texture(s, p[, bias])`, `textureOffset`, `textureClampARB` (min-LOD clamp) |
//! | `sample_level` / `sample_grad` | `textureLod`, `textureLodOffset` / `textureGrad`, `textureGradOffset`, `textureGradClampARB` |
//! | `sample_cmp*` | the same on a `...Shadow` sampler, the reference packed into the coordinate where GLSL wants it |
//! | `gather` / `gather_cmp` | `textureGather`, `textureGatherOffset`, `textureGatherOffsets` (four constant offsets; four gathers for computed ones, as the SPIR-V backend) |
//! | `texture_load` | `texelFetch`, `texelFetchOffset` (sampled), `imageLoad` (storage), `subpassLoad` |
//! | `texture_store` | `imageStore` (the texel padded to four components) |
//! | `query_size` / `query_levels` / `query_samples` / `query_lod` | `textureSize`, `imageSize` / `textureQueryLevels` / `textureSamples`, `imageSamples` / `textureQueryLod` |
//!
//! A sparse-residency read (a `{status, texel}` result) is the `GL_ARB_sparse_texture2` form
//! of the same function (`sparseTextureARB`, `sparseTexelFetchARB`, `sparseImageLoadARB`...),
//! which returns the residency code and writes the texel to a local: the value is
//! `Result(uint(code), texel)`, and `check_access_fully_mapped` is `sparseTexelsResidentARB`.
//!
//! Refused (OSB0108): a computed texel offset outside a gather (GLSL and Vulkan take only
//! constants there), depth comparisons at an explicit level on arrayed 2D and cube textures
//! and with a bias on arrayed ones (GLSL has no such function without
//! `GL_EXT_texture_shadow_lod`, which glslang 12 lacks), constant offsets outside -8..7
//! (glslang's range); sparse reads of subpass inputs, of 1D and buffer textures (no
//! `GL_ARB_sparse_texture2` form) and sparse gathers with four computed offsets (OSB0109).

use crate::text::printer::FnText as _;
use crate::text::walker::CSyntax as _;
use oneshader_ir::{Dim, InstId, Op, ScalarKind, TextureAccess, TextureDesc};

use super::error::{GlslError, OPERANDS, R, UNMAPPED, malformed};
use super::expr::{E, Prec, call};
use super::func::FnEmitter;
use super::types::dim_suffix;

const COMPONENTS: [&str; 4] = ["x", "xy", "xyz", "xyzw"];

/// A texture-reading call: `f(args..., trailing...)`; a sparse read's texel goes between
/// `args` and `trailing` (a bias, a gather component). `scalar`: the result is one
/// component already (a depth comparison).
struct Read<'a> {
    f: &'a str,
    args: Vec<E>,
    trailing: Vec<E>,
    scalar: bool,
}

impl<'a> Read<'a> {
    /// A read returning a texel, with no trailing arguments.
    fn texel(f: &'a str, args: Vec<E>) -> Read<'a> {
        Read {
            f,
            args,
            trailing: Vec::new(),
            scalar: false,
        }
    }
}

impl FnEmitter<'_, '_> {
    /// The texture `p` points to: its GLSL path and description.
    fn texture(&mut self, p: InstId) -> R<(String, TextureDesc, InstId)> {
        let m = self.m;
        let tex_ty = m
            .ty(p)
            .and_then(|t| m.pointee(t))
            .ok_or_else(|| malformed("a texture operand is not a pointer"))?;
        let d = m.texture_desc(tex_ty).ok_or_else(|| {
            GlslError::new(
                OPERANDS,
                format!(
                    "a texture operand points to `{}`, not a texture",
                    oneshader_ir::print::print_inst(m, tex_ty)
                ),
            )
        })?;
        let place = self.place(p)?;
        Ok((place.text, d, tex_ty))
    }

    /// `sampler2DShadow(t, s)`: the combined sampler of a texture and a sampler.
    fn combined(
        &mut self,
        tex: &str,
        d: &TextureDesc,
        tex_ty: InstId,
        s: InstId,
        shadow: bool,
    ) -> R<E> {
        let sp = self.place(s)?;
        let prefix = self.cx.texel_prefix(tex_ty, d)?;
        Ok(E::primary(format!(
            "{prefix}sampler{}{}({tex}, {})",
            dim_suffix(d),
            if shadow { "Shadow" } else { "" },
            sp.text
        )))
    }

    /// Narrows a four-component GLSL result to the IR's texel type.
    fn narrow(&self, i: InstId, e: E) -> R<E> {
        let ty = self.ty_of(i)?;
        self.narrow_to(ty, e)
    }

    /// Narrows a four-component GLSL value to texel type `ty`.
    fn narrow_to(&self, ty: InstId, e: E) -> R<E> {
        let m = self.m;
        let n = m.vector_len(ty).unwrap_or(1);
        if n == 4 {
            return Ok(e);
        }
        Ok(E::primary(format!(
            "{}.{}",
            e.at_least(Prec::Primary),
            COMPONENTS[(n as usize).clamp(1, 4) - 1]
        )))
    }

    /// True when `v` is a constant whose every component is zero (an offset meaning none).
    fn is_zero(&self, v: InstId) -> bool {
        let m = self.m;
        match m.try_op(v) {
            Some(Op::Zero) => true,
            Some(Op::ConstInt) => m.literal_bits(v) == Some(0),
            Some(Op::ConstFloat) => m.literal_bits(v) == Some(0),
            Some(Op::Composite) => m.operands(v).all(|e| self.is_zero(e)),
            _ => false,
        }
    }

    /// A texel offset as GLSL takes it (`ivecN`); computed offsets only on gathers.
    fn offset(&mut self, i: InstId, off: InstId, gather: bool) -> R<E> {
        let m = self.m;
        if !m.op(off).is_constant() && !gather {
            return Err(GlslError::new(
                OPERANDS,
                format!(
                    "the texel offset of `{}` is computed at run time; GLSL (and Vulkan) take \
                     run-time offsets only for gathers",
                    m.op(i).spelling()
                ),
            ));
        }
        if !gather {
            // glslang checks constant offsets against its gl_MinProgramTexelOffset and
            // gl_MaxProgramTexelOffset (-8 and 7, Vulkan's guaranteed range).
            let comps: Vec<InstId> = match m.op(off) {
                Op::Composite => m.operands(off).collect(),
                _ => vec![off],
            };
            for c in comps {
                if let Some(v) = m.const_int_value(c)
                    && !(-8..=7).contains(&v)
                {
                    return Err(GlslError::new(
                        OPERANDS,
                        format!(
                            "`{}` has the texel offset {v}, outside -8..7 (glslang's \
                             gl_MinProgramTexelOffset..gl_MaxProgramTexelOffset, the range every \
                             Vulkan device supports)",
                            m.op(i).spelling()
                        ),
                    ));
                }
            }
        }
        self.int_coord(off)
    }

    fn unavailable(&self, i: InstId, d: &TextureDesc, what: &str) -> GlslError {
        GlslError::new(
            OPERANDS,
            format!(
                "`{}` on a {}{} depth texture {what}: GLSL has no such function without \
                 GL_EXT_texture_shadow_lod",
                self.m.op(i).spelling(),
                dim_suffix(d),
                if d.arrayed { " (arrayed)" } else { "" },
            ),
        )
    }

    /// A pure texture operation.
    pub fn texture_expr(&mut self, i: InstId) -> R<E> {
        let m = self.m;
        let op = m.op(i);
        let n = m.num_operands(i);
        let opt = |k: usize| (k < n).then(|| m.operand(i, k));
        let (tex, d, tex_ty) = self.texture(m.operand(i, 0))?;
        match op {
            Op::TextureLoad => self.texture_load(i, &tex, &d, tex_ty),
            Op::QuerySize => {
                let ty = self.ty_of(i)?;
                let storage = d.access == TextureAccess::Storage;
                let e = if storage {
                    E::primary(format!("imageSize({tex})"))
                } else {
                    self.cx.ext("GL_EXT_samplerless_texture_functions");
                    if d.multisampled || d.dim == Dim::Buffer {
                        E::primary(format!("textureSize({tex})"))
                    } else {
                        let lod = match opt(1) {
                            Some(l) => self.int_coord(l)?.text,
                            None => "0".into(),
                        };
                        E::primary(format!("textureSize({tex}, {lod})"))
                    }
                };
                self.ints_for_ir(e, ty)
            }
            Op::QueryLevels | Op::QuerySamples => {
                let ty = self.ty_of(i)?;
                let storage = d.access == TextureAccess::Storage;
                let e = match (op, storage) {
                    (Op::QueryLevels, false) => {
                        self.cx.ext("GL_EXT_samplerless_texture_functions");
                        E::primary(format!("textureQueryLevels({tex})"))
                    }
                    (Op::QuerySamples, false) => {
                        self.cx.ext("GL_EXT_samplerless_texture_functions");
                        E::primary(format!("textureSamples({tex})"))
                    }
                    (Op::QuerySamples, true) => E::primary(format!("imageSamples({tex})")),
                    _ => {
                        return Err(GlslError::new(
                            OPERANDS,
                            "`query_levels` of a storage image; GLSL images have no levels",
                        ));
                    }
                };
                self.ints_for_ir(e, ty)
            }
            Op::QueryLod => {
                let s = self.combined(&tex, &d, tex_ty, m.operand(i, 1), false)?;
                let c = self.value(m.operand(i, 2))?;
                Ok(call("textureQueryLod", &[&s, &c]))
            }
            _ => self.sample_like(i, &tex, &d, tex_ty),
        }
    }

    /// Converts GLSL's `int` query results to the IR's (usually unsigned) type.
    fn ints_for_ir(&mut self, e: E, ty: InstId) -> R<E> {
        if self.m.scalar_kind(ty) == Some(ScalarKind::Int) {
            return Ok(e);
        }
        let tn = self.cx.type_name(ty)?;
        Ok(call(&tn, &[&e]))
    }

    fn texture_load(&mut self, i: InstId, tex: &str, d: &TextureDesc, tex_ty: InstId) -> R<E> {
        let m = self.m;
        let prefix = self.cx.texel_prefix(tex_ty, d)?;
        let n = m.num_operands(i);
        let opt = |k: usize| (k < n).then(|| m.operand(i, k));
        let coord = m.operand(i, 1);
        if d.dim == Dim::SubpassData {
            if !self.is_zero(coord) {
                return Err(GlslError::new(
                    OPERANDS,
                    "a subpass load at a non-zero coordinate; GLSL's subpassLoad reads the \
                     current pixel",
                ));
            }
            if self.sparse_texel(i)?.is_some() {
                return Err(GlslError::new(
                    UNMAPPED,
                    "a sparse-residency subpass load; GLSL has no sparse subpassLoad",
                ));
            }
            let e = if d.multisampled {
                let s = match opt(2) {
                    Some(s) => self.int_coord(s)?.text,
                    None => "0".into(),
                };
                E::primary(format!("subpassLoad({tex}, {s})"))
            } else {
                E::primary(format!("subpassLoad({tex})"))
            };
            return self.narrow(i, e);
        }
        let c = self.int_coord(coord)?;
        if d.access == TextureAccess::Storage {
            if opt(3).is_some_and(|o| !self.is_zero(o)) {
                return Err(GlslError::new(
                    OPERANDS,
                    "a storage image load with a texel offset; GLSL's imageLoad takes none",
                ));
            }
            let mut args = vec![E::primary(tex.to_string()), c];
            if d.multisampled {
                args.push(match opt(2) {
                    Some(s) => self.int_coord(s)?,
                    None => E::primary("0"),
                });
            }
            return self.texel_call(i, Read::texel("imageLoad", args), prefix, d);
        }
        self.cx.ext("GL_EXT_samplerless_texture_functions");
        let mut args = vec![tex.to_string(), c.text];
        if d.dim != Dim::Buffer {
            let l = match opt(2) {
                Some(l) => self.int_coord(l)?.text,
                None => "0".into(),
            };
            args.push(l);
        }
        let f = match opt(3).filter(|&o| !self.is_zero(o)) {
            Some(off) => {
                if d.multisampled || d.dim == Dim::Buffer {
                    return Err(GlslError::new(
                        OPERANDS,
                        "a texel offset on a multisampled or buffer texture fetch",
                    ));
                }
                let o = self.offset(i, off, false)?;
                args.push(o.text);
                "texelFetchOffset"
            }
            None => "texelFetch",
        };
        let args = args.into_iter().map(E::primary).collect();
        self.texel_call(i, Read::texel(f, args), prefix, d)
    }

    /// Sampling and gathering.
    fn sample_like(&mut self, i: InstId, tex: &str, d: &TextureDesc, tex_ty: InstId) -> R<E> {
        let m = self.m;
        let op = m.op(i);
        let n = m.num_operands(i);
        let opt = |k: usize| (k < n).then(|| m.operand(i, k));
        let cmp = matches!(
            op,
            Op::SampleCmp
                | Op::SampleCmpLevelZero
                | Op::GatherCmp
                | Op::SampleCmpLevel
                | Op::SampleCmpBias
                | Op::SampleCmpGrad
        );
        let gather = matches!(op, Op::Gather | Op::GatherCmp);
        if cmp && !self.cx.texel_prefix(tex_ty, d)?.is_empty() {
            return Err(GlslError::new(
                OPERANDS,
                format!(
                    "`{}` on an integer texture; GLSL has depth comparisons on float textures \
                     only",
                    op.spelling()
                ),
            ));
        }
        let s = self.combined(tex, d, tex_ty, m.operand(i, 1), cmp)?;
        let coord_ir = m.operand(i, 2);
        let coord = self.value(coord_ir)?;
        let first = 3 + cmp as usize;
        let cube_array = d.dim == Dim::Cube && d.arrayed;
        let two_d_array = d.dim == Dim::D2 && d.arrayed;
        // The depth reference: packed into the coordinate, except for cube arrays and
        // gathers, which take it separately.
        let mut separate_ref: Option<E> = None;
        let p = if cmp {
            let r = self.value(m.operand(i, 3))?;
            if gather || cube_array {
                separate_ref = Some(r);
                coord
            } else {
                let cn = m.ty(coord_ir).and_then(|t| m.vector_len(t)).unwrap_or(1);
                let (ctor, pad) = match (d.dim, cn) {
                    (Dim::D1, 1) => ("vec3", ", 0.0"),
                    (_, 1) => ("vec2", ""),
                    (_, 2) => ("vec3", ""),
                    _ => ("vec4", ""),
                };
                E::primary(format!("{ctor}({}{pad}, {})", coord.text, r.text))
            }
        } else {
            coord
        };
        // Offsets (a zero constant means none) and the min-LOD clamp.
        let off_ir = op
            .offset_index()
            .and_then(opt)
            .filter(|&o| !self.is_zero(o));
        let clamp_ir = op
            .min_lod_index()
            .and_then(opt)
            .filter(|&c| !(m.op(c) == Op::ConstFloat && m.literal_bits(c) == Some(0)));
        let mut four: Option<InstId> = None;
        let mut offset: Option<E> = None;
        let mut offsets: Option<E> = None;
        if let Some(o) = off_ir {
            let is_array = m.ty(o).is_some_and(|t| m.op(t) == Op::Array);
            if is_array {
                if m.op(o).is_constant() {
                    offsets = Some(self.cx.constant(o)?);
                } else {
                    four = Some(o);
                }
            } else {
                offset = Some(self.offset(i, o, gather)?);
            }
        }
        let clamp = match clamp_ir {
            Some(c) => {
                self.cx.ext("GL_ARB_sparse_texture_clamp");
                Some(self.value(c)?)
            }
            None => None,
        };
        let off_suffix = if offset.is_some() {
            "Offset"
        } else if offsets.is_some() {
            "Offsets"
        } else {
            ""
        };
        let clamp_suffix = if clamp.is_some() { "ClampARB" } else { "" };
        let prefix = self.cx.texel_prefix(tex_ty, d)?;
        let mut args: Vec<E> = vec![s, p];
        // The function, its arguments, and those after a sparse read's texel.
        let (f, trailing) = match op {
            Op::Sample | Op::SampleBias | Op::SampleCmp | Op::SampleCmpBias => {
                let bias = if matches!(op, Op::SampleBias | Op::SampleCmpBias) {
                    if cmp && (two_d_array || cube_array) {
                        return Err(self.unavailable(i, d, "with a bias"));
                    }
                    Some(self.value(m.operand(i, first))?)
                } else {
                    None
                };
                args.extend(separate_ref);
                args.extend(offset);
                args.extend(clamp);
                (
                    format!("texture{off_suffix}{clamp_suffix}"),
                    bias.into_iter().collect(),
                )
            }
            Op::SampleLevel | Op::SampleCmpLevel | Op::SampleCmpLevelZero => {
                if cmp && (two_d_array || d.dim == Dim::Cube) {
                    return Err(self.unavailable(i, d, "at an explicit level"));
                }
                let lod = if op == Op::SampleCmpLevelZero {
                    E::primary("0.0")
                } else {
                    self.value(m.operand(i, first))?
                };
                args.extend(separate_ref);
                args.push(lod);
                args.extend(offset);
                (format!("textureLod{off_suffix}"), Vec::new())
            }
            Op::SampleGrad | Op::SampleCmpGrad => {
                if cmp && cube_array {
                    return Err(self.unavailable(i, d, "with gradients"));
                }
                let dx = self.value(m.operand(i, first))?;
                let dy = self.value(m.operand(i, first + 1))?;
                args.extend(separate_ref);
                args.push(dx);
                args.push(dy);
                args.extend(offset);
                args.extend(clamp);
                (format!("textureGrad{off_suffix}{clamp_suffix}"), Vec::new())
            }
            Op::Gather | Op::GatherCmp => {
                let comp = if op == Op::Gather {
                    let c = m.imm_operand(i, 3).unwrap_or(0);
                    (c != 0).then(|| E::primary(c.to_string()))
                } else {
                    None
                };
                if let Some(o) = four {
                    if self.sparse_texel(i)?.is_some() {
                        return Err(GlslError::new(
                            UNMAPPED,
                            "a sparse-residency gather with four computed offsets (four \
                             gathers whose residency codes GLSL would have to combine) is not \
                             supported by the GLSL backend",
                        ));
                    }
                    // Four computed offsets: four gathers, component k from the k-th.
                    let o = self.value(o)?;
                    let mut parts = Vec::new();
                    for k in 0..4 {
                        let mut a: Vec<E> = args.clone();
                        a.extend(separate_ref.clone());
                        a.push(E::primary(format!("{}[{k}]", o.at_least(Prec::Primary))));
                        a.extend(comp.clone());
                        let refs: Vec<&E> = a.iter().collect();
                        let g = call("textureGatherOffset", &refs);
                        parts.push(format!("{}.{}", g.text, ["x", "y", "z", "w"][k]));
                    }
                    let ty = self.ty_of(i)?;
                    let tn = self.cx.type_name(ty)?;
                    return Ok(E::primary(format!("{tn}({})", parts.join(", "))));
                }
                args.extend(separate_ref);
                args.extend(offset);
                args.extend(offsets);
                (
                    format!("textureGather{off_suffix}"),
                    comp.into_iter().collect(),
                )
            }
            _ => return Err(malformed("not a sampling operation")),
        };
        // Depth comparisons (not gathers) return a scalar already.
        let read = Read {
            f: &f,
            args,
            trailing,
            scalar: cmp && !gather,
        };
        self.texel_call(i, read, prefix, d)
    }

    /// The texel type of a sparse read (`{u32 status, T texel}` result), or `None` for an
    /// ordinary one.
    fn sparse_texel(&self, i: InstId) -> R<Option<InstId>> {
        let m = self.m;
        let ty = self.ty_of(i)?;
        if m.op(ty) != Op::Struct {
            return Ok(None);
        }
        m.sparse_texel_type(ty)
            .map(Some)
            .ok_or_else(|| malformed("a texture read of a struct that is not {u32, texel}"))
    }

    /// The call `f(args..., trailing...)`, narrowed to the IR's texel unless `scalar` (depth
    /// comparisons return one already); for a sparse read, the `GL_ARB_sparse_texture2`
    /// function with the texel written to a new local before `trailing` (a bias, a gather
    /// component), and the `{status, texel}` value built from its code and the local.
    fn texel_call(&mut self, i: InstId, read: Read<'_>, prefix: &str, d: &TextureDesc) -> R<E> {
        let Read {
            f,
            args,
            trailing,
            scalar,
        } = read;
        let Some(texel_ty) = self.sparse_texel(i)? else {
            let all: Vec<&E> = args.iter().chain(&trailing).collect();
            let e = call(f, &all);
            return if scalar { Ok(e) } else { self.narrow(i, e) };
        };
        if matches!(d.dim, Dim::D1 | Dim::Buffer) {
            return Err(GlslError::new(
                UNMAPPED,
                format!(
                    "a sparse-residency `{}` of a {} texture; GL_ARB_sparse_texture2 has no \
                     1D or buffer forms",
                    self.m.op(i).spelling(),
                    if d.dim == Dim::D1 { "1D" } else { "buffer" }
                ),
            ));
        }
        self.cx.ext("GL_ARB_sparse_texture2");
        let base = f.strip_suffix("ARB").unwrap_or(f);
        let mut chars = base.chars();
        let name = match chars.next() {
            Some(c) => format!("sparse{}{}ARB", c.to_ascii_uppercase(), chars.as_str()),
            None => return Err(malformed("an empty texture function name")),
        };
        let out_ty = if scalar {
            "float".to_string()
        } else {
            format!("{prefix}vec4")
        };
        let texel = self.local_name(Some("texel"), "t");
        let code = self.local_name(Some("resident"), "r");
        self.line_fmt(format_args!("{out_ty} {texel};"));
        let mut parts: Vec<&str> = args.iter().map(|e| e.text.as_str()).collect();
        parts.push(&texel);
        parts.extend(trailing.iter().map(|e| e.text.as_str()));
        self.line_fmt(format_args!("int {code} = {name}({});", parts.join(", ")));
        let t = if scalar {
            E::primary(texel)
        } else {
            self.narrow_to(texel_ty, E::primary(texel))?
        };
        let ty = self.ty_of(i)?;
        let sn = self.cx.type_name(ty)?;
        Ok(E::primary(format!("{sn}(uint({code}), {})", t.text)))
    }

    /// `imageStore(img, coord, texel)` with the texel padded to four components.
    pub fn texture_store(&mut self, i: InstId) -> R<String> {
        let m = self.m;
        let (tex, d, tex_ty) = self.texture(m.operand(i, 0))?;
        if d.multisampled {
            return Err(GlslError::new(
                OPERANDS,
                "a store to a multisampled storage image without a sample index",
            ));
        }
        let c = self.int_coord(m.operand(i, 1))?;
        let v_ir = m.operand(i, 2);
        let v = self.value(v_ir)?;
        let n = m.ty(v_ir).and_then(|t| m.vector_len(t)).unwrap_or(1);
        let prefix = self.cx.texel_prefix(tex_ty, &d)?;
        let zero = match prefix {
            "i" => "0",
            "u" => "0u",
            "i64" => "0l",
            "u64" => "0ul",
            _ => "0.0",
        };
        let texel = if n == 4 {
            v.text
        } else {
            let mut parts = vec![v.text];
            for _ in n..4 {
                parts.push(zero.to_string());
            }
            format!("{prefix}vec4({})", parts.join(", "))
        };
        Ok(format!("imageStore({tex}, {}, {texel})", c.text))
    }
}
