//! Buffer layouts that match the SPIR-V backend's bit for bit.
//!
//! Both backends read [`oneshader_ir::layout`]. GLSL can state a block member's offset
//! (`layout(offset = N)`) and its matrices' majorness, but not an array stride, a matrix
//! stride or the offsets inside a nested struct: glslang derives those from the block's
//! packing. So a block is declared with the first packing of its rule's family, then scalar
//! (`GL_EXT_scalar_block_layout`), under which
//!
//! - every member's offset is a multiple of its alignment (what glslang checks), and
//! - every array stride, matrix stride and nested-struct member offset inside each member is
//!   the one the layout module computes for the rule,
//!
//! and every member gets its offset from the layout module. When no packing qualifies, the
//! buffer is refused (OSB0105) naming the member: the host would otherwise read a layout it
//! does not expect. DXC's constant buffers mostly fit std140 with explicit offsets (`float
//! a[2]; float b;` puts `b` at 20, inside the array's std140 padding, which glslang accepts);
//! what does not fit is a nested struct whose relaxed placement (`struct { float a; float2 b;
//! }`, `b` at 4) only scalar gives, used in an array whose stride only std140 gives.
//!
//! A block member that is a vector at an offset the packing does not align (DXC's relaxed
//! rules put `float2 b` right after `float a`, at 4) is declared as one scalar member per
//! component, each with its offset (`layout(offset = 4) float b_x; layout(offset = 8) float
//! b_y;`): the same bytes, readable as `vec2(b.b_x, b.b_y)`. This keeps std140's strides for
//! the rest of the block, where scalar packing would lose them.
//!
//! | rule | packings tried |
//! |---|---|
//! | std140, relaxed std140, D3D cbuffer | `std140`, `scalar` |
//! | std430, relaxed std430 | `std430`, `scalar` |
//! | scalar | `scalar` |
//!
//! Majorness: an HLSL `row_major` matrix is SPIR-V `ColMajor` and so GLSL `column_major`,
//! HLSL's default (`column_major`) is GLSL `row_major` (the matrix is transposed in GLSL's
//! view, see [`super::types`]). GLSL puts the qualifier on block members only, where it
//! applies to every matrix inside, so a member whose matrices differ in majorness (a nested
//! struct mixing both) is refused too.

use oneshader_ir::layout::{self, LayoutRule};
use oneshader_ir::{InstId, Module, Op};

use super::error::{GlslError, LAYOUT, R};

/// A GLSL block packing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Packing {
    Std140,
    Std430,
    Scalar,
}

impl Packing {
    /// The qualifier.
    pub fn qualifier(self) -> &'static str {
        match self {
            Packing::Std140 => "std140",
            Packing::Std430 => "std430",
            Packing::Scalar => "scalar",
        }
    }

    /// The layout module's rule with the same meaning.
    fn rule(self) -> LayoutRule {
        match self {
            Packing::Std140 => LayoutRule::Std140,
            Packing::Std430 => LayoutRule::Std430,
            Packing::Scalar => LayoutRule::Scalar,
        }
    }
}

/// A block member to lay out.
pub(crate) struct Member<'a> {
    /// Its GLSL name (for diagnostics).
    pub name: &'a str,
    /// Its type.
    pub ty: InstId,
    /// True when its own matrices are row-major in HLSL terms (the field's `row_major`).
    pub row_major: bool,
    /// Its offset under the buffer's rule.
    pub offset: u32,
}

/// How a block is declared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BlockLayout {
    pub packing: Packing,
    /// Per member: the GLSL matrix qualifier (`Some(true)`: `row_major`), when it holds
    /// matrices.
    pub majorness: Vec<Option<bool>>,
    /// Per member: true for a vector at an offset the packing does not align (DXC's relaxed
    /// placement), declared as one scalar member per component instead.
    pub split: Vec<bool>,
}

/// The packings tried for a rule, in order.
fn candidates(rule: LayoutRule) -> &'static [Packing] {
    match rule {
        LayoutRule::Std140 | LayoutRule::RelaxedStd140 | LayoutRule::DxCbuffer => {
            &[Packing::Std140, Packing::Scalar]
        }
        LayoutRule::Std430 | LayoutRule::RelaxedStd430 => &[Packing::Std430, Packing::Scalar],
        LayoutRule::Scalar => &[Packing::Scalar],
    }
}

/// The HLSL majorness of every matrix inside `ty` (`rm`: the majorness of matrices that are
/// not in a nested struct).
fn majorness(m: &Module, ty: InstId, rm: bool, out: &mut Vec<bool>) {
    match m.try_op(ty) {
        Some(Op::Matrix) if !out.contains(&rm) => out.push(rm),
        Some(Op::Array | Op::RuntimeArray) => majorness(m, m.operand(ty, 0), rm, out),
        Some(Op::Struct) => {
            for f in m.struct_fields(ty) {
                if let Some(ft) = m.ty(f) {
                    majorness(m, ft, layout::is_row_major(m, f), out);
                }
            }
        }
        _ => {}
    }
}

/// Why `ty` (with matrix majorness `rm`) is laid out differently inside under `rule` and
/// under `g`, or `None` when its strides and nested offsets agree.
fn inner_difference(
    m: &Module,
    ty: InstId,
    rm: bool,
    rule: LayoutRule,
    g: LayoutRule,
) -> Result<Option<String>, layout::LayoutError> {
    let print = |t: InstId| oneshader_ir::print::print_inst(m, t);
    match m.try_op(ty) {
        Some(Op::Matrix) => {
            let a = layout::type_layout(m, ty, rule, rm)?;
            let b = layout::type_layout(m, ty, g, rm)?;
            Ok((a.matrix_stride != b.matrix_stride).then(|| {
                format!(
                    "`{}` has a matrix stride of {} under {}, {} under GLSL {}",
                    print(ty),
                    a.matrix_stride.unwrap_or(0),
                    rule.name(),
                    b.matrix_stride.unwrap_or(0),
                    g.name()
                )
            }))
        }
        Some(Op::Array | Op::RuntimeArray) => {
            let a = layout::type_layout(m, ty, rule, rm)?;
            let b = layout::type_layout(m, ty, g, rm)?;
            if a.array_stride != b.array_stride {
                return Ok(Some(format!(
                    "`{}` has an array stride of {} under {}, {} under GLSL {} (GLSL cannot \
                     set a stride)",
                    print(ty),
                    a.array_stride.unwrap_or(0),
                    rule.name(),
                    b.array_stride.unwrap_or(0),
                    g.name()
                )));
            }
            inner_difference(m, m.operand(ty, 0), rm, rule, g)
        }
        Some(Op::Struct) => {
            let fields = m.struct_fields(ty);
            if let Some(&f) = fields
                .iter()
                .find(|&&f| m.find_decoration(f, Op::Offset).is_some())
            {
                return Ok(Some(format!(
                    "nested struct `{}` places member `{}` at an explicit offset, which GLSL \
                     can state only for a block's own members",
                    print(ty),
                    m.name(f).unwrap_or("?")
                )));
            }
            let a = layout::struct_layout(m, ty, rule)?;
            let b = layout::struct_layout(m, ty, g)?;
            for (fa, fb) in a.fields.iter().zip(&b.fields) {
                if fa.offset != fb.offset {
                    return Ok(Some(format!(
                        "nested struct `{}` has member `{}` at offset {} under {}, {} under \
                         GLSL {}",
                        print(ty),
                        m.name(fa.field).unwrap_or("?"),
                        fa.offset,
                        rule.name(),
                        fb.offset,
                        g.name()
                    )));
                }
                if let Some(ft) = m.ty(fa.field)
                    && let Some(d) = inner_difference(m, ft, fa.row_major, rule, g)?
                {
                    return Ok(Some(d));
                }
            }
            Ok(None)
        }
        _ => Ok(None),
    }
}

/// Chooses how to declare the block `buffer` (a GLSL name, for diagnostics) holding
/// `members`, laid out under `rule`.
pub(crate) fn block_layout(
    m: &Module,
    buffer: &str,
    members: &[Member<'_>],
    rule: LayoutRule,
) -> R<BlockLayout> {
    let err = |msg: String| GlslError::new(LAYOUT, format!("buffer `{buffer}`: {msg}"));
    let mut majors = Vec::with_capacity(members.len());
    for mem in members {
        let mut found = Vec::new();
        majorness(m, mem.ty, mem.row_major, &mut found);
        if found.len() > 1 {
            return Err(err(format!(
                "member `{}` holds both row-major and column-major matrices; GLSL states \
                 majorness per block member",
                mem.name
            )));
        }
        // HLSL row-major is GLSL column-major.
        majors.push(found.first().map(|&hlsl_row_major| !hlsl_row_major));
    }
    let mut reasons: Vec<String> = Vec::new();
    // Packings that state the layout as it is come first; splitting vectors is the fallback.
    let attempts = [false, true]
        .into_iter()
        .flat_map(|allow| candidates(rule).iter().map(move |&p| (allow, p)));
    for (allow_split, p) in attempts {
        let g = p.rule();
        let mut reason = None;
        let mut split = vec![false; members.len()];
        for (k, mem) in members.iter().enumerate() {
            let l = layout::type_layout(m, mem.ty, g, mem.row_major)
                .map_err(|e| err(format!("member `{}` has no layout: {e}", mem.name)))?;
            let component = (m.op(mem.ty) == Op::Vector)
                .then(|| m.scalar_bits(m.operand(mem.ty, 0)).map(|b| b / 8))
                .flatten();
            if let Some(c) = component
                && allow_split
                && !mem.offset.is_multiple_of(l.align.max(1))
                && mem.offset.is_multiple_of(c.max(1))
            {
                // A vector the relaxed rules packed tighter than the packing aligns it:
                // its components, each at its own offset, say the same.
                split[k] = true;
                continue;
            }
            if !mem.offset.is_multiple_of(l.align.max(1)) {
                reason = Some(format!(
                    "member `{}` is at offset {} under {}, not a multiple of its alignment {} \
                     under GLSL {}",
                    mem.name,
                    mem.offset,
                    rule.name(),
                    l.align,
                    g.name()
                ));
                break;
            }
            match inner_difference(m, mem.ty, mem.row_major, rule, g) {
                Ok(None) => {}
                Ok(Some(d)) => {
                    reason = Some(format!("member `{}`: {d}", mem.name));
                    break;
                }
                Err(e) => return Err(err(format!("member `{}` has no layout: {e}", mem.name))),
            }
        }
        match reason {
            None => {
                return Ok(BlockLayout {
                    packing: p,
                    majorness: majors,
                    split,
                });
            }
            Some(r) if !allow_split => reasons.push(format!("GLSL {}: {r}", p.qualifier())),
            Some(r) => reasons.push(format!(
                "GLSL {} with misaligned vectors split: {r}",
                p.qualifier()
            )),
        }
    }
    Err(err(format!(
        "its {} layout has no GLSL form ({})",
        rule.name(),
        reasons.join("; ")
    ))
    .note(
        "GLSL sets block member offsets but not strides; choose another layout \
         (--fvk-use-gl-layout, --fvk-use-scalar-layout) or change the member's type",
    ))
}
