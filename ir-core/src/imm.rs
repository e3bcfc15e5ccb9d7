//! Immediate enumerations: the small closed sets that instructions name through interned `u32`
//! constants (address spaces, stages, builtins, texture dimensions, image formats, atomic
//! operations, barrier flags, intrinsics).
//!
//! Each enum value has a stable number (stored in the constant, hence in `.osir` files: never
//! renumber) and a text spelling (used by the printer and the parser). [`ImmKind`] names the
//! enum an operand slot holds, so the printer and parser know how to spell it.

use std::fmt;

macro_rules! imm_enum {
    (
        $(#[$meta:meta])*
        $name:ident { $( $(#[$vmeta:meta])* $variant:ident = $value:literal, $spelling:literal; )* }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u32)]
        pub enum $name {
            $( $(#[$vmeta])* $variant = $value, )*
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// The stable number stored in the immediate constant.
            pub const fn to_u32(self) -> u32 {
                self as u32
            }

            /// The value with this stable number, if any.
            pub fn from_u32(v: u32) -> Option<$name> {
                match v {
                    $( $value => Some($name::$variant), )*
                    _ => None,
                }
            }

            /// The text spelling.
            pub const fn spelling(self) -> &'static str {
                match self {
                    $( $name::$variant => $spelling, )*
                }
            }

            /// The value spelled `s`, if any.
            pub fn from_spelling(s: &str) -> Option<$name> {
                match s {
                    $( $spelling => Some($name::$variant), )*
                    _ => None,
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.spelling())
            }
        }
    };
}

imm_enum! {
    /// Where a pointer points: the SPIR-V storage classes a logical shader uses.
    AddressSpace {
        /// Function-local storage (`var`).
        Function = 0, "function";
        /// Module-private storage (HLSL `static` globals).
        Private = 1, "private";
        /// Workgroup-shared storage (HLSL `groupshared`).
        Workgroup = 2, "workgroup";
        /// Constant buffers.
        Uniform = 3, "uniform";
        /// Opaque resources: textures, samplers, typed buffers.
        UniformConstant = 4, "uniform_constant";
        /// Structured, byte-address and append/consume buffers.
        StorageBuffer = 5, "storage_buffer";
        /// Stage inputs.
        Input = 6, "input";
        /// Stage outputs.
        Output = 7, "output";
        /// Push constants.
        PushConstant = 8, "push_constant";
        /// Texel pointers of storage images (only from `texel_addr`, for atomics).
        Image = 9, "image";
        /// The payload an amplification shader hands to the mesh shaders it launches
        /// (`groupshared` data passed to `DispatchMesh`; a mesh shader's `in payload`).
        TaskPayload = 10, "task_payload";
        /// A ray payload a ray-generation, closest-hit or miss shader passes to `trace_ray`.
        RayPayload = 11, "ray_payload";
        /// The payload of the ray that invoked a closest-hit, any-hit or miss shader.
        IncomingRayPayload = 12, "incoming_ray_payload";
        /// The attributes of a hit (written by an intersection shader before `report_hit`,
        /// read by any-hit and closest-hit shaders).
        HitAttribute = 13, "hit_attribute";
        /// Data a shader passes to `execute_callable`.
        CallableData = 14, "callable_data";
        /// The data a callable shader was called with.
        IncomingCallableData = 15, "incoming_callable_data";
        /// The shader-binding-table record of a ray-tracing shader (`[[vk::shader_record_ext]]`).
        ShaderRecord = 16, "shader_record";
    }
}

imm_enum! {
    /// Shader stages.
    Stage {
        /// Vertex shader.
        Vertex = 0, "vertex";
        /// Fragment (pixel) shader.
        Fragment = 1, "fragment";
        /// Compute shader.
        Compute = 2, "compute";
        /// Geometry shader.
        Geometry = 3, "geometry";
        /// Hull (tessellation control) shader.
        Hull = 4, "hull";
        /// Domain (tessellation evaluation) shader.
        Domain = 5, "domain";
        /// Mesh shader.
        Mesh = 6, "mesh";
        /// Amplification (task) shader.
        Amplification = 7, "amplification";
        /// Ray-generation shader.
        RayGeneration = 8, "raygeneration";
        /// Intersection shader.
        Intersection = 9, "intersection";
        /// Any-hit shader.
        AnyHit = 10, "anyhit";
        /// Closest-hit shader.
        ClosestHit = 11, "closesthit";
        /// Miss shader.
        Miss = 12, "miss";
        /// Callable shader.
        Callable = 13, "callable";
    }
}

imm_enum! {
    /// Built-in stage variables (SPIR-V `BuiltIn`), named after the HLSL system values they carry.
    BuiltIn {
        /// `SV_Position` (vertex output / fragment input `FragCoord`).
        Position = 0, "position";
        /// `SV_VertexID`.
        VertexIndex = 1, "vertex_index";
        /// `SV_InstanceID`.
        InstanceIndex = 2, "instance_index";
        /// `SV_IsFrontFace`.
        FrontFacing = 3, "front_facing";
        /// `SV_Depth`.
        FragDepth = 4, "frag_depth";
        /// `SV_SampleIndex`.
        SampleIndex = 5, "sample_index";
        /// `SV_Coverage` (input or output mask).
        SampleMask = 6, "sample_mask";
        /// `SV_DispatchThreadID`.
        GlobalInvocationId = 7, "global_invocation_id";
        /// `SV_GroupThreadID`.
        LocalInvocationId = 8, "local_invocation_id";
        /// `SV_GroupID`.
        WorkgroupId = 9, "workgroup_id";
        /// `SV_GroupIndex`.
        LocalInvocationIndex = 10, "local_invocation_index";
        /// `SV_ClipDistance`.
        ClipDistance = 11, "clip_distance";
        /// `SV_CullDistance`.
        CullDistance = 12, "cull_distance";
        /// `SV_PrimitiveID`.
        PrimitiveId = 13, "primitive_id";
        /// `SV_RenderTargetArrayIndex`.
        Layer = 14, "layer";
        /// `SV_ViewportArrayIndex`.
        ViewportIndex = 15, "viewport_index";
        /// `SV_StartVertexLocation` / DrawParameters base vertex.
        BaseVertex = 16, "base_vertex";
        /// Base instance.
        BaseInstance = 17, "base_instance";
        /// `SV_ViewID`.
        ViewIndex = 18, "view_index";
        /// Number of workgroups (no HLSL semantic; used by lowering of some intrinsics).
        NumWorkgroups = 19, "num_workgroups";
        /// `SV_Barycentrics`.
        Barycentric = 20, "barycentric";
        /// `SV_ShadingRate`.
        ShadingRate = 21, "shading_rate";
        /// `SV_StencilRef`.
        FragStencilRef = 22, "frag_stencil_ref";
        /// `SV_InnerCoverage` (fully covered).
        FullyCovered = 23, "fully_covered";
        /// `PSIZE` / `[[vk::builtin("PointSize")]]`.
        PointSize = 24, "point_size";
        /// `SV_DrawIndex` / `[[vk::builtin("DrawIndex")]]`.
        DrawIndex = 25, "draw_index";
        /// Helper-invocation flag.
        HelperInvocation = 26, "helper_invocation";
        /// The device's index in a device group (`[[vk::builtin("DeviceIndex")]]`).
        DeviceIndex = 27, "device_index";
        /// `SV_GSInstanceID` (geometry), `SV_OutputControlPointID` (hull): `u32`.
        InvocationId = 28, "invocation_id";
        /// `SV_TessFactor`: the outer tessellation levels, `array<f32, 4>`, per patch.
        TessLevelOuter = 29, "tess_level_outer";
        /// `SV_InsideTessFactor`: the inner tessellation levels, `array<f32, 2>`, per patch.
        TessLevelInner = 30, "tess_level_inner";
        /// `SV_DomainLocation`: `vec<f32, 3>`.
        TessCoord = 31, "tess_coord";
        /// The number of vertices of the input patch (`u32`).
        PatchVertices = 32, "patch_vertices";
        /// A mesh shader's point indices: `array<u32, n>`.
        PrimitivePointIndices = 33, "primitive_point_indices";
        /// A mesh shader's line indices: `array<vec<u32, 2>, n>`.
        PrimitiveLineIndices = 34, "primitive_line_indices";
        /// A mesh shader's triangle indices: `array<vec<u32, 3>, n>`.
        PrimitiveTriangleIndices = 35, "primitive_triangle_indices";
        /// `SV_CullPrimitive`: a per-primitive `bool` of a mesh shader.
        CullPrimitive = 36, "cull_primitive";
        /// `DispatchRaysIndex()`: `vec<u32, 3>`.
        LaunchId = 37, "launch_id";
        /// `DispatchRaysDimensions()`: `vec<u32, 3>`.
        LaunchSize = 38, "launch_size";
        /// `WorldRayOrigin()`: `vec<f32, 3>`.
        WorldRayOrigin = 39, "world_ray_origin";
        /// `WorldRayDirection()`: `vec<f32, 3>`.
        WorldRayDirection = 40, "world_ray_direction";
        /// `ObjectRayOrigin()`: `vec<f32, 3>`.
        ObjectRayOrigin = 41, "object_ray_origin";
        /// `ObjectRayDirection()`: `vec<f32, 3>`.
        ObjectRayDirection = 42, "object_ray_direction";
        /// `RayTMin()`: `f32`.
        RayTmin = 43, "ray_tmin";
        /// `RayTCurrent()`: `f32`.
        RayTmax = 44, "ray_tmax";
        /// `InstanceID()`: the instance's custom index, `u32`.
        InstanceCustomIndex = 45, "instance_custom_index";
        /// `InstanceIndex()`: `u32`.
        InstanceId = 46, "instance_id";
        /// `GeometryIndex()`: `u32`.
        GeometryIndex = 47, "geometry_index";
        /// `HitKind()`: `u32`.
        HitKind = 48, "hit_kind";
        /// `RayFlags()`: `u32`.
        IncomingRayFlags = 49, "incoming_ray_flags";
        /// `ObjectToWorld4x3()`: `mat<f32, 4, 3>`.
        ObjectToWorld = 50, "object_to_world";
        /// `WorldToObject4x3()`: `mat<f32, 4, 3>`.
        WorldToObject = 51, "world_to_object";
        /// `SV_ShadingRate` written by a vertex, geometry or mesh shader: the shading rate of
        /// the primitive (`u32`).
        PrimitiveShadingRate = 52, "primitive_shading_rate";
    }
}

imm_enum! {
    /// Primitive types: a geometry shader's input primitive (`point` .. `triangle_adj`),
    /// the primitives a geometry shader emits (`point`, `line_strip`, `triangle_strip`), a
    /// mesh shader emits (`point`, `line`, `triangle`) and the tessellator makes from a hull
    /// shader's patch (`point`, `line`, `triangle_cw`, `triangle_ccw`).
    Primitive {
        /// Points.
        Point = 0, "point";
        /// Lines (geometry input, mesh output, isoline tessellation).
        Line = 1, "line";
        /// Triangles (geometry input, mesh output).
        Triangle = 2, "triangle";
        /// Lines with adjacency (geometry input).
        LineAdj = 3, "line_adj";
        /// Triangles with adjacency (geometry input).
        TriangleAdj = 4, "triangle_adj";
        /// Line strips (geometry output).
        LineStrip = 5, "line_strip";
        /// Triangle strips (geometry output).
        TriangleStrip = 6, "triangle_strip";
        /// Clockwise triangles (tessellator output).
        TriangleCw = 7, "triangle_cw";
        /// Counter-clockwise triangles (tessellator output).
        TriangleCcw = 8, "triangle_ccw";
    }
}

impl Primitive {
    /// The number of vertices of one input primitive of a geometry shader (`None` for the
    /// output-only kinds).
    pub fn input_vertices(self) -> Option<u32> {
        Some(match self {
            Primitive::Point => 1,
            Primitive::Line => 2,
            Primitive::Triangle => 3,
            Primitive::LineAdj => 4,
            Primitive::TriangleAdj => 6,
            _ => return None,
        })
    }
}

imm_enum! {
    /// The domain a hull shader's patches are tessellated in (`[domain("...")]`).
    TessDomain {
        /// Triangles (`tri`).
        Triangle = 0, "triangle";
        /// Quads (`quad`).
        Quad = 1, "quad";
        /// Isolines (`isoline`).
        Isoline = 2, "isoline";
    }
}

imm_enum! {
    /// How tessellation levels divide edges (`[partitioning("...")]`).
    Partitioning {
        /// `integer`: equal spacing.
        Integer = 0, "integer";
        /// `fractional_even`.
        FractionalEven = 1, "fractional_even";
        /// `fractional_odd`.
        FractionalOdd = 2, "fractional_odd";
        /// `pow2`: D3D rounds levels to a power of two; Vulkan has no such mode (refused by
        /// the backends).
        Pow2 = 3, "pow2";
    }
}

imm_enum! {
    /// What `ray_query_get` reads from a ray query: the ray's own values, then the candidate
    /// intersection's (`candidate_*`, during `ray_query_proceed`) and the committed one's
    /// (`committed_*`).
    RayQueryValue {
        /// `RayFlags()`: `u32`.
        RayFlags = 0, "ray_flags";
        /// `RayTMin()`: `f32`.
        RayTmin = 1, "ray_tmin";
        /// `WorldRayOrigin()`: `vec<f32, 3>`.
        WorldRayOrigin = 2, "world_ray_origin";
        /// `WorldRayDirection()`: `vec<f32, 3>`.
        WorldRayDirection = 3, "world_ray_direction";
        /// `CandidateType()`: `u32` (0 triangle, 1 procedural).
        CandidateType = 4, "candidate_type";
        /// `CandidateTriangleRayT()`: `f32`.
        CandidateT = 5, "candidate_t";
        /// `CandidateInstanceIndex()`: `u32`.
        CandidateInstanceIndex = 6, "candidate_instance_index";
        /// `CandidateInstanceID()`: `u32`.
        CandidateInstanceId = 7, "candidate_instance_id";
        /// `CandidateInstanceContributionToHitGroupIndex()`: `u32`.
        CandidateSbtOffset = 8, "candidate_sbt_offset";
        /// `CandidateGeometryIndex()`: `u32`.
        CandidateGeometryIndex = 9, "candidate_geometry_index";
        /// `CandidatePrimitiveIndex()`: `u32`.
        CandidatePrimitiveIndex = 10, "candidate_primitive_index";
        /// `CandidateTriangleBarycentrics()`: `vec<f32, 2>`.
        CandidateBarycentrics = 11, "candidate_barycentrics";
        /// `CandidateTriangleFrontFace()`: `bool`.
        CandidateFrontFace = 12, "candidate_front_face";
        /// `CandidateProceduralPrimitiveNonOpaque()`: `bool`.
        CandidateAabbOpaque = 13, "candidate_aabb_opaque";
        /// `CandidateObjectRayDirection()`: `vec<f32, 3>`.
        CandidateObjectRayDirection = 14, "candidate_object_ray_direction";
        /// `CandidateObjectRayOrigin()`: `vec<f32, 3>`.
        CandidateObjectRayOrigin = 15, "candidate_object_ray_origin";
        /// `CandidateObjectToWorld4x3()`: `mat<f32, 4, 3>`.
        CandidateObjectToWorld = 16, "candidate_object_to_world";
        /// `CandidateWorldToObject4x3()`: `mat<f32, 4, 3>`.
        CandidateWorldToObject = 17, "candidate_world_to_object";
        /// `CommittedStatus()`: `u32` (0 nothing, 1 triangle, 2 procedural).
        CommittedStatus = 18, "committed_status";
        /// `CommittedRayT()`: `f32`.
        CommittedT = 19, "committed_t";
        /// `CommittedInstanceIndex()`: `u32`.
        CommittedInstanceIndex = 20, "committed_instance_index";
        /// `CommittedInstanceID()`: `u32`.
        CommittedInstanceId = 21, "committed_instance_id";
        /// `CommittedInstanceContributionToHitGroupIndex()`: `u32`.
        CommittedSbtOffset = 22, "committed_sbt_offset";
        /// `CommittedGeometryIndex()`: `u32`.
        CommittedGeometryIndex = 23, "committed_geometry_index";
        /// `CommittedPrimitiveIndex()`: `u32`.
        CommittedPrimitiveIndex = 24, "committed_primitive_index";
        /// `CommittedTriangleBarycentrics()`: `vec<f32, 2>`.
        CommittedBarycentrics = 25, "committed_barycentrics";
        /// `CommittedTriangleFrontFace()`: `bool`.
        CommittedFrontFace = 26, "committed_front_face";
        /// `CommittedObjectRayDirection()`: `vec<f32, 3>`.
        CommittedObjectRayDirection = 27, "committed_object_ray_direction";
        /// `CommittedObjectRayOrigin()`: `vec<f32, 3>`.
        CommittedObjectRayOrigin = 28, "committed_object_ray_origin";
        /// `CommittedObjectToWorld4x3()`: `mat<f32, 4, 3>`.
        CommittedObjectToWorld = 29, "committed_object_to_world";
        /// `CommittedWorldToObject4x3()`: `mat<f32, 4, 3>`.
        CommittedWorldToObject = 30, "committed_world_to_object";
    }
}

/// The shape of a value `ray_query_get` or a ray-tracing built-in yields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueShape {
    /// `bool`.
    Bool,
    /// `u32`.
    U32,
    /// `f32`.
    F32,
    /// `vec<f32, 2>`.
    F32x2,
    /// `vec<f32, 3>`.
    F32x3,
    /// `vec<u32, 3>`.
    U32x3,
    /// `mat<f32, 4, 3>` (HLSL `float4x3`).
    Mat4x3,
}

impl RayQueryValue {
    /// The shape of the value.
    pub fn shape(self) -> ValueShape {
        use RayQueryValue::*;
        match self {
            RayTmin | CandidateT | CommittedT => ValueShape::F32,
            WorldRayOrigin
            | WorldRayDirection
            | CandidateObjectRayDirection
            | CandidateObjectRayOrigin
            | CommittedObjectRayDirection
            | CommittedObjectRayOrigin => ValueShape::F32x3,
            CandidateBarycentrics | CommittedBarycentrics => ValueShape::F32x2,
            CandidateFrontFace | CandidateAabbOpaque | CommittedFrontFace => ValueShape::Bool,
            CandidateObjectToWorld
            | CandidateWorldToObject
            | CommittedObjectToWorld
            | CommittedWorldToObject => ValueShape::Mat4x3,
            _ => ValueShape::U32,
        }
    }

    /// True for the values of the committed intersection.
    pub fn is_committed(self) -> bool {
        self.to_u32() >= RayQueryValue::CommittedStatus.to_u32()
    }
}

imm_enum! {
    /// Texture dimensionality (array-ness and multisampling are separate flags of the type).
    Dim {
        /// 1D texture.
        D1 = 0, "1d";
        /// 2D texture.
        D2 = 1, "2d";
        /// 3D texture.
        D3 = 2, "3d";
        /// Cube texture.
        Cube = 3, "cube";
        /// Typed buffer (`Buffer<T>`, `RWBuffer<T>`).
        Buffer = 4, "buffer";
        /// Subpass input.
        SubpassData = 5, "subpass";
    }
}

imm_enum! {
    /// How a texture type is accessed.
    TextureAccess {
        /// Sampled or fetched (`Texture2D`, `Buffer`).
        Sampled = 0, "sampled";
        /// Read and written without a sampler (`RWTexture2D`, `RWBuffer`): a storage image.
        Storage = 1, "storage";
    }
}

imm_enum! {
    /// Image formats of storage textures (`[[vk::image_format("...")]]`); `unknown` otherwise.
    ImageFormat {
        /// No format given.
        Unknown = 0, "unknown";
        /// `rgba32f`.
        Rgba32f = 1, "rgba32f";
        /// `rgba16f`.
        Rgba16f = 2, "rgba16f";
        /// `r32f`.
        R32f = 3, "r32f";
        /// `rgba8`.
        Rgba8 = 4, "rgba8";
        /// `rgba8snorm`.
        Rgba8Snorm = 5, "rgba8snorm";
        /// `rg32f`.
        Rg32f = 6, "rg32f";
        /// `rg16f`.
        Rg16f = 7, "rg16f";
        /// `r11g11b10f`.
        R11fG11fB10f = 8, "r11g11b10f";
        /// `r16f`.
        R16f = 9, "r16f";
        /// `rgba16`.
        Rgba16 = 10, "rgba16";
        /// `rgb10a2`.
        Rgb10A2 = 11, "rgb10a2";
        /// `rg16`.
        Rg16 = 12, "rg16";
        /// `rg8`.
        Rg8 = 13, "rg8";
        /// `r16`.
        R16 = 14, "r16";
        /// `r8`.
        R8 = 15, "r8";
        /// `rgba16snorm`.
        Rgba16Snorm = 16, "rgba16snorm";
        /// `rg16snorm`.
        Rg16Snorm = 17, "rg16snorm";
        /// `rg8snorm`.
        Rg8Snorm = 18, "rg8snorm";
        /// `r16snorm`.
        R16Snorm = 19, "r16snorm";
        /// `r8snorm`.
        R8Snorm = 20, "r8snorm";
        /// `rgba32i`.
        Rgba32i = 21, "rgba32i";
        /// `rgba16i`.
        Rgba16i = 22, "rgba16i";
        /// `rgba8i`.
        Rgba8i = 23, "rgba8i";
        /// `r32i`.
        R32i = 24, "r32i";
        /// `rg32i`.
        Rg32i = 25, "rg32i";
        /// `rg16i`.
        Rg16i = 26, "rg16i";
        /// `rg8i`.
        Rg8i = 27, "rg8i";
        /// `r16i`.
        R16i = 28, "r16i";
        /// `r8i`.
        R8i = 29, "r8i";
        /// `rgba32ui`.
        Rgba32ui = 30, "rgba32ui";
        /// `rgba16ui`.
        Rgba16ui = 31, "rgba16ui";
        /// `rgba8ui`.
        Rgba8ui = 32, "rgba8ui";
        /// `r32ui`.
        R32ui = 33, "r32ui";
        /// `rgb10a2ui`.
        Rgb10a2ui = 34, "rgb10a2ui";
        /// `rg32ui`.
        Rg32ui = 35, "rg32ui";
        /// `rg16ui`.
        Rg16ui = 36, "rg16ui";
        /// `rg8ui`.
        Rg8ui = 37, "rg8ui";
        /// `r16ui`.
        R16ui = 38, "r16ui";
        /// `r8ui`.
        R8ui = 39, "r8ui";
        /// `r64ui`.
        R64ui = 40, "r64ui";
        /// `r64i`.
        R64i = 41, "r64i";
    }
}

imm_enum! {
    /// The operation of an `atomic_rmw`.
    AtomicOp {
        /// Add and return the original value.
        Add = 0, "add";
        /// Subtract.
        Sub = 1, "sub";
        /// Minimum (signedness from the value type).
        Min = 2, "min";
        /// Maximum (signedness from the value type).
        Max = 3, "max";
        /// Bitwise and.
        And = 4, "and";
        /// Bitwise or.
        Or = 5, "or";
        /// Bitwise xor.
        Xor = 6, "xor";
        /// Exchange.
        Exchange = 7, "exchange";
        /// Atomic read (no modification).
        Load = 8, "load";
        /// Atomic write (the result is the original value).
        Store = 9, "store";
    }
}

/// The flags of a `barrier`: which memory is made visible, and whether the workgroup waits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct BarrierFlags(pub u32);

/// `BarrierFlags(sync|workgroup)`: the flags by name; unknown bits are shown in hex.
impl std::fmt::Debug for BarrierFlags {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let unknown = self.0 & !7;
        if unknown == 0 {
            write!(f, "BarrierFlags({})", self.spelling())
        } else {
            write!(f, "BarrierFlags({}|{unknown:#x})", self.spelling())
        }
    }
}

impl BarrierFlags {
    /// Every invocation of the workgroup waits (`...WithGroupSync`).
    pub const GROUP_SYNC: BarrierFlags = BarrierFlags(1);
    /// Workgroup (groupshared) memory is made visible.
    pub const WORKGROUP_MEMORY: BarrierFlags = BarrierFlags(2);
    /// Device memory (buffers and images) is made visible.
    pub const DEVICE_MEMORY: BarrierFlags = BarrierFlags(4);
    const NAMES: [(u32, &'static str); 3] = [(1, "sync"), (2, "workgroup"), (4, "device")];

    /// True when every flag of `other` is set.
    pub fn contains(self, other: BarrierFlags) -> bool {
        self.0 & other.0 == other.0
    }

    /// Union of two flag sets.
    pub fn union(self, other: BarrierFlags) -> BarrierFlags {
        BarrierFlags(self.0 | other.0)
    }

    /// True when only known bits are set.
    pub fn is_valid(self) -> bool {
        self.0 & !7 == 0
    }

    /// Text spelling: `sync|workgroup`, or `none`.
    pub fn spelling(self) -> String {
        let parts: Vec<&str> = Self::NAMES
            .iter()
            .filter(|(bit, _)| self.0 & bit != 0)
            .map(|(_, n)| *n)
            .collect();
        if parts.is_empty() {
            "none".to_string()
        } else {
            parts.join("|")
        }
    }

    /// Parses the spelling produced by [`BarrierFlags::spelling`].
    pub fn from_spelling(s: &str) -> Option<BarrierFlags> {
        if s == "none" {
            return Some(BarrierFlags(0));
        }
        let mut bits = 0;
        for part in s.split('|') {
            bits |= Self::NAMES.iter().find(|(_, n)| *n == part)?.0;
        }
        Some(BarrierFlags(bits))
    }
}

imm_enum! {
    /// Intrinsic functions of `call_intrinsic`. Operands follow the HLSL intrinsic's parameter
    /// order; intrinsics with `out` parameters (`modf`, `frexp`, `sincos`) take pointers.
    Intrinsic {
        /// `abs(x)`.
        Abs = 0, "abs";
        /// `sign(x)` (integer result like HLSL).
        Sign = 1, "sign";
        /// `floor(x)`.
        Floor = 2, "floor";
        /// `ceil(x)`.
        Ceil = 3, "ceil";
        /// `round(x)` (to nearest even).
        Round = 4, "round";
        /// `trunc(x)`.
        Trunc = 5, "trunc";
        /// `frac(x)` = x - floor(x).
        Frac = 6, "frac";
        /// `sqrt(x)`.
        Sqrt = 7, "sqrt";
        /// `rsqrt(x)`.
        Rsqrt = 8, "rsqrt";
        /// `exp(x)`.
        Exp = 9, "exp";
        /// `exp2(x)`.
        Exp2 = 10, "exp2";
        /// `log(x)`.
        Log = 11, "log";
        /// `log2(x)`.
        Log2 = 12, "log2";
        /// `pow(x, y)`.
        Pow = 13, "pow";
        /// `sin(x)`.
        Sin = 14, "sin";
        /// `cos(x)`.
        Cos = 15, "cos";
        /// `tan(x)`.
        Tan = 16, "tan";
        /// `asin(x)`.
        Asin = 17, "asin";
        /// `acos(x)`.
        Acos = 18, "acos";
        /// `atan(x)`.
        Atan = 19, "atan";
        /// `atan2(y, x)`.
        Atan2 = 20, "atan2";
        /// `sinh(x)`.
        Sinh = 21, "sinh";
        /// `cosh(x)`.
        Cosh = 22, "cosh";
        /// `tanh(x)`.
        Tanh = 23, "tanh";
        /// `min(a, b)`.
        Min = 24, "min";
        /// `max(a, b)`.
        Max = 25, "max";
        /// `clamp(x, lo, hi)`.
        Clamp = 26, "clamp";
        /// `lerp(a, b, t)`.
        Lerp = 27, "lerp";
        /// `step(edge, x)`.
        Step = 28, "step";
        /// `smoothstep(lo, hi, x)`.
        Smoothstep = 29, "smoothstep";
        /// `fma(a, b, c)` (fused).
        Fma = 30, "fma";
        /// `mad(a, b, c)` (may fuse).
        Mad = 31, "mad";
        /// `dot(a, b)`.
        Dot = 32, "dot";
        /// `cross(a, b)`.
        Cross = 33, "cross";
        /// `length(v)`.
        Length = 34, "length";
        /// `distance(a, b)`.
        Distance = 35, "distance";
        /// `normalize(v)`.
        Normalize = 36, "normalize";
        /// `reflect(i, n)`.
        Reflect = 37, "reflect";
        /// `refract(i, n, eta)`.
        Refract = 38, "refract";
        /// `faceforward(n, i, ng)`.
        Faceforward = 39, "faceforward";
        /// `determinant(m)`.
        Determinant = 40, "determinant";
        /// `transpose(m)`.
        Transpose = 41, "transpose";
        /// `isnan(x)`.
        IsNan = 42, "isnan";
        /// `isinf(x)`.
        IsInf = 43, "isinf";
        /// `isfinite(x)`.
        IsFinite = 44, "isfinite";
        /// `all(x)`.
        All = 45, "all";
        /// `any(x)`.
        Any = 46, "any";
        /// `countbits(x)`.
        CountBits = 47, "countbits";
        /// `reversebits(x)`.
        ReverseBits = 48, "reversebits";
        /// `firstbithigh(x)`.
        FirstBitHigh = 49, "firstbithigh";
        /// `firstbitlow(x)`.
        FirstBitLow = 50, "firstbitlow";
        /// `f32tof16(x)`: packs the low half.
        F32ToF16 = 51, "f32tof16";
        /// `f16tof32(x)`: unpacks the low half.
        F16ToF32 = 52, "f16tof32";
        /// `ddx(x)`.
        Ddx = 53, "ddx";
        /// `ddy(x)`.
        Ddy = 54, "ddy";
        /// `ddx_fine(x)`.
        DdxFine = 55, "ddx_fine";
        /// `ddy_fine(x)`.
        DdyFine = 56, "ddy_fine";
        /// `ddx_coarse(x)`.
        DdxCoarse = 57, "ddx_coarse";
        /// `ddy_coarse(x)`.
        DdyCoarse = 58, "ddy_coarse";
        /// `fwidth(x)`.
        Fwidth = 59, "fwidth";
        /// `ldexp(x, e)`.
        Ldexp = 60, "ldexp";
        /// `frexp(x, out e)`: the second operand is a pointer.
        Frexp = 61, "frexp";
        /// `modf(x, out i)`: the second operand is a pointer.
        Modf = 62, "modf";
        /// `saturate(x)`.
        Saturate = 63, "saturate";
        /// `degrees(x)`.
        Degrees = 64, "degrees";
        /// `radians(x)`.
        Radians = 65, "radians";
        /// `NonUniformResourceIndex(i)`: yields `i`; the backend decorates what it indexes.
        NonUniformIndex = 66, "nonuniform_index";
        /// `WaveGetLaneCount()`.
        WaveGetLaneCount = 67, "wave_get_lane_count";
        /// `WaveGetLaneIndex()`.
        WaveGetLaneIndex = 68, "wave_get_lane_index";
        /// `WaveIsFirstLane()`.
        WaveIsFirstLane = 69, "wave_is_first_lane";
        /// `WaveActiveAnyTrue(b)`.
        WaveActiveAnyTrue = 70, "wave_active_any_true";
        /// `WaveActiveAllTrue(b)`.
        WaveActiveAllTrue = 71, "wave_active_all_true";
        /// `WaveActiveBallot(b)`.
        WaveActiveBallot = 72, "wave_active_ballot";
        /// `WaveReadLaneAt(x, lane)`.
        WaveReadLaneAt = 73, "wave_read_lane_at";
        /// `WaveReadLaneFirst(x)`.
        WaveReadLaneFirst = 74, "wave_read_lane_first";
        /// `WaveActiveSum(x)`.
        WaveActiveSum = 75, "wave_active_sum";
        /// `WaveActiveProduct(x)`.
        WaveActiveProduct = 76, "wave_active_product";
        /// `WaveActiveMin(x)`.
        WaveActiveMin = 77, "wave_active_min";
        /// `WaveActiveMax(x)`.
        WaveActiveMax = 78, "wave_active_max";
        /// `WaveActiveBitAnd(x)`.
        WaveActiveBitAnd = 79, "wave_active_bit_and";
        /// `WaveActiveBitOr(x)`.
        WaveActiveBitOr = 80, "wave_active_bit_or";
        /// `WaveActiveBitXor(x)`.
        WaveActiveBitXor = 81, "wave_active_bit_xor";
        /// `WaveActiveCountBits(b)`.
        WaveActiveCountBits = 82, "wave_active_count_bits";
        /// `WavePrefixSum(x)`.
        WavePrefixSum = 83, "wave_prefix_sum";
        /// `WavePrefixProduct(x)`.
        WavePrefixProduct = 84, "wave_prefix_product";
        /// `WavePrefixCountBits(b)`.
        WavePrefixCountBits = 85, "wave_prefix_count_bits";
        /// `WaveActiveAllEqual(x)`.
        WaveActiveAllEqual = 86, "wave_active_all_equal";
        /// `QuadReadAcrossX(x)`.
        QuadReadAcrossX = 87, "quad_read_across_x";
        /// `QuadReadAcrossY(x)`.
        QuadReadAcrossY = 88, "quad_read_across_y";
        /// `QuadReadAcrossDiagonal(x)`.
        QuadReadAcrossDiagonal = 89, "quad_read_across_diagonal";
        /// `QuadReadLaneAt(x, lane)`.
        QuadReadLaneAt = 90, "quad_read_lane_at";
        /// `sincos(x, out s, out c)`: the second and third operands are pointers.
        Sincos = 91, "sincos";
        /// `fmod(a, b)` (HLSL: the result has the sign of `a`).
        Fmod = 92, "fmod";
        /// `log10(x)`.
        Log10 = 93, "log10";
        /// `pack_half_2x16(v)`: two floats to two halves in a `u32`.
        PackHalf2x16 = 94, "pack_half_2x16";
        /// `unpack_half_2x16(u)`.
        UnpackHalf2x16 = 95, "unpack_half_2x16";
        /// `rcp(x)` = 1 / x.
        Rcp = 96, "rcp";
        /// `GetRenderTargetSampleCount()`.
        RenderTargetSampleCount = 97, "render_target_sample_count";
        /// `IsHelperLane()`.
        IsHelperLane = 98, "is_helper_lane";
        /// `inverse(m)` (GLSL.std.450 MatrixInverse; not HLSL, for IR authors).
        Inverse = 99, "inverse";
        /// `interpolate_at_centroid(p)`: the fragment input `p` points to, interpolated at the
        /// pixel's centroid (HLSL `EvaluateAttributeAtCentroid`). `p` must lead back to an
        /// `input` global of a fragment stage (through an access chain, or a function
        /// variable holding one load of it; the SPIR-V backend follows those).
        InterpolateAtCentroid = 100, "interpolate_at_centroid";
        /// `interpolate_at_sample(p, index)`: at sample `index` (`EvaluateAttributeAtSample`).
        InterpolateAtSample = 101, "interpolate_at_sample";
        /// `interpolate_at_offset(p, offset)`: at a `vec<f32, 2>` offset from the pixel center
        /// (`EvaluateAttributeSnapped` after converting its fixed-point offset).
        InterpolateAtOffset = 102, "interpolate_at_offset";
        /// `attribute_at_vertex(p, vertex)`: the value the input had at vertex 0, 1 or 2 of the
        /// primitive (`GetAttributeAtVertex`; SPIR-V `PerVertexKHR`).
        AttributeAtVertex = 103, "attribute_at_vertex";
        /// `check_access_fully_mapped(status)`: true when the sparse-residency status a
        /// texture read returned says every texel it touched was resident.
        CheckAccessFullyMapped = 104, "check_access_fully_mapped";
        /// `debug_printf(format, values...)`: prints the values with the format (a
        /// `const_string`) to the debug channel of the driver or a layer (HLSL `printf`;
        /// SPIR-V NonSemantic.DebugPrintf). Computes nothing.
        DebugPrintf = 105, "debug_printf";
        /// `debug_break()`: stops in an attached debugger (HLSL `DebugBreak`; SPIR-V
        /// NonSemantic.DebugBreak). Computes nothing.
        DebugBreak = 106, "debug_break";
    }
}

/// Which enumeration an immediate operand slot names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImmKind {
    /// [`AddressSpace`].
    AddressSpace,
    /// [`Stage`].
    Stage,
    /// [`BuiltIn`].
    BuiltIn,
    /// [`Dim`].
    Dim,
    /// [`TextureAccess`].
    TextureAccess,
    /// [`ImageFormat`].
    ImageFormat,
    /// [`AtomicOp`].
    AtomicOp,
    /// [`BarrierFlags`].
    BarrierFlags,
    /// [`Intrinsic`].
    Intrinsic,
    /// [`Primitive`].
    Primitive,
    /// [`TessDomain`].
    TessDomain,
    /// [`Partitioning`].
    Partitioning,
    /// [`RayQueryValue`].
    RayQueryValue,
}

impl ImmKind {
    /// Spells the stable number `v` of this enumeration, or `None` when `v` is not a member.
    pub fn spell(self, v: u32) -> Option<String> {
        Some(match self {
            ImmKind::AddressSpace => AddressSpace::from_u32(v)?.spelling().to_string(),
            ImmKind::Stage => Stage::from_u32(v)?.spelling().to_string(),
            ImmKind::BuiltIn => BuiltIn::from_u32(v)?.spelling().to_string(),
            ImmKind::Dim => Dim::from_u32(v)?.spelling().to_string(),
            ImmKind::TextureAccess => TextureAccess::from_u32(v)?.spelling().to_string(),
            ImmKind::ImageFormat => ImageFormat::from_u32(v)?.spelling().to_string(),
            ImmKind::AtomicOp => AtomicOp::from_u32(v)?.spelling().to_string(),
            ImmKind::BarrierFlags => {
                let f = BarrierFlags(v);
                if !f.is_valid() {
                    return None;
                }
                f.spelling()
            }
            ImmKind::Intrinsic => Intrinsic::from_u32(v)?.spelling().to_string(),
            ImmKind::Primitive => Primitive::from_u32(v)?.spelling().to_string(),
            ImmKind::TessDomain => TessDomain::from_u32(v)?.spelling().to_string(),
            ImmKind::Partitioning => Partitioning::from_u32(v)?.spelling().to_string(),
            ImmKind::RayQueryValue => RayQueryValue::from_u32(v)?.spelling().to_string(),
        })
    }

    /// The stable number spelled `s` in this enumeration.
    pub fn parse(self, s: &str) -> Option<u32> {
        Some(match self {
            ImmKind::AddressSpace => AddressSpace::from_spelling(s)?.to_u32(),
            ImmKind::Stage => Stage::from_spelling(s)?.to_u32(),
            ImmKind::BuiltIn => BuiltIn::from_spelling(s)?.to_u32(),
            ImmKind::Dim => Dim::from_spelling(s)?.to_u32(),
            ImmKind::TextureAccess => TextureAccess::from_spelling(s)?.to_u32(),
            ImmKind::ImageFormat => ImageFormat::from_spelling(s)?.to_u32(),
            ImmKind::AtomicOp => AtomicOp::from_spelling(s)?.to_u32(),
            ImmKind::BarrierFlags => BarrierFlags::from_spelling(s)?.0,
            ImmKind::Intrinsic => Intrinsic::from_spelling(s)?.to_u32(),
            ImmKind::Primitive => Primitive::from_spelling(s)?.to_u32(),
            ImmKind::TessDomain => TessDomain::from_spelling(s)?.to_u32(),
            ImmKind::Partitioning => Partitioning::from_spelling(s)?.to_u32(),
            ImmKind::RayQueryValue => RayQueryValue::from_spelling(s)?.to_u32(),
        })
    }

    /// True when `v` is a member of the enumeration.
    pub fn is_valid(self, v: u32) -> bool {
        self.spell(v).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_round_trip_and_are_unique() {
        fn check<T: Copy + PartialEq + std::fmt::Debug>(
            all: &[T],
            spell: fn(T) -> &'static str,
            parse: fn(&str) -> Option<T>,
            num: fn(T) -> u32,
            from: fn(u32) -> Option<T>,
        ) {
            let mut seen = std::collections::HashSet::new();
            let mut nums = std::collections::HashSet::new();
            for &v in all {
                assert!(seen.insert(spell(v)), "duplicate spelling {}", spell(v));
                assert!(nums.insert(num(v)), "duplicate number {}", num(v));
                assert_eq!(parse(spell(v)), Some(v));
                assert_eq!(from(num(v)), Some(v));
            }
        }
        check(
            AddressSpace::ALL,
            AddressSpace::spelling,
            AddressSpace::from_spelling,
            AddressSpace::to_u32,
            AddressSpace::from_u32,
        );
        check(
            BuiltIn::ALL,
            BuiltIn::spelling,
            BuiltIn::from_spelling,
            BuiltIn::to_u32,
            BuiltIn::from_u32,
        );
        check(
            ImageFormat::ALL,
            ImageFormat::spelling,
            ImageFormat::from_spelling,
            ImageFormat::to_u32,
            ImageFormat::from_u32,
        );
        check(
            Stage::ALL,
            Stage::spelling,
            Stage::from_spelling,
            Stage::to_u32,
            Stage::from_u32,
        );
        check(
            Primitive::ALL,
            Primitive::spelling,
            Primitive::from_spelling,
            Primitive::to_u32,
            Primitive::from_u32,
        );
        check(
            RayQueryValue::ALL,
            RayQueryValue::spelling,
            RayQueryValue::from_spelling,
            RayQueryValue::to_u32,
            RayQueryValue::from_u32,
        );
        check(
            Intrinsic::ALL,
            Intrinsic::spelling,
            Intrinsic::from_spelling,
            Intrinsic::to_u32,
            Intrinsic::from_u32,
        );
    }

    #[test]
    fn barrier_flags_spelling() {
        let f = BarrierFlags::GROUP_SYNC.union(BarrierFlags::WORKGROUP_MEMORY);
        assert_eq!(f.spelling(), "sync|workgroup");
        assert_eq!(BarrierFlags::from_spelling("sync|workgroup"), Some(f));
        assert_eq!(BarrierFlags::from_spelling("none"), Some(BarrierFlags(0)));
        assert_eq!(BarrierFlags::from_spelling("bogus"), None);
        assert_eq!(ImmKind::BarrierFlags.spell(8), None);
    }
}
