//! The WGSL backend from HLSL: what WGSL cannot express is refused with an `OSB02xx`
//! diagnostic naming the construct (at its HLSL position where the front end recorded one),
//! and what it can is printed as WGSL that naga parses and validates (every text here goes
//! through `oneshader_test_tools::naga_validate`).

use oneshader::{CompileOptions, Compiler, Target};
use oneshader_test_tools::naga_validate;

fn wgsl(src: &str, profile: &str) -> Result<String, String> {
    let opts = CompileOptions::new(profile).target(Target::Wgsl);
    match Compiler::new().compile_source("w.hlsl", src, &opts) {
        Ok(out) => {
            let text = out.wgsl.expect("WGSL text");
            naga_validate(&text).unwrap_or_else(|e| panic!("naga rejects:\n{e}\n{text}"));
            Ok(text)
        }
        Err(e) => Err(e.diagnostics.render()),
    }
}

fn refused(src: &str, profile: &str) -> String {
    wgsl(src, profile).expect_err("WGSL refuses it")
}

#[test]
fn what_wgsl_cannot_express_is_refused_by_name() {
    // 64-bit floats.
    let e = refused(
        "RWStructuredBuffer<double> b : register(u0);\n[numthreads(1,1,1)] void main() { b[0] = b[1] * 2.0; }\n",
        "cs_6_0",
    );
    assert!(e.contains("error[OSB0204]") && e.contains("`f64`"), "{e}");
    // Implicit derivatives in a compute shader.
    let e = refused(
        "RWStructuredBuffer<float> b : register(u0);\n[numthreads(4,1,1)] void main(uint i : SV_DispatchThreadID) { b[i] = ddx(b[i]); }\n",
        "cs_6_6",
    );
    assert!(e.contains("error[OSB0209]"), "{e}");
    // A memory barrier that does not synchronize execution.
    let e = refused(
        "RWStructuredBuffer<uint> b : register(u0);\n[numthreads(4,1,1)] void main(uint i : SV_DispatchThreadID) { b[i] = 1; DeviceMemoryBarrier(); }\n",
        "cs_6_0",
    );
    assert!(
        e.contains("error[OSB0208]") && e.contains("DeviceMemoryBarrier"),
        "{e}"
    );
    // Texel buffers.
    let e = refused(
        "Buffer<float4> t : register(t0);\nfloat4 main(uint i : IDX) : SV_Target { return t.Load(i); }\n",
        "ps_6_0",
    );
    assert!(
        e.contains("error[OSB0204]") && e.contains("texel buffer"),
        "{e}"
    );
    // A stage WGSL has no entry point for.
    let e = refused(
        "struct V { float4 p : SV_Position; };\n[maxvertexcount(1)] void main(point V i[1], inout PointStream<V> s) { s.Append(i[0]); }\n",
        "gs_6_0",
    );
    assert!(
        e.contains("error[OSB0203]") && e.contains("geometry"),
        "{e}"
    );
    // DXC's relaxed vector placement in a constant buffer.
    let e = refused(
        "cbuffer C : register(b0) { float a; float3 v; };\nfloat4 main() : SV_Target { return float4(v, a); }\n",
        "ps_6_0",
    );
    assert!(
        e.contains("error[OSB0205]") && e.contains("member `v`") && e.contains("offset 4"),
        "{e}"
    );
    // A run-time texel offset, at its HLSL position.
    let e = refused(
        "[[vk::binding(0)]] Texture2D t;\n[[vk::binding(1)]] SamplerState s;\nfloat4 main(float2 uv : UV, nointerpolation int2 o : O) : SV_Target {\n    return t.SampleLevel(s, uv, 0, o);\n}\n",
        "ps_6_0",
    );
    assert!(e.contains("w.hlsl:4:12: error[OSB0207]"), "{e}");
}

#[test]
fn vertex_and_fragment_interfaces() {
    let text = wgsl(
        r#"
struct VOut { float4 pos : SV_Position; nointerpolation uint id : ID; noperspective float2 uv : UV; centroid float c : C; };
VOut main(uint vid : SV_VertexID, float3 p : POSITION) {
    VOut o;
    o.pos = float4(p, 1);
    o.id = vid;
    o.uv = p.xy;
    o.c = p.z;
    return o;
}
"#,
        "vs_6_0",
    )
    .expect("WGSL");
    assert!(text.contains("@builtin(vertex_index)"), "{text}");
    assert!(text.contains("@interpolate(flat)"), "{text}");
    assert!(text.contains("@interpolate(linear)"), "{text}");
    assert!(
        text.contains("@interpolate(perspective, centroid)"),
        "{text}"
    );
    assert!(text.contains("@vertex\nfn main("), "{text}");
    let text = wgsl(
        r#"
[[vk::binding(0)]] Texture2D t;
[[vk::binding(1)]] Texture2DArray ta;
[[vk::binding(2)]] TextureCube tc;
[[vk::binding(3)]] Texture2D<float> depth;
[[vk::binding(4)]] SamplerState s;
[[vk::binding(5)]] SamplerComparisonState sc;
float4 main(float4 pos : SV_Position, float2 uv : UV, bool front : SV_IsFrontFace) : SV_Target {
    float4 c = t.Sample(s, uv) + t.SampleBias(s, uv, 0.5) + t.SampleGrad(s, uv, ddx(uv), ddy(uv));
    c += ta.SampleLevel(s, float3(uv, 2), 1) + tc.Sample(s, pos.xyz);
    c += t.Gather(s, uv, int2(1, 0)) + t.Load(int3(pos.xy, 0));
    c.x += depth.SampleCmp(sc, uv, 0.5) + depth.SampleCmpLevelZero(sc, uv, 0.25);
    uint w, h;
    t.GetDimensions(w, h);
    c.y += fwidth(uv.x) + ddx_fine(uv.y) + w;
    if (front) c.z += 1;
    if (c.w < 0) discard;
    return c;
}
"#,
        "ps_6_0",
    )
    .expect("WGSL");
    for want in [
        "textureSample(",
        "textureSampleBias(",
        "textureSampleGrad(",
        "textureSampleLevel(",
        "textureGather(",
        "textureLoad(",
        "textureSampleCompare(",
        "textureSampleCompareLevel(",
        "textureDimensions(",
        "texture_depth_2d",
        "sampler_comparison",
        "dpdxFine(",
        "fwidth(",
        "@builtin(front_facing)",
        "discard;",
        "i32(round(",
    ] {
        assert!(text.contains(want), "no `{want}`:\n{text}");
    }
}

#[test]
fn keywords_are_renamed_and_conversions_spelled() {
    let text = wgsl(
        r#"
RWStructuredBuffer<float> loop : register(u0);
[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    int let = (int)id.x;
    float var = let * 0.5;
    loop[id.x] = var + (uint)let;
}
"#,
        "cs_6_0",
    )
    .expect("WGSL");
    assert!(!text.contains("var<storage, read_write> loop:"), "{text}");
    assert!(text.contains("loop_1"), "{text}");
    // No implicit conversion: int to float and int to uint are spelled.
    assert!(text.contains("f32("), "{text}");
    assert!(text.contains("u32("), "{text}");
}

#[test]
fn wave_operations_are_subgroup_builtins() {
    let text = wgsl(
        r#"
RWStructuredBuffer<uint> b : register(u0);
[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
    b[i] = WaveActiveSum(b[i]) + WavePrefixSum(i) + WaveGetLaneIndex() + WaveActiveCountBits(i > 3)
        + (WaveIsFirstLane() ? 1 : 0) + WaveReadLaneAt(i, 2);
}
"#,
        "cs_6_0",
    )
    .expect("WGSL");
    assert!(
        text.starts_with("// naga capabilities: SUBGROUP\n"),
        "{text}"
    );
    for want in [
        "subgroupAdd(",
        "subgroupExclusiveAdd(",
        "@builtin(subgroup_invocation_id)",
        "subgroupBallot(",
        "subgroupShuffle(",
    ] {
        assert!(text.contains(want), "no `{want}`:\n{text}");
    }
}
