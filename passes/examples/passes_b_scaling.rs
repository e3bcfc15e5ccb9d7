//! Times passes B's passes (inline, SROA, mem2reg, CFG simplification) on generated functions
//! of growing size, to show how they scale:
//!
//! ```text
//! cargo run --release -p oneshader-passes --example passes_b_scaling [SEGMENTS...]
//! ```
//!
//! A function of `n` segments has `n` local variables; each segment is an `if_else` writing
//! its variable, a counted loop accumulating into it, a call of a small helper with two
//! returns (one inside a selection, so it is inlined wrapped in a run-once loop) and a
//! `switch`. The caller-size cap of the inliner is lifted so every call is inlined at every
//! size. Prints instructions before and after, the time of each pass (best of three runs),
//! and as a yardstick measured in the same run the time of one CFG snapshot (`Cfg::new` with
//! dominance frontiers) of the optimized function: a pass that walks the function a few
//! times costs a few snapshots, whatever the machine's caches do at that size.

use std::time::{Duration, Instant};

use oneshader_ir::Module;
use oneshader_passes::Pass;
use oneshader_passes::inline::{Inline, InlineOptions};
use oneshader_passes::mem2reg::Mem2Reg;
use oneshader_passes::simplify_cfg::SimplifyCfg;
use oneshader_passes::sroa::Sroa;

fn generate(n: usize) -> String {
    let mut s = String::new();
    s.push_str(
        "func @helper(%x: i32) -> i32 {\nbb0:\n  %c = lt %x, i32 0 : bool\n  if_else %c, bb1, bb2, merge bb2\nbb1:\n  return i32 0\nbb2:\n  %y = add %x, i32 1 : i32\n  return %y\n}\n",
    );
    s.push_str("func @big(%a: i32, %b: i32) -> i32 {\nbb0:\n");
    for k in 0..n {
        s.push_str(&format!("  %v_{k} = var : ptr<function, i32>\n"));
    }
    s.push_str("  %acc = var : ptr<function, i32>\n  store %acc, i32 0\n  br bs_0\n");
    for k in 0..n {
        let next = k + 1;
        s.push_str(&format!(
            "bs_{k}:
  %c_{k} = lt %a, i32 {k} : bool
  if_else %c_{k}, bt_{k}, be_{k}, merge bm_{k}
bt_{k}:
  store %v_{k}, %a
  br bm_{k}
be_{k}:
  store %v_{k}, %b
  br bm_{k}
bm_{k}:
  loop bh_{k}(i32 0), break bx_{k}, continue bc_{k}
bh_{k}(%i_{k}: i32):
  %t_{k} = lt %i_{k}, i32 3 : bool
  cond_br %t_{k}, bb_{k}, bx_{k}
bb_{k}:
  %l_{k} = load %v_{k} : i32
  %l2_{k} = add %l_{k}, %i_{k} : i32
  store %v_{k}, %l2_{k}
  br bc_{k}
bc_{k}:
  %i2_{k} = add %i_{k}, i32 1 : i32
  br bh_{k}(%i2_{k})
bx_{k}:
  %r_{k} = load %v_{k} : i32
  %h_{k} = call @helper(%r_{k}) : i32
  %old_{k} = load %acc : i32
  %new_{k} = add %old_{k}, %h_{k} : i32
  store %acc, %new_{k}
  switch %a, merge bw_{k}, default bw_{k}, [i32 1: bd_{k}]
bd_{k}:
  store %acc, i32 {k}
  br bw_{k}
bw_{k}:
  br bs_{next}
"
        ));
    }
    s.push_str(&format!(
        "bs_{n}:\n  %fin = load %acc : i32\n  return %fin\n}}\n"
    ));
    s
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![1000, 4000, 16000]
    } else {
        sizes
    };
    println!(
        "| segments | insts before | insts after | inline | sroa | mem2reg | simplify_cfg | CFG snapshot |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for n in sizes {
        let text = generate(n);
        let base = match oneshader_ir::parse::parse(&text) {
            Ok(m) => m,
            Err(d) => {
                eprintln!("generated module does not parse: {d:?}");
                return;
            }
        };
        let mut best = [Duration::MAX; 5];
        let mut after = 0;
        for _ in 0..3 {
            let mut m: Module = base.clone();
            let mut passes: [Box<dyn Pass>; 4] = [
                Box::new(Inline::with_options(InlineOptions {
                    max_callee_insts: 1000,
                    max_caller_insts: usize::MAX,
                    ..InlineOptions::default()
                })),
                Box::new(Sroa),
                Box::new(Mem2Reg),
                Box::new(SimplifyCfg),
            ];
            for (i, p) in passes.iter_mut().enumerate() {
                let t = Instant::now();
                if let Err(e) = p.run(&mut m) {
                    eprintln!("{e}");
                    return;
                }
                best[i] = best[i].min(t.elapsed());
            }
            after = m.len();
            if let Some(f) = m.func_by_name("big") {
                let t = Instant::now();
                let cfg = oneshader_ir::cfg::Cfg::new(&m, f);
                let df = cfg.dominance_frontiers();
                best[4] = best[4].min(t.elapsed());
                std::hint::black_box(df);
            }
        }
        println!(
            "| {n} | {} | {after} | {:.1} ms | {:.1} ms | {:.1} ms | {:.1} ms | {:.1} ms |",
            base.len(),
            best[0].as_secs_f64() * 1e3,
            best[1].as_secs_f64() * 1e3,
            best[2].as_secs_f64() * 1e3,
            best[3].as_secs_f64() * 1e3,
            best[4].as_secs_f64() * 1e3,
        );
    }
}
