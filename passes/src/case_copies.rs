//! `case_copies`: no switch case falls through to another (WGSL's rule: its cases never fall
//! through, every case ends on its own).
//!
//! A case that falls into the next one (an edge from a block of the case to another case
//! target of the same switch) gets a copy of the case it falls into: the blocks of that case
//! (every block reached from its target inside the switch, up to the merge and the other
//! case targets, with the merge blocks of the constructs inside it) are cloned, and the
//! edges of the falling case go to the copy. A copy that falls through itself is handled
//! the same way on the next round, so a chain of fall-throughs ends as a chain of copies;
//! the original cases stay where they were, reached from the switch alone.
//!
//! A value defined in the copied case and used after it (in the merge, or later: possible
//! only when the case dominates the merge) would lose its single definition; it is first
//! demoted to a function-local variable (a `var` at the top of the entry block, a `store` at
//! the end of the defining block, a `load` before each use outside the case), which both the
//! case and its copy store. A pointer cannot be held in a variable (logical addressing): such
//! a value is refused ([`PassError::refusal`] with [`CODE`], OSG0008, at the HLSL position of
//! the pointer or of its first use after the case when the IR records one).
//!
//! It runs in `legalize(wgsl)` after `params_to_vars` (so no block parameter is copied);
//! [`first_fallthrough`] is the check the backends' boundary runs for WGSL (OSG0007).

use rustc_hash::FxHashSet;

use oneshader_ir::cfg::successors;
use oneshader_ir::constructs::{ConstructKind, Constructs};
use oneshader_ir::diag::Diagnostic;
use oneshader_ir::{Block, Builder, Func, InstId, Module, Op, Slot};

use crate::clone::Cloner;
use crate::params_to_vars::var_anchor;
use crate::{Pass, PassError};

const NAME: &str = "case_copies";

/// The refusal of a pointer defined in a copied case and used after the switch
/// (legalize.rs's table).
pub const CODE: &str = "OSG0008";

/// How many copies one function may need before the pass gives up (a chain of `n`
/// fall-throughs needs `n * (n + 1) / 2` copies at most; this bounds pathological input).
const MAX_COPIES: usize = 4096;

/// The pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct CaseCopies;

/// The distinct case targets (default included) of switch terminator `t`.
fn case_targets(m: &Module, t: InstId) -> Vec<Block> {
    let mut out = vec![Block::cast(m, m.operand(t, 2))];
    let mut i = 3;
    while i + 1 < m.num_operands(t) {
        let b = Block::cast(m, m.operand(t, i + 1));
        if !out.contains(&b) {
            out.push(b);
        }
        i += 2;
    }
    out
}

/// The blocks of the case of switch `k` starting at `start`, in the function's block order:
/// every block reached from `start` through terminator operands (merge operands included)
/// that is inside the switch (or reached by no edge: a merge only a terminator names), other
/// than the switch's merge and its case targets.
fn case_blocks(
    m: &Module,
    f: Func,
    cons: &Constructs,
    k: usize,
    start: Block,
    targets: &[Block],
) -> Vec<Block> {
    let join = cons.get(k).join;
    let mut seen: FxHashSet<Block> = FxHashSet::default();
    seen.insert(start);
    let mut work = vec![start];
    while let Some(b) = work.pop() {
        for s in successors(m, b) {
            if s == join || targets.contains(&s) || seen.contains(&s) {
                continue;
            }
            let inside = match cons.innermost(s) {
                Some(i) => cons.encloses(k, i),
                None => !cons.cfg().is_reachable(s),
            };
            if inside {
                seen.insert(s);
                work.push(s);
            }
        }
    }
    f.blocks(m)
        .into_iter()
        .filter(|b| seen.contains(b))
        .collect()
}

/// One fall-through: the blocks of the falling case whose terminators name `into`, another
/// case target of the same switch, and the switch.
struct Fall {
    from: Vec<Block>,
    into: Block,
    switch: usize,
    targets: Vec<Block>,
}

/// The first fall-through of `f`, if any.
fn find_fall(m: &Module, f: Func, cons: &Constructs) -> Option<Fall> {
    for (k, c) in cons.list().iter().enumerate() {
        if c.kind != ConstructKind::Switch {
            continue;
        }
        let targets = case_targets(m, c.term);
        for &t in &targets {
            if t == c.join {
                continue;
            }
            let blocks = case_blocks(m, f, cons, k, t, &targets);
            for &into in &targets {
                if into == t || into == c.join {
                    continue;
                }
                let from: Vec<Block> = blocks
                    .iter()
                    .copied()
                    .filter(|&b| successors(m, b).contains(&into))
                    .collect();
                if !from.is_empty() {
                    return Some(Fall {
                        from,
                        into,
                        switch: k,
                        targets,
                    });
                }
            }
        }
    }
    None
}

/// The first block of a function of `m` with a switch case falling into another case, if any:
/// the module needs [`CaseCopies`] before the WGSL backend may read it.
pub fn first_fallthrough(m: &Module) -> Option<Block> {
    m.functions()
        .into_iter()
        .filter(|f| !f.is_declaration(m))
        .find_map(|f| {
            let cons = Constructs::new(m, f);
            find_fall(m, f, &cons).and_then(|fall| fall.from.first().copied())
        })
}

/// Demotes the values defined in `blocks` and used outside them to variables (module docs).
fn demote_escaping(m: &mut Module, f: Func, blocks: &[Block]) -> Result<(), PassError> {
    let set: FxHashSet<InstId> = blocks.iter().map(|b| b.id()).collect();
    let Some(entry) = f.entry(m) else {
        return Ok(());
    };
    for &b in blocks {
        for v in m.children_snapshot(b.id()) {
            if m.ty(v).is_none() || m.op(v).is_decoration() {
                continue;
            }
            let outside: Vec<(InstId, usize)> = m
                .uses(v)
                .filter_map(|u| match u.slot {
                    Slot::Operand(i) => Some((u.user, i as usize)),
                    Slot::Type => None,
                })
                .filter(|&(user, _)| {
                    m.parent(user)
                        .is_some_and(|p| m.op(p) == Op::Block && !set.contains(&p))
                })
                .collect();
            if outside.is_empty() {
                continue;
            }
            // Typed above.
            let Some(ty) = m.ty(v) else { continue };
            if m.op(ty) == Op::Ptr {
                // At the pointer's source position, or at its first use after the case.
                let span = m
                    .src_span(v)
                    .or_else(|| outside.iter().find_map(|&(user, _)| m.src_span(user)));
                let d = Diagnostic::error(
                    CODE,
                    format!(
                        "`{}` is a pointer defined in a switch case another case falls into \
                         and used after the switch; WGSL cases cannot fall through, and the \
                         copy of the case that replaces the fall-through cannot hand the \
                         pointer on (a pointer cannot be held in a variable)",
                        oneshader_ir::print::print_inst(m, v)
                    ),
                )
                .with_opt_span(span)
                .with_note(
                    "end the case with a `break` (repeating the code of the case it fell into), \
                     or compute the buffer element's address again after the switch",
                );
                return Err(PassError::refusal(NAME, d));
            }
            let Some(term) = b.terminator(m) else {
                return Err(PassError::new(NAME, "a block without a terminator"));
            };
            let anchor = var_anchor(m, entry);
            let mut bld = Builder::new(m);
            match anchor {
                Some(a) => bld.position_before(a),
                None => bld.position_at_end(entry),
            }
            let var = bld.var(ty);
            let name = m.name(v).map(str::to_string);
            m.set_name(var, name.as_deref());
            let mut bld = Builder::new(m);
            bld.position_before(term);
            bld.store(var, v);
            for (user, i) in outside {
                let mut bld = Builder::new(m);
                bld.position_before(user);
                let l = bld.load(var);
                m.set_name(l, name.as_deref());
                m.set_operand(user, i, l)
                    .map_err(|e| PassError::new(NAME, format!("{e:?}")))?;
            }
        }
    }
    Ok(())
}

/// Copies cases of `f` until none falls through. Returns how many copies it made.
pub fn case_copies(m: &mut Module, f: Func) -> Result<usize, PassError> {
    let mut copies = 0;
    loop {
        let cons = Constructs::new(m, f);
        let Some(fall) = find_fall(m, f, &cons) else {
            return Ok(copies);
        };
        if copies == MAX_COPIES {
            return Err(PassError::new(
                NAME,
                format!("more than {MAX_COPIES} switch cases to copy in one function"),
            ));
        }
        let blocks = case_blocks(m, f, &cons, fall.switch, fall.into, &fall.targets);
        demote_escaping(m, f, &blocks)?;
        // The copy goes just before the case it copies, after the case falling into it.
        let after = m
            .prev_sibling(fall.into.id())
            .and_then(|p| Block::dyn_cast(m, p));
        let mut cl = Cloner::new();
        let copy = cl
            .clone_blocks(m, &blocks, f, after)
            .map_err(|e| PassError::new(NAME, e.to_string()))?;
        let Some(&first) = copy.first() else {
            return Err(PassError::new(NAME, "an empty switch case to copy"));
        };
        let first = if blocks.first() == Some(&fall.into) {
            first
        } else {
            cl.get(fall.into.id())
                .and_then(|b| Block::dyn_cast(m, b))
                .ok_or_else(|| PassError::new(NAME, "the copied case lost its first block"))?
        };
        for b in fall.from {
            let Some(t) = b.terminator(m) else { continue };
            for i in 0..m.num_operands(t) {
                if m.operand(t, i) == fall.into.id() {
                    m.set_operand(t, i, first.id())
                        .map_err(|e| PassError::new(NAME, format!("{e:?}")))?;
                }
            }
        }
        copies += 1;
    }
}

impl Pass for CaseCopies {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        for f in m.functions() {
            if !f.is_declaration(m) {
                changed |= case_copies(m, f)? > 0;
            }
        }
        Ok(changed)
    }
}
