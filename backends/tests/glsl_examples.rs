//! Every shader module of examples/ir goes through the GLSL backend (one output per entry
//! point), glslang (`glslangValidator -V`) and spirv-val.

mod common;

use common::*;
use oneshader_backends::glsl;
use oneshader_test_tools::{GlslStage, glslang_and_validate};

#[test]
fn every_example_entry_point_compiles_with_glslang() {
    let mut count = 0;
    for (name, text) in examples() {
        let m = parse(&text);
        for (entry, stage) in entry_points(&m) {
            let stage = GlslStage::of(stage);
            let glsl = emit_glsl(&m, &glsl::Options::for_entry(&entry))
                .unwrap_or_else(|d| panic!("{name} `{entry}`: {d:#?}"));
            if let Err(e) = glslang_and_validate(&glsl, stage) {
                panic!("{name} `{entry}`:\n{e}");
            }
            count += 1;
        }
    }
    assert!(count >= 4, "the shader examples ran ({count})");
}
