//! The CMake package (cmake/OneShaderConfig.cmake, docs/cmake.md): the example project of
//! docs/cmake.md (examples/cmake, checked to be the doc's text) configured and built with
//! Debian's `cmake`, once with the Ninja generator against the static C API library and once
//! with the Makefile generator against the shared one. After a full build, a no-op build
//! runs nothing; editing the included header rebuilds exactly the shaders that include it;
//! editing a shader rebuilds only its own output; adding a permutation to the manifest
//! builds only the new outputs; the program links the C API, runs, and checks every SPIR-V
//! output. Which shaders a build ran is read from the build tool's output (each custom
//! command prints `OneShader: VARIANT -> OUTPUT`).
//!
//! The C API libraries are built with `cargo build -p oneshader-capi` into this test's own
//! target folder and profile (cargo does nothing when they are current). A missing tool
//! (cmake, ninja, make, cc) fails the test with a message naming `cargo xtask setup`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn example_dir() -> PathBuf {
    repo().join("examples/cmake")
}

/// Fails (never skips) when `tool` cannot be run.
fn require(tool: &str) {
    let ok = Command::new(tool)
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        ok,
        "`{tool}` cannot be run: `cargo xtask setup` installs it (the CMake package test needs \
         cmake, ninja, make and cc)"
    );
}

/// The fenced blocks of docs/cmake.md whose info string names a file (```` ```cmake
/// CMakeLists.txt ````): (path relative to examples/cmake, text).
fn doc_files() -> Vec<(String, String)> {
    let doc = std::fs::read_to_string(repo().join("docs/cmake.md")).expect("docs/cmake.md");
    let mut files = Vec::new();
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        let Some(info) = line.strip_prefix("```") else {
            continue;
        };
        let mut words = info.split_whitespace();
        let (Some(_lang), Some(path)) = (words.next(), words.next()) else {
            // A block without a file name: skip its body.
            for l in lines.by_ref() {
                if l.starts_with("```") {
                    break;
                }
            }
            continue;
        };
        let mut text = String::new();
        for l in lines.by_ref() {
            if l.starts_with("```") {
                break;
            }
            text.push_str(l);
            text.push('\n');
        }
        files.push((path.to_string(), text));
    }
    files
}

/// Every file under `dir`, relative to it.
fn files_under(dir: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).expect("under dir");
                out.insert(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out
}

#[test]
fn the_doc_example_is_the_example_project_and_the_version_is_the_crates() {
    let files = doc_files();
    let named: BTreeSet<String> = files.iter().map(|(p, _)| p.clone()).collect();
    assert_eq!(
        named,
        files_under(&example_dir()),
        "docs/cmake.md's file blocks and examples/cmake differ in their files"
    );
    for (path, text) in &files {
        let on_disk = std::fs::read_to_string(example_dir().join(path)).expect("example file");
        assert_eq!(
            &on_disk, text,
            "examples/cmake/{path} differs from its block in docs/cmake.md"
        );
    }
    let version = std::fs::read_to_string(repo().join("cmake/OneShaderConfigVersion.cmake"))
        .expect("the version file");
    assert!(
        version.contains(&format!(
            "set(PACKAGE_VERSION \"{}\")",
            env!("CARGO_PKG_VERSION")
        )),
        "cmake/OneShaderConfigVersion.cmake does not state version {}",
        env!("CARGO_PKG_VERSION")
    );
}

/// The folder of the `oneshader` executable this test was built with: `target/<profile>`.
fn profile_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_oneshader"))
        .parent()
        .expect("target/<profile>")
        .to_path_buf()
}

/// Builds the C API libraries into [`profile_dir`] and returns that folder.
fn c_api_libraries() -> PathBuf {
    let dir = profile_dir();
    let target_dir = dir.parent().expect("the target folder");
    let profile = match dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") => "dev".to_string(),
        Some(p) => p.to_string(),
        None => panic!("no profile folder in {}", dir.display()),
    };
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    // Without the variables cargo sets for this test (OUT_DIR, LD_LIBRARY_PATH, ...): build
    // scripts that read them would otherwise see a change, and this build and the next
    // `cargo test` would each rebuild what the other built.
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy();
        if [
            "CARGO_PKG_",
            "CARGO_BIN_EXE_",
            "CARGO_MANIFEST_",
            "CARGO_CRATE_",
        ]
        .iter()
        .any(|p| k.starts_with(p))
            || [
                "OUT_DIR",
                "LD_LIBRARY_PATH",
                "ONESHADER_BUILD_ID",
                "CARGO_PRIMARY_PACKAGE",
                "CARGO_TARGET_TMPDIR",
                "RUST_RECURSION_COUNT",
            ]
            .contains(&k.as_ref())
        {
            cmd.env_remove(k.as_ref());
        }
    }
    let out = cmd
        .current_dir(repo())
        .args(["build", "-p", "oneshader-capi", "--profile", &profile])
        .arg("--target-dir")
        .arg(target_dir)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo build -p oneshader-capi failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for lib in ["liboneshader_c.a", "liboneshader_c.so"] {
        assert!(
            dir.join(lib).is_file(),
            "{} was not built",
            dir.join(lib).display()
        );
    }
    dir
}

/// Runs `cmd`, failing with its output unless it succeeds; returns stdout and stderr.
fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?} cannot run: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{text}",
        out.status
    );
    text
}

/// A copy of the example project configured in a build folder with one generator.
struct Project {
    src: PathBuf,
    build: PathBuf,
}

impl Project {
    fn configure(name: &str, generator: &str, shared: bool) -> Project {
        let root = profile_dir().join("cmake-package-tests").join(name);
        let _ = std::fs::remove_dir_all(&root);
        let src = root.join("src");
        for rel in files_under(&example_dir()) {
            let to = src.join(&rel);
            std::fs::create_dir_all(to.parent().expect("a folder")).expect("mkdir");
            std::fs::copy(example_dir().join(&rel), &to).expect("copy");
        }
        let build = root.join("build");
        run(Command::new("cmake")
            .arg("-S")
            .arg(&src)
            .arg("-B")
            .arg(&build)
            .args(["-G", generator])
            .arg(format!(
                "-DOneShader_DIR={}",
                repo().join("cmake").display()
            ))
            .arg(format!(
                "-DONESHADER_EXECUTABLE={}",
                env!("CARGO_BIN_EXE_oneshader")
            ))
            .arg(format!(
                "-DONESHADER_LIBRARY_DIR={}",
                c_api_libraries().display()
            ))
            .arg(format!(
                "-DONESHADER_SHARED={}",
                if shared { "ON" } else { "OFF" }
            )));
        Project { src, build }
    }

    /// Builds (`target` or the default) and returns the outputs the build ran `oneshader
    /// compile` for, relative to the build folder, with the build tool's whole output.
    fn build(&self, target: Option<&str>) -> (BTreeSet<String>, String) {
        let mut cmd = Command::new("cmake");
        cmd.arg("--build").arg(&self.build).args(["-j", "2"]);
        if let Some(t) = target {
            cmd.args(["--target", t]);
        }
        let text = run(&mut cmd);
        let built = text
            .lines()
            .filter_map(|l| l.split_once("OneShader: ").map(|(_, r)| r))
            .map(|r| {
                r.rsplit_once(" -> ")
                    .unwrap_or_else(|| panic!("no output in `{r}`"))
                    .1
                    .trim()
                    .to_string()
            })
            .collect();
        (built, text)
    }

    fn edit(&self, rel: &str, f: impl FnOnce(&str) -> String) {
        let path = self.src.join(rel);
        let text = std::fs::read_to_string(&path).expect("read");
        std::fs::write(&path, f(&text)).expect("write");
    }
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// Every step of one generator (see the file's comment).
fn builds_exactly_what_changed(name: &str, generator: &str, shared: bool) {
    for tool in ["cmake", "cc"] {
        require(tool);
    }
    require(if generator == "Ninja" {
        "ninja"
    } else {
        "make"
    });
    let p = Project::configure(name, generator, shared);

    let compute = [
        "oneshader/compute_shaders/blur.spv",
        "oneshader/compute_shaders/fill.spv",
    ];
    let tint = [
        "oneshader/shader_app/tint.main.STRENGTH-1.spv",
        "oneshader/shader_app/tint.main.STRENGTH-1.json",
        "oneshader/shader_app/tint.main.STRENGTH-2.spv",
        "oneshader/shader_app/tint.main.STRENGTH-2.json",
    ];
    let (built, log) = p.build(None);
    let everything: BTreeSet<String> = compute.iter().chain(&tint).map(|s| s.to_string()).collect();
    assert_eq!(
        built, everything,
        "a full build builds every output:\n{log}"
    );
    for out in &everything {
        assert!(p.build.join(out).is_file(), "{out} was not written");
    }

    let (built, log) = p.build(None);
    assert_eq!(built, set(&[]), "a no-op build runs no compile:\n{log}");

    // The header blur.hlsl and tint.hlsl include, not fill.hlsl.
    p.edit("shaders/include/common.hlsli", |t| {
        t.replace("saturate(c * k)", "saturate(k * c)")
    });
    let (built, log) = p.build(None);
    let mut expected: BTreeSet<String> = tint.iter().map(|s| s.to_string()).collect();
    expected.insert("oneshader/compute_shaders/blur.spv".into());
    assert_eq!(
        built, expected,
        "editing common.hlsli rebuilds exactly its shaders:\n{log}"
    );
    let (built, log) = p.build(None);
    assert_eq!(built, set(&[]), "then nothing:\n{log}");

    p.edit("shaders/fill.hlsl", |t| t.replace("id.x * 2u", "id.x * 3u"));
    let (built, log) = p.build(None);
    assert_eq!(
        built,
        set(&["oneshader/compute_shaders/fill.spv"]),
        "editing fill.hlsl:\n{log}"
    );

    // A new permutation value: CMake reconfigures; only the new variant's outputs build.
    p.edit("shaders/oneshader.toml", |t| {
        t.replace("[1, 2]", "[1, 2, 4]")
    });
    let (built, log) = p.build(None);
    assert_eq!(
        built,
        set(&[
            "oneshader/shader_app/tint.main.STRENGTH-4.spv",
            "oneshader/shader_app/tint.main.STRENGTH-4.json"
        ]),
        "a new permutation builds only its outputs:\n{log}"
    );

    // The program links the C API and reads every SPIR-V output.
    let (built, log) = p.build(Some("run"));
    assert_eq!(built, set(&[]), "running builds nothing more:\n{log}");
    assert!(log.contains("5 SPIR-V files"), "{log}");
    assert!(
        log.contains("compiled inline.hlsl in process: ok"),
        "the C API compiles in process:\n{log}"
    );
}

#[test]
fn ninja_with_the_static_library_rebuilds_exactly_what_changed() {
    builds_exactly_what_changed("ninja-static", "Ninja", false);
}

#[test]
fn makefiles_with_the_shared_library_rebuild_exactly_what_changed() {
    builds_exactly_what_changed("make-shared", "Unix Makefiles", true);
}

#[test]
fn a_missing_compiler_is_a_clear_configure_error() {
    require("cmake");
    let root = profile_dir().join("cmake-package-tests").join("missing");
    let _ = std::fs::remove_dir_all(&root);
    let src = root.join("src");
    std::fs::create_dir_all(&src).expect("mkdir");
    std::fs::write(
        src.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.20)\nproject(p LANGUAGES NONE)\n\
         find_package(OneShader CONFIG REQUIRED COMPONENTS compiler)\n",
    )
    .expect("write");
    let empty = root.join("empty-checkout");
    std::fs::create_dir_all(&empty).expect("mkdir");
    let out = Command::new("cmake")
        .arg("-S")
        .arg(&src)
        .arg("-B")
        .arg(root.join("build"))
        .arg(format!(
            "-DOneShader_DIR={}",
            repo().join("cmake").display()
        ))
        .arg(format!("-DONESHADER_ROOT={}", empty.display()))
        .env("PATH", "/usr/bin:/bin")
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .expect("cmake runs");
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "configuring without a compiler succeeded"
    );
    assert!(
        text.contains("the `oneshader` executable is not in")
            && text.contains("cargo build --release -p oneshader --bin oneshader")
            && text.contains("ONESHADER_EXECUTABLE"),
        "the error says what is missing and how to get it:\n{text}"
    );
}

#[test]
fn emit_cmake_lists_each_output_with_its_compile_arguments() {
    let root = profile_dir().join("cmake-package-tests").join("emit");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).expect("mkdir");
    let script = root.join("shaders.cmake");
    let out_dir = root.join("out");
    let manifest = example_dir().join("shaders/oneshader.toml");
    run(Command::new(env!("CARGO_BIN_EXE_oneshader"))
        .arg("build")
        .arg(&manifest)
        .arg("--out-dir")
        .arg(&out_dir)
        .arg("--emit-cmake")
        .arg(&script));
    let text = std::fs::read_to_string(&script).expect("the script");
    let include = example_dir().join("shaders/include");
    assert!(text.contains("set(ONESHADER_OUTPUT_COUNT 4)\n"), "{text}");
    for line in [
        format!(
            "set(ONESHADER_OUTPUT_0 \"{}\")",
            out_dir.join("tint.main.STRENGTH-1.spv").display()
        ),
        format!(
            "set(ONESHADER_SOURCE_0 \"{}\")",
            example_dir().join("shaders/tint.hlsl").display()
        ),
        "set(ONESHADER_VARIANT_0 \"tint.hlsl:main [STRENGTH=1]\")".to_string(),
        format!(
            "set(ONESHADER_ARGS_0 \"-T\" \"ps_6_0\" \"-E\" \"main\" \"--target\" \"spirv\" \"-D\" \
             \"STRENGTH=1\" \"-I\" \"{}\" \"--target-env\" \"vulkan1.2\")",
            include.display()
        ),
        format!(
            "set(ONESHADER_OUTPUT_3 \"{}\")",
            out_dir.join("tint.main.STRENGTH-2.json").display()
        ),
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "no line {line} in:\n{text}"
        );
    }
    assert!(!out_dir.exists(), "--emit-cmake builds nothing");

    // A value CMake would split is refused, naming it.
    std::fs::write(
        root.join("bad.toml"),
        format!(
            "[[shader]]\nfile = \"{}\"\nprofile = \"cs_6_0\"\ndefines = [\"A=1;2\"]\n",
            example_dir().join("shaders/fill.hlsl").display()
        ),
    )
    .expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_oneshader"))
        .arg("build")
        .arg(root.join("bad.toml"))
        .arg("--emit-cmake")
        .arg(root.join("bad.cmake"))
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("error[OSD0007]") && err.contains("`A=1;2` holds a `;`"),
        "{err}"
    );
}
