//! The module-level part of the WGSL output: names, types, constants, struct declarations with
//! their `@align`/`@size` layout attributes, resource and workgroup declarations, the entry
//! point's IO structs, and the final assembly.
//!
//! Atomics: WGSL performs atomic operations only on memory of type `atomic<T>`, where the IR
//! performs them on ordinary integer memory. The locations an atomic touches ([`Loc`]: a
//! global, a field of a struct type, an element of either) are collected from the reached
//! functions first; those locations are declared `atomic<u32>`/`atomic<i32>`, and every load
//! and store of them prints as `atomicLoad`/`atomicStore`.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use oneshader_ir::layout::{self, LayoutRule, StructLayout, TypeLayout};
use oneshader_ir::types::TextureDesc;
use oneshader_ir::{AddressSpace, BuiltIn, Dim, ImageFormat, InstId, Module, Op, ScalarKind};
use oneshader_ir::{Diagnostic, Stage, TextureAccess};
use rustc_hash::{FxHashMap, FxHashSet};

use super::Options;
use super::error::{LAYOUT, MALFORMED, R, RESOURCE, TYPE, WgslError, malformed};
use super::names::{Namer, namer};
use crate::text::column_major_matrix;
use crate::text::names::Prenamed;
use crate::text::usage::Entry;

pub(crate) use crate::text::atomics::Loc;

/// A stage input or output of the entry point.
#[derive(Clone, Debug)]
pub(crate) struct Io {
    /// The private variable the functions use.
    pub var: String,
    /// The member of the entry point's IO struct.
    pub member: String,
    /// Its attributes (`@location(0) @interpolate(flat)`, `@builtin(position)`).
    pub attrs: String,
    /// The WGSL type of the IO member.
    pub io_type: String,
    /// The WGSL type of the private variable (empty when `var` is an element of an arrayed
    /// variable declared with the IO: an array or matrix takes one member per location).
    pub var_type: String,
    /// How a value of the member becomes the variable's (`{}` is the member), or the
    /// reverse for outputs.
    pub convert: String,
}

/// The module being printed.
pub(crate) struct ModuleCx<'m> {
    pub m: &'m Module,
    pub opts: &'m Options,
    pub entry: Entry,
    pub names: Namer,
    /// Module-scope names chosen before any body is printed ([`ModuleCx::prename`]).
    pub prenamed: Prenamed,
    /// Names of globals and functions.
    pub item_names: FxHashMap<InstId, String>,
    struct_names: FxHashMap<InstId, String>,
    field_names: FxHashMap<InstId, Vec<String>>,
    /// The layout rule each struct type used in host-shared memory is laid out under.
    struct_rules: FxHashMap<InstId, LayoutRule>,
    /// Atomic locations, and every prefix of one.
    pub atomics: FxHashSet<Loc>,
    pub atomic_prefixes: FxHashSet<Loc>,
    /// Vector fields (struct, index) DXC's relaxed rules place where WGSL cannot align them
    /// (`float a; float3 b;` puts `b` at 4): declared one scalar member per component, each
    /// at its own offset (the GLSL backend's split-vector shim).
    pub split: FxHashSet<(InstId, usize)>,
    /// Matrix fields (struct, index) whose matrix stride is not WGSL's (DXC's constant
    /// buffers put each `float2` row or column of a matrix in its own 16-byte register):
    /// declared one vector member per stored row or column, `@size(stride)` apart, and the
    /// stride.
    pub split_mats: FxHashMap<(InstId, usize), u32>,
    /// The member names of split fields' components (or of split matrices' vectors).
    split_names: FxHashMap<(InstId, usize), Vec<String>>,
    /// Texture globals sampled with a depth comparison: declared `texture_depth_*`.
    pub depth_textures: FxHashSet<InstId>,
    /// Arrays of buffers whose elements are runtime arrays, declared as binding arrays of a
    /// wrapper struct `{ v: array<T> }` (their elements are `[i].v`).
    pub wrapped_buffers: FxHashSet<InstId>,
    /// The declarations of those wrapper structs.
    buffer_wrappers: String,
    /// Globals indexed by a value computed at run time (what matters for arrays of textures,
    /// samplers or buffers: naga's binding arrays).
    dynamic_arrays: FxHashSet<InstId>,
    pub decls: String,
    consts: FxHashMap<InstId, String>,
    const_decls: String,
    /// Module directives (`enable`, `diagnostic`).
    pub directives: BTreeSet<&'static str>,
    pub inputs: Vec<Io>,
    pub outputs: Vec<Io>,
    /// Member names of the input and output structs.
    pub io_names: (Namer, Namer),
    /// Resources by (group, binding): WGSL gives each binding one resource.
    bindings: FxHashMap<(u32, u32), InstId>,
    /// Warnings (what the output leaves out, with why).
    pub(crate) warnings: Vec<Diagnostic>,
    /// Where each resource goes (`crate::bindings::wgsl_places`).
    pub(crate) places: FxHashMap<InstId, crate::bindings::WgslPlace>,
    /// naga capabilities the output needs beyond WebGPU's defaults (`SUBGROUP` for wave
    /// operations), stated in its first line.
    pub capabilities: BTreeSet<&'static str>,
    /// Array fields (struct, index) of constant buffers whose elements WGSL would pack tighter
    /// than the layout's 16-byte stride (`float w[5]` in a cbuffer): declared as arrays of a
    /// wrapper struct `{ @size(stride) v: T }`, and the stride.
    pub padded: FxHashMap<(InstId, usize), u32>,
    /// The wrapper structs of padded arrays: (element type, stride) -> name.
    wrappers: std::collections::BTreeMap<(String, u32), String>,
    /// The private variables of the subgroup built-ins, once asked for.
    subgroup_vars: FxHashMap<&'static str, String>,
    /// Buffer structs whose first member is at a non-zero offset (`[[vk::offset(4)]]`), and
    /// that offset: declared with a leading padding member (`@size(offset) pad: u32`), which
    /// struct constructors fill with `0u` (see [`ModuleCx::lead_pad`]).
    lead_pads: FxHashMap<InstId, u32>,
    /// The names of those padding members.
    pad_names: FxHashMap<InstId, String>,
    /// The source lines marked so far (the options' `line_comments`).
    pub lines: Option<crate::text::lines::LineMarks<'m>>,
}

fn scalar_name(m: &Module, s: InstId) -> R<&'static str> {
    Ok(match m.op(s) {
        Op::Bool => "bool",
        Op::I32 => "i32",
        Op::U32 => "u32",
        Op::F32 => "f32",
        // Behind `enable f16;` (see `ModuleCx::half`).
        Op::F16 => "f16",
        op => {
            return Err(WgslError::new(
                TYPE,
                format!(
                    "the scalar type `{}` has no WGSL form (WGSL has bool, i32, u32, f32 and \
                     f16; 8-, 16- and 64-bit integers and 64-bit floats do not exist)",
                    op.spelling()
                ),
            ));
        }
    })
}

/// The WGSL storage-texture format of an image format.
fn format_name(f: ImageFormat) -> Option<&'static str> {
    use ImageFormat as F;
    Some(match f {
        F::Rgba32f => "rgba32float",
        F::Rgba16f => "rgba16float",
        F::R32f => "r32float",
        F::Rgba8 => "rgba8unorm",
        F::Rgba8Snorm => "rgba8snorm",
        F::Rg32f => "rg32float",
        F::Rg16f => "rg16float",
        F::R11fG11fB10f => "rg11b10ufloat",
        F::R16f => "r16float",
        F::Rgba16 => "rgba16unorm",
        F::Rgb10A2 => "rgb10a2unorm",
        F::Rg16 => "rg16unorm",
        F::Rg8 => "rg8unorm",
        F::R16 => "r16unorm",
        F::R8 => "r8unorm",
        F::Rgba16Snorm => "rgba16snorm",
        F::Rg16Snorm => "rg16snorm",
        F::Rg8Snorm => "rg8snorm",
        F::R16Snorm => "r16snorm",
        F::R8Snorm => "r8snorm",
        F::Rgba32i => "rgba32sint",
        F::Rgba16i => "rgba16sint",
        F::Rgba8i => "rgba8sint",
        F::R32i => "r32sint",
        F::Rg32i => "rg32sint",
        F::Rg16i => "rg16sint",
        F::Rg8i => "rg8sint",
        F::R16i => "r16sint",
        F::R8i => "r8sint",
        F::Rgba32ui => "rgba32uint",
        F::Rgba16ui => "rgba16uint",
        F::Rgba8ui => "rgba8uint",
        F::R32ui => "r32uint",
        F::Rgb10a2ui => "rgb10a2uint",
        F::Rg32ui => "rg32uint",
        F::Rg16ui => "rg16uint",
        F::Rg8ui => "rg8uint",
        F::R16ui => "r16uint",
        F::R8ui => "r8uint",
        F::Unknown | F::R64ui | F::R64i => return None,
    })
}

/// A column-major matrix in a buffer: what `legalize(wgsl)` (`transpose_storage`) leaves
/// none of; the boundary's OSG0009 refuses a module that skipped it.
fn column_major() -> WgslError {
    malformed(
        "a column-major matrix in a buffer (the `transpose_storage` pass stores them row-major)",
    )
}

/// WGSL's own alignment and size of a host-shareable type (WGSL's "Alignment and Size"
/// table). A matrix is HLSL's row-major one: WGSL's columns are its rows (legalization's
/// `transpose_storage` leaves no column-major matrix in a buffer).
fn wgsl_align_size(m: &Module, ty: InstId) -> Option<(u32, u32)> {
    let vec = |n: u32| (if n == 2 { 8 } else { 16 }, 4 * n);
    Some(match m.op(ty) {
        Op::Bool | Op::I32 | Op::U32 | Op::F32 => (4, 4),
        Op::F16 => (2, 2),
        Op::Vector if m.op(m.operand(ty, 0)) == Op::F16 => {
            // Half of a 32-bit vector's: vec2<f16> 4, vec3<f16> and vec4<f16> 8.
            let (a, s) = vec(m.vector_len(ty)?);
            (a / 2, s / 2)
        }
        Op::Vector => vec(m.vector_len(ty)?),
        Op::Matrix => {
            let (rows, cols) = m.matrix_dims(ty)?;
            // WGSL columns: HLSL rows of `cols` components.
            let (a, _) = vec(cols);
            (a, a * rows)
        }
        _ => return None,
    })
}

impl<'m> ModuleCx<'m> {
    /// A context printing `entry` of `m`.
    pub fn new(m: &'m Module, opts: &'m Options, entry: Entry) -> ModuleCx<'m> {
        let mut names = namer();
        names.reserve(&entry.name);
        ModuleCx {
            m,
            opts,
            entry,
            names,
            prenamed: Prenamed::default(),
            item_names: FxHashMap::default(),
            struct_names: FxHashMap::default(),
            field_names: FxHashMap::default(),
            struct_rules: FxHashMap::default(),
            atomics: FxHashSet::default(),
            atomic_prefixes: FxHashSet::default(),
            depth_textures: FxHashSet::default(),
            dynamic_arrays: FxHashSet::default(),
            wrapped_buffers: FxHashSet::default(),
            buffer_wrappers: String::new(),
            split: FxHashSet::default(),
            split_names: FxHashMap::default(),
            split_mats: FxHashMap::default(),
            decls: String::new(),
            consts: FxHashMap::default(),
            const_decls: String::new(),
            directives: BTreeSet::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            io_names: (namer(), namer()),
            bindings: FxHashMap::default(),
            warnings: Vec::new(),
            places: FxHashMap::default(),
            capabilities: BTreeSet::new(),
            subgroup_vars: FxHashMap::default(),
            padded: FxHashMap::default(),
            wrappers: std::collections::BTreeMap::new(),
            lead_pads: FxHashMap::default(),
            pad_names: FxHashMap::default(),
            lines: opts
                .line_comments
                .as_ref()
                .map(crate::text::lines::LineMarks::new),
        }
    }

    /// Records that the output uses `f16`: `enable f16;` and naga's `SHADER_FLOAT16`
    /// capability (wgpu's `SHADER_F16`).
    pub fn half(&mut self) {
        self.directives.insert("enable f16;");
        self.capabilities.insert("SHADER_FLOAT16");
    }

    /// Records that the output uses subgroup operations: naga's `SUBGROUP` capability (and
    /// `SUBGROUP_VERTEX_STAGE` in a vertex shader).
    pub fn subgroups(&mut self) {
        self.capabilities.insert("SUBGROUP");
        if self.entry.stage == Stage::Vertex {
            self.capabilities.insert("SUBGROUP_VERTEX_STAGE");
        }
    }

    /// The private variable holding subgroup built-in `builtin` (`subgroup_size`,
    /// `subgroup_invocation_id`), added to the entry point's inputs on first use.
    pub fn subgroup_builtin(&mut self, builtin: &'static str) -> String {
        self.subgroups();
        if let Some(v) = self.subgroup_vars.get(builtin) {
            return v.clone();
        }
        let var = self.names.fresh(Some(builtin), "subgroup", None);
        let member = self.io_names.0.fresh(Some(builtin), "v", None);
        self.inputs.push(Io {
            var: var.clone(),
            member,
            attrs: format!("@builtin({builtin})"),
            io_type: "u32".into(),
            var_type: "u32".into(),
            convert: "{}".into(),
        });
        self.subgroup_vars.insert(builtin, var.clone());
        var
    }

    /// The location pointer `p` designates, when it has one (a global, a field, an element).
    pub fn loc_of(&self, p: InstId) -> Option<Loc> {
        crate::text::atomics::loc_of(self.m, p)
    }

    /// Records the locations atomics touch in `funcs`, the depth-compared textures, the arrays
    /// of textures indexed at run time, and the
    /// column-major matrix fields.
    pub fn scan(&mut self, funcs: &[oneshader_ir::Func]) -> R<()> {
        let m = self.m;
        let mut locs = crate::text::atomics::AtomicLocs::default();
        locs.scan(m, funcs);
        self.atomics = locs.atomics;
        self.atomic_prefixes = locs.prefixes;
        for &f in funcs {
            for b in f.blocks(m) {
                for c in m.children(b.id()) {
                    match m.op(c) {
                        Op::ElementAddr
                            if !m.op(m.operand(c, 1)).is_constant()
                                && m.op(m.operand(c, 0)) == Op::Global =>
                        {
                            self.dynamic_arrays.insert(m.operand(c, 0));
                        }
                        Op::SampleCmp
                        | Op::SampleCmpLevelZero
                        | Op::SampleCmpLevel
                        | Op::SampleCmpBias
                        | Op::SampleCmpGrad
                        | Op::GatherCmp => {
                            let mut t = m.operand(c, 0);
                            while m.op(t) == Op::ElementAddr {
                                t = m.operand(t, 0);
                            }
                            self.depth_textures.insert(t);
                        }
                        _ => {}
                    }
                }
            }
        }
        Ok(())
    }

    /// The name of struct type `ty` (declared at assembly).
    pub fn struct_name(&mut self, ty: InstId) -> String {
        if let Some(n) = self.struct_names.get(&ty) {
            return n.clone();
        }
        let n = self
            .prenamed
            .take(&mut self.names, ty, 0, self.m.name(ty), "S");
        self.struct_names.insert(ty, n.clone());
        n
    }

    /// The name of field `i` of struct `ty`.
    pub fn field_name(&mut self, ty: InstId, i: usize) -> String {
        if !self.field_names.contains_key(&ty) {
            let m = self.m;
            let mut scope = namer();
            let names: Vec<String> = m
                .struct_fields(ty)
                .iter()
                .map(|&f| scope.fresh(m.name(f), "field", None))
                .collect();
            for (k, n) in names.iter().enumerate() {
                let ft = m.struct_fields(ty).get(k).and_then(|&f| m.ty(f));
                let hints: Vec<String> = if self.split.contains(&(ty, k)) {
                    let len = ft.and_then(|t| m.vector_len(t)).unwrap_or(0);
                    (0..len.min(4))
                        .map(|c| format!("{n}_{}", ['x', 'y', 'z', 'w'][c as usize]))
                        .collect()
                } else if self.split_mats.contains_key(&(ty, k)) {
                    let parts = ft.and_then(|t| m.matrix_dims(t)).map_or(0, |p| p.0);
                    (0..parts).map(|c| format!("{n}_{c}")).collect()
                } else {
                    continue;
                };
                let comps = hints
                    .iter()
                    .map(|h| scope.fresh(Some(h), "field", None))
                    .collect();
                self.split_names.insert((ty, k), comps);
            }
            self.field_names.insert(ty, names);
        }
        self.field_names[&ty]
            .get(i)
            .cloned()
            .unwrap_or_else(|| format!("field_{i}"))
    }

    /// The leading padding member of buffer struct `st` (see `lead_pads`): its size and
    /// name, a name none of the struct's members has.
    pub fn lead_pad(&mut self, st: InstId) -> Option<(u32, String)> {
        let size = *self.lead_pads.get(&st)?;
        if let Some(n) = self.pad_names.get(&st) {
            return Some((size, n.clone()));
        }
        let count = self.m.struct_fields(st).len();
        let mut taken: FxHashSet<String> = (0..count).map(|k| self.field_name(st, k)).collect();
        taken.extend(
            self.split_names
                .iter()
                .filter(|(k, _)| k.0 == st)
                .flat_map(|(_, v)| v.clone()),
        );
        let mut scope = namer();
        for t in &taken {
            scope.reserve(t);
        }
        let n = scope.fresh(Some("pad"), "pad", None);
        self.pad_names.insert(st, n.clone());
        Some((size, n))
    }

    /// A struct with a leading padding member (see `lead_pads`) that a value of type `ty`
    /// holds (itself, or in a field or element), if any.
    pub fn lead_padded_in(&self, ty: InstId) -> Option<InstId> {
        let m = self.m;
        match m.try_op(ty)? {
            Op::Struct if self.lead_pads.contains_key(&ty) => Some(ty),
            Op::Struct => m
                .struct_fields(ty)
                .iter()
                .find_map(|&f| m.ty(f).and_then(|t| self.lead_padded_in(t))),
            Op::Array | Op::RuntimeArray => self.lead_padded_in(m.operand(ty, 0)),
            _ => None,
        }
    }

    /// The member names of the components of split field `i` of struct `ty` (see
    /// [`ModuleCx::split`]).
    pub fn split_names(&mut self, ty: InstId, i: usize) -> R<Vec<String>> {
        self.field_name(ty, i);
        self.split_names
            .get(&(ty, i))
            .cloned()
            .ok_or_else(|| malformed("a split field without component names"))
    }

    /// The WGSL type of `ty`.
    pub fn type_name(&mut self, ty: InstId) -> R<String> {
        self.type_at(ty, None)
    }

    /// The WGSL type of `ty` stored at `loc` (atomic there when an atomic touches it).
    pub fn type_at(&mut self, ty: InstId, loc: Option<&Loc>) -> R<String> {
        let m = self.m;
        let op = m
            .try_op(ty)
            .ok_or_else(|| malformed("a type refers to a removed instruction"))?;
        if let Some(l) = loc
            && self.atomics.contains(l)
        {
            return match op {
                Op::I32 => Ok("atomic<i32>".into()),
                Op::U32 => Ok("atomic<u32>".into()),
                _ => Err(WgslError::new(
                    super::error::OPERANDS,
                    format!(
                        "an atomic on `{}`; WGSL atomics are on 32-bit integers only",
                        oneshader_ir::print::print_inst(m, ty)
                    ),
                )),
            };
        }
        if m.scalar_of(ty).is_some_and(|s| m.op(s) == Op::F16) {
            self.half();
        }
        Ok(match op {
            _ if op.is_scalar_type() => scalar_name(m, ty)?.to_string(),
            Op::Vector => {
                let e = m.operand(ty, 0);
                format!(
                    "vec{}<{}>",
                    m.vector_len(ty).unwrap_or(4),
                    scalar_name(m, e)?
                )
            }
            Op::Matrix => {
                let e = m.operand(ty, 0);
                if m.op(e) != Op::F32 {
                    return Err(WgslError::new(
                        TYPE,
                        format!(
                            "the matrix type `{}`; the WGSL backend prints f32 matrices only \
                             (WGSL has no integer or bool matrices; f16 ones are not supported)",
                            oneshader_ir::print::print_inst(m, ty)
                        ),
                    ));
                }
                let (r, c) = m.matrix_dims(ty).ok_or_else(|| malformed("a bad matrix"))?;
                format!("mat{r}x{c}<f32>")
            }
            Op::Array => {
                let inner = loc.map(|l| Loc::Elem(Box::new(l.clone())));
                let e = self.type_at(m.operand(ty, 0), inner.as_ref())?;
                format!("array<{e}, {}>", m.array_len(ty).unwrap_or(0))
            }
            Op::RuntimeArray => {
                let inner = loc.map(|l| Loc::Elem(Box::new(l.clone())));
                let e = self.type_at(m.operand(ty, 0), inner.as_ref())?;
                format!("array<{e}>")
            }
            Op::Struct => self.struct_name(ty),
            Op::Sampler => "sampler".into(),
            Op::SamplerCmp => "sampler_comparison".into(),
            Op::Texture => {
                let d = m
                    .texture_desc(ty)
                    .ok_or_else(|| malformed("a bad texture"))?;
                self.texture_type(ty, &d, false)?
            }
            Op::Ptr => {
                let space = m.address_space(ty);
                let pointee = m.pointee(ty).ok_or_else(|| malformed("a bad pointer"))?;
                let s = match space {
                    Some(AddressSpace::Function) => "function",
                    Some(AddressSpace::Private) => "private",
                    Some(AddressSpace::Workgroup) => "workgroup",
                    _ => {
                        return Err(WgslError::new(
                            super::error::OPERANDS,
                            "a pointer parameter into memory other than function, private or \
                             workgroup memory",
                        ));
                    }
                };
                format!("ptr<{s}, {}>", self.type_name(pointee)?)
            }
            _ => {
                return Err(WgslError::new(
                    TYPE,
                    format!(
                        "the type `{}` has no WGSL form",
                        oneshader_ir::print::print_inst(m, ty)
                    ),
                ));
            }
        })
    }

    /// The WGSL type of a texture (`depth`: sampled with comparisons).
    pub fn texture_type(&mut self, ty: InstId, d: &TextureDesc, depth: bool) -> R<String> {
        let m = self.m;
        let what = || oneshader_ir::print::print_inst(m, ty);
        let dim = match (d.dim, d.arrayed) {
            (Dim::D1, false) => "1d",
            (Dim::D2, false) => "2d",
            (Dim::D2, true) => "2d_array",
            (Dim::D3, false) => "3d",
            (Dim::Cube, false) => "cube",
            (Dim::Cube, true) => "cube_array",
            (Dim::D1, true) => {
                return Err(WgslError::new(
                    TYPE,
                    format!("`{}`: WGSL has no 1D array textures", what()),
                ));
            }
            (Dim::Buffer, _) => {
                return Err(WgslError::new(
                    TYPE,
                    format!(
                        "`{}`: a texel buffer (HLSL `Buffer`/`RWBuffer`); WGSL has no texel \
                         buffers",
                        what()
                    ),
                ));
            }
            (Dim::SubpassData, _) | (Dim::D3, true) => {
                return Err(WgslError::new(
                    TYPE,
                    format!("`{}` has no WGSL texture type", what()),
                ));
            }
        };
        let elem = m.scalar_of(d.sampled_type).unwrap_or(d.sampled_type);
        if m.op(elem) == Op::F16 {
            return Err(WgslError::new(
                TYPE,
                format!("`{}`: WGSL textures hold f32, i32 or u32 texels", what()),
            ));
        }
        let sname = scalar_name(m, elem)?;
        if d.access == TextureAccess::Storage {
            if d.multisampled {
                return Err(WgslError::new(
                    TYPE,
                    format!("`{}`: WGSL has no multisampled storage textures", what()),
                ));
            }
            let f = format_name(d.format).ok_or_else(|| {
                WgslError::new(
                    TYPE,
                    format!(
                        "`{}`: a storage texture without a format WGSL names (give it \
                         `[[vk::image_format(...)]]`)",
                        what()
                    ),
                )
            })?;
            return Ok(format!("texture_storage_{dim}<{f}, ACCESS>"));
        }
        if depth {
            if d.multisampled {
                return Ok("texture_depth_multisampled_2d".into());
            }
            return Ok(format!("texture_depth_{dim}"));
        }
        if d.multisampled {
            if d.dim != Dim::D2 || d.arrayed {
                return Err(WgslError::new(
                    TYPE,
                    format!("`{}`: WGSL's multisampled textures are 2D only", what()),
                ));
            }
            return Ok(format!("texture_multisampled_2d<{sname}>"));
        }
        Ok(format!("texture_{dim}<{sname}>"))
    }

    /// Chooses the names of the struct types and constants that the bodies of `funcs` may
    /// name at module scope, before any body is printed, so a local name (chosen against the
    /// module scope) never equals one of them.
    pub fn prename(&mut self, funcs: &[oneshader_ir::Func]) {
        let m = self.m;
        let refs = crate::text::names::module_refs(m, funcs, &[]);
        for t in refs.structs {
            if !self.struct_names.contains_key(&t) {
                self.prenamed.choose(&mut self.names, t, 0, m.name(t), "S");
            }
        }
        for c in refs.consts {
            let fallback = match m.op(c) {
                Op::SpecConst => "spec",
                Op::Composite
                    if m.ty(c)
                        .is_some_and(|t| matches!(m.op(t), Op::Array | Op::Struct)) =>
                {
                    "k"
                }
                _ => continue,
            };
            if !self.consts.contains_key(&c) && !self.item_names.contains_key(&c) {
                self.prenamed
                    .choose(&mut self.names, c, 0, m.name(c), fallback);
            }
        }
    }

    /// A module-level `const` holding composite constant `c` (arrays and structs), by name.
    pub fn const_name(&mut self, c: InstId) -> R<String> {
        if let Some(n) = self.consts.get(&c) {
            return Ok(n.clone());
        }
        let v = self.constant(c)?;
        let t = self
            .m
            .ty(c)
            .ok_or_else(|| malformed("an untyped constant"))?;
        let tn = self.type_name(t)?;
        let n = self
            .prenamed
            .take(&mut self.names, c, 0, self.m.name(c), "k");
        writeln!(self.const_decls, "const {n}: {tn} = {v};").ok();
        self.consts.insert(c, n.clone());
        Ok(n)
    }

    /// A scalar literal of scalar type `ty` with the IR bits `bits`.
    pub fn scalar_literal(&mut self, ty: InstId, bits: u64) -> R<String> {
        let m = self.m;
        Ok(match m.op(ty) {
            Op::Bool => if bits != 0 { "true" } else { "false" }.into(),
            Op::I32 => {
                let v = bits as u32 as i32;
                if v == i32::MIN {
                    "i32(-2147483647 - 1)".into()
                } else {
                    format!("{v}i")
                }
            }
            Op::U32 => format!("{}u", bits as u32),
            Op::F32 => f32_literal(bits as u32),
            Op::F16 => {
                self.half();
                f16_literal(bits as u16)
            }
            _ => {
                scalar_name(m, ty)?;
                return Err(malformed("a scalar literal of a non-scalar type"));
            }
        })
    }

    /// The WGSL text of constant `c` (inline).
    pub fn constant(&mut self, c: InstId) -> R<String> {
        let m = self.m;
        let ty = m.ty(c).ok_or_else(|| malformed("an untyped constant"))?;
        match m.op(c) {
            Op::ConstBool | Op::ConstInt | Op::ConstFloat => {
                let bits = m.literal_bits(c).unwrap_or(0);
                self.scalar_literal(ty, bits)
            }
            Op::Zero | Op::Undef => {
                let tn = self.type_name(ty)?;
                Ok(format!("{tn}()"))
            }
            Op::Composite => {
                let tn = self.type_name(ty)?;
                let mut parts = Vec::new();
                for k in 0..m.num_operands(c) {
                    let v = m.operand(c, k);
                    parts.push(self.constant(v)?);
                }
                if m.op(ty) == Op::Struct {
                    let fields = m.struct_fields(ty);
                    for (k, p) in parts.iter_mut().enumerate() {
                        if self.padded.contains_key(&(ty, k))
                            || self.split_mats.contains_key(&(ty, k))
                        {
                            return Err(WgslError::new(
                                super::error::OPERANDS,
                                "a constant of a buffer struct whose array or matrix member WGSL \
                                 declares in parts (padded elements, one member per row or \
                                 column); not supported by the WGSL backend",
                            ));
                        }
                        if self.split.contains(&(ty, k)) {
                            let n = fields
                                .get(k)
                                .and_then(|&f| m.ty(f))
                                .and_then(|t| m.vector_len(t))
                                .unwrap_or(0);
                            *p = split_args(p, n);
                            continue;
                        }
                    }
                }
                if m.op(ty) == Op::Struct && self.lead_pad(ty).is_some() {
                    parts.insert(0, "0u".into());
                }
                Ok(format!("{tn}({})", parts.join(", ")))
            }
            Op::SpecConst => {
                if let Some(n) = self.item_names.get(&c) {
                    return Ok(n.clone());
                }
                let id = m.imm_operand(c, 0).unwrap_or(0);
                let def = self.constant(m.operand(c, 1))?;
                let tn = self.type_name(ty)?;
                let n = self.prenamed.take(&mut self.names, c, 0, m.name(c), "spec");
                writeln!(self.const_decls, "@id({id}) override {n}: {tn} = {def};").ok();
                self.item_names.insert(c, n.clone());
                Ok(n)
            }
            op => Err(malformed(format!("`{}` is not a constant", op.spelling()))),
        }
    }

    /// The rule a buffer global of `space` is laid out under.
    fn rule_of(&self, g: InstId, space: AddressSpace) -> LayoutRule {
        match space {
            AddressSpace::Uniform => self.opts.cbuffer_rule,
            AddressSpace::PushConstant => self.opts.push_constant_rule,
            _ if self.m.has_decoration(g, Op::TextureBuffer) => self.opts.tbuffer_rule,
            _ => self.opts.storage_rule,
        }
    }

    /// Declares every used global.
    pub fn declare_globals(
        &mut self,
        used: &[(InstId, oneshader_ir::effects::Access)],
    ) -> Vec<WgslError> {
        let m = self.m;
        crate::text::driver::declare_each(m, used.iter().copied(), |g, access| {
            self.declare_global(g, access)
        })
    }

    fn binding(&mut self, g: InstId) -> R<String> {
        let m = self.m;
        let place = self.places.get(&g).copied().ok_or_else(|| {
            WgslError::new(
                RESOURCE,
                "a resource without a binding; WGSL resources need @group and @binding",
            )
        })?;
        let (group, binding) = (place.group, place.binding);
        if let Some(&other) = self.bindings.get(&(group, binding)) {
            let describe = |x: InstId| {
                let name = m.name(x).unwrap_or("?");
                let how = match self.places.get(&x).map(|p| p.rule) {
                    Some(crate::bindings::WgslRule::Map(k)) => format!("binding map entry [{k}]"),
                    Some(crate::bindings::WgslRule::ByClass) => "the register-class rule".into(),
                    _ => "its Vulkan binding".into(),
                };
                match crate::bindings::hlsl_register(m, x) {
                    Some(r) => format!(
                        "@{name} (register {}, space {}; {how})",
                        r.spelling(),
                        r.space
                    ),
                    None => format!("@{name} ({how})"),
                }
            };
            return Err(WgslError::new(
                RESOURCE,
                format!(
                    "{} and {} are both at @group({group}) @binding({binding}); WGSL binds one \
                     resource per binding: give one another place (`--wgsl-binding-map`, \
                     `[[vk::binding]]`)",
                    describe(other),
                    describe(g),
                ),
            ));
        }
        self.bindings.insert((group, binding), g);
        Ok(format!("@group({group}) @binding({binding}) "))
    }

    fn declare_global(&mut self, g: InstId, access: oneshader_ir::effects::Access) -> R<()> {
        let m = self.m;
        let ty = m.ty(g).ok_or_else(|| malformed("a global has no type"))?;
        let space = m
            .address_space(ty)
            .ok_or_else(|| malformed("a global's type is not a pointer"))?;
        let pointee = m
            .pointee(ty)
            .ok_or_else(|| malformed("a global's type is not a pointer"))?;
        if matches!(space, AddressSpace::Input | AddressSpace::Output) {
            return self.declare_io(g, space == AddressSpace::Input, pointee);
        }
        let name = self.names.fresh(m.name(g), "g", None);
        self.item_names.insert(g, name.clone());
        let loc = Loc::Global(g);
        match space {
            AddressSpace::Uniform | AddressSpace::StorageBuffer => {
                let rule = self.rule_of(g, space);
                let descriptors = crate::buffers::is_descriptor_array(m, space, pointee);
                let t = if descriptors {
                    // An array of buffers: naga's `binding_array` of the buffer struct.
                    let elem = m.operand(pointee, 0);
                    self.check_buffer_type(elem, rule, space, g)?;
                    let mut t = self.type_at(elem, Some(&Loc::Elem(Box::new(loc.clone()))))?;
                    if m.op(elem) != Op::Struct {
                        // naga's binding arrays of buffers hold structs: each buffer's runtime
                        // array is the one member of a wrapper struct, read as `[i].v`.
                        let w = self
                            .names
                            .fresh(Some(&format!("{name}_buffer")), "Buffer", None);
                        writeln!(self.buffer_wrappers, "struct {w} {{\n    v: {t},\n}}\n").ok();
                        self.wrapped_buffers.insert(g);
                        t = w;
                    }
                    let storage = space == AddressSpace::StorageBuffer;
                    self.capabilities.insert(if storage {
                        "STORAGE_BUFFER_BINDING_ARRAY"
                    } else {
                        "BUFFER_BINDING_ARRAY"
                    });
                    if self.dynamic_arrays.contains(&g) {
                        self.capabilities.insert(if storage {
                            "STORAGE_BUFFER_BINDING_ARRAY_NON_UNIFORM_INDEXING"
                        } else {
                            "BUFFER_BINDING_ARRAY_NON_UNIFORM_INDEXING"
                        });
                    }
                    self.directives.insert("enable wgpu_binding_array;");
                    match m.array_len(pointee).filter(|_| m.op(pointee) == Op::Array) {
                        Some(n) => format!("binding_array<{t}, {n}>"),
                        None => format!("binding_array<{t}>"),
                    }
                } else {
                    self.check_buffer_type(pointee, rule, space, g)?;
                    self.type_at(pointee, Some(&loc))?
                };
                let b = self.binding(g)?;
                let s = if space == AddressSpace::Uniform {
                    "uniform".to_string()
                } else if access.writes() || self.atomic_prefixes.iter().any(|l| l.root() == g) {
                    "storage, read_write".to_string()
                } else {
                    "storage, read".to_string()
                };
                writeln!(self.decls, "{b}var<{s}> {name}: {t};").ok();
                Ok(())
            }
            AddressSpace::PushConstant => {
                // naga 30 spells push constants `var<immediate>` (wgpu's immediates), behind its
                // IMMEDIATES capability, and writes them as SPIR-V push constants.
                let rule = self.rule_of(g, space);
                self.check_buffer_type(pointee, rule, space, g)?;
                let t = self.type_at(pointee, Some(&loc))?;
                self.capabilities.insert("IMMEDIATES");
                writeln!(self.decls, "var<immediate> {name}: {t};").ok();
                Ok(())
            }
            AddressSpace::UniformConstant => {
                let b = self.binding(g)?;
                // An array of textures or samplers is naga's `binding_array` (wgpu's native
                // binding arrays, behind a capability the output states).
                let (elem_ty, count) = match m.op(pointee) {
                    Op::Array => (m.operand(pointee, 0), m.array_len(pointee)),
                    Op::RuntimeArray => (m.operand(pointee, 0), None),
                    _ => (pointee, None),
                };
                let arrayed = elem_ty != pointee;
                if arrayed && matches!(m.op(elem_ty), Op::Array | Op::RuntimeArray) {
                    return Err(WgslError::new(
                        TYPE,
                        "a multi-dimensional array of textures or samplers; naga's binding \
                         arrays have one dimension",
                    ));
                }
                let t = self.handle_type(g, elem_ty, access)?;
                let t = if arrayed {
                    let storage = m
                        .texture_desc(elem_ty)
                        .is_some_and(|d| d.access == TextureAccess::Storage);
                    let dynamic = self.dynamic_arrays.contains(&g);
                    self.directives.insert("enable wgpu_binding_array;");
                    self.capabilities.insert(if storage {
                        "STORAGE_TEXTURE_BINDING_ARRAY"
                    } else {
                        "TEXTURE_AND_SAMPLER_BINDING_ARRAY"
                    });
                    // naga asks for non-uniform indexing unless its uniformity analysis proves
                    // the index uniform; an index computed at run time is stated as possibly
                    // non-uniform (the host must offer it).
                    if dynamic {
                        self.capabilities.insert(if storage {
                            "STORAGE_TEXTURE_BINDING_ARRAY_NON_UNIFORM_INDEXING"
                        } else {
                            "TEXTURE_AND_SAMPLER_BINDING_ARRAY_NON_UNIFORM_INDEXING"
                        });
                    }
                    match count {
                        Some(n) => format!("binding_array<{t}, {n}>"),
                        None => format!("binding_array<{t}>"),
                    }
                } else {
                    t
                };
                writeln!(self.decls, "{b}var {name}: {t};").ok();
                Ok(())
            }
            AddressSpace::Workgroup => {
                let t = self.type_at(pointee, Some(&loc))?;
                if m.try_operand(g, 0).is_some() {
                    return Err(WgslError::new(
                        TYPE,
                        "a workgroup variable with an initializer; WGSL workgroup variables \
                         start zeroed and take none",
                    ));
                }
                writeln!(self.decls, "var<workgroup> {name}: {t};").ok();
                Ok(())
            }
            AddressSpace::Private => {
                let t = self.type_name(pointee)?;
                match m.try_operand(g, 0) {
                    Some(init) => {
                        let v = self.constant(init)?;
                        writeln!(self.decls, "var<private> {name}: {t} = {v};").ok();
                    }
                    None => {
                        writeln!(self.decls, "var<private> {name}: {t};").ok();
                    }
                }
                Ok(())
            }
            AddressSpace::TaskPayload
            | AddressSpace::RayPayload
            | AddressSpace::IncomingRayPayload
            | AddressSpace::HitAttribute
            | AddressSpace::CallableData
            | AddressSpace::IncomingCallableData
            | AddressSpace::ShaderRecord => Err(WgslError::new(
                RESOURCE,
                format!(
                    "a variable in `{}` memory; WGSL has no mesh or ray-tracing memory",
                    space.spelling()
                ),
            )),
            AddressSpace::Function
            | AddressSpace::Image
            | AddressSpace::Input
            | AddressSpace::Output => Err(malformed(format!(
                "a global in `{}` memory",
                space.spelling()
            ))),
        }
    }

    /// The WGSL type of texture or sampler global `g` (or of the elements of its binding
    /// array), of IR type `ty`: depth where compared, storage access from the entry point's.
    fn handle_type(
        &mut self,
        g: InstId,
        ty: InstId,
        access: oneshader_ir::effects::Access,
    ) -> R<String> {
        let m = self.m;
        let Some(d) = m.texture_desc(ty) else {
            return self.type_name(ty);
        };
        let depth = self.depth_textures.contains(&g);
        if depth && !matches!(m.op(d.sampled_type), Op::F32) {
            return Err(WgslError::new(
                TYPE,
                "a depth comparison on a texture whose texel is not a single f32",
            ));
        }
        let t = self.texture_type(ty, &d, depth)?;
        let acc = if m.has_decoration(g, Op::ReadOnly) || !access.writes() {
            "read"
        } else if m.has_decoration(g, Op::WriteOnly) || !access.reads() {
            "write"
        } else {
            "read_write"
        };
        Ok(t.replace("ACCESS", acc))
    }

    fn declare_io(&mut self, g: InstId, input: bool, pointee: InstId) -> R<()> {
        let m = self.m;
        let stage = self.entry.stage;
        let var = self
            .names
            .fresh(m.name(g), if input { "in" } else { "out" }, None);
        self.item_names.insert(g, var.clone());
        let var_type = self.type_name(pointee)?;
        let member = if input {
            self.io_names.0.fresh(m.name(g), "v", None)
        } else {
            self.io_names.1.fresh(m.name(g), "v", None)
        };
        if let Some(b) = m
            .find_decoration(g, Op::BuiltinDeco)
            .and_then(|d| m.imm_operand(d, 0))
            .and_then(BuiltIn::from_u32)
        {
            use BuiltIn as B;
            let ok = |stages: &[(Stage, bool)]| stages.contains(&(stage, input));
            let (wname, wty) = match b {
                B::Position if ok(&[(Stage::Vertex, false), (Stage::Fragment, true)]) => {
                    ("position", "vec4<f32>")
                }
                B::VertexIndex if ok(&[(Stage::Vertex, true)]) => ("vertex_index", "u32"),
                B::InstanceIndex if ok(&[(Stage::Vertex, true)]) => ("instance_index", "u32"),
                B::FrontFacing if ok(&[(Stage::Fragment, true)]) => ("front_facing", "bool"),
                B::ViewIndex if ok(&[(Stage::Vertex, true), (Stage::Fragment, true)]) => {
                    // wgpu's multiview feature.
                    self.capabilities.insert("MULTIVIEW");
                    ("view_index", "u32")
                }
                B::FragDepth if ok(&[(Stage::Fragment, false)]) => ("frag_depth", "f32"),
                B::SampleIndex if ok(&[(Stage::Fragment, true)]) => ("sample_index", "u32"),
                B::SampleMask if ok(&[(Stage::Fragment, true), (Stage::Fragment, false)]) => {
                    ("sample_mask", "u32")
                }
                B::GlobalInvocationId if ok(&[(Stage::Compute, true)]) => {
                    ("global_invocation_id", "vec3<u32>")
                }
                B::LocalInvocationId if ok(&[(Stage::Compute, true)]) => {
                    ("local_invocation_id", "vec3<u32>")
                }
                B::WorkgroupId if ok(&[(Stage::Compute, true)]) => ("workgroup_id", "vec3<u32>"),
                B::NumWorkgroups if ok(&[(Stage::Compute, true)]) => {
                    ("num_workgroups", "vec3<u32>")
                }
                B::LocalInvocationIndex if ok(&[(Stage::Compute, true)]) => {
                    ("local_invocation_index", "u32")
                }
                // WebGPU rasterizes points one pixel wide: a point size that is always 1.0
                // has nothing to say, and goes (with a warning); any other is refused.
                B::PointSize if ok(&[(Stage::Vertex, false)]) && stores_only_one(m, g) => {
                    writeln!(self.decls, "var<private> {var}: {var_type};").ok();
                    self.warnings.push(
                        Diagnostic::warning(
                            "OSB0213",
                            "the point size (PSIZE) is always 1.0, the only size WebGPU \
                             draws points at: WGSL has no point-size output, so it is left out",
                        )
                        .at_inst_or_use(m, g),
                    );
                    return Ok(());
                }
                B::PointSize if ok(&[(Stage::Vertex, false)]) => {
                    return Err(WgslError::new(
                        RESOURCE,
                        "a point size that is not always the constant 1.0 (WebGPU draws points \
                         one pixel wide and WGSL has no point-size output; a constant 1.0 is \
                         left out, once the optimizer has folded it: -O)",
                    ));
                }
                B::ClipDistance if ok(&[(Stage::Vertex, false)]) => {
                    let n = m.array_len(pointee).unwrap_or(0);
                    if m.op(pointee) != Op::Array || !(1..=8).contains(&n) {
                        return Err(WgslError::new(
                            TYPE,
                            "clip distances that are not an array of 1 to 8 floats",
                        ));
                    }
                    self.directives.insert("enable clip_distances;");
                    self.capabilities.insert("CLIP_DISTANCES");
                    ("clip_distances", "")
                }
                _ => {
                    return Err(WgslError::new(
                        RESOURCE,
                        format!(
                            "the `{}` built-in as a {} {}; WGSL (as naga validates it for \
                             WebGPU) has no such built-in there",
                            b.spelling(),
                            stage.spelling(),
                            if input { "input" } else { "output" }
                        ),
                    ));
                }
            };
            let wty = if wty.is_empty() {
                var_type.clone()
            } else {
                wty.to_string()
            };
            let wty = wty.as_str();
            let mut attrs = format!("@builtin({wname})");
            if !input && b == B::Position && m.has_decoration(g, Op::Invariant) {
                attrs.push_str(" @invariant");
            }
            // The private variable keeps the IR's type; the member has WGSL's.
            let convert = if var_type == wty {
                "{}".to_string()
            } else if m.op(pointee) == Op::Array && m.array_len(pointee) == Some(1) {
                let et = self.type_name(m.operand(pointee, 0))?;
                if input {
                    format!("{var_type}({et}({{}}))")
                } else {
                    format!("{wty}({{}}[0])")
                }
            } else if input {
                format!("{var_type}({{}})")
            } else {
                format!("{wty}({{}})")
            };
            let io = Io {
                var,
                member,
                attrs,
                io_type: wty.to_string(),
                var_type,
                convert,
            };
            if input {
                self.inputs.push(io);
            } else {
                self.outputs.push(io);
            }
            return Ok(());
        }
        let l = m
            .find_decoration(g, Op::Location)
            .and_then(|d| m.imm_operand(d, 0))
            .ok_or_else(|| {
                WgslError::new(
                    MALFORMED,
                    "a stage input or output without a location or built-in",
                )
            })?;
        // An array of scalars or vectors, a matrix or an array of matrices takes one location
        // per element or per column (HLSL row), as the SPIR-V backend assigns them in order:
        // one WGSL member each, the variable's element at that suffix.
        let scalar_or_vector = |t: InstId| m.op(t) == Op::Vector || m.op(t).is_scalar_type();
        let matrix_rows = |t: InstId| -> R<u32> {
            Ok(m.matrix_dims(t).ok_or_else(|| malformed("a bad matrix"))?.0)
        };
        let (elems, elem_type): (Option<Vec<String>>, String) = match m.op(pointee) {
            _ if scalar_or_vector(pointee) => (None, var_type.clone()),
            Op::Array if scalar_or_vector(m.operand(pointee, 0)) => {
                let n = m.array_len(pointee).unwrap_or(0);
                let suffixes = (0..n).map(|i| format!("[{i}]")).collect();
                (Some(suffixes), self.type_name(m.operand(pointee, 0))?)
            }
            Op::Matrix => {
                let rows = matrix_rows(pointee)?;
                let suffixes = (0..rows).map(|i| format!("[{i}]")).collect();
                (Some(suffixes), self.matrix_row_type(pointee)?)
            }
            Op::Array if m.op(m.operand(pointee, 0)) == Op::Matrix => {
                let mt = m.operand(pointee, 0);
                let (n, rows) = (m.array_len(pointee).unwrap_or(0), matrix_rows(mt)?);
                let suffixes = (0..n)
                    .flat_map(|a| (0..rows).map(move |i| format!("[{a}][{i}]")))
                    .collect();
                (Some(suffixes), self.matrix_row_type(mt)?)
            }
            _ => {
                return Err(WgslError::new(
                    TYPE,
                    format!(
                        "the stage {} at location {l} has type `{}`; WGSL stage inputs and \
                         outputs are scalars and vectors (arrays of them, matrices and arrays \
                         of matrices are flattened)",
                        if input { "input" } else { "output" },
                        oneshader_ir::print::print_inst(m, pointee)
                    ),
                ));
            }
        };
        let elem = if m.op(pointee) == Op::Array {
            m.operand(pointee, 0)
        } else {
            pointee
        };
        let scalar = m.scalar_of(elem).unwrap_or(elem);
        if m.op(scalar) == Op::Bool {
            return Err(WgslError::new(
                TYPE,
                "a `bool` stage input or output; WGSL interfaces hold no bools",
            ));
        }
        let mut interp = String::new();
        let interpolated =
            (input && stage == Stage::Fragment) || (!input && stage == Stage::Vertex);
        if interpolated {
            let int = m.scalar_kind(scalar) != Some(ScalarKind::Float);
            let centroid = m.has_decoration(g, Op::Centroid);
            let sample = m.has_decoration(g, Op::SampleDeco);
            let sampling = if sample {
                ", sample"
            } else if centroid {
                ", centroid"
            } else {
                ""
            };
            if int || m.has_decoration(g, Op::Flat) {
                interp.push_str(" @interpolate(flat)");
            } else if m.has_decoration(g, Op::NoPerspective) {
                interp.push_str(&format!(" @interpolate(linear{sampling})"));
            } else if !sampling.is_empty() {
                interp.push_str(&format!(" @interpolate(perspective{sampling})"));
            }
        }
        let ios: Vec<Io> = match elems {
            None => vec![Io {
                var,
                member,
                attrs: format!("@location({l}){interp}"),
                io_type: var_type.clone(),
                var_type,
                convert: "{}".into(),
            }],
            Some(suffixes) => {
                // The private variable is declared here; the members copy its elements.
                writeln!(self.decls, "var<private> {var}: {var_type};").ok();
                let names = if input {
                    &mut self.io_names.0
                } else {
                    &mut self.io_names.1
                };
                (0u32..)
                    .zip(suffixes)
                    .map(|(i, suffix)| Io {
                        var: format!("{var}{suffix}"),
                        member: names.fresh(Some(&format!("{member}_{i}")), "v", None),
                        attrs: format!("@location({}){interp}", l + i),
                        io_type: elem_type.clone(),
                        var_type: String::new(),
                        convert: "{}".into(),
                    })
                    .collect()
            }
        };
        if input {
            self.inputs.extend(ios);
        } else {
            self.outputs.extend(ios);
        }
        Ok(())
    }

    /// The WGSL vector type of an HLSL row of matrix type `mt` (a WGSL column).
    fn matrix_row_type(&mut self, mt: InstId) -> R<String> {
        let (_, cols) = self
            .m
            .matrix_dims(mt)
            .ok_or_else(|| malformed("a bad matrix"))?;
        let scalar = self.type_name(self.m.operand(mt, 0))?;
        Ok(format!("vec{cols}<{scalar}>"))
    }

    /// Checks that WGSL can state the layout of `ty` in a buffer under `rule` (recording the
    /// rule of every struct reached).
    fn check_buffer_type(
        &mut self,
        ty: InstId,
        rule: LayoutRule,
        space: AddressSpace,
        g: InstId,
    ) -> R<()> {
        let m = self.m;
        let tl = layout::type_layout(m, ty, rule, layout::is_row_major(m, g))
            .map_err(|e| WgslError::new(LAYOUT, format!("no buffer layout: {e}")))?;
        if column_major_matrix(m, ty, layout::is_row_major(m, g)) {
            return Err(column_major());
        }
        self.check_nested(ty, &tl, rule, space, "the buffer")
    }

    /// Checks that WGSL's layout of `ty`, an array of (row-major) matrices that is `what`, is
    /// `tl`.
    fn check_matrix_array(
        &self,
        ty: InstId,
        tl: &TypeLayout,
        space: AddressSpace,
        what: &str,
    ) -> R<()> {
        let m = self.m;
        let e = m.operand(ty, 0);
        let (a, s) = wgsl_align_size(m, e).ok_or_else(|| malformed("a bad matrix"))?;
        let (_, cols) = m.matrix_dims(e).ok_or_else(|| malformed("a bad matrix"))?;
        let want = if cols == 2 { 8 } else { 16 };
        if let Some(ms) = tl.matrix_stride
            && ms != want
        {
            return Err(WgslError::new(
                LAYOUT,
                format!(
                    "{what}: an array of matrices with a matrix stride of {ms}; WGSL's is {want}"
                ),
            ));
        }
        let stride = s.div_ceil(a) * a;
        if tl.array_stride != Some(stride) {
            return Err(WgslError::new(
                LAYOUT,
                format!(
                    "{what}: an array of matrices with stride {}; WGSL's stride for it is {stride}",
                    tl.array_stride.unwrap_or(0)
                ),
            ));
        }
        if space == AddressSpace::Uniform && !stride.is_multiple_of(16) {
            return Err(WgslError::new(
                LAYOUT,
                format!(
                    "{what}: an array of matrices in a constant buffer with stride {stride}; \
                     WGSL's uniform arrays need a stride that is a multiple of 16"
                ),
            ));
        }
        Ok(())
    }

    fn check_nested(
        &mut self,
        ty: InstId,
        tl: &TypeLayout,
        rule: LayoutRule,
        space: AddressSpace,
        what: &str,
    ) -> R<()> {
        let m = self.m;
        match m.op(ty) {
            Op::Struct => self.record_struct(ty, rule, space),
            Op::Array | Op::RuntimeArray => {
                let e = m.operand(ty, 0);
                let el = layout::type_layout(m, e, rule, false)
                    .map_err(|err| WgslError::new(LAYOUT, format!("no layout: {err}")))?;
                if m.op(e) == Op::Matrix {
                    return self.check_matrix_array(ty, tl, space, what);
                }
                self.check_nested(e, &el, rule, space, what)?;
                let (wa, ws) = self.wgsl_layout(e, space)?;
                let stride = ws.div_ceil(wa) * wa;
                if space == AddressSpace::Uniform && !stride.is_multiple_of(16) {
                    return Err(WgslError::new(
                        LAYOUT,
                        format!(
                            "{what}: an array `{}` in a constant buffer with WGSL stride {stride}; WGSL's uniform arrays need a stride that is a multiple of 16, and the layout's is {}",
                            oneshader_ir::print::print_inst(m, ty),
                            tl.array_stride.unwrap_or(0)
                        ),
                    ));
                }
                if Some(stride) != tl.array_stride {
                    return Err(WgslError::new(
                        LAYOUT,
                        format!(
                            "{what}: an array `{}` with stride {} under {}; WGSL's stride for \
                             it is {stride}",
                            oneshader_ir::print::print_inst(m, ty),
                            tl.array_stride.unwrap_or(0),
                            rule.name()
                        ),
                    ));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// WGSL's alignment and size of `ty` in host-shared memory (structs by their recorded
    /// layout).
    fn wgsl_layout(&mut self, ty: InstId, space: AddressSpace) -> R<(u32, u32)> {
        let m = self.m;
        match m.op(ty) {
            Op::Struct => {
                let rule = self
                    .struct_rules
                    .get(&ty)
                    .copied()
                    .ok_or_else(|| malformed("a struct without a recorded layout"))?;
                let sl = layout::struct_layout(m, ty, rule)
                    .map_err(|e| WgslError::new(LAYOUT, format!("no layout: {e}")))?;
                let attrs = self.struct_attrs(ty, &sl, space)?;
                Ok((attrs.align, attrs.size))
            }
            Op::Array => {
                let e = m.operand(ty, 0);
                let (a, s) = self.wgsl_layout(e, space)?;
                let stride = s.div_ceil(a) * a;
                let a = if space == AddressSpace::Uniform {
                    a.max(16)
                } else {
                    a
                };
                Ok((a, stride * m.array_len(ty).unwrap_or(0)))
            }
            Op::RuntimeArray => {
                let e = m.operand(ty, 0);
                let (a, _) = self.wgsl_layout(e, space)?;
                Ok((a, 0))
            }
            _ => wgsl_align_size(m, ty).ok_or_else(|| {
                WgslError::new(
                    TYPE,
                    format!(
                        "`{}` is not host-shareable in WGSL",
                        oneshader_ir::print::print_inst(m, ty)
                    ),
                )
            }),
        }
    }

    fn record_struct(&mut self, st: InstId, rule: LayoutRule, space: AddressSpace) -> R<()> {
        let m = self.m;
        let name = m.name(st).unwrap_or("?").to_string();
        if let Some(&r) = self.struct_rules.get(&st) {
            if r == rule {
                return Ok(());
            }
            // Where each field goes and, inside it, the strides of its arrays and matrices
            // (an array of structs whose size differs under the two rules, as `float a[1]`
            // inside a struct of a cbuffer and of a structured buffer).
            let placement = |rule| {
                layout::struct_layout(m, st, rule).ok().map(|l| {
                    l.fields
                        .iter()
                        .map(|f| (f.offset, f.layout.array_stride, f.layout.matrix_stride))
                        .collect::<Vec<_>>()
                })
            };
            if placement(r) != placement(rule) {
                return Err(WgslError::new(
                    LAYOUT,
                    format!(
                        "struct `{name}` is used in buffers under {} and under {}, which place \
                         its fields (or their elements) differently; a WGSL struct has one \
                         layout",
                        r.name(),
                        rule.name()
                    ),
                ));
            }
            return Ok(());
        }
        if m.struct_fields(st).is_empty() {
            return Err(WgslError::new(
                LAYOUT,
                format!(
                    "struct `{name}` has no fields and takes no bytes in the buffer; a WGSL \
                     struct has at least one member"
                ),
            ));
        }
        self.struct_rules.insert(st, rule);
        let sl = layout::struct_layout(m, st, rule)
            .map_err(|e| WgslError::new(LAYOUT, format!("struct `{name}`: {e}")))?;
        if let Some(first) = sl.fields.first()
            && first.offset > 0
            && first.offset.is_multiple_of(4)
        {
            self.lead_pads.insert(st, first.offset);
        }
        for (k, f) in sl.fields.iter().enumerate() {
            let fty = m.ty(f.field).ok_or_else(|| malformed("an untyped field"))?;
            if column_major_matrix(m, fty, f.row_major) {
                return Err(column_major());
            }
            if m.op(fty) == Op::Matrix
                && let Some(ms) = f.layout.matrix_stride
                && let Some((_, len)) = m.matrix_dims(fty)
            {
                let want = if len == 2 { 8 } else { 16 };
                if ms != want && ms.is_multiple_of(want) && f.offset.is_multiple_of(want) {
                    // Each stored row or column its own vector member, `ms` bytes apart.
                    self.split_mats.insert((st, k), ms);
                }
            }
            if m.op(fty) == Op::Vector
                && let Some((va, _)) = wgsl_align_size(m, fty)
                && !f.offset.is_multiple_of(va)
                && f.offset.is_multiple_of(4)
                && m.scalar_bits(m.operand(fty, 0)) == Some(32)
            {
                // DXC's relaxed placement: one scalar member per component says the same.
                self.split.insert((st, k));
            }
            let fname = m.name(f.field).unwrap_or("?");
            if matches!(m.op(fty), Op::Array | Op::RuntimeArray)
                && m.op(m.operand(fty, 0)) == Op::Matrix
            {
                let what = format!("member `{fname}` of struct `{name}`");
                self.check_matrix_array(fty, &f.layout, space, &what)?;
                continue;
            }
            if space == AddressSpace::Uniform
                && m.op(fty) == Op::Array
                && let Some(stride) = f.layout.array_stride
            {
                let e = m.operand(fty, 0);
                if let Some((ea, es)) = wgsl_align_size(m, e)
                    && m.op(e) != Op::Matrix
                    && es.div_ceil(ea) * ea != stride
                    && stride.is_multiple_of(16)
                    && stride >= es
                {
                    self.padded.insert((st, k), stride);
                    continue;
                }
            }
            self.check_nested(
                fty,
                &f.layout,
                rule,
                space,
                &format!("member `{fname}` of struct `{name}`"),
            )?;
        }
        // Validates the attributes now (errors name the member).
        self.struct_attrs(st, &sl, space)?;
        Ok(())
    }

    /// The `@align`/`@size` attributes that give struct `st` the layout `sl` in WGSL.
    fn struct_attrs(
        &mut self,
        st: InstId,
        sl: &StructLayout,
        space: AddressSpace,
    ) -> R<StructAttrs> {
        let m = self.m;
        let sname = m.name(st).unwrap_or("?").to_string();
        let mut out = StructAttrs {
            sizes: vec![None; sl.fields.len()],
            align: 1,
            size: 0,
        };
        // A leading padding member (a `u32` of `@size(offset)`) fills the bytes before the
        // first member.
        let mut cur = self.lead_pads.get(&st).copied().unwrap_or(0);
        if cur > 0 {
            out.align = 4;
        }
        let mut prev: Option<(usize, u32, u32)> = None; // (index, offset, natural size)
        for (k, f) in sl.fields.iter().enumerate() {
            let fty = m.ty(f.field).ok_or_else(|| malformed("an untyped field"))?;
            let fname = m.name(f.field).unwrap_or("?").to_string();
            let (mut a, s) = if self.split.contains(&(st, k)) {
                (4, 4 * m.vector_len(fty).unwrap_or(0))
            } else if let Some(&ms) = self.split_mats.get(&(st, k)) {
                let (n, len) = m
                    .matrix_dims(fty)
                    .ok_or_else(|| malformed("a bad matrix"))?;
                (if len == 2 { 8 } else { 16 }, ms * (n - 1) + 4 * len)
            } else if let Some(&stride) = self.padded.get(&(st, k)) {
                (16, stride * m.array_len(fty).unwrap_or(0))
            } else if matches!(m.op(fty), Op::Array | Op::RuntimeArray)
                && m.op(m.operand(fty, 0)) == Op::Matrix
            {
                let (a, s) = wgsl_align_size(m, m.operand(fty, 0))
                    .ok_or_else(|| malformed("a bad matrix"))?;
                (a, s.div_ceil(a) * a * m.array_len(fty).unwrap_or(0))
            } else if m.op(fty) == Op::Matrix {
                if f.layout.matrix_stride.is_some() {
                    wgsl_align_size(m, fty).ok_or_else(|| malformed("a bad matrix"))?
                } else {
                    (16, 64)
                }
            } else {
                self.wgsl_layout(fty, space)?
            };
            if space == AddressSpace::Uniform && matches!(m.op(fty), Op::Struct | Op::Array) {
                a = a.max(16);
            }
            if m.op(fty) == Op::Matrix
                && !self.split_mats.contains_key(&(st, k))
                && let Some(ms) = f.layout.matrix_stride
            {
                let (rows, cols) = m.matrix_dims(fty).unwrap_or((4, 4));
                let len = if f.row_major { cols } else { rows };
                let want = if len == 2 { 8 } else { 16 };
                if ms != want {
                    return Err(WgslError::new(
                        LAYOUT,
                        format!(
                            "member `{fname}` of struct `{sname}`: a matrix stride of {ms}; \
                             WGSL's is {want}"
                        ),
                    ));
                }
            }
            if !f.offset.is_multiple_of(a) {
                return Err(WgslError::new(
                    LAYOUT,
                    format!(
                        "member `{fname}` of struct `{sname}` sits at offset {} (DXC's relaxed \
                         placement); WGSL aligns a `{}` to {a} bytes",
                        f.offset,
                        oneshader_ir::print::print_inst(m, fty)
                    ),
                ));
            }
            let natural_at = cur.div_ceil(a) * a;
            if f.offset < natural_at {
                // Only a larger gap before can be stated (with @size on the member before).
                if f.offset < cur {
                    return Err(WgslError::new(
                        LAYOUT,
                        format!(
                            "member `{fname}` of struct `{sname}` at offset {} overlaps the \
                             member before it in WGSL's layout",
                            f.offset
                        ),
                    ));
                }
            }
            if f.offset > natural_at || (f.offset < natural_at && f.offset >= cur) {
                match prev {
                    Some((pk, po, ps)) => {
                        let size = f.offset - po;
                        if size < ps {
                            return Err(WgslError::new(
                                LAYOUT,
                                format!(
                                    "member `{fname}` of struct `{sname}`: no WGSL layout places it at offset {}",
                                    f.offset
                                ),
                            ));
                        }
                        out.sizes[pk] = Some(size);
                    }
                    None => {
                        return Err(WgslError::new(
                            LAYOUT,
                            format!(
                                "member `{fname}` of struct `{sname}` starts at offset {}, which \
                                 no leading padding member (a `u32`) reaches",
                                f.offset
                            ),
                        ));
                    }
                }
            }
            out.align = out.align.max(a);
            prev = Some((k, f.offset, s));
            cur = f.offset + s;
            if space == AddressSpace::Uniform && m.op(fty) == Op::Struct {
                // In uniform memory, what follows a struct member starts on a 16-byte boundary
                // after it.
                cur = cur.div_ceil(16) * 16;
            }
        }
        // The struct's size: match the layout module's (its stride in arrays).
        let natural = cur.div_ceil(out.align) * out.align;
        let want = sl.layout.size;
        let ends_in_rt = sl
            .fields
            .last()
            .and_then(|f| m.ty(f.field))
            .is_some_and(|t| m.op(t) == Op::RuntimeArray);
        if want != natural && !ends_in_rt {
            match prev {
                Some((pk, po, ps))
                    if want > natural && want.is_multiple_of(out.align) && want - po >= ps =>
                {
                    out.sizes[pk] = Some(want - po);
                }
                _ => {
                    return Err(WgslError::new(
                        LAYOUT,
                        format!(
                            "struct `{sname}` is {want} bytes in the buffer layout; WGSL's \
                             layout makes it {natural}"
                        ),
                    ));
                }
            }
            out.size = want;
        } else {
            out.size = natural;
        }
        Ok(out)
    }

    /// The wrapper struct of padded-array elements of type `et` (WGSL) and `stride`.
    fn wrapper(&mut self, et: &str, stride: u32) -> String {
        if let Some(n) = self.wrappers.get(&(et.to_string(), stride)) {
            return n.clone();
        }
        let hint: String = et
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let n = self
            .names
            .fresh(Some(&format!("Padded_{hint}_{stride}")), "Padded", None);
        self.wrappers.insert((et.to_string(), stride), n.clone());
        n
    }

    /// Every struct type reachable from `ty`, dependencies first.
    fn visit_structs(&self, ty: InstId, seen: &mut FxHashSet<InstId>, out: &mut Vec<InstId>) {
        let m = self.m;
        match m.try_op(ty) {
            Some(Op::Struct) => {
                if !seen.insert(ty) {
                    return;
                }
                for f in m.struct_fields(ty) {
                    if let Some(t) = m.ty(f) {
                        self.visit_structs(t, seen, out);
                    }
                }
                out.push(ty);
            }
            Some(Op::Array | Op::RuntimeArray | Op::Ptr) => {
                let inner = if m.op(ty) == Op::Ptr {
                    m.pointee(ty)
                } else {
                    Some(m.operand(ty, 0))
                };
                if let Some(i) = inner {
                    self.visit_structs(i, seen, out);
                }
            }
            _ => {}
        }
    }

    /// The whole module text.
    pub fn assemble(&mut self, entry_fn: &str, functions: &str) -> R<String> {
        let m = self.m;
        let named: Vec<InstId> = self.struct_names.keys().copied().collect();
        let mut seen = FxHashSet::default();
        let mut order = Vec::new();
        let mut roots = named;
        roots.sort_by_key(|s| self.struct_names[s].clone());
        for s in roots {
            self.visit_structs(s, &mut seen, &mut order);
        }
        let mut structs = String::new();
        for st in order {
            let name = self.struct_name(st);
            let fields = m.struct_fields(st);
            let attrs = match self.struct_rules.get(&st).copied() {
                Some(rule) => {
                    let sl = layout::struct_layout(m, st, rule)
                        .map_err(|e| WgslError::new(LAYOUT, format!("no layout: {e}")))?;
                    // The space only changes what is checked, which record_struct did.
                    Some(self.struct_attrs(st, &sl, AddressSpace::StorageBuffer)?)
                }
                None => None,
            };
            writeln!(structs, "struct {name} {{").ok();
            if let Some((size, pad)) = self.lead_pad(st) {
                writeln!(structs, "    @size({size}) {pad}: u32,").ok();
            }
            if fields.is_empty() {
                // WGSL structs need a member.
                writeln!(structs, "    _pad: u32,").ok();
            }
            for (k, &f) in fields.iter().enumerate() {
                let fname = self.field_name(st, k);
                let fty = m.ty(f).ok_or_else(|| malformed("an untyped field"))?;
                let loc = Loc::Field(st, k);
                let mut t = self.type_at(fty, Some(&loc))?;
                let mut align = "";
                if let Some(&stride) = self.padded.get(&(st, k)) {
                    let et = self.type_name(m.operand(fty, 0))?;
                    let w = self.wrapper(&et, stride);
                    t = format!("array<{w}, {}>", m.array_len(fty).unwrap_or(0));
                    // naga aligns the wrapper by its member: the array is placed explicitly.
                    align = "@align(16) ";
                }
                let size_attr = attrs
                    .as_ref()
                    .and_then(|a| a.sizes.get(k).copied().flatten());
                if let Some(&ms) = self.split_mats.get(&(st, k)) {
                    // One vector member per stored row or column, `ms` bytes apart; a gap
                    // after the matrix goes on the last.
                    let (_, len) = m
                        .matrix_dims(fty)
                        .ok_or_else(|| malformed("a bad matrix"))?;
                    let parts = self.split_names(st, k)?;
                    let n = parts.len() as u32;
                    for (c, pname) in parts.iter().enumerate() {
                        let size = if c + 1 < parts.len() {
                            format!("@size({ms}) ")
                        } else {
                            size_attr
                                .map(|s| format!("@size({}) ", s - ms * (n - 1)))
                                .unwrap_or_default()
                        };
                        writeln!(structs, "    {size}{pname}: vec{len}<f32>,").ok();
                    }
                    continue;
                }
                if self.split.contains(&(st, k)) {
                    // One scalar member per component; a gap after the vector goes on the last.
                    let et = self.type_name(m.operand(fty, 0))?;
                    let comps = self.split_names(st, k)?;
                    let n = comps.len() as u32;
                    for (c, cname) in comps.iter().enumerate() {
                        let size = match size_attr {
                            Some(s) if c + 1 == comps.len() => {
                                format!("@size({}) ", s - 4 * (n - 1))
                            }
                            _ => String::new(),
                        };
                        writeln!(structs, "    {size}{cname}: {et},").ok();
                    }
                    continue;
                }
                let size = size_attr
                    .map(|s| format!("@size({s}) "))
                    .unwrap_or_default();
                let size = format!("{align}{size}");
                writeln!(structs, "    {size}{fname}: {t},").ok();
            }
            writeln!(structs, "}}\n").ok();
        }
        let mut wrappers = String::new();
        for ((et, stride), name) in &self.wrappers {
            writeln!(
                wrappers,
                "struct {name} {{\n    @size({stride}) v: {et},\n}}\n"
            )
            .ok();
        }
        let structs = wrappers + &structs + &self.buffer_wrappers;
        let mut out = String::new();
        if !self.capabilities.is_empty() {
            let caps: Vec<&str> = self.capabilities.iter().copied().collect();
            writeln!(out, "// naga capabilities: {}\n", caps.join(" | ")).ok();
        }
        for d in &self.directives {
            writeln!(out, "{d}").ok();
        }
        if !self.directives.is_empty() {
            out.push('\n');
        }
        out.push_str(&structs);
        if !self.const_decls.is_empty() {
            out.push_str(&self.const_decls);
            out.push('\n');
        }
        if !self.decls.is_empty() {
            out.push_str(&self.decls);
            out.push('\n');
        }
        out.push_str(functions);
        out.push_str(entry_fn);
        Ok(out)
    }
}

/// The constructor arguments of a split field (see [`ModuleCx::split`]) whose vector value
/// is `e`: its `n` components.
pub(crate) fn split_args(e: &str, n: u32) -> String {
    let e = if e.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        e.to_string()
    } else {
        format!("({e})")
    };
    (0..n.min(4))
        .map(|c| format!("{e}.{}", ['x', 'y', 'z', 'w'][c as usize]))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The attributes of one struct's members.
#[derive(Clone, Debug)]
struct StructAttrs {
    /// `@size(n)` per member, where WGSL's own size is not the layout's.
    sizes: Vec<Option<u32>>,
    align: u32,
    size: u32,
}

/// A WGSL literal of the f16 with bits `bits` (behind `enable f16;`): the shortest decimal
/// that reads back as the same value (every f16 is exactly an f32, and the f32's shortest
/// decimal rounds back to it), suffixed `h`; NaNs, infinities and subnormals, which no f16
/// literal spells exactly, as half of a `bitcast` of a `u32`.
pub(crate) fn f16_literal(bits: u16) -> String {
    let v = oneshader_ir::float16::f16_to_f64(bits) as f32;
    let subnormal = bits & 0x7c00 == 0 && bits & 0x03ff != 0;
    if !v.is_finite() || subnormal {
        return format!("bitcast<vec2<f16>>({bits}u).x");
    }
    let s = format!("{v:?}");
    let s = if s.contains('.') || s.contains('e') {
        s
    } else {
        format!("{s}.0")
    };
    format!("{s}h")
}

/// A WGSL literal of the f32 with bits `bits`: the shortest decimal that reads back as the
/// same value, or a `bitcast` for NaNs, infinities and subnormals (which WGSL literals do not
/// spell, or naga flushes).
pub(crate) fn f32_literal(bits: u32) -> String {
    let v = f32::from_bits(bits);
    if !v.is_finite() || (v != 0.0 && !v.is_normal()) {
        return format!("bitcast<f32>({bits}u)");
    }
    let s = format!("{v:?}");
    let s = if s.contains('.') || s.contains('e') {
        s
    } else {
        format!("{s}.0")
    };
    format!("{s}f")
}

/// True when every use of output `g` is a load or a store of the `f32` constant 1.0 (and
/// there is at least one store): a point size that never says anything but WebGPU's.
fn stores_only_one(m: &oneshader_ir::Module, g: InstId) -> bool {
    let mut stored = false;
    for u in m.uses(g) {
        match m.op(u.user) {
            Op::Load => {}
            Op::Store if m.try_operand(u.user, 0) == Some(g) => {
                let v = m.try_operand(u.user, 1);
                let one = v.is_some_and(|v| {
                    m.op(v) == Op::ConstFloat
                        && m.ty(v).is_some_and(|t| m.op(t) == Op::F32)
                        && m.literal_bits(v) == Some(u64::from(1.0f32.to_bits()))
                });
                if !one {
                    return false;
                }
                stored = true;
            }
            _ => return false,
        }
    }
    stored
}

#[cfg(test)]
mod tests {
    use super::{f16_literal, f32_literal};

    #[test]
    fn float_literals_read_back_exactly() {
        assert_eq!(f32_literal(1.5f32.to_bits()), "1.5f");
        assert_eq!(f32_literal(0.1f32.to_bits()), "0.1f");
        assert_eq!(f32_literal((-0.0f32).to_bits()), "-0.0f");
        assert_eq!(
            f32_literal(f32::INFINITY.to_bits()),
            "bitcast<f32>(2139095040u)"
        );
        assert_eq!(f32_literal(1e-7f32.to_bits()), "1e-7f");
        assert_eq!(f32_literal(16777216.0f32.to_bits()), "16777216.0f");
    }

    #[test]
    fn half_literals_read_back_exactly() {
        assert_eq!(f16_literal(0x3c00), "1.0h");
        assert_eq!(f16_literal(0xc100), "-2.5h");
        assert_eq!(f16_literal(0x7bff), "65504.0h");
        assert_eq!(f16_literal(0x8000), "-0.0h");
        // 0x2e66 is 0.0999755859375 exactly; its f32's shortest decimal.
        assert_eq!(f16_literal(0x2e66), "0.099975586h");
        assert_eq!(f16_literal(0x0400), "6.1035156e-5h");
        // Infinity, NaN, a subnormal: the bits in the low half of a u32.
        assert_eq!(f16_literal(0x7c00), "bitcast<vec2<f16>>(31744u).x");
        assert_eq!(f16_literal(0x7e00), "bitcast<vec2<f16>>(32256u).x");
        assert_eq!(f16_literal(0x0001), "bitcast<vec2<f16>>(1u).x");
        // Every finite normal half reads back: the decimal rounds to the same half.
        for bits in 0u16..0x7c00 {
            if bits & 0x7c00 == 0 {
                continue;
            }
            let s = f16_literal(bits);
            let x: f64 = s.trim_end_matches('h').parse().expect("a decimal");
            assert_eq!(oneshader_ir::float16::f64_to_f16(x), bits, "{s}");
        }
    }
}
