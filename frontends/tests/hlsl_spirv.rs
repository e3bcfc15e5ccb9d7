//! Per-construct HLSL tests: each shader goes through analysis, lowering (the module must
//! verify), the `-O0` and `-O` pipelines and the SPIR-V backend, and `spirv-val` must accept
//! both outputs. Shaders are written here, one construct family per test.

mod sema_common;

use oneshader_backends::spirv::TargetEnv;
use sema_common::{ir_text, spirv_valid, spirv_valid_env};

#[test]
fn vertex_shader_with_struct_io_cbuffer_and_mul() {
    spirv_valid(
        r#"
cbuffer Camera : register(b0) {
    float4x4 viewProj;
    row_major float4x4 world;
    float3 eye; float pad;
};
struct VSIn { float3 pos : POSITION; float3 normal : NORMAL; float2 uv : TEXCOORD0; uint id : SV_VertexID; };
struct VSOut { float4 pos : SV_Position; float3 n : NORMAL; float2 uv : TEXCOORD0; nointerpolation uint id : ID; };
VSOut main(VSIn i) {
    VSOut o;
    float4 wp = mul(float4(i.pos, 1.0), world);
    o.pos = mul(viewProj, wp);
    o.n = normalize(mul((float3x3)world, i.normal));
    o.uv = i.uv;
    o.id = i.id;
    return o;
}"#,
        "vs_6_0",
    );
}

#[test]
fn pixel_shader_texturing_and_discard() {
    spirv_valid(
        r#"
Texture2D<float4> albedo : register(t0);
Texture2DArray<float4> layers : register(t1);
TextureCube<float4> sky : register(t2);
Texture2D<float> shadow : register(t3);
SamplerState linearClamp : register(s0);
SamplerComparisonState cmp : register(s1);
float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0, float3 dir : TEXCOORD1) : SV_Target {
    float4 c = albedo.Sample(linearClamp, uv);
    c += albedo.SampleLevel(linearClamp, uv, 2.0);
    c += albedo.SampleBias(linearClamp, uv, -1.0, int2(1, 0));
    c += albedo.SampleGrad(linearClamp, uv, ddx(uv), ddy(uv));
    c += layers.Sample(linearClamp, float3(uv, 3));
    c += sky.Sample(linearClamp, dir);
    c.r *= shadow.SampleCmp(cmp, uv, 0.5);
    c.g *= shadow.SampleCmpLevelZero(cmp, uv, 0.5);
    c += albedo.Gather(linearClamp, uv) + albedo.GatherGreen(linearClamp, uv, int2(0, 1));
    c += albedo.Load(int3(pos.xy, 0)) + albedo[uint2(pos.xy)];
    uint w, h, levels;
    albedo.GetDimensions(0, w, h, levels);
    float fw, fh;
    albedo.GetDimensions(fw, fh);
    c.a += w + h + levels + fw + fh;
    c.b += albedo.CalculateLevelOfDetail(linearClamp, uv);
    if (c.a < 0.01) discard;
    clip(c.rgb - 0.5);
    return c;
}"#,
        "ps_6_0",
    );
}

#[test]
fn compute_buffers_groupshared_and_atomics() {
    spirv_valid(
        r#"
struct Particle { float3 pos; float life; float3 vel; uint flags; };
RWStructuredBuffer<Particle> particles : register(u0);
StructuredBuffer<float4> forces : register(t0);
RWByteAddressBuffer counters : register(u1);
ByteAddressBuffer raw : register(t1);
RWTexture2D<float4> image : register(u2);
RWTexture2D<uint> ids : register(u3);
RWBuffer<float> typed : register(u4);
AppendStructuredBuffer<uint> dead : register(u5);
ConsumeStructuredBuffer<uint> alive : register(u6);
groupshared float tile[64];
groupshared uint hits;
[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint gi : SV_GroupIndex, uint3 gid : SV_GroupID) {
    if (gi == 0) hits = 0;
    GroupMemoryBarrierWithGroupSync();
    Particle p = particles[dtid.x];
    p.vel += forces[dtid.x % 16].xyz * 0.016;
    p.pos += p.vel * 0.016;
    p.life -= 0.016;
    tile[gi] = p.life;
    GroupMemoryBarrierWithGroupSync();
    if (p.life <= 0) {
        uint old;
        InterlockedAdd(hits, 1, old);
        dead.Append(dtid.x);
        counters.InterlockedAdd(0, 1);
    } else {
        uint slot = alive.Consume();
        particles[slot] = p;
    }
    uint n, stride;
    particles.GetDimensions(n, stride);
    uint4 r = raw.Load4(16) + counters.Load(4);
    counters.Store2(8, r.xy + n + stride);
    float avg = (tile[0] + tile[63]) * 0.5;
    image[dtid.xy] = float4(avg, 0, 0, 1) + image[dtid.xy];
    InterlockedMax(ids[dtid.xy], dtid.x);
    typed[dtid.x] = avg;
    DeviceMemoryBarrier();
    AllMemoryBarrierWithGroupSync();
}"#,
        "cs_6_0",
    );
}

#[test]
fn control_flow() {
    spirv_valid(
        r#"
int pick(int x) {
    switch (x) {
        case 0: return 10;
        case 1:
        case 2: x += 5;
        case 3: x *= 2; break;
        default: x = -1;
    }
    return x;
}
float loops(float v, int n) {
    float acc = 0;
    [unroll] for (int i = 0; i < 4; ++i) acc += v * i;
    [loop] for (int j = 0; j < n; j++) {
        if (j == 3) continue;
        if (acc > 100) break;
        acc += j;
    }
    int k = 0;
    while (k < n && acc < 1000) { acc *= 1.5; k++; }
    do { acc -= 1; if (acc < 0) break; } while (acc > 50);
    do { k--; if (k == 2) continue; acc += k; } while (k > 0);
    for (;;) { if (acc > 0) break; acc += 1; }
    return acc;
}
float4 main(float4 c : COLOR, int n : N) : SV_Target {
    bool b = c.x > 0 && c.y > 0 || c.z > 0;
    float t = b ? c.w : loops(c.x, n);
    float u = c.x > 0.5 ? loops(c.y, 2) : 0.0;
    if (n > 3) { return float4(t, u, pick(n), 1); }
    else if (n < -3) return 0;
    return float4(pick(n - 1), t, u, 0);
}"#,
        "ps_6_0",
    );
}

#[test]
fn functions_out_params_methods_and_templates() {
    spirv_valid(
        r#"
struct Light {
    float3 dir; float intensity;
    float shade(float3 n) { return saturate(dot(n, -dir)) * intensity; }
    void scale(float s) { intensity *= s; }
    static float gamma() { return 2.2; }
};
void split(float4 v, out float3 rgb, inout float a) { rgb = v.rgb; a *= v.a; }
template<typename T> T twice(T x) { return x * 2; }
template<typename T, int N> T sum(vector<T, N> v) { T s = 0; for (int i = 0; i < N; ++i) s += v[i]; return s; }
namespace util { float sq(float x) { return x * x; } }
float over(float x) { return x; }
float over(int x) { return x * 10; }
float4 main(float4 c : COLOR) : SV_Target {
    Light l; l.dir = float3(0, -1, 0); l.intensity = 2;
    l.scale(0.5);
    float3 rgb; float a = 1;
    split(c, rgb, a);
    float s = l.shade(normalize(rgb)) + twice(a) + twice(2) + sum(c) + sum(int3(1, 2, 3));
    s += util::sq(s) + Light::gamma() + over(1) + over(1.0f);
    return float4(rgb * s, a);
}"#,
        "ps_6_0",
    );
}

#[test]
fn matrices_swizzles_and_conversions() {
    spirv_valid(
        r#"
cbuffer M { row_major float3x4 rm; float2x2 cm; int2x2 im; };
float4 main(float4 v : V, int4 iv : I) : SV_Target {
    float4x4 m = float4x4(v, v.yzwx, v.zwxy, v.wxyz);
    m[1] = float4(1, 2, 3, 4);
    m[2][3] = 5;
    m._m00_m11 = v.xy;
    m._44 = 7;
    float3x3 t = transpose((float3x3)m);
    float d = determinant(t) + m._12 + rm[2].w;
    float2x2 p = cm * 2 + cm;
    int2x2 q = im * 2 + int2x2(1, 2, 3, 4);
    q[1][0] = -q[0][1];
    float4 r = mul(m, v) + mul(v, m) + float4(mul(rm, v), 0);
    r.xy += mul(p, v.xy) + q[0] + q[1];
    float2 w = v.zw;
    w.yx = w;
    uint3 u = iv.xyz;
    bool4 b = v > 0.5;
    r += b ? 1.0 : 0.0;
    r += (float)iv.x + float4(u, 1) + abs(iv) + max(iv, 2) + sign(v);
    half4 h = (half4)v;
    r += float4(h);
    r += any(b) ? 1 : 0;
    r += all(m[0] > 0) ? 1 : 0;
    return r * d;
}"#,
        "ps_6_0",
    );
}

#[test]
fn arrays_initializers_statics_and_constants() {
    spirv_valid(
        r#"
static const float weights[5] = { 0.1, 0.2, 0.4, 0.2, 0.1 };
static const int N = 5;
static float4 scratch[2];
static float counter = 3.0;
static float computed = sin(counter);
struct Pair { float a; int b[2]; };
enum Mode { Off, On = 3, Auto };
typedef float4 color;
float4 main(float4 c : COLOR, uint i : INDEX) : SV_Target {
    float acc = 0;
    for (int k = 0; k < N; ++k) acc += weights[k] * c[k % 4];
    acc += weights[i % 5];
    Pair p = { 1.5, { 2, 3 } };
    Pair q = (Pair)0;
    float2x2 m = { 1, 2, 3, 4 };
    int arr[] = { 1, 2, 3 };
    scratch[i & 1] = c;
    color r = float4(acc, p.a + q.b[1], m[1][0], arr[i % 3] + On + Auto);
    r += scratch[0] + computed;
    return r;
}"#,
        "ps_6_0",
    );
}

#[test]
fn bindings_push_constants_and_spec_constants() {
    let words = spirv_valid(
        r#"
struct PC { float4 tint; uint mode; };
[[vk::push_constant]] PC pc;
[[vk::constant_id(3)]] const int kSize = 8;
[[vk::binding(5, 1)]] Texture2D<float4> tex;
[[vk::binding(6, 1)]] SamplerState samp;
Texture2D<float4> textures[4] : register(t0, space2);
ConstantBuffer<PC> cb : register(b2);
float4 main(float2 uv : TEXCOORD0, nointerpolation uint idx : INDEX) : SV_Target {
    float4 c = tex.Sample(samp, uv) * pc.tint;
    c += textures[NonUniformResourceIndex(idx)].Sample(samp, uv);
    c += textures[2].Sample(samp, uv) * cb.tint;
    return c * kSize + pc.mode;
}"#,
        "ps_6_0",
    );
    let text = oneshader_test_tools::spirv_dis(&words);
    let has = |line: &str| text.lines().any(|l| l.trim() == line);
    // Bindings: explicit `vk::binding`, register spaces, and `b2` for the constant buffer.
    for line in [
        "OpDecorate %tex DescriptorSet 1",
        "OpDecorate %tex Binding 5",
        "OpDecorate %samp DescriptorSet 1",
        "OpDecorate %samp Binding 6",
        "OpDecorate %textures DescriptorSet 2",
        "OpDecorate %textures Binding 0",
        "OpDecorate %cb DescriptorSet 0",
        "OpDecorate %cb Binding 2",
        // The spec constant keeps its id and default.
        "OpDecorate %kSize SpecId 3",
        "%kSize = OpSpecConstant %int 8",
        // The push constant is a Block in the PushConstant storage class.
        "%pc = OpVariable %_ptr_PushConstant_PC PushConstant",
        "OpDecorate %PC Block",
        "OpMemberDecorate %PC 1 Offset 16",
    ] {
        assert!(has(line), "missing `{line}` in:\n{text}");
    }
    // NonUniformResourceIndex reaches the access chain into the texture array.
    assert!(
        text.lines()
            .any(|l| l.contains("NonUniform") && l.contains("OpDecorate")),
        "no NonUniform decoration:\n{text}"
    );
}

#[test]
fn fragment_outputs_and_system_values() {
    spirv_valid(
        r#"
struct PSOut { float4 c0 : SV_Target0; float4 c1 : SV_Target1; float depth : SV_Depth; };
PSOut main(float4 pos : SV_Position, bool front : SV_IsFrontFace, uint s : SV_SampleIndex,
           nointerpolation int mat : MATERIAL, centroid float2 uv : TEXCOORD0,
           noperspective float3 lin : TEXCOORD1, uint coverage : SV_Coverage) {
    PSOut o;
    o.c0 = front ? float4(uv, 0, 1) : float4(lin, 1);
    o.c1 = float4(mat, s, coverage, 0);
    o.depth = pos.z;
    return o;
}"#,
        "ps_6_0",
    );
    spirv_valid(
        r#"
void main(uint vid : SV_VertexID, uint iid : SV_InstanceID, out float4 pos : SV_Position,
          out float clip : SV_ClipDistance0, out float2 uv : TEXCOORD0, out bool flag : FLAG) {
    uv = float2((vid << 1) & 2, vid & 2);
    pos = float4(uv * 2 - 1, 0, 1);
    clip = pos.x + iid;
    flag = vid > 1;
}"#,
        "vs_6_0",
    );
}

#[test]
fn intrinsics_math_bits_and_waves() {
    spirv_valid_env(
        r#"
RWStructuredBuffer<uint> outBuf;
[numthreads(32, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    float x = id.x * 0.1;
    float3 v = float3(x, x + 1, x + 2);
    float r = sin(x) + cos(x) + tan(x) + asin(0.5) + acos(0.5) + atan(x) + atan2(x, 2)
        + sinh(x) + cosh(x) + tanh(x) + exp(x) + exp2(x) + log(x + 1) + log2(x + 1) + log10(x + 1)
        + pow(x, 2) + sqrt(x) + rsqrt(x + 1) + floor(x) + ceil(x) + round(x) + trunc(x) + frac(x)
        + lerp(x, 1, 0.5) + smoothstep(0, 1, x) + step(0.5, x) + clamp(x, 0, 1) + saturate(x)
        + degrees(x) + radians(x) + fmod(x, 3) + length(v) + distance(v, 1) + dot(v, v)
        + rcp(x + 1) + mad(x, 2, 1) + ldexp(x, 2);
    float3 c = cross(v, float3(0, 1, 0)) + reflect(v, float3(0, 1, 0)) + refract(v, float3(0, 1, 0), 0.5)
        + faceforward(v, v, v);
    float ip; float fr = modf(x, ip);
    float e; float m = frexp(x, e);
    float s, co; sincos(x, s, co);
    uint u = id.x;
    uint bits = countbits(u) + reversebits(u) + firstbithigh(u) + firstbitlow(u)
        + asuint(x) + f32tof16(x) + (uint)f16tof32(u);
    bool nan = isnan(x) || isinf(x) || !isfinite(x);
    uint wave = WaveActiveSum(u) + WaveGetLaneIndex() + WaveActiveCountBits(u > 3)
        + WavePrefixSum(u) + WaveReadLaneFirst(u) + WaveActiveMax(u) + WaveActiveBallot(true).x;
    if (WaveIsFirstLane() && WaveActiveAnyTrue(nan))
        wave += QuadReadAcrossX(u);
    outBuf[id.x] = (uint)(r + c.x + fr + ip + m + e + s + co) + bits + wave + asint(x);
}"#,
        "cs_6_0",
        TargetEnv::Vulkan1_1,
    );
}

#[test]
fn entry_wrapper_and_body_in_the_ir() {
    let ir = ir_text(
        r#"
float4 main(float4 c : COLOR0, uint i : SV_VertexID) : SV_Position { return c * i; }"#,
        "vs_6_0",
    );
    // The body keeps the HLSL signature; the wrapper loads inputs, calls it, stores outputs.
    assert!(
        ir.contains("func @main_body(%0: vec<f32, 4>, %1: u32) -> vec<f32, 4>"),
        "{ir}"
    );
    assert!(
        ir.contains("func @main() -> void [entry_point(vertex, \"main\")]"),
        "{ir}"
    );
    // `COLOR0` spells its index: the third operand says so (`-fspv-reflect`'s `UserSemantic`).
    assert!(
        ir.contains("[location(0), semantic(\"COLOR\", 0, 1)]"),
        "{ir}"
    );
    assert!(
        ir.contains("[builtin(vertex_index), semantic(\"SV_VertexID\", 0)]"),
        "{ir}"
    );
    assert!(
        ir.contains("[builtin(position), semantic(\"SV_Position\", 0)]"),
        "{ir}"
    );
    assert!(ir.contains("call @main_body("), "{ir}");
}

#[test]
fn structs_holding_resources_are_split() {
    spirv_valid(
        r#"
struct Material { Texture2D<float4> albedo; SamplerState samp; float4 tint; };
struct Pair { Material m; Texture2D<float> mask; };
Material gMat : register(t0);
Texture2D<float4> other : register(t5);
SamplerState point : register(s6);
float4 shade(Material m, float2 uv) { return m.albedo.Sample(m.samp, uv) * m.tint; }
float4 main(float2 uv : TEXCOORD0) : SV_Target {
    Material local = gMat;
    local.tint = float4(1, 0.5, 0.25, 1);
    Material swapped = { other, point, float4(1, 1, 1, 1) };
    Pair p;
    p.m = swapped;
    p.mask = (Texture2D<float>)other;
    float m = p.mask.Sample(point, uv);
    return (shade(gMat, uv) + shade(local, uv) + shade(p.m, uv)) * m;
}"#,
        "ps_6_0",
    );
}

#[test]
fn mips_and_sample_operators() {
    spirv_valid(
        r#"
Texture2D<float4> t : register(t0);
Texture2DArray<float4> ta : register(t1);
Texture2DMS<float4, 4> ms : register(t2);
float4 main(float4 pos : SV_Position) : SV_Target {
    uint2 p = uint2(pos.xy);
    return t.mips[2][p] + ta.mips[1][uint3(p, 3)] + ms.sample[1][p] + ms.Load(p, 2);
}"#,
        "ps_6_0",
    );
}

#[test]
fn byte_address_buffers_of_16_and_64_bit_data() {
    let (r, rendered) = sema_common::compile_with(
        r#"
struct Mixed { half h; uint16_t2 s; double d; uint64_t u; float2x2 m; };
RWByteAddressBuffer buf;
[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    Mixed x = buf.Load<Mixed>(0);
    x.h += 1; x.d *= 2; x.u += 3;
    buf.Store<Mixed>(64, x);
    double d = buf.Load<double>(128);
    buf.Store(136, d + 1);
    half3 h = buf.Load<half3>(150);
    buf.Store<half3>(160, h);
}"#,
        &{
            let mut o = sema_common::opts("cs_6_2", "main");
            o.enable_16bit_types = true;
            o
        },
    );
    let mut m = r.module.unwrap_or_else(|| panic!("{rendered}"));
    for level in [
        oneshader_passes::pipeline::OptLevel::O0,
        oneshader_passes::pipeline::OptLevel::O,
    ] {
        let mut mm = m.clone();
        sema_common::pipeline(&mut mm, level);
        let words = sema_common::emit(
            &mut mm,
            &oneshader_backends::spirv::Options::for_env(TargetEnv::Vulkan1_2),
        )
        .expect("emits");
        sema_common::spirv_val(&words, TargetEnv::Vulkan1_2).expect("valid");
    }
    sema_common::pipeline(&mut m, oneshader_passes::pipeline::OptLevel::O);
}

#[test]
fn dst_lit_and_check_access_fully_mapped() {
    let words = spirv_valid(
        r#"
float4 main(float4 a : A, float4 b : B, float3 l : L, nointerpolation uint s : S) : SV_Target {
    float4 r = dst(a, b) + lit(l.x, l.y, l.z);
    return CheckAccessFullyMapped(s) ? r : -r;
}"#,
        "ps_6_0",
    );
    let text = oneshader_backends::spirv::disassemble(&words).expect("disassembles");
    assert!(text.contains("ImageSparseTexelsResident"));
    assert!(text.contains("Pow"), "lit's specular term");
}

#[test]
fn evaluate_attribute_reads_the_stage_input_when_optimized() {
    use oneshader_backends::spirv::{self, Options};
    use oneshader_passes::pipeline::OptLevel;
    let src = r#"
struct PSIn { float4 c : COLOR; float2 uv : TEXCOORD0; };
float4 main(PSIn i) : SV_Target {
    return EvaluateAttributeAtCentroid(i.c)
        + EvaluateAttributeAtSample(i.c, 1)
        + EvaluateAttributeSnapped(i.uv, int2(-8, 7)).xyxy;
}"#;
    let mut m = sema_common::module(src, "ps_6_0");
    sema_common::pipeline(&mut m, OptLevel::O);
    let words = sema_common::emit(&mut m, &Options::for_env(TargetEnv::Vulkan1_2))
        .unwrap_or_else(|d| panic!("emission failed: {d:?}"));
    sema_common::spirv_val(&words, TargetEnv::Vulkan1_2).expect("spirv-val accepts it");
    let text = spirv::disassemble(&words).expect("disassembles");
    for want in [
        "InterpolateAtCentroid",
        "InterpolateAtSample",
        "InterpolateAtOffset",
    ] {
        assert!(text.contains(want), "{want}");
    }
}

/// The longest operator chain the parser accepts compiles through analysis, lowering, `-O`
/// and the backend (all of which recurse over the expression tree on the compiler's thread)
/// to valid SPIR-V, in a debug build too.
#[test]
fn a_chain_at_the_depth_limit_compiles() {
    let n = oneshader_frontends::hlsl::MAX_TREE_DEPTH - 40;
    let sum = "x".to_string() + &" + x".repeat(n);
    let src = format!(
        "RWStructuredBuffer<float> o;\n[numthreads(1, 1, 1)]\nvoid main() {{ float x = o[0]; o[1] = {sum}; }}\n"
    );
    let words = spirv_valid(&src, "cs_6_0");
    assert!(words.len() > n, "one add per term: {} words", words.len());
}

/// Wave operations on vectors and matrices (float and integer): SPIR-V's group operations
/// take scalars and vectors and `AllEqual` yields one bool, so the backend splits them; a
/// current spirv-val checks the shapes.
#[test]
fn wave_operations_on_vectors_and_matrices() {
    spirv_valid_env(
        r#"
RWStructuredBuffer<float4> o;
[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    float3 v = o[id.x].xyz;
    float2x2 m = float2x2(v.xy, v.yz);
    int2x3 im = int2x3(v, v);
    bool3 e = WaveActiveAllEqual(v) && WaveActiveAllEqualBool(v.x > 0);
    bool2x2 em = WaveActiveAllEqual(m);
    bool2x3 ei = WaveActiveAllEqual(im);
    float2x2 s = WaveActiveSum(m) + WaveReadLaneFirst(m) + QuadReadAcrossX(m)
        + WaveReadLaneAt(m, 1) + QuadReadLaneAt(m, id.x);
    int2x3 t = WaveActiveMin(im) + WavePrefixSum(im) + WaveActiveBitOr(im);
    o[id.x] = float4(e.x, em[1].y, ei[1].z, s[1].x + t[1].z);
}"#,
        "cs_6_0",
        TargetEnv::Vulkan1_2,
    );
}

/// What Vulkan needs worked out compiles at -O0 as at -O (the `required_constants`
/// legalization): `EvaluateAttribute*` on an attribute the entry point passes to its body
/// (the body is inlined so the interpolant leads back to the input), and texel offsets
/// computed from an `[unroll]` loop's variable (the loop is unrolled, the offsets folded).
#[test]
fn interpolation_and_unrolled_offsets_compile_at_every_level() {
    spirv_valid(
        r#"
Texture2D<float4> t : register(t0);
SamplerState s : register(s0);
float4 shade(float4 color) {
    return EvaluateAttributeAtSample(color, 1) + EvaluateAttributeCentroid(color);
}
float4 main(float2 uv : TEXCOORD0, float4 color : COLOR) : SV_Target {
    float4 c = shade(color) + EvaluateAttributeSnapped(color, int2(1, 2));
    [unroll] for (int i = 0; i < 3; i++) {
        c += t.Sample(s, uv, int2(i, -i));
        c += t.Load(int3(uv * 8, 0), int2(1 - i, i));
    }
    return c;
}"#,
        "ps_6_0",
    );
}

/// The texture reads' optional operands and newer methods: LOD clamps (`MinLod`), residency
/// status outputs (sparse reads, `CheckAccessFullyMapped`), four gather offsets (constant:
/// `ConstOffsets`; computed: four gathers), `SampleCmpLevel`, `SampleCmpBias`,
/// `SampleCmpGrad`, and `Load` with a status on sampled, storage, buffer and multisampled
/// textures.
#[test]
fn texture_reads_with_clamps_status_and_four_offsets() {
    for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
        let words = spirv_valid_env(
            r#"
Texture2D<float4> t : register(t0);
Texture2DArray<float4> ta : register(t1);
TextureCube<float4> tc : register(t2);
Texture2D<float> depth : register(t3);
RWTexture2D<float4> rw : register(u0);
Buffer<float4> buf : register(t4);
Texture2DMS<float4> ms : register(t5);
SamplerState s : register(s0);
SamplerComparisonState sc : register(s1);
float4 main(float2 uv : TEXCOORD0, nointerpolation int2 o : OFFSET) : SV_Target {
    uint st;
    float4 c = t.Sample(s, uv, int2(1, 0), 0.5);
    c += t.Sample(s, uv, int2(1, 0), 0.5, st);
    bool ok = CheckAccessFullyMapped(st);
    c += t.SampleBias(s, uv, 0.5, int2(0, 1), 1.0, st);
    c += t.SampleLevel(s, uv, 2.0, int2(0, 1), st);
    c += t.SampleGrad(s, uv, ddx(uv), ddy(uv), int2(1, 1), 2.0);
    c += tc.Sample(s, float3(uv, 1), 1.5);
    c += tc.Sample(s, float3(uv, 1), 1.5, st);
    c += t.GatherRed(s, uv, int2(0, 0), int2(1, 0), int2(0, 1), int2(1, 1));
    c += t.GatherGreen(s, uv, o, o + 1, o + 2, o + 3, st);
    c += t.GatherAlpha(s, uv, int2(1, 1), st);
    c += depth.GatherCmpRed(sc, uv, 0.5, int2(0, 0), int2(1, 0), int2(0, 1), int2(1, 1));
    c.x += depth.SampleCmp(sc, uv, 0.5, int2(0, 0), 1.0, st);
    c.x += depth.SampleCmpLevelZero(sc, uv, 0.5, int2(0, 0), st);
    c.x += depth.SampleCmpLevel(sc, uv, 0.5, 1.0);
    c.x += depth.SampleCmpBias(sc, uv, 0.5, 0.25, int2(1, 0), 1.0, st);
    c.x += depth.SampleCmpGrad(sc, uv, 0.5, ddx(uv), ddy(uv), int2(0, 0), 2.0);
    c += t.Load(int3(1, 2, 0), int2(1, 1), st);
    c += rw.Load(int2(3, 4), st);
    c += buf.Load(7, st);
    c += ms.Load(int2(1, 1), 2, int2(0, 0), st);
    c += ta.Sample(s, float3(uv, 2), int2(0, 0), 0.25, st);
    return ok ? c : -c;
}
"#,
            "ps_6_0",
            env,
        );
        let text = oneshader_backends::spirv::disassemble(&words).expect("disassembles");
        for want in [
            "MinLod",
            "ConstOffsets",
            "OpImageSparseSampleImplicitLod",
            "OpImageSparseSampleDrefImplicitLod",
            "OpImageSparseGather",
            "OpImageSparseFetch",
            "OpImageSparseRead",
            "OpImageSparseTexelsResident",
        ] {
            assert!(text.contains(want), "{env}: no {want}");
        }
    }
}

/// `GetSamplePosition` on multisampled textures: D3D's standard patterns, picked by the
/// texture's sample count (`OpImageQuerySamples`).
#[test]
fn get_sample_position_of_multisampled_textures() {
    let words = spirv_valid(
        r#"
Texture2DMS<float4> t : register(t0);
Texture2DMSArray<float4, 4> ta : register(t1);
float4 main(nointerpolation uint i : INDEX) : SV_Target {
    return float4(t.GetSamplePosition(i), ta.GetSamplePosition(3));
}"#,
        "ps_6_0",
    );
    let text = oneshader_backends::spirv::disassemble(&words).expect("disassembles");
    assert!(text.contains("OpImageQuerySamples"), "{text}");
}

/// Arrays of structured and byte-address buffers (sized and unsized) are descriptor arrays;
/// their counters are refused (one per element would be needed).
#[test]
fn arrays_of_structured_and_byte_address_buffers() {
    spirv_valid(
        r#"
struct S { float a; uint b; };
RWStructuredBuffer<S> bufs[3] : register(u0);
StructuredBuffer<float4> ro[] : register(t0, space1);
RWByteAddressBuffer raw[2] : register(u3);
[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    bufs[id.x % 3][id.y].a = ro[NonUniformResourceIndex(id.x)][id.y].x;
    bufs[1][0].b += 1;
    raw[id.x & 1].Store(0, raw[0].Load(4));
    uint n, stride;
    bufs[2].GetDimensions(n, stride);
    bufs[0][1].b = n;
}
"#,
        "cs_6_0",
    );
    let e = sema_common::errors(
        "RWStructuredBuffer<uint> b[2];\n[numthreads(1, 1, 1)] void main() { b[0].IncrementCounter(); }\n",
        "cs_6_0",
    );
    assert!(e.contains("error[OSH1040]") && e.contains("counter"), "{e}");
}

/// A float vector times a scalar is `OpVectorTimesScalar` on the scalar itself: the splat the
/// front end builds is not emitted when nothing else reads it (at -O, validated by both
/// spirv-vals); a splat that something else reads stays.
#[test]
fn vector_times_scalar_spares_the_splat() {
    let words = spirv_valid(
        "float4 main(float4 v : A, float s : B) : SV_Target { return v * s + s * v.wzyx; }",
        "ps_6_0",
    );
    let text = oneshader_backends::spirv::disassemble(&words).expect("disassembles");
    assert_eq!(text.matches("OpVectorTimesScalar").count(), 2, "{text}");
    assert!(!text.contains("OpCompositeConstruct"), "{text}");
    assert!(!text.contains("OpFMul"), "{text}");
    let words = spirv_valid(
        "float4 main(float4 v : A, float s : B) : SV_Target { float4 k = s; return v * k + k; }",
        "ps_6_0",
    );
    let text = oneshader_backends::spirv::disassemble(&words).expect("disassembles");
    assert!(text.contains("OpVectorTimesScalar"), "{text}");
    assert!(
        text.contains("OpCompositeConstruct"),
        "the splat is also added: {text}"
    );
}

/// `vk::SampledTexture*` (a combined image sampler): every shape's methods take the texture's
/// own sampler, the comparison ones a comparison sampler; the texture and its samplers share
/// one binding, explicit or DXC's next free one (the resource after it takes the next).
#[test]
fn sampled_textures_share_one_binding_with_their_samplers() {
    let src = r#"
vk::SampledTexture2D<float4> t2;
vk::SampledTextureCUBE<float4> cube : register(t4);
[[vk::binding(7, 1)]] vk::SampledTexture2DArray<float> shadow;
vk::SampledTexture2DMS<float4> ms;
Texture2D<float4> after;
SamplerState s;
float4 main(float4 pos : SV_Position, float2 uv : UV, float3 dir : DIR) : SV_Target {
    float4 c = t2.Sample(uv) + t2.SampleLevel(uv, 1) + t2.SampleBias(uv, 0.5, int2(1, 1));
    c += t2.SampleGrad(uv, ddx(uv), ddy(uv)) + t2.Gather(uv) + t2.Load(int3(pos.xy, 0));
    c += cube.Sample(dir) + cube.SampleLevel(dir, 2);
    c.x += shadow.SampleCmp(float3(uv, 1), 0.5) + shadow.SampleCmpLevelZero(float3(uv, 2), 0.5);
    c += shadow.GatherCmpRed(float3(uv, 0), 0.25);
    c.y += t2.CalculateLevelOfDetail(uv);
    uint w, h;
    t2.GetDimensions(w, h);
    c += ms.Load(int2(pos.xy), 1) + t2.mips[1][uint2(pos.xy)] + after.Sample(s, uv);
    return c + w + h;
}"#;
    let words = spirv_valid(src, "ps_6_0");
    let text = oneshader_backends::spirv::disassemble(&words).expect("parses");
    let binding = |name: &str| -> (u32, u32) {
        let quoted = format!("\"{name}\"");
        let id = text
            .lines()
            .find_map(|l| {
                let rest = l.trim().strip_prefix("OpName ")?;
                let (id, n) = rest.split_once(' ')?;
                (n == quoted).then(|| id.to_string())
            })
            .unwrap_or_else(|| panic!("no variable {name}:\n{text}"));
        let num = |deco: &str| -> u32 {
            let pre = format!("OpDecorate {id} {deco} ");
            text.lines()
                .find_map(|l| l.trim().strip_prefix(pre.as_str()))
                .and_then(|n| n.trim().parse().ok())
                .unwrap_or_else(|| panic!("no {deco} of {name}:\n{text}"))
        };
        (num("DescriptorSet"), num("Binding"))
    };
    assert_eq!(binding("t2"), (0, 0), "{text}");
    assert_eq!(binding("t2.sampler"), (0, 0), "{text}");
    assert_eq!(binding("cube"), (0, 4), "{text}");
    assert_eq!(binding("cube.sampler"), (0, 4), "{text}");
    assert_eq!(binding("shadow"), (1, 7), "{text}");
    assert_eq!(binding("shadow.sampler_cmp"), (1, 7), "{text}");
    // DXC's next free bindings: 1 for `ms`, then 2 and 3 (the samplers take none).
    assert_eq!(binding("ms"), (0, 1), "{text}");
    assert_eq!(binding("after"), (0, 2), "{text}");
    assert_eq!(binding("s"), (0, 3), "{text}");
}

/// Functions returning resources (issue 26, item 4): a texture-array element indexed by the
/// caller's value, a branch on a `static const`, a texture returned and sampled, a call as a
/// resource argument; each resolves to its global and validates.
#[test]
fn functions_returning_resources_validate() {
    spirv_valid(
        r#"
Texture2D<float4> texs[4] : register(t0);
Texture2D<float4> lone : register(t4);
SamplerState s : register(s0);
RWTexture2D<float4> outImg : register(u0);
cbuffer C : register(b0) { uint layer; }
static const int mode = 1;
Texture2D<float4> layerTex(uint k) { return texs[k]; }
Texture2D<float4> chosen() {
    if (mode == 0) { return texs[0]; }
    return lone;
}
float4 fetch(Texture2D<float4> t, uint2 px) { return t.Load(int3(px, 0)); }
RWTexture2D<float4> target() { return outImg; }
[numthreads(8, 8, 1)]
void main(uint2 px : SV_DispatchThreadID) {
    float4 c = layerTex(layer).SampleLevel(s, px / 8.0, 0) + chosen().SampleLevel(s, px / 8.0, 0);
    c += fetch(layerTex(2), px) + fetch(chosen(), px);
    target()[px] = c;
}"#,
        "cs_6_0",
    );
}

/// A `switch` on a value known when compiling lowers only the selected case and the cases it
/// falls into, so a resource local given a resource there names it afterwards
/// (`legal-examples/13`): `mode` 1 selects `b` and computes 2 + 4, `switch (3)` selects
/// nothing, `switch (5)` its `case 5` before the `default` (16): 22 is stored into `b`.
#[test]
fn switch_on_a_constant_selects_its_case() {
    let src = r#"
RWStructuredBuffer<uint> a : register(u0);
RWStructuredBuffer<uint> b : register(u1);
static const int mode = 1;
[numthreads(1,1,1)] void main() {
  RWStructuredBuffer<uint> t = a;
  uint x = 0;
  switch (mode) {
    case 0: t = a; x = 1; break;
    case 1: t = b; x += 2;
    case 2: x += 4; break;
    default: x = 100;
  }
  switch (3) { case 1: x = 7; }
  switch (5) { default: x += 8; break; case 5: x += 16; }
  t[0] = x;
}"#;
    let words = spirv_valid(src, "cs_6_0");
    let text = oneshader_backends::spirv::disassemble(&words).expect("parses");
    let stores: Vec<&str> = text.lines().filter(|l| l.contains("OpStore")).collect();
    assert_eq!(stores.len(), 1, "{text}");
    let chain = text
        .lines()
        .find(|l| l.contains("OpAccessChain"))
        .unwrap_or_else(|| panic!("{text}"));
    let b_id = text
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("OpName ")
                .filter(|r| r.ends_with("\"b\""))
        })
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(chain.contains(&format!(" {b_id} ")), "{chain}\n{text}");
    let c22 = text
        .lines()
        .find(|l| l.contains("OpConstant") && l.trim_end().ends_with(" 22"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(stores[0].trim_end().ends_with(c22), "{}\n{text}", stores[0]);
}
