//! Descriptor set and binding numbers of resources, by DXC's default rules:
//!
//! 1. `[[vk::binding(B, S)]]` gives set `S` (the default space when omitted, even when a
//!    `register` names a space: DXC's rule), binding `B`.
//! 2. Otherwise `register(xN, spaceS)` gives set `S`, binding `N`. As in DXC, the register
//!    class letter is ignored, so `t0` and `s0` get the same binding (DXC users pass
//!    `-fvk-t-shift`-style options to separate them). The IR records each register
//!    (`hlsl_register`) and whether the user chose the binding ([`Bindings::chosen`]), so a
//!    target with another binding model (WGSL) can re-place the rest.
//! 3. Everything else gets set 0 and the lowest binding number not yet taken in set 0, in
//!    declaration order, after the explicit ones are placed.
//! 4. The counter of an append, consume or counter-using structured buffer takes
//!    `[[vk::counter_binding(N)]]`, or the next free binding of its buffer's set.
//! 5. The implicit `$Globals` constant buffer comes last in set 0.
//! 6. `-fvk-b-shift N SPACE` (and `-t-`, `-s-`, `-u-`) add `N` to the register numbers of
//!    that class in that space (`all` for every space) before rule 2 applies.
//!
//! 7. `-auto-binding-space N`: the set of everything whose set the source does not give (0
//!    otherwise).
//! 8. `-fvk-bind-register xK SPACE BINDING SET`: the resource at `register(xK, spaceSPACE)`
//!    gets that set and binding; when any is given, every resource needs a `register` with a
//!    mapping (and `$Globals` needs `-fvk-bind-globals`), as in DXC.
//! 9. `-fvk-bind-globals BINDING SET`: the binding of `$Globals`.
//! 10. `-fvk-auto-shift-bindings`: rule 3 starts each resource at its class's shift (rule 6;
//!     the class its type binds as, [`register_class`]) instead of 0.
//! 11. `-fspv-flatten-resource-arrays`: an array of `N` resources takes `N` consecutive
//!     bindings from its own (rules 1-3 and 10 reserve them all).
//!
//! 12. SM 6.6 descriptor heaps (`heaps.rs`): `ResourceDescriptorHeap` takes the next free
//!     binding of the default set after everything of rules 3 and 4, then
//!     `SamplerDescriptorHeap` (DXC's order), unless `-fvk-bind-resource-heap BINDING SET` /
//!     `-fvk-bind-sampler-heap BINDING SET` place them; every view of a heap shares its
//!     binding. The counters of the resource heap's buffers, when a counter is used on
//!     something other than a buffer global, take the next free binding after the resource
//!     heap (DXC's `counter_var_ResourceDescriptorHeap`) or `-fvk-bind-counter-heap`.
//!
//! Arrays of resources take one binding (a descriptor array).

use rustc_hash::{FxHashMap, FxHashSet};

use crate::hlsl::sema::hir::{BufKind, GlobalDef, GlobalKind, TyKind, Types};

/// Set and binding of each global (`None` for what is not a descriptor), and of each
/// counter.
#[derive(Clone, Debug, Default)]
pub struct Bindings {
    /// By global index.
    pub of: Vec<Option<(u32, u32)>>,
    /// Counter bindings by global index.
    pub counter: FxHashMap<u32, (u32, u32)>,
    /// Globals the options leave without a binding, with why (`-fvk-bind-register`).
    pub errors: Vec<(usize, String)>,
    /// By global index: the user chose the binding (`[[vk::binding]]`, a nonzero
    /// `-fvk-*-shift` of its register, `-fvk-bind-register`, `-fvk-bind-globals`) rather
    /// than DXC's default rule. Targets with another binding model keep only these.
    pub chosen: Vec<bool>,
    /// Counters whose binding `[[vk::counter_binding]]` chose, by their buffer's index.
    pub counter_chosen: FxHashSet<u32>,
    /// The counters of the buffers of `ResourceDescriptorHeap` (DXC's
    /// `counter_var_ResourceDescriptorHeap`, one array beside the heap): (set, binding) and
    /// whether `-fvk-bind-counter-heap` chose it.
    pub heap_counter: Option<((u32, u32), bool)>,
}

/// `-fvk-bind-register xK SPACE BINDING SET` (DXC): the set and binding of the resource
/// declared at `register(xK, spaceSPACE)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterBinding {
    /// The register class letter (`t`, `s`, `u`, `b`).
    pub class: char,
    /// The register number.
    pub number: u32,
    /// The register space.
    pub space: u32,
    /// The binding it gets.
    pub binding: u32,
    /// The descriptor set it gets.
    pub set: u32,
}

/// The command-line options of binding assignment.
#[derive(Clone, Copy, Debug, Default)]
pub struct BindingOptions<'a> {
    /// `-fvk-{b,t,s,u}-shift`.
    pub shifts: &'a [BindingShift],
    /// `-auto-binding-space`: the set when the source gives none (default 0).
    pub default_space: u32,
    /// `-fvk-bind-register`.
    pub registers: &'a [RegisterBinding],
    /// `-fvk-bind-globals BINDING SET`: (binding, set) of `$Globals`.
    pub globals: Option<(u32, u32)>,
    /// `-fvk-auto-shift-bindings`: a resource without a `register` takes the first free
    /// binding from its class's shift ([`register_class`]) rather than from 0.
    pub auto_shift: bool,
    /// `-fspv-flatten-resource-arrays`: an array of `N` resources takes `N` consecutive
    /// bindings (one per element, which legalization splits into globals of their own).
    pub flatten_arrays: bool,
    /// `-fvk-bind-resource-heap BINDING SET`: (binding, set) of `ResourceDescriptorHeap`.
    pub resource_heap: Option<(u32, u32)>,
    /// `-fvk-bind-sampler-heap BINDING SET`: (binding, set) of `SamplerDescriptorHeap`.
    pub sampler_heap: Option<(u32, u32)>,
    /// `-fvk-bind-counter-heap BINDING SET`: (binding, set) of the counters of the buffers of
    /// `ResourceDescriptorHeap`.
    pub counter_heap: Option<(u32, u32)>,
}

/// How many bindings a descriptor takes: 1, or under `-fspv-flatten-resource-arrays` the
/// element count of a sized resource array.
fn binding_count(types: &Types, g: &GlobalDef, flatten: bool) -> u32 {
    if !flatten {
        return 1;
    }
    let mut n: u32 = 1;
    let mut ty = g.ty;
    while let TyKind::Array(e, k) = types.kind(ty) {
        n = n.saturating_mul(*k);
        ty = *e;
    }
    n.max(1)
}

/// The register class a descriptor binds as when its source names none (`b` constant
/// buffers, `s` samplers, `u` read-write textures and buffers, `t` the rest): what
/// `-fvk-auto-shift-bindings` shifts it by and what the IR's `hlsl_register` records.
pub fn register_class(types: &Types, g: &GlobalDef) -> char {
    let mut ty = g.ty;
    while let TyKind::Array(e, _) | TyKind::UnsizedArray(e) = types.kind(ty) {
        ty = *e;
    }
    match types.kind(ty) {
        _ if matches!(g.kind, GlobalKind::CBuffer { tbuffer: false }) => 'b',
        TyKind::Buffer(BufKind::Constant, _) => 'b',
        TyKind::Sampler(_) => 's',
        TyKind::Texture(_, _, true) => 'u',
        TyKind::Buffer(k, _) if k.writable() => 'u',
        _ => 't',
    }
}

/// True when a global is a descriptor of its own (takes a binding; not one sharing another
/// global's, [`BindAttrs::shares`](crate::hlsl::sema::hir::BindAttrs::shares)).
pub fn is_descriptor(types: &Types, g: &GlobalDef) -> bool {
    if g.bind.shares.is_some() {
        return false;
    }
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

/// Assigns bindings; `needs_counter[i]` says global `i` has a counter. A global that shares
/// another's descriptor gets that one's set and binding (after the others are placed, so it
/// takes no binding of its own).
pub fn assign(
    types: &Types,
    globals: &[GlobalDef],
    needs_counter: &[bool],
    opts: &BindingOptions<'_>,
) -> Bindings {
    let mut b = assign_own(types, globals, needs_counter, opts);
    for (i, g) in globals.iter().enumerate() {
        if let Some(j) = g.bind.shares {
            let j = j.0 as usize;
            if let (Some(sb), Some(slot)) = (b.of.get(j).copied(), b.of.get_mut(i)) {
                *slot = sb;
            }
            if let Some(c) = b.chosen.get(j).copied()
                && let Some(slot) = b.chosen.get_mut(i)
            {
                *slot = c;
            }
        }
    }
    b
}

fn assign_own(
    types: &Types,
    globals: &[GlobalDef],
    needs_counter: &[bool],
    opts: &BindingOptions<'_>,
) -> Bindings {
    let shifts = opts.shifts;
    let default_space = opts.default_space;
    // The set the source gives, else the default space.
    let set_of = |s: Option<u32>| s.unwrap_or(default_space);
    if !opts.registers.is_empty() {
        return assign_by_registers(types, globals, needs_counter, opts);
    }
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
    let mut chosen = vec![false; globals.len()];
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
            (Some((b, s)), _) => {
                chosen[i] = true;
                Some((set_of(s), b))
            }
            (None, Some((c, n, s))) if n != u32::MAX => {
                let s = set_of(s);
                let b = shifted(c, n, s);
                chosen[i] = b != n;
                Some((s, b))
            }
            _ => None,
        };
        if let Some(sb) = explicit {
            of[i] = Some(sb);
            for k in 0..binding_count(types, g, opts.flatten_arrays) {
                taken.insert((sb.0, sb.1.saturating_add(k)));
            }
        }
    }
    // The first run of `count` free bindings of `set` from `from`, taken.
    let next_run = |taken: &mut FxHashSet<(u32, u32)>, set: u32, from: u32, count: u32| {
        let mut b = from;
        while (0..count).any(|k| taken.contains(&(set, b.saturating_add(k)))) {
            b += 1;
        }
        for k in 0..count {
            taken.insert((set, b.saturating_add(k)));
        }
        (set, b)
    };
    let next_free_from =
        |taken: &mut FxHashSet<(u32, u32)>, set: u32, from: u32| next_run(taken, set, from, 1);
    let next_free = |taken: &mut FxHashSet<(u32, u32)>, set: u32| next_free_from(taken, set, 0);
    for (i, g) in globals.iter().enumerate() {
        if !is_descriptor(types, g)
            || of[i].is_some()
            || Some(i) == globals_cbuffer
            || g.bind.heap.is_some()
        {
            continue;
        }
        let set = match g.bind.register {
            Some((_, _, s)) => set_of(s),
            None => default_space,
        };
        let from = if opts.auto_shift {
            let s = shifted(register_class(types, g), 0, set);
            // A shift is the user's choice of where the class goes.
            chosen[i] = s != 0;
            s
        } else {
            0
        };
        let count = binding_count(types, g, opts.flatten_arrays);
        of[i] = Some(next_run(&mut taken, set, from, count));
    }
    let mut counter = FxHashMap::default();
    let mut counter_chosen = FxHashSet::default();
    for (i, g) in globals.iter().enumerate() {
        // A heap's buffers share the heap's counter array, placed with the heap below.
        if !needs_counter.get(i).copied().unwrap_or(false) || g.bind.heap.is_some() {
            continue;
        }
        let set = of[i].map(|(s, _)| s).unwrap_or(default_space);
        let sb = match g.bind.counter_binding {
            Some(b) => {
                counter_chosen.insert(i as u32);
                taken.insert((set, b));
                (set, b)
            }
            None => next_free(&mut taken, set),
        };
        counter.insert(i as u32, sb);
    }
    // The heaps (rule 12): each one's first view; the others share it.
    let mut heap_counter = None;
    for sampler in [false, true] {
        let chosen_place = if sampler {
            opts.sampler_heap
        } else {
            opts.resource_heap
        };
        let Some(i) = globals
            .iter()
            .position(|g| g.bind.heap == Some(sampler) && g.bind.shares.is_none())
        else {
            continue;
        };
        of[i] = Some(match chosen_place {
            Some((b, s)) => {
                chosen[i] = true;
                taken.insert((s, b));
                (s, b)
            }
            None => next_free(&mut taken, default_space),
        });
        // The counters of the resource heap's buffers: the next free binding after the heap
        // (DXC's), or `-fvk-bind-counter-heap`.
        if !sampler && heap_needs_counter(globals, needs_counter) {
            heap_counter = Some(match opts.counter_heap {
                Some((b, s)) => {
                    taken.insert((s, b));
                    ((s, b), true)
                }
                None => (next_free(&mut taken, default_space), false),
            });
        }
    }
    if let Some(i) = globals_cbuffer {
        let g = &globals[i];
        of[i] = Some(match (g.bind.vk_binding, g.bind.register, opts.globals) {
            (Some((b, s)), _, _) => {
                chosen[i] = true;
                (set_of(s), b)
            }
            (None, _, Some((b, s))) => {
                chosen[i] = true;
                (s, b)
            }
            _ => next_free(&mut taken, default_space),
        });
    }
    Bindings {
        of,
        counter,
        heap_counter,
        errors: Vec::new(),
        chosen,
        counter_chosen,
    }
}

/// `-fvk-bind-register` given: every resource is placed by its register's mapping (DXC's
/// rule: no implicit bindings at all), `$Globals` by `-fvk-bind-globals`.
fn assign_by_registers(
    types: &Types,
    globals: &[GlobalDef],
    needs_counter: &[bool],
    opts: &BindingOptions<'_>,
) -> Bindings {
    let mut of = vec![None; globals.len()];
    let mut errors = Vec::new();
    for (i, g) in globals.iter().enumerate() {
        if !is_descriptor(types, g) {
            continue;
        }
        if let Some(sampler) = g.bind.heap {
            match if sampler {
                opts.sampler_heap
            } else {
                opts.resource_heap
            } {
                Some((b, s)) => of[i] = Some((s, b)),
                None => errors.push((
                    i,
                    format!(
                        "-fvk-bind-register requires `{}` to be bound with {} BINDING SET",
                        g.name,
                        if sampler {
                            "-fvk-bind-sampler-heap"
                        } else {
                            "-fvk-bind-resource-heap"
                        }
                    ),
                )),
            }
            continue;
        }
        if needs_counter.get(i).copied().unwrap_or(false) {
            errors.push((
                i,
                "-fvk-bind-register cannot bind the counter of an append, consume or \
                 counter-using structured buffer (DXC refuses it too)"
                    .to_string(),
            ));
            continue;
        }
        if g.name == "$Globals" {
            match opts.globals {
                Some((b, s)) => of[i] = Some((s, b)),
                None => errors.push((
                    i,
                    "-fvk-bind-register requires the `$Globals` buffer to be bound with \
                     -fvk-bind-globals BINDING SET"
                        .to_string(),
                )),
            }
            continue;
        }
        match g.bind.register {
            Some((c, n, s)) if n != u32::MAX => {
                let space = s.unwrap_or(opts.default_space);
                let c = c.to_ascii_lowercase();
                match opts
                    .registers
                    .iter()
                    .find(|r| r.class == c && r.number == n && r.space == space)
                {
                    Some(r) => of[i] = Some((r.set, r.binding)),
                    None => errors.push((
                        i,
                        format!(
                            "no -fvk-bind-register for `{}` at register({c}{n}, space{space})",
                            g.name
                        ),
                    )),
                }
            }
            _ => errors.push((
                i,
                format!(
                    "-fvk-bind-register requires a `register(...)` on every resource, and `{}` \
                     has none",
                    g.name
                ),
            )),
        }
    }
    if opts.counter_heap.is_none() && heap_needs_counter(globals, needs_counter) {
        let first = globals
            .iter()
            .position(|g| g.bind.heap == Some(false))
            .unwrap_or(0);
        errors.push((
            first,
            "-fvk-bind-register requires the counters of the buffers of \
             `ResourceDescriptorHeap` to be bound with -fvk-bind-counter-heap BINDING SET"
                .to_string(),
        ));
    }
    Bindings {
        chosen: vec![true; of.len()],
        of,
        counter: FxHashMap::default(),
        heap_counter: match opts.counter_heap {
            Some((b, s)) if heap_needs_counter(globals, needs_counter) => Some(((s, b), true)),
            _ => None,
        },
        errors,
        counter_chosen: FxHashSet::default(),
    }
}

/// True when a buffer of `ResourceDescriptorHeap` (a view of it) needs a counter.
fn heap_needs_counter(globals: &[GlobalDef], needs_counter: &[bool]) -> bool {
    globals
        .iter()
        .enumerate()
        .any(|(i, g)| g.bind.heap == Some(false) && needs_counter.get(i).copied().unwrap_or(false))
}
