//! Error recovery: several errors in one run, each at the right place, and no cascades.

mod common;

use common::*;

#[test]
fn several_errors_in_one_run_without_cascades() {
    let src = "float4 a = ;\n\
               struct S { float x float y; };\n\
               void f() {\n\
                 int i = 1 +;\n\
                 i = 2;\n\
                 if (i > ) { i = 3; }\n\
                 return i\n\
               }\n\
               float ok = 1.0;\n";
    let e = errors(src);
    let lines: Vec<&str> = e.lines().filter(|l| l.contains("error[")).collect();
    assert_eq!(
        lines,
        [
            "test.hlsl:1:12: error[OSH0002]: expected an expression, found `;`",
            "test.hlsl:2:20: error[OSH0001]: expected `;` after declaration, found `float`",
            "test.hlsl:4:12: error[OSH0002]: expected an expression, found `;`",
            "test.hlsl:6:9: error[OSH0002]: expected an expression, found `)`",
            "test.hlsl:8:1: error[OSH0001]: expected `;`, found `}`",
        ],
        "{e}"
    );
}

#[test]
fn recovery_keeps_the_rest_of_the_tree() {
    let (p, _) = parse("int a = ;\nfloat b;\nvoid g() { x = ; y = 1; }\nfloat c;");
    assert_eq!(p.diagnostics.len(), 2, "{:?}", p.diagnostics);
    let names: Vec<String> = p
        .unit
        .decls
        .iter()
        .map(|d| format!("{:?}", std::mem::discriminant(&d.kind)))
        .collect();
    assert_eq!(names.len(), 4, "error decl, b, g, c: {names:?}");
}

#[test]
fn caret_line_is_rendered() {
    let e = errors("void f() {\n  int x = 1 +* 2;\n}\n");
    assert_eq!(
        e,
        "test.hlsl:2:14: error[OSH0002]: expected an expression, found `*`\n    int x = 1 +* 2;\n               ^\n"
    );
}

#[test]
fn errors_in_macro_expansions_point_at_the_call_site() {
    let e = errors("#define BAD(x) (x +)\nfloat f = BAD(1);\n");
    assert_eq!(
        e,
        "test.hlsl:2:11: error[OSH0002]: expected an expression, found `)`\n  \
         float f = BAD(1);\n            ^^^^^^\n  = note: in expansion of macro `BAD`\n"
    );
}

#[test]
fn unbalanced_braces_do_not_loop() {
    for src in [
        "}",
        "{",
        "void f() {",
        "void f() { { { ",
        "struct S {",
        "]]]",
        ")(",
        "cbuffer X {",
    ] {
        // A parser that loops would hang the test instead of failing it: parse on a thread
        // and fail when it has not finished after a generous while (a guard, not a timing).
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let (p, _) = parse(src);
            let _ = tx.send(p.diagnostics.len());
        });
        match rx.recv_timeout(std::time::Duration::from_secs(60)) {
            Ok(n) => assert!(n > 0, "{src}: no diagnostic"),
            Err(_) => panic!("{src}: the parser did not finish (a loop?)"),
        }
    }
}

#[test]
fn misplaced_labels_and_else() {
    let e = errors(
        "void f() { case 1: ; else x; }\nvoid g(int v) { switch (v) { v = 1; case 2: break; } }",
    );
    assert!(
        e.contains("error[OSH0003]: `case` label outside a `switch`"),
        "{e}"
    );
    assert!(e.contains("error[OSH0004]"), "{e}");
    assert!(e.contains("test.hlsl:2:30: error[OSH0005]"), "{e}");
}

#[test]
fn too_deep_nesting_is_an_error_not_a_crash() {
    let mut src = String::from("float x = ");
    src.push_str(&"(".repeat(100_000));
    src.push('1');
    src.push_str(&")".repeat(100_000));
    src.push(';');
    let e = errors(&src);
    assert!(e.contains("error[OSH0010]"), "{}", &e[..e.len().min(300)]);

    let mut chain = String::from("float y = 1");
    chain.push_str(&" + 1".repeat(100_000));
    chain.push(';');
    let e = errors(&chain);
    assert!(e.contains("error[OSH0011]"), "{}", &e[..e.len().min(300)]);

    let mut blocks = String::from("void f() ");
    blocks.push_str(&"{".repeat(50_000));
    let e = errors(&blocks);
    assert!(e.contains("error[OSH0010]"), "{}", &e[..e.len().min(300)]);

    let mut elifs = String::from("void f(int a) { if (a == 0) a = 1;");
    elifs.push_str(&" else if (a == 1) a = 2;".repeat(20_000));
    elifs.push('}');
    let e = errors(&elifs);
    assert!(e.contains("error[OSH0010]"), "{}", &e[..e.len().min(300)]);
}

#[test]
fn moderately_long_chains_parse() {
    // Generated code (unrolled filters) has long sums; they are within the limits.
    let mut src = String::from("float y = 1");
    src.push_str(&" + 1".repeat(500));
    src.push(';');
    assert!(errors(&src).is_empty());
    // `<` after a variable is not the start of template arguments: a chain of comparisons
    // parses in one pass (each `<` once tried as template arguments made this 2^n).
    let mut cmp = String::from("float x = 1; bool b = x");
    cmp.push_str(&" < x".repeat(60));
    cmp.push(';');
    assert!(errors(&cmp).is_empty(), "{}", errors(&cmp));
}

#[test]
fn invalid_numbers_are_reported() {
    let e = errors("uint a = 0bERROR; float b = 1.0.0;");
    assert_eq!(e.matches("error[OSH0006]").count(), 2, "{e}");
}

/// The longest operator chain the parser accepts ([`MAX_TREE_DEPTH`] levels, minus the few of
/// the declaration around it) parses, and its tree is dropped, on a thread with the 2 MiB
/// stack Rust gives spawned threads: a library user's thread, not the compiler's big one.
#[test]
fn a_chain_at_the_depth_limit_parses_and_drops_on_a_small_stack() {
    use oneshader_frontends::hlsl::MAX_TREE_DEPTH;
    let mut chain = String::from("float y = 1");
    chain.push_str(&" + 1".repeat(MAX_TREE_DEPTH - 8));
    chain.push(';');
    let handle = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let (parsed, _) = parse(&chain);
            let errors = parsed.diagnostics.len();
            drop(parsed);
            errors
        })
        .expect("a thread");
    assert_eq!(handle.join().expect("no stack overflow"), 0);
}
