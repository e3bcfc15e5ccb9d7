//! The MSL side of the shared C-like statement walker ([`crate::text::walker`]): MSL is C++,
//! so its statements are GLSL's (C switches with fall-through, `for (;;)` loops); `discard`
//! is `discard_fragment()`, and MSL has no selection or loop hints (`[flatten]`, `[unroll]`
//! are dropped: they do not change the meaning).

use crate::text::printer::ExprText as _;
use oneshader_ir::{InstId, Op};

use super::error::{CONTROL, MslError, OPERANDS, UNMAPPED, malformed};
use super::func::FnEmitter;
use crate::text::walker::CSyntax;

impl<'m> CSyntax<'m> for FnEmitter<'_, 'm> {
    type Error = MslError;

    crate::text::walker::fn_emitter_syntax!('m);

    fn negated(&mut self, c: InstId) -> Result<String, MslError> {
        let e = self.value(c)?;
        Ok(format!("!{}", e.p()))
    }

    fn other_terminator(&mut self, t: InstId) -> Result<(), MslError> {
        match self.m.op(t) {
            Op::Discard => {
                self.line("discard_fragment();");
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

crate::text::printer::fn_emitter_text!();
