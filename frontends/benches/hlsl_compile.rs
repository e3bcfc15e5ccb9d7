//! Whole-pipeline cost per shader: analysis + lowering (`compile_text`), then `-O` and SPIR-V
//! emission, on a realistic pixel shader and a compute shader, and on a synthetic shader of
//! many functions (scaling). The per-file CLI figure against glslang is measured by hand on the
//! corpus (see BENCHMARKS.md).

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use oneshader_backends::spirv::{self, Options};
use oneshader_frontends::hlsl::{CompileOptions, MemoryLoader, compile_text};
use oneshader_ir::diag::SourceMap;
use oneshader_passes::pipeline::{OptLevel, optimize};

const PIXEL: &str = r#"
cbuffer Frame : register(b0) { float4x4 viewProj; float3 eye; float time; float4 lights[4]; };
Texture2D<float4> albedo : register(t0);
Texture2D<float4> normals : register(t1);
TextureCube<float4> env : register(t2);
SamplerState linearWrap : register(s0);
struct PSIn { float4 pos : SV_Position; float3 wpos : POSITION; float3 n : NORMAL; float2 uv : TEXCOORD0; };
float3 shade(float3 n, float3 v, float3 l, float3 c) {
    float3 h = normalize(v + l);
    float d = saturate(dot(n, l));
    float s = pow(saturate(dot(n, h)), 32.0);
    return c * d + s;
}
float4 main(PSIn i) : SV_Target {
    float4 base = albedo.Sample(linearWrap, i.uv);
    float3 n = normalize(i.n + normals.Sample(linearWrap, i.uv).xyz * 2 - 1);
    float3 v = normalize(eye - i.wpos);
    float3 c = 0;
    [unroll] for (int k = 0; k < 4; ++k) c += shade(n, v, normalize(lights[k].xyz - i.wpos), base.rgb * lights[k].w);
    c += env.SampleLevel(linearWrap, reflect(-v, n), 3).rgb * 0.1;
    if (base.a < 0.1) discard;
    return float4(c, base.a);
}"#;

const COMPUTE: &str = r#"
Texture2D<float4> src : register(t0);
RWTexture2D<float4> dst : register(u0);
groupshared float4 tile[64 + 8];
static const float w[5] = { 0.06, 0.24, 0.4, 0.24, 0.06 };
[numthreads(64, 1, 1)]
void main(uint3 dt : SV_DispatchThreadID, uint gi : SV_GroupIndex) {
    tile[gi + 4] = src.Load(int3(dt.xy, 0));
    if (gi < 4) { tile[gi] = src.Load(int3(max((int)dt.x - 4, 0), dt.y, 0)); tile[gi + 68] = src.Load(int3(dt.x + 64, dt.y, 0)); }
    GroupMemoryBarrierWithGroupSync();
    float4 acc = 0;
    for (int k = -2; k <= 2; ++k) acc += tile[gi + 4 + k] * w[k + 2];
    dst[dt.xy] = acc;
}"#;

fn synthetic(n: usize) -> String {
    let mut s = String::from("cbuffer C { float4 k; };\n");
    for i in 0..n {
        s.push_str(&format!(
            "float4 f{i}(float4 x) {{ float4 r = x; for (int j = 0; j < 3; ++j) r = r * k + {i}; return r; }}\n"
        ));
    }
    s.push_str("float4 main(float4 x : X) : SV_Target { float4 r = x;\n");
    for i in 0..n {
        s.push_str(&format!("  r += f{i}(r);\n"));
    }
    s.push_str("  return r; }\n");
    s
}

fn compile(src: &str, profile: &str) -> oneshader_ir::Module {
    let opts = CompileOptions {
        profile: profile.into(),
        ..CompileOptions::default()
    };
    let mut sources = SourceMap::new();
    let r = compile_text(
        Path::new("bench.hlsl"),
        src,
        &opts,
        &MemoryLoader::new(),
        &mut sources,
    );
    r.module.expect("the benchmark shaders compile")
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("hlsl_compile");
    for (name, src, profile) in [("pixel", PIXEL, "ps_6_0"), ("compute", COMPUTE, "cs_6_0")] {
        g.bench_function(format!("{name}/front_end"), |b| {
            b.iter(|| black_box(compile(black_box(src), profile)))
        });
        g.bench_function(format!("{name}/front_end+O+spirv"), |b| {
            b.iter(|| {
                let mut m = compile(black_box(src), profile);
                let _ = optimize(OptLevel::O).run(&mut m);
                let legal = oneshader_backends::prepare(&mut m, oneshader_backends::Target::Spirv)
                    .expect("legal");
                black_box(spirv::emit(&legal, &Options::default()).expect("emits"))
            })
        });
    }
    let big = synthetic(200);
    g.throughput(Throughput::Bytes(big.len() as u64));
    g.bench_function("synthetic_200_functions/front_end", |b| {
        b.iter(|| black_box(compile(black_box(&big), "ps_6_0")))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
