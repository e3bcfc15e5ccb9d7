//! Texture reads, queries and writes with WGSL's built-ins.
//!
//! | IR | WGSL |
//! |---|---|
//! | `sample`, `sample_bias`, `sample_level`, `sample_grad` | `textureSample`, `textureSampleBias`, `textureSampleLevel`, `textureSampleGrad` |
//! | `sample_cmp`, `sample_cmp_level_zero` | `textureSampleCompare`, `textureSampleCompareLevel` (the texture is declared `texture_depth_*`) |
//! | `gather`, `gather_cmp` | `textureGather`, `textureGatherCompare` |
//! | `texture_load` | `textureLoad` (a texel offset is added to the coordinates, as `OpImageFetch` does) |
//! | `texture_store` | `textureStore` (the value widened to four components) |
//! | `query_size`, `query_levels`, `query_samples` | `textureDimensions` (and `textureNumLayers`), `textureNumLevels`, `textureNumSamples` |
//!
//! An arrayed texture's layer is the last coordinate in the IR and a separate integer argument
//! in WGSL: a float layer is rounded to nearest even first (`i32(round(c))`), which is how
//! Vulkan picks the layer. Offsets must be constants (WGSL takes only constant expressions).
//! Refused: `query_lod`, the `*_cmp_level`/`*_cmp_bias`/`*_cmp_grad` forms, min-LOD clamps,
//! four-offset gathers, sparse residency, depth textures read as vectors.

use crate::text::printer::ExprText as _;
use crate::text::printer::FnText as _;
use oneshader_ir::types::TextureDesc;
use oneshader_ir::{Dim, InstId, Op, TextureAccess};

use super::error::{OPERANDS, R, UNMAPPED, WgslError, malformed};
use super::func::{E, FnEmitter};

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

    /// The coordinate expression split for WGSL: the coordinates and the array layer.
    fn split_coord(&mut self, c: InstId, d: &TextureDesc, float_layer: bool) -> R<(E, Option<E>)> {
        let m = self.m;
        let e = self.value(c)?;
        if !d.arrayed {
            return Ok((e, None));
        }
        let n = m
            .ty(c)
            .and_then(|t| m.vector_len(t))
            .ok_or_else(|| malformed("an arrayed texture's coordinate that is not a vector"))?;
        let sw: String = ['x', 'y', 'z', 'w'][..(n - 1) as usize].iter().collect();
        let last = ['x', 'y', 'z', 'w'][(n - 1) as usize];
        let coords = E::primary(format!("{}.{sw}", e.p()));
        let layer = if float_layer {
            E::primary(format!("i32(round({}.{last}))", e.p()))
        } else {
            E::primary(format!("{}.{last}", e.p()))
        };
        Ok((coords, Some(layer)))
    }

    /// A constant texel offset.
    fn const_offset(&mut self, i: InstId, off: InstId) -> R<E> {
        let m = self.m;
        if !m.op(off).is_constant() {
            return Err(WgslError::new(
                OPERANDS,
                format!(
                    "`{}` with a texel offset computed at run time; WGSL's offsets are \
                     constant expressions",
                    m.op(i).spelling()
                ),
            ));
        }
        let t = self.ty_of(off)?;
        if m.op(t) == Op::Array {
            return Err(WgslError::new(
                OPERANDS,
                "a gather with four texel offsets (`GatherRed(s, uv, o0, o1, o2, o3)`); WGSL \
                 gathers take one offset",
            ));
        }
        self.value(off)
    }

    /// The IR's result from WGSL's four-component (or depth-scalar) texel.
    fn narrow(&mut self, i: InstId, e: E, depth_scalar: bool) -> R<E> {
        let m = self.m;
        let ty = self.ty_of(i)?;
        let n = super::func::vlen(m, ty);
        if depth_scalar {
            return match n {
                None => Ok(e),
                Some(_) => Err(WgslError::new(
                    OPERANDS,
                    "a depth texture read as a vector (a texture both compared and read); WGSL's \
                     depth textures return one f32",
                )),
            };
        }
        Ok(match n {
            Some(4) => e,
            Some(k) => E::primary(format!("{}.{}", e.p(), &"xyzw"[..k as usize])),
            None => E::primary(format!("{}.x", e.p())),
        })
    }

    fn no_extra(&self, i: InstId, from: usize, what: &str) -> R<()> {
        let m = self.m;
        if m.num_operands(i) > from {
            return Err(WgslError::new(
                UNMAPPED,
                format!(
                    "`{}` with {what}; WGSL's texture built-ins have no such operand",
                    m.op(i).spelling()
                ),
            ));
        }
        Ok(())
    }

    /// Refuses texture operation `i` when its result or an operand is f16 (WGSL's texture
    /// built-ins take and give 32-bit values only).
    fn no_half(&self, i: InstId) -> R<()> {
        let m = self.m;
        let half = |v: InstId| {
            m.ty(v)
                .and_then(|t| m.scalar_of(t))
                .is_some_and(|s| m.op(s) == Op::F16)
        };
        if half(i) || m.operands(i).any(half) {
            return Err(WgslError::new(
                OPERANDS,
                format!(
                    "`{}` with an f16 operand or result; WGSL's texture built-ins take and give \
                     32-bit values",
                    m.op(i).spelling()
                ),
            ));
        }
        Ok(())
    }

    /// A texture read or query.
    pub fn texture_expr(&mut self, i: InstId) -> R<E> {
        let m = self.m;
        let op = m.op(i);
        if let Some(t) = m.ty(i).filter(|&t| m.op(t) == Op::Struct) {
            return Err(WgslError::new(
                UNMAPPED,
                if m.sparse_texel_type(t).is_some() {
                    // A `{status, texel}` result.
                    format!(
                        "`{}` with sparse residency feedback; WGSL has no sparse residency",
                        op.spelling()
                    )
                } else {
                    format!(
                        "`{}` of a texture whose texel is a struct; WGSL's texture built-ins \
                         return vectors",
                        op.spelling()
                    )
                },
            ));
        }
        self.no_half(i)?;
        let (tex, d, depth) = self.texture_of(m.operand(i, 0))?;
        if matches!(
            op,
            Op::QueryLod | Op::SampleCmpLevel | Op::SampleCmpBias | Op::SampleCmpGrad
        ) {
            return Err(WgslError::new(
                UNMAPPED,
                format!(
                    "`{}` (CalculateLevelOfDetail, SampleCmpLevel, SampleCmpBias, SampleCmpGrad) \
                     has no WGSL built-in",
                    op.spelling()
                ),
            ));
        }
        match op {
            Op::QuerySize => {
                let lod = if m.num_operands(i) > 1
                    && d.access == TextureAccess::Sampled
                    && !d.multisampled
                {
                    let l = self.value(m.operand(i, 1))?;
                    format!(", {}", l.text)
                } else {
                    String::new()
                };
                let dims = format!("textureDimensions({tex}{lod})");
                let ty = self.ty_of(i)?;
                let tn = self.cx.type_name(ty)?;
                let e = if d.arrayed {
                    E::primary(format!("{tn}({dims}, textureNumLayers({tex}))"))
                } else if m.scalar_kind(ty) == Some(oneshader_ir::ScalarKind::Uint) {
                    E::primary(dims)
                } else {
                    E::primary(format!("{tn}({dims})"))
                };
                return Ok(e);
            }
            Op::QueryLevels | Op::QuerySamples => {
                let f = if op == Op::QueryLevels {
                    "textureNumLevels"
                } else {
                    "textureNumSamples"
                };
                let ty = self.ty_of(i)?;
                let e = E::primary(format!("{f}({tex})"));
                if m.op(ty) == Op::U32 {
                    return Ok(e);
                }
                let tn = self.cx.type_name(ty)?;
                return Ok(E::primary(format!("{tn}({})", e.text)));
            }
            Op::TextureLoad => return self.texture_load(i, &tex, &d, depth),
            _ => {}
        }
        if d.dim == Dim::Cube && m.num_operands(i) > offset_index(op) {
            return Err(WgslError::new(OPERANDS, "a texel offset on a cube texture"));
        }
        if !matches!(op, Op::Gather | Op::GatherCmp)
            && m.scalar_kind(d.sampled_type) != Some(oneshader_ir::ScalarKind::Float)
        {
            return Err(WgslError::new(
                UNMAPPED,
                format!(
                    "`{}` of a texture of integer texels; WGSL samples float textures only \
                     (`Load` and `Gather` read integer ones)",
                    op.spelling()
                ),
            ));
        }
        let sampler = self.place(m.operand(i, 1))?.text;
        let (coords, layer) = self.split_coord(m.operand(i, 2), &d, true)?;
        let mut args = vec![tex.clone(), sampler, coords.text];
        if let Some(l) = layer {
            args.push(l.text);
        }
        let (f, extra, offset_at, depth_scalar): (&str, Vec<usize>, usize, bool) = match op {
            Op::Sample => ("textureSample", vec![], 3, depth),
            Op::SampleBias => ("textureSampleBias", vec![3], 4, depth),
            Op::SampleLevel => {
                if depth {
                    return Err(WgslError::new(
                        OPERANDS,
                        "`SampleLevel` on a texture also used for depth comparisons (WGSL's \
                         depth textures take an integer level)",
                    ));
                }
                ("textureSampleLevel", vec![3], 4, false)
            }
            Op::SampleGrad => ("textureSampleGrad", vec![3, 4], 5, depth),
            Op::SampleCmp => ("textureSampleCompare", vec![3], 4, true),
            Op::SampleCmpLevelZero => ("textureSampleCompareLevel", vec![3], 4, true),
            Op::Gather => ("textureGather", vec![], 4, false),
            Op::GatherCmp => ("textureGatherCompare", vec![3], 4, false),
            _ => return Err(malformed("not a texture read")),
        };
        for k in extra {
            let e = self.value(m.operand(i, k))?;
            args.push(e.text);
        }
        if let Some(off) = m.try_operand(i, offset_at) {
            let zero_offset = m.op(off) == Op::Zero;
            if !zero_offset {
                let o = self.const_offset(i, off)?;
                args.push(o.text);
            }
        }
        // A min-LOD clamp follows the offset.
        self.no_extra(i, offset_at + 1, "a min-LOD clamp or sparse feedback")?;
        if op == Op::Gather {
            if !depth {
                let comp = m.imm_operand(i, 3).unwrap_or(0);
                args.insert(0, format!("{comp}u"));
            } else if m.imm_operand(i, 3).unwrap_or(0) != 0 {
                return Err(WgslError::new(
                    OPERANDS,
                    "a gather of a component other than red from a depth texture",
                ));
            }
        }
        let e = E::primary(format!("{f}({})", args.join(", ")));
        if matches!(op, Op::Gather | Op::GatherCmp) {
            return self.narrow(i, e, false);
        }
        self.narrow(i, e, depth_scalar)
    }

    fn texture_load(&mut self, i: InstId, tex: &str, d: &TextureDesc, depth: bool) -> R<E> {
        let m = self.m;
        let (coords, layer) = self.split_coord(m.operand(i, 1), d, false)?;
        let mut coords = coords;
        if let Some(off) = m.try_operand(i, 3)
            && m.op(off) != Op::Zero
        {
            let o = self.value(off)?;
            coords = E::op(format!("{} + {}", coords.p(), o.p()));
        }
        let mut args = vec![tex.to_string(), coords.text];
        if let Some(l) = layer {
            args.push(l.text);
        }
        if d.access == TextureAccess::Sampled {
            match m.try_operand(i, 2) {
                Some(l) => args.push(self.value(l)?.text),
                None if d.multisampled => {
                    return Err(malformed("a multisampled load without a sample index"));
                }
                None => args.push("0i".into()),
            }
        }
        let e = E::primary(format!("textureLoad({})", args.join(", ")));
        self.narrow(i, e, depth)
    }

    /// `textureStore(t, coords, [layer,] value)`.
    pub fn texture_store(&mut self, i: InstId) -> R<String> {
        let m = self.m;
        self.no_half(i)?;
        let (tex, d, _) = self.texture_of(m.operand(i, 0))?;
        let (coords, layer) = self.split_coord(m.operand(i, 1), &d, false)?;
        let v_ir = m.operand(i, 2);
        let v = self.value(v_ir)?;
        let vt = self.ty_of(v_ir)?;
        let s = m
            .scalar_of(vt)
            .ok_or_else(|| malformed("a texture store of a non-numeric value"))?;
        let sn = self.cx.type_name(s)?;
        let n = m.vector_len(vt).unwrap_or(1);
        let value = if n == 4 {
            v.text
        } else {
            let zeros = vec![format!("{sn}()"); (4 - n) as usize].join(", ");
            format!("vec4<{sn}>({}, {zeros})", v.text)
        };
        let mut args = vec![tex, coords.text];
        if let Some(l) = layer {
            args.push(l.text);
        }
        args.push(value);
        Ok(format!("textureStore({})", args.join(", ")))
    }
}

/// The operand index of a read's texel offset.
fn offset_index(op: Op) -> usize {
    match op {
        Op::Sample => 3,
        Op::SampleGrad => 5,
        _ => 4,
    }
}
