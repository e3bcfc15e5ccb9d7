//! The HLSL front end. Its code is in one folder per phase: `syntax/` (tokens, lexer,
//! preprocessor, parser, AST), `sema/` (semantic analysis into the typed program, [`hir`]) and
//! `lower/` (the typed program to IR); `compile.rs` runs them in order. Part 1, the
//! preprocessor and the parser:
//!
//! ```text
//! source ──preprocess──> Preprocessed { tokens, expansions, pragmas, diagnostics }
//!        ──parse──────> ParseResult   { unit: ast::TranslationUnit, diagnostics }
//! ```
//!
//! - [`preprocess_file`] / [`preprocess_text`] run the preprocessor. Every file read (the main
//!   file, `<command line>` and `<built-in>` macro files, each `#include`) is added to the
//!   caller's [`SourceMap`], so diagnostics render with `file:line:col`, the source line and a
//!   caret. Includes are found through a [`SourceLoader`] ([`FsLoader`] for the file system,
//!   [`MemoryLoader`] for tests and tools): `"..."` and `<...>` are both searched in the including
//!   file's folder, then in the `-I` folders in order.
//! - Each output [`Token`] keeps its spelling span and the [`ExpansionId`] of the macro expansion
//!   that produced it; [`ExpansionTable`] records, per expansion, the macro name, the call site,
//!   the parent expansion and the call site in the user's text, so a diagnostic can point at the
//!   user's text and add "in expansion of macro `X`" notes ([`ExpansionTable::notes`]).
//! - [`parse`] builds the [`ast`]. Node spans are user-text spans (for macro-produced tokens, the
//!   outermost call site). `#pragma`s other than `once` are in [`Preprocessed::pragmas`] with
//!   their position in the token stream.
//! - [`dump`] prints the AST (the `--ast` output); [`Preprocessed::to_text`] prints the
//!   preprocessed text like `cpp -P`.
//!
//! Diagnostic codes: `OSP` for the preprocessor, `OSH` for the parser; the table of every code
//! and its meaning is in `docs/diagnostics.md` (a test checks that every code used here is
//! listed there).

mod compile;
mod lower;
mod sema;
mod syntax;

pub use sema::hir;
pub use syntax::ast;

use oneshader_ir::diag::{Diagnostic, SourceMap};

pub use compile::{
    COMPILE_STACK, CompileOptions, CompileResult, Profile, analyze, compile_file, compile_parsed,
    compile_text, parse_profile, with_big_stack,
};
pub use sema::bindings::{BindingShift, RegisterBinding};
pub use sema::{MAX_SEMA_ERRORS, SemaOptions};

pub use syntax::dump::{dump, expr_text, type_text};
pub use syntax::parser::{
    MAX_ERRORS, MAX_NESTING, MAX_TREE_DEPTH, PARSER_STACK, ParseResult, parse, parse_number,
};
pub use syntax::preprocessor::{
    FsLoader, LineDirective, MAX_EXPANSION_NESTING, MAX_EXPANSION_WORK, MAX_INCLUDE_DEPTH,
    MAX_OUTPUT_TOKENS, MacroOp, MemoryLoader, Pragma, PreprocessOptions, Preprocessed,
    SourceLoader, normalize, preprocess_file, preprocess_text,
};
pub use syntax::token::{
    ExpansionId, ExpansionRecord, ExpansionTable, LEADING_SPACE, LINE_START, Token, TokenKind,
};
pub use syntax::types::{is_builtin_qualified_type, is_builtin_type};

/// Everything one front-end run over a file produced.
#[derive(Clone, Debug)]
pub struct Parsed {
    /// The preprocessor's output (tokens, expansions, pragmas, its diagnostics).
    pub preprocessed: Preprocessed,
    /// The syntax tree.
    pub unit: ast::TranslationUnit,
    /// Preprocessor diagnostics followed by parser diagnostics.
    pub diagnostics: Vec<Diagnostic>,
}

impl Parsed {
    /// True when any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        oneshader_ir::diag::has_errors(&self.diagnostics)
    }
}

/// Preprocesses and parses the file at `path`.
pub fn parse_file(
    path: &std::path::Path,
    options: &PreprocessOptions,
    loader: &dyn SourceLoader,
    sources: &mut SourceMap,
) -> Parsed {
    let preprocessed = preprocess_file(path, options, loader, sources);
    finish(preprocessed)
}

/// Preprocesses and parses `text` as if read from `path`.
pub fn parse_text(
    path: &std::path::Path,
    text: impl Into<String>,
    options: &PreprocessOptions,
    loader: &dyn SourceLoader,
    sources: &mut SourceMap,
) -> Parsed {
    let preprocessed = preprocess_text(path, text.into(), options, loader, sources);
    finish(preprocessed)
}

/// Parses an already preprocessed file.
pub fn parse_preprocessed(preprocessed: Preprocessed) -> Parsed {
    finish(preprocessed)
}

fn finish(preprocessed: Preprocessed) -> Parsed {
    let diagnostics = preprocessed.diagnostics.clone();
    if preprocessed.aborted {
        // The token stream stops at an arbitrary point (an expansion or size limit): parsing
        // it would only add errors, and time and memory on a huge input.
        return Parsed {
            preprocessed,
            unit: ast::TranslationUnit { decls: Vec::new() },
            diagnostics,
        };
    }
    let parsed = parse(&preprocessed);
    let mut diagnostics = diagnostics;
    diagnostics.extend(parsed.diagnostics);
    Parsed {
        preprocessed,
        unit: parsed.unit,
        diagnostics,
    }
}
