//! `flatten_resource_arrays`: dxc's `-fspv-flatten-resource-arrays`. An array of `N`
//! resources (textures, samplers, constant buffers, structured buffers) at binding `b`
//! becomes `N` globals `name[0]` .. `name[N-1]` at bindings `b` .. `b+N-1` (the front end
//! reserved them), each access through a constant index naming its element's global.
//!
//! DXC rewrites a run-time index into a switch over the elements; this pass refuses it
//! (OSG0013, naming the array), as it refuses arrays of arrays, unsized arrays and append or
//! consume buffers (their counters): a clear refusal rather than an array left whole behind
//! the option.

use oneshader_ir::diag::Diagnostic;
use oneshader_ir::{AddressSpace, InstId, Module, Op, Slot};

use crate::{Pass, PassError};

/// The `flatten_resource_arrays` pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlattenResourceArrays {
    /// Leave an array indexed by a run-time value whole instead of refusing it: the facade
    /// flattens what it can before `-O` (so the reflection describes the elements) and the
    /// rest after `-O`, once unrolled loops have made their indices constant.
    pub leave_dynamic: bool,
}

const CODE: &str = "OSG0013";

impl Pass for FlattenResourceArrays {
    fn name(&self) -> &'static str {
        "flatten_resource_arrays"
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        for g in m.globals() {
            let g = g.id();
            let Some((space, pointee)) = resource_array(m, g) else {
                continue;
            };
            let name = m.name(g).unwrap_or("?").to_string();
            let refuse = |m: &Module, at: InstId, why: &str| {
                PassError::refusal(
                    "flatten_resource_arrays",
                    Diagnostic::error(
                        CODE,
                        format!("-fspv-flatten-resource-arrays: `{name}` {why}"),
                    )
                    .at_inst_or_use(m, at),
                )
            };
            if m.op(pointee) == Op::RuntimeArray {
                return Err(refuse(
                    m,
                    g,
                    "is an unsized array, which has no elements to bind one by one",
                ));
            }
            let elem = m.operand(pointee, 0);
            let tbuffer = m.has_decoration(g, Op::TextureBuffer);
            if resource_element(m, space, elem, tbuffer).is_none_or(|e| m.op(e) == Op::Array) {
                return Err(refuse(
                    m,
                    g,
                    "is an array of arrays; only one dimension is flattened",
                ));
            }
            if m.has_decoration(g, Op::Counter) {
                return Err(refuse(
                    m,
                    g,
                    "has counters (append, consume or counter-using buffers), which are not flattened",
                ));
            }
            let n = m.array_len(pointee).unwrap_or(0);
            // Every use an element address at a constant index (or the global's decorations).
            let mut accesses: Vec<(InstId, u32)> = Vec::new();
            for u in m.uses_snapshot(g) {
                let op = m.op(u.user);
                if op.is_decoration() {
                    continue;
                }
                let index = (op == Op::ElementAddr && u.slot == Slot::Operand(0))
                    .then(|| m.try_operand(u.user, 1))
                    .flatten()
                    .filter(|&i| m.op(i) == Op::ConstInt)
                    .and_then(|i| m.literal_bits(i))
                    .filter(|&k| k < u64::from(n));
                match index {
                    Some(k) => accesses.push((u.user, k as u32)),
                    None if self.leave_dynamic => {
                        accesses.clear();
                        break;
                    }
                    None => {
                        return Err(refuse(
                            m,
                            u.user,
                            "is indexed by a value not known when it is compiled (or out of \
                             range); DXC turns that into a switch over the elements, OneShader \
                             flattens constant indices only",
                        ));
                    }
                }
            }
            if accesses.is_empty() && self.leave_dynamic {
                continue;
            }
            // One global per element, with the array's decorations and its element's binding.
            let decorations: Vec<(Op, Vec<InstId>)> = m
                .decorations(g)
                .map(|d| (m.op(d), m.operands_vec(d)))
                .collect();
            let mut elements = Vec::with_capacity(n as usize);
            for k in 0..n {
                let e = m
                    .add_global(&format!("{name}[{k}]"), space, elem, None)
                    .id();
                for &(op, ref operands) in &decorations {
                    let imm = |i: usize| operands.get(i).and_then(|&x| m.literal_bits(x));
                    match op {
                        Op::Binding => {
                            let (set, b) = (imm(0).unwrap_or(0), imm(1).unwrap_or(0));
                            m.decorate_imm(e, Op::Binding, &[set as u32, b as u32 + k]);
                        }
                        Op::HlslRegister => {
                            let num = imm(1).unwrap_or(u64::from(u32::MAX)) as u32;
                            let num = if num == u32::MAX { num } else { num + k };
                            let vals = [
                                imm(0).unwrap_or(1) as u32,
                                num,
                                imm(2).unwrap_or(0) as u32,
                                imm(3).unwrap_or(0) as u32,
                            ];
                            m.decorate_imm(e, Op::HlslRegister, &vals);
                        }
                        _ => {
                            m.decorate(e, op, operands);
                        }
                    }
                }
                if let Some(p) = m.position(g) {
                    m.set_position(e, Some(p));
                }
                elements.push(e);
            }
            for (addr, k) in accesses {
                m.replace_uses_with(addr, elements[k as usize]);
                m.set_operands(addr, &[])
                    .map_err(|e| PassError::new("flatten_resource_arrays", e.to_string()))?;
                m.remove(addr)
                    .map_err(|e| PassError::new("flatten_resource_arrays", format!("{e:?}")))?;
            }
            m.remove(g)
                .map_err(|e| PassError::new("flatten_resource_arrays", format!("{e:?}")))?;
            changed = true;
        }
        Ok(changed)
    }
}

/// The space and array type of a resource array global: textures and samplers in
/// `uniform_constant`, constant buffers in `uniform`, structured buffers in `storage_buffer`
/// (an array of runtime arrays or of structs ending in one). `None` for anything else.
fn resource_array(m: &Module, g: InstId) -> Option<(AddressSpace, InstId)> {
    m.find_decoration(g, Op::Binding)?;
    let ty = m.ty(g)?;
    let space = m.address_space(ty)?;
    let pointee = m.pointee(ty)?;
    if !matches!(m.op(pointee), Op::Array | Op::RuntimeArray) {
        return None;
    }
    let elem = m.operand(pointee, 0);
    resource_element(m, space, elem, m.has_decoration(g, Op::TextureBuffer))?;
    Some((space, pointee))
}

/// `elem` when it is what one descriptor of `space` holds (an array of them counts, for the
/// arrays-of-arrays refusal); `tbuffer` for a global of texture buffers, whose descriptors
/// hold any struct.
fn resource_element(
    m: &Module,
    space: AddressSpace,
    elem: InstId,
    tbuffer: bool,
) -> Option<InstId> {
    let inner = if m.op(elem) == Op::Array {
        m.operand(elem, 0)
    } else {
        elem
    };
    let ok = match space {
        AddressSpace::UniformConstant => !matches!(m.op(inner), Op::Array | Op::RuntimeArray),
        AddressSpace::Uniform => m.op(inner) == Op::Struct,
        // A structured buffer is a runtime array (or a struct ending in one); an array of
        // other structs is one buffer's contents (`RWStructuredBuffer<S>`), not buffers,
        // unless they are texture buffers (`TextureBuffer<S> t[n]`).
        AddressSpace::StorageBuffer => match m.op(inner) {
            Op::RuntimeArray => true,
            Op::Struct if tbuffer => true,
            Op::Struct => m
                .struct_fields(inner)
                .last()
                .and_then(|&f| m.ty(f))
                .is_some_and(|t| m.op(t) == Op::RuntimeArray),
            _ => false,
        },
        _ => false,
    };
    ok.then_some(elem)
}
