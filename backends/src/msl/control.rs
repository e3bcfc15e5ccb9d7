//! The MSL side of the shared C-like statement walker ([`crate::text::walker`]): MSL is C++,
//! so its statements are GLSL's (C switches with fall-through, `for (;;)` loops); `discard`
//! is `discard_fragment()`, and MSL has no selection or loop hints (`[flatten]`, `[unroll]`
//! are dropped: they do not change the meaning).

use oneshader_ir::cfg::Cfg;
use oneshader_ir::constructs::Constructs;
use oneshader_ir::{Block, Func, InstId, Module, Op};
use rustc_hash::FxHashSet;

use super::error::{CONTROL, MslError, OPERANDS, UNMAPPED, malformed};
use super::func::FnEmitter;
use crate::text::walker::CSyntax;

impl<'m> CSyntax<'m> for FnEmitter<'_, 'm> {
    type Error = MslError;

    fn module(&self) -> &'m Module {
        self.m
    }

    fn func(&self) -> Func {
        self.f
    }

    fn constructs(&self) -> &Constructs {
        &self.cons
    }

    fn cfg(&self) -> &Cfg {
        &self.cfg
    }

    fn out(&mut self) -> &mut String {
        &mut self.out
    }

    fn indent(&mut self) -> &mut usize {
        &mut self.indent
    }

    fn emitted(&mut self) -> &mut FxHashSet<InstId> {
        &mut self.emitted
    }

    fn set_returned(&mut self) {
        self.returned = true;
    }

    fn loop_flag(&self, k: usize) -> Option<String> {
        self.loop_flags.get(&k).cloned()
    }

    fn flags_set(&mut self) -> &mut Vec<FxHashSet<usize>> {
        &mut self.flags_set
    }

    fn case_targets(&self, k: usize) -> Option<&Vec<Block>> {
        self.case_targets.get(&k)
    }

    fn line(&mut self, s: &str) {
        FnEmitter::line(self, s);
    }

    fn block_body(&mut self, b: Block) -> Result<(), MslError> {
        FnEmitter::block_body(self, b)
    }

    fn value_text(&mut self, v: InstId) -> Result<String, MslError> {
        Ok(self.value(v)?.text)
    }

    fn negated(&mut self, c: InstId) -> Result<String, MslError> {
        let e = self.value(c)?;
        Ok(format!("!{}", e.p()))
    }

    fn selection_hint(&mut self, _t: InstId) -> &'static str {
        ""
    }

    fn loop_hint(&mut self, _t: InstId) -> &'static str {
        ""
    }

    fn other_terminator(&mut self, t: InstId) -> Result<(), MslError> {
        match self.m.op(t) {
            Op::Discard => {
                FnEmitter::line(self, "discard_fragment();");
                Ok(())
            }
            op if op.is_terminator() => Err(MslError::new(
                UNMAPPED,
                format!(
                    "the terminator `{}` has no MSL form in this backend",
                    op.spelling()
                ),
            )),
            _ => Err(malformed("a block ends in a non-terminator")),
        }
    }

    fn control_error(&self, msg: String) -> MslError {
        MslError::new(CONTROL, msg)
    }

    fn malformed(&self, msg: &str) -> MslError {
        malformed(msg)
    }

    fn wide_selector(&self) -> MslError {
        MslError::new(
            OPERANDS,
            "a `switch` on a 64-bit selector; the MSL backend switches on `int` or `uint`",
        )
    }
}
