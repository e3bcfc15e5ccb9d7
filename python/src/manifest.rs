//! `oneshader.build`: a manifest build (docs/build.md), what `oneshader build` runs.

use std::path::PathBuf;

use oneshader::build::{BuildError as RustBuildError, BuildOptions};
use pyo3::prelude::*;

use crate::compile::json_to_py;
use crate::diag::{Diagnostic, raise};

/// The code of a build error that is not the manifest's.
fn build_error_code(e: &RustBuildError) -> &'static str {
    match e {
        RustBuildError::Manifest(m) => m.code,
        RustBuildError::Shard { .. } => "OSD0006",
        RustBuildError::Remote(_) => "OSD0008",
        RustBuildError::Threads { .. } => "OSD0005",
    }
}

/// The first `error[CODE]` in rendered diagnostics.
fn first_code(rendered: &str) -> Option<&str> {
    let start = rendered.find("error[")? + "error[".len();
    let len = rendered[start..].find(']')?;
    Some(&rendered[start..start + len])
}

/// Builds every variant of a manifest (`oneshader.toml`, docs/build.md) as `oneshader build`
/// does, through the same cache. `jobs` is the worker-thread count (default: the cores),
/// `cache_dir` the cache folder (default `$ONESHADER_CACHE`, else `target/oneshader-cache`
/// beside the manifest), `use_cache=False` turns the cache off.
///
/// Returns the build report as a dict (docs/build.md's `--json`: `variants` with each
/// one's `variant`, `status`, `outputs`, `diagnostics`...; `built`, `cached`, `failed`,
/// `inputs`) with `summary`, the command line's last line, added. Raises `BuildError`
/// when the manifest is wrong (`code` OSD0001..OSD0008, a `Diagnostic` at its position) or
/// when a variant failed (`report` holds the dict, `str(e)` the failures).
#[pyfunction]
#[pyo3(signature = (manifest, *, jobs=None, cache_dir=None, use_cache=true))]
pub fn build(
    py: Python<'_>,
    manifest: PathBuf,
    jobs: Option<usize>,
    cache_dir: Option<PathBuf>,
    use_cache: bool,
) -> PyResult<Py<PyAny>> {
    let opts = BuildOptions {
        jobs,
        cache_dir,
        use_cache,
        ..BuildOptions::new(manifest)
    };
    let result = py.detach(move || oneshader::build::build(&opts));
    let report = match result {
        Ok(r) => r,
        Err(e) => {
            let diagnostic = match &e {
                RustBuildError::Manifest(m) => Diagnostic::plain(
                    m.code,
                    &m.message,
                    Some((m.file.display().to_string(), m.line, m.column)),
                ),
                other => {
                    let text = other.to_string();
                    let code = build_error_code(other);
                    // The message without its `error[CODE]: ` prefix.
                    let message = text
                        .split_once("]: ")
                        .map(|(_, m)| m.to_string())
                        .unwrap_or(text);
                    Diagnostic::plain(code, &message, None)
                }
            };
            return Err(raise::<crate::BuildError>(
                py,
                vec![diagnostic],
                None,
                e.to_string(),
            ));
        }
    };
    let dict = json_to_py(py, &report.to_json())?;
    dict.bind(py).set_item("summary", report.summary())?;
    if report.success() {
        return Ok(dict);
    }
    let failures = report.render_failures();
    let summary = report.summary();
    let mut rendered = failures.clone();
    rendered.push_str(&summary);
    rendered.push('\n');
    let code = first_code(&failures).unwrap_or_default().to_string();
    let diagnostic = Diagnostic {
        severity: "error".to_string(),
        code,
        message: summary.clone(),
        file: None,
        line: None,
        column: None,
        end_line: None,
        end_column: None,
        notes: Vec::new(),
        rendered,
    };
    let err = raise::<crate::BuildError>(py, vec![diagnostic], None, summary);
    err.value(py).setattr("report", dict)?;
    Err(err)
}
