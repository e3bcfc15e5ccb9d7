//! Descriptor set and binding numbers of resources, by DXC's default rules:
//!
//! 1. `[[vk::binding(B, S)]]` gives set `S` (0 when omitted, or the `register`'s space),
//!    binding `B`.
//! 2. Otherwise `register(xN, spaceS)` gives set `S`, binding `N`. As in DXC, the register
//!    class letter is ignored, so `t0` and `s0` get the same binding (DXC users pass
//!    `-fvk-t-shift`-style options to separate them; OneShader does not shift).
//! 3. Everything else gets set 0 and the lowest binding number not yet taken in set 0, in
//!    declaration order, after the explicit ones are placed.
//! 4. The counter of an append, consume or counter-using structured buffer takes
//!    `[[vk::counter_binding(N)]]`, or the next free binding of its buffer's set.
//! 5. The implicit `$Globals` constant buffer comes last in set 0.
//! 6. `-fvk-b-shift N SPACE` (and `-t-`, `-s-`, `-u-`) add `N` to the register numbers of
//!    that class in that space (`all` for every space) before rule 2 applies.
//!
//! Arrays of resources take one binding (a descriptor array).

use rustc_hash::{FxHashMap, FxHashSet};

use super::hir::{GlobalDef, GlobalKind, TyKind, Types};

/// Set and binding of each global (`None` for what is not a descriptor), and of each
/// counter.
#[derive(Clone, Debug, Default)]
pub struct Bindings {
    /// By global index.
    pub of: Vec<Option<(u32, u32)>>,
    /// Counter bindings by global index.
    pub counter: FxHashMap<u32, (u32, u32)>,
}

/// True when a global is a descriptor (takes a binding).
pub fn is_descriptor(types: &Types, g: &GlobalDef) -> bool {
    match g.kind {
        GlobalKind::CBuffer { .. } => true,
        GlobalKind::Resource => !matches!(types.kind(g.ty), TyKind::Unsupported(_)),
        _ => false,
    }
}

/// `-fvk-b-shift N SPACE` and friends: binding numbers of `register(xK, spaceS)` become
/// `K + N` for register class `x` (b, t, s, u) in space `SPACE` (every space when `None`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BindingShift {
    /// The register class letter.
    pub class: char,
    /// Added to the register number.
    pub shift: u32,
    /// The space it applies to; `None` for all.
    pub space: Option<u32>,
}

/// Assigns bindings; `needs_counter[i]` says global `i` has a counter.
pub fn assign(
    types: &Types,
    globals: &[GlobalDef],
    needs_counter: &[bool],
    shifts: &[BindingShift],
) -> Bindings {
    let shifted = |class: char, n: u32, space: u32| -> u32 {
        let class = class.to_ascii_lowercase();
        let add: u32 = shifts
            .iter()
            .filter(|s| s.class == class && s.space.is_none_or(|sp| sp == space))
            .map(|s| s.shift)
            .sum();
        n.saturating_add(add)
    };
    let mut taken: FxHashSet<(u32, u32)> = FxHashSet::default();
    let mut of = vec![None; globals.len()];
    let mut globals_cbuffer = None;
    // Explicit bindings first.
    for (i, g) in globals.iter().enumerate() {
        if !is_descriptor(types, g) {
            continue;
        }
        if g.name == "$Globals" {
            globals_cbuffer = Some(i);
            continue;
        }
        let explicit = match (g.bind.vk_binding, g.bind.register) {
            (Some((b, s)), _) => Some((s, b)),
            (None, Some((c, n, s))) if n != u32::MAX => Some((s, shifted(c, n, s))),
            _ => None,
        };
        if let Some(sb) = explicit {
            of[i] = Some(sb);
            taken.insert(sb);
        }
    }
    let next_free = |taken: &mut FxHashSet<(u32, u32)>, set: u32| -> (u32, u32) {
        let mut b = 0;
        while taken.contains(&(set, b)) {
            b += 1;
        }
        taken.insert((set, b));
        (set, b)
    };
    for (i, g) in globals.iter().enumerate() {
        if !is_descriptor(types, g) || of[i].is_some() || Some(i) == globals_cbuffer {
            continue;
        }
        let set = match g.bind.register {
            Some((_, _, s)) => s,
            None => 0,
        };
        of[i] = Some(next_free(&mut taken, set));
    }
    let mut counter = FxHashMap::default();
    for (i, g) in globals.iter().enumerate() {
        if !needs_counter.get(i).copied().unwrap_or(false) {
            continue;
        }
        let set = of[i].map(|(s, _)| s).unwrap_or(0);
        let sb = match g.bind.counter_binding {
            Some(b) => {
                taken.insert((set, b));
                (set, b)
            }
            None => next_free(&mut taken, set),
        };
        counter.insert(i as u32, sb);
    }
    if let Some(i) = globals_cbuffer {
        let g = &globals[i];
        of[i] = Some(match (g.bind.vk_binding, g.bind.register) {
            (Some((b, s)), _) => (s, b),
            _ => next_free(&mut taken, 0),
        });
    }
    Bindings { of, counter }
}
