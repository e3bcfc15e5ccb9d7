//! The HLSL preprocessor: C99/C++-style macros, conditionals, includes, and the directives HLSL
//! compilers accept.
//!
//! Design: an include stack of [`Lexer`]s produces raw tokens; directives are handled when a `#`
//! starts a line; macro names are expanded with the hide-set algorithm (each token carries the set
//! of macros that produced it, so `#define X X` terminates); expanded tokens are pushed back and
//! rescanned. Arguments are expanded in isolation before substitution (except operands of `#` and
//! `##`). Every token keeps its spelling [`Span`] and an [`ExpansionId`] naming the expansion that
//! produced it; [`ExpansionTable`] maps that to the call site in the user's text.
//!
//! Hazards and limits (never a panic, never unbounded work): include depth ([`MAX_INCLUDE_DEPTH`]),
//! nesting of macro-argument pre-expansion ([`MAX_EXPANSION_NESTING`]), total tokens produced by
//! substitution ([`MAX_EXPANSION_WORK`]) and `#if` expression nesting are capped, each with a
//! diagnostic.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use oneshader_ir::diag::{Diagnostic, FileId, SourceMap, Span};
use rustc_hash::FxHashMap;

use crate::hlsl::syntax::lexer::{Lexer, RawToken, lex_all};
use crate::hlsl::syntax::token::{
    ExpansionId, ExpansionRecord, ExpansionTable, LEADING_SPACE, LINE_START, Token, TokenKind,
};

/// Deepest `#include` nesting accepted.
pub const MAX_INCLUDE_DEPTH: usize = 200;
/// Deepest nesting of macro invocations inside macro arguments.
pub const MAX_EXPANSION_NESTING: usize = 200;
/// Most tokens macro substitution may produce in one run (guards against exponential macros).
pub const MAX_EXPANSION_WORK: usize = 20_000_000;
/// Most tokens one preprocessing run may output.
pub const MAX_OUTPUT_TOKENS: usize = 8_000_000;
/// Deepest parenthesis nesting in an `#if` expression.
const MAX_IF_DEPTH: usize = 256;

/// Reads source files for the preprocessor. [`FsLoader`] reads the file system; tests and tools
/// can serve files from memory with [`MemoryLoader`].
pub trait SourceLoader {
    /// The text of the file at `path`, or an error when it does not exist or cannot be read.
    /// Invalid UTF-8 should be replaced (lossy), not refused.
    fn load(&self, path: &Path) -> std::io::Result<String>;

    /// A key that is equal for two paths naming the same file (for `#pragma once`).
    fn canonical(&self, path: &Path) -> PathBuf {
        normalize(path)
    }
}

/// Loads files from the file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct FsLoader;

impl SourceLoader for FsLoader {
    fn load(&self, path: &Path) -> std::io::Result<String> {
        if path.is_dir() {
            return Err(std::io::Error::other("is a directory"));
        }
        let bytes = std::fs::read(path)?;
        Ok(match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        })
    }

    fn canonical(&self, path: &Path) -> PathBuf {
        std::fs::canonicalize(path).unwrap_or_else(|_| normalize(path))
    }
}

/// Serves files from memory, keyed by normalized path (`a/./b/../c.h` is `a/c.h`).
#[derive(Clone, Debug, Default)]
pub struct MemoryLoader {
    files: FxHashMap<PathBuf, String>,
}

impl MemoryLoader {
    /// An empty loader.
    pub fn new() -> MemoryLoader {
        MemoryLoader::default()
    }

    /// Adds (or replaces) a file.
    pub fn add(&mut self, path: impl AsRef<Path>, text: impl Into<String>) -> &mut Self {
        self.files.insert(normalize(path.as_ref()), text.into());
        self
    }
}

impl SourceLoader for MemoryLoader {
    fn load(&self, path: &Path) -> std::io::Result<String> {
        self.files
            .get(&normalize(path))
            .cloned()
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
    }
}

/// Removes `.` components and folds `x/..` pairs, without touching the file system.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir) | Some(Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            _ => out.push(c),
        }
    }
    out.iter().collect()
}

/// A command-line macro operation, applied in order before the main file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MacroOp {
    /// `-D NAME[=VALUE]` (the text after `-D`); without `=VALUE` the macro is `1`.
    Define(String),
    /// `-U NAME`.
    Undef(String),
}

/// Options of one preprocessing run.
#[derive(Clone, Debug, Default)]
pub struct PreprocessOptions {
    /// `-D`/`-U` operations in command-line order.
    pub macros: Vec<MacroOp>,
    /// `-I` folders, searched in order after the including file's folder.
    pub include_dirs: Vec<PathBuf>,
}

/// A `#pragma` other than `#pragma once`, kept for later phases.
#[derive(Clone, Debug, PartialEq)]
pub struct Pragma {
    /// The tokens after `pragma` (not macro-expanded).
    pub tokens: Vec<Token>,
    /// The whole directive line.
    pub span: Span,
    /// Index in [`Preprocessed::tokens`] of the first token after the pragma.
    pub position: usize,
}

/// A `#line N ["file"]` directive.
#[derive(Clone, Debug, PartialEq)]
pub struct LineDirective {
    /// The directive.
    pub span: Span,
    /// The line number the next source line gets.
    pub line: u32,
    /// The file name it gives, if any.
    pub file_name: Option<String>,
}

/// The result of preprocessing one translation unit.
#[derive(Clone, Debug, Default)]
pub struct Preprocessed {
    /// The main file.
    pub main_file: FileId,
    /// The output tokens, fully macro-expanded, directives removed.
    pub tokens: Vec<Token>,
    /// Every macro expansion, referenced by [`Token::expansion`].
    pub expansions: ExpansionTable,
    /// `#pragma` directives other than `once`, in order.
    pub pragmas: Vec<Pragma>,
    /// `#line` directives, in order (diagnostics keep physical locations; `__LINE__` and
    /// `__FILE__` honour them).
    pub line_directives: Vec<LineDirective>,
    /// Files read, in order: the main file first, then each `#include`d file (a file included
    /// twice appears twice).
    pub files: Vec<(FileId, PathBuf)>,
    /// Errors and warnings.
    pub diagnostics: Vec<Diagnostic>,
    /// True when a limit stopped preprocessing (OSP0030): `tokens` ends at an arbitrary
    /// point, and the front end does not parse it.
    pub aborted: bool,
}

impl Preprocessed {
    /// True when any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        oneshader_ir::diag::has_errors(&self.diagnostics)
    }

    /// The text like `cpp -P` prints it: tokens separated as in the source, one output line per
    /// source line (indentation kept), `#pragma` lines kept, no line markers. `sources` must be
    /// the map the preprocessor filled.
    pub fn to_text(&self, sources: &SourceMap) -> String {
        let mut out = String::new();
        let mut pragmas = self.pragmas.iter().peekable();
        let mut prev: Option<&Token> = None;
        for (i, tok) in self.tokens.iter().enumerate() {
            while let Some(p) = pragmas.next_if(|p| p.position <= i) {
                write_pragma(&mut out, p);
                prev = None;
            }
            match prev {
                None => {
                    if !out.is_empty() && !out.ends_with('\n') {
                        out.push('\n');
                    }
                    if tok.at_line_start() && tok.has_leading_space() {
                        out.push_str(indentation(sources, self.expansions.user_span(tok)));
                    }
                }
                Some(p) => {
                    if tok.at_line_start() {
                        out.push('\n');
                        if tok.has_leading_space() {
                            out.push_str(indentation(sources, self.expansions.user_span(tok)));
                        }
                    } else if tok.has_leading_space() || needs_space(p, tok) {
                        out.push(' ');
                    }
                }
            }
            out.push_str(&tok.text);
            prev = Some(tok);
        }
        for p in pragmas {
            write_pragma(&mut out, p);
        }
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out
    }
}

/// The blanks before `span` on its line.
fn indentation(sources: &SourceMap, span: Span) -> &str {
    let text = sources.text(span.file);
    let end = (span.start as usize).min(text.len());
    let Some(before) = text.get(..end) else {
        return " ";
    };
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let ws = &before[line_start..];
    if ws.chars().all(|c| c == ' ' || c == '\t') {
        ws
    } else {
        " "
    }
}

fn write_pragma(out: &mut String, p: &Pragma) {
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("#pragma");
    for t in &p.tokens {
        if t.has_leading_space() {
            out.push(' ');
        }
        out.push_str(&t.text);
    }
    out.push('\n');
}

/// True when printing `a` then `b` without a space would lex differently.
fn needs_space(a: &Token, b: &Token) -> bool {
    let word = |t: &Token| matches!(t.kind, TokenKind::Ident | TokenKind::Number);
    if word(a) && (word(b) || b.text.starts_with('.') && b.kind == TokenKind::Number) {
        return true;
    }
    if a.kind == TokenKind::Number && (b.is_punct(".") || b.is_punct("+") || b.is_punct("-")) {
        return true;
    }
    if a.kind == TokenKind::Punct && b.kind == TokenKind::Punct {
        let joined = format!("{}{}", a.text, b.text);
        let toks = lex_all(&joined);
        return toks.len() != 2 || toks[0].end != a.text.len();
    }
    false
}

/// Preprocesses the file at `path` (read through `loader`, registered in `sources`).
pub fn preprocess_file(
    path: &Path,
    options: &PreprocessOptions,
    loader: &dyn SourceLoader,
    sources: &mut SourceMap,
) -> Preprocessed {
    match loader.load(path) {
        Ok(text) => preprocess_text(path, text, options, loader, sources),
        Err(e) => {
            let mut p = Preprocessed::default();
            p.diagnostics.push(Diagnostic::error(
                "OSP0003",
                format!("cannot read `{}`: {e}", path.display()),
            ));
            p
        }
    }
}

/// Preprocesses `text` as if read from `path` (whose folder is searched first for includes).
pub fn preprocess_text(
    path: &Path,
    text: String,
    options: &PreprocessOptions,
    loader: &dyn SourceLoader,
    sources: &mut SourceMap,
) -> Preprocessed {
    let mut pp = Preprocessor::new(options, loader, sources);
    pp.run(path, text);
    pp.finish()
}

/// A macro definition.
#[derive(Debug)]
struct Macro {
    /// Where the name is spelled in the definition.
    def_span: Span,
    /// `None` for an object-like macro; parameter names otherwise (`__VA_ARGS__` last if
    /// variadic with `...`).
    params: Option<Vec<Arc<str>>>,
    variadic: bool,
    /// Replacement list; each token tagged with the parameter it names, if any.
    body: Vec<(Token, Option<u16>)>,
    builtin: Option<Builtin>,
    /// Interned name id, for hide sets.
    id: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Builtin {
    Line,
    File,
    Counter,
}

impl Macro {
    fn same_definition(&self, other: &Macro) -> bool {
        self.params == other.params
            && self.variadic == other.variadic
            && self.body.len() == other.body.len()
            && self
                .body
                .iter()
                .zip(&other.body)
                .enumerate()
                .all(|(i, ((a, _), (b, _)))| {
                    a.text == b.text && (i == 0 || a.has_leading_space() == b.has_leading_space())
                })
    }
}

/// Interned hide sets: sorted lists of macro name ids; id 0 is the empty set.
#[derive(Default)]
struct HideSets {
    sets: Vec<Rc<[u32]>>,
    index: FxHashMap<Rc<[u32]>, u32>,
}

impl HideSets {
    fn new() -> HideSets {
        let mut h = HideSets::default();
        h.intern(Vec::new());
        h
    }

    fn intern(&mut self, v: Vec<u32>) -> u32 {
        if let Some(&id) = self.index.get(v.as_slice()) {
            return id;
        }
        let rc: Rc<[u32]> = v.into();
        let id = self.sets.len() as u32;
        self.sets.push(rc.clone());
        self.index.insert(rc, id);
        id
    }

    fn get(&self, hs: u32) -> &[u32] {
        self.sets.get(hs as usize).map(|s| &s[..]).unwrap_or(&[])
    }

    fn contains(&self, hs: u32, m: u32) -> bool {
        self.get(hs).binary_search(&m).is_ok()
    }

    fn with(&mut self, hs: u32, m: u32) -> u32 {
        let s = self.get(hs);
        match s.binary_search(&m) {
            Ok(_) => hs,
            Err(pos) => {
                let mut v = s.to_vec();
                v.insert(pos, m);
                self.intern(v)
            }
        }
    }

    fn union(&mut self, a: u32, b: u32) -> u32 {
        if a == b || b == 0 {
            return a;
        }
        if a == 0 {
            return b;
        }
        let mut v: Vec<u32> = self.get(a).iter().chain(self.get(b)).copied().collect();
        v.sort_unstable();
        v.dedup();
        self.intern(v)
    }

    fn intersect(&mut self, a: u32, b: u32) -> u32 {
        if a == b {
            return a;
        }
        if a == 0 || b == 0 {
            return 0;
        }
        let sb = self.get(b);
        let v: Vec<u32> = self
            .get(a)
            .iter()
            .copied()
            .filter(|x| sb.binary_search(x).is_ok())
            .collect();
        self.intern(v)
    }
}

/// One open `#if` group.
#[derive(Debug)]
struct Cond {
    /// The `#if`/`#ifdef`/`#ifndef` directive, for "unterminated" errors.
    span: Span,
    /// Some branch of the group was taken (so later `#elif`/`#else` are skipped).
    taken: bool,
    /// `#else` was seen.
    in_else: bool,
}

/// One file on the include stack.
struct Frame {
    file: FileId,
    text: Arc<str>,
    lexer: Lexer,
    /// Folder searched first for `#include`s from this file.
    dir: Option<PathBuf>,
    /// `#pragma once` key.
    key: Option<PathBuf>,
    /// Name for `__FILE__`.
    presumed_name: String,
    /// From `#line`: (physical line of the next line, line number it gets).
    line_base: Option<(usize, u32)>,
    conds: Vec<Cond>,
}

struct Preprocessor<'a> {
    options: &'a PreprocessOptions,
    loader: &'a dyn SourceLoader,
    sources: &'a mut SourceMap,
    frames: Vec<Frame>,
    /// Tokens to read before the current frame's lexer; the next one is last.
    pushback: Vec<Token>,
    /// While expanding a macro argument in isolation, the end of `pushback` is the end of input.
    isolated: usize,
    macros: FxHashMap<Arc<str>, Rc<Macro>>,
    name_ids: FxHashMap<Arc<str>, u32>,
    hidesets: HideSets,
    once: HashSet<PathBuf>,
    counter: u64,
    work: usize,
    /// Set when a limit was hit: stops all further output.
    aborted: bool,
    out: Preprocessed,
    /// Text interned for identifiers, to share one allocation per distinct spelling.
    idents: FxHashMap<Box<str>, Arc<str>>,
    /// Non-zero while expanding an `#if` line: `defined X` is evaluated where it appears, even when a
    /// macro produced it, and its operand is not expanded.
    in_if: usize,
}

impl<'a> Preprocessor<'a> {
    fn new(
        options: &'a PreprocessOptions,
        loader: &'a dyn SourceLoader,
        sources: &'a mut SourceMap,
    ) -> Preprocessor<'a> {
        let mut pp = Preprocessor {
            options,
            loader,
            sources,
            frames: Vec::new(),
            pushback: Vec::new(),
            isolated: 0,
            macros: FxHashMap::default(),
            name_ids: FxHashMap::default(),
            hidesets: HideSets::new(),
            once: HashSet::new(),
            counter: 0,
            work: 0,
            aborted: false,
            out: Preprocessed::default(),
            idents: FxHashMap::default(),
            in_if: 0,
        };
        for (name, b) in [
            ("__LINE__", Builtin::Line),
            ("__FILE__", Builtin::File),
            ("__COUNTER__", Builtin::Counter),
        ] {
            let id = pp.name_id(name);
            pp.macros.insert(
                name.into(),
                Rc::new(Macro {
                    def_span: Span::default(),
                    params: None,
                    variadic: false,
                    body: Vec::new(),
                    builtin: Some(b),
                    id,
                }),
            );
        }
        pp
    }

    fn name_id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.name_ids.get(name) {
            return id;
        }
        let id = self.name_ids.len() as u32 + 1;
        self.name_ids.insert(name.into(), id);
        id
    }

    fn error(&mut self, code: &'static str, span: Span, msg: impl Into<String>) {
        self.out
            .diagnostics
            .push(Diagnostic::error(code, msg).with_span(span));
    }

    /// Error at a token: the user's location, plus "in expansion of" notes.
    fn error_at(&mut self, code: &'static str, tok: &Token, msg: impl Into<String>) {
        let span = self.out.expansions.user_span(tok);
        let mut d = Diagnostic::error(code, msg).with_span(span);
        d.notes = self.out.expansions.notes(tok.expansion);
        self.out.diagnostics.push(d);
    }

    fn run(&mut self, path: &Path, text: String) {
        let text = normalize_line_ends(text);
        let name = path.display().to_string();
        let file = self.sources.add(name.clone(), text.clone());
        self.out.main_file = file;
        self.out.files.push((file, path.to_path_buf()));
        let dir = path.parent().map(Path::to_path_buf);
        let key = Some(self.loader.canonical(path));
        self.push_frame(file, text.into(), dir, key, name);

        // Predefined macros, then the command line, as files read before the main one.
        let mut cmdline = String::new();
        for op in &self.options.macros {
            match op {
                MacroOp::Define(d) => {
                    let d = d.replace(['\n', '\r'], " ");
                    match d.split_once('=') {
                        Some((n, v)) => cmdline.push_str(&format!("#define {n} {v}\n")),
                        None => cmdline.push_str(&format!("#define {d} 1\n")),
                    }
                }
                MacroOp::Undef(u) => {
                    cmdline.push_str(&format!("#undef {}\n", u.replace(['\n', '\r'], " ")));
                }
            }
        }
        if !cmdline.is_empty() {
            let f = self.sources.add("<command line>", cmdline.clone());
            self.push_frame(f, cmdline.into(), None, None, "<command line>".into());
        }
        let builtin = "#define __HLSL_VERSION 2021\n#define __hlsl_dx_compiler 1\n";
        let f = self.sources.add("<built-in>", builtin);
        self.push_frame(f, builtin.into(), None, None, "<built-in>".into());

        while let Some(tok) = self.next_expanded() {
            if self.out.tokens.len() >= MAX_OUTPUT_TOKENS {
                self.error_at(
                    "OSP0030",
                    &tok,
                    format!("preprocessed output exceeds {MAX_OUTPUT_TOKENS} tokens"),
                );
                self.abort();
                break;
            }
            self.out.tokens.push(tok);
        }
    }

    fn finish(mut self) -> Preprocessed {
        self.out.aborted = self.aborted;
        self.out
    }

    fn abort(&mut self) {
        self.aborted = true;
        self.frames.clear();
        self.pushback.clear();
    }

    fn push_frame(
        &mut self,
        file: FileId,
        text: Arc<str>,
        dir: Option<PathBuf>,
        key: Option<PathBuf>,
        presumed_name: String,
    ) {
        self.frames.push(Frame {
            file,
            text,
            lexer: Lexer::new(file),
            dir,
            key,
            presumed_name,
            line_base: None,
            conds: Vec::new(),
        });
    }

    fn make_token(&mut self, frame_text: &str, file: FileId, raw: RawToken) -> Token {
        let s = &frame_text[raw.start..raw.end];
        // Identifiers and punctuators repeat: one shared text each (a file of millions of
        // `float x;` lines would otherwise allocate a string per token).
        let text = if matches!(raw.kind, TokenKind::Ident | TokenKind::Punct) {
            match self.idents.get(s) {
                Some(rc) => rc.clone(),
                None => {
                    let rc: Arc<str> = Arc::from(s);
                    self.idents.insert(s.into(), rc.clone());
                    rc
                }
            }
        } else {
            s.into()
        };
        Token {
            kind: raw.kind,
            text,
            span: Span::new(file, raw.start..raw.end),
            expansion: None,
            flags: raw.flags,
            hideset: 0,
        }
    }

    /// The next raw token of the top frame, with diagnostics (`None` at the frame's end).
    fn lex_top(&mut self) -> Option<Token> {
        let frame = self.frames.last_mut()?;
        let text = frame.text.clone();
        let file = frame.file;
        let raw = frame
            .lexer
            .next(text.as_bytes(), Some(&mut self.out.diagnostics))?;
        Some(self.make_token(&text, file, raw))
    }

    /// True when the top frame's next token starts a new line (or the frame ends).
    fn top_at_line_end(&mut self) -> bool {
        match self.frames.last_mut() {
            Some(f) => {
                let text = f.text.clone();
                f.lexer.peek_line_start(text.as_bytes())
            }
            None => true,
        }
    }

    /// The rest of the current directive line as tokens.
    fn line_tokens(&mut self) -> Vec<Token> {
        let mut v = Vec::new();
        while !self.top_at_line_end() {
            match self.lex_top() {
                Some(t) => v.push(t),
                None => break,
            }
        }
        v
    }

    /// Skips the rest of the current line without diagnostics.
    fn skip_line(&mut self) {
        while !self.top_at_line_end() {
            let Some(f) = self.frames.last_mut() else {
                return;
            };
            let text = f.text.clone();
            if f.lexer.next(text.as_bytes(), None).is_none() {
                return;
            }
        }
    }

    /// The next token before macro expansion: from the push-back stack, else from the include
    /// stack (handling directives and file ends).
    fn next_raw(&mut self) -> Option<Token> {
        if let Some(t) = self.pushback.pop() {
            return Some(t);
        }
        if self.isolated > 0 || self.aborted {
            return None;
        }
        loop {
            let Some(tok) = self.lex_top() else {
                // End of the top file.
                let frame = self.frames.pop()?;
                for c in &frame.conds {
                    self.out.diagnostics.push(
                        Diagnostic::error("OSP0010", "unterminated conditional directive")
                            .with_span(c.span),
                    );
                }
                if self.frames.is_empty() {
                    return None;
                }
                continue;
            };
            if tok.at_line_start() && tok.is_punct("#") {
                self.directive(tok);
                if self.aborted {
                    return None;
                }
                continue;
            }
            return Some(tok);
        }
    }

    /// The next fully macro-expanded token.
    fn next_expanded(&mut self) -> Option<Token> {
        loop {
            let tok = self.next_raw()?;
            if tok.kind != TokenKind::Ident {
                return Some(tok);
            }
            if self.in_if > 0 && &*tok.text == "defined" {
                return Some(self.defined_operator(tok));
            }
            let Some(m) = self.macros.get(&*tok.text).cloned() else {
                return Some(tok);
            };
            if self.hidesets.contains(tok.hideset, m.id) {
                return Some(tok);
            }
            if let Some(b) = m.builtin {
                return Some(self.builtin(b, tok));
            }
            if m.params.is_none() {
                let mut result = self.substitute(&tok, &m, Vec::new())?;
                let exp = self.new_expansion(&tok, &tok, &m);
                let hs = self.hidesets.with(tok.hideset, m.id);
                self.finish_substitution(&mut result, &tok, exp, hs);
                if !self.account(result.len(), &tok) {
                    return None;
                }
                self.pushback.extend(result.into_iter().rev());
                continue;
            }
            // Function-like: only an invocation when `(` follows.
            let next = self.next_raw();
            match next {
                Some(n) if n.is_punct("(") => {
                    let Some((args, rparen)) = self.collect_args(&tok, &m) else {
                        continue;
                    };
                    let Some(mut result) = self.substitute(&tok, &m, args) else {
                        continue;
                    };
                    let exp = self.new_expansion(&tok, &rparen, &m);
                    let hs = self.hidesets.intersect(tok.hideset, rparen.hideset);
                    let hs = self.hidesets.with(hs, m.id);
                    self.finish_substitution(&mut result, &tok, exp, hs);
                    if !self.account(result.len(), &tok) {
                        return None;
                    }
                    self.pushback.extend(result.into_iter().rev());
                }
                Some(n) => {
                    self.pushback.push(n);
                    return Some(tok);
                }
                None => return Some(tok),
            }
        }
    }

    /// Counts substitution work; false (after a diagnostic and abort) past the limit.
    fn account(&mut self, n: usize, tok: &Token) -> bool {
        self.work += n + 1;
        if self.work > MAX_EXPANSION_WORK {
            self.error_at(
                "OSP0030",
                tok,
                format!("macro expansion produces more than {MAX_EXPANSION_WORK} tokens"),
            );
            self.abort();
            return false;
        }
        true
    }

    fn new_expansion(&mut self, name: &Token, last: &Token, m: &Macro) -> ExpansionId {
        let call_site = if last.expansion == name.expansion && last.span.file == name.span.file {
            name.span.to(last.span)
        } else {
            name.span
        };
        let user_span = match name.expansion.and_then(|e| self.out.expansions.get(e)) {
            Some(parent) => parent.user_span,
            None => call_site,
        };
        let id = ExpansionId(self.out.expansions.records.len() as u32);
        self.out.expansions.records.push(ExpansionRecord {
            macro_name: name.text.clone(),
            definition: m.def_span,
            call_site,
            parent: name.expansion,
            user_span,
        });
        id
    }

    /// Marks a substitution result: the first token takes the invocation's spacing, body
    /// tokens get the new expansion id, every token gets the hide set.
    fn finish_substitution(
        &mut self,
        result: &mut [Token],
        name: &Token,
        exp: ExpansionId,
        hs: u32,
    ) {
        for (i, t) in result.iter_mut().enumerate() {
            if i == 0 {
                t.flags = name.flags;
            } else {
                t.flags &= !LINE_START;
            }
            t.hideset = self.hidesets.union(t.hideset, hs);
        }
        // Body tokens (tagged by `substitute`) get the new expansion; argument tokens keep theirs.
        for t in result.iter_mut() {
            if t.expansion == Some(BODY_MARK) {
                t.expansion = Some(exp);
            }
        }
    }

    fn builtin(&mut self, b: Builtin, tok: Token) -> Token {
        let user = self.out.expansions.user_span(&tok);
        let (text, kind) = match b {
            Builtin::Line => (self.presumed_line(user).to_string(), TokenKind::Number),
            Builtin::File => {
                let name = self
                    .frames
                    .iter()
                    .rev()
                    .find(|f| f.file == user.file)
                    .map(|f| f.presumed_name.clone())
                    .unwrap_or_else(|| self.sources.name(user.file).to_string());
                (quote(&name), TokenKind::String)
            }
            Builtin::Counter => {
                self.counter += 1;
                ((self.counter - 1).to_string(), TokenKind::Number)
            }
        };
        Token {
            kind,
            text: text.into(),
            ..tok
        }
    }

    fn presumed_line(&self, span: Span) -> u32 {
        let (line, _) = self.sources.line_col(span.file, span.start);
        match self
            .frames
            .iter()
            .rev()
            .find(|f| f.file == span.file)
            .and_then(|f| f.line_base)
        {
            Some((phys, base)) if line >= phys => base.saturating_add((line - phys) as u32),
            _ => line as u32,
        }
    }

    /// Reads the arguments of a function-like macro after its `(`. Returns the raw argument
    /// token lists and the `)` token, or `None` after a diagnostic.
    fn collect_args(&mut self, name: &Token, m: &Macro) -> Option<(Vec<Vec<Token>>, Token)> {
        let nparams = m.params.as_ref().map_or(0, Vec::len);
        let mut args: Vec<Vec<Token>> = vec![Vec::new()];
        let mut depth = 0usize;
        loop {
            let Some(t) = self.next_raw() else {
                self.error_at(
                    "OSP0020",
                    name,
                    format!("unterminated argument list invoking macro `{}`", name.text),
                );
                return None;
            };
            if t.is_punct("(") {
                depth += 1;
            } else if t.is_punct(")") {
                if depth == 0 {
                    let given = if args.len() == 1 && args[0].is_empty() && nparams == 0 {
                        0
                    } else {
                        args.len()
                    };
                    let ok = if m.variadic {
                        given + 1 >= nparams
                    } else {
                        given == nparams || (nparams == 1 && given == 0)
                    };
                    if !ok {
                        self.error_at(
                            "OSP0021",
                            name,
                            format!(
                                "macro `{}` takes {} argument{}, but {} {} given",
                                name.text,
                                nparams,
                                if nparams == 1 { "" } else { "s" },
                                given,
                                if given == 1 { "was" } else { "were" }
                            ),
                        );
                        return None;
                    }
                    while args.len() < nparams {
                        args.push(Vec::new());
                    }
                    if nparams == 0 {
                        args.clear();
                    }
                    return Some((args, t));
                }
                depth -= 1;
            } else if t.is_punct(",") && depth == 0 && !(m.variadic && args.len() >= nparams) {
                args.push(Vec::new());
                continue;
            }
            if let Some(a) = args.last_mut() {
                a.push(t);
            }
            if args.iter().map(Vec::len).sum::<usize>() > MAX_EXPANSION_WORK / 4 {
                self.error_at("OSP0030", name, "macro argument list is too long");
                self.abort();
                return None;
            }
        }
    }

    /// Fully macro-expands `toks` on their own (a macro argument, an `#if` line, an `#include`
    /// operand).
    fn expand_isolated(&mut self, toks: Vec<Token>, at: &Token) -> Vec<Token> {
        if self.isolated >= MAX_EXPANSION_NESTING {
            self.error_at(
                "OSP0031",
                at,
                format!("macro invocations nested more than {MAX_EXPANSION_NESTING} deep"),
            );
            self.abort();
            return Vec::new();
        }
        let saved = std::mem::replace(&mut self.pushback, toks.into_iter().rev().collect());
        self.isolated += 1;
        let mut out = Vec::new();
        while let Some(t) = self.next_expanded() {
            out.push(t);
        }
        self.isolated -= 1;
        self.pushback = saved;
        out
    }

    /// The replacement list of a function-like macro with arguments substituted, `#` and `##`
    /// applied. Body tokens are tagged with [`BODY_MARK`].
    fn substitute(&mut self, name: &Token, m: &Macro, args: Vec<Vec<Token>>) -> Option<Vec<Token>> {
        let mut expanded: Vec<Option<Vec<Token>>> = vec![None; args.len()];
        let mut out: Vec<Token> = Vec::new();
        let body = &m.body;
        let mut i = 0;
        // True when the last operand pushed was an empty argument (a placemarker for `##`).
        let mut placemarker = false;
        let body_tok = |t: &Token| {
            let mut t = t.clone();
            t.expansion = Some(BODY_MARK);
            t
        };
        while i < body.len() {
            let (t, param) = &body[i];
            // `#param`
            if t.is_punct("#")
                && let Some((_, Some(p))) = body.get(i + 1)
            {
                let arg = args.get(*p as usize).map(Vec::as_slice).unwrap_or(&[]);
                let mut s = stringize(arg);
                s.span = t.span;
                s.flags = t.flags;
                s.expansion = Some(BODY_MARK);
                out.push(s);
                placemarker = false;
                i += 2;
                continue;
            }
            if t.is_punct("##") {
                let Some((rhs, rparam)) = body.get(i + 1) else {
                    i += 1;
                    continue;
                };
                i += 2;
                let rhs_toks: Vec<Token> = match rparam {
                    Some(p) => {
                        let arg = args.get(*p as usize).cloned().unwrap_or_default();
                        // GNU `, ## __VA_ARGS__`: an empty variadic argument removes the comma.
                        if m.variadic
                            && *p as usize + 1 == args.len()
                            && out.last().is_some_and(|l| l.is_punct(","))
                            && !placemarker
                        {
                            if arg.is_empty() {
                                out.pop();
                            } else {
                                out.extend(arg);
                            }
                            placemarker = false;
                            continue;
                        }
                        arg
                    }
                    None => vec![body_tok(rhs)],
                };
                if placemarker || out.is_empty() {
                    placemarker = rhs_toks.is_empty();
                    out.extend(rhs_toks);
                    continue;
                }
                let mut rest = rhs_toks.into_iter();
                if let Some(first) = rest.next() {
                    // `out` is non-empty here (checked above).
                    if let Some(lhs) = out.pop() {
                        let pasted = self.paste(&lhs, &first);
                        out.extend(pasted);
                    }
                    out.extend(rest);
                }
                placemarker = false;
                continue;
            }
            match param {
                Some(p) => {
                    let p = *p as usize;
                    let next_is_paste = body.get(i + 1).is_some_and(|(n, _)| n.is_punct("##"));
                    if next_is_paste {
                        let arg = args.get(p).cloned().unwrap_or_default();
                        placemarker = arg.is_empty();
                        out.extend(arg);
                    } else {
                        if expanded.get(p).is_some_and(Option::is_none) {
                            let arg = args.get(p).cloned().unwrap_or_default();
                            let e = self.expand_isolated(arg, name);
                            if self.aborted {
                                return None;
                            }
                            expanded[p] = Some(e);
                        }
                        let e = expanded.get(p).and_then(Option::as_ref);
                        let mut first = true;
                        for et in e.into_iter().flatten() {
                            let mut et = et.clone();
                            if first {
                                et.flags = (et.flags & !LEADING_SPACE) | (t.flags & LEADING_SPACE);
                                first = false;
                            }
                            out.push(et);
                        }
                        placemarker = false;
                    }
                }
                None => {
                    out.push(body_tok(t));
                    placemarker = false;
                }
            }
            i += 1;
        }
        Some(out)
    }

    /// `lhs ## rhs`: one token when the joined spelling lexes as one, else both (with an error).
    fn paste(&mut self, lhs: &Token, rhs: &Token) -> Vec<Token> {
        let joined = format!("{}{}", lhs.text, rhs.text);
        let toks = lex_all(&joined);
        if toks.len() == 1 && toks[0].start == 0 && toks[0].end == joined.len() {
            let span = lhs.span.to(rhs.span);
            return vec![Token {
                kind: toks[0].kind,
                text: joined.into(),
                span,
                expansion: lhs.expansion,
                flags: lhs.flags,
                hideset: self.hidesets.union(lhs.hideset, rhs.hideset),
            }];
        }
        if joined.is_empty() {
            return Vec::new();
        }
        self.error_at(
            "OSP0022",
            lhs,
            format!(
                "pasting `{}` and `{}` does not give a valid preprocessing token",
                lhs.text, rhs.text
            ),
        );
        vec![lhs.clone(), rhs.clone()]
    }

    // ----- directives -----

    fn directive(&mut self, hash: Token) {
        if self.top_at_line_end() {
            return; // null directive
        }
        let Some(name) = self.lex_top() else {
            return;
        };
        let span = hash.span.to(name.span);
        if name.kind == TokenKind::Number {
            // GNU line marker `# 12 "file"`.
            let mut toks = vec![name];
            toks.extend(self.line_tokens());
            self.line_directive(span, toks);
            return;
        }
        match &*name.text {
            "define" => self.define(),
            "undef" => {
                let toks = self.line_tokens();
                match toks.first() {
                    Some(t) if t.is_ident() => {
                        if toks.len() > 1 {
                            self.warn_extra(&toks[1], "#undef");
                        }
                        if !self.is_builtin(&t.text) {
                            self.macros.remove(&*t.text);
                        }
                    }
                    _ => self.error("OSP0011", span, "`#undef` needs a macro name"),
                }
            }
            "include" => self.include(span),
            "if" => {
                let toks = self.line_tokens();
                let v = self.eval_if(span, toks);
                self.open_cond(span, v);
            }
            "ifdef" | "ifndef" => {
                let toks = self.line_tokens();
                let v = match toks.first() {
                    Some(t) if t.is_ident() => {
                        if toks.len() > 1 {
                            self.warn_extra(&toks[1], &format!("#{}", name.text));
                        }
                        self.macros.contains_key(&*t.text) == (&*name.text == "ifdef")
                    }
                    _ => {
                        self.error(
                            "OSP0011",
                            span,
                            format!("`#{}` needs a macro name", name.text),
                        );
                        false
                    }
                };
                self.open_cond(span, v);
            }
            "elif" | "else" => {
                let is_else = &*name.text == "else";
                self.skip_line();
                let Some(c) = self.frames.last_mut().and_then(|f| f.conds.last_mut()) else {
                    self.error("OSP0012", span, format!("`#{}` without `#if`", name.text));
                    return;
                };
                let was_else = c.in_else;
                if is_else {
                    c.in_else = true;
                }
                if was_else {
                    self.error("OSP0013", span, format!("`#{}` after `#else`", name.text));
                }
                // The group we were in was taken: skip to `#endif`.
                self.skip_group();
            }
            "endif" => {
                let extra = self.line_tokens();
                if let Some(t) = extra.first() {
                    self.warn_extra(t, "#endif");
                }
                let popped = self.frames.last_mut().and_then(|f| f.conds.pop());
                if popped.is_none() {
                    self.error("OSP0012", span, "`#endif` without `#if`");
                }
            }
            "pragma" => self.pragma(span),
            "line" => {
                let toks = self.line_tokens();
                let toks = self.expand_isolated(toks, &name);
                self.line_directive(span, toks);
            }
            "error" | "warning" => {
                let (s, e, file) = match self.frames.last_mut() {
                    Some(f) => {
                        let text = f.text.clone();
                        let (s, e) = f.lexer.rest_of_line(text.as_bytes());
                        (s, e, f.file)
                    }
                    None => return,
                };
                let msg = self
                    .sources
                    .text(file)
                    .get(s..e)
                    .unwrap_or("")
                    .trim()
                    .to_string();
                let full = span.to(Span::new(file, s..e));
                if &*name.text == "error" {
                    self.error("OSP0040", full, format!("#error {msg}"));
                } else {
                    self.out.diagnostics.push(
                        Diagnostic::warning("OSP0041", format!("#warning {msg}")).with_span(full),
                    );
                }
            }
            _ => {
                self.skip_line();
                self.error(
                    "OSP0014",
                    span,
                    format!("unknown preprocessor directive `#{}`", name.text),
                );
            }
        }
    }

    fn is_builtin(&self, name: &str) -> bool {
        self.macros.get(name).is_some_and(|m| m.builtin.is_some())
    }

    fn warn_extra(&mut self, tok: &Token, directive: &str) {
        self.out.diagnostics.push(
            Diagnostic::warning("OSP0015", format!("extra tokens at end of `{directive}`"))
                .with_span(tok.span),
        );
    }

    fn open_cond(&mut self, span: Span, value: bool) {
        let Some(f) = self.frames.last_mut() else {
            return;
        };
        f.conds.push(Cond {
            span,
            taken: value,
            in_else: false,
        });
        if !value {
            self.skip_group();
        }
    }

    /// Skips lines until a branch of the innermost open group becomes active or it ends.
    fn skip_group(&mut self) {
        let mut depth = 0usize;
        loop {
            let Some(f) = self.frames.last_mut() else {
                return;
            };
            let text = f.text.clone();
            let file = f.file;
            let Some(raw) = f.lexer.next(text.as_bytes(), None) else {
                return; // the file end reports the open group
            };
            if raw.flags & LINE_START == 0 || &text[raw.start..raw.end] != "#" {
                continue;
            }
            if self.top_at_line_end() {
                continue;
            }
            let Some(f) = self.frames.last_mut() else {
                return;
            };
            let Some(dn) = f.lexer.next(text.as_bytes(), None) else {
                return;
            };
            let dname = &text[dn.start..dn.end];
            let span = Span::new(file, raw.start..dn.end);
            match dname {
                "if" | "ifdef" | "ifndef" => depth += 1,
                "endif" if depth > 0 => depth -= 1,
                "endif" => {
                    self.skip_line();
                    if let Some(f) = self.frames.last_mut() {
                        f.conds.pop();
                    }
                    return;
                }
                "elif" | "else" if depth == 0 => {
                    let is_else = dname == "else";
                    let Some(c) = self.frames.last_mut().and_then(|f| f.conds.last_mut()) else {
                        return;
                    };
                    if c.in_else {
                        self.error("OSP0013", span, format!("`#{dname}` after `#else`"));
                        self.skip_line();
                        continue;
                    }
                    if is_else {
                        c.in_else = true;
                        let activate = !c.taken;
                        c.taken = true;
                        let extra = self.line_tokens();
                        if let Some(t) = extra.first() {
                            self.warn_extra(t, "#else");
                        }
                        if activate {
                            return;
                        }
                        continue;
                    }
                    if c.taken {
                        self.skip_line();
                        continue;
                    }
                    let toks = self.line_tokens();
                    if self.eval_if(span, toks) {
                        if let Some(c) = self.frames.last_mut().and_then(|f| f.conds.last_mut()) {
                            c.taken = true;
                        }
                        return;
                    }
                    continue;
                }
                _ => {}
            }
            self.skip_line();
        }
    }

    fn define(&mut self) {
        let toks = self.line_tokens();
        let Some(name) = toks.first() else {
            let span = self
                .frames
                .last()
                .map(|f| Span::new(f.file, f.lexer.pos()..f.lexer.pos()));
            self.out.diagnostics.push(
                Diagnostic::error("OSP0011", "`#define` needs a macro name").with_opt_span(span),
            );
            return;
        };
        if !name.is_ident() {
            self.error_at("OSP0011", name, "macro names must be identifiers");
            return;
        }
        if &*name.text == "defined" || self.is_builtin(&name.text) {
            self.error_at(
                "OSP0016",
                name,
                format!("`{}` cannot be defined as a macro", name.text),
            );
            return;
        }
        let mut i = 1;
        let mut params = None;
        let mut variadic = false;
        if toks
            .get(1)
            .is_some_and(|t| t.is_punct("(") && !t.has_leading_space())
        {
            let mut ps: Vec<Arc<str>> = Vec::new();
            i = 2;
            let mut ok = false;
            let mut expect_name = true;
            while let Some(t) = toks.get(i) {
                i += 1;
                if t.is_punct(")") && (!expect_name || ps.is_empty()) && !variadic {
                    ok = true;
                    break;
                }
                if variadic {
                    if t.is_punct(")") {
                        ok = true;
                    }
                    break;
                }
                if expect_name {
                    if t.is_punct("...") {
                        ps.push("__VA_ARGS__".into());
                        variadic = true;
                        continue;
                    }
                    if !t.is_ident() || ps.contains(&t.text) {
                        break;
                    }
                    ps.push(t.text.clone());
                    // GNU named variadic parameter `args...`.
                    if toks.get(i).is_some_and(|n| n.is_punct("...")) {
                        i += 1;
                        variadic = true;
                    }
                    expect_name = false;
                } else if t.is_punct(",") {
                    expect_name = true;
                } else {
                    break;
                }
            }
            if !ok {
                self.error_at(
                    "OSP0017",
                    name,
                    format!(
                        "malformed parameter list in definition of macro `{}`",
                        name.text
                    ),
                );
                return;
            }
            params = Some(ps);
        }
        let mut body: Vec<(Token, Option<u16>)> = Vec::new();
        for (k, t) in toks[i.min(toks.len())..].iter().enumerate() {
            let mut t = t.clone();
            if k == 0 {
                t.flags &= !LEADING_SPACE;
            }
            t.flags &= !LINE_START;
            let p = params.as_ref().and_then(|ps: &Vec<Arc<str>>| {
                if t.is_ident() {
                    ps.iter().position(|p| *p == t.text).map(|p| p as u16)
                } else {
                    None
                }
            });
            body.push((t, p));
        }
        if let (Some(first), Some(last)) = (body.first(), body.last()) {
            if first.0.is_punct("##") {
                self.error_at("OSP0018", &first.0, "`##` cannot start a replacement list");
                return;
            }
            if last.0.is_punct("##") {
                self.error_at("OSP0018", &last.0, "`##` cannot end a replacement list");
                return;
            }
        }
        if params.is_some() {
            for (k, (t, _)) in body.iter().enumerate() {
                if t.is_punct("#") && !body.get(k + 1).is_some_and(|(_, p)| p.is_some()) {
                    let t = t.clone();
                    self.error_at("OSP0019", &t, "`#` is not followed by a macro parameter");
                    return;
                }
            }
        }
        let id = self.name_id(&name.text);
        let m = Macro {
            def_span: name.span,
            params,
            variadic,
            body,
            builtin: None,
            id,
        };
        if let Some(old) = self.macros.get(&*name.text) {
            if old.same_definition(&m) {
                // An identical redefinition is allowed and keeps the first definition's place.
                return;
            }
            let old_span = old.def_span;
            let mut d = Diagnostic::warning("OSP0050", format!("macro `{}` redefined", name.text))
                .with_span(name.span);
            if old_span.end > 0 || old_span.file != FileId::default() {
                d = d.with_label(old_span, "previous definition is here");
            }
            self.out.diagnostics.push(d);
        }
        self.macros.insert(name.text.clone(), Rc::new(m));
    }

    fn include(&mut self, span: Span) {
        let (file, dir) = match self.frames.last() {
            Some(f) => (f.file, f.dir.clone()),
            None => return,
        };
        let header = self.frames.last_mut().and_then(|f| {
            let text = f.text.clone();
            f.lexer
                .header_name(text.as_bytes())
                .map(|(s, e)| (text[s + 1..e - 1].to_string(), Span::new(file, s..e)))
        });
        let (name, nspan) = match header {
            Some(h) => {
                let extra = self.line_tokens();
                if let Some(t) = extra.first() {
                    self.warn_extra(t, "#include");
                }
                h
            }
            None => {
                let toks = self.line_tokens();
                let Some(first) = toks.first().cloned() else {
                    self.error("OSP0004", span, "`#include` needs a file name");
                    return;
                };
                let toks = if first.kind == TokenKind::String {
                    toks
                } else {
                    self.expand_isolated(toks, &first)
                };
                match toks.first() {
                    Some(t) if t.kind == TokenKind::String && t.text.len() >= 2 => {
                        (strip_quotes(&t.text).to_string(), t.span)
                    }
                    Some(t) if t.is_punct("<") => {
                        let mut s = String::new();
                        let mut closed = false;
                        for t in &toks[1..] {
                            if t.is_punct(">") {
                                closed = true;
                                break;
                            }
                            if t.has_leading_space() && !s.is_empty() {
                                s.push(' ');
                            }
                            s.push_str(&t.text);
                        }
                        if !closed {
                            self.error("OSP0004", span, "expected `>` closing the file name");
                            return;
                        }
                        (s, first.span)
                    }
                    _ => {
                        self.error(
                            "OSP0004",
                            first.span,
                            "`#include` expects \"FILE\" or <FILE>",
                        );
                        return;
                    }
                }
            }
        };
        if self.frames.len() > MAX_INCLUDE_DEPTH {
            self.error(
                "OSP0006",
                nspan,
                format!("`#include` nested more than {MAX_INCLUDE_DEPTH} deep"),
            );
            self.abort();
            return;
        }
        let mut candidates: Vec<PathBuf> = Vec::new();
        // Windows-style separators in include names are common in shaders.
        let portable = if std::path::MAIN_SEPARATOR == '/' {
            name.replace('\\', "/")
        } else {
            name.clone()
        };
        let rel = Path::new(&portable);
        if rel.is_absolute() {
            candidates.push(rel.to_path_buf());
        } else {
            // The including file's folder, then the folders of the files that include it
            // (innermost first, as DXC and glslang do), then the -I folders.
            if let Some(d) = &dir {
                candidates.push(d.join(rel));
            }
            for f in self.frames.iter().rev().skip(1) {
                if let Some(d) = &f.dir {
                    candidates.push(d.join(rel));
                }
            }
            for d in &self.options.include_dirs {
                candidates.push(d.join(rel));
            }
            // Last, the name as written: relative to the working folder on disk, and the
            // name an in-memory file was added under (a source compiled as
            // `shaders/main.hlsl` finds an in-memory `common.h` added as `common.h`).
            candidates.push(rel.to_path_buf());
        }
        let searched: Vec<String> = candidates
            .iter()
            .map(|c| {
                let folder = c.parent().map(Path::to_path_buf).unwrap_or_default();
                if folder.as_os_str().is_empty() {
                    "the working folder (and in-memory files by their own name)".to_string()
                } else {
                    folder.display().to_string()
                }
            })
            .collect();
        for path in candidates {
            let Ok(text) = self.loader.load(&path) else {
                continue;
            };
            let text = normalize_line_ends(text);
            let key = self.loader.canonical(&path);
            if self.once.contains(&key) {
                return;
            }
            let path = normalize(&path);
            let fid = self.sources.add(path.display().to_string(), text.clone());
            self.out.files.push((fid, path.clone()));
            let dir = path.parent().map(Path::to_path_buf);
            self.push_frame(fid, text.into(), dir, Some(key), name.clone());
            return;
        }
        let mut d = Diagnostic::error("OSP0005", format!("cannot find include file `{name}`"))
            .with_span(nspan);
        d.notes.push(format!("searched: {}", searched.join(", ")));
        self.out.diagnostics.push(d);
    }

    fn pragma(&mut self, span: Span) {
        let toks = self.line_tokens();
        let full = match toks.last() {
            Some(l) => span.to(l.span),
            None => span,
        };
        if toks.len() == 1 && toks[0].is("once") {
            if let Some(key) = self.frames.last().and_then(|f| f.key.clone()) {
                self.once.insert(key);
            }
            return;
        }
        self.out.pragmas.push(Pragma {
            tokens: toks,
            span: full,
            position: self.out.tokens.len(),
        });
    }

    fn line_directive(&mut self, span: Span, toks: Vec<Token>) {
        let line = toks
            .first()
            .filter(|t| t.kind == TokenKind::Number)
            .and_then(|t| t.text.parse::<u32>().ok());
        let Some(line) = line else {
            self.error("OSP0007", span, "`#line` needs a line number");
            return;
        };
        let file_name = match toks.get(1) {
            Some(t) if t.kind == TokenKind::String && t.text.len() >= 2 => {
                Some(unescape(strip_quotes(&t.text)))
            }
            Some(t) => {
                let t = t.clone();
                self.error_at("OSP0007", &t, "`#line` file name must be a string");
                None
            }
            None => None,
        };
        let (phys, _) = self.sources.line_col(span.file, span.start);
        if let Some(f) = self.frames.last_mut() {
            f.line_base = Some((phys + 1, line));
            if let Some(n) = &file_name {
                f.presumed_name = n.clone();
            }
        }
        self.out.line_directives.push(LineDirective {
            span,
            line,
            file_name,
        });
    }

    // ----- #if expressions -----

    fn eval_if(&mut self, span: Span, toks: Vec<Token>) -> bool {
        if toks.is_empty() {
            self.error("OSP0008", span, "`#if` with no expression");
            return false;
        }
        let at = toks[0].clone();
        let toks = self.replace_defined(toks);
        self.in_if += 1;
        let toks = self.expand_isolated(toks, &at);
        self.in_if -= 1;
        let mut ev = IfEval {
            toks: &toks,
            pos: 0,
            depth: 0,
            skip: 0,
            err: None,
        };
        let v = ev.ternary();
        if ev.err.is_none() && ev.pos < toks.len() {
            ev.fail(ev.pos, "unexpected token in preprocessor expression");
        }
        match ev.err.take() {
            Some((pos, msg)) => {
                match toks.get(pos).or(toks.last()) {
                    Some(t) => {
                        let t = t.clone();
                        self.error_at("OSP0009", &t, msg)
                    }
                    None => self.error("OSP0009", span, msg),
                }
                false
            }
            None => v.v != 0,
        }
    }

    /// `defined X` / `defined(X)` read from the token stream (operand not expanded): `1` or `0`.
    fn defined_operator(&mut self, tok: Token) -> Token {
        let mut name = None;
        match self.next_raw() {
            Some(t) if t.is_ident() => name = Some(t),
            Some(t) if t.is_punct("(") => match self.next_raw() {
                Some(n) if n.is_ident() => match self.next_raw() {
                    Some(c) if c.is_punct(")") => name = Some(n),
                    Some(c) => self.pushback.push(c),
                    None => {}
                },
                Some(n) => self.pushback.push(n),
                None => {}
            },
            Some(t) => self.pushback.push(t),
            None => {}
        }
        let value = match &name {
            Some(n) => self.macros.contains_key(&*n.text),
            None => {
                self.error_at("OSP0009", &tok, "`defined` needs a macro name");
                false
            }
        };
        Token {
            kind: TokenKind::Number,
            text: if value { "1".into() } else { "0".into() },
            ..tok
        }
    }

    /// Replaces `defined X` and `defined(X)` by `1`/`0`.
    fn replace_defined(&mut self, toks: Vec<Token>) -> Vec<Token> {
        let mut out = Vec::with_capacity(toks.len());
        let mut i = 0;
        while i < toks.len() {
            let t = &toks[i];
            if t.is("defined") {
                let (name, next) = if toks.get(i + 1).is_some_and(|p| p.is_punct("(")) {
                    match (toks.get(i + 2), toks.get(i + 3)) {
                        (Some(n), Some(c)) if n.is_ident() && c.is_punct(")") => (Some(n), i + 4),
                        _ => (None, i + 1),
                    }
                } else {
                    match toks.get(i + 1) {
                        Some(n) if n.is_ident() => (Some(n), i + 2),
                        _ => (None, i + 1),
                    }
                };
                match name {
                    Some(n) => {
                        let v = self.macros.contains_key(&*n.text);
                        out.push(Token {
                            kind: TokenKind::Number,
                            text: if v { "1".into() } else { "0".into() },
                            ..t.clone()
                        });
                    }
                    None => {
                        let t = t.clone();
                        self.error_at("OSP0009", &t, "`defined` needs a macro name");
                        out.push(Token {
                            kind: TokenKind::Number,
                            text: "0".into(),
                            ..t
                        });
                    }
                }
                i = next;
                continue;
            }
            out.push(t.clone());
            i += 1;
        }
        out
    }
}

/// Marks body tokens during substitution until the expansion id is known.
const BODY_MARK: ExpansionId = ExpansionId(u32::MAX);

/// `#arg`: the argument's spelling as a string literal.
fn stringize(arg: &[Token]) -> Token {
    let mut s = String::from("\"");
    for (i, t) in arg.iter().enumerate() {
        if i > 0 && t.has_leading_space() {
            s.push(' ');
        }
        if matches!(t.kind, TokenKind::String | TokenKind::Char) {
            for c in t.text.chars() {
                if c == '"' || c == '\\' {
                    s.push('\\');
                }
                s.push(c);
            }
        } else {
            s.push_str(&t.text);
        }
    }
    s.push('"');
    Token {
        kind: TokenKind::String,
        text: s.into(),
        span: arg.first().map(|t| t.span).unwrap_or_default(),
        expansion: None,
        flags: 0,
        hideset: 0,
    }
}

fn quote(s: &str) -> String {
    let mut q = String::from("\"");
    for c in s.chars() {
        if c == '"' || c == '\\' {
            q.push('\\');
        }
        q.push(c);
    }
    q.push('"');
    q
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A value in an `#if` expression.
#[derive(Clone, Copy, Debug)]
struct Val {
    v: i64,
    unsigned: bool,
}

struct IfEval<'t> {
    toks: &'t [Token],
    pos: usize,
    depth: usize,
    /// Non-zero inside the unevaluated operand of `&&`, `||`, `?:` (errors like division by zero are
    /// not reported there).
    skip: usize,
    err: Option<(usize, String)>,
}

impl IfEval<'_> {
    fn fail(&mut self, pos: usize, msg: impl Into<String>) {
        if self.err.is_none() {
            self.err = Some((pos, msg.into()));
        }
    }

    fn peek(&self) -> Option<&Token> {
        self.toks.get(self.pos)
    }

    fn eat(&mut self, p: &str) -> bool {
        if self.peek().is_some_and(|t| t.is_punct(p)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn ternary(&mut self) -> Val {
        let c = self.binary(1);
        if self.eat("?") {
            let cond = c.v != 0;
            if !cond {
                self.skip += 1;
            }
            let a = self.ternary();
            if !cond {
                self.skip -= 1;
            }
            if !self.eat(":") {
                self.fail(self.pos, "expected `:` in preprocessor expression");
                return c;
            }
            if cond {
                self.skip += 1;
            }
            let b = self.ternary();
            if cond {
                self.skip -= 1;
            }
            let unsigned = a.unsigned || b.unsigned;
            let v = if cond { a.v } else { b.v };
            return Val { v, unsigned };
        }
        c
    }

    fn binop_prec(t: &Token) -> Option<u8> {
        if t.kind != TokenKind::Punct {
            return None;
        }
        Some(match &*t.text {
            "||" => 1,
            "&&" => 2,
            "|" => 3,
            "^" => 4,
            "&" => 5,
            "==" | "!=" => 6,
            "<" | ">" | "<=" | ">=" => 7,
            "<<" | ">>" => 8,
            "+" | "-" => 9,
            "*" | "/" | "%" => 10,
            _ => return None,
        })
    }

    fn binary(&mut self, min: u8) -> Val {
        let mut lhs = self.unary();
        while let Some(t) = self.peek() {
            let Some(p) = Self::binop_prec(t) else {
                break;
            };
            if p < min || self.err.is_some() {
                break;
            }
            let op = t.text.clone();
            let op_pos = self.pos;
            self.pos += 1;
            let short = match &*op {
                "&&" => lhs.v == 0,
                "||" => lhs.v != 0,
                _ => false,
            };
            if short {
                self.skip += 1;
            }
            let rhs = self.binary(p + 1);
            if short {
                self.skip -= 1;
            }
            lhs = self.apply(&op, lhs, rhs, op_pos);
        }
        lhs
    }

    fn apply(&mut self, op: &str, a: Val, b: Val, pos: usize) -> Val {
        let unsigned = a.unsigned || b.unsigned;
        let bool_val = |x: bool| Val {
            v: x as i64,
            unsigned: false,
        };
        let cmp = |x: Val, y: Val| -> std::cmp::Ordering {
            if unsigned {
                (x.v as u64).cmp(&(y.v as u64))
            } else {
                x.v.cmp(&y.v)
            }
        };
        let arith = |v: i64| Val { v, unsigned };
        match op {
            "||" => bool_val(a.v != 0 || b.v != 0),
            "&&" => bool_val(a.v != 0 && b.v != 0),
            "|" => arith(a.v | b.v),
            "^" => arith(a.v ^ b.v),
            "&" => arith(a.v & b.v),
            "==" => bool_val(a.v == b.v),
            "!=" => bool_val(a.v != b.v),
            "<" => bool_val(cmp(a, b).is_lt()),
            ">" => bool_val(cmp(a, b).is_gt()),
            "<=" => bool_val(cmp(a, b).is_le()),
            ">=" => bool_val(cmp(a, b).is_ge()),
            "<<" => Val {
                v: a.v.wrapping_shl((b.v & 63) as u32),
                unsigned: a.unsigned,
            },
            ">>" => Val {
                v: if a.unsigned {
                    ((a.v as u64) >> (b.v & 63)) as i64
                } else {
                    a.v >> (b.v & 63)
                },
                unsigned: a.unsigned,
            },
            "+" => arith(a.v.wrapping_add(b.v)),
            "-" => arith(a.v.wrapping_sub(b.v)),
            "*" => arith(a.v.wrapping_mul(b.v)),
            "/" | "%" => {
                if b.v == 0 {
                    if self.skip == 0 {
                        self.fail(pos, "division by zero in preprocessor expression");
                    }
                    return arith(0);
                }
                let v = match (op, unsigned) {
                    ("/", true) => ((a.v as u64) / (b.v as u64)) as i64,
                    ("%", true) => ((a.v as u64) % (b.v as u64)) as i64,
                    ("/", false) => a.v.wrapping_div(b.v),
                    _ => a.v.wrapping_rem(b.v),
                };
                arith(v)
            }
            _ => arith(0),
        }
    }

    fn unary(&mut self) -> Val {
        if self.err.is_some() {
            return Val {
                v: 0,
                unsigned: false,
            };
        }
        let Some(t) = self.peek().cloned() else {
            self.fail(self.pos, "expected a value in preprocessor expression");
            return Val {
                v: 0,
                unsigned: false,
            };
        };
        self.pos += 1;
        match t.kind {
            TokenKind::Punct => match &*t.text {
                "(" => {
                    self.depth += 1;
                    if self.depth > MAX_IF_DEPTH {
                        self.fail(self.pos - 1, "preprocessor expression nested too deeply");
                        return Val {
                            v: 0,
                            unsigned: false,
                        };
                    }
                    let v = self.ternary();
                    self.depth -= 1;
                    if !self.eat(")") {
                        self.fail(self.pos, "expected `)` in preprocessor expression");
                    }
                    v
                }
                "+" | "-" | "~" | "!" => {
                    self.depth += 1;
                    if self.depth > MAX_IF_DEPTH {
                        self.fail(self.pos - 1, "preprocessor expression nested too deeply");
                        return Val {
                            v: 0,
                            unsigned: false,
                        };
                    }
                    let v = self.unary();
                    self.depth -= 1;
                    match &*t.text {
                        "+" => v,
                        "-" => Val {
                            v: v.v.wrapping_neg(),
                            ..v
                        },
                        "~" => Val { v: !v.v, ..v },
                        _ => Val {
                            v: (v.v == 0) as i64,
                            unsigned: false,
                        },
                    }
                }
                _ => {
                    self.fail(
                        self.pos - 1,
                        format!("unexpected `{}` in preprocessor expression", t.text),
                    );
                    Val {
                        v: 0,
                        unsigned: false,
                    }
                }
            },
            TokenKind::Number => match parse_pp_int(&t.text) {
                Some(v) => v,
                None => {
                    self.fail(
                        self.pos - 1,
                        format!(
                            "invalid integer constant `{}` in preprocessor expression",
                            t.text
                        ),
                    );
                    Val {
                        v: 0,
                        unsigned: false,
                    }
                }
            },
            TokenKind::Ident => {
                // Identifiers left after expansion are 0, except `true`.
                if self.peek().is_some_and(|n| n.is_punct("(")) {
                    self.fail(
                        self.pos - 1,
                        format!(
                            "function-like macro `{}` is not defined in preprocessor expression",
                            t.text
                        ),
                    );
                }
                Val {
                    v: (&*t.text == "true") as i64,
                    unsigned: false,
                }
            }
            TokenKind::Char => Val {
                v: char_value(&t.text),
                unsigned: false,
            },
            _ => {
                self.fail(
                    self.pos - 1,
                    format!("unexpected `{}` in preprocessor expression", t.text),
                );
                Val {
                    v: 0,
                    unsigned: false,
                }
            }
        }
    }
}

/// An integer literal of a `#if` expression (decimal, hex, octal, binary; `u`/`l` suffixes).
fn parse_pp_int(text: &str) -> Option<Val> {
    let lower = text.to_ascii_lowercase();
    let digits_end = lower.trim_end_matches(['u', 'l']).len();
    let (body, suffix) = lower.split_at(digits_end);
    let unsigned = suffix.contains('u');
    let v = if let Some(h) = body.strip_prefix("0x") {
        u64::from_str_radix(h, 16).ok()?
    } else if let Some(b) = body.strip_prefix("0b") {
        u64::from_str_radix(b, 2).ok()?
    } else if body.len() > 1 && body.starts_with('0') {
        u64::from_str_radix(&body[1..], 8).ok()?
    } else {
        body.parse::<u64>().ok()?
    };
    Some(Val {
        v: v as i64,
        unsigned: unsigned || v > i64::MAX as u64,
    })
}

fn char_value(text: &str) -> i64 {
    let inner = text.trim_start_matches('\'').trim_end_matches('\'');
    let mut chars = inner.chars();
    match chars.next() {
        Some('\\') => match chars.next() {
            Some('n') => 10,
            Some('t') => 9,
            Some('r') => 13,
            Some('0') => 0,
            Some(c) => c as i64,
            None => 0,
        },
        Some(c) => c as i64,
        None => 0,
    }
}

/// The text between the quotes of a string token; tolerates an unterminated token (which may
/// end inside a multi-byte character, where slicing off the last byte would panic).
fn strip_quotes(text: &str) -> &str {
    let inner = text.strip_prefix('"').unwrap_or(text);
    inner.strip_suffix('"').unwrap_or(inner)
}

/// A lone CR (a classic Mac OS line end) becomes `\n`, byte for byte, so that the lexer,
/// directives and diagnostics' line numbers see a line end there and spans stay valid; a CR
/// before an LF stays (whitespace).
pub fn normalize_line_ends(text: String) -> String {
    if !text.contains('\r') {
        return text;
    }
    let mut bytes = text.into_bytes();
    for i in 0..bytes.len() {
        if bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n') {
            bytes[i] = b'\n';
        }
    }
    // Replacing one ASCII byte by another keeps the text valid UTF-8.
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}
