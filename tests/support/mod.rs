//! Helpers shared by the root package's integration tests: compiling through the facade,
//! `spirv-val`, the workspace root, the line of a test's HLSL statement.

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

/// 1-based number of the only line of `text` containing `needle` (a test's way to name a
/// statement of the HLSL it wrote).
pub fn line_of(text: &str, needle: &str) -> u32 {
    let lines: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .map(|(k, _)| k + 1)
        .collect();
    assert_eq!(lines.len(), 1, "`{needle}` is on one line");
    lines[0] as u32
}

/// Asserts that spirv-val accepts the words.
pub fn assert_valid(words: &[u32], env: TargetEnv, what: &str) {
    if let Err(e) = spirv_val(words, env) {
        panic!("spirv-val --target-env {env} rejects {what}:\n{e}");
    }
}

/// `spirv-opt -O --target-env=vulkan1.2` of `words` (failing with `cargo xtask setup` when
/// spirv-opt is missing, and with spirv-opt's message when it fails).
pub fn spirv_opt_o(words: &[u32], what: &str) -> Vec<u32> {
    oneshader_test_tools::require_tool("spirv-opt");
    spirv_opt_o_with(std::path::Path::new("spirv-opt"), words, what)
}

/// [`spirv_opt_o`] with the spirv-opt at `tool`.
pub fn spirv_opt_o_with(tool: &std::path::Path, words: &[u32], what: &str) -> Vec<u32> {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (input, output) = (dir.path().join("in.spv"), dir.path().join("out.spv"));
    std::fs::write(&input, oneshader::backends::spirv::to_bytes(words)).expect("writes");
    let run = std::process::Command::new(tool)
        .args(["-O", "--target-env=vulkan1.2"])
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output()
        .expect("spirv-opt runs");
    assert!(
        run.status.success(),
        "{what}: {} -O fails ({:?}): {}",
        tool.display(),
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::read(&output)
        .expect("written")
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// (file, profile, entry) of every documented command line of the examples.
pub fn documented_entry_points() -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let dir = root().join("examples/hlsl");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("examples/hlsl exists")
        .map(|e| e.expect("readable").path())
        .filter(|p| p.extension().is_some_and(|e| e == "hlsl"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "the examples are there: {files:?}");
    for path in files {
        let name = path
            .file_name()
            .expect("a file")
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(&path).expect("readable");
        let mut found = 0;
        for line in text.lines() {
            let Some(cmd) = line
                .trim_start_matches('/')
                .trim()
                .strip_prefix("oneshader compile ")
            else {
                continue;
            };
            let words: Vec<&str> = cmd.split_whitespace().collect();
            assert_eq!(words[0], format!("examples/hlsl/{name}"), "{name}: {line}");
            let value = |flag: &str| {
                words
                    .iter()
                    .position(|w| *w == flag)
                    .and_then(|i| words.get(i + 1))
                    .unwrap_or_else(|| panic!("{name}: `{flag}` in {line}"))
                    .to_string()
            };
            out.push((name.clone(), value("-T"), value("-E")));
            found += 1;
        }
        assert!(found > 0, "{name} documents how to compile it");
    }
    out
}
