//! The builder: an insertion point plus typed helpers that emit every opcode family.
//!
//! Helpers compute result types from the operands where the instruction table says so
//! (arithmetic, comparisons, loads, address computations); where the type cannot be derived
//! (conversions, constructs, texture reads, intrinsics) the caller passes it. The builder does
//! not check types: the verifier does.

use crate::imm::{AddressSpace, AtomicOp, BarrierFlags, Intrinsic, RayQueryValue};
use crate::module::{InstId, Module};
use crate::ops::Op;
use crate::structure::Block;

/// Where the builder inserts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InsertPoint {
    /// At the end of a block.
    End(Block),
    /// Just before an instruction.
    Before(InstId),
    /// Nowhere: emitted instructions stay detached until placed (e.g. with
    /// `Module::move_to_end`).
    Detached,
}

/// Emits instructions at an insertion point.
pub struct Builder<'m> {
    /// The module being built; types and constants are made through it.
    pub m: &'m mut Module,
    point: InsertPoint,
}

impl<'m> Builder<'m> {
    /// A builder with no insertion point.
    pub fn new(m: &'m mut Module) -> Builder<'m> {
        Builder {
            m,
            point: InsertPoint::Detached,
        }
    }

    /// A builder appending to `block`.
    pub fn at_end(m: &'m mut Module, block: Block) -> Builder<'m> {
        Builder {
            m,
            point: InsertPoint::End(block),
        }
    }

    /// The current insertion point.
    pub fn point(&self) -> InsertPoint {
        self.point
    }

    /// Moves the insertion point.
    pub fn set_point(&mut self, point: InsertPoint) {
        self.point = point;
    }

    /// Appends at the end of `block` from now on.
    pub fn position_at_end(&mut self, block: Block) {
        self.point = InsertPoint::End(block);
    }

    /// Inserts before `inst` from now on.
    pub fn position_before(&mut self, inst: InstId) {
        self.point = InsertPoint::Before(inst);
    }

    /// The block being appended to, if the point is in one.
    pub fn current_block(&self) -> Option<Block> {
        match self.point {
            InsertPoint::End(b) => Some(b),
            InsertPoint::Before(i) => self.m.block_of(i),
            InsertPoint::Detached => None,
        }
    }

    /// Emits any non-hoistable instruction with the given type and operands.
    pub fn emit(&mut self, op: Op, ty: Option<InstId>, operands: &[InstId]) -> InstId {
        debug_assert!(
            !op.is_hoistable(),
            "hoistable values are interned, not emitted"
        );
        let id = self.m.create_detached(op, ty, operands, 0);
        match self.point {
            InsertPoint::End(b) => self.m.append_child(b.id(), id),
            InsertPoint::Before(anchor) => {
                self.m.insert_before(anchor, id);
                // What is built before an instruction is its rewrite or part of it (see
                // `crate::positions`); before a terminator it is only placed there.
                if self.m.current_position().is_none() && !self.m.op(anchor).is_terminator() {
                    self.m.inherit_position(anchor, id);
                }
            }
            InsertPoint::Detached => {}
        }
        id
    }

    fn ty_of(&self, v: InstId) -> Option<InstId> {
        self.m.ty(v)
    }

    // ---- arithmetic, bitwise, comparisons --------------------------------------------------

    /// A binary instruction whose type is its first operand's (`add` .. `shr`).
    pub fn binary(&mut self, op: Op, a: InstId, b: InstId) -> InstId {
        let ty = self.ty_of(a);
        self.emit(op, ty, &[a, b])
    }

    /// `a + b`.
    pub fn add(&mut self, a: InstId, b: InstId) -> InstId {
        self.binary(Op::Add, a, b)
    }

    /// `a - b`.
    pub fn sub(&mut self, a: InstId, b: InstId) -> InstId {
        self.binary(Op::Sub, a, b)
    }

    /// `a * b` (component-wise).
    pub fn mul(&mut self, a: InstId, b: InstId) -> InstId {
        self.binary(Op::Mul, a, b)
    }

    /// `a / b`.
    pub fn div(&mut self, a: InstId, b: InstId) -> InstId {
        self.binary(Op::Div, a, b)
    }

    /// `a % b`.
    pub fn rem(&mut self, a: InstId, b: InstId) -> InstId {
        self.binary(Op::Rem, a, b)
    }

    /// `a & b`.
    pub fn and(&mut self, a: InstId, b: InstId) -> InstId {
        self.binary(Op::And, a, b)
    }

    /// `a | b`.
    pub fn or(&mut self, a: InstId, b: InstId) -> InstId {
        self.binary(Op::Or, a, b)
    }

    /// `a ^ b`.
    pub fn xor(&mut self, a: InstId, b: InstId) -> InstId {
        self.binary(Op::Xor, a, b)
    }

    /// `a << b`.
    pub fn shl(&mut self, a: InstId, b: InstId) -> InstId {
        self.binary(Op::Shl, a, b)
    }

    /// `a >> b`.
    pub fn shr(&mut self, a: InstId, b: InstId) -> InstId {
        self.binary(Op::Shr, a, b)
    }

    /// A unary instruction (`neg`, `not`).
    pub fn unary(&mut self, op: Op, a: InstId) -> InstId {
        let ty = self.ty_of(a);
        self.emit(op, ty, &[a])
    }

    /// `-a`.
    pub fn neg(&mut self, a: InstId) -> InstId {
        self.unary(Op::Neg, a)
    }

    /// `~a` / `!a`.
    pub fn not(&mut self, a: InstId) -> InstId {
        self.unary(Op::Not, a)
    }

    /// A comparison (`eq` .. `ge`): a bool of the operands' shape.
    pub fn cmp(&mut self, op: Op, a: InstId, b: InstId) -> InstId {
        debug_assert!((Op::Eq..=Op::Ge).contains(&op));
        let ty = match self.ty_of(a) {
            Some(t) => self.m.bool_of_shape(t),
            None => self.m.bool_type(),
        };
        self.emit(op, Some(ty), &[a, b])
    }

    /// Matrix product of type `ty`.
    pub fn matmul(&mut self, a: InstId, b: InstId, ty: InstId) -> InstId {
        self.emit(Op::MatMul, Some(ty), &[a, b])
    }

    // ---- conversions and composites ---------------------------------------------------------

    /// Numeric conversion to `ty`.
    pub fn convert(&mut self, v: InstId, ty: InstId) -> InstId {
        self.emit(Op::Convert, Some(ty), &[v])
    }

    /// Bit reinterpretation as `ty`.
    pub fn bitcast(&mut self, v: InstId, ty: InstId) -> InstId {
        self.emit(Op::Bitcast, Some(ty), &[v])
    }

    /// Builds a composite of type `ty`.
    pub fn construct(&mut self, ty: InstId, elems: &[InstId]) -> InstId {
        self.emit(Op::Construct, Some(ty), elems)
    }

    /// Reads the element at constant `indices` (one per nesting level).
    pub fn extract(&mut self, v: InstId, indices: &[u32]) -> InstId {
        let mut ty = self.ty_of(v);
        for &i in indices {
            ty = ty.and_then(|t| self.m.element_type(t, i));
        }
        let mut ops = vec![v];
        ops.extend(indices.iter().map(|&i| self.m.imm(i)));
        self.emit(Op::Extract, ty, &ops)
    }

    /// A copy of `v` with the element at `indices` replaced by `elem`.
    pub fn insert(&mut self, v: InstId, elem: InstId, indices: &[u32]) -> InstId {
        let ty = self.ty_of(v);
        let mut ops = vec![v, elem];
        ops.extend(indices.iter().map(|&i| self.m.imm(i)));
        self.emit(Op::Insert, ty, &ops)
    }

    /// Reads a vector component at a run-time index.
    pub fn extract_dyn(&mut self, v: InstId, index: InstId) -> InstId {
        let ty = self.ty_of(v).and_then(|t| self.m.element_type(t, 0));
        self.emit(Op::ExtractDyn, ty, &[v, index])
    }

    /// A copy of vector `v` with the component at run-time `index` replaced.
    pub fn insert_dyn(&mut self, v: InstId, elem: InstId, index: InstId) -> InstId {
        let ty = self.ty_of(v);
        self.emit(Op::InsertDyn, ty, &[v, elem, index])
    }

    /// Picks components of `a` and `b` (indices past `a`'s length select from `b`).
    pub fn shuffle(&mut self, a: InstId, b: InstId, indices: &[u32]) -> InstId {
        let elem = self.ty_of(a).and_then(|t| self.m.scalar_of(t));
        let ty = match (elem, indices.len()) {
            (Some(e), 1) => Some(e),
            (Some(e), n) => Some(self.m.vector_type(e, n as u32)),
            (None, _) => None,
        };
        let mut ops = vec![a, b];
        ops.extend(indices.iter().map(|&i| self.m.imm(i)));
        self.emit(Op::Shuffle, ty, &ops)
    }

    /// `c ? a : b`.
    pub fn select(&mut self, c: InstId, a: InstId, b: InstId) -> InstId {
        let ty = self.ty_of(a);
        self.emit(Op::Select, ty, &[c, a, b])
    }

    // ---- memory ----------------------------------------------------------------------------

    /// Function-local storage for a `ty`; returns the `ptr<function, ty>`.
    pub fn var(&mut self, ty: InstId) -> InstId {
        let p = self.m.ptr_type(AddressSpace::Function, ty);
        self.emit(Op::Var, Some(p), &[])
    }

    /// Reads through `ptr`.
    pub fn load(&mut self, ptr: InstId) -> InstId {
        let ty = self.ty_of(ptr).and_then(|t| self.m.pointee(t));
        self.emit(Op::Load, ty, &[ptr])
    }

    /// Writes `value` through `ptr`.
    pub fn store(&mut self, ptr: InstId, value: InstId) -> InstId {
        let v = self.m.void_type();
        self.emit(Op::Store, Some(v), &[ptr, value])
    }

    fn addr_type(&mut self, ptr: InstId, index: u32) -> Option<InstId> {
        let pty = self.ty_of(ptr)?;
        let space = self.m.address_space(pty)?;
        let pointee = self.m.pointee(pty)?;
        let elem = self.m.element_type(pointee, index)?;
        Some(self.m.ptr_type(space, elem))
    }

    /// The address of field `index` of the struct `ptr` points to.
    pub fn field_addr(&mut self, ptr: InstId, index: u32) -> InstId {
        let ty = self.addr_type(ptr, index);
        let i = self.m.imm(index);
        self.emit(Op::FieldAddr, ty, &[ptr, i])
    }

    /// The address of element `index` (a run-time integer) of the array, vector or matrix
    /// `ptr` points to.
    pub fn element_addr(&mut self, ptr: InstId, index: InstId) -> InstId {
        let ty = self.addr_type(ptr, 0);
        self.emit(Op::ElementAddr, ty, &[ptr, index])
    }

    /// The address of a texel of a storage texture (for atomics), `ptr<image, texel>`.
    pub fn texel_addr(
        &mut self,
        tex: InstId,
        coord: InstId,
        sample: InstId,
        texel: InstId,
    ) -> InstId {
        let ty = self.m.ptr_type(AddressSpace::Image, texel);
        self.emit(Op::TexelAddr, Some(ty), &[tex, coord, sample])
    }

    // ---- calls -------------------------------------------------------------------------------

    /// Calls `callee` (a function or a `specialize` yielding one).
    pub fn call(&mut self, callee: InstId, args: &[InstId]) -> InstId {
        let ty = self.ty_of(callee).and_then(|t| self.m.fn_return(t));
        let mut ops = vec![callee];
        ops.extend_from_slice(args);
        self.emit(Op::Call, ty, &ops)
    }

    /// Calls an intrinsic with result type `ty`.
    pub fn intrinsic(&mut self, which: Intrinsic, ty: InstId, args: &[InstId]) -> InstId {
        let w = self.m.imm(which.to_u32());
        let mut ops = vec![w];
        ops.extend_from_slice(args);
        self.emit(Op::CallIntrinsic, Some(ty), &ops)
    }

    // ---- resources ---------------------------------------------------------------------------

    /// A texture read or query (`sample` .. `query_lod`, `sample_cmp_level` ..
    /// `sample_cmp_grad`) with result type `ty`; operands in the order of the instruction
    /// table. A sampling, gathering or fetching op whose `ty` is a struct `{u32, T}` also
    /// returns the sparse-residency status (see [`crate::Module::sparse_texel_type`]).
    pub fn texture_op(&mut self, op: Op, ty: InstId, operands: &[InstId]) -> InstId {
        debug_assert!(op.is_texture_read());
        self.emit(op, Some(ty), operands)
    }

    /// `texture_store tex, coord, value`.
    pub fn texture_store(&mut self, tex: InstId, coord: InstId, value: InstId) -> InstId {
        let v = self.m.void_type();
        self.emit(Op::TextureStore, Some(v), &[tex, coord, value])
    }

    /// `buffer_load buf, offset` of type `ty`.
    pub fn buffer_load(&mut self, buf: InstId, offset: InstId, ty: InstId) -> InstId {
        self.emit(Op::BufferLoad, Some(ty), &[buf, offset])
    }

    /// `buffer_store buf, offset, value`.
    pub fn buffer_store(&mut self, buf: InstId, offset: InstId, value: InstId) -> InstId {
        let v = self.m.void_type();
        self.emit(Op::BufferStore, Some(v), &[buf, offset, value])
    }

    /// `atomic_rmw op, ptr, value`: returns the original value.
    pub fn atomic_rmw(&mut self, op: AtomicOp, ptr: InstId, value: InstId) -> InstId {
        let ty = self.ty_of(ptr).and_then(|t| self.m.pointee(t));
        let o = self.m.imm(op.to_u32());
        self.emit(Op::AtomicRmw, ty, &[o, ptr, value])
    }

    /// `atomic_cmpxchg ptr, comparand, value`: returns the original value.
    pub fn atomic_cmpxchg(&mut self, ptr: InstId, comparand: InstId, value: InstId) -> InstId {
        let ty = self.ty_of(ptr).and_then(|t| self.m.pointee(t));
        self.emit(Op::AtomicCmpXchg, ty, &[ptr, comparand, value])
    }

    /// `barrier flags`.
    pub fn barrier(&mut self, flags: BarrierFlags) -> InstId {
        let v = self.m.void_type();
        let f = self.m.imm(flags.0);
        self.emit(Op::Barrier, Some(v), &[f])
    }

    /// `array_length ptr` (u32).
    pub fn array_length(&mut self, ptr: InstId) -> InstId {
        let u = self.m.u32_type();
        self.emit(Op::ArrayLength, Some(u), &[ptr])
    }

    // ---- stages ------------------------------------------------------------------------------

    /// `emit_vertex stream` (geometry).
    pub fn emit_vertex(&mut self, stream: u32) -> InstId {
        let v = self.m.void_type();
        let s = self.m.imm(stream);
        self.emit(Op::EmitVertex, Some(v), &[s])
    }

    /// `end_primitive stream` (geometry).
    pub fn end_primitive(&mut self, stream: u32) -> InstId {
        let v = self.m.void_type();
        let s = self.m.imm(stream);
        self.emit(Op::EndPrimitive, Some(v), &[s])
    }

    /// `set_mesh_outputs vertices, primitives` (mesh; `u32`s).
    pub fn set_mesh_outputs(&mut self, vertices: InstId, primitives: InstId) -> InstId {
        let v = self.m.void_type();
        self.emit(Op::SetMeshOutputs, Some(v), &[vertices, primitives])
    }

    /// `trace_ray accel, flags, cull_mask, sbt_offset, sbt_stride, miss_index, origin,
    /// tmin, direction, tmax, payload` (the operands in that order).
    pub fn trace_ray(&mut self, operands: &[InstId; 11]) -> InstId {
        let v = self.m.void_type();
        self.emit(Op::TraceRay, Some(v), operands)
    }

    /// `report_hit t, kind` (bool).
    pub fn report_hit(&mut self, t: InstId, kind: InstId) -> InstId {
        let b = self.m.bool_type();
        self.emit(Op::ReportHit, Some(b), &[t, kind])
    }

    /// `execute_callable sbt_index, data`.
    pub fn execute_callable(&mut self, sbt_index: InstId, data: InstId) -> InstId {
        let v = self.m.void_type();
        self.emit(Op::ExecuteCallable, Some(v), &[sbt_index, data])
    }

    /// `ray_query_init query, accel, flags, cull_mask, origin, tmin, direction, tmax`.
    pub fn ray_query_init(&mut self, operands: &[InstId; 8]) -> InstId {
        let v = self.m.void_type();
        self.emit(Op::RayQueryInit, Some(v), operands)
    }

    /// `ray_query_proceed`, `ray_query_abort` or `ray_query_confirm` of `query` (the first
    /// yields bool).
    pub fn ray_query_op(&mut self, op: Op, query: InstId) -> InstId {
        let ty = if op == Op::RayQueryProceed {
            self.m.bool_type()
        } else {
            self.m.void_type()
        };
        self.emit(op, Some(ty), &[query])
    }

    /// `ray_query_generate query, t`.
    pub fn ray_query_generate(&mut self, query: InstId, t: InstId) -> InstId {
        let v = self.m.void_type();
        self.emit(Op::RayQueryGenerate, Some(v), &[query, t])
    }

    /// `ray_query_get value, query` of type `ty`.
    pub fn ray_query_get(&mut self, value: RayQueryValue, query: InstId, ty: InstId) -> InstId {
        let w = self.m.imm(value.to_u32());
        self.emit(Op::RayQueryGet, Some(ty), &[w, query])
    }

    // ---- terminators ---------------------------------------------------------------------

    /// `br target(args...)`.
    pub fn br(&mut self, target: Block, args: &[InstId]) -> InstId {
        let mut ops = vec![target.id()];
        ops.extend_from_slice(args);
        self.emit(Op::Br, None, &ops)
    }

    /// `cond_br c, t, f`.
    pub fn cond_br(&mut self, c: InstId, t: Block, f: Block) -> InstId {
        self.emit(Op::CondBr, None, &[c, t.id(), f.id()])
    }

    /// `if_else c, then, else, merge m`.
    pub fn if_else(&mut self, c: InstId, then: Block, els: Block, merge: Block) -> InstId {
        self.emit(Op::IfElse, None, &[c, then.id(), els.id(), merge.id()])
    }

    /// `loop header(args...), break b, continue c`.
    pub fn loop_(
        &mut self,
        header: Block,
        break_block: Block,
        continue_block: Block,
        args: &[InstId],
    ) -> InstId {
        let mut ops = vec![header.id(), break_block.id(), continue_block.id()];
        ops.extend_from_slice(args);
        self.emit(Op::Loop, None, &ops)
    }

    /// `switch v, merge m, default d, [case: target...]`; case values are constants of `v`'s
    /// type.
    pub fn switch(
        &mut self,
        v: InstId,
        merge: Block,
        default: Block,
        cases: &[(InstId, Block)],
    ) -> InstId {
        let mut ops = vec![v, merge.id(), default.id()];
        for (c, b) in cases {
            ops.push(*c);
            ops.push(b.id());
        }
        self.emit(Op::Switch, None, &ops)
    }

    /// `return [v]`.
    pub fn ret(&mut self, v: Option<InstId>) -> InstId {
        let ops: Vec<InstId> = v.into_iter().collect();
        self.emit(Op::Return, None, &ops)
    }

    /// `discard`.
    pub fn discard(&mut self) -> InstId {
        self.emit(Op::Discard, None, &[])
    }

    /// `unreachable`.
    pub fn unreachable(&mut self) -> InstId {
        self.emit(Op::Unreachable, None, &[])
    }

    /// `ignore_hit` (any hit).
    pub fn ignore_hit(&mut self) -> InstId {
        self.emit(Op::IgnoreHit, None, &[])
    }

    /// `accept_hit` (any hit).
    pub fn accept_hit(&mut self) -> InstId {
        self.emit(Op::AcceptHit, None, &[])
    }

    /// `dispatch_mesh x, y, z [, payload]` (amplification).
    pub fn dispatch_mesh(
        &mut self,
        x: InstId,
        y: InstId,
        z: InstId,
        payload: Option<InstId>,
    ) -> InstId {
        let mut ops = vec![x, y, z];
        ops.extend(payload);
        self.emit(Op::DispatchMesh, None, &ops)
    }
}
