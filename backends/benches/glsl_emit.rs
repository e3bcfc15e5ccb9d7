//! Emission time per IR instruction of the GLSL backend next to the SPIR-V backend's, on the
//! same generated module of about 100k instructions (`support::generate`, shared with
//! `spirv_emit`). Each backend gets the module legalized for its target outside the
//! measurement (for GLSL that includes `params_to_vars`, which turns the 100 merge-block
//! parameters into variables), and the throughput is counted in the instructions of the
//! generated module for both.
//!
//! Run: `cargo bench -p oneshader-backends --bench glsl_emit`

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use oneshader_backends::{Target, glsl, prepare, spirv};

mod support;

use support::generate;

fn bench(c: &mut Criterion) {
    let text = generate();
    let source = oneshader_ir::parse::parse(&text).expect("generated module parses");
    let insts: usize = source
        .functions()
        .iter()
        .flat_map(|f| f.blocks(&source))
        .map(|b| b.insts(&source).len())
        .sum();
    let mut for_spirv = source.clone();
    let spirv_legal = prepare(&mut for_spirv, Target::Spirv).expect("legal for SPIR-V");
    let mut for_glsl = source.clone();
    let glsl_legal = prepare(&mut for_glsl, Target::Glsl).expect("legal for GLSL");
    let sopts = spirv::Options::default();
    let gopts = glsl::Options::default();
    let words = spirv::emit(&spirv_legal, &sopts).expect("emits SPIR-V");
    let text = glsl::emit(&glsl_legal, &gopts).expect("emits GLSL");
    eprintln!(
        "module: {insts} IR instructions; SPIR-V {} words, GLSL {} bytes in {} lines",
        words.len(),
        text.len(),
        text.lines().count()
    );
    let mut g = c.benchmark_group("emit_100k");
    g.sample_size(20);
    g.throughput(Throughput::Elements(insts as u64));
    g.bench_function("spirv", |b| {
        b.iter(|| spirv::emit(black_box(&spirv_legal), &sopts).expect("emits"))
    });
    g.bench_function("glsl", |b| {
        b.iter(|| glsl::emit(black_box(&glsl_legal), &gopts).expect("emits"))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
