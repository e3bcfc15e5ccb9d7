//! The verifier's structured-control-flow rules (OSV0024, OSV0025) and memory-model rules
//! (OSV0026 runtime arrays, OSV0027 logical addressing): each rejected module is one a
//! backend would otherwise have turned into output its validator rejects (spirv-val's
//! messages are quoted where they motivate the rule), and each accepted module is a shape the
//! front end and the passes really produce. backends/tests/structured_rules.rs emits the
//! accepted ones and runs spirv-val on them.

use oneshader_ir::{parse::parse, print::print_module, verify::verify};

fn codes(text: &str) -> Vec<&'static str> {
    let m = parse(text).unwrap_or_else(|e| panic!("test module does not parse: {e:?}\n{text}"));
    verify(&m).into_iter().map(|d| d.code).collect()
}

/// Asserts a diagnostic with `code` whose message contains `words`.
fn rejects(text: &str, code: &str, words: &str) {
    let m = parse(text).unwrap_or_else(|e| panic!("test module does not parse: {e:?}\n{text}"));
    let diags = verify(&m);
    assert!(
        diags
            .iter()
            .any(|d| d.code == code && d.message.contains(words)),
        "expected {code} mentioning `{words}`, got {diags:#?}\n{}",
        print_module(&m)
    );
}

fn accepts(text: &str) {
    let m = parse(text).unwrap_or_else(|e| panic!("test module does not parse: {e:?}\n{text}"));
    let diags = verify(&m);
    assert!(diags.is_empty(), "{diags:#?}\n{}", print_module(&m));
}

const BUF: &str = "global @data : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]\n";

fn compute(body: &str) -> String {
    format!(
        "{BUF}func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {{\n{body}}}\n"
    )
}

// ---- the four modules of the issue -----------------------------------------------------------

/// spirv-val: "Block ... is already a merge block for another header".
#[test]
fn a_block_that_merges_two_selections_is_rejected() {
    let text = compute(
        "bb0:
  %0 = element_addr @data, u32 0 : ptr<storage_buffer, u32>
  %1 = load %0 : u32
  %2 = eq %1, u32 0 : bool
  if_else %2, bb1, bb2, merge bb4
bb1:
  %3 = eq %1, u32 1 : bool
  if_else %3, bb3, bb4, merge bb4
bb3:
  store %0, u32 5
  br bb4
bb2:
  br bb4
bb4:
  return
",
    );
    rejects(&text, "OSV0024", "already the join of");
}

/// spirv-val: "block ... exits the selection headed by ..., but not via a structured exit".
#[test]
fn a_branch_that_bypasses_a_selection_merge_is_rejected() {
    let text = compute(
        "bb0:
  %0 = element_addr @data, u32 0 : ptr<storage_buffer, u32>
  %1 = load %0 : u32
  %2 = eq %1, u32 0 : bool
  if_else %2, bb1, bb2, merge bb5
bb1:
  %3 = eq %1, u32 1 : bool
  if_else %3, bb3, bb4, merge bb4
bb3:
  store %0, u32 5
  br bb5
bb4:
  br bb5
bb2:
  br bb5
bb5:
  return
",
    );
    rejects(&text, "OSV0025", "not by a structured exit");
}

/// spirv-val (2025): "a variable containing OpTypeRuntimeArray must have storage class of
/// StorageBuffer, Uniform, or UniformConstant".
#[test]
fn a_runtime_array_outside_a_storage_buffer_is_rejected() {
    let text = format!(
        "global @p : ptr<private, rtarray<u32>>\n{}",
        compute("bb0:\n  return\n")
    );
    rejects(&text, "OSV0026", "runtime array");
}

/// spirv-val: "In Logical addressing, variables may not allocate a pointer type".
#[test]
fn a_variable_holding_a_pointer_is_rejected() {
    let text = compute(
        "bb0:
  %v = var : ptr<function, ptr<storage_buffer, u32>>
  %0 = element_addr @data, u32 0 : ptr<storage_buffer, u32>
  store %v, %0
  %1 = load %v : ptr<storage_buffer, u32>
  store %1, u32 5
  return
",
    );
    rejects(&text, "OSV0027", "pointer to a pointer");
}

// ---- more structured rules ---------------------------------------------------------------------

#[test]
fn a_cycle_that_is_not_a_loop_is_rejected() {
    let text = compute(
        "bb0:
  br bb1
bb1:
  %0 = element_addr @data, u32 0 : ptr<storage_buffer, u32>
  %1 = load %0 : u32
  %2 = eq %1, u32 0 : bool
  if_else %2, bb2, bb3, merge bb3
bb2:
  br bb1
bb3:
  return
",
    );
    rejects(&text, "OSV0025", "not a loop's back edge");
}

#[test]
fn a_branch_into_the_middle_of_a_selection_is_rejected() {
    // bb4 (after the merge) jumps back into the then-arm: a cycle without a loop, and the arm
    // is entered other than through the header.
    let text = compute(
        "bb0:
  %0 = element_addr @data, u32 0 : ptr<storage_buffer, u32>
  %1 = load %0 : u32
  %2 = eq %1, u32 0 : bool
  if_else %2, bb1, bb2, merge bb3
bb1:
  store %0, u32 1
  br bb3
bb2:
  br bb3
bb3:
  %3 = eq %1, u32 7 : bool
  if_else %3, bb4, bb5, merge bb5
bb4:
  br bb1
bb5:
  return
",
    );
    let c = codes(&text);
    assert!(c.contains(&"OSV0025"), "{c:?}");
}

#[test]
fn leaving_a_loop_other_than_by_its_break_block_is_rejected() {
    // The inner loop's body branches straight to the outer loop's break block.
    let text = compute(
        "bb0:
  loop bb1, break bb2, continue bb3
bb1:
  br bb9
bb9:
  loop bb4, break bb5, continue bb6
bb4:
  %0 = element_addr @data, u32 0 : ptr<storage_buffer, u32>
  %1 = load %0 : u32
  %2 = eq %1, u32 0 : bool
  cond_br %2, bb5, bb7
bb7:
  %3 = eq %1, u32 1 : bool
  if_else %3, bb8, bb6, merge bb6
bb8:
  br bb2
bb6:
  br bb4
bb5:
  br bb3
bb3:
  br bb1
bb2:
  return
",
    );
    rejects(&text, "OSV0025", "loop");
}

// ---- shapes the IR allows --------------------------------------------------------------------

#[test]
fn structured_exits_are_accepted() {
    // break and continue from inside nested selections, a selection merging into the
    // loop's continue block, a switch whose case breaks from inside a selection, a return
    // inside an arm, and an unreachable merge.
    accepts(&compute(
        "bb0:
  %0 = element_addr @data, u32 0 : ptr<storage_buffer, u32>
  loop bb1(u32 0), break bb2, continue bb3
bb1(%1.i: u32):
  %2 = lt %1, u32 10 : bool
  cond_br %2, bb4, bb2
bb4:
  %3 = and %1, u32 1 : u32
  %4 = eq %3, u32 0 : bool
  if_else %4, bb5, bb6, merge bb3
bb5:
  %5 = eq %1, u32 4 : bool
  if_else %5, bb7, bb8, merge bb9
bb7:
  br bb2
bb8:
  br bb3
bb9:
  unreachable
bb6:
  switch %1, merge bb10, default bb11, [u32 1: bb12]
bb12:
  %6 = eq %1, u32 1 : bool
  if_else %6, bb13, bb14, merge bb15
bb13:
  br bb10
bb14:
  return
bb15:
  unreachable
bb11:
  br bb10
bb10:
  br bb3
bb3:
  %7 = add %1, u32 1 : u32
  br bb1(%7)
bb2:
  store %0, u32 1
  return
",
    ));
}

// ---- more memory rules ------------------------------------------------------------------------

#[test]
fn runtime_arrays_in_buffers_and_descriptor_arrays_are_accepted() {
    accepts(
        "struct @Block {\n  count: u32\n  items: rtarray<vec<f32, 4>>\n}\n\
         global @a : ptr<storage_buffer, @Block> [binding(0, 0)]\n\
         global @b : ptr<storage_buffer, rtarray<u32>> [binding(0, 1)]\n\
         global @c : ptr<storage_buffer, array<rtarray<u32>, 4>> [binding(0, 2)]\n\
         global @d : ptr<uniform_constant, rtarray<texture<2d, vec<f32, 4>>>> [binding(0, 3)]\n",
    );
}

#[test]
fn a_runtime_array_before_the_last_field_is_rejected() {
    rejects(
        "struct @Bad {\n  items: rtarray<u32>\n  count: u32\n}\n\
         global @a : ptr<storage_buffer, @Bad> [binding(0, 0)]\n",
        "OSV0026",
        "last field",
    );
}

#[test]
fn loading_a_whole_runtime_array_is_rejected() {
    let text = compute(
        "bb0:
  %0 = load @data : rtarray<u32>
  return
",
    );
    rejects(&text, "OSV0026", "value cannot hold a runtime array");
}

/// spirv-val: "Pointer operand ... must be a memory object declaration".
#[test]
fn a_call_passing_an_element_address_is_rejected() {
    rejects(
        "func @g(%0.p: ptr<function, u32>) -> void {
bb0:
  store %0, u32 3
  return
}
func @f() -> void {
bb0:
  %v = var : ptr<function, array<u32, 4>>
  %1 = element_addr %v, u32 1 : ptr<function, u32>
  call @g(%1)
  return
}
",
        "OSV0027",
        "pointer argument",
    );
}

#[test]
fn a_block_parameter_of_pointer_type_is_rejected() {
    let text = compute(
        "bb0:
  %0 = element_addr @data, u32 0 : ptr<storage_buffer, u32>
  %1 = element_addr @data, u32 1 : ptr<storage_buffer, u32>
  %2 = load %0 : u32
  %3 = eq %2, u32 0 : bool
  if_else %3, bb1, bb2, merge bb3
bb1:
  br bb3(%0)
bb2:
  br bb3(%1)
bb3(%4: ptr<storage_buffer, u32>):
  store %4, u32 5
  return
",
    );
    rejects(&text, "OSV0027", "block parameter cannot be a pointer");
}

#[test]
fn pointer_fields_and_pointer_returns_are_rejected() {
    rejects(
        "struct @S {\n  p: ptr<function, u32>\n}\n",
        "OSV0027",
        "struct field",
    );
    rejects(
        "func @f(%0: ptr<function, u32>) -> ptr<function, u32> {\nbb0:\n  return %0\n}\n",
        "OSV0027",
        "return a pointer",
    );
}
