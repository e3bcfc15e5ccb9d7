//! The project's one diagnostic type and its renderer.
//!
//! Every stage of OneShader (IR verifier, IR text parser, HLSL preprocessor and parser, semantic
//! analysis, `.osir` loader, linker, backends) reports problems as [`Diagnostic`]s: a severity, a
//! stable code (`OSV0001`, `OSP0003`, ...), a message, an optional primary [`Span`] into a file of a
//! [`SourceMap`], optional secondary labels and free-form notes.
//!
//! [`SourceMap::render`] prints them in the one format of the project:
//!
//! ```text
//! shader.hlsl:2:10: error[OSH1001]: undefined name `foo`
//!   return foo;
//!          ^^^
//!   = note: ...
//! ```
//!
//! Line and column computation and the header line come from `codespan-reporting`.
//!
//! Code prefixes in use (each owner keeps its own numbering, documented beside the code):
//! `OSV` IR verifier, `OST` IR text parser, `OSP` HLSL preprocessor, `OSH` HLSL parser and
//! semantic analysis, `OSL` `.osir` loader, `OSK` linker, `OSO` optimizer, `OSG` legalization
//! for a target (the backends' boundary), `OSB` backends, `OSC` command line.

use std::fmt;
use std::ops::Range;

use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::{Files, SimpleFile};
use codespan_reporting::term;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Severity {
    /// Informational; never fails a run.
    Note,
    /// Something suspicious; the output is still produced.
    Warning,
    /// The input is wrong; the command fails with exit code 1.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// Identifies one file registered in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct FileId(pub u32);

/// A byte range in one file of a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// The file the range is in.
    pub file: FileId,
    /// First byte of the range.
    pub start: u32,
    /// One past the last byte (equal to `start` for an empty range, e.g. at end of file).
    pub end: u32,
}

impl Span {
    /// A span covering `range` in `file`.
    pub fn new(file: FileId, range: Range<usize>) -> Span {
        Span {
            file,
            start: range.start as u32,
            end: range.end as u32,
        }
    }

    /// The byte range as a `Range<usize>`.
    pub fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }

    /// The smallest span covering both (they must be in the same file; otherwise `self`).
    pub fn to(self, other: Span) -> Span {
        if self.file != other.file {
            return self;
        }
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// One problem report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// How bad it is.
    pub severity: Severity,
    /// Stable code, e.g. `OSV0001`; documented beside the check that emits it.
    pub code: &'static str,
    /// One-line message, lower case, no trailing period.
    pub message: String,
    /// Where the problem is, when it has a place in a source file.
    pub span: Option<Span>,
    /// Secondary places with a short message each ("previous definition here").
    pub labels: Vec<(Span, String)>,
    /// Extra lines printed after the snippet as `= note: ...`.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// A new error.
    pub fn error(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, code, message)
    }

    /// A new warning.
    pub fn warning(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Warning, code, message)
    }

    /// A new diagnostic of the given severity.
    pub fn new(severity: Severity, code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity,
            code,
            message: message.into(),
            span: None,
            labels: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Sets the primary span.
    pub fn with_span(mut self, span: Span) -> Diagnostic {
        self.span = Some(span);
        self
    }

    /// Sets the primary span when there is one.
    pub fn with_opt_span(mut self, span: Option<Span>) -> Diagnostic {
        self.span = span;
        self
    }

    /// Adds a secondary label.
    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push((span, message.into()));
        self
    }

    /// Adds a note line.
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// True for [`Severity::Error`].
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    /// Renders without a source map: `error[CODE]: message` plus notes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]: {}", self.severity, self.code, self.message)?;
        for note in &self.notes {
            write!(f, "\n  = note: {note}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostic {}

/// The diagnostics of an operation that failed (parsing IR text, verifying, linking, emitting):
/// at least one error, and the warnings reported with it, in order.
///
/// It is a [`std::error::Error`], so `?` carries it into `Box<dyn Error>` or `anyhow` without
/// losing what went wrong: `Display` is the first error and how many more there are, `{:#}`
/// prints every diagnostic (one per line), and `Debug` is that list, without source text. It
/// dereferences to the slice of diagnostics and converts to and from `Vec<Diagnostic>`.
///
/// ```
/// use oneshader_ir::parse::parse;
///
/// fn load(text: &str) -> Result<oneshader_ir::Module, Box<dyn std::error::Error>> {
///     Ok(parse(text)?)
/// }
/// let err = load("func @f() -> void {\nbb0:\n  %0 = frobnicate\n}\n").unwrap_err();
/// assert!(err.to_string().starts_with("error[OST"), "{err}");
/// ```
#[derive(Clone, PartialEq)]
pub struct Errors(Vec<Diagnostic>);

impl Errors {
    /// Wraps diagnostics that include at least one error.
    pub fn new(diags: Vec<Diagnostic>) -> Errors {
        Errors(diags)
    }

    /// The diagnostics, in the order they were reported.
    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.0
    }

    /// The first diagnostic that is an error (the first one of all if none is).
    pub fn first_error(&self) -> Option<&Diagnostic> {
        self.0.iter().find(|d| d.is_error()).or(self.0.first())
    }

    /// Adds a diagnostic after the others (e.g. one saying which step of a driver failed).
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }

    /// How many of the diagnostics are errors.
    pub fn error_count(&self) -> usize {
        self.0.iter().filter(|d| d.is_error()).count()
    }
}

impl std::ops::Deref for Errors {
    type Target = [Diagnostic];
    fn deref(&self) -> &[Diagnostic] {
        &self.0
    }
}

impl From<Vec<Diagnostic>> for Errors {
    fn from(diags: Vec<Diagnostic>) -> Errors {
        Errors(diags)
    }
}

impl From<Diagnostic> for Errors {
    fn from(d: Diagnostic) -> Errors {
        Errors(vec![d])
    }
}

impl From<Errors> for Vec<Diagnostic> {
    fn from(e: Errors) -> Vec<Diagnostic> {
        e.0
    }
}

impl IntoIterator for Errors {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Errors {
    type Item = &'a Diagnostic;
    type IntoIter = std::slice::Iter<'a, Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl fmt::Display for Errors {
    /// The first error and a count of the rest; with `{:#}`, every diagnostic on its own line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            for (i, d) in self.0.iter().enumerate() {
                if i > 0 {
                    writeln!(f)?;
                }
                write!(f, "{d}")?;
            }
            return Ok(());
        }
        let Some(first) = self.first_error() else {
            return write!(f, "failed without a diagnostic");
        };
        write!(f, "{first}")?;
        match self.error_count() {
            0 | 1 => Ok(()),
            2 => write!(f, " (and 1 more error)"),
            n => write!(f, " (and {} more errors)", n - 1),
        }
    }
}

impl fmt::Debug for Errors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|d| format!("{d}")))
            .finish()
    }
}

impl std::error::Error for Errors {}

/// True when any diagnostic in `diags` is an error.
pub fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(Diagnostic::is_error)
}

/// The source files diagnostics point into; renders diagnostics. Its `Debug` lists the files'
/// names and sizes, not their text.
#[derive(Default, Clone)]
pub struct SourceMap {
    files: Vec<SimpleFile<String, String>>,
}

impl fmt::Debug for SourceMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(
                self.files
                    .iter()
                    .map(|file| (file.name(), format!("{} bytes", file.source().len()))),
            )
            .finish()
    }
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Registers a file and returns its id. The same name may be added twice (e.g. a file
    /// included twice); each gets its own id.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        self.files.push(SimpleFile::new(name.into(), text.into()));
        FileId((self.files.len() - 1) as u32)
    }

    /// The name the file was registered under.
    pub fn name(&self, file: FileId) -> &str {
        self.files
            .get(file.0 as usize)
            .map(|f| f.name().as_str())
            .unwrap_or("<unknown>")
    }

    /// The text of the file.
    pub fn text(&self, file: FileId) -> &str {
        self.files
            .get(file.0 as usize)
            .map(|f| f.source().as_str())
            .unwrap_or("")
    }

    /// The first file registered under `name`, or else the only one whose name ends with
    /// `/name` (a tool that knows a file as `lighting.hlsli` finds `shaders/lighting.hlsli`);
    /// `None` when none or several match.
    pub fn file_by_name(&self, name: &str) -> Option<FileId> {
        if let Some(k) = self.files.iter().position(|f| f.name() == name) {
            return Some(FileId(k as u32));
        }
        let suffix = format!("/{name}");
        let mut found = self.files.iter().enumerate().filter(|(_, f)| {
            f.name().ends_with(&suffix) || f.name().ends_with(&format!("\\{name}"))
        });
        match (found.next(), found.next()) {
            (Some((k, _)), None) => Some(FileId(k as u32)),
            _ => None,
        }
    }

    /// The byte offset of 1-based `line` and `column` (in characters, as [`SourceMap::line_col`]
    /// counts them) in `file`: the inverse of `line_col`. A column may point just past the
    /// line's last character (its end); `None` for a file, line or column that is not there.
    pub fn offset_of(&self, file: FileId, line: usize, column: usize) -> Option<u32> {
        let text = self.files.get(file.0 as usize)?.source();
        if line == 0 || column == 0 {
            return None;
        }
        let mut start = 0usize;
        for _ in 1..line {
            start += text[start..].find('\n')? + 1;
        }
        let end = text[start..].find('\n').map_or(text.len(), |k| start + k);
        let line_text = &text[start..end];
        let offset = match line_text.char_indices().nth(column - 1) {
            Some((k, _)) => start + k,
            None if column - 1 == line_text.chars().count() => end,
            None => return None,
        };
        u32::try_from(offset).ok()
    }

    /// Number of registered files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// True when no file is registered.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// 1-based line and column (in characters) of a byte offset, clamped into the file.
    pub fn line_col(&self, file: FileId, offset: u32) -> (usize, usize) {
        let Some(f) = self.files.get(file.0 as usize) else {
            return (1, 1);
        };
        let offset = clamp_to_char_boundary(f.source(), offset as usize);
        match f.location((), offset) {
            Ok(loc) => (loc.line_number, loc.column_number),
            Err(_) => (1, 1),
        }
    }

    /// Renders one diagnostic in the project's format, ending with a newline.
    pub fn render(&self, diag: &Diagnostic) -> String {
        let mut out = String::new();
        self.render_into(diag, &mut out);
        out
    }

    /// Renders every diagnostic, in order.
    pub fn render_all(&self, diags: &[Diagnostic]) -> String {
        let mut out = String::new();
        for d in diags {
            self.render_into(d, &mut out);
        }
        out
    }

    fn render_into(&self, diag: &Diagnostic, out: &mut String) {
        let span = diag.span.filter(|s| (s.file.0 as usize) < self.files.len());
        out.push_str(&self.header(diag, span));
        if let Some(span) = span {
            self.snippet(span, out);
        }
        for (label_span, msg) in &diag.labels {
            if (label_span.file.0 as usize) < self.files.len() {
                let (line, col) = self.line_col(label_span.file, label_span.start);
                out.push_str(&format!(
                    "{}:{}:{}: note: {}\n",
                    self.name(label_span.file),
                    line,
                    col,
                    msg
                ));
                self.snippet(*label_span, out);
            } else {
                out.push_str(&format!("note: {msg}\n"));
            }
        }
        for note in &diag.notes {
            out.push_str("  = note: ");
            out.push_str(note);
            out.push('\n');
        }
    }

    /// `file:line:col: severity[CODE]: message` (via codespan-reporting's short style).
    fn header(&self, diag: &Diagnostic, span: Option<Span>) -> String {
        let severity = match diag.severity {
            Severity::Error => cs::Severity::Error,
            Severity::Warning => cs::Severity::Warning,
            Severity::Note => cs::Severity::Note,
        };
        let mut d = cs::Diagnostic::new(severity)
            .with_code(diag.code)
            .with_message(diag.message.clone());
        let file = span.map(|s| s.file.0 as usize).unwrap_or(0);
        if let Some(s) = span {
            let text = self.files[file].source();
            let start = clamp_to_char_boundary(text, s.start as usize);
            let end = clamp_to_char_boundary(text, (s.end as usize).max(start));
            d = d.with_labels(vec![cs::Label::primary(file, start..end)]);
        }
        let config = term::Config {
            display_style: term::DisplayStyle::Short,
            ..term::Config::default()
        };
        let mut buf = Vec::new();
        let emitted = term::emit_to_io_write(&mut buf, &config, self, &d);
        match (emitted, String::from_utf8(buf)) {
            (Ok(()), Ok(s)) if !s.is_empty() => {
                let mut s = s.trim_end().to_string();
                s.push('\n');
                s
            }
            _ => format!("{}[{}]: {}\n", diag.severity, diag.code, diag.message),
        }
    }

    /// The source line of `span.start` and a caret line under the span.
    fn snippet(&self, span: Span, out: &mut String) {
        let text = self.text(span.file);
        let start = clamp_to_char_boundary(text, span.start as usize);
        let line_start = text[..start].rfind('\n').map(|i| i + 1).unwrap_or(0);
        let line_end = text[start..]
            .find('\n')
            .map(|i| start + i)
            .unwrap_or(text.len());
        let line = text[line_start..line_end].trim_end_matches('\r');
        out.push_str("  ");
        out.push_str(line);
        out.push('\n');
        out.push_str("  ");
        for c in text[line_start..start].chars() {
            out.push(if c == '\t' { '\t' } else { ' ' });
        }
        let end = clamp_to_char_boundary(text, (span.end as usize).clamp(start, line_end));
        let width = text[start..end].chars().count().max(1);
        for _ in 0..width {
            out.push('^');
        }
        out.push('\n');
    }
}

impl<'a> Files<'a> for SourceMap {
    type FileId = usize;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: usize) -> Result<&'a str, codespan_reporting::files::Error> {
        self.files
            .get(id)
            .map(|f| f.name().as_str())
            .ok_or(codespan_reporting::files::Error::FileMissing)
    }

    fn source(&'a self, id: usize) -> Result<&'a str, codespan_reporting::files::Error> {
        self.files
            .get(id)
            .map(|f| f.source().as_str())
            .ok_or(codespan_reporting::files::Error::FileMissing)
    }

    fn line_index(
        &'a self,
        id: usize,
        byte: usize,
    ) -> Result<usize, codespan_reporting::files::Error> {
        self.files
            .get(id)
            .ok_or(codespan_reporting::files::Error::FileMissing)?
            .line_index((), byte)
    }

    fn line_range(
        &'a self,
        id: usize,
        line: usize,
    ) -> Result<Range<usize>, codespan_reporting::files::Error> {
        self.files
            .get(id)
            .ok_or(codespan_reporting::files::Error::FileMissing)?
            .line_range((), line)
    }
}

fn clamp_to_char_boundary(text: &str, offset: usize) -> usize {
    let mut o = offset.min(text.len());
    while o > 0 && !text.is_char_boundary(o) {
        o -= 1;
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_found_by_name_and_offsets_invert_line_col() {
        let mut sm = SourceMap::new();
        let a = sm.add("shaders/main.hlsl", "float a;\nçb = 1;\n");
        let b = sm.add("shaders/inc/lighting.hlsli", "x\n");
        assert_eq!(sm.file_by_name("shaders/main.hlsl"), Some(a));
        assert_eq!(sm.file_by_name("lighting.hlsli"), Some(b));
        assert_eq!(sm.file_by_name("inc/lighting.hlsli"), Some(b));
        assert_eq!(sm.file_by_name("ain.hlsl"), None, "a whole path component");
        assert_eq!(sm.file_by_name("other.hlsl"), None);
        for offset in [0u32, 6, 9, 11, 12, 17] {
            let (line, col) = sm.line_col(a, offset);
            assert_eq!(sm.offset_of(a, line, col), Some(offset), "{offset}");
        }
        assert_eq!(sm.offset_of(a, 2, 2), Some(11), "after the two-byte `ç`");
        assert_eq!(sm.offset_of(a, 1, 10), None, "past the line's end");
        assert_eq!(sm.offset_of(a, 9, 1), None, "no such line");
        assert_eq!(sm.offset_of(FileId(7), 1, 1), None, "no such file");
    }

    #[test]
    fn renders_file_line_col_source_and_caret() {
        let mut sm = SourceMap::new();
        let f = sm.add("a.hlsl", "float4 main() {\n  return foo;\n}\n");
        let d = Diagnostic::error("OSH1001", "undefined name `foo`")
            .with_span(Span::new(f, 25..28))
            .with_note("names are case sensitive");
        let s = sm.render(&d);
        assert_eq!(
            s,
            concat!(
                "a.hlsl:2:10: error[OSH1001]: undefined name `foo`\n",
                "    return foo;\n",
                "           ^^^\n",
                "  = note: names are case sensitive\n"
            )
        );
    }

    #[test]
    fn renders_without_span_and_out_of_range_spans() {
        let mut sm = SourceMap::new();
        let f = sm.add("x.ir", "abc");
        let d = Diagnostic::warning("OSV0001", "no span");
        assert_eq!(sm.render(&d), "warning[OSV0001]: no span\n");
        // A span past the end of the file is clamped, never a panic.
        let d = Diagnostic::error("OST0001", "eof").with_span(Span::new(f, 10..20));
        let s = sm.render(&d);
        assert!(s.starts_with("x.ir:1:4: error[OST0001]: eof\n"), "{s}");
        // A span in a file the map does not know is rendered without location.
        let d = Diagnostic::error("OST0001", "lost").with_span(Span::new(FileId(9), 0..1));
        assert_eq!(sm.render(&d), "error[OST0001]: lost\n");
    }

    #[test]
    fn caret_keeps_tabs_and_multibyte_chars() {
        let mut sm = SourceMap::new();
        let f = sm.add("t.hlsl", "\tä = 1;\n");
        // `=` is at byte 4 (tab 1 byte, ä 2 bytes, space 1 byte).
        let d = Diagnostic::error("OSH0001", "bad").with_span(Span::new(f, 4..5));
        let s = sm.render(&d);
        assert_eq!(s, "t.hlsl:1:4: error[OSH0001]: bad\n  \tä = 1;\n  \t  ^\n");
    }

    #[test]
    fn line_col_is_one_based() {
        let mut sm = SourceMap::new();
        let f = sm.add("f", "ab\ncd");
        assert_eq!(sm.line_col(f, 0), (1, 1));
        assert_eq!(sm.line_col(f, 4), (2, 2));
        assert_eq!(sm.line_col(f, 99), (2, 3));
    }
}
