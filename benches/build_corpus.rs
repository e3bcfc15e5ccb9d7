//! `oneshader build` on a big manifest against one process per variant: the example shaders
//! (examples/oneshader.toml, copied to a temporary folder) plus every vertex, pixel and compute
//! row of the HLSL corpus (../shared/corpus/hlsl, or `ONESHADER_CORPUS`) that compiles with its
//! defines and target environment. Everything is run as whole processes, as a user would:
//!
//! 1. the peer, `glslangValidator -D -V -S STAGE -e ENTRY` once per variant, 2 at a time;
//! 2. `oneshader compile` once per variant, 2 at a time (the options `--emit-ninja` would use);
//!    both write their outputs to files, as the build does;
//! 3. cold `oneshader build -j 2` (a new cache and output folder each time), the same with
//!    `--no-cache`, and the same with outputs and cache on tmpfs (`/dev/shm`), three of each;
//! 4. warm `oneshader build -j 2` with nothing changed (median of 5);
//! 5. after touching `lighting.hlsli` (modification time only), and after editing it (it is
//!    included by the `lit.hlsl` variants only);
//! 6. `oneshader compile ... -o /dev/null` one process at a time: the median wall time per
//!    process and the CPU time per process; with `ONESHADER_BENCH_BIN=PATH`, that binary too, alternated file by
//!    file with this one (three runs each), to compare builds of the compiler in one run.
//!
//! By hand (not a criterion bench: one figure per corpus): `cargo bench --bench build_corpus`.
//! `ONESHADER_BENCH_LIMIT=N` takes the first N corpus rows; `ONESHADER_BENCH_BIN=PATH` adds
//! another `oneshader` binary to step 6; `ONESHADER_BENCH_DIR=DIR`
//! works in DIR (emptied first) and keeps the manifest, the outputs and the cache.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use oneshader::build::{self, OutputKind};

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Runs the commands, `jobs` at a time; the wall time of the whole batch and how many
/// succeeded.
fn run_parallel(cmds: &[Vec<String>], jobs: usize, dir: &Path) -> (Duration, usize, (f64, f64)) {
    let cpu = children_cpu();
    let next = Mutex::new(0usize);
    let ok = Mutex::new(0usize);
    let t = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| {
                loop {
                    let i = {
                        let mut n = next.lock().unwrap();
                        let i = *n;
                        *n += 1;
                        i
                    };
                    let Some(c) = cmds.get(i) else { break };
                    let status = Command::new(&c[0])
                        .args(&c[1..])
                        .current_dir(dir)
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .status();
                    if status.is_ok_and(|s| s.success()) {
                        *ok.lock().unwrap() += 1;
                    }
                }
            });
        }
    });
    (t.elapsed(), ok.into_inner().unwrap(), cpu_since(cpu))
}

fn oneshader_build(
    exe: &Path,
    manifest: &Path,
    cache: &Path,
    extra: &[&str],
) -> (Duration, String) {
    oneshader_build_cpu(exe, manifest, cache, extra).0
}

/// [`oneshader_build`] and the CPU time it took (user + system).
fn oneshader_build_cpu(
    exe: &Path,
    manifest: &Path,
    cache: &Path,
    extra: &[&str],
) -> ((Duration, String), (f64, f64)) {
    let cpu = children_cpu();
    let r = oneshader_build_wall(exe, manifest, cache, extra);
    (r, cpu_since(cpu))
}

fn oneshader_build_wall(
    exe: &Path,
    manifest: &Path,
    cache: &Path,
    extra: &[&str],
) -> (Duration, String) {
    let t = Instant::now();
    let out = Command::new(exe)
        .arg("build")
        .arg(manifest)
        .args(["-j", "2", "--cache-dir"])
        .arg(cache)
        .args(extra)
        .output()
        .expect("oneshader runs");
    let took = t.elapsed();
    let summary = String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()
        .unwrap_or("")
        .to_string();
    (took, summary)
}

/// The CPU time of this process's waited-for children so far, in ms: (user, system) (Linux:
/// fields 16 and 17 of /proc/self/stat, in clock ticks of 10 ms); zero elsewhere.
fn children_cpu() -> (f64, f64) {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return (0.0, 0.0);
    };
    // Fields after the command name, which is in parentheses and may contain spaces.
    let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
        return (0.0, 0.0);
    };
    let f: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state): cutime is field 16, cstime field 17.
    let tick = |i: usize| {
        f.get(i - 3)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (tick(16) * 10.0, tick(17) * 10.0)
}

/// Children's CPU time since `since`: (user, system).
fn cpu_since(since: (f64, f64)) -> (f64, f64) {
    let now = children_cpu();
    (now.0 - since.0, now.1 - since.1)
}

/// Children's total CPU time so far (user + system).
fn children_cpu_ms() -> f64 {
    let (u, s) = children_cpu();
    u + s
}

fn toml_str(s: &str) -> String {
    format!("{s:?}")
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = std::env::var_os("ONESHADER_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/corpus/hlsl"));
    let corpus = std::path::absolute(&corpus).unwrap();
    let manifest_tsv = std::fs::read_to_string(corpus.join("manifest.tsv")).unwrap_or_else(|e| {
        eprintln!("build_corpus: cannot read the corpus manifest: {e} (set ONESHADER_CORPUS)");
        std::process::exit(2);
    });
    let limit: usize = std::env::var("ONESHADER_BENCH_LIMIT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(usize::MAX);
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_oneshader"));
    let compile_exe = exe.clone();
    let other_exe = std::env::var_os("ONESHADER_BENCH_BIN").map(PathBuf::from);
    // `ONESHADER_BENCH_DIR`: work there and keep the files (the manifest, outputs, cache).
    let work = tempfile::tempdir().unwrap();
    let kept = std::env::var_os("ONESHADER_BENCH_DIR").map(PathBuf::from);
    if let Some(k) = &kept {
        let _ = std::fs::remove_dir_all(k);
        std::fs::create_dir_all(k).unwrap();
    }
    let dir = kept.as_deref().unwrap_or(work.path());
    // The examples, copied so that a header can be edited.
    std::fs::create_dir_all(dir.join("hlsl")).unwrap();
    for f in std::fs::read_dir(root.join("examples/hlsl")).unwrap() {
        let f = f.unwrap();
        std::fs::copy(f.path(), dir.join("hlsl").join(f.file_name())).unwrap();
    }
    let examples = std::fs::read_to_string(root.join("examples/oneshader.toml")).unwrap();
    // The corpus rows, one [[shader]] each, with their own output names.
    let mut rows = String::new();
    let mut n = 0;
    for line in manifest_tsv.lines().skip(1) {
        if n >= limit {
            break;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let [path, stage, entry, profile, flags, ..] = cols[..] else {
            continue;
        };
        if !matches!(stage, "vertex" | "fragment" | "compute") || entry.is_empty() {
            continue;
        }
        let env = cols.get(8).copied().unwrap_or("vulkan1.0");
        let defines: Vec<String> = flags
            .split_whitespace()
            .filter_map(|f| f.strip_prefix("-D").filter(|d| !d.is_empty()))
            .map(toml_str)
            .collect();
        rows.push_str(&format!(
            "\n[[shader]]\nfile = {}\nentry = {}\nprofile = {}\ntarget_env = {}\ndefines = [{}]\ninclude_dirs = [{}]\noutput = \"corpus/row{n:04}.{{ext}}\"\ntargets = [\"spirv\"]\n",
            toml_str(&corpus.join(path).display().to_string()),
            toml_str(entry),
            toml_str(profile),
            toml_str(env),
            defines.join(", "),
            toml_str(&corpus.join("dxc/include").display().to_string()),
        ));
        n += 1;
    }
    let manifest = dir.join("all.toml");
    std::fs::write(&manifest, format!("{examples}{rows}")).unwrap();
    // Keep the variants that compile.
    let report = build::build(&build::BuildOptions {
        use_cache: false,
        jobs: Some(2),
        ..build::BuildOptions::new(&manifest)
    })
    .expect("the generated manifest is valid");
    let failed: std::collections::HashSet<usize> = report
        .variants
        .iter()
        .filter(|v| v.status == build::Status::Failed)
        .map(|v| v.index)
        .collect();
    let m = build::manifest::load(&manifest).unwrap();
    let all = build::planned(&m, None).unwrap();
    // Rebuild the manifest text without the shaders whose variants failed.
    let failed_shaders: std::collections::HashSet<usize> = all
        .iter()
        .filter(|v| failed.contains(&v.index))
        .map(|v| v.shader)
        .collect();
    let mut kept = String::new();
    let mut shader = 0usize;
    let text = std::fs::read_to_string(&manifest).unwrap();
    for (i, chunk) in text.split("\n[[shader]]\n").enumerate() {
        if i == 0 {
            kept.push_str(chunk);
            continue;
        }
        if !failed_shaders.contains(&shader) {
            kept.push_str("\n[[shader]]\n");
            kept.push_str(chunk);
        }
        shader += 1;
    }
    let manifest = dir.join("oneshader.toml");
    std::fs::write(&manifest, &kept).unwrap();
    let m = build::manifest::load(&manifest).unwrap();
    let variants = build::planned(&m, None).unwrap();
    let corpus_rows = variants
        .iter()
        .filter(|v| v.file.starts_with(&corpus))
        .count();
    println!(
        "variants: {} ({} corpus rows that compile, {} from examples/oneshader.toml); {} variants left out because they fail",
        variants.len(),
        corpus_rows,
        variants.len() - corpus_rows,
        failed.len()
    );

    // 1. glslangValidator per variant, 2 at a time.
    // The peers write their outputs to files too, as the build does (creating files is not
    // free on a busy file system).
    for d in ["peer-glslang", "peer-compile"] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    let glslang: Vec<Vec<String>> = variants
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let stage = match &v.entry.profile[..2] {
                "vs" => "vert",
                "ps" => "frag",
                _ => "comp",
            };
            let mut c = vec![
                "glslangValidator".to_string(),
                "-D".into(),
                "-V".into(),
                "-S".into(),
                stage.into(),
                "-e".into(),
                v.entry.name.clone(),
            ];
            let env = v.options.target_env.to_string();
            if env.starts_with("vulkan1.") && !env.contains("spirv") {
                c.extend(["--target-env".into(), env]);
            }
            for mo in &v.options.macros {
                if let oneshader::MacroOp::Define(d) = mo {
                    c.push(format!("-D{d}"));
                }
            }
            for i in &v.options.include_dirs {
                c.push(format!("-I{}", i.display()));
            }
            c.push(v.file.display().to_string());
            c.extend(["-o".into(), format!("peer-glslang/{i}.spv")]);
            c
        })
        .collect();
    let (glslang_wall, glslang_ok, glslang_cpu) = run_parallel(&glslang, 2, dir);
    // 3. oneshader compile per variant (the first target of each), 2 at a time.
    let compile_cmds: Vec<Vec<String>> = variants
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let mut c = vec![
                compile_exe.display().to_string(),
                "compile".into(),
                v.file.display().to_string(),
            ];
            c.extend(build::ninja::compile_args(&v.options, OutputKind::Spirv));
            c.extend(["-o".into(), format!("peer-compile/{i}.spv")]);
            c
        })
        .collect();
    let (compile_wall, compile_ok, compile_cpu) = run_parallel(&compile_cmds, 2, dir);
    // 3. Cold builds, three of each, each into a new output folder and a new cache (nothing
    // is deleted in between: ext4 allocates inodes slowly right after a large deletion).
    let kept_text = std::fs::read_to_string(&manifest).unwrap();
    let run_manifest = |name: &str| {
        let m = dir.join(format!("{name}.toml"));
        std::fs::write(&m, format!("out_dir = \"{name}\"\n{kept_text}")).unwrap();
        m
    };
    let mut colds = Vec::new();
    let mut cold_cpus = Vec::new();
    let mut cold_summary = String::new();
    for i in 0..3 {
        let ((t, summary), cpu) = oneshader_build_cpu(
            &exe,
            &run_manifest(&format!("cold{i}")),
            &dir.join(format!("cache{i}")),
            &[],
        );
        colds.push(ms(t));
        cold_cpus.push(cpu);
        cold_summary = summary;
    }
    // The run with the median wall time.
    let mid = (0..3)
        .find(|&i| colds[i] == median(colds.clone()))
        .unwrap_or(0);
    let cold_cpu = cold_cpus[mid];
    let nocaches: Vec<f64> = (0..3)
        .map(|i| {
            ms(oneshader_build(
                &exe,
                &run_manifest(&format!("nocache{i}")),
                &dir.join("unused"),
                &["--no-cache"],
            )
            .0)
        })
        .collect();
    let (cold, nocache) = (median(colds.clone()), median(nocaches.clone()));
    // The same cold build with its outputs and cache in memory (tmpfs), where creating a file
    // costs microseconds whatever the disk's state.
    let shm = Path::new("/dev/shm")
        .is_dir()
        .then(|| tempfile::tempdir_in("/dev/shm").ok())
        .flatten();
    let shm_cold = shm.as_ref().map(|t| {
        let runs: Vec<f64> = (0..3)
            .map(|i| {
                let out = t.path().join(format!("out{i}"));
                let m = dir.join(format!("shm{i}.toml"));
                std::fs::write(
                    &m,
                    format!(
                        "out_dir = {}\n{kept_text}",
                        toml_str(&out.display().to_string())
                    ),
                )
                .unwrap();
                ms(oneshader_build(&exe, &m, &t.path().join(format!("cache{i}")), &[]).0)
            })
            .collect();
        (median(runs.clone()), runs)
    });
    // 4. Warm builds.
    let manifest = dir.join("cold0.toml");
    let cache = dir.join("cache0");
    let warm: Vec<f64> = (0..5)
        .map(|_| ms(oneshader_build(&exe, &manifest, &cache, &[]).0))
        .collect();
    let (_, warm_summary) = oneshader_build(&exe, &manifest, &cache, &[]);
    // 5. A header touched, then edited.
    let header = dir.join("hlsl/lighting.hlsli");
    let text = std::fs::read_to_string(&header).unwrap();
    std::fs::write(&header, &text).unwrap();
    let (touched, touched_summary) = oneshader_build(&exe, &manifest, &cache, &[]);
    std::fs::write(&header, format!("{text}\n// edited\n")).unwrap();
    let (edited, edited_summary) = oneshader_build(&exe, &manifest, &cache, &[]);
    // 6. One process at a time, this binary and (with ONESHADER_BENCH_BIN) another one
    // alternated file by file, three runs each; wall time per process, and the children's
    // CPU time (user + system, from /proc/self/stat) per binary.
    let mut bins = vec![("this build", compile_exe.clone())];
    if let Some(o) = &other_exe {
        bins.push(("ONESHADER_BENCH_BIN", o.clone()));
    }
    let mut per: Vec<Vec<f64>> = vec![Vec::new(); bins.len()];
    let mut cpu: Vec<f64> = vec![0.0; bins.len()];
    // To /dev/null: the process's own cost, not the file system's (writing over an existing
    // output makes ext4 flush it on close).
    let null_cmds: Vec<Vec<String>> = compile_cmds
        .iter()
        .map(|c| {
            let mut c = c.clone();
            if let Some(last) = c.last_mut() {
                *last = "/dev/null".into();
            }
            c
        })
        .collect();
    for c in &null_cmds {
        let mut runs: Vec<Vec<f64>> = vec![Vec::new(); bins.len()];
        for _ in 0..3 {
            for (b, (_, bin)) in bins.iter().enumerate() {
                let before = children_cpu_ms();
                let t = Instant::now();
                let _ = Command::new(bin)
                    .args(&c[1..])
                    .current_dir(dir)
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status();
                runs[b].push(ms(t.elapsed()));
                cpu[b] += children_cpu_ms() - before;
            }
        }
        for (b, r) in runs.into_iter().enumerate() {
            per[b].push(median(r));
        }
    }
    let mut version: Vec<Vec<f64>> = vec![Vec::new(); bins.len()];
    let mut truth: Vec<f64> = Vec::new();
    for _ in 0..200 {
        for (b, (_, bin)) in bins.iter().enumerate() {
            let t = Instant::now();
            let _ = Command::new(bin)
                .arg("--version")
                .stdout(Stdio::null())
                .status();
            version[b].push(ms(t.elapsed()));
        }
        let t = Instant::now();
        let _ = Command::new("true").status();
        truth.push(ms(t.elapsed()));
    }

    let v = variants.len() as f64;
    println!("| what | wall time | per variant | ratio |");
    println!("|---|---:|---:|---:|");
    println!(
        "| cold `oneshader build -j 2`, median of 3 ({cold_summary}; runs {colds:.0?} ms) | {cold:.0} ms | {:.3} ms | 1 |",
        cold / v
    );
    println!(
        "| cold `oneshader build -j 2 --no-cache`, median of 3 (runs {nocaches:.0?} ms) | {nocache:.0} ms | {:.3} ms | {:.2}x |",
        nocache / v,
        nocache / cold
    );
    if let Some((t, runs)) = &shm_cold {
        println!(
            "| cold `oneshader build -j 2`, outputs and cache on tmpfs, median of 3 (runs {runs:.0?} ms) | {t:.0} ms | {:.3} ms | {:.2}x |",
            t / v,
            t / cold
        );
    }
    println!(
        "| `glslangValidator` per variant, 2 at a time ({glslang_ok} of {} accepted) | {:.0} ms | {:.2} ms | **{:.1}x slower** |",
        variants.len(),
        ms(glslang_wall),
        ms(glslang_wall) / v,
        ms(glslang_wall) / cold
    );
    println!(
        "| `oneshader compile` per variant, 2 at a time ({compile_ok} of {} succeeded) | {:.0} ms | {:.2} ms | **{:.1}x slower** |",
        variants.len(),
        ms(compile_wall),
        ms(compile_wall) / v,
        ms(compile_wall) / cold
    );
    println!(
        "| CPU time, user / system: cold build (the median run) / glslangValidator / `oneshader compile` | {:.0} / {:.0} ms, {:.0} / {:.0} ms, {:.0} / {:.0} ms | – | user: 1 / **{:.1}x** / **{:.1}x** |",
        cold_cpu.0,
        cold_cpu.1,
        glslang_cpu.0,
        glslang_cpu.1,
        compile_cpu.0,
        compile_cpu.1,
        glslang_cpu.0 / cold_cpu.0,
        compile_cpu.0 / cold_cpu.0
    );
    println!(
        "| warm `oneshader build -j 2`, nothing changed (median of 5; {warm_summary}) | {:.0} ms | {:.3} ms | – |",
        median(warm.clone()),
        median(warm) / v
    );
    println!(
        "| after touching lighting.hlsli (modification time only; {touched_summary}) | {:.0} ms | – | – |",
        ms(touched)
    );
    println!(
        "| after editing lighting.hlsli ({edited_summary}) | {:.0} ms | – | – |",
        ms(edited)
    );
    for (b, (name, bin)) in bins.iter().enumerate() {
        println!(
            "| `oneshader compile` ({name}: {}), one process at a time, alternated: median of the per-file medians of 3 / CPU per process | – | {:.2} ms / {:.2} ms CPU | – |",
            bin.display(),
            median(per[b].clone()),
            cpu[b] / (3.0 * variants.len() as f64)
        );
        println!(
            "| `oneshader --version` ({name}): median of 200 | – | {:.2} ms | – |",
            median(version[b].clone())
        );
    }
    println!(
        "| `true`: median of 200 | – | {:.2} ms | – |",
        median(truth)
    );
}
