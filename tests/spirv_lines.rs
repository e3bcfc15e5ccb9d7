//! SPIR-V line information (`DebugInfo::Lines`, the CLI's `-Zi` / `-fspv-debug=line`): the
//! `OpLine` stream, decoded, maps each store, call and branch of shaders with known
//! statements to the HLSL line it came from, at `-O0` and `-O`; `OpSource` names the main
//! file (with its text under `DebugInfo::LinesWithSource`), includes are their own
//! `OpString`; both spirv-vals accept the result.

mod support;

use support::line_of;

use oneshader::{CompileOptions, Compiler, DebugInfo, OptLevel, TargetEnv};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::Op;
use support::*;

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
    for (uint i = 0; i < id.y; i++)
    {
        Out[4 + i] = 44.0;
    }
}
";

const HELPERS: &str = "\
// Helpers in their own file.
float twice(float v)
{
    return v * 2.0 + 0.5;
}
";

/// Every function-body instruction with the (file name, line) in effect before it.
fn with_lines(module: &rspirv::dr::Module) -> Vec<(Instruction, Option<(String, u32)>)> {
    let strings: std::collections::HashMap<u32, String> = module
        .debug_string_source
        .iter()
        .filter(|i| i.class.opcode == Op::String)
        .filter_map(|i| match (&i.result_id, i.operands.first()) {
            (Some(id), Some(Operand::LiteralString(s))) => Some((*id, s.clone())),
            _ => None,
        })
        .collect();
    let mut out = Vec::new();
    for f in &module.functions {
        for b in &f.blocks {
            // A line ends with its block.
            let mut cur: Option<(String, u32)> = None;
            for i in &b.instructions {
                match i.class.opcode {
                    Op::Line => {
                        let (Operand::IdRef(file), Operand::LiteralBit32(line)) =
                            (&i.operands[0], &i.operands[1])
                        else {
                            panic!("OpLine operands: {i:?}");
                        };
                        let name = strings.get(file).expect("OpLine names an OpString");
                        cur = Some((name.clone(), *line));
                    }
                    Op::NoLine => cur = None,
                    _ => out.push((i.clone(), cur.clone())),
                }
            }
        }
    }
    out
}

fn compile(level: OptLevel, debug: DebugInfo) -> Vec<u32> {
    let mut c = Compiler::new();
    c.add_include("helpers.hlsli", HELPERS);
    let mut opts = CompileOptions::new("cs_6_0").opt_level(level);
    opts.debug_info = debug;
    let out = c
        .compile_source("lines.hlsl", SHADER, &opts)
        .unwrap_or_else(|e| panic!("{}", e.diagnostics.render()));
    assert_valid(
        &out.spirv,
        TargetEnv::Vulkan1_2,
        &format!("{level:?} {debug:?}"),
    );
    out.spirv
}

/// The float constant ids of `module` by value.
fn float_constant(module: &rspirv::dr::Module, value: f32) -> Option<u32> {
    module.types_global_values.iter().find_map(|i| {
        (i.class.opcode == Op::Constant
            && matches!(i.operands.first(), Some(Operand::LiteralBit32(b)) if *b == value.to_bits()))
        .then_some(i.result_id)
        .flatten()
    })
}

#[test]
fn stores_calls_and_branches_map_to_their_hlsl_lines_at_o0_and_o() {
    for level in [OptLevel::O0, OptLevel::O] {
        let words = compile(level, DebugInfo::Lines);
        let module = rspirv::dr::load_words(&words).expect("parses");
        let insts = with_lines(&module);
        let what = format!("{level:?}");
        // Every store, call and branch has a line, in the main file or the include.
        for (i, l) in &insts {
            if matches!(
                i.class.opcode,
                Op::Store | Op::FunctionCall | Op::BranchConditional | Op::Branch | Op::Switch
            ) {
                let (file, line) = l
                    .clone()
                    .unwrap_or_else(|| panic!("{what}: {:?} without a line", i.class.opcode));
                let text = if file.ends_with("helpers.hlsli") {
                    HELPERS
                } else {
                    assert!(file.ends_with("lines.hlsl"), "{what}: file {file}");
                    SHADER
                };
                assert!(
                    line >= 1 && line as usize <= text.lines().count(),
                    "{what}: line {line} of {file}"
                );
            }
        }
        // Each constant store is on its statement's line.
        for (value, needle) in [
            (11.0, "Out[1] = 11.0"),
            (22.0, "Out[2] = 22.0"),
            (44.0, "= 44.0"),
        ] {
            let c = float_constant(&module, value).expect("the constant is stored");
            let lines: Vec<u32> = insts
                .iter()
                .filter(|(i, _)| {
                    i.class.opcode == Op::Store && i.operands.get(1) == Some(&Operand::IdRef(c))
                })
                .map(|(_, l)| l.as_ref().expect("a line").1)
                .collect();
            assert!(!lines.is_empty(), "{what}: a store of {value}");
            assert!(
                lines.iter().all(|&l| l == line_of(SHADER, needle)),
                "{what}: stores of {value} on lines {lines:?}, `{needle}` is on {}",
                line_of(SHADER, needle)
            );
        }
        // The `if` and the loop test branch on their lines.
        let cond_lines: Vec<u32> = insts
            .iter()
            .filter(|(i, _)| i.class.opcode == Op::BranchConditional)
            .map(|(_, l)| l.as_ref().expect("a line").1)
            .collect();
        for needle in ["if (a > 3.0)", "for (uint i"] {
            assert!(
                cond_lines.contains(&line_of(SHADER, needle)),
                "{what}: a conditional branch on `{needle}`'s line: {cond_lines:?}"
            );
        }
        // The multiply of `twice` is on its line of the include (inlined at -O).
        let mul = insts
            .iter()
            .find(|(i, _)| i.class.opcode == Op::FMul)
            .expect("twice multiplies");
        assert_eq!(
            mul.1,
            Some(("helpers.hlsli".into(), line_of(HELPERS, "v * 2.0"))),
            "{what}"
        );
        if level == OptLevel::O0 {
            // The call of `twice` is on its statement's line.
            let calls: Vec<u32> = insts
                .iter()
                .filter(|(i, _)| i.class.opcode == Op::FunctionCall)
                .map(|(_, l)| l.as_ref().expect("a line").1)
                .collect();
            assert!(
                calls.contains(&line_of(SHADER, "twice(a)")),
                "{what}: calls on lines {calls:?}"
            );
        }
    }
}

#[test]
fn op_source_names_the_main_file_and_embeds_its_text_on_request() {
    let words = compile(OptLevel::O, DebugInfo::LinesWithSource);
    let module = rspirv::dr::load_words(&words).expect("parses");
    let source = module
        .debug_string_source
        .iter()
        .find(|i| i.class.opcode == Op::Source)
        .expect("an OpSource");
    assert_eq!(
        source.operands[0],
        Operand::SourceLanguage(rspirv::spirv::SourceLanguage::HLSL)
    );
    assert_eq!(source.operands[1], Operand::LiteralBit32(600));
    let Operand::IdRef(file) = source.operands[2] else {
        panic!("OpSource names a file: {source:?}");
    };
    let name = module
        .debug_string_source
        .iter()
        .find(|i| i.result_id == Some(file))
        .and_then(|i| match i.operands.first() {
            Some(Operand::LiteralString(s)) => Some(s.clone()),
            _ => None,
        })
        .expect("the file is an OpString");
    assert!(name.ends_with("lines.hlsl"), "{name}");
    assert_eq!(source.operands[3], Operand::LiteralString(SHADER.into()));
    // Without embedding: no text; without line info: no OpSource, OpString or OpLine.
    let plain = rspirv::dr::load_words(compile(OptLevel::O, DebugInfo::Lines)).expect("parses");
    let source = plain
        .debug_string_source
        .iter()
        .find(|i| i.class.opcode == Op::Source)
        .expect("an OpSource");
    assert_eq!(source.operands.len(), 3);
    let none = rspirv::dr::load_words(compile(OptLevel::O, DebugInfo::None)).expect("parses");
    assert!(none.debug_string_source.is_empty());
    assert!(
        none.functions
            .iter()
            .flat_map(|f| &f.blocks)
            .flat_map(|b| &b.instructions)
            .all(|i| i.class.opcode != Op::Line)
    );
}

/// A main file longer than one instruction holds goes on in `OpSourceContinued`, and the
/// pieces put back together are the text.
#[test]
fn a_long_source_continues_in_op_source_continued() {
    let mut text = String::from(SHADER);
    // About 400 KB of comment: more than one instruction's 65535 words.
    let filler = "// filler line to make the file longer than one SPIR-V instruction holds\n";
    while text.len() < 400_000 {
        text.push_str(filler);
    }
    let mut c = Compiler::new();
    c.add_include("helpers.hlsli", HELPERS);
    let mut opts = CompileOptions::new("cs_6_0");
    opts.debug_info = DebugInfo::LinesWithSource;
    let out = c
        .compile_source("long.hlsl", &text, &opts)
        .unwrap_or_else(|e| panic!("{}", e.diagnostics.render()));
    assert_valid(&out.spirv, TargetEnv::Vulkan1_2, "long source");
    let module = rspirv::dr::load_words(&out.spirv).expect("parses");
    let mut back = String::new();
    let mut continued = 0;
    for i in &module.debug_string_source {
        match (i.class.opcode, i.operands.last()) {
            (Op::Source, Some(Operand::LiteralString(s))) => back.push_str(s),
            (Op::SourceContinued, Some(Operand::LiteralString(s))) => {
                back.push_str(s);
                continued += 1;
            }
            _ => {}
        }
    }
    assert!(continued >= 1, "continued {continued} times");
    assert_eq!(back, text);
}

/// The CLI's `-Zi` (and `-fspv-debug=line`) turn line information on, `-Qembed_debug` adds the
/// text; without them there is none.
#[test]
fn the_cli_switches_reach_the_backend() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(dir.path().join("helpers.hlsli"), HELPERS).expect("writes");
    let src = dir.path().join("lines.hlsl");
    std::fs::write(&src, SHADER).expect("writes");
    let run = |flags: &[&str]| {
        let out = dir.path().join("out.spv");
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_oneshader"))
            .args(["compile", "-T", "cs_6_0", "-E", "main"])
            .args(flags)
            .arg(&src)
            .arg("-o")
            .arg(&out)
            .output()
            .expect("runs");
        assert!(status.status.success(), "{flags:?}: {:?}", status);
        let bytes = std::fs::read(&out).expect("written");
        let module = rspirv::dr::load_bytes(bytes).expect("parses");
        let lines = module
            .functions
            .iter()
            .flat_map(|f| &f.blocks)
            .flat_map(|b| &b.instructions)
            .filter(|i| i.class.opcode == Op::Line)
            .count();
        let text = module
            .debug_string_source
            .iter()
            .any(|i| i.class.opcode == Op::Source && i.operands.len() == 4);
        (lines, text)
    };
    assert_eq!(run(&[]), (0, false));
    let (n, text) = run(&["-Zi"]);
    assert!(n > 5 && !text, "{n} {text}");
    assert!(run(&["-fspv-debug=line"]).0 > 5);
    let (n, text) = run(&["-Zi", "-Qembed_debug"]);
    assert!(n > 5 && text);
}
