//! `transpose_storage`: column-major matrices in host-shared memory are stored as their
//! row-major transposes.
//!
//! The IR's `mat<T, R, C>` is HLSL's `TRxC`, indexed by rows. In a buffer, a column-major
//! matrix (HLSL's default packing) is C column vectors of R components, a row-major one R row
//! vectors of C components. WGSL and MSL declare a matrix as columns, and their natural mapping
//! is the one the SPIR-V backend and DXC use: HLSL rows become their columns, so a row-major
//! `TRxC` is WGSL's `matRxC` (MSL's `floatRxC`) and lies in memory as HLSL lays it. A
//! column-major one lies in memory like the row-major `mat<T, C, R>` (C vectors of R
//! components, same strides, same offsets), which is what this pass makes it: every
//! column-major matrix a `uniform`, `storage_buffer`, `push_constant` or `shader_record` global
//! holds (directly, in arrays, in struct fields) becomes `mat<T, C, R>` marked `row_major`,
//! through the shared storage-form rewrite (passes/src/storage_form.rs): struct copies for
//! memory, the original types for values, a `transpose` at each load and store. An
//! `element_addr` into such a matrix (an HLSL row, which memory holds one component per stored
//! vector) becomes per-component accesses: a load of row `i` gathers component `i` of each
//! stored vector, a store scatters, and an element `j` of row `i` is component `i` of stored
//! vector `j`.
//!
//! Afterwards no host-shared memory holds a column-major matrix ([`first_column_major`]), which
//! the WGSL and MSL backends' boundary checks (OSG0009): the emitters print every buffer
//! matrix in its natural form and never transpose.

use oneshader_ir::{Builder, InsertPoint, InstId, Intrinsic, Module, Op, Slot};

use crate::storage_form::{self, Form};
use crate::{Pass, PassError};

const NAME: &str = "transpose_storage";

/// The pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct TransposeStorage;

/// The first host-shared global of `m` whose memory holds a column-major matrix: what a module
/// the pass ran on no longer has.
pub fn first_column_major(m: &Module) -> Option<InstId> {
    storage_form::first_changed_global(&TransposeStorage, m)
}

impl Form for TransposeStorage {
    fn name(&self) -> &'static str {
        NAME
    }

    fn changes_leaf(&self, m: &Module, ty: InstId, row_major: bool) -> bool {
        !row_major && m.try_op(ty) == Some(Op::Matrix)
    }

    fn storage_leaf(&self, m: &mut Module, ty: InstId) -> InstId {
        let elem = m.operand(ty, 0);
        let (rows, cols) = m.matrix_dims(ty).unwrap_or((4, 4));
        m.matrix_type(elem, cols, rows)
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
        let result = if into_storage { st } else { ty };
        let mut b = Builder::new(m);
        b.set_point(at);
        b.intrinsic(Intrinsic::Transpose, result, &[v])
    }

    fn mark(&self, m: &mut Module, target: InstId) {
        let cols: Vec<InstId> = m
            .decorations(target)
            .filter(|&d| m.op(d) == Op::ColMajor)
            .collect();
        for d in cols {
            // A decoration nothing uses: removing it cannot fail.
            let _ = m.remove(d);
        }
        if !m.has_decoration(target, Op::RowMajor) {
            m.decorate(target, Op::RowMajor, &[]);
        }
    }

    fn leaf_element(&self, m: &mut Module, ea: InstId) -> Result<bool, PassError> {
        row_access(m, ea)?;
        Ok(true)
    }
}

/// Rewrites `ea`, the address of row `i` of a matrix whose memory (`ea`'s base, already
/// retyped) holds its transpose, and its uses: loads gather, stores scatter, element
/// addresses swap their indices.
fn row_access(m: &mut Module, ea: InstId) -> Result<(), PassError> {
    let base = m.operand(ea, 0);
    let row = m.operand(ea, 1);
    let stored = m
        .ty(base)
        .and_then(|t| m.pointee(t))
        .ok_or_else(|| PassError::new(NAME, "a row address whose base is not a pointer"))?;
    // The stored form is `mat<T, C, R>`: C vectors, one per HLSL column.
    let (cols, _) = m
        .matrix_dims(stored)
        .ok_or_else(|| PassError::new(NAME, "a row address into a non-matrix"))?;
    let u32t = m.int_type(32, false);
    for u in m.uses_snapshot(ea) {
        let Slot::Operand(slot) = u.slot else {
            continue;
        };
        let user = u.user;
        match m.op(user) {
            Op::Load => {
                let row_ty = m
                    .ty(user)
                    .ok_or_else(|| PassError::new(NAME, "an untyped load"))?;
                let mut parts = Vec::with_capacity(cols as usize);
                for j in 0..cols {
                    let jc = m.const_int(u32t, u64::from(j));
                    let mut b = Builder::new(m);
                    b.set_point(InsertPoint::Before(user));
                    let comp = stored_element(&mut b, base, jc, row);
                    parts.push(b.load(comp));
                }
                let mut b = Builder::new(m);
                b.set_point(InsertPoint::Before(user));
                let v = b.construct(row_ty, &parts);
                m.replace_uses_with(user, v);
                remove(m, user)?;
            }
            Op::Store if slot == 0 => {
                let v = m.operand(user, 1);
                for j in 0..cols {
                    let jc = m.const_int(u32t, u64::from(j));
                    let mut b = Builder::new(m);
                    b.set_point(InsertPoint::Before(user));
                    let comp = stored_element(&mut b, base, jc, row);
                    let c = b.extract(v, &[j]);
                    b.store(comp, c);
                }
                remove(m, user)?;
            }
            Op::ElementAddr if slot == 0 => {
                // Element j of HLSL row i: component i of stored vector j.
                let j = m.operand(user, 1);
                let mut b = Builder::new(m);
                b.set_point(InsertPoint::Before(user));
                let comp = stored_element(&mut b, base, j, row);
                m.replace_uses_with(user, comp);
                remove(m, user)?;
            }
            _ => {
                return Err(PassError::new(
                    NAME,
                    format!(
                        "`{}` uses the address of a row of a column-major matrix in a buffer; \
                         only loads, stores and element addresses can",
                        oneshader_ir::print::print_inst(m, user)
                    ),
                ));
            }
        }
    }
    remove(m, ea)
}

/// The address of HLSL element (`row`, `col`) of the matrix whose transpose `base` points
/// to: component `row` of stored vector `col`.
fn stored_element(b: &mut Builder<'_>, base: InstId, col: InstId, row: InstId) -> InstId {
    let vector = b.element_addr(base, col);
    b.element_addr(vector, row)
}

fn remove(m: &mut Module, id: InstId) -> Result<(), PassError> {
    m.remove(id)
        .map_err(|e| PassError::new(NAME, format!("removing a rewritten access: {e:?}")))
}

impl Pass for TransposeStorage {
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
