//! `printf` and `DebugBreak` (issue 26, item 6): `NonSemantic.DebugPrintf` and
//! `NonSemantic.DebugBreak` as DXC writes them (instruction 1 of the set, the format an
//! `OpString`, the values as they are: literals as `int` and `float`), kept at `-O` where they
//! are, ignored by what computes; GL_EXT_debug_printf's `debugPrintfEXT` in GLSL (glslang
//! reads back the same format); refused by name by WGSL and MSL, which have no debug output.
//! Before, every `printf` was refused (OSH1018) and `DebugBreak` was an undefined function.

mod support;

use oneshader::{CompileOptions, Compiler, OptLevel, OutputKind, TargetEnv};
use oneshader_vulkan_harness::Gpu;
use support::assert_valid;

const SHADER: &str = "\
RWStructuredBuffer<uint> Out : register(u0);
const string greeting = \"hello \\\"world\\\"\\n\";

[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint v = Out[id.x] * 3;
    printf(greeting);
    if (v > 6) {
        printf(\"lane %u: %u %d %f\\t%v2f\\\\\", id.x, v, -2, 1.5, float2(v, 0.25));
    }
    Out[id.x] = v + 1;
}
";

fn compile(text: &str, profile: &str, level: OptLevel, env: TargetEnv) -> Vec<u32> {
    let o = CompileOptions::new(profile)
        .opt_level(level)
        .target_env(env);
    let out = Compiler::new()
        .compile_source("printf.hlsl", text, &o)
        .unwrap_or_else(|e| panic!("{}", e.diagnostics.render()));
    assert_valid(&out.spirv, env, &format!("printf.hlsl {level:?} {env}"));
    out.spirv
}

fn refusal(text: &str, profile: &str, kind: OutputKind) -> String {
    let mut o = CompileOptions::new(profile);
    kind.configure(&mut o);
    match Compiler::new().compile_source("printf.hlsl", text, &o) {
        Ok(_) => panic!("{kind:?}: compiled"),
        Err(e) => e.diagnostics.render(),
    }
}

#[test]
fn printf_is_a_debug_printf_instruction_of_its_format_and_values_at_o0_and_o() {
    for level in [OptLevel::O0, OptLevel::O] {
        for env in [
            TargetEnv::Vulkan1_0,
            TargetEnv::Vulkan1_2,
            TargetEnv::Vulkan1_3,
        ] {
            let words = compile(SHADER, "cs_6_0", level, env);
            let dis = oneshader_test_tools::spirv_dis(&words);
            let import = dis
                .lines()
                .find(|l| l.contains("OpExtInstImport \"NonSemantic.DebugPrintf\""))
                .and_then(|l| l.split_whitespace().next())
                .unwrap_or_else(|| panic!("{level:?}: the import\n{dis}"))
                .to_string();
            // SPV_KHR_non_semantic_info below SPIR-V 1.6 (Vulkan 1.3), where it is core.
            assert_eq!(
                dis.contains("OpExtension \"SPV_KHR_non_semantic_info\""),
                env != TargetEnv::Vulkan1_3,
                "{level:?} {env}\n{dis}"
            );
            let prints: Vec<&str> = dis
                .lines()
                .filter(|l| l.contains(&format!("OpExtInst %void {import} 1 ")))
                .collect();
            assert_eq!(
                prints.len(),
                2,
                "{level:?} {env}: both prints are kept\n{dis}"
            );
            // The formats, escapes resolved (spirv-dis writes them back escaped).
            assert!(dis.contains(r#"OpString "hello \"world\""#), "{dis}");
            assert!(
                dis.contains(r#"OpString "lane %u: %u %d %f	%v2f\\""#),
                "{dis}"
            );
            // The second print's values: the lane, `v`, an int, a float and a float2.
            let ops: Vec<&str> = prints[1].split_whitespace().collect();
            // `%r = OpExtInst %void %set 1 %format` and five values.
            assert_eq!(
                ops.len(),
                12,
                "{level:?}: format and five values: {}",
                prints[1]
            );
            assert_eq!(
                (ops[9], ops[10]),
                ("%int_n2", "%float_1_5"),
                "{}",
                prints[1]
            );
            // The guarded print stays in the branch: after a conditional branch.
            let at = |needle: &str| dis.find(needle).expect("present");
            assert!(at("OpBranchConditional") < dis.find(prints[1]).expect("there"));
        }
    }
}

#[test]
fn a_shader_that_prints_computes_what_it_computes_without_the_print() {
    let gpu = Gpu::new();
    for level in [OptLevel::O0, OptLevel::O] {
        let words = compile(SHADER, "cs_6_0", level, TargetEnv::Vulkan1_2);
        let mut bufs = vec![vec![1u32, 2, 3, 4]];
        gpu.run(&words, "main", &mut bufs, [1, 1, 1]);
        assert_eq!(bufs[0], vec![4, 7, 10, 13], "{level:?}");
    }
}

#[test]
fn glsl_prints_with_debug_printf_ext_and_glslang_reads_back_the_same_formats() {
    oneshader_test_tools::require_tool("glslangValidator");
    let mut o = CompileOptions::new("cs_6_0");
    OutputKind::Glsl.configure(&mut o);
    let out = Compiler::new()
        .compile_source("printf.hlsl", SHADER, &o)
        .unwrap_or_else(|e| panic!("{}", e.diagnostics.render()));
    let glsl = String::from_utf8(OutputKind::Glsl.bytes(&out).expect("glsl")).expect("text");
    assert!(
        glsl.contains("#extension GL_EXT_debug_printf : require"),
        "{glsl}"
    );
    assert!(
        glsl.contains(r#"debugPrintfEXT("hello \"world\"\n")"#),
        "the format as a GLSL string literal:\n{glsl}"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let (src, spv) = (dir.path().join("p.comp"), dir.path().join("p.spv"));
    std::fs::write(&src, &glsl).expect("write");
    let run = std::process::Command::new("glslangValidator")
        .args(["-V", "--target-env", "vulkan1.2", "-o"])
        .arg(&spv)
        .arg(&src)
        .output()
        .expect("glslang runs");
    assert!(
        run.status.success(),
        "{}\n{glsl}",
        String::from_utf8_lossy(&run.stdout)
    );
    let words: Vec<u32> = std::fs::read(&spv)
        .expect("read")
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let theirs = oneshader_test_tools::spirv_dis(&words);
    let ours = oneshader_test_tools::spirv_dis(&compile(
        SHADER,
        "cs_6_0",
        OptLevel::O,
        TargetEnv::Vulkan1_2,
    ));
    let strings = |dis: &str| -> Vec<String> {
        let mut s: Vec<String> = dis
            .lines()
            .filter(|l| l.contains("OpString") && (l.contains("hello") || l.contains("lane")))
            .map(|l| {
                l.split_once("OpString")
                    .expect("there")
                    .1
                    .trim()
                    .to_string()
            })
            .collect();
        s.sort();
        s
    };
    assert_eq!(strings(&theirs), strings(&ours));
    assert_eq!(strings(&ours).len(), 2);
}

#[test]
fn debug_break_is_a_debug_break_instruction() {
    let text = "\
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    if (id.x == 0) { DebugBreak(); }
    Out[id.x] = id.x;
}
";
    for level in [OptLevel::O0, OptLevel::O] {
        let words = compile(text, "cs_6_0", level, TargetEnv::Vulkan1_2);
        let dis = oneshader_test_tools::spirv_dis(&words);
        let import = dis
            .lines()
            .find(|l| l.contains("OpExtInstImport \"NonSemantic.DebugBreak\""))
            .and_then(|l| l.split_whitespace().next())
            .unwrap_or_else(|| panic!("{level:?}: the import\n{dis}"))
            .to_string();
        let breaks = dis
            .lines()
            .filter(|l| {
                l.trim_end()
                    .ends_with(&format!("OpExtInst %void {import} 1"))
            })
            .count();
        assert_eq!(breaks, 1, "{level:?}\n{dis}");
    }
    let glsl = refusal(text, "cs_6_0", OutputKind::Glsl);
    assert!(
        glsl.contains("OSB0109") && glsl.contains("DebugBreak"),
        "{glsl}"
    );
}

#[test]
fn wgsl_and_msl_refuse_a_print_by_name() {
    for (kind, code) in [(OutputKind::Wgsl, "OSB0208"), (OutputKind::Msl, "OSB0308")] {
        let r = refusal(SHADER, "cs_6_0", kind);
        assert!(r.contains(code) && r.contains("`printf`"), "{kind:?}: {r}");
    }
}

#[test]
fn a_format_that_is_not_a_string_and_values_that_are_not_numbers_are_refused_at_their_place() {
    let bad = [
        (
            "uint f = 3; printf(f);",
            "the format of `printf` must be a string literal",
            "f);",
        ),
        (
            "printf(\"%d\", true);",
            "`printf` prints numeric scalars and vectors, not `bool`",
            "true",
        ),
        (
            "printf(\"%d\", float2x2(1, 2, 3, 4));",
            "not `float2x2`",
            "float2x2(",
        ),
        ("errorf(\"no\");", "`errorf` is not supported", "errorf"),
    ];
    for (stmt, message, at) in bad {
        let text = format!(
            "RWStructuredBuffer<uint> Out : register(u0);\n[numthreads(1, 1, 1)]\nvoid main() {{\n    {stmt}\n    Out[0] = 1;\n}}\n"
        );
        let o = CompileOptions::new("cs_6_0");
        let err = match Compiler::new().compile_source("bad.hlsl", &text, &o) {
            Ok(_) => panic!("`{stmt}` compiled"),
            Err(e) => e.diagnostics.render(),
        };
        let col = text
            .lines()
            .nth(3)
            .and_then(|l| l.find(at))
            .expect("on line 4")
            + 1;
        assert!(
            err.contains(message) && err.contains(&format!("bad.hlsl:4:{col}:")),
            "`{stmt}`: {err}"
        );
    }
}
