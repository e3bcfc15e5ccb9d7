//! Instruction selection: each ordinary IR instruction as SPIR-V instructions. Arithmetic by
//! operand kind (`OpIAdd`/`OpFAdd`, signed and unsigned forms), matrix products and
//! vector-times-scalar, conversions, composites and dynamic indexing, `select` (member-wise on
//! composites before SPIR-V 1.4), ray queries and barriers. Memory access is in `memory.rs`,
//! control flow in `functions.rs`.

use oneshader_ir::{BarrierFlags, InstId, Op, ScalarKind};
use rspirv::spirv::{self, Decoration};
use smallvec::SmallVec;

use super::encode::inst;
use super::error::{EmitError, MALFORMED, OPERANDS, R};
use super::memory::{
    SCOPE_DEVICE, SCOPE_INVOCATION, SCOPE_WORKGROUP, SEM_ACQ_REL, SEM_IMAGE, SEM_UNIFORM,
    SEM_WORKGROUP,
};
use super::module::Emitter;

/// The operand words of one instruction (most fit inline).
pub(super) type Operands = SmallVec<[u32; 8]>;

impl Emitter<'_> {
    /// The kind of the scalar type of operand `i` of `inst` (on the hot path: reads the
    /// opcode of the type, or of a vector's or matrix's component type).
    #[inline]
    fn kind_of(&self, inst_id: InstId, i: usize) -> R<ScalarKind> {
        let m = self.m;
        if let Some(t) = m.ty(m.operand(inst_id, i)) {
            let mut op = m.op(t);
            if op == Op::Vector || op == Op::Matrix {
                op = m.op(m.operand(t, 0));
            }
            if op == Op::Bool {
                return Ok(ScalarKind::Bool);
            }
            if op.is_signed_int_type() {
                return Ok(ScalarKind::Int);
            }
            if op.is_int_type() {
                return Ok(ScalarKind::Uint);
            }
            if op.is_float_type() {
                return Ok(ScalarKind::Float);
            }
        }
        Err(EmitError::new(
            OPERANDS,
            format!(
                "`{}` needs scalar, vector or matrix operands",
                m.op(inst_id).spelling()
            ),
        ))
    }

    /// Emits `ty id a b` with opcode `op`, or row by row when the operands are matrices
    /// (SPIR-V arithmetic takes scalars and vectors only).
    fn binary(&mut self, i: InstId, op: spirv::Op) -> R<()> {
        self.componentwise(i, op, 2)
    }

    /// Emits `ty id a` with opcode `op`, row by row for matrices.
    fn unary(&mut self, i: InstId, op: spirv::Op) -> R<()> {
        self.componentwise(i, op, 1)
    }

    /// The first `arity` operands of `i` through `op`: one instruction for scalars and
    /// vectors, one per row (extract, operate, construct) for matrices.
    fn componentwise(&mut self, i: InstId, op: spirv::Op, arity: usize) -> R<()> {
        let m = self.m;
        let ty_ir = m
            .ty(i)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped instruction"))?;
        let ty = self.ty(ty_ir)?;
        let id = self.id_of(i);
        let mut args: SmallVec<[u32; 2]> = SmallVec::new();
        for k in 0..arity {
            args.push(self.val(m.operand(i, k))?);
        }
        if m.op(ty_ir) == Op::Matrix {
            let (rows, cols) = m.matrix_dims(ty_ir).unwrap_or((0, 0));
            let elem = self.ty(m.operand(ty_ir, 0))?;
            let row_ty = self.vec_ty(elem, cols);
            let mut w: Operands = SmallVec::new();
            w.push(ty);
            w.push(id);
            for r in 0..rows {
                let mut row_op: Operands = SmallVec::new();
                let rr = self.fresh();
                row_op.push(row_ty);
                row_op.push(rr);
                for &a in &args {
                    let ra = self.fresh();
                    inst(
                        &mut self.f.body,
                        spirv::Op::CompositeExtract,
                        &[row_ty, ra, a, r],
                    );
                    row_op.push(ra);
                }
                inst(&mut self.f.body, op, &row_op);
                w.push(rr);
            }
            inst(&mut self.f.body, spirv::Op::CompositeConstruct, &w);
        } else {
            let mut w: Operands = SmallVec::new();
            w.push(ty);
            w.push(id);
            w.extend_from_slice(&args);
            inst(&mut self.f.body, op, &w);
        }
        self.precise(i, id);
        Ok(())
    }

    fn precise(&mut self, i: InstId, id: u32) {
        if self.m.first_child(i).is_some() && self.m.has_decoration(i, Op::Precise) {
            self.decorate(id, Decoration::NoContraction, &[]);
        }
    }

    /// `e` with the source range of instruction `i` (its `src_loc` decoration), when it has
    /// one and `e` has no position yet.
    pub(crate) fn located(&self, i: InstId, mut e: EmitError) -> EmitError {
        let m = self.m;
        if e.0.span.is_none()
            && let Some(d) = m.find_decoration(i, Op::SrcLoc)
            && let (Some(file), Some(start), Some(end)) = (
                m.imm_operand(d, 0),
                m.imm_operand(d, 1),
                m.imm_operand(d, 2),
            )
        {
            e.0.span = Some(oneshader_ir::diag::Span {
                file: oneshader_ir::diag::FileId(file),
                start,
                end,
            });
        }
        e
    }

    /// Emits one ordinary instruction.
    pub(crate) fn instruction(&mut self, i: InstId) -> R<()> {
        use ScalarKind::*;
        use spirv::Op as S;
        let m = self.m;
        let op = m.op(i);
        match op {
            Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Rem => {
                let k = self.kind_of(i, 0)?;
                let sop = match (op, k) {
                    (Op::Add, Float) => S::FAdd,
                    (Op::Add, _) => S::IAdd,
                    (Op::Sub, Float) => S::FSub,
                    (Op::Sub, _) => S::ISub,
                    (Op::Mul, Float) => S::FMul,
                    (Op::Mul, _) => S::IMul,
                    (Op::Div, Float) => S::FDiv,
                    (Op::Div, Int) => S::SDiv,
                    (Op::Div, _) => S::UDiv,
                    (Op::Rem, Float) => S::FRem,
                    (Op::Rem, Int) => S::SRem,
                    _ => S::UMod,
                };
                if k == Bool {
                    return Err(EmitError::new(OPERANDS, "arithmetic on bool operands"));
                }
                if sop == S::FMul
                    && let Some((v, s)) = self.vector_times_scalar(i)
                {
                    let ty = self.result_ty(i)?;
                    let id = self.id_of(i);
                    let (v, s) = (self.val(v)?, self.val(s)?);
                    inst(&mut self.f.body, S::VectorTimesScalar, &[ty, id, v, s]);
                    self.precise(i, id);
                    return Ok(());
                }
                self.binary(i, sop)
            }
            Op::Neg => {
                let k = self.kind_of(i, 0)?;
                self.unary(i, if k == Float { S::FNegate } else { S::SNegate })
            }
            Op::And | Op::Or | Op::Xor => {
                let k = self.kind_of(i, 0)?;
                let sop = match (op, k) {
                    (Op::And, Bool) => S::LogicalAnd,
                    (Op::Or, Bool) => S::LogicalOr,
                    (Op::Xor, Bool) => S::LogicalNotEqual,
                    (Op::And, _) => S::BitwiseAnd,
                    (Op::Or, _) => S::BitwiseOr,
                    _ => S::BitwiseXor,
                };
                self.binary(i, sop)
            }
            Op::Not => {
                let k = self.kind_of(i, 0)?;
                self.unary(i, if k == Bool { S::LogicalNot } else { S::Not })
            }
            Op::Shl | Op::Shr => self.shift(i),
            Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge => {
                let k = self.kind_of(i, 0)?;
                let sop = match (op, k) {
                    (Op::Eq, Float) => S::FOrdEqual,
                    (Op::Eq, Bool) => S::LogicalEqual,
                    (Op::Eq, _) => S::IEqual,
                    (Op::Ne, Float) => S::FUnordNotEqual,
                    (Op::Ne, Bool) => S::LogicalNotEqual,
                    (Op::Ne, _) => S::INotEqual,
                    (Op::Lt, Float) => S::FOrdLessThan,
                    (Op::Lt, Int) => S::SLessThan,
                    (Op::Lt, _) => S::ULessThan,
                    (Op::Le, Float) => S::FOrdLessThanEqual,
                    (Op::Le, Int) => S::SLessThanEqual,
                    (Op::Le, _) => S::ULessThanEqual,
                    (Op::Gt, Float) => S::FOrdGreaterThan,
                    (Op::Gt, Int) => S::SGreaterThan,
                    (Op::Gt, _) => S::UGreaterThan,
                    (Op::Ge, Float) => S::FOrdGreaterThanEqual,
                    (Op::Ge, Int) => S::SGreaterThanEqual,
                    _ => S::UGreaterThanEqual,
                };
                if k == Bool && !matches!(op, Op::Eq | Op::Ne) {
                    return Err(EmitError::new(OPERANDS, "ordering comparison of bools"));
                }
                let ty = self.result_ty(i)?;
                let id = self.id_of(i);
                let a = self.val(m.operand(i, 0))?;
                let b = self.val(m.operand(i, 1))?;
                inst(&mut self.f.body, sop, &[ty, id, a, b]);
                Ok(())
            }
            Op::MatMul => self.matmul(i),
            Op::Convert => self.convert(i),
            Op::Bitcast => self.unary(i, S::Bitcast),
            Op::Construct => self.construct(i),
            Op::Extract => {
                let ty = self.result_ty(i)?;
                let id = self.id_of(i);
                let mut w: Operands = SmallVec::new();
                w.push(ty);
                w.push(id);
                w.push(self.val(m.operand(i, 0))?);
                for k in 1..m.num_operands(i) {
                    w.push(m.imm_operand(i, k).unwrap_or(0));
                }
                inst(&mut self.f.body, S::CompositeExtract, &w);
                Ok(())
            }
            Op::Insert => {
                let ty = self.result_ty(i)?;
                let id = self.id_of(i);
                let composite = self.val(m.operand(i, 0))?;
                let object = self.val(m.operand(i, 1))?;
                let mut w: Operands = SmallVec::new();
                w.extend_from_slice(&[ty, id, object, composite]);
                for k in 2..m.num_operands(i) {
                    w.push(m.imm_operand(i, k).unwrap_or(0));
                }
                inst(&mut self.f.body, S::CompositeInsert, &w);
                Ok(())
            }
            Op::ExtractDyn | Op::InsertDyn => self.dynamic_index(i),
            Op::Shuffle => {
                let ty = self.result_ty(i)?;
                let id = self.id_of(i);
                let a = self.val(m.operand(i, 0))?;
                let b = self.val(m.operand(i, 1))?;
                let mut w: Operands = SmallVec::new();
                w.extend_from_slice(&[ty, id, a, b]);
                for k in 2..m.num_operands(i) {
                    w.push(m.imm_operand(i, k).unwrap_or(0));
                }
                inst(&mut self.f.body, S::VectorShuffle, &w);
                Ok(())
            }
            Op::Select => self.select(i),
            Op::Var => {
                let ty = self.result_ty(i)?;
                let id = self.id_of(i);
                inst(
                    &mut self.f.vars,
                    S::Variable,
                    &[ty, id, spirv::StorageClass::Function as u32],
                );
                self.name(id, m.name(i));
                self.dbg_declare(i);
                Ok(())
            }
            Op::Load => self.load(i),
            Op::Store => self.store(i),
            Op::FieldAddr | Op::ElementAddr => self.access_chain(i),
            Op::TexelAddr => {
                let ty = self.result_ty(i)?;
                let id = self.id_of(i);
                let img = self.val(m.operand(i, 0))?;
                let coord = self.val(m.operand(i, 1))?;
                let sample = self.val(m.operand(i, 2))?;
                inst(
                    &mut self.f.body,
                    S::ImageTexelPointer,
                    &[ty, id, img, coord, sample],
                );
                Ok(())
            }
            Op::Call => self.call(i),
            Op::CallIntrinsic => self.intrinsic(i),
            Op::Sample
            | Op::SampleBias
            | Op::SampleLevel
            | Op::SampleGrad
            | Op::SampleCmp
            | Op::SampleCmpLevelZero
            | Op::Gather
            | Op::GatherCmp
            | Op::TextureLoad
            | Op::TextureStore
            | Op::QuerySize
            | Op::QueryLevels
            | Op::QuerySamples
            | Op::QueryLod
            | Op::SampleCmpLevel
            | Op::SampleCmpBias
            | Op::SampleCmpGrad => self.texture_op(i),
            Op::BufferLoad | Op::BufferStore => self.byte_buffer(i),
            Op::AtomicRmw | Op::AtomicCmpXchg => self.atomic(i),
            Op::Barrier => self.barrier(i),
            Op::ArrayLength => self.array_length(i),
            Op::EmitVertex | Op::EndPrimitive => {
                let stream = m.imm_operand(i, 0).unwrap_or(0);
                let emit = m.op(i) == Op::EmitVertex;
                if stream == 0 {
                    let op = if emit { S::EmitVertex } else { S::EndPrimitive };
                    inst(&mut self.f.body, op, &[]);
                } else {
                    self.caps.add(rspirv::spirv::Capability::GeometryStreams);
                    let c = self.const_u32(stream);
                    let op = if emit {
                        S::EmitStreamVertex
                    } else {
                        S::EndStreamPrimitive
                    };
                    inst(&mut self.f.body, op, &[c]);
                }
                Ok(())
            }
            Op::SetMeshOutputs => {
                let v = self.val(m.operand(i, 0))?;
                let p = self.val(m.operand(i, 1))?;
                inst(&mut self.f.body, S::SetMeshOutputsEXT, &[v, p]);
                Ok(())
            }
            Op::TraceRay => {
                let accel = self.load_accel(m.operand(i, 0))?;
                let mut args: SmallVec<[u32; 11]> = SmallVec::new();
                args.push(accel);
                for k in 1..11 {
                    args.push(self.val(m.operand(i, k))?);
                }
                inst(&mut self.f.body, S::TraceRayKHR, &args);
                Ok(())
            }
            Op::ReportHit => {
                let ty = self.result_ty(i)?;
                let id = self.id_of(i);
                let t = self.val(m.operand(i, 0))?;
                let kind = self.val(m.operand(i, 1))?;
                inst(
                    &mut self.f.body,
                    S::ReportIntersectionKHR,
                    &[ty, id, t, kind],
                );
                Ok(())
            }
            Op::ExecuteCallable => {
                let sbt = self.val(m.operand(i, 0))?;
                let data = self.val(m.operand(i, 1))?;
                inst(&mut self.f.body, S::ExecuteCallableKHR, &[sbt, data]);
                Ok(())
            }
            Op::RayQueryInit
            | Op::RayQueryProceed
            | Op::RayQueryAbort
            | Op::RayQueryConfirm
            | Op::RayQueryGenerate
            | Op::RayQueryGet => self.ray_query(i),
            other => Err(EmitError::new(
                MALFORMED,
                format!("`{}` is not an instruction", other.spelling()),
            )),
        }
    }

    fn shift(&mut self, i: InstId) -> R<()> {
        use spirv::Op as S;
        let m = self.m;
        let k = self.kind_of(i, 0)?;
        let sop = match (m.op(i), k) {
            (Op::Shl, _) => S::ShiftLeftLogical,
            (_, ScalarKind::Int) => S::ShiftRightArithmetic,
            _ => S::ShiftRightLogical,
        };
        let ty = self.result_ty(i)?;
        let id = self.id_of(i);
        let a = self.val(m.operand(i, 0))?;
        let amount = m.operand(i, 1);
        let amount_ty = m
            .ty(amount)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped shift amount"))?;
        let bits = m
            .ty(m.operand(i, 0))
            .and_then(|t| m.scalar_of(t))
            .and_then(|s| m.scalar_bits(s))
            .unwrap_or(32);
        // The IR masks the shift amount to the width (HLSL's rule); SPIR-V leaves larger
        // amounts undefined, so mask unless the amount is a constant already in range.
        let in_range = m
            .const_int_value(amount)
            .is_some_and(|v| v >= 0 && v < bits as i128);
        let b = if in_range {
            self.val(amount)?
        } else {
            let mask = self.splat_const(amount_ty, bits as i64 - 1)?;
            let b = self.val(amount)?;
            let t = self.ty(amount_ty)?;
            let r = self.fresh();
            inst(&mut self.f.body, S::BitwiseAnd, &[t, r, b, mask]);
            r
        };
        inst(&mut self.f.body, sop, &[ty, id, a, b]);
        Ok(())
    }

    fn matmul(&mut self, i: InstId) -> R<()> {
        use spirv::Op as S;
        let m = self.m;
        let ty = self.result_ty(i)?;
        let id = self.id_of(i);
        let a_ir = m.operand(i, 0);
        let b_ir = m.operand(i, 1);
        let ta = m.ty(a_ir).map(|t| m.op(t));
        let tb = m.ty(b_ir).map(|t| m.op(t));
        let a = self.val(a_ir)?;
        let b = self.val(b_ir)?;
        // HLSL rows are SPIR-V columns: every product swaps its operands.
        let (sop, x, y) = match (ta, tb) {
            (Some(Op::Vector), Some(Op::Matrix)) => (S::MatrixTimesVector, b, a),
            (Some(Op::Matrix), Some(Op::Vector)) => (S::VectorTimesMatrix, b, a),
            (Some(Op::Matrix), Some(Op::Matrix)) => (S::MatrixTimesMatrix, b, a),
            (Some(Op::Vector), Some(Op::Vector)) => (S::Dot, a, b),
            (Some(Op::Matrix), Some(s)) if s.is_float_type() => (S::MatrixTimesScalar, a, b),
            (Some(s), Some(Op::Matrix)) if s.is_float_type() => (S::MatrixTimesScalar, b, a),
            _ => {
                return Err(EmitError::new(
                    OPERANDS,
                    "`matmul` needs float matrix and vector operands",
                ));
            }
        };
        inst(&mut self.f.body, sop, &[ty, id, x, y]);
        self.precise(i, id);
        Ok(())
    }

    fn convert(&mut self, i: InstId) -> R<()> {
        use spirv::Op as S;
        let m = self.m;
        let to_ir = m
            .ty(i)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped conversion"))?;
        let from_ir = m
            .ty(m.operand(i, 0))
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped operand"))?;
        let id = self.id_of(i);
        let v = self.val(m.operand(i, 0))?;
        if m.op(to_ir) == Op::Matrix {
            let (rows, cols) = m.matrix_dims(to_ir).unwrap_or((0, 0));
            let to_elem_ir = m.operand(to_ir, 0);
            let from_elem_ir = m.operand(from_ir, 0);
            let to_row = {
                let e = self.ty(to_elem_ir)?;
                self.vec_ty(e, cols)
            };
            let from_row = {
                let e = self.ty(from_elem_ir)?;
                self.vec_ty(e, cols)
            };
            let ty = self.ty(to_ir)?;
            let sop = self.conversion_op(from_elem_ir, to_elem_ir)?;
            let mut w: Operands = SmallVec::new();
            w.push(ty);
            w.push(id);
            for r in 0..rows {
                let x = self.fresh();
                let y = self.fresh();
                inst(&mut self.f.body, S::CompositeExtract, &[from_row, x, v, r]);
                match sop {
                    Some(sop) => inst(&mut self.f.body, sop, &[to_row, y, x]),
                    None => inst(&mut self.f.body, S::CopyObject, &[to_row, y, x]),
                }
                w.push(y);
            }
            inst(&mut self.f.body, S::CompositeConstruct, &w);
            return Ok(());
        }
        let ty = self.ty(to_ir)?;
        let from_s = m
            .scalar_of(from_ir)
            .ok_or_else(|| EmitError::new(OPERANDS, "`convert` of a non-numeric value"))?;
        let to_s = m
            .scalar_of(to_ir)
            .ok_or_else(|| EmitError::new(OPERANDS, "`convert` to a non-numeric type"))?;
        if m.op(to_s) == Op::Bool {
            // Nonzero is true.
            let zero = self.splat_const(from_ir, 0)?;
            let sop = if m.op(from_s).is_float_type() {
                S::FUnordNotEqual
            } else if m.op(from_s) == Op::Bool {
                inst(&mut self.f.body, S::CopyObject, &[ty, id, v]);
                return Ok(());
            } else {
                S::INotEqual
            };
            inst(&mut self.f.body, sop, &[ty, id, v, zero]);
            return Ok(());
        }
        if m.op(from_s) == Op::Bool {
            let one = self.splat_const(to_ir, 1)?;
            let zero = self.splat_const(to_ir, 0)?;
            inst(&mut self.f.body, S::Select, &[ty, id, v, one, zero]);
            return Ok(());
        }
        let (fop, top) = (m.op(from_s), m.op(to_s));
        if fop.is_int_type()
            && !fop.is_signed_int_type()
            && top.is_signed_int_type()
            && m.scalar_bits(from_s) != m.scalar_bits(to_s)
        {
            // Zero-extension into a signed type: OpUConvert yields unsigned, then a bitcast.
            let width = m.scalar_bits(to_s).unwrap_or(32);
            let u = self.int_ty(width, false);
            let ut = self.vec_ty(u, m.vector_len(to_ir).unwrap_or(1));
            let t = self.fresh();
            inst(&mut self.f.body, S::UConvert, &[ut, t, v]);
            inst(&mut self.f.body, S::Bitcast, &[ty, id, t]);
            return Ok(());
        }
        match self.conversion_op(from_s, to_s)? {
            Some(sop) => inst(&mut self.f.body, sop, &[ty, id, v]),
            None => inst(&mut self.f.body, S::CopyObject, &[ty, id, v]),
        }
        Ok(())
    }

    /// The opcode converting scalars of IR type `from` to `to` (`None`: the same type).
    fn conversion_op(&self, from: InstId, to: InstId) -> R<Option<spirv::Op>> {
        use spirv::Op as S;
        let m = self.m;
        let (f, t) = (m.op(from), m.op(to));
        if f == t {
            return Ok(None);
        }
        let fb = m.scalar_bits(from).unwrap_or(32);
        let tb = m.scalar_bits(to).unwrap_or(32);
        Ok(Some(match (f.is_float_type(), t.is_float_type()) {
            (true, true) => S::FConvert,
            (true, false) => {
                if t.is_signed_int_type() {
                    S::ConvertFToS
                } else {
                    S::ConvertFToU
                }
            }
            (false, true) => {
                if f.is_signed_int_type() {
                    S::ConvertSToF
                } else {
                    S::ConvertUToF
                }
            }
            (false, false) => {
                if fb == tb {
                    S::Bitcast
                } else if f.is_signed_int_type() {
                    // Sign-extend from a signed source (SConvert may change signedness).
                    S::SConvert
                } else {
                    S::UConvert
                }
            }
        }))
    }

    /// The scalar a splat `construct` repeats (`construct vec<T, N>(s)` or `(s, s, .., s)`).
    fn splat_scalar(&self, v: InstId) -> Option<InstId> {
        let m = self.m;
        let ty = m.ty(v)?;
        if m.try_op(v) != Some(Op::Construct) || m.op(ty) != Op::Vector {
            return None;
        }
        let s = m.operand(v, 0);
        let scalar = m.ty(s).is_some() && m.ty(s) == m.scalar_of(ty);
        (scalar && m.operands(v).all(|x| x == s)).then_some(s)
    }

    /// `(vector, scalar)` when the float `mul` `i` multiplies a vector by a splat of a
    /// scalar (and not a splat by a splat): SPIR-V's `OpVectorTimesScalar`, which spares the
    /// splat.
    fn vector_times_scalar(&self, i: InstId) -> Option<(InstId, InstId)> {
        let m = self.m;
        if m.ty(i).is_none_or(|t| m.op(t) != Op::Vector) {
            return None;
        }
        let (a, b) = (m.operand(i, 0), m.operand(i, 1));
        match (self.splat_scalar(a), self.splat_scalar(b)) {
            (None, Some(s)) => Some((a, s)),
            (Some(s), None) => Some((b, s)),
            _ => None,
        }
    }

    fn construct(&mut self, i: InstId) -> R<()> {
        let m = self.m;
        // A splat only vector-times-scalar multiplications use is never needed: each of
        // them reads the scalar.
        if self.splat_scalar(i).is_some()
            && m.uses(i).all(|u| {
                m.op(u.user) == Op::Mul
                    && self.kind_of(u.user, 0).ok() == Some(ScalarKind::Float)
                    && self.vector_times_scalar(u.user).is_some()
            })
            && m.uses(i).next().is_some()
        {
            return Ok(());
        }
        let ty_ir = m
            .ty(i)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped construct"))?;
        let ty = self.ty(ty_ir)?;
        let id = self.id_of(i);
        let n = m.num_operands(i);
        if n + 3 > super::encode::MAX_WORDS {
            return Err(super::constants::too_many_elements(
                m,
                ty_ir,
                n,
                "`construct`",
            ));
        }
        let mut w: Operands = SmallVec::new();
        w.push(ty);
        w.push(id);
        for k in 0..n {
            w.push(self.val(m.operand(i, k))?);
        }
        if m.op(ty_ir) == Op::Vector && n == 1 {
            // A splat: one scalar for every component.
            let len = m.vector_len(ty_ir).unwrap_or(1);
            let s = w[2];
            for _ in 1..len {
                w.push(s);
            }
        }
        inst(&mut self.f.body, spirv::Op::CompositeConstruct, &w);
        Ok(())
    }

    /// `extract_dyn` / `insert_dyn`: on vectors directly; on arrays and matrices through a
    /// function variable (SPIR-V has no dynamic extract from an array value).
    fn dynamic_index(&mut self, i: InstId) -> R<()> {
        use spirv::Op as S;
        let m = self.m;
        let comp_ir = m.operand(i, 0);
        let comp_ty_ir = m
            .ty(comp_ir)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped operand"))?;
        let ty = self.result_ty(i)?;
        let id = self.id_of(i);
        let comp = self.val(comp_ir)?;
        let is_extract = m.op(i) == Op::ExtractDyn;
        let index_ir = if is_extract {
            m.operand(i, 1)
        } else {
            m.operand(i, 2)
        };
        let index = self.val(index_ir)?;
        if m.op(comp_ty_ir) == Op::Vector {
            if is_extract {
                inst(
                    &mut self.f.body,
                    S::VectorExtractDynamic,
                    &[ty, id, comp, index],
                );
            } else {
                let v = self.val(m.operand(i, 1))?;
                inst(
                    &mut self.f.body,
                    S::VectorInsertDynamic,
                    &[ty, id, comp, v, index],
                );
            }
            return Ok(());
        }
        let comp_ty = self.ty(comp_ty_ir)?;
        let var_ty = self.ptr_spv(spirv::StorageClass::Function, comp_ty);
        let var = self.fresh();
        inst(
            &mut self.f.vars,
            S::Variable,
            &[var_ty, var, spirv::StorageClass::Function as u32],
        );
        inst(&mut self.f.body, S::Store, &[var, comp]);
        let elem_ir = if is_extract {
            m.ty(i)
        } else {
            m.ty(m.operand(i, 1))
        }
        .ok_or_else(|| EmitError::new(MALFORMED, "an untyped operand"))?;
        let elem = self.ty(elem_ir)?;
        let elem_ptr = self.ptr_spv(spirv::StorageClass::Function, elem);
        let p = self.fresh();
        inst(&mut self.f.body, S::AccessChain, &[elem_ptr, p, var, index]);
        if is_extract {
            inst(&mut self.f.body, S::Load, &[ty, id, p]);
        } else {
            let v = self.val(m.operand(i, 1))?;
            inst(&mut self.f.body, S::Store, &[p, v]);
            inst(&mut self.f.body, S::Load, &[ty, id, var]);
        }
        Ok(())
    }

    fn select(&mut self, i: InstId) -> R<()> {
        let m = self.m;
        let ty_ir = m
            .ty(i)
            .ok_or_else(|| EmitError::new(MALFORMED, "an untyped select"))?;
        let ty = self.ty(ty_ir)?;
        let id = self.id_of(i);
        let c_ir = m.operand(i, 0);
        let mut c = self.val(c_ir)?;
        let a = self.val(m.operand(i, 1))?;
        let b = self.val(m.operand(i, 2))?;
        let cond_scalar = m.ty(c_ir).is_some_and(|t| m.op(t) == Op::Bool);
        match m.op(ty_ir) {
            Op::Vector if cond_scalar && self.minor < 4 => {
                // Before SPIR-V 1.4 the condition of a vector select is a vector.
                let n = m.vector_len(ty_ir).unwrap_or(1);
                let bt = self.bool_ty();
                let bv = self.vec_ty(bt, n);
                let s = self.fresh();
                let mut w: Operands = SmallVec::new();
                w.extend_from_slice(&[bv, s]);
                for _ in 0..n {
                    w.push(c);
                }
                inst(&mut self.f.body, spirv::Op::CompositeConstruct, &w);
                c = s;
            }
            op if !op.is_scalar_type() && op != Op::Vector && self.minor < 4 => {
                if !cond_scalar {
                    return Err(EmitError::new(
                        OPERANDS,
                        "`select` of a composite value needs a scalar condition",
                    ));
                }
                // Before SPIR-V 1.4 OpSelect takes scalars and vectors only: select member
                // by member.
                let r = self.select_members(c, a, b, ty_ir)?;
                inst(&mut self.f.body, spirv::Op::CopyObject, &[ty, id, r]);
                return Ok(());
            }
            _ => {}
        }
        inst(&mut self.f.body, spirv::Op::Select, &[ty, id, c, a, b]);
        Ok(())
    }

    /// `c ? a : b` on composites of IR type `t`, member by member (scalar condition).
    fn select_members(&mut self, c: u32, a: u32, b: u32, t: InstId) -> R<u32> {
        use spirv::Op as S;
        let m = self.m;
        let ty = self.ty(t)?;
        let r = self.fresh();
        let op = m.op(t);
        if op.is_scalar_type() || op == Op::Vector {
            let mut cond = c;
            if op == Op::Vector {
                let n = m.vector_len(t).unwrap_or(1);
                let bt = self.bool_ty();
                let bv = self.vec_ty(bt, n);
                cond = self.fresh();
                let mut w: Operands = SmallVec::new();
                w.extend_from_slice(&[bv, cond]);
                for _ in 0..n {
                    w.push(c);
                }
                inst(&mut self.f.body, S::CompositeConstruct, &w);
            }
            inst(&mut self.f.body, S::Select, &[ty, r, cond, a, b]);
            return Ok(r);
        }
        let members: Vec<InstId> = match op {
            Op::Struct => m.struct_fields(t).iter().filter_map(|&f| m.ty(f)).collect(),
            Op::Array => {
                let n = m.array_len(t).unwrap_or(0);
                vec![m.operand(t, 0); n as usize]
            }
            Op::Matrix => {
                // Rows are vectors: select each with the splatted condition.
                let (rows, cols) = m.matrix_dims(t).unwrap_or((0, 0));
                let elem = self.ty(m.operand(t, 0))?;
                let row_ty = self.vec_ty(elem, cols);
                let bt = self.bool_ty();
                let bv = self.vec_ty(bt, cols);
                let cond = self.fresh();
                let mut w: Operands = SmallVec::new();
                w.extend_from_slice(&[bv, cond]);
                for _ in 0..cols {
                    w.push(c);
                }
                inst(&mut self.f.body, S::CompositeConstruct, &w);
                let mut out: Vec<u32> = vec![ty, r];
                for k in 0..rows {
                    let x = self.fresh();
                    let y = self.fresh();
                    let z = self.fresh();
                    inst(&mut self.f.body, S::CompositeExtract, &[row_ty, x, a, k]);
                    inst(&mut self.f.body, S::CompositeExtract, &[row_ty, y, b, k]);
                    inst(&mut self.f.body, S::Select, &[row_ty, z, cond, x, y]);
                    out.push(z);
                }
                inst(&mut self.f.body, S::CompositeConstruct, &out);
                return Ok(r);
            }
            _ => {
                return Err(EmitError::new(
                    OPERANDS,
                    "`select` of this type needs SPIR-V 1.4 (target vulkan1.1spirv1.4 or later)",
                ));
            }
        };
        let mut w: Vec<u32> = vec![ty, r];
        for (k, &mt) in members.iter().enumerate() {
            let mty = self.ty(mt)?;
            let x = self.fresh();
            let y = self.fresh();
            inst(
                &mut self.f.body,
                S::CompositeExtract,
                &[mty, x, a, k as u32],
            );
            inst(
                &mut self.f.body,
                S::CompositeExtract,
                &[mty, y, b, k as u32],
            );
            w.push(self.select_members(c, x, y, mt)?);
        }
        inst(&mut self.f.body, S::CompositeConstruct, &w);
        Ok(r)
    }

    /// The `ray_query_*` instructions (SPV_KHR_ray_query).
    fn ray_query(&mut self, i: InstId) -> R<()> {
        use oneshader_ir::RayQueryValue as V;
        use spirv::Op as S;
        let m = self.m;
        self.ray_query_caps();
        let op = m.op(i);
        let q_index = if op == Op::RayQueryGet { 1 } else { 0 };
        let q = self.ptr_operand(m.operand(i, q_index))?;
        match op {
            Op::RayQueryInit => {
                let accel = self.load_accel(m.operand(i, 1))?;
                let mut args: SmallVec<[u32; 8]> = SmallVec::new();
                args.push(q);
                args.push(accel);
                for k in 2..8 {
                    args.push(self.val(m.operand(i, k))?);
                }
                inst(&mut self.f.body, S::RayQueryInitializeKHR, &args);
            }
            Op::RayQueryProceed => {
                let ty = self.result_ty(i)?;
                let id = self.id_of(i);
                inst(&mut self.f.body, S::RayQueryProceedKHR, &[ty, id, q]);
            }
            Op::RayQueryAbort => inst(&mut self.f.body, S::RayQueryTerminateKHR, &[q]),
            Op::RayQueryConfirm => inst(&mut self.f.body, S::RayQueryConfirmIntersectionKHR, &[q]),
            Op::RayQueryGenerate => {
                let t = self.val(m.operand(i, 1))?;
                inst(
                    &mut self.f.body,
                    S::RayQueryGenerateIntersectionKHR,
                    &[q, t],
                );
            }
            _ => {
                let which = m
                    .imm_operand(i, 0)
                    .and_then(V::from_u32)
                    .ok_or_else(|| EmitError::new(MALFORMED, "unknown ray-query value"))?;
                let ty = self.result_ty(i)?;
                let id = self.id_of(i);
                // The reads of the ray itself take no intersection operand.
                let (sop, per_intersection) = match which {
                    V::RayFlags => (S::RayQueryGetRayFlagsKHR, false),
                    V::RayTmin => (S::RayQueryGetRayTMinKHR, false),
                    V::WorldRayOrigin => (S::RayQueryGetWorldRayOriginKHR, false),
                    V::WorldRayDirection => (S::RayQueryGetWorldRayDirectionKHR, false),
                    V::CandidateAabbOpaque => {
                        (S::RayQueryGetIntersectionCandidateAABBOpaqueKHR, false)
                    }
                    V::CandidateType | V::CommittedStatus => {
                        (S::RayQueryGetIntersectionTypeKHR, true)
                    }
                    V::CandidateT | V::CommittedT => (S::RayQueryGetIntersectionTKHR, true),
                    V::CandidateInstanceIndex | V::CommittedInstanceIndex => {
                        (S::RayQueryGetIntersectionInstanceIdKHR, true)
                    }
                    V::CandidateInstanceId | V::CommittedInstanceId => {
                        (S::RayQueryGetIntersectionInstanceCustomIndexKHR, true)
                    }
                    V::CandidateSbtOffset | V::CommittedSbtOffset => (
                        S::RayQueryGetIntersectionInstanceShaderBindingTableRecordOffsetKHR,
                        true,
                    ),
                    V::CandidateGeometryIndex | V::CommittedGeometryIndex => {
                        (S::RayQueryGetIntersectionGeometryIndexKHR, true)
                    }
                    V::CandidatePrimitiveIndex | V::CommittedPrimitiveIndex => {
                        (S::RayQueryGetIntersectionPrimitiveIndexKHR, true)
                    }
                    V::CandidateBarycentrics | V::CommittedBarycentrics => {
                        (S::RayQueryGetIntersectionBarycentricsKHR, true)
                    }
                    V::CandidateFrontFace | V::CommittedFrontFace => {
                        (S::RayQueryGetIntersectionFrontFaceKHR, true)
                    }
                    V::CandidateObjectRayDirection | V::CommittedObjectRayDirection => {
                        (S::RayQueryGetIntersectionObjectRayDirectionKHR, true)
                    }
                    V::CandidateObjectRayOrigin | V::CommittedObjectRayOrigin => {
                        (S::RayQueryGetIntersectionObjectRayOriginKHR, true)
                    }
                    V::CandidateObjectToWorld | V::CommittedObjectToWorld => {
                        (S::RayQueryGetIntersectionObjectToWorldKHR, true)
                    }
                    V::CandidateWorldToObject | V::CommittedWorldToObject => {
                        (S::RayQueryGetIntersectionWorldToObjectKHR, true)
                    }
                };
                if per_intersection {
                    let committed = self.const_u32(which.is_committed() as u32);
                    inst(&mut self.f.body, sop, &[ty, id, q, committed]);
                } else {
                    inst(&mut self.f.body, sop, &[ty, id, q]);
                }
            }
        }
        Ok(())
    }

    fn barrier(&mut self, i: InstId) -> R<()> {
        let m = self.m;
        let flags = BarrierFlags(m.imm_operand(i, 0).unwrap_or(0));
        let device = flags.contains(BarrierFlags::DEVICE_MEMORY);
        let mut sem = 0;
        if flags.contains(BarrierFlags::WORKGROUP_MEMORY) {
            sem |= SEM_WORKGROUP;
        }
        if device {
            sem |= SEM_UNIFORM | SEM_IMAGE;
        }
        if sem != 0 {
            sem |= SEM_ACQ_REL;
        }
        // Without memory semantics the memory scope names no memory: `Invocation` (glslang's
        // choice; Vulkan forbids a `Workgroup` memory scope in tessellation control shaders).
        let mem_scope = self.const_u32(if device {
            SCOPE_DEVICE
        } else if sem == 0 {
            SCOPE_INVOCATION
        } else {
            SCOPE_WORKGROUP
        });
        let sem = self.const_u32(sem);
        if flags.contains(BarrierFlags::GROUP_SYNC) {
            let exec = self.const_u32(SCOPE_WORKGROUP);
            inst(
                &mut self.f.body,
                spirv::Op::ControlBarrier,
                &[exec, mem_scope, sem],
            );
        } else {
            inst(
                &mut self.f.body,
                spirv::Op::MemoryBarrier,
                &[mem_scope, sem],
            );
        }
        Ok(())
    }
}
