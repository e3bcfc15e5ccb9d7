//! Test support shared by the workspace's test suites: running the system's SPIR-V validator on
//! the words the backend emits. A missing tool fails the test with a message naming
//! `cargo xtask setup` (tests never skip).

use std::io::Write;
use std::process::{Command, Stdio};

use oneshader_backends::spirv::{self, TargetEnv};

/// Panics with a message naming `cargo xtask setup` unless `program` is on the `PATH`.
pub fn require_tool(program: &str) {
    let found = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
        .unwrap_or(false);
    assert!(
        found,
        "`{program}` is not installed: run `cargo xtask setup` (it installs spirv-tools, glslang \
         and lavapipe)"
    );
}

/// Runs `spirv-val --target-env ENV` on the words (with `--relax-block-layout` for Vulkan 1.0,
/// as DXC's default relaxed layout needs VK_KHR_relaxed_block_layout there); `Err` with its
/// output and the disassembly when it rejects them.
pub fn spirv_val(words: &[u32], env: TargetEnv) -> Result<(), String> {
    let name = env.spirv_val_name();
    let mut args: Vec<&str> = vec!["--target-env", &name];
    if env == TargetEnv::Vulkan1_0 {
        args.push("--relax-block-layout");
    }
    spirv_val_args(words, &args)
}

/// Runs `spirv-val ARGS -` on the words; `Err` with its output and the disassembly when it
/// rejects them.
pub fn spirv_val_args(words: &[u32], args: &[&str]) -> Result<(), String> {
    require_tool("spirv-val");
    // The tool was found above; failing to start or talk to it is an environment error the
    // test should report loudly.
    let mut child = Command::new("spirv-val")
        .args(args)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spirv-val starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(&spirv::to_bytes(words))
        .expect("spirv-val reads its input");
    let out = child.wait_with_output().expect("spirv-val runs");
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            spirv::disassemble(words).unwrap_or_default()
        ))
    }
}
