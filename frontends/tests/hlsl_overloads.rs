//! Overload resolution as DXC ranks it: every row of the table in docs/hlsl-overloads.md is
//! compiled and checked, and the reproducer of issue 26 compiles to valid SPIR-V.

mod sema_common;

use oneshader_frontends::hlsl::CompileOptions;
use sema_common::{compile_with, spirv_valid};

/// One row of the documented table.
struct Case {
    candidates: Vec<String>,
    args: Vec<String>,
    picks: String,
    line: usize,
}

fn cells(line: &str) -> Vec<String> {
    line.trim()
        .trim_matches('|')
        .split('|')
        .map(|c| c.trim().replace('`', ""))
        .collect()
}

fn documented_cases() -> Vec<Case> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/hlsl-overloads.md");
    let text = std::fs::read_to_string(path).expect("docs/hlsl-overloads.md is readable");
    let (_, table) = text
        .split_once("## Cases")
        .expect("docs/hlsl-overloads.md has a Cases section");
    let first_line = text.lines().count() - table.lines().count();
    let mut out = Vec::new();
    for (i, line) in table.lines().enumerate() {
        if !line.starts_with("| `") {
            continue;
        }
        let c = cells(line);
        assert!(c.len() >= 3, "malformed row: {line}");
        out.push(Case {
            candidates: c[0].split(';').map(|s| s.trim().to_string()).collect(),
            args: c[1].split(',').map(|s| s.trim().to_string()).collect(),
            picks: c[2].clone(),
            line: first_line + i + 1,
        });
    }
    out
}

/// A shader in which candidate `k` returns `PickK`, called with the row's arguments; the result
/// is assigned to a `Pick{want}` (structs do not convert into each other, so it compiles only
/// when the call picks candidate `want`).
fn shader(case: &Case, want: Option<usize>) -> String {
    let mut s = String::new();
    for k in 0..case.candidates.len() {
        s += &format!("struct Pick{k} {{ int v; }};\n");
    }
    for (k, params) in case.candidates.iter().enumerate() {
        let list: Vec<String> = params
            .split(',')
            .enumerate()
            .map(|(i, p)| format!("{} p{i}", p.trim()))
            .collect();
        let outs: String = params
            .split(',')
            .enumerate()
            .filter(|(_, p)| p.trim().starts_with("out ") || p.trim().starts_with("inout "))
            .map(|(i, _)| format!(" p{i} = 0;"))
            .collect();
        s += &format!(
            "Pick{k} f({}) {{{outs} Pick{k} r; r.v = {k}; return r; }}\n",
            list.join(", ")
        );
    }
    s += "RWStructuredBuffer<int> o : register(u0);\n[numthreads(1, 1, 1)] void main() {\n";
    let mut args = Vec::new();
    for (i, a) in case.args.iter().enumerate() {
        if a.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
            args.push(a.clone());
        } else {
            s += &format!("    {a} a{i} = ({a})0;\n");
            args.push(format!("a{i}"));
        }
    }
    match want {
        Some(k) => {
            s += &format!(
                "    Pick{k} r = f({});\n    o[0] = r.v;\n}}\n",
                args.join(", ")
            )
        }
        None => s += &format!("    o[0] = f({}).v;\n}}\n", args.join(", ")),
    }
    s
}

fn opts16() -> CompileOptions {
    CompileOptions {
        entry: "main".into(),
        profile: "cs_6_2".into(),
        enable_16bit_types: true,
        ..CompileOptions::default()
    }
}

#[test]
fn every_documented_overload_case() {
    let cases = documented_cases();
    assert!(cases.len() >= 25, "the table has {} rows", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        if case.picks == "ambiguous" {
            let src = shader(case, None);
            let (r, out) = compile_with(&src, &opts16());
            let listed = out.matches("= note: candidate:").count();
            if r.module.is_some() || !out.contains("error[OSH1004]: ambiguous call to `f`") {
                failures.push(format!(
                    "line {}: expected an ambiguous call\n{out}\n{src}",
                    case.line
                ));
            } else if listed < 2 {
                failures.push(format!(
                    "line {}: the ambiguity lists {listed} candidates\n{out}",
                    case.line
                ));
            }
            continue;
        }
        let Some(want) = case
            .candidates
            .iter()
            .position(|c| norm(c) == norm(&case.picks))
        else {
            failures.push(format!(
                "line {}: `{}` is not a candidate",
                case.line, case.picks
            ));
            continue;
        };
        let src = shader(case, Some(want));
        let (r, out) = compile_with(&src, &opts16());
        if r.module.is_none() {
            failures.push(format!(
                "line {}: expected `{}` to be called\n{out}\n{src}",
                case.line, case.picks
            ));
            continue;
        }
        // The same call assigned to another candidate's result type must not compile: the
        // check above could not pass with a different pick.
        let other = (want + 1) % case.candidates.len();
        let (r, _) = compile_with(&shader(case, Some(other)), &opts16());
        if r.module.is_some() {
            failures.push(format!(
                "line {}: the result converts to candidate {other}'s type too",
                case.line
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn reproducer_2_picks_the_int2_overload_and_validates() {
    let src = r#"
float2 get_uv(int2 pix, float4 ts) { return (pix + 0.5) * ts.zw; }
float2 get_uv(float2 pix, float4 ts) { return (pix + 0.5) * ts.zw; }
RWTexture2D<float2> o : register(u0);
[numthreads(8,8,1)] void main(uint2 px : SV_DispatchThreadID) { o[px] = get_uv(px, 1.0.xxxx); }
"#;
    let ir = sema_common::ir_text(src, "cs_6_0");
    // The function called is the one whose first parameter is an `int2`.
    let callee = ir
        .split("call @get_uv")
        .nth(1)
        .and_then(|rest| rest.split('(').next())
        .map(|suffix| format!("get_uv{suffix}"))
        .unwrap_or_else(|| panic!("no call in:\n{ir}"));
    assert!(
        ir.contains(&format!("func @{callee}(%0: vec<i32, 2>")),
        "`{callee}` is not the int2 overload:\n{ir}"
    );
    spirv_valid(src, "cs_6_0");
}

#[test]
fn ambiguous_call_lists_both_candidates_with_position() {
    let (r, out) = compile_with(
        "float f(float x) { return x; }\nfloat f(double x) { return 1; }\n\
         RWStructuredBuffer<float> o : register(u0);\n\
         [numthreads(1,1,1)] void main() { half h = 1; o[0] = f(h); }\n",
        &opts16(),
    );
    assert!(r.module.is_none());
    assert!(
        out.contains("error[OSH1004]: ambiguous call to `f`"),
        "{out}"
    );
    assert!(out.contains("main.hlsl:4:"), "{out}");
    assert!(out.contains("= note: candidate: float f(float)"), "{out}");
    assert!(out.contains("= note: candidate: float f(double)"), "{out}");
}
