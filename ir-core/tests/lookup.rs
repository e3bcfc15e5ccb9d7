//! Looking functions up by name says why it fails (names are hints: two functions may share
//! one), and `all_functions` reaches the functions inside generics that `functions` leaves
//! out.

use oneshader_ir::{Module, NameLookupError, parse::parse};

#[test]
fn find_func_says_why_a_name_finds_not_exactly_one() {
    let mut m = Module::new();
    let i32t = m.i32_type();
    let a = m.add_func("choose_impl", i32t, &[]);
    let b = m.add_func("choose_impl", i32t, &[]);
    let one = m.add_func("single", i32t, &[]);
    assert_ne!(a, b);
    assert_eq!(m.find_func("single"), Ok(one));
    assert_eq!(m.func_by_name("single"), Some(one));
    assert_eq!(
        m.find_func("choose_impl"),
        Err(NameLookupError::Ambiguous {
            name: "choose_impl".into(),
            count: 2
        })
    );
    assert_eq!(m.func_by_name("choose_impl"), None);
    let missing = m.find_func("nope").expect_err("no such function");
    assert_eq!(missing.to_string(), "no function is named `nope`");
}

#[test]
fn all_functions_include_those_inside_generics() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/ir/generic.ir"
    ))
    .expect("generic.ir");
    let m = parse(&text).expect("parses");
    let top = m.functions();
    let all = m.all_functions();
    assert!(
        all.len() > top.len(),
        "generic.ir has a function inside a generic"
    );
    assert!(top.iter().all(|f| all.contains(f)));
    let inner: Vec<_> = all.iter().filter(|f| !top.contains(f)).collect();
    assert!(
        inner
            .iter()
            .all(|f| m.op(m.parent(f.id()).unwrap()) == oneshader_ir::Op::Block)
    );
}
