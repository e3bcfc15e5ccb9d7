//! `params_to_vars`: IR-text cases (input, expected output, verified after the pass), the
//! legality check it satisfies (OSG0006), and the reference interpreter's results before and
//! after on loops, swaps and joins.

mod common;

use common::{check, module, run};
use oneshader_ir::Module;
use oneshader_ir::analysis::ModuleInfo;
use oneshader_passes::interp::{Exit, Interpreter, Value};
use oneshader_passes::legalize::{self, Target};

/// The legality check with the module's analyses.
fn legal_check(m: &Module, t: Target) -> Vec<oneshader_ir::Diagnostic> {
    legalize::check(m, t, &ModuleInfo::new(m))
}

/// The first function of `before` and of `after` return the same value for every argument
/// list (run by the reference interpreter), and `after` has no block parameters left.
fn assert_same_results(before: &Module, after: &Module, cases: &[Vec<Value>]) {
    let call = |m: &Module, a: &[Value]| match Interpreter::new(m).call(m.functions()[0], a) {
        Ok(Exit::Return(Some(v))) => v,
        other => panic!("{a:?}: {other:?}"),
    };
    for a in cases {
        assert_eq!(call(before, a), call(after, a), "arguments {a:?}");
    }
}

fn i32s(vals: &[i32]) -> Vec<Vec<Value>> {
    vals.iter().map(|&v| vec![Value::i32(v)]).collect()
}

/// A loop header's parameters are fed by the pre-header's `loop` and by the back edge: both
/// store before branching, the header loads at its start, and the continue block's use of
/// the parameter reads the header's load. The variables and loads keep the parameters' name
/// hints.
const COUNT: &str = r"
func @f(%n: i32) -> i32 {
bb0:
  loop bb1(i32 0, i32 1), break bb3, continue bb2
bb1(%i.i: i32, %p.p: i32):
  %c = lt %i, %n : bool
  cond_br %c, bb4, bb3
bb4:
  %q = mul %p, i32 3 : i32
  br bb2
bb2:
  %next = add %i, i32 1 : i32
  br bb1(%next, %q)
bb3:
  return %p
}";

#[test]
fn loop_header_parameters_become_variables() {
    check(
        "params_to_vars",
        COUNT,
        r"
func @f(%n: i32) -> i32 {
bb0:
  %vi.i = var : ptr<function, i32>
  %vp.p = var : ptr<function, i32>
  store %vi, i32 0
  store %vp, i32 1
  loop bb1, break bb3, continue bb2
bb1:
  %i.i = load %vi : i32
  %p.p = load %vp : i32
  %c = lt %i, %n : bool
  cond_br %c, bb4, bb3
bb4:
  %q = mul %p, i32 3 : i32
  br bb2
bb2:
  %next = add %i, i32 1 : i32
  store %vi, %next
  store %vp, %q
  br bb1
bb3:
  return %p
}",
    );
}

#[test]
fn loop_results_are_unchanged() {
    let before = module(COUNT);
    let mut after = before.clone();
    run("params_to_vars", &mut after);
    assert_same_results(&before, &after, &i32s(&[-1, 0, 1, 2, 5, 10]));
}

/// The back edge passes the header's parameters to each other: the stores read the values
/// the header loaded (SSA values), so the swap needs no temporary.
const SWAP: &str = r"
func @f(%n: i32) -> i32 {
bb0:
  loop bb1(i32 1, i32 2, i32 0), break bb3, continue bb2
bb1(%a: i32, %b: i32, %k: i32):
  %c = lt %k, %n : bool
  cond_br %c, bb2, bb3
bb2:
  %k1 = add %k, i32 1 : i32
  br bb1(%b, %a, %k1)
bb3:
  %t = mul %a, i32 10 : i32
  %r = add %t, %b : i32
  return %r
}";

#[test]
fn swapped_parameters_store_the_loaded_values() {
    check(
        "params_to_vars",
        SWAP,
        r"
func @f(%n: i32) -> i32 {
bb0:
  %va = var : ptr<function, i32>
  %vb = var : ptr<function, i32>
  %vk = var : ptr<function, i32>
  store %va, i32 1
  store %vb, i32 2
  store %vk, i32 0
  loop bb1, break bb3, continue bb2
bb1:
  %a = load %va : i32
  %b = load %vb : i32
  %k = load %vk : i32
  %c = lt %k, %n : bool
  cond_br %c, bb2, bb3
bb2:
  %k1 = add %k, i32 1 : i32
  store %va, %b
  store %vb, %a
  store %vk, %k1
  br bb1
bb3:
  %t = mul %a, i32 10 : i32
  %r = add %t, %b : i32
  return %r
}",
    );
}

#[test]
fn swap_results_are_unchanged() {
    let before = module(SWAP);
    let mut after = before.clone();
    run("params_to_vars", &mut after);
    // An even number of swaps gives 12, an odd number 21.
    let want = |n: i32| if n.max(0) % 2 == 0 { 12 } else { 21 };
    for n in [0, 1, 2, 3, 7] {
        let got = match Interpreter::new(&after).call(after.functions()[0], &[Value::i32(n)]) {
            Ok(Exit::Return(Some(v))) => v,
            other => panic!("{other:?}"),
        };
        assert_eq!(got, Value::i32(want(n)), "n = {n}");
    }
    assert_same_results(&before, &after, &i32s(&[0, 1, 2, 3, 7]));
}

/// A join fed by both arms of an `if_else` (through `br` with arguments); an `undef`
/// argument stores nothing.
const JOIN: &str = r"
func @f(%x: i32) -> i32 {
bb0:
  %c = gt %x, i32 0 : bool
  if_else %c, bb1, bb2, merge bb3
bb1:
  %d = mul %x, i32 2 : i32
  br bb3(%d, i32 undef)
bb2:
  br bb3(i32 7, %x)
bb3(%r: i32, %u: i32):
  return %r
}";

#[test]
fn join_parameters_and_undef_arguments() {
    check(
        "params_to_vars",
        JOIN,
        r"
func @f(%x: i32) -> i32 {
bb0:
  %vr = var : ptr<function, i32>
  %vu = var : ptr<function, i32>
  %c = gt %x, i32 0 : bool
  if_else %c, bb1, bb2, merge bb3
bb1:
  %d = mul %x, i32 2 : i32
  store %vr, %d
  br bb3
bb2:
  store %vr, i32 7
  store %vu, %x
  br bb3
bb3:
  %r = load %vr : i32
  %u = load %vu : i32
  return %r
}",
    );
    let before = module(JOIN);
    let mut after = before.clone();
    run("params_to_vars", &mut after);
    assert_same_results(&before, &after, &i32s(&[-3, 0, 1, 9]));
}

/// The nested loops example (counters in header parameters, an accumulator in memory)
/// computes the same sums.
#[test]
fn nested_loops_example_is_unchanged() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/ir/loops.ir"),
    )
    .expect("the example exists");
    let before = module(&text);
    let mut after = before.clone();
    run("params_to_vars", &mut after);
    assert!(
        legal_check(&after, Target::Glsl).is_empty(),
        "no block parameter is left"
    );
    assert_same_results(&before, &after, &i32s(&[0, 1, 3, 6, 9]));
}

/// The check behind `Legal` for text targets: OSG0006 before the pass (naming it), nothing
/// after; SPIR-V keeps block parameters (they are its phis).
#[test]
fn text_targets_need_the_pass() {
    let before = module(COUNT);
    for t in [Target::Glsl, Target::Wgsl, Target::Msl] {
        let d = legal_check(&before, t);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].code, "OSG0006");
        assert!(
            d[0].notes.iter().any(|n| n.contains("params_to_vars")),
            "{d:?}"
        );
    }
    assert!(legal_check(&before, Target::Spirv).is_empty());
    let mut after = before.clone();
    run("params_to_vars", &mut after);
    assert!(legal_check(&after, Target::Glsl).is_empty());
}
