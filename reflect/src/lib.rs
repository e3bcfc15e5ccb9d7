//! `oneshader-reflect`: what a compiled shader expects from the host, read from the IR.
//!
//! [`reflect`] reads a module as the front end lowered it (before legalization and the
//! optimizer, so resources the optimizer would drop are still described and names are the
//! user's) and returns a [`Reflection`]: entry points with their stage, workgroup size and
//! stage inputs/outputs (locations, built-ins, HLSL semantics, types); resources with their
//! descriptor set, binding, kind, Vulkan descriptor type, array size and contents; push
//! constants; specialization constants. Buffer contents carry their memory layout (member
//! offsets and sizes, array and matrix strides, majorness) computed by
//! [`oneshader_ir::layout`], the module the SPIR-V backend uses for its `Offset`,
//! `ArrayStride` and `MatrixStride` decorations, under the same [`LayoutRules`]: what host
//! code reads here is what the shader reads.
//!
//! Which entry point uses what comes from the module's shared analyses
//! ([`oneshader_ir::analysis::ModuleInfo`]), the ones every backend reads, so reflection and
//! the backends agree on what an entry point uses. Reflection is target-independent: every
//! backend emits the bindings it describes (targets that number resources their own way add
//! their numbers next to these).
//!
//! Every type of the model implements serde's `Serialize` and `Deserialize`; the JSON form
//! (`oneshader compile --reflect OUT.json`) is documented with an example in
//! docs/reflection.md. Absent optional fields are left out of the JSON. The `oneshader`
//! facade re-exports this crate as `oneshader::reflect` and builds the reflection on request
//! (`CompileOptions::with_reflection`).
//!
//! What the IR does not say is inferred, and documented on the field: a `storage_buffer`
//! global of `rtarray<u32>` is a byte-address buffer when it is read or written with
//! `buffer_load`/`buffer_store` (otherwise a structured buffer of `uint`); an append/consume
//! buffer is a consume buffer when its counter is decremented.

use oneshader_ir::analysis::ModuleInfo;
use oneshader_ir::float16::f16_to_f64;
use oneshader_ir::layout::{self, LayoutError, LayoutRule};
use oneshader_ir::{AddressSpace, BuiltIn, InstId, Module, Op, Stage, TextureAccess};
use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};

mod requirements;
pub use requirements::DeviceRequirements;

/// The version of the reflection format ([`Reflection::format`]); bumped when a field
/// changes meaning or disappears (adding fields does not bump it).
pub const FORMAT_VERSION: u32 = 1;

/// Everything reflection reports about one module.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reflection {
    /// [`FORMAT_VERSION`].
    pub format: u32,
    /// The layout rules buffer contents were laid out with.
    pub layout: LayoutRules,
    /// Entry points, in module order.
    pub entry_points: Vec<EntryPoint>,
    /// Descriptor-bound resources, by set, then binding, then name.
    pub resources: Vec<Resource>,
    /// Push-constant blocks.
    #[serde(default)]
    pub push_constants: Vec<PushConstant>,
    /// Shader-binding-table records of ray-tracing shaders (`[[vk::shader_record_ext]]`),
    /// laid out by the storage-buffer rule (as DXC does).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shader_records: Vec<PushConstant>,
    /// Specialization constants, by id.
    #[serde(default)]
    pub spec_constants: Vec<SpecConstant>,
    /// What the device must support to run the compiled SPIR-V module (capabilities,
    /// extensions, Vulkan features, subgroup operations); filled by the compiler once it has
    /// emitted SPIR-V, `None` when it has not (the IR alone does not say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requirements: Option<DeviceRequirements>,
    /// The `[[buffer(n)]]` of the MSL output's buffer-sizes buffer, when the target is MSL
    /// and the entry point reads the length of a runtime array: element `k` (a `uint`) must
    /// hold the byte size of the buffer bound at `[[buffer(k)]]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msl_buffer_sizes: Option<u32>,
}

impl Reflection {
    /// The resource named `name`, if any.
    pub fn resource(&self, name: &str) -> Option<&Resource> {
        self.resources.iter().find(|r| r.name == name)
    }

    /// The entry point named `name`, if any.
    pub fn entry_point(&self, name: &str) -> Option<&EntryPoint> {
        self.entry_points.iter().find(|e| e.name == name)
    }

    /// The JSON text (pretty-printed, ending in a newline).
    pub fn to_json(&self) -> String {
        // Serializing this model cannot fail: every map key is a string and every value a
        // plain number, string, bool, list or struct.
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// Reads the JSON form back.
    pub fn from_json(text: &str) -> Result<Reflection, serde_json::Error> {
        serde_json::from_str(text)
    }
}

/// Which [`LayoutRule`] applies to each kind of buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayoutRules {
    /// Constant buffers (`uniform` globals).
    #[serde(with = "rule_name")]
    pub constant_buffer: LayoutRule,
    /// Structured, byte-address and append/consume buffers, `tbuffer`s.
    #[serde(with = "rule_name")]
    pub storage_buffer: LayoutRule,
    /// Push constants.
    #[serde(with = "rule_name")]
    pub push_constant: LayoutRule,
    /// Texture buffers (`tbuffer`, `TextureBuffer<T>`): the storage buffers' rule, except
    /// under `-fvk-use-dx-layout` (D3D's constant-buffer packing).
    #[serde(with = "rule_name")]
    pub texture_buffer: LayoutRule,
}

impl Default for LayoutRules {
    /// DXC's defaults: relaxed std140 for constant buffers, relaxed std430 for the rest.
    fn default() -> LayoutRules {
        LayoutRules {
            constant_buffer: LayoutRule::RelaxedStd140,
            storage_buffer: LayoutRule::RelaxedStd430,
            push_constant: LayoutRule::RelaxedStd430,
            texture_buffer: LayoutRule::RelaxedStd430,
        }
    }
}

impl LayoutRules {
    /// The rule of buffers in `space`, or `None` for spaces without an explicit layout.
    pub fn rule_of(&self, space: AddressSpace) -> Option<LayoutRule> {
        match space {
            AddressSpace::Uniform => Some(self.constant_buffer),
            AddressSpace::StorageBuffer => Some(self.storage_buffer),
            AddressSpace::PushConstant => Some(self.push_constant),
            AddressSpace::ShaderRecord => Some(self.storage_buffer),
            _ => None,
        }
    }
}

/// Serde of a [`LayoutRule`] as a snake-case name (`relaxed_std140`, `d3d_cbuffer`, ...).
mod rule_name {
    use oneshader_ir::layout::LayoutRule;
    use serde::{Deserialize, Deserializer, Serializer};

    const NAMES: [(LayoutRule, &str); 6] = [
        (LayoutRule::Std140, "std140"),
        (LayoutRule::Std430, "std430"),
        (LayoutRule::RelaxedStd140, "relaxed_std140"),
        (LayoutRule::RelaxedStd430, "relaxed_std430"),
        (LayoutRule::Scalar, "scalar"),
        (LayoutRule::DxCbuffer, "d3d_cbuffer"),
    ];

    pub fn serialize<S: Serializer>(rule: &LayoutRule, s: S) -> Result<S::Ok, S::Error> {
        let name = NAMES
            .iter()
            .find(|(r, _)| r == rule)
            .map_or("std140", |(_, n)| n);
        s.serialize_str(name)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<LayoutRule, D::Error> {
        let name = String::deserialize(d)?;
        NAMES
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(r, _)| *r)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown layout rule `{name}`")))
    }
}

/// A shader stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ShaderStage {
    /// Vertex shader.
    Vertex,
    /// Fragment (pixel) shader.
    Fragment,
    /// Compute shader.
    Compute,
    /// Geometry shader.
    Geometry,
    /// Hull (tessellation control) shader.
    Hull,
    /// Domain (tessellation evaluation) shader.
    Domain,
    /// Mesh shader.
    Mesh,
    /// Amplification (task) shader.
    Amplification,
    /// Ray-generation shader.
    #[serde(rename = "raygeneration")]
    RayGeneration,
    /// Intersection shader.
    Intersection,
    /// Any-hit shader.
    #[serde(rename = "anyhit")]
    AnyHit,
    /// Closest-hit shader.
    #[serde(rename = "closesthit")]
    ClosestHit,
    /// Miss shader.
    Miss,
    /// Callable shader.
    Callable,
}

impl From<Stage> for ShaderStage {
    fn from(s: Stage) -> ShaderStage {
        match s {
            Stage::Vertex => ShaderStage::Vertex,
            Stage::Fragment => ShaderStage::Fragment,
            Stage::Compute => ShaderStage::Compute,
            Stage::Geometry => ShaderStage::Geometry,
            Stage::Hull => ShaderStage::Hull,
            Stage::Domain => ShaderStage::Domain,
            Stage::Mesh => ShaderStage::Mesh,
            Stage::Amplification => ShaderStage::Amplification,
            Stage::RayGeneration => ShaderStage::RayGeneration,
            Stage::Intersection => ShaderStage::Intersection,
            Stage::AnyHit => ShaderStage::AnyHit,
            Stage::ClosestHit => ShaderStage::ClosestHit,
            Stage::Miss => ShaderStage::Miss,
            Stage::Callable => ShaderStage::Callable,
        }
    }
}

/// One entry point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EntryPoint {
    /// The name the entry point is exported under (HLSL's `-E`).
    pub name: String,
    /// Its stage.
    pub stage: ShaderStage,
    /// `[numthreads(x, y, z)]` of a compute shader.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workgroup_size: Option<[u32; 3]>,
    /// Stage inputs it reads (built-ins included), by location, then built-ins by name.
    pub inputs: Vec<StageVariable>,
    /// Stage outputs it writes.
    pub outputs: Vec<StageVariable>,
}

/// A stage input or output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StageVariable {
    /// The IR global's name (`in.var.TEXCOORD0`).
    pub name: String,
    /// The HLSL semantic without its index (`TEXCOORD`, `SV_Position`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub semantic: Option<String>,
    /// The semantic index (`1` for `TEXCOORD1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub semantic_index: Option<u32>,
    /// `Location` of a user variable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<u32>,
    /// The built-in of a system value (the IR's spelling: `position`,
    /// `global_invocation_id`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub builtin: Option<String>,
    /// The value's type.
    #[serde(rename = "type")]
    pub ty: Type,
    /// Interpolation qualifiers (fragment inputs, vertex outputs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub interpolation: Vec<Interpolation>,
    /// `invariant` (a position output).
    #[serde(default, skip_serializing_if = "is_false")]
    pub invariant: bool,
    /// One value per patch (a hull shader's patch constants, a domain shader's inputs of
    /// them), not per control point.
    #[serde(default, skip_serializing_if = "is_false")]
    pub per_patch: bool,
    /// One value per primitive (a mesh shader's primitive outputs).
    #[serde(default, skip_serializing_if = "is_false")]
    pub per_primitive: bool,
    /// The vertex stream of a geometry shader's output, when it has several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<u32>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// An interpolation qualifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Interpolation {
    /// `nointerpolation`.
    Flat,
    /// `noperspective`.
    NoPerspective,
    /// `centroid`.
    Centroid,
    /// `sample`.
    Sample,
}

/// A scalar type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scalar {
    /// `bool` (4 bytes in buffers).
    Bool,
    /// 8-bit signed integer.
    I8,
    /// 16-bit signed integer.
    I16,
    /// 32-bit signed integer (`int`).
    I32,
    /// 64-bit signed integer.
    I64,
    /// 8-bit unsigned integer.
    U8,
    /// 16-bit unsigned integer.
    U16,
    /// 32-bit unsigned integer (`uint`).
    U32,
    /// 64-bit unsigned integer.
    U64,
    /// 16-bit float (`half` with `-enable-16bit-types`).
    F16,
    /// 32-bit float (`float`).
    F32,
    /// 64-bit float (`double`).
    F64,
}

impl Scalar {
    fn of(op: Op) -> Option<Scalar> {
        Some(match op {
            Op::Bool => Scalar::Bool,
            Op::I8 => Scalar::I8,
            Op::I16 => Scalar::I16,
            Op::I32 => Scalar::I32,
            Op::I64 => Scalar::I64,
            Op::U8 => Scalar::U8,
            Op::U16 => Scalar::U16,
            Op::U32 => Scalar::U32,
            Op::U64 => Scalar::U64,
            Op::F16 => Scalar::F16,
            Op::F32 => Scalar::F32,
            Op::F64 => Scalar::F64,
            _ => return None,
        })
    }
}

/// A data type. Inside buffers (resource contents, push constants) the layout fields are
/// set: array strides, matrix strides and majorness, struct member offsets and sizes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Type {
    /// A scalar.
    Scalar {
        /// Which.
        scalar: Scalar,
    },
    /// A vector.
    Vector {
        /// The component type.
        scalar: Scalar,
        /// 2, 3 or 4.
        components: u32,
    },
    /// A matrix: HLSL's `floatRxC` has `rows` R and `columns` C.
    Matrix {
        /// The component type.
        scalar: Scalar,
        /// Rows.
        rows: u32,
        /// Columns.
        columns: u32,
        /// In a buffer: the distance in bytes between the stored rows (row-major) or columns
        /// (column-major).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        matrix_stride: Option<u32>,
        /// In a buffer: true when stored row by row (HLSL `row_major`, `-Zpr`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        row_major: Option<bool>,
    },
    /// An array; `length` is absent for a runtime-sized array (the contents of a structured
    /// buffer).
    Array {
        /// The element type.
        element: Box<Type>,
        /// The element count.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        length: Option<u32>,
        /// In a buffer: the distance in bytes between elements.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stride: Option<u32>,
    },
    /// A struct.
    Struct {
        /// The struct's name.
        name: String,
        /// Its members, in order.
        members: Vec<Member>,
        /// In a buffer: its size in bytes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        size: Option<u32>,
    },
    /// A type reflection does not describe (printed in the IR's text form).
    Other {
        /// The IR spelling.
        ir: String,
    },
}

/// A struct member.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Member {
    /// The member's name.
    pub name: String,
    /// Its type.
    #[serde(rename = "type")]
    pub ty: Type,
    /// In a buffer: the offset in bytes from the start of the struct.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u32>,
    /// In a buffer: the size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u32>,
}

/// What kind of resource a binding holds (HLSL's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ResourceKind {
    /// `cbuffer`, `ConstantBuffer<T>`.
    ConstantBuffer,
    /// `tbuffer`, `TextureBuffer<T>` (a read-only storage buffer holding one struct).
    Tbuffer,
    /// `StructuredBuffer<T>`.
    StructuredBuffer,
    /// `RWStructuredBuffer<T>`.
    RwStructuredBuffer,
    /// `ByteAddressBuffer` (inferred from `buffer_load` use; see the module docs).
    ByteAddressBuffer,
    /// `RWByteAddressBuffer` (inferred likewise).
    RwByteAddressBuffer,
    /// `AppendStructuredBuffer<T>`.
    AppendStructuredBuffer,
    /// `ConsumeStructuredBuffer<T>` (inferred from a decremented counter).
    ConsumeStructuredBuffer,
    /// The counter of an append/consume buffer: one `uint`.
    Counter,
    /// Another storage buffer (written in IR text rather than lowered from HLSL).
    StorageBuffer,
    /// `Texture1D` ... `TextureCube[Array]`, `Texture2DMS`: sampled or fetched.
    Texture,
    /// `RWTexture1D` ... `RWTexture3D`: a storage image.
    StorageTexture,
    /// `Buffer<T>`.
    TexelBuffer,
    /// `RWBuffer<T>`.
    StorageTexelBuffer,
    /// `SubpassInput`.
    SubpassInput,
    /// `SamplerState`.
    Sampler,
    /// `SamplerComparisonState`.
    ComparisonSampler,
    /// `RaytracingAccelerationStructure`.
    AccelerationStructure,
}

/// The Vulkan descriptor type (`VkDescriptorType`) a binding needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DescriptorType {
    /// `VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER`.
    UniformBuffer,
    /// `VK_DESCRIPTOR_TYPE_STORAGE_BUFFER`.
    StorageBuffer,
    /// `VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE`.
    SampledImage,
    /// `VK_DESCRIPTOR_TYPE_STORAGE_IMAGE`.
    StorageImage,
    /// `VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER`.
    UniformTexelBuffer,
    /// `VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER`.
    StorageTexelBuffer,
    /// `VK_DESCRIPTOR_TYPE_SAMPLER`.
    Sampler,
    /// `VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT`.
    InputAttachment,
    /// `VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR`.
    AccelerationStructure,
}

/// A descriptor-bound resource.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Resource {
    /// The HLSL name (the IR global's name).
    pub name: String,
    /// Descriptor set (HLSL `space`).
    pub set: u32,
    /// Binding number.
    pub binding: u32,
    /// What it is.
    pub kind: ResourceKind,
    /// The descriptor type to put in the set layout.
    pub descriptor_type: DescriptorType,
    /// The descriptor count of a resource array (`Texture2D t[4]`); `0` for a runtime-sized
    /// array (`Texture2D t[]`); absent for a single resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub array_size: Option<u32>,
    /// True when some entry point reaches it. The HLSL front end lowers only what the entry
    /// point reaches, so for HLSL this is always true; modules written in IR text or linked
    /// from several may declare resources no entry point uses (the SPIR-V keeps them).
    pub used: bool,
    /// Read-only storage (`StructuredBuffer`, `ByteAddressBuffer`, `tbuffer`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub readonly: bool,
    /// Buffers: what one descriptor's memory holds, laid out. A constant buffer or `tbuffer`
    /// is a struct of its members; a structured buffer is an array without a length whose
    /// stride is the element stride; a byte-address buffer is an array of `u32`.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub ty: Option<Type>,
    /// Buffers: the size in bytes of one descriptor's memory (for a structured buffer: of its
    /// fixed part, 0; multiply the element stride by the element count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u32>,
    /// Textures and texel buffers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub texture: Option<TextureInfo>,
    /// Append/consume buffers: where their counter is bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counter: Option<CounterBinding>,
    /// Where the MSL output binds it, when the target is MSL and the entry point uses it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msl: Option<MslIndex>,
    /// The D3D register it was declared at (HLSL sources only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub register: Option<Register>,
    /// Where WGSL output binds it (`@group`/`@binding`, by the rules of docs/wgsl-backend.md
    /// "Bindings" and the `--wgsl-binding-map`), filled in by the compiler for every target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wgsl: Option<WgslBinding>,
    /// The entry points that use it, in module order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entry_points: Vec<String>,
}

/// A D3D register: `register(t3, space1)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Register {
    /// The class letter: `b`, `t`, `s` or `u` (for a resource without `register(...)`: what
    /// its type binds as).
    pub class: String,
    /// The number; absent when the source gave no `register(...)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<u32>,
    /// The space.
    pub space: u32,
}

/// A WGSL resource place.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WgslBinding {
    /// `@group(n)`.
    pub group: u32,
    /// `@binding(n)`.
    pub binding: u32,
    /// A texel buffer (`Buffer<T>`, `RWBuffer<T>`) that WGSL, which has no texel buffers,
    /// declares as a storage buffer `array<T>` (read-only for `Buffer<T>`): bind a buffer
    /// holding the texels there. Absent (false) for every other resource.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub storage_buffer: bool,
}

/// An MSL resource index: `[[buffer(n)]]`, `[[texture(n)]]` or `[[sampler(n)]]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MslIndex {
    /// `buffer`, `texture` or `sampler`.
    pub kind: String,
    /// The index (the first of `count` consecutive ones for an array of textures or
    /// samplers).
    pub index: u32,
    /// How many indices it takes.
    pub count: u32,
}

/// The shape of a texture, storage texture or texel buffer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextureInfo {
    /// `1d`, `2d`, `3d`, `cube`, `buffer` or `subpass`.
    pub dim: String,
    /// An array texture.
    pub arrayed: bool,
    /// Multisampled.
    pub multisampled: bool,
    /// A depth texture (known to be one).
    #[serde(default, skip_serializing_if = "is_false")]
    pub depth: bool,
    /// The element type as declared (`float4` of `Texture2D<float4>`).
    pub sampled_type: Type,
    /// The storage format of a storage texture or texel buffer (`rgba32f`, `r32ui`, ...), when
    /// known (`[[vk::image_format]]` or inferred from the element type).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
}

/// Where an append/consume buffer's counter is bound.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CounterBinding {
    /// The counter's name (`counter.var.<buffer>`), also listed among the resources.
    pub name: String,
    /// Its descriptor set.
    pub set: u32,
    /// Its binding.
    pub binding: u32,
}

/// A push-constant block.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PushConstant {
    /// The variable's name.
    pub name: String,
    /// Its contents, laid out by the push-constant rule.
    #[serde(rename = "type")]
    pub ty: Type,
    /// Size in bytes (the range to declare in the pipeline layout).
    pub size: u32,
    /// True when some entry point reaches it.
    pub used: bool,
    /// Its `[[buffer(n)]]` in the MSL output, when the target is MSL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msl: Option<MslIndex>,
}

/// A specialization constant (`[[vk::constant_id(N)]] const T name = default;`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "SpecConstantRepr")]
pub struct SpecConstant {
    /// The `constant_id`.
    pub id: u32,
    /// Its name, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its type.
    #[serde(rename = "type")]
    pub ty: Scalar,
    /// The value used when the pipeline does not specialize it.
    pub default: ConstValue,
}

/// [`SpecConstant`] as read from JSON, where a non-negative integer is just a number: the
/// constant's type decides whether it is signed.
#[derive(Deserialize)]
struct SpecConstantRepr {
    id: u32,
    #[serde(default)]
    name: Option<String>,
    #[serde(rename = "type")]
    ty: Scalar,
    default: ConstValue,
}

impl From<SpecConstantRepr> for SpecConstant {
    fn from(r: SpecConstantRepr) -> SpecConstant {
        let unsigned = matches!(r.ty, Scalar::U8 | Scalar::U16 | Scalar::U32 | Scalar::U64);
        let default = match r.default {
            ConstValue::Int(v) if unsigned && v >= 0 => ConstValue::UInt(v as u64),
            other => other,
        };
        SpecConstant {
            id: r.id,
            name: r.name,
            ty: r.ty,
            default,
        }
    }
}

/// A scalar constant value.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ConstValue {
    /// A `bool`.
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// A float (`half` and `float` widened exactly).
    Float(f64),
}

/// Why a module cannot be reflected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReflectError {
    /// A buffer's contents have no layout under its rule.
    #[error("`{name}` has no buffer layout: {error}")]
    Layout {
        /// The global.
        name: String,
        /// Why.
        error: LayoutError,
    },
    /// A global is not typed as a pointer (the module does not verify).
    #[error("global `{0}` is not a pointer; the module does not verify")]
    Malformed(String),
}

/// Reflects `m` (a module as lowered by the front end, before legalization and
/// optimization) with buffer layouts under `rules`.
///
/// ```
/// use oneshader_reflect::{LayoutRules, ResourceKind, reflect};
/// let m = oneshader_ir::parse::parse(
///     "global @data : ptr<storage_buffer, rtarray<u32>> [binding(0, 1)]\n\
///      global @spare : ptr<storage_buffer, rtarray<f32>> [binding(0, 2), readonly]\n\
///      func @main() -> void [entry_point(compute, \"main\"), numthreads(64, 1, 1)] {\n\
///      bb0:\n  %0 = element_addr @data, u32 0 : ptr<storage_buffer, u32>\n  store %0, u32 7\n  return\n}\n",
/// ).unwrap();
/// let r = reflect(&m, &LayoutRules::default()).unwrap();
/// assert_eq!(r.entry_points[0].workgroup_size, Some([64, 1, 1]));
/// let data = r.resource("data").unwrap();
/// assert_eq!((data.kind, data.binding, data.used), (ResourceKind::RwStructuredBuffer, 1, true));
/// // Declared, but no entry point uses it.
/// assert!(!r.resource("spare").unwrap().used);
/// ```
pub fn reflect(m: &Module, rules: &LayoutRules) -> Result<Reflection, ReflectError> {
    let info = ModuleInfo::new(m);
    let facts = Facts::gather(m, &info);
    let mut entry_points = Vec::new();
    for e in info.entry_points() {
        let mut inputs = Vec::new();
        let mut outputs = Vec::new();
        for u in e.globals() {
            let g = u.global.id();
            match global_space(m, g) {
                Some(AddressSpace::Input) => inputs.push(stage_variable(m, g)?),
                Some(AddressSpace::Output) => outputs.push(stage_variable(m, g)?),
                _ => {}
            }
        }
        for list in [&mut inputs, &mut outputs] {
            list.sort_by(|a, b| {
                (a.location.is_none(), a.location, &a.builtin, &a.name).cmp(&(
                    b.location.is_none(),
                    b.location,
                    &b.builtin,
                    &b.name,
                ))
            });
        }
        let workgroup_size = m
            .find_decoration(e.func().id(), Op::NumThreads)
            .and_then(|d| {
                Some([
                    m.imm_operand(d, 0)?,
                    m.imm_operand(d, 1)?,
                    m.imm_operand(d, 2)?,
                ])
            });
        entry_points.push(EntryPoint {
            name: e.name().to_string(),
            stage: e.stage().into(),
            workgroup_size,
            inputs,
            outputs,
        });
    }

    let mut resources = Vec::new();
    let mut push_constants = Vec::new();
    let mut shader_records = Vec::new();
    for global in m.globals() {
        let g = global.id();
        let used = info.is_used(global);
        match global_space(m, g) {
            Some(AddressSpace::PushConstant) => {
                let rule = rules.push_constant;
                let pointee = pointee_of(m, g)?;
                let row_major = layout::is_row_major(m, g);
                let ty = laid_out(m, pointee, rule, row_major).map_err(|e| layout_err(m, g, e))?;
                let size = layout::type_layout(m, pointee, rule, row_major)
                    .map_err(|e| layout_err(m, g, e))?
                    .size;
                push_constants.push(PushConstant {
                    name: name_of(m, g),
                    ty,
                    size,
                    used,
                    msl: None,
                });
            }
            Some(AddressSpace::ShaderRecord) => {
                let rule = rules.storage_buffer;
                let pointee = pointee_of(m, g)?;
                let row_major = layout::is_row_major(m, g);
                let ty = laid_out(m, pointee, rule, row_major).map_err(|e| layout_err(m, g, e))?;
                let size = layout::type_layout(m, pointee, rule, row_major)
                    .map_err(|e| layout_err(m, g, e))?
                    .size;
                shader_records.push(PushConstant {
                    name: name_of(m, g),
                    ty,
                    size,
                    used,
                    msl: None,
                });
            }
            Some(_) if m.has_decoration(g, Op::Binding) => {
                let mut r = resource(m, g, used, rules, &facts)?;
                r.entry_points = info
                    .entry_points()
                    .iter()
                    .filter(|e| e.access_of(global).is_some())
                    .map(|e| e.name().to_string())
                    .collect();
                resources.push(r);
            }
            _ => {}
        }
    }
    resources.sort_by(|a, b| (a.set, a.binding, &a.name).cmp(&(b.set, b.binding, &b.name)));

    let mut spec_constants: Vec<SpecConstant> = m
        .children(m.root())
        .filter(|&c| m.op(c) == Op::SpecConst)
        .filter_map(|c| spec_constant(m, c))
        .collect();
    spec_constants.sort_by_key(|s| s.id);
    spec_constants.dedup_by_key(|s| s.id);

    Ok(Reflection {
        format: FORMAT_VERSION,
        layout: *rules,
        entry_points,
        resources,
        push_constants,
        shader_records,
        spec_constants,
        requirements: None,
        msl_buffer_sizes: None,
    })
}

fn name_of(m: &Module, id: InstId) -> String {
    m.name(id).unwrap_or("").to_string()
}

fn layout_err(m: &Module, g: InstId, error: LayoutError) -> ReflectError {
    ReflectError::Layout {
        name: name_of(m, g),
        error,
    }
}

fn global_space(m: &Module, g: InstId) -> Option<AddressSpace> {
    m.ty(g).and_then(|t| m.address_space(t))
}

fn pointee_of(m: &Module, g: InstId) -> Result<InstId, ReflectError> {
    m.ty(g)
        .and_then(|t| m.pointee(t))
        .ok_or_else(|| ReflectError::Malformed(name_of(m, g)))
}

/// Facts about globals that need a look at the module: which are accessed as byte-address
/// buffers, which are append/consume counters, and which counters are decremented.
#[derive(Default)]
struct Facts {
    byte_address: FxHashSet<InstId>,
    decremented: FxHashSet<InstId>,
    /// Globals named by another global's `counter` decoration.
    counters: FxHashSet<InstId>,
}

impl Facts {
    fn gather(m: &Module, info: &ModuleInfo) -> Facts {
        let mut facts = Facts::default();
        for g in m.globals() {
            if let Some(c) = m
                .find_decoration(g.id(), Op::Counter)
                .and_then(|d| m.try_operand(d, 0))
            {
                facts.counters.insert(c);
            }
        }
        for f in m.functions() {
            for block in m.children(f.id()) {
                if m.op(block) != Op::Block {
                    continue;
                }
                for inst in m.children(block) {
                    match m.op(inst) {
                        Op::BufferLoad | Op::BufferStore => {
                            let p = m.operand(inst, 0);
                            for g in info.roots(m, p) {
                                facts.byte_address.insert(g.id());
                            }
                        }
                        Op::AtomicRmw => {
                            let value = m.try_operand(inst, 2);
                            let op = m.imm_operand(inst, 0);
                            let minus_one = value
                                .and_then(|v| m.literal_bits(v).zip(m.ty(v)))
                                .is_some_and(|(bits, ty)| {
                                    let w = m.scalar_bits(ty).unwrap_or(64);
                                    bits == oneshader_ir::types::truncate(u64::MAX, w)
                                });
                            let add = op == Some(oneshader_ir::AtomicOp::Add.to_u32());
                            let sub = op == Some(oneshader_ir::AtomicOp::Sub.to_u32());
                            if (add && minus_one) || sub {
                                let p = m.operand(inst, 1);
                                for g in info.roots(m, p) {
                                    facts.decremented.insert(g.id());
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        facts
    }
}

fn stage_variable(m: &Module, g: InstId) -> Result<StageVariable, ReflectError> {
    let pointee = pointee_of(m, g)?;
    let mut v = StageVariable {
        name: name_of(m, g),
        semantic: None,
        semantic_index: None,
        location: None,
        builtin: None,
        ty: plain(m, pointee),
        interpolation: Vec::new(),
        invariant: false,
        per_patch: false,
        per_primitive: false,
        stream: None,
    };
    for d in m.decorations(g) {
        match m.op(d) {
            Op::Location => v.location = m.imm_operand(d, 0),
            Op::BuiltinDeco => {
                v.builtin = m
                    .imm_operand(d, 0)
                    .and_then(BuiltIn::from_u32)
                    .map(|b| b.spelling().to_string());
            }
            Op::Semantic => {
                v.semantic = m
                    .try_operand(d, 0)
                    .and_then(|s| m.literal_str(s))
                    .map(str::to_string);
                v.semantic_index = m.imm_operand(d, 1);
            }
            Op::Flat => v.interpolation.push(Interpolation::Flat),
            Op::NoPerspective => v.interpolation.push(Interpolation::NoPerspective),
            Op::Centroid => v.interpolation.push(Interpolation::Centroid),
            Op::SampleDeco => v.interpolation.push(Interpolation::Sample),
            Op::Invariant => v.invariant = true,
            Op::Patch => v.per_patch = true,
            Op::PerPrimitive => v.per_primitive = true,
            Op::StreamDeco => v.stream = m.imm_operand(d, 0),
            _ => {}
        }
    }
    Ok(v)
}

/// `ty` without layout information (stage variables, texture element types).
fn plain(m: &Module, ty: InstId) -> Type {
    let Some(op) = m.try_op(ty) else {
        return Type::Other { ir: String::new() };
    };
    if let Some(scalar) = Scalar::of(op) {
        return Type::Scalar { scalar };
    }
    let elem_scalar = || m.try_operand(ty, 0).and_then(|e| Scalar::of(m.op(e)));
    match op {
        Op::Vector => {
            if let (Some(scalar), Some(components)) = (elem_scalar(), m.vector_len(ty)) {
                return Type::Vector { scalar, components };
            }
        }
        Op::Matrix => {
            if let (Some(scalar), Some((rows, columns))) = (elem_scalar(), m.matrix_dims(ty)) {
                return Type::Matrix {
                    scalar,
                    rows,
                    columns,
                    matrix_stride: None,
                    row_major: None,
                };
            }
        }
        Op::Array | Op::RuntimeArray => {
            return Type::Array {
                element: Box::new(plain(m, m.operand(ty, 0))),
                length: if op == Op::Array {
                    m.array_len(ty)
                } else {
                    None
                },
                stride: None,
            };
        }
        Op::Struct => {
            return Type::Struct {
                name: name_of(m, ty),
                members: m
                    .struct_fields(ty)
                    .into_iter()
                    .map(|f| Member {
                        name: name_of(m, f),
                        ty: m
                            .ty(f)
                            .map_or(Type::Other { ir: String::new() }, |t| plain(m, t)),
                        offset: None,
                        size: None,
                    })
                    .collect(),
                size: None,
            };
        }
        _ => {}
    }
    Type::Other {
        ir: oneshader_ir::print::print_inst(m, ty),
    }
}

/// `ty` as stored in a buffer under `rule`, matrices outside structs stored row-major when
/// `row_major` (inside structs, each field's own majorness applies).
fn laid_out(
    m: &Module,
    ty: InstId,
    rule: LayoutRule,
    row_major: bool,
) -> Result<Type, LayoutError> {
    let op = m.try_op(ty).ok_or(LayoutError::NotAType)?;
    match op {
        Op::Matrix => {
            let l = layout::type_layout(m, ty, rule, row_major)?;
            let mut t = plain(m, ty);
            if let Type::Matrix {
                matrix_stride,
                row_major: rm,
                ..
            } = &mut t
            {
                *matrix_stride = l.matrix_stride;
                *rm = Some(row_major);
            }
            Ok(t)
        }
        Op::Array | Op::RuntimeArray => {
            let l = layout::type_layout(m, ty, rule, row_major)?;
            Ok(Type::Array {
                element: Box::new(laid_out(m, m.operand(ty, 0), rule, row_major)?),
                length: if op == Op::Array {
                    m.array_len(ty)
                } else {
                    None
                },
                stride: l.array_stride,
            })
        }
        Op::Struct => {
            let sl = layout::struct_layout(m, ty, rule)?;
            let mut members = Vec::with_capacity(sl.fields.len());
            for fl in &sl.fields {
                let fty = m.ty(fl.field).ok_or(LayoutError::NotAType)?;
                members.push(Member {
                    name: name_of(m, fl.field),
                    ty: laid_out(m, fty, rule, fl.row_major)?,
                    offset: Some(fl.offset),
                    size: Some(fl.layout.size),
                });
            }
            Ok(Type::Struct {
                name: name_of(m, ty),
                members,
                size: Some(sl.layout.size),
            })
        }
        _ => {
            // Scalars and vectors have no layout fields; asking still rejects what cannot be
            // stored (textures, pointers).
            layout::type_layout(m, ty, rule, row_major)?;
            Ok(plain(m, ty))
        }
    }
}

/// A descriptor-bound global.
fn resource(
    m: &Module,
    g: InstId,
    used: bool,
    rules: &LayoutRules,
    facts: &Facts,
) -> Result<Resource, ReflectError> {
    let ty = m
        .ty(g)
        .ok_or_else(|| ReflectError::Malformed(name_of(m, g)))?;
    let space = m
        .address_space(ty)
        .ok_or_else(|| ReflectError::Malformed(name_of(m, g)))?;
    let pointee = pointee_of(m, g)?;
    let (set, binding) = m
        .find_decoration(g, Op::Binding)
        .map(|d| {
            (
                m.imm_operand(d, 0).unwrap_or(0),
                m.imm_operand(d, 1).unwrap_or(0),
            )
        })
        .unwrap_or((0, 0));
    let readonly = m.has_decoration(g, Op::ReadOnly);
    let row_major = layout::is_row_major(m, g);
    let mut r = Resource {
        name: name_of(m, g),
        set,
        binding,
        kind: ResourceKind::StorageBuffer,
        descriptor_type: DescriptorType::StorageBuffer,
        array_size: None,
        used,
        readonly,
        ty: None,
        size: None,
        texture: None,
        counter: None,
        msl: None,
        register: oneshader_ir::register::hlsl_register(m, g).map(|r| Register {
            class: r.class.letter().to_string(),
            number: r.number,
            space: r.space,
        }),
        wgsl: None,
        entry_points: Vec::new(),
    };
    // A descriptor array: an array of blocks (buffers) or of opaque resources (nested arrays
    // of opaque resources count every element).
    let mut contents = pointee;
    match space {
        AddressSpace::Uniform | AddressSpace::StorageBuffer => {
            if matches!(m.op(pointee), Op::Array | Op::RuntimeArray) {
                let elem = m.operand(pointee, 0);
                // In a storage buffer, `rtarray<T>` is one structured buffer's contents; only
                // an array of what cannot be an element (a runtime array, or a struct ending
                // in one) is an array of buffers.
                let block = match (space, m.op(elem)) {
                    (AddressSpace::Uniform, Op::Struct) => true,
                    (AddressSpace::StorageBuffer, Op::RuntimeArray) => true,
                    (AddressSpace::StorageBuffer, Op::Struct) => ends_in_runtime_array(m, elem),
                    _ => false,
                };
                if block {
                    r.array_size = Some(m.array_len(pointee).unwrap_or(0));
                    contents = elem;
                }
            }
        }
        _ => {
            let mut count: Option<u32> = None;
            while matches!(m.op(contents), Op::Array | Op::RuntimeArray) {
                let n = m.array_len(contents).unwrap_or(0);
                count = Some(count.map_or(n, |c| c.saturating_mul(n)));
                contents = m.operand(contents, 0);
            }
            r.array_size = count;
        }
    }
    match space {
        AddressSpace::Uniform => {
            r.kind = ResourceKind::ConstantBuffer;
            r.descriptor_type = DescriptorType::UniformBuffer;
            buffer_contents(m, g, &mut r, contents, rules.constant_buffer, row_major)?;
        }
        AddressSpace::StorageBuffer => {
            r.kind = storage_kind(m, g, contents, readonly, facts);
            if let Some(c) = m
                .find_decoration(g, Op::Counter)
                .and_then(|d| m.try_operand(d, 0))
            {
                let (cset, cbinding) = m
                    .find_decoration(c, Op::Binding)
                    .map(|d| {
                        (
                            m.imm_operand(d, 0).unwrap_or(0),
                            m.imm_operand(d, 1).unwrap_or(0),
                        )
                    })
                    .unwrap_or((0, 0));
                r.kind = if facts.decremented.contains(&c) {
                    ResourceKind::ConsumeStructuredBuffer
                } else {
                    ResourceKind::AppendStructuredBuffer
                };
                r.counter = Some(CounterBinding {
                    name: name_of(m, c),
                    set: cset,
                    binding: cbinding,
                });
            }
            let rule = if m.has_decoration(g, Op::TextureBuffer) {
                rules.texture_buffer
            } else {
                rules.storage_buffer
            };
            buffer_contents(m, g, &mut r, contents, rule, row_major)?;
        }
        _ => opaque(m, &mut r, contents),
    }
    Ok(r)
}

/// The kind of a storage buffer holding `contents`.
fn storage_kind(
    m: &Module,
    g: InstId,
    contents: InstId,
    readonly: bool,
    facts: &Facts,
) -> ResourceKind {
    if facts.counters.contains(&g) {
        return ResourceKind::Counter;
    }
    match m.op(contents) {
        Op::RuntimeArray => {
            let elem = m.operand(contents, 0);
            if m.op(elem) == Op::U32 && facts.byte_address.contains(&g) {
                if readonly {
                    ResourceKind::ByteAddressBuffer
                } else {
                    ResourceKind::RwByteAddressBuffer
                }
            } else if readonly {
                ResourceKind::StructuredBuffer
            } else {
                ResourceKind::RwStructuredBuffer
            }
        }
        Op::Struct if readonly => ResourceKind::Tbuffer,
        _ => ResourceKind::StorageBuffer,
    }
}

fn buffer_contents(
    m: &Module,
    g: InstId,
    r: &mut Resource,
    contents: InstId,
    rule: LayoutRule,
    row_major: bool,
) -> Result<(), ReflectError> {
    let l = layout::type_layout(m, contents, rule, row_major).map_err(|e| layout_err(m, g, e))?;
    r.ty = Some(laid_out(m, contents, rule, row_major).map_err(|e| layout_err(m, g, e))?);
    r.size = Some(l.size);
    Ok(())
}

fn ends_in_runtime_array(m: &Module, st: InstId) -> bool {
    m.struct_fields(st)
        .last()
        .and_then(|&f| m.ty(f))
        .is_some_and(|t| m.op(t) == Op::RuntimeArray)
}

/// Textures, texel buffers and samplers.
fn opaque(m: &Module, r: &mut Resource, contents: InstId) {
    match m.op(contents) {
        Op::Sampler => {
            r.kind = ResourceKind::Sampler;
            r.descriptor_type = DescriptorType::Sampler;
        }
        Op::SamplerCmp => {
            r.kind = ResourceKind::ComparisonSampler;
            r.descriptor_type = DescriptorType::Sampler;
        }
        Op::AccelStruct => {
            r.kind = ResourceKind::AccelerationStructure;
            r.descriptor_type = DescriptorType::AccelerationStructure;
        }
        Op::Texture => {
            let Some(d) = m.texture_desc(contents) else {
                return;
            };
            let storage = d.access == TextureAccess::Storage;
            (r.kind, r.descriptor_type) = match (d.dim, storage) {
                (oneshader_ir::Dim::Buffer, false) => (
                    ResourceKind::TexelBuffer,
                    DescriptorType::UniformTexelBuffer,
                ),
                (oneshader_ir::Dim::Buffer, true) => (
                    ResourceKind::StorageTexelBuffer,
                    DescriptorType::StorageTexelBuffer,
                ),
                (oneshader_ir::Dim::SubpassData, _) => {
                    (ResourceKind::SubpassInput, DescriptorType::InputAttachment)
                }
                (_, false) => (ResourceKind::Texture, DescriptorType::SampledImage),
                (_, true) => (ResourceKind::StorageTexture, DescriptorType::StorageImage),
            };
            let format = (d.format != oneshader_ir::ImageFormat::Unknown)
                .then(|| d.format.spelling().to_string());
            r.texture = Some(TextureInfo {
                dim: d.dim.spelling().to_string(),
                arrayed: d.arrayed,
                multisampled: d.multisampled,
                depth: d.depth == 1,
                sampled_type: plain(m, d.sampled_type),
                format,
            });
        }
        _ => {
            r.kind = ResourceKind::StorageBuffer;
        }
    }
}

fn spec_constant(m: &Module, sc: InstId) -> Option<SpecConstant> {
    let id = m.imm_operand(sc, 0)?;
    let default = m.try_operand(sc, 1)?;
    let ty = m.ty(sc)?;
    let scalar = Scalar::of(m.try_op(ty)?)?;
    let bits = m.literal_bits(default)?;
    let value = match scalar {
        Scalar::Bool => ConstValue::Bool(bits != 0),
        Scalar::F16 => ConstValue::Float(f16_to_f64(bits as u16)),
        Scalar::F32 => ConstValue::Float(f32::from_bits(bits as u32) as f64),
        Scalar::F64 => ConstValue::Float(f64::from_bits(bits)),
        Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64 => {
            ConstValue::Int(m.const_int_value(default)? as i64)
        }
        _ => ConstValue::UInt(bits),
    };
    Some(SpecConstant {
        id,
        name: m.name(sc).map(str::to_string),
        ty: scalar,
        default: value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_widen_exactly() {
        assert_eq!(f16_to_f64(0x3c00), 1.0);
        assert_eq!(f16_to_f64(0xc000), -2.0);
        assert_eq!(f16_to_f64(0x3555), 0.333_251_953_125);
        assert_eq!(f16_to_f64(0x0001), 2f64.powi(-24));
        assert_eq!(f16_to_f64(0x7c00), f64::INFINITY);
        assert!(f16_to_f64(0x7e00).is_nan());
    }

    #[test]
    fn layout_rules_round_trip_through_json() {
        let rules = LayoutRules {
            constant_buffer: LayoutRule::DxCbuffer,
            storage_buffer: LayoutRule::Scalar,
            push_constant: LayoutRule::Std430,
            texture_buffer: LayoutRule::DxCbuffer,
        };
        let text = serde_json::to_string(&rules).expect("serializes");
        assert_eq!(
            text,
            r#"{"constant_buffer":"d3d_cbuffer","storage_buffer":"scalar","push_constant":"std430","texture_buffer":"d3d_cbuffer"}"#
        );
        let back: LayoutRules = serde_json::from_str(&text).expect("parses");
        assert_eq!(back, rules);
        assert!(
            serde_json::from_str::<LayoutRules>(
                r#"{"constant_buffer":"x","storage_buffer":"scalar","push_constant":"std430"}"#
            )
            .is_err()
        );
    }

    #[test]
    fn reflects_an_ir_module() {
        let m = oneshader_ir::parse::parse(
            "struct @P {\n  a: f32\n  b: vec<f32, 3>\n  m: mat<f32, 2, 3> [row_major]\n}\n\
             global @pc : ptr<push_constant, @P>\n\
             global @buf : ptr<storage_buffer, rtarray<u32>> [binding(1, 2)]\n\
             global @tex : ptr<uniform_constant, array<texture<2d, vec<f32, 4>>, 4>> [binding(0, 3)]\n\
             global @gid : ptr<input, vec<u32, 3>> [builtin(global_invocation_id)]\n\
             func @main() -> void [entry_point(compute, \"main\"), numthreads(8, 2, 1)] {\n\
             bb0:\n\
               %0 = load @gid : vec<u32, 3>\n\
               %1 = extract %0, 0 : u32\n\
               %2 = buffer_load @buf, %1 : u32\n\
               %3 = field_addr @pc, 0 : ptr<push_constant, f32>\n\
               %4 = load %3 : f32\n\
               return\n\
             }\n",
        )
        .expect("test module parses");
        let r = reflect(&m, &LayoutRules::default()).expect("reflects");
        assert_eq!(r.entry_points.len(), 1);
        let e = &r.entry_points[0];
        assert_eq!((e.name.as_str(), e.stage), ("main", ShaderStage::Compute));
        assert_eq!(e.workgroup_size, Some([8, 2, 1]));
        assert_eq!(e.inputs.len(), 1);
        assert_eq!(e.inputs[0].builtin.as_deref(), Some("global_invocation_id"));
        let buf = r.resource("buf").expect("buf");
        assert_eq!((buf.set, buf.binding), (1, 2));
        assert_eq!(buf.kind, ResourceKind::RwByteAddressBuffer);
        assert!(buf.used);
        let tex = r.resource("tex").expect("tex");
        assert_eq!(tex.array_size, Some(4));
        assert_eq!(tex.descriptor_type, DescriptorType::SampledImage);
        assert!(!tex.used);
        let pc = &r.push_constants[0];
        // Relaxed std430: a at 0, b at 4, the row-major 2x3 matrix (two rows of three
        // floats, stride 16) at 16; size 48.
        let Type::Struct { members, size, .. } = &pc.ty else {
            panic!("a struct: {:?}", pc.ty)
        };
        let offsets: Vec<_> = members.iter().map(|m| m.offset).collect();
        assert_eq!(offsets, vec![Some(0), Some(4), Some(16)]);
        assert_eq!(*size, Some(48));
        assert_eq!(pc.size, 48);
        let Type::Matrix {
            matrix_stride,
            row_major,
            ..
        } = &members[2].ty
        else {
            panic!("a matrix")
        };
        assert_eq!((*matrix_stride, *row_major), (Some(16), Some(true)));
        // The JSON form reads back to the same value.
        assert_eq!(Reflection::from_json(&r.to_json()).expect("parses"), r);
    }
}
