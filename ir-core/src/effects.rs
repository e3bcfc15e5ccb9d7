//! What executing an instruction does besides computing its result, and the questions
//! passes ask about it, so that every pass and backend asks here instead of keeping its own
//! list. The effects themselves are columns of the two tables: the instruction table
//! (`ops.rs`) and the intrinsic table ([`crate::intrinsic_facts`]).
//!
//! [`Effects`] is a small set of flags. [`Op::effects`] gives them by opcode alone;
//! [`Module::effects`] refines them for one instruction (the effects of a `call_intrinsic`
//! are those of its intrinsic, [`Intrinsic::effects`]; a read of memory nobody writes while
//! a shader runs is pure). The questions passes ask are methods:
//!
//! | question | method | who asks |
//! |---|---|---|
//! | may it be removed when its result is unused? | [`Effects::removable_if_unused`] | `dce` |
//! | may it be merged with an equal one that dominates it? | [`Effects::is_pure`] | `cse` |
//! | may it be moved to other control flow, or duplicated onto paths that diverge? | [`Effects::is_convergent`] | passes that hoist, sink or speculate |
//! | may two instructions swap places? | [`Effects::may_reorder`] | text backends inlining a value into its use |
//! | does it take implicit derivatives? | [`Effects::DERIVATIVES`] | backends (stage checks, derivative groups) |
//!
//! [`Module::memory_accesses`] says which pointer operands an instruction reads or writes
//! through, and how ([`Access`]): the entry-point usage analysis
//! ([`crate::analysis::ModuleInfo`]) attributes them to globals.

use smallvec::SmallVec;

use crate::imm::{AddressSpace, Intrinsic};
use crate::module::{InstId, Module};
use crate::ops::Op;

/// What executing an instruction does besides computing its result (a set of flags; the
/// empty set is a pure computation).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Effects(u8);

/// `Effects(read|write)`: the flags by name, not the bits.
impl std::fmt::Debug for Effects {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Effects({})", self.spelling())
    }
}

impl Effects {
    /// None: the result depends only on the operands.
    pub const PURE: Effects = Effects(0);
    /// The result depends on memory (or on state of the invocation) that may change while
    /// the shader runs: loads, texture and buffer reads, atomics, calls.
    pub const READ: Effects = Effects(1);
    /// Writes memory: stores, texture and buffer stores, atomics, calls, the intrinsics that
    /// write through an `out` pointer operand (`frexp`, `modf`, `sincos`).
    pub const WRITE: Effects = Effects(1 << 1);
    /// Orders memory and synchronizes invocations (`barrier`; a call may contain one): no
    /// memory access moves across it.
    pub const BARRIER: Effects = Effects(1 << 2);
    /// The result depends on which invocations execute it together (wave and quad
    /// operations, derivatives, implicit-level-of-detail sampling, barriers): it must stay
    /// under the control flow it is in, neither hoisted out of a branch, sunk into one, nor
    /// duplicated onto paths that diverge.
    pub const CONVERGENT: Effects = Effects(1 << 3);
    /// Takes implicit derivatives (`ddx`, `fwidth`, `sample`, `sample_bias`, `sample_cmp`,
    /// `sample_cmp_bias`, `query_lod`): only fragment shaders, and compute shaders with a
    /// derivative group, have them. Always comes with [`Effects::CONVERGENT`].
    pub const DERIVATIVES: Effects = Effects(1 << 4);
    /// Transfers control (terminators).
    pub const CONTROL: Effects = Effects(1 << 5);
    /// The result is fresh storage (`var`): two are never the same, even with equal operands.
    pub const ALLOCATES: Effects = Effects(1 << 6);
    /// An effect outside memory (`debug_printf`'s message, `debug_break`'s stop): never
    /// removed or merged, kept in order with other outputs; memory accesses may move across
    /// it (what it prints is its operands).
    pub const OUTPUT: Effects = Effects(1 << 7);
    /// What a call of a function whose body is unknown may do.
    pub const UNKNOWN_CALL: Effects = Effects(
        Self::READ.0 | Self::WRITE.0 | Self::BARRIER.0 | Self::CONVERGENT.0 | Self::OUTPUT.0,
    );

    const NAMES: [(Effects, &'static str); 8] = [
        (Effects::READ, "read"),
        (Effects::WRITE, "write"),
        (Effects::BARRIER, "barrier"),
        (Effects::CONVERGENT, "convergent"),
        (Effects::DERIVATIVES, "derivatives"),
        (Effects::CONTROL, "control"),
        (Effects::ALLOCATES, "allocates"),
        (Effects::OUTPUT, "output"),
    ];

    /// True when every flag of `other` is set.
    #[inline]
    pub fn contains(self, other: Effects) -> bool {
        self.0 & other.0 == other.0
    }

    /// True when some flag of `other` is set.
    #[inline]
    pub fn intersects(self, other: Effects) -> bool {
        self.0 & other.0 != 0
    }

    /// The union of two sets.
    #[inline]
    pub const fn union(self, other: Effects) -> Effects {
        Effects(self.0 | other.0)
    }

    /// The flags of `self` that are not in `other`.
    #[inline]
    pub fn without(self, other: Effects) -> Effects {
        Effects(self.0 & !other.0)
    }

    /// No flag at all: the instruction may be merged with an equal one that dominates it
    /// (CSE), moved, duplicated or removed when unused.
    #[inline]
    pub fn is_pure(self) -> bool {
        self.0 == 0
    }

    /// True when the instruction may be deleted once nothing uses its result: it neither
    /// writes memory, nor synchronizes, nor transfers control, nor has an output. Reads,
    /// convergent operations and allocations whose results nobody uses are removable.
    #[inline]
    pub fn removable_if_unused(self) -> bool {
        !self.intersects(Effects(
            Self::WRITE.0 | Self::BARRIER.0 | Self::CONTROL.0 | Self::OUTPUT.0,
        ))
    }

    /// True when the instruction must stay under the control flow it is in
    /// ([`Effects::CONVERGENT`]).
    #[inline]
    pub fn is_convergent(self) -> bool {
        self.contains(Self::CONVERGENT)
    }

    /// True when two instructions with effects `self` and `other` may execute in either
    /// order in one block (their data dependences aside): neither transfers control, they
    /// do not both touch memory where one writes it, and a barrier is crossed only by
    /// instructions that touch no memory and are not convergent.
    pub fn may_reorder(self, other: Effects) -> bool {
        if self.contains(Self::CONTROL)
            || other.contains(Self::CONTROL)
            || (self.contains(Self::OUTPUT) && other.contains(Self::OUTPUT))
        {
            return false;
        }
        let memory = Effects(Self::READ.0 | Self::WRITE.0);
        let ordered = Effects(memory.0 | Self::BARRIER.0 | Self::CONVERGENT.0);
        if (self.contains(Self::BARRIER) && other.intersects(ordered))
            || (other.contains(Self::BARRIER) && self.intersects(ordered))
        {
            return false;
        }
        !((self.contains(Self::WRITE) && other.intersects(memory))
            || (other.contains(Self::WRITE) && self.intersects(memory)))
    }

    /// The flags' names joined by `|` (`read|write`), or `pure`.
    pub fn spelling(self) -> String {
        if self.is_pure() {
            return "pure".to_string();
        }
        let parts: Vec<&str> = Self::NAMES
            .iter()
            .filter(|(f, _)| self.contains(*f))
            .map(|(_, n)| *n)
            .collect();
        parts.join("|")
    }
}

impl std::ops::BitOr for Effects {
    type Output = Effects;
    fn bitor(self, rhs: Effects) -> Effects {
        self.union(rhs)
    }
}

impl std::ops::BitOrAssign for Effects {
    fn bitor_assign(&mut self, rhs: Effects) {
        *self = self.union(rhs);
    }
}

/// How an instruction (or a function, or an entry point) accesses the memory a pointer
/// designates: a set of flags, empty when the pointer is only named (passed along, queried
/// for its size).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Access(u8);

/// `Access(read|write)`: the flags by name, not the bits.
impl std::fmt::Debug for Access {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Access({})", self.spelling())
    }
}

impl Access {
    /// Not read, not written.
    pub const NONE: Access = Access(0);
    /// Read (`load`, texture and buffer reads, the pointer operand of `interpolate_at_*`).
    pub const READ: Access = Access(1);
    /// Written (`store`, `texture_store`, `buffer_store`, an intrinsic's `out` pointer).
    pub const WRITE: Access = Access(1 << 1);
    /// Read and written atomically (`atomic_rmw`, `atomic_cmpxchg`).
    pub const ATOMIC: Access = Access(1 << 2);

    /// True when every flag of `other` is set.
    #[inline]
    pub fn contains(self, other: Access) -> bool {
        self.0 & other.0 == other.0
    }

    /// The union of two sets.
    #[inline]
    pub fn union(self, other: Access) -> Access {
        Access(self.0 | other.0)
    }

    /// True when nothing is read or written.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// True when the memory is read, plainly or atomically.
    #[inline]
    pub fn reads(self) -> bool {
        self.0 & (Self::READ.0 | Self::ATOMIC.0) != 0
    }

    /// True when the memory is written, plainly or atomically.
    #[inline]
    pub fn writes(self) -> bool {
        self.0 & (Self::WRITE.0 | Self::ATOMIC.0) != 0
    }

    /// The flags' names joined by `|` (`read|write`), or `none`.
    pub fn spelling(self) -> String {
        let parts: Vec<&str> = [
            (Access::READ, "read"),
            (Access::WRITE, "write"),
            (Access::ATOMIC, "atomic"),
        ]
        .iter()
        .filter(|(f, _)| self.contains(*f))
        .map(|(_, n)| *n)
        .collect();
        if parts.is_empty() {
            "none".to_string()
        } else {
            parts.join("|")
        }
    }
}

impl std::ops::BitOr for Access {
    type Output = Access;
    fn bitor(self, rhs: Access) -> Access {
        self.union(rhs)
    }
}

impl std::ops::BitOrAssign for Access {
    fn bitor_assign(&mut self, rhs: Access) {
        *self = self.union(rhs);
    }
}

impl Op {
    /// The effects of an instruction with this opcode, judged by the opcode alone: for
    /// `call_intrinsic` the union over every intrinsic, and a `load` as a read whatever it
    /// reads. [`Module::effects`] is exact for one instruction and never has a flag this
    /// has not, so what holds here (pure, removable) holds for every instruction of the
    /// opcode, without looking at its operands. Values that are not instructions (types,
    /// constants, decorations, blocks, parameters) are pure.
    pub fn effects(self) -> Effects {
        self.info().effects
    }
}

impl Intrinsic {
    /// The effects of `call_intrinsic` of this intrinsic (its row of
    /// [`crate::intrinsic_facts`]).
    pub fn effects(self) -> Effects {
        self.facts().effects
    }

    /// The operands of `call_intrinsic` of this intrinsic (counting the intrinsic itself as
    /// operand 0) that are pointers it accesses memory through, and how.
    pub(crate) fn pointer_operands(self) -> &'static [(usize, Access)] {
        use Intrinsic::*;
        match self {
            Frexp | Modf => &[(2, Access::WRITE)],
            Sincos => &[(2, Access::WRITE), (3, Access::WRITE)],
            InterpolateAtCentroid
            | InterpolateAtSample
            | InterpolateAtOffset
            | AttributeAtVertex => &[(1, Access::READ)],
            _ => &[],
        }
    }
}

/// Memory nobody writes while a shader runs: constant buffers, resource handles, stage
/// inputs, push constants. Reading it is pure.
fn is_read_only_space(space: AddressSpace) -> bool {
    matches!(
        space,
        AddressSpace::Uniform
            | AddressSpace::UniformConstant
            | AddressSpace::Input
            | AddressSpace::PushConstant
    )
}

impl Module {
    /// The effects of instruction `id` (pure for anything that is not an instruction, or
    /// not in the module): [`Op::effects`], made exact for this instruction. A
    /// `call_intrinsic` has its intrinsic's effects ([`Intrinsic::effects`]); a `load` (or
    /// an `interpolate_at_*`) of memory nobody writes while a shader runs (`uniform`,
    /// `uniform_constant`, `input` or `push_constant`) is pure.
    pub fn effects(&self, id: InstId) -> Effects {
        let Some(op) = self.try_op(id) else {
            return Effects::PURE;
        };
        let fx = match op {
            Op::CallIntrinsic => match self.imm_operand(id, 0).and_then(Intrinsic::from_u32) {
                Some(which) => which.effects(),
                None => op.effects(),
            },
            _ => op.effects(),
        };
        if fx == Effects::READ {
            let pointer = match op {
                Op::Load => self.try_operand(id, 0),
                Op::CallIntrinsic => self.memory_accesses(id).first().map(|&(p, _)| p),
                _ => None,
            };
            if pointer
                .and_then(|p| self.ty(p))
                .and_then(|t| self.address_space(t))
                .is_some_and(is_read_only_space)
            {
                return Effects::PURE;
            }
        }
        fx
    }

    /// The pointer operands instruction `id` reads or writes memory through, and how, in
    /// operand order: the pointer of `load`, `store`, `atomic_*`; the texture of texture
    /// reads (`sample` .. `texture_load`, `gather`) and `texture_store`; the buffer of
    /// `buffer_load`/`buffer_store`; the pointers of `frexp`, `modf`, `sincos` and
    /// `interpolate_at_*`; the acceleration structure and payload of `trace_ray`, the data of
    /// `execute_callable`, the query of the `ray_query_*` instructions, the payload of
    /// `dispatch_mesh`. Size queries (`query_*`, `array_length`) access nothing, and a
    /// `call` passes its pointer arguments on: what the callee does with them is the
    /// usage analysis's business ([`crate::analysis::ModuleInfo`]).
    pub fn memory_accesses(&self, id: InstId) -> SmallVec<[(InstId, Access); 2]> {
        let mut out = SmallVec::new();
        let Some(op) = self.try_op(id) else {
            return out;
        };
        let mut at = |k: usize, a: Access| {
            if let Some(p) = self.try_operand(id, k) {
                out.push((p, a));
            }
        };
        match op {
            Op::Load | Op::BufferLoad => at(0, Access::READ),
            Op::Store | Op::TextureStore | Op::BufferStore => at(0, Access::WRITE),
            Op::AtomicRmw => at(1, Access::ATOMIC),
            Op::AtomicCmpXchg => at(0, Access::ATOMIC),
            Op::QuerySize | Op::QueryLevels | Op::QuerySamples | Op::QueryLod => {}
            Op::TraceRay => {
                at(0, Access::READ);
                at(10, Access::READ | Access::WRITE);
            }
            Op::ExecuteCallable => at(1, Access::READ | Access::WRITE),
            Op::RayQueryInit => {
                at(0, Access::WRITE);
                at(1, Access::READ);
            }
            Op::RayQueryProceed
            | Op::RayQueryAbort
            | Op::RayQueryConfirm
            | Op::RayQueryGenerate => at(0, Access::READ | Access::WRITE),
            Op::RayQueryGet => at(1, Access::READ),
            Op::DispatchMesh => at(3, Access::READ),
            _ if op.is_texture_read() => at(0, Access::READ),
            Op::CallIntrinsic => {
                if let Some(which) = self.imm_operand(id, 0).and_then(Intrinsic::from_u32) {
                    for &(k, a) in which.pointer_operands() {
                        at(k, a);
                    }
                }
            }
            _ => {}
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::ALL_OPS;

    /// `Debug` names the flags, so a failing assertion says which access or effect it saw.
    #[test]
    fn debug_names_the_flags() {
        assert_eq!(format!("{:?}", Access::READ), "Access(read)");
        assert_eq!(
            format!("{:?}", Access::READ | Access::WRITE),
            "Access(read|write)"
        );
        assert_eq!(format!("{:?}", Access::NONE), "Access(none)");
        assert_eq!(format!("{:?}", Effects::PURE), "Effects(pure)");
        assert_eq!(
            format!("{:?}", Effects::READ | Effects::CONVERGENT),
            "Effects(read|convergent)"
        );
        assert_eq!(
            format!(
                "{:?}",
                crate::imm::BarrierFlags::GROUP_SYNC.union(crate::imm::BarrierFlags(16))
            ),
            "BarrierFlags(sync|0x10)"
        );
    }

    #[test]
    fn only_instructions_and_terminators_have_effects() {
        for &op in ALL_OPS {
            if !op.is_instruction() && !op.is_terminator() {
                assert!(op.effects().is_pure(), "{op:?}");
            }
            assert_eq!(
                op.effects().contains(Effects::CONTROL),
                op.is_terminator(),
                "{op:?}"
            );
        }
    }

    #[test]
    fn every_intrinsic_is_within_call_intrinsic_by_opcode() {
        let by_opcode = Op::CallIntrinsic.effects();
        for &which in Intrinsic::ALL {
            let fx = which.effects();
            assert_eq!(fx.union(by_opcode), by_opcode, "{which:?}");
            // Derivatives always come with convergence.
            if fx.contains(Effects::DERIVATIVES) {
                assert!(fx.is_convergent(), "{which:?}");
            }
        }
        for &op in ALL_OPS {
            if op.effects().contains(Effects::DERIVATIVES) {
                assert!(op.effects().is_convergent(), "{op:?}");
            }
        }
    }

    #[test]
    fn removal_and_reordering_rules() {
        assert!(Effects::READ.removable_if_unused());
        assert!(Effects::CONVERGENT.removable_if_unused());
        assert!(Effects::ALLOCATES.removable_if_unused());
        assert!(!Effects::WRITE.removable_if_unused());
        assert!(!Effects::BARRIER.removable_if_unused());
        assert!(!Effects::CONTROL.removable_if_unused());
        assert!(!Effects::UNKNOWN_CALL.removable_if_unused());

        assert!(Effects::READ.may_reorder(Effects::READ));
        assert!(!Effects::READ.may_reorder(Effects::WRITE));
        assert!(!Effects::WRITE.may_reorder(Effects::READ));
        assert!(Effects::PURE.may_reorder(Effects::WRITE));
        assert!(Effects::PURE.may_reorder(Effects::BARRIER));
        let barrier = Op::Barrier.effects();
        assert!(!Effects::READ.may_reorder(barrier));
        assert!(!Effects::CONVERGENT.may_reorder(barrier));
        assert!(!Effects::PURE.may_reorder(Effects::CONTROL));
        assert_eq!((Effects::READ | Effects::WRITE).spelling(), "read|write");
        assert_eq!(Effects::PURE.spelling(), "pure");
    }
}
