//! The MSL backend from HLSL: each shader here compiles to MSL that clang accepts against
//! the stand-in `<metal_stdlib>` and whose interface equals `spirv-cross --msl` on our own
//! SPIR-V of the same shader (`oneshader_test_tools::msl_check`; there is no Metal compiler
//! on Linux), and the assertions pin what each test is about.

use oneshader::{CompileOptions, Compiler, Target};
use oneshader_test_tools::msl_check;

/// The MSL of `src` (entry `main`), checked by clang and against spirv-cross.
fn msl(src: &str, profile: &str) -> String {
    msl_with(src, &CompileOptions::new(profile))
}

/// The MSL of `src` under `opts` (the MSL target set here), checked as [`msl`] does.
fn msl_with(src: &str, opts: &CompileOptions) -> String {
    let c = Compiler::new();
    let spirv = c
        .compile_source("m.hlsl", src, opts)
        .unwrap_or_else(|e| panic!("SPIR-V: {}", e.diagnostics.render()))
        .spirv;
    let out = c
        .compile_source("m.hlsl", src, &opts.clone().target(Target::Msl))
        .unwrap_or_else(|e| panic!("MSL: {}", e.diagnostics.render()));
    let text = out.msl.expect("MSL text");
    msl_check(&text, &spirv, "main").unwrap_or_else(|e| panic!("{e}"));
    text
}

/// The diagnostics of compiling `src` to MSL (which must fail).
fn refused(src: &str, profile: &str) -> String {
    match Compiler::new().compile_source(
        "m.hlsl",
        src,
        &CompileOptions::new(profile).target(Target::Msl),
    ) {
        Ok(out) => panic!("expected a refusal, got:\n{}", out.msl.unwrap_or_default()),
        Err(e) => e.diagnostics.render(),
    }
}

/// `GetDimensions` on structured and byte-address buffers reads the buffer-sizes buffer
/// (spirv-cross's `spvBufferSizeConstants` at `[[buffer(25)]]`), indexed by each buffer's own
/// index: the element count is `(size - offset) / stride`, a byte-address buffer's byte count
/// four times its word count.
#[test]
fn runtime_array_lengths_come_from_the_buffer_sizes_buffer() {
    let text = msl(
        "struct P { float3 pos; uint id; };\n\
         RWStructuredBuffer<float4> data : register(u0);\n\
         ByteAddressBuffer raw : register(t1);\n\
         StructuredBuffer<P> parts : register(t2);\n\
         [numthreads(4,1,1)]\n\
         void main(uint3 id : SV_DispatchThreadID) {\n\
           uint n, s; data.GetDimensions(n, s);\n\
           uint b; raw.GetDimensions(b);\n\
           uint p, ps; parts.GetDimensions(p, ps);\n\
           data[id.x] = float4(n, s, b, p + ps);\n\
         }\n",
        "cs_6_0",
    );
    assert!(
        text.contains("constant uint* buffer_sizes [[buffer(25)]]"),
        "{text}"
    );
    assert!(
        text.contains("(buffer_sizes[0] - 0u) / 16u"),
        "{text}"
    );
    assert!(text.contains("(buffer_sizes[1] - 0u) / 4u"), "{text}");
    assert!(
        text.contains("(buffer_sizes[2] - 0u) / 16u"),
        "{text}"
    );
}
