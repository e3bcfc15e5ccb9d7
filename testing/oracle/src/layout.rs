//! Where the scalars of a resource sit: the reflection's layout of a buffer's contents (or an
//! image's texels) flattened into [`Slot`]s, each a byte offset, a scalar type and a path
//! (`particles[3].velocity.y`). Inputs are generated slot by slot, and disagreements are
//! reported by slot, with values shown as their type.

use oneshader::reflect::{Scalar, Type};
use oneshader_vulkan_harness::{Channel, Format};

/// One scalar of a resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Byte offset from the start of the resource's memory.
    pub offset: u32,
    /// What it holds.
    pub scalar: Scalar,
    /// Where it is, for reports: `[3].velocity.y`, `texel[5].g`.
    pub path: String,
    /// False for bytes the shader cannot define (the fourth channel of a texel its `float3`
    /// writes leave to the API): covered, so not compared as raw words, and not compared.
    pub defined: bool,
}

/// The size in bytes of a scalar in a buffer (`bool` is stored as a 32-bit word).
pub fn scalar_size(s: Scalar) -> u32 {
    match s {
        Scalar::I8 | Scalar::U8 => 1,
        Scalar::I16 | Scalar::U16 | Scalar::F16 => 2,
        Scalar::Bool | Scalar::I32 | Scalar::U32 | Scalar::F32 => 4,
        Scalar::I64 | Scalar::U64 | Scalar::F64 => 8,
    }
}

const COMPONENTS: [&str; 4] = ["x", "y", "z", "w"];

/// Appends the slots of `ty` placed at `base` to `out`; a runtime-sized array gets
/// `runtime_len` elements. Types reflection does not describe (`Type::Other`) add none.
pub fn slots(ty: &Type, base: u32, path: &str, runtime_len: u32, out: &mut Vec<Slot>) {
    match ty {
        Type::Scalar { scalar } => out.push(Slot {
            offset: base,
            scalar: *scalar,
            path: path.to_string(),
            defined: true,
        }),
        Type::Vector { scalar, components } => {
            let size = scalar_size(*scalar);
            for k in 0..*components {
                out.push(Slot {
                    offset: base + k * size,
                    scalar: *scalar,
                    path: format!("{path}.{}", COMPONENTS[k as usize % 4]),
                    defined: true,
                });
            }
        }
        Type::Matrix {
            scalar,
            rows,
            columns,
            matrix_stride,
            row_major,
        } => {
            let size = scalar_size(*scalar);
            let row_major = row_major.unwrap_or(false);
            for r in 0..*rows {
                for c in 0..*columns {
                    let (major, minor) = if row_major { (r, c) } else { (c, r) };
                    let inner = if row_major { *columns } else { *rows };
                    let stride = matrix_stride.unwrap_or(inner * size);
                    out.push(Slot {
                        offset: base + major * stride + minor * size,
                        scalar: *scalar,
                        path: format!("{path}[{r}][{c}]"),
                        defined: true,
                    });
                }
            }
        }
        Type::Array {
            element,
            length,
            stride,
        } => {
            let n = length.unwrap_or(runtime_len);
            let stride = stride.unwrap_or_else(|| natural_size(element));
            for i in 0..n {
                slots(
                    element,
                    base + i * stride,
                    &format!("{path}[{i}]"),
                    runtime_len,
                    out,
                );
            }
        }
        Type::Struct { members, .. } => {
            let mut at = 0;
            for m in members {
                let offset = m.offset.unwrap_or(at);
                slots(
                    &m.ty,
                    base + offset,
                    &format!("{path}.{}", m.name),
                    runtime_len,
                    out,
                );
                at = offset + m.size.unwrap_or_else(|| natural_size(&m.ty));
            }
        }
        Type::Other { .. } => {}
    }
}

/// The size of `ty` packed without padding (for types outside buffers, which carry no
/// layout).
fn natural_size(ty: &Type) -> u32 {
    match ty {
        Type::Scalar { scalar } => scalar_size(*scalar),
        Type::Vector { scalar, components } => scalar_size(*scalar) * components,
        Type::Matrix {
            scalar,
            rows,
            columns,
            ..
        } => scalar_size(*scalar) * rows * columns,
        Type::Array {
            element,
            length,
            stride,
        } => length.unwrap_or(0) * stride.unwrap_or_else(|| natural_size(element)),
        Type::Struct { members, size, .. } => {
            size.unwrap_or_else(|| members.iter().map(|m| natural_size(&m.ty)).sum())
        }
        Type::Other { .. } => 4,
    }
}

/// The bytes `ty` occupies in a buffer with `runtime_len` elements in its runtime-sized
/// array, if it has one: the reflected size, or the last slot's end.
pub fn byte_size(ty: &Type, reflected: Option<u32>, runtime_len: u32) -> u32 {
    let mut all = Vec::new();
    slots(ty, 0, "", runtime_len, &mut all);
    let end = all
        .iter()
        .map(|s| s.offset + scalar_size(s.scalar))
        .max()
        .unwrap_or(0);
    let runtime_part = match ty {
        Type::Array {
            length: None,
            stride: Some(stride),
            ..
        } => runtime_len * stride,
        Type::Struct { members, .. } => match members.last() {
            Some(m) => match (&m.ty, m.offset) {
                (
                    Type::Array {
                        length: None,
                        stride: Some(stride),
                        ..
                    },
                    Some(offset),
                ) => offset + runtime_len * stride,
                _ => 0,
            },
            None => 0,
        },
        _ => 0,
    };
    end.max(reflected.unwrap_or(0)).max(runtime_part).max(4)
}

/// The slots of `texels` texels of `format`: one per channel (a `rgba8` texel is one `u32`
/// slot, its bytes compared together), the first `defined` channels of each texel only (a
/// shader writing `float3` texels to an `rgba32f` image leaves the fourth to the API: SPIR-V
/// keeps what was there, GLSL's `imageStore` of a padded vector writes 0).
pub fn texel_slots(format: Format, texels: usize, defined: usize) -> Vec<Slot> {
    let (scalar, channels, size) = match format.channel() {
        Channel::U32 => (Scalar::U32, format.words_per_texel(), 4),
        Channel::I32 => (Scalar::I32, format.words_per_texel(), 4),
        Channel::F32 => (Scalar::F32, format.words_per_texel(), 4),
        Channel::F16 => (Scalar::F16, format.words_per_texel() * 2, 2),
        Channel::Unorm8 => (Scalar::U32, 1, 4),
    };
    let names = ["r", "g", "b", "a"];
    let mut out = Vec::with_capacity(texels * channels);
    for t in 0..texels {
        for c in 0..channels {
            out.push(Slot {
                offset: ((t * channels + c) * size) as u32,
                scalar,
                path: format!("texel[{t}].{}", names[c % 4]),
                defined: channels == 1 || c % 4 < defined,
            });
        }
    }
    out
}
