//! Source positions of instructions, part of the IR's contract.
//!
//! Every ordinary instruction and terminator may carry a [`Span`] of the source it was made
//! from (the HLSL front end gives each the innermost expression, or the statement or
//! declaration, being lowered). The module holds them in a side table keyed by instruction,
//! so they cost nothing to instructions without one, never change what the module computes,
//! are not part of the text form, and are dropped with the instruction.
//!
//! Positions survive passes by construction rather than by each pass remembering:
//!
//! - the module has a *current position* ([`Module::set_current_position`]) that every
//!   instruction created while it is set takes; a pass that rewrites instruction `x` sets
//!   it to `x`'s position for the rewrite (and the pass manager clears it between passes);
//! - an instruction the [`crate::Builder`] inserts before another one (not a terminator)
//!   takes that one's position when no current position is set: what a pass builds before
//!   `x` is nearly always `x`'s replacement or part of it;
//! - [`Module::replace_all_uses_with`] (and so [`Module::replace_uses_with`]) gives the
//!   replacement `old`'s position when it has none of its own;
//! - the cloner of the passes crate copies each instruction's position to its copy (within
//!   one module; across modules only through a file map, since file ids are the source
//!   module's).
//!
//! [`verify_positions`] checks that every position names a file of a [`SourceMap`] and lies
//! within it.

use crate::diag::{Diagnostic, SourceMap, Span};
use crate::module::{InstId, Module};
use crate::ops::Op;

/// True for the opcodes that carry a position: ordinary instructions and terminators (not
/// types, constants, functions, blocks, parameters or decorations).
#[inline]
pub fn takes_position(op: Op) -> bool {
    op.is_instruction() || op.is_terminator()
}

impl Module {
    /// The source position of `id`, if it has one.
    #[inline]
    pub fn position(&self, id: InstId) -> Option<Span> {
        self.positions.get(&id).copied()
    }

    /// Sets (or with `None` clears) the position of `id`. Ignored for opcodes that carry no
    /// position ([`takes_position`]) and for dead ids.
    pub fn set_position(&mut self, id: InstId, pos: Option<Span>) {
        match pos {
            Some(p) if self.try_op(id).is_some_and(takes_position) => {
                self.positions.insert(id, p);
            }
            _ => {
                self.positions.remove(&id);
            }
        }
    }

    /// Gives `to` the position of `from` when `to` has none (and `from` has one).
    pub fn inherit_position(&mut self, from: InstId, to: InstId) {
        if from != to
            && !self.positions.contains_key(&to)
            && let Some(p) = self.positions.get(&from).copied()
            && self.try_op(to).is_some_and(takes_position)
        {
            self.positions.insert(to, p);
        }
    }

    /// The position every instruction created from now on takes (until changed).
    #[inline]
    pub fn current_position(&self) -> Option<Span> {
        self.current_position
    }

    /// Sets the position instructions created from now on take; returns the previous one, to
    /// restore when the rewrite it was set for is done.
    pub fn set_current_position(&mut self, pos: Option<Span>) -> Option<Span> {
        std::mem::replace(&mut self.current_position, pos)
    }

    /// Sets the current position to `id`'s (or none) for rewriting `id`; returns the previous
    /// one (see [`Module::set_current_position`]).
    pub fn position_from(&mut self, id: InstId) -> Option<Span> {
        let p = self.position(id);
        self.set_current_position(p)
    }

    /// Every instruction with a position and the position, in no particular order.
    pub fn positions(&self) -> impl Iterator<Item = (InstId, Span)> + '_ {
        self.positions.iter().map(|(&i, &s)| (i, s))
    }

    /// How many instructions carry a position.
    pub fn positions_len(&self) -> usize {
        self.positions.len()
    }

    /// Drops every position (the current one too).
    pub fn clear_positions(&mut self) {
        self.positions.clear();
        self.current_position = None;
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

    /// When the diagnostic has no position yet: the earliest source position among the
    /// instructions of function `f` (a refusal about the function as a whole points into
    /// it). Unchanged when it has one, or the function none.
    pub fn in_func(mut self, m: &Module, f: InstId) -> Diagnostic {
        if self.span.is_some() || !m.contains(f) {
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

    /// [`Diagnostic::at_inst`], and for what has no position of its own (a global: globals
    /// take none), at its first use in the source (the earliest position among its users).
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
}
