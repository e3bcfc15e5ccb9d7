//! `cargo xtask size-vs-peer`: how large our `-O` SPIR-V is next to glslang's after
//! `spirv-opt -O`, on the corpus rows both compile.
//!
//! For every vertex, pixel and compute row of ../shared/corpus/hlsl that glslang compiles
//! (manifest column `glslang_ok`), it compiles the shader with our release CLI at `-O` and with
//! `glslangValidator -V` followed by `spirv-opt -O` (the current SPIRV-Tools under
//! target/tools when `cargo xtask setup` installed it, else the system's), counts the
//! instructions of both modules without debug information (names, sources, lines, module
//! processing notes), and prints the totals over the rows both compile, the opcodes whose
//! counts differ most and the shaders where ours is largest next to theirs. By hand; not part of CI.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Debug-information opcodes, not counted: OpSourceContinued, OpSource, OpSourceExtension,
/// OpName, OpMemberName, OpString, OpLine, OpNoLine, OpModuleProcessed.
const DEBUG_OPS: &[u32] = &[2, 3, 4, 5, 6, 7, 8, 317, 330];

/// Opcode -> count of the instructions of a SPIR-V file (debug information left out).
fn opcode_counts(path: &Path) -> Result<BTreeMap<u32, u64>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if words.len() < 5 || words[0] != 0x0723_0203 {
        return Err(format!("{}: not a SPIR-V module", path.display()));
    }
    let mut counts = BTreeMap::new();
    let mut i = 5;
    while i < words.len() {
        let len = (words[i] >> 16) as usize;
        let op = words[i] & 0xffff;
        if len == 0 {
            return Err(format!("{}: an instruction of length 0", path.display()));
        }
        if !DEBUG_OPS.contains(&op) {
            *counts.entry(op).or_insert(0) += 1;
        }
        i += len;
    }
    Ok(counts)
}

/// The names of the opcodes that occur, read from a disassembly of one of `files` per opcode.
fn opcode_names(spirv_dis: &Path, files: &[PathBuf]) -> BTreeMap<u32, String> {
    let mut names = BTreeMap::new();
    for f in files {
        let Ok(raw) = opcode_sequence(f) else {
            continue;
        };
        let Ok(out) = Command::new(spirv_dis)
            .args(["--no-header", "--raw-id", "--no-color"])
            .arg(f)
            .output()
        else {
            continue;
        };
        let text = String::from_utf8_lossy(&out.stdout);
        let ops = text.lines().filter_map(|l| {
            l.split_whitespace()
                .find(|t| t.starts_with("Op"))
                .map(str::to_string)
        });
        for (code, name) in raw.iter().zip(ops) {
            names.entry(*code).or_insert(name);
        }
    }
    names
}

/// The opcodes of a module's instructions in order (debug information included, as the
/// disassembler prints it).
fn opcode_sequence(path: &Path) -> Result<Vec<u32>, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut out = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let len = (words[i] >> 16).max(1) as usize;
        out.push(words[i] & 0xffff);
        i += len;
    }
    Ok(out)
}

fn ok(cmd: &mut Command) -> bool {
    cmd.output().map(|o| o.status.success()).unwrap_or(false)
}

/// Runs the comparison; `root` is the workspace.
pub fn size_vs_peer(root: &Path, oneshader: &Path, tools: &Path) -> Result<(), String> {
    let corpus = root.join("../shared/corpus/hlsl");
    let manifest = std::fs::read_to_string(corpus.join("manifest.tsv"))
        .map_err(|e| format!("{}: {e}", corpus.join("manifest.tsv").display()))?;
    let current = |tool: &str| {
        let p = tools.join(tool);
        if p.is_file() { p } else { PathBuf::from(tool) }
    };
    let (spirv_opt, spirv_dis) = (current("spirv-opt"), current("spirv-dis"));
    let tmp = std::env::temp_dir().join(format!("oneshader-size-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(|e| e.to_string())?;
    let (mut ours_total, mut theirs_total) = (BTreeMap::<u32, u64>::new(), BTreeMap::new());
    let (mut rows, mut both) = (0usize, 0usize);
    let mut samples: Vec<PathBuf> = Vec::new();
    let mut per_file: Vec<(i64, String, u64, u64)> = Vec::new();
    for (n, line) in manifest.lines().skip(1).enumerate() {
        let c: Vec<&str> = line.split('\t').collect();
        if c.len() < 9 || c[5] != "1" || c[2].is_empty() {
            continue;
        }
        let (path, stage, entry, profile, flags, env) = (c[0], c[1], c[2], c[3], c[4], c[8]);
        let short = match stage {
            "vertex" => "vert",
            "fragment" => "frag",
            "compute" => "comp",
            _ => continue,
        };
        rows += 1;
        let defines: Vec<&str> = flags
            .split_whitespace()
            .filter(|f| f.starts_with("-D") && f.len() > 2)
            .collect();
        let src = corpus.join(path);
        let ours = tmp.join(format!("{n}.ours.spv"));
        let glslang = tmp.join(format!("{n}.glslang.spv"));
        let theirs = tmp.join(format!("{n}.theirs.spv"));
        let built_ours = ok(Command::new(oneshader)
            .arg("compile")
            .arg(&src)
            .args(["-T", profile, "-E", entry, "--target-env", env])
            .args(&defines)
            .arg("-I")
            .arg(corpus.join("dxc/include"))
            .arg("-o")
            .arg(&ours));
        let built_theirs = built_ours
            && ok(Command::new("glslangValidator")
                .args(["-D", "-V", "-S", short, "-e", entry])
                .args(&defines)
                .arg("-o")
                .arg(&glslang)
                .arg(&src))
            && ok(Command::new(&spirv_opt)
                .arg("-O")
                .arg(&glslang)
                .arg("-o")
                .arg(&theirs));
        if !built_theirs {
            continue;
        }
        let (Ok(a), Ok(b)) = (opcode_counts(&ours), opcode_counts(&theirs)) else {
            continue;
        };
        both += 1;
        let (na, nb): (u64, u64) = (a.values().sum(), b.values().sum());
        per_file.push((na as i64 - nb as i64, path.to_string(), na, nb));
        for (op, k) in a {
            *ours_total.entry(op).or_insert(0) += k;
        }
        for (op, k) in b {
            *theirs_total.entry(op).or_insert(0) += k;
        }
        if samples.len() < 400 {
            samples.push(ours.clone());
            samples.push(theirs.clone());
        }
    }
    let names = opcode_names(&spirv_dis, &samples);
    let sum = |m: &BTreeMap<u32, u64>| m.values().sum::<u64>();
    let (o, t) = (sum(&ours_total), sum(&theirs_total));
    println!("rows: {rows} vertex/pixel/compute rows glslang compiles; {both} compile both ways");
    println!(
        "instructions (no debug information): ours -O {o}, glslang + spirv-opt -O {t}: {:+.1}%",
        100.0 * (o as f64 - t as f64) / t.max(1) as f64
    );
    let mut diffs: Vec<(i64, u32)> = ours_total
        .keys()
        .chain(theirs_total.keys())
        .map(|&op| {
            let d = *ours_total.get(&op).unwrap_or(&0) as i64
                - *theirs_total.get(&op).unwrap_or(&0) as i64;
            (d, op)
        })
        .collect();
    diffs.sort_by_key(|&(d, op)| (-d.abs(), op));
    diffs.dedup();
    println!("opcodes that differ most (ours - theirs):");
    for (d, op) in diffs.iter().take(25) {
        let name = names
            .get(op)
            .cloned()
            .unwrap_or_else(|| format!("opcode {op}"));
        println!(
            "  {name:<32} {d:+6}  (ours {}, theirs {})",
            ours_total.get(op).unwrap_or(&0),
            theirs_total.get(op).unwrap_or(&0)
        );
    }
    per_file.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
    println!("shaders where ours is largest next to theirs (instructions, ours - theirs):");
    for (d, path, na, nb) in per_file.iter().take(15) {
        println!("  {d:+6}  {path} (ours {na}, theirs {nb})");
    }
    let _ = std::fs::remove_dir_all(&tmp);
    Ok(())
}
