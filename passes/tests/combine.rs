//! `combine`: exact folding and identities, and everything it must leave alone.

mod common;

use common::{check, check_unchanged};

#[test]
fn folds_integer_arithmetic_with_wrapping() {
    check(
        "combine",
        r"
func @f() -> i32 {
bb0:
  %0 = add i32 2147483647, i32 1 : i32
  %1 = mul %0, i32 3 : i32
  %2 = shl i32 1, i32 33 : i32
  %3 = shr i32 -16, i32 2 : i32
  %4 = sub %1, %2 : i32
  %5 = xor %4, %3 : i32
  return %5
}",
        // 0x80000000 * 3 wraps to 0x80000000; 1 << (33 & 31) = 2; -16 >> 2 = -4;
        // 0x80000000 - 2 = 0x7ffffffe; 0x7ffffffe ^ 0xfffffffc = 0x80000002.
        r"
func @f() -> i32 {
bb0:
  return i32 -2147483646
}",
    );
}

#[test]
fn folds_unsigned_and_narrow_types() {
    check(
        "combine",
        r"
func @f() -> u8 {
bb0:
  %0 = sub u8 3, u8 5 : u8
  %1 = div %0, u8 2 : u8
  %2 = shr %1, u8 9 : u8
  return %2
}",
        // 3 - 5 = 254; 254 / 2 = 127 (unsigned); shift by 9 & 7 = 1: 63.
        r"
func @f() -> u8 {
bb0:
  return u8 63
}",
    );
}

#[test]
fn leaves_undefined_integer_division_alone() {
    check_unchanged(
        "combine",
        r"
func @f() -> vec<i32, 4> {
bb0:
  %0 = div i32 -2147483648, i32 -1 : i32
  %1 = rem i32 -2147483648, i32 -1 : i32
  %2 = div i32 7, i32 0 : i32
  %3 = rem i32 7, i32 0 : i32
  %4 = construct %0, %1, %2, %3 : vec<i32, 4>
  return %4
}",
    );
    check_unchanged(
        "combine",
        r"
func @g() -> u32 {
bb0:
  %0 = div u32 7, u32 0 : u32
  return %0
}",
    );
}

#[test]
fn folds_exact_float_arithmetic() {
    check(
        "combine",
        r"
func @f() -> f32 {
bb0:
  %0 = add f32 0.1, f32 0.2 : f32
  %1 = div f32 3.0, f32 4.0 : f32
  %2 = mul %0, %1 : f32
  %3 = sub %2, f32 -0.0 : f32
  return %3
}",
        // Each step rounds in f32: 0.1f + 0.2f = 0.3f (0x3e99999a), 0.3f * 0.75f rounds to
        // 0.22500001f (0x3e66667); subtracting -0.0 keeps it.
        &format!(
            "func @f() -> f32 {{\nbb0:\n  return f32 {:?}\n}}\n",
            (0.1f32 + 0.2f32) * 0.75f32
        ),
    );
}

#[test]
fn leaves_nan_inf_subnormal_and_inexact_division_alone() {
    check_unchanged(
        "combine",
        r"
func @f() -> vec<f32, 4> {
bb0:
  %0 = add f32 0x7fc00000, f32 1.0 : f32
  %1 = mul f32 1e30, f32 1e30 : f32
  %2 = mul f32 1e-20, f32 1e-20 : f32
  %3 = div f32 1.0, f32 3.0 : f32
  %4 = construct %0, %1, %2, %3 : vec<f32, 4>
  return %4
}",
    );
    check_unchanged(
        "combine",
        r"
func @g() -> vec<f32, 4> {
bb0:
  %0 = div f32 1.0, f32 0.0 : f32
  %1 = add f32 0x7f800000, f32 1.0 : f32
  %2 = add f32 1e-40, f32 1.0 : f32
  %3 = rem f32 7.0, f32 2.0 : f32
  %4 = construct %0, %1, %2, %3 : vec<f32, 4>
  return %4
}",
    );
    // NaN comparisons stay too.
    check_unchanged(
        "combine",
        r"
func @h() -> bool {
bb0:
  %0 = eq f32 0x7fc00000, f32 0x7fc00000 : bool
  return %0
}",
    );
}

#[test]
fn folds_f16_in_its_own_precision() {
    check(
        "combine",
        r"
func @f() -> f16 {
bb0:
  %0 = add f16 0x6800, f16 0x3c00 : f16
  return %0
}",
        // 2048 + 1 = 2049 rounds to 2048 in f16 (ties to even).
        r"
func @f() -> f16 {
bb0:
  return f16 0x6800
}",
    );
}

#[test]
fn folds_vectors_lane_by_lane_only_when_every_lane_folds() {
    check(
        "combine",
        r"
func @f() -> vec<bool, 3> {
bb0:
  %0 = add vec<i32, 3> {i32 1, i32 2, i32 3}, vec<i32, 3> {i32 10, i32 20, i32 30} : vec<i32, 3>
  %1 = lt %0, vec<i32, 3> {i32 11, i32 11, i32 40} : vec<bool, 3>
  return %1
}",
        r"
func @f() -> vec<bool, 3> {
bb0:
  return vec<bool, 3> {bool false, bool false, bool true}
}",
    );
    check_unchanged(
        "combine",
        r"
func @g() -> vec<i32, 2> {
bb0:
  %0 = div vec<i32, 2> {i32 4, i32 4}, vec<i32, 2> {i32 2, i32 0} : vec<i32, 2>
  return %0
}",
    );
}

#[test]
fn integer_identities() {
    check(
        "combine",
        r"
func @f(%x: i32, %y: i32) -> i32 {
bb0:
  %a = add %x, i32 0 : i32
  %b = mul i32 1, %a : i32
  %c = or %b, i32 0 : i32
  %d = and %c, i32 -1 : i32
  %e = xor %d, i32 0 : i32
  %f = shl %e, i32 32 : i32
  %g = div %f, i32 1 : i32
  %h = sub %g, %g : i32
  %i = add %h, %y : i32
  %j = mul %i, i32 0 : i32
  %k = add %j, %x : i32
  return %k
}",
        // x + 0 = x ... shifting by 32 is shifting by 0; g - g = 0; 0 + y = y; y * 0 = 0;
        // 0 + x = x.
        r"
func @f(%x: i32, %y: i32) -> i32 {
bb0:
  return %x
}",
    );
}

#[test]
fn reassociates_integer_constant_chains() {
    check(
        "combine, dce",
        r"
func @f(%x: u32) -> u32 {
bb0:
  %a = add %x, u32 1 : u32
  %b = add u32 2, %a : u32
  %c = sub %b, u32 5 : u32
  %d = mul %c, u32 3 : u32
  %e = mul %d, u32 4 : u32
  return %e
}",
        // ((x + 1) + 2) - 5 = x + 0xfffffffe; then * 3 * 4 = * 12.
        r"
func @f(%x: u32) -> u32 {
bb0:
  %c = add %x, u32 4294967294 : u32
  %e = mul %c, u32 12 : u32
  return %e
}",
    );
}

#[test]
fn float_identities_are_only_the_exact_ones() {
    check(
        "combine",
        r"
func @f(%x: f32) -> vec<f32, 4> {
bb0:
  %a = mul %x, f32 1.0 : f32
  %b = div %a, f32 1.0 : f32
  %c = add %b, f32 -0.0 : f32
  %d = sub %c, f32 0.0 : f32
  %e = neg %d : f32
  %g = neg %e : f32
  %p = add %g, f32 0.0 : f32
  %q = mul %g, f32 0.0 : f32
  %r = sub %g, %g : f32
  %s = construct %g, %p, %q, %r : vec<f32, 4>
  return %s
}",
        // x + 0.0 is -0.0 + 0.0 = +0.0 for x = -0.0; x * 0 and x - x are NaN for infinities:
        // those three stay.
        r"
func @f(%x: f32) -> vec<f32, 4> {
bb0:
  %e = neg %x : f32
  %p = add %x, f32 0.0 : f32
  %q = mul %x, f32 0.0 : f32
  %r = sub %x, %x : f32
  %s = construct %x, %p, %q, %r : vec<f32, 4>
  return %s
}",
    );
}

#[test]
fn bool_identities_and_inverted_comparisons() {
    check(
        "combine",
        r"
func @f(%a: i32, %b: i32, %c: bool) -> vec<bool, 4> {
bb0:
  %0 = lt %a, %b : bool
  %1 = not %0 : bool
  %2 = and %c, bool true : bool
  %3 = or %2, bool false : bool
  %4 = eq %3, bool false : bool
  %5 = le %a, %a : bool
  %6 = construct %1, %3, %4, %5 : vec<bool, 4>
  return %6
}",
        r"
func @f(%a: i32, %b: i32, %c: bool) -> vec<bool, 4> {
bb0:
  %0 = lt %a, %b : bool
  %n = ge %a, %b : bool
  %4 = not %c : bool
  %6 = construct %n, %c, %4, bool true : vec<bool, 4>
  return %6
}",
    );
    // Not for floats: !(a < b) is true when an operand is NaN, (a >= b) is false.
    check_unchanged(
        "combine",
        r"
func @g(%a: f32, %b: f32) -> bool {
bb0:
  %0 = lt %a, %b : bool
  %1 = not %0 : bool
  return %1
}",
    );
}

#[test]
fn conversions_fold_only_when_exact() {
    check(
        "combine",
        r"
func @f() -> vec<f32, 2> {
bb0:
  %0 = convert i32 -3 : f32
  %1 = convert f32 2.75 : i32
  %2 = convert %1 : f32
  %3 = construct %0, %2 : vec<f32, 2>
  return %3
}",
        r"
func @f() -> vec<f32, 2> {
bb0:
  return vec<f32, 2> {f32 -3.0, f32 2.0}
}",
    );
    check_unchanged(
        "combine",
        r"
func @g() -> vec<i32, 3> {
bb0:
  %0 = convert f32 3e9 : i32
  %1 = convert f32 0x7fc00000 : i32
  %2 = convert i32 16777217 : f32
  %3 = convert %2 : i32
  %4 = construct %0, %1, %3 : vec<i32, 3>
  return %4
}",
    );
}

#[test]
fn bitcasts() {
    check(
        "combine, dce",
        r"
func @f(%x: f32) -> vec<u32, 2> {
bb0:
  %0 = bitcast f32 1.0 : u32
  %1 = bitcast %x : u32
  %2 = bitcast %1 : f32
  %3 = bitcast %2 : u32
  %4 = construct %0, %3 : vec<u32, 2>
  return %4
}",
        // bitcast(bitcast(x)) to x's type is x, so %3 becomes a second `bitcast %x` (CSE would
        // merge it with %1, which is dead here).
        r"
func @f(%x: f32) -> vec<u32, 2> {
bb0:
  %3 = bitcast %x : u32
  %4 = construct u32 1065353216, %3 : vec<u32, 2>
  return %4
}",
    );
    // A bitcast that makes a NaN is left for the GPU.
    check_unchanged(
        "combine",
        r"
func @g() -> f32 {
bb0:
  %0 = bitcast u32 2143289344 : f32
  return %0
}",
    );
}

#[test]
fn composites_select_extract_insert_shuffle() {
    check(
        "combine, dce",
        r"
func @f(%x: f32, %y: f32, %v: vec<f32, 2>, %c: bool) -> vec<f32, 4> {
bb0:
  %0 = construct %x, %v, %y : vec<f32, 4>
  %1 = extract %0, 2 : f32
  %2 = extract %0, 3 : f32
  %3 = insert %0, %x, 1 : vec<f32, 4>
  %4 = extract %3, 1 : f32
  %5 = extract %3, 0 : f32
  %6 = select bool true, %1, %2 : f32
  %7 = select %c, %5, %5 : f32
  %8 = extract %v, 0 : f32
  %9 = extract %v, 1 : f32
  %10 = construct %8, %9 : vec<f32, 2>
  %11 = shuffle %10, %10, 0, 1 : vec<f32, 2>
  %12 = extract %11, 0 : f32
  %13 = construct %6, %7, %4, %12 : vec<f32, 4>
  return %13
}",
        // extract 2 of (x, v.0, v.1, y) is v.1; extract 0 of an insert at 1 reads through to
        // the construct: x. construct(v.0, v.1) is v, and the identity shuffle of v is v;
        // everything else is dead.
        r"
func @f(%x: f32, %y: f32, %v: vec<f32, 2>, %c: bool) -> vec<f32, 4> {
bb0:
  %a = extract %v, 1 : f32
  %8 = extract %v, 0 : f32
  %13 = construct %a, %x, %x, %8 : vec<f32, 4>
  return %13
}",
    );
    check(
        "combine",
        r"
func @g() -> f32 {
bb0:
  %0 = extract vec<f32, 3> {f32 1.0, f32 2.0, f32 3.0}, 2 : f32
  %1 = insert vec<f32, 2> zero, %0, 1 : vec<f32, 2>
  %2 = shuffle %1, vec<f32, 2> {f32 5.0, f32 6.0}, 1, 3 : vec<f32, 2>
  %3 = call_intrinsic max(%2, vec<f32, 2> {f32 4.0, f32 4.0}) : vec<f32, 2>
  %4 = call_intrinsic dot(%3, %3) : f32
  return %4
}",
        // (0, 3) shuffled with (5, 6) picks (3, 6); max with 4 gives (4, 6); dot is not folded.
        r"
func @g() -> f32 {
bb0:
  %4 = call_intrinsic dot(vec<f32, 2> {f32 4.0, f32 6.0}, vec<f32, 2> {f32 4.0, f32 6.0}) : f32
  return %4
}",
    );
}

/// `extract` of a whole-struct load nothing else uses reads only the field (through an array
/// element on the way); the rest of the path into a vector stays an `extract`. A load with a
/// second user is left whole. The interpreter reads the same values before and after.
#[test]
fn narrows_an_aggregate_load_to_the_part_extracted() {
    let input = r"
struct @S {
  a: f32
  b: array<vec<f32, 4>, 2>
}
global @s : ptr<private, @S>

func @f() -> f32 {
bb0:
  store @s, @S {f32 1.5, array<vec<f32, 4>, 2> {vec<f32, 4> {f32 1.0, f32 2.0, f32 3.0, f32 4.0}, vec<f32, 4> {f32 5.0, f32 6.0, f32 7.0, f32 8.0}}}
  %0 = load @s : @S
  %1 = extract %0, 1, 1, 2 : f32
  %2 = load @s : @S
  %3 = extract %2, 0 : f32
  %4 = extract %2, 1, 0, 3 : f32
  %5 = add %1, %3 : f32
  %6 = add %5, %4 : f32
  return %6
}";
    let before = common::module(input);
    let text = common::run_text("combine,dce", input);
    let after = oneshader_ir::parse::parse(&text).expect("parses");
    assert!(
        text.contains("field_addr @s, 1")
            && text.contains("element_addr %")
            && text.contains("u32 1"),
        "{text}"
    );
    // One whole-struct load stays (two extracts use it).
    assert_eq!(text.matches(": @S\n").count(), 1, "{text}");
    let run = |m: &oneshader_ir::Module| {
        oneshader_passes::interp::Interpreter::new(m).call(m.functions()[0], &[])
    };
    assert_eq!(run(&before).expect("runs"), run(&after).expect("runs"));
}

/// Integer `dot` of constants folds (wrapping products and sums); float `dot` stays.
#[test]
fn folds_integer_dot_only() {
    check(
        "combine",
        r"
func @f() -> vec<i32, 2> {
bb0:
  %0 = call_intrinsic dot(vec<i32, 3> {i32 4, i32 -2, i32 2147483647}, vec<i32, 3> {i32 4, i32 5, i32 2}) : i32
  %1 = call_intrinsic dot(i32 3, i32 7) : i32
  %2 = construct %0, %1 : vec<i32, 2>
  return %2
}",
        r"
func @f() -> vec<i32, 2> {
bb0:
  return vec<i32, 2> {i32 4, i32 21}
}",
    );
    check_unchanged(
        "combine",
        r"
func @f() -> f32 {
bb0:
  %0 = call_intrinsic dot(vec<f32, 2> {f32 0.1, f32 0.2}, vec<f32, 2> {f32 0.3, f32 0.4}) : f32
  return %0
}",
    );
}
