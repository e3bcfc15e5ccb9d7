//! The instruction table: every opcode of the IR, defined once.
//!
//! For each opcode the table gives its family, its text spelling, its stable wire id (written in
//! `.osir` files; never reuse or renumber one), the kinds of its operands and the rule for its
//! result type. docs/ir-ops.md is the prose version of this table; a test checks that the two
//! list the same opcodes.
//!
//! Opcodes are declared family by family, so every family is one contiguous range of [`Op`]
//! discriminants and the predicates (`is_type`, `is_hoistable`, `is_terminator`...) are range
//! checks.

use crate::effects::Effects;
use crate::imm::ImmKind;

/// The version of the IR's meaning: bump it whenever an opcode's semantics, operand order or
/// result-type rule changes (or a wire id would have to be reused), so that `.osir` files written
/// under the old meaning are refused instead of misread. Adding a new opcode with a new wire id
/// does not need a bump.
pub const IR_SEMANTICS_VERSION: u32 = 1;

/// What an operand slot holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Any value: an instruction result, a parameter, a constant, a global, a function.
    Value,
    /// A type.
    Type,
    /// A type or a value (arguments of `specialize`).
    TypeOrValue,
    /// A successor block of a terminator.
    Block,
    /// A join point of a structured terminator (merge, break or continue block), printed after
    /// the given keyword. Not a control-flow successor.
    Join(&'static str),
    /// A function (or a `specialize` that yields one).
    Func,
    /// A `generic`.
    Generic,
    /// An unsigned integer immediate (`u32` constant): counts, indices, ids.
    Int,
    /// An immediate naming a member of an enumeration.
    Imm(ImmKind),
    /// A constant of the same scalar type as another operand (switch case values).
    Const,
    /// A string constant.
    Str,
}

/// The operands after the fixed ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rest {
    /// No more operands.
    None,
    /// Any number of operands of this kind.
    Many(Kind),
    /// Any number of pairs.
    Pairs(Kind, Kind),
    /// Any prefix of these operands (optional trailing operands).
    Optional(&'static [Kind]),
}

/// How an instruction's type is determined; the verifier checks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeRule {
    /// The instruction has no type (structural kinds, types, decorations, terminators).
    None,
    /// The type is `void` (statements such as `store`).
    Void,
    /// The type is given when the instruction is built; opcode-specific checks apply.
    Explicit,
    /// The type of operand `n`.
    SameAs(u8),
    /// `bool` (or a `bool` vector) of the shape of operand `n`.
    BoolOf(u8),
    /// The pointee type of operand `n`, which is a pointer.
    Pointee(u8),
}

/// The family of an opcode; each is a contiguous range of [`Op`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// Module, functions, blocks, parameters, globals, generics, struct fields.
    Structural,
    /// Types. All are hoistable except `struct`, which is nominal.
    Type,
    /// Constants: hoistable, deduplicated by exact bits.
    Constant,
    /// Other hoistable global values: `spec_const`, `specialize`.
    GlobalValue,
    /// Decorations: the first children of what they decorate.
    Decoration,
    /// Ordinary instructions inside blocks.
    Instruction,
    /// Block terminators.
    Terminator,
}

/// What an opcode does, finer than its [`Family`]: the group a tool reports or filters it by
/// (an instruction histogram, a pass that only looks at memory, a profiler's column). The
/// non-instruction families are one category each; instructions and terminators are split by
/// what they compute or touch. docs/ir-ops.md lists every opcode of each category.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Category {
    /// Module, functions, blocks, parameters, globals, generics, struct fields.
    Structural,
    /// Types.
    Type,
    /// Constants.
    Constant,
    /// `spec_const`, `specialize`.
    GlobalValue,
    /// Decorations.
    Decoration,
    /// Arithmetic on numbers, vectors and matrices: `add` .. `neg`, `matmul`.
    Arithmetic,
    /// Bitwise and logical operations and shifts: `and`, `or`, `xor`, `not`, `shl`, `shr`.
    Bitwise,
    /// Comparisons: `eq` .. `ge`.
    Comparison,
    /// Conversions between scalar types and reinterpretations: `convert`, `bitcast`.
    Conversion,
    /// Building, taking apart and choosing between values: `construct`, `extract`, `insert`,
    /// their dynamic forms, `shuffle`, `select`.
    Composite,
    /// Variables and memory through pointers: `var`, `load`, `store`, `array_length`.
    Memory,
    /// Pointer arithmetic: `field_addr`, `element_addr`, `texel_addr`.
    Address,
    /// Calls of functions and of intrinsics.
    Call,
    /// Texture sampling, gathering, loads, stores and queries.
    Texture,
    /// Typed buffer loads and stores.
    Buffer,
    /// Atomic read-modify-write and compare-exchange.
    Atomic,
    /// Barriers.
    Synchronization,
    /// Geometry and mesh shader output: `emit_vertex`, `end_primitive`, `set_mesh_outputs`,
    /// `dispatch_mesh`.
    Geometry,
    /// Ray tracing and ray queries.
    RayTracing,
    /// Control flow: branches, loops, selections, `return`, `discard`, `unreachable`.
    Control,
}

impl Category {
    /// Every category, in declaration order.
    pub const ALL: &'static [Category] = &[
        Category::Structural,
        Category::Type,
        Category::Constant,
        Category::GlobalValue,
        Category::Decoration,
        Category::Arithmetic,
        Category::Bitwise,
        Category::Comparison,
        Category::Conversion,
        Category::Composite,
        Category::Memory,
        Category::Address,
        Category::Call,
        Category::Texture,
        Category::Buffer,
        Category::Atomic,
        Category::Synchronization,
        Category::Geometry,
        Category::RayTracing,
        Category::Control,
    ];

    /// The lower-case name docs/ir-ops.md uses (`ray tracing`).
    pub fn name(self) -> &'static str {
        match self {
            Category::Structural => "structural",
            Category::Type => "type",
            Category::Constant => "constant",
            Category::GlobalValue => "global value",
            Category::Decoration => "decoration",
            Category::Arithmetic => "arithmetic",
            Category::Bitwise => "bitwise",
            Category::Comparison => "comparison",
            Category::Conversion => "conversion",
            Category::Composite => "composite",
            Category::Memory => "memory",
            Category::Address => "address",
            Category::Call => "call",
            Category::Texture => "texture",
            Category::Buffer => "buffer",
            Category::Atomic => "atomic",
            Category::Synchronization => "synchronization",
            Category::Geometry => "geometry",
            Category::RayTracing => "ray tracing",
            Category::Control => "control",
        }
    }
}

/// The static description of an opcode.
#[derive(Clone, Copy, Debug)]
pub struct OpInfo {
    /// Text spelling.
    pub spelling: &'static str,
    /// Family.
    pub family: Family,
    /// Stable wire id (`.osir`).
    pub wire: u16,
    /// Kinds of the fixed operands.
    pub operands: &'static [Kind],
    /// The operands after the fixed ones.
    pub rest: Rest,
    /// Result type rule.
    pub ty: TypeRule,
    /// What an instruction of this opcode does besides computing its result, judged by the
    /// opcode alone ([`Op::effects`]).
    pub effects: Effects,
    /// For a decoration, what it may decorate (the verifier's OSV0017); `NONE` otherwise.
    pub decorates: DecoTargets,
}

/// What a decoration may decorate: the instruction table's last column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DecoTargets(u16);

impl DecoTargets {
    /// Nothing (not a decoration).
    pub const NONE: DecoTargets = DecoTargets(0);
    /// Globals (resources and their access qualifiers).
    pub const GLOBAL: DecoTargets = DecoTargets(1);
    /// Stage-interface values: globals, parameters and struct fields.
    pub const INTERFACE: DecoTargets = DecoTargets(1 << 1);
    /// Matrix layout: struct fields, globals and variables.
    pub const MAJORNESS: DecoTargets = DecoTargets(1 << 2);
    /// Struct fields.
    pub const FIELD: DecoTargets = DecoTargets(1 << 3);
    /// Functions (entry points and their execution modes).
    pub const FUNC: DecoTargets = DecoTargets(1 << 4);
    /// Globals in the input or output space (stage-IO qualifiers).
    pub const STAGE_IO: DecoTargets = DecoTargets(1 << 5);
    /// What links across modules: functions, globals and generics.
    pub const LINKED: DecoTargets = DecoTargets(1 << 6);
    /// Instructions.
    pub const INSTRUCTION: DecoTargets = DecoTargets(1 << 7);
    /// `loop` terminators.
    pub const LOOP: DecoTargets = DecoTargets(1 << 8);
    /// `if_else` and `switch` terminators.
    pub const SELECTION: DecoTargets = DecoTargets(1 << 9);

    /// True when a decoration with these targets may decorate an instruction of opcode
    /// `target` (for [`Self::STAGE_IO`], a global; its address space is the verifier's to
    /// check).
    pub fn allows(self, target: Op) -> bool {
        match self {
            DecoTargets::GLOBAL | DecoTargets::STAGE_IO => target == Op::Global,
            DecoTargets::INTERFACE => matches!(target, Op::Global | Op::Param | Op::Field),
            DecoTargets::MAJORNESS => matches!(target, Op::Field | Op::Global | Op::Var),
            DecoTargets::FIELD => target == Op::Field,
            DecoTargets::FUNC => target == Op::Func,
            DecoTargets::LINKED => matches!(target, Op::Func | Op::Global | Op::Generic),
            DecoTargets::INSTRUCTION => target.is_instruction(),
            DecoTargets::LOOP => target == Op::Loop,
            DecoTargets::SELECTION => matches!(target, Op::IfElse | Op::Switch),
            _ => false,
        }
    }
}

/// The effect sets the table's last column names.
mod fx {
    use crate::effects::Effects;

    /// Nothing: types, constants, decorations, pure instructions.
    pub const PURE: Effects = Effects::PURE;
    /// Reads memory or state.
    pub const READ: Effects = Effects::READ;
    /// Writes memory.
    pub const WRITE: Effects = Effects::WRITE;
    /// Reads and writes (atomics, emitting vertices, ray tracing, ray queries).
    pub const RW: Effects = Effects::READ.union(Effects::WRITE);
    /// Writes, once per workgroup in uniform control flow (`set_mesh_outputs`).
    pub const WRITE_CONVERGENT: Effects = Effects::WRITE.union(Effects::CONVERGENT);
    /// Synchronizes (`barrier`).
    pub const BARRIER: Effects = Effects::BARRIER.union(Effects::CONVERGENT);
    /// A call of a function whose body is not looked at.
    pub const CALL: Effects = Effects::UNKNOWN_CALL;
    /// A texture read with implicit derivatives.
    pub const SAMPLE: Effects = Effects::READ
        .union(Effects::CONVERGENT)
        .union(Effects::DERIVATIVES);
    /// `call_intrinsic`: the union over every intrinsic (each one's own row is in
    /// `intrinsic_facts`).
    pub const INTRINSIC: Effects = Effects::READ
        .union(Effects::WRITE)
        .union(Effects::CONVERGENT)
        .union(Effects::DERIVATIVES)
        .union(Effects::OUTPUT);
    /// Transfers control (terminators).
    pub const CONTROL: Effects = Effects::CONTROL;
    /// Allocates (`var`).
    pub const ALLOCATES: Effects = Effects::ALLOCATES;
}

impl OpInfo {
    /// True when `n` operands fit the signature.
    pub fn arity_ok(&self, n: usize) -> bool {
        let fixed = self.operands.len();
        match self.rest {
            Rest::None => n == fixed,
            Rest::Many(_) => n >= fixed,
            Rest::Pairs(..) => n >= fixed && (n - fixed).is_multiple_of(2),
            Rest::Optional(opt) => n >= fixed && n <= fixed + opt.len(),
        }
    }

    /// The kind of operand `i`, or `None` when the signature has no operand `i`.
    pub fn kind(&self, i: usize) -> Option<Kind> {
        if let Some(k) = self.operands.get(i) {
            return Some(*k);
        }
        let j = i - self.operands.len();
        match self.rest {
            Rest::None => None,
            Rest::Many(k) => Some(k),
            Rest::Pairs(a, b) => Some(if j.is_multiple_of(2) { a } else { b }),
            Rest::Optional(opt) => opt.get(j).copied(),
        }
    }
}

macro_rules! define_ops {
    (
        $(
            $(#[$doc:meta])*
            $variant:ident $spelling:literal $family:ident $wire:literal
                [$($kind:expr),*] $rest:expr, $rule:expr, $effects:ident, $targets:ident;
        )*
    ) => {
        /// An opcode. Declaration order groups families into contiguous ranges.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        #[non_exhaustive]
        pub enum Op {
            $( $(#[$doc])* $variant, )*
        }

        /// Every opcode, in declaration order.
        pub const ALL_OPS: &[Op] = &[$(Op::$variant),*];

        const INFO: &[OpInfo] = &[
            $(
                OpInfo {
                    spelling: $spelling,
                    family: Family::$family,
                    wire: $wire,
                    operands: &[$($kind),*],
                    rest: $rest,
                    ty: $rule,
                    effects: fx::$effects,
                    decorates: DecoTargets::$targets,
                },
            )*
        ];
    };
}

use Kind::*;
use TypeRule as R;

define_ops! {
    // ---- structural ------------------------------------------------------------------------
    /// The module: the root of the tree.
    Module "module" Structural 1 [] Rest::None, R::None, PURE, NONE;
    /// A function; its type is a `fn` type; its children are blocks (none for a declaration).
    Func "func" Structural 2 [] Rest::None, R::Explicit, PURE, NONE;
    /// A basic block: parameters, then instructions, then one terminator.
    Block "block" Structural 3 [] Rest::None, R::None, PURE, NONE;
    /// A block parameter (a function parameter when in the entry block; a generic parameter in
    /// a generic's body).
    Param "param" Structural 4 [] Rest::None, R::Explicit, PURE, NONE;
    /// A global variable; its type is a pointer; the optional operand is a constant initializer.
    Global "global" Structural 5 [] Rest::Optional(&[Value]), R::Explicit, PURE, NONE;
    /// A generic: one body block whose params are the generic parameters and which returns
    /// what the generic yields (a function or a type).
    Generic "generic" Structural 6 [] Rest::None, R::None, PURE, NONE;
    /// A field of a struct type; its type is the field's type.
    Field "field" Structural 7 [] Rest::None, R::Explicit, PURE, NONE;

    // ---- types -----------------------------------------------------------------------------
    /// A nominal struct type; its children are `field`s. Not deduplicated.
    Struct "struct" Type 16 [] Rest::None, R::None, PURE, NONE;
    /// `void`.
    Void "void" Type 17 [] Rest::None, R::None, PURE, NONE;
    /// `bool`.
    Bool "bool" Type 18 [] Rest::None, R::None, PURE, NONE;
    /// 8-bit signed integer.
    I8 "i8" Type 19 [] Rest::None, R::None, PURE, NONE;
    /// 16-bit signed integer.
    I16 "i16" Type 20 [] Rest::None, R::None, PURE, NONE;
    /// 32-bit signed integer.
    I32 "i32" Type 21 [] Rest::None, R::None, PURE, NONE;
    /// 64-bit signed integer.
    I64 "i64" Type 22 [] Rest::None, R::None, PURE, NONE;
    /// 8-bit unsigned integer.
    U8 "u8" Type 23 [] Rest::None, R::None, PURE, NONE;
    /// 16-bit unsigned integer.
    U16 "u16" Type 24 [] Rest::None, R::None, PURE, NONE;
    /// 32-bit unsigned integer.
    U32 "u32" Type 25 [] Rest::None, R::None, PURE, NONE;
    /// 64-bit unsigned integer.
    U64 "u64" Type 26 [] Rest::None, R::None, PURE, NONE;
    /// 16-bit float.
    F16 "f16" Type 27 [] Rest::None, R::None, PURE, NONE;
    /// 32-bit float.
    F32 "f32" Type 28 [] Rest::None, R::None, PURE, NONE;
    /// 64-bit float.
    F64 "f64" Type 29 [] Rest::None, R::None, PURE, NONE;
    /// `vec<elem, n>`, n in 2..=4.
    Vector "vec" Type 30 [Type, Int] Rest::None, R::None, PURE, NONE;
    /// `mat<elem, rows, cols>`: HLSL's `floatRxC`; element `i` is row `i`. Majorness lives on
    /// the fields and variables that store a matrix, never on the type.
    Matrix "mat" Type 31 [Type, Int, Int] Rest::None, R::None, PURE, NONE;
    /// `array<elem, n>`.
    Array "array" Type 32 [Type, Int] Rest::None, R::None, PURE, NONE;
    /// `rtarray<elem>`: a runtime-sized array (storage buffers).
    RuntimeArray "rtarray" Type 33 [Type] Rest::None, R::None, PURE, NONE;
    /// `ptr<space, pointee>`.
    Ptr "ptr" Type 34 [Imm(ImmKind::AddressSpace), Type] Rest::None, R::None, PURE, NONE;
    /// `fn(params) -> ret`: operand 0 is the return type.
    FnType "fn" Type 35 [Type] Rest::Many(Type), R::None, PURE, NONE;
    /// `texture<dim, sampled type, arrayed, multisampled, depth, access, format>`; depth is 0
    /// (not depth), 1 (depth) or 2 (unknown).
    Texture "texture" Type 36
        [Type, Imm(ImmKind::Dim), Int, Int, Int, Imm(ImmKind::TextureAccess), Imm(ImmKind::ImageFormat)]
        Rest::None, R::None, PURE, NONE;
    /// `sampler`.
    Sampler "sampler" Type 37 [] Rest::None, R::None, PURE, NONE;
    /// `sampler_cmp`: a comparison sampler.
    SamplerCmp "sampler_cmp" Type 38 [] Rest::None, R::None, PURE, NONE;
    /// `string`: the type of string constants (decoration operands).
    StringType "string" Type 39 [] Rest::None, R::None, PURE, NONE;
    /// `type`: the type of generic type parameters.
    TypeType "type" Type 40 [] Rest::None, R::None, PURE, NONE;
    /// `accel_struct`: a ray-tracing acceleration structure (HLSL
    /// `RaytracingAccelerationStructure`); a resource, held in `uniform_constant` globals.
    AccelStruct "accel_struct" Type 41 [] Rest::None, R::None, PURE, NONE;
    /// `ray_query`: the state of a ray query (HLSL `RayQuery<flags>`), held in `function` or
    /// `private` variables and used only through the `ray_query_*` instructions.
    RayQuery "ray_query" Type 42 [] Rest::None, R::None, PURE, NONE;

    // ---- constants -------------------------------------------------------------------------
    /// `true` / `false`.
    ConstBool "const_bool" Constant 64 [] Rest::None, R::Explicit, PURE, NONE;
    /// An integer constant: exact bits, zero-extended to 64 bits.
    ConstInt "const_int" Constant 65 [] Rest::None, R::Explicit, PURE, NONE;
    /// A float constant: exact bits (f16 and f32 zero-extended to 64 bits).
    ConstFloat "const_float" Constant 66 [] Rest::None, R::Explicit, PURE, NONE;
    /// A string constant (type `string`).
    ConstString "const_string" Constant 67 [] Rest::None, R::Explicit, PURE, NONE;
    /// A constant vector, matrix (of row vectors), array or struct.
    Composite "composite" Constant 68 [] Rest::Many(Value), R::Explicit, PURE, NONE;
    /// The all-zero value of a type.
    Zero "zero" Constant 69 [] Rest::None, R::Explicit, PURE, NONE;
    /// An undefined value of a type.
    Undef "undef" Constant 70 [] Rest::None, R::Explicit, PURE, NONE;

    // ---- other hoistable values ------------------------------------------------------------
    /// `spec_const(id, default)`: a specialization constant; never folded.
    SpecConst "spec_const" GlobalValue 80 [Int, Value] Rest::None, R::SameAs(1), PURE, NONE;
    /// `specialize(generic, args...)`: a generic applied to arguments.
    Specialize "specialize" GlobalValue 81 [Generic] Rest::Many(TypeOrValue), R::Explicit, PURE, NONE;

    // ---- decorations -----------------------------------------------------------------------
    /// `binding(set, binding)` on a resource global.
    Binding "binding" Decoration 96 [Int, Int] Rest::None, R::None, PURE, GLOBAL;
    /// `location(n)` on a stage input or output.
    Location "location" Decoration 97 [Int] Rest::None, R::None, PURE, INTERFACE;
    /// `builtin(name)` on a stage input or output.
    BuiltinDeco "builtin" Decoration 98 [Imm(ImmKind::BuiltIn)] Rest::None, R::None, PURE, INTERFACE;
    /// Flat interpolation (`nointerpolation`).
    Flat "flat" Decoration 99 [] Rest::None, R::None, PURE, INTERFACE;
    /// Linear interpolation without perspective (`noperspective`).
    NoPerspective "noperspective" Decoration 100 [] Rest::None, R::None, PURE, INTERFACE;
    /// Centroid interpolation.
    Centroid "centroid" Decoration 101 [] Rest::None, R::None, PURE, INTERFACE;
    /// Per-sample interpolation.
    SampleDeco "per_sample" Decoration 102 [] Rest::None, R::None, PURE, INTERFACE;
    /// The decorated value indexes resources non-uniformly.
    NonUniform "nonuniform" Decoration 103 [] Rest::None, R::None, PURE, INSTRUCTION;
    /// A matrix field or variable stored row-major.
    RowMajor "row_major" Decoration 104 [] Rest::None, R::None, PURE, MAJORNESS;
    /// A matrix field or variable stored column-major.
    ColMajor "col_major" Decoration 105 [] Rest::None, R::None, PURE, MAJORNESS;
    /// `offset(bytes)` on a field: an explicit offset (`packoffset`, `[[vk::offset]]`).
    Offset "offset" Decoration 106 [Int] Rest::None, R::None, PURE, FIELD;
    /// `entry_point(stage, "name")` on a `fn() -> void` function.
    EntryPoint "entry_point" Decoration 107 [Imm(ImmKind::Stage), Str] Rest::None, R::None, PURE, FUNC;
    /// `numthreads(x, y, z)` on a compute entry point.
    NumThreads "numthreads" Decoration 108 [Int, Int, Int] Rest::None, R::None, PURE, FUNC;
    /// `export("mangled")` on a function, global or generic this module provides.
    Export "export" Decoration 109 [Str] Rest::None, R::None, PURE, LINKED;
    /// `import("mangled")` on a function declaration or global another module provides.
    Import "import" Decoration 110 [Str] Rest::None, R::None, PURE, LINKED;
    /// `precise`: no reassociation or fusing.
    Precise "precise" Decoration 111 [] Rest::None, R::None, PURE, INSTRUCTION;
    /// `unroll(n)` on a `loop` (0: fully).
    Unroll "unroll" Decoration 112 [Int] Rest::None, R::None, PURE, LOOP;
    /// `dont_unroll` on a `loop` (HLSL `[loop]`).
    DontUnroll "dont_unroll" Decoration 113 [] Rest::None, R::None, PURE, LOOP;
    /// `flatten` on an `if_else` or `switch`.
    Flatten "flatten" Decoration 114 [] Rest::None, R::None, PURE, SELECTION;
    /// `branch` on an `if_else` or `switch` (HLSL `[branch]`, `[call]`).
    DontFlatten "dont_flatten" Decoration 115 [] Rest::None, R::None, PURE, SELECTION;
    /// The resource is never written.
    ReadOnly "readonly" Decoration 116 [] Rest::None, R::None, PURE, GLOBAL;
    /// The resource is never read.
    WriteOnly "writeonly" Decoration 117 [] Rest::None, R::None, PURE, GLOBAL;
    /// `globallycoherent`.
    Coherent "coherent" Decoration 118 [] Rest::None, R::None, PURE, GLOBAL;
    /// `[earlydepthstencil]` on a fragment entry point.
    EarlyFragmentTests "early_fragment_tests" Decoration 119 [] Rest::None, R::None, PURE, FUNC;
    /// `counter(@g)` on an append/consume buffer: the global holding its counter.
    Counter "counter" Decoration 120 [Value] Rest::None, R::None, PURE, GLOBAL;
    /// `semantic("NAME", index[, written])` on a stage input or output: the HLSL semantic,
    /// for reflection and SPIR-V's `UserSemantic`. `written` is 1 when the source spelled the
    /// index (`TEXCOORD0`) and 0 when it did not (`TEXCOORD`); without it, the index is
    /// spelled when it is not 0.
    Semantic "semantic" Decoration 121 [Str, Int] Rest::Optional(&[Int]), R::None, PURE, INTERFACE;
    /// `input_attachment_index(n)` on a subpass input.
    InputAttachmentIndex "input_attachment_index" Decoration 122 [Int] Rest::None, R::None, PURE, GLOBAL;
    /// `invariant` on a position output.
    Invariant "invariant" Decoration 123 [] Rest::None, R::None, PURE, INTERFACE;
    /// `texture_buffer` on a storage-buffer global: an HLSL `tbuffer`/`TextureBuffer`, laid
    /// out with the texture-buffer rule (D3D constant-buffer packing under DXC's
    /// `-fvk-use-dx-layout`, the storage-buffer rule otherwise).
    TextureBuffer "texture_buffer" Decoration 124 [] Rest::None, R::None, PURE, GLOBAL;
    /// `src_loc(file, start, end)` on an instruction: the source range it was lowered from
    /// (a file number of the front end's source map and byte offsets), so a backend refusing
    /// the construct can point at it.
    SrcLoc "src_loc" Decoration 125 [Int, Int, Int] Rest::None, R::None, PURE, INSTRUCTION;
    /// `input_primitive(p)` on a geometry entry point: the primitive it receives (`point`,
    /// `line`, `triangle`, `line_adj`, `triangle_adj`).
    InputPrimitive "input_primitive" Decoration 126 [Imm(ImmKind::Primitive)] Rest::None, R::None, PURE, FUNC;
    /// `output_primitive(p)` on a geometry entry point (`point`, `line_strip`,
    /// `triangle_strip`), a mesh entry point (`point`, `line`, `triangle`) or a hull entry
    /// point (the tessellator's output: `point`, `line`, `triangle_cw`, `triangle_ccw`).
    OutputPrimitive "output_primitive" Decoration 127 [Imm(ImmKind::Primitive)] Rest::None, R::None, PURE, FUNC;
    /// `max_vertices(n)` on a geometry entry point (`[maxvertexcount(n)]`) or a mesh entry
    /// point (the length of its vertex outputs).
    MaxVertices "max_vertices" Decoration 128 [Int] Rest::None, R::None, PURE, FUNC;
    /// `max_primitives(n)` on a mesh entry point (the length of its primitive outputs).
    MaxPrimitives "max_primitives" Decoration 129 [Int] Rest::None, R::None, PURE, FUNC;
    /// `invocations(n)` on a geometry entry point (`[instance(n)]`).
    Invocations "invocations" Decoration 130 [Int] Rest::None, R::None, PURE, FUNC;
    /// `tess_domain(d)` on a hull or domain entry point (`[domain("...")]`).
    TessDomainDeco "tess_domain" Decoration 131 [Imm(ImmKind::TessDomain)] Rest::None, R::None, PURE, FUNC;
    /// `tess_partitioning(p)` on a hull entry point (`[partitioning("...")]`).
    TessPartitioning "tess_partitioning" Decoration 132 [Imm(ImmKind::Partitioning)] Rest::None, R::None, PURE, FUNC;
    /// `output_control_points(n)` on a hull entry point (`[outputcontrolpoints(n)]`).
    OutputControlPoints "output_control_points" Decoration 133 [Int] Rest::None, R::None, PURE, FUNC;
    /// `patch` on a hull output or domain input: one value per patch, not per control point.
    Patch "patch" Decoration 134 [] Rest::None, R::None, PURE, STAGE_IO;
    /// `per_primitive` on a mesh output (or the fragment input it feeds): one value per
    /// primitive, not per vertex.
    PerPrimitive "per_primitive" Decoration 135 [] Rest::None, R::None, PURE, STAGE_IO;
    /// `stream(n)` on a geometry output: the vertex stream it belongs to.
    StreamDeco "stream" Decoration 136 [Int] Rest::None, R::None, PURE, STAGE_IO;
    /// `run_once` on a `loop` a pass built to run a body exactly once (the inliner's wrapper
    /// around a callee with early returns, the unroller's wrapper around copies with breaks):
    /// its back edge is never taken, so analyses can tell it from a loop the user wrote.
    RunOnce "run_once" Decoration 137 [] Rest::None, R::None, PURE, LOOP;
    /// `hlsl_register(class, number, space, chosen)` on a resource global from HLSL: the
    /// register it was declared at (class 0 `b`, 1 `t`, 2 `s`, 3 `u`; number `0xffffffff`
    /// when the source gave no `register(...)`; its space, or the default one) and whether
    /// the user chose its Vulkan binding (1: `[[vk::binding]]`, a `-fvk-*-shift` of its class,
    /// `-fvk-bind-register`, `[[vk::counter_binding]]`; 0: DXC's default rule placed it).
    /// Reflection reports the register; targets whose binding model differs from Vulkan's
    /// (WGSL) re-place what the user did not choose.
    HlslRegister "hlsl_register" Decoration 138 [Int, Int, Int, Int] Rest::None, R::None, PURE, GLOBAL;
    /// `user_type("texture2d:<float>")` on a resource global: its source-language type as
    /// SPIR-V's `UserTypeGOOGLE` spells it (HLSL: the type name in lower case, then its
    /// template arguments as written, `structuredbuffer:<S>`, `texture2dmsarray:<float4,64>`;
    /// an array of resources takes its element's; `cbuffer`, `tbuffer`). Emitted only when
    /// asked (DXC's `-fspv-reflect`).
    UserType "user_type" Decoration 139 [Str] Rest::None, R::None, PURE, GLOBAL;

    // ---- instructions ----------------------------------------------------------------------
    /// `a + b`, component-wise; integer wrapping.
    Add "add" Instruction 160 [Value, Value] Rest::None, R::SameAs(0), PURE, NONE;
    /// `a - b`.
    Sub "sub" Instruction 161 [Value, Value] Rest::None, R::SameAs(0), PURE, NONE;
    /// `a * b`, component-wise (also on matrices); the matrix product is `matmul`.
    Mul "mul" Instruction 162 [Value, Value] Rest::None, R::SameAs(0), PURE, NONE;
    /// `a / b` (signedness from the type).
    Div "div" Instruction 163 [Value, Value] Rest::None, R::SameAs(0), PURE, NONE;
    /// `a % b` (HLSL: the result has the sign of `a`).
    Rem "rem" Instruction 164 [Value, Value] Rest::None, R::SameAs(0), PURE, NONE;
    /// `-a`.
    Neg "neg" Instruction 165 [Value] Rest::None, R::SameAs(0), PURE, NONE;
    /// Bitwise and on integers, logical and on bools.
    And "and" Instruction 166 [Value, Value] Rest::None, R::SameAs(0), PURE, NONE;
    /// Bitwise or on integers, logical or on bools.
    Or "or" Instruction 167 [Value, Value] Rest::None, R::SameAs(0), PURE, NONE;
    /// Bitwise xor on integers, logical xor (`!=`) on bools.
    Xor "xor" Instruction 168 [Value, Value] Rest::None, R::SameAs(0), PURE, NONE;
    /// Bitwise not on integers, logical not on bools.
    Not "not" Instruction 169 [Value] Rest::None, R::SameAs(0), PURE, NONE;
    /// `a << (b & (bits - 1))`.
    Shl "shl" Instruction 170 [Value, Value] Rest::None, R::SameAs(0), PURE, NONE;
    /// `a >> (b & (bits - 1))`, arithmetic on signed types, logical on unsigned.
    Shr "shr" Instruction 171 [Value, Value] Rest::None, R::SameAs(0), PURE, NONE;
    /// `a == b` (ordered for floats).
    Eq "eq" Instruction 172 [Value, Value] Rest::None, R::BoolOf(0), PURE, NONE;
    /// `a != b` (unordered for floats: true when either is NaN).
    Ne "ne" Instruction 173 [Value, Value] Rest::None, R::BoolOf(0), PURE, NONE;
    /// `a < b`.
    Lt "lt" Instruction 174 [Value, Value] Rest::None, R::BoolOf(0), PURE, NONE;
    /// `a <= b`.
    Le "le" Instruction 175 [Value, Value] Rest::None, R::BoolOf(0), PURE, NONE;
    /// `a > b`.
    Gt "gt" Instruction 176 [Value, Value] Rest::None, R::BoolOf(0), PURE, NONE;
    /// `a >= b`.
    Ge "ge" Instruction 177 [Value, Value] Rest::None, R::BoolOf(0), PURE, NONE;
    /// Matrix product (HLSL `mul`): matrix*matrix, matrix*vector, vector*matrix.
    MatMul "matmul" Instruction 178 [Value, Value] Rest::None, R::Explicit, PURE, NONE;
    /// Numeric conversion to the result type (same shape).
    Convert "convert" Instruction 179 [Value] Rest::None, R::Explicit, PURE, NONE;
    /// Reinterpretation of the bits (same total size).
    Bitcast "bitcast" Instruction 180 [Value] Rest::None, R::Explicit, PURE, NONE;
    /// Builds a vector, matrix (from rows), array or struct from its elements.
    Construct "construct" Instruction 181 [] Rest::Many(Value), R::Explicit, PURE, NONE;
    /// Reads an element of a composite at constant indices (one per nesting level).
    Extract "extract" Instruction 182 [Value, Int] Rest::Many(Int), R::Explicit, PURE, NONE;
    /// A copy of a composite with one element replaced at constant indices.
    Insert "insert" Instruction 183 [Value, Value, Int] Rest::Many(Int), R::SameAs(0), PURE, NONE;
    /// Reads a vector component (or array element) at a run-time index.
    ExtractDyn "extract_dyn" Instruction 184 [Value, Value] Rest::None, R::Explicit, PURE, NONE;
    /// A copy of a vector with the component at a run-time index replaced.
    InsertDyn "insert_dyn" Instruction 185 [Value, Value, Value] Rest::None, R::SameAs(0), PURE, NONE;
    /// Picks components of two vectors by constant index (0.. from the first, then the second).
    Shuffle "shuffle" Instruction 186 [Value, Value] Rest::Many(Int), R::Explicit, PURE, NONE;
    /// `cond ? a : b`, component-wise when `cond` is a vector.
    Select "select" Instruction 187 [Value, Value, Value] Rest::None, R::SameAs(1), PURE, NONE;
    /// Function-local storage; the type is `ptr<function, T>`.
    Var "var" Instruction 188 [] Rest::None, R::Explicit, ALLOCATES, NONE;
    /// Reads through a pointer.
    Load "load" Instruction 189 [Value] Rest::None, R::Pointee(0), READ, NONE;
    /// Writes through a pointer: `store ptr, value`.
    Store "store" Instruction 190 [Value, Value] Rest::None, R::Void, WRITE, NONE;
    /// The address of a struct field: `field_addr ptr, index`.
    FieldAddr "field_addr" Instruction 191 [Value, Int] Rest::None, R::Explicit, PURE, NONE;
    /// The address of an array element, vector component or matrix row at a run-time index.
    ElementAddr "element_addr" Instruction 192 [Value, Value] Rest::None, R::Explicit, PURE, NONE;
    /// The address of a texel of a storage texture, for atomics: `texel_addr tex, coord, sample`.
    TexelAddr "texel_addr" Instruction 193 [Value, Value, Value] Rest::None, R::Explicit, PURE, NONE;
    /// Calls a function.
    Call "call" Instruction 194 [Func] Rest::Many(Value), R::Explicit, CALL, NONE;
    /// Calls an intrinsic.
    CallIntrinsic "call_intrinsic" Instruction 195 [Imm(ImmKind::Intrinsic)] Rest::Many(Value), R::Explicit, INTRINSIC, NONE;
    /// `sample tex, sampler, coord [, offset [, min_lod]]`.
    Sample "sample" Instruction 196 [Value, Value, Value] Rest::Optional(&[Value, Value]), R::Explicit, SAMPLE, NONE;
    /// `sample_bias tex, sampler, coord, bias [, offset [, min_lod]]`.
    SampleBias "sample_bias" Instruction 197 [Value, Value, Value, Value] Rest::Optional(&[Value, Value]), R::Explicit, SAMPLE, NONE;
    /// `sample_level tex, sampler, coord, lod [, offset]`.
    SampleLevel "sample_level" Instruction 198 [Value, Value, Value, Value] Rest::Optional(&[Value]), R::Explicit, READ, NONE;
    /// `sample_grad tex, sampler, coord, ddx, ddy [, offset [, min_lod]]`.
    SampleGrad "sample_grad" Instruction 199 [Value, Value, Value, Value, Value] Rest::Optional(&[Value, Value]), R::Explicit, READ, NONE;
    /// `sample_cmp tex, sampler, coord, reference [, offset [, min_lod]]`.
    SampleCmp "sample_cmp" Instruction 200 [Value, Value, Value, Value] Rest::Optional(&[Value, Value]), R::Explicit, SAMPLE, NONE;
    /// `sample_cmp_level_zero tex, sampler, coord, reference [, offset]`.
    SampleCmpLevelZero "sample_cmp_level_zero" Instruction 201 [Value, Value, Value, Value] Rest::Optional(&[Value]), R::Explicit, READ, NONE;
    /// `gather tex, sampler, coord, component [, offset]`; the offset may be an
    /// `array<vec<i32, 2>, 4>` of one offset per gathered texel.
    Gather "gather" Instruction 202 [Value, Value, Value, Int] Rest::Optional(&[Value]), R::Explicit, READ, NONE;
    /// `gather_cmp tex, sampler, coord, reference [, offset]` (one offset or four, as `gather`).
    GatherCmp "gather_cmp" Instruction 203 [Value, Value, Value, Value] Rest::Optional(&[Value]), R::Explicit, READ, NONE;
    /// `texture_load tex, coord [, lod or sample index [, offset]]`.
    TextureLoad "texture_load" Instruction 204 [Value, Value] Rest::Optional(&[Value, Value]), R::Explicit, READ, NONE;
    /// `texture_store tex, coord, value`.
    TextureStore "texture_store" Instruction 205 [Value, Value, Value] Rest::None, R::Void, WRITE, NONE;
    /// `query_size tex [, lod]`: the size (a scalar or vector of u32, plus layers when arrayed).
    QuerySize "query_size" Instruction 206 [Value] Rest::Optional(&[Value]), R::Explicit, READ, NONE;
    /// `query_levels tex`.
    QueryLevels "query_levels" Instruction 207 [Value] Rest::None, R::Explicit, READ, NONE;
    /// `query_samples tex`.
    QuerySamples "query_samples" Instruction 208 [Value] Rest::None, R::Explicit, READ, NONE;
    /// `query_lod tex, sampler, coord`.
    QueryLod "query_lod" Instruction 209 [Value, Value, Value] Rest::None, R::Explicit, SAMPLE, NONE;
    /// `buffer_load buf, byte_offset` on a byte-address buffer.
    BufferLoad "buffer_load" Instruction 210 [Value, Value] Rest::None, R::Explicit, READ, NONE;
    /// `buffer_store buf, byte_offset, value` on a byte-address buffer.
    BufferStore "buffer_store" Instruction 211 [Value, Value, Value] Rest::None, R::Void, WRITE, NONE;
    /// `atomic_rmw op, ptr, value`: returns the original value.
    AtomicRmw "atomic_rmw" Instruction 212 [Imm(ImmKind::AtomicOp), Value, Value] Rest::None, R::Pointee(1), RW, NONE;
    /// `atomic_cmpxchg ptr, comparand, value`: returns the original value.
    AtomicCmpXchg "atomic_cmpxchg" Instruction 213 [Value, Value, Value] Rest::None, R::Pointee(0), RW, NONE;
    /// `barrier flags`.
    Barrier "barrier" Instruction 214 [Imm(ImmKind::BarrierFlags)] Rest::None, R::Void, BARRIER, NONE;
    /// `array_length ptr`: the element count of the runtime array `ptr` points to (`u32`).
    ArrayLength "array_length" Instruction 215 [Value] Rest::None, R::Explicit, READ, NONE;
    /// `sample_cmp_level tex, sampler, coord, reference, lod [, offset]`.
    SampleCmpLevel "sample_cmp_level" Instruction 216 [Value, Value, Value, Value, Value] Rest::Optional(&[Value]), R::Explicit, READ, NONE;
    /// `sample_cmp_bias tex, sampler, coord, reference, bias [, offset [, min_lod]]`.
    SampleCmpBias "sample_cmp_bias" Instruction 217 [Value, Value, Value, Value, Value] Rest::Optional(&[Value, Value]), R::Explicit, SAMPLE, NONE;
    /// `sample_cmp_grad tex, sampler, coord, reference, ddx, ddy [, offset [, min_lod]]`.
    SampleCmpGrad "sample_cmp_grad" Instruction 218 [Value, Value, Value, Value, Value, Value] Rest::Optional(&[Value, Value]), R::Explicit, READ, NONE;
    /// `emit_vertex stream`: a geometry shader emits the vertex its outputs (of that stream)
    /// hold; the outputs are undefined afterwards.
    EmitVertex "emit_vertex" Instruction 219 [Int] Rest::None, R::Void, RW, NONE;
    /// `end_primitive stream`: ends the strip being emitted on a stream.
    EndPrimitive "end_primitive" Instruction 220 [Int] Rest::None, R::Void, RW, NONE;
    /// `set_mesh_outputs vertices, primitives`: the counts a mesh shader emits (`u32`s).
    SetMeshOutputs "set_mesh_outputs" Instruction 221 [Value, Value] Rest::None, R::Void, WRITE_CONVERGENT, NONE;
    /// `trace_ray accel, flags, cull_mask, sbt_offset, sbt_stride, miss_index, origin,
    /// tmin, direction, tmax, payload`: the accel-struct pointer, five `u32`s, then the ray
    /// (`vec<f32, 3>`, `f32`, `vec<f32, 3>`, `f32`), then the payload global (`ray_payload`
    /// or `incoming_ray_payload`), read and written.
    TraceRay "trace_ray" Instruction 222 [Value, Value, Value, Value, Value, Value, Value, Value, Value, Value, Value] Rest::None, R::Void, RW, NONE;
    /// `report_hit t, kind`: an intersection shader reports a hit at `t` (`f32`) of kind
    /// `kind` (`u32`) with the attributes its `hit_attribute` global holds; `bool`: accepted.
    ReportHit "report_hit" Instruction 223 [Value, Value] Rest::None, R::Explicit, RW, NONE;
    /// `execute_callable sbt_index, data`: runs a callable shader on the data global
    /// (`callable_data` or `incoming_callable_data`).
    ExecuteCallable "execute_callable" Instruction 224 [Value, Value] Rest::None, R::Void, RW, NONE;
    /// `ray_query_init query, accel, flags, cull_mask, origin, tmin, direction, tmax`.
    RayQueryInit "ray_query_init" Instruction 225 [Value, Value, Value, Value, Value, Value, Value, Value] Rest::None, R::Void, RW, NONE;
    /// `ray_query_proceed query`: `bool`, true while candidates remain.
    RayQueryProceed "ray_query_proceed" Instruction 226 [Value] Rest::None, R::Explicit, RW, NONE;
    /// `ray_query_abort query`: ends the traversal (HLSL `Abort`).
    RayQueryAbort "ray_query_abort" Instruction 227 [Value] Rest::None, R::Void, RW, NONE;
    /// `ray_query_confirm query`: commits the candidate triangle (`CommitNonOpaqueTriangleHit`).
    RayQueryConfirm "ray_query_confirm" Instruction 228 [Value] Rest::None, R::Void, RW, NONE;
    /// `ray_query_generate query, t`: commits a procedural hit at `t` (`CommitProceduralPrimitiveHit`).
    RayQueryGenerate "ray_query_generate" Instruction 229 [Value, Value] Rest::None, R::Void, RW, NONE;
    /// `ray_query_get value, query`: reads one value of the ray or of its candidate or
    /// committed intersection; the type follows the value ([`crate::RayQueryValue::shape`]).
    RayQueryGet "ray_query_get" Instruction 230 [Imm(ImmKind::RayQueryValue), Value] Rest::None, R::Explicit, READ, NONE;

    // ---- terminators -----------------------------------------------------------------------
    /// `br target(args...)`.
    Br "br" Terminator 400 [Block] Rest::Many(Value), R::None, CONTROL, NONE;
    /// `cond_br c, true_target, false_target`: only as a loop header's terminator or with the
    /// innermost loop's break or continue block as a target.
    CondBr "cond_br" Terminator 401 [Value, Block, Block] Rest::None, R::None, CONTROL, NONE;
    /// `if_else c, then, else, merge m`.
    IfElse "if_else" Terminator 402 [Value, Block, Block, Join("merge")] Rest::None, R::None, CONTROL, NONE;
    /// `loop header(args...), break b, continue c`: ends a loop's pre-header.
    Loop "loop" Terminator 403 [Block, Join("break"), Join("continue")] Rest::Many(Value), R::None, CONTROL, NONE;
    /// `switch v, merge m, default d, [case: target, ...]`.
    Switch "switch" Terminator 404 [Value, Join("merge"), Block] Rest::Pairs(Const, Block), R::None, CONTROL, NONE;
    /// `return [v]`.
    Return "return" Terminator 405 [] Rest::Optional(&[Value]), R::None, CONTROL, NONE;
    /// `discard`: ends the fragment invocation.
    Discard "discard" Terminator 406 [] Rest::None, R::None, CONTROL, NONE;
    /// `unreachable`.
    Unreachable "unreachable" Terminator 407 [] Rest::None, R::None, CONTROL, NONE;
    /// `ignore_hit`: an any-hit shader ignores the hit and ends (HLSL `IgnoreHit`).
    IgnoreHit "ignore_hit" Terminator 408 [] Rest::None, R::None, CONTROL, NONE;
    /// `accept_hit`: an any-hit shader accepts the hit, ends, and ends the ray's traversal
    /// (HLSL `AcceptHitAndEndSearch`).
    AcceptHit "accept_hit" Terminator 409 [] Rest::None, R::None, CONTROL, NONE;
    /// `dispatch_mesh x, y, z [, payload]`: an amplification shader launches x*y*z mesh
    /// workgroups (`u32`s) with its `task_payload` global, and ends.
    DispatchMesh "dispatch_mesh" Terminator 410 [Value, Value, Value] Rest::Optional(&[Value]), R::None, CONTROL, NONE;
}

impl Op {
    /// The static description.
    #[inline]
    pub fn info(self) -> &'static OpInfo {
        &INFO[self as usize]
    }

    /// Text spelling.
    #[inline]
    pub fn spelling(self) -> &'static str {
        self.info().spelling
    }

    /// Family.
    #[inline]
    pub fn family(self) -> Family {
        self.info().family
    }

    /// What the opcode does ([`Category`]): its family for non-instructions, and for
    /// instructions and terminators the kind of work (arithmetic, memory, texture, control...).
    pub fn category(self) -> Category {
        use Category as C;
        match self.family() {
            Family::Structural => return C::Structural,
            Family::Type => return C::Type,
            Family::Constant => return C::Constant,
            Family::GlobalValue => return C::GlobalValue,
            Family::Decoration => return C::Decoration,
            Family::Instruction | Family::Terminator => {}
        }
        match self {
            Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Rem | Op::Neg | Op::MatMul => C::Arithmetic,
            Op::And | Op::Or | Op::Xor | Op::Not | Op::Shl | Op::Shr => C::Bitwise,
            Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge => C::Comparison,
            Op::Convert | Op::Bitcast => C::Conversion,
            Op::Construct
            | Op::Extract
            | Op::Insert
            | Op::ExtractDyn
            | Op::InsertDyn
            | Op::Shuffle
            | Op::Select => C::Composite,
            Op::Var | Op::Load | Op::Store | Op::ArrayLength => C::Memory,
            Op::FieldAddr | Op::ElementAddr | Op::TexelAddr => C::Address,
            Op::Call | Op::CallIntrinsic => C::Call,
            Op::Sample
            | Op::SampleBias
            | Op::SampleLevel
            | Op::SampleGrad
            | Op::SampleCmp
            | Op::SampleCmpLevelZero
            | Op::SampleCmpLevel
            | Op::SampleCmpBias
            | Op::SampleCmpGrad
            | Op::Gather
            | Op::GatherCmp
            | Op::TextureLoad
            | Op::TextureStore
            | Op::QuerySize
            | Op::QueryLevels
            | Op::QuerySamples
            | Op::QueryLod => C::Texture,
            Op::BufferLoad | Op::BufferStore => C::Buffer,
            Op::AtomicRmw | Op::AtomicCmpXchg => C::Atomic,
            Op::Barrier => C::Synchronization,
            Op::EmitVertex | Op::EndPrimitive | Op::SetMeshOutputs | Op::DispatchMesh => {
                C::Geometry
            }
            Op::TraceRay
            | Op::ReportHit
            | Op::ExecuteCallable
            | Op::RayQueryInit
            | Op::RayQueryProceed
            | Op::RayQueryAbort
            | Op::RayQueryConfirm
            | Op::RayQueryGenerate
            | Op::RayQueryGet
            | Op::IgnoreHit
            | Op::AcceptHit => C::RayTracing,
            // Every other instruction-family opcode is a terminator of plain control flow;
            // `every_instruction_has_a_work_category` checks that no instruction lands here.
            _ => C::Control,
        }
    }

    /// Stable wire id.
    #[inline]
    pub fn wire_id(self) -> u16 {
        self.info().wire
    }

    /// The opcode with this stable wire id.
    pub fn from_wire(id: u16) -> Option<Op> {
        static BY_WIRE: std::sync::OnceLock<Vec<Option<Op>>> = std::sync::OnceLock::new();
        let table = BY_WIRE.get_or_init(|| {
            let max = ALL_OPS.iter().map(|o| o.wire_id()).max().unwrap_or(0) as usize;
            let mut t = vec![None; max + 1];
            for &op in ALL_OPS {
                t[op.wire_id() as usize] = Some(op);
            }
            t
        });
        table.get(id as usize).copied().flatten()
    }

    /// The opcode spelled `s`.
    pub fn from_spelling(s: &str) -> Option<Op> {
        static BY_NAME: std::sync::OnceLock<rustc_hash::FxHashMap<&'static str, Op>> =
            std::sync::OnceLock::new();
        BY_NAME
            .get_or_init(|| ALL_OPS.iter().map(|&op| (op.spelling(), op)).collect())
            .get(s)
            .copied()
    }

    /// Types, including `struct`.
    #[inline]
    pub fn is_type(self) -> bool {
        (Op::Struct..=Op::RayQuery).contains(&self)
    }

    /// Scalar types (`bool`, integers, floats).
    #[inline]
    pub fn is_scalar_type(self) -> bool {
        (Op::Bool..=Op::F64).contains(&self)
    }

    /// Integer types.
    #[inline]
    pub fn is_int_type(self) -> bool {
        (Op::I8..=Op::U64).contains(&self)
    }

    /// Signed integer types.
    #[inline]
    pub fn is_signed_int_type(self) -> bool {
        (Op::I8..=Op::I64).contains(&self)
    }

    /// Float types.
    #[inline]
    pub fn is_float_type(self) -> bool {
        (Op::F16..=Op::F64).contains(&self)
    }

    /// Constants.
    #[inline]
    pub fn is_constant(self) -> bool {
        (Op::ConstBool..=Op::Undef).contains(&self)
    }

    /// Constants that carry a literal payload.
    #[inline]
    pub fn is_literal(self) -> bool {
        (Op::ConstBool..=Op::ConstString).contains(&self)
    }

    /// Hoistable (deduplicated) values: every type but `struct`, constants, `spec_const`,
    /// `specialize`.
    #[inline]
    pub fn is_hoistable(self) -> bool {
        (Op::Void..=Op::Specialize).contains(&self)
    }

    /// Decorations.
    #[inline]
    pub fn is_decoration(self) -> bool {
        (Op::Binding..=Op::UserType).contains(&self)
    }

    /// Ordinary (non-terminator) instructions.
    #[inline]
    pub fn is_instruction(self) -> bool {
        (Op::Add..=Op::RayQueryGet).contains(&self)
    }

    /// Terminators.
    #[inline]
    pub fn is_terminator(self) -> bool {
        (Op::Br..=Op::DispatchMesh).contains(&self)
    }

    /// Texture reads and queries that take the texture pointer first (`sample` ..
    /// `query_lod`, `sample_cmp_level` .. `sample_cmp_grad`), not `texture_store`.
    pub fn is_texture_read(self) -> bool {
        ((Op::Sample..=Op::QueryLod).contains(&self) && self != Op::TextureStore)
            || (Op::SampleCmpLevel..=Op::SampleCmpGrad).contains(&self)
    }

    /// For the sampling opcodes that can clamp the level of detail: the index of the optional
    /// `min_lod` operand (after the optional offset). A clamp without an offset gives a zero
    /// constant as the offset, which means no offset.
    pub fn min_lod_index(self) -> Option<usize> {
        Some(match self {
            Op::Sample => 4,
            Op::SampleBias | Op::SampleCmp => 5,
            Op::SampleGrad | Op::SampleCmpBias => 6,
            Op::SampleCmpGrad => 7,
            _ => return None,
        })
    }

    /// For the sampling, gathering and fetching opcodes: the index of the optional offset.
    pub fn offset_index(self) -> Option<usize> {
        Some(match self {
            Op::Sample => 3,
            Op::SampleBias
            | Op::SampleLevel
            | Op::SampleCmp
            | Op::SampleCmpLevelZero
            | Op::Gather
            | Op::GatherCmp => 4,
            Op::SampleGrad | Op::SampleCmpLevel | Op::SampleCmpBias => 5,
            Op::SampleCmpGrad => 6,
            Op::TextureLoad => 3,
            _ => return None,
        })
    }

    /// Indices of the operands that are successor blocks (for terminators).
    pub fn is_successor_slot(self, index: usize) -> bool {
        matches!(self.info().kind(index), Some(Kind::Block))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn families_are_contiguous_ranges() {
        let mut last: Option<Family> = None;
        let mut seen = HashSet::new();
        for op in ALL_OPS {
            let fam = op.family();
            if last != Some(fam) {
                assert!(seen.insert(fam), "family {fam:?} is split: {op:?}");
                last = Some(fam);
            }
            assert_eq!(op.is_type(), fam == Family::Type, "{op:?}");
            assert_eq!(op.is_constant(), fam == Family::Constant, "{op:?}");
            assert_eq!(op.is_decoration(), fam == Family::Decoration, "{op:?}");
            assert_eq!(op.is_instruction(), fam == Family::Instruction, "{op:?}");
            assert_eq!(op.is_terminator(), fam == Family::Terminator, "{op:?}");
            assert_eq!(
                op.is_hoistable(),
                matches!(fam, Family::Type | Family::Constant | Family::GlobalValue)
                    && *op != Op::Struct,
                "{op:?}"
            );
        }
    }

    #[test]
    fn wire_ids_and_spellings_are_unique_and_round_trip() {
        let mut wires = HashSet::new();
        let mut names = HashSet::new();
        for &op in ALL_OPS {
            assert!(wires.insert(op.wire_id()), "duplicate wire id {op:?}");
            assert!(names.insert(op.spelling()), "duplicate spelling {op:?}");
            assert_eq!(Op::from_wire(op.wire_id()), Some(op));
            assert_eq!(Op::from_spelling(op.spelling()), Some(op));
        }
    }

    #[test]
    fn arity_checks() {
        assert!(Op::Add.info().arity_ok(2));
        assert!(!Op::Add.info().arity_ok(3));
        assert!(Op::Switch.info().arity_ok(3));
        assert!(Op::Switch.info().arity_ok(5));
        assert!(!Op::Switch.info().arity_ok(4));
        assert!(Op::TextureLoad.info().arity_ok(4));
        assert!(!Op::TextureLoad.info().arity_ok(5));
        assert_eq!(Op::Switch.info().kind(3), Some(Kind::Const));
        assert_eq!(Op::Switch.info().kind(4), Some(Kind::Block));
    }

    /// The effects column agrees with the families: terminators transfer control and nothing
    /// else does; types, constants, decorations and structural values are pure.
    #[test]
    fn effects_column_follows_the_families() {
        for &op in ALL_OPS {
            let fx = op.effects();
            assert_eq!(
                op.is_terminator(),
                fx.contains(Effects::CONTROL),
                "{op:?}: {fx:?}"
            );
            if !op.is_instruction() && !op.is_terminator() {
                assert_eq!(
                    fx,
                    Effects::PURE,
                    "{op:?} is not an instruction but has effects"
                );
            }
        }
    }

    /// Every decoration says what it decorates, and nothing else does.
    #[test]
    fn decoration_targets_column() {
        for &op in ALL_OPS {
            assert_eq!(
                op.is_decoration(),
                op.info().decorates != DecoTargets::NONE,
                "{op:?}"
            );
        }
        assert!(Op::Binding.info().decorates.allows(Op::Global));
        assert!(!Op::Binding.info().decorates.allows(Op::Func));
        assert!(Op::Unroll.info().decorates.allows(Op::Loop));
        assert!(!Op::Unroll.info().decorates.allows(Op::IfElse));
    }

    /// Instructions get a category of work, never a family's, and only terminators (and the
    /// instructions that end an invocation's flow) are control.
    #[test]
    fn every_instruction_has_a_work_category() {
        for &op in ALL_OPS {
            let c = op.category();
            match op.family() {
                Family::Instruction => assert!(
                    c > Category::Decoration && c != Category::Control,
                    "{op:?} is an instruction in {c:?}"
                ),
                Family::Terminator => assert!(
                    matches!(
                        c,
                        Category::Control | Category::Geometry | Category::RayTracing
                    ),
                    "{op:?} is a terminator in {c:?}"
                ),
                _ => assert!(c <= Category::Decoration, "{op:?} in {c:?}"),
            }
        }
        assert_eq!(Op::Add.category(), Category::Arithmetic);
        assert_eq!(Op::Store.category(), Category::Memory);
        assert_eq!(Op::SampleGrad.category(), Category::Texture);
        assert_eq!(Op::IfElse.category(), Category::Control);
        assert_eq!(Op::AcceptHit.category(), Category::RayTracing);
        assert_eq!(Op::I32.category(), Category::Type);
    }

    /// docs/ir-ops.md's category table lists each instruction and terminator under the
    /// category the code gives it, and every category of work.
    #[test]
    fn docs_list_every_category() {
        let doc = include_str!("../../docs/ir-ops.md");
        let section = doc
            .split("## Categories")
            .nth(1)
            .expect("docs/ir-ops.md has a `## Categories` section");
        let mut listed: Vec<(String, Vec<String>)> = Vec::new();
        for line in section.lines().skip_while(|l| !l.starts_with('|')) {
            if !line.starts_with('|') {
                break;
            }
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            if cells.len() != 2 || cells[0] == "category" || cells[0].starts_with("---") {
                continue;
            }
            let ops = cells[1]
                .split(',')
                .map(|o| o.trim().trim_matches('`').to_string())
                .collect();
            listed.push((cells[0].to_string(), ops));
        }
        for &cat in Category::ALL {
            if cat <= Category::Decoration {
                continue;
            }
            let mut want: Vec<String> = ALL_OPS
                .iter()
                .filter(|o| {
                    o.category() == cat
                        && matches!(o.family(), Family::Instruction | Family::Terminator)
                })
                .map(|o| o.spelling().to_string())
                .collect();
            want.sort();
            let mut have = listed
                .iter()
                .find(|(n, _)| n == cat.name())
                .unwrap_or_else(|| panic!("docs/ir-ops.md lacks the category `{}`", cat.name()))
                .1
                .clone();
            have.sort();
            assert_eq!(have, want, "docs/ir-ops.md's `{}` row", cat.name());
        }
    }

    #[test]
    fn docs_list_every_op() {
        let doc = include_str!("../../docs/ir-ops.md");
        for op in ALL_OPS {
            // The spelling, the Rust variant (Debug prints its name) and the wire id.
            let needle = format!("| `{}` | `{op:?}` | {} |", op.spelling(), op.wire_id());
            assert!(
                doc.contains(&needle),
                "docs/ir-ops.md lacks a row starting `{needle}`"
            );
        }
    }
}
