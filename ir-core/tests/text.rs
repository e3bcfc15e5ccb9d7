//! The text form: errors with locations, round trips of tricky spellings.

use oneshader_ir::diag::SourceMap;
use oneshader_ir::parse::{parse, parse_module};
use oneshader_ir::print::print_module;

fn first_error(text: &str) -> String {
    let mut sm = SourceMap::new();
    let f = sm.add("t.ir", text);
    let errs = parse_module(text, f).expect_err("must not parse");
    sm.render(&errs[0])
}

#[test]
fn undefined_value_points_at_it() {
    let e = first_error("func @f() -> i32 {\nbb0:\n  %1 = add %9, i32 1 : i32\n  return %1\n}\n");
    assert_eq!(
        e,
        "t.ir:3:12: error[OST0006]: undefined value `%9`\n    %1 = add %9, i32 1 : i32\n             ^^\n"
    );
}

#[test]
fn unknown_opcode_type_and_decoration() {
    assert!(
        first_error("func @f() -> void {\nbb0:\n  frobnicate\n}\n")
            .contains("error[OST0004]: unknown opcode `frobnicate`")
    );
    assert!(
        first_error("global @g : ptr<private, quux>\n")
            .contains("error[OST0004]: unknown type `quux`")
    );
    assert!(
        first_error("global @g : ptr<private, i32> [shiny]\n")
            .contains("unknown decoration `shiny`")
    );
    assert!(first_error("global @g : ptr<nowhere, i32>\n").contains("t.ir:1:17: error[OST0004]"));
}

/// Naming something that yields no value (a terminator, a `store`) is an error at the opcode:
/// accepted, it left a name that printed as `<out of scope>` (found by the `ir_text` fuzzer).
#[test]
fn naming_what_yields_no_value() {
    assert_eq!(
        first_error("func @f() -> void {\nbb0:\n  %3 = return : bool\n}\n"),
        "t.ir:3:8: error[OST0003]: `return` yields no value: it takes no `%name =`\n    %3 = return : bool\n         ^^^^^^\n"
    );
    assert!(
        first_error(
            "func @f(%p: ptr<function, i32>) -> void {\nbb0:\n  %s = store %p, i32 1 : void\n  return\n}\n"
        )
        .contains("`store` yields no value")
    );
}

#[test]
fn numbers_out_of_range() {
    assert!(first_error("global @g : ptr<private, u8> = u8 256\n").contains("does not fit in u8"));
    assert!(first_error("global @g : ptr<private, i8> = i8 -129\n").contains("does not fit in i8"));
    assert!(first_error("global @g : ptr<private, f16> = f16 0.1\n").contains("OST0005"));
    assert!(first_error("global @g : ptr<private, f32> = f32 0x1ffffffff\n").contains("OST0005"));
}

#[test]
fn duplicates_and_missing_blocks() {
    assert!(
        first_error("global @g : ptr<private, i32>\nglobal @g : ptr<private, i32>\n")
            .contains("OST0007")
    );
    assert!(
        first_error("func @f() -> void {\nbb0:\n  br bb9\n}\n").contains("undefined block `bb9`")
    );
    assert!(
        first_error("func @f(%0: i32, %0: i32) -> void {\nbb0:\n  return\n}\n").contains("OST0007")
    );
}

#[test]
fn several_errors_in_one_run() {
    let text = "func @f() -> void {\nbb0:\n  frob\n  %1 = add : i32\n  return\n}\n";
    let errs = parse(text).unwrap_err();
    assert!(errs.len() >= 2, "{errs:?}");
}

#[test]
fn garbage_never_panics() {
    for text in [
        "",
        "@",
        "%",
        "\"",
        "func",
        "func @",
        "func @f(",
        "func @f() -> {",
        "struct @S {\n",
        "generic @G<%0: type> {\n",
        "}\n}\n",
        "let @x = i32",
        "global @g : ptr<private, vec<f32,",
        "func @f() -> void {\nbb0(%0: i32):\n",
        "\u{0}\u{1}",
        "func @f() -> void {\n  return\n}\n",
    ] {
        let _ = parse(text);
    }
}

#[test]
fn floats_names_and_strings_round_trip() {
    let text = r#"let @nan = f32 0x7fc00001
let @negzero = f64 -0.0
let @tiny = f32 1e-40
let @half = f16 0x3c00
let @"odd name" = "tab\tquote\"back\\slash"
global @"weird global" : ptr<private, u64> = u64 18446744073709551615
global @g : ptr<private, i64> = i64 -9223372036854775808
"#;
    let m = parse(text).unwrap();
    let printed = print_module(&m);
    assert!(printed.contains("f32 0x7fc00001"), "{printed}");
    assert!(printed.contains("f64 -0.0"), "{printed}");
    assert!(
        printed.contains(r#"@"odd name" = "tab\tquote\"back\\slash""#),
        "{printed}"
    );
    let again = print_module(&parse(&printed).unwrap());
    assert_eq!(again, printed);
}

#[test]
fn duplicate_hints_are_made_unique_deterministically() {
    let mut m = oneshader_ir::Module::new();
    let i = m.i32_type();
    for _ in 0..3 {
        m.add_global("x", oneshader_ir::AddressSpace::Private, i, None);
    }
    let printed = print_module(&m);
    assert!(
        printed.contains("global @x :")
            && printed.contains("global @x.1 :")
            && printed.contains("global @x.2 :"),
        "{printed}"
    );
    assert_eq!(print_module(&parse(&printed).unwrap()), printed);
}

#[test]
fn fuzz_crash_self_referential_param_type() {
    let text = "generic @square<%5.T: type> {\n  func @square_impl(%1.x: %1) -> %0 {\n  bb0:\n    %2 = mul %1 ptr<input, u32> [builtilcan(ol_invocation_index)]\n\nfunc @accumulate() -> void [entry_point(compute, \"accumulate\"), numthreads(32, 1, 1)] {\nbb0:\n  %0 = loaturn %1\n}\n";
    assert!(parse(text).is_err());
}

#[test]
fn fuzz_crash_item_redefined_as_another_kind() {
    let text = "func @x() -> void\ngeneric @x<%0: type> {\n  return %0\n}\n";
    assert!(parse(text).is_err());
}

#[test]
fn invalid_modules_print_faithfully() {
    // A comparison typed `void` is invalid, but must still print in a form that reparses.
    let text = "func @f(%0: i32) -> void {\nbb0:\n  %1 = eq %0, %0 : void\n  return\n}\n";
    let m = parse(text).unwrap();
    let printed = print_module(&m);
    assert!(printed.contains("%1 = eq %0, %0 : void"), "{printed}");
    assert_eq!(print_module(&parse(&printed).unwrap()), printed);
    // Block hints that are not plain names are dropped rather than printed unparseably.
    let mut m = parse("func @f() -> void {\nbb0:\n  return\n}\n").unwrap();
    let b = m.functions()[0].entry(&m).unwrap();
    m.set_name(b.id(), Some("odd name?"));
    let printed = print_module(&m);
    assert_eq!(print_module(&parse(&printed).unwrap()), printed);
}

#[test]
fn void_intrinsics_print_and_parse_without_a_result() {
    let text = "func @f(%0: f32) -> f32 {\nbb0:\n  %1 = var : ptr<function, f32>\n  %2 = var : ptr<function, f32>\n  call_intrinsic sincos(%0, %1, %2)\n  %3 = load %1 : f32\n  return %3\n}\n";
    let m = parse(text).unwrap();
    assert_eq!(print_module(&m), text);
    let f = m.functions()[0];
    let call = f.entry(&m).unwrap().insts(&m)[2];
    assert!(!m.effects(call).removable_if_unused());
    assert!(oneshader_ir::verify::verify(&m).is_empty());
}
