//! `oneshader-passes`: optimizer and legalization passes over the OneShader IR, the reference
//! interpreter that checks them, specialization and linking.
//!
//! Every pass implements [`Pass`]: it rewrites a [`Module`] in place and reports whether it
//! changed anything, or fails with a [`PassError`] (never a panic). The pass manager runs
//! passes in order, verifying after each one when asked.
//!
//! # Map
//!
//! - [`manager`]: [`manager::PassManager`] (pass lists, fixed-point groups, `--verify-each`,
//!   `--print-after` dumps, per-pass timing, fallback to the unoptimized module with a warning).
//! - [`pipeline`]: the registry of passes by name ([`pipeline::pass_by_name`]) and the `-O` /
//!   legalization pipelines. A new pass is registered there.
//! - [`semantics`]: the one definition of every scalar operator (integer wrapping, masked
//!   shifts, HLSL division, floats in their own precision, conversions) with the "same on every
//!   GPU" query the folder obeys. [`interp`] (the reference interpreter) and [`combine`] (the
//!   folder) both compute through it.
//! - Optimizer passes: [`combine`], [`cse`], [`dce`], [`inline`], [`sroa`], [`mem2reg`],
//!   [`simplify_cfg`], [`private_to_local`] (before the rounds), [`dead_globals`] (after
//!   them); legalization per target ([`legalize`], run by
//!   [`pipeline::legalize`]): [`specialize_generic`], [`specialize_resources`], [`own_merges`],
//!   [`bool_storage`], [`params_to_vars`] (text targets);
//!   [`specialize_spec`] applies spec-constant overrides; [`split_edges`] and [`clone`] are
//!   utilities passes share.
//!
//! # Writing a pass
//!
//! Work per function where possible, keep every IR invariant (tests verify after every pass),
//! snapshot child and use lists before mutating them, and return `Err(PassError)` rather than
//! panicking: the pass manager turns an error into a warning and the unoptimized module.
//! Pass tests are IR text: passes/tests/common/mod.rs has the harness (input text, pass list,
//! expected text, verification after each pass).
//!
//! A pass that rewrites `mul x, 2` on integers as `add x, x`, run by a [`manager::PassManager`]
//! that verifies after each pass, then the registered `dce`:
//!
//! ```
//! use oneshader_ir::{Builder, Module, Op, parse::parse, print::print_module};
//! use oneshader_passes::manager::{Options, PassManager};
//! use oneshader_passes::{Pass, PassError, pipeline::pass_by_name};
//!
//! struct DoubleToAdd;
//!
//! impl Pass for DoubleToAdd {
//!     fn name(&self) -> &'static str {
//!         "double-to-add"
//!     }
//!
//!     fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
//!         let mut changed = false;
//!         for f in m.functions() {
//!             for block in f.blocks(m) {
//!                 // `insts` is a snapshot: the block may change while we walk it.
//!                 for i in block.insts(m) {
//!                     if m.op(i) != Op::Mul || m.const_int_value(m.operand(i, 1)) != Some(2) {
//!                         continue;
//!                     }
//!                     let x = m.operand(i, 0);
//!                     let mut bl = Builder::new(m);
//!                     bl.position_before(i);
//!                     let sum = bl.add(x, x);
//!                     m.replace_uses_with(i, sum);
//!                     changed = true;
//!                 }
//!             }
//!         }
//!         Ok(changed)
//!     }
//! }
//!
//! let mut m = parse(
//!     "func @f(%0: i32) -> i32 {\nbb0:\n  %1 = mul %0, i32 2 : i32\n  return %1\n}\n",
//! )?;
//! let mut pm = PassManager::new().with_options(Options {
//!     verify_each: true,
//!     ..Options::default()
//! });
//! pm.add(Box::new(DoubleToAdd));
//! pm.add(pass_by_name("dce").expect("a registered pass"));
//! pm.run(&mut m)?;
//! let text = print_module(&m);
//! assert!(text.contains("add %0, %0") && !text.contains("mul"), "{text}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod bool_storage;
pub mod clone;
pub mod combine;
pub mod cse;
pub mod dce;
pub mod dead_globals;
pub mod inline;
pub mod interp;
pub mod legalize;
pub mod link;
pub mod manager;
pub mod mem2reg;
pub mod own_merges;
pub mod params_to_vars;
pub mod pipeline;
pub mod private_to_local;
pub mod required_constants;
pub mod semantics;
pub mod simplify_cfg;
pub mod specialize_generic;
pub mod specialize_resources;
pub mod specialize_spec;
pub mod split_edges;
pub mod sroa;
pub mod unroll;
pub mod value;

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
    /// True when a second run right after a run never changes anything (the pass works to its
    /// own fixed point). A fixed-point group then skips the pass while nothing has changed the
    /// module since its last run. The default is false, which is always safe.
    fn idempotent(&self) -> bool {
        false
    }
}
