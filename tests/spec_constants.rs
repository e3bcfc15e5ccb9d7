//! Specialization-constant overrides (`CompileOptions::spec_constants`, `oneshader compile
//! --spec-const ID|NAME=VALUE`): the overridden constants take the value before the optimizer
//! runs (so it folds), the others stay specialization constants. Run on lavapipe.

mod support;

use oneshader::{CompileOptions, Compiler, OptLevel, SpecConstKey, SpecValue};
use oneshader_vulkan_harness::{Binding, Gpu, Resource};

const SHADER: &str = r#"
[[vk::constant_id(3)]] const int N = 4;
[[vk::constant_id(5)]] const float scale = 1.5;
[[vk::constant_id(7)]] const bool flip = false;
RWStructuredBuffer<float> o : register(u0);
[numthreads(1, 1, 1)]
void main() { o[0] = N * scale * (flip ? -1 : 1); }
"#;

fn run(overrides: &[(SpecConstKey, SpecValue)], level: OptLevel) -> (f32, usize) {
    let mut opts = CompileOptions::new("cs_6_0").opt_level(level);
    opts.spec_constants = overrides.to_vec();
    let out = Compiler::new()
        .compile_source("spec.hlsl", SHADER, &opts)
        .unwrap_or_else(|e| panic!("{e}\n{}", e.diagnostics.render()));
    support::assert_valid(&out.spirv, opts.target_env, "the specialized shader");
    let text = oneshader::backends::spirv::disassemble(&out.spirv).expect("disassembles");
    let specs = text.matches("OpSpecConstant").count();
    let gpu = Gpu::new();
    let mut b = vec![Binding::new(0, 0, Resource::StorageBuffer(vec![0]))];
    gpu.dispatch(&out.spirv, "main", &mut b, &[], [1, 1, 1]);
    (f32::from_bits(b[0].words()[0]), specs)
}

#[test]
fn overrides_replace_spec_constants_by_id_and_name() {
    for level in [OptLevel::O0, OptLevel::O] {
        assert_eq!(run(&[], level), (6.0, 3), "defaults ({level:?})");
        let (v, specs) = run(
            &[
                (SpecConstKey::Id(3), SpecValue::Int(10)),
                ("scale".parse().expect("a key"), SpecValue::Int(2)),
            ],
            level,
        );
        assert_eq!(v, 20.0, "{level:?}");
        assert_eq!(specs, 1, "only `flip` stays a spec constant ({level:?})");
        let (v, _) = run(
            &[(SpecConstKey::Name("flip".into()), SpecValue::Bool(true))],
            level,
        );
        assert_eq!(v, -6.0, "{level:?}");
    }
}

#[test]
fn overrides_that_do_not_apply_are_errors() {
    let compile = |key: SpecConstKey, value: SpecValue| {
        let mut opts = CompileOptions::new("cs_6_0");
        opts.spec_constants = vec![(key, value)];
        match Compiler::new().compile_source("spec.hlsl", SHADER, &opts) {
            Ok(_) => panic!("compiled"),
            Err(e) => e.diagnostics.render(),
        }
    };
    let e = compile(SpecConstKey::Name("nope".into()), SpecValue::Int(1));
    assert!(
        e.contains("error[OSC0057]") && e.contains("`nope`") && e.contains("3 (N)"),
        "{e}"
    );
    let e = compile(SpecConstKey::Id(3), SpecValue::Float(1.5));
    assert!(e.contains("error[OSC0057]") && e.contains("1.5"), "{e}");
    let e = compile(SpecConstKey::Id(3), SpecValue::Int(1 << 40));
    assert!(e.contains("out of range"), "{e}");
    assert_eq!(
        oneshader::parse_spec_value("-0x10"),
        Some(SpecValue::Int(-16))
    );
    assert_eq!(
        oneshader::parse_spec_value("2.5"),
        Some(SpecValue::Float(2.5))
    );
    assert_eq!(oneshader::parse_spec_value("yes"), None);
}
