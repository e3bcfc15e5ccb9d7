//! The verifier rejects a corrupted module of each kind it checks: one test per check code.
//! Checks that need corruption the public API cannot produce (tree links, use lists, dedup)
//! are unit tests in ir-core/src/verify_tests.rs.

use oneshader_ir::{
    AddressSpace, Builder, Module, Op, parse::parse, print::print_module, verify::verify,
};

/// Parses `text` (which must parse), verifies, and asserts a diagnostic with `code` that names
/// an instruction in text form.
fn rejects(text: &str, code: &str) {
    let m = parse(text).unwrap_or_else(|e| panic!("test module does not parse: {e:?}"));
    rejects_module(&m, code);
}

fn rejects_module(m: &Module, code: &str) {
    let diags = verify(m);
    assert!(
        diags.iter().any(|d| d.code == code),
        "expected {code}, got {diags:#?}\n{}",
        print_module(m)
    );
    let d = diags.iter().find(|d| d.code == code).unwrap();
    assert!(
        d.message.contains('`'),
        "message should print the instruction: {}",
        d.message
    );
}

fn accepts(text: &str) {
    let m = parse(text).unwrap_or_else(|e| panic!("test module does not parse: {e:?}"));
    let diags = verify(&m);
    assert!(diags.is_empty(), "{diags:#?}");
}

#[test]
fn osv0002_param_after_instruction() {
    let mut m = parse("func @f(%0: i32) -> i32 {\nbb0:\n  %1 = add %0, %0 : i32\n  return %1\n}\n")
        .unwrap();
    let f = m.func_by_name("f").unwrap();
    let entry = f.entry(&m).unwrap();
    let i32t = m.i32_type();
    let p = m.add_block_param(entry, i32t);
    let add = entry.insts(&m)[0];
    m.move_after(p, add);
    rejects_module(&m, "OSV0002");
}

#[test]
fn osv0002_instruction_at_module_level() {
    let mut m = Module::new();
    let i = m.const_i32(1);
    let mut b = Builder::new(&mut m);
    let add = b.add(i, i);
    let root = m.root();
    m.move_to_end(add, root);
    rejects_module(&m, "OSV0002");
}

#[test]
fn osv0003_missing_terminator() {
    rejects(
        "func @f() -> void {\nbb0:\n  %0 = var : ptr<function, i32>\n}\n",
        "OSV0003",
    );
}

#[test]
fn osv0003_terminator_not_last() {
    rejects(
        "func @f() -> void {\nbb0:\n  return\n  %0 = var : ptr<function, i32>\n}\n",
        "OSV0003",
    );
}

#[test]
fn osv0005_operand_of_wrong_kind() {
    // The first operand of `br` must be a block.
    let mut m = parse("func @f() -> void {\nbb0:\n  br bb1\nbb1:\n  return\n}\n").unwrap();
    let f = m.func_by_name("f").unwrap();
    let br = f.entry(&m).unwrap().terminator(&m).unwrap();
    let c = m.const_i32(0);
    m.set_operand(br, 0, c).unwrap();
    rejects_module(&m, "OSV0005");
}

#[test]
fn osv0005_bad_enumeration_immediate() {
    let mut m = parse("func @f(%0: ptr<workgroup, u32>) -> u32 {\nbb0:\n  %1 = atomic_rmw add, %0, u32 1 : u32\n  return %1\n}\n").unwrap();
    let f = m.func_by_name("f").unwrap();
    let rmw = f.entry(&m).unwrap().insts(&m)[0];
    let bogus = m.imm(999);
    m.set_operand(rmw, 0, bogus).unwrap();
    rejects_module(&m, "OSV0005");
}

#[test]
fn osv0007_hoistable_uses_a_local() {
    let mut m = parse("func @f(%0: f32) -> f32 {\nbb0:\n  return %0\n}\n").unwrap();
    let f = m.func_by_name("f").unwrap();
    let p = f.params(&m)[0].id();
    let f32t = m.f32_type();
    let v2 = m.vector_type(f32t, 2);
    // A "constant" built from a parameter is not a constant.
    m.const_composite(v2, &[p, p]);
    rejects_module(&m, "OSV0007");
}

#[test]
fn osv0008_arithmetic_on_mismatched_types() {
    rejects(
        "func @f() -> i32 {\nbb0:\n  %0 = add i32 1, f32 1.0 : i32\n  return %0\n}\n",
        "OSV0008",
    );
}

#[test]
fn osv0008_load_type_differs_from_pointee() {
    rejects(
        "func @f() -> f32 {\nbb0:\n  %0 = var : ptr<function, i32>\n  %1 = load %0 : f32\n  return %1\n}\n",
        "OSV0008",
    );
}

#[test]
fn osv0008_bad_field_address() {
    rejects(
        "struct @S {\n  a: f32\n}\nfunc @f() -> void {\nbb0:\n  %0 = var : ptr<function, @S>\n  %1 = field_addr %0, 3 : ptr<function, f32>\n  return\n}\n",
        "OSV0008",
    );
}

#[test]
fn osv0009_branch_argument_count() {
    rejects(
        "func @f() -> i32 {\nbb0:\n  br bb1\nbb1(%0: i32):\n  return %0\n}\n",
        "OSV0009",
    );
}

#[test]
fn osv0009_branch_argument_type() {
    rejects(
        "func @f() -> i32 {\nbb0:\n  br bb1(f32 1.0)\nbb1(%0: i32):\n  return %0\n}\n",
        "OSV0009",
    );
}

#[test]
fn osv0010_conditional_edge_to_block_with_params() {
    rejects(
        "func @f(%0: bool) -> i32 {\nbb0:\n  if_else %0, bb1, bb2, merge bb2\nbb1:\n  br bb2(i32 1)\nbb2(%1: i32):\n  return %1\n}\n",
        "OSV0010",
    );
}

#[test]
fn osv0011_continue_block_must_branch_to_header() {
    rejects(
        "func @f() -> void {\nbb0:\n  loop bb1, break bb2, continue bb3\nbb1:\n  br bb3\nbb2:\n  return\nbb3:\n  br bb2\n}\n",
        "OSV0011",
    );
}

#[test]
fn osv0011_only_preheader_and_continue_reach_the_header() {
    rejects(
        "func @f(%0: bool) -> void {\nbb0:\n  loop bb1, break bb2, continue bb3\nbb1:\n  cond_br %0, bb4, bb2\nbb2:\n  return\nbb3:\n  br bb1\nbb4:\n  br bb1\n}\n",
        "OSV0011",
    );
}

#[test]
fn osv0012_cond_br_outside_a_loop() {
    rejects(
        "func @f(%0: bool) -> void {\nbb0:\n  cond_br %0, bb1, bb2\nbb1:\n  return\nbb2:\n  return\n}\n",
        "OSV0012",
    );
}

#[test]
fn osv0012_cond_br_as_break_is_accepted() {
    accepts(
        "func @f(%0: bool) -> void {\nbb0:\n  loop bb1, break bb2, continue bb3\nbb1:\n  br bb4\nbb2:\n  return\nbb3:\n  br bb1\nbb4:\n  cond_br %0, bb2, bb3\n}\n",
    );
}

#[test]
fn osv0013_branch_into_another_function() {
    let mut m = parse(
        "func @f() -> void {\nbb0:\n  return\n}\nfunc @g() -> void {\nbb0:\n  br bb1\nbb1:\n  return\n}\n",
    )
    .unwrap();
    let f = m.func_by_name("f").unwrap();
    let g = m.func_by_name("g").unwrap();
    let f_entry = f.entry(&m).unwrap().id();
    let br = g.entry(&m).unwrap().terminator(&m).unwrap();
    m.set_operand(br, 0, f_entry).unwrap();
    rejects_module(&m, "OSV0013");
}

#[test]
fn osv0013_entry_block_as_target() {
    rejects(
        "func @f() -> void {\nbb0:\n  br bb1\nbb1:\n  br bb0\n}\n",
        "OSV0013",
    );
}

#[test]
fn osv0014_use_before_definition() {
    rejects(
        "func @f() -> i32 {\nbb0:\n  %0 = add %1, i32 1 : i32\n  %1 = add i32 2, i32 3 : i32\n  return %0\n}\n",
        "OSV0014",
    );
}

#[test]
fn osv0014_definition_in_a_sibling_branch() {
    rejects(
        "func @f(%0: bool) -> i32 {\nbb0:\n  if_else %0, bb1, bb2, merge bb3\nbb1:\n  %1 = add i32 1, i32 1 : i32\n  br bb3\nbb2:\n  br bb3\nbb3:\n  return %1\n}\n",
        "OSV0014",
    );
}

#[test]
fn osv0015_compute_entry_without_numthreads() {
    rejects(
        "func @main() -> void [entry_point(compute, \"main\")] {\nbb0:\n  return\n}\n",
        "OSV0015",
    );
}

#[test]
fn osv0015_entry_point_with_parameters() {
    rejects(
        "func @main(%0: i32) -> void [entry_point(fragment, \"main\")] {\nbb0:\n  return\n}\n",
        "OSV0015",
    );
}

#[test]
fn osv0016_value_of_another_function() {
    let mut m = parse(
        "func @f(%0: i32) -> i32 {\nbb0:\n  return %0\n}\nfunc @g(%0: i32) -> i32 {\nbb0:\n  return %0\n}\n",
    )
    .unwrap();
    let f = m.func_by_name("f").unwrap();
    let g = m.func_by_name("g").unwrap();
    let fp = f.params(&m)[0].id();
    let ret = g.entry(&m).unwrap().terminator(&m).unwrap();
    m.set_operand(ret, 0, fp).unwrap();
    rejects_module(&m, "OSV0016");
}

#[test]
fn osv0017_decoration_on_the_wrong_kind() {
    rejects(
        "func @f() -> void [binding(0, 0)] {\nbb0:\n  return\n}\n",
        "OSV0017",
    );
}

#[test]
fn osv0018_vector_of_seven() {
    rejects(
        "func @f() -> void {\nbb0:\n  %0 = var : ptr<function, vec<f32, 7>>\n  return\n}\n",
        "OSV0018",
    );
}

#[test]
fn osv0018_composite_with_wrong_count() {
    rejects(
        "global @g : ptr<private, vec<f32, 3>> = vec<f32, 3> {f32 1.0, f32 2.0}\n",
        "OSV0018",
    );
}

#[test]
fn osv0019_return_type_mismatch() {
    rejects("func @f() -> i32 {\nbb0:\n  return f32 1.0\n}\n", "OSV0019");
}

#[test]
fn osv0019_missing_return_value() {
    rejects("func @f() -> i32 {\nbb0:\n  return\n}\n", "OSV0019");
}

#[test]
fn osv0020_call_argument_mismatch() {
    rejects(
        "func @g(%0: i32) -> i32 {\nbb0:\n  return %0\n}\nfunc @f() -> i32 {\nbb0:\n  %0 = call @g(f32 1.0) : i32\n  return %0\n}\n",
        "OSV0020",
    );
}

#[test]
fn osv0021_entry_params_differ_from_fn_type() {
    let mut m = parse("func @f(%0: i32) -> i32 {\nbb0:\n  return %0\n}\n").unwrap();
    let f = m.func_by_name("f").unwrap();
    let entry = f.entry(&m).unwrap();
    let f32t = m.f32_type();
    m.add_block_param(entry, f32t);
    rejects_module(&m, "OSV0021");
}

#[test]
fn osv0022_duplicate_case_values() {
    rejects(
        "func @f(%0: i32) -> void {\nbb0:\n  switch %0, merge bb3, default bb3, [i32 1: bb1, i32 1: bb2]\nbb1:\n  br bb3\nbb2:\n  br bb3\nbb3:\n  return\n}\n",
        "OSV0022",
    );
}

#[test]
fn osv0023_global_initializer_of_wrong_type() {
    rejects("global @g : ptr<private, i32> = f32 1.0\n", "OSV0023");
}

#[test]
fn osv0023_global_in_function_space() {
    let mut m = Module::new();
    let i = m.i32_type();
    m.add_global("g", AddressSpace::Function, i, None);
    rejects_module(&m, "OSV0023");
}

#[test]
fn the_verifier_accepts_what_the_builder_makes() {
    // A loop with a header parameter, built through the API.
    let mut m = Module::new();
    let i32t = m.i32_type();
    let f = m.add_func("count", i32t, &[i32t]);
    let n = f.params(&m)[0].id();
    let entry = f.entry(&m).unwrap();
    let header = m.add_block(f);
    let i = m.add_block_param(header, i32t);
    let body = m.add_block(f);
    let cont = m.add_block(f);
    let exit = m.add_block(f);
    let zero = m.const_i32(0);
    let one = m.const_i32(1);
    let mut b = Builder::at_end(&mut m, entry);
    b.loop_(header, exit, cont, &[zero]);
    b.position_at_end(header);
    let c = b.cmp(Op::Lt, i, n);
    b.cond_br(c, body, exit);
    b.position_at_end(body);
    b.br(cont, &[]);
    b.position_at_end(cont);
    let next = b.add(i, one);
    b.br(header, &[next]);
    b.position_at_end(exit);
    b.ret(Some(i));
    let diags = verify(&m);
    assert!(diags.is_empty(), "{diags:#?}\n{}", print_module(&m));
}
