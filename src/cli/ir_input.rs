//! Reading a module from a file given on the command line: `.ir` text today (and `.osir` once
//! the serializer lands). Diagnostics are rendered against the file's text.

use std::path::Path;

use oneshader_ir::Module;
use oneshader_ir::diag::{Diagnostic, SourceMap};

/// A module read from disk, or the rendered diagnostics explaining why not.
pub fn read_module(path: &Path) -> Result<Module, String> {
    let display = path.display().to_string();
    let bytes =
        std::fs::read(path).map_err(|e| format!("error[OSC0002]: cannot read {display}: {e}\n"))?;
    let text = String::from_utf8(bytes).map_err(|_| {
        format!("error[OSC0003]: {display} is not UTF-8 text (an .ir file was expected)\n")
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
        out.push_str(&format!("{}: {d}\n", path.display()));
    }
    out
}
