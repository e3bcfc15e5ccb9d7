//! Source lines in the text targets (`-Zi`, `-fspv-debug=`, issue 24 item 4): in GLSL each
//! statement of a shader with known statements is preceded by the `#line N "file"` of its
//! HLSL line, the extension they need is required, glslang accepts the result at `-O0` and
//! `-O` and its `-g` output's `OpLine`s name the HLSL file; in WGSL and MSL a `// file:line`
//! comment precedes them, and naga and clang accept the result; without debug information
//! there are none.

mod support;

use support::line_of;

use oneshader::{CompileOptions, Compiler, DebugInfo, OptLevel, Target};
use oneshader_test_tools::{GlslStage, glslang_and_validate};

const SHADER: &str = "\
#include \"helpers.hlsli\"
RWStructuredBuffer<float> Out : register(u0);

[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float a = Out[id.x];
    Out[1] = 11.0;
    if (a > 3.0)
    {
        Out[2] = 22.0;
    }
    else
    {
        Out[3] = twice(a);
    }
}
";

const HELPERS: &str = "\
float twice(float v)
{
    return v * 2.0 + 0.5;
}
";

fn text(target: Target, level: OptLevel, debug: DebugInfo) -> String {
    let mut c = Compiler::new();
    c.add_include("helpers.hlsli", HELPERS);
    let mut opts = CompileOptions::new("cs_6_0")
        .opt_level(level)
        .target(target);
    opts.debug_info = debug;
    let out = c
        .compile_source("lines.hlsl", SHADER, &opts)
        .unwrap_or_else(|e| panic!("{}", e.diagnostics.render()));
    match target {
        Target::Glsl => out.glsl,
        Target::Wgsl => out.wgsl,
        Target::Msl => out.msl,
        _ => None,
    }
    .expect("the target's text")
}

fn glsl(level: OptLevel, debug: DebugInfo) -> String {
    text(Target::Glsl, level, debug)
}

/// The (file, line) of the `#line` directive in effect at the GLSL line containing `needle`.
fn directive_before(glsl: &str, needle: &str) -> Option<(String, u32)> {
    let mut cur: Option<(String, u32)> = None;
    for l in glsl.lines() {
        if let Some(rest) = l.trim_start().strip_prefix("#line ") {
            let (n, file) = rest.split_once(' ').expect("#line N \"file\"");
            cur = Some((
                file.trim_matches('"').to_string(),
                n.parse().expect("a number"),
            ));
        } else if l.contains(needle) {
            return cur;
        }
    }
    None
}

/// The (file, line) of the last `// file:line` comment before the line containing `needle`.
fn comment_before(text: &str, needle: &str) -> Option<(String, u32)> {
    let mut cur: Option<(String, u32)> = None;
    for l in text.lines() {
        if let Some(rest) = l.trim_start().strip_prefix("// ")
            && let Some((file, n)) = rest.rsplit_once(':')
            && let Ok(n) = n.parse()
        {
            cur = Some((file.to_string(), n));
        } else if l.contains(needle) {
            return cur;
        }
    }
    None
}

#[test]
fn wgsl_and_msl_statements_follow_a_comment_naming_their_hlsl_line_and_still_validate() {
    for target in [Target::Wgsl, Target::Msl] {
        for level in [OptLevel::O0, OptLevel::O] {
            for debug in [
                DebugInfo::Lines,
                DebugInfo::VulkanWithSource,
                DebugInfo::Rich,
            ] {
                let what = format!("{target:?} {level:?} {debug:?}");
                let out = text(target, level, debug);
                for (stmt, hlsl_stmt, file) in [
                    ("= 11.0", "Out[1] = 11.0", "lines.hlsl"),
                    ("= 22.0", "Out[2] = 22.0", "lines.hlsl"),
                ] {
                    let (f, line) = comment_before(&out, stmt)
                        .unwrap_or_else(|| panic!("{what}: no comment before `{stmt}`:\n{out}"));
                    assert_eq!(f, file, "{what}");
                    assert_eq!(line, line_of(SHADER, hlsl_stmt), "{what}: `{stmt}`\n{out}");
                }
                // At -O0 the helper's return keeps its own file's line.
                if level == OptLevel::O0 {
                    let (f, line) = comment_before(&out, "return")
                        .unwrap_or_else(|| panic!("{what}: no comment before `return`:\n{out}"));
                    assert_eq!((f.as_str(), line), ("helpers.hlsli", 3), "{what}:\n{out}");
                }
                match target {
                    Target::Wgsl => {
                        oneshader_test_tools::naga_validate(&out)
                            .unwrap_or_else(|e| panic!("{what}: naga rejects it: {e}\n{out}"));
                    }
                    _ => oneshader_test_tools::msl_clang_check(&out)
                        .unwrap_or_else(|e| panic!("{what}: clang rejects it: {e}\n{out}")),
                }
            }
        }
        let plain = text(target, OptLevel::O, DebugInfo::None);
        assert!(
            !plain.lines().any(|l| l.contains(".hlsl:")),
            "{target:?} without debug information:\n{plain}"
        );
    }
}

#[test]
fn statements_carry_the_line_directive_of_their_hlsl_line_and_glslang_accepts_them() {
    for level in [OptLevel::O0, OptLevel::O] {
        for debug in [
            DebugInfo::Lines,
            DebugInfo::Vulkan,
            DebugInfo::RichWithSource,
        ] {
            let what = format!("{level:?} {debug:?}");
            let text = glsl(level, debug);
            assert!(
                text.contains("#extension GL_GOOGLE_cpp_style_line_directive : require"),
                "{what}:\n{text}"
            );
            for (glsl_stmt, hlsl_stmt) in
                [("= 11.0;", "Out[1] = 11.0"), ("= 22.0;", "Out[2] = 22.0")]
            {
                let (file, line) = directive_before(&text, glsl_stmt)
                    .unwrap_or_else(|| panic!("{what}: no #line before `{glsl_stmt}`:\n{text}"));
                assert!(file.ends_with("lines.hlsl"), "{what}: {file}");
                assert_eq!(
                    line,
                    line_of(SHADER, hlsl_stmt),
                    "{what}: `{glsl_stmt}`\n{text}"
                );
            }
            let words = glslang_and_validate(&text, GlslStage::Compute).unwrap_or_else(|e| {
                panic!("{what}: glslang rejects the #line directives: {e}\n{text}")
            });
            assert!(!words.is_empty());
        }
    }
    let plain = glsl(OptLevel::O, DebugInfo::None);
    assert!(!plain.contains("#line") && !plain.contains("GL_GOOGLE_cpp_style_line_directive"));
}

/// A function's header carries the `#line` of its declaration (the name in the HLSL, in the
/// file that declares it): `twice` of the included file at `-O0`, where it stays a function,
/// and the entry point's `main` at both levels.
#[test]
fn function_headers_carry_the_line_directive_of_their_declaration() {
    for level in [OptLevel::O0, OptLevel::O] {
        let text = glsl(level, DebugInfo::Lines);
        let header = |needle: &str| {
            directive_before(&text, needle)
                .unwrap_or_else(|| panic!("{level:?}: no #line before `{needle}`:\n{text}"))
        };
        let (file, line) = header("void main()");
        assert!(file.ends_with("lines.hlsl"), "{level:?}: {file}");
        assert_eq!(line, line_of(SHADER, "void main("), "{level:?}:\n{text}");
        if level == OptLevel::O0 {
            let twice = text
                .lines()
                .find(|l| l.contains("twice") && l.trim_end().ends_with(") {"))
                .unwrap_or_else(|| panic!("a function `twice`:\n{text}"))
                .to_string();
            let (file, line) = header(&twice);
            assert!(file.ends_with("helpers.hlsli"), "{file}");
            assert_eq!(line, line_of(HELPERS, "float twice("), "{text}");
        }
    }
}

/// glslang's own debug information (`-g`) of our GLSL points at the HLSL file.
#[test]
fn glslang_g_output_names_the_hlsl_file() {
    oneshader_test_tools::require_tool("glslangValidator");
    let dir = tempfile::tempdir().expect("a temporary folder");
    let src = dir.path().join("lines.comp");
    std::fs::write(&src, glsl(OptLevel::O, DebugInfo::Lines)).expect("writes");
    let out = dir.path().join("lines.spv");
    let run = std::process::Command::new("glslangValidator")
        .args(["-V", "-g"])
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("glslangValidator runs");
    assert!(run.status.success(), "{run:?}");
    let words: Vec<u32> = std::fs::read(&out)
        .expect("written")
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let dis = oneshader_test_tools::spirv_dis(&words);
    assert!(
        dis.lines()
            .any(|l| l.contains("OpString") && l.contains("lines.hlsl")),
        "glslang -g names the HLSL file:\n{dis}"
    );
}
