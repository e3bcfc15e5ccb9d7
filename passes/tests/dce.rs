//! `dce`: mark and sweep, dead parameters, write-only variables, and what must stay.

mod common;

use common::{check, check_unchanged};

#[test]
fn removes_unused_pure_instructions_and_loads() {
    check(
        "dce",
        r"
global @g : ptr<private, i32>

func @f(%a: i32, %unused: i32) -> i32 {
bb0:
  %0 = add %a, i32 1 : i32
  %1 = mul %0, %0 : i32
  %2 = load @g : i32
  %3 = sub %a, i32 1 : i32
  return %3
}",
        r"
global @g : ptr<private, i32>

func @f(%a: i32, %unused: i32) -> i32 {
bb0:
  %3 = sub %a, i32 1 : i32
  return %3
}",
    );
}

#[test]
fn keeps_side_effects() {
    check_unchanged(
        "dce",
        r"
global @g : ptr<private, i32>
global @buf : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]

func @h(%0: i32) -> i32 {
bb0:
  store @g, %0
  return %0
}

func @f(%a: i32) -> void {
bb0:
  %0 = call @h(%a) : i32
  store @g, %a
  %1 = element_addr @buf, u32 0 : ptr<storage_buffer, u32>
  %2 = atomic_rmw add, %1, u32 1 : u32
  barrier sync|workgroup
  return
}",
    );
}

#[test]
fn removes_variables_nobody_reads_with_their_stores() {
    check(
        "dce",
        r"
struct @S {
  a: i32
  b: f32
}

func @f(%x: i32, %y: f32) -> i32 {
bb0:
  %0 = var : ptr<function, i32>
  store %0, %x
  %1 = var : ptr<function, @S>
  %2 = field_addr %1, 0 : ptr<function, i32>
  store %2, %x
  %3 = field_addr %1, 1 : ptr<function, f32>
  store %3, %y
  %4 = var : ptr<function, i32>
  store %4, %x
  %5 = load %4 : i32
  return %5
}",
        r"
struct @S {
  a: i32
  b: f32
}

func @f(%x: i32, %y: f32) -> i32 {
bb0:
  %4 = var : ptr<function, i32>
  store %4, %x
  %5 = load %4 : i32
  return %5
}",
    );
}

#[test]
fn keeps_a_variable_whose_address_escapes_into_a_call() {
    check_unchanged(
        "dce",
        r"
func @sink(%0: ptr<function, i32>) -> void {
bb0:
  return
}

func @sink_all(%0: ptr<function, array<i32, 4>>) -> void {
bb0:
  return
}

func @f(%x: i32) -> void {
bb0:
  %0 = var : ptr<function, i32>
  store %0, %x
  call @sink(%0)
  %1 = var : ptr<function, array<i32, 4>>
  %2 = element_addr %1, i32 2 : ptr<function, i32>
  store %2, %x
  call @sink_all(%1)
  return
}",
    );
}

#[test]
fn a_read_through_any_address_keeps_every_store() {
    check_unchanged(
        "dce",
        r"
func @f(%x: i32, %i: i32) -> i32 {
bb0:
  %0 = var : ptr<function, array<i32, 4>>
  %1 = element_addr %0, i32 0 : ptr<function, i32>
  store %1, %x
  %2 = element_addr %0, %i : ptr<function, i32>
  %3 = load %2 : i32
  return %3
}",
    );
}

#[test]
fn removes_a_loop_counter_nobody_reads() {
    // The header has two incoming values per parameter: initial ones from the loop and
    // back-edge ones from the continue block. %j is only fed back to itself.
    check(
        "dce",
        r"
func @f(%n: i32) -> i32 {
bb0:
  loop bb1(i32 0, i32 100, i32 0), break bb3, continue bb2
bb1(%i: i32, %j: i32, %acc: i32):
  %0 = lt %i, %n : bool
  cond_br %0, bb4, bb3
bb4:
  %1 = add %acc, %i : i32
  %2 = mul %j, i32 3 : i32
  br bb2
bb2:
  %3 = add %i, i32 1 : i32
  %4 = sub %j, i32 1 : i32
  br bb1(%3, %4, %1)
bb3:
  return %acc
}",
        r"
func @f(%n: i32) -> i32 {
bb0:
  loop bb1(i32 0, i32 0), break bb3, continue bb2
bb1(%i: i32, %acc: i32):
  %0 = lt %i, %n : bool
  cond_br %0, bb4, bb3
bb4:
  %1 = add %acc, %i : i32
  br bb2
bb2:
  %3 = add %i, i32 1 : i32
  br bb1(%3, %1)
bb3:
  return %acc
}",
    );
}

#[test]
fn removes_dead_join_parameters_and_their_arguments() {
    check(
        "dce",
        r"
func @f(%c: bool, %a: i32, %b: i32) -> i32 {
bb0:
  if_else %c, bb1, bb2, merge bb3
bb1:
  %0 = add %a, %b : i32
  %1 = mul %a, %b : i32
  br bb3(%0, %1)
bb2:
  br bb3(%b, %a)
bb3(%x: i32, %y: i32):
  return %y
}",
        r"
func @f(%c: bool, %a: i32, %b: i32) -> i32 {
bb0:
  if_else %c, bb1, bb2, merge bb3
bb1:
  %1 = mul %a, %b : i32
  br bb3(%1)
bb2:
  br bb3(%a)
bb3(%y: i32):
  return %y
}",
    );
}

#[test]
fn switch_with_shared_targets_keeps_its_memory() {
    // The switch example: the result lives in memory because switch targets take no
    // parameters; every store is read by the load at the merge.
    let text = std::fs::read_to_string(format!(
        "{}/../examples/ir/switch.ir",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("example");
    check_unchanged("dce", &text);
}

#[test]
fn keeps_intrinsics_that_write_through_pointers() {
    check(
        "dce",
        r"
func @f(%x: f32) -> f32 {
bb0:
  %s = var : ptr<function, f32>
  %c = var : ptr<function, f32>
  %sc = call_intrinsic sincos(%x, %s, %c) : void
  %i = var : ptr<function, f32>
  %fr = call_intrinsic modf(%x, %i) : f32
  %unused = call_intrinsic sqrt(%x) : f32
  %0 = load %s : f32
  %1 = load %c : f32
  %2 = load %i : f32
  %3 = add %0, %1 : f32
  %4 = add %3, %2 : f32
  return %4
}",
        // modf's own result is unused but it stores the integer part; sqrt goes.
        r"
func @f(%x: f32) -> f32 {
bb0:
  %s = var : ptr<function, f32>
  %c = var : ptr<function, f32>
  %sc = call_intrinsic sincos(%x, %s, %c) : void
  %i = var : ptr<function, f32>
  %fr = call_intrinsic modf(%x, %i) : f32
  %0 = load %s : f32
  %1 = load %c : f32
  %2 = load %i : f32
  %3 = add %0, %1 : f32
  %4 = add %3, %2 : f32
  return %4
}",
    );
}

/// The block order is not a dominance order: the use (`bb1`) comes before the definition
/// (`bb5`), and a loop carries a value back into its header. Both must still be found live
/// (the loop with them); only the truly dead chain goes.
#[test]
fn finds_uses_that_come_before_definitions_in_block_order() {
    check(
        "dce",
        r"
func @f(%a: i32) -> i32 {
bb0:
  br bb2
bb1:
  %r = add %out, i32 1 : i32
  return %r
bb2:
  %x = mul %a, i32 3 : i32
  %dead = sub %x, %a : i32
  loop bb3(i32 0, %x), break bb5, continue bb4
bb3(%i: i32, %acc: i32):
  %c = lt %i, i32 4 : bool
  cond_br %c, bb6, bb5
bb6:
  %acc2 = add %acc, %i : i32
  br bb4
bb4:
  %i2 = add %i, i32 1 : i32
  br bb3(%i2, %acc2)
bb5:
  %out = add %acc, %x : i32
  br bb1
}",
        r"
func @f(%a: i32) -> i32 {
bb0:
  br bb2
bb1:
  %r = add %out, i32 1 : i32
  return %r
bb2:
  %x = mul %a, i32 3 : i32
  loop bb3(i32 0, %x), break bb5, continue bb4
bb3(%i: i32, %acc: i32):
  %c = lt %i, i32 4 : bool
  cond_br %c, bb6, bb5
bb6:
  %acc2 = add %acc, %i : i32
  br bb4
bb4:
  %i2 = add %i, i32 1 : i32
  br bb3(%i2, %acc2)
bb5:
  %out = add %acc, %x : i32
  br bb1
}",
    );
}

/// A variable that is read, but only by loads whose values feed nothing live, goes with its
/// stores; one whose load reaches the return stays with every store.
#[test]
fn variables_read_only_by_dead_code_go_with_their_stores() {
    check(
        "dce",
        r"
func @f(%x: i32) -> i32 {
bb0:
  %v = var : ptr<function, i32>
  %w = var : ptr<function, i32>
  store %v, %x
  store %w, %x
  %a = load %v : i32
  %b = add %a, i32 1 : i32
  store %v, %b
  store %w, i32 5
  %c = load %w : i32
  return %c
}",
        r"
func @f(%x: i32) -> i32 {
bb0:
  %w = var : ptr<function, i32>
  store %w, %x
  store %w, i32 5
  %c = load %w : i32
  return %c
}",
    );
}
