//! The GLSL side of the shared C-like statement walker ([`crate::text::walker`]): `discard`,
//! the ray-tracing terminators (`ignoreIntersectionEXT`, `terminateRayEXT`) and
//! `EmitMeshTasksEXT`, and the selection and loop hints as GL_EXT_control_flow_attributes
//! attributes (`[[flatten]]`, `[[dont_flatten]]`, `[[unroll]]`, `[[dont_unroll]]`).

use oneshader_ir::{InstId, Op};

use super::error::{CONTROL, GlslError, OPERANDS, malformed};
use super::expr::Prec;
use super::func::FnEmitter;
use crate::text::walker::CSyntax;

impl<'m> CSyntax<'m> for FnEmitter<'_, 'm> {
    type Error = GlslError;

    crate::text::walker::fn_emitter_syntax!('m);

    fn negated(&mut self, c: InstId) -> Result<String, GlslError> {
        let e = self.value(c)?;
        Ok(format!("!{}", e.at_least(Prec::Unary)))
    }

    /// `[[flatten]]`/`[[dont_flatten]]` from the selection's hints.
    fn selection_hint(&mut self, t: InstId) -> &'static str {
        let m = self.m;
        if m.has_decoration(t, Op::Flatten) {
            self.cx.ext("GL_EXT_control_flow_attributes");
            "[[flatten]] "
        } else if m.has_decoration(t, Op::DontFlatten) {
            self.cx.ext("GL_EXT_control_flow_attributes");
            "[[dont_flatten]] "
        } else {
            ""
        }
    }

    /// `[[unroll]]`/`[[dont_unroll]]` from the loop's hints.
    fn loop_hint(&mut self, t: InstId) -> &'static str {
        let m = self.m;
        if m.find_decoration(t, Op::Unroll).is_some() {
            self.cx.ext("GL_EXT_control_flow_attributes");
            "[[unroll]] "
        } else if m.has_decoration(t, Op::DontUnroll) {
            self.cx.ext("GL_EXT_control_flow_attributes");
            "[[dont_unroll]] "
        } else {
            ""
        }
    }

    fn other_terminator(&mut self, t: InstId) -> Result<(), GlslError> {
        let m = self.m;
        match m.op(t) {
            Op::Discard => self.line("discard;"),
            Op::IgnoreHit => self.line("ignoreIntersectionEXT;"),
            Op::AcceptHit => self.line("terminateRayEXT;"),
            Op::DispatchMesh => {
                // The payload operand is the shader's one `taskPayloadSharedEXT` variable,
                // which glslang passes.
                if m.num_operands(t) > 3 {
                    let p = m.operand(t, 3);
                    if self.cx.task_payload != Some(p) {
                        return Err(malformed(
                            "`dispatch_mesh` passes a payload that is not the declared task \
                             payload",
                        ));
                    }
                }
                let x = self.value(m.operand(t, 0))?;
                let y = self.value(m.operand(t, 1))?;
                let z = self.value(m.operand(t, 2))?;
                self.line_fmt(format_args!(
                    "EmitMeshTasksEXT({}, {}, {});",
                    x.text, y.text, z.text
                ));
            }
            _ => return Err(malformed("a block ends in a non-terminator")),
        }
        Ok(())
    }

    fn control_error(&self, msg: String) -> GlslError {
        GlslError::new(CONTROL, msg)
    }

    fn malformed(&self, msg: &str) -> GlslError {
        malformed(msg)
    }

    fn wide_selector(&self) -> GlslError {
        GlslError::new(
            OPERANDS,
            "a `switch` on a 64-bit selector; GLSL switches on `int` or `uint`",
        )
    }
}

crate::text::printer::fn_emitter_text!(before_line);
