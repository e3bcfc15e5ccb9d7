//! What only some stages may do, reached from an entry point of another stage, is the user's
//! mistake: a front-end error (OSH1033) at the HLSL position, the same in debug and release
//! builds, rather than an internal verifier failure (issue 30 item 3).

use oneshader::{CompileOptions, Compiler};

/// The rendered diagnostics of a compilation that must fail.
fn errors(src: &str, profile: &str) -> String {
    match Compiler::new().compile_source("s.hlsl", src, &CompileOptions::new(profile)) {
        Ok(_) => panic!("{profile}: compiled"),
        Err(e) => e.diagnostics.render(),
    }
}

#[test]
fn discard_in_a_compute_shader_is_an_error_at_the_discard() {
    let src = "RWBuffer<float> b : register(u0);\n[numthreads(1,1,1)] void main() { if (b[0] > 0) discard; b[1] = 1; }\n";
    let e = errors(src, "cs_6_0");
    assert!(e.contains("s.hlsl:2:"), "{e}");
    assert!(e.contains("error[OSH1033]"), "{e}");
    assert!(
        e.contains("discard"),
        "the message names the construct: {e}"
    );
    let col = e
        .split("s.hlsl:2:")
        .nth(1)
        .and_then(|r| r.split(':').next())
        .unwrap_or("");
    assert_eq!(col, "49", "at `discard`: {e}");
    for internal in ["OSH1040", "OSV0028", "OSC0052"] {
        assert!(!e.contains(internal), "not an internal error: {e}");
    }
}

#[test]
fn a_group_barrier_in_a_pixel_shader_is_an_error_at_the_call() {
    let src = "float4 main() : SV_Target {\n  GroupMemoryBarrierWithGroupSync();\n  return 1;\n}\n";
    let e = errors(src, "ps_6_0");
    assert!(e.contains("s.hlsl:2:3: error[OSH1033]"), "{e}");
    assert!(!e.contains("OSH1040") && !e.contains("OSV0028"), "{e}");
}

#[test]
fn groupshared_memory_in_a_pixel_shader_is_an_error_at_its_declaration() {
    let src = "groupshared float g[4];\nfloat4 main(float4 p : SV_Position) : SV_Target {\n  g[0] = p.x;\n  return g[0];\n}\n";
    let e = errors(src, "ps_6_0");
    // A global's IR position is its declaration (the name): where `groupshared` is written.
    assert!(e.contains("s.hlsl:1:19: error[OSH1033]"), "{e}");
    assert!(e.contains("`global @g`"), "the note names the global: {e}");
    assert!(!e.contains("OSH1040") && !e.contains("OSV0028"), "{e}");
}

#[test]
fn the_same_stage_rules_accept_each_construct_in_its_own_stage() {
    let c = Compiler::new();
    let ps = "float4 main(float4 p : SV_Position) : SV_Target { if (p.x > 1) discard; return 1; }";
    c.compile_source("ok.hlsl", ps, &CompileOptions::new("ps_6_0"))
        .expect("discard in a pixel shader");
    let cs = "groupshared float g[4]; RWBuffer<float> b : register(u0);\n[numthreads(4,1,1)] void main(uint i : SV_GroupIndex) { g[i] = i; GroupMemoryBarrierWithGroupSync(); b[i] = g[3 - i]; }";
    c.compile_source("ok.hlsl", cs, &CompileOptions::new("cs_6_0"))
        .expect("groupshared and a barrier in a compute shader");
}
