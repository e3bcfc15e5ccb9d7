//! The facade is a library first: without its default `cli` feature, none of the command
//! line's dependencies (clap) are built. `cargo xtask test` also builds the library that way.

use std::process::Command;

/// The crates `cargo tree` lists for the `oneshader` package's normal dependencies, one
/// name per line.
fn dependency_tree(extra: &[&str]) -> String {
    tree_with_format("{p}", extra)
}

/// `cargo tree` of the `oneshader` package's normal dependencies, each line in `format`.
fn tree_with_format(format: &str, extra: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = Command::new(cargo)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "tree",
            "--offline",
            "-p",
            "oneshader",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--format",
            format,
        ])
        .args(extra)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn has_crate(tree: &str, name: &str) -> bool {
    tree.lines()
        .any(|l| l.split_whitespace().next() == Some(name))
}

#[test]
fn the_library_alone_does_not_depend_on_clap() {
    let library = dependency_tree(&["--no-default-features"]);
    assert!(has_crate(&library, "oneshader-reflect"), "{library}");
    assert!(has_crate(&library, "oneshader-backends"), "{library}");
    assert!(!has_crate(&library, "clap"), "{library}");
    // The command line does: the check above would see it.
    let with_cli = dependency_tree(&[]);
    assert!(has_crate(&with_cli, "clap"), "{with_cli}");
}

/// The backends of the text targets follow the facade's cargo features (`glsl`, `wgsl`,
/// `msl`; all on by default): without them the backend crate is built with none, with one
/// only that one. (`cargo xtask test` builds the library both ways.)
#[test]
fn text_targets_are_cargo_features_a_library_can_leave_out() {
    let backends_features = |extra: &[&str]| -> String {
        let tree = tree_with_format("{p} [{f}]", extra);
        tree.lines()
            .find(|l| l.starts_with("oneshader-backends "))
            .and_then(|l| {
                l.rsplit_once('[')
                    .map(|(_, f)| f.trim_end_matches(']').to_string())
            })
            .unwrap_or_else(|| panic!("oneshader-backends in the tree:\n{tree}"))
    };
    assert_eq!(backends_features(&["--no-default-features"]), "");
    assert_eq!(
        backends_features(&["--no-default-features", "--features", "wgsl"]),
        "wgsl"
    );
    assert_eq!(backends_features(&[]), "glsl,msl,wgsl");
}
