//! DXC options that decide what the SPIR-V interface and bindings hold, honoured as DXC's own
//! tests (`spv.preserve-interface.hlsl`, `vk.binding.cl.auto-shift-bindings.hlsl`) expect.

mod support;

use oneshader::{CompileOptions, Compiler, TargetEnv};
use support::assert_valid;

/// SPIR-V of `src` under the dxc-style `args`.
fn spirv(src: &str, args: &[&str]) -> rspirv::dr::Module {
    let opts = CompileOptions::from_dxc_args(args.iter().copied()).expect("options parse");
    let out = Compiler::new()
        .compile_source("o.hlsl", src, &opts)
        .unwrap_or_else(|e| panic!("{}", e.diagnostics.render()));
    assert_valid(&out.spirv, TargetEnv::Vulkan1_2, "the output");
    rspirv::dr::load_words(&out.spirv).expect("parses")
}

/// The id a debug name names.
fn id_of(m: &rspirv::dr::Module, name: &str) -> u32 {
    m.debug_names
        .iter()
        .find(|i| {
            matches!(i.operands.get(1), Some(rspirv::dr::Operand::LiteralString(s)) if s == name)
        })
        .and_then(|i| i.operands[0].id_ref_any())
        .unwrap_or_else(|| panic!("no OpName {name}"))
}

/// The entry point's interface ids.
fn interface(m: &rspirv::dr::Module) -> Vec<u32> {
    m.entry_points[0].operands[3..]
        .iter()
        .filter_map(|o| o.id_ref_any())
        .collect()
}

#[test]
fn preserve_interface_lists_stage_variables_the_optimizer_left_unread() {
    let src = "float4 main(float2 a : A, float3 b : B, float2 c : C) : SV_Target { return float4(a, c); }";
    let plain = spirv(src, &["-T", "ps_6_0", "-O3"]);
    let b = id_of(&plain, "in.var.B");
    assert!(!interface(&plain).contains(&b), "unused without the flag");
    let kept = spirv(src, &["-T", "ps_6_0", "-O3", "-fspv-preserve-interface"]);
    let b = id_of(&kept, "in.var.B");
    assert!(interface(&kept).contains(&b), "listed with it");
    for name in ["in.var.A", "in.var.C", "out.var.SV_Target"] {
        assert!(interface(&kept).contains(&id_of(&kept, name)), "{name}");
    }
}

#[test]
fn preserve_interface_is_refused_for_text_targets() {
    let e = CompileOptions::from_dxc_args([
        "-T",
        "ps_6_0",
        "-fspv-preserve-interface",
        "--target",
        "glsl",
    ])
    .expect_err("refused");
    assert!(e.to_string().contains("-fspv-preserve-interface"), "{e}");
}

/// (set, binding) of the variable named `name`.
fn binding_of(m: &rspirv::dr::Module, name: &str) -> (u32, u32) {
    let id = id_of(m, name);
    let deco = |d: rspirv::spirv::Decoration| {
        m.annotations
            .iter()
            .find(|i| {
                i.operands.first().and_then(|o| o.id_ref_any()) == Some(id)
                    && i.operands.get(1) == Some(&rspirv::dr::Operand::Decoration(d))
            })
            .and_then(|i| match i.operands.get(2) {
                Some(rspirv::dr::Operand::LiteralBit32(v)) => Some(*v),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{name}: no {d:?}"))
    };
    (
        deco(rspirv::spirv::Decoration::DescriptorSet),
        deco(rspirv::spirv::Decoration::Binding),
    )
}

#[test]
fn auto_shift_bindings_starts_unregistered_resources_at_their_class_shift() {
    // DXC's vk.binding.cl.auto-shift-bindings.hlsl, without resource arrays (OneShader does
    // not flatten them: `-fspv-flatten-resource-arrays` is refused).
    let src = r#"
struct S { float4 f; };
[[vk::binding(42)]] ConstantBuffer<S> cbuffer1;
Texture1D<float4> texture1 : register(t1, space1);
Texture2D<float4> t0 : register(t0);
Texture3D<float4> t3d;
TextureCube<float4> tc;
StructuredBuffer<float4> sb;
SamplerState ss;
SamplerComparisonState scs;
RWByteAddressBuffer rwbab;
RWTexture2D<float4> rwtexture2d;
ConstantBuffer<S> cbuffer2;
float4 main() : SV_Target {
    return cbuffer1.f + texture1.Load(int2(0, 0)) + t0.Load(int3(0, 0, 0)) + t3d.Load(int4(0, 0, 0, 0))
        + tc.SampleLevel(ss, float3(0, 0, 1), 0) + sb[0] + t0.SampleCmpLevelZero(scs, float2(0, 0), 0.5)
        + asfloat(rwbab.Load(0)) + rwtexture2d[int2(0, 0)] + cbuffer2.f;
}
"#;
    let args = [
        "-T",
        "ps_6_0",
        "-O0",
        "-fvk-b-shift",
        "100",
        "0",
        "-fvk-t-shift",
        "200",
        "0",
        "-fvk-t-shift",
        "300",
        "1",
        "-fvk-s-shift",
        "500",
        "0",
        "-fvk-u-shift",
        "700",
        "0",
        "-fvk-auto-shift-bindings",
    ];
    let m = spirv(src, &args);
    for (name, expected) in [
        ("cbuffer1", (0, 42)),
        ("texture1", (1, 301)),
        ("t0", (0, 200)),
        ("t3d", (0, 201)),
        ("tc", (0, 202)),
        ("sb", (0, 203)),
        ("ss", (0, 500)),
        ("scs", (0, 501)),
        ("rwbab", (0, 700)),
        ("rwtexture2d", (0, 701)),
        ("cbuffer2", (0, 100)),
    ] {
        assert_eq!(binding_of(&m, name), expected, "{name}");
    }
    // Without the flag the unregistered ones count from 0 in declaration order.
    let plain = spirv(src, &args[..args.len() - 1]);
    assert_eq!(binding_of(&plain, "t3d"), (0, 0));
}

#[test]
fn flatten_resource_arrays_gives_each_element_its_own_binding() {
    // DXC's vk.binding.cl.flatten-arrays.example1.hlsl.
    let src = r#"
Texture2D    MyTextures[5] : register(t0);
Texture2D    NextTexture;
Texture2D    AnotherTexture : register(t5);
SamplerState MySamplers[2];
float4 main(float2 TexCoord : TexCoord) : SV_Target0 {
  return MyTextures[0].Sample(MySamplers[0], TexCoord) + MyTextures[1].Sample(MySamplers[0], TexCoord)
    + MyTextures[2].Sample(MySamplers[0], TexCoord) + MyTextures[3].Sample(MySamplers[1], TexCoord)
    + MyTextures[4].Sample(MySamplers[1], TexCoord) + AnotherTexture.Sample(MySamplers[1], TexCoord)
    + NextTexture.Sample(MySamplers[1], TexCoord);
}
"#;
    let m = spirv(src, &["-T", "ps_6_0", "-fspv-flatten-resource-arrays"]);
    for k in 0..5 {
        assert_eq!(binding_of(&m, &format!("MyTextures[{k}]")), (0, k));
    }
    assert_eq!(binding_of(&m, "AnotherTexture"), (0, 5));
    assert_eq!(binding_of(&m, "NextTexture"), (0, 6));
    assert_eq!(binding_of(&m, "MySamplers[0]"), (0, 7));
    assert_eq!(binding_of(&m, "MySamplers[1]"), (0, 8));
    // The reflection lists the elements.
    let opts = CompileOptions::from_dxc_args(["-T", "ps_6_0", "-fspv-flatten-resource-arrays"])
        .expect("parses")
        .with_reflection();
    let r = Compiler::new()
        .compile_source("o.hlsl", src, &opts)
        .expect("compiles")
        .reflection
        .expect("asked for");
    let t2 = r.resource("MyTextures[2]").expect("an element");
    assert_eq!((t2.binding, t2.array_size), (2, None));
    assert!(r.resource("MyTextures").is_none());
    // A run-time index is refused by name, not left as one array.
    let dynamic = "Texture2D t[2] : register(t0); SamplerState s;\nfloat4 main(float2 uv : TEXCOORD, uint i : IDX) : SV_Target { return t[i].Sample(s, uv); }";
    let opts = CompileOptions::from_dxc_args(["-T", "ps_6_0", "-fspv-flatten-resource-arrays"])
        .expect("parses");
    let e = Compiler::new()
        .compile_source("d.hlsl", dynamic, &opts)
        .expect_err("refused");
    let text = e.diagnostics.render();
    assert!(
        text.contains("d.hlsl:2:") && text.contains("error[OSG0013]") && text.contains("`t`"),
        "{text}"
    );
}

#[test]
fn flatten_resource_arrays_waits_for_unrolling_at_o_and_reflects_the_elements() {
    // DXC's vk.binding.cl.flatten-arrays.example3.hlsl: an [unroll] loop indexes the array.
    let src = "SamplerState S;\nTexture2D<float> T[4];\nfloat4 main(float4 p : SV_Position) : SV_Target {\n  float4 c = 0;\n  [unroll] for (int i = 0; i < 4; ++i) { c += T[i].Sample(S, p.xy); }\n  return c;\n}\n";
    let args = ["-T", "ps_6_0", "-O3", "-fspv-flatten-resource-arrays"];
    let m = spirv(src, &args);
    assert_eq!(binding_of(&m, "S"), (0, 0));
    for k in 0..4 {
        assert_eq!(binding_of(&m, &format!("T[{k}]")), (0, k + 1));
    }
    let opts = CompileOptions::from_dxc_args(args)
        .expect("parses")
        .with_reflection();
    let r = Compiler::new()
        .compile_source("o.hlsl", src, &opts)
        .expect("compiles")
        .reflection
        .expect("asked for");
    let names: Vec<(String, u32)> = r
        .resources
        .iter()
        .map(|x| (x.name.clone(), x.binding))
        .collect();
    for k in 0..4u32 {
        assert!(names.contains(&(format!("T[{k}]"), k + 1)), "{names:?}");
    }
    // At -O0 nothing unrolls the loop: the run-time index is refused.
    let e = CompileOptions::from_dxc_args(["-T", "ps_6_0", "-O0", "-fspv-flatten-resource-arrays"])
        .map(|o| Compiler::new().compile_source("o.hlsl", src, &o))
        .expect("parses")
        .expect_err("refused at -O0");
    assert!(e.diagnostics.render().contains("error[OSG0013]"));
}
