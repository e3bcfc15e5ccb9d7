//! GLSL spellings of IR types.
//!
//! | IR | GLSL |
//! |---|---|
//! | `bool`, `i32`, `u32`, `f32`, `f64` | `bool`, `int`, `uint`, `float`, `double` |
//! | `i8`/`u8`, `i16`/`u16`, `i64`/`u64`, `f16` | `int8_t`..., with the `GL_EXT_shader_explicit_arithmetic_types_*` extension |
//! | `vec<T, n>` | `bvecN`, `ivecN`, `uvecN`, `vecN`, `dvecN`, `i16vecN`, `f16vecN`... |
//! | `mat<f32, R, C>` (HLSL `floatRxC`) | `matRxC` (`matN` when square): R columns of C components, so GLSL's column `i` is HLSL's row `i`, exactly the SPIR-V backend's `OpTypeMatrix` of R columns of `vec<C>` |
//! | `array<T, n>`, `rtarray<T>` | `T[n]`, `T[]` (declarations put the dimensions after the name) |
//! | `struct @S` | `struct S` (declared once, before its first use) |
//! | `texture<...>`, `sampler`, `sampler_cmp` | `texture2D`, `itexture2DArray`, `image2D`, `textureBuffer`, `subpassInput`..., `sampler`, `samplerShadow` |

use oneshader_ir::{Dim, InstId, Module, Op, TextureAccess, TextureDesc};
use std::borrow::Cow;

use super::error::{GlslError, R, TYPE, malformed};
use super::module::ModuleCx;

/// Extensions a scalar type needs for arithmetic.
pub(crate) fn scalar_extension(op: Op) -> Option<&'static str> {
    match op {
        Op::I8 | Op::U8 => Some("GL_EXT_shader_explicit_arithmetic_types_int8"),
        Op::I16 | Op::U16 => Some("GL_EXT_shader_explicit_arithmetic_types_int16"),
        Op::I64 | Op::U64 => Some("GL_EXT_shader_explicit_arithmetic_types_int64"),
        Op::F16 => Some("GL_EXT_shader_explicit_arithmetic_types_float16"),
        _ => None,
    }
}

/// The GLSL name of a scalar type.
pub(crate) fn scalar_name(op: Op) -> Option<&'static str> {
    Some(match op {
        Op::Bool => "bool",
        Op::I8 => "int8_t",
        Op::I16 => "int16_t",
        Op::I32 => "int",
        Op::I64 => "int64_t",
        Op::U8 => "uint8_t",
        Op::U16 => "uint16_t",
        Op::U32 => "uint",
        Op::U64 => "uint64_t",
        Op::F16 => "float16_t",
        Op::F32 => "float",
        Op::F64 => "double",
        _ => return None,
    })
}

/// The prefix of vector (and matrix) type names for a component type.
fn vector_prefix(op: Op) -> Option<&'static str> {
    Some(match op {
        Op::Bool => "b",
        Op::I8 => "i8",
        Op::I16 => "i16",
        Op::I32 => "i",
        Op::I64 => "i64",
        Op::U8 => "u8",
        Op::U16 => "u16",
        Op::U32 => "u",
        Op::U64 => "u64",
        Op::F16 => "f16",
        Op::F32 => "",
        Op::F64 => "d",
        _ => return None,
    })
}

/// The GLSL name of `vec<T, n>` for a scalar opcode `T` (the scalar's name when `n` is 1).
pub(crate) fn vector_name(elem: Op, n: u32) -> Option<String> {
    if n == 1 {
        return scalar_name(elem).map(str::to_string);
    }
    vector_prefix(elem).map(|p| format!("{p}vec{n}"))
}

/// The dimension part of an opaque type name (`2DArray`, `CubeArray`, `2DMS`, `Buffer`).
pub(crate) fn dim_suffix(d: &TextureDesc) -> String {
    let base = match d.dim {
        Dim::D1 => "1D",
        Dim::D2 => "2D",
        Dim::D3 => "3D",
        Dim::Cube => "Cube",
        Dim::Buffer => "Buffer",
        Dim::SubpassData => "",
    };
    format!(
        "{base}{}{}",
        if d.multisampled { "MS" } else { "" },
        if d.arrayed { "Array" } else { "" }
    )
}

fn unsupported(m: &Module, ty: InstId, why: &str) -> GlslError {
    GlslError::new(
        TYPE,
        format!(
            "type `{}` cannot be expressed in GLSL: {why}",
            oneshader_ir::print::print_inst(m, ty)
        ),
    )
}

impl ModuleCx<'_> {
    /// Records the extension a scalar type needs.
    pub(crate) fn need_scalar(&mut self, op: Op) {
        if let Some(e) = scalar_extension(op) {
            self.ext(e);
        }
    }

    /// The texel prefix (`""`, `i`, `u`) of a texture's sampled type; 16- and 64-bit texels
    /// are refused.
    pub(crate) fn texel_prefix(&mut self, ty: InstId, d: &TextureDesc) -> R<&'static str> {
        let m = self.m;
        let scalar = m
            .scalar_of(d.sampled_type)
            .ok_or_else(|| unsupported(m, ty, "the texel type is not a scalar or vector"))?;
        let storage = d.access == TextureAccess::Storage && d.dim != Dim::SubpassData;
        Ok(match m.op(scalar) {
            Op::F32 => "",
            Op::I32 => "i",
            Op::U32 => "u",
            // 64-bit integer storage images (GL_EXT_shader_image_int64).
            Op::I64 | Op::U64 if storage => {
                self.ext("GL_EXT_shader_image_int64");
                self.ext("GL_EXT_shader_explicit_arithmetic_types_int64");
                if m.op(scalar) == Op::I64 {
                    "i64"
                } else {
                    "u64"
                }
            }
            _ => {
                return Err(unsupported(
                    m,
                    ty,
                    "GLSL textures have 32-bit float, int or uint texels (and storage images \
                     64-bit integers too)",
                ));
            }
        })
    }

    /// The GLSL type of a texture, storage image, subpass input or sampler.
    pub(crate) fn opaque_name(&mut self, ty: InstId) -> R<String> {
        let m = self.m;
        match m.op(ty) {
            Op::Sampler => return Ok("sampler".into()),
            Op::SamplerCmp => return Ok("samplerShadow".into()),
            Op::Texture => {}
            _ => return Err(unsupported(m, ty, "not an opaque type")),
        }
        let d = m
            .texture_desc(ty)
            .ok_or_else(|| unsupported(m, ty, "malformed texture type"))?;
        let p = self.texel_prefix(ty, &d)?;
        if d.dim == Dim::SubpassData {
            return Ok(format!(
                "{p}subpassInput{}",
                if d.multisampled { "MS" } else { "" }
            ));
        }
        let kind = if d.access == TextureAccess::Storage {
            "image"
        } else {
            "texture"
        };
        Ok(format!("{p}{kind}{}", dim_suffix(&d)))
    }

    /// The base (non-array) GLSL type name of a value type, and the array dimensions that
    /// follow a declared name (`[4][2]`, `[]`).
    pub(crate) fn type_parts(&mut self, ty: InstId) -> R<(Cow<'static, str>, String)> {
        let m = self.m;
        let mut dims = String::new();
        let mut t = ty;
        loop {
            match m.try_op(t) {
                Some(Op::Array) => {
                    let n = m.array_len(t).unwrap_or(0);
                    dims.push_str(&format!("[{n}]"));
                    t = m.operand(t, 0);
                }
                Some(Op::RuntimeArray) => {
                    dims.push_str("[]");
                    t = m.operand(t, 0);
                }
                _ => break,
            }
        }
        Ok((self.base_type(t)?, dims))
    }

    /// `T name[dims]`: a declaration of `name` with type `ty`.
    pub(crate) fn decl(&mut self, ty: InstId, name: &str) -> R<String> {
        let (base, dims) = self.type_parts(ty)?;
        Ok(format!("{base} {name}{dims}"))
    }

    /// The type as written in a constructor or a function's return type (`float[3]`).
    pub(crate) fn type_name(&mut self, ty: InstId) -> R<String> {
        let (base, dims) = self.type_parts(ty)?;
        Ok(format!("{base}{dims}"))
    }

    /// The name of a non-array type.
    fn base_type(&mut self, ty: InstId) -> R<Cow<'static, str>> {
        let m = self.m;
        let op = m
            .try_op(ty)
            .ok_or_else(|| malformed("a type operand is missing"))?;
        if let Some(s) = scalar_name(op) {
            self.need_scalar(op);
            return Ok(Cow::Borrowed(s));
        }
        match op {
            Op::Void => Ok("void".into()),
            Op::Vector => {
                let e = m.operand(ty, 0);
                let n = m.vector_len(ty).unwrap_or(4);
                let p = vector_prefix(m.op(e))
                    .ok_or_else(|| unsupported(m, ty, "the component is not a scalar"))?;
                self.need_scalar(m.op(e));
                Ok(format!("{p}vec{n}").into())
            }
            Op::Matrix => {
                let e = m.operand(ty, 0);
                let p = match m.op(e) {
                    Op::F32 => "",
                    Op::F64 => "d",
                    Op::F16 => "f16",
                    _ => {
                        return Err(unsupported(
                            m,
                            ty,
                            "GLSL matrices have float components only (as SPIR-V's)",
                        ));
                    }
                };
                self.need_scalar(m.op(e));
                let (rows, cols) = m
                    .matrix_dims(ty)
                    .ok_or_else(|| unsupported(m, ty, "malformed matrix type"))?;
                // HLSL rows are GLSL columns: `floatRxC` is `matRxC`.
                Ok(if rows == cols {
                    format!("{p}mat{rows}")
                } else {
                    format!("{p}mat{rows}x{cols}")
                }
                .into())
            }
            Op::Struct => self.struct_name(ty).map(Cow::Owned),
            Op::Texture | Op::Sampler | Op::SamplerCmp => self.opaque_name(ty).map(Cow::Owned),
            // Ray queries (GL_EXT_ray_query), in any stage.
            Op::AccelStruct => {
                // Declared by either extension: ray-tracing stages have GL_EXT_ray_tracing.
                if !is_ray_tracing(self.entry.stage) {
                    self.ext("GL_EXT_ray_query");
                }
                Ok("accelerationStructureEXT".into())
            }
            Op::RayQuery => {
                self.ext("GL_EXT_ray_query");
                Ok("rayQueryEXT".into())
            }
            Op::Array | Op::RuntimeArray => {
                let (b, d) = self.type_parts(ty)?;
                Ok(format!("{b}{d}").into())
            }
            Op::Ptr => Err(unsupported(
                m,
                ty,
                "GLSL has no pointer values (only variables, parameters and buffer members)",
            )),
            Op::StringType => Err(unsupported(m, ty, "strings are not values in GLSL")),
            Op::TypeType | Op::Specialize => Err(unsupported(
                m,
                ty,
                "a generic left unspecialized (run the legalization pipeline)",
            )),
            _ => Err(unsupported(m, ty, "not a value type")),
        }
    }
}

/// True for the ray-tracing stages (GL_EXT_ray_tracing).
pub(crate) fn is_ray_tracing(stage: oneshader_ir::Stage) -> bool {
    use oneshader_ir::Stage as S;
    matches!(
        stage,
        S::RayGeneration | S::Intersection | S::AnyHit | S::ClosestHit | S::Miss | S::Callable
    )
}
