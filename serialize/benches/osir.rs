//! `.osir` throughput on a generated module of about one million instructions: save, load
//! without verification, verification alone, and parsing the same module's text form (the
//! peer the loader is measured against: loading must be at least 4x faster than parsing).
//!
//! Run: `cargo bench -p oneshader-serialize --bench osir`. The figures are recorded by hand in
//! BENCHMARKS.md (section ".osir"), with instructions per second computed from the module's
//! instruction count printed below.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use oneshader_ir::{AddressSpace, Builder, InstId, Module, Op};
use oneshader_serialize::{LoadOptions, load, save};

/// A module of `funcs` functions, each a chain of arithmetic, memory and control flow over its
/// parameters, constants and earlier results: about 1,000 instructions per function.
fn generate(funcs: usize) -> Module {
    let mut m = Module::new();
    let i32t = m.i32_type();
    let f32t = m.f32_type();
    let v4 = m.vector_type(f32t, 4);
    let g = m.add_global("acc", AddressSpace::Private, f32t, None);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for fi in 0..funcs {
        let f = m.add_func(&format!("f{fi}"), i32t, &[i32t, f32t]);
        let ps = f.params(&m);
        let (pi, pf) = (ps[0].id(), ps[1].id());
        let mut ints: Vec<InstId> = vec![pi];
        let mut floats: Vec<InstId> = vec![pf];
        let mut block = f.entry(&m).expect("has a body");
        for step in 0..120 {
            let mut b = Builder::at_end(&mut m, block);
            for _ in 0..6 {
                let r = rnd();
                let a = ints[(r as usize >> 3) % ints.len()];
                let c = b.m.const_i32((r >> 20) as i32 % 1000);
                let op = [Op::Add, Op::Sub, Op::Mul, Op::And, Op::Xor][r as usize % 5];
                let x = b.binary(op, a, c);
                ints.push(x);
                let fa = floats[(r as usize >> 9) % floats.len()];
                let fc = b.m.const_f32(((r >> 40) % 100) as f32 * 0.25);
                let y = b.binary([Op::Add, Op::Mul][(r >> 5) as usize % 2], fa, fc);
                floats.push(y);
            }
            let last = *floats.last().expect("non-empty");
            let vec = b.construct(v4, &[last, last, pf, last]);
            let e = b.extract(vec, &[2]);
            floats.push(e);
            let old = b.load(g.id());
            let sum = b.add(old, e);
            b.store(g.id(), sum);
            if step % 10 == 9 {
                // A diamond joining two values.
                let func = f;
                let (t, el, j) = (
                    b.m.add_block(func),
                    b.m.add_block(func),
                    b.m.add_block(func),
                );
                let jp = b.m.add_block_param(j, i32t);
                let a = *ints.last().expect("non-empty");
                let c = b.cmp(Op::Lt, a, pi);
                b.if_else(c, t, el, j);
                b.position_at_end(t);
                let x = b.sub(a, pi);
                b.br(j, &[x]);
                b.position_at_end(el);
                let y = b.sub(pi, a);
                b.br(j, &[y]);
                ints.push(jp);
                // Values of the arms do not dominate the join: keep only the join's.
                ints.retain(|&v| v != x && v != y);
                block = j;
            }
        }
        let last = *ints.last().expect("non-empty");
        Builder::at_end(&mut m, block).ret(Some(last));
    }
    m
}

fn bench(c: &mut Criterion) {
    let m = generate(460);
    let n = m.len() as u64;
    let bytes = save(&m).expect("saves");
    let text = oneshader_ir::print::print_module(&m);
    assert!(oneshader_ir::verify::verify(&m).is_empty());
    eprintln!(
        "osir bench module: {n} instructions, {} bytes as .osir ({:.2} bytes/instruction), {} bytes as text",
        bytes.len(),
        bytes.len() as f64 / n as f64,
        text.len()
    );

    let mut group = c.benchmark_group("osir");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.warm_up_time(Duration::from_secs(2));
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("save", |b| {
        b.iter(|| black_box(save(black_box(&m)).unwrap()))
    });
    // Outputs are dropped outside the timed loop: freeing a 1M-instruction module is not
    // part of loading or parsing it.
    group.bench_function("load_no_verify", |b| {
        b.iter_with_large_drop(|| load(black_box(&bytes), &LoadOptions { verify: false }).unwrap())
    });
    group.bench_function("verify", |b| {
        b.iter(|| black_box(oneshader_ir::verify::verify(black_box(&m))))
    });
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("parse_text", |b| {
        b.iter_with_large_drop(|| oneshader_ir::parse::parse(black_box(&text)).unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
