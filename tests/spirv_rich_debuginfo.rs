//! OpenCL.DebugInfo.100 (`DebugInfo::Rich`/`RichWithSource`, the CLI's
//! `-fspv-debug=rich[-with-source]`), decoded from the words: the import (without
//! SPV_KHR_non_semantic_info), `DebugSource`/`DebugCompilationUnit` naming the file with literal
//! operands, a `DebugFunction` per function naming its `OpFunction`, `DebugLocalVariable` +
//! `DebugDeclare` at `-O0`, matrices as two-dimensional `DebugTypeArray`s, lines as core
//! `OpLine`s at the statements' HLSL lines; both spirv-vals accept it at `-O0` and `-O` (every
//! example, every Vulkan environment for the test shader) and after either `spirv-opt -O`;
//! `-Qstrip_debug` removes it all.

mod support;

use support::line_of;

use std::collections::HashMap;

use oneshader::{CompileOptions, Compiler, DebugInfo, OptLevel, TargetEnv};
use support::*;

const SHADER: &str = "\
struct Light { float4 color; int count; };
cbuffer Params { float4x4 mvp; Light light; };
RWStructuredBuffer<float> Out : register(u0);

float scale(float x, int y)
{
    float z = x * y;
    return z + 1.0;
}

[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float3x4 m = 0;
    float a = Out[id.x];
    Out[1] = scale(a, 2);
    Out[2] = mvp[0].x + light.color.y + m[1].z + light.count;
}
";

/// Instruction numbers of OpenCL.DebugInfo.100 (SPIRV-Headers'
/// extinst.opencl.debuginfo.100.grammar.json).
const DEBUG_INFO_NONE: u32 = 0;
const DEBUG_COMPILATION_UNIT: u32 = 1;
const DEBUG_TYPE_BASIC: u32 = 2;
const DEBUG_TYPE_ARRAY: u32 = 5;
const DEBUG_TYPE_COMPOSITE: u32 = 10;
const DEBUG_TYPE_MEMBER: u32 = 11;
const DEBUG_GLOBAL_VARIABLE: u32 = 18;
const DEBUG_FUNCTION: u32 = 20;
const DEBUG_SCOPE: u32 = 23;
const DEBUG_LOCAL_VARIABLE: u32 = 26;
const DEBUG_DECLARE: u32 = 28;
const DEBUG_SOURCE: u32 = 35;
/// `SourceLanguage` HLSL.
const HLSL: u32 = 5;

/// Core opcodes the decoder reads.
const OP_SOURCE: u32 = 3;
const OP_STRING: u32 = 7;
const OP_LINE: u32 = 8;
const OP_EXTENSION: u32 = 10;
const OP_EXT_INST_IMPORT: u32 = 11;
const OP_EXT_INST: u32 = 12;
const OP_CONSTANT: u32 = 43;
const OP_FUNCTION: u32 = 54;
const OP_FUNCTION_END: u32 = 56;
const OP_VARIABLE: u32 = 59;
const OP_STORE: u32 = 62;
const OP_FUNCTION_CALL: u32 = 57;

/// One instruction: opcode and operand words.
#[derive(Clone, Debug)]
struct Inst {
    op: u32,
    words: Vec<u32>,
}

/// The words' instructions after the header.
fn decode(words: &[u32]) -> Vec<Inst> {
    let mut out = Vec::new();
    let mut k = 5;
    while k < words.len() {
        let count = (words[k] >> 16) as usize;
        assert!(
            count > 0 && k + count <= words.len(),
            "a whole instruction at {k}"
        );
        out.push(Inst {
            op: words[k] & 0xffff,
            words: words[k + 1..k + count].to_vec(),
        });
        k += count;
    }
    out
}

/// A literal string's text (nul-terminated, padded to words).
fn string(words: &[u32]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// The decoded module: the import of the set, `OpString`s, 32-bit constants, the set's
/// instructions (number, result id, operands), and every instruction in order.
struct Decoded {
    insts: Vec<Inst>,
    set: Option<u32>,
    strings: HashMap<u32, String>,
    constants: HashMap<u32, u32>,
}

impl Decoded {
    fn new(words: &[u32]) -> Decoded {
        let insts = decode(words);
        let set = insts
            .iter()
            .find(|i| i.op == OP_EXT_INST_IMPORT && string(&i.words[1..]) == "OpenCL.DebugInfo.100")
            .map(|i| i.words[0]);
        let strings = insts
            .iter()
            .filter(|i| i.op == OP_STRING)
            .map(|i| (i.words[0], string(&i.words[1..])))
            .collect();
        let constants = insts
            .iter()
            .filter(|i| i.op == OP_CONSTANT && i.words.len() == 3)
            .map(|i| (i.words[1], i.words[2]))
            .collect();
        Decoded {
            insts,
            set,
            strings,
            constants,
        }
    }

    fn set(&self) -> u32 {
        self.set.expect("the OpenCL.DebugInfo.100 import")
    }

    /// The set's instructions numbered `number`: (result id, operands after the number).
    fn debug(&self, number: u32) -> Vec<(u32, Vec<u32>)> {
        let set = self.set();
        self.insts
            .iter()
            .filter(|i| i.op == OP_EXT_INST && i.words[2] == set && i.words[3] == number)
            .map(|i| (i.words[1], i.words[4..].to_vec()))
            .collect()
    }

    /// The one instruction numbered `number` whose first operand is the string `name`.
    fn named(&self, number: u32, name: &str) -> (u32, Vec<u32>) {
        let found: Vec<_> = self
            .debug(number)
            .into_iter()
            .filter(|(_, a)| self.strings.get(&a[0]).map(String::as_str) == Some(name))
            .collect();
        assert_eq!(
            found.len(),
            1,
            "one instruction {number} named {name}: {found:?}"
        );
        found[0].clone()
    }
}

fn options(profile: &str, entry: &str, level: OptLevel, debug: DebugInfo) -> CompileOptions {
    let mut opts = CompileOptions::new(profile).entry(entry).opt_level(level);
    opts.debug_info = debug;
    opts
}

fn compile(level: OptLevel, debug: DebugInfo, env: TargetEnv) -> Vec<u32> {
    let mut opts = options("cs_6_0", "main", level, debug);
    opts.target_env = env;
    let out = Compiler::new()
        .compile_source("rich.hlsl", SHADER, &opts)
        .unwrap_or_else(|e| panic!("{}", e.diagnostics.render()));
    assert_valid(&out.spirv, env, &format!("rich.hlsl {level:?} {debug:?}"));
    out.spirv
}

#[test]
fn rich_imports_opencl_debuginfo_without_the_non_semantic_extension() {
    for level in [OptLevel::O0, OptLevel::O] {
        let d = Decoded::new(&compile(level, DebugInfo::Rich, TargetEnv::Vulkan1_2));
        d.set();
        let imports: Vec<String> = d
            .insts
            .iter()
            .filter(|i| i.op == OP_EXT_INST_IMPORT)
            .map(|i| string(&i.words[1..]))
            .collect();
        assert!(
            !imports.iter().any(|s| s.starts_with("NonSemantic.")),
            "{level:?}: {imports:?}"
        );
        assert!(
            !d.insts
                .iter()
                .any(|i| i.op == OP_EXTENSION && string(&i.words) == "SPV_KHR_non_semantic_info"),
            "{level:?}: no SPV_KHR_non_semantic_info"
        );
    }
}

#[test]
fn the_compilation_unit_and_its_source_name_the_file_with_literal_operands() {
    let d = Decoded::new(&compile(
        OptLevel::O0,
        DebugInfo::Rich,
        TargetEnv::Vulkan1_2,
    ));
    let sources = d.debug(DEBUG_SOURCE);
    assert_eq!(sources.len(), 1, "{sources:?}");
    let (source, args) = &sources[0];
    assert_eq!(d.strings[&args[0]], "rich.hlsl");
    assert_eq!(args.len(), 1, "no text without -with-source");
    let units = d.debug(DEBUG_COMPILATION_UNIT);
    assert_eq!(units.len(), 1);
    // Version 1, DWARF 4, the source, HLSL: literals, not constant ids.
    assert_eq!(units[0].1, vec![1, 4, *source, HLSL]);
    // `OpSource` names the file too, as under `-Zi`.
    let op_source = d
        .insts
        .iter()
        .find(|i| i.op == OP_SOURCE)
        .expect("OpSource");
    assert_eq!(
        d.strings.get(&op_source.words[2]).map(String::as_str),
        Some("rich.hlsl")
    );
}

#[test]
fn rich_with_source_puts_the_text_in_the_debug_source() {
    let d = Decoded::new(&compile(
        OptLevel::O0,
        DebugInfo::RichWithSource,
        TargetEnv::Vulkan1_2,
    ));
    let sources = d.debug(DEBUG_SOURCE);
    assert_eq!(sources.len(), 1);
    let args = &sources[0].1;
    assert_eq!(args.len(), 2, "file and text");
    assert_eq!(d.strings[&args[1]], SHADER);
}

#[test]
fn a_debug_function_per_function_names_its_opfunction() {
    for level in [OptLevel::O0, OptLevel::O] {
        let d = Decoded::new(&compile(level, DebugInfo::Rich, TargetEnv::Vulkan1_2));
        let unit = d.debug(DEBUG_COMPILATION_UNIT)[0].0;
        let functions: Vec<u32> = d
            .insts
            .iter()
            .filter(|i| i.op == OP_FUNCTION)
            .map(|i| i.words[1])
            .collect();
        let described = d.debug(DEBUG_FUNCTION);
        for f in &functions {
            let n = described.iter().filter(|(_, a)| a[9] == *f).count();
            assert_eq!(n, 1, "{level:?}: one DebugFunction names %{f}");
        }
        // The others describe functions inlined everywhere (at -O): no `OpFunction` is left
        // to name, so they name a `DebugInfoNone`, as the set requires.
        let none: Vec<u32> = d.debug(DEBUG_INFO_NONE).iter().map(|x| x.0).collect();
        let inlined: Vec<&(u32, Vec<u32>)> = described
            .iter()
            .filter(|(_, a)| !functions.contains(&a[9]))
            .collect();
        for (_, a) in &inlined {
            assert!(
                none.contains(&a[9]),
                "{level:?}: %{} is no DebugInfoNone",
                a[9]
            );
        }
        match level {
            OptLevel::O0 => assert!(inlined.is_empty(), "nothing is inlined at -O0"),
            _ => {
                let (_, scale) = d.named(DEBUG_FUNCTION, "scale");
                assert!(none.contains(&scale[9]), "scale is inlined at -O");
            }
        }
        for (_, a) in &described {
            // Line, column, flags and scope line are literals; the parent is the unit.
            assert_eq!(a[5], unit, "{level:?}");
            assert_eq!(a[3], a[8], "{level:?}: the scope line is the declaration's");
        }
        if level == OptLevel::O0 {
            let (_, scale) = d.named(DEBUG_FUNCTION, "scale");
            assert_eq!(scale[3], line_of(SHADER, "float scale("));
            assert_eq!(scale[4], 7, "at its name");
            assert_eq!(scale[7], 3, "FlagIsPublic");
        }
        // Each function's blocks open with its DebugScope.
        let scopes = d.debug(DEBUG_SCOPE);
        assert!(scopes.len() >= functions.len(), "{level:?}");
    }
}

#[test]
fn locals_have_a_debug_local_variable_and_a_debug_declare_at_o0() {
    let d = Decoded::new(&compile(
        OptLevel::O0,
        DebugInfo::Rich,
        TargetEnv::Vulkan1_2,
    ));
    let (scale_fn, _) = d.named(DEBUG_FUNCTION, "scale");
    let variables: HashMap<u32, u32> = d
        .insts
        .iter()
        .filter(|i| i.op == OP_VARIABLE && i.words.len() >= 3)
        .map(|i| (i.words[1], i.words[2]))
        .collect();
    let declares = d.debug(DEBUG_DECLARE);
    for name in ["x", "y", "z"] {
        let (local, a) = d.named(DEBUG_LOCAL_VARIABLE, name);
        assert_eq!(a[5], scale_fn, "{name}'s scope is scale");
        assert_eq!(a[6], 4, "{name}: FlagIsLocal, a literal");
        let declared: Vec<_> = declares.iter().filter(|(_, b)| b[0] == local).collect();
        assert_eq!(declared.len(), 1, "{name}: one DebugDeclare");
        assert!(
            variables.contains_key(&declared[0].1[1]),
            "{name}: DebugDeclare names an OpVariable"
        );
    }
    // The other function's locals are there too.
    let (main_fn, _) = d.named(DEBUG_FUNCTION, "main_body");
    for name in ["a", "m"] {
        assert_eq!(d.named(DEBUG_LOCAL_VARIABLE, name).1[5], main_fn, "{name}");
    }
}

#[test]
fn types_are_described_with_opencl_operands() {
    let d = Decoded::new(&compile(
        OptLevel::O0,
        DebugInfo::Rich,
        TargetEnv::Vulkan1_2,
    ));
    // `DebugTypeBasic`: name, size (a constant id), encoding (a literal), no flags.
    let (float, a) = d.named(DEBUG_TYPE_BASIC, "float");
    assert_eq!(a.len(), 3);
    assert_eq!(d.constants[&a[1]], 32);
    assert_eq!(a[2], 3, "Float");
    // A matrix is a two-dimensional array of its element: float3x4 is 3 by 4, float4x4 4 by 4.
    let arrays: Vec<Vec<u32>> = d
        .debug(DEBUG_TYPE_ARRAY)
        .into_iter()
        .map(|(_, a)| a)
        .filter(|a| a[0] == float)
        .map(|a| a[1..].iter().map(|c| d.constants[c]).collect())
        .collect();
    assert!(arrays.contains(&vec![3, 4]), "{arrays:?}");
    assert!(arrays.contains(&vec![4, 4]), "{arrays:?}");
    // The struct: its members name it as their parent.
    let (light, c) = d.named(DEBUG_TYPE_COMPOSITE, "Light");
    assert_eq!(c[1], 1, "Structure, a literal");
    let members = &c[9..];
    assert_eq!(members.len(), 2);
    let all = d.debug(DEBUG_TYPE_MEMBER);
    for (m, name) in members.iter().zip(["color", "count"]) {
        let (_, a) = all.iter().find(|(id, _)| id == m).expect("the member");
        assert_eq!(d.strings[&a[0]], name);
        assert_eq!(a[5], light, "{name}'s parent");
    }
    // The cbuffer is a global variable, a definition as DXC flags it.
    let (_, g) = d.named(DEBUG_GLOBAL_VARIABLE, "Params");
    assert_eq!(g[3], line_of(SHADER, "cbuffer Params"));
    assert_eq!(g[8], 8, "FlagIsDefinition");
}

/// Both spirv-opts (the system's and the current one) optimize the output with `-O`, keep
/// its debug information and their output validates: a global that is not flagged as a
/// definition made their dead-code elimination abort.
#[test]
fn spirv_opt_o_of_the_rich_output_still_validates() {
    oneshader_test_tools::require_tool("spirv-opt");
    let current = oneshader_test_tools::current_spirv_val().with_file_name("spirv-opt");
    for level in [OptLevel::O0, OptLevel::O] {
        let words = compile(level, DebugInfo::RichWithSource, TargetEnv::Vulkan1_2);
        for opt in [std::path::PathBuf::from("spirv-opt"), current.clone()] {
            let w = spirv_opt_o_with(&opt, &words, &format!("{level:?}"));
            assert_valid(
                &w,
                TargetEnv::Vulkan1_2,
                &format!("{level:?}: {} -O's output", opt.display()),
            );
            let d = Decoded::new(&w);
            assert!(
                !d.debug(DEBUG_FUNCTION).is_empty() && d.insts.iter().any(|i| i.op == OP_LINE),
                "{level:?}: {} kept the debug information",
                opt.display()
            );
        }
    }
}

/// (line in effect, opcode) of every function-body instruction after an `OpLine`.
fn lines(d: &Decoded) -> Vec<(Option<u32>, u32)> {
    let mut out = Vec::new();
    let mut cur = None;
    let mut in_body = false;
    for i in &d.insts {
        match i.op {
            OP_FUNCTION => in_body = true,
            OP_FUNCTION_END => in_body = false,
            OP_LINE => {
                assert_eq!(d.strings[&i.words[0]], "rich.hlsl");
                cur = Some(i.words[1]);
            }
            // A label ends a line.
            248 => cur = None,
            // OpNoLine.
            317 => cur = None,
            op if in_body => out.push((cur, op)),
            _ => {}
        }
    }
    out
}

#[test]
fn lines_are_core_oplines_at_the_statements_lines_at_o0_and_o() {
    for level in [OptLevel::O0, OptLevel::O] {
        let d = Decoded::new(&compile(level, DebugInfo::Rich, TargetEnv::Vulkan1_2));
        // No instruction of the set stands for a line: OpenCL.DebugInfo.100 has none (the
        // numbers NonSemantic.Shader.DebugInfo.100 uses for them are not in the set).
        assert!(d.debug(103).is_empty() && d.debug(104).is_empty());
        let l = lines(&d);
        let call = line_of(SHADER, "Out[1] = scale(a, 2);");
        assert!(
            l.iter()
                .any(|&(line, op)| op == OP_FUNCTION_CALL && line == Some(call))
                || level == OptLevel::O,
            "{level:?}: the call at line {call}: {l:?}"
        );
        let stores: Vec<u32> = l
            .iter()
            .filter(|&&(_, op)| op == OP_STORE)
            .filter_map(|&(line, _)| line)
            .collect();
        for needle in ["Out[1] = scale(a, 2);", "Out[2] = mvp[0].x"] {
            let at = line_of(SHADER, needle);
            assert!(
                stores.contains(&at),
                "{level:?}: a store at line {at}: {stores:?}"
            );
        }
    }
}

#[test]
fn every_vulkan_environment_accepts_it_at_o0_and_o() {
    for env in [
        TargetEnv::Vulkan1_0,
        TargetEnv::Vulkan1_1,
        TargetEnv::Vulkan1_2,
        TargetEnv::Vulkan1_3,
    ] {
        for level in [OptLevel::O0, OptLevel::O] {
            for debug in [DebugInfo::Rich, DebugInfo::RichWithSource] {
                // `compile` runs both validators.
                compile(level, debug, env);
            }
        }
    }
}

#[test]
fn every_example_validates_with_rich_debug_info_at_o0_and_o() {
    for (file, profile, entry) in documented_entry_points() {
        for level in [OptLevel::O0, OptLevel::O] {
            for debug in [DebugInfo::Rich, DebugInfo::RichWithSource] {
                let opts = options(&profile, &entry, level, debug);
                let out = compile_file(&format!("examples/hlsl/{file}"), &opts);
                assert_valid(
                    &out.spirv,
                    TargetEnv::Vulkan1_2,
                    &format!("{file} {entry} {level:?} {debug:?}"),
                );
            }
        }
    }
}

/// The CLI honours `-fspv-debug=rich` and `rich-with-source` (and `-Qembed_debug` makes
/// `rich` `rich-with-source`); `-Qstrip_debug` removes every trace; the text targets take it
/// as line directives or comments; the IR output refuses it naming the option.
#[test]
fn the_cli_honours_fspv_debug_rich_and_qstrip_debug_removes_it() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let src = dir.path().join("rich.hlsl");
    std::fs::write(&src, SHADER).expect("writes");
    let run = |flags: &[&str]| {
        let out = dir.path().join("out.bin");
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_oneshader"))
            .args(["compile", "-T", "cs_6_0", "-E", "main"])
            .args(flags)
            .arg(&src)
            .arg("-o")
            .arg(&out)
            .output()
            .expect("runs");
        (o, out)
    };
    let words = |out: &std::path::Path| -> Vec<u32> {
        std::fs::read(out)
            .expect("written")
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    for (flags, with_text) in [
        (&["-fspv-debug=rich"][..], false),
        (&["-fspv-debug=rich-with-source"][..], true),
        (&["-fspv-debug=rich", "-Zi", "-Qembed_debug"][..], true),
    ] {
        for level in ["-O0", "-O3"] {
            let (o, out) = run(&[flags, &[level]].concat());
            assert!(o.status.success(), "{flags:?} {level}: {o:?}");
            let w = words(&out);
            spirv_val(&w, TargetEnv::Vulkan1_2).unwrap_or_else(|e| panic!("{flags:?}: {e}"));
            let d = Decoded::new(&w);
            let sources = d.debug(DEBUG_SOURCE);
            assert_eq!(sources[0].1.len() == 2, with_text, "{flags:?}");
            assert!(
                d.insts.iter().any(|i| i.op == OP_LINE),
                "{flags:?}: OpLines"
            );
        }
    }
    let (o, out) = run(&["-fspv-debug=rich", "-Qstrip_debug"]);
    assert!(o.status.success(), "{o:?}");
    let d = Decoded::new(&words(&out));
    assert!(d.set.is_none(), "no import after -Qstrip_debug");
    assert!(
        !d.insts
            .iter()
            .any(|i| matches!(i.op, OP_EXT_INST_IMPORT | OP_STRING | OP_LINE)
                && !(i.op == OP_EXT_INST_IMPORT && string(&i.words[1..]) == "GLSL.std.450")),
        "no debug instruction after -Qstrip_debug"
    );
    let (o, plain) = run(&[]);
    assert!(o.status.success());
    let (o, stripped) = run(&["-fspv-debug=rich-with-source", "-Qstrip_debug"]);
    assert!(o.status.success());
    assert_eq!(
        words(&plain),
        words(&stripped),
        "stripped is the plain module"
    );
    let (o, out) = run(&["-fspv-debug=rich", "--target", "glsl"]);
    assert!(o.status.success(), "{o:?}");
    let text = std::fs::read_to_string(&out).expect("written");
    assert!(text.contains("#line"), "GLSL #line directives\n{text}");
    let (o, _) = run(&["-fspv-debug=rich", "--target", "ir"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("OSC0050") && err.contains("OpenCL.DebugInfo.100"),
        "{err}"
    );
}
