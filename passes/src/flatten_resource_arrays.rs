//! `flatten_resource_arrays`: dxc's `-fspv-flatten-resource-arrays`. An array of `N`
//! resources (textures, samplers, constant buffers, structured buffers) at binding `b`
//! becomes `N` globals `name[0]` .. `name[N-1]` at bindings `b` .. `b+N-1` (the front end
//! reserved them), each access through a constant index naming its element's global.
//!
//! An access through a run-time index becomes a switch over the elements, as DXC's
//! legalization builds it (spirv-opt's `--replace-desc-array-access-using-var-index`): each
//! case does the access (down to the load, store, texture operation or atomic) with its
//! element's global, the value joins in the switch's merge, and an index out of range (the
//! default case) does not access anything and yields zero. [`crate::flatten_dynamic_index`]
//! builds it and says what it refuses (an element passed to a function, an access in a loop's
//! continue block). The pass refuses (OSG0013, naming the array) what cannot be flattened at
//! all: unsized arrays, arrays of arrays, append or consume buffers (their counters), and
//! constant indices out of range: a clear refusal rather than an array left whole behind the
//! option.

use oneshader_ir::diag::Diagnostic;
use oneshader_ir::{AddressSpace, InstId, Module, Op, Slot};

use crate::{Pass, PassError, flatten_dynamic_index};

/// The `flatten_resource_arrays` pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlattenResourceArrays {
    /// Leave an array indexed by a run-time value whole instead of building switches: the
    /// facade flattens what it can right after the front end (so the reflection describes
    /// the elements) and the rest once the module is specialized (no resource is passed to
    /// a function any more) and, at `-O`, optimized (unrolled loops made indices constant).
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
            // Every use an element address: at a constant index, or a run-time one.
            let mut accesses: Vec<(InstId, u32)> = Vec::new();
            let mut dynamic: Vec<InstId> = Vec::new();
            let mut whole: Option<InstId> = None;
            for u in m.uses_snapshot(g) {
                let op = m.op(u.user);
                if op.is_decoration() {
                    continue;
                }
                if op != Op::ElementAddr || u.slot != Slot::Operand(0) {
                    // E.g. the whole array passed to a function, until specialization.
                    whole = Some(u.user);
                    continue;
                }
                let index = m.operand(u.user, 1);
                if m.op(index) != Op::ConstInt {
                    dynamic.push(u.user);
                    continue;
                }
                match m.literal_bits(index).filter(|&k| k < u64::from(n)) {
                    Some(k) => accesses.push((u.user, k as u32)),
                    None => {
                        return Err(refuse(m, u.user, "is indexed by a constant out of range"));
                    }
                }
            }
            if self.leave_dynamic && (whole.is_some() || !dynamic.is_empty()) {
                continue;
            }
            if let Some(u) = whole {
                return Err(refuse(
                    m,
                    u,
                    "is used other than through one of its elements",
                ));
            }
            // What the switches cannot do is refused before anything changes.
            for &root in &dynamic {
                flatten_dynamic_index::check(m, root).map_err(|e| refuse(m, e.at, e.why))?;
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
            for root in dynamic {
                flatten_dynamic_index::rewrite(m, root, &elements)?;
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
