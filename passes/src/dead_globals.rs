//! `dead_globals`: removes the globals nothing reads or writes any more.
//!
//! After `-O` has removed dead code, a texture whose samples were unused, a buffer only a dead
//! branch wrote or a private variable folded away is still declared, and every backend would
//! declare it (with its binding, type and decorations) as DXC's and spirv-opt's outputs do
//! not. This pass removes a global when nothing uses it (its own decorations do not count)
//! and it lives in resource or plain memory: uniform and storage buffers, push constants,
//! textures, samplers, private and workgroup variables.
//!
//! A private or workgroup variable that is only ever stored to, never read, loses its stores
//! first (nothing can observe that memory: it is no other stage's interface and no resource),
//! and then goes; `dce` removes what computed the stored values. The `-O` rounds run the pass
//! for that, on private and workgroup variables only ([`DeadGlobals::keep_resources`]).
//!
//! What stays even when unused: stage inputs and outputs (they are the interface another
//! stage or the pipeline matches by location), globals that are exported or imported
//! (linking), and function declarations (not globals). `-fspv-preserve-bindings` keeps every
//! resource: the facade does not run this pass then.

use oneshader_ir::{AddressSpace, InstId, Module, Op, Slot};

use crate::{Pass, PassError};

/// The `dead_globals` pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct DeadGlobals {
    /// Leave resources (buffers, push constants, textures, samplers) alone: only private and
    /// workgroup variables go. The `-O` rounds run it so; resources go once, after them
    /// (unless `-fspv-preserve-bindings` keeps them).
    pub keep_resources: bool,
}

impl Pass for DeadGlobals {
    fn name(&self) -> &'static str {
        "dead_globals"
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        for g in m.globals() {
            let g = g.id();
            if !removable(m, g) || (self.keep_resources && !is_plain_memory(m, g)) {
                continue;
            }
            if let Some(writes) = write_only(m, g) {
                // Stores first, then the addresses from the innermost out.
                for &w in writes.iter().rev() {
                    m.set_operands(w, &[])
                        .map_err(|e| PassError::new("dead_globals", e.to_string()))?;
                    m.remove(w).map_err(|e| {
                        PassError::new(
                            "dead_globals",
                            format!("cannot remove a store nobody reads: {e:?}"),
                        )
                    })?;
                    changed = true;
                }
            }
            if m.uses(g).next().is_some() {
                continue;
            }
            m.remove(g).map_err(|e| {
                PassError::new(
                    "dead_globals",
                    format!("cannot remove an unused global: {e:?}"),
                )
            })?;
            changed = true;
        }
        Ok(changed)
    }

    fn idempotent(&self) -> bool {
        true
    }
}

/// True for a global in memory no other stage or module sees by name.
fn removable(m: &Module, g: oneshader_ir::InstId) -> bool {
    if m.has_decoration(g, Op::Export) || m.has_decoration(g, Op::Import) {
        return false;
    }
    let Some(space) = m.ty(g).and_then(|t| m.address_space(t)) else {
        return false;
    };
    matches!(
        space,
        AddressSpace::Uniform
            | AddressSpace::UniformConstant
            | AddressSpace::StorageBuffer
            | AddressSpace::PushConstant
            | AddressSpace::Private
            | AddressSpace::Workgroup
    )
}

/// True for a private or workgroup variable.
fn is_plain_memory(m: &Module, g: InstId) -> bool {
    m.ty(g)
        .and_then(|t| m.address_space(t))
        .is_some_and(|s| matches!(s, AddressSpace::Private | AddressSpace::Workgroup))
}

/// For a private or workgroup global that is only ever stored to (through `field_addr` and
/// `element_addr`), never read: its address computations and stores, each address before its
/// users. Nothing sees such memory (it is neither another stage's interface nor a resource),
/// so its stores are dead. `None` when anything reads it or takes its address elsewhere.
fn write_only(m: &Module, g: InstId) -> Option<Vec<InstId>> {
    if !is_plain_memory(m, g) {
        return None;
    }
    let mut out = Vec::new();
    let mut k = 0;
    let mut addrs = vec![g];
    while k < addrs.len() {
        let p = addrs[k];
        k += 1;
        for u in m.uses(p) {
            match (m.op(u.user), u.slot) {
                (Op::Store, Slot::Operand(0)) => out.push(u.user),
                (Op::FieldAddr | Op::ElementAddr, Slot::Operand(0)) => {
                    out.push(u.user);
                    addrs.push(u.user);
                }
                // Its own decorations.
                (op, _) if op.is_decoration() => {}
                _ => return None,
            }
        }
    }
    // Addresses before the stores through them: sorted by discovery, stores last.
    out.sort_by_key(|&i| m.op(i) == Op::Store);
    let stores_last: Vec<InstId> = out;
    Some(stores_last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use oneshader_ir::{parse::parse, print::print_module, verify::verify_ok};

    #[test]
    fn unused_resources_go_and_the_interface_stays() {
        let mut m = parse(
            "global @used : ptr<storage_buffer, rtarray<f32>> [binding(0, 0)]\n\
             global @dead_buf : ptr<storage_buffer, rtarray<f32>> [binding(0, 1)]\n\
             global @dead_priv : ptr<private, f32>\n\
             global @shared : ptr<workgroup, f32>\n\
             global @lib : ptr<storage_buffer, rtarray<f32>> [binding(0, 2), export(\"lib\")]\n\
             global @gid : ptr<input, vec<u32, 3>> [builtin(global_invocation_id)]\n\
             func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {\n\
             bb0:\n  %0 = element_addr @used, u32 0 : ptr<storage_buffer, f32>\n  \
             store %0, f32 1.0\n  return\n}\n",
        )
        .expect("parses");
        assert_eq!(DeadGlobals::default().run(&mut m), Ok(true));
        verify_ok(&m).expect("verifies");
        let text = print_module(&m);
        for gone in ["@dead_buf", "@dead_priv", "@shared"] {
            assert!(!text.contains(gone), "{gone} stayed:\n{text}");
        }
        for kept in ["@used", "@lib", "@gid"] {
            assert!(text.contains(kept), "{kept} went:\n{text}");
        }
        assert_eq!(DeadGlobals::default().run(&mut m), Ok(false));
    }
    /// A workgroup variable only ever stored to (through addresses) loses its stores and
    /// goes; with `dce` after it, so does the value stored. One that is read keeps them, and
    /// `keep_resources` leaves an unused buffer.
    #[test]
    fn stores_nobody_reads_go() {
        let mut m = parse(
            "global @d : ptr<workgroup, array<vec<f32, 2>, 5>>\n\
             global @s : ptr<workgroup, f32>\n\
             global @r : ptr<workgroup, f32>\n\
             global @buf : ptr<storage_buffer, rtarray<f32>> [binding(0, 1)]\n\
             func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {\n\
             bb0:\n  %0 = load @s : f32\n  \
             %1 = element_addr @d, u32 0 : ptr<workgroup, vec<f32, 2>>\n  \
             %2 = element_addr %1, u32 1 : ptr<workgroup, f32>\n  \
             store %2, %0\n  store @r, f32 2.0\n  %3 = load @r : f32\n  \
             store @r, %3\n  return\n}\n",
        )
        .expect("parses");
        let mut pass = DeadGlobals {
            keep_resources: true,
        };
        assert_eq!(pass.run(&mut m), Ok(true));
        verify_ok(&m).expect("verifies");
        crate::dce::Dce.run(&mut m).expect("dce runs");
        assert_eq!(pass.run(&mut m), Ok(true));
        verify_ok(&m).expect("verifies");
        let text = print_module(&m);
        for gone in ["@d", "@s", "element_addr"] {
            assert!(!text.contains(gone), "{gone} stayed:\n{text}");
        }
        for kept in ["@r", "@buf"] {
            assert!(text.contains(kept), "{kept} went:\n{text}");
        }
        assert_eq!(text.matches("store @r").count(), 2, "{text}");
        assert_eq!(pass.run(&mut m), Ok(false));
    }
}
