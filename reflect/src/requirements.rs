//! What a device must support to run a compiled SPIR-V module: its SPIR-V version,
//! capabilities and extensions, and what they mean for a Vulkan application: the device
//! extensions to enable, the feature flags to turn on (`VkPhysicalDeviceFeatures` and the
//! `Vulkan11/12/13Features` and extension feature structs, by member name) and the subgroup
//! operations (`VkPhysicalDeviceSubgroupProperties::supportedOperations`) the shader uses.
//!
//! Built from the capability and extension names the SPIR-V backend declared
//! ([`DeviceRequirements::from_spirv`]), so it says exactly what the emitted module asks for.
//! Capabilities every Vulkan device has (`Shader`, `Matrix`, `Sampled1D`, `ImageQuery`...) and
//! those a SPIR-V extension covers without a feature flag imply nothing further.

use serde::{Deserialize, Serialize};

/// A device's requirements for one SPIR-V module.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceRequirements {
    /// The SPIR-V version, `"1.5"`.
    pub spirv_version: String,
    /// Every `OpCapability`, by its SPIR-V name (`Shader`, `Int64`...), in module order.
    pub capabilities: Vec<String>,
    /// Every `OpExtension` (`SPV_KHR_16bit_storage`...).
    pub spirv_extensions: Vec<String>,
    /// The Vulkan device extensions those SPIR-V extensions belong to
    /// (`VK_KHR_16bit_storage`...); on Vulkan versions where an extension became core, its
    /// feature flag (below) is what to enable.
    pub vulkan_extensions: Vec<String>,
    /// Vulkan feature flags to enable, by member name (`shaderInt64`, `shaderFloat16`,
    /// `storageBuffer16BitAccess`...), sorted.
    pub vulkan_features: Vec<String>,
    /// Subgroup operations the device must support in the shader's stage (`basic`, `vote`,
    /// `arithmetic`, `ballot`, `shuffle`, `shuffle_relative`, `clustered`, `quad`), sorted.
    pub subgroup_operations: Vec<String>,
}

/// The Vulkan feature flags a SPIR-V capability needs (empty for core ones).
fn features_of(capability: &str) -> &'static [&'static str] {
    match capability {
        "Int64" => &["shaderInt64"],
        "Int16" => &["shaderInt16"],
        "Int8" => &["shaderInt8"],
        "Float64" => &["shaderFloat64"],
        "Float16" => &["shaderFloat16"],
        "StorageBuffer16BitAccess" => &["storageBuffer16BitAccess"],
        "UniformAndStorageBuffer16BitAccess" => &["uniformAndStorageBuffer16BitAccess"],
        "StoragePushConstant16" => &["storagePushConstant16"],
        "StorageInputOutput16" => &["storageInputOutput16"],
        "StorageBuffer8BitAccess" => &["storageBuffer8BitAccess"],
        "UniformAndStorageBuffer8BitAccess" => &["uniformAndStorageBuffer8BitAccess"],
        "StoragePushConstant8" => &["storagePushConstant8"],
        "Geometry" => &["geometryShader"],
        "Tessellation" => &["tessellationShader"],
        "SampleRateShading" | "InterpolationFunction" => &["sampleRateShading"],
        "MultiViewport" => &["multiViewport"],
        "ClipDistance" => &["shaderClipDistance"],
        "CullDistance" => &["shaderCullDistance"],
        "ImageCubeArray" | "SampledCubeArray" => &["imageCubeArray"],
        "StorageImageMultisample" => &["shaderStorageImageMultisample"],
        "StorageImageExtendedFormats" => &["shaderStorageImageExtendedFormats"],
        "StorageImageReadWithoutFormat" => &["shaderStorageImageReadWithoutFormat"],
        "StorageImageWriteWithoutFormat" => &["shaderStorageImageWriteWithoutFormat"],
        "ImageGatherExtended" => &["shaderImageGatherExtended"],
        "SparseResidency" => &["shaderResourceResidency"],
        "MinLod" => &["shaderResourceMinLod"],
        "ImageMSArray" => &["shaderStorageImageMultisample"],
        "RuntimeDescriptorArray" => &["runtimeDescriptorArray"],
        "ShaderNonUniform" => &["shaderSampledImageArrayNonUniformIndexing"],
        "DrawParameters" => &["shaderDrawParameters"],
        "MultiView" => &["multiview"],
        "ShaderLayer" => &["shaderOutputLayer"],
        "ShaderViewportIndex" => &["shaderOutputViewportIndex"],
        "FragmentBarycentricKHR" => &["fragmentShaderBarycentric"],
        "FragmentShadingRateKHR" => &["primitiveFragmentShadingRate"],
        "ComputeDerivativeGroupQuadsNV" | "ComputeDerivativeGroupQuadsKHR" => {
            &["computeDerivativeGroupQuads"]
        }
        "ComputeDerivativeGroupLinearNV" | "ComputeDerivativeGroupLinearKHR" => {
            &["computeDerivativeGroupLinear"]
        }
        "Int64ImageEXT" => &["shaderImageInt64"],
        "Int64Atomics" => &["shaderBufferInt64Atomics"],
        "DemoteToHelperInvocation" | "DemoteToHelperInvocationEXT" => {
            &["shaderDemoteToHelperInvocation"]
        }
        "VulkanMemoryModel" => &["vulkanMemoryModel"],
        "GeometryPointSize" | "TessellationPointSize" => {
            &["shaderTessellationAndGeometryPointSize"]
        }
        // `VkPhysicalDeviceTransformFeedbackFeaturesEXT`.
        "GeometryStreams" => &["geometryStreams"],
        // `VkPhysicalDeviceMeshShaderFeaturesEXT` (`taskShader` too when the module has an
        // amplification entry point).
        "MeshShadingEXT" => &["meshShader"],
        // `VkPhysicalDeviceRayTracingPipelineFeaturesKHR`, `...RayQueryFeaturesKHR`, and
        // `...AccelerationStructureFeaturesKHR` for the structures both trace through.
        "RayTracingKHR" => &["accelerationStructure", "rayTracingPipeline"],
        "RayQueryKHR" => &["accelerationStructure", "rayQuery"],
        _ => &[],
    }
}

/// The subgroup operation a `GroupNonUniform*` capability stands for.
fn subgroup_operation(capability: &str) -> Option<&'static str> {
    Some(match capability {
        "GroupNonUniform" => "basic",
        "GroupNonUniformVote" => "vote",
        "GroupNonUniformArithmetic" => "arithmetic",
        "GroupNonUniformBallot" => "ballot",
        "GroupNonUniformShuffle" => "shuffle",
        "GroupNonUniformShuffleRelative" => "shuffle_relative",
        "GroupNonUniformClustered" => "clustered",
        "GroupNonUniformQuad" => "quad",
        _ => return None,
    })
}

/// The Vulkan device extensions of a SPIR-V extension (`SPV_KHR_x` is `VK_KHR_x` for those
/// the backend emits; the exceptions are listed).
fn vulkan_extensions(spirv: &str) -> Vec<String> {
    match spirv {
        // The shader side of the viewport/layer output extension.
        "SPV_EXT_shader_viewport_index_layer" => vec!["VK_EXT_shader_viewport_index_layer".into()],
        "SPV_KHR_non_semantic_info" => vec!["VK_KHR_shader_non_semantic_info".into()],
        // Ray tracing: the pipeline or the query, and the structures they trace through.
        "SPV_KHR_ray_tracing" => vec![
            "VK_KHR_acceleration_structure".into(),
            "VK_KHR_ray_tracing_pipeline".into(),
        ],
        "SPV_KHR_ray_query" => vec![
            "VK_KHR_acceleration_structure".into(),
            "VK_KHR_ray_query".into(),
        ],
        s => s
            .strip_prefix("SPV_")
            .map(|rest| format!("VK_{rest}"))
            .into_iter()
            .collect(),
    }
}

impl DeviceRequirements {
    /// The requirements of a module of SPIR-V `version` (major, minor) that declares these
    /// capabilities and extensions (their SPIR-V names).
    pub fn from_spirv(version: (u8, u8), capabilities: &[String], extensions: &[String]) -> Self {
        let mut features: Vec<String> = capabilities
            .iter()
            .flat_map(|c| features_of(c).iter().map(|f| f.to_string()))
            .collect();
        features.sort();
        features.dedup();
        let mut subgroup: Vec<String> = capabilities
            .iter()
            .filter_map(|c| subgroup_operation(c).map(str::to_string))
            .collect();
        subgroup.sort();
        subgroup.dedup();
        let mut vulkan_extensions: Vec<String> = extensions
            .iter()
            .flat_map(|e| vulkan_extensions(e))
            .collect();
        vulkan_extensions.sort();
        vulkan_extensions.dedup();
        DeviceRequirements {
            spirv_version: format!("{}.{}", version.0, version.1),
            capabilities: capabilities.to_vec(),
            spirv_extensions: extensions.to_vec(),
            vulkan_extensions,
            vulkan_features: features,
            subgroup_operations: subgroup,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capabilities_map_to_features_and_subgroup_operations() {
        let caps: Vec<String> = [
            "Shader",
            "Int64",
            "Float16",
            "StorageBuffer16BitAccess",
            "GroupNonUniform",
            "GroupNonUniformArithmetic",
            "GroupNonUniformQuad",
            "ComputeDerivativeGroupQuadsNV",
        ]
        .map(String::from)
        .to_vec();
        let exts = vec![
            "SPV_KHR_16bit_storage".to_string(),
            "SPV_NV_compute_shader_derivatives".to_string(),
        ];
        let r = DeviceRequirements::from_spirv((1, 3), &caps, &exts);
        assert_eq!(r.spirv_version, "1.3");
        assert_eq!(
            r.vulkan_features,
            [
                "computeDerivativeGroupQuads",
                "shaderFloat16",
                "shaderInt64",
                "storageBuffer16BitAccess"
            ]
        );
        assert_eq!(r.subgroup_operations, ["arithmetic", "basic", "quad"]);
        assert_eq!(
            r.vulkan_extensions,
            ["VK_KHR_16bit_storage", "VK_NV_compute_shader_derivatives"]
        );
    }
}
