//! The reference interpreter on the example modules and on hand-written functions: control
//! flow of every kind, memory, calls, composites, the step limit and unsupported operations.

mod common;

use oneshader_ir::Module;
use oneshader_passes::interp::{Exit, InterpError, Interpreter, Value};
use oneshader_passes::value::parse_value;

fn example(name: &str) -> Module {
    let path = format!("{}/../examples/ir/{name}.ir", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("example exists");
    common::module(&text)
}

fn call(m: &Module, func: &str, args: &[Value]) -> Result<Exit, InterpError> {
    let f = m.func_by_name(func).expect("function exists");
    Interpreter::new(m).call(f, args)
}

fn ret(m: &Module, func: &str, args: &[Value]) -> Value {
    match call(m, func, args) {
        Ok(Exit::Return(Some(v))) => v,
        other => panic!("@{func}: {other:?}"),
    }
}

#[test]
fn if_else_with_join_parameter() {
    let m = example("if_else");
    assert_eq!(
        ret(&m, "abs_diff", &[Value::i32(5), Value::i32(3)]),
        Value::i32(2)
    );
    assert_eq!(
        ret(&m, "abs_diff", &[Value::i32(-4), Value::i32(3)]),
        Value::i32(7)
    );
}

#[test]
fn do_while_loop_carries_two_values() {
    let m = example("do_while");
    assert_eq!(ret(&m, "countdown", &[Value::i32(3)]), Value::i32(3));
    // The body runs once even when the test fails at once.
    assert_eq!(ret(&m, "countdown", &[Value::i32(-5)]), Value::i32(1));
}

#[test]
fn nested_loops_with_break_and_continue() {
    let m = example("loops");
    // Reference: the C code in the example's comment.
    let reference = |n: i32| {
        let mut acc = 0;
        for i in 0..n {
            for j in 0..n {
                if j == i {
                    continue;
                }
                if j > 5 {
                    break;
                }
                acc += i * j;
            }
        }
        acc
    };
    for n in [0, 1, 3, 7, 10] {
        assert_eq!(
            ret(&m, "nested", &[Value::i32(n)]),
            Value::i32(reference(n)),
            "n = {n}"
        );
    }
}

#[test]
fn switch_with_shared_targets_and_fall_through() {
    let m = example("switch");
    assert_eq!(ret(&m, "classify", &[Value::i32(0)]), Value::i32(30));
    assert_eq!(ret(&m, "classify", &[Value::i32(1)]), Value::i32(30));
    assert_eq!(ret(&m, "classify", &[Value::i32(2)]), Value::i32(20));
    assert_eq!(ret(&m, "classify", &[Value::i32(9)]), Value::i32(-1));
}

#[test]
fn structs_and_arrays_in_local_memory() {
    let m = example("struct_array");
    assert_eq!(
        ret(&m, "total_mass", &[Value::f32(1.5), Value::f32(2.25)]),
        Value::f32(3.75)
    );
}

#[test]
fn arithmetic_conversion_and_vectors() {
    let m = example("arith");
    // x*x + n*2 - x
    let x = 3.0f32;
    let want = x * x + 4.0 * 2.0 - x;
    assert_eq!(
        ret(&m, "poly", &[Value::f32(x), Value::i32(4)]),
        Value::f32(want)
    );
}

#[test]
fn spec_constants_use_their_defaults() {
    let m = example("spec_const");
    assert_eq!(
        ret(&m, "scaled", &[Value::f32(2.0), Value::u32(3)]),
        Value::f32(3.0)
    );
    assert_eq!(
        ret(&m, "scaled", &[Value::f32(2.0), Value::u32(64)]),
        Value::f32(0.0)
    );
}

#[test]
fn globals_and_compute_entry_point() {
    let m = example("compute");
    let mut it = Interpreter::new(&m);
    let data = m.global_by_name("data").expect("global");
    let gid = m.global_by_name("gid").expect("global");
    it.set_global(
        data,
        Value::Composite(vec![Value::u32(5), Value::u32(7), Value::u32(9)]),
    )
    .expect("set");
    it.set_global(
        gid,
        Value::Composite(vec![Value::u32(1), Value::u32(0), Value::u32(0)]),
    )
    .expect("set");
    let f = m.func_by_name("main").expect("main");
    assert_eq!(it.call(f, &[]), Ok(Exit::Return(None)));
    assert_eq!(
        it.global_value(data),
        Some(&Value::Composite(vec![
            Value::u32(5),
            Value::u32(14),
            Value::u32(9)
        ]))
    );
    // Index 5 is past the end of the runtime array.
    it.set_global(
        gid,
        Value::Composite(vec![Value::u32(5), Value::u32(0), Value::u32(0)]),
    )
    .expect("set");
    assert!(matches!(
        it.call(f, &[]),
        Err(InterpError::OutOfBounds {
            index: 5,
            len: 3,
            ..
        })
    ));
}

#[test]
fn atomics_with_one_invocation() {
    let m = example("atomics");
    let mut it = Interpreter::new(&m);
    let values = m.global_by_name("values").expect("global");
    let counter = m.global_by_name("counter").expect("global");
    it.set_global(
        values,
        Value::Composite(vec![Value::u32(11), Value::u32(4)]),
    )
    .expect("set");
    it.set_global(counter, Value::Composite(vec![Value::u32(100)]))
        .expect("set");
    let f = m.func_by_name("accumulate").expect("entry");
    assert_eq!(it.call(f, &[]), Ok(Exit::Return(None)));
    // gid = 0, lid = 0: group_total = values[0] = 11, then counter[0] += 11.
    assert_eq!(
        it.global_value(counter),
        Some(&Value::Composite(vec![Value::u32(111)]))
    );
}

#[test]
fn calls_and_recursion() {
    let m = common::module(
        r"
func @fact(%0.n: u32) -> u32 {
bb0:
  %1 = le %0, u32 1 : bool
  if_else %1, bb1, bb2, merge bb3
bb1:
  br bb3(u32 1)
bb2:
  %2 = sub %0, u32 1 : u32
  %3 = call @fact(%2) : u32
  %4 = mul %0, %3 : u32
  br bb3(%4)
bb3(%5: u32):
  return %5
}
",
    );
    assert_eq!(ret(&m, "fact", &[Value::u32(10)]), Value::u32(3_628_800));
    // Wrapping: 13! does not fit in 32 bits.
    assert_eq!(
        ret(&m, "fact", &[Value::u32(13)]),
        Value::u32(6_227_020_800u64 as u32)
    );
    assert_eq!(
        call(&m, "fact", &[Value::u32(100_000)]),
        Err(InterpError::CallDepth)
    );
    assert!(matches!(
        call(&m, "fact", &[Value::i32(1), Value::i32(2)]),
        Err(InterpError::Type(_))
    ));
}

#[test]
fn endless_loop_hits_the_step_limit() {
    let m = common::module(
        r"
func @spin() -> i32 {
bb0:
  loop bb1, break bb3, continue bb2
bb1:
  br bb2
bb2:
  br bb1
bb3:
  return i32 0
}
",
    );
    let f = m.func_by_name("spin").expect("f");
    let r = Interpreter::new(&m).with_max_steps(10_000).call(f, &[]);
    assert_eq!(r, Err(InterpError::StepLimit(10_000)));
}

#[test]
fn undefined_integer_cases_have_fixed_results() {
    let m = common::module(
        r"
func @d(%0: i32, %1: i32) -> vec<i32, 2> {
bb0:
  %2 = div %0, %1 : i32
  %3 = rem %0, %1 : i32
  %4 = construct %2, %3 : vec<i32, 2>
  return %4
}
",
    );
    let v = |a: i32, b: i32| ret(&m, "d", &[Value::i32(a), Value::i32(b)]);
    assert_eq!(
        v(7, 0),
        Value::Composite(vec![Value::i32(-1), Value::i32(-1)])
    );
    assert_eq!(
        v(i32::MIN, -1),
        Value::Composite(vec![Value::i32(i32::MIN), Value::i32(0)])
    );
    assert_eq!(
        v(-7, 2),
        Value::Composite(vec![Value::i32(-3), Value::i32(-1)])
    );
}

#[test]
fn composites_shuffles_and_matrices() {
    let m = common::module(
        r"
func @f(%0: vec<f32, 3>, %1: mat<f32, 2, 3>) -> vec<f32, 4> {
bb0:
  %2 = shuffle %0, %0, 2, 1, 0, 3 : vec<f32, 4>
  %3 = matmul %1, %0 : vec<f32, 2>
  %4 = extract %3, 1 : f32
  %5 = insert %2, %4, 3 : vec<f32, 4>
  %6 = call_intrinsic dot(%0, %0) : f32
  %7 = insert %5, %6, 0 : vec<f32, 4>
  return %7
}
",
    );
    let f = m.func_by_name("f").expect("f");
    let params = f.params(&m);
    let a = parse_value(&m, m.ty(params[0].id()).expect("ty"), "(1, 2, 3)").expect("parses");
    let b = parse_value(
        &m,
        m.ty(params[1].id()).expect("ty"),
        "((1, 0, 0), (0.5, 0.5, 2))",
    )
    .expect("parses");
    let r = ret(&m, "f", &[a, b]);
    // shuffle: (3, 2, 1, 1); row 1 of the matrix times (1, 2, 3) = 0.5 + 1 + 6 = 7.5;
    // dot = 14.
    assert_eq!(
        r,
        Value::Composite(vec![
            Value::f32(14.0),
            Value::f32(2.0),
            Value::f32(1.0),
            Value::f32(7.5)
        ])
    );
}

#[test]
fn textures_are_unsupported() {
    let m = example("fragment");
    let f = m.func_by_name("ps_main").expect("f");
    let r = Interpreter::new(&m).call(f, &[]);
    assert!(
        matches!(r, Err(InterpError::Unsupported(ref s)) if s.contains("sample")),
        "{r:?}"
    );
}

#[test]
fn discard_and_unreachable() {
    let m = common::module(
        r"
func @ps(%0: bool) -> void {
bb0:
  if_else %0, bb1, bb2, merge bb3
bb1:
  discard
bb2:
  br bb3
bb3:
  return
}

func @never() -> void {
bb0:
  unreachable
}
",
    );
    assert_eq!(call(&m, "ps", &[Value::bool(true)]), Ok(Exit::Discard));
    assert_eq!(
        call(&m, "ps", &[Value::bool(false)]),
        Ok(Exit::Return(None))
    );
    assert!(matches!(
        call(&m, "never", &[]),
        Err(InterpError::Unreachable(_))
    ));
}

#[test]
fn parse_value_checks_shapes_and_ranges() {
    let m = common::module(
        r"
func @f(%0: u8, %1: vec<f32, 2>, %2: bool, %3: f16) -> void {
bb0:
  return
}
",
    );
    let f = m.func_by_name("f").expect("f");
    let tys: Vec<_> = f
        .params(&m)
        .iter()
        .map(|p| m.ty(p.id()).expect("ty"))
        .collect();
    assert_eq!(
        parse_value(&m, tys[0], "255"),
        Ok(Value::Scalar(oneshader_passes::semantics::Scalar::U8, 255))
    );
    assert!(parse_value(&m, tys[0], "256").is_err());
    assert!(parse_value(&m, tys[0], "-1").is_err());
    assert!(parse_value(&m, tys[1], "(1, 2, 3)").is_err());
    assert!(parse_value(&m, tys[1], "1").is_err());
    assert_eq!(
        parse_value(&m, tys[1], "[0.5, 0x7fc00000]"),
        Ok(Value::Composite(vec![
            Value::f32(0.5),
            Value::Scalar(oneshader_passes::semantics::Scalar::F32, 0x7fc0_0000)
        ]))
    );
    assert_eq!(parse_value(&m, tys[2], "true"), Ok(Value::bool(true)));
    assert_eq!(
        parse_value(&m, tys[3], "1.5"),
        Ok(Value::Scalar(
            oneshader_passes::semantics::Scalar::F16,
            0x3e00
        ))
    );
}

#[test]
fn discard_in_a_callee_ends_the_invocation_and_out_pointers_are_written() {
    let m = common::module(
        r"
func @kill(%0: bool) -> i32 {
bb0:
  if_else %0, bb1, bb2, merge bb3
bb1:
  discard
bb2:
  br bb3
bb3:
  return i32 1
}

func @ps(%0: bool) -> i32 {
bb0:
  %1 = call @kill(%0) : i32
  %2 = add %1, i32 1 : i32
  return %2
}

func @parts(%x: f32) -> vec<f32, 3> {
bb0:
  %s = var : ptr<function, f32>
  %c = var : ptr<function, f32>
  %sc = call_intrinsic sincos(%x, %s, %c) : void
  %i = var : ptr<function, f32>
  %fr = call_intrinsic modf(%x, %i) : f32
  %0 = load %c : f32
  %1 = load %i : f32
  %2 = construct %fr, %1, %0 : vec<f32, 3>
  return %2
}
",
    );
    assert_eq!(call(&m, "ps", &[Value::bool(true)]), Ok(Exit::Discard));
    assert_eq!(ret(&m, "ps", &[Value::bool(false)]), Value::i32(2));
    // modf(-2.5) = -0.5 and -2.0; cos(0) = 1.
    assert_eq!(
        ret(&m, "parts", &[Value::f32(-2.5)]),
        Value::Composite(vec![
            Value::f32(-0.5),
            Value::f32(-2.0),
            Value::f32((-2.5f32).cos())
        ])
    );
}
