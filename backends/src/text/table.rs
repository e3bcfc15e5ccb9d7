//! The per-function side tables of the text printers (a value's role, its local's name, its
//! position in its block): dense tables indexed by slot number ([`InstTable`]) rather than
//! hash maps, since a printer looks each up once or more per instruction and a function's
//! instructions occupy neighbouring slots. The methods take `&InstId`, as a map's do.

use std::ops::Index;

use oneshader_ir::{InstId, InstTable};

/// A map from instructions to `V`, dense over the slots of the instructions it holds.
#[derive(Clone, Debug)]
pub(crate) struct IdMap<V>(InstTable<V>);

impl<V> Default for IdMap<V> {
    fn default() -> Self {
        IdMap(InstTable::new())
    }
}

impl<V> IdMap<V> {
    /// An empty map whose window already covers the slots of `ids` (so filling it in any
    /// order never grows the window, which copies its entries); `filler` is a value to
    /// stand in the two end slots while the window is made, removed again.
    pub fn spanning(ids: impl IntoIterator<Item = InstId>, filler: impl Fn() -> V) -> Self {
        let mut map = IdMap::default();
        let mut ends: Option<(InstId, InstId)> = None;
        for i in ids {
            ends = Some(match ends {
                None => (i, i),
                Some((lo, hi)) => (
                    if i.slot_number() < lo.slot_number() {
                        i
                    } else {
                        lo
                    },
                    if i.slot_number() > hi.slot_number() {
                        i
                    } else {
                        hi
                    },
                ),
            });
        }
        if let Some((lo, hi)) = ends {
            map.0.insert(lo, filler());
            map.0.insert(hi, filler());
            map.0.remove(lo);
            map.0.remove(hi);
        }
        map
    }

    /// The value of `id`.
    #[inline]
    pub fn get(&self, id: &InstId) -> Option<&V> {
        self.0.get(*id)
    }

    /// True when `id` has a value.
    #[inline]
    pub fn contains_key(&self, id: &InstId) -> bool {
        self.0.contains_key(*id)
    }

    /// Sets the value of `id`; returns the previous one.
    #[inline]
    pub fn insert(&mut self, id: InstId, v: V) -> Option<V> {
        self.0.insert(id, v)
    }
}

impl<V> Index<&InstId> for IdMap<V> {
    type Output = V;

    /// The value of `id`; a caller indexes only ids it inserted (as with a map's `[]`).
    #[track_caller]
    fn index(&self, id: &InstId) -> &V {
        match self.0.get(*id) {
            Some(v) => v,
            None => panic!("no entry for an instruction in a printer's table"),
        }
    }
}
