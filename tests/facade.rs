//! The library facade: compiling in process with in-memory includes, the options reaching the
//! front end, the optimizer and the backend, the IR modules kept on request, and errors with
//! rendered diagnostics.

mod support;

use oneshader::reflect::Type;
use oneshader::{
    BufferLayout, CompileOptions, Compiler, MacroOp, MatrixOrder, OptLevel, Phase, TargetEnv,
};
use support::*;

const SHADER: &str = r#"
#include "shared/constants.hlsli"
RWStructuredBuffer<float> data : register(u0);
[numthreads(GROUP, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { data[id.x] = data[id.x] * SCALE; }
"#;

#[test]
fn in_memory_includes_and_defines() {
    let mut c = Compiler::new();
    c.add_include("shared/constants.hlsli", "#define GROUP 32\n");
    let opts = CompileOptions::new("cs_6_0")
        .define("SCALE", Some("2.5"))
        .with_reflection();
    let out = c
        .compile_source("main.hlsl", SHADER, &opts)
        .expect("compiles");
    assert_valid(&out.spirv, TargetEnv::Vulkan1_2, "the in-memory shader");
    let r = out.reflection.expect("asked for");
    assert_eq!(r.entry_points[0].workgroup_size, Some([32, 1, 1]));
    // The define reaches the code: the constant 2.5 is in the module.
    let spv = rspirv::dr::load_words(&out.spirv).expect("parses");
    let has_2_5 = spv.types_global_values.iter().any(|i| {
        i.class.opcode == rspirv::spirv::Op::Constant
            && i.operands.first() == Some(&rspirv::dr::Operand::LiteralBit32(2.5f32.to_bits()))
    });
    assert!(has_2_5, "SCALE=2.5 reached the shader");
    // -U after -D undefines it again.
    let mut opts = opts;
    opts.macros.push(MacroOp::Undef("SCALE".into()));
    let e = c.compile_source("main.hlsl", SHADER, &opts).unwrap_err();
    assert_eq!(e.phase, Phase::FrontEnd);
    assert!(
        e.diagnostics.render().contains("undefined name `SCALE`"),
        "{}",
        e.diagnostics
    );
}

/// A source compiled under a name in a folder still finds an in-memory include added under
/// its own name, and a missing include lists the folders searched.
#[test]
fn in_memory_includes_beside_a_source_in_a_folder() {
    let mut c = Compiler::new();
    c.set_filesystem_access(false);
    c.add_include("shared/constants.hlsli", "#define GROUP 8\n");
    let opts = CompileOptions::new("cs_6_0").define("SCALE", Some("1.0"));
    let out = c
        .compile_source("shaders/deep/main.hlsl", SHADER, &opts)
        .expect("the in-memory include is found by the name it was added under");
    assert_valid(&out.spirv, TargetEnv::Vulkan1_2, "the shader in a folder");
    let e = c
        .compile_source(
            "shaders/deep/main.hlsl",
            "#include \"missing.hlsli\"\n",
            &CompileOptions::new("cs_6_0").include_dir("extra"),
        )
        .expect_err("no such include");
    let text = e.diagnostics.render();
    assert!(text.contains("error[OSP0005]"), "{text}");
    assert!(
        text.contains("searched: shaders/deep, extra, the working folder"),
        "{text}"
    );
}

#[test]
fn file_system_access_can_be_turned_off() {
    // An include that exists only on disk: found with file-system access, not without.
    let mut c = Compiler::new();
    let include = root().join("examples/hlsl");
    let src = "#include \"prefix_sum.hlsl\"\n";
    let opts = CompileOptions::new("cs_6_0").include_dir(&include);
    c.compile_source("wrapper.hlsl", src, &opts)
        .expect("the include is read from disk");
    c.set_filesystem_access(false);
    let e = c.compile_source("wrapper.hlsl", src, &opts).unwrap_err();
    assert_eq!(e.phase, Phase::FrontEnd);
    assert!(
        e.diagnostics.render().contains("OSP0005"),
        "{}",
        e.diagnostics
    );
    // compile_file reads the main file from memory too.
    c.add_include("virtual/main.hlsl", SHADER)
        .add_include("virtual/shared/constants.hlsli", "#define GROUP 8\n");
    let out = c
        .compile_file(
            "virtual/main.hlsl",
            &CompileOptions::new("cs_6_0").define("SCALE", None),
        )
        .expect("compiles from memory");
    assert!(!out.spirv.is_empty());
}

#[test]
fn errors_name_their_phase_and_render_with_carets() {
    let c = Compiler::new();
    let e = c
        .compile_source(
            "bad.hlsl",
            "float4 main(float2 uv : TEXCOORD0) : SV_Target {\n    return undefinedThing * uv.x;\n}\n",
            &CompileOptions::new("ps_6_0"),
        )
        .unwrap_err();
    assert_eq!(e.phase, Phase::FrontEnd);
    assert!(e.diagnostics.has_errors());
    let text = e.diagnostics.render();
    assert!(
        text.contains("bad.hlsl:2:12: error[OSH1001]: undefined name `undefinedThing`"),
        "{text}"
    );
    assert!(text.contains("    return undefinedThing * uv.x;"), "{text}");
    assert!(text.contains("^^^^^^^^^^^^^^"), "{text}");
    assert_eq!(
        e.to_string(),
        "the source has errors: bad.hlsl:2:12: error[OSH1001]: undefined name `undefinedThing`"
    );
    assert!(format!("{e:#}").contains("    return undefinedThing * uv.x;"));
    let e = c
        .compile_source("x.hlsl", "void main() {}", &CompileOptions::new("ms_6_4"))
        .unwrap_err();
    assert!(
        e.diagnostics.render().contains("OSH1021"),
        "{}",
        e.diagnostics
    );
}

#[test]
fn ir_modules_are_kept_on_request() {
    let c = Compiler::new();
    let mut opts = CompileOptions::new("cs_6_0").define("SCALE", Some("3.0"));
    let mut c2 = c.clone();
    c2.add_include("shared/constants.hlsli", "#define GROUP 4\n");
    let out = c2
        .compile_source("k.hlsl", SHADER, &opts)
        .expect("compiles");
    assert!(out.ir.unoptimized.is_none() && out.ir.final_module.is_none());
    opts.keep_unoptimized_ir = true;
    opts.keep_final_ir = true;
    opts.emit_spirv = false;
    let out = c2
        .compile_source("k.hlsl", SHADER, &opts)
        .expect("compiles");
    assert!(out.spirv.is_empty(), "no SPIR-V when not asked for");
    let before = out.ir.unoptimized.expect("kept");
    let after = out.ir.final_module.expect("kept");
    // The lowered module has the entry wrapper calling the body; -O inlines it.
    let text_before = oneshader::ir::print::print_module(&before);
    let text_after = oneshader::ir::print::print_module(&after);
    assert!(text_before.contains("call @main_body"), "{text_before}");
    assert!(!text_after.contains("call @main_body"), "{text_after}");
    assert!(oneshader::ir::verify::verify(&after).is_empty());
    // At -O0 the call stays (legalization only).
    opts.opt_level = OptLevel::O0;
    let out = c2
        .compile_source("k.hlsl", SHADER, &opts)
        .expect("compiles");
    let text = oneshader::ir::print::print_module(&out.ir.final_module.expect("kept"));
    assert!(text.contains("call @main_body"), "{text}");
}

#[test]
fn options_reach_the_backend() {
    let src = r#"
cbuffer C : register(b0) { float a; float3 b; float2x2 m; };
RWStructuredBuffer<float4> o : register(u1);
[numthreads(1, 1, 1)] void main() { o[0] = float4(b, a) + m[1].xyxy; }
"#;
    let c = Compiler::new();
    let mut opts = CompileOptions::new("cs_6_0").with_reflection();
    opts.target_env = TargetEnv::Vulkan1_0;
    let out = c.compile_source("l.hlsl", src, &opts).expect("compiles");
    // SPIR-V 1.0 for vulkan1.0.
    assert_eq!(out.spirv[1], 0x0001_0000);
    assert_valid(&out.spirv, TargetEnv::Vulkan1_0, "vulkan1.0 output");
    let offset_of = |out: &oneshader::CompileOutput, name: &str| {
        let r = out.reflection.as_ref().expect("asked for");
        let Some(Type::Struct { members, .. }) = &r.resource("C").expect("C").ty else {
            panic!("a struct")
        };
        members
            .iter()
            .find(|m| m.name == name)
            .and_then(|m| m.offset)
            .expect("laid out")
    };
    assert_eq!(offset_of(&out, "b"), 4);
    opts.layout = BufferLayout::Gl;
    opts.target_env = TargetEnv::Vulkan1_2;
    let out = c.compile_source("l.hlsl", src, &opts).expect("compiles");
    assert_eq!(offset_of(&out, "b"), 16);
    assert_eq!(out.spirv[1], 0x0001_0500);
    // -Zpr: matrices are row-major unless declared otherwise.
    opts.matrix_order = MatrixOrder::RowMajor;
    let out = c.compile_source("l.hlsl", src, &opts).expect("compiles");
    let r = out.reflection.expect("asked for");
    let Some(Type::Struct { members, .. }) = &r.resource("C").expect("C").ty else {
        panic!("a struct")
    };
    let Type::Matrix { row_major, .. } = &members[2].ty else {
        panic!("a matrix")
    };
    assert_eq!(*row_major, Some(true));
    // Debug names can be left out.
    opts.debug_names = false;
    let out = c.compile_source("l.hlsl", src, &opts).expect("compiles");
    let spv = rspirv::dr::load_words(&out.spirv).expect("parses");
    assert!(spv.debug_names.is_empty());
}

/// Errors travel through `?`: a failed compilation and a failed IR parse, boxed as
/// `dyn Error`, still say what went wrong and where, and their `Debug` stays short (no
/// source text).
#[test]
fn errors_keep_their_diagnostics_through_question_mark() {
    fn compile(src: &str) -> Result<Vec<u32>, Box<dyn std::error::Error>> {
        let out = Compiler::new().compile_source("e.hlsl", src, &CompileOptions::new("ps_6_0"))?;
        Ok(out.spirv)
    }
    let long_comment = format!("// {}\n", "x".repeat(4000));
    let src = format!("{long_comment}float4 main() : SV_Target {{ return a + b; }}\n");
    let e = compile(&src).unwrap_err();
    let text = e.to_string();
    assert!(
        text.starts_with("the source has errors: e.hlsl:2:36: error[OSH1001]: undefined name `a`"),
        "{text}"
    );
    assert!(text.ends_with("(and 1 more error)"), "{text}");
    let debug = format!("{e:?}");
    assert!(
        debug.contains("OSH1001") && debug.contains("FrontEnd"),
        "{debug}"
    );
    assert!(
        debug.len() < 400,
        "Debug carries the source: {} bytes",
        debug.len()
    );

    fn parse_ir(text: &str) -> Result<oneshader::ir::Module, Box<dyn std::error::Error>> {
        Ok(oneshader::ir::parse::parse(text)?)
    }
    let e = parse_ir("func @f() -> void {\nbb0:\n  %0 = frobnicate\n}\n").unwrap_err();
    assert!(e.to_string().starts_with("error[OST"), "{e}");
}

/// `Compiler::preprocess_file` reports a missing include as a front-end error naming the
/// include, with its position, and does not return half a text.
#[test]
fn preprocess_reports_missing_includes() {
    let mut c = Compiler::new();
    c.set_filesystem_access(false);
    c.add_include(
        "main.hlsl",
        "#define A 1\n#include \"absent.hlsli\"\nfloat f() { return A; }\n",
    );
    let e = c
        .preprocess_file("main.hlsl", &CompileOptions::new("ps_6_0"))
        .unwrap_err();
    assert_eq!(e.phase, Phase::FrontEnd);
    let text = e.to_string();
    assert!(
        text.contains("main.hlsl:2:") && text.contains("absent.hlsli"),
        "{text}"
    );
}

/// `Compiler::finish_module` refuses a module that does not verify, with the verifier's
/// diagnostics, instead of handing it to a backend.
#[test]
fn finish_module_refuses_a_module_that_does_not_verify() {
    let mut m = oneshader::ir::Module::new();
    let void = m.void_type();
    // A function whose block has no terminator.
    m.add_func("main", void, &[]);
    let e = Compiler::new()
        .finish_module("broken", m, &CompileOptions::new("cs_6_0"))
        .unwrap_err();
    assert_eq!(e.phase, Phase::FrontEnd);
    assert!(
        e.diagnostics.iter().any(|d| d.code.starts_with("OSV")),
        "{e:#}"
    );
}
