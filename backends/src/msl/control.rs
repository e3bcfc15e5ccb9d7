//! The MSL side of the shared C-like statement walker ([`crate::text::walker`]): MSL is C++,
//! so its statements are GLSL's (C switches with fall-through, `for (;;)` loops); `discard`
//! is `discard_fragment()`, and MSL has no selection or loop hints (`[flatten]`, `[unroll]`
//! are dropped: they do not change the meaning).

use oneshader_ir::{Block, Func, InstId, Module, Op};

use super::error::{CONTROL, MslError, OPERANDS, UNMAPPED, malformed};
use super::func::FnEmitter;
use crate::text::walker::{CSyntax, WalkState};

impl<'m> CSyntax<'m> for FnEmitter<'_, 'm> {
    type Error = MslError;

    fn module(&self) -> &'m Module {
        self.m
    }

    fn func(&self) -> Func {
        self.f
    }

    fn walk(&self) -> &WalkState {
        &self.walk
    }

    fn walk_mut(&mut self) -> &mut WalkState {
        &mut self.walk
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
