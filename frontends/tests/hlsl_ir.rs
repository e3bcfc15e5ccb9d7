//! Per-construct checks of the lowered (unoptimized) IR: bindings, constant-buffer layout
//! decorations, stage IO numbering and decorations, `init_globals`, specialization and push
//! constants, counters, non-uniform indexing, `precise`, loop and branch hints.

mod sema_common;

use oneshader_frontends::hlsl::BindingShift;
use sema_common::{compile_with, ir_text, opts};

fn line_of<'a>(ir: &'a str, needle: &str) -> &'a str {
    ir.lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with `{needle}` in\n{ir}"))
}

#[test]
fn bindings_follow_dxc_defaults() {
    let ir = ir_text(
        r#"
Texture2D a : register(t3);
SamplerState s : register(s3, space1);
Texture2D b;
[[vk::binding(7, 2)]] Texture2D c : register(t0);
Texture2D d;
cbuffer CB : register(b1) { float4 x; };
float loose;
RWStructuredBuffer<uint> counted;
AppendStructuredBuffer<uint> app : register(u9);
float4 main() : SV_Target {
    counted.IncrementCounter();
    app.Append(1);
    return a.Sample(s, 0.5) + b.Sample(s, 0.5) + c.Sample(s, 0.5) + d.Sample(s, 0.5) + x + loose;
}"#,
        "ps_6_0",
    );
    assert!(
        line_of(&ir, "global @a ")
            .contains("[binding(0, 3), hlsl_register(1, 3, 0, 0), user_type(\"texture2d\")]"),
        "{ir}"
    );
    assert!(
        line_of(&ir, "global @s ").contains("[binding(1, 3), hlsl_register(2, 3, 1, 0)]"),
        "{ir}"
    );
    // Implicit bindings fill the free numbers of set 0 in declaration order.
    assert!(
        line_of(&ir, "global @b ").contains(
            "[binding(0, 0), hlsl_register(1, 4294967295, 0, 0), user_type(\"texture2d\")]"
        ),
        "{ir}"
    );
    assert!(
        line_of(&ir, "global @c ")
            .contains("[binding(2, 7), hlsl_register(1, 0, 0, 1), user_type(\"texture2d\")]"),
        "{ir}"
    );
    assert!(
        line_of(&ir, "global @d ").contains(
            "[binding(0, 2), hlsl_register(1, 4294967295, 0, 0), user_type(\"texture2d\")]"
        ),
        "{ir}"
    );
    assert!(
        line_of(&ir, "global @CB ")
            .contains("[binding(0, 1), hlsl_register(0, 1, 0, 0), user_type(\"cbuffer\")]"),
        "{ir}"
    );
    assert!(
        line_of(&ir, "global @counted ").contains("[binding(0, 4)"),
        "{ir}"
    );
    assert!(
        line_of(&ir, "global @counted ").contains("counter(@counter.var.counted)"),
        "{ir}"
    );
    assert!(
        line_of(&ir, "global @app ").contains("[binding(0, 9)"),
        "{ir}"
    );
    // The HLSL type as `-fspv-reflect` spells it; samplers, counters and `$Globals` have
    // none (the lines below end at their registers).
    assert!(
        line_of(&ir, "global @counted ").contains("user_type(\"rwstructuredbuffer:<uint>\")"),
        "{ir}"
    );
    // Counters take the next free numbers of their set, then `$Globals` comes last.
    assert!(
        line_of(&ir, "global @counter.var.counted")
            .contains("[binding(0, 5), hlsl_register(3, 4294967295, 0, 0)]"),
        "{ir}"
    );
    assert!(
        line_of(&ir, "global @counter.var.app")
            .contains("[binding(0, 6), hlsl_register(3, 4294967295, 0, 0)]"),
        "{ir}"
    );
    assert!(
        line_of(&ir, "global @\"$Globals\"")
            .contains("[binding(0, 7), hlsl_register(0, 4294967295, 0, 0)]"),
        "{ir}"
    );

    let mut o = opts("ps_6_0", "main");
    o.binding_shifts = vec![BindingShift {
        class: 't',
        shift: 100,
        space: None,
    }];
    let (r, rendered) = compile_with(
        "Texture2D a : register(t3); SamplerState s : register(s3);\n\
         float4 main() : SV_Target { return a.Sample(s, 0.5); }",
        &o,
    );
    let ir = oneshader_ir::print::print_module(&r.module.expect(&rendered));
    // The shift is the user's choice (the last operand 1); `s` kept DXC's default (0).
    assert!(
        line_of(&ir, "global @a ")
            .contains("[binding(0, 103), hlsl_register(1, 3, 0, 1), user_type(\"texture2d\")]"),
        "{ir}"
    );
    assert!(
        line_of(&ir, "global @s ").contains("[binding(0, 3), hlsl_register(2, 3, 0, 0)]"),
        "{ir}"
    );
}

#[test]
fn constant_buffers_keep_hlsl_layout_information() {
    let ir = ir_text(
        r#"
cbuffer Frame {
    float a;
    float3 b : packoffset(c1.y);
    row_major float4x4 m;
    float2x2 n;
};
struct Inner { float3x3 r; };
ConstantBuffer<Inner> inner;
float4 main() : SV_Target { return a + b.x + m[0] + n[1].x + inner.r[0].x; }"#,
        "ps_6_0",
    );
    assert!(ir.contains("b: vec<f32, 3> [offset(20)]"), "{ir}");
    assert!(ir.contains("m: mat<f32, 4, 4> [row_major]"), "{ir}");
    assert!(ir.contains("n: mat<f32, 2, 2> [col_major]"), "{ir}");
    assert!(ir.contains("r: mat<f32, 3, 3> [col_major]"), "{ir}");
    assert!(ir.contains("global @inner : ptr<uniform, @Inner>"), "{ir}");
    // `-Zpr` changes the default.
    let mut o = opts("ps_6_0", "main");
    o.row_major = true;
    let (r, rendered) = compile_with(
        "cbuffer F { float2x2 n; column_major float2x2 c; }; float4 main() : SV_Target { return n[0].x + c[0].x; }",
        &o,
    );
    let ir = oneshader_ir::print::print_module(&r.module.expect(&rendered));
    assert!(ir.contains("n: mat<f32, 2, 2> [row_major]"), "{ir}");
    assert!(ir.contains("c: mat<f32, 2, 2> [col_major]"), "{ir}");
}

#[test]
fn stage_io_numbering_and_decorations() {
    let ir = ir_text(
        r#"
struct PSIn {
    float4 pos : SV_Position;
    nointerpolation uint id : ID;
    centroid float2 uv : TEXCOORD3;
    [[vk::location(5)]] float4 extra : EXTRA;
    float3x3 basis : BASIS;
    sample float s : S;
};
struct PSOut { float4 a : SV_Target1; float4 b : SV_Target0; float d : SV_Depth; };
PSOut main(PSIn i, noperspective float3 w : W) {
    PSOut o;
    o.a = i.pos * i.id + i.extra + float4(i.uv, i.s, 0);
    o.b = float4(mul(i.basis, w), 1);
    o.d = 0.5;
    return o;
}"#,
        "ps_6_0",
    );
    assert!(
        line_of(&ir, "global @in.var.SV_Position :").contains("builtin(position)"),
        "{ir}"
    );
    assert!(
        line_of(&ir, "global @in.var.ID :").contains("[location(0), semantic(\"ID\", 0), flat]"),
        "{ir}"
    );
    assert!(
        line_of(&ir, "global @in.var.TEXCOORD3 :")
            .contains("[location(1), semantic(\"TEXCOORD\", 3), centroid]"),
        "{ir}"
    );
    assert!(
        line_of(&ir, "global @in.var.EXTRA :").contains("location(5)"),
        "{ir}"
    );
    // A float3x3 takes three locations (2, 3, 4); 5 is reserved by vk::location.
    assert!(
        line_of(&ir, "global @in.var.BASIS :").contains("location(2)"),
        "{ir}"
    );
    assert!(
        line_of(&ir, "global @in.var.S :")
            .contains("[location(6), semantic(\"S\", 0), per_sample]"),
        "{ir}"
    );
    assert!(
        line_of(&ir, "global @in.var.W :")
            .contains("[location(7), semantic(\"W\", 0), noperspective]"),
        "{ir}"
    );
    assert!(
        line_of(&ir, "global @out.var.SV_Target1 :").contains("location(1)"),
        "{ir}"
    );
    assert!(
        line_of(&ir, "global @out.var.SV_Target0 :").contains("location(0)"),
        "{ir}"
    );
    assert!(
        line_of(&ir, "global @out.var.SV_Depth :").contains("builtin(frag_depth)"),
        "{ir}"
    );
}

#[test]
fn one_row_and_one_column_matrices_take_a_vectors_locations() {
    // DXC's numbering (its vk.location.composite test): a 1xN or Nx1 matrix is a vector (one
    // location, two for a 64-bit 3- or 4-vector); an RxC matrix takes R rows' locations.
    let ir = ir_text(
        r#"
struct VSOut {
    float2x3 m : A;
    float1x2 r : B;
    float3x1 c : C;
    float1x1 s : D;
    float2x3 ms[3] : E;
    float3x1 cs[2] : F;
    float w : W;
};
VSOut main(double3 a : DA, double2x3 b : DB, double3x1 c : DC, float4 p : P) {
    VSOut o = (VSOut)0;
    o.w = (float)(a.x + b[0][0] + c[0][0]) + p.x;
    return o;
}"#,
        "vs_6_0",
    );
    for (name, loc) in [
        ("out.var.A", 0),
        ("out.var.B", 2),
        ("out.var.C", 3),
        ("out.var.D", 4),
        ("out.var.E", 5),
        ("out.var.F", 11),
        ("out.var.W", 13),
        ("in.var.DA", 0),
        ("in.var.DB", 2),
        ("in.var.DC", 6),
        ("in.var.P", 8),
    ] {
        assert!(
            line_of(&ir, &format!("global @{name} :")).contains(&format!("location({loc})")),
            "{name} at {loc}:\n{ir}"
        );
    }
}

#[test]
fn statics_spec_constants_push_constants() {
    let ir = ir_text(
        r#"
[[vk::constant_id(4)]] const uint kCount = 16;
struct PC { float4 tint; };
[[vk::push_constant]] PC pc;
static const float2 kOffsets[2] = { float2(1, 2), float2(3, 4) };
static float noise = frac(sin(pc.tint.x) * 43758.5);
float4 main(uint i : I) : SV_Target { return pc.tint * kCount + kOffsets[i & 1].x + noise; }"#,
        "ps_6_0",
    );
    assert!(ir.contains("spec_const(4, u32 16)"), "{ir}");
    assert!(ir.contains("global @pc : ptr<push_constant, @PC>"), "{ir}");
    // A constant initializer stays on the global; a computed one runs in `init_globals`.
    assert!(
        line_of(&ir, "global @kOffsets").contains("= array<vec<f32, 2>, 2> {"),
        "{ir}"
    );
    assert!(
        line_of(&ir, "global @noise").ends_with("ptr<private, f32>"),
        "{ir}"
    );
    assert!(ir.contains("func @init_globals() -> void"), "{ir}");
    let wrapper = &ir[ir.find("func @main() -> void").expect("wrapper")..];
    let first = wrapper.lines().nth(2).expect("first instruction");
    assert!(first.contains("call @init_globals()"), "{ir}");
}

#[test]
fn nonuniform_precise_and_hints() {
    let ir = ir_text(
        r#"
Texture2D texs[8];
SamplerState s;
float4 main(nointerpolation uint i : I, float4 a : A) : SV_Target {
    precise float4 p = a * a + a;
    float4 c = texs[NonUniformResourceIndex(i)].Sample(s, 0.5);
    [unroll(4)] for (int k = 0; k < 4; ++k) c += k;
    [loop] while (c.x > 0) c.x -= 1;
    [branch] if (c.y > 0) c.y = 0;
    [flatten] if (c.z > 0) c.z = 0;
    return c + p;
}"#,
        "ps_6_0",
    );
    assert!(ir.contains("call_intrinsic nonuniform_index("), "{ir}");
    assert!(
        line_of(&ir, "element_addr @texs").contains("[nonuniform]"),
        "{ir}"
    );
    assert!(line_of(&ir, "= mul ").contains("[precise]"), "{ir}");
    assert!(line_of(&ir, "= add %").contains("[precise]"), "{ir}");
    assert!(ir.contains("[unroll(4)]"), "{ir}");
    assert!(ir.contains("[dont_unroll]"), "{ir}");
    assert!(ir.contains("[dont_flatten]"), "{ir}");
    assert!(ir.contains("[flatten]"), "{ir}");
}

#[test]
fn short_circuit_is_control_flow_with_a_merge_parameter() {
    let ir = ir_text(
        r#"
bool side(inout int c) { c++; return c > 2; }
float4 main(int x : X) : SV_Target {
    int c = 0;
    bool b = x > 0 && side(c);
    return b ? c : -1;
}"#,
        "ps_6_0",
    );
    let body = &ir[ir.find("func @main_body").expect("body")..];
    assert!(body.contains("if_else"), "{ir}");
    assert!(
        body.lines()
            .any(|l| l.starts_with("bb") && l.contains(": bool)")),
        "{ir}"
    );
    // The pure `?:` is a select.
    assert!(body.contains("= select "), "{ir}");
}

#[test]
fn clip_distances_share_one_array_and_duplicates_are_errors() {
    let ir = ir_text(
        r#"
struct VSOut { float4 pos : SV_Position; float3 c0 : SV_ClipDistance0; float2 c1 : SV_ClipDistance1; float k : SV_CullDistance; };
VSOut main(float4 p : P) { VSOut o; o.pos = p; o.c0 = p.xyz; o.c1 = p.zw; o.k = p.w; return o; }"#,
        "vs_6_0",
    );
    assert!(
        line_of(&ir, "global @out.var.SV_ClipDistance")
            .contains("ptr<output, array<f32, 5>> [builtin(clip_distance)"),
        "{ir}"
    );
    assert!(
        ir.contains("element_addr @out.var.SV_ClipDistance, u32 4"),
        "{ir}"
    );
    assert!(
        line_of(&ir, "global @out.var.SV_CullDistance").contains("array<f32, 1>"),
        "{ir}"
    );
    let out = sema_common::errors(
        "void main(out float4 a : SV_Position, out float4 b : SV_POSITION) { a = 0; b = 0; }",
        "vs_6_0",
    );
    assert!(
        out.contains("error[OSH1023]: `b` and `a` are both the `position` built-in"),
        "{out}"
    );
}

/// `sizeof` is C's natural layout, as DXC computes it (its tests `op.sizeof.hlsl` and
/// `scalar.layout.struct.aligned.size.hlsl`): members aligned to their scalar's size, a
/// struct's size rounded up to its alignment, empty structs 0.
#[test]
fn sizeof_follows_natural_alignment_as_dxc() {
    let src = "struct Foo { uint64_t a; int b; };\n\
               struct Bar { Foo foo; int c; };\n\
               struct Arr { Foo foo[3]; uint64_t c; };\n\
               struct Empty {};\n\
               struct Mixed { int16_t i; struct { float f; } s; Empty e; };\n\
               RWStructuredBuffer<uint> o;\n\
               [numthreads(1, 1, 1)] void main() {\n\
               o[0] = sizeof(Foo); o[1] = sizeof(Bar); o[2] = sizeof(Arr);\n\
               o[3] = sizeof(Empty[2]); o[4] = sizeof(Mixed); o[5] = sizeof(int16_t3[2]);\n\
               o[6] = sizeof(bool3[2]); o[7] = sizeof(double3[2]); o[8] = sizeof(int2x2);\n\
               }\n";
    let mut o = opts("cs_6_2", "main");
    o.enable_16bit_types = true;
    let (r, rendered) = compile_with(src, &o);
    let m = r.module.unwrap_or_else(|| panic!("{rendered}"));
    let text = oneshader_ir::print::print_module(&m);
    let stored: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("store ") && l.contains("u32 "))
        .map(|l| l.rsplit(", ").next().unwrap_or(""))
        .collect();
    assert_eq!(
        stored,
        [
            "u32 16", "u32 24", "u32 56", "u32 0", "u32 8", "u32 12", "u32 24", "u32 48", "u32 16"
        ],
        "{text}"
    );
}

/// A `static` without an initializer starts at zero, as in DXC (it stores a null constant
/// into it at the top of the entry point; dxc/var.static.hlsl): reading it before any write
/// is not undefined.
#[test]
fn statics_without_initializer_start_at_zero() {
    let text = ir_text(
        "RWStructuredBuffer<int> A;\nstatic int B;\nstatic float3 V;\n\
         [numthreads(1,1,1)] void main() { A[0] = B + (int)V.y; }\n",
        "cs_6_0",
    );
    assert!(
        text.contains("global @B : ptr<private, i32> = i32 zero"),
        "{text}"
    );
    assert!(
        text.contains("global @V : ptr<private, vec<f32, 3>> = vec<f32, 3> zero"),
        "{text}"
    );
}

#[test]
fn locals_and_parameters_carry_their_hlsl_names_as_hints() {
    let src = r#"
float4 main(float4 p : POSITION) : SV_Position {
    float4 scaled = p * 2;
    float k = 3;
    for (int i = 0; i < 3; i++) k += i;
    return scaled * k;
}"#;
    let (r, rendered) = compile_with(src, &opts("vs_6_0", "main"));
    let m = r.module.expect(&rendered);
    // The `var` of each local (and the local copy of the `in` parameter) is named after it.
    let mut named: Vec<String> = Vec::new();
    for f in m.all_functions() {
        for b in f.blocks(&m) {
            for i in b.insts(&m) {
                if m.op(i) == oneshader_ir::Op::Var
                    && let Some(n) = m.name(i)
                {
                    named.push(n.to_string());
                }
            }
        }
    }
    named.sort();
    assert_eq!(
        named,
        ["i", "k", "p", "scaled"],
        "{}",
        oneshader_ir::print::print_module(&m)
    );
}
