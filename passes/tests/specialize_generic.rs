//! Generic specialization: IR-text cases (input, expected output), verified after the pass.

mod common;
use common::check;
mod support_b;

const SQUARE: &str = r"
generic @square<%T: type> {
  func @square_impl(%x: %T) -> %T {
  bb0:
    %y = mul %x, %x : %T
    return %y
  }
  return @square_impl
}
";

/// A call of `specialize(@square, i32)` calls a clone of the body for `i32`; the clone's
/// `fn(%T) -> %T` collapses onto the module's `fn(i32) -> i32`; the generic, unused now, goes.
#[test]
fn function_generic() {
    check(
        "specialize_generic",
        &format!(
            r"{SQUARE}
func @use(%x: i32) -> i32 {{
bb0:
  %r = call specialize<fn(i32) -> i32>(@square, i32)(%x) : i32
  return %r
}}"
        ),
        r"
func @square_impl(%x: i32) -> i32 {
bb0:
  %y = mul %x, %x : i32
  return %y
}
func @use(%x: i32) -> i32 {
bb0:
  %r = call @square_impl(%x) : i32
  return %r
}",
    );
}

/// One clone per distinct argument list, in instantiation order; equal argument lists share
/// it (memoized).
#[test]
fn memoized_per_arguments() {
    check(
        "specialize_generic",
        &format!(
            r"{SQUARE}
func @use(%x: i32, %y: f32) -> f32 {{
bb0:
  %a = call specialize<fn(i32) -> i32>(@square, i32)(%x) : i32
  %b = call specialize<fn(f32) -> f32>(@square, f32)(%y) : f32
  %c = call specialize<fn(i32) -> i32>(@square, i32)(%a) : i32
  %d = convert %c : f32
  %e = add %b, %d : f32
  return %e
}}"
        ),
        r"
func @square_impl(%x: i32) -> i32 {
bb0:
  %y = mul %x, %x : i32
  return %y
}
func @square_impl.1(%x: f32) -> f32 {
bb0:
  %y = mul %x, %x : f32
  return %y
}
func @use(%x: i32, %y: f32) -> f32 {
bb0:
  %a = call @square_impl(%x) : i32
  %b = call @square_impl.1(%y) : f32
  %c = call @square_impl(%a) : i32
  %d = convert %c : f32
  %e = add %b, %d : f32
  return %e
}",
    );
}

/// A generic whose body uses another generic with its own parameter: the outer clone holds a
/// now-concrete `specialize(@square, i32)`, specialized in the next round.
#[test]
fn nested_generics() {
    check(
        "specialize_generic",
        &format!(
            r"{SQUARE}
generic @quad<%U: type> {{
  func @quad_impl(%x: %U) -> %U {{
  bb0:
    %s = call specialize<fn(%U) -> %U>(@square, %U)(%x) : %U
    %q = call specialize<fn(%U) -> %U>(@square, %U)(%s) : %U
    return %q
  }}
  return @quad_impl
}}
func @use(%x: i32) -> i32 {{
bb0:
  %r = call specialize<fn(i32) -> i32>(@quad, i32)(%x) : i32
  return %r
}}"
        ),
        r"
func @square_impl(%x: i32) -> i32 {
bb0:
  %y = mul %x, %x : i32
  return %y
}
func @quad_impl(%x: i32) -> i32 {
bb0:
  %s = call @square_impl(%x) : i32
  %q = call @square_impl(%s) : i32
  return %q
}
func @use(%x: i32) -> i32 {
bb0:
  %r = call @quad_impl(%x) : i32
  return %r
}",
    );
}

/// The example module specializes and keeps verifying; nothing is left to specialize after.
#[test]
fn example_and_fixpoint() {
    let text = std::fs::read_to_string("../examples/ir/generic.ir").unwrap();
    let mut m = common::module(&text);
    assert!(support_b::run_reporting("specialize_generic", &mut m));
    let out = format!("{m:?}");
    assert!(
        !out.contains("specialize") && !out.contains("generic"),
        "{out}"
    );
    assert!(!support_b::run_reporting("specialize_generic", &mut m));
}

/// A generic that instantiates itself with ever bigger arguments is cut off with an error,
/// not an endless loop.
#[test]
fn runaway_instantiation_fails() {
    let text = r"
generic @grow<%T: type> {
  func @grow_impl(%x: %T) -> void {
  bb0:
    %a = array<%T, 2> undef
    call specialize<fn(array<%T, 2>) -> void>(@grow, array<%T, 2>)(%a)
    return
  }
  return @grow_impl
}
func @use(%x: i32) -> void {
bb0:
  call specialize<fn(i32) -> void>(@grow, i32)(%x)
  return
}";
    let text = text.replace("    %a = array<%T, 2> undef\n", "");
    let text = text.replace("(%a)", "(array<%T, 2> undef)");
    let mut m = common::module(&text);
    let err = oneshader_passes::Pass::run(
        &mut oneshader_passes::specialize_generic::SpecializeGenerics,
        &mut m,
    )
    .expect_err("runaway instantiation must fail");
    assert!(err.message.contains("nests deeper"), "{}", err.message);
}
