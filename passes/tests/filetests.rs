//! IR filetests: every `.ir` file under `passes/filetests/` is one case, a module in IR text
//! with its run line and expectations in `//` comments (the IR's comment syntax, so the file
//! is also a module `oneshader fmt` and `oneshader opt` read). Cranelift's `.clif` filetests
//! are the model.
//!
//! ```text
//! // run: dce                 passes to run, comma-separated registry names, or -O / -O0
//! // Why the case exists.     any other comment is free text
//! func @f(...) { ... }        the input module
//!
//! // output:                  the expected module: every following `// ` line, without the
//! // func @f(...) { ... }     prefix (`//` alone is an empty line); parsed and printed before
//!                             the comparison, so value ids and labels may be any
//! // output: unchanged        or: the passes leave the input as it is
//! // check: TEXT              or/and: an output line contains TEXT, after the previous check's
//! // check-not: TEXT          no output line contains TEXT
//! ```
//!
//! The input must parse and verify; the passes run through the pass manager with verification
//! after each one. A file without an expectation fails: a case that only runs code checks
//! nothing. All failures are reported together, each with its file.

use std::path::{Path, PathBuf};

use oneshader_ir::parse::parse;
use oneshader_ir::print::print_module;
use oneshader_ir::verify::verify;
use oneshader_passes::manager::{Options, PassManager, PrintAfter};
use oneshader_passes::pipeline::{OptLevel, optimize, pass_by_name};

/// What a file expects of the output.
#[derive(Default)]
struct Expect {
    output: Option<String>,
    unchanged: bool,
    checks: Vec<String>,
    check_nots: Vec<String>,
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "ir") {
            out.push(p);
        }
    }
}

fn manager(run: &str) -> Result<PassManager, String> {
    let opts = Options {
        verify_each: true,
        print_after: PrintAfter::None,
    };
    let mut pm = match run {
        "-O" => optimize(OptLevel::O),
        "-O0" => optimize(OptLevel::O0),
        list => {
            let mut pm = PassManager::new();
            for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                pm.add(pass_by_name(name).ok_or_else(|| format!("unknown pass `{name}`"))?);
            }
            pm
        }
    };
    pm = pm.with_options(opts);
    Ok(pm)
}

fn parse_expect(text: &str) -> Result<(String, Expect), String> {
    let mut run = None;
    let mut e = Expect::default();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(c) = line.trim_start().strip_prefix("//") else {
            continue;
        };
        let c = c.strip_prefix(' ').unwrap_or(c);
        if let Some(r) = c.strip_prefix("run:") {
            if run.replace(r.trim().to_string()).is_some() {
                return Err("two `run:` lines".into());
            }
        } else if let Some(t) = c.strip_prefix("check-not:") {
            e.check_nots.push(t.trim().to_string());
        } else if let Some(t) = c.strip_prefix("check:") {
            e.checks.push(t.trim().to_string());
        } else if let Some(rest) = c.strip_prefix("output:") {
            if rest.trim() == "unchanged" {
                e.unchanged = true;
                continue;
            }
            let mut want = String::new();
            for l in lines.by_ref() {
                let Some(body) = l.trim_start().strip_prefix("//") else {
                    return Err(format!("a line of `output:` is not a comment: `{l}`"));
                };
                want.push_str(body.strip_prefix(' ').unwrap_or(body));
                want.push('\n');
            }
            e.output = Some(want);
        }
    }
    let run = run.ok_or("no `// run:` line")?;
    if e.output.is_none() && !e.unchanged && e.checks.is_empty() && e.check_nots.is_empty() {
        return Err("no expectation (`output:`, `check:` or `check-not:`)".into());
    }
    Ok((run, e))
}

fn module(text: &str, what: &str) -> Result<oneshader_ir::Module, String> {
    let m = parse(text).map_err(|d| format!("the {what} does not parse: {d:#?}"))?;
    let diags = verify(&m);
    if !diags.is_empty() {
        let d: Vec<String> = diags.iter().map(|d| d.to_string()).collect();
        return Err(format!("the {what} does not verify:\n{}", d.join("\n")));
    }
    Ok(m)
}

fn run_case(text: &str) -> Result<(), String> {
    let (run, e) = parse_expect(text)?;
    let mut m = module(text, "input")?;
    let input = print_module(&m);
    manager(&run)?.run(&mut m).map_err(|err| {
        let d: Vec<String> = err.diagnostics.iter().map(|d| d.to_string()).collect();
        format!("`{run}` failed: {err}\n{}", d.join("\n"))
    })?;
    let got = print_module(&m);
    let want = match (&e.output, e.unchanged) {
        (Some(w), _) => Some(print_module(&module(w, "expected output")?)),
        (None, true) => Some(input),
        (None, false) => None,
    };
    if let Some(want) = want
        && got != want
    {
        let first = got
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| got.lines().count().min(want.lines().count()));
        return Err(format!(
            "`{run}` gave an unexpected module (first difference at line {}):\n\
             --- got ---\n{got}--- expected ---\n{want}",
            first + 1
        ));
    }
    let out: Vec<&str> = got.lines().collect();
    let mut at = 0;
    for c in &e.checks {
        match out[at..].iter().position(|l| l.contains(c.as_str())) {
            Some(k) => at += k + 1,
            None => {
                return Err(format!(
                    "`check: {c}` matches no line after the previous check:\n{got}"
                ));
            }
        }
    }
    for c in &e.check_nots {
        if let Some(l) = out.iter().find(|l| l.contains(c.as_str())) {
            return Err(format!("`check-not: {c}` matches `{l}`:\n{got}"));
        }
    }
    Ok(())
}

#[test]
fn filetests() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("filetests");
    let mut all = Vec::new();
    files(&dir, &mut all);
    assert!(!all.is_empty(), "no .ir files under {}", dir.display());
    let failures: Vec<String> = all
        .iter()
        .filter_map(|p| {
            let text =
                std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            run_case(&text)
                .err()
                .map(|e| format!("{}: {e}", p.display()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} filetests failed:\n\n{}",
        failures.len(),
        all.len(),
        failures.join("\n\n")
    );
}

#[test]
fn the_harness_fails_what_it_should() {
    let input = "func @f() -> i32 {\nbb0:\n  %0 = add i32 1, i32 2 : i32\n  return %0\n}\n";
    // The right output passes; a wrong one, a missing check, a check-not hit, no expectation
    // and an unknown pass fail.
    let ok = format!(
        "// run: combine\n{input}\n// output:\n// func @f() -> i32 {{\n// bb0:\n//   return i32 3\n// }}\n"
    );
    run_case(&ok).expect("the right output");
    let wrong = ok.replace("i32 3", "i32 4");
    assert!(run_case(&wrong).unwrap_err().contains("unexpected module"));
    let check = format!("// run: combine\n// check: return i32 3\n{input}");
    run_case(&check).expect("the check holds");
    let missing = format!("// run: combine\n// check: add\n{input}");
    assert!(run_case(&missing).unwrap_err().contains("matches no line"));
    let not = format!("// run: dce\n// check-not: add\n{input}");
    assert!(run_case(&not).unwrap_err().contains("check-not"));
    let none = format!("// run: combine\n{input}");
    assert!(run_case(&none).unwrap_err().contains("no expectation"));
    let unknown = format!("// run: nope\n// output: unchanged\n{input}");
    assert!(run_case(&unknown).unwrap_err().contains("unknown pass"));
    let unchanged = format!("// run: dce\n// output: unchanged\n{input}");
    run_case(&unchanged).expect("dce keeps a used add");
    let o = format!("// run: -O\n// check: return i32 3\n{input}");
    run_case(&o).expect("-O folds");
}
