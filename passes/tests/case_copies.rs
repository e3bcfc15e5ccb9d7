//! `case_copies`: IR-text cases (input, expected output, verified after the pass), the
//! legality check it satisfies for WGSL (OSG0007), and the reference interpreter's results
//! before and after on a fall-through, a chain of them and a value used after the switch.

mod common;

use common::{check, manager, module, run};
use oneshader_ir::Module;
use oneshader_ir::analysis::ModuleInfo;
use oneshader_passes::case_copies::first_fallthrough;
use oneshader_passes::interp::{Exit, Interpreter, Value};
use oneshader_passes::legalize::{self, Target};

/// The legality check with the module's analyses.
fn legal_check(m: &Module, t: Target) -> Vec<oneshader_ir::Diagnostic> {
    legalize::check(m, t, &ModuleInfo::new(m))
}

/// Runs the pass on `text`, checks that no case falls through afterwards and that the first
/// function returns the same value before and after for each argument.
fn same_results(text: &str, args: &[i32]) -> Module {
    let before = module(text);
    assert!(
        first_fallthrough(&before).is_some(),
        "the input falls through"
    );
    let mut after = before.clone();
    run("case_copies", &mut after);
    assert_eq!(first_fallthrough(&after), None, "no fall-through is left");
    let call =
        |m: &Module, a: i32| match Interpreter::new(m).call(m.functions()[0], &[Value::i32(a)]) {
            Ok(Exit::Return(Some(v))) => v,
            other => panic!("{a}: {other:?}"),
        };
    for &a in args {
        assert_eq!(call(&before, a), call(&after, a), "argument {a}");
    }
    after
}

/// Case 0 stores 10 and falls into case 2, which adds 20: case 0 gets its own copy of case
/// 2 (`bb6`, placed before `bb2`) and ends in the switch's merge, and `bb2` is reached from
/// the switch alone.
const FALL: &str = r"
func @f(%0.x: i32) -> i32 {
bb0:
  %1.r = var : ptr<function, i32>
  store %1, i32 0
  switch %0, merge bb4, default bb3, [i32 0: bb1, i32 2: bb2]
bb1:
  store %1, i32 10
  br bb2
bb2:
  %2 = load %1 : i32
  %3 = add %2, i32 20 : i32
  store %1, %3
  br bb4
bb3:
  store %1, i32 -1
  br bb4
bb4:
  %4 = load %1 : i32
  return %4
}";

#[test]
fn a_falling_case_gets_a_copy_of_the_next() {
    check(
        "case_copies",
        FALL,
        r"
func @f(%0.x: i32) -> i32 {
bb0:
  %1.r = var : ptr<function, i32>
  store %1, i32 0
  switch %0, merge bb5, default bb4, [i32 0: bb1, i32 2: bb3]
bb1:
  store %1, i32 10
  br bb2
bb2:
  %2 = load %1 : i32
  %3 = add %2, i32 20 : i32
  store %1, %3
  br bb5
bb3:
  %4 = load %1 : i32
  %5 = add %4, i32 20 : i32
  store %1, %5
  br bb5
bb4:
  store %1, i32 -1
  br bb5
bb5:
  %6 = load %1 : i32
  return %6
}",
    );
}

#[test]
fn a_fall_through_keeps_its_results() {
    same_results(FALL, &[-1, 0, 1, 2, 3]);
}

/// Cases 0, 1 and 2 each fall into the next: every falling case ends with copies of all the
/// cases after it (three copies for case 0's chain and case 1's, one more for the copy of
/// case 1 inside case 0's chain), and each case adds its own bit.
#[test]
fn a_chain_of_fall_throughs_is_copied_whole() {
    let after = same_results(
        r"
func @f(%0.x: i32) -> i32 {
bb0:
  %1.r = var : ptr<function, i32>
  store %1, i32 0
  switch %0, merge bb5, default bb4, [i32 0: bb1, i32 1: bb2, i32 2: bb3]
bb1:
  store %1, i32 1
  br bb2
bb2:
  %2 = load %1 : i32
  %3 = add %2, i32 2 : i32
  store %1, %3
  br bb3
bb3:
  %4 = load %1 : i32
  %5 = add %4, i32 4 : i32
  store %1, %5
  br bb4
bb4:
  %6 = load %1 : i32
  %7 = add %6, i32 8 : i32
  store %1, %7
  br bb5
bb5:
  %8 = load %1 : i32
  return %8
}",
        &[0, 1, 2, 3, 7],
    );
    // 0 -> 1 -> 2 -> default is three copies for case 0, two for case 1, one for case 2.
    let blocks = after.functions()[0].blocks(&after).len();
    assert_eq!(
        blocks,
        6 + 3 + 2 + 1,
        "{}",
        oneshader_ir::print::print_module(&after)
    );
}

/// A case falling into the default, which dominates the merge: the value the default
/// computes and the merge returns becomes a variable both copies store.
#[test]
fn a_value_used_after_the_switch_becomes_a_variable() {
    let after = same_results(
        r"
func @f(%0.x: i32) -> i32 {
bb0:
  switch %0, merge bb3, default bb2, [i32 0: bb1]
bb1:
  br bb2
bb2:
  %1.y = add %0, i32 5 : i32
  br bb3
bb3:
  return %1
}",
        &[0, 1, 9],
    );
    let text = oneshader_ir::print::print_module(&after);
    assert!(text.contains("%1.y = var : ptr<function, i32>"), "{text}");
    assert_eq!(text.matches("store %1.y, ").count(), 2, "{text}");
}

/// The check behind `Legal` for WGSL: OSG0007 before the pass (naming it), nothing after;
/// the other targets keep the fall-through (their switches fall through).
#[test]
fn wgsl_needs_the_pass() {
    let before = module(FALL);
    let d = legal_check(&before, Target::Wgsl);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code, "OSG0007");
    assert!(d[0].to_string().contains("case_copies"), "{}", d[0]);
    for t in [Target::Spirv, Target::Glsl, Target::Msl] {
        assert!(legal_check(&before, t).is_empty(), "{t}");
    }
    let mut after = before.clone();
    run("case_copies", &mut after);
    assert!(legal_check(&after, Target::Wgsl).is_empty());
}

/// A pointer defined in the case `bb2` falls into (`bb3`) and used after the switch: the copy
/// of `bb3` could not hand it on, so the pass refuses with OSG0008 at the pointer's source
/// position (its `src_loc`), or at the first use after the case that has one.
const POINTER_AFTER: &str = r#"
global @b : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]
func @main(%0.i: u32) -> void {
bb0:
  %2 = element_addr @b, i32 0 : ptr<storage_buffer, u32>
  %3 = load %2 : u32
  switch %3, merge bb1, default bb3, [u32 0: bb2]
bb1:
  %4 = load %7 : u32 LOAD_LOC
  %5 = add %4, u32 1 : u32
  store %7, %5
  return
bb2:
  %6 = element_addr @b, i32 1 : ptr<storage_buffer, u32>
  store %6, u32 5
  br bb3
bb3:
  %7 = element_addr @b, %0 : ptr<storage_buffer, u32> PTR_LOC
  store %7, u32 7
  br bb1
}"#;

#[test]
fn a_pointer_used_after_the_switch_is_refused_with_its_position() {
    use oneshader_ir::diag::{FileId, Span};
    let refusal = |text: &str| {
        let mut m = module(text);
        let e = manager("case_copies")
            .run(&mut m)
            .expect_err("the pass refuses the module");
        assert_eq!(e.pass, "case_copies");
        assert_eq!(e.code, Some("OSG0008"), "{e}");
        assert_eq!(e.diagnostics.len(), 1, "{:?}", e.diagnostics);
        let d = e.diagnostics[0].clone();
        assert_eq!(d.code, "OSG0008");
        assert!(
            d.message
                .contains("= element_addr @b, %0.i : ptr<storage_buffer, u32>")
                && d.message.contains("used after the switch"),
            "{}",
            d.message
        );
        d.span
    };
    let at = |start: u32, end: u32| {
        Some(Span {
            file: FileId(0),
            start,
            end,
        })
    };
    // The pointer's own position first, then its use's, else none.
    let both = POINTER_AFTER
        .replace("PTR_LOC", "[src_loc(0, 40, 44)]")
        .replace("LOAD_LOC", "[src_loc(0, 90, 95)]");
    assert_eq!(refusal(&both), at(40, 44));
    let use_only = POINTER_AFTER
        .replace("PTR_LOC", "")
        .replace("LOAD_LOC", "[src_loc(0, 90, 95)]");
    assert_eq!(refusal(&use_only), at(90, 95));
    let none = POINTER_AFTER.replace("PTR_LOC", "").replace("LOAD_LOC", "");
    assert_eq!(refusal(&none), None);
}
