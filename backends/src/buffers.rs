//! What every backend decides the same way about buffer globals, stated once.

use oneshader_ir::{AddressSpace, InstId, Module, Op};

/// True when a buffer global of type `pointee` in `space` is an array of buffers (a
/// descriptor array) rather than one buffer holding an array: in `uniform`, any array of
/// structs (a constant buffer cannot hold a bare array, so `array<@T, n>` is
/// `ConstantBuffer<T> a[n]`); in `storage_buffer`, an array whose elements are runtime arrays
/// or structs ending in one (nothing else can hold those). Other arrays of structs in storage
/// buffers stay one buffer.
pub(crate) fn is_descriptor_array(m: &Module, space: AddressSpace, pointee: InstId) -> bool {
    if !matches!(m.try_op(pointee), Some(Op::Array | Op::RuntimeArray)) {
        return false;
    }
    let elem = m.operand(pointee, 0);
    match space {
        AddressSpace::Uniform => m.op(elem) == Op::Struct,
        AddressSpace::StorageBuffer => match m.try_op(elem) {
            Some(Op::RuntimeArray) => true,
            Some(Op::Struct) => m
                .struct_fields(elem)
                .last()
                .and_then(|&f| m.ty(f))
                .is_some_and(|t| m.op(t) == Op::RuntimeArray),
            _ => false,
        },
        _ => false,
    }
}
