//! The structured constructs of a function: the one analysis of structured control flow that
//! the verifier, the passes and every backend share.
//!
//! A construct is declared by a structured terminator: `if_else` (a selection), `switch` and
//! `loop`. It contains the blocks its first block dominates and its join does not (SPIR-V's
//! definition of a construct): a loop contains its header, body and continue block but not
//! its break block; a selection or switch contains the blocks its header *strictly* dominates
//! and its merge does not, so the header block itself belongs to the enclosing construct, and
//! a `return` inside an arm is inside. A join leaves its construct and every construct opened
//! inside it, even when the only way to reach the join is a break from a nested selection.
//!
//! [`Constructs::edge`] classifies each control-flow edge as a structured exit (the end of a
//! selection arm, a `break`, a `continue`, a loop's back edge, a `break` out of a switch) or
//! as an edge that stays inside; an edge that is none of these is a [`BadEdge`], which the
//! verifier reports (OSV0025). [`Constructs::join_conflicts`] finds blocks that are the join of
//! more than one construct in a way the IR does not allow (OSV0024).
//!
//! Text backends rebuild `if`/`switch`/loop statements from the same analysis.

use smallvec::SmallVec;

use crate::cfg::Cfg;
use crate::inst_table::InstTable;
use crate::module::{InstId, Module};
use crate::ops::Op;
use crate::structure::{Block, Func};

/// No construct (end of an intrusive list).
const NO_CONSTRUCT: u32 = u32::MAX;

/// The constructs of the intrusive list starting at `head`.
fn linked(head: u32, next: &[u32]) -> impl Iterator<Item = usize> + '_ {
    std::iter::successors((head != NO_CONSTRUCT).then_some(head), move |&k| {
        let x = next[k as usize];
        (x != NO_CONSTRUCT).then_some(x)
    })
    .map(|k| k as usize)
}

/// The kind of a structured construct.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConstructKind {
    /// An `if_else` and its merge.
    Selection,
    /// A `switch` and its merge.
    Switch,
    /// A `loop`: header, body, continue block, and break block.
    Loop,
}

/// One structured construct of a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Construct {
    /// What kind of construct.
    pub kind: ConstructKind,
    /// The structured terminator that declares it.
    pub term: InstId,
    /// The block that ends in `term` (a selection's header, a loop's pre-header).
    pub declared_in: Block,
    /// The first block inside: the loop header for a loop, `declared_in` otherwise.
    pub entry: Block,
    /// The merge (selection, switch) or break (loop) block.
    pub join: Block,
    /// The continue block of a loop.
    pub cont: Option<Block>,
    /// The innermost construct that contains this one.
    pub parent: Option<usize>,
}

/// What a control-flow edge does with respect to the constructs (see [`Constructs::edge`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeKind {
    /// The target is in every construct the source is in: the edge stays inside (it may
    /// enter a construct the source's terminator declares, through that construct's first
    /// block, or branch to the merge of a selection the source declares).
    Inside,
    /// The end of an arm: the target is the merge of construct `k`, a selection or switch that
    /// is the innermost construct of the source, and the edge leaves only `k`.
    Merge(usize),
    /// `break`: the target is the break block of loop `k`, the innermost loop of the source;
    /// the edge leaves `k` and the selections and switches nested in it.
    Break(usize),
    /// `continue`: the target is the continue block of loop `k`, the innermost loop of the
    /// source; the edge leaves only selections and switches nested in `k`.
    Continue(usize),
    /// The back edge of loop `k`: from its continue block to its header.
    BackEdge(usize),
    /// `break` out of switch `k`, the innermost switch of the source with no loop between:
    /// the target is the switch's merge and the edge leaves selections nested in the switch.
    SwitchBreak(usize),
}

/// Why an edge breaks the structured rules (see [`Constructs::edge`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadEdge {
    /// The edge enters construct `k` other than through the block its declaration names.
    Enters(usize),
    /// The edge leaves construct `k` (the outermost one it leaves) to a block that is not a
    /// structured exit of it: it bypasses a merge, or leaves a loop other than to its break
    /// block.
    Leaves(usize),
    /// The edge goes back to an earlier block (in reverse post-order) and is not a loop's back
    /// edge: a cycle that is not a structured loop.
    Backward,
}

/// The structured constructs of a function and, for each block, the innermost one that
/// contains it. See the module documentation for what a construct contains.
#[derive(Clone, Debug)]
pub struct Constructs {
    /// The structural CFG the constructs are defined by ([`Cfg::structural`]).
    cfg: Cfg,
    list: Vec<Construct>,
    /// Nesting depth of each construct (0: not inside another).
    depth: Vec<u32>,
    /// Dense tables over the function's slot window: blocks and terminators are visited in
    /// about block order, which is about slot order, so on a large function these stay
    /// cache-friendly where a hash map is one miss per lookup.
    innermost: InstTable<u32>,
    by_term: InstTable<u32>,
    /// The loop whose header a block is.
    by_header: InstTable<u32>,
}

impl Constructs {
    /// Analyzes `func` (its current state: this is a snapshot).
    pub fn new(m: &Module, func: Func) -> Constructs {
        let scfg = Cfg::structural(m, func);
        let cfg = &scfg;
        let mut list: Vec<Construct> = Vec::new();
        for &b in cfg.blocks() {
            if !cfg.is_reachable(b) {
                continue;
            }
            let Some(t) = b.terminator(m) else { continue };
            // Join operands name blocks in a well-formed module (OSV0005); a malformed
            // structured terminator is skipped.
            let block_at = |i: usize| m.try_operand(t, i).and_then(|v| Block::dyn_cast(m, v));
            let (kind, entry, join, cont) = match m.op(t) {
                Op::IfElse => match block_at(3) {
                    Some(j) => (ConstructKind::Selection, b, j, None),
                    None => continue,
                },
                Op::Switch => match block_at(1) {
                    Some(j) => (ConstructKind::Switch, b, j, None),
                    None => continue,
                },
                Op::Loop => match (block_at(0), block_at(1), block_at(2)) {
                    (Some(h), Some(j), Some(c)) => (ConstructKind::Loop, h, j, Some(c)),
                    _ => continue,
                },
                _ => continue,
            };
            list.push(Construct {
                kind,
                term: t,
                declared_in: b,
                entry,
                join,
                cont,
                parent: None,
            });
        }
        // Per block number: the constructs joining, opening a loop, or opening a selection
        // there, as intrusive lists (head per block, next per construct).
        let n = cfg.blocks().len();
        let mut join_head = vec![NO_CONSTRUCT; n];
        let mut loop_head = vec![NO_CONSTRUCT; n];
        let mut sel_head = vec![NO_CONSTRUCT; n];
        let mut join_next = vec![NO_CONSTRUCT; list.len()];
        let mut open_next = vec![NO_CONSTRUCT; list.len()];
        // Pushed in reverse so each list runs in construct order.
        for (i, c) in list.iter().enumerate().rev() {
            if let Some(j) = cfg.index_of(c.join) {
                join_next[i] = join_head[j];
                join_head[j] = i as u32;
            }
            if let Some(e) = cfg.index_of(c.entry) {
                let head = if c.kind == ConstructKind::Loop {
                    &mut loop_head[e]
                } else {
                    &mut sel_head[e]
                };
                open_next[i] = *head;
                *head = i as u32;
            }
        }
        let mut innermost: InstTable<u32> = InstTable::new();
        // The constructs open at the current block, outermost first, and each one's position
        // in that stack. Reaching a construct's join closes it and every construct opened
        // inside it (a break out of a nested selection may be the only way in, which makes
        // the join dominated by that selection's header): the stack is cut there, and the
        // cut part is restored when the walk leaves the join's dominator subtree.
        let mut open: Vec<usize> = Vec::new();
        let mut pos_of: Vec<Option<usize>> = vec![None; list.len()];
        enum Ev {
            Enter(Block),
            Exit(usize, SmallVec<[usize; 4]>),
        }
        if let Some(entry) = cfg.entry() {
            let mut stack = vec![Ev::Enter(entry)];
            while let Some(ev) = stack.pop() {
                match ev {
                    Ev::Exit(base, removed) => {
                        for k in open.drain(base..) {
                            pos_of[k] = None;
                        }
                        for k in removed {
                            pos_of[k] = Some(open.len());
                            open.push(k);
                        }
                    }
                    Ev::Enter(b) => {
                        let Some(bi) = cfg.index_of(b) else { continue };
                        let mut removed: SmallVec<[usize; 4]> = SmallVec::new();
                        let cut = linked(join_head[bi], &join_next)
                            .filter_map(|k| pos_of[k])
                            .min();
                        if let Some(cut) = cut {
                            for k in open.drain(cut..) {
                                pos_of[k] = None;
                                removed.push(k);
                            }
                        }
                        let base = open.len();
                        for k in linked(loop_head[bi], &open_next) {
                            list[k].parent = open.last().copied();
                            pos_of[k] = Some(open.len());
                            open.push(k);
                        }
                        if let Some(&k) = open.last() {
                            innermost.insert(b.id(), k as u32);
                        }
                        for k in linked(sel_head[bi], &open_next) {
                            list[k].parent = open.last().copied();
                            pos_of[k] = Some(open.len());
                            open.push(k);
                        }
                        stack.push(Ev::Exit(base, removed));
                        for c in cfg.dom_children(b).rev() {
                            stack.push(Ev::Enter(c));
                        }
                    }
                }
            }
        }
        // Parents precede children in `list` only when declared in block order, so depths
        // are computed by walking up (nesting is shallow).
        let depth = (0..list.len())
            .map(|k| {
                let mut d = 0u32;
                let mut cur = list[k].parent;
                while let Some(p) = cur {
                    d += 1;
                    cur = list[p].parent;
                }
                d
            })
            .collect();
        let by_header = list
            .iter()
            .enumerate()
            .filter(|(_, c)| c.kind == ConstructKind::Loop)
            .map(|(i, c)| (c.entry.id(), i as u32))
            .collect();
        Constructs {
            cfg: scfg,
            by_term: list
                .iter()
                .enumerate()
                .map(|(i, c)| (c.term, i as u32))
                .collect(),
            depth,
            list,
            innermost,
            by_header,
        }
    }

    /// The structural CFG the constructs were computed from ([`Cfg::structural`]): its
    /// dominator tree is SPIR-V's structural dominance. Blocks that only a join operand names
    /// (a merge after two returns) are reachable in it.
    pub fn cfg(&self) -> &Cfg {
        &self.cfg
    }

    /// The index of the construct a structured terminator declares.
    pub fn index_of_term(&self, term: InstId) -> Option<usize> {
        self.by_term.get(term).map(|&k| k as usize)
    }

    /// The loop whose header is `b`.
    pub fn loop_of_header(&self, b: Block) -> Option<usize> {
        self.by_header.get(b.id()).map(|&k| k as usize)
    }

    /// Every construct, in block order of the blocks that declare them.
    pub fn list(&self) -> &[Construct] {
        &self.list
    }

    /// Construct number `i`.
    pub fn get(&self, i: usize) -> &Construct {
        &self.list[i]
    }

    /// How many constructs enclose construct `k` (0 at the top level).
    pub fn depth(&self, k: usize) -> usize {
        self.depth[k] as usize
    }

    /// The innermost construct containing `b` (`None` at the top level or when unreachable).
    pub fn innermost(&self, b: Block) -> Option<usize> {
        self.innermost.get(b.id()).map(|&k| k as usize)
    }

    /// The innermost construct containing `b` that satisfies `pred`.
    pub fn innermost_where(
        &self,
        b: Block,
        mut pred: impl FnMut(&Construct) -> bool,
    ) -> Option<usize> {
        let mut cur = self.innermost(b);
        while let Some(k) = cur {
            if pred(&self.list[k]) {
                return Some(k);
            }
            cur = self.list[k].parent;
        }
        None
    }

    /// The innermost loop containing `b`.
    pub fn innermost_loop(&self, b: Block) -> Option<usize> {
        self.innermost_where(b, |c| c.kind == ConstructKind::Loop)
    }

    /// The innermost loop enclosing construct `k` (not `k` itself).
    pub fn enclosing_loop(&self, k: usize) -> Option<usize> {
        let mut cur = self.list[k].parent;
        while let Some(p) = cur {
            if self.list[p].kind == ConstructKind::Loop {
                return Some(p);
            }
            cur = self.list[p].parent;
        }
        None
    }

    /// The constructs containing `b`, innermost first.
    pub fn chain(&self, b: Block) -> Vec<usize> {
        let mut out = Vec::new();
        let mut cur = self.innermost(b);
        while let Some(k) = cur {
            out.push(k);
            cur = self.list[k].parent;
        }
        out
    }

    /// True when construct `outer` is `inner` or encloses it.
    pub fn encloses(&self, outer: usize, inner: usize) -> bool {
        let mut cur = Some(inner);
        while let Some(k) = cur {
            if k == outer {
                return true;
            }
            if self.depth[k] <= self.depth[outer] {
                return false;
            }
            cur = self.list[k].parent;
        }
        false
    }

    /// The innermost construct enclosing both `a` and `b` (either may be `None`: top level).
    fn common(&self, mut a: Option<usize>, mut b: Option<usize>) -> Option<usize> {
        let depth = |k: Option<usize>| k.map(|k| self.depth[k] as i64).unwrap_or(-1);
        while a != b {
            if depth(a) >= depth(b) {
                a = a.and_then(|k| self.list[k].parent);
            } else {
                b = b.and_then(|k| self.list[k].parent);
            }
        }
        a
    }

    /// Classifies the edge `from -> to` (`to` a successor of `from`, both reachable) against
    /// SPIR-V's structured rules, which the IR keeps (docs/ir-ops.md, OSV0025):
    ///
    /// - an edge back to an earlier block in reverse post-order must be a loop's back edge;
    /// - an edge may enter a construct only from the block that declares it (a selection's
    ///   arms from its header, a loop's header from its pre-header);
    /// - an edge may leave constructs only as the end of an arm (to the merge of the one
    ///   selection or switch it leaves), as a `break` (to the break block of the innermost
    ///   loop), as a `continue` (to the continue block of the innermost loop), or as a `break`
    ///   out of the innermost switch (to its merge, with no loop in between).
    pub fn edge(&self, from: Block, to: Block) -> Result<EdgeKind, BadEdge> {
        let cfg = &self.cfg;
        if let (Some(rf), Some(rt)) = (cfg.rpo_number(from), cfg.rpo_number(to))
            && rt <= rf
        {
            return match self.loop_of_header(to) {
                Some(l) if self.list[l].cont == Some(from) => Ok(EdgeKind::BackEdge(l)),
                _ => Err(BadEdge::Backward),
            };
        }
        let src = self.innermost(from);
        let dst = self.innermost(to);
        let lca = self.common(src, dst);
        // Constructs containing `to` but not `from`: only the one `from` declares.
        let mut cur = dst;
        while cur != lca {
            let Some(k) = cur else { break };
            let c = &self.list[k];
            let through_entry =
                c.declared_in == from && (c.kind != ConstructKind::Loop || c.entry == to);
            if !through_entry {
                return Err(BadEdge::Enters(k));
            }
            cur = c.parent;
        }
        // Constructs containing `from` but not `to`, innermost first.
        let mut left: SmallVec<[usize; 4]> = SmallVec::new();
        let mut cur = src;
        while cur != lca {
            let Some(k) = cur else { break };
            left.push(k);
            cur = self.list[k].parent;
        }
        let Some(&outer) = left.last() else {
            return Ok(EdgeKind::Inside);
        };
        let loops_left = left
            .iter()
            .filter(|&&k| self.list[k].kind == ConstructKind::Loop)
            .count();
        // `continue`: the continue block is inside its loop, so the loop is not left.
        if loops_left == 0
            && let Some(l) = self.innermost_loop(from)
            && self.list[l].cont == Some(to)
        {
            return Ok(EdgeKind::Continue(l));
        }
        let c = &self.list[outer];
        if c.join != to {
            return Err(BadEdge::Leaves(outer));
        }
        match c.kind {
            ConstructKind::Loop if loops_left == 1 => Ok(EdgeKind::Break(outer)),
            ConstructKind::Switch if loops_left == 0 => {
                if left.len() == 1 {
                    Ok(EdgeKind::Merge(outer))
                } else {
                    Ok(EdgeKind::SwitchBreak(outer))
                }
            }
            ConstructKind::Selection if left.len() == 1 => Ok(EdgeKind::Merge(outer)),
            _ => Err(BadEdge::Leaves(outer)),
        }
    }

    /// Blocks that are the join (merge, break or continue block) of two constructs in a way
    /// the IR does not allow (OSV0024), as `(block, first construct, second construct)`.
    ///
    /// Allowed: a selection or switch whose merge is the break or continue block of the
    /// innermost loop enclosing it (the natural shape of `if (c) { ... }` at the end of a loop
    /// body; legalization gives it a merge block of its own before any backend runs). Every
    /// other block is the join of at most one construct.
    pub fn join_conflicts(&self) -> Vec<(Block, usize, usize)> {
        let mut by_block: rustc_hash::FxHashMap<InstId, SmallVec<[usize; 2]>> =
            rustc_hash::FxHashMap::default();
        for (k, c) in self.list.iter().enumerate() {
            by_block.entry(c.join.id()).or_default().push(k);
            if let Some(cont) = c.cont {
                by_block.entry(cont.id()).or_default().push(k);
            }
        }
        let mut out = Vec::new();
        for ks in by_block.values_mut() {
            // A loop naming one block as both break and continue block is OSV0011's.
            ks.dedup();
            if ks.len() < 2 {
                continue;
            }
            let loops: SmallVec<[usize; 2]> = ks
                .iter()
                .copied()
                .filter(|&k| self.list[k].kind == ConstructKind::Loop)
                .collect();
            let block = {
                let c = &self.list[ks[0]];
                if ks.iter().all(|&k| self.list[k].join == c.join) {
                    c.join
                } else {
                    // The shared block is a continue block of some loop in the list.
                    let l = loops[0];
                    self.list[l].cont.unwrap_or(c.join)
                }
            };
            if loops.len() > 1 {
                out.push((block, loops[0], loops[1]));
                continue;
            }
            match loops.first() {
                Some(&l) => {
                    for &k in ks.iter().filter(|&&k| k != l) {
                        if self.enclosing_loop(k) != Some(l) {
                            out.push((block, l, k));
                        }
                    }
                }
                None => out.push((block, ks[0], ks[1])),
            }
        }
        out.sort_by_key(|&(b, x, y)| (self.list[x.min(y)].term, b.id()));
        out
    }
}
