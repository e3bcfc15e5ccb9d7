//! `image_widths`: textures and storage images of 16-bit elements hold 32-bit ones; every
//! read yields the 32-bit texel converted back, every write converts first, queries stay,
//! arrays of textures are retyped through their element type, a texel pointer into such an
//! image is refused (OSG0012), and afterwards the check the backends' boundary runs
//! (OSG0011) passes.

mod common;

use oneshader_ir::analysis::ModuleInfo;
use oneshader_passes::legalize::{Target, check};
use oneshader_passes::pipeline::pass_by_name;

const INPUT: &str = "\
global @t : ptr<uniform_constant, texture<2d, vec<f16, 4>>> [binding(0, 0)]
global @ts : ptr<uniform_constant, array<texture<2d, i16>, 2>> [binding(0, 1)]
global @o : ptr<uniform_constant, texture<2d, vec<u16, 2>, storage>> [binding(0, 2)]
global @s : ptr<uniform_constant, sampler> [binding(0, 3)]
func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {
bb0:
  %0 = sample_level @t, @s, vec<f32, 2> {f32 0.5, f32 0.5}, f32 0.0 : vec<f16, 4>
  %1 = texture_load @t, vec<u32, 2> {u32 1, u32 2}, u32 0 : vec<f16, 2>
  %2 = element_addr @ts, u32 1 : ptr<uniform_constant, texture<2d, i16>>
  %3 = texture_load %2, vec<u32, 2> {u32 0, u32 0}, u32 0 : i16
  %4 = query_size @t, u32 0 : vec<u32, 2>
  %5 = extract %0, 0 : f16
  %6 = extract %1, 1 : f16
  %7 = add %5, %6 : f16
  %8 = convert %7 : u16
  %9 = bitcast %3 : u16
  %10 = add %8, %9 : u16
  %11 = construct %10, %10 : vec<u16, 2>
  texture_store @o, %4, %11
  return
}
";

/// Each read of a retyped texture is followed by the conversion back to what the program
/// reads; the store converts first; the query and the rest are untouched.
const EXPECTED: &str = "\
global @t : ptr<uniform_constant, texture<2d, vec<f32, 4>>> [binding(0, 0)]
global @ts : ptr<uniform_constant, array<texture<2d, i32>, 2>> [binding(0, 1)]
global @o : ptr<uniform_constant, texture<2d, vec<u32, 2>, storage>> [binding(0, 2)]
global @s : ptr<uniform_constant, sampler> [binding(0, 3)]
func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {
bb0:
  %0 = sample_level @t, @s, vec<f32, 2> {f32 0.5, f32 0.5}, f32 0.0 : vec<f32, 4>
  %1 = convert %0 : vec<f16, 4>
  %2 = texture_load @t, vec<u32, 2> {u32 1, u32 2}, u32 0 : vec<f32, 2>
  %3 = convert %2 : vec<f16, 2>
  %4 = element_addr @ts, u32 1 : ptr<uniform_constant, texture<2d, i32>>
  %5 = texture_load %4, vec<u32, 2> {u32 0, u32 0}, u32 0 : i32
  %6 = convert %5 : i16
  %7 = query_size @t, u32 0 : vec<u32, 2>
  %8 = extract %1, 0 : f16
  %9 = extract %3, 1 : f16
  %10 = add %8, %9 : f16
  %11 = convert %10 : u16
  %12 = bitcast %6 : u16
  %13 = add %11, %12 : u16
  %14 = construct %13, %13 : vec<u16, 2>
  %15 = convert %14 : vec<u32, 2>
  texture_store @o, %7, %15
  return
}
";

#[test]
fn images_of_16_bit_elements_hold_32_bit_ones_converted_at_each_access() {
    common::check("image_widths", INPUT, EXPECTED);
}

#[test]
fn the_check_refuses_a_16_bit_image_and_accepts_the_rewrite() {
    let mut m = common::module(INPUT);
    for target in [Target::Spirv, Target::Glsl, Target::Wgsl, Target::Msl] {
        let diags = check(&m, target, &ModuleInfo::new(&m));
        assert!(
            diags
                .iter()
                .any(|d| d.code == "OSG0011" && d.message.contains("@t")),
            "{target}: {diags:?}"
        );
    }
    common::run("image_widths", &mut m);
    for target in [Target::Spirv, Target::Glsl, Target::Wgsl, Target::Msl] {
        let diags = check(&m, target, &ModuleInfo::new(&m));
        assert!(diags.is_empty(), "{target}: {diags:?}");
    }
}

#[test]
fn images_of_32_bit_elements_are_left_alone() {
    common::check_unchanged(
        "image_widths",
        "global @t : ptr<uniform_constant, texture<2d, vec<f32, 4>>> [binding(0, 0)]\n\
         func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {\n\
         bb0:\n\
           %0 = texture_load @t, vec<u32, 2> {u32 1, u32 2}, u32 0 : vec<f32, 4>\n\
           return\n\
         }\n",
    );
}

#[test]
fn a_texel_pointer_into_a_16_bit_image_is_refused() {
    let mut m = common::module(
        "global @o : ptr<uniform_constant, texture<2d, u16, storage>> [binding(0, 0)]\n\
         func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {\n\
         bb0:\n\
           %0 = texel_addr @o, vec<u32, 2> {u32 1, u32 2}, u32 0 : ptr<image, u16>\n\
           %1 = load %0 : u16\n\
           return\n\
         }\n",
    );
    let mut pass = pass_by_name("image_widths").unwrap();
    let e = pass.run(&mut m).expect_err("refused");
    assert_eq!(e.code, Some("OSG0012"), "{e}");
    assert!(e.diagnostics[0].message.contains("texel_addr"), "{e:?}");
}
