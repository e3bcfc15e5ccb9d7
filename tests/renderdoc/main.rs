//! RenderDoc, the user's debugger, reads our debug information (issue 24, "checked by real
//! consumers"): a compute shader compiled with `-fspv-debug=vulkan-with-source` is dispatched
//! on lavapipe under `renderdoccmd capture`, and RenderDoc's own Python module opens the
//! capture, lists the shader's source files and steps through invocation 0, which must stop
//! at the HLSL lines of the statements in the files it lists, with the functions as the call
//! stack at `-O0` and `-O` (where the helper is inlined: the stack comes from `DebugInlinedAt`).
//!
//! A test without the libtest harness: run with `--child SPV`, this program is what RenderDoc
//! captures (one dispatch in a frame capture); run by `cargo test`, it is the test.

use std::path::Path;
use std::process::{Command, ExitCode};

use oneshader::{CompileOptions, Compiler, DebugInfo, OptLevel};
use oneshader_test_tools::require_tool;
use oneshader_vulkan_harness::Gpu;
use oneshader_vulkan_harness::renderdoc::FrameCapture;

const SHADER: &str = "\
RWStructuredBuffer<uint> Data : register(u0);

uint twice(uint v)
{
    return v * 2 + 1;
}

[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint x = Data[id.x];
    uint y = twice(x);
    Data[id.x] = y + 3;
}
";

const INPUT: [u32; 4] = [1, 2, 3, 4];

/// What the shader leaves in `Data`.
fn expected() -> Vec<u32> {
    INPUT.iter().map(|x| x * 2 + 1 + 3).collect()
}

/// 1-based line of SHADER containing `needle`.
fn line_of(needle: &str) -> u32 {
    SHADER
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("`{needle}` is in the shader")) as u32
        + 1
}

fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The program RenderDoc captures: one dispatch of `spv`'s `main`, in a frame capture.
fn child(spv: &Path) -> ExitCode {
    let words = words_of(&std::fs::read(spv).expect("the SPIR-V file"));
    let gpu = Gpu::new();
    let capture = FrameCapture::start();
    if !capture.active() {
        eprintln!("not running under RenderDoc: no capture API");
        return ExitCode::FAILURE;
    }
    let mut buffers = vec![INPUT.to_vec()];
    gpu.run(&words, "main", &mut buffers, [1, 1, 1]);
    if !capture.end() {
        eprintln!("RenderDoc wrote no capture");
        return ExitCode::FAILURE;
    }
    if buffers[0] != expected() {
        eprintln!("the shader computed {:?}, not {:?}", buffers[0], expected());
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// One stop of RenderDoc's debugger: (file index, line, call stack).
type Stop = (usize, u32, Vec<String>);

/// Compiles SHADER at `level`, captures its dispatch under RenderDoc and returns the files
/// RenderDoc lists (name, text length) and where its debugger stops.
fn capture_and_query(dir: &Path, level: OptLevel) -> (Vec<(String, usize)>, Vec<Stop>) {
    let mut opts = CompileOptions::new("cs_6_0").opt_level(level);
    opts.debug_info = DebugInfo::VulkanWithSource;
    let out = Compiler::new()
        .compile_source("steps.hlsl", SHADER, &opts)
        .unwrap_or_else(|e| panic!("{}", e.diagnostics.render()));
    let spv = dir.join(format!("{level:?}.spv"));
    let bytes: Vec<u8> = out.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&spv, bytes).expect("writes");
    let template = dir.join(format!("{level:?}"));
    let run = Command::new("renderdoccmd")
        .arg("capture")
        .arg("-w")
        .arg("-c")
        .arg(&template)
        .arg(std::env::current_exe().expect("this test's path"))
        .arg("--child")
        .arg(&spv)
        .output()
        .expect("renderdoccmd runs");
    let captures: Vec<_> = std::fs::read_dir(dir)
        .expect("lists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy() == format!("{level:?}_capture.rdc"))
        })
        .collect();
    assert!(
        run.status.success() && captures.len() == 1,
        "{level:?}: renderdoccmd capture wrote {captures:?}: {run:?}\nRenderDoc's logs:\n{}",
        renderdoc_logs()
    );
    let query = Command::new("/usr/bin/python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/renderdoc/query.py"))
        .arg(&captures[0])
        .output()
        .expect("python3 runs");
    assert!(
        query.status.success(),
        "{level:?}: RenderDoc's Python module could not read the capture ({}): {}\n\
         RenderDoc's logs:\n{}",
        query.status,
        String::from_utf8_lossy(&query.stderr),
        renderdoc_logs()
    );
    let v: serde_json::Value =
        serde_json::from_slice(&query.stdout).expect("the query prints JSON");
    assert_eq!(v["debuggable"], true, "{level:?}: {v}");
    let files = v["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| {
            (
                f[0].as_str().expect("name").to_string(),
                f[1].as_u64().expect("length") as usize,
            )
        })
        .collect();
    let stops = v["stops"]
        .as_array()
        .expect("stops")
        .iter()
        .map(|s| {
            (
                s[0].as_u64().expect("file") as usize,
                s[1].as_u64().expect("line") as u32,
                s[2].as_array()
                    .expect("call stack")
                    .iter()
                    .map(|f| f.as_str().expect("function").to_string())
                    .collect(),
            )
        })
        .collect();
    (files, stops)
}

/// What RenderDoc logged (it keeps a process's log under the temporary folder's `RenderDoc`
/// only when the process did not end cleanly), for a failure's message.
fn renderdoc_logs() -> String {
    let dir = std::env::temp_dir().join("RenderDoc");
    let mut out = String::new();
    for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        out.push_str(&format!("== {}\n", e.path().display()));
        out.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
    }
    out
}

fn test() {
    require_tool("renderdoccmd");
    assert!(
        Path::new("/usr/lib/python3/dist-packages/renderdoc.so").is_file(),
        "RenderDoc's Python module (python3-renderdoc) is missing: run `cargo xtask setup`"
    );
    let dir = tempfile::tempdir().expect("a temporary folder");
    for level in [OptLevel::O0, OptLevel::O] {
        let (files, stops) = capture_and_query(dir.path(), level);
        // One file, the shader, with its text: what RenderDoc shows the user.
        assert_eq!(
            files,
            vec![("steps.hlsl".to_string(), SHADER.len())],
            "{level:?}"
        );
        let lines: Vec<u32> = stops.iter().map(|s| s.1).collect();
        assert!(stops.iter().all(|s| s.0 == 0), "{level:?}: {stops:?}");
        for stmt in [
            "uint x = Data[id.x];",
            "Data[id.x] = y + 3;",
            "return v * 2 + 1;",
        ] {
            assert!(
                lines.contains(&line_of(stmt)),
                "{level:?}: the debugger never stops at `{stmt}`: {stops:?}"
            );
        }
        // Every stop is on a line of the shader's code, none on a blank line or a brace.
        for s in &stops {
            let text = SHADER.lines().nth(s.1 as usize - 1).unwrap_or("");
            assert!(
                text.trim().len() > 1,
                "{level:?}: a stop on line {} (`{text}`): {stops:?}",
                s.1
            );
        }
        let in_twice: Vec<&Stop> = stops
            .iter()
            .filter(|s| s.1 == line_of("return v * 2 + 1;"))
            .collect();
        // The helper runs below the HLSL `main` (`main_body`, called by the entry point's
        // wrapper `main`): as functions of their own at -O0, inlined at -O, where RenderDoc
        // builds the same call stack from the `DebugInlinedAt` chain.
        assert!(
            !in_twice.is_empty()
                && in_twice
                    .iter()
                    .all(|s| s.2 == ["main", "main_body", "twice"]),
            "{level:?}: {stops:?}"
        );
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if let Some(k) = args.iter().position(|a| a == "--child") {
        return child(Path::new(args.get(k + 1).expect("--child SPV")));
    }
    // libtest's arguments (a filter, `--list`...) are not understood: this target holds one
    // test, run whenever the target is.
    if args.iter().any(|a| a == "--list") {
        println!("renderdoc_steps_through_the_hlsl_of_a_captured_dispatch: test");
        return ExitCode::SUCCESS;
    }
    test();
    println!("test renderdoc_steps_through_the_hlsl_of_a_captured_dispatch ... ok");
    ExitCode::SUCCESS
}
