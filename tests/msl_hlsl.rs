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
    assert!(text.contains("(buffer_sizes[0] - 0u) / 16u"), "{text}");
    assert!(text.contains("(buffer_sizes[1] - 0u) / 4u"), "{text}");
    assert!(text.contains("(buffer_sizes[2] - 0u) / 16u"), "{text}");
}

/// Fragment built-ins spirv-cross maps: barycentrics in the `[[stage_in]]` struct, the
/// primitive ID, layer and viewport index as parameters, the stencil reference as an
/// output; the view index is the constant 0 (no multiview, as spirv-cross's default).
#[test]
fn fragment_built_ins_map_as_spirv_cross_maps_them() {
    let text = msl(
        "struct PSIn { float4 pos : SV_Position; float3 bary : SV_Barycentrics; \
           uint vid : SV_ViewID; uint prim : SV_PrimitiveID; \
           uint layer : SV_RenderTargetArrayIndex; uint vp : SV_ViewportArrayIndex; };\n\
         struct PSOut { float4 c : SV_Target; uint st : SV_StencilRef; };\n\
         PSOut main(PSIn i) { PSOut o; o.c = float4(i.bary, i.vid + i.prim + i.layer + i.vp); \
           o.st = 3; return o; }\n",
        "ps_6_1",
    );
    for attr in [
        "[[barycentric_coord]]",
        "[[primitive_id]]",
        "[[render_target_array_index]]",
        "[[viewport_array_index]]",
        "[[stencil]]",
    ] {
        assert!(text.contains(attr), "{attr}: {text}");
    }
    assert!(text.contains("= 0u;"), "the view index is 0: {text}");
    // Barycentrics need MSL 2.2.
    let e = Compiler::new()
        .compile_source(
            "m.hlsl",
            "float4 main(float3 b : SV_Barycentrics) : SV_Target { return float4(b, 1); }\n",
            &CompileOptions {
                msl_version: oneshader::backends::msl::MslVersion::V2_1,
                ..CompileOptions::new("ps_6_1").target(Target::Msl)
            },
        )
        .expect_err("MSL 2.1 has no barycentrics")
        .diagnostics
        .render();
    assert!(
        e.contains("error[OSB0312]") && e.contains("needs MSL 2.2"),
        "{e}"
    );
}

/// A vertex function reading the view index gets spirv-cross's interface for it (the
/// instance built-ins in, layer 0 out) and reads 0.
#[test]
fn a_vertex_view_index_is_view_zero() {
    let text = msl(
        "float4 main(uint vid : SV_ViewID, uint v : SV_VertexID) : SV_Position \
         { return float4(vid, v, 0, 1); }\n",
        "vs_6_1",
    );
    assert!(text.contains("[[render_target_array_index]]"), "{text}");
    assert!(text.contains("[[instance_id]]"), "{text}");
}

/// Arrays of matrices in buffers: column-major ones are arrays of transposed matrices (stored
/// so by legalization's `transpose_storage`, read and written through `transpose` element by
/// element), row-major ones plain arrays; the strides are the SPIR-V backend's (clang checks
/// the types, spirv-cross the interface).
#[test]
fn arrays_of_matrices_in_buffers() {
    let text = msl(
        "cbuffer Bones : register(b0) { float4x4 bones[4]; float3x4 skew[2]; \
           row_major float4x3 rows[2]; float w; };\n\
         struct S { float2x3 m[3]; float4 tail; };\n\
         RWStructuredBuffer<S> outb : register(u1);\n\
         [numthreads(1,1,1)]\n\
         void main(uint3 id : SV_DispatchThreadID) {\n\
           float4 v = mul(bones[id.x], float4(1, 2, 3, w));\n\
           v.xyz += mul(skew[1], v) + mul(v, rows[id.y]).xyz;\n\
           S s; s.m[0] = (float2x3)bones[0]; s.m[1] = s.m[0] * 2; s.m[2] = s.m[1];\n\
           s.tail = v;\n\
           outb[id.x] = s;\n\
           outb[id.y].m[2] = (float2x3)skew[0];\n\
           outb[id.z].m[1][1] = v.xyz;\n\
         }\n",
        "cs_6_0",
    );
    assert!(text.contains("array<float4x4, 4> bones;"), "{text}");
    assert!(text.contains("array<float4x3, 2> skew;"), "{text}");
    assert!(text.contains("array<float4x3, 2> rows;"), "{text}");
    assert!(text.contains("array<float3x2, 3> m;"), "{text}");
    assert!(text.contains("transpose(Bones.bones["), "{text}");
}

/// Column-major matrices in buffers are legalization's (`transpose_storage`): a cbuffer's
/// `float3x4` and a structured buffer's array of `float2x3` are declared as their row-major
/// transposes (`float4x3`, `array<float3x2, 2>`: MSL's columns are HLSL's columns there, the
/// same bytes), a whole matrix is read and written through `transpose`, a row with a run-time
/// index is gathered (read) or scattered (written) one component per stored column, and an
/// element `m[i][j]` is component `i` of stored column `j`.
#[test]
fn column_major_matrices_in_buffers_are_stored_transposed_by_legalization() {
    let text = msl(
        "cbuffer C : register(b0) { float3x4 m; float4 v; };\n\
         struct E { float2x3 ms[2]; float4 tail; };\n\
         RWStructuredBuffer<E> eb : register(u1);\n\
         RWStructuredBuffer<float4> o : register(u2);\n\
         [numthreads(1,1,1)]\n\
         void main(uint3 id : SV_DispatchThreadID) {\n\
           float3 a = mul(m, v);\n\
           float4 row = m[id.x];\n\
           float e = m[id.y][id.z];\n\
           float2x3 x = eb[id.x].ms[id.y];\n\
           float3 r = eb[id.x].ms[1][id.z];\n\
           eb[id.y].ms[0] = x * 2;\n\
           eb[id.z].ms[1][id.x] = a;\n\
           eb[id.z].ms[0][1][id.y] = e;\n\
           o[id.x] = row + float4(a + x[0] + r, e);\n\
         }\n",
        "cs_6_0",
    );
    // `_3`, `_4`, `_5` are `id.x`, `id.y`, `id.z`.
    for (k, c) in ["_3 = _1.x;", "_4 = _1.y;", "_5 = _1.z;"]
        .iter()
        .enumerate()
    {
        assert!(text.contains(&format!("uint {c}")), "{k}: {text}");
    }
    // Declared as the transposes: HLSL's columns are the MSL matrices' columns.
    assert!(text.contains("    float4x3 m;\n"), "{text}");
    assert!(text.contains("    array<float3x2, 2> ms;\n"), "{text}");
    // Whole matrices: `transpose` at the load and at the store.
    assert!(text.contains("C.v * transpose(C.m)"), "{text}");
    assert!(
        text.contains("float2x3 _7 = transpose(eb[_3].ms[_4]);"),
        "{text}"
    );
    assert!(
        text.contains("eb[_4].ms[0] = transpose(float2x3("),
        "{text}"
    );
    // `m[id.x]`: component `id.x` of each of the four stored columns.
    assert!(
        text.contains("float4(C.m[0u][_3], C.m[1u][_3], C.m[2u][_3], C.m[3u][_3])"),
        "{text}"
    );
    // `m[id.y][id.z]`: component `id.y` of stored column `id.z`.
    assert!(text.contains("float _6 = C.m[_5][_4];"), "{text}");
    // `ms[1][id.z]` read and `ms[1][id.x]` written component by component.
    for j in 0..3 {
        assert!(
            text.contains(&format!("eb[_3].ms[1][{j}u][_5]")),
            "{j}: {text}"
        );
        let c = ['x', 'y', 'z'][j];
        assert!(
            text.contains(&format!("eb[_5].ms[1][{j}u][_3] = _2.{c};")),
            "{j}: {text}"
        );
    }
    // `ms[0][1][id.y] = e`: component 1 of stored column `id.y`.
    assert!(text.contains("eb[_5].ms[0][_4][1] = _6;"), "{text}");
}

/// Structured buffers of matrices are `device` pointers to MSL matrices: a column-major
/// `float2x3` one to its transposes (`float3x2`, 24 bytes apart as the SPIR-V backend's
/// stride), read through `transpose` and by gathered rows; a row-major `float3x2` one to plain
/// `float3x2`, a row stored whole; a column-major `float2x2` one stored through `transpose`
/// and a row scattered.
#[test]
fn structured_buffers_of_matrices_are_pointers_to_matrices() {
    let text = msl(
        "StructuredBuffer<float2x3> cm : register(t0);\n\
         RWStructuredBuffer<row_major float3x2> rm : register(u1);\n\
         RWStructuredBuffer<float2x2> sq : register(u2);\n\
         [numthreads(1,1,1)]\n\
         void main(uint3 id : SV_DispatchThreadID) {\n\
           float2x3 a = cm[id.x];\n\
           float3 r = cm[id.y][id.z];\n\
           rm[id.x] = transpose(a);\n\
           rm[id.y][id.z] = r.xy;\n\
           sq[id.x] = float2x2(r.xy, a[1].yz);\n\
           sq[id.y][1] = r.yz;\n\
         }\n",
        "cs_6_0",
    );
    // `_2`, `_4`, `_5` are `id.x`, `id.y`, `id.z`.
    for c in ["_2 = _1.x;", "_4 = _1.y;", "_5 = _1.z;"] {
        assert!(text.contains(&format!("uint {c}")), "{c}: {text}");
    }
    assert!(
        text.contains(
            "const device float3x2* cm [[buffer(0)]], device float3x2* rm [[buffer(1)]], \
             device float2x2* sq [[buffer(2)]]"
        ),
        "{text}"
    );
    assert!(text.contains("float2x3 _3 = transpose(cm[_2]);"), "{text}");
    assert!(
        text.contains("float3(cm[_4][0u][_5], cm[_4][1u][_5], cm[_4][2u][_5])"),
        "{text}"
    );
    assert!(text.contains("rm[_2] = transpose(_3);"), "{text}");
    assert!(text.contains("rm[_4][_5] = "), "{text}");
    assert!(text.contains("sq[_2] = transpose(float2x2("), "{text}");
    assert!(text.contains("sq[_4][0u][1] = "), "{text}");
    assert!(text.contains("sq[_4][1u][1] = "), "{text}");
}

/// Matrices whose 2-component vectors are 16 bytes apart (DXC's constant buffers) are
/// arrays of `float4`, each vector in the leading components, read whole, by row and by
/// element, and written (in a storage buffer under `-fvk-use-gl-layout`'s std140? no: a
/// constant buffer copied out), bit for bit at the SPIR-V backend's offsets.
#[test]
fn matrices_of_two_component_vectors_in_constant_buffers() {
    let text = msl(
        "cbuffer C : register(b0) { float2x2 rot; row_major float3x2 rm; float2x3 cm; float k; };\n\
         RWStructuredBuffer<float4> o : register(u1);\n\
         [numthreads(1,1,1)]\n\
         void main(uint3 id : SV_DispatchThreadID) {\n\
           float2 a = mul(rot, float2(1, 2)) + rot[id.x] + rm[id.y] + rot[1][id.z];\n\
           float3 b = float3(mul(cm, float3(a, k)), k) + float3(rm[2], cm[1][id.x]);\n\
           o[id.x] = float4(a, b.xy) + float4(mul(float3(1, 1, 2), rm), 0, 0);\n\
         }\n",
        "cs_6_0",
    );
    assert!(text.contains("array<float4, 2> rot;"), "{text}");
    assert!(text.contains("array<float4, 3> rm;"), "{text}");
    assert!(text.contains("array<float4, 3> cm;"), "{text}");
    assert!(
        text.contains("transpose(float2x2(C.rot[0].xy, C.rot[1].xy))"),
        "{text}"
    );
    assert!(
        text.contains("float3x2(C.rm[0].xy, C.rm[1].xy, C.rm[2].xy)"),
        "{text}"
    );
}

/// Arrays of matrices whose 2-component rows are 16 bytes apart (DXC's constant buffers:
/// column-major `float2x3` and `float2x2`, stored as their row-major transposes, and row-major
/// `float3x2`) are arrays of arrays of `float4`, each row in the leading components: read
/// whole (an array of matrices, each built from its rows' `.xy`), by element, by run-time row
/// and by single component, at the SPIR-V backend's offsets.
#[test]
fn arrays_of_matrices_of_two_component_rows_in_constant_buffers() {
    let text = msl(
        "cbuffer C : register(b0) { float2x3 cm[2]; row_major float3x2 rm[2]; \
           float2x2 sq[3]; float k; };\n\
         RWStructuredBuffer<float4> o : register(u1);\n\
         [numthreads(1,1,1)]\n\
         void main(uint3 id : SV_DispatchThreadID) {\n\
           float2x3 a[2] = cm;\n\
           float3x2 b = rm[id.x];\n\
           float2 r = sq[id.y][id.z];\n\
           float e = cm[id.x][1][id.y];\n\
           o[id.x] = float4(mul(a[id.y], float3(r, k)), mul(float3(1, 2, 3), b)) \
             + float4(sq[2][1], e, rm[1][id.z].y);\n\
         }\n",
        "cs_6_0",
    );
    // `_3`, `_4`, `_5` are `id.x`, `id.y`, `id.z`.
    for c in ["_3 = _1.x;", "_4 = _1.y;", "_5 = _1.z;"] {
        assert!(text.contains(&format!("uint {c}")), "{c}: {text}");
    }
    assert!(
        text.contains(
            "    array<array<float4, 3>, 2> cm;\n    array<array<float4, 3>, 2> rm;\n    \
             array<array<float4, 2>, 3> sq;\n    float k;\n"
        ),
        "{text}"
    );
    // `a = cm`: the stored matrices (HLSL's columns as rows), each transposed.
    assert!(
        text.contains(
            "array<float3x2, 2> _2 = array<float3x2, 2>{float3x2(C.cm[0][0].xy, \
             C.cm[0][1].xy, C.cm[0][2].xy), float3x2(C.cm[1][0].xy, C.cm[1][1].xy, \
             C.cm[1][2].xy)};"
        ),
        "{text}"
    );
    assert!(
        text.contains("a = array<float2x3, 2>{transpose(_2[0]), transpose(_2[1])};"),
        "{text}"
    );
    assert!(
        text.contains("float3x2(C.rm[_3][0].xy, C.rm[_3][1].xy, C.rm[_3][2].xy)"),
        "{text}"
    );
    // `sq[id.y][id.z]`: component `id.z` of both stored rows.
    assert!(
        text.contains("float2(C.sq[_4][0u][_5], C.sq[_4][1u][_5])"),
        "{text}"
    );
    // `cm[id.x][1][id.y]`: component 1 of stored row `id.y`.
    assert!(text.contains("C.cm[_3][_4][1]"), "{text}");
    assert!(text.contains("C.rm[1][_5][1u]"), "{text}");
}

/// 64-bit integers are `long` and `ulong` (MSL 2.2): literals typed, signed arithmetic
/// wrapping through `ulong`, shift counts masked to 63; MSL 2.1 refuses them by name.
#[test]
fn sixty_four_bit_integers_are_long_and_ulong() {
    let src = "struct P { uint a; uint64_t b; int64_t c; };\n\
         StructuredBuffer<P> ps : register(t0);\n\
         RWStructuredBuffer<uint64_t> o : register(u1);\n\
         [numthreads(1,1,1)]\n\
         void main(uint3 id : SV_DispatchThreadID) {\n\
           P p = ps[id.x];\n\
           int64_t s = p.c * -3 + (int64_t)p.a;\n\
           uint64_t u = (p.b << id.y) ^ (uint64_t)(s >> id.z) ^ 0xFFFFFFFF00000000ull;\n\
           o[id.x] = max(u, p.b) + (uint64_t)abs(s);\n\
         }\n";
    let text = msl(src, "cs_6_0");
    assert!(
        text.contains("ulong b;") && text.contains("long c;"),
        "{text}"
    );
    assert!(text.contains("as_type<ulong>("), "{text}");
    assert!(text.contains("& 63u"), "{text}");
    assert!(text.contains("18446744069414584320ul"), "{text}");
    let e = Compiler::new()
        .compile_source(
            "m.hlsl",
            src,
            &CompileOptions {
                msl_version: oneshader::backends::msl::MslVersion::V2_1,
                ..CompileOptions::new("cs_6_0").target(Target::Msl)
            },
        )
        .expect_err("MSL 2.1 has no 64-bit integers")
        .diagnostics
        .render();
    assert!(
        e.contains("error[OSB0312]") && e.contains("64-bit integers"),
        "{e}"
    );
}

/// 16-bit types are `half`, `short` and `ushort`: 16-bit integer arithmetic is computed in
/// 32 bits and converted back (so it wraps as the IR does, and no `ushort` product
/// overflows `int`), half literals are exact (`half(0.5f)`), buffers hold them at the SPIR-V
/// backend's 2-byte offsets; `f16tof32` and `f32tof16` go through `half`.
#[test]
fn sixteen_bit_types_are_half_short_and_ushort() {
    let opts = CompileOptions {
        enable_16bit_types: true,
        ..CompileOptions::new("cs_6_2")
    };
    let text = msl_with(
        "struct P { uint16_t a; int16_t b; half c; half3 d; float e; };\n\
         StructuredBuffer<P> ps : register(t0);\n\
         RWStructuredBuffer<uint> o : register(u1);\n\
         [numthreads(1,1,1)]\n\
         void main(uint3 id : SV_DispatchThreadID) {\n\
           P p = ps[id.x];\n\
           uint16_t u = p.a * p.a + (uint16_t)(p.a << 3);\n\
           int16_t s = -p.b / (int16_t)3 + (p.b >> 2);\n\
           half h = p.c * (half)0.5 + sqrt(p.d.y) + max(p.d.x, p.d.z);\n\
           o[id.x] = (uint)u + (uint)s + f32tof16(p.e) + (uint)f16tof32(id.y) + (uint)h;\n\
         }\n",
        &opts,
    );
    assert!(
        text.contains("ushort a;") && text.contains("short b;") && text.contains("half c;"),
        "{text}"
    );
    assert!(text.contains("ushort(uint("), "{text}");
    assert!(text.contains("half(0.5f)"), "{text}");
    assert!(text.contains("as_type<half>(ushort("), "{text}");
    assert!(text.contains("uint(as_type<ushort>(half("), "{text}");
}

/// A non-default binding map, on both sides: every resource at its binding number and the
/// push constants at buffer 0 is what `spirv-cross --msl-decoration-binding` does (the only
/// resource remapping its command line offers), so the two interfaces must agree; the
/// reflection reports each resource's MSL index and the buffer-sizes buffer.
#[test]
fn a_binding_map_agrees_with_spirv_cross_and_reflection_reports_the_indices() {
    let src = "struct PC { float4 tint; };\n\
         [[vk::push_constant]] PC pc;\n\
         cbuffer Cam : register(b3, space1) { float4x4 vp; };\n\
         Texture2D tex[2] : register(t5);\n\
         SamplerState smp : register(s7);\n\
         RWStructuredBuffer<float4> outb : register(u2);\n\
         float4 main(float4 p : SV_Position) : SV_Target {\n\
           uint n, s; outb.GetDimensions(n, s);\n\
           outb[0] = p;\n\
           return tex[1].Sample(smp, p.xy) * pc.tint + mul(vp, p) + n;\n\
         }\n";
    let map = oneshader::backends::msl::BindingMap::from_json(
        r#"[{"stage": "fragment", "set": 1, "binding": 3, "index": 3},
            {"stage": "fragment", "set": 0, "binding": 5, "index": 5},
            {"stage": "fragment", "set": 0, "binding": 7, "index": 7},
            {"stage": "fragment", "set": 0, "binding": 2, "index": 2},
            {"stage": "fragment", "push_constant": true, "index": 0}]"#,
    )
    .expect("a valid map");
    let opts = CompileOptions {
        msl_binding_map: Some(map),
        ..CompileOptions::new("ps_6_0").with_reflection()
    };
    let c = Compiler::new();
    let spirv = c
        .compile_source("m.hlsl", src, &opts)
        .unwrap_or_else(|e| panic!("{}", e.diagnostics.render()))
        .spirv;
    let out = c
        .compile_source("m.hlsl", src, &opts.clone().target(Target::Msl))
        .unwrap_or_else(|e| panic!("{}", e.diagnostics.render()));
    let text = out.msl.expect("MSL text");
    oneshader_test_tools::msl_check_with(&text, &spirv, "main", &["--msl-decoration-binding"])
        .unwrap_or_else(|e| panic!("{e}"));
    let r = out.reflection.expect("reflection");
    let at = |name: &str| {
        r.resource(name)
            .and_then(|x| x.msl.clone())
            .map(|i| (i.kind, i.index, i.count))
    };
    assert_eq!(at("Cam"), Some(("buffer".into(), 3, 1)));
    assert_eq!(at("tex"), Some(("texture".into(), 5, 2)));
    assert_eq!(at("smp"), Some(("sampler".into(), 7, 1)));
    assert_eq!(at("outb"), Some(("buffer".into(), 2, 1)));
    assert_eq!(
        r.push_constants[0].msl.as_ref().map(|i| i.index),
        Some(0),
        "{:?}",
        r.push_constants
    );
    assert_eq!(r.msl_buffer_sizes, Some(25));
    // The default rule is reported too, and a buffer at the buffer-sizes index is refused.
    let e = refused_with(
        src,
        CompileOptions {
            msl_buffer_sizes_index: 2,
            ..CompileOptions::new("ps_6_0")
        },
    );
    assert!(
        e.contains("error[OSB0311]") && e.contains("buffer-sizes"),
        "{e}"
    );
}

/// The diagnostics of compiling `src` to MSL under `opts` (which must fail).
fn refused_with(src: &str, opts: CompileOptions) -> String {
    match Compiler::new().compile_source("m.hlsl", src, &opts.target(Target::Msl)) {
        Ok(out) => panic!("expected a refusal, got:\n{}", out.msl.unwrap_or_default()),
        Err(e) => e.diagnostics.render(),
    }
}

/// Arrays and matrices as stage IO are one member per element (a matrix's per HLSL row) at
/// consecutive locations, as spirv-cross flattens them.
#[test]
fn arrays_and_matrices_in_stage_io_are_flattened() {
    let text = msl(
        "struct VI { float4 a[2] : A; float2x3 m : M; float4 p : P; };\n\
         struct VO { float4 pos : SV_Position; float4 c[2] : C; float2x3 m : MM; };\n\
         VO main(VI i) { VO o; o.pos = i.p; o.c = i.a; o.m = i.m; return o; }\n",
        "vs_6_0",
    );
    for a in [
        "[[attribute(1)]]",
        "[[attribute(3)]]",
        "[[attribute(4)]]",
        "[[user(locn3)]]",
    ] {
        assert!(text.contains(a), "{a}: {text}");
    }
    let text = msl(
        "struct VO { float4 pos : SV_Position; nointerpolation float4 c[2] : C; \
           float2x3 m : MM; };\n\
         float4 main(VO i) : SV_Target { return i.c[1] + i.m[1].xyzz; }\n",
        "ps_6_0",
    );
    assert!(text.contains("[[user(locn1), flat]]"), "{text}");
    assert!(text.contains("[[user(locn3)]]"), "{text}");
}

/// 1D array textures are `texture1d_array`: texel reads, writes and size queries (sampling
/// a 1D texture stays refused).
#[test]
fn one_d_array_textures_are_read_written_and_measured() {
    let text = msl(
        "Texture1DArray<float4> t : register(t0);\n\
         RWTexture1DArray<int> w : register(u1);\n\
         RWStructuredBuffer<float4> o : register(u2);\n\
         [numthreads(1,1,1)]\n\
         void main(uint3 id : SV_DispatchThreadID) {\n\
           uint width, layers, levels; t.GetDimensions(0, width, layers, levels);\n\
           w[uint2(id.x, 1)] = (int)width;\n\
           o[id.x] = t.Load(int3(id.x, 2, 0)) + w[id.xy] + layers;\n\
         }\n",
        "cs_6_0",
    );
    assert!(text.contains("texture1d_array<float> t"), "{text}");
    assert!(
        text.contains("texture1d_array<int, access::read_write> w"),
        "{text}"
    );
    assert!(text.contains("get_array_size()"), "{text}");
}

/// Implicit-LOD sampling of a 1D texture is `texture1d::sample(sampler, float)`; with a texel
/// offset it is refused (MSL's 1D sampling takes none).
#[test]
fn one_d_textures_are_sampled_without_offsets() {
    let text = msl(
        "Texture1D<float4> t : register(t0);\nSamplerState s : register(s0);\n\
         float4 main(float x : X) : SV_Target { return t.Sample(s, x); }\n",
        "ps_6_0",
    );
    assert!(text.contains(".sample(s, "), "{text}");
    let e = Compiler::new()
        .compile_source(
            "m.hlsl",
            "Texture1D<float4> t : register(t0);\nSamplerState s : register(s0);\n\
             float4 main(float x : X) : SV_Target { return t.Sample(s, x, 2); }\n",
            &CompileOptions::new("ps_6_0").target(Target::Msl),
        )
        .expect_err("an offset")
        .diagnostics
        .render();
    assert!(
        e.contains("error[OSB0308]") && e.contains("texel offset"),
        "{e}"
    );
}

/// A constant-length array of buffers is one entry parameter per element at consecutive
/// indices, gathered into an array of pointers, as spirv-cross declares it without argument
/// buffers.
#[test]
fn arrays_of_buffers_are_one_parameter_per_element() {
    let text = msl(
        "struct S { float4 v; };\n\
         struct T { float4 v; };\n\
         ConstantBuffer<S> cbs[3] : register(b0);\n\
         RWStructuredBuffer<float4> outs[2] : register(u4);\n\
         StructuredBuffer<T> ins[2] : register(t7);\n\
         [numthreads(1,1,1)]\n\
         void main(uint3 id : SV_DispatchThreadID) {\n\
           outs[id.x & 1][id.y] = cbs[id.z].v + cbs[1].v + ins[id.x & 1][id.y].v;\n\
         }\n",
        "cs_6_0",
    );
    assert!(text.contains("constant S* cbs_2 [[buffer(2)]]"), "{text}");
    assert!(
        text.contains("device float4* outs_1 [[buffer(4)]]"),
        "{text}"
    );
    assert!(
        text.contains("array<constant S*, 3> cbs = {cbs_0, cbs_1, cbs_2};"),
        "{text}"
    );
    assert!(text.contains("(*cbs[1]).v"), "{text}");
}

/// A struct used in buffers under two layout rules is declared once when both rules place
/// its members alike; when they differ it is refused by name (MSL declares a struct once).
#[test]
fn a_struct_under_two_rules_is_declared_once_when_they_agree() {
    let text = msl(
        "struct L { float4 color; float4 dir; };\n\
         ConstantBuffer<L> light : register(b0);\n\
         RWStructuredBuffer<L> lights : register(u1);\n\
         [numthreads(1,1,1)]\n\
         void main(uint3 id : SV_DispatchThreadID) { lights[id.x] = light; }\n",
        "cs_6_0",
    );
    assert_eq!(text.matches("struct L\n").count(), 1, "{text}");
    let e = Compiler::new()
        .compile_source(
            "m.hlsl",
            "struct L { float a; float b[2]; };\n\
             ConstantBuffer<L> light : register(b0);\n\
             RWStructuredBuffer<L> lights : register(u1);\n\
             [numthreads(1,1,1)]\n\
             void main(uint3 id : SV_DispatchThreadID) { lights[id.x].a = light.b[1]; }\n",
            &CompileOptions::new("cs_6_0").target(Target::Msl),
        )
        .expect_err("two layouts")
        .diagnostics
        .render();
    assert!(
        e.contains("error[OSB0305]") && e.contains("two layouts"),
        "{e}"
    );
}

/// `dot` of integers sums the component products in `uint` (wrapping as the IR does; MSL's
/// `dot` takes floats only).
#[test]
fn integer_dot_products_wrap_in_uint() {
    let text = msl(
        "RWStructuredBuffer<int3> a : register(u0);\nRWStructuredBuffer<uint> o : register(u1);\n\
         [numthreads(1,1,1)]\n\
         void main(uint3 id : SV_DispatchThreadID) {\n\
           o[id.x] = (uint)dot(a[id.x], a[id.y]) + dot(id, id) + (uint)dot(a[0].x, a[1].y);\n\
         }\n",
        "cs_6_0",
    );
    assert!(text.contains("as_type<int>(uint("), "{text}");
    assert!(!text.contains("dot("), "{text}");
}

/// A min-LOD clamp on sampling is MSL 2.2's `min_lod_clamp(x)` sampling option.
#[test]
fn min_lod_clamps_are_a_sampling_option() {
    let text = msl(
        "Texture2D<float4> t : register(t0);\nTexture2DArray<float4> ta : register(t1);\n\
         SamplerState s : register(s0);\n\
         float4 main(float3 uv : UV) : SV_Target {\n\
           return t.Sample(s, uv.xy, int2(1, 0), 2.0) + t.SampleBias(s, uv.xy, 0.5, int2(0, 0), 1.0)\n\
             + ta.Sample(s, uv, int2(0, 1), uv.z);\n\
         }\n",
        "ps_6_0",
    );
    assert!(text.contains("min_lod_clamp(2.0f)"), "{text}");
    assert!(text.contains("bias(0.5f), min_lod_clamp(1.0f)"), "{text}");
}

/// Two buffers at one (set, binding) alias one descriptor (spirv-cross merges them into one
/// `void*` buffer): refused by name. An array of blocks without a runtime array in a storage
/// buffer is one buffer holding the array, as the SPIR-V backend reads it.
#[test]
fn aliased_buffers_are_refused_and_tbuffer_arrays_are_one_buffer() {
    let e = Compiler::new()
        .compile_source(
            "m.hlsl",
            "cbuffer A : register(b1) { float4 a; };\ntbuffer B : register(t1) { float4 b; };\n\
             float4 main() : SV_Target { return a + b; }\n",
            &CompileOptions::new("ps_6_0").target(Target::Msl),
        )
        .expect_err("aliased descriptors")
        .diagnostics
        .render();
    assert!(
        e.contains("error[OSB0311]") && e.contains("share set 0, binding 1"),
        "{e}"
    );
    let text = msl(
        "struct T { float4 v; };\nTextureBuffer<T> tbs[3] : register(t2);\n\
         float4 main(uint i : I) : SV_Target { return tbs[i].v; }\n",
        "ps_6_0",
    );
    assert!(
        text.contains("const device array<T, 3>& tbs [[buffer(0)]]"),
        "{text}"
    );
}

/// Sparse residency feedback (a `{status, texel}` result) is refused by name, with or
/// without a min-LOD clamp.
#[test]
fn sparse_feedback_is_refused() {
    let e = Compiler::new()
        .compile_source(
            "m.hlsl",
            "SamplerState s : register(s5);\nTexture2D<float4> t : register(t1);\n\
             float4 main(float c : C) : SV_Target {\n\
               uint status; return t.Sample(s, float2(0.1, 0.2), int2(1, 1), c, status);\n\
             }\n",
            &CompileOptions::new("ps_6_0").target(Target::Msl),
        )
        .expect_err("sparse feedback")
        .diagnostics
        .render();
    assert!(
        e.contains("error[OSB0308]") && e.contains("sparse residency"),
        "{e}"
    );
}
