//! Verifier checks that need corruption only crate-internal access can produce.

use super::verify;
use crate::module::{FLAG_INTERNED, Module, NIL};
use crate::ops::Op;
use crate::parse::parse;

fn has(m: &Module, code: &str) -> bool {
    let d = verify(m);
    d.iter().any(|d| d.code == code && d.message.contains('`'))
}

fn sample() -> Module {
    parse("func @f(%0: i32) -> i32 {\nbb0:\n  %1 = add %0, i32 1 : i32\n  %2 = mul %1, %1 : i32\n  return %2\n}\n")
        .expect("parses")
}

#[test]
fn osv0001_wrong_parent_link() {
    let mut m = sample();
    let f = m.func_by_name("f").unwrap();
    let entry = f.entry(&m).unwrap();
    let add = entry.insts(&m)[0];
    m.insts[add].parent = Some(f.id());
    assert!(has(&m, "OSV0001"));
}

#[test]
fn osv0001_broken_last_child_link() {
    let mut m = sample();
    let f = m.func_by_name("f").unwrap();
    let entry = f.entry(&m).unwrap();
    let first = m.first_child(entry.id()).unwrap();
    m.insts[first].prev = Some(first);
    assert!(has(&m, "OSV0001"));
}

#[test]
fn osv0001_detached_instruction() {
    let mut m = sample();
    let f = m.func_by_name("f").unwrap();
    let entry = f.entry(&m).unwrap();
    let mul = entry.insts(&m)[1];
    m.detach(mul);
    assert!(has(&m, "OSV0001"));
}

#[test]
fn osv0004_use_missing_from_list() {
    let mut m = sample();
    let f = m.func_by_name("f").unwrap();
    let add = f.entry(&m).unwrap().insts(&m)[0];
    m.insts[add].use_head = NIL;
    assert!(has(&m, "OSV0004"));
}

#[test]
fn osv0004_use_node_names_wrong_user() {
    let mut m = sample();
    let f = m.func_by_name("f").unwrap();
    let insts = f.entry(&m).unwrap().insts(&m);
    let (add, mul) = (insts[0], insts[1]);
    let start = m.insts[mul].uses_start as usize;
    m.uses[start + 1].user = add;
    assert!(has(&m, "OSV0004"));
}

#[test]
fn osv0006_duplicate_hoistable() {
    let mut m = sample();
    let i32t = m.i32_type();
    // A second `i32 1` created behind the dedup table's back.
    let dup = m.create_detached(Op::ConstInt, Some(i32t), &[], 0);
    m.literals.push(1);
    m.insts[dup].aux = (m.literals.len() - 1) as u32;
    let root = m.root();
    m.append_child(root, dup);
    m.dedup_insert(dup);
    assert!(has(&m, "OSV0006"));
}

#[test]
fn osv0006_not_interned() {
    let mut m = sample();
    let i32t = m.i32_type();
    let v = m.vector_type(i32t, 3);
    m.dedup_remove(v);
    assert_eq!(m.insts[v].flags & FLAG_INTERNED, 0);
    assert!(has(&m, "OSV0006"));
}

#[test]
fn osv0007_hoistable_in_a_deeper_scope_than_needed() {
    let mut m = Module::new();
    let g = m.add_generic("G");
    let tt = m.type_type();
    let t = m.add_generic_param(g, tt);
    m.set_generic_result(g, t);
    let i32t = m.i32_type();
    let v = m.vector_type(i32t, 2);
    // Move a module-level type into the generic's body.
    let body = m.generic_body(g);
    let ret = body.terminator(&m).unwrap();
    m.move_before(v, ret);
    assert!(has(&m, "OSV0007"));
}

#[test]
fn valid_module_passes() {
    let m = sample();
    assert!(verify(&m).is_empty(), "{:?}", verify(&m));
}

/// Every code this verifier reports is documented in docs/ir-ops.md, and every documented
/// code is reported somewhere.
#[test]
fn every_code_is_documented() {
    // The positions check (OSV0030) lives beside the positions, as it needs the source map.
    let source = concat!(include_str!("verify.rs"), include_str!("positions.rs"));
    let doc = include_str!("../../docs/ir-ops.md");
    let mut emitted: Vec<&str> = source
        .match_indices("\"OSV")
        .map(|(i, _)| &source[i + 1..i + 8])
        .collect();
    emitted.sort_unstable();
    emitted.dedup();
    assert!(emitted.len() >= 27, "{emitted:?}");
    for code in &emitted {
        assert!(
            doc.contains(&format!("| {code} |")),
            "{code} is not in docs/ir-ops.md"
        );
    }
    for (i, _) in doc.match_indices("| OSV") {
        let code = &doc[i + 2..i + 9];
        assert!(
            emitted.contains(&code),
            "{code} is documented but never reported"
        );
    }
}
