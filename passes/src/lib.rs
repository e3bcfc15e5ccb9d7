//! `oneshader-passes`: optimizer and legalization passes over the OneShader IR, the reference
//! interpreter that checks them, specialization and linking.
//!
//! Every pass implements [`Pass`]: it rewrites a [`Module`] in place and reports whether it
//! changed anything, or fails with a [`PassError`] (never a panic). A pass that works one
//! function at a time also implements [`FunctionPass`]. The pass manager runs passes in order,
//! verifying after each one when asked.
//!
//! # Map
//!
//! - [`manager`]: [`manager::PassManager`] (pass lists, fixed-point groups run per function for
//!   [`FunctionPass`]es with converged functions skipped, `--verify-each`, `--print-after`
//!   dumps, per-pass timing, fallback to the unoptimized module with a warning).
//! - [`analyses`]: [`analyses::FunctionAnalyses`], the per-function cache (CFG, constructs)
//!   function passes share until one changes the control flow.
//! - [`pipeline`]: the registry of passes by name ([`pipeline::pass_by_name`]) and the `-O` /
//!   legalization pipelines. A new pass is registered there.
//! - [`semantics`]: the one definition of every scalar operator (integer wrapping, masked
//!   shifts, HLSL division, floats in their own precision, conversions) with the "same on every
//!   GPU" query the folder obeys. [`interp`] (the reference interpreter) and [`combine`] (the
//!   folder) both compute through it.
//! - Optimizer passes: [`combine`], [`cse`], [`dce`], [`inline`], [`sroa`], [`mem2reg`],
//!   [`simplify_cfg`], [`private_to_local`] (before the rounds), [`dead_globals`] (in them for
//!   private and workgroup variables, after them for resources); legalization per target ([`legalize`], run by
//!   [`pipeline::legalize`]): [`specialize_generic`], [`specialize_resources`], [`own_merges`],
//!   [`bool_storage`], [`intrinsic_widths`], [`image_widths`], [`params_to_vars`] (text targets), [`case_copies`] (WGSL);
//!   [`specialize_spec`] applies spec-constant overrides; [`split_edges`] and [`clone`] are
//!   utilities passes share.
//!
//! # Writing a pass
//!
//! Work per function where possible (a [`FunctionPass`], which also gets the function's cached
//! analyses), keep every IR invariant (tests verify after every pass),
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

pub mod analyses;
pub mod bool_storage;
pub mod case_copies;
pub mod clone;
pub mod combine;
pub mod cse;
pub mod dce;
pub mod dead_globals;
pub mod flatten_dynamic_index;
pub mod flatten_resource_arrays;
pub mod image_widths;
pub mod inline;
pub mod interp;
pub mod intrinsic_widths;
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
mod storage_form;
pub mod texel_buffers;
pub mod transpose_storage;
pub mod unroll;
pub mod value;

use oneshader_ir::diag::Diagnostic;
use oneshader_ir::{Func, Module};

use analyses::FunctionAnalyses;

/// A pass failed; the module may be partially rewritten (callers keep a copy to fall back to).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("pass `{pass}` failed: {}{message}", code.map(|c| format!("{c}: ")).unwrap_or_default())]
pub struct PassError {
    /// The pass that failed.
    pub pass: &'static str,
    /// The pass manager's code for the failure, when the manager found it rather than the pass
    /// ([`manager`]'s table: OSO0002 the module does not verify after the pass, OSO0003 the
    /// pass panicked), or the code of a pass's refusal ([`PassError::refusal`]: an input the
    /// pass cannot legalize, its diagnostic in `diagnostics`); `None` for any other error the
    /// pass returned.
    pub code: Option<&'static str>,
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
            code: None,
            message: message.into(),
            diagnostics: Vec::new(),
        }
    }

    /// `pass` refuses its input with diagnostic `d` (a code of its own and, where the IR
    /// records one, the source position): not a bug of the pass, an input the target
    /// cannot take (e.g. `case_copies`' OSG0008).
    pub fn refusal(pass: &'static str, d: Diagnostic) -> PassError {
        PassError {
            pass,
            code: Some(d.code),
            message: d.message.clone(),
            diagnostics: vec![d],
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
    /// module (or, for a function pass, the function) since its last run. The default is
    /// false, which is always safe.
    fn idempotent(&self) -> bool {
        false
    }
    /// The pass as a [`FunctionPass`], when it works one function at a time: a fixed-point
    /// group then runs it per function, with the function's cached analyses, and skips the
    /// functions that have converged. The default (`None`) runs it on the whole module.
    fn as_function_pass(&mut self) -> Option<&mut dyn FunctionPass> {
        None
    }
}

/// A pass that works one function at a time and never looks outside it (no other function's
/// body, no global it does not reach through the function). Its [`Pass`] implementation runs
/// it on every function with a body ([`run_per_function`]) and returns `Some(self)` from
/// [`Pass::as_function_pass`], so that a fixed-point group of the pass manager can run it per
/// function: each function is repeated until it converges, on its own, and the analyses it
/// needs are shared between the passes ([`analyses::FunctionAnalyses`]).
///
/// ```
/// use oneshader_ir::{Func, Module, Op, parse::parse, print::print_module};
/// use oneshader_passes::analyses::FunctionAnalyses;
/// use oneshader_passes::manager::PassManager;
/// use oneshader_passes::{FunctionPass, Pass, PassError, run_per_function};
///
/// /// Removes `add x, 0` (a toy `combine`).
/// struct AddZero;
///
/// impl Pass for AddZero {
///     fn name(&self) -> &'static str {
///         "add-zero"
///     }
///     fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
///         run_per_function(self, m)
///     }
///     fn as_function_pass(&mut self) -> Option<&mut dyn FunctionPass> {
///         Some(self)
///     }
/// }
///
/// impl FunctionPass for AddZero {
///     fn run_on_function(
///         &mut self,
///         m: &mut Module,
///         f: Func,
///         analyses: &mut FunctionAnalyses,
///     ) -> Result<bool, PassError> {
///         let mut changed = false;
///         // Reverse post-order, shared with the other passes until the CFG changes.
///         let blocks = analyses.cfg(m, f).rpo().to_vec();
///         for b in blocks {
///             for i in b.insts(m) {
///                 if m.op(i) == Op::Add && m.const_int_value(m.operand(i, 1)) == Some(0) {
///                     let x = m.operand(i, 0);
///                     m.replace_uses_with(i, x);
///                     changed = true;
///                 }
///             }
///         }
///         Ok(changed)
///     }
///     /// Only instructions change, never blocks or edges.
///     fn keeps_analyses(&self) -> bool {
///         true
///     }
/// }
///
/// let mut m = parse("func @f(%0: i32) -> i32 {\nbb0:\n  %1 = add %0, i32 0 : i32\n  return %1\n}\n")?;
/// let mut pm = PassManager::new();
/// pm.add_fixed_point(vec![Box::new(AddZero)], 4);
/// pm.run(&mut m)?;
/// assert!(print_module(&m).contains("return %0"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait FunctionPass: Pass {
    /// Runs the pass on `f` (a function with a body); `Ok(true)` when it changed. `analyses`
    /// holds what earlier passes computed for `f` and is still valid.
    fn run_on_function(
        &mut self,
        m: &mut Module,
        f: Func,
        analyses: &mut FunctionAnalyses,
    ) -> Result<bool, PassError>;

    /// True when every run leaves `analyses` valid: the pass calls
    /// [`FunctionAnalyses::invalidate`] itself whenever it changes the control flow. The
    /// default (false) makes the pass manager drop the analyses after every run that changed
    /// the function, which is always safe.
    fn keeps_analyses(&self) -> bool {
        false
    }
}

/// Runs a function pass on every function of `m` that has a body, each with fresh analyses:
/// the [`Pass::run`] of a [`FunctionPass`].
pub fn run_per_function<P: FunctionPass + ?Sized>(
    pass: &mut P,
    m: &mut Module,
) -> Result<bool, PassError> {
    let mut changed = false;
    for f in m.functions() {
        if !f.is_declaration(m) {
            changed |= pass.run_on_function(m, f, &mut FunctionAnalyses::new())?;
        }
    }
    Ok(changed)
}
