//! Graphics pipelines: one draw into offscreen color attachments, read back afterwards.
//!
//! [`Gpu::draw`] builds a pipeline of the given stages (vertex and fragment, optionally
//! tessellation control and evaluation, optionally geometry), binds vertex buffers (per
//! vertex or per instance), an optional `u32` index buffer, the same [`Binding`]s as a
//! dispatch (uniform and storage buffers, images, texel buffers, samplers, visible to every
//! stage) and push constants, renders one draw call into the color attachments with dynamic
//! rendering (Vulkan 1.3), and returns their texels. The rasterizer state is fixed and
//! plain: filled polygons, no culling, counter-clockwise front faces, one sample, no depth
//! or stencil, no blending; the viewport covers the attachments with Vulkan's usual
//! orientation (pixel (0, 0) is the top left, y grows downward, NDC y = -1 is the top row).

use std::ffi::CString;

use ash::vk;

use super::{Binding, Dim, Format, Gpu, HarnessError, Image, check, color_range, copy_region};

/// A pipeline stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShaderKind {
    /// Vertex shader.
    Vertex,
    /// Tessellation control (HLSL hull) shader.
    TessControl,
    /// Tessellation evaluation (HLSL domain) shader.
    TessEval,
    /// Geometry shader.
    Geometry,
    /// Fragment (pixel) shader.
    Fragment,
}

impl ShaderKind {
    fn vk(self) -> vk::ShaderStageFlags {
        match self {
            ShaderKind::Vertex => vk::ShaderStageFlags::VERTEX,
            ShaderKind::TessControl => vk::ShaderStageFlags::TESSELLATION_CONTROL,
            ShaderKind::TessEval => vk::ShaderStageFlags::TESSELLATION_EVALUATION,
            ShaderKind::Geometry => vk::ShaderStageFlags::GEOMETRY,
            ShaderKind::Fragment => vk::ShaderStageFlags::FRAGMENT,
        }
    }
}

/// One shader of a pipeline: its SPIR-V words and entry point.
#[derive(Clone, Debug, PartialEq)]
pub struct Shader {
    /// The stage it runs in.
    pub kind: ShaderKind,
    /// The module.
    pub words: Vec<u32>,
    /// The entry point's name.
    pub entry: String,
}

impl Shader {
    /// A shader of `kind` running `entry` of `words`.
    pub fn new(kind: ShaderKind, words: Vec<u32>, entry: &str) -> Shader {
        Shader {
            kind,
            words,
            entry: entry.to_string(),
        }
    }
}

/// The format of a vertex attribute: 32-bit floats, unsigned or signed integers, one to
/// four of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VertexFormat {
    /// `float`..`float4` of `n` components.
    Float(u32),
    /// `uint`..`uint4`.
    Uint(u32),
    /// `int`..`int4`.
    Sint(u32),
}

impl VertexFormat {
    fn vk(self) -> Option<vk::Format> {
        use vk::Format as F;
        Some(match self {
            VertexFormat::Float(1) => F::R32_SFLOAT,
            VertexFormat::Float(2) => F::R32G32_SFLOAT,
            VertexFormat::Float(3) => F::R32G32B32_SFLOAT,
            VertexFormat::Float(4) => F::R32G32B32A32_SFLOAT,
            VertexFormat::Uint(1) => F::R32_UINT,
            VertexFormat::Uint(2) => F::R32G32_UINT,
            VertexFormat::Uint(3) => F::R32G32B32_UINT,
            VertexFormat::Uint(4) => F::R32G32B32A32_UINT,
            VertexFormat::Sint(1) => F::R32_SINT,
            VertexFormat::Sint(2) => F::R32G32_SINT,
            VertexFormat::Sint(3) => F::R32G32B32_SINT,
            VertexFormat::Sint(4) => F::R32G32B32A32_SINT,
            _ => return None,
        })
    }
}

/// A vertex attribute: the shader input at `location`, read at `offset` bytes into each
/// element of its buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VertexAttribute {
    /// The input location.
    pub location: u32,
    /// Its format.
    pub format: VertexFormat,
    /// Byte offset in an element.
    pub offset: u32,
}

/// A vertex buffer: elements of `stride` bytes (words of `data`), stepped per vertex or
/// per instance.
#[derive(Clone, Debug, PartialEq)]
pub struct VertexBuffer {
    /// The contents.
    pub data: Vec<u32>,
    /// Bytes per element.
    pub stride: u32,
    /// Advanced once per instance instead of once per vertex.
    pub per_instance: bool,
    /// The attributes read from it.
    pub attributes: Vec<VertexAttribute>,
}

impl VertexBuffer {
    /// A per-vertex buffer of `floats`-float elements, read as one attribute at `location`.
    pub fn floats(location: u32, floats: u32, data: &[f32]) -> VertexBuffer {
        VertexBuffer {
            data: data.iter().map(|f| f.to_bits()).collect(),
            stride: floats * 4,
            per_instance: false,
            attributes: vec![VertexAttribute {
                location,
                format: VertexFormat::Float(floats),
                offset: 0,
            }],
        }
    }
}

/// How vertices make primitives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Topology {
    /// Points.
    PointList,
    /// Separate lines.
    LineList,
    /// A line strip.
    LineStrip,
    /// Separate triangles.
    TriangleList,
    /// A triangle strip.
    TriangleStrip,
    /// Patches of `n` control points (tessellation).
    PatchList(u32),
}

impl Topology {
    fn vk(self) -> vk::PrimitiveTopology {
        match self {
            Topology::PointList => vk::PrimitiveTopology::POINT_LIST,
            Topology::LineList => vk::PrimitiveTopology::LINE_LIST,
            Topology::LineStrip => vk::PrimitiveTopology::LINE_STRIP,
            Topology::TriangleList => vk::PrimitiveTopology::TRIANGLE_LIST,
            Topology::TriangleStrip => vk::PrimitiveTopology::TRIANGLE_STRIP,
            Topology::PatchList(_) => vk::PrimitiveTopology::PATCH_LIST,
        }
    }
}

/// A color attachment: its format and the texel it is cleared to (as words: the bits of
/// the clear color in the attachment's channel type).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    /// The format.
    pub format: Format,
    /// The clear color's four channels, as bits.
    pub clear: [u32; 4],
}

impl Target {
    /// A float attachment (`Rgba32Float`) cleared to `c`.
    pub fn rgba32f(c: [f32; 4]) -> Target {
        Target {
            format: Format::Rgba32Float,
            clear: c.map(f32::to_bits),
        }
    }

    /// An attachment of `format` cleared to zero.
    pub fn zeroed(format: Format) -> Target {
        Target {
            format,
            clear: [0; 4],
        }
    }
}

/// One draw call and everything it needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Draw {
    /// The stages (a vertex and a fragment shader at least).
    pub shaders: Vec<Shader>,
    /// Vertex buffers, bound at bindings 0, 1, ...
    pub vertex_buffers: Vec<VertexBuffer>,
    /// `u32` indices: an indexed draw of `count` indices.
    pub indices: Option<Vec<u32>>,
    /// The primitive topology.
    pub topology: Topology,
    /// Vertices (or indices) drawn.
    pub count: u32,
    /// Instances drawn.
    pub instances: u32,
    /// Width of the attachments in pixels.
    pub width: u32,
    /// Height of the attachments in pixels.
    pub height: u32,
    /// The color attachments, locations 0, 1, ...
    pub targets: Vec<Target>,
    /// Descriptor bindings (buffers read back after the draw, as in a dispatch).
    pub bindings: Vec<Binding>,
    /// Push constants (words at offset 0), visible to every stage.
    pub push_constants: Vec<u32>,
}

impl Draw {
    /// A draw of `count` vertices as a triangle list into one `Rgba32Float` attachment of
    /// `width` x `height` cleared to zero, with no buffers or bindings.
    pub fn new(shaders: Vec<Shader>, count: u32, width: u32, height: u32) -> Draw {
        Draw {
            shaders,
            vertex_buffers: Vec::new(),
            indices: None,
            topology: Topology::TriangleList,
            count,
            instances: 1,
            width,
            height,
            targets: vec![Target::rgba32f([0.0; 4])],
            bindings: Vec::new(),
            push_constants: Vec::new(),
        }
    }
}

/// A host-visible buffer holding `data`.
struct HostBuffer {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    ptr: *mut u32,
}

impl Gpu {
    /// Runs `draw` and returns the texels of its color attachments; panics with the error's
    /// message (see [`Gpu::try_draw`]).
    pub fn draw(&self, draw: &mut Draw) -> Vec<Image> {
        match self.try_draw(draw) {
            Ok(images) => images,
            Err(e) => panic!("{e}"),
        }
    }

    fn host_buffer(
        &self,
        data: &[u32],
        usage: vk::BufferUsageFlags,
    ) -> Result<HostBuffer, HarnessError> {
        let d = &self.device;
        let size = (data.len().max(1) * 4) as u64;
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        // SAFETY: the objects are created from `d`; the mapping covers `size` bytes, at least
        // `data.len()` words.
        unsafe {
            let buffer = check(
                d.create_buffer(
                    &vk::BufferCreateInfo::default()
                        .size(size)
                        .usage(usage)
                        .sharing_mode(vk::SharingMode::EXCLUSIVE),
                    None,
                ),
                "vkCreateBuffer",
            )?;
            let req = d.get_buffer_memory_requirements(buffer);
            let memory = check(
                d.allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(req.size)
                        .memory_type_index(self.memory_type(req.memory_type_bits, host)?),
                    None,
                ),
                "vkAllocateMemory",
            )?;
            check(
                d.bind_buffer_memory(buffer, memory, 0),
                "vkBindBufferMemory",
            )?;
            let ptr = check(
                d.map_memory(memory, 0, size, vk::MemoryMapFlags::empty()),
                "vkMapMemory",
            )? as *mut u32;
            std::ptr::copy_nonoverlapping(data.as_ptr(), ptr, data.len());
            Ok(HostBuffer {
                buffer,
                memory,
                ptr,
            })
        }
    }

    /// Runs `draw`: the attachments' texels come back in order ([`Image`]s of their format,
    /// `width` x `height`), and the writable bindings are read back into `draw.bindings`.
    /// After an error the objects made for the draw are not destroyed (test code treats an
    /// error as the end of the run).
    pub fn try_draw(&self, draw: &mut Draw) -> Result<Vec<Image>, HarnessError> {
        let d = &self.device;
        let all = vk::ShaderStageFlags::ALL_GRAPHICS;
        if !draw.shaders.iter().any(|s| s.kind == ShaderKind::Vertex)
            || !draw.shaders.iter().any(|s| s.kind == ShaderKind::Fragment)
        {
            return Err(HarnessError::Input(
                "a draw needs a vertex and a fragment shader".into(),
            ));
        }
        // SAFETY: every object below is created from `d`, used while alive and destroyed
        // after the fence signals; mapped pointers cover their allocations.
        unsafe {
            let made = self.make_bindings(&draw.bindings)?;
            let desc = self.make_descriptors(&draw.bindings, &made, all)?;
            let ranges = [vk::PushConstantRange::default()
                .stage_flags(all)
                .offset(0)
                .size((draw.push_constants.len() * 4) as u32)];
            let mut pl_info =
                vk::PipelineLayoutCreateInfo::default().set_layouts(&desc.set_layouts);
            if !draw.push_constants.is_empty() {
                pl_info = pl_info.push_constant_ranges(&ranges);
            }
            let layout = check(
                d.create_pipeline_layout(&pl_info, None),
                "vkCreatePipelineLayout",
            )?;
            let mut modules = Vec::new();
            let mut names = Vec::new();
            for s in &draw.shaders {
                modules.push(check(
                    d.create_shader_module(
                        &vk::ShaderModuleCreateInfo::default().code(&s.words),
                        None,
                    ),
                    "vkCreateShaderModule",
                )?);
                names.push(CString::new(s.entry.as_str()).map_err(|_| {
                    HarnessError::Input(format!("entry point name {:?} has a nul", s.entry))
                })?);
            }
            let stages: Vec<vk::PipelineShaderStageCreateInfo> = draw
                .shaders
                .iter()
                .zip(&modules)
                .zip(&names)
                .map(|((s, &m), n)| {
                    vk::PipelineShaderStageCreateInfo::default()
                        .stage(s.kind.vk())
                        .module(m)
                        .name(n)
                })
                .collect();
            let vb_bindings: Vec<vk::VertexInputBindingDescription> = draw
                .vertex_buffers
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    vk::VertexInputBindingDescription::default()
                        .binding(i as u32)
                        .stride(b.stride)
                        .input_rate(if b.per_instance {
                            vk::VertexInputRate::INSTANCE
                        } else {
                            vk::VertexInputRate::VERTEX
                        })
                })
                .collect();
            let mut attrs = Vec::new();
            for (i, b) in draw.vertex_buffers.iter().enumerate() {
                for a in &b.attributes {
                    let format = a.format.vk().ok_or_else(|| {
                        HarnessError::Input(format!("vertex format {:?}", a.format))
                    })?;
                    attrs.push(
                        vk::VertexInputAttributeDescription::default()
                            .location(a.location)
                            .binding(i as u32)
                            .format(format)
                            .offset(a.offset),
                    );
                }
            }
            let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
                .vertex_binding_descriptions(&vb_bindings)
                .vertex_attribute_descriptions(&attrs);
            let assembly =
                vk::PipelineInputAssemblyStateCreateInfo::default().topology(draw.topology.vk());
            let patch_points = match draw.topology {
                Topology::PatchList(n) => n,
                _ => 1,
            };
            let tessellation = vk::PipelineTessellationStateCreateInfo::default()
                .patch_control_points(patch_points);
            let viewports = [vk::Viewport {
                x: 0.0,
                y: 0.0,
                width: draw.width as f32,
                height: draw.height as f32,
                min_depth: 0.0,
                max_depth: 1.0,
            }];
            let scissors = [vk::Rect2D {
                offset: vk::Offset2D { x: 0, y: 0 },
                extent: vk::Extent2D {
                    width: draw.width,
                    height: draw.height,
                },
            }];
            let viewport = vk::PipelineViewportStateCreateInfo::default()
                .viewports(&viewports)
                .scissors(&scissors);
            let raster = vk::PipelineRasterizationStateCreateInfo::default()
                .polygon_mode(vk::PolygonMode::FILL)
                .cull_mode(vk::CullModeFlags::NONE)
                .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
                .line_width(1.0);
            let multisample = vk::PipelineMultisampleStateCreateInfo::default()
                .rasterization_samples(vk::SampleCountFlags::TYPE_1);
            let blend_attachments: Vec<vk::PipelineColorBlendAttachmentState> = draw
                .targets
                .iter()
                .map(|_| {
                    vk::PipelineColorBlendAttachmentState::default()
                        .blend_enable(false)
                        .color_write_mask(vk::ColorComponentFlags::RGBA)
                })
                .collect();
            let blend =
                vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend_attachments);
            let formats: Vec<vk::Format> = draw.targets.iter().map(|t| t.format.vk()).collect();
            let mut rendering =
                vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&formats);
            let tessellated = draw
                .shaders
                .iter()
                .any(|s| matches!(s.kind, ShaderKind::TessControl | ShaderKind::TessEval));
            let mut pinfo = vk::GraphicsPipelineCreateInfo::default()
                .stages(&stages)
                .vertex_input_state(&vertex_input)
                .input_assembly_state(&assembly)
                .viewport_state(&viewport)
                .rasterization_state(&raster)
                .multisample_state(&multisample)
                .color_blend_state(&blend)
                .layout(layout)
                .push_next(&mut rendering);
            if tessellated {
                pinfo = pinfo.tessellation_state(&tessellation);
            }
            let pipeline = check(
                d.create_graphics_pipelines(vk::PipelineCache::null(), &[pinfo], None)
                    .map_err(|(_, e)| e),
                "vkCreateGraphicsPipelines",
            )?[0];

            // The attachments and their read-back buffers.
            let mut targets = Vec::new();
            for t in &draw.targets {
                let image = Image::zeroed(t.format, draw.width, draw.height);
                let (img, mem, view) = self.make_attachment(&image)?;
                let readback = self.host_buffer(&image.data, vk::BufferUsageFlags::TRANSFER_DST)?;
                targets.push((image, img, mem, view, readback));
            }
            let vbufs: Vec<HostBuffer> = draw
                .vertex_buffers
                .iter()
                .map(|b| self.host_buffer(&b.data, vk::BufferUsageFlags::VERTEX_BUFFER))
                .collect::<Result<_, _>>()?;
            let ibuf = match &draw.indices {
                Some(ix) => Some(self.host_buffer(ix, vk::BufferUsageFlags::INDEX_BUFFER)?),
                None => None,
            };

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
            self.record_uploads(cmd, &made, &draw.bindings);
            for t in &targets {
                self.transition(
                    cmd,
                    t.1,
                    vk::ImageLayout::UNDEFINED,
                    vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                    vk::AccessFlags::empty(),
                    vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
                );
            }
            let color_attachments: Vec<vk::RenderingAttachmentInfo> = targets
                .iter()
                .zip(&draw.targets)
                .map(|(t, spec)| {
                    vk::RenderingAttachmentInfo::default()
                        .image_view(t.3)
                        .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                        .load_op(vk::AttachmentLoadOp::CLEAR)
                        .store_op(vk::AttachmentStoreOp::STORE)
                        .clear_value(vk::ClearValue {
                            color: vk::ClearColorValue { uint32: spec.clear },
                        })
                })
                .collect();
            let rendering_info = vk::RenderingInfo::default()
                .render_area(scissors[0])
                .layer_count(1)
                .color_attachments(&color_attachments);
            d.cmd_begin_rendering(cmd, &rendering_info);
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pipeline);
            if !desc.sets.is_empty() && !draw.bindings.is_empty() {
                d.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::GRAPHICS,
                    layout,
                    0,
                    &desc.sets,
                    &[],
                );
            }
            if !draw.push_constants.is_empty() {
                let bytes: Vec<u8> = draw
                    .push_constants
                    .iter()
                    .flat_map(|w| w.to_le_bytes())
                    .collect();
                d.cmd_push_constants(cmd, layout, all, 0, &bytes);
            }
            let vb: Vec<vk::Buffer> = vbufs.iter().map(|b| b.buffer).collect();
            if !vb.is_empty() {
                let offsets = vec![0u64; vb.len()];
                d.cmd_bind_vertex_buffers(cmd, 0, &vb, &offsets);
            }
            match &ibuf {
                Some(ib) => {
                    d.cmd_bind_index_buffer(cmd, ib.buffer, 0, vk::IndexType::UINT32);
                    d.cmd_draw_indexed(cmd, draw.count, draw.instances, 0, 0, 0);
                }
                None => d.cmd_draw(cmd, draw.count, draw.instances, 0, 0),
            }
            d.cmd_end_rendering(cmd);
            for t in &targets {
                self.transition(
                    cmd,
                    t.1,
                    vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
                    vk::AccessFlags::TRANSFER_READ,
                );
                d.cmd_copy_image_to_buffer(
                    cmd,
                    t.1,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    t.4.buffer,
                    &[copy_region(&t.0)],
                );
            }
            self.record_downloads(cmd, &made, &draw.bindings);
            let to_host = [vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ)];
            d.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::ALL_COMMANDS,
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
            Self::read_back(&mut draw.bindings, &made);
            let mut out = Vec::new();
            for (mut image, img, mem, view, rb) in targets {
                std::ptr::copy_nonoverlapping(rb.ptr, image.data.as_mut_ptr(), image.data.len());
                d.destroy_image_view(view, None);
                d.destroy_image(img, None);
                d.free_memory(mem, None);
                self.destroy_host_buffer(rb);
                out.push(image);
            }
            for b in vbufs {
                self.destroy_host_buffer(b);
            }
            if let Some(b) = ibuf {
                self.destroy_host_buffer(b);
            }
            d.destroy_fence(fence, None);
            d.destroy_command_pool(cpool, None);
            d.destroy_pipeline(pipeline, None);
            for m in modules {
                d.destroy_shader_module(m, None);
            }
            d.destroy_pipeline_layout(layout, None);
            self.destroy_descriptors(desc);
            self.destroy_bindings(made);
            Ok(out)
        }
    }

    /// Destroys a [`HostBuffer`].
    ///
    /// # Safety
    /// No work using it is pending.
    unsafe fn destroy_host_buffer(&self, b: HostBuffer) {
        // SAFETY: the caller's guarantee.
        unsafe {
            self.device.unmap_memory(b.memory);
            self.device.destroy_buffer(b.buffer, None);
            self.device.free_memory(b.memory, None);
        }
    }

    /// A color attachment for `i` (2D, one layer) with its memory and view.
    fn make_attachment(
        &self,
        i: &Image,
    ) -> Result<(vk::Image, vk::DeviceMemory, vk::ImageView), HarnessError> {
        let d = &self.device;
        debug_assert_eq!(i.dim, Dim::D2);
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(i.format.vk())
            .extent(vk::Extent3D {
                width: i.width,
                height: i.height,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY: the create infos are valid for each call and the objects come from `d`.
        unsafe {
            let image = check(d.create_image(&info, None), "vkCreateImage")?;
            let req = d.get_image_memory_requirements(image);
            let memory =
                check(
                    d.allocate_memory(
                        &vk::MemoryAllocateInfo::default()
                            .allocation_size(req.size)
                            .memory_type_index(self.memory_type(
                                req.memory_type_bits,
                                vk::MemoryPropertyFlags::empty(),
                            )?),
                        None,
                    ),
                    "vkAllocateMemory",
                )?;
            check(d.bind_image_memory(image, memory, 0), "vkBindImageMemory")?;
            let view = check(
                d.create_image_view(
                    &vk::ImageViewCreateInfo::default()
                        .image(image)
                        .view_type(vk::ImageViewType::TYPE_2D)
                        .format(i.format.vk())
                        .subresource_range(color_range(1)),
                    None,
                ),
                "vkCreateImageView",
            )?;
            Ok((image, memory, view))
        }
    }
}
