//! Analyses of a whole module, computed once and shared by the passes, every backend and
//! reflection, so that none of them keeps its own copy:
//!
//! - [`CallGraph`]: the direct calls between functions, callers and call sites, the
//!   strongly connected components (recursion) and a callee-first order (the inliner's
//!   order);
//! - [`ModuleInfo`]: on top of the call graph, what each function does ([`FunctionInfo`]:
//!   the globals it names and how it accesses them, how it accesses memory through its
//!   pointer parameters, what calling it may do), what each entry point uses ([`EntryInfo`]:
//!   its stage and name, the functions it reaches, the globals they use and how, its
//!   [`Effects`](crate::Effects)), and the stages that reach each global. This is naga's
//!   `ModuleInfo`: a backend takes it with the module (`Legal::info` in
//!   `oneshader-backends`) and never re-derives interface lists or stage sets.
//!
//! The effects of a single instruction are not here but in [`crate::effects`], which these
//! analyses build on. Analyses of one function (CFG, dominators, structured constructs)
//! live in [`crate::cfg`] and [`crate::constructs`].
//!
//! Both analyses are snapshots taken in one walk over the module; a pass that changes calls
//! or globals builds them again.

mod call_graph;
mod usage;

pub use call_graph::CallGraph;
pub use usage::{EntryInfo, FunctionInfo, GlobalUse, ModuleInfo, StageSet, entry_point_of};
