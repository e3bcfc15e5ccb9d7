//! DXC's `-fspv-reflect` (`CompileOptions::spirv_reflect`): the SPIR-V output carries
//! `OpDecorateString ... UserSemantic` on stage variables (built-ins included, the semantic as
//! the source spelled it), `OpDecorateString ... UserTypeGOOGLE` on bound resources (DXC's
//! spelling of the HLSL type, arrays taking their element's) and `OpDecorateId ...
//! CounterBuffer` from a buffer to its counter, with `SPV_GOOGLE_hlsl_functionality1` and
//! `SPV_GOOGLE_user_type`. The expected strings are the `CHECK` lines of DXC's tests
//! (decoration.user-type.hlsl, spirv.interface.vs.hlsl, spirv.user-semantic.vs.hlsl,
//! type.append-structured-buffer.hlsl, type.structured-buffer.hlsl); both validators accept
//! the output in every Vulkan environment; without the option none of it is there; the
//! decorations survive `-O`, resource-array flattening, `.osir` save/load, the IR text form
//! and linking; text targets refuse the option.

mod support;

use std::collections::HashMap;

use oneshader::{CompileOptions, Compiler, TargetEnv};
use rspirv::dr::{Module, Operand};
use rspirv::spirv::Op;
use support::assert_valid;

/// Every resource kind of decoration.user-type.hlsl, arrays of them, buffers with counters.
const RESOURCES: &str = "\
StructuredBuffer<float> a;
RWStructuredBuffer<float> b;
AppendStructuredBuffer<float> c;
ConsumeStructuredBuffer<float> d;
Texture1D<float> e;
Texture2D<float> f;
Texture3D<float> g;
TextureCube<float> h;
Texture1DArray<float> i;
Texture2DArray<float> j;
Texture2DMS<float> k;
Texture2DMSArray<float> l;
TextureCubeArray<float> m;
RWTexture1D<float> n;
RWTexture2D<float> o;
RWTexture3D<float> p;
RWTexture1DArray<float> q;
RWTexture2DArray<float> r;
Buffer<float> s;
RWBuffer<float> t;
Texture2DMSArray<float4, 64> u;
const Texture2DMSArray<float4, 64> v;
Texture1D t1;
Texture2D t2;
Texture2D<float> fArr[5];
RWTexture2D<float> oArr[5];
Buffer<float> sArr[5];
cbuffer MyCBuffer { float x; };
tbuffer MyTBuffer { float y; };
ByteAddressBuffer bab;
RWByteAddressBuffer rwbab;
RaytracingAccelerationStructure rs;
RasterizerOrderedStructuredBuffer<float> rov;
struct S {
    float  f1;
    float3 f2;
};
ConstantBuffer<S> cb;
TextureBuffer<S> tb;
ConstantBuffer<S> cbArr[3];
SamplerState samp;

float4 main() : SV_Target {
    return 0.0.xxxx;
}
";

/// `Check` lines of decoration.user-type.hlsl (and the arrays and extra kinds above).
const RESOURCE_CHECKS: &[&str] = &[
    "OpDecorateString %a UserTypeGOOGLE \"structuredbuffer:<float>\"",
    "OpDecorateString %b UserTypeGOOGLE \"rwstructuredbuffer:<float>\"",
    "OpDecorateString %c UserTypeGOOGLE \"appendstructuredbuffer:<float>\"",
    "OpDecorateString %d UserTypeGOOGLE \"consumestructuredbuffer:<float>\"",
    "OpDecorateString %e UserTypeGOOGLE \"texture1d:<float>\"",
    "OpDecorateString %f UserTypeGOOGLE \"texture2d:<float>\"",
    "OpDecorateString %g UserTypeGOOGLE \"texture3d:<float>\"",
    "OpDecorateString %h UserTypeGOOGLE \"texturecube:<float>\"",
    "OpDecorateString %i UserTypeGOOGLE \"texture1darray:<float>\"",
    "OpDecorateString %j UserTypeGOOGLE \"texture2darray:<float>\"",
    "OpDecorateString %k UserTypeGOOGLE \"texture2dms:<float>\"",
    "OpDecorateString %l UserTypeGOOGLE \"texture2dmsarray:<float>\"",
    "OpDecorateString %m UserTypeGOOGLE \"texturecubearray:<float>\"",
    "OpDecorateString %n UserTypeGOOGLE \"rwtexture1d:<float>\"",
    "OpDecorateString %o UserTypeGOOGLE \"rwtexture2d:<float>\"",
    "OpDecorateString %p UserTypeGOOGLE \"rwtexture3d:<float>\"",
    "OpDecorateString %q UserTypeGOOGLE \"rwtexture1darray:<float>\"",
    "OpDecorateString %r UserTypeGOOGLE \"rwtexture2darray:<float>\"",
    "OpDecorateString %s UserTypeGOOGLE \"buffer:<float>\"",
    "OpDecorateString %t UserTypeGOOGLE \"rwbuffer:<float>\"",
    "OpDecorateString %u UserTypeGOOGLE \"texture2dmsarray:<float4,64>\"",
    "OpDecorateString %v UserTypeGOOGLE \"texture2dmsarray:<float4,64>\"",
    "OpDecorateString %t1 UserTypeGOOGLE \"texture1d\"",
    "OpDecorateString %t2 UserTypeGOOGLE \"texture2d\"",
    "OpDecorateString %fArr UserTypeGOOGLE \"texture2d:<float>\"",
    "OpDecorateString %oArr UserTypeGOOGLE \"rwtexture2d:<float>\"",
    "OpDecorateString %sArr UserTypeGOOGLE \"buffer:<float>\"",
    "OpDecorateString %MyCBuffer UserTypeGOOGLE \"cbuffer\"",
    "OpDecorateString %MyTBuffer UserTypeGOOGLE \"tbuffer\"",
    "OpDecorateString %bab UserTypeGOOGLE \"byteaddressbuffer\"",
    "OpDecorateString %rwbab UserTypeGOOGLE \"rwbyteaddressbuffer\"",
    "OpDecorateString %rs UserTypeGOOGLE \"raytracingaccelerationstructure\"",
    "OpDecorateString %rov UserTypeGOOGLE \"rasterizerorderedstructuredbuffer:<float>\"",
    "OpDecorateString %cb UserTypeGOOGLE \"constantbuffer:<S>\"",
    "OpDecorateString %tb UserTypeGOOGLE \"texturebuffer:<S>\"",
    "OpDecorateString %cbArr UserTypeGOOGLE \"constantbuffer:<S>\"",
    // type.append-structured-buffer.hlsl, type.consume-structured-buffer.hlsl.
    "OpDecorateId %c CounterBuffer %counter_var_c",
    "OpDecorateId %d CounterBuffer %counter_var_d",
    "OpDecorateString %out_var_SV_Target UserSemantic \"SV_Target\"",
];

/// Stage variables of spirv.interface.vs.hlsl and spirv.user-semantic.vs.hlsl: built-ins
/// (position, point size, clip and cull distances, vertex id), semantics with and without an
/// index, a zero index written, a struct's semantic numbering its fields.
const STAGE_VARS: &str = "\
struct SInstanceData {
    float4x3 VisualToWorld;
    float4 Output;
};
struct VS_INPUT {
    float3 Position : POSITION;
    SInstanceData InstanceData : TEXCOORD4;
};
struct VSOut {
    float4 color : COLOR;
    float4 pos   : SV_Position;
    float2 clip1 : SV_ClipDistance1;
};
[[vk::builtin(\"PointSize\")]]
float main(const VS_INPUT v,
           out VSOut vsOut,
           out   float3 clipdis0 : SV_ClipDistance0,
           inout float4 coord    : TEXCOORD,
           out   float  culldis5 : SV_CullDistance5,
           out   float  culldis3 : SV_CullDistance3,
           in    float4 inPos    : SV_Position,
           in    float3 inCull   : SV_CullDistance0,
           in    uint   vid      : SV_VertexID,
           in    float4 color1   : COLOR1
         ) : PSize {
    vsOut = (VSOut)0;
    vsOut.color = v.InstanceData.Output + color1 + float(vid);
    vsOut.pos = float4(v.Position, 1.0) + inPos;
    clipdis0 = 1.;
    coord = coord * 2.;
    culldis5 = 3.;
    culldis3 = 4.;
    return inCull.x + v.InstanceData.VisualToWorld[0].x;
}
";

/// The `CHECK` lines of spirv.interface.vs.hlsl and spirv.user-semantic.vs.hlsl for these
/// variables (DXC names its built-in variables `gl_*`, OneShader `in.var.*`/`out.var.*`: the
/// strings are DXC's, the ids named as OneShader names them).
const STAGE_CHECKS: &[&str] = &[
    "OpDecorateString %in_var_POSITION UserSemantic \"POSITION\"",
    "OpDecorateString %in_var_TEXCOORD4 UserSemantic \"TEXCOORD4\"",
    "OpDecorateString %in_var_TEXCOORD5 UserSemantic \"TEXCOORD5\"",
    "OpDecorateString %in_var_TEXCOORD UserSemantic \"TEXCOORD\"",
    "OpDecorateString %in_var_SV_Position UserSemantic \"SV_Position\"",
    "OpDecorateString %in_var_SV_CullDistance0 UserSemantic \"SV_CullDistance0\"",
    "OpDecorateString %in_var_COLOR1 UserSemantic \"COLOR1\"",
    "OpDecorateString %in_var_SV_VertexID UserSemantic \"SV_VertexID\"",
    "OpDecorateString %out_var_PSize UserSemantic \"PSize\"",
    "OpDecorateString %out_var_COLOR UserSemantic \"COLOR\"",
    "OpDecorateString %out_var_SV_Position UserSemantic \"SV_Position\"",
    "OpDecorateString %out_var_SV_ClipDistance UserSemantic \"SV_ClipDistance\"",
    "OpDecorateString %out_var_SV_CullDistance UserSemantic \"SV_CullDistance\"",
    "OpDecorateString %out_var_TEXCOORD UserSemantic \"TEXCOORD\"",
];

/// type.structured-buffer.hlsl: a buffer whose counter is used gets `CounterBuffer`, one
/// without none; used in a helper function (inlined at `-O`).
const COUNTERS: &str = "\
struct S { float4 f; };
RWStructuredBuffer<S> used : register(u1);
RWStructuredBuffer<S> plain : register(u2);
AppendStructuredBuffer<S> app : register(u3);
ConsumeStructuredBuffer<S> con : register(u4);
Texture2D<float4> texs[4] : register(t0);
SamplerState smp : register(s0);

float4 bump(uint i) {
    return float4(used.IncrementCounter(), 0, 0, 0) + used[i].f + plain[i].f;
}

[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    S s = con.Consume();
    s.f += bump(id.x);
    s.f += texs[1].SampleLevel(smp, float2(0, 0), 0) + texs[2].SampleLevel(smp, float2(0, 0), 0);
    app.Append(s);
}
";

fn options(args: &[&str]) -> CompileOptions {
    CompileOptions::from_dxc_args(args.iter().copied())
        .unwrap_or_else(|e| panic!("{args:?} does not parse: {e}"))
}

fn compile(src: &str, opts: &CompileOptions) -> oneshader::CompileOutput {
    Compiler::new()
        .compile_source("reflect.hlsl", src, opts)
        .unwrap_or_else(|e| panic!("{}", e.diagnostics.render()))
}

fn spirv(src: &str, args: &[&str]) -> Vec<u32> {
    compile(src, &options(args)).spirv
}

/// An id as DXC's disassembly names it: `%` and its `OpName` with `.` as `_`.
fn names(m: &Module) -> HashMap<u32, String> {
    m.debug_names
        .iter()
        .filter(|i| i.class.opcode == Op::Name)
        .filter_map(|i| match (i.operands.first(), i.operands.get(1)) {
            (Some(Operand::IdRef(id)), Some(Operand::LiteralString(s))) => {
                Some((*id, format!("%{}", s.replace('.', "_"))))
            }
            _ => None,
        })
        .collect()
}

/// Every `OpDecorateString` and `OpDecorateId` of the module as DXC's `CHECK` lines spell
/// them.
fn reflection_lines(words: &[u32]) -> Vec<String> {
    let m = rspirv::dr::load_words(words).expect("the output parses");
    let names = names(&m);
    let name = |id: u32| names.get(&id).cloned().unwrap_or_else(|| format!("%{id}"));
    m.annotations
        .iter()
        .filter_map(|i| {
            let target = i.operands.first().and_then(Operand::id_ref_any)?;
            let deco = match i.operands.get(1) {
                Some(Operand::Decoration(d)) => format!("{d:?}"),
                _ => return None,
            };
            match (i.class.opcode, i.operands.get(2)) {
                (Op::DecorateString, Some(Operand::LiteralString(s))) => {
                    Some(format!("OpDecorateString {} {deco} \"{s}\"", name(target)))
                }
                (Op::DecorateId, Some(o)) => Some(format!(
                    "OpDecorateId {} {deco} {}",
                    name(target),
                    name(o.id_ref_any()?)
                )),
                _ => None,
            }
        })
        .collect()
}

fn extensions(words: &[u32]) -> Vec<String> {
    let m = rspirv::dr::load_words(words).expect("the output parses");
    m.extensions
        .iter()
        .filter_map(|i| match i.operands.first() {
            Some(Operand::LiteralString(s)) => Some(s.clone()),
            _ => None,
        })
        .collect()
}

fn assert_has(lines: &[String], checks: &[&str]) {
    for c in checks {
        assert!(
            lines.iter().any(|l| l == c),
            "missing `{c}`; the reflection decorations are:\n{}",
            lines.join("\n")
        );
    }
}

const ENVS: &[(&str, TargetEnv)] = &[
    ("vulkan1.0", TargetEnv::Vulkan1_0),
    ("vulkan1.1", TargetEnv::Vulkan1_1),
    ("vulkan1.2", TargetEnv::Vulkan1_2),
    ("vulkan1.3", TargetEnv::Vulkan1_3),
];

#[test]
fn resources_carry_dxc_user_types_and_both_validators_accept_them_in_every_vulkan_env() {
    for &(env, target_env) in ENVS {
        let words = spirv(
            RESOURCES,
            &[
                "-T",
                "ps_6_0",
                "-E",
                "main",
                "-fspv-reflect",
                "-fspv-preserve-bindings",
                &format!("-fspv-target-env={env}"),
            ],
        );
        assert_valid(
            &words,
            target_env,
            &format!("the -fspv-reflect output ({env})"),
        );
        let lines = reflection_lines(&words);
        assert_has(&lines, RESOURCE_CHECKS);
        // Samplers have no user type; neither do counters.
        for l in &lines {
            assert!(
                !l.starts_with("OpDecorateString %samp ")
                    && !l.starts_with("OpDecorateString %counter_var_"),
                "{l}"
            );
        }
        let exts = extensions(&words);
        for e in ["SPV_GOOGLE_hlsl_functionality1", "SPV_GOOGLE_user_type"] {
            assert!(exts.iter().any(|x| x == e), "{env}: no {e} in {exts:?}");
        }
    }
}

#[test]
fn stage_variables_carry_their_semantics_as_written_built_ins_included() {
    for &(env, target_env) in ENVS {
        for level in ["-O0", "-O3"] {
            let words = spirv(
                STAGE_VARS,
                &[
                    "-T",
                    "vs_6_0",
                    "-E",
                    "main",
                    "-fspv-reflect",
                    level,
                    &format!("-fspv-target-env={env}"),
                ],
            );
            assert_valid(
                &words,
                target_env,
                &format!("the vertex shader ({env}, {level})"),
            );
            let lines = reflection_lines(&words);
            assert_has(&lines, STAGE_CHECKS);
            let exts = extensions(&words);
            assert!(
                exts.iter().any(|x| x == "SPV_GOOGLE_hlsl_functionality1"),
                "{exts:?}"
            );
            // No resource, no user type: DXC declares the user-type extension only with one.
            assert!(
                !exts.iter().any(|x| x == "SPV_GOOGLE_user_type"),
                "{exts:?}"
            );
        }
    }
}

#[test]
fn buffers_link_their_counters_and_the_decorations_survive_o() {
    for &(env, target_env) in ENVS {
        let env_arg = format!("-fspv-target-env={env}");
        let args = [
            "-T",
            "cs_6_0",
            "-E",
            "main",
            "-fspv-reflect",
            "-O3",
            &env_arg,
        ];
        let words = spirv(COUNTERS, &args);
        assert_valid(&words, target_env, &format!("the counters ({env})"));
        let lines = reflection_lines(&words);
        assert_has(
            &lines,
            &[
                "OpDecorateId %used CounterBuffer %counter_var_used",
                "OpDecorateId %app CounterBuffer %counter_var_app",
                "OpDecorateId %con CounterBuffer %counter_var_con",
                "OpDecorateString %used UserTypeGOOGLE \"rwstructuredbuffer:<S>\"",
                "OpDecorateString %plain UserTypeGOOGLE \"rwstructuredbuffer:<S>\"",
                "OpDecorateString %app UserTypeGOOGLE \"appendstructuredbuffer:<S>\"",
                "OpDecorateString %con UserTypeGOOGLE \"consumestructuredbuffer:<S>\"",
                "OpDecorateString %texs UserTypeGOOGLE \"texture2d:<float4>\"",
                "OpDecorateString %in_var_SV_DispatchThreadID UserSemantic \"SV_DispatchThreadID\"",
            ],
        );
        assert!(
            !lines.iter().any(|l| l.starts_with("OpDecorateId %plain ")),
            "a buffer whose counter is unused has none:\n{}",
            lines.join("\n")
        );
    }
}

/// An array of textures under `-fspv-flatten-resource-arrays`.
const FLATTENED: &str = "\
Texture2D<float4> texs[4] : register(t0);
SamplerState smp : register(s0);
RWTexture1D<float4> outTex : register(u0);
[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    outTex[id.x] = texs[1].SampleLevel(smp, float2(0, 0), 0) + texs[2].SampleLevel(smp, float2(0, 0), 0);
}
";

#[test]
fn each_element_of_a_flattened_array_keeps_the_arrays_user_type() {
    let words = spirv(
        FLATTENED,
        &[
            "-T",
            "cs_6_0",
            "-E",
            "main",
            "-fspv-reflect",
            "-fspv-flatten-resource-arrays",
        ],
    );
    assert_valid(&words, TargetEnv::Vulkan1_2, "the flattened array");
    let lines = reflection_lines(&words);
    assert_has(
        &lines,
        &[
            "OpDecorateString %texs[1] UserTypeGOOGLE \"texture2d:<float4>\"",
            "OpDecorateString %texs[2] UserTypeGOOGLE \"texture2d:<float4>\"",
            "OpDecorateString %outTex UserTypeGOOGLE \"rwtexture1d:<float4>\"",
        ],
    );
    assert!(!lines.iter().any(|l| l.contains("%smp ")), "{lines:?}");
    // Structured buffers of structs are buffers, not arrays to flatten; their counters stay.
    let words = spirv(
        COUNTERS,
        &[
            "-T",
            "cs_6_0",
            "-E",
            "main",
            "-fspv-reflect",
            "-fspv-flatten-resource-arrays",
        ],
    );
    assert_valid(&words, TargetEnv::Vulkan1_2, "the flattened counters");
    assert_has(
        &reflection_lines(&words),
        &[
            "OpDecorateId %used CounterBuffer %counter_var_used",
            "OpDecorateString %used UserTypeGOOGLE \"rwstructuredbuffer:<S>\"",
            "OpDecorateString %texs[1] UserTypeGOOGLE \"texture2d:<float4>\"",
        ],
    );
}

#[test]
fn without_the_option_there_is_none_of_it() {
    for (src, profile) in [
        (RESOURCES, "ps_6_0"),
        (STAGE_VARS, "vs_6_0"),
        (COUNTERS, "cs_6_0"),
    ] {
        let plain = spirv(
            src,
            &["-T", profile, "-E", "main", "-fspv-preserve-bindings"],
        );
        assert!(
            reflection_lines(&plain).is_empty(),
            "{:?}",
            reflection_lines(&plain)
        );
        let exts = extensions(&plain);
        assert!(
            !exts.iter().any(|e| e.starts_with("SPV_GOOGLE_")),
            "{exts:?}"
        );
        let with = spirv(
            src,
            &[
                "-T",
                profile,
                "-E",
                "main",
                "-fspv-preserve-bindings",
                "-fspv-reflect",
            ],
        );
        assert_ne!(plain, with, "the option changes the output");
    }
}

#[test]
fn the_decorations_survive_osir_save_and_load_the_ir_text_and_linking() {
    let mut opts = options(&["-T", "cs_6_0", "-E", "main", "-fspv-reflect"]);
    opts.keep_final_ir = true;
    let out = compile(COUNTERS, &opts);
    let final_module = out.ir.final_module.expect("the final module is kept");
    let text = oneshader::ir::print::print_module(&final_module);
    assert!(
        text.contains("user_type(\"rwstructuredbuffer:<S>\")"),
        "{text}"
    );
    assert!(
        text.contains("semantic(\"SV_DispatchThreadID\", 0)"),
        "{text}"
    );
    // The IR text form round-trips.
    let reparsed = oneshader::ir::parse::parse(&text).expect("the text parses");
    assert_eq!(oneshader::ir::print::print_module(&reparsed), text);
    // `.osir` save/load.
    let bytes = oneshader::serialize::save(&final_module).expect("saves");
    let loaded = oneshader::serialize::load(&bytes, &Default::default()).expect("loads");
    assert_eq!(oneshader::ir::print::print_module(&loaded.module), text);
    // Linking clones the module with its decorations.
    let linked = oneshader::passes::link::link(
        &[loaded.module],
        &oneshader::passes::link::LinkOptions::default(),
    )
    .expect("links");
    let mut linked = linked;
    let legal = oneshader::backends::prepare(&mut linked, oneshader::backends::Target::Spirv)
        .expect("legal");
    let words = oneshader::backends::spirv::emit(&legal, &opts.spirv_options()).expect("emits");
    assert_valid(&words, TargetEnv::Vulkan1_2, "the linked module");
    assert_eq!(reflection_lines(&words), reflection_lines(&out.spirv));
}

#[test]
fn a_zero_index_is_spelled_only_when_written_in_the_ir_text_too() {
    let src = "float4 main(float4 a : TEXCOORD0, float4 b : NORMAL, float4 c : COLOR2) : SV_Target0 { return a + b + c; }";
    let mut opts = options(&["-T", "ps_6_0", "-E", "main", "-fspv-reflect"]);
    opts.keep_final_ir = true;
    let out = compile(src, &opts);
    let text = oneshader::ir::print::print_module(out.ir.final_module.as_ref().expect("kept"));
    assert!(text.contains("semantic(\"TEXCOORD\", 0, 1)"), "{text}");
    assert!(text.contains("semantic(\"NORMAL\", 0)]"), "{text}");
    assert!(text.contains("semantic(\"COLOR\", 2)"), "{text}");
    assert!(text.contains("semantic(\"SV_Target\", 0, 1)"), "{text}");
    assert_has(
        &reflection_lines(&out.spirv),
        &[
            "OpDecorateString %in_var_TEXCOORD0 UserSemantic \"TEXCOORD0\"",
            "OpDecorateString %in_var_NORMAL UserSemantic \"NORMAL\"",
            "OpDecorateString %in_var_COLOR2 UserSemantic \"COLOR2\"",
            "OpDecorateString %out_var_SV_Target0 UserSemantic \"SV_Target0\"",
        ],
    );
}

#[test]
fn text_targets_refuse_the_option() {
    for target in ["glsl", "wgsl", "msl"] {
        let e =
            CompileOptions::from_dxc_args(["-T", "ps_6_0", "-fspv-reflect", "--target", target])
                .expect_err("refused");
        let msg = e.to_string();
        assert!(msg.contains("-fspv-reflect"), "{target}: {msg}");
        assert!(
            msg.contains("refused rather than ignored"),
            "{target}: {msg}"
        );
    }
    // SPIR-V and its disassembly take it.
    for target in ["spirv", "spirv-asm"] {
        let o =
            CompileOptions::from_dxc_args(["-T", "ps_6_0", "-fspv-reflect", "--target", target])
                .expect("accepted");
        assert!(o.spirv_reflect, "{target}");
    }
}

#[test]
fn a_manifest_asks_for_the_decorations_of_its_spirv_outputs() {
    let text = "[[shader]]\nfile = \"s.hlsl\"\nprofile = \"ps_6_0\"\n\
                targets = [\"spirv\", \"spirv-asm\", \"glsl\"]\nspirv_reflect = true\n";
    let m = oneshader::build::manifest::parse(std::path::Path::new("oneshader.toml"), text)
        .unwrap_or_else(|e| panic!("{e}"));
    let opts = &m.shaders[0].options;
    assert!(opts.spirv_reflect);
    // The Ninja edges pass it to the SPIR-V outputs only (the command line refuses it for
    // the others), and each edge's command line parses.
    use oneshader::build::ninja::compile_args;
    use oneshader::target::OutputKind;
    for (kind, has) in [
        (OutputKind::Spirv, true),
        (OutputKind::SpirvAsm, true),
        (OutputKind::Glsl, false),
    ] {
        let args = compile_args(opts, kind);
        assert_eq!(
            args.iter().any(|a| a == "-fspv-reflect"),
            has,
            "{kind:?}: {args:?}"
        );
        let parsed = CompileOptions::from_dxc_args(args.iter().map(String::as_str))
            .unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        assert_eq!(parsed.spirv_reflect, has, "{kind:?}");
    }
    // Without it, off.
    let plain = oneshader::build::manifest::parse(
        std::path::Path::new("oneshader.toml"),
        "[[shader]]\nfile = \"s.hlsl\"\nprofile = \"ps_6_0\"\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(!plain.shaders[0].options.spirv_reflect);
    // The option keys the SPIR-V output (a cached output without the decorations is not
    // reused for one with them), and only when given.
    let key = |o: &CompileOptions| OutputKind::Spirv.options_text(o);
    assert_ne!(key(opts), key(&plain.shaders[0].options));
    assert!(!key(&plain.shaders[0].options).contains("reflect"));
}

/// A hand-written module with the decorations: `oneshader emit` reads them from IR text.
const IR_MODULE: &str = "\
global @albedo : ptr<uniform_constant, texture<2d, vec<f32, 4>>> [binding(0, 0), user_type(\"texture2d:<float4>\")]
global @linear : ptr<uniform_constant, sampler> [binding(0, 1)]
global @uv : ptr<input, vec<f32, 2>> [location(0), semantic(\"TEXCOORD\", 0, 1)]
global @target : ptr<output, vec<f32, 4>> [location(0), semantic(\"SV_Target\", 0)]

func @ps_main() -> void [entry_point(fragment, \"ps_main\")] {
bb0:
  %0 = load @uv : vec<f32, 2>
  %1 = sample @albedo, @linear, %0 : vec<f32, 4>
  store @target, %1
  return
}
";

#[test]
fn emit_takes_the_option_from_ir_text_and_refuses_it_for_text_targets() {
    let dir = std::env::temp_dir().join(format!("oneshader-reflect-emit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let ir = dir.join("m.ir");
    std::fs::write(&ir, IR_MODULE).expect("written");
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_oneshader"))
            .arg("emit")
            .arg(&ir)
            .args(args)
            .output()
            .expect("oneshader runs")
    };
    let out = dir.join("m.spv");
    let o = run(&[
        "--target",
        "spirv",
        "-fspv-reflect",
        "-o",
        out.to_str().expect("utf-8"),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bytes = std::fs::read(&out).expect("output");
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_valid(&words, TargetEnv::Vulkan1_2, "emit's output");
    assert_has(
        &reflection_lines(&words),
        &[
            "OpDecorateString %albedo UserTypeGOOGLE \"texture2d:<float4>\"",
            "OpDecorateString %uv UserSemantic \"TEXCOORD0\"",
            "OpDecorateString %target UserSemantic \"SV_Target\"",
        ],
    );
    let plain = run(&["--target", "spirv-asm"]);
    assert!(plain.status.success());
    let text = String::from_utf8_lossy(&plain.stdout);
    assert!(
        !text.contains("UserTypeGOOGLE") && !text.contains("SPV_GOOGLE"),
        "{text}"
    );
    for target in ["glsl", "wgsl", "msl"] {
        let o = run(&["--target", target, "--fspv-reflect"]);
        assert!(!o.status.success(), "{target}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("error[OSC0036]"), "{target}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
