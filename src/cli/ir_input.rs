//! Reading a module from a file given on the command line: `.ir` text or a binary `.osir`
//! module, told apart by the `.osir` magic bytes (not the file name), so every command that
//! reads a module (`verify`, `opt`, `emit`, `interp`, `dis`, `link`, ...) takes both.
//! Diagnostics are rendered against the file's text, or prefixed with the file name for
//! `.osir` files (which have no source lines to point at).

use std::path::Path;

use oneshader_ir::Module;
use oneshader_ir::diag::{Diagnostic, SourceMap};
use oneshader_serialize::LoadOptions;

/// A module read from disk, or from standard input for `-` (an `.osir` file is verified as
/// it loads), or the rendered diagnostics explaining why not.
pub fn read_module(path: &Path) -> Result<Module, String> {
    read_module_with(path, &LoadOptions::default())
}

/// [`read_module`] with explicit `.osir` load options.
pub fn read_module_with(path: &Path, opts: &LoadOptions) -> Result<Module, String> {
    read_module_bytes(path, opts).map(|(m, _)| m)
}

/// [`read_module_with`], also giving the bytes read (standard input can be read once).
pub fn read_module_bytes(path: &Path, opts: &LoadOptions) -> Result<(Module, Vec<u8>), String> {
    let display = super::io::input_name(path);
    let bytes = super::io::read(path)
        .map_err(|e| format!("error[OSC0002]: cannot read {display}: {e}\n"))?;
    parse_bytes(path, bytes.clone(), opts).map(|m| (m, bytes))
}

/// The module in `bytes` read from `path` (`.osir` or `.ir` text), or the rendered
/// diagnostics.
pub fn parse_bytes(path: &Path, bytes: Vec<u8>, opts: &LoadOptions) -> Result<Module, String> {
    let display = super::io::input_name(path);
    if oneshader_serialize::is_osir(&bytes) {
        return oneshader_serialize::load(&bytes, opts)
            .map(|l| l.module)
            .map_err(|e| render_unspanned(path, &e.diagnostics()));
    }
    let text = String::from_utf8(bytes).map_err(|_| {
        format!(
            "error[OSC0003]: {display} is neither UTF-8 text (an .ir module) nor an .osir module\n"
        )
    })?;
    let mut sources = SourceMap::new();
    let file = sources.add(display, text);
    oneshader_ir::parse::parse_module(sources.text(file), file)
        .map_err(|diags| sources.render_all(&diags))
}

/// Renders diagnostics that have no span (verifier output) for `path`.
pub fn render_unspanned(path: &Path, diags: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diags {
        out.push_str(&format!("{}: {d}\n", super::io::input_name(path)));
    }
    out
}
