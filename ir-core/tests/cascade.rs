//! The cascading-hoist example of Slang's IR design, replayed inside a generic: replacing the
//! generic parameter `%T` by `i32` makes `ptr<function, %T>` equal to the existing
//! module-level `ptr<function, i32>` (it is merged into it), and the `array` type built on it
//! no longer mentions anything of the generic, so it is hoisted to module level. Every stale
//! id resolves to the value that replaced it.

use oneshader_ir::{AddressSpace, Module, Op, verify::verify};

#[test]
fn replacing_a_generic_parameter_merges_and_hoists() {
    let mut m = Module::new();
    let i32t = m.i32_type();
    let module_ptr = m.ptr_type(AddressSpace::Function, i32t);

    let g = m.add_generic("G");
    let tt = m.type_type();
    let t = m.add_generic_param(g, tt);
    let body = m.generic_body(g);
    let ptr_t = m.ptr_type(AddressSpace::Function, t);
    let arr = m.array_type(ptr_t, 4);
    // A user of the array inside the generic: a function type `fn(array<...>) -> void`.
    let void = m.void_type();
    let fty = m.fn_type(void, &[arr]);
    // The generic yields the array type.
    let ret = m.set_generic_result(g, arr);

    // Before: the pointer and the array live in the generic's body.
    assert_eq!(m.parent(ptr_t), Some(body.id()));
    assert_eq!(m.parent(arr), Some(body.id()));
    assert_eq!(m.parent(fty), Some(body.id()));
    assert_ne!(ptr_t, module_ptr);
    assert!(verify(&m).is_empty(), "{:?}", verify(&m));

    m.replace_uses_with(t, i32t);

    // ptr<function, %T> collapsed onto the module-level ptr<function, i32>.
    assert!(!m.contains(ptr_t), "the duplicate pointer type is removed");
    assert_eq!(m.resolve(ptr_t), module_ptr);
    // The array now reads array<ptr<function, i32>, 4> and lives at module level.
    let arr = m.resolve(arr);
    assert_eq!(m.parent(arr), Some(m.root()));
    assert_eq!(m.operand(arr, 0), module_ptr);
    // Its user cascaded too.
    let fty = m.resolve(fty);
    assert_eq!(m.parent(fty), Some(m.root()));
    assert_eq!(m.fn_params(fty), vec![arr]);
    // The generic's return now yields the hoisted array.
    assert_eq!(m.operand(ret, 0), arr);
    // Building the same type again finds the hoisted one.
    let again_ptr = m.ptr_type(AddressSpace::Function, i32t);
    assert_eq!(again_ptr, module_ptr);
    assert_eq!(m.array_type(again_ptr, 4), arr);
    // The generic parameter itself has no uses left.
    assert!(!m.has_uses(t));
    assert_eq!(m.op(arr), Op::Array);
    // Nothing in the body but the parameter and the return remains.
    let kids = m.children_snapshot(body.id());
    assert_eq!(kids, vec![t, ret]);
}
