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
    /// Blocks appended to since the last stamp.
    touched: Vec<Block>,
    /// Every instruction seen, with its position when it has one.
    seen: FxHashMap<InstId, Option<Span>>,
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
        self.seen.insert(i, self.cur.or(self.construct));
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
                self.seen.insert(i, self.cur.or(self.construct));
                at = m.prev_sibling(i);
            }
        }
    }

    /// The positions of the instructions of `m` that have one, in no particular order.
    pub fn finish(mut self, m: &Module) -> Vec<(InstId, Span)> {
        self.stamp(m);
        self.seen
            .into_iter()
            .filter_map(|(i, s)| Some((i, s?)))
            .filter(|&(i, _)| m.contains(i))
            .collect()
    }
}
