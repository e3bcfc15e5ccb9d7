//! Emission time per IR instruction of the MSL backend next to the SPIR-V backend's, on the
//! same generated module of about 100k instructions (`support::generate`, shared with
//! `spirv_emit`, `glsl_emit` and `wgsl_emit`). Each backend gets the module legalized for its
//! target outside the measurement; the throughput is counted in the instructions of the
//! generated module for both. The MSL text is checked with clang against the stand-in
//! `<metal_stdlib>` once, before the measurement.
//!
//! Run: `cargo bench -p oneshader-backends --bench msl_emit`

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use oneshader_backends::{Target, msl, prepare, spirv};

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
    let mut for_msl = source.clone();
    let msl_legal = prepare(&mut for_msl, Target::Msl).expect("legal for MSL");
    let sopts = spirv::Options::default();
    let mopts = msl::Options::default();
    let words = spirv::emit(&spirv_legal, &sopts).expect("emits SPIR-V");
    let msl_text = msl::emit(&msl_legal, &mopts).expect("emits MSL");
    oneshader_test_tools::msl_clang_check(&msl_text).expect("clang takes our MSL");
    eprintln!(
        "module: {insts} IR instructions; SPIR-V {} words, MSL {} bytes in {} lines",
        words.len(),
        msl_text.len(),
        msl_text.lines().count(),
    );
    let mut g = c.benchmark_group("emit_100k");
    g.sample_size(10);
    g.throughput(Throughput::Elements(insts as u64));
    g.bench_function("spirv", |b| {
        b.iter(|| spirv::emit(black_box(&spirv_legal), &sopts).expect("emits"))
    });
    g.bench_function("msl", |b| {
        b.iter(|| msl::emit(black_box(&msl_legal), &mopts).expect("emits"))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
