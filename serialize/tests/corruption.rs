//! Bad files are errors, never panics: every example file truncated at every byte and with
//! every byte flipped is refused; random edits with the checksum recomputed (what a fuzzer
//! that knows the format does) and random bodies behind a valid header load or fail cleanly.

mod common;

use oneshader_ir::{parse::parse, print::print_module, verify::verify};
use oneshader_serialize::{HEADER_LEN, LoadOptions, load, reseal, save};
use proptest::prelude::*;

fn example_files() -> Vec<(String, Vec<u8>)> {
    common::examples()
        .into_iter()
        .map(|(name, text)| {
            let m = parse(&text).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            (name, save(&m).expect("example saves"))
        })
        .collect()
}

#[test]
fn truncation_at_every_byte_is_an_error() {
    for (name, bytes) in example_files() {
        for len in 0..bytes.len() {
            let cut = &bytes[..len];
            assert!(
                load(cut, &LoadOptions::default()).is_err(),
                "{name} truncated to {len} bytes loaded"
            );
            // Even with a checksum that matches the truncated bytes.
            let mut sealed = cut.to_vec();
            reseal(&mut sealed);
            assert!(
                load(&sealed, &LoadOptions::default()).is_err(),
                "{name} truncated to {len} bytes and resealed loaded"
            );
        }
    }
}

#[test]
fn every_flipped_byte_is_reported() {
    for (name, bytes) in example_files() {
        for i in 0..bytes.len() {
            for mask in [0x01u8, 0x80, 0xff] {
                let mut bad = bytes.clone();
                bad[i] ^= mask;
                let e = match load(&bad, &LoadOptions::default()) {
                    Ok(_) => panic!("{name}: byte {i} ^ {mask:#x} loaded"),
                    Err(e) => e,
                };
                // Past the magic and the version, a flip is caught as corruption.
                if i >= 12 {
                    assert_eq!(e.code(), "OSL0004", "{name}: byte {i}: {e}");
                }
            }
        }
    }
}

/// Loads `bytes`; when that succeeds the module must be usable: it verifies (the loader ran
/// the verifier), prints, and saves again.
fn load_is_clean(bytes: &[u8]) {
    if let Ok(l) = load(bytes, &LoadOptions::default()) {
        assert!(verify(&l.module).is_empty());
        let _ = print_module(&l.module);
        save(&l.module).expect("a loaded module saves");
    }
    // Without verification the loader must not panic either.
    let _ = load(bytes, &LoadOptions { verify: false });
}

#[derive(Clone, Debug)]
enum Edit {
    Set(usize, u8),
    Insert(usize, u8),
    Delete(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        4 => (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Edit::Set(i, b)),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Edit::Insert(i, b)),
        1 => any::<usize>().prop_map(Edit::Delete),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn resealed_random_edits_never_panic(
        which in any::<usize>(),
        edits in prop::collection::vec(edit(), 1..6),
    ) {
        let files = example_files();
        let (_, bytes) = &files[which % files.len()];
        let mut bad = bytes.clone();
        for e in &edits {
            // Edits stay behind the magic and format version, which are checked first.
            let body = bad.len() - 12;
            match *e {
                Edit::Set(i, b) => { let i = 12 + i % body; bad[i] = b; }
                Edit::Insert(i, b) => bad.insert(12 + i % (body + 1), b),
                Edit::Delete(i) => { if body > 0 { bad.remove(12 + i % body); } }
            }
        }
        // Unsealed: a changed file is never loaded.
        if bad != *bytes {
            prop_assert!(load(&bad, &LoadOptions::default()).is_err());
        }
        reseal(&mut bad);
        load_is_clean(&bad);
    }

    #[test]
    fn random_bodies_behind_a_valid_header_never_panic(
        body in prop::collection::vec(any::<u8>(), 0..512),
    ) {
        let files = example_files();
        let mut bytes = files[0].1[..HEADER_LEN].to_vec();
        bytes.extend(body);
        reseal(&mut bytes);
        load_is_clean(&bytes);
    }

    #[test]
    fn truncations_and_flips_of_random_module_files_are_refused(
        actions in prop::collection::vec(common::action(), 1..30),
        pos in any::<usize>(),
        mask in 1u8..=255,
    ) {
        let m = common::Gen::build(&actions);
        let bytes = save(&m).unwrap();
        let cut = &bytes[..pos % bytes.len()];
        prop_assert!(load(cut, &LoadOptions::default()).is_err());
        let mut sealed = cut.to_vec();
        reseal(&mut sealed);
        prop_assert!(load(&sealed, &LoadOptions::default()).is_err());
        let mut bad = bytes.clone();
        let i = pos % bad.len();
        bad[i] ^= mask;
        prop_assert!(load(&bad, &LoadOptions::default()).is_err());
        reseal(&mut bad);
        load_is_clean(&bad);
    }
}
