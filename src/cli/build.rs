//! `oneshader build [MANIFEST] [-j N] [--json] [--shard I/N] [--cache-dir DIR] [--no-cache]
//! [--cache-max-size SIZE] [--remote-cache URL] [--remote-cache-upload] [--emit-ninja FILE]
//! [--emit-cmake FILE] [--out-dir DIR]`: every variant of a manifest (default
//! `oneshader.toml`), in parallel, through the content-addressed cache. The driver is the
//! library's ([`oneshader::build`]); this file reads the command line and shows progress.
//!
//! Progress: on a terminal, a bar with counts and ETA (indicatif), failures and warnings
//! printed above it; otherwise one line per failed variant followed by its diagnostics, each
//! block written at once, never interleaved. Then a summary line (`N variants: B built, C
//! cached, F failed in T s`). `--json` prints the report (variant, status, outputs, time,
//! cache hit, diagnostics) on standard output instead of the diagnostics.
//!
//! Exit codes: 0 every variant built, 1 a variant failed or the manifest is wrong, 2 usage.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use oneshader::build::{self, BuildOptions, Progress, Status, VariantReport};

/// Arguments of `oneshader build`.
#[derive(Args, Debug)]
pub struct BuildArgs {
    /// The manifest (docs/build.md).
    #[arg(default_value = "oneshader.toml")]
    pub manifest: PathBuf,
    /// Worker threads (default: the number of cores).
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    pub jobs: Option<usize>,
    /// Print the report as JSON on standard output.
    #[arg(long)]
    pub json: bool,
    /// Build only shard I of N (1-based): every N-th variant of the manifest, starting at the I-th.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<(usize, usize)>,
    /// The cache folder (default: $ONESHADER_CACHE, else target/oneshader-cache next to the manifest).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Build without reading or writing the cache.
    #[arg(long)]
    pub no_cache: bool,
    /// The cache's size cap: least recently used entries are removed beyond it (e.g. 500M, 2G; default 1G).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub cache_max_size: Option<u64>,
    /// A remote cache (Bazel's HTTP cache protocol) to read outputs from (default:
    /// $ONESHADER_REMOTE_CACHE, else the manifest's `[cache] remote`).
    #[arg(long, value_name = "URL")]
    pub remote_cache: Option<String>,
    /// Upload what this build compiles to the remote cache (default: off, or
    /// $ONESHADER_REMOTE_CACHE_UPLOAD, or the manifest's `[cache] upload`).
    #[arg(long)]
    pub remote_cache_upload: bool,
    /// Write a Ninja file with one `oneshader compile` edge per output instead of building.
    #[arg(long, value_name = "FILE")]
    pub emit_ninja: Option<PathBuf>,
    /// Write a CMake script listing every output with its `oneshader compile` arguments
    /// (for the CMake package's `oneshader_add_shaders`) instead of building.
    #[arg(long, value_name = "FILE", conflicts_with = "emit_ninja")]
    pub emit_cmake: Option<PathBuf>,
    /// The output folder instead of the manifest's `out_dir`.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

/// `I/N` with 1 <= I <= N.
fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let (i, n) = s
        .split_once('/')
        .ok_or_else(|| format!("`{s}`: expected I/N, e.g. 1/4"))?;
    let i: usize = i.parse().map_err(|_| format!("`{s}`: I is not a number"))?;
    let n: usize = n.parse().map_err(|_| format!("`{s}`: N is not a number"))?;
    if i == 0 || n == 0 || i > n {
        return Err(format!("`{s}`: need 1 <= I <= N"));
    }
    Ok((i, n))
}

/// A size in bytes: a number with an optional K, M, G or T suffix (powers of 1024; `KB`,
/// `KiB` are accepted too).
fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let upper = t.to_ascii_uppercase();
    let body = upper
        .strip_suffix("IB")
        .or_else(|| upper.strip_suffix('B'))
        .unwrap_or(&upper);
    let (digits, shift) = match body.chars().last() {
        Some('K') => (&body[..body.len() - 1], 10),
        Some('M') => (&body[..body.len() - 1], 20),
        Some('G') => (&body[..body.len() - 1], 30),
        Some('T') => (&body[..body.len() - 1], 40),
        _ => (body, 0),
    };
    let n: f64 = digits
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a size (e.g. 500M, 2G)"))?;
    if n.is_nan() || n < 0.0 || n.is_infinite() {
        return Err(format!("`{s}` is not a size"));
    }
    Ok((n * (1u64 << shift) as f64) as u64)
}

/// Progress on a terminal: a bar; failures and warnings printed above it.
struct Bar(ProgressBar);

impl Progress for Bar {
    fn start(&self, total: usize) {
        self.0.set_length(total as u64);
    }

    fn variant_done(&self, r: &VariantReport) {
        if let Some(text) = block(r) {
            self.0.suspend(|| {
                let mut err = std::io::stderr().lock();
                let _ = err.write_all(text.as_bytes());
            });
        }
        self.0.inc(1);
    }
}

/// Progress elsewhere: one line per failure (and per variant with warnings), each followed
/// by its diagnostics, written as one block.
struct Plain(Mutex<()>);

impl Progress for Plain {
    fn variant_done(&self, r: &VariantReport) {
        if let Some(text) = block(r) {
            let _guard = self.0.lock().unwrap_or_else(|e| e.into_inner());
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(text.as_bytes());
        }
    }
}

/// With `--json`, nothing until the report.
struct Quiet;

impl Progress for Quiet {}

/// The lines printed for a variant: its failure or its warnings.
fn block(r: &VariantReport) -> Option<String> {
    match r.status {
        Status::Failed => Some(format!("FAILED {}\n{}", r.variant, r.diagnostics)),
        _ if !r.diagnostics.is_empty() => {
            Some(format!("warnings in {}\n{}", r.variant, r.diagnostics))
        }
        _ => None,
    }
}

/// Runs `oneshader build`.
pub fn run(args: BuildArgs) -> ExitCode {
    let mut opts = BuildOptions::new(&args.manifest);
    opts.jobs = args.jobs;
    opts.cache_dir = args.cache_dir.clone();
    opts.use_cache = !args.no_cache;
    opts.cache_max_size = args.cache_max_size;
    opts.remote_cache = args.remote_cache.clone();
    opts.remote_cache_upload = args.remote_cache_upload.then_some(true);
    opts.shard = args.shard;
    opts.out_dir = args.out_dir.clone();
    if args.emit_ninja.is_some() || args.emit_cmake.is_some() {
        if args.remote_cache.is_some() || args.remote_cache_upload {
            // The emitted commands are `oneshader compile` runs, which have no remote cache.
            eprintln!(
                "error: --remote-cache and --remote-cache-upload apply to `oneshader build` itself, not to the `oneshader compile` commands of --emit-ninja and --emit-cmake"
            );
            return ExitCode::from(2);
        }
        if let Some(ninja) = &args.emit_ninja {
            return emit_ninja(&args, &opts, ninja);
        }
        if let Some(cmake) = &args.emit_cmake {
            return emit_cmake(&opts, cmake);
        }
    }
    let terminal = std::io::stderr().is_terminal() && !args.json;
    let bar = Bar(ProgressBar::hidden());
    let plain = Plain(Mutex::new(()));
    let progress: &dyn Progress = if args.json {
        &Quiet
    } else if terminal {
        bar.0
            .set_draw_target(indicatif::ProgressDrawTarget::stderr());
        bar.0.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} variants (ETA {eta})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        &bar
    } else {
        &plain
    };
    let report = match build::build_with_progress(&opts, progress) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(1);
        }
    };
    if terminal {
        bar.0.finish_and_clear();
    }
    for w in &report.warnings {
        eprintln!("{w}");
    }
    if args.json {
        let mut text = report.to_json();
        text.push('\n');
        let code = super::write_stdout(text.as_bytes());
        if code != ExitCode::SUCCESS {
            return code;
        }
    }
    eprintln!("{}", report.summary());
    if report.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The manifest and its planned variants (this shard's), or the exit code after printing
/// why not.
fn load_and_plan(opts: &BuildOptions) -> Result<(build::Manifest, Vec<build::Variant>), ExitCode> {
    let manifest = build::load_manifest(opts).map_err(|e| {
        eprintln!("{e}");
        ExitCode::from(1)
    })?;
    let variants = build::planned(&manifest, opts.shard).map_err(|e| {
        eprintln!("{e}");
        ExitCode::from(1)
    })?;
    Ok((manifest, variants))
}

/// `--emit-cmake FILE`: the outputs as CMake variables (src/build/cmake.rs).
fn emit_cmake(opts: &BuildOptions, file: &std::path::Path) -> ExitCode {
    let (manifest, variants) = match load_and_plan(opts) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let text = match build::cmake::cmake_file(&manifest, &variants) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error[OSD0007]: cannot write {}: {e}", file.display());
            return ExitCode::from(1);
        }
    };
    // Rewritten only when it changes, as outputs are.
    if std::fs::read(file).ok().as_deref() != Some(text.as_bytes())
        && let Err(e) = std::fs::write(file, text)
    {
        eprintln!("error[OSD0007]: cannot write {}: {e}", file.display());
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

fn emit_ninja(args: &BuildArgs, opts: &BuildOptions, ninja: &std::path::Path) -> ExitCode {
    let (manifest, variants) = match load_and_plan(opts) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("oneshader"));
    let abs = |p: &std::path::Path| {
        std::path::absolute(p)
            .unwrap_or_else(|_| p.to_path_buf())
            .display()
            .to_string()
    };
    let mut regenerate = vec![
        "build".to_string(),
        abs(&args.manifest),
        "--emit-ninja".to_string(),
        abs(ninja),
    ];
    if let Some((i, n)) = args.shard {
        regenerate.extend(["--shard".to_string(), format!("{i}/{n}")]);
    }
    if let Some(dir) = &args.out_dir {
        regenerate.extend(["--out-dir".to_string(), abs(dir)]);
    }
    let text = build::ninja::ninja_file(&manifest, &variants, &exe, ninja, &regenerate);
    if let Err(e) = std::fs::write(ninja, text) {
        eprintln!("error[OSD0007]: cannot write {}: {e}", ninja.display());
        return ExitCode::from(1);
    }
    let outputs: usize = variants.iter().map(|v| v.outputs.len()).sum();
    eprintln!(
        "wrote {} ({} variants, {outputs} compile edges)",
        ninja.display(),
        variants.len()
    );
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_shards_parse() {
        assert_eq!(parse_size("1024"), Ok(1024));
        assert_eq!(parse_size("2K"), Ok(2048));
        assert_eq!(parse_size("500M"), Ok(500 << 20));
        assert_eq!(parse_size("1.5G"), Ok(3 << 29));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert!(parse_size("lots").is_err());
        assert_eq!(parse_shard("2/4"), Ok((2, 4)));
        assert!(parse_shard("0/4").is_err());
        assert!(parse_shard("5/4").is_err());
        assert!(parse_shard("1").is_err());
    }
}
