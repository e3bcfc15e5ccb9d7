//! Helpers shared by the backend's integration tests: parsing IR text, emitting, running
//! `spirv-val`, reading SPIR-V back with rspirv.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use oneshader_backends::spirv::{self, Options, TargetEnv};
use oneshader_ir::Module;
pub use oneshader_test_tools::spirv_val;

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("backends/ has a parent")
        .to_path_buf()
}

/// Parses IR text, panicking with the rendered diagnostics.
pub fn parse(text: &str) -> Module {
    match oneshader_ir::parse::parse(text) {
        Ok(m) => m,
        Err(d) => panic!("IR text does not parse: {d:?}\n{text}"),
    }
}

/// Legalizes a copy of `m` for SPIR-V and emits it with the given environment, panicking with
/// the diagnostics.
pub fn emit_env(m: &Module, env: TargetEnv) -> Vec<u32> {
    let mut m = m.clone();
    let legal = match oneshader_backends::prepare(&mut m, oneshader_backends::Target::Spirv) {
        Ok(l) => l,
        Err(d) => panic!(
            "legalization failed: {}",
            d.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        ),
    };
    match spirv::emit(&legal, &Options::for_env(env)) {
        Ok(w) => w,
        Err(d) => panic!(
            "emission failed: {}",
            d.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        ),
    }
}

/// Legalizes a copy of `m` for SPIR-V and emits it: the diagnostics of whichever refuses.
pub fn try_emit(m: &Module, opts: &Options) -> Result<Vec<u32>, oneshader_ir::Errors> {
    let mut m = m.clone();
    let legal = oneshader_backends::prepare(&mut m, oneshader_backends::Target::Spirv)?;
    spirv::emit(&legal, opts)
}

/// Emits for vulkan1.2.
pub fn emit(m: &Module) -> Vec<u32> {
    emit_env(m, TargetEnv::Vulkan1_2)
}

/// Asserts that spirv-val accepts the words.
pub fn assert_valid(words: &[u32], env: TargetEnv) {
    if let Err(e) = spirv_val(words, env) {
        panic!(
            "spirv-val --target-env {} rejects the module:\n{e}",
            env.spirv_val_name()
        );
    }
}

/// Reads the words back with rspirv.
pub fn load(words: &[u32]) -> rspirv::dr::Module {
    rspirv::dr::load_words(words).expect("rspirv parses what we emit")
}

/// Every instruction of the module's functions, in order.
pub fn function_insts(module: &rspirv::dr::Module) -> Vec<&rspirv::dr::Instruction> {
    let mut out = Vec::new();
    for f in &module.functions {
        for b in &f.blocks {
            out.extend(b.label.iter());
            out.extend(b.instructions.iter());
        }
    }
    out
}

/// How many instructions with this opcode the functions hold.
pub fn count_op(module: &rspirv::dr::Module, op: rspirv::spirv::Op) -> usize {
    function_insts(module)
        .iter()
        .filter(|i| i.class.opcode == op)
        .count()
}

/// Every `examples/ir/*.ir` file: (file name, text), sorted.
pub fn examples() -> Vec<(String, String)> {
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
    out
}

/// The entry points of `m`: (name, stage).
pub fn entry_points(m: &Module) -> Vec<(String, oneshader_ir::Stage)> {
    let mut out = Vec::new();
    for f in m.functions() {
        if let Some(d) = m.find_decoration(f.id(), oneshader_ir::Op::EntryPoint) {
            let stage = m
                .imm_operand(d, 0)
                .and_then(oneshader_ir::Stage::from_u32)
                .expect("a stage");
            let name = m
                .try_operand(d, 1)
                .and_then(|s| m.literal_str(s))
                .expect("a name")
                .to_string();
            out.push((name, stage));
        }
    }
    out
}

/// Legalizes a copy of `m` for GLSL and emits it: the diagnostics of whichever refuses.
pub fn emit_glsl(
    m: &Module,
    opts: &oneshader_backends::glsl::Options,
) -> Result<String, oneshader_ir::Errors> {
    let mut m = m.clone();
    let legal = oneshader_backends::prepare(&mut m, oneshader_backends::Target::Glsl)?;
    oneshader_backends::glsl::emit(&legal, opts)
}

/// `m` legalized for WGSL and emitted by the WGSL backend; every text it returns has been
/// parsed and validated by naga (`oneshader_test_tools::naga_validate`), so no test sees WGSL
/// naga rejects.
#[allow(dead_code)]
pub fn emit_wgsl(
    m: &Module,
    opts: &oneshader_backends::wgsl::Options,
) -> Result<String, Vec<oneshader_ir::Diagnostic>> {
    let mut m = m.clone();
    let legal = oneshader_backends::prepare(&mut m, oneshader_backends::Target::Wgsl)?;
    let text = oneshader_backends::wgsl::emit(&legal, opts)?;
    if let Err(e) = oneshader_test_tools::naga_validate(&text) {
        panic!("naga rejects the WGSL backend's output:\n{e}\n{text}");
    }
    Ok(text)
}
