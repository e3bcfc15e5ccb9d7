//! `oneshader emit` end to end: every example (generics included, thanks to the legalization
//! the command runs first) becomes SPIR-V that spirv-val accepts; `spirv-asm` prints the
//! disassembly; bad environments and unavailable targets are usage errors with codes.

use std::path::PathBuf;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_oneshader"))
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_example_emits_valid_spirv() {
    let dir = std::env::temp_dir().join(format!("oneshader-emit-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("examples/ir"))
        .expect("examples")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ir"))
        .collect();
    files.sort();
    assert!(files.len() >= 14);
    for f in files {
        let text = std::fs::read_to_string(&f).expect("readable");
        let shader = text.contains("entry_point(");
        let (env, val_env) = if shader {
            ("vulkan1.2", "vulkan1.2")
        } else {
            ("universal1.5", "spv1.5")
        };
        let out = dir.join(f.with_extension("spv").file_name().expect("name"));
        let run = bin()
            .arg("emit")
            .arg(&f)
            .args(["--target", "spirv", "--target-env", env, "-o"])
            .arg(&out)
            .output()
            .expect("the CLI runs");
        assert!(
            run.status.success(),
            "{}: {}",
            f.display(),
            String::from_utf8_lossy(&run.stderr)
        );
        if let Err(e) = oneshader_test_tools::spirv_val_file(&out, &["--target-env", val_env]) {
            panic!("{}: {e}", f.display());
        }
    }
}

#[test]
fn spirv_asm_and_errors() {
    let f = root().join("examples/ir/compute.ir");
    let out = bin()
        .arg("emit")
        .arg(&f)
        .args(["--target", "spirv-asm", "--target-env", "vulkan1.0"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("; Version: 1.0"), "{text}");
    assert!(text.contains("OpEntryPoint GLCompute"), "{text}");
    let out = bin()
        .arg("emit")
        .arg(&f)
        .args(["--target", "spirv", "--target-env", "vulkan9"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("OSC0030"));
    // MSL is here: text clang compiles against the stand-in <metal_stdlib>.
    let out = bin()
        .arg("emit")
        .arg(&f)
        .args(["--target", "msl"])
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("MSL is text");
    oneshader_test_tools::msl_clang_check(&text).unwrap_or_else(|e| panic!("{e}"));
    // A binding map that cannot be read is OSC0031.
    let out = bin()
        .arg("emit")
        .arg(&f)
        .args([
            "--target",
            "msl",
            "--msl-binding-map",
            "/nonexistent/map.json",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("OSC0031"));
    // WGSL is here: the text naga validates.
    let out = bin()
        .arg("emit")
        .arg(&f)
        .args(["--target", "wgsl"])
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("WGSL is text");
    oneshader_test_tools::naga_validate(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
}
