//! Dependency files in Make syntax, as clang's and DXC's `-MD -MF FILE` write them: one rule
//! whose target is the output and whose prerequisites are the main file and every file it
//! included, so Make, Ninja (`deps = gcc`) and other build systems rebuild the output when
//! any of them changes.
//!
//! ```
//! let text = oneshader::depfile::make_rule("out/a b.spv", ["a.hlsl", "inc/c$.hlsli"]);
//! assert_eq!(text, "out/a\\ b.spv: \\\n  a.hlsl \\\n  inc/c$$.hlsli\n");
//! ```

use std::path::Path;

/// Escapes a path for a Make rule: spaces and `#` get a backslash, `$` is doubled (GNU Make's
/// and Ninja's depfile readers undo both).
pub fn escape(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        match c {
            ' ' | '#' => {
                out.push('\\');
                out.push(c);
            }
            '$' => out.push_str("$$"),
            _ => out.push(c),
        }
    }
    out
}

/// The rule `target: prerequisites...`, one prerequisite per continued line.
pub fn make_rule<T, P>(target: T, prerequisites: impl IntoIterator<Item = P>) -> String
where
    T: AsRef<Path>,
    P: AsRef<Path>,
{
    let mut out = escape(&target.as_ref().to_string_lossy());
    out.push(':');
    for p in prerequisites {
        out.push_str(" \\\n  ");
        out.push_str(&escape(&p.as_ref().to_string_lossy()));
    }
    out.push('\n');
    out
}
