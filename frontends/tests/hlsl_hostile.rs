//! Hostile input: each case is a clean `file:line:col: error[CODE]` (or a correct compile),
//! never a crash. (Memory on huge inputs is measured by hand: docs/hlsl-frontend.md.)

mod sema_common;

use sema_common::{compile_with, errors, opts};

/// Classic Mac OS files end lines with a lone CR: the preprocessor's directives end there and
/// diagnostics count those lines.
#[test]
fn lone_cr_ends_lines() {
    let src = "#define ONE 1\rfloat4 main() : SV_Target {\r  int x = ONE;\r  return missing;\r}\r";
    let out = errors(src, "ps_6_0");
    assert!(
        out.contains("main.hlsl:4:10: error[OSH1001]: undefined name `missing`"),
        "{out}"
    );
    assert_eq!(out.matches("error[").count(), 1, "{out}");
    // CRLF and mixed line ends as well.
    let src = "#define ONE 1\r\nfloat4 main() : SV_Target {\r  return ONE;\n}\r\n";
    let (r, rendered) = compile_with(src, &opts("ps_6_0", "main"));
    assert!(r.module.is_some(), "{rendered}");
}

#[test]
fn integer_literals_wider_than_64_bits_are_errors() {
    let out = errors(
        "float4 main() : SV_Target {\n  uint64_t a = 18446744073709551615;\n  uint64_t b = 18446744073709551616;\n  uint c = 0x1FFFFFFFFFFFFFFFF;\n  return a + b + c;\n}\n",
        "ps_6_0",
    );
    assert!(
        out.contains("main.hlsl:3:16: error[OSH0006]: integer literal `18446744073709551616` does not fit in 64 bits"),
        "{out}"
    );
    assert!(out.contains("main.hlsl:4:12: error[OSH0006]"), "{out}");
    assert!(
        !out.contains(":2:"),
        "the largest 64-bit value is accepted: {out}"
    );
}

#[test]
fn numthreads_beyond_the_limits_are_errors() {
    for (args, what) in [
        ("1025, 1, 1", "x and y may be at most 1024"),
        ("1, 1025, 1", "x and y may be at most 1024"),
        ("1, 1, 65", "z may be at most 64"),
        ("32, 32, 2", "2048 threads per group"),
        ("0, 1, 1", "three positive integers"),
        ("4294967295, 4294967295, 4294967295", "at most 1024"),
        ("4294967296, 1, 1", "out of range"),
    ] {
        let src = format!("[numthreads({args})]\nvoid main() {{}}\n");
        let out = errors(&src, "cs_6_0");
        assert!(
            out.contains("main.hlsl:1:") && out.contains("error[OSH1025]") && out.contains(what),
            "numthreads({args}): {out}"
        );
    }
    // The limits themselves are fine.
    for args in ["1024, 1, 1", "1, 1024, 1", "16, 1, 64", "8, 8, 16"] {
        let src = format!("[numthreads({args})]\nvoid main() {{}}\n");
        let (r, rendered) = compile_with(&src, &opts("cs_6_0", "main"));
        assert!(r.module.is_some(), "numthreads({args}): {rendered}");
    }
}

#[test]
fn a_missing_entry_point_is_named_and_a_namesake_is_pointed_at() {
    let src = "float main;\nstruct PS { float4 c; };\nfloat4 f() : SV_Target { return 0; }\n";
    let (r, out) = compile_with(src, &opts("ps_6_0", "main"));
    assert!(r.module.is_none());
    assert!(
        out.contains("main.hlsl:1:7: error[OSH1020]: the entry point `main` is a constant-buffer member, not a function"),
        "{out}"
    );
    let (_, out) = compile_with(src, &opts("ps_6_0", "PS"));
    assert!(
        out.contains(
            "main.hlsl:2:1: error[OSH1020]: the entry point `PS` is a struct, not a function"
        ),
        "{out}"
    );
    let (_, out) = compile_with(src, &opts("ps_6_0", "nope"));
    assert!(
        out.contains("error[OSH1020]: the entry point `nope` is not defined"),
        "{out}"
    );
}

/// When a preprocessor limit stops the token stream (OSP0030), the truncated stream is not
/// parsed: one error, not a cascade (and no parse of a huge input).
#[test]
fn a_preprocessor_limit_stops_before_parsing() {
    let mut src = String::from("#define A0 x x x x x x x x x x\n");
    for i in 1..12 {
        src.push_str(&format!(
            "#define A{i} A{p} A{p} A{p} A{p} A{p} A{p} A{p} A{p} A{p} A{p}\n",
            p = i - 1
        ));
    }
    src.push_str("A11\nfloat4 main() : SV_Target { return 0; }\n");
    let out = errors(&src, "ps_6_0");
    assert!(out.contains("error[OSP0030]"), "{out}");
    assert_eq!(out.matches("error[").count(), 1, "{out}");
}
