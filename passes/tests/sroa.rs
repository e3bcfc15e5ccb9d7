//! SROA: IR-text cases (input, expected output), verified after the pass.

mod common;
use common::check;
mod support_b;

use support_b::check_no_change;

const PARTICLE: &str = r"
struct @Particle {
  pos: vec<f32, 3>
  mass: f32
}
";

fn with_particle(body: &str) -> String {
    format!("{PARTICLE}{body}")
}

#[test]
fn struct_fields_become_vars() {
    check(
        "sroa",
        &with_particle(
            r"
func @f(%m: f32) -> f32 {
bb0:
  %p.p = var : ptr<function, @Particle>
  %a = field_addr %p, 1 : ptr<function, f32>
  store %a, %m
  %b = field_addr %p, 1 : ptr<function, f32>
  %v = load %b : f32
  return %v
}",
        ),
        &with_particle(
            r"
func @f(%m: f32) -> f32 {
bb0:
  %p0.p.pos = var : ptr<function, vec<f32, 3>>
  %p1.p.mass = var : ptr<function, f32>
  store %p1, %m
  %v = load %p1 : f32
  return %v
}",
        ),
    );
}

/// Whole-aggregate loads become element loads and a `construct`; whole stores become
/// `extract`s and element stores.
#[test]
fn whole_loads_and_stores_are_split() {
    check(
        "sroa",
        &with_particle(
            r"
func @f(%x: @Particle) -> @Particle {
bb0:
  %p = var : ptr<function, @Particle>
  store %p, %x
  %y = load %p : @Particle
  return %y
}",
        ),
        &with_particle(
            r"
func @f(%x: @Particle) -> @Particle {
bb0:
  %p0 = var : ptr<function, vec<f32, 3>>
  %p1 = var : ptr<function, f32>
  %e0 = extract %x, 0 : vec<f32, 3>
  store %p0, %e0
  %e1 = extract %x, 1 : f32
  store %p1, %e1
  %l0 = load %p0 : vec<f32, 3>
  %l1 = load %p1 : f32
  %y = construct %l0, %l1 : @Particle
  return %y
}",
        ),
    );
}

/// An array of structs reached through constant `element_addr`s and `field_addr`s flattens
/// completely; with mem2reg the function becomes pure arithmetic.
#[test]
fn nested_aggregates_flatten_recursively() {
    let input = with_particle(
        r"
func @total_mass(%a: f32, %b: f32) -> f32 {
bb0:
  %ps.particles = var : ptr<function, array<@Particle, 2>>
  %e0 = element_addr %ps, i32 0 : ptr<function, @Particle>
  %m0 = field_addr %e0, 1 : ptr<function, f32>
  store %m0, %a
  %e1 = element_addr %ps, u32 1 : ptr<function, @Particle>
  %m1 = field_addr %e1, 1 : ptr<function, f32>
  store %m1, %b
  %q0 = field_addr %e0, 0 : ptr<function, vec<f32, 3>>
  store %q0, vec<f32, 3> zero
  %x = load %m0 : f32
  %y = load %m1 : f32
  %s = add %x, %y : f32
  return %s
}",
    );
    check(
        "sroa",
        &input,
        &with_particle(
            r"
func @total_mass(%a: f32, %b: f32) -> f32 {
bb0:
  %v00.particles.0.pos = var : ptr<function, vec<f32, 3>>
  %v01.particles.0.mass = var : ptr<function, f32>
  %v10.particles.1.pos = var : ptr<function, vec<f32, 3>>
  %v11.particles.1.mass = var : ptr<function, f32>
  store %v01, %a
  store %v11, %b
  store %v00, vec<f32, 3> zero
  %x = load %v01 : f32
  %y = load %v11 : f32
  %s = add %x, %y : f32
  return %s
}",
        ),
    );
}

/// After SROA the element variables of the nested case are promoted by mem2reg.
#[test]
fn nested_aggregates_with_mem2reg() {
    let input = with_particle(
        r"
func @f(%a: f32) -> f32 {
bb0:
  %ps = var : ptr<function, array<@Particle, 2>>
  %e1 = element_addr %ps, i32 1 : ptr<function, @Particle>
  %m1 = field_addr %e1, 1 : ptr<function, f32>
  store %m1, %a
  %whole = load %e1 : @Particle
  %x = extract %whole, 1 : f32
  return %x
}",
    );
    // The unused elements' vars are not DCE'd by these two passes but the loads are gone.
    check(
        "sroa,mem2reg",
        &input,
        &with_particle(
            r"
func @f(%a: f32) -> f32 {
bb0:
  %whole = construct vec<f32, 3> undef, %a : @Particle
  %x = extract %whole, 1 : f32
  return %x
}",
        ),
    );
}

/// A run-time index, an escaping address and an array over the size cap keep the variable
/// whole.
#[test]
fn not_split() {
    check_no_change(
        "sroa",
        r"
func @use(ptr<function, array<i32, 2>>) -> void
func @f(%i: i32) -> i32 {
bb0:
  %dynamic = var : ptr<function, array<i32, 4>>
  %escapes = var : ptr<function, array<i32, 2>>
  %big = var : ptr<function, array<i32, 17>>
  %e = element_addr %dynamic, %i : ptr<function, i32>
  store %e, i32 1
  call @use(%escapes)
  %b0 = element_addr %big, i32 0 : ptr<function, i32>
  store %b0, i32 2
  %oob = var : ptr<function, array<i32, 2>>
  %o = element_addr %oob, i32 2 : ptr<function, i32>
  %r = load %o : i32
  return %r
}",
    );
}

/// A struct variable passed whole to a call escapes: it stays one variable (a field's address
/// cannot be passed on its own: pointer arguments are variables, OSV0027).
#[test]
fn variable_escaping_into_a_call_stays_whole() {
    support_b::check_no_change(
        "sroa",
        &with_particle(
            r"
func @set(ptr<function, @Particle>) -> void
func @f(%x: f32) -> f32 {
bb0:
  %p = var : ptr<function, @Particle>
  call @set(%p)
  %pos = field_addr %p, 0 : ptr<function, vec<f32, 3>>
  %v = load %pos : vec<f32, 3>
  %c = extract %v, 0 : f32
  %m = field_addr %p, 1 : ptr<function, f32>
  %w = load %m : f32
  %r = add %c, %w : f32
  return %r
}",
        ),
    );
}

/// Component stores and loads of a vector variable (`v.y = x; return v.y + v.x`) become
/// whole-vector `insert`/`extract`, after which mem2reg promotes the vector.
#[test]
fn vector_components_become_whole_value_accesses() {
    let input = r"
func @f(%x: f32) -> f32 {
bb0:
  %v = var : ptr<function, vec<f32, 2>>
  store %v, vec<f32, 2> zero
  %py = element_addr %v, i32 1 : ptr<function, f32>
  store %py, %x
  %a = load %py : f32
  %px = element_addr %v, u32 0 : ptr<function, f32>
  %b = load %px : f32
  %r = add %a, %b : f32
  return %r
}";
    check(
        "sroa",
        input,
        r"
func @f(%x: f32) -> f32 {
bb0:
  %v = var : ptr<function, vec<f32, 2>>
  store %v, vec<f32, 2> zero
  %w1 = load %v : vec<f32, 2>
  %n1 = insert %w1, %x, 1 : vec<f32, 2>
  store %v, %n1
  %w2 = load %v : vec<f32, 2>
  %a = extract %w2, 1 : f32
  %w3 = load %v : vec<f32, 2>
  %b = extract %w3, 0 : f32
  %r = add %a, %b : f32
  return %r
}",
    );
    check(
        "sroa,mem2reg",
        input,
        r"
func @f(%x: f32) -> f32 {
bb0:
  %n1 = insert vec<f32, 2> zero, %x, 1 : vec<f32, 2>
  %a = extract %n1, 1 : f32
  %b = extract %n1, 0 : f32
  %r = add %a, %b : f32
  return %r
}",
    );
}

/// A component address passed to a call keeps the vector in memory.
#[test]
fn escaping_component_keeps_the_vector() {
    check_no_change(
        "sroa",
        r"
func @set(ptr<function, vec<f32, 2>>) -> void
func @f() -> f32 {
bb0:
  %v = var : ptr<function, vec<f32, 2>>
  call @set(%v)
  %q = element_addr %v, i32 1 : ptr<function, f32>
  %r = load %q : f32
  return %r
}",
    );
}

/// The interpreter computes the same values after the rewrite and promotion, for constant
/// and run-time component indices (a struct of vectors exercises SROA first).
#[test]
fn component_accesses_keep_their_values() {
    let input = r"
struct @S {
  v: vec<i32, 3>
  k: i32
}
func @f(%i: i32, %x: i32) -> i32 {
bb0:
  %s = var : ptr<function, @S>
  store %s, @S zero
  %pv = field_addr %s, 0 : ptr<function, vec<i32, 3>>
  %j = and %i, i32 1 : i32
  %pj = element_addr %pv, %j : ptr<function, i32>
  store %pj, %x
  %p2 = element_addr %pv, i32 2 : ptr<function, i32>
  %old = load %p2 : i32
  %new = add %old, %x : i32
  store %p2, %new
  %pk = field_addr %s, 1 : ptr<function, i32>
  store %pk, %i
  %w = load %pv : vec<i32, 3>
  %a = extract %w, 0 : i32
  %b = extract %w, 1 : i32
  %c = extract %w, 2 : i32
  %k = load %pk : i32
  %ab = mul %a, i32 100 : i32
  %bb = mul %b, i32 10 : i32
  %t1 = add %ab, %bb : i32
  %t2 = add %t1, %c : i32
  %t3 = add %t2, %k : i32
  return %t3
}";
    let after = support_b::same_results(
        input,
        "sroa,mem2reg",
        "f",
        &[&[0, 5], &[1, 7], &[2, -3], &[3, 1]],
    );
    let text = oneshader_ir::print::print_module(&after);
    assert!(!text.contains(" var "), "everything is promoted:\n{text}");
}
