//! Diagnostics as Python objects, and the exceptions that carry them.

use oneshader::dxc_args::ArgError;
use oneshader::ir::diag::Diagnostic as RustDiagnostic;
use oneshader::{CompileError as RustCompileError, Diagnostics, Phase};
use pyo3::prelude::*;
use pyo3::type_object::PyTypeInfo;

/// One diagnostic: an error, a warning or a note, with its code and (when it has one) its
/// place in the source.
#[pyclass(module = "oneshader", frozen, get_all)]
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// `"error"`, `"warning"` or `"note"`.
    pub severity: String,
    /// The stable code, e.g. `"OSH1001"` (docs/diagnostics.md lists them).
    pub code: String,
    /// The one-line message.
    pub message: String,
    /// The file the diagnostic is in (the main file's name when it has no position), or
    /// `None` when it concerns no file.
    pub file: Option<String>,
    /// 1-based line of the start of its span, `None` without a position.
    pub line: Option<usize>,
    /// 1-based column (in characters) of the start of its span, `None` without a position.
    pub column: Option<usize>,
    /// 1-based line of the end of its span.
    pub end_line: Option<usize>,
    /// 1-based column of the end of its span.
    pub end_column: Option<usize>,
    /// The `= note:` lines.
    pub notes: Vec<String>,
    /// The diagnostic as the command line prints it (`file:line:col: error[CODE]: message`,
    /// the source line and a caret), ending in a newline.
    pub rendered: String,
}

#[pymethods]
impl Diagnostic {
    /// The rendered text.
    fn __str__(&self) -> String {
        self.rendered.clone()
    }

    /// `Diagnostic(error OSH1001 at bad.hlsl:1:36: undefined name ...)`.
    fn __repr__(&self) -> String {
        let place = match (&self.file, self.line, self.column) {
            (Some(f), Some(l), Some(c)) => format!(" at {f}:{l}:{c}"),
            (Some(f), _, _) => format!(" in {f}"),
            _ => String::new(),
        };
        format!(
            "Diagnostic({} {}{place}: {})",
            self.severity, self.code, self.message
        )
    }

    /// True for an error.
    #[getter]
    fn is_error(&self) -> bool {
        self.severity == "error"
    }
}

impl Diagnostic {
    /// `d` with its position in `diags`' source files.
    pub fn from_compiler(diags: &Diagnostics, d: &RustDiagnostic) -> Diagnostic {
        let (file, start, end) = match d.span {
            Some(span) => (
                Some(diags.sources.name(span.file).to_string()),
                Some(diags.sources.line_col(span.file, span.start)),
                Some(diags.sources.line_col(span.file, span.end)),
            ),
            None => (Some(diags.file.clone()), None, None),
        };
        Diagnostic {
            severity: d.severity.to_string(),
            code: d.code.to_string(),
            message: d.message.clone(),
            file,
            line: start.map(|p| p.0),
            column: start.map(|p| p.1),
            end_line: end.map(|p| p.0),
            end_column: end.map(|p| p.1),
            notes: d.notes.clone(),
            rendered: diags.render_one(d),
        }
    }

    /// `d`, which has no source text to point into (an `.osir` image, a link), rendered
    /// as `name: error[CODE]: message` (or without the name when `name` is `None`).
    pub fn unspanned(name: Option<&str>, d: &RustDiagnostic) -> Diagnostic {
        let rendered = match name {
            Some(n) => format!("{n}: {d}\n"),
            None => format!("{d}\n"),
        };
        Diagnostic {
            severity: d.severity.to_string(),
            code: d.code.to_string(),
            message: d.message.clone(),
            file: name.map(str::to_string),
            line: None,
            column: None,
            end_line: None,
            end_column: None,
            notes: d.notes.clone(),
            rendered,
        }
    }

    /// A plain error with a code and a message, at `file:line:column` when given.
    pub fn plain(code: &str, message: &str, place: Option<(String, usize, usize)>) -> Diagnostic {
        let (file, line, column, rendered) = match place {
            Some((f, l, c)) if l > 0 => {
                let r = format!("{f}:{l}:{c}: error[{code}]: {message}\n");
                (Some(f), Some(l), Some(c), r)
            }
            Some((f, _, _)) => {
                let r = format!("{f}: error[{code}]: {message}\n");
                (Some(f), None, None, r)
            }
            None => (None, None, None, format!("error[{code}]: {message}\n")),
        };
        Diagnostic {
            severity: "error".to_string(),
            code: code.to_string(),
            message: message.to_string(),
            file,
            line,
            column,
            end_line: line,
            end_column: column,
            notes: Vec::new(),
            rendered,
        }
    }
}

/// The spelling of a phase in `CompileError.phase`.
fn phase_name(p: Phase) -> &'static str {
    match p {
        Phase::FrontEnd => "front-end",
        Phase::Reflection => "reflection",
        Phase::Legalization => "legalization",
        Phase::Backend => "backend",
        Phase::Specialization => "specialization",
        // `Phase` is non-exhaustive: a phase added later is still reported, by name.
        _ => "other",
    }
}

/// An exception of type `E` (`CompileError` or a subclass) whose message is the rendered
/// diagnostics, carrying them and the first error's code.
pub fn raise<E: PyTypeInfo>(
    py: Python<'_>,
    diagnostics: Vec<Diagnostic>,
    phase: Option<Phase>,
    summary: String,
) -> PyErr {
    let rendered: String = diagnostics.iter().map(|d| d.rendered.as_str()).collect();
    let message = if rendered.trim().is_empty() {
        summary.clone()
    } else {
        rendered.trim_end().to_string()
    };
    let code = diagnostics
        .iter()
        .find(|d| d.severity == "error")
        .or(diagnostics.first())
        .map(|d| d.code.clone());
    let err = PyErr::new::<E, _>(message);
    let set = || -> PyResult<()> {
        let value = err.value(py);
        value.setattr("diagnostics", diagnostics)?;
        value.setattr("code", code)?;
        value.setattr("phase", phase.map(phase_name))?;
        value.setattr("summary", summary)?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// A failed compilation as a `CompileError`.
pub fn compile_error(py: Python<'_>, e: &RustCompileError) -> PyErr {
    let list = e
        .diagnostics
        .iter()
        .map(|d| Diagnostic::from_compiler(&e.diagnostics, d))
        .collect();
    raise::<crate::CompileError>(py, list, Some(e.phase), e.summary())
}

/// A `CompileError` with one plain diagnostic.
pub fn plain_error(py: Python<'_>, code: &str, message: &str) -> PyErr {
    raise::<crate::CompileError>(
        py,
        vec![Diagnostic::plain(code, message, None)],
        None,
        format!("error[{code}]: {message}"),
    )
}

/// A dxc-style argument that does not parse (or is refused) as a `CompileError` with its
/// code (OSC0050, OSC0055); `option` is set to the option as spelled.
pub fn arg_error(py: Python<'_>, e: &ArgError) -> PyErr {
    let err = plain_error(py, e.code, &e.message);
    if let Err(set) = err.value(py).setattr("option", e.option.clone()) {
        return set;
    }
    err
}
