//! Refusals carry the HLSL position of what they refuse (issue 30 item 3): a derivative in a
//! stage without derivatives points at the `ddx` in every backend, and a missing entry point
//! at the file.

use oneshader::{CompileOptions, Compiler, Target};

/// The rendered diagnostics of a compilation that must fail.
fn refused(src: &str, opts: &CompileOptions) -> String {
    match Compiler::new().compile_source("r.hlsl", src, opts) {
        Ok(_) => panic!("compiled"),
        Err(e) => e.diagnostics.render(),
    }
}

#[test]
fn a_derivative_without_derivatives_is_refused_at_the_ddx_in_every_backend() {
    // numthreads(1,1,1): no SPIR-V or GLSL derivative group fits; WGSL and MSL have
    // derivatives in fragment shaders only.
    let src = "RWBuffer<float> b : register(u0);\n[numthreads(1,1,1)] void main(uint i : SV_DispatchThreadID) {\n  b[i] = ddx(b[i]);\n}\n";
    for (target, code) in [
        (Target::Spirv, "OSB0011"),
        (Target::Glsl, "OSB0110"),
        (Target::Wgsl, "OSB0209"),
        (Target::Msl, "OSB0309"),
    ] {
        let e = refused(src, &CompileOptions::new("cs_6_0").target(target));
        assert!(
            e.contains(&format!("r.hlsl:3:10: error[{code}]")),
            "{target}: at `ddx`: {e}"
        );
        // The summary counts; it does not repeat the refusal.
        assert_eq!(e.matches(code).count(), 1, "{target}: once: {e}");
    }
}

#[test]
fn a_derivative_in_a_vertex_shader_is_refused_at_the_sample() {
    let src = "Texture2D t : register(t0); SamplerState s : register(s0);\nfloat4 main(float2 uv : TEXCOORD) : SV_Position {\n  return t.Sample(s, uv);\n}\n";
    let e = refused(src, &CompileOptions::new("vs_6_0"));
    // `Sample` is implicit-LOD: at the call.
    assert!(e.contains("r.hlsl:3:10: error[OSB0011]"), "{e}");
}

#[test]
fn a_missing_entry_point_of_an_empty_file_is_at_the_file() {
    let e = refused("", &CompileOptions::new("ps_6_0"));
    assert!(
        e.contains("r.hlsl:1:1: error[OSH1020]: the entry point `main` is not defined"),
        "{e}"
    );
}

#[test]
fn a_switch_with_too_many_cases_is_refused_at_its_selector() {
    let mut src = String::from(
        "RWBuffer<uint> b : register(u0);\n[numthreads(1,1,1)] void main() {\n  switch (b[0]) {\n",
    );
    for i in 0..16400 {
        src.push_str(&format!("  case {i}: b[1] = {i}; break;\n"));
    }
    src.push_str("  }\n}\n");
    let e = refused(
        &src,
        &CompileOptions::new("cs_6_0").opt_level(oneshader::OptLevel::O0),
    );
    assert!(
        e.contains("r.hlsl:3:11: error[OSB0010]"),
        "{}",
        &e[..e.len().min(400)]
    );
}

#[test]
fn a_refused_global_or_function_is_refused_at_its_declaration_in_every_text_backend() {
    // Globals carry their declaration (the name token) as their IR position.
    let src = "RWStructuredBuffer<double> b : register(u0);\n[numthreads(1,1,1)] void main() { b[0] = b[1] * 2.0; }\n";
    for (target, code) in [(Target::Wgsl, "OSB0204"), (Target::Msl, "OSB0304")] {
        let e = refused(src, &CompileOptions::new("cs_6_0").target(target));
        assert!(
            e.contains(&format!("r.hlsl:1:28: error[{code}]: global @b")),
            "{target}: {e}"
        );
    }
    // A refusal of a function as a whole is at its name.
    let e = refused(src, &CompileOptions::new("cs_6_0").target(Target::Wgsl));
    assert!(
        e.contains("r.hlsl:2:26: error[OSB0204]: function @main"),
        "{e}"
    );
    // A stage variable is declared by the parameter it stands for.
    let src =
        "float4 main([[vk::location(5000)]] float4 p : POSITION) : SV_Position { return p; }\n";
    let e = refused(src, &CompileOptions::new("vs_6_0").target(Target::Glsl));
    assert!(
        e.contains("r.hlsl:1:43: error[OSB0112]: global @in.var.POSITION"),
        "{e}"
    );
}

/// A `cbuffer` of `n` `float` members `m0`..: declared on line 2 at column 9 (its name).
fn big_cbuffer(n: usize) -> String {
    let mut src = String::from("RWBuffer<float> o : register(u0);\ncbuffer Big : register(b0) {\n");
    for i in 0..n {
        src.push_str(&format!("  float m{i};\n"));
    }
    src.push_str(&format!(
        "}};\n[numthreads(1,1,1)] void main() {{ o[0] = m0 + m{}; }}\n",
        n - 1
    ));
    src
}

/// Issue 30 item 3: an instruction over SPIR-V's 65535 words that a declaration made (the
/// struct type of a `cbuffer` of 100,000 members) is OSB0010 naming the declaration, at its
/// name; before declarations carried positions it had none.
#[test]
fn an_oversized_cbuffer_is_refused_at_its_declaration() {
    let e = refused(&big_cbuffer(100_000), &CompileOptions::new("cs_6_0"));
    assert!(
        e.contains("r.hlsl:2:9: error[OSB0010]: global @Big: an `OpTypeStruct` instruction"),
        "{}",
        &e[..e.len().min(600)]
    );
    assert_eq!(e.matches("OSB0010").count(), 1, "once: {e}");
}

/// The same through `oneshader compile`: the printed diagnostic has the file, line and column.
#[test]
fn the_cli_prints_the_position_of_an_oversized_cbuffer() {
    let dir = std::env::temp_dir().join(format!(
        "oneshader-refusal-positions-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("big.hlsl");
    std::fs::write(&file, big_cbuffer(100_000)).expect("write");
    let out = dir.join("big.spv");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_oneshader"))
        .args(["compile"])
        .arg(&file)
        .args(["-T", "cs_6_0", "-E", "main", "-Fo"])
        .arg(&out)
        .output()
        .expect("the binary runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "refused: {err}");
    assert!(
        err.contains("big.hlsl:2:9: error[OSB0010]: global @Big"),
        "{}",
        &err[..err.len().min(600)]
    );
    let _ = std::fs::remove_dir_all(&dir);
}
