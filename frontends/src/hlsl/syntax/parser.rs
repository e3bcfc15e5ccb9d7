//! Recursive-descent parser from preprocessed tokens to the [`ast`](crate::hlsl::syntax::ast).
//!
//! Ambiguities (`(T)x` vs `(x)`, `T(x)` vs `f(x)`, `a < b` vs `T<b>`) are resolved by tracking
//! which names denote types: built-in names ([`crate::hlsl::syntax::types`]), structs, typedefs, enums and
//! template parameters, scoped by blocks, structs and namespaces. Where a name is unknown, short
//! speculative parses decide (a speculative parse reports nothing and rewinds on failure).
//!
//! Error recovery: an error skips to a synchronization point (`;` or the `}` of the enclosing
//! block, balanced groups skipped whole) and parsing goes on, so one run reports several errors.
//! A second error at the same token is not reported, so errors do not cascade.
//!
//! Limits: nesting of statements, expressions and types is capped at [`MAX_NESTING`] and the
//! depth of the expression tree (long operator chains) at [`MAX_TREE_DEPTH`], each with a
//! diagnostic, so no input overflows the stack.

use oneshader_ir::diag::{Diagnostic, Span};
use rustc_hash::FxHashSet;

use crate::hlsl::syntax::ast::*;
use crate::hlsl::syntax::preprocessor::Preprocessed;
use crate::hlsl::syntax::token::{Token, TokenKind};
use crate::hlsl::syntax::types::{
    is_builtin_qualified_type, is_builtin_template_function, is_builtin_type,
};

/// Deepest nesting of statements, parenthesized expressions and template arguments.
pub const MAX_NESTING: usize = 256;
/// Deepest expression tree (counts operator chains too: `a + b + c` is three deep).
pub const MAX_TREE_DEPTH: usize = 16_384;
/// Errors after which the parser stops.
pub const MAX_ERRORS: usize = 100;

/// The result of [`parse`].
#[derive(Clone, Debug, Default)]
pub struct ParseResult {
    /// The tree (partial when there were errors; erroneous parts are `Error` nodes).
    pub unit: TranslationUnit,
    /// Parse errors (the preprocessor's are in [`Preprocessed::diagnostics`]).
    pub diagnostics: Vec<Diagnostic>,
}

/// Stack [`parse`] runs with: the nesting limits are sized for it, so the caller's stack
/// (2 MiB for test threads) does not matter.
pub const PARSER_STACK: usize = 64 << 20;

/// Parses preprocessed tokens into a translation unit.
///
/// Runs with at least [`PARSER_STACK`] bytes of stack: on the caller's stack when that much
/// is left, else on a new stack segment ([`crate::hlsl::with_big_stack`]; no thread is spawned).
pub fn parse(pp: &Preprocessed) -> ParseResult {
    crate::hlsl::with_big_stack(|| parse_here(pp))
}

fn parse_here(pp: &Preprocessed) -> ParseResult {
    let mut p = Parser::new(pp);
    let decls = p.decl_list(DeclContext::TopLevel);
    ParseResult {
        unit: TranslationUnit { decls },
        diagnostics: p.diags,
    }
}

/// Where a declaration list is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DeclContext {
    TopLevel,
    Namespace,
    Struct,
    Buffer,
}

/// A view of the current token (after splitting `>>` when closing template arguments).
#[derive(Clone, Copy)]
struct Tok<'a> {
    kind: TokenKind,
    text: &'a str,
    span: Span,
}

impl Tok<'_> {
    fn is(&self, s: &str) -> bool {
        matches!(self.kind, TokenKind::Punct | TokenKind::Ident) && self.text == s
    }
    fn is_ident(&self) -> bool {
        self.kind == TokenKind::Ident
    }
}

/// Marker error: the caller must recover (a diagnostic was already reported or suppressed).
#[derive(Debug)]
struct Fail;

type PResult<T> = Result<T, Fail>;

/// Words that can never be names.
fn is_reserved(s: &str) -> bool {
    matches!(
        s,
        "if" | "else"
            | "for"
            | "while"
            | "do"
            | "switch"
            | "case"
            | "default"
            | "break"
            | "continue"
            | "return"
            | "discard"
            | "struct"
            | "class"
            | "interface"
            | "typedef"
            | "namespace"
            | "enum"
            | "template"
            | "typename"
            | "true"
            | "false"
            | "this"
            | "sizeof"
            | "cbuffer"
            | "tbuffer"
            | "static"
            | "const"
            | "uniform"
            | "extern"
            | "volatile"
            | "groupshared"
            | "using"
            | "static_assert"
    )
}

/// Modifiers that are also ordinary names in HLSL (`float sample;` is valid); they are modifiers
/// only when a type or another modifier follows.
fn is_contextual_modifier(s: &str) -> bool {
    matches!(
        s,
        "linear"
            | "sample"
            | "center"
            | "point"
            | "line"
            | "triangle"
            | "lineadj"
            | "triangleadj"
            | "vertices"
            | "indices"
            | "primitives"
            | "payload"
            | "in"
            | "out"
            | "inout"
            | "shared"
            | "snorm"
            | "unorm"
            | "precise"
            | "centroid"
            | "export"
            | "inline"
            | "nointerpolation"
            | "noperspective"
            | "globallycoherent"
            | "reorder_coherent"
            | "row_major"
            | "column_major"
            | "unsigned"
            | "signed"
    )
}

struct Parser<'a> {
    toks: &'a [Token],
    /// The user-visible span of each token.
    spans: Vec<Span>,
    /// Expansion notes per token are computed on demand from here.
    pp: &'a Preprocessed,
    pos: usize,
    /// Bytes of the current token already consumed (after splitting `>>` into `>` `>`).
    split: usize,
    /// Span of the last consumed token.
    prev_span: Span,
    diags: Vec<Diagnostic>,
    /// Speculating: report nothing, fail fast.
    speculating: usize,
    /// True while template arguments of a name not known as a template are being tried: a
    /// name inside them is not tried again (each nested try doubled the work, so
    /// `a < b < c < ...` took time exponential in its length).
    in_template_guess: bool,
    /// Token index of the last reported error (no second error at the same token).
    last_error_pos: Option<usize>,
    /// Too many errors: stop.
    gave_up: bool,
    /// Current nesting (statements, parens, types).
    nesting: usize,
    /// Current expression tree depth estimate.
    tree_depth: usize,
    /// `>` ends the expression (inside template arguments and `<...>` annotations).
    no_gt: bool,
    /// Number of enclosing `switch` bodies (a `case` label nested in a block of a `switch` is
    /// legal).
    switch_depth: usize,
    scopes: Scopes,
}

/// Names that denote types, by scope.
#[derive(Default)]
struct Scopes {
    /// Fully qualified type names (`S`, `ns::S`, `S::Inner`).
    types: FxHashSet<String>,
    /// Qualified names of namespaces (for `using namespace`).
    namespaces: FxHashSet<String>,
    /// Fully qualified names of template functions and template structs.
    templates: FxHashSet<String>,
    /// The current namespace/struct path (each entry a full prefix like `a::b`).
    prefix: Vec<String>,
    /// Local scopes (blocks, template parameters): plain names.
    locals: Vec<FxHashSet<String>>,
    /// `using namespace` targets in effect (qualified).
    using: Vec<String>,
}

impl Scopes {
    fn current_prefix(&self) -> &str {
        self.prefix.last().map(String::as_str).unwrap_or("")
    }

    fn qualify(&self, name: &str) -> String {
        let p = self.current_prefix();
        if p.is_empty() {
            name.to_string()
        } else {
            format!("{p}::{name}")
        }
    }

    fn declare_type(&mut self, name: &str) {
        if let Some(l) = self.locals.last_mut() {
            l.insert(name.to_string());
        } else {
            let q = self.qualify(name);
            self.types.insert(q);
        }
    }

    fn declare_template(&mut self, name: &str) {
        let q = self.qualify(name);
        self.templates.insert(q);
        self.templates.insert(name.to_string());
    }

    /// Candidate fully-qualified spellings of `name` as seen from here.
    fn lookup(&self, name: &str, set: &FxHashSet<String>) -> bool {
        if set.contains(name) {
            return true;
        }
        for p in self.prefix.iter().rev() {
            if set.contains(&format!("{p}::{name}")) {
                return true;
            }
        }
        for u in &self.using {
            if set.contains(&format!("{u}::{name}")) {
                return true;
            }
        }
        false
    }

    fn is_type(&self, segments: &[&str]) -> bool {
        match segments {
            [] => false,
            [one] => {
                is_builtin_type(one)
                    || self.locals.iter().any(|l| l.contains(*one))
                    || self.lookup(one, &self.types)
            }
            [ns @ .., last] => {
                if ns.len() == 1 && is_builtin_qualified_type(ns[0], last) {
                    return true;
                }
                let joined = segments.join("::");
                self.lookup(&joined, &self.types)
            }
        }
    }

    fn is_template(&self, segments: &[&str]) -> bool {
        let joined = segments.join("::");
        self.lookup(&joined, &self.templates)
    }
}

impl<'a> Parser<'a> {
    fn new(pp: &'a Preprocessed) -> Parser<'a> {
        let spans = pp
            .tokens
            .iter()
            .map(|t| pp.expansions.user_span(t))
            .collect();
        Parser {
            toks: &pp.tokens,
            spans,
            pp,
            pos: 0,
            split: 0,
            prev_span: Span {
                file: pp.main_file,
                start: 0,
                end: 0,
            },
            diags: Vec::new(),
            speculating: 0,
            in_template_guess: false,
            last_error_pos: None,
            gave_up: false,
            nesting: 0,
            tree_depth: 0,
            no_gt: false,
            switch_depth: 0,
            scopes: Scopes::default(),
        }
    }

    // ----- token access -----

    fn tok_at(&self, i: usize) -> Tok<'a> {
        match self.toks.get(i) {
            Some(t) => {
                let (text, span) = if i == self.pos && self.split > 0 {
                    let s = self.spans[i];
                    let start = (s.start + self.split as u32).min(s.end);
                    (t.text.get(self.split..).unwrap_or(""), Span { start, ..s })
                } else {
                    (&*t.text, self.spans[i])
                };
                Tok {
                    kind: t.kind,
                    text,
                    span,
                }
            }
            None => Tok {
                kind: TokenKind::Other,
                text: "",
                span: self.eof_span(),
            },
        }
    }

    fn eof_span(&self) -> Span {
        match self.spans.last() {
            Some(s) => Span { start: s.end, ..*s },
            None => self.prev_span,
        }
    }

    fn peek(&self) -> Tok<'a> {
        self.tok_at(self.pos)
    }

    fn peek_n(&self, n: usize) -> Tok<'a> {
        self.tok_at(self.pos + n)
    }

    fn at(&self, s: &str) -> bool {
        self.peek().is(s)
    }

    fn at_eof(&self) -> bool {
        self.pos >= self.toks.len() || self.gave_up
    }

    fn bump(&mut self) {
        if self.pos < self.toks.len() {
            self.prev_span = self.peek().span;
            self.pos += 1;
            self.split = 0;
        }
    }

    fn eat(&mut self, s: &str) -> bool {
        if self.at(s) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// Consumes one `>`, splitting `>>`, `>=`, `>>=` when needed.
    fn eat_gt(&mut self) -> bool {
        let t = self.peek();
        if t.kind != TokenKind::Punct || !t.text.starts_with('>') {
            return false;
        }
        if t.text == ">" {
            self.bump();
        } else {
            let s = t.span;
            self.prev_span = Span {
                end: (s.start + 1).min(s.end),
                ..s
            };
            self.split += 1;
        }
        true
    }

    fn expect(&mut self, s: &str) -> PResult<()> {
        if self.eat(s) {
            Ok(())
        } else {
            let found = self.describe_current();
            self.error_here(format!("expected `{s}`, found {found}"));
            Err(Fail)
        }
    }

    fn describe_current(&self) -> String {
        if self.pos >= self.toks.len() {
            "end of file".to_string()
        } else {
            format!("`{}`", self.peek().text)
        }
    }

    fn error_here(&mut self, msg: impl Into<String>) {
        let span = self.peek().span;
        let exp = self.toks.get(self.pos).and_then(|t| t.expansion);
        self.error_at(span, exp, "OSH0001", msg);
    }

    fn error_at(
        &mut self,
        span: Span,
        exp: Option<crate::hlsl::syntax::token::ExpansionId>,
        code: &'static str,
        msg: impl Into<String>,
    ) {
        if self.speculating > 0 {
            return;
        }
        if self.last_error_pos == Some(self.pos) {
            return;
        }
        self.last_error_pos = Some(self.pos);
        let mut d = Diagnostic::error(code, msg).with_span(span);
        d.notes = self.pp.expansions.notes(exp);
        self.diags.push(d);
        if self.diags.len() >= MAX_ERRORS {
            self.diags.push(
                Diagnostic::error("OSH0099", "too many errors; parsing stopped").with_span(span),
            );
            self.gave_up = true;
        }
    }

    fn error_code(&mut self, code: &'static str, msg: impl Into<String>) {
        let span = self.peek().span;
        let exp = self.toks.get(self.pos).and_then(|t| t.expansion);
        self.error_at(span, exp, code, msg);
    }

    fn span_from(&self, start: Span) -> Span {
        start.to(self.prev_span)
    }

    fn ident(&mut self) -> PResult<Ident> {
        let t = self.peek();
        if t.is_ident() && !is_reserved(t.text) {
            let id = Ident {
                name: t.text.to_string(),
                span: t.span,
            };
            self.bump();
            Ok(id)
        } else {
            let found = self.describe_current();
            self.error_here(format!("expected a name, found {found}"));
            Err(Fail)
        }
    }

    /// Runs `f` speculatively: no diagnostics; on failure the position is restored.
    fn speculate<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> Option<T> {
        let (pos, split, prev, nesting, tree, no_gt) = (
            self.pos,
            self.split,
            self.prev_span,
            self.nesting,
            self.tree_depth,
            self.no_gt,
        );
        self.speculating += 1;
        let r = f(self);
        self.speculating -= 1;
        match r {
            Ok(v) => Some(v),
            Err(Fail) => {
                self.pos = pos;
                self.split = split;
                self.prev_span = prev;
                self.nesting = nesting;
                self.tree_depth = tree;
                self.no_gt = no_gt;
                None
            }
        }
    }

    /// Rewinds to a saved position (after a successful speculative look-ahead).
    fn rewind(&mut self, pos: usize, split: usize, prev: Span) {
        self.pos = pos;
        self.split = split;
        self.prev_span = prev;
    }

    fn enter(&mut self) -> PResult<()> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            self.error_code(
                "OSH0010",
                format!("nesting deeper than {MAX_NESTING} levels"),
            );
            if self.speculating == 0 {
                self.gave_up = true;
            }
            return Err(Fail);
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.nesting = self.nesting.saturating_sub(1);
    }

    // ----- recovery -----

    /// Skips to just after the next `;` or to the next `}` (not consumed) at this nesting level,
    /// skipping balanced groups.
    fn recover_stmt(&mut self) {
        let mut depth = 0usize;
        while !self.at_eof() {
            let t = self.peek();
            if t.kind == TokenKind::Punct {
                match t.text {
                    "(" | "[" | "{" => depth += 1,
                    ")" | "]" => depth = depth.saturating_sub(1),
                    "}" => {
                        if depth == 0 {
                            // The `}` closes the enclosing block; its owner consumes it (every
                            // caller's loop stops at `}` or skips a stray one itself).
                            return;
                        }
                        depth -= 1;
                        if depth == 0 {
                            self.bump();
                            // A block closed: `struct S {...} x;` continues to its `;`.
                            if !self.at(";") {
                                return;
                            }
                            continue;
                        }
                    }
                    ";" if depth == 0 => {
                        self.bump();
                        return;
                    }
                    _ => {}
                }
            }
            self.bump();
        }
    }

    // ----- attributes -----

    /// `[attr(args)]`, `[[ns::attr(args), other]]` (any number, in order).
    fn attributes(&mut self) -> Vec<Attribute> {
        let mut out = Vec::new();
        while self.at("[") && !self.gave_up {
            let start = self.peek().span;
            if self.peek_n(1).is("]") {
                // `[]`: an empty attribute list (accepted by glslang and DXC).
                self.bump();
                self.bump();
                continue;
            }
            let double = self.peek_n(1).is("[");
            self.bump();
            if double {
                self.bump();
            }
            loop {
                match self.attribute_body(double, start) {
                    Ok(a) => out.push(a),
                    Err(Fail) => {
                        self.skip_to_attr_end(double);
                        break;
                    }
                }
                if double && self.eat(",") {
                    continue;
                }
                break;
            }
            if self.at("]") {
                self.bump();
                if double && !self.eat("]") {
                    self.error_here("expected `]]` closing the attribute");
                }
                if let Some(a) = out.last_mut() {
                    a.span = self.span_from(a.span);
                }
            } else if !self.at_eof() {
                self.error_here("expected `]` closing the attribute");
                self.skip_to_attr_end(double);
            }
        }
        out
    }

    fn skip_to_attr_end(&mut self, double: bool) {
        let mut depth = 0usize;
        while !self.at_eof() {
            let t = self.peek();
            match t.text {
                "(" => depth += 1,
                ")" => depth = depth.saturating_sub(1),
                "]" if depth == 0 => {
                    self.bump();
                    if double {
                        self.eat("]");
                    }
                    return;
                }
                ";" | "{" | "}" if depth == 0 => return,
                _ => {}
            }
            self.bump();
        }
    }

    fn attribute_body(&mut self, double: bool, start: Span) -> PResult<Attribute> {
        let mut namespace = Vec::new();
        let mut name = self.attr_name()?;
        while self.at("::") {
            self.bump();
            namespace.push(name);
            name = self.attr_name()?;
        }
        let args = if self.at("(") {
            self.bump();
            let mut args = Vec::new();
            if !self.at(")") {
                loop {
                    args.push(self.assign_expr()?);
                    if !self.eat(",") {
                        break;
                    }
                }
            }
            self.expect(")")?;
            Some(args)
        } else {
            None
        };
        Ok(Attribute {
            style: if double {
                AttributeStyle::Double
            } else {
                AttributeStyle::Single
            },
            namespace,
            name,
            args,
            span: self.span_from(start),
        })
    }

    /// Attribute names may be keywords (`[[vk::push_constant]]`, `[unroll]`, `[loop]`).
    fn attr_name(&mut self) -> PResult<Ident> {
        let t = self.peek();
        if t.is_ident() {
            let id = Ident {
                name: t.text.to_string(),
                span: t.span,
            };
            self.bump();
            Ok(id)
        } else {
            let found = self.describe_current();
            self.error_here(format!("expected an attribute name, found {found}"));
            Err(Fail)
        }
    }

    // ----- declarations -----

    fn decl_list(&mut self, ctx: DeclContext) -> Vec<Decl> {
        let mut decls = Vec::new();
        loop {
            if self.at_eof() {
                if ctx != DeclContext::TopLevel && !self.gave_up {
                    self.error_here("expected `}`, found end of file");
                }
                break;
            }
            if ctx != DeclContext::TopLevel && self.at("}") {
                break;
            }
            if ctx == DeclContext::TopLevel && self.at("}") {
                self.error_here("unexpected `}`");
                self.bump();
                continue;
            }
            let before = self.pos;
            match self.decl(ctx) {
                Ok(mut ds) => decls.append(&mut ds),
                Err(Fail) => {
                    let span = self.peek().span;
                    self.recover_stmt();
                    decls.push(Decl {
                        kind: DeclKind::Error,
                        span,
                    });
                }
            }
            if self.pos == before && !self.at_eof() {
                // Defensive: guarantee progress.
                self.bump();
            }
        }
        decls
    }

    /// One declaration (may yield several, e.g. a struct definition with declarators).
    fn decl(&mut self, ctx: DeclContext) -> PResult<Vec<Decl>> {
        let start = self.peek().span;
        let mut attributes = self.attributes();
        while self.at("layout") && self.peek_n(1).is("(") {
            attributes.push(self.layout_attribute()?);
            attributes.extend(self.attributes());
        }
        let t = self.peek();
        let one = |kind, span| Ok(vec![Decl { kind, span }]);
        match t.text {
            ";" if t.kind == TokenKind::Punct => {
                self.bump();
                return one(DeclKind::Empty, start);
            }
            "namespace" => return self.namespace_decl(start).map(|d| vec![d]),
            "using" => return self.using_decl(start).map(|d| vec![d]),
            "typedef" => {
                self.bump();
                let td = self.typedef_rest(start, Vec::new())?;
                return one(DeclKind::Typedef(td), self.span_from(start));
            }
            "template" => {
                let mut headers = vec![self.template_header()?];
                while self.at("template") {
                    headers.push(self.template_header()?);
                }
                return self.templated_decl(start, attributes, headers, ctx);
            }
            "cbuffer" | "tbuffer" if self.peek_n(1).is_ident() => {
                return self.buffer_decl(start, attributes).map(|d| vec![d]);
            }
            "enum" => return self.enum_decl(start, attributes).map(|d| vec![d]),
            "static_assert" => return self.static_assert(start).map(|d| vec![d]),
            "technique" | "technique10" | "technique11" => {
                return self.technique(start).map(|d| vec![d]);
            }
            _ => {}
        }
        self.declaration(start, attributes, Vec::new(), ctx, false)
    }

    /// glslang's `layout(set = 3, binding = 5)`.
    fn layout_attribute(&mut self) -> PResult<Attribute> {
        let start = self.peek().span;
        let name = self.attr_name()?;
        self.bump(); // (
        let mut args = Vec::new();
        while !self.at(")") {
            args.push(self.assign_expr()?);
            if !self.eat(",") {
                break;
            }
        }
        self.expect(")")?;
        Ok(Attribute {
            style: AttributeStyle::Layout,
            namespace: Vec::new(),
            name,
            args: Some(args),
            span: self.span_from(start),
        })
    }

    fn static_assert(&mut self, start: Span) -> PResult<Decl> {
        self.bump();
        self.expect("(")?;
        let cond = self.assign_expr()?;
        let message = if self.eat(",") {
            Some(self.assign_expr()?)
        } else {
            None
        };
        self.expect(")")?;
        self.expect(";")?;
        Ok(Decl {
            kind: DeclKind::StaticAssert { cond, message },
            span: self.span_from(start),
        })
    }

    fn technique(&mut self, start: Span) -> PResult<Decl> {
        self.bump();
        let name = if self.peek().is_ident() {
            Some(self.ident()?)
        } else {
            None
        };
        // Annotations `<...>` and the body are skipped as balanced groups.
        if self.at("<") {
            while !self.at_eof() && !self.at("{") {
                self.bump();
            }
        }
        if !self.at("{") {
            self.error_here("expected `{` after technique");
            return Err(Fail);
        }
        let mut depth = 0usize;
        while !self.at_eof() {
            if self.at("{") {
                depth += 1;
            } else if self.at("}") {
                depth -= 1;
                if depth == 0 {
                    self.bump();
                    break;
                }
            }
            self.bump();
        }
        self.eat(";");
        Ok(Decl {
            kind: DeclKind::Technique { name },
            span: self.span_from(start),
        })
    }

    fn namespace_decl(&mut self, start: Span) -> PResult<Decl> {
        self.bump();
        let name = if self.peek().is_ident() {
            Some(self.path()?)
        } else {
            None
        };
        self.expect("{")?;
        let mut pushed = 0;
        if let Some(n) = &name {
            for seg in &n.segments {
                let q = self.scopes.qualify(&seg.name);
                self.scopes.namespaces.insert(q.clone());
                self.scopes.prefix.push(q);
                pushed += 1;
            }
        }
        let decls = self.decl_list(DeclContext::Namespace);
        for _ in 0..pushed {
            self.scopes.prefix.pop();
        }
        self.expect("}")?;
        self.eat(";");
        Ok(Decl {
            kind: DeclKind::Namespace(NamespaceDecl {
                name,
                decls,
                span: self.span_from(start),
            }),
            span: self.span_from(start),
        })
    }

    fn using_decl(&mut self, start: Span) -> PResult<Decl> {
        self.bump();
        if self.eat("namespace") {
            let path = self.path()?;
            self.expect(";")?;
            let q = path.to_text();
            let q = q.trim_start_matches("::").to_string();
            self.scopes.using.push(q);
            return Ok(Decl {
                kind: DeclKind::UsingNamespace(path),
                span: self.span_from(start),
            });
        }
        if self.peek_n(1).is("::") || self.at("::") {
            let path = self.path()?;
            self.expect(";")?;
            return Ok(Decl {
                kind: DeclKind::Using(path),
                span: self.span_from(start),
            });
        }
        let td = self.using_alias(start, Vec::new())?;
        Ok(Decl {
            kind: DeclKind::Typedef(td),
            span: self.span_from(start),
        })
    }

    /// `Name = Type;` after `using`.
    fn using_alias(&mut self, start: Span, templates: Vec<TemplateHeader>) -> PResult<TypedefDecl> {
        let name = self.ident()?;
        let attributes = self.attributes();
        self.expect("=")?;
        let modifiers = self.modifiers(true);
        let ty = self.type_expr()?;
        let array_dims = self.array_dims()?;
        self.expect(";")?;
        self.scopes.declare_type(&name.name);
        if !templates.is_empty() {
            self.scopes.declare_template(&name.name);
        }
        let dspan = name.span;
        Ok(TypedefDecl {
            attributes,
            modifiers,
            ty,
            declarators: vec![Declarator {
                qualifier: None,
                name,
                array_dims,
                annotations: Vec::new(),
                string_annotations: Vec::new(),
                init: None,
                span: dspan,
            }],
            templates,
            span: self.span_from(start),
        })
    }

    /// After `typedef`: `T Name[dims], Other;`
    fn typedef_rest(
        &mut self,
        start: Span,
        templates: Vec<TemplateHeader>,
    ) -> PResult<TypedefDecl> {
        let attributes = self.attributes();
        let mut modifiers = self.modifiers(true);
        let ty = if self.at_struct_keyword() {
            self.struct_type()?
        } else {
            self.type_expr()?
        };
        modifiers.extend(self.modifiers(true));
        let mut declarators = Vec::new();
        loop {
            let dstart = self.peek().span;
            let name = self.ident()?;
            let array_dims = self.array_dims()?;
            self.scopes.declare_type(&name.name);
            declarators.push(Declarator {
                qualifier: None,
                name,
                array_dims,
                annotations: Vec::new(),
                string_annotations: Vec::new(),
                init: None,
                span: self.span_from(dstart),
            });
            if !self.eat(",") {
                break;
            }
        }
        self.expect(";")?;
        Ok(TypedefDecl {
            attributes,
            modifiers,
            ty,
            declarators,
            templates,
            span: self.span_from(start),
        })
    }

    fn template_header(&mut self) -> PResult<TemplateHeader> {
        let start = self.peek().span;
        self.bump(); // template
        if !self.eat("<") {
            self.error_here("expected `<` after `template`");
            return Err(Fail);
        }
        let mut params = Vec::new();
        let saved_no_gt = self.no_gt;
        self.no_gt = true;
        let r = (|| -> PResult<()> {
            if self.eat_gt() {
                return Ok(());
            }
            loop {
                let pstart = self.peek().span;
                let (value_type, name) = if self.at("typename") || self.at("class") {
                    self.bump();
                    let name = if self.peek().is_ident() && !is_reserved(self.peek().text) {
                        Some(self.ident()?)
                    } else {
                        None
                    };
                    (None, name)
                } else {
                    let _ = self.modifiers(true);
                    let ty = self.type_expr()?;
                    let name = if self.peek().is_ident() && !is_reserved(self.peek().text) {
                        Some(self.ident()?)
                    } else {
                        None
                    };
                    (Some(ty), name)
                };
                let default = if self.eat("=") {
                    Some(self.template_arg()?)
                } else {
                    None
                };
                params.push(TemplateParam {
                    value_type,
                    name,
                    default,
                    span: self.span_from(pstart),
                });
                if self.eat(",") {
                    continue;
                }
                if self.eat_gt() {
                    return Ok(());
                }
                let found = self.describe_current();
                self.error_here(format!(
                    "expected `,` or `>` in template parameters, found {found}"
                ));
                return Err(Fail);
            }
        })();
        self.no_gt = saved_no_gt;
        r?;
        Ok(TemplateHeader {
            params,
            span: self.span_from(start),
        })
    }

    fn templated_decl(
        &mut self,
        start: Span,
        attributes: Vec<Attribute>,
        headers: Vec<TemplateHeader>,
        ctx: DeclContext,
    ) -> PResult<Vec<Decl>> {
        // Template parameters that are types are visible inside.
        let mut scope = FxHashSet::default();
        for p in headers.iter().flat_map(|h| &h.params) {
            if p.value_type.is_none()
                && let Some(n) = &p.name
            {
                scope.insert(n.name.clone());
            }
        }
        self.scopes.locals.push(scope);
        let r = if self.at("using") {
            self.bump();
            self.using_alias(start, headers).map(|td| {
                vec![Decl {
                    kind: DeclKind::Typedef(td),
                    span: self.span_from(start),
                }]
            })
        } else if self.at("typedef") {
            self.bump();
            self.typedef_rest(start, headers).map(|td| {
                vec![Decl {
                    kind: DeclKind::Typedef(td),
                    span: self.span_from(start),
                }]
            })
        } else {
            let mut attributes = attributes;
            attributes.extend(self.attributes());
            self.declaration(start, attributes, headers, ctx, false)
        };
        self.scopes.locals.pop();
        // Names declared inside the template scope were put in the local scope; re-declare the
        // templated entity itself outside.
        if let Ok(decls) = &r {
            for d in decls {
                match &d.kind {
                    DeclKind::Struct(s) => {
                        if let Some(n) = &s.name {
                            self.scopes.declare_type(&n.name);
                            self.scopes.declare_template(&n.name);
                        }
                    }
                    DeclKind::Function(f) => {
                        self.scopes.declare_template(&f.name.name);
                    }
                    DeclKind::Typedef(t) => {
                        for d in &t.declarators {
                            self.scopes.declare_type(&d.name.name);
                            self.scopes.declare_template(&d.name.name);
                        }
                    }
                    _ => {}
                }
            }
        }
        r
    }

    fn buffer_decl(&mut self, start: Span, attributes: Vec<Attribute>) -> PResult<Decl> {
        let keyword = if self.at("cbuffer") {
            BufferKeyword::CBuffer
        } else {
            BufferKeyword::TBuffer
        };
        self.bump();
        let name = self.ident()?;
        let annotations = self.post_annotations()?;
        self.expect("{")?;
        let members = self.decl_list(DeclContext::Buffer);
        self.expect("}")?;
        self.eat(";");
        let span = self.span_from(start);
        Ok(Decl {
            kind: DeclKind::Buffer(BufferDecl {
                attributes,
                keyword,
                name,
                annotations,
                members,
                span,
            }),
            span,
        })
    }

    fn enum_decl(&mut self, start: Span, attributes: Vec<Attribute>) -> PResult<Decl> {
        self.bump();
        let scoped = self.eat("class") || self.eat("struct");
        let name = if self.peek().is_ident() && !self.at("{") {
            Some(self.ident()?)
        } else {
            None
        };
        if let Some(n) = &name {
            self.scopes.declare_type(&n.name);
        }
        let base = if self.eat(":") {
            Some(self.type_expr()?)
        } else {
            None
        };
        let mut variants = Vec::new();
        if self.eat("{") {
            while !self.at("}") && !self.at_eof() {
                let vstart = self.peek().span;
                let vname = self.ident()?;
                let value = if self.eat("=") {
                    Some(self.assign_expr()?)
                } else {
                    None
                };
                variants.push(Enumerator {
                    name: vname,
                    value,
                    span: self.span_from(vstart),
                });
                if !self.eat(",") {
                    break;
                }
            }
            self.expect("}")?;
        }
        self.expect(";")?;
        let span = self.span_from(start);
        Ok(Decl {
            kind: DeclKind::Enum(EnumDecl {
                attributes,
                scoped,
                name,
                base,
                variants,
                span,
            }),
            span,
        })
    }

    fn at_struct_keyword(&self) -> bool {
        (self.at("struct") || self.at("class") || self.at("interface"))
            && (self.peek_n(1).is_ident() || self.peek_n(1).is("{") || self.peek_n(1).is("["))
    }

    /// `struct [Name] [: bases] [{ members }]` as a type.
    fn struct_type(&mut self) -> PResult<TypeExpr> {
        let start = self.peek().span;
        let s = self.struct_decl(start, Vec::new(), Vec::new())?;
        if s.members.is_none() {
            // Elaborated `struct S` names a type.
            let span = self.span_from(start);
            let name = s.name.clone().ok_or(Fail)?;
            return Ok(TypeExpr {
                kind: TypeKind::Named {
                    path: Path {
                        global: false,
                        segments: vec![name],
                        span,
                    },
                    args: None,
                },
                span,
            });
        }
        Ok(TypeExpr {
            span: s.span,
            kind: TypeKind::Struct(Box::new(s)),
        })
    }

    fn struct_decl(
        &mut self,
        start: Span,
        attributes: Vec<Attribute>,
        templates: Vec<TemplateHeader>,
    ) -> PResult<StructDecl> {
        let keyword = match self.peek().text {
            "class" => StructKeyword::Class,
            "interface" => StructKeyword::Interface,
            _ => StructKeyword::Struct,
        };
        self.bump();
        let mut attributes = attributes;
        attributes.extend(self.attributes());
        let name = if self.peek().is_ident() && !self.at("{") {
            Some(self.ident()?)
        } else {
            None
        };
        let specialization_args = if self.at("<") {
            Some(self.template_args()?)
        } else {
            None
        };
        if let Some(n) = &name {
            self.scopes.declare_type(&n.name);
            if !templates.is_empty() {
                self.scopes.declare_template(&n.name);
            }
        }
        let mut bases = Vec::new();
        if self.eat(":") {
            loop {
                let _ = self.eat("public") || self.eat("private") || self.eat("protected");
                bases.push(self.type_expr()?);
                if !self.eat(",") {
                    break;
                }
            }
        }
        let members = if self.eat("{") {
            // Members see the struct's nested names as `Name::Inner`.
            let prefix = name
                .as_ref()
                .map(|n| self.scopes.qualify(&n.name))
                .unwrap_or_else(|| self.scopes.current_prefix().to_string());
            // Types declared inside a struct are struct-scoped, not block-scoped.
            let saved_locals = std::mem::take(&mut self.scopes.locals);
            // Template parameters stay visible.
            let mut tparams = FxHashSet::default();
            for l in &saved_locals {
                tparams.extend(l.iter().cloned());
            }
            self.scopes.prefix.push(prefix);
            let had_params = !tparams.is_empty();
            if had_params {
                // Keep them as type names in the struct's scope for lookup.
                for t in &tparams {
                    let q = self.scopes.qualify(t);
                    self.scopes.types.insert(q);
                }
            }
            let members = self.decl_list(DeclContext::Struct);
            self.scopes.prefix.pop();
            self.scopes.locals = saved_locals;
            self.expect("}")?;
            Some(members)
        } else {
            None
        };
        Ok(StructDecl {
            attributes,
            templates,
            keyword,
            name,
            specialization_args,
            bases,
            members,
            span: self.span_from(start),
        })
    }

    /// Modifier keywords (contextual ones only when a type or another modifier follows).
    fn modifiers(&mut self, allow_contextual: bool) -> Vec<ModifierSpan> {
        let mut out = Vec::new();
        loop {
            let t = self.peek();
            if !t.is_ident() {
                break;
            }
            let Some(m) = Modifier::from_keyword(t.text) else {
                break;
            };
            if is_contextual_modifier(t.text) {
                if !allow_contextual {
                    break;
                }
                // `sample` etc. are names unless something type-like follows.
                let n = self.peek_n(1);
                let next_ok = n.is_ident()
                    && !matches!(n.text, "=" | ";")
                    && (Modifier::from_keyword(n.text).is_some()
                        || self.looks_like_type_name(self.pos + 1)
                        || matches!(n.text, "struct" | "class")
                        || (self.peek_n(2).is_ident() || self.peek_n(2).is("<")));
                if !next_ok {
                    break;
                }
            }
            out.push(ModifierSpan {
                modifier: m,
                span: t.span,
            });
            self.bump();
        }
        out
    }

    /// True when the identifier at token `i` names a type (also `ns::T` and `::T`).
    fn looks_like_type_name(&self, i: usize) -> bool {
        let mut segs: Vec<&str> = Vec::new();
        let mut j = i;
        if self.tok_at(j).is("::") {
            j += 1;
        }
        loop {
            let t = self.tok_at(j);
            if !t.is_ident() || is_reserved(t.text) && t.text != "typename" {
                return false;
            }
            if t.text == "typename" {
                return true;
            }
            segs.push(t.text);
            if self.tok_at(j + 1).is("::") && self.tok_at(j + 2).is_ident() {
                j += 2;
                continue;
            }
            break;
        }
        self.scopes.is_type(&segs)
    }

    /// A declaration after its attributes: struct definitions, functions, variables.
    fn declaration(
        &mut self,
        start: Span,
        attributes: Vec<Attribute>,
        template: Vec<TemplateHeader>,
        ctx: DeclContext,
        local: bool,
    ) -> PResult<Vec<Decl>> {
        let mut modifiers = self.modifiers(true);
        let mut attributes = attributes;
        if self.at("[") {
            attributes.extend(self.attributes());
            modifiers.extend(self.modifiers(true));
        }
        if self.at("typedef") {
            self.bump();
            let td = self.typedef_rest(start, template)?;
            return Ok(vec![Decl {
                kind: DeclKind::Typedef(td),
                span: self.span_from(start),
            }]);
        }
        if self.at_struct_keyword() {
            let sstart = self.peek().span;
            let s = self.struct_decl(sstart, attributes.clone(), template.clone())?;
            let template: Vec<TemplateHeader> = Vec::new();
            if self.eat(";") {
                let span = self.span_from(start);
                return Ok(vec![Decl {
                    kind: DeclKind::Struct(s),
                    span,
                }]);
            }
            // `struct S {...} a, b;` or `struct S x;` or `struct S f() {...}`: the attributes
            // belong to the declaration, not (also) to the struct.
            let mut s = s;
            s.attributes.clear();
            let ty = if s.members.is_none() {
                let name = s.name.clone().ok_or(Fail)?;
                let span = name.span;
                TypeExpr {
                    kind: TypeKind::Named {
                        path: Path {
                            global: false,
                            segments: vec![name],
                            span,
                        },
                        args: None,
                    },
                    span,
                }
            } else {
                TypeExpr {
                    span: s.span,
                    kind: TypeKind::Struct(Box::new(s)),
                }
            };
            modifiers.extend(self.modifiers(true));
            return self.after_type(start, attributes, template, modifiers, ty, ctx, local);
        }
        let ty = self.type_expr()?;
        modifiers.extend(self.modifiers(true));
        self.after_type(start, attributes, template, modifiers, ty, ctx, local)
    }

    /// The declarators or function after `modifiers type`.
    #[allow(clippy::too_many_arguments)]
    fn after_type(
        &mut self,
        start: Span,
        attributes: Vec<Attribute>,
        template: Vec<TemplateHeader>,
        modifiers: Vec<ModifierSpan>,
        ty: TypeExpr,
        ctx: DeclContext,
        local: bool,
    ) -> PResult<Vec<Decl>> {
        // A function: name (possibly qualified, or `operator+`) followed by `(`.
        let _ = (ctx, local);
        if self.at("operator")
            || self.at("::")
            || (self.peek().is_ident() && !is_reserved(self.peek().text))
        {
            let (save_pos, save_split, save_prev) = (self.pos, self.split, self.prev_span);
            if let Some((qualifier, name)) = self.speculate(|p| p.decl_name()) {
                // `twice<float>(...)`: an explicit specialization's arguments.
                let specialization_args = if self.at("<") {
                    self.speculate(|p| {
                        let a = p.template_args()?;
                        if p.at("(") { Ok(a) } else { Err(Fail) }
                    })
                } else {
                    None
                };
                if self.at("(") {
                    // A function (or, for a local, a prototype).
                    let mut f = self.function_rest(
                        start, attributes, template, modifiers, ty, qualifier, name,
                    )?;
                    f.specialization_args = specialization_args;
                    let span = f.span;
                    return Ok(vec![Decl {
                        kind: DeclKind::Function(f),
                        span,
                    }]);
                }
            }
            self.rewind(save_pos, save_split, save_prev);
        }
        let mut declarators = Vec::new();
        loop {
            declarators.push(self.declarator()?);
            if !self.eat(",") {
                break;
            }
        }
        if !self.eat(";") {
            let found = self.describe_current();
            self.error_here(format!("expected `;` after declaration, found {found}"));
            return Err(Fail);
        }
        let span = self.span_from(start);
        Ok(vec![Decl {
            kind: DeclKind::Var(VarDecl {
                attributes,
                modifiers,
                ty,
                declarators,
                span,
            }),
            span,
        }])
    }

    /// A declared name, possibly qualified (`S::f`, `MyClass<T>::array`, `S::operator()`):
    /// returns the qualifier as a type and the last name.
    fn decl_name(&mut self) -> PResult<(Option<TypeExpr>, Ident)> {
        let start = self.peek().span;
        let global = self.eat("::");
        let mut segments: Vec<Ident> = Vec::new();
        let mut last_args = None;
        loop {
            if self.at("operator") {
                let name = self.operator_name()?;
                return Ok((self.qualifier(start, global, segments, last_args), name));
            }
            let id = self.ident()?;
            let args = if self.at("<") {
                self.speculate(|p| {
                    let a = p.template_args()?;
                    if p.at("::") { Ok(a) } else { Err(Fail) }
                })
            } else {
                None
            };
            if self.at("::") && (self.peek_n(1).is_ident()) {
                self.bump();
                segments.push(id);
                last_args = args;
                continue;
            }
            return Ok((self.qualifier(start, global, segments, last_args), id));
        }
    }

    fn qualifier(
        &self,
        start: Span,
        global: bool,
        segments: Vec<Ident>,
        args: Option<Vec<TemplateArg>>,
    ) -> Option<TypeExpr> {
        let last = segments.last()?.span;
        let span = start.to(last);
        Some(TypeExpr {
            kind: TypeKind::Named {
                path: Path {
                    global,
                    segments,
                    span,
                },
                args,
            },
            span,
        })
    }

    fn operator_name(&mut self) -> PResult<Ident> {
        let start = self.peek().span;
        self.bump(); // operator
        let mut text = String::from("operator");
        if self.at("(") && self.peek_n(1).is(")") {
            self.bump();
            self.bump();
            text.push_str("()");
        } else if self.at("[") && self.peek_n(1).is("]") {
            self.bump();
            self.bump();
            text.push_str("[]");
        } else {
            let t = self.peek();
            if t.kind != TokenKind::Punct && !t.is_ident() {
                self.error_here("expected an operator after `operator`");
                return Err(Fail);
            }
            if t.is_ident() {
                text.push(' ');
            }
            text.push_str(t.text);
            self.bump();
        }
        Ok(Ident {
            name: text,
            span: self.span_from(start),
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn function_rest(
        &mut self,
        start: Span,
        attributes: Vec<Attribute>,
        templates: Vec<TemplateHeader>,
        modifiers: Vec<ModifierSpan>,
        return_type: TypeExpr,
        qualifier: Option<TypeExpr>,
        name: Ident,
    ) -> PResult<FunctionDecl> {
        self.expect("(")?;
        let mut params = Vec::new();
        if self.at("void") && self.peek_n(1).is(")") {
            self.bump();
        }
        if !self.at(")") {
            loop {
                params.push(self.param()?);
                if !self.eat(",") {
                    break;
                }
            }
        }
        self.expect(")")?;
        let is_const = self.eat("const");
        let annotations = self.post_annotations()?;
        let body = if self.at("{") {
            self.scopes.locals.push(FxHashSet::default());
            let b = self.block();
            self.scopes.locals.pop();
            Some(b?)
        } else {
            if !self.eat(";") {
                let found = self.describe_current();
                self.error_here(format!(
                    "expected `{{` or `;` after function declaration, found {found}"
                ));
                return Err(Fail);
            }
            None
        };
        Ok(FunctionDecl {
            attributes,
            templates,
            modifiers,
            return_type,
            qualifier,
            name,
            specialization_args: None,
            params,
            is_const,
            annotations,
            body,
            span: self.span_from(start),
        })
    }

    fn param(&mut self) -> PResult<Param> {
        let start = self.peek().span;
        let attributes = self.attributes();
        let mut modifiers = self.modifiers(true);
        let ty = if self.at_struct_keyword() {
            self.struct_type()?
        } else {
            self.type_expr()?
        };
        modifiers.extend(self.modifiers(true));
        let declarator = if self.peek().is_ident() && !is_reserved(self.peek().text) {
            Some(self.declarator()?)
        } else if self.at("[") || self.at(":") || self.at("=") {
            // Unnamed parameter with dimensions/semantic: unusual; parse a nameless declarator.
            self.error_here("expected a parameter name");
            return Err(Fail);
        } else {
            None
        };
        Ok(Param {
            attributes,
            modifiers,
            ty,
            declarator,
            span: self.span_from(start),
        })
    }

    fn declarator(&mut self) -> PResult<Declarator> {
        let start = self.peek().span;
        let (qualifier, name) = if self.peek_n(1).is("::") || self.peek_n(1).is("<") {
            self.decl_name()?
        } else {
            (None, self.ident()?)
        };
        let array_dims = self.array_dims()?;
        let mut annotations = self.post_annotations()?;
        let string_annotations = if self.at("<") {
            self.string_annotations()?
        } else {
            Vec::new()
        };
        if self.at(":") {
            annotations.extend(self.post_annotations()?);
        }
        let init = if self.eat("=") {
            Some(self.initializer()?)
        } else if self.at("{") {
            // DX9 `sampler2D s { AddressU = WRAP; };` state block without `= sampler_state`.
            Some(self.state_block()?)
        } else {
            None
        };
        Ok(Declarator {
            qualifier,
            name,
            array_dims,
            annotations,
            string_annotations,
            init,
            span: self.span_from(start),
        })
    }

    fn array_dims(&mut self) -> PResult<Vec<ArrayDim>> {
        let mut dims = Vec::new();
        while self.at("[") {
            let start = self.peek().span;
            self.bump();
            let size = if self.at("]") {
                None
            } else {
                let saved = self.no_gt;
                self.no_gt = false;
                let e = self.expr();
                self.no_gt = saved;
                Some(e?)
            };
            self.expect("]")?;
            dims.push(ArrayDim {
                size,
                span: self.span_from(start),
            });
        }
        Ok(dims)
    }

    /// `: SEMANTIC`, `: register(...)`, `: packoffset(...)`, repeated.
    fn post_annotations(&mut self) -> PResult<Vec<PostAnnotation>> {
        let mut out = Vec::new();
        while self.at(":") && !self.peek_n(1).is(":") {
            self.bump();
            let start = self.peek().span;
            if self.at("register") && self.peek_n(1).is("(") {
                self.bump();
                self.bump();
                let mut args = Vec::new();
                while !self.at(")") && !self.at_eof() {
                    let astart = self.peek().span;
                    let mut text = String::new();
                    while !self.at(",") && !self.at(")") && !self.at_eof() {
                        if self.at(";") || self.at("{") {
                            self.error_here("expected `)` closing `register(`");
                            return Err(Fail);
                        }
                        text.push_str(self.peek().text);
                        self.bump();
                    }
                    if text.is_empty() {
                        self.error_here("expected a register name");
                        return Err(Fail);
                    }
                    args.push(Ident {
                        name: text,
                        span: self.span_from(astart),
                    });
                    if !self.eat(",") {
                        break;
                    }
                }
                self.expect(")")?;
                out.push(PostAnnotation::Register {
                    args,
                    span: self.span_from(start),
                });
            } else if self.at("packoffset") && self.peek_n(1).is("(") {
                self.bump();
                self.bump();
                let register = self.attr_name()?;
                let component = if self.eat(".") {
                    Some(self.attr_name()?)
                } else {
                    None
                };
                self.expect(")")?;
                out.push(PostAnnotation::PackOffset {
                    register,
                    component,
                    span: self.span_from(start),
                });
            } else if self.peek().kind == TokenKind::Number {
                let width = self.ternary_expr()?;
                out.push(PostAnnotation::BitField { width });
            } else if self.peek().is_ident() {
                let t = self.peek();
                out.push(PostAnnotation::Semantic(Ident {
                    name: t.text.to_string(),
                    span: t.span,
                }));
                self.bump();
            } else {
                let found = self.describe_current();
                self.error_here(format!("expected a semantic after `:`, found {found}"));
                return Err(Fail);
            }
        }
        Ok(out)
    }

    /// DX9 `< string Name = "value"; ... >`.
    fn string_annotations(&mut self) -> PResult<Vec<VarDecl>> {
        self.bump(); // <
        let saved = self.no_gt;
        self.no_gt = true;
        let mut out = Vec::new();
        let r = (|| -> PResult<()> {
            while !self.eat_gt() {
                if self.at_eof() {
                    self.error_here("expected `>` closing the annotations");
                    return Err(Fail);
                }
                if self.eat(";") {
                    continue;
                }
                let start = self.peek().span;
                let modifiers = self.modifiers(false);
                let ty = self.type_expr()?;
                let mut declarators = Vec::new();
                loop {
                    declarators.push(self.declarator()?);
                    if !self.eat(",") {
                        break;
                    }
                }
                self.expect(";")?;
                out.push(VarDecl {
                    attributes: Vec::new(),
                    modifiers,
                    ty,
                    declarators,
                    span: self.span_from(start),
                });
            }
            Ok(())
        })();
        self.no_gt = saved;
        r?;
        Ok(out)
    }

    fn initializer(&mut self) -> PResult<Expr> {
        if self.at("{") {
            return self.init_list();
        }
        self.assign_expr()
    }

    fn init_list(&mut self) -> PResult<Expr> {
        let start = self.peek().span;
        self.enter()?;
        self.bump(); // {
        let saved = self.no_gt;
        self.no_gt = false;
        let mut items = Vec::new();
        let r = (|| -> PResult<()> {
            while !self.at("}") {
                items.push(self.initializer()?);
                if !self.eat(",") {
                    break;
                }
            }
            self.expect("}")
        })();
        self.no_gt = saved;
        self.leave();
        r?;
        Ok(Expr {
            kind: ExprKind::InitList(items),
            span: self.span_from(start),
        })
    }

    // ----- types -----

    fn path(&mut self) -> PResult<Path> {
        let start = self.peek().span;
        let global = self.eat("::");
        let mut segments = vec![self.ident()?];
        while self.at("::") && self.peek_n(1).is_ident() {
            self.bump();
            segments.push(self.ident()?);
        }
        Ok(Path {
            global,
            segments,
            span: self.span_from(start),
        })
    }

    /// A type: `float4`, `unsigned int`, `Texture2D<float4>`, `ns::S`, `typename T::X`,
    /// `const`/`row_major` around it are handled by the caller.
    fn type_expr(&mut self) -> PResult<TypeExpr> {
        let start = self.peek().span;
        if self.eat("typename") {
            let path = self.path()?;
            return Ok(TypeExpr {
                kind: TypeKind::Typename(path),
                span: self.span_from(start),
            });
        }
        if self.at_struct_keyword() {
            return self.struct_type();
        }
        // `unsigned int`, `unsigned` alone, `signed char`-like spellings.
        if self.at("unsigned") || self.at("signed") {
            let first = self.peek();
            let sp = first.span;
            let word = first.text.to_string();
            self.bump();
            let base = if matches!(self.peek().text, "int" | "short" | "long" | "char") {
                let t = self.peek().text.to_string();
                self.bump();
                t
            } else {
                "int".to_string()
            };
            let name = if word == "unsigned" {
                format!("unsigned {base}")
            } else {
                base
            };
            let span = self.span_from(sp);
            return Ok(TypeExpr {
                kind: TypeKind::Named {
                    path: Path {
                        global: false,
                        segments: vec![Ident { name, span }],
                        span,
                    },
                    args: None,
                },
                span,
            });
        }
        let t = self.peek();
        if !t.is_ident() && !t.is("::") || t.is_ident() && is_reserved(t.text) {
            let found = self.describe_current();
            self.error_here(format!("expected a type, found {found}"));
            return Err(Fail);
        }
        let path = self.path()?;
        let args = if self.at("<") {
            Some(self.template_args()?)
        } else {
            None
        };
        Ok(TypeExpr {
            kind: TypeKind::Named { path, args },
            span: self.span_from(start),
        })
    }

    /// `<arg, arg>`; `>>` is split.
    fn template_args(&mut self) -> PResult<Vec<TemplateArg>> {
        self.enter()?;
        self.bump(); // <
        let saved = self.no_gt;
        self.no_gt = true;
        let mut args = Vec::new();
        let r = (|| -> PResult<()> {
            if self.eat_gt() {
                return Ok(());
            }
            loop {
                args.push(self.template_arg()?);
                if self.eat(",") {
                    continue;
                }
                if self.eat_gt() {
                    return Ok(());
                }
                let found = self.describe_current();
                self.error_here(format!(
                    "expected `,` or `>` in template arguments, found {found}"
                ));
                return Err(Fail);
            }
        })();
        self.no_gt = saved;
        self.leave();
        r?;
        Ok(args)
    }

    fn template_arg(&mut self) -> PResult<TemplateArg> {
        let start = self.peek().span;
        let modifiers = if self.peek().is_ident()
            && Modifier::from_keyword(self.peek().text).is_some()
            && self.peek_n(1).is_ident()
        {
            self.modifiers(true)
        } else {
            Vec::new()
        };
        if !modifiers.is_empty() || self.is_type_start() {
            let ty = self.type_expr()?;
            let mut modifiers = modifiers;
            modifiers.extend(self.modifiers(false));
            // A type followed by `(` is a constructor expression used as a value.
            if modifiers.is_empty() && self.at("(") {
                let e = self.construct_rest(ty)?;
                let e = self.postfix_rest(e)?;
                return Ok(TemplateArg::Expr(self.binary_rest(e, 0)?));
            }
            let ty = self.wrap_type(start, modifiers, ty)?;
            return Ok(TemplateArg::Type(ty));
        }
        Ok(TemplateArg::Expr(self.ternary_expr()?))
    }

    /// Wraps a type in [`TypeKind::Array`] for trailing `[N]` and in [`TypeKind::Modified`] for
    /// modifiers written in type syntax.
    fn wrap_type(
        &mut self,
        start: Span,
        modifiers: Vec<ModifierSpan>,
        ty: TypeExpr,
    ) -> PResult<TypeExpr> {
        let mut ty = ty;
        if self.at("[") {
            let dims = self.array_dims()?;
            ty = TypeExpr {
                span: self.span_from(ty.span),
                kind: TypeKind::Array {
                    element: Box::new(ty),
                    dims,
                },
            };
        }
        if !modifiers.is_empty() {
            ty = TypeExpr {
                span: self.span_from(start),
                kind: TypeKind::Modified {
                    modifiers,
                    inner: Box::new(ty),
                },
            };
        }
        Ok(ty)
    }

    /// True when the current token starts a type (built-in, declared, `typename`, `struct`...).
    fn is_type_start(&self) -> bool {
        let t = self.peek();
        if !t.is_ident() && !t.is("::") {
            return false;
        }
        if matches!(t.text, "typename" | "unsigned" | "signed") {
            return true;
        }
        if matches!(t.text, "struct" | "class" | "interface") {
            return true;
        }
        self.looks_like_type_name(self.pos)
    }

    // ----- statements -----

    fn block(&mut self) -> PResult<Block> {
        let start = self.peek().span;
        self.expect("{")?;
        self.scopes.locals.push(FxHashSet::default());
        let mut stmts = Vec::new();
        while !self.at("}") && !self.at_eof() {
            let before = self.pos;
            stmts.push(self.stmt_recovering());
            if self.pos == before && !self.at_eof() {
                self.bump();
            }
        }
        self.scopes.locals.pop();
        if !self.eat("}") {
            if !self.gave_up {
                self.error_here("expected `}`, found end of file");
            }
            return Err(Fail);
        }
        Ok(Block {
            stmts,
            span: self.span_from(start),
        })
    }

    fn stmt_recovering(&mut self) -> Stmt {
        let start = self.peek().span;
        match self.stmt() {
            Ok(s) => s,
            Err(Fail) => {
                self.recover_stmt();
                Stmt {
                    attributes: Vec::new(),
                    kind: StmtKind::Error,
                    span: self.span_from(start),
                }
            }
        }
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        self.enter()?;
        let r = self.stmt_inner();
        self.leave();
        r
    }

    fn stmt_inner(&mut self) -> PResult<Stmt> {
        let attributes = self.attributes();
        let start = self.peek().span;
        let t = self.peek();
        let kind = match t.text {
            "{" if t.kind == TokenKind::Punct => StmtKind::Block(self.block()?),
            ";" if t.kind == TokenKind::Punct => {
                self.bump();
                StmtKind::Empty
            }
            "if" => {
                self.bump();
                self.expect("(")?;
                let cond = self.condition()?;
                self.expect(")")?;
                let then = Box::new(self.sub_stmt()?);
                let otherwise = if self.eat("else") {
                    Some(Box::new(self.sub_stmt()?))
                } else {
                    None
                };
                StmtKind::If {
                    cond,
                    then,
                    otherwise,
                }
            }
            "for" => {
                self.bump();
                self.expect("(")?;
                self.scopes.locals.push(FxHashSet::default());
                let r = self.for_rest();
                self.scopes.locals.pop();
                r?
            }
            "while" => {
                self.bump();
                self.expect("(")?;
                let cond = self.condition()?;
                self.expect(")")?;
                let body = Box::new(self.sub_stmt()?);
                StmtKind::While { cond, body }
            }
            "do" => {
                self.bump();
                let body = Box::new(self.sub_stmt()?);
                if !self.eat("while") {
                    let found = self.describe_current();
                    self.error_here(format!("expected `while` after `do` body, found {found}"));
                    return Err(Fail);
                }
                self.expect("(")?;
                let cond = self.expr()?;
                self.expect(")")?;
                self.expect(";")?;
                StmtKind::DoWhile { body, cond }
            }
            "switch" => {
                self.bump();
                self.switch_rest()?
            }
            "break" => {
                self.bump();
                self.expect(";")?;
                StmtKind::Break
            }
            "continue" => {
                self.bump();
                self.expect(";")?;
                StmtKind::Continue
            }
            "discard" => {
                self.bump();
                self.expect(";")?;
                StmtKind::Discard
            }
            "return" => {
                self.bump();
                let v = if self.at(";") {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.expect(";")?;
                StmtKind::Return(v)
            }
            "case" | "default" if t.is_ident() && (t.text == "case" || self.peek_n(1).is(":")) => {
                if self.switch_depth == 0 {
                    self.error_code("OSH0003", format!("`{}` label outside a `switch`", t.text));
                    return Err(Fail);
                }
                // A label inside a nested block of a `switch` body (`case 6: { case 7: ... }`).
                let label = if t.text == "case" {
                    self.bump();
                    let e = self.ternary_expr()?;
                    CaseLabel::Case(e)
                } else {
                    self.bump();
                    CaseLabel::Default(start)
                };
                self.expect(":")?;
                StmtKind::Label(label)
            }
            "using" => {
                let d = self.decl(DeclContext::Struct)?;
                let d = d.into_iter().next().ok_or(Fail)?;
                return Ok(Stmt {
                    attributes,
                    span: d.span,
                    kind: StmtKind::Decl(Box::new(d)),
                });
            }
            "else" => {
                self.error_code("OSH0004", "`else` without a matching `if`");
                return Err(Fail);
            }
            _ => {
                if self.is_decl_stmt() {
                    let mut decls = self.declaration(
                        start,
                        attributes.clone(),
                        Vec::new(),
                        DeclContext::Struct,
                        true,
                    )?;
                    let d = if decls.len() == 1 {
                        decls.pop().ok_or(Fail)?
                    } else {
                        // Only one decl is produced for locals; keep the first.
                        decls.into_iter().next().ok_or(Fail)?
                    };
                    return Ok(Stmt {
                        attributes,
                        span: d.span,
                        kind: StmtKind::Decl(Box::new(d)),
                    });
                }
                if t.text == "typedef" || t.text == "enum" {
                    let d = self.decl(DeclContext::Struct)?;
                    let d = d.into_iter().next().ok_or(Fail)?;
                    return Ok(Stmt {
                        attributes,
                        span: d.span,
                        kind: StmtKind::Decl(Box::new(d)),
                    });
                }
                let e = self.expr()?;
                if !self.eat(";") {
                    let found = self.describe_current();
                    self.error_here(format!("expected `;` after expression, found {found}"));
                    return Err(Fail);
                }
                StmtKind::Expr(e)
            }
        };
        Ok(Stmt {
            attributes,
            kind,
            span: self.span_from(start),
        })
    }

    /// The condition of `if`/`while`/`switch`: an expression or a one-name declaration.
    fn condition(&mut self) -> PResult<Condition> {
        if !self.is_decl_stmt() {
            return Ok(Condition::Expr(self.expr()?));
        }
        let start = self.peek().span;
        let mut modifiers = self.modifiers(true);
        let ty = self.type_expr()?;
        modifiers.extend(self.modifiers(true));
        let d = self.declarator()?;
        Ok(Condition::Decl(Box::new(VarDecl {
            attributes: Vec::new(),
            modifiers,
            ty,
            declarators: vec![d],
            span: self.span_from(start),
        })))
    }

    /// The body of `if`/`for`/`while`/`do`: a statement, recovering locally.
    fn sub_stmt(&mut self) -> PResult<Stmt> {
        if self.at_eof() {
            self.error_here("expected a statement, found end of file");
            return Err(Fail);
        }
        Ok(self.stmt_recovering())
    }

    fn for_rest(&mut self) -> PResult<StmtKind> {
        let init = if self.eat(";") {
            None
        } else {
            let start = self.peek().span;
            if self.is_decl_stmt() {
                let mut d =
                    self.declaration(start, Vec::new(), Vec::new(), DeclContext::Struct, true)?;
                let d = d.pop().ok_or(Fail)?;
                Some(Box::new(Stmt {
                    attributes: Vec::new(),
                    span: d.span,
                    kind: StmtKind::Decl(Box::new(d)),
                }))
            } else {
                let e = self.expr()?;
                self.expect(";")?;
                Some(Box::new(Stmt {
                    attributes: Vec::new(),
                    span: e.span,
                    kind: StmtKind::Expr(e),
                }))
            }
        };
        let cond = if self.at(";") {
            None
        } else {
            Some(self.expr()?)
        };
        self.expect(";")?;
        let step = if self.at(")") {
            None
        } else {
            Some(self.expr()?)
        };
        self.expect(")")?;
        let body = Box::new(self.sub_stmt()?);
        Ok(StmtKind::For {
            init,
            cond,
            step,
            body,
        })
    }

    fn switch_rest(&mut self) -> PResult<StmtKind> {
        self.expect("(")?;
        let value = self.condition()?;
        self.expect(")")?;
        self.expect("{")?;
        self.scopes.locals.push(FxHashSet::default());
        self.switch_depth += 1;
        let mut cases: Vec<SwitchCase> = Vec::new();
        let r = (|| -> PResult<()> {
            while !self.at("}") && !self.at_eof() {
                let start = self.peek().span;
                let mut labels = Vec::new();
                loop {
                    if self.at("case") {
                        self.bump();
                        let e = self.ternary_expr()?;
                        self.expect(":")?;
                        labels.push(CaseLabel::Case(e));
                    } else if self.at("default") && self.peek_n(1).is(":") {
                        let s = self.peek().span;
                        self.bump();
                        self.bump();
                        labels.push(CaseLabel::Default(s));
                    } else {
                        break;
                    }
                }
                if labels.is_empty() {
                    self.error_code(
                        "OSH0005",
                        "statement in `switch` before any `case` or `default` label",
                    );
                    // Parse the statement anyway so the error does not cascade.
                    let _ = self.stmt_recovering();
                    continue;
                }
                let mut body = Vec::new();
                while !(self.at("case")
                    || self.at("}")
                    || self.at_eof()
                    || self.at("default") && self.peek_n(1).is(":"))
                {
                    let before = self.pos;
                    body.push(self.stmt_recovering());
                    if self.pos == before {
                        self.bump();
                    }
                }
                cases.push(SwitchCase {
                    labels,
                    body,
                    span: self.span_from(start),
                });
            }
            Ok(())
        })();
        self.scopes.locals.pop();
        self.switch_depth -= 1;
        r?;
        self.expect("}")?;
        Ok(StmtKind::Switch { value, cases })
    }

    /// Decides whether a statement is a declaration.
    fn is_decl_stmt(&mut self) -> bool {
        let t = self.peek();
        if !t.is_ident() && !t.is("::") {
            return false;
        }
        match t.text {
            "static" | "const" | "uniform" | "groupshared" | "extern" | "volatile" | "typedef"
            | "row_major" | "column_major" | "precise" | "nointerpolation" | "noperspective"
            | "globallycoherent" | "snorm" | "unorm" | "inline" => return true,
            "struct" | "class" | "interface" => return self.at_struct_keyword(),
            _ => {}
        }
        if is_contextual_modifier(t.text) {
            let n = self.peek_n(1);
            if n.is_ident()
                && (self.looks_like_type_name(self.pos + 1) || self.peek_n(2).is_ident())
            {
                return true;
            }
        }
        if is_reserved(t.text) {
            return false;
        }
        // `Type name ...`, `Type<args> name`, `ns::Type name`.
        let save = (self.pos, self.split, self.prev_span);
        let known = self.looks_like_type_name(self.pos);
        let r = self.speculate(|p| {
            let _ = p.type_expr()?;
            let _ = p.modifiers(false);
            let n = p.peek();
            if n.is_ident() && !is_reserved(n.text) {
                Ok(())
            } else {
                Err(Fail)
            }
        });
        self.rewind(save.0, save.1, save.2);
        // A known type followed by a name, or an unknown name followed by a name (a type we
        // could not see, e.g. from a failed include: better parsed as a declaration).
        r.is_some() && (known || self.peek_n(1).is_ident() || self.peek_n(1).is("<"))
    }

    // ----- expressions -----

    /// A full expression, commas included.
    fn expr(&mut self) -> PResult<Expr> {
        let start = self.peek().span;
        let mut e = self.assign_expr()?;
        while self.at(",") {
            self.bump();
            let rhs = self.assign_expr()?;
            e = Expr {
                kind: ExprKind::Binary {
                    op: BinaryOp::Comma,
                    lhs: Box::new(e),
                    rhs: Box::new(rhs),
                },
                span: self.span_from(start),
            };
            self.grow_tree()?;
        }
        Ok(e)
    }

    fn grow_tree(&mut self) -> PResult<()> {
        self.tree_depth += 1;
        if self.tree_depth + self.nesting > MAX_TREE_DEPTH {
            self.error_code(
                "OSH0011",
                format!("expression deeper than {MAX_TREE_DEPTH} levels"),
            );
            if self.speculating == 0 {
                self.gave_up = true;
            }
            return Err(Fail);
        }
        Ok(())
    }

    /// Assignment (right-associative) or a conditional expression.
    fn assign_expr(&mut self) -> PResult<Expr> {
        let tree = self.tree_depth;
        let r = self.assign_inner();
        self.tree_depth = tree;
        r
    }

    fn assign_inner(&mut self) -> PResult<Expr> {
        self.enter()?;
        let start = self.peek().span;
        let lhs = self.ternary_expr();
        let lhs = match lhs {
            Ok(l) => l,
            Err(f) => {
                self.leave();
                return Err(f);
            }
        };
        let t = self.peek();
        let op = if t.kind == TokenKind::Punct {
            match t.text {
                "=" => Some(None),
                "+=" => Some(Some(BinaryOp::Add)),
                "-=" => Some(Some(BinaryOp::Sub)),
                "*=" => Some(Some(BinaryOp::Mul)),
                "/=" => Some(Some(BinaryOp::Div)),
                "%=" => Some(Some(BinaryOp::Rem)),
                "<<=" => Some(Some(BinaryOp::Shl)),
                ">>=" if !self.no_gt => Some(Some(BinaryOp::Shr)),
                "&=" => Some(Some(BinaryOp::BitAnd)),
                "|=" => Some(Some(BinaryOp::BitOr)),
                "^=" => Some(Some(BinaryOp::BitXor)),
                _ => None,
            }
        } else {
            None
        };
        let r = match op {
            Some(op) => {
                self.bump();
                let rhs = if self.at("{") {
                    self.init_list()
                } else {
                    self.assign_expr()
                };
                rhs.map(|rhs| Expr {
                    kind: ExprKind::Assign {
                        op,
                        lhs: Box::new(lhs),
                        rhs: Box::new(rhs),
                    },
                    span: self.span_from(start),
                })
            }
            None => Ok(lhs),
        };
        self.leave();
        r
    }

    fn ternary_expr(&mut self) -> PResult<Expr> {
        let start = self.peek().span;
        let cond = self.binary_expr(0)?;
        if !self.at("?") {
            return Ok(cond);
        }
        self.bump();
        let saved = self.no_gt;
        self.no_gt = false;
        let then = self.assign_expr();
        self.no_gt = saved;
        let then = then?;
        self.expect(":")?;
        let otherwise = self.assign_expr()?;
        Ok(Expr {
            kind: ExprKind::Ternary {
                cond: Box::new(cond),
                then: Box::new(then),
                otherwise: Box::new(otherwise),
            },
            span: self.span_from(start),
        })
    }

    fn binary_op(&self) -> Option<(BinaryOp, u8)> {
        let t = self.peek();
        if t.kind != TokenKind::Punct {
            return None;
        }
        use BinaryOp::*;
        Some(match t.text {
            "||" => (LogicalOr, 1),
            "&&" => (LogicalAnd, 2),
            "|" => (BitOr, 3),
            "^" => (BitXor, 4),
            "&" => (BitAnd, 5),
            "==" => (Eq, 6),
            "!=" => (Ne, 6),
            "<" => (Lt, 7),
            ">" if !self.no_gt => (Gt, 7),
            "<=" => (Le, 7),
            ">=" if !self.no_gt => (Ge, 7),
            "<<" => (Shl, 8),
            ">>" if !self.no_gt => (Shr, 8),
            "+" => (Add, 9),
            "-" => (Sub, 9),
            "*" => (Mul, 10),
            "/" => (Div, 10),
            "%" => (Rem, 10),
            _ => return None,
        })
    }

    /// Precedence climbing over binary operators of precedence above `min`.
    fn binary_expr(&mut self, min: u8) -> PResult<Expr> {
        let lhs = self.unary_expr()?;
        self.binary_rest(lhs, min)
    }

    fn binary_rest(&mut self, mut lhs: Expr, min: u8) -> PResult<Expr> {
        let tree = self.tree_depth;
        while let Some((op, prec)) = self.binary_op() {
            if prec <= min {
                break;
            }
            self.bump();
            self.grow_tree()?;
            let mut rhs = self.unary_expr()?;
            while let Some((_, p2)) = self.binary_op() {
                if p2 <= prec {
                    break;
                }
                rhs = self.binary_rest(rhs, prec)?;
            }
            let span = lhs.span.to(rhs.span);
            lhs = Expr {
                kind: ExprKind::Binary {
                    op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                span,
            };
        }
        self.tree_depth = tree;
        Ok(lhs)
    }

    fn unary_expr(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.unary_inner();
        self.leave();
        r
    }

    fn unary_inner(&mut self) -> PResult<Expr> {
        let start = self.peek().span;
        let t = self.peek();
        if t.kind == TokenKind::Punct {
            let op = match t.text {
                "-" => Some(UnaryOp::Neg),
                "+" => Some(UnaryOp::Plus),
                "!" => Some(UnaryOp::Not),
                "~" => Some(UnaryOp::BitNot),
                "++" => Some(UnaryOp::PreInc),
                "--" => Some(UnaryOp::PreDec),
                _ => None,
            };
            if let Some(op) = op {
                self.bump();
                let operand = self.unary_expr()?;
                return Ok(Expr {
                    kind: ExprKind::Unary {
                        op,
                        operand: Box::new(operand),
                    },
                    span: self.span_from(start),
                });
            }
            if t.text == "("
                && let Some((ty, array_dims)) = self.try_cast_prefix()
            {
                let operand = self.unary_expr()?;
                return Ok(Expr {
                    kind: ExprKind::Cast {
                        ty,
                        array_dims,
                        operand: Box::new(operand),
                    },
                    span: self.span_from(start),
                });
            }
        }
        let e = self.primary_expr()?;
        self.postfix_rest(e)
    }

    /// `(Type)` or `(Type[N])` at the current `(`, when it is a cast.
    fn try_cast_prefix(&mut self) -> Option<(TypeExpr, Vec<ArrayDim>)> {
        let n = self.peek_n(1);
        if !(n.is_ident() || n.is("::")) {
            return None;
        }
        // Quick filter: a cast needs a type name (or `const`/`unsigned`/`struct`...).
        let i = self.pos + 1;
        let first = self.tok_at(i).text;
        let typeish = matches!(
            first,
            "const" | "unsigned" | "signed" | "typename" | "row_major" | "column_major" | "struct"
        ) || self.looks_like_type_name(i);
        if !typeish {
            return None;
        }
        self.speculate(|p| {
            p.bump(); // (
            let start = p.peek().span;
            let mut modifiers = p.modifiers(true);
            let ty = p.type_expr()?;
            modifiers.extend(p.modifiers(false));
            let ty = p.wrap_type(start, modifiers, ty)?;
            let dims = Vec::new();
            if !p.eat(")") {
                return Err(Fail);
            }
            // `(T)` followed by something that cannot start an operand is not a cast.
            let t = p.peek();
            let operand_start = match t.kind {
                TokenKind::Ident | TokenKind::Number | TokenKind::String | TokenKind::Char => true,
                TokenKind::Punct => matches!(
                    t.text,
                    "(" | "-" | "+" | "!" | "~" | "++" | "--" | "{" | "::"
                ),
                TokenKind::Other => false,
            };
            if !operand_start {
                return Err(Fail);
            }
            Ok((ty, dims))
        })
    }

    fn postfix_rest(&mut self, mut e: Expr) -> PResult<Expr> {
        let tree = self.tree_depth;
        loop {
            let start = e.span;
            let t = self.peek();
            if t.kind != TokenKind::Punct {
                break;
            }
            match t.text {
                "." => {
                    self.bump();
                    let member = self.attr_name()?;
                    let template_args = if self.at("<") {
                        self.speculative_template_args()
                    } else {
                        None
                    };
                    e = Expr {
                        kind: ExprKind::Member {
                            base: Box::new(e),
                            member,
                            template_args,
                        },
                        span: self.span_from(start),
                    };
                }
                "->" => {
                    // Not HLSL; report but keep going as a member access.
                    self.error_here("`->` is not supported in HLSL; use `.`");
                    self.bump();
                    let member = self.attr_name()?;
                    e = Expr {
                        kind: ExprKind::Member {
                            base: Box::new(e),
                            member,
                            template_args: None,
                        },
                        span: self.span_from(start),
                    };
                }
                "[" => {
                    self.bump();
                    let saved = self.no_gt;
                    self.no_gt = false;
                    let index = self.expr();
                    self.no_gt = saved;
                    let index = index?;
                    self.expect("]")?;
                    e = Expr {
                        kind: ExprKind::Index {
                            base: Box::new(e),
                            index: Box::new(index),
                        },
                        span: self.span_from(start),
                    };
                }
                "(" => {
                    let args = self.call_args()?;
                    e = Expr {
                        kind: ExprKind::Call {
                            callee: Box::new(e),
                            args,
                        },
                        span: self.span_from(start),
                    };
                }
                "++" | "--" => {
                    let op = if t.text == "++" {
                        UnaryOp::PostInc
                    } else {
                        UnaryOp::PostDec
                    };
                    self.bump();
                    e = Expr {
                        kind: ExprKind::Unary {
                            op,
                            operand: Box::new(e),
                        },
                        span: self.span_from(start),
                    };
                }
                _ => break,
            }
            self.grow_tree()?;
        }
        self.tree_depth = tree;
        Ok(e)
    }

    fn call_args(&mut self) -> PResult<Vec<Expr>> {
        self.bump(); // (
        let saved = self.no_gt;
        self.no_gt = false;
        let mut args = Vec::new();
        let r = (|| -> PResult<()> {
            if self.eat(")") {
                return Ok(());
            }
            loop {
                args.push(self.assign_expr()?);
                if self.eat(",") {
                    continue;
                }
                return self.expect(")");
            }
        })();
        self.no_gt = saved;
        r?;
        Ok(args)
    }

    /// Template arguments after a name whose kind is unknown: accepted only when every
    /// argument is a type or literal and a `(` (or `::`) follows.
    fn speculative_template_args(&mut self) -> Option<Vec<TemplateArg>> {
        // Only types and literals are accepted below: a first argument that is neither ends
        // the guess at once (`a < b` with `b` a variable costs nothing).
        let first = self.peek_n(1);
        if self.in_template_guess
            || !(first.kind == TokenKind::Number || self.is_type_at(self.pos + 1))
        {
            return None;
        }
        self.in_template_guess = true;
        let r = self.speculate(|p| {
            let args = p.template_args()?;
            let all_simple = args.iter().all(|a| match a {
                TemplateArg::Type(_) => true,
                TemplateArg::Expr(e) => matches!(e.kind, ExprKind::Literal(_)),
            });
            if all_simple && (p.at("(") || p.at("::")) {
                Ok(args)
            } else {
                Err(Fail)
            }
        });
        self.in_template_guess = false;
        r
    }

    fn construct_rest(&mut self, ty: TypeExpr) -> PResult<Expr> {
        let start = ty.span;
        let args = self.call_args()?;
        Ok(Expr {
            kind: ExprKind::Construct { ty, args },
            span: self.span_from(start),
        })
    }

    fn primary_expr(&mut self) -> PResult<Expr> {
        let start = self.peek().span;
        let t = self.peek();
        match t.kind {
            TokenKind::Number => {
                let lit = parse_number(t.text);
                self.bump();
                if lit.is_none()
                    && let Some((l, swizzle)) = split_scalar_swizzle(t.text)
                {
                    // `1.0f.xxxx`, `0.xxx`: one pp-number in C, a swizzled literal in HLSL.
                    let swizzle_start = (start.end as usize).saturating_sub(swizzle.len()) as u32;
                    let lit_span = Span {
                        end: swizzle_start.saturating_sub(1).max(start.start),
                        ..start
                    };
                    return Ok(Expr {
                        kind: ExprKind::Member {
                            base: Box::new(Expr {
                                kind: ExprKind::Literal(l),
                                span: lit_span,
                            }),
                            member: Ident {
                                name: swizzle.to_string(),
                                span: Span {
                                    start: swizzle_start.min(start.end),
                                    ..start
                                },
                            },
                            template_args: None,
                        },
                        span: start,
                    });
                }
                match lit {
                    Some(l) => Ok(Expr {
                        kind: ExprKind::Literal(l),
                        span: start,
                    }),
                    None => {
                        self.prev_span = start;
                        let exp = self.toks.get(self.pos - 1).and_then(|t| t.expansion);
                        let msg = if int_literal_too_wide(t.text) {
                            format!(
                                "integer literal `{}` does not fit in 64 bits (the widest HLSL integer)",
                                t.text
                            )
                        } else {
                            format!("invalid number `{}`", t.text)
                        };
                        self.error_at(start, exp, "OSH0006", msg);
                        Ok(Expr {
                            kind: ExprKind::Error,
                            span: start,
                        })
                    }
                }
            }
            TokenKind::String => {
                let mut s = String::new();
                while self.peek().kind == TokenKind::String {
                    s.push_str(&unescape_literal(self.peek().text));
                    self.bump();
                }
                Ok(Expr {
                    kind: ExprKind::Literal(Literal::String(s)),
                    span: self.span_from(start),
                })
            }
            TokenKind::Char => {
                let v = unescape_literal(t.text)
                    .chars()
                    .next()
                    .map_or(0, |c| c as u32);
                self.bump();
                Ok(Expr {
                    kind: ExprKind::Literal(Literal::Char(v)),
                    span: start,
                })
            }
            TokenKind::Punct => match t.text {
                "(" => {
                    self.bump();
                    let saved = self.no_gt;
                    self.no_gt = false;
                    let e = self.expr();
                    self.no_gt = saved;
                    let mut e = e?;
                    self.expect(")")?;
                    e.span = self.span_from(start);
                    Ok(e)
                }
                "{" => self.init_list(),
                "::" => self.name_expr(),
                _ => {
                    let found = self.describe_current();
                    self.error_code("OSH0002", format!("expected an expression, found {found}"));
                    Err(Fail)
                }
            },
            TokenKind::Ident => match t.text {
                "true" | "false" => {
                    self.bump();
                    Ok(Expr {
                        kind: ExprKind::Literal(Literal::Bool(t.text == "true")),
                        span: start,
                    })
                }
                "this" => {
                    self.bump();
                    Ok(Expr {
                        kind: ExprKind::This,
                        span: start,
                    })
                }
                "sizeof" => {
                    self.bump();
                    let arg = if self.at("(") && self.is_type_at(self.pos + 1) {
                        self.bump();
                        let start = self.peek().span;
                        let ty = self.type_expr()?;
                        let ty = self.wrap_type(start, Vec::new(), ty)?;
                        self.expect(")")?;
                        TemplateArg::Type(ty)
                    } else {
                        TemplateArg::Expr(self.unary_expr()?)
                    };
                    Ok(Expr {
                        kind: ExprKind::SizeOf(Box::new(arg)),
                        span: self.span_from(start),
                    })
                }
                "sampler_state" | "stateblock_state" => self.sampler_state(),
                "compile" => {
                    // DX9 `compile vs_3_0 main()`: keep as a call of `compile`.
                    self.bump();
                    let profile = self.attr_name()?;
                    let call = self.unary_expr()?;
                    let span = self.span_from(start);
                    Ok(Expr {
                        kind: ExprKind::Call {
                            callee: Box::new(Expr {
                                kind: ExprKind::Name {
                                    path: Path {
                                        global: false,
                                        segments: vec![Ident {
                                            name: "compile".into(),
                                            span: start,
                                        }],
                                        span: start,
                                    },
                                    template_args: None,
                                    qualifier: None,
                                },
                                span: start,
                            }),
                            args: vec![
                                Expr {
                                    span: profile.span,
                                    kind: ExprKind::Name {
                                        path: Path {
                                            global: false,
                                            span: profile.span,
                                            segments: vec![profile],
                                        },
                                        template_args: None,
                                        qualifier: None,
                                    },
                                },
                                call,
                            ],
                        },
                        span,
                    })
                }
                _ if is_reserved(t.text) => {
                    let found = self.describe_current();
                    self.error_code("OSH0002", format!("expected an expression, found {found}"));
                    Err(Fail)
                }
                _ => self.name_expr(),
            },
            TokenKind::Other => {
                let found = self.describe_current();
                self.error_code("OSH0002", format!("expected an expression, found {found}"));
                Err(Fail)
            }
        }
    }

    fn is_type_at(&self, i: usize) -> bool {
        let t = self.tok_at(i);
        matches!(t.text, "unsigned" | "signed" | "typename" | "struct")
            || self.looks_like_type_name(i)
    }

    /// A name, a qualified name, a constructor `T(...)`, or a template function name.
    fn name_expr(&mut self) -> PResult<Expr> {
        let start = self.peek().span;
        // Built-in types spelled with keywords.
        if self.at("unsigned") || self.at("signed") {
            let ty = self.type_expr()?;
            if self.at("(") {
                return self.construct_rest(ty);
            }
            self.error_here("expected `(` after a type in an expression");
            return Err(Fail);
        }
        let path = self.path()?;
        let segs: Vec<&str> = path.segments.iter().map(|s| s.name.as_str()).collect();
        let is_type = self.scopes.is_type(&segs);
        let template_args = if self.at("<") {
            let known_template = self.scopes.is_template(&segs)
                || is_builtin_template_function(path.last().name.as_str());
            if is_type || known_template {
                Some(self.template_args()?)
            } else {
                self.speculative_template_args()
            }
        } else {
            None
        };
        // `T<args>::member`: the member of a template instance.
        let (path, template_args, is_type, qualifier) =
            if template_args.is_some() && self.at("::") && self.peek_n(1).is_ident() {
                let q = TypeExpr {
                    span: self.span_from(start),
                    kind: TypeKind::Named {
                        path,
                        args: template_args,
                    },
                };
                let mstart = self.peek_n(1).span;
                let mut segments = Vec::new();
                while self.at("::") && self.peek_n(1).is_ident() {
                    self.bump();
                    segments.push(self.ident()?);
                }
                let member = Path {
                    global: false,
                    segments,
                    span: self.span_from(mstart),
                };
                (member, None, false, Some(Box::new(q)))
            } else {
                (path, template_args, is_type, None)
            };
        if is_type && self.at("(") {
            let ty = TypeExpr {
                span: self.span_from(start),
                kind: TypeKind::Named {
                    path,
                    args: template_args,
                },
            };
            return self.construct_rest(ty);
        }
        Ok(Expr {
            kind: ExprKind::Name {
                path,
                template_args,
                qualifier,
            },
            span: self.span_from(start),
        })
    }

    fn sampler_state(&mut self) -> PResult<Expr> {
        self.bump();
        self.state_block()
    }

    /// `{ Name = value; ... }` of `sampler_state` and DX9 declarations.
    fn state_block(&mut self) -> PResult<Expr> {
        let start = self.peek().span;
        self.expect("{")?;
        let mut items = Vec::new();
        while !self.at("}") && !self.at_eof() {
            let s = self.peek().span;
            let name = self.attr_name()?;
            let index = if self.eat("[") {
                let e = self.expr()?;
                self.expect("]")?;
                Some(e)
            } else {
                None
            };
            self.expect("=")?;
            let value = if self.at("<") {
                // `Texture = <g_tex>;`
                self.bump();
                let saved = self.no_gt;
                self.no_gt = true;
                let v = self.ternary_expr();
                self.no_gt = saved;
                let v = v?;
                if !self.eat_gt() {
                    self.error_here("expected `>`");
                    return Err(Fail);
                }
                v
            } else {
                self.assign_expr()?
            };
            self.expect(";")?;
            items.push(StateAssignment {
                name,
                index,
                value,
                span: self.span_from(s),
            });
        }
        self.expect("}")?;
        Ok(Expr {
            kind: ExprKind::SamplerState(items),
            span: self.span_from(start),
        })
    }
}

/// Parses an HLSL numeric literal (`1`, `0x1Fu`, `1.5e-3f`, `.5h`, `2l`, `1.#INF`).
pub fn parse_number(text: &str) -> Option<Literal> {
    let lower = text.to_ascii_lowercase();
    if lower.contains(".#inf") {
        return Some(Literal::Float {
            value: f64::INFINITY,
            suffix: String::new(),
        });
    }
    let is_hex = lower.starts_with("0x");
    let is_float = !is_hex
        && (lower.contains('.')
            || lower.contains('e')
            || lower.ends_with('f')
            || lower.ends_with('h'));
    if is_float {
        let body_end = lower.trim_end_matches(['f', 'h', 'l']).len();
        let (body, suffix) = lower.split_at(body_end);
        let value: f64 = body.parse().ok()?;
        return Some(Literal::Float {
            value,
            suffix: suffix.to_string(),
        });
    }
    let body_end = lower.trim_end_matches(['u', 'l']).len();
    let (body, suffix) = lower.split_at(body_end);
    let value = if let Some(h) = body.strip_prefix("0x") {
        parse_digits(h, 16)?
    } else if let Some(b) = body.strip_prefix("0b") {
        parse_digits(b, 2)?
    } else if body.len() > 1 && body.starts_with('0') {
        parse_digits(&body[1..], 8)?
    } else {
        parse_digits(body, 10)?
    };
    Some(Literal::Int {
        value,
        suffix: suffix.to_string(),
    })
}

/// Splits `1.0f.xxxx` / `0.xxx` into a literal and a swizzle.
fn split_scalar_swizzle(text: &str) -> Option<(Literal, &str)> {
    let dot = text.rfind('.')?;
    let (num, sw) = (&text[..dot], &text[dot + 1..]);
    if sw.is_empty() || !sw.bytes().all(|b| b.is_ascii_alphabetic() || b == b'_') {
        return None;
    }
    Some((parse_number(num)?, sw))
}

/// The value of `digits` in `radix`; `None` for a bad digit or a value wider than 64 bits.
fn parse_digits(digits: &str, radix: u32) -> Option<u64> {
    if digits.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    for c in digits.chars() {
        let d = c.to_digit(radix)?;
        v = v.checked_mul(radix as u64)?.checked_add(d as u64)?;
    }
    Some(v)
}

/// True when `text` is an integer literal made of valid digits whose value needs more than
/// 64 bits (so [`parse_number`] refused it for its size).
pub fn int_literal_too_wide(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let body = lower.trim_end_matches(['u', 'l']);
    let (digits, radix) = if let Some(h) = body.strip_prefix("0x") {
        (h, 16)
    } else if let Some(b) = body.strip_prefix("0b") {
        (b, 2)
    } else if body.len() > 1 && body.starts_with('0') {
        (&body[1..], 8)
    } else {
        (body, 10)
    };
    !digits.is_empty()
        && digits.chars().all(|c| c.is_digit(radix))
        && parse_digits(digits, radix).is_none()
}

/// The contents of a string or character literal with escapes resolved.
fn unescape_literal(text: &str) -> String {
    // Strip the quotes without assuming the token is well formed: an unterminated literal may
    // end in a multi-byte character.
    let inner = text.strip_prefix(['"', '\'']).unwrap_or(text);
    let inner = inner.strip_suffix(['"', '\'']).unwrap_or(inner);
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some(c) => out.push(c),
            None => {}
        }
    }
    out
}
