//! The typed, resolved HLSL program: what semantic analysis produces and lowering consumes.
//!
//! Every expression carries its HLSL type ([`TyId`], interned in [`Types`]); names are resolved
//! to locals, globals, fields, functions and intrinsics; implicit conversions are explicit
//! [`ExprKind::Cast`] nodes; overloads are chosen; templates are instantiated into ordinary
//! functions. Lowering walks this tree with a builder and never type-checks.

use oneshader_ir::diag::Span;
use oneshader_ir::{AtomicOp, BarrierFlags, ImageFormat, Intrinsic, Stage};
use rustc_hash::FxHashMap;

// ---- types ------------------------------------------------------------------------------------

/// An interned HLSL type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TyId(pub u32);

/// HLSL scalar types after mapping the spellings (`half` is `F32` unless 16-bit types are
/// enabled, `min16float` is `F32`, `dword` is `U32`, ...). `LitInt`/`LitFloat` are the types of
/// unsuffixed literals, which adapt to the other operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    /// `bool`.
    Bool,
    /// An integer literal without suffix.
    LitInt,
    /// `int16_t`.
    I16,
    /// `uint16_t`.
    U16,
    /// `int`.
    I32,
    /// `uint`.
    U32,
    /// `int64_t`.
    I64,
    /// `uint64_t`.
    U64,
    /// A float literal without suffix.
    LitFloat,
    /// `half` with 16-bit types, `float16_t`.
    F16,
    /// `float`.
    F32,
    /// `double`.
    F64,
}

impl Scalar {
    /// True for integer types (literal included).
    pub fn is_int(self) -> bool {
        matches!(
            self,
            Scalar::LitInt
                | Scalar::I16
                | Scalar::U16
                | Scalar::I32
                | Scalar::U32
                | Scalar::I64
                | Scalar::U64
        )
    }

    /// True for float types (literal included).
    pub fn is_float(self) -> bool {
        matches!(
            self,
            Scalar::LitFloat | Scalar::F16 | Scalar::F32 | Scalar::F64
        )
    }

    /// True for signed integers (and the int literal).
    pub fn is_signed_int(self) -> bool {
        matches!(
            self,
            Scalar::LitInt | Scalar::I16 | Scalar::I32 | Scalar::I64
        )
    }

    /// True for unsigned integers.
    pub fn is_unsigned(self) -> bool {
        matches!(self, Scalar::U16 | Scalar::U32 | Scalar::U64)
    }

    /// True for the literal types.
    pub fn is_literal(self) -> bool {
        matches!(self, Scalar::LitInt | Scalar::LitFloat)
    }

    /// The type a literal takes when it must become a value (`int`, `float`).
    pub fn concrete(self) -> Scalar {
        match self {
            Scalar::LitInt => Scalar::I32,
            Scalar::LitFloat => Scalar::F32,
            s => s,
        }
    }

    /// Bit width (bool counts 32; literals 64).
    pub fn bits(self) -> u32 {
        match self {
            Scalar::Bool | Scalar::I32 | Scalar::U32 | Scalar::F32 => 32,
            Scalar::I16 | Scalar::U16 | Scalar::F16 => 16,
            Scalar::I64 | Scalar::U64 | Scalar::F64 | Scalar::LitInt | Scalar::LitFloat => 64,
        }
    }

    /// The HLSL spelling.
    pub fn name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::LitInt => "literal int",
            Scalar::I16 => "int16_t",
            Scalar::U16 => "uint16_t",
            Scalar::I32 => "int",
            Scalar::U32 => "uint",
            Scalar::I64 => "int64_t",
            Scalar::U64 => "uint64_t",
            Scalar::LitFloat => "literal float",
            Scalar::F16 => "half",
            Scalar::F32 => "float",
            Scalar::F64 => "double",
        }
    }
}

/// Texture shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexShape {
    /// `Texture1D`.
    T1D,
    /// `Texture1DArray`.
    T1DArray,
    /// `Texture2D`.
    T2D,
    /// `Texture2DArray`.
    T2DArray,
    /// `Texture3D`.
    T3D,
    /// `TextureCube`.
    Cube,
    /// `TextureCubeArray`.
    CubeArray,
    /// `Texture2DMS`.
    T2DMS,
    /// `Texture2DMSArray`.
    T2DMSArray,
    /// `Buffer` / `RWBuffer` (a typed texel buffer).
    Buffer,
    /// `SubpassInput`.
    Subpass,
    /// `SubpassInputMS`.
    SubpassMS,
}

impl TexShape {
    /// Components of the coordinate (without the array layer).
    pub fn dims(self) -> u8 {
        match self {
            TexShape::T1D | TexShape::T1DArray | TexShape::Buffer => 1,
            TexShape::T2D
            | TexShape::T2DArray
            | TexShape::T2DMS
            | TexShape::T2DMSArray
            | TexShape::Subpass
            | TexShape::SubpassMS => 2,
            TexShape::T3D | TexShape::Cube | TexShape::CubeArray => 3,
        }
    }

    /// True for array textures.
    pub fn arrayed(self) -> bool {
        matches!(
            self,
            TexShape::T1DArray | TexShape::T2DArray | TexShape::CubeArray | TexShape::T2DMSArray
        )
    }

    /// True for multisampled textures.
    pub fn ms(self) -> bool {
        matches!(
            self,
            TexShape::T2DMS | TexShape::T2DMSArray | TexShape::SubpassMS
        )
    }

    /// Components of a sampling coordinate (array layer included).
    pub fn coord_len(self) -> u8 {
        self.dims() + self.arrayed() as u8
    }

    /// Components of an offset.
    pub fn offset_len(self) -> u8 {
        match self {
            TexShape::Cube | TexShape::CubeArray => 0,
            s => s.dims(),
        }
    }
}

/// Buffer kinds that are not textures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BufKind {
    /// `StructuredBuffer<T>`.
    Structured,
    /// `RWStructuredBuffer<T>` (and rasterizer-ordered).
    RWStructured,
    /// `AppendStructuredBuffer<T>`.
    Append,
    /// `ConsumeStructuredBuffer<T>`.
    Consume,
    /// `ByteAddressBuffer`.
    ByteAddress,
    /// `RWByteAddressBuffer`.
    RWByteAddress,
    /// `ConstantBuffer<T>`.
    Constant,
    /// `TextureBuffer<T>`.
    TextureBuffer,
}

impl BufKind {
    /// True when the buffer can be written.
    pub fn writable(self) -> bool {
        matches!(
            self,
            BufKind::RWStructured | BufKind::Append | BufKind::Consume | BufKind::RWByteAddress
        )
    }
}

/// A struct.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StructId(pub u32);

/// The forms of HLSL types.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TyKind {
    /// The type of an erroneous expression: converts to and from anything silently, so one
    /// mistake gives one diagnostic.
    Error,
    /// `void`.
    Void,
    /// A scalar.
    Scalar(Scalar),
    /// `vector<T, n>`, n in 1..=4 (`float1` is a vector of one).
    Vector(Scalar, u8),
    /// `matrix<T, rows, cols>`.
    Matrix(Scalar, u8, u8),
    /// `T[n]`.
    Array(TyId, u32),
    /// `T[]` (only in resource declarations and unsized resource arrays).
    UnsizedArray(TyId),
    /// A struct.
    Struct(StructId),
    /// A texture or typed buffer: shape, element type, read-write.
    Texture(TexShape, TyId, bool),
    /// A structured, byte-address, constant or texture buffer and its element type (`void` for
    /// byte-address buffers).
    Buffer(BufKind, TyId),
    /// `SamplerState` (false) or `SamplerComparisonState` (true).
    Sampler(bool),
    /// `vk::SampledTexture2D<T>` and the other shapes: a texture with its sampler (a combined
    /// image sampler descriptor). Only a global has this type as declared: it becomes a
    /// texture global and sampler globals sharing its binding ([`BindAttrs::shares`]), and its
    /// name denotes the texture, whose sampling methods take the sampler implicitly.
    SampledTexture(TexShape, TyId),
    /// `string`.
    String,
    /// A geometry shader's output stream (`PointStream<T>`, `LineStream<T>`,
    /// `TriangleStream<T>`): only as an `inout` parameter; `Append` and `RestartStrip`.
    Stream(StreamKind, TyId),
    /// `RaytracingAccelerationStructure`: a resource.
    AccelStruct,
    /// `RayQuery<flags>`: an inline ray query (a local variable used through its methods).
    RayQuery(u32),
    /// A type semantic analysis knows by name but cannot compile (work-graph records,
    /// effect-framework objects, ...): using it is an error naming it.
    Unsupported(String),
    /// An element of an SM 6.6 descriptor heap (`ResourceDescriptorHeap[i]`: false;
    /// `SamplerDescriptorHeap[i]`: true), untyped until converted to the resource type of
    /// the variable it initializes or is assigned to (or of a parameter, a cast).
    HeapElement(bool),
}

/// The primitive a geometry shader's output stream carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StreamKind {
    /// `PointStream<T>`.
    Point,
    /// `LineStream<T>`.
    Line,
    /// `TriangleStream<T>`.
    Triangle,
}

/// The type table: interning, queries and spelling.
#[derive(Clone, Debug)]
pub struct Types {
    kinds: Vec<TyKind>,
    map: FxHashMap<TyKind, TyId>,
    /// Struct definitions by [`StructId`].
    pub structs: Vec<StructDef>,
}

impl Default for Types {
    fn default() -> Types {
        Types::new()
    }
}

impl Types {
    /// The table with the error and void types.
    pub fn new() -> Types {
        let mut t = Types {
            kinds: Vec::new(),
            map: FxHashMap::default(),
            structs: Vec::new(),
        };
        t.intern(TyKind::Error);
        t.intern(TyKind::Void);
        // Every numeric type exists up front, so later phases can look any of them up.
        for s in [
            Scalar::Bool,
            Scalar::LitInt,
            Scalar::I16,
            Scalar::U16,
            Scalar::I32,
            Scalar::U32,
            Scalar::I64,
            Scalar::U64,
            Scalar::LitFloat,
            Scalar::F16,
            Scalar::F32,
            Scalar::F64,
        ] {
            t.intern(TyKind::Scalar(s));
            for n in 1..=4 {
                t.intern(TyKind::Vector(s, n));
                for m in 1..=4 {
                    t.intern(TyKind::Matrix(s, n, m));
                }
            }
        }
        t
    }

    /// The id of an already interned type.
    pub fn lookup(&self, k: &TyKind) -> Option<TyId> {
        self.map.get(k).copied()
    }

    /// The error type.
    pub const ERROR: TyId = TyId(0);
    /// `void`.
    pub const VOID: TyId = TyId(1);

    /// Interns a type.
    pub fn intern(&mut self, k: TyKind) -> TyId {
        if let Some(&id) = self.map.get(&k) {
            return id;
        }
        let id = TyId(self.kinds.len() as u32);
        self.kinds.push(k.clone());
        self.map.insert(k, id);
        id
    }

    /// The form of a type.
    pub fn kind(&self, t: TyId) -> &TyKind {
        &self.kinds[t.0 as usize]
    }

    /// A scalar type.
    pub fn scalar(&mut self, s: Scalar) -> TyId {
        self.intern(TyKind::Scalar(s))
    }

    /// A vector type (`n` == 1 gives a one-component vector).
    pub fn vector(&mut self, s: Scalar, n: u8) -> TyId {
        self.intern(TyKind::Vector(s, n))
    }

    /// A matrix type.
    pub fn matrix(&mut self, s: Scalar, r: u8, c: u8) -> TyId {
        self.intern(TyKind::Matrix(s, r, c))
    }

    /// `bool`.
    pub fn bool(&mut self) -> TyId {
        self.scalar(Scalar::Bool)
    }

    /// `int`.
    pub fn int(&mut self) -> TyId {
        self.scalar(Scalar::I32)
    }

    /// `uint`.
    pub fn uint(&mut self) -> TyId {
        self.scalar(Scalar::U32)
    }

    /// `float`.
    pub fn float(&mut self) -> TyId {
        self.scalar(Scalar::F32)
    }

    /// An array type.
    pub fn array(&mut self, elem: TyId, n: u32) -> TyId {
        self.intern(TyKind::Array(elem, n))
    }

    /// The scalar of a scalar, vector or matrix type.
    pub fn scalar_of(&self, t: TyId) -> Option<Scalar> {
        match self.kind(t) {
            TyKind::Scalar(s) | TyKind::Vector(s, _) | TyKind::Matrix(s, _, _) => Some(*s),
            _ => None,
        }
    }

    /// True for scalars, vectors and matrices.
    pub fn is_numeric(&self, t: TyId) -> bool {
        self.scalar_of(t).is_some()
    }

    /// True for the error type.
    pub fn is_error(&self, t: TyId) -> bool {
        matches!(self.kind(t), TyKind::Error)
    }

    /// True for `void`.
    pub fn is_void(&self, t: TyId) -> bool {
        matches!(self.kind(t), TyKind::Void)
    }

    /// True for textures, buffers, samplers and acceleration structures (and arrays of
    /// them).
    pub fn is_resource(&self, t: TyId) -> bool {
        match self.kind(t) {
            TyKind::Texture(..) | TyKind::Buffer(..) | TyKind::Sampler(_) | TyKind::AccelStruct => {
                true
            }
            TyKind::Array(e, _) | TyKind::UnsizedArray(e) => self.is_resource(*e),
            _ => false,
        }
    }

    /// True when a struct (or array of structs) holds a resource somewhere.
    pub fn contains_resource(&self, t: TyId) -> bool {
        match self.kind(t) {
            TyKind::Struct(s) => self.structs[s.0 as usize]
                .fields
                .iter()
                .any(|f| self.contains_resource(f.ty)),
            TyKind::Array(e, _) | TyKind::UnsizedArray(e) => self.contains_resource(*e),
            _ => self.is_resource(t),
        }
    }

    /// True when a struct (or array of structs, or a nested struct) has bit fields.
    pub fn contains_bitfields(&self, t: TyId) -> bool {
        match self.kind(t) {
            TyKind::Struct(s) => {
                let d = &self.structs[s.0 as usize];
                !d.bitfields.is_empty() || d.fields.iter().any(|f| self.contains_bitfields(f.ty))
            }
            TyKind::Array(e, _) | TyKind::UnsizedArray(e) => self.contains_bitfields(*e),
            _ => false,
        }
    }

    /// Number of scalar components (vectors, matrices, arrays and structs flattened), for
    /// initializer lists and constructors.
    pub fn flat_count(&self, t: TyId) -> u32 {
        match self.kind(t) {
            TyKind::Scalar(_) => 1,
            TyKind::Vector(_, n) => *n as u32,
            TyKind::Matrix(_, r, c) => (*r as u32) * (*c as u32),
            TyKind::Array(e, n) => self.flat_count(*e).saturating_mul(*n),
            TyKind::Struct(s) => self.structs[s.0 as usize]
                .fields
                .iter()
                .map(|f| self.flat_count(f.ty))
                .fold(0u32, |a, b| a.saturating_add(b)),
            TyKind::Texture(..) | TyKind::Buffer(..) | TyKind::Sampler(_) => 1,
            _ => 0,
        }
    }

    /// Vector length (1 for scalars), `None` otherwise.
    pub fn vec_len(&self, t: TyId) -> Option<u8> {
        match self.kind(t) {
            TyKind::Scalar(_) => Some(1),
            TyKind::Vector(_, n) => Some(*n),
            _ => None,
        }
    }

    /// The same shape with another scalar.
    pub fn with_scalar(&mut self, t: TyId, s: Scalar) -> TyId {
        match self.kind(t).clone() {
            TyKind::Scalar(_) => self.scalar(s),
            TyKind::Vector(_, n) => self.vector(s, n),
            TyKind::Matrix(_, r, c) => self.matrix(s, r, c),
            _ => t,
        }
    }

    /// Literal scalars replaced by their concrete types (`int`, `float`).
    pub fn concrete(&mut self, t: TyId) -> TyId {
        match self.scalar_of(t) {
            Some(s) if s.is_literal() => self.with_scalar(t, s.concrete()),
            _ => t,
        }
    }

    /// The struct definition of a struct type.
    pub fn struct_def(&self, s: StructId) -> &StructDef {
        &self.structs[s.0 as usize]
    }

    /// The HLSL spelling of a type, for diagnostics.
    pub fn name(&self, t: TyId) -> String {
        match self.kind(t) {
            TyKind::Error => "<error>".into(),
            TyKind::Void => "void".into(),
            TyKind::Scalar(s) => s.name().into(),
            TyKind::Vector(s, n) => format!("{}{n}", s.name()),
            TyKind::Matrix(s, r, c) => format!("{}{r}x{c}", s.name()),
            TyKind::Array(e, n) => format!("{}[{n}]", self.name(*e)),
            TyKind::UnsizedArray(e) => format!("{}[]", self.name(*e)),
            TyKind::Struct(s) => self.structs[s.0 as usize].name.clone(),
            TyKind::Texture(shape, e, rw) => {
                let base = match shape {
                    TexShape::T1D => "Texture1D",
                    TexShape::T1DArray => "Texture1DArray",
                    TexShape::T2D => "Texture2D",
                    TexShape::T2DArray => "Texture2DArray",
                    TexShape::T3D => "Texture3D",
                    TexShape::Cube => "TextureCube",
                    TexShape::CubeArray => "TextureCubeArray",
                    TexShape::T2DMS => "Texture2DMS",
                    TexShape::T2DMSArray => "Texture2DMSArray",
                    TexShape::Buffer => "Buffer",
                    TexShape::Subpass => "SubpassInput",
                    TexShape::SubpassMS => "SubpassInputMS",
                };
                format!("{}{base}<{}>", if *rw { "RW" } else { "" }, self.name(*e))
            }
            TyKind::Buffer(k, e) => {
                let base = match k {
                    BufKind::Structured => "StructuredBuffer",
                    BufKind::RWStructured => "RWStructuredBuffer",
                    BufKind::Append => "AppendStructuredBuffer",
                    BufKind::Consume => "ConsumeStructuredBuffer",
                    BufKind::ByteAddress => return "ByteAddressBuffer".into(),
                    BufKind::RWByteAddress => return "RWByteAddressBuffer".into(),
                    BufKind::Constant => "ConstantBuffer",
                    BufKind::TextureBuffer => "TextureBuffer",
                };
                format!("{base}<{}>", self.name(*e))
            }
            TyKind::Sampler(false) => "SamplerState".into(),
            TyKind::Sampler(true) => "SamplerComparisonState".into(),
            TyKind::SampledTexture(shape, e) => {
                let base = match shape {
                    TexShape::T1D => "SampledTexture1D",
                    TexShape::T1DArray => "SampledTexture1DArray",
                    TexShape::T2D => "SampledTexture2D",
                    TexShape::T2DArray => "SampledTexture2DArray",
                    TexShape::T3D => "SampledTexture3D",
                    TexShape::Cube => "SampledTextureCube",
                    TexShape::CubeArray => "SampledTextureCubeArray",
                    TexShape::T2DMS => "SampledTexture2DMS",
                    TexShape::T2DMSArray => "SampledTexture2DMSArray",
                    TexShape::Buffer | TexShape::Subpass | TexShape::SubpassMS => "SampledBuffer",
                };
                format!("vk::{base}<{}>", self.name(*e))
            }
            TyKind::String => "string".into(),
            TyKind::Stream(k, e) => {
                let base = match k {
                    StreamKind::Point => "PointStream",
                    StreamKind::Line => "LineStream",
                    StreamKind::Triangle => "TriangleStream",
                };
                format!("{base}<{}>", self.name(*e))
            }
            TyKind::AccelStruct => "RaytracingAccelerationStructure".into(),
            TyKind::RayQuery(f) => format!("RayQuery<{f}>"),
            TyKind::Unsupported(n) => n.clone(),
            TyKind::HeapElement(false) => "ResourceDescriptorHeap element".to_string(),
            TyKind::HeapElement(true) => "SamplerDescriptorHeap element".to_string(),
        }
    }
}

// ---- declarations -----------------------------------------------------------------------------

/// Matrix storage order of a declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Major {
    /// `row_major`.
    Row,
    /// `column_major`.
    Column,
}

/// Interpolation and other stage-IO modifiers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Interp {
    /// `nointerpolation`.
    pub flat: bool,
    /// `noperspective`.
    pub noperspective: bool,
    /// `centroid`.
    pub centroid: bool,
    /// `sample`.
    pub sample: bool,
}

/// A semantic as written, split into name and index (`TEXCOORD3` is `("TEXCOORD", 3)`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Semantic {
    /// The name without its trailing digits, as written.
    pub name: String,
    /// The trailing number (0 when none).
    pub index: u32,
    /// Whether digits were written.
    pub explicit_index: bool,
    /// Where it is written.
    pub span: Span,
}

impl Semantic {
    /// The name in upper case (semantics are case-insensitive).
    pub fn upper(&self) -> String {
        self.name.to_ascii_uppercase()
    }
}

/// Stage-IO attributes of a declaration (parameter, field, return value).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IoAttrs {
    /// `: SEMANTIC`.
    pub semantic: Option<Semantic>,
    /// Interpolation modifiers.
    pub interp: Interp,
    /// `[[vk::location(n)]]`.
    pub location: Option<u32>,
    /// `[[vk::builtin("...")]]`.
    pub builtin: Option<String>,
    /// `precise` / `invariant`-like output.
    pub invariant: bool,
}

/// A struct field.
#[derive(Clone, Debug)]
pub struct FieldDef {
    /// The name.
    pub name: String,
    /// The type.
    pub ty: TyId,
    /// Matrix order when written.
    pub major: Option<Major>,
    /// Stage-IO attributes.
    pub io: IoAttrs,
    /// `packoffset(...)` / `[[vk::offset(n)]]`, in bytes.
    pub offset: Option<u32>,
    /// `register(cN)` on a `$Globals` member: N. Such members are placed at 16 N bytes, in
    /// register order, and the others after the last of them (DXC's rule).
    pub register_c: Option<u32>,
    /// Where it is declared.
    pub span: Span,
}

/// An HLSL 2021 bit field (`uint a : 3;`). Consecutive bit fields of one type share one
/// storage field while they fit in it (DXC's packing): the struct's [`FieldDef`] list holds
/// the storage field (named after the first bit field), this record says where in it the bit
/// field lives.
#[derive(Clone, Debug)]
pub struct BitFieldDef {
    /// The name.
    pub name: String,
    /// The declared (integer scalar) type, also the storage field's type.
    pub ty: TyId,
    /// The index of the storage field in [`StructDef::fields`].
    pub storage: u32,
    /// The lowest bit.
    pub offset: u32,
    /// The number of bits.
    pub width: u32,
    /// Where it is declared.
    pub span: Span,
}

/// A struct type.
#[derive(Clone, Debug)]
pub struct StructDef {
    /// The name (with template arguments for instances).
    pub name: String,
    /// Fields in order (base structs' fields first); the storage of bit fields included.
    pub fields: Vec<FieldDef>,
    /// Bit fields. An [`ExprKind::Field`] index `fields.len() + k` names bit field `k`.
    pub bitfields: Vec<BitFieldDef>,
    /// Direct base structs, in order. Their fields come first in [`StructDef::fields`]; the
    /// IR nests each base as one field (as DXC does), so layouts pad a base like a member.
    pub bases: Vec<StructId>,
    /// Where it is declared.
    pub span: Span,
}

impl StructDef {
    /// The index of member `name`: a field, or `fields.len() + k` for bit field `k`.
    pub fn field(&self, name: &str) -> Option<usize> {
        if let Some(k) = self.bitfields.iter().position(|b| b.name == name) {
            return Some(self.fields.len() + k);
        }
        self.fields.iter().position(|f| f.name == name)
    }

    /// The type of member `i` (see [`StructDef::field`]).
    pub fn member_ty(&self, i: usize) -> Option<TyId> {
        match self.fields.get(i) {
            Some(f) => Some(f.ty),
            None => self.bitfields.get(i - self.fields.len()).map(|b| b.ty),
        }
    }

    /// The bit field that member `i` names, if it is one.
    pub fn bitfield(&self, i: usize) -> Option<&BitFieldDef> {
        i.checked_sub(self.fields.len())
            .and_then(|k| self.bitfields.get(k))
    }
}

/// A global variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalId(pub u32);

/// A local variable (parameters included).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalId(pub u32);

/// A function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(pub u32);

/// A constant scalar value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConstVal {
    /// A boolean.
    Bool(bool),
    /// An integer (sign or zero extended from its type).
    Int(i128),
    /// A float.
    Float(f64),
}

impl ConstVal {
    /// As an integer (floats truncated, bools 0/1).
    pub fn as_int(self) -> i128 {
        match self {
            ConstVal::Bool(b) => b as i128,
            ConstVal::Int(i) => i,
            ConstVal::Float(f) => {
                if f.is_finite() {
                    f as i128
                } else {
                    0
                }
            }
        }
    }

    /// As a float.
    pub fn as_float(self) -> f64 {
        match self {
            ConstVal::Bool(b) => b as u8 as f64,
            ConstVal::Int(i) => i as f64,
            ConstVal::Float(f) => f,
        }
    }

    /// As a boolean.
    pub fn as_bool(self) -> bool {
        match self {
            ConstVal::Bool(b) => b,
            ConstVal::Int(i) => i != 0,
            ConstVal::Float(f) => f != 0.0,
        }
    }

    /// Converted to scalar type `s` (integers wrap to the width, like a cast).
    pub fn convert(self, s: Scalar) -> ConstVal {
        match s {
            Scalar::Bool => ConstVal::Bool(self.as_bool()),
            Scalar::LitFloat | Scalar::F16 | Scalar::F32 | Scalar::F64 => {
                let f = self.as_float();
                ConstVal::Float(if s == Scalar::F32 { f as f32 as f64 } else { f })
            }
            _ => {
                let v = self.as_int();
                ConstVal::Int(wrap_int(v, s))
            }
        }
    }
}

/// Wraps an integer to the width and signedness of `s`.
pub fn wrap_int(v: i128, s: Scalar) -> i128 {
    match s {
        Scalar::I16 => v as i16 as i128,
        Scalar::U16 => v as u16 as i128,
        Scalar::I32 => v as i32 as i128,
        Scalar::U32 => v as u32 as i128,
        Scalar::I64 => v as i64 as i128,
        Scalar::U64 => v as u64 as i128,
        _ => v,
    }
}

/// Where a global lives and how it is bound.
#[derive(Clone, Debug, PartialEq)]
pub enum GlobalKind {
    /// `static` (private); the initializer runs in `init_globals` unless constant.
    Static,
    /// `groupshared`.
    Groupshared,
    /// A texture, sampler or buffer (or an array of them).
    Resource,
    /// `cbuffer`/`tbuffer` (the type is a struct of its members; `true` for tbuffer) and
    /// `ConstantBuffer<T>`/`TextureBuffer<T>` (the type is `T`).
    CBuffer {
        /// `tbuffer` / `TextureBuffer<T>` (a read-only storage buffer).
        tbuffer: bool,
    },
    /// `[[vk::push_constant]]` (the type is the struct).
    PushConstant,
    /// `[[vk::shader_record_ext]]` (or `shader_record_nv`) on a `ConstantBuffer<T>` or
    /// `cbuffer`: the ray-tracing shader's record in the shader binding table (the type is
    /// the struct; no binding).
    ShaderRecord,
    /// `[[vk::constant_id(N)]] const T x = v;`.
    SpecConst {
        /// The id.
        id: u32,
        /// The default value.
        default: ConstVal,
    },
    /// A compile-time constant (`static const` with a constant initializer): the value is
    /// folded where used; the global still exists for arrays indexed at run time.
    Const,
}

/// Binding attributes of a resource-like global.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BindAttrs {
    /// `register(xN, spaceS)`: (class letter, N, S); N is `u32::MAX` for `register(spaceS)`,
    /// S `None` when no space is written.
    pub register: Option<(char, u32, Option<u32>)>,
    /// `[[vk::binding(B, S)]]`: (B, S), S `None` when not written (then the default space
    /// applies, not the register's: DXC's rule).
    pub vk_binding: Option<(u32, Option<u32>)>,
    /// `[[vk::counter_binding(B)]]`.
    pub counter_binding: Option<u32>,
    /// `[[vk::image_format("...")]]`.
    pub format: Option<ImageFormat>,
    /// `[[vk::input_attachment_index(n)]]`.
    pub input_attachment: Option<u32>,
    /// `globallycoherent`.
    pub coherent: bool,
    /// The global whose set and binding this one takes: the sampler half of a
    /// `vk::SampledTexture*` shares its texture's descriptor (a combined image sampler, which
    /// Vulkan lets an image and a sampler variable at one binding read).
    pub shares: Option<GlobalId>,
    /// A typed view of an SM 6.6 descriptor heap, made on first use
    /// (`Texture2D t = ResourceDescriptorHeap[i];`): `Some(false)` for
    /// `ResourceDescriptorHeap`, `Some(true)` for `SamplerDescriptorHeap`. The heap's first
    /// view takes its binding (after every other resource, as DXC places heaps); the later
    /// ones share it ([`BindAttrs::shares`]).
    pub heap: Option<bool>,
}

/// A global variable.
#[derive(Clone, Debug)]
pub struct GlobalDef {
    /// The name.
    pub name: String,
    /// The HLSL type.
    pub ty: TyId,
    /// What kind.
    pub kind: GlobalKind,
    /// Matrix order.
    pub major: Option<Major>,
    /// Binding attributes.
    pub bind: BindAttrs,
    /// Initializer (statics, constants).
    pub init: Option<Expr>,
    /// The folded initializer of a constant scalar.
    pub const_value: Option<ConstVal>,
    /// Where it is declared.
    pub span: Span,
    /// Its declared name (the buffer's for a `cbuffer`; for what the declaration of another
    /// made, that one's): the IR global's position.
    pub name_span: Span,
    /// A resource's type as SPIR-V's `UserTypeGOOGLE` spells it (`texture2d:<float>`,
    /// `cbuffer`; the IR's `user_type` decoration, emitted under `-fspv-reflect`); `None`
    /// for what DXC gives none (samplers, `$Globals`, statics, push constants).
    pub user_type: Option<String>,
}

/// Parameter passing mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamDir {
    /// `in` (the default).
    In,
    /// `out`.
    Out,
    /// `inout`.
    InOut,
}

/// A local variable or parameter.
#[derive(Clone, Debug)]
pub struct LocalDef {
    /// The name.
    pub name: String,
    /// The type.
    pub ty: TyId,
    /// Matrix order.
    pub major: Option<Major>,
    /// `precise`.
    pub precise: bool,
    /// Where declared.
    pub span: Span,
}

/// A function parameter.
#[derive(Clone, Debug)]
pub struct ParamDef {
    /// The name (may be empty).
    pub name: String,
    /// The type.
    pub ty: TyId,
    /// Passing mode.
    pub dir: ParamDir,
    /// Stage-IO attributes (entry points).
    pub io: IoAttrs,
    /// `uniform` parameter of an entry point.
    pub uniform: bool,
    /// What the parameter is to the stage of an entry point (a geometry shader's input
    /// primitive, a patch, a mesh shader's output arrays, a payload).
    pub qual: ParamQual,
    /// The local that holds the parameter in the body.
    pub local: LocalId,
    /// A default argument.
    pub default: Option<Expr>,
    /// Matrix order.
    pub major: Option<Major>,
    /// Where declared.
    pub span: Span,
}

/// What an entry-point parameter is to its stage, from its modifiers and declared type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ParamQual {
    /// Nothing special.
    #[default]
    None,
    /// `point`, `line`, `triangle`, `lineadj`, `triangleadj`: a geometry shader's input
    /// array.
    Primitive(oneshader_ir::Primitive),
    /// Declared `InputPatch<T, N>` (the type is `T[N]`).
    InputPatch,
    /// Declared `OutputPatch<T, N>` (the type is `T[N]`).
    OutputPatch,
    /// `out vertices T v[N]` of a mesh shader.
    Vertices,
    /// `out indices uintK i[N]` of a mesh shader.
    Indices,
    /// `out primitives T p[N]` of a mesh shader.
    Primitives,
    /// `in payload T p` of a mesh shader.
    Payload,
}

/// Function attributes that matter for entry points.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FuncAttrs {
    /// `[numthreads(x, y, z)]`.
    pub numthreads: Option<[u32; 3]>,
    /// `[earlydepthstencil]`.
    pub early_depth_stencil: bool,
    /// `[shader("stage")]`.
    pub shader: Option<String>,
    /// `[maxvertexcount(n)]`.
    pub max_vertex_count: Option<u32>,
    /// `[instance(n)]`.
    pub instance: Option<u32>,
    /// `[domain("tri" | "quad" | "isoline")]`.
    pub domain: Option<oneshader_ir::TessDomain>,
    /// `[partitioning("integer" | "fractional_even" | "fractional_odd" | "pow2")]`.
    pub partitioning: Option<oneshader_ir::Partitioning>,
    /// `[outputtopology(...)]`: `point`, `line`, `triangle_cw`, `triangle_ccw` (hull);
    /// `point`, `line`, `triangle` (mesh).
    pub output_topology: Option<oneshader_ir::Primitive>,
    /// `[outputcontrolpoints(n)]`.
    pub output_control_points: Option<u32>,
    /// `[patchconstantfunc("name")]`.
    pub patch_constant_func: Option<(String, Span)>,
    /// Where the attributes are written (the first stage attribute), for diagnostics.
    pub span: Option<Span>,
}

/// A function (a template instance is an ordinary function).
#[derive(Clone, Debug)]
pub struct FuncDef {
    /// The name (with the owner for methods: `S::f`; template arguments for instances).
    pub name: String,
    /// Parameters (for a non-static method, the first is `this`).
    pub params: Vec<ParamDef>,
    /// Return type.
    pub ret: TyId,
    /// Return semantic and attributes.
    pub ret_io: IoAttrs,
    /// Matrix order of the return value.
    pub ret_major: Option<Major>,
    /// Every local, parameters included.
    pub locals: Vec<LocalDef>,
    /// The body (`None` until checked, or for a prototype that is never defined).
    pub body: Option<Vec<Stmt>>,
    /// Attributes.
    pub attrs: FuncAttrs,
    /// The struct for methods.
    pub method_of: Option<StructId>,
    /// Declared `export` (a library's export, `--target osir`).
    pub export: bool,
    /// Where declared.
    pub span: Span,
}

// ---- expressions ------------------------------------------------------------------------------

/// An expression with its type.
#[derive(Clone, Debug)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Its HLSL type.
    pub ty: TyId,
    /// Where it is written.
    pub span: Span,
}

/// Unary operators after analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-x`.
    Neg,
    /// `!x` (operand converted to bool of its shape).
    Not,
    /// `~x`.
    BitNot,
}

/// Binary operators after analysis (operands converted to the operation type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*` (component-wise, also on matrices)
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `&`
    And,
    /// `|`
    Or,
    /// `^`
    Xor,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
}

impl BinOp {
    /// True for comparisons (the result is bool of the operands' shape).
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
        )
    }
}

/// Conversions made explicit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastKind {
    /// Numeric conversion, same shape (also bool <-> numbers).
    Convert,
    /// A scalar (or one-component vector) repeated to a vector or matrix shape; the scalar type
    /// already matches.
    Splat,
    /// Keep the leading components of a vector, or the leading rows and columns of a matrix
    /// (scalar type already matches).
    Truncate,
    /// Between a one-component vector or 1x1 matrix and a scalar, or between a vector and a
    /// one-row or one-column matrix of the same size (no change in IR).
    Reshape,
    /// Elementwise conversion of a whole array or struct with identical layout, or a struct
    /// built from another struct's leading fields: done by flattening.
    Flatten,
    /// Reinterpret the bits (`asfloat`, `asuint`).
    Bitcast,
}

/// One argument of a user function call.
#[derive(Clone, Debug)]
pub enum Arg {
    /// An `in` argument, already converted to the parameter type.
    In(Expr),
    /// An `out`/`inout` argument: the place (of its own type), copied in (for `inout`) and
    /// back through a temporary of the parameter type.
    Out {
        /// The lvalue.
        place: Expr,
        /// The parameter type.
        param_ty: TyId,
        /// Copy the place's value in first (`inout`, and a method's `this`).
        copy_in: bool,
        /// Copy the result back (`out`, `inout`, the `this` of a writable object).
        copy_out: bool,
    },
    /// A resource argument: the resource expression itself (passed by pointer).
    Resource(Expr),
}

/// Intrinsic operations after analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntrinsicOp {
    /// A `call_intrinsic`; on matrices, element-wise intrinsics apply row by row (and `all`/
    /// `any` reduce the rows).
    Ir(Intrinsic),
    /// `mul(a, b)`: matrix product, vector-matrix product, dot product of vectors, or a
    /// component-wise product with a scalar.
    Mul,
    /// `asfloat`/`asint`/`asuint`...: bit reinterpretation to the result type.
    Bitcast,
    /// `asdouble(lo, hi)`.
    AsDouble,
    /// `asuint(double, out lo, out hi)`.
    SplitDouble,
    /// `clip(x)`: discard when any component is negative.
    Clip,
    /// `Interlocked*(dest, value [, out original])`.
    Atomic(AtomicOp),
    /// `InterlockedCompareExchange(dest, cmp, value, out original)`.
    AtomicCmpXchg,
    /// `InterlockedCompareStore(dest, cmp, value)`.
    AtomicCmpStore,
    /// Barriers.
    Barrier(BarrierFlags),
    /// `select(c, a, b)` (HLSL 2021) and a component-wise `?:`.
    Select,
    /// `and(a, b)` (HLSL 2021) and `&&` on vectors.
    LogicalAnd,
    /// `or(a, b)` (HLSL 2021) and `||` on vectors.
    LogicalOr,
    /// `D3DCOLORtoUBYTE4(c)`.
    ColorToUbyte4,
    /// `EvaluateAttributeCentroid(x)`, `EvaluateAttributeAtSample(x, i)`,
    /// `EvaluateAttributeSnapped(x, offset)`: the interpolation intrinsic, given a pointer to a
    /// variable holding `x` (the SPIR-V backend follows it back to the stage input); also
    /// `GetAttributeAtVertex(x, vertex)` (`Intrinsic::AttributeAtVertex`), the same way.
    Interpolate(Intrinsic),
    /// `dst(a, b)`: `float4(1, a.y * b.y, a.z, b.w)`.
    Dst,
    /// `lit(n_dot_l, n_dot_h, m)`: `float4(1, max(n_dot_l, 0), specular, 1)`.
    Lit,
    /// `abort()`: no effect.
    Nop,
    /// `SetMeshOutputCounts(vertices, primitives)`.
    SetMeshOutputCounts,
    /// `DispatchMesh(x, y, z, payload)`: the payload is a `groupshared` global.
    DispatchMesh,
    /// `TraceRay(accel, flags, mask, offset, stride, miss, ray, payload)`: the payload is
    /// an `inout` place.
    TraceRay,
    /// `ReportHit(t, kind, attributes)`.
    ReportHit,
    /// `CallShader(index, data)`: the data is an `inout` place.
    CallShader,
    /// `IgnoreHit()`.
    IgnoreHit,
    /// `AcceptHitAndEndSearch()`.
    AcceptHitAndEndSearch,
    /// A system value read through a function (`DispatchRaysIndex()`, `RayTCurrent()`,
    /// ...): the built-in, transposed when true (`ObjectToWorld3x4()`).
    SystemValue(oneshader_ir::BuiltIn, bool),
    /// An intrinsic without a SPIR-V translation here: an error when lowered (named).
    Unsupported(&'static str),
}

/// A method of a texture, buffer or sampler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResMethod {
    /// `Sample(s, uv [, offset [, clamp]])`.
    Sample,
    /// `SampleBias(s, uv, bias [, offset])`.
    SampleBias,
    /// `SampleLevel(s, uv, lod [, offset])`.
    SampleLevel,
    /// `SampleGrad(s, uv, ddx, ddy [, offset])`.
    SampleGrad,
    /// `SampleCmp(s, uv, ref [, offset])`.
    SampleCmp,
    /// `SampleCmpLevelZero(s, uv, ref [, offset])`.
    SampleCmpLevelZero,
    /// `SampleCmpLevel(s, uv, ref, lod [, offset])`: unsupported (no IR op).
    SampleCmpLevel,
    /// `Gather*(s, uv [, offset])`: component 0..3.
    Gather(u8),
    /// `GatherCmp*(s, uv, ref [, offset])`.
    GatherCmp,
    /// `Load(coord [, sample] [, offset])` on textures and typed buffers; `Load`/`LoadN` on
    /// byte-address buffers (the count of `u32`s, or the templated type); `Load(i)` on
    /// structured buffers.
    Load,
    /// `Store(addr, value)` / `StoreN` on byte-address buffers.
    Store,
    /// `GetDimensions(...)`: the arguments are the outputs (and an optional mip level first).
    GetDimensions,
    /// `CalculateLevelOfDetail(s, uv)`.
    CalculateLod,
    /// `CalculateLevelOfDetailUnclamped(s, uv)`.
    CalculateLodUnclamped,
    /// `Append(value)`.
    Append,
    /// `Consume()`.
    Consume,
    /// `IncrementCounter()`.
    IncrementCounter,
    /// `DecrementCounter()`.
    DecrementCounter,
    /// `Interlocked*(offset, value [, out original])` on `RWByteAddressBuffer`.
    Atomic(AtomicOp),
    /// `InterlockedCompareExchange(offset, cmp, value, out original)` on `RWByteAddressBuffer`.
    AtomicCmpXchg,
    /// `InterlockedCompareStore(offset, cmp, value)`.
    AtomicCmpStore,
    /// `SubpassLoad([sample])`.
    SubpassLoad,
    /// `GetSamplePosition(i)` on a multisampled texture: the standard sample position
    /// (D3D's patterns for 1, 2, 4, 8 and 16 samples; `(0, 0)` otherwise).
    GetSamplePosition,
    /// `stream.Append(vertex)` of a geometry shader's output stream.
    StreamAppend,
    /// `stream.RestartStrip()`.
    StreamRestart,
    /// `query.TraceRayInline(accel, flags, mask, ray)`: the query's own flags are or-ed in.
    RayQueryInit,
    /// `query.Proceed()`.
    RayQueryProceed,
    /// `query.Abort()`.
    RayQueryAbort,
    /// `query.CommitNonOpaqueTriangleHit()`.
    RayQueryCommitTriangle,
    /// `query.CommitProceduralPrimitiveHit(t)`.
    RayQueryCommitProcedural,
    /// One of the query's values (`CommittedRayT()`, `CandidateType()`, ...), negated
    /// (`CandidateProceduralPrimitiveNonOpaque()`) or transposed (`...3x4()`) as asked.
    RayQueryGet(oneshader_ir::RayQueryValue, RayQueryPost),
    /// A texture read with HLSL's optional trailing operands, or one of the newer methods
    /// (`SampleCmpLevel`, `SampleCmpBias`, `SampleCmpGrad`). The arguments: the sampler
    /// (except for `Load`), the coordinate (`Load`: the location, with the mip level for
    /// sampled textures, then the sample index of multisampled ones), the read's own operands
    /// ([`TexRead::fixed`]), then `offsets` offsets (0, 1, or 4 for gathers), the LOD clamp
    /// when `clamp`, and the `out uint status` place when `status`.
    TexRead {
        /// Which read.
        read: TexRead,
        /// How many offsets follow the fixed arguments.
        offsets: u8,
        /// A minimum-LOD clamp follows.
        clamp: bool,
        /// A residency-status output comes last.
        status: bool,
    },
}

/// What follows a ray-query read ([`ResMethod::RayQueryGet`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RayQueryPost {
    /// The value as read.
    None,
    /// Logical not.
    Not,
    /// Transpose (`float4x3` to `float3x4`).
    Transpose,
}

/// The texture reads of [`ResMethod::TexRead`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TexRead {
    /// `Sample`.
    Sample,
    /// `SampleBias`: + bias.
    SampleBias,
    /// `SampleLevel`: + lod.
    SampleLevel,
    /// `SampleGrad`: + ddx, ddy.
    SampleGrad,
    /// `SampleCmp`: + reference.
    SampleCmp,
    /// `SampleCmpLevelZero`: + reference.
    SampleCmpLevelZero,
    /// `SampleCmpLevel`: + reference, lod.
    SampleCmpLevel,
    /// `SampleCmpBias`: + reference, bias.
    SampleCmpBias,
    /// `SampleCmpGrad`: + reference, ddx, ddy.
    SampleCmpGrad,
    /// `Gather*` of a component.
    Gather(u8),
    /// `GatherCmp`/`GatherCmpRed`: + reference.
    GatherCmp,
    /// `Load`.
    Load,
}

impl TexRead {
    /// The arguments after the coordinate (`Load`: after the location and sample index).
    pub fn fixed(self) -> usize {
        match self {
            TexRead::Sample | TexRead::Gather(_) | TexRead::Load => 0,
            TexRead::SampleBias
            | TexRead::SampleLevel
            | TexRead::SampleCmp
            | TexRead::SampleCmpLevelZero
            | TexRead::GatherCmp => 1,
            TexRead::SampleGrad | TexRead::SampleCmpLevel | TexRead::SampleCmpBias => 2,
            TexRead::SampleCmpGrad => 3,
        }
    }

    /// True for the reads that take a LOD clamp.
    pub fn takes_clamp(self) -> bool {
        matches!(
            self,
            TexRead::Sample
                | TexRead::SampleBias
                | TexRead::SampleGrad
                | TexRead::SampleCmp
                | TexRead::SampleCmpBias
                | TexRead::SampleCmpGrad
        )
    }

    /// True for the depth-comparison reads.
    pub fn compares(self) -> bool {
        matches!(
            self,
            TexRead::SampleCmp
                | TexRead::SampleCmpLevelZero
                | TexRead::SampleCmpLevel
                | TexRead::SampleCmpBias
                | TexRead::SampleCmpGrad
                | TexRead::GatherCmp
        )
    }
}

/// The forms of [`Expr`].
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// After an error (type `Error`).
    Error,
    /// A string literal (type `string`), its escapes resolved: what a print's format takes.
    Str(String),
    /// A scalar constant of the expression's type.
    Const(ConstVal),
    /// A local variable or parameter.
    Local(LocalId),
    /// A global variable.
    Global(GlobalId),
    /// Field `n` of a struct value; `n` past the fields names a bit field
    /// ([`StructDef::field`]).
    Field(Box<Expr>, u32),
    /// Vector (or scalar) components by constant index; one index gives a scalar.
    Swizzle(Box<Expr>, Vec<u8>),
    /// Matrix elements `(row, col)`; one gives a scalar.
    MatSwizzle(Box<Expr>, Vec<(u8, u8)>),
    /// Array element, vector component, matrix row, structured-buffer element.
    Index(Box<Expr>, Box<Expr>),
    /// `tex[coord]` / `buf[i]` on textures and typed buffers (a load, or a store place).
    TexIndex(Box<Expr>, Box<Expr>),
    /// A unary operation (operand already of the result type, or bool shape for `!`).
    Unary(UnOp, Box<Expr>),
    /// A binary operation (both operands of one type).
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `&&` (true) or `||` (false) on scalars: short-circuit.
    Logical(bool, Box<Expr>, Box<Expr>),
    /// `c ? a : b` with a scalar condition (control flow or `select` when pure).
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `lhs = rhs` (rhs converted); yields the new value.
    Assign(Box<Expr>, Box<Expr>),
    /// `lhs op= rhs`: reads `lhs`, converts it to `op_ty`, applies `op` with `rhs` (of
    /// `op_ty`), converts back and stores.
    CompoundAssign {
        /// The operation.
        op: BinOp,
        /// The place.
        lhs: Box<Expr>,
        /// The operand, of `op_ty`.
        rhs: Box<Expr>,
        /// The type the operation runs in.
        op_ty: TyId,
    },
    /// `++`/`--`: (increment?, postfix?).
    IncDec(Box<Expr>, bool, bool),
    /// A call of a user function.
    Call(FuncId, Vec<Arg>),
    /// An intrinsic; `args` already converted to the intrinsic's parameter types (out
    /// arguments are places).
    Intrinsic(IntrinsicOp, Vec<Expr>),
    /// A method of a resource: the object (a resource place) and the arguments.
    Method(ResMethod, Box<Expr>, Vec<Expr>),
    /// A composite of the expression's type from the scalar components of `args` (vectors,
    /// matrices, arrays and structs flattened in order; each leaf converted to the leaf type
    /// it lands in).
    Flatten(Vec<Expr>),
    /// A conversion to the expression's type.
    Cast(CastKind, Box<Expr>),
    /// `a, b`.
    Comma(Box<Expr>, Box<Expr>),
    /// The element count of a runtime array (`GetDimensions` of structured buffers).
    ArrayLength(Box<Expr>),
    /// `ResourceDescriptorHeap[i]` (false) or `SamplerDescriptorHeap[i]` (true) before a
    /// conversion gives it a resource type (`heaps.rs`): an error when it reaches lowering.
    HeapIndex(bool, Box<Expr>),
    /// A struct value that holds resources, kept as its split fields (analysis only: its
    /// uses are rewritten to the fields; lowering reports any that is left).
    Split(u32),
}

impl Expr {
    /// An error expression.
    pub fn error(span: Span) -> Expr {
        Expr {
            kind: ExprKind::Error,
            ty: Types::ERROR,
            span,
        }
    }
}

// ---- statements -------------------------------------------------------------------------------

/// Loop and branch hints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hints {
    /// `[unroll]` (Some(0)) or `[unroll(n)]`.
    pub unroll: Option<u32>,
    /// `[loop]`.
    pub dont_unroll: bool,
    /// `[flatten]`.
    pub flatten: bool,
    /// `[branch]` / `[call]`.
    pub branch: bool,
}

/// A `case` label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaseValue {
    /// `case v:`.
    Value(i128),
    /// `default:`.
    Default,
}

/// One group of a `switch`.
#[derive(Clone, Debug)]
pub struct Case {
    /// Its labels.
    pub labels: Vec<CaseValue>,
    /// Its statements.
    pub body: Vec<Stmt>,
}

/// Statements.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// An expression evaluated for its effects.
    Expr(Expr),
    /// A local declaration with an optional initializer (of the local's type).
    Local(LocalId, Option<Expr>),
    /// `{ ... }`, or statements grouped by the front end.
    Block(Vec<Stmt>),
    /// A `{ ... }` of the source that declares locals (braces included): a lexical scope of
    /// the debug information (`oneshader_ir::debug_scopes`), otherwise the same as a block.
    Scope(Span, Vec<Stmt>),
    /// `if`.
    If {
        /// Scalar bool condition.
        cond: Expr,
        /// Taken branch.
        then: Vec<Stmt>,
        /// `else` branch.
        otherwise: Vec<Stmt>,
        /// Hints.
        hints: Hints,
    },
    /// `for`, `while` (no init, no step) and `do`-`while` (`test_first` false).
    Loop {
        /// Statements before the loop (a `for` init).
        init: Vec<Stmt>,
        /// The test (`None`: forever).
        cond: Option<Expr>,
        /// The step (`for`).
        step: Option<Expr>,
        /// The body.
        body: Vec<Stmt>,
        /// `false` for `do ... while`.
        test_first: bool,
        /// Hints.
        hints: Hints,
    },
    /// `switch`.
    Switch {
        /// The selector (an integer scalar).
        value: Expr,
        /// The groups in order.
        cases: Vec<Case>,
        /// Hints.
        hints: Hints,
    },
    /// `break`.
    Break,
    /// `continue`.
    Continue,
    /// `return [v]`.
    Return(Option<Expr>),
    /// `discard`, at its keyword (the position a stage error names).
    Discard(Span),
}

// ---- the program ------------------------------------------------------------------------------

/// What semantic analysis hands to lowering.
#[derive(Clone, Debug)]
pub struct Program {
    /// Types and structs.
    pub types: Types,
    /// Globals.
    pub globals: Vec<GlobalDef>,
    /// Functions.
    pub funcs: Vec<FuncDef>,
    /// The entry points with their stages: one for a shader profile (`-E`), every
    /// `[shader("...")]` function of a library (`lib_*`).
    pub entries: Vec<(FuncId, Stage)>,
    /// Compiled for a library profile (`lib_*`): `export` functions become IR exports and
    /// prototypes imports.
    pub library: bool,
    /// Default matrix order (`-Zpr` / `#pragma pack_matrix`).
    pub default_major: Major,
}

impl Program {
    /// A function.
    pub fn func(&self, f: FuncId) -> &FuncDef {
        &self.funcs[f.0 as usize]
    }

    /// A global.
    pub fn global(&self, g: GlobalId) -> &GlobalDef {
        &self.globals[g.0 as usize]
    }
}
