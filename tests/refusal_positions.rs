//! A construct the SPIR-V backend refuses is reported at its HLSL source position (the front
//! end records it as a `src_loc` decoration), not only by IR function.

use oneshader::{CompileOptions, Compiler, TargetEnv};

fn refuse(src: &str, opts: &CompileOptions) -> String {
    match Compiler::new().compile_source("pos.hlsl", src, opts) {
        Ok(_) => panic!("compiled"),
        Err(e) => e.diagnostics.render(),
    }
}

#[test]
fn backend_refusals_point_at_the_construct() {
    let src = r#"
Texture2D t : register(t0);
SamplerState s : register(s0);
float4 helper(float2 uv, int2 o) { return t.SampleLevel(s, uv, 0, o); }
float4 main(float2 uv : TEXCOORD, nointerpolation int2 o : OFF) : SV_Target {
    return helper(uv, o);
}
"#;
    for level in [oneshader::OptLevel::O0, oneshader::OptLevel::O] {
        let e = refuse(src, &CompileOptions::new("ps_6_0").opt_level(level));
        assert!(
            e.contains("pos.hlsl:4:43: error[OSB0013]"),
            "{level:?}: {e}"
        );
        assert!(e.contains("t.SampleLevel(s, uv, 0, o)"), "{e}");
    }
    let src = r#"
RWStructuredBuffer<float> b : register(u0);
[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    b[id.x] = QuadReadLaneAt(b[id.x], id.x & 3);
}
"#;
    let e = refuse(
        src,
        &CompileOptions::new("cs_6_0").target_env(TargetEnv::Vulkan1_1),
    );
    assert!(e.contains("pos.hlsl:5:15: error[OSB0006]"), "{e}");
}
