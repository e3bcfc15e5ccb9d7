//! `private_to_local`: a private global that only one entry point uses becomes a variable of
//! that entry point.
//!
//! HLSL `static` globals are per-invocation memory (`private`). An entry point runs once per
//! invocation and nothing calls it, so a private global that only it touches behaves exactly
//! like a variable declared at the top of its body and initialized there; as a variable it is
//! visible to `sroa`, `mem2reg`, DCE and CFG simplification, which remove or promote it (what
//! spirv-opt's private-to-local pass enables). The global must be used only through loads,
//! stores and address computations (`field_addr`, `element_addr`) inside that entry point;
//! the address computations are retyped to the function space. Globals that are exported or
//! imported, or used anywhere else (another function, a call argument, an atomic, an
//! intrinsic's pointer operand), stay.

use oneshader_ir::builder::InsertPoint;
use oneshader_ir::{AddressSpace, Builder, Func, InstId, Module, Op, Slot};

use crate::{Pass, PassError};

/// The `private_to_local` pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct PrivateToLocal;

impl Pass for PrivateToLocal {
    fn name(&self) -> &'static str {
        "private_to_local"
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        for g in m.globals() {
            let g = g.id();
            if let Some((f, addresses)) = only_user(m, g) {
                localize(m, g, f, &addresses)?;
                changed = true;
            }
        }
        Ok(changed)
    }

    fn idempotent(&self) -> bool {
        true
    }
}

/// The entry point that is the only user of the private global `g`, and the address
/// computations derived from `g`, when every use qualifies.
fn only_user(m: &Module, g: InstId) -> Option<(Func, Vec<InstId>)> {
    let ty = m.ty(g)?;
    if m.address_space(ty) != Some(AddressSpace::Private)
        || m.has_decoration(g, Op::Export)
        || m.has_decoration(g, Op::Import)
    {
        return None;
    }
    let mut func: Option<Func> = None;
    let mut addresses = Vec::new();
    let mut work = vec![g];
    while let Some(p) = work.pop() {
        for u in m.uses(p) {
            let user = u.user;
            let f = m.func_of(user)?;
            if *func.get_or_insert(f) != f {
                return None;
            }
            match (m.op(user), u.slot) {
                (Op::Load | Op::Store, Slot::Operand(0)) => {}
                (Op::FieldAddr | Op::ElementAddr, Slot::Operand(0)) => {
                    addresses.push(user);
                    work.push(user);
                }
                _ => return None,
            }
        }
    }
    let f = func?;
    oneshader_ir::analysis::entry_point_of(m, f)?;
    Some((f, addresses))
}

/// Replaces `g` by a variable at the top of `f`'s entry block, stored with `g`'s
/// initializer, and retypes the address computations to the function space.
fn localize(m: &mut Module, g: InstId, f: Func, addresses: &[InstId]) -> Result<(), PassError> {
    let err = |what: &str| PassError::new("private_to_local", what.to_string());
    let pointee = m
        .ty(g)
        .and_then(|t| m.pointee(t))
        .ok_or_else(|| err("a private global without a pointer type"))?;
    let entry = f
        .entry(m)
        .ok_or_else(|| err("an entry point without a body"))?;
    let first = entry
        .insts(m)
        .into_iter()
        .find(|&i| m.op(i) != Op::Param)
        .ok_or_else(|| err("an entry block without a terminator"))?;
    let init = m.try_operand(g, 0);
    let var = {
        let mut b = Builder::new(m);
        b.set_point(InsertPoint::Before(first));
        let v = b.var(pointee);
        if let Some(init) = init {
            b.store(v, init);
        }
        v
    };
    if let Some(name) = m.name(g).map(str::to_string) {
        m.set_name(var, Some(&name));
    }
    for &a in addresses {
        let elem = m
            .ty(a)
            .and_then(|t| m.pointee(t))
            .ok_or_else(|| err("an address computation without a pointer type"))?;
        let t = m.ptr_type(AddressSpace::Function, elem);
        m.set_type(a, Some(t));
    }
    m.replace_uses_with(g, var);
    m.remove(g)
        .map_err(|e| err(&format!("the global is still used: {e:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use oneshader_ir::{parse::parse, print::print_module, verify::verify_ok};

    #[test]
    fn a_static_only_the_entry_point_uses_becomes_a_variable() {
        let mut m = parse(
            "struct @S {\n  a: i32\n  b: f32\n}\n\
             global @s : ptr<private, @S>\n\
             global @n : ptr<private, i32> = i32 7\n\
             global @shared : ptr<private, i32>\n\
             global @out : ptr<storage_buffer, rtarray<i32>> [binding(0, 0)]\n\
             func @helper() -> i32 {\nbb0:\n  %0 = load @shared : i32\n  return %0\n}\n\
             func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {\n\
             bb0:\n  %0 = field_addr @s, 0 : ptr<private, i32>\n  store %0, i32 1\n  \
             %1 = load %0 : i32\n  %2 = load @n : i32\n  %3 = add %1, %2 : i32\n  \
             %4 = call @helper() : i32\n  %5 = add %3, %4 : i32\n  \
             %6 = element_addr @out, u32 0 : ptr<storage_buffer, i32>\n  store %6, %5\n  \
             return\n}\n",
        )
        .expect("parses");
        assert_eq!(PrivateToLocal.run(&mut m), Ok(true));
        verify_ok(&m).expect("verifies");
        let text = print_module(&m);
        assert!(
            !text.contains("global @s ") && !text.contains("global @n "),
            "{text}"
        );
        assert!(
            text.contains("global @shared"),
            "used by another function:\n{text}"
        );
        assert!(text.contains(".s = var : ptr<function, @S>"), "{text}");
        assert!(
            text.contains(".s, 0 : ptr<function, i32>"),
            "retyped:\n{text}"
        );
        assert!(
            text.contains(".n, i32 7"),
            "the initializer is stored:\n{text}"
        );
        assert_eq!(PrivateToLocal.run(&mut m), Ok(false));
    }
}
