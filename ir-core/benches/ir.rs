//! IR core benchmarks: memory per instruction and use (structural), interning lookups at a
//! table of 100k entries (hit and miss), build throughput for a 1M-instruction module, and
//! replace_uses_with on a 1,000-deep cascade.
//!
//! Run: `cargo bench -p oneshader-ir --bench ir`. The structural memory figures are printed
//! once at the start (they are counts, not timings).

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use oneshader_ir::{Builder, InstId, Module, Op, Payload};

/// A module with one function of `n` ordinary instructions (a chain of adds and muls over
/// the parameters), in blocks of 1,000 instructions joined by `br`.
fn build(n: usize) -> Module {
    let mut m = Module::new();
    let i32t = m.i32_type();
    let f = m.add_func("big", i32t, &[i32t, i32t]);
    let ps: Vec<InstId> = f.params(&m).iter().map(|p| p.id()).collect();
    let mut block = f.entry(&m).unwrap();
    let mut b = Builder::at_end(&mut m, block);
    let (mut x, y) = (ps[0], ps[1]);
    let mut emitted = 0;
    while emitted < n {
        for _ in 0..1000.min(n - emitted) {
            x = if emitted % 2 == 0 {
                b.add(x, y)
            } else {
                b.mul(x, y)
            };
            emitted += 1;
        }
        if emitted < n {
            let next = b.m.add_block(f);
            b.br(next, &[]);
            block = next;
            b.position_at_end(block);
        }
    }
    b.ret(Some(x));
    m
}

fn memory_report() {
    let m = build(1_000_000);
    let s = m.memory_stats();
    eprintln!(
        "memory: {} instructions, {} uses; {:.1} bytes/instruction (slot map), {:.1} bytes/use \
         (pool), binary add = {} bytes; other tables {} bytes",
        s.insts,
        s.uses,
        s.inst_bytes as f64 / s.insts as f64,
        s.use_bytes as f64 / s.uses as f64,
        s.inst_bytes / s.insts + 3 * (s.use_bytes / s.uses),
        s.other_bytes
    );
}

fn bench_build(c: &mut Criterion) {
    memory_report();
    let mut g = c.benchmark_group("build");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(10));
    g.throughput(Throughput::Elements(1_000_000));
    g.bench_function("1M instructions", |b| {
        b.iter(|| black_box(build(1_000_000)))
    });
    g.finish();
}

fn bench_intern(c: &mut Criterion) {
    let mut m = Module::new();
    let i32t = m.i32_type();
    for k in 0..100_000u64 {
        m.const_int(i32t, k);
    }
    let mut g = c.benchmark_group("intern (100k constants)");
    g.throughput(Throughput::Elements(1000));
    g.bench_function("lookup hit", |b| {
        b.iter(|| {
            for k in (0..100_000u64).step_by(100) {
                black_box(m.lookup(Op::ConstInt, Some(i32t), &[], Payload::Bits(k)));
            }
        })
    });
    g.bench_function("lookup miss", |b| {
        b.iter(|| {
            for k in (200_000..300_000u64).step_by(100) {
                black_box(m.lookup(Op::ConstInt, Some(i32t), &[], Payload::Bits(k)));
            }
        })
    });
    g.bench_function("intern hit (const_int)", |b| {
        b.iter(|| {
            for k in (0..100_000u64).step_by(100) {
                black_box(m.const_int(i32t, k));
            }
        })
    });
    g.finish();
}

/// A generic whose body holds a 1,000-deep chain of array types over its parameter, and the
/// same chain over i32 at module level: replacing the parameter by i32 merges all 1,000.
fn cascade_setup() -> (Module, InstId, InstId) {
    let mut m = Module::new();
    let i32t = m.i32_type();
    let mut cur = i32t;
    for _ in 0..1000 {
        cur = m.array_type(cur, 2);
    }
    let g = m.add_generic("G");
    let tt = m.type_type();
    let t = m.add_generic_param(g, tt);
    let mut chain = t;
    for _ in 0..1000 {
        chain = m.array_type(chain, 2);
    }
    m.set_generic_result(g, chain);
    (m, t, i32t)
}

fn bench_cascade(c: &mut Criterion) {
    let mut g = c.benchmark_group("replace_uses_with");
    g.bench_function("1000-deep cascade", |b| {
        b.iter_batched(
            cascade_setup,
            |(mut m, t, i32t)| {
                m.replace_uses_with(t, i32t);
                m
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group!(benches, bench_build, bench_intern, bench_cascade);
criterion_main!(benches);
