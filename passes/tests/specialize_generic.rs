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

/// A generic that yields a struct type: the specialization in a variable's pointer type is
/// replaced by the clone, and the replacement cascade re-interns `ptr<function, ...>`.
#[test]
fn type_generic() {
    check(
        "specialize_generic",
        r"
generic @Pair<%T: type> {
  struct @Pair_impl {
    a: %T
    b: %T
  }
  return @Pair_impl
}
func @f(%x: f32) -> f32 {
bb0:
  %p = var : ptr<function, specialize<type>(@Pair, f32)>
  %v = load %p : specialize<type>(@Pair, f32)
  %s = insert %v, %x, 1 : specialize<type>(@Pair, f32)
  store %p, %s
  %w = load %p : specialize<type>(@Pair, f32)
  %r = extract %w, 1 : f32
  return %r
}",
        r"
struct @Pair_impl {
  a: f32
  b: f32
}
func @f(%x: f32) -> f32 {
bb0:
  %p = var : ptr<function, @Pair_impl>
  %v = load %p : @Pair_impl
  %s = insert %v, %x, 1 : @Pair_impl
  store %p, %s
  %w = load %p : @Pair_impl
  %r = extract %w, 1 : f32
  return %r
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

/// A value parameter becomes the constant argument in the clone.
#[test]
fn value_parameter() {
    check(
        "specialize_generic",
        r"
generic @scale<%N: i32> {
  func @scale_impl(%x: i32) -> i32 {
  bb0:
    %y = mul %x, %N : i32
    return %y
  }
  return @scale_impl
}
func @use(%x: i32) -> i32 {
bb0:
  %r = call specialize<fn(i32) -> i32>(@scale, i32 3)(%x) : i32
  return %r
}",
        r"
func @scale_impl(%x: i32) -> i32 {
bb0:
  %y = mul %x, i32 3 : i32
  return %y
}
func @use(%x: i32) -> i32 {
bb0:
  %r = call @scale_impl(%x) : i32
  return %r
}",
    );
}

/// An exported generic stays (another module may specialize it after linking), as does one
/// still used inside another generic; an unused one goes.
#[test]
fn which_generics_stay() {
    check(
        "specialize_generic",
        r#"
generic @kept<%T: type> [export("kept")] {
  func @kept_impl(%x: %T) -> %T {
  bb0:
    return %x
  }
  return @kept_impl
}
generic @dropped<%T: type> {
  func @dropped_impl(%x: %T) -> %T {
  bb0:
    return %x
  }
  return @dropped_impl
}"#,
        r#"
generic @kept<%T: type> [export("kept")] {
  func @kept_impl(%x: %T) -> %T {
  bb0:
    return %x
  }
  return @kept_impl
}"#,
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

/// A recursive generic (its body specializes itself with the same parameter) is instantiated
/// once: the clone calls itself, and the generic, used only from inside itself, goes.
#[test]
fn recursive_generic() {
    check(
        "specialize_generic",
        r"
generic @count<%T: type> {
  func @count_impl(%x: %T, %n: i32) -> i32 {
  bb0:
    %z = le %n, i32 0 : bool
    if_else %z, bb1, bb2, merge bb3
  bb1:
    br bb3(i32 0)
  bb2:
    %m = sub %n, i32 1 : i32
    %r = call specialize<fn(%T, i32) -> i32>(@count, %T)(%x, %m) : i32
    %s = add %r, i32 1 : i32
    br bb3(%s)
  bb3(%v: i32):
    return %v
  }
  return @count_impl
}
func @use(%x: f32) -> i32 {
bb0:
  %r = call specialize<fn(f32, i32) -> i32>(@count, f32)(%x, i32 3) : i32
  return %r
}",
        r"
func @count_impl(%x: f32, %n: i32) -> i32 {
bb0:
  %z = le %n, i32 0 : bool
  if_else %z, bb1, bb2, merge bb3
bb1:
  br bb3(i32 0)
bb2:
  %m = sub %n, i32 1 : i32
  %r = call @count_impl(%x, %m) : i32
  %s = add %r, i32 1 : i32
  br bb3(%s)
bb3(%v: i32):
  return %v
}
func @use(%x: f32) -> i32 {
bb0:
  %r = call @count_impl(%x, i32 3) : i32
  return %r
}",
    );
}
