//! The MSL backend on the compute programs of `backends/tests/compute/*.ir` and the IR
//! examples: every output compiles with clang (C++17) against the stand-in `<metal_stdlib>`
//! (there is no Metal compiler on Linux), and its interface (buffer indices, built-ins, stage
//! IO) equals that of `spirv-cross --msl` on our own SPIR-V for the same module. Programs the
//! backend refuses are listed with the code of the refusal and checked to be refused so.

mod common;

use common::{emit, entry_points, parse, root};
use oneshader_backends::{Target, msl, prepare};
use oneshader_ir::Module;
use oneshader_test_tools::msl_check;

/// Legalizes a copy of `m` for MSL and emits `entry`.
fn emit_msl(m: &Module, opts: &msl::Options) -> Result<String, oneshader_ir::Errors> {
    let mut m = m.clone();
    let legal = prepare(&mut m, Target::Msl)?;
    msl::emit(&legal, opts)
}

/// Our MSL of `entry` compiles with clang, and has spirv-cross's interface for our SPIR-V.
fn check_entry(what: &str, m: &Module, entry: &str) -> Result<String, String> {
    let text = emit_msl(m, &msl::Options::for_entry(entry)).map_err(|d| {
        format!(
            "{what}: the MSL backend refused `{entry}`:\n{}",
            d.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        )
    })?;
    msl_check(&text, &emit(m), entry).map_err(|e| format!("{what}: {e}"))?;
    Ok(text)
}

/// Programs of backends/tests/compute the MSL backend refuses, with the code: none since
/// `split.ir`'s column-major matrix in a struct value (a row of it read by constant index)
/// stays a plain matrix there, its buffer's struct being legalization's row-major copy.
const REFUSED: &[(&str, &str)] = &[];

#[test]
fn compute_programs_compile_with_clang_and_match_spirv_cross_interfaces() {
    let dir = root().join("backends/tests/compute");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("backends/tests/compute exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ir"))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    for p in files {
        let name = p.file_name().expect("a file").to_string_lossy().to_string();
        let m = parse(&std::fs::read_to_string(&p).expect("readable"));
        if let Some((_, code)) = REFUSED.iter().find(|(f, _)| *f == name) {
            let d = emit_msl(&m, &msl::Options::for_entry("main")).expect_err("listed as refused");
            assert!(d.iter().any(|d| d.code == *code), "{name}: {d:#?}");
            continue;
        }
        for (entry, _) in entry_points(&m) {
            if let Err(e) = check_entry(&name, &m, &entry) {
                failures.push(e);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
