//! SM 6.6 descriptor heaps (issue 26, bindless): `ResourceDescriptorHeap[i]` and
//! `SamplerDescriptorHeap[i]` converted to a resource type read and write the heap's
//! descriptors on lavapipe, at the bindings DXC gives heaps (its tests
//! `sm6_6.descriptorheap.*`: after every other resource, the resource heap before the sampler
//! heap, or where `-fvk-bind-resource-heap`/`-fvk-bind-sampler-heap` say); what a heap
//! element cannot be is refused at its position.

mod support;

use oneshader::{CompileOptions, Compiler, OptLevel, TargetEnv};
use oneshader_vulkan_harness::{Binding, Format, Gpu, Image, Resource, Sampler};
use support::assert_valid;

fn compile(src: &str, profile: &str, level: OptLevel) -> Vec<u32> {
    let opts = CompileOptions::new(profile).opt_level(level);
    let out = Compiler::new()
        .compile_source("heap.hlsl", src, &opts)
        .unwrap_or_else(|e| panic!("{}", e.diagnostics.render()));
    assert_valid(&out.spirv, TargetEnv::Vulkan1_2, "heap.hlsl");
    out.spirv
}

/// The SPIR-V text of `src`.
fn asm(src: &str, profile: &str, opts: impl FnOnce(&mut CompileOptions)) -> String {
    let mut o = CompileOptions::new(profile);
    opts(&mut o);
    let out = Compiler::new()
        .compile_source("heap.hlsl", src, &o)
        .unwrap_or_else(|e| panic!("{}", e.diagnostics.render()));
    oneshader_test_tools::spirv_dis(&out.spirv)
}

/// The (set, binding) decorations of the variable named `name` (each view of a heap is a
/// variable of that name).
fn places(dis: &str, name: &str) -> Vec<(u32, u32)> {
    let ids: Vec<String> = dis
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let rest = l.strip_prefix("OpName ")?;
            let (id, n) = rest.split_once(' ')?;
            (n.trim_matches('"') == name).then(|| id.to_string())
        })
        .collect();
    let deco = |id: &str, what: &str| -> Option<u32> {
        dis.lines().find_map(|l| {
            let rest = l.trim().strip_prefix(&format!("OpDecorate {id} {what} "))?;
            rest.trim().parse().ok()
        })
    };
    ids.iter()
        .filter_map(|id| Some((deco(id, "DescriptorSet")?, deco(id, "Binding")?)))
        .collect()
}

const BUFFERS: &str = "\
struct Args { uint src; uint dst; uint scale; };
[[vk::push_constant]] Args args;

[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    StructuredBuffer<uint> src = ResourceDescriptorHeap[args.src];
    RWStructuredBuffer<uint> dst = ResourceDescriptorHeap[args.dst];
    dst[id.x] = src[id.x] * args.scale + id.x;
}
";

#[test]
fn buffers_from_the_resource_heap_are_read_and_written_by_a_run_time_index() {
    let gpu = Gpu::new();
    for level in [OptLevel::O0, OptLevel::O] {
        let words = compile(BUFFERS, "cs_6_6", level);
        // The heap: three storage buffers at set 0, binding 0 (nothing else is bound).
        let mut bindings = vec![
            Binding::element(0, 0, 0, Resource::StorageBuffer(vec![0; 4])),
            Binding::element(0, 0, 1, Resource::StorageBuffer(vec![77; 4])),
            Binding::element(0, 0, 2, Resource::StorageBuffer(vec![5, 6, 7, 8])),
        ];
        // src = heap[2], dst = heap[0], scale 10.
        gpu.dispatch(&words, "main", &mut bindings, &[2, 0, 10], [1, 1, 1]);
        assert_eq!(
            bindings[0].words(),
            &[50, 61, 72, 83],
            "{level:?}: dst = src * 10 + id"
        );
        assert_eq!(
            bindings[1].words(),
            &[77; 4],
            "{level:?}: heap[1] untouched"
        );
        assert_eq!(
            bindings[2].words(),
            &[5, 6, 7, 8],
            "{level:?}: src unchanged"
        );
    }
}

const TEXTURES: &str = "\
RWStructuredBuffer<float4> Out : register(u0);

[numthreads(1, 1, 1)]
void main()
{
    Texture2D<float4> t = ResourceDescriptorHeap[1];
    SamplerState s = SamplerDescriptorHeap[0];
    Out[0] = t.SampleLevel(s, float2(0.25, 0.25), 0);
    Out[1] = t.Load(int3(1, 0, 0));
    Texture2D<float4> first = ResourceDescriptorHeap[0];
    Out[2] = first.Load(int3(0, 1, 0));
}
";

#[test]
fn textures_and_samplers_from_the_two_heaps_are_sampled_and_loaded() {
    // DXC's places: `Out` at binding 0, then the resource heap, then the sampler heap.
    let dis = asm(TEXTURES, "cs_6_6", |_| {});
    assert_eq!(places(&dis, "Out"), vec![(0, 0)]);
    assert_eq!(places(&dis, "ResourceDescriptorHeap"), vec![(0, 1)]);
    assert_eq!(places(&dis, "SamplerDescriptorHeap"), vec![(0, 2)]);
    assert!(dis.contains("OpCapability RuntimeDescriptorArray"), "{dis}");
    let gpu = Gpu::new();
    let texels =
        |base: f32| -> Vec<u32> { (0..4 * 4).map(|k| (base + k as f32).to_bits()).collect() };
    for level in [OptLevel::O0, OptLevel::O] {
        let words = compile(TEXTURES, "cs_6_6", level);
        let mut bindings = vec![
            Binding::new(0, 0, Resource::StorageBuffer(vec![0; 12])),
            Binding::element(
                0,
                1,
                0,
                Resource::SampledImage(Image::new_2d(Format::Rgba32Float, 2, 2, texels(100.0))),
            ),
            Binding::element(
                0,
                1,
                1,
                Resource::SampledImage(Image::new_2d(Format::Rgba32Float, 2, 2, texels(0.0))),
            ),
            Binding::element(0, 2, 0, Resource::Sampler(Sampler { compare: false })),
        ];
        gpu.dispatch(&words, "main", &mut bindings, &[], [1, 1, 1]);
        let got: Vec<f32> = bindings[0]
            .words()
            .iter()
            .map(|w| f32::from_bits(*w))
            .collect();
        let want: Vec<f32> = [
            // heap[1] sampled at texel (0, 0), loaded at (1, 0); heap[0] loaded at (0, 1).
            [0.0, 1.0, 2.0, 3.0],
            [4.0, 5.0, 6.0, 7.0],
            [108.0, 109.0, 110.0, 111.0],
        ]
        .concat();
        assert_eq!(got, want, "{level:?}");
    }
}

#[test]
fn heaps_take_dxcs_bindings_and_the_heap_options() {
    // sm6_6.descriptorheap.implicit-bindings.cbuffer: the cbuffer first, the heap next.
    let src = "\
cbuffer a { float4 value; }
float4 main() : SV_Target {
    RWStructuredBuffer<float4> buffer = ResourceDescriptorHeap[1];
    buffer[0] = value;
    return value;
}
";
    let dis = asm(src, "ps_6_6", |_| {});
    assert_eq!(places(&dis, "a"), vec![(0, 0)]);
    assert_eq!(places(&dis, "ResourceDescriptorHeap"), vec![(0, 1)]);
    // vk.binding.cl.register.heap: with -fvk-bind-register, -fvk-bind-resource-heap places
    // the heap.
    let src = "\
SamplerState Sampler : register(s10);
float4 main() : SV_Target {
    Texture2D Texture = ResourceDescriptorHeap[0];
    return Texture.Sample(Sampler, float2(0.1, 0.2));
}
";
    let dis = asm(src, "ps_6_8", |o| {
        o.bind_registers = vec![oneshader::RegisterBinding {
            class: 's',
            number: 10,
            space: 0,
            binding: 1,
            set: 2,
        }];
        o.bind_resource_heap = Some((3, 4));
    });
    assert_eq!(places(&dis, "Sampler"), vec![(2, 1)]);
    assert_eq!(places(&dis, "ResourceDescriptorHeap"), vec![(4, 3)]);
    // Without it the heap has no place: refused, naming the option.
    let mut o = CompileOptions::new("ps_6_8");
    o.bind_registers = vec![oneshader::RegisterBinding {
        class: 's',
        number: 10,
        space: 0,
        binding: 1,
        set: 2,
    }];
    let e = Compiler::new()
        .compile_source("heap.hlsl", src, &o)
        .expect_err("the heap has no binding");
    let text = e.diagnostics.render();
    assert!(
        text.contains("OSH1031") && text.contains("-fvk-bind-resource-heap"),
        "{text}"
    );
    // Views of one heap share its binding; the sampler heap has its own option.
    let dis = asm(TEXTURES, "cs_6_6", |o| o.bind_sampler_heap = Some((9, 1)));
    assert_eq!(places(&dis, "SamplerDescriptorHeap"), vec![(1, 9)]);
    assert_eq!(places(&dis, "ResourceDescriptorHeap"), vec![(0, 1)]);
}

#[test]
fn what_a_heap_element_cannot_be_is_refused_at_its_position() {
    for (src, needle) in [
        (
            "float4 main() : SV_Target { float4 v = ResourceDescriptorHeap[0]; return v; }",
            "cannot convert an element of `ResourceDescriptorHeap` to `float4`",
        ),
        (
            "Texture2D t; float4 main() : SV_Target { SamplerState s = ResourceDescriptorHeap[0]; \
             return t.Sample(s, 0.5); }",
            "cannot convert an element of `ResourceDescriptorHeap` to `SamplerState`",
        ),
        (
            "float4 main() : SV_Target { Texture2D t = SamplerDescriptorHeap[0]; \
             return t.Load(int3(0, 0, 0)); }",
            "cannot convert an element of `SamplerDescriptorHeap` to `Texture2D",
        ),
        (
            "float4 main() : SV_Target { ResourceDescriptorHeap[0]; return 0; }",
            "has no type until it initializes",
        ),
        (
            "float4 main() : SV_Target { Texture2D t = ResourceDescriptorHeap[0.5]; \
             return t.Load(int3(0, 0, 0)); }",
            "must be an integer scalar",
        ),
        (
            "[numthreads(1, 1, 1)] void main() { AppendStructuredBuffer<uint> b = \
             ResourceDescriptorHeap[0]; b.Append(1); }",
            "cannot be lowered",
        ),
        (
            "RWStructuredBuffer<uint> g; [numthreads(1, 1, 1)] void main() { \
             RWStructuredBuffer<uint> b = g; b[b.IncrementCounter()] = 1; }",
            "a buffer counter needs the buffer global itself or an element of",
        ),
    ] {
        let profile = if src.contains("numthreads") {
            "cs_6_6"
        } else {
            "ps_6_6"
        };
        let e = Compiler::new()
            .compile_source("bad.hlsl", src, &CompileOptions::new(profile))
            .expect_err(src);
        let text = e.diagnostics.render();
        assert!(
            text.contains(needle) && text.contains("bad.hlsl:1:"),
            "{src}\n{text}"
        );
    }
}

const COUNTERS: &str = "\
struct Args { uint a; uint b; };
[[vk::push_constant]] Args args;

RWStructuredBuffer<uint> Get(uint i) { return ResourceDescriptorHeap[i]; }

[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    RWStructuredBuffer<uint> a = ResourceDescriptorHeap[args.a];
    uint slot = a.IncrementCounter();
    a[slot] = id.x + 100;
    RWStructuredBuffer<uint> b = Get(args.b);
    b.DecrementCounter();
}
";

/// The counters of the resource heap's buffers (DXC's `counter_var_ResourceDescriptorHeap`,
/// its tests `sm6_6.descriptorheap.*counter*`): one array of counter buffers beside the heap,
/// element `i` the counter of heap element `i`, whether the buffer is reached directly, through
/// a local or through a function's result; at the next free binding after the heap, or where
/// `-fvk-bind-counter-heap` says. Before, every such counter was refused (OSH1040).
#[test]
fn counters_of_heap_buffers_are_the_same_element_of_the_heaps_counters() {
    let gpu = Gpu::new();
    for level in [OptLevel::O0, OptLevel::O] {
        let words = compile(COUNTERS, "cs_6_6", level);
        let dis = oneshader_test_tools::spirv_dis(&words);
        assert_eq!(places(&dis, "ResourceDescriptorHeap"), vec![(0, 0)]);
        assert_eq!(
            places(&dis, "counter.var.ResourceDescriptorHeap"),
            vec![(0, 1)]
        );
        // Heap: buffers 0 and 1; their counters: 1 starts at 0, 0 starts at 10.
        let mut bindings = vec![
            Binding::element(0, 0, 0, Resource::StorageBuffer(vec![0; 4])),
            Binding::element(0, 0, 1, Resource::StorageBuffer(vec![0; 4])),
            Binding::element(0, 1, 0, Resource::StorageBuffer(vec![10])),
            Binding::element(0, 1, 1, Resource::StorageBuffer(vec![0])),
        ];
        // a = heap[1], b = heap[0].
        gpu.dispatch(&words, "main", &mut bindings, &[1, 0], [1, 1, 1]);
        let mut written = bindings[1].words().to_vec();
        written.sort_unstable();
        assert_eq!(
            written,
            vec![100, 101, 102, 103],
            "{level:?}: one slot per lane"
        );
        assert_eq!(
            bindings[3].words(),
            &[4],
            "{level:?}: heap[1]'s counter, four increments"
        );
        assert_eq!(
            bindings[2].words(),
            &[6],
            "{level:?}: heap[0]'s counter, four decrements"
        );
        assert_eq!(bindings[0].words(), &[0; 4], "{level:?}: heap[0] untouched");
    }
    // -fvk-bind-counter-heap BINDING SET places the counters.
    let dis = asm(COUNTERS, "cs_6_6", |o| o.bind_counter_heap = Some((4, 5)));
    assert_eq!(
        places(&dis, "counter.var.ResourceDescriptorHeap"),
        vec![(5, 4)]
    );
    // A shader using no counter declares none.
    let dis = asm(BUFFERS, "cs_6_6", |_| {});
    assert!(
        places(&dis, "counter.var.ResourceDescriptorHeap").is_empty(),
        "{dis}"
    );
}
