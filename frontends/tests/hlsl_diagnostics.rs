//! Diagnostics for the common user errors: each has a stable code, the user's line and column,
//! the source line with a caret, and no cascade of follow-on errors.

mod sema_common;

use oneshader_frontends::hlsl;
use oneshader_ir::Stage;
use sema_common::{compile_with, errors, opts};

/// The number of `error[` lines in rendered diagnostics.
fn error_count(rendered: &str) -> usize {
    rendered.matches("error[").count()
}

#[test]
fn undefined_name_points_at_the_name() {
    let out = errors(
        "float4 main() : SV_Target {\n    float4 c = colour * 2;\n    return c;\n}\n",
        "ps_6_0",
    );
    assert!(
        out.contains("main.hlsl:2:16: error[OSH1001]: undefined name `colour`"),
        "{out}"
    );
    assert!(out.contains("    float4 c = colour * 2;\n"), "{out}");
    assert!(out.contains("               ^^^^^^"), "{out}");
    // The erroneous expression does not cascade into a type error.
    assert_eq!(error_count(&out), 1, "{out}");
}

#[test]
fn no_matching_overload_lists_the_candidates() {
    let out = errors(
        "struct S { float a; };\n\
         float f(float x) { return x; }\n\
         float f(float2 x, float y) { return x.x + y; }\n\
         float4 main() : SV_Target { S s; return f(s); }\n",
        "ps_6_0",
    );
    assert!(
        out.contains("error[OSH1003]: no overload of `f` matches the arguments (S)"),
        "{out}"
    );
    assert!(out.contains("= note: candidate: float f(float)"), "{out}");
    assert!(
        out.contains("= note: candidate: float f(float2, float)"),
        "{out}"
    );
    let out = errors(
        "float4 main(float4 v : V) : SV_Target { return cross(v, v); }\n",
        "ps_6_0",
    );
    assert!(
        out.contains("error[OSH1003]: no overload of `cross`"),
        "{out}"
    );
    assert!(
        out.contains("= note: `cross` takes two float3 vectors"),
        "{out}"
    );
}

#[test]
fn wrong_semantics_are_reported_per_stage() {
    let out = errors(
        "RWStructuredBuffer<uint> b;\n[numthreads(1, 1, 1)]\nvoid main(uint id : TEXCOORD0) { b[0] = id; }\n",
        "cs_6_0",
    );
    assert!(out.contains("error[OSH1023]"), "{out}");
    assert!(
        out.contains("`TEXCOORD` is not a compute-shader input"),
        "{out}"
    );
    assert!(out.contains("main.hlsl:3:21"), "{out}");
    // In a vertex shader, a pixel-shader system value is a warning (glslang accepts it as a
    // user varying; DXC rejects it): the shader still compiles.
    let (r, out) = compile_with(
        "float4 main(float4 p : POSITION) : SV_Target0 { return p; }\n",
        &opts("vs_6_0", "main"),
    );
    assert!(r.module.is_some(), "{out}");
    assert!(
        out.contains("warning[OSH1023]: `SV_TARGET` is not a valid vertex shader output semantic"),
        "{out}"
    );
}

#[test]
fn type_mismatches_and_assignments() {
    let out = errors(
        "struct Light { float3 dir; };\n\
         Texture2D t;\n\
         float4 main() : SV_Target {\n\
         \x20   Light l;\n\
         \x20   float4 c = l;\n\
         \x20   const float k = 1;\n\
         \x20   k = 2;\n\
         \x20   t = t;\n\
         \x20   return c;\n\
         }\n",
        "ps_6_0",
    );
    assert!(
        out.contains("main.hlsl:5:16: error[OSH1005]: cannot convert from `Light` to `float4`"),
        "{out}"
    );
    assert!(
        out.contains("main.hlsl:7:5: error[OSH1008]: `k` is const"),
        "{out}"
    );
    assert!(
        out.contains("error[OSH1008]: a resource cannot be assigned"),
        "{out}"
    );
    assert_eq!(error_count(&out), 3, "{out}");
}

#[test]
fn several_errors_in_one_run() {
    let out = errors(
        "float4 main(float2 uv : TEXCOORD0) : SV_Target {\n\
         \x20   float a = missing1;\n\
         \x20   float b = uv.xyzw;\n\
         \x20   float c = undefined_fn(a);\n\
         \x20   break;\n\
         \x20   return a;\n\
         }\n",
        "ps_6_0",
    );
    assert!(
        out.contains("2:15: error[OSH1001]: undefined name `missing1`"),
        "{out}"
    );
    assert!(
        out.contains("3:18: error[OSH1009]: swizzle `.xyzw` reads past the 2 component(s)"),
        "{out}"
    );
    assert!(
        out.contains("4:15: error[OSH1001]: undefined function `undefined_fn`"),
        "{out}"
    );
    assert!(
        out.contains("5:5: error[OSH1014]: `break` outside a loop or switch"),
        "{out}"
    );
    assert_eq!(error_count(&out), 4, "{out}");
}

#[test]
fn stages_entry_points_and_recursion() {
    for (profile, stage) in [
        ("gs_6_0", Stage::Geometry),
        ("hs_6_0", Stage::Hull),
        ("ds_6_0", Stage::Domain),
        ("ms_6_5", Stage::Mesh),
        ("as_6_5", Stage::Amplification),
    ] {
        assert_eq!(
            hlsl::parse_profile(profile).expect(profile),
            hlsl::Profile::Stage(stage)
        );
    }
    assert_eq!(
        hlsl::parse_profile("lib_6_3").expect("library"),
        hlsl::Profile::Library
    );
    // Mesh shading arrived in shader model 6.5.
    let d = hlsl::parse_profile("ms_6_4").expect_err("ms_6_4");
    assert_eq!(d.code, "OSH1021");
    assert!(
        d.message.starts_with("mesh shaders need shader model 6.5"),
        "{}",
        d.message
    );
    assert_eq!(
        hlsl::parse_profile("ps_6").expect_err("malformed").code,
        "OSH1022"
    );
}

/// Shader models DXC knows (6.0 to 6.10, `lib_6_x`) and fxc's 5.0/5.1 compile; unknown
/// models are refused instead of being compiled as something else.
#[test]
fn unknown_shader_models_are_refused() {
    for ok in [
        "cs_6_0", "ps_6_10", "vs_5_0", "cs_5_1", "hs_5_0", "lib_6_x", "lib_6_1", "ms_6_5",
    ] {
        assert!(hlsl::parse_profile(ok).is_ok(), "{ok} refused");
    }
    for bad in [
        "cs_9_9", "ps_4_0", "vs_6_11", "cs_7_0", "lib_6_0", "lib_5_0", "ps_6_x", "ms_5_0",
    ] {
        let d = hlsl::parse_profile(bad).expect_err(bad);
        assert_eq!(d.code, "OSH1022", "{bad}: {}", d.message);
        assert!(d.message.contains(bad), "{}", d.message);
    }
    let out = errors("float4 PSMain() : SV_Target { return 0; }\n", "ps_6_0");
    assert!(
        out.contains("error[OSH1020]: the entry point `main` is not defined"),
        "{out}"
    );
    let out = errors(
        "int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }\n\
         float4 main() : SV_Target { return fact(4); }\n",
        "ps_6_0",
    );
    assert!(out.contains("error[OSH1027]: `fact` is recursive"), "{out}");
}

#[test]
fn macro_expanded_errors_point_at_the_use() {
    let out = errors(
        "#define SCALE(x) ((x) * gain)\nfloat4 main(float4 c : COLOR) : SV_Target { return SCALE(c); }\n",
        "ps_6_0",
    );
    assert!(
        out.contains("error[OSH1001]: undefined name `gain`"),
        "{out}"
    );
    assert!(out.contains("main.hlsl:2:"), "{out}");
    assert!(
        out.contains("= note: in expansion of macro `SCALE`"),
        "{out}"
    );
}

#[test]
fn every_semantic_analysis_code_is_documented() {
    let root = env!("CARGO_MANIFEST_DIR");
    let doc = std::fs::read_to_string(format!("{root}/../docs/diagnostics.md")).expect("docs");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(format!("{root}/src/hlsl")).expect("src/hlsl") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("source");
        let mut rest = text.as_str();
        while let Some(i) = rest.find("OSH1") {
            let code: String = rest[i..].chars().take(7).collect();
            if code.len() == 7
                && code[3..].chars().all(|c| c.is_ascii_digit())
                && !doc.contains(&format!("| `{code}` |"))
                && !missing.contains(&code)
            {
                missing.push(code);
            }
            rest = &rest[i + 4..];
        }
    }
    assert!(missing.is_empty(), "undocumented codes: {missing:?}");
}

/// `errorf`, which has no SPIR-V form, is refused with the reason rather than dropped without
/// a word (issue 26, item 6: a dropped print is a silent change; `printf` is compiled, see
/// tests/debug_printf.rs), and `noise`, which has no defined result, says so.
#[test]
fn errorf_and_noise_are_refused_with_the_reason() {
    let out = errors(
        "RWStructuredBuffer<float> o;\n[numthreads(1, 1, 1)] void main() {\n    errorf(\"%d\", 1);\n    o[0] = 1.0;\n}\n",
        "cs_6_0",
    );
    assert!(
        out.contains("main.hlsl:3:5: error[OSH1018]: the intrinsic `errorf` is not supported: it has no SPIR-V form"),
        "{out}"
    );
    assert_eq!(error_count(&out), 1, "{out}");
    let out = errors(
        "RWStructuredBuffer<float> o;\n[numthreads(1, 1, 1)] void main() { o[0] = noise(0.5); }\n",
        "cs_6_0",
    );
    assert!(
        out.contains("main.hlsl:2:44: error[OSH1018]: the intrinsic `noise` is not supported: it has no defined result"),
        "{out}"
    );
}

/// A `vk::SampledTexture*` is a global: an array of them, a local, a parameter and a return
/// value are each refused at their place, naming the type.
#[test]
fn sampled_textures_outside_globals_are_refused_by_name() {
    let out = errors(
        "vk::SampledTexture2D<float4> arr[2];\n\
         float4 f(vk::SampledTexture2D<float4> p) { return 0; }\n\
         vk::SampledTexture2D<float4> g();\n\
         float4 main() : SV_Target { vk::SampledTexture2D<float4> l; return 0; }\n",
        "ps_6_0",
    );
    assert!(
        out.contains("main.hlsl:1:30: error[OSH1018]: arrays of `vk::SampledTexture2D<float4>`"),
        "{out}"
    );
    assert!(
        out.contains(
            "main.hlsl:2:39: error[OSH1018]: a parameter of type `vk::SampledTexture2D<float4>`"
        ),
        "{out}"
    );
    assert!(
        out.contains("main.hlsl:3:1: error[OSH1018]: returning a `vk::SampledTexture2D<float4>`"),
        "{out}"
    );
    assert!(
        out.contains(
            "main.hlsl:4:58: error[OSH1018]: `vk::SampledTexture2D<float4>` is not supported"
        ),
        "{out}"
    );
}

/// A resource variable given a resource on one path only, a function returning different
/// resources on a path known only at run time, and one returning a resource indexed by its
/// own local are refused at the use or the call, naming the variable or function and why.
#[test]
fn resources_chosen_at_run_time_are_refused() {
    let out = errors(
        "RWStructuredBuffer<float> a;\n\
         RWStructuredBuffer<float> b;\n\
         RWStructuredBuffer<float> arr[4];\n\
         cbuffer C { uint sel; }\n\
         RWStructuredBuffer<float> pick(uint k) { if (k > 0) return a; return b; }\n\
         RWStructuredBuffer<float> inner() { uint j = sel + 1; return arr[j]; }\n\
         [numthreads(1,1,1)] void main() {\n\
           RWStructuredBuffer<float> t = a;\n\
           if (sel > 0) t = b;\n\
           t[0] = 1;\n\
           pick(sel)[1] = 2;\n\
           inner()[2] = 3;\n\
           for (uint i = 0; i < sel; i++) { t[i] = 4; t = b; }\n\
         }\n",
        "cs_6_0",
    );
    assert!(
        out.contains("main.hlsl:10:1: error[OSH1040]: the resource variable `t` names different resources on different paths"),
        "{out}"
    );
    assert!(
        out.contains("main.hlsl:11:1: error[OSH1040]: the resource `pick` returns cannot be known when compiling: `pick` returns (or picks) a resource under a condition known only at run time"),
        "{out}"
    );
    assert!(
        out.contains("main.hlsl:12:1: error[OSH1040]: the resource `inner` returns cannot be known when compiling: `inner` indexes the resource it returns with a value computed inside it"),
        "{out}"
    );
    // The loop gives `t` another buffer each iteration: its use at the top of the body is refused.
    assert!(
        out.contains(
            "main.hlsl:13:34: error[OSH1040]: the resource variable `t` names different resources"
        ),
        "{out}"
    );
}

/// Templates (issue 26, item 3): an exported function template no function instantiates is
/// refused naming it (it used to give an empty library); a partial specialization is refused
/// by name; a call leaving out a default argument that does not convert for the instance
/// reports the default's error and the call.
#[test]
fn template_refusals_name_the_template() {
    let lib = "template<typename T> export T thrice(T x) { return x * 3; }\n";
    let (r, out) = compile_with(lib, &opts("lib_6_3", ""));
    assert!(r.module.is_none(), "{out}");
    assert!(
        out.contains(
            "main.hlsl:1:31: error[OSH1034]: the exported template `thrice` is never instantiated"
        ),
        "{out}"
    );
    // Instantiated by an exported function: both are exported.
    let (r, out) = compile_with(
        "template<typename T> export T thrice(T x) { return x * 3; }\n\
         export float f(float x) { return thrice(x); }\n",
        &opts("lib_6_3", ""),
    );
    assert!(r.module.is_some(), "{out}");
    let out = errors(
        "template<typename T, int N> struct S { T v[N]; };\n\
         template<typename T> struct S<T, 1> { T v; };\n\
         struct A { static A make() { A a; a.x = 1; return a; } uint x; };\n\
         struct B { uint y; };\n\
         template<typename R> uint get(R r = A::make()) { return 0; }\n\
         float4 main() : SV_Target { B b; b.y = 0; return get(b) + get<B>(); }\n",
        "ps_6_0",
    );
    assert!(
        out.contains(
            "main.hlsl:2:29: error[OSH1018]: the partial specialization of `S` is not supported"
        ),
        "{out}"
    );
    assert!(
        out.contains("main.hlsl:5:37: error[OSH1005]: cannot convert from `A` to `B`"),
        "{out}"
    );
    assert!(
        out.contains("main.hlsl:6:59: error[OSH1003]: `get<B>` leaves out `r`"),
        "{out}"
    );
    // `get(b)` gives the argument: no error of its own.
    assert_eq!(error_count(&out), 3, "{out}");
}

/// Returning a struct that holds resources and data is refused at the `return`, naming the
/// struct (a struct of resources only is returned, `tests/hlsl_exec.rs`).
#[test]
fn returning_a_struct_of_resources_and_data_is_refused() {
    let out = errors(
        "struct M { Texture2D t; float4 tint; };\n\
         Texture2D g;\n\
         M make() { M m; m.t = g; m.tint = 1; return m; }\n\
         float4 main() : SV_Target { return 0; }\n",
        "ps_6_0",
    );
    assert!(
        out.contains("main.hlsl:3:45: error[OSH1018]: returning `M`, a struct holding resources and data, is not supported"),
        "{out}"
    );
}
