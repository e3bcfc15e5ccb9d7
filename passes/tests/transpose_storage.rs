//! `transpose_storage`: column-major matrices in buffers are stored as their row-major
//! transposes (same bytes, WGSL's natural declaration), with a `transpose` at each whole
//! load and store, gathered and scattered rows, swapped element indices, and struct copies
//! whose layout equals the original's under every rule; what no host shares keeps its
//! matrices; the boundary's check (OSG0009, WGSL and MSL) refuses a module that skipped it.

mod common;
use common::{check, module};
use oneshader_ir::layout::{LayoutRule, struct_layout};
use oneshader_passes::legalize::{Target, check as legal_check};

const INPUT: &str = r#"
struct @T {
  a: f32
  m: mat<f32, 2, 3>
  r: mat<f32, 2, 3> [row_major]
  ms: array<mat<f32, 3, 2>, 2> [col_major]
}
global @buf : ptr<storage_buffer, @T> [binding(0, 0)]
global @out : ptr<storage_buffer, rtarray<f32>> [binding(0, 1)]
func @main() -> void [entry_point(compute, "main"), numthreads(1, 1, 1)] {
bb0:
  %0 = field_addr @buf, 1 : ptr<storage_buffer, mat<f32, 2, 3>>
  %1 = load %0 : mat<f32, 2, 3>
  %2 = extract %1, 1, 2 : f32
  %3 = element_addr %0, u32 1 : ptr<storage_buffer, vec<f32, 3>>
  %4 = load %3 : vec<f32, 3>
  %5 = extract %4, 0 : f32
  store %3, %4
  %6 = element_addr %3, u32 2 : ptr<storage_buffer, f32>
  store %6, %5
  %7 = load @buf : @T
  store @buf, %7
  %8 = field_addr @buf, 3 : ptr<storage_buffer, array<mat<f32, 3, 2>, 2>>
  %9 = element_addr %8, u32 1 : ptr<storage_buffer, mat<f32, 3, 2>>
  %10 = load %9 : mat<f32, 3, 2>
  store %9, %10
  %11 = element_addr @out, u32 0 : ptr<storage_buffer, f32>
  store %11, %2
  return
}
"#;

#[test]
fn column_major_matrices_in_buffers_are_stored_transposed() {
    // Read by hand: HLSL row 1 of the 2x3 `m` is component 1 of each of the 3 stored
    // vectors (HLSL columns); element (1, 2) is component 1 of stored vector 2; whole loads
    // transpose; the row-major `r` is untouched. A value loaded and stored back whole (the
    // struct, an element of the array) is stored as loaded: the conversions both ways cancel
    // and are removed.
    check(
        "transpose_storage",
        INPUT,
        r#"
struct @T {
  a: f32
  m: mat<f32, 2, 3>
  r: mat<f32, 2, 3> [row_major]
  ms: array<mat<f32, 3, 2>, 2> [col_major]
}
struct @T.1 {
  a: f32
  m: mat<f32, 3, 2> [row_major]
  r: mat<f32, 2, 3> [row_major]
  ms: array<mat<f32, 2, 3>, 2> [row_major]
}
global @buf : ptr<storage_buffer, @T.1> [binding(0, 0)]
global @out : ptr<storage_buffer, rtarray<f32>> [binding(0, 1)]
func @main() -> void [entry_point(compute, "main"), numthreads(1, 1, 1)] {
bb0:
  %0 = field_addr @buf, 1 : ptr<storage_buffer, mat<f32, 3, 2>>
  %1 = load %0 : mat<f32, 3, 2>
  %2 = call_intrinsic transpose(%1) : mat<f32, 2, 3>
  %3 = extract %2, 1, 2 : f32
  %4 = element_addr %0, u32 0 : ptr<storage_buffer, vec<f32, 2>>
  %5 = element_addr %4, u32 1 : ptr<storage_buffer, f32>
  %6 = load %5 : f32
  %7 = element_addr %0, u32 1 : ptr<storage_buffer, vec<f32, 2>>
  %8 = element_addr %7, u32 1 : ptr<storage_buffer, f32>
  %9 = load %8 : f32
  %10 = element_addr %0, u32 2 : ptr<storage_buffer, vec<f32, 2>>
  %11 = element_addr %10, u32 1 : ptr<storage_buffer, f32>
  %12 = load %11 : f32
  %13 = construct %6, %9, %12 : vec<f32, 3>
  %14 = extract %13, 0 : f32
  %15 = element_addr %0, u32 0 : ptr<storage_buffer, vec<f32, 2>>
  %16 = element_addr %15, u32 1 : ptr<storage_buffer, f32>
  %17 = extract %13, 0 : f32
  store %16, %17
  %18 = element_addr %0, u32 1 : ptr<storage_buffer, vec<f32, 2>>
  %19 = element_addr %18, u32 1 : ptr<storage_buffer, f32>
  %20 = extract %13, 1 : f32
  store %19, %20
  %21 = element_addr %0, u32 2 : ptr<storage_buffer, vec<f32, 2>>
  %22 = element_addr %21, u32 1 : ptr<storage_buffer, f32>
  %23 = extract %13, 2 : f32
  store %22, %23
  %24 = element_addr %0, u32 2 : ptr<storage_buffer, vec<f32, 2>>
  %25 = element_addr %24, u32 1 : ptr<storage_buffer, f32>
  store %25, %14
  %26 = load @buf : @T.1
  store @buf, %26
  %49 = field_addr @buf, 3 : ptr<storage_buffer, array<mat<f32, 2, 3>, 2>>
  %50 = element_addr %49, u32 1 : ptr<storage_buffer, mat<f32, 2, 3>>
  %51 = load %50 : mat<f32, 2, 3>
  store %50, %51
  %54 = element_addr @out, u32 0 : ptr<storage_buffer, f32>
  store %54, %3
  return
}
"#,
    );
}

#[test]
fn the_stored_copy_has_the_original_layout_under_every_rule() {
    let mut m = module(INPUT);
    common::run("transpose_storage", &mut m);
    let buf = m
        .globals()
        .into_iter()
        .find(|g| m.name(g.id()) == Some("buf"))
        .expect("@buf");
    let stored = m
        .ty(buf.id())
        .and_then(|t| m.pointee(t))
        .expect("a pointer");
    // The value struct: the other struct named `T` (the printer shows the copy as @T.1).
    let value = m
        .all_ids()
        .find(|&i| m.op(i) == oneshader_ir::Op::Struct && m.name(i) == Some("T") && i != stored)
        .expect("the value struct stays");
    for rule in [
        LayoutRule::Std140,
        LayoutRule::Std430,
        LayoutRule::RelaxedStd140,
        LayoutRule::RelaxedStd430,
        LayoutRule::Scalar,
        LayoutRule::DxCbuffer,
    ] {
        let a = struct_layout(&m, value, rule).expect("the value struct has a layout");
        let b = struct_layout(&m, stored, rule).expect("the stored struct has a layout");
        assert_eq!(a.layout.size, b.layout.size, "{rule:?}");
        assert_eq!(a.layout.align, b.layout.align, "{rule:?}");
        for (x, y) in a.fields.iter().zip(&b.fields) {
            assert_eq!(x.offset, y.offset, "{rule:?}");
            assert_eq!(x.layout.size, y.layout.size, "{rule:?}");
            assert_eq!(x.layout.array_stride, y.layout.array_stride, "{rule:?}");
            assert_eq!(x.layout.matrix_stride, y.layout.matrix_stride, "{rule:?}");
            if x.layout.matrix_stride.is_some() {
                assert!(y.row_major, "{rule:?}: every stored matrix is row-major");
            }
        }
    }
}

#[test]
fn a_whole_buffer_of_column_major_matrices_is_marked_row_major() {
    // The element copied from one slot to another is stored as loaded (the two transposes
    // cancel).
    check(
        "transpose_storage",
        r#"
global @mats : ptr<storage_buffer, rtarray<mat<f32, 2, 4>>> [binding(0, 0)]
func @main() -> void [entry_point(compute, "main"), numthreads(1, 1, 1)] {
bb0:
  %0 = element_addr @mats, u32 3 : ptr<storage_buffer, mat<f32, 2, 4>>
  %1 = load %0 : mat<f32, 2, 4>
  %2 = element_addr @mats, u32 0 : ptr<storage_buffer, mat<f32, 2, 4>>
  store %2, %1
  return
}
"#,
        r#"
global @mats : ptr<storage_buffer, rtarray<mat<f32, 4, 2>>> [binding(0, 0), row_major]
func @main() -> void [entry_point(compute, "main"), numthreads(1, 1, 1)] {
bb0:
  %0 = element_addr @mats, u32 3 : ptr<storage_buffer, mat<f32, 4, 2>>
  %1 = load %0 : mat<f32, 4, 2>
  %3 = element_addr @mats, u32 0 : ptr<storage_buffer, mat<f32, 4, 2>>
  store %3, %1
  return
}
"#,
    );
}

#[test]
fn the_wgsl_and_msl_boundaries_refuse_column_major_matrices_in_buffers() {
    let m = module(INPUT);
    let info = oneshader_ir::analysis::ModuleInfo::new(&m);
    for target in [Target::Wgsl, Target::Msl] {
        let d = legal_check(&m, target, &info);
        assert!(
            d.iter().any(|d| d.code == "OSG0009"
                && d.message.contains("@buf")
                && d.notes.iter().any(|n| n.contains("transpose_storage"))),
            "{target}: {d:?}"
        );
    }
    // SPIR-V and GLSL state majorness with decorations and qualifiers: no such rule there.
    for target in [Target::Spirv, Target::Glsl] {
        let d = legal_check(&m, target, &info);
        assert!(d.iter().all(|d| d.code != "OSG0009"), "{target}: {d:?}");
    }
    let mut m = module(INPUT);
    common::run("transpose_storage", &mut m);
    let info = oneshader_ir::analysis::ModuleInfo::new(&m);
    for target in [Target::Wgsl, Target::Msl] {
        let d = legal_check(&m, target, &info);
        assert!(d.is_empty(), "{target}: {d:?}");
    }
}

#[test]
fn square_column_major_matrices_are_transposed_too() {
    // A square matrix's transpose has the same IR type: the field is still marked row-major
    // and every access still transposes (the content changes, not the type).
    check(
        "transpose_storage",
        r#"
struct @P {
  world: mat<f32, 4, 4> [col_major]
}
global @po : ptr<uniform, @P> [binding(0, 1)]
global @out : ptr<storage_buffer, rtarray<vec<f32, 4>>> [binding(0, 0)]
func @main() -> void [entry_point(compute, "main"), numthreads(1, 1, 1)] {
bb0:
  %0 = field_addr @po, 0 : ptr<uniform, mat<f32, 4, 4>>
  %1 = load %0 : mat<f32, 4, 4>
  %2 = extract %1, 0 : vec<f32, 4>
  %3 = element_addr @out, u32 0 : ptr<storage_buffer, vec<f32, 4>>
  store %3, %2
  return
}
"#,
        r#"
struct @P {
  world: mat<f32, 4, 4> [col_major]
}
struct @P.1 {
  world: mat<f32, 4, 4> [row_major]
}
global @po : ptr<uniform, @P.1> [binding(0, 1)]
global @out : ptr<storage_buffer, rtarray<vec<f32, 4>>> [binding(0, 0)]
func @main() -> void [entry_point(compute, "main"), numthreads(1, 1, 1)] {
bb0:
  %0 = field_addr @po, 0 : ptr<uniform, mat<f32, 4, 4>>
  %1 = load %0 : mat<f32, 4, 4>
  %2 = call_intrinsic transpose(%1) : mat<f32, 4, 4>
  %3 = extract %2, 0 : vec<f32, 4>
  %4 = element_addr @out, u32 0 : ptr<storage_buffer, vec<f32, 4>>
  store %4, %3
  return
}
"#,
    );
}
