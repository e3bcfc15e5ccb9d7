//! `-O` on one generated function of about 100k and about 1M instructions: the ratio of the
//! two times shows how the pipeline scales (target: at most 12x for 10x the size).
//!
//! The function repeats a chunk the optimizer has work in: loads and stores of a few local
//! variables (mem2reg), a struct variable (SROA), constant arithmetic (combine), repeated
//! expressions (CSE), dead values and write-only variables (DCE), an `if`/`else` joining a
//! value, a constant-condition `if` (CFG simplification) and a counted loop. Before measuring,
//! one run of each size prints the per-pass timing table to stderr.
//!
//! Five groups: `opt_O` is the real `-O` pipeline; `opt_O_no_cfg` is the same without
//! `simplify_cfg`, to see the scaling of the other passes on their own; `opt_O_library` is
//! `-O` on a module of the same total size made of many small functions (one chunk each, about
//! 70 instructions), as a shader library is, where per-function costs that grow with the
//! module would show as a quadratic; `opt_O_switch` is `-O` on one `switch` with a case per
//! four instructions, all joining in one merge block (per-edge work that scans the merge
//! block's other edges would show as a quadratic); `walk` reads every
//! instruction of the same function once (its op and its operands) and does nothing else: the
//! least any sweep over the IR costs, so its ratio is the memory system's share of the
//! pipeline's ratio.
//!
//! Run: `cargo bench -p oneshader-passes --bench opt_scaling` (or add a filter such as
//! `-- opt_O_no_cfg`). `OPT_SCALING_SIZES=1M,10M` measures other sizes (see [`sizes`]).

use std::cell::OnceCell;
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use oneshader_ir::Module;
use oneshader_passes::Pass;
use oneshader_passes::manager::PassManager;
use oneshader_passes::pipeline::{
    MAX_ROUNDS, OptLevel, legalization_passes, optimize, pass_by_name, scalar_round,
};

/// The text of a function with `chunks` chunks ([`PER_CHUNK`] instructions each).
fn generate(chunks: usize) -> String {
    let mut t = String::with_capacity(chunks * 1600);
    t.push_str("struct @Pair {\n  a: i32\n  b: f32\n}\n\n");
    t.push_str("func @big(%p: i32, %q: i32, %r: f32) -> i32 {\nbb_entry:\n");
    t.push_str("  %acc = var : ptr<function, i32>\n");
    t.push_str("  %fv = var : ptr<function, f32>\n");
    t.push_str("  %tmp = var : ptr<function, i32>\n");
    t.push_str("  %pair = var : ptr<function, @Pair>\n");
    t.push_str("  %junk = var : ptr<function, i32>\n");
    t.push_str("  store %acc, %p\n  store %fv, %r\n  store %tmp, i32 0\n");
    t.push_str("  %pa0 = field_addr %pair, 0 : ptr<function, i32>\n");
    t.push_str("  store %pa0, %q\n");
    t.push_str("  %pb0 = field_addr %pair, 1 : ptr<function, f32>\n");
    t.push_str("  store %pb0, %r\n");
    t.push_str("  br bb_c0\n");
    for k in 0..chunks {
        let n = k + 1;
        let _ = write!(
            t,
            "bb_c{k}:
  %a{k} = load %acc : i32
  %b{k} = mul %a{k}, i32 3 : i32
  %c{k} = add %b{k}, i32 0 : i32
  %d{k} = mul %a{k}, i32 3 : i32
  %e{k} = add %c{k}, %d{k} : i32
  %g{k} = add i32 2, i32 5 : i32
  %h{k} = mul %e{k}, %g{k} : i32
  %x{k} = xor %h{k}, %p : i32
  %dead{k} = sub %x{k}, %a{k} : i32
  store %junk, %dead{k}
  %pa{n} = field_addr %pair, 0 : ptr<function, i32>
  %pv{k} = load %pa{n} : i32
  %pw{k} = add %pv{k}, %x{k} : i32
  store %pa{n}, %pw{k}
  %lt{k} = lt %x{k}, %q : bool
  if_else %lt{k}, bb_t{k}, bb_e{k}, merge bb_m{k}
bb_t{k}:
  %t{k} = add %x{k}, i32 1 : i32
  br bb_m{k}(%t{k})
bb_e{k}:
  %u{k} = sub %x{k}, i32 1 : i32
  store %tmp, %u{k}
  %v{k} = load %tmp : i32
  br bb_m{k}(%v{k})
bb_m{k}(%j{k}: i32):
  store %acc, %j{k}
  %fl{k} = load %fv : f32
  %fm{k} = mul %fl{k}, f32 1.0 : f32
  %fa{k} = add %fm{k}, %r : f32
  %fc{k} = mul f32 0.5, f32 4.0 : f32
  %fb{k} = mul %fa{k}, %fc{k} : f32
  store %fv, %fb{k}
  %kc{k} = eq i32 1, i32 2 : bool
  if_else %kc{k}, bb_k{k}, bb_n{k}, merge bb_n{k}
bb_k{k}:
  store %acc, i32 0
  br bb_n{k}
bb_n{k}:
  loop bb_h{k}(i32 0), break bb_x{k}, continue bb_s{k}
bb_h{k}(%i{k}: i32):
  %lc{k} = lt %i{k}, i32 4 : bool
  cond_br %lc{k}, bb_b{k}, bb_x{k}
bb_b{k}:
  %la{k} = load %acc : i32
  %lb{k} = add %la{k}, %i{k} : i32
  %lm{k} = mul %i{k}, i32 8 : i32
  %ln{k} = mul %i{k}, i32 8 : i32
  %lo{k} = add %lm{k}, %ln{k} : i32
  %lp{k} = add %lb{k}, %lo{k} : i32
  store %acc, %lp{k}
  br bb_s{k}
bb_s{k}:
  %in{k} = add %i{k}, i32 1 : i32
  br bb_h{k}(%in{k})
bb_x{k}:
  br bb_c{n}
"
        );
    }
    let _ = write!(
        t,
        "bb_c{chunks}:
  %ra = load %acc : i32
  %rf = load %fv : f32
  %ri = convert %rf : i32
  %pz = field_addr %pair, 0 : ptr<function, i32>
  %rp = load %pz : i32
  %rs = add %ra, %ri : i32
  %rt = add %rs, %rp : i32
  return %rt
}}
"
    );
    t
}

/// A module of `functions` functions, each the generated function with one chunk.
fn generate_library(functions: usize) -> String {
    let one = generate(1);
    let body_at = one.find("func @big").expect("the generator writes @big");
    let (types, body) = one.split_at(body_at);
    let mut t = String::with_capacity(functions * (body.len() + 8));
    t.push_str(types);
    for k in 0..functions {
        t.push_str(&body.replacen("func @big", &format!("func @f{k}"), 1));
        t.push('\n');
    }
    t
}

/// Instructions in one function of [`generate_library`] (measured: one chunk, the entry
/// block's variables and stores, and the exit block).
const PER_LIBRARY_FUNCTION: usize = 68;

/// Instructions (not counting parameters and blocks) in the module's functions.
fn count_instructions(m: &Module) -> usize {
    m.functions()
        .iter()
        .flat_map(|f| f.blocks(m))
        .map(|b| b.insts(m).len())
        .sum()
}

/// Instructions per generated chunk (measured: 47 ordinary instructions and terminators).
const PER_CHUNK: usize = 47;

fn build(target: usize) -> Module {
    let text = generate(target / PER_CHUNK);
    oneshader_ir::parse::parse(&text).expect("the generated function parses")
}

/// `-O` without `simplify_cfg`: shows how the rest of the pipeline scales on its own.
fn without_simplify_cfg() -> PassManager {
    let mut pm = PassManager::new();
    for p in legalization_passes() {
        pm.add(p);
    }
    pm.add(pass_by_name("inline").expect("registered"));
    let round: Vec<Box<dyn Pass>> = scalar_round()
        .into_iter()
        .filter(|p| p.name() != "simplify_cfg")
        .collect();
    pm.add_fixed_point(round, MAX_ROUNDS);
    pm
}

/// The sizes to measure: 100k and 1M, or the comma-separated list in `OPT_SCALING_SIZES`
/// (such as `1M,10M`, to see the scaling once both sizes are far larger than the cache; 10M
/// needs about 6 GB of memory and five minutes).
fn sizes() -> Vec<(String, usize)> {
    let list = std::env::var("OPT_SCALING_SIZES").unwrap_or_else(|_| "100k,1M".into());
    list.split(',')
        .map(|s| {
            let s = s.trim();
            let (digits, scale) = if let Some(d) = s.strip_suffix('M') {
                (d, 1_000_000)
            } else if let Some(d) = s.strip_suffix('k') {
                (d, 1_000)
            } else {
                (s, 1)
            };
            let n: usize = digits.parse().unwrap_or_else(|_| {
                panic!("OPT_SCALING_SIZES: `{s}` is not a size like 100k or 1M")
            });
            (s.to_string(), n * scale)
        })
        .collect()
}

/// One function: a `switch` over `cases` cases, each loading, adding to and storing a local
/// variable, all joining in one merge block.
fn generate_switch(cases: usize) -> String {
    let mut t = String::with_capacity(cases * 120);
    t.push_str("func @f(%s: i32, %x: i32) -> i32 {\nbb0:\n");
    t.push_str("  %v = var : ptr<function, i32>\n  store %v, %x\n");
    t.push_str("  switch %s, merge bb_m, default bb_d, [");
    for k in 0..cases {
        if k > 0 {
            t.push_str(", ");
        }
        let _ = write!(t, "i32 {k}: bb_c{k}");
    }
    t.push_str("]\n");
    for k in 0..cases {
        let _ = write!(
            t,
            "bb_c{k}:\n  %a{k} = load %v : i32\n  %b{k} = add %a{k}, i32 {k} : i32\n  store %v, %b{k}\n  br bb_m\n"
        );
    }
    t.push_str("bb_d:\n  br bb_m\nbb_m:\n  %r = load %v : i32\n  return %r\n}\n");
    t
}

fn build_switch(target: usize) -> Module {
    let text = generate_switch(target / 4);
    oneshader_ir::parse::parse(&text).expect("the generated switch parses")
}

fn build_library(target: usize) -> Module {
    let text = generate_library(target / PER_LIBRARY_FUNCTION);
    oneshader_ir::parse::parse(&text).expect("the generated library parses")
}

fn bench_pipeline(
    c: &mut Criterion,
    group_name: &str,
    make: fn() -> PassManager,
    input: fn(usize) -> Module,
) {
    let mut group = c.benchmark_group(group_name);
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    for (label, target) in sizes() {
        // Built lazily: criterion calls the closure only for selected benchmarks.
        let module: OnceCell<Module> = OnceCell::new();
        group.measurement_time(Duration::from_secs(match target {
            t if t >= 10_000_000 => 300,
            t if t >= 1_000_000 => 60,
            _ => 10,
        }));
        group.bench_function(label.as_str(), |b| {
            let m = module.get_or_init(|| {
                let m = input(target);
                assert!(
                    oneshader_ir::verify::verify(&m).is_empty(),
                    "the generated module verifies"
                );
                // One run with the per-pass table, for the record.
                let mut once = m.clone();
                let report = make().run(&mut once).expect("the pipeline succeeds");
                eprintln!(
                    "{group_name}/{label}: {} instructions before, {} after\n{}",
                    count_instructions(&m),
                    count_instructions(&once),
                    report.timing_table()
                );
                m
            });
            b.iter_batched(
                || m.clone(),
                |mut m| {
                    let r = make().run(&mut m);
                    black_box(r.is_ok());
                    // Returned, so criterion drops the module outside the timed loop: freeing
                    // a million-instruction module is not part of optimizing it.
                    m
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

/// One sweep over every function: each block's children, their op and operands, in order.
fn walk(m: &Module) -> usize {
    let mut acc = 0usize;
    for f in m.functions() {
        for b in f.blocks(m) {
            for c in m.children(b.id()) {
                acc = acc.wrapping_add(m.op(c) as usize);
                for i in 0..m.num_operands(c) {
                    acc = acc.wrapping_add(m.operand(c, i).slot_number());
                }
            }
        }
    }
    acc
}

fn bench_walk(c: &mut Criterion) {
    let mut group = c.benchmark_group("walk");
    group.sample_size(20);
    for (label, target) in sizes() {
        let module: OnceCell<Module> = OnceCell::new();
        group.bench_function(label.as_str(), |b| {
            let m = module.get_or_init(|| build(target));
            b.iter(|| black_box(walk(m)))
        });
    }
    group.finish();
}

fn bench(c: &mut Criterion) {
    let o = || optimize(OptLevel::O);
    bench_pipeline(c, "opt_O", o, build);
    bench_pipeline(c, "opt_O_no_cfg", without_simplify_cfg, build);
    bench_pipeline(c, "opt_O_library", o, build_library);
    bench_pipeline(c, "opt_O_switch", o, build_switch);
    bench_walk(c);
}

criterion_group!(benches, bench);
criterion_main!(benches);
