//! Gaps the HLSL corpus found in the SPIR-V backend: derivative groups of compute shaders that
//! take implicit derivatives, arrays of buffers (descriptor arrays of `Block` structs), and
//! instructions longer than SPIR-V's 65535 words. Each output goes through spirv-val and is
//! read back with rspirv to check the construct itself.
use oneshader_backends::spirv::{self, Options, TargetEnv};
use rspirv::dr::{Module as DrModule, Operand};
use rspirv::spirv::{Capability, Decoration, ExecutionMode, Op};

fn parse(text: &str) -> oneshader_ir::Module {
    oneshader_ir::parse::parse(text).unwrap_or_else(|d| panic!("IR does not parse: {d:?}"))
}

fn emit(text: &str, env: TargetEnv) -> Result<Vec<u32>, oneshader_ir::Errors> {
    let mut m = parse(text);
    let legal = oneshader_backends::prepare(&mut m, oneshader_backends::Target::Spirv)?;
    spirv::emit(&legal, &Options::for_env(env))
}

fn emit_ok(text: &str, env: TargetEnv) -> Vec<u32> {
    emit(text, env).unwrap_or_else(|d| {
        panic!(
            "emission failed: {}",
            d.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        )
    })
}

/// Both validators (test-tools), failing with a message naming `cargo xtask setup` when one
/// is missing.
fn validate(words: &[u32], env: TargetEnv) {
    let name = env.spirv_val_name();
    if let Err(e) = oneshader_test_tools::spirv_val_args(
        words,
        &["--target-env", &name, "--relax-block-layout"],
    ) {
        panic!("spirv-val ({name}) rejects the output:\n{e}");
    }
}

fn load(words: &[u32]) -> DrModule {
    rspirv::dr::load_words(words).expect("rspirv parses the output")
}

fn caps(m: &DrModule) -> Vec<Capability> {
    m.capabilities
        .iter()
        .filter_map(|i| match i.operands[0] {
            Operand::Capability(c) => Some(c),
            _ => None,
        })
        .collect()
}

fn exts(m: &DrModule) -> Vec<String> {
    m.extensions
        .iter()
        .filter_map(|i| match &i.operands[0] {
            Operand::LiteralString(s) => Some(s.clone()),
            _ => None,
        })
        .collect()
}

fn modes(m: &DrModule) -> Vec<ExecutionMode> {
    m.execution_modes
        .iter()
        .filter_map(|i| match i.operands[1] {
            Operand::ExecutionMode(e) => Some(e),
            _ => None,
        })
        .collect()
}

const ALL_VULKAN: [TargetEnv; 5] = [
    TargetEnv::Vulkan1_0,
    TargetEnv::Vulkan1_1,
    TargetEnv::Vulkan1_1Spirv1_4,
    TargetEnv::Vulkan1_2,
    TargetEnv::Vulkan1_3,
];

fn compute_with(numthreads: (u32, u32, u32), body: &str) -> String {
    let (x, y, z) = numthreads;
    format!(
        "global @t : ptr<uniform_constant, texture<2d, vec<f32, 4>>> [binding(0, 0)]
global @s : ptr<uniform_constant, sampler> [binding(0, 1)]
global @sc : ptr<uniform_constant, sampler_cmp> [binding(0, 3)]
global @d : ptr<uniform_constant, texture<2d, f32, depth>> [binding(0, 4)]
global @o : ptr<storage_buffer, rtarray<vec<f32, 4>>> [binding(0, 2)]
global @id : ptr<input, vec<u32, 3>> [builtin(global_invocation_id)]

func @helper(%0: vec<f32, 2>) -> vec<f32, 4> {{
bb0:
{body}
}}

func @main() -> void [entry_point(compute, \"main\"), numthreads({x}, {y}, {z})] {{
bb0:
  %0 = load @id : vec<u32, 3>
  %1 = shuffle %0, %0, 0, 1 : vec<u32, 2>
  %2 = convert %1 : vec<f32, 2>
  %3 = call @helper(%2) : vec<f32, 4>
  %4 = element_addr @o, u32 0 : ptr<storage_buffer, vec<f32, 4>>
  store %4, %3
  return
}}
"
    )
}

const SAMPLE: &str = "  %1 = sample @t, @s, %0 : vec<f32, 4>\n  return %1";

#[test]
fn compute_derivatives_pick_quads_or_linear_groups_as_dxc_does() {
    let bodies = [
        SAMPLE.to_string(),
        "  %1 = sample_bias @t, @s, %0, f32 1.0 : vec<f32, 4>\n  return %1".into(),
        "  %1 = sample_cmp @d, @sc, %0, f32 0.5 : f32\n  %2 = construct %1, %1, %1, %1 : vec<f32, 4>\n  return %2".into(),
        "  %1 = query_lod @t, @s, %0 : vec<f32, 2>\n  %2 = shuffle %1, %1, 0, 1, 0, 1 : vec<f32, 4>\n  return %2".into(),
        "  %1 = extract %0, 0 : f32\n  %2 = call_intrinsic ddx_fine(%1) : f32\n  %3 = construct %2, %2, %2, %2 : vec<f32, 4>\n  return %3".into(),
    ];
    // (numthreads, expected mode): DXC's rule is quads when x and y are even, else linear
    // when the thread count is a multiple of 4.
    let shapes = [
        ((2, 2, 1), ExecutionMode::DerivativeGroupQuadsNV),
        ((8, 8, 1), ExecutionMode::DerivativeGroupQuadsNV),
        ((2, 10, 1), ExecutionMode::DerivativeGroupQuadsNV),
        ((12, 1, 1), ExecutionMode::DerivativeGroupLinearNV),
        ((1, 1, 4), ExecutionMode::DerivativeGroupLinearNV),
    ];
    for body in &bodies {
        for (shape, mode) in shapes {
            let text = compute_with(shape, body);
            for env in ALL_VULKAN {
                let words = emit_ok(&text, env);
                validate(&words, env);
                let m = load(&words);
                assert!(modes(&m).contains(&mode), "{shape:?}: {:?}", modes(&m));
                let cap = if mode == ExecutionMode::DerivativeGroupQuadsNV {
                    Capability::ComputeDerivativeGroupQuadsNV
                } else {
                    Capability::ComputeDerivativeGroupLinearNV
                };
                assert!(caps(&m).contains(&cap));
                assert!(exts(&m).contains(&"SPV_NV_compute_shader_derivatives".to_string()));
            }
        }
    }
}

#[test]
fn compute_without_derivatives_has_no_derivative_group() {
    let text = compute_with(
        (8, 8, 1),
        "  %1 = sample_level @t, @s, %0, f32 0.0 : vec<f32, 4>\n  return %1",
    );
    let words = emit_ok(&text, TargetEnv::Vulkan1_2);
    validate(&words, TargetEnv::Vulkan1_2);
    let m = load(&words);
    assert_eq!(modes(&m), vec![ExecutionMode::LocalSize]);
    assert!(exts(&m).is_empty(), "{:?}", exts(&m));
}

#[test]
fn compute_derivatives_with_an_unsuitable_group_are_a_diagnostic() {
    let text = compute_with((3, 1, 1), SAMPLE);
    let d = emit(&text, TargetEnv::Vulkan1_2).expect_err("no derivative group fits 3x1x1");
    assert_eq!(d[0].code, "OSB0011");
    assert!(
        d[0].message.contains("numthreads(3, 1, 1)"),
        "{}",
        d[0].message
    );
}

/// The id of the pointee of variable `var`'s pointer type.
fn pointee_of_var(m: &DrModule, var: u32) -> u32 {
    let v = m
        .types_global_values
        .iter()
        .find(|i| i.result_id == Some(var))
        .expect("the variable");
    let ptr = v.result_type.expect("typed");
    let p = m
        .types_global_values
        .iter()
        .find(|i| i.result_id == Some(ptr))
        .expect("the pointer type");
    match p.operands[1] {
        Operand::IdRef(t) => t,
        _ => panic!("not a pointer"),
    }
}

fn def(m: &DrModule, id: u32) -> &rspirv::dr::Instruction {
    m.types_global_values
        .iter()
        .find(|i| i.result_id == Some(id))
        .expect("a definition")
}

fn is_block(m: &DrModule, id: u32) -> bool {
    m.annotations.iter().any(|i| {
        i.class.opcode == Op::Decorate
            && i.operands[0] == Operand::IdRef(id)
            && i.operands[1] == Operand::Decoration(Decoration::Block)
    })
}

fn var_named(m: &DrModule, name: &str) -> u32 {
    m.debug_names
        .iter()
        .find(|i| {
            i.class.opcode == Op::Name && i.operands[1] == Operand::LiteralString(name.into())
        })
        .and_then(|i| match i.operands[0] {
            Operand::IdRef(id) => Some(id),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no OpName {name}"))
}

const BUFFER_ARRAYS: &str = r#"struct @T {
  c: vec<f32, 4>
}
struct @S {
  n: u32
  data: rtarray<f32>
}
struct @M {
  m: mat<f32, 4, 4> [row_major]
  c: vec<f32, 4>
}
global @cbs : ptr<uniform, rtarray<@T>> [binding(0, 0)]
global @fixed : ptr<uniform, array<@M, 2>> [binding(0, 1)]
global @bufs : ptr<storage_buffer, array<rtarray<vec<f32, 4>>, 3>> [binding(0, 2)]
global @sbufs : ptr<storage_buffer, rtarray<@S>> [binding(0, 3)]
global @i : ptr<input, u32> [location(0), flat]
global @out : ptr<output, vec<f32, 4>> [location(0)]

func @main() -> void [entry_point(fragment, "main")] {
bb0:
  %0 = load @i : u32
  %1 = element_addr @cbs, %0 : ptr<uniform, @T>
  %2 = field_addr %1, 0 : ptr<uniform, vec<f32, 4>>
  %3 = load %2 : vec<f32, 4>
  %4 = element_addr @fixed, u32 1 : ptr<uniform, @M>
  %5 = load %4 : @M
  %6 = extract %5, 1 : vec<f32, 4>
  %7 = field_addr %4, 0 : ptr<uniform, mat<f32, 4, 4>>
  %8 = load %7 : mat<f32, 4, 4>
  %9 = matmul %6, %8 : vec<f32, 4>
  %10 = element_addr @bufs, %0 : ptr<storage_buffer, rtarray<vec<f32, 4>>>
  %11 = element_addr %10, u32 3 : ptr<storage_buffer, vec<f32, 4>>
  %12 = load %11 : vec<f32, 4>
  %13 = array_length %10 : u32
  %14 = element_addr @sbufs, %0 : ptr<storage_buffer, @S>
  %15 = field_addr %14, 1 : ptr<storage_buffer, rtarray<f32>>
  %16 = array_length %15 : u32
  %17 = add %13, %16 : u32
  %18 = convert %17 : f32
  %19 = construct %18, %18, %18, %18 : vec<f32, 4>
  %20 = add %3, %9 : vec<f32, 4>
  %21 = add %20, %12 : vec<f32, 4>
  %22 = add %21, %19 : vec<f32, 4>
  store @out, %22
  return
}
"#;

#[test]
fn arrays_of_buffers_are_descriptor_arrays_of_blocks() {
    for env in ALL_VULKAN {
        let words = emit_ok(BUFFER_ARRAYS, env);
        validate(&words, env);
        let m = load(&words);
        for (name, runtime) in [
            ("cbs", true),
            ("fixed", false),
            ("bufs", false),
            ("sbufs", true),
        ] {
            let arr = pointee_of_var(&m, var_named(&m, name));
            let a = def(&m, arr);
            let want = if runtime {
                Op::TypeRuntimeArray
            } else {
                Op::TypeArray
            };
            assert_eq!(a.class.opcode, want, "@{name}");
            assert!(
                !is_block(&m, arr),
                "@{name}: the array itself is not a Block"
            );
            let elem = match a.operands[0] {
                Operand::IdRef(e) => e,
                _ => panic!("array element"),
            };
            assert_eq!(def(&m, elem).class.opcode, Op::TypeStruct, "@{name}");
            assert!(is_block(&m, elem), "@{name}: each element is a Block");
            assert!(
                !m.annotations
                    .iter()
                    .any(|i| i.operands[0] == Operand::IdRef(arr)
                        && i.operands[1] == Operand::Decoration(Decoration::ArrayStride)),
                "@{name}: a descriptor array has no stride"
            );
        }
        assert!(caps(&m).contains(&Capability::RuntimeDescriptorArray));
    }
}

#[test]
fn oversized_constants_and_constructs_are_diagnostics() {
    let n = 70_000;
    let elems = vec!["f32 1.0"; n].join(", ");
    let text = format!(
        "global @b : ptr<private, array<f32, {n}>> = array<f32, {n}> {{{elems}}}
global @o : ptr<output, f32> [location(0)]
func @main() -> void [entry_point(fragment, \"main\")] {{
bb0:
  %0 = element_addr @b, u32 5 : ptr<private, f32>
  %1 = load %0 : f32
  store @o, %1
  return
}}
"
    );
    let d = emit(&text, TargetEnv::Vulkan1_2).expect_err("70000 constituents do not fit");
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code, "OSB0010");
    assert!(
        d[0].message.contains("array<f32, 70000>"),
        "{}",
        d[0].message
    );

    let args = vec!["%0"; n].join(", ");
    let text = format!(
        "global @o : ptr<output, f32> [location(0)]
global @i : ptr<input, f32> [location(0)]
func @main() -> void [entry_point(fragment, \"main\")] {{
bb0:
  %0 = load @i : f32
  %1 = construct {args} : array<f32, {n}>
  %2 = extract %1, 7 : f32
  store @o, %2
  return
}}
"
    );
    let d = emit(&text, TargetEnv::Vulkan1_2).expect_err("70000 operands do not fit");
    assert_eq!(d[0].code, "OSB0010");
    assert!(d[0].message.contains("`construct`"), "{}", d[0].message);

    // An array of arrays with as many floats is fine: each level is its own instruction.
    let row = format!("array<f32, 700> {{{}}}", vec!["f32 1.0"; 700].join(", "));
    let rows = vec![row.as_str(); 100].join(", ");
    let text = format!(
        "global @b : ptr<private, array<array<f32, 700>, 100>> = array<array<f32, 700>, 100> {{{rows}}}
global @o : ptr<output, f32> [location(0)]
func @main() -> void [entry_point(fragment, \"main\")] {{
bb0:
  %0 = element_addr @b, u32 5 : ptr<private, array<f32, 700>>
  %1 = element_addr %0, u32 9 : ptr<private, f32>
  %2 = load %1 : f32
  store @o, %2
  return
}}
"
    );
    let words = emit_ok(&text, TargetEnv::Vulkan1_2);
    validate(&words, TargetEnv::Vulkan1_2);
}

const TEXTURE_EXTRAS: &str = r#"struct @Sparse4 {
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
global @t : ptr<uniform_constant, texture<2d, vec<f32, 4>>> [binding(0, 0)]
global @t2 : ptr<uniform_constant, texture<2d, vec<f32, 2>>> [binding(0, 1)]
global @d : ptr<uniform_constant, texture<2d, f32, depth>> [binding(0, 2)]
global @s : ptr<uniform_constant, sampler> [binding(0, 3)]
global @sc : ptr<uniform_constant, sampler_cmp> [binding(0, 4)]
global @uv : ptr<input, vec<f32, 2>> [location(0)]
global @c : ptr<input, vec<f32, 4>> [location(1)]
global @o : ptr<input, vec<i32, 2>> [location(2), flat]
global @out : ptr<output, vec<f32, 4>> [location(0)]

func @main() -> void [entry_point(fragment, "main")] {
bb0:
  %0 = load @uv : vec<f32, 2>
  %1 = sample @t, @s, %0, vec<i32, 2> {i32 1, i32 2}, f32 0.5 : vec<f32, 4>
  %2 = sample @t, @s, %0, vec<i32, 2> zero, f32 1.5 : @Sparse4
  %3 = extract %2, 1 : vec<f32, 4>
  %4 = extract %2, 0 : u32
  %5 = call_intrinsic check_access_fully_mapped(%4) : bool
  %6 = sample_grad @t2, @s, %0, %0, %0, vec<i32, 2> zero, f32 2.0 : @Sparse2
  %7 = extract %6, 1 : vec<f32, 2>
  %8 = sample_cmp_level @d, @sc, %0, f32 0.5, f32 1.0 : f32
  %9 = sample_cmp_bias @d, @sc, %0, f32 0.5, f32 1.0, vec<i32, 2> {i32 1, i32 1}, f32 0.25 : f32
  %10 = sample_cmp_grad @d, @sc, %0, f32 0.5, %0, %0 : @SparseF
  %11 = extract %10, 1 : f32
  %12 = gather @t, @s, %0, 1, array<vec<i32, 2>, 4> {vec<i32, 2> {i32 1, i32 2}, vec<i32, 2> {i32 3, i32 4}, vec<i32, 2> {i32 5, i32 6}, vec<i32, 2> {i32 7, i32 8}} : vec<f32, 4>
  %13 = load @o : vec<i32, 2>
  %14 = construct %13, %13, %13, vec<i32, 2> {i32 7, i32 8} : array<vec<i32, 2>, 4>
  %15 = gather_cmp @d, @sc, %0, f32 0.5, %14 : @Sparse4
  %16 = extract %15, 1 : vec<f32, 4>
  %17 = texture_load @t, vec<i32, 2> {i32 0, i32 0}, i32 0 : @Sparse4
  %18 = extract %17, 1 : vec<f32, 4>
  %19 = add %1, %3 : vec<f32, 4>
  %20 = add %19, %12 : vec<f32, 4>
  %21 = add %20, %16 : vec<f32, 4>
  %22 = add %21, %18 : vec<f32, 4>
  %23 = add %8, %9 : f32
  %24 = add %23, %11 : f32
  %25 = extract %7, 0 : f32
  %26 = add %24, %25 : f32
  %27 = select %5, %26, f32 0.0 : f32
  %28 = construct %27, %27, %27, %27 : vec<f32, 4>
  %29 = add %22, %28 : vec<f32, 4>
  store @out, %29
  return
}
"#;

fn ops_of(m: &DrModule) -> Vec<Op> {
    m.functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .map(|i| i.class.opcode)
        .collect()
}

#[test]
fn min_lod_sparse_residency_four_offsets_and_compare_variants() {
    for env in ALL_VULKAN {
        let words = emit_ok(TEXTURE_EXTRAS, env);
        validate(&words, env);
        let m = load(&words);
        let c = caps(&m);
        for want in [
            Capability::MinLod,
            Capability::SparseResidency,
            Capability::ImageGatherExtended,
        ] {
            assert!(c.contains(&want), "{want:?} in {c:?}");
        }
        let ops = ops_of(&m);
        for want in [
            Op::ImageSparseSampleImplicitLod,
            Op::ImageSparseSampleExplicitLod,
            Op::ImageSparseSampleDrefExplicitLod,
            Op::ImageSparseTexelsResident,
            Op::ImageSparseFetch,
            Op::ImageSparseDrefGather,
            Op::ImageSampleDrefImplicitLod,
            Op::ImageGather,
        ] {
            assert!(ops.contains(&want), "{want:?} missing");
        }
        // The non-constant four offsets become four gathers (one per texel).
        assert_eq!(
            ops.iter()
                .filter(|&&o| o == Op::ImageSparseDrefGather)
                .count(),
            4
        );
        let text = spirv::disassemble(&words).expect("disassembles");
        assert!(text.contains("ConstOffsets"), "constant four offsets");
        assert!(text.contains("MinLod"), "a LOD clamp");
    }
}

const INTERPOLATION: &str = r#"global @a : ptr<input, vec<f32, 4>> [location(0)]
global @b : ptr<input, vec<f32, 2>> [location(1)]
global @out : ptr<output, vec<f32, 4>> [location(0)]

func @main() -> void [entry_point(fragment, "main")] {
bb0:
  %0 = var : ptr<function, vec<f32, 4>>
  %1 = load @a : vec<f32, 4>
  store %0, %1
  %2 = call_intrinsic interpolate_at_centroid(%0) : vec<f32, 4>
  %3 = var : ptr<function, f32>
  %4 = load @b : vec<f32, 2>
  %5 = extract %4, 1 : f32
  store %3, %5
  %6 = call_intrinsic interpolate_at_sample(%3, u32 2) : f32
  %7 = call_intrinsic interpolate_at_offset(@a, vec<f32, 2> {f32 0.25, f32 -0.125}) : vec<f32, 4>
  %8 = construct %6, %6, %6, %6 : vec<f32, 4>
  %9 = add %2, %8 : vec<f32, 4>
  %10 = add %9, %7 : vec<f32, 4>
  store @out, %10
  return
}
"#;

#[test]
fn interpolation_reads_the_stage_input_behind_a_copy() {
    for env in ALL_VULKAN {
        let words = emit_ok(INTERPOLATION, env);
        validate(&words, env);
        let m = load(&words);
        assert!(caps(&m).contains(&Capability::InterpolationFunction));
        let text = spirv::disassemble(&words).expect("disassembles");
        for want in [
            "InterpolateAtCentroid",
            "InterpolateAtSample",
            "InterpolateAtOffset",
        ] {
            assert!(text.contains(want), "{want}");
        }
    }
    // An operand that does not lead back to an input is a diagnostic, not invalid SPIR-V.
    let bad = INTERPOLATION.replace(
        "%1 = load @a : vec<f32, 4>",
        "%1 = add vec<f32, 4> zero, vec<f32, 4> zero : vec<f32, 4>",
    );
    let d = emit(&bad, TargetEnv::Vulkan1_2).expect_err("no input behind the variable");
    assert_eq!(d[0].code, "OSB0012");
}

/// A vertex shader has no implicit derivatives: implicit-LOD sampling reached from a vertex
/// entry point is refused (as dxc does) rather than emitted as SPIR-V that fails validation;
/// explicit-level sampling is fine.
#[test]
fn implicit_derivatives_in_a_vertex_shader_are_a_diagnostic() {
    let vertex = |body: &str| {
        format!(
            "global @t : ptr<uniform_constant, texture<2d, vec<f32, 4>>> [binding(0, 0)]
global @s : ptr<uniform_constant, sampler> [binding(0, 1)]
global @pos : ptr<output, vec<f32, 4>> [builtin(position)]

func @helper(%0: vec<f32, 2>) -> vec<f32, 4> {{
bb0:
{body}
}}

func @main() -> void [entry_point(vertex, \"main\")] {{
bb0:
  %0 = construct f32 0.25, f32 0.5 : vec<f32, 2>
  %1 = call @helper(%0) : vec<f32, 4>
  store @pos, %1
  return
}}
"
        )
    };
    let d = emit(&vertex(SAMPLE), TargetEnv::Vulkan1_2).expect_err("no derivatives in vertex");
    assert_eq!(d[0].code, "OSB0011");
    assert!(
        d[0].message.contains("vertex entry point `main`"),
        "{}",
        d[0].message
    );
    let words = emit_ok(
        &vertex("  %1 = sample_level @t, @s, %0, f32 0.0 : vec<f32, 4>\n  return %1"),
        TargetEnv::Vulkan1_2,
    );
    validate(&words, TargetEnv::Vulkan1_2);
}

/// A texel offset computed at run time: Vulkan takes one only on gathers
/// (VUID-StandaloneSpirv-Offset-04663), so `sample_level` with one is refused for Vulkan and
/// emitted (`Offset`, `ImageGatherExtended`) for a universal target; a gather with one is
/// emitted for Vulkan.
#[test]
fn run_time_texel_offsets_only_on_vulkan_gathers() {
    let fragment = |body: &str| {
        format!(
            "global @t : ptr<uniform_constant, texture<2d, vec<f32, 4>>> [binding(0, 0)]
global @s : ptr<uniform_constant, sampler> [binding(0, 1)]
global @off : ptr<input, vec<i32, 2>> [location(0), flat]
global @out : ptr<output, vec<f32, 4>> [location(0)]

func @main() -> void [entry_point(fragment, \"main\")] {{
bb0:
  %0 = construct f32 0.25, f32 0.5 : vec<f32, 2>
  %o = load @off : vec<i32, 2>
{body}
  store @out, %1
  return
}}
"
        )
    };
    let sample = fragment("  %1 = sample_level @t, @s, %0, f32 0.0, %o : vec<f32, 4>");
    let d = emit(&sample, TargetEnv::Vulkan1_2).expect_err("a run-time offset on a sample");
    assert_eq!(d[0].code, "OSB0013");
    assert!(d[0].message.contains("sample_level"), "{}", d[0].message);
    let universal = TargetEnv::Universal(5);
    let words = emit_ok(&sample, universal);
    validate(&words, universal);
    assert!(caps(&load(&words)).contains(&Capability::ImageGatherExtended));
    let gather = fragment("  %1 = gather @t, @s, %0, 0, %o : vec<f32, 4>");
    let words = emit_ok(&gather, TargetEnv::Vulkan1_2);
    validate(&words, TargetEnv::Vulkan1_2);
}

/// SPIR-V's universal limits allow 16,383 (literal, label) pairs in one `OpSwitch`: that many
/// cases are emitted and validate, one more is a diagnostic instead of invalid SPIR-V.
#[test]
fn switch_case_count_limit() {
    let switch = |cases: usize| {
        let mut t = String::from(
            "global @o : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]\n\
             global @id : ptr<input, vec<u32, 3>> [builtin(global_invocation_id)]\n\n\
             func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {\n\
             bb0:\n  %0 = load @id : vec<u32, 3>\n  %1 = extract %0, 0 : u32\n  %2 = element_addr @o, u32 0 : ptr<storage_buffer, u32>\n  switch %1, merge bb_m, default bb_m, [",
        );
        for k in 0..cases {
            if k > 0 {
                t.push_str(", ");
            }
            t.push_str(&format!("u32 {k}: bb_c"));
        }
        t.push_str("]\nbb_c:\n  store %2, u32 1\n  br bb_m\nbb_m:\n  return\n}\n");
        t
    };
    let words = emit_ok(&switch(16_383), TargetEnv::Vulkan1_2);
    validate(&words, TargetEnv::Vulkan1_2);
    let d = emit(&switch(16_384), TargetEnv::Vulkan1_2).expect_err("one case too many");
    assert_eq!(d[0].code, "OSB0010");
    assert!(d[0].message.contains("16384 cases"), "{}", d[0].message);
}

/// An entry point reaching a cycle of calls: spirv-val rejects the SPIR-V
/// (VUID-StandaloneSpirv-None-04634), and no pass removes recursion, so the backend refuses it
/// and names the recursive function; without the cycle the same module validates.
#[test]
fn recursion_reached_from_an_entry_point_is_a_diagnostic() {
    let module = |recurse: bool| {
        let call = if recurse {
            "%3 = call @countdown(%2) : u32"
        } else {
            "%3 = add %2, u32 1 : u32"
        };
        format!(
            "global @buf : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]
func @countdown(%0: u32) -> u32 {{
bb0:
  %1 = eq %0, u32 0 : bool
  if_else %1, bb1, bb2, merge bb3
bb1:
  br bb3(u32 1)
bb2:
  %2 = sub %0, u32 1 : u32
  {call}
  br bb3(%3)
bb3(%4: u32):
  return %4
}}
func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {{
bb0:
  %0 = call @countdown(u32 3) : u32
  %1 = element_addr @buf, u32 0 : ptr<storage_buffer, u32>
  store %1, %0
  return
}}
"
        )
    };
    let d = emit(&module(true), TargetEnv::Vulkan1_2).expect_err("recursion");
    assert_eq!(d[0].code, "OSG0004");
    assert!(
        d[0].message.contains("`main` reaches @countdown"),
        "{}",
        d[0].message
    );
    validate(
        &emit_ok(&module(false), TargetEnv::Vulkan1_2),
        TargetEnv::Vulkan1_2,
    );
}

/// A module without entry points is a library (`Linkage`), which only a universal
/// environment allows: for Vulkan it is a diagnostic naming the way out, never a module
/// spirv-val rejects.
#[test]
fn libraries_are_refused_for_vulkan_and_emitted_for_universal_environments() {
    let lib = "func @twice(%x: f32) -> f32 [export(\"twice\")] {\nbb0:\n  \
               %0 = add %x, %x : f32\n  return %0\n}\n";
    for env in [
        TargetEnv::Vulkan1_0,
        TargetEnv::Vulkan1_2,
        TargetEnv::Vulkan1_3,
    ] {
        let d = emit(lib, env).expect_err("a library for Vulkan");
        assert_eq!(d[0].code, "OSB0006", "{d:?}");
        assert!(
            d[0].message.contains("`Linkage`") && d[0].message.contains("universal"),
            "{}",
            d[0].message
        );
    }
    let universal = TargetEnv::Universal(5);
    let words = emit_ok(lib, universal);
    validate(&words, universal);
    assert!(caps(&load(&words)).contains(&Capability::Linkage));
}
