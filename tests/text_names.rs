//! Names in the text backends (GLSL, WGSL, MSL): every module-scope name is chosen before any
//! function body is printed, and locals avoid those and the target's reserved words and
//! built-in functions, types and sampling-option words, so no name hides another.
//!
//! Two kinds of test: the reproducer of issue 29 (a static constant array next to a local whose
//! name the constant would have taken, a local named `table` in GLSL, a local named `level` in
//! MSL), and a generated one: HLSL whose locals are named by every reserved and built-in word
//! of each target that HLSL takes as an identifier, compiled to all three targets at `-O0` and
//! `-O` and validated (naga, glslang and spirv-val, clang against the stand-in
//! `<metal_stdlib>` and spirv-cross's interface), and executed through the differential oracle
//! (our SPIR-V, our GLSL through glslang, our WGSL through naga, on lavapipe) with the values
//! checked. The word lists are not the backends' own: WGSL's come from naga
//! (`naga::keywords::wgsl`), MSL's are every identifier the stand-in `<metal_stdlib>` header
//! declares plus C++'s keywords, GLSL's are written here from the GLSL 4.60 specification.
//!
//! The execution tests fail (never skip) when the Vulkan loader or lavapipe is missing, the
//! validators when their tools are, with a message naming `cargo xtask setup`.

use std::collections::BTreeSet;
use std::path::Path;

use oneshader::{CompileOptions, Compiler, OptLevel, Target};
use oneshader_oracle::{Case, Inputs, Oracle, Rules, Source, Voice};
use oneshader_test_tools::{GlslStage, glslang_and_validate, msl_check, naga_validate};
use oneshader_vulkan_harness::{Binding, Gpu, Resource};

/// The reproducer: a static constant array and a local array the loop fills from it.
/// WGSL named the constant lazily, as `k`, the local's name, so `tbl = k;` read the zeroed
/// local (1050 became 50).
const SHADOWED_CONSTANT: &str = "RWStructuredBuffer<uint> o : register(u0);\n\
     static const uint tbl[3] = { 1000, 50, 0 };\n\
     [numthreads(1,1,1)] void main(uint3 id : SV_DispatchThreadID) {\n\
         uint k[3] = { 0, 0, 0 };\n\
         for (uint i = 0; i < 3; i++) k[i] = tbl[i] + id.x;\n\
         o[0] = k[0] + k[1];\n\
     }\n";

/// The same in GLSL's spelling: GLSL's fallback name for a constant array is `table`.
const SHADOWED_TABLE: &str = "RWStructuredBuffer<uint> o : register(u0);\n\
     static const uint tbl[3] = { 1000, 50, 0 };\n\
     [numthreads(1,1,1)] void main(uint3 id : SV_DispatchThreadID) {\n\
         uint table[3] = { 0, 0, 0 };\n\
         for (uint i = 0; i < 3; i++) table[i] = tbl[i] + id.x;\n\
         o[0] = table[0] + table[1];\n\
     }\n";

/// A local named `level` next to an explicit-LOD sample, which MSL spells `level(...)`.
const LEVEL_LOCAL: &str = "Texture2D<float4> t : register(t0);\n\
     SamplerState s : register(s1);\n\
     RWStructuredBuffer<float4> o : register(u2);\n\
     [numthreads(1,1,1)] void main(uint3 id : SV_DispatchThreadID) {\n\
         float level = (float)id.x;\n\
         float bias = level + 1.0f;\n\
         float gradient2d = bias * 0.5f;\n\
         o[0] = t.SampleLevel(s, float2(0.5f, 0.5f), level) + gradient2d;\n\
     }\n";

/// The text of `src`'s `main` (`profile`) for `target` at `level`, panicking with the
/// diagnostics when it does not compile.
fn text(src: &str, profile: &str, target: Target, level: OptLevel) -> String {
    let opts = CompileOptions::new(profile).opt_level(level).target(target);
    let out = Compiler::new()
        .compile_source("names.hlsl", src, &opts)
        .unwrap_or_else(|e| panic!("{target:?} {level:?}: {}\n{src}", e.diagnostics.render()));
    match target {
        Target::Wgsl => out.wgsl.expect("WGSL text"),
        Target::Glsl => out.glsl.expect("GLSL text"),
        Target::Msl => out.msl.expect("MSL text"),
        _ => unreachable!("text targets only"),
    }
}

/// `src` compiled to GLSL, WGSL and MSL at `-O0` and `-O`, each checked by its validator:
/// glslang (and spirv-val on glslang's SPIR-V), naga, clang against the stand-in
/// `<metal_stdlib>` with the interface compared to spirv-cross's on our SPIR-V. Returns the
/// `-O0` texts (GLSL, WGSL, MSL).
fn validated_texts(src: &str) -> (String, String, String) {
    let mut first = None;
    for level in [OptLevel::O0, OptLevel::O] {
        let glsl = text(src, "cs_6_0", Target::Glsl, level);
        glslang_and_validate(&glsl, GlslStage::Compute)
            .unwrap_or_else(|e| panic!("glslang rejects the GLSL ({level:?}):\n{e}\n{glsl}"));
        let wgsl = text(src, "cs_6_0", Target::Wgsl, level);
        naga_validate(&wgsl)
            .unwrap_or_else(|e| panic!("naga rejects the WGSL ({level:?}):\n{e}\n{wgsl}"));
        let msl = text(src, "cs_6_0", Target::Msl, level);
        let spirv = Compiler::new()
            .compile_source(
                "names.hlsl",
                src,
                &CompileOptions::new("cs_6_0").opt_level(level),
            )
            .unwrap_or_else(|e| panic!("SPIR-V: {}", e.diagnostics.render()))
            .spirv;
        msl_check(&msl, &spirv, "main")
            .unwrap_or_else(|e| panic!("the MSL fails its checks ({level:?}):\n{e}"));
        if first.is_none() {
            first = Some((glsl, wgsl, msl));
        }
    }
    first.expect("two levels ran")
}

/// Runs `src`'s `main` (one workgroup of one invocation, `words` words of storage buffer
/// `u0`) through every voice of the oracle at `-O0` and `-O` (our SPIR-V, GLSL through
/// glslang, WGSL through naga), asserts that they agree bit for bit and returns the buffer
/// each voice left.
fn run_voices(gpu: &Gpu, name: &str, src: &str, words: usize) -> Vec<(Voice, Vec<u32>)> {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join(format!("{name}.hlsl"));
    std::fs::write(&path, src).expect("the shader is written");
    let source = Source::Hlsl {
        path,
        options: CompileOptions::new("cs_6_0"),
    };
    let mut voices = vec![
        Voice::spirv(OptLevel::O0),
        Voice::spirv(OptLevel::O),
        Voice::Wgsl {
            level: OptLevel::O0,
        },
        Voice::Wgsl { level: OptLevel::O },
    ];
    if oneshader_oracle::voice::GLSL_AVAILABLE {
        voices.push(Voice::Glsl {
            level: OptLevel::O0,
        });
        voices.push(Voice::Glsl { level: OptLevel::O });
    }
    let case = Case::new(name, source).unwrap_or_else(|e| panic!("{name}: {e}"));
    let inputs = Inputs::new(
        vec![Binding::new(0, 0, Resource::StorageBuffer(vec![0; words]))],
        Vec::new(),
        [1, 1, 1],
    );
    let report = Oracle::new(gpu)
        .run(&case, &voices, &inputs, &Rules::new())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    report.assert_agreement();
    report
        .runs
        .into_iter()
        .map(|r| (r.voice, r.outputs[0].words().to_vec()))
        .collect()
}

/// Issue 29's reproducer: the constant array keeps its own name in WGSL and GLSL (chosen
/// before the body, so the local `k` or `table` cannot take it), every validator takes the
/// output, and every voice computes 1000 + 50.
#[test]
fn a_local_never_takes_the_name_of_a_module_constant() {
    for (name, src, local) in [
        ("shadowed_constant", SHADOWED_CONSTANT, "k"),
        ("shadowed_table", SHADOWED_TABLE, "table"),
    ] {
        let (glsl, wgsl, _msl) = validated_texts(src);
        // The constant's declaration and the local's are different names.
        let wgsl_const = wgsl
            .lines()
            .find_map(|l| l.strip_prefix("const "))
            .and_then(|l| l.split(':').next())
            .unwrap_or_else(|| panic!("a module-scope constant:\n{wgsl}"));
        assert!(
            !wgsl.contains(&format!("var {wgsl_const}: ")),
            "a local is named as the constant `{wgsl_const}`:\n{wgsl}"
        );
        assert!(
            wgsl.contains(&format!("var {local}")),
            "the local is named from `{local}`:\n{wgsl}"
        );
        let glsl_const = glsl
            .lines()
            .find_map(|l| l.strip_prefix("const uint "))
            .and_then(|l| l.split('[').next())
            .unwrap_or_else(|| panic!("a module-scope constant:\n{glsl}"));
        assert!(
            !glsl.contains(&format!("    uint {glsl_const}[3]")),
            "a local is named as the constant `{glsl_const}`:\n{glsl}"
        );
        let gpu = Gpu::new();
        for (voice, words) in run_voices(&gpu, name, src, 1) {
            assert_eq!(words, [1050], "{name} ({voice})");
        }
    }
}

/// Issue 29's MSL reproducer: locals named `level`, `bias` and `gradient2d` are renamed, so
/// `level(...)` still names Metal's sampling option and clang accepts the MSL.
#[test]
fn msl_locals_do_not_hide_sampling_options() {
    let (_glsl, _wgsl, msl) = validated_texts(LEVEL_LOCAL);
    assert!(msl.contains("level(level_1)"), "{msl}");
    for word in ["level", "bias", "gradient2d"] {
        assert!(
            !msl.contains(&format!("float {word} ")) && !msl.contains(&format!("float {word};")),
            "no local is named `{word}`:\n{msl}"
        );
    }
}

/// C++14's keywords and alternative tokens (MSL is C++14 based).
const CPP_KEYWORDS: &[&str] = &[
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char16_t",
    "char32_t",
    "class",
    "compl",
    "const",
    "constexpr",
    "const_cast",
    "continue",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "xor",
    "xor_eq",
    "kernel",
    "vertex",
    "fragment",
    "device",
    "constant",
    "thread",
    "threadgroup",
    "main",
];

/// GLSL 4.60's keywords, reserved words, types and built-in functions (specification
/// sections 3.6 and 8), and the extension functions a Vulkan GLSL backend may call.
const GLSL_WORDS: &[&str] = &[
    "attribute",
    "const",
    "uniform",
    "varying",
    "buffer",
    "shared",
    "coherent",
    "volatile",
    "restrict",
    "readonly",
    "writeonly",
    "atomic_uint",
    "layout",
    "centroid",
    "flat",
    "smooth",
    "noperspective",
    "patch",
    "sample",
    "invariant",
    "precise",
    "break",
    "continue",
    "do",
    "for",
    "while",
    "switch",
    "case",
    "default",
    "if",
    "else",
    "subroutine",
    "in",
    "out",
    "inout",
    "int",
    "void",
    "bool",
    "true",
    "false",
    "float",
    "double",
    "discard",
    "return",
    "vec2",
    "vec3",
    "vec4",
    "ivec2",
    "ivec3",
    "ivec4",
    "bvec2",
    "bvec3",
    "bvec4",
    "uint",
    "uvec2",
    "uvec3",
    "uvec4",
    "dvec2",
    "dvec3",
    "dvec4",
    "mat2",
    "mat3",
    "mat4",
    "mat2x2",
    "mat2x3",
    "mat2x4",
    "mat3x2",
    "mat3x3",
    "mat3x4",
    "mat4x2",
    "mat4x3",
    "mat4x4",
    "dmat2",
    "dmat3",
    "dmat4",
    "lowp",
    "mediump",
    "highp",
    "precision",
    "sampler1D",
    "sampler2D",
    "sampler3D",
    "samplerCube",
    "sampler2DShadow",
    "sampler2DArray",
    "isampler2D",
    "usampler2D",
    "sampler2DMS",
    "image2D",
    "iimage2D",
    "uimage2D",
    "texture2D",
    "sampler",
    "samplerShadow",
    "struct",
    "common",
    "partition",
    "active",
    "asm",
    "class",
    "union",
    "enum",
    "typedef",
    "template",
    "this",
    "resource",
    "goto",
    "inline",
    "noinline",
    "public",
    "static",
    "extern",
    "external",
    "interface",
    "long",
    "short",
    "half",
    "fixed",
    "unsigned",
    "superp",
    "input",
    "output",
    "hvec2",
    "hvec3",
    "hvec4",
    "fvec2",
    "fvec3",
    "fvec4",
    "filter",
    "sizeof",
    "cast",
    "namespace",
    "using",
    "main",
    "radians",
    "degrees",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "pow",
    "exp",
    "log",
    "exp2",
    "log2",
    "sqrt",
    "inversesqrt",
    "abs",
    "sign",
    "floor",
    "trunc",
    "round",
    "roundEven",
    "ceil",
    "fract",
    "mod",
    "modf",
    "min",
    "max",
    "clamp",
    "mix",
    "step",
    "smoothstep",
    "isnan",
    "isinf",
    "floatBitsToInt",
    "floatBitsToUint",
    "intBitsToFloat",
    "uintBitsToFloat",
    "fma",
    "frexp",
    "ldexp",
    "packUnorm2x16",
    "packSnorm2x16",
    "packUnorm4x8",
    "packSnorm4x8",
    "unpackUnorm2x16",
    "unpackSnorm2x16",
    "unpackUnorm4x8",
    "unpackSnorm4x8",
    "packHalf2x16",
    "unpackHalf2x16",
    "packDouble2x32",
    "unpackDouble2x32",
    "length",
    "distance",
    "dot",
    "cross",
    "normalize",
    "faceforward",
    "reflect",
    "refract",
    "matrixCompMult",
    "outerProduct",
    "transpose",
    "determinant",
    "inverse",
    "lessThan",
    "lessThanEqual",
    "greaterThan",
    "greaterThanEqual",
    "equal",
    "notEqual",
    "any",
    "all",
    "not",
    "uaddCarry",
    "usubBorrow",
    "umulExtended",
    "imulExtended",
    "bitfieldExtract",
    "bitfieldInsert",
    "bitfieldReverse",
    "bitCount",
    "findLSB",
    "findMSB",
    "textureSize",
    "textureQueryLod",
    "textureQueryLevels",
    "textureSamples",
    "texture",
    "textureProj",
    "textureLod",
    "textureOffset",
    "texelFetch",
    "texelFetchOffset",
    "textureProjOffset",
    "textureLodOffset",
    "textureProjLod",
    "textureGrad",
    "textureGradOffset",
    "textureGather",
    "textureGatherOffset",
    "textureGatherOffsets",
    "atomicAdd",
    "atomicMin",
    "atomicMax",
    "atomicAnd",
    "atomicOr",
    "atomicXor",
    "atomicExchange",
    "atomicCompSwap",
    "imageSize",
    "imageSamples",
    "imageLoad",
    "imageStore",
    "imageAtomicAdd",
    "dFdx",
    "dFdy",
    "fwidth",
    "interpolateAtCentroid",
    "interpolateAtSample",
    "interpolateAtOffset",
    "barrier",
    "memoryBarrier",
    "memoryBarrierBuffer",
    "memoryBarrierShared",
    "memoryBarrierImage",
    "groupMemoryBarrier",
    "EmitVertex",
    "EndPrimitive",
    "subgroupElect",
    "subgroupAll",
    "subgroupAny",
    "subgroupBallot",
    "subgroupBroadcast",
    "subgroupAdd",
    "subgroupShuffle",
    "int64_t",
    "uint64_t",
    "float16_t",
    "f16vec2",
    "i16vec2",
    "u8vec4",
];

/// Every identifier the stand-in `<metal_stdlib>` declares or uses (types, functions,
/// sampling options, namespaces...), and C++'s keywords.
fn msl_words() -> Vec<String> {
    let header =
        std::fs::read_to_string(oneshader_test_tools::msl_stdlib_dir().join("metal_stdlib"))
            .expect("the stand-in <metal_stdlib> is readable");
    let mut words: BTreeSet<String> = CPP_KEYWORDS.iter().map(|s| s.to_string()).collect();
    // The stand-in's own macros are no Metal names.
    let macros: BTreeSet<&str> = header
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("#define "))
        .filter_map(|l| {
            l.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()
        })
        .collect();
    for line in header.lines() {
        let code = line.split("//").next().unwrap_or("");
        if code.trim_start().starts_with('#') {
            continue;
        }
        let mut cur = String::new();
        for c in code.chars().chain(std::iter::once(' ')) {
            if c.is_ascii_alphanumeric() || c == '_' {
                cur.push(c);
            } else {
                if cur.len() > 1
                    && !cur.starts_with(|c: char| c.is_ascii_digit())
                    && !macros.contains(cur.as_str())
                {
                    words.insert(std::mem::take(&mut cur));
                }
                cur.clear();
            }
        }
    }
    words.into_iter().collect()
}

/// naga's WGSL keywords, reserved words and predeclared identifiers.
fn wgsl_words() -> Vec<String> {
    let mut words: BTreeSet<String> = BTreeSet::new();
    for w in naga::keywords::wgsl::RESERVED
        .iter()
        .chain(naga::keywords::wgsl::BUILTIN_IDENTIFIERS)
    {
        words.insert(w.to_string());
    }
    words.into_iter().collect()
}

/// The HLSL intrinsics the generated shader's main function calls: words equal to one of
/// them cannot be its locals (the local would hide the intrinsic in HLSL itself), so they
/// are locals of [`SIDE`]'s function, which calls others.
const MAIN_INTRINSICS: &[&str] = &[
    "max",
    "min",
    "clamp",
    "abs",
    "countbits",
    "reversebits",
    "firstbithigh",
    "dot",
    "length",
    "sqrt",
    "floor",
    "lerp",
    "asfloat",
    "asuint",
    "asint",
    "sin",
    "cos",
    "saturate",
    "all",
    "any",
    "step",
    "smoothstep",
    "normalize",
    "cross",
    "distance",
    "pow",
    "exp",
    "log",
    "frac",
    "round",
    "trunc",
    "ceil",
    "sign",
    "float2",
    "float3",
    "float4",
    "uint2",
    "uint",
    "int",
    "float",
    "bool",
];

/// The intrinsics of the side function (none in [`MAIN_INTRINSICS`]).
const SIDE: &[&str] = &[
    "exp2",
    "log2",
    "rsqrt",
    "tan",
    "fmod",
    "firstbitlow",
    "atan2",
];

/// True when HLSL takes `word` as a local's name (it is no HLSL keyword or type).
fn hlsl_takes(word: &str) -> bool {
    let src = format!(
        "RWStructuredBuffer<uint> os_out : register(u0);\n\
         [numthreads(1,1,1)] void main(uint3 os_id : SV_DispatchThreadID) {{\n\
             uint {word} = os_id.x + 1u;\n\
             os_out[0] = {word} * 3u;\n\
             float os_f = 0.0f;\n\
             {{ float {word} = (float)os_id.x + 1.0f; os_f = {word}; }}\n\
             os_out[1] = (uint)os_f;\n\
         }}\n"
    );
    Compiler::new()
        .compile_source("probe.hlsl", &src, &CompileOptions::new("cs_6_0"))
        .is_ok()
}

/// A compute shader whose locals are named by `words` (those HLSL takes), each holding a
/// value derived from the thread ID that `os_out[i]` receives next to a read of a static
/// constant array, then a tail that calls many intrinsics (so the target prints its
/// built-in functions and constructors in the scope of every local), and a side function
/// whose locals are the words equal to the main function's intrinsics. Returns the shader,
/// the number of words used and the expected value of each of the first words.
fn generated_shader(words: &[String]) -> (String, usize, Vec<u32>) {
    let mut main_words = Vec::new();
    let mut side_words = Vec::new();
    for w in words {
        if w.starts_with("os_") || SIDE.contains(&w.as_str()) || !hlsl_takes(w) {
            continue;
        }
        if MAIN_INTRINSICS.contains(&w.as_str()) {
            side_words.push(w.clone());
        } else {
            main_words.push(w.clone());
        }
    }
    let tbl = [7u32, 11, 13, 17];
    let mut s = String::new();
    s.push_str("RWStructuredBuffer<uint> os_out : register(u0);\n");
    s.push_str("static const uint os_tbl[4] = { 7, 11, 13, 17 };\n");
    s.push_str("uint os_side(uint os_x) {\n");
    for (i, w) in side_words.iter().enumerate() {
        s.push_str(&format!("    uint {w} = os_x + {i}u;\n"));
    }
    s.push_str("    uint os_acc = (uint)(exp2(2.0f) + log2(8.0f) + rsqrt(4.0f) + tan(0.0f) + fmod(7.0f, 4.0f) + atan2(0.0f, 1.0f)) + firstbitlow(8u);\n");
    for w in &side_words {
        s.push_str(&format!("    os_acc += {w} * 3u + os_tbl[{w} % 4u];\n"));
    }
    s.push_str("    return os_acc;\n}\n");
    s.push_str("[numthreads(1,1,1)] void main(uint3 os_id : SV_DispatchThreadID) {\n");
    for (i, w) in main_words.iter().enumerate() {
        s.push_str(&format!("    uint {w} = os_id.x + {i}u;\n"));
    }
    let mut expected = Vec::new();
    for (i, w) in main_words.iter().enumerate() {
        s.push_str(&format!("    os_out[{i}] = {w} * 3u + os_tbl[{w} % 4u];\n"));
        let v = i as u32;
        expected.push(v * 3 + tbl[(v % 4) as usize]);
    }
    let n = main_words.len();
    s.push_str(&format!(
        "    uint os_a = os_id.x + 6u;\n\
         float os_f = (float)os_id.x + 0.25f;\n\
         uint os_t = max(os_a, 5u) + min(os_a, 1u) + clamp(os_a, 2u, 9u) + countbits(os_a) + (reversebits(os_a) >> 28) + firstbithigh(os_a | 1u) + (uint)abs((int)os_a - 3);\n\
         float os_g = dot(float2(os_f, 1.0f), float2(1.0f, 1.0f)) + length(float3(os_f, 2.0f, 3.0f)) + sqrt(os_f) + floor(os_f) + lerp(os_f, 2.0f, 0.5f) + sin(os_f) + cos(os_f) + saturate(os_f) + step(0.5f, os_f) + smoothstep(0.0f, 1.0f, os_f) + normalize(float3(os_f, 1.0f, 1.0f)).x + cross(float3(os_f, 0.0f, 1.0f), float3(0.0f, 1.0f, 0.0f)).z + distance(float2(os_f, 0.0f), float2(0.0f, 0.0f)) + pow(os_f, 2.0f) + exp(os_f) + log(os_f + 1.0f) + frac(os_f) + round(os_f) + trunc(os_f) + ceil(os_f) + sign(os_f);\n\
         bool os_b = all(float2(os_f, 1.0f) > 0.0f) || any(uint2(os_a, 0u) == 3u);\n\
         uint os_arr[4] = os_tbl;\n\
         os_out[{n}] = os_t + (os_b ? 1u : 0u) + os_arr[os_a % 4u];\n\
         os_out[{}] = asuint(os_g) ^ (uint)asint(asfloat(os_t));\n\
         os_out[{}] = os_side(os_id.x);\n}}\n",
        n + 1,
        n + 2
    ));
    (s, n + side_words.len(), expected)
}

/// A compute shader whose locals are named by `words` (those HLSL takes and that are no
/// intrinsic it calls) and that reads a texture in the ways the targets spell with sampling
/// options and texture built-ins (`level(...)`, `gradient2d(...)`, `textureLoad`,
/// `textureLod`...), for the validators.
fn textured_shader(words: &[String]) -> String {
    let mut s = String::from(
        "Texture2D<float4> os_t : register(t0);\n\
         SamplerState os_s : register(s1);\n\
         RWStructuredBuffer<float4> os_o : register(u2);\n\
         [numthreads(1,1,1)] void main(uint3 os_id : SV_DispatchThreadID) {\n",
    );
    let mut used = Vec::new();
    for w in words {
        if w.starts_with("os_")
            || MAIN_INTRINSICS.contains(&w.as_str())
            || SIDE.contains(&w.as_str())
            || !hlsl_takes(w)
        {
            continue;
        }
        s.push_str(&format!(
            "    float {w} = (float)os_id.x + {}.0f;\n",
            used.len()
        ));
        used.push(w.clone());
    }
    for (i, w) in used.iter().enumerate() {
        s.push_str(&format!(
            "    os_o[{}] = float4({w}, 0.0f, 0.0f, 1.0f);\n",
            i + 1
        ));
    }
    s.push_str("    float os_sum = (float)os_id.x;\n");
    s.push_str(
        "    float2 os_uv = float2(0.5f, os_sum * 0.001f);\n\
         uint os_w, os_h, os_levels;\n\
         os_t.GetDimensions(0, os_w, os_h, os_levels);\n\
         os_o[0] = os_t.SampleLevel(os_s, os_uv, os_sum) + os_t.SampleGrad(os_s, os_uv, float2(0.1f, 0.0f), float2(0.0f, 0.1f))\n\
             + os_t.Load(int3(os_id.xy, 0)) + os_t.GatherRed(os_s, os_uv) + float4(os_w, os_h, os_levels, 0);\n\
         }\n",
    );
    s
}

/// Checks the generated shader over `words` through all three targets and the oracle.
fn words_through_every_target(target_name: &str, words: &[String], at_least: usize) {
    let (src, used, expected) = generated_shader(words);
    assert!(
        used >= at_least,
        "{target_name}: only {used} of {} words are HLSL identifiers",
        words.len()
    );
    validated_texts(&src);
    validated_texts(&textured_shader(words));
    let gpu = Gpu::new();
    let n = expected.len();
    for (voice, out) in run_voices(&gpu, &format!("words_{target_name}"), &src, n + 3) {
        assert_eq!(&out[..n], expected.as_slice(), "{target_name} ({voice})");
    }
    eprintln!(
        "{target_name}: {used} words of {} tried as identifiers",
        words.len()
    );
}

/// Every WGSL keyword, reserved word and predeclared identifier naga knows that HLSL takes
/// as a name: the locals keep their meaning in all three targets.
#[test]
fn wgsl_reserved_and_builtin_words_as_hlsl_names() {
    words_through_every_target("wgsl", &wgsl_words(), 300);
}

/// GLSL's keywords, types and built-in functions as HLSL names.
#[test]
fn glsl_reserved_and_builtin_words_as_hlsl_names() {
    let words: Vec<String> = GLSL_WORDS.iter().map(|s| s.to_string()).collect();
    words_through_every_target("glsl", &words, 150);
}

/// The names of the `metal` namespace (as the stand-in header declares them) and C++'s
/// keywords as HLSL names.
#[test]
fn msl_reserved_and_builtin_words_as_hlsl_names() {
    words_through_every_target("msl", &msl_words(), 150);
}

/// The stand-in header is where the MSL words come from; it must hold the sampling options
/// the issue names, or the MSL test above would try fewer words than it claims.
#[test]
fn the_msl_word_list_holds_the_sampling_options() {
    let words = msl_words();
    for w in [
        "level",
        "bias",
        "gradient2d",
        "min_lod_clamp",
        "sample",
        "select",
        "texture2d",
    ] {
        assert!(words.iter().any(|x| x == w), "{w}");
    }
    assert!(Path::new(&oneshader_test_tools::msl_stdlib_dir()).exists());
}

/// The names the text backends give their own entry-point glue (WGSL's `input` parameter,
/// the `main_in` / `main_out` structs, the `main_body` function) are chosen against the
/// module's: HLSL globals of those names keep theirs and nothing shadows them.
#[test]
fn entry_point_glue_is_named_against_the_modules_names() {
    let src = "RWStructuredBuffer<uint> input : register(u0);
RWStructuredBuffer<uint> main_in : register(u1);
RWStructuredBuffer<uint> main_body : register(u2);
[numthreads(4,1,1)] void main(uint3 id : SV_DispatchThreadID) {
    input[id.x] = main_in[id.x] + main_body[id.x] + id.x;
}
";
    let (_, wgsl, _) = validated_texts(src);
    assert!(
        wgsl.contains("var<storage, read_write> input: array<u32>"),
        "{wgsl}"
    );
    let entry = wgsl
        .lines()
        .find(|l| l.starts_with("fn main("))
        .unwrap_or_else(|| panic!("an entry point:\n{wgsl}"));
    assert!(
        !entry.contains("(input:") && !entry.contains(": main_in)"),
        "{entry}\n{wgsl}"
    );
}
