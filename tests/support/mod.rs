//! Helpers shared by the root package's integration tests: compiling through the facade,
//! `spirv-val`, the workspace root.

#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use oneshader::{CompileOptions, CompileOutput, Compiler, TargetEnv};

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

/// Runs `spirv-val --target-env ENV` on the words; `Err` with its output when it rejects
/// them. Panics naming `cargo xtask setup` when spirv-val is not installed.
pub fn spirv_val(words: &[u32], env: TargetEnv) -> Result<(), String> {
    let found = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|d| d.join("spirv-val").is_file()))
        .unwrap_or(false);
    assert!(
        found,
        "`spirv-val` is not installed: run `cargo xtask setup` (it installs spirv-tools)"
    );
    let mut cmd = Command::new("spirv-val");
    cmd.arg("--target-env").arg(env.spirv_val_name());
    if env == TargetEnv::Vulkan1_0 {
        // DXC's relaxed buffer layout needs VK_KHR_relaxed_block_layout on Vulkan 1.0.
        cmd.arg("--relax-block-layout");
    }
    let mut child = cmd
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spirv-val starts");
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(&bytes)
        .expect("spirv-val reads its input");
    let out = child.wait_with_output().expect("spirv-val runs");
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// Asserts that spirv-val accepts the words.
pub fn assert_valid(words: &[u32], env: TargetEnv, what: &str) {
    if let Err(e) = spirv_val(words, env) {
        panic!("spirv-val --target-env {env} rejects {what}:\n{e}");
    }
}
