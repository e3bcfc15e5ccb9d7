//! NonSemantic.Shader.DebugInfo.100 (`DebugInfo::Vulkan`/`VulkanWithSource`, the CLI's
//! `-fspv-debug=vulkan[-with-source]`): both spirv-vals accept it at `-O0` and `-O` for every
//! example shader; stripped of its debug instructions the module is the one compiled without
//! them; `spirv-opt -O` of it still validates; the decoded `DebugLine` stream maps stores,
//! calls and branches to their HLSL lines; the source text comes back from `DebugSource` and
//! `DebugSourceContinued`; functions, scopes, locals and entry points are there; text
//! targets refuse the flag.

mod support;

use support::line_of;

use std::collections::HashMap;

use oneshader::{CompileOptions, Compiler, DebugInfo, OptLevel, TargetEnv};
use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::Op;
use support::*;

const SHADER: &str = "\
#include \"helpers.hlsli\"
struct Item { float4 value; int count; };
RWStructuredBuffer<float> Out : register(u0);
StructuredBuffer<Item> Items : register(t0);

[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float a = Out[id.x];
    float4x4 m = float4x4(a, 0, 0, 0, 0, a, 0, 0, 0, 0, a, 0, 0, 0, 0, a);
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
        Item it = Items[i];
        Out[4 + i] = 44.0 + mul(m, it.value).x + it.count;
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

/// Instruction numbers of NonSemantic.Shader.DebugInfo.100 used below.
const DEBUG_COMPILATION_UNIT: u32 = 1;
const DEBUG_TYPE_BASIC: u32 = 2;
const DEBUG_TYPE_VECTOR: u32 = 6;
const DEBUG_TYPE_COMPOSITE: u32 = 10;
const DEBUG_TYPE_MEMBER: u32 = 11;
const DEBUG_GLOBAL_VARIABLE: u32 = 18;
const DEBUG_FUNCTION: u32 = 20;
const DEBUG_SCOPE: u32 = 23;
const DEBUG_LOCAL_VARIABLE: u32 = 26;
const DEBUG_DECLARE: u32 = 28;
const DEBUG_VALUE: u32 = 29;
const DEBUG_SOURCE: u32 = 35;
const DEBUG_FUNCTION_DEFINITION: u32 = 101;
const DEBUG_SOURCE_CONTINUED: u32 = 102;
const DEBUG_LINE: u32 = 103;
const DEBUG_ENTRY_POINT: u32 = 107;
const DEBUG_TYPE_MATRIX: u32 = 108;

fn compile_with(name: &str, text: &str, level: OptLevel, debug: DebugInfo) -> Vec<u32> {
    let mut c = Compiler::new();
    c.add_include("helpers.hlsli", HELPERS);
    let mut opts = CompileOptions::new("cs_6_0").opt_level(level);
    opts.debug_info = debug;
    let out = c
        .compile_source(name, text, &opts)
        .unwrap_or_else(|e| panic!("{}", e.diagnostics.render()));
    assert_valid(
        &out.spirv,
        TargetEnv::Vulkan1_2,
        &format!("{name} {level:?} {debug:?}"),
    );
    out.spirv
}

fn options(profile: &str, entry: &str, level: OptLevel, debug: DebugInfo) -> CompileOptions {
    let mut opts = CompileOptions::new(profile).entry(entry).opt_level(level);
    opts.debug_info = debug;
    opts
}

/// A `.spv` file's bytes as a module (module-level debug instructions included).
fn load_bytes(bytes: Vec<u8>) -> Result<Module, String> {
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    oneshader::backends::spirv::load(&words)
}

fn compile(level: OptLevel, debug: DebugInfo) -> Vec<u32> {
    compile_with("debug.hlsl", SHADER, level, debug)
}

/// The id of the NonSemantic.Shader.DebugInfo.100 import.
fn debug_set(module: &Module) -> u32 {
    module
        .ext_inst_imports
        .iter()
        .find(|i| {
            i.operands.first()
                == Some(&Operand::LiteralString(
                    "NonSemantic.Shader.DebugInfo.100".into(),
                ))
        })
        .and_then(|i| i.result_id)
        .expect("the NonSemantic.Shader.DebugInfo.100 import")
}

/// The instruction number of `i` when it is an instruction of the debug set.
fn debug_op(i: &Instruction, set: u32) -> Option<u32> {
    match (i.class.opcode, i.operands.first(), i.operands.get(1)) {
        (Op::ExtInst, Some(Operand::IdRef(s)), Some(Operand::LiteralExtInstInteger(n)))
            if *s == set =>
        {
            Some(*n)
        }
        _ => None,
    }
}

/// The id operands of a debug instruction after the set and instruction number.
fn debug_args(i: &Instruction) -> Vec<u32> {
    i.operands
        .iter()
        .skip(2)
        .map(|o| match o {
            Operand::IdRef(id) => *id,
            other => panic!("a debug operand is an id: {other:?}"),
        })
        .collect()
}

/// `OpString` texts and 32-bit `OpConstant` values by id; panics if a debug instruction's
/// constant operand is not a 32-bit unsigned `OpConstant` is checked by the validators.
struct Tables {
    strings: HashMap<u32, String>,
    constants: HashMap<u32, u32>,
}

fn tables(module: &Module) -> Tables {
    let strings = module
        .debug_string_source
        .iter()
        .filter(|i| i.class.opcode == Op::String)
        .filter_map(|i| match (&i.result_id, i.operands.first()) {
            (Some(id), Some(Operand::LiteralString(s))) => Some((*id, s.clone())),
            _ => None,
        })
        .collect();
    let uint: Vec<u32> = module
        .types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::TypeInt
                && i.operands == vec![Operand::LiteralBit32(32), Operand::LiteralBit32(0)]
        })
        .filter_map(|i| i.result_id)
        .collect();
    let constants = module
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Constant && uint.contains(&i.result_type.unwrap_or(0)))
        .filter_map(|i| match (i.result_id, i.operands.first()) {
            (Some(id), Some(Operand::LiteralBit32(v))) => Some((id, *v)),
            _ => None,
        })
        .collect();
    Tables { strings, constants }
}

/// Every function-body instruction that is not a debug instruction, with the (file name,
/// line) of the `DebugLine` in effect before it.
fn with_lines(module: &Module) -> Vec<(Instruction, Option<(String, u32)>)> {
    let set = debug_set(module);
    let t = tables(module);
    let sources: HashMap<u32, String> = module
        .types_global_values
        .iter()
        .filter(|i| debug_op(i, set) == Some(DEBUG_SOURCE))
        .map(|i| {
            let file = debug_args(i)[0];
            (i.result_id.expect("an id"), t.strings[&file].clone())
        })
        .collect();
    let mut out = Vec::new();
    for f in &module.functions {
        for b in &f.blocks {
            let mut cur: Option<(String, u32)> = None;
            for i in &b.instructions {
                match debug_op(i, set) {
                    Some(DEBUG_LINE) => {
                        let a = debug_args(i);
                        let file = sources.get(&a[0]).expect("DebugLine names a DebugSource");
                        let (l0, l1) = (t.constants[&a[1]], t.constants[&a[2]]);
                        let (c0, c1) = (t.constants[&a[3]], t.constants[&a[4]]);
                        assert!(l0 <= l1 && (l0 < l1 || c0 <= c1), "a span: {a:?}");
                        cur = Some((file.clone(), l0));
                    }
                    Some(104) => cur = None,
                    Some(_) => {}
                    None => {
                        assert!(
                            !matches!(i.class.opcode, Op::Line | Op::NoLine),
                            "no OpLine beside DebugLine"
                        );
                        out.push((i.clone(), cur.clone()));
                    }
                }
            }
        }
    }
    out
}

#[test]
fn every_example_validates_with_debug_info_at_o0_and_o() {
    for (file, profile, entry) in documented_entry_points() {
        for level in [OptLevel::O0, OptLevel::O] {
            for debug in [DebugInfo::Vulkan, DebugInfo::VulkanWithSource] {
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

/// The id an operand names, if it names one.
fn id_of(o: &Operand) -> Option<u32> {
    match o {
        Operand::IdRef(id) | Operand::IdScope(id) | Operand::IdMemorySemantics(id) => Some(*id),
        _ => None,
    }
}

/// Types and constants: named by their structure in [`canonical`].
fn is_structural(i: &Instruction) -> bool {
    let op = format!("{:?}", i.class.opcode);
    op.starts_with("Type") || op.starts_with("Constant") || op == "Undef"
}

/// The module as a list of canonical lines with every debug instruction removed
/// (`NonSemantic.*` extended instructions and their import and extension, `OpString`,
/// `OpSource*`, `OpName`, `OpMemberName`, `OpLine`, `OpNoLine`), then the types and constants
/// nothing uses any more; types and constants are named by their structure (so their order in
/// the module does not matter) and every other id by its first appearance.
fn canonical(words: &[u32]) -> Vec<String> {
    let module = oneshader::backends::spirv::load(words).expect("parses");
    let dropped_sets: Vec<u32> = module
        .ext_inst_imports
        .iter()
        .filter(|i| {
            matches!(i.operands.first(), Some(Operand::LiteralString(s)) if s.starts_with("NonSemantic."))
        })
        .filter_map(|i| i.result_id)
        .collect();
    let is_debug = |i: &Instruction| {
        matches!(
            i.class.opcode,
            Op::String
                | Op::Source
                | Op::SourceContinued
                | Op::SourceExtension
                | Op::Name
                | Op::MemberName
                | Op::ModuleProcessed
                | Op::Line
                | Op::NoLine
        ) || (i.class.opcode == Op::ExtInst
            && matches!(i.operands.first(), Some(Operand::IdRef(s)) if dropped_sets.contains(s)))
            || (i.class.opcode == Op::ExtInstImport
                && i.result_id.is_some_and(|r| dropped_sets.contains(&r)))
            || (i.class.opcode == Op::Extension
                && i.operands.first()
                    == Some(&Operand::LiteralString("SPV_KHR_non_semantic_info".into())))
    };
    let keep = |v: &[Instruction]| -> Vec<Instruction> {
        v.iter().filter(|i| !is_debug(i)).cloned().collect()
    };
    let mut globals = keep(&module.types_global_values);
    let mut rest: Vec<Vec<Instruction>> = vec![
        keep(&module.capabilities),
        keep(&module.extensions),
        keep(&module.ext_inst_imports),
        module.memory_model.iter().cloned().collect(),
        keep(&module.entry_points),
        keep(&module.execution_modes),
        keep(&module.annotations),
    ];
    let mut bodies: Vec<Instruction> = Vec::new();
    for f in &module.functions {
        bodies.extend(f.def.iter().cloned());
        bodies.extend(f.parameters.iter().cloned());
        for b in &f.blocks {
            bodies.extend(b.label.iter().cloned());
            bodies.extend(b.instructions.iter().filter(|i| !is_debug(i)).cloned());
        }
        bodies.extend(f.end.iter().cloned());
    }
    // Types and constants nothing refers to any more (the debug instructions' own).
    let refs = |i: &Instruction| -> Vec<u32> {
        i.result_type
            .into_iter()
            .chain(i.operands.iter().filter_map(id_of))
            .collect()
    };
    loop {
        let used: std::collections::HashSet<u32> = globals
            .iter()
            .chain(rest.iter().flatten())
            .chain(&bodies)
            .flat_map(refs)
            .collect();
        let before = globals.len();
        globals.retain(|i| {
            let structural = is_structural(i);
            !structural || i.result_id.is_none_or(|r| used.contains(&r))
        });
        if globals.len() == before {
            break;
        }
    }
    // Names: types and constants by structure, the rest by first appearance.
    let mut names: HashMap<u32, String> = HashMap::new();
    let mut seen: HashMap<String, u32> = HashMap::new();
    let render = |i: &Instruction, names: &HashMap<u32, String>| -> String {
        let mut s = format!("{:?}", i.class.opcode);
        if let Some(t) = i.result_type {
            s.push_str(&format!(
                " {}",
                names.get(&t).cloned().unwrap_or(format!("?{t}"))
            ));
        }
        for o in &i.operands {
            match id_of(o) {
                Some(id) => s.push_str(&format!(
                    " {}",
                    names.get(&id).cloned().unwrap_or(format!("?{id}"))
                )),
                None => s.push_str(&format!(" {o:?}")),
            }
        }
        s
    };
    for i in &globals {
        let structural = is_structural(i);
        if let (true, Some(r)) = (structural, i.result_id) {
            let body = render(i, &names);
            let k = seen.entry(body.clone()).or_insert(0);
            *k += 1;
            names.insert(r, format!("({body})#{k}"));
        }
    }
    let mut next = 0u32;
    let mut name_ids = |i: &Instruction, names: &mut HashMap<u32, String>| {
        for id in i.result_id.into_iter().chain(refs(i)) {
            names.entry(id).or_insert_with(|| {
                next += 1;
                format!("v{next}")
            });
        }
    };
    for i in rest.iter().flatten().chain(&globals).chain(&bodies) {
        name_ids(i, &mut names);
    }
    let mut out: Vec<String> = Vec::new();
    for section in &mut rest {
        let mut lines: Vec<String> = section.iter().map(|i| render(i, &names)).collect();
        lines.sort();
        out.extend(lines);
    }
    let mut lines: Vec<String> = globals
        .iter()
        .map(|i| {
            let r = i.result_id.map(|r| names[&r].clone()).unwrap_or_default();
            format!("{r} = {}", render(i, &names))
        })
        .collect();
    lines.sort();
    out.extend(lines);
    out.extend(bodies.iter().map(|i| {
        let r = i.result_id.map(|r| names[&r].clone()).unwrap_or_default();
        format!("{r} = {}", render(i, &names))
    }));
    out
}

#[test]
fn without_its_debug_instructions_the_module_is_the_one_compiled_without_them() {
    let mut cases: Vec<(String, String, String, Option<String>)> = documented_entry_points()
        .into_iter()
        .map(|(f, p, e)| (f, p, e, None))
        .collect();
    cases.push((
        "debug.hlsl".into(),
        "cs_6_0".into(),
        "main".into(),
        Some(SHADER.into()),
    ));
    for (file, profile, entry, text) in cases {
        for level in [OptLevel::O0, OptLevel::O] {
            let build = |debug: DebugInfo| {
                let opts = options(&profile, &entry, level, debug);
                match &text {
                    Some(t) => compile_with(&file, t, level, debug),
                    None => compile_file(&format!("examples/hlsl/{file}"), &opts).spirv,
                }
            };
            let plain = canonical(&build(DebugInfo::None));
            for debug in [DebugInfo::Vulkan, DebugInfo::VulkanWithSource] {
                let stripped = canonical(&build(debug));
                if stripped != plain {
                    let k = stripped
                        .iter()
                        .zip(&plain)
                        .position(|(a, b)| a != b)
                        .unwrap_or(stripped.len().min(plain.len()));
                    panic!(
                        "{file} {level:?} {debug:?}: differs at line {k}:\n  with debug info stripped: {:?}\n  without: {:?}",
                        stripped.get(k),
                        plain.get(k)
                    );
                }
            }
        }
    }
}

#[test]
fn spirv_opt_o_of_the_debug_output_still_validates() {
    for level in [OptLevel::O0, OptLevel::O] {
        let words = compile(level, DebugInfo::VulkanWithSource);
        let opt = spirv_opt_o(&words, &format!("{level:?}"));
        assert_valid(
            &opt,
            TargetEnv::Vulkan1_2,
            &format!("{level:?}: spirv-opt -O's output"),
        );
        // The optimizer kept debug information (it understands it rather than choking on it).
        let text = oneshader_test_tools::spirv_dis(&opt);
        assert!(
            text.contains("DebugLine"),
            "{level:?}: spirv-opt kept the DebugLines"
        );
    }
}

#[test]
fn debug_lines_map_stores_calls_and_branches_to_their_hlsl_lines_at_o0_and_o() {
    for level in [OptLevel::O0, OptLevel::O] {
        let words = compile(level, DebugInfo::Vulkan);
        let module = oneshader::backends::spirv::load(&words).expect("parses");
        let insts = with_lines(&module);
        let what = format!("{level:?}");
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
                    assert!(file.ends_with("debug.hlsl"), "{what}: file {file}");
                    SHADER
                };
                assert!(
                    line >= 1 && line as usize <= text.lines().count(),
                    "{what}: line {line} of {file}"
                );
            }
        }
        let float_constant = |value: f32| {
            module.types_global_values.iter().find_map(|i| {
                (i.class.opcode == Op::Constant
                    && matches!(i.operands.first(), Some(Operand::LiteralBit32(b)) if *b == value.to_bits()))
                .then_some(i.result_id)
                .flatten()
            })
        };
        for (value, needle) in [(11.0, "Out[1] = 11.0"), (22.0, "Out[2] = 22.0")] {
            let c = float_constant(value).expect("the constant is stored");
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
                "{what}: stores of {value} on lines {lines:?}"
            );
        }
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

/// The structure DXC writes: a compilation unit for HLSL over the main file's source, a
/// `DebugFunction` per function with its definition in the entry block and a scope in every
/// block, basic, vector, matrix and composite types, locals declared at `-O0` and valued at
/// `-O`, an entry point.
#[test]
fn functions_scopes_types_locals_and_the_entry_point_are_described() {
    for level in [OptLevel::O0, OptLevel::O] {
        let what = format!("{level:?}");
        let words = compile(level, DebugInfo::Vulkan);
        let module = oneshader::backends::spirv::load(&words).expect("parses");
        let set = debug_set(&module);
        let t = tables(&module);
        assert!(
            module.extensions.iter().any(
                |i| i.operands[0] == Operand::LiteralString("SPV_KHR_non_semantic_info".into())
            ),
            "{what}: the extension below SPIR-V 1.6"
        );
        let global = |n: u32| -> Vec<&Instruction> {
            module
                .types_global_values
                .iter()
                .filter(|i| debug_op(i, set) == Some(n))
                .collect()
        };
        let unit = global(DEBUG_COMPILATION_UNIT);
        assert_eq!(unit.len(), 1, "{what}: one compilation unit");
        let u = debug_args(unit[0]);
        assert_eq!(t.constants[&u[3]], 5, "{what}: language HLSL");
        let source = global(DEBUG_SOURCE)
            .into_iter()
            .find(|s| Some(s.result_id.expect("id")) == Some(u[2]))
            .expect("the unit's DebugSource");
        assert!(t.strings[&debug_args(source)[0]].ends_with("debug.hlsl"));
        assert_eq!(
            debug_args(source).len(),
            1,
            "{what}: no text without -with-source"
        );
        let names: Vec<String> = global(DEBUG_TYPE_BASIC)
            .iter()
            .map(|i| t.strings[&debug_args(i)[0]].clone())
            .collect();
        // At -O only what names a value is described (`i`, a uint); at -O0 every local.
        let basic: &[&str] = if level == OptLevel::O0 {
            &["float", "uint"]
        } else {
            &["uint"]
        };
        for n in basic {
            assert!(
                names.contains(&n.to_string()),
                "{what}: basic type {n} in {names:?}"
            );
        }
        let functions: HashMap<u32, String> = global(DEBUG_FUNCTION)
            .iter()
            .map(|i| {
                (
                    i.result_id.expect("id"),
                    t.strings[&debug_args(i)[0]].clone(),
                )
            })
            .collect();
        let globals: Vec<String> = global(DEBUG_GLOBAL_VARIABLE)
            .iter()
            .map(|i| t.strings[&debug_args(i)[0]].clone())
            .collect();
        assert!(
            globals.contains(&"Out".to_string()) && globals.contains(&"Items".to_string()),
            "{what}: the buffers are DebugGlobalVariables: {globals:?}"
        );
        let entries = global(DEBUG_ENTRY_POINT);
        assert_eq!(entries.len(), 1, "{what}: one DebugEntryPoint");
        assert_eq!(functions[&debug_args(entries[0])[0]], "main", "{what}");
        for f in &module.functions {
            let fid = f
                .def
                .as_ref()
                .and_then(|d| d.result_id)
                .expect("a function id");
            let entry = &f.blocks[0];
            let def = entry
                .instructions
                .iter()
                .find(|i| debug_op(i, set) == Some(DEBUG_FUNCTION_DEFINITION))
                .expect("a DebugFunctionDefinition in the entry block");
            assert_eq!(debug_args(def)[1], fid, "{what}");
            assert!(functions.contains_key(&debug_args(def)[0]), "{what}");
            for b in &f.blocks {
                if b.instructions.len() > 1 {
                    assert!(
                        b.instructions
                            .iter()
                            .any(|i| debug_op(i, set) == Some(DEBUG_SCOPE)),
                        "{what}: a DebugScope in every block"
                    );
                }
            }
        }
        let locals: Vec<String> = global(DEBUG_LOCAL_VARIABLE)
            .iter()
            .map(|i| t.strings[&debug_args(i)[0]].clone())
            .collect();
        let body_ops: Vec<u32> = module
            .functions
            .iter()
            .flat_map(|f| &f.blocks)
            .flat_map(|b| &b.instructions)
            .filter_map(|i| debug_op(i, set))
            .collect();
        if level == OptLevel::O0 {
            for n in ["a", "m", "i"] {
                assert!(
                    locals.contains(&n.to_string()),
                    "{what}: local {n} in {locals:?}"
                );
            }
            assert!(body_ops.contains(&DEBUG_DECLARE), "{what}: DebugDeclare");
            assert!(!global(DEBUG_TYPE_VECTOR).is_empty(), "{what}: vectors");
            assert!(!global(DEBUG_TYPE_MATRIX).is_empty(), "{what}: float4x4 m");
            // The local `Item it` (split up by -O).
            let composites: Vec<String> = global(DEBUG_TYPE_COMPOSITE)
                .iter()
                .map(|i| t.strings[&debug_args(i)[0]].clone())
                .collect();
            assert!(
                composites.contains(&"Item".to_string()),
                "{what}: {composites:?}"
            );
            let members: Vec<String> = global(DEBUG_TYPE_MEMBER)
                .iter()
                .map(|i| t.strings[&debug_args(i)[0]].clone())
                .collect();
            assert!(
                members.contains(&"count".to_string()),
                "{what}: {members:?}"
            );
        } else {
            assert!(
                locals.contains(&"i".to_string()),
                "{what}: the loop's i in {locals:?}"
            );
            assert!(body_ops.contains(&DEBUG_VALUE), "{what}: DebugValue");
        }
    }
}

const DECLARATIONS: &str = "\
#include \"helpers.hlsli\"
cbuffer Params : register(b0) { float scale; };
RWStructuredBuffer<float> Out : register(u0);
static float bias = 0.25;
groupshared float shared_sum;

float adjust(float x)
{
    return twice(x) * scale + bias;
}

[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    shared_sum = Out[id.x];
    Out[id.x] = adjust(shared_sum);
}
";

/// (line, column), 1-based, of the first `token` on the only line of `text` holding `line`.
fn decl_at(text: &str, line: &str, token: &str) -> (u32, u32) {
    let l = line_of(text, line);
    let col = text
        .lines()
        .nth(l as usize - 1)
        .and_then(|s| s.find(token))
        .expect("the token is on its line");
    (l, col as u32 + 1)
}

/// Issue 24: `DebugGlobalVariable`s and `DebugFunction`s stand where their HLSL declarations
/// name them (as DXC places them), in the file that declares them: a `cbuffer`, a buffer, a
/// `static` and a `groupshared` global, a function of an included file, and the entry point
/// (its wrapper and body both at its name). Before, every global was at line 1 of the main
/// file and each function at its first positioned instruction.
#[test]
fn globals_and_functions_are_described_at_their_declarations() {
    let main = |line: &str, token: &str| ("debug.hlsl", decl_at(DECLARATIONS, line, token));
    let expected: HashMap<&str, (&str, (u32, u32))> = [
        ("Params", main("cbuffer Params", "Params")),
        ("Out", main("RWStructuredBuffer<float> Out", "Out")),
        ("bias", main("static float bias", "bias")),
        ("shared_sum", main("groupshared float", "shared_sum")),
        ("adjust", main("float adjust(", "adjust")),
        ("main", main("void main(", "main")),
        ("main_body", main("void main(", "main")),
        (
            "twice",
            ("helpers.hlsli", decl_at(HELPERS, "float twice(", "twice")),
        ),
    ]
    .into_iter()
    .collect();
    assert_eq!(expected["Out"].1, (3, 27), "the test's own arithmetic");
    for level in [OptLevel::O0, OptLevel::O] {
        let words = compile_with("debug.hlsl", DECLARATIONS, level, DebugInfo::Vulkan);
        let module = oneshader::backends::spirv::load(&words).expect("parses");
        let set = debug_set(&module);
        let t = tables(&module);
        let sources: HashMap<u32, String> = module
            .types_global_values
            .iter()
            .filter(|i| debug_op(i, set) == Some(DEBUG_SOURCE))
            .map(|i| {
                (
                    i.result_id.expect("id"),
                    t.strings[&debug_args(i)[0]].clone(),
                )
            })
            .collect();
        let mut seen = Vec::new();
        for i in &module.types_global_values {
            let Some(n @ (DEBUG_GLOBAL_VARIABLE | DEBUG_FUNCTION)) = debug_op(i, set) else {
                continue;
            };
            let a = debug_args(i);
            let name = t.strings[&a[0]].clone();
            let file = &sources[&a[2]];
            let at = (t.constants[&a[3]], t.constants[&a[4]]);
            let Some(&(want_file, want_at)) = expected.get(name.as_str()) else {
                panic!("{level:?}: unexpected debug declaration `{name}` at {file}:{at:?}");
            };
            assert!(
                file.ends_with(want_file) && at == want_at,
                "{level:?}: `{name}` at {file}:{at:?}, declared at {want_file}:{want_at:?}"
            );
            if n == DEBUG_FUNCTION {
                // The scope line: the declaration's (the IR has no position for the `{`).
                let scope_line = t.constants[&a[8]];
                assert_eq!(scope_line, at.0, "{level:?}: `{name}` scope line");
            }
            seen.push(name);
        }
        for name in ["Params", "Out", "main"] {
            assert!(
                seen.iter().any(|s| s == name),
                "{level:?}: `{name}` is described: {seen:?}"
            );
        }
        if level == OptLevel::O0 {
            for name in ["bias", "shared_sum", "adjust", "twice", "main_body"] {
                assert!(
                    seen.iter().any(|s| s == name),
                    "-O0 keeps `{name}`: {seen:?}"
                );
            }
        }
    }
}

/// `-with-source` puts the text in `DebugSource`; past one `OpString` it goes on in
/// `DebugSourceContinued`, and the pieces put back together are the text.
#[test]
fn the_source_text_comes_back_from_debug_source_and_its_continuations() {
    let mut text = String::from(SHADER);
    let filler = "// filler line to make the file longer than one SPIR-V instruction holds\n";
    while text.len() < 400_000 {
        text.push_str(filler);
    }
    for (name, text, continued) in [
        ("short.hlsl", SHADER.to_string(), false),
        ("long.hlsl", text, true),
    ] {
        let words = compile_with(name, &text, OptLevel::O, DebugInfo::VulkanWithSource);
        let module = oneshader::backends::spirv::load(&words).expect("parses");
        let set = debug_set(&module);
        let t = tables(&module);
        let mut back: Option<String> = None;
        let mut pieces = 0;
        for i in &module.types_global_values {
            match debug_op(i, set) {
                Some(DEBUG_SOURCE) => {
                    let a = debug_args(i);
                    let file = &t.strings[&a[0]];
                    if file.ends_with(name) {
                        back = Some(t.strings[&a[1]].clone());
                    } else {
                        assert!(file.ends_with("helpers.hlsli"), "{file}");
                        assert_eq!(t.strings[&a[1]], HELPERS);
                        back = None;
                    }
                }
                Some(DEBUG_SOURCE_CONTINUED) => {
                    if let Some(b) = &mut back {
                        b.push_str(&t.strings[&debug_args(i)[0]]);
                        pieces += 1;
                    }
                }
                _ => {
                    if let Some(b) = back.take() {
                        assert_eq!(b, text, "{name}");
                        break;
                    }
                }
            }
        }
        assert_eq!(pieces > 0, continued, "{name}: {pieces} continuations");
    }
}

/// The CLI honours `-fspv-debug=vulkan` and `vulkan-with-source` for SPIR-V (and the text
/// targets, as `#line` directives or `// file:line` comments: tests/text_lines.rs) and refuses
/// them, naming the option, for the IR and reflection outputs.
#[test]
fn the_cli_honours_fspv_debug_vulkan_for_spirv_and_refuses_it_for_ir_outputs() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(dir.path().join("helpers.hlsli"), HELPERS).expect("writes");
    let src = dir.path().join("debug.hlsl");
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
    for (flag, with_text) in [
        ("-fspv-debug=vulkan", false),
        ("-fspv-debug=vulkan-with-source", true),
    ] {
        let (o, out) = run(&[flag]);
        assert!(o.status.success(), "{flag}: {o:?}");
        let bytes = std::fs::read(&out).expect("written");
        let module = load_bytes(bytes).expect("parses");
        let set = debug_set(&module);
        let source = module
            .types_global_values
            .iter()
            .find(|i| debug_op(i, set) == Some(DEBUG_SOURCE))
            .expect("a DebugSource");
        assert_eq!(debug_args(source).len() == 2, with_text, "{flag}");
        // (MSL refuses this shader's `t0`/`u0` pair at one binding; tests/text_lines.rs has
        // its comments.)
        let (o, out) = run(&[flag, "--target", "wgsl"]);
        assert!(o.status.success(), "{flag} --target wgsl: {o:?}");
        let text = std::fs::read_to_string(&out).expect("written");
        assert!(
            text.lines()
                .any(|l| l.trim_start().starts_with("// ") && l.contains("debug.hlsl:")),
            "{flag} --target wgsl: line comments\n{text}"
        );
        for target in ["ir", "reflection"] {
            let (o, _) = run(&[flag, "--target", target]);
            assert!(!o.status.success(), "{flag} --target {target} is refused");
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(
                err.contains("OSC0050") && err.contains("-fspv-debug="),
                "{flag} --target {target}: {err}"
            );
        }
    }
    // `-Qstrip_debug` removes it; a category not emitted is refused by name
    // (`rich`: tests/spirv_rich_debuginfo.rs).
    let (o, out) = run(&["-fspv-debug=vulkan", "-Qstrip_debug"]);
    assert!(o.status.success(), "{o:?}");
    let module = load_bytes(std::fs::read(&out).expect("written")).expect("parses");
    assert!(module.ext_inst_imports.iter().all(|i| {
        !matches!(i.operands.first(), Some(Operand::LiteralString(s)) if s.starts_with("NonSemantic"))
    }));
    let (o, _) = run(&["-fspv-debug=file"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("-fspv-debug=file"));
}

/// Debug information is part of the SPIR-V output key: each kind keys its own cache entry.
#[test]
fn each_kind_of_debug_information_keys_its_own_spirv_output() {
    let kinds = [
        DebugInfo::None,
        DebugInfo::Lines,
        DebugInfo::LinesWithSource,
        DebugInfo::Vulkan,
        DebugInfo::VulkanWithSource,
        DebugInfo::Rich,
        DebugInfo::RichWithSource,
    ];
    let texts: Vec<String> = kinds
        .iter()
        .map(|&k| {
            let mut o = CompileOptions::new("cs_6_0");
            o.debug_info = k;
            oneshader::key::spirv_options_text(&o)
        })
        .collect();
    for (i, a) in texts.iter().enumerate() {
        for b in &texts[i + 1..] {
            assert_ne!(a, b, "two kinds of debug information share a key");
        }
    }
}

/// A `DebugLine` that no instruction follows is replaced by the next one: no two lines in a
/// row.
#[test]
fn no_debug_line_follows_another_directly() {
    for level in [OptLevel::O0, OptLevel::O] {
        let module =
            oneshader::backends::spirv::load(&compile(level, DebugInfo::Vulkan)).expect("parses");
        let set = debug_set(&module);
        for b in module.functions.iter().flat_map(|f| &f.blocks) {
            for w in b.instructions.windows(2) {
                assert!(
                    !(debug_op(&w[0], set) == Some(DEBUG_LINE)
                        && debug_op(&w[1], set) == Some(DEBUG_LINE)),
                    "{level:?}: two DebugLines in a row"
                );
            }
        }
    }
}

const SCOPES: &str = "\
RWStructuredBuffer<float> o : register(u0);

float twice(float x)
{
    float y = x * 3.0;
    return y;
}

float outer(float v)
{
    float w = twice(v) + 1.0;
    return w;
}

[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float a = o[id.x];
    if (a > 0.5) {
        float t = outer(a);
        o[id.x] = t;
    }
    { // second
        float u = sqrt(a);
        o[id.x + 4] = u;
    }
}
";

/// A decoded module's debug scopes: every function-body instruction that is not a debug
/// instruction with the `DebugScope` operands in effect before it, and the module-level debug
/// instructions by id (number, operands).
struct Scoped {
    body: Vec<(Instruction, Vec<u32>)>,
    globals: HashMap<u32, (u32, Vec<u32>)>,
    t: Tables,
}

impl Scoped {
    fn new(words: &[u32]) -> Scoped {
        let module = oneshader::backends::spirv::load(words).expect("parses");
        let set = debug_set(&module);
        let globals = module
            .types_global_values
            .iter()
            .filter_map(|i| Some((i.result_id?, (debug_op(i, set)?, debug_args(i)))))
            .collect();
        let mut body = Vec::new();
        for f in &module.functions {
            for b in &f.blocks {
                let mut cur = Vec::new();
                for i in &b.instructions {
                    match debug_op(i, set) {
                        Some(DEBUG_SCOPE) => cur = debug_args(i),
                        Some(_) => {}
                        None => body.push((i.clone(), cur.clone())),
                    }
                }
            }
        }
        Scoped {
            body,
            globals,
            t: tables(&module),
        }
    }

    /// The name of the `DebugFunction` `id`, or `None` when `id` is something else.
    fn function_name(&self, id: u32) -> Option<&str> {
        match self.globals.get(&id) {
            Some((DEBUG_FUNCTION, a)) => Some(self.t.strings[&a[0]].as_str()),
            _ => None,
        }
    }

    /// (line, column, parent) of the `DebugLexicalBlock` `id`.
    fn block(&self, id: u32) -> (u32, u32, u32) {
        let (n, a) = &self.globals[&id];
        assert_eq!(*n, DEBUG_LEXICAL_BLOCK, "%{id} is a DebugLexicalBlock");
        (self.t.constants[&a[1]], self.t.constants[&a[2]], a[3])
    }

    /// (line, scope, inlined-at) of the `DebugInlinedAt` `id`.
    fn inlined_at(&self, id: u32) -> (u32, u32, Option<u32>) {
        let (n, a) = &self.globals[&id];
        assert_eq!(*n, DEBUG_INLINED_AT, "%{id} is a DebugInlinedAt");
        (self.t.constants[&a[0]], a[1], a.get(2).copied())
    }

    /// The scope operands in effect at the only instruction of opcode `op`.
    fn scope_at(&self, op: Op) -> &[u32] {
        let found: Vec<_> = self
            .body
            .iter()
            .filter(|(i, _)| i.class.opcode == op)
            .collect();
        assert_eq!(found.len(), 1, "one {op:?}");
        &found[0].1
    }

    /// The scope of the `DebugLocalVariable` named `name`.
    fn variable_scope(&self, name: &str) -> u32 {
        let found: Vec<u32> = self
            .globals
            .values()
            .filter(|(n, a)| *n == DEBUG_LOCAL_VARIABLE && self.t.strings[&a[0]] == name)
            .map(|(_, a)| a[5])
            .collect();
        assert_eq!(found.len(), 1, "one DebugLocalVariable `{name}`");
        found[0]
    }
}

const DEBUG_LEXICAL_BLOCK: u32 = 21;
const DEBUG_INLINED_AT: u32 = 25;

#[test]
fn blocks_that_declare_locals_are_lexical_blocks_holding_their_code_and_variables() {
    let words = compile_with(
        "scopes.hlsl",
        SCOPES,
        OptLevel::O0,
        DebugInfo::VulkanWithSource,
    );
    let s = Scoped::new(&words);
    let if_line = line_of(SCOPES, "if (a > 0.5) {");
    let second = line_of(SCOPES, "{ // second");
    // `t` and its store are in the `if`'s block, at its `{`, inside the HLSL `main`.
    let t_block = s.variable_scope("t");
    let (line, col, parent) = s.block(t_block);
    assert_eq!((line, col), (if_line, 18));
    let main_fn = s
        .function_name(parent)
        .expect("the block's parent is a function");
    assert_eq!(
        s.variable_scope("a"),
        parent,
        "`a` is in the function's own scope"
    );
    assert_ne!(main_fn, "twice");
    let (u_line, u_col, u_parent) = s.block(s.variable_scope("u"));
    assert_eq!((u_line, u_col, u_parent), (second, 5, parent));
    // The code of each block runs under its DebugScope: the call of `outer` in the first,
    // the square root in the second; and `x * 3.0` in `twice`'s own scope, not inlined.
    assert_eq!(
        s.scope_at(Op::ExtInst).len(),
        1,
        "sqrt (GLSL.std.450) is under one scope"
    );
    assert_eq!(s.block(s.scope_at(Op::ExtInst)[0]).0, second);
    let calls: Vec<&Vec<u32>> = s
        .body
        .iter()
        .filter(|(i, _)| i.class.opcode == Op::FunctionCall)
        .map(|(_, sc)| sc)
        .collect();
    assert!(
        calls.iter().any(|sc| sc.len() == 1 && sc[0] == t_block),
        "{calls:?}"
    );
    let mul = s.scope_at(Op::FMul);
    assert_eq!((s.function_name(mul[0]), mul.len()), (Some("twice"), 1));
}

#[test]
fn inlined_code_names_its_function_and_the_chain_of_calls_it_was_inlined_at() {
    let words = compile_with(
        "scopes.hlsl",
        SCOPES,
        OptLevel::O,
        DebugInfo::VulkanWithSource,
    );
    let s = Scoped::new(&words);
    // `x * 3.0` of `twice`, inlined into `outer` at its call, itself inlined into the `if`'s
    // block of `main` at its call.
    let mul = s.scope_at(Op::FMul).to_vec();
    assert_eq!(mul.len(), 2, "a scope and where it was inlined: {mul:?}");
    assert_eq!(s.function_name(mul[0]), Some("twice"));
    let (line, scope, up) = s.inlined_at(mul[1]);
    assert_eq!(line, line_of(SCOPES, "float w = twice(v) + 1.0;"));
    assert_eq!(s.function_name(scope), Some("outer"));
    let (line, scope, up) = s.inlined_at(up.expect("outer was inlined too"));
    assert_eq!(line, line_of(SCOPES, "float t = outer(a);"));
    let (block_line, _, main_fn) = s.block(scope);
    assert_eq!(block_line, line_of(SCOPES, "if (a > 0.5) {"));
    assert!(s.function_name(main_fn).is_some());
    // The chain ends in the function the code is in: the HLSL `main`, inlined into the
    // entry point's wrapper, which is not inlined anywhere.
    let mut at = up;
    let mut depth = 0;
    while let Some(a) = at {
        let (_, scope, next) = s.inlined_at(a);
        assert!(
            s.function_name(scope).is_some(),
            "a call site in a function"
        );
        at = next;
        depth += 1;
        assert!(depth < 4, "a short chain");
    }
    // One DebugFunction per function, inlined or not (no `twice` per call).
    let twice = s
        .globals
        .values()
        .filter(|(n, a)| *n == DEBUG_FUNCTION && s.t.strings[&a[0]] == "twice")
        .count();
    assert_eq!(twice, 1);
    // spirv-opt keeps them valid.
    let opt = spirv_opt_o(&words, "the scoped module");
    assert_valid(
        &opt,
        TargetEnv::Vulkan1_2,
        "spirv-opt -O of the scoped module",
    );
}

/// A struct's `DebugTypeComposite` stands at its declaration (before: line 1 of the main file),
/// under both debug sets' writer, at -O0 and -O.
#[test]
fn structs_are_described_at_their_declarations() {
    for level in [OptLevel::O0, OptLevel::O] {
        let words = compile(level, DebugInfo::Vulkan);
        let module = oneshader::backends::spirv::load(&words).expect("parses");
        let set = debug_set(&module);
        let t = tables(&module);
        let item: Vec<Vec<u32>> = module
            .types_global_values
            .iter()
            .filter(|i| debug_op(i, set) == Some(DEBUG_TYPE_COMPOSITE))
            .map(debug_args)
            .filter(|a| t.strings[&a[0]] == "Item")
            .collect();
        assert_eq!(item.len(), 1, "{level:?}: one `Item`");
        let at = (t.constants[&item[0][3]], t.constants[&item[0][4]]);
        assert_eq!(at, (line_of(SHADER, "struct Item {"), 1), "{level:?}");
    }
}

/// At -O `mem2reg` has removed every local's variable; each value stored to one carries it
/// (`oneshader_ir::debug_values`), so every local still has a `DebugLocalVariable` in its own
/// scope and a `DebugValue` naming the value that holds it.
#[test]
fn every_local_keeps_a_debug_value_at_o() {
    let words = compile_with(
        "scopes.hlsl",
        SCOPES,
        OptLevel::O,
        DebugInfo::VulkanWithSource,
    );
    let s = Scoped::new(&words);
    let module = oneshader::backends::spirv::load(&words).expect("parses");
    let set = debug_set(&module);
    let values: Vec<Vec<u32>> = module
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .filter(|i| debug_op(i, set) == Some(DEBUG_VALUE))
        .map(debug_args)
        .collect();
    let defined: Vec<u32> = s.body.iter().filter_map(|(i, _)| i.result_id).collect();
    for (name, scope) in [
        ("a", "main_body"),
        ("t", "block"),
        ("u", "block"),
        ("w", "outer"),
        ("y", "twice"),
    ] {
        let var = s.variable_scope(name);
        let in_scope = match s.function_name(var) {
            Some(f) => f.to_string(),
            None => {
                s.block(var);
                "block".to_string()
            }
        };
        assert_eq!(in_scope, scope, "`{name}`'s scope");
        let local: Vec<u32> = s
            .globals
            .iter()
            .filter(|(_, (n, a))| *n == DEBUG_LOCAL_VARIABLE && s.t.strings[&a[0]] == name)
            .map(|(id, _)| *id)
            .collect();
        let described: Vec<&Vec<u32>> = values.iter().filter(|a| a[0] == local[0]).collect();
        assert!(!described.is_empty(), "`{name}` has a DebugValue");
        for a in described {
            assert!(
                defined.contains(&a[1]),
                "`{name}`'s value %{} is an instruction's",
                a[1]
            );
        }
    }
}

/// spirv-opt `-O` of our debug-annotated output computes on lavapipe what our module computes (issue 24, "checked by real consumers"), at -O0 and -O,
/// with lexical blocks, inlined scopes and debug values in it.
#[test]
fn spirv_opt_of_the_debug_output_computes_what_it_computes() {
    let gpu = oneshader_vulkan_harness::Gpu::new();
    let input: Vec<u32> = [0.25f32, 0.75, 1.5, 2.0, 0.0, 0.0, 0.0, 0.0]
        .iter()
        .map(|f| f.to_bits())
        .collect();
    let run = |words: &[u32]| {
        let mut bufs = vec![input.clone()];
        gpu.run(words, "main", &mut bufs, [1, 1, 1]);
        bufs.remove(0)
    };
    for level in [OptLevel::O0, OptLevel::O] {
        let words = compile_with("scopes.hlsl", SCOPES, level, DebugInfo::VulkanWithSource);
        let ours = run(&words);
        // What the HLSL computes: o[id] = a * 3 + 1 where a > 0.5, o[4 + id] = sqrt(a).
        let f = |k: usize| f32::from_bits(ours[k]);
        assert_eq!((f(0), f(1)), (0.25, 0.75 * 3.0 + 1.0), "{level:?}");
        assert!((f(5) - 0.75f32.sqrt()).abs() < 1e-3, "{level:?}: {}", f(5));
        // `--strip-nonsemantic` is not run: both SPIRV-Tools versions (2023.1 and 2025.5) crash
        // on any NonSemantic.Shader.DebugInfo.100 module, glslang's `-gVS` output too.
        let theirs = spirv_opt_o(&words, &format!("{level:?}"));
        assert_valid(&theirs, TargetEnv::Vulkan1_2, "spirv-opt -O");
        assert_eq!(
            run(&theirs),
            ours,
            "{level:?}: spirv-opt -O computes the same"
        );
    }
}
