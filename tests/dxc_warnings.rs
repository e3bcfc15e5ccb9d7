//! Warnings DXC gives that OneShader gives too, at the HLSL position: integer division or
//! remainder by a constant zero (OSH1032, clang's -Wdivision-by-zero in DXC) and an `[unroll]`
//! loop the optimizer could not unroll (OSO0004).

use oneshader::{CompileOptions, Compiler, OptLevel};

/// The rendered warnings of a compilation that must succeed.
fn warnings(src: &str, opts: &CompileOptions) -> String {
    match Compiler::new().compile_source("w.hlsl", src, opts) {
        Ok(out) => out.diagnostics.render(),
        Err(e) => panic!("did not compile: {}", e.diagnostics.render()),
    }
}

#[test]
fn integer_division_by_a_constant_zero_warns_at_the_zero() {
    let src = r#"
RWStructuredBuffer<int> b : register(u0);
[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    b[0] = b[1] / 0;
    b[2] = b[3] % 0u;
    b[4] = asint(asfloat(b[5]) / 0.0);
    b[6] = b[7] / 2;
}
"#;
    for level in [OptLevel::O0, OptLevel::O] {
        let w = warnings(src, &CompileOptions::new("cs_6_0").opt_level(level));
        assert!(
            w.contains("w.hlsl:5:19: warning[OSH1032]: integer division by zero is undefined"),
            "{level:?}: {w}"
        );
        assert!(
            w.contains("w.hlsl:6:19: warning[OSH1032]: integer remainder by zero is undefined"),
            "{w}"
        );
        // Float division by zero is defined (infinity), and `/ 2` is fine: two warnings only.
        assert_eq!(w.matches("OSH1032").count(), 2, "{w}");
    }
}

#[test]
fn an_unroll_loop_the_optimizer_cannot_unroll_warns_at_the_loop() {
    let src = r#"
RWStructuredBuffer<uint> b : register(u0);
[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint s = 0;
    [unroll] for (uint i = 0; i < b[0]; ++i) { s += i; }
    [unroll] for (uint j = 0; j < 4; ++j) { s += b[j]; }
    b[1] = s;
}
"#;
    let w = warnings(src, &CompileOptions::new("cs_6_0").opt_level(OptLevel::O));
    assert_eq!(
        w.matches("warning[OSO0004]").count(),
        1,
        "only the first loop: {w}"
    );
    // At the loop's condition, which decides the trip count.
    assert!(w.contains("w.hlsl:6:31: warning[OSO0004]"), "{w}");
    assert!(w.contains("was not unrolled"), "{w}");
    // At -O0 the optimizer does not run: nothing was attempted, nothing to say.
    let w0 = warnings(src, &CompileOptions::new("cs_6_0").opt_level(OptLevel::O0));
    assert!(!w0.contains("OSO0004"), "{w0}");
}

/// A helper with a non-unrollable loop, inlined twice, is one source loop: one warning.
#[test]
fn one_warning_per_source_loop() {
    let src = r#"
RWStructuredBuffer<uint> b : register(u0);
uint sum(uint n) { uint s = 0; [unroll] for (uint i = 0; i < n; ++i) { s += i; } return s; }
[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    b[1] = sum(b[0]) + sum(b[2]);
}
"#;
    let w = warnings(src, &CompileOptions::new("cs_6_0").opt_level(OptLevel::O));
    assert_eq!(w.matches("warning[OSO0004]").count(), 1, "{w}");
}
