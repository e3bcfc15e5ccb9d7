//! Every example module of examples/ir goes through the SPIR-V backend and `spirv-val`:
//! modules with an entry point as Vulkan 1.2 shaders (and in every other Vulkan environment),
//! library modules (no entry point) as universal SPIR-V 1.5 libraries with the `Linkage`
//! capability (spirv-val requires an entry point in Vulkan environments).

mod common;

use common::*;
use oneshader_backends::spirv::{Options, TargetEnv};
use oneshader_ir::Op;

fn examples() -> Vec<(String, String)> {
    let dir = root().join("examples/ir");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("examples/ir exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ir"))
        .map(|p| {
            (
                p.file_name().expect("a file").to_string_lossy().to_string(),
                std::fs::read_to_string(&p).expect("readable example"),
            )
        })
        .collect();
    out.sort();
    assert!(out.len() >= 14, "the examples are there");
    out
}

fn has_entry(m: &oneshader_ir::Module) -> bool {
    m.functions()
        .iter()
        .any(|f| m.has_decoration(f.id(), Op::EntryPoint))
}

#[test]
fn every_example_validates() {
    let mut shaders = 0;
    for (name, text) in examples() {
        let m = parse(&text);
        if name == "generic.ir" {
            // Generics reach no backend: legalization specializes them (below, through
            // `prepare`), and a module that skipped it is stopped at the boundary.
            let err = oneshader_backends::Legal::new(&m, oneshader_backends::Target::Spirv)
                .expect_err("an unspecialized generic is not legal");
            assert!(
                err.iter().any(|d| d.code == "OSG0001"
                    && d.notes.iter().any(|n| n.contains("specialize_generic"))),
                "{err:?}"
            );
        }
        if has_entry(&m) {
            shaders += 1;
            // Mesh shading and ray tracing need SPIR-V 1.4: below it they are refused.
            let needs_1_4 = matches!(name.as_str(), "mesh.ir" | "raytracing.ir");
            for env in [
                TargetEnv::Vulkan1_0,
                TargetEnv::Vulkan1_1,
                TargetEnv::Vulkan1_1Spirv1_4,
                TargetEnv::Vulkan1_2,
                TargetEnv::Vulkan1_3,
            ] {
                if needs_1_4 && env.minor() < 4 {
                    let e = common::try_emit(&m, &Options::for_env(env))
                        .expect_err("refused below SPIR-V 1.4");
                    assert!(
                        e.iter().all(|d| d.code == "OSB0006"),
                        "{name} ({env}): {e:?}"
                    );
                    continue;
                }
                let words = emit_env(&m, env);
                if let Err(e) = spirv_val(&words, env) {
                    panic!("{name} ({env}): {e}");
                }
            }
        } else {
            let words = emit_env(&m, TargetEnv::Universal(5));
            if let Err(e) = spirv_val(&words, TargetEnv::Universal(5)) {
                panic!("{name} (library): {e}");
            }
            let module = load(&words);
            assert!(
                module.capabilities.iter().any(|c| c.operands[0]
                    == rspirv::dr::Operand::Capability(rspirv::spirv::Capability::Linkage)),
                "{name}: a library declares Linkage"
            );
        }
    }
    assert!(shaders >= 4, "the four shader examples ran");
}
