//! Type and constant constructors (all interned) and type queries.

use crate::imm::{AddressSpace, Dim, ImageFormat, TextureAccess};
use crate::module::{InstId, Module, Payload};
use crate::ops::Op;

/// The parameters of a texture type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TextureDesc {
    /// The element type as declared (`f32`, `vec<f32, 4>`, ...).
    pub sampled_type: InstId,
    /// Dimensionality.
    pub dim: Dim,
    /// Array texture.
    pub arrayed: bool,
    /// Multisampled.
    pub multisampled: bool,
    /// 0: not a depth texture, 1: depth texture, 2: unknown.
    pub depth: u32,
    /// Sampled or storage.
    pub access: TextureAccess,
    /// Storage format (`unknown` when not given).
    pub format: ImageFormat,
}

/// A scalar kind, for building and classifying types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarKind {
    /// `bool`.
    Bool,
    /// Signed integer.
    Int,
    /// Unsigned integer.
    Uint,
    /// Float.
    Float,
}

impl Module {
    // ---- types ---------------------------------------------------------------------------

    fn simple_type(&mut self, op: Op) -> InstId {
        self.intern(op, None, &[], Payload::None)
    }

    /// `void`.
    pub fn void_type(&mut self) -> InstId {
        self.simple_type(Op::Void)
    }

    /// `bool`.
    pub fn bool_type(&mut self) -> InstId {
        self.simple_type(Op::Bool)
    }

    /// `i32`.
    pub fn i32_type(&mut self) -> InstId {
        self.simple_type(Op::I32)
    }

    /// `u32`.
    pub fn u32_type(&mut self) -> InstId {
        self.simple_type(Op::U32)
    }

    /// `f32`.
    pub fn f32_type(&mut self) -> InstId {
        self.simple_type(Op::F32)
    }

    /// A scalar type by opcode (`Op::Bool`, `Op::I8`..`Op::F64`).
    pub fn scalar_type(&mut self, op: Op) -> InstId {
        debug_assert!(op.is_scalar_type());
        self.simple_type(op)
    }

    /// An integer type of `bits` (8, 16, 32, 64) bits.
    pub fn int_type(&mut self, bits: u32, signed: bool) -> InstId {
        let op = match (bits, signed) {
            (8, true) => Op::I8,
            (16, true) => Op::I16,
            (64, true) => Op::I64,
            (_, true) => Op::I32,
            (8, false) => Op::U8,
            (16, false) => Op::U16,
            (64, false) => Op::U64,
            (_, false) => Op::U32,
        };
        self.simple_type(op)
    }

    /// A float type of `bits` (16, 32, 64) bits.
    pub fn float_type(&mut self, bits: u32) -> InstId {
        let op = match bits {
            16 => Op::F16,
            64 => Op::F64,
            _ => Op::F32,
        };
        self.simple_type(op)
    }

    /// `vec<elem, n>`.
    pub fn vector_type(&mut self, elem: InstId, n: u32) -> InstId {
        let n = self.imm(n);
        self.intern(Op::Vector, None, &[elem, n], Payload::None)
    }

    /// `mat<elem, rows, cols>`.
    pub fn matrix_type(&mut self, elem: InstId, rows: u32, cols: u32) -> InstId {
        let r = self.imm(rows);
        let c = self.imm(cols);
        self.intern(Op::Matrix, None, &[elem, r, c], Payload::None)
    }

    /// `array<elem, n>`.
    pub fn array_type(&mut self, elem: InstId, n: u32) -> InstId {
        let n = self.imm(n);
        self.intern(Op::Array, None, &[elem, n], Payload::None)
    }

    /// `rtarray<elem>`.
    pub fn runtime_array_type(&mut self, elem: InstId) -> InstId {
        self.intern(Op::RuntimeArray, None, &[elem], Payload::None)
    }

    /// `ptr<space, pointee>`.
    pub fn ptr_type(&mut self, space: AddressSpace, pointee: InstId) -> InstId {
        let s = self.imm(space.to_u32());
        self.intern(Op::Ptr, None, &[s, pointee], Payload::None)
    }

    /// `fn(params) -> ret`.
    pub fn fn_type(&mut self, ret: InstId, params: &[InstId]) -> InstId {
        let mut ops = Vec::with_capacity(params.len() + 1);
        ops.push(ret);
        ops.extend_from_slice(params);
        self.intern(Op::FnType, None, &ops, Payload::None)
    }

    /// A texture type.
    pub fn texture_type(&mut self, d: TextureDesc) -> InstId {
        let ops = [
            d.sampled_type,
            self.imm(d.dim.to_u32()),
            self.imm(d.arrayed as u32),
            self.imm(d.multisampled as u32),
            self.imm(d.depth),
            self.imm(d.access.to_u32()),
            self.imm(d.format.to_u32()),
        ];
        self.intern(Op::Texture, None, &ops, Payload::None)
    }

    /// `sampler`.
    pub fn sampler_type(&mut self) -> InstId {
        self.simple_type(Op::Sampler)
    }

    /// `sampler_cmp`.
    pub fn sampler_cmp_type(&mut self) -> InstId {
        self.simple_type(Op::SamplerCmp)
    }

    /// `string`.
    pub fn string_type(&mut self) -> InstId {
        self.simple_type(Op::StringType)
    }

    /// `type`: the type of generic type parameters.
    pub fn type_type(&mut self) -> InstId {
        self.simple_type(Op::TypeType)
    }

    /// `accel_struct`: a ray-tracing acceleration structure.
    pub fn accel_struct_type(&mut self) -> InstId {
        self.simple_type(Op::AccelStruct)
    }

    /// `ray_query`: the state of a ray query.
    pub fn ray_query_type(&mut self) -> InstId {
        self.simple_type(Op::RayQuery)
    }

    // ---- constants -----------------------------------------------------------------------

    /// A `u32` immediate (counts, indices, enumeration members).
    pub fn imm(&mut self, v: u32) -> InstId {
        let t = self.u32_type();
        self.intern(Op::ConstInt, Some(t), &[], Payload::Bits(v as u64))
    }

    /// `true` or `false`.
    pub fn const_bool(&mut self, v: bool) -> InstId {
        let t = self.bool_type();
        self.intern(Op::ConstBool, Some(t), &[], Payload::Bits(v as u64))
    }

    /// An integer constant of type `ty` (an integer scalar type); `bits` is truncated to the
    /// type's width (exact two's complement bits, zero-extended).
    pub fn const_int(&mut self, ty: InstId, bits: u64) -> InstId {
        let width = self.scalar_bits(ty).unwrap_or(64);
        let bits = truncate(bits, width);
        self.intern(Op::ConstInt, Some(ty), &[], Payload::Bits(bits))
    }

    /// An `i32` constant.
    pub fn const_i32(&mut self, v: i32) -> InstId {
        let t = self.i32_type();
        self.const_int(t, v as u32 as u64)
    }

    /// A `u32` constant (the same value as [`Module::imm`]).
    pub fn const_u32(&mut self, v: u32) -> InstId {
        self.imm(v)
    }

    /// A float constant of type `ty` from exact bits (f16/f32 bits in the low bits).
    pub fn const_float_bits(&mut self, ty: InstId, bits: u64) -> InstId {
        let width = self.scalar_bits(ty).unwrap_or(64);
        let bits = truncate(bits, width);
        self.intern(Op::ConstFloat, Some(ty), &[], Payload::Bits(bits))
    }

    /// An `f32` constant.
    pub fn const_f32(&mut self, v: f32) -> InstId {
        let t = self.f32_type();
        self.const_float_bits(t, v.to_bits() as u64)
    }

    /// An `f64` constant.
    pub fn const_f64(&mut self, v: f64) -> InstId {
        let t = self.float_type(64);
        self.const_float_bits(t, v.to_bits())
    }

    /// A string constant.
    pub fn const_string(&mut self, s: &str) -> InstId {
        let t = self.string_type();
        self.intern(Op::ConstString, Some(t), &[], Payload::Str(s))
    }

    /// A constant composite of type `ty` from constant elements.
    pub fn const_composite(&mut self, ty: InstId, elems: &[InstId]) -> InstId {
        self.intern(Op::Composite, Some(ty), elems, Payload::None)
    }

    /// The all-zero value of `ty`.
    pub fn zero(&mut self, ty: InstId) -> InstId {
        self.intern(Op::Zero, Some(ty), &[], Payload::None)
    }

    /// An undefined value of `ty`.
    pub fn undef(&mut self, ty: InstId) -> InstId {
        self.intern(Op::Undef, Some(ty), &[], Payload::None)
    }

    /// A specialization constant with id `id` and default `default` (a scalar constant).
    pub fn spec_const(&mut self, id: u32, default: InstId) -> InstId {
        let ty = self.ty(default);
        let idc = self.imm(id);
        self.intern(Op::SpecConst, ty, &[idc, default], Payload::None)
    }

    /// `specialize(generic, args...)` of type `ty` (the type of what the generic yields for
    /// these arguments: a `fn` type, or `type`).
    pub fn specialize(&mut self, generic: InstId, args: &[InstId], ty: InstId) -> InstId {
        let mut ops = Vec::with_capacity(args.len() + 1);
        ops.push(generic);
        ops.extend_from_slice(args);
        self.intern(Op::Specialize, Some(ty), &ops, Payload::None)
    }

    // ---- queries -------------------------------------------------------------------------

    /// The texel type `T` when `ty` is the result type of a texture read that also returns
    /// its sparse-residency status: a struct of exactly two fields, `u32` then a scalar or
    /// vector `T` (SPIR-V's `OpImageSparse*` result shape).
    pub fn sparse_texel_type(&self, ty: InstId) -> Option<InstId> {
        if self.try_op(ty)? != Op::Struct {
            return None;
        }
        let fields = self.struct_fields(ty);
        let [status, texel] = fields.as_slice() else {
            return None;
        };
        let (st, tt) = (self.ty(*status)?, self.ty(*texel)?);
        (self.op(st) == Op::U32 && (self.op(tt).is_scalar_type() || self.op(tt) == Op::Vector))
            .then_some(tt)
    }

    /// The value of a `u32` immediate (or any integer constant), if `id` is one.
    pub fn imm_value(&self, id: InstId) -> Option<u32> {
        if self.try_op(id)? != Op::ConstInt {
            return None;
        }
        self.literal_bits(id).map(|b| b as u32)
    }

    /// Operand `i` of `id` read as an immediate.
    pub fn imm_operand(&self, id: InstId, i: usize) -> Option<u32> {
        self.imm_value(self.try_operand(id, i)?)
    }

    /// Bit width of a scalar type (bool counts as 32, as in SPIR-V storage rules).
    pub fn scalar_bits(&self, ty: InstId) -> Option<u32> {
        Some(match self.try_op(ty)? {
            Op::I8 | Op::U8 => 8,
            Op::I16 | Op::U16 | Op::F16 => 16,
            Op::I32 | Op::U32 | Op::F32 | Op::Bool => 32,
            Op::I64 | Op::U64 | Op::F64 => 64,
            _ => return None,
        })
    }

    /// The scalar type at the bottom of a scalar, vector or matrix type.
    pub fn scalar_of(&self, ty: InstId) -> Option<InstId> {
        match self.try_op(ty)? {
            op if op.is_scalar_type() => Some(ty),
            Op::Vector | Op::Matrix => self.scalar_of(self.operand(ty, 0)),
            _ => None,
        }
    }

    /// The kind of a scalar (or of the scalar of a vector or matrix) type.
    pub fn scalar_kind(&self, ty: InstId) -> Option<ScalarKind> {
        let s = self.scalar_of(ty)?;
        let op = self.op(s);
        Some(if op == Op::Bool {
            ScalarKind::Bool
        } else if op.is_signed_int_type() {
            ScalarKind::Int
        } else if op.is_int_type() {
            ScalarKind::Uint
        } else {
            ScalarKind::Float
        })
    }

    /// Component count of a vector type (1 for scalars), or `None`.
    pub fn vector_len(&self, ty: InstId) -> Option<u32> {
        match self.try_op(ty)? {
            op if op.is_scalar_type() => Some(1),
            Op::Vector => self.imm_operand(ty, 1),
            _ => None,
        }
    }

    /// `(rows, cols)` of a matrix type.
    pub fn matrix_dims(&self, ty: InstId) -> Option<(u32, u32)> {
        if self.try_op(ty)? != Op::Matrix {
            return None;
        }
        Some((self.imm_operand(ty, 1)?, self.imm_operand(ty, 2)?))
    }

    /// Length of an array type.
    pub fn array_len(&self, ty: InstId) -> Option<u32> {
        if self.try_op(ty)? != Op::Array {
            return None;
        }
        self.imm_operand(ty, 1)
    }

    /// The pointee of a pointer type.
    pub fn pointee(&self, ptr_ty: InstId) -> Option<InstId> {
        if self.try_op(ptr_ty)? != Op::Ptr {
            return None;
        }
        self.try_operand(ptr_ty, 1)
    }

    /// The address space of a pointer type.
    pub fn address_space(&self, ptr_ty: InstId) -> Option<AddressSpace> {
        if self.try_op(ptr_ty)? != Op::Ptr {
            return None;
        }
        AddressSpace::from_u32(self.imm_operand(ptr_ty, 0)?)
    }

    /// The fields of a struct type, in order.
    pub fn struct_fields(&self, ty: InstId) -> Vec<InstId> {
        if self.try_op(ty) != Some(Op::Struct) {
            return Vec::new();
        }
        self.children(ty)
            .filter(|&c| self.op(c) == Op::Field)
            .collect()
    }

    /// The type of element `index` of a composite type: a vector's component, a matrix's row,
    /// an array's element (any index), a struct's field.
    pub fn element_type(&mut self, ty: InstId, index: u32) -> Option<InstId> {
        match self.try_op(ty)? {
            Op::Vector | Op::Array | Op::RuntimeArray => Some(self.operand(ty, 0)),
            Op::Matrix => {
                let elem = self.operand(ty, 0);
                let cols = self.imm_operand(ty, 2)?;
                Some(self.vector_type(elem, cols))
            }
            Op::Struct => {
                let f = *self.struct_fields(ty).get(index as usize)?;
                self.ty(f)
            }
            _ => None,
        }
    }

    /// Like [`Module::element_type`] without creating types: a matrix row type is looked up.
    pub fn element_type_of(&self, ty: InstId, index: u32) -> Option<InstId> {
        match self.try_op(ty)? {
            Op::Vector | Op::Array | Op::RuntimeArray => Some(self.operand(ty, 0)),
            Op::Matrix => {
                let elem = self.operand(ty, 0);
                let cols = self.try_operand(ty, 2)?;
                self.lookup(Op::Vector, None, &[elem, cols], Payload::None)
            }
            Op::Struct => {
                let f = *self.struct_fields(ty).get(index as usize)?;
                self.ty(f)
            }
            _ => None,
        }
    }

    /// `bool` with the shape of `ty` (scalar or vector).
    pub fn bool_of_shape(&mut self, ty: InstId) -> InstId {
        let b = self.bool_type();
        match self.try_op(ty) {
            Some(Op::Vector) => {
                let n = self.imm_operand(ty, 1).unwrap_or(1);
                self.vector_type(b, n)
            }
            _ => b,
        }
    }

    /// The return type of a `fn` type.
    pub fn fn_return(&self, fn_ty: InstId) -> Option<InstId> {
        if self.try_op(fn_ty)? != Op::FnType {
            return None;
        }
        self.try_operand(fn_ty, 0)
    }

    /// The parameter types of a `fn` type.
    pub fn fn_params(&self, fn_ty: InstId) -> Vec<InstId> {
        if self.try_op(fn_ty) != Some(Op::FnType) {
            return Vec::new();
        }
        self.operands(fn_ty).skip(1).collect()
    }

    /// The description of a texture type.
    pub fn texture_desc(&self, ty: InstId) -> Option<TextureDesc> {
        if self.try_op(ty)? != Op::Texture {
            return None;
        }
        Some(TextureDesc {
            sampled_type: self.operand(ty, 0),
            dim: Dim::from_u32(self.imm_operand(ty, 1)?)?,
            arrayed: self.imm_operand(ty, 2)? != 0,
            multisampled: self.imm_operand(ty, 3)? != 0,
            depth: self.imm_operand(ty, 4)?,
            access: TextureAccess::from_u32(self.imm_operand(ty, 5)?)?,
            format: ImageFormat::from_u32(self.imm_operand(ty, 6)?)?,
        })
    }

    /// Integer constant value, sign-extended when the type is signed.
    pub fn const_int_value(&self, id: InstId) -> Option<i128> {
        if self.try_op(id)? != Op::ConstInt {
            return None;
        }
        let bits = self.literal_bits(id)?;
        let ty = self.ty(id)?;
        let width = self.scalar_bits(ty)?;
        Some(if self.op(ty).is_signed_int_type() {
            sign_extend(bits, width) as i128
        } else {
            bits as i128
        })
    }
}

/// Keeps the low `width` bits.
pub fn truncate(bits: u64, width: u32) -> u64 {
    if width >= 64 {
        bits
    } else {
        bits & ((1u64 << width) - 1)
    }
}

/// Sign-extends the low `width` bits.
pub fn sign_extend(bits: u64, width: u32) -> i64 {
    if width >= 64 {
        bits as i64
    } else {
        let shift = 64 - width;
        ((bits << shift) as i64) >> shift
    }
}
