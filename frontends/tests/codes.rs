//! Every diagnostic code the HLSL front end emits is listed in docs/diagnostics.md.

use std::collections::BTreeSet;

fn codes_in(text: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find(prefix) {
        let tail = &rest[i + prefix.len()..];
        let digits: String = tail.chars().take_while(char::is_ascii_digit).collect();
        if digits.len() == 4 {
            out.insert(format!("{prefix}{digits}"));
        }
        rest = &rest[i + prefix.len()..];
    }
    out
}

#[test]
fn every_code_is_documented() {
    let root = env!("CARGO_MANIFEST_DIR");
    let doc = std::fs::read_to_string(format!("{root}/../docs/diagnostics.md")).unwrap();
    let mut used = BTreeSet::new();
    let mut dirs = vec![std::path::PathBuf::from(format!("{root}/src/hlsl"))];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            used.extend(codes_in(&text, "OSP"));
            used.extend(codes_in(&text, "OSH"));
        }
    }
    assert!(used.len() > 20, "{used:?}");
    let missing: Vec<&String> = used
        .iter()
        .filter(|c| !doc.contains(&format!("| `{c}` |")))
        .collect();
    assert!(missing.is_empty(), "undocumented codes: {missing:?}");
}
