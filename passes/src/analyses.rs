//! The analyses of one function that passes share, computed on demand and kept until a pass
//! changes the function's control flow (as Cranelift's `Context` keeps its CFG and dominator
//! tree between passes).
//!
//! A [`crate::FunctionPass`] receives the cache of the function it runs on. It asks for what
//! it needs ([`FunctionAnalyses::cfg`], [`FunctionAnalyses::constructs`]); what an earlier pass
//! computed is reused when nothing changed the control flow since. A pass that changes the
//! control flow (adds, removes or retargets blocks, rewrites terminators) either calls
//! [`FunctionAnalyses::invalidate`] itself and says so ([`crate::FunctionPass::keeps_analyses`]),
//! or leaves it to the pass manager, which drops the analyses after every run that changed the
//! function. Changes to other instructions (and to block parameters and branch arguments)
//! leave the analyses valid: they describe blocks and edges only.

use oneshader_ir::cfg::Cfg;
use oneshader_ir::constructs::Constructs;
use oneshader_ir::{Func, Module};

/// The cached analyses of one function (see the module documentation).
#[derive(Default)]
pub struct FunctionAnalyses {
    cfg: Option<Cfg>,
    constructs: Option<Constructs>,
    computed: u32,
}

impl FunctionAnalyses {
    /// An empty cache.
    pub fn new() -> FunctionAnalyses {
        FunctionAnalyses::default()
    }

    /// The function's CFG: reverse post-order, dominators, dominance frontiers.
    pub fn cfg(&mut self, m: &Module, f: Func) -> &Cfg {
        if self.cfg.is_none() {
            self.computed += 1;
        }
        self.cfg.get_or_insert_with(|| Cfg::new(m, f))
    }

    /// The function's structured constructs (with their structural CFG,
    /// [`Constructs::cfg`]).
    pub fn constructs(&mut self, m: &Module, f: Func) -> &Constructs {
        if self.constructs.is_none() {
            self.computed += 1;
        }
        self.constructs.get_or_insert_with(|| Constructs::new(m, f))
    }

    /// The control flow changed: every analysis is dropped.
    pub fn invalidate(&mut self) {
        self.cfg = None;
        self.constructs = None;
    }

    /// How many analyses this cache has computed (each `cfg` or `constructs` that was not
    /// cached): what sharing saves shows here.
    pub fn computed(&self) -> u32 {
        self.computed
    }
}
