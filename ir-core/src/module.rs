//! The instruction store: one slot map of [`Inst`]s per [`Module`], a module-level pool of
//! [`Use`] nodes (each operand and each type reference is one), intrusive child lists, name
//! hints, literal payloads and the deduplication table of hoistable values.
//!
//! Layout (sizes are asserted in tests, see `size_of_hot_structs`):
//! - `Inst` (52 bytes, 56 in its slot-map slot with the slot's version): opcode, operand count,
//!   the index of its first use node, the head of the list of *its* uses, one payload word, and
//!   parent / previous / next / first-child links;
//! - `Use` (24 bytes): the used value, the user, and previous / next links of the used value's
//!   use list. An instruction's use nodes are contiguous in the pool: the type slot first, then
//!   the operands in order.
//!
//! Children are a doubly linked list whose first node's `prev` points at the last child, so a
//! parent stores only `first_child` and appending is O(1).

use std::hash::{Hash, Hasher};

use crate::store::InstStore;
use hashbrown::HashTable;
use rustc_hash::{FxHashMap, FxHasher};

use crate::ops::Op;
#[cfg(test)]
use crate::replace::SetOperandError;

slotmap::new_key_type! {
    /// Identifies an instruction (any entity: type, constant, function, block, ...) of a module.
    ///
    /// An id belongs to the module that made it (and to that module's clones). Using it on
    /// another module is a bug: in debug builds every accessor panics with "an `InstId` of
    /// another module"; release builds do not check (the id would name an unrelated
    /// instruction, or none).
    pub struct InstId;
}

impl InstId {
    /// The number of the slot this instruction occupies: unique among the instructions alive
    /// in a module at one time, and reused after a removal (compare the ids themselves to
    /// tell a new instruction from a removed one). Tables indexed by it stay close to slot
    /// order, which is roughly the order of the instructions in a module, so passes that walk
    /// a large function use them instead of hash maps.
    #[inline]
    pub fn slot_number(self) -> usize {
        use slotmap::Key;
        (self.data().as_ffi() & 0xffff_ffff) as usize
    }
}

/// Sentinel for "no use node".
pub(crate) const NIL: u32 = u32::MAX;

/// Flag: the instruction is a hoistable value currently registered in the dedup table.
pub(crate) const FLAG_INTERNED: u16 = 1;

/// One instruction. Fields are private to the crate; use [`Module`]'s accessors.
#[derive(Clone, Copy, Debug)]
pub struct Inst {
    pub(crate) op: Op,
    pub(crate) flags: u16,
    pub(crate) num_operands: u32,
    /// Index in the use pool of the type slot; operand `i` is at `uses_start + 1 + i`.
    pub(crate) uses_start: u32,
    /// Head of the list of use nodes that refer to this instruction.
    pub(crate) use_head: u32,
    /// Literal payload: a bool (0/1), an index into `Module::literals`, or a string id.
    pub(crate) aux: u32,
    pub(crate) parent: Option<InstId>,
    /// Previous sibling; for the first child, the last child of the parent.
    pub(crate) prev: Option<InstId>,
    pub(crate) next: Option<InstId>,
    pub(crate) first_child: Option<InstId>,
}

/// One node of a use list: `user` refers to `value` through this slot.
#[derive(Clone, Copy, Debug)]
pub struct Use {
    pub(crate) value: Option<InstId>,
    pub(crate) user: InstId,
    pub(crate) prev: u32,
    pub(crate) next: u32,
}

/// Which slot of its user a use occupies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Slot {
    /// The user's type.
    Type,
    /// Operand `n` of the user.
    Operand(u32),
}

/// A use of a value, as seen from the value: who uses it, and in which slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UseRef {
    /// The instruction that uses the value.
    pub user: InstId,
    /// Where in the user.
    pub slot: Slot,
}

/// The literal payload of an instruction: what a constant holds besides its opcode, type and
/// operands. The one representation of it: [`Module::payload`] reads it, [`Module::intern`],
/// [`Module::lookup`] and [`Module::create_raw`] take it. It borrows a string from the module
/// (or the caller) it comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Payload<'a> {
    /// No payload.
    None,
    /// A bool, integer or float constant's exact bits.
    Bits(u64),
    /// A string constant.
    Str(&'a str),
}

/// Why an instruction could not be removed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RemoveError {
    /// The instruction (or one in its subtree) is still used from outside the subtree.
    #[error("instruction is still used by {count} instruction(s) outside what is removed")]
    StillUsed {
        /// The used instruction.
        value: InstId,
        /// How many outside uses remain.
        count: usize,
        /// The first few outside users.
        users: Vec<InstId>,
    },
    /// The id does not name a live instruction.
    #[error("instruction does not exist (already removed?)")]
    Missing,
    /// The module root cannot be removed.
    #[error("the module itself cannot be removed")]
    Root,
}

/// Structural memory statistics (see [`Module::memory_stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryStats {
    /// Live instructions.
    pub insts: usize,
    /// Live use nodes (type slots included).
    pub uses: usize,
    /// Bytes of the instruction slot map: slots times slot size.
    pub inst_bytes: usize,
    /// Bytes of the use pool: nodes times node size (free nodes included).
    pub use_bytes: usize,
    /// Bytes of the other tables (literals, strings, names, positions, dedup, replacement map).
    pub other_bytes: usize,
}

/// A module: the root instruction and everything under it.
#[derive(Clone)]
pub struct Module {
    pub(crate) insts: InstStore,
    pub(crate) uses: Vec<Use>,
    /// Free use-node ranges by length.
    free_uses: FxHashMap<u32, Vec<u32>>,
    pub(crate) literals: Vec<u64>,
    pub(crate) strings: Vec<Box<str>>,
    string_ids: FxHashMap<Box<str>, u32>,
    names: FxHashMap<InstId, Box<str>>,
    /// Source positions of instructions (see [`crate::positions`]).
    pub(crate) positions: FxHashMap<InstId, crate::debug_scopes::Origin>,
    /// The position instructions created now take (see [`Module::set_current_position`]).
    pub(crate) current_position: Option<crate::debug_scopes::Origin>,
    /// The source variables values hold (see [`crate::debug_values`]).
    pub(crate) debug_values: FxHashMap<InstId, Vec<crate::debug_values::DebugVariable>>,
    /// The scope table of the positions (see [`crate::debug_scopes`]).
    pub(crate) debug_scopes: Vec<crate::debug_scopes::DebugScopeData>,
    pub(crate) dedup: HashTable<InstId>,
    pub(crate) replaced: FxHashMap<InstId, InstId>,
    root: InstId,
    /// Operand and type slots rewritten by replacements (unit tests only: the cost of
    /// `replace_uses_with` is asserted in slots, not in seconds).
    #[cfg(test)]
    pub(crate) slot_visits: std::cell::Cell<u64>,
}

impl Default for Module {
    fn default() -> Self {
        Module::new()
    }
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::print::print_module(self))
    }
}

impl Module {
    /// An empty module.
    pub fn new() -> Module {
        let mut m = Module {
            insts: InstStore::new(),
            uses: Vec::new(),
            free_uses: FxHashMap::default(),
            literals: Vec::new(),
            strings: Vec::new(),
            string_ids: FxHashMap::default(),
            names: FxHashMap::default(),
            positions: FxHashMap::default(),
            current_position: None,
            debug_scopes: Vec::new(),
            debug_values: FxHashMap::default(),
            dedup: HashTable::new(),
            replaced: FxHashMap::default(),
            root: InstId::default(),
            #[cfg(test)]
            slot_visits: std::cell::Cell::new(0),
        };
        m.root = m.create_detached(Op::Module, None, &[], 0);
        m
    }

    /// The module instruction: the root of the tree.
    #[inline]
    pub fn root(&self) -> InstId {
        self.root
    }

    // ---- reading -------------------------------------------------------------------------

    /// True when `id` names a live instruction.
    #[inline]
    pub fn contains(&self, id: InstId) -> bool {
        self.insts.contains_key(id)
    }

    #[inline]
    pub(crate) fn inst(&self, id: InstId) -> &Inst {
        &self.insts[id]
    }

    /// The opcode. Panics when `id` is not live (a stale id is a caller bug: see
    /// [`Module::resolve`]); use [`Module::try_op`] on untrusted ids.
    #[inline]
    pub fn op(&self, id: InstId) -> Op {
        self.insts[id].op
    }

    /// The opcode, or `None` for a dead id.
    #[inline]
    pub fn try_op(&self, id: InstId) -> Option<Op> {
        self.insts.get(id).map(|i| i.op)
    }

    /// The type of the instruction, if it has one.
    #[inline]
    pub fn ty(&self, id: InstId) -> Option<InstId> {
        self.uses[self.insts[id].uses_start as usize].value
    }

    /// Number of operands.
    #[inline]
    pub fn num_operands(&self, id: InstId) -> usize {
        self.insts[id].num_operands as usize
    }

    /// Operand `i`. Panics when out of range.
    #[inline]
    pub fn operand(&self, id: InstId, i: usize) -> InstId {
        let inst = &self.insts[id];
        assert!(i < inst.num_operands as usize, "operand index out of range");
        // Operands are always set (only the type slot may be empty).
        self.uses[inst.uses_start as usize + 1 + i]
            .value
            .unwrap_or_default()
    }

    /// Operand `i`, or `None` when out of range.
    #[inline]
    pub fn try_operand(&self, id: InstId, i: usize) -> Option<InstId> {
        let inst = self.insts.get(id)?;
        if i < inst.num_operands as usize {
            self.uses[inst.uses_start as usize + 1 + i].value
        } else {
            None
        }
    }

    /// The operands, in order.
    pub fn operands(&self, id: InstId) -> impl ExactSizeIterator<Item = InstId> + '_ {
        let inst = &self.insts[id];
        let start = inst.uses_start as usize + 1;
        self.uses[start..start + inst.num_operands as usize]
            .iter()
            .map(|u| u.value.unwrap_or_default())
    }

    /// The operands, collected (a snapshot that stays valid while the module changes).
    pub fn operands_vec(&self, id: InstId) -> Vec<InstId> {
        self.operands(id).collect()
    }

    /// The parent in the tree (`None` for the root and for detached instructions).
    #[inline]
    pub fn parent(&self, id: InstId) -> Option<InstId> {
        self.insts[id].parent
    }

    /// The first child.
    #[inline]
    pub fn first_child(&self, id: InstId) -> Option<InstId> {
        self.insts[id].first_child
    }

    /// The last child.
    #[inline]
    pub fn last_child(&self, id: InstId) -> Option<InstId> {
        self.insts[id].first_child.and_then(|f| self.insts[f].prev)
    }

    /// The next sibling.
    #[inline]
    pub fn next_sibling(&self, id: InstId) -> Option<InstId> {
        self.insts[id].next
    }

    /// The previous sibling.
    #[inline]
    pub fn prev_sibling(&self, id: InstId) -> Option<InstId> {
        let inst = &self.insts[id];
        let parent = inst.parent?;
        if self.insts[parent].first_child == Some(id) {
            None
        } else {
            inst.prev
        }
    }

    /// Iterates the children in order. Do not change the child list while iterating; use
    /// [`Module::children_snapshot`] for that.
    pub fn children(&self, id: InstId) -> Children<'_> {
        Children {
            module: self,
            next: self.insts[id].first_child,
        }
    }

    /// The children, collected.
    pub fn children_snapshot(&self, id: InstId) -> Vec<InstId> {
        self.children(id).collect()
    }

    /// Iterates the uses of `id`. Do not change uses while iterating; use
    /// [`Module::uses_snapshot`] for that.
    pub fn uses(&self, id: InstId) -> Uses<'_> {
        Uses {
            module: self,
            next: self.insts[id].use_head,
        }
    }

    /// The uses of `id`, collected.
    pub fn uses_snapshot(&self, id: InstId) -> Vec<UseRef> {
        self.uses(id).collect()
    }

    /// The distinct users of `id`, in use-list order. O(uses).
    pub fn users(&self, id: InstId) -> Vec<InstId> {
        let mut out: Vec<InstId> = Vec::new();
        let mut seen: rustc_hash::FxHashSet<InstId> = rustc_hash::FxHashSet::default();
        for u in self.uses(id) {
            // A user holds a value in a handful of slots at most: check the tail first and
            // fall back to the set only for values with many users.
            if out.len() < 8 {
                if !out.contains(&u.user) {
                    out.push(u.user);
                }
                continue;
            }
            if seen.is_empty() {
                seen.extend(out.iter().copied());
            }
            if seen.insert(u.user) {
                out.push(u.user);
            }
        }
        out
    }

    /// True when something uses `id`.
    #[inline]
    pub fn has_uses(&self, id: InstId) -> bool {
        self.insts[id].use_head != NIL
    }

    /// Number of uses of `id`.
    pub fn use_count(&self, id: InstId) -> usize {
        self.uses(id).count()
    }

    /// The name hint of `id`.
    pub fn name(&self, id: InstId) -> Option<&str> {
        self.names.get(&id).map(|s| &**s)
    }

    /// Sets (or with `None` clears) the name hint. Names never affect identity.
    pub fn set_name(&mut self, id: InstId, name: Option<&str>) {
        match name {
            Some(n) if !n.is_empty() => {
                self.names.insert(id, n.into());
            }
            _ => {
                self.names.remove(&id);
            }
        }
    }

    /// Number of live instructions (the module included).
    pub fn len(&self) -> usize {
        self.insts.len()
    }

    /// True when the module holds nothing but its root.
    pub fn is_empty(&self) -> bool {
        self.insts.len() <= 1
    }

    /// Every live instruction id, in slot order (not tree order).
    pub fn all_ids(&self) -> impl Iterator<Item = InstId> + '_ {
        self.insts.keys()
    }

    /// The interned string with id `sid`.
    pub(crate) fn string(&self, sid: u32) -> &str {
        self.strings.get(sid as usize).map(|s| &**s).unwrap_or("")
    }

    pub(crate) fn intern_string(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.string_ids.get(s) {
            return id;
        }
        let id = self.strings.len() as u32;
        self.strings.push(s.into());
        self.string_ids.insert(s.into(), id);
        id
    }

    /// The literal payload of a constant, as raw bits (`bool`, integer, float), or `None`.
    pub fn literal_bits(&self, id: InstId) -> Option<u64> {
        let inst = self.insts.get(id)?;
        match inst.op {
            Op::ConstBool => Some(inst.aux as u64),
            Op::ConstInt | Op::ConstFloat => self.literals.get(inst.aux as usize).copied(),
            _ => None,
        }
    }

    /// The text of a string constant.
    pub fn literal_str(&self, id: InstId) -> Option<&str> {
        let inst = self.insts.get(id)?;
        (inst.op == Op::ConstString).then(|| self.string(inst.aux))
    }

    /// Follows the replacement map: the live instruction that stands for `id` after
    /// deduplication merged it away (or `id` itself).
    pub fn resolve(&self, mut id: InstId) -> InstId {
        // The map has no cycles: an entry maps a removed duplicate to the value it was merged
        // into, which was live at that time.
        let mut steps = 0;
        while let Some(&next) = self.replaced.get(&id) {
            id = next;
            steps += 1;
            if steps > self.replaced.len() {
                break;
            }
        }
        id
    }

    /// Structural memory use: every table's element size times its length.
    pub fn memory_stats(&self) -> MemoryStats {
        // A slot-map slot holds the value and a u32 version, aligned to the value.
        let slot = std::mem::size_of::<Inst>() + 4;
        let slot = slot.div_ceil(std::mem::align_of::<Inst>()) * std::mem::align_of::<Inst>();
        let live_uses = self
            .insts
            .values()
            .map(|i| 1 + i.num_operands as usize)
            .sum();
        let other = self.literals.len() * 8
            + self.strings.iter().map(|s| s.len() + 16).sum::<usize>()
            + self.names.values().map(|s| s.len() + 24).sum::<usize>()
            + self.positions.len() * 24
            + self.dedup.len() * std::mem::size_of::<InstId>()
            + self.replaced.len() * 16;
        MemoryStats {
            insts: self.insts.len(),
            uses: live_uses,
            inst_bytes: self.insts.len() * slot,
            use_bytes: self.uses.len() * std::mem::size_of::<Use>(),
            other_bytes: other,
        }
    }

    // ---- use pool --------------------------------------------------------------------------

    fn alloc_uses(&mut self, len: u32, user: InstId) -> u32 {
        let fresh = Use {
            value: None,
            user,
            prev: NIL,
            next: NIL,
        };
        let reused = if self.free_uses.is_empty() {
            None
        } else {
            self.free_uses.get_mut(&len).and_then(Vec::pop)
        };
        match reused {
            Some(start) => {
                self.uses[start as usize..(start + len) as usize].fill(fresh);
                start
            }
            None => {
                let start = self.uses.len() as u32;
                self.uses.extend(std::iter::repeat_n(fresh, len as usize));
                start
            }
        }
    }

    fn free_use_range(&mut self, start: u32, len: u32) {
        self.free_uses.entry(len).or_default().push(start);
    }

    /// Prefetch hint for use node `index` (see [`crate::prefetch`]).
    #[inline(always)]
    pub(crate) fn prefetch_use(&self, index: u32) {
        crate::prefetch::prefetch(self.uses.as_ptr().wrapping_add(index as usize));
    }

    /// Links use node `slot` into the use list of `value`.
    pub(crate) fn link(&mut self, slot: u32, value: InstId) {
        let head = self.insts[value].use_head;
        {
            let u = &mut self.uses[slot as usize];
            u.value = Some(value);
            u.prev = NIL;
            u.next = head;
        }
        if head != NIL {
            self.uses[head as usize].prev = slot;
        }
        self.insts[value].use_head = slot;
    }

    /// Unlinks use node `slot` from the use list of its value (if any).
    pub(crate) fn unlink(&mut self, slot: u32) {
        let Use {
            value, prev, next, ..
        } = self.uses[slot as usize];
        let Some(value) = value else { return };
        if prev != NIL {
            self.uses[prev as usize].next = next;
        } else if let Some(v) = self.insts.get_mut(value) {
            v.use_head = next;
        }
        if next != NIL {
            self.uses[next as usize].prev = prev;
        }
        let u = &mut self.uses[slot as usize];
        u.value = None;
        u.prev = NIL;
        u.next = NIL;
    }

    fn slot_index(&self, user: InstId, slot: Slot) -> u32 {
        let inst = &self.insts[user];
        match slot {
            Slot::Type => inst.uses_start,
            Slot::Operand(i) => {
                assert!(i < inst.num_operands, "operand index out of range");
                inst.uses_start + 1 + i
            }
        }
    }

    /// Points `slot` of `user` at `value` (`None` only for the type slot), keeping use lists.
    /// Does not re-deduplicate: crate-internal.
    pub(crate) fn set_slot_raw(&mut self, user: InstId, slot: Slot, value: Option<InstId>) {
        let idx = self.slot_index(user, slot);
        self.unlink(idx);
        if let Some(v) = value {
            self.link(idx, v);
        }
    }

    // ---- creating and linking ----------------------------------------------------------------

    /// Creates an instruction that is not yet in the tree.
    pub(crate) fn create_detached(
        &mut self,
        op: Op,
        ty: Option<InstId>,
        operands: &[InstId],
        aux: u32,
    ) -> InstId {
        let id = self.insts.insert(Inst {
            op,
            flags: 0,
            num_operands: operands.len() as u32,
            uses_start: 0,
            use_head: NIL,
            aux,
            parent: None,
            prev: None,
            next: None,
            first_child: None,
        });
        let start = self.alloc_uses(1 + operands.len() as u32, id);
        self.insts[id].uses_start = start;
        if let Some(p) = self.current_position
            && crate::positions::takes_position(op)
        {
            self.positions.insert(id, p);
        }
        if let Some(t) = ty {
            self.link(start, t);
        }
        for (i, &v) in operands.iter().enumerate() {
            self.link(start + 1 + i as u32, v);
        }
        id
    }

    /// Replaces all operands of a non-hoistable instruction (the count may change).
    pub(crate) fn set_operands_raw(&mut self, id: InstId, operands: &[InstId]) {
        let inst = self.insts[id];
        let old_len = inst.num_operands;
        if old_len as usize == operands.len() {
            for (i, &v) in operands.iter().enumerate() {
                let slot = inst.uses_start + 1 + i as u32;
                if self.uses[slot as usize].value != Some(v) {
                    self.unlink(slot);
                    self.link(slot, v);
                }
            }
            return;
        }
        let ty = self.ty(id);
        for i in 0..=old_len {
            self.unlink(inst.uses_start + i);
        }
        self.free_use_range(inst.uses_start, old_len + 1);
        let start = self.alloc_uses(1 + operands.len() as u32, id);
        {
            let i = &mut self.insts[id];
            i.uses_start = start;
            i.num_operands = operands.len() as u32;
        }
        if let Some(t) = ty {
            self.link(start, t);
        }
        for (i, &v) in operands.iter().enumerate() {
            self.link(start + 1 + i as u32, v);
        }
    }

    /// Appends `child` (detached) as the last child of `parent`.
    pub(crate) fn append_child(&mut self, parent: InstId, child: InstId) {
        debug_assert!(self.insts[child].parent.is_none());
        match self.insts[parent].first_child {
            None => {
                self.insts[parent].first_child = Some(child);
                let c = &mut self.insts[child];
                c.prev = Some(child);
                c.next = None;
            }
            Some(first) => {
                // The first child's prev is the last child (proven by the list invariant).
                let last = self.insts[first].prev.unwrap_or(first);
                self.insts[last].next = Some(child);
                self.insts[first].prev = Some(child);
                let c = &mut self.insts[child];
                c.prev = Some(last);
                c.next = None;
            }
        }
        self.insts[child].parent = Some(parent);
    }

    /// Inserts `child` (detached) just before `anchor`, which is in the tree.
    pub(crate) fn insert_before(&mut self, anchor: InstId, child: InstId) {
        debug_assert!(self.insts[child].parent.is_none());
        let parent = self.insts[anchor]
            .parent
            .expect("insert_before: the anchor is not in the tree");
        if self.insts[parent].first_child == Some(anchor) {
            let last = self.insts[anchor].prev;
            self.insts[parent].first_child = Some(child);
            let c = &mut self.insts[child];
            c.prev = last;
            c.next = Some(anchor);
            self.insts[anchor].prev = Some(child);
        } else {
            let prev = self.insts[anchor]
                .prev
                .expect("a non-first child has a prev");
            self.insts[prev].next = Some(child);
            let c = &mut self.insts[child];
            c.prev = Some(prev);
            c.next = Some(anchor);
            self.insts[anchor].prev = Some(child);
        }
        self.insts[child].parent = Some(parent);
    }

    /// Inserts `child` (detached) just after `anchor`, which is in the tree.
    pub(crate) fn insert_after(&mut self, anchor: InstId, child: InstId) {
        match self.insts[anchor].next {
            Some(next) => self.insert_before(next, child),
            None => {
                let parent = self.insts[anchor]
                    .parent
                    .expect("insert_after: the anchor is not in the tree");
                self.append_child(parent, child);
            }
        }
    }

    /// Takes `id` out of its parent's child list (it keeps its operands, uses and children).
    pub(crate) fn detach(&mut self, id: InstId) {
        let Some(parent) = self.insts[id].parent else {
            return;
        };
        let Inst { prev, next, .. } = self.insts[id];
        let first = self.insts[parent].first_child;
        if first == Some(id) {
            // `prev` of the first child is the last child.
            match next {
                Some(n) => {
                    self.insts[n].prev = prev;
                    self.insts[parent].first_child = Some(n);
                }
                None => self.insts[parent].first_child = None,
            }
        } else {
            let p = prev.expect("a non-first child has a prev");
            self.insts[p].next = next;
            match next {
                Some(n) => self.insts[n].prev = Some(p),
                None => {
                    // `id` was the last child: the first child's prev now points at `p`.
                    if let Some(f) = first {
                        self.insts[f].prev = Some(p);
                    }
                }
            }
        }
        let i = &mut self.insts[id];
        i.parent = None;
        i.prev = None;
        i.next = None;
    }

    /// Moves `id` (in the tree or detached) to the end of `parent`'s children.
    pub fn move_to_end(&mut self, id: InstId, parent: InstId) {
        self.detach(id);
        self.append_child(parent, id);
    }

    /// Moves `id` just before `anchor`.
    pub fn move_before(&mut self, id: InstId, anchor: InstId) {
        self.detach(id);
        self.insert_before(anchor, id);
    }

    /// Moves `id` just after `anchor`.
    pub fn move_after(&mut self, id: InstId, anchor: InstId) {
        self.detach(id);
        self.insert_after(anchor, id);
    }

    // ---- removal ---------------------------------------------------------------------------

    /// Removes `id` and its subtree. Refuses (and changes nothing) when anything outside the
    /// subtree still uses something inside it.
    pub fn remove(&mut self, id: InstId) -> Result<(), RemoveError> {
        if !self.contains(id) {
            return Err(RemoveError::Missing);
        }
        if id == self.root {
            return Err(RemoveError::Root);
        }
        if self.insts[id].first_child.is_none() && self.insts[id].use_head == NIL {
            // The common case (an instruction without decorations nobody uses): no subtree.
            self.remove_leaf(id);
            return Ok(());
        }
        let subtree = self.subtree(id);
        let inside: rustc_hash::FxHashSet<InstId> = subtree.iter().copied().collect();
        for &x in &subtree {
            let outside: Vec<InstId> = self
                .uses(x)
                .map(|u| u.user)
                .filter(|u| !inside.contains(u))
                .collect();
            if !outside.is_empty() {
                return Err(RemoveError::StillUsed {
                    value: x,
                    count: outside.len(),
                    users: outside.into_iter().take(4).collect(),
                });
            }
        }
        self.detach(id);
        for &x in &subtree {
            // Leave the dedup table before unlinking: its hash covers the type and operands.
            if self.insts[x].flags & FLAG_INTERNED != 0 {
                self.dedup_remove(x);
            }
        }
        for &x in &subtree {
            let inst = self.insts[x];
            for i in 0..=inst.num_operands {
                self.unlink(inst.uses_start + i);
            }
        }
        for &x in &subtree {
            self.forget(x);
        }
        Ok(())
    }

    /// Removes a single instruction that has no uses and no children without the subtree walk.
    pub(crate) fn remove_leaf(&mut self, id: InstId) {
        debug_assert!(!self.has_uses(id));
        debug_assert!(self.insts[id].first_child.is_none());
        self.detach(id);
        if self.insts[id].flags & FLAG_INTERNED != 0 {
            self.dedup_remove(id);
        }
        let inst = self.insts[id];
        for i in 0..=inst.num_operands {
            self.unlink(inst.uses_start + i);
        }
        self.forget(id);
    }

    /// Drops the slot, use range, name and dedup entry of an unlinked instruction (callers leave
    /// the dedup table before unlinking, while the hash can still be computed).
    fn forget(&mut self, id: InstId) {
        if self.insts[id].flags & FLAG_INTERNED != 0 {
            self.dedup_remove(id);
        }
        let inst = self.insts[id];
        self.free_use_range(inst.uses_start, inst.num_operands + 1);
        self.names.remove(&id);
        self.positions.remove(&id);
        self.debug_values.remove(&id);
        self.insts.remove(id);
    }

    /// `id` and every instruction below it, parents before children.
    pub fn subtree(&self, id: InstId) -> Vec<InstId> {
        let mut out = vec![id];
        let mut i = 0;
        while i < out.len() {
            let x = out[i];
            out.extend(self.children(x));
            i += 1;
        }
        out
    }

    // ---- dedup table ---------------------------------------------------------------------

    pub(crate) fn hash_key(
        &self,
        op: Op,
        ty: Option<InstId>,
        operands: &[InstId],
        payload: Payload<'_>,
    ) -> u64 {
        hash_key(op, ty, operands, payload)
    }

    /// The literal payload of instruction `id`: [`Payload::Bits`] for `const_bool`,
    /// `const_int` and `const_float`, [`Payload::Str`] for `const_string`, [`Payload::None`] for
    /// every other opcode; `None` when `id` is not a live instruction. This is the payload
    /// [`Module::intern`] and [`Module::lookup`] take, so `m.intern(m.op(c), m.ty(c), &ops,
    /// m.payload(c)?)` re-interns a constant with other operands (across modules too); to keep
    /// it while changing this module, copy a `Str` out first, as the payload borrows the module.
    ///
    /// ```
    /// use oneshader_ir::{Module, Payload};
    ///
    /// let mut m = Module::new();
    /// let i32t = m.i32_type();
    /// let five = m.const_i32(5);
    /// assert_eq!(m.payload(five), Some(Payload::Bits(5)));
    /// assert_eq!(m.payload(i32t), Some(Payload::None));
    /// ```
    pub fn payload(&self, id: InstId) -> Option<Payload<'_>> {
        self.insts
            .contains_key(id)
            .then(|| payload_of(&self.insts, &self.literals, &self.strings, id))
    }

    /// The payload of a live instruction, as a lookup key.
    fn stored_payload(&self, id: InstId) -> Payload<'_> {
        payload_of(&self.insts, &self.literals, &self.strings, id)
    }

    fn stored_hash(&self, id: InstId) -> u64 {
        stored_hash(&self.insts, &self.uses, &self.literals, &self.strings, id)
    }

    fn key_matches(
        &self,
        id: InstId,
        op: Op,
        ty: Option<InstId>,
        operands: &[InstId],
        payload: Payload<'_>,
    ) -> bool {
        let inst = &self.insts[id];
        if inst.op != op || inst.num_operands as usize != operands.len() {
            return false;
        }
        let start = inst.uses_start as usize;
        if self.uses[start].value != ty {
            return false;
        }
        if !self.uses[start + 1..start + 1 + operands.len()]
            .iter()
            .zip(operands)
            .all(|(u, o)| u.value == Some(*o))
        {
            return false;
        }
        self.stored_payload(id) == payload
    }

    /// Finds an interned value with this key.
    pub fn lookup(
        &self,
        op: Op,
        ty: Option<InstId>,
        operands: &[InstId],
        payload: Payload<'_>,
    ) -> Option<InstId> {
        let hash = self.hash_key(op, ty, operands, payload);
        self.dedup
            .find(hash, |&id| self.key_matches(id, op, ty, operands, payload))
            .copied()
    }

    /// Finds an interned value equal to the (not interned) instruction `id`, other than `id`.
    pub(crate) fn lookup_like(&self, id: InstId) -> Option<InstId> {
        let inst = self.insts[id];
        let start = inst.uses_start as usize;
        let ops: smallvec::SmallVec<[InstId; 8]> = self.uses
            [start + 1..start + 1 + inst.num_operands as usize]
            .iter()
            .map(|u| u.value.unwrap_or_default())
            .collect();
        let ty = self.uses[start].value;
        let payload = self.stored_payload(id);
        let hash = self.hash_key(inst.op, ty, &ops, payload);
        self.dedup
            .find(hash, |&other| {
                other != id && self.key_matches(other, inst.op, ty, &ops, payload)
            })
            .copied()
    }

    pub(crate) fn dedup_insert(&mut self, id: InstId) {
        let hash = self.stored_hash(id);
        let Module {
            dedup,
            insts,
            uses,
            literals,
            strings,
            ..
        } = self;
        dedup.insert_unique(hash, id, |&x| {
            stored_hash(insts, uses, literals, strings, x)
        });
        self.insts[id].flags |= FLAG_INTERNED;
    }

    pub(crate) fn dedup_remove(&mut self, id: InstId) {
        let hash = self.stored_hash(id);
        if let Ok(entry) = self.dedup.find_entry(hash, |&x| x == id) {
            entry.remove();
        }
        self.insts[id].flags &= !FLAG_INTERNED;
    }

    /// True when `id` is an interned hoistable value.
    #[inline]
    pub fn is_interned(&self, id: InstId) -> bool {
        self.insts
            .get(id)
            .is_some_and(|i| i.flags & FLAG_INTERNED != 0)
    }

    /// Interns a hoistable value: returns the existing equal value, or creates it in the
    /// outermost scope where its operands are visible (the module, or a generic's body).
    pub fn intern(
        &mut self,
        op: Op,
        ty: Option<InstId>,
        operands: &[InstId],
        payload: Payload<'_>,
    ) -> InstId {
        debug_assert!(op.is_hoistable(), "intern of a non-hoistable {op:?}");
        if let Some(id) = self.lookup(op, ty, operands, payload) {
            return id;
        }
        let aux = match payload {
            Payload::None => 0,
            Payload::Bits(b) => {
                if op == Op::ConstBool {
                    (b != 0) as u32
                } else {
                    self.literals.push(b);
                    (self.literals.len() - 1) as u32
                }
            }
            Payload::Str(s) => self.intern_string(s),
        };
        let id = self.create_detached(op, ty, operands, aux);
        let scope = self.required_scope(id);
        self.place_in_scope(id, scope);
        self.dedup_insert(id);
        id
    }

    // ---- scopes ------------------------------------------------------------------------------

    /// The scope an instruction lives in, as an operand of hoistable values: the module, or the
    /// body block of the innermost generic that contains it.
    pub fn scope_of(&self, id: InstId) -> InstId {
        let mut cur = self.insts.get(id).and_then(|i| i.parent);
        while let Some(p) = cur {
            let inst = &self.insts[p];
            if inst.op == Op::Module {
                return p;
            }
            if inst.op == Op::Block
                && inst
                    .parent
                    .is_some_and(|gp| self.insts[gp].op == Op::Generic)
            {
                return p;
            }
            cur = inst.parent;
        }
        self.root
    }

    /// How many generic bodies enclose scope `s` (0 for the module).
    pub(crate) fn scope_depth(&self, s: InstId) -> usize {
        let mut depth = 0;
        let mut cur = Some(s);
        while let Some(p) = cur {
            if self.insts[p].op == Op::Generic {
                depth += 1;
            }
            cur = self.insts[p].parent;
        }
        depth
    }

    /// The scope a hoistable instruction must live in: the deepest scope among its operands'
    /// (and its type's) scopes.
    pub(crate) fn required_scope(&self, id: InstId) -> InstId {
        let inst = &self.insts[id];
        let start = inst.uses_start as usize;
        let mut best = self.root;
        let mut best_depth = 0;
        for u in &self.uses[start..start + 1 + inst.num_operands as usize] {
            let Some(v) = u.value else { continue };
            let Some(vi) = self.insts.get(v) else {
                continue;
            };
            if vi.parent == Some(self.root) || vi.op == Op::Module {
                continue;
            }
            let s = self.scope_of(v);
            if s == best {
                continue;
            }
            let d = self.scope_depth(s);
            if d > best_depth {
                best = s;
                best_depth = d;
            }
        }
        best
    }

    /// Puts a hoistable instruction into `scope` (module: at the end; generic body: before its
    /// terminator).
    pub(crate) fn place_in_scope(&mut self, id: InstId, scope: InstId) {
        if self.insts[id].parent == Some(scope) {
            return;
        }
        self.detach(id);
        if scope != self.root
            && let Some(last) = self.last_child(scope)
            && self.insts[last].op.is_terminator()
        {
            self.insert_before(last, id);
            return;
        }
        self.append_child(scope, id);
    }
}

fn hash_key(op: Op, ty: Option<InstId>, operands: &[InstId], payload: Payload<'_>) -> u64 {
    let mut h = FxHasher::default();
    (op as u16).hash(&mut h);
    ty.hash(&mut h);
    operands.len().hash(&mut h);
    for o in operands {
        o.hash(&mut h);
    }
    match payload {
        Payload::None => 0u8.hash(&mut h),
        Payload::Bits(b) => b.hash(&mut h),
        Payload::Str(s) => s.hash(&mut h),
    }
    h.finish()
}

fn payload_of<'a>(
    insts: &InstStore,
    literals: &[u64],
    strings: &'a [Box<str>],
    id: InstId,
) -> Payload<'a> {
    let inst = &insts[id];
    match inst.op {
        Op::ConstBool => Payload::Bits(inst.aux as u64),
        Op::ConstInt | Op::ConstFloat => {
            Payload::Bits(literals.get(inst.aux as usize).copied().unwrap_or(0))
        }
        Op::ConstString => Payload::Str(strings.get(inst.aux as usize).map(|s| &**s).unwrap_or("")),
        _ => Payload::None,
    }
}

fn stored_hash(
    insts: &InstStore,
    uses: &[Use],
    literals: &[u64],
    strings: &[Box<str>],
    id: InstId,
) -> u64 {
    let inst = &insts[id];
    let start = inst.uses_start as usize;
    let ops: smallvec::SmallVec<[InstId; 8]> = uses
        [start + 1..start + 1 + inst.num_operands as usize]
        .iter()
        .map(|u| u.value.unwrap_or_default())
        .collect();
    hash_key(
        inst.op,
        uses[start].value,
        &ops,
        payload_of(insts, literals, strings, id),
    )
}

/// Iterator over children.
pub struct Children<'a> {
    module: &'a Module,
    next: Option<InstId>,
}

impl Iterator for Children<'_> {
    type Item = InstId;
    #[inline]
    fn next(&mut self) -> Option<InstId> {
        let cur = self.next?;
        let inst = &self.module.insts[cur];
        // Siblings mostly sit in consecutive slots: fetch the slots the walk is heading for.
        crate::prefetch::prefetch(
            (inst as *const Inst).wrapping_byte_add(crate::prefetch::CHILD_WALK_AHEAD),
        );
        self.next = inst.next;
        Some(cur)
    }
}

/// Iterator over the uses of a value.
pub struct Uses<'a> {
    module: &'a Module,
    next: u32,
}

impl Iterator for Uses<'_> {
    type Item = UseRef;
    #[inline]
    fn next(&mut self) -> Option<UseRef> {
        if self.next == NIL {
            return None;
        }
        let idx = self.next;
        let u = &self.module.uses[idx as usize];
        self.next = u.next;
        let user = u.user;
        let start = self.module.insts[user].uses_start;
        let slot = if idx == start {
            Slot::Type
        } else {
            Slot::Operand(idx - start - 1)
        };
        Some(UseRef { user, slot })
    }
}

#[cfg(test)]
#[path = "module_tests.rs"]
mod tests;
