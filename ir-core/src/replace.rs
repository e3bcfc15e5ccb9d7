//! Rewriting uses while keeping every invariant: `replace_uses_with`, `replace_operand`,
//! `set_operand`, `set_type`.
//!
//! When an operand of a hoistable value changes, the value may become equal to one that
//! already exists (then it is merged into it: its uses move over, it is removed and recorded in
//! the replacement map) or it may no longer mention anything of the generic it sits in (then it
//! is hoisted outward). Both can cascade to its own hoistable users; the work list below runs
//! the cascade to the end.

use crate::module::{InstId, Module, Slot};

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
    /// Rewrites every use of `old` (operands and types) to `new`, then re-deduplicates and
    /// re-hoists the hoistable users, transitively. `old` itself stays (without uses) unless it
    /// was a hoistable value merged away by the cascade.
    pub fn replace_uses_with(&mut self, old: InstId, new: InstId) {
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
            for user in self.users(old) {
                let interned = self.is_interned(user);
                if interned {
                    self.dedup_remove(user);
                }
                self.rewrite_slots(user, old, new);
                if !interned {
                    continue;
                }
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

    /// Points every slot of `user` that refers to `old` at `new`.
    fn rewrite_slots(&mut self, user: InstId, old: InstId, new: InstId) {
        if self.ty(user) == Some(old) {
            self.set_slot_raw(user, Slot::Type, Some(new));
        }
        for i in 0..self.num_operands(user) {
            if self.operand(user, i) == old {
                self.set_slot_raw(user, Slot::Operand(i as u32), Some(new));
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
