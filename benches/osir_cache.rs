//! What a shader cache buys: loading a compiled module from `.osir` against compiling it from
//! HLSL source, measured in the same run on shaders of examples/hlsl/ (target: loading at
//! least 20x faster).
//!
//! "compile" is the library facade from source text in memory to the module a cache would
//! store: preprocessing, parsing, analysis, lowering, legalization and `-O`
//! (`CompileOptions { emit_spirv: false, keep_final_ir: true, .. }`). "load" is
//! `oneshader_serialize::load` of that module saved with `save`, with verification (the
//! default, for files from elsewhere) and without (a cache trusting the files it wrote).
//! SPIR-V emission would come after either, so it is left out of both.
//!
//! Run: `cargo bench -p oneshader --bench osir_cache`; figures are recorded by hand in
//! BENCHMARKS.md (section ".osir save and load").

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use oneshader::{CompileOptions, Compiler};
use oneshader_serialize::{LoadOptions, load, save};

/// (file, profile, entry) of the measured examples.
const SHADERS: [(&str, &str, &str); 3] = [
    ("blur.hlsl", "cs_6_0", "main"),
    ("particles.hlsl", "cs_6_0", "main"),
    ("textured.hlsl", "ps_6_0", "PSMain"),
];

fn bench(c: &mut Criterion) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let compiler = Compiler::new();
    for (file, profile, entry) in SHADERS {
        let source = std::fs::read_to_string(root.join("examples/hlsl").join(file))
            .expect("the example exists");
        let mut opts = CompileOptions::new(profile).entry(entry);
        opts.emit_spirv = false;
        opts.keep_final_ir = true;
        let compile = || {
            compiler
                .compile_source(file, source.as_str(), &opts)
                .expect("the example compiles")
        };
        let module = compile().ir.final_module.expect("kept");
        let bytes = save(&module).expect("saves");
        println!(
            "{file}: {} instructions, {} bytes of .osir, {} bytes of HLSL",
            module.len(),
            bytes.len(),
            source.len()
        );
        let mut g = c.benchmark_group(file);
        g.measurement_time(Duration::from_secs(4));
        // Outputs are dropped outside the timed loop: freeing a module is not part of making it.
        g.bench_function("compile from HLSL", |b| {
            b.iter_batched(|| (), |()| black_box(compile()), BatchSize::SmallInput)
        });
        g.bench_function("load .osir (verified)", |b| {
            b.iter_batched(
                || (),
                |()| black_box(load(&bytes, &LoadOptions::default()).expect("loads")),
                BatchSize::SmallInput,
            )
        });
        g.bench_function("load .osir (trusted, no verification)", |b| {
            b.iter_batched(
                || (),
                |()| black_box(load(&bytes, &LoadOptions { verify: false }).expect("loads")),
                BatchSize::SmallInput,
            )
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
