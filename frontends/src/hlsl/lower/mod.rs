//! Lowering, part 1: the typed program to IR. Types, globals (constant buffers, resources,
//! statics with `init_globals`, groupshared memory, push constants, specialization
//! constants), functions and statements. Expressions are in `expr.rs`, the entry
//! wrapper and stage IO in `entry.rs`.
//!
//! Conventions (docs/ARCHITECTURE.md §4): every HLSL local is a `var` in its function's
//! entry block; `out`/`inout` parameters are pointers to function-local copies; loops have
//! the IR's single shape; `&&`, `||` and impure `?:` are control flow; nothing is lowered
//! after a `return`, `break`, `continue` or `discard`. Lowering never type-checks: semantic
//! analysis already made every conversion explicit.
//!
//! Diagnostic codes of lowering (documented in docs/diagnostics.md):
//!
//! | code | meaning |
//! |---|---|
//! | OSH1040 | a construct the IR or SPIR-V cannot express from this program (named in the message) |

pub(crate) mod entry;
pub(crate) mod expr;
pub(crate) mod intrinsics;
pub(crate) mod positions;
pub(crate) mod resource_returns;
pub(crate) mod resources;
pub(crate) mod stage;

use oneshader_ir::debug_scopes::DebugScopeData;
use oneshader_ir::diag::{Diagnostic, Span};
use oneshader_ir::positions::takes_declaration_position;
use oneshader_ir::{
    AddressSpace, Block, Builder, Dim, Func, ImageFormat, InstId, Module, Op, Stage, TextureAccess,
    TextureDesc,
};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::hlsl::lower::entry::{EntryParam, SplitNode, StreamInfo};
use crate::hlsl::sema::bindings::{self, Bindings};
use crate::hlsl::sema::hir::*;

/// How a local is held during lowering.
#[derive(Clone, Copy, Debug)]
pub(crate) enum LocalSlot {
    /// A `var` (or a pointer parameter) holding the value.
    Ptr(InstId),
    /// A resource: the pointer of the resource it names.
    Resource(InstId),
    /// A geometry shader's output stream: its staging variable and emit function (`None`
    /// in a function that receives a stream, which uses the program's only stream).
    Stream(Option<StreamInfo>),
    /// A mesh shader's output array: the split outputs (an index into `split_nodes`).
    Split(usize),
    /// Not materialized.
    None,
}

/// A break/continue target.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Target {
    Loop {
        brk: Block,
        cont: Block,
    },
    Switch {
        merge: Block,
    },
    /// The body of a do-while that uses `continue`: it runs inside a run-once loop whose
    /// break block is the test; `break` sets `flag` first.
    DoWhile {
        test: Block,
        flag: InstId,
    },
}

/// Per-function state.
pub(crate) struct FnState {
    pub func: Func,
    pub entry: Block,
    pub cur: Option<Block>,
    pub locals: Vec<LocalSlot>,
    /// `precise` locals: the arithmetic stored into them is decorated `precise`.
    pub precise: Vec<bool>,
    pub targets: Vec<Target>,
    /// How many run-time branches (an `if` of a non-constant condition, a loop body, a
    /// `switch` case) enclose the statement being lowered.
    pub branch_depth: u32,
    /// The branch depth each local was declared at: a resource local given a resource
    /// deeper than that would name different resources on different paths, which the alias
    /// scheme ([`LocalSlot::Resource`]) cannot state.
    pub declared_depth: FxHashMap<u32, u32>,
    /// The HLSL function being lowered (`None` for the entry wrapper and initializers).
    pub hir: Option<FuncId>,
    /// The branch depth at which each resource local was last given its resource: leaving
    /// that branch makes the local name different resources on different paths.
    pub alias_depth: FxHashMap<u32, u32>,
    /// Resource locals that name different resources on different paths (a use is refused).
    pub ambiguous: FxHashSet<u32>,
}

/// How an HLSL matrix is represented in the IR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MatRep {
    /// 1x1: a scalar.
    Scalar,
    /// One row or one column: a vector.
    Vec,
    /// A float matrix: `mat<T, r, c>`.
    Mat,
    /// An integer or bool matrix: `array<vec<T, c>, r>` (SPIR-V has only float matrices).
    Rows,
}

/// The lowerer.
pub(crate) struct Lower<'p> {
    pub p: &'p Program,
    pub m: Module,
    pub diags: Vec<Diagnostic>,
    pub structs: FxHashMap<StructId, InstId>,
    /// HIR field index to IR field index, for structs whose IR fields are in another order.
    pub field_order: FxHashMap<StructId, Vec<u32>>,
    /// The `{u32, texel}` result structs of sparse texture reads, by texel type.
    pub sparse_structs: FxHashMap<InstId, InstId>,
    /// The table of standard sample positions (`GetSamplePosition`), made on first use.
    pub sample_positions: Option<InstId>,
    pub globals: FxHashMap<GlobalId, InstId>,
    pub funcs: FxHashMap<FuncId, Func>,
    pub counters: FxHashMap<GlobalId, InstId>,
    /// The views of `ResourceDescriptorHeap` (IR globals).
    pub heap_views: FxHashSet<InstId>,
    /// The counters of the resource heap's buffers, made on first use
    /// ([`Lower::heap_counter`]).
    pub heap_counter: Option<InstId>,
    pub bindings: Bindings,
    pub init_fn: Option<Func>,
    pub f: Option<FnState>,
    /// Globals that need a counter.
    pub needs_counter: Vec<bool>,
    /// Options.
    pub opts: LowerOptions,
    /// The stage of the entry point whose IO is being lowered (stage-IO classification).
    pub stage: Stage,
    /// The entry points' stages.
    pub entry_stages: FxHashMap<FuncId, Stage>,
    /// Geometry streams by (entry point, parameter).
    pub streams: FxHashMap<(FuncId, LocalId), StreamInfo>,
    /// Every geometry stream of the program.
    pub all_streams: Vec<StreamInfo>,
    /// The split outputs of mesh shaders.
    pub split_nodes: Vec<SplitNode>,
    /// Mesh output parameters by (entry point, parameter): their split node.
    pub mesh_outputs: FxHashMap<(FuncId, LocalId), usize>,
    /// Ray-tracing entry points' payload, callable-data and attribute globals, by (entry
    /// point, address space).
    pub entry_ray_globals: FxHashMap<(FuncId, u32), InstId>,
    /// Mesh shaders' payload globals, by IR type.
    pub mesh_payloads: FxHashMap<InstId, InstId>,
    /// Built-in input globals read by intrinsics, by built-in.
    pub builtin_inputs: FxHashMap<u32, InstId>,
    /// `groupshared` globals passed to `DispatchMesh`: they live in `task_payload` memory.
    pub task_payloads: FxHashSet<GlobalId>,
    /// The globals `TraceRay`, `CallShader` and `ReportHit` pass data through, by (address
    /// space, IR type).
    pub ray_data: FxHashMap<(u32, InstId), InstId>,
    /// The function whose body is being lowered.
    pub cur_func: Option<FuncId>,
    /// The stages of the entry points that reach each function.
    pub func_stages: FxHashMap<FuncId, Vec<Stage>>,
    /// The entry-point functions that reach each function.
    pub func_entries: FxHashMap<FuncId, Vec<FuncId>>,
    /// The attribute type (IR type and HLSL type) of the hits each intersection entry point
    /// reports, from its first `ReportHit`: Vulkan allows one hit-attribute variable per
    /// entry point.
    pub hit_attributes: FxHashMap<FuncId, (InstId, TyId)>,
    /// The HLSL position each instruction was lowered from.
    pub positions: crate::hlsl::lower::positions::Positions,
}

/// What lowering produced: the module (`None` after errors), the diagnostics, and the HLSL
/// position of each instruction that has one.
pub(crate) type Lowered = (Option<Module>, Vec<Diagnostic>, Vec<(InstId, Span)>);

/// Options of lowering (dxc's `-fvk-*` options).
#[derive(Clone, Debug, Default)]
pub struct LowerOptions {
    /// `-fvk-invert-y`: negate `SV_Position.y` written by a vertex shader.
    pub invert_y: bool,
    /// `-fvk-use-dx-position-w`: a pixel shader's `SV_Position.w` is `1 / w` (D3D's meaning).
    pub dx_position_w: bool,
    /// `-fvk-support-nonzero-base-instance`: a vertex shader's `SV_InstanceID` is
    /// `InstanceIndex - BaseInstance`.
    pub nonzero_base_instance: bool,
    /// `-fvk-support-nonzero-base-vertex`: a vertex shader's `SV_VertexID` is
    /// `VertexIndex - BaseVertex`.
    pub nonzero_base_vertex: bool,
    /// `-fvk-{b,t,s,u}-shift`.
    pub binding_shifts: Vec<crate::hlsl::sema::bindings::BindingShift>,
    /// `-auto-binding-space N`.
    pub default_space: Option<u32>,
    /// `-fspv-use-unknown-image-format`: storage textures and texel buffers without
    /// `[[vk::image_format]]` keep the Unknown format instead of DXC's inferred one.
    pub unknown_image_format: bool,
    /// `-fvk-auto-shift-bindings` (see [`bindings::BindingOptions::auto_shift`]).
    pub auto_shift_bindings: bool,
    /// `-fspv-flatten-resource-arrays` (see [`bindings::BindingOptions::flatten_arrays`]).
    pub flatten_resource_arrays: bool,
    /// `-fvk-bind-register`.
    pub bind_registers: Vec<crate::hlsl::sema::bindings::RegisterBinding>,
    /// `-fvk-bind-globals BINDING SET`: (binding, set).
    pub bind_globals: Option<(u32, u32)>,
    /// `-fvk-bind-resource-heap BINDING SET`: (binding, set).
    pub bind_resource_heap: Option<(u32, u32)>,
    /// `-fvk-bind-sampler-heap BINDING SET`: (binding, set).
    pub bind_sampler_heap: Option<(u32, u32)>,
    /// `-fvk-bind-counter-heap BINDING SET`: (binding, set).
    pub bind_counter_heap: Option<(u32, u32)>,
    /// `-fvk-use-dx-layout` (see [`crate::hlsl::CompileOptions::dx_layout`]).
    pub dx_layout: bool,
    /// `-fspv-preserve-bindings` (see [`crate::hlsl::CompileOptions::preserve_bindings`]).
    pub preserve_bindings: bool,
    /// Functions declared without a body that are called become imports (and `export`
    /// functions exports) for linking, instead of an error (see
    /// [`crate::hlsl::CompileOptions::allow_imports`]). Libraries (`lib_*`) always export; they
    /// import only with this set.
    pub allow_imports: bool,
}

impl<'p> Lower<'p> {
    pub fn new(p: &'p Program, opts: LowerOptions) -> Lower<'p> {
        Lower {
            p,
            opts,
            m: Module::new(),
            diags: Vec::new(),
            structs: FxHashMap::default(),
            field_order: FxHashMap::default(),
            sparse_structs: FxHashMap::default(),
            sample_positions: None,
            globals: FxHashMap::default(),
            funcs: FxHashMap::default(),
            counters: FxHashMap::default(),
            heap_views: FxHashSet::default(),
            heap_counter: None,
            bindings: Bindings::default(),
            init_fn: None,
            f: None,
            needs_counter: vec![false; p.globals.len()],
            stage: p.entries.first().map_or(Stage::Fragment, |e| e.1),
            entry_stages: p.entries.iter().copied().collect(),
            streams: FxHashMap::default(),
            all_streams: Vec::new(),
            split_nodes: Vec::new(),
            mesh_outputs: FxHashMap::default(),
            entry_ray_globals: FxHashMap::default(),
            mesh_payloads: FxHashMap::default(),
            builtin_inputs: FxHashMap::default(),
            task_payloads: FxHashSet::default(),
            ray_data: FxHashMap::default(),
            cur_func: None,
            func_stages: FxHashMap::default(),
            func_entries: FxHashMap::default(),
            hit_attributes: FxHashMap::default(),
            positions: Default::default(),
        }
    }

    /// True when prototypes become imports and `export` functions exports.
    pub fn linkable(&self) -> bool {
        self.p.library || self.opts.allow_imports
    }

    /// Reports a lowering error (once per span and message).
    pub fn error(&mut self, span: Span, msg: impl Into<String>) {
        let msg = msg.into();
        if self
            .diags
            .iter()
            .any(|d| d.span == Some(span) && d.message == msg)
        {
            return;
        }
        self.diags
            .push(Diagnostic::error("OSH1040", msg).with_span(span));
    }

    // ---- types --------------------------------------------------------------------------------

    pub fn types(&self) -> &'p Types {
        &self.p.types
    }

    /// The IR scalar type of an HLSL scalar.
    pub fn scalar_ir(&mut self, s: Scalar) -> InstId {
        let op = match s {
            Scalar::Bool => Op::Bool,
            Scalar::I16 => Op::I16,
            Scalar::U16 => Op::U16,
            Scalar::I32 | Scalar::LitInt => Op::I32,
            Scalar::U32 => Op::U32,
            Scalar::I64 => Op::I64,
            Scalar::U64 => Op::U64,
            Scalar::F16 => Op::F16,
            Scalar::F32 | Scalar::LitFloat => Op::F32,
            Scalar::F64 => Op::F64,
        };
        self.m.scalar_type(op)
    }

    /// The representation of a matrix shape.
    pub fn mat_rep(s: Scalar, r: u8, c: u8) -> MatRep {
        if r == 1 && c == 1 {
            MatRep::Scalar
        } else if r == 1 || c == 1 {
            MatRep::Vec
        } else if s.is_float() {
            MatRep::Mat
        } else {
            MatRep::Rows
        }
    }

    /// The IR type of an HLSL type.
    pub fn ir_ty(&mut self, t: TyId) -> InstId {
        match self.types().kind(t).clone() {
            // Sema refuses every value of a `vk::SampledTexture*` type (its global is a texture).
            TyKind::Error
            | TyKind::Void
            | TyKind::String
            | TyKind::Unsupported(_)
            | TyKind::HeapElement(_)
            | TyKind::SampledTexture(..) => self.m.void_type(),
            TyKind::Scalar(s) | TyKind::Vector(s, 1) => self.scalar_ir(s),
            TyKind::Vector(s, n) => {
                let e = self.scalar_ir(s);
                self.m.vector_type(e, n as u32)
            }
            TyKind::Matrix(s, r, c) => {
                let e = self.scalar_ir(s);
                match Self::mat_rep(s, r, c) {
                    MatRep::Scalar => e,
                    MatRep::Vec => self.m.vector_type(e, r.max(c) as u32),
                    MatRep::Mat => self.m.matrix_type(e, r as u32, c as u32),
                    MatRep::Rows => {
                        let v = self.m.vector_type(e, c as u32);
                        self.m.array_type(v, r as u32)
                    }
                }
            }
            TyKind::Array(e, n) => {
                let et = self.ir_ty(e);
                self.m.array_type(et, n)
            }
            TyKind::UnsizedArray(e) => {
                let et = self.ir_ty(e);
                self.m.runtime_array_type(et)
            }
            TyKind::Struct(sid) => self.struct_ir(sid),
            TyKind::Texture(shape, e, rw) => self.texture_ir(shape, e, rw, ImageFormat::Unknown),
            TyKind::Buffer(kind, e) => match kind {
                BufKind::ByteAddress | BufKind::RWByteAddress => {
                    let u = self.m.u32_type();
                    self.m.runtime_array_type(u)
                }
                BufKind::Constant | BufKind::TextureBuffer => self.ir_ty(e),
                _ => {
                    let et = self.ir_ty(e);
                    self.m.runtime_array_type(et)
                }
            },
            TyKind::Sampler(false) => self.m.sampler_type(),
            TyKind::Sampler(true) => self.m.sampler_cmp_type(),
            TyKind::AccelStruct => self.m.accel_struct_type(),
            TyKind::RayQuery(_) => self.m.ray_query_type(),
            // Streams are not values: `Append` reaches the stream's own globals.
            TyKind::Stream(..) => self.m.void_type(),
        }
    }

    /// The IR texture type.
    pub fn texture_ir(
        &mut self,
        shape: TexShape,
        e: TyId,
        rw: bool,
        format: ImageFormat,
    ) -> InstId {
        let sampled_type = match self.types().kind(e) {
            // `bool` texels are `uint` in the texture (reads compare with 0).
            TyKind::Scalar(Scalar::Bool) => self.m.u32_type(),
            TyKind::Vector(Scalar::Bool, n) => {
                let (u, n) = (self.m.u32_type(), u32::from(*n));
                self.m.vector_type(u, n)
            }
            TyKind::Scalar(_) | TyKind::Vector(..) => self.ir_ty(e),
            _ => {
                let f = self.m.f32_type();
                self.m.vector_type(f, 4)
            }
        };
        let dim = match shape {
            TexShape::T1D | TexShape::T1DArray => Dim::D1,
            TexShape::T2D | TexShape::T2DArray | TexShape::T2DMS | TexShape::T2DMSArray => Dim::D2,
            TexShape::T3D => Dim::D3,
            TexShape::Cube | TexShape::CubeArray => Dim::Cube,
            TexShape::Buffer => Dim::Buffer,
            TexShape::Subpass | TexShape::SubpassMS => Dim::SubpassData,
        };
        // DXC's format inference: storage textures and texel buffers (`Buffer<T>` too) of
        // one, two or four 32-bit components get the format of that texel (`float4`
        // Rgba32f, `uint2` Rg32ui, `int` R32i; three components stay Unknown), 64-bit
        // integer scalars R64i/R64ui. `[[vk::image_format]]` overrides;
        // `-fspv-use-unknown-image-format` keeps Unknown.
        let inferable = rw || shape == TexShape::Buffer;
        let format = match (inferable, format, self.types().kind(e)) {
            (true, ImageFormat::Unknown, _) if self.opts.unknown_image_format => format,
            (true, ImageFormat::Unknown, TyKind::Scalar(s) | TyKind::Vector(s, 1)) => match s {
                Scalar::F32 => ImageFormat::R32f,
                Scalar::I32 => ImageFormat::R32i,
                // `bool` texels are `uint` in the texture.
                Scalar::U32 | Scalar::Bool => ImageFormat::R32ui,
                Scalar::I64 => ImageFormat::R64i,
                Scalar::U64 => ImageFormat::R64ui,
                _ => format,
            },
            (true, ImageFormat::Unknown, TyKind::Vector(s, n @ (2 | 4))) => match (s, n) {
                (Scalar::F32, 2) => ImageFormat::Rg32f,
                (Scalar::I32, 2) => ImageFormat::Rg32i,
                (Scalar::U32, 2) => ImageFormat::Rg32ui,
                (Scalar::F32, _) => ImageFormat::Rgba32f,
                (Scalar::I32, _) => ImageFormat::Rgba32i,
                (Scalar::U32, _) => ImageFormat::Rgba32ui,
                _ => format,
            },
            _ => format,
        };
        self.m.texture_type(TextureDesc {
            sampled_type,
            dim,
            arrayed: shape.arrayed(),
            multisampled: shape.ms(),
            depth: 0,
            access: if rw {
                TextureAccess::Storage
            } else {
                TextureAccess::Sampled
            },
            format,
        })
    }

    /// True when the IR form of `t` contains a `mat` (majorness decorations apply).
    pub fn has_ir_matrix(&self, t: TyId) -> bool {
        match self.types().kind(t) {
            TyKind::Matrix(s, r, c) => Self::mat_rep(*s, *r, *c) == MatRep::Mat,
            TyKind::Array(e, _) | TyKind::UnsizedArray(e) => self.has_ir_matrix(*e),
            // `StructuredBuffer<float3x3>`: the global's order is its elements'.
            TyKind::Buffer(_, e) => self.has_ir_matrix(*e),
            _ => false,
        }
    }

    fn major_deco(&mut self, target: InstId, major: Option<Major>) {
        let op = match major.unwrap_or(self.p.default_major) {
            Major::Row => Op::RowMajor,
            Major::Column => Op::ColMajor,
        };
        self.m.decorate(target, op, &[]);
    }

    /// The IR struct of an HLSL struct (made once).
    pub fn struct_ir(&mut self, sid: StructId) -> InstId {
        if let Some(&s) = self.structs.get(&sid) {
            return s;
        }
        let def = self.types().struct_def(sid);
        let name = def.name.replace(['<', '>', ',', ' '], "_");
        let s = self.m.add_struct(&name, &[]);
        self.structs.insert(sid, s.id());
        // Declared where the source declares it (a built-in struct is declared nowhere).
        if def.span.end > def.span.start {
            self.m.set_position(s.id(), Some(def.span));
        }
        // Each base is one field (DXC's representation, so a base is padded like a member);
        // its fields are the first ones of the HIR's flattened list.
        let mut own = 0;
        for &b in &def.bases {
            let bt = self.struct_ir(b);
            let bdef = self.types().struct_def(b);
            own += bdef.fields.len();
            self.m
                .add_field(s, &bdef.name.replace(['<', '>', ',', ' '], "_"), bt);
        }
        // `$Globals` members with `register(cN)` come first, in register order, at 16 N
        // bytes; the others follow the last of them in declaration order (DXC's layout).
        let mut order: Vec<usize> = (own..def.fields.len()).collect();
        if def.fields.iter().any(|f| f.register_c.is_some()) {
            order.sort_by_key(|&i| match def.fields[i].register_c {
                Some(k) => (0, k, i),
                None => (1, 0, i),
            });
            let mut to_ir = vec![0u32; order.len()];
            for (ir, &hir) in order.iter().enumerate() {
                to_ir[hir - own] = ir as u32;
            }
            self.field_order.insert(sid, to_ir);
        }
        for i in order {
            let f = &def.fields[i];
            let fty = self.ir_ty(f.ty);
            let field = self.m.add_field(s, &f.name, fty);
            if self.has_ir_matrix(f.ty) {
                self.major_deco(field.id(), f.major);
            }
            let offset = f.register_c.map(|k| k * 16).or(f.offset);
            if let Some(off) = offset {
                self.m.decorate_imm(field.id(), Op::Offset, &[off]);
            }
        }
        s.id()
    }

    /// A matrix inside `ty` whose stored vectors have one component (a column-major
    /// `float1xN`, a row-major `floatNx1`), described for a diagnostic with the member path to
    /// it: D3D's constant-buffer packing gives each of those components a register of its own.
    fn register_per_component(
        &self,
        ty: TyId,
        major: Option<Major>,
        depth: u32,
    ) -> Option<(String, Vec<String>)> {
        if depth > 64 {
            return None;
        }
        match self.types().kind(ty) {
            TyKind::Matrix(_, r, c) if (*r == 1) != (*c == 1) => {
                let row_major = major.unwrap_or(self.p.default_major) == Major::Row;
                let one = if row_major { *c == 1 } else { *r == 1 };
                one.then(|| {
                    let order = if row_major {
                        "row-major"
                    } else {
                        "column-major"
                    };
                    (format!("a {order} `{}`", self.types().name(ty)), Vec::new())
                })
            }
            TyKind::Array(e, _) | TyKind::UnsizedArray(e) => {
                self.register_per_component(*e, major, depth + 1)
            }
            TyKind::Struct(sid) => self.types().struct_def(*sid).fields.iter().find_map(|f| {
                let (what, mut path) = self.register_per_component(f.ty, f.major, depth + 1)?;
                path.insert(0, f.name.clone());
                Some((what, path))
            }),
            _ => None,
        }
    }

    /// The IR path of field `i` of struct type `ty`: the HIR flattens base structs into the
    /// field list, the IR nests each base as a field (see [`Lower::struct_ir`]), and a
    /// `$Globals` with `register(cN)` members has its fields in another order.
    pub fn field_path(&self, ty: TyId, i: u32) -> Vec<u32> {
        match self.types().kind(ty) {
            TyKind::Struct(sid) => self.field_path_of(*sid, i),
            _ => vec![i],
        }
    }

    fn field_path_of(&self, sid: StructId, i: u32) -> Vec<u32> {
        let def = self.types().struct_def(sid);
        let mut i = i;
        for (k, &b) in def.bases.iter().enumerate() {
            let n = self.types().struct_def(b).fields.len() as u32;
            if i < n {
                let mut p = vec![k as u32];
                p.extend(self.field_path_of(b, i));
                return p;
            }
            i -= n;
        }
        let nb = def.bases.len() as u32;
        let i = self
            .field_order
            .get(&sid)
            .and_then(|o| o.get(i as usize).copied())
            .unwrap_or(i);
        vec![nb + i]
    }

    /// The IR path from a `derived` struct to its (direct or indirect) base `base`.
    pub fn base_path(&self, derived: StructId, base: StructId) -> Option<Vec<u32>> {
        if derived == base {
            return Some(Vec::new());
        }
        let def = self.types().struct_def(derived);
        for (k, &b) in def.bases.iter().enumerate() {
            if let Some(mut rest) = self.base_path(b, base) {
                rest.insert(0, k as u32);
                return Some(rest);
            }
        }
        None
    }

    /// A value of struct `sid` from the values of its (HIR, flattened) fields.
    pub fn struct_value(&mut self, sid: StructId, parts: &[InstId]) -> InstId {
        let t = self.struct_ir(sid);
        let bases = self.types().struct_def(sid).bases.clone();
        if bases.is_empty() {
            return self.construct(t, parts);
        }
        let mut ir = Vec::new();
        let mut at = 0;
        for b in bases {
            let n = self.types().struct_def(b).fields.len();
            let end = (at + n).min(parts.len());
            ir.push(self.struct_value(b, &parts[at..end]));
            at = end;
        }
        ir.extend_from_slice(&parts[at..]);
        self.construct(t, &ir)
    }

    /// A scalar constant of HLSL scalar type `s`.
    pub fn const_scalar(&mut self, s: Scalar, v: ConstVal) -> InstId {
        let t = self.scalar_ir(s);
        match s {
            Scalar::Bool => self.m.const_bool(v.as_bool()),
            Scalar::F16 => {
                let bits = f64_to_f16_bits(v.as_float());
                self.m.const_float_bits(t, bits as u64)
            }
            Scalar::F32 | Scalar::LitFloat => self
                .m
                .const_float_bits(t, (v.as_float() as f32).to_bits() as u64),
            Scalar::F64 => self.m.const_float_bits(t, v.as_float().to_bits()),
            _ => self.m.const_int(t, v.as_int() as u64),
        }
    }

    // ---- the program --------------------------------------------------------------------------

    /// Lowers the whole program; `None` when an error was reported.
    /// Lowers the program: the module (`None` after errors), the diagnostics, and the HLSL
    /// position of each instruction that has one.
    pub fn run(mut self) -> Lowered {
        let (funcs, mut globals) = self.reachable();
        if !self.diags.is_empty() {
            return (None, self.diags, Vec::new());
        }
        self.find_task_payloads(&funcs);
        if self.opts.preserve_bindings {
            // Every descriptor the program declares, used or not (those the IR cannot
            // express are left out: unused, they need not be refused).
            for i in 0..self.p.globals.len() {
                let g = GlobalId(i as u32);
                let kind = &self.p.global(g).kind;
                if matches!(
                    kind,
                    GlobalKind::Resource | GlobalKind::CBuffer { .. } | GlobalKind::PushConstant
                ) && !globals.contains(&g)
                    && self.global_layout(g).is_some()
                {
                    globals.insert(g);
                }
            }
        }
        // Counters are needed by append/consume buffers and by structured buffers whose
        // counter is used.
        for &g in &globals {
            let gd = self.p.global(g);
            if let TyKind::Buffer(BufKind::Append | BufKind::Consume, _) = self.types().kind(gd.ty)
            {
                self.needs_counter[g.0 as usize] = true;
            }
        }
        let mut counted = Vec::new();
        // A counter used through something other than a buffer global (an element of
        // `ResourceDescriptorHeap`, a local holding one, a function's result).
        let mut counted_elsewhere = false;
        for &f in &funcs {
            for s in self.p.func(f).body.iter().flatten() {
                stmt_exprs(s, &mut |e| {
                    crate::hlsl::sema::stmt::visit(e, &mut |x| {
                        if let ExprKind::Method(
                            ResMethod::IncrementCounter
                            | ResMethod::DecrementCounter
                            | ResMethod::Append
                            | ResMethod::Consume,
                            o,
                            _,
                        ) = &x.kind
                        {
                            match o.kind {
                                ExprKind::Global(g) => counted.push(g),
                                _ => counted_elsewhere = true,
                            }
                        }
                    })
                });
            }
        }
        for g in counted {
            self.needs_counter[g.0 as usize] = true;
        }
        // The resource heap's buffers then have counters: DXC's counter array beside the heap.
        if counted_elsewhere {
            for &g in &globals {
                let gd = self.p.global(g);
                if gd.bind.heap == Some(false)
                    && matches!(
                        self.types().kind(self.strip_arrays(gd.ty)),
                        TyKind::Buffer(
                            BufKind::RWStructured | BufKind::Append | BufKind::Consume,
                            _
                        )
                    )
                {
                    self.needs_counter[g.0 as usize] = true;
                }
            }
        }
        let bopts = bindings::BindingOptions {
            shifts: &self.opts.binding_shifts,
            default_space: self.opts.default_space.unwrap_or(0),
            registers: &self.opts.bind_registers,
            globals: self.opts.bind_globals,
            auto_shift: self.opts.auto_shift_bindings,
            flatten_arrays: self.opts.flatten_resource_arrays,
            resource_heap: self.opts.bind_resource_heap,
            sampler_heap: self.opts.bind_sampler_heap,
            counter_heap: self.opts.bind_counter_heap,
        };
        self.bindings =
            bindings::assign(self.types(), &self.p.globals, &self.needs_counter, &bopts);
        for (i, msg) in std::mem::take(&mut self.bindings.errors) {
            let span = self.p.globals[i].span;
            self.diags
                .push(Diagnostic::error("OSH1031", msg).with_span(span));
        }
        // Declare every function first so calls (also from static initializers) can name
        // them.
        let mut fl: Vec<FuncId> = funcs.iter().copied().collect();
        fl.sort();
        for &f in &fl {
            self.declare_func(f);
        }
        // Globals in declaration order (initializers run in that order).
        let mut gl: Vec<GlobalId> = globals.iter().copied().collect();
        gl.sort();
        for g in gl {
            self.global_ptr(g);
        }
        let entries = self.p.entries.clone();
        for &(e, stage) in &entries {
            self.prepare_entry(e, stage);
        }
        for &f in &fl {
            self.lower_func(f);
        }
        self.finish_init_globals();
        for &(e, stage) in &entries {
            self.lower_entry(e, stage);
        }
        if self.diags.iter().any(|d| d.is_error()) {
            return (None, self.diags, Vec::new());
        }
        let positions = self.positions.finish(&self.m);
        for &(i, origin) in &positions {
            self.m.set_origin(i, Some(origin));
        }
        declare_at_first_use(&mut self.m);
        // The instructions' and the declarations' (functions, globals), as the module has them.
        let mut positions: Vec<(InstId, Span)> = self.m.positions().collect();
        positions.sort_by_key(|&(i, _)| i.slot_number());
        (Some(self.m), self.diags, positions)
    }

    /// The module's last item now: [`Lower::declare_new_items`] places what is made after it.
    pub(crate) fn item_mark(&self) -> Option<InstId> {
        self.m.last_child(self.m.root())
    }

    /// Gives every function and global made after `mark` (items are appended to the module)
    /// that has no position yet the declaration position `at`.
    pub(crate) fn declare_new_items(&mut self, mark: Option<InstId>, at: Span) {
        let root = self.m.root();
        let mut next = match mark {
            Some(x) if self.m.contains(x) && self.m.parent(x) == Some(root) => {
                self.m.next_sibling(x)
            }
            Some(_) => return,
            None => self.m.first_child(root),
        };
        while let Some(i) = next {
            if takes_declaration_position(self.m.op(i)) && self.m.position(i).is_none() {
                self.m.set_position(i, Some(at));
            }
            next = self.m.next_sibling(i);
        }
    }

    /// Functions reachable from the entry point and the globals they (and the initializers
    /// of those globals) use; reports recursion.
    fn reachable(&mut self) -> (FxHashSet<FuncId>, FxHashSet<GlobalId>) {
        let mut funcs = FxHashSet::default();
        let mut globals = FxHashSet::default();
        // The entry points, the patch-constant functions of hull entry points, and (when
        // linking) the exports.
        let mut roots: Vec<FuncId> = self.p.entries.iter().map(|e| e.0).collect();
        for &(e, stage) in &self.p.entries {
            if stage == Stage::Hull
                && let Some((name, _)) = &self.p.func(e).attrs.patch_constant_func
                && let Some(i) = self
                    .p
                    .funcs
                    .iter()
                    .position(|f| &f.name == name && f.body.is_some() && f.method_of.is_none())
            {
                roots.push(FuncId(i as u32));
            }
        }
        if self.linkable() {
            for (i, f) in self.p.funcs.iter().enumerate() {
                if f.export && f.body.is_some() {
                    roots.push(FuncId(i as u32));
                }
            }
        }
        let mut work = roots.clone();
        let mut gwork: Vec<GlobalId> = Vec::new();
        let mut calls: FxHashMap<FuncId, Vec<FuncId>> = FxHashMap::default();
        while !work.is_empty() || !gwork.is_empty() {
            if let Some(f) = work.pop() {
                if !funcs.insert(f) {
                    continue;
                }
                let mut fs = Vec::new();
                let mut gs = Vec::new();
                let fd = self.p.func(f);
                if let Some(body) = &fd.body {
                    for s in body {
                        uses_stmt(s, &mut fs, &mut gs);
                    }
                } else if !self.opts.allow_imports {
                    // Libraries export without it (SPIR-V keeps exported functions as plain
                    // functions), but an import left in a module bound for SPIR-V would only
                    // be refused by the backend, far from the source.
                    self.diags.push(
                        Diagnostic::error(
                            "OSH1026",
                            format!("`{}` is called but never defined", fd.name),
                        )
                        .with_span(fd.span)
                        .with_note(
                            "to link it from a separately compiled module, compile with \
                             `--target osir` (or `ir`) and `oneshader link`",
                        ),
                    );
                }
                for p in &fd.params {
                    if let Some(d) = &p.default {
                        uses_expr(d, &mut fs, &mut gs);
                    }
                }
                calls.insert(f, fs.clone());
                work.extend(fs);
                gwork.extend(gs);
            } else if let Some(g) = gwork.pop() {
                if !globals.insert(g) {
                    continue;
                }
                if let Some(init) = &self.p.global(g).init {
                    let mut fs = Vec::new();
                    let mut gs = Vec::new();
                    uses_expr(init, &mut fs, &mut gs);
                    work.extend(fs);
                    gwork.extend(gs);
                }
            }
        }
        // The stages reaching each function.
        let mut stages: FxHashMap<FuncId, Vec<Stage>> = FxHashMap::default();
        let mut entries: FxHashMap<FuncId, Vec<FuncId>> = FxHashMap::default();
        for (i, &root) in roots.iter().enumerate() {
            let is_entry = i < self.p.entries.len();
            // Roots past the entry points are patch-constant functions (of the hull entry
            // points) and exports (reached by nothing in particular).
            let stage = match self.p.entries.get(i) {
                Some(&(_, s)) => s,
                None if self.p.func(root).attrs.shader.is_none() && !self.p.func(root).export => {
                    Stage::Hull
                }
                None => continue,
            };
            let mut seen = FxHashSet::default();
            let mut work = vec![root];
            while let Some(f) = work.pop() {
                if !seen.insert(f) {
                    continue;
                }
                let list = stages.entry(f).or_default();
                if !list.contains(&stage) {
                    list.push(stage);
                }
                if is_entry {
                    entries.entry(f).or_default().push(root);
                }
                work.extend(calls.get(&f).into_iter().flatten().copied());
            }
        }
        self.func_stages = stages;
        self.func_entries = entries;
        // Recursion check (iterative DFS with colors, from every root).
        let mut color: FxHashMap<FuncId, u8> = FxHashMap::default();
        for root in roots {
            if color.contains_key(&root) {
                continue;
            }
            let mut stack: Vec<(FuncId, usize)> = vec![(root, 0)];
            color.insert(root, 1);
            if let Some(found) = self.find_recursion(&calls, &mut color, &mut stack) {
                let fd = self.p.func(found);
                self.diags.push(
                    Diagnostic::error(
                        "OSH1027",
                        format!(
                            "`{}` is recursive; HLSL and SPIR-V forbid recursion",
                            fd.name
                        ),
                    )
                    .with_span(fd.span),
                );
                return (funcs, globals);
            }
        }
        (funcs, globals)
    }

    /// The depth-first walk of the recursion check: the first function found on a cycle.
    fn find_recursion(
        &self,
        calls: &FxHashMap<FuncId, Vec<FuncId>>,
        color: &mut FxHashMap<FuncId, u8>,
        stack: &mut Vec<(FuncId, usize)>,
    ) -> Option<FuncId> {
        while let Some((f, i)) = stack.pop() {
            let callees = calls.get(&f).cloned().unwrap_or_default();
            if i < callees.len() {
                stack.push((f, i + 1));
                let c = callees[i];
                match color.get(&c).copied().unwrap_or(0) {
                    0 => {
                        color.insert(c, 1);
                        stack.push((c, 0));
                    }
                    1 => return Some(c),
                    _ => {}
                }
            } else {
                color.insert(f, 2);
            }
        }
        None
    }

    /// The `groupshared` globals amplification shaders pass to `DispatchMesh`: they live in
    /// `task_payload` memory.
    fn find_task_payloads(&mut self, funcs: &FxHashSet<FuncId>) {
        let mut found = Vec::new();
        for &f in funcs {
            for s in self.p.func(f).body.iter().flatten() {
                stmt_exprs(s, &mut |e| {
                    crate::hlsl::sema::stmt::visit(e, &mut |x| {
                        if let ExprKind::Intrinsic(IntrinsicOp::DispatchMesh, args) = &x.kind
                            && let Some(ExprKind::Global(g)) = args.get(3).map(|a| &a.kind)
                        {
                            found.push(*g);
                        }
                    })
                });
            }
        }
        for g in found {
            if self.p.global(g).kind == GlobalKind::Groupshared {
                self.task_payloads.insert(g);
            }
        }
    }

    // ---- globals ------------------------------------------------------------------------------

    /// The address space and pointee of a resource-like global.
    fn global_layout(&mut self, g: GlobalId) -> Option<(AddressSpace, InstId)> {
        let gd = self.p.global(g);
        let ty = gd.ty;
        Some(match &gd.kind {
            GlobalKind::Static | GlobalKind::Const => (AddressSpace::Private, self.ir_ty(ty)),
            GlobalKind::Groupshared if self.task_payloads.contains(&g) => {
                (AddressSpace::TaskPayload, self.ir_ty(ty))
            }
            GlobalKind::Groupshared => (AddressSpace::Workgroup, self.ir_ty(ty)),
            GlobalKind::CBuffer { tbuffer } => {
                let space = if *tbuffer {
                    AddressSpace::StorageBuffer
                } else {
                    AddressSpace::Uniform
                };
                (space, self.ir_ty(ty))
            }
            GlobalKind::PushConstant => (AddressSpace::PushConstant, self.ir_ty(ty)),
            GlobalKind::ShaderRecord => (AddressSpace::ShaderRecord, self.ir_ty(ty)),
            GlobalKind::SpecConst { .. } => return None,
            GlobalKind::Resource => {
                let format = gd.bind.format.unwrap_or(ImageFormat::Unknown);
                let inner = self.resource_pointee(ty, format)?;
                let space = match self.types().kind(self.strip_arrays(ty)) {
                    TyKind::Buffer(..) => AddressSpace::StorageBuffer,
                    _ => AddressSpace::UniformConstant,
                };
                (space, inner)
            }
        })
    }

    /// The element type under array dimensions.
    pub fn strip_arrays(&self, mut ty: TyId) -> TyId {
        loop {
            match self.types().kind(ty) {
                TyKind::Array(e, _) | TyKind::UnsizedArray(e) => ty = *e,
                _ => return ty,
            }
        }
    }

    /// The pointee of a resource variable of HLSL type `ty` (arrays of resources included).
    pub fn resource_pointee(&mut self, ty: TyId, format: ImageFormat) -> Option<InstId> {
        Some(match self.types().kind(ty).clone() {
            TyKind::Texture(shape, e, rw) => self.texture_ir(shape, e, rw, format),
            TyKind::Sampler(_) | TyKind::AccelStruct => self.ir_ty(ty),
            TyKind::Buffer(..) => self.ir_ty(ty),
            // Arrays of structured and byte-address buffers are descriptor arrays; those of
            // append/consume buffers would need a counter per element.
            TyKind::Array(e, n) => {
                if matches!(
                    self.types().kind(e),
                    TyKind::Buffer(BufKind::Append | BufKind::Consume, _)
                ) {
                    return None;
                }
                let inner = self.resource_pointee(e, format)?;
                self.m.array_type(inner, n)
            }
            TyKind::UnsizedArray(e) => {
                if matches!(
                    self.types().kind(e),
                    TyKind::Buffer(BufKind::Append | BufKind::Consume, _)
                ) {
                    return None;
                }
                let inner = self.resource_pointee(e, format)?;
                self.m.runtime_array_type(inner)
            }
            _ => return None,
        })
    }

    /// The operands of `g`'s `hlsl_register` decoration: class (0 `b`, 1 `t`, 2 `s`, 3 `u`:
    /// the `register` letter, else what its type is bound as), number (`u32::MAX` without a
    /// `register`), space (the default space when the `register` names none; without a
    /// `register`, the set its binding went to) and
    /// whether the user chose its binding.
    fn hlsl_register(&self, g: GlobalId, set: u32) -> [u32; 4] {
        let gd = self.p.global(g);
        let default_space = self.opts.default_space.unwrap_or(0);
        let by_type = match bindings::register_class(self.types(), gd) {
            'b' => 0,
            's' => 2,
            'u' => 3,
            _ => 1,
        };
        let (class, number, space) = match gd.bind.register {
            Some((c, n, sp)) => {
                let class = match c.to_ascii_lowercase() {
                    'b' => 0,
                    't' => 1,
                    's' => 2,
                    'u' => 3,
                    _ => by_type,
                };
                (class, n, sp.unwrap_or(default_space))
            }
            // Without a register, the space is where DXC's rule put it.
            None => (by_type, u32::MAX, set),
        };
        let chosen = self
            .bindings
            .chosen
            .get(g.0 as usize)
            .copied()
            .unwrap_or(false);
        [class, number, space, u32::from(chosen)]
    }

    /// The IR global of `g` (created on first use, with its decorations).
    pub fn global_ptr(&mut self, g: GlobalId) -> Option<InstId> {
        if let Some(&x) = self.globals.get(&g) {
            return Some(x);
        }
        let gd = self.p.global(g);
        let Some((space, pointee)) = self.global_layout(g) else {
            if gd.kind == GlobalKind::Resource {
                let msg = format!(
                    "`{}` of type `{}` cannot be lowered (arrays of buffers and this resource type are not supported)",
                    gd.name,
                    self.types().name(gd.ty)
                );
                self.error(gd.span, msg);
            }
            return None;
        };
        if self.opts.dx_layout
            && matches!(gd.kind, GlobalKind::CBuffer { .. })
            && let Some((what, path)) = self.register_per_component(gd.ty, gd.major, 0)
        {
            let at = if path.is_empty() {
                String::new()
            } else {
                format!(" (member `{}`)", path.join("."))
            };
            let msg = format!(
                "`{}` holds {what}{at}: D3D's constant-buffer packing (-fvk-use-dx-layout) puts \
                 each of its components in its own 16-byte register, which OneShader does not \
                 lay out yet; declare it as a vector or an array",
                gd.name
            );
            // Reported once, however often the buffer is used.
            if !self
                .diags
                .iter()
                .any(|d| d.code == "OSH1018" && d.span == Some(gd.span))
            {
                self.diags
                    .push(Diagnostic::error("OSH1018", msg).with_span(gd.span));
            }
            return None;
        }
        let init = match (&gd.kind, &gd.init) {
            (GlobalKind::Static | GlobalKind::Const, Some(e)) => self.const_expr(e),
            // A `static` without an initializer starts at zero, as DXC stores a null constant
            // into it at the top of the entry point (dxc/var.static.hlsl); resources have no
            // value to start from.
            (GlobalKind::Static, None) if !self.types().contains_resource(gd.ty) => {
                Some(self.m.zero(pointee))
            }
            _ => None,
        };
        let name = gd.name.clone();
        let glob = self.m.add_global(&name, space, pointee, init);
        let id = glob.id();
        // Declared at its name (`oneshader_ir::positions`).
        self.m.set_position(id, Some(gd.name_span));
        self.globals.insert(g, id);
        if let Some(sb) = self.bindings.of.get(g.0 as usize).copied().flatten() {
            self.m.decorate_imm(id, Op::Binding, &[sb.0, sb.1]);
            let reg = self.hlsl_register(g, sb.0);
            self.m.decorate_imm(id, Op::HlslRegister, &reg);
            // The type's spelling for `-fspv-reflect`; DXC names only resources with a
            // binding.
            if let Some(t) = &self.p.global(g).user_type {
                let s = self.m.const_string(t);
                self.m.decorate(id, Op::UserType, &[s]);
            }
        }
        if self.has_ir_matrix(gd.ty) && !matches!(gd.kind, GlobalKind::CBuffer { .. }) {
            self.major_deco(id, gd.major);
        }
        let readonly = match &gd.kind {
            GlobalKind::CBuffer { tbuffer: true } => true,
            GlobalKind::Resource => matches!(
                self.types().kind(self.strip_arrays(gd.ty)),
                TyKind::Buffer(BufKind::Structured | BufKind::ByteAddress, _)
            ),
            _ => false,
        };
        if readonly {
            self.m.decorate(id, Op::ReadOnly, &[]);
        }
        if matches!(gd.kind, GlobalKind::CBuffer { tbuffer: true }) {
            self.m.decorate(id, Op::TextureBuffer, &[]);
        }
        if gd.bind.coherent {
            self.m.decorate(id, Op::Coherent, &[]);
        }
        if let Some(ia) = gd.bind.input_attachment {
            self.m.decorate_imm(id, Op::InputAttachmentIndex, &[ia]);
        }
        if gd.bind.heap == Some(false) {
            // Every view of the resource heap reaches its counters through one array.
            self.heap_views.insert(id);
        } else if self.needs_counter[g.0 as usize]
            && matches!(
                self.types().kind(gd.ty),
                TyKind::Array(..) | TyKind::UnsizedArray(_)
            )
        {
            // One counter per element would be needed.
            let msg = format!(
                "`{}`: counters of arrays of buffers (Append, Consume, IncrementCounter, \
                 DecrementCounter) are not supported",
                gd.name
            );
            self.error(gd.span, msg);
            return None;
        }
        if self.needs_counter[g.0 as usize] && gd.bind.heap.is_none() {
            let u = self.m.u32_type();
            let rt = self.m.runtime_array_type(u);
            let cname = format!("counter.var.{name}");
            let c = self
                .m
                .add_global(&cname, AddressSpace::StorageBuffer, rt, None);
            // The counter is declared with its buffer.
            self.m.set_position(c.id(), Some(gd.name_span));
            if let Some(&(s, b)) = self.bindings.counter.get(&g.0) {
                self.m.decorate_imm(c.id(), Op::Binding, &[s, b]);
                // A counter is a UAV of its own without a register.
                let chosen = u32::from(self.bindings.counter_chosen.contains(&g.0));
                self.m
                    .decorate_imm(c.id(), Op::HlslRegister, &[3, u32::MAX, s, chosen]);
            }
            self.m.decorate(id, Op::Counter, &[c.id()]);
            self.counters.insert(g, c.id());
        }
        // A static with a run-time initializer is set in `init_globals`.
        if init.is_none()
            && let (GlobalKind::Static | GlobalKind::Const, Some(e)) = (&gd.kind, &gd.init)
        {
            let e = e.clone();
            let first = self.init_fn.is_none();
            self.run_in_init(|l| {
                let v = l.rvalue(&e);
                l.store_converted(id, v, e.ty);
            });
            // `init_globals` stands at the first global it initializes.
            if first && let Some(func) = self.init_fn {
                self.m.set_position(func.id(), Some(gd.name_span));
            }
        }
        Some(id)
    }

    /// Runs `f` with the builder at the end of `init_globals`.
    fn run_in_init(&mut self, f: impl FnOnce(&mut Self)) {
        let func = match self.init_fn {
            Some(f) => f,
            None => {
                let v = self.m.void_type();
                let func = self.m.add_func("init_globals", v, &[]);
                self.init_fn = Some(func);
                func
            }
        };
        let Some(entry) = func.entry(&self.m) else {
            return;
        };
        let blocks = func.blocks(&self.m);
        let cur = blocks.last().copied().unwrap_or(entry);
        let saved = self.f.take();
        self.f = Some(FnState {
            func,
            entry,
            cur: Some(cur),
            locals: Vec::new(),
            precise: Vec::new(),
            targets: Vec::new(),
            branch_depth: 0,
            declared_depth: FxHashMap::default(),
            hir: None,
            alias_depth: FxHashMap::default(),
            ambiguous: FxHashSet::default(),
        });
        f(self);
        self.f = saved;
    }

    fn finish_init_globals(&mut self) {
        if let Some(func) = self.init_fn {
            let blocks = func.blocks(&self.m);
            if let Some(&last) = blocks.last()
                && last.terminator(&self.m).is_none()
            {
                Builder::at_end(&mut self.m, last).ret(None);
            }
        }
    }

    /// Stores `v` (of HLSL type `ty`) into `ptr`.
    pub fn store_converted(&mut self, ptr: InstId, v: InstId, _ty: TyId) {
        self.bld().store(ptr, v);
    }

    /// An IR constant for a constant expression (scalars, and composites of constants), or
    /// `None` when it is not constant.
    pub fn const_expr(&mut self, e: &Expr) -> Option<InstId> {
        match &e.kind {
            ExprKind::Const(v) => {
                let s = self.types().scalar_of(e.ty)?;
                match self.types().kind(e.ty) {
                    TyKind::Scalar(_) | TyKind::Vector(_, 1) | TyKind::Matrix(_, 1, 1) => {
                        Some(self.const_scalar(s, *v))
                    }
                    _ => None,
                }
            }
            ExprKind::Cast(CastKind::Convert, x) => {
                let s = self.types().scalar_of(e.ty)?;
                if let (ExprKind::Const(v), TyKind::Scalar(_)) = (&x.kind, self.types().kind(e.ty))
                {
                    return Some(self.const_scalar(s, v.convert(s)));
                }
                None
            }
            ExprKind::Cast(CastKind::Reshape, x) => {
                let c = self.const_expr(x)?;
                let want = self.ir_ty(e.ty);
                (self.m.ty(c) == Some(want)).then_some(c)
            }
            ExprKind::Cast(CastKind::Splat, x) => {
                let c = self.const_expr(x)?;
                self.const_splat(c, e.ty)
            }
            ExprKind::Flatten(parts) => {
                let mut leaves = Vec::new();
                for p in parts {
                    let c = self.const_expr(p)?;
                    self.const_leaves(c, p.ty, &mut leaves)?;
                }
                let total = self.types().flat_count(e.ty) as usize;
                if leaves.len() == 1 && total > 1 {
                    let l = leaves[0];
                    leaves = vec![l; total];
                }
                if leaves.len() < total {
                    return None;
                }
                let mut it = leaves.into_iter();
                self.const_build(e.ty, &mut it)
            }
            _ => None,
        }
    }

    fn const_splat(&mut self, c: InstId, ty: TyId) -> Option<InstId> {
        let s = self.types().scalar_of(ty)?;
        let cv = self.const_value_of(c)?;
        let leaf = self.const_scalar(s, cv);
        let n = self.types().flat_count(ty) as usize;
        let mut it = std::iter::repeat_n((leaf, s), n);
        self.const_build(ty, &mut it)
    }

    /// The value of a scalar constant.
    pub fn const_value_of(&self, c: InstId) -> Option<ConstVal> {
        match self.m.op(c) {
            Op::ConstBool => Some(ConstVal::Bool(self.m.literal_bits(c)? != 0)),
            Op::ConstInt => Some(ConstVal::Int(self.m.const_int_value(c)?)),
            Op::ConstFloat => {
                let bits = self.m.literal_bits(c)?;
                let t = self.m.ty(c)?;
                Some(ConstVal::Float(match self.m.scalar_bits(t)? {
                    64 => f64::from_bits(bits),
                    32 => f32::from_bits(bits as u32) as f64,
                    _ => f16_bits_to_f64(bits as u16),
                }))
            }
            _ => None,
        }
    }

    /// Scalar leaves of a constant of HLSL type `ty`, with their HLSL scalar types.
    fn const_leaves(&mut self, c: InstId, ty: TyId, out: &mut Vec<(InstId, Scalar)>) -> Option<()> {
        match self.types().kind(ty).clone() {
            TyKind::Scalar(s) | TyKind::Vector(s, 1) | TyKind::Matrix(s, 1, 1) => out.push((c, s)),
            TyKind::Vector(s, _) | TyKind::Matrix(s, _, _) => {
                let n = self.types().flat_count(ty) as usize;
                let parts = self.composite_parts(c)?;
                match self.types().kind(ty) {
                    TyKind::Matrix(_, r, cc) if Self::mat_rep(s, *r, *cc) != MatRep::Vec => {
                        for row in parts {
                            for x in self.composite_parts(row)? {
                                out.push((x, s));
                            }
                        }
                    }
                    _ => {
                        for x in parts.into_iter().take(n) {
                            out.push((x, s));
                        }
                    }
                }
            }
            TyKind::Array(e, _) => {
                for x in self.composite_parts(c)? {
                    self.const_leaves(x, e, out)?;
                }
            }
            TyKind::Struct(sid) => {
                let ftys: Vec<TyId> = self
                    .types()
                    .struct_def(sid)
                    .fields
                    .iter()
                    .map(|f| f.ty)
                    .collect();
                let parts = self.const_struct_fields(c, sid)?;
                for (x, ft) in parts.into_iter().zip(ftys) {
                    self.const_leaves(x, ft, out)?;
                }
            }
            _ => return None,
        }
        Some(())
    }

    /// The constants of the (HIR, flattened) fields of a constant of struct `sid`: a nested
    /// base's constant is taken apart too.
    fn const_struct_fields(&mut self, c: InstId, sid: StructId) -> Option<Vec<InstId>> {
        let parts = self.composite_parts(c)?;
        let bases = self.types().struct_def(sid).bases.clone();
        if bases.is_empty() {
            return Some(parts);
        }
        let mut out = Vec::new();
        for (k, b) in bases.iter().enumerate() {
            out.extend(self.const_struct_fields(*parts.get(k)?, *b)?);
        }
        out.extend(parts.into_iter().skip(bases.len()));
        Some(out)
    }

    /// A constant of struct `sid` from its (HIR, flattened) fields' constants.
    fn const_struct(&mut self, sid: StructId, parts: &[InstId]) -> InstId {
        let t = self.struct_ir(sid);
        let bases = self.types().struct_def(sid).bases.clone();
        let mut ir = Vec::new();
        let mut at = 0;
        for b in bases {
            let n = self.types().struct_def(b).fields.len();
            let end = (at + n).min(parts.len());
            ir.push(self.const_struct(b, &parts[at..end]));
            at = end;
        }
        ir.extend_from_slice(&parts[at..]);
        self.m.const_composite(t, &ir)
    }

    /// The elements of a constant composite (a `zero` expands).
    fn composite_parts(&mut self, c: InstId) -> Option<Vec<InstId>> {
        match self.m.op(c) {
            Op::Composite => Some(self.m.operands(c).collect()),
            Op::Zero => {
                let t = self.m.ty(c)?;
                let n = match self.m.op(t) {
                    Op::Vector => self.m.vector_len(t)?,
                    Op::Matrix => self.m.matrix_dims(t)?.0,
                    Op::Array => self.m.array_len(t)?,
                    Op::Struct => self.m.struct_fields(t).len() as u32,
                    _ => return None,
                };
                let mut out = Vec::new();
                for i in 0..n {
                    let et = self.m.element_type(t, i)?;
                    out.push(self.m.zero(et));
                }
                Some(out)
            }
            _ => None,
        }
    }

    /// Builds a constant of HLSL type `ty` from scalar leaves (converted).
    fn const_build(
        &mut self,
        ty: TyId,
        it: &mut dyn Iterator<Item = (InstId, Scalar)>,
    ) -> Option<InstId> {
        match self.types().kind(ty).clone() {
            TyKind::Scalar(s) | TyKind::Vector(s, 1) | TyKind::Matrix(s, 1, 1) => {
                let (c, _) = it.next()?;
                let v = self.const_value_of(c)?;
                Some(self.const_scalar(s, v.convert(s)))
            }
            TyKind::Vector(s, n) => {
                let mut parts = Vec::new();
                for _ in 0..n {
                    let (c, _) = it.next()?;
                    let v = self.const_value_of(c)?;
                    parts.push(self.const_scalar(s, v.convert(s)));
                }
                let t = self.ir_ty(ty);
                Some(self.m.const_composite(t, &parts))
            }
            TyKind::Matrix(s, r, c) => {
                let st = self.types_scalar_vec(s, c);
                let mut rows = Vec::new();
                let mut flat = Vec::new();
                for _ in 0..r {
                    let mut parts = Vec::new();
                    for _ in 0..c {
                        let (x, _) = it.next()?;
                        let v = self.const_value_of(x)?;
                        let k = self.const_scalar(s, v.convert(s));
                        parts.push(k);
                        flat.push(k);
                    }
                    rows.push(if c == 1 {
                        parts[0]
                    } else {
                        self.m.const_composite(st, &parts)
                    });
                }
                let t = self.ir_ty(ty);
                Some(match Self::mat_rep(s, r, c) {
                    MatRep::Scalar => flat[0],
                    MatRep::Vec => self.m.const_composite(t, &flat),
                    MatRep::Mat | MatRep::Rows => self.m.const_composite(t, &rows),
                })
            }
            TyKind::Array(e, n) => {
                let mut parts = Vec::new();
                for _ in 0..n {
                    parts.push(self.const_build(e, it)?);
                }
                let t = self.ir_ty(ty);
                Some(self.m.const_composite(t, &parts))
            }
            TyKind::Struct(sid) => {
                let ftys: Vec<TyId> = self
                    .types()
                    .struct_def(sid)
                    .fields
                    .iter()
                    .map(|f| f.ty)
                    .collect();
                let mut parts = Vec::new();
                for ft in ftys {
                    parts.push(self.const_build(ft, it)?);
                }
                Some(self.const_struct(sid, &parts))
            }
            _ => None,
        }
    }

    /// `vec<s, n>` (or the scalar for n == 1).
    pub fn types_scalar_vec(&mut self, s: Scalar, n: u8) -> InstId {
        let e = self.scalar_ir(s);
        if n == 1 {
            e
        } else {
            self.m.vector_type(e, n as u32)
        }
    }

    // ---- functions ----------------------------------------------------------------------------

    /// The IR type of a parameter.
    fn param_ir_ty(&mut self, f: FuncId, p: &ParamDef) -> InstId {
        if let Some(EntryParam::RayPointer(space)) = self.entry_param(f, p) {
            let t = self.ir_ty(p.ty);
            return self.m.ptr_type(space, t);
        }
        if matches!(self.types().kind(p.ty), TyKind::RayQuery(_)) {
            // A ray query is passed by reference.
            let t = self.m.ray_query_type();
            return self.m.ptr_type(AddressSpace::Function, t);
        }
        if self.types().is_resource(p.ty) {
            let space = match self.types().kind(self.strip_arrays(p.ty)) {
                TyKind::Buffer(..) => AddressSpace::StorageBuffer,
                _ => AddressSpace::UniformConstant,
            };
            let pointee = self
                .resource_pointee(p.ty, ImageFormat::Unknown)
                .unwrap_or_else(|| self.m.void_type());
            return self.m.ptr_type(space, pointee);
        }
        let t = self.ir_ty(p.ty);
        match p.dir {
            ParamDir::In => t,
            ParamDir::Out | ParamDir::InOut => self.m.ptr_type(AddressSpace::Function, t),
        }
    }

    fn declare_func(&mut self, f: FuncId) {
        let fd = self.p.func(f);
        // A function returning a resource returns nothing in the IR: each call names the
        // resource statically (`resource_returns`).
        let ret = if self.types().is_resource(fd.ret) || self.types().contains_resource(fd.ret) {
            self.m.void_type()
        } else {
            self.ir_ty(fd.ret)
        };
        let real: Vec<&ParamDef> = fd
            .params
            .iter()
            .filter(|p| !self.is_virtual_param(f, p))
            .collect();
        let params: Vec<InstId> = real.into_iter().map(|p| self.param_ir_ty(f, p)).collect();
        let name = if self.entry_stages.contains_key(&f) {
            format!("{}_body", fd.name)
        } else {
            fd.name.replace(['<', '>', ',', ' '], "_")
        };
        // A prototype that is called (an import: `reachable` refused it unless imports are
        // allowed) is a declaration without a body.
        let func = if fd.body.is_none() {
            self.m.declare_func(&name, ret, &params)
        } else {
            self.m.add_func(&name, ret, &params)
        };
        // Declared at its name (`oneshader_ir::positions`).
        self.m.set_position(func.id(), Some(fd.span));
        self.funcs.insert(f, func);
        if !self.linkable() {
            return;
        }
        // Linking (docs/linking.md): `export` functions are exported, prototypes imported,
        // under their mangled names.
        let deco = if fd.body.is_none() {
            Some(Op::Import)
        } else if fd.export {
            Some(Op::Export)
        } else {
            None
        };
        if let Some(op) = deco {
            let base = fd.name.clone();
            let symbol = oneshader_passes::link::mangle(&self.m, &base, &params, ret);
            let sym = self.m.const_string(&symbol);
            self.m.decorate(func.id(), op, &[sym]);
        }
    }

    /// The current block (a fresh unreachable one if the code after a terminator is reached,
    /// which analysis prevents).
    pub fn cur(&mut self) -> Block {
        // Only called while a function body is lowered (`self.f` is set by `lower_func`,
        // `run_in_init` and `lower_entry` around every emission).
        let f = self.f.as_mut().expect("lowering a function body");
        match f.cur {
            Some(b) => b,
            None => {
                let b = self.m.add_block(f.func);
                f.cur = Some(b);
                b
            }
        }
    }

    /// Decorates the arithmetic that computed `v` as `precise` when local `l` is `precise`.
    pub fn precise_if(&mut self, l: LocalId, v: InstId) {
        let is_precise = self
            .f
            .as_ref()
            .is_some_and(|f| f.precise.get(l.0 as usize).copied().unwrap_or(false));
        if is_precise {
            self.mark_precise(v, 0);
        }
    }

    /// Decorates `v` and the arithmetic feeding it (up to loads, calls and constants).
    fn mark_precise(&mut self, v: InstId, depth: u32) {
        if depth > 64 || self.m.has_decoration(v, Op::Precise) {
            return;
        }
        let op = self.m.op(v);
        let arith = matches!(
            op,
            Op::Add
                | Op::Sub
                | Op::Mul
                | Op::Div
                | Op::Rem
                | Op::Neg
                | Op::MatMul
                | Op::CallIntrinsic
                | Op::Construct
                | Op::Extract
                | Op::Shuffle
                | Op::Convert
                | Op::Select
        );
        if !arith {
            return;
        }
        if !matches!(op, Op::Construct | Op::Extract | Op::Shuffle | Op::Select) {
            self.m.decorate(v, Op::Precise, &[]);
        }
        for o in self.m.operands_vec(v) {
            if self.m.op(o).is_instruction() {
                self.mark_precise(o, depth + 1);
            }
        }
    }

    /// A composite of type `ty`: a constant when every part is one, else a `construct`.
    pub fn construct(&mut self, ty: InstId, parts: &[InstId]) -> InstId {
        if !parts.is_empty() && parts.iter().all(|&p| self.m.op(p).is_constant()) {
            return self.m.const_composite(ty, parts);
        }
        self.bld().construct(ty, parts)
    }

    /// A builder at the end of the current block.
    pub fn bld(&mut self) -> Builder<'_> {
        let b = self.cur();
        self.positions.touch(b);
        Builder::at_end(&mut self.m, b)
    }

    /// True while code is reachable.
    pub fn reachable_now(&self) -> bool {
        self.f.as_ref().is_some_and(|f| f.cur.is_some())
    }

    /// A new block in the current function.
    pub fn new_block(&mut self) -> Block {
        let func = self.f.as_ref().expect("lowering a function body").func;
        self.m.add_block(func)
    }

    /// Continues in `b`.
    pub fn switch_to(&mut self, b: Block) {
        if let Some(f) = &mut self.f {
            f.cur = Some(b);
        }
    }

    /// Ends the current block (code after it is unreachable).
    pub fn terminate(&mut self) {
        if let Some(f) = &mut self.f {
            f.cur = None;
        }
    }

    /// A `var` of IR type `t` in the entry block.
    pub fn new_var(&mut self, t: InstId) -> InstId {
        let entry = self.f.as_ref().expect("lowering a function body").entry;
        let anchor = self
            .m
            .children(entry.id())
            .find(|&c| self.m.op(c) != Op::Param && !self.m.op(c).is_decoration());
        let mut b = Builder::new(&mut self.m);
        match anchor {
            Some(a) => b.position_before(a),
            None => b.position_at_end(entry),
        }
        let v = b.var(t);
        self.positions.record(v);
        v
    }

    fn lower_func(&mut self, f: FuncId) {
        self.cur_func = Some(f);
        let func = self.funcs[&f];
        let fd = self.p.func(f);
        if fd.body.is_none() {
            // An import: a declaration.
            return;
        }
        let Some(entry) = func.entry(&self.m) else {
            return;
        };
        let params = entry.params(&self.m);
        let mut locals = vec![LocalSlot::None; fd.locals.len()];
        // Parameters without an IR parameter: streams and mesh outputs.
        let mut real = Vec::new();
        for p in &fd.params {
            if matches!(self.types().kind(p.ty), TyKind::Stream(..)) {
                locals[p.local.0 as usize] =
                    LocalSlot::Stream(self.streams.get(&(f, p.local)).copied());
                continue;
            }
            if self.is_virtual_param(f, p) {
                locals[p.local.0 as usize] = match self.mesh_outputs.get(&(f, p.local)) {
                    Some(&n) => LocalSlot::Split(n),
                    None => LocalSlot::None,
                };
                continue;
            }
            real.push(p);
        }
        self.f = Some(FnState {
            func,
            entry,
            cur: Some(entry),
            locals: Vec::new(),
            precise: Vec::new(),
            targets: Vec::new(),
            branch_depth: 0,
            declared_depth: FxHashMap::default(),
            hir: Some(f),
            alias_depth: FxHashMap::default(),
            ambiguous: FxHashSet::default(),
        });
        let outer = self.positions.enter_construct(&self.m, fd.span);
        // Parameters: `in` values get a local copy; `out`/`inout` are the pointers; resources
        // are the resource pointers; ray queries are passed by reference.
        for (p, ir) in real.into_iter().zip(&params) {
            let ir = ir.id();
            if self.types().is_resource(p.ty) {
                locals[p.local.0 as usize] = LocalSlot::Resource(ir);
                continue;
            }
            if matches!(self.types().kind(p.ty), TyKind::RayQuery(_)) {
                locals[p.local.0 as usize] = LocalSlot::Ptr(ir);
                continue;
            }
            match p.dir {
                ParamDir::In => {
                    let t = self.ir_ty(p.ty);
                    let v = self.new_var(t);
                    // The parameter's name as a hint on its local copy (printers and the text
                    // backends show it; it never affects identity).
                    self.m
                        .set_name(v, Some(&fd.locals[p.local.0 as usize].name));
                    self.bld().store(v, ir);
                    locals[p.local.0 as usize] = LocalSlot::Ptr(v);
                }
                _ => locals[p.local.0 as usize] = LocalSlot::Ptr(ir),
            }
        }
        // Every other local is a `var` in the entry block.
        for (i, l) in fd.locals.iter().enumerate() {
            if !matches!(locals[i], LocalSlot::None) {
                continue;
            }
            if self.types().is_resource(l.ty)
                || self.types().is_void(l.ty)
                || self.types().is_error(l.ty)
                || matches!(self.types().kind(l.ty), TyKind::Stream(..))
            {
                continue;
            }
            let t = self.ir_ty(l.ty);
            let v = self.new_var(t);
            self.m.set_name(v, Some(&l.name));
            locals[i] = LocalSlot::Ptr(v);
        }
        if let Some(st) = &mut self.f {
            st.locals = locals;
            st.precise = fd.locals.iter().map(|l| l.precise).collect();
        }
        if let Some(body) = &fd.body {
            self.stmts(body);
        }
        // Falling off the end.
        if self.reachable_now() {
            if self.types().is_void(fd.ret) {
                self.bld().ret(None);
            } else {
                let t = self.ir_ty(fd.ret);
                let u = self.m.undef(t);
                self.bld().ret(Some(u));
            }
        }
        self.seal_blocks(func);
        self.positions.leave_construct(&self.m, outer);
        self.f = None;
    }

    /// Gives every block without a terminator an `unreachable` (merge blocks nothing reaches).
    pub fn seal_blocks(&mut self, func: Func) {
        for b in func.blocks(&self.m) {
            if b.terminator(&self.m).is_none() {
                Builder::at_end(&mut self.m, b).unreachable();
            }
        }
    }

    // ---- statements ---------------------------------------------------------------------------

    pub fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            if !self.reachable_now() {
                return;
            }
            self.stmt(s);
        }
    }

    fn hint_decos(&mut self, term: InstId, h: Hints, is_loop: bool) {
        if is_loop {
            if let Some(n) = h.unroll {
                self.m.decorate_imm(term, Op::Unroll, &[n]);
            } else if h.dont_unroll {
                self.m.decorate(term, Op::DontUnroll, &[]);
            }
        } else if h.flatten {
            self.m.decorate(term, Op::Flatten, &[]);
        } else if h.branch {
            self.m.decorate(term, Op::DontFlatten, &[]);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        // The statement's position: its first expression (see `positions`).
        let own = match s {
            Stmt::Expr(e)
            | Stmt::Local(_, Some(e))
            | Stmt::Return(Some(e))
            | Stmt::If { cond: e, .. }
            | Stmt::Loop { cond: Some(e), .. }
            | Stmt::Switch { value: e, .. } => Some(e.span),
            Stmt::Discard(span) => Some(*span),
            _ => None,
        };
        match own {
            Some(span) => {
                let outer = self.positions.enter_construct(&self.m, span);
                self.stmt_here(s);
                self.positions.leave_construct(&self.m, outer);
            }
            None => self.stmt_here(s),
        }
    }

    /// [`Lower::stmt`] with the statement's position current.
    fn stmt_here(&mut self, s: &Stmt) {
        let nested = match s {
            Stmt::Loop { .. } => true,
            Stmt::Switch { value, .. } => self.const_selector(value).is_none(),
            _ => false,
        };
        self.enter_branch(nested);
        self.stmt_inner(s);
        self.leave_branch(nested);
    }

    /// Where local `l` of the function being lowered is declared.
    fn local_span(&self, l: LocalId) -> Option<Span> {
        self.f
            .as_ref()
            .and_then(|f| f.hir)
            .and_then(|h| self.p.func(h).locals.get(l.0 as usize))
            .map(|d| d.span)
    }

    /// The HLSL name of local `l` of the function being lowered.
    pub fn local_name(&self, l: LocalId) -> String {
        self.f
            .as_ref()
            .and_then(|f| f.hir)
            .and_then(|h| self.p.func(h).locals.get(l.0 as usize))
            .map(|d| d.name.clone())
            .unwrap_or_default()
    }

    /// Resource local `l` names the resource at `p` from here on (in the current branch).
    pub fn set_alias(&mut self, l: LocalId, p: InstId) {
        if let Some(f) = &mut self.f {
            f.locals[l.0 as usize] = LocalSlot::Resource(p);
            let d = f.branch_depth;
            f.alias_depth.insert(l.0, d);
            f.ambiguous.remove(&l.0);
        }
    }

    /// One more run-time branch encloses what is lowered next (when `yes`).
    fn enter_branch(&mut self, yes: bool) {
        if let Some(f) = &mut self.f
            && yes
        {
            f.branch_depth += 1;
        }
    }

    /// The branch [`Lower::enter_branch`] entered is left: a resource local given its
    /// resource inside it (and declared outside it) names different resources on different
    /// paths after it.
    fn leave_branch(&mut self, yes: bool) {
        let Some(f) = &mut self.f else { return };
        if !yes {
            return;
        }
        f.branch_depth = f.branch_depth.saturating_sub(1);
        let d = f.branch_depth;
        let left: Vec<u32> = f
            .alias_depth
            .iter()
            .filter(|&(l, &ad)| ad > d && f.declared_depth.get(l).copied().unwrap_or(0) <= d)
            .map(|(&l, _)| l)
            .collect();
        for l in left {
            f.alias_depth.remove(&l);
            f.locals[l as usize] = LocalSlot::None;
            f.ambiguous.insert(l);
        }
    }

    /// Before a loop: resource locals declared outside it that its body gives a resource
    /// name different resources in different iterations.
    fn loop_carried_aliases(&mut self, body: &[Stmt], step: Option<&Expr>) {
        let mut targets = Vec::new();
        let types = self.types();
        let mut look = |e: &Expr| {
            crate::hlsl::sema::stmt::visit(e, &mut |x| {
                if let ExprKind::Assign(t, _) = &x.kind
                    && let ExprKind::Local(l) = t.kind
                    && types.is_resource(t.ty)
                {
                    targets.push(l.0);
                }
            })
        };
        for s in body {
            stmt_exprs(s, &mut look);
        }
        if let Some(e) = step {
            look(e);
        }
        let Some(f) = &mut self.f else { return };
        let d = f.branch_depth;
        for l in targets {
            if f.declared_depth.get(&l).copied().unwrap_or(0) <= d
                && matches!(f.locals[l as usize], LocalSlot::Resource(_))
            {
                f.locals[l as usize] = LocalSlot::None;
                f.alias_depth.remove(&l);
                f.ambiguous.insert(l);
            }
        }
    }

    fn stmt_inner(&mut self, s: &Stmt) {
        match s {
            Stmt::Expr(e) => {
                self.effect(e);
            }
            Stmt::Local(l, init) => {
                if let Some(f) = &mut self.f {
                    let d = f.branch_depth;
                    f.declared_depth.insert(l.0, d);
                }
                let slot = self.f.as_ref().map(|f| f.locals[l.0 as usize]);
                // The local's `var` is where (and in the scope) it is declared.
                if let (Some(LocalSlot::Ptr(p)), Some(span)) = (slot, self.local_span(*l)) {
                    self.positions.declare(p, span);
                }
                let Some(init) = init else { return };
                if self.types().is_resource(init.ty) {
                    let unset_source = matches!(init.kind, ExprKind::Local(r)
                        if matches!(self.f.as_ref().map(|f| f.locals[r.0 as usize]), Some(LocalSlot::None)));
                    if unset_source {
                        return;
                    }
                    if let Some(p) = self.resource_ptr(init) {
                        self.set_alias(*l, p);
                    }
                    return;
                }
                let v = self.rvalue(init);
                self.precise_if(*l, v);
                if let Some(LocalSlot::Ptr(p)) = slot {
                    self.bld().store(p, v);
                }
            }
            Stmt::Block(b) => self.stmts(b),
            Stmt::Scope(span, b) => {
                let parent = self.positions.scope();
                let s = self.m.add_debug_scope(DebugScopeData::Block {
                    parent,
                    span: *span,
                });
                let outer = self.positions.enter_scope(&self.m, s);
                self.stmts(b);
                self.positions.leave_scope(&self.m, outer);
            }
            Stmt::If {
                cond,
                then,
                otherwise,
                hints,
            } => {
                let c = self.rvalue(cond);
                if let Some(k) = self
                    .m
                    .try_op(c)
                    .filter(|o| *o == Op::ConstBool)
                    .map(|_| self.m.literal_bits(c).unwrap_or(0) != 0)
                {
                    // A constant condition: only the taken branch is lowered.
                    if k {
                        self.stmts(then);
                    } else {
                        self.stmts(otherwise);
                    }
                    return;
                }
                let tb = self.new_block();
                let eb = self.new_block();
                let mb = self.new_block();
                let t = self.bld().if_else(c, tb, eb, mb);
                self.hint_decos(t, *hints, false);
                let mut reach = false;
                self.switch_to(tb);
                self.enter_branch(true);
                self.stmts(then);
                self.leave_branch(true);
                if self.reachable_now() {
                    self.bld().br(mb, &[]);
                    reach = true;
                }
                self.switch_to(eb);
                self.enter_branch(true);
                self.stmts(otherwise);
                self.leave_branch(true);
                if self.reachable_now() {
                    self.bld().br(mb, &[]);
                    reach = true;
                }
                if reach {
                    self.switch_to(mb);
                } else {
                    Builder::at_end(&mut self.m, mb).unreachable();
                    self.terminate();
                }
            }
            Stmt::Loop {
                init,
                cond,
                step,
                body,
                test_first,
                hints,
            } => {
                self.stmts(init);
                if !self.reachable_now() {
                    return;
                }
                self.loop_carried_aliases(body, step.as_ref());
                let header = self.new_block();
                let body_bb = self.new_block();
                let cont = self.new_block();
                let brk = self.new_block();
                let l = self.bld().loop_(header, brk, cont, &[]);
                self.hint_decos(l, *hints, true);
                self.switch_to(header);
                // `continue` goes to the continue block, except in a do-while, where it goes
                // to the test.
                let mut cont_target = cont;
                if *test_first {
                    match cond {
                        Some(c) if has_control_flow(c) => {
                            let test = self.new_block();
                            self.bld().br(test, &[]);
                            self.switch_to(test);
                            let cv = self.rvalue(c);
                            self.bld().cond_br(cv, body_bb, brk);
                        }
                        Some(c) => {
                            let cv = self.rvalue(c);
                            self.bld().cond_br(cv, body_bb, brk);
                        }
                        None => {
                            self.bld().br(body_bb, &[]);
                        }
                    }
                } else if let Some(c) = cond
                    && continues_here(body)
                {
                    // A do-while whose body continues: `continue` must reach the test, which
                    // is not the continue block, so the body runs in a run-once inner loop
                    // that the test follows; `break` leaves through a flag.
                    let bt = self.m.bool_type();
                    let flag = self.new_var(bt);
                    let f0 = self.m.const_bool(false);
                    let inner = self.new_block();
                    let test = self.new_block();
                    let ih = self.new_block();
                    let ic = self.new_block();
                    self.bld().br(inner, &[]);
                    self.switch_to(inner);
                    self.bld().store(flag, f0);
                    self.bld().loop_(ih, test, ic, &[]);
                    self.switch_to(ih);
                    self.bld().br(body_bb, &[]);
                    self.switch_to(ic);
                    self.bld().br(ih, &[]);
                    if let Some(f) = &mut self.f {
                        f.targets.push(Target::DoWhile { test, flag });
                    }
                    self.switch_to(body_bb);
                    self.stmts(body);
                    if self.reachable_now() {
                        self.bld().br(test, &[]);
                    }
                    if let Some(f) = &mut self.f {
                        f.targets.pop();
                    }
                    self.switch_to(test);
                    let broke = self.bld().load(flag);
                    let t2 = self.new_block();
                    self.bld().cond_br(broke, brk, t2);
                    self.switch_to(t2);
                    let cv = self.rvalue(c);
                    self.bld().cond_br(cv, cont, brk);
                    self.switch_to(cont);
                    self.bld().br(header, &[]);
                    self.switch_to(brk);
                    return;
                } else {
                    self.bld().br(body_bb, &[]);
                    if cond.is_some() {
                        cont_target = self.new_block();
                    }
                }
                if let Some(f) = &mut self.f {
                    f.targets.push(Target::Loop {
                        brk,
                        cont: cont_target,
                    });
                }
                self.switch_to(body_bb);
                self.stmts(body);
                if self.reachable_now() {
                    self.bld().br(cont_target, &[]);
                }
                if let Some(f) = &mut self.f {
                    f.targets.pop();
                }
                if !*test_first
                    && let Some(c) = cond
                    && !self.m.uses_snapshot(cont_target.id()).is_empty()
                {
                    // The do-while test: reached from the body's end and from `continue`.
                    self.switch_to(cont_target);
                    let cv = self.rvalue(c);
                    self.bld().cond_br(cv, cont, brk);
                }
                self.switch_to(cont);
                if let Some(st) = step {
                    self.effect(st);
                }
                self.bld().br(header, &[]);
                self.switch_to(brk);
            }
            Stmt::Switch {
                value,
                cases,
                hints,
            } => self.switch(value, cases, *hints),
            Stmt::Break => {
                let t = self.f.as_ref().and_then(|f| f.targets.last().copied());
                match t {
                    Some(Target::Loop { brk, .. }) => {
                        self.bld().br(brk, &[]);
                    }
                    Some(Target::Switch { merge }) => {
                        self.bld().br(merge, &[]);
                    }
                    Some(Target::DoWhile { test, flag }) => {
                        let t = self.m.const_bool(true);
                        self.bld().store(flag, t);
                        self.bld().br(test, &[]);
                    }
                    None => {}
                }
                self.terminate();
            }
            Stmt::Continue => {
                let t = self.f.as_ref().and_then(|f| {
                    f.targets.iter().rev().find_map(|t| match t {
                        Target::Loop { cont, .. } => Some(*cont),
                        Target::DoWhile { test, .. } => Some(*test),
                        _ => None,
                    })
                });
                if let Some(c) = t {
                    self.bld().br(c, &[]);
                }
                self.terminate();
            }
            Stmt::Return(Some(e))
                if self.types().is_resource(e.ty) || self.types().contains_resource(e.ty) =>
            {
                // The callers name the resource (`resource_returns`); only the effects of
                // the returned expression's calls stay here.
                if has_calls(e) {
                    self.effect(e);
                }
                self.bld().ret(None);
                self.terminate();
            }
            Stmt::Return(v) => {
                let v = v.as_ref().map(|e| self.rvalue(e));
                self.bld().ret(v);
                self.terminate();
            }
            Stmt::Discard(_) => {
                self.bld().discard();
                self.terminate();
            }
        }
    }

    /// The value of a `switch` selector known when compiling (a literal or a `static const`).
    fn const_selector(&self, value: &Expr) -> Option<i128> {
        match &value.kind {
            ExprKind::Const(ConstVal::Int(v)) => Some(*v),
            ExprKind::Global(g) => match (&self.p.global(*g).kind, self.p.global(*g).const_value) {
                (GlobalKind::Const, Some(ConstVal::Int(v))) => Some(v),
                _ => None,
            },
            _ => None,
        }
    }

    /// A `switch` whose selector is known: only the case it selects and the cases it falls
    /// into are lowered (so a resource local given one there names it after the `switch`),
    /// under a `switch` of no cases whose default is the selected case (`break` leaves it).
    fn const_switch(&mut self, value: &Expr, sel: i128, cases: &[Case], hints: Hints) {
        let start = cases
            .iter()
            .position(|c| c.labels.contains(&CaseValue::Value(sel)))
            .or_else(|| {
                cases
                    .iter()
                    .position(|c| c.labels.contains(&CaseValue::Default))
            });
        let Some(start) = start else {
            // No case is taken.
            return;
        };
        let v = self.rvalue(value);
        let merge = self.new_block();
        let first = self.new_block();
        let t = self.bld().switch(v, merge, first, &[]);
        self.hint_decos(t, hints, false);
        if let Some(f) = &mut self.f {
            f.targets.push(Target::Switch { merge });
        }
        self.switch_to(first);
        let mut reach_merge = false;
        for (i, c) in cases.iter().enumerate().skip(start) {
            self.stmts(&c.body);
            if !self.reachable_now() {
                break;
            }
            if i + 1 < cases.len() {
                let next = self.new_block();
                self.bld().br(next, &[]);
                self.switch_to(next);
            } else {
                self.bld().br(merge, &[]);
                reach_merge = true;
            }
        }
        if let Some(f) = &mut self.f {
            f.targets.pop();
        }
        let has_preds = self.m.uses_snapshot(merge.id()).len() > 1;
        if reach_merge || has_preds {
            self.switch_to(merge);
        } else {
            Builder::at_end(&mut self.m, merge).unreachable();
            self.terminate();
        }
    }

    fn switch(&mut self, value: &Expr, cases: &[Case], hints: Hints) {
        if let Some(sel) = self.const_selector(value) {
            self.const_switch(value, sel, cases, hints);
            return;
        }
        let v = self.rvalue(value);
        let vt = self.m.ty(v);
        let merge = self.new_block();
        let blocks: Vec<Block> = cases.iter().map(|_| self.new_block()).collect();
        let mut default = merge;
        let mut arms = Vec::new();
        for (c, &b) in cases.iter().zip(&blocks) {
            for l in &c.labels {
                match l {
                    CaseValue::Value(x) => {
                        if let Some(t) = vt {
                            let k = self.m.const_int(t, *x as u64);
                            arms.push((k, b));
                        }
                    }
                    CaseValue::Default => default = b,
                }
            }
        }
        let t = self.bld().switch(v, merge, default, &arms);
        self.hint_decos(t, hints, false);
        if let Some(f) = &mut self.f {
            f.targets.push(Target::Switch { merge });
        }
        let mut reach_merge = default == merge;
        for (i, c) in cases.iter().enumerate() {
            self.switch_to(blocks[i]);
            self.stmts(&c.body);
            if self.reachable_now() {
                let next = blocks.get(i + 1).copied().unwrap_or(merge);
                if next == merge {
                    reach_merge = true;
                }
                self.bld().br(next, &[]);
            }
        }
        if let Some(f) = &mut self.f {
            f.targets.pop();
        }
        // `break`s reach the merge too.
        let has_preds = self.m.uses_snapshot(merge.id()).len() > 1;
        if reach_merge || has_preds {
            self.switch_to(merge);
        } else {
            Builder::at_end(&mut self.m, merge).unreachable();
            self.terminate();
        }
    }
}

/// Places the globals of `m` no declaration made (the built-ins an intrinsic reads, the data a
/// `TraceRay` passes, a constant table) where they are first used.
fn declare_at_first_use(m: &mut Module) {
    for g in m.globals() {
        let g = g.id();
        if m.position(g).is_some() {
            continue;
        }
        let first = m
            .users(g)
            .into_iter()
            .filter_map(|u| m.position(u))
            .min_by_key(|p| (p.file.0, p.start));
        if first.is_some() {
            m.set_position(g, first);
        }
    }
}

/// True when `continue` appears in `body` for the loop that owns it (not in nested loops).
fn continues_here(body: &[Stmt]) -> bool {
    body.iter().any(|s| match s {
        Stmt::Continue => true,
        Stmt::Block(b) | Stmt::Scope(_, b) => continues_here(b),
        Stmt::If {
            then, otherwise, ..
        } => continues_here(then) || continues_here(otherwise),
        Stmt::Switch { cases, .. } => cases.iter().any(|c| continues_here(&c.body)),
        _ => false,
    })
}

/// True when `e` calls a user function.
fn has_calls(e: &Expr) -> bool {
    let mut found = false;
    crate::hlsl::sema::stmt::visit(e, &mut |x| {
        if matches!(x.kind, ExprKind::Call(..)) {
            found = true;
        }
    });
    found
}

/// True when lowering `e` creates blocks (short-circuit operators, impure `?:`, `clip`).
pub fn has_control_flow(e: &Expr) -> bool {
    let mut found = false;
    crate::hlsl::sema::stmt::visit(e, &mut |x| {
        if matches!(
            x.kind,
            ExprKind::Logical(..)
                | ExprKind::Ternary(..)
                | ExprKind::Intrinsic(IntrinsicOp::Clip, _)
                | ExprKind::Method(ResMethod::Append | ResMethod::Consume, _, _)
        ) {
            found = true;
        }
    });
    found
}

fn uses_expr(e: &Expr, fs: &mut Vec<FuncId>, gs: &mut Vec<GlobalId>) {
    crate::hlsl::sema::stmt::visit(e, &mut |x| match &x.kind {
        ExprKind::Call(f, _) => fs.push(*f),
        ExprKind::Global(g) => gs.push(*g),
        _ => {}
    });
}

fn uses_stmt(s: &Stmt, fs: &mut Vec<FuncId>, gs: &mut Vec<GlobalId>) {
    stmt_exprs(s, &mut |e| uses_expr(e, fs, gs));
}

/// Calls `f` on every top-level expression of a statement tree.
pub fn stmt_exprs(s: &Stmt, f: &mut dyn FnMut(&Expr)) {
    match s {
        Stmt::Expr(e) | Stmt::Local(_, Some(e)) | Stmt::Return(Some(e)) => f(e),
        Stmt::Local(_, None)
        | Stmt::Break
        | Stmt::Continue
        | Stmt::Discard(_)
        | Stmt::Return(None) => {}
        Stmt::Block(b) | Stmt::Scope(_, b) => b.iter().for_each(|s| stmt_exprs(s, f)),
        Stmt::If {
            cond,
            then,
            otherwise,
            ..
        } => {
            f(cond);
            then.iter().for_each(|s| stmt_exprs(s, f));
            otherwise.iter().for_each(|s| stmt_exprs(s, f));
        }
        Stmt::Loop {
            init,
            cond,
            step,
            body,
            ..
        } => {
            init.iter().for_each(|s| stmt_exprs(s, f));
            if let Some(c) = cond {
                f(c);
            }
            if let Some(c) = step {
                f(c);
            }
            body.iter().for_each(|s| stmt_exprs(s, f));
        }
        Stmt::Switch { value, cases, .. } => {
            f(value);
            for c in cases {
                c.body.iter().for_each(|s| stmt_exprs(s, f));
            }
        }
    }
}

/// The IEEE half-precision bits of `f` (round to nearest even, directly from `f64`).
pub fn f64_to_f16_bits(f: f64) -> u16 {
    oneshader_ir::float16::f64_to_f16(f)
}

/// The value of IEEE half bits.
pub fn f16_bits_to_f64(h: u16) -> f64 {
    oneshader_ir::float16::f16_to_f64(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_bits_round_trip() {
        for v in [0.0, 1.0, -2.5, 0.5, 65504.0, 6.1035156e-5, 1e-7] {
            let b = f64_to_f16_bits(v);
            let back = f16_bits_to_f64(b);
            assert!(
                (back - v).abs() <= v.abs() * 1e-3 + 1e-7,
                "{v} -> {b:#x} -> {back}"
            );
        }
        assert_eq!(f64_to_f16_bits(1.0), 0x3c00);
        assert_eq!(f64_to_f16_bits(f64::INFINITY), 0x7c00);
    }
}
