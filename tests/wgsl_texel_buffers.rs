//! Texel buffers on WebGPU (issue 28 item 4): WGSL has none, so `Buffer<T>` and `RWBuffer<T>`
//! whose texels are their element's bytes become storage buffers (legalization's
//! `texel_buffers`), the reflection says so (`wgsl.storage_buffer`), and the WGSL computes on
//! lavapipe (through naga's SPIR-V, with storage buffers) what our SPIR-V computes with
//! texel buffers; texel buffers of other formats stay refused by name.

mod support;

use oneshader::{CompileOptions, Compiler, OptLevel, Target};
use oneshader_test_tools::{naga_spirv, naga_validate, spirv_val};
use oneshader_vulkan_harness::{Binding, Format, Gpu, Resource, TexelBuffer};
use support::root;

const RW: &str = "tests/wgsl_texel_buffers/rw.hlsl";

fn src_texels() -> Vec<u32> {
    (0..16).map(|i| (i as f32 * 0.5 + 1.0).to_bits()).collect()
}

fn pairs_texels() -> Vec<u32> {
    (0..8).map(|i| (i as f32 - 2.0).to_bits()).collect()
}

/// What the shader leaves, computed here: `pairs[i] = pairs[i] * src[i].xy + src[i].zw + 4`,
/// `count[0] = 1 + 2 + 3 + 4`, `signed_out[i] = -3 i`.
fn expected() -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let src: Vec<f32> = src_texels().iter().map(|&w| f32::from_bits(w)).collect();
    let pairs: Vec<f32> = pairs_texels().iter().map(|&w| f32::from_bits(w)).collect();
    let mut out = Vec::new();
    for i in 0..4 {
        for c in 0..2 {
            out.push((pairs[i * 2 + c] * src[i * 4 + c] + src[i * 4 + 2 + c] + 4.0).to_bits());
        }
    }
    let count = vec![10, 0, 0, 0];
    let signed: Vec<u32> = (0..4).map(|i: i32| (-3 * i) as u32).collect();
    (out, count, signed)
}

#[test]
fn texel_buffers_compute_through_wgsl_as_storage_buffers_what_spirv_computes() {
    let gpu = Gpu::new();
    let (want_pairs, want_count, want_signed) = expected();
    for level in [OptLevel::O0, OptLevel::O] {
        // Our SPIR-V with texel buffers.
        let opts = CompileOptions::new("cs_6_0")
            .opt_level(level)
            .with_reflection();
        let out = Compiler::new()
            .compile_file(root().join(RW), &opts)
            .unwrap_or_else(|e| panic!("{}", e.diagnostics.render()));
        spirv_val(&out.spirv, oneshader::TargetEnv::Vulkan1_2).expect("valid SPIR-V");
        let r = out.reflection.as_ref().expect("asked for");
        let texel = |format, data, storage: bool| {
            let t = TexelBuffer { format, data };
            if storage {
                Resource::StorageTexelBuffer(t)
            } else {
                Resource::UniformTexelBuffer(t)
            }
        };
        let at = |name: &str| {
            let res = r
                .resource(name)
                .unwrap_or_else(|| panic!("`{name}` reflected"));
            (res.set, res.binding)
        };
        let mut vk = vec![
            Binding::new(
                at("src").0,
                at("src").1,
                texel(Format::Rgba32Float, src_texels(), false),
            ),
            Binding::new(
                at("pairs").0,
                at("pairs").1,
                texel(Format::Rg32Float, pairs_texels(), true),
            ),
            Binding::new(
                at("count").0,
                at("count").1,
                texel(Format::R32Uint, vec![0; 4], true),
            ),
            Binding::new(
                at("signed_out").0,
                at("signed_out").1,
                texel(Format::R32Sint, vec![0; 4], true),
            ),
        ];
        gpu.try_dispatch(&out.spirv, "main", &mut vk, &[], [1, 1, 1])
            .unwrap_or_else(|e| panic!("SPIR-V {level:?}: {e}"));
        assert_eq!(vk[1].words(), &want_pairs[..], "SPIR-V {level:?}");
        assert_eq!(vk[2].words(), &want_count[..], "SPIR-V {level:?}");
        assert_eq!(vk[3].words(), &want_signed[..], "SPIR-V {level:?}");

        // WGSL with storage buffers at the places the reflection gives.
        let opts = opts.target(Target::Wgsl);
        let out = Compiler::new()
            .compile_file(root().join(RW), &opts)
            .unwrap_or_else(|e| panic!("{}", e.diagnostics.render()));
        let text = out.wgsl.as_deref().expect("WGSL");
        naga_validate(text).unwrap_or_else(|e| panic!("naga rejects:\n{e}\n{text}"));
        assert!(
            text.contains("var<storage, read> src: array<vec4<f32>>"),
            "{text}"
        );
        assert!(
            text.contains("var<storage, read_write> count: array<atomic<u32>>"),
            "{text}"
        );
        let r = out.reflection.as_ref().expect("asked for");
        let place = |name: &str| {
            let w = r
                .resource(name)
                .and_then(|x| x.wgsl.clone())
                .expect("a wgsl place");
            assert!(w.storage_buffer, "`{name}` is reported as a storage buffer");
            (w.group, w.binding)
        };
        let words = naga_spirv(text).expect("naga writes SPIR-V");
        let mut wg = vec![
            Binding::new(
                place("src").0,
                place("src").1,
                Resource::StorageBuffer(src_texels()),
            ),
            Binding::new(
                place("pairs").0,
                place("pairs").1,
                Resource::StorageBuffer(pairs_texels()),
            ),
            Binding::new(
                place("count").0,
                place("count").1,
                Resource::StorageBuffer(vec![0; 4]),
            ),
            Binding::new(
                place("signed_out").0,
                place("signed_out").1,
                Resource::StorageBuffer(vec![0; 4]),
            ),
        ];
        gpu.try_dispatch(&words, "main", &mut wg, &[], [1, 1, 1])
            .unwrap_or_else(|e| panic!("WGSL {level:?}: {e}"));
        assert_eq!(wg[1].words(), &want_pairs[..], "WGSL {level:?}");
        assert_eq!(wg[2].words(), &want_count[..], "WGSL {level:?}");
        assert_eq!(wg[3].words(), &want_signed[..], "WGSL {level:?}");
    }
}

#[test]
fn texel_buffers_without_a_storage_buffer_form_stay_refused_and_others_are_not_reported() {
    let refused = [
        // A 3-component texel: 12 bytes in the texel buffer, a 16-byte stride in a storage
        // buffer.
        "RWBuffer<float3> b : register(u0);\n[numthreads(1,1,1)] void main() { b[0] = 1.0.xxx; }\n",
        // A narrower format than the element's.
        "[[vk::image_format(\"rgba8\")]] RWBuffer<float4> b : register(u0);\n[numthreads(1,1,1)] void main() { b[0] = 1.0.xxxx; }\n",
    ];
    for src in refused {
        let opts = CompileOptions::new("cs_6_0")
            .target(Target::Wgsl)
            .with_reflection();
        let e = Compiler::new()
            .compile_source("t.hlsl", src, &opts)
            .expect_err("WGSL refuses it");
        let r = e.diagnostics.render();
        assert!(
            r.contains("error[OSB0204]") && r.contains("texel buffer"),
            "{r}"
        );
        let out = Compiler::new()
            .compile_source(
                "t.hlsl",
                src,
                &CompileOptions::new("cs_6_0").with_reflection(),
            )
            .expect("SPIR-V takes it");
        let w = out.reflection.expect("asked").resources[0].wgsl.clone();
        assert!(w.is_none_or(|w| !w.storage_buffer), "{src}");
    }
    // A structured buffer is never reported as a converted texel buffer, and the JSON of
    // other resources does not change.
    let out = Compiler::new()
        .compile_source(
            "t.hlsl",
            "RWStructuredBuffer<uint> b : register(u0);\n[numthreads(1,1,1)] void main() { b[0] = 1; }\n",
            &CompileOptions::new("cs_6_0").with_reflection(),
        )
        .expect("compiles");
    let json = out.reflection.expect("asked").to_json();
    assert!(!json.contains("storage_buffer\": true"), "{json}");
}
