//! `texel_buffers`: HLSL's `Buffer<T>` and `RWBuffer<T>` as storage buffers, for targets
//! without texel buffers (WGSL).
//!
//! A texel buffer whose texels are exactly the bytes of its element type becomes a storage
//! buffer `ptr<storage_buffer, rtarray<T>>` at the same binding (read-only for `Buffer<T>`):
//! the element is a 32-bit scalar or a 2- or 4-component vector of 32-bit scalars, and the
//! format is unknown or the 32-bit format of that element (`r32f`, `rg32ui`, `rgba32i`, ...).
//! A 3-component element (a 16-byte stride in a storage buffer, 12 bytes in the texel buffer)
//! or a narrower format (`rgba8`, `r16f`) has no storage-buffer form with the same bytes and
//! stays a texel buffer, which the target then refuses by name.
//!
//! Every use is rewritten: `texture_load @t, i` is a load of element `i`, `texture_store` a
//! store, `query_size` the array's length, `texel_addr` (an atomic's address) the element's
//! address. A global used in any other way (a sparse load, a load with a status) is left as
//! it is. The application binds a buffer holding the texels where the shader had a texel
//! buffer view: the reflection says so for WGSL (`wgsl.storage_buffer`, the type rule of
//! [`converts`]). Out-of-range reads follow the target's buffer rules
//! (WebGPU's robust access) instead of a texel buffer's zero.

use oneshader_ir::{AddressSpace, Builder, Dim, ImageFormat, InstId, Module, Op, TextureAccess};

use crate::{Pass, PassError};

const NAME: &str = "texel_buffers";

/// The pass (see the module documentation).
#[derive(Clone, Copy, Debug, Default)]
pub struct TexelBuffers;

/// The 32-bit format of an element of `comps` components of kind `kind` (0 float, 1 int,
/// 2 uint).
fn format_of(kind: u8, comps: u32) -> Option<ImageFormat> {
    use ImageFormat as F;
    Some(match (kind, comps) {
        (0, 1) => F::R32f,
        (0, 2) => F::Rg32f,
        (0, 4) => F::Rgba32f,
        (1, 1) => F::R32i,
        (1, 2) => F::Rg32i,
        (1, 4) => F::Rgba32i,
        (2, 1) => F::R32ui,
        (2, 2) => F::Rg32ui,
        (2, 4) => F::Rgba32ui,
        _ => return None,
    })
}

/// The texel buffer type `g` points to when its texels are exactly its element's bytes: the
/// element type and whether it is written (`RWBuffer`).
fn texel_buffer(m: &Module, g: InstId) -> Option<(InstId, bool)> {
    let t = m.ty(g).and_then(|p| m.pointee(p))?;
    let d = m.texture_desc(t)?;
    if d.dim != Dim::Buffer || d.arrayed || d.multisampled {
        return None;
    }
    let elem = d.sampled_type;
    let comps = match m.op(elem) {
        Op::Vector => m.vector_len(elem)?,
        _ => 1,
    };
    let s = m.scalar_of(elem)?;
    let kind = match m.op(s) {
        Op::F32 => 0,
        Op::I32 => 1,
        Op::U32 => 2,
        _ => return None,
    };
    let own = format_of(kind, comps)?;
    if d.format != ImageFormat::Unknown && d.format != own {
        return None;
    }
    Some((elem, d.access == TextureAccess::Storage))
}

/// True when every use of `g` has a storage-buffer form.
fn uses_convert(m: &Module, g: InstId) -> bool {
    m.users(g).into_iter().all(|u| match m.op(u) {
        Op::TextureLoad => {
            m.num_operands(u) == 2 && m.ty(u).is_some_and(|t| m.sparse_texel_type(t).is_none())
        }
        Op::TextureStore => true,
        Op::QuerySize => m.num_operands(u) == 1,
        Op::TexelAddr => true,
        _ => false,
    })
}

/// True when global `g` is a texel buffer whose texels are its element's bytes: what the
/// pass turns into a storage buffer, unless a use has no storage-buffer form (then the target
/// refuses the module). The reflection reports it for WGSL (`wgsl.storage_buffer`); it judges
/// the type alone, so it holds for the module as lowered, before any pass.
pub fn converts(m: &Module, g: InstId) -> bool {
    texel_buffer(m, g).is_some()
}

impl Pass for TexelBuffers {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        let globals: Vec<(InstId, bool)> = m
            .globals()
            .into_iter()
            .map(|g| g.id())
            .filter(|&g| uses_convert(m, g))
            .filter_map(|g| texel_buffer(m, g).map(|(_, w)| (g, w)))
            .collect();
        for &(g, written) in &globals {
            let elem = texel_buffer(m, g).map(|(e, _)| e).unwrap_or(g);
            let array = m.runtime_array_type(elem);
            let ptr = m.ptr_type(AddressSpace::StorageBuffer, array);
            // The storage buffer's type first: the addresses and loads below take theirs
            // from it.
            m.set_type(g, Some(ptr));
            for u in m.users(g) {
                let pos = m.origin(u);
                let before = m.set_current_origin(pos);
                let mut b = Builder::new(m);
                b.position_before(u);
                let new = match b.m.op(u) {
                    Op::TextureLoad => {
                        let i = b.m.operand(u, 1);
                        let a = b.element_addr(g, i);
                        Some(b.load(a))
                    }
                    Op::TextureStore => {
                        let (i, v) = (b.m.operand(u, 1), b.m.operand(u, 2));
                        let a = b.element_addr(g, i);
                        b.store(a, v);
                        None
                    }
                    Op::QuerySize => Some(b.array_length(g)),
                    Op::TexelAddr => {
                        let i = b.m.operand(u, 1);
                        Some(b.element_addr(g, i))
                    }
                    _ => return Err(PassError::new(NAME, "a use with no storage-buffer form")),
                };
                if let Some(new) = new {
                    m.replace_all_uses_with(u, new);
                }
                m.set_operands(u, &[])
                    .map_err(|e| PassError::new(NAME, e.to_string()))?;
                m.remove(u)
                    .map_err(|e| PassError::new(NAME, format!("{e:?}")))?;
                m.set_current_origin(before);
            }
            if !written && !m.has_decoration(g, Op::ReadOnly) {
                m.decorate(g, Op::ReadOnly, &[]);
            }
        }
        Ok(!globals.is_empty())
    }

    fn idempotent(&self) -> bool {
        true
    }
}
