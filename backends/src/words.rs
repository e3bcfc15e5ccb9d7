//! Byte-address buffer accesses (`buffer_load`, `buffer_store`): the rule every backend
//! applies, stated once. They read and write 32-bit words, so the value is a 32-bit scalar
//! (integer or float) or a vector of them.

use oneshader_ir::{InstId, Module, Op};

/// The scalar type of the value `ty` that the byte-address access `access` moves, or the
/// refusal's message when it is not a 32-bit scalar or vector.
pub(crate) fn word_scalar(m: &Module, access: InstId, ty: InstId) -> Result<InstId, String> {
    m.scalar_of(ty)
        .filter(|&s| m.scalar_bits(s) == Some(32) && m.op(s) != Op::Bool && m.op(ty) != Op::Matrix)
        .ok_or_else(|| {
            format!(
                "`{}` of `{}`: byte-address buffers are accessed as 32-bit scalars and vectors",
                m.op(access).spelling(),
                oneshader_ir::print::print_inst(m, ty)
            )
        })
}
