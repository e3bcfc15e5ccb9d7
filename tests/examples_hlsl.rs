//! Every shader in examples/hlsl/ compiles and validates. Each file documents how to compile
//! it with `//   oneshader compile examples/hlsl/FILE -T PROFILE -E ENTRY ...` lines; the test
//! reads those lines, so the documented command lines are the tested ones. Each entry point
//! is compiled at -O0 and -O for vulkan1.0 and vulkan1.2, and spirv-val checks the output.

mod support;

use oneshader::{CompileOptions, OptLevel, TargetEnv};
use support::*;

#[test]
fn every_example_compiles_and_validates() {
    let entries = documented_entry_points();
    assert!(
        entries.iter().any(|(_, p, _)| p.starts_with("vs_"))
            && entries.iter().any(|(_, p, _)| p.starts_with("ps_"))
            && entries.iter().any(|(_, p, _)| p.starts_with("cs_")),
        "vertex, pixel and compute examples: {entries:?}"
    );
    for (file, profile, entry) in entries {
        for level in [OptLevel::O0, OptLevel::O] {
            for env in [TargetEnv::Vulkan1_0, TargetEnv::Vulkan1_2] {
                let opts = CompileOptions::new(profile.as_str())
                    .entry(entry.as_str())
                    .opt_level(level)
                    .target_env(env)
                    .with_reflection();
                let out = compile_file(&format!("examples/hlsl/{file}"), &opts);
                assert!(
                    out.diagnostics.is_empty(),
                    "{file} {entry}: {}",
                    out.diagnostics.render()
                );
                assert_valid(
                    &out.spirv,
                    env,
                    &format!("{file} {entry} ({level:?}, {env})"),
                );
                let r = out.reflection.expect("asked for");
                assert_eq!(r.entry_points.len(), 1);
                assert_eq!(r.entry_points[0].name, entry);
            }
        }
    }
}

#[test]
fn examples_reflect_what_their_comments_promise() {
    let opts = CompileOptions::new("cs_6_0").with_reflection();
    let blur = compile_file("examples/hlsl/blur.hlsl", &opts)
        .reflection
        .expect("asked for");
    let e = &blur.entry_points[0];
    assert_eq!(e.workgroup_size, Some([64, 1, 1]));
    let bindings: Vec<(&str, u32)> = blur
        .resources
        .iter()
        .map(|r| (r.name.as_str(), r.binding))
        .collect();
    assert_eq!(
        bindings,
        [("BlurParams", 0), ("source", 1), ("destination", 2)]
    );
    let tonemap = compile_file("examples/hlsl/tonemap.hlsl", &opts)
        .reflection
        .expect("asked for");
    assert_eq!(tonemap.push_constants.len(), 1);
    assert_eq!(tonemap.push_constants[0].size, 16);
    assert_eq!(tonemap.spec_constants.len(), 1);
    assert_eq!(
        tonemap.spec_constants[0].name.as_deref(),
        Some("kOutputSrgb")
    );
    let textured = compile_file(
        "examples/hlsl/textured.hlsl",
        &CompileOptions::new("ps_6_0")
            .entry("PSMain")
            .with_reflection(),
    )
    .reflection
    .expect("asked for");
    let kinds: Vec<&str> = textured.resources.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(kinds, ["PerFrame", "PerObject", "albedoMap", "linearWrap"]);
}
