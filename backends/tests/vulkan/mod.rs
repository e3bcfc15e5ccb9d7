//! A small compute harness on a real Vulkan driver: loads the system's Vulkan loader
//! (`libvulkan.so.1`) with ash, picks Mesa's lavapipe (the CPU device `cargo xtask setup`
//! installs), creates host-visible storage buffers at set 0, bindings 0.., builds a compute
//! pipeline from our SPIR-V words, dispatches it and reads the buffers back.

#![allow(dead_code)]

use std::ffi::CString;

use ash::vk;

const SETUP: &str = "run `cargo xtask setup` (it installs the Vulkan loader and Mesa's lavapipe)";

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
}

impl Gpu {
    /// Creates the instance and device; panics with a message naming `cargo xtask setup` when
    /// the loader or lavapipe is missing.
    pub fn new() -> Gpu {
        // SAFETY: loading the system Vulkan loader runs its initialization code; it is the
        // documented way to use ash's `loaded` feature.
        let entry = unsafe { ash::Entry::load() }.unwrap_or_else(|e| {
            panic!("cannot load the Vulkan loader libvulkan.so.1 ({e}): {SETUP}")
        });
        let app_name = CString::new("oneshader-tests").expect("no nul");
        let app = vk::ApplicationInfo::default()
            .application_name(&app_name)
            .api_version(vk::make_api_version(0, 1, 2, 0));
        let info = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: `info` and what it points to live across the call.
        let instance = unsafe { entry.create_instance(&info, None) }
            .unwrap_or_else(|e| panic!("vkCreateInstance failed ({e}): {SETUP}"));
        // SAFETY: the instance is valid.
        let devices = unsafe { instance.enumerate_physical_devices() }
            .unwrap_or_else(|e| panic!("no Vulkan devices ({e}): {SETUP}"));
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
        let (pd, name) =
            chosen.unwrap_or_else(|| panic!("lavapipe (llvmpipe) is not available: {SETUP}"));
        // SAFETY: `pd` is valid.
        let families = unsafe { instance.get_physical_device_queue_family_properties(pd) };
        let family = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .expect("lavapipe has a compute queue") as u32;
        let prio = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&prio)];
        let dinfo = vk::DeviceCreateInfo::default().queue_create_infos(&queues);
        // SAFETY: the create info is valid for the call.
        let device = unsafe { instance.create_device(pd, &dinfo, None) }
            .unwrap_or_else(|e| panic!("vkCreateDevice failed on lavapipe ({e}): {SETUP}"));
        // SAFETY: family/index exist (one queue was requested).
        let queue = unsafe { device.get_device_queue(family, 0) };
        // SAFETY: `pd` is valid.
        let memory = unsafe { instance.get_physical_device_memory_properties(pd) };
        Gpu {
            _entry: entry,
            instance,
            device,
            queue,
            family,
            memory,
            name,
        }
    }

    fn host_memory_type(&self, bits: u32) -> u32 {
        let want = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        (0..self.memory.memory_type_count)
            .find(|&i| {
                bits & (1 << i) != 0
                    && self.memory.memory_types[i as usize]
                        .property_flags
                        .contains(want)
            })
            .expect("a host-visible coherent memory type")
    }

    /// Runs `entry` of the SPIR-V module `words` with `groups` workgroups; `buffers[i]` is the
    /// storage buffer at set 0, binding i, copied in before and read back after.
    pub fn run(&self, words: &[u32], entry: &str, buffers: &mut [Vec<u32>], groups: [u32; 3]) {
        let d = &self.device;
        // SAFETY: every Vulkan object below is created from `d`, used while alive, and
        // destroyed after the queue is idle; mapped pointers cover exactly the allocation.
        unsafe {
            let mut bufs = Vec::new();
            for data in buffers.iter() {
                let size = (data.len().max(1) * 4) as u64;
                let binfo = vk::BufferCreateInfo::default()
                    .size(size)
                    .usage(vk::BufferUsageFlags::STORAGE_BUFFER)
                    .sharing_mode(vk::SharingMode::EXCLUSIVE);
                let buf = d.create_buffer(&binfo, None).expect("buffer");
                let req = d.get_buffer_memory_requirements(buf);
                let ainfo = vk::MemoryAllocateInfo::default()
                    .allocation_size(req.size)
                    .memory_type_index(self.host_memory_type(req.memory_type_bits));
                let mem = d.allocate_memory(&ainfo, None).expect("memory");
                d.bind_buffer_memory(buf, mem, 0).expect("bind");
                let ptr = d
                    .map_memory(mem, 0, size, vk::MemoryMapFlags::empty())
                    .expect("map") as *mut u32;
                std::ptr::copy_nonoverlapping(data.as_ptr(), ptr, data.len());
                bufs.push((buf, mem, ptr, size));
            }
            let bindings: Vec<vk::DescriptorSetLayoutBinding> = (0..buffers.len() as u32)
                .map(|i| {
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(i)
                        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                        .descriptor_count(1)
                        .stage_flags(vk::ShaderStageFlags::COMPUTE)
                })
                .collect();
            let set_layout = d
                .create_descriptor_set_layout(
                    &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                    None,
                )
                .expect("set layout");
            let layouts = [set_layout];
            let pipeline_layout = d
                .create_pipeline_layout(
                    &vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts),
                    None,
                )
                .expect("pipeline layout");
            let module = d
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(words), None)
                .expect("shader module");
            let name = CString::new(entry).expect("no nul");
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(module)
                .name(&name);
            let pinfo = [vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(pipeline_layout)];
            let pipeline = d
                .create_compute_pipelines(vk::PipelineCache::null(), &pinfo, None)
                .map_err(|(_, e)| e)
                .expect("compute pipeline")[0];
            let sizes = [vk::DescriptorPoolSize::default()
                .ty(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(buffers.len().max(1) as u32)];
            let pool = d
                .create_descriptor_pool(
                    &vk::DescriptorPoolCreateInfo::default()
                        .max_sets(1)
                        .pool_sizes(&sizes),
                    None,
                )
                .expect("pool");
            let set = d
                .allocate_descriptor_sets(
                    &vk::DescriptorSetAllocateInfo::default()
                        .descriptor_pool(pool)
                        .set_layouts(&layouts),
                )
                .expect("set")[0];
            let infos: Vec<[vk::DescriptorBufferInfo; 1]> = bufs
                .iter()
                .map(|(b, _, _, size)| {
                    [vk::DescriptorBufferInfo::default()
                        .buffer(*b)
                        .offset(0)
                        .range(*size)]
                })
                .collect();
            let writes: Vec<vk::WriteDescriptorSet> = infos
                .iter()
                .enumerate()
                .map(|(i, info)| {
                    vk::WriteDescriptorSet::default()
                        .dst_set(set)
                        .dst_binding(i as u32)
                        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                        .buffer_info(info)
                })
                .collect();
            d.update_descriptor_sets(&writes, &[]);
            let cpool = d
                .create_command_pool(
                    &vk::CommandPoolCreateInfo::default().queue_family_index(self.family),
                    None,
                )
                .expect("command pool");
            let cmd = d
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(cpool)
                        .level(vk::CommandBufferLevel::PRIMARY)
                        .command_buffer_count(1),
                )
                .expect("command buffer")[0];
            d.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())
                .expect("begin");
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipeline);
            d.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::COMPUTE,
                pipeline_layout,
                0,
                &[set],
                &[],
            );
            d.cmd_dispatch(cmd, groups[0], groups[1], groups[2]);
            d.end_command_buffer(cmd).expect("end");
            let fence = d
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .expect("fence");
            let cmds = [cmd];
            let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
            d.queue_submit(self.queue, &submit, fence).expect("submit");
            d.wait_for_fences(&[fence], true, u64::MAX).expect("wait");
            for (data, (_, _, ptr, _)) in buffers.iter_mut().zip(&bufs) {
                std::ptr::copy_nonoverlapping(*ptr, data.as_mut_ptr(), data.len());
            }
            d.destroy_fence(fence, None);
            d.destroy_command_pool(cpool, None);
            d.destroy_descriptor_pool(pool, None);
            d.destroy_pipeline(pipeline, None);
            d.destroy_shader_module(module, None);
            d.destroy_pipeline_layout(pipeline_layout, None);
            d.destroy_descriptor_set_layout(set_layout, None);
            for (b, mem, _, _) in bufs {
                d.unmap_memory(mem);
                d.destroy_buffer(b, None);
                d.free_memory(mem, None);
            }
        }
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // SAFETY: nothing created from the device or instance outlives them (`run` destroys
        // its objects before returning).
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}
