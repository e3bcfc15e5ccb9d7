//! Rebuilding a module exactly as described, instruction by instruction: for loaders (`.osir`)
//! and linkers that copy modules, which must keep a given tree order and create instructions of
//! any opcode before all of their operands exist.
//!
//! The usual construction API ([`Module::intern`], [`Module::add_func`], the
//! [`crate::Builder`]...) places each new instruction itself. These three calls leave placement
//! to the caller:
//!
//! - [`Module::create_raw`] makes a detached instruction of any opcode with a type, operands and
//!   a literal payload (operands can be patched later with [`Module::set_operands`] and
//!   [`Module::set_type`] while the instruction is not interned, which is how forward references
//!   are resolved);
//! - [`Module::intern_existing`] registers a hoistable value made that way in the dedup table
//!   (refusing when an equal value is already interned);
//! - [`Module::append_raw`] appends a detached instruction as the last child of another.
//!
//! Nothing here checks meaning: a hoistable value that is never interned, or an instruction
//! placed where it does not belong, is reported by [`crate::verify::verify`] (OSV0006,
//! OSV0002...). Run it after rebuilding. What is checked is what would otherwise corrupt the
//! store: dead ids, payloads of the wrong kind, and cycles in the tree.

use crate::module::{InstId, Module, Payload};
use crate::ops::Op;

/// Why a raw construction call was refused (nothing was changed).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RawError {
    /// An id given as type, operand, parent or child does not name a live instruction.
    #[error("instruction does not exist")]
    Missing,
    /// `module` cannot be created: a module has exactly one root.
    #[error("a module instruction cannot be created: the module already has its root")]
    ModuleOp,
    /// The payload does not fit the opcode (bits for `const_bool`/`const_int`/`const_float`, a
    /// string for `const_string`, nothing otherwise).
    #[error("payload does not fit opcode `{0}`")]
    Payload(&'static str),
    /// The child is already in the tree (or is the root).
    #[error("the child is already attached")]
    Attached,
    /// Appending would make an instruction its own ancestor.
    #[error("appending would create a cycle in the tree")]
    Cycle,
    /// The instruction is not hoistable, or is already interned.
    #[error("only a hoistable value that is not interned yet can be interned")]
    NotInternable,
    /// An equal hoistable value is already interned.
    #[error("an equal hoistable value is already interned")]
    Duplicate(InstId),
}

impl Module {
    /// Creates a detached instruction with opcode `op`, type `ty`, `operands` and a literal
    /// `payload`. It is not in the tree and, when hoistable, not interned: place it with
    /// [`Module::append_raw`] and intern it with [`Module::intern_existing`].
    pub fn create_raw(
        &mut self,
        op: Op,
        ty: Option<InstId>,
        operands: &[InstId],
        payload: Payload<'_>,
    ) -> Result<InstId, RawError> {
        if op == Op::Module {
            return Err(RawError::ModuleOp);
        }
        if ty.is_some_and(|t| !self.contains(t)) || operands.iter().any(|&o| !self.contains(o)) {
            return Err(RawError::Missing);
        }
        let aux = match (op, payload) {
            (Op::ConstBool, Payload::Bits(b)) if b <= 1 => b as u32,
            (Op::ConstInt | Op::ConstFloat, Payload::Bits(b)) => {
                self.literals.push(b);
                (self.literals.len() - 1) as u32
            }
            (Op::ConstString, Payload::Str(s)) => self.intern_string(s),
            (Op::ConstBool | Op::ConstInt | Op::ConstFloat | Op::ConstString, _) => {
                return Err(RawError::Payload(op.spelling()));
            }
            (_, Payload::None) => 0,
            (_, _) => return Err(RawError::Payload(op.spelling())),
        };
        Ok(self.create_detached(op, ty, operands, aux))
    }

    /// Reserves room for `insts` more instructions and `uses` more use nodes (one per operand
    /// plus one type slot per instruction), so that building a module of known size (a
    /// loader, a linker) does not reallocate and copy the tables as they grow.
    pub fn reserve(&mut self, insts: usize, uses: usize) {
        self.insts.reserve(insts);
        self.uses.reserve(uses);
    }

    /// Appends the detached instruction `child` as the last child of `parent` (which may itself
    /// be detached). Refuses an attached child, the root, and a cycle.
    pub fn append_raw(&mut self, parent: InstId, child: InstId) -> Result<(), RawError> {
        if !self.contains(parent) || !self.contains(child) {
            return Err(RawError::Missing);
        }
        if child == self.root() || self.parent(child).is_some() {
            return Err(RawError::Attached);
        }
        // A detached child without children cannot be an ancestor of `parent`; otherwise walk
        // up from `parent` (O(depth)).
        if self.first_child(child).is_some() || child == parent {
            let mut cur = Some(parent);
            while let Some(p) = cur {
                if p == child {
                    return Err(RawError::Cycle);
                }
                cur = self.parent(p);
            }
        }
        self.append_child(parent, child);
        Ok(())
    }

    /// Registers the hoistable value `id` (made by [`Module::create_raw`], not interned yet) in
    /// the dedup table, without moving it. Refuses with [`RawError::Duplicate`] when an equal
    /// value is already interned: the caller decides whether that is an error or whether to use
    /// the existing value (then remove `id`).
    pub fn intern_existing(&mut self, id: InstId) -> Result<(), RawError> {
        if !self.contains(id) {
            return Err(RawError::Missing);
        }
        if !self.op(id).is_hoistable() || self.is_interned(id) {
            return Err(RawError::NotInternable);
        }
        if let Some(existing) = self.lookup_like(id) {
            return Err(RawError::Duplicate(existing));
        }
        self.dedup_insert(id);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::print::print_module;
    use crate::verify::verify;

    #[test]
    fn rebuilds_a_function_with_a_forward_reference() {
        // func @f(%0: i32) -> i32 { bb0: br bb1 ; bb1: return %0 } built out of order.
        let mut m = Module::new();
        let i32t = m
            .create_raw(Op::I32, None, &[], Payload::None)
            .expect("live ids");
        m.intern_existing(i32t).expect("first i32");
        let root = m.root();
        m.append_raw(root, i32t).expect("detached");
        let fty = m.fn_type(i32t, &[i32t]);
        let f = m
            .create_raw(Op::Func, Some(fty), &[], Payload::None)
            .unwrap();
        let b0 = m.create_raw(Op::Block, None, &[], Payload::None).unwrap();
        let b1 = m.create_raw(Op::Block, None, &[], Payload::None).unwrap();
        let p = m
            .create_raw(Op::Param, Some(i32t), &[], Payload::None)
            .unwrap();
        // The branch is created before its target exists in the tree.
        let br = m.create_raw(Op::Br, None, &[b1], Payload::None).unwrap();
        let ret = m.create_raw(Op::Return, None, &[], Payload::None).unwrap();
        m.set_operands(ret, &[p]).unwrap();
        m.append_raw(root, f).unwrap();
        m.append_raw(f, b0).unwrap();
        m.append_raw(b0, p).unwrap();
        m.append_raw(b0, br).unwrap();
        m.append_raw(f, b1).unwrap();
        m.append_raw(b1, ret).unwrap();
        m.set_name(f, Some("f"));
        assert!(verify(&m).is_empty(), "{:?}", verify(&m));
        assert_eq!(
            print_module(&m),
            "func @f(%0: i32) -> i32 {\nbb0:\n  br bb1\nbb1:\n  return %0\n}\n"
        );
    }

    #[test]
    fn reserve_makes_room_without_changing_the_module() {
        let mut m = Module::new();
        let before = print_module(&m);
        m.reserve(1000, 3000);
        assert!(m.insts.capacity() >= 1001 && m.uses.capacity() >= 3000);
        assert_eq!(print_module(&m), before);
        assert_eq!(m.len(), 1);
    }

    #[test]
    fn intern_existing_refuses_duplicates_and_non_hoistables() {
        let mut m = Module::new();
        let a = m.i32_type();
        let b = m.create_raw(Op::I32, None, &[], Payload::None).unwrap();
        assert_eq!(m.intern_existing(b), Err(RawError::Duplicate(a)));
        assert_eq!(m.intern_existing(a), Err(RawError::NotInternable));
        let blk = m.create_raw(Op::Block, None, &[], Payload::None).unwrap();
        assert_eq!(m.intern_existing(blk), Err(RawError::NotInternable));
        // A constant made raw and interned is found by later lookups.
        let c = m
            .create_raw(Op::ConstInt, Some(a), &[], Payload::Bits(7))
            .unwrap();
        m.intern_existing(c).unwrap();
        assert_eq!(m.const_i32(7), c);
    }

    #[test]
    fn refuses_bad_payloads_dead_ids_and_cycles() {
        let mut m = Module::new();
        let i32t = m.i32_type();
        assert_eq!(
            m.create_raw(Op::ConstInt, Some(i32t), &[], Payload::None),
            Err(RawError::Payload("const_int"))
        );
        assert_eq!(
            m.create_raw(Op::Add, None, &[], Payload::Bits(1)),
            Err(RawError::Payload("add"))
        );
        assert_eq!(
            m.create_raw(Op::ConstBool, None, &[], Payload::Bits(2)),
            Err(RawError::Payload("const_bool"))
        );
        assert_eq!(
            m.create_raw(Op::Module, None, &[], Payload::None),
            Err(RawError::ModuleOp)
        );
        let b = m.create_raw(Op::Block, None, &[], Payload::None).unwrap();
        let c = m.create_raw(Op::Block, None, &[], Payload::None).unwrap();
        m.append_raw(b, c).unwrap();
        // `b` is c's parent: appending b under c would be a cycle.
        assert_eq!(m.append_raw(c, b), Err(RawError::Cycle));
        assert_eq!(m.append_raw(b, b), Err(RawError::Cycle));
        assert_eq!(m.append_raw(b, c), Err(RawError::Attached));
        let root = m.root();
        assert_eq!(m.append_raw(b, root), Err(RawError::Attached));
        let dead = m.create_raw(Op::Block, None, &[], Payload::None).unwrap();
        m.remove(dead).unwrap();
        assert_eq!(
            m.create_raw(Op::Br, None, &[dead], Payload::None),
            Err(RawError::Missing)
        );
        assert_eq!(m.append_raw(b, dead), Err(RawError::Missing));
    }
}
