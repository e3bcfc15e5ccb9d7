//! The GLSL backend construct by construct: each module is emitted, compiled by glslang
//! (`glslangValidator -V`), validated by spirv-val, and glslang's SPIR-V is read back to check
//! that the GLSL means what the SPIR-V backend emits (the same operations, scopes, semantics
//! and decorations); refusals are checked by their codes.

mod common;

use common::*;
use oneshader_backends::glsl::{self, Options};
use oneshader_backends::spirv::TargetEnv;
use oneshader_backends::{Legal, Target, prepare};
use oneshader_ir::Diagnostic;
use oneshader_test_tools::{GlslStage, glslang_and_validate};
use rspirv::dr::Operand;
use rspirv::spirv::Op;

/// Emits the module's only (or the named) entry point, compiles it with glslang and
/// validates; returns the text and glslang's SPIR-V.
fn compile(text: &str, entry: Option<&str>) -> (String, rspirv::dr::Module) {
    let m = parse(text);
    let eps = entry_points(&m);
    let stage = match entry {
        Some(e) => eps.iter().find(|x| x.0 == e).expect("the entry exists").1,
        None => eps[0].1,
    };
    let opts = Options {
        entry: entry.map(str::to_string),
        ..Options::default()
    };
    let glsl = emit_glsl(&m, &opts).unwrap_or_else(|d| panic!("refused: {d:#?}"));
    let words = glslang_and_validate(&glsl, GlslStage::of(stage)).unwrap_or_else(|e| panic!("{e}"));
    (glsl, load(&words))
}

/// The diagnostics of a refusal.
fn refused(text: &str, opts: &Options) -> Vec<Diagnostic> {
    emit_glsl(&parse(text), opts)
        .expect_err("the backend refuses")
        .into_vec()
}

fn has_code(d: &[Diagnostic], code: &str) -> bool {
    d.iter().any(|d| d.code == code)
}

/// The constant values of the `u32`/`i32` constants a module defines, by id.
fn constants(dr: &rspirv::dr::Module) -> std::collections::HashMap<u32, u32> {
    dr.types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Constant)
        .filter_map(|i| match i.operands.first() {
            Some(Operand::LiteralBit32(v)) => Some((i.result_id?, *v)),
            _ => None,
        })
        .collect()
}

/// The scope and memory-semantics operands (constants) of every instruction with opcode `op`.
fn const_operands(dr: &rspirv::dr::Module, op: Op) -> Vec<Vec<u32>> {
    let c = constants(dr);
    function_insts(dr)
        .iter()
        .filter(|i| i.class.opcode == op)
        .map(|i| {
            i.operands
                .iter()
                .filter_map(|o| match o {
                    Operand::IdScope(id) | Operand::IdMemorySemantics(id) => c.get(id).copied(),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

const TWO_ENTRIES: &str = r#"
global @out : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]
func @a() -> void [entry_point(compute, "first"), numthreads(1, 1, 1)] {
bb0:
  %p = element_addr @out, u32 0 : ptr<storage_buffer, u32>
  store %p, u32 1
  return
}
func @b() -> void [entry_point(compute, "second"), numthreads(2, 1, 1)] {
bb0:
  %p = element_addr @out, u32 1 : ptr<storage_buffer, u32>
  store %p, u32 2
  return
}
"#;

#[test]
fn one_entry_point_per_output_chosen_by_name() {
    let d = refused(TWO_ENTRIES, &Options::default());
    assert!(has_code(&d, "OSB0102"), "{d:#?}");
    assert!(d[0].message.contains("`first`") && d[0].message.contains("`second`"));
    let d = refused(TWO_ENTRIES, &Options::for_entry("third"));
    assert!(has_code(&d, "OSB0102"), "{d:#?}");
    let (text, _) = compile(TWO_ENTRIES, Some("second"));
    assert!(text.contains("local_size_x = 2"), "{text}");
    assert!(text.contains("out_1.data[1u] = 2u;"), "{text}");
    assert!(
        !text.contains("= 1u;"),
        "only the chosen entry point: {text}"
    );
    // A library has no GLSL form.
    let d = refused(
        "func @f(%x: i32) -> i32 {\nbb0:\n  return %x\n}\n",
        &Options::default(),
    );
    assert!(has_code(&d, "OSB0102"), "{d:#?}");
}

#[test]
fn unstated_tessellation_modes_and_other_targets_are_refused() {
    // A domain entry point that leaves its spacing and winding to the hull shader: GLSL
    // must state them in the evaluation shader (glslang's defaults need not be the hull
    // shader's).
    let domain = r#"
func @d() -> void [entry_point(domain, "main"), tess_domain(triangle)] {
bb0:
  return
}
"#;
    let d = refused(domain, &Options::default());
    assert!(has_code(&d, "OSB0103"), "{d:#?}");
    // A module prepared for SPIR-V is not one the GLSL backend takes.
    let mut m = parse(TWO_ENTRIES);
    let legal: Legal<'_> = prepare(&mut m, Target::Spirv).expect("legal for SPIR-V");
    let d = glsl::emit(&legal, &Options::for_entry("first")).expect_err("wrong target");
    assert!(has_code(&d, "OSB0101"), "{d:#?}");
}

#[test]
fn names_are_legal_unique_glsl_identifiers() {
    let text = r#"
global @texture : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]
global @gl_Thing : ptr<private, u32>
global @"a__b" : ptr<private, u32>
func @main(%x.int: u32) -> u32 {
bb0:
  %y.sample = add %x, u32 1 : u32
  %z.sample = mul %y, %y : u32
  return %z
}
func @entry() -> void [entry_point(compute, "entry"), numthreads(1, 1, 1)] {
bb0:
  store @gl_Thing, u32 3
  store @"a__b", u32 4
  %v = load @gl_Thing : u32
  %w = load @"a__b" : u32
  %s = add %v, %w : u32
  %r = call @main(%s) : u32
  %p = element_addr @texture, u32 0 : ptr<storage_buffer, u32>
  store %p, %r
  return
}
"#;
    let (glsl, _) = compile(text, None);
    for bad in [
        " texture ",
        " gl_Thing",
        "(gl_Thing",
        "a__b",
        "uint main(",
        " int ",
        " sample ",
    ] {
        assert!(!glsl.contains(bad), "`{bad}` in:\n{glsl}");
    }
    assert!(glsl.contains("void main() {"), "{glsl}");
}

#[test]
fn statements_read_like_the_source() {
    let (glsl, _) = compile(
        &std::fs::read_to_string(root().join("backends/tests/compute/control.ir"))
            .expect("the program exists"),
        None,
    );
    // A loop is `for (;;)` with its test first; a switch keeps its fall-through; a break out
    // of the loop from inside the switch goes through a flag; no `goto`-like state.
    assert!(glsl.contains("for (;;) {"), "{glsl}");
    assert!(
        glsl.contains("if (!(_6 < 6u)) {\n                break;"),
        "{glsl}"
    );
    assert!(glsl.contains("break_flag = true;"), "{glsl}");
    assert!(glsl.contains("if (break_flag) {"), "{glsl}");
    let case0 = glsl.find("case 0u:").expect("case 0");
    let case1 = glsl.find("case 1u:").expect("case 1");
    assert!(case0 < case1, "a fall-through precedes its target");
    assert!(
        !glsl[case0..case1].contains("break;"),
        "case 0 falls through"
    );
    // The value of an `if` arm used after the `if` is declared before it.
    assert!(
        glsl.contains("uint _1;\n    if (arg > 10u) {\n        _1 = arg * 3u;"),
        "{glsl}"
    );
}

const TEXTURES: &str = r#"
global @tex : ptr<uniform_constant, texture<2d, vec<f32, 4>>> [binding(0, 0)]
global @arr : ptr<uniform_constant, texture<2d, vec<f32, 4>, array>> [binding(0, 1)]
global @depth : ptr<uniform_constant, texture<2d, f32, depth>> [binding(0, 2)]
global @samp : ptr<uniform_constant, sampler> [binding(0, 3)]
global @cmp : ptr<uniform_constant, sampler_cmp> [binding(0, 4)]
global @img : ptr<uniform_constant, texture<2d, u32, storage, r32ui>> [binding(0, 5)]
global @uv : ptr<input, vec<f32, 2>> [location(0)]
global @color : ptr<output, vec<f32, 4>> [location(0)]
func @main() -> void [entry_point(fragment, "main")] {
bb0:
  %uv = load @uv : vec<f32, 2>
  %a = sample @tex, @samp, %uv : vec<f32, 4>
  %b = sample_bias @tex, @samp, %uv, f32 0.5 : vec<f32, 4>
  %c = sample_level @tex, @samp, %uv, f32 1.0, vec<i32, 2> {i32 1, i32 -1} : vec<f32, 4>
  %d = sample_grad @tex, @samp, %uv, %uv, %uv : vec<f32, 4>
  %uvl = construct %uv, f32 2.0 : vec<f32, 3>
  %e = sample @arr, @samp, %uvl : vec<f32, 4>
  %f = sample_cmp @depth, @cmp, %uv, f32 0.5 : f32
  %g = sample_cmp_level_zero @depth, @cmp, %uv, f32 0.25 : f32
  %h = gather @tex, @samp, %uv, 1 : vec<f32, 4>
  %i = gather_cmp @depth, @cmp, %uv, f32 0.5 : vec<f32, 4>
  %ic = construct i32 3, i32 4 : vec<i32, 2>
  %j = texture_load @tex, %ic, i32 0 : vec<f32, 4>
  %k = query_size @tex, u32 0 : vec<u32, 2>
  %l = query_levels @tex : u32
  %lod = query_lod @tex, @samp, %uv : vec<f32, 2>
  %uc = construct u32 1, u32 2 : vec<u32, 2>
  %m = texture_load @img, %uc : u32
  texture_store @img, %uc, %m
  %tp = texel_addr @img, %uc, u32 0 : ptr<image, u32>
  %n = atomic_rmw add, %tp, u32 1 : u32
  %s1 = add %a, %b : vec<f32, 4>
  %s2 = add %s1, %c : vec<f32, 4>
  %s3 = add %s2, %d : vec<f32, 4>
  %s4 = add %s3, %e : vec<f32, 4>
  %s5 = add %s4, %h : vec<f32, 4>
  %s6 = add %s5, %i : vec<f32, 4>
  %s7 = add %s6, %j : vec<f32, 4>
  %fg = add %f, %g : f32
  %kx = extract %k, 0 : u32
  %kl = add %kx, %l : u32
  %kn = add %kl, %n : u32
  %kf = convert %kn : f32
  %lx = extract %lod, 0 : f32
  %t1 = add %fg, %kf : f32
  %t2 = add %t1, %lx : f32
  %v = construct %t2, %t2, %t2, %t2 : vec<f32, 4>
  %out = add %s7, %v : vec<f32, 4>
  store @color, %out
  return
}
"#;

#[test]
fn textures_combine_at_use_and_keep_the_spirv_backends_operations() {
    let (glsl, dr) = compile(TEXTURES, None);
    assert!(glsl.contains("texture(sampler2D(tex, samp), _1)"), "{glsl}");
    assert!(glsl.contains("sampler2DShadow(depth, cmp)"), "{glsl}");
    assert!(glsl.contains("textureLodOffset("), "{glsl}");
    assert!(glsl.contains("imageAtomicAdd(img, "), "{glsl}");
    let ours = load(&emit_env(&parse(TEXTURES), TargetEnv::Vulkan1_2));
    for op in [
        Op::ImageSampleImplicitLod,
        Op::ImageSampleExplicitLod,
        Op::ImageSampleDrefImplicitLod,
        Op::ImageSampleDrefExplicitLod,
        Op::ImageGather,
        Op::ImageDrefGather,
        Op::ImageFetch,
        Op::ImageQuerySizeLod,
        Op::ImageQueryLevels,
        Op::ImageQueryLod,
        Op::ImageRead,
        Op::ImageWrite,
        Op::ImageTexelPointer,
        Op::AtomicIAdd,
    ] {
        assert_eq!(
            count_op(&dr, op),
            count_op(&ours, op),
            "{op:?} in glslang's output vs the SPIR-V backend's\n{glsl}"
        );
    }
}

#[test]
fn depth_comparisons_glsl_cannot_spell_are_refused() {
    let text = r#"
global @cube : ptr<uniform_constant, texture<cube, f32, depth>> [binding(0, 0)]
global @cmp : ptr<uniform_constant, sampler_cmp> [binding(0, 1)]
global @dir : ptr<input, vec<f32, 3>> [location(0)]
global @color : ptr<output, f32> [location(0)]
func @main() -> void [entry_point(fragment, "main")] {
bb0:
  %d = load @dir : vec<f32, 3>
  %s = sample_cmp_level_zero @cube, @cmp, %d, f32 0.5 : f32
  store @color, %s
  return
}
"#;
    let d = refused(text, &Options::default());
    assert!(has_code(&d, "OSB0108"), "{d:#?}");
    assert!(d[0].message.contains("GL_EXT_texture_shadow_lod"), "{d:#?}");
}

const SYNC: &str = r#"
global @data : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]
global @group : ptr<workgroup, array<u32, 64>>
global @gid : ptr<input, vec<u32, 3>> [builtin(local_invocation_id)]
func @main() -> void [entry_point(compute, "main"), numthreads(64, 1, 1)] {
bb0:
  %g = load @gid : vec<u32, 3>
  %i = extract %g, 0 : u32
  %w = element_addr @group, %i : ptr<workgroup, u32>
  store %w, %i
  barrier sync|workgroup
  %w0 = element_addr @group, u32 0 : ptr<workgroup, u32>
  %a = atomic_rmw add, %w0, u32 1 : u32
  %d0 = element_addr @data, u32 0 : ptr<storage_buffer, u32>
  %b = atomic_rmw max, %d0, %a : u32
  %c = atomic_rmw sub, %d0, u32 2 : u32
  %e = atomic_cmpxchg %d0, u32 5, %c : u32
  %f = atomic_rmw load, %d0, u32 0 : u32
  barrier sync|device
  barrier sync|workgroup|device
  barrier workgroup
  barrier device
  barrier sync
  %d1 = element_addr @data, %i : ptr<storage_buffer, u32>
  %s = add %b, %e : u32
  %s2 = add %s, %f : u32
  store %d1, %s2
  return
}
"#;

#[test]
fn barriers_and_atomics_keep_their_scopes_and_semantics() {
    let (glsl, dr) = compile(SYNC, None);
    let ours = load(&emit_env(&parse(SYNC), TargetEnv::Vulkan1_2));
    for op in [Op::ControlBarrier, Op::MemoryBarrier] {
        assert_eq!(
            const_operands(&dr, op),
            const_operands(&ours, op),
            "{op:?}: scopes and semantics\n{glsl}"
        );
    }
    // The atomics' scopes (workgroup memory: workgroup scope) and relaxed semantics; `sub`
    // is an `add` of the negated value in GLSL.
    let scopes = |m: &rspirv::dr::Module| -> Vec<Vec<u32>> {
        let mut all: Vec<Vec<u32>> = [
            Op::AtomicIAdd,
            Op::AtomicISub,
            Op::AtomicUMax,
            Op::AtomicCompareExchange,
            Op::AtomicLoad,
        ]
        .iter()
        .flat_map(|&op| const_operands(m, op))
        .collect();
        all.sort();
        all
    };
    assert_eq!(scopes(&dr), scopes(&ours), "atomic scopes\n{glsl}");
    assert!(glsl.contains("barrier();"), "{glsl}");
    assert!(glsl.contains("gl_ScopeWorkgroup, 0, 0)"), "{glsl}");
}

#[test]
fn subgroup_operations_map_to_khr_shader_subgroup() {
    let text = r#"
global @data : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]
global @gid : ptr<input, vec<u32, 3>> [builtin(global_invocation_id)]
func @main() -> void [entry_point(compute, "main"), numthreads(64, 1, 1)] {
bb0:
  %g = load @gid : vec<u32, 3>
  %i = extract %g, 0 : u32
  %p = element_addr @data, %i : ptr<storage_buffer, u32>
  %x = load %p : u32
  %s = call_intrinsic wave_active_sum(%x) : u32
  %q = call_intrinsic wave_prefix_sum(%x) : u32
  %m = call_intrinsic wave_active_max(%x) : u32
  %c = gt %x, u32 3 : bool
  %n = call_intrinsic wave_active_count_bits(%c) : u32
  %any = call_intrinsic wave_active_any_true(%c) : bool
  %first = call_intrinsic wave_is_first_lane() : bool
  %lane = call_intrinsic wave_get_lane_index() : u32
  %r = call_intrinsic wave_read_lane_at(%x, u32 0) : u32
  %b = call_intrinsic wave_read_lane_first(%x) : u32
  %qx = call_intrinsic quad_read_across_x(%x) : u32
  %ql = call_intrinsic quad_read_lane_at(%x, u32 2) : u32
  %t1 = add %s, %q : u32
  %t2 = add %t1, %m : u32
  %t3 = add %t2, %n : u32
  %t4 = add %t3, %lane : u32
  %t5 = add %t4, %r : u32
  %t6 = add %t5, %b : u32
  %t7 = add %t6, %qx : u32
  %t8 = add %t7, %ql : u32
  %u = convert %any : u32
  %v = convert %first : u32
  %t9 = add %t8, %u : u32
  %t10 = add %t9, %v : u32
  store %p, %t10
  return
}
"#;
    let (glsl, dr) = compile(text, None);
    assert!(
        glsl.contains("#extension GL_KHR_shader_subgroup_arithmetic"),
        "{glsl}"
    );
    let ours = load(&emit_env(&parse(text), TargetEnv::Vulkan1_2));
    for op in [
        Op::GroupNonUniformIAdd,
        Op::GroupNonUniformUMax,
        Op::GroupNonUniformBallot,
        Op::GroupNonUniformBallotBitCount,
        Op::GroupNonUniformAny,
        Op::GroupNonUniformElect,
        Op::GroupNonUniformShuffle,
        Op::GroupNonUniformBroadcastFirst,
        Op::GroupNonUniformQuadSwap,
        Op::GroupNonUniformQuadBroadcast,
    ] {
        assert_eq!(count_op(&dr, op), count_op(&ours, op), "{op:?}\n{glsl}");
    }
    // A run-time lane cannot be spelled (GLSL wants a constant).
    let dynamic = text.replace("quad_read_lane_at(%x, u32 2)", "quad_read_lane_at(%x, %x)");
    let d = refused(&dynamic, &Options::default());
    assert!(has_code(&d, "OSB0108"), "{d:#?}");
}

#[test]
fn stage_interfaces_builtins_and_qualifiers() {
    let vs = r#"
global @vid : ptr<input, u32> [builtin(vertex_index)]
global @dev : ptr<input, i32> [builtin(device_index)]
global @pos : ptr<output, vec<f32, 4>> [builtin(position), invariant]
global @clip : ptr<output, array<f32, 2>> [builtin(clip_distance)]
global @id : ptr<output, u32> [location(0)]
global @tc : ptr<output, vec<f32, 2>> [location(1), noperspective]
func @main() -> void [entry_point(vertex, "main")] {
bb0:
  %v = load @vid : u32
  %f = convert %v : f32
  %d = load @dev : i32
  %df = convert %d : f32
  %p = construct %f, %f, %df, f32 1.0 : vec<f32, 4>
  store @pos, %p
  %c0 = element_addr @clip, u32 0 : ptr<output, f32>
  store %c0, %f
  store @id, %v
  %t = construct %f, %f : vec<f32, 2>
  store @tc, %t
  return
}
"#;
    let (glsl, dr) = compile(vs, None);
    assert!(glsl.contains("invariant gl_Position;"), "{glsl}");
    assert!(glsl.contains("out float gl_ClipDistance[2];"), "{glsl}");
    assert!(glsl.contains("uint(gl_VertexIndex)"), "{glsl}");
    assert!(glsl.contains("float(gl_DeviceIndex)"), "{glsl}");
    assert!(glsl.contains("#extension GL_EXT_device_group"), "{glsl}");
    assert!(
        glsl.contains("layout(location = 1) noperspective out vec2 tc;"),
        "{glsl}"
    );
    assert!(
        dr.annotations.iter().any(|a| a
            .operands
            .contains(&Operand::Decoration(rspirv::spirv::Decoration::Invariant))),
        "{glsl}"
    );
    let fs = r#"
global @id : ptr<input, u32> [location(0)]
global @coord : ptr<input, vec<f32, 4>> [builtin(position)]
global @depth : ptr<output, f32> [builtin(frag_depth)]
global @o : ptr<output, vec<u32, 4>> [location(0)]
func @main() -> void [entry_point(fragment, "main"), early_fragment_tests] {
bb0:
  %i = load @id : u32
  %c = load @coord : vec<f32, 4>
  %z = extract %c, 2 : f32
  store @depth, %z
  %v = construct %i, %i, %i, %i : vec<u32, 4>
  store @o, %v
  return
}
"#;
    let (glsl, _) = compile(fs, None);
    // Integer fragment inputs are flat, as the SPIR-V backend makes them.
    assert!(
        glsl.contains("layout(location = 0) flat in uint id;"),
        "{glsl}"
    );
    assert!(glsl.contains("layout(early_fragment_tests) in;"), "{glsl}");
    assert!(glsl.contains("gl_FragDepth = gl_FragCoord.z;"), "{glsl}");
    assert!(glsl.contains("o = uvec4(_1);"), "a splat: {glsl}");
}

#[test]
fn spec_constants_push_constants_and_precise() {
    let text = r#"
let @SCALE = spec_const(3, f32 2.5)
let @ENABLED = spec_const(4, bool true)
struct @Push {
  offset: f32
  count: u32
}
global @pc : ptr<push_constant, @Push>
global @data : ptr<storage_buffer, rtarray<f32>> [binding(1, 2)]
func @main() -> void [entry_point(compute, "main"), numthreads(8, 4, 2)] {
bb0:
  %po = field_addr @pc, 0 : ptr<push_constant, f32>
  %o = load %po : f32
  %p0 = element_addr @data, u32 0 : ptr<storage_buffer, f32>
  %x = load %p0 : f32
  %m = mul %x, @SCALE : f32
  %a = add %m, %o : f32 [precise]
  %r = select @ENABLED, %a, %x : f32
  store %p0, %r
  return
}
"#;
    let (glsl, dr) = compile(text, None);
    assert!(
        glsl.contains("layout(constant_id = 3) const float SCALE = 2.5;"),
        "{glsl}"
    );
    assert!(
        glsl.contains("layout(constant_id = 4) const bool ENABLED = true;"),
        "{glsl}"
    );
    assert!(
        glsl.contains("layout(push_constant, std430) uniform"),
        "{glsl}"
    );
    assert!(
        glsl.contains("layout(set = 1, binding = 2, std430) buffer"),
        "{glsl}"
    );
    assert!(
        glsl.contains("local_size_x = 8, local_size_y = 4, local_size_z = 2"),
        "{glsl}"
    );
    assert!(glsl.contains("precise float"), "{glsl}");
    let decorated = |d: rspirv::spirv::Decoration| {
        dr.annotations
            .iter()
            .filter(|a| a.operands.contains(&Operand::Decoration(d)))
            .count()
    };
    assert_eq!(decorated(rspirv::spirv::Decoration::SpecId), 2, "{glsl}");
    assert!(
        decorated(rspirv::spirv::Decoration::NoContraction) >= 1,
        "{glsl}"
    );
}

#[test]
fn explicit_width_types_and_nonuniform_indexing() {
    let text = r#"
global @texs : ptr<uniform_constant, rtarray<texture<2d, vec<f32, 4>>>> [binding(0, 0)]
global @samp : ptr<uniform_constant, sampler> [binding(0, 1)]
global @idx : ptr<input, u32> [location(0)]
global @uv : ptr<input, vec<f32, 2>> [location(1)]
global @o : ptr<output, vec<f32, 4>> [location(0)]
global @big : ptr<storage_buffer, rtarray<u64>> [binding(0, 2)]
func @main() -> void [entry_point(fragment, "main")] {
bb0:
  %i = load @idx : u32
  %j = call_intrinsic nonuniform_index(%i) : u32
  %t = element_addr @texs, %j : ptr<uniform_constant, texture<2d, vec<f32, 4>>>
  %uv = load @uv : vec<f32, 2>
  %c = sample_level %t, @samp, %uv, f32 0.0 : vec<f32, 4>
  store @o, %c
  %w = convert %i : u64
  %s = shl %w, u64 40 : u64
  %h = convert %i : f16
  %h2 = mul %h, f16 0x4000 : f16
  %hw = convert %h2 : u64
  %sum = add %s, %hw : u64
  %p = element_addr @big, u32 0 : ptr<storage_buffer, u64>
  store %p, %sum
  return
}
"#;
    let (glsl, dr) = compile(text, None);
    assert!(glsl.contains("nonuniformEXT("), "{glsl}");
    assert!(glsl.contains("uniform texture2D texs[];"), "{glsl}");
    assert!(glsl.contains("uint64_t"), "{glsl}");
    assert!(glsl.contains("float16_t"), "{glsl}");
    assert!(
        dr.annotations.iter().any(|a| a
            .operands
            .contains(&Operand::Decoration(rspirv::spirv::Decoration::NonUniform))),
        "{glsl}"
    );
}

#[test]
fn implicit_derivatives_in_compute_get_the_spirv_backends_group() {
    let text = |x: u32, y: u32| {
        format!(
            r#"
global @tex : ptr<uniform_constant, texture<2d, vec<f32, 4>>> [binding(0, 0)]
global @samp : ptr<uniform_constant, sampler> [binding(0, 1)]
global @out : ptr<storage_buffer, rtarray<vec<f32, 4>>> [binding(0, 2)]
func @main() -> void [entry_point(compute, "main"), numthreads({x}, {y}, 1)] {{
bb0:
  %c = sample @tex, @samp, vec<f32, 2> {{f32 0.5, f32 0.5}} : vec<f32, 4>
  %p = element_addr @out, u32 0 : ptr<storage_buffer, vec<f32, 4>>
  store %p, %c
  return
}}
"#
        )
    };
    let (glsl, _) = compile(&text(8, 8), None);
    assert!(
        glsl.contains("layout(derivative_group_quadsNV) in;"),
        "{glsl}"
    );
    let (glsl, _) = compile(&text(4, 1), None);
    assert!(
        glsl.contains("layout(derivative_group_linearNV) in;"),
        "{glsl}"
    );
    let d = refused(&text(3, 1), &Options::default());
    assert!(has_code(&d, "OSB0110"), "{d:#?}");
}

#[test]
fn recursion_is_refused() {
    let text = r#"
func @f(%x: u32) -> u32 {
bb0:
  %y = call @f(%x) : u32
  return %y
}
global @out : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]
func @main() -> void [entry_point(compute, "main"), numthreads(1, 1, 1)] {
bb0:
  %r = call @f(u32 1) : u32
  %p = element_addr @out, u32 0 : ptr<storage_buffer, u32>
  store %p, %r
  return
}
"#;
    // The boundary refuses it for every target (the shared call graph finds the cycle).
    let d = refused(text, &Options::default());
    assert!(has_code(&d, "OSG0004"), "{d:#?}");
}

#[test]
fn out_parameters_pass_local_variables_inout() {
    let text = r#"
global @out : ptr<storage_buffer, rtarray<f32>> [binding(0, 0)]
func @split(%x: f32, %ip: ptr<function, f32>) -> f32 {
bb0:
  %f = call_intrinsic modf(%x, %ip) : f32
  return %f
}
func @main() -> void [entry_point(compute, "main"), numthreads(1, 1, 1)] {
bb0:
  %v = var : ptr<function, f32>
  %p0 = element_addr @out, u32 0 : ptr<storage_buffer, f32>
  %x = load %p0 : f32
  %f = call @split(%x, %v) : f32
  %i = load %v : f32
  %s = add %f, %i : f32
  store %p0, %s
  return
}
"#;
    let (glsl, _) = compile(text, None);
    assert!(glsl.contains("inout float"), "{glsl}");
    assert!(glsl.contains("modf("), "{glsl}");
}

#[test]
fn texel_buffers_byte_address_stores_and_interpolation() {
    let text = r#"
global @tb : ptr<uniform_constant, texture<buffer, vec<f32, 4>>> [binding(0, 0)]
global @ib : ptr<uniform_constant, texture<buffer, vec<u32, 4>, storage, rgba32ui>> [binding(0, 1)]
global @bytes : ptr<storage_buffer, rtarray<u32>> [binding(0, 2)]
global @v : ptr<input, vec<f32, 4>> [location(0)]
global @mask_in : ptr<input, array<u32, 1>> [builtin(sample_mask)]
global @mask_out : ptr<output, array<u32, 1>> [builtin(sample_mask)]
global @o : ptr<output, vec<f32, 4>> [location(0)]
func @main() -> void [entry_point(fragment, "main")] {
bb0:
  %a = texture_load @tb, i32 3 : vec<f32, 4>
  %b = texture_load @ib, i32 2 : vec<u32, 4>
  texture_store @ib, i32 5, %b
  %n = query_size @tb : u32
  %c = call_intrinsic interpolate_at_centroid(@v) : vec<f32, 4>
  %d = call_intrinsic interpolate_at_sample(@v, i32 1) : vec<f32, 4>
  %e = call_intrinsic interpolate_at_offset(@v, vec<f32, 2> {f32 0.25, f32 -0.25}) : vec<f32, 4>
  %off = mul %n, u32 16 : u32
  %f = add %c, %d : vec<f32, 4>
  buffer_store @bytes, %off, %f
  %mi = element_addr @mask_in, u32 0 : ptr<input, u32>
  %m = load %mi : u32
  %mo = element_addr @mask_out, u32 0 : ptr<output, u32>
  %m2 = and %m, u32 5 : u32
  store %mo, %m2
  %s = add %a, %e : vec<f32, 4>
  store @o, %s
  return
}
"#;
    let (glsl, dr) = compile(text, None);
    assert!(glsl.contains("uniform textureBuffer tb;"), "{glsl}");
    assert!(
        glsl.contains("rgba32ui) uniform uimageBuffer ib;"),
        "{glsl}"
    );
    assert!(glsl.contains("interpolateAtCentroid(v)"), "{glsl}");
    assert!(glsl.contains("interpolateAtSample(v, 1)"), "{glsl}");
    assert!(glsl.contains("gl_SampleMask[0u] = int("), "{glsl}");
    assert!(glsl.contains("uint(gl_SampleMaskIn[0u])"), "{glsl}");
    // Byte-address stores write 32-bit words at offset / 4.
    assert!(glsl.contains(">> 2u"), "{glsl}");
    assert!(glsl.contains("floatBitsToUint("), "{glsl}");
    let ours = load(&emit_env(&parse(text), TargetEnv::Vulkan1_2));
    for op in [
        Op::ImageFetch,
        Op::ImageRead,
        Op::ImageWrite,
        Op::ImageQuerySize,
    ] {
        assert_eq!(count_op(&dr, op), count_op(&ours, op), "{op:?}\n{glsl}");
    }
    let interp = |m: &rspirv::dr::Module| {
        function_insts(m)
            .iter()
            .filter(|i| i.class.opcode == Op::ExtInst)
            .filter(|i| {
                matches!(
                    i.operands.get(1),
                    Some(Operand::LiteralExtInstInteger(76..=78))
                )
            })
            .count()
    };
    assert_eq!(
        interp(&dr),
        3,
        "InterpolateAt{{Centroid,Sample,Offset}}\n{glsl}"
    );
    assert_eq!(interp(&dr), interp(&ours));
}

/// 64-bit storage images (`GL_EXT_shader_image_int64`) keep their format and the SPIR-V
/// backend's atomic; a block member of a struct type without fields is left out (it holds
/// no bytes) and reads as the empty value; a vector `wave_active_all_equal` (a vector of
/// bools in the IR) is one `subgroupAllEqual` per component, each a scalar
/// `OpGroupNonUniformAllEqual` as SPIR-V requires.
#[test]
fn wide_images_empty_members_and_per_component_all_equal() {
    let text = r#"
struct @Empty {
}
struct @P {
  e: @Empty
  x: u32
}
global @pc : ptr<push_constant, @P>
global @img : ptr<uniform_constant, texture<2d, u64, storage, r64ui>> [binding(0, 0)]
global @data : ptr<storage_buffer, rtarray<vec<u32, 2>>> [binding(0, 1)]
global @gid : ptr<input, vec<u32, 3>> [builtin(global_invocation_id)]
func @main() -> void [entry_point(compute, "main"), numthreads(8, 1, 1)] {
bb0:
  %g = load @gid : vec<u32, 3>
  %i = extract %g, 0 : u32
  %whole = load @pc : @P
  %x = extract %whole, 1 : u32
  %c = construct %x, %i : vec<u32, 2>
  %tp = texel_addr @img, %c, u32 0 : ptr<image, u64>
  %old = atomic_rmw max, %tp, u64 5 : u64
  %tl = texture_load @img, %c : u64
  %sum = add %old, %tl : u64
  texture_store @img, %c, %sum
  %p = element_addr @data, %i : ptr<storage_buffer, vec<u32, 2>>
  %v = load %p : vec<u32, 2>
  %eq = call_intrinsic wave_active_all_equal(%v) : vec<bool, 2>
  %r = select %eq, %v, vec<u32, 2> {u32 0, u32 0} : vec<u32, 2>
  store %p, %r
  return
}
"#;
    let (glsl, dr) = compile(text, None);
    assert!(
        glsl.contains("#extension GL_EXT_shader_image_int64"),
        "{glsl}"
    );
    assert!(glsl.contains("r64ui) uniform u64image2D"), "{glsl}");
    let block = glsl
        .split("uniform P_block {")
        .nth(1)
        .and_then(|b| b.split('}').next())
        .expect("the push-constant block");
    assert!(
        !block.contains(" e;"),
        "the empty member is left out:\n{glsl}"
    );
    let ours = load(&emit_env(&parse(text), TargetEnv::Vulkan1_2));
    assert_eq!(count_op(&dr, Op::AtomicUMax), 1, "{glsl}");
    assert_eq!(count_op(&ours, Op::AtomicUMax), 1);
    // The push-constant block has only `x`, at the offset the SPIR-V backend gives it (the
    // empty member takes no bytes): glslang's blocks each have one member at 0, ours has `x`
    // as member 1 at 0.
    let offsets = |dr: &rspirv::dr::Module| -> Vec<(u32, u32)> {
        dr.annotations
            .iter()
            .filter(|a| {
                a.class.opcode == Op::MemberDecorate
                    && a.operands[2] == Operand::Decoration(rspirv::spirv::Decoration::Offset)
            })
            .filter_map(|a| match (&a.operands[1], &a.operands[3]) {
                (Operand::LiteralBit32(k), Operand::LiteralBit32(v)) => Some((*k, *v)),
                _ => None,
            })
            .collect()
    };
    assert_eq!(offsets(&dr), vec![(0, 0), (0, 0)], "{glsl}");
    assert!(offsets(&ours).contains(&(1, 0)), "{:?}", offsets(&ours));
    let all_equal: Vec<_> = function_insts(&dr)
        .into_iter()
        .filter(|i| i.class.opcode == Op::GroupNonUniformAllEqual)
        .collect();
    assert_eq!(all_equal.len(), 2, "one per component:\n{glsl}");
    let bool_ty = dr
        .types_global_values
        .iter()
        .find(|t| t.class.opcode == Op::TypeBool)
        .and_then(|t| t.result_id);
    for i in all_equal {
        assert_eq!(i.result_type, bool_ty, "a scalar bool result");
    }
}

/// The options the SPIR-V backend shares: a texture buffer (a storage-buffer global
/// decorated `texture_buffer`) takes `tbuffer_rule` (here D3D packing, where the array `c`
/// starts a new 16-byte row, its elements 16 bytes apart, and `d` follows in its padding at
/// 36), other storage buffers `storage_rule` (relaxed std430: `c` at 4, stride 4, `d` at 12);
/// the denormal mode becomes the same execution mode and capability.
#[test]
fn texture_buffer_rule_and_denormal_mode_follow_the_spirv_backends_options() {
    use oneshader_backends::glsl::{DenormMode, LayoutRule};
    use oneshader_backends::spirv;
    let text = r#"
struct @T {
  a: f32
  c: array<f32, 2>
  d: f32
}
global @tb : ptr<storage_buffer, @T> [binding(0, 0), texture_buffer, readonly]
global @sb : ptr<storage_buffer, @T> [binding(0, 1)]
func @main() -> void [entry_point(compute, "main"), numthreads(1, 1, 1)] {
bb0:
  %p = field_addr @tb, 2 : ptr<storage_buffer, f32>
  %v = load %p : f32
  %q = field_addr @sb, 2 : ptr<storage_buffer, f32>
  store %q, %v
  return
}
"#;
    let m = parse(text);
    let gopts = Options {
        tbuffer_rule: LayoutRule::DxCbuffer,
        denorm: Some(DenormMode::FlushToZero),
        ..Options::default()
    };
    let glsl = emit_glsl(&m, &gopts).unwrap_or_else(|d| panic!("refused: {d:#?}"));
    let words = glslang_and_validate(&glsl, GlslStage::Compute).unwrap_or_else(|e| panic!("{e}"));
    let sopts = spirv::Options {
        tbuffer_rule: LayoutRule::DxCbuffer,
        denorm: Some(DenormMode::FlushToZero),
        ..spirv::Options::default()
    };
    let ours = try_emit(&m, &sopts).unwrap_or_else(|d| panic!("{d:#?}"));
    let (theirs, ours) = (load(&words), load(&ours));
    // Every offset and array stride, in declaration order of the decorations.
    let layout = |dr: &rspirv::dr::Module| -> Vec<(u32, u32)> {
        let mut v: Vec<(u32, u32)> = dr
            .annotations
            .iter()
            .filter_map(|a| match (a.class.opcode, &a.operands[..]) {
                (
                    Op::MemberDecorate,
                    [
                        _,
                        Operand::LiteralBit32(k),
                        Operand::Decoration(d),
                        Operand::LiteralBit32(v),
                    ],
                ) if *d == rspirv::spirv::Decoration::Offset => Some((*k, *v)),
                (Op::Decorate, [_, Operand::Decoration(d), Operand::LiteralBit32(v)])
                    if *d == rspirv::spirv::Decoration::ArrayStride =>
                {
                    Some((99, *v))
                }
                _ => None,
            })
            .collect();
        v.sort();
        v
    };
    let l = layout(&ours);
    assert!(l.contains(&(1, 16)) && l.contains(&(2, 36)), "{l:?}");
    assert!(l.contains(&(1, 4)) && l.contains(&(2, 12)), "{l:?}");
    assert!(l.contains(&(99, 16)) && l.contains(&(99, 4)), "{l:?}");
    assert_eq!(layout(&theirs), l, "{glsl}");
    let modes = |dr: &rspirv::dr::Module| -> Vec<Vec<Operand>> {
        dr.execution_modes
            .iter()
            .map(|i| i.operands[1..].to_vec())
            .filter(|o| o[0] != Operand::ExecutionMode(rspirv::spirv::ExecutionMode::LocalSize))
            .collect()
    };
    assert_eq!(
        modes(&theirs),
        vec![vec![
            Operand::ExecutionMode(rspirv::spirv::ExecutionMode::DenormFlushToZero),
            Operand::LiteralBit32(32)
        ]],
        "{glsl}"
    );
    assert_eq!(modes(&theirs), modes(&ours));
}

/// Sparse-residency reads (a `{status, texel}` result) are `GL_ARB_sparse_texture2`'s
/// functions, which return the residency code and write the texel to a local; the status
/// tested by `check_access_fully_mapped` is `sparseTexelsResidentARB`. glslang's module has
/// the SPIR-V backend's `OpImageSparse*` instructions, one for one.
#[test]
fn sparse_residency_reads_keep_the_spirv_backends_operations() {
    let text = r#"
struct @Sparse4 {
  status: u32
  texel: vec<f32, 4>
}
struct @Sparse2 {
  status: u32
  texel: vec<f32, 2>
}
struct @SparseF {
  status: u32
  texel: f32
}
struct @SparseU {
  status: u32
  texel: u32
}
global @t : ptr<uniform_constant, texture<2d, vec<f32, 4>>> [binding(0, 0)]
global @t2 : ptr<uniform_constant, texture<2d, vec<f32, 2>>> [binding(0, 1)]
global @d : ptr<uniform_constant, texture<2d, f32, depth>> [binding(0, 2)]
global @s : ptr<uniform_constant, sampler> [binding(0, 3)]
global @sc : ptr<uniform_constant, sampler_cmp> [binding(0, 4)]
global @img : ptr<uniform_constant, texture<2d, u32, storage, r32ui>> [binding(0, 5)]
global @uv : ptr<input, vec<f32, 2>> [location(0)]
global @out : ptr<output, vec<f32, 4>> [location(0)]

func @main() -> void [entry_point(fragment, "main")] {
bb0:
  %0 = load @uv : vec<f32, 2>
  %2 = sample @t, @s, %0, vec<i32, 2> zero, f32 1.5 : @Sparse4
  %3 = extract %2, 1 : vec<f32, 4>
  %4 = extract %2, 0 : u32
  %5 = call_intrinsic check_access_fully_mapped(%4) : bool
  %6 = sample_grad @t2, @s, %0, %0, %0, vec<i32, 2> {i32 1, i32 0}, f32 2.0 : @Sparse2
  %7 = extract %6, 1 : vec<f32, 2>
  %10 = sample_cmp_grad @d, @sc, %0, f32 0.5, %0, %0 : @SparseF
  %11 = extract %10, 1 : f32
  %12 = gather @t, @s, %0, 1 : @Sparse4
  %13 = extract %12, 1 : vec<f32, 4>
  %17 = texture_load @t, vec<i32, 2> {i32 0, i32 0}, i32 0 : @Sparse4
  %18 = extract %17, 1 : vec<f32, 4>
  %l = texture_load @img, vec<i32, 2> {i32 1, i32 1} : @SparseU
  %lt = extract %l, 1 : u32
  %lf = convert %lt : f32
  %19 = add %3, %13 : vec<f32, 4>
  %22 = add %19, %18 : vec<f32, 4>
  %24 = add %11, %lf : f32
  %25 = extract %7, 0 : f32
  %26 = add %24, %25 : f32
  %27 = select %5, %26, f32 0.0 : f32
  %28 = construct %27, %27, %27, %27 : vec<f32, 4>
  %29 = add %22, %28 : vec<f32, 4>
  store @out, %29
  return
}
"#;
    let (glsl, dr) = compile(text, None);
    assert!(glsl.contains("#extension GL_ARB_sparse_texture2"), "{glsl}");
    assert!(glsl.contains("sparseTexelsResidentARB(int("), "{glsl}");
    let ours = load(&emit_env(&parse(text), TargetEnv::Vulkan1_2));
    let sparse = [
        Op::ImageSparseSampleImplicitLod,
        Op::ImageSparseSampleExplicitLod,
        Op::ImageSparseSampleDrefExplicitLod,
        Op::ImageSparseGather,
        Op::ImageSparseFetch,
        Op::ImageSparseRead,
        Op::ImageSparseTexelsResident,
    ];
    for op in sparse {
        assert_eq!(count_op(&dr, op), count_op(&ours, op), "{op:?}\n{glsl}");
        assert!(count_op(&dr, op) > 0, "{op:?}\n{glsl}");
    }
}

/// What GLSL cannot say about texture reads is refused by name: a texel offset outside
/// glslang's -8..7 (OSB0108; a run-time offset too), a sparse read of a 1D texture (no such
/// `GL_ARB_sparse_texture2` function, OSB0109). A residency check of a status no sparse read
/// wrote still validates (glslang declares SparseResidency only for sparse reads, so the
/// check is declared by hand).
#[test]
fn texture_reads_glsl_cannot_spell_are_refused() {
    let base = r#"
struct @Sparse4 {
  status: u32
  texel: vec<f32, 4>
}
global @t : ptr<uniform_constant, texture<2d, vec<f32, 4>>> [binding(0, 0)]
global @t1 : ptr<uniform_constant, texture<1d, vec<f32, 4>>> [binding(0, 1)]
global @st : ptr<input, u32> [location(0), flat]
global @out : ptr<output, vec<f32, 4>> [location(0)]
func @main() -> void [entry_point(fragment, "main")] {
bb0:
  READ
  store @out, %v
  return
}
"#;
    let with = |read: &str| base.replace("READ", read);
    let far = with(
        "%v = texture_load @t, vec<i32, 2> {i32 0, i32 0}, i32 0, vec<i32, 2> {i32 10, i32 0} : vec<f32, 4>",
    );
    let d = refused(&far, &Options::default());
    assert!(
        d.iter()
            .any(|d| d.code == "OSB0108" && d.message.contains("texel offset 10")),
        "{d:#?}"
    );
    let near = with(
        "%v = texture_load @t, vec<i32, 2> {i32 0, i32 0}, i32 0, vec<i32, 2> {i32 7, i32 -8} : vec<f32, 4>",
    );
    let (glsl, _) = compile(&near, None);
    assert!(glsl.contains("texelFetchOffset("), "{glsl}");
    let sparse_1d =
        with("%r = texture_load @t1, i32 3, i32 0 : @Sparse4\n  %v = extract %r, 1 : vec<f32, 4>");
    let d = refused(&sparse_1d, &Options::default());
    assert!(
        d.iter()
            .any(|d| d.code == "OSB0109" && d.message.contains("1D")),
        "{d:#?}"
    );
    let check = with(
        "%s = load @st : u32\n  %ok = call_intrinsic check_access_fully_mapped(%s) : bool\n  \
         %f = select %ok, f32 1.0, f32 0.0 : f32\n  %v = construct %f, %f, %f, %f : vec<f32, 4>",
    );
    let (glsl, dr) = compile(&check, None);
    assert_eq!(count_op(&dr, Op::ImageSparseTexelsResident), 1, "{glsl}");
}
