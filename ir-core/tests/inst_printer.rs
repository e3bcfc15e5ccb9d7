//! `InstPrinter` prints each instruction exactly as `print_inst` does while naming the module
//! once and numbering a function only when it moves to another one: checked on every
//! instruction of two functions, visited alternately so the numbering switches back and forth.

use oneshader_ir::print::{InstPrinter, print_inst};
use oneshader_ir::{InstId, parse::parse};

#[test]
fn prints_what_print_inst_prints_across_functions() {
    let text = format!(
        "{}\n{}",
        std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../examples/ir/loops.ir"
        ))
        .expect("loops.ir"),
        std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../examples/ir/if_else.ir"
        ))
        .expect("if_else.ir")
    );
    let m = parse(&text).expect("parses");
    let funcs = m.functions();
    assert_eq!(funcs.len(), 2);
    let insts_of = |f: oneshader_ir::Func| -> Vec<InstId> {
        f.blocks(&m)
            .iter()
            .flat_map(|b| m.children(b.id()).collect::<Vec<_>>())
            .collect()
    };
    let (a, b) = (insts_of(funcs[0]), insts_of(funcs[1]));
    assert!(a.len() > 10 && b.len() > 5);
    let mut printer = InstPrinter::new(&m);
    let mut checked = 0;
    for i in 0..a.len().max(b.len()) {
        for list in [&a, &b] {
            if let Some(&id) = list.get(i) {
                assert_eq!(printer.print(id), print_inst(&m, id));
                checked += 1;
            }
        }
    }
    assert_eq!(checked, a.len() + b.len());
    // Values are numbered per function: each function's first parameter is `%0`.
    assert_eq!(printer.print(a[0]), "%0.n: i32");
    assert_eq!(printer.print(b[0]), "%0.a: i32");
}
