//! Sets how the `oneshader` executable is linked (below), and computes the compiler's build
//! identity, `ONESHADER_BUILD_ID`: an XXH3-128 hash of the
//! source of every crate whose code decides what the compiler produces (the library's own
//! `src/` and, in a checkout of the workspace, `ir-core`, `passes`, `frontends`, `backends`,
//! `serialize`, `reflect`), the workspace's `Cargo.lock` (dependency versions), the `rustc`
//! version and the target. Every file is hashed with its path relative to the package, never
//! an absolute path, so the same source gives the same identity on every machine.
//!
//! Build caches (`oneshader::build`, the `.osir` cache key) include it, so that a changed
//! compiler never reuses what an older one produced, even when the version number is the same.
//! Cargo runs this script again whenever one of the hashed folders changes.

use std::path::{Path, PathBuf};

/// The folders and files, relative to the package, that are hashed when present.
const INPUTS: &[&str] = &[
    "src",
    "Cargo.toml",
    "Cargo.lock",
    "ir-core/src",
    "ir-core/Cargo.toml",
    "passes/src",
    "passes/Cargo.toml",
    "frontends/src",
    "frontends/Cargo.toml",
    "backends/src",
    "backends/Cargo.toml",
    "serialize/src",
    "serialize/Cargo.toml",
    "reflect/src",
    "reflect/Cargo.toml",
];

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let mut files = Vec::new();
    for input in INPUTS {
        let p = root.join(input);
        if p.is_dir() {
            println!("cargo:rerun-if-changed={input}");
            files_under(&p, &mut files);
        } else if p.is_file() {
            println!("cargo:rerun-if-changed={input}");
            files.push(p);
        }
    }
    let mut rel: Vec<(String, PathBuf)> = files
        .into_iter()
        .filter_map(|p| {
            let r = p
                .strip_prefix(&root)
                .ok()?
                .to_string_lossy()
                .replace('\\', "/");
            Some((r, p))
        })
        .collect();
    rel.sort();
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    let mut part = |tag: u8, bytes: &[u8]| {
        h.update(&[tag]);
        h.update(&(bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    for (name, path) in &rel {
        // A file that cannot be read is hashed as its name alone (it changes the identity
        // all the same when it becomes readable).
        let bytes = std::fs::read(path).unwrap_or_default();
        part(b'n', name.as_bytes());
        part(b'c', &bytes);
    }
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("-vV")
        .output()
        .map(|o| o.stdout)
        .unwrap_or_default();
    part(b'r', &version);
    part(b't', std::env::var("TARGET").unwrap_or_default().as_bytes());
    let id = h.digest128();
    println!("cargo:rustc-env=ONESHADER_BUILD_ID={id:032x}");

    // The `oneshader` executable is linked as a fixed-address executable on x86-64 Linux:
    // a position-independent one has about 12,500 relative relocations that the dynamic
    // loader applies at every start, writing (and so copying) every page of relocated data;
    // without them a process starts with about 85 fewer page faults (BENCHMARKS.md,
    // "Start-up"). The library is unaffected.
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    if os == "linux" && env == "gnu" && arch == "x86_64" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
