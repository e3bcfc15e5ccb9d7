//! Parser golden tests: shaders under tests/hlsl/ covering every construct, dumped with
//! `hlsl::dump` and compared with reviewed snapshots under tests/snapshots/.

mod common;

use common::*;
use oneshader_frontends::hlsl::ast::{DeclKind, ExprKind, StmtKind, TypeKind};

fn golden(name: &str) {
    let path = format!("{}/tests/hlsl/{name}.hlsl", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&path).expect("test shader");
    insta::assert_snapshot!(name, dump_ok(&src));
}

#[test]
fn golden_declarations() {
    golden("declarations");
}

#[test]
fn golden_statements() {
    golden("statements");
}

#[test]
fn golden_expressions() {
    golden("expressions");
}

#[test]
fn golden_stages() {
    golden("stages");
}

/// The shape of the tree, checked directly (not through the dump).
#[test]
fn ambiguities_resolve_by_type_names() {
    let (p, _) = parse(
        "struct T { int x; };\n\
         void f() { int a = 1, b = 2; float r; r = (T)a; r = (a) - b; r = float2(a, b); r = T(1); \
         r = a < b; r = vector<float, 2>(1, 2).x; }",
    );
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    let DeclKind::Function(f) = &p.unit.decls[1].kind else {
        panic!("function expected")
    };
    let body = &f.body.as_ref().unwrap().stmts;
    let rhs = |i: usize| match &body[i].kind {
        StmtKind::Expr(e) => match &e.kind {
            ExprKind::Assign { rhs, .. } => rhs.kind.clone(),
            other => panic!("assignment expected, got {other:?}"),
        },
        other => panic!("expression expected, got {other:?}"),
    };
    assert!(matches!(rhs(2), ExprKind::Cast { .. }), "(T)a is a cast");
    assert!(
        matches!(rhs(3), ExprKind::Binary { .. }),
        "(a) - b is a subtraction"
    );
    assert!(
        matches!(rhs(4), ExprKind::Construct { .. }),
        "float2(a, b) constructs"
    );
    assert!(
        matches!(rhs(5), ExprKind::Construct { .. }),
        "T(1) constructs a struct"
    );
    assert!(matches!(rhs(6), ExprKind::Binary { .. }), "a < b compares");
    match rhs(7) {
        ExprKind::Member { base, .. } => match base.kind {
            ExprKind::Construct { ty, .. } => match ty.kind {
                TypeKind::Named { args, .. } => assert_eq!(args.map(|a| a.len()), Some(2)),
                other => panic!("named type expected, got {other:?}"),
            },
            other => panic!("construct expected, got {other:?}"),
        },
        other => panic!("member expected, got {other:?}"),
    }
}

#[test]
fn spans_point_at_user_text_through_macros() {
    let src = "#define DECLARE float z = 0;\nvoid f() { DECLARE int w = 1; }";
    let (p, sources) = parse(src);
    assert!(p.diagnostics.is_empty());
    let DeclKind::Function(f) = &p.unit.decls[0].kind else {
        panic!("function expected")
    };
    let stmts = &f.body.as_ref().unwrap().stmts;
    // The declaration comes from the macro body: its span is the call site in the user's text.
    let text = |s: oneshader_ir::diag::Span| sources.text(s.file)[s.range()].to_string();
    assert_eq!(text(stmts[0].span), "DECLARE");
    assert_eq!(
        sources.line_col(stmts[0].span.file, stmts[0].span.start),
        (2, 12)
    );
    // The next statement is the user's own text.
    assert_eq!(text(stmts[1].span), "int w = 1;");
    // Later phases can find the expansion of a node from its span.
    let exp = p
        .preprocessed
        .expansions
        .expansion_at(stmts[0].span)
        .unwrap();
    assert_eq!(
        p.preprocessed.expansions.notes(Some(exp)),
        ["in expansion of macro `DECLARE`"]
    );
}

#[test]
fn nested_generic_closers_split() {
    let dump = dump_ok("Buffer<vector<float, 4>> b; StructuredBuffer<vector<uint,2> > c;");
    assert!(dump.contains("Var Buffer<vector<float, 4>>"), "{dump}");
    assert!(
        dump.contains("Var StructuredBuffer<vector<uint, 2>>"),
        "{dump}"
    );
}

#[test]
fn pragmas_are_available_to_later_phases() {
    let (p, _) = parse("#pragma pack_matrix(row_major)\nfloat4x4 m;");
    assert_eq!(p.preprocessed.pragmas.len(), 1);
    assert_eq!(p.preprocessed.pragmas[0].position, 0);
}
