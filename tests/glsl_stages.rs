//! The GLSL backend on the stages beyond vertex, pixel and compute, and on ray queries: each
//! HLSL shader here is compiled through both backends; the GLSL goes through glslang and
//! spirv-val, and glslang's SPIR-V is read back to check that it states what the SPIR-V
//! backend's does (execution modes, stream instructions and decorations, barrier scopes, the
//! ray-query instructions and their operands). Execution of geometry and tessellation
//! shaders through GLSL is in `tests/graphics_exec.rs` (its GLSL voices).

mod support;

use oneshader::backends::Target;
use oneshader::{CompileOptions, Compiler, OptLevel, TargetEnv};
use oneshader_test_tools::{GlslStage, glslang_and_validate};
use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::Op;
use support::assert_valid;

/// Both backends' SPIR-V of `src`'s `entry` (ours, validated by both spirv-vals; glslang's
/// from our GLSL) and the GLSL text.
fn both(src: &str, profile: &str, entry: &str) -> (Module, Module, String) {
    let opts = CompileOptions::new(profile)
        .entry(entry)
        .opt_level(OptLevel::O)
        .target_env(TargetEnv::Vulkan1_2);
    let ours = Compiler::new()
        .compile_source("s.hlsl", src, &opts)
        .unwrap_or_else(|e| panic!("{e}\n{}", e.diagnostics.render()));
    assert_valid(&ours.spirv, TargetEnv::Vulkan1_2, profile);
    let glsl = Compiler::new()
        .compile_source("s.hlsl", src, &opts.clone().target(Target::Glsl))
        .unwrap_or_else(|e| panic!("{e}\n{}", e.diagnostics.render()));
    let text = glsl.glsl.expect("GLSL asked for");
    let stage = glsl.stage.map(GlslStage::of).expect("a GLSL stage");
    let words = glslang_and_validate(&text, stage).unwrap_or_else(|e| panic!("{e}"));
    (load(&ours.spirv), load(&words), text)
}

fn load(words: &[u32]) -> Module {
    rspirv::dr::load_words(words).expect("SPIR-V loads")
}

/// The execution modes of a module (without the function operand), sorted.
fn modes(m: &Module) -> Vec<String> {
    let mut v: Vec<String> = m
        .execution_modes
        .iter()
        .map(|i| format!("{:?}", &i.operands[1..]))
        .collect();
    v.sort();
    v
}

fn function_insts(m: &Module) -> impl Iterator<Item = &Instruction> {
    m.functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
}

/// The value of an integer constant operand (either signedness).
fn constant(m: &Module, id: u32) -> Option<u32> {
    m.types_global_values
        .iter()
        .find(|i| i.result_id == Some(id))
        .and_then(|i| match i.class.opcode {
            Op::Constant => match i.operands.first() {
                Some(Operand::LiteralBit32(v)) => Some(*v),
                _ => None,
            },
            Op::ConstantTrue => Some(1),
            Op::ConstantFalse => Some(0),
            _ => None,
        })
}

/// Each instruction with opcode in `ops`, with the values of its constant operands, sorted.
fn ops_with_constants(m: &Module, ops: &[Op]) -> Vec<(Op, Vec<u32>)> {
    let mut v: Vec<(Op, Vec<u32>)> = function_insts(m)
        .filter(|i| ops.contains(&i.class.opcode))
        .map(|i| {
            let consts = i
                .operands
                .iter()
                .filter_map(|o| match o {
                    Operand::IdRef(id) => constant(m, *id),
                    _ => None,
                })
                .collect();
            (i.class.opcode, consts)
        })
        .collect();
    v.sort_by_key(|(op, c)| (*op as u32, c.clone()));
    v
}

/// The value of decoration `deco` on each variable that has one, by id.
fn decorated(m: &Module, deco: rspirv::spirv::Decoration) -> Vec<(u32, u32)> {
    m.annotations
        .iter()
        .filter(|i| i.class.opcode == Op::Decorate)
        .filter(|i| i.operands.get(1) == Some(&Operand::Decoration(deco)))
        .filter_map(|i| match (&i.operands[0], i.operands.get(2)) {
            (Operand::IdRef(id), Some(Operand::LiteralBit32(v))) => Some((*id, *v)),
            _ => None,
        })
        .collect()
}

/// (location, stream) of every output with a location, sorted.
fn located_streams(m: &Module) -> Vec<(u32, u32)> {
    use rspirv::spirv::Decoration as D;
    let streams = decorated(m, D::Stream);
    let mut v: Vec<(u32, u32)> = decorated(m, D::Location)
        .into_iter()
        .filter_map(|(id, loc)| {
            let stream = streams.iter().find(|(s, _)| *s == id)?.1;
            Some((loc, stream))
        })
        .collect();
    v.sort();
    v
}

#[test]
fn geometry_shader_streams_instances_and_per_vertex_inputs() {
    // Two vertex streams (points), four instances, clip distances read from `gl_in` and
    // written, the input primitive's id.
    const GS: &str = "
struct V { float4 pos : SV_Position; float2 clip : SV_ClipDistance; float4 c : COLOR; };
struct S0 { float4 pos : SV_Position; float2 clip : SV_ClipDistance; float4 c : COLOR; };
struct S1 { float4 data : DATA; };
[maxvertexcount(4)]
[instance(4)]
void main(line V v[2], uint prim : SV_PrimitiveID, uint inst : SV_GSInstanceID,
          inout PointStream<S0> s0, inout PointStream<S1> s1) {
    for (uint i = 0; i < 2; i++) {
        S0 o;
        o.pos = v[i].pos;
        o.clip = v[i].clip * (float)inst;
        o.c = v[i].c;
        s0.Append(o);
        S1 d;
        d.data = float4((float)prim, v[i].clip, 1.0);
        s1.Append(d);
    }
    s0.RestartStrip();
    s1.RestartStrip();
}
";
    let (ours, theirs, text) = both(GS, "gs_6_0", "main");
    assert_eq!(modes(&theirs), modes(&ours), "execution modes\n{text}");
    let stream_ops = [
        Op::EmitVertex,
        Op::EndPrimitive,
        Op::EmitStreamVertex,
        Op::EndStreamPrimitive,
    ];
    assert_eq!(
        ops_with_constants(&theirs, &stream_ops),
        ops_with_constants(&ours, &stream_ops),
        "stream instructions\n{text}"
    );
    // Each varying in its stream (built-ins are in stream 0 in both).
    assert_eq!(located_streams(&theirs), located_streams(&ours), "{text}");
    assert!(located_streams(&ours).contains(&(1, 1)), "{text}");
    assert!(text.contains("layout(invocations = 4) in;"), "{text}");
    assert!(text.contains("EmitStreamVertex(1);"), "{text}");
    assert!(
        text.contains("float gl_ClipDistance[2];\n} gl_in[];"),
        "{text}"
    );
    assert!(text.contains("gl_PrimitiveIDIn"), "{text}");
    assert!(text.contains("stream = 1"), "{text}");
}

const HS: &str = "
struct CP { float4 pos : POS; };
struct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; float4 tint : TINT; };
PC pcf(InputPatch<CP, 3> ip) {
    PC p;
    p.e[0] = 2.0; p.e[1] = 3.0; p.e[2] = 4.0; p.i = 5.0;
    p.tint = ip[0].pos;
    return p;
}
[domain(\"tri\")] [partitioning(\"fractional_odd\")] [outputtopology(\"triangle_cw\")]
[outputcontrolpoints(3)] [patchconstantfunc(\"pcf\")]
CP main(InputPatch<CP, 3> ip, uint id : SV_OutputControlPointID) { return ip[id]; }
";

#[test]
fn hull_shader_states_the_tessellator_modes_and_barrier_of_the_spirv_backend() {
    let (ours, theirs, text) = both(HS, "hs_6_0", "main");
    assert_eq!(modes(&theirs), modes(&ours), "execution modes\n{text}");
    assert!(
        modes(&ours)
            .iter()
            .any(|m| m.contains("SpacingFractionalOdd"))
    );
    assert_eq!(
        ops_with_constants(&theirs, &[Op::ControlBarrier]),
        ops_with_constants(&ours, &[Op::ControlBarrier]),
        "barrier scopes\n{text}"
    );
    assert!(text.contains("out_var_POS[gl_InvocationID] ="), "{text}");
    assert!(text.contains("patch out vec4"), "{text}");
}

#[test]
fn domain_shader_states_its_hull_shaders_modes_or_is_refused() {
    const DS: &str = "
struct CP { float4 pos : POS; };
struct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; float4 tint : TINT; };
[domain(\"tri\")] [partitioning(\"fractional_odd\")] [outputtopology(\"triangle_cw\")]
float4 main(PC pc, float3 bary : SV_DomainLocation, const OutputPatch<CP, 3> p) : SV_Position {
    return p[0].pos * bary.x + p[1].pos * bary.y + p[2].pos * bary.z + pc.tint * pc.e[1];
}
";
    let (ours, theirs, text) = both(DS, "ds_6_0", "main");
    assert_eq!(modes(&theirs), modes(&ours), "execution modes\n{text}");
    assert!(
        text.contains("layout(triangles, fractional_odd_spacing, cw) in;"),
        "{text}"
    );
    assert!(text.contains("in vec4 in_var_POS[];"), "{text}");
    // Without them (as HLSL usually writes a domain shader) the GLSL would state glslang's
    // defaults, which need not be the hull shader's: refused, naming what to add.
    let plain = DS.replace(
        "[partitioning(\"fractional_odd\")] [outputtopology(\"triangle_cw\")]",
        "",
    );
    let opts = CompileOptions::new("ds_6_0").target(Target::Glsl);
    let err = Compiler::new()
        .compile_source("ds.hlsl", &plain, &opts)
        .expect_err("no spacing to state");
    let msg = err.diagnostics.render();
    assert!(msg.contains("error[OSB0103]"), "{msg}");
    assert!(msg.contains("[partitioning(...)]"), "{msg}");
    // The SPIR-V backend takes it as it is (the hull shader states the modes).
    let opts = CompileOptions::new("ds_6_0");
    Compiler::new()
        .compile_source("ds.hlsl", &plain, &opts)
        .unwrap_or_else(|e| panic!("{e}\n{}", e.diagnostics.render()));
}

#[test]
fn ray_queries_are_the_spirv_backends_instructions() {
    // Every RayQuery method, in a compute shader and in a pixel shader.
    const SRC: &str = "
RaytracingAccelerationStructure scene : register(t0);
RWStructuredBuffer<float4> results : register(u0);
float4 query(float3 origin) {
    RayDesc ray;
    ray.Origin = origin;
    ray.TMin = 0.01;
    ray.Direction = float3(0.0, 0.0, 1.0);
    ray.TMax = 100.0;
    RayQuery<RAY_FLAG_NONE> q;
    q.TraceRayInline(scene, RAY_FLAG_FORCE_OPAQUE, 0xff, ray);
    float4 acc = 0.0;
    while (q.Proceed()) {
        acc.x += (float)q.CandidateType() + q.CandidateTriangleRayT();
        acc.y += (float)(q.CandidateInstanceIndex() + q.CandidateInstanceID()
            + q.CandidateInstanceContributionToHitGroupIndex() + q.CandidateGeometryIndex()
            + q.CandidatePrimitiveIndex());
        acc.zw += q.CandidateTriangleBarycentrics();
        acc.x += q.CandidateTriangleFrontFace() ? 1.0 : 0.0;
        acc.y += q.CandidateProceduralPrimitiveNonOpaque() ? 1.0 : 0.0;
        acc.xyz += q.CandidateObjectRayOrigin() + q.CandidateObjectRayDirection();
        acc.xyz += q.CandidateObjectToWorld3x4()[0].xyz + q.CandidateWorldToObject4x3()[1];
        if (q.CandidateType() == CANDIDATE_NON_OPAQUE_TRIANGLE) {
            q.CommitNonOpaqueTriangleHit();
        } else {
            q.CommitProceduralPrimitiveHit(1.5);
        }
    }
    if (acc.x > 100.0) {
        q.Abort();
    }
    acc.x += (float)q.CommittedStatus() + q.CommittedRayT();
    acc.y += (float)(q.CommittedInstanceIndex() + q.CommittedInstanceID()
        + q.CommittedInstanceContributionToHitGroupIndex() + q.CommittedGeometryIndex()
        + q.CommittedPrimitiveIndex());
    acc.zw += q.CommittedTriangleBarycentrics();
    acc.x += q.CommittedTriangleFrontFace() ? 1.0 : 0.0;
    acc.xyz += q.CommittedObjectRayOrigin() + q.CommittedObjectRayDirection();
    acc.xyz += q.CommittedObjectToWorld4x3()[2] + q.CommittedWorldToObject3x4()[1].xyz;
    acc.xyz += q.WorldRayOrigin() + q.WorldRayDirection();
    acc.w += q.RayTMin() + (float)q.RayFlags();
    return acc;
}
[numthreads(1, 1, 1)]
void cs(uint3 id : SV_DispatchThreadID) { results[id.x] = query((float3)id); }
float4 ps(float4 pos : SV_Position) : SV_Target { return query(pos.xyz); }
";
    let ray_ops: Vec<Op> = [
        Op::RayQueryInitializeKHR,
        Op::RayQueryTerminateKHR,
        Op::RayQueryGenerateIntersectionKHR,
        Op::RayQueryConfirmIntersectionKHR,
        Op::RayQueryProceedKHR,
        Op::RayQueryGetIntersectionTypeKHR,
        Op::RayQueryGetRayTMinKHR,
        Op::RayQueryGetRayFlagsKHR,
        Op::RayQueryGetIntersectionTKHR,
        Op::RayQueryGetIntersectionInstanceCustomIndexKHR,
        Op::RayQueryGetIntersectionInstanceIdKHR,
        Op::RayQueryGetIntersectionInstanceShaderBindingTableRecordOffsetKHR,
        Op::RayQueryGetIntersectionGeometryIndexKHR,
        Op::RayQueryGetIntersectionPrimitiveIndexKHR,
        Op::RayQueryGetIntersectionBarycentricsKHR,
        Op::RayQueryGetIntersectionFrontFaceKHR,
        Op::RayQueryGetIntersectionCandidateAABBOpaqueKHR,
        Op::RayQueryGetIntersectionObjectRayDirectionKHR,
        Op::RayQueryGetIntersectionObjectRayOriginKHR,
        Op::RayQueryGetWorldRayDirectionKHR,
        Op::RayQueryGetWorldRayOriginKHR,
        Op::RayQueryGetIntersectionObjectToWorldKHR,
        Op::RayQueryGetIntersectionWorldToObjectKHR,
    ]
    .to_vec();
    for (profile, entry) in [("cs_6_5", "cs"), ("ps_6_5", "ps")] {
        let (ours, theirs, text) = both(SRC, profile, entry);
        let a = ops_with_constants(&ours, &ray_ops);
        let b = ops_with_constants(&theirs, &ray_ops);
        // Every kind of ray-query instruction is there (the test reads them all).
        for op in &ray_ops {
            assert!(a.iter().any(|(o, _)| o == op), "{op:?} missing from ours");
        }
        assert_eq!(
            b, a,
            "{entry}: ray-query instructions and constant operands\n{text}"
        );
        assert!(text.starts_with("#version 460\n"), "{text}");
    }
}

#[test]
fn primitive_shading_rate_is_the_same_built_in_in_both() {
    // A vertex shader's SV_ShadingRate is the primitive's rate (the fragment shader reads
    // another built-in).
    const VS: &str = "
float4 main(float4 p : POSITION, out uint rate : SV_ShadingRate) : SV_Position {
    rate = 5;
    return p;
}
";
    let (ours, theirs, text) = both(VS, "vs_6_4", "main");
    let builtins = |m: &Module| -> Vec<String> {
        let mut v: Vec<String> = m
            .annotations
            .iter()
            .filter(|i| {
                i.operands.get(1) == Some(&Operand::Decoration(rspirv::spirv::Decoration::BuiltIn))
            })
            .map(|i| format!("{:?}", i.operands[2]))
            .collect();
        v.sort();
        v.dedup();
        v
    };
    // (glslang's gl_Position is a member of its gl_PerVertex block: a member decoration.)
    let rate = "BuiltIn(PrimitiveShadingRateKHR)".to_string();
    assert!(builtins(&ours).contains(&rate), "{:?}", builtins(&ours));
    assert!(builtins(&theirs).contains(&rate), "{text}");
    assert!(
        !builtins(&theirs)
            .iter()
            .any(|b| b.contains("(ShadingRateKHR)")),
        "{text}"
    );
}

#[test]
fn mesh_and_amplification_shaders_keep_their_modes_and_outputs() {
    const AS: &str = "
struct Payload { float4 tint; uint count; };
groupshared Payload p;
[numthreads(4, 1, 1)]
void main(uint tid : SV_GroupIndex) {
    if (tid == 0) { p.tint = float4(1.0, 0.5, 0.25, 1.0); p.count = 2; }
    DispatchMesh(2, 1, 1, p);
}
";
    const MS: &str = "
struct Payload { float4 tint; uint count; };
struct V { float4 pos : SV_Position; float clip[1] : SV_ClipDistance; float4 c : COLOR; };
struct P { uint layer : SV_RenderTargetArrayIndex; bool cull : SV_CullPrimitive; float4 pc : PCOLOR; };
[outputtopology(\"triangle\")]
[numthreads(3, 1, 1)]
void main(uint tid : SV_GroupIndex, in payload Payload pl,
          out vertices V verts[3], out indices uint3 tris[1], out primitives P prims[1]) {
    SetMeshOutputCounts(3, 1);
    verts[tid].pos = float4((float)tid, 0.0, 0.0, 1.0);
    verts[tid].clip[0] = 1.0;
    verts[tid].c = pl.tint;
    if (tid == 0) {
        tris[0] = uint3(0, 1, 2);
        prims[0].layer = pl.count;
        prims[0].cull = false;
        prims[0].pc = pl.tint * 2.0;
    }
}
";
    let (ours, theirs, text) = both(AS, "as_6_5", "main");
    assert_eq!(modes(&theirs), modes(&ours), "{text}");
    assert_eq!(
        ops_with_constants(&theirs, &[Op::EmitMeshTasksEXT]),
        ops_with_constants(&ours, &[Op::EmitMeshTasksEXT]),
        "{text}"
    );
    let (ours, theirs, text) = both(MS, "ms_6_5", "main");
    assert_eq!(modes(&theirs), modes(&ours), "{text}");
    assert_eq!(
        ops_with_constants(&theirs, &[Op::SetMeshOutputsEXT]),
        ops_with_constants(&ours, &[Op::SetMeshOutputsEXT]),
        "{text}"
    );
    assert_eq!(
        located_per_primitive(&theirs),
        located_per_primitive(&ours),
        "{text}"
    );
    assert!(
        text.contains("gl_MeshPrimitivesEXT[0].gl_CullPrimitiveEXT = false;"),
        "{text}"
    );
    assert!(
        text.contains("gl_PrimitiveTriangleIndicesEXT[0] = uvec3(0u, 1u, 2u);"),
        "{text}"
    );
    assert!(text.contains("perprimitiveEXT out vec4"), "{text}");
    assert!(text.contains("taskPayloadSharedEXT Payload"), "{text}");
}

/// (location, per primitive) of every variable with a location, sorted.
fn located_per_primitive(m: &Module) -> Vec<(u32, bool)> {
    use rspirv::spirv::Decoration as D;
    let per: Vec<u32> = m
        .annotations
        .iter()
        .filter(|i| i.operands.get(1) == Some(&Operand::Decoration(D::PerPrimitiveEXT)))
        .filter_map(|i| match i.operands[0] {
            Operand::IdRef(id) => Some(id),
            _ => None,
        })
        .collect();
    let mut v: Vec<(u32, bool)> = decorated(m, D::Location)
        .into_iter()
        .map(|(id, loc)| (loc, per.contains(&id)))
        .collect();
    v.sort();
    v
}

/// The ray-tracing shaders of one library, each entry point in a file of its own (so that
/// our SPIR-V holds that entry point alone and compares with glslang's module of it).
const RT_PRELUDE: &str = "
struct Payload { float4 color; uint depth; };
struct Attribs { float2 bary; };
struct CallData { float3 v; };
RaytracingAccelerationStructure scene : register(t0);
RWTexture2D<float4> image : register(u0);
[[vk::shader_record_ext]] ConstantBuffer<CallData> record;
";

const RT_SHADERS: [(&str, GlslStage, &str); 6] = [
    (
        "rg",
        GlslStage::RayGen,
        "
[shader(\"raygeneration\")]
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
    TraceRay(scene, RAY_FLAG_CULL_BACK_FACING_TRIANGLES, 0xFF, 1, 2, 3, ray, p);
    CallData c; c.v = p.color.rgb + record.v;
    CallShader(4, c);
    image[id] = float4(c.v, 1.0);
}",
    ),
    (
        "chit",
        GlslStage::ClosestHit,
        "
[shader(\"closesthit\")]
void chit(inout Payload p, in BuiltInTriangleIntersectionAttributes a) {
    float3x4 m = ObjectToWorld3x4();
    float4x3 w = WorldToObject4x3();
    p.color = float4(a.barycentrics, RayTCurrent(), m[0][3] + w[3][1])
        * (HitKind() == HIT_KIND_TRIANGLE_FRONT_FACE ? 1.0 : 0.5);
    p.color.a += InstanceID() + InstanceIndex() + PrimitiveIndex() + GeometryIndex();
    if (p.depth < 2) {
        RayDesc r; r.Origin = WorldRayOrigin() + WorldRayDirection() * RayTCurrent();
        r.Direction = ObjectRayDirection(); r.TMin = RayTMin(); r.TMax = 10.0;
        p.depth++;
        TraceRay(scene, RAY_FLAG_NONE, 0x0F, 0, 1, 0, r, p);
    }
}",
    ),
    (
        "ahit",
        GlslStage::AnyHit,
        "
[shader(\"anyhit\")]
void ahit(inout Payload p, in Attribs a) {
    if (a.bary.x < 0.1) IgnoreHit();
    if (a.bary.y > 0.9) AcceptHitAndEndSearch();
    p.depth += 10 + RayFlags();
}",
    ),
    (
        "miss",
        GlslStage::Miss,
        "
[shader(\"miss\")]
void miss(inout Payload p) {
    p.color = float4(RayFlags(), RayTMin(), 0, 1);
    CallData c; c.v = WorldRayDirection();
    CallShader(1, c);
    p.color.xyz += c.v;
}",
    ),
    (
        "isect",
        GlslStage::Intersect,
        "
[shader(\"intersection\")]
void isect() {
    Attribs a; a.bary = ObjectRayOrigin().xy;
    if (ReportHit(RayTMin() + 1.0, 1, a)) {
        a.bary = float2(2.0, 3.0);
        ReportHit(RayTCurrent(), 2, a);
    }
}",
    ),
    (
        "callable",
        GlslStage::Callable,
        "
[shader(\"callable\")]
void callable(inout CallData d) { d.v = d.v * 2.0 + record.v; }",
    ),
];

/// Our SPIR-V of `entry` of library source `src` (validated by both spirv-vals), glslang's
/// SPIR-V of our GLSL of it, and the GLSL text.
fn both_lib(src: &str, entry: &str, stage: GlslStage) -> (Module, Module, String) {
    let opts = CompileOptions::new("lib_6_3")
        .entry(entry)
        .opt_level(OptLevel::O)
        .target_env(TargetEnv::Vulkan1_2);
    let ours = Compiler::new()
        .compile_source("s.hlsl", src, &opts)
        .unwrap_or_else(|e| panic!("{e}\n{}", e.diagnostics.render()));
    assert_valid(&ours.spirv, TargetEnv::Vulkan1_2, "lib_6_3");
    let glsl = Compiler::new()
        .compile_source("s.hlsl", src, &opts.clone().target(Target::Glsl))
        .unwrap_or_else(|e| panic!("{e}\n{}", e.diagnostics.render()));
    let text = glsl.glsl.expect("GLSL asked for");
    let words = glslang_and_validate(&text, stage).unwrap_or_else(|e| panic!("{e}"));
    (load(&ours.spirv), load(&words), text)
}

/// The storage class of every interface variable of the module's entry point, with its
/// `BuiltIn` decoration if it has one, sorted.
fn interface(m: &Module) -> Vec<String> {
    use rspirv::spirv::Decoration as D;
    let builtins: Vec<(u32, String)> = m
        .annotations
        .iter()
        .filter(|i| i.class.opcode == Op::Decorate)
        .filter(|i| i.operands.get(1) == Some(&Operand::Decoration(D::BuiltIn)))
        .filter_map(|i| match (&i.operands[0], i.operands.get(2)) {
            (Operand::IdRef(id), Some(b)) => Some((*id, format!("{b:?}"))),
            _ => None,
        })
        .collect();
    let ep = &m.entry_points[0];
    let mut v: Vec<String> = ep.operands[3..]
        .iter()
        .filter_map(|o| match o {
            Operand::IdRef(id) => Some(*id),
            _ => None,
        })
        .filter_map(|id| {
            let var = m
                .types_global_values
                .iter()
                .find(|i| i.result_id == Some(id))?;
            let class = format!("{:?}", var.operands.first()?);
            let b = builtins
                .iter()
                .find(|(b, _)| *b == id)
                .map(|(_, s)| s.clone());
            Some(format!("{class} {}", b.unwrap_or_default()))
        })
        .collect();
    v.sort();
    v
}

#[test]
fn ray_tracing_stages_are_the_spirv_backends_instructions_and_interface() {
    let ray_ops = [
        Op::TraceRayKHR,
        Op::ExecuteCallableKHR,
        Op::ReportIntersectionKHR,
        Op::IgnoreIntersectionKHR,
        Op::TerminateRayKHR,
    ];
    let mut seen = Vec::new();
    for (entry, stage, body) in RT_SHADERS {
        let src = format!("{RT_PRELUDE}{body}");
        let (ours, theirs, text) = both_lib(&src, entry, stage);
        assert_eq!(
            ops_with_constants(&theirs, &ray_ops),
            ops_with_constants(&ours, &ray_ops),
            "{entry}: ray-tracing instructions and constant operands\n{text}"
        );
        assert_eq!(
            interface(&theirs),
            interface(&ours),
            "{entry}: interface variables and built-ins\n{text}"
        );
        assert!(text.starts_with("#version 460\n"), "{text}");
        assert!(
            text.contains("#extension GL_EXT_ray_tracing : require"),
            "{text}"
        );
        seen.extend(
            ops_with_constants(&ours, &ray_ops)
                .into_iter()
                .map(|(op, _)| op),
        );
    }
    // Every kind of ray-tracing instruction was compared.
    for op in ray_ops {
        assert!(seen.contains(&op), "{op:?} in none of the shaders");
    }
}

#[test]
fn a_library_prints_the_entry_point_named_by_e_as_glsl() {
    let lib: String = std::iter::once(RT_PRELUDE)
        .chain(RT_SHADERS.iter().map(|(_, _, body)| *body))
        .collect();
    for (entry, stage, _) in RT_SHADERS {
        let opts = CompileOptions::new("lib_6_3")
            .entry(entry)
            .target(Target::Glsl)
            .target_env(TargetEnv::Vulkan1_2);
        let out = Compiler::new()
            .compile_source("lib.hlsl", &lib, &opts)
            .unwrap_or_else(|e| panic!("{entry}: {e}\n{}", e.diagnostics.render()));
        let text = out.glsl.expect("GLSL asked for");
        let words = glslang_and_validate(&text, stage).unwrap_or_else(|e| panic!("{e}"));
        let m = load(&words);
        assert_eq!(m.entry_points.len(), 1);
        let model = format!("{:?}", m.entry_points[0].operands[0]);
        let want = match stage {
            GlslStage::RayGen => "RayGenerationKHR",
            GlslStage::ClosestHit => "ClosestHitKHR",
            GlslStage::AnyHit => "AnyHitKHR",
            GlslStage::Miss => "MissKHR",
            GlslStage::Intersect => "IntersectionKHR",
            _ => "CallableKHR",
        };
        assert!(model.contains(want), "{entry}: {model}\n{text}");
    }
    // A name that is no entry point of the library is refused, naming it.
    let opts = CompileOptions::new("lib_6_3")
        .entry("nope")
        .target(Target::Glsl);
    let err = Compiler::new()
        .compile_source("lib.hlsl", &lib, &opts)
        .expect_err("no such entry point");
    let msg = err.diagnostics.render();
    assert!(msg.contains("OSB0102") && msg.contains("nope"), "{msg}");
}
