//! Memory layout of IR types in buffers: offsets, sizes, alignments, array strides and matrix
//! strides under the rules a shader compiler targeting Vulkan applies.
//!
//! This is the one layout module of the project: the SPIR-V backend (its `Offset`,
//! `ArrayStride` and `MatrixStride` decorations), reflection (constant-buffer member offsets)
//! and the front end's `packoffset` handling all read it, so host code sees the offsets the
//! shader uses.
//!
//! # Rules
//!
//! The base rules are the Vulkan specification's "Offset and Stride Assignment" (section
//! "Shader Interfaces / Offset and Stride Assignment"), which restates OpenGL's std140 and
//! std430:
//!
//! - a scalar of N bytes has alignment N (`bool` is stored as a 32-bit integer: 4 bytes);
//! - a vector of 2 or 4 components of N bytes has alignment 2N or 4N; of 3 components, 4N;
//!   its size is the component count times N;
//! - an array's stride is its element size rounded up to the element alignment; std140
//!   rounds the element alignment (and so the stride) up to 16;
//! - a matrix is stored as an array of vectors: a column-major HLSL `floatRxC` as C column
//!   vectors of R components, a row-major one as R row vectors of C components; the matrix
//!   stride is the stride of that array;
//! - a struct's alignment is the largest member alignment (std140: rounded up to 16), members
//!   are placed in order at the next offset that is a multiple of their alignment, and the
//!   struct's size is rounded up to its alignment.
//!
//! [`LayoutRule::Std140`] and [`LayoutRule::Std430`] are those rules exactly (DXC's
//! `-fvk-use-gl-layout`). [`LayoutRule::Scalar`] is `VK_EXT_scalar_block_layout`: every type is
//! aligned to its scalar component (`-fvk-use-scalar-layout`).
//!
//! DXC's default (docs/SPIR-V.rst of DirectXShaderCompiler, "Memory layout rules") is the
//! *relaxed* variant, [`LayoutRule::RelaxedStd140`] for constant buffers and
//! [`LayoutRule::RelaxedStd430`] for storage buffers and push constants: a vector member may start
//! at any offset that is a multiple of its component size (when the component is at most 4
//! bytes), as long as it does not *improperly straddle*: a vector of at most 16 bytes must not
//! cross a 16-byte boundary, a larger one must start on a 16-byte boundary. Otherwise it is
//! bumped to the next multiple of 16. So `float a; float3 b;` puts `b` at offset 4, where std140
//! would put it at 16. Vulkan accepts such offsets (they are valid under its own "extended
//! alignment" rules for uniform buffers with relaxed block layout, core since Vulkan 1.1).
//!
//! [`LayoutRule::DxCbuffer`] is D3D's constant-buffer packing (`-fvk-use-dx-layout`): vectors are
//! placed like in the relaxed rules, arrays, structs and matrices start on a 16-byte boundary,
//! each array element (and each matrix row or column vector) but the last occupies 16-byte
//! slots, and the last one is not padded, so a following scalar can share its slot (`float2
//! a[2]; float b;` puts `b` at offset 24).
//!
//! An explicit `offset(n)` decoration on a field (`packoffset`, `[[vk::offset]]`) places it at n
//! bytes, and the following fields continue from there, as DXC does. Matrix majorness comes from
//! the field's `row_major`/`col_major` decoration; without one, matrices are column-major
//! (HLSL's default).

use crate::module::{InstId, Module};
use crate::ops::Op;

/// A set of layout rules (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LayoutRule {
    /// OpenGL/Vulkan std140.
    Std140,
    /// OpenGL/Vulkan std430.
    Std430,
    /// std140 with DXC's relaxed vector placement: DXC's default for constant buffers.
    RelaxedStd140,
    /// std430 with DXC's relaxed vector placement: DXC's default for storage buffers and push
    /// constants.
    RelaxedStd430,
    /// `VK_EXT_scalar_block_layout`.
    Scalar,
    /// D3D constant-buffer packing (`-fvk-use-dx-layout`).
    DxCbuffer,
    /// `GL_EXT_scalar_block_layout` as glslang lays a GLSL `scalar` block out: [`Self::Scalar`]
    /// without rounding a struct's size up to its alignment (a member after a struct
    /// `{ uint64_t a; int b; }` goes at 12, not 16; array strides are still rounded). No
    /// buffer is declared with it: the GLSL backend uses it to check whether a `scalar` block
    /// reproduces the layout another rule gives.
    GlslScalar,
}

impl LayoutRule {
    /// True for the rules that place vectors by their component alignment (with the straddle
    /// check).
    fn relaxed_vectors(self) -> bool {
        matches!(
            self,
            LayoutRule::RelaxedStd140 | LayoutRule::RelaxedStd430 | LayoutRule::DxCbuffer
        )
    }

    /// True for the scalar rules: every type aligned to its scalar component.
    fn is_scalar(self) -> bool {
        matches!(self, LayoutRule::Scalar | LayoutRule::GlslScalar)
    }

    /// True for the rules that round array, matrix and struct alignment up to 16.
    fn round_to_16(self) -> bool {
        matches!(
            self,
            LayoutRule::Std140 | LayoutRule::RelaxedStd140 | LayoutRule::DxCbuffer
        )
    }

    /// The rule's name, as used in diagnostics and docs.
    pub fn name(self) -> &'static str {
        match self {
            LayoutRule::Std140 => "std140",
            LayoutRule::Std430 => "std430",
            LayoutRule::RelaxedStd140 => "relaxed std140",
            LayoutRule::RelaxedStd430 => "relaxed std430",
            LayoutRule::Scalar => "scalar",
            LayoutRule::DxCbuffer => "D3D cbuffer",
            LayoutRule::GlslScalar => "GLSL scalar",
        }
    }
}

/// The layout of one type under one rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TypeLayout {
    /// Size in bytes (0 for a runtime array; a struct ending in one counts its fixed part).
    pub size: u32,
    /// Base alignment in bytes.
    pub align: u32,
    /// The array stride, for arrays and runtime arrays.
    pub array_stride: Option<u32>,
    /// The matrix stride, for matrices and (nested) arrays of matrices: the distance between
    /// the stored row or column vectors.
    pub matrix_stride: Option<u32>,
}

/// Where a struct field goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FieldLayout {
    /// The field.
    pub field: InstId,
    /// Offset from the start of the struct, in bytes.
    pub offset: u32,
    /// The layout of the field's type (with the field's majorness).
    pub layout: TypeLayout,
    /// True when matrices in the field are stored row-major (HLSL `row_major`).
    pub row_major: bool,
}

/// The layout of a struct type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StructLayout {
    /// The struct's own layout.
    pub layout: TypeLayout,
    /// Its fields, in order.
    pub fields: Vec<FieldLayout>,
}

/// Why a type has no layout.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// The type cannot be stored in a buffer (pointer, texture, sampler, function, void...).
    #[error("type `{0}` cannot be stored in a buffer")]
    NotStorable(String),
    /// A runtime array somewhere other than the last field of the outermost struct.
    #[error("a runtime array is only allowed as the last member of a buffer")]
    MisplacedRuntimeArray,
    /// The id does not name a type.
    #[error("not a type")]
    NotAType,
    /// Two fields share bytes (explicit offsets: `packoffset`, `register(cN)`,
    /// `[[vk::offset]]`).
    #[error(
        "field `{second}` at offset {second_offset} overlaps field `{first}` (bytes {first_offset} to {first_end})"
    )]
    Overlap {
        /// The field placed first in memory.
        first: String,
        /// Where it starts.
        first_offset: u32,
        /// One past its last byte.
        first_end: u32,
        /// The field that overlaps it.
        second: String,
        /// Where that one starts.
        second_offset: u32,
    },
}

fn round_up(v: u32, align: u32) -> u32 {
    if align <= 1 {
        v
    } else {
        v.div_ceil(align) * align
    }
}

/// True when `target` (a field, global or variable) stores its matrices row-major: it has a
/// `row_major` decoration. `col_major` or no decoration means column-major (HLSL's default).
pub fn is_row_major(m: &Module, target: InstId) -> bool {
    m.has_decoration(target, Op::RowMajor)
}

/// Size in bytes of a scalar type as stored in a buffer (`bool` as 4).
fn scalar_size(m: &Module, ty: InstId) -> Option<u32> {
    m.scalar_bits(ty).map(|b| b / 8)
}

/// The layout of `ty` under `rule`; `row_major` gives the majorness of matrices that are not
/// inside a struct field (a field's own decoration wins inside structs).
pub fn type_layout(
    m: &Module,
    ty: InstId,
    rule: LayoutRule,
    row_major: bool,
) -> Result<TypeLayout, LayoutError> {
    let op = m.try_op(ty).ok_or(LayoutError::NotAType)?;
    let plain = |size, align| TypeLayout {
        size,
        align,
        array_stride: None,
        matrix_stride: None,
    };
    match op {
        _ if op.is_scalar_type() => {
            let s = scalar_size(m, ty).ok_or(LayoutError::NotAType)?;
            Ok(plain(s, s))
        }
        Op::Vector => {
            let elem = m.operand(ty, 0);
            let n = m.vector_len(ty).unwrap_or(4);
            let s = scalar_size(m, elem).ok_or(LayoutError::NotAType)?;
            let align = match rule {
                LayoutRule::Scalar | LayoutRule::GlslScalar | LayoutRule::DxCbuffer => s,
                _ => s * if n == 3 { 4 } else { n },
            };
            Ok(plain(s * n, align))
        }
        Op::Matrix => {
            let elem = m.operand(ty, 0);
            let (rows, cols) = m.matrix_dims(ty).ok_or(LayoutError::NotAType)?;
            let s = scalar_size(m, elem).ok_or(LayoutError::NotAType)?;
            // Stored vectors: rows of `cols` components (row-major) or columns of `rows`.
            let (vec_len, vec_count) = if row_major {
                (cols, rows)
            } else {
                (rows, cols)
            };
            if rule.is_scalar() {
                return Ok(TypeLayout {
                    size: s * rows * cols,
                    align: s,
                    array_stride: None,
                    matrix_stride: Some(s * vec_len),
                });
            }
            let mut align = s * if vec_len == 3 { 4 } else { vec_len };
            if rule.round_to_16() {
                align = round_up(align, 16);
            }
            let size = if rule == LayoutRule::DxCbuffer {
                align * (vec_count - 1) + s * vec_len
            } else {
                align * vec_count
            };
            Ok(TypeLayout {
                size,
                align,
                array_stride: None,
                matrix_stride: Some(align),
            })
        }
        Op::Array | Op::RuntimeArray => {
            let elem = m.operand(ty, 0);
            let e = type_layout(m, elem, rule, row_major)?;
            if m.op(elem) == Op::RuntimeArray {
                return Err(LayoutError::MisplacedRuntimeArray);
            }
            if m.op(elem) == Op::Struct && ends_in_runtime_array(m, elem) {
                return Err(LayoutError::MisplacedRuntimeArray);
            }
            let n = if op == Op::Array {
                m.array_len(ty).unwrap_or(0)
            } else {
                0
            };
            let matrix_stride = e.matrix_stride;
            if rule.is_scalar() {
                return Ok(TypeLayout {
                    size: e.size * n,
                    align: e.align,
                    array_stride: Some(round_up(e.size, e.align)),
                    matrix_stride,
                });
            }
            let mut align = e.align;
            let mut elem_size = e.size;
            if rule.round_to_16() {
                align = round_up(align, 16);
                // An element of size 0 (an empty struct) still takes a 16-byte slot.
                if elem_size == 0 {
                    elem_size = align;
                }
            }
            let stride = round_up(elem_size, align);
            let size = if n == 0 {
                0
            } else if rule == LayoutRule::DxCbuffer {
                stride * (n - 1) + elem_size
            } else {
                round_up(stride * n, align)
            };
            Ok(TypeLayout {
                size,
                align,
                array_stride: Some(stride),
                matrix_stride,
            })
        }
        Op::Struct => Ok(struct_layout(m, ty, rule)?.layout),
        _ => Err(LayoutError::NotStorable(crate::print::print_inst(m, ty))),
    }
}

fn ends_in_runtime_array(m: &Module, st: InstId) -> bool {
    m.struct_fields(st)
        .last()
        .and_then(|&f| m.ty(f))
        .is_some_and(|t| m.try_op(t) == Some(Op::RuntimeArray))
}

/// The layout of a struct type and of each of its fields under `rule`. A runtime array is
/// allowed as the last field (the struct is then the outermost type of a storage buffer).
pub fn struct_layout(
    m: &Module,
    st: InstId,
    rule: LayoutRule,
) -> Result<StructLayout, LayoutError> {
    if m.try_op(st) != Some(Op::Struct) {
        return Err(LayoutError::NotAType);
    }
    let fields = m.struct_fields(st);
    let mut out = Vec::with_capacity(fields.len());
    let mut offset = 0u32;
    let mut max_align = 1u32;
    // The furthest byte any field reaches (explicit offsets may go backwards).
    let mut end = 0u32;
    let mut explicit = false;
    for (i, &f) in fields.iter().enumerate() {
        let fty = m.ty(f).ok_or(LayoutError::NotAType)?;
        if m.op(fty) == Op::RuntimeArray && i + 1 != fields.len() {
            return Err(LayoutError::MisplacedRuntimeArray);
        }
        let row_major = is_row_major(m, f);
        let fl = type_layout(m, fty, rule, row_major)?;
        let mut align = fl.align;
        if rule.relaxed_vectors() && m.op(fty) == Op::Vector {
            // Relaxed placement: a vector needs only its component alignment (when the
            // component is at most 4 bytes), unless that makes it straddle a 16-byte boundary.
            let elem = m.operand(fty, 0);
            let s = scalar_size(m, elem).unwrap_or(4);
            if s <= 4 {
                align = s;
            }
            let at = round_up(offset, align);
            let straddles = if fl.size <= 16 {
                at / 16 != (at + fl.size - 1) / 16
            } else {
                !at.is_multiple_of(16)
            };
            if straddles {
                align = 16;
            }
        }
        offset = round_up(offset, align);
        if let Some(at) = m
            .find_decoration(f, Op::Offset)
            .and_then(|d| m.imm_operand(d, 0))
        {
            offset = at;
            explicit = true;
        }
        out.push(FieldLayout {
            field: f,
            offset,
            layout: fl,
            row_major,
        });
        max_align = max_align.max(fl.align);
        offset = offset.saturating_add(fl.size);
        end = end.max(offset);
    }
    if explicit {
        check_overlaps(m, &out)?;
    }
    if rule.round_to_16() {
        max_align = round_up(max_align, 16);
    }
    // D3D packing leaves a struct unpadded, and so does glslang's scalar packing; every other
    // rule (scalar included, as DXC does for compatibility with C) rounds its size up to its
    // alignment.
    let size = if matches!(rule, LayoutRule::DxCbuffer | LayoutRule::GlslScalar) {
        end
    } else {
        round_up(end, max_align)
    };
    Ok(StructLayout {
        layout: TypeLayout {
            size,
            align: max_align,
            array_stride: None,
            matrix_stride: None,
        },
        fields: out,
    })
}

/// Fails when two fields of a struct share bytes (only explicit offsets can make them).
fn check_overlaps(m: &Module, fields: &[FieldLayout]) -> Result<(), LayoutError> {
    let mut by_offset: Vec<&FieldLayout> = fields.iter().filter(|f| f.layout.size > 0).collect();
    by_offset.sort_by_key(|f| f.offset);
    for pair in by_offset.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let a_end = a.offset.saturating_add(a.layout.size);
        if b.offset < a_end {
            let name = |f: &FieldLayout| m.name(f.field).unwrap_or("?").to_string();
            return Err(LayoutError::Overlap {
                first: name(a),
                first_offset: a.offset,
                first_end: a_end,
                second: name(b),
                second_offset: b.offset,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    fn offsets(src: &str, name: &str, rule: LayoutRule) -> (Vec<u32>, u32) {
        let m = parse(src).expect("test module parses");
        let st = m
            .structs()
            .into_iter()
            .find(|s| m.name(s.id()) == Some(name))
            .expect("struct exists");
        let l = struct_layout(&m, st.id(), rule).expect("layout");
        (l.fields.iter().map(|f| f.offset).collect(), l.layout.size)
    }

    const MIXED: &str = "struct @S {\n  a: f32\n  b: vec<f32, 3>\n  c: vec<f32, 2>\n  d: f32\n  e: array<f32, 2>\n  f: f32\n}\n";

    #[test]
    fn relaxed_packs_vector_after_scalar() {
        // float a; float3 b; -> b at 4 under DXC's relaxed rules, 16 under std140.
        let (o, size) = offsets(MIXED, "S", LayoutRule::RelaxedStd140);
        // a 0, b 4 (4..16 fits), c 16, d 24, e 32 (array: 16-aligned, stride 16), f 64.
        assert_eq!(o, vec![0, 4, 16, 24, 32, 64]);
        assert_eq!(size, 80);
        let (o, size) = offsets(MIXED, "S", LayoutRule::Std140);
        assert_eq!(o, vec![0, 16, 32, 40, 48, 80]);
        assert_eq!(size, 96);
    }

    #[test]
    fn std430_arrays_are_not_rounded() {
        let (o, size) = offsets(MIXED, "S", LayoutRule::Std430);
        assert_eq!(o, vec![0, 16, 32, 40, 44, 52]);
        assert_eq!(size, 64);
        let (o, size) = offsets(MIXED, "S", LayoutRule::RelaxedStd430);
        assert_eq!(o, vec![0, 4, 16, 24, 28, 36]);
        assert_eq!(size, 48);
        let (o, size) = offsets(MIXED, "S", LayoutRule::Scalar);
        assert_eq!(o, vec![0, 4, 16, 24, 28, 36]);
        assert_eq!(size, 40);
    }

    #[test]
    fn improper_straddle_bumps_to_16() {
        // float2 a; float b; float2 c: c at 12 would straddle 16, so it moves to 16.
        let src = "struct @T {\n  a: vec<f32, 2>\n  b: f32\n  c: vec<f32, 2>\n}\n";
        assert_eq!(
            offsets(src, "T", LayoutRule::RelaxedStd140).0,
            vec![0, 8, 16]
        );
        // A 24-byte vector must start on a 16-byte boundary.
        let src = "struct @T {\n  a: f32\n  b: vec<f64, 3>\n}\n";
        assert_eq!(offsets(src, "T", LayoutRule::RelaxedStd430).0, vec![0, 32]);
    }

    #[test]
    fn dx_cbuffer_packs_after_arrays() {
        // float2 a[2]; float b; -> a at 0 (stride 16, size 24), b at 24.
        let src =
            "struct @C {\n  a: array<vec<f32, 2>, 2>\n  b: f32\n  m: mat<f32, 2, 3>\n  z: f32\n}\n";
        let (o, size) = offsets(src, "C", LayoutRule::DxCbuffer);
        // m: column-major 2x3 = 3 columns of 2 floats: 16-aligned at 32, size 16*2+8 = 40.
        assert_eq!(o, vec![0, 24, 32, 72]);
        assert_eq!(size, 76);
    }

    #[test]
    fn matrices_follow_majorness() {
        let src = "struct @M {\n  a: mat<f32, 3, 4> [row_major]\n  b: mat<f32, 3, 4>\n  c: mat<f32, 3, 4> [col_major]\n}\n";
        let m = parse(src).expect("parses");
        let st = m.structs()[0].id();
        for rule in [LayoutRule::Std140, LayoutRule::Std430] {
            let l = struct_layout(&m, st, rule).expect("layout");
            // Row-major 3x4: 3 rows of 4 floats, stride 16, size 48.
            assert_eq!(l.fields[0].layout.matrix_stride, Some(16));
            assert_eq!(l.fields[0].layout.size, 48);
            assert!(l.fields[0].row_major);
            // Column-major 3x4: 4 columns of 3 floats (aligned as 4), stride 16, size 64.
            assert_eq!(l.fields[1].layout.size, 64);
            assert!(!l.fields[1].row_major);
            assert_eq!(l.fields[2].layout.size, 64);
            assert_eq!(l.fields[1].offset, 48);
            assert_eq!(l.fields[2].offset, 112);
        }
        let src =
            "struct @N {\n  a: mat<f32, 2, 2>\n  b: array<mat<f32, 2, 2> , 2> [row_major]\n}\n";
        let m = parse(src).expect("parses");
        let st = m.structs()[0].id();
        let l = struct_layout(&m, st, LayoutRule::Std140).expect("layout");
        assert_eq!(l.fields[0].layout.matrix_stride, Some(16));
        assert_eq!(l.fields[0].layout.size, 32);
        assert_eq!(l.fields[1].layout.array_stride, Some(32));
        let l = struct_layout(&m, st, LayoutRule::Std430).expect("layout");
        assert_eq!(l.fields[0].layout.matrix_stride, Some(8));
        assert_eq!(l.fields[0].layout.size, 16);
        assert_eq!(l.fields[1].layout.array_stride, Some(16));
        assert_eq!(l.fields[1].layout.matrix_stride, Some(8));
    }

    #[test]
    fn scalar_structs_round_up_to_their_alignment() {
        // {uint64_t; uint}: 12 bytes of members, 8-byte alignment: size (and stride) 16, as
        // DXC gives under -fvk-use-scalar-layout.
        let src =
            "struct @W {\n  a: u64\n  b: u32\n}\nstruct @H {\n  w: array<@W, 3>\n  c: u32\n}\n";
        let (o, size) = offsets(src, "W", LayoutRule::Scalar);
        assert_eq!((o, size), (vec![0, 8], 16));
        let m = parse(src).expect("parses");
        let h = m.structs()[1].id();
        let l = struct_layout(&m, h, LayoutRule::Scalar).expect("layout");
        assert_eq!(l.fields[0].layout.array_stride, Some(16));
        assert_eq!(l.fields[1].offset, 48);
        // D3D constant-buffer packing does not pad a struct.
        assert_eq!(offsets(src, "W", LayoutRule::DxCbuffer).1, 12);
    }

    #[test]
    fn explicit_offsets_may_go_backwards_but_not_overlap() {
        // register(cN)-style placement: the struct reaches as far as its furthest field.
        let src = "struct @G {\n  x: f32 [offset(200)]\n  y: f32 [offset(0)]\n}\n";
        assert_eq!(
            offsets(src, "G", LayoutRule::DxCbuffer),
            (vec![200, 0], 204)
        );
        let src = "struct @O {\n  a: vec<f32, 4>\n  b: f32 [offset(8)]\n}\n";
        let m = parse(src).expect("parses");
        let e =
            struct_layout(&m, m.structs()[0].id(), LayoutRule::RelaxedStd140).expect_err("overlap");
        assert!(
            matches!(&e, LayoutError::Overlap { first, second, .. } if first == "a" && second == "b"),
            "{e}"
        );
    }

    #[test]
    fn explicit_offsets_win() {
        let src = "struct @P {\n  a: f32\n  b: vec<f32, 4> [offset(32)]\n  c: f32\n}\n";
        let (o, size) = offsets(src, "P", LayoutRule::RelaxedStd140);
        assert_eq!(o, vec![0, 32, 48]);
        assert_eq!(size, 64);
    }

    #[test]
    fn nested_structs_and_runtime_arrays() {
        let src = "struct @In {\n  x: f32\n}\nstruct @Out {\n  a: f32\n  s: @In\n  b: f32\n  rest: rtarray<vec<f32, 3>>\n}\n";
        let (o, _) = offsets(src, "Out", LayoutRule::Std140);
        assert_eq!(o, vec![0, 16, 32, 48]);
        let (o, _) = offsets(src, "Out", LayoutRule::Std430);
        assert_eq!(o, vec![0, 4, 8, 16]);
        let m = parse(src).expect("parses");
        let rt = m
            .ty(*m.struct_fields(m.structs()[1].id()).last().expect("field"))
            .expect("typed");
        let l = type_layout(&m, rt, LayoutRule::Std430, false).expect("layout");
        assert_eq!(l.array_stride, Some(16));
        assert_eq!(l.size, 0);
        // bool is stored as 4 bytes.
        let src = "struct @B {\n  a: bool\n  b: vec<bool, 2>\n}\n";
        assert_eq!(offsets(src, "B", LayoutRule::Std430).0, vec![0, 8]);
        // A runtime array in the middle is an error.
        let src = "struct @X {\n  a: rtarray<f32>\n  b: f32\n}\n";
        let m = parse(src).expect("parses");
        assert_eq!(
            struct_layout(&m, m.structs()[0].id(), LayoutRule::Std430),
            Err(LayoutError::MisplacedRuntimeArray)
        );
    }
}
