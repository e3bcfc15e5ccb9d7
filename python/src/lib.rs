//! OneShader's Python module: `import oneshader`.
//!
//! A thin layer over the `oneshader` facade, built into a wheel by maturin
//! (python/pyproject.toml; docs/python.md is the user's guide):
//!
//! | Python | Rust |
//! |---|---|
//! | `compile(source, profile=..., args=[...])` | [`oneshader::Compiler::compile_source`] with [`oneshader::dxc_args::DxcArgs::parse`]'s options |
//! | `load_osir`, `save_osir` | [`oneshader::serialize::load`], [`oneshader::serialize::save_with`] |
//! | `link([modules])` | [`oneshader::passes::link::link`] |
//! | `emit(module, target)` | [`oneshader::Compiler::finish_module`] |
//! | `build(manifest)` | [`oneshader::build::build`] |
//!
//! Every failure the library reports is a Python exception: [`CompileError`] (with the
//! diagnostics as `Diagnostic` objects, their codes and positions) or its subclass
//! [`BuildError`]; a wrong argument type is pyo3's `TypeError`. Nothing here panics on bad
//! input (pyo3 would turn a panic into `PanicException`; the tests feed bad input to check
//! that it does not come to that).
//!
//! The GIL is released while the compiler runs, so Python threads can compile in parallel.
//!
//! Codes this module adds (docs/python.md): `OSC0050` for `args` it does not take (an input
//! file, output files: Python gets the outputs back) and an unknown `target`, `OSC0051` for
//! an output that cannot be produced (a disassembly or `.osir` image), `OSC0060` for `-WX`
//! with warnings. The rest come from the library.

// pyo3's `#[pyclass]`, `#[pyfunction]`, `#[pymodule]` and `create_exception!` expand to
// `unsafe` blocks and impls (FFI calls into the interpreter, `PyTypeInfo`); this crate writes
// no `unsafe` of its own.
#![allow(unsafe_code)]

mod compile;
mod diag;
mod manifest;
mod osir;

use pyo3::prelude::*;

pyo3::create_exception!(
    oneshader,
    CompileError,
    pyo3::exceptions::PyException,
    "A compilation (or an `.osir` load, a link, an emit) failed.\n\n\
     `str(e)` is the rendered diagnostics, as the command line prints them. Attributes:\n\
     `diagnostics` (a list of `Diagnostic`), `code` (the first error's code, e.g. `OSH1001`),\n\
     `phase` (`front-end`, `reflection`, `legalization`, `backend`, `specialization`, or\n\
     `None` when the failure is not a compilation's) and `summary` (one line)."
);

pyo3::create_exception!(
    oneshader,
    BuildError,
    CompileError,
    "A manifest build failed: the manifest is wrong (`code` OSD0001..OSD0008, `diagnostics`\n\
     with its position), or variants failed (`report` holds the build report as a dict,\n\
     `str(e)` every failed variant's diagnostics)."
);

/// The module's public names besides `__version__` (python/oneshader.pyi declares the same;
/// a test compares them).
const API: [&str; 12] = [
    "TARGETS",
    "CompileError",
    "BuildError",
    "Diagnostic",
    "CompileResult",
    "Module",
    "compile",
    "emit",
    "load_osir",
    "save_osir",
    "link",
    "build",
];

/// The `oneshader` Python module.
#[pymodule]
#[pyo3(name = "oneshader")]
fn oneshader_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("TARGETS", compile::targets())?;
    m.add("CompileError", py.get_type::<CompileError>())?;
    m.add("BuildError", py.get_type::<BuildError>())?;
    m.add_class::<diag::Diagnostic>()?;
    m.add_class::<compile::CompileResult>()?;
    m.add_class::<osir::Module>()?;
    m.add_function(wrap_pyfunction!(compile::compile, m)?)?;
    m.add_function(wrap_pyfunction!(compile::emit, m)?)?;
    m.add_function(wrap_pyfunction!(osir::load_osir, m)?)?;
    m.add_function(wrap_pyfunction!(osir::save_osir, m)?)?;
    m.add_function(wrap_pyfunction!(osir::link, m)?)?;
    m.add_function(wrap_pyfunction!(manifest::build, m)?)?;
    // maturin's package `__init__.py` re-exports with `from .oneshader import *`, which takes
    // `__all__`: `__version__` is named so it is re-exported too.
    let mut all = vec!["__version__"];
    all.extend(API);
    m.add("__all__", all)?;
    Ok(())
}
