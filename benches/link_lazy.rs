//! What the `.osir` symbol index buys a link: a small shader linked against a generated
//! library of about a million instructions, with the library loaded in full
//! (`oneshader::link::link_files_full`, what `oneshader link` did before the index) and
//! lazily (`oneshader::link::link_files`: only the items the link needs), each from the
//! files' bytes to the linked module's `.osir` bytes; and the two loads alone. Target: the
//! lazy link under 5 ms. The outputs are the same bytes (tests/lazy_link.rs).
//!
//! Run: `cargo bench -p oneshader --bench link_lazy`; figures are recorded by hand in
//! BENCHMARKS.md (section "Linking against a large library").

#[path = "support/big_library.rs"]
mod big_library;

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use oneshader::link::{LinkInput, link_files, link_files_full};
use oneshader::passes::link::LinkOptions;
use oneshader::serialize::{LazyFile, LoadOptions, load, save};

/// Functions of the generated library (about 74 instructions each, constants included).
const FUNCTIONS: usize = 13_500;

fn bench(c: &mut Criterion) {
    let lib_module = oneshader::ir::parse::parse(&big_library::library_text(FUNCTIONS))
        .expect("the library parses");
    let lib = save(&lib_module).expect("saves");
    let shader = save(
        &oneshader::ir::parse::parse(&big_library::small_shader(7)).expect("the shader parses"),
    )
    .expect("saves");
    println!(
        "library: {} instructions, {} bytes of .osir (indexed: {}); shader: {} bytes",
        lib_module.len(),
        lib.len(),
        LazyFile::open(&lib).expect("opens").has_index(),
        shader.len()
    );
    drop(lib_module);
    let inputs = [LinkInput::Osir(&shader), LinkInput::Osir(&lib)];
    let opts = LinkOptions::default();
    let load_opts = LoadOptions::default();
    let mut g = c.benchmark_group("link small shader + 1M-instruction library");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(6));
    // Outputs are dropped outside the timed loop.
    g.bench_function("full load + link + save", |b| {
        b.iter_batched(
            || (),
            |()| {
                let m = link_files_full(&inputs, &opts, &load_opts).expect("links");
                black_box((save(&m).expect("saves"), m))
            },
            BatchSize::SmallInput,
        )
    });
    g.bench_function("lazy load + link + save", |b| {
        b.iter_batched(
            || (),
            |()| {
                let m = link_files(&inputs, &opts, &load_opts).expect("links");
                black_box((save(&m).expect("saves"), m))
            },
            BatchSize::SmallInput,
        )
    });
    g.bench_function("full load of the library", |b| {
        b.iter_batched(
            || (),
            |()| black_box(load(&lib, &load_opts).expect("loads")),
            BatchSize::SmallInput,
        )
    });
    g.bench_function("lazy open + load of f7's closure", |b| {
        b.iter_batched(
            || (),
            |()| {
                let f = LazyFile::open(&lib).expect("opens");
                black_box(f.load(&["f7(f32)->f32"], &load_opts).expect("loads"))
            },
            BatchSize::SmallInput,
        )
    });
    g.bench_function("lazy open of the library", |b| {
        b.iter(|| black_box(LazyFile::open(&lib).expect("opens").has_index()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
