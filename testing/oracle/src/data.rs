//! Seeded random inputs for every resource a compute shader binds, from its reflection.
//!
//! Every resource gets its own stream of the seed (by set and binding), so adding a resource
//! does not change the data of the others. Values follow the type of each scalar in the
//! reflected layout ([`crate::layout`]); bytes no scalar covers (padding) are zero.
//!
//! # The value rules
//!
//! - **Floats** (`f16`, `f32`, `f64`, float texels): finite, never subnormal. One in eight is
//!   one of ±0, ±1, 0.5, ±2; the others have a random sign, a magnitude in [1/16, 16) and
//!   random mantissa bits. NaNs, infinities and subnormals are left out of the inputs
//!   because Vulkan lets an implementation flush subnormals and does not define NaN
//!   payloads, so such inputs test the driver rather than the compiler; shaders may still
//!   compute them, and outputs are compared under [`crate::compare`]'s rules.
//! - **Integers**: signed ones in [-16, 16), unsigned ones in [0, 32), whatever their width.
//!   Small, because shaders use buffer contents as loop bounds and indices: a random 32-bit
//!   bound would make a loop run for minutes. Out-of-range indices still happen and read
//!   zero on the harness's robust device (VK_EXT_robustness2), the same in every voice.
//! - **Bools**: 0 or 1 (a 32-bit word in a buffer).
//! - **`rgba8` texels**: any bytes.
//! - Byte-address buffers are arrays of `u32` words in the reflection, so they get small
//!   unsigned integers (a word the shader reads with `asfloat` is then a subnormal or zero).

use oneshader::reflect::{Reflection, Resource as Reflected, ResourceKind, Scalar, Type};
use oneshader_vulkan_harness::{Binding, Dim, Format, Image, Resource, Sampler, TexelBuffer};

use crate::OracleError;
use crate::layout::{Slot, byte_size, scalar_size, slots, texel_slots};
use crate::rng::Rng;

/// Sizes of what [`seeded`] makes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputOptions {
    /// Elements of every runtime-sized array (structured buffers, byte-address buffers).
    pub runtime_len: u32,
    /// Workgroups to dispatch.
    pub groups: [u32; 3],
    /// Texels along each side of an image (1D: the width; 2D and cube faces: width and
    /// height; 3D: all three).
    pub image_size: u32,
    /// Layers of an array image (faces of a cube array: six times this).
    pub array_layers: u32,
    /// Texels of a texel buffer.
    pub texel_buffer_len: u32,
}

impl InputOptions {
    /// One workgroup, and runtime arrays long enough that every invocation indexing by its
    /// global id in x, y or z stays in bounds. One workgroup because lavapipe runs a
    /// workgroup's invocations in a fixed order on one thread, while workgroups run on
    /// several threads: two invocations of different workgroups writing one place (a
    /// corpus shader writing `buf[0]` from every thread) would make the result depend on
    /// scheduling, a freedom of the GPU and not a difference between voices.
    pub fn for_workgroup(size: [u32; 3]) -> InputOptions {
        let groups = [1, 1, 1];
        let threads = size[0] * groups[0];
        let longest = threads.max(size[1]).max(size[2]);
        InputOptions {
            runtime_len: (longest + 16).max(64),
            groups,
            image_size: 8,
            array_layers: 2,
            texel_buffer_len: (longest + 16).max(64),
        }
    }
}

/// What one dispatch reads: its bindings, push constants and workgroup count.
#[derive(Clone, Debug, PartialEq)]
pub struct Inputs {
    /// Resources at their sets and bindings.
    pub bindings: Vec<Binding>,
    /// Push-constant words (pushed at offset 0).
    pub push_constants: Vec<u32>,
    /// Workgroups to dispatch.
    pub groups: [u32; 3],
}

impl Inputs {
    /// Inputs given by hand (a test that chose its data).
    pub fn new(bindings: Vec<Binding>, push_constants: Vec<u32>, groups: [u32; 3]) -> Inputs {
        Inputs {
            bindings,
            push_constants,
            groups,
        }
    }
}

/// Seeded random inputs for every resource and push-constant block of `r` that an entry
/// point uses. `Err(OracleError::Unsupported)` names the first resource the harness cannot
/// make (a descriptor array, a multisampled texture, a subpass input, a texel format it
/// has no Vulkan format for, two resources at one set and binding).
pub fn seeded(r: &Reflection, seed: u64, opts: &InputOptions) -> Result<Inputs, OracleError> {
    let mut bindings = Vec::new();
    let used: Vec<&Reflected> = r.resources.iter().filter(|res| res.used).collect();
    for (k, res) in used.iter().enumerate() {
        // A descriptor set layout has one descriptor per binding (DXC numbers `t0` and `u0`
        // alike unless told to shift them); lavapipe crashes on a pipeline whose shader uses
        // two types at one binding.
        if let Some(other) = used[..k]
            .iter()
            .find(|o| (o.set, o.binding) == (res.set, res.binding))
        {
            return Err(unsupported(
                res,
                format!("shares its set and binding with `{}`", other.name),
            ));
        }
    }
    for res in used {
        let mut rng = Rng::fork(seed, ((res.set as u64) << 32) | res.binding as u64);
        let resource = make(res, &mut rng, opts)?;
        bindings.push(Binding::new(res.set, res.binding, resource));
    }
    let mut push_constants = Vec::new();
    if let Some(pc) = r.push_constants.iter().find(|p| p.used) {
        let mut rng = Rng::fork(seed, u64::MAX);
        let mut bytes = vec![0u8; pc.size.next_multiple_of(4) as usize];
        let mut all = Vec::new();
        slots(&pc.ty, 0, "", opts.runtime_len, &mut all);
        fill(&mut bytes, &all, &mut rng);
        push_constants = words_of(&bytes);
    }
    Ok(Inputs {
        bindings,
        push_constants,
        groups: opts.groups,
    })
}

fn unsupported(res: &Reflected, why: impl Into<String>) -> OracleError {
    OracleError::Unsupported(format!(
        "`{}` (set {}, binding {}): {}",
        res.name,
        res.set,
        res.binding,
        why.into()
    ))
}

fn make(res: &Reflected, rng: &mut Rng, opts: &InputOptions) -> Result<Resource, OracleError> {
    if res.array_size.is_some() {
        return Err(unsupported(res, "an array of descriptors"));
    }
    Ok(match res.kind {
        ResourceKind::ConstantBuffer => Resource::UniformBuffer(buffer(res, rng, opts)?),
        ResourceKind::Tbuffer
        | ResourceKind::StructuredBuffer
        | ResourceKind::RwStructuredBuffer
        | ResourceKind::ByteAddressBuffer
        | ResourceKind::RwByteAddressBuffer
        | ResourceKind::AppendStructuredBuffer
        | ResourceKind::ConsumeStructuredBuffer
        | ResourceKind::Counter
        | ResourceKind::StorageBuffer => Resource::StorageBuffer(buffer(res, rng, opts)?),
        ResourceKind::Texture => Resource::SampledImage(image(res, rng, opts)?),
        ResourceKind::StorageTexture => Resource::StorageImage(image(res, rng, opts)?),
        ResourceKind::TexelBuffer => Resource::UniformTexelBuffer(texel_buffer(res, rng, opts)?),
        ResourceKind::StorageTexelBuffer => {
            Resource::StorageTexelBuffer(texel_buffer(res, rng, opts)?)
        }
        ResourceKind::Sampler => Resource::Sampler(Sampler { compare: false }),
        ResourceKind::ComparisonSampler => Resource::Sampler(Sampler { compare: true }),
        ResourceKind::SubpassInput => return Err(unsupported(res, "a subpass input")),
        ResourceKind::AccelerationStructure => {
            return Err(unsupported(res, "an acceleration structure"));
        }
        other => return Err(unsupported(res, format!("a {other:?} resource"))),
    })
}

fn buffer(res: &Reflected, rng: &mut Rng, opts: &InputOptions) -> Result<Vec<u32>, OracleError> {
    let ty = res
        .ty
        .as_ref()
        .ok_or_else(|| unsupported(res, "a buffer without a reflected type"))?;
    let size = byte_size(ty, res.size, opts.runtime_len);
    let mut bytes = vec![0u8; size.next_multiple_of(4) as usize];
    let mut all = Vec::new();
    slots(ty, 0, "", opts.runtime_len, &mut all);
    fill(&mut bytes, &all, rng);
    Ok(words_of(&bytes))
}

/// The texel format a texture or texel buffer is made with.
pub fn format_of(res: &Reflected) -> Result<Format, OracleError> {
    let info = res
        .texture
        .as_ref()
        .ok_or_else(|| unsupported(res, "a texture without texture information"))?;
    if let Some(name) = &info.format {
        return Format::from_name(name)
            .ok_or_else(|| unsupported(res, format!("texel format `{name}`")));
    }
    let (scalar, n) = match &info.sampled_type {
        Type::Scalar { scalar } => (*scalar, 1),
        Type::Vector { scalar, components } => (*scalar, *components),
        other => return Err(unsupported(res, format!("texels of type {other:?}"))),
    };
    Ok(match (scalar, n) {
        (Scalar::F32, 1) => Format::R32Float,
        (Scalar::F32, 2) => Format::Rg32Float,
        (Scalar::F32, _) => Format::Rgba32Float,
        (Scalar::I32, 1) => Format::R32Sint,
        (Scalar::I32, 2) => Format::Rg32Sint,
        (Scalar::I32, _) => Format::Rgba32Sint,
        (Scalar::U32 | Scalar::Bool, 1) => Format::R32Uint,
        (Scalar::U32 | Scalar::Bool, 2) => Format::Rg32Uint,
        (Scalar::U32 | Scalar::Bool, _) => Format::Rgba32Uint,
        (s, _) => return Err(unsupported(res, format!("texels of {s:?}"))),
    })
}

fn image(res: &Reflected, rng: &mut Rng, opts: &InputOptions) -> Result<Image, OracleError> {
    let info = res
        .texture
        .as_ref()
        .ok_or_else(|| unsupported(res, "a texture without texture information"))?;
    if info.multisampled {
        return Err(unsupported(res, "a multisampled texture"));
    }
    let format = format_of(res)?;
    let n = opts.image_size;
    let layers = if info.arrayed { opts.array_layers } else { 1 };
    let (dim, width, height, depth, layers) = match info.dim.as_str() {
        "1d" => (Dim::D1, n, 1, 1, layers),
        "2d" => (Dim::D2, n, n, 1, layers),
        "3d" => (Dim::D3, n, n, n, 1),
        "cube" => (Dim::Cube, n, n, 1, 6 * layers),
        other => return Err(unsupported(res, format!("a texture of shape `{other}`"))),
    };
    let texels = (width * height * depth * layers) as usize;
    let mut bytes = vec![0u8; texels * format.words_per_texel() * 4];
    fill(&mut bytes, &texel_slots(format, texels, 4), rng);
    Ok(Image {
        format,
        dim,
        arrayed: info.arrayed,
        width,
        height,
        depth,
        layers,
        data: words_of(&bytes),
    })
}

fn texel_buffer(
    res: &Reflected,
    rng: &mut Rng,
    opts: &InputOptions,
) -> Result<TexelBuffer, OracleError> {
    let format = format_of(res)?;
    let texels = opts.texel_buffer_len as usize;
    let mut bytes = vec![0u8; texels * format.words_per_texel() * 4];
    fill(&mut bytes, &texel_slots(format, texels, 4), rng);
    Ok(TexelBuffer {
        format,
        data: words_of(&bytes),
    })
}

/// Writes a random value of each slot's type (the rules of the module documentation).
pub fn fill(bytes: &mut [u8], all: &[Slot], rng: &mut Rng) {
    for s in all {
        let size = scalar_size(s.scalar) as usize;
        let at = s.offset as usize;
        if at + size > bytes.len() {
            continue;
        }
        let v = value(s.scalar, rng);
        bytes[at..at + size].copy_from_slice(&v.to_le_bytes()[..size]);
    }
}

/// A random value of `scalar` as little-endian bits.
pub fn value(scalar: Scalar, rng: &mut Rng) -> u64 {
    match scalar {
        Scalar::Bool => rng.below(2),
        Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64 => (rng.below(32) as i64 - 16) as u64,
        Scalar::U8 | Scalar::U16 | Scalar::U32 | Scalar::U64 => rng.below(32),
        Scalar::F16 => float_bits(rng, 5, 10),
        Scalar::F32 => float_bits(rng, 8, 23),
        Scalar::F64 => float_bits(rng, 11, 52),
    }
}

/// A random finite, non-subnormal float with `e` exponent bits and `m` mantissa bits.
fn float_bits(rng: &mut Rng, e: u32, m: u32) -> u64 {
    let bias = (1u64 << (e - 1)) - 1;
    let sign = rng.below(2) << (e + m);
    if rng.chance(12) {
        // ±0, ±1, 0.5, ±2.
        let (neg, exp) = [
            (0, 0),
            (1, 0),
            (0, bias),
            (1, bias),
            (0, bias - 1),
            (0, bias + 1),
            (1, bias + 1),
        ][rng.below(7) as usize];
        return (neg << (e + m)) | (exp << m);
    }
    let exp = bias - 4 + rng.below(8);
    let mantissa = rng.next_u64() & ((1u64 << m) - 1);
    sign | (exp << m) | mantissa
}

fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_follow_the_stated_rules() {
        let mut rng = Rng(7);
        for _ in 0..10_000 {
            let f = f32::from_bits(value(Scalar::F32, &mut rng) as u32);
            assert!(f.is_finite() && (f == 0.0 || f.is_normal()), "{f}");
            assert!(f.abs() < 16.0, "{f}");
            let i = value(Scalar::I32, &mut rng) as i64;
            assert!((-16..16).contains(&i), "{i}");
            assert!(value(Scalar::U32, &mut rng) < 32);
            assert!(value(Scalar::Bool, &mut rng) < 2);
            let h = value(Scalar::F16, &mut rng) as u16;
            assert!(h & 0x7c00 != 0x7c00, "a finite half");
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_data_and_another_seed_other_data() {
        let text = "global @data : ptr<storage_buffer, rtarray<f32>> [binding(0, 1)]\n\
                    func @main() -> void [entry_point(compute, \"main\"), numthreads(4, 1, 1)] {\n\
                    bb0:\n  %0 = element_addr @data, u32 0 : ptr<storage_buffer, f32>\n  store %0, f32 1.0\n  return\n}\n";
        let m = oneshader::ir::parse::parse(text).expect("parses");
        let r = oneshader::reflect::reflect(&m, &Default::default()).expect("reflects");
        let opts = InputOptions::for_workgroup([4, 1, 1]);
        let a = seeded(&r, 1, &opts).expect("inputs");
        let b = seeded(&r, 1, &opts).expect("inputs");
        let c = seeded(&r, 2, &opts).expect("inputs");
        assert_eq!(a, b);
        assert_ne!(a.bindings[0].words(), c.bindings[0].words());
        assert_eq!(a.bindings[0].words().len(), opts.runtime_len as usize);
        assert_eq!((a.bindings[0].set, a.bindings[0].binding), (0, 1));
    }

    /// DXC gives `t0` and `u0` the same binding: such a shader cannot be bound through one
    /// descriptor set layout, so it is reported as unsupported, not handed to the driver.
    #[test]
    fn two_resources_at_one_binding_are_unsupported() {
        let text = "global @a : ptr<storage_buffer, rtarray<f32>> [binding(0, 0)]\n\
                    global @b : ptr<storage_buffer, rtarray<f32>> [binding(0, 0)]\n\
                    func @main() -> void [entry_point(compute, \"main\"), numthreads(4, 1, 1)] {\n\
                    bb0:\n  %0 = element_addr @a, u32 0 : ptr<storage_buffer, f32>\n  \
                    %1 = element_addr @b, u32 0 : ptr<storage_buffer, f32>\n  \
                    %2 = load %0 : f32\n  store %1, %2\n  return\n}\n";
        let m = oneshader::ir::parse::parse(text).expect("parses");
        let r = oneshader::reflect::reflect(&m, &Default::default()).expect("reflects");
        let err = seeded(&r, 1, &InputOptions::for_workgroup([4, 1, 1])).expect_err("refused");
        assert!(
            matches!(&err, OracleError::Unsupported(why) if why.contains("shares its set and binding with `a`")),
            "{err}"
        );
    }
}
