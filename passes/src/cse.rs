//! `cse`: common-subexpression elimination along the dominator tree.
//!
//! Walking the dominator tree in pre-order with a scoped table, an instruction equal to one
//! already seen in a dominating position (same opcode, type, operands and `precise`-ness) is
//! replaced by it. Candidates are the instructions without effects ([`oneshader_ir::effects`]
//! decides): arithmetic, comparisons, conversions, composite operations, `select`, address
//! computations, intrinsics that neither touch memory nor depend on other invocations, and
//! reads of memory nobody writes while a shader runs (constant buffers, resources, stage
//! inputs, push constants). Never `var` (each is its own storage), calls, derivatives, wave
//! and quad operations, other reads, or anything that writes.
//! Operands of commutative integer and `bool` operators are compared as an unordered pair
//! (not for floats: which NaN payload comes out may depend on the order).

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;
use smallvec::SmallVec;

use oneshader_ir::{Block, Func, InstId, Module, Op};

use crate::analyses::FunctionAnalyses;
use crate::semantics::Scalar;
use crate::{FunctionPass, Pass, PassError, run_per_function};

/// The `cse` pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cse;

impl Pass for Cse {
    fn name(&self) -> &'static str {
        "cse"
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        run_per_function(self, m)
    }

    fn as_function_pass(&mut self) -> Option<&mut dyn FunctionPass> {
        Some(self)
    }
}

impl FunctionPass for Cse {
    fn run_on_function(
        &mut self,
        m: &mut Module,
        f: Func,
        analyses: &mut FunctionAnalyses,
    ) -> Result<bool, PassError> {
        Ok(cse_with(m, f, analyses))
    }

    /// Only instructions go; blocks and edges stay.
    fn keeps_analyses(&self) -> bool {
        true
    }
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    op: Op,
    ty: Option<InstId>,
    operands: SmallVec<[InstId; 4]>,
    precise: bool,
}

/// True when `i` may be merged with an equal instruction that dominates it: an instruction
/// without effects ([`oneshader_ir::Effects::is_pure`]), which covers reads of memory nobody
/// writes while the shader runs.
pub fn is_cse_candidate(m: &Module, i: InstId) -> bool {
    m.op(i).is_instruction() && m.effects(i).is_pure()
}

fn key_of(m: &Module, i: InstId) -> Key {
    let op = m.op(i);
    let mut operands: SmallVec<[InstId; 4]> = m.operands(i).collect();
    let commutative = matches!(
        op,
        Op::Add | Op::Mul | Op::And | Op::Or | Op::Xor | Op::Eq | Op::Ne
    );
    if commutative && operands.len() == 2 {
        let s = m
            .ty(operands[0])
            .and_then(|t| m.scalar_of(t))
            .and_then(|t| Scalar::of(m, t));
        if s.is_some_and(|s| !s.is_float()) && operands[1] < operands[0] {
            operands.swap(0, 1);
        }
    }
    Key {
        op,
        ty: m.ty(i),
        operands,
        precise: m.has_decoration(i, Op::Precise),
    }
}

/// Runs `cse` on one function; true when it changed anything.
///
/// The scoped table holds `(hash, instruction)` pairs and compares candidates by reading the
/// instructions back: along a long dominator chain it holds most of the function, so its
/// entries are kept to 16 bytes rather than owning a copy of every key.
pub fn cse_function(m: &mut Module, f: Func) -> bool {
    cse_with(m, f, &mut FunctionAnalyses::new())
}

/// [`cse_function`] with the function's cached dominator tree.
fn cse_with(m: &mut Module, f: Func, analyses: &mut FunctionAnalyses) -> bool {
    let cfg = analyses.cfg(m, f);
    let Some(entry) = cfg.entry() else {
        return false;
    };
    let hasher = FxBuildHasher;
    let mut table: HashTable<(u64, InstId)> = HashTable::new();
    // Undo log: the entries added in the dominator subtrees being visited, removed on exit.
    let mut undo: Vec<(u64, InstId)> = Vec::new();
    enum Visit {
        Enter(Block),
        Exit(usize),
    }
    let mut stack = vec![Visit::Enter(entry)];
    let mut changed = false;
    while let Some(v) = stack.pop() {
        match v {
            Visit::Exit(mark) => {
                for (hash, added) in undo.drain(mark..) {
                    if let Ok(e) = table.find_entry(hash, |&(_, x)| x == added) {
                        e.remove();
                    }
                }
            }
            Visit::Enter(b) => {
                stack.push(Visit::Exit(undo.len()));
                let mut next = m.first_child(b.id());
                while let Some(i) = next {
                    // Read before `i` may be removed.
                    next = m.next_sibling(i);
                    if !is_cse_candidate(m, i) {
                        continue;
                    }
                    let key = key_of(m, i);
                    let hash = hasher.hash_one(&key);
                    // An entry removed from the module since (by an earlier replacement's
                    // cascade) never matches.
                    let existing = table
                        .find(hash, |&(h, x)| {
                            h == hash && m.contains(x) && key_of(m, x) == key
                        })
                        .map(|&(_, x)| x);
                    match existing {
                        Some(existing) => {
                            m.replace_uses_with(i, existing);
                            // No uses are left after the replacement.
                            let _ = m.remove(i);
                            changed = true;
                        }
                        None => {
                            table.insert_unique(hash, (hash, i), |&(h, _)| h);
                            undo.push((hash, i));
                        }
                    }
                }
                for c in cfg.dom_children(b).rev() {
                    stack.push(Visit::Enter(c));
                }
            }
        }
    }
    changed
}
