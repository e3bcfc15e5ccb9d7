//! Side tables keyed by instructions, sized by the instructions a pass puts in them.
//!
//! A pass that works one function at a time wants a dense table (an array read in about slot
//! order stays cache-friendly on a large function, where a hash map is one miss per lookup),
//! but a table indexed from slot 0, such as `slotmap::SecondaryMap`, is as long as the highest
//! slot number it holds: for the last function of a module of 20,000 functions each table is
//! as large as the whole module, and a pass over every function is quadratic. The tables here
//! cover only the window of slot numbers between the lowest and the highest key inserted, and
//! grow in both directions. A function's instructions occupy neighbouring slots (they were
//! created together), so a table for one function is about as long as the function.
//!
//! [`SlotVec`] is the unchecked form (any slot in the window reads as whatever was stored
//! there, valid while no instruction is removed); [`InstTable`] keeps each entry's key and
//! answers only for that instruction, like a secondary map, so it stays right while the pass
//! removes instructions and creates new ones in their slots.

use crate::module::InstId;

/// A vector indexed by slot number ([`InstId::slot_number`]) over a window that grows to
/// include every slot written. Reading outside the window gives `None`. Entries are not
/// checked against the instruction that wrote them: use it while no instruction is removed
/// (a removed instruction's slot is reused), or use [`InstTable`].
#[derive(Clone, Debug, Default)]
pub struct SlotVec<T> {
    base: usize,
    items: Vec<T>,
}

impl<T: Default> SlotVec<T> {
    /// An empty table.
    pub fn new() -> Self {
        SlotVec {
            base: 0,
            items: Vec::new(),
        }
    }

    /// The entry of `id`'s slot, or `None` outside the window.
    #[inline]
    pub fn get(&self, id: InstId) -> Option<&T> {
        self.items.get(id.slot_number().wrapping_sub(self.base))
    }

    /// The entry of `id`'s slot, growing the window to include it (new entries are
    /// `T::default()`).
    #[inline]
    pub fn entry(&mut self, id: InstId) -> &mut T {
        let k = id.slot_number();
        let i = k.wrapping_sub(self.base);
        if i >= self.items.len() {
            return self.grow_to(k);
        }
        &mut self.items[i]
    }

    /// Widens the window to include slot `k` (amortized: the window at least doubles) and
    /// returns its entry.
    #[cold]
    fn grow_to(&mut self, k: usize) -> &mut T {
        let len = self.items.len();
        if len == 0 {
            self.base = k;
            self.items.push(T::default());
        } else if k >= self.base + len {
            let new_len = (k - self.base + 1).max(2 * len);
            self.items.resize_with(new_len, T::default);
        } else {
            // k < base: room on the left, as much again as the window holds.
            let new_base = k.min(self.base.saturating_sub(len));
            let extra = self.base - new_base;
            let mut items = Vec::with_capacity(extra + len);
            items.resize_with(extra, T::default);
            items.append(&mut self.items);
            self.items = items;
            self.base = new_base;
        }
        let i = k - self.base;
        &mut self.items[i]
    }

    /// Number of slots the window covers (its memory is this many entries).
    pub fn window_len(&self) -> usize {
        self.items.len()
    }
}

/// A map from instructions to values, stored densely over the window of slot numbers of its
/// keys (see the module documentation). Each entry keeps its key, so an instruction created
/// in the slot of a removed one is a different key, as in a secondary map.
#[derive(Clone, Debug)]
pub struct InstTable<V> {
    slots: SlotVec<Option<(InstId, V)>>,
    len: usize,
}

impl<V> Default for InstTable<V> {
    fn default() -> Self {
        InstTable {
            slots: SlotVec {
                base: 0,
                items: Vec::new(),
            },
            len: 0,
        }
    }
}

impl<V> InstTable<V> {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// The value for `id`.
    #[inline]
    pub fn get(&self, id: InstId) -> Option<&V> {
        match self
            .slots
            .items
            .get(id.slot_number().wrapping_sub(self.slots.base))
        {
            Some(Some((k, v))) if *k == id => Some(v),
            _ => None,
        }
    }

    /// The value for `id`, mutably.
    #[inline]
    pub fn get_mut(&mut self, id: InstId) -> Option<&mut V> {
        let i = id.slot_number().wrapping_sub(self.slots.base);
        match self.slots.items.get_mut(i) {
            Some(Some((k, v))) if *k == id => Some(v),
            _ => None,
        }
    }

    /// True when `id` has a value.
    #[inline]
    pub fn contains_key(&self, id: InstId) -> bool {
        self.get(id).is_some()
    }

    /// Sets the value of `id`; returns the previous one. A value left by an instruction that
    /// occupied the same slot before is dropped.
    #[inline]
    pub fn insert(&mut self, id: InstId, value: V) -> Option<V> {
        let e = self.slots.entry(id);
        let old = match e.take() {
            Some((k, v)) if k == id => Some(v),
            Some(_) => {
                self.len -= 1;
                None
            }
            None => None,
        };
        *e = Some((id, value));
        if old.is_none() {
            self.len += 1;
        }
        old
    }

    /// Removes the value of `id` and returns it.
    #[inline]
    pub fn remove(&mut self, id: InstId) -> Option<V> {
        let i = id.slot_number().wrapping_sub(self.slots.base);
        let e = self.slots.items.get_mut(i)?;
        match e {
            Some((k, _)) if *k == id => {
                self.len -= 1;
                e.take().map(|(_, v)| v)
            }
            _ => None,
        }
    }

    /// Number of instructions with a value.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no instruction has a value.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of slots the window covers.
    pub fn window_len(&self) -> usize {
        self.slots.items.len()
    }
}

impl<V> FromIterator<(InstId, V)> for InstTable<V> {
    fn from_iter<I: IntoIterator<Item = (InstId, V)>>(iter: I) -> Self {
        let mut t = InstTable::new();
        for (k, v) in iter {
            t.insert(k, v);
        }
        t
    }
}
