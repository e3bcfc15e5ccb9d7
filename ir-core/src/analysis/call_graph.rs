//! The call graph of a module: which functions each function calls directly, who calls
//! each function and from where, the strongly connected components (recursion), and a
//! callee-first order.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::module::{InstId, Module};
use crate::ops::Op;
use crate::structure::Func;

/// Lists per function, stored in compressed rows: the items of function `k` are
/// `items[starts[k]..starts[k + 1]]`.
#[derive(Clone, Debug)]
struct Rows<T> {
    starts: Vec<u32>,
    items: Vec<T>,
}

impl<T> Default for Rows<T> {
    fn default() -> Self {
        Rows {
            starts: Vec::new(),
            items: Vec::new(),
        }
    }
}

impl<T: Copy> Rows<T> {
    /// Rows from `(row, item)` pairs, each row keeping the pairs' order.
    fn from_pairs(rows: usize, pairs: &[(u32, T)]) -> Rows<T> {
        let mut starts = vec![0u32; rows + 1];
        for &(r, _) in pairs {
            starts[r as usize + 1] += 1;
        }
        for k in 0..rows {
            starts[k + 1] += starts[k];
        }
        let mut fill = starts.clone();
        let mut items: Vec<Option<T>> = vec![None; pairs.len()];
        for &(r, x) in pairs {
            let at = &mut fill[r as usize];
            items[*at as usize] = Some(x);
            *at += 1;
        }
        Rows {
            starts,
            items: items.into_iter().flatten().collect(),
        }
    }

    fn row(&self, k: usize) -> &[T] {
        match (self.starts.get(k), self.starts.get(k + 1)) {
            (Some(&a), Some(&b)) => &self.items[a as usize..b as usize],
            _ => &[],
        }
    }
}

/// The direct calls between the module-level functions of a module (declarations
/// included), computed in one walk over every instruction of every function.
///
/// An edge is a `call` whose callee operand is a function; a call through `specialize`
/// (of a generic not yet specialized) is no edge, and functions inside generics are not
/// part of the graph. The graph is a snapshot: it does not follow later changes to the
/// module. Every list is in module order (functions in module order, instructions in
/// block order), so the results do not depend on how the module was built.
///
/// ```
/// use oneshader_ir::analysis::CallGraph;
/// let m = oneshader_ir::parse::parse(
///     "func @leaf() -> void {\nbb0:\n  return\n}\n\
///      func @main() -> void {\nbb0:\n  call @leaf()\n  call @leaf()\n  return\n}\n",
/// ).unwrap();
/// let cg = CallGraph::new(&m);
/// let (leaf, main) = (m.func_by_name("leaf").unwrap(), m.func_by_name("main").unwrap());
/// assert_eq!(cg.callees(main), &[leaf]);
/// assert_eq!(cg.callers(leaf), &[main]);
/// assert_eq!(cg.call_sites(leaf).len(), 2);
/// assert_eq!(cg.bottom_up().collect::<Vec<_>>(), vec![leaf, main]);
/// assert!(!cg.is_recursive(main));
/// ```
#[derive(Clone, Debug, Default)]
pub struct CallGraph {
    funcs: Vec<Func>,
    index: FxHashMap<InstId, u32>,
    /// Distinct callees of each function, in the order of their first call.
    callees: Rows<Func>,
    /// Distinct callers of each function, in module order.
    callers: Rows<Func>,
    /// The `call` instructions naming each function, in module order.
    sites: Rows<InstId>,
    /// The component of each function.
    component: Vec<u32>,
    /// Components (by component number), callee first: a component comes after every
    /// component it calls into.
    components: Rows<Func>,
    /// Per function: in a cycle of calls (a component of several functions, or a call of
    /// itself).
    recursive: Vec<bool>,
}

impl CallGraph {
    /// The call graph of `m`: one walk over every instruction of every function.
    pub fn new(m: &Module) -> CallGraph {
        let funcs = m.functions();
        let n = funcs.len();
        let index: FxHashMap<InstId, u32> = funcs
            .iter()
            .enumerate()
            .map(|(k, f)| (f.id(), k as u32))
            .collect();
        // (caller, callee, call) for every call, in module order.
        let mut calls: Vec<(u32, u32, InstId)> = Vec::new();
        for (k, f) in funcs.iter().enumerate() {
            for b in m.children(f.id()) {
                if m.op(b) != Op::Block {
                    continue;
                }
                for i in m.children(b) {
                    if m.op(i) != Op::Call {
                        continue;
                    }
                    if let Some(&g) = m.try_operand(i, 0).and_then(|c| index.get(&c)) {
                        calls.push((k as u32, g, i));
                    }
                }
            }
        }
        let mut callee_pairs: Vec<(u32, Func)> = Vec::new();
        let mut caller_pairs: Vec<(u32, Func)> = Vec::new();
        let mut site_pairs: Vec<(u32, InstId)> = Vec::with_capacity(calls.len());
        let mut recursive = vec![false; n];
        // Distinct edges: the calls come grouped by caller, so a set of the current
        // caller's callees suffices.
        let mut seen_from: FxHashSet<u32> = FxHashSet::default();
        let mut current = u32::MAX;
        for &(f, g, i) in &calls {
            if f != current {
                current = f;
                seen_from.clear();
            }
            site_pairs.push((g, i));
            if f == g {
                recursive[f as usize] = true;
            }
            if seen_from.insert(g) {
                callee_pairs.push((f, funcs[g as usize]));
                caller_pairs.push((g, funcs[f as usize]));
            }
        }
        let callees = Rows::from_pairs(n, &callee_pairs);
        let callers = Rows::from_pairs(n, &caller_pairs);
        let sites = Rows::from_pairs(n, &site_pairs);
        let (component, comp_lists) = components_callee_first(n, |k| {
            callees
                .row(k)
                .iter()
                .filter_map(|g| index.get(&g.id()).map(|&x| x as usize))
                .collect()
        });
        let mut comp_pairs: Vec<(u32, Func)> = Vec::with_capacity(n);
        for (c, members) in comp_lists.iter().enumerate() {
            if members.len() > 1 {
                for &k in members {
                    recursive[k] = true;
                }
            }
            comp_pairs.extend(members.iter().map(|&k| (c as u32, funcs[k])));
        }
        let components = Rows::from_pairs(comp_lists.len(), &comp_pairs);
        CallGraph {
            funcs,
            index,
            callees,
            callers,
            sites,
            component,
            components,
            recursive,
        }
    }

    fn slot(&self, f: Func) -> Option<usize> {
        self.index.get(&f.id()).map(|&k| k as usize)
    }

    /// The module-level functions, in module order.
    pub fn functions(&self) -> &[Func] {
        &self.funcs
    }

    /// True when `f` is a function of the graph.
    pub fn contains(&self, f: Func) -> bool {
        self.index.contains_key(&f.id())
    }

    /// The position of `f` in [`CallGraph::functions`].
    pub fn position(&self, f: Func) -> Option<usize> {
        self.slot(f)
    }

    /// The distinct functions `f` calls, in the order of their first call.
    pub fn callees(&self, f: Func) -> &[Func] {
        self.slot(f).map_or(&[], |k| self.callees.row(k))
    }

    /// The distinct functions that call `f`, in module order.
    pub fn callers(&self, f: Func) -> &[Func] {
        self.slot(f).map_or(&[], |k| self.callers.row(k))
    }

    /// The `call` instructions naming `f`, in module order.
    pub fn call_sites(&self, f: Func) -> &[InstId] {
        self.slot(f).map_or(&[], |k| self.sites.row(k))
    }

    /// True when `f` is in a cycle of calls: it calls itself, or a function that leads back
    /// to it.
    pub fn is_recursive(&self, f: Func) -> bool {
        self.slot(f).is_some_and(|k| self.recursive[k])
    }

    /// True when some function of the module is recursive.
    pub fn has_recursion(&self) -> bool {
        self.recursive.iter().any(|&r| r)
    }

    /// The strongly connected component of `f` (two functions are in the same one when
    /// each reaches the other): an index into [`CallGraph::components`].
    pub fn component(&self, f: Func) -> Option<usize> {
        self.slot(f).map(|k| self.component[k] as usize)
    }

    /// The strongly connected components, callee first: every component comes after the
    /// components its functions call into. A function outside any cycle is a component of
    /// its own.
    pub fn components(&self) -> impl ExactSizeIterator<Item = &[Func]> + '_ {
        (0..self.components.starts.len().saturating_sub(1)).map(|c| self.components.row(c))
    }

    /// Every function, callee first (bottom-up): a function comes after everything it
    /// calls, except for calls within its own component (recursion).
    pub fn bottom_up(&self) -> impl Iterator<Item = Func> + '_ {
        self.components().flatten().copied()
    }

    /// The functions reachable from `roots` through calls (the roots included), in
    /// depth-first pre-order, each once.
    pub fn reachable(&self, roots: impl IntoIterator<Item = Func>) -> Vec<Func> {
        let mut seen = vec![false; self.funcs.len()];
        let mut out = Vec::new();
        let mut stack: Vec<Func> = Vec::new();
        for root in roots {
            stack.push(root);
            while let Some(f) = stack.pop() {
                let Some(k) = self.slot(f) else { continue };
                if std::mem::replace(&mut seen[k], true) {
                    continue;
                }
                out.push(f);
                stack.extend(self.callees.row(k).iter().rev().copied());
            }
        }
        out
    }
}

/// Tarjan's strongly connected components, iteratively, over nodes `0..n` with successors
/// `succ(k)`: the component of each node, and the components in the order they complete,
/// which is callee first.
fn components_callee_first(
    n: usize,
    succ: impl Fn(usize) -> Vec<usize>,
) -> (Vec<u32>, Vec<Vec<usize>>) {
    const UNSEEN: usize = usize::MAX;
    let succ: Vec<Vec<usize>> = (0..n).map(succ).collect();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut component = vec![0u32; n];
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut counter = 0usize;
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        let mut dfs: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = counter;
        low[root] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut next)) = dfs.last_mut() {
            if let Some(&w) = succ[v].get(*next) {
                *next += 1;
                if index[w] == UNSEEN {
                    index[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    dfs.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                dfs.pop();
                if let Some(&(parent, _)) = dfs.last() {
                    low[parent] = low[parent].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut comp = Vec::new();
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        component[w] = out.len() as u32;
                        comp.push(w);
                        if w == v {
                            break;
                        }
                    }
                    out.push(comp);
                }
            }
        }
    }
    (component, out)
}
