//! Text forms the printer produces that the parser once refused (found by the `.osir` random
//! module tests): constants of struct type (`@S zero`, `@S {...}`), and declarations whose
//! parameter types are a generic's parameters (`func @d(%0) -> %0`).

use oneshader_ir::{parse::parse, print::print_module, verify::verify};

fn round_trip(text: &str) {
    let m = parse(text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    assert!(verify(&m).is_empty(), "{:?}", verify(&m));
    let printed = print_module(&m);
    let again = parse(&printed).unwrap_or_else(|e| panic!("{e:?}\n{printed}"));
    assert_eq!(print_module(&again), printed);
}

#[test]
fn constants_of_struct_type() {
    let text = "\
struct @S {
  x: f32
  n: i32
}
global @g : ptr<private, @S> = @S zero
global @h : ptr<private, @S> = @S {f32 1.0, i32 2}

func @f() -> void {
bb0:
  store @g, @S undef
  return
}
";
    round_trip(text);
    let m = parse(text).unwrap();
    let g = m.global_by_name("g").unwrap();
    let init = m.operand(g.id(), 0);
    assert_eq!(m.op(init), oneshader_ir::Op::Zero);
}

#[test]
fn declarations_typed_by_generic_parameters() {
    let text = "\
generic @G<%0.T: type> [import(\"G<type>($0)->$0\")] {
  func @d(%0) -> %0
  return @d
}
";
    round_trip(text);
    let m = parse(text).unwrap();
    let g = m.generics()[0];
    let d = m.generic_result(g).unwrap();
    let f = oneshader_ir::Func::cast(&m, d);
    assert!(f.is_declaration(&m));
    let t = m.generic_body(g).params(&m)[0].id();
    assert_eq!(m.fn_params(f.fn_type(&m).unwrap()), vec![t]);
}
