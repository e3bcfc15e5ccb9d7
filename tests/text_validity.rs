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
