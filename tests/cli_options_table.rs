//! docs/cli.md's table of every DXC option against the parser and the command line: the
//! table and `oneshader::dxc_args::OPTIONS` agree row for row; each `refused` option makes
//! `oneshader compile` fail with OSC0050 naming it; each `honoured` or `no effect` option
//! parses with the row's example. A new option cannot be accepted and silently ignored.

use std::process::Command;

use oneshader::dxc_args::{DxcArgs, OPTIONS};

/// One row of the docs table.
#[derive(Debug)]
struct Row {
    option: String,
    form: String,
    prefixes: String,
    class: String,
    example: String,
    reason: String,
}

fn unquote(cell: &str) -> String {
    cell.trim().trim_matches('`').to_string()
}

fn doc_rows() -> Vec<Row> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/cli.md");
    let text = std::fs::read_to_string(path).expect("docs/cli.md");
    let start = text
        .find("| option | form | prefixes | class | example |")
        .expect("the option table in docs/cli.md");
    text[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<&str> = l.trim().trim_matches('|').split(" | ").collect();
            assert_eq!(cells.len(), 6, "a row of six cells: {l}");
            Row {
                option: unquote(cells[0]),
                form: cells[1].trim().to_string(),
                prefixes: unquote(cells[2]),
                class: cells[3].trim().to_string(),
                example: unquote(cells[4]),
                reason: cells[5].trim().to_string(),
            }
        })
        .collect()
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

#[test]
fn the_docs_table_is_the_parsers_table() {
    let rows = doc_rows();
    assert_eq!(rows.len(), OPTIONS.len(), "one docs row per option");
    for (row, spec) in rows.iter().zip(OPTIONS) {
        let expected = format!(
            "| `{}` | {} | `{}` | {} | `...` | {} |",
            spec.spelling(),
            spec.form.spelling(),
            spec.prefixes,
            spec.support.class(),
            spec.support.reason()
        );
        assert_eq!(row.option, spec.spelling(), "expected the row {expected}");
        assert_eq!(row.form, spec.form.spelling(), "{expected}");
        assert_eq!(row.prefixes, spec.prefixes, "{expected}");
        assert_eq!(row.class, spec.support.class(), "{expected}");
        assert_eq!(row.reason, spec.support.reason(), "{expected}");
        assert!(
            row.example.starts_with(&row.option),
            "the example of `{}` uses it: {}",
            row.option,
            row.example
        );
    }
    // DXC's table at the commit docs/cli.md names has 210 options; the counts line is true.
    let dxc: Vec<_> = OPTIONS.iter().filter(|o| o.dxc).collect();
    assert_eq!(dxc.len(), 210);
    let count = |class: &str| dxc.iter().filter(|o| o.support.class() == class).count();
    let line = format!(
        "Counts of DXC's 210: honoured {}, refused {}, no effect {}.",
        count("honoured"),
        count("refused"),
        count("no effect")
    );
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/cli.md"))
        .expect("docs/cli.md");
    assert!(text.contains(&line), "docs/cli.md says: {line}");
}

#[test]
fn accepted_options_parse_with_their_examples() {
    for row in doc_rows().iter().filter(|r| r.class != "refused") {
        let mut args = words(&row.example);
        args.push("in.hlsl".into());
        if let Err(e) = DxcArgs::parse(&args) {
            panic!("`{}` ({}) does not parse: {e}", row.example, row.class);
        }
        if row.prefixes.contains('/') {
            args[0] = format!("/{}", &args[0][1..]);
            if let Err(e) = DxcArgs::parse(&args) {
                panic!("`{}` with a slash does not parse: {e}", row.example);
            }
        }
    }
}

#[test]
fn refused_options_fail_with_osc0050_naming_them() {
    let dir = std::env::temp_dir().join(format!("oneshader-options-table-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let src = dir.join("ps.hlsl");
    std::fs::write(&src, "float4 main() : SV_Target { return 1; }\n").expect("write");
    let src = src.to_str().expect("utf-8");
    let out = dir.join("ps.spv");
    let out = out.to_str().expect("utf-8");
    let rows = doc_rows();
    let refused: Vec<&Row> = rows.iter().filter(|r| r.class == "refused").collect();
    assert!(refused.len() > 50, "the table has its refusals");
    for row in refused {
        let example = words(&row.example);
        let o = Command::new(env!("CARGO_BIN_EXE_oneshader"))
            .args(["compile", src, "-T", "ps_6_0", "-o", out])
            .args(&example)
            .output()
            .expect("the binary runs");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "`{}`: {err}", row.example);
        let first = err.lines().next().unwrap_or_default();
        assert!(
            first.starts_with("error[OSC0050]: ")
                && first.contains(&format!("`{}", example[0]))
                && first.contains(row.reason.trim_end_matches('.')),
            "`{}` is refused by name with its reason: {first}",
            row.example
        );
    }
    // With a slash too.
    let o = Command::new(env!("CARGO_BIN_EXE_oneshader"))
        .args(["compile", src, "-T", "ps_6_0", "/Zs", "-o", out])
        .output()
        .expect("the binary runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("error[OSC0050]: `/Zs` is not supported: only SPIR-V line information"),
        "{err}"
    );
}
