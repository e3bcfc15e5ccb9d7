//! Preprocessor behaviour: each directive, macro corner cases, include resolution, and errors
//! with their locations.

mod common;

use common::*;
use oneshader_frontends::hlsl::{PreprocessOptions, TokenKind};

#[test]
fn object_and_function_like_macros() {
    assert_eq!(pp_tokens("#define N 4\nint a[N];"), "int a [ 4 ] ;");
    assert_eq!(
        pp_tokens("#define SQ(x) ((x)*(x))\nSQ(a+1)"),
        "( ( a + 1 ) * ( a + 1 ) )"
    );
    // A function-like macro name without `(` is not expanded.
    assert_eq!(pp_tokens("#define F(x) x\nint F;"), "int F ;");
    // Arguments may span lines and contain parenthesized commas.
    assert_eq!(
        pp_tokens("#define A(x, y) y x\nA((1, 2),\n 3)"),
        "3 ( 1 , 2 )"
    );
    // Empty arguments.
    assert_eq!(pp_tokens("#define E(x) [x]\nE()"), "[ ]");
    // A space before `(` makes an object-like macro.
    assert_eq!(pp_tokens("#define O (x) x\nO"), "( x ) x");
}

#[test]
fn stringizing_and_pasting() {
    assert_eq!(
        pp_tokens("#define S(x) #x\nS(a  +  \"q\")"),
        r#""a + \"q\"""#
    );
    assert_eq!(
        pp_tokens("#define C(a, b) a##b\nC(float, 4) C(x, ) C(, y)"),
        "float4 x y"
    );
    assert_eq!(pp_tokens("#define V(t) t##4\nV(uint)"), "uint4");
    // `##` operands are not expanded first; the result is rescanned.
    assert_eq!(
        pp_tokens("#define AB done\n#define A nope\n#define P(x, y) x ## y\nP(A, B)"),
        "done"
    );
    // A pasted operator.
    assert_eq!(pp_tokens("#define OP(a) a ## =\nx OP(+) 1"), "x += 1");
}

#[test]
fn variadic_macros() {
    assert_eq!(
        pp_tokens("#define F(fmt, ...) f(fmt, __VA_ARGS__)\nF(1, 2, 3)"),
        "f ( 1 , 2 , 3 )"
    );
    // GNU comma elision.
    assert_eq!(
        pp_tokens("#define G(fmt, ...) g(fmt, ## __VA_ARGS__)\nG(1) G(1, 2)"),
        "g ( 1 ) g ( 1 , 2 )"
    );
    assert_eq!(
        pp_tokens("#define H(...) [__VA_ARGS__]\nH() H(a, b)"),
        "[ ] [ a , b ]"
    );
}

#[test]
fn recursion_is_guarded() {
    assert_eq!(pp_tokens("#define X X + 1\nX"), "X + 1");
    assert_eq!(pp_tokens("#define A B\n#define B A\nA B"), "A B");
    // The `f` produced by `f(1)` carries `f` in its hide set, so `(2)` is not an invocation.
    assert_eq!(pp_tokens("#define f(x) x f\nf(1)(2)"), "1 f ( 2 )");
    // The classic: arguments are expanded before substitution, then the result rescanned.
    assert_eq!(
        pp_tokens("#define f(a) a*g\n#define g(a) f(a)\nf(2)(9)"),
        "2 * 9 * g"
    );
}

#[test]
fn conditionals() {
    let src = "#if 1 + 2 * 3 == 7 && !(0) && (5 > 3 ? 1 : 0)\nyes1\n#else\nno1\n#endif\n\
               #if defined(UNDEF) || defined UNDEF2\nno2\n#elif 0x10 == 16 && (1 << 4) == 16\nyes2\n#else\nno3\n#endif\n\
               #define Z 0\n#ifdef Z\nyes3\n#endif\n#ifndef Z\nno4\n#endif\n\
               #if 0\n#if garbage ((\n#error not reached\n#endif\n#else\nyes4\n#endif\n\
               #if -1 < 0u\nno5\n#else\nyes5\n#endif\n#if UNKNOWN_IS_ZERO\nno6\n#endif";
    assert_eq!(pp_tokens(src), "yes1 yes2 yes3 yes4 yes5");
}

#[test]
fn defined_produced_by_a_macro() {
    // glslang's hlsl.pp.vert: `defined` inside a macro body is evaluated where it lands.
    let src =
        "#define A defined(B)\n#if A\nbad\n#else\ngood1\n#endif\n#define B\n#if A\ngood2\n#endif";
    assert_eq!(pp_tokens(src), "good1 good2");
}

#[test]
fn undef_and_command_line_macros_apply_in_order() {
    let (out, sources) = pp_files(
        &[("main.hlsl", "A B C D")],
        &opts(&["-DA=1", "-DB", "-DC=x y", "-DD=2", "-UD"]),
    );
    assert!(!out.has_errors(), "{}", rendered(&out, &sources));
    assert_eq!(tokens(&out), "1 1 x y D");
    let (out, _) = pp("#define X 1\n#undef X\nX");
    assert_eq!(tokens(&out), "X");
}

#[test]
fn includes_resolve_against_the_includer_then_the_stack_then_dash_i() {
    let files = [
        (
            "src/main.hlsl",
            "#include \"sub/a.h\"\n#include <lib.h>\nmain_end",
        ),
        (
            "src/sub/a.h",
            "a_start\n#include \"b.h\"\n#include \"top.h\"",
        ),
        ("src/sub/b.h", "b"),
        ("src/top.h", "top"),
        ("inc/lib.h", "lib"),
    ];
    let mut o = PreprocessOptions::default();
    o.include_dirs.push("inc".into());
    let (out, sources) = pp_files(&files, &o);
    assert!(!out.has_errors(), "{}", rendered(&out, &sources));
    assert_eq!(tokens(&out), "a_start b top lib main_end");
    // Each token's span is in the file it came from.
    let b = out.tokens.iter().find(|t| &*t.text == "b").unwrap();
    assert_eq!(sources.name(b.span.file), "src/sub/b.h");
    // Backslash separators work on any system.
    let (out, _) = pp_files(
        &[("m.hlsl", "#include \"d\\\\x.h\""), ("d/x.h", "ok")],
        &PreprocessOptions::default(),
    );
    assert_eq!(tokens(&out), "ok", "{:?}", out.diagnostics);
}

#[test]
fn pragma_once_and_include_guards() {
    let files = [
        (
            "m.hlsl",
            "#include \"o.h\"\n#include \"o.h\"\n#include \"g.h\"\n#include \"g.h\"",
        ),
        ("o.h", "#pragma once\nonce"),
        ("g.h", "#ifndef G\n#define G\nguarded\n#endif"),
    ];
    let (out, _) = pp_files(&files, &PreprocessOptions::default());
    assert_eq!(tokens(&out), "once guarded");
    assert!(out.pragmas.is_empty(), "`#pragma once` is consumed");
}

#[test]
fn other_pragmas_are_kept_with_their_position() {
    let (out, sources) = pp("a\n#pragma pack_matrix(row_major)\nb\n");
    assert_eq!(out.pragmas.len(), 1);
    let p = &out.pragmas[0];
    assert_eq!(p.position, 1);
    let text: Vec<&str> = p.tokens.iter().map(|t| &*t.text).collect();
    assert_eq!(text, ["pack_matrix", "(", "row_major", ")"]);
    assert_eq!(
        out.to_text(&sources),
        "a\n#pragma pack_matrix(row_major)\nb\n"
    );
}

#[test]
fn line_directive_and_builtin_macros() {
    let (out, _) = pp("#line 100 \"x.hlsl\"\n__LINE__ __FILE__\n__LINE__\n__COUNTER__ __COUNTER__");
    assert_eq!(tokens(&out), "100 \"x.hlsl\" 101 0 1");
    assert_eq!(out.line_directives.len(), 1);
    assert_eq!(out.line_directives[0].line, 100);
    let (out, _) = pp("#define H __HLSL_VERSION\n#if __HLSL_VERSION >= 2021\nH\n#endif");
    assert_eq!(tokens(&out), "2021");
}

#[test]
fn text_output_is_like_cpp_p() {
    let (out, sources) =
        pp("#define F(x) x + 1\n  int a = F(2);\n\n\nfloat b;\n#define P +\nc = +P;");
    assert_eq!(
        out.to_text(&sources),
        "  int a = 2 + 1;\nfloat b;\nc = + +;\n"
    );
}

#[test]
fn tokens_from_macros_know_their_expansion() {
    let (out, sources) = pp("#define TWICE(x) (x) * 2\nfloat y = TWICE(z);");
    let star = out.tokens.iter().find(|t| &*t.text == "*").unwrap();
    let z = out.tokens.iter().find(|t| &*t.text == "z").unwrap();
    // `z` was written by the user: no expansion, its own span.
    assert_eq!(z.expansion, None);
    assert_eq!(sources.line_col(z.span.file, z.span.start), (2, 17));
    // `*` comes from the body: spelled on line 1, shown at the call site on line 2.
    let exp = star.expansion.expect("from a macro");
    assert_eq!(sources.line_col(star.span.file, star.span.start), (1, 22));
    let user = out.expansions.user_span(star);
    assert_eq!(sources.line_col(user.file, user.start), (2, 11));
    assert_eq!(&sources.text(user.file)[user.range()], "TWICE(z)");
    assert_eq!(&*out.expansions.get(exp).unwrap().macro_name, "TWICE");
    assert_eq!(
        out.expansions.notes(Some(exp)),
        ["in expansion of macro `TWICE`"]
    );
    assert_eq!(out.expansions.expansion_at(user), Some(exp));
}

#[test]
fn nested_expansions_chain_to_the_user_call_site() {
    let (out, sources) = pp("#define INNER 1\n#define OUTER INNER\nx = OUTER;");
    let one = out.tokens.iter().find(|t| &*t.text == "1").unwrap();
    let user = out.expansions.user_span(one);
    assert_eq!(&sources.text(user.file)[user.range()], "OUTER");
    assert_eq!(
        out.expansions.notes(one.expansion),
        [
            "in expansion of macro `INNER`",
            "in expansion of macro `OUTER`"
        ]
    );
}

fn first_error(src: &str) -> String {
    let (out, sources) = pp(src);
    assert!(out.has_errors(), "expected an error for {src:?}");
    rendered(&out, &sources)
}

#[test]
fn errors_point_at_the_directive() {
    assert_eq!(
        first_error("int a;\n#error stop here\n"),
        "main.hlsl:2:1: error[OSP0040]: #error stop here\n  #error stop here\n  ^^^^^^^^^^^^^^^^\n"
    );
    let e = first_error("#include \"missing.h\"\n");
    assert!(
        e.starts_with("main.hlsl:1:10: error[OSP0005]: cannot find include file `missing.h`"),
        "{e}"
    );
    let e = first_error("#if 1\nx\n");
    assert!(
        e.starts_with("main.hlsl:1:1: error[OSP0010]: unterminated conditional"),
        "{e}"
    );
    let e = first_error("#endif\n");
    assert!(e.contains("error[OSP0012]: `#endif` without `#if`"), "{e}");
    let e = first_error("#else\n");
    assert!(e.contains("error[OSP0012]"), "{e}");
    let e = first_error("#if 1\n#else\n#else\n#endif\n");
    assert!(e.contains("main.hlsl:3:1: error[OSP0013]"), "{e}");
    let e = first_error("#foo\n");
    assert!(
        e.contains("main.hlsl:1:1: error[OSP0014]: unknown preprocessor directive `#foo`"),
        "{e}"
    );
    let e = first_error("#if 1 / 0\n#endif\n");
    assert!(e.contains("error[OSP0009]: division by zero"), "{e}");
    let e = first_error("#if (1\n#endif\n");
    assert!(e.contains("error[OSP0009]"), "{e}");
    let e = first_error("#define F(a, b) a\nF(1)\n");
    assert!(
        e.contains("main.hlsl:2:1: error[OSP0021]: macro `F` takes 2 arguments, but 1 was given"),
        "{e}"
    );
    let e = first_error("#define F(a) a\nF(1\n");
    assert!(
        e.contains("error[OSP0020]: unterminated argument list invoking macro `F`"),
        "{e}"
    );
    let e = first_error("#define S(a) #b\n");
    assert!(e.contains("error[OSP0019]"), "{e}");
    let e = first_error("#define P(a) ## a\n");
    assert!(e.contains("error[OSP0018]"), "{e}");
    let e = first_error("#define C(a, b) a ## b\nC(+, /)\n");
    assert!(e.contains("error[OSP0022]: pasting `+` and `/`"), "{e}");
    let e = first_error("#define 3 x\n");
    assert!(e.contains("error[OSP0011]"), "{e}");
    let e = first_error("#define defined 1\n");
    assert!(e.contains("error[OSP0016]"), "{e}");
    let e = first_error("#define F(a, a) a\n");
    assert!(e.contains("error[OSP0017]"), "{e}");
    let e = first_error("#line x\n");
    assert!(e.contains("error[OSP0007]"), "{e}");
    let e = first_error("#include\n");
    assert!(e.contains("error[OSP0004]"), "{e}");
    let e = first_error("\"abc\n");
    assert!(
        e.contains("main.hlsl:1:1: error[OSP0001]: unterminated string literal"),
        "{e}"
    );
    let e = first_error("/* abc\n");
    assert!(e.contains("error[OSP0002]"), "{e}");
}

#[test]
fn errors_inside_macro_expansions_name_the_macro() {
    let e = first_error("#define F(a) a\n#define G F(\nG 1\n");
    assert!(e.contains("= note: in expansion of macro `G`"), "{e}");
}

#[test]
fn redefinition_warns_but_identical_redefinition_does_not() {
    let (out, sources) = pp("#define A 1\n#define A 1\n#define A 2\nA");
    assert!(!out.has_errors());
    let r = rendered(&out, &sources);
    assert_eq!(r.matches("warning[OSP0050]").count(), 1, "{r}");
    assert!(
        r.contains("main.hlsl:3:9: warning[OSP0050]: macro `A` redefined"),
        "{r}"
    );
    assert!(
        r.contains("main.hlsl:1:9: note: previous definition is here"),
        "{r}"
    );
    assert_eq!(tokens(&out), "2");
}

#[test]
fn exponential_macros_are_capped() {
    let mut src = String::from("#define A0 x x\n");
    for i in 1..40 {
        src.push_str(&format!("#define A{i} A{} A{}\n", i - 1, i - 1));
    }
    src.push_str("A39\n");
    let (out, sources) = pp(&src);
    let r = rendered(&out, &sources);
    assert!(r.contains("error[OSP0030]"), "{r}");
}

#[test]
fn recursive_includes_are_capped() {
    let (out, sources) = pp_files(
        &[("self.hlsl", "#include \"self.hlsl\"\n")],
        &PreprocessOptions::default(),
    );
    let r = rendered(&out, &sources);
    assert!(r.contains("error[OSP0006]"), "{r}");
}

#[test]
fn deeply_nested_macro_arguments_are_capped() {
    let mut src = String::from("#define F(x) x\n");
    for _ in 0..1000 {
        src.push_str("F(");
    }
    src.push('1');
    for _ in 0..1000 {
        src.push(')');
    }
    let (out, sources) = pp(&src);
    let r = rendered(&out, &sources);
    assert!(r.contains("error[OSP0031]"), "{r}");
}

#[test]
fn token_kinds() {
    let (out, _) = pp("a 1.5f \"s\" 'c' += $");
    let kinds: Vec<TokenKind> = out.tokens.iter().map(|t| t.kind).collect();
    assert_eq!(
        kinds,
        [
            TokenKind::Ident,
            TokenKind::Number,
            TokenKind::String,
            TokenKind::Char,
            TokenKind::Punct,
            TokenKind::Other
        ]
    );
}
