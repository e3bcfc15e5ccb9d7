//! `oneshader opt` and `oneshader interp` end to end: levels, pass lists, verification,
//! dumps, timing, fallback, and running functions with arguments.

use std::path::PathBuf;
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_oneshader"))
}

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("examples/ir")
        .join(format!("{name}.ir"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("oneshader-cli-opt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p
}

#[test]
fn opt_promotes_memory_at_o_and_keeps_it_at_o0() {
    let loops = example("loops");
    let loops = loops.to_str().expect("utf-8 path");
    let o = run(&["opt", "-O", loops]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(!text.contains("var"), "{text}");
    assert!(text.contains("func @nested"));
    // `-O` after the file, and dxc's spellings of the levels.
    for args in [
        vec!["opt", loops, "-O"],
        vec!["opt", "-O3", loops],
        vec!["opt", loops],
    ] {
        let o = run(&args);
        assert!(o.status.success());
        assert_eq!(stdout(&o), text, "{args:?}");
    }
    for level in ["-O0", "-Od"] {
        let o = run(&["opt", level, loops]);
        assert!(o.status.success());
        assert!(stdout(&o).contains("var"), "{level}");
    }
}

#[test]
fn opt_runs_a_pass_list_with_verification_dumps_and_timing() {
    let file = temp_file(
        "fold.ir",
        "func @f(%0: i32) -> i32 {\nbb0:\n  %1 = add i32 2, i32 3 : i32\n  %2 = mul %0, %1 : i32\n  %3 = xor %0, i32 7 : i32\n  return %2\n}\n",
    );
    let f = file.to_str().expect("utf-8 path");
    let o = run(&[
        "opt",
        f,
        "--passes",
        "combine,dce",
        "--verify-each",
        "--time-passes",
        "--print-after",
        "combine",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "func @f(%0: i32) -> i32 {\nbb0:\n  %1 = mul %0, i32 5 : i32\n  return %1\n}\n"
    );
    let err = stderr(&o);
    assert!(err.contains("// ---- after combine (run 1) ----"), "{err}");
    // The dump after combine still has the dead xor that dce removes later.
    assert!(err.contains("xor %0, i32 7"), "{err}");
    assert!(
        err.contains("combine") && err.contains("dce") && err.contains("total"),
        "{err}"
    );

    let out = file.with_extension("out.ir");
    let o = run(&["opt", f, "-o", out.to_str().expect("utf-8 path")]);
    assert!(o.status.success());
    assert!(stdout(&o).is_empty());
    let written = std::fs::read_to_string(&out).expect("written");
    assert!(written.contains("mul %0, i32 5"), "{written}");
}

#[test]
fn opt_rejects_unknown_passes_and_invalid_input() {
    let f = example("arith");
    let o = run(&[
        "opt",
        f.to_str().expect("utf-8"),
        "--passes",
        "combine,bogus",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("OSC0011"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("mem2reg"),
        "the message lists the known passes"
    );
    let o = run(&["opt", f.to_str().expect("utf-8"), "--print-after", "combin"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("OSC0011"), "{}", stderr(&o));

    let bad = temp_file("bad.ir", "func @f() -> i32 {\nbb0:\n  return f32 1.0\n}\n");
    let o = run(&["opt", bad.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("OSV"), "{}", stderr(&o));
}

#[test]
fn interp_runs_functions_with_arguments() {
    let cases: &[(&str, &str, &str, &str)] = &[
        ("loops", "@nested", "10", "i32 620"),
        ("if_else", "abs_diff", "-4,3", "i32 7"),
        ("arith", "@poly", "3,4", "f32 14.0"),
        ("switch", "@classify", "1", "i32 30"),
        (
            "intrinsics",
            "@shade",
            "(0, 0, 2), (0, 0.5, 1), 300",
            "vec<f32, 4> {f32 1.0, f32 1.0, f32 1.0, f32 2.75}",
        ),
    ];
    for (file, func, args, want) in cases {
        let f = example(file);
        let o = run(&[
            "interp",
            f.to_str().expect("utf-8"),
            "--func",
            func,
            "--args",
            args,
        ]);
        assert!(o.status.success(), "{file} {func}: {}", stderr(&o));
        assert_eq!(stdout(&o).trim(), *want, "{file} {func}");
    }
    // The optimized module gives the same answer.
    let o = run(&["opt", example("loops").to_str().expect("utf-8")]);
    let optimized = temp_file("loops_opt.ir", &stdout(&o));
    let o = run(&[
        "interp",
        optimized.to_str().expect("utf-8"),
        "--func",
        "nested",
        "--args",
        "10",
    ]);
    assert_eq!(stdout(&o).trim(), "i32 620");
}

#[test]
fn interp_reports_bad_arguments_and_runaway_programs() {
    let f = example("arith");
    let f = f.to_str().expect("utf-8");
    let o = run(&["interp", f, "--func", "@poly", "--args", "1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("OSC0021"), "{}", stderr(&o));
    let o = run(&["interp", f, "--func", "@poly", "--args", "x,1"]);
    assert!(stderr(&o).contains("not a valid f32"), "{}", stderr(&o));
    let o = run(&["interp", f, "--func", "@missing"]);
    assert!(stderr(&o).contains("OSC0020"), "{}", stderr(&o));

    let spin = temp_file(
        "spin.ir",
        "func @spin() -> void {\nbb0:\n  loop bb1, break bb3, continue bb2\nbb1:\n  br bb2\nbb2:\n  br bb1\nbb3:\n  return\n}\n",
    );
    let o = run(&[
        "interp",
        spin.to_str().expect("utf-8"),
        "--func",
        "spin",
        "--max-steps",
        "1000",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("OSC0022") && stderr(&o).contains("step limit"),
        "{}",
        stderr(&o)
    );
}

/// `oneshader opt big.ir | head`: the reader closes the pipe after a few lines. The command
/// must not panic; it fails (exit 1) with one OSC0004 line, as issue 30 asks of a closed
/// stdout, so a script with `pipefail` knows the output is incomplete.
#[test]
fn output_into_a_pipe_closed_early_fails_without_a_panic() {
    let mut text = String::from("func @f(%x: i32) -> i32 {\nbb0:\n  %v0 = add %x, i32 1 : i32\n");
    for k in 1..20_000 {
        text.push_str(&format!("  %v{k} = mul %v{}, %x : i32\n", k - 1));
    }
    text.push_str("  return %v19999\n}\n");
    let file = temp_file("pipe.ir", &text);
    for command in [&["opt", "-O0"][..], &["fmt"][..]] {
        let mut child = bin()
            .args(command)
            .arg(&file)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the binary runs");
        // Read one small piece (so the command has started writing), then hang up.
        let mut out = child.stdout.take().expect("piped");
        let mut first = [0u8; 16];
        std::io::Read::read_exact(&mut out, &mut first).expect("some output");
        assert_eq!(&first[..8], b"func @f(", "{command:?}");
        drop(out);
        let o = child.wait_with_output().expect("waits");
        let err = stderr(&o);
        assert!(!err.contains("panicked"), "{command:?}: {err}");
        assert_eq!(o.status.code(), Some(1), "{command:?}: {err}");
        assert_eq!(
            err.trim_end(),
            "error[OSC0004]: cannot write stdout: the reader closed the pipe",
            "{command:?}"
        );
    }
}
