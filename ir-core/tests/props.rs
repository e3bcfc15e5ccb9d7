//! Property tests: random sequences of builder calls and replacements (the shared generator in
//! testing/ir-gen) keep the verifier clean, use lists consistent and hoistable values unique;
//! the printer and parser round-trip on the random modules.

use std::collections::HashSet;

use oneshader_ir::{Module, parse::parse, print::print_module, verify::verify};
use oneshader_ir_gen::{Gen, action};
use proptest::prelude::*;

/// Independent of the verifier: no two hoistable values share (op, type, operands, payload).
fn assert_hoistables_unique(m: &Module) {
    let mut seen = HashSet::new();
    let mut stack = vec![m.root()];
    while let Some(x) = stack.pop() {
        stack.extend(m.children(x));
        let op = m.op(x);
        if !op.is_hoistable() {
            continue;
        }
        let key = (
            op,
            m.ty(x),
            m.operands_vec(x),
            m.literal_bits(x),
            m.literal_str(x).map(str::to_string),
        );
        assert!(seen.insert(key), "duplicate hoistable {x:?}");
    }
}

/// Independent of the verifier: every slot is in its value's use list exactly once.
fn assert_use_lists(m: &Module) {
    let mut stack = vec![m.root()];
    while let Some(x) = stack.pop() {
        stack.extend(m.children(x));
        for (i, v) in m.operands(x).enumerate() {
            let n = m
                .uses(v)
                .filter(|u| u.user == x && u.slot == oneshader_ir::Slot::Operand(i as u32))
                .count();
            assert_eq!(n, 1);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn random_building_and_replacing_keeps_invariants(actions in prop::collection::vec(action(), 1..40)) {
        // The generator itself asserts what each step promises (a collapsed generic's types
        // end up at module level, a retargeted vector merges into the existing one).
        let m = Gen::build(&actions);
        let diags = verify(&m);
        prop_assert!(diags.is_empty(), "{:#?}\n{}", diags, print_module(&m));
        assert_hoistables_unique(&m);
        assert_use_lists(&m);
        // Round trip.
        let text = print_module(&m);
        let m2 = parse(&text).map_err(|e| TestCaseError::fail(format!("{e:?}\n{text}")))?;
        prop_assert_eq!(print_module(&m2), text.clone());
        prop_assert!(verify(&m2).is_empty());
        // A clone is an independent, equal module.
        let c = m.clone();
        prop_assert_eq!(print_module(&c), text);
    }
}
