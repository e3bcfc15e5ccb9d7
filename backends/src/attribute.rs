//! Shared by the backends that read inputs at a vertex (`attribute_at_vertex`, HLSL
//! `GetAttributeAtVertex`): which input, and which part of it, the intrinsic's operand
//! designates.

use oneshader_ir::{InstId, Op};
use smallvec::SmallVec;

/// The input global an `attribute_at_vertex` operand `p` reads, and the indices of the part
/// of it `p` designates (outermost first): `p` is a function variable HLSL lowering stored the
/// attribute into, so the value stored is followed back through loads, constant extracts,
/// field and constant element addresses, the members of `construct`s (an input struct built
/// from its fields) and other such variables (stored once, only read otherwise: a parameter
/// copied into its inlined callee's local) to an `input` global. `None` for anything else
/// (a value computed from the input, a parameter of a function not inlined).
pub(crate) fn trace(m: &oneshader_ir::Module, p: InstId) -> Option<(InstId, SmallVec<[Idx; 4]>)> {
    let input = |v: InstId| {
        m.op(v) == Op::Global
            && m.ty(v).and_then(|t| m.address_space(t)) == Some(oneshader_ir::AddressSpace::Input)
    };
    // Indices applied after the current value or pointer, outermost first.
    let mut rest: SmallVec<[Idx; 4]> = SmallVec::new();
    let mut cur = Cur::Ptr(p);
    let mut found = None;
    for _ in 0..64 {
        match cur {
            Cur::Val(v) => match m.try_op(v) {
                Some(Op::Load) => cur = Cur::Ptr(m.operand(v, 0)),
                Some(Op::Extract) => {
                    let mut idx: SmallVec<[Idx; 4]> = SmallVec::new();
                    for k in 1..m.num_operands(v) {
                        idx.push(Idx::Imm(m.imm_operand(v, k)?));
                    }
                    idx.extend_from_slice(&rest);
                    rest = idx;
                    cur = Cur::Val(m.operand(v, 0));
                }
                Some(Op::Construct) if !rest.is_empty() => {
                    let Idx::Imm(k) = rest[0] else {
                        return None;
                    };
                    let t = m.ty(v)?;
                    let n = m.num_operands(v);
                    let direct = match m.op(t) {
                        Op::Struct | Op::Array => true,
                        // A vector built of scalars, one per component.
                        Op::Vector => m.vector_len(t) == Some(n as u32),
                        _ => false,
                    };
                    if !direct || k as usize >= n {
                        return None;
                    }
                    rest.remove(0);
                    cur = Cur::Val(m.operand(v, k as usize));
                }
                _ => return None,
            },
            Cur::Ptr(q) if input(q) => {
                found = Some(q);
                break;
            }
            Cur::Ptr(q) => match m.try_op(q) {
                Some(Op::FieldAddr) => {
                    let k = m.imm_operand(q, 1)?;
                    rest.insert(0, Idx::Imm(k));
                    cur = Cur::Ptr(m.operand(q, 0));
                }
                Some(Op::ElementAddr) => {
                    let k = m.operand(q, 1);
                    if !m.try_op(k).is_some_and(|o| o.is_constant()) {
                        return None;
                    }
                    rest.insert(0, Idx::Const(k));
                    cur = Cur::Ptr(m.operand(q, 0));
                }
                Some(Op::Var) => {
                    cur = Cur::Val(stored_once(m, q)?);
                }
                _ => return None,
            },
        }
    }
    found.map(|g| (g, rest))
}

/// True when some function of `m` reads an input at a vertex: the backends then declare
/// every `flat` fragment input per vertex, as DXC does.
pub(crate) fn module_reads_at_vertex(m: &oneshader_ir::Module) -> bool {
    m.functions().into_iter().any(|f| {
        f.blocks(m).into_iter().any(|b| {
            m.children(b.id()).any(|i| {
                m.op(i) == Op::CallIntrinsic
                    && m.imm_operand(i, 0)
                        .and_then(oneshader_ir::Intrinsic::from_u32)
                        == Some(oneshader_ir::Intrinsic::AttributeAtVertex)
            })
        })
    })
}

/// Where [`trace`] is in its walk: a value or a pointer.
#[derive(Clone, Copy)]
enum Cur {
    Val(InstId),
    Ptr(InstId),
}

/// An index of the walk: an immediate (field or extract index) or an IR constant (element).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Idx {
    /// A field or extract index.
    Imm(u32),
    /// An IR constant (an element address's index).
    Const(InstId),
}

/// The one value stored into the variable `var`, when it is stored exactly once (stores of
/// `undef`, the inliner's reset at each call, aside) and otherwise only read: by loads,
/// intrinsics and field or element addresses that are themselves only read.
fn stored_once(m: &oneshader_ir::Module, var: InstId) -> Option<InstId> {
    fn read_only(m: &oneshader_ir::Module, p: InstId, depth: u32) -> bool {
        depth < 16
            && m.uses(p).all(|u| match m.op(u.user) {
                Op::Load | Op::CallIntrinsic => true,
                Op::FieldAddr | Op::ElementAddr if u.slot == oneshader_ir::Slot::Operand(0) => {
                    read_only(m, u.user, depth + 1)
                }
                _ => false,
            })
    }
    let mut stored = None;
    for u in m.uses(var) {
        match (m.op(u.user), u.slot) {
            (Op::Store, oneshader_ir::Slot::Operand(0)) => {
                let v = m.operand(u.user, 1);
                if m.try_op(v) == Some(Op::Undef) {
                    continue;
                }
                if stored.replace(v).is_some() {
                    return None;
                }
            }
            (Op::Load | Op::CallIntrinsic, _) => {}
            (Op::FieldAddr | Op::ElementAddr, oneshader_ir::Slot::Operand(0)) => {
                if !read_only(m, u.user, 0) {
                    return None;
                }
            }
            _ => return None,
        }
    }
    stored
}
