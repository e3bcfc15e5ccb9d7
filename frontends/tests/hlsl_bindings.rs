//! Descriptor sets and bindings under DXC's rules and command-line options
//! (`-auto-binding-space`, `-fvk-bind-register`, `-fvk-bind-globals`, glslang's `layout`).

mod sema_common;

use oneshader_frontends::hlsl::{CompileOptions, RegisterBinding};
use sema_common::{compile_with, opts};

/// `name -> (set, binding)` from the lowered module's `binding(set, binding)` decorations.
fn bindings(src: &str, o: &CompileOptions) -> Vec<(String, u32, u32)> {
    let (r, rendered) = compile_with(src, o);
    let m = r
        .module
        .unwrap_or_else(|| panic!("compilation failed:\n{rendered}"));
    let mut out = Vec::new();
    for g in m.globals() {
        if let Some(d) = m.find_decoration(g.id(), oneshader_ir::Op::Binding) {
            out.push((
                m.name(g.id()).unwrap_or("?").to_string(),
                m.imm_operand(d, 0).unwrap_or(u32::MAX),
                m.imm_operand(d, 1).unwrap_or(u32::MAX),
            ));
        }
    }
    out.sort();
    out
}

const SHADER: &str = r#"
[[vk::binding(4)]] Texture2D a : register(t1, space3);
[[vk::binding(5, 6)]] Texture2D b;
Texture2D c : register(t2, space1);
Texture2D d : register(t7);
SamplerState s;
float loose;
float4 main() : SV_Target {
    return a.Sample(s, 0.5) + b.Sample(s, 0.5) + c.Sample(s, 0.5) + d.Sample(s, 0.5) + loose;
}
"#;

fn b(name: &str, set: u32, binding: u32) -> (String, u32, u32) {
    (name.to_string(), set, binding)
}

/// A one-argument `vk::binding` takes the default space, not the `register`'s (DXC); the
/// default space is `-auto-binding-space` when given.
#[test]
fn default_space_and_one_argument_vk_binding() {
    let got = bindings(SHADER, &opts("ps_6_0", "main"));
    assert_eq!(
        got,
        [
            b("$Globals", 0, 1),
            b("a", 0, 4),
            b("b", 6, 5),
            b("c", 1, 2),
            b("d", 0, 7),
            b("s", 0, 0)
        ]
    );
    let mut o = opts("ps_6_0", "main");
    o.default_space = Some(77);
    let got = bindings(SHADER, &o);
    assert_eq!(
        got,
        [
            b("$Globals", 77, 1),
            b("a", 77, 4),
            b("b", 6, 5),
            b("c", 1, 2),
            b("d", 77, 7),
            b("s", 77, 0)
        ]
    );
    o.bind_globals = Some((9, 8));
    assert!(bindings(SHADER, &o).contains(&b("$Globals", 8, 9)));
}

#[test]
fn bind_register_maps_every_resource_or_refuses() {
    let src = r#"
Texture2D t : register(t5);
SamplerState s : register(s3, space1);
float k;
float4 main() : SV_Target { return t.Sample(s, 0.5) * k; }
"#;
    let mut o = opts("ps_6_0", "main");
    o.bind_registers = vec![
        RegisterBinding {
            class: 't',
            number: 5,
            space: 0,
            binding: 1,
            set: 2,
        },
        RegisterBinding {
            class: 's',
            number: 3,
            space: 1,
            binding: 3,
            set: 4,
        },
    ];
    o.bind_globals = Some((7, 8));
    assert_eq!(
        bindings(src, &o),
        [b("$Globals", 8, 7), b("s", 4, 3), b("t", 2, 1)]
    );
    // Without -fvk-bind-globals, or with a resource that has no mapping: refused.
    o.bind_globals = None;
    let (r, out) = compile_with(src, &o);
    assert!(r.module.is_none());
    assert!(
        out.contains("error[OSH1031]") && out.contains("-fvk-bind-globals"),
        "{out}"
    );
    o.bind_globals = Some((7, 8));
    o.bind_registers.pop();
    let (_, out) = compile_with(src, &o);
    assert!(
        out.contains(
            "main.hlsl:3:14: error[OSH1031]: no -fvk-bind-register for `s` at register(s3, space1)"
        ),
        "{out}"
    );
}

/// glslang's `layout(set = S, binding = B)` is `[[vk::binding(B, S)]]`.
#[test]
fn glslang_layout_sets_the_binding() {
    let src = r#"
layout(set = 2, binding = 5) Texture2D t;
layout(binding = 3) SamplerState s;
float4 main() : SV_Target { return t.Sample(s, 0.5); }
"#;
    assert_eq!(
        bindings(src, &opts("ps_6_0", "main")),
        [b("s", 0, 3), b("t", 2, 5)]
    );
}

/// DX9's array register forms: `t[2]` is t2, `s1[2]` is s3.
#[test]
fn dx9_array_registers() {
    let src = r#"
Texture2D t : register(t[2]);
SamplerState s : register(s1[2]);
float4 main() : SV_Target { return t.Sample(s, 0.5); }
"#;
    assert_eq!(
        bindings(src, &opts("ps_6_0", "main")),
        [b("s", 0, 3), b("t", 0, 2)]
    );
}
