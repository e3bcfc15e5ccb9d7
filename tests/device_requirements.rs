//! The reflection's device requirements: read off the SPIR-V the backend emitted, the
//! capabilities and extensions with the Vulkan feature flags and subgroup operations they
//! imply.

use oneshader::{CompileOptions, Compiler, TargetEnv};

#[test]
fn reflection_lists_what_the_device_needs() {
    let src = r#"
RWStructuredBuffer<half> h : register(u0);
RWStructuredBuffer<uint64_t> l : register(u1);
[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    h[id.x] = h[id.x] * (half)2;
    l[id.x] = WaveActiveSum(l[id.x]) + (uint64_t)WaveActiveCountBits(id.x > 1);
}
"#;
    let mut opts = CompileOptions::new("cs_6_2")
        .target_env(TargetEnv::Vulkan1_1)
        .with_reflection();
    opts.enable_16bit_types = true;
    let out = Compiler::new()
        .compile_source("req.hlsl", src, &opts)
        .unwrap_or_else(|e| panic!("{e}\n{}", e.diagnostics.render()));
    let r = out
        .reflection
        .expect("asked for")
        .requirements
        .expect("SPIR-V was emitted");
    assert_eq!(r.spirv_version, "1.3");
    for cap in [
        "Shader",
        "Int64",
        "Float16",
        "StorageBuffer16BitAccess",
        "GroupNonUniformArithmetic",
    ] {
        assert!(r.capabilities.iter().any(|c| c == cap), "{cap}: {r:?}");
    }
    for f in ["shaderFloat16", "shaderInt64", "storageBuffer16BitAccess"] {
        assert!(r.vulkan_features.iter().any(|x| x == f), "{f}: {r:?}");
    }
    assert_eq!(r.subgroup_operations, ["arithmetic", "ballot", "basic"]);
    // The JSON carries it; without SPIR-V there is nothing to say.
    let json = oneshader::reflect::Reflection::to_json(&oneshader::reflect::Reflection {
        requirements: Some(r.clone()),
        ..oneshader::reflect::Reflection::from_json(
            r#"{"format":1,"layout":{"constant_buffer":"relaxed_std140","storage_buffer":"relaxed_std430","push_constant":"relaxed_std430","texture_buffer":"relaxed_std430"},"entry_points":[],"resources":[]}"#,
        )
        .expect("parses")
    });
    assert!(json.contains("\"vulkan_features\""), "{json}");
    let mut no_spirv = opts.clone();
    no_spirv.emit_spirv = false;
    let out = Compiler::new()
        .compile_source("req.hlsl", src, &no_spirv)
        .expect("compiles");
    assert_eq!(out.reflection.expect("asked for").requirements, None);
}
