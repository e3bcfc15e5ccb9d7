//! Lexical scopes of positions, for debug information: which block of the source, and which
//! chain of inlined calls, an instruction's code belongs to.
//!
//! A position ([`crate::positions`]) says where in the source an instruction comes from; its
//! [`DebugScope`] says in which scope of its function: [`DebugScope::FUNCTION`] (the function's own
//! body), a block of the source ([`DebugScopeData::Block`], a `{ ... }` that declares variables), or
//! the body of a function inlined at a call ([`DebugScopeData::Inlined`], whose call is itself in a
//! scope of the caller). The SPIR-V backend writes them as `DebugLexicalBlock`,
//! `DebugInlinedAt` and `DebugScope`, so a debugger shows a variable only inside its block and
//! the call stack of inlined code.
//!
//! The scope travels with the position: [`Module::origin`] is both, the current position
//! carries one, and everything that copies a position (the current position, an instruction
//! built before another, [`Module::replace_all_uses_with`], the cloner within one module)
//! copies its scope. The inliner gives the copy of a callee's instructions the callee's scopes
//! re-rooted at the call. Scopes are not part of the text form or of `.osir`; a module loaded
//! or linked from another has its positions in [`DebugScope::FUNCTION`].

use crate::diag::Span;
use crate::module::{InstId, Module};

/// A scope of the module's scope table; [`DebugScope::FUNCTION`] is the body of the function the
/// instruction is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct DebugScope(pub u32);

impl DebugScope {
    /// The body of the function an instruction is in (no block, not inlined).
    pub const FUNCTION: DebugScope = DebugScope(0);
}

/// A position with its scope: what an instruction carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Origin {
    /// Where in the source.
    pub span: Span,
    /// In which scope of the function.
    pub scope: DebugScope,
}

impl Origin {
    /// `span` in the function's own scope.
    pub fn new(span: Span) -> Origin {
        Origin {
            span,
            scope: DebugScope::FUNCTION,
        }
    }
}

/// The function an inlined scope is the body of (kept by value: the function itself may be
/// gone once every call of it is inlined).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Callee {
    /// The function when it was inlined (it may no longer exist).
    pub func: InstId,
    /// Its name.
    pub name: String,
    /// Its declaration, when it has one.
    pub declared: Option<Span>,
    /// Its function type when it was inlined (it may no longer exist).
    pub ty: Option<InstId>,
}

/// One scope of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DebugScopeData {
    /// A block of the source (`{ ... }` at `span`) within `parent`.
    Block {
        /// The enclosing scope.
        parent: DebugScope,
        /// The block, braces included.
        span: Span,
    },
    /// The body of `callee`, inlined at `call` (the call's position and scope in the caller).
    Inlined {
        /// The function inlined.
        callee: Callee,
        /// Where it was called.
        call: Origin,
    },
}

impl Module {
    /// Adds a scope to the table.
    pub fn add_debug_scope(&mut self, data: DebugScopeData) -> DebugScope {
        self.debug_scopes.push(data);
        DebugScope(self.debug_scopes.len() as u32)
    }

    /// What scope `s` is; `None` for [`DebugScope::FUNCTION`] and for an id the table lacks.
    pub fn debug_scope_data(&self, s: DebugScope) -> Option<&DebugScopeData> {
        (s.0 as usize)
            .checked_sub(1)
            .and_then(|k| self.debug_scopes.get(k))
    }

    /// How many scopes the table holds ([`DebugScope::FUNCTION`] not counted).
    pub fn debug_scopes_len(&self) -> usize {
        self.debug_scopes.len()
    }

    /// The scope of `id`'s position ([`DebugScope::FUNCTION`] without one).
    pub fn debug_scope(&self, id: InstId) -> DebugScope {
        self.positions
            .get(&id)
            .map_or(DebugScope::FUNCTION, |o| o.scope)
    }

    /// The scope the inliner gives the copy of an instruction of `callee` in scope `s` when
    /// `callee` is inlined at `call` (`map` remembers, per call, the scopes already re-rooted).
    pub fn reroot_debug_scope(
        &mut self,
        s: DebugScope,
        callee: &Callee,
        call: Origin,
        map: &mut rustc_hash::FxHashMap<DebugScope, DebugScope>,
    ) -> DebugScope {
        if let Some(&n) = map.get(&s) {
            return n;
        }
        let data = match self.debug_scope_data(s).cloned() {
            None => DebugScopeData::Inlined {
                callee: callee.clone(),
                call,
            },
            Some(DebugScopeData::Block { parent, span }) => DebugScopeData::Block {
                parent: self.reroot_debug_scope(parent, callee, call, map),
                span,
            },
            Some(DebugScopeData::Inlined {
                callee: inner,
                call: at,
            }) => DebugScopeData::Inlined {
                callee: inner,
                call: Origin {
                    span: at.span,
                    scope: self.reroot_debug_scope(at.scope, callee, call, map),
                },
            },
        };
        let n = self.add_debug_scope(data);
        map.insert(s, n);
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::FileId;

    fn span(start: u32) -> Span {
        Span {
            file: FileId(0),
            start,
            end: start + 1,
        }
    }

    #[test]
    fn rerooting_puts_the_callee_function_scope_under_the_call_and_keeps_blocks_nested() {
        let mut m = Module::new();
        let inner_block = m.add_debug_scope(DebugScopeData::Block {
            parent: DebugScope::FUNCTION,
            span: span(10),
        });
        let callee = Callee {
            func: m.root(),
            name: "g".into(),
            declared: Some(span(1)),
            ty: None,
        };
        let call = Origin {
            span: span(50),
            scope: DebugScope::FUNCTION,
        };
        let mut map = rustc_hash::FxHashMap::default();
        let b = m.reroot_debug_scope(inner_block, &callee, call, &mut map);
        let Some(DebugScopeData::Block { parent, span: s }) = m.debug_scope_data(b).cloned() else {
            panic!("a block stays a block");
        };
        assert_eq!(s, span(10));
        let Some(DebugScopeData::Inlined {
            callee: c,
            call: at,
        }) = m.debug_scope_data(parent).cloned()
        else {
            panic!("the callee's body becomes an inlined scope");
        };
        assert_eq!((c.name.as_str(), at), ("g", call));
        // The function scope maps to the same inlined scope: one per call.
        assert_eq!(
            m.reroot_debug_scope(DebugScope::FUNCTION, &callee, call, &mut map),
            parent
        );
        assert_eq!(m.debug_scopes_len(), 3);
        assert_eq!(m.debug_scope_data(DebugScope::FUNCTION), None);
    }
}
