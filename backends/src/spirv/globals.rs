//! Global variables and entry points: storage classes, decorations (`DescriptorSet`,
//! `Binding`, `Location`, `BuiltIn`, interpolation, `NonWritable`...), `Block` wrapping of
//! buffers whose IR type is not a struct (`rtarray<u32>` becomes a `Block` struct with one
//! runtime-array member, and accesses get a leading 0 index), entry points with their interface
//! lists and execution modes. Which globals each entry point uses, and which stages reach a
//! global, come from the module's analyses ([`ModuleInfo`], carried by the `Legal`).

use oneshader_ir::analysis::{ModuleInfo, StageSet};
use oneshader_ir::layout;
use oneshader_ir::{
    AddressSpace, BuiltIn, Effects, Global, InstId, Op, Partitioning, Primitive, Stage, TessDomain,
};
use rspirv::spirv::{self, Capability, Decoration, ExecutionMode, ExecutionModel};
use rustc_hash::FxHashSet;
use smallvec::SmallVec;

use super::encode::{inst, inst_str};
use super::error::{DERIVATIVES, EmitError, MALFORMED, R, STAGE, TARGET};
use super::module::{Emitter, Lk, TKey};

/// The SPIR-V built-in of an IR built-in, in a given storage class and stage set.
/// The extension of `UserSemantic` and `CounterBuffer` before SPIR-V 1.4, which also
/// permits `OpDecorateString` and `OpDecorateId` there; DXC declares it in every version.
const HLSL_FUNCTIONALITY: &str = "SPV_GOOGLE_hlsl_functionality1";

/// The HLSL semantic of a `semantic("NAME", index[, written])` decoration as the source
/// spelled it: `NAME`, then the index when the source wrote it (`written`; without that
/// operand, when it is not 0).
fn semantic_spelling(m: &oneshader_ir::Module, d: InstId) -> Option<String> {
    let name = m.try_operand(d, 0).and_then(|s| m.literal_str(s))?;
    let index = m.imm_operand(d, 1).unwrap_or(0);
    let written = match m.imm_operand(d, 2) {
        Some(w) => w != 0,
        None => index != 0,
    };
    Some(if written {
        format!("{name}{index}")
    } else {
        name.to_string()
    })
}

fn builtin(b: BuiltIn, input: bool, fragment: bool) -> spirv::BuiltIn {
    use spirv::BuiltIn as S;
    match b {
        BuiltIn::Position if input && fragment => S::FragCoord,
        BuiltIn::Position => S::Position,
        BuiltIn::VertexIndex => S::VertexIndex,
        BuiltIn::InstanceIndex => S::InstanceIndex,
        BuiltIn::FrontFacing => S::FrontFacing,
        BuiltIn::FragDepth => S::FragDepth,
        BuiltIn::SampleIndex => S::SampleId,
        BuiltIn::SampleMask => S::SampleMask,
        BuiltIn::GlobalInvocationId => S::GlobalInvocationId,
        BuiltIn::LocalInvocationId => S::LocalInvocationId,
        BuiltIn::WorkgroupId => S::WorkgroupId,
        BuiltIn::LocalInvocationIndex => S::LocalInvocationIndex,
        BuiltIn::ClipDistance => S::ClipDistance,
        BuiltIn::CullDistance => S::CullDistance,
        BuiltIn::PrimitiveId => S::PrimitiveId,
        BuiltIn::Layer => S::Layer,
        BuiltIn::ViewportIndex => S::ViewportIndex,
        BuiltIn::BaseVertex => S::BaseVertex,
        BuiltIn::BaseInstance => S::BaseInstance,
        BuiltIn::ViewIndex => S::ViewIndex,
        BuiltIn::NumWorkgroups => S::NumWorkgroups,
        BuiltIn::Barycentric => S::BaryCoordKHR,
        BuiltIn::ShadingRate => S::ShadingRateKHR,
        BuiltIn::FragStencilRef => S::FragStencilRefEXT,
        BuiltIn::FullyCovered => S::FullyCoveredEXT,
        BuiltIn::PointSize => S::PointSize,
        BuiltIn::DrawIndex => S::DrawIndex,
        BuiltIn::HelperInvocation => S::HelperInvocation,
        BuiltIn::DeviceIndex => S::DeviceIndex,
        BuiltIn::InvocationId => S::InvocationId,
        BuiltIn::TessLevelOuter => S::TessLevelOuter,
        BuiltIn::TessLevelInner => S::TessLevelInner,
        BuiltIn::TessCoord => S::TessCoord,
        BuiltIn::PatchVertices => S::PatchVertices,
        BuiltIn::PrimitivePointIndices => S::PrimitivePointIndicesEXT,
        BuiltIn::PrimitiveLineIndices => S::PrimitiveLineIndicesEXT,
        BuiltIn::PrimitiveTriangleIndices => S::PrimitiveTriangleIndicesEXT,
        BuiltIn::CullPrimitive => S::CullPrimitiveEXT,
        BuiltIn::LaunchId => S::LaunchIdKHR,
        BuiltIn::LaunchSize => S::LaunchSizeKHR,
        BuiltIn::WorldRayOrigin => S::WorldRayOriginKHR,
        BuiltIn::WorldRayDirection => S::WorldRayDirectionKHR,
        BuiltIn::ObjectRayOrigin => S::ObjectRayOriginKHR,
        BuiltIn::ObjectRayDirection => S::ObjectRayDirectionKHR,
        BuiltIn::RayTmin => S::RayTminKHR,
        BuiltIn::RayTmax => S::RayTmaxKHR,
        BuiltIn::InstanceCustomIndex => S::InstanceCustomIndexKHR,
        BuiltIn::InstanceId => S::InstanceId,
        BuiltIn::GeometryIndex => S::RayGeometryIndexKHR,
        BuiltIn::HitKind => S::HitKindKHR,
        BuiltIn::IncomingRayFlags => S::IncomingRayFlagsKHR,
        BuiltIn::ObjectToWorld => S::ObjectToWorldKHR,
        BuiltIn::WorldToObject => S::WorldToObjectKHR,
        BuiltIn::PrimitiveShadingRate => S::PrimitiveShadingRateKHR,
    }
}

/// The SPIR-V execution model of a stage.
pub(crate) fn execution_model(stage: Stage) -> ExecutionModel {
    match stage {
        Stage::Vertex => ExecutionModel::Vertex,
        Stage::Fragment => ExecutionModel::Fragment,
        Stage::Compute => ExecutionModel::GLCompute,
        Stage::Geometry => ExecutionModel::Geometry,
        Stage::Hull => ExecutionModel::TessellationControl,
        Stage::Domain => ExecutionModel::TessellationEvaluation,
        Stage::Mesh => ExecutionModel::MeshEXT,
        Stage::Amplification => ExecutionModel::TaskEXT,
        Stage::RayGeneration => ExecutionModel::RayGenerationKHR,
        Stage::Intersection => ExecutionModel::IntersectionKHR,
        Stage::AnyHit => ExecutionModel::AnyHitKHR,
        Stage::ClosestHit => ExecutionModel::ClosestHitKHR,
        Stage::Miss => ExecutionModel::MissKHR,
        Stage::Callable => ExecutionModel::CallableKHR,
    }
}

/// True for the ray-tracing stages.
pub(crate) fn is_ray_tracing(stage: Stage) -> bool {
    matches!(
        stage,
        Stage::RayGeneration
            | Stage::Intersection
            | Stage::AnyHit
            | Stage::ClosestHit
            | Stage::Miss
            | Stage::Callable
    )
}

impl Emitter<'_> {
    /// Capabilities and extensions a built-in needs, in a variable of the entry points of
    /// `stages`.
    pub(crate) fn builtin_caps(&mut self, b: spirv::BuiltIn, input: bool, stages: StageSet) {
        use spirv::BuiltIn as S;
        let minor = self.minor;
        let fragment = stages.contains(Stage::Fragment);
        let geometry = stages.contains(Stage::Geometry);
        let tessellation = stages.contains(Stage::Hull) || stages.contains(Stage::Domain);
        let mesh = stages.contains(Stage::Mesh);
        // Outside the vertex stage, what the stage's own capability provides.
        if geometry || mesh || tessellation {
            match b {
                S::Layer | S::PrimitiveId if !input && (geometry || mesh) => return,
                S::ViewportIndex if !input && (geometry || mesh) => {
                    self.caps.add(Capability::MultiViewport);
                    return;
                }
                S::PointSize => {
                    if geometry {
                        self.caps.add(Capability::GeometryPointSize);
                    }
                    if tessellation {
                        self.caps.add(Capability::TessellationPointSize);
                    }
                    return;
                }
                S::PrimitiveId
                | S::InvocationId
                | S::TessLevelOuter
                | S::TessLevelInner
                | S::TessCoord
                | S::PatchVertices => return,
                _ => {}
            }
        }
        match b {
            S::SampleId | S::SamplePosition => self.caps.add(Capability::SampleRateShading),
            S::ClipDistance => self.caps.add(Capability::ClipDistance),
            S::CullDistance => self.caps.add(Capability::CullDistance),
            S::PrimitiveId if fragment && input => self.caps.add(Capability::Geometry),
            S::Layer if fragment && input => self.caps.add(Capability::Geometry),
            S::ViewportIndex if fragment && input => self.caps.add(Capability::MultiViewport),
            S::Layer | S::ViewportIndex if !input => {
                if minor >= 5 {
                    self.caps.add(if b == S::Layer {
                        Capability::ShaderLayer
                    } else {
                        Capability::ShaderViewportIndex
                    });
                } else {
                    self.caps.add(Capability::ShaderViewportIndexLayerEXT);
                    self.caps.ext("SPV_EXT_shader_viewport_index_layer");
                }
            }
            S::BaseVertex | S::BaseInstance | S::DrawIndex => self.caps.add_ext(
                Capability::DrawParameters,
                minor,
                3,
                "SPV_KHR_shader_draw_parameters",
            ),
            S::ViewIndex => self
                .caps
                .add_ext(Capability::MultiView, minor, 3, "SPV_KHR_multiview"),
            S::DeviceIndex => {
                self.caps
                    .add_ext(Capability::DeviceGroup, minor, 3, "SPV_KHR_device_group")
            }
            S::BaryCoordKHR => {
                self.caps.add(Capability::FragmentBarycentricKHR);
                self.caps.ext("SPV_KHR_fragment_shader_barycentric");
            }
            S::ShadingRateKHR | S::PrimitiveShadingRateKHR => {
                self.caps.add(Capability::FragmentShadingRateKHR);
                self.caps.ext("SPV_KHR_fragment_shading_rate");
            }
            S::FragStencilRefEXT => {
                self.caps.add(Capability::StencilExportEXT);
                self.caps.ext("SPV_EXT_shader_stencil_export");
            }
            S::FullyCoveredEXT => {
                self.caps.add(Capability::FragmentFullyCoveredEXT);
                self.caps.ext("SPV_EXT_fragment_fully_covered");
            }
            _ => {}
        }
    }

    /// Emits every global variable.
    pub(crate) fn emit_globals(&mut self, info: &ModuleInfo) {
        // `OpDecorateId` names only what is defined before its target, so under `reflect`
        // a buffer's counter (`CounterBuffer`) is declared just before the buffer, as DXC
        // orders them; otherwise the module's order.
        let mut order: Vec<Global> = Vec::new();
        if self.opts.reflect {
            let m = self.m;
            let mut placed: FxHashSet<InstId> = FxHashSet::default();
            for g in m.globals() {
                if let Some(c) = m
                    .find_decoration(g.id(), Op::Counter)
                    .and_then(|d| m.try_operand(d, 0))
                    .and_then(|c| Global::dyn_cast(m, c))
                    && placed.insert(c.id())
                {
                    order.push(c);
                }
                if placed.insert(g.id()) {
                    order.push(g);
                }
            }
        } else {
            order.extend(self.m.globals());
        }
        self.find_per_vertex(info);
        for g in order {
            let before = self.s.oversized().is_some();
            let done = self.global(g, info);
            self.note_oversized(g.id(), before);
            if let Err(e) = done {
                let name = self.m.name(g.id()).unwrap_or("?").to_string();
                let mut d: oneshader_ir::Diagnostic = e.into();
                d.message = format!("global @{name}: {}", d.message);
                let d = d.or_at_use(self.m, g.id());
                self.diags.push(d);
            }
        }
    }

    fn global(&mut self, global: Global, info: &ModuleInfo) -> R<()> {
        let m = self.m;
        let g = global.id();
        let ty = m
            .ty(g)
            .ok_or_else(|| EmitError::new(MALFORMED, "a global has no type"))?;
        let space = m
            .address_space(ty)
            .ok_or_else(|| EmitError::new(MALFORMED, "a global's type is not a pointer"))?;
        let pointee = m
            .pointee(ty)
            .ok_or_else(|| EmitError::new(MALFORMED, "a global's type is not a pointer"))?;
        let row_major = layout::is_row_major(m, g);
        let ptr = match self.rule_of_ptr(g, space) {
            Some(rule) if self.is_descriptor_array(space, pointee) => {
                self.desc_arrays.insert(g, ());
                let bb = self.buffer_block(space);
                self.ptr_type(space, pointee, Lk::Descriptors(rule, row_major, bb))?
            }
            Some(rule) => {
                if m.op(pointee) != Op::Struct {
                    self.wrapped.insert(g, ());
                }
                let bb = self.buffer_block(space);
                self.ptr_type(space, pointee, Lk::Block(rule, row_major, bb))?
            }
            None if self.per_vertex.contains_key(g) => {
                let elem = self.ty(pointee)?;
                let arr = self.per_vertex_ty(elem);
                self.ptr_spv(spirv::StorageClass::Input, arr)
            }
            None => self.ptr_type(space, pointee, Lk::Logical)?,
        };
        let id = self.id_of(g);
        let per_vertex = self.per_vertex.contains_key(g);
        if per_vertex {
            self.caps.add(Capability::FragmentBarycentricKHR);
            self.caps.ext("SPV_KHR_fragment_shader_barycentric");
            self.decorate(id, Decoration::PerVertexKHR, &[]);
        }
        let class = self.storage_class(space) as u32;
        match m.try_operand(g, 0) {
            Some(init) => {
                let init = self.val(init)?;
                inst(
                    &mut self.s.globals,
                    spirv::Op::Variable,
                    &[ptr, id, class, init],
                );
            }
            None => inst(&mut self.s.globals, spirv::Op::Variable, &[ptr, id, class]),
        }
        self.name(id, m.name(g));
        if !matches!(space, AddressSpace::Input | AddressSpace::Output) {
            self.dbg_global_variable(g, id);
        }
        let stages = info.stages_of(global);
        let fragment = stages.contains(Stage::Fragment);
        let input = space == AddressSpace::Input;
        let mut has_interp = false;
        let decos: SmallVec<[InstId; 4]> = m.decorations(g).collect();
        for d in decos {
            match m.op(d) {
                Op::Binding => {
                    let set = m.imm_operand(d, 0).unwrap_or(0);
                    let binding = m.imm_operand(d, 1).unwrap_or(0);
                    self.decorate(id, Decoration::DescriptorSet, &[set]);
                    self.decorate(id, Decoration::Binding, &[binding]);
                }
                Op::Location => {
                    let l = m.imm_operand(d, 0).unwrap_or(0);
                    self.decorate(id, Decoration::Location, &[l]);
                }
                Op::BuiltinDeco => {
                    let b = m
                        .imm_operand(d, 0)
                        .and_then(BuiltIn::from_u32)
                        .ok_or_else(|| EmitError::new(MALFORMED, "unknown built-in"))?;
                    let sb = builtin(b, input, fragment);
                    self.builtin_caps(sb, input, stages);
                    self.decorate(id, Decoration::BuiltIn, &[sb as u32]);
                    // The tessellation levels are per patch; the mesh shader's
                    // per-primitive built-ins are per primitive.
                    if matches!(b, BuiltIn::TessLevelOuter | BuiltIn::TessLevelInner)
                        && !m.has_decoration(g, Op::Patch)
                    {
                        self.decorate(id, Decoration::Patch, &[]);
                    }
                    if stages.contains(Stage::Mesh)
                        && !input
                        && matches!(
                            b,
                            BuiltIn::PrimitiveId
                                | BuiltIn::Layer
                                | BuiltIn::ViewportIndex
                                | BuiltIn::CullPrimitive
                                | BuiltIn::PrimitiveShadingRate
                        )
                        && !m.has_decoration(g, Op::PerPrimitive)
                    {
                        self.decorate(id, Decoration::PerPrimitiveEXT, &[]);
                    }
                }
                // A per-vertex input is not interpolated at all: no Flat.
                Op::Flat => {
                    has_interp = true;
                    if !per_vertex {
                        self.decorate(id, Decoration::Flat, &[]);
                    }
                }
                Op::NoPerspective => self.decorate(id, Decoration::NoPerspective, &[]),
                Op::Centroid => self.decorate(id, Decoration::Centroid, &[]),
                Op::SampleDeco => {
                    self.caps.add(Capability::SampleRateShading);
                    self.decorate(id, Decoration::Sample, &[]);
                }
                Op::Invariant => self.decorate(id, Decoration::Invariant, &[]),
                Op::ReadOnly => self.decorate(id, Decoration::NonWritable, &[]),
                Op::WriteOnly => self.decorate(id, Decoration::NonReadable, &[]),
                Op::Coherent => self.decorate(id, Decoration::Coherent, &[]),
                Op::InputAttachmentIndex => {
                    let n = m.imm_operand(d, 0).unwrap_or(0);
                    self.decorate(id, Decoration::InputAttachmentIndex, &[n]);
                }
                Op::Patch => self.decorate(id, Decoration::Patch, &[]),
                Op::PerPrimitive => {
                    self.mesh_caps();
                    self.decorate(id, Decoration::PerPrimitiveEXT, &[]);
                }
                Op::StreamDeco => {
                    let n = m.imm_operand(d, 0).unwrap_or(0);
                    self.caps.add(Capability::GeometryStreams);
                    self.decorate(id, Decoration::Stream, &[n]);
                }
                // DXC's `-fspv-reflect` (docs/spirv-backend.md, "Reflection decorations").
                Op::Semantic if self.opts.reflect => {
                    if let Some(s) = semantic_spelling(m, d) {
                        self.caps.ext(HLSL_FUNCTIONALITY);
                        self.decorate_string(id, Decoration::UserSemantic, &s);
                    }
                }
                Op::UserType if self.opts.reflect => {
                    if let Some(s) = m.try_operand(d, 0).and_then(|s| m.literal_str(s)) {
                        self.caps.ext(HLSL_FUNCTIONALITY);
                        self.caps.ext("SPV_GOOGLE_user_type");
                        self.decorate_string(id, Decoration::UserTypeGOOGLE, s);
                    }
                }
                Op::Counter if self.opts.reflect => {
                    if let Some(c) = m.try_operand(d, 0).filter(|&c| m.op(c) == Op::Global) {
                        let cid = self.id_of(c);
                        self.caps.ext(HLSL_FUNCTIONALITY);
                        inst(
                            &mut self.s.annotations,
                            spirv::Op::DecorateId,
                            &[id, Decoration::CounterBuffer as u32, cid],
                        );
                    }
                }
                // Reflection-only (without `reflect`) or handled elsewhere: semantics,
                // counters, user types, majorness (in the layout), export/import (linking
                // happens before emission).
                _ => {}
            }
        }
        // Integer and double fragment inputs (built-ins included) must be flat in Vulkan;
        // HLSL makes them so implicitly, as DXC does.
        if input && fragment && !has_interp {
            let needs_flat = self.needs_flat(pointee);
            if needs_flat {
                self.decorate(id, Decoration::Flat, &[]);
            }
        }
        Ok(())
    }

    /// Fills `per_vertex`: when some function reads an input at a vertex
    /// (`attribute_at_vertex`, HLSL `GetAttributeAtVertex`), every `flat` fragment input that
    /// is not a built-in is declared per vertex, as DXC declares every `nointerpolation`
    /// input of such a shader (whether or not it is the one read at a vertex).
    fn find_per_vertex(&mut self, info: &ModuleInfo) {
        let m = self.m;
        let uses = crate::attribute::module_reads_at_vertex(m);
        if !uses {
            return;
        }
        for g in m.globals() {
            let id = g.id();
            let input = m
                .ty(id)
                .and_then(|t| m.address_space(t))
                .is_some_and(|s| s == AddressSpace::Input);
            if input
                && info.stages_of(g).contains(Stage::Fragment)
                && m.has_decoration(id, Op::Flat)
                && !m.has_decoration(id, Op::BuiltinDeco)
            {
                self.per_vertex.insert(id, ());
                self.wrapped.insert(id, ());
            }
        }
    }

    /// `OpTypeArray elem 3`: the vertices of a `PerVertexKHR` input.
    pub(crate) fn per_vertex_ty(&mut self, elem: u32) -> u32 {
        let u = self.u32_ty();
        let len = self.const_bits(u, 3);
        self.tkey(TKey::PerVertex(elem), spirv::Op::TypeArray, &[elem, len])
    }

    /// True when a buffer global of type `pointee` in `space` is an array of buffers rather
    /// than one buffer holding an array: in `uniform`, any array of structs (a constant buffer
    /// cannot hold a bare array, so `array<@T, n>` is `ConstantBuffer<T> a[n]`); in
    /// `storage_buffer`, an array whose elements are runtime arrays or structs ending in one
    /// (nothing else can hold those). Other arrays of structs in storage buffers stay one buffer.
    pub(crate) fn is_descriptor_array(&self, space: AddressSpace, pointee: InstId) -> bool {
        crate::buffers::is_descriptor_array(self.m, space, pointee)
    }

    /// True for fragment inputs Vulkan requires to be `Flat`: integer or double scalars and
    /// vectors (and arrays of them).
    fn needs_flat(&self, ty: InstId) -> bool {
        let m = self.m;
        let mut t = ty;
        while matches!(m.try_op(t), Some(Op::Array)) {
            t = m.operand(t, 0);
        }
        m.scalar_of(t)
            .is_some_and(|s| m.op(s).is_int_type() || m.op(s) == Op::F64)
    }

    /// A variable the backend creates for a built-in that the IR reads through an intrinsic
    /// (e.g. `wave_get_lane_index`), recorded as used by the current function.
    pub(crate) fn builtin_var(&mut self, b: spirv::BuiltIn, ty: u32) -> u32 {
        let id = match self.builtin_vars.get(&(b as u32)) {
            Some(&id) => id,
            None => {
                let ptr = self.ptr_spv(spirv::StorageClass::Input, ty);
                let id = self.fresh();
                inst(
                    &mut self.s.globals,
                    spirv::Op::Variable,
                    &[ptr, id, spirv::StorageClass::Input as u32],
                );
                self.decorate(id, Decoration::BuiltIn, &[b as u32]);
                self.builtin_caps(b, true, StageSet::EMPTY);
                if ty != self.bool_ty() {
                    self.synthetic_int.insert(id);
                }
                self.builtin_vars.insert(b as u32, id);
                id
            }
        };
        if let Some(f) = self.cur_func {
            let list = self.synthetic_uses.entry(f).or_default();
            if !list.contains(&id) {
                list.push(id);
            }
        }
        id
    }

    /// Emits `OpEntryPoint` and execution modes for every entry point.
    pub(crate) fn emit_entry_points(&mut self, info: &ModuleInfo) {
        let m = self.m;
        if self.opts.entry_point_name.is_some() && info.entry_points().len() > 1 {
            self.diags.push(
                super::error::EmitError::new(
                    super::error::ENTRY_NAME,
                    format!(
                        "one entry-point name (`-fspv-entrypoint-name`) for a module of {} entry points",
                        info.entry_points().len()
                    ),
                )
                .into(),
            );
        }
        for e in info.entry_points() {
            let derivatives = e.effects().contains(Effects::DERIVATIVES);
            // Where a derivative error points: the first instruction that takes one.
            let derivative_at = derivatives
                .then(|| e.first_with_effects(m, Effects::DERIVATIVES))
                .flatten();
            let model = execution_model(e.stage());
            if let Err(err) = self.stage_caps(e.stage(), e.name()) {
                self.diags.push(err.into());
                continue;
            }
            let fid = self.id_of(e.func().id());
            let mut iface: Vec<u32> = Vec::new();
            let mut writes_depth = false;
            for u in e.globals() {
                let g = u.global.id();
                let space = m.ty(g).and_then(|t| m.address_space(t));
                let io = matches!(space, Some(AddressSpace::Input | AddressSpace::Output));
                if (io || self.minor >= 4)
                    && let Some(&gid) = self.ids.get(g)
                {
                    iface.push(gid);
                }
                if space == Some(AddressSpace::Output)
                    && m.find_decoration(g, Op::BuiltinDeco)
                        .and_then(|d| m.imm_operand(d, 0))
                        == Some(BuiltIn::FragDepth.to_u32())
                {
                    writes_depth = true;
                }
            }
            if self.opts.preserve_interface && info.entry_points().len() == 1 {
                // Every stage variable the module declares, in module order.
                for g in m.globals() {
                    let space = m.ty(g.id()).and_then(|t| m.address_space(t));
                    if matches!(space, Some(AddressSpace::Input | AddressSpace::Output))
                        && let Some(&gid) = self.ids.get(g.id())
                        && !iface.contains(&gid)
                    {
                        iface.push(gid);
                    }
                }
            }
            for f in e.functions() {
                let synthetic = self
                    .synthetic_uses
                    .get(&f.id())
                    .cloned()
                    .unwrap_or_default();
                for sid in synthetic {
                    if !iface.contains(&sid) {
                        iface.push(sid);
                    }
                    // Integer built-ins the backend added (subgroup size and lane index) are
                    // flat in fragment shaders; a variable is shared by the entry points, and
                    // only fragment inputs may carry Flat, which the IR cannot ask for twice.
                    if e.stage() == Stage::Fragment
                        && self.synthetic_int.contains(&sid)
                        && self.synthetic_flat.insert(sid)
                    {
                        self.decorate(sid, Decoration::Flat, &[]);
                    }
                }
            }
            if let Some(mode) = self.opts.denorm {
                // `-denorm preserve|ftz`: the 32-bit float denormal mode (SPV_KHR_float_controls,
                // core in SPIR-V 1.4).
                let (em, cap) = match mode {
                    super::DenormMode::Preserve => {
                        (ExecutionMode::DenormPreserve, Capability::DenormPreserve)
                    }
                    super::DenormMode::FlushToZero => (
                        ExecutionMode::DenormFlushToZero,
                        Capability::DenormFlushToZero,
                    ),
                };
                self.caps
                    .add_ext(cap, self.minor, 4, "SPV_KHR_float_controls");
                inst(
                    &mut self.s.modes,
                    spirv::Op::ExecutionMode,
                    &[fid, em as u32, 32],
                );
            }
            inst_str(
                &mut self.s.entries,
                spirv::Op::EntryPoint,
                &[model as u32, fid],
                self.opts.entry_point_name.as_deref().unwrap_or(e.name()),
                &iface,
            );
            match e.stage() {
                Stage::Compute => {
                    let (x, y, z) = m
                        .find_decoration(e.func().id(), Op::NumThreads)
                        .map(|d| {
                            (
                                m.imm_operand(d, 0).unwrap_or(1),
                                m.imm_operand(d, 1).unwrap_or(1),
                                m.imm_operand(d, 2).unwrap_or(1),
                            )
                        })
                        .unwrap_or((1, 1, 1));
                    inst(
                        &mut self.s.modes,
                        spirv::Op::ExecutionMode,
                        &[fid, ExecutionMode::LocalSize as u32, x, y, z],
                    );
                    if derivatives {
                        self.derivative_group(fid, e.name(), (x, y, z), derivative_at);
                    }
                }
                Stage::Geometry
                | Stage::Hull
                | Stage::Domain
                | Stage::Mesh
                | Stage::Amplification => {
                    if let Err(err) = self.stage_modes(e.func().id(), fid, e.stage(), e.name()) {
                        self.diags.push(err.into());
                    }
                    if derivatives {
                        self.diags.push(
                            EmitError::new(
                                DERIVATIVES,
                                format!(
                                    "{} entry point `{}` takes implicit derivatives (implicit-LOD sampling such as `Sample`, CalculateLevelOfDetail or ddx/ddy); SPIR-V has them only in fragment and compute shaders: sample at an explicit level (`SampleLevel`)",
                                    e.stage().spelling(),
                                    e.name()
                                ),
                            )
                            .at(m, derivative_at)
                            .into(),
                        );
                    }
                }
                Stage::Fragment => {
                    inst(
                        &mut self.s.modes,
                        spirv::Op::ExecutionMode,
                        &[fid, ExecutionMode::OriginUpperLeft as u32],
                    );
                    if writes_depth {
                        inst(
                            &mut self.s.modes,
                            spirv::Op::ExecutionMode,
                            &[fid, ExecutionMode::DepthReplacing as u32],
                        );
                    }
                    if m.has_decoration(e.func().id(), Op::EarlyFragmentTests) {
                        inst(
                            &mut self.s.modes,
                            spirv::Op::ExecutionMode,
                            &[fid, ExecutionMode::EarlyFragmentTests as u32],
                        );
                    }
                }
                // Implicit derivatives exist only in fragment shaders and in compute shaders
                // with a derivative group (dxc refuses them elsewhere too).
                _ if derivatives => {
                    self.diags.push(
                        EmitError::new(
                            DERIVATIVES,
                            format!(
                                "{} entry point `{}` takes implicit derivatives (implicit-LOD sampling such as `Sample`, CalculateLevelOfDetail or ddx/ddy); SPIR-V has them only in fragment and compute shaders: sample at an explicit level (`SampleLevel`)",
                                e.stage().spelling(),
                                e.name()
                            ),
                        )
                        .at(m, derivative_at)
                        .into(),
                    );
                }
                _ => {}
            }
        }
    }

    /// SPIR-V 1.4 or later, which mesh shading and ray-tracing pipelines need; `what`
    /// names the construct for the diagnostic.
    pub(crate) fn require_spirv_1_4(&self, what: &str) -> R<()> {
        if self.minor >= 4 {
            return Ok(());
        }
        Err(EmitError::new(
            TARGET,
            format!(
                "{what} needs SPIR-V 1.4 or later (SPV_KHR_ray_tracing and SPV_EXT_mesh_shader \
                 require it); the target environment gives SPIR-V 1.{}: use \
                 --target-env vulkan1.2 (or vulkan1.1spirv1.4, vulkan1.3, universal1.4+)",
                self.minor
            ),
        ))
    }

    /// The capability and extension of mesh shading (`SPV_EXT_mesh_shader`).
    pub(crate) fn mesh_caps(&mut self) {
        self.caps.add(Capability::MeshShadingEXT);
        self.caps.ext("SPV_EXT_mesh_shader");
    }

    /// The capability and extension of ray-tracing pipelines (`SPV_KHR_ray_tracing`).
    pub(crate) fn ray_tracing_caps(&mut self) {
        self.caps.add(Capability::RayTracingKHR);
        self.caps.ext("SPV_KHR_ray_tracing");
    }

    /// The capability and extension of ray queries (`SPV_KHR_ray_query`).
    pub(crate) fn ray_query_caps(&mut self) {
        self.caps.add(Capability::RayQueryKHR);
        self.caps.ext("SPV_KHR_ray_query");
    }

    /// The capabilities (and extensions) of an entry point's stage; an error when the target
    /// environment cannot have the stage.
    fn stage_caps(&mut self, stage: Stage, name: &str) -> R<()> {
        match stage {
            Stage::Geometry => self.caps.add(Capability::Geometry),
            Stage::Hull | Stage::Domain => self.caps.add(Capability::Tessellation),
            Stage::Mesh | Stage::Amplification => {
                self.require_spirv_1_4(&format!("{} entry point `{name}`", stage.spelling()))?;
                self.mesh_caps();
            }
            s if is_ray_tracing(s) => {
                self.require_spirv_1_4(&format!("{} entry point `{name}`", s.spelling()))?;
                self.ray_tracing_caps();
            }
            _ => {}
        }
        Ok(())
    }

    /// The execution modes of a geometry, tessellation, mesh or amplification entry point,
    /// from its decorations (the verifier checked they are there and fit the stage).
    fn stage_modes(&mut self, f: InstId, fid: u32, stage: Stage, name: &str) -> R<()> {
        let m = self.m;
        let imm = |op: Op| m.find_decoration(f, op).and_then(|d| m.imm_operand(d, 0));
        let mut modes: SmallVec<[(ExecutionMode, Option<u32>); 6]> = SmallVec::new();
        let primitive = |op: Op| imm(op).and_then(Primitive::from_u32);
        match stage {
            Stage::Geometry => {
                modes.push((
                    ExecutionMode::Invocations,
                    Some(imm(Op::Invocations).unwrap_or(1)),
                ));
                let input = match primitive(Op::InputPrimitive) {
                    Some(Primitive::Point) => ExecutionMode::InputPoints,
                    Some(Primitive::Line) => ExecutionMode::InputLines,
                    Some(Primitive::LineAdj) => ExecutionMode::InputLinesAdjacency,
                    Some(Primitive::Triangle) => ExecutionMode::Triangles,
                    Some(Primitive::TriangleAdj) => ExecutionMode::InputTrianglesAdjacency,
                    _ => return Err(self.bad_mode(name, "input_primitive")),
                };
                modes.push((input, None));
                let output = match primitive(Op::OutputPrimitive) {
                    Some(Primitive::Point) => ExecutionMode::OutputPoints,
                    Some(Primitive::LineStrip) => ExecutionMode::OutputLineStrip,
                    Some(Primitive::TriangleStrip) => ExecutionMode::OutputTriangleStrip,
                    _ => return Err(self.bad_mode(name, "output_primitive")),
                };
                modes.push((output, None));
                let n = imm(Op::MaxVertices).ok_or_else(|| self.bad_mode(name, "max_vertices"))?;
                modes.push((ExecutionMode::OutputVertices, Some(n)));
            }
            Stage::Hull | Stage::Domain => {
                // Either tessellation stage may declare the domain, spacing and winding.
                match imm(Op::TessDomainDeco).and_then(TessDomain::from_u32) {
                    Some(TessDomain::Triangle) => modes.push((ExecutionMode::Triangles, None)),
                    Some(TessDomain::Quad) => modes.push((ExecutionMode::Quads, None)),
                    Some(TessDomain::Isoline) => modes.push((ExecutionMode::Isolines, None)),
                    None => {}
                }
                if stage == Stage::Hull {
                    let n = imm(Op::OutputControlPoints)
                        .ok_or_else(|| self.bad_mode(name, "output_control_points"))?;
                    modes.push((ExecutionMode::OutputVertices, Some(n)));
                }
                match imm(Op::TessPartitioning).and_then(Partitioning::from_u32) {
                    Some(Partitioning::Integer) => modes.push((ExecutionMode::SpacingEqual, None)),
                    Some(Partitioning::FractionalEven) => {
                        modes.push((ExecutionMode::SpacingFractionalEven, None))
                    }
                    Some(Partitioning::FractionalOdd) => {
                        modes.push((ExecutionMode::SpacingFractionalOdd, None))
                    }
                    Some(Partitioning::Pow2) => {
                        return Err(EmitError::new(
                            STAGE,
                            format!(
                                "{} entry point `{name}`: `pow2` partitioning has no SPIR-V \
                                 spacing (Vulkan has equal, fractional even and fractional odd)",
                                stage.spelling()
                            ),
                        ));
                    }
                    None => {}
                }
                match primitive(Op::OutputPrimitive) {
                    Some(Primitive::Point) => modes.push((ExecutionMode::PointMode, None)),
                    Some(Primitive::TriangleCw) => modes.push((ExecutionMode::VertexOrderCw, None)),
                    Some(Primitive::TriangleCcw) => {
                        modes.push((ExecutionMode::VertexOrderCcw, None))
                    }
                    _ => {}
                }
            }
            Stage::Mesh | Stage::Amplification => {
                let (x, y, z) = m
                    .find_decoration(f, Op::NumThreads)
                    .map(|d| {
                        (
                            m.imm_operand(d, 0).unwrap_or(1),
                            m.imm_operand(d, 1).unwrap_or(1),
                            m.imm_operand(d, 2).unwrap_or(1),
                        )
                    })
                    .unwrap_or((1, 1, 1));
                inst(
                    &mut self.s.modes,
                    spirv::Op::ExecutionMode,
                    &[fid, ExecutionMode::LocalSize as u32, x, y, z],
                );
                if stage == Stage::Mesh {
                    let v =
                        imm(Op::MaxVertices).ok_or_else(|| self.bad_mode(name, "max_vertices"))?;
                    let p = imm(Op::MaxPrimitives)
                        .ok_or_else(|| self.bad_mode(name, "max_primitives"))?;
                    modes.push((ExecutionMode::OutputVertices, Some(v)));
                    modes.push((ExecutionMode::OutputPrimitivesEXT, Some(p)));
                    let out = match primitive(Op::OutputPrimitive) {
                        Some(Primitive::Point) => ExecutionMode::OutputPoints,
                        Some(Primitive::Line) => ExecutionMode::OutputLinesEXT,
                        Some(Primitive::Triangle) => ExecutionMode::OutputTrianglesEXT,
                        _ => return Err(self.bad_mode(name, "output_primitive")),
                    };
                    modes.push((out, None));
                }
            }
            _ => {}
        }
        for (mode, arg) in modes {
            match arg {
                Some(a) => inst(
                    &mut self.s.modes,
                    spirv::Op::ExecutionMode,
                    &[fid, mode as u32, a],
                ),
                None => inst(
                    &mut self.s.modes,
                    spirv::Op::ExecutionMode,
                    &[fid, mode as u32],
                ),
            }
        }
        Ok(())
    }

    fn bad_mode(&self, name: &str, what: &str) -> EmitError {
        EmitError::new(
            MALFORMED,
            format!(
                "entry point `{name}` lacks a valid `{what}` decoration: verify the module first"
            ),
        )
    }

    /// The derivative group of a compute entry point that takes implicit derivatives
    /// (SPV_NV_compute_shader_derivatives), chosen as DXC does for `cs_6_6`: 2x2 quads of the
    /// local invocation id when `numthreads` x and y are both even, otherwise groups of four
    /// consecutive local invocation indices when the workgroup size is a multiple of 4. The
    /// NV extension is used on every target (Vulkan drivers have offered it since 2018, and
    /// its capabilities and modes have the same numbers as the later KHR version), unless
    /// `-fspv-extension=` permits SPV_KHR_compute_shader_derivatives and not the NV one.
    fn derivative_group(
        &mut self,
        fid: u32,
        name: &str,
        (x, y, z): (u32, u32, u32),
        at: Option<oneshader_ir::InstId>,
    ) {
        let (mode, cap) = if x.is_multiple_of(2) && y.is_multiple_of(2) {
            (
                ExecutionMode::DerivativeGroupQuadsNV,
                Capability::ComputeDerivativeGroupQuadsNV,
            )
        } else if (x as u64 * y as u64 * z as u64).is_multiple_of(4) {
            (
                ExecutionMode::DerivativeGroupLinearNV,
                Capability::ComputeDerivativeGroupLinearNV,
            )
        } else {
            self.diags.push(
                EmitError::new(
                    DERIVATIVES,
                    format!(
                        "compute entry point `{name}` takes implicit derivatives (implicit-LOD sampling, CalculateLevelOfDetail or ddx/ddy) with numthreads({x}, {y}, {z}); SPIR-V needs even x and y (2x2 quads) or a multiple of 4 threads (linear groups)"
                    ),
                )
                .at(self.m, at)
                .into(),
            );
            return;
        };
        self.caps.add(cap);
        let khr = self.opts.allowed_extensions.as_ref().is_some_and(|a| {
            !super::permits(a, "SPV_NV_compute_shader_derivatives")
                && super::permits(a, "SPV_KHR_compute_shader_derivatives")
        });
        self.caps.ext(if khr {
            "SPV_KHR_compute_shader_derivatives"
        } else {
            "SPV_NV_compute_shader_derivatives"
        });
        inst(
            &mut self.s.modes,
            spirv::Op::ExecutionMode,
            &[fid, mode as u32],
        );
    }

    /// A module without entry points is a library: it declares `Linkage` and exports every
    /// defined function (imports every declaration) under its `export`/`import` name or its
    /// own name.
    pub(crate) fn emit_linkage(&mut self) {
        let m = self.m;
        self.caps.add(Capability::Linkage);
        for f in m.functions() {
            let Some(&fid) = self.ids.get(f.id()) else {
                continue;
            };
            let (deco, kind) = if f.is_declaration(m) {
                (Op::Import, spirv::LinkageType::Import)
            } else {
                (Op::Export, spirv::LinkageType::Export)
            };
            let name = m
                .find_decoration(f.id(), deco)
                .and_then(|d| m.try_operand(d, 0))
                .and_then(|s| m.literal_str(s))
                .or_else(|| m.name(f.id()))
                .unwrap_or("f")
                .to_string();
            inst_str(
                &mut self.s.annotations,
                spirv::Op::Decorate,
                &[fid, Decoration::LinkageAttributes as u32],
                &name,
                &[kind as u32],
            );
        }
    }
}
