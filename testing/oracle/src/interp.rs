//! The reference interpreter as a voice: an IR compute shader run invocation by invocation
//! on the same inputs the GPU voices get, leaving buffers to compare with theirs.
//!
//! The dispatch runs sequentially: workgroups in order (x fastest), and inside each the
//! invocations in order of their local index, each in a fresh interpreter (so private
//! globals start over) that sees the buffers the previous invocations left. Built-in inputs
//! (`global_invocation_id`, `local_invocation_id`, `workgroup_id`,
//! `local_invocation_index`, `num_workgroups`) are set per invocation.
//!
//! That is a faithful model only for invocations that do not communicate: a module with a
//! `barrier` or a workgroup global is refused ([`OracleError::Interp`]), and results that
//! depend on the order of atomic operations need [`crate::Rule::Unordered`] as on the GPU.
//! Buffer contents cross between words and interpreter values through the reflected layout
//! (a `bool` is a 32-bit word, nonzero for true); textures, texel buffers and byte-address
//! access are not modelled by the interpreter, which reports them.

use oneshader::ir::{AddressSpace, BuiltIn, Func, Module, Op};
use oneshader::passes::interp::{Exit, Interpreter, Value};
use oneshader::passes::semantics::Scalar as IScalar;
use oneshader::reflect::{Reflection, Scalar, Type};
use oneshader_vulkan_harness::{Binding, Resource};

use crate::OracleError;
use crate::data::Inputs;
use crate::layout::scalar_size;

fn err(msg: impl Into<String>) -> OracleError {
    OracleError::Interp(msg.into())
}

/// The function `entry` names (`entry_point(compute, "entry")`).
fn entry_func(m: &Module, entry: &str) -> Option<Func> {
    m.functions().into_iter().find(|f| {
        m.find_decoration(f.id(), Op::EntryPoint)
            .and_then(|d| m.try_operand(d, 1))
            .and_then(|s| m.literal_str(s))
            == Some(entry)
    })
}

/// Runs `entry` of `m` over `inputs` and returns the bindings as the dispatch left them.
pub fn run(
    m: &Module,
    entry: &str,
    reflection: &Reflection,
    inputs: &Inputs,
) -> Result<Vec<Binding>, OracleError> {
    let f = entry_func(m, entry).ok_or_else(|| err(format!("no entry point `{entry}`")))?;
    let size = reflection
        .entry_point(entry)
        .and_then(|e| e.workgroup_size)
        .ok_or_else(|| err(format!("no workgroup size for `{entry}`")))?;
    for func in m.functions() {
        for b in func.blocks(m) {
            if b.insts(m).iter().any(|&i| m.op(i) == Op::Barrier) {
                return Err(err(
                    "the module has a barrier: its invocations communicate, which a sequential run does not model",
                ));
            }
        }
    }
    // The globals the dispatch fills, with their reflected contents.
    let mut filled = Vec::new(); // (global, index into inputs.bindings or usize::MAX for push constants, type)
    let mut builtins = Vec::new();
    for g in m.globals() {
        let space = m.ty(g.id()).and_then(|t| m.address_space(t));
        if space == Some(AddressSpace::Workgroup) {
            return Err(err("the module has a workgroup global"));
        }
        if let Some(d) = m.find_decoration(g.id(), Op::BuiltinDeco) {
            let b = m.imm_operand(d, 0).and_then(BuiltIn::from_u32);
            builtins.push((g, b));
            continue;
        }
        if space == Some(AddressSpace::PushConstant) {
            let name = m.name(g.id()).unwrap_or("");
            if let Some(pc) = reflection.push_constants.iter().find(|p| p.name == name) {
                filled.push((g, usize::MAX, pc.ty.clone()));
            }
            continue;
        }
        let Some(d) = m.find_decoration(g.id(), Op::Binding) else {
            continue;
        };
        let (Some(set), Some(binding)) = (m.imm_operand(d, 0), m.imm_operand(d, 1)) else {
            continue;
        };
        let Some(at) = inputs
            .bindings
            .iter()
            .position(|b| b.set == set && b.binding == binding)
        else {
            continue;
        };
        let res = reflection
            .resources
            .iter()
            .find(|r| r.set == set && r.binding == binding)
            .ok_or_else(|| err(format!("no reflected resource at ({set}, {binding})")))?;
        match (&inputs.bindings[at].resource, &res.ty) {
            (Resource::StorageBuffer(_) | Resource::UniformBuffer(_), Some(ty)) => {
                filled.push((g, at, ty.clone()))
            }
            _ => {
                return Err(err(format!(
                    "`{}` is not a buffer the interpreter models",
                    res.name
                )));
            }
        }
    }
    let mut out = inputs.bindings.clone();
    let mut values = Vec::new();
    for (_, at, ty) in &filled {
        let words: &[u32] = if *at == usize::MAX {
            &inputs.push_constants
        } else {
            out[*at].words()
        };
        let bytes = bytes_of(words);
        values.push(decode(ty, &bytes, 0, bytes.len() as u32)?);
    }
    let groups = inputs.groups;
    for gz in 0..groups[2] {
        for gy in 0..groups[1] {
            for gx in 0..groups[0] {
                for lz in 0..size[2] {
                    for ly in 0..size[1] {
                        for lx in 0..size[0] {
                            let mut it = Interpreter::new(m);
                            for ((g, _, _), v) in filled.iter().zip(&values) {
                                it.set_global(*g, v.clone())
                                    .map_err(|e| err(e.to_string()))?;
                            }
                            let u3 = |v: [u32; 3]| {
                                Value::Composite(v.iter().map(|&x| Value::u32(x)).collect())
                            };
                            for (g, b) in &builtins {
                                let v = match b {
                                    Some(BuiltIn::GlobalInvocationId) => u3([
                                        gx * size[0] + lx,
                                        gy * size[1] + ly,
                                        gz * size[2] + lz,
                                    ]),
                                    Some(BuiltIn::LocalInvocationId) => u3([lx, ly, lz]),
                                    Some(BuiltIn::WorkgroupId) => u3([gx, gy, gz]),
                                    Some(BuiltIn::NumWorkgroups) => u3(groups),
                                    Some(BuiltIn::LocalInvocationIndex) => {
                                        Value::u32(lz * size[0] * size[1] + ly * size[0] + lx)
                                    }
                                    other => {
                                        return Err(err(format!(
                                            "built-in {other:?} is not a compute input"
                                        )));
                                    }
                                };
                                it.set_global(*g, v).map_err(|e| err(e.to_string()))?;
                            }
                            match it.call(f, &[]) {
                                Ok(Exit::Return(_)) => {}
                                Ok(Exit::Discard) => return Err(err("a compute shader discarded")),
                                Err(e) => {
                                    return Err(err(format!(
                                        "invocation ({}, {}, {}): {e}",
                                        gx * size[0] + lx,
                                        gy * size[1] + ly,
                                        gz * size[2] + lz
                                    )));
                                }
                            }
                            for ((g, _, _), v) in filled.iter().zip(values.iter_mut()) {
                                *v = it
                                    .global_value(*g)
                                    .cloned()
                                    .ok_or_else(|| err("a global lost its value"))?;
                            }
                        }
                    }
                }
            }
        }
    }
    for ((_, at, ty), v) in filled.iter().zip(&values) {
        if *at == usize::MAX {
            continue;
        }
        let b = &mut out[*at];
        if let Resource::StorageBuffer(words) = &mut b.resource {
            let mut bytes = bytes_of(words);
            encode(ty, v, 0, &mut bytes)?;
            *words = bytes
                .chunks(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
        }
    }
    Ok(out)
}

fn bytes_of(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn iscalar(s: Scalar) -> IScalar {
    match s {
        Scalar::Bool => IScalar::Bool,
        Scalar::I8 => IScalar::I8,
        Scalar::I16 => IScalar::I16,
        Scalar::I32 => IScalar::I32,
        Scalar::I64 => IScalar::I64,
        Scalar::U8 => IScalar::U8,
        Scalar::U16 => IScalar::U16,
        Scalar::U32 => IScalar::U32,
        Scalar::U64 => IScalar::U64,
        Scalar::F16 => IScalar::F16,
        Scalar::F32 => IScalar::F32,
        Scalar::F64 => IScalar::F64,
    }
}

fn read(bytes: &[u8], at: u32, size: u32) -> Result<u64, OracleError> {
    let at = at as usize;
    let end = at + size as usize;
    let b = bytes
        .get(at..end)
        .ok_or_else(|| err(format!("the buffer ends before byte {end}")))?;
    let mut v = [0u8; 8];
    v[..b.len()].copy_from_slice(b);
    Ok(u64::from_le_bytes(v))
}

/// The interpreter's value of a `ty` at `base` in `bytes` (a runtime-sized array runs to
/// `end`).
fn decode(ty: &Type, bytes: &[u8], base: u32, end: u32) -> Result<Value, OracleError> {
    Ok(match ty {
        Type::Scalar { scalar } => {
            let bits = read(bytes, base, scalar_size(*scalar))?;
            match scalar {
                Scalar::Bool => Value::bool(bits as u32 != 0),
                s => Value::Scalar(iscalar(*s), bits),
            }
        }
        Type::Vector { scalar, components } => Value::Composite(
            (0..*components)
                .map(|k| {
                    decode(
                        &Type::Scalar { scalar: *scalar },
                        bytes,
                        base + k * scalar_size(*scalar),
                        end,
                    )
                })
                .collect::<Result<_, _>>()?,
        ),
        Type::Matrix {
            scalar,
            rows,
            columns,
            matrix_stride,
            row_major,
        } => {
            let size = scalar_size(*scalar);
            let row_major = row_major.unwrap_or(false);
            let stride = matrix_stride.unwrap_or(if row_major { *columns } else { *rows } * size);
            let mut out = Vec::new();
            for r in 0..*rows {
                let mut row = Vec::new();
                for c in 0..*columns {
                    let at = if row_major {
                        base + r * stride + c * size
                    } else {
                        base + c * stride + r * size
                    };
                    row.push(decode(&Type::Scalar { scalar: *scalar }, bytes, at, end)?);
                }
                out.push(Value::Composite(row));
            }
            Value::Composite(out)
        }
        Type::Array {
            element,
            length,
            stride,
        } => {
            let stride = stride.ok_or_else(|| err("an array without a stride in a buffer"))?;
            let n = match length {
                Some(n) => *n,
                None => end.saturating_sub(base) / stride.max(1),
            };
            Value::Composite(
                (0..n)
                    .map(|i| decode(element, bytes, base + i * stride, end))
                    .collect::<Result<_, _>>()?,
            )
        }
        Type::Struct { members, .. } => Value::Composite(
            members
                .iter()
                .map(|m| {
                    let off = m.offset.ok_or_else(|| err("a member without an offset"))?;
                    decode(&m.ty, bytes, base + off, end)
                })
                .collect::<Result<_, _>>()?,
        ),
        Type::Other { ir } => return Err(err(format!("a buffer holding `{ir}`"))),
    })
}

/// Writes `v` of type `ty` at `base` into `bytes` (the inverse of [`decode`]).
fn encode(ty: &Type, v: &Value, base: u32, bytes: &mut [u8]) -> Result<(), OracleError> {
    let parts = |v: &Value| -> Result<Vec<Value>, OracleError> {
        v.elements()
            .map(|e| e.to_vec())
            .ok_or_else(|| err(format!("expected a composite, found {v:?}")))
    };
    match ty {
        Type::Scalar { scalar } => {
            let (_, bits) = v
                .as_scalar()
                .ok_or_else(|| err(format!("expected a scalar, found {v:?}")))?;
            let size = scalar_size(*scalar) as usize;
            let at = base as usize;
            let dst = bytes
                .get_mut(at..at + size)
                .ok_or_else(|| err("a value past the end of its buffer"))?;
            dst.copy_from_slice(&bits.to_le_bytes()[..size]);
        }
        Type::Vector { scalar, .. } => {
            for (k, c) in parts(v)?.iter().enumerate() {
                let at = base + k as u32 * scalar_size(*scalar);
                encode(&Type::Scalar { scalar: *scalar }, c, at, bytes)?;
            }
        }
        Type::Matrix {
            scalar,
            rows,
            columns,
            matrix_stride,
            row_major,
        } => {
            let size = scalar_size(*scalar);
            let row_major = row_major.unwrap_or(false);
            let stride = matrix_stride.unwrap_or(if row_major { *columns } else { *rows } * size);
            for (r, row) in parts(v)?.iter().enumerate() {
                for (c, x) in parts(row)?.iter().enumerate() {
                    let (r, c) = (r as u32, c as u32);
                    let at = if row_major {
                        base + r * stride + c * size
                    } else {
                        base + c * stride + r * size
                    };
                    encode(&Type::Scalar { scalar: *scalar }, x, at, bytes)?;
                }
            }
        }
        Type::Array {
            element, stride, ..
        } => {
            let stride = stride.ok_or_else(|| err("an array without a stride in a buffer"))?;
            for (i, e) in parts(v)?.iter().enumerate() {
                encode(element, e, base + i as u32 * stride, bytes)?;
            }
        }
        Type::Struct { members, .. } => {
            for (m, f) in members.iter().zip(parts(v)?.iter()) {
                let off = m.offset.ok_or_else(|| err("a member without an offset"))?;
                encode(&m.ty, f, base + off, bytes)?;
            }
        }
        Type::Other { ir } => return Err(err(format!("a buffer holding `{ir}`"))),
    }
    Ok(())
}
