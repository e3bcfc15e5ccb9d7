//! Shared by the serializer's tests: the example modules, and (from oneshader-ir-gen) the
//! generator of random valid modules.

#![allow(dead_code)]

use std::path::PathBuf;

/// (file name, text) of every example module under examples/ir and examples/link.
pub fn examples() -> Vec<(String, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("examples");
    let mut out = Vec::new();
    for dir in ["ir", "link"] {
        let Ok(rd) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "ir"))
            .collect();
        files.sort();
        for p in files {
            let text = std::fs::read_to_string(&p).expect("example is readable");
            out.push((
                format!("{dir}/{}", p.file_name().unwrap().to_string_lossy()),
                text,
            ));
        }
    }
    assert!(out.len() >= 14, "examples/ir has at least 14 modules");
    out
}

pub use oneshader_ir_gen::{Gen, action};
