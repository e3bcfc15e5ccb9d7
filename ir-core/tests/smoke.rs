use oneshader_ir::{parse::parse, print::print_module, verify::verify};
#[test]
fn smoke() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/ir/arith.ir"
    ))
    .unwrap();
    let m = match parse(&text) {
        Ok(m) => m,
        Err(e) => panic!("{e:?}"),
    };
    let out = print_module(&m);
    println!("{out}");
    let d = verify(&m);
    assert!(d.is_empty(), "{d:?}");
    let m2 = parse(&out).unwrap();
    assert_eq!(print_module(&m2), out);
}
