//! The compute shaders of examples/hlsl with seeded random inputs made from their reflection
//! (constant buffers, structured buffers, sampled and storage images, push constants): every
//! GPU voice leaves the same results. Needs lavapipe and the SPIR-V tools (`cargo xtask
//! setup`).

use std::path::Path;

use oneshader::CompileOptions;
use oneshader_oracle::{Case, Oracle, Rule, Rules, Source, Voice, data};
use oneshader_vulkan_harness::Gpu;

#[test]
fn example_compute_shaders_agree_on_seeded_inputs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let gpu = Gpu::new();
    let oracle = Oracle::new(&gpu);
    let mut ran = 0;
    for name in ["blur", "histogram", "particles", "prefix_sum", "tonemap"] {
        let source = Source::Hlsl {
            path: root.join(format!("examples/hlsl/{name}.hlsl")),
            options: CompileOptions::new("cs_6_0"),
        };
        // The WGSL backend takes every example (tonemap.hlsl's push constants have DXC's
        // relaxed placement, which WGSL states with the vector split into components).
        let (voices, refused) =
            Voice::gpu_voices_for(&source).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(refused, None, "{name}: the WGSL voice runs");
        let case = Case::new(name, source).unwrap_or_else(|e| panic!("{name}: {e}"));
        let size = case.workgroup_size().expect("a compute shader");
        let inputs = data::seeded(
            &case.reflection,
            3,
            &data::InputOptions::for_workgroup(size),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!inputs.bindings.is_empty(), "{name} binds resources");
        // particles.hlsl compacts a list with an atomic counter.
        let rules = Rules::new().with("aliveList", Rule::Unordered { element_words: 1 });
        let report = oracle
            .run(&case, &voices, &inputs, &rules)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        report.assert_agreement();
        ran += 1;
    }
    assert_eq!(ran, 5);
}
