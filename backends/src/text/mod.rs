//! What the text backends (GLSL, WGSL) share: identifiers ([`names`]), the choice of the entry
//! point and what it reaches ([`usage`]), and which values print inline ([`roles`]).

pub(crate) mod names;
pub(crate) mod roles;
pub(crate) mod usage;

use oneshader_ir::diag::{FileId, Span};
use oneshader_ir::{InstId, Module, Op};

/// The source range of instruction `i` (its `src_loc` decoration, which the front end puts on
/// intrinsic calls, texture reads and other instructions it can place), if it has one: a
/// refusal points at the HLSL it came from.
pub(crate) fn span_of(m: &Module, i: InstId) -> Option<Span> {
    let d = m.find_decoration(i, Op::SrcLoc)?;
    Some(Span {
        file: FileId(m.imm_operand(d, 0)?),
        start: m.imm_operand(d, 1)?,
        end: m.imm_operand(d, 2)?,
    })
}
