//! Buffer layouts: for each layout rule, the block the GLSL backend declares, compiled by
//! glslang, must carry exactly the SPIR-V backend's layout: every member offset, array stride,
//! matrix stride and majorness, read back from both modules by walking each buffer's type from
//! its (set, binding). Where no GLSL packing reproduces the rule, the backend refuses (OSB0105)
//! naming the buffer and the member. Bools in buffers are `u32`s for both (legalization).

mod common;

use common::*;
use oneshader_backends::glsl;
use oneshader_backends::spirv::{self, LayoutRule, TargetEnv};
use oneshader_test_tools::{GlslStage, glslang_and_validate_with, spirv_val_args};
use rspirv::dr::{Module as Dr, Operand};
use rspirv::spirv::{Decoration, Op};

/// A decoration and its literals.
type Deco = (Decoration, Vec<u32>);
/// A member decoration: (member, decoration, literals).
type MemberDeco = (u32, Decoration, Vec<u32>);

/// The decorations of id `id`, and of its members.
fn decos(dr: &Dr, id: u32) -> (Vec<Deco>, Vec<MemberDeco>) {
    let mut own = Vec::new();
    let mut members = Vec::new();
    let lits = |ops: &[Operand]| -> Vec<u32> {
        ops.iter()
            .filter_map(|o| match o {
                Operand::LiteralBit32(v) => Some(*v),
                _ => None,
            })
            .collect()
    };
    for a in &dr.annotations {
        match a.class.opcode {
            Op::Decorate if a.operands[0] == Operand::IdRef(id) => {
                if let Operand::Decoration(d) = a.operands[1] {
                    own.push((d, lits(&a.operands[2..])));
                }
            }
            Op::MemberDecorate if a.operands[0] == Operand::IdRef(id) => {
                if let (Operand::LiteralBit32(k), Operand::Decoration(d)) =
                    (&a.operands[1], &a.operands[2])
                {
                    members.push((*k, *d, lits(&a.operands[3..])));
                }
            }
            _ => {}
        }
    }
    (own, members)
}

fn def(dr: &Dr, id: u32) -> &rspirv::dr::Instruction {
    dr.types_global_values
        .iter()
        .find(|i| i.result_id == Some(id))
        .expect("a defined type")
}

fn id(o: &Operand) -> u32 {
    match o {
        Operand::IdRef(v) => *v,
        other => panic!("not an id: {other:?}"),
    }
}

/// The layout facts of a type: one line per member offset, stride and majorness, by path.
fn facts(dr: &Dr, ty: u32, path: &str, out: &mut Vec<String>) {
    let t = def(dr, ty);
    match t.class.opcode {
        Op::TypeStruct => {
            let (_, members) = decos(dr, ty);
            for (k, m) in t.operands.iter().enumerate() {
                let mut ds: Vec<String> = members
                    .iter()
                    .filter(|(i, d, _)| {
                        *i == k as u32
                            && matches!(
                                d,
                                Decoration::Offset
                                    | Decoration::MatrixStride
                                    | Decoration::RowMajor
                                    | Decoration::ColMajor
                            )
                    })
                    .map(|(_, d, l)| format!("{d:?}{l:?}"))
                    .collect();
                ds.sort();
                out.push(format!("{path}.{k}: {}", ds.join(" ")));
                facts(dr, id(m), &format!("{path}.{k}"), out);
            }
        }
        Op::TypeArray | Op::TypeRuntimeArray => {
            let (own, _) = decos(dr, ty);
            let stride: Vec<String> = own
                .iter()
                .filter(|(d, _)| *d == Decoration::ArrayStride)
                .map(|(_, l)| format!("{l:?}"))
                .collect();
            out.push(format!("{path}[]: stride {}", stride.join(" ")));
            facts(dr, id(&t.operands[0]), &format!("{path}[]"), out);
        }
        _ => {}
    }
}

/// The layout facts of the buffer at (set, binding), or of the push-constant block.
fn buffer_facts(words: &[u32], set_binding: Option<(u32, u32)>) -> Vec<String> {
    let dr = load(words);
    let var = dr
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Variable)
        .find(|v| {
            let vid = v.result_id.expect("a variable id");
            match set_binding {
                Some((s, b)) => {
                    let (own, _) = decos(&dr, vid);
                    own.contains(&(Decoration::DescriptorSet, vec![s]))
                        && own.contains(&(Decoration::Binding, vec![b]))
                }
                None => {
                    v.operands[0]
                        == Operand::StorageClass(rspirv::spirv::StorageClass::PushConstant)
                }
            }
        })
        .unwrap_or_else(|| panic!("no buffer at {set_binding:?}"));
    let ptr = def(&dr, var.result_type.expect("typed"));
    let mut out = Vec::new();
    facts(&dr, id(&ptr.operands[1]), "", &mut out);
    out
}

/// A compute module using a uniform buffer (0, 0), a storage buffer (0, 1) and a push-constant
/// block, all of struct type `@T` (declared in `structs`), reading every field.
fn module(structs: &str, fields: usize) -> String {
    let mut s = format!(
        "{structs}\nglobal @cb : ptr<uniform, @T> [binding(0, 0)]\n\
         global @sb : ptr<storage_buffer, @T> [binding(0, 1)]\n\
         global @pc : ptr<push_constant, @T>\n\
         func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {{\nbb0:\n"
    );
    for g in ["cb", "sb", "pc"] {
        for k in 0..fields {
            s.push_str(&format!(
                "  %{g}{k} = field_addr @{g}, {k} : ptr<{}, %T{k}>\n",
                match g {
                    "cb" => "uniform",
                    "sb" => "storage_buffer",
                    _ => "push_constant",
                }
            ));
        }
    }
    s.push_str("  return\n}\n");
    s
}

/// Replaces `%T{k}` by the type of field k (the test structs list them).
fn typed(text: &str, types: &[&str]) -> String {
    let mut t = text.to_string();
    for (k, ty) in types.iter().enumerate().rev() {
        t = t.replace(&format!("%T{k}>"), &format!("{ty}>"));
    }
    t
}

fn check_rule(rule: LayoutRule, structs: &str, types: &[&str]) -> Result<(), String> {
    let text = typed(&module(structs, types.len()), types);
    let m = parse(&text);
    let sopts = spirv::Options {
        cbuffer_rule: rule,
        storage_rule: rule,
        push_constant_rule: rule,
        ..spirv::Options::for_env(TargetEnv::Vulkan1_2)
    };
    let words = try_emit(&m, &sopts).unwrap_or_else(|d| panic!("SPIR-V: {d:#?}"));
    // Every rule here serves all three buffers, so uniform buffers use std430 or scalar too.
    let val: &[&str] = match rule {
        LayoutRule::Std140 | LayoutRule::RelaxedStd140 => &[],
        LayoutRule::Std430 | LayoutRule::RelaxedStd430 => &["--uniform-buffer-standard-layout"],
        LayoutRule::Scalar | LayoutRule::GlslScalar | LayoutRule::DxCbuffer => {
            &["--scalar-block-layout"]
        }
    };
    let mut args = vec!["--target-env", "vulkan1.2"];
    args.extend_from_slice(val);
    spirv_val_args(&words, &args).unwrap_or_else(|e| panic!("the SPIR-V backend's output: {e}"));
    let gopts = glsl::Options {
        cbuffer_rule: rule,
        storage_rule: rule,
        push_constant_rule: rule,
        ..glsl::Options::default()
    };
    let text = emit_glsl(&m, &gopts).map_err(|d| format!("{d:#?}"))?;
    let from_glsl = glslang_and_validate_with(&text, GlslStage::Compute, val)?;
    for sb in [Some((0, 0)), Some((0, 1)), None] {
        let a = buffer_facts(&words, sb);
        let b = buffer_facts(&from_glsl, sb);
        assert_eq!(
            a,
            b,
            "{} buffer {sb:?}: SPIR-V backend (left) vs glslang (right)\n{text}",
            rule.name()
        );
        assert!(a.len() >= types.len(), "the facts cover the members: {a:?}");
    }
    Ok(())
}

const MIXED: &str = "struct @Inner {\n  x: f32\n  y: vec<f32, 2>\n}\n\
struct @T {\n  a: f32\n  b: vec<f32, 3>\n  c: vec<f32, 2>\n  d: array<vec<f32, 4>, 3>\n  m: mat<f32, 3, 4> [row_major]\n  n: mat<f32, 2, 3>\n  s: @Inner\n  e: array<mat<f32, 2, 2>, 2>\n  f: vec<i32, 4>\n}\n";
const MIXED_TYPES: &[&str] = &[
    "f32",
    "vec<f32, 3>",
    "vec<f32, 2>",
    "array<vec<f32, 4>, 3>",
    "mat<f32, 3, 4>",
    "mat<f32, 2, 3>",
    "@Inner",
    "array<mat<f32, 2, 2>, 2>",
    "vec<i32, 4>",
];

#[test]
fn std140_std430_and_scalar_match_bit_for_bit() {
    for rule in [LayoutRule::Std140, LayoutRule::Std430, LayoutRule::Scalar] {
        check_rule(rule, MIXED, MIXED_TYPES).unwrap_or_else(|e| panic!("{}: {e}", rule.name()));
    }
}

/// DXC's relaxed rules put a vector at its component alignment when it does not straddle 16
/// bytes: with explicit offsets std140/std430 hold them when every offset stays aligned for
/// the packing, and scalar when no stride needs std's rounding.
#[test]
fn relaxed_rules_match_where_glsl_can_state_them() {
    // Offsets std140/std430 accept (vec4-aligned tails), arrays with std strides.
    let aligned = "struct @T {\n  a: vec<f32, 2>\n  b: f32\n  c: f32\n  d: array<f32, 4>\n  e: vec<f32, 4>\n}\n";
    let aligned_types = &["vec<f32, 2>", "f32", "f32", "array<f32, 4>", "vec<f32, 4>"];
    for rule in [LayoutRule::RelaxedStd140, LayoutRule::RelaxedStd430] {
        check_rule(rule, aligned, aligned_types).unwrap_or_else(|e| panic!("{}: {e}", rule.name()));
    }
    // `float a; float3 b;` (b at 4) and no arrays: scalar packing states it.
    let packed = "struct @T {\n  a: f32\n  b: vec<f32, 3>\n  c: vec<f32, 2>\n  d: f32\n}\n";
    let packed_types = &["f32", "vec<f32, 3>", "vec<f32, 2>", "f32"];
    for rule in [LayoutRule::RelaxedStd140, LayoutRule::RelaxedStd430] {
        check_rule(rule, packed, packed_types).unwrap_or_else(|e| panic!("{}: {e}", rule.name()));
    }
    // D3D cbuffer packing: arrays of 16-byte elements with the next member in the padding.
    let dx = "struct @T {\n  a: array<f32, 2>\n  b: f32\n  c: vec<f32, 4>\n}\n";
    check_rule(
        LayoutRule::DxCbuffer,
        dx,
        &["array<f32, 2>", "f32", "vec<f32, 4>"],
    )
    .unwrap_or_else(|e| panic!("dx: {e}"));
}

/// A relaxed vector offset (`y` at 4) inside a struct in an array whose std140 stride
/// scalar packing cannot give (a nested vector is not split into components): refused,
/// naming the buffer and every packing's reason.
#[test]
fn a_layout_glsl_cannot_state_is_refused() {
    let structs =
        "struct @I {\n  x: f32\n  y: vec<f32, 2>\n}\nstruct @T {\n  a: f32\n  s: array<@I, 2>\n}\n";
    let err = check_rule(LayoutRule::RelaxedStd140, structs, &["f32", "array<@I, 2>"])
        .expect_err("no GLSL packing has both");
    assert!(err.contains("OSB0105"), "{err}");
    assert!(err.contains("buffer `cb`"), "{err}");
    assert!(err.contains("member `s`"), "{err}");
    assert!(err.contains("GLSL std140"), "{err}");
    assert!(err.contains("GLSL scalar"), "{err}");
    // An array of structs mixing majorness cannot be stated either (a struct member alone is
    // flattened into members with their own qualifiers).
    let mixed = "struct @M {\n  p: mat<f32, 2, 2> [row_major]\n  q: mat<f32, 2, 2>\n}\nstruct @T {\n  s: array<@M, 2>\n}\n";
    let err =
        check_rule(LayoutRule::Std430, mixed, &["array<@M, 2>"]).expect_err("mixed majorness");
    assert!(err.contains("both row-major and column-major"), "{err}");
}

/// DXC's scalar layout rounds a struct's size up to its alignment (`{ uint64_t a; int b; }`
/// takes 16 bytes), glslang's `scalar` packing does not (12): a member after such a struct
/// gets its explicit offset as a block member, but inside an array of structs no offset can be
/// stated, so that is refused rather than laid out differently from the SPIR-V backend.
#[test]
fn scalar_struct_sizes_follow_dxc_or_are_refused() {
    let foo = "struct @Foo {\n  a: u64\n  b: i32\n}\n";
    let direct = format!("{foo}struct @T {{\n  f: @Foo\n  c: i32\n}}\n");
    check_rule(LayoutRule::Scalar, &direct, &["@Foo", "i32"])
        .unwrap_or_else(|e| panic!("a struct member then a scalar: {e}"));
    let nested = format!(
        "{foo}struct @Bar {{\n  foo: @Foo\n  c: i32\n}}\nstruct @T {{\n  list: array<@Bar, 2>\n}}\n"
    );
    let err = check_rule(LayoutRule::Scalar, &nested, &["array<@Bar, 2>"])
        .expect_err("glslang would put `c` at 12 where DXC's scalar rule puts it at 16");
    assert!(err.contains("OSB0105"), "{err}");
    assert!(err.contains("member `list`"), "{err}");
}

/// Bools in buffers are stored as `u32` by legalization (`bool_storage`) for every target,
/// so both backends lay the same words out.
#[test]
fn bools_in_buffers_share_the_u32_layout() {
    let structs = "struct @T {\n  a: bool\n  b: vec<bool, 2>\n  c: f32\n  d: array<bool, 3>\n}\n";
    let types = &["bool", "vec<bool, 2>", "f32", "array<bool, 3>"];
    for rule in [LayoutRule::Std140, LayoutRule::Std430] {
        check_rule(rule, structs, types).unwrap_or_else(|e| panic!("{}: {e}", rule.name()));
    }
}
