//! Times the verifier on generated functions of growing size with many sequential loops,
//! each holding a diamond, to check that verification stays linear.
//!
//! Run: `cargo run --release -p oneshader-ir --example verify_scaling`

use std::time::Instant;

use oneshader_ir::{Builder, Module, Op, verify::verify};

/// One function with `loops` sequential loops; each loop's body holds an `if_else` diamond
/// joining a value in a block parameter and a few arithmetic instructions.
pub fn loopy_module(loops: usize) -> Module {
    let mut m = Module::new();
    let i32t = m.i32_type();
    let f = m.add_func("f", i32t, &[i32t]);
    let n = f.params(&m)[0].id();
    let mut cur = f.entry(&m).unwrap();
    let zero = m.const_i32(0);
    let one = m.const_i32(1);
    let mut acc = n;
    for _ in 0..loops {
        let header = m.add_block(f);
        let i = m.add_block_param(header, i32t);
        let body = m.add_block(f);
        let then = m.add_block(f);
        let els = m.add_block(f);
        let join = m.add_block(f);
        let jp = m.add_block_param(join, i32t);
        let cont = m.add_block(f);
        let exit = m.add_block(f);
        let mut b = Builder::at_end(&mut m, cur);
        b.loop_(header, exit, cont, &[zero]);
        b.position_at_end(header);
        let c = b.cmp(Op::Lt, i, n);
        b.cond_br(c, body, exit);
        b.position_at_end(body);
        let x = b.mul(i, acc);
        let c2 = b.cmp(Op::Gt, x, acc);
        b.if_else(c2, then, els, join);
        b.position_at_end(then);
        let t = b.add(x, one);
        b.br(join, &[t]);
        b.position_at_end(els);
        let e = b.sub(x, one);
        b.br(join, &[e]);
        b.position_at_end(join);
        let y = b.xor(jp, x);
        b.br(cont, &[]);
        b.position_at_end(cont);
        let next = b.add(i, one);
        b.br(header, &[next]);
        b.position_at_end(exit);
        // The header's parameter dominates the exit; the body's values do not.
        acc = b.add(acc, i);
        let _ = y;
        cur = exit;
    }
    Builder::at_end(&mut m, cur).ret(Some(acc));
    m
}

fn main() {
    let sizes: Vec<usize> = match std::env::args().nth(1) {
        Some(n) => vec![n.parse().expect("a loop count")],
        None => vec![1_000, 4_000, 16_000, 64_000],
    };
    for loops in sizes {
        let m = loopy_module(loops);
        let t = Instant::now();
        let d = verify(&m);
        let dt = t.elapsed();
        assert!(d.is_empty(), "{:?}", &d[..d.len().min(3)]);
        println!(
            "{loops:>6} loops, {:>8} instructions: verify {:>8.1} ms ({:.0} ns/instruction)",
            m.len(),
            dt.as_secs_f64() * 1e3,
            dt.as_secs_f64() * 1e9 / m.len() as f64
        );
    }
}
