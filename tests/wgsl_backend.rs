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
    // Texel buffers without a storage-buffer form (three 32-bit components; the others
    // become storage buffers, tests/wgsl_texel_buffers.rs).
    let e = refused(
        "Buffer<float3> t : register(t0);\nfloat4 main(uint i : IDX) : SV_Target { return t.Load(i).xyzz; }\n",
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
    // An array of matrices whose float2 columns DXC puts in 16-byte registers.
    let e = refused(
        "cbuffer C : register(b0) { float2x2 ms[2]; };\nfloat4 main() : SV_Target { return float4(ms[1][0], ms[0][1]); }\n",
        "ps_6_0",
    );
    assert!(
        e.contains("error[OSB0205]")
            && e.contains("member `ms`")
            && e.contains("matrix stride of 16"),
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

/// The WGSL member (`name: type`) at `@location(loc)` in `text`'s IO struct `strukt`.
fn member_at(text: &str, strukt: &str, loc: u32) -> Option<String> {
    let start = text.find(&format!("struct {strukt} {{"))?;
    let body = &text[start..start + text[start..].find("\n}")?];
    let line = body
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with(&format!("@location({loc})")))?;
    let (_, decl) = line.rsplit_once(") ")?;
    Some(decl.trim_end_matches(',').to_string())
}

#[test]
fn arrays_and_matrices_as_stage_io_take_one_location_each() {
    let src = r#"
struct VI { float4 p : POSITION; float2x3 m : MAT; float4 arr[2] : ARR; float z : Z; };
struct VO { float4 pos : SV_Position; float2 uv[3] : UV; nointerpolation uint id : ID; };
VO main(VI i) {
    VO o;
    o.pos = i.p + i.arr[1] + float4(i.m[1], i.z);
    o.uv[0] = i.m[0].xy; o.uv[1] = i.arr[0].zw; o.uv[2] = i.p.xy;
    o.id = 3;
    return o;
}
"#;
    let text = wgsl(src, "vs_6_0").expect("WGSL");
    // Our SPIR-V's locations (the reflection reads the same decorations the SPIR-V backend
    // writes): MAT at 1 (two locations, one per HLSL row), ARR at 3 (two), Z at 5; UV at 0
    // (three), ID at 3.
    let opts = CompileOptions::new("vs_6_0").with_reflection();
    let out = Compiler::new()
        .compile_source("w.hlsl", src, &opts)
        .expect("SPIR-V");
    let ep = &out.reflection.expect("asked for").entry_points[0];
    let loc = |vars: &[oneshader::reflect::StageVariable], name: &str| {
        vars.iter()
            .find(|v| v.name == name)
            .and_then(|v| v.location)
            .unwrap_or_else(|| panic!("{name} has a location"))
    };
    let (mat, arr, z) = (
        loc(&ep.inputs, "in.var.MAT"),
        loc(&ep.inputs, "in.var.ARR"),
        loc(&ep.inputs, "in.var.Z"),
    );
    let (uv, id) = (
        loc(&ep.outputs, "out.var.UV"),
        loc(&ep.outputs, "out.var.ID"),
    );
    assert_eq!((mat, arr, z, uv, id), (1, 3, 5, 0, 3));
    let at = |s: &str, l: u32| {
        member_at(&text, s, l).unwrap_or_else(|| panic!("{s} @location({l}) in\n{text}"))
    };
    assert_eq!(at("main_in", mat), "in_var_MAT_0: vec3<f32>");
    assert_eq!(at("main_in", mat + 1), "in_var_MAT_1: vec3<f32>");
    assert_eq!(at("main_in", arr), "in_var_ARR_0: vec4<f32>");
    assert_eq!(at("main_in", arr + 1), "in_var_ARR_1: vec4<f32>");
    assert_eq!(at("main_in", z), "in_var_Z: f32");
    for k in 0..3 {
        assert_eq!(at("main_out", uv + k), format!("out_var_UV_{k}: vec2<f32>"));
    }
    assert_eq!(at("main_out", id), "out_var_ID: u32");
    // The elements are copied in and out of the private variables.
    assert!(
        text.contains("in_var_MAT[1] = input.in_var_MAT_1;"),
        "{text}"
    );
    assert!(text.contains("out_var_UV[2]"), "{text}");
    // Interpolation: the float array is interpolated, the uint is flat.
    assert!(!text.contains("@interpolate(flat) out_var_UV"), "{text}");
    assert!(text.contains("@interpolate(flat) out_var_ID"), "{text}");
}

#[test]
fn an_array_of_matrices_as_stage_io_takes_one_location_per_row() {
    let src = r#"
struct VO { float4 pos : SV_Position; float2x3 ms[2] : MS; float3x1 c : C; float w : W; };
VO main(float4 p : P) {
    VO o = (VO)0;
    o.pos = p;
    o.ms[1][0] = p.xyz;
    o.ms[0][1] = p.yzw;
    o.c = p.xyz;
    o.w = p.w;
    return o;
}
"#;
    // `wgsl` has naga validate the text.
    let text = wgsl(src, "vs_6_0").expect("WGSL");
    // Our SPIR-V's locations: MS at 0 (two matrices of two rows: four), C at 4 (a float3x1
    // is a vector: one location, as DXC numbers it), W at 5.
    let opts = CompileOptions::new("vs_6_0").with_reflection();
    let out = Compiler::new()
        .compile_source("w.hlsl", src, &opts)
        .expect("SPIR-V");
    let ep = &out.reflection.expect("asked for").entry_points[0];
    let loc = |name: &str| {
        ep.outputs
            .iter()
            .find(|v| v.name == name)
            .and_then(|v| v.location)
            .unwrap_or_else(|| panic!("{name} has a location"))
    };
    assert_eq!(
        (loc("out.var.MS"), loc("out.var.C"), loc("out.var.W")),
        (0, 4, 5)
    );
    let at = |l: u32| {
        member_at(&text, "main_out", l).unwrap_or_else(|| panic!("@location({l}) in\n{text}"))
    };
    for k in 0..4 {
        assert_eq!(at(k), format!("out_var_MS_{k}: vec3<f32>"));
    }
    assert_eq!(at(4), "out_var_C: vec3<f32>");
    assert_eq!(at(5), "out_var_W: f32");
    // Matrix a, row i goes to member 2a + i.
    assert!(
        text.contains("out_var_MS[1][0], out_var_MS[1][1]"),
        "{text}"
    );
}

#[test]
fn a_matrix_passed_through_stage_io_whole_gets_its_row_members() {
    // Nothing in the module names the matrix's row type (`vec<f32, 3>`): the IO members are
    // spelled from the matrix itself.
    let text = wgsl(
        "struct T { float2x3 c : C; float4 p : SV_Position; };\nT main(T i) { return i; }\n",
        "vs_6_0",
    )
    .expect("WGSL");
    for (s, member) in [
        ("main_in", "in_var_C_0"),
        ("main_in", "in_var_C_1"),
        ("main_out", "out_var_C_0"),
        ("main_out", "out_var_C_1"),
    ] {
        let k = u32::from(member.ends_with('1'));
        assert_eq!(
            member_at(&text, s, k).as_deref(),
            Some(format!("{member}: vec3<f32>").as_str()),
            "{text}"
        );
    }
}

#[test]
fn arrays_of_textures_samplers_and_buffers_are_binding_arrays() {
    let text = wgsl(
        r#"
struct S { float4 a; };
[[vk::binding(0)]] Texture2D ts[4];
[[vk::binding(1)]] SamplerState ss[2];
[[vk::binding(2)]] ConstantBuffer<S> cbs[3];
float4 main(float2 uv : UV) : SV_Target {
    return ts[1].Sample(ss[0], uv) + cbs[2].a;
}
"#,
        "ps_6_0",
    )
    .expect("WGSL");
    assert!(
        text.starts_with(
            "// naga capabilities: BUFFER_BINDING_ARRAY | TEXTURE_AND_SAMPLER_BINDING_ARRAY\n"
        ),
        "{text}"
    );
    assert!(text.contains("enable wgpu_binding_array;"), "{text}");
    assert!(
        text.contains("var ts: binding_array<texture_2d<f32>, 4>;"),
        "{text}"
    );
    assert!(
        text.contains("var ss: binding_array<sampler, 2>;"),
        "{text}"
    );
    assert!(
        text.contains("var<uniform> cbs: binding_array<S, 3>;"),
        "{text}"
    );
    // An index computed at run time asks for non-uniform indexing (the validator of these
    // tests enables exactly what the first line states, so without it naga would refuse).
    let text = wgsl(
        r#"
Texture2D ts[] : register(t0);
SamplerState s : register(s0, space1);
float4 main(float2 uv : UV, nointerpolation uint i : I) : SV_Target {
    return ts[NonUniformResourceIndex(i)].Sample(s, uv);
}
"#,
        "ps_6_0",
    )
    .expect("WGSL");
    assert!(
        text.starts_with(
            "// naga capabilities: TEXTURE_AND_SAMPLER_BINDING_ARRAY | \
             TEXTURE_AND_SAMPLER_BINDING_ARRAY_NON_UNIFORM_INDEXING\n"
        ),
        "{text}"
    );
    assert!(text.contains("binding_array<texture_2d<f32>>"), "{text}");
    // Without the capability the first line states, naga refuses the same text.
    let stripped: String = text.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert!(
        naga_validate(&stripped).is_err(),
        "naga needs the capability"
    );
}

#[test]
fn relaxed_vectors_and_float2_matrices_are_declared_in_parts() {
    let text = wgsl(
        r#"
cbuffer C : register(b0) { float a; float3 v; float2x2 m; row_major float3x2 r; };
float4 main(nointerpolation uint k : K) : SV_Target {
    return float4(v, a) + float4(m[k % 2], r[k % 3]) + float4(m[0][1], r[2][1], 0, 0);
}
"#,
        "ps_6_0",
    )
    .expect("WGSL");
    // v at 4 (DXC's relaxed placement): one f32 per component; m and r: each float2 row or
    // column in its own 16-byte register, one vec2 member each, 16 bytes apart.
    for want in [
        "    a: f32,\n    v_x: f32,\n    v_y: f32,\n    v_z: f32,\n",
        "    @size(16) m_0: vec2<f32>,\n    @size(16) m_1: vec2<f32>,\n",
        // (the last one too: the buffer's size rounds up to its register)
        "    @size(16) r_0: vec2<f32>,\n    @size(16) r_1: vec2<f32>,\n    @size(16) r_2: vec2<f32>,\n",
        "vec3<f32>(C.v_x, C.v_y, C.v_z)",
    ] {
        assert!(text.contains(want), "no `{want}` in\n{text}");
    }
}

#[test]
fn a_group_memory_barrier_every_invocation_reaches_is_a_workgroup_barrier() {
    // In the entry block: `workgroupBarrier()` orders workgroup memory as
    // `GroupMemoryBarrier` does, and synchronizes execution besides.
    let text = wgsl(
        "groupshared uint s[4];\nRWStructuredBuffer<uint> b : register(u0);\n[numthreads(4,1,1)] void main(uint i : SV_GroupIndex) { s[i] = i; GroupMemoryBarrier(); b[i] = s[3 - i]; }\n",
        "cs_6_0",
    )
    .expect("WGSL");
    assert!(text.contains("workgroupBarrier();"), "{text}");
    // Where some invocations may not reach it, an execution barrier would not be a superset.
    let e = refused(
        "groupshared uint s[4];\nRWStructuredBuffer<uint> b : register(u0);\n[numthreads(4,1,1)] void main(uint i : SV_GroupIndex) { s[i] = i; if (b[i] > 2) { GroupMemoryBarrier(); } b[i] = s[3 - i]; }\n",
        "cs_6_0",
    );
    assert!(
        e.contains("error[OSB0208]") && e.contains("GroupMemoryBarrier"),
        "{e}"
    );
    // A device-scope memory barrier has no WGSL superset.
    let e = refused(
        "RWStructuredBuffer<uint> b : register(u0);\n[numthreads(4,1,1)] void main(uint i : SV_GroupIndex) { b[i] = 1; AllMemoryBarrier(); }\n",
        "cs_6_0",
    );
    assert!(
        e.contains("error[OSB0208]") && e.contains("AllMemoryBarrier"),
        "{e}"
    );
}

#[test]
fn arrays_of_structured_buffers_wrap_each_buffer() {
    let text = wgsl(
        "RWStructuredBuffer<float> bufs[2] : register(u0);\n[numthreads(4,1,1)] void main(uint i : SV_DispatchThreadID) { bufs[1][i] = bufs[0][i] * 2; }\n",
        "cs_6_0",
    )
    .expect("WGSL");
    assert!(
        text.starts_with("// naga capabilities: STORAGE_BUFFER_BINDING_ARRAY\n"),
        "{text}"
    );
    assert!(
        text.contains("struct bufs_buffer {\n    v: array<f32>,\n}"),
        "{text}"
    );
    assert!(
        text.contains("var<storage, read_write> bufs: binding_array<bufs_buffer, 2>;"),
        "{text}"
    );
    assert!(text.contains("bufs[1i].v["), "{text}");
}

/// The WGSL of IR text `src` (legalized as `oneshader emit` does), validated by naga, or the
/// rendered refusal.
fn wgsl_of_ir(src: &str) -> Result<String, String> {
    let mut m = oneshader::ir::parse::parse(src).expect("the IR parses");
    let legal = oneshader::backends::prepare(&mut m, Target::Wgsl).expect("legal for WGSL");
    match oneshader::backends::wgsl::emit(&legal, &oneshader::backends::wgsl::Options::default()) {
        Ok(text) => {
            naga_validate(&text).unwrap_or_else(|e| panic!("naga rejects:\n{e}\n{text}"));
            Ok(text)
        }
        Err(e) => Err(e
            .iter()
            .map(|d| format!("error[{}]: {}", d.code, d.message))
            .collect::<Vec<_>>()
            .join("\n")),
    }
}

#[test]
fn half_conversions_are_pack2x16float_and_unpack2x16float() {
    // The shapes of the corpus rows (dxc/intrinsics.f32tof16.hlsl and f16tof32.hlsl): scalars
    // and vectors, component by component.
    let text = wgsl(
        "void main(uint a : A, uint3 c : C, float m : M, float2 n : N, out float om : OM, out float3 oo : OO, out uint oa : OA, out uint2 ob : OB) {\n    om = f16tof32(a); oo = f16tof32(c); oa = f32tof16(m); ob = f32tof16(n);\n}\n",
        "vs_6_0",
    )
    .expect("WGSL");
    // naga asks for this capability for both built-ins.
    assert!(
        text.starts_with("// naga capabilities: SHADER_FLOAT16_IN_FLOAT32\n"),
        "{text}"
    );
    for want in [
        "unpack2x16float(in_var_A).x",
        ".x).x, unpack2x16float(",
        "pack2x16float(vec2<f32>(in_var_M, 0.0f))",
        ".y, 0.0f))",
    ] {
        assert!(text.contains(want), "no `{want}` in\n{text}");
    }
    let stripped: String = text.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert!(
        naga_validate(&stripped).is_err(),
        "naga needs the capability"
    );
    // glslang/hlsl.singleArgIntPromo.vert: an int argument, converted by the front end.
    wgsl(
        "float main() : SV_Target0 { int a = 5; min16float b = min16float(f16tof32(a)); b *= b; uint c = f32tof16(b); return c; }\n",
        "ps_6_0",
    )
    .expect("WGSL");
    // The verifier does not type these operands; WGSL's built-ins take only u32 and f32.
    let e = wgsl_of_ir(
        "global @o : ptr<storage_buffer, rtarray<f32>> [binding(0, 0)]\n\
         func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {\n\
         bb0:\n\
           %0 = call_intrinsic f16tof32(i32 -3) : f32\n\
           %1 = element_addr @o, u32 0 : ptr<storage_buffer, f32>\n\
           store %1, %0\n\
           return\n\
         }\n",
    )
    .expect_err("refused");
    assert!(
        e.contains("error[OSB0207]") && e.contains("`f16tof32` takes u32"),
        "{e}"
    );
}

#[test]
fn early_depth_stencil_is_a_forced_early_depth_test() {
    // dxc/attribute.earlydepthstencil.ps.hlsl
    let text = wgsl(
        "[earlydepthstencil]\nfloat4 main() : SV_Target { return 1.0; }\n",
        "ps_6_0",
    )
    .expect("WGSL");
    assert!(
        text.starts_with("// naga capabilities: EARLY_DEPTH_TEST\n"),
        "{text}"
    );
    assert!(
        text.contains("@fragment @early_depth_test(force)\nfn main("),
        "{text}"
    );
    let stripped: String = text.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert!(
        naga_validate(&stripped).is_err(),
        "naga needs the capability"
    );
    // Without the attribute, neither.
    let text = wgsl("float4 main() : SV_Target { return 1.0; }\n", "ps_6_0").expect("WGSL");
    assert!(
        !text.contains("early_depth_test") && !text.contains("naga capabilities"),
        "{text}"
    );
}

#[test]
fn the_view_index_is_a_multiview_builtin() {
    // glslang/hlsl.multiView.frag, and a vertex shader reading it.
    for (src, profile) in [
        (
            "float4 main(uint ViewIndex : SV_ViewID) : SV_Target { return float4(ViewIndex, 0.0f, 0.0f, 0.0f); }\n",
            "ps_6_1",
        ),
        (
            "float4 main(uint v : SV_ViewID, float4 p : POSITION) : SV_Position { return p + v; }\n",
            "vs_6_1",
        ),
    ] {
        let text = wgsl(src, profile).expect("WGSL");
        assert!(
            text.starts_with("// naga capabilities: MULTIVIEW\n"),
            "{text}"
        );
        assert!(text.contains("@builtin(view_index) "), "{text}");
        assert!(text.contains(": u32,"), "{text}");
        let stripped: String = text.lines().skip(1).collect::<Vec<_>>().join("\n");
        assert!(
            naga_validate(&stripped).is_err(),
            "naga needs the capability"
        );
    }
}

/// Member names and `Offset` decorations of the struct named `name` in SPIR-V `words` (the
/// one struct of that name laid out for a buffer).
fn spirv_member_offsets(words: &[u32], name: &str) -> Vec<(String, u32)> {
    use rspirv::dr::Operand;
    use rspirv::spirv::{Decoration, Op};
    let module = rspirv::dr::load_words(words).expect("our SPIR-V parses");
    let ids: Vec<u32> = module
        .debug_names
        .iter()
        .filter(|i| {
            i.class.opcode == Op::Name
                && i.operands.get(1) == Some(&Operand::LiteralString(name.into()))
        })
        .filter_map(|i| i.operands[0].id_ref_any())
        .filter(|id| {
            module
                .types_global_values
                .iter()
                .any(|t| t.class.opcode == Op::TypeStruct && t.result_id == Some(*id))
        })
        .filter(|&id| {
            module.annotations.iter().any(|i| {
                i.class.opcode == Op::MemberDecorate
                    && i.operands[0] == Operand::IdRef(id)
                    && i.operands[2] == Operand::Decoration(Decoration::Offset)
            })
        })
        .collect();
    assert_eq!(ids.len(), 1, "one laid-out struct named `{name}`");
    let id = ids[0];
    let member = move |op: Op, k: u32| {
        move |i: &&rspirv::dr::Instruction| {
            i.class.opcode == op
                && i.operands[0] == Operand::IdRef(id)
                && i.operands[1] == Operand::LiteralBit32(k)
        }
    };
    let count = module
        .annotations
        .iter()
        .filter(|i| i.class.opcode == Op::MemberDecorate && i.operands[0] == Operand::IdRef(id))
        .filter(|i| i.operands[2] == Operand::Decoration(Decoration::Offset))
        .count() as u32;
    (0..count)
        .map(|k| {
            let n = module
                .debug_names
                .iter()
                .find(member(Op::MemberName, k))
                .and_then(|i| match &i.operands[2] {
                    Operand::LiteralString(s) => Some(s.clone()),
                    _ => None,
                })
                .expect("a member name");
            let o = module
                .annotations
                .iter()
                .filter(member(Op::MemberDecorate, k))
                .find(|i| i.operands[2] == Operand::Decoration(Decoration::Offset))
                .and_then(|i| match i.operands[3] {
                    Operand::LiteralBit32(o) => Some(o),
                    _ => None,
                })
                .expect("an offset");
            (n, o)
        })
        .collect()
}

#[test]
fn a_first_member_at_a_non_zero_offset_follows_a_padding_member() {
    // dxc/vk.layout.attr.offset.hlsl's `[[vk::offset(4)]]` on a first member, in a constant
    // buffer (a nested struct's too) and in a structured buffer; `pad` is taken by a member.
    let src = r#"
struct Inner { [[vk::offset(4)]] float x; float4 y; };
struct C { [[vk::offset(4)]] float a; float pad; Inner s; float b; };
ConstantBuffer<C> cb : register(b0);
struct E { [[vk::offset(8)]] float2 a; uint c; };
RWStructuredBuffer<E> sb : register(u1);
[numthreads(1, 1, 1)]
void main() {
    sb[0].a = float2(cb.a, cb.pad) + cb.s.y.zw;
    sb[1].c = (uint)(cb.s.x + cb.b);
}
"#;
    let text = wgsl(src, "cs_6_0").expect("WGSL");
    for want in [
        "struct C {\n    @size(4) pad_1: u32,\n    a: f32,\n    pad: f32,\n",
        "struct Inner {\n    @size(4) pad: u32,\n    x: f32,\n",
        "struct E {\n    @size(8) pad: u32,\n    a: vec2<f32>,\n",
    ] {
        assert!(text.contains(want), "no `{want}` in\n{text}");
    }
    // Every member where our SPIR-V puts it, the padding member at 0 before them.
    let (module, _) = naga_validate(&text).expect("naga validates");
    let spirv = Compiler::new()
        .compile_source("w.hlsl", src, &CompileOptions::new("cs_6_0"))
        .expect("SPIR-V")
        .spirv;
    for (strukt, pad) in [("C", "pad_1"), ("Inner", "pad"), ("E", "pad")] {
        let (members, _) = oneshader_test_tools::naga_struct_members(&module, strukt)
            .unwrap_or_else(|| panic!("naga has struct `{strukt}`"));
        assert_eq!(members[0], (pad.to_string(), 0), "{strukt}");
        let ours = spirv_member_offsets(&spirv, strukt);
        assert_eq!(members[1..], ours[..], "{strukt}");
        assert!(ours[0].1 > 0, "{strukt}: {ours:?}");
    }
    // A whole struct stored to a buffer would write the padding too: refused.
    let e = refused(
        "struct E { [[vk::offset(8)]] float2 a; uint c; };\nRWStructuredBuffer<E> sb : register(u1);\n[numthreads(1, 1, 1)] void main() { sb[0] = sb[1]; }\n",
        "cs_6_0",
    );
    assert!(
        e.contains("error[OSB0207]") && e.contains("struct `E`"),
        "{e}"
    );
}

#[test]
fn a_pointer_from_a_case_fallen_into_used_after_the_switch_is_refused() {
    // Case 0 falls into `default`, which computes `&b[i]`; after the switch the optimizer
    // reuses that address. The copy of `default` that replaces the fall-through cannot hand
    // a pointer on: legalization refuses it by its own code (not as a failed pipeline).
    let e = refused(
        "RWStructuredBuffer<uint> b : register(u0);\n[numthreads(1, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) {\n    uint i = id.x;\n    switch (b[0]) {\n    case 0:\n        b[1] = 5;\n    default:\n        b[i] = 7;\n        break;\n    }\n    b[i] = b[i] + 1;\n}\n",
        "cs_6_0",
    );
    assert!(
        e.contains("error[OSG0008]") && e.contains("used after the switch"),
        "{e}"
    );
    assert!(!e.contains("OSG0000") && !e.contains("compiler bug"), "{e}");
}

/// The WGSL of HLSL `src` compiled with `-enable-16bit-types` (`half` is 16-bit).
fn wgsl16(src: &str, profile: &str) -> Result<String, String> {
    let mut opts = CompileOptions::new(profile).target(Target::Wgsl);
    opts.enable_16bit_types = true;
    match Compiler::new().compile_source("w.hlsl", src, &opts) {
        Ok(out) => {
            let text = out.wgsl.expect("WGSL text");
            naga_validate(&text).unwrap_or_else(|e| panic!("naga rejects:\n{e}\n{text}"));
            Ok(text)
        }
        Err(e) => Err(e.diagnostics.render()),
    }
}

#[test]
fn halves_are_f16_behind_enable_f16() {
    // In a constant buffer, a structured buffer, stage inputs and outputs, and arithmetic.
    let src = r#"
cbuffer C : register(b0) { half4 e; half2 c; half a; float d; half w[3]; };
struct S { half2 y; half x; float z; half4 w; };
RWStructuredBuffer<S> sb : register(u1);
struct VOut { float4 pos : SV_Position; half2 uv : UV; nointerpolation half k : K; };
half4 main(VOut i) : SV_Target {
    S s = sb[0];
    sb[1].y = s.y * i.uv + c;
    sb[2].w = e * a;
    return e + i.k + (half)d + s.x + (half)s.z + (half)0.1 + w[(uint)i.k];
}
"#;
    let text = wgsl16(src, "ps_6_2").expect("WGSL");
    assert!(
        text.starts_with("// naga capabilities: SHADER_FLOAT16\n\nenable f16;\n"),
        "{text}"
    );
    for want in [
        "@location(0) in_var_UV: vec2<f16>,",
        "@location(0) out_var_SV_Target: vec4<f16>,",
        "var<uniform> C: type_C;",
        "0.099975586h",
    ] {
        assert!(text.contains(want), "no `{want}` in\n{text}");
    }
    // The buffers' members where our SPIR-V puts them.
    let (module, _) = naga_validate(&text).expect("naga validates");
    let mut opts = CompileOptions::new("ps_6_2");
    opts.enable_16bit_types = true;
    let spirv = Compiler::new()
        .compile_source("w.hlsl", src, &opts)
        .expect("SPIR-V")
        .spirv;
    for (ours, naga) in [("type.C", "type_C"), ("S", "S")] {
        let (members, _) = oneshader_test_tools::naga_struct_members(&module, naga)
            .unwrap_or_else(|| panic!("naga has struct `{naga}`"));
        assert_eq!(members, spirv_member_offsets(&spirv, ours), "{ours}");
    }
    // Without the capability the first line states, naga refuses the same text.
    let stripped: String = text.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert!(
        naga_validate(&stripped).is_err(),
        "naga needs the capability"
    );
    // The intrinsics on halves (`frexp` splits the f32 of the value: naga's f16 `frexp`
    // has an i16 exponent).
    let text = wgsl16(
        r#"
RWStructuredBuffer<float4> o : register(u0);
[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    half4 x = (half4)o[id.x];
    half4 y = (half4)o[id.x + 8];
    half4 r = pow(abs(x), y) + exp(x) + exp2(y) + log(abs(x) + 1) + log2(abs(y) + 1) + log10(abs(y) + 1) + frac(x) + round(y) + floor(x) + ceil(y) + trunc(x);
    r += sign(x) + step(x, y) + lerp(x, y, (half)0.25) + smoothstep(x, y, (half4)0.5) + mad(x, y, r) + fmod(x, y) + atan2(x, y);
    r += sin(x) + cos(y) + tan(x) + asin(saturate(y)) + acos(saturate(x)) + atan(x) + sinh(x) + cosh(y) + tanh(x) + sqrt(abs(x)) + rsqrt(abs(y) + 1);
    r += dot(x, y) + length(x) + distance(x, y) + degrees(x) + radians(y) + rcp(y + 1);
    r.xyz += cross(x.xyz, y.xyz) + normalize(x.xyz) + reflect(x.xyz, y.xyz) + refract(x.xyz, y.xyz, (half)0.5) + faceforward(x.xyz, y.xyz, x.xyz);
    r += ldexp(x, y) + min(x, y) + max(x, y) + clamp(x, (half)0, (half)1) + fma(x, y, r);
    half4 e; half4 fr = frexp(x, e); half4 ip; half4 mf = modf(y, ip);
    half s, c; sincos(x.x, s, c);
    r += fr + e + ip + mf + s + c + WaveActiveSum(x) + WaveReadLaneFirst(y) + (half)any(isnan(x)) + (half)all(isinf(y));
    o[id.x] = (float4)r;
}
"#,
        "cs_6_2",
    )
    .expect("WGSL");
    assert!(text.contains("frexp(vec4<f32>("), "{text}");
    // Derivatives and texels of halves: legalization (`intrinsic_widths`, `image_widths`) takes
    // derivatives in f32 and keeps images 32-bit, converting at each access, as for SPIR-V; the
    // WGSL (checked by naga in `wgsl16`) says so.
    let text = wgsl16(
        "half4 main(half2 uv : UV) : SV_Target { return half4(ddx(uv), ddy(uv)); }\n",
        "ps_6_2",
    )
    .expect("derivatives of halves are taken in f32");
    assert!(
        text.contains("dpdx(vec2<f32>(") && text.contains("dpdy(vec2<f32>("),
        "{text}"
    );
    let text = wgsl16(
        "Texture2D<half4> t : register(t0);\nhalf4 main(float4 p : SV_Position) : SV_Target { return t.Load(int3(p.xy, 0)); }\n",
        "ps_6_2",
    )
    .expect("a texture of halves is a texture of f32");
    assert!(
        text.contains("texture_2d<f32>") && text.contains("vec4<f16>(textureLoad("),
        "{text}"
    );
    // What WGSL's f16 still lacks: matrices.
    let e = wgsl16(
        "RWStructuredBuffer<float4> o : register(u0);\n[numthreads(1, 1, 1)] void main() { half2x2 m = half2x2(o[0]); o[1] = float4(mul(m, (half2)o[2].xy), 0, 0); }\n",
        "cs_6_2",
    )
    .expect_err("refused");
    assert!(
        e.contains("error[OSB0204]") && e.contains("f32 matrices only"),
        "{e}"
    );
}

#[test]
fn a_point_size_of_one_is_left_out_with_a_warning_and_any_other_refused() {
    let src = "struct VO { float4 pos : SV_Position; [[vk::builtin(\"PointSize\")]] float size : PSIZE; };\nVO main(float4 p : POSITION) { VO o; o.pos = p; o.size = SIZE; return o; }\n";
    let with = |size: &str| {
        let opts = CompileOptions::new("vs_6_0")
            .target(Target::Wgsl)
            .define("SIZE", Some(size));
        Compiler::new().compile_source("w.hlsl", src, &opts)
    };
    let out = with("1.0").unwrap_or_else(|e| panic!("{}", e.diagnostics.render()));
    let text = out.wgsl.expect("WGSL");
    naga_validate(&text).unwrap_or_else(|e| panic!("naga rejects:\n{e}\n{text}"));
    assert!(!text.contains("point_size"), "{text}");
    let w = out.diagnostics.render();
    assert!(w.contains("warning[OSB0213]"), "{w}");
    for other in ["2.0", "p.x"] {
        let e = with(other).expect_err("refused");
        let r = e.diagnostics.render();
        assert!(
            r.contains("error[OSB0211]")
                && r.contains("point size that is not always the constant 1.0"),
            "{other}: {r}"
        );
    }
}
