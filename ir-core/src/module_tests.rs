//! Unit tests of the store: sizes, child lists, use lists, removal, interning and the
//! replacement cascade.

use super::*;
use crate::imm::AddressSpace;
use crate::structure::Block;
use crate::{Builder, verify::verify};

#[test]
fn size_of_hot_structs() {
    // The budget of the IR issue: a binary add with its type and two operand uses must cost at
    // most 144 bytes (stretch 128). These asserts keep the structs from creeping.
    assert_eq!(std::mem::size_of::<Inst>(), 52);
    assert_eq!(std::mem::align_of::<Inst>(), 4);
    assert_eq!(std::mem::size_of::<Use>(), 24);
    assert_eq!(std::mem::size_of::<Option<InstId>>(), 8);
    let slot = std::mem::size_of::<Inst>() + 4; // slot map version word
    assert_eq!(slot + 3 * std::mem::size_of::<Use>(), 128);
}

#[test]
fn an_id_of_another_module_is_caught_in_debug_builds() {
    let mut a = Module::new();
    let mut b = Module::new();
    // Tags cycle through 127 values and other tests make modules in parallel: make sure the two
    // differ.
    #[cfg(debug_assertions)]
    while b.insts.tag() == a.insts.tag() {
        b = Module::new();
    }
    let ia = a.i32_type();
    // `b` has an instruction in the same slot, so without the tag the id would name it.
    let ib = b.f32_type();
    assert_eq!(ia.slot_number(), ib.slot_number());
    let misuse = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| b.try_op(ia)));
    if cfg!(debug_assertions) {
        let payload = misuse.expect_err("a debug build accepted an id of another module");
        let msg = payload
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default();
        assert!(msg.contains("another module"), "{msg}");
    } else {
        // Release builds carry no tag (store.rs): the id names `b`'s instruction in that slot.
        assert_eq!(misuse.ok(), Some(Some(Op::F32)));
    }
    // A clone keeps its original's ids, and the module's own ids keep working.
    let c = a.clone();
    assert_eq!(c.op(ia), Op::I32);
    assert_eq!(b.op(ib), Op::F32);
    assert!(a.contains(ia) && c.contains(ia));
}

#[test]
fn binary_add_costs_128_bytes_structurally() {
    let mut m = Module::new();
    let i32t = m.i32_type();
    let f = m.add_func("f", i32t, &[i32t]);
    let p = f.params(&m)[0].id();
    let entry = f.entry(&m).unwrap();
    let mut b = Builder::at_end(&mut m, entry);
    let before = b.m.memory_stats();
    b.add(p, p);
    let after = m.memory_stats();
    assert_eq!(after.insts - before.insts, 1);
    assert_eq!(after.uses - before.uses, 3);
    let bytes = (after.inst_bytes - before.inst_bytes) + (after.use_bytes - before.use_bytes);
    assert_eq!(bytes, 128);
}

fn block_with(m: &mut Module, n: usize) -> (Block, Vec<InstId>) {
    let v = m.void_type();
    let f = m.add_func("f", v, &[]);
    let b = f.entry(m).unwrap();
    let mut ids = Vec::new();
    let mut bld = Builder::at_end(m, b);
    for _ in 0..n {
        let i32t = bld.m.i32_type();
        ids.push(bld.var(i32t));
    }
    (b, ids)
}

#[test]
fn child_list_insert_detach_and_order() {
    let mut m = Module::new();
    let (b, ids) = block_with(&mut m, 4);
    assert_eq!(m.children_snapshot(b.id()), ids);
    assert_eq!(m.first_child(b.id()), Some(ids[0]));
    assert_eq!(m.last_child(b.id()), Some(ids[3]));
    assert_eq!(m.prev_sibling(ids[0]), None);
    assert_eq!(m.prev_sibling(ids[2]), Some(ids[1]));
    assert_eq!(m.next_sibling(ids[3]), None);
    // Detach first, middle and last.
    m.detach(ids[0]);
    assert_eq!(m.children_snapshot(b.id()), vec![ids[1], ids[2], ids[3]]);
    assert_eq!(m.last_child(b.id()), Some(ids[3]));
    m.detach(ids[3]);
    assert_eq!(m.last_child(b.id()), Some(ids[2]));
    m.detach(ids[1]);
    assert_eq!(m.children_snapshot(b.id()), vec![ids[2]]);
    assert_eq!(m.last_child(b.id()), Some(ids[2]));
    // Reinsert in a different order.
    m.insert_before(ids[2], ids[3]);
    m.insert_after(ids[2], ids[0]);
    m.append_child(b.id(), ids[1]);
    assert_eq!(
        m.children_snapshot(b.id()),
        vec![ids[3], ids[2], ids[0], ids[1]]
    );
    assert_eq!(m.last_child(b.id()), Some(ids[1]));
    assert_eq!(m.prev_sibling(ids[1]), Some(ids[0]));
    m.move_before(ids[1], ids[3]);
    assert_eq!(
        m.children_snapshot(b.id()),
        vec![ids[1], ids[3], ids[2], ids[0]]
    );
    assert_eq!(m.last_child(b.id()), Some(ids[0]));
}

#[test]
fn use_lists_follow_operand_changes() {
    let mut m = Module::new();
    let i32t = m.i32_type();
    let f = m.add_func("f", i32t, &[i32t, i32t]);
    let ps: Vec<InstId> = f.params(&m).iter().map(|p| p.id()).collect();
    let entry = f.entry(&m).unwrap();
    let mut b = Builder::at_end(&mut m, entry);
    let a = b.add(ps[0], ps[0]);
    let c = b.mul(a, ps[1]);
    assert_eq!(m.use_count(ps[0]), 2);
    assert_eq!(m.users(ps[0]), vec![a]);
    assert_eq!(m.use_count(a), 1);
    m.set_operand(c, 0, ps[0]).unwrap();
    assert_eq!(m.use_count(a), 0);
    assert_eq!(m.use_count(ps[0]), 3);
    let uses = m.uses_snapshot(ps[1]);
    assert_eq!(
        uses,
        vec![UseRef {
            user: c,
            slot: Slot::Operand(1)
        }]
    );
    // The type slot is a use too.
    assert!(m.uses(i32t).any(|u| u.user == c && u.slot == Slot::Type));
    // Growing and shrinking the operand list keeps lists consistent.
    m.set_operands(c, &[ps[1], ps[1]]).unwrap();
    assert_eq!(m.use_count(ps[0]), 2);
    assert_eq!(m.use_count(ps[1]), 2);
}

#[test]
fn set_operand_refuses_hoistables_and_bad_indices() {
    let mut m = Module::new();
    let i32t = m.i32_type();
    let v = m.vector_type(i32t, 2);
    let f32t = m.f32_type();
    assert_eq!(m.set_operand(v, 0, f32t), Err(SetOperandError::Hoistable));
    let g = m.add_global("g", AddressSpace::Private, i32t, None);
    assert!(matches!(
        m.set_operand(g.id(), 3, f32t),
        Err(SetOperandError::OutOfRange { index: 3, .. })
    ));
}

#[test]
fn remove_refuses_while_used_and_removes_subtrees() {
    let mut m = Module::new();
    let i32t = m.i32_type();
    let f = m.add_func("f", i32t, &[i32t]);
    let p = f.params(&m)[0].id();
    let entry = f.entry(&m).unwrap();
    let mut b = Builder::at_end(&mut m, entry);
    let a = b.add(p, p);
    let r = b.ret(Some(a));
    match m.remove(a) {
        Err(RemoveError::StillUsed { value, users, .. }) => {
            assert_eq!(value, a);
            assert_eq!(users, vec![r]);
        }
        other => panic!("{other:?}"),
    }
    assert!(m.contains(a));
    // Removing the whole function works: every use is inside it.
    let before = m.len();
    m.remove(f.id()).unwrap();
    assert!(!m.contains(a) && !m.contains(r) && !m.contains(p));
    assert_eq!(m.len(), before - 5); // func, block, param, add, return
    assert_eq!(m.remove(f.id()), Err(RemoveError::Missing));
    assert_eq!(m.remove(m.root()), Err(RemoveError::Root));
    // Types the function used are still there and interned.
    assert!(m.is_interned(i32t));
    assert!(verify(&m).is_empty());
}

#[test]
fn freed_use_ranges_are_reused() {
    let mut m = Module::new();
    let (_, ids) = block_with(&mut m, 2);
    let pool = m.uses.len();
    m.remove(ids[0]).unwrap();
    let (b2, _) = (m.func_by_name("f").unwrap().entry(&m).unwrap(), ());
    let mut b = Builder::at_end(&mut m, b2);
    let i32t = b.m.i32_type();
    b.var(i32t);
    assert_eq!(m.uses.len(), pool, "the freed range was reused");
}

#[test]
fn interning_dedups_and_distinguishes_payloads() {
    let mut m = Module::new();
    let a = m.const_i32(7);
    let b = m.const_i32(7);
    let c = m.const_u32(7);
    assert_eq!(a, b);
    assert_ne!(a, c, "same bits, different type");
    let pz = m.const_f32(0.0);
    let nz = m.const_f32(-0.0);
    assert_ne!(pz, nz, "constants are compared by exact bits");
    let f32t = m.f32_type();
    let nan1 = m.const_float_bits(f32t, 0x7fc0_0000);
    let nan2 = m.const_float_bits(f32t, 0x7fc0_0001);
    assert_ne!(nan1, nan2);
    let s1 = m.const_string("main");
    let s2 = m.const_string("main");
    assert_eq!(s1, s2);
    assert_eq!(m.literal_str(s1), Some("main"));
    // Truncation to the type's width.
    let u8t = m.int_type(8, false);
    let x = m.const_int(u8t, 0x1ff);
    assert_eq!(m.literal_bits(x), Some(0xff));
    let neg = m.const_i32(-3);
    assert_eq!(m.const_int_value(neg), Some(-3));
    // Structs are nominal.
    let s = m.add_struct("S", &[("a", a)]);
    let t = m.add_struct("S", &[("a", a)]);
    assert_ne!(s, t);
}

#[test]
fn replace_operand_merges_a_hoistable_into_an_existing_value() {
    let mut m = Module::new();
    let i32t = m.i32_type();
    let f32t = m.f32_type();
    let vi = m.vector_type(i32t, 2);
    let vf = m.vector_type(f32t, 2);
    // Retarget vec<i32, 2> to f32: it becomes vec<f32, 2>, which exists.
    let g = m.add_global("g", AddressSpace::Private, vi, None);
    let ptr_vi = m.ty(g.id()).unwrap();
    let now = m.replace_operand(vi, 0, f32t);
    assert_eq!(now, vf);
    assert!(!m.contains(vi));
    assert_eq!(m.resolve(vi), vf);
    // The pointer type built on it was re-deduplicated too and the global retyped.
    let ptr = m.resolve(ptr_vi);
    assert_eq!(m.pointee(ptr), Some(vf));
    assert_eq!(m.ty(g.id()), Some(ptr));
    assert!(verify(&m).is_empty(), "{:?}", verify(&m));
}

#[test]
fn replace_uses_with_rewrites_types_and_operands() {
    let mut m = Module::new();
    let i32t = m.i32_type();
    let f = m.add_func("f", i32t, &[i32t]);
    let p = f.params(&m)[0].id();
    let entry = f.entry(&m).unwrap();
    let mut b = Builder::at_end(&mut m, entry);
    let a = b.add(p, p);
    let c = b.mul(a, a);
    b.ret(Some(c));
    let k = m.const_i32(3);
    m.replace_uses_with(a, k);
    assert_eq!(m.operands_vec(c), vec![k, k]);
    assert!(!m.has_uses(a));
    m.remove(a).unwrap();
    assert!(verify(&m).is_empty());
}

#[test]
fn deep_cascade_resolves_every_stale_id() {
    // ptr<function, ... ptr<function, %T> ...> nested 50 deep inside a generic collapses onto
    // the module-level chain when %T becomes i32.
    let mut m = Module::new();
    let i32t = m.i32_type();
    let mut module_chain = vec![i32t];
    for _ in 0..50 {
        let last = *module_chain.last().unwrap();
        module_chain.push(m.array_type(last, 2));
    }
    let g = m.add_generic("G");
    let tt = m.type_type();
    let t = m.add_generic_param(g, tt);
    let mut inner = vec![t];
    for _ in 0..50 {
        let last = *inner.last().unwrap();
        inner.push(m.array_type(last, 2));
    }
    m.set_generic_result(g, *inner.last().unwrap());
    m.replace_uses_with(t, i32t);
    for (stale, want) in inner.iter().zip(&module_chain).skip(1) {
        assert_eq!(m.resolve(*stale), *want);
        assert!(!m.contains(*stale));
    }
    assert!(verify(&m).is_empty(), "{:?}", verify(&m));
}

#[test]
fn removing_an_interned_value_with_operands_leaves_the_dedup_table_clean() {
    // The dedup hash covers the type and operands, so a removed value must leave the table
    // before its slots are unlinked; a stale entry made later rehashing touch a dead id.
    let mut m = Module::new();
    let void = m.void_type();
    let fty = m.fn_type(void, &[]);
    m.remove(fty).unwrap();
    m.remove(void).unwrap();
    assert!(m.lookup(Op::Void, None, &[], Payload::None).is_none());
    // Growing the table rehashes every entry.
    for i in 0..200 {
        m.const_i32(i);
    }
    let void = m.void_type();
    let fty2 = m.fn_type(void, &[]);
    assert_eq!(m.fn_type(void, &[]), fty2);
    assert!(crate::verify::verify(&m).is_empty());
}
