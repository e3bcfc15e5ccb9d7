//! `include/oneshader.h` is what cbindgen makes of `src/lib.rs` with `cbindgen.toml`: the
//! checked-in header cannot drift from the functions the libraries export.
//! `ONESHADER_BLESS=1 cargo test -p oneshader-capi --test header` rewrites it.

use std::path::Path;

#[test]
fn checked_in_header_is_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(dir.join("src/lib.rs"))
        .generate()
        .expect("cbindgen reads src/lib.rs");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let generated = String::from_utf8(generated).expect("the header is UTF-8");
    let path = dir.join("include/oneshader.h");
    if std::env::var_os("ONESHADER_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write include/oneshader.h");
        return;
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        current == generated,
        "capi/include/oneshader.h is not what cbindgen makes of capi/src/lib.rs; regenerate it \
         with `ONESHADER_BLESS=1 cargo test -p oneshader-capi --test header` and commit it"
    );
}
