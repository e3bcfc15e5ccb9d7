//! `cse`: merges along the dominator tree, and what it must not merge.

mod common;

use common::check;

#[test]
fn merges_within_a_block_and_into_dominated_blocks() {
    check(
        "cse",
        r"
func @f(%a: i32, %b: i32, %c: bool) -> i32 {
bb0:
  %0 = add %a, %b : i32
  %1 = add %a, %b : i32
  %2 = mul %0, %1 : i32
  if_else %c, bb1, bb2, merge bb3
bb1:
  %3 = add %a, %b : i32
  %4 = mul %3, %3 : i32
  br bb3(%4)
bb2:
  br bb3(%2)
bb3(%5: i32):
  %6 = mul %0, %0 : i32
  %7 = add %5, %6 : i32
  return %7
}",
        // %1 and %3 become %0; then %4 is `mul %0, %0` in bb1, which does not dominate bb3,
        // so %6 stays; %2 is `mul %0, %0` in bb0, which dominates both: %4 and %6 become %2.
        r"
func @f(%a: i32, %b: i32, %c: bool) -> i32 {
bb0:
  %0 = add %a, %b : i32
  %2 = mul %0, %0 : i32
  if_else %c, bb1, bb2, merge bb3
bb1:
  br bb3(%2)
bb2:
  br bb3(%2)
bb3(%5: i32):
  %7 = add %5, %2 : i32
  return %7
}",
    );
}

#[test]
fn commutative_integer_operands_match_in_either_order() {
    check(
        "cse",
        r"
func @f(%a: i32, %b: i32, %x: f32, %y: f32) -> f32 {
bb0:
  %0 = add %a, %b : i32
  %1 = add %b, %a : i32
  %2 = eq %a, %b : bool
  %3 = eq %b, %a : bool
  %4 = sub %a, %b : i32
  %5 = sub %b, %a : i32
  %6 = add %x, %y : f32
  %7 = add %y, %x : f32
  %8 = mul %0, %1 : i32
  %9 = select %2, %8, %4 : i32
  %10 = select %3, %9, %5 : i32
  %11 = convert %10 : f32
  %12 = add %6, %7 : f32
  %13 = add %11, %12 : f32
  return %13
}",
        // Integer add and eq match swapped; sub does not commute; float add is not matched
        // swapped (which NaN comes out can depend on the order).
        r"
func @f(%a: i32, %b: i32, %x: f32, %y: f32) -> f32 {
bb0:
  %0 = add %a, %b : i32
  %2 = eq %a, %b : bool
  %4 = sub %a, %b : i32
  %5 = sub %b, %a : i32
  %6 = add %x, %y : f32
  %7 = add %y, %x : f32
  %8 = mul %0, %0 : i32
  %9 = select %2, %8, %4 : i32
  %10 = select %2, %9, %5 : i32
  %11 = convert %10 : f32
  %12 = add %6, %7 : f32
  %13 = add %11, %12 : f32
  return %13
}",
    );
}

#[test]
fn never_merges_vars_precise_with_plain_or_invocation_dependent_intrinsics() {
    check(
        "cse",
        r"
func @f(%x: f32) -> f32 {
bb0:
  %0 = var : ptr<function, f32>
  %1 = var : ptr<function, f32>
  store %0, %x
  store %1, %x
  %2 = mul %x, %x : f32 [precise]
  %3 = mul %x, %x : f32
  %4 = mul %x, %x : f32 [precise]
  %5 = call_intrinsic ddx(%x) : f32
  %6 = call_intrinsic ddx(%x) : f32
  %7 = call_intrinsic wave_active_sum(%x) : f32
  %8 = call_intrinsic wave_active_sum(%x) : f32
  %9 = call_intrinsic sqrt(%x) : f32
  %10 = call_intrinsic sqrt(%x) : f32
  %11 = load %0 : f32
  %12 = load %1 : f32
  %13 = add %2, %3 : f32
  %14 = add %13, %4 : f32
  %15 = add %14, %5 : f32
  %16 = add %15, %6 : f32
  %17 = add %16, %7 : f32
  %18 = add %17, %8 : f32
  %19 = add %18, %9 : f32
  %20 = add %19, %10 : f32
  %21 = add %20, %11 : f32
  %22 = add %21, %12 : f32
  return %22
}",
        // Only the second precise mul and the second sqrt go.
        r"
func @f(%x: f32) -> f32 {
bb0:
  %0 = var : ptr<function, f32>
  %1 = var : ptr<function, f32>
  store %0, %x
  store %1, %x
  %2 = mul %x, %x : f32 [precise]
  %3 = mul %x, %x : f32
  %5 = call_intrinsic ddx(%x) : f32
  %6 = call_intrinsic ddx(%x) : f32
  %7 = call_intrinsic wave_active_sum(%x) : f32
  %8 = call_intrinsic wave_active_sum(%x) : f32
  %9 = call_intrinsic sqrt(%x) : f32
  %11 = load %0 : f32
  %12 = load %1 : f32
  %13 = add %2, %3 : f32
  %14 = add %13, %2 : f32
  %15 = add %14, %5 : f32
  %16 = add %15, %6 : f32
  %17 = add %16, %7 : f32
  %18 = add %17, %8 : f32
  %19 = add %18, %9 : f32
  %20 = add %19, %9 : f32
  %21 = add %20, %11 : f32
  %22 = add %21, %12 : f32
  return %22
}",
    );
}
