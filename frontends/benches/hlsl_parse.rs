//! Preprocessing + parsing throughput on a synthetic shader (the corpus figure in BENCHMARKS.md
//! is measured by hand on the real corpus; see docs/hlsl-frontend.md).

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use oneshader_frontends::hlsl::{MemoryLoader, PreprocessOptions, parse_text};
use oneshader_ir::diag::SourceMap;

/// A shader with a bit of everything, repeated with distinct names.
fn source() -> String {
    let mut s = String::from("#define SQ(x) ((x) * (x))\n#define SCALE 2.0f\n");
    for i in 0..200 {
        s.push_str(&format!(
            "struct S{i} {{ float4 pos : SV_Position; float2 uv : TEXCOORD0; }};\n\
             Texture2D<float4> tex{i} : register(t{i});\n\
             SamplerState samp{i} : register(s{i});\n\
             cbuffer CB{i} : register(b{i}) {{ float4x4 mvp{i}; float k{i}; }};\n\
             float4 f{i}(S{i} input) : SV_Target {{\n\
               float4 c = tex{i}.Sample(samp{i}, input.uv) * SCALE;\n\
               [unroll] for (int j = 0; j < 4; ++j) {{ c.xyz += SQ((float)j) * k{i}; }}\n\
               if (c.w < 0.5) discard;\n\
               return mul(mvp{i}, c);\n\
             }}\n"
        ));
    }
    s
}

fn bench(c: &mut Criterion) {
    let src = source();
    let loader = MemoryLoader::new();
    let opts = PreprocessOptions::default();
    let mut g = c.benchmark_group("hlsl");
    g.throughput(Throughput::Bytes(src.len() as u64));
    g.bench_function("preprocess_and_parse", |b| {
        b.iter(|| {
            let mut sources = SourceMap::new();
            let p = parse_text(
                Path::new("bench.hlsl"),
                src.clone(),
                &opts,
                &loader,
                &mut sources,
            );
            assert!(!p.has_errors());
            black_box(p.unit.decls.len())
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
