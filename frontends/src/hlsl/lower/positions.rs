//! Where each lowered instruction comes from: the HLSL expression being lowered when it was
//! emitted (the innermost one), for the `.osir` source map and tools that point back at the
//! source.
//!
//! Lowering appends instructions at the end of the current block ([`crate::hlsl::lower::Lower::bld`]
//! notes that block as touched). Whenever the expression being lowered changes (entering or
//! leaving one), the instructions appended to the touched blocks since the last change are
//! stamped with the expression that was current while they were emitted: walking back from
//! each block's end to the first instruction already seen. Instructions emitted outside any
//! expression take their construct's: the statement being lowered (its first expression:
//! an `if`'s condition, a loop's test, a `switch`'s selector; a `break`, `continue` or
//! `return;` the enclosing statement's), or the function (its declaration) for what belongs
//! to no statement (parameter copies, the final `return`, entry-point glue). Instructions
//! placed elsewhere than at a block's end (the `var`s gathered at the start of the entry
//! block) are recorded when made. The result goes into the module
//! ([`oneshader_ir::Module::set_position`]), where passes keep it.

use oneshader_ir::debug_scopes::{DebugScope, Origin};
use oneshader_ir::diag::Span;
use oneshader_ir::{Block, InstId, Module};
use rustc_hash::FxHashMap;

/// The positions of lowered instructions (see the module documentation).
#[derive(Default)]
pub(crate) struct Positions {
    /// The expression being lowered, innermost.
    cur: Option<Span>,
    /// The statement or function being lowered, innermost: the position of what no
    /// expression is being lowered for.
    construct: Option<Span>,
    /// The block of the source being lowered, innermost ([`DebugScope::FUNCTION`] outside
    /// any: see `oneshader_ir::debug_scopes`).
    scope: DebugScope,
    /// Blocks appended to since the last stamp.
    touched: Vec<Block>,
    /// Every instruction seen, with its position (when it has one) and scope.
    seen: FxHashMap<InstId, (Option<Span>, DebugScope)>,
}

impl Positions {
    /// Notes that instructions are about to be appended to `b`.
    #[inline]
    pub fn touch(&mut self, b: Block) {
        if self.touched.last() != Some(&b) {
            self.touched.push(b);
        }
    }

    /// Records instruction `i`, made away from a block's end, with the current position.
    pub fn record(&mut self, i: InstId) {
        self.seen
            .insert(i, (self.cur.or(self.construct), self.scope));
    }

    /// Records `var` `i` of a local as declared at `span`, in the current scope (the `var`s
    /// are made at the function's start, before the declaration is reached).
    pub fn declare(&mut self, i: InstId, span: Span) {
        self.seen.insert(i, (Some(span), self.scope));
    }

    /// The scope instructions lowered now are in.
    pub fn scope(&self) -> DebugScope {
        self.scope
    }

    /// Starts lowering a block of the source that is debug scope `s` (made by the caller in
    /// the module, within [`Positions::scope`]); returns the enclosing scope for
    /// [`Positions::leave_scope`].
    pub fn enter_scope(&mut self, m: &Module, s: DebugScope) -> DebugScope {
        self.stamp(m);
        std::mem::replace(&mut self.scope, s)
    }

    /// Finishes the block [`Positions::enter_scope`] entered, back to `outer`.
    pub fn leave_scope(&mut self, m: &Module, outer: DebugScope) {
        self.stamp(m);
        self.scope = outer;
    }

    /// Starts lowering the statement or function at `span`; returns the enclosing one for
    /// [`Positions::leave_construct`].
    pub fn enter_construct(&mut self, m: &Module, span: Span) -> Option<Span> {
        self.stamp(m);
        self.construct.replace(span)
    }

    /// Finishes the current statement or function, back to `outer`.
    pub fn leave_construct(&mut self, m: &Module, outer: Option<Span>) {
        self.stamp(m);
        self.construct = outer;
    }

    /// Starts lowering the expression at `span`; returns the enclosing one for
    /// [`Positions::leave`].
    pub fn enter(&mut self, m: &Module, span: Span) -> Option<Span> {
        self.stamp(m);
        self.cur.replace(span)
    }

    /// Finishes the current expression, back to `outer`.
    pub fn leave(&mut self, m: &Module, outer: Option<Span>) {
        self.stamp(m);
        self.cur = outer;
    }

    /// Gives the instructions appended since the last stamp the current position.
    fn stamp(&mut self, m: &Module) {
        for b in self.touched.drain(..) {
            if !m.contains(b.id()) {
                continue;
            }
            let mut at = m.last_child(b.id());
            while let Some(i) = at {
                if self.seen.contains_key(&i) {
                    break;
                }
                self.seen
                    .insert(i, (self.cur.or(self.construct), self.scope));
                at = m.prev_sibling(i);
            }
        }
    }

    /// The positions (with their scopes) of the instructions of `m` that have one, in no
    /// particular order.
    pub fn finish(mut self, m: &Module) -> Vec<(InstId, Origin)> {
        self.stamp(m);
        self.seen
            .into_iter()
            .filter_map(|(i, (s, scope))| Some((i, Origin { span: s?, scope })))
            .filter(|&(i, _)| m.contains(i))
            .collect()
    }
}
