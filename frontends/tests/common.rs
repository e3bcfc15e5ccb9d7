//! Helpers shared by the HLSL front-end tests.
#![allow(dead_code)]

use std::path::Path;

use oneshader_frontends::hlsl::{
    self, MacroOp, MemoryLoader, Parsed, PreprocessOptions, Preprocessed,
};
use oneshader_ir::diag::SourceMap;

/// Preprocesses `main.hlsl` (the first file) with the other files available to `#include`.
pub fn pp_files(files: &[(&str, &str)], opts: &PreprocessOptions) -> (Preprocessed, SourceMap) {
    let mut loader = MemoryLoader::new();
    for (p, t) in files {
        loader.add(p, *t);
    }
    let mut sources = SourceMap::new();
    let out = hlsl::preprocess_file(Path::new(files[0].0), opts, &loader, &mut sources);
    (out, sources)
}

/// Preprocesses one source with no options.
pub fn pp(src: &str) -> (Preprocessed, SourceMap) {
    pp_files(&[("main.hlsl", src)], &PreprocessOptions::default())
}

/// The preprocessed text, tokens joined by single spaces (spacing-independent comparisons).
pub fn pp_tokens(src: &str) -> String {
    let (out, sources) = pp(src);
    assert!(
        !out.has_errors(),
        "unexpected errors:\n{}",
        sources.render_all(&out.diagnostics)
    );
    tokens(&out)
}

/// Tokens joined by single spaces.
pub fn tokens(out: &Preprocessed) -> String {
    out.tokens
        .iter()
        .map(|t| t.text.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Rendered diagnostics.
pub fn rendered(out: &Preprocessed, sources: &SourceMap) -> String {
    sources.render_all(&out.diagnostics)
}

/// `-D`/`-U` options.
pub fn opts(ops: &[&str]) -> PreprocessOptions {
    PreprocessOptions {
        macros: ops
            .iter()
            .map(|o| match o.strip_prefix("-U") {
                Some(u) => MacroOp::Undef(u.to_string()),
                None => MacroOp::Define(o.trim_start_matches("-D").to_string()),
            })
            .collect(),
        include_dirs: Vec::new(),
    }
}

/// Preprocesses and parses one source.
pub fn parse(src: &str) -> (Parsed, SourceMap) {
    let mut sources = SourceMap::new();
    let p = hlsl::parse_text(
        Path::new("test.hlsl"),
        src,
        &PreprocessOptions::default(),
        &MemoryLoader::new(),
        &mut sources,
    );
    (p, sources)
}

/// Parses and returns the AST dump, failing on any diagnostic.
pub fn dump_ok(src: &str) -> String {
    let (p, sources) = parse(src);
    assert!(
        p.diagnostics.is_empty(),
        "unexpected diagnostics:\n{}",
        sources.render_all(&p.diagnostics)
    );
    hlsl::dump(&p.unit, &sources)
}

/// Parses and returns the rendered diagnostics.
pub fn errors(src: &str) -> String {
    let (p, sources) = parse(src);
    sources.render_all(&p.diagnostics)
}
