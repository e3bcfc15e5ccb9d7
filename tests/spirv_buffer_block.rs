//! Storage buffers in SPIR-V 1.0's form (issue 26's DXC rows): before SPIR-V 1.3, when
//! `-fspv-extension=` does not permit `SPV_KHR_storage_buffer_storage_class`, storage buffers
//! are `Uniform` variables of `BufferBlock` structs, as DXC writes them; the module validates,
//! needs no extension, and computes on lavapipe what the default form computes (loads,
//! stores, atomics, `GetDimensions`, byte-address access).

mod support;

use oneshader::{CompileOptions, Compiler, OptLevel, TargetEnv};
use oneshader_vulkan_harness::Gpu;
use support::assert_valid;

const SHADER: &str = "\
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u1);
RWByteAddressBuffer Raw : register(u2);

[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint n, stride;
    In.GetDimensions(n, stride);
    Out[id.x] = In[id.x] * 3 + n;
    uint old;
    InterlockedAdd(Out[4], In[id.x], old);
    Raw.Store(id.x * 4, Raw.Load(id.x * 4) + id.x);
}
";

fn compile(allowed: Option<&[&str]>, level: OptLevel) -> Vec<u32> {
    let mut o = CompileOptions::new("cs_6_0")
        .opt_level(level)
        .target_env(TargetEnv::Vulkan1_0);
    o.spirv_allowed_extensions = allowed.map(|a| a.iter().map(|s| s.to_string()).collect());
    let out = Compiler::new()
        .compile_source("bb.hlsl", SHADER, &o)
        .unwrap_or_else(|e| panic!("{}", e.diagnostics.render()));
    assert_valid(&out.spirv, TargetEnv::Vulkan1_0, "bb.hlsl");
    out.spirv
}

#[test]
fn storage_buffers_are_buffer_blocks_when_the_extension_is_not_permitted_and_compute_alike() {
    let gpu = Gpu::new();
    let run = |words: &[u32]| {
        let mut bufs = vec![vec![1, 2, 3, 4], vec![0; 5], vec![10, 20, 30, 40]];
        gpu.run(words, "main", &mut bufs, [1, 1, 1]);
        bufs
    };
    for level in [OptLevel::O0, OptLevel::O] {
        let plain = compile(None, level);
        let dis = oneshader_test_tools::spirv_dis(&plain);
        assert!(
            dis.contains("SPV_KHR_storage_buffer_storage_class")
                && dis.contains("StorageBuffer")
                && !dis.contains("BufferBlock"),
            "{level:?}: the default form\n{dis}"
        );
        let old = compile(Some(&["SPV_KHR_16bit_storage"]), level);
        let dis = oneshader_test_tools::spirv_dis(&old);
        assert!(
            !dis.contains("OpExtension") && !dis.contains(" StorageBuffer"),
            "{level:?}: no extension, no StorageBuffer class\n{dis}"
        );
        assert!(
            dis.contains(" BufferBlock") && !dis.lines().any(|l| l.ends_with(" Block")),
            "{level:?}: the buffers' blocks are BufferBlocks\n{dis}"
        );
        for name in ["In", "Out", "Raw"] {
            assert!(
                dis.lines()
                    .any(|l| l.trim().starts_with(&format!("%{name} = OpVariable"))
                        && l.trim_end().ends_with(" Uniform")),
                "{level:?}: `{name}` is a Uniform variable\n{dis}"
            );
        }
        let want = run(&plain);
        assert_eq!(want[1], vec![7, 10, 13, 16, 10], "{level:?}");
        assert_eq!(want[2], vec![10, 21, 32, 43], "{level:?}");
        assert_eq!(
            run(&old),
            want,
            "{level:?}: the BufferBlock form computes the same"
        );
        // `KHR` permits every SPV_KHR_* extension: the default form again.
        assert_eq!(compile(Some(&["KHR"]), level), plain, "{level:?}");
    }
}
