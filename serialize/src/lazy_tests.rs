//! Lazy loads: what they decode, that they agree with full loads, and that a damaged or lying
//! symbol index is a typed error (never a panic, never a wrong module).

use oneshader_ir::Module;
use oneshader_ir::parse::parse;
use oneshader_ir::print::print_module;

use crate::format::{Body, HEADER_LEN, INDEX_COLUMNS, IndexSection, SECTION_INDEX};
use crate::{
    IndexPolicy, LazyFile, LoadError, LoadOptions, SaveOptions, SymbolKind, load, load_exports,
    read_symbols, reseal, save_with,
};

/// A library: exported functions calling unexported helpers and each other, a struct, an
/// exported global, a private global with an initializer, a generic, and an export nobody
/// asks for.
const LIB: &str = r#"
struct @Params {
  scale: f32
  bias: f32
}
global @results : ptr<storage_buffer, rtarray<f32>> [binding(0, 0), export("results")]
global @table : ptr<private, f32> = f32 1.5

func @twice(%0.x: f32) -> f32 {
bb0:
  %1 = add %0, %0 : f32
  return %1
}

func @apply(%0.p: @Params, %1.x: f32) -> f32 [export("apply(@Params,f32)->f32")] {
bb0:
  %2 = extract %0, 0 : f32
  %3 = mul %1, %2 : f32
  %4 = call @twice(%3) : f32
  %5 = call @bias(%0, %4) : f32
  return %5
}

func @bias(%0.p: @Params, %1.x: f32) -> f32 [export("bias(@Params,f32)->f32")] {
bb0:
  %2 = extract %0, 1 : f32
  %3 = add %1, %2 : f32
  %4 = load @table : f32
  %5 = add %3, %4 : f32
  return %5
}

func @unused(%0: i32) -> i32 [export("unused(i32)->i32")] {
bb0:
  %1 = mul %0, i32 7 : i32
  return %1
}

generic @choose<%0.T: type> [export("choose<type>(bool,$0,$0)->$0")] {
  func @choose_impl(%1.c: bool, %2.a: %0, %3.b: %0) -> %0 {
  bb0:
    %4 = select %1, %2, %3 : %0
    return %4
  }
  return @choose_impl
}
"#;

fn module(text: &str) -> Module {
    parse(text).unwrap_or_else(|e| panic!("{e:?}\n{text}"))
}

fn indexed(m: &Module) -> Vec<u8> {
    save_with(
        m,
        &SaveOptions {
            index: IndexPolicy::Always,
            ..SaveOptions::default()
        },
    )
    .expect("saves")
}

fn lazy(bytes: &[u8], exports: &[&str]) -> Result<Module, LoadError> {
    load_exports(bytes, exports, &LoadOptions::default()).map(|l| l.module)
}

#[test]
fn a_lazy_load_decodes_the_closure_of_what_is_asked() {
    let bytes = indexed(&module(LIB));
    let m = lazy(&bytes, &["apply(@Params,f32)->f32"]).expect("loads");
    let text = print_module(&m);
    for kept in ["@apply", "@twice", "@bias", "@table", "struct @Params"] {
        assert!(text.contains(kept), "{kept} missing:\n{text}");
    }
    for left in ["@unused", "@choose", "@results"] {
        assert!(!text.contains(left), "{left} loaded:\n{text}");
    }
    // Its symbols are those of the loaded items.
    let loaded =
        load_exports(&bytes, &["apply(@Params,f32)->f32"], &Default::default()).expect("loads");
    let names: Vec<&str> = loaded.symbols.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["apply(@Params,f32)->f32", "bias(@Params,f32)->f32"]);
    // Nothing asked: nothing but the module.
    let empty = lazy(&bytes, &[]).expect("loads");
    assert!(empty.is_empty(), "{}", print_module(&empty));
    // A name nobody exports is ignored.
    assert!(
        lazy(&bytes, &["nothing()->void"])
            .expect("loads")
            .is_empty()
    );
}

#[test]
fn asking_for_every_export_of_a_fully_used_library_gives_the_full_module() {
    let text = LIB.replace(
        "func @unused(%0: i32) -> i32 [export(\"unused(i32)->i32\")] {\nbb0:\n  %1 = mul %0, i32 7 : i32\n  return %1\n}\n",
        "",
    );
    let bytes = indexed(&module(&text));
    let full = load(&bytes, &LoadOptions::default()).expect("loads");
    let exports: Vec<String> = full
        .symbols
        .iter()
        .filter(|s| s.kind == SymbolKind::Export)
        .map(|s| s.name.clone())
        .collect();
    let names: Vec<&str> = exports.iter().map(|s| s.as_str()).collect();
    let part = lazy(&bytes, &names).expect("loads");
    assert_eq!(print_module(&part), print_module(&full.module));
    // And it saves to the same bytes as the full module (without an index: the default
    // policy leaves small modules alone).
    assert_eq!(
        crate::save(&part).expect("saves"),
        crate::save(&full.module).expect("saves")
    );
}

/// Every example module, saved with an index, loads in full (the index checked against its
/// records), opens lazily, lists the same symbols, and loads lazily with all its exports.
#[test]
fn every_example_loads_both_ways() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for dir in ["examples/ir", "examples/link"] {
        for e in std::fs::read_dir(root.join(dir)).expect("examples") {
            let p = e.expect("entry").path();
            if p.extension().is_some_and(|x| x == "ir") {
                files.push(p);
            }
        }
    }
    files.push(std::path::PathBuf::from("LIB"));
    assert!(files.len() > 10);
    for p in files {
        let text = if p.as_os_str() == "LIB" {
            LIB.to_string()
        } else {
            std::fs::read_to_string(&p).expect("reads")
        };
        let m = module(&text);
        let bytes = indexed(&m);
        let full = load(&bytes, &LoadOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let file = LazyFile::open(&bytes).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert!(file.has_index());
        let syms = file.symbols().expect("symbols");
        assert_eq!(
            syms,
            read_symbols(&bytes).expect("symbols"),
            "{}",
            p.display()
        );
        assert_eq!(syms, full.symbols);
        let exports: Vec<&str> = syms
            .iter()
            .filter(|s| s.kind == SymbolKind::Export)
            .map(|s| s.name.as_str())
            .collect();
        let part = file
            .load(&exports, &LoadOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        // Everything the lazy module holds, the full one holds too, in the same order.
        let (a, b) = (print_module(&part.module), print_module(&full.module));
        let mut rest = b.as_str();
        for line in a
            .lines()
            .filter(|l| l.starts_with("func") || l.starts_with("global"))
        {
            let at = rest
                .find(line)
                .unwrap_or_else(|| panic!("{}: `{line}` out of place in\n{b}", p.display()));
            rest = &rest[at..];
        }
    }
}

#[test]
fn a_file_without_an_index_loads_in_full() {
    let m = module(LIB);
    let bytes = save_with(
        &m,
        &SaveOptions {
            index: IndexPolicy::Never,
            ..SaveOptions::default()
        },
    )
    .expect("saves");
    let file = LazyFile::open(&bytes).expect("opens");
    assert!(!file.has_index());
    let part = file.load(&[], &LoadOptions::default()).expect("loads");
    assert_eq!(print_module(&part.module), print_module(&m));
    // The automatic policy indexes large modules only.
    let small = crate::save(&m).expect("saves");
    assert!(!LazyFile::open(&small).expect("opens").has_index());
}

/// Where the index section's three tables sit in `bytes`: (items, offsets, starts) as
/// (byte offset, length).
fn index_tables(bytes: &[u8]) -> [(usize, usize); 3] {
    let body: Body<'_> = postcard::from_bytes(&bytes[HEADER_LEN..]).expect("body");
    let sec = body
        .sections
        .iter()
        .find(|s| s.id == SECTION_INDEX)
        .expect("an index");
    let ix: IndexSection<'_> = postcard::from_bytes(sec.data).expect("index");
    let at = |s: &[u8]| (s.as_ptr() as usize - bytes.as_ptr() as usize, s.len());
    [at(ix.items), at(ix.offsets), at(ix.starts)]
}

fn get(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

fn set(bytes: &mut [u8], at: usize, v: u32) {
    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// Both loads refuse `bytes` with a typed error; the lazy one with OSL0014 or another OSL code.
fn refused(bytes: &[u8], what: &str) -> String {
    let full = load(bytes, &LoadOptions::default());
    assert!(
        full.is_err(),
        "{what}: the full load accepted a lying index"
    );
    let lazy_all = LazyFile::open(bytes).and_then(|f| {
        let names: Vec<String> = f
            .symbols()?
            .into_iter()
            .filter(|s| s.kind == SymbolKind::Export)
            .map(|s| s.name)
            .collect();
        let names: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
        f.load(&names, &LoadOptions::default())
    });
    match lazy_all {
        Ok(l) => panic!(
            "{what}: the lazy load accepted it:\n{}",
            print_module(&l.module)
        ),
        Err(e) => {
            assert!(
                e.code().starts_with("OSL") || e.code().starts_with("OSV"),
                "{e}"
            );
            e.to_string()
        }
    }
}

/// The index's tables of `bytes`, for editing.
struct Tables {
    items: Vec<u8>,
    offsets: Vec<u8>,
    starts: Vec<u8>,
    always: Vec<u8>,
    hashes: Vec<u8>,
}

fn tables_of(bytes: &[u8]) -> Tables {
    let body: Body<'_> = postcard::from_bytes(&bytes[HEADER_LEN..]).expect("body");
    let sec = body
        .sections
        .iter()
        .find(|s| s.id == SECTION_INDEX)
        .expect("an index");
    let ix: IndexSection<'_> = postcard::from_bytes(sec.data).expect("index");
    Tables {
        items: ix.items.to_vec(),
        offsets: ix.offsets.to_vec(),
        starts: ix.starts.to_vec(),
        always: ix.always.to_vec(),
        hashes: ix.hashes.to_vec(),
    }
}

/// `bytes` with its index's tables replaced by `t`, the tables' hash recomputed (a liar that
/// keeps its tables consistent) and the file resealed.
fn with_tables(bytes: &[u8], t: &Tables) -> Vec<u8> {
    let body: Body<'_> = postcard::from_bytes(&bytes[HEADER_LEN..]).expect("body");
    let rest = {
        let sec = body
            .sections
            .iter()
            .find(|s| s.id == SECTION_INDEX)
            .expect("an index");
        let ix: IndexSection<'_> = postcard::from_bytes(sec.data).expect("index");
        ix.rest
    };
    let ix = postcard::to_allocvec(&IndexSection {
        rest,
        items: &t.items,
        offsets: &t.offsets,
        starts: &t.starts,
        always: &t.always,
        hashes: &t.hashes,
        tables: crate::writer::tables_hash([&t.items, &t.offsets, &t.starts, &t.always, &t.hashes]),
    })
    .expect("encodes");
    let sections = body
        .sections
        .iter()
        .map(|s| crate::format::Section {
            id: s.id,
            data: if s.id == SECTION_INDEX { &ix } else { s.data },
        })
        .collect();
    let body = Body {
        producer: body.producer,
        cache_key: body.cache_key,
        sections,
    };
    let mut out = bytes[..HEADER_LEN].to_vec();
    out.extend_from_slice(&postcard::to_allocvec(&body).expect("encodes"));
    reseal(&mut out);
    out
}

#[test]
fn lying_indices_are_detected() {
    let good = indexed(&module(LIB));
    let t0 = tables_of(&good);
    assert_eq!(with_tables(&good, &t0), good, "re-encoding changes nothing");
    let entries = t0.items.len() / 4;
    assert!(entries > 5);
    let mut cases: Vec<(String, Tables)> = Vec::new();
    let copy = || tables_of(&good);
    // An entry boundary moved by one record, either way.
    for e in 1..entries - 1 {
        for d in [1i64, -1] {
            let mut t = copy();
            let v = get(&t.items, e * 4) as i64 + d;
            set(&mut t.items, e * 4, v as u32);
            cases.push((format!("entry {e} start {d:+}"), t));
        }
    }
    // A column offset moved by one byte, either way.
    for e in 0..entries - 1 {
        for c in 0..INDEX_COLUMNS {
            for d in [1i64, -1] {
                let mut t = copy();
                let at = (e * INDEX_COLUMNS + c) * 4;
                let v = get(&t.offsets, at) as i64 + d;
                set(&mut t.offsets, at, v as u32);
                cases.push((format!("entry {e} column {c} offset {d:+}"), t));
            }
        }
    }
    // Two entries swapped (every table).
    for e in 1..entries - 2 {
        let mut t = copy();
        for (table, width) in [
            (&mut t.items, 4),
            (&mut t.offsets, 4 * INDEX_COLUMNS),
            (&mut t.starts, 12),
            (&mut t.hashes, 8),
        ] {
            let (x, y) = (e * width, (e + 1) * width);
            let tmp = table[x..x + width].to_vec();
            table.copy_within(y..y + width, x);
            table[y..y + width].copy_from_slice(&tmp);
        }
        cases.push((format!("entries {e} and {} swapped", e + 1), t));
    }
    // An element start moved by one element, its offset following it.
    for e in 1..entries - 1 {
        for j in 0..3 {
            let mut t = copy();
            let s = get(&t.starts, (e * 3 + j) * 4);
            if s == get(&t.starts, ((e + 1) * 3 + j) * 4) {
                continue;
            }
            set(&mut t.starts, (e * 3 + j) * 4, s + 1);
            let c = [4, 5, 6][j];
            let at = (e * INDEX_COLUMNS + c) * 4;
            let o = get(&t.offsets, at);
            set(&mut t.offsets, at, o + if j == 2 { 2 } else { 1 });
            cases.push((format!("entry {e} element start {j} +1"), t));
        }
    }
    assert!(cases.len() > 50);
    for (what, t) in cases {
        let b = with_tables(&good, &t);
        refused(&b, &what);
    }
    // An entry point's entry left off the list of entries every load includes: a load that
    // reaches it anyway (through an export here) sees the lie.
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/link/lib.ir"),
    )
    .expect("example")
        + "func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1), \
           export(\"main()->void\")] {\nbb0:\n  return\n}\n";
    let ep = indexed(&module(&text));
    let mut t = tables_of(&ep);
    assert!(!t.always.is_empty());
    t.always.clear();
    refused(&with_tables(&ep, &t), "no entry listed to load always");
    // Raw damage to the tables (their hash not recomputed) is caught at open, as corruption.
    let [items, _, _] = index_tables(&good);
    let mut b = good.clone();
    b[items.0] ^= 1;
    reseal(&mut b);
    let e = LazyFile::open(&b).err().expect("refused");
    assert_eq!(e.code(), "OSL0004", "{e}");
}

/// Every byte of the index damaged in several ways: each load gives a typed error or, when
/// the damage leaves an index that says the same, the same module. Never a panic.
#[test]
fn damaged_index_bytes_are_typed_errors() {
    let good = indexed(&module(LIB));
    let want = print_module(&lazy(&good, &["apply(@Params,f32)->f32"]).expect("loads"));
    let [items, _, starts] = index_tables(&good);
    // The index's tables (damage before them, to the section's id, makes it another
    // optional section, and the file one without an index).
    let (from, to) = (items.0, starts.0 + starts.1);
    for at in from..to {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut b = good.clone();
            b[at] ^= flip;
            reseal(&mut b);
            let _ = load(&b, &LoadOptions { verify: false });
            match lazy(&b, &["apply(@Params,f32)->f32"]) {
                Ok(m) => assert_eq!(print_module(&m), want, "byte {at} ^ {flip:#x}"),
                Err(e) => assert!(e.code().starts_with("OS"), "{e}"),
            }
        }
    }
    // Truncated tables (a shorter section than its length says is a checksum matter; a
    // shorter table is a length mismatch).
    for cut in [1usize, 4, 28] {
        let mut b = good.clone();
        let len_at = items.0 - 1;
        if (b[len_at] as usize) < cut || b[len_at] >= 0x80 {
            continue;
        }
        b[len_at] -= cut as u8;
        reseal(&mut b);
        assert!(lazy(&b, &[]).is_err());
    }
}

/// A lazy load checks the bytes it reads, not the whole file: damage in an entry it loads is
/// corruption (OSL0004); damage in one it does not load is not its concern (a full load
/// refuses the file).
#[test]
fn damage_is_found_where_the_lazy_load_reads() {
    let good = indexed(&module(LIB));
    let t = tables_of(&good);
    let body: Body<'_> = postcard::from_bytes(&good[HEADER_LEN..]).expect("body");
    let inst = body
        .sections
        .iter()
        .find(|s| s.id == crate::format::SECTION_INSTS)
        .expect("instructions")
        .data;
    let inst_at = inst.as_ptr() as usize - good.as_ptr() as usize;
    let entries = t.items.len() / 4 - 1;
    let loaded = lazy(&good, &["apply(@Params,f32)->f32"]).expect("loads");
    // Flip each operand byte of the instruction section in turn: the lazy load either gives
    // the module it gave before (the byte is in an entry it does not read) or OSL0004.
    let ops_from = get(&t.offsets, 4 * 4) as usize;
    let ops_to = get(&t.offsets, (entries * INDEX_COLUMNS + 4) * 4) as usize;
    let (mut same, mut caught) = (0, 0);
    for at in ops_from..ops_to {
        let mut b = good.clone();
        b[inst_at + at] ^= 0x01;
        // Not resealed: the whole-file checksum is wrong, and the lazy load does not look.
        let unsealed = b;
        match lazy(&unsealed, &["apply(@Params,f32)->f32"]) {
            Ok(m) => {
                assert_eq!(print_module(&m), print_module(&loaded), "byte {at}");
                same += 1;
            }
            Err(e) => {
                assert_eq!(e.code(), "OSL0004", "{e}");
                caught += 1;
            }
        }
        assert_eq!(
            load(&unsealed, &LoadOptions::default())
                .err()
                .map(|e| e.code()),
            Some("OSL0004")
        );
    }
    assert!(same > 0 && caught > 0, "{same} unread, {caught} caught");
}

/// The symbol table as a linker plans with it: names without decoding entries, and names
/// exported twice by one file.
#[test]
fn symbol_names_and_repeated_exports() {
    let bytes = indexed(&module(LIB));
    let file = LazyFile::open(&bytes).expect("opens");
    let names: Vec<(SymbolKind, String)> = file
        .symbol_names()
        .expect("names")
        .into_iter()
        .map(|(k, n)| (k, n.into_owned()))
        .collect();
    let full: Vec<(SymbolKind, String)> = read_symbols(&bytes)
        .expect("symbols")
        .into_iter()
        .map(|s| (s.kind, s.name))
        .collect();
    assert_eq!(names, full);
    assert!(file.exported_twice().expect("twice").is_empty());
    // Two functions exporting one name (a module the linker refuses, OSK0002, but a file that
    // loads): the lazy planner must ask for it.
    let twice = LIB.replace(
        "export(\"unused(i32)->i32\")",
        "export(\"bias(@Params,f32)->f32\")",
    );
    let bytes = indexed(&module(&twice));
    let file = LazyFile::open(&bytes).expect("opens");
    let t: Vec<String> = file
        .exported_twice()
        .expect("twice")
        .into_iter()
        .map(|n| n.into_owned())
        .collect();
    assert_eq!(t, ["bias(@Params,f32)->f32"]);
}
