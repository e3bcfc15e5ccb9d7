//! Fuzz target: preprocess + parse arbitrary bytes (as the main file, also available as an
//! include `a.h`), then render every diagnostic, dump the tree and print the preprocessed text.
//! Nothing may panic, loop or overflow the stack.
//!
//! Run: `cargo +nightly fuzz run hlsl_parse` from this folder.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use oneshader_frontends::hlsl::{self, MacroOp, MemoryLoader, PreprocessOptions};
use oneshader_ir::diag::SourceMap;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    let mut loader = MemoryLoader::new();
    loader.add("a.h", text.clone());
    let options = PreprocessOptions {
        macros: vec![MacroOp::Define("FUZZ=1".into())],
        include_dirs: Vec::new(),
    };
    let mut sources = SourceMap::new();
    let parsed = hlsl::parse_text(Path::new("main.hlsl"), text, &options, &loader, &mut sources);
    let _ = sources.render_all(&parsed.diagnostics);
    let _ = hlsl::dump(&parsed.unit, &sources);
    let _ = parsed.preprocessed.to_text(&sources);
});
