//! Access chains folded into their users: `field_addr`/`element_addr` one level at a time
//! would be one `OpAccessChain` (and one pointer type) per level. An address used only as the
//! base of further addresses is not emitted; each user's `OpAccessChain` carries the whole
//! path from the first address that is emitted (`OpAccessChain %ubo %0 %10 %0` instead of
//! three chains), as glslang and DXC write them. Addresses with a special role (an element of
//! an array of buffers, a non-uniform index) are emitted as they are.

use oneshader_ir::{InstId, Intrinsic, Op, Slot};
use smallvec::SmallVec;

use super::error::R;
use super::module::Emitter;

impl Emitter<'_> {
    /// True when address `i` is not emitted: every use is the base of another address, and it
    /// has no role of its own (a buffer of an array of buffers, a non-uniform index).
    pub(super) fn folds_into_users(&self, i: InstId) -> bool {
        let m = self.m;
        if !matches!(m.op(i), Op::FieldAddr | Op::ElementAddr) {
            return false;
        }
        let base = m.operand(i, 0);
        let idx = m.operand(i, 1);
        let special = self.desc_arrays.contains_key(base)
            || m.has_decoration(i, Op::NonUniform)
            || self.nonuniform.contains(&base)
            || (m.op(idx) == Op::CallIntrinsic
                && m.imm_operand(idx, 0) == Some(Intrinsic::NonUniformIndex.to_u32()));
        if special {
            return false;
        }
        let mut any = false;
        for u in m.uses(i) {
            any = true;
            if !matches!(m.op(u.user), Op::FieldAddr | Op::ElementAddr)
                || u.slot != Slot::Operand(0)
            {
                return false;
            }
        }
        any
    }

    /// Pushes the operands an `OpAccessChain` based on `base` starts with: `base` itself (and
    /// the leading 0 of a global wrapped in a `Block` struct), or, for an address folded into
    /// its users, the operands of its own chain and its index.
    pub(super) fn chain_base(&mut self, base: InstId, out: &mut SmallVec<[u32; 8]>) -> R<()> {
        // The folded addresses from `base` up to the first emitted one, innermost first.
        let m = self.m;
        let mut folded: SmallVec<[InstId; 4]> = SmallVec::new();
        let mut root = base;
        while self.folds_into_users(root) {
            folded.push(root);
            root = m.operand(root, 0);
        }
        out.push(self.val(root)?);
        if self.wrapped.contains_key(root) {
            out.push(self.const_u32(0));
        }
        for &a in folded.iter().rev() {
            out.push(self.val(m.operand(a, 1))?);
        }
        Ok(())
    }
}
