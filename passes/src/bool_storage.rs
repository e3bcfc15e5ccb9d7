//! `bool_storage`: bools in host-shared memory are stored as `u32`.
//!
//! A `bool` has no size or bit pattern a host can share: SPIR-V gives `OpTypeBool` no layout,
//! WGSL calls it not host-shareable, and GLSL and MSL pick their own. DXC stores an HLSL
//! `bool` in a constant buffer, structured buffer or push constant as a 32-bit integer, 0 or 1,
//! and so does OneShader, for every target: this pass rewrites each `uniform`,
//! `storage_buffer` and `push_constant` global whose contents hold a bool so that the memory
//! holds `u32` (vectors of bools become vectors of `u32`, arrays and structs are rewritten
//! element by element: a struct holding a bool gets a copy with the bools replaced, its field
//! decorations kept, and the original stays for values), and converts at every access: a
//! `load` reads the `u32` form and turns it back into the bool form (`ne v, 0`), a `store`
//! turns a bool into `select b, 1, 0` first. Access chains into the global are retyped.
//!
//! It runs in every target's legalization ([`crate::legalize`]); afterwards
//! [`holds_shared_bools`] finds nothing, which the backends' boundary checks (OSG0005).

use oneshader_ir::{Builder, InsertPoint, InstId, Module, Op};

use crate::storage_form::{self, Form};
use crate::{Pass, PassError};

const NAME: &str = "bool_storage";

/// The pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct BoolStorage;

/// The first global of `m` in host-shared memory whose contents hold a bool: what a module
/// legalized for any target no longer has.
pub fn holds_shared_bools(m: &Module) -> Option<InstId> {
    storage_form::first_changed_global(&BoolStorage, m)
}

impl Form for BoolStorage {
    fn name(&self) -> &'static str {
        NAME
    }

    fn changes_leaf(&self, m: &Module, ty: InstId, _row_major: bool) -> bool {
        match m.try_op(ty) {
            Some(Op::Bool) => true,
            Some(Op::Vector) => m.try_op(m.operand(ty, 0)) == Some(Op::Bool),
            _ => false,
        }
    }

    fn storage_leaf(&self, m: &mut Module, ty: InstId) -> InstId {
        let u = m.int_type(32, false);
        match m.vector_len(ty) {
            Some(n) if m.op(ty) == Op::Vector => m.vector_type(u, n),
            _ => u,
        }
    }

    fn convert(
        &self,
        m: &mut Module,
        at: InsertPoint,
        v: InstId,
        ty: InstId,
        st: InstId,
        into_storage: bool,
    ) -> InstId {
        let zero = m.zero(st);
        if into_storage {
            let n = m.vector_len(ty).filter(|_| m.op(ty) == Op::Vector);
            let u = m.int_type(32, false);
            let one = m.const_int(u, 1);
            let ones = match n {
                Some(n) => m.const_composite(st, &vec![one; n as usize]),
                None => one,
            };
            let mut b = Builder::new(m);
            b.set_point(at);
            b.select(v, ones, zero)
        } else {
            let mut b = Builder::new(m);
            b.set_point(at);
            b.cmp(Op::Ne, v, zero)
        }
    }
}

impl Pass for BoolStorage {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        storage_form::rewrite(self, m)
    }

    fn idempotent(&self) -> bool {
        true
    }
}
