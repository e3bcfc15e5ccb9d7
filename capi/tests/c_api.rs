//! The C API from C and C++: `tests/c/api_test.c`, `tests/c/api_test.cpp` and the example of
//! docs/c-api.md, each compiled with the system's `cc`/`c++` against `include/oneshader.h`
//! and linked twice, against `liboneshader_c.a` and against `liboneshader_c.so`, then run, and run
//! again under valgrind (no definite or indirect leak, no invalid access).
//!
//! `cargo test` builds the libraries of this crate's `staticlib` and `cdylib` types into
//! `target/<profile>/deps` before it runs the tests (the tests depend on the library); they
//! are found there, beside the test executable. A missing tool (cc, c++, valgrind) fails the
//! test with a message naming `cargo xtask setup`; nothing is skipped.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The crate's folder.
fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The folder holding `liboneshader_c.a` and `liboneshader_c.so`: the test executable's own
/// (`target/<profile>/deps`).
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    let dir = exe.parent().expect("a folder").to_path_buf();
    for lib in ["liboneshader_c.a", "liboneshader_c.so"] {
        assert!(
            dir.join(lib).exists(),
            "{} is missing: `cargo test -p oneshader-capi` builds it beside the test executable",
            dir.join(lib).display()
        );
    }
    dir
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
        "`{tool}` cannot be run: `cargo xtask setup` installs it (the C API tests need cc, c++ \
         and valgrind)"
    );
}

/// How a program is linked.
#[derive(Clone, Copy, Debug)]
enum Link {
    Static,
    Shared,
}

/// A scratch folder for one test's programs.
fn out_dir(test: &str) -> PathBuf {
    let dir = lib_dir().join("capi-tests").join(test);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// Compiles and links `source` (C for `cc`, C++ for `c++`) into `exe`.
fn build(compiler: &str, source: &Path, exe: &Path, link: Link) {
    require(compiler);
    let libs = lib_dir();
    let mut cmd = Command::new(compiler);
    cmd.arg(if compiler == "c++" {
        "-std=c++17"
    } else {
        "-std=c11"
    })
    .args(["-Wall", "-Wextra", "-Werror", "-g", "-pthread"])
    .arg("-I")
    .arg(crate_dir().join("include"))
    .arg(source)
    .arg("-o")
    .arg(exe);
    match link {
        Link::Static => {
            cmd.arg(libs.join("liboneshader_c.a"))
                .args(["-lpthread", "-ldl", "-lm"]);
        }
        Link::Shared => {
            cmd.arg("-L")
                .arg(&libs)
                .arg(format!("-Wl,-rpath,{}", libs.display()))
                .arg("-loneshader_c");
        }
    }
    let out = cmd.output().expect("the C compiler runs");
    assert!(
        out.status.success(),
        "{compiler} {} ({link:?}) failed:\n{}",
        source.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `exe` with the repository's root as its argument (under valgrind when asked) and
/// fails with its output unless it exits 0.
fn run(exe: &Path, valgrind: bool) -> String {
    let root = crate_dir().parent().expect("the repository").to_path_buf();
    let mut cmd = if valgrind {
        require("valgrind");
        let mut c = Command::new("valgrind");
        c.args([
            "--error-exitcode=1",
            "--leak-check=full",
            "--errors-for-leak-kinds=definite,indirect",
            "--quiet",
        ])
        .arg(exe);
        c
    } else {
        Command::new(exe)
    };
    let out = cmd.arg(&root).output().expect("the program runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{}{} failed ({}):\n{stdout}\n{}",
        if valgrind { "valgrind " } else { "" },
        exe.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Builds `source` both ways and runs each, plainly and under valgrind.
fn build_and_run(test: &str, compiler: &str, source: &Path) -> String {
    let dir = out_dir(test);
    let mut printed = String::new();
    for link in [Link::Static, Link::Shared] {
        let exe = dir.join(format!("{test}-{link:?}"));
        build(compiler, source, &exe, link);
        printed = run(&exe, false);
        assert_eq!(run(&exe, true), printed, "the same output under valgrind");
    }
    printed
}

#[test]
fn c_program_passes_every_check_static_and_shared_under_valgrind() {
    let out = build_and_run("c", "cc", &crate_dir().join("tests/c/api_test.c"));
    assert!(out.contains("all checks passed"), "{out}");
}

#[test]
fn cpp_program_compiles_from_threads_static_and_shared_under_valgrind() {
    let out = build_and_run("cpp", "c++", &crate_dir().join("tests/c/api_test.cpp"));
    assert!(out.contains("all checks passed"), "{out}");
}

/// The one ```c block of docs/c-api.md.
fn doc_example() -> String {
    let doc = crate_dir().join("../docs/c-api.md");
    let text = std::fs::read_to_string(&doc).expect("docs/c-api.md");
    let start = text.find("```c\n").expect("docs/c-api.md has a ```c block") + 5;
    let len = text[start..].find("```").expect("the block ends");
    assert_eq!(
        text.matches("```c\n").count(),
        1,
        "docs/c-api.md has one complete C example (the one this test compiles)"
    );
    text[start..start + len].to_string()
}

#[test]
fn doc_example_compiles_runs_and_prints_what_the_doc_says() {
    let dir = out_dir("doc");
    let source = dir.join("example.c");
    std::fs::write(&source, doc_example()).expect("write the example");
    let out = build_and_run("doc", "cc", &source);
    // The doc shows the program's output; it must be what the program prints.
    let doc = std::fs::read_to_string(crate_dir().join("../docs/c-api.md")).expect("the doc");
    for line in out.lines() {
        assert!(
            doc.contains(line),
            "docs/c-api.md does not show the example's output line `{line}`; it printed:\n{out}"
        );
    }
    assert!(out.contains("SPIR-V"), "{out}");
}
