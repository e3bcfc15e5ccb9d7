//! Preprocessing tokens and the record of macro expansions they came from.

use std::sync::Arc;

use oneshader_ir::diag::Span;

/// What kind of token a [`Token`] is. Keywords are [`TokenKind::Ident`]s: HLSL has many
/// contextual keywords (`sample`, `linear`, `point`, `vector`, ...) that are also valid names, so
/// the parser decides by spelling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenKind {
    /// An identifier or keyword.
    Ident,
    /// A preprocessing number: an integer or floating-point literal with its suffix.
    Number,
    /// A string literal, quotes included.
    String,
    /// A character literal, quotes included.
    Char,
    /// An operator or punctuator (`+=`, `::`, `(`, ...).
    Punct,
    /// Any other character (a stray `$`, `@`, a non-ASCII character...).
    Other,
}

/// Index of an [`ExpansionRecord`] in [`crate::hlsl::Preprocessed::expansions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExpansionId(pub u32);

/// Token flag: whitespace (or a comment) came before the token on its line.
pub const LEADING_SPACE: u8 = 1;
/// Token flag: the token is the first one on its source line.
pub const LINE_START: u8 = 2;

/// One token after preprocessing (or before, inside the preprocessor).
///
/// `span` is where the token is spelled: in the user's file, in a macro definition, or (for
/// pasted and stringized tokens) the operands it was made from. `expansion` names the macro
/// expansion whose replacement list produced it (`None` for tokens spelled in a file outside any
/// macro body, including tokens that were passed as macro arguments); the record chain leads to
/// the call site in the user's text.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// Kind of token.
    pub kind: TokenKind,
    /// Spelling, exactly as in the source (pasted/stringized tokens: the new spelling).
    pub text: Arc<str>,
    /// Where the token is spelled.
    pub span: Span,
    /// The macro expansion that produced the token, if any.
    pub expansion: Option<ExpansionId>,
    /// [`LEADING_SPACE`] and [`LINE_START`] bits.
    pub flags: u8,
    /// Macros that must not expand this token again (index into the preprocessor's hide sets).
    pub(crate) hideset: u32,
}

impl Token {
    /// True when the token is the punctuator or identifier spelled `s`.
    #[inline]
    pub fn is(&self, s: &str) -> bool {
        matches!(self.kind, TokenKind::Punct | TokenKind::Ident) && &*self.text == s
    }

    /// True when the token is a punctuator spelled `s`.
    #[inline]
    pub fn is_punct(&self, s: &str) -> bool {
        self.kind == TokenKind::Punct && &*self.text == s
    }

    /// True for an identifier (or keyword).
    #[inline]
    pub fn is_ident(&self) -> bool {
        self.kind == TokenKind::Ident
    }

    /// True when whitespace came before the token.
    pub fn has_leading_space(&self) -> bool {
        self.flags & LEADING_SPACE != 0
    }

    /// True when the token starts a source line.
    pub fn at_line_start(&self) -> bool {
        self.flags & LINE_START != 0
    }
}

/// One macro expansion: which macro, where it was invoked, and the expansion the invocation
/// itself came from (for a macro used inside another macro's replacement list).
#[derive(Clone, Debug, PartialEq)]
pub struct ExpansionRecord {
    /// Name of the expanded macro.
    pub macro_name: Arc<str>,
    /// Where the macro is defined (its name in the `#define` line; for `-D` macros, a span in the
    /// `<command line>` file).
    pub definition: Span,
    /// Where the invocation is spelled: the macro name, through the closing parenthesis of a
    /// function-like call when both are spelled in the same place.
    pub call_site: Span,
    /// The expansion that produced the invocation's name token, if any.
    pub parent: Option<ExpansionId>,
    /// The invocation's place in the user's text: `call_site` of the outermost expansion of the
    /// chain. Diagnostics on tokens of this expansion point here.
    pub user_span: Span,
}

/// Every macro expansion of one preprocessing run, indexed by [`ExpansionId`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExpansionTable {
    /// The records; `ExpansionId(i)` is `records[i]`.
    pub records: Vec<ExpansionRecord>,
}

impl ExpansionTable {
    /// The record of `id` (`None` for an id from another table).
    pub fn get(&self, id: ExpansionId) -> Option<&ExpansionRecord> {
        self.records.get(id.0 as usize)
    }

    /// Where a token is in the user's text: its own span, or the call site of the outermost
    /// macro invocation that produced it.
    pub fn user_span(&self, tok: &Token) -> Span {
        match tok.expansion.and_then(|e| self.get(e)) {
            Some(r) => r.user_span,
            None => tok.span,
        }
    }

    /// Notes naming the chain of macros a token came from, innermost first:
    /// "in expansion of macro `X`". Bounded by the table size, so a corrupt chain cannot loop.
    pub fn notes(&self, mut exp: Option<ExpansionId>) -> Vec<String> {
        let mut notes = Vec::new();
        while let Some(r) = exp.and_then(|e| self.get(e)) {
            if notes.len() > self.records.len() || notes.len() >= 16 {
                break;
            }
            notes.push(format!("in expansion of macro `{}`", r.macro_name));
            exp = r.parent;
        }
        notes
    }

    /// The innermost expansion whose user-visible call site contains `span`, if any: lets a later
    /// phase that only kept an AST [`Span`] add "in expansion of macro" notes.
    pub fn expansion_at(&self, span: Span) -> Option<ExpansionId> {
        let mut best: Option<(u32, ExpansionId)> = None;
        for (i, r) in self.records.iter().enumerate() {
            let u = r.user_span;
            if u.file == span.file && u.start <= span.start && span.end <= u.end {
                let width = u.end - u.start;
                // Later records of the same call site are inner expansions; prefer them.
                if best.is_none_or(|(w, _)| width <= w) {
                    best = Some((width, ExpansionId(i as u32)));
                }
            }
        }
        best.map(|(_, id)| id)
    }
}
