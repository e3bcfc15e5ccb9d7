//! Targeted tests per construct: what we emit is validated by spirv-val and read back with
//! rspirv's parser to check its structure (phis, merges, decorations, capabilities).

mod common;

use common::*;
use oneshader_backends::spirv::{LayoutRule, Options, TargetEnv};
use rspirv::dr::{Instruction, Module as DrModule, Operand};
use rspirv::spirv::{Capability, Decoration, Op};

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

/// Member decorations of struct `id`: (member, decoration, first literal).
fn member_decos(m: &DrModule, id: u32) -> Vec<(u32, Decoration, Option<u32>)> {
    m.annotations
        .iter()
        .filter(|i| i.class.opcode == Op::MemberDecorate && i.operands[0] == Operand::IdRef(id))
        .map(|i| {
            let member = match i.operands[1] {
                Operand::LiteralBit32(n) => n,
                _ => u32::MAX,
            };
            let d = match i.operands[2] {
                Operand::Decoration(d) => d,
                _ => Decoration::RelaxedPrecision,
            };
            let lit = match i.operands.get(3) {
                Some(Operand::LiteralBit32(n)) => Some(*n),
                _ => None,
            };
            (member, d, lit)
        })
        .collect()
}

fn decorated(m: &DrModule, id: u32, d: Decoration) -> Option<&Instruction> {
    m.annotations.iter().find(|i| {
        i.class.opcode == Op::Decorate
            && i.operands[0] == Operand::IdRef(id)
            && i.operands[1] == Operand::Decoration(d)
    })
}

fn named(m: &DrModule, name: &str) -> u32 {
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

fn type_of_var(m: &DrModule, var: u32) -> u32 {
    let v = m
        .types_global_values
        .iter()
        .find(|i| i.result_id == Some(var))
        .expect("variable");
    let ptr = v.result_type.expect("typed");
    let p = m
        .types_global_values
        .iter()
        .find(|i| i.result_id == Some(ptr))
        .expect("pointer type");
    match p.operands[1] {
        Operand::IdRef(t) => t,
        _ => panic!("pointer without pointee"),
    }
}

const LOOP_SWITCH: &str = r#"
global @out : ptr<storage_buffer, rtarray<i32>> [binding(0, 0)]
global @gid : ptr<input, vec<u32, 3>> [builtin(global_invocation_id)]

func @main() -> void [entry_point(compute, "main"), numthreads(8, 1, 1)] {
bb0:
  %0 = load @gid : vec<u32, 3>
  %1 = extract %0, 0 : u32
  %2 = bitcast %1 : i32
  loop bb1(i32 0, i32 0), break bb2, continue bb3
bb1.header(%3.i: i32, %4.acc: i32):
  %5 = lt %3, i32 10 : bool
  cond_br %5, bb4, bb2
bb4.body:
  %6 = rem %3, i32 3 : i32
  switch %6, merge bb8, default bb7, [i32 0: bb5, i32 1: bb6]
bb5:
  %7 = add %4, %3 : i32
  br bb8(%7)
bb6:
  %8 = mul %4, i32 2 : i32
  br bb8(%8)
bb7:
  br bb8(%4)
bb8.join(%9.next: i32):
  loop bb9(i32 0), break bb10, continue bb11
bb9.inner(%10.j: i32):
  %11 = lt %10, %2 : bool
  cond_br %11, bb12, bb10
bb12:
  %12 = eq %10, i32 3 : bool
  cond_br %12, bb10, bb11
bb11.inner_continue:
  %13 = add %10, i32 1 : i32
  br bb9(%13)
bb10.inner_exit:
  br bb3
bb3.continue:
  %14 = add %3, i32 1 : i32
  br bb1(%14, %9)
bb2.exit:
  %15 = element_addr @out, %1 : ptr<storage_buffer, i32>
  store %15, %4
  return
}
"#;

#[test]
fn phis_from_block_params_across_loops_and_switches() {
    let m = parse(LOOP_SWITCH);
    for env in [
        TargetEnv::Vulkan1_0,
        TargetEnv::Vulkan1_2,
        TargetEnv::Vulkan1_3,
    ] {
        let words = emit_env(&m, env);
        assert_valid(&words, env);
        let dr = load(&words);
        // Header params (2), the switch join (1), the inner header (1).
        assert_eq!(count_op(&dr, Op::Phi), 4);
        let f = &dr.functions[0];
        for b in &f.blocks {
            let insts = &b.instructions;
            let n = insts.len();
            for (k, inst) in insts.iter().enumerate() {
                match inst.class.opcode {
                    // A merge is the second-to-last instruction, right before its branch.
                    Op::LoopMerge => {
                        assert_eq!(k, n - 2);
                        assert!(matches!(
                            insts[n - 1].class.opcode,
                            Op::Branch | Op::BranchConditional
                        ));
                    }
                    Op::SelectionMerge => {
                        assert_eq!(k, n - 2);
                        assert!(matches!(
                            insts[n - 1].class.opcode,
                            Op::Switch | Op::BranchConditional
                        ));
                    }
                    // Phis come first, with one pair per predecessor.
                    Op::Phi => {
                        assert!(insts[..k].iter().all(|i| i.class.opcode == Op::Phi));
                    }
                    _ => {}
                }
            }
        }
        let join_phi = function_insts(&dr)
            .into_iter()
            .filter(|i| i.class.opcode == Op::Phi)
            .map(|i| i.operands.len() / 2)
            .collect::<Vec<_>>();
        // Outer header: pre-header + back edge; join: three cases; inner header: two edges.
        assert!(join_phi.contains(&3), "{join_phi:?}");
        assert_eq!(count_op(&dr, Op::LoopMerge), 2);
        assert_eq!(count_op(&dr, Op::Switch), 1);
    }
}

#[test]
fn nested_loops_with_continue_name_their_merge_and_continue_blocks() {
    let text = std::fs::read_to_string(root().join("examples/ir/loops.ir")).expect("example");
    let m = parse(&text);
    let words = emit_env(&m, TargetEnv::Universal(5));
    assert_valid(&words, TargetEnv::Universal(5));
    let dr = load(&words);
    let f = &dr.functions[0];
    let label = |b: &rspirv::dr::Block| b.label.as_ref().and_then(|l| l.result_id).unwrap_or(0);
    let merges: Vec<(u32, u32, u32)> = f
        .blocks
        .iter()
        .filter_map(|b| {
            b.instructions
                .iter()
                .find(|i| i.class.opcode == Op::LoopMerge)
                .map(|i| match (&i.operands[0], &i.operands[1]) {
                    (Operand::IdRef(mg), Operand::IdRef(c)) => (label(b), *mg, *c),
                    _ => panic!("loop merge operands"),
                })
        })
        .collect();
    assert_eq!(merges.len(), 2);
    for (header, _, cont) in &merges {
        // The continue block branches back to its header.
        let c = f
            .blocks
            .iter()
            .find(|b| label(b) == *cont)
            .expect("continue");
        let last = c.instructions.last().expect("terminator");
        assert_eq!(last.class.opcode, Op::Branch);
        assert_eq!(last.operands[0], Operand::IdRef(*header));
    }
    // Every block appears after its dominator: the headers come before their continues.
    let pos = |id: u32| f.blocks.iter().position(|b| label(b) == id).expect("block");
    for (h, mg, c) in merges {
        assert!(pos(h) < pos(c) && pos(h) < pos(mg));
    }
}

const RESOURCES: &str = r#"
struct @Inner {
  a: f32
  b: vec<f32, 2>
}
struct @Params {
  scale: f32
  offset: vec<f32, 3>
  weights: array<f32, 3>
  xform: mat<f32, 3, 4> [row_major]
  normal: mat<f32, 3, 3>
  inner: @Inner
  flag: bool
}
global @params : ptr<uniform, @Params> [binding(0, 0)]
global @bytes : ptr<storage_buffer, rtarray<u32>> [binding(1, 0)]
global @items : ptr<storage_buffer, rtarray<@Inner>> [binding(1, 1), readonly]
global @gid : ptr<input, vec<u32, 3>> [builtin(global_invocation_id)]

func @main() -> void [entry_point(compute, "main"), numthreads(1, 1, 1)] {
bb0:
  %0.local = var : ptr<function, @Params>
  %1 = load @params : @Params
  store %0, %1
  %2 = field_addr %0, 6 : ptr<function, bool>
  %3 = load %2 : bool
  %4 = field_addr @params, 6 : ptr<uniform, bool>
  %5 = load %4 : bool
  %6 = and %3, %5 : bool
  %7 = select %6, u32 1, u32 2 : u32
  %8 = element_addr @bytes, u32 0 : ptr<storage_buffer, u32>
  store %8, %7
  %9 = array_length @bytes : u32
  %10 = element_addr @bytes, u32 1 : ptr<storage_buffer, u32>
  store %10, %9
  %11 = element_addr @items, u32 2 : ptr<storage_buffer, @Inner>
  %12 = load %11 : @Inner
  %13 = extract %12, 0 : f32
  %14 = bitcast %13 : u32
  %15 = buffer_load @bytes, u32 8 : vec<u32, 2>
  %16 = extract %15, 1 : u32
  %17 = add %14, %16 : u32
  buffer_store @bytes, u32 16, %17
  return
}
"#;

#[test]
fn resources_and_layouts() {
    let m = parse(RESOURCES);
    for env in [
        TargetEnv::Vulkan1_0,
        TargetEnv::Vulkan1_1,
        TargetEnv::Vulkan1_2,
        TargetEnv::Vulkan1_3,
    ] {
        let words = emit_env(&m, env);
        assert_valid(&words, env);
    }
    let words = emit(&m);
    let dr = load(&words);
    // The constant buffer's struct: relaxed std140 offsets.
    let params = named(&dr, "params");
    let block = type_of_var(&dr, params);
    assert!(decorated(&dr, block, Decoration::Block).is_some());
    let d = member_decos(&dr, block);
    let offsets: Vec<u32> = d
        .iter()
        .filter(|(_, d, _)| *d == Decoration::Offset)
        .map(|(_, _, o)| o.expect("offset"))
        .collect();
    // scale 0, offset 4 (relaxed), weights 16 (stride 16), xform 64 (row-major 3x4: 3 rows of
    // vec4 = 48), normal 112 (col-major 3x3: 3 columns padded to 16 = 48), inner 160, flag 176.
    assert_eq!(offsets, vec![0, 4, 16, 64, 112, 160, 176]);
    assert!(d.contains(&(3, Decoration::MatrixStride, Some(16))));
    // HLSL row_major is SPIR-V ColMajor, HLSL column_major (the default) SPIR-V RowMajor.
    assert!(d.contains(&(3, Decoration::ColMajor, None)));
    assert!(d.contains(&(4, Decoration::RowMajor, None)));
    // The same struct as a function variable is a second, undecorated struct type.
    let structs: Vec<&Instruction> = dr
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypeStruct && i.operands.len() == 7)
        .collect();
    // Params as a value; its storage copy (legalization's `bool_storage` makes the bool a
    // u32) as the Block and as the value a whole-buffer load reads.
    assert_eq!(
        structs.len(),
        3,
        "Params, and its storage form as Block and as a value"
    );
    for s in structs.iter().filter(|s| s.result_id != Some(block)) {
        let id = s.result_id.expect("a struct has an id");
        assert!(member_decos(&dr, id).is_empty(), "values carry no layout");
    }
    // The bool member is a u32 in the buffer, converted on load.
    assert!(count_op(&dr, Op::INotEqual) >= 1);
    // rtarray<u32> is wrapped in a Block struct with one member.
    let bytes = named(&dr, "bytes");
    let wrap = type_of_var(&dr, bytes);
    assert!(decorated(&dr, wrap, Decoration::Block).is_some());
    assert_eq!(
        member_decos(&dr, wrap),
        vec![(0, Decoration::Offset, Some(0))]
    );
    let items = named(&dr, "items");
    assert!(decorated(&dr, items, Decoration::NonWritable).is_some());
    assert!(decorated(&dr, items, Decoration::DescriptorSet).is_some());
    assert_eq!(count_op(&dr, Op::ArrayLength), 1);
    // Strict std140 moves `offset` to 16.
    let opts = Options {
        cbuffer_rule: LayoutRule::Std140,
        ..Options::default()
    };
    let words = common::try_emit(&m, &opts).expect("emits");
    assert_valid(&words, TargetEnv::Vulkan1_2);
    let dr = load(&words);
    let block = type_of_var(&dr, named(&dr, "params"));
    assert!(member_decos(&dr, block).contains(&(1, Decoration::Offset, Some(16))));
}

#[test]
fn bools_in_buffers_are_u32_and_converted() {
    let text = r#"
struct @Flags {
  on: bool
  mask: vec<bool, 2>
}
global @flags : ptr<storage_buffer, @Flags> [binding(0, 0)]
func @main() -> void [entry_point(compute, "main"), numthreads(1, 1, 1)] {
bb0:
  %0 = field_addr @flags, 0 : ptr<storage_buffer, bool>
  %1 = load %0 : bool
  %2 = not %1 : bool
  store %0, %2
  %3 = field_addr @flags, 1 : ptr<storage_buffer, vec<bool, 2>>
  %4 = construct %1, %2 : vec<bool, 2>
  store %3, %4
  return
}
"#;
    let m = parse(text);
    for env in [TargetEnv::Vulkan1_0, TargetEnv::Vulkan1_2] {
        let words = emit_env(&m, env);
        assert_valid(&words, env);
        let dr = load(&words);
        assert_eq!(count_op(&dr, Op::INotEqual), 1, "load converts u32 to bool");
        assert_eq!(count_op(&dr, Op::Select), 2, "stores convert bool to u32");
        assert!(
            !dr.types_global_values
                .iter()
                .any(|i| i.class.opcode == Op::TypeStruct
                    && i.operands.iter().any(|o| {
                        let bool_id = dr
                            .types_global_values
                            .iter()
                            .find(|t| t.class.opcode == Op::TypeBool)
                            .and_then(|t| t.result_id);
                        Some(o) == bool_id.map(Operand::IdRef).as_ref()
                    })),
            "no struct holds a bool"
        );
    }
}

#[test]
fn target_env_sets_version_interfaces_and_extensions() {
    let text = std::fs::read_to_string(root().join("examples/ir/compute.ir")).expect("example");
    let m = parse(&text);
    let entry_ifaces = |words: &[u32]| -> usize {
        let dr = load(words);
        dr.entry_points[0].operands.len() - 3
    };
    let v10 = emit_env(&m, TargetEnv::Vulkan1_0);
    assert_eq!(v10[1], 0x0001_0000);
    // SPIR-V 1.0 lists inputs and outputs only and needs the storage-buffer extension.
    assert_eq!(entry_ifaces(&v10), 1);
    assert!(exts(&load(&v10)).contains(&"SPV_KHR_storage_buffer_storage_class".to_string()));
    let v11 = emit_env(&m, TargetEnv::Vulkan1_1);
    assert_eq!(v11[1], 0x0001_0300);
    assert!(exts(&load(&v11)).is_empty());
    let v14 = emit_env(&m, TargetEnv::Vulkan1_1Spirv1_4);
    assert_eq!(v14[1], 0x0001_0400);
    // From SPIR-V 1.4 every global the entry point uses is listed.
    assert_eq!(entry_ifaces(&v14), 2);
    assert_eq!(emit_env(&m, TargetEnv::Vulkan1_2)[1], 0x0001_0500);
    assert_eq!(emit_env(&m, TargetEnv::Vulkan1_3)[1], 0x0001_0600);
    for env in [TargetEnv::Vulkan1_1Spirv1_4, TargetEnv::Universal(5)] {
        assert_valid(&emit_env(&m, env), env);
    }
}

#[test]
fn capabilities_follow_use() {
    let text = r#"
global @out : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]
global @img : ptr<uniform_constant, texture<2d, vec<f32, 4>, storage, rg16f>> [binding(0, 1)]
func @main() -> void [entry_point(compute, "main"), numthreads(1, 1, 1)] {
bb0:
  %0 = query_size @img : vec<u32, 2>
  %1 = extract %0, 0 : u32
  %2 = convert %1 : i64
  %3 = mul %2, i64 3 : i64
  %4 = convert %3 : u32
  %5 = element_addr @out, u32 0 : ptr<storage_buffer, u32>
  store %5, %4
  return
}
"#;
    let words = emit(&parse(text));
    assert_valid(&words, TargetEnv::Vulkan1_2);
    let c = caps(&load(&words));
    for want in [
        Capability::Shader,
        Capability::Int64,
        Capability::ImageQuery,
        Capability::StorageImageExtendedFormats,
    ] {
        assert!(c.contains(&want), "{want:?} in {c:?}");
    }
    assert!(!c.contains(&Capability::Float64));
    assert!(!c.contains(&Capability::Int16));
    // The plain compute example needs Shader only.
    let text = std::fs::read_to_string(root().join("examples/ir/compute.ir")).expect("example");
    assert_eq!(caps(&load(&emit(&parse(&text)))), vec![Capability::Shader]);
}

const FRAGMENT: &str = r#"
global @tex : ptr<uniform_constant, texture<2d, vec<f32, 4>>> [binding(0, 0)]
global @shadow : ptr<uniform_constant, texture<2d, f32, depth>> [binding(0, 1)]
global @samp : ptr<uniform_constant, sampler> [binding(0, 2)]
global @cmp : ptr<uniform_constant, sampler_cmp> [binding(0, 3)]
global @uv : ptr<input, vec<f32, 2>> [location(0)]
global @id : ptr<input, u32> [location(1)]
global @color : ptr<output, vec<f32, 4>> [location(0)]
global @depth : ptr<output, f32> [builtin(frag_depth)]

func @ps() -> void [entry_point(fragment, "ps")] {
bb0:
  %0 = load @uv : vec<f32, 2>
  %1 = sample @tex, @samp, %0 : vec<f32, 4>
  %2 = sample_level @tex, @samp, %0, f32 1.0, vec<i32, 2> {i32 1, i32 -1} : vec<f32, 4>
  %3 = sample_cmp @shadow, @cmp, %0, f32 0.5 : f32
  %4 = gather @tex, @samp, %0, 1 : vec<f32, 4>
  %5 = texture_load @tex, vec<i32, 2> {i32 0, i32 0}, i32 0 : vec<f32, 3>
  %6 = query_size @tex, u32 0 : vec<u32, 2>
  %7 = call_intrinsic ddx(%0) : vec<f32, 2>
  %8 = add %1, %2 : vec<f32, 4>
  %9 = add %8, %4 : vec<f32, 4>
  %10 = load @id : u32
  %11 = eq %10, u32 0 : bool
  if_else %11, bb1, bb2, merge bb2
bb1:
  discard
bb2:
  store @color, %9
  store @depth, %3
  return
}
"#;

#[test]
fn fragment_textures_discard_and_execution_modes() {
    let m = parse(FRAGMENT);
    for env in [
        TargetEnv::Vulkan1_0,
        TargetEnv::Vulkan1_2,
        TargetEnv::Vulkan1_3,
    ] {
        let words = emit_env(&m, env);
        assert_valid(&words, env);
        let dr = load(&words);
        let modes: Vec<&Operand> = dr.execution_modes.iter().map(|i| &i.operands[1]).collect();
        assert!(modes.contains(&&Operand::ExecutionMode(
            rspirv::spirv::ExecutionMode::OriginUpperLeft
        )));
        assert!(modes.contains(&&Operand::ExecutionMode(
            rspirv::spirv::ExecutionMode::DepthReplacing
        )));
        // discard: OpKill up to SPIR-V 1.5, OpTerminateInvocation in 1.6.
        let (kill, term) = (
            count_op(&dr, Op::Kill),
            count_op(&dr, Op::TerminateInvocation),
        );
        if env == TargetEnv::Vulkan1_3 {
            assert_eq!((kill, term), (0, 1));
        } else {
            assert_eq!((kill, term), (1, 0));
        }
        // The integer input is flat.
        let id = named(&dr, "id");
        assert!(decorated(&dr, id, Decoration::Flat).is_some());
        assert_eq!(count_op(&dr, Op::SampledImage), 4);
        assert_eq!(count_op(&dr, Op::ImageFetch), 1);
        assert_eq!(count_op(&dr, Op::ImageSampleDrefImplicitLod), 1);
    }
}

#[test]
fn intrinsics_map_to_glsl_std_450_and_core() {
    let text = r#"
global @out : ptr<storage_buffer, rtarray<f32>> [binding(0, 0)]
func @main() -> void [entry_point(compute, "main"), numthreads(1, 1, 1)] {
bb0:
  %0 = element_addr @out, u32 0 : ptr<storage_buffer, f32>
  %1 = load %0 : f32
  %2 = construct %1, %1, %1 : vec<f32, 3>
  %3 = call_intrinsic normalize(%2) : vec<f32, 3>
  %4 = call_intrinsic dot(%3, %2) : f32
  %5 = call_intrinsic saturate(%4) : f32
  %6 = call_intrinsic lerp(%1, %4, %5) : f32
  %7 = call_intrinsic sign(%6) : i32
  %8 = convert %7 : f32
  %9 = call_intrinsic log10(%8) : f32
  %10 = call_intrinsic rcp(%9) : f32
  %11 = call_intrinsic isfinite(%10) : bool
  %12 = select %11, %10, f32 0.0 : f32
  %13 = call_intrinsic f32tof16(%12) : u32
  %14 = call_intrinsic f16tof32(%13) : f32
  %15 = call_intrinsic cross(%2, %3) : vec<f32, 3>
  %16 = call_intrinsic length(%15) : f32
  %17 = add %14, %16 : f32
  %18 = call_intrinsic any(%2) : bool
  %19 = select %18, %17, f32 1.0 : f32
  %20 = call_intrinsic round(%19) : f32
  %21 = call_intrinsic fmod(%20, f32 3.0) : f32
  %22 = call_intrinsic ldexp(%21, f32 2.0) : f32
  store %0, %22
  return
}
"#;
    let m = parse(text);
    for env in [TargetEnv::Vulkan1_0, TargetEnv::Vulkan1_2] {
        let words = emit_env(&m, env);
        assert_valid(&words, env);
        let dr = load(&words);
        assert_eq!(dr.ext_inst_imports.len(), 1);
        assert!(count_op(&dr, Op::ExtInst) >= 10);
        assert_eq!(count_op(&dr, Op::Dot), 1);
        assert_eq!(count_op(&dr, Op::FRem), 1);
    }
}

#[test]
fn wave_intrinsics_need_vulkan_1_1() {
    let text = r#"
global @out : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]
func @main() -> void [entry_point(compute, "main"), numthreads(32, 1, 1)] {
bb0:
  %0 = call_intrinsic wave_get_lane_index() : u32
  %1 = call_intrinsic wave_active_sum(%0) : u32
  %2 = call_intrinsic wave_prefix_count_bits(bool true) : u32
  %3 = add %1, %2 : u32
  %4 = element_addr @out, %0 : ptr<storage_buffer, u32>
  store %4, %3
  return
}
"#;
    let m = parse(text);
    for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
        let words = emit_env(&m, env);
        assert_valid(&words, env);
        let c = caps(&load(&words));
        assert!(c.contains(&Capability::GroupNonUniformArithmetic));
        assert!(c.contains(&Capability::GroupNonUniformBallot));
    }
    let err = common::try_emit(&m, &Options::for_env(TargetEnv::Vulkan1_0)).expect_err("no waves");
    assert!(err.iter().any(|d| d.code == "OSB0006"), "{err:?}");
}

#[test]
fn unreachable_merges_and_continues() {
    let text = r#"
func @f(%0.c: bool, %1.x: i32) -> i32 {
bb0:
  if_else %0, bb1, bb2, merge bb3
bb1:
  return %1
bb2:
  loop bb4(%1), break bb5, continue bb6
bb4(%2.k: i32):
  br bb7
bb7:
  return %2
bb6:
  br bb4(%2)
bb5:
  return i32 0
bb3:
  return i32 1
}
"#;
    let m = parse(text);
    let words = emit_env(&m, TargetEnv::Universal(5));
    assert_valid(&words, TargetEnv::Universal(5));
    let dr = load(&words);
    assert_eq!(
        count_op(&dr, Op::Unreachable),
        2,
        "the if's merge and the loop's break"
    );
    // The unreachable continue block still branches back, with an undefined phi value.
    let phi = function_insts(&dr)
        .into_iter()
        .find(|i| i.class.opcode == Op::Phi)
        .expect("the header's phi");
    assert_eq!(phi.operands.len(), 4);
    let undef = match phi.operands[2] {
        Operand::IdRef(id) => id,
        _ => panic!("phi operand"),
    };
    assert!(
        dr.types_global_values
            .iter()
            .any(|i| i.class.opcode == Op::Undef && i.result_id == Some(undef))
    );
}

fn error_codes(text: &str, env: TargetEnv) -> Vec<(String, String)> {
    let m = parse(text);
    common::try_emit(&m, &Options::for_env(env))
        .expect_err("refused")
        .into_iter()
        .map(|d| (d.code.to_string(), d.message))
        .collect()
}

#[test]
fn diagnostics_name_what_spirv_cannot_express() {
    let int_matrix = r#"
func @f(%0.m: mat<i32, 2, 2>) -> vec<i32, 2> {
bb0:
  %1 = extract %0, 0 : vec<i32, 2>
  return %1
}
"#;
    let e = error_codes(int_matrix, TargetEnv::Universal(5));
    assert!(
        e.iter()
            .any(|(c, m)| c == "OSB0001" && m.contains("mat<i32, 2, 2>")),
        "{e:?}"
    );

    let import = r#"
func @ext(i32) -> i32 [import("ext")]
global @out : ptr<storage_buffer, rtarray<i32>> [binding(0, 0)]
func @main() -> void [entry_point(compute, "main"), numthreads(1, 1, 1)] {
bb0:
  %0 = call @ext(i32 1) : i32
  %1 = element_addr @out, u32 0 : ptr<storage_buffer, i32>
  store %1, %0
  return
}
"#;
    let e = error_codes(import, TargetEnv::Vulkan1_2);
    assert!(
        e.iter().any(|(c, m)| c == "OSB0003" && m.contains("@ext")),
        "{e:?}"
    );

    let resource_param = r#"
global @data : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]
func @g(%0.p: ptr<storage_buffer, rtarray<u32>>) -> void {
bb0:
  return
}
func @main() -> void [entry_point(compute, "main"), numthreads(1, 1, 1)] {
bb0:
  call @g(@data)
  return
}
"#;
    // Legalization specializes it away; a module that skipped legalization is stopped at the
    // backends' boundary, with the pass that would have fixed it.
    assert!(common::try_emit(&parse(resource_param), &Options::default()).is_ok());
    let m = parse(resource_param);
    let e = oneshader_backends::Legal::new(&m, oneshader_backends::Target::Spirv)
        .expect_err("not legalized");
    assert!(
        e.iter().any(|d| d.code == "OSG0002"
            && d.message.contains("@g")
            && d.notes.iter().any(|n| n.contains("specialize_resources"))),
        "{e:?}"
    );

    let pow2 = r#"
func @hs() -> void [entry_point(hull, "hs"), tess_domain(quad), tess_partitioning(pow2), output_control_points(4)] {
bb0:
  return
}
"#;
    let e = error_codes(pow2, TargetEnv::Vulkan1_2);
    assert!(
        e.iter().any(|(c, m)| c == "OSB0005" && m.contains("pow2")),
        "{e:?}"
    );

    let wide_load = r#"
global @bytes : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]
func @main() -> void [entry_point(compute, "main"), numthreads(1, 1, 1)] {
bb0:
  %0 = buffer_load @bytes, u32 0 : f64
  return
}
"#;
    let e = error_codes(wide_load, TargetEnv::Vulkan1_2);
    assert!(
        e.iter()
            .any(|(c, m)| c == "OSB0007" && m.contains("buffer_load")),
        "{e:?}"
    );

    // An invalid module gets the verifier's diagnostics, not a panic.
    let m = oneshader_ir::Module::new();
    let mut bad = m.clone();
    let i32t = bad.i32_type();
    let f = bad.add_func("broken", i32t, &[]);
    let _ = f;
    let e = common::try_emit(&bad, &Options::default()).expect_err("no terminator");
    assert!(e.iter().all(|d| d.code.starts_with("OSV")), "{e:?}");
}

#[test]
fn descriptor_arrays_push_constants_and_image_atomics() {
    let text = r#"
struct @Push {
  index: u32
  scale: f32
}
global @push : ptr<push_constant, @Push>
global @textures : ptr<uniform_constant, array<texture<2d, vec<f32, 4>>, 8>> [binding(0, 0)]
global @samp : ptr<uniform_constant, sampler> [binding(0, 1)]
global @counts : ptr<uniform_constant, texture<2d, u32, storage, r32ui>> [binding(0, 2)]
global @uv : ptr<input, vec<f32, 2>> [location(0)]
global @color : ptr<output, vec<f32, 4>> [location(0)]

func @ps() -> void [entry_point(fragment, "ps")] {
bb0:
  %0 = field_addr @push, 0 : ptr<push_constant, u32>
  %1 = load %0 : u32
  %2 = call_intrinsic nonuniform_index(%1) : u32
  %3 = element_addr @textures, %2 : ptr<uniform_constant, texture<2d, vec<f32, 4>>>
  %4 = load @uv : vec<f32, 2>
  %5 = sample %3, @samp, %4 : vec<f32, 4>
  %6 = field_addr @push, 1 : ptr<push_constant, f32>
  %7 = load %6 : f32
  %8 = construct %7, %7, %7, %7 : vec<f32, 4>
  %9 = mul %5, %8 : vec<f32, 4>
  %10 = texel_addr @counts, vec<i32, 2> {i32 0, i32 0}, u32 0 : ptr<image, u32>
  %11 = atomic_rmw add, %10, u32 1 : u32
  store @color, %9
  return
}
"#;
    let m = parse(text);
    for env in [
        TargetEnv::Vulkan1_1,
        TargetEnv::Vulkan1_2,
        TargetEnv::Vulkan1_3,
    ] {
        let words = emit_env(&m, env);
        assert_valid(&words, env);
        let dr = load(&words);
        let c = caps(&dr);
        assert!(c.contains(&Capability::ShaderNonUniform));
        assert!(c.contains(&Capability::SampledImageArrayNonUniformIndexing));
        let nonuniform = dr
            .annotations
            .iter()
            .filter(|i| i.operands.get(1) == Some(&Operand::Decoration(Decoration::NonUniform)))
            .count();
        // The index, the access chain, the loaded image and the sampled image.
        assert!(nonuniform >= 4, "{nonuniform}");
        assert_eq!(count_op(&dr, Op::ImageTexelPointer), 1);
        assert_eq!(count_op(&dr, Op::AtomicIAdd), 1);
        let push = type_of_var(&dr, named(&dr, "push"));
        assert!(decorated(&dr, push, Decoration::Block).is_some());
        assert!(member_decos(&dr, push).contains(&(1, Decoration::Offset, Some(4))));
        if env != TargetEnv::Vulkan1_2 && env != TargetEnv::Vulkan1_3 {
            assert!(exts(&dr).contains(&"SPV_EXT_descriptor_indexing".to_string()));
        }
    }
}

#[test]
fn composite_select_and_control_hints() {
    let text = r#"
struct @Pair {
  a: f32
  b: vec<f32, 2>
}
func @f(%0.c: bool, %1.x: f32, %2.n: i32) -> f32 {
bb0:
  %3 = construct %1, %1 : vec<f32, 2>
  %4 = construct %1, %3 : @Pair
  %5 = construct %3, %3 : mat<f32, 2, 2>
  %6 = select %0, %4, @Pair zero : @Pair
  %7 = select %0, %5, mat<f32, 2, 2> zero : mat<f32, 2, 2>
  %8 = construct %1, %1, %1 : array<f32, 3>
  %9 = select %0, %8, array<f32, 3> zero : array<f32, 3>
  %10 = extract %6, 0 : f32
  %11 = extract %7, 1, 1 : f32
  %12 = extract %9, 2 : f32
  %13 = add %10, %11 : f32
  %14 = add %13, %12 : f32
  loop bb1(i32 0), break bb3, continue bb2 [unroll(4)]
bb1(%15: i32):
  %16 = lt %15, %2 : bool
  cond_br %16, bb4, bb3
bb4:
  if_else %0, bb5, bb6, merge bb2 [flatten]
bb5:
  br bb2
bb6:
  br bb2
bb2:
  %17 = add %15, i32 1 : i32
  br bb1(%17)
bb3:
  return %14
}
"#;
    let m = parse(text);
    for (env, partial) in [
        (TargetEnv::Universal(0), false),
        (TargetEnv::Universal(5), true),
    ] {
        let words = emit_env(&m, env);
        assert_valid(&words, env);
        let dr = load(&words);
        let lm = function_insts(&dr)
            .into_iter()
            .find(|i| i.class.opcode == Op::LoopMerge)
            .expect("a loop merge");
        let want = if partial {
            rspirv::spirv::LoopControl::UNROLL | rspirv::spirv::LoopControl::PARTIAL_COUNT
        } else {
            rspirv::spirv::LoopControl::UNROLL
        };
        assert_eq!(lm.operands[2], Operand::LoopControl(want));
        let sm = function_insts(&dr)
            .into_iter()
            .find(|i| i.class.opcode == Op::SelectionMerge)
            .expect("a selection merge");
        assert_eq!(
            sm.operands[1],
            Operand::SelectionControl(rspirv::spirv::SelectionControl::FLATTEN)
        );
        if !partial {
            // Before SPIR-V 1.4, composite selects go member by member.
            assert!(count_op(&dr, Op::Select) >= 6);
        }
    }
}

/// An address used only as the base of other addresses is folded into their `OpAccessChain`:
/// one chain with every index (the global's leading `Block` member 0 included), and no
/// pointer type for the levels between. An address that is also loaded through stays its own
/// chain, and the chain built on it starts from it.
#[test]
fn access_chains_fold_addresses_used_only_as_bases() {
    let m = parse(
        r#"
struct @Inner {
  a: f32
  v: vec<f32, 4> [offset(16)]
}
struct @Outer {
  x: f32
  inner: array<@Inner, 2> [offset(16)]
}
global @buf : ptr<storage_buffer, @Outer> [binding(0, 0)]
global @out : ptr<storage_buffer, rtarray<f32>> [binding(0, 1)]

func @main() -> void [entry_point(compute, "main"), numthreads(1, 1, 1)] {
bb0:
  %0 = field_addr @buf, 1 : ptr<storage_buffer, array<@Inner, 2>>
  %1 = element_addr %0, u32 1 : ptr<storage_buffer, @Inner>
  %2 = field_addr %1, 1 : ptr<storage_buffer, vec<f32, 4>>
  %3 = element_addr %2, u32 2 : ptr<storage_buffer, f32>
  %4 = load %3 : f32
  %5 = field_addr @buf, 0 : ptr<storage_buffer, f32>
  %6 = load %5 : f32
  %7 = add %4, %6 : f32
  %8 = element_addr @out, u32 0 : ptr<storage_buffer, f32>
  store %8, %7
  return
}"#,
    );
    let words = emit(&m);
    assert_valid(&words, TargetEnv::Vulkan1_2);
    let module = load(&words);
    let chains: Vec<usize> = function_insts(&module)
        .iter()
        .filter(|i| i.class.opcode == Op::AccessChain)
        .map(|i| i.operands.len())
        .collect();
    // base + 4 indices; base + 1 index; the wrapped runtime array: base + 0 + index.
    assert_eq!(
        chains,
        vec![5, 2, 3],
        "{}",
        oneshader_test_tools::spirv_dis(&words)
    );
    let pointer_types = module
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypePointer)
        .count();
    // The two variables' pointers, f32 in a storage buffer; none for the levels between.
    assert_eq!(
        pointer_types,
        3,
        "{}",
        oneshader_test_tools::spirv_dis(&words)
    );
}
