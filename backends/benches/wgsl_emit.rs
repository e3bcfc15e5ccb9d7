//! Emission time per IR instruction of the WGSL backend next to the SPIR-V backend's, on the
//! same generated module of about 100k instructions (`support::generate`, shared with
//! `spirv_emit` and `glsl_emit`), and, as a yardstick, naga's own WGSL-to-SPIR-V time on the
//! WGSL text we emit for it (parse, validate, write SPIR-V). Each backend gets the module
//! legalized for its target outside the measurement; the throughput is counted in the
//! instructions of the generated module for all three.
//!
//! Run: `cargo bench -p oneshader-backends --bench wgsl_emit`

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use oneshader_backends::{Target, prepare, spirv, wgsl};

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
    let mut for_wgsl = source.clone();
    let wgsl_legal = prepare(&mut for_wgsl, Target::Wgsl).expect("legal for WGSL");
    let sopts = spirv::Options::default();
    let wopts = wgsl::Options::default();
    let words = spirv::emit(&spirv_legal, &sopts).expect("emits SPIR-V");
    let wgsl_text = wgsl::emit(&wgsl_legal, &wopts).expect("emits WGSL");
    let naga_words = oneshader_test_tools::naga_spirv(&wgsl_text).expect("naga takes our WGSL");
    eprintln!(
        "module: {insts} IR instructions; SPIR-V {} words, WGSL {} bytes in {} lines, naga's \
         SPIR-V from it {} words",
        words.len(),
        wgsl_text.len(),
        wgsl_text.lines().count(),
        naga_words.len()
    );
    let mut g = c.benchmark_group("emit_100k");
    g.sample_size(10);
    g.throughput(Throughput::Elements(insts as u64));
    g.bench_function("spirv", |b| {
        b.iter(|| spirv::emit(black_box(&spirv_legal), &sopts).expect("emits"))
    });
    g.bench_function("wgsl", |b| {
        b.iter(|| wgsl::emit(black_box(&wgsl_legal), &wopts).expect("emits"))
    });
    g.bench_function("naga_wgsl_to_spirv", |b| {
        b.iter(|| oneshader_test_tools::naga_spirv(black_box(&wgsl_text)).expect("naga"))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
