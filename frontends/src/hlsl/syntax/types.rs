//! Which names are HLSL's built-in types (the parser needs this to tell `(T)x` from `(x)`,
//! `T(x)` constructors from calls, and `T<...>` from comparisons).

/// Scalar type names that also have vector (`float4`) and matrix (`float3x4`) forms.
const SCALARS: &[&str] = &[
    "bool",
    "int",
    "uint",
    "dword",
    "half",
    "float",
    "double",
    "min16float",
    "min10float",
    "min16int",
    "min12int",
    "min16uint",
    "int16_t",
    "int32_t",
    "int64_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "float16_t",
    "float32_t",
    "float64_t",
];

/// Other built-in type names (resources, samplers, patches, streams, ray tracing, legacy).
const OTHER: &[&str] = &[
    "void",
    "string",
    "vector",
    "matrix",
    "uint8_t4_packed",
    "int8_t4_packed",
    // textures
    "Texture1D",
    "Texture1DArray",
    "Texture2D",
    "Texture2DArray",
    "Texture3D",
    "TextureCube",
    "TextureCubeArray",
    "Texture2DMS",
    "Texture2DMSArray",
    "RWTexture1D",
    "RWTexture1DArray",
    "RWTexture2D",
    "RWTexture2DArray",
    "RWTexture3D",
    "RWTexture2DMS",
    "RWTexture2DMSArray",
    "RasterizerOrderedTexture1D",
    "RasterizerOrderedTexture1DArray",
    "RasterizerOrderedTexture2D",
    "RasterizerOrderedTexture2DArray",
    "RasterizerOrderedTexture3D",
    "FeedbackTexture2D",
    "FeedbackTexture2DArray",
    // buffers
    "Buffer",
    "RWBuffer",
    "RasterizerOrderedBuffer",
    "StructuredBuffer",
    "RWStructuredBuffer",
    "RasterizerOrderedStructuredBuffer",
    "AppendStructuredBuffer",
    "ConsumeStructuredBuffer",
    "ByteAddressBuffer",
    "RWByteAddressBuffer",
    "RasterizerOrderedByteAddressBuffer",
    "ConstantBuffer",
    "TextureBuffer",
    // samplers
    "SamplerState",
    "SamplerComparisonState",
    "sampler",
    "sampler1D",
    "sampler2D",
    "sampler3D",
    "samplerCUBE",
    "sampler2DShadow",
    "SamplerComparisonState",
    // legacy texture objects
    "texture",
    "Texture",
    "texture1D",
    "texture2D",
    "texture3D",
    "textureCUBE",
    // tessellation and geometry
    "InputPatch",
    "OutputPatch",
    "PointStream",
    "LineStream",
    "TriangleStream",
    // ray tracing
    "RaytracingAccelerationStructure",
    "RayDesc",
    "RayQuery",
    "BuiltInTriangleIntersectionAttributes",
    "HitObject",
    // subpass inputs
    "SubpassInput",
    "SubpassInputMS",
    // work graphs
    "DispatchNodeInputRecord",
    "RWDispatchNodeInputRecord",
    "GroupNodeInputRecords",
    "RWGroupNodeInputRecords",
    "ThreadNodeInputRecord",
    "RWThreadNodeInputRecord",
    "EmptyNodeInput",
    "NodeOutput",
    "NodeOutputArray",
    "EmptyNodeOutput",
    "EmptyNodeOutputArray",
    "GroupNodeOutputRecords",
    "ThreadNodeOutputRecords",
    // DX9 effects
    "VertexShader",
    "PixelShader",
    "GeometryShader",
    "HullShader",
    "DomainShader",
    "ComputeShader",
    "BlendState",
    "DepthStencilState",
    "RasterizerState",
    "vertexshader",
    "pixelshader",
];

/// Built-in types in the `vk` namespace (DXC's SPIR-V extensions).
const VK_TYPES: &[&str] = &[
    "SpirvType",
    "SpirvOpaqueType",
    "Literal",
    "integral_constant",
    "BufferPointer",
    "ext_result_id",
    "SampledTexture1D",
    "SampledTexture1DArray",
    "SampledTexture2D",
    "SampledTexture2DArray",
    "SampledTexture2DMS",
    "SampledTexture2DMSArray",
    "SampledTexture3D",
    "SampledTextureCube",
    "SampledTextureCubeArray",
    "SampledTextureCUBE",
    "SampledTextureCUBEArray",
    "SampledBuffer",
];

/// True for `float`, `float4`, `half3x3`, `min16float2`, `uint64_t`, `Texture2D`, `vector`, ...
pub fn is_builtin_type(name: &str) -> bool {
    if SCALARS.contains(&name) || OTHER.contains(&name) {
        return true;
    }
    // Vector `T<N>` and matrix `T<N>x<M>` forms with N, M in 1..=4.
    let b = name.as_bytes();
    if b.len() >= 2 && (b'1'..=b'4').contains(&b[b.len() - 1]) {
        let n = b.len();
        if n >= 4 && b[n - 2] == b'x' && (b'1'..=b'4').contains(&b[n - 3]) {
            return SCALARS.contains(&&name[..n - 3]);
        }
        return SCALARS.contains(&&name[..n - 1]);
    }
    false
}

/// True for a built-in type written with a namespace: `vk::SpirvType`, `dx::HitObject`.
pub fn is_builtin_qualified_type(namespace: &str, name: &str) -> bool {
    match namespace {
        "vk" => VK_TYPES.contains(&name),
        "dx" => matches!(name, "HitObject" | "MaybeReorderThread"),
        _ => false,
    }
}

/// Built-in functions that take explicit template arguments: `vk::RawBufferLoad<float>(a)`,
/// `buf.Load<float4>(0)`.
pub fn is_builtin_template_function(name: &str) -> bool {
    matches!(
        name,
        "RawBufferLoad"
            | "RawBufferStore"
            | "Load"
            | "Store"
            | "Load2"
            | "Load3"
            | "Load4"
            | "Get"
            | "GetGroupSharedAddress"
            | "static_pointer_cast"
            | "reinterpret_pointer_cast"
            | "bit_cast"
            | "select"
            | "InterlockedAdd"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_and_matrix_forms() {
        for t in [
            "float4",
            "half2x3",
            "uint64_t",
            "min16float4",
            "bool1",
            "int4x4",
            "double2",
        ] {
            assert!(is_builtin_type(t), "{t}");
        }
        for t in [
            "float5", "float0", "float4x5", "foo4", "x", "floatx4", "Float4",
        ] {
            assert!(!is_builtin_type(t), "{t}");
        }
        assert!(is_builtin_type("RWStructuredBuffer"));
        assert!(is_builtin_qualified_type("vk", "SpirvType"));
    }
}
