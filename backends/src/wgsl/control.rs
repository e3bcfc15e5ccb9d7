//! The WGSL side of the shared statement walker ([`crate::text::walker`]): WGSL's spellings
//! of the statement heads (`if c {`, `loop {`, `var flag: bool = false;`), its lack of
//! fall-through ([`CSyntax::FALLS_THROUGH`]: every switch has a `default` clause and each
//! case is a statement list of its own, legalization having given every case that fell into
//! another a copy of it: `case_copies`, checked as OSG0007), its `i32`/`u32`-only selectors
//! and `1i`/`1u` case labels, `discard;`, and a `return` after a loop that never exits.
//! WGSL has no selection or loop hints (`[flatten]`, `[unroll]` are dropped: they do not
//! change the meaning).

use crate::text::printer::ExprText as _;
use oneshader_ir::{InstId, Op};

use super::error::{CONTROL, TYPE, UNMAPPED, WgslError, malformed};
use super::func::FnEmitter;
use crate::text::walker::CSyntax;

impl<'m> CSyntax<'m> for FnEmitter<'_, 'm> {
    type Error = WgslError;

    const FALLS_THROUGH: bool = false;

    crate::text::walker::fn_emitter_syntax!('m);

    fn negated(&mut self, c: InstId) -> Result<String, WgslError> {
        let e = self.value(c)?;
        Ok(format!("!{}", e.p()))
    }

    fn other_terminator(&mut self, t: InstId) -> Result<(), WgslError> {
        match self.m.op(t) {
            Op::Discard => {
                self.line("discard;");
                Ok(())
            }
            op if op.is_terminator() => Err(WgslError::new(
                UNMAPPED,
                format!("the terminator `{}` has no WGSL form", op.spelling()),
            )),
            _ => Err(malformed("a block ends in a non-terminator")),
        }
    }

    fn control_error(&self, msg: String) -> WgslError {
        WgslError::new(CONTROL, msg)
    }

    fn malformed(&self, msg: &str) -> WgslError {
        malformed(msg)
    }

    fn wide_selector(&self) -> WgslError {
        WgslError::new(TYPE, "a `switch` on a selector that is not i32 or u32")
    }

    /// naga puts a `return;` after a function's last statement when that is a loop (it does
    /// not look into loops), which a function with a result refuses: an unreachable
    /// `return T();` after a loop that never exits keeps naga's view and the meaning.
    fn after_endless_loop(&mut self) -> Result<(), WgslError> {
        let m = self.m;
        let fty = m
            .ty(self.f.id())
            .ok_or_else(|| malformed("a function has no type"))?;
        let ret = m
            .fn_return(fty)
            .ok_or_else(|| malformed("a function's type is not a `fn` type"))?;
        if m.op(ret) != Op::Void {
            let tn = self.cx.type_name(ret)?;
            self.line_fmt(format_args!("return {tn}();"));
        }
        Ok(())
    }

    fn if_head(&self, _hint: &str, cond: &str) -> String {
        format!("if {cond} {{")
    }

    fn loop_head(&self, _hint: &str) -> String {
        "loop {".to_string()
    }

    fn flag_decl(&self, flag: &str) -> String {
        format!("var {flag}: bool = false;")
    }

    /// WGSL switches on `i32` or `u32` only.
    fn selector(&mut self, sel: InstId) -> Result<(String, bool, u32), WgslError> {
        let m = self.m;
        let sel_ty = m.ty(sel).ok_or_else(|| malformed("an untyped selector"))?;
        let signed = match m.op(sel_ty) {
            Op::I32 => true,
            Op::U32 => false,
            _ => return Err(self.wide_selector()),
        };
        Ok((self.value(sel)?.text, signed, 32))
    }

    fn case_label(&self, signed: bool, v: u64) -> String {
        if signed {
            let s = v as i32;
            if s == i32::MIN {
                "i32(-2147483647 - 1)".to_string()
            } else {
                format!("{s}i")
            }
        } else {
            format!("{}u", v as u32)
        }
    }
}

crate::text::printer::fn_emitter_text!();
