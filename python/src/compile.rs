//! `oneshader.compile` and `oneshader.emit`: HLSL (or a module) in, a target's bytes, the
//! reflection and the warnings out.

use std::collections::HashMap;

use oneshader::dxc_args::{DxcArgs, OutputKind};
use oneshader::{CompileOptions, CompileOutput, Compiler};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::diag::{Diagnostic, arg_error, compile_error, plain_error, raise};
use crate::osir::Module;

/// The names `target=` takes (the command line's `--target` values, the registry's names).
pub fn targets() -> Vec<&'static str> {
    OutputKind::names().collect()
}

/// What a successful compilation produced.
#[pyclass(module = "oneshader", frozen, get_all)]
pub struct CompileResult {
    /// The target's output as bytes: SPIR-V words (little-endian), an `.osir` image, or the
    /// UTF-8 text of a text target.
    pub output: Py<PyBytes>,
    /// The output as a `str` for the text targets (`spirv-asm`, `glsl`, `wgsl`, `msl`,
    /// `ir`, `reflection`); `None` for `spirv` and `osir`.
    pub text: Option<String>,
    /// The target's name (`"spirv"`, `"glsl"`, ...).
    pub target: String,
    /// The reflection as a dict (the JSON of docs/reflection.md), `None` when
    /// `reflect=False`.
    pub reflection: Py<PyAny>,
    /// Warnings and notes (errors raise `CompileError` instead), as `Diagnostic` objects.
    pub diagnostics: Vec<Diagnostic>,
    /// The entry point's stage (`"compute"`, `"fragment"`, ...), `None` for a library.
    pub stage: Option<String>,
    /// The module key (32 hex digits): a hash of every input and setting that decides the
    /// module, what `.osir` files carry.
    pub cache_key: String,
    /// Every file the preprocessor read, the main file first.
    pub inputs: Vec<String>,
}

#[pymethods]
impl CompileResult {
    /// The diagnostics that are warnings.
    #[getter]
    fn warnings(&self) -> Vec<Diagnostic> {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == "warning")
            .cloned()
            .collect()
    }

    /// Every diagnostic rendered, as the command line prints them (empty without any).
    #[getter]
    fn rendered(&self) -> String {
        self.diagnostics
            .iter()
            .map(|d| d.rendered.as_str())
            .collect()
    }

    /// `CompileResult(target='spirv', 1234 bytes, 0 diagnostics)`.
    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "CompileResult(target={:?}, {} bytes, {} diagnostics)",
            self.target,
            self.output.bind(py).as_bytes().len(),
            self.diagnostics.len()
        )
    }
}

/// The settings a call asks for beyond the [`CompileOptions`].
struct Request {
    opts: CompileOptions,
    kind: OutputKind,
    no_warnings: bool,
    warnings_as_errors: bool,
}

/// Reads `args` with the command line's parser, refusing what has no meaning in process:
/// an input file (the source is an argument of its own) and output files (the outputs are
/// returned).
fn read_args(
    py: Python<'_>,
    args: &[String],
    target: Option<&str>,
) -> PyResult<(DxcArgs, Request)> {
    let d = DxcArgs::parse(args).map_err(|e| arg_error(py, &e))?;
    let refuse = |what: &str| {
        Err(plain_error(
            py,
            "OSC0050",
            &format!("{what} in `args`: the outputs are returned, not written"),
        ))
    };
    if let Some(input) = &d.input {
        return Err(plain_error(
            py,
            "OSC0050",
            &format!(
                "`{}` in `args` is an input file: pass the source text as the first argument",
                input.display()
            ),
        ));
    }
    if d.output.is_some() {
        return refuse("an output file (`-Fo`/`-o`)");
    }
    if d.reflect.is_some() {
        return refuse("`--reflect FILE` (the reflection is `CompileResult.reflection`)");
    }
    if d.header.is_some() || d.listing.is_some() {
        return refuse("`-Fh`/`-Fc`");
    }
    if d.preprocess.is_some() {
        return refuse("`-P`");
    }
    if d.depfile || d.depfile_path.is_some() {
        return refuse("`-MD`/`-MF` (the files read are `CompileResult.inputs`)");
    }
    if d.help || d.version {
        return refuse("`--help`/`--version`");
    }
    let kind = match target {
        None => d.output_kind,
        Some(t) => OutputKind::from_name(t).ok_or_else(|| {
            plain_error(
                py,
                "OSC0050",
                &format!("unknown target `{t}` (targets: {})", targets().join(", ")),
            )
        })?,
    };
    let request = Request {
        opts: d.options.clone(),
        kind,
        no_warnings: d.no_warnings,
        warnings_as_errors: d.warnings_as_errors,
    };
    Ok((d, request))
}

/// Sets what the compilation produces for `kind`, as `oneshader compile` does.
fn apply_target(opts: &mut CompileOptions, kind: OutputKind, reflect: bool) {
    kind.configure(opts);
    opts.reflect |= reflect;
}

/// A successful compilation as a [`CompileResult`], or `CompileError` when `-WX` and there
/// are warnings or the output cannot be produced.
fn finish(py: Python<'_>, request: &Request, mut out: CompileOutput) -> PyResult<CompileResult> {
    let file = out.diagnostics.file.clone();
    if request.no_warnings {
        out.diagnostics.list.retain(|d| d.is_error());
    }
    let diagnostics: Vec<Diagnostic> = out
        .diagnostics
        .iter()
        .map(|d| Diagnostic::from_compiler(&out.diagnostics, d))
        .collect();
    if request.warnings_as_errors && !diagnostics.is_empty() {
        let n = diagnostics.len();
        let s = if n == 1 { "" } else { "s" };
        let message = format!("{n} warning{s} and `-WX` (warnings are errors)");
        let mut list = diagnostics;
        list.push(Diagnostic::plain(
            "OSC0060",
            &message,
            Some((file.clone(), 0, 0)),
        ));
        return Err(raise::<crate::CompileError>(
            py,
            list,
            None,
            format!("{file}: error[OSC0060]: {message}"),
        ));
    }
    let bytes = request
        .kind
        .bytes(&out)
        .map_err(|e| plain_error(py, "OSC0051", &format!("{file}: {e}")))?;
    // Text outputs are also given as text.
    let text = (!request.kind.is_binary())
        .then(|| String::from_utf8(bytes.clone()).ok())
        .flatten();
    let reflection = match &out.reflection {
        Some(r) => json_to_py(py, &r.to_json())?,
        None => py.None(),
    };
    Ok(CompileResult {
        output: PyBytes::new(py, &bytes).unbind(),
        text,
        target: request.kind.name().to_string(),
        reflection,
        diagnostics,
        stage: out.stage.map(|s| s.spelling().to_string()),
        cache_key: out.cache_key.to_hex(),
        inputs: out.inputs.iter().map(|p| p.display().to_string()).collect(),
    })
}

/// JSON text as Python values (`json.loads`).
pub fn json_to_py(py: Python<'_>, json: &str) -> PyResult<Py<PyAny>> {
    Ok(py.import("json")?.call_method1("loads", (json,))?.unbind())
}

/// Compiles HLSL source text.
///
/// `profile` is the shader profile (`"cs_6_0"`, `"ps_6_0"`, `"lib_6_3"`...) and `entry` the
/// entry point (default `"main"`); either may instead be given in `args` as `-T`/`-E`
/// (the keywords win). `target` is one of `TARGETS` (default `"spirv"`, or `args`'
/// `--target`). `args` are dxc-style options read exactly as `oneshader compile` reads
/// them (`["-O0", "-DN=4", "-fvk-b-shift", "1", "0", "-fspv-target-env=vulkan1.3"]`); an
/// option that does not parse or that OneShader refuses raises `CompileError` with its code
/// (`OSC0050`, `OSC0055`) and `option` set. `name` is the file name diagnostics use, and
/// `#include "x"` looks beside it. `includes` maps paths to in-memory include files (found
/// before files on disk); `filesystem=False` forbids reading files from disk. `reflect`
/// computes the reflection (`CompileResult.reflection`).
///
/// Returns a `CompileResult`; raises `CompileError` (with `diagnostics`, `code`, `phase`)
/// when the source has errors or a later phase fails.
#[pyfunction]
#[pyo3(
    signature = (source, *, profile=None, entry=None, target=None, args=Vec::new(), name="<string>".to_string(), includes=None, filesystem=true, reflect=true),
    text_signature = "(source, *, profile=None, entry=None, target=None, args=[], name='<string>', includes=None, filesystem=True, reflect=True)"
)]
#[allow(clippy::too_many_arguments)] // Python keyword arguments, each with a default.
pub fn compile(
    py: Python<'_>,
    source: String,
    profile: Option<String>,
    entry: Option<String>,
    target: Option<String>,
    args: Vec<String>,
    name: String,
    includes: Option<HashMap<String, String>>,
    filesystem: bool,
    reflect: bool,
) -> PyResult<CompileResult> {
    let (parsed, mut request) = read_args(py, &args, target.as_deref())?;
    match profile {
        Some(p) => request.opts.profile = p,
        None if !parsed.profile_given => {
            return Err(plain_error(
                py,
                "OSC0050",
                "no profile: pass `profile=\"cs_6_0\"` (or `-T` in `args`)",
            ));
        }
        None => {}
    }
    if let Some(e) = entry {
        request.opts.entry = e;
    }
    apply_target(&mut request.opts, request.kind, reflect);
    let mut compiler = Compiler::new();
    compiler.set_filesystem_access(filesystem);
    for (path, text) in includes.unwrap_or_default() {
        compiler.add_include(path, text);
    }
    let opts = request.opts.clone();
    let compiled = py.detach(move || compiler.compile_source(&name, source, &opts));
    match compiled {
        Ok(out) => finish(py, &request, out),
        Err(e) => Err(compile_error(py, &e)),
    }
}

/// Finishes a module (from `load_osir` or `link`) for a target, as `oneshader emit` does:
/// legalization, the optimizer (unless `-O0` is in `args`), the target's backend, and the
/// reflection when `reflect`. `target` and `args` are `compile`'s (the profile and entry
/// options do not apply: the module has its entry points). `name` names the module in
/// diagnostics. Returns a `CompileResult`; raises `CompileError`.
#[pyfunction]
#[pyo3(
    signature = (module, target="spirv".to_string(), *, args=Vec::new(), name="<module>".to_string(), reflect=true),
    text_signature = "(module, target='spirv', *, args=[], name='<module>', reflect=True)"
)]
pub fn emit(
    py: Python<'_>,
    module: PyRef<'_, Module>,
    target: String,
    args: Vec<String>,
    name: String,
    reflect: bool,
) -> PyResult<CompileResult> {
    let (_, mut request) = read_args(py, &args, Some(&target))?;
    apply_target(&mut request.opts, request.kind, reflect);
    let m = module.inner.clone();
    let opts = request.opts.clone();
    let finished = py.detach(move || Compiler::new().finish_module(&name, m, &opts));
    match finished {
        Ok(out) => finish(py, &request, out),
        Err(e) => Err(compile_error(py, &e)),
    }
}
