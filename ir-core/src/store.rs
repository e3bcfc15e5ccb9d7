//! The instruction store: the slot map holding a module's instructions, and the ids it hands
//! out.
//!
//! In debug builds every module has a tag (1 to 127, from a global counter; a clone keeps its
//! original's tag, since the ids are valid in both), written into bits 24 to 30 of each id's
//! version (bit 31 stays clear: slot maps compare versions by wrapping difference, so a
//! version with the top bit set would read as older than a vacant slot's), and every access through the store checks it: an [`InstId`] of another
//! module, which would otherwise name an unrelated instruction or none, panics with
//! "an `InstId` of another module". Release builds carry no tag and no check: the ids are the
//! slot map's own keys and the conversions below compile to nothing.
//!
//! (A debug build cannot tag an id whose slot has been reused more than 2^23 times, as its
//! version then reaches the tag bits; the store panics on that rather than guess.)

use std::ops::{Index, IndexMut};

#[cfg(debug_assertions)]
use slotmap::KeyData;
use slotmap::{Key, SlotMap};

use crate::module::{Inst, InstId};

slotmap::new_key_type! {
    /// The slot map's own key; [`InstStore`] converts it to and from [`InstId`].
    struct RawId;
}

/// The instructions of a module by id (see the module documentation).
#[derive(Clone)]
pub(crate) struct InstStore {
    map: SlotMap<RawId, Inst>,
    #[cfg(debug_assertions)]
    tag: u64,
}

/// Where the tag sits in an id's 64-bit FFI form (version in the high 32 bits).
#[cfg(debug_assertions)]
const TAG_SHIFT: u32 = 56;

impl InstStore {
    /// An empty store with a fresh tag.
    pub fn new() -> InstStore {
        InstStore {
            map: SlotMap::with_key(),
            #[cfg(debug_assertions)]
            tag: {
                use std::sync::atomic::{AtomicU64, Ordering};
                static NEXT: AtomicU64 = AtomicU64::new(0);
                NEXT.fetch_add(1, Ordering::Relaxed) % 127 + 1
            },
        }
    }

    /// This store's tag (debug builds).
    #[cfg(all(test, debug_assertions))]
    pub fn tag(&self) -> u64 {
        self.tag
    }

    #[inline]
    fn public(&self, raw: RawId) -> InstId {
        #[cfg(debug_assertions)]
        {
            let ffi = raw.data().as_ffi();
            assert!(
                ffi >> TAG_SHIFT == 0,
                "an instruction slot was reused more than 2^23 times: its id cannot carry the \
                 module tag"
            );
            InstId::from(KeyData::from_ffi(ffi | (self.tag << TAG_SHIFT)))
        }
        #[cfg(not(debug_assertions))]
        {
            InstId::from(raw.data())
        }
    }

    #[inline]
    #[track_caller]
    fn raw(&self, id: InstId) -> RawId {
        #[cfg(debug_assertions)]
        {
            let ffi = id.data().as_ffi();
            let tag = ffi >> TAG_SHIFT;
            // The null id (no module's) has no tag and names nothing.
            assert!(
                tag == self.tag || id.is_null(),
                "an `InstId` of another module (tag {tag}) used on module with tag {}",
                self.tag
            );
            RawId::from(KeyData::from_ffi(ffi & !(0xff << TAG_SHIFT)))
        }
        #[cfg(not(debug_assertions))]
        {
            RawId::from(id.data())
        }
    }

    /// True when `id` names a live instruction.
    #[inline]
    #[track_caller]
    pub fn contains_key(&self, id: InstId) -> bool {
        self.map.contains_key(self.raw(id))
    }

    /// The instruction `id` names.
    #[inline]
    #[track_caller]
    pub fn get(&self, id: InstId) -> Option<&Inst> {
        self.map.get(self.raw(id))
    }

    /// The instruction `id` names, mutably.
    #[inline]
    #[track_caller]
    pub fn get_mut(&mut self, id: InstId) -> Option<&mut Inst> {
        let raw = self.raw(id);
        self.map.get_mut(raw)
    }

    /// Stores an instruction; returns its id.
    pub fn insert(&mut self, inst: Inst) -> InstId {
        let raw = self.map.insert(inst);
        self.public(raw)
    }

    /// Removes the instruction `id` names.
    #[track_caller]
    pub fn remove(&mut self, id: InstId) -> Option<Inst> {
        let raw = self.raw(id);
        self.map.remove(raw)
    }

    /// The ids of every live instruction, in slot order.
    pub fn keys(&self) -> impl Iterator<Item = InstId> + '_ {
        self.map.keys().map(|k| self.public(k))
    }

    /// Every live instruction, in slot order.
    pub fn values(&self) -> impl Iterator<Item = &Inst> + '_ {
        self.map.values()
    }

    /// How many instructions are live.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// How many instructions fit without reallocating.
    #[cfg(test)]
    pub fn capacity(&self) -> usize {
        self.map.capacity()
    }

    /// Reserves room for `n` more instructions.
    pub fn reserve(&mut self, n: usize) {
        self.map.reserve(n);
    }
}

impl Index<InstId> for InstStore {
    type Output = Inst;

    #[inline]
    #[track_caller]
    fn index(&self, id: InstId) -> &Inst {
        &self.map[self.raw(id)]
    }
}

impl IndexMut<InstId> for InstStore {
    #[inline]
    #[track_caller]
    fn index_mut(&mut self, id: InstId) -> &mut Inst {
        let raw = self.raw(id);
        &mut self.map[raw]
    }
}
