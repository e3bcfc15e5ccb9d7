//! `image_widths`: textures and storage images of 16-bit elements hold 32-bit ones, converted
//! at every read and write.
//!
//! Vulkan forbids an `OpTypeImage` whose sampled type is not a 32- or 64-bit scalar
//! (VUID-StandaloneSpirv-OpTypeImage-04656); GLSL and WGSL have no 16-bit image types
//! either. HLSL with `-enable-16bit-types` declares `Texture2D<float16_t4>` and
//! `RWTexture2D<uint16_t>`; DXC keeps such an image 32-bit and converts at each access, and so
//! does this pass, for every target:
//!
//! - each texture type a global holds (directly or in arrays) whose element is 8- or 16-bit
//!   becomes the same texture of the 32-bit scalar of that kind (`f16` -> `f32`, `i16` ->
//!   `i32`, `u16` -> `u32`; the format, dimension and access stay), through every pointer and
//!   array type that holds it;
//! - each read of such a texture (`sample*`, `gather*`, `texture_load`; a sparse read's texel
//!   too) yields the 32-bit texel and converts it back to the type the program reads;
//! - each `texture_store` converts the value to 32 bits first.
//!
//! Queries (`query_size`, `query_levels`, `query_samples`, `query_lod`) do not depend on the
//! element type. A texel pointer (`texel_addr`, for image atomics) of a 16-bit image has no
//! 32-bit form a program could still read at 16 bits, and HLSL has no 16-bit image atomics:
//! the pass refuses one (OSG0012).
//!
//! It runs in every target's legalization ([`crate::legalize`]); afterwards
//! [`first_narrow_image`] finds nothing, which the backends' boundary checks (OSG0011).

use oneshader_ir::diag::Diagnostic;
use oneshader_ir::{Builder, InstId, Module, Op, Slot};
use rustc_hash::FxHashSet;

use crate::{Pass, PassError};

const NAME: &str = "image_widths";

/// The pass (see the module documentation).
#[derive(Clone, Copy, Debug, Default)]
pub struct ImageWidths;

/// The texture type at the bottom of `ty` (a texture, or arrays of textures).
fn texture_in(m: &Module, ty: InstId) -> Option<InstId> {
    match m.try_op(ty)? {
        Op::Texture => Some(ty),
        Op::Array | Op::RuntimeArray => texture_in(m, m.operand(ty, 0)),
        _ => None,
    }
}

/// True when `ty` (a texel type: scalar or vector) has scalars narrower than 32 bits.
fn is_narrow(m: &Module, ty: InstId) -> bool {
    m.scalar_of(ty)
        .and_then(|s| m.scalar_bits(s))
        .is_some_and(|b| b < 32)
}

/// The texture types of `m`'s globals whose element is narrower than 32 bits.
fn narrow_textures(m: &Module) -> Vec<(InstId, InstId)> {
    let mut seen = FxHashSet::default();
    let mut out = Vec::new();
    for g in m.globals() {
        let Some(t) = m
            .ty(g.id())
            .and_then(|p| m.pointee(p))
            .and_then(|t| texture_in(m, t))
        else {
            continue;
        };
        if let Some(d) = m.texture_desc(t)
            && is_narrow(m, d.sampled_type)
            && seen.insert(t)
        {
            out.push((g.id(), t));
        }
    }
    out
}

/// The first global of `m` holding a texture of 8- or 16-bit elements: what a module
/// legalized for any target no longer has.
pub fn first_narrow_image(m: &Module) -> Option<InstId> {
    narrow_textures(m).first().map(|&(g, _)| g)
}

/// `ty` (scalar or vector) with its scalar widened to the 32-bit scalar of its kind.
fn widened(m: &mut Module, ty: InstId) -> InstId {
    let Some(s) = m.scalar_of(ty) else { return ty };
    let w = match m.op(s) {
        Op::F16 => m.float_type(32),
        Op::I8 | Op::I16 => m.int_type(32, true),
        Op::U8 | Op::U16 => m.int_type(32, false),
        _ => return ty,
    };
    match m.op(ty) {
        Op::Vector => {
            let n = m.vector_len(ty).unwrap_or(1);
            m.vector_type(w, n)
        }
        _ => w,
    }
}

/// True for the texture reads whose result is a texel of the texture's element type.
fn reads_texels(op: Op) -> bool {
    op.is_texture_read()
        && !matches!(
            op,
            Op::QuerySize | Op::QueryLevels | Op::QuerySamples | Op::QueryLod
        )
}

/// The texture type operand 0 of `i` points to.
fn texture_of(m: &Module, i: InstId) -> Option<InstId> {
    let p = m.try_operand(i, 0)?;
    m.ty(p).and_then(|t| m.pointee(t))
}

/// Retypes the read `i` to yield the 32-bit texel and converts the result back for its
/// users.
fn widen_read(m: &mut Module, i: InstId) -> Result<(), PassError> {
    let Some(old) = m.ty(i) else { return Ok(()) };
    let users = m.uses_snapshot(i);
    let Some(next) = m.next_sibling(i) else {
        return Err(PassError::new(NAME, "a texture read ends its block"));
    };
    let new_ty = if let Some(texel) = m.sparse_texel_type(old) {
        if !is_narrow(m, texel) {
            return Ok(());
        }
        let wide = widened(m, texel);
        let status = m.int_type(32, false);
        m.add_struct("SparseTexel32", &[("status", status), ("texel", wide)])
            .id()
    } else {
        if !is_narrow(m, old) {
            return Ok(());
        }
        widened(m, old)
    };
    m.set_type(i, Some(new_ty));
    let mut b = Builder::new(m);
    b.position_before(next);
    let back = if let Some(texel) = b.m.sparse_texel_type(old) {
        let status = b.extract(i, &[0]);
        let wide = b.extract(i, &[1]);
        let narrow = b.convert(wide, texel);
        b.construct(old, &[status, narrow])
    } else {
        b.convert(i, old)
    };
    for u in users {
        if let Slot::Operand(k) = u.slot {
            m.replace_operand(u.user, k as usize, back);
        }
    }
    Ok(())
}

impl Pass for ImageWidths {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        let narrow = narrow_textures(m);
        if narrow.is_empty() {
            return Ok(false);
        }
        let mut wide_types = FxHashSet::default();
        for &(_, t) in &narrow {
            let Some(mut d) = m.texture_desc(t) else {
                continue;
            };
            d.sampled_type = widened(m, d.sampled_type);
            let w = m.texture_type(d);
            m.replace_all_uses_with(t, w);
            wide_types.insert(w);
        }
        for f in m.functions() {
            for b in f.blocks(m) {
                for i in b.insts(m) {
                    let op = m.op(i);
                    let on_wide = texture_of(m, i).is_some_and(|t| wide_types.contains(&t));
                    if !on_wide {
                        continue;
                    }
                    if op == Op::TexelAddr {
                        let d = Diagnostic::error(
                            "OSG0012",
                            format!(
                                "`{}` addresses a texel of an image of 16-bit elements, \
                                 which every target stores as 32 bits; image atomics need \
                                 32-bit elements",
                                oneshader_ir::print::print_inst(m, i)
                            ),
                        );
                        let d = d.with_opt_span(m.src_span(i));
                        return Err(PassError::refusal(NAME, d));
                    }
                    if reads_texels(op) {
                        widen_read(m, i)?;
                    } else if op == Op::TextureStore {
                        let v = m.operand(i, 2);
                        if let Some(vt) = m.ty(v)
                            && is_narrow(m, vt)
                        {
                            let wt = widened(m, vt);
                            let mut bl = Builder::new(m);
                            bl.position_before(i);
                            let c = bl.convert(v, wt);
                            m.replace_operand(i, 2, c);
                        }
                    }
                }
            }
        }
        Ok(true)
    }

    fn idempotent(&self) -> bool {
        true
    }
}
