//! The MSL backend's refusals (by code), its binding map, its layout shims and its spelling of
//! the IR's arithmetic. Every text it prints here also compiles with clang against the
//! stand-in `<metal_stdlib>` (there is no Metal compiler on Linux).

mod common;

use common::{emit, parse};
use oneshader_backends::{Target, msl, prepare};
use oneshader_ir::{Module, Stage};
use oneshader_test_tools::{msl_check, msl_clang_check};

fn emit_msl(m: &Module, opts: &msl::Options) -> Result<String, oneshader_ir::Errors> {
    let mut m = m.clone();
    let legal = prepare(&mut m, Target::Msl)?;
    msl::emit(&legal, opts)
}

fn codes(e: &oneshader_ir::Errors) -> Vec<String> {
    e.iter().map(|d| d.code.to_string()).collect()
}

const BUFFERS: &str = "\
struct @P {
  a: f32
  b: vec<f32, 3>
  c: f32
}
global @params : ptr<uniform, @P> [binding(0, 3)]
global @data : ptr<storage_buffer, rtarray<i32>> [binding(1, 0)]
global @gid : ptr<input, vec<u32, 3>> [builtin(global_invocation_id)]
func @main() -> void [entry_point(compute, \"main\"), numthreads(8, 1, 1)] {
bb0:
  %0 = load @gid : vec<u32, 3>
  %1 = extract %0, 0 : u32
  %2 = element_addr @data, %1 : ptr<storage_buffer, i32>
  %3 = load %2 : i32
  %4 = add %3, i32 2147483647 : i32
  %5 = shl %4, %3 : i32
  %6 = field_addr @params, 1 : ptr<uniform, vec<f32, 3>>
  %7 = load %6 : vec<f32, 3>
  %8 = extract %7, 2 : f32
  %9 = convert %8 : i32
  %10 = mul %5, %9 : i32
  store %2, %10
  return
}
";

/// DXC's relaxed placement (`float a; float3 b;` puts `b` at 4) is a packed vector; the
/// buffers get spirv-cross's default indices (each kind counts from 0, whatever the set and
/// binding); signed arithmetic wraps through `uint` and shift counts are masked.
#[test]
fn packed_members_default_indices_and_wrapping_arithmetic() {
    let m = parse(BUFFERS);
    let text = emit_msl(&m, &msl::Options::default()).expect("emits");
    msl_check(&text, &emit(&m), "main").unwrap_or_else(|e| panic!("{e}"));
    assert!(
        text.contains("    float a;\n    packed_float3 b;\n    float c;"),
        "{text}"
    );
    assert!(text.contains("constant P& params [[buffer(0)]]"), "{text}");
    assert!(text.contains("device int* data [[buffer(1)]]"), "{text}");
    assert!(text.contains("kernel void main0("), "{text}");
    assert!(
        text.contains("as_type<int>(as_type<uint>(") && text.contains("& 31u"),
        "{text}"
    );
    assert!(text.contains("float3(params.b)"), "{text}");
}

/// A binding map gives each (stage, set, binding) its index; a resource it does not list is
/// refused by name.
#[test]
fn the_binding_map_sets_indices_and_refuses_unlisted_resources() {
    let m = parse(BUFFERS);
    let map = msl::BindingMap::from_json(
        r#"[{"stage": "compute", "set": 0, "binding": 3, "index": 5},
            {"stage": "compute", "set": 1, "binding": 0, "index": 2}]"#,
    )
    .expect("a valid map");
    let opts = msl::Options {
        binding_map: Some(map),
        ..msl::Options::default()
    };
    let text = emit_msl(&m, &opts).expect("emits");
    msl_clang_check(&text).unwrap_or_else(|e| panic!("{e}"));
    assert!(text.contains("constant P& params [[buffer(5)]]"), "{text}");
    assert!(text.contains("device int* data [[buffer(2)]]"), "{text}");
    let mut partial = msl::BindingMap::new();
    partial.insert(Stage::Compute, 0, 3, 0);
    let opts = msl::Options {
        binding_map: Some(partial),
        ..msl::Options::default()
    };
    let e = emit_msl(&m, &opts).expect_err("`data` is not in the map");
    assert!(
        e.iter().any(|d| d.code == "OSB0311"
            && d.message.contains("@data")
            && d.message.contains("set 1, binding 0")),
        "{e:?}"
    );
    assert!(msl::BindingMap::from_json(r#"[{"stage": "hull", "set": 0}]"#).is_err());
    assert!(msl::BindingMap::from_json("{}").is_err());
}

/// Stages other than vertex, fragment and compute, wave operations in vertex functions,
/// memory-only barriers and 64-bit atomics are refused by code.
#[test]
fn what_msl_cannot_state_is_refused_by_code() {
    let geometry = std::fs::read_to_string(common::root().join("examples/ir/geometry.ir"))
        .expect("geometry.ir exists");
    let e = emit_msl(&parse(&geometry), &msl::Options::default()).expect_err("a stage");
    assert_eq!(codes(&e), ["OSB0303"]);
    let wave = "\
global @data : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]
func @main() -> void [entry_point(vertex, \"main\")] {
bb0:
  %0 = element_addr @data, u32 0 : ptr<storage_buffer, u32>
  %1 = load %0 : u32
  %2 = call_intrinsic wave_active_sum(%1) : u32
  store %0, %2
  return
}
";
    let e = emit_msl(&parse(wave), &msl::Options::default()).expect_err("a vertex wave");
    assert!(
        e.iter().any(|d| d.code == "OSB0308"
            && d.message.contains("wave_active_sum")
            && d.message.contains("vertex")),
        "{e:?}"
    );
    let barrier = "\
func @main() -> void [entry_point(compute, \"main\"), numthreads(64, 1, 1)] {
bb0:
  barrier device
  return
}
";
    let e = emit_msl(&parse(barrier), &msl::Options::default()).expect_err("a fence");
    assert_eq!(codes(&e), ["OSB0308"]);
    let wide = "\
global @data : ptr<storage_buffer, rtarray<u64>> [binding(0, 0)]
func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {
bb0:
  %0 = element_addr @data, u32 0 : ptr<storage_buffer, u64>
  %1 = atomic_rmw add, %0, u64 1 : u64
  return
}
";
    let e = emit_msl(&parse(wide), &msl::Options::default()).expect_err("64-bit atomics");
    assert!(
        e.iter()
            .any(|d| d.code == "OSB0307" && d.message.contains("32-bit integers only")),
        "{e:?}"
    );
}

/// Barriers synchronize the threadgroup with the memory flags the IR names; atomics act on
/// `atomic_uint` memory with relaxed order; threadgroup memory is declared in the kernel.
#[test]
fn barriers_atomics_and_threadgroup_memory() {
    let src = "\
global @shared : ptr<workgroup, array<u32, 64>>
global @count : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]
global @lid : ptr<input, u32> [builtin(local_invocation_index)]
func @main() -> void [entry_point(compute, \"main\"), numthreads(64, 1, 1)] {
bb0:
  %0 = load @lid : u32
  %1 = element_addr @shared, %0 : ptr<workgroup, u32>
  store %1, %0
  barrier sync|workgroup
  %2 = element_addr @count, u32 0 : ptr<storage_buffer, u32>
  %3 = load %1 : u32
  %4 = atomic_rmw add, %2, %3 : u32
  barrier sync|workgroup|device
  return
}
";
    let m = parse(src);
    let text = emit_msl(&m, &msl::Options::default()).expect("emits");
    msl_check(&text, &emit(&m), "main").unwrap_or_else(|e| panic!("{e}"));
    assert!(
        text.contains("threadgroup array<uint, 64> shared;"),
        "{text}"
    );
    assert!(
        text.contains("device atomic_uint* count [[buffer(0)]]"),
        "{text}"
    );
    assert!(
        text.contains("atomic_fetch_add_explicit(&count[0u], ")
            && text.contains("memory_order_relaxed)"),
        "{text}"
    );
    assert!(
        text.contains("threadgroup_barrier(mem_flags::mem_threadgroup);")
            && text.contains(
                "threadgroup_barrier(mem_flags::mem_device | mem_flags::mem_threadgroup);"
            ),
        "{text}"
    );
    assert!(text.contains("[[thread_index_in_threadgroup]]"), "{text}");
}

/// Wave operations are SIMD-group functions; the lane index and count are the built-ins
/// spirv-cross declares for them (`thread_execution_width` in a kernel).
#[test]
fn wave_operations_are_simd_group_functions() {
    let src = "\
global @data : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]
func @main() -> void [entry_point(compute, \"main\"), numthreads(64, 1, 1)] {
bb0:
  %0 = call_intrinsic wave_get_lane_index() : u32
  %1 = element_addr @data, %0 : ptr<storage_buffer, u32>
  %2 = load %1 : u32
  %3 = call_intrinsic wave_active_sum(%2) : u32
  %4 = call_intrinsic wave_prefix_sum(%2) : u32
  %5 = call_intrinsic wave_get_lane_count() : u32
  %6 = add %3, %4 : u32
  %7 = add %6, %5 : u32
  %8 = call_intrinsic quad_read_across_x(%7) : u32
  store %1, %8
  return
}
";
    let m = parse(src);
    let text = emit_msl(&m, &msl::Options::default()).expect("emits");
    msl_check(&text, &emit(&m), "main").unwrap_or_else(|e| panic!("{e}"));
    for f in [
        "simd_sum(",
        "simd_prefix_exclusive_sum(",
        "quad_shuffle_xor(",
        "[[thread_index_in_simdgroup]]",
        "[[thread_execution_width]]",
    ] {
        assert!(text.contains(f), "{f}: {text}");
    }
}

/// Clip distances leave a vertex function as a `[[clip_distance]]` array and as
/// `[[user(clipN)]]` varyings, as spirv-cross declares them.
#[test]
fn clip_distances_are_an_array_and_varyings() {
    let src = "\
global @pos : ptr<output, vec<f32, 4>> [builtin(position)]
global @clip : ptr<output, array<f32, 2>> [builtin(clip_distance)]
func @main() -> void [entry_point(vertex, \"main\")] {
bb0:
  %0 = construct f32 0, f32 0, f32 0, f32 1 : vec<f32, 4>
  store @pos, %0
  %1 = construct f32 1, f32 -1 : array<f32, 2>
  store @clip, %1
  return
}
";
    let m = parse(src);
    let text = emit_msl(&m, &msl::Options::default()).expect("emits");
    msl_check(&text, &emit(&m), "main").unwrap_or_else(|e| panic!("{e}"));
    assert!(text.contains("[[clip_distance]] [2];"), "{text}");
    assert!(text.contains("[[user(clip1)]]"), "{text}");
}

/// Under std140 a storage buffer's matrices of 2-component rows (row-major `mat<f32, 3, 2>`,
/// and column-major `mat<f32, 2, 3>`, which legalization stores as its row-major transpose)
/// have rows 16 bytes apart: an array of them is an array of arrays of `float4`, written whole
/// (row by row, each row's leading components), by element, by row, and read whole.
#[test]
fn arrays_of_padded_matrices_are_written_row_by_row() {
    let src = "\
struct @B {
  m: array<mat<f32, 3, 2>, 2> [row_major]
  c: array<mat<f32, 2, 3>, 2>
}
global @buf : ptr<storage_buffer, @B> [binding(0, 0)]
global @gid : ptr<input, vec<u32, 3>> [builtin(global_invocation_id)]
func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {
bb0:
  %id = load @gid : vec<u32, 3>
  %i = extract %id, 0 : u32
  %pm = field_addr @buf, 0 : ptr<storage_buffer, array<mat<f32, 3, 2>, 2>>
  %all = load %pm : array<mat<f32, 3, 2>, 2>
  %m0 = extract %all, 0 : mat<f32, 3, 2>
  %m1 = extract %all, 1 : mat<f32, 3, 2>
  %sw = construct %m1, %m0 : array<mat<f32, 3, 2>, 2>
  store %pm, %sw
  %e = element_addr %pm, %i : ptr<storage_buffer, mat<f32, 3, 2>>
  store %e, %m0
  %row = element_addr %e, u32 2 : ptr<storage_buffer, vec<f32, 2>>
  %r = extract %m1, 0 : vec<f32, 2>
  store %row, %r
  %pc = field_addr @buf, 1 : ptr<storage_buffer, array<mat<f32, 2, 3>, 2>>
  %call = load %pc : array<mat<f32, 2, 3>, 2>
  %c0 = extract %call, 0 : mat<f32, 2, 3>
  %c1 = extract %call, 1 : mat<f32, 2, 3>
  %csw = construct %c1, %c0 : array<mat<f32, 2, 3>, 2>
  store %pc, %csw
  return
}
";
    let m = parse(src);
    let opts = msl::Options {
        storage_rule: oneshader_ir::layout::LayoutRule::Std140,
        ..msl::Options::default()
    };
    let text = emit_msl(&m, &opts).expect("emits");
    msl_clang_check(&text).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        text.contains("    array<array<float4, 3>, 2> m;\n    array<array<float4, 3>, 2> c;\n"),
        "{text}"
    );
    // Read whole: each matrix from its rows' leading components.
    assert!(
        text.contains(
            "array<float3x2, 2>{float3x2(buf.m[0][0].xy, buf.m[0][1].xy, buf.m[0][2].xy), \
             float3x2(buf.m[1][0].xy, buf.m[1][1].xy, buf.m[1][2].xy)}"
        ),
        "{text}"
    );
    // Written whole (the swapped array), row component by row component.
    assert!(
        text.contains("array<float3x2, 2> matrices = array<float3x2, 2>{_4, _3};"),
        "{text}"
    );
    for e in 0..2 {
        for r in 0..3 {
            for c in ['x', 'y'] {
                let line = format!("buf.m[{e}][{r}].{c} = matrices[{e}][{r}].{c};");
                assert!(text.contains(&line), "{line}: {text}");
            }
        }
    }
    // One element, then one row of it.
    assert!(text.contains("float3x2 vectors = _3;"), "{text}");
    assert!(
        text.contains("buf.m[_1][2].y = vectors[2].y;\n    buf.m[_1][2u].x = _4[0].x;"),
        "{text}"
    );
    // The column-major array goes through `transpose` both ways.
    assert!(
        text.contains("array<float2x3, 2>{transpose(_5[0]), transpose(_5[1])}"),
        "{text}"
    );
    assert!(
        text.contains("array<float3x2, 2> matrices_1 = array<float3x2, 2>{transpose(_7[0]), "),
        "{text}"
    );
    assert!(
        text.contains("buf.c[1][2].y = matrices_1[1][2].y;"),
        "{text}"
    );
}
