//! Property test: no input makes the preprocessor or parser panic.

mod common;

use proptest::prelude::*;

/// Fragments that exercise many paths when glued together at random.
const PIECES: &[&str] = &[
    "#define ",
    "#if ",
    "#ifdef ",
    "#elif ",
    "#else",
    "#endif",
    "#include \"x\"",
    "#undef ",
    "#pragma once",
    "#line 3",
    "#error e",
    "\n",
    " ",
    "F(",
    "F",
    "X",
    "(",
    ")",
    "##",
    "#",
    ",",
    "__VA_ARGS__",
    "...",
    "struct",
    "S",
    "{",
    "}",
    ";",
    "float4",
    "Texture2D<",
    ">",
    ">>",
    "<",
    "[",
    "]",
    "[[",
    "]]",
    ":",
    "::",
    "register(t0)",
    "=",
    "1",
    "1.5f",
    "0.xx",
    "\"s\"",
    "'c'",
    "if",
    "else",
    "for",
    "while",
    "do",
    "switch",
    "case",
    "default",
    "return",
    "template",
    "typename",
    "T",
    "cbuffer",
    "namespace",
    "enum",
    "typedef",
    "static",
    "in",
    "out",
    "sample",
    "+",
    "-",
    "*",
    "?",
    "&&",
    "sampler_state",
    "<string a = \"b\";>",
    "/*",
    "*/",
    "//",
    "\\\n",
];

fn source() -> impl Strategy<Value = String> {
    prop::collection::vec(0..PIECES.len(), 0..120).prop_map(|ix| {
        ix.into_iter()
            .map(|i| PIECES[i])
            .collect::<Vec<_>>()
            .join("")
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn fragments_never_panic(src in source()) {
        let (p, sources) = common::parse(&src);
        // Rendering every diagnostic must not panic either.
        let _ = sources.render_all(&p.diagnostics);
        let _ = oneshader_frontends::hlsl::dump(&p.unit, &sources);
        let _ = p.preprocessed.to_text(&sources);
    }

    #[test]
    fn arbitrary_text_never_panics(src in "\\PC{0,200}") {
        let (p, sources) = common::parse(&src);
        let _ = sources.render_all(&p.diagnostics);
    }
}

/// Found by the `hlsl_parse` fuzz target: an unterminated string literal ending in a
/// multi-byte character.
#[test]
fn unterminated_string_ending_in_multibyte_char() {
    let src = "float4 main() : SV_Target0\n{\n\"   [unroll(4) ] for \u{3d6}nt x=0; x<5; ++x);\n    return 0;\n}\n";
    let (parsed, _) = common::parse(src);
    assert!(parsed.has_errors(), "an unterminated string is an error");
}

/// Found by the `hlsl_parse` fuzz target: `#line` and `#include` with an unterminated string
/// ending in a multi-byte character.
#[test]
fn unterminated_directive_strings_ending_in_multibyte_chars() {
    for src in [
        "#line 3 \"a\u{3d6}\nint x;\n",
        "#include \"a\u{3d6}\nint x;\n",
    ] {
        let (parsed, _) = common::parse(src);
        assert!(parsed.has_errors(), "{src:?} must be an error");
    }
}
