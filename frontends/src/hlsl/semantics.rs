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
//! | any other name | vertex in/out, fragment in/out | `location(n)`, numbered in declaration order per direction (`[[vk::location(n)]]` overrides) |

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
}

/// The SPIR-V shape of a built-in.
pub fn builtin_shape(b: BuiltIn) -> BuiltinShape {
    use BuiltIn::*;
    match b {
        Position => BuiltinShape::Float4,
        FragDepth | PointSize => BuiltinShape::Float,
        Barycentric => BuiltinShape::Float3,
        GlobalInvocationId | LocalInvocationId | WorkgroupId | NumWorkgroups => BuiltinShape::Uint3,
        FrontFacing | FullyCovered | HelperInvocation => BuiltinShape::Bool,
        SampleMask => BuiltinShape::MaskArray,
        ClipDistance | CullDistance => BuiltinShape::FloatArray,
        _ => BuiltinShape::Uint,
    }
}

/// Classifies a semantic (upper case, index split off) for a stage and direction. `Err`
/// explains why it is not allowed.
pub fn classify(stage: Stage, input: bool, name: &str, index: u32) -> Result<IoKind, String> {
    use BuiltIn as B;
    let b = |x: B| Ok(IoKind::Builtin(x));
    let dir = if input { "input" } else { "output" };
    let stage_name = match stage {
        Stage::Vertex => "vertex",
        Stage::Fragment => "pixel",
        Stage::Compute => "compute",
        _ => "this",
    };
    if !name.starts_with("SV_") {
        if stage == Stage::Compute {
            return Err(format!(
                "`{name}` is not a compute-shader input (use SV_DispatchThreadID, SV_GroupID, \
                 SV_GroupThreadID or SV_GroupIndex)"
            ));
        }
        return Ok(IoKind::Location);
    }
    match (stage, input, name) {
        (Stage::Vertex, true, "SV_VERTEXID") => b(B::VertexIndex),
        (Stage::Vertex, true, "SV_INSTANCEID") => b(B::InstanceIndex),
        (Stage::Vertex, true, "SV_STARTVERTEXLOCATION") => b(B::BaseVertex),
        (Stage::Vertex, true, "SV_STARTINSTANCELOCATION") => b(B::BaseInstance),
        (Stage::Vertex | Stage::Fragment, true, "SV_VIEWID") => b(B::ViewIndex),
        (Stage::Vertex, true, "SV_POSITION") => Ok(IoKind::Location),
        (Stage::Vertex, false, "SV_POSITION") | (Stage::Fragment, true, "SV_POSITION") => {
            b(B::Position)
        }
        (Stage::Vertex, false, "SV_CLIPDISTANCE") | (Stage::Fragment, true, "SV_CLIPDISTANCE") => {
            b(B::ClipDistance)
        }
        (Stage::Vertex, false, "SV_CULLDISTANCE") | (Stage::Fragment, true, "SV_CULLDISTANCE") => {
            b(B::CullDistance)
        }
        (Stage::Vertex, false, "SV_RENDERTARGETARRAYINDEX")
        | (Stage::Fragment, true, "SV_RENDERTARGETARRAYINDEX") => b(B::Layer),
        (Stage::Vertex, false, "SV_VIEWPORTARRAYINDEX")
        | (Stage::Fragment, true, "SV_VIEWPORTARRAYINDEX") => b(B::ViewportIndex),
        (Stage::Fragment, true, "SV_ISFRONTFACE") => b(B::FrontFacing),
        (Stage::Fragment, true, "SV_SAMPLEINDEX") => b(B::SampleIndex),
        (Stage::Fragment, true, "SV_PRIMITIVEID") => b(B::PrimitiveId),
        (Stage::Fragment, _, "SV_COVERAGE") => b(B::SampleMask),
        (Stage::Fragment, true, "SV_BARYCENTRICS") => b(B::Barycentric),
        (Stage::Fragment, true, "SV_SHADINGRATE") => b(B::ShadingRate),
        (Stage::Fragment, true, "SV_INNERCOVERAGE") => b(B::FullyCovered),
        (Stage::Fragment, false, "SV_TARGET") => Ok(IoKind::Target(index)),
        (Stage::Fragment, false, "SV_DEPTH")
        | (Stage::Fragment, false, "SV_DEPTHGREATEREQUAL")
        | (Stage::Fragment, false, "SV_DEPTHLESSEQUAL") => b(B::FragDepth),
        (Stage::Fragment, false, "SV_STENCILREF") => b(B::FragStencilRef),
        (Stage::Compute, true, "SV_DISPATCHTHREADID") => b(B::GlobalInvocationId),
        (Stage::Compute, true, "SV_GROUPID") => b(B::WorkgroupId),
        (Stage::Compute, true, "SV_GROUPTHREADID") => b(B::LocalInvocationId),
        (Stage::Compute, true, "SV_GROUPINDEX") => b(B::LocalInvocationIndex),
        _ => Err(format!(
            "`{name}` is not a valid {stage_name} shader {dir} semantic"
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
            classify(Stage::Compute, true, "SV_GROUPINDEX", 0),
            Ok(IoKind::Builtin(BuiltIn::LocalInvocationIndex))
        );
    }
}
