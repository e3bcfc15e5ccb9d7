//! The emitter's state: one word stream ([`Words`]) per section of the SPIR-V module (in the order the
//! specification's "Logical Layout of a Module" requires), the id allocator, and the side tables
//! from IR ids to SPIR-V ids (assigned once per IR value; types once per (IR type, layout)).
//!
//! Words are written straight into the sections; nothing is deduplicated by scanning, because the
//! IR already is deduplicated. The few SPIR-V types that do not exist in the IR (a `u32` standing
//! for a `bool` in a buffer, a matrix's column vector, a sampled image) go through small maps
//! keyed by their SPIR-V structure, so no non-aggregate type is declared twice.

use oneshader_ir::layout::LayoutRule;
use oneshader_ir::{AddressSpace, Diagnostic, InstId, Module, Op};
use rspirv::spirv;
use rustc_hash::{FxHashMap, FxHashSet};
use slotmap::SecondaryMap;
use smallvec::SmallVec;

use super::Options;
use super::capabilities::Caps;
use super::encode::{Words, inst, inst_str};

/// How a type is laid out: as a plain value, with explicit offsets and strides under a layout
/// rule (inside a buffer), or as the outermost `Block` struct of a buffer. The flag is the
/// majorness of matrices in arrays (it changes their array stride); it is normalized to `false`
/// where it cannot matter so that equal layouts share one id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Lk {
    /// A value: no layout decorations (function, private, workgroup, input and output storage).
    Logical,
    /// Inside a buffer, under a rule; `true` when matrices are row-major.
    Explicit(LayoutRule, bool),
    /// The outermost type of a buffer variable: a struct decorated `Block` (a non-struct IR type
    /// is wrapped in a one-member struct), or `BufferBlock` when the third field is true (a
    /// storage buffer in the `Uniform` storage class: [`Emitter::buffer_block`]).
    Block(LayoutRule, bool, bool),
    /// An array of buffers (a descriptor array): an array or runtime array whose elements are
    /// laid out as [`Lk::Block`] (the same fields); no `ArrayStride`.
    Descriptors(LayoutRule, bool, bool),
}

/// Non-aggregate SPIR-V types, keyed by their SPIR-V structure (declared once each).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum TKey {
    Void,
    Bool,
    Int(u32, bool),
    Float(u32),
    Vector(u32, u32),
    Matrix(u32, u32),
    Pointer(u32, u32),
    Function(SmallVec<[u32; 6]>),
    Image([u32; 7]),
    Sampler,
    SampledImage(u32),
    /// The result struct of a sparse texel read: `{u32, texel}`.
    Sparse(u32),
    /// `OpTypeAccelerationStructureKHR`.
    AccelStruct,
    /// `OpTypeRayQueryKHR`.
    RayQuery,
    /// The array of 3 elements of a `PerVertexKHR` input.
    PerVertex(u32),
}

/// The sections of a module, in layout order (capabilities, extensions and the memory model
/// are written at assembly from [`Caps`]).
#[derive(Default)]
pub(crate) struct Sections {
    pub imports: Words,
    pub entries: Words,
    pub modes: Words,
    /// `OpString`, `OpSource` (line information, [`super::lines`]).
    pub sources: Words,
    pub names: Words,
    pub annotations: Words,
    pub globals: Words,
    /// Module-level NonSemantic.Shader.DebugInfo.100 instructions ([`super::debuginfo`]),
    /// after every type, constant and global variable.
    pub debug: Words,
    pub functions: Words,
}

impl Sections {
    /// The opcode of the first instruction written to a section (in layout order) that did
    /// not fit SPIR-V's 16-bit word count, if any.
    pub fn oversized(&self) -> Option<spirv::Op> {
        [
            &self.imports,
            &self.entries,
            &self.modes,
            &self.sources,
            &self.names,
            &self.annotations,
            &self.globals,
            &self.debug,
            &self.functions,
        ]
        .into_iter()
        .find_map(|w| w.oversized())
    }
}

/// Per-function emission state.
#[derive(Default)]
pub(crate) struct FuncState {
    /// The body after the entry block's label.
    pub body: Words,
    /// `OpVariable`s of the function (placed right after the entry label).
    pub vars: Words,
}

/// The emitter: everything needed to turn one module into words.
pub(crate) struct Emitter<'m> {
    pub m: &'m Module,
    pub opts: &'m Options,
    /// SPIR-V minor version.
    pub minor: u8,
    /// Storage buffers in the `Uniform` storage class, decorated `BufferBlock` (SPIR-V 1.0's
    /// form, DXC's for SPIR-V before 1.3): before 1.3 when `-fspv-extension=` does not
    /// permit `SPV_KHR_storage_buffer_storage_class`.
    pub buffer_block: bool,
    /// Next free id.
    pub bound: u32,
    /// SPIR-V id of every IR value, block, function and global (0: none yet).
    pub ids: SecondaryMap<InstId, u32>,
    /// Logical type ids by IR type.
    pub ltypes: SecondaryMap<InstId, u32>,
    /// Laid-out type ids by (IR type, layout).
    pub xtypes: FxHashMap<(InstId, Lk), u32>,
    /// Non-aggregate types by SPIR-V structure.
    pub tkeys: FxHashMap<TKey, u32>,
    /// Scalar and splatted vector constants by (SPIR-V type, bits).
    pub consts: FxHashMap<(u32, u64), u32>,
    pub s: Sections,
    pub caps: Caps,
    /// The `GLSL.std.450` import (0 until first use).
    pub glsl: u32,
    /// The imports of the non-semantic instruction sets of debug output (`NonSemantic.DebugPrintf`,
    /// `NonSemantic.DebugBreak`), by name, made on first use.
    pub debug_imports: FxHashMap<&'static str, u32>,
    /// Globals whose SPIR-V variable wraps a non-struct type in a `Block` struct (accesses get
    /// a leading 0 index).
    pub wrapped: SecondaryMap<InstId, ()>,
    /// Fragment inputs declared per vertex (`PerVertexKHR`, an array of the IR type's 3
    /// vertices) because the module reads some input at a vertex (`attribute_at_vertex`):
    /// every `flat` one, as DXC declares them. They are also in `wrapped`, so that plain
    /// accesses read vertex 0 through a leading 0 index.
    pub per_vertex: SecondaryMap<InstId, ()>,
    /// Buffer globals that are arrays of buffers (descriptor arrays: `ConstantBuffer<T> a[n]`,
    /// arrays of structured buffers), and the element pointers taken from them, which point to
    /// a `Block` struct just as a buffer global does.
    pub desc_arrays: SecondaryMap<InstId, ()>,
    pub block_ptrs: SecondaryMap<InstId, ()>,
    /// Pointers that index resources non-uniformly.
    pub nonuniform: FxHashSet<InstId>,
    /// Variables the backend created for built-ins the IR reaches through intrinsics, by
    /// built-in, and the functions using each.
    pub builtin_vars: FxHashMap<u32, u32>,
    pub synthetic_uses: FxHashMap<InstId, Vec<u32>>,
    /// The integer ones among them, and those already decorated `Flat`.
    pub synthetic_int: FxHashSet<u32>,
    pub synthetic_flat: FxHashSet<u32>,
    /// The function being emitted.
    pub cur_func: Option<InstId>,
    pub f: FuncState,
    /// Line-information state, when [`Options::line_info`] asks for it.
    pub lines: Option<super::lines::Lines>,
    /// Extended debug instruction set state, when [`super::LineInfo::debug_set`] asks for
    /// one.
    pub dbg: Option<super::debuginfo::Dbg>,
    /// The global or function whose emission wrote the first instruction longer than SPIR-V's
    /// 65535 words ([`Sections::oversized`]): what OSB0010 names and points at.
    pub oversized_in: Option<InstId>,
    pub diags: Vec<Diagnostic>,
}

impl<'m> Emitter<'m> {
    pub fn new(m: &'m Module, opts: &'m Options) -> Emitter<'m> {
        Emitter {
            m,
            opts,
            minor: opts.target_env.minor(),
            buffer_block: opts.target_env.minor() < 3
                && opts
                    .allowed_extensions
                    .as_ref()
                    .is_some_and(|a| !super::permits(a, "SPV_KHR_storage_buffer_storage_class")),
            bound: 1,
            ids: SecondaryMap::with_capacity(m.len()),
            ltypes: SecondaryMap::new(),
            xtypes: FxHashMap::default(),
            tkeys: FxHashMap::default(),
            consts: FxHashMap::default(),
            s: Sections::default(),
            caps: Caps::default(),
            glsl: 0,
            debug_imports: FxHashMap::default(),
            wrapped: SecondaryMap::new(),
            per_vertex: SecondaryMap::new(),
            desc_arrays: SecondaryMap::new(),
            block_ptrs: SecondaryMap::new(),
            nonuniform: FxHashSet::default(),
            builtin_vars: FxHashMap::default(),
            synthetic_uses: FxHashMap::default(),
            synthetic_int: FxHashSet::default(),
            synthetic_flat: FxHashSet::default(),
            cur_func: None,
            f: FuncState::default(),
            lines: opts.line_info.as_ref().map(super::lines::Lines::new),
            dbg: None,
            oversized_in: None,
            diags: Vec::new(),
        }
    }

    /// Notes `item` (a global or function just emitted) as the one OSB0010 names when it
    /// wrote the first oversized instruction: `before` is whether one had been written
    /// before it.
    pub(crate) fn note_oversized(&mut self, item: InstId, before: bool) {
        if !before && self.oversized_in.is_none() && self.s.oversized().is_some() {
            self.oversized_in = Some(item);
        }
    }

    /// A fresh id.
    #[inline]
    pub fn fresh(&mut self) -> u32 {
        let id = self.bound;
        self.bound += 1;
        id
    }

    /// The id of an IR entity, allocated on first request (forward references included).
    #[inline]
    pub fn id_of(&mut self, v: InstId) -> u32 {
        if let Some(&id) = self.ids.get(v) {
            return id;
        }
        let id = self.fresh();
        self.ids.insert(v, id);
        id
    }

    /// The `GLSL.std.450` import id.
    pub fn glsl_import(&mut self) -> u32 {
        if self.glsl == 0 {
            self.glsl = self.fresh();
            let id = self.glsl;
            inst_str(
                &mut self.s.imports,
                spirv::Op::ExtInstImport,
                &[id],
                "GLSL.std.450",
                &[],
            );
        }
        self.glsl
    }

    /// The layout rule of buffers in `space`, if it has one.
    pub fn rule_of(&self, space: AddressSpace) -> Option<LayoutRule> {
        match space {
            AddressSpace::Uniform => Some(self.opts.cbuffer_rule),
            AddressSpace::StorageBuffer => Some(self.opts.storage_rule),
            AddressSpace::PushConstant => Some(self.opts.push_constant_rule),
            // A shader-binding-table record is laid out like a storage buffer (DXC's rule).
            AddressSpace::ShaderRecord => Some(self.opts.storage_rule),
            _ => None,
        }
    }

    /// The layout rule of the buffer the pointer `v` (in `space`) points into: the
    /// texture-buffer rule inside a global decorated `texture_buffer`, else the rule of
    /// `space`.
    pub fn rule_of_ptr(&self, v: InstId, space: AddressSpace) -> Option<LayoutRule> {
        let rule = self.rule_of(space)?;
        if space != AddressSpace::StorageBuffer || self.opts.tbuffer_rule == rule {
            return Some(rule);
        }
        let m = self.m;
        let mut cur = v;
        for _ in 0..64 {
            match m.try_op(cur) {
                Some(Op::FieldAddr | Op::ElementAddr) => cur = m.operand(cur, 0),
                Some(Op::Global) => {
                    return Some(if m.has_decoration(cur, Op::TextureBuffer) {
                        self.opts.tbuffer_rule
                    } else {
                        rule
                    });
                }
                _ => break,
            }
        }
        Some(rule)
    }

    /// The layout values in `space` have when reached through a pointer.
    pub fn lk_of(&self, space: AddressSpace, row_major: bool) -> Lk {
        match self.rule_of(space) {
            Some(r) => Lk::Explicit(r, row_major),
            None => Lk::Logical,
        }
    }

    /// The layout values have when reached through the pointer `v` in `space`.
    pub fn lk_of_value(&self, v: InstId, space: AddressSpace, row_major: bool) -> Lk {
        match self.rule_of_ptr(v, space) {
            Some(r) => Lk::Explicit(r, row_major),
            None => Lk::Logical,
        }
    }

    /// Writes an `OpName` when debug names are on.
    pub fn name(&mut self, id: u32, name: Option<&str>) {
        if !self.opts.debug_names {
            return;
        }
        if let Some(n) = name {
            inst_str(&mut self.s.names, spirv::Op::Name, &[id], n, &[]);
        }
    }

    /// Writes a decoration.
    #[inline]
    pub fn decorate(&mut self, id: u32, d: spirv::Decoration, extra: &[u32]) {
        let mut w: SmallVec<[u32; 4]> = SmallVec::new();
        w.push(id);
        w.push(d as u32);
        w.extend_from_slice(extra);
        inst(&mut self.s.annotations, spirv::Op::Decorate, &w);
    }

    /// Writes an `OpDecorateString` (`UserSemantic`, `UserTypeGOOGLE`).
    pub fn decorate_string(&mut self, id: u32, d: spirv::Decoration, s: &str) {
        inst_str(
            &mut self.s.annotations,
            spirv::Op::DecorateString,
            &[id, d as u32],
            s,
            &[],
        );
    }

    /// Writes a member decoration.
    pub fn decorate_member(&mut self, id: u32, member: u32, d: spirv::Decoration, extra: &[u32]) {
        let mut w: SmallVec<[u32; 5]> = SmallVec::new();
        w.push(id);
        w.push(member);
        w.push(d as u32);
        w.extend_from_slice(extra);
        inst(&mut self.s.annotations, spirv::Op::MemberDecorate, &w);
    }

    /// Assembles the sections into a module.
    pub fn assemble(&mut self) -> Vec<u32> {
        let s = &self.s;
        let mut head = Words::with_capacity(64);
        self.caps.write(&mut head);
        let mut model = Words::default();
        inst(
            &mut model,
            spirv::Op::MemoryModel,
            &[
                spirv::AddressingModel::Logical as u32,
                spirv::MemoryModel::GLSL450 as u32,
            ],
        );
        let total = head.len()
            + s.imports.len()
            + model.len()
            + s.entries.len()
            + s.modes.len()
            + s.sources.len()
            + s.names.len()
            + s.annotations.len()
            + s.globals.len()
            + s.debug.len()
            + s.functions.len()
            + 5;
        let mut out = Vec::with_capacity(total);
        out.push(spirv::MAGIC_NUMBER);
        out.push((1 << 16) | ((self.minor as u32) << 8));
        // Generator: 0 (not registered with Khronos).
        out.push(0);
        out.push(self.bound);
        out.push(0);
        out.extend_from_slice(&head);
        out.extend_from_slice(&s.imports);
        out.extend_from_slice(&model);
        out.extend_from_slice(&s.entries);
        out.extend_from_slice(&s.modes);
        out.extend_from_slice(&s.sources);
        out.extend_from_slice(&s.names);
        out.extend_from_slice(&s.annotations);
        out.extend_from_slice(&s.globals);
        out.extend_from_slice(&s.debug);
        out.extend_from_slice(&s.functions);
        out
    }
}
