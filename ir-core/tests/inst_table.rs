//! `InstTable` and `SlotVec`: side tables whose size follows the instructions put in them,
//! not the module (the property that keeps a pass over a library of many small functions
//! linear), and which tell a new instruction from a removed one in the same slot.

use oneshader_ir::{Builder, InstId, InstTable, Module, SlotVec, parse::parse};

/// A module of `n` small functions, each an add and a return.
fn library(n: usize) -> Module {
    let mut t = String::new();
    for k in 0..n {
        t.push_str(&format!(
            "func @f{k}(%a: i32) -> i32 {{\nbb0:\n  %b = add %a, i32 {k} : i32\n  %c = mul %b, %a : i32\n  return %c\n}}\n\n"
        ));
    }
    parse(&t).expect("parses")
}

/// The instructions (parameters included) of function `k`.
fn insts_of(m: &Module, k: usize) -> Vec<InstId> {
    let f = m.functions()[k];
    f.blocks(m)
        .iter()
        .flat_map(|b| m.children(b.id()))
        .collect()
}

#[test]
fn a_table_for_the_last_function_of_a_library_is_as_long_as_the_function() {
    let m = library(3000);
    assert!(
        m.len() > 3000 * 5,
        "the module has {} instructions",
        m.len()
    );
    let last = insts_of(&m, 2999);
    let table: InstTable<usize> = last.iter().enumerate().map(|(i, &id)| (id, i)).collect();
    assert_eq!(table.len(), last.len());
    // Slot numbers of one function are neighbours; the window doubles as it grows.
    assert!(
        table.window_len() <= 4 * last.len() + 8,
        "window {} for {} instructions in a module of {}",
        table.window_len(),
        last.len(),
        m.len()
    );
    for (i, &id) in last.iter().enumerate() {
        assert_eq!(table.get(id), Some(&i));
    }
    // Instructions of other functions are outside the window or not keys.
    for &id in &insts_of(&m, 0) {
        assert_eq!(table.get(id), None);
    }
}

#[test]
fn the_window_grows_in_both_directions() {
    let m = library(50);
    let mut ids: Vec<InstId> = (0..50).flat_map(|k| insts_of(&m, k)).collect();
    ids.sort_by_key(|id| id.slot_number());
    let middle = ids.len() / 2;
    let mut v: SlotVec<u32> = SlotVec::new();
    // Middle first, then alternately lower and higher slots.
    let mut order = vec![ids[middle]];
    for d in 1..=middle {
        order.push(ids[middle - d]);
        if middle + d < ids.len() {
            order.push(ids[middle + d]);
        }
    }
    for (n, &id) in order.iter().enumerate() {
        *v.entry(id) = n as u32 + 1;
    }
    for (n, &id) in order.iter().enumerate() {
        assert_eq!(
            v.get(id),
            Some(&(n as u32 + 1)),
            "slot {}",
            id.slot_number()
        );
    }
    let span = ids.last().unwrap().slot_number() - ids[0].slot_number() + 1;
    assert!(v.window_len() >= span && v.window_len() <= 3 * span);
}

#[test]
fn an_instruction_in_a_removed_ones_slot_is_a_different_key() {
    let mut m = library(2);
    let f0 = insts_of(&m, 0);
    // `%c = mul %b, %a`: its only user is the return, so replace the return's operand first.
    let (a, b, c, ret) = (f0[0], f0[1], f0[2], f0[3]);
    let mut table: InstTable<&str> = InstTable::new();
    table.insert(c, "c");
    table.insert(b, "b");
    assert_eq!(table.len(), 2);
    m.set_operand(ret, 0, b).expect("same type");
    m.remove(c).expect("unused now");
    let block = m.functions()[0].blocks(&m)[0];
    let mut bld = Builder::new(&mut m);
    bld.position_before(ret);
    let new = bld.add(a, a);
    assert_eq!(m.parent(new), Some(block.id()));
    assert_eq!(
        new.slot_number(),
        c.slot_number(),
        "the slot map reuses the slot freed last (the case this test is about)"
    );
    // The old entry must not answer for the new instruction in its slot.
    assert_eq!(table.get(new), None);
    assert!(!table.contains_key(new));
    assert_eq!(table.insert(new, "new"), None);
    assert_eq!(
        table.len(),
        2,
        "the stale entry is replaced, not counted twice"
    );
    assert_eq!(table.get(new), Some(&"new"));
    assert_eq!(table.get(c), None);
    assert_eq!(table.remove(b), Some("b"));
    assert_eq!(table.get(b), None);
}
