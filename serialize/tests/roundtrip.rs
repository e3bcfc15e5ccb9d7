//! Saving and loading: `dis(as(x)) == fmt(x)` on every example and on random modules; save,
//! load, save gives identical bytes; the bytes do not depend on slot-map keys; metadata,
//! symbols and source maps survive.

mod common;

use oneshader_ir::{Module, Op, parse::parse, print::print_module, verify::verify};
use oneshader_serialize::{
    CacheKey, LoadOptions, PRODUCER, SaveOptions, SourceLoc, SourceLocations, Symbol, SymbolKind,
    load, read_header, read_symbols, save, save_with,
};
use proptest::prelude::*;

fn load_ok(bytes: &[u8]) -> Module {
    match load(bytes, &LoadOptions::default()) {
        Ok(l) => l.module,
        Err(e) => panic!("load failed: {e} {:#?}", e.diagnostics()),
    }
}

#[test]
fn every_example_round_trips_to_the_same_text_and_bytes() {
    for (name, text) in common::examples() {
        let m = parse(&text).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let fmt = print_module(&m);
        let bytes = save(&m).expect("a parsed module saves");
        let back = load_ok(&bytes);
        assert_eq!(print_module(&back), fmt, "{name}: dis(as(x)) != fmt(x)");
        assert!(verify(&back).is_empty(), "{name}");
        // The dedup table was rebuilt: interning what the file holds finds it.
        let mut probe = back.clone();
        let before = probe.len();
        probe.i32_type();
        probe.f32_type();
        probe.void_type();
        let kept = probe.len() - before;
        let had = |op: Op| back.all_ids().any(|i| back.op(i) == op) as usize;
        assert_eq!(
            kept,
            3 - had(Op::I32) - had(Op::F32) - had(Op::Void),
            "{name}"
        );
        let again = save(&back).expect("a loaded module saves");
        assert!(
            again == bytes,
            "{name}: save(load(save(m))) differs from save(m)"
        );
        // Saving twice gives the same bytes.
        assert!(
            save(&m).unwrap() == bytes,
            "{name}: saving is not deterministic"
        );
    }
}

/// Builds the same small module (a struct, a global, a function with a diamond) into `m`.
fn build_sample(m: &mut Module) {
    use oneshader_ir::{AddressSpace, Builder};
    let f32t = m.f32_type();
    let i32t = m.i32_type();
    let s = m.add_struct("Light", &[("color", f32t), ("count", i32t)]);
    m.add_global("lights", AddressSpace::Private, s.id(), None);
    let f = m.add_func("pick", i32t, &[i32t, i32t]);
    let ps = f.params(m);
    let (a, b) = (ps[0].id(), ps[1].id());
    let entry = f.entry(m).unwrap();
    let (t, e, j) = (m.add_block(f), m.add_block(f), m.add_block(f));
    let jp = m.add_block_param(j, i32t);
    m.set_name(jp, Some("picked"));
    let mut bl = Builder::at_end(m, entry);
    let c = bl.cmp(Op::Lt, a, b);
    bl.if_else(c, t, e, j);
    bl.position_at_end(t);
    bl.br(j, &[a]);
    bl.position_at_end(e);
    let d = bl.sub(b, a);
    bl.br(j, &[d]);
    bl.position_at_end(j);
    bl.ret(Some(jp));
}

/// The same module built twice, once in a store whose slot keys were shuffled by earlier
/// insertions and removals, gives identical bytes.
#[test]
fn bytes_do_not_depend_on_slot_keys() {
    let mut a = Module::new();
    build_sample(&mut a);
    let mut b = Module::new();
    let void = b.void_type();
    let junk: Vec<_> = (0..50)
        .map(|i| b.add_func(&format!("junk{i}"), void, &[]).id())
        .collect();
    // Removed in an interleaved order so the free list hands slots out scrambled.
    for (i, &j) in junk.iter().enumerate() {
        if i % 2 == 0 {
            b.remove(j).unwrap();
        }
    }
    for (i, &j) in junk.iter().enumerate().rev() {
        if i % 2 == 1 {
            b.remove(j).unwrap();
        }
    }
    let fty = b.fn_type(void, &[]);
    b.remove(fty).unwrap();
    b.remove(void).unwrap();
    build_sample(&mut b);
    assert!(verify(&a).is_empty() && verify(&b).is_empty());
    assert_eq!(print_module(&a), print_module(&b));
    let keys_a: Vec<_> = a.all_ids().collect();
    let keys_b: Vec<_> = b.all_ids().collect();
    assert_ne!(
        keys_a, keys_b,
        "the two stores should assign keys differently"
    );
    assert!(save(&a).unwrap() == save(&b).unwrap());
}

#[test]
fn header_metadata_round_trips() {
    let m = parse("func @f() -> void {\nbb0:\n  return\n}\n").unwrap();
    let key = CacheKey::from_inputs(
        b"float4 main() : SV_Target { return 1; }",
        &["-O", "-T ps_6_0"],
        "0.1.0",
    );
    let bytes = save_with(
        &m,
        &SaveOptions {
            cache_key: key,
            producer: "unit test 1.2.3",
            source_map: None,
            ..SaveOptions::default()
        },
    )
    .unwrap();
    let h = read_header(&bytes).unwrap();
    assert_eq!(h.cache_key, key);
    assert_eq!(h.producer, "unit test 1.2.3");
    assert_eq!(h.format_version, oneshader_serialize::FORMAT_VERSION);
    assert_eq!(h.ir_semantics_version, oneshader_ir::IR_SEMANTICS_VERSION);
    let loaded = load(&bytes, &LoadOptions::default()).unwrap();
    assert_eq!(loaded.header, h);
    // The default producer names this crate.
    let d = read_header(&save(&m).unwrap()).unwrap();
    assert_eq!(d.producer, PRODUCER);
    assert_eq!(d.cache_key, CacheKey::NONE);
}

#[test]
fn cache_keys_depend_on_every_input_and_only_on_them() {
    let k = |s: &[u8], o: &[&str], v: &str| CacheKey::from_inputs(s, o, v);
    let base = k(b"src", &["-O"], "1");
    assert_eq!(base, k(b"src", &["-O"], "1"));
    assert_ne!(base, k(b"src2", &["-O"], "1"));
    assert_ne!(base, k(b"src", &["-O0"], "1"));
    assert_ne!(base, k(b"src", &["-O"], "2"));
    // Length prefixes: moving bytes between parts changes the key.
    assert_ne!(k(b"ab", &["c"], "1"), k(b"a", &["bc"], "1"));
    assert_ne!(k(b"a", &["b", "c"], "1"), k(b"a", &["bc"], "1"));
    assert_eq!(base.to_hex().len(), 32);
}

#[test]
fn symbols_are_listed_and_readable_without_loading() {
    let text = "\
global @counter : ptr<private, i32> = i32 0 [export(\"counter\")]
func @ext(f32) -> f32 [import(\"ext(f32)->f32\")]
func @lib(%0: f32) -> f32 [export(\"lib(f32)->f32\")] {
bb0:
  %1 = call @ext(%0) : f32
  return %1
}
";
    let m = parse(text).unwrap();
    let bytes = save(&m).unwrap();
    let want = vec![
        Symbol {
            kind: SymbolKind::Export,
            name: "counter".into(),
            item: Op::Global,
        },
        Symbol {
            kind: SymbolKind::Import,
            name: "ext(f32)->f32".into(),
            item: Op::Func,
        },
        Symbol {
            kind: SymbolKind::Export,
            name: "lib(f32)->f32".into(),
            item: Op::Func,
        },
    ];
    assert_eq!(read_symbols(&bytes).unwrap(), want);
    assert_eq!(load(&bytes, &LoadOptions::default()).unwrap().symbols, want);
}

#[test]
fn source_map_round_trips_in_record_order() {
    let m = parse(
        "func @f(%0: i32) -> i32 {\nbb0:\n  %1 = add %0, %0 : i32\n  %2 = mul %1, %1 : i32\n  return %2\n}\n",
    )
    .unwrap();
    let f = m.functions()[0];
    let insts = f.entry(&m).unwrap().insts(&m);
    let sm = SourceLocations {
        files: vec!["shaders/a.hlsl".into(), "include/b.hlsli".into()],
        // Given out of order: the file stores them in record order.
        locations: vec![
            (
                insts[1],
                SourceLoc {
                    file: 1,
                    line: 7,
                    column: 3,
                },
            ),
            (
                insts[0],
                SourceLoc {
                    file: 0,
                    line: 2,
                    column: 11,
                },
            ),
        ],
    };
    let opts = SaveOptions {
        source_map: Some(&sm),
        ..SaveOptions::default()
    };
    let bytes = save_with(&m, &opts).unwrap();
    let loaded = load(&bytes, &LoadOptions::default()).unwrap();
    let back = loaded.source_map.expect("the file has a source map");
    assert_eq!(back.files, sm.files);
    let lf = loaded.module.functions()[0];
    let li = lf.entry(&loaded.module).unwrap().insts(&loaded.module);
    assert_eq!(
        back.locations,
        vec![
            (
                li[0],
                SourceLoc {
                    file: 0,
                    line: 2,
                    column: 11
                }
            ),
            (
                li[1],
                SourceLoc {
                    file: 1,
                    line: 7,
                    column: 3
                }
            ),
        ]
    );
    assert_eq!(loaded.module.op(li[0]), Op::Add);
    // Deterministic with the source map too, and a file without one has none.
    assert!(save_with(&m, &opts).unwrap() == bytes);
    assert!(
        load(&save(&m).unwrap(), &LoadOptions::default())
            .unwrap()
            .source_map
            .is_none()
    );
}

/// Functions and globals carry their declaration's position (`oneshader_ir::positions`):
/// `SourceLocations::of_module` lists them with the instructions, and the `.osir` source map
/// saves and loads them.
#[test]
fn declaration_positions_round_trip_through_the_source_map() {
    use oneshader_ir::{FileId, SourceMap, Span};
    let mut m = parse(
        "global @g : ptr<private, i32> = i32 0\nfunc @f(%0: i32) -> i32 {\nbb0:\n  %1 = add %0, %0 : i32\n  store @g, %1\n  return %1\n}\n",
    )
    .unwrap();
    let mut sources = SourceMap::new();
    let text = "static int g;\nint f(int a) {\n  g = a + a;\n  return g;\n}\n";
    let file = sources.add("a.hlsl", text);
    let span = |needle: &str, from: usize| {
        let start = (text[from..].find(needle).unwrap() + from) as u32;
        Span {
            file: FileId(file.0),
            start,
            end: start + needle.len() as u32,
        }
    };
    let g = m.globals()[0].id();
    let f = m.functions()[0];
    let add = f.entry(&m).unwrap().insts(&m)[0];
    m.set_position(g, Some(span("g", 11)));
    m.set_position(f.id(), Some(span("f", 14)));
    m.set_position(add, Some(span("a + a", 0)));
    let sm = SourceLocations::of_module(&m, &sources);
    let loc = |line, column| SourceLoc {
        file: 0,
        line,
        column,
    };
    let find = |sm: &SourceLocations, i| sm.locations.iter().find(|l| l.0 == i).map(|l| l.1);
    assert_eq!(sm.locations.len(), 3, "{sm:?}");
    assert_eq!(find(&sm, g), Some(loc(1, 12)));
    assert_eq!(find(&sm, f.id()), Some(loc(2, 5)));
    assert_eq!(find(&sm, add), Some(loc(3, 7)));
    let bytes = save_with(
        &m,
        &SaveOptions {
            source_map: Some(&sm),
            ..SaveOptions::default()
        },
    )
    .unwrap();
    let loaded = load(&bytes, &LoadOptions::default()).unwrap();
    let back = loaded.source_map.expect("a source map");
    let lm = &loaded.module;
    let (lg, lf) = (lm.globals()[0].id(), lm.functions()[0]);
    let ladd = lf.entry(lm).unwrap().insts(lm)[0];
    assert_eq!(back.locations.len(), 3);
    assert_eq!(find(&back, lg), Some(loc(1, 12)));
    assert_eq!(find(&back, lf.id()), Some(loc(2, 5)));
    assert_eq!(find(&back, ladd), Some(loc(3, 7)));
}

#[test]
fn saving_refuses_a_source_map_with_a_bad_file_index() {
    let m = parse("func @f() -> void {\nbb0:\n  return\n}\n").unwrap();
    let ret = m.functions()[0].entry(&m).unwrap().insts(&m)[0];
    let sm = SourceLocations {
        files: vec!["a.hlsl".into()],
        locations: vec![(
            ret,
            SourceLoc {
                file: 3,
                line: 1,
                column: 1,
            },
        )],
    };
    let e = save_with(
        &m,
        &SaveOptions {
            source_map: Some(&sm),
            ..SaveOptions::default()
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("file 3"), "{e}");
}

#[test]
fn file_size_is_compact() {
    // A sanity bound on the encoding: well under 16 bytes per instruction on the examples.
    for (name, text) in common::examples() {
        let m = parse(&text).unwrap();
        let bytes = save(&m).unwrap();
        assert!(
            bytes.len() < 64 + 16 * m.len() + text.len() / 4,
            "{name}: {} bytes for {} instructions",
            bytes.len(),
            m.len()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn random_modules_round_trip(actions in prop::collection::vec(common::action(), 1..40)) {
        let m = common::Gen::build(&actions);
        let diags = verify(&m);
        prop_assert!(diags.is_empty(), "generator made an invalid module: {:#?}\n{}", diags, print_module(&m));
        let fmt = print_module(&m);
        let bytes = save(&m).unwrap();
        let back = load(&bytes, &LoadOptions::default())
            .map_err(|e| TestCaseError::fail(format!("{e} {:#?}\n{fmt}", e.diagnostics())))?
            .module;
        prop_assert_eq!(print_module(&back), fmt.clone());
        prop_assert!(save(&back).unwrap() == bytes, "save/load/save differs");
        // From the text form too: as(parse(fmt)) disassembles to the same text.
        let reparsed = parse(&fmt).map_err(|e| TestCaseError::fail(format!("{e:?}\n{fmt}")))?;
        let back2 = load(&save(&reparsed).unwrap(), &LoadOptions::default()).unwrap().module;
        prop_assert_eq!(print_module(&back2), fmt);
    }
}
