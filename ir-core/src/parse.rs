//! Parser of the text form (grammar: docs/ir-text.md). `parse(print(m))` prints identically.
//!
//! Errors are [`Diagnostic`]s with codes `OST0001`.. and spans into the parsed file; the parser
//! never panics. Inside function bodies it recovers at the next line, so one run reports
//! several errors (up to [`MAX_ERRORS`]).
//!
//! | code | meaning |
//! |---|---|
//! | OST0001 | unexpected character |
//! | OST0002 | unterminated string |
//! | OST0003 | unexpected token (expected something else) |
//! | OST0004 | unknown opcode, type, enumeration member or decoration |
//! | OST0005 | bad number (syntax, or out of range for its type) |
//! | OST0006 | undefined value, block or global name |
//! | OST0007 | name defined twice |
//! | OST0008 | wrong number or kind of operands for an opcode |

use std::borrow::Cow;

use rustc_hash::FxHashMap;

use crate::diag::{Diagnostic, Errors, FileId, Span};
use crate::imm::{AddressSpace, Dim, ImageFormat, ImmKind, TextureAccess};
use crate::module::{InstId, Module, Payload};
use crate::ops::{Kind, Op, Rest, TypeRule};
use crate::structure::{Block, Func, Generic, StructType};
use crate::types::TextureDesc;

/// Most errors reported by one parse.
pub const MAX_ERRORS: usize = 20;

/// Parses a module from text in file 0 of a source map.
pub fn parse(text: &str) -> Result<Module, Errors> {
    parse_module(text, FileId(0))
}

/// Parses a module; spans of diagnostics point into `file`.
pub fn parse_module(text: &str, file: FileId) -> Result<Module, Errors> {
    parse_diags(text, file).map_err(Errors::new)
}

fn parse_diags(text: &str, file: FileId) -> Result<Module, Vec<Diagnostic>> {
    let tokens = match lex(text, file) {
        Ok(t) => t,
        Err(d) => return Err(vec![d]),
    };
    let mut p = Parser {
        toks: tokens,
        pos: 0,
        m: Module::new(),
        globals: FxHashMap::default(),
        scopes: Vec::new(),
        errors: Vec::new(),
    };
    p.module();
    if p.errors.is_empty() {
        Ok(p.m)
    } else {
        Err(p.errors)
    }
}

// ---- lexer -------------------------------------------------------------------------------

/// A token. Names and numbers borrow the parsed text; only a quoted string with escapes owns
/// its (unescaped) text, so lexing allocates nothing per token.
#[derive(Clone, Debug, PartialEq)]
enum Tok<'a> {
    Punct(char),
    Arrow,
    Newline,
    Ident(&'a str),
    Number(&'a str),
    Str(Cow<'a, str>),
    Global(Cow<'a, str>),
    Local {
        id: &'a str,
        hint: Option<Cow<'a, str>>,
    },
    Eof,
}

#[derive(Clone, Debug)]
struct Token<'a> {
    tok: Tok<'a>,
    span: Span,
}

fn describe(t: &Tok<'_>) -> String {
    match t {
        Tok::Punct(c) => format!("`{c}`"),
        Tok::Arrow => "`->`".into(),
        Tok::Newline => "end of line".into(),
        Tok::Ident(s) => format!("`{s}`"),
        Tok::Number(s) => format!("number `{s}`"),
        Tok::Str(_) => "string".into(),
        Tok::Global(s) => format!("`@{s}`"),
        Tok::Local { id, .. } => format!("`%{id}`"),
        Tok::Eof => "end of file".into(),
    }
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'$'
}

/// Splits `text` into tokens. It scans bytes: every character the grammar gives a meaning to
/// is ASCII, so other characters only occur inside strings and comments (or as whitespace or
/// an error), where they are decoded. Spans are byte offsets into `text`.
fn lex<'a>(text: &'a str, file: FileId) -> Result<Vec<Token<'a>>, Diagnostic> {
    let bytes = text.as_bytes();
    let n = bytes.len();
    let span = |a: usize, b: usize| Span::new(file, a..b);
    // The character starting at byte `i` (a char boundary: scanning only stops on ASCII bytes
    // or after a whole decoded character).
    let char_at = |i: usize| text[i..].chars().next().unwrap_or('\u{fffd}');
    // About one token per five bytes of text.
    let mut toks = Vec::with_capacity(n / 5 + 1);
    let mut i = 0;
    let read_string = |i: &mut usize| -> Result<Cow<'a, str>, Diagnostic> {
        // bytes[*i] is the opening quote.
        let start = *i;
        *i += 1;
        // Without escapes the string is a slice of the text.
        let plain_end = (*i..n).find(|&k| matches!(bytes[k], b'"' | b'\\' | b'\n'));
        if let Some(end) = plain_end
            && bytes[end] == b'"'
        {
            *i = end + 1;
            return Ok(Cow::Borrowed(&text[start + 1..end]));
        }
        let mut s = String::new();
        while *i < n {
            match bytes[*i] {
                b'"' => {
                    *i += 1;
                    return Ok(Cow::Owned(s));
                }
                b'\\' if *i + 1 < n => {
                    let e = bytes[*i + 1];
                    *i += 2;
                    match e {
                        b'n' => s.push('\n'),
                        b't' => s.push('\t'),
                        b'"' => s.push('"'),
                        b'\\' => s.push('\\'),
                        b'u' if *i < n && bytes[*i] == b'{' => {
                            let close = (*i..n).find(|&k| bytes[k] == b'}');
                            let Some(close) = close else {
                                return Err(Diagnostic::error("OST0002", "bad \\u{} escape")
                                    .with_span(span(start, *i)));
                            };
                            let ch = text
                                .get(*i + 1..close)
                                .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                                .and_then(char::from_u32);
                            match ch {
                                Some(ch) => s.push(ch),
                                None => {
                                    return Err(Diagnostic::error("OST0002", "bad \\u{} escape")
                                        .with_span(span(start, close + 1)));
                                }
                            }
                            *i = close + 1;
                        }
                        _ => {
                            // The escaped character may be wider than one byte.
                            let c = char_at(*i - 1);
                            return Err(Diagnostic::error("OST0002", "unknown escape")
                                .with_span(span(*i - 2, *i - 1 + c.len_utf8())));
                        }
                    }
                }
                b'\n' => break,
                _ => {
                    let c = char_at(*i);
                    s.push(c);
                    *i += c.len_utf8();
                }
            }
        }
        Err(Diagnostic::error("OST0002", "unterminated string").with_span(span(start, *i)))
    };
    while i < n {
        let c = bytes[i];
        let start = i;
        match c {
            b'\n' => {
                toks.push(Token {
                    tok: Tok::Newline,
                    span: span(i, i + 1),
                });
                i += 1;
            }
            c if c.is_ascii_whitespace() => i += 1,
            b'/' if i + 1 < n && bytes[i + 1] == b'/' => {
                while i < n && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'-' if i + 1 < n && bytes[i + 1] == b'>' => {
                toks.push(Token {
                    tok: Tok::Arrow,
                    span: span(i, i + 2),
                });
                i += 2;
            }
            b'{' | b'}' | b'(' | b')' | b'[' | b']' | b'<' | b'>' | b',' | b':' | b'=' | b'|' => {
                toks.push(Token {
                    tok: Tok::Punct(c as char),
                    span: span(i, i + 1),
                });
                i += 1;
            }
            b'"' => {
                let s = read_string(&mut i)?;
                toks.push(Token {
                    tok: Tok::Str(s),
                    span: span(start, i),
                });
            }
            b'@' => {
                i += 1;
                let name = if i < n && bytes[i] == b'"' {
                    read_string(&mut i)?
                } else {
                    let b = i;
                    while i < n && is_name_char(bytes[i]) {
                        i += 1;
                    }
                    Cow::Borrowed(&text[b..i])
                };
                if name.is_empty() {
                    return Err(Diagnostic::error("OST0001", "expected a name after `@`")
                        .with_span(span(start, i)));
                }
                toks.push(Token {
                    tok: Tok::Global(name),
                    span: span(start, i),
                });
            }
            b'%' => {
                i += 1;
                let b = i;
                while i < n && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                let id = &text[b..i];
                if id.is_empty() {
                    return Err(
                        Diagnostic::error("OST0001", "expected a value name after `%`")
                            .with_span(span(start, i)),
                    );
                }
                let hint = if i < n && bytes[i] == b'.' {
                    i += 1;
                    if i < n && bytes[i] == b'"' {
                        Some(read_string(&mut i)?)
                    } else {
                        let b = i;
                        while i < n && is_name_char(bytes[i]) {
                            i += 1;
                        }
                        Some(Cow::Borrowed(&text[b..i]))
                    }
                } else {
                    None
                };
                toks.push(Token {
                    tok: Tok::Local { id, hint },
                    span: span(start, i),
                });
            }
            c if c.is_ascii_digit()
                || (c == b'-' && i + 1 < n && bytes[i + 1].is_ascii_digit()) =>
            {
                i += 1;
                while i < n
                    && (bytes[i].is_ascii_alphanumeric()
                        || bytes[i] == b'.'
                        || bytes[i] == b'_'
                        || ((bytes[i] == b'-' || bytes[i] == b'+')
                            && matches!(bytes[i - 1], b'e' | b'E')
                            && !bytes[start..i].contains(&b'x')))
                {
                    i += 1;
                }
                let s = &text[start..i];
                // `1d`, `2d`, `3d` are texture dimensions, not numbers.
                let tok = if matches!(s, "1d" | "2d" | "3d") {
                    Tok::Ident(s)
                } else {
                    Tok::Number(s)
                };
                toks.push(Token {
                    tok,
                    span: span(start, i),
                });
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                while i < n && is_name_char(bytes[i]) {
                    i += 1;
                }
                // `depth?` (a texture whose depth-ness is unknown) is the one name with a `?`.
                if i < n && bytes[i] == b'?' && &text[start..i] == "depth" {
                    i += 1;
                }
                toks.push(Token {
                    tok: Tok::Ident(&text[start..i]),
                    span: span(start, i),
                });
            }
            _ => {
                let c = char_at(i);
                if c.is_whitespace() {
                    i += c.len_utf8();
                    continue;
                }
                return Err(
                    Diagnostic::error("OST0001", format!("unexpected character `{c}`"))
                        .with_span(span(i, i + c.len_utf8())),
                );
            }
        }
    }
    toks.push(Token {
        tok: Tok::Eof,
        span: span(n, n),
    });
    Ok(toks)
}

// ---- parser ------------------------------------------------------------------------------

type PResult<T> = Result<T, Diagnostic>;

/// One scope of local names (a generic body or a function).
#[derive(Default)]
struct Scope<'a> {
    values: FxHashMap<&'a str, InstId>,
    /// Forward references: placeholder instructions waiting for their definition.
    pending: FxHashMap<&'a str, (InstId, Span)>,
    blocks: FxHashMap<&'a str, (InstId, bool, Span)>,
}

struct Parser<'a> {
    toks: Vec<Token<'a>>,
    pos: usize,
    m: Module,
    globals: FxHashMap<String, InstId>,
    scopes: Vec<Scope<'a>>,
    errors: Vec<Diagnostic>,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> &Tok<'a> {
        &self.toks[self.pos.min(self.toks.len() - 1)].tok
    }

    fn peek_at(&self, k: usize) -> &Tok<'a> {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].tok
    }

    fn span(&self) -> Span {
        self.toks[self.pos.min(self.toks.len() - 1)].span
    }

    fn bump(&mut self) -> Token<'a> {
        let t = self.toks[self.pos.min(self.toks.len() - 1)].clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }

    fn err<T>(&self, code: &'static str, msg: impl Into<String>) -> PResult<T> {
        Err(Diagnostic::error(code, msg).with_span(self.span()))
    }

    fn unexpected<T>(&self, what: &str) -> PResult<T> {
        self.err(
            "OST0003",
            format!("expected {what}, found {}", describe(self.peek())),
        )
    }

    fn eat_punct(&mut self, c: char) -> bool {
        if *self.peek() == Tok::Punct(c) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect_punct(&mut self, c: char) -> PResult<()> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            self.unexpected(&format!("`{c}`"))
        }
    }

    fn eat_ident(&mut self, word: &str) -> bool {
        if matches!(self.peek(), Tok::Ident(s) if *s == word) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect_ident(&mut self, word: &str) -> PResult<()> {
        if self.eat_ident(word) {
            Ok(())
        } else {
            self.unexpected(&format!("`{word}`"))
        }
    }

    fn ident(&mut self) -> PResult<String> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.bump();
                Ok(s.to_string())
            }
            _ => self.unexpected("a name"),
        }
    }

    fn skip_newlines(&mut self) {
        while *self.peek() == Tok::Newline {
            self.bump();
        }
    }

    fn end_of_line(&mut self) -> PResult<()> {
        match self.peek() {
            Tok::Newline => {
                self.skip_newlines();
                Ok(())
            }
            Tok::Eof => Ok(()),
            _ => self.unexpected("end of line"),
        }
    }

    fn skip_line(&mut self) {
        while !matches!(self.peek(), Tok::Newline | Tok::Eof) {
            self.bump();
        }
        self.skip_newlines();
    }

    fn report(&mut self, d: Diagnostic) {
        if self.errors.len() < MAX_ERRORS {
            self.errors.push(d);
        }
    }

    // ---- module level ----------------------------------------------------------------------

    fn module(&mut self) {
        if let Err(d) = self.predeclare() {
            self.report(d);
            return;
        }
        self.skip_newlines();
        let root = self.m.root();
        while *self.peek() != Tok::Eof {
            if self.errors.len() >= MAX_ERRORS {
                return;
            }
            if let Err(d) = self.item(root) {
                self.report(d);
                // Recover at the next top-level item keyword.
                self.skip_line();
                while !matches!(self.peek(), Tok::Eof)
                    && !matches!(self.peek(), Tok::Ident(s) if is_item_keyword(s))
                {
                    self.skip_line();
                }
            }
        }
    }

    /// Creates every struct, global, function and generic named in the text before parsing,
    /// so references may precede definitions. Items are found at line starts; a line ending
    /// in `{` opens a body and a line that is only `}` closes one.
    fn predeclare(&mut self) -> PResult<()> {
        // Stack of open bodies: Some(generic body scope) for generics, None otherwise.
        let mut stack: Vec<Option<InstId>> = Vec::new();
        let mut i = 0;
        let mut line_start = true;
        while i < self.toks.len() {
            let t = self.toks[i].tok.clone();
            if t == Tok::Newline {
                line_start = true;
                i += 1;
                continue;
            }
            if t == Tok::Eof {
                break;
            }
            if line_start {
                line_start = false;
                // A line that is just `}` closes a body.
                if t == Tok::Punct('}')
                    && matches!(
                        self.toks.get(i + 1).map(|t| &t.tok),
                        Some(Tok::Newline | Tok::Eof)
                    )
                {
                    stack.pop();
                    i += 1;
                    continue;
                }
                let in_func = stack.last().is_some_and(|s| s.is_none());
                let scope = stack.iter().rev().find_map(|s| *s).unwrap_or(self.m.root());
                let mut kind = None;
                if !in_func
                    && let Tok::Ident(kw) = &t
                    && is_item_keyword(kw)
                    && *kw != "let"
                    && let Some(Token {
                        tok: Tok::Global(name),
                        span,
                    }) = self.toks.get(i + 1).cloned()
                {
                    if self.globals.contains_key(name.as_ref()) {
                        return Err(Diagnostic::error(
                            "OST0007",
                            format!("`@{name}` is defined twice"),
                        )
                        .with_span(span));
                    }
                    let id = match *kw {
                        "struct" => self.m.add_struct_in(scope, &name, &[]).id(),
                        "global" => {
                            let g = self.m.create_detached(Op::Global, None, &[], 0);
                            self.m.append_to_scope(scope, g);
                            self.m.set_name(g, Some(&name));
                            g
                        }
                        "func" => {
                            let f = self.m.create_detached(Op::Func, None, &[], 0);
                            self.m.append_to_scope(scope, f);
                            self.m.set_name(f, Some(&name));
                            f
                        }
                        _ => self.m.add_generic_in(scope, &name).id(),
                    };
                    self.globals.insert(name.into_owned(), id);
                    kind = Some((*kw, id));
                }
                // Find the end of this line to see whether it opens a body.
                let mut j = i;
                while j < self.toks.len() && !matches!(self.toks[j].tok, Tok::Newline | Tok::Eof) {
                    j += 1;
                }
                if j > i && self.toks[j - 1].tok == Tok::Punct('{') {
                    let body = match &kind {
                        Some((kw, id)) if *kw == "generic" => {
                            Some(self.m.generic_body(Generic::cast(&self.m, *id)).id())
                        }
                        _ => None,
                    };
                    // Struct bodies hold no items either; treat them like function bodies.
                    stack.push(body);
                }
                i = j;
                continue;
            }
            i += 1;
        }
        Ok(())
    }

    /// Reads the `@name` of an item being defined and checks it was predeclared as `op`.
    fn item_name(&mut self, op: Op) -> PResult<(String, InstId)> {
        let (name, id, span) = self.global_ref()?;
        if self.m.op(id) != op {
            return Err(Diagnostic::error(
                "OST0007",
                format!(
                    "`@{name}` is defined twice (once as a {})",
                    self.m.op(id).spelling()
                ),
            )
            .with_span(span));
        }
        Ok((name, id))
    }

    fn global_ref(&mut self) -> PResult<(String, InstId, Span)> {
        let span = self.span();
        match self.peek().clone() {
            Tok::Global(name) => {
                self.bump();
                match self.globals.get(name.as_ref()) {
                    Some(&id) => Ok((name.into_owned(), id, span)),
                    None => Err(
                        Diagnostic::error("OST0006", format!("undefined name `@{name}`"))
                            .with_span(span),
                    ),
                }
            }
            _ => self.unexpected("a `@name`"),
        }
    }

    fn item(&mut self, scope: InstId) -> PResult<()> {
        let kw = match self.peek().clone() {
            Tok::Ident(s) => s,
            _ => return self.unexpected("`struct`, `global`, `let`, `func` or `generic`"),
        };
        match kw {
            "module" => {
                self.bump();
                let root = self.m.root();
                self.decorations(root)?;
                self.end_of_line()
            }
            "let" => {
                self.bump();
                let span = self.span();
                let name = match self.bump().tok {
                    Tok::Global(n) => n,
                    _ => {
                        return Err(
                            Diagnostic::error("OST0003", "expected a `@name` after `let`")
                                .with_span(span),
                        );
                    }
                };
                if self.globals.contains_key(name.as_ref()) {
                    return Err(Diagnostic::error(
                        "OST0007",
                        format!("`@{name}` is defined twice"),
                    )
                    .with_span(span));
                }
                self.expect_punct('=')?;
                let v = self.value()?;
                if !self.m.op(v).is_hoistable() || self.m.op(v).is_type() {
                    return Err(Diagnostic::error(
                        "OST0003",
                        "`let` names a constant, `spec_const` or `specialize`",
                    )
                    .with_span(span));
                }
                self.m.set_name(v, Some(&name));
                self.globals.insert(name.into_owned(), v);
                self.end_of_line()
            }
            "struct" => self.struct_item(),
            "global" => self.global_item(),
            "func" => self.func_item(),
            "generic" => self.generic_item(scope),
            _ => self.unexpected("`struct`, `global`, `let`, `func` or `generic`"),
        }
    }

    fn struct_item(&mut self) -> PResult<()> {
        self.expect_ident("struct")?;
        let (_, id) = self.item_name(Op::Struct)?;
        self.decorations(id)?;
        self.expect_punct('{')?;
        self.end_of_line()?;
        let s = StructType::cast(&self.m, id);
        while *self.peek() != Tok::Punct('}') {
            let name = match self.bump().tok {
                Tok::Ident(n) => Cow::Borrowed(n),
                Tok::Str(n) => n,
                _ => {
                    self.pos -= 1;
                    return self.unexpected("a field name or `}`");
                }
            };
            self.expect_punct(':')?;
            let ty = self.ty()?;
            let f = self
                .m
                .add_field(s, if name == "_" { "" } else { &name }, ty);
            if name == "_" {
                self.m.set_name(f.id(), None);
            }
            self.decorations(f.id())?;
            self.end_of_line()?;
        }
        self.expect_punct('}')?;
        self.end_of_line()
    }

    fn global_item(&mut self) -> PResult<()> {
        self.expect_ident("global")?;
        let (_, id) = self.item_name(Op::Global)?;
        self.expect_punct(':')?;
        let ty = self.ty()?;
        self.m.set_type(id, Some(ty));
        if self.eat_punct('=') {
            let init = self.value()?;
            self.m
                .set_operands(id, &[init])
                .map_err(|e| Diagnostic::error("OST0008", e.to_string()).with_span(self.span()))?;
        }
        self.decorations(id)?;
        self.end_of_line()
    }

    fn func_item(&mut self) -> PResult<()> {
        self.expect_ident("func")?;
        let (name, id) = self.item_name(Op::Func)?;
        self.expect_punct('(')?;
        // A definition names its parameters (`%0: T`); a declaration lists types, which may
        // themselves be locals (a generic's parameter: `func @d(%0) -> %0`).
        let is_definition = (matches!(self.peek(), Tok::Local { .. })
            && *self.peek_at(1) == Tok::Punct(':'))
            || (*self.peek() == Tok::Punct(')') && self.paren_then_body());
        let func = Func::cast(&self.m, id);
        if !is_definition {
            // Declaration: parameter types only.
            let mut params = Vec::new();
            if !self.eat_punct(')') {
                loop {
                    params.push(self.ty()?);
                    if self.eat_punct(')') {
                        break;
                    }
                    self.expect_punct(',')?;
                }
            }
            if *self.peek() != Tok::Arrow {
                return self.unexpected("`->`");
            }
            self.bump();
            let ret = self.ty()?;
            let fty = self.m.fn_type(ret, &params);
            self.m.set_type(id, Some(fty));
            self.decorations(id)?;
            return self.end_of_line();
        }
        self.scopes.push(Scope::default());
        let result = self.func_body(func, &name);
        let scope = self.scopes.pop().unwrap_or_default();
        result?;
        self.close_scope(scope)
    }

    /// After `(` with `)` next: true when the function has a body (a `{` before end of line).
    fn paren_then_body(&self) -> bool {
        let mut k = self.pos;
        while k < self.toks.len() && !matches!(self.toks[k].tok, Tok::Newline | Tok::Eof) {
            k += 1;
        }
        k > 0 && self.toks[k - 1].tok == Tok::Punct('{')
    }

    fn func_body(&mut self, func: Func, _name: &str) -> PResult<()> {
        let id = func.id();
        // The entry block is created now (it holds the parameters) and bound to the first
        // label of the body.
        let entry = self.m.create_detached(Op::Block, None, &[], 0);
        let mut param_types = Vec::new();
        if !self.eat_punct(')') {
            loop {
                let (key, hint, span) = self.local_def()?;
                self.expect_punct(':')?;
                let ty = self.ty()?;
                let p = self.m.create_detached(Op::Param, Some(ty), &[], 0);
                self.m.append_child(entry, p);
                self.m.set_name(p, hint.as_deref());
                self.define_local(key, p, span)?;
                self.decorations(p)?;
                // Re-read the type: defining the parameter may have resolved a forward
                // reference that `ty` was (a parameter used as its own type).
                param_types.push(self.m.ty(p).unwrap_or(ty));
                if self.eat_punct(')') {
                    break;
                }
                self.expect_punct(',')?;
            }
        }
        if *self.peek() != Tok::Arrow {
            return self.unexpected("`->`");
        }
        self.bump();
        let ret = self.ty()?;
        let fty = self.m.fn_type(ret, &param_types);
        self.m.set_type(id, Some(fty));
        self.decorations(id)?;
        self.expect_punct('{')?;
        self.end_of_line()?;
        let mut current: Option<InstId> = None;
        let mut first = true;
        while !matches!(self.peek(), Tok::Punct('}') | Tok::Eof) {
            if self.errors.len() >= MAX_ERRORS {
                break;
            }
            let r = self.body_line(id, entry, &mut first, &mut current);
            if let Err(d) = r {
                self.report(d);
                self.skip_line();
            }
        }
        if first {
            // A body with no blocks: keep the entry block so parameters are not lost.
            self.m.append_child(id, entry);
        }
        self.expect_punct('}')?;
        self.end_of_line()
    }

    fn body_line(
        &mut self,
        func: InstId,
        entry: InstId,
        first: &mut bool,
        current: &mut Option<InstId>,
    ) -> PResult<()> {
        // A label: `name:` or `name(params):`.
        if let Tok::Ident(label) = self.peek().clone()
            && matches!(self.peek_at(1), Tok::Punct(':') | Tok::Punct('('))
            && Op::from_spelling(label.split('.').next().unwrap_or("")).is_none()
        {
            let span = self.span();
            self.bump();
            let (key, hint) = split_label(label);
            let block = if *first {
                *first = false;
                self.bind_block(key, entry, span)?;
                entry
            } else {
                self.define_block(key, span)?
            };
            self.m.detach(block);
            self.m.append_child(func, block);
            self.m.set_name(block, hint);
            if self.eat_punct('(') {
                loop {
                    let (k, h, s) = self.local_def()?;
                    self.expect_punct(':')?;
                    let ty = self.ty()?;
                    let p = self.m.add_block_param(Block::cast(&self.m, block), ty);
                    self.m.set_name(p, h.as_deref());
                    self.define_local(k, p, s)?;
                    self.decorations(p)?;
                    if self.eat_punct(')') {
                        break;
                    }
                    self.expect_punct(',')?;
                }
            }
            self.expect_punct(':')?;
            *current = Some(block);
            return self.end_of_line();
        }
        let Some(block) = *current else {
            return self.unexpected("a block label");
        };
        self.instruction(block)?;
        self.end_of_line()
    }

    fn generic_item(&mut self, _scope: InstId) -> PResult<()> {
        self.expect_ident("generic")?;
        let (_, id) = self.item_name(Op::Generic)?;
        let g = Generic::cast(&self.m, id);
        let body = self.m.generic_body(g);
        self.expect_punct('<')?;
        self.scopes.push(Scope::default());
        let r = self.generic_rest(id, body);
        let scope = self.scopes.pop().unwrap_or_default();
        r?;
        self.close_scope(scope)
    }

    fn generic_rest(&mut self, id: InstId, body: Block) -> PResult<()> {
        if !self.eat_punct('>') {
            loop {
                let (k, h, s) = self.local_def()?;
                self.expect_punct(':')?;
                let ty = self.ty()?;
                let p = self.m.add_block_param(body, ty);
                self.m.set_name(p, h.as_deref());
                self.define_local(k, p, s)?;
                if self.eat_punct('>') {
                    break;
                }
                self.expect_punct(',')?;
            }
        }
        self.decorations(id)?;
        self.expect_punct('{')?;
        self.end_of_line()?;
        while !matches!(self.peek(), Tok::Punct('}') | Tok::Eof) {
            if matches!(self.peek(), Tok::Ident(s) if *s == "return") {
                self.bump();
                let mut ops = Vec::new();
                if !matches!(self.peek(), Tok::Newline | Tok::Eof) {
                    ops.push(self.type_or_value()?);
                }
                let r = self.m.create_detached(Op::Return, None, &ops, 0);
                self.m.append_child(body.id(), r);
                self.end_of_line()?;
                continue;
            }
            self.item(body.id())?;
        }
        self.expect_punct('}')?;
        self.end_of_line()
    }

    fn close_scope(&mut self, scope: Scope<'a>) -> PResult<()> {
        let mut first_err = None;
        let mut pending: Vec<(&str, (InstId, Span))> = scope.pending.into_iter().collect();
        pending.sort_by_key(|(_, (_, s))| s.start);
        for (name, (_, span)) in pending {
            let d =
                Diagnostic::error("OST0006", format!("undefined value `%{name}`")).with_span(span);
            if first_err.is_none() {
                first_err = Some(d);
            } else {
                self.report(d);
            }
        }
        let mut blocks: Vec<(&str, (InstId, bool, Span))> = scope.blocks.into_iter().collect();
        blocks.sort_by_key(|(_, (_, _, s))| s.start);
        for (name, (_, defined, span)) in blocks {
            if !defined {
                let d = Diagnostic::error("OST0006", format!("undefined block `{name}`"))
                    .with_span(span);
                if first_err.is_none() {
                    first_err = Some(d);
                } else {
                    self.report(d);
                }
            }
        }
        match first_err {
            Some(d) => Err(d),
            None => Ok(()),
        }
    }

    // ---- locals and blocks -----------------------------------------------------------------

    fn local_def(&mut self) -> PResult<(&'a str, Option<Cow<'a, str>>, Span)> {
        let span = self.span();
        match self.peek().clone() {
            Tok::Local { id, hint } => {
                self.bump();
                Ok((id, hint, span))
            }
            _ => self.unexpected("a `%name`"),
        }
    }

    fn define_local(&mut self, key: &'a str, id: InstId, span: Span) -> PResult<()> {
        let Some(scope) = self.scopes.last_mut() else {
            return Err(
                Diagnostic::error("OST0003", "a `%name` outside any function or generic")
                    .with_span(span),
            );
        };
        if scope.values.contains_key(key) {
            return Err(
                Diagnostic::error("OST0007", format!("`%{key}` is defined twice")).with_span(span),
            );
        }
        scope.values.insert(key, id);
        if let Some((placeholder, _)) = scope.pending.remove(key) {
            self.m.replace_all_uses_with(placeholder, id);
            let _ = self.m.remove(placeholder);
        }
        Ok(())
    }

    fn local_ref(&mut self, key: &'a str, span: Span) -> PResult<InstId> {
        for scope in self.scopes.iter().rev() {
            if let Some(&v) = scope.values.get(key) {
                return Ok(v);
            }
        }
        let Some(scope) = self.scopes.last_mut() else {
            return Err(
                Diagnostic::error("OST0006", format!("undefined value `%{key}`")).with_span(span),
            );
        };
        if let Some((p, _)) = scope.pending.get(key) {
            return Ok(*p);
        }
        let p = self.m.create_detached(Op::Param, None, &[], 0);
        self.scopes
            .last_mut()
            .map(|s| s.pending.insert(key, (p, span)));
        Ok(p)
    }

    fn bind_block(&mut self, key: &'a str, block: InstId, span: Span) -> PResult<()> {
        let scope = self.scopes.last_mut().ok_or_else(|| {
            Diagnostic::error("OST0003", "a block outside any function").with_span(span)
        })?;
        match scope.blocks.get(key).copied() {
            Some((_, true, _)) => Err(Diagnostic::error(
                "OST0007",
                format!("block `{key}` is defined twice"),
            )
            .with_span(span)),
            Some((placeholder, false, _)) => {
                scope.blocks.insert(key, (block, true, span));
                self.m.replace_all_uses_with(placeholder, block);
                let _ = self.m.remove(placeholder);
                Ok(())
            }
            None => {
                scope.blocks.insert(key, (block, true, span));
                Ok(())
            }
        }
    }

    fn define_block(&mut self, key: &'a str, span: Span) -> PResult<InstId> {
        let scope = self.scopes.last_mut().ok_or_else(|| {
            Diagnostic::error("OST0003", "a block outside any function").with_span(span)
        })?;
        match scope.blocks.get(key).copied() {
            Some((_, true, _)) => Err(Diagnostic::error(
                "OST0007",
                format!("block `{key}` is defined twice"),
            )
            .with_span(span)),
            Some((b, false, _)) => {
                scope.blocks.insert(key, (b, true, span));
                Ok(b)
            }
            None => {
                let b = self.m.create_detached(Op::Block, None, &[], 0);
                if let Some(s) = self.scopes.last_mut() {
                    s.blocks.insert(key, (b, true, span));
                }
                Ok(b)
            }
        }
    }

    fn block_ref(&mut self) -> PResult<InstId> {
        let span = self.span();
        let label = match self.peek().clone() {
            Tok::Ident(s) => {
                self.bump();
                s
            }
            _ => return self.unexpected("a block label"),
        };
        let (key, _) = split_label(label);
        let scope = self.scopes.last_mut().ok_or_else(|| {
            Diagnostic::error("OST0003", "a block outside any function").with_span(span)
        })?;
        if let Some((b, _, _)) = scope.blocks.get(key) {
            return Ok(*b);
        }
        let b = self.m.create_detached(Op::Block, None, &[], 0);
        if let Some(s) = self.scopes.last_mut() {
            s.blocks.insert(key, (b, false, span));
        }
        Ok(b)
    }

    // ---- instructions --------------------------------------------------------------------

    fn instruction(&mut self, block: InstId) -> PResult<()> {
        let mut result = None;
        if let Tok::Local { .. } = self.peek() {
            let def = self.local_def()?;
            self.expect_punct('=')?;
            result = Some(def);
        }
        let op_span = self.span();
        let name = self.ident()?;
        let op = match Op::from_spelling(&name) {
            Some(op) if op.is_instruction() || op.is_terminator() => op,
            _ => {
                return Err(
                    Diagnostic::error("OST0004", format!("unknown opcode `{name}`"))
                        .with_span(op_span),
                );
            }
        };
        let operands = self.operands(op)?;
        let info = op.info();
        if !info.arity_ok(operands.len()) {
            return Err(Diagnostic::error(
                "OST0008",
                format!("`{name}` does not take {} operand(s)", operands.len()),
            )
            .with_span(op_span));
        }
        let ty = if result.is_some() {
            if op.is_terminator() || matches!(info.ty, TypeRule::None | TypeRule::Void) {
                return Err(Diagnostic::error(
                    "OST0003",
                    format!("`{name}` yields no value: it takes no `%name =`"),
                )
                .with_span(op_span));
            }
            self.expect_punct(':')?;
            Some(self.ty()?)
        } else if op.is_terminator() {
            None
        } else {
            if matches!(
                info.ty,
                TypeRule::SameAs(_) | TypeRule::BoolOf(_) | TypeRule::Pointee(_)
            ) || (info.ty == TypeRule::Explicit && !matches!(op, Op::Call | Op::CallIntrinsic))
            {
                return Err(Diagnostic::error(
                    "OST0003",
                    format!("`{name}` yields a value: write `%n = {name} ... : type`"),
                )
                .with_span(op_span));
            }
            Some(self.m.void_type())
        };
        let id = self.m.create_detached(op, ty, &operands, 0);
        self.m.append_child(block, id);
        self.decorations(id)?;
        if let Some((key, hint, span)) = result {
            self.m.set_name(id, hint.as_deref());
            self.define_local(key, id, span)?;
        }
        Ok(())
    }

    fn at_operand_end(&self) -> bool {
        matches!(
            self.peek(),
            Tok::Newline | Tok::Eof | Tok::Punct(':') | Tok::Punct('[')
        )
    }

    fn operands(&mut self, op: Op) -> PResult<Vec<InstId>> {
        let info = op.info();
        let mut ops = Vec::new();
        match op {
            Op::Call | Op::CallIntrinsic => {
                ops.push(self.operand(info.kind(0))?);
                self.expect_punct('(')?;
                if !self.eat_punct(')') {
                    loop {
                        ops.push(self.value()?);
                        if self.eat_punct(')') {
                            break;
                        }
                        self.expect_punct(',')?;
                    }
                }
                return Ok(ops);
            }
            Op::Br => {
                ops.push(self.block_ref()?);
                self.branch_args(&mut ops)?;
                return Ok(ops);
            }
            Op::Loop => {
                ops.push(self.block_ref()?);
                let mut args = Vec::new();
                self.branch_args(&mut args)?;
                self.expect_punct(',')?;
                self.expect_ident("break")?;
                ops.push(self.block_ref()?);
                self.expect_punct(',')?;
                self.expect_ident("continue")?;
                ops.push(self.block_ref()?);
                ops.extend(args);
                return Ok(ops);
            }
            Op::Switch => {
                ops.push(self.value()?);
                self.expect_punct(',')?;
                self.expect_ident("merge")?;
                ops.push(self.block_ref()?);
                self.expect_punct(',')?;
                self.expect_ident("default")?;
                ops.push(self.block_ref()?);
                self.expect_punct(',')?;
                self.expect_punct('[')?;
                if !self.eat_punct(']') {
                    loop {
                        ops.push(self.value()?);
                        self.expect_punct(':')?;
                        ops.push(self.block_ref()?);
                        if self.eat_punct(']') {
                            break;
                        }
                        self.expect_punct(',')?;
                    }
                }
                return Ok(ops);
            }
            _ => {}
        }
        if self.at_operand_end() {
            return Ok(ops);
        }
        loop {
            let kind = info.kind(ops.len());
            if kind.is_none() {
                return Err(Diagnostic::error(
                    "OST0008",
                    format!("too many operands for `{}`", op.spelling()),
                )
                .with_span(self.span()));
            }
            ops.push(self.operand(kind)?);
            if !self.eat_punct(',') {
                break;
            }
        }
        if !self.at_operand_end() {
            return self.unexpected("`,`, `:` or end of line");
        }
        if matches!(info.rest, Rest::None) && ops.len() != info.operands.len() {
            return Err(Diagnostic::error(
                "OST0008",
                format!(
                    "`{}` takes {} operand(s), found {}",
                    op.spelling(),
                    info.operands.len(),
                    ops.len()
                ),
            )
            .with_span(self.span()));
        }
        Ok(ops)
    }

    fn branch_args(&mut self, ops: &mut Vec<InstId>) -> PResult<()> {
        if self.eat_punct('(') && !self.eat_punct(')') {
            loop {
                ops.push(self.value()?);
                if self.eat_punct(')') {
                    break;
                }
                self.expect_punct(',')?;
            }
        }
        Ok(())
    }

    fn operand(&mut self, kind: Option<Kind>) -> PResult<InstId> {
        match kind {
            Some(Kind::Block) => self.block_ref(),
            Some(Kind::Join(word)) => {
                self.expect_ident(word)?;
                self.block_ref()
            }
            Some(Kind::Type) => self.ty(),
            Some(Kind::TypeOrValue) => self.type_or_value(),
            Some(Kind::Int) => {
                let n = self.u32_lit()?;
                Ok(self.m.imm(n))
            }
            Some(Kind::Imm(k)) => {
                let n = self.imm_name(k)?;
                Ok(self.m.imm(n))
            }
            Some(Kind::Str) => match self.peek().clone() {
                Tok::Str(s) => {
                    self.bump();
                    Ok(self.m.const_string(&s))
                }
                _ => self.unexpected("a string"),
            },
            Some(Kind::Generic) => Ok(self.global_ref()?.1),
            _ => self.value(),
        }
    }

    fn u32_lit(&mut self) -> PResult<u32> {
        let span = self.span();
        match self.peek().clone() {
            Tok::Number(s) => {
                self.bump();
                parse_int(s)
                    .and_then(|v| u32::try_from(v).ok())
                    .ok_or_else(|| {
                        Diagnostic::error("OST0005", format!("`{s}` is not a u32")).with_span(span)
                    })
            }
            _ => self.unexpected("a number"),
        }
    }

    fn imm_name(&mut self, k: ImmKind) -> PResult<u32> {
        let span = self.span();
        let mut text = self.ident()?;
        if k == ImmKind::BarrierFlags {
            while self.eat_punct('|') {
                text.push('|');
                text.push_str(&self.ident()?);
            }
        }
        k.parse(&text).ok_or_else(|| {
            Diagnostic::error("OST0004", format!("`{text}` is not a valid {k:?}")).with_span(span)
        })
    }

    fn decorations(&mut self, target: InstId) -> PResult<()> {
        if !self.eat_punct('[') {
            return Ok(());
        }
        if self.eat_punct(']') {
            return Ok(());
        }
        loop {
            let span = self.span();
            let name = self.ident()?;
            let op = match Op::from_spelling(&name) {
                Some(op) if op.is_decoration() => op,
                _ => {
                    return Err(Diagnostic::error(
                        "OST0004",
                        format!("unknown decoration `{name}`"),
                    )
                    .with_span(span));
                }
            };
            let info = op.info();
            let mut ops = Vec::new();
            if self.eat_punct('(') && !self.eat_punct(')') {
                loop {
                    let kind = info.kind(ops.len());
                    if kind.is_none() {
                        return Err(Diagnostic::error(
                            "OST0008",
                            format!("too many operands for `{name}`"),
                        )
                        .with_span(self.span()));
                    }
                    ops.push(self.operand(kind)?);
                    if self.eat_punct(')') {
                        break;
                    }
                    self.expect_punct(',')?;
                }
            }
            if !info.arity_ok(ops.len()) {
                return Err(Diagnostic::error(
                    "OST0008",
                    format!("`{name}` takes {} operand(s)", info.operands.len()),
                )
                .with_span(span));
            }
            self.m.decorate(target, op, &ops);
            if self.eat_punct(']') {
                return Ok(());
            }
            self.expect_punct(',')?;
        }
    }

    // ---- values and types ----------------------------------------------------------------

    fn type_or_value(&mut self) -> PResult<InstId> {
        match self.peek() {
            Tok::Local { .. } | Tok::Global(_) | Tok::Str(_) => self.value(),
            Tok::Ident("spec_const") => self.value(),
            _ => {
                let t = self.ty()?;
                if self.starts_const_body() {
                    self.const_body(t)
                } else {
                    Ok(t)
                }
            }
        }
    }

    fn starts_const_body(&self) -> bool {
        match self.peek() {
            Tok::Number(_) | Tok::Punct('{') => true,
            Tok::Ident(s) => matches!(*s, "true" | "false" | "zero" | "undef"),
            _ => false,
        }
    }

    fn value(&mut self) -> PResult<InstId> {
        let span = self.span();
        match self.peek().clone() {
            Tok::Local { id, .. } => {
                self.bump();
                self.local_ref(id, span)
            }
            // `@S zero`, `@S undef`, `@S {...}`: a constant of struct type, not the item `@S`.
            Tok::Global(_)
                if !matches!(self.peek_at(1), Tok::Punct('{'))
                    && !matches!(self.peek_at(1), Tok::Ident("zero" | "undef")) =>
            {
                Ok(self.global_ref()?.1)
            }
            Tok::Str(s) => {
                self.bump();
                Ok(self.m.const_string(&s))
            }
            Tok::Ident("spec_const") => {
                self.bump();
                self.expect_punct('(')?;
                let id = self.u32_lit()?;
                self.expect_punct(',')?;
                let def = self.value()?;
                self.expect_punct(')')?;
                Ok(self.m.spec_const(id, def))
            }
            _ => {
                let t = self.ty()?;
                if self.m.op(t) == Op::Specialize {
                    return Ok(t);
                }
                if !self.starts_const_body() {
                    return Err(Diagnostic::error(
                        "OST0003",
                        format!(
                            "expected a value, found the type; write a constant like `i32 0`, \
                             found {}",
                            describe(self.peek())
                        ),
                    )
                    .with_span(self.span()));
                }
                self.const_body(t)
            }
        }
    }

    fn const_body(&mut self, ty: InstId) -> PResult<InstId> {
        let span = self.span();
        let tok = self.bump().tok;
        let top = self.m.op(ty);
        match tok {
            Tok::Ident("zero") => Ok(self.m.zero(ty)),
            Tok::Ident("undef") => Ok(self.m.undef(ty)),
            Tok::Ident(s) if s == "true" || s == "false" => {
                if top != Op::Bool {
                    return Err(
                        Diagnostic::error("OST0005", "`true`/`false` need type `bool`")
                            .with_span(span),
                    );
                }
                Ok(self.m.const_bool(s == "true"))
            }
            Tok::Punct('{') => {
                let mut elems = Vec::new();
                if !self.eat_punct('}') {
                    loop {
                        elems.push(self.value()?);
                        if self.eat_punct('}') {
                            break;
                        }
                        self.expect_punct(',')?;
                    }
                }
                Ok(self.m.const_composite(ty, &elems))
            }
            Tok::Number(s) => {
                if top.is_int_type() {
                    let width = self.m.scalar_bits(ty).unwrap_or(32);
                    let v = parse_int(s).ok_or_else(|| {
                        Diagnostic::error("OST0005", format!("bad integer `{s}`")).with_span(span)
                    })?;
                    let (min, max) = if top.is_signed_int_type() {
                        (-(1i128 << (width - 1)), (1i128 << width) - 1)
                    } else {
                        (0, (1i128 << width) - 1)
                    };
                    if v < min || v > max {
                        return Err(Diagnostic::error(
                            "OST0005",
                            format!("`{s}` does not fit in {}", top.spelling()),
                        )
                        .with_span(span));
                    }
                    Ok(self.m.const_int(ty, v as u64))
                } else if top.is_float_type() {
                    let bits = parse_float(top, s).ok_or_else(|| {
                        Diagnostic::error(
                            "OST0005",
                            format!("bad {} constant `{s}`", top.spelling()),
                        )
                        .with_span(span)
                    })?;
                    Ok(self.m.const_float_bits(ty, bits))
                } else {
                    Err(Diagnostic::error(
                        "OST0005",
                        format!("a number cannot have type `{}`", top.spelling()),
                    )
                    .with_span(span))
                }
            }
            _ => {
                self.pos -= 1;
                self.unexpected("a constant")
            }
        }
    }

    fn ty(&mut self) -> PResult<InstId> {
        let span = self.span();
        match self.peek().clone() {
            Tok::Global(_) => {
                let (name, id, span) = self.global_ref()?;
                if self.m.op(id) != Op::Struct {
                    return Err(
                        Diagnostic::error("OST0003", format!("`@{name}` is not a type"))
                            .with_span(span),
                    );
                }
                Ok(id)
            }
            Tok::Local { id, .. } => {
                self.bump();
                self.local_ref(id, span)
            }
            Tok::Ident(s) => {
                self.bump();
                self.named_type(s, span)
            }
            _ => self.unexpected("a type"),
        }
    }

    fn named_type(&mut self, s: &str, span: Span) -> PResult<InstId> {
        if let Some(op) = Op::from_spelling(s)
            && (op.is_scalar_type()
                || matches!(
                    op,
                    Op::Void
                        | Op::Sampler
                        | Op::SamplerCmp
                        | Op::StringType
                        | Op::TypeType
                        | Op::AccelStruct
                        | Op::RayQuery
                ))
        {
            return Ok(self.m.intern(op, None, &[], Payload::None));
        }
        match s {
            "vec" => {
                self.expect_punct('<')?;
                let e = self.ty()?;
                self.expect_punct(',')?;
                let n = self.u32_lit()?;
                self.expect_punct('>')?;
                Ok(self.m.vector_type(e, n))
            }
            "mat" => {
                self.expect_punct('<')?;
                let e = self.ty()?;
                self.expect_punct(',')?;
                let r = self.u32_lit()?;
                self.expect_punct(',')?;
                let c = self.u32_lit()?;
                self.expect_punct('>')?;
                Ok(self.m.matrix_type(e, r, c))
            }
            "array" => {
                self.expect_punct('<')?;
                let e = self.ty()?;
                self.expect_punct(',')?;
                let n = self.u32_lit()?;
                self.expect_punct('>')?;
                Ok(self.m.array_type(e, n))
            }
            "rtarray" => {
                self.expect_punct('<')?;
                let e = self.ty()?;
                self.expect_punct('>')?;
                Ok(self.m.runtime_array_type(e))
            }
            "ptr" => {
                self.expect_punct('<')?;
                let space = self.imm_name(ImmKind::AddressSpace)?;
                self.expect_punct(',')?;
                let e = self.ty()?;
                self.expect_punct('>')?;
                let space = AddressSpace::from_u32(space).unwrap_or(AddressSpace::Function);
                Ok(self.m.ptr_type(space, e))
            }
            "fn" => {
                self.expect_punct('(')?;
                let mut params = Vec::new();
                if !self.eat_punct(')') {
                    loop {
                        params.push(self.ty()?);
                        if self.eat_punct(')') {
                            break;
                        }
                        self.expect_punct(',')?;
                    }
                }
                if *self.peek() != Tok::Arrow {
                    return self.unexpected("`->`");
                }
                self.bump();
                let ret = self.ty()?;
                Ok(self.m.fn_type(ret, &params))
            }
            "texture" => self.texture_type(),
            "specialize" => {
                self.expect_punct('<')?;
                let ty = self.ty()?;
                self.expect_punct('>')?;
                self.expect_punct('(')?;
                let (_, g, gspan) = self.global_ref()?;
                if self.m.op(g) != Op::Generic {
                    return Err(Diagnostic::error("OST0003", "`specialize` needs a generic")
                        .with_span(gspan));
                }
                let mut args = Vec::new();
                while self.eat_punct(',') {
                    args.push(self.type_or_value()?);
                }
                self.expect_punct(')')?;
                Ok(self.m.specialize(g, &args, ty))
            }
            _ => Err(Diagnostic::error("OST0004", format!("unknown type `{s}`")).with_span(span)),
        }
    }

    fn texture_type(&mut self) -> PResult<InstId> {
        self.expect_punct('<')?;
        let dim = Dim::from_u32(self.imm_name(ImmKind::Dim)?).unwrap_or(Dim::D2);
        self.expect_punct(',')?;
        let sampled_type = self.ty()?;
        let mut d = TextureDesc {
            sampled_type,
            dim,
            arrayed: false,
            multisampled: false,
            depth: 0,
            access: TextureAccess::Sampled,
            format: ImageFormat::Unknown,
        };
        while self.eat_punct(',') {
            let span = self.span();
            let flag = self.ident()?;
            match flag.as_str() {
                "array" => d.arrayed = true,
                "ms" => d.multisampled = true,
                "depth" => d.depth = 1,
                "depth?" => d.depth = 2,
                "storage" => d.access = TextureAccess::Storage,
                f => match ImageFormat::from_spelling(f) {
                    Some(fmt) => d.format = fmt,
                    None => {
                        return Err(Diagnostic::error(
                            "OST0004",
                            format!("unknown texture flag or format `{f}`"),
                        )
                        .with_span(span));
                    }
                },
            }
        }
        self.expect_punct('>')?;
        Ok(self.m.texture_type(d))
    }
}

fn is_item_keyword(s: &str) -> bool {
    matches!(
        s,
        "struct" | "global" | "func" | "generic" | "let" | "module"
    )
}

/// Splits a block label `bb3.name` into its key `bb3` and hint `name`.
fn split_label(label: &str) -> (&str, Option<&str>) {
    match label.split_once('.') {
        Some((k, h)) => (k, Some(h)),
        None => (label, None),
    }
}

/// Decimal (optionally negative) or `0x` hex integer.
fn parse_int(s: &str) -> Option<i128> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i128::from_str_radix(h, 16).ok()?
    } else {
        if !body.chars().all(|c| c.is_ascii_digit()) || body.is_empty() {
            return None;
        }
        body.parse::<i128>().ok()?
    };
    Some(if neg { -v } else { v })
}

/// A float constant's bits: hex bits (`0x...`), or a decimal that is exactly representable for
/// `f16` and the nearest value for `f32`/`f64` (Rust's parser rounds correctly).
fn parse_float(ty: Op, s: &str) -> Option<u64> {
    if let Some(h) = s.strip_prefix("0x") {
        let bits = u64::from_str_radix(h, 16).ok()?;
        let width = match ty {
            Op::F16 => 16,
            Op::F32 => 32,
            _ => 64,
        };
        if width < 64 && bits >> width != 0 {
            return None;
        }
        return Some(bits);
    }
    if s.contains("0x") {
        return None;
    }
    match ty {
        Op::F32 => s.parse::<f32>().ok().map(|f| f.to_bits() as u64),
        Op::F64 => s.parse::<f64>().ok().map(f64::to_bits),
        _ => f16_bits_exact(s.parse::<f32>().ok()?).map(u64::from),
    }
}

/// The f16 bits of `f` when `f` is exactly representable as an f16.
pub(crate) fn f16_bits_exact(f: f32) -> Option<u16> {
    crate::float16::f16_exact(f64::from(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_exact_conversion() {
        assert_eq!(f16_bits_exact(1.0), Some(0x3c00));
        assert_eq!(f16_bits_exact(-2.0), Some(0xc000));
        assert_eq!(f16_bits_exact(0.5), Some(0x3800));
        assert_eq!(f16_bits_exact(65504.0), Some(0x7bff));
        assert_eq!(f16_bits_exact(0.1), None);
        // Smallest subnormal: 2^-24.
        assert_eq!(f16_bits_exact(2f32.powi(-24)), Some(0x0001));
        assert_eq!(f16_bits_exact(2f32.powi(-14)), Some(0x0400));
        assert_eq!(f16_bits_exact(3.0 * 2f32.powi(-24)), Some(0x0003));
    }

    #[test]
    fn parse_int_forms() {
        assert_eq!(parse_int("12"), Some(12));
        assert_eq!(parse_int("-12"), Some(-12));
        assert_eq!(parse_int("0xff"), Some(255));
        assert_eq!(parse_int("1.5"), None);
        assert_eq!(parse_int(""), None);
    }
}
