//! `cargo xtask layout-check`: compares the buffer layouts OneShader emits with DXC's.
//!
//! The DXC tests in the HLSL corpus (`../shared/corpus/hlsl/dxc`) carry FileCheck `CHECK` lines
//! with the `Offset`, `ArrayStride` and `MatrixStride` decorations DXC emits for them under
//! their own flags (`-fvk-use-dx-layout`, `-fvk-use-scalar-layout`, `-enable-16bit-types`,
//! ...). This command compiles every such test with `oneshader compile` and those flags,
//! disassembles the result with `spirv-dis` (whose friendly names are the ones the tests
//! spell: `%type_MyCBuffer`, `%_arr_v3float_uint_2`, `%S_0`...), and compares every decoration
//! line of the test with ours.
//!
//! Matching. Lines are grouped by the type they name. A DXC type is compared with one of our
//! types: the one of the same name, or (when the disassembler numbered duplicates, `S` and
//! `S_0`, in another order than DXC's) the candidate of the same base name with the most equal
//! lines. A line whose type is a FileCheck pattern (`{{%[a-zA-Z0-9_]+}}`, `[[X:%\w+]]`) matches
//! when any of our types carries that decoration, as FileCheck would accept. A line is
//! *comparable* when the test compiled and we emit a type it can be compared with;
//! `CHECK-NOT` lines are not counted. The report gives matched / comparable lines, the lines
//! that could not be compared and why, and with `--list` every differing line.
//!
//! By hand, not in CI: it needs the corpus and `spirv-dis`.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What a decoration line says: which kind, which member (for `OpMemberDecorate`), what value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DecoKind {
    /// `OpDecorate %T ArrayStride N`.
    ArrayStride,
    /// `OpMemberDecorate %T M Offset N`.
    Offset,
    /// `OpMemberDecorate %T M MatrixStride N`.
    MatrixStride,
}

/// One decoration line: the type's name (a `%name` or a FileCheck pattern), the member index
/// (0 for `ArrayStride`), the kind and the value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecoLine {
    /// The type as written, without the leading `%` for plain names.
    pub name: TypeRef,
    /// The member index (0 for `ArrayStride`).
    pub member: u32,
    /// The decoration.
    pub kind: DecoKind,
    /// The decoration's value.
    pub value: u32,
}

/// How a line names its type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeRef {
    /// A plain `%name`.
    Name(String),
    /// A FileCheck pattern or variable: any type may match.
    Pattern,
}

/// Parses the decoration in `text` (`OpDecorate %X ArrayStride 16`, `OpMemberDecorate %X 1
/// Offset 4`); `None` for anything else (or a value that is a pattern).
pub fn parse_deco(text: &str) -> Option<DecoLine> {
    let toks: Vec<&str> = text.split_whitespace().collect();
    let name_of = |t: &str| -> Option<TypeRef> {
        if t.contains("[[") || t.contains("{{") {
            Some(TypeRef::Pattern)
        } else {
            let n = t.strip_prefix('%')?;
            n.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
                .then(|| TypeRef::Name(n.to_string()))
        }
    };
    match toks.as_slice() {
        ["OpDecorate", name, "ArrayStride", v, ..] => Some(DecoLine {
            name: name_of(name)?,
            member: 0,
            kind: DecoKind::ArrayStride,
            value: v.parse().ok()?,
        }),
        ["OpMemberDecorate", name, member, kind, v, ..] => Some(DecoLine {
            name: name_of(name)?,
            member: member.parse().ok()?,
            kind: match *kind {
                "Offset" => DecoKind::Offset,
                "MatrixStride" => DecoKind::MatrixStride,
                _ => return None,
            },
            value: v.parse().ok()?,
        }),
        _ => None,
    }
}

/// The positive decoration `CHECK` lines of a test (`CHECK:`, `CHECK-NEXT:`, `CHECK-DAG:`,
/// `CHECK-SAME:`; not `CHECK-NOT:`).
pub fn check_lines(source: &str) -> Vec<DecoLine> {
    let mut out = Vec::new();
    for line in source.lines() {
        let Some(at) = line.find("CHECK") else {
            continue;
        };
        let rest = &line[at + "CHECK".len()..];
        let Some(colon) = rest.find(':') else {
            continue;
        };
        let directive = &rest[..colon];
        if !matches!(directive, "" | "-NEXT" | "-DAG" | "-SAME") {
            continue;
        }
        if let Some(d) = parse_deco(&rest[colon + 1..]) {
            out.push(d);
        }
    }
    out
}

/// The decorations of one type: (member, kind) to value.
pub type Decos = BTreeMap<(u32, DecoKind), u32>;

/// What a disassembly says about types: decorations by type name, and the member types of
/// each struct (to recognize the blocks DXC names after the HLSL buffer type).
#[derive(Debug, Default)]
pub struct Emitted {
    /// Decorations by type name.
    pub decos: BTreeMap<String, Decos>,
    /// Member type names by struct name.
    pub members: BTreeMap<String, Vec<String>>,
}

/// Reads the decorations and struct members out of `spirv-dis` output.
pub fn emitted(disassembly: &str) -> Emitted {
    let mut out = Emitted::default();
    for line in disassembly.lines() {
        if let Some(d) = parse_deco(line)
            && let TypeRef::Name(n) = d.name
        {
            out.decos
                .entry(n)
                .or_default()
                .insert((d.member, d.kind), d.value);
        }
        let toks: Vec<&str> = line.split_whitespace().collect();
        if let [name, "=", "OpTypeStruct", members @ ..] = toks.as_slice()
            && let Some(n) = name.strip_prefix('%')
        {
            let m = members
                .iter()
                .filter_map(|t| t.strip_prefix('%'))
                .map(str::to_string)
                .collect();
            out.members.insert(n.to_string(), m);
        }
    }
    out
}

/// The types of ours DXC's type `theirs` may be: the same (base) name; for the blocks DXC
/// names after the HLSL buffer type, what OneShader emits for them: `type_ConstantBuffer_T`,
/// `type_PushConstant_T`, `type_TextureBuffer_T` are the struct `T` itself, and
/// `type_RWStructuredBuffer_E` (any structured buffer) or `type_ByteAddressBuffer` the block
/// wrapping a runtime array of `E` (of `uint`).
fn candidates<'a>(theirs: &str, ours: &'a Emitted) -> Vec<&'a str> {
    let mut out: Vec<&str> = ours
        .decos
        .keys()
        .filter(|n| same_base(theirs, n))
        .map(String::as_str)
        .collect();
    for prefix in [
        "type_ConstantBuffer_",
        "type_PushConstant_",
        "type_TextureBuffer_",
    ] {
        if let Some(inner) = theirs.strip_prefix(prefix) {
            out.extend(
                ours.decos
                    .keys()
                    .filter(|n| same_base(inner, n))
                    .map(String::as_str),
            );
        }
    }
    let elem = theirs
        .strip_prefix("type_")
        .and_then(|t| t.split_once("StructuredBuffer_"))
        .map(|(_, e)| e.to_string())
        .or_else(|| {
            theirs
                .ends_with("ByteAddressBuffer")
                .then(|| "uint".to_string())
        });
    if let Some(e) = elem {
        let rt = format!("_runtimearr_{e}");
        out.extend(
            ours.members
                .iter()
                .filter(|(n, m)| {
                    m.len() == 1 && same_base(&rt, &m[0]) && ours.decos.contains_key(n.as_str())
                })
                .map(|(n, _)| n.as_str()),
        );
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// `S_0` -> `S`; names without a numeric suffix unchanged.
fn strip_suffix(name: &str) -> &str {
    match name.rfind('_') {
        Some(i)
            if i > 0 && name[i + 1..].bytes().all(|b| b.is_ascii_digit()) && i + 1 < name.len() =>
        {
            &name[..i]
        }
        _ => name,
    }
}

/// True when our type `ours` may be DXC's `theirs` with the duplicates numbered differently.
fn same_base(theirs: &str, ours: &str) -> bool {
    if theirs == ours || strip_suffix(ours) == theirs || strip_suffix(theirs) == ours {
        return true;
    }
    // `_arr_float_uint_2` ends in its length, not a duplicate number.
    let array = |n: &str| n.starts_with("_arr_") || n.starts_with("_runtimearr_");
    !array(theirs) && !array(ours) && strip_suffix(theirs) == strip_suffix(ours)
}

/// The outcome of comparing one test.
#[derive(Debug, Default)]
pub struct FileResult {
    /// Lines compared.
    pub comparable: usize,
    /// Lines equal to ours.
    pub matched: usize,
    /// Lines whose type we do not emit (by DXC's name).
    pub not_emitted: Vec<DecoLine>,
    /// Differing lines: DXC's line, our value (None: we have no such decoration) and the name
    /// of the type compared.
    pub differing: Vec<(DecoLine, Option<u32>, String)>,
}

/// Compares a test's lines with what we emitted.
pub fn compare(lines: &[DecoLine], ours: &Emitted) -> FileResult {
    let mut r = FileResult::default();
    let mut by_name: BTreeMap<&str, Vec<&DecoLine>> = BTreeMap::new();
    for l in lines {
        match &l.name {
            TypeRef::Name(n) => by_name.entry(n).or_default().push(l),
            TypeRef::Pattern => {
                r.comparable += 1;
                let hit = ours
                    .decos
                    .values()
                    .any(|d| d.get(&(l.member, l.kind)) == Some(&l.value));
                if hit {
                    r.matched += 1;
                } else {
                    r.differing.push((l.clone(), None, "(any type)".into()));
                }
            }
        }
    }
    for (name, group) in by_name {
        let score = |decos: &Decos| {
            group
                .iter()
                .filter(|l| decos.get(&(l.member, l.kind)) == Some(&l.value))
                .count()
        };
        let best = candidates(name, ours)
            .into_iter()
            .filter_map(|n| ours.decos.get_key_value(n))
            .max_by_key(|(n, d)| (score(d), n.as_str() == name));
        let Some((ours_name, decos)) = best else {
            r.not_emitted.extend(group.iter().map(|l| (*l).clone()));
            continue;
        };
        for l in group {
            r.comparable += 1;
            let got = decos.get(&(l.member, l.kind)).copied();
            if got == Some(l.value) {
                r.matched += 1;
            } else {
                r.differing.push((l.clone(), got, ours_name.clone()));
            }
        }
    }
    r
}

/// Splits a manifest `extra_flags` cell like a POSIX shell (single and double quotes).
pub fn shell_split(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut has = false;
    let mut quote: Option<char> = None;
    for c in s.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                has = true;
            }
            (None, c) if c.is_whitespace() => {
                if has || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                    has = false;
                }
            }
            (None, c) => cur.push(c),
        }
    }
    if has || !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The layout family of a row's flags, for the report.
fn family(flags: &[String]) -> &'static str {
    for f in flags {
        match f.as_str() {
            "-fvk-use-dx-layout" => return "dx",
            "-fvk-use-scalar-layout" => return "scalar",
            "-fvk-use-gl-layout" => return "gl",
            _ => {}
        }
    }
    "default"
}

/// Options of the command.
struct Opts {
    corpus: PathBuf,
    oneshader: Option<PathBuf>,
    spirv_dis: String,
    filter: Option<String>,
    list: bool,
}

fn parse_opts(args: &[String], root: &Path) -> Result<Opts, String> {
    let mut o = Opts {
        corpus: std::env::var_os("ONESHADER_CORPUS")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("../shared/corpus/hlsl")),
        oneshader: None,
        spirv_dis: "spirv-dis".into(),
        filter: None,
        list: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("`{name}` needs a value"))
        };
        match a.as_str() {
            "--corpus" => o.corpus = PathBuf::from(val("--corpus")?),
            "--oneshader" => o.oneshader = Some(PathBuf::from(val("--oneshader")?)),
            "--spirv-dis" => o.spirv_dis = val("--spirv-dis")?,
            "--filter" => o.filter = Some(val("--filter")?),
            "--list" => o.list = true,
            other => {
                return Err(format!(
                    "layout-check: unknown option `{other}` (--corpus DIR, --oneshader EXE, \
                     --spirv-dis EXE, --filter SUBSTRING, --list)"
                ));
            }
        }
    }
    Ok(o)
}

#[derive(Default)]
struct Tally {
    lines: usize,
    comparable: usize,
    matched: usize,
    compile_failed: usize,
    not_emitted: usize,
}

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.lines += o.lines;
        self.comparable += o.comparable;
        self.matched += o.matched;
        self.compile_failed += o.compile_failed;
        self.not_emitted += o.not_emitted;
    }
}

/// Runs the command; `root` is the workspace root, `exe` the `oneshader` binary to use when
/// `--oneshader` is not given.
pub fn run(
    args: &[String],
    root: &Path,
    exe: impl FnOnce() -> Result<PathBuf, String>,
) -> Result<(), String> {
    let o = parse_opts(args, root)?;
    let manifest_path = o.corpus.join("manifest.tsv");
    let manifest = std::fs::read_to_string(&manifest_path).map_err(|e| {
        format!(
            "cannot read {} ({e}); give the corpus with --corpus DIR or ONESHADER_CORPUS",
            manifest_path.display()
        )
    })?;
    if Command::new(&o.spirv_dis)
        .arg("--version")
        .output()
        .is_err()
    {
        return Err(format!(
            "`{}` cannot be run: `cargo xtask setup` installs spirv-dis (spirv-tools)",
            o.spirv_dis
        ));
    }
    let oneshader = match o.oneshader.clone() {
        Some(p) => p,
        None => exe()?,
    };
    let scratch =
        std::env::temp_dir().join(format!("oneshader-layout-check-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)
        .map_err(|e| format!("cannot create {}: {e}", scratch.display()))?;
    let mut total = Tally::default();
    let mut families: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut per_file: Vec<(String, Tally, FileResult, Option<String>)> = Vec::new();
    let mut header: HashMap<&str, usize> = HashMap::new();
    for (n, row) in manifest.lines().enumerate() {
        let cells: Vec<&str> = row.split('\t').collect();
        if n == 0 {
            header = cells.iter().enumerate().map(|(i, c)| (*c, i)).collect();
            continue;
        }
        let col = |name: &str| {
            header
                .get(name)
                .and_then(|&i| cells.get(i))
                .copied()
                .unwrap_or("")
        };
        let path = col("path");
        if !path.starts_with("dxc/") {
            continue;
        }
        if let Some(f) = &o.filter
            && !path.contains(f.as_str())
        {
            continue;
        }
        let file = o.corpus.join(path);
        let Ok(source) = std::fs::read_to_string(&file) else {
            continue;
        };
        let lines = check_lines(&source);
        if lines.is_empty() {
            continue;
        }
        let flags = shell_split(col("extra_flags"));
        let out = scratch.join("out.spv");
        let _ = std::fs::remove_file(&out);
        let mut cmd = Command::new(&oneshader);
        cmd.arg("compile")
            .arg(&file)
            .args(["-T", col("profile"), "-E", col("entry"), "--target-env"])
            .arg(col("target_env"))
            .args(&flags)
            // DXC's tests run with -fcgl, which keeps unused buffers: keep them too.
            .arg("-fspv-preserve-bindings")
            .arg("-I")
            .arg(o.corpus.join("dxc/include"))
            .arg("-o")
            .arg(&out);
        if let Some(dir) = file.parent() {
            cmd.current_dir(dir);
        }
        let mut t = Tally {
            lines: lines.len(),
            ..Tally::default()
        };
        let compiled = cmd
            .output()
            .map_err(|e| format!("cannot run {}: {e}", oneshader.display()))?;
        let (result, failure) = if compiled.status.success() {
            let dis = Command::new(&o.spirv_dis)
                .arg(&out)
                .output()
                .map_err(|e| format!("cannot run {}: {e}", o.spirv_dis))?;
            let text = String::from_utf8_lossy(&dis.stdout);
            let r = compare(&lines, &emitted(&text));
            t.comparable = r.comparable;
            t.matched = r.matched;
            t.not_emitted = r.not_emitted.len();
            (r, None)
        } else {
            t.compile_failed = lines.len();
            let err = String::from_utf8_lossy(&compiled.stderr);
            let first = err
                .lines()
                .find(|l| l.contains("error"))
                .unwrap_or("(no message)")
                .to_string();
            (FileResult::default(), Some(first))
        };
        total.add(&t);
        families.entry(family(&flags)).or_default().add(&t);
        per_file.push((path.to_string(), t, result, failure));
    }
    let _ = std::fs::remove_dir_all(&scratch);
    for (path, t, r, failure) in &per_file {
        let status = if let Some(f) = failure {
            format!("compile failed: {f}")
        } else {
            format!(
                "{}/{} match{}",
                t.matched,
                t.comparable,
                if t.not_emitted > 0 {
                    format!(", {} on types we do not emit", t.not_emitted)
                } else {
                    String::new()
                }
            )
        };
        let clean = failure.is_none() && t.matched == t.comparable && t.not_emitted == 0;
        if o.list || !clean {
            println!("{path}: {status}");
        }
        if o.list {
            for (l, got, ours) in &r.differing {
                let name = match &l.name {
                    TypeRef::Name(n) => n.as_str(),
                    TypeRef::Pattern => "{{pattern}}",
                };
                let got = got.map_or("none".to_string(), |v| v.to_string());
                println!(
                    "    %{name} {} {:?}: DXC {} ours {got} (compared with %{ours})",
                    l.member, l.kind, l.value
                );
            }
            for l in &r.not_emitted {
                if let TypeRef::Name(n) = &l.name {
                    println!(
                        "    %{n} {} {:?} {}: type not emitted",
                        l.member, l.kind, l.value
                    );
                }
            }
        }
    }
    println!();
    println!(
        "{:<8} {:>6} {:>10} {:>8} {:>14} {:>12}",
        "layout", "lines", "comparable", "match", "compile failed", "not emitted"
    );
    for (name, t) in families.iter().chain(std::iter::once((&"total", &total))) {
        println!(
            "{:<8} {:>6} {:>10} {:>8} {:>14} {:>12}",
            name, t.lines, t.comparable, t.matched, t.compile_failed, t.not_emitted
        );
    }
    println!(
        "\nlayout-check: {} of {} comparable decoration lines match DXC's ({} tests, {} lines in all)",
        total.matched,
        total.comparable,
        per_file.len(),
        total.lines
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_decoration_lines() {
        assert_eq!(
            parse_deco("OpMemberDecorate %type_MyCBuffer 3 Offset 16"),
            Some(DecoLine {
                name: TypeRef::Name("type_MyCBuffer".into()),
                member: 3,
                kind: DecoKind::Offset,
                value: 16
            })
        );
        assert_eq!(
            parse_deco(" OpDecorate [[arr:%[a-z]+]] ArrayStride 32").map(|d| (d.name, d.value)),
            Some((TypeRef::Pattern, 32))
        );
        assert_eq!(parse_deco("OpMemberDecorate %S 0 RowMajor"), None);
        assert_eq!(parse_deco("OpDecorate %S ArrayStride {{[0-9]+}}"), None);
    }

    #[test]
    fn skips_negative_checks() {
        let src = "// CHECK: OpDecorate %_arr_float_uint_2 ArrayStride 16\n\
                   // CHECK-NOT: OpMemberDecorate %S 0 Offset 4\n\
                   // CHECK-NEXT: OpMemberDecorate %S 1 MatrixStride 16\n\
                   // RUN: %dxc -T ps_6_0\n";
        let l = check_lines(src);
        assert_eq!(l.len(), 2);
        assert_eq!(l[1].kind, DecoKind::MatrixStride);
    }

    #[test]
    fn duplicates_match_by_best_candidate() {
        // DXC's `S` is our `S_0` (the disassembler numbered them the other way round).
        let ours = emitted(
            "OpMemberDecorate %S 1 Offset 16\nOpMemberDecorate %S_0 1 Offset 4\n\
             OpDecorate %_arr_float_uint_3 ArrayStride 4\n",
        );
        let theirs = check_lines(
            "// CHECK: OpMemberDecorate %S 1 Offset 4\n\
             // CHECK: OpDecorate %_arr_float_uint_2 ArrayStride 4\n",
        );
        let r = compare(&theirs, &ours);
        assert_eq!((r.matched, r.comparable), (1, 1));
        // An array of another length is not the same type.
        assert_eq!(r.not_emitted.len(), 1);
    }

    #[test]
    fn buffer_blocks_match_what_oneshader_emits_for_them() {
        let ours = emitted(
            "OpMemberDecorate %T 1 Offset 16\nOpMemberDecorate %_struct_7 0 Offset 0\n\
             OpDecorate %_runtimearr_Data ArrayStride 12\n\
             %_struct_7 = OpTypeStruct %_runtimearr_Data\n",
        );
        let theirs = check_lines(
            "// CHECK: OpMemberDecorate %type_ConstantBuffer_T 1 Offset 16\n\
             // CHECK: OpMemberDecorate %type_RWStructuredBuffer_Data 0 Offset 0\n\
             // CHECK: OpMemberDecorate %type_ByteAddressBuffer 0 Offset 0\n",
        );
        let r = compare(&theirs, &ours);
        assert_eq!((r.matched, r.comparable), (2, 2));
        assert_eq!(r.not_emitted.len(), 1);
    }

    #[test]
    fn splits_like_a_shell() {
        assert_eq!(
            shell_split("-D 'A=1 2' -fcgl \"-HV\" 2021"),
            vec!["-D", "A=1 2", "-fcgl", "-HV", "2021"]
        );
    }
}
