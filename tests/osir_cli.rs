//! The `.osir` commands end to end: `as`, `dis`, `link`, and `.osir` input to `verify`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_oneshader"))
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("oneshader-osir-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn run_ok(cmd: &mut Command) -> String {
    let out = cmd.output().expect("the CLI runs");
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn assemble(src: &Path, name: &str) -> PathBuf {
    let out = tmp(name);
    run_ok(bin().arg("as").arg(src).arg("-o").arg(&out));
    out
}

#[test]
fn dis_of_as_is_fmt_for_every_example() {
    let mut n = 0;
    for dir in ["examples/ir", "examples/link"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "ir"))
            .collect();
        files.sort();
        for f in files {
            let name = format!("{}.osir", f.file_stem().unwrap().to_string_lossy());
            let osir = assemble(&f, &name);
            let fmt = run_ok(bin().arg("fmt").arg(&f));
            let dis = run_ok(bin().arg("dis").arg(&osir));
            assert_eq!(dis, fmt, "{}", f.display());
            // Every command that reads a module takes .osir: verify and fmt here.
            run_ok(bin().arg("verify").arg(&osir));
            assert_eq!(run_ok(bin().arg("fmt").arg(&osir)), fmt);
            n += 1;
        }
    }
    assert!(n >= 17, "{n} examples");
}

#[test]
fn link_the_examples() {
    let ex = root().join("examples/link");
    let lib = assemble(&ex.join("lib.ir"), "lib.osir");
    let a = assemble(&ex.join("shader_a.ir"), "shader_a.osir");
    let b = assemble(&ex.join("shader_b.ir"), "shader_b.osir");
    let out = tmp("program.osir");
    run_ok(bin().arg("link").args([&lib, &a, &b]).arg("-o").arg(&out));
    let text = run_ok(bin().arg("dis").arg(&out));
    assert!(text.contains("entry_point(compute, \"main\")"), "{text}");
    assert!(text.contains("entry_point(compute, \"blend\")"), "{text}");
    assert!(!text.contains("import("), "{text}");
    assert!(!text.contains("unused_helper"), "{text}");
    run_ok(bin().arg("verify").arg(&out));
    // A library link keeps the exports.
    let libout = tmp("lib-linked.osir");
    run_ok(
        bin()
            .arg("link")
            .arg(&lib)
            .arg("-o")
            .arg(&libout)
            .arg("--keep-exports"),
    );
    let text = run_ok(bin().arg("dis").arg(&libout));
    assert!(
        text.contains("export(\"choose<type>(bool,$0,$0)->$0\")"),
        "{text}"
    );
}

#[test]
fn link_diagnostics_and_bad_files_fail_with_codes() {
    let ex = root().join("examples/link");
    let a = assemble(&ex.join("shader_a.ir"), "alone.osir");
    let out = bin()
        .arg("link")
        .arg(&a)
        .arg("-o")
        .arg(tmp("never.osir"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error[OSK0001]"), "{err}");
    assert!(!tmp("never.osir").exists());
    // A corrupted file.
    let mut bytes = std::fs::read(&a).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    let bad = tmp("bad.osir");
    std::fs::write(&bad, bytes).unwrap();
    let out = bin().arg("dis").arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("error[OSL0004]") && err.contains("bad.osir"),
        "{err}"
    );
    // A module that does not verify is not assembled.
    let broken = tmp("broken.ir");
    std::fs::write(&broken, "func @f() -> i32 {\nbb0:\n  return\n}\n").unwrap();
    let out = bin()
        .arg("as")
        .arg(&broken)
        .arg("-o")
        .arg(tmp("broken.osir"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error[OSC0040]"));
    assert!(!tmp("broken.osir").exists());
}

#[test]
fn the_linked_examples_emit_valid_spirv() {
    let ex = root().join("examples/link");
    let lib = assemble(&ex.join("lib.ir"), "spv-lib.osir");
    let a = assemble(&ex.join("shader_a.ir"), "spv-a.osir");
    let b = assemble(&ex.join("shader_b.ir"), "spv-b.osir");
    let program = tmp("spv-program.osir");
    run_ok(
        bin()
            .arg("link")
            .args([&lib, &a, &b])
            .arg("-o")
            .arg(&program),
    );
    // `emit` reads the .osir module directly.
    let spv = tmp("program.spv");
    run_ok(
        bin()
            .arg("emit")
            .arg(&program)
            .args(["--target", "spirv", "-o"])
            .arg(&spv),
    );
    if let Err(e) = oneshader_test_tools::spirv_val_file(&spv, &["--target-env", "vulkan1.2"]) {
        panic!("spirv-val rejects the linked program:\n{e}");
    }
    let asm = run_ok(
        bin()
            .arg("emit")
            .arg(&program)
            .args(["--target", "spirv-asm"]),
    );
    assert!(asm.contains("OpEntryPoint GLCompute"), "{asm}");
    assert_eq!(asm.matches("OpEntryPoint").count(), 2, "{asm}");
}

#[test]
fn opt_and_interp_read_osir() {
    let lib = assemble(&root().join("examples/link/lib.ir"), "opt-lib.osir");
    let out = run_ok(
        bin()
            .arg("interp")
            .arg(&lib)
            .args(["--func", "@lerp3", "--args", "0,10,0.5"]),
    );
    assert_eq!(out.trim(), "f32 5.0");
    let text = run_ok(bin().arg("opt").arg(&lib).arg("-O0"));
    assert!(text.contains("func @lerp3"), "{text}");
}

/// `compile --target osir` fills the source-map section from the lowering: an instruction of
/// the loaded module reads back the file, line and column of the HLSL expression it came
/// from.
#[test]
fn compiled_osir_carries_hlsl_positions_of_instructions() {
    let hlsl = "RWStructuredBuffer<float> Out : register(u0);\n\
                [numthreads(1, 1, 1)]\n\
                void main() {\n\
                \x20   float a = Out[1];\n\
                \x20   Out[0] = a * 3.5 + Out[2];\n\
                }\n";
    let src = tmp("positions.hlsl");
    std::fs::write(&src, hlsl).unwrap();
    let out = tmp("positions.osir");
    run_ok(
        bin()
            .args([
                "compile", "-T", "cs_6_0", "-E", "main", "-O0", "--target", "osir",
            ])
            .arg(&src)
            .arg("-o")
            .arg(&out),
    );
    let bytes = std::fs::read(&out).unwrap();
    let loaded = oneshader_serialize::load(&bytes, &oneshader_serialize::LoadOptions::default())
        .expect("the compiled module loads");
    let m = &loaded.module;
    let sm = loaded
        .source_map
        .expect("a compiled module carries a source map");
    let position = |op: oneshader_ir::Op| {
        let (_, loc) = sm
            .locations
            .iter()
            .find(|(i, _)| m.op(*i) == op)
            .unwrap_or_else(|| panic!("no position for a `{}`", op.spelling()));
        (sm.files[loc.file as usize].clone(), loc.line, loc.column)
    };
    // `a * 3.5` and `... + Out[2]` both start at `a`, line 5 column 14.
    let (file, line, column) = position(oneshader_ir::Op::Mul);
    assert!(file.ends_with("positions.hlsl"), "{file}");
    assert_eq!((line, column), (5, 14));
    assert_eq!(position(oneshader_ir::Op::Add).1, 5);
    // Every position names a line of the file.
    assert!(sm.locations.iter().all(|(_, l)| (1..=6).contains(&l.line)));
}
