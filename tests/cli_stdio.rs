//! `-` is standard input or output for every file argument of every command; diagnostics of
//! standard input name `<stdin>`; binary output to a terminal is refused; a closed stderr
//! never makes the command panic; every diagnostic is printed once.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_oneshader"))
}

/// Runs the binary with `input` on standard input.
fn run_with_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().expect("piped");
    stdin.write_all(input).expect("writes stdin");
    drop(stdin);
    child.wait_with_output().expect("waits")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("oneshader-cli-stdio-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

const PIXEL: &str = "float4 main(float4 c : COLOR0) : SV_Target { return c * 2.0; }\n";

const IR: &str = "func @f(%x: i32) -> i32 {\nbb0:\n  %v0 = add %x, i32 1 : i32\n  return %v0\n}\n";

#[test]
fn compile_reads_stdin_and_writes_stdout() {
    for out in [&[][..], &["-o", "-"][..], &["-Fo", "-"][..]] {
        let mut args = vec!["compile", "-", "-T", "ps_6_0", "--target", "spirv-asm"];
        args.extend_from_slice(out);
        let o = run_with_stdin(&args, PIXEL.as_bytes());
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert!(
            stdout(&o).contains("OpEntryPoint Fragment"),
            "{args:?}: {}",
            stdout(&o)
        );
    }
    // No file named `-` was written.
    assert!(!std::path::Path::new("-").exists());
}

#[test]
fn diagnostics_of_stdin_name_it() {
    let o = run_with_stdin(
        &["compile", "-", "-T", "ps_6_0"],
        b"float4 main() : SV_Target { return missing; }\n",
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("<stdin>:1:36: error[OSH1001]"),
        "{}",
        stderr(&o)
    );
    let o = run_with_stdin(&["fmt", "-"], b"func @f( {\n");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("<stdin>:1:"), "{}", stderr(&o));
}

#[test]
fn reflection_and_depfile_to_stdout() {
    let d = dir();
    let src = d.join("ps.hlsl");
    std::fs::write(&src, PIXEL).expect("write");
    let spv = d.join("ps.spv");
    let (src, spv) = (src.to_str().expect("utf-8"), spv.to_str().expect("utf-8"));
    let o = bin()
        .args(["compile", src, "-T", "ps_6_0", "-o", spv, "--reflect", "-"])
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("\"entry_points\""), "{}", stdout(&o));
    let o = bin()
        .args(["compile", src, "-T", "ps_6_0", "-o", spv, "-MF", "-"])
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with(&format!("{spv}: \\\n  {src}")),
        "{}",
        stdout(&o)
    );
    // Two outputs to standard output would be interleaved: refused.
    let o = bin()
        .args(["compile", src, "-T", "ps_6_0", "--reflect", "-"])
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o)
            .contains("error[OSC0050]: the output and `--reflect` all write to standard output"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn ir_commands_read_stdin_and_write_stdout() {
    let fmt = run_with_stdin(&["fmt", "-"], IR.as_bytes());
    assert!(fmt.status.success(), "{}", stderr(&fmt));
    let canonical = stdout(&fmt);
    assert!(canonical.contains("func @f"), "{canonical}");
    // as - -o - | dis -
    let osir = run_with_stdin(&["as", "-", "-o", "-"], IR.as_bytes());
    assert!(osir.status.success(), "{}", stderr(&osir));
    assert!(oneshader::serialize::is_osir(&osir.stdout));
    let dis = run_with_stdin(&["dis", "-", "-o", "-"], &osir.stdout);
    assert!(dis.status.success(), "{}", stderr(&dis));
    assert_eq!(stdout(&dis), canonical);
    let opt = run_with_stdin(&["opt", "-", "-O", "-o", "-"], IR.as_bytes());
    assert!(opt.status.success(), "{}", stderr(&opt));
    assert!(stdout(&opt).contains("func @f"), "{}", stdout(&opt));
    // link - -o -: the linked module is binary, to a pipe.
    let linked = run_with_stdin(&["link", "-", "--keep-exports", "-o", "-"], &osir.stdout);
    assert!(linked.status.success(), "{}", stderr(&linked));
    assert!(oneshader::serialize::is_osir(&linked.stdout));
    let verify = run_with_stdin(&["verify", "-"], IR.as_bytes());
    assert!(verify.status.success(), "{}", stderr(&verify));
}

#[test]
fn emit_reads_stdin() {
    let hlsl = run_with_stdin(
        &["compile", "-", "-T", "cs_6_0", "--target", "ir"],
        b"RWStructuredBuffer<uint> o; [numthreads(1,1,1)] void main() { o[0] = 7; }\n",
    );
    assert!(hlsl.status.success(), "{}", stderr(&hlsl));
    let o = run_with_stdin(
        &["emit", "-", "--target", "spirv-asm", "-o", "-"],
        &hlsl.stdout,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("OpEntryPoint GLCompute"),
        "{}",
        stdout(&o)
    );
}

/// SPIR-V written to a terminal would be garbage on the screen: refused with a hint. The
/// terminal is `script`'s pseudo-terminal (util-linux).
#[test]
fn binary_output_to_a_terminal_is_refused() {
    let d = dir();
    let src = d.join("tty.hlsl");
    std::fs::write(&src, PIXEL).expect("write");
    let cmd = format!(
        "{} compile {} -T ps_6_0; echo \"exit=$?\"",
        env!("CARGO_BIN_EXE_oneshader"),
        src.display()
    );
    let o = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .expect("`script` (util-linux) runs");
    let text = stdout(&o);
    assert!(
        text.contains("error[OSC0005]: binary output is not written to a terminal"),
        "{text}"
    );
    assert!(text.contains("exit=1"), "{text}");
    // Text output to the terminal is fine.
    let cmd = format!(
        "{} compile {} -T ps_6_0 --target spirv-asm; echo \"exit=$?\"",
        env!("CARGO_BIN_EXE_oneshader"),
        src.display()
    );
    let o = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .expect("`script` runs");
    let text = stdout(&o);
    assert!(
        text.contains("OpEntryPoint") && text.contains("exit=0"),
        "{text}"
    );
}

/// A stdout nobody reads (`| head` after head exited): the output was not delivered, so the
/// command fails with OSC0004 and exit 1 (no panic, no success).
#[test]
fn closed_stdout_fails_without_a_panic() {
    let d = dir();
    let src = d.join("closed_stdout.hlsl");
    std::fs::write(&src, PIXEL).expect("write");
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let o = bin()
        .args(["compile"])
        .arg(&src)
        .args(["-T", "ps_6_0", "--target", "spirv-asm"])
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("the binary runs");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("error[OSC0004]: cannot write stdout: the reader closed the pipe"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// Output files are written whole through a temporary file renamed over them: none is left
/// behind, and a path that is not a regular file (`-o /dev/null`) is written in place, never
/// replaced.
#[test]
fn outputs_are_renamed_into_place_and_devices_kept() {
    use std::os::unix::fs::FileTypeExt as _;
    let d = dir().join("whole");
    std::fs::create_dir_all(&d).expect("mkdir");
    let src = d.join("whole.hlsl");
    std::fs::write(&src, PIXEL).expect("write");
    let out = d.join("whole.spv");
    std::fs::write(&out, b"old").expect("write");
    let o = bin()
        .arg("compile")
        .arg(&src)
        .args(["-T", "ps_6_0", "-o"])
        .arg(&out)
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let words = std::fs::read(&out).expect("read");
    assert_eq!(
        &words[..4],
        &0x0723_0203u32.to_le_bytes(),
        "SPIR-V replaced the old file"
    );
    let left: Vec<String> = std::fs::read_dir(&d)
        .expect("ls")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
    let o = bin()
        .arg("compile")
        .arg(&src)
        .args(["-T", "ps_6_0", "-o", "/dev/null"])
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let meta = std::fs::metadata("/dev/null").expect("/dev/null exists");
    assert!(
        meta.file_type().is_char_device(),
        "/dev/null is still a device"
    );
}

/// A stderr nobody reads (`2>&1 | head` after head exited): the errors cannot be printed,
/// and the command still ends with exit 1, not a panic (101).
#[test]
fn closed_stderr_does_not_panic() {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let mut child = bin()
        .args(["compile", "-", "-T", "ps_6_0"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(writer)
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().expect("piped");
    stdin
        .write_all(b"float4 main() : SV_Target { return missing; }\n")
        .expect("writes");
    drop(stdin);
    let status = child.wait().expect("waits");
    assert_eq!(status.code(), Some(1));
}

/// A backend refusal is printed once, followed by one summary line with the count.
#[test]
fn a_backend_refusal_is_printed_once() {
    let o = run_with_stdin(
        &["compile", "-", "-T", "cs_6_0"],
        b"RWStructuredBuffer<float> o;\n[numthreads(1,1,1)] void main(uint i : SV_DispatchThreadID) { o[i] = ddx(o[i]); }\n",
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let codes: Vec<&str> = err
        .lines()
        .filter_map(|l| l.split("error[").nth(1))
        .filter_map(|rest| rest.split(']').next())
        .collect();
    let mut unique = codes.clone();
    unique.dedup();
    assert_eq!(codes, unique, "each diagnostic once: {err}");
    assert!(!err.contains("more error"), "{err}");
    let last = err.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("<stdin>: the backend refused the module (")
            && last.ends_with(&format!("{} errors)", codes.len())),
        "{err}"
    );
}
