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
//! Two shims widen what fits, tried only when the block as it is does not (the [`Shape`] of
//! each member says how its declared members make up its value):
//!
//! - a vector at an offset the packing does not align (DXC's relaxed rules put `float2 b`
//!   right after `float a`, at 4) is declared as one scalar member per component, each with
//!   its offset (`layout(offset = 4) float b_x; layout(offset = 8) float b_y;`): the same
//!   bytes, readable as `vec2(cb.b_x, cb.b_y)`. This keeps std140's strides for the rest of
//!   the block, where scalar packing would lose them;
//! - a struct member (not an array of structs) whose nested offsets, majorness or empty
//!   structs no packing states is flattened: each of its fields becomes a block member at its
//!   own offset with its own majorness (`s_f1`, `s_f2`), recursively; reading it constructs
//!   the struct. A member of a struct type without fields is always flattened (to nothing:
//!   it holds no bytes).
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
//! struct mixing both) is flattened, and refused when it is an array of such structs.

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

    /// The layout module's rule with the same meaning: what glslang does with the packing.
    /// (glslang's `scalar` does not round a struct's size up to its alignment, where DXC's
    /// `-fvk-use-scalar-layout`, [`LayoutRule::Scalar`], does.)
    fn rule(self) -> LayoutRule {
        match self {
            Packing::Std140 => LayoutRule::Std140,
            Packing::Std430 => LayoutRule::Std430,
            Packing::Scalar => LayoutRule::GlslScalar,
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

/// A member as the GLSL block declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Decl {
    /// The name it should get (made unique by the caller).
    pub name: String,
    pub ty: InstId,
    pub offset: u32,
    /// The GLSL matrix qualifier (`Some(true)`: `row_major`), when it holds matrices.
    pub majorness: Option<bool>,
}

/// How the value of an IR block member is made of declared members (`L`: a declared
/// member, by index in [`BlockLayout::decls`] or by path).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Shape<L> {
    /// Declared as itself.
    Whole(L),
    /// A vector declared one scalar member per component.
    Split(Vec<L>),
    /// A struct declared one member (or shape) per field.
    Struct(Vec<Shape<L>>),
}

impl<L> Shape<L> {
    /// The same shape with every declared member mapped by `f`.
    pub fn map<M>(&self, f: &mut impl FnMut(&L) -> M) -> Shape<M> {
        match self {
            Shape::Whole(l) => Shape::Whole(f(l)),
            Shape::Split(ls) => Shape::Split(ls.iter().map(f).collect()),
            Shape::Struct(fs) => Shape::Struct(fs.iter().map(|s| s.map(f)).collect()),
        }
    }
}

/// How a block is declared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BlockLayout {
    pub packing: Packing,
    /// The declared members, in offset order of the IR's members.
    pub decls: Vec<Decl>,
    /// Per IR member: how it is made of `decls`.
    pub shapes: Vec<Shape<usize>>,
}

/// Which shims an attempt may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Shim {
    None,
    Split,
    Flatten,
}

impl Shim {
    fn describe(self) -> &'static str {
        match self {
            Shim::None => "",
            Shim::Split => " with misaligned vectors split",
            Shim::Flatten => " with misaligned vectors split and structs flattened",
        }
    }
}

/// True when `ty` is or holds a struct without fields.
fn contains_empty_struct(m: &Module, ty: InstId) -> bool {
    match m.try_op(ty) {
        Some(Op::Array | Op::RuntimeArray) => contains_empty_struct(m, m.operand(ty, 0)),
        Some(Op::Struct) => {
            let fields = m.struct_fields(ty);
            fields.is_empty()
                || fields
                    .iter()
                    .any(|&f| m.ty(f).is_some_and(|t| contains_empty_struct(m, t)))
        }
        _ => false,
    }
}

/// The packings tried for a rule, in order.
fn candidates(rule: LayoutRule) -> &'static [Packing] {
    match rule {
        LayoutRule::Std140 | LayoutRule::RelaxedStd140 | LayoutRule::DxCbuffer => {
            &[Packing::Std140, Packing::Scalar]
        }
        LayoutRule::Std430 | LayoutRule::RelaxedStd430 => &[Packing::Std430, Packing::Scalar],
        LayoutRule::Scalar | LayoutRule::GlslScalar => &[Packing::Scalar],
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
/// A GLSL packing's rule as the messages name it (`GLSL std430`, `GLSL scalar`).
fn glsl_name(g: LayoutRule) -> String {
    match g {
        LayoutRule::GlslScalar => g.name().to_string(),
        _ => format!("GLSL {}", g.name()),
    }
}

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
                    "`{}` has a matrix stride of {} under {}, {} under {}",
                    print(ty),
                    a.matrix_stride.unwrap_or(0),
                    rule.name(),
                    b.matrix_stride.unwrap_or(0),
                    glsl_name(g)
                )
            }))
        }
        Some(Op::Array | Op::RuntimeArray) => {
            let a = layout::type_layout(m, ty, rule, rm)?;
            let b = layout::type_layout(m, ty, g, rm)?;
            if a.array_stride != b.array_stride {
                return Ok(Some(format!(
                    "`{}` has an array stride of {} under {}, {} under {} (GLSL cannot \
                     set a stride)",
                    print(ty),
                    a.array_stride.unwrap_or(0),
                    rule.name(),
                    b.array_stride.unwrap_or(0),
                    glsl_name(g)
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
                         {}",
                        print(ty),
                        m.name(fa.field).unwrap_or("?"),
                        fa.offset,
                        rule.name(),
                        fb.offset,
                        glsl_name(g)
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

/// One attempt at declaring a block: the packing, its rule, the shims allowed, and the
/// buffer's own rule.
struct Attempt {
    rule: LayoutRule,
    g: LayoutRule,
    shim: Shim,
}

impl Attempt {
    /// Declares member `name` of type `ty` (HLSL majorness `rm`) at `offset`, pushing its
    /// declared members; `Ok(Err(reason))` when this attempt cannot state it.
    fn member(
        &self,
        m: &Module,
        name: &str,
        ty: InstId,
        rm: bool,
        offset: u32,
        decls: &mut Vec<Decl>,
    ) -> Result<Result<Shape<usize>, String>, layout::LayoutError> {
        let is_struct = m.try_op(ty) == Some(Op::Struct);
        if is_struct && m.struct_fields(ty).is_empty() {
            // No bytes: nothing to declare.
            return Ok(Ok(Shape::Struct(Vec::new())));
        }
        let mark = decls.len();
        let plain = self.plain(m, name, ty, rm, offset, decls)?;
        if plain.is_ok() || !is_struct || self.shim < Shim::Flatten {
            return Ok(plain);
        }
        // Flatten: every field its own member (or shape), at its own offset.
        decls.truncate(mark);
        let sl = layout::struct_layout(m, ty, self.rule)?;
        let mut fields = Vec::with_capacity(sl.fields.len());
        for (k, fl) in sl.fields.iter().enumerate() {
            let ft = m.ty(fl.field).ok_or(layout::LayoutError::NotAType)?;
            let fname = match m.name(fl.field) {
                Some(n) => format!("{name}_{n}"),
                None => format!("{name}_{k}"),
            };
            match self.member(m, &fname, ft, fl.row_major, offset + fl.offset, decls)? {
                Ok(s) => fields.push(s),
                Err(r) => return Ok(Err(r)),
            }
        }
        Ok(Ok(Shape::Struct(fields)))
    }

    /// Declares a member as itself (or, for a misaligned vector under the split shim, as its
    /// components).
    fn plain(
        &self,
        m: &Module,
        name: &str,
        ty: InstId,
        rm: bool,
        offset: u32,
        decls: &mut Vec<Decl>,
    ) -> Result<Result<Shape<usize>, String>, layout::LayoutError> {
        let (rule, g) = (self.rule, self.g);
        let l = layout::type_layout(m, ty, g, rm)?;
        if !offset.is_multiple_of(l.align.max(1)) {
            let component = (m.op(ty) == Op::Vector)
                .then(|| m.scalar_bits(m.operand(ty, 0)).map(|b| b / 8))
                .flatten();
            if let Some(c) = component
                && self.shim >= Shim::Split
                && offset.is_multiple_of(c.max(1))
            {
                // A vector the relaxed rules packed tighter than the packing aligns it: its
                // components, each at its own offset, say the same.
                let elem = m.operand(ty, 0);
                let n = m.vector_len(ty).unwrap_or(1);
                let mut comps = Vec::with_capacity(n as usize);
                for i in 0..n {
                    comps.push(decls.len());
                    decls.push(Decl {
                        name: format!("{name}_{}", ['x', 'y', 'z', 'w'][i.min(3) as usize]),
                        ty: elem,
                        offset: offset + i * c,
                        majorness: None,
                    });
                }
                return Ok(Ok(Shape::Split(comps)));
            }
            return Ok(Err(format!(
                "member `{name}` is at offset {offset} under {}, not a multiple of its \
                 alignment {} under {}",
                rule.name(),
                l.align,
                glsl_name(g)
            )));
        }
        if let Some(d) = inner_difference(m, ty, rm, rule, g)? {
            return Ok(Err(format!("member `{name}`: {d}")));
        }
        let mut found = Vec::new();
        majorness(m, ty, rm, &mut found);
        if found.len() > 1 {
            return Ok(Err(format!(
                "member `{name}` holds both row-major and column-major matrices; GLSL states \
                 majorness per block member"
            )));
        }
        if contains_empty_struct(m, ty) {
            return Ok(Err(format!(
                "member `{name}` holds a struct without fields; GLSL has no empty structs, and \
                 a placeholder member would change the layout"
            )));
        }
        decls.push(Decl {
            name: name.to_string(),
            ty,
            offset,
            // HLSL row-major is GLSL column-major.
            majorness: found.first().map(|&hlsl_row_major| !hlsl_row_major),
        });
        Ok(Ok(Shape::Whole(decls.len() - 1)))
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
    let mut reasons: Vec<String> = Vec::new();
    // The block as it is comes first; the shims are fallbacks. A refusal gives the reasons
    // of the last (most permissive) attempts.
    for shim in [Shim::None, Shim::Split, Shim::Flatten] {
        reasons.clear();
        for &p in candidates(rule) {
            let at = Attempt {
                rule,
                g: p.rule(),
                shim,
            };
            let mut decls = Vec::new();
            let mut shapes = Vec::with_capacity(members.len());
            let mut reason = None;
            for mem in members {
                match at
                    .member(m, mem.name, mem.ty, mem.row_major, mem.offset, &mut decls)
                    .map_err(|e| err(format!("member `{}` has no layout: {e}", mem.name)))?
                {
                    Ok(s) => shapes.push(s),
                    Err(r) => {
                        reason = Some(r);
                        break;
                    }
                }
            }
            match reason {
                None => {
                    return Ok(BlockLayout {
                        packing: p,
                        decls,
                        shapes,
                    });
                }
                Some(r) => reasons.push(format!("GLSL {}{}: {r}", p.qualifier(), shim.describe())),
            }
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
