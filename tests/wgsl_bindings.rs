//! D3D registers on WebGPU (issue 28 items 1 and 2): resources DXC's default rule puts at one
//! Vulkan binding get distinct WGSL bindings by a rule that depends on each resource alone
//! (docs/wgsl-backend.md "Bindings"), the reflection says where each went, a binding map
//! overrides the rule, and what the user chose for Vulkan is kept.

mod support;

use std::collections::BTreeMap;

use oneshader::backends::bindings::WgslBindingMap;
use oneshader::reflect::Reflection;
use oneshader::{CompileOptions, CompileOutput, Compiler, Target};
use oneshader_test_tools::{naga_spirv, naga_validate};
use oneshader_vulkan_harness::{Binding, Gpu, Resource};
use support::root;

/// Compiles `path`'s `entry` to WGSL with reflection; naga must validate the text.
fn wgsl(path: &str, profile: &str, entry: &str, map: Option<&str>) -> CompileOutput {
    let mut opts = CompileOptions::new(profile)
        .entry(entry)
        .target(Target::Wgsl)
        .with_reflection();
    opts.wgsl_binding_map = map.map(|m| WgslBindingMap::from_json(m).expect("a map"));
    let out = match Compiler::new().compile_file(root().join(path), &opts) {
        Ok(out) => out,
        Err(e) => panic!("{path} {entry}: {}", e.diagnostics.render()),
    };
    let text = out.wgsl.as_deref().expect("WGSL");
    naga_validate(text).unwrap_or_else(|e| panic!("naga rejects {entry}:\n{e}\n{text}"));
    out
}

/// Each global's (group, binding) in the WGSL text, as naga reads it.
fn naga_bindings(text: &str) -> BTreeMap<String, (u32, u32)> {
    let (module, _) = naga_validate(text).expect("valid");
    module
        .global_variables
        .iter()
        .filter_map(|(_, g)| {
            let b = g.binding.as_ref()?;
            Some((g.name.clone()?, (b.group, b.binding)))
        })
        .collect()
}

/// Each resource's (group, binding) as the reflection states it.
fn reflected(r: &Reflection) -> BTreeMap<String, (u32, u32)> {
    r.resources
        .iter()
        .map(|res| {
            let w = res
                .wgsl
                .as_ref()
                .unwrap_or_else(|| panic!("`{}` has a wgsl place", res.name));
            (res.name.clone(), (w.group, w.binding))
        })
        .collect()
}

#[test]
fn a_vs_ps_pair_with_colliding_registers_gets_one_bind_group_layout_from_reflection() {
    let path = "tests/wgsl_bindings/pair.hlsl";
    let vs = wgsl(path, "vs_6_0", "vs", None);
    let ps = wgsl(path, "ps_6_0", "ps", None);
    // The layout an application builds from the reflection alone: one entry per slot, with
    // the stages that use it.
    let mut layout: BTreeMap<(u32, u32), (String, Vec<String>)> = BTreeMap::new();
    for out in [&vs, &ps] {
        let r = out.reflection.as_ref().expect("asked for");
        for res in &r.resources {
            let w = res.wgsl.as_ref().expect("a wgsl place");
            let slot = layout
                .entry((w.group, w.binding))
                .or_insert_with(|| (res.name.clone(), Vec::new()));
            assert_eq!(
                slot.0, res.name,
                "two resources at group {} binding {}",
                w.group, w.binding
            );
            slot.1.extend(res.entry_points.iter().cloned());
        }
    }
    // Under Vulkan, Frame, albedo and samp share (0, 0); in WGSL each has its own binding,
    // the same in both stages: b by number, t from 250, s from 500.
    let expected: BTreeMap<(u32, u32), (String, Vec<String>)> = [
        ((0, 0), ("Frame", vec!["vs", "ps"])),
        ((0, 250), ("albedo", vec!["ps"])),
        ((0, 251), ("shadow", vec!["ps"])),
        ((0, 500), ("samp", vec!["ps"])),
        ((0, 501), ("cmp", vec!["ps"])),
    ]
    .into_iter()
    .map(|(k, (n, e))| {
        (
            k,
            (n.to_string(), e.into_iter().map(String::from).collect()),
        )
    })
    .collect();
    assert_eq!(layout, expected);
    // The reflection states what the WGSL declares, stage by stage.
    for out in [&vs, &ps] {
        let text = out.wgsl.as_deref().expect("WGSL");
        assert_eq!(
            naga_bindings(text),
            reflected(out.reflection.as_ref().expect("asked for")),
            "{text}"
        );
    }
    // And the original register and the Vulkan binding are beside it.
    let r = ps.reflection.as_ref().expect("asked for");
    let samp = r.resource("samp").expect("samp");
    let reg = samp.register.as_ref().expect("a register");
    assert_eq!(
        (reg.class.as_str(), reg.number, reg.space),
        ("s", Some(0), 0)
    );
    assert_eq!((samp.set, samp.binding), (0, 0));
}

#[test]
fn colliding_registers_compute_through_wgsl_at_the_reflected_bindings() {
    let gpu = Gpu::new();
    let out = wgsl("tests/wgsl_bindings/collide.hlsl", "cs_6_0", "main", None);
    let r = out.reflection.as_ref().expect("asked for");
    let at = reflected(r);
    // All three share Vulkan binding 0; WGSL spreads them.
    for res in &r.resources {
        assert_eq!((res.set, res.binding), (0, 0), "{}", res.name);
    }
    assert_eq!(at["Params"], (0, 0));
    assert_eq!(at["src"], (0, 250));
    assert_eq!(at["dst"], (0, 750));
    let words = naga_spirv(out.wgsl.as_deref().expect("WGSL")).expect("naga writes SPIR-V");
    let src: Vec<u32> = (0..8).map(|i| i * 10 + 1).collect();
    let mut bindings = vec![
        Binding::new(
            at["Params"].0,
            at["Params"].1,
            Resource::UniformBuffer(vec![3, 7, 0, 0]),
        ),
        Binding::new(
            at["src"].0,
            at["src"].1,
            Resource::StorageBuffer(src.clone()),
        ),
        Binding::new(
            at["dst"].0,
            at["dst"].1,
            Resource::StorageBuffer(vec![0; 8]),
        ),
    ];
    gpu.try_dispatch(&words, "main", &mut bindings, &[], [1, 1, 1])
        .unwrap_or_else(|e| panic!("{e}"));
    let expected: Vec<u32> = src.iter().map(|s| s * 3 + 7).collect();
    assert_eq!(bindings[2].words(), &expected[..]);
}

#[test]
fn a_binding_map_places_what_it_lists_and_the_rule_the_rest() {
    let map = r#"[
        {"register": "t0", "group": 1, "binding": 0},
        {"register": "s0", "space": 0, "group": 1, "binding": 1},
        {"set": 0, "binding": 1, "group": 2, "wgsl_binding": 9, "stage": "vertex"}
    ]"#;
    let ps = wgsl("tests/wgsl_bindings/pair.hlsl", "ps_6_0", "ps", Some(map));
    let at = reflected(ps.reflection.as_ref().expect("asked for"));
    assert_eq!(at["albedo"], (1, 0));
    assert_eq!(at["samp"], (1, 1));
    // The vertex-only entry does not apply to the pixel shader: the rule places t1 and s1.
    assert_eq!(at["shadow"], (0, 251));
    assert_eq!(at["cmp"], (0, 501));
    assert_eq!(at["Frame"], (0, 0));
    assert_eq!(naga_bindings(ps.wgsl.as_deref().expect("WGSL")), at);
    // An entry that places nothing of this shader is a warning, not silence.
    let vs = wgsl("tests/wgsl_bindings/pair.hlsl", "vs_6_0", "vs", Some(map));
    let w = vs.diagnostics.render();
    assert!(
        w.contains("warning[OSB0212]: binding map entry [2] places no resource"),
        "{w}"
    );
    // Entries [0] and [1] name pixel-shader resources the vertex shader does not declare.
    assert_eq!(w.matches("OSB0212").count(), 3, "{w}");
}

#[test]
fn a_map_that_makes_two_resources_collide_is_refused_naming_both() {
    let map = r#"[{"register": "t0", "group": 0, "binding": 500}]"#;
    let mut opts = CompileOptions::new("ps_6_0")
        .entry("ps")
        .target(Target::Wgsl);
    opts.wgsl_binding_map = Some(WgslBindingMap::from_json(map).expect("a map"));
    let e = Compiler::new()
        .compile_file(root().join("tests/wgsl_bindings/pair.hlsl"), &opts)
        .expect_err("refused");
    let text = e.diagnostics.render();
    assert!(text.contains("error[OSB0211]"), "{text}");
    assert!(
        text.contains("@albedo (register t0, space 0; binding map entry [0])"),
        "{text}"
    );
    assert!(
        text.contains("@samp (register s0, space 0; the register-class rule)"),
        "{text}"
    );
    assert!(text.contains("@group(0) @binding(500)"), "{text}");
}

#[test]
fn bindings_the_user_chose_for_vulkan_are_kept() {
    let src = "Texture2D t : register(t0); SamplerState s : register(s0);\n[[vk::binding(7, 2)]] Texture2D u : register(t1);\nfloat4 main(float2 uv : TEXCOORD) : SV_Target { return t.Sample(s, uv) + u.Sample(s, uv); }\n";
    // The shift as a build script passes it, through the CLI's own parser.
    let opts = CompileOptions::from_dxc_args(["-T", "ps_6_0", "-fvk-s-shift", "16", "0"])
        .expect("parses")
        .target(Target::Wgsl)
        .with_reflection();
    let out = Compiler::new()
        .compile_source("k.hlsl", src, &opts)
        .unwrap_or_else(|e| panic!("{}", e.diagnostics.render()));
    let text = out.wgsl.as_deref().expect("WGSL");
    let at = naga_bindings(text);
    // `s` was shifted (the user chose 16) and `u` has [[vk::binding]]: kept. `t` was placed
    // by DXC's default rule: the class rule moves it.
    assert_eq!(at["s"], (0, 16), "{text}");
    assert_eq!(at["u"], (2, 7), "{text}");
    assert_eq!(at["t"], (0, 250), "{text}");
    assert_eq!(at, reflected(out.reflection.as_ref().expect("asked for")));
}

#[test]
fn a_bad_map_on_the_command_line_says_where() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let map = dir.path().join("map.json");
    std::fs::write(&map, "[\n  {\"register\": \"t0\" \"group\": 1}\n]\n").expect("written");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_oneshader"))
        .args(["compile", "-T", "ps_6_0", "-E", "ps", "--target", "wgsl"])
        .arg("--wgsl-binding-map")
        .arg(&map)
        .arg(root().join("tests/wgsl_bindings/pair.hlsl"))
        .args(["-o", "-"])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&o.stderr);
    // A bad command line: exit 2, as for every option that does not parse.
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "{}:2:21: not JSON: expected `,` or `}}`",
            map.display()
        )),
        "{err}"
    );
    assert!(err.contains("OSC0050"), "{err}");
    std::fs::write(&map, r#"[{"register": "x0", "group": 1, "binding": 0}]"#).expect("written");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_oneshader"))
        .args(["compile", "-T", "ps_6_0", "-E", "ps", "--target", "wgsl"])
        .arg("--wgsl-binding-map")
        .arg(&map)
        .arg(root().join("tests/wgsl_bindings/pair.hlsl"))
        .args(["-o", "-"])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("[0].register: \"x0\" is not a register"),
        "{err}"
    );
    assert_eq!(o.status.code(), Some(2), "{err}");
}
