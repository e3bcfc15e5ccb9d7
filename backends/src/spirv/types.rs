//! Types: one SPIR-V type id per (IR type, layout). A struct used both in a constant buffer and
//! on the stack gets two ids (one with `Offset`/`MatrixStride` decorations, one without); an
//! array gets one id per array stride. Scalars, vectors and matrices are shared by every layout
//! (their layout lives in member decorations). No `bool` reaches buffer memory: legalization's
//! `bool_storage` stores them as `u32` (as DXC does) before any backend runs.
//!
//! Matrices follow DXC's convention: an HLSL `floatRxC` (IR `mat<f32, R, C>`, element `i` is row
//! `i`) is a SPIR-V matrix of R column vectors of C components, so SPIR-V's "columns" are HLSL's
//! rows, and an HLSL `row_major` field is decorated `ColMajor` (and `column_major`, the default,
//! `RowMajor`).

use oneshader_ir::layout::{self, LayoutRule, TypeLayout};
use oneshader_ir::{AddressSpace, Dim, ImageFormat, InstId, Op, TextureAccess};
use rspirv::spirv::{self, Capability, Decoration, StorageClass};
use smallvec::SmallVec;

use super::encode::{inst, inst_str};
use super::error::{EmitError, LAYOUT, R, UNSPECIALIZED, UNSUPPORTED_TYPE};
use super::module::{Emitter, Lk, TKey};

/// `BufferBlock` for a storage buffer in the `Uniform` storage class, else `Block`.
fn block_decoration(buffer_block: bool) -> Decoration {
    if buffer_block {
        Decoration::BufferBlock
    } else {
        Decoration::Block
    }
}

/// The SPIR-V storage class of an address space (storage buffers are `StorageBuffer`; see
/// [`Emitter::storage_class`] for SPIR-V 1.0's `Uniform` + `BufferBlock` form).
pub(crate) fn storage_class(space: AddressSpace) -> StorageClass {
    match space {
        AddressSpace::Function => StorageClass::Function,
        AddressSpace::Private => StorageClass::Private,
        AddressSpace::Workgroup => StorageClass::Workgroup,
        AddressSpace::Uniform => StorageClass::Uniform,
        AddressSpace::UniformConstant => StorageClass::UniformConstant,
        AddressSpace::StorageBuffer => StorageClass::StorageBuffer,
        AddressSpace::Input => StorageClass::Input,
        AddressSpace::Output => StorageClass::Output,
        AddressSpace::PushConstant => StorageClass::PushConstant,
        AddressSpace::Image => StorageClass::Image,
        AddressSpace::TaskPayload => StorageClass::TaskPayloadWorkgroupEXT,
        AddressSpace::RayPayload => StorageClass::RayPayloadKHR,
        AddressSpace::IncomingRayPayload => StorageClass::IncomingRayPayloadKHR,
        AddressSpace::HitAttribute => StorageClass::HitAttributeKHR,
        AddressSpace::CallableData => StorageClass::CallableDataKHR,
        AddressSpace::IncomingCallableData => StorageClass::IncomingCallableDataKHR,
        AddressSpace::ShaderRecord => StorageClass::ShaderRecordBufferKHR,
    }
}

/// The SPIR-V image format of an IR image format.
pub(crate) fn image_format(f: ImageFormat) -> spirv::ImageFormat {
    use spirv::ImageFormat as S;
    match f {
        ImageFormat::Unknown => S::Unknown,
        ImageFormat::Rgba32f => S::Rgba32f,
        ImageFormat::Rgba16f => S::Rgba16f,
        ImageFormat::R32f => S::R32f,
        ImageFormat::Rgba8 => S::Rgba8,
        ImageFormat::Rgba8Snorm => S::Rgba8Snorm,
        ImageFormat::Rg32f => S::Rg32f,
        ImageFormat::Rg16f => S::Rg16f,
        ImageFormat::R11fG11fB10f => S::R11fG11fB10f,
        ImageFormat::R16f => S::R16f,
        ImageFormat::Rgba16 => S::Rgba16,
        ImageFormat::Rgb10A2 => S::Rgb10A2,
        ImageFormat::Rg16 => S::Rg16,
        ImageFormat::Rg8 => S::Rg8,
        ImageFormat::R16 => S::R16,
        ImageFormat::R8 => S::R8,
        ImageFormat::Rgba16Snorm => S::Rgba16Snorm,
        ImageFormat::Rg16Snorm => S::Rg16Snorm,
        ImageFormat::Rg8Snorm => S::Rg8Snorm,
        ImageFormat::R16Snorm => S::R16Snorm,
        ImageFormat::R8Snorm => S::R8Snorm,
        ImageFormat::Rgba32i => S::Rgba32i,
        ImageFormat::Rgba16i => S::Rgba16i,
        ImageFormat::Rgba8i => S::Rgba8i,
        ImageFormat::R32i => S::R32i,
        ImageFormat::Rg32i => S::Rg32i,
        ImageFormat::Rg16i => S::Rg16i,
        ImageFormat::Rg8i => S::Rg8i,
        ImageFormat::R16i => S::R16i,
        ImageFormat::R8i => S::R8i,
        ImageFormat::Rgba32ui => S::Rgba32ui,
        ImageFormat::Rgba16ui => S::Rgba16ui,
        ImageFormat::Rgba8ui => S::Rgba8ui,
        ImageFormat::R32ui => S::R32ui,
        ImageFormat::Rgb10a2ui => S::Rgb10a2ui,
        ImageFormat::Rg32ui => S::Rg32ui,
        ImageFormat::Rg16ui => S::Rg16ui,
        ImageFormat::Rg8ui => S::Rg8ui,
        ImageFormat::R16ui => S::R16ui,
        ImageFormat::R8ui => S::R8ui,
        ImageFormat::R64ui => S::R64ui,
        ImageFormat::R64i => S::R64i,
    }
}

/// True for the storage-image formats that need `StorageImageExtendedFormats`.
fn is_extended_format(f: ImageFormat) -> bool {
    !matches!(
        f,
        ImageFormat::Unknown
            | ImageFormat::Rgba32f
            | ImageFormat::Rgba16f
            | ImageFormat::R32f
            | ImageFormat::Rgba8
            | ImageFormat::Rgba8Snorm
            | ImageFormat::Rgba32i
            | ImageFormat::Rgba16i
            | ImageFormat::Rgba8i
            | ImageFormat::R32i
            | ImageFormat::Rgba32ui
            | ImageFormat::Rgba16ui
            | ImageFormat::Rgba8ui
            | ImageFormat::R32ui
            | ImageFormat::R64ui
            | ImageFormat::R64i
    )
}

fn layout_error(m: &oneshader_ir::Module, ty: InstId, e: layout::LayoutError) -> EmitError {
    EmitError::new(
        LAYOUT,
        format!(
            "type `{}` has no buffer layout: {e}",
            oneshader_ir::print::print_inst(m, ty)
        ),
    )
}

impl Emitter<'_> {
    /// Declares a non-aggregate type once.
    pub(crate) fn tkey(&mut self, key: TKey, op: spirv::Op, args: &[u32]) -> u32 {
        if let Some(&id) = self.tkeys.get(&key) {
            return id;
        }
        let id = self.fresh();
        let mut w: SmallVec<[u32; 10]> = SmallVec::new();
        w.push(id);
        w.extend_from_slice(args);
        inst(&mut self.s.globals, op, &w);
        self.tkeys.insert(key, id);
        id
    }

    /// `OpTypeInt width signedness`.
    pub fn int_ty(&mut self, width: u32, signed: bool) -> u32 {
        match width {
            8 => self.caps.add(Capability::Int8),
            16 => self.caps.add(Capability::Int16),
            64 => self.caps.add(Capability::Int64),
            _ => {}
        }
        self.tkey(
            TKey::Int(width, signed),
            spirv::Op::TypeInt,
            &[width, signed as u32],
        )
    }

    /// `OpTypeFloat width`.
    pub fn float_ty(&mut self, width: u32) -> u32 {
        match width {
            16 => self.caps.add(Capability::Float16),
            64 => self.caps.add(Capability::Float64),
            _ => {}
        }
        self.tkey(TKey::Float(width), spirv::Op::TypeFloat, &[width])
    }

    /// `OpTypeBool`.
    pub fn bool_ty(&mut self) -> u32 {
        self.tkey(TKey::Bool, spirv::Op::TypeBool, &[])
    }

    /// `OpTypeVoid`.
    pub fn void_ty(&mut self) -> u32 {
        self.tkey(TKey::Void, spirv::Op::TypeVoid, &[])
    }

    /// `u32`.
    pub fn u32_ty(&mut self) -> u32 {
        self.int_ty(32, false)
    }

    /// A vector of `n` components of SPIR-V type `elem` (`elem` itself when `n` is 1).
    pub fn vec_ty(&mut self, elem: u32, n: u32) -> u32 {
        if n <= 1 {
            return elem;
        }
        self.tkey(TKey::Vector(elem, n), spirv::Op::TypeVector, &[elem, n])
    }

    /// `OpTypePointer class pointee`.
    pub fn ptr_spv(&mut self, class: StorageClass, pointee: u32) -> u32 {
        self.tkey(
            TKey::Pointer(class as u32, pointee),
            spirv::Op::TypePointer,
            &[class as u32, pointee],
        )
    }

    /// `OpTypeSampledImage image`.
    pub fn sampled_image_ty(&mut self, image: u32) -> u32 {
        self.tkey(
            TKey::SampledImage(image),
            spirv::Op::TypeSampledImage,
            &[image],
        )
    }

    /// The logical type id of an IR type (the type of values).
    #[inline]
    pub fn ty(&mut self, ty: InstId) -> R<u32> {
        if let Some(&id) = self.ltypes.get(ty) {
            return Ok(id);
        }
        self.ty_in(ty, Lk::Logical)
    }

    /// True when matrices occur in `ty` through arrays only (so majorness changes its strides).
    fn has_matrix(&self, ty: InstId) -> bool {
        let m = self.m;
        match m.try_op(ty) {
            Some(Op::Matrix) => true,
            Some(Op::Array | Op::RuntimeArray) => self.has_matrix(m.operand(ty, 0)),
            _ => false,
        }
    }

    /// The id of `ty` laid out as `lk`.
    pub fn ty_in(&mut self, ty: InstId, lk: Lk) -> R<u32> {
        let m = self.m;
        let op = m
            .try_op(ty)
            .ok_or_else(|| EmitError::new(super::error::MALFORMED, "a type operand is missing"))?;
        // Normalize the layout so that equal layouts share one id.
        let lk = match lk {
            Lk::Logical => Lk::Logical,
            Lk::Explicit(r, rm) => match op {
                Op::Array | Op::RuntimeArray => Lk::Explicit(r, rm && self.has_matrix(ty)),
                Op::Struct => Lk::Explicit(r, false),
                _ => Lk::Logical,
            },
            Lk::Block(r, rm, bb) => match op {
                Op::Struct => Lk::Block(r, false, bb),
                _ => Lk::Block(r, rm && self.has_matrix(ty), bb),
            },
            Lk::Descriptors(r, rm, bb) => Lk::Descriptors(r, rm && self.has_matrix(ty), bb),
        };
        if lk == Lk::Logical {
            if let Some(&id) = self.ltypes.get(ty) {
                return Ok(id);
            }
        } else if let Some(&id) = self.xtypes.get(&(ty, lk)) {
            return Ok(id);
        }
        let id = self.declare_type(ty, op, lk)?;
        if lk == Lk::Logical {
            self.ltypes.insert(ty, id);
        } else {
            self.xtypes.insert((ty, lk), id);
        }
        Ok(id)
    }

    fn unsupported(&self, ty: InstId, why: &str) -> EmitError {
        EmitError::new(
            UNSUPPORTED_TYPE,
            format!(
                "type `{}` cannot be expressed in SPIR-V: {why}",
                oneshader_ir::print::print_inst(self.m, ty)
            ),
        )
    }

    fn declare_type(&mut self, ty: InstId, op: Op, lk: Lk) -> R<u32> {
        let m = self.m;
        Ok(match op {
            Op::Void => self.void_ty(),
            Op::Bool => self.bool_ty(),
            Op::I8 | Op::I16 | Op::I32 | Op::I64 | Op::U8 | Op::U16 | Op::U32 | Op::U64 => {
                let bits = m.scalar_bits(ty).unwrap_or(32);
                self.int_ty(bits, op.is_signed_int_type())
            }
            Op::F16 | Op::F32 | Op::F64 => {
                let bits = m.scalar_bits(ty).unwrap_or(32);
                self.float_ty(bits)
            }
            Op::Vector => {
                let elem = self.ty_in(m.operand(ty, 0), lk)?;
                let n = m.vector_len(ty).unwrap_or(4);
                self.vec_ty(elem, n)
            }
            Op::Matrix => {
                let elem_ir = m.operand(ty, 0);
                if !m.op(elem_ir).is_float_type() {
                    return Err(self.unsupported(
                        ty,
                        "SPIR-V matrices have float components only (an integer or bool matrix must be lowered to arrays of vectors first)",
                    ));
                }
                let (rows, cols) = m
                    .matrix_dims(ty)
                    .ok_or_else(|| self.unsupported(ty, "malformed matrix type"))?;
                let elem = self.ty(elem_ir)?;
                // HLSL rows are SPIR-V columns.
                let col = self.vec_ty(elem, cols);
                self.caps.add(Capability::Matrix);
                self.tkey(TKey::Matrix(col, rows), spirv::Op::TypeMatrix, &[col, rows])
            }
            Op::Array => {
                if let Lk::Block(r, rm, bb) = lk {
                    return self.block_wrapper(ty, r, rm, bb);
                }
                if let Lk::Descriptors(r, rm, bb) = lk {
                    // An array of buffers: each element is a `Block`, and there is no stride.
                    let n = m.array_len(ty).unwrap_or(0);
                    let elem = self.ty_in(m.operand(ty, 0), Lk::Block(r, rm, bb))?;
                    let u = self.u32_ty();
                    let len = self.const_bits(u, n as u64);
                    let id = self.fresh();
                    inst(&mut self.s.globals, spirv::Op::TypeArray, &[id, elem, len]);
                    return Ok(id);
                }
                let n = m.array_len(ty).unwrap_or(0);
                let elem = self.ty_in(m.operand(ty, 0), lk)?;
                let u = self.u32_ty();
                let len = self.const_bits(u, n as u64);
                let id = self.fresh();
                inst(&mut self.s.globals, spirv::Op::TypeArray, &[id, elem, len]);
                if let Lk::Explicit(r, rm) = lk {
                    let l =
                        layout::type_layout(m, ty, r, rm).map_err(|e| layout_error(m, ty, e))?;
                    let stride = l.array_stride.unwrap_or(0);
                    self.decorate(id, Decoration::ArrayStride, &[stride]);
                }
                id
            }
            Op::RuntimeArray => {
                if let Lk::Block(r, rm, bb) = lk {
                    return self.block_wrapper(ty, r, rm, bb);
                }
                let descriptors = matches!(lk, Lk::Descriptors(..));
                let elem = match lk {
                    Lk::Descriptors(r, rm, bb) => {
                        self.ty_in(m.operand(ty, 0), Lk::Block(r, rm, bb))?
                    }
                    _ => self.ty_in(m.operand(ty, 0), lk)?,
                };
                let id = self.fresh();
                inst(
                    &mut self.s.globals,
                    spirv::Op::TypeRuntimeArray,
                    &[id, elem],
                );
                if let (Lk::Explicit(r, rm), false) = (lk, descriptors) {
                    let l =
                        layout::type_layout(m, ty, r, rm).map_err(|e| layout_error(m, ty, e))?;
                    let stride = l.array_stride.unwrap_or(0);
                    self.decorate(id, Decoration::ArrayStride, &[stride]);
                } else {
                    // A runtime array of resources or buffers: a descriptor array without a
                    // stride.
                    self.caps.add_ext(
                        Capability::RuntimeDescriptorArray,
                        self.minor,
                        5,
                        "SPV_EXT_descriptor_indexing",
                    );
                }
                id
            }
            Op::Struct => self.struct_type(ty, lk)?,
            Op::Ptr => {
                let space = m
                    .address_space(ty)
                    .ok_or_else(|| self.unsupported(ty, "unknown address space"))?;
                let pointee = m
                    .pointee(ty)
                    .ok_or_else(|| self.unsupported(ty, "pointer without pointee"))?;
                let lk = self.lk_of(space, false);
                self.ptr_type(space, pointee, lk)?
            }
            Op::FnType => {
                let mut key: SmallVec<[u32; 6]> = SmallVec::new();
                for t in m.operands(ty) {
                    key.push(self.ty(t)?);
                }
                let args = key.clone();
                self.tkey(TKey::Function(key), spirv::Op::TypeFunction, &args)
            }
            Op::Texture => self.image_type(ty)?,
            Op::Sampler | Op::SamplerCmp => self.tkey(TKey::Sampler, spirv::Op::TypeSampler, &[]),
            Op::AccelStruct => {
                // The type needs either ray-tracing capability; the entry points and ray
                // queries that use it declare theirs. Ray-tracing entry points need SPIR-V
                // 1.4 (checked with their stage); `SPV_KHR_ray_query` does not, so DXC emits
                // ray queries into SPIR-V 1.0 modules for vulkan1.0 and vulkan1.1, and so do
                // we.
                self.tkey(
                    TKey::AccelStruct,
                    spirv::Op::TypeAccelerationStructureKHR,
                    &[],
                )
            }
            Op::RayQuery => {
                self.ray_query_caps();
                self.tkey(TKey::RayQuery, spirv::Op::TypeRayQueryKHR, &[])
            }
            Op::Specialize => {
                return Err(EmitError::new(
                    UNSPECIALIZED,
                    format!(
                        "type `{}` is a generic left unspecialized; run the legalization pipeline (generic specialization) before emitting SPIR-V",
                        oneshader_ir::print::print_inst(m, ty)
                    ),
                ));
            }
            Op::StringType => return Err(self.unsupported(ty, "strings are not values in SPIR-V")),
            Op::TypeType => return Err(self.unsupported(ty, "`type` exists only in generics")),
            _ => {
                return Err(self.unsupported(
                    ty,
                    "not a type (a generic parameter? run the legalization pipeline first)",
                ));
            }
        })
    }

    /// True for types that have a buffer layout (not resources).
    fn is_plain_data(&self, ty: InstId) -> bool {
        let m = self.m;
        match m.try_op(ty) {
            Some(op) if op.is_scalar_type() => true,
            Some(Op::Vector | Op::Matrix) => true,
            Some(Op::Array | Op::RuntimeArray) => self.is_plain_data(m.operand(ty, 0)),
            Some(Op::Struct) => m
                .struct_fields(ty)
                .iter()
                .all(|&f| m.ty(f).is_some_and(|t| self.is_plain_data(t))),
            _ => false,
        }
    }

    /// Member decorations of a laid-out field: `Offset`, and for matrices (or arrays of them)
    /// `MatrixStride` and the majorness (HLSL `row_major` is SPIR-V `ColMajor`).
    fn member_layout(&mut self, st: u32, i: u32, offset: u32, l: &TypeLayout, row_major: bool) {
        self.decorate_member(st, i, Decoration::Offset, &[offset]);
        if let Some(ms) = l.matrix_stride {
            self.decorate_member(st, i, Decoration::MatrixStride, &[ms]);
            let d = if row_major {
                Decoration::ColMajor
            } else {
                Decoration::RowMajor
            };
            self.decorate_member(st, i, d, &[]);
        }
    }

    /// A `Block` struct of one member wrapping a non-struct buffer type (`rtarray<u32>`
    /// becomes `struct { u32 data[]; }`).
    fn block_wrapper(
        &mut self,
        ty: InstId,
        rule: LayoutRule,
        row_major: bool,
        buffer_block: bool,
    ) -> R<u32> {
        let m = self.m;
        let member = self.ty_in(ty, Lk::Explicit(rule, row_major))?;
        let l = layout::type_layout(m, ty, rule, row_major).map_err(|e| layout_error(m, ty, e))?;
        let id = self.fresh();
        inst(&mut self.s.globals, spirv::Op::TypeStruct, &[id, member]);
        self.member_layout(id, 0, 0, &l, row_major);
        self.decorate(id, block_decoration(buffer_block), &[]);
        if self.opts.debug_names {
            inst_str(
                &mut self.s.names,
                spirv::Op::MemberName,
                &[id, 0],
                "data",
                &[],
            );
        }
        Ok(id)
    }

    fn struct_type(&mut self, ty: InstId, lk: Lk) -> R<u32> {
        let m = self.m;
        let fields = m.struct_fields(ty);
        let mut members: SmallVec<[u32; 16]> = SmallVec::new();
        let id;
        match lk {
            Lk::Logical => {
                for &f in &fields {
                    let ft = m
                        .ty(f)
                        .ok_or_else(|| self.unsupported(ty, "untyped field"))?;
                    if m.op(ft) == Op::RuntimeArray {
                        return Err(self.unsupported(
                            ty,
                            "a struct ending in a runtime array exists only as a storage buffer's type",
                        ));
                    }
                    members.push(self.ty(ft)?);
                }
                id = self.fresh();
                members.insert(0, id);
                inst(&mut self.s.globals, spirv::Op::TypeStruct, &members);
            }
            Lk::Explicit(rule, _) | Lk::Block(rule, ..) | Lk::Descriptors(rule, ..) => {
                let sl = layout::struct_layout(m, ty, rule).map_err(|e| layout_error(m, ty, e))?;
                for fl in &sl.fields {
                    let ft = m
                        .ty(fl.field)
                        .ok_or_else(|| self.unsupported(ty, "untyped field"))?;
                    if !self.is_plain_data(ft) {
                        return Err(self.unsupported(
                            ft,
                            "a resource or pointer cannot be a member of a buffer",
                        ));
                    }
                    members.push(self.ty_in(ft, Lk::Explicit(rule, fl.row_major))?);
                }
                id = self.fresh();
                members.insert(0, id);
                inst(&mut self.s.globals, spirv::Op::TypeStruct, &members);
                for (i, fl) in sl.fields.iter().enumerate() {
                    self.member_layout(id, i as u32, fl.offset, &fl.layout, fl.row_major);
                }
                if let Lk::Block(_, _, bb) = lk {
                    self.decorate(id, block_decoration(bb), &[]);
                }
            }
        }
        if self.opts.debug_names {
            self.name(id, m.name(ty));
            for (i, &f) in fields.iter().enumerate() {
                if let Some(n) = m.name(f) {
                    let at = &[id, i as u32];
                    inst_str(&mut self.s.names, spirv::Op::MemberName, at, n, &[]);
                }
            }
        }
        Ok(id)
    }

    /// The widths of scalars inside `ty` smaller than 32 bits: (has 8-bit, has 16-bit).
    pub fn small_scalars(&self, ty: InstId) -> (bool, bool) {
        let m = self.m;
        match m.try_op(ty) {
            Some(op) if op.is_scalar_type() => match m.scalar_bits(ty) {
                Some(8) => (true, false),
                Some(16) => (false, true),
                _ => (false, false),
            },
            Some(Op::Vector | Op::Matrix | Op::Array | Op::RuntimeArray) => {
                self.small_scalars(m.operand(ty, 0))
            }
            Some(Op::Struct) => m.struct_fields(ty).iter().fold((false, false), |acc, &f| {
                let (a, b) = m
                    .ty(f)
                    .map(|t| self.small_scalars(t))
                    .unwrap_or((false, false));
                (acc.0 || a, acc.1 || b)
            }),
            _ => (false, false),
        }
    }

    /// True when storage buffers take SPIR-V 1.0's form: the `Uniform` storage class with
    /// the block decorated `BufferBlock` (as DXC writes them for SPIR-V before 1.3), because
    /// `-fspv-extension=` does not permit `SPV_KHR_storage_buffer_storage_class`.
    pub fn buffer_block(&self, space: AddressSpace) -> bool {
        self.buffer_block && space == AddressSpace::StorageBuffer
    }

    /// The storage class of `space` in this module ([`storage_class`], with storage buffers
    /// in `Uniform` under [`Emitter::buffer_block`]).
    pub fn storage_class(&self, space: AddressSpace) -> StorageClass {
        if self.buffer_block(space) {
            StorageClass::Uniform
        } else {
            storage_class(space)
        }
    }

    /// The pointer type to `pointee` in `space` with the pointee laid out as `lk`.
    pub fn ptr_type(&mut self, space: AddressSpace, pointee: InstId, lk: Lk) -> R<u32> {
        let p = self.ty_in(pointee, lk)?;
        let class = self.storage_class(space);
        let (b8, b16) = self.small_scalars(pointee);
        if b8 || b16 {
            let minor = self.minor;
            match space {
                AddressSpace::StorageBuffer => {
                    if b16 {
                        self.caps.add_ext(
                            Capability::StorageBuffer16BitAccess,
                            minor,
                            3,
                            "SPV_KHR_16bit_storage",
                        );
                    }
                    if b8 {
                        self.caps.add_ext(
                            Capability::StorageBuffer8BitAccess,
                            minor,
                            5,
                            "SPV_KHR_8bit_storage",
                        );
                    }
                }
                AddressSpace::Uniform => {
                    if b16 {
                        self.caps.add_ext(
                            Capability::UniformAndStorageBuffer16BitAccess,
                            minor,
                            3,
                            "SPV_KHR_16bit_storage",
                        );
                    }
                    if b8 {
                        self.caps.add_ext(
                            Capability::UniformAndStorageBuffer8BitAccess,
                            minor,
                            5,
                            "SPV_KHR_8bit_storage",
                        );
                    }
                }
                AddressSpace::PushConstant => {
                    if b16 {
                        self.caps.add_ext(
                            Capability::StoragePushConstant16,
                            minor,
                            3,
                            "SPV_KHR_16bit_storage",
                        );
                    }
                    if b8 {
                        self.caps.add_ext(
                            Capability::StoragePushConstant8,
                            minor,
                            5,
                            "SPV_KHR_8bit_storage",
                        );
                    }
                }
                AddressSpace::Input | AddressSpace::Output if b16 => {
                    self.caps.add_ext(
                        Capability::StorageInputOutput16,
                        minor,
                        3,
                        "SPV_KHR_16bit_storage",
                    );
                }
                _ => {}
            }
        }
        if space == AddressSpace::StorageBuffer && self.minor < 3 && !self.buffer_block {
            self.caps.ext("SPV_KHR_storage_buffer_storage_class");
        }
        Ok(self.ptr_spv(class, p))
    }

    /// True when the pointer value `v` reaches matrices stored row-major: the `row_major`
    /// decoration of the field or global it comes from.
    pub fn ptr_row_major(&self, v: InstId) -> bool {
        let m = self.m;
        let mut cur = v;
        for _ in 0..64 {
            match m.try_op(cur) {
                Some(Op::FieldAddr) => {
                    let base = m.operand(cur, 0);
                    let Some(idx) = m.imm_operand(cur, 1) else {
                        return false;
                    };
                    let st = m.ty(base).and_then(|t| m.pointee(t));
                    return st
                        .and_then(|s| m.struct_fields(s).get(idx as usize).copied())
                        .is_some_and(|f| layout::is_row_major(m, f));
                }
                Some(Op::ElementAddr) => cur = m.operand(cur, 0),
                Some(Op::Global | Op::Var) => return layout::is_row_major(m, cur),
                _ => return false,
            }
        }
        false
    }

    /// The SPIR-V type of a pointer value (its pointee laid out as its address space says).
    pub fn value_ptr_type(&mut self, v: InstId) -> R<u32> {
        let m = self.m;
        let t = m.ty(v).ok_or_else(|| {
            EmitError::new(super::error::MALFORMED, "a pointer value has no type")
        })?;
        let space = m
            .address_space(t)
            .ok_or_else(|| self.unsupported(t, "not a pointer"))?;
        let pointee = m
            .pointee(t)
            .ok_or_else(|| self.unsupported(t, "not a pointer"))?;
        let rm = if self.rule_of(space).is_some() && self.has_matrix(pointee) {
            self.ptr_row_major(v)
        } else {
            false
        };
        if self.block_ptrs.contains_key(v)
            && let Some(rule) = self.rule_of_ptr(v, space)
        {
            let bb = self.buffer_block(space);
            return self.ptr_type(space, pointee, Lk::Block(rule, rm, bb));
        }
        let lk = self.lk_of_value(v, space, rm);
        self.ptr_type(space, pointee, lk)
    }

    /// The type id of an instruction's result: its logical type, or for a pointer the pointer
    /// type laid out for its address space.
    #[inline]
    pub fn result_ty(&mut self, v: InstId) -> R<u32> {
        let t = self
            .m
            .ty(v)
            .ok_or_else(|| EmitError::new(super::error::MALFORMED, "an instruction has no type"))?;
        if self.m.op(t) == Op::Ptr {
            self.value_ptr_type(v)
        } else {
            self.ty(t)
        }
    }

    fn image_type(&mut self, ty: InstId) -> R<u32> {
        let m = self.m;
        let d = m
            .texture_desc(ty)
            .ok_or_else(|| self.unsupported(ty, "malformed texture type"))?;
        let scalar = m
            .scalar_of(d.sampled_type)
            .ok_or_else(|| self.unsupported(ty, "the texel type is not a scalar or vector"))?;
        let sampled = self.ty(scalar)?;
        let storage = d.access == TextureAccess::Storage || d.dim == Dim::SubpassData;
        let dim = match d.dim {
            Dim::D1 => {
                self.caps.add(if storage {
                    Capability::Image1D
                } else {
                    Capability::Sampled1D
                });
                spirv::Dim::Dim1D
            }
            Dim::D2 => spirv::Dim::Dim2D,
            Dim::D3 => spirv::Dim::Dim3D,
            Dim::Cube => {
                if d.arrayed {
                    self.caps.add(if storage {
                        Capability::ImageCubeArray
                    } else {
                        Capability::SampledCubeArray
                    });
                }
                spirv::Dim::DimCube
            }
            Dim::Buffer => {
                self.caps.add(if storage {
                    Capability::ImageBuffer
                } else {
                    Capability::SampledBuffer
                });
                spirv::Dim::DimBuffer
            }
            Dim::SubpassData => {
                self.caps.add(Capability::InputAttachment);
                spirv::Dim::DimSubpassData
            }
        };
        if storage && d.multisampled {
            self.caps.add(Capability::StorageImageMultisample);
            if d.arrayed {
                self.caps.add(Capability::ImageMSArray);
            }
        }
        // The format operand of a storage image or texel buffer (below) asks for it.
        if (storage || d.dim == Dim::Buffer) && is_extended_format(d.format) {
            self.caps.add(Capability::StorageImageExtendedFormats);
        }
        if matches!(d.format, ImageFormat::R64i | ImageFormat::R64ui) {
            self.caps.add(Capability::Int64ImageEXT);
            self.caps.ext("SPV_EXT_shader_image_int64");
        }
        // Storage images and (as DXC writes them) texel buffers state their format; other
        // sampled images are Unknown.
        let format = if storage || d.dim == Dim::Buffer {
            image_format(d.format) as u32
        } else {
            spirv::ImageFormat::Unknown as u32
        };
        let args = [
            sampled,
            dim as u32,
            d.depth.min(2),
            d.arrayed as u32,
            d.multisampled as u32,
            if storage { 2 } else { 1 },
            format,
        ];
        Ok(self.tkey(TKey::Image(args), spirv::Op::TypeImage, &args))
    }
}
