//! Passes B's output through the SPIR-V backend and `spirv-val`: random structured programs
//! (a callee with `return`s nested in selections, loops and switches, called from a loop) are
//! inlined and optimized, emitted as SPIR-V and validated. The IR verifier leaves SPIR-V's
//! structured-exit rules to the backends; spirv-val checks them on what inlining, edge
//! splitting, mem2reg and CFG simplification produce (a bug in edge splitting was found this
//! way). Needs `spirv-val` (`cargo xtask setup` installs it).

#[path = "../passes/tests/support_b/program_gen.rs"]
mod program_gen;

use oneshader_backends::spirv::{self, Options, TargetEnv};
use oneshader_ir::Module;
use oneshader_ir::print::print_module;
use oneshader_passes::pipeline::{OptLevel, optimize, pass_by_name};
use program_gen::ProgramGen;

fn parse(text: &str) -> Module {
    oneshader_ir::parse::parse(text).unwrap_or_else(|d| panic!("{d:?}\n{text}"))
}

/// Emits `m` as a universal SPIR-V 1.5 library (no entry point) and validates it.
fn validate(m: &Module, what: &str) {
    let opts = Options::for_env(TargetEnv::Universal(5));
    let mut m = m.clone();
    let legal = oneshader_backends::prepare(&mut m, oneshader_backends::Target::Spirv)
        .unwrap_or_else(|d| panic!("{what}: legalization failed: {d:?}"));
    let words = spirv::emit(&legal, &opts).unwrap_or_else(|d| panic!("{what}: emit failed: {d:?}"));
    if let Err(e) = oneshader_test_tools::spirv_val_args(&words, &["--target-env", "spv1.5"]) {
        panic!("{what}: spirv-val rejects it:\n{e}\n{}", print_module(&m));
    }
}

#[test]
fn random_programs_validate_after_inlining_and_optimizing() {
    for seed in 0..96u64 {
        let text = ProgramGen::program(seed);
        validate(&parse(&text), &format!("seed {seed}, as written"));
        let mut inlined = parse(&text);
        pass_by_name("inline")
            .expect("inline is registered")
            .run(&mut inlined)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        validate(&inlined, &format!("seed {seed}, inlined"));
        let mut optimized = parse(&text);
        optimize(OptLevel::O)
            .run(&mut optimized)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        validate(&optimized, &format!("seed {seed}, -O"));
    }
    // The seed that found the edge-splitting bug, with the passes in the order that showed it.
    let mut m = parse(&ProgramGen::program(1536));
    for name in "inline,sroa,mem2reg,combine,cse,dce,simplify_cfg,sroa,mem2reg".split(',') {
        pass_by_name(name)
            .expect("registered")
            .run(&mut m)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    validate(&m, "seed 1536, two rounds");
}
