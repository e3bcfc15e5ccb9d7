//! Splits one file's text into preprocessing tokens (C rules: comments are whitespace,
//! backslash-newline joins lines, numbers are pp-numbers).

use oneshader_ir::diag::{Diagnostic, FileId, Span};

use crate::hlsl::syntax::token::{LEADING_SPACE, LINE_START, TokenKind};

/// A token as the lexer sees it: byte offsets into the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RawToken {
    pub kind: TokenKind,
    pub start: usize,
    pub end: usize,
    pub flags: u8,
}

/// Three-, two- and one-character punctuators, longest first.
const PUNCT3: &[&str] = &["<<=", ">>=", "...", "->*"];
const PUNCT2: &[&str] = &[
    "::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=", "*=", "/=",
    "%=", "&=", "|=", "^=", "##", ".*",
];
const PUNCT1: &[u8] = b"()[]{};,.:?~!+-*/%<>=&|^#";

/// The lexer over one file.
pub(crate) struct Lexer {
    pub file: FileId,
    pos: usize,
    at_line_start: bool,
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_continue(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl Lexer {
    pub fn new(file: FileId) -> Lexer {
        Lexer {
            file,
            pos: 0,
            at_line_start: true,
        }
    }

    /// Byte offset of the next character to read.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Skips whitespace and comments; returns the flags for the next token. Newlines set
    /// `at_line_start`.
    fn skip_space(&mut self, src: &[u8], diags: Option<&mut Vec<Diagnostic>>) -> u8 {
        let mut flags = 0;
        let mut diags = diags;
        while self.pos < src.len() {
            let b = src[self.pos];
            match b {
                b'\n' => {
                    self.pos += 1;
                    self.at_line_start = true;
                    flags = 0;
                }
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
                    self.pos += 1;
                    flags |= LEADING_SPACE;
                }
                b'\\' if self.splice_len(src, self.pos) > 0 => {
                    self.pos += self.splice_len(src, self.pos);
                    flags |= LEADING_SPACE;
                }
                b'/' if src.get(self.pos + 1) == Some(&b'/') => {
                    // Line comment; a backslash-newline continues it.
                    while self.pos < src.len() && src[self.pos] != b'\n' {
                        let s = self.splice_len(src, self.pos);
                        self.pos += if s > 0 { s } else { 1 };
                    }
                    flags |= LEADING_SPACE;
                }
                b'/' if src.get(self.pos + 1) == Some(&b'*') => {
                    let start = self.pos;
                    self.pos += 2;
                    let mut closed = false;
                    while self.pos < src.len() {
                        if src[self.pos] == b'*' && src.get(self.pos + 1) == Some(&b'/') {
                            self.pos += 2;
                            closed = true;
                            break;
                        }
                        self.pos += 1;
                    }
                    if !closed && let Some(d) = diags.as_deref_mut() {
                        d.push(
                            Diagnostic::error("OSP0002", "unterminated `/*` comment")
                                .with_span(Span::new(self.file, start..start + 2)),
                        );
                    }
                    flags |= LEADING_SPACE;
                }
                _ => break,
            }
        }
        flags
    }

    /// Length of a backslash-newline at `at` (0 when there is none).
    fn splice_len(&self, src: &[u8], at: usize) -> usize {
        if src.get(at) != Some(&b'\\') {
            return 0;
        }
        let mut i = at + 1;
        // Trailing spaces between the backslash and the newline are tolerated (as in gcc).
        while i < src.len() && (src[i] == b' ' || src[i] == b'\t') {
            i += 1;
        }
        match src.get(i) {
            Some(b'\n') => i + 1 - at,
            Some(b'\r') if src.get(i + 1) == Some(&b'\n') => i + 2 - at,
            _ => 0,
        }
    }

    /// The next token, or `None` at the end of the file. `diags` is `None` in skipped
    /// conditional blocks, where malformed text is not an error.
    pub fn next(&mut self, src: &[u8], diags: Option<&mut Vec<Diagnostic>>) -> Option<RawToken> {
        let mut diags = diags;
        let mut flags = self.skip_space(src, diags.as_deref_mut());
        if self.pos >= src.len() {
            return None;
        }
        if self.at_line_start {
            flags |= LINE_START;
            self.at_line_start = false;
        }
        let start = self.pos;
        let b = src[start];
        let kind = if is_ident_start(b) {
            self.pos += 1;
            while self.pos < src.len() && is_ident_continue(src[self.pos]) {
                self.pos += 1;
            }
            TokenKind::Ident
        } else if b.is_ascii_digit()
            || (b == b'.' && src.get(start + 1).is_some_and(|c| c.is_ascii_digit()))
        {
            self.pos += 1;
            while self.pos < src.len() {
                let c = src[self.pos];
                let exponent_sign = (c == b'+' || c == b'-')
                    && matches!(src[self.pos - 1], b'e' | b'E' | b'p' | b'P')
                    && !is_hex_prefixed(&src[start..self.pos]);
                if exponent_sign || is_ident_continue(c) || c == b'.' {
                    self.pos += 1;
                } else if c == b'#'
                    && src[self.pos - 1] == b'.'
                    && src[self.pos + 1..].starts_with(b"INF")
                {
                    // DX9-era `1.#INF` spelling of infinity.
                    self.pos += 4;
                } else {
                    break;
                }
            }
            TokenKind::Number
        } else if b == b'"' || b == b'\'' {
            self.pos += 1;
            let mut closed = false;
            while self.pos < src.len() {
                let c = src[self.pos];
                if c == b'\\' && self.pos + 1 < src.len() && src[self.pos + 1] != b'\n' {
                    self.pos += 2;
                    continue;
                }
                if c == b'\n' {
                    break;
                }
                self.pos += 1;
                if c == b {
                    closed = true;
                    break;
                }
            }
            if !closed && let Some(d) = diags {
                let what = if b == b'"' { "string" } else { "character" };
                d.push(
                    Diagnostic::error("OSP0001", format!("unterminated {what} literal"))
                        .with_span(Span::new(self.file, start..self.pos)),
                );
            }
            if b == b'"' {
                TokenKind::String
            } else {
                TokenKind::Char
            }
        } else if b.is_ascii() {
            let rest = &src[start..];
            if let Some(p) = PUNCT3.iter().find(|p| rest.starts_with(p.as_bytes())) {
                self.pos += p.len();
                TokenKind::Punct
            } else if let Some(p) = PUNCT2.iter().find(|p| rest.starts_with(p.as_bytes())) {
                self.pos += p.len();
                TokenKind::Punct
            } else if PUNCT1.contains(&b) {
                self.pos += 1;
                TokenKind::Punct
            } else {
                self.pos += 1;
                TokenKind::Other
            }
        } else {
            // One whole UTF-8 character (the text comes from a `&str`, so it is well formed;
            // continuation bytes are skipped defensively all the same).
            self.pos += 1;
            while self.pos < src.len() && (src[self.pos] & 0xC0) == 0x80 {
                self.pos += 1;
            }
            TokenKind::Other
        };
        Some(RawToken {
            kind,
            start,
            end: self.pos,
            flags,
        })
    }

    /// True when the last token returned ended the line (the next one starts a new line).
    pub fn peek_line_start(&mut self, src: &[u8]) -> bool {
        let save = self.pos;
        let save_ls = self.at_line_start;
        let _ = self.skip_space(src, None);
        let r = self.at_line_start || self.pos >= src.len();
        self.pos = save;
        self.at_line_start = save_ls;
        r
    }

    /// Reads the raw text up to the end of the current line (for `#error`), without consuming
    /// the newline. Returns the byte range.
    pub fn rest_of_line(&mut self, src: &[u8]) -> (usize, usize) {
        let start = self.pos;
        while self.pos < src.len() && src[self.pos] != b'\n' {
            let s = self.splice_len(src, self.pos);
            self.pos += if s > 0 { s } else { 1 };
        }
        (start, self.pos)
    }

    /// Reads a `<...>` header name starting at the current position (after whitespace).
    pub fn header_name(&mut self, src: &[u8]) -> Option<(usize, usize)> {
        let save = self.pos;
        let save_ls = self.at_line_start;
        let _ = self.skip_space(src, None);
        if self.at_line_start || src.get(self.pos) != Some(&b'<') {
            self.pos = save;
            self.at_line_start = save_ls;
            return None;
        }
        let start = self.pos;
        let mut i = self.pos + 1;
        while i < src.len() && src[i] != b'>' && src[i] != b'\n' {
            i += 1;
        }
        if src.get(i) != Some(&b'>') {
            self.pos = save;
            self.at_line_start = save_ls;
            return None;
        }
        self.pos = i + 1;
        Some((start, self.pos))
    }
}

fn is_hex_prefixed(s: &[u8]) -> bool {
    s.len() >= 2 && s[0] == b'0' && (s[1] == b'x' || s[1] == b'X')
}

/// Lexes a whole string into tokens (no directives, no diagnostics): used to re-lex pasted tokens
/// and `-D` values. Returns `(kind, start, end, flags)`.
pub(crate) fn lex_all(text: &str) -> Vec<RawToken> {
    let mut lx = Lexer::new(FileId(0));
    let mut out = Vec::new();
    while let Some(t) = lx.next(text.as_bytes(), None) {
        out.push(t);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<(TokenKind, String)> {
        lex_all(s)
            .into_iter()
            .map(|t| (t.kind, s[t.start..t.end].to_string()))
            .collect()
    }

    #[test]
    fn numbers_puncts_and_comments() {
        let k = kinds("a+=1.5e-3f/*c*/>>=x//y\n.5h 0x1Fu 1.#INF");
        let texts: Vec<_> = k.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(
            texts,
            ["a", "+=", "1.5e-3f", ">>=", "x", ".5h", "0x1Fu", "1.#INF"]
        );
        assert_eq!(k[2].0, TokenKind::Number);
    }

    #[test]
    fn hex_exponent_sign_is_not_part_of_number() {
        let texts: Vec<_> = kinds("0x1e+1").into_iter().map(|(_, t)| t).collect();
        assert_eq!(texts, ["0x1e", "+", "1"]);
    }

    #[test]
    fn line_start_and_splices() {
        let src = "a \\\n b\n  c";
        let toks = lex_all(src);
        assert_eq!(toks.len(), 3);
        assert!(toks[0].flags & LINE_START != 0);
        assert!(
            toks[1].flags & LINE_START == 0,
            "a splice does not start a line"
        );
        assert!(toks[2].flags & LINE_START != 0);
        assert!(toks[2].flags & LEADING_SPACE != 0);
    }

    #[test]
    fn unterminated_literals_report() {
        let mut lx = Lexer::new(FileId(0));
        let mut d = Vec::new();
        let src = b"\"abc\nx";
        let t = lx.next(src, Some(&mut d)).unwrap();
        assert_eq!(t.kind, TokenKind::String);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].code, "OSP0001");
    }
}
