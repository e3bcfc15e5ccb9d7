//! Fuzz target: the `.osir` loader on arbitrary bytes. The first byte picks a mode:
//!
//! - even: the rest is loaded as it is (the container checks: magic, version, checksum);
//! - odd: the rest gets a valid magic, format and IR-semantics version and a recomputed
//!   checksum first, so that the fuzzer explores the body: sections, columns, indices, the
//!   rebuild and the verifier.
//!
//! Nothing may panic, loop or overflow the stack. A file that loads must round-trip: saved
//! again and reloaded, it prints the same text.
//!
//! The lazy path too: the file is opened as a `LazyFile` (its symbol index checked), its
//! symbols listed, and loaded with every export and with one (picked by the mode byte), with
//! and without verification: a damaged or lying index is an error, never a panic. A file
//! that loads in full (which checks its index against its records) must load lazily too, and
//! the lazy module must round-trip.
//!
//! Seeds: `cargo run -p oneshader -- as --index ../examples/ir/X.ir -o corpus/osir_load/X.osir`
//! for each example, with and without `--index` (see docs/osir.md). Run:
//! `cargo +nightly fuzz run osir_load` from this folder.

#![no_main]

use libfuzzer_sys::fuzz_target;
use oneshader_serialize::{
    FORMAT_VERSION, HEADER_LEN, LazyFile, LoadOptions, MAGIC, SymbolKind, load, reseal, save,
};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mut bytes = rest.to_vec();
    if mode % 2 == 1 && bytes.len() >= HEADER_LEN {
        bytes[..8].copy_from_slice(&MAGIC);
        bytes[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        bytes[20..24].copy_from_slice(&oneshader_ir::IR_SEMANTICS_VERSION.to_le_bytes());
        reseal(&mut bytes);
    }
    // Without verification: well-formedness checks alone must keep the loader safe.
    let unverified = load(&bytes, &LoadOptions { verify: false });
    lazy(&bytes, mode, unverified.is_ok());
    if let Ok(loaded) = load(&bytes, &LoadOptions::default()) {
        let text = oneshader_ir::print::print_module(&loaded.module);
        let again = save(&loaded.module).expect("a loaded module saves");
        let back = load(&again, &LoadOptions::default()).expect("a saved module loads");
        assert_eq!(oneshader_ir::print::print_module(&back.module), text);
        assert!(again == save(&back.module).expect("saves again"));
    }
});

/// The lazy path on `bytes`; `loads` says whether the full load (unverified) succeeded.
fn lazy(bytes: &[u8], mode: u8, loads: bool) {
    let file = match LazyFile::open(bytes) {
        Ok(f) => f,
        Err(e) => {
            assert!(!loads, "a file that loads in full does not open lazily: {e}");
            return;
        }
    };
    let symbols = match file.symbols() {
        Ok(s) => s,
        Err(e) => {
            assert!(!loads, "a file that loads in full lists no symbols lazily: {e}");
            return;
        }
    };
    let exports: Vec<&str> = symbols
        .iter()
        .filter(|s| s.kind == SymbolKind::Export)
        .map(|s| s.name.as_str())
        .collect();
    let one: Vec<&str> = exports
        .get(mode as usize / 2 % exports.len().max(1))
        .into_iter()
        .copied()
        .collect();
    let unverified = LoadOptions { verify: false };
    let all = file.load(&exports, &unverified);
    if loads {
        let part = all.expect("a file that loads in full loads lazily");
        let again = save(&part.module).expect("a lazily loaded module saves");
        let back = load(&again, &unverified).expect("and loads");
        assert_eq!(
            oneshader_ir::print::print_module(&back.module),
            oneshader_ir::print::print_module(&part.module)
        );
    }
    let _ = file.load(&one, &unverified);
    let _ = file.load(&one, &LoadOptions::default());
}
