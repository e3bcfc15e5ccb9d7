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
    // DXC's vk.binding.cl.auto-shift-bindings.hlsl, without its resource arrays.
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
    // A run-time index becomes a switch over the elements.
    let dynamic = "Texture2D t[2] : register(t0); SamplerState s;\nfloat4 main(float2 uv : TEXCOORD, nointerpolation uint i : IDX) : SV_Target { return t[i].Sample(s, uv); }";
    let m = spirv(dynamic, &["-T", "ps_6_0", "-fspv-flatten-resource-arrays"]);
    assert_eq!(binding_of(&m, "t[0]"), (0, 0));
    assert_eq!(binding_of(&m, "t[1]"), (0, 1));
    // What no switch can hold is refused by name and position, not left as one array: an
    // access in a loop's continue block (which must end in the loop's back edge).
    let continued = "RWStructuredBuffer<uint> b[2] : register(u0);\n[numthreads(1, 1, 1)] void main(uint3 id : SV_DispatchThreadID) {\n  for (uint k = 0; k < 4; k += b[id.x][0]) { b[0][k] = k; }\n}\n";
    for level in ["-O0", "-O3"] {
        let opts =
            CompileOptions::from_dxc_args(["-T", "cs_6_0", level, "-fspv-flatten-resource-arrays"])
                .expect("parses");
        let e = Compiler::new()
            .compile_source("d.hlsl", continued, &opts)
            .expect_err("refused");
        let text = e.diagnostics.render();
        assert!(
            text.contains("d.hlsl:3:")
                && text.contains("error[OSG0013]")
                && text.contains("`b`")
                && text.contains("continue block"),
            "{level}: {text}"
        );
    }
    // So is an unsized array, which has no elements to bind one by one.
    let unsized_ = "Texture2D t[] : register(t0); SamplerState s;\nfloat4 main(float2 uv : TEXCOORD) : SV_Target { return t[1].Sample(s, uv); }";
    let opts = CompileOptions::from_dxc_args(["-T", "ps_6_0", "-fspv-flatten-resource-arrays"])
        .expect("parses");
    let e = Compiler::new()
        .compile_source("u.hlsl", unsized_, &opts)
        .expect_err("refused");
    let text = e.diagnostics.render();
    assert!(
        text.contains("error[OSG0013]") && text.contains("unsized"),
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
    // The unrolled loop's indices are constants: no switch. At -O0 nothing unrolls the
    // loop, and its run-time index becomes a switch over the elements.
    let switches = |m: &rspirv::dr::Module| {
        m.functions
            .iter()
            .flat_map(|f| &f.blocks)
            .filter(|b| {
                b.instructions
                    .last()
                    .is_some_and(|i| i.class.opcode == rspirv::spirv::Op::Switch)
            })
            .count()
    };
    assert_eq!(switches(&m), 0);
    let m0 = spirv(
        src,
        &["-T", "ps_6_0", "-O0", "-fspv-flatten-resource-arrays"],
    );
    assert_eq!(switches(&m0), 1);
    for k in 0..4 {
        assert_eq!(binding_of(&m0, &format!("T[{k}]")), (0, k + 1));
    }
}

/// A compute shader reading, writing and atomically adding to `RWStructuredBuffer`s and
/// reading `Texture2D`s of arrays, each through an index read from a buffer (which differs
/// between invocations, so the arrays' version needs `NonUniformResourceIndex`).
const DYNAMIC: &str = r#"
RWStructuredBuffer<uint> bufs[4] : register(u0);
StructuredBuffer<uint> sel : register(t0, space1);
Texture2D<float4> texs[3] : register(t0, space2);
RWStructuredBuffer<uint> outb : register(u0, space3);
#define B bufs[NonUniformResourceIndex(i)]
#define T texs[NonUniformResourceIndex(i % 3)]
[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
  uint t = id.x;
  uint i = sel[t];
  uint v = B[t];
  B[t] = v * 10 + 1;
  uint old;
  InterlockedAdd(B[8], 1, old);
  float4 c = T.Load(int3(t % 2, 0, 0));
  uint w, h;
  T.GetDimensions(w, h);
  outb[t] = v + (uint)c.x * 1000 + w * 100000 + h * 10000000;
}
"#;

/// The words of `bufs[k]`: element `t` is `100 k + t`, the counter at 8 starts at 0.
fn dynamic_buf(k: u32) -> Vec<u32> {
    (0..8).map(|t| 100 * k + t).chain([0]).collect()
}

/// The width of `texs[k]`: `k + 2`, or 2 for every element when not `distinct`.
fn dynamic_width(k: u32, distinct: bool) -> u32 {
    if distinct { k + 2 } else { 2 }
}

/// `texs[k]`: [`dynamic_width`] texels wide, one high, texel `x` holding `10 k + x` in red.
fn dynamic_tex(k: u32, distinct: bool) -> oneshader_vulkan_harness::Image {
    use oneshader_vulkan_harness::{Format, Image};
    let w = dynamic_width(k, distinct);
    let data = (0..w)
        .flat_map(|x| [((10 * k + x) as f32).to_bits(), 0, 0, 0])
        .collect();
    Image::new_2d(Format::Rgba32Float, w, 1, data)
}

/// Runs `words` with `sel` as the indices, the arrays bound one descriptor per binding
/// (`flat`) or as descriptor arrays, the textures of `distinct` widths or not; returns
/// `bufs[0..4]` and `outb`.
fn run_dynamic(
    gpu: &oneshader_vulkan_harness::Gpu,
    words: &[u32],
    sel: &[u32],
    flat: bool,
    distinct: bool,
) -> (Vec<Vec<u32>>, Vec<u32>) {
    use oneshader_vulkan_harness::{Binding, Resource};
    let at = |set, k| {
        move |r| match flat {
            true => Binding::new(set, k, r),
            false => Binding::element(set, 0, k, r),
        }
    };
    let mut bindings = Vec::new();
    for k in 0..4 {
        bindings.push(at(0, k)(Resource::StorageBuffer(dynamic_buf(k))));
    }
    bindings.push(Binding::new(1, 0, Resource::StorageBuffer(sel.to_vec())));
    for k in 0..3 {
        bindings.push(at(2, k)(Resource::SampledImage(dynamic_tex(k, distinct))));
    }
    bindings.push(Binding::new(3, 0, Resource::StorageBuffer(vec![0; 8])));
    gpu.dispatch(words, "main", &mut bindings, &[], [1, 1, 1]);
    let bufs = bindings[..4].iter().map(|b| b.words().to_vec()).collect();
    (bufs, bindings[8].words().to_vec())
}

/// What the shader leaves for indices `sel`, as DXC's switch defines it: an index out of
/// range reads zero and writes nothing (the textures are indexed `i % 3`, always in range).
fn dynamic_expected(sel: &[u32], distinct: bool) -> (Vec<Vec<u32>>, Vec<u32>) {
    let mut bufs: Vec<Vec<u32>> = (0..4).map(dynamic_buf).collect();
    let mut out = Vec::new();
    for (t, &i) in sel.iter().enumerate() {
        let t = t as u32;
        let v = if i < 4 { 100 * i + t } else { 0 };
        if i < 4 {
            bufs[i as usize][t as usize] = v * 10 + 1;
            bufs[i as usize][8] += 1;
        }
        let k = i % 3;
        out.push(v + (10 * k + t % 2) * 1000 + dynamic_width(k, distinct) * 100_000 + 10_000_000);
    }
    (bufs, out)
}

/// The SPIR-V of [`DYNAMIC`] under `args`, valid for both validators.
fn dynamic_spirv(args: &[&str]) -> Vec<u32> {
    let opts = CompileOptions::from_dxc_args(args.iter().copied()).expect("options parse");
    let out = Compiler::new()
        .compile_source("dyn.hlsl", DYNAMIC, &opts)
        .unwrap_or_else(|e| panic!("{:?}: {}", args, e.diagnostics.render()));
    assert_valid(&out.spirv, TargetEnv::Vulkan1_2, "the output");
    out.spirv
}

#[test]
fn flatten_resource_arrays_switches_over_the_elements_for_a_run_time_index() {
    let gpu = oneshader_vulkan_harness::Gpu::new();
    let plain = dynamic_spirv(&["-T", "cs_6_0", "-E", "main", "-O0"]);
    // Every element read, written and counted, by several threads each. The arrays' run
    // has textures of one size: this lavapipe answers `GetDimensions` through an element of
    // a descriptor array with element 0's size (the SPIR-V decorates the chain and the
    // loaded image NonUniform); the flattened runs also get distinct sizes.
    let sel = [0, 1, 2, 3, 3, 2, 1, 0];
    let expected = dynamic_expected(&sel, false);
    assert_eq!(
        run_dynamic(&gpu, &plain, &sel, false, false),
        expected,
        "arrays"
    );
    for level in ["-O0", "-O3"] {
        let args = [
            "-T",
            "cs_6_0",
            "-E",
            "main",
            level,
            "-fspv-flatten-resource-arrays",
        ];
        let flat = dynamic_spirv(&args);
        let m = rspirv::dr::load_words(&flat).expect("parses");
        for k in 0..4 {
            assert_eq!(binding_of(&m, &format!("bufs[{k}]")), (0, k), "{level}");
        }
        for k in 0..3 {
            assert_eq!(binding_of(&m, &format!("texs[{k}]")), (2, k), "{level}");
        }
        let switches = m
            .functions
            .iter()
            .flat_map(|f| &f.blocks)
            .filter_map(|b| b.instructions.last())
            .filter(|i| i.class.opcode == rspirv::spirv::Op::Switch)
            .count();
        assert!(switches >= 5, "{level}: {switches} switches");
        assert_eq!(
            run_dynamic(&gpu, &flat, &sel, true, false),
            expected,
            "{level}: flattened, as the arrays"
        );
        assert_eq!(
            run_dynamic(&gpu, &flat, &sel, true, true),
            dynamic_expected(&sel, true),
            "{level}: flattened, textures of distinct sizes"
        );
        // Out of range (DXC's default case): the access reads zero and writes nothing.
        let wild = [0, 7, 2, 9, 3, 100, 1, 4];
        assert_eq!(
            run_dynamic(&gpu, &flat, &wild, true, true),
            dynamic_expected(&wild, true),
            "{level}: out of range"
        );
    }
}

/// A pixel shader sampling a texture array with a sampler array, reading a `ConstantBuffer`
/// array member in a loop's test, writing a `RWTexture2D` array and adding atomically to a
/// `RWByteAddressBuffer` array, every index a run-time value (each array in a space of its
/// own, as MSL refuses aliased bindings).
const DYNAMIC_PS: &str = r#"
struct P { float4 tint; uint n; };
ConstantBuffer<P> cbs[3] : register(b0, space1);
Texture2D<float4> texs[4] : register(t0);
SamplerState samps[2] : register(s0, space2);
RWTexture2D<float4> outs[2] : register(u0, space3);
RWByteAddressBuffer raws[2] : register(u0, space4);
float4 main(float2 uv : TEXCOORD, nointerpolation uint i : IDX) : SV_Target {
  float4 c = texs[i].Sample(samps[i % 2], uv) * cbs[i % 3].tint;
  uint k = 0;
  while (k < cbs[i % 3].n) { c += texs[k % 4].SampleLevel(samps[0], uv, 0); k++; }
  outs[i % 2][uint2(uv)] = c;
  uint old;
  raws[i % 2].InterlockedAdd(0, 1, old);
  raws[i % 2].Store(4, old);
  return c + (float)raws[i % 2].Load(8);
}
"#;

#[test]
fn flatten_resource_arrays_switches_reach_every_backend() {
    use oneshader_test_tools::{GlslStage, glslang_and_validate, msl_clang_check, naga_validate};
    for (src, profile, stage) in [
        (DYNAMIC, "cs_6_0", GlslStage::Compute),
        (DYNAMIC_PS, "ps_6_0", GlslStage::Fragment),
    ] {
        for level in ["-O0", "-O3"] {
            let base = [
                "-T",
                profile,
                "-E",
                "main",
                level,
                "-fspv-flatten-resource-arrays",
            ];
            let what = format!("{profile} {level}");
            let m = spirv(src, &base);
            // The elements are resources of their own (`id_of` panics without the name).
            for k in 0..3 {
                id_of(&m, &format!("texs[{k}]"));
            }
            for target in [
                oneshader::Target::Glsl,
                oneshader::Target::Wgsl,
                oneshader::Target::Msl,
            ] {
                let opts = CompileOptions::from_dxc_args(base)
                    .expect("options parse")
                    .target(target);
                let out = Compiler::new()
                    .compile_source("dyn.hlsl", src, &opts)
                    .unwrap_or_else(|e| panic!("{what} {target:?}: {}", e.diagnostics.render()));
                let checked = match target {
                    oneshader::Target::Glsl => {
                        glslang_and_validate(out.glsl.as_deref().expect("glsl"), stage).map(|_| ())
                    }
                    oneshader::Target::Wgsl => {
                        naga_validate(out.wgsl.as_deref().expect("wgsl")).map(|_| ())
                    }
                    _ => msl_clang_check(out.msl.as_deref().expect("msl")),
                };
                if let Err(e) = checked {
                    panic!("{what} {target:?}:\n{e}");
                }
            }
        }
    }
}
