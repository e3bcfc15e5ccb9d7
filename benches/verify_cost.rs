//! What the backends' boundary costs on real shaders: every vertex, pixel and compute row of
//! the HLSL corpus (../shared/corpus/hlsl, or `ONESHADER_CORPUS`) that compiles is compiled in
//! process at `-O`, and the module the backend reads is checked again the way the boundary
//! does it (`Legal::new`: the verifier, the legality check for SPIR-V, the shared analyses),
//! and verified alone. Each figure is the median of five runs per file; the report gives the
//! median over files and the totals.
//!
//! By hand (not a criterion bench: one figure per corpus, not per function):
//! `cargo bench --bench verify_cost`. `ONESHADER_CORPUS_LIMIT=N` stops after N files.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use oneshader::backends::{Legal, Target};
use oneshader::{CompileOptions, Compiler, TargetEnv};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort_unstable();
    v[v.len() / 2]
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(f());
                t.elapsed()
            })
            .collect(),
    )
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let corpus = std::env::var_os("ONESHADER_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/hlsl"));
    let manifest = match std::fs::read_to_string(corpus.join("manifest.tsv")) {
        Ok(t) => t,
        Err(e) => {
            eprintln!(
                "verify_cost: cannot read {}: {e} (set ONESHADER_CORPUS to the corpus folder)",
                corpus.join("manifest.tsv").display()
            );
            std::process::exit(2);
        }
    };
    let limit: usize = std::env::var("ONESHADER_CORPUS_LIMIT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(usize::MAX);
    let compiler = Compiler::new();
    let (mut compile, mut legal, mut verify) = (Vec::new(), Vec::new(), Vec::new());
    for line in manifest.lines().skip(1) {
        if compile.len() >= limit {
            break;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let [path, stage, entry, profile, flags, ..] = cols[..] else {
            continue;
        };
        if !matches!(stage, "vertex" | "fragment" | "compute") || entry.is_empty() {
            continue;
        }
        let mut opts = CompileOptions::new(profile).entry(entry);
        opts.keep_final_ir = true;
        opts.include_dirs.push(corpus.join("dxc/include"));
        if let Some(env) = cols.get(8).and_then(|e| e.parse::<TargetEnv>().ok()) {
            opts.target_env = env;
        }
        for f in flags.split_whitespace() {
            if let Some(d) = f.strip_prefix("-D").filter(|d| !d.is_empty()) {
                let (name, value) = match d.split_once('=') {
                    Some((n, v)) => (n, Some(v)),
                    None => (d, None),
                };
                opts = opts.define(name, value);
            }
        }
        let file = corpus.join(path);
        let Ok(out) = compiler.compile_file(&file, &opts) else {
            continue;
        };
        let Some(m) = out.ir.final_module else {
            continue;
        };
        compile.push(time(5, || compiler.compile_file(&file, &opts).is_ok()));
        legal.push(time(5, || Legal::new(&m, Target::Spirv).is_ok()));
        verify.push(time(5, || oneshader::ir::verify::verify(&m).len()));
    }
    let n = compile.len();
    if n == 0 {
        eprintln!("verify_cost: no corpus shader compiled");
        std::process::exit(1);
    }
    let total = |v: &[Duration]| v.iter().map(|d| ms(*d)).sum::<f64>();
    println!("files: {n} (vertex, pixel and compute rows that compile at -O)");
    println!(
        "median per file: compile {:.3} ms, boundary check (Legal::new) {:.3} ms, verify alone {:.3} ms",
        ms(median(compile.clone())),
        ms(median(legal.clone())),
        ms(median(verify.clone()))
    );
    println!(
        "total: compile {:.1} ms, boundary check {:.1} ms ({:.1}% of compile), verify {:.1} ms",
        total(&compile),
        total(&legal),
        100.0 * total(&legal) / total(&compile),
        total(&verify)
    );
}
