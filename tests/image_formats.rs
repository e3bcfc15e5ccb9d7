//! Storage textures and texel buffers get the image format DXC infers from the texel type
//! (DXC's tests `type.rwtexture.hlsl` and `type.buffer.hlsl`, run without and with
//! `-fspv-use-unknown-image-format`): one, two or four 32-bit components name their format,
//! three stay Unknown, `[[vk::image_format]]` wins; the flag keeps Unknown. WGSL, which needs a
//! format for every storage texture, takes the inferred one, and the reflection states it.

mod support;

use oneshader::{CompileOptions, Compiler, Target, TargetEnv};
use support::assert_valid;

const SRC: &str = r#"
RWTexture1D<int> t1;
RWTexture2D<uint2> t2;
[[vk::image_format("rgba32f")]] RWTexture3D<float3> t4;
RWTexture3D<float4> t5;
RWTexture2DArray<float4> t9;
RWTexture2D<float3> t10;
Buffer<int4> b1;
Buffer<float2> b2;
Buffer<uint3> b3;
RWBuffer<float> b4;
Texture2D<float4> sampled;
[numthreads(1, 1, 1)]
void main() {
    t1[0] = b1[0].x; t2[int2(0, 0)] = uint2(1, 2); t4[int3(0, 0, 0)] = 1; t5[int3(0, 0, 0)] = 2;
    t9[int3(0, 0, 0)] = b2[0].xyxy; t10[int2(0, 0)] = b3[0]; b4[0] = sampled.Load(int3(0, 0, 0)).x;
}
"#;

/// Each global's `OpTypeImage` format, by global name, from the disassembly.
fn formats(opts: &CompileOptions) -> Vec<(String, String)> {
    let out = Compiler::new()
        .compile_source("f.hlsl", SRC, opts)
        .unwrap_or_else(|e| panic!("{}", e.diagnostics.render()));
    assert_valid(&out.spirv, TargetEnv::Vulkan1_2, "the formats shader");
    let words = out.spirv;
    let module = rspirv::dr::load_words(&words).expect("parses");
    let name_of = |id: u32| {
        module
            .debug_names
            .iter()
            .find(|i| i.operands.first().and_then(|o| o.id_ref_any()) == Some(id))
            .and_then(|i| i.operands.get(1))
            .map(|o| format!("{o}").trim_matches('"').to_string())
            .unwrap_or_default()
    };
    let image_format = |ty: u32| -> Option<String> {
        let t = module
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(ty))?;
        match t.class.opcode {
            rspirv::spirv::Op::TypePointer => {
                let pointee = t.operands.get(1)?.id_ref_any()?;
                module
                    .types_global_values
                    .iter()
                    .find(|i| i.result_id == Some(pointee))
                    .filter(|i| i.class.opcode == rspirv::spirv::Op::TypeImage)
                    .map(|i| format!("{:?}", i.operands[6]))
            }
            _ => None,
        }
    };
    let mut out: Vec<(String, String)> = module
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == rspirv::spirv::Op::Variable)
        .filter_map(|v| Some((name_of(v.result_id?), image_format(v.result_type?)?)))
        .collect();
    out.sort();
    out
}

fn expect(list: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = list
        .iter()
        .map(|(a, b)| (a.to_string(), format!("ImageFormat({b})")))
        .collect();
    v.sort();
    v
}

#[test]
fn formats_are_inferred_from_the_texel_type_as_dxc_does() {
    assert_eq!(
        formats(&CompileOptions::new("cs_6_0")),
        expect(&[
            ("t1", "R32i"),
            ("t2", "Rg32ui"),
            ("t4", "Rgba32f"),
            ("t5", "Rgba32f"),
            ("t9", "Rgba32f"),
            ("t10", "Unknown"),
            ("b1", "Rgba32i"),
            ("b2", "Rg32f"),
            ("b3", "Unknown"),
            ("b4", "R32f"),
            ("sampled", "Unknown"),
        ])
    );
}

#[test]
fn use_unknown_image_format_keeps_unknown_but_for_the_attribute() {
    let opts = CompileOptions::from_dxc_args(["-T", "cs_6_0", "-fspv-use-unknown-image-format"])
        .expect("parses");
    let got = formats(&opts);
    for (name, format) in &got {
        let want = if name == "t4" {
            "ImageFormat(Rgba32f)"
        } else {
            "ImageFormat(Unknown)"
        };
        assert_eq!(format, want, "{name}: {got:?}");
    }
}

#[test]
fn wgsl_storage_textures_take_the_inferred_format_and_reflection_states_it() {
    let src = "RWTexture2D<float4> img : register(u0);\nRWTexture2D<uint2> ids : register(u1);\n[numthreads(8, 8, 1)] void main(uint2 i : SV_DispatchThreadID) { img[i] = float4(i, 0, 1); ids[i] = i; }\n";
    let opts = CompileOptions::new("cs_6_0")
        .target(Target::Wgsl)
        .with_reflection();
    let out = Compiler::new()
        .compile_source("w.hlsl", src, &opts)
        .unwrap_or_else(|e| panic!("{}", e.diagnostics.render()));
    let text = out.wgsl.expect("WGSL");
    oneshader_test_tools::naga_validate(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert!(
        text.contains("texture_storage_2d<rgba32float, write>"),
        "{text}"
    );
    assert!(
        text.contains("texture_storage_2d<rg32uint, write>"),
        "{text}"
    );
    let r = out.reflection.expect("asked for");
    let format = |n: &str| {
        r.resource(n)
            .and_then(|x| x.texture.as_ref())
            .and_then(|t| t.format.clone())
    };
    assert_eq!(format("img").as_deref(), Some("rgba32f"));
    assert_eq!(format("ids").as_deref(), Some("rg32ui"));
    // Three components have no format to infer: refused by name.
    let e = Compiler::new()
        .compile_source(
            "w.hlsl",
            "RWTexture2D<float3> rgb : register(u0);\n[numthreads(1, 1, 1)] void main() { rgb[int2(0, 0)] = 1; }\n",
            &opts,
        )
        .expect_err("refused");
    let text = e.diagnostics.render();
    assert!(
        text.contains("global @rgb") && text.contains("vk::image_format"),
        "{text}"
    );
}

#[test]
fn bool_textures_hold_uint_texels_compared_with_zero_as_dxc_declares_them() {
    // DXC's texture.load.hlsl: `Texture2D<bool3>` reads a uint3 texel and compares it with 0;
    // a `bool` stored to a texel is 1 or 0.
    let src = "RWTexture2D<bool> o : register(u0);\nTexture2D<bool3> t : register(t0);\n[numthreads(1, 1, 1)] void main(uint2 i : SV_DispatchThreadID) { o[i] = t.Load(int3(i, 0)).y; }\n";
    let ir = Compiler::new()
        .compile_source(
            "b.hlsl",
            src,
            &CompileOptions::new("cs_6_0")
                .target(Target::Spirv)
                .opt_level(oneshader::OptLevel::O0),
        )
        .unwrap_or_else(|e| panic!("{}", e.diagnostics.render()));
    assert_valid(&ir.spirv, TargetEnv::Vulkan1_2, "bool textures");
    let mut opts = CompileOptions::new("cs_6_0").opt_level(oneshader::OptLevel::O0);
    opts.keep_unoptimized_ir = true;
    let out = Compiler::new()
        .compile_source("b.hlsl", src, &opts)
        .unwrap_or_else(|e| panic!("{}", e.diagnostics.render()));
    let text = oneshader::ir::print::print_module(out.ir.unoptimized.as_ref().expect("kept"));
    assert!(text.contains("texture<2d, vec<u32, 3>>"), "{text}");
    assert!(text.contains("texture<2d, u32, storage, r32ui>"), "{text}");
    assert!(text.contains("= ne %"), "{text}");
    assert!(text.contains("select %"), "{text}");
    let w = Compiler::new()
        .compile_source(
            "b.hlsl",
            src,
            &CompileOptions::new("cs_6_0").target(Target::Wgsl),
        )
        .unwrap_or_else(|e| panic!("{}", e.diagnostics.render()));
    let wgsl = w.wgsl.expect("WGSL");
    oneshader_test_tools::naga_validate(&wgsl).unwrap_or_else(|e| panic!("{e}\n{wgsl}"));
}
