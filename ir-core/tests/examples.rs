//! Every module in examples/ir parses, verifies, and prints to a fixed point.

use oneshader_ir::{parse::parse, print::print_module, verify::verify};

fn examples() -> Vec<(String, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/ir");
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir)
        .expect("examples/ir exists")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ir"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable example");
            (p.file_name().unwrap().to_string_lossy().into_owned(), text)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn at_least_twelve_examples() {
    assert!(
        examples().len() >= 12,
        "examples/ir has {}",
        examples().len()
    );
}

#[test]
fn examples_parse_verify_and_round_trip() {
    for (name, text) in examples() {
        let m = parse(&text).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let diags = verify(&m);
        assert!(diags.is_empty(), "{name}: {diags:#?}\n{}", print_module(&m));
        let printed = print_module(&m);
        let m2 = parse(&printed).unwrap_or_else(|e| panic!("{name} reprinted: {e:?}\n{printed}"));
        assert_eq!(
            print_module(&m2),
            printed,
            "{name}: print(parse(print(m))) != print(m)"
        );
        assert!(
            verify(&m2).is_empty(),
            "{name}: reparsed module does not verify"
        );
    }
}
