//! The boundary every backend sits behind: a [`Legal`] module is one the verifier accepts and
//! that is legal for a target ([`oneshader_passes::legalize::check`]). Backends take a
//! `&Legal`, never a bare module, so none of them can be handed a module that skipped the
//! verifier or legalization; each may assume every rule the verifier and the check enforce,
//! and refuses (with an `OSB` diagnostic) only what its language cannot express.
//!
//! A `Legal` also carries the module's shared analyses ([`Legal::info`]: the call graph,
//! each entry point's functions and globals with how they are accessed, the stages of each
//! global), computed once when it is built, so no backend derives interface lists or stage
//! sets itself.
//!
//! ```
//! use oneshader_backends::{Legal, Target, prepare, spirv};
//! let mut m = oneshader_ir::parse::parse(
//!     "global @data : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]\n\
//!      func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {\n\
//!      bb0:\n\
//!        %0 = element_addr @data, u32 0 : ptr<storage_buffer, u32>\n\
//!        store %0, u32 7\n\
//!        return\n\
//!      }\n",
//! ).unwrap();
//! // `prepare` runs `legalize(spirv)` and checks the result; `Legal::new` only checks.
//! let legal: Legal<'_> = prepare(&mut m, Target::Spirv).unwrap();
//! assert_eq!(legal.info().entry_points()[0].name(), "main");
//! let words = spirv::emit(&legal, &spirv::Options::default()).unwrap();
//! assert_eq!(words[0], 0x0723_0203);
//! ```

use oneshader_ir::Module;
use oneshader_ir::analysis::ModuleInfo;
use oneshader_ir::diag::{Diagnostic, Errors, has_errors};
use oneshader_passes::legalize::{self, Target};
use oneshader_passes::pipeline;

/// A module the verifier accepts and that is legal for [`Legal::target`], with its analyses:
/// what every backend takes.
#[derive(Clone, Debug)]
pub struct Legal<'m> {
    m: &'m Module,
    target: Target,
    info: ModuleInfo,
}

impl<'m> Legal<'m> {
    /// Verifies `m` and checks that it is legal for `target`, then analyses it
    /// ([`Legal::info`]); `Err` with the diagnostics of whichever fails (the verifier's `OSV`
    /// codes, or the check's `OSG` codes, each naming the legalization pass that would have
    /// fixed it, or the rule no pass can make hold).
    pub fn new(m: &'m Module, target: Target) -> Result<Legal<'m>, Errors> {
        let diags = oneshader_ir::verify::verify(m);
        if has_errors(&diags) {
            return Err(Errors::new(diags));
        }
        let info = ModuleInfo::new(m);
        let diags = legalize::check(m, target, &info);
        if has_errors(&diags) {
            return Err(Errors::new(diags));
        }
        Ok(Legal { m, target, info })
    }

    /// The module.
    pub fn module(&self) -> &'m Module {
        self.m
    }

    /// The target it is legal for.
    pub fn target(&self) -> Target {
        self.target
    }

    /// The module's analyses: call graph, entry-point usage (functions, globals and how
    /// they are accessed, effects), stages of each global.
    pub fn info(&self) -> &ModuleInfo {
        &self.info
    }
}

/// Runs the `legalize(target)` pipeline on `m` (which must verify), then [`Legal::new`]: the
/// way from a module as the front end or the optimizer left it to a backend.
pub fn prepare(m: &mut Module, target: Target) -> Result<Legal<'_>, Errors> {
    if let Err(e) = pipeline::legalize(target).run(m) {
        if e.code.is_some_and(|c| c.starts_with("OSG")) && !e.diagnostics.is_empty() {
            // A pass's refusal (`PassError::refusal`): its own diagnostic says what and where.
            return Err(Errors::new(e.diagnostics));
        }
        let mut diags = vec![Diagnostic::error(
            "OSG0000",
            format!("the legalization pipeline for {target} failed: {e}"),
        )];
        diags.extend(e.diagnostics);
        return Err(Errors::new(diags));
    }
    Legal::new(m, target)
}
