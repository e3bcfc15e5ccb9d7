//! `oneshader-passes`: optimizer and legalization passes over the OneShader IR, the reference
//! interpreter that checks them, specialization and linking.
//!
//! Every pass implements [`Pass`]: it rewrites a [`Module`] in place and reports whether it
//! changed anything, or fails with a [`PassError`] (never a panic). The pass manager runs
//! passes in order, verifying after each one when asked.

pub mod clone;
pub mod inline;
pub mod mem2reg;
pub mod simplify_cfg;
pub mod specialize_generic;
pub mod specialize_resources;
pub mod specialize_spec;
pub mod split_edges;
pub mod sroa;

use oneshader_ir::Module;
use oneshader_ir::diag::Diagnostic;

/// A pass failed; the module may be partially rewritten (callers keep a copy to fall back to).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("pass `{pass}` failed: {message}")]
pub struct PassError {
    /// The pass that failed.
    pub pass: &'static str,
    /// What went wrong.
    pub message: String,
    /// Diagnostics, e.g. from verification after the pass.
    pub diagnostics: Vec<Diagnostic>,
}

impl PassError {
    /// A failure of `pass` with a message.
    pub fn new(pass: &'static str, message: impl Into<String>) -> PassError {
        PassError {
            pass,
            message: message.into(),
            diagnostics: Vec::new(),
        }
    }
}

/// A transformation of a module.
pub trait Pass {
    /// Short name used by `--passes` and `--print-after` (e.g. `mem2reg`).
    fn name(&self) -> &'static str;
    /// Runs the pass; `Ok(true)` when the module changed.
    fn run(&mut self, m: &mut Module) -> Result<bool, PassError>;
}
