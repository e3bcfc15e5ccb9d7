//! The module-level state of one emission: names of module-level items, struct and block
//! declarations, globals (buffers, resources, stage inputs and outputs, built-ins,
//! workgroup and private variables), spec constants, helper functions and extensions; and
//! the assembly of the final text.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use oneshader_ir::layout::{self, LayoutRule};
use oneshader_ir::{
    AddressSpace, BuiltIn, Dim, ImageFormat, InstId, Module, Op, Stage, TextureAccess,
};
use rustc_hash::{FxHashMap, FxHashSet};

use super::Options;
use super::error::{GlslError, LIMITS, MALFORMED, R, STAGE, TYPE, malformed};
use super::layout::{Member, Shape, block_layout};
use super::names::Namer;
use crate::text::names::Prenamed;
use crate::text::usage::Entry;

/// The one member of a struct without fields (GLSL has no empty structs): never read.
pub(crate) const EMPTY_FIELD: &str = "empty";

/// Names of the helper functions the backend may add (reserved before any other name).
pub(crate) const HELPERS: &[&str] = &[
    "os_srem",
    "os_frem",
    "os_isfinite",
    "os_idot",
    "os_sign",
    "os_f32tof16",
    "os_f16tof32",
    "os_all_equal",
];

/// The GLSL scalar kind of a built-in variable (its components), when it differs from the
/// IR's the loads and stores convert.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Int,
    Uint,
    Float,
    Bool,
}

/// A stage input or output that is a GLSL built-in.
#[derive(Clone, Debug)]
pub(crate) struct BuiltinVar {
    /// `gl_FragCoord`, `gl_SampleMask`...
    pub name: &'static str,
    /// The GLSL component kind.
    pub kind: Kind,
}

/// A per-vertex stage input or output whose GLSL form is not a variable of the IR's array
/// type: a built-in member of the `gl_in[]`/`gl_out[]` blocks (`gl_in[i].gl_Position`), or a
/// tessellation input GLSL declares unsized (`x[]`, gl_MaxPatchVertices long). Element `i`
/// is `{prefix}[i]{suffix}`; the whole array is built element by element.
#[derive(Clone, Debug)]
pub(crate) struct Arrayed {
    /// `gl_in`, `gl_out` or the variable's name.
    pub prefix: String,
    /// `.gl_Position`..., or empty.
    pub suffix: String,
    /// The IR array's length.
    pub len: u32,
}

/// How a buffer global is declared.
#[derive(Clone, Debug)]
pub(crate) struct BlockVar {
    /// The IR type is not a struct: the block has one member, `data`.
    pub wrapped: bool,
    /// An array of blocks (a descriptor array): indexing yields a block.
    pub descriptors: bool,
    /// For a block of a struct's fields: how each field is declared (member names, see
    /// [`super::layout::Shape`]).
    pub fields: Option<Vec<Shape<String>>>,
}

/// Everything module-level of one emission.
pub(crate) struct ModuleCx<'m> {
    pub m: &'m Module,
    pub opts: &'m Options,
    pub entry: Entry,
    /// Module-level names (and the reserved helper names).
    pub names: Namer,
    /// Module-scope names chosen before any body is printed ([`ModuleCx::prename`]).
    pub prenamed: Prenamed,
    /// Names of globals, functions and spec constants.
    pub item_names: FxHashMap<InstId, String>,
    /// Struct names and their field names.
    struct_names: FxHashMap<InstId, (String, Vec<String>)>,
    /// Structs declared as value types (in first-use order; sorted by dependency at the end).
    value_structs: Vec<InstId>,
    value_struct_set: FxHashSet<InstId>,
    pub builtins: FxHashMap<InstId, BuiltinVar>,
    pub blocks: FxHashMap<InstId, BlockVar>,
    /// Per-vertex inputs and outputs GLSL reaches element by element (see [`Arrayed`]).
    pub arrayed: FxHashMap<InstId, Arrayed>,
    /// Members of the built-in block arrays used (`gl_in`, `gl_out`, `gl_MeshVerticesEXT`),
    /// as declared in their redeclaration (`vec4 gl_Position;`), with the direction.
    per_vertex: Vec<(&'static str, &'static str, Vec<String>)>,
    /// Whether the module reads an input at a vertex (`attribute_at_vertex`): its `flat`
    /// fragment inputs are then `pervertexEXT` arrays of 3 (GL_EXT_fragment_shader_barycentric).
    reads_at_vertex: bool,
    /// Those `pervertexEXT` inputs: a plain read is element 0.
    pub pervertex_inputs: FxHashSet<InstId>,
    /// A `check_access_fully_mapped` was printed (`sparseTexelsResidentARB`).
    pub resident_checks: bool,
    /// Float literals spell their value exactly as a double (glslang folds the expression
    /// being printed; see [`super::literals`]).
    pub exact_floats: bool,
    exts: BTreeSet<&'static str>,
    /// Spec constant declarations, in first-use order.
    spec_decls: Vec<String>,
    /// Helper functions by name, in first-use order.
    helper_names: FxHashSet<String>,
    helpers: Vec<String>,
    /// Module-level constants (large composites), declaration text.
    const_decls: Vec<String>,
    const_names: FxHashMap<InstId, String>,
    /// Global declarations.
    pub global_decls: String,
    /// The payload globals (`ray_payload`, `incoming_ray_payload`) declared, in location
    /// order: `traceRayEXT` names a payload by its index here.
    pub payloads: Vec<InstId>,
    /// The callable-data globals (`callable_data`, `incoming_callable_data`) declared, in
    /// location order: `executeCallableEXT` names one by its index here.
    pub callables: Vec<InstId>,
    /// The `task_payload` global declared (GLSL has one per shader).
    pub task_payload: Option<InstId>,
    /// Clip and cull distances declared so far, outputs and inputs.
    distances: [u32; 2],
    /// The lines `#line` directives named ([`Options::line_directives`]).
    pub lines: Option<crate::text::lines::LineMarks<'m>>,
}

/// The GLSL spelling of a storage-image format.
fn format_name(f: ImageFormat) -> Option<&'static str> {
    use ImageFormat as F;
    Some(match f {
        F::Unknown => return None,
        F::Rgba32f => "rgba32f",
        F::Rgba16f => "rgba16f",
        F::R32f => "r32f",
        F::Rgba8 => "rgba8",
        F::Rgba8Snorm => "rgba8_snorm",
        F::Rg32f => "rg32f",
        F::Rg16f => "rg16f",
        F::R11fG11fB10f => "r11f_g11f_b10f",
        F::R16f => "r16f",
        F::Rgba16 => "rgba16",
        F::Rgb10A2 => "rgb10_a2",
        F::Rg16 => "rg16",
        F::Rg8 => "rg8",
        F::R16 => "r16",
        F::R8 => "r8",
        F::Rgba16Snorm => "rgba16_snorm",
        F::Rg16Snorm => "rg16_snorm",
        F::Rg8Snorm => "rg8_snorm",
        F::R16Snorm => "r16_snorm",
        F::R8Snorm => "r8_snorm",
        F::Rgba32i => "rgba32i",
        F::Rgba16i => "rgba16i",
        F::Rgba8i => "rgba8i",
        F::R32i => "r32i",
        F::Rg32i => "rg32i",
        F::Rg16i => "rg16i",
        F::Rg8i => "rg8i",
        F::R16i => "r16i",
        F::R8i => "r8i",
        F::Rgba32ui => "rgba32ui",
        F::Rgba16ui => "rgba16ui",
        F::Rgba8ui => "rgba8ui",
        F::R32ui => "r32ui",
        F::Rgb10a2ui => "rgb10_a2ui",
        F::Rg32ui => "rg32ui",
        F::Rg16ui => "rg16ui",
        F::Rg8ui => "rg8ui",
        F::R16ui => "r16ui",
        F::R8ui => "r8ui",
        F::R64ui => "r64ui",
        F::R64i => "r64i",
    })
}

/// The GLSL built-in variable of an IR built-in (`None`: none in this direction and stage),
/// and the extension it needs.
fn builtin_var(
    b: BuiltIn,
    input: bool,
    stage: Stage,
) -> Option<(BuiltinVar, Option<&'static str>)> {
    use Kind::*;
    let v = |name, kind| BuiltinVar { name, kind };
    let frag = stage == Stage::Fragment;
    // Geometry shaders have layers and viewports of their own; vertex and tessellation
    // evaluation shaders write them through an extension.
    let native_layer = frag || matches!(stage, Stage::Geometry | Stage::Mesh);
    Some(match b {
        BuiltIn::Position if input && frag => (v("gl_FragCoord", Float), None),
        BuiltIn::Position if !input || per_vertex_block(b, input, stage).is_some() => {
            (v("gl_Position", Float), None)
        }
        BuiltIn::VertexIndex => (v("gl_VertexIndex", Int), None),
        BuiltIn::InstanceIndex => (v("gl_InstanceIndex", Int), None),
        BuiltIn::FrontFacing => (v("gl_FrontFacing", Bool), None),
        BuiltIn::FragDepth => (v("gl_FragDepth", Float), None),
        BuiltIn::SampleIndex => (v("gl_SampleID", Int), None),
        BuiltIn::SampleMask if input => (v("gl_SampleMaskIn", Int), None),
        BuiltIn::SampleMask => (v("gl_SampleMask", Int), None),
        BuiltIn::GlobalInvocationId => (v("gl_GlobalInvocationID", Uint), None),
        BuiltIn::LocalInvocationId => (v("gl_LocalInvocationID", Uint), None),
        BuiltIn::WorkgroupId => (v("gl_WorkGroupID", Uint), None),
        BuiltIn::LocalInvocationIndex => (v("gl_LocalInvocationIndex", Uint), None),
        BuiltIn::NumWorkgroups => (v("gl_NumWorkGroups", Uint), None),
        BuiltIn::ClipDistance => (v("gl_ClipDistance", Float), None),
        BuiltIn::CullDistance => (v("gl_CullDistance", Float), None),
        BuiltIn::PrimitiveId if input && stage == Stage::Geometry => {
            (v("gl_PrimitiveIDIn", Int), None)
        }
        BuiltIn::PrimitiveId => (v("gl_PrimitiveID", Int), None),
        BuiltIn::InvocationId => (v("gl_InvocationID", Int), None),
        BuiltIn::PrimitivePointIndices => (v("gl_PrimitivePointIndicesEXT", Uint), None),
        BuiltIn::PrimitiveLineIndices => (v("gl_PrimitiveLineIndicesEXT", Uint), None),
        BuiltIn::PrimitiveTriangleIndices => (v("gl_PrimitiveTriangleIndicesEXT", Uint), None),
        BuiltIn::CullPrimitive => (v("gl_CullPrimitiveEXT", Bool), None),
        BuiltIn::LaunchId => (v("gl_LaunchIDEXT", Uint), None),
        BuiltIn::LaunchSize => (v("gl_LaunchSizeEXT", Uint), None),
        BuiltIn::WorldRayOrigin => (v("gl_WorldRayOriginEXT", Float), None),
        BuiltIn::WorldRayDirection => (v("gl_WorldRayDirectionEXT", Float), None),
        BuiltIn::ObjectRayOrigin => (v("gl_ObjectRayOriginEXT", Float), None),
        BuiltIn::ObjectRayDirection => (v("gl_ObjectRayDirectionEXT", Float), None),
        BuiltIn::RayTmin => (v("gl_RayTminEXT", Float), None),
        BuiltIn::RayTmax => (v("gl_RayTmaxEXT", Float), None),
        BuiltIn::InstanceCustomIndex => (v("gl_InstanceCustomIndexEXT", Int), None),
        BuiltIn::InstanceId => (v("gl_InstanceID", Int), None),
        BuiltIn::GeometryIndex => (v("gl_GeometryIndexEXT", Int), None),
        BuiltIn::HitKind => (v("gl_HitKindEXT", Uint), None),
        BuiltIn::IncomingRayFlags => (v("gl_IncomingRayFlagsEXT", Uint), None),
        BuiltIn::ObjectToWorld => (v("gl_ObjectToWorldEXT", Float), None),
        BuiltIn::WorldToObject => (v("gl_WorldToObjectEXT", Float), None),
        BuiltIn::TessLevelOuter => (v("gl_TessLevelOuter", Float), None),
        BuiltIn::TessLevelInner => (v("gl_TessLevelInner", Float), None),
        BuiltIn::TessCoord => (v("gl_TessCoord", Float), None),
        BuiltIn::PatchVertices => (v("gl_PatchVerticesIn", Int), None),
        BuiltIn::Layer if native_layer => (v("gl_Layer", Int), None),
        BuiltIn::Layer => (
            v("gl_Layer", Int),
            Some("GL_ARB_shader_viewport_layer_array"),
        ),
        BuiltIn::ViewportIndex if native_layer => (v("gl_ViewportIndex", Int), None),
        BuiltIn::ViewportIndex => (
            v("gl_ViewportIndex", Int),
            Some("GL_ARB_shader_viewport_layer_array"),
        ),
        BuiltIn::BaseVertex => (
            v("gl_BaseVertexARB", Int),
            Some("GL_ARB_shader_draw_parameters"),
        ),
        BuiltIn::BaseInstance => (
            v("gl_BaseInstanceARB", Int),
            Some("GL_ARB_shader_draw_parameters"),
        ),
        BuiltIn::DrawIndex => (
            v("gl_DrawIDARB", Int),
            Some("GL_ARB_shader_draw_parameters"),
        ),
        BuiltIn::ViewIndex => (v("gl_ViewIndex", Int), Some("GL_EXT_multiview")),
        BuiltIn::DeviceIndex if input => (v("gl_DeviceIndex", Int), Some("GL_EXT_device_group")),
        BuiltIn::Barycentric => (
            v("gl_BaryCoordEXT", Float),
            Some("GL_EXT_fragment_shader_barycentric"),
        ),
        BuiltIn::ShadingRate => (
            v("gl_ShadingRateEXT", Int),
            Some("GL_EXT_fragment_shading_rate"),
        ),
        BuiltIn::PrimitiveShadingRate if !input => (
            v("gl_PrimitiveShadingRateEXT", Int),
            Some("GL_EXT_fragment_shading_rate"),
        ),
        BuiltIn::FragStencilRef => (
            v("gl_FragStencilRefARB", Int),
            Some("GL_ARB_shader_stencil_export"),
        ),
        BuiltIn::FullyCovered => (
            v("gl_FragFullyCoveredNV", Bool),
            Some("GL_NV_conservative_raster_underestimation"),
        ),
        BuiltIn::PointSize => (v("gl_PointSize", Float), None),
        BuiltIn::HelperInvocation => (v("gl_HelperInvocation", Bool), None),
        _ => return None,
    })
}

/// The block array a built-in is a member of when it is per vertex or per primitive (`gl_in`
/// for the inputs of geometry and tessellation shaders, `gl_out` for the hull shader's
/// outputs, `gl_MeshVerticesEXT` and `gl_MeshPrimitivesEXT` for a mesh shader's), else
/// `None`.
fn per_vertex_block(b: BuiltIn, input: bool, stage: Stage) -> Option<&'static str> {
    let vertex = matches!(
        b,
        BuiltIn::Position | BuiltIn::PointSize | BuiltIn::ClipDistance | BuiltIn::CullDistance
    );
    let primitive = matches!(
        b,
        BuiltIn::PrimitiveId
            | BuiltIn::Layer
            | BuiltIn::ViewportIndex
            | BuiltIn::CullPrimitive
            | BuiltIn::PrimitiveShadingRate
    );
    match stage {
        Stage::Geometry | Stage::Hull | Stage::Domain if input && vertex => Some("gl_in"),
        Stage::Hull if vertex => Some("gl_out"),
        Stage::Mesh if !input && vertex => Some("gl_MeshVerticesEXT"),
        Stage::Mesh if !input && primitive => Some("gl_MeshPrimitivesEXT"),
        _ => None,
    }
}

/// The interface block name of a per-vertex block array, when the backend redeclares it
/// (with the members used, for the sizes of the distance arrays); `None`: used as built in.
fn block_interface(array: &str) -> Option<&'static str> {
    match array {
        "gl_in" | "gl_out" => Some("gl_PerVertex"),
        "gl_MeshVerticesEXT" => Some("gl_MeshPerVertexEXT"),
        _ => None,
    }
}

/// The kind of a scalar type.
pub(crate) fn kind_of_scalar(m: &Module, s: InstId) -> Option<Kind> {
    let op = m.op(s);
    Some(if op == Op::Bool {
        Kind::Bool
    } else if op.is_signed_int_type() {
        Kind::Int
    } else if op.is_int_type() {
        Kind::Uint
    } else if op.is_float_type() {
        Kind::Float
    } else {
        return None;
    })
}

/// True when `ty` contains a `bool`.
fn has_bool(m: &Module, ty: InstId) -> bool {
    match m.try_op(ty) {
        Some(Op::Bool) => true,
        Some(Op::Vector | Op::Array | Op::RuntimeArray) => has_bool(m, m.operand(ty, 0)),
        Some(Op::Struct) => m
            .struct_fields(ty)
            .iter()
            .any(|&f| m.ty(f).is_some_and(|t| has_bool(m, t))),
        _ => false,
    }
}

/// True when `ty` is or holds a struct.
fn contains_struct(m: &Module, ty: InstId) -> bool {
    match m.try_op(ty) {
        Some(Op::Array | Op::RuntimeArray) => contains_struct(m, m.operand(ty, 0)),
        Some(Op::Struct) => true,
        _ => false,
    }
}

/// The widths of scalars smaller than 32 bits inside `ty`: (8-bit, 16-bit).
fn small_scalars(m: &Module, ty: InstId) -> (bool, bool) {
    match m.try_op(ty) {
        Some(op) if op.is_scalar_type() => match m.scalar_bits(ty) {
            Some(8) => (true, false),
            Some(16) => (false, true),
            _ => (false, false),
        },
        Some(Op::Vector | Op::Matrix | Op::Array | Op::RuntimeArray) => {
            small_scalars(m, m.operand(ty, 0))
        }
        Some(Op::Struct) => m.struct_fields(ty).iter().fold((false, false), |acc, &f| {
            let (a, b) = m
                .ty(f)
                .map(|t| small_scalars(m, t))
                .unwrap_or((false, false));
            (acc.0 || a, acc.1 || b)
        }),
        _ => (false, false),
    }
}

impl<'m> ModuleCx<'m> {
    /// A fresh context for emitting `entry` of `m`.
    pub fn new(m: &'m Module, opts: &'m Options, entry: Entry) -> ModuleCx<'m> {
        let mut names = super::names::namer();
        names.reserve("main");
        for h in HELPERS {
            names.reserve(h);
        }
        ModuleCx {
            m,
            opts,
            entry,
            names,
            prenamed: Prenamed::default(),
            item_names: FxHashMap::default(),
            struct_names: FxHashMap::default(),
            value_structs: Vec::new(),
            value_struct_set: FxHashSet::default(),
            builtins: FxHashMap::default(),
            blocks: FxHashMap::default(),
            arrayed: FxHashMap::default(),
            per_vertex: Vec::new(),
            reads_at_vertex: crate::attribute::module_reads_at_vertex(m),
            pervertex_inputs: FxHashSet::default(),
            exact_floats: false,
            resident_checks: false,
            exts: BTreeSet::new(),
            spec_decls: Vec::new(),
            helper_names: FxHashSet::default(),
            helpers: Vec::new(),
            const_decls: Vec::new(),
            const_names: FxHashMap::default(),
            global_decls: String::new(),
            task_payload: None,
            payloads: Vec::new(),
            callables: Vec::new(),
            distances: [0, 0],
            lines: opts
                .line_directives
                .as_ref()
                .map(crate::text::lines::LineMarks::new),
        }
    }

    /// Requires an extension.
    pub fn ext(&mut self, e: &'static str) {
        self.exts.insert(e);
    }

    /// Adds a helper function `name` (its text made by `code`) unless it exists.
    pub fn helper(&mut self, name: &str, code: impl FnOnce() -> String) {
        if self.helper_names.insert(name.to_string()) {
            self.helpers.push(code());
        }
    }

    /// The layout rule of buffers in `space`.
    pub fn rule_of(&self, space: AddressSpace) -> Option<LayoutRule> {
        match space {
            AddressSpace::Uniform => Some(self.opts.cbuffer_rule),
            AddressSpace::StorageBuffer => Some(self.opts.storage_rule),
            AddressSpace::PushConstant => Some(self.opts.push_constant_rule),
            // As the SPIR-V backend lays shader records out.
            AddressSpace::ShaderRecord => Some(self.opts.storage_rule),
            _ => None,
        }
    }

    /// The name of a struct type, declared as a value type (`struct S { ... };`).
    pub fn struct_name(&mut self, ty: InstId) -> R<String> {
        let name = self.struct_names_of(ty).0;
        if self.value_struct_set.insert(ty) {
            let m = self.m;
            for f in m.struct_fields(ty) {
                let ft = m.ty(f).ok_or_else(|| malformed("an untyped field"))?;
                if m.op(ft) == Op::RuntimeArray {
                    return Err(GlslError::new(
                        TYPE,
                        format!(
                            "struct `{name}` ends in a runtime array, which exists only as a \
                             storage buffer's contents (it cannot be a value)"
                        ),
                    ));
                }
                // Field types first (declared before the struct).
                self.type_parts(ft)?;
            }
            self.value_structs.push(ty);
        }
        Ok(name)
    }

    /// A struct's name and field names, chosen on first request (without declaring it).
    pub fn struct_names_of(&mut self, ty: InstId) -> (String, Vec<String>) {
        if let Some(n) = self.struct_names.get(&ty) {
            return n.clone();
        }
        let m = self.m;
        let name = self.prenamed.take(&mut self.names, ty, 0, m.name(ty), "S");
        let mut fields = super::names::namer();
        let list: Vec<String> = m
            .struct_fields(ty)
            .iter()
            .enumerate()
            .map(|(i, &f)| fields.fresh(m.name(f), &format!("field{i}"), None))
            .collect();
        self.struct_names.insert(ty, (name.clone(), list.clone()));
        (name, list)
    }

    /// The GLSL name of field `i` of struct `ty`.
    pub fn field_name(&mut self, ty: InstId, i: usize) -> String {
        self.struct_names_of(ty)
            .1
            .get(i)
            .cloned()
            .unwrap_or_else(|| format!("field{i}"))
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
                Op::SpecConst => format!("spec{}", m.imm_operand(c, 0).unwrap_or(0)),
                Op::Composite | Op::Zero | Op::Undef
                    if m.ty(c)
                        .is_some_and(|t| matches!(m.op(t), Op::Array | Op::Struct)) =>
                {
                    "table".to_string()
                }
                _ => continue,
            };
            if !self.const_names.contains_key(&c) && !self.item_names.contains_key(&c) {
                self.prenamed
                    .choose(&mut self.names, c, 0, m.name(c), &fallback);
            }
        }
    }

    /// The name of a spec constant, declared on first use.
    pub fn spec_const_name(&mut self, c: InstId) -> R<String> {
        if let Some(n) = self.item_names.get(&c) {
            return Ok(n.clone());
        }
        let m = self.m;
        let ty = m
            .ty(c)
            .ok_or_else(|| malformed("an untyped spec constant"))?;
        let id = m.imm_operand(c, 0).unwrap_or(0);
        let default = self.scalar_literal(ty, m.literal_bits(m.operand(c, 1)).unwrap_or(0))?;
        let name = self
            .prenamed
            .take(&mut self.names, c, 0, m.name(c), &format!("spec{id}"));
        let tn = self.type_name(ty)?;
        self.spec_decls.push(format!(
            "layout(constant_id = {id}) const {tn} {name} = {};",
            default.text
        ));
        self.item_names.insert(c, name.clone());
        Ok(name)
    }

    /// A module-level `const` holding the composite constant `c`, declared on first use.
    pub fn const_name(&mut self, c: InstId) -> R<String> {
        if let Some(n) = self.const_names.get(&c) {
            return Ok(n.clone());
        }
        let m = self.m;
        let ty = m.ty(c).ok_or_else(|| malformed("an untyped constant"))?;
        // glslang folds constant indexing of a `const` and what uses it, in double.
        let saved = std::mem::replace(&mut self.exact_floats, true);
        let value = self.constant(c);
        self.exact_floats = saved;
        let value = value?;
        let name = self
            .prenamed
            .take(&mut self.names, c, 0, m.name(c), "table");
        let d = self.decl(ty, &name)?;
        self.const_decls
            .push(format!("const {d} = {};", value.text));
        self.const_names.insert(c, name.clone());
        Ok(name)
    }

    /// Declares every global in `used` (names first, so functions can refer to them).
    pub fn declare_globals(&mut self, used: &FxHashSet<InstId>) -> Vec<GlslError> {
        let m = self.m;
        let globals = m
            .globals()
            .into_iter()
            .filter(|g| used.contains(&g.id()))
            .map(|g| (g.id(), ()));
        crate::text::driver::declare_each(m, globals, |g, ()| self.declare_global(g))
    }

    fn declare_global(&mut self, g: InstId) -> R<()> {
        let m = self.m;
        let ty = m.ty(g).ok_or_else(|| malformed("a global has no type"))?;
        let space = m
            .address_space(ty)
            .ok_or_else(|| malformed("a global's type is not a pointer"))?;
        let pointee = m
            .pointee(ty)
            .ok_or_else(|| malformed("a global's type is not a pointer"))?;
        let input = space == AddressSpace::Input;
        if matches!(space, AddressSpace::Input | AddressSpace::Output)
            && let Some(b) = m
                .find_decoration(g, Op::BuiltinDeco)
                .and_then(|d| m.imm_operand(d, 0))
                .and_then(BuiltIn::from_u32)
        {
            return self.declare_builtin(g, b, input, pointee);
        }
        let name = self.names.fresh(m.name(g), "g", None);
        self.item_names.insert(g, name.clone());
        match space {
            AddressSpace::Uniform
            | AddressSpace::StorageBuffer
            | AddressSpace::PushConstant
            | AddressSpace::ShaderRecord => self.declare_block(g, &name, space, pointee),
            AddressSpace::UniformConstant => self.declare_resource(g, &name, pointee),
            AddressSpace::Input | AddressSpace::Output => self.declare_io(g, &name, input, pointee),
            AddressSpace::Workgroup => {
                if m.try_operand(g, 0).is_some() {
                    return Err(GlslError::new(
                        TYPE,
                        "a workgroup variable with an initializer; GLSL `shared` variables \
                         cannot be initialized",
                    ));
                }
                let d = self.decl(pointee, &name)?;
                writeln!(self.global_decls, "shared {d};").ok();
                Ok(())
            }
            AddressSpace::Private => {
                let d = self.decl(pointee, &name)?;
                match m.try_operand(g, 0) {
                    Some(init) => {
                        let v = self.constant(init)?;
                        writeln!(self.global_decls, "{d} = {};", v.text).ok();
                    }
                    None => {
                        writeln!(self.global_decls, "{d};").ok();
                    }
                }
                Ok(())
            }
            AddressSpace::Function | AddressSpace::Image => Err(malformed(format!(
                "a global in `{}` memory",
                space.spelling()
            ))),
            AddressSpace::TaskPayload => {
                // One per shader: `EmitMeshTasksEXT` passes the one declared.
                if self.task_payload.replace(g).is_some() {
                    return Err(GlslError::new(
                        STAGE,
                        "two `task_payload` globals; GLSL declares one `taskPayloadSharedEXT` \
                         variable per shader",
                    ));
                }
                self.ext("GL_EXT_mesh_shader");
                let d = self.decl(pointee, &name)?;
                writeln!(self.global_decls, "taskPayloadSharedEXT {d};").ok();
                Ok(())
            }
            AddressSpace::RayPayload
            | AddressSpace::IncomingRayPayload
            | AddressSpace::CallableData
            | AddressSpace::IncomingCallableData => {
                // `traceRayEXT`/`executeCallableEXT` name payloads and callable data by
                // location: numbered in declaration order (incoming ones too, which a shader
                // may pass on).
                let (kw, list) = match space {
                    AddressSpace::RayPayload => ("rayPayloadEXT", &mut self.payloads),
                    AddressSpace::IncomingRayPayload => ("rayPayloadInEXT", &mut self.payloads),
                    AddressSpace::CallableData => ("callableDataEXT", &mut self.callables),
                    _ => ("callableDataInEXT", &mut self.callables),
                };
                let loc = list.len();
                list.push(g);
                let d = self.decl(pointee, &name)?;
                writeln!(self.global_decls, "layout(location = {loc}) {kw} {d};").ok();
                Ok(())
            }
            AddressSpace::HitAttribute => {
                let d = self.decl(pointee, &name)?;
                writeln!(self.global_decls, "hitAttributeEXT {d};").ok();
                Ok(())
            }
        }
    }

    fn declare_builtin(&mut self, g: InstId, b: BuiltIn, input: bool, pointee: InstId) -> R<()> {
        let m = self.m;
        let stage = self.entry.stage;
        let (var, ext) = builtin_var(b, input, stage).ok_or_else(|| {
            GlslError::new(
                STAGE,
                format!(
                    "the `{}` built-in has no GLSL variable as a {} {}",
                    b.spelling(),
                    stage.spelling(),
                    if input { "input" } else { "output" }
                ),
            )
        })?;
        if let Some(e) = ext {
            self.ext(e);
        }
        if !input
            && let Some(d) = m.find_decoration(g, Op::StreamDeco)
            && m.imm_operand(d, 0).unwrap_or(0) != 0
        {
            return Err(GlslError::new(
                STAGE,
                format!(
                    "the `{}` built-in is written to vertex stream {}; GLSL declares built-in \
                     outputs in stream 0 only",
                    b.spelling(),
                    m.imm_operand(d, 0).unwrap_or(0)
                ),
            ));
        }
        // A per-vertex built-in: the IR's array of vertices around the GLSL member's type.
        let block = per_vertex_block(b, input, stage);
        let (elem, vertices) = match block {
            Some(_) => match (m.try_op(pointee), m.array_len(pointee)) {
                (Some(Op::Array), Some(n)) => (m.operand(pointee, 0), n),
                _ => {
                    return Err(malformed(format!(
                        "the per-vertex `{}` built-in is not an array of vertices",
                        b.spelling()
                    )));
                }
            },
            None => (pointee, 0),
        };
        let distances = matches!(b, BuiltIn::ClipDistance | BuiltIn::CullDistance);
        if distances {
            let n = m.array_len(elem).unwrap_or(1);
            let counted = &mut self.distances[usize::from(input)];
            let total = *counted + n;
            if n > 8 || total > 8 {
                return Err(GlslError::new(
                    LIMITS,
                    format!(
                        "{} clip and cull distances; glslang allows at most 8 (its \
                         gl_MaxCombinedClipAndCullDistances)",
                        total
                    ),
                ));
            }
            *counted = total;
        }
        if let Some(block) = block {
            // A member of `gl_in[]`/`gl_out[]`, which is redeclared with the members used
            // (and the distances' sizes).
            let member = if distances {
                let n = m.array_len(elem).unwrap_or(1);
                format!("float {}[{n}];", var.name)
            } else {
                let d = self.decl(elem, var.name)?;
                format!("{d};")
            };
            let dir = if input { "in" } else { "out" };
            let i = match self.per_vertex.iter().position(|(a, _, _)| *a == block) {
                Some(i) => i,
                None => {
                    self.per_vertex.push((block, dir, Vec::new()));
                    self.per_vertex.len() - 1
                }
            };
            let list = &mut self.per_vertex[i].2;
            if !list.contains(&member) {
                list.push(member);
            }
            self.arrayed.insert(
                g,
                Arrayed {
                    prefix: block.to_string(),
                    suffix: format!(".{}", var.name),
                    len: vertices,
                },
            );
            self.item_names.insert(g, var.name.to_string());
            self.builtins.insert(g, var);
            return Ok(());
        }
        // Sized arrays are redeclared with the IR's size; `invariant` on outputs.
        if distances && let Some(n) = m.array_len(pointee) {
            writeln!(
                self.global_decls,
                "{} float {}[{n}];",
                if input { "in" } else { "out" },
                var.name
            )
            .ok();
        }
        if !input && m.has_decoration(g, Op::Invariant) {
            writeln!(self.global_decls, "invariant {};", var.name).ok();
        }
        self.item_names.insert(g, var.name.to_string());
        self.builtins.insert(g, var);
        Ok(())
    }

    fn declare_io(&mut self, g: InstId, name: &str, input: bool, pointee: InstId) -> R<()> {
        let m = self.m;
        let stage = self.entry.stage;
        let mut q: Vec<String> = Vec::new();
        if let Some(l) = m
            .find_decoration(g, Op::Location)
            .and_then(|d| m.imm_operand(d, 0))
        {
            let frag_out = !input && stage == Stage::Fragment;
            let limit = if frag_out { 32 } else { 4095 };
            if l >= limit {
                return Err(GlslError::new(
                    LIMITS,
                    format!(
                        "location {l}; glslang accepts {} locations below {limit}",
                        if frag_out {
                            "fragment outputs at"
                        } else {
                            "only"
                        }
                    ),
                ));
            }
            q.push(format!("location = {l}"));
        } else {
            return Err(GlslError::new(
                MALFORMED,
                "a stage input or output without a location or built-in",
            ));
        }
        if !input && let Some(d) = m.find_decoration(g, Op::StreamDeco) {
            q.push(format!("stream = {}", m.imm_operand(d, 0).unwrap_or(0)));
        }
        let patch = m.has_decoration(g, Op::Patch);
        let mut quals = String::new();
        if patch {
            quals.push_str("patch ");
        }
        if m.has_decoration(g, Op::PerPrimitive) {
            self.ext("GL_EXT_mesh_shader");
            quals.push_str("perprimitiveEXT ");
        }
        if !input && m.has_decoration(g, Op::Invariant) {
            quals.push_str("invariant ");
        }
        // Interpolation qualifiers on fragment inputs and on the outputs of the stage before
        // the rasterizer (GLSL allows them there; Vulkan takes the fragment shader's).
        let interp_allowed = (input && stage == Stage::Fragment)
            || (!input
                && matches!(
                    stage,
                    Stage::Vertex | Stage::Geometry | Stage::Domain | Stage::Mesh
                ));
        let mut flat = m.has_decoration(g, Op::Flat);
        // Integer and double fragment inputs are flat (HLSL makes them so, as the SPIR-V
        // backend does).
        let mut t = pointee;
        while m.op(t) == Op::Array {
            t = m.operand(t, 0);
        }
        let needs_flat = m
            .scalar_of(t)
            .is_some_and(|s| m.op(s).is_int_type() || m.op(s) == Op::F64 || m.op(s) == Op::Bool);
        if input && stage == Stage::Fragment && needs_flat {
            flat = true;
        }
        let pervertex = input
            && stage == Stage::Fragment
            && self.reads_at_vertex
            && m.has_decoration(g, Op::Flat);
        if pervertex {
            // Not interpolated at all: no interpolation qualifier.
            self.ext("GL_EXT_fragment_shader_barycentric");
            self.pervertex_inputs.insert(g);
            quals.push_str("pervertexEXT ");
        } else if interp_allowed {
            if flat {
                quals.push_str("flat ");
            } else if m.has_decoration(g, Op::NoPerspective) {
                quals.push_str("noperspective ");
            }
            if m.has_decoration(g, Op::Centroid) {
                quals.push_str("centroid ");
            }
            if m.has_decoration(g, Op::SampleDeco) {
                quals.push_str("sample ");
            }
        }
        let (b8, b16) = small_scalars(m, pointee);
        if b16 {
            self.ext("GL_EXT_shader_16bit_storage");
        }
        if b8 {
            return Err(GlslError::new(
                TYPE,
                "an 8-bit stage input or output (Vulkan has no 8-bit interface variables)",
            ));
        }
        if has_bool(m, pointee) {
            return Err(GlslError::new(
                TYPE,
                "a `bool` stage input or output; GLSL (and Vulkan) interfaces hold no bools",
            ));
        }
        if input && stage == Stage::Vertex && contains_struct(m, pointee) {
            return Err(GlslError::new(
                TYPE,
                "a vertex input of struct type; GLSL vertex inputs cannot be structs",
            ));
        }
        // Per-vertex inputs of tessellation shaders are unsized in GLSL (glslang sizes them
        // gl_MaxPatchVertices and accepts no other size): element by element.
        let open_ended = input && !patch && matches!(stage, Stage::Hull | Stage::Domain);
        let d = if open_ended {
            let (Some(Op::Array), Some(len)) = (m.try_op(pointee), m.array_len(pointee)) else {
                return Err(malformed(
                    "a per-vertex tessellation input that is not an array of vertices",
                ));
            };
            self.arrayed.insert(
                g,
                Arrayed {
                    prefix: name.to_string(),
                    suffix: String::new(),
                    len,
                },
            );
            self.decl(m.operand(pointee, 0), &format!("{name}[]"))?
        } else if pervertex {
            self.decl(pointee, &format!("{name}[3]"))?
        } else {
            self.decl(pointee, name)?
        };
        writeln!(
            self.global_decls,
            "layout({}) {quals}{} {d};",
            q.join(", "),
            if input { "in" } else { "out" }
        )
        .ok();
        Ok(())
    }

    fn binding_qualifiers(&self, g: InstId) -> Vec<String> {
        let m = self.m;
        match m.find_decoration(g, Op::Binding) {
            Some(d) => vec![
                format!("set = {}", m.imm_operand(d, 0).unwrap_or(0)),
                format!("binding = {}", m.imm_operand(d, 1).unwrap_or(0)),
            ],
            None => Vec::new(),
        }
    }

    fn memory_qualifiers(&self, g: InstId) -> String {
        let m = self.m;
        let mut s = String::new();
        if m.has_decoration(g, Op::Coherent) {
            s.push_str("coherent ");
        }
        if m.has_decoration(g, Op::ReadOnly) {
            s.push_str("readonly ");
        }
        if m.has_decoration(g, Op::WriteOnly) {
            s.push_str("writeonly ");
        }
        s
    }

    fn declare_resource(&mut self, g: InstId, name: &str, pointee: InstId) -> R<()> {
        let m = self.m;
        let mut q = self.binding_qualifiers(g);
        let mut elem = pointee;
        while matches!(m.op(elem), Op::Array | Op::RuntimeArray) {
            if m.op(elem) == Op::RuntimeArray {
                self.ext("GL_EXT_nonuniform_qualifier");
            }
            elem = m.operand(elem, 0);
        }
        if let Some(d) = m.texture_desc(elem) {
            if d.access == TextureAccess::Storage {
                match format_name(d.format) {
                    Some(f) => q.push(f.to_string()),
                    None => self.ext("GL_EXT_shader_image_load_formatted"),
                }
            }
            if d.dim == Dim::SubpassData {
                let index = m
                    .find_decoration(g, Op::InputAttachmentIndex)
                    .and_then(|d| m.imm_operand(d, 0))
                    .unwrap_or(0);
                q.insert(0, format!("input_attachment_index = {index}"));
            }
        }
        let decl = self.decl(pointee, name)?;
        let lq = if q.is_empty() {
            String::new()
        } else {
            format!("layout({}) ", q.join(", "))
        };
        let mq = if m
            .texture_desc(elem)
            .is_some_and(|d| d.access == TextureAccess::Storage)
        {
            self.memory_qualifiers(g)
        } else {
            String::new()
        };
        writeln!(self.global_decls, "{lq}{mq}uniform {decl};").ok();
        Ok(())
    }

    /// True when a buffer global of type `pointee` in `space` is an array of buffers (the
    /// SPIR-V backend's rule: in `uniform`, any array of structs; in `storage_buffer`, an
    /// array of runtime arrays or of structs ending in one).
    fn is_descriptor_array(&self, space: AddressSpace, pointee: InstId) -> bool {
        crate::buffers::is_descriptor_array(self.m, space, pointee)
    }

    fn declare_block(
        &mut self,
        g: InstId,
        name: &str,
        space: AddressSpace,
        pointee: InstId,
    ) -> R<()> {
        let m = self.m;
        let rule = if space == AddressSpace::StorageBuffer && m.has_decoration(g, Op::TextureBuffer)
        {
            // `tbuffer`/`TextureBuffer`: their own rule, as in the SPIR-V backend.
            self.opts.tbuffer_rule
        } else {
            self.rule_of(space)
                .ok_or_else(|| malformed("a buffer without a layout rule"))?
        };
        let descriptors = self.is_descriptor_array(space, pointee);
        let (content, dims) = if descriptors {
            let dims = match m.op(pointee) {
                Op::RuntimeArray => {
                    self.ext("GL_EXT_nonuniform_qualifier");
                    "[]".to_string()
                }
                _ => format!("[{}]", m.array_len(pointee).unwrap_or(0)),
            };
            (m.operand(pointee, 0), dims)
        } else {
            (pointee, String::new())
        };
        let wrapped = m.op(content) != Op::Struct;
        // Block members: (name, type, row-major, offset).
        let mut members: Vec<(String, InstId, bool, u32)> = Vec::new();
        let block_name = if wrapped {
            // The wrapped type must have a layout (the check below reports why not).
            members.push(("data".into(), content, layout::is_row_major(m, g), 0));
            self.names
                .fresh(Some(&format!("{name}_block")), "Block", None)
        } else {
            let sl = layout::struct_layout(m, content, rule)
                .map_err(|e| GlslError::new(super::error::LAYOUT, format!("no layout: {e}")))?;
            let (sname, fields) = self.struct_names_of(content);
            for (i, fl) in sl.fields.iter().enumerate() {
                let ft = m
                    .ty(fl.field)
                    .ok_or_else(|| malformed("an untyped field"))?;
                members.push((fields[i].clone(), ft, fl.row_major, fl.offset));
            }
            // The value struct (if the module also uses it as a value) keeps the struct's
            // own name; the block gets its own.
            self.names
                .fresh(Some(&format!("{sname}_block")), "Block", None)
        };
        let list: Vec<Member<'_>> = members
            .iter()
            .map(|(n, t, rm, o)| Member {
                name: n,
                ty: *t,
                row_major: *rm,
                offset: *o,
            })
            .collect();
        let bl = block_layout(m, name, &list, rule)?;
        let (b8, b16) = small_scalars(m, content);
        if b16 {
            self.ext("GL_EXT_shader_16bit_storage");
        }
        if b8 {
            self.ext("GL_EXT_shader_8bit_storage");
        }
        if bl.packing == super::layout::Packing::Scalar
            || (bl.packing == super::layout::Packing::Std430 && space == AddressSpace::Uniform)
        {
            self.ext("GL_EXT_scalar_block_layout");
        }
        let mut q: Vec<String> = Vec::new();
        if space == AddressSpace::PushConstant {
            q.push("push_constant".into());
        } else if space == AddressSpace::ShaderRecord {
            q.push("shaderRecordEXT".into());
        } else {
            q.extend(self.binding_qualifiers(g));
        }
        q.push(bl.packing.qualifier().into());
        let storage = match space {
            AddressSpace::StorageBuffer | AddressSpace::ShaderRecord => "buffer",
            _ => "uniform",
        };
        let mq = if space == AddressSpace::StorageBuffer {
            self.memory_qualifiers(g)
        } else {
            String::new()
        };
        let mut text = format!("layout({}) {mq}{storage} {block_name} {{\n", q.join(", "));
        // Members declared as themselves keep their field's name; the rest (components,
        // flattened fields) get unique names from theirs.
        let mut member_names = super::names::namer();
        let whole: FxHashSet<usize> = bl
            .shapes
            .iter()
            .filter_map(|s| match s {
                Shape::Whole(d) => Some(*d),
                _ => None,
            })
            .collect();
        for &d in &whole {
            member_names.reserve(&bl.decls[d].name);
        }
        let mut decl_names = Vec::with_capacity(bl.decls.len());
        for (k, d) in bl.decls.iter().enumerate() {
            let n = if whole.contains(&k) {
                d.name.clone()
            } else {
                member_names.fresh(Some(&d.name), "m", None)
            };
            let mut mq = vec![format!("offset = {}", d.offset)];
            match d.majorness {
                Some(true) => mq.insert(0, "row_major".into()),
                Some(false) => mq.insert(0, "column_major".into()),
                None => {}
            }
            let decl = self.decl(d.ty, &n)?;
            writeln!(text, "    layout({}) {decl};", mq.join(", ")).ok();
            decl_names.push(n);
        }
        let shapes: Vec<Shape<String>> = bl
            .shapes
            .iter()
            .map(|s| s.map(&mut |&d| decl_names[d].clone()))
            .collect();
        writeln!(text, "}} {name}{dims};").ok();
        self.global_decls.push_str(&text);
        self.blocks.insert(
            g,
            BlockVar {
                wrapped,
                descriptors,
                fields: (!wrapped).then_some(shapes),
            },
        );
        Ok(())
    }

    /// Structs in declaration order: every struct after the structs its fields use.
    fn ordered_structs(&self) -> Vec<InstId> {
        let m = self.m;
        let mut out: Vec<InstId> = Vec::new();
        let mut seen: FxHashSet<InstId> = FxHashSet::default();
        fn visit(
            m: &Module,
            t: InstId,
            set: &FxHashSet<InstId>,
            seen: &mut FxHashSet<InstId>,
            out: &mut Vec<InstId>,
        ) {
            match m.try_op(t) {
                Some(Op::Array | Op::RuntimeArray) => visit(m, m.operand(t, 0), set, seen, out),
                Some(Op::Struct) if set.contains(&t) => {
                    if !seen.insert(t) {
                        return;
                    }
                    for f in m.struct_fields(t) {
                        if let Some(ft) = m.ty(f) {
                            visit(m, ft, set, seen, out);
                        }
                    }
                    out.push(t);
                }
                _ => {}
            }
        }
        for &s in &self.value_structs {
            visit(m, s, &self.value_struct_set, &mut seen, &mut out);
        }
        out
    }

    /// The whole shader: version, extensions, stage layout, declarations, functions.
    pub fn assemble(&mut self, stage_layout: &str, functions: &str) -> R<String> {
        let m = self.m;
        let mut structs = String::new();
        for s in self.ordered_structs() {
            let (name, fields) = self.struct_names_of(s);
            writeln!(structs, "struct {name} {{").ok();
            if fields.is_empty() {
                // GLSL has no empty structs; the value carries no data either way.
                writeln!(structs, "    int {EMPTY_FIELD};").ok();
            }
            for (i, f) in m.struct_fields(s).iter().enumerate() {
                let ft = m.ty(*f).ok_or_else(|| malformed("an untyped field"))?;
                let d = self.decl(ft, &fields[i])?;
                writeln!(structs, "    {d};").ok();
            }
            writeln!(structs, "}};\n").ok();
        }
        if self.resident_checks && !self.exts.contains("GL_ARB_sparse_texture2") {
            // `check_access_fully_mapped` of a status no sparse read in this shader wrote:
            // glslang declares SparseResidency only with a sparse read, so the check is
            // OpImageSparseTexelsResident by hand (the name is not a built-in without the
            // extension).
            self.ext("GL_EXT_spirv_intrinsics");
            self.helpers.push(
                "spirv_instruction(capabilities = [41], id = 316) bool \
                 sparseTexelsResidentARB(int code);\n"
                    .to_string(),
            );
        }
        // GLSL 4.50, but 4.60 where an extension needs it (GL_EXT_ray_query,
        // GL_EXT_ray_tracing).
        let mut out =
            if self.exts.contains("GL_EXT_ray_query") || self.exts.contains("GL_EXT_ray_tracing") {
                String::from("#version 460\n")
            } else {
                String::from("#version 450\n")
            };
        for e in &self.exts {
            writeln!(out, "#extension {e} : require").ok();
        }
        out.push('\n');
        if !stage_layout.is_empty() {
            out.push_str(stage_layout);
            out.push('\n');
        }
        out.push_str(&structs);
        for s in &self.spec_decls {
            writeln!(out, "{s}").ok();
        }
        if !self.spec_decls.is_empty() {
            out.push('\n');
        }
        for (name, dir, members) in &self.per_vertex {
            if let Some(block) = block_interface(name) {
                writeln!(out, "{dir} {block} {{").ok();
                for mem in members {
                    writeln!(out, "    {mem}").ok();
                }
                writeln!(out, "}} {name}[];\n").ok();
            }
        }
        if !self.global_decls.is_empty() {
            out.push_str(&self.global_decls);
            out.push('\n');
        }
        for c in &self.const_decls {
            writeln!(out, "{c}").ok();
        }
        if !self.const_decls.is_empty() {
            out.push('\n');
        }
        for h in &self.helpers {
            out.push_str(h);
            out.push('\n');
        }
        out.push_str(functions);
        Ok(out)
    }
}
