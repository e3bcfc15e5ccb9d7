//! The control-flow graph of a function, read from the IR itself: successors from the
//! terminators' successor operands, predecessors from each block's use list (uses in successor
//! slots). [`Cfg`] computes reverse post-order, the dominator tree (Cooper, Harvey and Kennedy's
//! iterative algorithm) and dominance frontiers on demand; it is a snapshot and is not updated
//! when the function changes.

use slotmap::SecondaryMap;
use smallvec::SmallVec;

use crate::module::{InstId, Module, Slot};
use crate::ops::{Kind, Op};
use crate::structure::{Block, Func};

const NONE: u32 = u32::MAX;

/// The successor blocks of `block` (from its terminator), in operand order, duplicates kept.
pub fn successors(m: &Module, block: Block) -> SmallVec<[Block; 4]> {
    let mut out = SmallVec::new();
    let Some(term) = block.terminator(m) else {
        return out;
    };
    let info = m.op(term).info();
    for (i, v) in m.operands(term).enumerate() {
        if info.kind(i) == Some(Kind::Block) && m.try_op(v) == Some(Op::Block) {
            out.push(Block::cast(m, v));
        }
    }
    out
}

/// The distinct predecessor blocks of `block`, in the order of the block's use list (which
/// depends only on how the function was built, never on slot-map keys). O(uses of `block`).
/// For many queries, or for predecessors in block order, build a [`Cfg`].
pub fn predecessors(m: &Module, block: Block) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    for u in m.uses(block.id()) {
        let Slot::Operand(i) = u.slot else { continue };
        let op = m.op(u.user);
        if !op.is_terminator() || op.info().kind(i as usize) != Some(Kind::Block) {
            continue;
        }
        if let Some(p) = m.block_of(u.user)
            && !out.contains(&p)
        {
            out.push(p);
        }
    }
    out
}

/// A snapshot of one function's control-flow graph and dominance information.
#[derive(Clone, Debug)]
pub struct Cfg {
    blocks: Vec<Block>,
    index: SecondaryMap<InstId, u32>,
    succs: Vec<SmallVec<[u32; 2]>>,
    preds: Vec<SmallVec<[u32; 2]>>,
    rpo: Vec<u32>,
    rpo_num: Vec<u32>,
    idom: Vec<u32>,
    dom_children: Vec<SmallVec<[u32; 2]>>,
    pre: Vec<u32>,
    post: Vec<u32>,
}

impl Cfg {
    /// Computes the CFG of `func` (empty for a declaration).
    pub fn new(m: &Module, func: Func) -> Cfg {
        let blocks = func.blocks(m);
        let n = blocks.len();
        let mut index: SecondaryMap<InstId, u32> = SecondaryMap::new();
        for (i, b) in blocks.iter().enumerate() {
            index.insert(b.id(), i as u32);
        }
        let mut succs: Vec<SmallVec<[u32; 2]>> = vec![SmallVec::new(); n];
        let mut preds: Vec<SmallVec<[u32; 2]>> = vec![SmallVec::new(); n];
        for (i, &b) in blocks.iter().enumerate() {
            for s in successors(m, b) {
                if let Some(&si) = index.get(s.id()) {
                    if !succs[i].contains(&si) {
                        succs[i].push(si);
                    }
                    if !preds[si as usize].contains(&(i as u32)) {
                        preds[si as usize].push(i as u32);
                    }
                }
            }
        }
        for p in &mut preds {
            p.sort_unstable();
        }
        let mut cfg = Cfg {
            blocks,
            index,
            succs,
            preds,
            rpo: Vec::new(),
            rpo_num: vec![NONE; n],
            idom: vec![NONE; n],
            dom_children: vec![SmallVec::new(); n],
            pre: vec![NONE; n],
            post: vec![NONE; n],
        };
        if n > 0 {
            cfg.compute_rpo();
            cfg.compute_idom();
            cfg.compute_dom_tree();
        }
        cfg
    }

    fn compute_rpo(&mut self) {
        let n = self.blocks.len();
        let mut visited = vec![false; n];
        let mut post = Vec::with_capacity(n);
        // Iterative DFS: (node, next successor index).
        let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
        visited[0] = true;
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            if let Some(&s) = self.succs[b as usize].get(*next) {
                *next += 1;
                if !visited[s as usize] {
                    visited[s as usize] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
        post.reverse();
        for (i, &b) in post.iter().enumerate() {
            self.rpo_num[b as usize] = i as u32;
        }
        self.rpo = post;
    }

    fn compute_idom(&mut self) {
        self.idom[0] = 0;
        let mut changed = true;
        while changed {
            changed = false;
            for &b in self.rpo.iter().skip(1) {
                let mut new_idom = NONE;
                for &p in &self.preds[b as usize] {
                    if self.idom[p as usize] == NONE {
                        continue;
                    }
                    new_idom = if new_idom == NONE {
                        p
                    } else {
                        self.intersect(p, new_idom)
                    };
                }
                if new_idom != NONE && self.idom[b as usize] != new_idom {
                    self.idom[b as usize] = new_idom;
                    changed = true;
                }
            }
        }
    }

    fn intersect(&self, mut a: u32, mut b: u32) -> u32 {
        while a != b {
            while self.rpo_num[a as usize] > self.rpo_num[b as usize] {
                a = self.idom[a as usize];
            }
            while self.rpo_num[b as usize] > self.rpo_num[a as usize] {
                b = self.idom[b as usize];
            }
        }
        a
    }

    fn compute_dom_tree(&mut self) {
        for &b in &self.rpo {
            let d = self.idom[b as usize];
            if b != 0 && d != NONE {
                self.dom_children[d as usize].push(b);
            }
        }
        let mut counter = 0u32;
        let mut stack: Vec<(u32, bool)> = vec![(0, false)];
        while let Some((b, done)) = stack.pop() {
            if done {
                self.post[b as usize] = counter;
                counter += 1;
                continue;
            }
            self.pre[b as usize] = counter;
            counter += 1;
            stack.push((b, true));
            for &c in self.dom_children[b as usize].iter().rev() {
                stack.push((c, false));
            }
        }
    }

    /// All blocks of the function, in child order.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// The entry block.
    pub fn entry(&self) -> Option<Block> {
        self.blocks.first().copied()
    }

    fn idx(&self, b: Block) -> Option<usize> {
        self.index.get(b.id()).map(|&i| i as usize)
    }

    /// Distinct successors.
    pub fn succs(&self, b: Block) -> Vec<Block> {
        self.idx(b)
            .map(|i| {
                self.succs[i]
                    .iter()
                    .map(|&s| self.blocks[s as usize])
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Distinct predecessors (reachable or not), in block order.
    pub fn preds(&self, b: Block) -> Vec<Block> {
        self.idx(b)
            .map(|i| {
                self.preds[i]
                    .iter()
                    .map(|&s| self.blocks[s as usize])
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Reachable blocks in reverse post-order (entry first).
    pub fn rpo(&self) -> Vec<Block> {
        self.rpo.iter().map(|&i| self.blocks[i as usize]).collect()
    }

    /// True when `b` is reachable from the entry.
    pub fn is_reachable(&self, b: Block) -> bool {
        self.idx(b).is_some_and(|i| self.rpo_num[i] != NONE)
    }

    /// Position of `b` in reverse post-order.
    pub fn rpo_number(&self, b: Block) -> Option<usize> {
        let i = self.idx(b)?;
        (self.rpo_num[i] != NONE).then_some(self.rpo_num[i] as usize)
    }

    /// The immediate dominator (`None` for the entry and unreachable blocks).
    pub fn idom(&self, b: Block) -> Option<Block> {
        let i = self.idx(b)?;
        let d = self.idom[i];
        (d != NONE && i != 0).then(|| self.blocks[d as usize])
    }

    /// The children of `b` in the dominator tree.
    pub fn dom_children(&self, b: Block) -> Vec<Block> {
        self.idx(b)
            .map(|i| {
                self.dom_children[i]
                    .iter()
                    .map(|&c| self.blocks[c as usize])
                    .collect()
            })
            .unwrap_or_default()
    }

    /// True when `a` dominates `b` (every block dominates itself). False when either is
    /// unreachable.
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        let (Some(a), Some(b)) = (self.idx(a), self.idx(b)) else {
            return false;
        };
        if self.pre[a] == NONE || self.pre[b] == NONE {
            return false;
        }
        self.pre[a] <= self.pre[b] && self.post[b] <= self.post[a]
    }

    /// Dominance frontiers of every block, indexed like [`Cfg::blocks`].
    pub fn dominance_frontiers(&self) -> Vec<Vec<Block>> {
        let n = self.blocks.len();
        let mut df: Vec<Vec<u32>> = vec![Vec::new(); n];
        for b in 0..n {
            if self.rpo_num[b] == NONE || self.preds[b].len() < 2 {
                continue;
            }
            for &p in &self.preds[b] {
                let mut runner = p;
                if self.rpo_num[runner as usize] == NONE {
                    continue;
                }
                while runner != self.idom[b] && runner != NONE {
                    if !df[runner as usize].contains(&(b as u32)) {
                        df[runner as usize].push(b as u32);
                    }
                    if runner == 0 {
                        break;
                    }
                    runner = self.idom[runner as usize];
                }
            }
        }
        df.into_iter()
            .map(|v| v.into_iter().map(|i| self.blocks[i as usize]).collect())
            .collect()
    }

    /// The dominance frontier of one block.
    pub fn dominance_frontier(&self, b: Block) -> Vec<Block> {
        match self.idx(b) {
            Some(i) => self.dominance_frontiers().swap_remove(i),
            None => Vec::new(),
        }
    }

    /// Index of `b` in [`Cfg::blocks`].
    pub fn index_of(&self, b: Block) -> Option<usize> {
        self.idx(b)
    }
}
