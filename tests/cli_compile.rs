//! `oneshader compile` end to end: dxc's spellings, the three targets, diagnostics and exit
//! codes. SPIR-V outputs go through `spirv-val`.

use std::path::PathBuf;
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_oneshader"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("oneshader-cli-compile-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn temp_file(name: &str, text: &str) -> PathBuf {
    let p = dir().join(name);
    std::fs::write(&p, text).expect("write");
    p
}

/// Both validators (test-tools), or a failure naming `cargo xtask setup` when one is missing.
fn spirv_val(path: &str, env: &str) {
    if let Err(e) =
        oneshader_test_tools::spirv_val_file(std::path::Path::new(path), &["--target-env", env])
    {
        panic!("{e}");
    }
}

const PIXEL: &str = "
#ifndef SCALE
#define SCALE 1.0
#endif
Texture2D<float4> tex : register(t0);
SamplerState samp : register(s0);
float4 PSMain(float2 uv : TEXCOORD0) : SV_Target { return tex.Sample(samp, uv) * SCALE; }
";

#[test]
fn dxc_style_command_lines_produce_valid_spirv() {
    let src = temp_file("ps.hlsl", PIXEL);
    let src = src.to_str().expect("utf-8");
    let out = dir().join("ps.spv");
    let out = out.to_str().expect("utf-8");
    let o = run(&[
        "compile",
        src,
        "-T",
        "ps_6_0",
        "-E",
        "PSMain",
        "-spirv",
        "-fcgl",
        "-HV",
        "2021",
        "-DSCALE=2.0",
        "-O3",
        "-fspv-target-env=vulkan1.1",
        "-Fo",
        out,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let words = std::fs::read(out).expect("output");
    assert_eq!(&words[..4], &[0x03, 0x02, 0x23, 0x07], "SPIR-V magic");
    spirv_val(out, "vulkan1.1");
    // The same with our own spellings and -O0.
    let o = run(&[
        "compile",
        src,
        "-T",
        "ps_6_0",
        "-E",
        "PSMain",
        "-O0",
        "--target-env",
        "vulkan1.0",
        "-o",
        out,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    spirv_val(out, "vulkan1.0");
}

#[test]
fn ir_and_osir_targets() {
    let src = temp_file("ps2.hlsl", PIXEL);
    let src = src.to_str().expect("utf-8");
    let o = run(&[
        "compile", src, "-T", "ps_6_0", "-E", "PSMain", "--target", "ir", "-O0",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("func @PSMain_body("), "{text}");
    assert!(
        text.contains("[entry_point(fragment, \"PSMain\")]"),
        "{text}"
    );
    // The printed module parses back and verifies.
    let ir = temp_file("ps2.ir", &text);
    let v = run(&["verify", ir.to_str().expect("utf-8")]);
    assert!(v.status.success(), "{}", stderr(&v));
    let osir = dir().join("ps2.osir");
    let osir = osir.to_str().expect("utf-8");
    let o = run(&[
        "compile",
        src,
        "-T",
        "ps_6_0",
        "-E",
        "PSMain",
        "--target=osir",
        "-o",
        osir,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let d = run(&["dis", osir]);
    assert!(d.status.success(), "{}", stderr(&d));
    assert!(String::from_utf8_lossy(&d.stdout).contains("entry_point(fragment"));
}

#[test]
fn errors_and_exit_codes() {
    let bad = temp_file(
        "bad.hlsl",
        "float4 main() : SV_Target { return missing; }\n",
    );
    let bad = bad.to_str().expect("utf-8");
    let o = run(&["compile", bad, "-T", "ps_6_0", "-o", "/dev/null"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("bad.hlsl:1:36: error[OSH1001]: undefined name `missing`"),
        "{e}"
    );
    assert!(e.contains("^^^^^^^"), "{e}");
    let o = run(&["compile", bad, "-T", "ms_6_4", "-o", "/dev/null"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("error[OSH1021]: mesh shaders need shader model 6.5"),
        "{}",
        stderr(&o)
    );
    // Usage errors exit with 2.
    let o = run(&["compile", bad]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("error[OSC0050]: `-T PROFILE` is required"),
        "{}",
        stderr(&o)
    );
    let o = run(&["compile", bad, "-T", "ps_6_0", "--bogus"]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["compile", bad, "-T", "ps_6_0", "--target-env", "vulkan9"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("OSC0055"), "{}", stderr(&o));
}

/// More of dxc's options: `-denorm` (execution modes), `-Oconfig=` (accepted), `-HV 202x`,
/// slash spellings (`/Zpr`), `-no-warnings`, the binding options, `--spec-const`,
/// `-fspv-preserve-bindings`; and `[[vk::builtin("DeviceIndex")]]`.
#[test]
fn more_dxc_options() {
    let src = temp_file(
        "opts.hlsl",
        r#"
float4x4 m;
Texture2D unused : register(t3);
[[vk::constant_id(1)]] const float k = 1.0;
float4 main([[vk::builtin("DeviceIndex")]] int dev : A, float4 p : POS) : SV_Target {
    int wide = 1.5;   // a truncation warning
    return mul(p, m) * k + dev + wide;
}
"#,
    );
    let src = src.to_str().expect("utf-8");
    let out = dir().join("opts.spv");
    let out = out.to_str().expect("utf-8");
    let o = run(&[
        "compile",
        src,
        "-T",
        "ps_6_0",
        "-E",
        "main",
        "/Zpr",
        "-HV",
        "202x",
        "-denorm",
        "ftz",
        "-Oconfig=--ssa-rewrite,--if-conversion",
        "-no-warnings",
        "-auto-binding-space",
        "3",
        "-fvk-bind-globals",
        "4",
        "5",
        "-fspv-preserve-bindings",
        "--spec-const",
        "k=2.5",
        "--target-env",
        "vulkan1.2",
        "-o",
        out,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
    spirv_val(out, "vulkan1.2");
    let words: Vec<u32> = std::fs::read(out)
        .expect("output")
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let text = oneshader::backends::spirv::disassemble(&words).expect("disassembles");
    for want in [
        "DenormFlushToZero",
        "BuiltIn DeviceIndex",
        "Capability DeviceGroup",
        // -Zpr: the matrix is row-major, which SPIR-V spells ColMajor.
        "ColMajor",
    ] {
        assert!(text.contains(want), "no {want}:\n{text}");
    }
    assert!(
        !text.contains("OpSpecConstant"),
        "k was overridden:\n{text}"
    );
    // `unused` kept by -fspv-preserve-bindings, in set 3; `$Globals` at set 5, binding 4.
    assert!(text.contains("DescriptorSet 3"), "{text}");
    assert!(text.contains("DescriptorSet 5"), "{text}");
    let o = run(&[
        "compile",
        src,
        "-T",
        "ps_6_0",
        "-denorm",
        "sometimes",
        "-o",
        out,
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("`-denorm` takes preserve, ftz or any"),
        "{}",
        stderr(&o)
    );
}
