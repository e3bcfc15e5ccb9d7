//! The target registry (`oneshader::target`): every way of asking for an output (the library,
//! `oneshader compile`, `oneshader emit`, `oneshader build`) gives the same bytes, and `-E` /
//! `--entry` means the same for every target.

use std::path::Path;
use std::process::Command;

use oneshader::{CompileOptions, Compiler, OutputKind};
use oneshader_test_tools::{GlslStage, glslang_and_validate, naga_validate, spirv_val};

/// A library of two compute entry points writing different values.
const LIB: &str = r#"
RWStructuredBuffer<uint> o : register(u0);
[shader("compute")] [numthreads(1,1,1)] void first(uint3 id : SV_DispatchThreadID) { o[id.x] = 11; }
[shader("compute")] [numthreads(2,1,1)] void second(uint3 id : SV_DispatchThreadID) { o[id.x] = 22; }
"#;

/// A compute shader of one entry point.
const CS: &str = r#"
RWStructuredBuffer<uint> o : register(u0);
[numthreads(4,1,1)] void main(uint3 id : SV_DispatchThreadID) { o[id.x] = id.x * 3 + 1; }
"#;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_oneshader"))
}

fn run_ok(cmd: &mut Command) -> Vec<u8> {
    let out = cmd.output().expect("oneshader runs");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn library_output(kind: OutputKind, entry: &str) -> Result<Vec<u8>, String> {
    let mut opts = CompileOptions::new("lib_6_3").entry(entry);
    kind.configure(&mut opts);
    let out = Compiler::new()
        .compile_source("lib.hlsl", LIB, &opts)
        .map_err(|e| e.diagnostics.render())?;
    kind.bytes(&out).map_err(|e| e.to_string())
}

#[test]
fn e_chooses_the_entry_point_of_a_library_for_every_text_target() {
    for kind in [OutputKind::Glsl, OutputKind::Wgsl, OutputKind::Msl] {
        for (entry, value, other) in [("first", "11", "22"), ("second", "22", "11")] {
            let text = String::from_utf8(
                library_output(kind, entry).unwrap_or_else(|e| panic!("{kind} -E {entry}: {e}")),
            )
            .expect("text");
            // The output holds the chosen entry point's store and not the other's.
            assert!(
                text.contains(value) && !text.contains(other),
                "{kind} -E {entry}:\n{text}"
            );
            match kind {
                OutputKind::Glsl => {
                    glslang_and_validate(&text, GlslStage::Compute)
                        .unwrap_or_else(|e| panic!("{kind} -E {entry}: {e}\n{text}"));
                }
                OutputKind::Wgsl => {
                    naga_validate(&text)
                        .unwrap_or_else(|e| panic!("{kind} -E {entry}: {e}\n{text}"));
                    assert!(text.contains(&format!("fn {entry}(")), "{text}");
                }
                _ => assert!(text.contains(&format!("kernel void {entry}(")), "{text}"),
            }
        }
        // A name the library does not have is refused, naming it.
        let e = library_output(kind, "third").expect_err("no entry point `third`");
        assert!(
            e.contains("third") && e.contains("error[OSB0"),
            "{kind}: {e}"
        );
    }
    // SPIR-V holds both, whatever `-E` says, as DXC's library output does.
    let spirv = library_output(OutputKind::SpirvAsm, "first").expect("SPIR-V");
    let text = String::from_utf8(spirv).expect("text");
    assert_eq!(text.matches("OpEntryPoint GLCompute").count(), 2, "{text}");
}

#[test]
fn the_command_line_and_the_library_write_the_same_bytes_for_every_output() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let src = dir.path().join("cs.hlsl");
    std::fs::write(&src, CS).expect("written");
    for kind in OutputKind::ALL {
        let mut opts = CompileOptions::new("cs_6_0");
        kind.configure(&mut opts);
        let out = Compiler::new()
            .compile_file(&src, &opts)
            .unwrap_or_else(|e| panic!("{kind}: {}", e.diagnostics.render()));
        let lib = kind.bytes(&out).unwrap_or_else(|e| panic!("{kind}: {e}"));
        let file = dir.path().join(format!("out.{}", kind.extension()));
        run_ok(
            bin()
                .arg("compile")
                .arg(&src)
                .args(["-T", "cs_6_0", "--target", kind.name(), "-o"])
                .arg(&file),
        );
        let cli = std::fs::read(&file).expect("the output");
        if kind == OutputKind::Osir {
            // The source map names the file relative to the working folder on the command
            // line: compare the modules the two files hold.
            let a = oneshader::serialize::load(&cli, &Default::default()).expect("loads");
            let b = oneshader::serialize::load(&lib, &Default::default()).expect("loads");
            assert_eq!(
                oneshader::ir::print::print_module(&a.module),
                oneshader::ir::print::print_module(&b.module)
            );
        } else {
            assert_eq!(cli, lib, "{kind}: CLI and library differ");
        }
        if kind == OutputKind::Spirv {
            let words: Vec<u32> = cli
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            spirv_val(&words, oneshader::TargetEnv::Vulkan1_2).expect("valid");
        }
    }
}

#[test]
fn build_writes_what_compile_writes_for_every_output() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(dir.path().join("cs.hlsl"), CS).expect("written");
    let names: Vec<String> = OutputKind::ALL
        .iter()
        .map(|k| format!("\"{}\"", k.name()))
        .collect();
    let manifest = format!(
        "out_dir = \"out\"\n[defaults]\ntargets = [{}]\noutput = \"{{shader}}.{{ext}}\"\n\n[[shader]]\nfile = \"cs.hlsl\"\nprofile = \"cs_6_0\"\n",
        names.join(", ")
    );
    std::fs::write(dir.path().join("oneshader.toml"), manifest).expect("written");
    run_ok(bin().arg("build").current_dir(dir.path()));
    for kind in OutputKind::ALL {
        // `osir` carries file names; the module is compared above.
        if kind == OutputKind::Osir {
            continue;
        }
        let built = std::fs::read(dir.path().join(format!("out/cs.{}", kind.extension())))
            .unwrap_or_else(|e| panic!("{kind}: {e}"));
        let compiled = run_ok(bin().current_dir(dir.path()).args([
            "compile",
            "cs.hlsl",
            "-T",
            "cs_6_0",
            "--target",
            kind.name(),
        ]));
        assert_eq!(built, compiled, "{kind}: build and compile differ");
    }
}

#[test]
fn emit_entry_means_the_same_for_every_target() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let ir = dir.path().join("lib.ir");
    let text = run_ok(
        bin()
            .arg("compile")
            .arg("-")
            .args(["-T", "lib_6_3", "--target", "ir"])
            .stdin(std::fs::File::open(write(dir.path(), "lib.hlsl", LIB)).expect("opens")),
    );
    std::fs::write(&ir, text).expect("written");
    for target in ["glsl", "wgsl", "msl"] {
        let out = run_ok(
            bin()
                .arg("emit")
                .arg(&ir)
                .args(["--target", target, "--entry", "second"]),
        );
        let out = String::from_utf8(out).expect("text");
        assert!(
            out.contains("22") && !out.contains("11"),
            "{target}:\n{out}"
        );
        // Without a choice, a module of two entry points is refused for a text target.
        let o = bin()
            .arg("emit")
            .arg(&ir)
            .args(["--target", target])
            .output()
            .expect("runs");
        assert!(!o.status.success(), "{target}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("choose one"), "{target}: {err}");
    }
    // SPIR-V holds every entry point: a choice is refused, not ignored.
    for target in ["spirv", "spirv-asm"] {
        let o = bin()
            .arg("emit")
            .arg(&ir)
            .args(["--target", target, "--entry", "second", "-o"])
            .arg(dir.path().join("x"))
            .output()
            .expect("runs");
        assert_eq!(o.status.code(), Some(1), "{target}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("error[OSC0035]") && err.contains("`second`"),
            "{target}: {err}"
        );
        assert!(!dir.path().join("x").exists(), "{target}: wrote an output");
    }
    // The module's only entry point may be named for SPIR-V too.
    let cs_ir = dir.path().join("cs.ir");
    let text = run_ok(
        bin()
            .arg("compile")
            .arg(write(dir.path(), "cs.hlsl", CS))
            .args(["-T", "cs_6_0", "--target", "ir"]),
    );
    std::fs::write(&cs_ir, text).expect("written");
    let asm =
        run_ok(
            bin()
                .arg("emit")
                .arg(&cs_ir)
                .args(["--target", "spirv-asm", "--entry", "main"]),
        );
    assert!(String::from_utf8_lossy(&asm).contains("OpEntryPoint GLCompute"));
    // Two buffer layouts at once are a usage error, not "the last one wins".
    let o = bin()
        .arg("emit")
        .arg(&cs_ir)
        .args([
            "--target",
            "spirv",
            "--fvk-use-gl-layout",
            "--fvk-use-scalar-layout",
        ])
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot be used with"));
    // `emit` takes only the outputs a backend makes from IR.
    let o = bin()
        .arg("emit")
        .arg(&cs_ir)
        .args(["--target", "reflection"])
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not an output of emit"));
}

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("written");
    p
}

#[test]
fn build_reports_a_backend_warning_as_compile_does_and_replays_it_from_the_cache() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let vs = "struct VO { float4 pos : SV_Position; [[vk::builtin(\"PointSize\")]] float size : PSIZE; };\nVO main(float4 p : POSITION) { VO o; o.pos = p; o.size = 1.0; return o; }\n";
    std::fs::write(dir.path().join("vs.hlsl"), vs).expect("written");
    std::fs::write(
        dir.path().join("oneshader.toml"),
        "out_dir = \"out\"\n[[shader]]\nfile = \"vs.hlsl\"\nprofile = \"vs_6_0\"\ntargets = [\"wgsl\"]\n",
    )
    .expect("written");
    let compile = bin()
        .current_dir(dir.path())
        .args(["compile", "vs.hlsl", "-T", "vs_6_0", "--target", "wgsl"])
        .output()
        .expect("runs");
    assert!(compile.status.success());
    assert!(String::from_utf8_lossy(&compile.stderr).contains("warning[OSB0213]"));
    for run in ["cold", "from the cache"] {
        let o = bin()
            .arg("build")
            .current_dir(dir.path())
            .output()
            .expect("runs");
        assert!(o.status.success(), "{run}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("warning[OSB0213]"), "{run}: {err}");
    }
}
