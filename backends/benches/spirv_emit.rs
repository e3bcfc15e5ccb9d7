//! Emission throughput of the SPIR-V backend on a generated module of about 100k
//! instructions, beside rspirv's `dr::Builder` emitting the same module (same instructions,
//! same types and constants) in the same run as the reference point.
//!
//! The module is one compute entry point: 100 segments of about 1000 arithmetic and comparison
//! instructions over `i32`, `u32` and `f32`, each segment ending in an `if_else` diamond whose
//! merge block takes a block parameter (an `OpPhi`), and a final store to a storage buffer.
//!
//! Run: `CARGO_TARGET_DIR=target-spirv cargo bench -p oneshader-backends --bench spirv_emit`

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use oneshader_backends::spirv::{self, Options};
use oneshader_ir::{InstId, Module, Op};
use rspirv::dr::{Builder, Operand};
use rspirv::spirv as S;

mod support;

use support::generate;

/// Emits the same module through rspirv's `dr::Builder`: walks the same IR and calls one
/// builder method per instruction, types and constants through the builder's deduplication.
fn emit_with_builder(m: &Module) -> Vec<u32> {
    use rspirv::binary::Assemble;
    let mut b = Builder::new();
    b.set_version(1, 5);
    b.capability(S::Capability::Shader);
    b.memory_model(S::AddressingModel::Logical, S::MemoryModel::GLSL450);
    let mut ids: rustc_hash::FxHashMap<InstId, u32> = rustc_hash::FxHashMap::default();
    let void = b.type_void();
    let i32t = b.type_int(32, 1);
    let u32t = b.type_int(32, 0);
    let f32t = b.type_float(32, None);
    let boolt = b.type_bool();
    let uv3 = b.type_vector(u32t, 3);
    let rt = b.type_runtime_array(i32t);
    b.decorate(rt, S::Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
    let st = b.type_struct([rt]);
    b.member_decorate(st, 0, S::Decoration::Offset, [Operand::LiteralBit32(0)]);
    b.decorate(st, S::Decoration::Block, []);
    let pst = b.type_pointer(None, S::StorageClass::StorageBuffer, st);
    let out = b.variable(pst, None, S::StorageClass::StorageBuffer, None);
    let pin = b.type_pointer(None, S::StorageClass::Input, uv3);
    let gid = b.variable(pin, None, S::StorageClass::Input, None);
    let func = m.func_by_name("main").expect("generated module has @main");
    ids.insert(m.global_by_name("out").expect("@out").id(), out);
    ids.insert(m.global_by_name("gid").expect("@gid").id(), gid);
    let fnty = b.type_function(void, []);
    let fid = b
        .begin_function(void, None, S::FunctionControl::NONE, fnty)
        .expect("function");
    b.entry_point(S::ExecutionModel::GLCompute, fid, "main", [gid, out]);
    b.execution_mode(fid, S::ExecutionMode::LocalSize, [64, 1, 1]);
    let ty_of = |m: &Module, v: InstId| -> u32 {
        match m.ty(v).map(|t| m.op(t)) {
            Some(Op::I32) => i32t,
            Some(Op::U32) => u32t,
            Some(Op::F32) => f32t,
            Some(Op::Bool) => boolt,
            _ => uv3,
        }
    };
    let blocks = func.blocks(m);
    for &bl in &blocks {
        let label = b.id();
        ids.insert(bl.id(), label);
    }
    let val = |b: &mut Builder, ids: &mut rustc_hash::FxHashMap<InstId, u32>, v: InstId| {
        if let Some(&id) = ids.get(&v) {
            return id;
        }
        let id = match m.op(v) {
            Op::ConstInt => {
                let t = if m.ty(v).map(|t| m.op(t)) == Some(Op::I32) {
                    i32t
                } else {
                    u32t
                };
                b.constant_bit32(t, m.literal_bits(v).unwrap_or(0) as u32)
            }
            _ => b.id(),
        };
        ids.insert(v, id);
        id
    };
    for &bl in &blocks {
        b.begin_block(Some(ids[&bl.id()])).expect("block");
        for c in m.children(bl.id()) {
            let op = m.op(c);
            if op == Op::Param {
                if bl == blocks[0] {
                    continue;
                }
                let mut pairs = Vec::new();
                for u in m.uses(bl.id()) {
                    let term = u.user;
                    let pred = m.parent(term).expect("in a block");
                    let arg = m.operand(term, 1);
                    pairs.push((val(&mut b, &mut ids, arg), ids[&pred]));
                }
                let id = val(&mut b, &mut ids, c);
                b.phi(i32t, Some(id), pairs).expect("phi");
                continue;
            }
            let r = if op.is_instruction() {
                Some(val(&mut b, &mut ids, c))
            } else {
                None
            };
            let o = |b: &mut Builder, ids: &mut rustc_hash::FxHashMap<InstId, u32>, k| {
                val(b, ids, m.operand(c, k))
            };
            match op {
                Op::Load => {
                    let p = o(&mut b, &mut ids, 0);
                    b.load(uv3, r, p, None, []).expect("load");
                }
                Op::Extract => {
                    let v = o(&mut b, &mut ids, 0);
                    b.composite_extract(u32t, r, v, [0]).expect("extract");
                }
                Op::Bitcast => {
                    let v = o(&mut b, &mut ids, 0);
                    b.bitcast(i32t, r, v).expect("bitcast");
                }
                Op::Convert => {
                    let v = o(&mut b, &mut ids, 0);
                    b.convert_s_to_f(f32t, r, v).expect("convert");
                }
                Op::Add | Op::Sub | Op::Mul | Op::Xor | Op::Lt | Op::Gt => {
                    let x = o(&mut b, &mut ids, 0);
                    let y = o(&mut b, &mut ids, 1);
                    let t = ty_of(m, c);
                    let float = t == f32t;
                    match op {
                        Op::Add => b.i_add(t, r, x, y),
                        Op::Sub => b.i_sub(t, r, x, y),
                        Op::Mul if float => b.f_mul(t, r, x, y),
                        Op::Mul => b.i_mul(t, r, x, y),
                        Op::Xor => b.bitwise_xor(t, r, x, y),
                        Op::Lt => b.s_less_than(boolt, r, x, y),
                        _ => b.s_greater_than(boolt, r, x, y),
                    }
                    .expect("binary");
                }
                Op::Select => {
                    let cnd = o(&mut b, &mut ids, 0);
                    let x = o(&mut b, &mut ids, 1);
                    let y = o(&mut b, &mut ids, 2);
                    b.select(i32t, r, cnd, x, y).expect("select");
                }
                Op::ElementAddr => {
                    let idx = o(&mut b, &mut ids, 1);
                    let pe = b.type_pointer(None, S::StorageClass::StorageBuffer, i32t);
                    let zero = b.constant_bit32(u32t, 0);
                    b.access_chain(pe, r, out, [zero, idx]).expect("chain");
                }
                Op::Store => {
                    let p = o(&mut b, &mut ids, 0);
                    let v = o(&mut b, &mut ids, 1);
                    b.store(p, v, None, []).expect("store");
                }
                Op::Br => {
                    let t = ids[&m.operand(c, 0)];
                    b.branch(t).expect("br");
                }
                Op::IfElse => {
                    let cnd = o(&mut b, &mut ids, 0);
                    let (t, e, mg) = (
                        ids[&m.operand(c, 1)],
                        ids[&m.operand(c, 2)],
                        ids[&m.operand(c, 3)],
                    );
                    b.selection_merge(mg, S::SelectionControl::NONE)
                        .expect("merge");
                    b.branch_conditional(cnd, t, e, []).expect("cond");
                }
                Op::Return => b.ret().expect("ret"),
                _ => {}
            }
        }
    }
    b.end_function().expect("end");
    b.module().assemble()
}

fn bench(c: &mut Criterion) {
    let text = generate();
    let mut m = oneshader_ir::parse::parse(&text).expect("generated module parses");
    let insts: usize = m
        .functions()
        .iter()
        .flat_map(|f| f.blocks(&m))
        .map(|b| b.insts(&m).len())
        .sum();
    // Legalized and checked once, outside the measurement: the benchmark times emission.
    let legal = oneshader_backends::prepare(&mut m, oneshader_backends::Target::Spirv)
        .expect("the generated module is legal");
    let m = legal.module();
    let opts = Options::default();
    let ours = spirv::emit(&legal, &opts).expect("emits");
    let theirs = emit_with_builder(m);
    eprintln!(
        "module: {insts} IR instructions; ours {} words, dr::Builder {} words",
        ours.len(),
        theirs.len()
    );
    let mut g = c.benchmark_group("spirv_emit_100k");
    g.sample_size(20);
    g.throughput(Throughput::Elements(insts as u64));
    g.bench_function("oneshader", |bch| {
        bch.iter(|| spirv::emit(black_box(&legal), &opts).expect("emits"))
    });
    g.bench_function("rspirv_dr_builder", |bch| {
        bch.iter(|| emit_with_builder(black_box(m)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
