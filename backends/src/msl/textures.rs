//! Texture reads, queries and writes with MSL's texture member functions (Metal Shading
//! Language Specification, section 6.12).
//!
//! | IR | MSL |
//! |---|---|
//! | `sample`, `sample_bias`, `sample_level`, `sample_grad` | `t.sample(s, c)`, with `bias(b)`, `level(l)`, `gradient2d(dx, dy)` (`gradient3d`, `gradientcube`) |
//! | `sample_cmp`, `sample_cmp_level_zero` | `t.sample_compare(s, c, ref)` (with `level(0)`); the texture is declared `depth2d` (`depth2d_array`, `depthcube`) |
//! | `gather` | `t.gather(s, c, offset, component::x..w)` |
//! | `texture_load` | `t.read(coords, [layer,] lod or sample)` |
//! | `texture_store` | `t.write(value4, coords [, layer])` |
//! | `query_size`, `query_levels` | `get_width`/`get_height`/`get_depth`/`get_array_size`, `get_num_mip_levels` |
//!
//! An arrayed texture's layer is the last coordinate in the IR and a separate `uint` argument
//! in MSL: a float layer is rounded to nearest even first (`uint(rint(c))`), which is how Vulkan
//! picks the layer. Texel offsets must be constants. Refused: `query_lod`, the
//! `*_cmp_level`/`*_cmp_bias`/`*_cmp_grad` forms, `gather_cmp`, min-LOD clamps, four-offset
//! gathers, texel offsets on loads, sparse residency, 1D and multisampled sampling, depth
//! textures read as vectors.

use crate::text::printer::ExprText as _;
use crate::text::printer::FnText as _;
use oneshader_ir::types::TextureDesc;
use oneshader_ir::{Dim, InstId, Op, ScalarKind, TextureAccess};

use super::error::{MslError, OPERANDS, R, UNMAPPED, malformed};
use super::func::{E, FnEmitter};

const COMPONENTS: [char; 4] = ['x', 'y', 'z', 'w'];

impl FnEmitter<'_, '_> {
    fn texture_of(&mut self, p: InstId) -> R<(String, TextureDesc, bool)> {
        let m = self.m;
        let place = self.place(p)?;
        let ty = m
            .ty(p)
            .and_then(|t| m.pointee(t))
            .ok_or_else(|| malformed("a texture operand that is not a pointer"))?;
        let d = m
            .texture_desc(ty)
            .ok_or_else(|| malformed("a texture operand of a non-texture type"))?;
        let mut g = p;
        while m.op(g) == Op::ElementAddr {
            g = m.operand(g, 0);
        }
        let depth = self.cx.depth_textures.contains(&g);
        Ok((place.text, d, depth))
    }

    /// The first `n` components of `e` as a vector (or `e.x` for one).
    fn first(&mut self, e: &E, scalar: &str, n: u32) -> E {
        if n == 1 {
            return E::primary(format!("{}.x", e.p()));
        }
        let sw: String = COMPONENTS[..n as usize].iter().collect();
        E::primary(format!("{scalar}{n}({}.{sw})", e.p()))
    }

    /// The coordinates split for MSL: the coordinates and the array layer.
    fn split_coord(&mut self, c: InstId, d: &TextureDesc, float_layer: bool) -> R<(E, Option<E>)> {
        let m = self.m;
        let e = self.value(c)?;
        if !d.arrayed {
            return Ok((e, None));
        }
        let ct = self.ty_of(c)?;
        let n = m
            .vector_len(ct)
            .filter(|_| m.op(ct) == Op::Vector)
            .ok_or_else(|| malformed("an arrayed texture's coordinate that is not a vector"))?;
        let sn = self.cx.type_name(m.scalar_of(ct).unwrap_or(ct))?;
        let last = COMPONENTS[(n - 1) as usize];
        let coords = self.first(&e, &sn, n - 1);
        let layer = if float_layer {
            E::primary(format!("uint(rint({}.{last}))", e.p()))
        } else {
            E::primary(format!("as_type<uint>({}.{last})", e.p()))
        };
        Ok((coords, Some(layer)))
    }

    /// Integer texel coordinates as MSL's `uint` (`uint2`) coordinates.
    fn uint_coords(&mut self, c: InstId, e: E) -> R<E> {
        let m = self.m;
        let ct = self.ty_of(c)?;
        if m.scalar_kind(ct) == Some(ScalarKind::Uint) {
            return Ok(e);
        }
        let ut = match m.vector_len(ct) {
            Some(n) if m.op(ct) == Op::Vector => format!("uint{n}"),
            _ => "uint".into(),
        };
        Ok(E::primary(format!("as_type<{ut}>({})", e.text)))
    }

    /// Integer texel coordinates split for MSL's `read`/`write`: `uint` coordinates and layer.
    fn int_coords(&mut self, c: InstId, d: &TextureDesc) -> R<(E, Option<E>)> {
        let m = self.m;
        let (coords, layer) = self.split_coord(c, d, false)?;
        if !d.arrayed {
            return Ok((self.uint_coords(c, coords)?, None));
        }
        let ct = self.ty_of(c)?;
        if m.scalar_kind(ct) == Some(ScalarKind::Uint) {
            return Ok((coords, layer));
        }
        let n = m.vector_len(ct).unwrap_or(2) - 1;
        let ut = if n == 1 {
            "uint".to_string()
        } else {
            format!("uint{n}")
        };
        Ok((E::primary(format!("as_type<{ut}>({})", coords.text)), layer))
    }

    /// The IR's result from MSL's four-component (or depth-scalar) texel.
    fn narrow(&mut self, i: InstId, e: E, depth_scalar: bool) -> R<E> {
        let m = self.m;
        let ty = self.ty_of(i)?;
        let n = if m.op(ty) == Op::Vector {
            m.vector_len(ty)
        } else {
            None
        };
        if depth_scalar {
            return match n {
                None => Ok(e),
                Some(_) => Err(MslError::new(
                    OPERANDS,
                    "a depth texture read as a vector (a texture both compared and read); MSL's \
                     depth textures return one float",
                )),
            };
        }
        let sn = self.cx.type_name(m.scalar_of(ty).unwrap_or(ty))?;
        Ok(match n {
            Some(4) => e,
            Some(k) => self.first(&e, &sn, k),
            None => self.first(&e, &sn, 1),
        })
    }

    fn no_extra(&self, i: InstId, from: usize, what: &str) -> R<()> {
        let m = self.m;
        if m.num_operands(i) > from {
            return Err(MslError::new(
                UNMAPPED,
                format!(
                    "`{}` with {what}; not supported by the MSL backend",
                    m.op(i).spelling()
                ),
            ));
        }
        Ok(())
    }

    /// A constant texel offset.
    fn const_offset(&mut self, i: InstId, off: InstId) -> R<E> {
        let m = self.m;
        if !m.op(off).is_constant() {
            return Err(MslError::new(
                OPERANDS,
                format!(
                    "`{}` with a texel offset computed at run time; MSL's offsets are constants",
                    m.op(i).spelling()
                ),
            ));
        }
        if m.ty(off).is_some_and(|t| m.op(t) == Op::Array) {
            return Err(MslError::new(
                OPERANDS,
                "a gather with four texel offsets; MSL gathers take one offset",
            ));
        }
        self.value(off)
    }

    /// A texture read or query.
    pub fn texture_expr(&mut self, i: InstId) -> R<E> {
        let m = self.m;
        let op = m.op(i);
        if m.ty(i).is_some_and(|t| m.op(t) == Op::Struct) {
            // A `{status, texel}` result: sparse residency feedback.
            return Err(MslError::new(
                UNMAPPED,
                format!(
                    "`{}` with sparse residency feedback; not supported by the MSL backend",
                    op.spelling()
                ),
            ));
        }
        let (tex, d, depth) = self.texture_of(m.operand(i, 0))?;
        match op {
            Op::QuerySize => return self.query_size(i, &tex, &d),
            Op::QueryLevels => {
                let ty = self.ty_of(i)?;
                let e = E::primary(format!("{tex}.get_num_mip_levels()"));
                if m.op(ty) == Op::U32 {
                    return Ok(e);
                }
                let tn = self.cx.type_name(ty)?;
                return Ok(E::primary(format!("as_type<{tn}>({})", e.text)));
            }
            Op::TextureLoad => return self.texture_load(i, &tex, &d, depth),
            Op::Sample
            | Op::SampleBias
            | Op::SampleLevel
            | Op::SampleGrad
            | Op::SampleCmp
            | Op::SampleCmpLevelZero
            | Op::Gather => {}
            _ => {
                return Err(MslError::new(
                    UNMAPPED,
                    format!(
                        "`{}` is not supported by the MSL backend (CalculateLevelOfDetail, \
                         GatherCmp, SampleCmpLevel, SampleCmpBias, SampleCmpGrad, \
                         GetDimensions of samples)",
                        op.spelling()
                    ),
                ));
            }
        }
        if op == Op::Sample && d.dim == Dim::D1 && !d.arrayed && !d.multisampled && !depth {
            // MSL's `texture1d::sample(sampler, float)`: a Metal 1D texture has one mip level,
            // which implicit-LOD sampling of a 1D texture with one level reads too. Offsets,
            // clamps and the other forms have no MSL spelling.
            if m.try_operand(i, 3).is_some_and(|o| m.op(o) != Op::Zero) {
                return Err(MslError::new(
                    UNMAPPED,
                    "sampling a 1D texture with a texel offset; MSL's 1D sampling takes none",
                ));
            }
            self.no_extra(i, 4, "a min-LOD clamp or sparse feedback")?;
            let sampler = self.place(m.operand(i, 1))?.text;
            let c = self.value(m.operand(i, 2))?;
            let e = E::primary(format!("{tex}.sample({sampler}, {})", c.text));
            return self.narrow(i, e, false);
        }
        if d.multisampled || d.dim == Dim::D1 {
            return Err(MslError::new(
                UNMAPPED,
                "sampling a multisampled texture, or a 1D texture other than by `Sample`; not \
                 supported by the MSL backend",
            ));
        }
        let sampler = self.place(m.operand(i, 1))?.text;
        let (coords, layer) = self.split_coord(m.operand(i, 2), &d, true)?;
        let mut args = vec![sampler, coords.text];
        let gradient = match d.dim {
            Dim::D3 => "gradient3d",
            Dim::Cube => "gradientcube",
            _ => "gradient2d",
        };
        let (f, offset_at, depth_scalar) = match op {
            Op::Sample => ("sample", 3, depth),
            Op::SampleBias => {
                let b = self.value(m.operand(i, 3))?;
                args.extend(layer.clone().map(|l| l.text));
                args.push(format!("bias({})", b.text));
                ("sample", 4, depth)
            }
            Op::SampleLevel => {
                let l = self.value(m.operand(i, 3))?;
                args.extend(layer.clone().map(|l| l.text));
                args.push(format!("level({})", l.text));
                ("sample", 4, depth)
            }
            Op::SampleGrad => {
                let gx = self.value(m.operand(i, 3))?;
                let gy = self.value(m.operand(i, 4))?;
                args.extend(layer.clone().map(|l| l.text));
                args.push(format!("{gradient}({}, {})", gx.text, gy.text));
                ("sample", 5, depth)
            }
            Op::SampleCmp | Op::SampleCmpLevelZero => {
                if !depth {
                    return Err(malformed("a comparison on a texture not declared depth"));
                }
                let r = self.value(m.operand(i, 3))?;
                args.extend(layer.clone().map(|l| l.text));
                args.push(r.text);
                if op == Op::SampleCmpLevelZero {
                    args.push("level(0.0f)".into());
                }
                ("sample_compare", 4, true)
            }
            _ => {
                args.extend(layer.clone().map(|l| l.text));
                ("gather", 4, false)
            }
        };
        if op == Op::Sample
            && let Some(l) = &layer
        {
            args.insert(2, l.text.clone());
        }
        let mut offset = None;
        if let Some(off) = m.try_operand(i, offset_at)
            && m.op(off) != Op::Zero
        {
            if d.dim == Dim::Cube {
                return Err(MslError::new(OPERANDS, "a texel offset on a cube texture"));
            }
            offset = Some(self.const_offset(i, off)?.text);
        }
        if matches!(op, Op::Sample | Op::SampleBias | Op::SampleGrad)
            && let Some(c) = m.try_operand(i, offset_at + 1)
        {
            // `min_lod_clamp(x)` (MSL 2.2), as spirv-cross spells the MinLod operand.
            self.cx
                .require(super::MslVersion::V2_2, "a min-LOD clamp on sampling")?;
            let v = self.value(c)?;
            args.push(format!("min_lod_clamp({})", v.text));
            self.no_extra(i, offset_at + 2, "sparse feedback")?;
        } else {
            self.no_extra(i, offset_at + 1, "a min-LOD clamp or sparse feedback")?;
        }
        if op == Op::Gather {
            if depth {
                return Err(MslError::new(
                    UNMAPPED,
                    "a gather from a texture also used for depth comparisons; not supported by \
                     the MSL backend",
                ));
            }
            let comp = m.imm_operand(i, 3).unwrap_or(0);
            let c = COMPONENTS
                .get(comp as usize)
                .ok_or_else(|| malformed("a gather component out of range"))?;
            // Metal's cube gathers take no offset (`gather(s, c, [array,] component)`); an
            // offset on a cube texture was refused above.
            if d.dim != Dim::Cube {
                let zero = if d.dim == Dim::D3 {
                    "int3(0)"
                } else {
                    "int2(0)"
                };
                args.push(offset.take().unwrap_or_else(|| zero.to_string()));
            }
            args.push(format!("component::{c}"));
        }
        if let Some(o) = offset {
            args.push(o);
        }
        let e = E::primary(format!("{tex}.{f}({})", args.join(", ")));
        self.narrow(i, e, depth_scalar)
    }

    fn query_size(&mut self, i: InstId, tex: &str, d: &TextureDesc) -> R<E> {
        let m = self.m;
        let lod = if m.num_operands(i) > 1 && d.access == TextureAccess::Sampled && !d.multisampled
        {
            let l = m.operand(i, 1);
            let e = self.value(l)?;
            self.uint_coords(l, e)?.text
        } else {
            String::new()
        };
        let mut parts = vec![format!("{tex}.get_width({lod})")];
        if d.dim == Dim::Buffer {
            parts = vec![format!("{tex}.get_width()")];
        }
        if matches!(d.dim, Dim::D2 | Dim::D3 | Dim::Cube) {
            parts.push(format!("{tex}.get_height({lod})"));
        }
        if d.dim == Dim::D3 {
            parts.push(format!("{tex}.get_depth({lod})"));
        }
        if d.arrayed {
            parts.push(format!("{tex}.get_array_size()"));
        }
        let ty = self.ty_of(i)?;
        let e = if parts.len() == 1 {
            E::primary(parts.remove(0))
        } else {
            E::primary(format!("uint{}({})", parts.len(), parts.join(", ")))
        };
        if m.scalar_kind(ty) == Some(ScalarKind::Uint) {
            return Ok(e);
        }
        let tn = self.cx.type_name(ty)?;
        Ok(E::primary(format!("as_type<{tn}>({})", e.text)))
    }

    fn texture_load(&mut self, i: InstId, tex: &str, d: &TextureDesc, depth: bool) -> R<E> {
        let m = self.m;
        if m.try_operand(i, 3).is_some_and(|o| m.op(o) != Op::Zero) {
            return Err(MslError::new(
                UNMAPPED,
                "a texel load with an offset; not supported by the MSL backend",
            ));
        }
        let c = m.operand(i, 1);
        let (coords, layer) = self.int_coords(c, d)?;
        if d.dim == Dim::Buffer {
            let e = E::primary(format!("{tex}.read({})", coords.text));
            return self.narrow(i, e, false);
        }
        let mut args = vec![coords.text];
        if let Some(l) = layer {
            args.push(l.text);
        }
        if d.access == TextureAccess::Sampled {
            match m.try_operand(i, 2) {
                Some(l) => {
                    let e = self.value(l)?;
                    args.push(self.uint_coords(l, e)?.text);
                }
                None if d.multisampled => {
                    return Err(malformed("a multisampled load without a sample index"));
                }
                None => args.push("0u".into()),
            }
        }
        let e = E::primary(format!("{tex}.read({})", args.join(", ")));
        self.narrow(i, e, depth)
    }

    /// `t.write(value4, coords [, layer])`.
    pub fn texture_store(&mut self, i: InstId) -> R<String> {
        let m = self.m;
        let (tex, d, _) = self.texture_of(m.operand(i, 0))?;
        let c = m.operand(i, 1);
        let (coords, layer) = self.int_coords(c, &d)?;
        let v_ir = m.operand(i, 2);
        let v = self.value(v_ir)?;
        let vt = self.ty_of(v_ir)?;
        let s = m
            .scalar_of(vt)
            .ok_or_else(|| malformed("a texture store of a non-numeric value"))?;
        let sn = self.cx.type_name(s)?;
        let n = if m.op(vt) == Op::Vector {
            m.vector_len(vt).unwrap_or(1)
        } else {
            1
        };
        let value = if n == 4 {
            v.text
        } else {
            let z = self.cx.scalar_literal(s, 0)?;
            let zeros = vec![z; (4 - n) as usize].join(", ");
            format!("{sn}4({}, {zeros})", v.text)
        };
        let mut args = vec![value, coords.text];
        if let Some(l) = layer {
            args.push(l.text);
        }
        Ok(format!("{tex}.write({})", args.join(", ")))
    }
}
