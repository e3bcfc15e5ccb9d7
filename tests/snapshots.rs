//! Snapshots of every backend's output for every example entry point, naga-style: a change to
//! any backend's output shows in review as a diff of a readable file.
//!
//! For each entry point of `examples/hlsl` (the documented command lines, compiled at `-O`),
//! of `examples/ir` and of the backends' compute programs `backends/tests/compute` (each
//! module with entry points, legalized as `oneshader emit` does; names `ir_...`,
//! `compute_...`):
//!
//! - `tests/out/spirv/<name>.snap.spvasm`: the SPIR-V backend's module (vulkan1.2), as
//!   rspirv's disassembly (one file per IR module, which holds all its entry points);
//! - `tests/out/glsl/<name>.snap.glsl`: the GLSL backend's text, one file per entry point
//!   (`<name>.snap.refused.txt`: the GLSL backend's refusal, for a module GLSL cannot state);
//! - `tests/out/wgsl/<name>.snap.wgsl`: the WGSL backend's text, one file per entry point
//!   (`<name>.snap.refused.txt`: the WGSL backend's refusal, for a shader WGSL cannot state);
//! - `tests/out/msl/<name>.snap.metal`: the MSL backend's text, one file per entry point
//!   (`<name>.snap.refused.txt`: the MSL backend's refusal).
//!
//! Every GLSL text also goes through glslang and spirv-val here (the IR examples' in
//! backends/tests/glsl_examples.rs too), and every WGSL text through naga's parser and
//! validator, and every MSL text through clang (C++17, against the stand-in `<metal_stdlib>`)
//! and the interface comparison with `spirv-cross --msl` on our SPIR-V, so no snapshot records
//! output glslang, naga or clang rejects.
//!
//! Each content file has insta's metadata beside it (`<name>.snap`). To review a change, run
//! the test (failures leave `.snap.new` files) and `cargo insta review` (cargo-insta); without
//! cargo-insta, `INSTA_UPDATE=always cargo test --test snapshots` rewrites the snapshots and
//! `git diff tests/out` shows what changed. Commit the snapshots with the change that causes
//! them.

mod support;

use oneshader::backends::{self, Target, glsl, msl, spirv, wgsl};
use oneshader::{CompileOptions, TargetEnv};
use oneshader_test_tools::{GlslStage, glslang_and_validate, msl_check, naga_validate};
use support::*;

/// Asserts `text` as the snapshot `name.ext` under `tests/out/<target>/`.
fn snapshot(target: &str, name: &str, ext: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(format!("out/{target}"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| {
        insta::assert_binary_snapshot!(&format!("{name}.{ext}"), text.as_bytes().to_vec());
    });
}

/// A file stem usable in a snapshot name.
fn stem(file: &str) -> String {
    file.trim_end_matches(".hlsl")
        .trim_end_matches(".ir")
        .replace('.', "_")
}

#[test]
fn hlsl_examples() {
    let entries = documented_entry_points();
    assert!(entries.len() >= 7, "{entries:?}");
    for (file, profile, entry) in entries {
        let name = format!("hlsl_{}_{entry}", stem(&file));
        let path = format!("examples/hlsl/{file}");
        let opts = CompileOptions::new(profile.as_str()).entry(entry.as_str());
        let out = compile_file(&path, &opts);
        let words = out.spirv.clone();
        let asm = spirv::disassemble(&out.spirv).expect("the SPIR-V disassembles");
        snapshot("spirv", &name, "spvasm", &asm);
        let out = compile_file(&path, &opts.clone().target(Target::Glsl));
        let text = out.glsl.as_deref().expect("GLSL text");
        let stage = match &profile[..2] {
            "vs" => GlslStage::Vertex,
            "ps" => GlslStage::Fragment,
            "cs" => GlslStage::Compute,
            "gs" => GlslStage::Geometry,
            "hs" => GlslStage::TessControl,
            "ds" => GlslStage::TessEvaluation,
            other => panic!("{file}: no GLSL stage for profile `{other}`"),
        };
        glslang_and_validate(text, stage).unwrap_or_else(|e| panic!("{name}: {e}"));
        snapshot("glsl", &name, "glsl", text);
        match oneshader::Compiler::new()
            .compile_file(root().join(&path), &opts.clone().target(Target::Wgsl))
        {
            Ok(out) => {
                let text = out.wgsl.as_deref().expect("WGSL text");
                naga_validate(text)
                    .unwrap_or_else(|e| panic!("{name}: naga rejects the WGSL:\n{e}"));
                snapshot("wgsl", &name, "wgsl", text);
            }
            // What WGSL cannot state is refused by name: the refusal is the snapshot.
            Err(e) => {
                let codes: Vec<String> = e
                    .diagnostics
                    .list
                    .iter()
                    .map(|d| format!("error[{}]: {}", d.code, d.message))
                    .collect();
                assert!(
                    codes.iter().any(|c| c.contains("[OSB02")),
                    "{name}: the WGSL backend failed without a refusal of its own: {codes:#?}"
                );
                snapshot("wgsl", &name, "refused.txt", &(codes.join("\n") + "\n"));
            }
        }
        match oneshader::Compiler::new()
            .compile_file(root().join(&path), &opts.clone().target(Target::Msl))
        {
            Ok(out) => {
                let text = out.msl.as_deref().expect("MSL text");
                msl_check(text, &words, &entry).unwrap_or_else(|e| panic!("{name}: {e}"));
                snapshot("msl", &name, "metal", text);
            }
            // What the MSL backend cannot state is refused by name: the refusal is the
            // snapshot.
            Err(e) => {
                let codes: Vec<String> = e
                    .diagnostics
                    .list
                    .iter()
                    .map(|d| format!("error[{}]: {}", d.code, d.message))
                    .collect();
                assert!(
                    codes.iter().any(|c| c.contains("[OSB03")),
                    "{name}: the MSL backend failed without a refusal of its own: {codes:#?}"
                );
                snapshot("msl", &name, "refused.txt", &(codes.join("\n") + "\n"));
            }
        }
    }
}

#[test]
fn ir_examples() {
    let entries = ir_snapshots(&root().join("examples/ir"), "ir");
    assert!(entries >= 4, "the shader examples ran ({entries})");
}

/// The compute programs of the backends' execution tests (backends/tests/compute/*.ir).
#[test]
fn compute_programs() {
    let entries = ir_snapshots(&root().join("backends/tests/compute"), "compute");
    assert!(entries >= 10, "the compute programs ran ({entries})");
}

/// Snapshots of every backend's output for each module with entry points in `dir`, named
/// `<prefix>_<file>[_<entry>]`; the number of entry points.
fn ir_snapshots(dir: &std::path::Path, prefix: &str) -> usize {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("readable").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ir"))
        .collect();
    files.sort();
    let mut entries = 0;
    for path in files {
        let file = path
            .file_name()
            .expect("a file")
            .to_string_lossy()
            .to_string();
        let text = std::fs::read_to_string(&path).expect("readable");
        let m = oneshader::ir::parse::parse(&text).expect("the example parses");
        let names = entry_names(&m);
        if names.is_empty() {
            continue;
        }
        let mut sm = m.clone();
        let legal = backends::prepare(&mut sm, Target::Spirv).expect("legal for SPIR-V");
        let words =
            spirv::emit(&legal, &spirv::Options::for_env(TargetEnv::Vulkan1_2)).expect("SPIR-V");
        let asm = spirv::disassemble(&words).expect("the SPIR-V disassembles");
        snapshot(
            "spirv",
            &format!("{prefix}_{}", stem(&file)),
            "spvasm",
            &asm,
        );
        let mut gm = m.clone();
        let legal = backends::prepare(&mut gm, Target::Glsl).expect("legal for GLSL");
        for entry in names {
            let stage = legal
                .info()
                .entry_points()
                .iter()
                .find(|e| e.name() == entry)
                .map(|e| e.stage())
                .expect("the entry point is in the module");
            let name = format!("{prefix}_{}_{entry}", stem(&file));
            match glsl::emit(&legal, &glsl::Options::for_entry(&entry)) {
                Ok(text) => {
                    glslang_and_validate(&text, GlslStage::of(stage))
                        .unwrap_or_else(|e| panic!("{file} `{entry}`: {e}"));
                    snapshot("glsl", &name, "glsl", &text);
                }
                // What GLSL cannot state is refused by name (a buffer layout GLSL has no
                // form for): the refusal is the snapshot.
                Err(d) => refusal_snapshot("glsl", &name, "OSB01", &d),
            }
            entries += 1;
        }
        let mut wm = m.clone();
        let legal = backends::prepare(&mut wm, Target::Wgsl).expect("legal for WGSL");
        for entry in entry_names(&m) {
            let name = format!("{prefix}_{}_{entry}", stem(&file));
            match wgsl::emit(&legal, &wgsl::Options::for_entry(&entry)) {
                Ok(text) => {
                    naga_validate(&text)
                        .unwrap_or_else(|e| panic!("{name}: naga rejects the WGSL:\n{e}"));
                    snapshot("wgsl", &name, "wgsl", &text);
                }
                // Stages and operations WGSL lacks are refused by name: the refusal is the
                // snapshot.
                Err(d) => refusal_snapshot("wgsl", &name, "OSB02", &d),
            }
        }
        let mut mm = m.clone();
        let legal = backends::prepare(&mut mm, Target::Msl).expect("legal for MSL");
        for entry in entry_names(&m) {
            let name = format!("{prefix}_{}_{entry}", stem(&file));
            match msl::emit(&legal, &msl::Options::for_entry(&entry)) {
                Ok(text) => {
                    msl_check(&text, &words, &entry).unwrap_or_else(|e| panic!("{name}: {e}"));
                    snapshot("msl", &name, "metal", &text);
                }
                Err(d) => refusal_snapshot("msl", &name, "OSB03", &d),
            }
        }
    }
    entries
}

/// A backend's refusal as the snapshot `name.refused.txt` under `tests/out/<target>/`: every
/// diagnostic must be the backend's own (`code_prefix`, `OSB01` GLSL, `OSB02` WGSL, `OSB03`
/// MSL), not a failure elsewhere.
fn refusal_snapshot(target: &str, name: &str, code_prefix: &str, d: &[oneshader::Diagnostic]) {
    let codes: Vec<String> = d
        .iter()
        .map(|d| format!("error[{}]: {}", d.code, d.message))
        .collect();
    assert!(
        codes
            .iter()
            .all(|c| c.starts_with(&format!("error[{code_prefix}"))),
        "{name}: the {target} backend failed without a refusal of its own: {codes:#?}"
    );
    snapshot(target, name, "refused.txt", &(codes.join("\n") + "\n"));
}

/// The names of the entry points of `m`.
fn entry_names(m: &oneshader::ir::Module) -> Vec<String> {
    m.functions()
        .iter()
        .filter_map(|f| m.find_decoration(f.id(), oneshader::ir::Op::EntryPoint))
        .filter_map(|d| m.try_operand(d, 1).and_then(|s| m.literal_str(s)))
        .map(str::to_string)
        .collect()
}
