//! The stages beyond vertex, pixel and compute, per construct: each shader goes through
//! analysis, lowering (the module must verify), the `-O0` and `-O` pipelines and the SPIR-V
//! backend, and both spirv-vals must accept both outputs (mesh shading and ray tracing need
//! SPIR-V 1.4: they are validated for vulkan1.2). Mistakes are diagnostics with the source
//! position and a stable code. Execution of geometry and tessellation is in the root
//! package's `tests/graphics_exec.rs`; mesh and ray-tracing modules are checked by the
//! validators only (lavapipe runs neither).

mod sema_common;

use oneshader_backends::spirv::{self, TargetEnv};
use sema_common::{compile_with, errors, ir_text, opts, spirv_valid, spirv_valid_env};

fn disassembly(words: &[u32]) -> String {
    spirv::disassemble(words).expect("parses")
}

#[test]
fn geometry_shader_modes_streams_and_system_values() {
    let words = spirv_valid(
        r#"
struct VSOut { float4 pos : SV_Position; float2 uv : TEXCOORD0; float clip : SV_ClipDistance0; };
struct GSOut {
    float4 pos : SV_Position;
    float2 uv : TEXCOORD0;
    uint layer : SV_RenderTargetArrayIndex;
    uint viewport : SV_ViewportArrayIndex;
    uint prim : SV_PrimitiveID;
};
void emit(inout TriangleStream<GSOut> s, GSOut v) { s.Append(v); }
[maxvertexcount(4)]
[instance(3)]
void main(lineadj VSOut v[4], uint id : SV_GSInstanceID, uint prim : SV_PrimitiveID,
          inout TriangleStream<GSOut> stream) {
    for (uint i = 0; i < 4; i++) {
        GSOut o;
        o.pos = v[i].pos * v[i].clip;
        o.uv = v[i].uv;
        o.layer = id;
        o.viewport = id;
        o.prim = prim;
        emit(stream, o);
    }
    stream.RestartStrip();
}"#,
        "gs_6_0",
    );
    let text = disassembly(&words);
    for want in [
        "OpEntryPoint Geometry",
        "OpExecutionMode %1 Invocations 3",
        "OpExecutionMode %1 InputLinesAdjacency",
        "OpExecutionMode %1 OutputTriangleStrip",
        "OpExecutionMode %1 OutputVertices 4",
        "BuiltIn InvocationId",
        "BuiltIn Layer",
        "BuiltIn ViewportIndex",
        "BuiltIn ClipDistance",
        "OpEmitVertex",
        "OpEndPrimitive",
    ] {
        assert!(text.contains(want), "{want} missing:\n{text}");
    }
}

#[test]
fn geometry_shader_with_several_streams() {
    let words = spirv_valid(
        r#"
struct V { float4 pos : SV_Position; };
struct W { float4 data : DATA; };
[maxvertexcount(2)]
void main(point V v[1], inout PointStream<V> s0, inout PointStream<W> s1) {
    s0.Append(v[0]);
    W w; w.data = v[0].pos;
    s1.Append(w);
    s1.RestartStrip();
}"#,
        "gs_6_0",
    );
    let text = disassembly(&words);
    for want in [
        "OpCapability GeometryStreams",
        "OpEmitStreamVertex",
        "OpEndStreamPrimitive",
        "Stream 1",
    ] {
        assert!(text.contains(want), "{want} missing:\n{text}");
    }
}

#[test]
fn hull_and_domain_shaders() {
    const COMMON: &str = r#"
struct CP { float3 pos : POSITION; float4 color : COLOR; };
struct PC { float edges[3] : SV_TessFactor; float inside : SV_InsideTessFactor; float3 center : CENTER; };
"#;
    let hs = format!(
        r#"{COMMON}
PC constants(InputPatch<CP, 3> ip, OutputPatch<CP, 3> op, uint prim : SV_PrimitiveID) {{
    PC pc;
    pc.edges[0] = pc.edges[1] = pc.edges[2] = 2.0 + prim;
    pc.inside = 3.0;
    pc.center = (op[0].pos + op[1].pos + op[2].pos) / 3.0 + ip[0].pos * 0.0;
    return pc;
}}
[domain("tri")]
[partitioning("fractional_odd")]
[outputtopology("triangle_cw")]
[outputcontrolpoints(3)]
[patchconstantfunc("constants")]
[maxtessfactor(16.0)]
CP main(InputPatch<CP, 3> ip, uint id : SV_OutputControlPointID, uint prim : SV_PrimitiveID) {{
    CP c = ip[id];
    c.color.a = prim;
    return c;
}}"#
    );
    let words = spirv_valid(&hs, "hs_6_0");
    let text = disassembly(&words);
    for want in [
        "OpEntryPoint TessellationControl",
        "OpExecutionMode %1 Triangles",
        "OpExecutionMode %1 SpacingFractionalOdd",
        "OpExecutionMode %1 VertexOrderCw",
        "OpExecutionMode %1 OutputVertices 3",
        "BuiltIn TessLevelOuter",
        "BuiltIn TessLevelInner",
        "OpControlBarrier",
        "Patch",
    ] {
        assert!(text.contains(want), "{want} missing:\n{text}");
    }
    let ds = format!(
        r#"{COMMON}
struct DSOut {{ float4 pos : SV_Position; float4 color : COLOR; }};
[domain("tri")]
DSOut main(PC pc, float3 uvw : SV_DomainLocation, const OutputPatch<CP, 3> patch, uint prim : SV_PrimitiveID) {{
    DSOut o;
    float3 p = patch[0].pos * uvw.x + patch[1].pos * uvw.y + patch[2].pos * uvw.z;
    o.pos = float4(p + pc.center * pc.inside, 1.0);
    o.color = patch[0].color * pc.edges[2] + prim;
    return o;
}}"#
    );
    let words = spirv_valid(&ds, "ds_6_0");
    let text = disassembly(&words);
    for want in [
        "OpEntryPoint TessellationEvaluation",
        "BuiltIn TessCoord",
        "OpExecutionMode %1 Triangles",
    ] {
        assert!(text.contains(want), "{want} missing:\n{text}");
    }
}

#[test]
fn hull_outputs_and_domain_inputs_are_numbered_alphabetically() {
    // The control point (`ZED`, `ALPHA`) and the patch constant (`MIDDLE`) share one
    // location space in both stages, numbered by semantic: ALPHA 0, MIDDLE 1, ZED 2, whatever
    // the order of declaration (DXC's rule).
    let hs = r#"
struct CP { float4 z : ZED; float4 a : ALPHA; };
struct PC { float e[4] : SV_TessFactor; float i[2] : SV_InsideTessFactor; float4 m : MIDDLE; };
PC pcf() { PC p = (PC)0; return p; }
[domain("quad")] [partitioning("integer")] [outputtopology("triangle_ccw")]
[outputcontrolpoints(4)] [patchconstantfunc("pcf")]
CP main(InputPatch<CP, 4> ip, uint id : SV_OutputControlPointID) { return ip[id]; }
"#;
    let ir = ir_text(hs, "hs_6_0");
    assert!(
        ir.contains("@out.var.ALPHA : ptr<output, array<vec<f32, 4>, 4>> [location(0)"),
        "{ir}"
    );
    assert!(
        ir.contains("@out.var.MIDDLE : ptr<output, vec<f32, 4>> [location(1)"),
        "{ir}"
    );
    assert!(
        ir.contains("@out.var.ZED : ptr<output, array<vec<f32, 4>, 4>> [location(2)"),
        "{ir}"
    );
    let ds = r#"
struct CP { float4 z : ZED; float4 a : ALPHA; };
struct PC { float e[4] : SV_TessFactor; float i[2] : SV_InsideTessFactor; float4 m : MIDDLE; };
[domain("quad")]
float4 main(PC pc, float2 uv : SV_DomainLocation, OutputPatch<CP, 4> p) : SV_Position {
    return p[0].z + p[1].a + pc.m;
}
"#;
    let ir = ir_text(ds, "ds_6_0");
    assert!(
        ir.contains("@in.var.ALPHA : ptr<input, array<vec<f32, 4>, 4>> [location(0)"),
        "{ir}"
    );
    assert!(
        ir.contains("@in.var.MIDDLE : ptr<input, vec<f32, 4>> [location(1)"),
        "{ir}"
    );
    assert!(
        ir.contains("@in.var.ZED : ptr<input, array<vec<f32, 4>, 4>> [location(2)"),
        "{ir}"
    );
    // A control point and a patch constant may share a semantic: two varyings, the control
    // point's first (DXC numbers them ALPHA 0, SHARED 1, patch SHARED 2).
    let hs = r#"
struct CP { float4 s : SHARED; float4 a : ALPHA; };
struct PC { float e[4] : SV_TessFactor; float i[2] : SV_InsideTessFactor; float4 s : SHARED; };
PC pcf() { PC p = (PC)0; return p; }
[domain("quad")] [partitioning("integer")] [outputtopology("triangle_ccw")]
[outputcontrolpoints(4)] [patchconstantfunc("pcf")]
CP main(InputPatch<CP, 4> ip, uint id : SV_OutputControlPointID) { return ip[id]; }
"#;
    let ir = ir_text(hs, "hs_6_0");
    assert!(
        ir.contains("@out.var.ALPHA : ptr<output, array<vec<f32, 4>, 4>> [location(0)"),
        "{ir}"
    );
    assert!(
        ir.contains("@out.var.SHARED : ptr<output, array<vec<f32, 4>, 4>> [location(1)"),
        "{ir}"
    );
    assert!(
        ir.contains("@out.var.SHARED.1 : ptr<output, vec<f32, 4>> [location(2), semantic(\"SHARED\", 0), patch]"),
        "{ir}"
    );
    let ds = r#"
struct CP { float4 s : SHARED; float4 a : ALPHA; };
struct PC { float e[4] : SV_TessFactor; float i[2] : SV_InsideTessFactor; float4 s : SHARED; };
[domain("quad")]
float4 main(OutputPatch<CP, 4> p, PC pc, float2 uv : SV_DomainLocation) : SV_Position {
    return p[0].s + p[1].a + pc.s;
}
"#;
    let ir = ir_text(ds, "ds_6_0");
    assert!(
        ir.contains("@in.var.SHARED : ptr<input, array<vec<f32, 4>, 4>> [location(1)"),
        "{ir}"
    );
    assert!(
        ir.contains("@in.var.SHARED.1 : ptr<input, vec<f32, 4>> [location(2), semantic(\"SHARED\", 0), patch]"),
        "{ir}"
    );
}

#[test]
fn mesh_and_amplification_shaders() {
    let ms = r#"
struct Payload { uint base; float scale; };
struct V { float4 pos : SV_Position; float3 color : COLOR; float clip[2] : SV_ClipDistance; };
struct P { uint layer : SV_RenderTargetArrayIndex; bool cull : SV_CullPrimitive; float4 flat : FLAT; };
[outputtopology("triangle")]
[numthreads(32, 1, 1)]
void main(uint tid : SV_GroupThreadID, uint gid : SV_GroupID, in payload Payload pl,
          out vertices V verts[64], out indices uint3 tris[32], out primitives P prims[32]) {
    SetMeshOutputCounts(64, 32);
    V v;
    v.pos = float4(tid * pl.scale, gid, 0, 1);
    v.color = float3(pl.base, 0, 1);
    v.clip[0] = 1.0; v.clip[1] = -1.0;
    verts[tid * 2] = v;
    verts[tid * 2 + 1].pos = v.pos + 1.0;
    verts[tid * 2 + 1].color.g = 0.5;
    verts[tid * 2 + 1].clip = v.clip;
    tris[tid] = uint3(tid * 2, tid * 2 + 1, 0);
    prims[tid].layer = tid % 4;
    prims[tid].cull = tid > 30;
    prims[tid].flat = v.pos;
}"#;
    let words = spirv_valid(ms, "ms_6_5");
    let text = disassembly(&words);
    for want in [
        "OpCapability MeshShadingEXT",
        "OpExtension \"SPV_EXT_mesh_shader\"",
        "OpEntryPoint MeshEXT",
        "OpExecutionMode %1 OutputVertices 64",
        "OpExecutionMode %1 OutputPrimitivesEXT 32",
        "OpExecutionMode %1 OutputTrianglesEXT",
        "BuiltIn PrimitiveTriangleIndicesEXT",
        "BuiltIn CullPrimitiveEXT",
        "PerPrimitiveEXT",
        "OpSetMeshOutputsEXT",
        "TaskPayloadWorkgroupEXT",
    ] {
        assert!(text.contains(want), "{want} missing:\n{text}");
    }
    let amp = r#"
struct Payload { uint base; float scale; };
groupshared Payload pl;
groupshared uint counter;
[numthreads(8, 1, 1)]
void main(uint tid : SV_GroupThreadID) {
    if (tid == 0) { pl.base = 7; pl.scale = 0.5; counter = 0; }
    GroupMemoryBarrierWithGroupSync();
    InterlockedAdd(counter, 1);
    GroupMemoryBarrierWithGroupSync();
    DispatchMesh(counter, 1, 1, pl);
}"#;
    let words = spirv_valid(amp, "as_6_5");
    let text = disassembly(&words);
    for want in [
        "OpEntryPoint TaskEXT",
        "OpEmitMeshTasksEXT",
        "TaskPayloadWorkgroupEXT",
        "Workgroup",
    ] {
        assert!(text.contains(want), "{want} missing:\n{text}");
    }
}

#[test]
fn ray_tracing_library() {
    let src = r#"
struct Payload { float4 color; uint depth; };
struct Attribs { float2 bary; };
struct CallData { float3 v; };
RaytracingAccelerationStructure scene : register(t0);
RWTexture2D<float4> image : register(u0);
[shader("raygeneration")]
void rg() {
    uint2 id = DispatchRaysIndex().xy;
    float2 size = DispatchRaysDimensions().xy;
    RayDesc ray;
    ray.Origin = float3(id / size, -1.0);
    ray.Direction = float3(0, 0, 1);
    ray.TMin = 0.0;
    ray.TMax = 1000.0;
    Payload p;
    p.color = 0; p.depth = 0;
    TraceRay(scene, RAY_FLAG_CULL_BACK_FACING_TRIANGLES, 0xFF, 0, 1, 0, ray, p);
    CallData c; c.v = p.color.rgb;
    CallShader(0, c);
    image[id] = float4(c.v, 1.0);
}
[shader("closesthit")]
void chit(inout Payload p, in BuiltInTriangleIntersectionAttributes a) {
    float3x4 m = ObjectToWorld3x4();
    p.color = float4(a.barycentrics, RayTCurrent(), m[0][3]) * (HitKind() == HIT_KIND_TRIANGLE_FRONT_FACE ? 1.0 : 0.5);
    p.color.a += InstanceID() + InstanceIndex() + PrimitiveIndex() + GeometryIndex();
    if (p.depth < 2) {
        RayDesc r; r.Origin = WorldRayOrigin() + WorldRayDirection() * RayTCurrent();
        r.Direction = ObjectRayDirection(); r.TMin = RayTMin(); r.TMax = 10.0;
        p.depth++;
        TraceRay(scene, RAY_FLAG_NONE, 0xFF, 0, 1, 0, r, p);
    }
}
[shader("anyhit")]
void ahit(inout Payload p, in Attribs a) {
    if (a.bary.x < 0.1) IgnoreHit();
    if (a.bary.y > 0.9) AcceptHitAndEndSearch();
    p.depth += 10;
}
[shader("miss")]
void miss(inout Payload p) { p.color = float4(RayFlags(), 0, 0, 1); }
[shader("intersection")]
void isect() {
    Attribs a; a.bary = ObjectRayOrigin().xy;
    ReportHit(RayTMin() + 1.0, 1, a);
}
[shader("callable")]
void callable(inout CallData d) { d.v = d.v * 2.0; }
"#;
    let words = spirv_valid(src, "lib_6_3");
    let text = disassembly(&words);
    for want in [
        "OpCapability RayTracingKHR",
        "OpExtension \"SPV_KHR_ray_tracing\"",
        "OpEntryPoint RayGenerationKHR",
        "OpEntryPoint ClosestHitKHR",
        "OpEntryPoint AnyHitKHR",
        "OpEntryPoint MissKHR",
        "OpEntryPoint IntersectionKHR",
        "OpEntryPoint CallableKHR",
        "OpTraceRayKHR",
        "OpExecuteCallableKHR",
        "OpReportIntersectionKHR",
        "OpIgnoreIntersectionKHR",
        "OpTerminateRayKHR",
        "BuiltIn ObjectToWorldKHR",
        "BuiltIn LaunchIdKHR",
        "IncomingRayPayloadKHR",
        "HitAttributeKHR",
    ] {
        assert!(text.contains(want), "{want} missing:\n{text}");
    }
}

#[test]
fn intersection_shaders_of_a_library_report_their_own_attribute_types() {
    // Each entry point has one hit-attribute variable: its own type's.
    let words = spirv_valid(
        r#"
struct A { float2 b; };
struct B { float4 c; };
float hitT() { return RayTMin() + 1.0; }
[shader("intersection")]
void i1() { A a; a.b = ObjectRayOrigin().xy; ReportHit(hitT(), 0, a); }
[shader("intersection")]
void i2() { B b; b.c = 2.0; ReportHit(hitT(), 1, b); ReportHit(3.0, 2, b); }
"#,
        "lib_6_3",
    );
    let text = disassembly(&words);
    assert_eq!(
        text.matches("OpEntryPoint IntersectionKHR").count(),
        2,
        "{text}"
    );
    let variables = text
        .lines()
        .filter(|l| l.contains("OpVariable") && l.trim_end().ends_with("HitAttributeKHR"))
        .count();
    assert_eq!(variables, 2, "{text}");
}

#[test]
fn ray_queries_in_any_stage() {
    let src = r#"
RaytracingAccelerationStructure scene : register(t0);
bool occluded(RayQuery<RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH> q, float3 from) {
    RayDesc r; r.Origin = from; r.Direction = float3(0, 1, 0); r.TMin = 0.01; r.TMax = 100.0;
    q.TraceRayInline(scene, RAY_FLAG_NONE, 0xFF, r);
    while (q.Proceed()) {
        if (q.CandidateType() == CANDIDATE_NON_OPAQUE_TRIANGLE) {
            if (q.CandidateTriangleBarycentrics().x > 0.5) q.CommitNonOpaqueTriangleHit();
        } else if (q.CandidateProceduralPrimitiveNonOpaque()) {
            q.CommitProceduralPrimitiveHit(q.RayTMin());
        } else {
            q.Abort();
        }
    }
    return q.CommittedStatus() != COMMITTED_NOTHING;
}
float4 main(float4 pos : SV_Position, float3 world : WORLD) : SV_Target {
    RayQuery<RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH> q;
    float shadow = occluded(q, world) ? 0.25 : 1.0;
    float3x4 m = q.CommittedObjectToWorld3x4();
    return float4(shadow, q.CommittedRayT(), m[1][2], q.CommittedInstanceID());
}"#;
    let words = spirv_valid(src, "ps_6_5");
    let text = disassembly(&words);
    for want in [
        "OpCapability RayQueryKHR",
        "OpRayQueryInitializeKHR",
        "OpRayQueryProceedKHR",
        "OpRayQueryConfirmIntersectionKHR",
        "OpRayQueryGenerateIntersectionKHR",
        "OpRayQueryTerminateKHR",
        "OpRayQueryGetIntersectionObjectToWorldKHR",
    ] {
        assert!(text.contains(want), "{want} missing:\n{text}");
    }
    // The query's own flags are or-ed into the ones given to TraceRayInline.
    let ir = ir_text(src, "ps_6_5");
    assert!(ir.contains("= or u32 0, u32 4 : u32"), "{ir}");
}

/// Ray queries below SPIR-V 1.4 (issue 26, item 7): `SPV_KHR_ray_query` needs no more than
/// SPIR-V 1.0, so for vulkan1.0 (SPIR-V 1.0) and vulkan1.1 (1.3) the module keeps the
/// environment's version and declares the extension, as DXC does; both spirv-vals accept it
/// at -O0 and -O.
#[test]
fn ray_queries_below_spirv_1_4() {
    let src = r#"
RaytracingAccelerationStructure scene : register(t0);
RWStructuredBuffer<float> o : register(u1);
[numthreads(4, 1, 1)] void main(uint i : SV_DispatchThreadID) {
    RayQuery<RAY_FLAG_FORCE_OPAQUE> q;
    RayDesc r; r.Origin = float3(i, 0, 0); r.Direction = float3(0, 1, 0); r.TMin = 0.0; r.TMax = 10.0;
    q.TraceRayInline(scene, RAY_FLAG_NONE, 0xFF, r);
    q.Proceed();
    o[i] = q.CommittedStatus() == COMMITTED_TRIANGLE_HIT ? q.CommittedRayT() : -1.0;
}"#;
    for (env, version) in [
        (TargetEnv::Vulkan1_0, 0x0001_0000),
        (TargetEnv::Vulkan1_1, 0x0001_0300),
    ] {
        let words = spirv_valid_env(src, "cs_6_5", env);
        assert_eq!(words[1], version, "{env}: the environment's SPIR-V version");
        let text = disassembly(&words);
        for want in [
            "OpCapability RayQueryKHR",
            "OpExtension \"SPV_KHR_ray_query\"",
            "OpTypeAccelerationStructureKHR",
            "OpRayQueryInitializeKHR",
        ] {
            assert!(text.contains(want), "{env}: {want} missing:\n{text}");
        }
    }
}

#[test]
fn mesh_and_ray_tracing_need_spirv_1_4() {
    let ms = r#"
[outputtopology("point")] [numthreads(1, 1, 1)]
void main(out vertices float4 v[1] : SV_Position, out indices uint i[1]) {
    SetMeshOutputCounts(1, 1); v[0] = 0; i[0] = 0;
}"#;
    let mut m = sema_common::module(ms, "ms_6_5");
    sema_common::pipeline(&mut m, oneshader_passes::pipeline::OptLevel::O0);
    let err = sema_common::emit(&mut m, &spirv::Options::for_env(TargetEnv::Vulkan1_0))
        .expect_err("SPIR-V 1.0 has no mesh shading");
    assert!(err.iter().any(|d| d.code == "OSB0006"), "{err:?}");
    spirv_valid_env(ms, "ms_6_5", TargetEnv::Vulkan1_3);
}

#[test]
fn stage_mistakes_are_diagnosed_with_positions() {
    // A ray-tracing intrinsic in a pixel shader.
    let out = errors(
        "float4 main() : SV_Target { IgnoreHit(); return 0; }",
        "ps_6_0",
    );
    assert!(
        out.contains(
            "main.hlsl:1:29: error[OSH1040]: `IgnoreHit` is available in anyhit shaders only"
        ),
        "{out}"
    );
    // A geometry shader without its vertex count.
    let out = errors(
        "struct V { float4 p : SV_Position; };\n\
         void main(point V v[1], inout PointStream<V> s) { s.Append(v[0]); }",
        "gs_6_0",
    );
    assert!(
        out.contains("error[OSH1025]") && out.contains("[maxvertexcount(n)]"),
        "{out}"
    );
    // The input primitive's array must have the primitive's vertex count.
    let out = errors(
        "struct V { float4 p : SV_Position; };\n[maxvertexcount(1)]\n\
         void main(triangle V v[2], inout PointStream<V> s) { s.Append(v[0]); }",
        "gs_6_0",
    );
    assert!(
        out.contains("declare it as an array of 3 vertices"),
        "{out}"
    );
    // Per-vertex built-ins come through the vertex arrays, never as single values: a
    // geometry shader's extra position input, a position in a domain shader's patch
    // constants, a position among a hull shader's patch constants.
    let out = errors(
        "struct V { float4 p : SV_Position; };\n[maxvertexcount(1)]\n\
         void main(point V v[1], float4 q : SV_Position, inout PointStream<V> s) { s.Append(v[0]); }",
        "gs_6_0",
    );
    assert!(
        out.contains(
            "main.hlsl:3:32: error[OSH1023]: `SV_Position` is one value per vertex in a geometry \
             shader's inputs: use it through the input primitive's vertices"
        ),
        "{out}"
    );
    let out = errors(
        "struct CP { float4 p : P; };\n\
         struct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; float c : SV_ClipDistance; };\n\
         [domain(\"tri\")]\nfloat4 main(PC pc, const OutputPatch<CP, 3> p) : SV_Position { return p[0].p * pc.c; }",
        "ds_6_0",
    );
    assert!(
        out.contains("main.hlsl:2:78: error[OSH1023]: `SV_ClipDistance` is one value per vertex")
            && out.contains("use it through the `OutputPatch`"),
        "{out}"
    );
    let out = errors(
        "struct CP { float4 p : SV_Position; };\n\
         struct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; float4 q : SV_Position; };\n\
         PC f(InputPatch<CP, 3> ip) { PC p = (PC)0; p.q = ip[0].p; return p; }\n\
         [domain(\"tri\")][partitioning(\"integer\")][outputtopology(\"triangle_cw\")]\n\
         [outputcontrolpoints(3)][patchconstantfunc(\"f\")]\nCP main(InputPatch<CP, 3> ip) { return ip[0]; }",
        "hs_6_0",
    );
    assert!(
        out.contains(
            "error[OSH1023]: `SV_Position` is one value per vertex in a hull shader's outputs"
        ),
        "{out}"
    );
    // One attribute type per intersection entry point (one hit-attribute variable); a
    // library's intersection shaders may each have their own (below).
    let out = errors(
        "struct A { float2 b; };\nstruct B { float4 c; };\n[shader(\"intersection\")]\n\
         void is() { A a = (A)0; B b = (B)0; ReportHit(1.0, 0, a); ReportHit(2.0, 1, b); }",
        "lib_6_3",
    );
    assert!(
        out.contains(
            "main.hlsl:4:59: error[OSH1040]: `ReportHit` with attributes of type `B`: the \
             intersection entry point `is` already reports hits with `A`"
        ),
        "{out}"
    );
    // Unknown attribute values name the accepted ones.
    let out = errors(
        "struct CP { float4 p : P; };\nstruct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; };\n\
         PC f() { return (PC)0; }\n[domain(\"triangle\")][partitioning(\"integer\")][outputtopology(\"point\")]\n\
         [outputcontrolpoints(3)][patchconstantfunc(\"f\")]\nCP main(InputPatch<CP, 3> ip) { return ip[0]; }",
        "hs_6_0",
    );
    assert!(
        out.contains("`[domain(\"triangle\")]`: expected \"tri\", \"quad\" or \"isoline\""),
        "{out}"
    );
    // A mesh output written in part where it cannot be.
    let out = errors(
        r#"
struct V { float4 pos : SV_Position; float c[2] : SV_ClipDistance; };
[outputtopology("point")] [numthreads(1, 1, 1)]
void main(out vertices V v[1], out indices uint i[1]) { SetMeshOutputCounts(1, 1); v = (V[1])0; i[0] = 0; }"#,
        "ms_6_5",
    );
    assert!(out.contains("element by element"), "{out}");
    // Work-graph nodes are refused by name.
    let (r, out) = compile_with(
        "[Shader(\"node\")] [NodeLaunch(\"broadcasting\")] [NumThreads(1,1,1)] [NodeDispatchGrid(1,1,1)] void n() {}",
        &opts("lib_6_8", ""),
    );
    assert!(r.module.is_none());
    assert!(
        out.contains("main.hlsl:1:1: error[OSH1021]: `n` is a work-graph node shader"),
        "{out}"
    );
    // A stage attribute the stage has no use for is named, not dropped silently.
    let (r, out) = compile_with(
        "[maxvertexcount(3)] [outputcontrolpoints(4)]\nfloat4 main() : SV_Position { return 0; }",
        &opts("vs_6_0", "main"),
    );
    assert!(r.module.is_some(), "{out}");
    for name in ["maxvertexcount", "outputcontrolpoints"] {
        assert!(
            out.contains(&format!(
                "main.hlsl:1:1: warning[OSH1025]: `[{name}]` has no effect on the vertex entry \
                 point `main`; it is ignored"
            )),
            "{out}"
        );
    }
}

#[test]
fn domain_shaders_may_repeat_the_hull_shaders_modes() {
    const DS: &str = r#"
struct CP { float4 p : P; };
struct PC { float e[4] : SV_TessFactor; float i[2] : SV_InsideTessFactor; };
[domain("quad")] [partitioning("fractional_even")] [outputtopology("triangle_ccw")]
float4 main(PC pc, float2 uv : SV_DomainLocation, const OutputPatch<CP, 4> p) : SV_Position {
    return p[0].p * uv.x;
}
"#;
    let ir = ir_text(DS, "ds_6_0");
    assert!(
        ir.contains(
            "[entry_point(domain, \"main\"), tess_domain(quad), \
             tess_partitioning(fractional_even), output_primitive(triangle_ccw)]"
        ),
        "{ir}"
    );
    let words = spirv_valid(DS, "ds_6_0");
    let text = disassembly(&words);
    assert!(text.contains("SpacingFractionalEven"), "{text}");
    assert!(text.contains("VertexOrderCcw"), "{text}");
    // The rules are the hull shader's: no triangles from isolines.
    let out = errors(
        &DS.replace("\"quad\"", "\"isoline\"")
            .replace("float e[4]", "float e[2]")
            .replace("float i[2] : SV_InsideTessFactor;", ""),
        "ds_6_0",
    );
    assert!(
        out.contains("error[OSH1025]") && out.contains("does not fit the domain"),
        "{out}"
    );
}

#[test]
fn libraries_without_entry_points_and_profiles() {
    // A library whose functions are exports only is a module without entry points.
    let (r, out) = compile_with(
        "export float twice(float x) { return x * 2; }",
        &opts("lib_6_3", ""),
    );
    let m = r.module.unwrap_or_else(|| panic!("{out}"));
    assert!(
        m.functions()
            .iter()
            .any(|f| m.has_decoration(f.id(), oneshader_ir::Op::Export))
    );
    // Mesh shading arrived with shader model 6.5.
    let (r, out) = compile_with("void main() {}", &opts("ms_6_4", "main"));
    assert!(
        r.module.is_none() && out.contains("error[OSH1021]"),
        "{out}"
    );
}
