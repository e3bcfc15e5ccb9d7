//! `oneshader-oracle`: the differential oracle over the compute shaders of the HLSL corpus
//! (`cargo xtask oracle` builds and runs it; by hand, not in CI).
//!
//! ```text
//! oneshader-oracle corpus [--corpus DIR] [--seed N] [--filter TEXT] [--rows FILE] [--undefined FILE] [--timeout SECONDS] [--verbose]
//! oneshader-oracle row CORPUS PATH ENTRY PROFILE TARGET_ENV SEED [FLAGS...]
//! ```
//!
//! `corpus` reads `manifest.tsv`, keeps the `compute` rows, and runs each in a child
//! process (`row`), so a shader that hangs the GPU (a loop bounded by data) or crashes the
//! driver costs its own row only: a child that takes longer than the timeout (default 60 s)
//! is killed and its row counted as skipped. Each row is compiled with its own flags
//! (`-D`/`-U`/`-I`, `-HV`, `-enable-16bit-types`, the layout flags, `-Zpr`/`-Zpc`, binding
//! shifts, its target environment; other flags do not change our output), its buffers,
//! textures and push constants filled with seeded random data ([`oneshader_oracle::data`]),
//! run through every GPU voice of this build, and compared. The last line is the summary:
//! rows, run by every voice, agreeing, disagreeing, and skipped by reason.
//!
//! Rows whose sources compute undefined values (an uninitialized read, a race) are listed
//! with their reasons in `testing/oracle/undefined.tsv` (`--undefined FILE` names another
//! list): their disagreements are reported but not counted, so the exit code is 0 exactly
//! when every other row run by every voice agrees. `--rows FILE` runs only the rows whose
//! paths the file lists (one per line, `#` comments): `testing/oracle/ci-rows.txt` is the
//! fixed subset `cargo xtask test` runs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use oneshader::{
    BindingShift, BufferLayout, CompileOptions, MacroOp, MatrixOrder, OptLevel, TargetEnv,
};
use oneshader_oracle::{Case, Oracle, OracleError, Rules, Source, Voice, data};
use oneshader_vulkan_harness::Gpu;

const USAGE: &str = "usage: oneshader-oracle corpus [--corpus DIR] [--seed N] [--filter TEXT] [--rows FILE] [--undefined FILE] [--timeout SECONDS] [--verbose]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("corpus") => corpus(&args[1..]),
        Some("row") => row(&args[1..]),
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("oneshader-oracle: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Splits a shell-quoted flag string (the manifest's `extra_flags`).
fn shell_split(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut any = false;
    let mut quote: Option<char> = None;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (None, '\\') => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                    any = true;
                }
            }
            (None, c) if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            (None, c) => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The options of a corpus row: its profile, entry and target environment, and the flags
/// that change our output. `dxc` rows carry DXC's spellings; `glslang` rows
/// glslangValidator's, of which only `-D`, `-U` and `-I` apply.
fn options(
    corpus: &Path,
    path: &str,
    entry: &str,
    profile: &str,
    env: &str,
    flags: &[String],
) -> Result<CompileOptions, String> {
    let mut o = CompileOptions::new(profile).entry(entry);
    o.target_env = env
        .parse::<TargetEnv>()
        .map_err(|_| format!("unknown target environment `{env}`"))?;
    o.include_dirs.push(corpus.join("dxc/include"));
    let base = if path.starts_with("glslang/") {
        corpus.join("glslang")
    } else {
        corpus
            .join(path)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| corpus.to_path_buf())
    };
    let dxc = path.starts_with("dxc/");
    let mut i = 0;
    let next = |i: &mut usize| -> Option<String> {
        *i += 1;
        flags.get(*i).cloned()
    };
    while i < flags.len() {
        let f = flags[i].as_str();
        if let Some(v) = f.strip_prefix("-D") {
            let v = if v.is_empty() {
                next(&mut i).unwrap_or_default()
            } else {
                v.to_string()
            };
            o.macros.push(MacroOp::Define(v));
        } else if let Some(v) = f.strip_prefix("-U") {
            let v = if v.is_empty() {
                next(&mut i).unwrap_or_default()
            } else {
                v.to_string()
            };
            o.macros.push(MacroOp::Undef(v));
        } else if let Some(v) = f.strip_prefix("-I") {
            let v = if v.is_empty() {
                next(&mut i).unwrap_or_default()
            } else {
                v.to_string()
            };
            o.include_dirs.push(base.join(v));
        } else if dxc {
            match f {
                "-HV" => {
                    let v = next(&mut i).unwrap_or_default();
                    // `202x` is the next version: the newest we know.
                    o.hlsl_version = v.parse().unwrap_or(2021);
                }
                "-enable-16bit-types" => o.enable_16bit_types = true,
                "-Zpr" => o.matrix_order = MatrixOrder::RowMajor,
                "-Zpc" => o.matrix_order = MatrixOrder::ColumnMajor,
                "-fvk-use-gl-layout" => o.layout = BufferLayout::Gl,
                "-fvk-use-dx-layout" => o.layout = BufferLayout::Dx,
                "-fvk-use-scalar-layout" => o.layout = BufferLayout::Scalar,
                "-fvk-b-shift" | "-fvk-t-shift" | "-fvk-s-shift" | "-fvk-u-shift" => {
                    let class = f.chars().nth(5).unwrap_or('b');
                    let shift = next(&mut i).and_then(|v| v.parse().ok()).unwrap_or(0);
                    let space = next(&mut i).and_then(|v| v.parse().ok());
                    o.binding_shifts.push(BindingShift {
                        class,
                        shift,
                        space,
                    });
                }
                _ => {}
            }
        }
        i += 1;
    }
    Ok(o)
}

/// What one row came to.
enum Verdict {
    Agree,
    /// Every voice but the WGSL one agrees; the WGSL backend refused the shader (the first
    /// refusal's code).
    AgreeWithoutWgsl(String),
    Disagree(Vec<String>),
    /// Not run by every voice: the reason's category and the details.
    Skip(String, String),
}

/// Runs one row; prints the verdict as the last line: `AGREE`, `DISAGREE` (after the
/// disagreements) or `SKIP <category>\t<details>`.
fn row(args: &[String]) -> Result<ExitCode, String> {
    let [corpus, path, entry, profile, env, seed, flags @ ..] = args else {
        return Err("row CORPUS PATH ENTRY PROFILE TARGET_ENV SEED [FLAGS...]".into());
    };
    let corpus = PathBuf::from(corpus);
    let seed: u64 = seed.parse().map_err(|_| format!("seed `{seed}`"))?;
    let verdict = run_row(&corpus, path, entry, profile, env, seed, flags);
    match verdict {
        Verdict::Agree => println!("AGREE"),
        Verdict::AgreeWithoutWgsl(code) => println!("AGREE-NOWGSL {code}"),
        Verdict::Disagree(lines) => {
            for l in lines {
                println!("{l}");
            }
            println!("DISAGREE");
        }
        Verdict::Skip(category, details) => {
            println!("SKIP {category}\t{}", details.replace('\n', " | "))
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn run_row(
    corpus: &Path,
    path: &str,
    entry: &str,
    profile: &str,
    env: &str,
    seed: u64,
    flags: &[String],
) -> Verdict {
    let opts = match options(corpus, path, entry, profile, env, flags) {
        Ok(o) => o,
        Err(e) => return Verdict::Skip("flags".into(), e),
    };
    let source = Source::Hlsl {
        path: corpus.join(path),
        options: opts.clone(),
    };
    // Rows we do not compile are not oracle rows.
    if let Err(e) = oneshader::Compiler::new().compile_file(corpus.join(path), &opts) {
        let first = e
            .diagnostics
            .iter()
            .find(|d| d.severity == oneshader::Severity::Error)
            .map(|d| d.code.to_string())
            .unwrap_or_default();
        return Verdict::Skip("does not compile".into(), first);
    }
    let case = match Case::new(path, source.clone()) {
        Ok(c) => c,
        Err(e) => return Verdict::Skip("reflection".into(), e.to_string()),
    };
    let Some(size) = case.workgroup_size() else {
        return Verdict::Skip("no workgroup size".into(), String::new());
    };
    let inputs = match data::seeded(
        &case.reflection,
        seed,
        &data::InputOptions::for_workgroup(size),
    ) {
        Ok(i) => i,
        Err(e) => return Verdict::Skip("unsupported resource".into(), e.to_string()),
    };
    let gpu = match Gpu::try_new() {
        Ok(g) => g,
        Err(e) => return Verdict::Skip("no GPU".into(), e),
    };
    // The WGSL voice runs where the WGSL backend takes the shader; a refusal (what WGSL
    // cannot express) leaves the other voices to agree among themselves.
    let wgsl_refusal = match oneshader_oracle::voice::wgsl_text(OptLevel::O, &source) {
        Ok(_) => None,
        Err(e) => Some(
            e.split("error[")
                .nth(1)
                .and_then(|r| r.split(']').next())
                .unwrap_or("?")
                .to_string(),
        ),
    };
    let voices: Vec<Voice> = Voice::gpu_voices()
        .into_iter()
        .filter(|v| wgsl_refusal.is_none() || !matches!(v, Voice::Wgsl { .. }))
        .map(|v| match v {
            Voice::Spirv { level, .. } => Voice::Spirv {
                level,
                env: opts.target_env,
            },
            v => v,
        })
        .collect();
    match Oracle::new(&gpu).run(&case, &voices, &inputs, &Rules::new()) {
        Ok(report) if report.agrees() => match wgsl_refusal {
            None => Verdict::Agree,
            Some(code) => Verdict::AgreeWithoutWgsl(code),
        },
        Ok(report) => {
            Verdict::Disagree(report.disagreements.iter().map(|d| d.to_string()).collect())
        }
        Err(e) => {
            let category = match &e {
                OracleError::Compile { voice, .. } => format!("a voice does not compile ({voice})"),
                OracleError::Invalid { voice, .. } => format!("invalid program ({voice})"),
                OracleError::Unsupported(_) => "unsupported resource".into(),
                OracleError::Dispatch { voice, .. } => format!("dispatch failed ({voice})"),
                OracleError::Interp(_) | OracleError::NotGpu => "interpreter".into(),
            };
            let details: String = e.to_string().chars().take(400).collect();
            Verdict::Skip(category, details)
        }
    }
}

/// The paths a `--rows` file lists: one per line, blank lines and `#` comments ignored.
fn path_list(f: &Path) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
    Ok(text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect())
}

/// The rows whose sources compute undefined values, by path, with why: `path<TAB>reason`
/// lines, `#` comments.
fn undefined_rows(f: &Path) -> Result<BTreeMap<String, String>, String> {
    let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
    let mut out = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((path, reason)) = line.split_once('\t') else {
            return Err(format!(
                "{}:{}: expected `path<TAB>reason`",
                f.display(),
                n + 1
            ));
        };
        if reason.trim().is_empty() {
            return Err(format!("{}:{}: `{path}` has no reason", f.display(), n + 1));
        }
        out.insert(path.to_string(), reason.trim().to_string());
    }
    Ok(out)
}

fn corpus(args: &[String]) -> Result<ExitCode, String> {
    let mut dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .map(|d| d.join("../../../shared/corpus/hlsl"))
        .unwrap_or_else(|| PathBuf::from("../shared/corpus/hlsl"));
    let mut seed = 1u64;
    let mut filter = String::new();
    let mut timeout = Duration::from_secs(60);
    let mut verbose = false;
    let mut rows_file: Option<PathBuf> = None;
    let mut undefined_file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("undefined.tsv");
    let mut i = 0;
    while i < args.len() {
        let value = |i: &mut usize| -> Result<String, String> {
            *i += 1;
            args.get(*i).cloned().ok_or_else(|| USAGE.to_string())
        };
        match args[i].as_str() {
            "--corpus" => dir = PathBuf::from(value(&mut i)?),
            "--seed" => seed = value(&mut i)?.parse().map_err(|_| USAGE.to_string())?,
            "--filter" => filter = value(&mut i)?,
            "--timeout" => {
                timeout =
                    Duration::from_secs(value(&mut i)?.parse().map_err(|_| USAGE.to_string())?)
            }
            "--verbose" => verbose = true,
            "--rows" => rows_file = Some(PathBuf::from(value(&mut i)?)),
            "--undefined" => undefined_file = PathBuf::from(value(&mut i)?),
            _ => return Err(USAGE.to_string()),
        }
        i += 1;
    }
    let manifest = dir.join("manifest.tsv");
    let text = std::fs::read_to_string(&manifest)
        .map_err(|e| format!("{}: {e} (pass --corpus DIR)", manifest.display()))?;
    let dir = dir
        .canonicalize()
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    let only: Option<Vec<String>> = match &rows_file {
        None => None,
        Some(f) => Some(path_list(f)?),
    };
    let undefined = undefined_rows(&undefined_file)?;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let voices: Vec<String> = Voice::gpu_voices().iter().map(|v| v.to_string()).collect();
    println!("oracle: voices {}; seed {seed}", voices.join(", "));
    let (mut rows, mut agree, mut disagree, mut known_undefined) = (0, 0, 0, 0);
    // Rows the WGSL voice ran on and agreed, and the WGSL refusals by code.
    let mut wgsl_ran = 0;
    let mut wgsl_refused: BTreeMap<String, usize> = BTreeMap::new();
    let mut skipped: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut disagreements = Vec::new();
    for line in text.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 9 || cols[1] != "compute" || !cols[0].contains(&filter) {
            continue;
        }
        if only
            .as_ref()
            .is_some_and(|list| !list.iter().any(|p| p == cols[0]))
        {
            continue;
        }
        let (path, entry, profile, flags, env) = (cols[0], cols[2], cols[3], cols[4], cols[8]);
        rows += 1;
        // The child's output goes to files: a pipe nobody reads while waiting could fill.
        let out_path =
            std::env::temp_dir().join(format!("oneshader-oracle-{}.out", std::process::id()));
        let err_path =
            std::env::temp_dir().join(format!("oneshader-oracle-{}.err", std::process::id()));
        let file = |p: &Path| std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()));
        let mut cmd = Command::new(&exe);
        cmd.arg("row")
            .arg(&dir)
            .args([path, entry, profile, env, &seed.to_string()])
            .args(shell_split(flags))
            .stdout(Stdio::from(file(&out_path)?))
            .stderr(Stdio::from(file(&err_path)?));
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
        let start = Instant::now();
        let status = loop {
            match child.try_wait().map_err(|e| e.to_string())? {
                Some(s) => break Some(s),
                None if start.elapsed() > timeout => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break None;
                }
                None => std::thread::sleep(Duration::from_millis(20)),
            }
        };
        let out = std::fs::read_to_string(&out_path).unwrap_or_default();
        let err = std::fs::read_to_string(&err_path).unwrap_or_default();
        let last = out.lines().last().unwrap_or("").to_string();
        match status {
            None => {
                println!("skip (timed out after {} s): {path}", timeout.as_secs());
                skipped
                    .entry("timed out".into())
                    .or_default()
                    .push(path.to_string())
            }
            Some(s) if !s.success() || last.is_empty() => {
                let tail: Vec<&str> = err.lines().rev().take(3).collect();
                println!("skip (crashed, {s}): {path}: {}", tail.join(" | "));
                skipped
                    .entry("crashed".into())
                    .or_default()
                    .push(format!("{path} ({s})"))
            }
            Some(_) if last == "AGREE" => {
                agree += 1;
                wgsl_ran += 1;
                if verbose {
                    println!("agree: {path}");
                }
            }
            Some(_) if last.starts_with("AGREE-NOWGSL") => {
                agree += 1;
                let code = last.trim_start_matches("AGREE-NOWGSL").trim().to_string();
                *wgsl_refused.entry(code).or_default() += 1;
                if verbose {
                    println!("agree (no WGSL voice): {path}");
                }
            }
            Some(_) if last == "DISAGREE" => match undefined.get(path) {
                Some(reason) => {
                    known_undefined += 1;
                    println!("undefined (listed: {reason}): {path}");
                    if verbose {
                        for l in out.lines().filter(|l| *l != "DISAGREE") {
                            println!("  {l}");
                        }
                    }
                }
                None => {
                    disagree += 1;
                    for l in out.lines().filter(|l| *l != "DISAGREE") {
                        println!("DISAGREE {l}");
                        disagreements.push(l.to_string());
                    }
                }
            },
            Some(_) => {
                let rest = last.strip_prefix("SKIP ").unwrap_or(&last);
                let (category, details) = rest.split_once('\t').unwrap_or((rest, ""));
                if verbose || !category.starts_with("does not compile") {
                    println!("skip ({category}): {path}: {details}");
                }
                skipped
                    .entry(category.to_string())
                    .or_default()
                    .push(path.to_string());
            }
        }
    }
    let run = agree + disagree + known_undefined;
    let skipped_total: usize = skipped.values().map(Vec::len).sum();
    let reasons: Vec<String> = skipped
        .iter()
        .map(|(k, v)| format!("{} {k}", v.len()))
        .collect();
    println!(
        "oracle summary: {rows} compute rows; {run} run by every voice: {agree} agree, {disagree} disagree, {known_undefined} listed as undefined disagree; {skipped_total} skipped ({})",
        reasons.join(", ")
    );
    if let Some(list) = &only {
        // A fixed subset must run what it lists: a row that stops compiling or is renamed
        // would otherwise leave it quietly smaller.
        if rows != list.len() || run != rows {
            println!(
                "oracle: --rows lists {} rows; {rows} are compute rows of the manifest and {run} ran by every voice",
                list.len()
            );
            return Ok(ExitCode::FAILURE);
        }
    }
    let refused: Vec<String> = wgsl_refused
        .iter()
        .map(|(k, v)| format!("{v} {k}"))
        .collect();
    println!(
        "oracle WGSL voice: agrees on {wgsl_ran} of the {agree} agreeing rows; the WGSL backend \
         refused {} ({}); disagreements naming it are among the {disagree} above",
        wgsl_refused.values().sum::<usize>(),
        refused.join(", ")
    );
    Ok(if disagree == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
