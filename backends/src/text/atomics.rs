//! The memory locations atomics touch, shared by the text backends whose languages perform
//! atomic operations only on memory of an atomic type (WGSL's `atomic<T>`, MSL's
//! `atomic_uint`/`atomic_int`), where the IR performs them on ordinary integer memory.
//!
//! A location ([`Loc`]) is a global, a field of a struct type (every variable of that struct
//! shares it) or the elements of an array at a location: exactly as far as a declared type
//! goes. [`AtomicLocs::scan`] collects the locations the atomics of the reached functions
//! touch, and every prefix of them (a struct or array that holds atomics, which neither
//! language loads or stores as a whole).

use oneshader_ir::{Func, InstId, Module, Op};
use rustc_hash::FxHashSet;

/// A memory location of a buffer or workgroup variable, as far as its declared type goes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Loc {
    Global(InstId),
    Field(InstId, usize),
    Elem(Box<Loc>),
}

impl Loc {
    /// The global or struct type a location starts at.
    pub fn root(&self) -> InstId {
        match self {
            Loc::Global(g) => *g,
            Loc::Field(s, _) => *s,
            Loc::Elem(i) => i.root(),
        }
    }
}

/// The location pointer `p` designates, when it has one (a global, a field, an element).
pub(crate) fn loc_of(m: &Module, p: InstId) -> Option<Loc> {
    match m.op(p) {
        Op::Global => Some(Loc::Global(p)),
        Op::FieldAddr => {
            let base = m.operand(p, 0);
            let st = m.ty(base).and_then(|t| m.pointee(t))?;
            Some(Loc::Field(st, m.imm_operand(p, 1)? as usize))
        }
        Op::ElementAddr => {
            let base = m.operand(p, 0);
            let bt = m.ty(base).and_then(|t| m.pointee(t))?;
            if !matches!(m.op(bt), Op::Array | Op::RuntimeArray) {
                return None;
            }
            Some(Loc::Elem(Box::new(loc_of(m, base)?)))
        }
        _ => None,
    }
}

/// The pointer operand of an atomic instruction (`atomic_rmw op, p, v`, `atomic_cmpxchg p,
/// ...`); `None` for other instructions.
pub(crate) fn atomic_pointer(m: &Module, i: InstId) -> Option<InstId> {
    match m.op(i) {
        Op::AtomicRmw => Some(m.operand(i, 1)),
        Op::AtomicCmpXchg => Some(m.operand(i, 0)),
        _ => None,
    }
}

/// Atomic locations, and every prefix of one.
#[derive(Clone, Debug, Default)]
pub(crate) struct AtomicLocs {
    /// Locations an atomic touches: declared atomic.
    pub atomics: FxHashSet<Loc>,
    /// Those and every location holding one (structs and arrays of atomics).
    pub prefixes: FxHashSet<Loc>,
}

impl AtomicLocs {
    /// Records the atomic location of every atomic of `funcs` (atomics on texels have none:
    /// each backend refuses or prints them where they are).
    pub fn scan(&mut self, m: &Module, funcs: &[Func]) {
        for &f in funcs {
            for b in f.blocks(m) {
                for c in m.children(b.id()) {
                    let Some(p) = atomic_pointer(m, c) else {
                        continue;
                    };
                    if m.op(p) == Op::TexelAddr {
                        continue;
                    }
                    if let Some(mut l) = loc_of(m, p) {
                        self.atomics.insert(l.clone());
                        loop {
                            self.prefixes.insert(l.clone());
                            l = match l {
                                Loc::Elem(inner) => *inner,
                                _ => break,
                            };
                        }
                    }
                }
            }
        }
    }

    /// True when global `g` holds an atomic location.
    pub fn holds(&self, g: InstId) -> bool {
        self.prefixes.iter().any(|l| l.root() == g)
    }
}
