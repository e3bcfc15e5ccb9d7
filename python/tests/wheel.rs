//! The Python wheel's tests: builds the wheel with maturin, installs it into a venv and runs
//! pytest over python/tests/test_*.py (docs/python.md's example among them). Part of
//! `cargo test --workspace`, so of `cargo xtask test`.
//!
//! The venv lives in `target/python-venv` and is made once: it is remade only when its stamp
//! (the requirements and the interpreter's version) changes. maturin builds with the
//! workspace's target folder and dev profile, so an unchanged crate costs a packing step;
//! the wheel is reinstalled only when its bytes changed.
//!
//! It fails, rather than skipping, when Python or its venv module is missing: `cargo xtask
//! setup` installs them. `ONESHADER_PYTHON` names another interpreter than `python3`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// What the venv holds besides the wheel (maturin 1.9.4 is the first to set
/// `PYO3_BUILD_EXTENSION_MODULE` itself).
const REQUIREMENTS: [&str; 2] = ["maturin>=1.9.4,<2", "pytest>=7"];

fn workspace_root() -> PathBuf {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    crate_dir.parent().unwrap_or(crate_dir).to_path_buf()
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|t| {
            if t.is_absolute() {
                t
            } else {
                workspace_root().join(t)
            }
        })
        .unwrap_or_else(|| workspace_root().join("target"))
}

/// Runs `cmd`, failing the test with its output when it cannot start or fails.
fn run(cmd: &mut Command, what: &str) -> Output {
    let out = match cmd.output() {
        Ok(o) => o,
        Err(e) => panic!("{what}: cannot run {cmd:?}: {e}"),
    };
    assert!(
        out.status.success(),
        "{what} failed ({}): {cmd:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The interpreter's version line, or a failure naming `cargo xtask setup`.
fn python_version(python: &str) -> String {
    let probe = Command::new(python)
        .args([
            "-c",
            "import sys, venv, ensurepip; print(sys.version.split()[0])",
        ])
        .output();
    match probe {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_string(),
        Ok(o) => panic!(
            "`{python}` has no working venv module ({}); the Python wheel's tests need it: \
             run `cargo xtask setup` (it installs Debian's python3-venv)\n{}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => panic!(
            "cannot run `{python}` ({e}); the Python wheel's tests need Python 3 with venv: \
             run `cargo xtask setup`, or set ONESHADER_PYTHON to an interpreter"
        ),
    }
}

/// The venv's interpreter, the venv made (or remade) when its stamp is not current.
fn venv(python: &str) -> PathBuf {
    let venv = target_dir().join("python-venv");
    let bin = venv.join("bin");
    let stamp = venv.join("oneshader-stamp");
    let want = format!("{}\n{}\n", REQUIREMENTS.join("\n"), python_version(python));
    if std::fs::read_to_string(&stamp).ok().as_deref() == Some(want.as_str())
        && bin.join("python").exists()
    {
        return bin.join("python");
    }
    if venv.exists()
        && let Err(e) = std::fs::remove_dir_all(&venv)
    {
        panic!("cannot remove the stale venv {}: {e}", venv.display());
    }
    run(
        Command::new(python).args(["-m", "venv"]).arg(&venv),
        "making the venv (`cargo xtask setup` installs python3-venv)",
    );
    run(
        Command::new(bin.join("python"))
            .args(["-m", "pip", "install", "-q", "--disable-pip-version-check"])
            .args(REQUIREMENTS),
        "installing maturin and pytest from PyPI",
    );
    if let Err(e) = std::fs::write(&stamp, want) {
        panic!("cannot write {}: {e}", stamp.display());
    }
    bin.join("python")
}

/// Removes the variables cargo sets for a test process (`CARGO_PKG_NAME`,
/// `CARGO_MANIFEST_DIR`, ...): build scripts that watch them (ring's) would otherwise run
/// again in the nested build, and again in the next outer one.
fn without_test_env(cmd: &mut Command) -> &mut Command {
    for (key, _) in std::env::vars_os() {
        let Some(k) = key.to_str() else { continue };
        let set_by_cargo = k.starts_with("CARGO_PKG_")
            || k.starts_with("CARGO_MANIFEST_")
            || k.starts_with("CARGO_BIN_")
            || matches!(
                k,
                "CARGO_CRATE_NAME"
                    | "CARGO_PRIMARY_PACKAGE"
                    | "CARGO_TARGET_TMPDIR"
                    | "CARGO_RUSTC_CURRENT_DIR"
                    | "OUT_DIR"
            );
        if set_by_cargo {
            cmd.env_remove(&key);
        }
    }
    cmd
}

/// Builds the wheel into `target/python-wheel` and returns its path.
fn build_wheel(python: &Path) -> PathBuf {
    let out_dir = target_dir().join("python-wheel");
    if out_dir.exists()
        && let Err(e) = std::fs::remove_dir_all(&out_dir)
    {
        panic!("cannot empty {}: {e}", out_dir.display());
    }
    let root = workspace_root();
    let maturin = python.with_file_name("maturin");
    run(
        without_test_env(&mut Command::new(&maturin))
            .current_dir(&root)
            .args(["build", "--quiet", "-m"])
            .arg(root.join("python").join("Cargo.toml"))
            .arg("--out")
            .arg(&out_dir)
            .arg("--interpreter")
            .arg(python),
        "maturin build",
    );
    let wheels: Vec<PathBuf> = match std::fs::read_dir(&out_dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "whl"))
            .collect(),
        Err(e) => panic!("cannot list {}: {e}", out_dir.display()),
    };
    match wheels.as_slice() {
        [one] => one.clone(),
        other => panic!("maturin built {} wheels: {other:?}", other.len()),
    }
}

/// Installs `wheel` into the venv unless the same bytes are installed already.
fn install(python: &Path, wheel: &Path) {
    let Ok(bytes) = std::fs::read(wheel) else {
        panic!("cannot read {}", wheel.display());
    };
    let installed = target_dir()
        .join("python-venv")
        .join("oneshader-installed.whl");
    if std::fs::read(&installed).ok().as_deref() == Some(bytes.as_slice()) {
        return;
    }
    run(
        Command::new(python)
            .args([
                "-m",
                "pip",
                "install",
                "-q",
                "--disable-pip-version-check",
                "--force-reinstall",
                "--no-deps",
            ])
            .arg(wheel),
        "installing the wheel",
    );
    if let Err(e) = std::fs::write(&installed, bytes) {
        panic!("cannot write {}: {e}", installed.display());
    }
}

#[test]
fn wheel_builds_installs_and_passes_pytest() {
    let python = std::env::var("ONESHADER_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let venv_python = venv(&python);
    let wheel = build_wheel(&venv_python);
    install(&venv_python, &wheel);
    let root = workspace_root();
    let out = run(
        Command::new(&venv_python)
            .current_dir(&root)
            // No `__pycache__` or `.pytest_cache` in the source tree.
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .arg(root.join("python").join("tests")),
        "pytest over python/tests",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let summary = stdout.lines().last().unwrap_or_default();
    // pytest exits 5 when it collected nothing, which `run` already fails; a run that
    // passed says how many.
    assert!(
        summary.contains(" passed") && !summary.contains("failed"),
        "unexpected pytest summary: {summary}\n{stdout}"
    );
    println!("pytest: {summary}");
}
