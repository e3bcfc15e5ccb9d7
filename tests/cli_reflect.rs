//! `oneshader compile --reflect OUT.json` and dxc's single-dash spellings on `emit`
//! (rewritten in src/main.rs before clap parses).

use std::path::PathBuf;
use std::process::{Command, Output};

use oneshader::reflect::{Reflection, ResourceKind};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oneshader"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("oneshader-cli-reflect-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn reflect_writes_json_next_to_every_target() {
    let blur = root().join("examples/hlsl/blur.hlsl");
    let blur = blur.to_str().expect("utf-8");
    for target in ["spirv", "ir", "osir"] {
        let json = dir().join(format!("blur-{target}.json"));
        let out = dir().join(format!("blur.{target}"));
        let o = run(&[
            "compile",
            blur,
            "-T",
            "cs_6_0",
            "-E",
            "main",
            "--target",
            target,
            "--reflect",
            json.to_str().expect("utf-8"),
            "-o",
            out.to_str().expect("utf-8"),
        ]);
        assert!(o.status.success(), "{target}: {}", stderr(&o));
        let text = std::fs::read_to_string(&json).expect("reflection written");
        let r = Reflection::from_json(&text).expect("valid reflection JSON");
        let e = r.entry_point("main").expect("the entry point");
        assert_eq!(e.workgroup_size, Some([64, 1, 1]));
        let params = r.resource("BlurParams").expect("the constant buffer");
        assert_eq!(params.kind, ResourceKind::ConstantBuffer);
        assert!(std::fs::metadata(&out).expect("output written").len() > 0);
    }
    // The reflection is the same whatever the optimization level (it is built before -O).
    let a = dir().join("o0.json");
    let b = dir().join("o3.json");
    for (level, path) in [("-O0", &a), ("-O3", &b)] {
        let o = run(&[
            "compile",
            blur,
            "-T",
            "cs_6_0",
            level,
            "--reflect",
            path.to_str().expect("utf-8"),
            "-o",
            "/dev/null",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert_eq!(
        std::fs::read_to_string(a).expect("written"),
        std::fs::read_to_string(b).expect("written")
    );
    // An unwritable reflection path is OSC0051.
    let o = run(&[
        "compile",
        blur,
        "-T",
        "cs_6_0",
        "--reflect",
        "/nonexistent-dir/x.json",
        "-o",
        "/dev/null",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("error[OSC0051]"), "{}", stderr(&o));
}

#[test]
fn emit_takes_dxc_single_dash_spellings() {
    let ir = root().join("examples/ir/compute.ir");
    let out = dir().join("compute13.spv");
    let o = run(&[
        "emit",
        ir.to_str().expect("utf-8"),
        "--target",
        "spirv",
        "-fspv-target-env=vulkan1.3",
        "-fvk-use-gl-layout",
        "-Fo",
        out.to_str().expect("utf-8"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let bytes = std::fs::read(&out).expect("written");
    // Word 1 is the version: SPIR-V 1.6 for vulkan1.3.
    assert_eq!(&bytes[4..8], &[0x00, 0x06, 0x01, 0x00]);
    let o = run(&[
        "emit",
        ir.to_str().expect("utf-8"),
        "--target",
        "spirv",
        "-fspv-target-env=vulkan7",
        "-o",
        "/dev/null",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("OSC0030"), "{}", stderr(&o));
}
