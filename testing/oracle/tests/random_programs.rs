//! Differential random programs on the GPU: the random functions of the passes' tests
//! (passes/tests/support_b/fn_gen.rs: `i32`/`u32`/`f32` arithmetic, conversions, selects,
//! selections, switches, loops, calls; passes/tests/support_b/program_gen.rs: a callee
//! returning from inside loops, selections and switches, called from a loop) are wrapped as
//! compute shaders: invocation `i` reads its arguments from a storage buffer, calls the
//! function, and writes every result word to another. The voices run each on the same
//! arguments: the reference interpreter (on the module as generated), our SPIR-V at `-O0` and
//! at `-O`, and our GLSL (through glslang) at `-O0` and at `-O`; their result buffers must be
//! identical (NaNs as a class).
//!
//! The generators produce operations whose result Vulkan leaves undefined (integer division
//! by zero, `INT_MIN / -1`, float-to-int conversion out of range); the interpreter gives
//! them a result, the GPU another. The wrapper keeps them out of the GPU comparison by
//! construction (see [`defined`]), so every remaining difference is a bug.
//!
//! A small number of seeds runs in CI; `ONESHADER_ORACLE_CASES=N` runs N seeds of each
//! generator (from `ONESHADER_ORACLE_SEED`, default 0) by hand. Needs lavapipe, glslang and
//! the SPIR-V tools (`cargo xtask setup`).

#[path = "../../../passes/tests/support_b/fn_gen.rs"]
mod fn_gen;
#[path = "../../../passes/tests/support_b/program_gen.rs"]
mod program_gen;

use fn_gen::{Rng, Ty, random_bits};
use oneshader::OptLevel;
use oneshader_oracle::{Case, Inputs, Oracle, Rule, Rules, Source, Voice};
use oneshader_vulkan_harness::{Binding, Gpu, Resource};

/// Invocations per program (one workgroup): each gets its own arguments.
const INVOCATIONS: u32 = 8;

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// How many seeds of each generator to run: `ONESHADER_ORACLE_CASES`, else `ci`.
fn cases(ci: u64) -> std::ops::Range<u64> {
    let start = env_u64("ONESHADER_ORACLE_SEED").unwrap_or(0);
    start..start + env_u64("ONESHADER_ORACLE_CASES").unwrap_or(ci)
}

/// The type of every value a function of the text defines (by function), from the
/// `: TYPE` ending its definition or its parameter list.
fn value_types(text: &str) -> Vec<std::collections::HashMap<String, String>> {
    let mut out = Vec::new();
    for func in text.split("\nfunc ").skip(1) {
        let mut types = std::collections::HashMap::new();
        let header = func.lines().next().unwrap_or("");
        fn push_params(types: &mut std::collections::HashMap<String, String>, list: &str) {
            for p in list.split(", ") {
                if let Some((n, t)) = p.split_once(": ") {
                    types.insert(n.trim().to_string(), t.trim().to_string());
                }
            }
        }
        if let (Some(a), Some(b)) = (header.find('('), header.find(')')) {
            push_params(&mut types, &header[a + 1..b]);
        }
        for line in func.lines().skip(1) {
            let t = line.trim();
            if !line.starts_with(' ')
                && let (Some(a), Some(b)) = (t.find('('), t.rfind(')'))
            {
                push_params(&mut types, &t[a + 1..b]);
            } else if let Some((lhs, rhs)) = t.split_once(" = ")
                && let Some((_, ty)) = rhs.rsplit_once(" : ")
            {
                types.insert(lhs.to_string(), ty.to_string());
            }
        }
        out.push(types);
    }
    out
}

/// Rewrites the generated text so every operation has a result Vulkan defines exactly:
///
/// - integer `div`/`rem` take a divisor made safe (`select(d == 0 || d == -1, 1, d)`, which
///   also rules out `INT_MIN / -1`), whose result SPIR-V leaves undefined;
/// - float-to-integer `convert`s get their operand clamped into the target's range first
///   (NaN becomes 0): SPIR-V leaves an out-of-range conversion undefined;
/// - float `div` becomes `mul` and float `rem` becomes `sub`: Vulkan allows 2.5 ULP of
///   error in a division (lavapipe computes `a * (1 / b)`) and inherits that in the
///   remainder, and the error spreads into every value computed after it (branches
///   included), so no bound on the results would stay narrow. Float division is checked
///   against expected values in backends/tests/compute_exec.rs instead.
///
/// - `f32` constants are tamed ([`tame`]; arguments too): Vulkan lets a shader without the
///   `SignedZeroInfNanPreserve` execution mode assume that no operand or result is a NaN or
///   an infinity and ignore the sign of zero, and lets every float operation flush a
///   subnormal to zero (lavapipe does both: LLVM folds `x * 0.0` to `0.0`, x86 runs with
///   DAZ/FTZ); the interpreter is IEEE. So the GPU programs start from finite, normal (or
///   +0) values of magnitude below 2^20, and results compare with the sign of zero
///   ignored ([`Rule::SignlessZero`]). A product chain can still overflow to infinity; a
///   disagreement whose values are infinities or NaNs is that freedom, not a bug.
///
/// The interpreter then computes what every GPU must.
fn defined(text: &str) -> String {
    let text = &flush_constants(text);
    let types = value_types(text);
    let mut func = 0usize;
    let mut out = String::new();
    let mut fresh = 0;
    for line in text.lines() {
        if line.starts_with("func ") {
            func += 1;
        }
        let t = line.trim_start();
        let indent = &line[..line.len() - t.len()];
        let ty_of = |v: &str| -> Option<&String> { types.get(func.wrapping_sub(1))?.get(v) };
        if let Some((lhs, rhs)) = t.split_once(" = ")
            && let Some((op, rest)) = rhs.split_once(' ')
            && let Some((operands, ty)) = rest.rsplit_once(" : ")
            && ty == "f32"
            && (op == "div" || op == "rem")
        {
            let op = if op == "div" { "mul" } else { "sub" };
            out += &format!("{indent}{lhs} = {op} {operands} : {ty}\n");
            continue;
        }
        if let Some((lhs, rhs)) = t.split_once(" = ")
            && let Some(rest) = rhs.strip_prefix("convert ")
            && let Some((x, ty)) = rest.rsplit_once(" : ")
            && (ty == "i32" || ty == "u32")
            && (x.starts_with("f32 ") || ty_of(x).map(String::as_str) == Some("f32"))
        {
            fresh += 1;
            let (hi, lo, lo_to) = if ty == "i32" {
                ("0x4effffff", "0xcf000000", "0xcf000000")
            } else {
                ("0x4f7fffff", "0xbf800000", "0x00000000")
            };
            out += &format!(
                "{indent}%cn{fresh} = ne {x}, {x} : bool\n\
                 {indent}%cs{fresh} = select %cn{fresh}, f32 0x00000000, {x} : f32\n\
                 {indent}%ch{fresh} = ge %cs{fresh}, f32 {hi} : bool\n\
                 {indent}%ct{fresh} = select %ch{fresh}, f32 {hi}, %cs{fresh} : f32\n\
                 {indent}%cl{fresh} = le %ct{fresh}, f32 {lo} : bool\n\
                 {indent}%cu{fresh} = select %cl{fresh}, f32 {lo_to}, %ct{fresh} : f32\n\
                 {indent}{lhs} = convert %cu{fresh} : {ty}\n"
            );
            continue;
        }
        // `%t = div %a, %b : i32`
        if let Some((lhs, rhs)) = t.split_once(" = ")
            && let Some((op, rest)) = rhs.split_once(' ')
            && (op == "div" || op == "rem")
            && let Some((operands, ty)) = rest.rsplit_once(" : ")
            && (ty == "i32" || ty == "u32")
            && let Some((a, b)) = operands.split_once(", ")
        {
            fresh += 1;
            let (z, m, bad, safe) = (
                format!("%dz{fresh}"),
                format!("%dm{fresh}"),
                format!("%db{fresh}"),
                format!("%ds{fresh}"),
            );
            out += &format!("{indent}{z} = eq {b}, {ty} 0 : bool\n");
            out += &format!("{indent}{m} = eq {b}, {ty} -1 : bool\n")
                .replace("u32 -1", "u32 4294967295");
            out += &format!("{indent}{bad} = or {z}, {m} : bool\n");
            out += &format!("{indent}{safe} = select {bad}, {ty} 1, {b} : {ty}\n");
            out += &format!("{indent}{lhs} = {op} {a}, {safe} : {ty}\n");
            continue;
        }
        out += line;
        out.push('\n');
    }
    out
}

/// An `f32` the GPU must compute with exactly as the interpreter does: a NaN becomes 1.0,
/// an infinity ±2.0, a zero or subnormal +0.0, and a magnitude of 2^20 or more keeps its
/// mantissa with the exponent 20.
fn tame(bits: u32) -> u32 {
    let exp = (bits >> 23) & 0xff;
    let sign = bits & 0x8000_0000;
    match exp {
        0xff if bits & 0x007f_ffff != 0 => 1.0f32.to_bits(),
        0xff => sign | 2.0f32.to_bits(),
        0 => 0,
        e if e > 127 + 20 => sign | ((127 + 20) << 23) | (bits & 0x007f_ffff),
        _ => bits,
    }
}

/// [`tame`] on every `f32 0x...` constant of the text.
fn flush_constants(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("f32 0x") {
        let (head, tail) = rest.split_at(at + 6);
        out += head;
        let hex: String = tail.chars().take_while(|c| c.is_ascii_hexdigit()).collect();
        match u32::from_str_radix(&hex, 16) {
            Ok(bits) => out += &format!("{:08x}", tame(bits)),
            Err(_) => out += &hex,
        }
        rest = &tail[hex.len()..];
    }
    out + rest
}

/// The module text plus a compute entry point `kernel` that feeds `@{func}` its arguments
/// from `@args` (one word each, `params.len()` per invocation) and stores its result (of
/// type `ret`) as element `i` of `@results`, typed, so reports show floats as floats and
/// NaNs compare as a class.
fn wrap(text: &str, func: &str, params: &[Ty], ret: &str) -> String {
    let np = params.len();
    let mut k = format!(
        "{text}\nglobal @args : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]\n\
         global @results : ptr<storage_buffer, rtarray<{ret}>> [binding(0, 1)]\n\
         global @gid : ptr<input, vec<u32, 3>> [builtin(global_invocation_id)]\n\
         func @kernel() -> void [entry_point(compute, \"kernel\"), numthreads({INVOCATIONS}, 1, 1)] {{\n\
         bb0:\n  %id = load @gid : vec<u32, 3>\n  %x = extract %id, 0 : u32\n\
         \x20 %abase = mul %x, u32 {np} : u32\n"
    );
    let mut args = Vec::new();
    for (i, t) in params.iter().enumerate() {
        k += &format!(
            "  %ai{i} = add %abase, u32 {i} : u32\n  %ap{i} = element_addr @args, %ai{i} : ptr<storage_buffer, u32>\n  %aw{i} = load %ap{i} : u32\n"
        );
        if *t == Ty::U32 {
            args.push(format!("%aw{i}"));
        } else {
            k += &format!("  %av{i} = bitcast %aw{i} : {}\n", t.text());
            args.push(format!("%av{i}"));
        }
    }
    k += &format!(
        "  %r = call @{func}({}) : {ret}\n  %rp = element_addr @results, %x : ptr<storage_buffer, {ret}>\n  store %rp, %r\n  return\n}}\n",
        args.join(", ")
    );
    k
}

/// The result types of `@f`: the fields of `struct @Out`.
fn out_fields(text: &str) -> Vec<Ty> {
    let Some(start) = text.find("struct @Out {") else {
        return Vec::new();
    };
    text[start..]
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with('}'))
        .map(|l| match l.trim().rsplit(' ').next() {
            Some("i32") => Ty::I32,
            Some("u32") => Ty::U32,
            _ => Ty::F32,
        })
        .collect()
}

/// Runs one wrapped program through the interpreter and both levels of each backend; `Err`
/// with the report (and the program) when they disagree or a voice fails.
fn check(
    oracle: &Oracle<'_>,
    name: &str,
    text: &str,
    args: Vec<u32>,
    result_words: usize,
) -> Result<(), String> {
    let module = oneshader::ir::parse::parse(text)
        .map_err(|d| format!("{name}: the wrapped program does not parse: {d:?}\n{text}"))?;
    let verified = oneshader::ir::verify::verify(&module);
    if oneshader::ir::diag::has_errors(&verified) {
        return Err(format!(
            "{name}: the wrapped program does not verify: {verified:?}\n{text}"
        ));
    }
    let case = Case::new(
        name,
        Source::Ir {
            module,
            entry: "kernel".into(),
        },
    )
    .map_err(|e| format!("{name}: {e}"))?;
    let inputs = Inputs::new(
        vec![
            Binding::new(0, 0, Resource::StorageBuffer(args)),
            Binding::new(
                0,
                1,
                Resource::StorageBuffer(vec![0xdead_beef; result_words]),
            ),
        ],
        Vec::new(),
        [1, 1, 1],
    );
    let mut voices = vec![
        Voice::Interp,
        Voice::spirv(OptLevel::O0),
        Voice::spirv(OptLevel::O),
    ];
    if oneshader_oracle::voice::GLSL_AVAILABLE {
        voices.push(Voice::Glsl {
            level: OptLevel::O0,
        });
        voices.push(Voice::Glsl { level: OptLevel::O });
    }
    let report = oracle
        .run(
            &case,
            &voices,
            &inputs,
            &Rules::new().with("results", Rule::SignlessZero),
        )
        .map_err(|e| format!("{name}: {e}\n{text}"))?;
    if !report.agrees() {
        let lines: Vec<String> = report.disagreements.iter().map(|d| d.to_string()).collect();
        return Err(format!("{}\nprogram:\n{text}", lines.join("\n")));
    }
    // The dispatch wrote every result word (none kept the marker).
    let written = report.words(0, 0, 1);
    if written.iter().filter(|&&w| w == 0xdead_beef).count() == written.len() {
        return Err(format!("{name}: no result was written"));
    }
    Ok(())
}

fn arith_case(oracle: &Oracle<'_>, seed: u64) -> Result<(), String> {
    let (text, params) = fn_gen::generate(seed);
    let results = out_fields(&text);
    let program = wrap(&defined(&text), "f", &params, "@Out");
    let mut rng = Rng(seed ^ 0x5555_5555_5555_5555);
    let args: Vec<u32> = (0..INVOCATIONS)
        .flat_map(|_| {
            params
                .iter()
                .map(|&t| {
                    let b = random_bits(&mut rng, t) as u32;
                    if t == Ty::F32 { tame(b) } else { b }
                })
                .collect::<Vec<_>>()
        })
        .collect();
    check(
        oracle,
        &format!("fn_gen seed {seed}"),
        &program,
        args,
        INVOCATIONS as usize * results.len(),
    )
}

fn control_case(oracle: &Oracle<'_>, seed: u64) -> Result<(), String> {
    let text = program_gen::ProgramGen::program(seed);
    let program = wrap(&text, "main", &[Ty::I32, Ty::I32], "i32");
    let mut rng = program_gen::Rng(seed ^ 0xaaaa);
    let args: Vec<u32> = (0..INVOCATIONS * 2)
        .map(|_| (rng.below(41) as i32 - 20) as u32)
        .collect();
    check(
        oracle,
        &format!("program_gen seed {seed}"),
        &program,
        args,
        INVOCATIONS as usize,
    )
}

#[test]
fn random_arithmetic_programs_agree_in_the_interpreter_and_on_the_gpu() {
    let gpu = Gpu::new();
    let oracle = Oracle::new(&gpu);
    let failures: Vec<String> = cases(12)
        .filter_map(|seed| arith_case(&oracle, seed).err())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn random_structured_programs_agree_in_the_interpreter_and_on_the_gpu() {
    let gpu = Gpu::new();
    let oracle = Oracle::new(&gpu);
    let failures: Vec<String> = cases(12)
        .filter_map(|seed| control_case(&oracle, seed).err())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
