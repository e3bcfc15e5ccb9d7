//! Which values of a function a text backend prints inline and which get a local (shared by
//! the GLSL and WGSL backends).
//!
//! A value prints inline at its use when it is used once, in the same block, writes nothing
//! and synchronizes nothing (stores, calls, atomics, barriers, image and buffer writes and
//! out-parameter intrinsics are statements), carries no `precise`, and may be moved past
//! every statement between its definition and the point its expression is evaluated
//! ([`Effects::may_reorder`]: a read does not cross a write, nothing that touches memory or
//! is convergent crosses a barrier). Address computations (`field_addr`, `element_addr`,
//! `texel_addr`) are not values: they print as l-value paths wherever they are used, so their
//! operands count as used where the address is. Every other value gets a local, declared
//! where it is defined, or at the top of the function when a use lies outside the statement
//! list of its definition (a value of an `if` arm used after the `if`, when the other arm
//! cannot reach it). Loops that a `break` leaves from inside a `switch` need a flag (a
//! `break` there leaves the switch).

use oneshader_ir::cfg::Cfg;
use oneshader_ir::constructs::{ConstructKind, Constructs};
use oneshader_ir::effects::Effects;
use oneshader_ir::{Block, Func, InstId, Module, Op};
use rustc_hash::{FxHashMap, FxHashSet};

use oneshader_ir::SlotVec;

use super::table::IdMap;

/// How a non-terminator instruction is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// A `var`: a local declared at the top of the function.
    Var,
    /// An address: printed as an l-value path where used.
    Address,
    /// Printed at its single use.
    Inline,
    /// A local holding the value.
    Named,
    /// A statement without a used result.
    Statement,
    /// A pure value nobody uses: not printed.
    Dead,
}

/// True when `i` writes memory or synchronizes ([`Effects::removable_if_unused`] is false):
/// it is a statement of its own, never printed inside another expression.
pub(crate) fn has_effect(m: &Module, i: InstId) -> bool {
    !m.effects(i).removable_if_unused()
}

/// The result of [`analyze`].
#[derive(Debug, Default)]
pub(crate) struct Roles {
    /// The role of every non-terminator instruction.
    pub roles: IdMap<Role>,
    /// Named values declared at the top of the function.
    pub hoisted: FxHashSet<InstId>,
    /// Constructs (loops) a `break` leaves from inside a switch: they need a flag.
    pub flagged_loops: Vec<usize>,
}

/// The uses of `v` as (user block, position of the user in its block), looking through
/// address instructions to where the address is used.
fn use_sites(m: &Module, v: InstId, pos: &SlotVec<u32>, out: &mut Vec<(InstId, usize)>) {
    for u in m.uses(v) {
        let user = u.user;
        if matches!(m.op(user), Op::FieldAddr | Op::ElementAddr | Op::TexelAddr) {
            use_sites(m, user, pos, out);
            continue;
        }
        if m.op(user).is_decoration() {
            continue;
        }
        let b = m.parent(user).unwrap_or(user);
        out.push((b, position(pos, user)));
    }
}

/// The position of `i` in its block ([`analyze`]'s table holds it plus one; `usize::MAX` for
/// an instruction of no block of the function).
fn position(pos: &SlotVec<u32>, i: InstId) -> usize {
    match pos.get(i) {
        Some(&k) if k > 0 => k as usize - 1,
        _ => usize::MAX,
    }
}

/// True when a use in block `u` is inside the statement list where `d`'s definitions
/// are declared.
fn in_scope(cons: &Constructs, d: Block, u: Block) -> bool {
    if d == u {
        return true;
    }
    let ds = cons.innermost(d);
    // Case bodies are brace-delimited: a value of a case reaches no other case.
    if let Some(k) = ds
        && cons.get(k).kind == ConstructKind::Switch
    {
        return false;
    }
    match (ds, cons.innermost(u)) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(a), Some(b)) => cons.encloses(a, b),
    }
}

pub(crate) fn analyze(
    m: &Module,
    f: Func,
    cons: &Constructs,
    cfg: &Cfg,
    forced: &FxHashSet<InstId>,
    needs_local: fn(&Module, InstId) -> bool,
) -> Roles {
    let blocks = f.blocks(m);
    let mut out = Roles {
        roles: IdMap::spanning(blocks.iter().flat_map(|b| m.children(b.id())), || {
            Role::Dead
        }),
        ..Roles::default()
    };
    let mut pos: SlotVec<u32> = SlotVec::new();
    // Per block, the positions of the statements that write memory and of those that
    // synchronize: what an inline value may not move past.
    let mut writes: FxHashMap<InstId, Vec<usize>> = FxHashMap::default();
    let mut barriers: FxHashMap<InstId, Vec<usize>> = FxHashMap::default();
    for &b in &blocks {
        let (mut w, mut br) = (Vec::new(), Vec::new());
        for (k, c) in m.children(b.id()).enumerate() {
            *pos.entry(c) = k as u32 + 1;
            let fx = m.effects(c);
            if fx.contains(Effects::WRITE) {
                w.push(k);
            }
            if fx.contains(Effects::BARRIER) {
                br.push(k);
            }
        }
        writes.insert(b.id(), w);
        barriers.insert(b.id(), br);
    }
    let any_in = |list: Option<&Vec<usize>>, from: usize, to: usize| {
        list.is_some_and(|l| {
            let next = l.partition_point(|&k| k <= from);
            l.get(next).is_some_and(|&k| k < to)
        })
    };
    // Where each inline value's expression is evaluated: its user's position, or where
    // its user is evaluated when that is inline too. Blocks are walked backwards so a
    // user's role is known before its operands'.
    let mut eval_at: IdMap<usize> =
        IdMap::spanning(blocks.iter().flat_map(|b| m.children(b.id())), || 0);
    // The use sites of the instruction at hand (one buffer for all).
    let mut sites: Vec<(InstId, usize)> = Vec::new();
    for &b in &blocks {
        let children: Vec<InstId> = m.children(b.id()).collect();
        for &c in children.iter().rev() {
            let op = m.op(c);
            if op == Op::Param || op.is_decoration() || op.is_terminator() {
                continue;
            }
            sites.clear();
            let role = match op {
                Op::Var => Role::Var,
                Op::FieldAddr | Op::ElementAddr | Op::TexelAddr => Role::Address,
                _ => {
                    let used = m.has_uses(c);
                    if used {
                        use_sites(m, c, &pos, &mut sites);
                    }
                    if has_effect(m, c) {
                        if used { Role::Named } else { Role::Statement }
                    } else if !used {
                        Role::Dead
                    } else if needs_local(m, c)
                        || forced.contains(&c)
                        || m.has_decoration(c, Op::Precise)
                        || sites.len() != 1
                        || sites[0].0 != b.id()
                    {
                        Role::Named
                    } else {
                        let user = sites[0].1;
                        let at = children
                            .get(user)
                            .and_then(|u| eval_at.get(u).copied())
                            .unwrap_or(user);
                        let pc = position(&pos, c);
                        let fx = m.effects(c);
                        let blocked = (fx.intersects(Effects::READ | Effects::CONVERGENT)
                            && any_in(barriers.get(&b.id()), pc, at))
                            || (fx.contains(Effects::READ) && any_in(writes.get(&b.id()), pc, at));
                        if blocked {
                            Role::Named
                        } else {
                            eval_at.insert(c, at);
                            Role::Inline
                        }
                    }
                }
            };
            out.roles.insert(c, role);
            if role == Role::Named {
                let hoist = sites
                    .iter()
                    .any(|&(ub, _)| Block::dyn_cast(m, ub).is_none_or(|ub| !in_scope(cons, b, ub)));
                if hoist {
                    out.hoisted.insert(c);
                }
            }
        }
    }
    // Loops a `break` leaves from inside a switch need a flag.
    for &b in &blocks {
        let Some(t) = b.terminator(m) else { continue };
        if !matches!(m.op(t), Op::Br | Op::CondBr) || !cfg.is_reachable(b) {
            continue;
        }
        for s in oneshader_ir::cfg::successors(m, b) {
            if let Ok(oneshader_ir::constructs::EdgeKind::Break(k)) = cons.edge(b, s) {
                let mut cur = cons.innermost(b);
                while let Some(c) = cur
                    && c != k
                {
                    if cons.get(c).kind == ConstructKind::Switch {
                        if !out.flagged_loops.contains(&k) {
                            out.flagged_loops.push(k);
                        }
                        break;
                    }
                    cur = cons.get(c).parent;
                }
            }
        }
    }
    out.flagged_loops.sort_unstable();
    out
}
