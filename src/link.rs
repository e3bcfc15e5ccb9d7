//! Linking `.osir` files without loading what the link does not use (docs/linking.md).
//!
//! [`link_files`] is what `oneshader link` does: each `.osir` input that carries a symbol
//! index (a large library: `oneshader_serialize::IndexPolicy`) is opened with
//! [`LazyFile`] and loaded only as far as the link needs: the items exporting a symbol that
//! some input imports, that a non-lazy input exports or that is exported twice among the lazy
//! inputs (so a duplicate is still reported), its import declarations, module decorations and
//! entry points, and what those reach. The others load in full. The linker copies only what the entry points reach
//! ([`passes::link`](crate::passes::link)), so the result is the module, and the bytes, that
//! loading every input in full gives ([`link_files_full`], kept for comparison).
//!
//! When the link fails with part of a library loaded, it is done again with every input
//! loaded in full, so the diagnostics are the full load's (a missing symbol's notes list the
//! exports of the same name, which the partial library may not hold). With `keep_exports`
//! (building a library) every export is needed, so every input loads in full.
//!
//! What a lazy load reads is checked like a full load (the index too; OSL0014), but an item
//! that no request reaches is not decoded, so a problem confined to such an item (a function
//! that does not verify, a malformed export nobody imports) is not reported by the lazy path.

use oneshader_ir::{Module, Op};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use oneshader_passes::link::{LinkOptions, link_refs};
use oneshader_serialize::{LazyFile, LoadError, LoadOptions, SymbolKind};

use crate::Errors;

/// One input of a link.
#[derive(Clone, Copy, Debug)]
pub enum LinkInput<'a> {
    /// An `.osir` image, loaded lazily when it has a symbol index.
    Osir(&'a [u8]),
    /// A module already in memory (from `.ir` text, or built in process).
    Module(&'a Module),
}

/// Why inputs did not link.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    /// Input `input` (0-based) is not a loadable `.osir` file.
    #[error("input {input} does not load: {error}")]
    Load {
        /// Which input.
        input: usize,
        /// The loader's error (OSL or verifier codes).
        error: LoadError,
    },
    /// The modules loaded but do not link (OSK codes).
    #[error("{0}")]
    Link(Errors),
}

/// Links `inputs`, loading indexed `.osir` libraries only as far as the link needs (see the
/// module documentation). The result is the one [`link_files_full`] gives.
pub fn link_files(
    inputs: &[LinkInput<'_>],
    opts: &LinkOptions,
    load: &LoadOptions,
) -> Result<Module, LinkError> {
    if opts.keep_exports {
        return link_files_full(inputs, opts, load);
    }
    // Open every `.osir` input; those without an index load in full right away.
    let mut files: Vec<Option<LazyFile<'_>>> = Vec::with_capacity(inputs.len());
    for (i, input) in inputs.iter().enumerate() {
        files.push(match input {
            LinkInput::Osir(bytes) => {
                let f =
                    LazyFile::open(bytes).map_err(|error| LinkError::Load { input: i, error })?;
                f.has_index().then_some(f)
            }
            LinkInput::Module(_) => None,
        });
    }
    if files.iter().all(Option::is_none) {
        return link_files_full(inputs, opts, load);
    }
    // What the lazy inputs must provide: every name any input imports, every name a non-lazy
    // input exports, and every name exported twice among the lazy inputs (so that missing and
    // duplicate symbols are found as with full loads). A library's own exports are not all
    // listed: only the repeated ones, found by string index.
    let mut loaded: Vec<Option<Module>> = Vec::with_capacity(inputs.len());
    let mut needed: HashSet<Cow<'_, str>> = HashSet::new();
    let lazy_inputs = files.iter().filter(|f| f.is_some()).count();
    let mut lazy_exports: HashMap<Cow<'_, str>, usize> = HashMap::new();
    for (i, (input, file)) in inputs.iter().zip(&files).enumerate() {
        let fail = |error| LinkError::Load { input: i, error };
        match (input, file) {
            (_, Some(f)) => {
                for (kind, name) in f.symbol_names().map_err(fail)? {
                    match kind {
                        SymbolKind::Import => {
                            needed.insert(name);
                        }
                        SymbolKind::Export if lazy_inputs > 1 => {
                            *lazy_exports.entry(name).or_default() += 1;
                        }
                        SymbolKind::Export => {}
                    }
                }
                needed.extend(f.exported_twice().map_err(fail)?);
                loaded.push(None);
            }
            (LinkInput::Osir(bytes), None) => {
                let m = oneshader_serialize::load(bytes, load).map_err(fail)?.module;
                module_symbols(&m, &mut |_, name| {
                    needed.insert(Cow::Owned(name.to_string()));
                });
                loaded.push(Some(m));
            }
            (LinkInput::Module(m), None) => {
                module_symbols(m, &mut |_, name| {
                    needed.insert(Cow::Owned(name.to_string()));
                });
                loaded.push(None);
            }
        }
    }
    needed.extend(
        lazy_exports
            .into_iter()
            .filter(|&(_, count)| count > 1)
            .map(|(name, _)| name),
    );
    let needed: Vec<&str> = needed.iter().map(|n| n.as_ref()).collect();
    for (i, file) in files.iter().enumerate() {
        if let Some(f) = file {
            let m = f
                .load(&needed, load)
                .map_err(|error| LinkError::Load { input: i, error })?
                .module;
            loaded[i] = Some(m);
        }
    }
    let modules: Vec<&Module> = inputs
        .iter()
        .zip(&loaded)
        .map(|(input, l)| match (input, l) {
            (_, Some(m)) => m,
            (LinkInput::Module(m), None) => *m,
            // Every `.osir` input was loaded above, lazily or in full.
            (LinkInput::Osir(_), None) => unreachable_module(),
        })
        .collect();
    match link_refs(&modules, opts) {
        Ok(m) => Ok(m),
        // The full load's diagnostics.
        Err(_) => link_files_full(inputs, opts, load),
    }
}

/// Links `inputs` with every `.osir` input loaded in full: the path `oneshader link` took
/// before symbol indices, and the reference [`link_files`] is compared against.
pub fn link_files_full(
    inputs: &[LinkInput<'_>],
    opts: &LinkOptions,
    load: &LoadOptions,
) -> Result<Module, LinkError> {
    let mut loaded: Vec<Option<Module>> = Vec::with_capacity(inputs.len());
    for (i, input) in inputs.iter().enumerate() {
        loaded.push(match input {
            LinkInput::Osir(bytes) => Some(
                oneshader_serialize::load(bytes, load)
                    .map_err(|error| LinkError::Load { input: i, error })?
                    .module,
            ),
            LinkInput::Module(_) => None,
        });
    }
    let modules: Vec<&Module> = inputs
        .iter()
        .zip(&loaded)
        .map(|(input, l)| match (input, l) {
            (_, Some(m)) => m,
            (LinkInput::Module(m), None) => *m,
            (LinkInput::Osir(_), None) => unreachable_module(),
        })
        .collect();
    link_refs(&modules, opts).map_err(LinkError::Link)
}

/// A module that stands for one that cannot be missing (every `.osir` input is loaded before
/// the list is made); empty, so that a bug here shows as a failed link, not a panic.
fn unreachable_module() -> &'static Module {
    static EMPTY: std::sync::OnceLock<Module> = std::sync::OnceLock::new();
    EMPTY.get_or_init(Module::new)
}

/// Calls `note` for each export and import decoration on `m`'s module-level items.
fn module_symbols(m: &Module, note: &mut impl FnMut(SymbolKind, &str)) {
    for item in m.children(m.root()) {
        for d in m.decorations(item) {
            let kind = match m.op(d) {
                Op::Export => SymbolKind::Export,
                Op::Import => SymbolKind::Import,
                _ => continue,
            };
            if let Some(name) = m.try_operand(d, 0).and_then(|s| m.literal_str(s)) {
                note(kind, name);
            }
        }
    }
}
