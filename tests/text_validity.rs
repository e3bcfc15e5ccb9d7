//! Outputs of the text backends that a validator rejected or that a backend refused although
//! the target can state them (issue 29): a unary minus on an unsigned value in WGSL, a switch
//! case that falls into `default` in GLSL and MSL, a fragment shader reading `SV_Position` at
//! sample rate in MSL. Each is compiled to every text target at `-O0` and `-O`, validated
//! (glslang and spirv-val, naga, clang against the stand-in `<metal_stdlib>` with the
//! interface compared to spirv-cross's), and the compute ones executed through the
//! differential oracle on lavapipe with their values checked.
//!
//! The tests fail (never skip) when a tool, the Vulkan loader or lavapipe is missing, with a
//! message naming `cargo xtask setup`.

use oneshader::{CompileOptions, Compiler, OptLevel, Target};
use oneshader_oracle::{Case, Inputs, Oracle, Rules, Source, Voice};
use oneshader_test_tools::{GlslStage, glslang_and_validate, msl_check, naga_validate};
use oneshader_vulkan_harness::{Binding, Gpu, Resource};

/// The text of `src`'s `main` for `target` at `level`, or the rendered diagnostics.
fn text(src: &str, profile: &str, target: Target, level: OptLevel) -> Result<String, String> {
    let opts = CompileOptions::new(profile).opt_level(level).target(target);
    let out = Compiler::new()
        .compile_source("t.hlsl", src, &opts)
        .map_err(|e| e.diagnostics.render())?;
    Ok(match target {
        Target::Wgsl => out.wgsl.expect("WGSL text"),
        Target::Glsl => out.glsl.expect("GLSL text"),
        Target::Msl => out.msl.expect("MSL text"),
        _ => unreachable!("text targets only"),
    })
}

/// Our SPIR-V of `src` at `level`.
fn spirv(src: &str, profile: &str, level: OptLevel) -> Vec<u32> {
    Compiler::new()
        .compile_source(
            "t.hlsl",
            src,
            &CompileOptions::new(profile).opt_level(level),
        )
        .unwrap_or_else(|e| panic!("SPIR-V: {}", e.diagnostics.render()))
        .spirv
}

/// GLSL and MSL of `src` at `-O0` and `-O` (and WGSL unless `wgsl` is false), each accepted
/// by its validator; returns the `-O0` GLSL, MSL and WGSL (empty when not asked).
fn validated(src: &str, profile: &str, stage: GlslStage, wgsl: bool) -> (String, String, String) {
    let mut first = None;
    for level in [OptLevel::O0, OptLevel::O] {
        let glsl = text(src, profile, Target::Glsl, level)
            .unwrap_or_else(|e| panic!("GLSL ({level:?}): {e}"));
        glslang_and_validate(&glsl, stage)
            .unwrap_or_else(|e| panic!("glslang rejects the GLSL ({level:?}):\n{e}\n{glsl}"));
        let msl = text(src, profile, Target::Msl, level)
            .unwrap_or_else(|e| panic!("MSL ({level:?}): {e}"));
        msl_check(&msl, &spirv(src, profile, level), "main")
            .unwrap_or_else(|e| panic!("the MSL fails its checks ({level:?}):\n{e}"));
        let w = if wgsl {
            let w = text(src, profile, Target::Wgsl, level)
                .unwrap_or_else(|e| panic!("WGSL ({level:?}): {e}"));
            naga_validate(&w)
                .unwrap_or_else(|e| panic!("naga rejects the WGSL ({level:?}):\n{e}\n{w}"));
            w
        } else {
            String::new()
        };
        if first.is_none() {
            first = Some((glsl, msl, w));
        }
    }
    first.expect("two levels ran")
}

/// Runs `src`'s `main` (`groups` workgroups, storage buffer `u0` of `words` words) through
/// our SPIR-V, GLSL and (when `wgsl`) WGSL voices at `-O0` and `-O`, asserts that they agree
/// and returns each voice's buffer.
fn run(name: &str, src: &str, words: usize, wgsl: bool) -> Vec<(Voice, Vec<u32>)> {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join(format!("{name}.hlsl"));
    std::fs::write(&path, src).expect("the shader is written");
    let source = Source::Hlsl {
        path,
        options: CompileOptions::new("cs_6_0"),
    };
    let mut voices = vec![Voice::spirv(OptLevel::O0), Voice::spirv(OptLevel::O)];
    if oneshader_oracle::voice::GLSL_AVAILABLE {
        voices.push(Voice::Glsl {
            level: OptLevel::O0,
        });
        voices.push(Voice::Glsl { level: OptLevel::O });
    }
    if wgsl {
        voices.push(Voice::Wgsl {
            level: OptLevel::O0,
        });
        voices.push(Voice::Wgsl { level: OptLevel::O });
    }
    let case = Case::new(name, source).unwrap_or_else(|e| panic!("{name}: {e}"));
    let inputs = Inputs::new(
        vec![Binding::new(0, 0, Resource::StorageBuffer(vec![0; words]))],
        Vec::new(),
        [1, 1, 1],
    );
    let gpu = Gpu::new();
    let report = Oracle::new(&gpu)
        .run(&case, &voices, &inputs, &Rules::new())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    report.assert_agreement();
    report
        .runs
        .into_iter()
        .map(|r| (r.voice, r.outputs[0].words().to_vec()))
        .collect()
}

/// WGSL has no unary minus on `u32`: `-x` of an unsigned `x` is printed `u32() - x` (the same
/// wrapping negation), which naga takes, and every voice computes -(id + 5) and its
/// conversions.
#[test]
fn negating_an_unsigned_value_is_valid_wgsl() {
    let src = "RWStructuredBuffer<uint> o : register(u0);\n\
               [numthreads(1,1,1)] void main(uint3 id : SV_DispatchThreadID) {\n\
                   uint x = id.x + 5u;\n\
                   uint2 v = uint2(x, x + 1u);\n\
                   o[0] = (uint)int(-x);\n\
                   uint2 n = -v;\n\
                   o[1] = n.y;\n\
               }\n";
    let (_glsl, _msl, wgsl) = validated(src, "cs_6_0", GlslStage::Compute, true);
    assert!(!wgsl.contains("-x") || wgsl.contains("u32() - "), "{wgsl}");
    for (voice, words) in run("neg_unsigned", src, 2, true) {
        assert_eq!(words, [5u32.wrapping_neg(), 6u32.wrapping_neg()], "{voice}");
    }
}

/// A case that falls into `default` which comes before another case: C-like GLSL and MSL
/// print the fall-through by ordering the default right after the case that falls into it.
#[test]
fn a_case_falling_into_default_is_printed_in_glsl_and_msl() {
    let src = "RWStructuredBuffer<uint> o : register(u0);\n\
               [numthreads(1,1,1)] void main(uint3 id : SV_DispatchThreadID) {\n\
                   for (uint k = 0; k < 4; k++) {\n\
                       uint r = 0;\n\
                       switch (id.x + k) {\n\
                           case 0: r += 1;\n\
                           default: r += 10; break;\n\
                           case 2: r += 100; break;\n\
                       }\n\
                       o[k] = r;\n\
                   }\n\
               }\n";
    let wgsl = text(src, "cs_6_0", Target::Wgsl, OptLevel::O0);
    let wgsl_ok = wgsl.is_ok();
    let (glsl, msl, _) = validated(src, "cs_6_0", GlslStage::Compute, wgsl_ok);
    assert!(glsl.contains("default:"), "{glsl}");
    assert!(msl.contains("default:"), "{msl}");
    for (voice, words) in run("fall_into_default", src, 4, wgsl_ok) {
        assert_eq!(words, [11, 10, 100, 10], "{voice}");
    }
}

/// `sample` on `SV_Position`: the MSL fragment function takes `[[sample_id]]` (read or not),
/// which makes Metal shade per sample, as spirv-cross's does (the interface check compares
/// the two).
#[test]
fn msl_shades_per_sample_when_the_position_is_read_at_sample_rate() {
    let src = "float4 main(sample float4 pos : SV_Position) : SV_Target { return pos * 0.5f; }\n";
    let (_glsl, msl, _wgsl) = validated(src, "ps_6_0", GlslStage::Fragment, true);
    assert!(msl.contains("[[sample_id]]"), "{msl}");
}

/// WGSL's `*` on two matrices is the matrix product and it has no `/`, `%` or unary minus on
/// matrices: HLSL's component-wise `/`, `%` (and `/=`) and negation of a matrix are printed
/// row by row (corpus `binary-op.arithmetic.matrix`, `binary-op.arith-assign.matrix`,
/// `hlsl.scalar2matrix.frag`, `unary-op.minus`, which naga rejected at `-O0`), and every
/// voice computes them.
#[test]
fn matrix_division_remainder_and_negation_are_valid_wgsl() {
    let src = "RWStructuredBuffer<uint> o : register(u0);\n\
               [numthreads(1,1,1)] void main(uint3 id : SV_DispatchThreadID) {\n\
                   float x = (float)id.x;\n\
                   float2x2 m = float2x2(x + 6.0f, 8.0f, 9.0f, 10.0f);\n\
                   float2x2 n = float2x2(4.0f, x + 2.0f, 4.0f, 4.0f);\n\
                   float2x2 d = m / n;\n\
                   float2x2 r = m % n;\n\
                   float2x2 g = -m;\n\
                   m /= 2.0f;\n\
                   o[0] = asuint(d[0][0]); o[1] = asuint(d[0][1]);\n\
                   o[2] = asuint(d[1][0]); o[3] = asuint(d[1][1]);\n\
                   o[4] = asuint(r[0][0]); o[5] = asuint(r[1][1]);\n\
                   o[6] = asuint(g[0][1]); o[7] = asuint(m[1][0]);\n\
               }\n";
    let (_glsl, _msl, wgsl) = validated(src, "cs_6_0", GlslStage::Compute, true);
    assert!(!wgsl.contains("-m;"), "{wgsl}");
    let want: Vec<u32> = [1.5f32, 4.0, 2.25, 2.5, 2.0, 2.0, -8.0, 4.5]
        .iter()
        .map(|f| f.to_bits())
        .collect();
    for (voice, words) in run("matrix_div_rem_neg", src, 8, true) {
        assert_eq!(words, want, "{voice}");
    }
}

/// A function whose only `return` is inside a loop that never exits (`do { return x; }
/// while (c);`): naga puts a `return;` after a last statement that is a loop, so the WGSL
/// ends such a loop with an unreachable `return T();` (corpus `hlsl.doLoop.frag`, which naga
/// rejected at `-O0`), and every voice computes the value.
#[test]
fn a_return_inside_an_endless_loop_is_valid_wgsl() {
    let src = "RWStructuredBuffer<uint> o : register(u0);\n\
               uint f(uint v) { do { return v * 3u; } while (v > 2u); }\n\
               [numthreads(1,1,1)] void main(uint3 id : SV_DispatchThreadID) {\n\
                   o[0] = f(id.x + 5u);\n\
               }\n";
    let (_glsl, _msl, wgsl) = validated(src, "cs_6_0", GlslStage::Compute, true);
    assert!(wgsl.contains("loop {"), "{wgsl}");
    for (voice, words) in run("return_in_endless_loop", src, 1, true) {
        assert_eq!(words, [15], "{voice}");
    }
}

/// WGSL's `normalize` takes vectors only: the normalize of a scalar is `x / abs(x)` (corpus
/// `intrinsics.normalize`, which naga rejected at `-O0`), -1.0 for a negative value.
#[test]
fn normalize_of_a_scalar_is_valid_wgsl() {
    let src = "RWStructuredBuffer<uint> o : register(u0);\n\
               [numthreads(1,1,1)] void main(uint3 id : SV_DispatchThreadID) {\n\
                   float x = -((float)id.x + 3.0f);\n\
                   o[0] = asuint(normalize(x));\n\
                   o[1] = asuint(normalize(-x));\n\
               }\n";
    let (_glsl, _msl, wgsl) = validated(src, "cs_6_0", GlslStage::Compute, true);
    assert!(wgsl.contains("abs("), "{wgsl}");
    for (voice, words) in run("normalize_scalar", src, 2, true) {
        assert_eq!(words, [(-1.0f32).to_bits(), 1.0f32.to_bits()], "{voice}");
    }
}

/// What WGSL cannot state is refused by name at `-O0` (naga rejected the WGSL printed before):
/// a gather with sparse-residency feedback (corpus `texture.gather`), a sample of a texture
/// whose texel is a struct (`hlsl.texture.struct.frag`), and one struct in a constant buffer
/// and a structured buffer whose layouts give its nested arrays different strides
/// (`binary-op.assign.composite`), and a sample of a texture of integer texels
/// (`hlsl.sample.basic.dx10.frag` and its nine siblings: WGSL samples float textures only).
#[test]
fn wgsl_refuses_sparse_gathers_struct_texels_and_structs_under_two_layouts() {
    let cases = [
        (
            "Texture2D<int4> t : register(t0);\n\
             SamplerState s : register(s0);\n\
             float4 main(float2 uv : TEXCOORD0) : SV_Target { return float4(t.Sample(s, uv)); }\n",
            "OSB0208",
            "integer texels",
        ),
        (
            "Texture2D<int4> t : register(t0);\n\
             SamplerState s : register(s0);\n\
             float4 main(float2 uv : TEXCOORD0) : SV_Target {\n\
                 uint status;\n\
                 int4 v = t.Gather(s, uv, int2(1, 2), status);\n\
                 return float4(v) + (float)status;\n\
             }\n",
            "OSB0208",
            "sparse residency",
        ),
        (
            "struct S { float a; float2 b; float c; };\n\
             Texture2D<S> t : register(t0);\n\
             SamplerState s : register(s0);\n\
             S f() { return t.Sample(s, float2(0.5f, 0.5f)); }\n\
             float4 main() : SV_Target { S x = f(); return float4(x.a, x.b, x.c); }\n",
            "OSB0208",
            "texel is a struct",
        ),
        (
            "struct Sub { float a[1]; float2 b[1]; };\n\
             struct B { float a; Sub d[1]; };\n\
             RWStructuredBuffer<B> sb : register(u0);\n\
             ConstantBuffer<B> cb : register(b0);\n\
             float4 main() : SV_Target { sb[1] = sb[0]; Sub x = cb.d[0]; return x.a[0]; }\n",
            "OSB0205",
            "a WGSL struct has one layout",
        ),
    ];
    for (src, code, what) in cases {
        let err =
            text(src, "ps_6_0", Target::Wgsl, OptLevel::O0).expect_err("WGSL cannot state it");
        assert!(err.contains(code), "{code} expected:\n{err}");
        assert!(err.contains(what), "`{what}` expected:\n{err}");
    }
}

/// Metal's cube gathers take no texel offset (`t.gather(s, c, component::y)`, and for cube
/// arrays `t.gather(s, c, layer, component::y)`); the MSL printed `int2(0)` before the
/// component, which Metal (and clang against the stand-in header) rejects (corpus
/// `hlsl.gather.basic.dx10.frag`, `hlsl.gatherRGBA.array.dx10.frag`).
#[test]
fn msl_cube_gathers_take_no_offset() {
    let src = "TextureCube<float4> t : register(t0);\n\
               TextureCubeArray<float4> ta : register(t1);\n\
               SamplerState s : register(s0);\n\
               float4 main(float3 d : TEXCOORD0) : SV_Target {\n\
                   return t.GatherGreen(s, d) + ta.GatherRed(s, float4(d, 1.0f));\n\
               }\n";
    let (_glsl, msl, _wgsl) = validated(src, "ps_6_0", GlslStage::Fragment, false);
    assert!(msl.contains("component::y)"), "{msl}");
    assert!(!msl.contains("int2(0), component"), "{msl}");
}

/// A compare-exchange on workgroup memory carries its scope in GLSL
/// (GL_KHR_memory_scope_semantics), where `atomicCompSwap` takes the semantics of both the
/// equal and the unequal case: 8 arguments, not the 6 of the other atomics (corpus
/// `intrinsics.64bit-interlocked-methods.cs`, which glslang rejected).
#[test]
fn compare_exchange_on_workgroup_memory_is_valid_glsl() {
    let src = "RWStructuredBuffer<uint> o : register(u0);\n\
               groupshared uint g;\n\
               [numthreads(1,1,1)] void main(uint3 id : SV_DispatchThreadID) {\n\
                   g = 7;\n\
                   GroupMemoryBarrierWithGroupSync();\n\
                   uint was;\n\
                   InterlockedCompareExchange(g, 7, id.x + 9, was);\n\
                   uint again;\n\
                   InterlockedCompareExchange(g, 7, 100, again);\n\
                   GroupMemoryBarrierWithGroupSync();\n\
                   o[0] = was; o[1] = again; o[2] = g;\n\
               }\n";
    let (glsl, _msl, _wgsl) = validated(src, "cs_6_0", GlslStage::Compute, true);
    assert!(glsl.contains("gl_ScopeWorkgroup, 0, 0, 0, 0)"), "{glsl}");
    for (voice, words) in run("cmpxchg_workgroup", src, 3, true) {
        // The first exchange finds 7 and writes 9; the second finds 9 and writes nothing.
        assert_eq!(words, [7, 9, 9], "{voice}");
    }
}
