//! Build-system integration: `oneshader compile -MD -MF` dependency files, the module key in
//! `.osir` files, and `oneshader build --emit-ninja` run by the real `ninja` (Debian's
//! `ninja-build`, installed by `cargo xtask setup`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const COMMON: &str = "#define SCALE 2.0\nfloat scaled(float x) { return x * SCALE; }\n";

const A: &str = r#"#include "common.hlsli"
RWStructuredBuffer<float> data : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { data[id.x] = scaled(data[id.x]) + MODE; }
"#;

const B: &str = r#"#include <common.hlsli>
RWStructuredBuffer<float> data : register(u0);
[numthreads(32, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { data[id.x] = scaled(data[id.x] + 1.0); }
"#;

const C: &str = r#"RWStructuredBuffer<uint> data : register(u0);
[[vk::constant_id(3)]] const uint kStep = 1;
[numthreads(16, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { data[id.x] += kStep; }
"#;

/// a.hlsl and b.hlsl sit in `src/`, their header in `inc/`, found through `include_dirs`.
const MANIFEST: &str = r#"out_dir = "OUT"

[defaults]
include_dirs = ["inc"]
targets = ["spirv", "osir"]

[[shader]]
file = "src/a.hlsl"
profile = "cs_6_0"
permutations = { MODE = [0, 1] }

[[shader]]
file = "src/b.hlsl"
profile = "cs_6_0"
opt = "O0"
layout = "scalar"
matrix_order = "row"

[[shader]]
file = "src/c.hlsl"
profile = "cs_6_0"
spec_constants = { kStep = [1, 7] }
targets = ["spirv-asm", "reflection", "ir"]
debug_names = false
target_env = "vulkan1.0"
"#;

fn exe() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_oneshader"))
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let w = |rel: &str, text: &str| {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    w("inc/common.hlsli", COMMON);
    w("src/a.hlsl", A);
    w("src/b.hlsl", B);
    w("src/c.hlsl", C);
    w("ninja.toml", &MANIFEST.replace("OUT", "out-ninja"));
    w("direct.toml", &MANIFEST.replace("OUT", "out-build"));
    dir
}

fn run(dir: &Path, program: &Path, args: &[&str]) -> Output {
    let out = Command::new(program)
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{} does not run: {e}", program.display()));
    assert!(
        out.status.success(),
        "{} {args:?} failed:\n{}{}",
        program.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The real `ninja`, or a failure that says how to get it.
fn ninja() -> PathBuf {
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join("ninja"))
                .find(|p| p.is_file())
        })
        .unwrap_or_else(|| {
            panic!("`ninja` is not installed: run `cargo xtask setup` (it installs Debian's ninja-build)")
        })
}

/// The `[i/N]` lines of a ninja run: N, the number of edges it ran.
fn edges_run(out: &Output) -> usize {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let l = l.strip_prefix('[')?;
            let (_, n) = l.split_once('/')?;
            n.split(']').next()?.parse().ok()
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn ninja_runs_one_compile_per_output_with_the_bytes_of_oneshader_build() {
    let ninja = ninja();
    let p = project();
    let dir = p.path();
    run(
        dir,
        exe(),
        &["build", "ninja.toml", "--emit-ninja", "build.ninja"],
    );
    let text = std::fs::read_to_string(dir.join("build.ninja")).unwrap();
    // 2 + 1 variants of two targets, 2 variants of three.
    assert_eq!(text.matches(": compile ").count(), 12, "{text}");
    let first = run(dir, &ninja, &[]);
    assert_eq!(edges_run(&first), 12);
    // The same outputs, byte for byte, as the built-in driver's.
    run(dir, exe(), &["build", "direct.toml", "--no-cache"]);
    let mut compared = 0;
    for f in std::fs::read_dir(dir.join("out-build")).unwrap() {
        let f = f.unwrap();
        let ninja_out = dir.join("out-ninja").join(f.file_name());
        assert!(
            std::fs::read(f.path()).unwrap() == std::fs::read(&ninja_out).unwrap(),
            "{} differs between ninja and oneshader build",
            f.file_name().to_string_lossy()
        );
        compared += 1;
    }
    assert_eq!(compared, 12);
    // Nothing to do the second time.
    let again = run(dir, &ninja, &[]);
    assert!(
        String::from_utf8_lossy(&again.stdout).contains("no work to do"),
        "{}",
        String::from_utf8_lossy(&again.stdout)
    );
    // The depfiles tell ninja about the header: touching it rebuilds a's and b's outputs
    // (2 + 1 variants x 2 targets), not c's.
    std::fs::write(dir.join("inc/common.hlsli"), COMMON.replace("2.0", "4.0")).unwrap();
    let touched = run(dir, &ninja, &[]);
    assert_eq!(
        edges_run(&touched),
        6,
        "{}",
        String::from_utf8_lossy(&touched.stdout)
    );
    // Editing the manifest regenerates the ninja file first.
    std::fs::write(
        dir.join("ninja.toml"),
        MANIFEST
            .replace("OUT", "out-ninja")
            .replace("MODE = [0, 1]", "MODE = [0, 1, 2]"),
    )
    .unwrap();
    let regenerated = run(dir, &ninja, &[]);
    assert!(dir.join("out-ninja/a.main.MODE-2.spv").is_file());
    assert_eq!(
        edges_run(&regenerated),
        2,
        "{}",
        String::from_utf8_lossy(&regenerated.stdout)
    );
}

#[test]
fn compile_writes_make_dependency_files() {
    let p = project();
    let dir = p.path();
    run(
        dir,
        exe(),
        &[
            "compile",
            "src/a.hlsl",
            "-T",
            "cs_6_0",
            "-DMODE=1",
            "-I",
            "inc",
            "-MD",
            "-o",
            "a.spv",
        ],
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("a.spv.d")).unwrap(),
        "a.spv: \\\n  src/a.hlsl \\\n  inc/common.hlsli\n"
    );
    std::fs::create_dir_all(dir.join("out dir")).unwrap();
    run(
        dir,
        exe(),
        &[
            "compile",
            "src/b.hlsl",
            "-T",
            "cs_6_0",
            "-Iinc",
            "-MF",
            "b.d",
            "-o",
            "out dir/b.spv",
        ],
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("b.d")).unwrap(),
        "out\\ dir/b.spv: \\\n  src/b.hlsl \\\n  inc/common.hlsli\n"
    );
    // -MD with standard output and no -MF is a usage error.
    let out = Command::new(exe())
        .current_dir(dir)
        .args(["compile", "src/c.hlsl", "-T", "cs_6_0", "-MD"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("OSC0058"));
}

#[test]
fn compile_writes_the_module_key_into_osir_files() {
    let p = project();
    let dir = p.path();
    let key = |args: &[&str]| {
        let mut all = vec![
            "compile",
            "src/a.hlsl",
            "-T",
            "cs_6_0",
            "-I",
            "inc",
            "--target",
            "osir",
            "-o",
            "a.osir",
        ];
        all.extend_from_slice(args);
        run(dir, exe(), &all);
        let bytes = std::fs::read(dir.join("a.osir")).unwrap();
        oneshader::serialize::read_header(&bytes).unwrap().cache_key
    };
    let k = key(&["-DMODE=1"]);
    assert_ne!(k, oneshader::serialize::CacheKey::NONE);
    assert_eq!(key(&["-DMODE=1"]), k, "the same inputs give the same key");
    assert_ne!(key(&["-DMODE=2"]), k);
    assert_ne!(key(&["-DMODE=1", "-O0"]), k);
    // The target environment does not change the module: same key.
    assert_eq!(key(&["-DMODE=1", "--target-env", "vulkan1.0"]), k);
    std::fs::write(dir.join("inc/common.hlsli"), COMMON.replace("2.0", "3.0")).unwrap();
    assert_ne!(key(&["-DMODE=1"]), k, "an edited include changes the key");
    // The key does not depend on where the files are: the same tree elsewhere gives it.
    let q = project();
    std::fs::write(
        q.path().join("inc/common.hlsli"),
        COMMON.replace("2.0", "3.0"),
    )
    .unwrap();
    run(
        q.path(),
        exe(),
        &[
            "compile",
            "src/a.hlsl",
            "-T",
            "cs_6_0",
            "-I",
            "inc",
            "--target",
            "osir",
            "-DMODE=1",
            "-o",
            "a.osir",
        ],
    );
    let there = std::fs::read(q.path().join("a.osir")).unwrap();
    assert_eq!(
        std::fs::read(dir.join("a.osir")).unwrap(),
        there,
        "the same inputs in another folder give the same bytes"
    );
}
