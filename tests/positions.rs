//! Source positions are part of the IR's contract (`oneshader_ir::positions`): they survive
//! every pass, so at `-O` as at `-O0` every instruction of the final module has one, and so
//! does every function and global (its declaration: the name it is declared by), each names a
//! file of the compilation and starts at a token of it (not in a comment, not in white
//! space, not past the end), and `IrModules::final_positions` lists them all.

mod support;

use oneshader::{CompileOptions, OptLevel};
use oneshader_ir::positions::{takes_declaration_position, takes_position, verify_positions};
use oneshader_ir::{Module, SourceMap, Span};
use support::*;

/// Byte ranges of `//` and `/* */` comments of `text` (string literals skipped).
fn comments(text: &str) -> Vec<std::ops::Range<usize>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = text[i..].find('\n').map_or(b.len(), |k| i + k);
                out.push(i..end);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..].find("*/").map_or(b.len(), |k| i + 2 + k + 2);
                out.push(i..end);
                i = end;
            }
            _ => i += 1,
        }
    }
    out
}

/// Every instruction of `m`'s functions that carries a position by the contract.
fn positioned_insts(m: &Module) -> Vec<oneshader_ir::InstId> {
    let mut out = Vec::new();
    for f in m.functions() {
        for b in f.blocks(m) {
            for i in b.insts(m) {
                if takes_position(m.op(i)) {
                    out.push(i);
                }
            }
        }
    }
    out
}

/// Every function, global and struct type of `m`: each carries its declaration.
fn declarations(m: &Module) -> Vec<oneshader_ir::InstId> {
    let out: Vec<oneshader_ir::InstId> = m
        .functions()
        .into_iter()
        .map(|f| f.id())
        .chain(m.globals().into_iter().map(|g| g.id()))
        .chain(
            m.children(m.root())
                .filter(|&c| m.op(c) == oneshader_ir::Op::Struct),
        )
        .collect();
    assert!(out.iter().all(|&i| takes_declaration_position(m.op(i))));
    out
}

/// Checks the contract on one compiled module (its instructions, functions and globals);
/// returns (what carries a position by the contract, how many have one).
fn check(m: &Module, sources: &SourceMap, what: &str) -> (usize, usize) {
    let bad = verify_positions(m, sources);
    assert!(bad.is_empty(), "{what}: {bad:?}");
    let mut insts = positioned_insts(m);
    insts.extend(declarations(m));
    let mut missing = Vec::new();
    for &i in &insts {
        let Some(Span { file, start, end }) = m.position(i) else {
            missing.push(oneshader_ir::print::print_inst(m, i));
            continue;
        };
        let text = sources.text(file);
        assert!(
            (start as usize) < text.len() && start <= end,
            "{what}: `{}` at {start}..{end} of {} ({} bytes)",
            oneshader_ir::print::print_inst(m, i).trim(),
            sources.name(file),
            text.len()
        );
        let c = text[start as usize..].chars().next().unwrap_or(' ');
        assert!(
            !c.is_whitespace(),
            "{what}: `{}` points at white space ({}:{:?})",
            oneshader_ir::print::print_inst(m, i).trim(),
            sources.name(file),
            sources.line_col(file, start)
        );
        assert!(
            !comments(text).iter().any(|r| r.contains(&(start as usize))),
            "{what}: `{}` points into a comment ({}:{:?})",
            oneshader_ir::print::print_inst(m, i).trim(),
            sources.name(file),
            sources.line_col(file, start)
        );
    }
    assert!(
        missing.is_empty(),
        "{what}: {} of {} instructions and declarations have no position: {missing:#?}",
        missing.len(),
        insts.len()
    );
    (insts.len(), insts.len() - missing.len())
}

#[test]
fn every_instruction_and_declaration_of_the_examples_keeps_a_real_position_at_o_and_o0() {
    for (file, profile, entry) in documented_entry_points() {
        for level in [OptLevel::O0, OptLevel::O] {
            let mut opts = CompileOptions::new(profile.as_str())
                .entry(entry.as_str())
                .opt_level(level);
            opts.keep_final_ir = true;
            let out = compile_file(&format!("examples/hlsl/{file}"), &opts);
            let m = out.ir.final_module.as_ref().expect("kept");
            let what = format!("{file} {entry} {level:?}");
            let (n, _) = check(m, &out.diagnostics.sources, &what);
            assert!(n > 0, "{what}: instructions to check");
            // The source map lists every instruction, each on a line of its file.
            let locs = out.ir.final_positions.as_ref().expect("kept");
            assert_eq!(locs.locations.len(), n, "{what}: final_positions is full");
            for (_, l) in &locs.locations {
                let text = out.diagnostics.sources.text(oneshader_ir::FileId(l.file));
                assert!(
                    l.line >= 1 && (l.line as usize) <= text.lines().count(),
                    "{what}: line {} of {}",
                    l.line,
                    locs.files[l.file as usize]
                );
            }
        }
    }
}

/// The measure: blur.hlsl's source map was empty at `-O` (112 entries at `-O0`)
/// because inlining the entry wrapper dropped every position.
#[test]
fn blur_keeps_its_source_map_at_o_and_it_saves_to_osir() {
    let mut opts = CompileOptions::new("cs_6_0").entry("main");
    opts.keep_final_ir = true;
    let out = compile_file("examples/hlsl/blur.hlsl", &opts);
    let m = out.ir.final_module.as_ref().expect("kept");
    let locs = out.ir.final_positions.as_ref().expect("kept");
    assert!(locs.locations.len() > 50, "{}", locs.locations.len());
    // `.osir` carries them all and reads them back.
    let bytes = oneshader_serialize::save_with(
        m,
        &oneshader_serialize::SaveOptions {
            source_map: Some(locs),
            ..Default::default()
        },
    )
    .expect("saves");
    let loaded = oneshader_serialize::load(&bytes, &oneshader_serialize::LoadOptions::default())
        .expect("loads");
    let sm = loaded.source_map.expect("a source map");
    assert_eq!(sm.locations.len(), locs.locations.len());
    // The barrier of `GroupMemoryBarrierWithGroupSync()` keeps its line.
    let text = out.diagnostics.sources.text(oneshader_ir::FileId(0));
    let barrier_line = text
        .lines()
        .position(|l| l.contains("GroupMemoryBarrierWithGroupSync"))
        .expect("blur synchronizes")
        + 1;
    let barrier = positioned_insts(m)
        .into_iter()
        .find(|&i| m.op(i) == oneshader_ir::Op::Barrier)
        .expect("a barrier at -O");
    let span = m.position(barrier).expect("positioned");
    assert_eq!(
        out.diagnostics.sources.line_col(span.file, span.start).0,
        barrier_line
    );
}

fn save(
    m: &Module,
    locs: &oneshader_serialize::SourceLocations,
) -> Result<Vec<u8>, oneshader_serialize::SaveError> {
    oneshader_serialize::save_with(
        m,
        &oneshader_serialize::SaveOptions {
            source_map: Some(locs),
            ..Default::default()
        },
    )
}

/// A pass that removes instructions after the source map was made: saving names the
/// instruction, and `retain_in_tree` makes the map consistent again.
#[test]
fn a_stale_source_map_names_the_removed_instruction_and_can_be_pruned() {
    let mut opts = CompileOptions::new("cs_6_0").entry("main");
    opts.keep_final_ir = true;
    let out = compile_file("examples/hlsl/blur.hlsl", &opts);
    let mut m = out.ir.final_module.clone().expect("kept");
    let mut locs = out.ir.final_positions.clone().expect("kept");
    let store = positioned_insts(&m)
        .into_iter()
        .find(|&i| m.op(i) == oneshader_ir::Op::Store && locs.locations.iter().any(|l| l.0 == i))
        .expect("a positioned store");
    let m2 = m.clone();
    m.remove(store).expect("a store has no uses");
    let err = save(&m, &locs).expect_err("the map names a removed store");
    let msg = err.to_string();
    assert!(
        msg.contains("removed instruction") && msg.contains("retain_in_tree"),
        "{msg}"
    );
    // A detached (not removed) instruction is named by its text.
    let mut m3 = m2;
    let detached =
        oneshader_ir::Builder::new(&mut m3).emit(oneshader_ir::Op::Unreachable, None, &[]);
    let mut with_detached = locs.clone();
    let loc = locs.locations[0].1;
    with_detached.locations.push((detached, loc));
    let msg = save(&m3, &with_detached).expect_err("detached").to_string();
    assert!(msg.contains("`unreachable`"), "{msg}");
    assert_eq!(locs.retain_in_tree(&m), 1);
    let n = locs.locations.len();
    let bytes = save(&m, &locs).expect("consistent again");
    let back = oneshader_serialize::load(&bytes, &oneshader_serialize::LoadOptions::default())
        .expect("loads");
    assert_eq!(back.source_map.expect("a map").locations.len(), n);
}
