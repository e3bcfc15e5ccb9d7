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
//! Seeds: `cargo run -p oneshader -- as ../examples/ir/X.ir -o corpus/osir_load/X.osir` for
//! each example (see docs/osir.md). Run: `cargo +nightly fuzz run osir_load` from this folder.

#![no_main]

use libfuzzer_sys::fuzz_target;
use oneshader_serialize::{FORMAT_VERSION, HEADER_LEN, LoadOptions, MAGIC, load, reseal, save};

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
    let _ = load(&bytes, &LoadOptions { verify: false });
    if let Ok(loaded) = load(&bytes, &LoadOptions::default()) {
        let text = oneshader_ir::print::print_module(&loaded.module);
        let again = save(&loaded.module).expect("a loaded module saves");
        let back = load(&again, &LoadOptions::default()).expect("a saved module loads");
        assert_eq!(oneshader_ir::print::print_module(&back.module), text);
        assert!(again == save(&back.module).expect("saves again"));
    }
});
