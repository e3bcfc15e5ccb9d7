//! `own_merges`: gives every selection and switch a merge block of its own.
//!
//! The IR lets a selection or switch merge into the break or continue block of the innermost
//! loop around it (the natural shape of `if (c) { ... }` at the end of a loop body, OSV0024),
//! but SPIR-V gives each merge block to one construct, and a text backend that rebuilds
//! statements needs the merge to be where the `if` ends, not the loop's continuing part.
//! Such a construct gets a fresh block as its merge operand, holding only `unreachable`;
//! every edge that went to the shared block still goes there, and is now a structured
//! `break` or `continue` out of the selection ([`oneshader_ir::constructs::EdgeKind`]).
//! Block parameters of the shared block keep all their incoming edges, so no value moves.
//!
//! This is the shape DXC and glslang emit for `if (c) { ...; continue; } else { ...;
//! continue; }`: a merge block no path reaches. It runs before every backend
//! ([`crate::legalize`]); [`has_shared_merges`] is the check the backends' boundary runs.

use oneshader_ir::constructs::{ConstructKind, Constructs};
use oneshader_ir::{Block, Builder, Func, InstId, Module, Op};

use crate::{Pass, PassError};

/// The pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct OwnMerges;

/// Selection and switch terminators of `f` whose merge block is also the break or continue
/// block of a loop (the only sharing the verifier allows), with their merge operand index.
fn sharing(m: &Module, f: Func) -> Vec<(InstId, usize)> {
    let cons = Constructs::new(m, f);
    let mut out = Vec::new();
    for (k, c) in cons.list().iter().enumerate() {
        if c.kind == ConstructKind::Loop {
            continue;
        }
        let Some(l) = cons.enclosing_loop(k) else {
            continue;
        };
        let l = cons.get(l);
        if l.join == c.join || l.cont == Some(c.join) {
            let slot = if c.kind == ConstructKind::Selection {
                3
            } else {
                1
            };
            out.push((c.term, slot));
        }
    }
    out
}

/// True when some selection or switch of `m` merges into a loop's break or continue block:
/// the module needs [`OwnMerges`] before a backend may read it.
pub fn has_shared_merges(m: &Module) -> Option<InstId> {
    m.functions()
        .into_iter()
        .filter(|f| !f.is_declaration(m))
        .find_map(|f| sharing(m, f).first().map(|&(t, _)| t))
}

/// Gives every selection or switch of `f` that merges into a loop's break or continue block
/// a fresh merge block. Returns how many it changed.
pub fn own_merges(m: &mut Module, f: Func) -> usize {
    let shared = sharing(m, f);
    for &(term, slot) in &shared {
        let Some(header) = m.block_of(term) else {
            continue;
        };
        // The fresh block goes right after the header: only the header names it, and
        // placing it there keeps the printed function in the order a reader expects.
        let merge: Block = m.add_block_after(header);
        Builder::at_end(m, merge).emit(Op::Unreachable, None, &[]);
        m.replace_operand(term, slot, merge.id());
    }
    shared.len()
}

impl Pass for OwnMerges {
    fn name(&self) -> &'static str {
        "own_merges"
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        for f in m.functions() {
            if !f.is_declaration(m) {
                changed |= own_merges(m, f) > 0;
            }
        }
        Ok(changed)
    }

    fn idempotent(&self) -> bool {
        true
    }
}
