//! The control-flow graph of a function, read from the IR itself: successors from the
//! terminators' successor operands, predecessors from each block's use list (uses in successor
//! slots). [`Cfg`] computes reverse post-order, the dominator tree (Cooper, Harvey and Kennedy's
//! iterative algorithm) and dominance frontiers on demand; it is a snapshot and is not updated
//! when the function changes.

use smallvec::SmallVec;

use crate::inst_table::SlotVec;
use crate::module::{InstId, Module, Slot};
use crate::ops::{Kind, Op};
use crate::structure::{Block, Func};

const NONE: u32 = u32::MAX;

/// How many blocks ahead [`Cfg::new`] prefetches terminator operands.
const USE_PREFETCH_BLOCKS: usize = 16;

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
///
/// Blocks are numbered by their position in [`Cfg::blocks`]; every per-block table is a flat
/// array over those numbers (edge lists in compressed rows), so building and querying a large
/// function's CFG touches a few contiguous arrays rather than one small allocation per block.
#[derive(Clone, Debug)]
pub struct Cfg {
    blocks: Vec<Block>,
    index: BlockIndex,
    /// Successors of block `i`: `succ[succ_start[i]..succ_start[i + 1]]` (distinct, operand order).
    succ_start: Vec<u32>,
    succ: Vec<u32>,
    /// Predecessors of block `i`, ascending: `pred[pred_start[i]..pred_start[i + 1]]`.
    pred_start: Vec<u32>,
    pred: Vec<u32>,
    rpo: Vec<u32>,
    rpo_num: Vec<u32>,
    idom: Vec<u32>,
    /// Dominator-tree children of block `i`, in reverse post-order.
    dom_start: Vec<u32>,
    dom: Vec<u32>,
    pre: Vec<u32>,
    post: Vec<u32>,
}

/// Block number by slot: a table over the window of the blocks' slot numbers (so its size
/// follows the function, not the module), checked against `blocks` on lookup (so entries
/// for other instructions, or stale ones, never match).
#[derive(Clone, Debug, Default)]
struct BlockIndex {
    by_slot: SlotVec<u32>,
}

impl BlockIndex {
    fn new(blocks: &[Block]) -> BlockIndex {
        let mut by_slot = SlotVec::new();
        for (i, b) in blocks.iter().enumerate() {
            *by_slot.entry(b.id()) = i as u32;
        }
        BlockIndex { by_slot }
    }

    #[inline]
    fn get(&self, blocks: &[Block], id: InstId) -> Option<u32> {
        let i = *self.by_slot.get(id)?;
        (blocks.get(i as usize).map(|b| b.id()) == Some(id)).then_some(i)
    }
}

/// Blocks named by a list of block numbers of a [`Cfg`] (successors, predecessors, dominator
/// children, reverse post-order). Iterates without allocating.
#[derive(Clone, Debug)]
pub struct BlockList<'a> {
    blocks: &'a [Block],
    ids: std::slice::Iter<'a, u32>,
}

impl BlockList<'_> {
    /// True when the list is empty.
    pub fn is_empty(&self) -> bool {
        self.ids.len() == 0
    }

    /// True when `b` is in the list.
    pub fn contains(&self, b: &Block) -> bool {
        self.clone().any(|x| x == *b)
    }

    /// The blocks, collected.
    pub fn to_vec(&self) -> Vec<Block> {
        self.clone().collect()
    }
}

impl Iterator for BlockList<'_> {
    type Item = Block;
    #[inline]
    fn next(&mut self) -> Option<Block> {
        self.ids.next().map(|&i| self.blocks[i as usize])
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.ids.size_hint()
    }
}

impl DoubleEndedIterator for BlockList<'_> {
    fn next_back(&mut self) -> Option<Block> {
        self.ids.next_back().map(|&i| self.blocks[i as usize])
    }
}

impl ExactSizeIterator for BlockList<'_> {}

/// Row `i` of a compressed edge table.
#[inline]
fn row<'a>(start: &[u32], list: &'a [u32], i: usize) -> &'a [u32] {
    &list[start[i] as usize..start[i + 1] as usize]
}

impl Cfg {
    /// Computes the CFG of `func` (empty for a declaration).
    pub fn new(m: &Module, func: Func) -> Cfg {
        Cfg::build(m, func, false)
    }

    /// The *structural* CFG of `func`, as SPIR-V defines structural dominance: the edges of
    /// [`Cfg::new`] plus an edge from each selection or switch header to its merge block and
    /// from each loop header to its break and continue blocks. Its dominator tree is the one
    /// constructs are defined by (a loop's continue block is not inside a selection that
    /// `continue`s to it); [`Cfg::succs`] and [`Cfg::preds`] include the added edges.
    pub fn structural(m: &Module, func: Func) -> Cfg {
        Cfg::build(m, func, true)
    }

    fn build(m: &Module, func: Func, structural: bool) -> Cfg {
        let blocks = func.blocks(m);
        let n = blocks.len();
        let index = BlockIndex::new(&blocks);
        // Terminators first, in a loop of independent lookups: on a function larger than the
        // cache the processor overlaps these misses instead of taking them one chain at a
        // time. Each entry keeps what the successor scan needs from the terminator's slot.
        let terms: Vec<Option<(Op, u32, u32)>> = blocks
            .iter()
            .map(|b| {
                b.terminator(m).map(|t| {
                    let i = &m.insts[t];
                    (i.op, i.uses_start + 1, i.num_operands)
                })
            })
            .collect();
        // Structural edges out of loop headers: (header, break or continue block).
        let mut header_edges: Vec<(u32, u32)> = Vec::new();
        if structural {
            for t in terms.iter().flatten() {
                let (op, first, count) = *t;
                if op != Op::Loop || count < 3 {
                    continue;
                }
                let at = |k: usize| {
                    m.uses[first as usize + k]
                        .value
                        .and_then(|v| index.get(&blocks, v))
                };
                if let Some(h) = at(0) {
                    for k in [1, 2] {
                        if let Some(j) = at(k) {
                            header_edges.push((h, j));
                        }
                    }
                }
            }
            header_edges.sort_unstable();
        }
        let mut succ_start: Vec<u32> = Vec::with_capacity(n + 1);
        let mut succ: Vec<u32> = Vec::with_capacity(2 * n);
        let mut pred_count: Vec<u32> = vec![0; n + 1];
        let mut last_row: Vec<u32> = vec![NONE; n];
        let mut next_header_edge = 0usize;
        for (bi, t) in terms.iter().enumerate() {
            if let Some(Some((_, ahead, _))) = terms.get(bi + USE_PREFETCH_BLOCKS) {
                m.prefetch_use(*ahead);
            }
            let row_start = succ.len();
            succ_start.push(row_start as u32);
            let Some((op, first, count)) = *t else {
                continue;
            };
            let info = op.info();
            let mut add = |s: u32, succ: &mut Vec<u32>| {
                // Duplicates are dropped through the row that last added each block: a
                // scan of the row would be quadratic in a switch's cases.
                if last_row[s as usize] != bi as u32 {
                    last_row[s as usize] = bi as u32;
                    succ.push(s);
                    pred_count[s as usize] += 1;
                }
            };
            for k in 0..count as usize {
                let is_edge = match info.kind(k) {
                    Some(Kind::Block) => true,
                    Some(Kind::Join(_)) => structural && op != Op::Loop,
                    _ => false,
                };
                if !is_edge {
                    continue;
                }
                let Some(v) = m.uses[first as usize + k].value else {
                    continue;
                };
                if let Some(s) = index.get(&blocks, v) {
                    add(s, &mut succ);
                }
            }
            while header_edges
                .get(next_header_edge)
                .is_some_and(|&(h, _)| h <= bi as u32)
            {
                let (h, j) = header_edges[next_header_edge];
                next_header_edge += 1;
                if h == bi as u32 {
                    add(j, &mut succ);
                }
            }
        }
        succ_start.push(succ.len() as u32);
        // Predecessor rows by counting sort; filling in block order keeps each row ascending.
        let mut pred_start: Vec<u32> = Vec::with_capacity(n + 1);
        let mut acc = 0u32;
        for &c in &pred_count[..n] {
            pred_start.push(acc);
            acc += c;
        }
        pred_start.push(acc);
        let mut fill: Vec<u32> = pred_start[..n].to_vec();
        let mut pred: Vec<u32> = vec![0; acc as usize];
        for i in 0..n {
            for &s in row(&succ_start, &succ, i) {
                pred[fill[s as usize] as usize] = i as u32;
                fill[s as usize] += 1;
            }
        }
        let mut cfg = Cfg {
            blocks,
            index,
            succ_start,
            succ,
            pred_start,
            pred,
            rpo: Vec::new(),
            rpo_num: vec![NONE; n],
            idom: vec![NONE; n],
            dom_start: vec![0; n + 1],
            dom: Vec::new(),
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

    fn succ_row(&self, i: usize) -> &[u32] {
        row(&self.succ_start, &self.succ, i)
    }

    fn pred_row(&self, i: usize) -> &[u32] {
        row(&self.pred_start, &self.pred, i)
    }

    fn compute_rpo(&mut self) {
        let n = self.blocks.len();
        let mut visited = vec![false; n];
        let mut post = Vec::with_capacity(n);
        // Iterative DFS: (node, next successor index).
        let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
        visited[0] = true;
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            if let Some(&s) = self.succ_row(b as usize).get(*next) {
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
            for k in 1..self.rpo.len() {
                let b = self.rpo[k] as usize;
                let mut new_idom = NONE;
                for &p in row(&self.pred_start, &self.pred, b) {
                    if self.idom[p as usize] == NONE {
                        continue;
                    }
                    new_idom = if new_idom == NONE {
                        p
                    } else {
                        self.intersect(p, new_idom)
                    };
                }
                if new_idom != NONE && self.idom[b] != new_idom {
                    self.idom[b] = new_idom;
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
        let n = self.blocks.len();
        // Children rows by counting sort over the RPO, so each row is in reverse post-order.
        let mut count = vec![0u32; n];
        for &b in &self.rpo {
            let d = self.idom[b as usize];
            if b != 0 && d != NONE {
                count[d as usize] += 1;
            }
        }
        let mut acc = 0u32;
        for (i, &c) in count.iter().enumerate() {
            self.dom_start[i] = acc;
            acc += c;
        }
        self.dom_start[n] = acc;
        let mut fill: Vec<u32> = self.dom_start[..n].to_vec();
        self.dom = vec![0; acc as usize];
        for &b in &self.rpo {
            let d = self.idom[b as usize];
            if b != 0 && d != NONE {
                self.dom[fill[d as usize] as usize] = b;
                fill[d as usize] += 1;
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
            for &c in row(&self.dom_start, &self.dom, b as usize).iter().rev() {
                stack.push((c, false));
            }
        }
    }

    fn list<'a>(&'a self, ids: &'a [u32]) -> BlockList<'a> {
        BlockList {
            blocks: &self.blocks,
            ids: ids.iter(),
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
        self.index.get(&self.blocks, b.id()).map(|i| i as usize)
    }

    /// Distinct successors, in operand order.
    pub fn succs(&self, b: Block) -> BlockList<'_> {
        self.list(self.idx(b).map(|i| self.succ_row(i)).unwrap_or(&[]))
    }

    /// Distinct predecessors (reachable or not), in block order.
    pub fn preds(&self, b: Block) -> BlockList<'_> {
        self.list(self.idx(b).map(|i| self.pred_row(i)).unwrap_or(&[]))
    }

    /// Numbers of the distinct predecessors of block number `i` (see [`Cfg::index_of`]), in
    /// block order.
    pub fn pred_indices(&self, i: usize) -> &[u32] {
        self.pred_row(i)
    }

    /// Reachable blocks in reverse post-order (entry first).
    pub fn rpo(&self) -> BlockList<'_> {
        self.list(&self.rpo)
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

    /// The children of `b` in the dominator tree, in reverse post-order.
    pub fn dom_children(&self, b: Block) -> BlockList<'_> {
        self.list(
            self.idx(b)
                .map(|i| row(&self.dom_start, &self.dom, i))
                .unwrap_or(&[]),
        )
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

    /// Dominance frontiers as block numbers: entry `i` lists the frontier of block number `i`
    /// (see [`Cfg::index_of`]).
    pub fn dominance_frontier_indices(&self) -> Vec<Vec<u32>> {
        let n = self.blocks.len();
        let mut df: Vec<Vec<u32>> = vec![Vec::new(); n];
        for b in 0..n {
            let preds = self.pred_row(b);
            if self.rpo_num[b] == NONE || preds.len() < 2 {
                continue;
            }
            for &p in preds {
                let mut runner = p;
                if self.rpo_num[runner as usize] == NONE {
                    continue;
                }
                while runner != self.idom[b] && runner != NONE {
                    // Rows are filled in ascending `b`, so a repeat can only be the last entry.
                    if df[runner as usize].last() != Some(&(b as u32)) {
                        df[runner as usize].push(b as u32);
                    }
                    if runner == 0 {
                        break;
                    }
                    runner = self.idom[runner as usize];
                }
            }
        }
        df
    }

    /// Dominance frontiers of every block, indexed like [`Cfg::blocks`].
    pub fn dominance_frontiers(&self) -> Vec<Vec<Block>> {
        self.dominance_frontier_indices()
            .into_iter()
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
