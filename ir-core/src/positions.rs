//! Source positions of instructions and declarations, part of the IR's contract.
//!
//! Every ordinary instruction and terminator may carry a [`Span`] of the source it was made
//! from (the HLSL front end gives each the innermost expression, or the statement or
//! declaration, being lowered), and so may every function, global variable and struct type:
//! its declaration (the HLSL front end gives the name token of the function, variable or
//! buffer declared, a struct its declaration; a variable made for an entry point's stage
//! input or output, the parameter or the function it stands for). Each position is in a
//! debug scope ([`crate::debug_scopes`]), which travels with it by the same rules. The module holds them in one side table keyed by
//! instruction, so they cost nothing to instructions without one, never change what the
//! module computes, are not part of the text form, and are dropped with the instruction.
//! [`takes_position`] names the opcodes of the first kind, [`takes_declaration_position`]
//! those of the second, [`carries_position`] both.
//!
//! Positions survive passes by construction rather than by each pass remembering:
//!
//! - the module has a *current position* ([`Module::set_current_position`]) that every
//!   instruction created while it is set takes; a pass that rewrites instruction `x` sets
//!   it to `x`'s position for the rewrite (and the pass manager clears it between passes).
//!   Functions and globals do not take it: what a pass builds while rewriting an instruction
//!   is not declared there;
//! - an instruction the [`crate::Builder`] inserts before another one (not a terminator)
//!   takes that one's position when no current position is set: what a pass builds before
//!   `x` is nearly always `x`'s replacement or part of it;
//! - [`Module::replace_all_uses_with`] (and so [`Module::replace_uses_with`]) gives the
//!   replacement `old`'s position when it has none of its own (a global that replaces a
//!   global takes its declaration);
//! - the cloner of the passes crate copies each instruction's position to its copy, functions
//!   and globals included (within one module; across modules only through a file map, since
//!   file ids are the source module's: the linker takes one per input);
//! - a pass that replaces a global or a function by new ones (one global per element of an
//!   array of resources, a function specialized for its resource arguments) gives each new
//!   one the old one's position.
//!
//! [`verify_positions`] checks that every position names a file of a [`SourceMap`] and lies
//! within it.

use crate::debug_scopes::Origin;
use crate::diag::{Diagnostic, SourceMap, Span};
use crate::module::{InstId, Module};
use crate::ops::Op;

/// True for the opcodes whose position is where they were made from: ordinary instructions
/// and terminators (not types, constants, functions, globals, blocks, parameters or
/// decorations). These take the module's current position when created.
#[inline]
pub fn takes_position(op: Op) -> bool {
    op.is_instruction() || op.is_terminator()
}

/// True for the opcodes whose position is their declaration: functions, global variables and
/// struct types (which, unlike other types, are made once per declaration). They carry a
/// position like the instructions of [`takes_position`] (the same table, the same rules) but
/// never take the current position.
#[inline]
pub fn takes_declaration_position(op: Op) -> bool {
    matches!(op, Op::Func | Op::Global | Op::Struct)
}

/// True for every opcode that may carry a position: [`takes_position`] or
/// [`takes_declaration_position`].
#[inline]
pub fn carries_position(op: Op) -> bool {
    takes_position(op) || takes_declaration_position(op)
}

impl Module {
    /// The source position of `id`, if it has one.
    #[inline]
    pub fn position(&self, id: InstId) -> Option<Span> {
        self.positions.get(&id).map(|o| o.span)
    }

    /// The position of `id` with its scope ([`crate::debug_scopes`]), if it has one.
    #[inline]
    pub fn origin(&self, id: InstId) -> Option<Origin> {
        self.positions.get(&id).copied()
    }

    /// Sets (or with `None` clears) the position of `id`, keeping the scope it had (the
    /// function's own for an instruction without a position). Ignored for opcodes that carry
    /// no position ([`carries_position`]) and for dead ids.
    pub fn set_position(&mut self, id: InstId, pos: Option<Span>) {
        let scope = self.debug_scope(id);
        self.set_origin(id, pos.map(|span| Origin { span, scope }));
    }

    /// Sets (or with `None` clears) the position and scope of `id`. Ignored for opcodes that
    /// carry no position ([`carries_position`]) and for dead ids.
    pub fn set_origin(&mut self, id: InstId, origin: Option<Origin>) {
        match origin {
            Some(o) if self.try_op(id).is_some_and(carries_position) => {
                self.positions.insert(id, o);
            }
            _ => {
                self.positions.remove(&id);
            }
        }
    }

    /// Gives `to` the position (and scope) of `from` when `to` has none (and `from` has one).
    pub fn inherit_position(&mut self, from: InstId, to: InstId) {
        if from != to
            && !self.positions.contains_key(&to)
            && let Some(p) = self.positions.get(&from).copied()
            && self.try_op(to).is_some_and(carries_position)
        {
            self.positions.insert(to, p);
        }
    }

    /// The position every instruction created from now on takes (until changed).
    #[inline]
    pub fn current_position(&self) -> Option<Span> {
        self.current_position.map(|o| o.span)
    }

    /// Sets the position instructions created from now on take, in the function's own scope;
    /// returns the previous one. A pass rewriting an instruction uses
    /// [`Module::position_from`] and [`Module::set_current_origin`], which keep its scope.
    pub fn set_current_position(&mut self, pos: Option<Span>) -> Option<Span> {
        self.set_current_origin(pos.map(Origin::new))
            .map(|o| o.span)
    }

    /// Sets the position and scope instructions created from now on take; returns the
    /// previous ones, to restore when the rewrite they were set for is done.
    pub fn set_current_origin(&mut self, origin: Option<Origin>) -> Option<Origin> {
        std::mem::replace(&mut self.current_position, origin)
    }

    /// Sets the current position to `id`'s (or none), with its scope, for rewriting `id`;
    /// returns the previous one for [`Module::set_current_origin`].
    pub fn position_from(&mut self, id: InstId) -> Option<Origin> {
        let p = self.origin(id);
        self.set_current_origin(p)
    }

    /// Every instruction with a position and the position, in no particular order (functions
    /// and globals with theirs included).
    pub fn positions(&self) -> impl Iterator<Item = (InstId, Span)> + '_ {
        self.positions.iter().map(|(&i, o)| (i, o.span))
    }

    /// How many instructions carry a position (functions and globals included).
    pub fn positions_len(&self) -> usize {
        self.positions.len()
    }

    /// Drops every position (the current one too) and the scope table.
    pub fn clear_positions(&mut self) {
        self.positions.clear();
        self.current_position = None;
        self.debug_scopes.clear();
    }
}

impl Diagnostic {
    /// Points the diagnostic at instruction `i` of `m`: its position, or else its `src_loc`
    /// decoration ([`Module::src_span`]); unchanged when it has neither. A lint written
    /// against the library reports `file:line:col` of the HLSL this way.
    ///
    /// ```
    /// use oneshader_ir::{Builder, Diagnostic, FileId, Module, SourceMap, Span};
    ///
    /// let mut sm = SourceMap::new();
    /// let file = sm.add("a.hlsl", "int f(int a) { return a / 0; }\n");
    /// let mut m = Module::new();
    /// let i32t = m.i32_type();
    /// let f = m.add_func("f", i32t, &[i32t]);
    /// let entry = f.entry(&m).unwrap();
    /// let a = f.params(&m)[0].id();
    /// let zero = m.const_i32(0);
    /// // What the front end does: the current position while lowering `a / 0`.
    /// m.set_current_position(Some(Span { file, start: 22, end: 27 }));
    /// let q = Builder::at_end(&mut m, entry).div(a, zero);
    /// let d = Diagnostic::warning("LINT001", "division by zero").at_inst(&m, q);
    /// assert!(sm.render(&d).starts_with("a.hlsl:1:23: warning[LINT001]: division by zero"));
    /// ```
    pub fn at_inst(mut self, m: &Module, i: InstId) -> Diagnostic {
        if m.contains(i)
            && let Some(s) = m.position(i).or_else(|| m.src_span(i))
        {
            self.span = Some(s);
        }
        self
    }

    /// When the diagnostic has no position yet: the declaration of function `f` (its
    /// position), or for a function without one the earliest source position among its
    /// instructions (a refusal about the function as a whole points at it). Unchanged when
    /// the diagnostic has a position, or the function none.
    pub fn in_func(mut self, m: &Module, f: InstId) -> Diagnostic {
        if self.span.is_some() || !m.contains(f) {
            return self;
        }
        if let Some(p) = m.position(f) {
            self.span = Some(p);
            return self;
        }
        let first = crate::structure::Func::dyn_cast(m, f)
            .map(|func| {
                func.blocks(m)
                    .into_iter()
                    .flat_map(|b| m.children(b.id()).collect::<Vec<_>>())
                    .filter_map(|i| m.position(i))
                    .min_by_key(|p| (p.file.0, p.start))
            })
            .unwrap_or(None);
        if let Some(p) = first {
            self.span = Some(p);
        }
        self
    }

    /// When the diagnostic has no position yet, [`Diagnostic::at_inst_or_use`].
    pub fn or_at_use(self, m: &Module, i: InstId) -> Diagnostic {
        if self.span.is_some() {
            return self;
        }
        self.at_inst_or_use(m, i)
    }

    /// [`Diagnostic::at_inst`]: a global at its declaration; and for what has no position of
    /// its own (a global made without a declaration, a type, a constant), at its first use in
    /// the source (the earliest position among its users).
    pub fn at_inst_or_use(self, m: &Module, i: InstId) -> Diagnostic {
        if !m.contains(i) || m.position(i).is_some() || m.src_span(i).is_some() {
            return self.at_inst(m, i);
        }
        let first_use = m
            .users(i)
            .into_iter()
            .filter_map(|u| m.position(u).map(|p| (p.file.0, p.start, u)))
            .min()
            .map_or(i, |(_, _, u)| u);
        self.at_inst(m, first_use)
    }
}

/// Checks that every position of `m` names a file of `sources` and lies within its text
/// (`start <= end <= len`, both on character boundaries). One `OSV0030` error per bad
/// position, naming the instruction.
pub fn verify_positions(m: &Module, sources: &SourceMap) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut bad: Vec<(InstId, Span)> = m
        .positions()
        .filter(|&(_, s)| {
            if (s.file.0 as usize) >= sources.len() {
                return true;
            }
            let text = sources.text(s.file);
            s.start > s.end
                || s.end as usize > text.len()
                || !text.is_char_boundary(s.start as usize)
                || !text.is_char_boundary(s.end as usize)
        })
        .collect();
    bad.sort_by_key(|&(i, _)| i.slot_number());
    for (i, s) in bad {
        let what = crate::print::print_inst(m, i);
        let msg = if (s.file.0 as usize) >= sources.len() {
            format!(
                "the position of `{}` names file {} but the source map holds {} file(s)",
                what.trim(),
                s.file.0,
                sources.len()
            )
        } else {
            format!(
                "the position of `{}` ({}..{}) is not a range of `{}` ({} bytes)",
                what.trim(),
                s.start,
                s.end,
                sources.name(s.file),
                sources.text(s.file).len()
            )
        };
        out.push(Diagnostic::error("OSV0030", msg));
    }
    // Every scope a position is in is one of the table's, and the table's own spans (blocks,
    // calls) are ranges of the files too.
    let scopes = m.debug_scopes_len() as u32;
    let mut unknown: Vec<InstId> = m
        .positions
        .iter()
        .filter(|(_, o)| o.scope.0 > scopes)
        .map(|(&i, _)| i)
        .collect();
    unknown.sort_by_key(|i| i.slot_number());
    for i in unknown {
        let what = crate::print::print_inst(m, i);
        out.push(Diagnostic::error(
            "OSV0030",
            format!(
                "the position of `{}` is in debug scope {} but the module has {} scope(s)",
                what.trim(),
                m.debug_scope(i).0,
                scopes
            ),
        ));
    }
    for (k, data) in m.debug_scopes.iter().enumerate() {
        let (span, parent) = match data {
            crate::debug_scopes::DebugScopeData::Block { parent, span } => (*span, *parent),
            crate::debug_scopes::DebugScopeData::Inlined { call, .. } => (call.span, call.scope),
        };
        let bad_span = (span.file.0 as usize) >= sources.len()
            || span.start > span.end
            || span.end as usize > sources.text(span.file).len();
        // A scope's parent comes before it, so the table has no cycle.
        if bad_span || parent.0 as usize > k {
            out.push(Diagnostic::error(
                "OSV0030",
                format!(
                    "debug scope {} names {} outside the module's sources and scopes",
                    k + 1,
                    if bad_span { "a position" } else { "a parent" }
                ),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::FileId;
    use crate::{Builder, Module};

    fn span(start: u32, end: u32) -> Span {
        Span {
            file: FileId(0),
            start,
            end,
        }
    }

    #[test]
    fn instructions_take_the_current_position_but_constants_do_not() {
        let mut m = Module::new();
        let i32t = m.i32_type();
        let f = m.add_func("f", i32t, &[i32t]);
        let entry = f.entry(&m).expect("entry");
        let a = f.params(&m)[0].id();
        m.set_current_position(Some(span(3, 5)));
        let three = m.const_i32(3);
        let mut b = Builder::at_end(&mut m, entry);
        let x = b.add(a, three);
        let r = b.ret(Some(x));
        assert_eq!(m.position(x), Some(span(3, 5)));
        assert_eq!(m.position(r), Some(span(3, 5)));
        assert_eq!(m.position(three), None, "constants are shared: no position");
        assert_eq!(m.position(a), None, "parameters carry none");
        m.set_current_position(None);
        let mut b = Builder::at_end(&mut m, entry);
        b.position_before(r);
        let y = b.mul(x, x);
        assert_eq!(
            m.position(y),
            None,
            "inserted before a terminator: not the terminator's position"
        );
    }

    #[test]
    fn inserted_before_an_instruction_takes_its_position_and_replacements_inherit() {
        let mut m = Module::new();
        let i32t = m.i32_type();
        let f = m.add_func("f", i32t, &[i32t]);
        let entry = f.entry(&m).expect("entry");
        let a = f.params(&m)[0].id();
        let mut b = Builder::at_end(&mut m, entry);
        let x = b.add(a, a);
        let r = b.ret(Some(x));
        m.set_position(x, Some(span(10, 12)));
        let mut b = Builder::at_end(&mut m, entry);
        b.position_before(x);
        let y = b.mul(a, a);
        assert_eq!(m.position(y), Some(span(10, 12)));
        // A replacement built elsewhere without a position takes the replaced one's.
        let mut b = Builder::at_end(&mut m, entry);
        b.position_before(r);
        let z = b.sub(a, a);
        assert_eq!(m.position(z), None);
        m.replace_uses_with(x, z);
        assert_eq!(m.position(z), Some(span(10, 12)));
        // Removal drops the position.
        m.remove(x).expect("unused");
        assert_eq!(m.positions().filter(|&(i, _)| i == x).count(), 0);
    }

    #[test]
    fn verify_positions_names_the_instruction_with_a_bad_file_or_range() {
        let mut m = Module::new();
        let i32t = m.i32_type();
        let f = m.add_func("f", i32t, &[i32t]);
        let entry = f.entry(&m).expect("entry");
        let a = f.params(&m)[0].id();
        let mut b = Builder::at_end(&mut m, entry);
        let x = b.add(a, a);
        let r = b.ret(Some(x));
        let mut sm = SourceMap::new();
        sm.add("a.hlsl", "int f(int a) { return a + a; }\n");
        m.set_position(x, Some(span(22, 27)));
        assert!(verify_positions(&m, &sm).is_empty());
        m.set_position(r, Some(span(22, 400)));
        m.set_position(
            x,
            Some(Span {
                file: FileId(3),
                start: 0,
                end: 1,
            }),
        );
        let d = verify_positions(&m, &sm);
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(d.iter().all(|d| d.code == "OSV0030"));
        assert!(
            d.iter()
                .any(|d| d.message.contains("names file 3") && d.message.contains("add")),
            "{d:?}"
        );
        assert!(
            d.iter()
                .any(|d| d.message.contains("a.hlsl") && d.message.contains("return")),
            "{d:?}"
        );
    }

    #[test]
    fn functions_and_globals_carry_their_declaration_but_not_the_current_position() {
        let mut m = Module::new();
        let f32t = m.f32_type();
        m.set_current_position(Some(span(40, 41)));
        let g = m
            .add_global("g", crate::AddressSpace::Private, f32t, None)
            .id();
        let void = m.void_type();
        let f = m.add_func("f", void, &[]);
        assert_eq!(
            m.position(g),
            None,
            "a global is not declared at the current position"
        );
        assert_eq!(m.position(f.id()), None, "nor is a function");
        m.set_current_position(None);
        m.set_position(g, Some(span(3, 4)));
        m.set_position(f.id(), Some(span(10, 11)));
        assert_eq!(m.position(g), Some(span(3, 4)));
        assert_eq!(m.position(f.id()), Some(span(10, 11)));
        assert!(carries_position(Op::Global) && carries_position(Op::Func));
        assert!(!takes_position(Op::Global) && !takes_declaration_position(Op::Add));
        // Types and blocks still carry none.
        m.set_position(f32t, Some(span(0, 1)));
        let entry = f.entry(&m).expect("entry");
        m.set_position(entry.id(), Some(span(0, 1)));
        assert_eq!((m.position(f32t), m.position(entry.id())), (None, None));
        // A global replacing a global takes its declaration; removal drops it.
        let h = m
            .add_global("h", crate::AddressSpace::Private, f32t, None)
            .id();
        let mut b = Builder::at_end(&mut m, entry);
        let _load = b.load(g);
        b.ret(None);
        m.replace_uses_with(g, h);
        assert_eq!(m.position(h), Some(span(3, 4)));
        m.remove(g).expect("unused now");
        assert_eq!(m.positions_len(), 2, "h and f");
    }

    #[test]
    fn refusals_about_a_declaration_point_at_it() {
        let mut sm = SourceMap::new();
        let file = sm.add("a.hlsl", "static float g;\nvoid f() {\n  g = 1;\n}\n");
        let mut m = Module::new();
        let f32t = m.f32_type();
        let g = m
            .add_global("g", crate::AddressSpace::Private, f32t, None)
            .id();
        let void = m.void_type();
        let f = m.add_func("f", void, &[]);
        let entry = f.entry(&m).expect("entry");
        let one = m.const_f32(1.0);
        let mut b = Builder::at_end(&mut m, entry);
        let st = b.store(g, one);
        b.ret(None);
        let at = |start: u32, len: u32| Span {
            file,
            start,
            end: start + len,
        };
        m.set_position(st, Some(at(29, 5)));
        // Without declarations: the first use, the first instruction.
        let d = Diagnostic::error("X", "global").or_at_use(&m, g);
        assert!(
            sm.render(&d).starts_with("a.hlsl:3:3:"),
            "{}",
            sm.render(&d)
        );
        let d = Diagnostic::error("X", "func").in_func(&m, f.id());
        assert!(
            sm.render(&d).starts_with("a.hlsl:3:3:"),
            "{}",
            sm.render(&d)
        );
        // With them: the declarations' names.
        m.set_position(g, Some(at(13, 1)));
        m.set_position(f.id(), Some(at(21, 1)));
        let d = Diagnostic::error("X", "global").or_at_use(&m, g);
        assert!(
            sm.render(&d).starts_with("a.hlsl:1:14:"),
            "{}",
            sm.render(&d)
        );
        let d = Diagnostic::error("X", "func").in_func(&m, f.id());
        assert!(
            sm.render(&d).starts_with("a.hlsl:2:6:"),
            "{}",
            sm.render(&d)
        );
        assert!(verify_positions(&m, &sm).is_empty());
        // A declaration past the end of its file is named by the check.
        m.set_position(g, Some(at(400, 1)));
        let bad = verify_positions(&m, &sm);
        assert_eq!(bad.len(), 1, "{bad:?}");
        assert!(bad[0].message.contains("global @g"), "{bad:?}");
    }

    #[test]
    fn positions_keep_their_scope_and_the_check_names_a_scope_the_table_lacks() {
        let mut sm = SourceMap::new();
        let file = sm.add("a.hlsl", "void f() { { int x = 1; } }\n");
        let mut m = Module::new();
        let i32t = m.i32_type();
        let f = m.add_func("f", i32t, &[i32t]);
        let entry = f.entry(&m).expect("entry");
        let a = f.params(&m)[0].id();
        let span = |start: u32, end: u32| Span { file, start, end };
        let block = m.add_debug_scope(crate::debug_scopes::DebugScopeData::Block {
            parent: crate::debug_scopes::DebugScope::FUNCTION,
            span: span(11, 25),
        });
        m.set_current_origin(Some(Origin {
            span: span(17, 22),
            scope: block,
        }));
        let x = Builder::at_end(&mut m, entry).add(a, a);
        m.set_current_origin(None);
        assert_eq!(m.debug_scope(x), block, "made in the current scope");
        // What is built before `x` takes its position and scope; moving a position keeps it.
        let y = {
            let mut b = Builder::new(&mut m);
            b.position_before(x);
            b.add(a, a)
        };
        assert_eq!(m.origin(y), m.origin(x));
        m.set_position(y, Some(span(13, 16)));
        assert_eq!(m.debug_scope(y), block);
        assert!(verify_positions(&m, &sm).is_empty());
        m.set_origin(
            y,
            Some(Origin {
                span: span(13, 16),
                scope: crate::debug_scopes::DebugScope(7),
            }),
        );
        let bad = verify_positions(&m, &sm);
        assert_eq!(bad.len(), 1, "{bad:?}");
        assert!(bad[0].message.contains("debug scope 7"), "{bad:?}");
    }
}
