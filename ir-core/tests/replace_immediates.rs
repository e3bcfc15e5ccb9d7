//! `replace_uses_with` on a constant rewrites value uses only: the same interned `u32 64`
//! that an `add` reads also sits in `numthreads(64, 1, 1)` and in `array<u32, 64>`, and those
//! immediates keep their meaning; `replace_all_uses_with` rewrites them too.

use oneshader_ir::{Module, parse::parse, print::print_module, verify::verify};

const TEXT: &str = r#"
global @data : ptr<storage_buffer, array<u32, 64>> [binding(0, 0)]
func @main() -> void [entry_point(compute, "main"), numthreads(64, 1, 1)] {
bb0:
  %0 = element_addr @data, u32 1 : ptr<storage_buffer, u32>
  %1 = load %0 : u32
  %2 = add %1, u32 64 : u32
  store %0, %2
  return
}
"#;

fn module() -> Module {
    let m = parse(TEXT).expect("parses");
    assert!(verify(&m).is_empty());
    m
}

#[test]
fn value_uses_change_and_immediates_keep_their_meaning() {
    let mut m = module();
    let (c64, c32) = (m.const_u32(64), m.const_u32(32));
    m.replace_uses_with(c64, c32);
    assert!(verify(&m).is_empty(), "{:?}", verify(&m));
    let text = print_module(&m);
    assert!(text.contains("add %1, u32 32"), "{text}");
    assert!(text.contains("numthreads(64, 1, 1)"), "{text}");
    assert!(text.contains("array<u32, 64>"), "{text}");
}

#[test]
fn replace_all_uses_with_rewrites_immediates_too() {
    let mut m = module();
    let (c64, c32) = (m.const_u32(64), m.const_u32(32));
    m.replace_all_uses_with(c64, c32);
    assert!(verify(&m).is_empty(), "{:?}", verify(&m));
    let text = print_module(&m);
    assert!(text.contains("add %1, u32 32"), "{text}");
    assert!(text.contains("numthreads(32, 1, 1)"), "{text}");
    assert!(text.contains("array<u32, 32>"), "{text}");
}
