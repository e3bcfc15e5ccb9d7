//! System-value semantics per stage and direction, and what each becomes in the IR.
//!
//! | semantic | stage, direction | IR |
//! |---|---|---|
//! | `SV_VertexID` | vertex in | `builtin(vertex_index)` |
//! | `SV_InstanceID` | vertex in | `builtin(instance_index)` |
//! | `SV_StartVertexLocation`, `SV_StartInstanceLocation` | vertex in | `base_vertex`, `base_instance` |
//! | `SV_ViewID` | vertex, fragment in | `view_index` |
//! | `SV_Position` | vertex out, fragment in | `position` (a vertex *input* named `SV_Position` is an ordinary attribute) |
//! | `SV_ClipDistance`, `SV_CullDistance` | vertex out, fragment in | `clip_distance`, `cull_distance` (arrays of float) |
//! | `SV_RenderTargetArrayIndex`, `SV_ViewportArrayIndex` | vertex out, fragment in | `layer`, `viewport_index` |
//! | `SV_IsFrontFace` | fragment in | `front_facing` |
//! | `SV_SampleIndex` | fragment in | `sample_index` |
//! | `SV_PrimitiveID` | fragment in | `primitive_id` |
//! | `SV_Coverage` | fragment in/out | `sample_mask` (an array of one `uint`) |
//! | `SV_Barycentrics` | fragment in | `barycentric` |
//! | `SV_ShadingRate` | fragment in | `shading_rate` |
//! | `SV_InnerCoverage` | fragment in | `fully_covered` |
//! | `SV_Target[n]` | fragment out | `location(n)` |
//! | `SV_Depth`, `SV_DepthGreaterEqual`, `SV_DepthLessEqual` | fragment out | `frag_depth` |
//! | `SV_StencilRef` | fragment out | `frag_stencil_ref` |
//! | `SV_DispatchThreadID` | compute in | `global_invocation_id` (uint3) |
//! | `SV_GroupID` | compute in | `workgroup_id` (uint3) |
//! | `SV_GroupThreadID` | compute in | `local_invocation_id` (uint3) |
//! | `SV_GroupIndex` | compute in | `local_invocation_index` (uint) |
//! | `SV_Position`, `SV_ClipDistance`, `SV_CullDistance` | geometry, hull, domain in (arrays, one element per vertex); hull, domain, geometry, mesh out | `position`, `clip_distance`, `cull_distance` |
//! | `SV_PrimitiveID` | geometry, hull, domain in; geometry, mesh out | `primitive_id` |
//! | `SV_RenderTargetArrayIndex`, `SV_ViewportArrayIndex` | domain, geometry, mesh out | `layer`, `viewport_index` |
//! | `SV_GSInstanceID` | geometry in | `invocation_id` |
//! | `SV_OutputControlPointID` | hull in | `invocation_id` |
//! | `SV_TessFactor`, `SV_InsideTessFactor` | hull out, domain in (per patch) | `tess_level_outer` (`float[4]`), `tess_level_inner` (`float[2]`), of which the declaration's elements are the leading ones |
//! | `SV_DomainLocation` | domain in | `tess_coord` (`float3`, truncated to the declared `float2` for quads and isolines) |
//! | `SV_CullPrimitive` | mesh out (per primitive) | `cull_primitive` |
//! | `SV_ShadingRate` | vertex, geometry, mesh out | `primitive_shading_rate` |
//! | `SV_DispatchThreadID`, `SV_GroupID`, `SV_GroupThreadID`, `SV_GroupIndex` | mesh, amplification in | as for compute |
//! | `SV_ViewID` | geometry, hull, domain, mesh in | `view_index` |
//! | any other name | vertex, geometry, hull, domain in/out, fragment in, mesh out | `location(n)`, numbered in declaration order per direction (`[[vk::location(n)]]` overrides); a system value of another stage (`SV_InstanceID` in a hull shader) is passed on as a varying with a warning |

use oneshader_ir::{BuiltIn, Stage};

/// What a stage-IO declaration becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoKind {
    /// A built-in variable.
    Builtin(BuiltIn),
    /// A user varying with an automatically assigned location.
    Location,
    /// A render target: location = the index.
    Target(u32),
}

/// The HLSL shape a built-in variable has in SPIR-V (values are converted to the user's
/// declared type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuiltinShape {
    /// `float4`.
    Float4,
    /// `float3`.
    Float3,
    /// `float`.
    Float,
    /// `uint`.
    Uint,
    /// `uint3`.
    Uint3,
    /// `bool`.
    Bool,
    /// `uint[1]`.
    MaskArray,
    /// `float[n]` (clip and cull distances).
    FloatArray,
    /// `float[n]` of fixed length (tessellation levels), of which the declaration uses the
    /// leading elements.
    TessLevels(u32),
}

/// The SPIR-V shape of a built-in.
pub fn builtin_shape(b: BuiltIn) -> BuiltinShape {
    use BuiltIn::*;
    match b {
        Position => BuiltinShape::Float4,
        FragDepth | PointSize => BuiltinShape::Float,
        Barycentric | TessCoord => BuiltinShape::Float3,
        GlobalInvocationId | LocalInvocationId | WorkgroupId | NumWorkgroups | LaunchId
        | LaunchSize => BuiltinShape::Uint3,
        FrontFacing | FullyCovered | HelperInvocation | CullPrimitive => BuiltinShape::Bool,
        SampleMask => BuiltinShape::MaskArray,
        ClipDistance | CullDistance => BuiltinShape::FloatArray,
        TessLevelOuter => BuiltinShape::TessLevels(4),
        TessLevelInner => BuiltinShape::TessLevels(2),
        _ => BuiltinShape::Uint,
    }
}

/// True for the stages whose inputs arrive once per vertex of a primitive or patch, as
/// arrays (geometry, hull, domain).
pub fn arrayed_inputs(stage: Stage) -> bool {
    matches!(stage, Stage::Geometry | Stage::Hull | Stage::Domain)
}

/// True for the stages that feed the rasterizer (their position output is the final one).
pub fn pre_raster(stage: Stage) -> bool {
    matches!(
        stage,
        Stage::Vertex | Stage::Domain | Stage::Geometry | Stage::Mesh
    )
}

/// The name of a stage in diagnostics.
pub fn stage_name(stage: Stage) -> &'static str {
    match stage {
        Stage::Fragment => "pixel",
        s => s.spelling(),
    }
}

/// Classifies a semantic (upper case, index split off) for a stage and direction. `Err`
/// explains why it is not allowed. Stages without user varyings (compute, mesh and
/// amplification inputs, the ray-tracing stages) accept system values only.
pub fn classify(stage: Stage, input: bool, name: &str, index: u32) -> Result<IoKind, String> {
    use BuiltIn as B;
    use Stage::*;
    let b = |x: B| Ok(IoKind::Builtin(x));
    let dir = if input { "input" } else { "output" };
    let sname = stage_name(stage);
    let compute_like = matches!(stage, Compute | Amplification) || (stage == Mesh && input);
    if !name.starts_with("SV_") {
        if compute_like {
            return Err(format!(
                "`{name}` is not a {sname}-shader input (use SV_DispatchThreadID, SV_GroupID, \
                 SV_GroupThreadID or SV_GroupIndex)"
            ));
        }
        return Ok(IoKind::Location);
    }
    // A pre-rasterization stage's system outputs, and what later stages read back.
    let raster_out = !input && pre_raster(stage);
    match (stage, input, name) {
        (Vertex, true, "SV_VERTEXID") => b(B::VertexIndex),
        (Vertex, true, "SV_INSTANCEID") => b(B::InstanceIndex),
        (Vertex, true, "SV_STARTVERTEXLOCATION") => b(B::BaseVertex),
        (Vertex, true, "SV_STARTINSTANCELOCATION") => b(B::BaseInstance),
        (Vertex | Fragment | Geometry | Hull | Domain | Mesh, true, "SV_VIEWID") => b(B::ViewIndex),
        (Vertex, true, "SV_POSITION") => Ok(IoKind::Location),
        (_, false, "SV_POSITION") if raster_out || stage == Hull => b(B::Position),
        (Fragment | Geometry | Hull | Domain, true, "SV_POSITION") => b(B::Position),
        (_, false, "SV_CLIPDISTANCE") if raster_out || stage == Hull => b(B::ClipDistance),
        (Fragment | Geometry | Hull | Domain, true, "SV_CLIPDISTANCE") => b(B::ClipDistance),
        (_, false, "SV_CULLDISTANCE") if raster_out || stage == Hull => b(B::CullDistance),
        (Fragment | Geometry | Hull | Domain, true, "SV_CULLDISTANCE") => b(B::CullDistance),
        (_, false, "SV_RENDERTARGETARRAYINDEX") if raster_out => b(B::Layer),
        (Fragment, true, "SV_RENDERTARGETARRAYINDEX") => b(B::Layer),
        (_, false, "SV_VIEWPORTARRAYINDEX") if raster_out => b(B::ViewportIndex),
        (Fragment, true, "SV_VIEWPORTARRAYINDEX") => b(B::ViewportIndex),
        (Fragment, true, "SV_ISFRONTFACE") => b(B::FrontFacing),
        (Fragment, true, "SV_SAMPLEINDEX") => b(B::SampleIndex),
        (Fragment | Geometry | Hull | Domain, true, "SV_PRIMITIVEID") => b(B::PrimitiveId),
        (Geometry | Mesh, false, "SV_PRIMITIVEID") => b(B::PrimitiveId),
        (Fragment, _, "SV_COVERAGE") => b(B::SampleMask),
        (Fragment, true, "SV_BARYCENTRICS") => b(B::Barycentric),
        (Fragment, true, "SV_SHADINGRATE") => b(B::ShadingRate),
        (Fragment, true, "SV_INNERCOVERAGE") => b(B::FullyCovered),
        (Fragment, false, "SV_TARGET") => Ok(IoKind::Target(index)),
        (Fragment, false, "SV_DEPTH")
        | (Fragment, false, "SV_DEPTHGREATEREQUAL")
        | (Fragment, false, "SV_DEPTHLESSEQUAL") => b(B::FragDepth),
        (Fragment, false, "SV_STENCILREF") => b(B::FragStencilRef),
        (Compute | Mesh | Amplification, true, "SV_DISPATCHTHREADID") => b(B::GlobalInvocationId),
        (Compute | Mesh | Amplification, true, "SV_GROUPID") => b(B::WorkgroupId),
        (Compute | Mesh | Amplification, true, "SV_GROUPTHREADID") => b(B::LocalInvocationId),
        (Compute | Mesh | Amplification, true, "SV_GROUPINDEX") => b(B::LocalInvocationIndex),
        (Geometry, true, "SV_GSINSTANCEID") => b(B::InvocationId),
        (Hull, true, "SV_OUTPUTCONTROLPOINTID") => b(B::InvocationId),
        (Hull, false, "SV_TESSFACTOR") | (Domain, true, "SV_TESSFACTOR") => b(B::TessLevelOuter),
        (Hull, false, "SV_INSIDETESSFACTOR") | (Domain, true, "SV_INSIDETESSFACTOR") => {
            b(B::TessLevelInner)
        }
        (Domain, true, "SV_DOMAINLOCATION") => b(B::TessCoord),
        (Mesh, false, "SV_CULLPRIMITIVE") => b(B::CullPrimitive),
        (Vertex | Geometry | Mesh, false, "SV_SHADINGRATE") => b(B::PrimitiveShadingRate),
        // A system value of another stage is an ordinary varying here (DXC: `SV_InstanceID`
        // passed on by a vertex shader); the caller warns.
        _ => Err(format!(
            "`{name}` is not a valid {sname} shader {dir} semantic"
        )),
    }
}

/// `[[vk::builtin("Name")]]` spellings.
pub fn vk_builtin(name: &str) -> Option<BuiltIn> {
    Some(match name {
        "PointSize" => BuiltIn::PointSize,
        "HelperInvocation" => BuiltIn::HelperInvocation,
        "BaseVertex" => BuiltIn::BaseVertex,
        "BaseInstance" => BuiltIn::BaseInstance,
        "DrawIndex" => BuiltIn::DrawIndex,
        "ViewIndex" => BuiltIn::ViewIndex,
        "DeviceIndex" => BuiltIn::DeviceIndex,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_values_depend_on_stage_and_direction() {
        assert_eq!(
            classify(Stage::Vertex, false, "SV_POSITION", 0),
            Ok(IoKind::Builtin(BuiltIn::Position))
        );
        assert_eq!(
            classify(Stage::Vertex, true, "SV_POSITION", 0),
            Ok(IoKind::Location)
        );
        assert_eq!(
            classify(Stage::Fragment, false, "SV_TARGET", 2),
            Ok(IoKind::Target(2))
        );
        assert!(classify(Stage::Vertex, false, "SV_TARGET", 0).is_err());
        assert!(classify(Stage::Compute, true, "TEXCOORD", 0).is_err());
        assert_eq!(
            classify(Stage::Geometry, true, "SV_POSITION", 0),
            Ok(IoKind::Builtin(BuiltIn::Position))
        );
        assert_eq!(
            classify(Stage::Hull, false, "SV_TESSFACTOR", 0),
            Ok(IoKind::Builtin(BuiltIn::TessLevelOuter))
        );
        assert_eq!(
            classify(Stage::Domain, true, "SV_DOMAINLOCATION", 0),
            Ok(IoKind::Builtin(BuiltIn::TessCoord))
        );
        assert!(classify(Stage::Mesh, true, "TEXCOORD", 0).is_err());
        assert!(classify(Stage::Hull, false, "SV_RENDERTARGETARRAYINDEX", 0).is_err());
        assert_eq!(
            classify(Stage::Compute, true, "SV_GROUPINDEX", 0),
            Ok(IoKind::Builtin(BuiltIn::LocalInvocationIndex))
        );
    }
}
