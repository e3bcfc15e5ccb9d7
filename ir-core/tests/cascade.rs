//! The cascading-hoist example of Slang's IR design, replayed inside a generic: replacing the
//! generic parameter `%T` by `i32` makes `vec<%T, 4>` equal to the existing module-level
//! `vec<i32, 4>` (it is merged into it), and the `array` type built on it
//! no longer mentions anything of the generic, so it is hoisted to module level. Every stale
//! id resolves to the value that replaced it.

use oneshader_ir::{Module, Op, verify::verify};

#[test]
fn replacing_a_generic_parameter_merges_and_hoists() {
    let mut m = Module::new();
    let i32t = m.i32_type();
    // (Slang's example uses a pointer type; an array of pointers is not legal here, since
    // logical addressing stores no pointer, so a vector plays its part.)
    let module_vec = m.vector_type(i32t, 4);

    let g = m.add_generic("G");
    let tt = m.type_type();
    let t = m.add_generic_param(g, tt);
    let body = m.generic_body(g);
    let vec_t = m.vector_type(t, 4);
    let arr = m.array_type(vec_t, 4);
    // A user of the array inside the generic: a function type `fn(array<...>) -> void`.
    let void = m.void_type();
    let fty = m.fn_type(void, &[arr]);
    // The generic yields the array type.
    let ret = m.set_generic_result(g, arr);

    // Before: the pointer and the array live in the generic's body.
    assert_eq!(m.parent(vec_t), Some(body.id()));
    assert_eq!(m.parent(arr), Some(body.id()));
    assert_eq!(m.parent(fty), Some(body.id()));
    assert_ne!(vec_t, module_vec);
    assert!(verify(&m).is_empty(), "{:?}", verify(&m));

    m.replace_uses_with(t, i32t);

    // vec<%T, 4> collapsed onto the module-level vec<i32, 4>.
    assert!(!m.contains(vec_t), "the duplicate vector type is removed");
    assert_eq!(m.resolve(vec_t), module_vec);
    // The array now reads array<vec<i32, 4>, 4> and lives at module level.
    let arr = m.resolve(arr);
    assert_eq!(m.parent(arr), Some(m.root()));
    assert_eq!(m.operand(arr, 0), module_vec);
    // Its user cascaded too.
    let fty = m.resolve(fty);
    assert_eq!(m.parent(fty), Some(m.root()));
    assert_eq!(m.fn_params(fty), vec![arr]);
    // The generic's return now yields the hoisted array.
    assert_eq!(m.operand(ret, 0), arr);
    // Building the same type again finds the hoisted one.
    let again_vec = m.vector_type(i32t, 4);
    assert_eq!(again_vec, module_vec);
    assert_eq!(m.array_type(again_vec, 4), arr);
    // The generic parameter itself has no uses left.
    assert!(!m.has_uses(t));
    assert_eq!(m.op(arr), Op::Array);
    // Nothing in the body but the parameter and the return remains.
    let kids = m.children_snapshot(body.id());
    assert_eq!(kids, vec![t, ret]);
}
