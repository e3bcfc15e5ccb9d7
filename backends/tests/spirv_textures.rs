//! Every texture operation on the texture kinds it applies to, each in its own fragment
//! shader, through spirv-val; the capabilities each kind needs are declared.

mod common;

use common::*;
use oneshader_backends::spirv::TargetEnv;
use rspirv::dr::Operand;
use rspirv::spirv::Capability;

const RESOURCES: &str = r#"
global @t2d : ptr<uniform_constant, texture<2d, vec<f32, 4>>> [binding(0, 0)]
global @t1d : ptr<uniform_constant, texture<1d, f32>> [binding(0, 1)]
global @t3d : ptr<uniform_constant, texture<3d, vec<f32, 2>>> [binding(0, 2)]
global @cube_arr : ptr<uniform_constant, texture<cube, vec<f32, 4>, array>> [binding(0, 3)]
global @depth : ptr<uniform_constant, texture<2d, f32, depth>> [binding(0, 4)]
global @ms : ptr<uniform_constant, texture<2d, vec<f32, 4>, ms>> [binding(0, 5)]
global @texels : ptr<uniform_constant, texture<buffer, vec<u32, 4>>> [binding(0, 6)]
global @rw : ptr<uniform_constant, texture<2d, vec<f32, 4>, storage, rgba32f>> [binding(0, 7)]
global @rw_any : ptr<uniform_constant, texture<2d, vec<f32, 4>, storage>> [binding(0, 8)]
global @rw_buf : ptr<uniform_constant, texture<buffer, u32, storage, r32ui>> [binding(0, 9)]
global @samp : ptr<uniform_constant, sampler> [binding(1, 0)]
global @cmp : ptr<uniform_constant, sampler_cmp> [binding(1, 1)]
global @uv : ptr<input, vec<f32, 2>> [location(0)]
global @out : ptr<output, vec<f32, 4>> [location(0)]
"#;

/// (instruction line producing `%r`, or a statement; capability it must declare).
const CASES: &[(&str, Option<Capability>)] = &[
    ("%r = sample @t2d, @samp, %uv : vec<f32, 4>", None),
    (
        "%r = sample @t2d, @samp, %uv, vec<i32, 2> {i32 1, i32 1} : vec<f32, 4>",
        None,
    ),
    (
        "%r = sample_bias @t2d, @samp, %uv, f32 0.5 : vec<f32, 4>",
        None,
    ),
    (
        "%r = sample_level @t2d, @samp, %uv, f32 2.0 : vec<f32, 4>",
        None,
    ),
    (
        "%r = sample_grad @t2d, @samp, %uv, %uv, %uv : vec<f32, 4>",
        None,
    ),
    (
        "%r = sample @t1d, @samp, %x : f32",
        Some(Capability::Sampled1D),
    ),
    ("%r = sample @t3d, @samp, %uvw : vec<f32, 2>", None),
    (
        "%r = sample @cube_arr, @samp, %uvwa : vec<f32, 4>",
        Some(Capability::SampledCubeArray),
    ),
    ("%r = sample_cmp @depth, @cmp, %uv, f32 0.5 : f32", None),
    (
        "%r = sample_cmp_level_zero @depth, @cmp, %uv, f32 0.5 : f32",
        None,
    ),
    ("%r = gather @t2d, @samp, %uv, 2 : vec<f32, 4>", None),
    (
        "%r = gather @t2d, @samp, %uv, 0, %off : vec<f32, 4>",
        Some(Capability::ImageGatherExtended),
    ),
    (
        "%r = gather_cmp @depth, @cmp, %uv, f32 0.5 : vec<f32, 4>",
        None,
    ),
    ("%r = texture_load @t2d, %ij, i32 1 : vec<f32, 4>", None),
    ("%r = texture_load @ms, %ij, i32 3 : vec<f32, 4>", None),
    (
        "%r = texture_load @texels, %k : vec<u32, 4>",
        Some(Capability::SampledBuffer),
    ),
    ("%r = texture_load @rw, %ij : vec<f32, 4>", None),
    (
        "%r = texture_load @rw_any, %ij : vec<f32, 4>",
        Some(Capability::StorageImageReadWithoutFormat),
    ),
    (
        "%r = texture_load @rw_buf, %k : u32",
        Some(Capability::ImageBuffer),
    ),
    ("texture_store @rw, %ij, vec<f32, 4> zero", None),
    (
        "texture_store @rw_any, %ij, vec<f32, 4> zero",
        Some(Capability::StorageImageWriteWithoutFormat),
    ),
    (
        "%r = query_size @t2d, u32 0 : vec<u32, 2>",
        Some(Capability::ImageQuery),
    ),
    (
        "%r = query_size @cube_arr, u32 1 : vec<u32, 3>",
        Some(Capability::ImageQuery),
    ),
    (
        "%r = query_size @rw : vec<u32, 2>",
        Some(Capability::ImageQuery),
    ),
    (
        "%r = query_size @texels : u32",
        Some(Capability::ImageQuery),
    ),
    ("%r = query_levels @t2d : u32", Some(Capability::ImageQuery)),
    ("%r = query_samples @ms : u32", Some(Capability::ImageQuery)),
    (
        "%r = query_lod @t2d, @samp, %uv : vec<f32, 2>",
        Some(Capability::ImageQuery),
    ),
];

fn shader(line: &str) -> String {
    format!(
        r#"{RESOURCES}
func @ps() -> void [entry_point(fragment, "ps")] {{
bb0:
  %uv = load @uv : vec<f32, 2>
  %x = extract %uv, 0 : f32
  %uvw = construct %uv, %x : vec<f32, 3>
  %uvwa = construct %uv, %x, %x : vec<f32, 4>
  %ij = convert %uv : vec<i32, 2>
  %k = extract %ij, 0 : i32
  %off = convert %uv : vec<i32, 2>
  {line}
  store @out, vec<f32, 4> zero
  return
}}
"#
    )
}

#[test]
fn every_texture_operation_validates() {
    for (line, cap) in CASES {
        let m = parse(&shader(line));
        for env in [
            TargetEnv::Vulkan1_0,
            TargetEnv::Vulkan1_2,
            TargetEnv::Vulkan1_3,
        ] {
            let words = emit_env(&m, env);
            if let Err(e) = spirv_val(&words, env) {
                panic!("`{line}` ({env}): {e}");
            }
            if let Some(c) = cap {
                let dr = load(&words);
                assert!(
                    dr.capabilities
                        .iter()
                        .any(|i| i.operands[0] == Operand::Capability(*c)),
                    "`{line}` declares {c:?}"
                );
            }
        }
    }
}
