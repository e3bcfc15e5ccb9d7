//! Property test: no input makes semantic analysis or lowering panic, and whatever compiles
//! verifies. Programs are glued together at random from pieces of declarations, statements
//! and expressions (many of them wrong on purpose), so every error path runs.

mod sema_common;

use proptest::prelude::*;
use sema_common::{compile_with, opts};

const DECLS: &[&str] = &[
    "struct S { float4 a; int b[2]; row_major float2x2 m; };",
    "struct T : S { float c; float get() { return c + a.x; } };",
    "cbuffer CB : register(b0) { float4 tint; float scale : packoffset(c1.y); };",
    "Texture2D<float4> tex : register(t0);",
    "SamplerState samp;",
    "RWStructuredBuffer<S> buf;",
    "RWByteAddressBuffer raw;",
    "groupshared float cache[16];",
    "static float g = 1;",
    "static const int N = 3;",
    "typedef float3 vec3;",
    "enum E { A, B = 4 };",
    "namespace ns { float h(float x) { return x; } }",
    "template<typename Q> Q twice(Q q) { return q + q; }",
    "float f(float x, out float y) { y = x; return x * 2; }",
    "int rec(int x) { return x ? rec(x - 1) : 0; }",
    "float4 tintOf(S s) { return s.a * tint; }",
    "[[vk::push_constant]] S pc;",
    "Texture2D texs[4];",
    "float bad(float x) { return undefined + x; }",
];

const STMTS: &[&str] = &[
    "float x = 1;",
    "int i = 0;",
    "S s = (S)0;",
    "T t;",
    "float y;",
    "x = f(x, y);",
    "x += s.a.y * s.m[1][0];",
    "s.b[i] = i;",
    "for (int k = 0; k < N; ++k) { x += k; if (x > 3) break; }",
    "while (i < 4 && x > 0) { i++; continue; }",
    "do { x -= 1; } while (x > 0);",
    "switch (i) { case 0: x = 1; case 1: break; default: x = 2; }",
    "if (x) { return; }",
    "x = i > 2 ? x : y;",
    "buf[i] = s;",
    "raw.Store(0, asuint(x));",
    "cache[i] = x;",
    "GroupMemoryBarrierWithGroupSync();",
    "x = tex.SampleLevel(samp, float2(x, y), 0).r;",
    "x = texs[i].SampleLevel(samp, 0.5, 0).g;",
    "x = ns::h(twice(x));",
    "x = t.get();",
    "InterlockedAdd(buf[0].b[1], 1);",
    "x = mul(float2(x, y), s.m).x;",
    "x = dot(s.a, tint) + length(s.a.xyz) + clamp(x, 0, 1);",
    "x = s.a.xyzw.wzyx.x + s.m._m01;",
    "x = (float)rec(i);",
    "vec3 v = vec3(x, y, 1);",
    "x = v;",
    "x = s;",
    "x = nope(x);",
    "x = s.nothing;",
    "x = tex;",
    "break;",
    "return;",
    "discard;",
    "y = {1, 2};",
    "int arr[] = { 1, 2, 3 }; x = arr[i];",
    "float4x4 m4 = 1; x = determinant(m4) + m4._44;",
    "x = twice<int>(i) + E::B + A;",
    "x = bad(x);",
];

fn program(decls: &[usize], stmts: &[usize]) -> String {
    let mut s = String::new();
    for &d in decls {
        s.push_str(DECLS[d % DECLS.len()]);
        s.push('\n');
    }
    s.push_str("[numthreads(4, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) {\n");
    for &st in stmts {
        s.push_str("    ");
        s.push_str(STMTS[st % STMTS.len()]);
        s.push('\n');
    }
    s.push_str("}\n");
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, .. ProptestConfig::default() })]

    #[test]
    fn analysis_and_lowering_never_panic(
        decls in proptest::collection::vec(0usize..64, 0..8),
        stmts in proptest::collection::vec(0usize..128, 0..12),
    ) {
        let src = program(&decls, &stmts);
        let (r, rendered) = compile_with(&src, &opts("cs_6_0", "main"));
        match r.module {
            Some(m) => {
                let v = oneshader_ir::verify::verify(&m);
                prop_assert!(v.is_empty(), "does not verify: {:?}\n{}", v, src);
            }
            None => prop_assert!(r.has_errors(), "no module and no error:\n{}\n{}", rendered, src),
        }
    }
}

/// The parser's own test inputs, with every profile: no panic, and verified output.
#[test]
fn parser_test_inputs_never_panic() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/hlsl");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).expect("tests/hlsl") {
        let path = entry.expect("entry").path();
        let src = std::fs::read_to_string(&path).expect("read");
        for (profile, entry) in [
            ("ps_6_0", "main"),
            ("vs_6_0", "main"),
            ("cs_6_0", "main"),
            ("ps_6_0", "PSMain"),
        ] {
            let (r, _) = compile_with(&src, &opts(profile, entry));
            if let Some(m) = r.module {
                let v = oneshader_ir::verify::verify(&m);
                assert!(v.is_empty(), "{}: {v:?}", path.display());
            }
            n += 1;
        }
    }
    assert!(n >= 8);
}
