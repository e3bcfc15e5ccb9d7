//! Memory access: pointers as operands, loads and stores (with layout conversion between
//! explicitly laid out and function memory), access chains and `NonUniform`, byte-address
//! buffers as words, atomics, acceleration structures and runtime array lengths.

use oneshader_ir::{AddressSpace, AtomicOp, InstId, Op, ScalarKind};
use rspirv::spirv::{self, Capability, Decoration};
use smallvec::SmallVec;

use super::encode::inst;
use super::error::{EmitError, MALFORMED, OPERANDS, R};
use super::instructions::Operands;
use super::module::{Emitter, Lk};

/// Memory scopes and semantics (SPIR-V enumerants).
pub(super) const SCOPE_DEVICE: u32 = 1;
pub(super) const SCOPE_WORKGROUP: u32 = 2;
pub(super) const SCOPE_INVOCATION: u32 = 4;
pub(super) const SEM_ACQ_REL: u32 = 0x8;
pub(super) const SEM_UNIFORM: u32 = 0x40;
pub(super) const SEM_WORKGROUP: u32 = 0x100;
pub(super) const SEM_IMAGE: u32 = 0x800;

impl Emitter<'_> {
    /// The pointer operand `p` as a SPIR-V pointer: a buffer global wrapped in a `Block`
    /// struct is reached through its member 0.
    pub(crate) fn ptr_operand(&mut self, p: InstId) -> R<u32> {
        if self.wrapped.contains_key(p) {
            let ty = self.member_ptr_type(p)?;
            let g = self.val(p)?;
            let zero = self.const_u32(0);
            let id = self.fresh();
            inst(&mut self.f.body, spirv::Op::AccessChain, &[ty, id, g, zero]);
            return Ok(id);
        }
        self.val(p)
    }

    /// The SPIR-V pointer type to the member 0 of a wrapped buffer pointer `p`: the IR
    /// pointee with its explicit layout.
    fn member_ptr_type(&mut self, p: InstId) -> R<u32> {
        if !self.block_ptrs.contains_key(p) {
            return self.value_ptr_type(p);
        }
        let m = self.m;
        let t = m
            .ty(p)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped pointer"))?;
        let (Some(space), Some(pointee)) = (m.address_space(t), m.pointee(t)) else {
            return Err(EmitError::new(MALFORMED, "not a pointer"));
        };
        let rm = self.ptr_row_major(p);
        let lk = self.lk_of_value(p, space, rm);
        self.ptr_type(space, pointee, lk)
    }

    /// The layout of values reached through the pointer `p`.
    fn lk_of_ptr(&self, p: InstId) -> Lk {
        let m = self.m;
        let Some(space) = m.ty(p).and_then(|t| m.address_space(t)) else {
            return Lk::Logical;
        };
        match self.rule_of_ptr(p, space) {
            // A buffer global that is a struct is the `Block` struct itself (so is an element
            // of an array of buffers).
            Some(rule)
                if (m.op(p) == Op::Global || self.block_ptrs.contains_key(p))
                    && !self.wrapped.contains_key(p) =>
            {
                Lk::Block(rule, false, self.buffer_block(space))
            }
            Some(rule) => Lk::Explicit(rule, self.ptr_row_major(p)),
            None => Lk::Logical,
        }
    }

    pub(super) fn load(&mut self, i: InstId) -> R<()> {
        let m = self.m;
        let p = m.operand(i, 0);
        let t = m
            .ty(i)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped load"))?;
        let lt = self.ty(t)?;
        let ptr = self.ptr_operand(p)?;
        let id = self.id_of(i);
        let lk = self.lk_of_ptr(p);
        if lk != Lk::Logical {
            let xt = self.ty_in(t, lk)?;
            if xt != lt {
                let tmp = self.fresh();
                inst(&mut self.f.body, spirv::Op::Load, &[xt, tmp, ptr]);
                self.convert_layout(tmp, t, lk, Lk::Logical, Some(id))?;
                return Ok(());
            }
        }
        inst(&mut self.f.body, spirv::Op::Load, &[lt, id, ptr]);
        if self.nonuniform.contains(&p) {
            self.decorate(id, Decoration::NonUniform, &[]);
        }
        Ok(())
    }

    pub(super) fn store(&mut self, i: InstId) -> R<()> {
        let m = self.m;
        let p = m.operand(i, 0);
        let v_ir = m.operand(i, 1);
        let t = m
            .ty(v_ir)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped stored value"))?;
        let ptr = self.ptr_operand(p)?;
        let mut v = self.val(v_ir)?;
        let lk = self.lk_of_ptr(p);
        if lk != Lk::Logical {
            v = self.convert_layout(v, t, Lk::Logical, lk, None)?;
        }
        inst(&mut self.f.body, spirv::Op::Store, &[ptr, v]);
        Ok(())
    }

    /// Converts the value `v` of IR type `t` from layout `from` to layout `to` (a struct or
    /// array in a buffer and the same as a value differ in type id: `OpCopyLogical` from SPIR-V
    /// 1.4, member by member before). Writes the result to `result` when given.
    pub(crate) fn convert_layout(
        &mut self,
        v: u32,
        t: InstId,
        from: Lk,
        to: Lk,
        result: Option<u32>,
    ) -> R<u32> {
        use spirv::Op as S;
        let m = self.m;
        let fid = self.ty_in(t, from)?;
        let tid = self.ty_in(t, to)?;
        if fid == tid {
            if let Some(r) = result {
                inst(&mut self.f.body, S::CopyObject, &[tid, r, v]);
                return Ok(r);
            }
            return Ok(v);
        }
        let r = result.unwrap_or_else(|| self.fresh());
        if self.minor >= 4 {
            inst(&mut self.f.body, S::CopyLogical, &[tid, r, v]);
            return Ok(r);
        }
        let inner = |lk: Lk, row_major: bool| match lk {
            Lk::Logical => Lk::Logical,
            Lk::Explicit(rule, _) | Lk::Block(rule, ..) | Lk::Descriptors(rule, ..) => {
                Lk::Explicit(rule, row_major)
            }
        };
        match m.op(t) {
            Op::Struct => {
                let fields = m.struct_fields(t);
                let mut w: Operands = SmallVec::new();
                w.push(tid);
                w.push(r);
                for (k, &f) in fields.iter().enumerate() {
                    let ft = m
                        .ty(f)
                        .ok_or_else(|| EmitError::new(MALFORMED, "an untyped field"))?;
                    let rm = oneshader_ir::layout::is_row_major(m, f);
                    let (ff, tf) = (inner(from, rm), inner(to, rm));
                    let fty = self.ty_in(ft, ff)?;
                    let e = self.fresh();
                    inst(
                        &mut self.f.body,
                        S::CompositeExtract,
                        &[fty, e, v, k as u32],
                    );
                    w.push(self.convert_layout(e, ft, ff, tf, None)?);
                }
                inst(&mut self.f.body, S::CompositeConstruct, &w);
            }
            Op::Array => {
                let n = m.array_len(t).unwrap_or(0);
                let et = m.operand(t, 0);
                let rm = |lk: Lk| match lk {
                    Lk::Explicit(_, rm) | Lk::Block(_, rm, _) | Lk::Descriptors(_, rm, _) => rm,
                    Lk::Logical => false,
                };
                let (ff, tf) = (inner(from, rm(from)), inner(to, rm(to)));
                let ety = self.ty_in(et, ff)?;
                let mut w: Vec<u32> = vec![tid, r];
                for k in 0..n {
                    let e = self.fresh();
                    inst(&mut self.f.body, S::CompositeExtract, &[ety, e, v, k]);
                    w.push(self.convert_layout(e, et, ff, tf, None)?);
                }
                inst(&mut self.f.body, S::CompositeConstruct, &w);
            }
            _ => {
                return Err(EmitError::new(
                    OPERANDS,
                    format!(
                        "cannot copy a `{}` between a buffer and a value",
                        oneshader_ir::print::print_inst(m, t)
                    ),
                ));
            }
        }
        Ok(r)
    }

    pub(super) fn access_chain(&mut self, i: InstId) -> R<()> {
        let m = self.m;
        if self.folds_into_users(i) {
            return Ok(());
        }
        let base = m.operand(i, 0);
        let idx_ir = m.operand(i, 1);
        let element_buffer = self.desc_arrays.contains_key(base) && m.op(i) == Op::ElementAddr;
        if element_buffer {
            // An element of an array of buffers is a buffer: a pointer to a `Block` struct,
            // wrapped when the element type is not a struct.
            self.block_ptrs.insert(i, ());
            let elem = m.ty(i).and_then(|t| m.pointee(t));
            if elem.is_some_and(|t| m.op(t) != Op::Struct) {
                self.wrapped.insert(i, ());
            }
        }
        let ty = self.result_ty(i)?;
        let id = self.id_of(i);
        let idx = self.val(idx_ir)?;
        let nonuniform = m.has_decoration(i, Op::NonUniform)
            || self.nonuniform.contains(&base)
            || (m.op(idx_ir) == Op::CallIntrinsic
                && m.imm_operand(idx_ir, 0)
                    == Some(oneshader_ir::Intrinsic::NonUniformIndex.to_u32()));
        if element_buffer {
            let b = self.val(base)?;
            inst(&mut self.f.body, spirv::Op::AccessChain, &[ty, id, b, idx]);
        } else {
            let mut w: SmallVec<[u32; 8]> = SmallVec::from_slice(&[ty, id]);
            self.chain_base(base, &mut w)?;
            w.push(idx);
            inst(&mut self.f.body, spirv::Op::AccessChain, &w);
        }
        if nonuniform {
            self.nonuniform.insert(i);
            self.decorate(id, Decoration::NonUniform, &[]);
            self.nonuniform_caps(i);
        }
        Ok(())
    }

    /// Capabilities for indexing the resource array `p` points into non-uniformly.
    fn nonuniform_caps(&mut self, p: InstId) {
        let m = self.m;
        self.caps.add_ext(
            Capability::ShaderNonUniform,
            self.minor,
            5,
            "SPV_EXT_descriptor_indexing",
        );
        let Some(t) = m.ty(p) else { return };
        let space = m.address_space(t);
        let pointee = m.pointee(t);
        let cap = match (space, pointee.and_then(|pt| m.texture_desc(pt))) {
            (Some(AddressSpace::UniformConstant), Some(d)) => {
                let storage = d.access == oneshader_ir::TextureAccess::Storage;
                match (d.dim == oneshader_ir::Dim::Buffer, storage) {
                    (true, true) => Capability::StorageTexelBufferArrayNonUniformIndexing,
                    (true, false) => Capability::UniformTexelBufferArrayNonUniformIndexing,
                    (false, true) => Capability::StorageImageArrayNonUniformIndexing,
                    (false, false) => Capability::SampledImageArrayNonUniformIndexing,
                }
            }
            (Some(AddressSpace::UniformConstant), None) => {
                Capability::SampledImageArrayNonUniformIndexing
            }
            (Some(AddressSpace::StorageBuffer), _) => {
                Capability::StorageBufferArrayNonUniformIndexing
            }
            (Some(AddressSpace::Uniform), _) => Capability::UniformBufferArrayNonUniformIndexing,
            _ => return,
        };
        self.caps.add(cap);
    }

    /// `buffer_load` / `buffer_store` on a byte-address buffer (`rtarray<u32>`): the byte
    /// offset is divided by 4 and each 32-bit component is read or written in turn.
    pub(super) fn byte_buffer(&mut self, i: InstId) -> R<()> {
        use spirv::Op as S;
        let m = self.m;
        let buf = m.operand(i, 0);
        let off_ir = m.operand(i, 1);
        let is_load = m.op(i) == Op::BufferLoad;
        let vty_ir = if is_load {
            m.ty(i)
        } else {
            m.ty(m.operand(i, 2))
        }
        .ok_or_else(|| EmitError::new(MALFORMED, "an untyped buffer access"))?;
        let scalar =
            crate::words::word_scalar(m, i, vty_ir).map_err(|msg| EmitError::new(OPERANDS, msg))?;
        let n = m.vector_len(vty_ir).unwrap_or(1);
        let off_ty_ir = m
            .ty(off_ir)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped offset"))?;
        let off_ty = self.ty(off_ty_ir)?;
        let off = self.val(off_ir)?;
        let two = self.splat_const(off_ty_ir, 2)?;
        let index = self.fresh();
        inst(
            &mut self.f.body,
            S::ShiftRightLogical,
            &[off_ty, index, off, two],
        );
        let u = self.u32_ty();
        let class = self.storage_class(AddressSpace::StorageBuffer);
        let elem_ptr = self.ptr_spv(class, u);
        let wrapped = self.wrapped.contains_key(buf);
        let base = self.val(buf)?;
        let zero = self.const_u32(0);
        let sty = self.ty(scalar)?;
        let needs_cast = m.op(scalar) != Op::U32;
        let mut parts: Operands = SmallVec::new();
        let value = if is_load {
            None
        } else {
            Some(self.val(m.operand(i, 2))?)
        };
        let vty = self.ty(vty_ir)?;
        for k in 0..n {
            let idx = if k == 0 {
                index
            } else {
                let kc = self.splat_const(off_ty_ir, k as i64)?;
                let r = self.fresh();
                inst(&mut self.f.body, S::IAdd, &[off_ty, r, index, kc]);
                r
            };
            let p = self.fresh();
            if wrapped {
                inst(
                    &mut self.f.body,
                    S::AccessChain,
                    &[elem_ptr, p, base, zero, idx],
                );
            } else {
                inst(&mut self.f.body, S::AccessChain, &[elem_ptr, p, base, idx]);
            }
            if let Some(v) = value {
                let mut c = v;
                if n > 1 {
                    c = self.fresh();
                    inst(&mut self.f.body, S::CompositeExtract, &[sty, c, v, k]);
                }
                if needs_cast {
                    let b = self.fresh();
                    inst(&mut self.f.body, S::Bitcast, &[u, b, c]);
                    c = b;
                }
                inst(&mut self.f.body, S::Store, &[p, c]);
            } else {
                let l = self.fresh();
                inst(&mut self.f.body, S::Load, &[u, l, p]);
                let mut c = l;
                if needs_cast {
                    c = self.fresh();
                    inst(&mut self.f.body, S::Bitcast, &[sty, c, l]);
                }
                parts.push(c);
            }
        }
        if is_load {
            let id = self.id_of(i);
            if n == 1 {
                inst(&mut self.f.body, S::CopyObject, &[vty, id, parts[0]]);
            } else {
                let mut w: Operands = SmallVec::new();
                w.extend_from_slice(&[vty, id]);
                w.extend_from_slice(&parts);
                inst(&mut self.f.body, S::CompositeConstruct, &w);
            }
        }
        Ok(())
    }

    pub(super) fn atomic(&mut self, i: InstId) -> R<()> {
        use spirv::Op as S;
        let m = self.m;
        let is_rmw = m.op(i) == Op::AtomicRmw;
        let p_ir = if is_rmw {
            m.operand(i, 1)
        } else {
            m.operand(i, 0)
        };
        let ty_ir = m
            .ty(i)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped atomic"))?;
        let k = m.scalar_kind(ty_ir);
        if !matches!(k, Some(ScalarKind::Int | ScalarKind::Uint)) || m.op(ty_ir) == Op::Vector {
            return Err(EmitError::new(
                OPERANDS,
                format!(
                    "atomics on `{}` are not supported (integer scalars only)",
                    oneshader_ir::print::print_inst(m, ty_ir)
                ),
            ));
        }
        if m.scalar_bits(ty_ir) == Some(64) {
            self.caps.add(Capability::Int64Atomics);
        }
        let space = m.ty(p_ir).and_then(|t| m.address_space(t));
        let scope = if space == Some(AddressSpace::Workgroup) {
            SCOPE_WORKGROUP
        } else {
            SCOPE_DEVICE
        };
        let ty = self.ty(ty_ir)?;
        let id = self.id_of(i);
        let p = self.ptr_operand(p_ir)?;
        let scope = self.const_u32(scope);
        let relaxed = self.const_u32(0);
        if is_rmw {
            let aop = m
                .imm_operand(i, 0)
                .and_then(AtomicOp::from_u32)
                .ok_or_else(|| EmitError::new(MALFORMED, "unknown atomic operation"))?;
            let v = self.val(m.operand(i, 2))?;
            let signed = k == Some(ScalarKind::Int);
            let sop = match aop {
                AtomicOp::Add => S::AtomicIAdd,
                AtomicOp::Sub => S::AtomicISub,
                AtomicOp::Min if signed => S::AtomicSMin,
                AtomicOp::Min => S::AtomicUMin,
                AtomicOp::Max if signed => S::AtomicSMax,
                AtomicOp::Max => S::AtomicUMax,
                AtomicOp::And => S::AtomicAnd,
                AtomicOp::Or => S::AtomicOr,
                AtomicOp::Xor => S::AtomicXor,
                AtomicOp::Exchange | AtomicOp::Store => S::AtomicExchange,
                AtomicOp::Load => {
                    inst(
                        &mut self.f.body,
                        S::AtomicLoad,
                        &[ty, id, p, scope, relaxed],
                    );
                    return Ok(());
                }
            };
            inst(&mut self.f.body, sop, &[ty, id, p, scope, relaxed, v]);
        } else {
            let cmp = self.val(m.operand(i, 1))?;
            let v = self.val(m.operand(i, 2))?;
            inst(
                &mut self.f.body,
                S::AtomicCompareExchange,
                &[ty, id, p, scope, relaxed, relaxed, v, cmp],
            );
        }
        Ok(())
    }

    /// Loads the acceleration structure the pointer `p` designates (SPIR-V's ray
    /// instructions take the handle).
    pub(super) fn load_accel(&mut self, p: InstId) -> R<u32> {
        let m = self.m;
        let pointee = m.ty(p).and_then(|t| m.pointee(t)).ok_or_else(|| {
            EmitError::new(
                MALFORMED,
                "an acceleration structure operand is not a pointer",
            )
        })?;
        let t = self.ty(pointee)?;
        let ptr = self.ptr_operand(p)?;
        let id = self.fresh();
        inst(&mut self.f.body, spirv::Op::Load, &[t, id, ptr]);
        Ok(id)
    }

    pub(super) fn array_length(&mut self, i: InstId) -> R<()> {
        let m = self.m;
        let p = m.operand(i, 0);
        let ty = self.result_ty(i)?;
        let id = self.id_of(i);
        let (st, member) = if self.wrapped.contains_key(p) {
            (self.val(p)?, 0)
        } else if m.op(p) == Op::FieldAddr {
            let base = m.operand(p, 0);
            if m.op(base) != Op::Global && !self.block_ptrs.contains_key(base) {
                return Err(EmitError::new(
                    OPERANDS,
                    "`array_length` needs the runtime array member of a buffer global (or of an element of an array of buffers)",
                ));
            }
            (self.val(base)?, m.imm_operand(p, 1).unwrap_or(0))
        } else {
            return Err(EmitError::new(
                OPERANDS,
                "`array_length` needs a buffer global's runtime array (the global itself or a field_addr of its last field)",
            ));
        };
        inst(
            &mut self.f.body,
            spirv::Op::ArrayLength,
            &[ty, id, st, member],
        );
        Ok(())
    }
}
