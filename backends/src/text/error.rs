//! The one error type of the text backends (GLSL, WGSL, MSL): a diagnostic, boxed to keep
//! `Result`s small. Each backend's `error` module holds its table of codes as data and names
//! this type after itself ([`crate::glsl::GlslError`], [`crate::wgsl::WgslError`],
//! [`crate::msl::MslError`] are this type).

use oneshader_ir::{Diagnostic, InstId, Module};

/// An error of a text backend: one diagnostic (boxed to keep `Result`s small).
#[derive(Clone, Debug)]
pub struct TextError(pub Box<Diagnostic>);

impl TextError {
    /// An error with `code` and `message`.
    pub fn new(code: &'static str, message: impl Into<String>) -> TextError {
        TextError(Box::new(Diagnostic::error(code, message)))
    }

    /// Places the error at the source position of instruction `i` (if it has one).
    pub fn at(mut self, m: &Module, i: Option<InstId>) -> TextError {
        if let Some(i) = i {
            *self.0 = (*self.0).clone().at_inst(m, i);
        }
        self
    }

    /// Adds a note.
    pub fn note(mut self, note: impl Into<String>) -> TextError {
        *self.0 = (*self.0).clone().with_note(note);
        self
    }
}

impl From<Diagnostic> for TextError {
    fn from(d: Diagnostic) -> TextError {
        TextError(Box::new(d))
    }
}

impl From<TextError> for Diagnostic {
    fn from(e: TextError) -> Diagnostic {
        *e.0
    }
}
