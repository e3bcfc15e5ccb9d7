//! Fuzzes the IR text parser: any input must parse or give diagnostics, never panic; what
//! parses must print, reparse to the same text, and verify without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(m) = oneshader_ir::parse::parse(text) {
        let printed = oneshader_ir::print::print_module(&m);
        let _ = oneshader_ir::verify::verify(&m);
        let again = oneshader_ir::parse::parse(&printed).expect("printed text reparses");
        assert_eq!(oneshader_ir::print::print_module(&again), printed);
    }
});
