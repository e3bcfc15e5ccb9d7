//! `oneshader build --emit-cmake FILE`: the manifest's outputs as a CMake script that
//! `oneshader_add_shaders(... MANIFEST ...)` (cmake/OneShaderConfig.cmake, docs/cmake.md)
//! includes at configure time, making one `add_custom_command` per output that runs
//! `oneshader compile` with `-MD -MF` and `DEPFILE`, so CMake's Ninja and Makefile generators
//! rebuild exactly the outputs whose source or includes changed.
//!
//! The script only sets variables (no commands), so it is data for the package:
//!
//! ```cmake
//! set(ONESHADER_OUTPUT_COUNT 2)
//! set(ONESHADER_OUTPUT_0 "/abs/out/blur.main.spv")   # the output
//! set(ONESHADER_SOURCE_0 "/abs/shaders/blur.hlsl")   # the HLSL file
//! set(ONESHADER_VARIANT_0 "shaders/blur.hlsl:main")  # the variant's name
//! set(ONESHADER_ARGS_0 "-T" "cs_6_0" ...)            # `oneshader compile FILE` arguments, without -MD/-MF/-o
//! ```
//!
//! The arguments are those of `--emit-ninja` ([`super::ninja::compile_args`]), so the outputs
//! are byte for byte those of `oneshader build`. Paths are absolute.

use std::fmt::Write as _;
use std::path::Path;

use super::manifest::Manifest;
use super::plan::Variant;

/// `s` as a CMake quoted argument: `\`, `"` and `$` escaped. A `;` would split the value
/// into a list wherever CMake expands it, so it is refused (the `Err` names the value).
fn quoted(s: &str) -> Result<String, String> {
    if s.contains(';') {
        return Err(format!(
            "`{s}` holds a `;`, which CMake would split into two arguments"
        ));
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' | '"' | '$' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            _ => out.push(c),
        }
    }
    out.push('"');
    Ok(out)
}

/// The path made absolute against the current folder.
fn absolute(path: &Path) -> String {
    std::path::absolute(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

/// The CMake script for `variants` of `manifest`; `Err` when a value cannot be written as a
/// CMake argument (a `;`).
pub fn cmake_file(manifest: &Manifest, variants: &[Variant]) -> Result<String, String> {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Written by `oneshader build --emit-cmake` from {}: for oneshader_add_shaders\n\
         # (cmake/OneShaderConfig.cmake). Output i: ONESHADER_OUTPUT_i, its HLSL file\n\
         # ONESHADER_SOURCE_i, its variant ONESHADER_VARIANT_i and the `oneshader compile FILE`\n\
         # arguments ONESHADER_ARGS_i (without -MD, -MF and -o).",
        absolute(&manifest.path)
    );
    let mut i = 0usize;
    for v in variants {
        for (t, path) in &v.outputs {
            let args = super::ninja::compile_args(&v.options, *t)
                .iter()
                .map(|a| quoted(a))
                .collect::<Result<Vec<_>, _>>()?;
            let _ = writeln!(
                out,
                "set(ONESHADER_OUTPUT_{i} {})",
                quoted(&absolute(path))?
            );
            let _ = writeln!(
                out,
                "set(ONESHADER_SOURCE_{i} {})",
                quoted(&absolute(&v.file))?
            );
            let _ = writeln!(out, "set(ONESHADER_VARIANT_{i} {})", quoted(&v.id)?);
            let _ = writeln!(out, "set(ONESHADER_ARGS_{i} {})", args.join(" "));
            i += 1;
        }
    }
    let _ = writeln!(out, "set(ONESHADER_OUTPUT_COUNT {i})");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::quoted;

    #[test]
    fn cmake_quoting_escapes_and_refuses_semicolons() {
        assert_eq!(quoted("-DX=1").unwrap(), "\"-DX=1\"");
        assert_eq!(quoted(r#"a "b" \c $d"#).unwrap(), r#""a \"b\" \\c \$d""#);
        assert!(quoted("A=1;2").unwrap_err().contains("`;`"));
    }
}
