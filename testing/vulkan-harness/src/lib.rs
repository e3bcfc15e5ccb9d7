//! Test support shared by the workspace's execution tests: runs a compute shader, or a
//! graphics pipeline's draw ([`Gpu::draw`], module `graphics`), on a real Vulkan driver and
//! reads its results back.
//!
//! [`Gpu::new`] loads the system's Vulkan loader (`libvulkan.so.1`) with ash and picks Mesa's
//! lavapipe, the CPU device `cargo xtask setup` installs. [`Gpu::run`] is the short form:
//! storage buffers of `u32` words at set 0, bindings 0, 1, ... [`Gpu::dispatch`] takes any
//! mix of storage and uniform buffers, storage and sampled images (1D, 2D, 3D, cube, arrays
//! of them; the formats of [`Format`]), uniform and storage texel buffers and samplers at
//! chosen sets and bindings, plus push constants; storage buffers, storage images and
//! storage texel buffers are read back after the dispatch. The device has every feature
//! lavapipe offers enabled, and VK_EXT_robustness2 ([`Gpu::robust`]), so out-of-bounds
//! accesses read zero and write nothing.
//!
//! This crate is test code (`publish = false`): a missing driver or a failing Vulkan call
//! panics with a message, as a failed assertion would ([`Gpu::try_dispatch`] returns the
//! error instead); when the loader or lavapipe is missing the message names
//! `cargo xtask setup`, so tests fail rather than skip.

// Vulkan through ash is unsafe by nature: every call is an FFI call whose contract the code
// keeps by construction (handles created here, destroyed once, in order).
#![allow(unsafe_code)]

use std::ffi::CString;

use ash::vk;

mod graphics;

pub use graphics::{
    Draw, Shader, ShaderKind, Target, Topology, VertexAttribute, VertexBuffer, VertexFormat,
};

/// What to run when the driver is missing.
pub const SETUP: &str =
    "run `cargo xtask setup` (it installs the Vulkan loader and Mesa's lavapipe)";

/// One instance and device on lavapipe.
pub struct Gpu {
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    queue: vk::Queue,
    family: u32,
    memory: vk::PhysicalDeviceMemoryProperties,
    /// The device's name, for messages.
    pub name: String,
    /// True when VK_EXT_robustness2 is enabled: out-of-bounds buffer and image accesses
    /// read zero and write nothing.
    pub robust: bool,
    timeout_ns: u64,
}

/// A texel format of a test image or texel buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// `R32_UINT` (HLSL `uint`, `[[vk::image_format("r32ui")]]`).
    R32Uint,
    /// `R32_SINT` (`r32i`).
    R32Sint,
    /// `R32_SFLOAT` (`r32f`).
    R32Float,
    /// `R32G32_UINT` (`rg32ui`).
    Rg32Uint,
    /// `R32G32_SINT` (`rg32i`).
    Rg32Sint,
    /// `R32G32_SFLOAT` (`rg32f`).
    Rg32Float,
    /// `R32G32B32A32_SFLOAT` (`rgba32f`).
    Rgba32Float,
    /// `R32G32B32A32_UINT` (`rgba32ui`).
    Rgba32Uint,
    /// `R32G32B32A32_SINT` (`rgba32i`).
    Rgba32Sint,
    /// `R16G16B16A16_SFLOAT` (`rgba16f`): two halves per word.
    Rgba16Float,
    /// `R8G8B8A8_UNORM` (`rgba8`): one byte per channel.
    Rgba8Unorm,
}

impl Format {
    fn vk(self) -> vk::Format {
        match self {
            Format::R32Uint => vk::Format::R32_UINT,
            Format::R32Sint => vk::Format::R32_SINT,
            Format::R32Float => vk::Format::R32_SFLOAT,
            Format::Rg32Uint => vk::Format::R32G32_UINT,
            Format::Rg32Sint => vk::Format::R32G32_SINT,
            Format::Rg32Float => vk::Format::R32G32_SFLOAT,
            Format::Rgba32Float => vk::Format::R32G32B32A32_SFLOAT,
            Format::Rgba32Uint => vk::Format::R32G32B32A32_UINT,
            Format::Rgba32Sint => vk::Format::R32G32B32A32_SINT,
            Format::Rgba16Float => vk::Format::R16G16B16A16_SFLOAT,
            Format::Rgba8Unorm => vk::Format::R8G8B8A8_UNORM,
        }
    }

    /// The format named as SPIR-V's and `[[vk::image_format]]`'s spelling (`rgba32f`,
    /// `r32ui`...), if the harness makes it.
    pub fn from_name(name: &str) -> Option<Format> {
        Some(match name {
            "r32ui" => Format::R32Uint,
            "r32i" => Format::R32Sint,
            "r32f" => Format::R32Float,
            "rg32ui" => Format::Rg32Uint,
            "rg32i" => Format::Rg32Sint,
            "rg32f" => Format::Rg32Float,
            "rgba32f" => Format::Rgba32Float,
            "rgba32ui" => Format::Rgba32Uint,
            "rgba32i" => Format::Rgba32Sint,
            "rgba16f" => Format::Rgba16Float,
            "rgba8" => Format::Rgba8Unorm,
            _ => return None,
        })
    }

    /// 32-bit words per texel.
    pub fn words_per_texel(self) -> usize {
        match self {
            Format::R32Uint | Format::R32Sint | Format::R32Float | Format::Rgba8Unorm => 1,
            Format::Rg32Uint | Format::Rg32Sint | Format::Rg32Float | Format::Rgba16Float => 2,
            Format::Rgba32Float | Format::Rgba32Uint | Format::Rgba32Sint => 4,
        }
    }

    /// What a channel holds.
    pub fn channel(self) -> Channel {
        match self {
            Format::R32Uint | Format::Rg32Uint | Format::Rgba32Uint => Channel::U32,
            Format::R32Sint | Format::Rg32Sint | Format::Rgba32Sint => Channel::I32,
            Format::R32Float | Format::Rg32Float | Format::Rgba32Float => Channel::F32,
            Format::Rgba16Float => Channel::F16,
            Format::Rgba8Unorm => Channel::Unorm8,
        }
    }
}

/// The kind of one channel of a [`Format`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Channel {
    /// 32-bit unsigned integer.
    U32,
    /// 32-bit signed integer.
    I32,
    /// 32-bit float.
    F32,
    /// 16-bit float.
    F16,
    /// 8-bit unsigned normalized.
    Unorm8,
}

/// The shape of an image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// 1D (`height` and `depth` 1).
    D1,
    /// 2D (`depth` 1).
    D2,
    /// 3D.
    D3,
    /// A cube: six square faces per cube (`layers` counts faces, a multiple of 6).
    Cube,
}

/// An image: `data` holds `width * height * depth * layers` texels (x fastest, then y, then
/// z, then the layer), each [`Format::words_per_texel`] words.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    /// Texel format.
    pub format: Format,
    /// Its shape.
    pub dim: Dim,
    /// An array image (`Texture2DArray`...): the view covers every layer.
    pub arrayed: bool,
    /// Width in texels.
    pub width: u32,
    /// Height in texels (1 for 1D).
    pub height: u32,
    /// Depth in texels (3D; 1 otherwise).
    pub depth: u32,
    /// Array layers (1 for a single image; faces for a cube).
    pub layers: u32,
    /// The texels.
    pub data: Vec<u32>,
}

impl Image {
    /// A 2D image of the given size holding `data`.
    pub fn new_2d(format: Format, width: u32, height: u32, data: Vec<u32>) -> Image {
        Image {
            format,
            dim: Dim::D2,
            arrayed: false,
            width,
            height,
            depth: 1,
            layers: 1,
            data,
        }
    }

    /// A 2D image of the given size filled with zeros.
    pub fn zeroed(format: Format, width: u32, height: u32) -> Image {
        let data = vec![0; (width * height) as usize * format.words_per_texel()];
        Image::new_2d(format, width, height, data)
    }

    /// How many texels it has.
    pub fn texels(&self) -> usize {
        (self.width * self.height * self.depth * self.layers) as usize
    }

    fn view_type(&self) -> vk::ImageViewType {
        match (self.dim, self.arrayed) {
            (Dim::D1, false) => vk::ImageViewType::TYPE_1D,
            (Dim::D1, true) => vk::ImageViewType::TYPE_1D_ARRAY,
            (Dim::D2, false) => vk::ImageViewType::TYPE_2D,
            (Dim::D2, true) => vk::ImageViewType::TYPE_2D_ARRAY,
            (Dim::D3, _) => vk::ImageViewType::TYPE_3D,
            (Dim::Cube, false) => vk::ImageViewType::CUBE,
            (Dim::Cube, true) => vk::ImageViewType::CUBE_ARRAY,
        }
    }
}

/// A texel buffer (`Buffer<T>`, `RWBuffer<T>`): `data` holds its texels, each
/// [`Format::words_per_texel`] words.
#[derive(Clone, Debug, PartialEq)]
pub struct TexelBuffer {
    /// Texel format.
    pub format: Format,
    /// The texels.
    pub data: Vec<u32>,
}

/// A sampler: nearest filtering, clamp to edge, normalized coordinates; a comparison
/// sampler compares with `LESS_OR_EQUAL`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sampler {
    /// A comparison sampler (`SamplerComparisonState`).
    pub compare: bool,
}

/// What a binding holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Resource {
    /// A storage buffer (`StructuredBuffer`, `RWByteAddressBuffer`...), read back after the
    /// dispatch.
    StorageBuffer(Vec<u32>),
    /// A uniform buffer (`cbuffer`), bytes as words.
    UniformBuffer(Vec<u32>),
    /// A storage image (`RWTexture2D`), read back after the dispatch.
    StorageImage(Image),
    /// A sampled image (`Texture2D`), read with `Load` or through a separate sampler.
    SampledImage(Image),
    /// A uniform texel buffer (`Buffer<T>`).
    UniformTexelBuffer(TexelBuffer),
    /// A storage texel buffer (`RWBuffer<T>`), read back after the dispatch.
    StorageTexelBuffer(TexelBuffer),
    /// A sampler (`SamplerState`, `SamplerComparisonState`).
    Sampler(Sampler),
    /// A combined image sampler (`vk::SampledTexture2D`; or a separate image and sampler
    /// variable at one binding, which Vulkan lets read such a descriptor).
    CombinedImageSampler(Image, Sampler),
}

/// A resource at a descriptor set and binding.
#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    /// Descriptor set.
    pub set: u32,
    /// Binding number.
    pub binding: u32,
    /// The element of the binding's descriptor array (0 for a binding of one descriptor);
    /// the bindings sharing a set and binding number make one array, as long as the largest
    /// element names.
    pub element: u32,
    /// The resource.
    pub resource: Resource,
}

impl Binding {
    /// A resource at (`set`, `binding`).
    pub fn new(set: u32, binding: u32, resource: Resource) -> Binding {
        Binding {
            set,
            binding,
            element: 0,
            resource,
        }
    }

    /// Element `element` of the descriptor array at (`set`, `binding`).
    pub fn element(set: u32, binding: u32, element: u32, resource: Resource) -> Binding {
        Binding {
            set,
            binding,
            element,
            resource,
        }
    }

    /// The words of a buffer, or the texels of an image or texel buffer (empty for a
    /// sampler).
    pub fn words(&self) -> &[u32] {
        match &self.resource {
            Resource::StorageBuffer(w) | Resource::UniformBuffer(w) => w,
            Resource::StorageImage(i)
            | Resource::SampledImage(i)
            | Resource::CombinedImageSampler(i, _) => &i.data,
            Resource::UniformTexelBuffer(t) | Resource::StorageTexelBuffer(t) => &t.data,
            Resource::Sampler(_) => &[],
        }
    }

    /// True for what the shader may write and the harness reads back: storage buffers,
    /// storage images, storage texel buffers.
    pub fn is_writable(&self) -> bool {
        matches!(
            self.resource,
            Resource::StorageBuffer(_)
                | Resource::StorageImage(_)
                | Resource::StorageTexelBuffer(_)
        )
    }

    fn words_mut(&mut self) -> Option<&mut Vec<u32>> {
        match &mut self.resource {
            Resource::StorageBuffer(w) => Some(w),
            Resource::StorageImage(i) => Some(&mut i.data),
            Resource::StorageTexelBuffer(t) => Some(&mut t.data),
            _ => None,
        }
    }

    fn descriptor_type(&self) -> vk::DescriptorType {
        match self.resource {
            Resource::StorageBuffer(_) => vk::DescriptorType::STORAGE_BUFFER,
            Resource::UniformBuffer(_) => vk::DescriptorType::UNIFORM_BUFFER,
            Resource::StorageImage(_) => vk::DescriptorType::STORAGE_IMAGE,
            Resource::SampledImage(_) => vk::DescriptorType::SAMPLED_IMAGE,
            Resource::UniformTexelBuffer(_) => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
            Resource::StorageTexelBuffer(_) => vk::DescriptorType::STORAGE_TEXEL_BUFFER,
            Resource::Sampler(_) => vk::DescriptorType::SAMPLER,
            Resource::CombinedImageSampler(..) => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
        }
    }
}

/// The descriptor sets of a dispatch or draw, their layouts and pool.
pub(crate) struct Descriptors {
    pub(crate) set_layouts: Vec<vk::DescriptorSetLayout>,
    pub(crate) pool: vk::DescriptorPool,
    pub(crate) sets: Vec<vk::DescriptorSet>,
}

/// Vulkan objects made for one binding.
pub(crate) struct Made {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    ptr: *mut u32,
    size: u64,
    image: Option<(vk::Image, vk::DeviceMemory, vk::ImageView)>,
    texel_view: Option<vk::BufferView>,
    sampler: Option<vk::Sampler>,
}

/// Why a dispatch failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HarnessError {
    /// A Vulkan call returned an error (pipeline creation refusing the shader, out of
    /// memory, a lost device...).
    Vulkan {
        /// The call.
        call: &'static str,
        /// What it returned.
        result: vk::Result,
    },
    /// The GPU did not finish within [`Gpu::set_timeout`]'s limit.
    Timeout,
    /// The bindings do not describe what can be made (an image whose data has the wrong
    /// size, no memory type of the kind needed).
    Input(String),
}

impl std::fmt::Display for HarnessError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HarnessError::Vulkan { call, result } => {
                write!(f, "{call} failed on lavapipe: {result}")
            }
            HarnessError::Timeout => f.write_str("the dispatch did not finish in time"),
            HarnessError::Input(what) => f.write_str(what),
        }
    }
}

impl std::error::Error for HarnessError {}

fn check<T>(r: ash::prelude::VkResult<T>, call: &'static str) -> Result<T, HarnessError> {
    r.map_err(|result| HarnessError::Vulkan { call, result })
}

impl Default for Gpu {
    /// [`Gpu::new`].
    fn default() -> Gpu {
        Gpu::new()
    }
}

impl Gpu {
    /// Creates the instance and device; panics with a message naming `cargo xtask setup` when
    /// the loader or lavapipe is missing.
    pub fn new() -> Gpu {
        Gpu::try_new().unwrap_or_else(|e| panic!("{e}"))
    }

    /// Creates the instance and device, or says (naming `cargo xtask setup`) why not.
    pub fn try_new() -> Result<Gpu, String> {
        // SAFETY: loading the system Vulkan loader runs its initialization code; it is the
        // documented way to use ash's `loaded` feature.
        let entry = unsafe { ash::Entry::load() }
            .map_err(|e| format!("cannot load the Vulkan loader libvulkan.so.1 ({e}): {SETUP}"))?;
        let app_name = CString::new("oneshader-tests").expect("no nul in a literal");
        let app = vk::ApplicationInfo::default()
            .application_name(&app_name)
            .api_version(vk::make_api_version(0, 1, 3, 0));
        let info = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: `info` and what it points to live across the call.
        let instance = unsafe { entry.create_instance(&info, None) }
            .map_err(|e| format!("vkCreateInstance failed ({e}): {SETUP}"))?;
        // SAFETY: the instance is valid.
        let devices = unsafe { instance.enumerate_physical_devices() }
            .map_err(|e| format!("no Vulkan devices ({e}): {SETUP}"))?;
        let mut chosen = None;
        for pd in devices {
            // SAFETY: `pd` comes from this instance.
            let props = unsafe { instance.get_physical_device_properties(pd) };
            let name = props
                .device_name_as_c_str()
                .map(|c| c.to_string_lossy().to_string())
                .unwrap_or_default();
            if props.device_type == vk::PhysicalDeviceType::CPU || name.contains("llvmpipe") {
                chosen = Some((pd, name));
                break;
            }
        }
        let Some((pd, name)) = chosen else {
            // SAFETY: nothing was created from the instance.
            unsafe { instance.destroy_instance(None) };
            return Err(format!("lavapipe (llvmpipe) is not available: {SETUP}"));
        };
        // SAFETY: `pd` is valid.
        let families = unsafe { instance.get_physical_device_queue_family_properties(pd) };
        let family = families
            .iter()
            .position(|f| {
                f.queue_flags
                    .contains(vk::QueueFlags::COMPUTE | vk::QueueFlags::GRAPHICS)
            })
            .ok_or_else(|| format!("lavapipe has no graphics and compute queue: {SETUP}"))?
            as u32;
        let prio = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&prio)];
        // Every feature the device has is enabled (shaders compiled for any target
        // environment, with 16- and 64-bit types, run), and so is VK_EXT_robustness2 when
        // the device offers it: a buffer access out of bounds then reads zero and writes
        // nothing, and an image access out of bounds reads zero, the same for every program
        // that makes the same access (the differential oracle compares programs on random
        // data, whose indices may stray).
        // SAFETY: `pd` is valid.
        let extensions = unsafe { instance.enumerate_device_extension_properties(pd) }
            .map_err(|e| format!("vkEnumerateDeviceExtensionProperties failed ({e}): {SETUP}"))?;
        let robustness2 = extensions
            .iter()
            .any(|x| x.extension_name_as_c_str() == Ok(ash::ext::robustness2::NAME));
        let mut f11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut rob2 = vk::PhysicalDeviceRobustness2FeaturesEXT::default();
        let mut features = vk::PhysicalDeviceFeatures2::default()
            .push_next(&mut f11)
            .push_next(&mut f12)
            .push_next(&mut f13);
        if robustness2 {
            features = features.push_next(&mut rob2);
        }
        // SAFETY: `pd` is valid and the chain holds structures this API version knows.
        unsafe { instance.get_physical_device_features2(pd, &mut features) };
        let ext_names = [ash::ext::robustness2::NAME.as_ptr()];
        let mut dinfo = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .push_next(&mut features);
        if robustness2 {
            dinfo = dinfo.enabled_extension_names(&ext_names);
        }
        // SAFETY: the create info is valid for the call.
        let device = unsafe { instance.create_device(pd, &dinfo, None) }
            .map_err(|e| format!("vkCreateDevice failed on lavapipe ({e}): {SETUP}"))?;
        // SAFETY: family/index exist (one queue was requested).
        let queue = unsafe { device.get_device_queue(family, 0) };
        // SAFETY: `pd` is valid.
        let memory = unsafe { instance.get_physical_device_memory_properties(pd) };
        Ok(Gpu {
            _entry: entry,
            instance,
            device,
            queue,
            family,
            memory,
            name,
            robust: robustness2,
            timeout_ns: u64::MAX,
        })
    }

    fn memory_type(&self, bits: u32, want: vk::MemoryPropertyFlags) -> Result<u32, HarnessError> {
        (0..self.memory.memory_type_count)
            .find(|&i| {
                bits & (1 << i) != 0
                    && self.memory.memory_types[i as usize]
                        .property_flags
                        .contains(want)
            })
            .ok_or_else(|| {
                HarnessError::Input(format!("no memory type with {want:?} on {}", self.name))
            })
    }

    /// Limits how long [`Gpu::try_dispatch`] waits for the GPU (default: forever); past it
    /// the dispatch fails with [`HarnessError::Timeout`], and the `Gpu` should not be used
    /// again (the work may still be running). For runs of arbitrary shaders by hand, never
    /// for a test's verdict.
    pub fn set_timeout(&mut self, timeout: std::time::Duration) {
        self.timeout_ns = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
    }

    /// Runs `entry` of the SPIR-V module `words` with `groups` workgroups; `buffers[i]` is the
    /// storage buffer at set 0, binding i, copied in before and read back after.
    pub fn run(&self, words: &[u32], entry: &str, buffers: &mut [Vec<u32>], groups: [u32; 3]) {
        let mut bindings: Vec<Binding> = buffers
            .iter_mut()
            .enumerate()
            .map(|(i, b)| Binding::new(0, i as u32, Resource::StorageBuffer(std::mem::take(b))))
            .collect();
        self.dispatch(words, entry, &mut bindings, &[], groups);
        for (b, binding) in buffers.iter_mut().zip(bindings) {
            if let Resource::StorageBuffer(w) = binding.resource {
                *b = w;
            }
        }
    }

    /// Runs `entry` of `words` with `groups` workgroups, the resources of `bindings` bound at
    /// their sets and bindings and `push_constants` (words) pushed at offset 0. Storage buffers
    /// and storage images are read back into `bindings`. Panics with the message of
    /// [`Gpu::try_dispatch`]'s error.
    pub fn dispatch(
        &self,
        words: &[u32],
        entry: &str,
        bindings: &mut [Binding],
        push_constants: &[u32],
        groups: [u32; 3],
    ) {
        if let Err(e) = self.try_dispatch(words, entry, bindings, push_constants, groups) {
            panic!("{e}");
        }
    }

    /// [`Gpu::dispatch`], returning what failed instead of panicking. After an error the
    /// Vulkan objects made for this dispatch are not destroyed (test code treats an error as
    /// the end of the run).
    pub fn try_dispatch(
        &self,
        words: &[u32],
        entry: &str,
        bindings: &mut [Binding],
        push_constants: &[u32],
        groups: [u32; 3],
    ) -> Result<(), HarnessError> {
        let d = &self.device;
        // SAFETY: every Vulkan object below is created from `d`, used while alive, and
        // destroyed after the fence signals; mapped pointers cover exactly the allocation,
        // which holds at least `words().len()` words.
        unsafe {
            let made = self.make_bindings(bindings)?;
            let desc = self.make_descriptors(bindings, &made, vk::ShaderStageFlags::COMPUTE)?;
            let set_layouts = &desc.set_layouts;
            let sets = &desc.sets;
            let ranges = [vk::PushConstantRange::default()
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
                .offset(0)
                .size((push_constants.len() * 4) as u32)];
            let mut pl_info = vk::PipelineLayoutCreateInfo::default().set_layouts(set_layouts);
            if !push_constants.is_empty() {
                pl_info = pl_info.push_constant_ranges(&ranges);
            }
            let pipeline_layout = check(
                d.create_pipeline_layout(&pl_info, None),
                "vkCreatePipelineLayout",
            )?;
            let module = check(
                d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(words), None),
                "vkCreateShaderModule",
            )?;
            let name = CString::new(entry).map_err(|_| {
                HarnessError::Input(format!("entry point name {entry:?} has a nul"))
            })?;
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(module)
                .name(&name);
            let pinfo = [vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(pipeline_layout)];
            let pipeline = check(
                d.create_compute_pipelines(vk::PipelineCache::null(), &pinfo, None)
                    .map_err(|(_, e)| e),
                "vkCreateComputePipelines",
            )?[0];
            let cpool = check(
                d.create_command_pool(
                    &vk::CommandPoolCreateInfo::default().queue_family_index(self.family),
                    None,
                ),
                "vkCreateCommandPool",
            )?;
            let cmd = check(
                d.allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(cpool)
                        .level(vk::CommandBufferLevel::PRIMARY)
                        .command_buffer_count(1),
                ),
                "vkAllocateCommandBuffers",
            )?[0];
            check(
                d.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default()),
                "vkBeginCommandBuffer",
            )?;
            self.record_uploads(cmd, &made, bindings);
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipeline);
            d.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::COMPUTE,
                pipeline_layout,
                0,
                sets,
                &[],
            );
            if !push_constants.is_empty() {
                let bytes: Vec<u8> = push_constants
                    .iter()
                    .flat_map(|w| w.to_le_bytes())
                    .collect();
                d.cmd_push_constants(
                    cmd,
                    pipeline_layout,
                    vk::ShaderStageFlags::COMPUTE,
                    0,
                    &bytes,
                );
            }
            d.cmd_dispatch(cmd, groups[0], groups[1], groups[2]);
            self.record_downloads(cmd, &made, bindings);
            // Shader and transfer writes become visible to the host.
            let to_host = [vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ)];
            d.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &to_host,
                &[],
                &[],
            );
            check(d.end_command_buffer(cmd), "vkEndCommandBuffer")?;
            let fence = check(
                d.create_fence(&vk::FenceCreateInfo::default(), None),
                "vkCreateFence",
            )?;
            let cmds = [cmd];
            let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
            check(d.queue_submit(self.queue, &submit, fence), "vkQueueSubmit")?;
            match d.wait_for_fences(&[fence], true, self.timeout_ns) {
                Ok(()) => {}
                Err(vk::Result::TIMEOUT) => return Err(HarnessError::Timeout),
                Err(result) => {
                    return Err(HarnessError::Vulkan {
                        call: "vkWaitForFences",
                        result,
                    });
                }
            }
            Self::read_back(bindings, &made);
            d.destroy_fence(fence, None);
            d.destroy_command_pool(cpool, None);
            d.destroy_pipeline(pipeline, None);
            d.destroy_shader_module(module, None);
            d.destroy_pipeline_layout(pipeline_layout, None);
            self.destroy_descriptors(desc);
            self.destroy_bindings(made);
        }
        Ok(())
    }

    /// Makes the buffers, images, texel views and samplers of `bindings` (host-visible
    /// buffers holding their data; images are filled by [`Gpu::record_uploads`]).
    pub(crate) fn make_bindings(&self, bindings: &[Binding]) -> Result<Vec<Made>, HarnessError> {
        let d = &self.device;
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        // SAFETY: every object is created from `d`; the mapped pointer covers the allocation,
        // which holds at least `words().len()` words.
        unsafe {
            let mut made = Vec::new();
            for b in bindings.iter() {
                let data = b.words();
                let size = (data.len().max(1) * 4) as u64;
                let usage = match b.resource {
                    Resource::StorageBuffer(_) => vk::BufferUsageFlags::STORAGE_BUFFER,
                    Resource::UniformBuffer(_) => vk::BufferUsageFlags::UNIFORM_BUFFER,
                    Resource::UniformTexelBuffer(_) => vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER,
                    Resource::StorageTexelBuffer(_) => vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER,
                    _ => vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST,
                };
                let binfo = vk::BufferCreateInfo::default()
                    .size(size)
                    .usage(usage)
                    .sharing_mode(vk::SharingMode::EXCLUSIVE);
                let buffer = check(d.create_buffer(&binfo, None), "vkCreateBuffer")?;
                let req = d.get_buffer_memory_requirements(buffer);
                let ainfo = vk::MemoryAllocateInfo::default()
                    .allocation_size(req.size)
                    .memory_type_index(self.memory_type(req.memory_type_bits, host)?);
                let memory = check(d.allocate_memory(&ainfo, None), "vkAllocateMemory")?;
                check(
                    d.bind_buffer_memory(buffer, memory, 0),
                    "vkBindBufferMemory",
                )?;
                let ptr = check(
                    d.map_memory(memory, 0, size, vk::MemoryMapFlags::empty()),
                    "vkMapMemory",
                )? as *mut u32;
                std::ptr::copy_nonoverlapping(data.as_ptr(), ptr, data.len());
                let image = match &b.resource {
                    Resource::StorageImage(i)
                    | Resource::SampledImage(i)
                    | Resource::CombinedImageSampler(i, _) => {
                        if i.data.len() != i.texels() * i.format.words_per_texel() {
                            return Err(HarnessError::Input(format!(
                                "binding ({}, {}): {} words of image data for {} texels of {:?}",
                                b.set,
                                b.binding,
                                i.data.len(),
                                i.texels(),
                                i.format
                            )));
                        }
                        Some(self.make_image(i)?)
                    }
                    _ => None,
                };
                let texel_view = match &b.resource {
                    Resource::UniformTexelBuffer(t) | Resource::StorageTexelBuffer(t) => {
                        Some(check(
                            d.create_buffer_view(
                                &vk::BufferViewCreateInfo::default()
                                    .buffer(buffer)
                                    .format(t.format.vk())
                                    .offset(0)
                                    .range(vk::WHOLE_SIZE),
                                None,
                            ),
                            "vkCreateBufferView",
                        )?)
                    }
                    _ => None,
                };
                let sampler = match &b.resource {
                    Resource::Sampler(s) | Resource::CombinedImageSampler(_, s) => {
                        let info = vk::SamplerCreateInfo::default()
                            .mag_filter(vk::Filter::NEAREST)
                            .min_filter(vk::Filter::NEAREST)
                            .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
                            .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                            .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                            .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                            .compare_enable(s.compare)
                            .compare_op(vk::CompareOp::LESS_OR_EQUAL)
                            .max_lod(0.0);
                        Some(check(d.create_sampler(&info, None), "vkCreateSampler")?)
                    }
                    _ => None,
                };
                made.push(Made {
                    buffer,
                    memory,
                    ptr,
                    size,
                    image,
                    texel_view,
                    sampler,
                });
            }

            Ok(made)
        }
    }

    /// The descriptor set layouts (one per set number up to the largest used), a pool and
    /// the sets of `bindings`, written with `made`'s objects, visible to `stages`.
    pub(crate) fn make_descriptors(
        &self,
        bindings: &[Binding],
        made: &[Made],
        stages: vk::ShaderStageFlags,
    ) -> Result<Descriptors, HarnessError> {
        let d = &self.device;
        // SAFETY: every object is created from `d`; the infos live across the calls.
        unsafe {
            // One set layout per set number up to the largest used (empty ones in between).
            let max_set = bindings.iter().map(|b| b.set).max().unwrap_or(0);
            let mut set_layouts = Vec::new();
            for set in 0..=max_set {
                // One layout entry per binding number, as many descriptors as its elements.
                let mut lb: Vec<vk::DescriptorSetLayoutBinding> = Vec::new();
                for b in bindings.iter().filter(|b| b.set == set) {
                    match lb.iter_mut().find(|l| l.binding == b.binding) {
                        Some(l) => l.descriptor_count = l.descriptor_count.max(b.element + 1),
                        None => lb.push(
                            vk::DescriptorSetLayoutBinding::default()
                                .binding(b.binding)
                                .descriptor_type(b.descriptor_type())
                                .descriptor_count(b.element + 1)
                                .stage_flags(stages),
                        ),
                    }
                }
                set_layouts.push(check(
                    d.create_descriptor_set_layout(
                        &vk::DescriptorSetLayoutCreateInfo::default().bindings(&lb),
                        None,
                    ),
                    "vkCreateDescriptorSetLayout",
                )?);
            }
            let types = [
                vk::DescriptorType::STORAGE_BUFFER,
                vk::DescriptorType::UNIFORM_BUFFER,
                vk::DescriptorType::STORAGE_IMAGE,
                vk::DescriptorType::SAMPLED_IMAGE,
                vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
                vk::DescriptorType::STORAGE_TEXEL_BUFFER,
                vk::DescriptorType::SAMPLER,
                vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            ];
            let sizes: Vec<vk::DescriptorPoolSize> = types
                .iter()
                .map(|&t| {
                    vk::DescriptorPoolSize::default()
                        .ty(t)
                        .descriptor_count(bindings.len().max(1) as u32)
                })
                .collect();
            let pool = check(
                d.create_descriptor_pool(
                    &vk::DescriptorPoolCreateInfo::default()
                        .max_sets(set_layouts.len() as u32)
                        .pool_sizes(&sizes),
                    None,
                ),
                "vkCreateDescriptorPool",
            )?;
            let sets = check(
                d.allocate_descriptor_sets(
                    &vk::DescriptorSetAllocateInfo::default()
                        .descriptor_pool(pool)
                        .set_layouts(&set_layouts),
                ),
                "vkAllocateDescriptorSets",
            )?;
            let buffer_infos: Vec<[vk::DescriptorBufferInfo; 1]> = made
                .iter()
                .map(|m| {
                    [vk::DescriptorBufferInfo::default()
                        .buffer(m.buffer)
                        .offset(0)
                        .range(m.size)]
                })
                .collect();
            let image_infos: Vec<[vk::DescriptorImageInfo; 1]> = made
                .iter()
                .zip(bindings.iter())
                .map(|(m, b)| {
                    let layout = match b.resource {
                        Resource::SampledImage(_) | Resource::CombinedImageSampler(..) => {
                            vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL
                        }
                        _ => vk::ImageLayout::GENERAL,
                    };
                    [vk::DescriptorImageInfo::default()
                        .image_view(m.image.map(|i| i.2).unwrap_or_default())
                        .sampler(m.sampler.unwrap_or_default())
                        .image_layout(layout)]
                })
                .collect();
            let texel_views: Vec<[vk::BufferView; 1]> = made
                .iter()
                .map(|m| [m.texel_view.unwrap_or_default()])
                .collect();
            let writes: Vec<vk::WriteDescriptorSet> = bindings
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    let w = vk::WriteDescriptorSet::default()
                        .dst_set(sets[b.set as usize])
                        .dst_binding(b.binding)
                        .dst_array_element(b.element)
                        .descriptor_type(b.descriptor_type());
                    match b.resource {
                        Resource::StorageBuffer(_) | Resource::UniformBuffer(_) => {
                            w.buffer_info(&buffer_infos[i])
                        }
                        Resource::UniformTexelBuffer(_) | Resource::StorageTexelBuffer(_) => {
                            w.texel_buffer_view(&texel_views[i])
                        }
                        _ => w.image_info(&image_infos[i]),
                    }
                })
                .collect();
            d.update_descriptor_sets(&writes, &[]);

            Ok(Descriptors {
                set_layouts,
                pool,
                sets,
            })
        }
    }

    /// Records the upload of every image's data (staging buffer -> image) and its
    /// transition into the layout the shader uses.
    ///
    /// # Safety
    /// `cmd` must be recording; `made` are `bindings`' objects.
    pub(crate) unsafe fn record_uploads(
        &self,
        cmd: vk::CommandBuffer,
        made: &[Made],
        bindings: &[Binding],
    ) {
        let d = &self.device;
        // SAFETY: the caller's guarantees.
        unsafe {
            // Upload images: staging buffer -> image, then into the layout the shader uses.
            for (m, b) in made.iter().zip(bindings.iter()) {
                let (
                    Some((image, _, _)),
                    Resource::StorageImage(i)
                    | Resource::SampledImage(i)
                    | Resource::CombinedImageSampler(i, _),
                ) = (m.image, &b.resource)
                else {
                    continue;
                };
                let final_layout = match b.resource {
                    Resource::SampledImage(_) | Resource::CombinedImageSampler(..) => {
                        vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL
                    }
                    _ => vk::ImageLayout::GENERAL,
                };
                self.transition(
                    cmd,
                    image,
                    vk::ImageLayout::UNDEFINED,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    vk::AccessFlags::empty(),
                    vk::AccessFlags::TRANSFER_WRITE,
                );
                d.cmd_copy_buffer_to_image(
                    cmd,
                    m.buffer,
                    image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &[copy_region(i)],
                );
                self.transition(
                    cmd,
                    image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    final_layout,
                    vk::AccessFlags::TRANSFER_WRITE,
                    vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
                );
            }
        }
    }

    /// Records the download of every storage image into its staging buffer.
    ///
    /// # Safety
    /// `cmd` must be recording; `made` are `bindings`' objects.
    pub(crate) unsafe fn record_downloads(
        &self,
        cmd: vk::CommandBuffer,
        made: &[Made],
        bindings: &[Binding],
    ) {
        let d = &self.device;
        // SAFETY: the caller's guarantees.
        unsafe {
            // Download storage images into their staging buffers.
            for (m, b) in made.iter().zip(bindings.iter()) {
                let (Some((image, _, _)), Resource::StorageImage(i)) = (m.image, &b.resource)
                else {
                    continue;
                };
                self.transition(
                    cmd,
                    image,
                    vk::ImageLayout::GENERAL,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    vk::AccessFlags::SHADER_WRITE,
                    vk::AccessFlags::TRANSFER_READ,
                );
                d.cmd_copy_image_to_buffer(
                    cmd,
                    image,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    m.buffer,
                    &[copy_region(i)],
                );
            }
        }
    }

    /// Copies what the GPU wrote (storage buffers, images, texel buffers) back into
    /// `bindings`.
    ///
    /// # Safety
    /// The GPU work is finished; `made` are `bindings`' objects, still mapped.
    pub(crate) unsafe fn read_back(bindings: &mut [Binding], made: &[Made]) {
        for (b, m) in bindings.iter_mut().zip(made) {
            if let Some(data) = b.words_mut() {
                // SAFETY: the mapping holds at least `data.len()` words.
                unsafe { std::ptr::copy_nonoverlapping(m.ptr, data.as_mut_ptr(), data.len()) };
            }
        }
    }

    /// Destroys what [`Gpu::make_descriptors`] made.
    ///
    /// # Safety
    /// No work using them is pending.
    pub(crate) unsafe fn destroy_descriptors(&self, desc: Descriptors) {
        let d = &self.device;
        // SAFETY: the caller's guarantee.
        unsafe {
            d.destroy_descriptor_pool(desc.pool, None);
            for l in desc.set_layouts {
                d.destroy_descriptor_set_layout(l, None);
            }
        }
    }

    /// Destroys what [`Gpu::make_bindings`] made.
    ///
    /// # Safety
    /// No work using them is pending.
    pub(crate) unsafe fn destroy_bindings(&self, made: Vec<Made>) {
        let d = &self.device;
        // SAFETY: the caller's guarantee.
        unsafe {
            for m in made {
                if let Some((image, memory, view)) = m.image {
                    d.destroy_image_view(view, None);
                    d.destroy_image(image, None);
                    d.free_memory(memory, None);
                }
                if let Some(v) = m.texel_view {
                    d.destroy_buffer_view(v, None);
                }
                if let Some(s) = m.sampler {
                    d.destroy_sampler(s, None);
                }
                d.unmap_memory(m.memory);
                d.destroy_buffer(m.buffer, None);
                d.free_memory(m.memory, None);
            }
        }
    }

    /// A device image for `i` with its memory and view; the caller destroys them.
    fn make_image(
        &self,
        i: &Image,
    ) -> Result<(vk::Image, vk::DeviceMemory, vk::ImageView), HarnessError> {
        let d = &self.device;
        let image_type = match i.dim {
            Dim::D1 => vk::ImageType::TYPE_1D,
            Dim::D2 | Dim::Cube => vk::ImageType::TYPE_2D,
            Dim::D3 => vk::ImageType::TYPE_3D,
        };
        let flags = if i.dim == Dim::Cube {
            vk::ImageCreateFlags::CUBE_COMPATIBLE
        } else {
            vk::ImageCreateFlags::empty()
        };
        let info = vk::ImageCreateInfo::default()
            .flags(flags)
            .image_type(image_type)
            .format(i.format.vk())
            .extent(vk::Extent3D {
                width: i.width,
                height: i.height,
                depth: i.depth,
            })
            .mip_levels(1)
            .array_layers(i.layers)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(
                vk::ImageUsageFlags::STORAGE
                    | vk::ImageUsageFlags::SAMPLED
                    | vk::ImageUsageFlags::TRANSFER_SRC
                    | vk::ImageUsageFlags::TRANSFER_DST,
            )
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY: (whole function) the create infos are valid for each call and the objects
        // come from `d`.
        unsafe {
            let image = check(d.create_image(&info, None), "vkCreateImage")?;
            let req = d.get_image_memory_requirements(image);
            let ainfo = vk::MemoryAllocateInfo::default()
                .allocation_size(req.size)
                .memory_type_index(
                    self.memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::empty())?,
                );
            let memory = check(d.allocate_memory(&ainfo, None), "vkAllocateMemory")?;
            check(d.bind_image_memory(image, memory, 0), "vkBindImageMemory")?;
            let view = check(
                d.create_image_view(
                    &vk::ImageViewCreateInfo::default()
                        .image(image)
                        .view_type(i.view_type())
                        .format(i.format.vk())
                        .subresource_range(color_range(i.layers)),
                    None,
                ),
                "vkCreateImageView",
            )?;
            Ok((image, memory, view))
        }
    }

    /// Records a layout transition of a whole color image.
    ///
    /// # Safety
    /// `cmd` must be recording and `image` valid.
    unsafe fn transition(
        &self,
        cmd: vk::CommandBuffer,
        image: vk::Image,
        from: vk::ImageLayout,
        to: vk::ImageLayout,
        src: vk::AccessFlags,
        dst: vk::AccessFlags,
    ) {
        let barrier = [vk::ImageMemoryBarrier::default()
            .old_layout(from)
            .new_layout(to)
            .src_access_mask(src)
            .dst_access_mask(dst)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(image)
            .subresource_range(color_range(vk::REMAINING_ARRAY_LAYERS))];
        // SAFETY: the caller guarantees `cmd` records and `image` lives.
        unsafe {
            self.device.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &barrier,
            );
        }
    }
}

fn color_range(layers: u32) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: 0,
        layer_count: layers,
    }
}

fn copy_region(i: &Image) -> vk::BufferImageCopy {
    vk::BufferImageCopy::default()
        .buffer_offset(0)
        .image_subresource(vk::ImageSubresourceLayers {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            mip_level: 0,
            base_array_layer: 0,
            layer_count: i.layers,
        })
        .image_extent(vk::Extent3D {
            width: i.width,
            height: i.height,
            depth: i.depth,
        })
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // SAFETY: nothing created from the device or instance outlives them (`dispatch`
        // destroys its objects before returning).
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}
