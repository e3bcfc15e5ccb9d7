//! A run-time index into a flattened resource array becomes a switch over its elements, as
//! DXC's legalization does it (spirv-opt's `--replace-desc-array-access-using-var-index`):
//! the helper of [`crate::flatten_resource_arrays`] for `-fspv-flatten-resource-arrays`.
//!
//! An access `element_addr @array, %i` is the *root* of a tree: the addresses derived from it
//! (`element_addr`, `field_addr`, `texel_addr` on it) and, at the leaves, the instructions
//! that use one of those addresses (any instruction: a `load` or `store`, a texture read,
//! write or query, an atomic, `array_length`, a byte-address buffer access...). Each
//! leaf `L` in block `B` is rewritten on its own:
//!
//! ```text
//! B:  ... before L                     B:  ... before L
//!     L = op (chain of @array, %i)         switch %i, merge M, default D, [0: C0, .., N-1: CN-1]
//!     ... after L                      Ck: (chain of @array[k]), Lk = op ...; br M(Lk)
//!     terminator                       D:  br M(zero)
//!                                      M(%L): ... after L; terminator
//! ```
//!
//! Case `k` repeats the chain from the root down to `L` with element `k`'s global in place
//! of the root, then `L` itself; the value joins in a parameter of the merge block (only
//! when `L` has users). The default case, an index out of range, does not perform the access
//! and yields the type's zero, as DXC's `OpConstantNull` in its `OpPhi`. An array of one
//! element needs no switch: the root becomes that element (DXC makes the index constant 0).
//!
//! The index and every other operand of the chain dominate `L`, so they are available at the
//! switch wherever the chain was built. A loop header cannot end in a switch: there the
//! header ends in `br` to a new block that holds the switch (the header's own test moves to
//! the merge block, where it leaves the loop as a `cond_br` break). What cannot be rewritten
//! is refused ([`check`], naming the leaf): an address passed to a function or used as a
//! value, a leaf producing a pointer, and a leaf in a loop's continue block (which must end in
//! the back edge).
//!
//! Every instruction built for a leaf takes the leaf's position (the module's current
//! position while it is rewritten); each copy of the chain and of the leaf takes its
//! original's, as the cloner gives it.

use rustc_hash::FxHashSet;

use oneshader_ir::{Block, Builder, InstId, Module, Op, Slot};

use crate::PassError;
use crate::clone::Cloner;

const NAME: &str = "flatten_resource_arrays";

/// Why a run-time index cannot be rewritten: the instruction to point at and what it does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unrewritable {
    /// The instruction the diagnostic points at (a leaf of the access, or the access).
    pub at: InstId,
    /// What makes it unrewritable, a phrase completing "`name` ...".
    pub why: &'static str,
}

/// True for the instructions that derive an address from the address in operand 0.
fn derives_address(op: Op) -> bool {
    matches!(op, Op::ElementAddr | Op::FieldAddr | Op::TexelAddr)
}

/// The addresses derived from `root` (root first, each after the one it is derived from)
/// and the leaves using them (each once, in use order).
fn tree(m: &Module, root: InstId) -> (Vec<InstId>, Vec<InstId>) {
    let mut chain = vec![root];
    let mut leaves = Vec::new();
    let mut seen = FxHashSet::default();
    let mut i = 0;
    while i < chain.len() {
        let a = chain[i];
        i += 1;
        for u in m.uses(a) {
            let op = m.op(u.user);
            if op.is_decoration() || !seen.insert(u.user) {
                continue;
            }
            if derives_address(op) && u.slot == Slot::Operand(0) {
                chain.push(u.user);
            } else {
                leaves.push(u.user);
            }
        }
    }
    (chain, leaves)
}

/// True when `b` is the continue block of some loop.
fn is_continue_block(m: &Module, b: Block) -> bool {
    m.uses(b.id())
        .any(|u| u.slot == Slot::Operand(2) && m.op(u.user) == Op::Loop)
}

/// Checks that every leaf of the access `root` (an `element_addr` of a resource array at a
/// run-time index) can be rewritten into a switch, without changing anything.
pub fn check(m: &Module, root: InstId) -> Result<(), Unrewritable> {
    let index_is_int = m
        .try_operand(root, 1)
        .and_then(|i| m.ty(i))
        .and_then(|t| m.try_op(t))
        .is_some_and(|o| o.is_int_type());
    if !index_is_int {
        return Err(Unrewritable {
            at: root,
            why: "is indexed by a value that is not an integer",
        });
    }
    let (_chain, leaves) = tree(m, root);
    for l in leaves {
        let op = m.op(l);
        let why = if op == Op::Call {
            Some("is indexed by a run-time value and the element passed to a function")
        } else if !op.is_instruction() || m.block_of(l).is_none() {
            Some("is indexed by a run-time value and the element used other than by an access")
        } else if m
            .ty(l)
            .is_some_and(|t| m.try_op(t) == Some(Op::Ptr) && m.has_uses(l))
        {
            Some("is indexed by a run-time value and the element's address used as a value")
        } else if m.block_of(l).is_some_and(|b| is_continue_block(m, b)) {
            Some(
                "is indexed by a run-time value in a loop's continue block (its increment), \
                 where no switch over the elements can go",
            )
        } else {
            None
        };
        if let Some(why) = why {
            return Err(Unrewritable { at: l, why });
        }
    }
    Ok(())
}

/// Rewrites every use of `root` (an `element_addr` of a resource array at a run-time index,
/// accepted by [`check`]) into a switch over `elements`, the globals of the array's elements
/// in order, and removes `root` and the addresses derived from it.
pub fn rewrite(m: &mut Module, root: InstId, elements: &[InstId]) -> Result<(), PassError> {
    let fail = |what: String| PassError::new(NAME, what);
    if let [only] = elements {
        m.replace_uses_with(root, *only);
    } else {
        let (chain, leaves) = tree(m, root);
        let chain: FxHashSet<InstId> = chain.into_iter().collect();
        for l in leaves {
            let pos = m.origin(l).or_else(|| m.origin(root));
            let prev = m.set_current_origin(pos);
            let done = rewrite_leaf(m, root, &chain, l, elements);
            m.set_current_origin(prev);
            done?;
        }
    }
    // The chain, leaves first: nothing uses it any more.
    let (chain, leaves) = tree(m, root);
    if let Some(&l) = leaves.first() {
        return Err(fail(format!(
            "a use of a run-time-indexed element was left: {}",
            oneshader_ir::print::print_inst(m, l)
        )));
    }
    for &a in chain.iter().rev() {
        m.set_operands(a, &[]).map_err(|e| fail(e.to_string()))?;
        m.remove(a).map_err(|e| fail(format!("{e:?}")))?;
    }
    Ok(())
}

/// Rewrites one leaf `l` of `root`'s tree, whose addresses are `chain` (see the module
/// documentation).
fn rewrite_leaf(
    m: &mut Module,
    root: InstId,
    chain: &FxHashSet<InstId>,
    l: InstId,
    elements: &[InstId],
) -> Result<(), PassError> {
    let fail = |what: &str| PassError::new(NAME, what.to_string());
    let block = m
        .block_of(l)
        .ok_or_else(|| fail("an access outside a block"))?;
    let index = m.operand(root, 1);
    let index_ty = m.ty(index).ok_or_else(|| fail("an untyped index"))?;
    // The addresses from the root down to `l`'s operands, root-most first: each member of
    // the chain but the root is derived from another through its operand 0.
    let mut path: Vec<InstId> = Vec::new();
    for o in m.operands_vec(l) {
        let mut up = Vec::new();
        let mut a = o;
        while a != root && chain.contains(&a) {
            up.push(a);
            a = m.operand(a, 0);
        }
        for &x in up.iter().rev() {
            if !path.contains(&x) {
                path.push(x);
            }
        }
    }
    // Split before `l`; a function's variables stay in its entry block.
    let merge = crate::split_edges::split_block_before(m, block, l);
    let is_entry = m
        .func_of(block.id())
        .and_then(|f| f.entry(m))
        .is_some_and(|e| e == block);
    if is_entry {
        for c in m.children_snapshot(merge.id()) {
            if m.op(c) == Op::Var {
                m.move_to_end(c, block.id());
            }
        }
    }
    let head = if crate::split_edges::is_loop_header(m, block) {
        let h = m.add_block_after(block);
        Builder::at_end(m, block).br(h, &[]);
        h
    } else {
        block
    };
    let result = m.ty(l).filter(|_| m.has_uses(l));
    let joined = result.map(|t| m.add_block_param(merge, t));
    let mut cases = Vec::with_capacity(elements.len());
    let mut prev = head;
    for (k, &element) in elements.iter().enumerate() {
        let case = m.add_block_after(prev);
        prev = case;
        let mut cloner = Cloner::new();
        cloner.insert(root, element);
        for &x in path.iter().chain(std::iter::once(&l)) {
            let copy = cloner
                .clone_subtree(m, x)
                .map_err(|e| fail(&e.to_string()))?;
            m.move_to_end(copy, case.id());
        }
        let value = cloner
            .get(l)
            .ok_or_else(|| fail("the leaf was not copied"))?;
        let args: Vec<InstId> = joined.map(|_| value).into_iter().collect();
        Builder::at_end(m, case).br(merge, &args);
        let k = m.const_int(index_ty, k as u64);
        cases.push((k, case));
    }
    let default = m.add_block_after(prev);
    let args: Vec<InstId> = match result {
        Some(t) => vec![m.zero(t)],
        None => Vec::new(),
    };
    Builder::at_end(m, default).br(merge, &args);
    Builder::at_end(m, head).switch(index, merge, default, &cases);
    if let Some(p) = joined {
        m.replace_uses_with(l, p);
    }
    m.set_operands(l, &[]).map_err(|e| fail(&e.to_string()))?;
    m.remove(l).map_err(|e| fail(&format!("{e:?}")))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use oneshader_ir::diag::{FileId, Span};
    use oneshader_ir::parse::parse;
    use oneshader_ir::verify::verify;

    use super::*;
    use crate::Pass;
    use crate::flatten_resource_arrays::FlattenResourceArrays;

    const SRC: &str = r#"
global @bufs : ptr<storage_buffer, array<rtarray<u32>, 2>> [binding(0, 0)]
func @f(%i: u32, %j: u32) -> u32 {
bb0:
  %a = element_addr @bufs, %i : ptr<storage_buffer, rtarray<u32>>
  %p = element_addr %a, %j : ptr<storage_buffer, u32>
  %v = atomic_rmw add, %p, u32 1 : u32
  return %v
}
"#;

    fn find(m: &Module, op: Op) -> Vec<InstId> {
        let mut out = Vec::new();
        for f in m.functions() {
            for b in f.blocks(m) {
                out.extend(b.insts(m).into_iter().filter(|&i| m.op(i) == op));
            }
        }
        out
    }

    #[test]
    fn what_the_switch_builds_takes_the_position_of_the_access() {
        let mut m = parse(SRC).expect("parses");
        let leaf = find(&m, Op::AtomicRmw)[0];
        let chain = find(&m, Op::ElementAddr);
        let at = |start| Span {
            file: FileId(0),
            start,
            end: start + 4,
        };
        m.set_position(leaf, Some(at(10)));
        m.set_position(chain[1], Some(at(20)));
        assert!(FlattenResourceArrays::default().run(&mut m).expect("runs"));
        assert!(verify(&m).is_empty(), "{:?}", verify(&m));
        // The switch and the case branches stand where the atomic did.
        let switch = find(&m, Op::Switch);
        assert_eq!(switch.len(), 1);
        assert_eq!(m.position(switch[0]), Some(at(10)));
        assert!(
            find(&m, Op::Br)
                .iter()
                .all(|&b| m.position(b) == Some(at(10)))
        );
        // Each copy takes its original's position.
        let atomics = find(&m, Op::AtomicRmw);
        assert_eq!(atomics.len(), 2);
        assert!(atomics.iter().all(|&a| m.position(a) == Some(at(10))));
        let addrs = find(&m, Op::ElementAddr);
        assert_eq!(addrs.len(), 2);
        assert!(addrs.iter().all(|&a| m.position(a) == Some(at(20))));
        // Nothing keeps a position after the pass.
        assert_eq!(m.current_position(), None);
    }

    #[test]
    fn an_element_passed_to_a_function_is_refused_naming_the_call() {
        let src = r#"
global @bufs : ptr<storage_buffer, array<rtarray<u32>, 2>> [binding(0, 0)]
func @g(%p: ptr<storage_buffer, rtarray<u32>>) -> void {
bb0:
  return
}
func @f(%i: u32) -> void {
bb0:
  %a = element_addr @bufs, %i : ptr<storage_buffer, rtarray<u32>>
  call @g(%a)
  return
}
"#;
        let m = parse(src).expect("parses");
        let root = find(&m, Op::ElementAddr)[0];
        let call = find(&m, Op::Call)[0];
        let e = check(&m, root).expect_err("refused");
        assert_eq!(e.at, call);
        assert!(e.why.contains("passed to a function"), "{}", e.why);
    }

    #[test]
    fn an_access_in_a_continue_block_is_refused() {
        let src = r#"
global @bufs : ptr<storage_buffer, array<rtarray<u32>, 2>> [binding(0, 0)]
func @f(%i: u32) -> void {
bb0:
  loop bb1, break bb3, continue bb2
bb1:
  cond_br bool true, bb2, bb3
bb2:
  %a = element_addr @bufs, %i : ptr<storage_buffer, rtarray<u32>>
  %p = element_addr %a, u32 0 : ptr<storage_buffer, u32>
  store %p, u32 1
  br bb1
bb3:
  return
}
"#;
        let mut m = parse(src).expect("parses");
        let e = FlattenResourceArrays::default()
            .run(&mut m)
            .expect_err("refused");
        assert!(e.to_string().contains("continue block"), "{e}");
        assert!(
            e.diagnostics.iter().any(|d| d.code == "OSG0013"),
            "{:?}",
            e.diagnostics
        );
    }
}
