//! `oneshader build`: every variant of a manifest (shaders x entry points x permutations x
//! targets), compiled in parallel, through a content-addressed cache that is never stale.
//!
//! ```text
//! oneshader.toml ──manifest──> Manifest ──plan──> [Variant] ──shard──> run in parallel:
//!   per file and define set: preprocess once -> keys (crate::key) -> cache lookups
//!   on a miss: parse once -> lower once per entry -> per spec-constant set: -O -> targets
//! ```
//!
//! The manifest format is documented in docs/build.md; the cache in [`cache`]; the keys in
//! [`crate::key`]. The same driver serves the command line (`oneshader build`) and a
//! `build.rs`:
//!
//! ```no_run
//! // build.rs of a crate that ships shaders
//! let report = oneshader::build::build(&oneshader::build::BuildOptions {
//!     cargo_rerun_if_changed: true,
//!     ..oneshader::build::BuildOptions::new("shaders/oneshader.toml")
//! })
//! .expect("the manifest is valid");
//! if !report.success() {
//!     panic!("{}", report.render_failures());
//! }
//! ```
//!
//! Outputs are written only when their bytes change (so a warm build touches nothing that
//! depends on them), always through a temporary file and a rename; a failed variant's old
//! outputs are removed, so nothing stale survives a failure. Outputs never contain paths or
//! times, and do not depend on the thread count: the same manifest gives the same bytes on
//! every machine.
//!
//! Diagnostics codes (docs/diagnostics.md):
//!
//! | code | meaning |
//! |---|---|
//! | OSD0001 | the manifest cannot be read |
//! | OSD0002 | the manifest is not valid TOML, or a field has a wrong name or type |
//! | OSD0003 | a manifest value does not make sense (unknown target, bad template, two variants writing one file...) |
//! | OSD0004 | the cache folder cannot be created (the build goes on without a cache, with a warning) |
//! | OSD0005 | an output cannot be written |
//! | OSD0006 | bad `--shard` |
//! | OSD0007 | the Ninja or CMake file cannot be written (or cannot express an argument) |
//! | OSD0008 | the remote cache: a bad setting (an error), or a server that failed or sent a blob that does not match its digest (a warning; the build goes on locally) |

pub mod cache;
pub mod cmake;
pub mod manifest;
pub mod ninja;
pub mod plan;
pub mod remote;
mod run;

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use crate::target::OutputKind;
pub use manifest::{CacheSettings, Manifest, ManifestError};
pub use plan::Variant;
pub use remote::{RemoteConfig, RemoteReport};
pub use run::build_variants;

/// The default cache size cap (1 GiB).
pub const DEFAULT_CACHE_MAX_SIZE: u64 = 1 << 30;

/// How to run a build.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// The manifest.
    pub manifest: PathBuf,
    /// Worker threads (`-j`); `None`: the number of cores.
    pub jobs: Option<usize>,
    /// The cache folder; `None`: `$ONESHADER_CACHE`, else `target/oneshader-cache` in the
    /// manifest's folder.
    pub cache_dir: Option<PathBuf>,
    /// Use the cache at all (`--no-cache` turns it off, the remote cache too).
    pub use_cache: bool,
    /// The remote cache's base URL (`--remote-cache`); `None`: `$ONESHADER_REMOTE_CACHE`,
    /// else the manifest's `[cache] remote`, else no remote cache.
    pub remote_cache: Option<String>,
    /// Upload to the remote cache (`--remote-cache-upload`); `None`:
    /// `$ONESHADER_REMOTE_CACHE_UPLOAD` (`1`/`true`/`0`/`false`), else the manifest's
    /// `[cache] upload`, else off.
    pub remote_cache_upload: Option<bool>,
    /// The cache's size cap in bytes. `None`: [`DEFAULT_CACHE_MAX_SIZE`], enforced after a
    /// build that wrote to the cache; `Some(n)`: `n`, enforced after every build (so a smaller
    /// cap trims the cache at once).
    pub cache_max_size: Option<u64>,
    /// Build only shard `I` of `N` (1-based), see [`plan::shard`].
    pub shard: Option<(usize, usize)>,
    /// The compiler identity the keys use; `None`: [`crate::key::compiler_identity`]. Tests
    /// change it to play a new compiler.
    pub identity: Option<String>,
    /// Print `cargo:rerun-if-changed=PATH` for the manifest and every file read (from a
    /// `build.rs`).
    pub cargo_rerun_if_changed: bool,
    /// The output folder instead of the manifest's `out_dir` (`--out-dir`; relative to the
    /// current folder), e.g. a CMake build tree.
    pub out_dir: Option<PathBuf>,
}

impl BuildOptions {
    /// Defaults for the manifest at `manifest`.
    pub fn new(manifest: impl Into<PathBuf>) -> BuildOptions {
        BuildOptions {
            manifest: manifest.into(),
            jobs: None,
            cache_dir: None,
            use_cache: true,
            remote_cache: None,
            remote_cache_upload: None,
            cache_max_size: None,
            shard: None,
            identity: None,
            cargo_rerun_if_changed: false,
            out_dir: None,
        }
    }

    /// The cache folder this build uses.
    pub fn resolved_cache_dir(&self) -> PathBuf {
        if let Some(d) = &self.cache_dir {
            return d.clone();
        }
        if let Some(d) = std::env::var_os("ONESHADER_CACHE").filter(|d| !d.is_empty()) {
            return PathBuf::from(d);
        }
        manifest_dir(&self.manifest)
            .join("target")
            .join("oneshader-cache")
    }

    /// The remote cache this build uses with `manifest`, if any: the options, then the
    /// environment, then the manifest's `[cache]` table, each setting on its own. The
    /// `Authorization` header's value is read from `$ONESHADER_REMOTE_CACHE_AUTH` (or the
    /// variable the manifest's `auth_env` names).
    pub fn resolved_remote(&self, manifest: &Manifest) -> Result<Option<RemoteConfig>, BuildError> {
        if !self.use_cache {
            return Ok(None);
        }
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let Some(url) = self
            .remote_cache
            .clone()
            .or_else(|| env("ONESHADER_REMOTE_CACHE"))
            .or_else(|| manifest.cache.remote.clone())
        else {
            return Ok(None);
        };
        let mut config = RemoteConfig::new(&url).map_err(BuildError::Remote)?;
        config.upload = match self.remote_cache_upload {
            Some(u) => u,
            None => match env("ONESHADER_REMOTE_CACHE_UPLOAD").as_deref() {
                Some("1" | "true" | "yes" | "on") => true,
                Some("0" | "false" | "no" | "off") => false,
                Some(other) => {
                    return Err(BuildError::Remote(format!(
                        "ONESHADER_REMOTE_CACHE_UPLOAD=`{other}`: expected 1, true, 0 or false"
                    )));
                }
                None => manifest.cache.upload.unwrap_or(false),
            },
        };
        let auth_env = manifest
            .cache
            .auth_env
            .as_deref()
            .unwrap_or(remote::DEFAULT_AUTH_ENV);
        config.authorization = env(auth_env);
        Ok(Some(config))
    }
}

/// The folder of a manifest path (empty for a bare file name: the current folder).
pub(crate) fn manifest_dir(manifest: &Path) -> PathBuf {
    manifest.parent().map(Path::to_path_buf).unwrap_or_default()
}

/// How a variant ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Compiled (some or all outputs were not in the cache).
    Built,
    /// Every output came from the cache.
    Cached,
    /// It failed; see [`VariantReport::diagnostics`].
    Failed,
}

/// What happened to one variant.
#[derive(Clone, Debug, serde::Serialize)]
pub struct VariantReport {
    /// The variant's name ([`Variant::id`]).
    pub variant: String,
    /// Its position in the manifest's variant list.
    pub index: usize,
    /// How it ended.
    pub status: Status,
    /// Its output files (written or already up to date), empty when it failed.
    pub outputs: Vec<PathBuf>,
    /// Time spent on it in its worker, in milliseconds (its share of shared preprocessing
    /// is not included).
    pub time_ms: f64,
    /// Every output came from the cache.
    pub cache_hit: bool,
    /// Every output came from the cache, and some from the remote cache (then written to
    /// the local one).
    pub remote_hit: bool,
    /// Rendered diagnostics: the errors of a failure, or the warnings of a success
    /// (replayed from the cache on a hit). Empty when there were none.
    pub diagnostics: String,
}

/// Receives progress as variants finish, from the worker threads (so implementations
/// serialize their output).
pub trait Progress: Sync {
    /// The build is about to run `total` variants.
    fn start(&self, total: usize) {
        let _ = total;
    }
    /// A variant finished.
    fn variant_done(&self, report: &VariantReport) {
        let _ = report;
    }
}

/// A [`Progress`] that reports nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}

/// What a build did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BuildReport {
    /// One report per variant of the (shard of the) manifest, in manifest order.
    pub variants: Vec<VariantReport>,
    /// Variants compiled.
    pub built: usize,
    /// Variants entirely from the cache.
    pub cached: usize,
    /// Variants that failed.
    pub failed: usize,
    /// Wall time of the whole build, in milliseconds.
    pub time_ms: f64,
    /// The manifest and every file the preprocessor read, sorted, each once.
    pub inputs: Vec<PathBuf>,
    /// The cache folder, when one was used.
    pub cache_dir: Option<PathBuf>,
    /// What the remote cache did, when one was used.
    pub remote: Option<RemoteReport>,
    /// Warnings about the build itself (e.g. a cache that could not be written).
    pub warnings: Vec<String>,
}

impl BuildReport {
    /// True when no variant failed.
    pub fn success(&self) -> bool {
        self.failed == 0
    }

    /// The one-line summary: `N variants: B built, C cached, F failed in T s`, with
    /// `C cached (R from the remote cache)` when a remote cache was used.
    pub fn summary(&self) -> String {
        let remote = match &self.remote {
            Some(r) => format!(" ({} from the remote cache)", r.hits),
            None => String::new(),
        };
        format!(
            "{} variant{}: {} built, {} cached{remote}, {} failed in {:.2} s",
            self.variants.len(),
            if self.variants.len() == 1 { "" } else { "s" },
            self.built,
            self.cached,
            self.failed,
            self.time_ms / 1e3
        )
    }

    /// Every failed variant's name and diagnostics.
    pub fn render_failures(&self) -> String {
        let mut out = String::new();
        for v in self.variants.iter().filter(|v| v.status == Status::Failed) {
            out.push_str(&format!("error: {} failed\n{}", v.variant, v.diagnostics));
        }
        out
    }

    /// `cargo:rerun-if-changed=PATH` lines for the manifest and every file read, what a
    /// `build.rs` prints ([`BuildOptions::cargo_rerun_if_changed`] prints them).
    pub fn cargo_rerun_if_changed(&self) -> String {
        self.inputs
            .iter()
            .map(|i| format!("cargo:rerun-if-changed={}\n", i.display()))
            .collect()
    }

    /// The report as JSON (`oneshader build --json`).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// Why a build could not run at all (a failing variant is not an error: see
/// [`BuildReport::failed`]).
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The manifest is wrong.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// `--shard I/N` out of range.
    #[error("error[OSD0006]: bad shard {index}/{count}: need 1 <= I <= N")]
    Shard {
        /// I.
        index: usize,
        /// N.
        count: usize,
    },
    /// A remote-cache setting is wrong (the URL, `ONESHADER_REMOTE_CACHE_UPLOAD`).
    #[error("error[OSD0008]: {0}")]
    Remote(String),
    /// The thread pool could not be made.
    #[error("error[OSD0005]: cannot start {jobs} worker threads: {message}")]
    Threads {
        /// The thread count asked for.
        jobs: usize,
        /// Why.
        message: String,
    },
}

/// Reads the manifest, plans its variants (the shard asked for) and builds them.
pub fn build(opts: &BuildOptions) -> Result<BuildReport, BuildError> {
    build_with_progress(opts, &NoProgress)
}

/// [`build`], telling `progress` as variants finish.
pub fn build_with_progress(
    opts: &BuildOptions,
    progress: &dyn Progress,
) -> Result<BuildReport, BuildError> {
    let manifest = load_manifest(opts)?;
    let variants = planned(&manifest, opts.shard)?;
    build_variants(&manifest, variants, opts, progress)
}

/// The manifest of `opts`, its output folder replaced by `opts.out_dir` when given.
pub fn load_manifest(opts: &BuildOptions) -> Result<Manifest, BuildError> {
    let mut manifest = manifest::load(&opts.manifest)?;
    if let Some(dir) = &opts.out_dir {
        manifest.out_dir = dir.clone();
    }
    Ok(manifest)
}

/// The manifest's variants, or the shard asked for.
pub fn planned(
    manifest: &Manifest,
    shard: Option<(usize, usize)>,
) -> Result<Vec<Variant>, BuildError> {
    let all = plan::plan(manifest)?;
    Ok(match shard {
        None => all,
        Some((index, count)) => {
            if index == 0 || count == 0 || index > count {
                return Err(BuildError::Shard { index, count });
            }
            plan::shard(all, index, count)
        }
    })
}

/// The time of a [`Duration`] in milliseconds.
pub(crate) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
