//! `.osir` modules: `load_osir`, `save_osir`, `link` (docs/osir.md, docs/linking.md).

use oneshader::ir::Module as IrModule;
use oneshader::passes::link::LinkOptions;
use oneshader::serialize::{self, CacheKey, LoadOptions, SaveOptions, SourceLocations};
use pyo3::exceptions::PyUserWarning;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::diag::{Diagnostic, raise};

/// An IR module: loaded from an `.osir` image (`load_osir`) or linked (`link`); `emit`
/// turns it into a target's output, `save_osir` into an `.osir` image again.
#[pyclass(module = "oneshader", frozen)]
pub struct Module {
    /// The module.
    pub inner: IrModule,
    /// The module key its file carried ([`CacheKey::NONE`] for a linked module).
    key: CacheKey,
    /// The file's source map, kept to be saved again.
    source_map: Option<SourceLocations>,
}

#[pymethods]
impl Module {
    /// The module key its `.osir` file carried (32 hex digits; zeros for a linked module).
    #[getter]
    fn cache_key(&self) -> String {
        self.key.to_hex()
    }

    /// The module as IR text (the `.ir` form, docs/ir.md).
    fn text(&self) -> String {
        oneshader::ir::print::print_module(&self.inner)
    }

    /// The names of the module's exports (`export("NAME")`), in module order.
    #[getter]
    fn exports(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        self.symbols(py, serialize::SymbolKind::Export)
    }

    /// The names of the module's imports (`import("NAME")`), in module order.
    #[getter]
    fn imports(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        self.symbols(py, serialize::SymbolKind::Import)
    }

    /// `Module(N instructions, key ...)`.
    fn __repr__(&self) -> String {
        format!(
            "Module({} instructions, cache_key={:?})",
            self.inner.len(),
            self.key.to_hex()
        )
    }
}

impl Module {
    /// The module's symbols of one kind, read from its own `.osir` image (the format's
    /// symbol table is the one list of them). A module that cannot be saved raises
    /// `CompileError` (OSC0045), as `save_osir` does.
    fn symbols(&self, py: Python<'_>, kind: serialize::SymbolKind) -> PyResult<Vec<String>> {
        let fail = |e: &dyn std::fmt::Display| {
            crate::diag::plain_error(py, "OSC0045", &format!("cannot save the module: {e}"))
        };
        let bytes = serialize::save(&self.inner).map_err(|e| fail(&e))?;
        let symbols = serialize::read_symbols(&bytes).map_err(|e| fail(&e))?;
        Ok(symbols
            .into_iter()
            .filter(|s| s.kind == kind)
            .map(|s| s.name)
            .collect())
    }
}

/// Loads an `.osir` image (bytes). The module is verified as it loads unless
/// `verify=False` (for trusted files only). A damaged or invalid image raises
/// `CompileError` with its code (`OSL...` for a malformed file, `OSV...` for a module that
/// does not verify); `name` names it in the diagnostics.
#[pyfunction]
#[pyo3(
    signature = (data, *, verify=true, name="<osir>".to_string()),
    text_signature = "(data, *, verify=True, name='<osir>')"
)]
pub fn load_osir(py: Python<'_>, data: &[u8], verify: bool, name: String) -> PyResult<Module> {
    let bytes = data.to_vec();
    let loaded = py.detach(move || serialize::load(&bytes, &LoadOptions { verify }));
    match loaded {
        Ok(l) => Ok(Module {
            inner: l.module,
            key: l.header.cache_key,
            source_map: l.source_map,
        }),
        Err(e) => {
            let list: Vec<Diagnostic> = e
                .diagnostics()
                .iter()
                .map(|d| Diagnostic::unspanned(Some(&name), d))
                .collect();
            Err(raise::<crate::CompileError>(
                py,
                list,
                None,
                format!("{name}: cannot load the module: {e}"),
            ))
        }
    }
}

/// Saves a module as an `.osir` image (bytes), with the module key and source map it was
/// loaded with. Raises `CompileError` (OSC0045) when the module cannot be saved.
#[pyfunction]
pub fn save_osir<'py>(
    py: Python<'py>,
    module: PyRef<'py, Module>,
) -> PyResult<Bound<'py, PyBytes>> {
    let opts = SaveOptions {
        cache_key: module.key,
        source_map: module.source_map.as_ref(),
        ..SaveOptions::default()
    };
    match serialize::save_with(&module.inner, &opts) {
        Ok(b) => Ok(PyBytes::new(py, &b)),
        Err(e) => Err(crate::diag::plain_error(
            py,
            "OSC0045",
            &format!("cannot save the module: {e}"),
        )),
    }
}

/// Links modules (a list of `Module`) into one, as `oneshader link` does: imports are bound
/// to exports by name and type; without `keep_exports` only what the entry points reach is
/// kept, with it every export too (building a library). `names` name the modules in
/// diagnostics (default `module 0`, `module 1`...). A missing or mismatched symbol raises
/// `CompileError` with the linker's diagnostics; an empty result without `keep_exports`
/// warns (OSC0046, a `UserWarning`).
#[pyfunction]
#[pyo3(signature = (modules, *, keep_exports=false, names=None))]
pub fn link(
    py: Python<'_>,
    modules: Vec<PyRef<'_, Module>>,
    keep_exports: bool,
    names: Option<Vec<String>>,
) -> PyResult<Module> {
    let inputs: Vec<IrModule> = modules.iter().map(|m| m.inner.clone()).collect();
    let opts = LinkOptions {
        keep_exports,
        module_names: names.unwrap_or_default(),
        ..Default::default()
    };
    let linked = py.detach(move || oneshader::passes::link::link(&inputs, &opts));
    match linked {
        Ok(m) => {
            if !keep_exports && m.is_empty() {
                let category = py.get_type::<PyUserWarning>();
                PyErr::warn(
                    py,
                    &category,
                    c"warning[OSC0046]: the linked module is empty: no input has an entry point (use keep_exports=True to build a library)",
                    1,
                )?;
            }
            Ok(Module {
                inner: m,
                key: CacheKey::NONE,
                source_map: None,
            })
        }
        Err(errors) => {
            let list: Vec<Diagnostic> = errors
                .into_vec()
                .iter()
                .map(|d| Diagnostic::unspanned(Some("link"), d))
                .collect();
            let n = list.iter().filter(|d| d.severity == "error").count();
            Err(raise::<crate::CompileError>(
                py,
                list,
                None,
                format!("link: {n} error(s)"),
            ))
        }
    }
}
