//! Structured statements rebuilt from the IR's constructs ([`oneshader_ir::constructs`]), for
//! the GLSL, MSL and WGSL backends: no state machine, no goto. A backend's function printer
//! implements the small [`CSyntax`] trait (its output, its values, its hints, its own
//! terminators such as `discard`, and the spellings of the statement heads, with C's as the
//! defaults) and gets the walk from [`StatementWalker`]. GLSL and MSL are C-like (C switches
//! with fall-through, `for (;;)` loops); WGSL overrides the spellings (`if c {`, `loop {`)
//! and states that it lacks fall-through ([`CSyntax::FALLS_THROUGH`]): its switches always
//! have a `default` clause, cases are `case a, b, default { ... }`, and no case falls into
//! another (legalization gave every case that fell into another a copy of it: `case_copies`,
//! checked as OSG0007).
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
//! `if_else` is `if (c) { ... } else { ... }` followed by its merge block; `switch` is a C
//! switch whose case groups are ordered by the structural reverse post-order (so a case
//! falling through precedes its target, which is checked: a fall-through to a case that
//! cannot follow is refused), each case in braces; `loop` is `for (;;) { header; body }`
//! followed by its break block. The continue block is one block ending in the back edge, so
//! its values are used only inside it and it can be printed at every `continue` (WGSL needs
//! no `continuing` block). A `cond_br` is `if (c) { <exit> }` followed by the other target
//! (the loop header's test `if (!c) { break; }`, a do-while's `if (!c) { break; }` before the
//! continue part).

use oneshader_ir::cfg::Cfg;
use oneshader_ir::constructs::{ConstructKind, Constructs, EdgeKind};
use oneshader_ir::{Block, Func, InstId, Module, Op};
use rustc_hash::{FxHashMap, FxHashSet};

use super::{Brk, Region};

/// What the walker keeps for one function, held by each C-like backend's function printer
/// (so the [`CSyntax`] accessors are provided once, here).
pub(crate) struct WalkState {
    /// The function's structured constructs.
    pub cons: Constructs,
    /// Its control-flow graph.
    pub cfg: Cfg,
    /// Loops needing a break flag (a `break` out of them from inside a `switch`), and the
    /// flag's name once declared (empty before).
    pub loop_flags: FxHashMap<usize, String>,
    /// The loops whose flag each enclosing switch set, innermost last.
    pub flags_set: Vec<FxHashSet<usize>>,
    /// Case targets of each switch construct.
    pub case_targets: FxHashMap<usize, Vec<Block>>,
    /// The blocks printed so far.
    pub emitted: FxHashSet<InstId>,
    /// True once the function printed a `return`.
    pub returned: bool,
    /// The text printed so far.
    pub out: String,
    /// The indentation depth.
    pub indent: usize,
}

impl WalkState {
    /// The state before printing the body of `f` (indented one level).
    pub fn new(m: &Module, f: Func) -> WalkState {
        WalkState {
            cons: Constructs::new(m, f),
            cfg: Cfg::new(m, f),
            loop_flags: FxHashMap::default(),
            flags_set: Vec::new(),
            case_targets: FxHashMap::default(),
            emitted: FxHashSet::default(),
            returned: false,
            out: String::new(),
            indent: 1,
        }
    }
}

impl WalkState {
    /// Prints one line at the current indentation, formatted straight into the output (a
    /// printer holding other fields borrowed calls this on its `walk` field).
    pub fn line(&mut self, a: std::fmt::Arguments<'_>) {
        use std::fmt::Write as _;
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        // Writing into a `String` cannot fail.
        let _ = self.out.write_fmt(a);
        self.out.push('\n');
    }
}

/// How a statement list ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ending {
    /// Control falls into another case of the switch (its target block).
    Fell(Block),
    /// Control left (a jump, a return, the end of an arm or of the loop body).
    Left,
}

/// What follows an edge.
pub(crate) enum Flow {
    /// The statements of this block come next, in the same list.
    Next(Block),
    /// The list ends here.
    Done(Ending),
}

/// What a C-like backend's function printer gives the walker: its state, its output, its
/// values and what differs between targets.
pub(crate) trait CSyntax<'m> {
    /// The backend's error.
    type Error;

    /// The module.
    fn module(&self) -> &'m Module;

    /// Before the statement a terminator prints (`return`, `if`, `switch`): the source line
    /// mark of `i` under `-Zi` ([`crate::text::printer::FnText::before_line`]); nothing by
    /// default.
    fn mark_line(&mut self, _i: InstId) {}
    /// The function being printed.
    fn func(&self) -> Func;
    /// The walker's state of the function.
    fn walk(&self) -> &WalkState;
    /// The walker's state, to change.
    fn walk_mut(&mut self) -> &mut WalkState;
    /// Its structured constructs.
    fn constructs(&self) -> &Constructs {
        &self.walk().cons
    }
    /// Its control-flow graph.
    fn cfg(&self) -> &Cfg {
        &self.walk().cfg
    }
    /// The text printed so far.
    fn out(&mut self) -> &mut String {
        &mut self.walk_mut().out
    }
    /// The indentation depth.
    fn indent(&mut self) -> &mut usize {
        &mut self.walk_mut().indent
    }
    /// The blocks printed so far.
    fn emitted(&mut self) -> &mut FxHashSet<InstId> {
        &mut self.walk_mut().emitted
    }
    /// Records that the function printed a `return`.
    fn set_returned(&mut self) {
        self.walk_mut().returned = true;
    }
    /// The flag of loop `k` breaking out of a switch (empty or `None` when it has none).
    fn loop_flag(&self, k: usize) -> Option<String> {
        self.walk().loop_flags.get(&k).cloned()
    }
    /// The loops whose flag each enclosing switch set, innermost last.
    fn flags_set(&mut self) -> &mut Vec<FxHashSet<usize>> {
        &mut self.walk_mut().flags_set
    }
    /// The case targets of switch construct `k`.
    fn case_targets(&self, k: usize) -> Option<&Vec<Block>> {
        self.walk().case_targets.get(&k)
    }
    /// Prints one line at the current indentation (four spaces a level).
    fn line(&mut self, s: &str) {
        let w = self.walk_mut();
        for _ in 0..w.indent {
            w.out.push_str("    ");
        }
        w.out.push_str(s);
        w.out.push('\n');
    }
    /// Prints one line, formatted straight into the output (no `String` of its own).
    fn line_fmt(&mut self, a: std::fmt::Arguments<'_>) {
        self.walk_mut().line(a)
    }
    /// Prints the instructions of `b` (not its terminator).
    fn block_body(&mut self, b: Block) -> Result<(), Self::Error>;
    /// The expression text of value `v`.
    fn value_text(&mut self, v: InstId) -> Result<String, Self::Error>;
    /// `!c` with the parentheses the target's precedence needs.
    fn negated(&mut self, c: InstId) -> Result<String, Self::Error>;
    /// The selection hint printed before `if`/`switch` of terminator `t` (`""` for none, the
    /// default: hints do not change the meaning).
    fn selection_hint(&mut self, _t: InstId) -> &'static str {
        ""
    }
    /// The loop hint printed before `for (;;)` of the `loop` terminator `t` (`""`, the
    /// default, for none).
    fn loop_hint(&mut self, _t: InstId) -> &'static str {
        ""
    }
    /// Prints a terminator other than `br`, `cond_br`, `if_else`, `switch`, `loop`,
    /// `return` and `unreachable` (`discard`, the ray-tracing and mesh ones), which leaves
    /// the list, or refuses it.
    fn other_terminator(&mut self, t: InstId) -> Result<(), Self::Error>;
    /// A control-flow error (the backend's code for unstructured control).
    fn control_error(&self, msg: String) -> Self::Error;
    /// A malformed-module error.
    fn malformed(&self, msg: &str) -> Self::Error;
    /// The refusal of a switch on a 64-bit selector.
    fn wide_selector(&self) -> Self::Error;

    /// Whether a switch case can fall into the next one (C's `switch`). A language without
    /// fall-through (WGSL) prints each case group as `case a, b, default { ... }`, always
    /// with a `default` clause, and never reaches a fall-through (legalization copied the
    /// cases that had one).
    const FALLS_THROUGH: bool = true;

    /// Prints what follows a loop that never exits (its break block is unreachable) at the
    /// end of a statement list: nothing in C; a language whose validator wants every path of
    /// a function with a result to end in a `return` (naga does not look into loops) prints
    /// one here.
    fn after_endless_loop(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }

    /// The head of an `if` with condition `cond`, after the selection hint `hint`.
    fn if_head(&self, hint: &str, cond: &str) -> String {
        format!("{hint}if ({cond}) {{")
    }

    /// The head of a loop, after the loop hint `hint`.
    fn loop_head(&self, hint: &str) -> String {
        format!("{hint}for (;;) {{")
    }

    /// The declaration of the break flag `flag` of a loop, before the loop.
    fn flag_decl(&self, flag: &str) -> String {
        format!("bool {flag} = false;")
    }

    /// The selector text of a switch on `sel` with its signedness and width (at most 32:
    /// a 64-bit selector is [`CSyntax::wide_selector`]); C widens a narrower one to `int` or
    /// `uint`.
    fn selector(&mut self, sel: InstId) -> Result<(String, bool, u32), Self::Error> {
        let m = self.module();
        let sel_ty = m
            .ty(sel)
            .ok_or_else(|| self.malformed("an untyped selector"))?;
        let bits = m.scalar_bits(sel_ty).unwrap_or(32);
        if bits == 64 {
            return Err(self.wide_selector());
        }
        let signed = m.op(sel_ty).is_signed_int_type();
        let sel_e = self.value_text(sel)?;
        let text = if bits < 32 {
            format!("{}({sel_e})", if signed { "int" } else { "uint" })
        } else {
            sel_e
        };
        Ok((text, signed, bits))
    }

    /// The label of a case with value `v` (already sign-extended or truncated to the
    /// selector's width) of a selector that is `signed`.
    fn case_label(&self, signed: bool, v: u64) -> String {
        if signed {
            let s = v as i32;
            if s == i32::MIN {
                "(-2147483647 - 1)".to_string()
            } else {
                s.to_string()
            }
        } else {
            format!("{}u", v as u32)
        }
    }
}

/// The [`CSyntax`] accessors every text backend's `FnEmitter` gives alike (from its fields `m`,
/// `f` and `walk`, its own `value`, and [`crate::text::printer::FnText::print_block`]), written once: invoked with the
/// module's lifetime inside each `impl CSyntax for FnEmitter`.
macro_rules! fn_emitter_syntax {
    ($m:lifetime) => {
        fn module(&self) -> &$m oneshader_ir::Module {
            self.m
        }

        fn func(&self) -> oneshader_ir::Func {
            self.f
        }

        fn walk(&self) -> &$crate::text::walker::WalkState {
            &self.walk
        }

        fn walk_mut(&mut self) -> &mut $crate::text::walker::WalkState {
            &mut self.walk
        }

        fn block_body(&mut self, b: oneshader_ir::Block) -> Result<(), Self::Error> {
            $crate::text::printer::FnText::print_block(self, b)
        }

        fn mark_line(&mut self, i: oneshader_ir::InstId) {
            $crate::text::printer::FnText::before_line(self, i)
        }

        fn value_text(&mut self, v: oneshader_ir::InstId) -> Result<String, Self::Error> {
            Ok(self.value(v)?.text)
        }
    };
}
pub(crate) use fn_emitter_syntax;

/// The statement walker: provided for every [`CSyntax`].
pub(crate) trait StatementWalker<'m>: CSyntax<'m> + Sized {
    /// Prints the statement list starting at `start`.
    fn region(&mut self, start: Block, st: &Region) -> Result<Ending, Self::Error> {
        let mut b = start;
        loop {
            if !self.emitted().insert(b.id()) {
                let m = self.module();
                let msg = format!(
                    "in @{}, a block is reached twice by the statement rebuilder (an \
                     unstructured join); verify the module",
                    m.name(self.func().id()).unwrap_or("?")
                );
                return Err(self.control_error(msg));
            }
            self.block_body(b)?;
            let m = self.module();
            let t = b
                .terminator(m)
                .ok_or_else(|| self.malformed("a block without a terminator"))?;
            if matches!(m.op(t), Op::Return | Op::CondBr | Op::IfElse | Op::Switch) {
                self.mark_line(t);
            }
            let flow = match m.op(t) {
                Op::Br => {
                    let to = Block::cast(m, m.operand(t, 0));
                    self.flow(b, to, st)?
                }
                Op::CondBr => self.cond_br(b, t, st)?,
                Op::IfElse => self.if_else(b, t, st)?,
                Op::Switch => self.switch(t, st)?,
                Op::Loop => self.loop_(t, st)?,
                Op::Return => {
                    self.set_returned();
                    if m.num_operands(t) == 1 {
                        let v = self.value_text(m.operand(t, 0))?;
                        self.line_fmt(format_args!("return {v};"));
                    } else if !st.fn_top {
                        self.line("return;");
                    }
                    Flow::Done(Ending::Left)
                }
                Op::Unreachable => Flow::Done(Ending::Left),
                _ => {
                    self.other_terminator(t)?;
                    Flow::Done(Ending::Left)
                }
            };
            match flow {
                Flow::Next(n) => b = n,
                Flow::Done(e) => return Ok(e),
            }
        }
    }

    /// The error of an edge that is no structured exit.
    fn unstructured(&self, from: Block, to: Block) -> Self::Error {
        let m = self.module();
        self.control_error(format!(
            "in @{}, the edge from a block to another ({} -> {}) is not a structured exit; \
             verify the module",
            m.name(self.func().id()).unwrap_or("?"),
            m.name(from.id()).unwrap_or("block"),
            m.name(to.id()).unwrap_or("block"),
        ))
    }

    /// The flow of a real edge `from -> to`.
    fn flow(&mut self, from: Block, to: Block, st: &Region) -> Result<Flow, Self::Error> {
        let edge = self.constructs().edge(from, to);
        match edge {
            Ok(EdgeKind::Inside) => self.inside(to, st),
            Ok(EdgeKind::Merge(k)) => {
                if self.constructs().get(k).kind == ConstructKind::Switch {
                    self.line("break;");
                }
                Ok(Flow::Done(Ending::Left))
            }
            Ok(EdgeKind::SwitchBreak(_)) => {
                self.line("break;");
                Ok(Flow::Done(Ending::Left))
            }
            Ok(EdgeKind::Break(k)) => {
                self.break_loop(k, st)?;
                Ok(Flow::Done(Ending::Left))
            }
            Ok(EdgeKind::Continue(k)) => {
                self.continue_loop(k, st)?;
                Ok(Flow::Done(Ending::Left))
            }
            Ok(EdgeKind::BackEdge(_)) => Ok(Flow::Done(Ending::Left)),
            Err(_) => Err(self.unstructured(from, to)),
        }
    }

    /// Going on at `to` in the same statement list (an edge inside the constructs, or the
    /// block after a statement).
    fn inside(&mut self, to: Block, st: &Region) -> Result<Flow, Self::Error> {
        let cons = self.constructs();
        if let Some(l) = cons.innermost_loop(to)
            && cons.get(l).cont == Some(to)
        {
            self.continue_loop(l, st)?;
            return Ok(Flow::Done(Ending::Left));
        }
        if let Some(k) = st.case_top
            && self.case_targets(k).is_some_and(|t| t.contains(&to))
        {
            return Ok(Flow::Done(Ending::Fell(to)));
        }
        if !self.cfg().is_reachable(to) {
            // A join only a structured terminator names (both arms left): nothing follows.
            return Ok(Flow::Done(Ending::Left));
        }
        Ok(Flow::Next(to))
    }

    /// A `break` out of loop `k` (through its flag from inside a switch).
    fn break_loop(&mut self, k: usize, st: &Region) -> Result<(), Self::Error> {
        if st.breakables.last() == Some(&Brk::Loop(k)) {
            self.line("break;");
            return Ok(());
        }
        let flag = self.loop_flag(k).filter(|f| !f.is_empty()).ok_or_else(|| {
            self.control_error("a loop break from a switch without a flag".into())
        })?;
        self.line_fmt(format_args!("{flag} = true;"));
        self.line("break;");
        if let Some(set) = self.flags_set().last_mut() {
            set.insert(k);
        }
        Ok(())
    }

    /// A `continue` of loop `k`: its continue block, then `continue;` unless at the end of
    /// the loop body.
    fn continue_loop(&mut self, k: usize, st: &Region) -> Result<(), Self::Error> {
        let Some(c) = self.constructs().get(k).cont else {
            return Err(self.malformed("a loop without a continue block"));
        };
        self.block_body(c)?;
        if st.loop_top != Some(k) {
            self.line("continue;");
        }
        Ok(())
    }

    /// The statements of an edge inside braces (an `if` arm that is a jump, or a whole arm).
    fn arm(&mut self, from: Block, to: Block, st: &Region) -> Result<(), Self::Error> {
        *self.indent() += 1;
        let r = match self.flow(from, to, st) {
            Ok(Flow::Next(n)) => self.region(n, st).map(|_| ()),
            Ok(Flow::Done(_)) => Ok(()),
            Err(e) => Err(e),
        };
        *self.indent() -= 1;
        r
    }

    /// True when the edge `from -> to` ends the list without a jump statement: the next
    /// block, or the end of an `if` arm.
    fn falls_on(&self, from: Block, to: Block, st: &Region) -> bool {
        let cons = self.constructs();
        match cons.edge(from, to) {
            Ok(EdgeKind::Inside) => {
                let is_cont = cons
                    .innermost_loop(to)
                    .is_some_and(|l| cons.get(l).cont == Some(to));
                let is_case = st
                    .case_top
                    .and_then(|k| self.case_targets(k))
                    .is_some_and(|t| t.contains(&to));
                !is_cont && !is_case
            }
            Ok(EdgeKind::Merge(k)) => cons.get(k).kind == ConstructKind::Selection,
            _ => false,
        }
    }

    /// `cond_br`: `if (c) { <jump> }`, then the other target.
    fn cond_br(&mut self, b: Block, t: InstId, st: &Region) -> Result<Flow, Self::Error> {
        let m = self.module();
        let c = m.operand(t, 0);
        let yes = Block::cast(m, m.operand(t, 1));
        let no = Block::cast(m, m.operand(t, 2));
        // The jump goes into the `if`; the other target follows it.
        let (cond, jump, next) = if self.falls_on(b, yes, st) {
            (self.negated(c)?, no, yes)
        } else {
            (self.value_text(c)?, yes, no)
        };
        let head = self.if_head("", &cond);
        self.line(&head);
        let nested = st.nested();
        self.arm(b, jump, &nested)?;
        self.line("}");
        self.flow(b, next, st)
    }

    /// The text `f` prints, taken out of the output.
    fn capture(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<(), Self::Error>,
    ) -> Result<String, Self::Error> {
        let saved = std::mem::take(self.out());
        let r = f(self);
        let text = std::mem::replace(self.out(), saved);
        r.map(|()| text)
    }

    /// `if_else`: `if (c) { ... } else { ... }` (an empty arm left out), then the merge.
    fn if_else(&mut self, b: Block, t: InstId, st: &Region) -> Result<Flow, Self::Error> {
        let m = self.module();
        let c = m.operand(t, 0);
        let yes = Block::cast(m, m.operand(t, 1));
        let no = Block::cast(m, m.operand(t, 2));
        let merge = Block::cast(m, m.operand(t, 3));
        let nested = st.nested();
        let hint = self.selection_hint(t);
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
                let head = self.if_head(hint, &cond);
                self.line(&head);
                self.out().push_str(&else_text);
                self.line("}");
            }
            (false, else_empty) => {
                let cond = self.value_text(c)?;
                let head = self.if_head(hint, &cond);
                self.line(&head);
                self.out().push_str(&then_text);
                if !else_empty {
                    self.line("} else {");
                    self.out().push_str(&else_text);
                }
                self.line("}");
            }
        }
        self.inside(merge, st)
    }

    /// `loop`: `for (;;) { header; body }`, then the break block.
    fn loop_(&mut self, t: InstId, st: &Region) -> Result<Flow, Self::Error> {
        let m = self.module();
        let header = Block::cast(m, m.operand(t, 0));
        let brk = Block::cast(m, m.operand(t, 1));
        let k = self
            .constructs()
            .index_of_term(t)
            .ok_or_else(|| self.malformed("a loop the structured analysis does not know"))?;
        if let Some(flag) = self.loop_flag(k) {
            let decl = self.flag_decl(&flag);
            self.line(&decl);
        }
        let hint = self.loop_hint(t);
        let head = self.loop_head(hint);
        self.line(&head);
        let mut body = st.nested();
        body.breakables.push(Brk::Loop(k));
        body.loop_top = Some(k);
        *self.indent() += 1;
        let r = self.region(header, &body);
        *self.indent() -= 1;
        r?;
        self.line("}");
        if !self.cfg().is_reachable(brk) {
            self.after_endless_loop()?;
        }
        self.inside(brk, st)
    }

    /// `switch`: a C switch of case groups in structural reverse post-order, each in braces,
    /// then the merge; a loop break from a case goes through the loop's flag.
    fn switch(&mut self, t: InstId, st: &Region) -> Result<Flow, Self::Error> {
        let m = self.module();
        let k = self
            .constructs()
            .index_of_term(t)
            .ok_or_else(|| self.malformed("a switch the structured analysis does not know"))?;
        let sel = m.operand(t, 0);
        let merge = Block::cast(m, m.operand(t, 1));
        let default = Block::cast(m, m.operand(t, 2));
        let (sel_text, signed, bits) = self.selector(sel)?;
        let m = self.module();
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
            match label {
                Some(l) => groups[i].1.push(l),
                None => groups[i].2 = true,
            }
        };
        let n = m.num_operands(t);
        let mut i = 3;
        while i + 1 < n {
            let v = m.operand(t, i);
            let raw = m.literal_bits(v).unwrap_or(0);
            let v = if signed {
                oneshader_ir::types::sign_extend(raw, bits) as u64
            } else {
                oneshader_ir::types::truncate(raw, bits)
            };
            let label = self.case_label(signed, v);
            add(Block::cast(m, m.operand(t, i + 1)), Some(label));
            i += 2;
        }
        if default != merge || !Self::FALLS_THROUGH {
            add(default, None);
        }
        let scfg = self.constructs().cfg();
        groups.sort_by_key(|g| scfg.rpo_number(g.0).unwrap_or(usize::MAX));
        if !Self::FALLS_THROUGH {
            return self.case_blocks(k, &sel_text, merge, &groups, st);
        }
        let groups = fall_through_order(self.constructs(), k, merge, groups);
        if groups.is_empty() {
            return self.inside(merge, st);
        }
        let hint = self.selection_hint(t);
        self.line_fmt(format_args!("{hint}switch ({sel_text}) {{"));
        let mut case_st = st.nested();
        case_st.breakables.push(Brk::Switch(k));
        case_st.case_top = Some(k);
        self.flags_set().push(Default::default());
        for gi in 0..groups.len() {
            let (target, labels, is_default) = groups[gi].clone();
            for l in &labels {
                self.line_fmt(format_args!("case {l}:"));
            }
            if is_default {
                self.line("default:");
            }
            *self.indent() += 1;
            if target == merge {
                self.line("break;");
            } else {
                self.line("{");
                *self.indent() += 1;
                let ending = self.region(target, &case_st);
                *self.indent() -= 1;
                let ending = match ending {
                    Ok(e) => e,
                    Err(e) => {
                        *self.indent() -= 1;
                        return Err(e);
                    }
                };
                self.line("}");
                if let Ending::Fell(x) = ending
                    && groups.get(gi + 1).map(|g| g.0) != Some(x)
                {
                    *self.indent() -= 1;
                    return Err(self.control_error(
                        "a switch case falls through to a case that cannot be printed right \
                         after it"
                            .into(),
                    ));
                }
            }
            *self.indent() -= 1;
        }
        self.line("}");
        self.after_switch(merge, st)
    }

    /// The switch of a language without fall-through: `switch sel { case a, b { ... } case
    /// c, default { ... } }`, case groups in structural reverse post-order, then the merge.
    fn case_blocks(
        &mut self,
        k: usize,
        sel_text: &str,
        merge: Block,
        groups: &[(Block, Vec<String>, bool)],
        st: &Region,
    ) -> Result<Flow, Self::Error> {
        if groups.is_empty() {
            return self.inside(merge, st);
        }
        self.line_fmt(format_args!("switch {sel_text} {{"));
        let mut case_st = st.nested();
        case_st.breakables.push(Brk::Switch(k));
        self.flags_set().push(Default::default());
        for (target, labels, is_default) in groups {
            let mut sel: Vec<&str> = labels.iter().map(String::as_str).collect();
            if *is_default {
                sel.push("default");
            }
            self.line_fmt(format_args!("case {} {{", sel.join(", ")));
            if *target != merge {
                *self.indent() += 1;
                let r = self.region(*target, &case_st);
                *self.indent() -= 1;
                r?;
            }
            self.line("}");
        }
        self.line("}");
        self.after_switch(merge, st)
    }

    /// After a switch's closing brace: the breaks of the loops whose flag a case set (`if
    /// (flag) { break; }`), then the merge.
    fn after_switch(&mut self, merge: Block, st: &Region) -> Result<Flow, Self::Error> {
        let set = self.flags_set().pop().unwrap_or_default();
        let mut loops: Vec<usize> = set.into_iter().collect();
        loops.sort_unstable();
        for l in loops {
            let flag = self.loop_flag(l).unwrap_or_default();
            let head = self.if_head("", &flag);
            self.line(&head);
            *self.indent() += 1;
            self.break_loop(l, st)?;
            *self.indent() -= 1;
            self.line("}");
        }
        self.inside(merge, st)
    }
}

impl<'m, T: CSyntax<'m>> StatementWalker<'m> for T {}

/// The case groups of switch `k` (target, labels, whether it is `default`), given in
/// structural reverse post-order, reordered so that a case that falls through to another
/// (a path from its target reaches the other's target without leaving the switch or reaching
/// its `merge`) is printed right before it, as C's fall-through needs: `case 1: ...
/// default: ...` where the default comes later in the order than another case. Groups no case
/// falls into keep their order; each is followed by the chain of cases it falls through to.
fn fall_through_order(
    cons: &Constructs,
    k: usize,
    merge: Block,
    groups: Vec<(Block, Vec<String>, bool)>,
) -> Vec<(Block, Vec<String>, bool)> {
    let cfg = cons.cfg();
    let inside = |b: Block| {
        cons.innermost(b)
            .is_some_and(|i| i == k || cons.encloses(k, i))
    };
    let targets: Vec<Block> = groups.iter().map(|g| g.0).collect();
    let mut falls_to: Vec<Option<usize>> = vec![None; groups.len()];
    for (gi, &t) in targets.iter().enumerate() {
        if t == merge {
            continue;
        }
        let mut seen = vec![t];
        let mut stack = vec![t];
        while let Some(b) = stack.pop() {
            for s in cfg.succs(b) {
                if s == merge {
                    continue;
                }
                if let Some(j) = targets.iter().position(|&x| x == s) {
                    if j != gi {
                        falls_to[gi] = Some(j);
                    }
                    continue;
                }
                if inside(s) && !seen.contains(&s) {
                    seen.push(s);
                    stack.push(s);
                }
            }
        }
    }
    let mut fallen_into = vec![false; groups.len()];
    for j in falls_to.iter().flatten() {
        fallen_into[*j] = true;
    }
    let mut order: Vec<usize> = Vec::with_capacity(groups.len());
    let mut placed = vec![false; groups.len()];
    for head in 0..groups.len() {
        if placed[head] || fallen_into[head] {
            continue;
        }
        let mut g = head;
        loop {
            placed[g] = true;
            order.push(g);
            match falls_to[g] {
                Some(next) if !placed[next] => g = next,
                _ => break,
            }
        }
    }
    // Cases only reached by fall-through from a case already placed elsewhere (or a cycle,
    // which structured control flow does not have) keep their place in the order; the walker
    // refuses a fall-through that cannot be printed.
    for (g, &p) in placed.iter().enumerate() {
        if !p {
            order.push(g);
        }
    }
    let mut groups: Vec<Option<(Block, Vec<String>, bool)>> =
        groups.into_iter().map(Some).collect();
    order.into_iter().filter_map(|g| groups[g].take()).collect()
}
