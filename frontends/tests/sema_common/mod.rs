//! Helpers of the semantic-analysis and lowering tests: compile HLSL text to IR, run the
//! pipelines and the SPIR-V backend, validate with `spirv-val`.
#![allow(dead_code)]

use std::path::Path;

use oneshader_backends::spirv::{self, Options, TargetEnv};
use oneshader_frontends::hlsl::{self, CompileOptions, CompileResult, MemoryLoader};
use oneshader_ir::Module;
use oneshader_ir::diag::SourceMap;
use oneshader_passes::pipeline::{OptLevel, optimize};
pub use oneshader_test_tools::spirv_val;

/// Compiles `src` (as `main.hlsl`) with a profile and entry point; returns the result and the
/// rendered diagnostics.
pub fn compile_with(src: &str, opts: &CompileOptions) -> (CompileResult, String) {
    let loader = MemoryLoader::new();
    let mut sources = SourceMap::new();
    let r = hlsl::compile_text(Path::new("main.hlsl"), src, opts, &loader, &mut sources);
    let rendered = sources.render_all(&r.diagnostics);
    (r, rendered)
}

/// Options for `profile` and `entry`.
pub fn opts(profile: &str, entry: &str) -> CompileOptions {
    CompileOptions {
        entry: entry.into(),
        profile: profile.into(),
        ..CompileOptions::default()
    }
}

/// Compiles and panics with the diagnostics when there is an error; the module verifies.
pub fn module(src: &str, profile: &str) -> Module {
    let (r, rendered) = compile_with(src, &opts(profile, "main"));
    let Some(m) = r.module else {
        panic!("compilation failed:\n{rendered}\n--- source ---\n{src}");
    };
    let v = oneshader_ir::verify::verify(&m);
    assert!(
        v.is_empty(),
        "the lowered module does not verify: {v:?}\n{}",
        oneshader_ir::print::print_module(&m)
    );
    m
}

/// The unoptimized IR text of a shader.
pub fn ir_text(src: &str, profile: &str) -> String {
    oneshader_ir::print::print_module(&module(src, profile))
}

/// The diagnostics of a shader that must fail.
pub fn errors(src: &str, profile: &str) -> String {
    let (r, rendered) = compile_with(src, &opts(profile, "main"));
    assert!(r.module.is_none(), "expected errors, compiled fine:\n{src}");
    assert!(r.has_errors());
    rendered
}

/// Runs the pipeline of `level` (legalization included), verifying the result.
pub fn pipeline(m: &mut Module, level: OptLevel) {
    let r = optimize(level).run(m);
    if let Err(e) = r {
        panic!(
            "pipeline failed: {e}\n{}",
            oneshader_ir::print::print_module(m)
        );
    }
    let v = oneshader_ir::verify::verify(m);
    assert!(v.is_empty(), "pipeline output does not verify: {v:?}");
}

/// Legalizes `m` for SPIR-V and emits it.
pub fn emit(m: &mut Module, opts: &Options) -> Result<Vec<u32>, oneshader_ir::Errors> {
    let legal = oneshader_backends::prepare(m, oneshader_backends::Target::Spirv)?;
    spirv::emit(&legal, opts)
}

/// The whole pipeline at both optimization levels, each output checked by `spirv-val`.
/// Returns the SPIR-V words of the `-O` build.
pub fn spirv_valid_env(src: &str, profile: &str, env: TargetEnv) -> Vec<u32> {
    let mut last = Vec::new();
    for level in [OptLevel::O0, OptLevel::O] {
        let mut m = module(src, profile);
        pipeline(&mut m, level);
        let words = match emit(&mut m, &Options::for_env(env)) {
            Ok(w) => w,
            Err(d) => panic!(
                "the backend refused the module ({level:?}): {d:?}\n{}\n--- source ---\n{src}",
                oneshader_ir::print::print_module(&m)
            ),
        };
        if let Err(e) = spirv_val(&words, env) {
            panic!("spirv-val rejected the {level:?} output:\n{e}\n--- source ---\n{src}");
        }
        last = words;
    }
    last
}

/// [`spirv_valid_env`] for vulkan1.2.
pub fn spirv_valid(src: &str, profile: &str) -> Vec<u32> {
    spirv_valid_env(src, profile, TargetEnv::Vulkan1_2)
}
