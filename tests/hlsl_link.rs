//! HLSL libraries that link: a library compiled with a `lib_*` profile exports its `export`
//! functions, a shader compiled for IR declares the functions it calls without a body as
//! imports, `link` binds them, and the linked module runs (docs/linking.md). Also: a library
//! profile compiles every `[shader("...")]` entry point of a file into one module, and a
//! prototype called from a SPIR-V compilation (a library's too) is still an error (OSH1026)
//! naming the way to link it.
//!
//! The execution test fails (never skips) when the Vulkan loader or lavapipe is missing, with
//! a message naming `cargo xtask setup`.

mod support;

use oneshader::backends::{self, Target, spirv};
use oneshader::ir::Module;
use oneshader::passes::link::{LinkOptions, link};
use oneshader::{CompileOptions, Compiler, OptLevel, TargetEnv};
use oneshader_vulkan_harness::Gpu;
use support::assert_valid;

const LIBRARY: &str = "
export float scale(float x, float k) { return x * k; }
export void accumulate(inout float total, float x) { total += x; }
float not_exported(float x) { return x + 100.0; }
";

const SHADER: &str = "
float scale(float x, float k);
void accumulate(inout float total, float x);
RWStructuredBuffer<float> data;
[numthreads(4, 1, 1)]
void main(uint id : SV_DispatchThreadID) {
    float t = 1.0;
    accumulate(t, data[id]);
    data[id] = scale(t, 3.0);
}
";

/// The IR module of `src` compiled for `profile` at `level` (no SPIR-V: for linking).
fn ir(src: &str, profile: &str, level: OptLevel) -> Module {
    let mut opts = CompileOptions::new(profile).opt_level(level);
    opts.emit_spirv = false;
    opts.keep_final_ir = true;
    let out = Compiler::new()
        .compile_source(format!("{profile}.hlsl"), src, &opts)
        .unwrap_or_else(|e| panic!("{e}\n{}", e.diagnostics.render()));
    out.ir.final_module.expect("kept")
}

fn symbols(m: &Module, op: oneshader::ir::Op) -> Vec<String> {
    m.functions()
        .into_iter()
        .filter_map(|f| {
            let d = m.find_decoration(f.id(), op)?;
            let s = m.try_operand(d, 0)?;
            Some(m.literal_str(s)?.to_string())
        })
        .collect()
}

#[test]
fn exports_and_imports_carry_mangled_symbols() {
    let lib = ir(LIBRARY, "lib_6_3", OptLevel::O);
    assert_eq!(
        symbols(&lib, oneshader::ir::Op::Export),
        [
            "scale(f32,f32)->f32",
            "accumulate(ptr<function,f32>,f32)->void"
        ]
    );
    // A function that is neither exported nor called is not in a library.
    assert!(lib.func_by_name("not_exported").is_none());
    let shader = ir(SHADER, "cs_6_0", OptLevel::O);
    let mut imports = symbols(&shader, oneshader::ir::Op::Import);
    imports.sort();
    assert_eq!(
        imports,
        [
            "accumulate(ptr<function,f32>,f32)->void",
            "scale(f32,f32)->f32"
        ]
    );
    for f in shader.functions() {
        if shader.has_decoration(f.id(), oneshader::ir::Op::Import) {
            assert!(f.is_declaration(&shader), "an import has no body");
        }
    }
}

#[test]
fn separately_compiled_files_link_and_run() {
    let gpu = Gpu::new();
    for level in [OptLevel::O0, OptLevel::O] {
        let modules = [ir(SHADER, "cs_6_0", level), ir(LIBRARY, "lib_6_3", level)];
        let opts = LinkOptions {
            keep_exports: false,
            module_names: vec!["shader".into(), "library".into()],
            ..Default::default()
        };
        let mut linked = link(&modules, &opts).unwrap_or_else(|d| panic!("{d:#?}"));
        let legal = backends::prepare(&mut linked, Target::Spirv).expect("legal");
        let words = spirv::emit(&legal, &spirv::Options::default()).expect("emits");
        assert_valid(&words, TargetEnv::Vulkan1_2, "the linked module");
        let input = [1.0f32, 2.5, -4.0, 10.0];
        let mut buffers = vec![input.iter().map(|f| f.to_bits()).collect::<Vec<u32>>()];
        gpu.run(&words, "main", &mut buffers, [1, 1, 1]);
        let got: Vec<f32> = buffers[0].iter().map(|&w| f32::from_bits(w)).collect();
        let want: Vec<f32> = input.iter().map(|x| (1.0 + x) * 3.0).collect();
        assert_eq!(got, want, "{level:?}");
    }
}

#[test]
fn a_called_prototype_without_linking_is_an_error() {
    let err = Compiler::new()
        .compile_source("shader.hlsl", SHADER, &CompileOptions::new("cs_6_0"))
        .expect_err("nothing defines `scale`");
    let text = err.diagnostics.render();
    assert!(
        text.contains("error[OSH1026]: `scale` is called but never defined"),
        "{text}"
    );
    assert!(text.contains("--target osir"), "{text}");
    // A library profile bound for SPIR-V is no exception: the import would reach the
    // backend, which cannot emit it; the front end names the prototype instead.
    let lib = SHADER.replace("[numthreads", "[shader(\"compute\")] [numthreads");
    let err = Compiler::new()
        .compile_source("lib.hlsl", &lib, &CompileOptions::new("lib_6_3"))
        .expect_err("nothing defines `scale`");
    let text = err.diagnostics.render();
    assert!(
        text.contains("lib.hlsl:2:7: error[OSH1026]: `scale` is called but never defined"),
        "{text}"
    );
    // For IR the same library imports it.
    let m = ir(&lib, "lib_6_3", OptLevel::O0);
    assert_eq!(
        symbols(&m, oneshader::ir::Op::Import).len(),
        2,
        "scale and accumulate"
    );
}

#[test]
fn a_library_holds_every_shader_entry_point() {
    const SRC: &str = "
struct Payload { float4 color; };
struct Attribs { float2 bary; };
RaytracingAccelerationStructure scene : register(t0);
RWTexture2D<float4> image : register(u0);
[shader(\"raygeneration\")]
void raygen() {
    RayDesc ray;
    ray.Origin = float3(DispatchRaysIndex().xy, 0.0);
    ray.TMin = 0.001;
    ray.Direction = float3(0.0, 0.0, 1.0);
    ray.TMax = 100.0;
    Payload p = (Payload)0;
    TraceRay(scene, RAY_FLAG_NONE, 0xff, 0, 1, 0, ray, p);
    image[DispatchRaysIndex().xy] = p.color;
}
[shader(\"closesthit\")]
void hit(inout Payload p, in Attribs a) { p.color = float4(a.bary, RayTCurrent(), 1.0); }
[shader(\"miss\")]
void miss(inout Payload p) { p.color = float4(0.0, 0.0, 0.0, 1.0); }
[shader(\"compute\")]
[numthreads(8, 8, 1)]
void clear(uint2 id : SV_DispatchThreadID) { image[id] = 0.0; }
float4 helper() { return 1.0; }
";
    let opts = CompileOptions::new("lib_6_3").target_env(TargetEnv::Vulkan1_2);
    let out = Compiler::new()
        .compile_source("lib.hlsl", SRC, &opts)
        .unwrap_or_else(|e| panic!("{e}\n{}", e.diagnostics.render()));
    assert_eq!(out.stage, None, "a library has no single stage");
    assert_valid(&out.spirv, TargetEnv::Vulkan1_2, "the library");
    let text = spirv::disassemble(&out.spirv).expect("parses");
    for entry in [
        "OpEntryPoint RayGenerationKHR",
        "OpEntryPoint ClosestHitKHR",
        "OpEntryPoint MissKHR",
        "OpEntryPoint GLCompute",
    ] {
        assert!(text.contains(entry), "{entry} missing:\n{text}");
    }
}

#[test]
fn a_library_without_entry_points_is_spirv_for_universal_environments_only() {
    // Vulkan has no `Linkage`: refused with the ways out, not emitted invalid.
    let opts = CompileOptions::new("lib_6_3").target_env(TargetEnv::Vulkan1_2);
    let err = Compiler::new()
        .compile_source("lib.hlsl", LIBRARY, &opts)
        .expect_err("a library for Vulkan");
    let text = err.diagnostics.render();
    assert!(
        text.contains("error[OSB0006]") && text.contains("universal1.5"),
        "{text}"
    );
    let env = TargetEnv::Universal(5);
    let out = Compiler::new()
        .compile_source("lib.hlsl", LIBRARY, &opts.clone().target_env(env))
        .unwrap_or_else(|e| panic!("{e}\n{}", e.diagnostics.render()));
    assert_valid(&out.spirv, env, "the library");
    let text = spirv::disassemble(&out.spirv).expect("parses");
    assert!(text.contains("OpCapability Linkage"), "{text}");
    assert!(text.contains("\"scale\""), "{text}");
}
