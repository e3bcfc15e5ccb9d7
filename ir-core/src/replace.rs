//! Rewriting uses while keeping every invariant: `replace_uses_with`, `replace_operand`,
//! `set_operand`, `set_type`.
//!
//! When an operand of a hoistable value changes, the value may become equal to one that
//! already exists (then it is merged into it: its uses move over, it is removed and recorded in
//! the replacement map) or it may no longer mention anything of the generic it sits in (then it
//! is hoisted outward). Both can cascade to its own hoistable users; the work list below runs
//! the cascade to the end.

use crate::module::{InstId, Module, Slot};
use crate::ops::Kind;

/// Why an operand could not be set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetOperandError {
    /// `set_operand` on a hoistable value would break deduplication: use `replace_operand`.
    #[error("set_operand on a hoistable value; use replace_operand")]
    Hoistable,
    /// No such operand.
    #[error("operand index {index} out of range ({len} operands)")]
    OutOfRange {
        /// The index asked for.
        index: usize,
        /// The number of operands.
        len: usize,
    },
}

impl Module {
    /// Rewrites every *value* use of `old` (operands and types) to `new`, then re-deduplicates
    /// and re-hoists the hoistable users, transitively. `old` itself stays (without uses)
    /// unless it was a hoistable value merged away by the cascade. `new` takes `old`'s source
    /// position when it has none ([`crate::positions`]).
    ///
    /// # Immediates
    ///
    /// Immediates (counts, indices, enumerations, switch case values, decoration arguments:
    /// operand kinds `Int`, `Imm`, `Const` and `Str`) are interned constants too: the `u32 64`
    /// of `numthreads(64, 1, 1)` is the same instruction as a `u32 64` an `add` reads. When
    /// `old` is a constant, this method leaves its uses in immediate slots alone, so folding
    /// `add x, u32 64` into something else never rewrites a workgroup size or an array
    /// length. [`Module::replace_all_uses_with`] rewrites those too, for the rare caller that
    /// means it (renumbering an enumeration, replacing a placeholder).
    pub fn replace_uses_with(&mut self, old: InstId, new: InstId) {
        if self.try_op(old).is_some_and(|o| o.is_constant())
            && self
                .uses(old)
                .any(|u| self.is_immediate_slot(u.user, u.slot))
        {
            for u in self.uses_snapshot(old) {
                if self.is_immediate_slot(u.user, u.slot) {
                    continue;
                }
                // An earlier replacement may have merged this user into an equal value, which
                // then already holds `new` here.
                let user = self.resolve(u.user);
                if !self.contains(user) {
                    continue;
                }
                match u.slot {
                    Slot::Operand(i) => {
                        self.replace_operand(user, i as usize, new);
                    }
                    Slot::Type => {
                        self.set_type(user, Some(new));
                    }
                }
            }
            return;
        }
        self.replace_all_uses_with(old, new);
    }

    /// True when `slot` of `user` holds an immediate (operand kinds `Int`, `Imm`, `Const`,
    /// `Str`) rather than a value.
    pub fn is_immediate_slot(&self, user: InstId, slot: Slot) -> bool {
        match slot {
            Slot::Operand(i) => matches!(
                self.try_op(user).and_then(|o| o.info().kind(i as usize)),
                Some(Kind::Int | Kind::Imm(_) | Kind::Const | Kind::Str)
            ),
            Slot::Type => false,
        }
    }

    /// Like [`Module::replace_uses_with`], but immediates too: every use of `old`, whatever
    /// the slot, becomes a use of `new`.
    pub fn replace_all_uses_with(&mut self, old: InstId, new: InstId) {
        let target = self.resolve(new);
        // The replacement stands for `old` in the source too (see `crate::positions`).
        if self.contains(old) && self.contains(target) {
            self.inherit_position(old, target);
            self.move_debug_variables(old, target);
        }
        if old != target
            && self.contains(old)
            && self.contains(target)
            && self.uses(old).all(|u| !self.is_interned(u.user))
        {
            // No hoistable user (the usual case for an instruction): nothing to re-deduplicate
            // or re-hoist, so each use node just moves to `target`'s list.
            loop {
                let node = self.insts[old].use_head;
                if node == crate::module::NIL {
                    return;
                }
                #[cfg(test)]
                self.slot_visits.set(self.slot_visits.get() + 1);
                self.unlink(node);
                self.link(node, target);
            }
        }
        let mut merged: Vec<InstId> = Vec::new();
        self.replace_worklist(vec![(old, new)], &mut merged);
        self.remove_merged(merged);
    }

    fn replace_worklist(&mut self, mut work: Vec<(InstId, InstId)>, merged: &mut Vec<InstId>) {
        while let Some((old, new)) = work.pop() {
            // `old` is not resolved: a merged duplicate is still live (and mapped in the
            // replacement map) until its uses have moved.
            let new = self.resolve(new);
            if old == new || !self.contains(old) || !self.contains(new) {
                continue;
            }
            // Only the slots on `old`'s use list are rewritten, so the cost is O(uses of
            // `old`), not O(operands of every user): replacing each of the n operands of one
            // n-operand `construct` in turn stays linear overall. Interned users leave the
            // dedup table before any of their slots changes (their hash covers the operands)
            // and come back, or merge, once all of them have.
            let uses = self.uses_snapshot(old);
            let interned: Vec<InstId> = self
                .users(old)
                .into_iter()
                .filter(|&user| self.is_interned(user))
                .collect();
            for &user in &interned {
                self.dedup_remove(user);
            }
            for u in &uses {
                #[cfg(test)]
                self.slot_visits.set(self.slot_visits.get() + 1);
                self.set_slot_raw(u.user, u.slot, Some(new));
            }
            for user in interned {
                match self.lookup_like(user) {
                    Some(existing) => {
                        // `user` now equals `existing`: merge it.
                        self.replaced.insert(user, existing);
                        merged.push(user);
                        work.push((user, existing));
                    }
                    None => {
                        self.dedup_insert(user);
                        self.rehoist_cascade(user);
                    }
                }
            }
        }
    }

    /// Moves `id` outward when its operands allow it, then does the same for its hoistable
    /// users, transitively.
    fn rehoist_cascade(&mut self, id: InstId) {
        let mut stack = vec![id];
        while let Some(x) = stack.pop() {
            if !self.contains(x) || !self.is_interned(x) {
                continue;
            }
            let current = self.scope_of(x);
            let required = self.required_scope(x);
            if required == current {
                continue;
            }
            // Only move outward; a value whose operands now live deeper than it is a caller
            // error the verifier reports (OSV0010).
            if self.scope_depth(required) >= self.scope_depth(current) {
                continue;
            }
            self.place_in_scope(x, required);
            for u in self.users(x) {
                if self.is_interned(u) {
                    stack.push(u);
                }
            }
        }
    }

    fn remove_merged(&mut self, merged: Vec<InstId>) {
        for id in merged {
            if self.contains(id) && !self.has_uses(id) && self.first_child(id).is_none() {
                self.remove_leaf(id);
            }
        }
    }

    /// Sets operand `index` of `user` to `new`, keeping every invariant. When `user` is
    /// hoistable it is re-deduplicated (and may be merged into an existing equal value, whose
    /// id is returned) and re-hoisted. Returns the id that now stands for `user`.
    pub fn replace_operand(&mut self, user: InstId, index: usize, new: InstId) -> InstId {
        self.replace_slot(user, Slot::Operand(index as u32), Some(new))
    }

    /// Sets the type of `user`, with the same guarantees as [`Module::replace_operand`].
    pub fn set_type(&mut self, user: InstId, ty: Option<InstId>) -> InstId {
        self.replace_slot(user, Slot::Type, ty)
    }

    fn replace_slot(&mut self, user: InstId, slot: Slot, new: Option<InstId>) -> InstId {
        let user = self.resolve(user);
        let new = new.map(|n| self.resolve(n));
        if !self.is_interned(user) {
            self.set_slot_raw(user, slot, new);
            return user;
        }
        self.dedup_remove(user);
        self.set_slot_raw(user, slot, new);
        match self.lookup_like(user) {
            Some(existing) => {
                self.replaced.insert(user, existing);
                let mut merged = vec![user];
                self.replace_worklist(vec![(user, existing)], &mut merged);
                self.remove_merged(merged);
                self.resolve(existing)
            }
            None => {
                self.dedup_insert(user);
                self.rehoist_cascade(user);
                user
            }
        }
    }

    /// Sets operand `index` of a non-hoistable instruction. Refuses on hoistable values (use
    /// [`Module::replace_operand`]) and out-of-range indices.
    pub fn set_operand(
        &mut self,
        user: InstId,
        index: usize,
        new: InstId,
    ) -> Result<(), SetOperandError> {
        if self.op(user).is_hoistable() {
            return Err(SetOperandError::Hoistable);
        }
        let len = self.num_operands(user);
        if index >= len {
            return Err(SetOperandError::OutOfRange { index, len });
        }
        let new = self.resolve(new);
        self.set_slot_raw(user, Slot::Operand(index as u32), Some(new));
        Ok(())
    }

    /// Replaces all operands of a non-hoistable instruction; the count may change (e.g. adding
    /// branch arguments).
    pub fn set_operands(
        &mut self,
        user: InstId,
        operands: &[InstId],
    ) -> Result<(), SetOperandError> {
        if self.op(user).is_hoistable() {
            return Err(SetOperandError::Hoistable);
        }
        let resolved: Vec<InstId> = operands.iter().map(|&o| self.resolve(o)).collect();
        self.set_operands_raw(user, &resolved);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::{Builder, Module};

    #[test]
    fn replacing_a_value_used_in_several_slots_rewrites_each_and_merges_equal_constants() {
        let mut m = Module::new();
        let f32t = m.f32_type();
        let v3 = m.vector_type(f32t, 3);
        let (a, b, c) = (m.const_f32(1.0), m.const_f32(2.0), m.const_f32(3.0));
        // {a, b, a} becomes {c, b, c}, which exists already: the two merge.
        let first = m.const_composite(v3, &[a, b, a]);
        let second = m.const_composite(v3, &[c, b, c]);
        let f = m.add_func("f", v3, &[f32t]);
        let p = f.params(&m)[0].id();
        let entry = f.entry(&m).expect("a defined function has an entry block");
        let mut bld = Builder::at_end(&mut m, entry);
        let k = bld.construct(v3, &[p, a, p]);
        let user_of_first = bld.add(first, first);
        m.replace_uses_with(a, c);
        assert_eq!(m.resolve(first), second);
        assert_eq!(
            m.operands(user_of_first).collect::<Vec<_>>(),
            vec![second, second]
        );
        assert_eq!(m.operands(k).collect::<Vec<_>>(), vec![p, c, p]);
        assert!(!m.has_uses(a));
        m.replace_uses_with(p, b);
        assert_eq!(m.operands(k).collect::<Vec<_>>(), vec![b, c, b]);
        assert!(
            crate::verify::verify(&m)
                .iter()
                .all(|d| d.code != "OSV0004")
        );
    }

    #[test]
    fn replacing_every_operand_of_a_wide_construct_in_turn_is_linear() {
        // 20k operands: quadratic rewriting (every slot of the user per replacement) would do
        // 400M slot visits; the use-list walk does one per use. Not timed: the module counts
        // the slots a replacement rewrites (in test builds), and the count must be linear.
        let mut m = Module::new();
        let f32t = m.f32_type();
        let n = 20_000u32;
        let arr = m.array_type(f32t, n);
        let f = m.add_func("f", arr, &[f32t]);
        let p = f.params(&m)[0].id();
        let entry = f.entry(&m).expect("a defined function has an entry block");
        let mut bld = Builder::at_end(&mut m, entry);
        let vals: Vec<_> = (0..n).map(|_| bld.add(p, p)).collect();
        let k = bld.construct(arr, &vals);
        for (i, &v) in vals.iter().enumerate() {
            let c = m.const_f32(i as f32);
            m.replace_uses_with(v, c);
        }
        let ops: Vec<_> = m.operands(k).collect();
        assert_eq!(ops.len(), n as usize);
        assert_eq!(m.literal_bits(ops[7]), Some(7.0f32.to_bits() as u64));
        assert_eq!(
            m.slot_visits.get(),
            u64::from(n),
            "one slot rewritten per replaced use"
        );
    }
}
