//! Helpers shared by the root package's integration tests: compiling through the facade,
//! `spirv-val`, the workspace root.

#![allow(dead_code)]

use std::path::PathBuf;

use oneshader::{CompileOptions, CompileOutput, Compiler, TargetEnv};
pub use oneshader_test_tools::spirv_val;

/// The workspace root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Compiles the file at `path` (relative to the root), panicking with the rendered
/// diagnostics.
pub fn compile_file(path: &str, opts: &CompileOptions) -> CompileOutput {
    match Compiler::new().compile_file(root().join(path), opts) {
        Ok(out) => out,
        Err(e) => panic!("{e}\n{}", e.diagnostics.render()),
    }
}

/// Asserts that spirv-val accepts the words.
pub fn assert_valid(words: &[u32], env: TargetEnv, what: &str) {
    if let Err(e) = spirv_val(words, env) {
        panic!("spirv-val --target-env {env} rejects {what}:\n{e}");
    }
}
