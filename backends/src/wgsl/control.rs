//! Structured statements rebuilt from the IR's constructs ([`oneshader_ir::constructs`]), as
//! the GLSL backend does, in WGSL's syntax: no state machine, no goto.
//!
//! A statement list starts at a block and follows its edges; each edge is classified by
//! [`Constructs::edge`]:
//!
//! | edge | printed as |
//! |---|---|
//! | inside (the next block) | the block's statements follow |
//! | end of an `if` arm | nothing (the arm ends) |
//! | end of a `switch` case, `break` out of a switch | `break;` |
//! | `break` out of the innermost loop | `break;`, or `flag = true; break;` from inside a switch (each enclosing switch is followed by `if (flag) { break; }`) |
//! | `continue` | the continue block's statements, then `continue;` (left out at the end of the loop body) |
//! | back edge | nothing (the `for (;;)` loops) |
//!
//! `if_else` is `if c { ... } else { ... }` followed by its merge block; `switch` is a WGSL
//! switch (always with a `default` clause; WGSL cases never fall through, and legalization
//! gave every case that fell into another a copy of it: `case_copies`, checked as OSG0007,
//! so each case is a statement list of its own); `loop` is `loop { header; body }` followed by its break
//! block. The continue block is one block ending in the back edge, so its values are used
//! only inside it and it can be printed at every `continue` (no `continuing` block is
//! needed). A `cond_br` is `if c { <exit> }` followed by the other target (the loop header's
//! test `if !c { break; }`).

use oneshader_ir::constructs::{ConstructKind, EdgeKind};
use oneshader_ir::{Block, InstId, Op};

use super::error::{CONTROL, R, WgslError, malformed};
use super::func::{Brk, FnEmitter, Region};

/// What follows an edge.
enum Flow {
    /// The statements of this block come next, in the same list.
    Next(Block),
    /// The list ends here (a jump, a return, the end of an arm or of the loop body).
    Done,
}

impl FnEmitter<'_, '_> {
    fn unstructured(&self, from: Block, to: Block) -> WgslError {
        let m = self.m;
        WgslError::new(
            CONTROL,
            format!(
                "in @{}, the edge from a block to another ({} -> {}) is not a structured exit; \
                 verify the module",
                m.name(self.f.id()).unwrap_or("?"),
                m.name(from.id()).unwrap_or("block"),
                m.name(to.id()).unwrap_or("block"),
            ),
        )
    }

    /// Prints the statement list starting at `start`.
    pub fn region(&mut self, start: Block, st: &Region) -> R<()> {
        let m = self.m;
        let mut b = start;
        loop {
            if !self.emitted.insert(b.id()) {
                return Err(WgslError::new(
                    CONTROL,
                    format!(
                        "in @{}, a block is reached twice by the statement rebuilder (an \
                         unstructured join); verify the module",
                        m.name(self.f.id()).unwrap_or("?")
                    ),
                ));
            }
            self.block_body(b)?;
            let t = b
                .terminator(m)
                .ok_or_else(|| malformed("a block without a terminator"))?;
            let flow = match m.op(t) {
                Op::Br => self.flow(b, Block::cast(m, m.operand(t, 0)), st)?,
                Op::CondBr => self.cond_br(b, t, st)?,
                Op::IfElse => self.if_else(b, t, st)?,
                Op::Switch => self.switch(t, st)?,
                Op::Loop => self.loop_(t, st)?,
                Op::Return => {
                    self.returned = true;
                    if m.num_operands(t) == 1 {
                        let v = self.value(m.operand(t, 0))?;
                        self.line(&format!("return {};", v.text));
                    } else if !st.fn_top {
                        self.line("return;");
                    }
                    Flow::Done
                }
                Op::Discard => {
                    self.line("discard;");
                    Flow::Done
                }
                Op::Unreachable => Flow::Done,
                op if op.is_terminator() => {
                    return Err(WgslError::new(
                        super::error::UNMAPPED,
                        format!("the terminator `{}` has no WGSL form", op.spelling()),
                    ));
                }
                _ => return Err(malformed("a block ends in a non-terminator")),
            };
            match flow {
                Flow::Next(n) => b = n,
                Flow::Done => return Ok(()),
            }
        }
    }

    /// The flow of a real edge `from -> to`.
    fn flow(&mut self, from: Block, to: Block, st: &Region) -> R<Flow> {
        match self.cons.edge(from, to) {
            Ok(EdgeKind::Inside) => self.inside(to, st),
            Ok(EdgeKind::Merge(k)) => {
                if self.cons.get(k).kind == ConstructKind::Switch {
                    self.line("break;");
                }
                Ok(Flow::Done)
            }
            Ok(EdgeKind::SwitchBreak(_)) => {
                self.line("break;");
                Ok(Flow::Done)
            }
            Ok(EdgeKind::Break(k)) => {
                self.break_loop(k, st)?;
                Ok(Flow::Done)
            }
            Ok(EdgeKind::Continue(k)) => {
                self.continue_loop(k, st)?;
                Ok(Flow::Done)
            }
            Ok(EdgeKind::BackEdge(_)) => Ok(Flow::Done),
            Err(_) => Err(self.unstructured(from, to)),
        }
    }

    /// Going on at `to` in the same statement list (an edge inside the constructs, or the
    /// block after a statement).
    fn inside(&mut self, to: Block, st: &Region) -> R<Flow> {
        if let Some(l) = self.cons.innermost_loop(to)
            && self.cons.get(l).cont == Some(to)
        {
            self.continue_loop(l, st)?;
            return Ok(Flow::Done);
        }
        if !self.cfg.is_reachable(to) {
            // A join only a structured terminator names (both arms left): nothing follows.
            return Ok(Flow::Done);
        }
        Ok(Flow::Next(to))
    }

    fn break_loop(&mut self, k: usize, st: &Region) -> R<()> {
        if st.breakables.last() == Some(&Brk::Loop(k)) {
            self.line("break;");
            return Ok(());
        }
        let flag = self
            .loop_flags
            .get(&k)
            .cloned()
            .filter(|f| !f.is_empty())
            .ok_or_else(|| WgslError::new(CONTROL, "a loop break from a switch without a flag"))?;
        self.line(&format!("{flag} = true;"));
        self.line("break;");
        if let Some(set) = self.flags_set.last_mut() {
            set.insert(k);
        }
        Ok(())
    }

    fn continue_loop(&mut self, k: usize, st: &Region) -> R<()> {
        let Some(c) = self.cons.get(k).cont else {
            return Err(malformed("a loop without a continue block"));
        };
        self.block_body(c)?;
        if st.loop_top != Some(k) {
            self.line("continue;");
        }
        Ok(())
    }

    /// The statements of an edge inside braces (an `if` arm that is a jump, or a whole arm).
    fn arm(&mut self, from: Block, to: Block, st: &Region) -> R<()> {
        self.indent += 1;
        let r = match self.flow(from, to, st)? {
            Flow::Next(n) => self.region(n, st),
            Flow::Done => Ok(()),
        };
        self.indent -= 1;
        r
    }

    /// True when the edge `from -> to` ends the list without a jump statement: the next
    /// block, or the end of an `if` arm.
    fn falls_on(&self, from: Block, to: Block) -> bool {
        match self.cons.edge(from, to) {
            // Not a `continue` (the continue block is printed at each one).
            Ok(EdgeKind::Inside) => self
                .cons
                .innermost_loop(to)
                .is_none_or(|l| self.cons.get(l).cont != Some(to)),
            Ok(EdgeKind::Merge(k)) => self.cons.get(k).kind == ConstructKind::Selection,
            _ => false,
        }
    }

    fn cond_br(&mut self, b: Block, t: InstId, st: &Region) -> R<Flow> {
        let m = self.m;
        let c = m.operand(t, 0);
        let yes = Block::cast(m, m.operand(t, 1));
        let no = Block::cast(m, m.operand(t, 2));
        // The jump goes into the `if`; the other target follows it.
        let (cond, jump, next) = if self.falls_on(b, yes) {
            (self.negated(c)?, no, yes)
        } else {
            (self.value(c)?.text, yes, no)
        };
        self.line(&format!("if {cond} {{"));
        let nested = st.nested();
        self.arm(b, jump, &nested)?;
        self.line("}");
        self.flow(b, next, st)
    }

    /// `!c` with the right parentheses.
    fn negated(&mut self, c: InstId) -> R<String> {
        let e = self.value(c)?;
        Ok(format!("!{}", e.p()))
    }

    /// The text `f` prints, taken out of the output.
    fn capture(&mut self, f: impl FnOnce(&mut Self) -> R<()>) -> R<String> {
        let saved = std::mem::take(&mut self.out);
        let r = f(self);
        let text = std::mem::replace(&mut self.out, saved);
        r.map(|()| text)
    }

    fn if_else(&mut self, b: Block, t: InstId, st: &Region) -> R<Flow> {
        let m = self.m;
        let c = m.operand(t, 0);
        let yes = Block::cast(m, m.operand(t, 1));
        let no = Block::cast(m, m.operand(t, 2));
        let merge = Block::cast(m, m.operand(t, 3));
        let nested = st.nested();
        // Arms are printed aside first: one that prints nothing (the merge itself, or an
        // empty block on the way to it) is left out.
        let then_text = if yes == merge {
            String::new()
        } else {
            self.capture(|e| e.arm(b, yes, &nested))?
        };
        let else_text = if no == merge {
            String::new()
        } else {
            self.capture(|e| e.arm(b, no, &nested))?
        };
        match (then_text.is_empty(), else_text.is_empty()) {
            (true, true) => {}
            (true, false) => {
                let cond = self.negated(c)?;
                self.line(&format!("if {cond} {{"));
                self.out.push_str(&else_text);
                self.line("}");
            }
            (false, else_empty) => {
                let cond = self.value(c)?;
                self.line(&format!("if {} {{", cond.text));
                self.out.push_str(&then_text);
                if !else_empty {
                    self.line("} else {");
                    self.out.push_str(&else_text);
                }
                self.line("}");
            }
        }
        self.inside(merge, st)
    }

    fn loop_(&mut self, t: InstId, st: &Region) -> R<Flow> {
        let m = self.m;
        let header = Block::cast(m, m.operand(t, 0));
        let brk = Block::cast(m, m.operand(t, 1));
        let k = self
            .cons
            .index_of_term(t)
            .ok_or_else(|| malformed("a loop the structured analysis does not know"))?;
        if let Some(flag) = self.loop_flags.get(&k).cloned() {
            self.line(&format!("var {flag}: bool = false;"));
        }
        // WGSL has no loop hints: `[unroll]`/`[loop]` are dropped (they do not change the
        // meaning).
        self.line("loop {");
        let mut body = st.nested();
        body.breakables.push(Brk::Loop(k));
        body.loop_top = Some(k);
        self.indent += 1;
        let r = self.region(header, &body);
        self.indent -= 1;
        r?;
        self.line("}");
        self.inside(brk, st)
    }

    fn switch(&mut self, t: InstId, st: &Region) -> R<Flow> {
        let m = self.m;
        let k = self
            .cons
            .index_of_term(t)
            .ok_or_else(|| malformed("a switch the structured analysis does not know"))?;
        let sel = m.operand(t, 0);
        let merge = Block::cast(m, m.operand(t, 1));
        let default = Block::cast(m, m.operand(t, 2));
        let sel_ty = m.ty(sel).ok_or_else(|| malformed("an untyped selector"))?;
        let signed = m.op(sel_ty) == Op::I32;
        if !matches!(m.op(sel_ty), Op::I32 | Op::U32) {
            return Err(WgslError::new(
                super::error::TYPE,
                "a `switch` on a selector that is not i32 or u32",
            ));
        }
        let bits = 32;
        let sel_text = self.value(sel)?.text;
        // Case groups by target, ordered by the structural reverse post-order.
        let mut groups: Vec<(Block, Vec<String>, bool)> = Vec::new();
        let mut add = |target: Block, label: Option<String>| {
            let i = match groups.iter().position(|g| g.0 == target) {
                Some(i) => i,
                None => {
                    groups.push((target, Vec::new(), false));
                    groups.len() - 1
                }
            };
            let g = &mut groups[i];
            match label {
                Some(l) => g.1.push(l),
                None => g.2 = true,
            }
        };
        let n = m.num_operands(t);
        let mut i = 3;
        while i + 1 < n {
            let v = m.operand(t, i);
            let raw = m.literal_bits(v).unwrap_or(0);
            let label = if signed {
                let s = oneshader_ir::types::sign_extend(raw, bits) as i32;
                if s == i32::MIN {
                    "i32(-2147483647 - 1)".to_string()
                } else {
                    format!("{s}i")
                }
            } else {
                format!("{}u", oneshader_ir::types::truncate(raw, bits) as u32)
            };
            add(Block::cast(m, m.operand(t, i + 1)), Some(label));
            i += 2;
        }
        // WGSL switches always have a default clause.
        add(default, None);
        let scfg = self.cons.cfg();
        groups.sort_by_key(|g| scfg.rpo_number(g.0).unwrap_or(usize::MAX));
        if groups.is_empty() {
            return self.inside(merge, st);
        }
        self.line(&format!("switch {sel_text} {{"));
        let mut case_st = st.nested();
        case_st.breakables.push(Brk::Switch(k));
        self.flags_set.push(Default::default());
        for (target, labels, is_default) in &groups {
            let target = *target;
            let mut sel: Vec<String> = labels.clone();
            if *is_default {
                sel.push("default".into());
            }
            self.line(&format!("case {} {{", sel.join(", ")));
            if target != merge {
                self.indent += 1;
                let r = self.region(target, &case_st);
                self.indent -= 1;
                r?;
            }
            self.line("}");
        }
        self.line("}");
        let set = self.flags_set.pop().unwrap_or_default();
        let mut loops: Vec<usize> = set.into_iter().collect();
        loops.sort_unstable();
        for l in loops {
            let flag = self.loop_flags.get(&l).cloned().unwrap_or_default();
            self.line(&format!("if {flag} {{"));
            self.indent += 1;
            self.break_loop(l, st)?;
            self.indent -= 1;
            self.line("}");
        }
        self.inside(merge, st)
    }
}
