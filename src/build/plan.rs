//! From a manifest to the list of variants: shaders x entry points x the product of the
//! permutation axes (less the exclusions), each with its complete options and output paths.

use crate::target::OutputKind;
use std::collections::HashMap;
use std::path::PathBuf;

use super::manifest::{AxisKind, AxisValue, EntrySpec, Manifest, ManifestError, ShaderSpec};
use crate::{CompileOptions, MacroOp};

/// One variant: a shader's entry point with one value of every axis.
#[derive(Clone, Debug)]
pub struct Variant {
    /// Position in the manifest's whole variant list (before sharding): stable for a
    /// manifest, and the order of reports.
    pub index: usize,
    /// A readable name: `file:entry` and the axis values, e.g.
    /// `shaders/lit.hlsl:PSMain [SHADOWS=1, GROUP=64]`.
    pub id: String,
    /// Index of its shader in [`Manifest::shaders`].
    pub shader: usize,
    /// The HLSL file (joined to the manifest's folder).
    pub file: PathBuf,
    /// Entry point and profile.
    pub entry: EntrySpec,
    /// The value of each axis, in axis order.
    pub axis_values: Vec<(String, AxisValue)>,
    /// The complete options: the shader's, the entry's, the axes' defines and spec constants.
    pub options: CompileOptions,
    /// Each target and where its output goes.
    pub outputs: Vec<(OutputKind, PathBuf)>,
}

impl Variant {
    /// The variants sharing one preprocessing run have equal group keys: same shader, same
    /// defines (spec constants and entry points do not change the preprocessed text).
    pub fn group_key(&self) -> (usize, Vec<(bool, String)>) {
        let macros = self
            .options
            .macros
            .iter()
            .map(|m| match m {
                MacroOp::Define(d) => (true, d.clone()),
                MacroOp::Undef(u) => (false, u.clone()),
            })
            .collect();
        (self.shader, macros)
    }
}

/// The stage name of a profile, for `{stage}`: the IR's spelling (`vertex`, `fragment`,
/// `compute`, `geometry`, `hull`, `domain`, `mesh`, `amplification`), `library` for `lib_*`.
fn stage_name(profile: &str) -> &'static str {
    use oneshader_frontends::hlsl::{Profile, parse_profile};
    match parse_profile(profile) {
        Ok(Profile::Stage(s)) => s.spelling(),
        Ok(Profile::Library) => "library",
        Err(_) => "unknown",
    }
}

/// A value as it may appear in a file name: characters other than letters, digits, `_`, `-`,
/// `+` and `.` become `_`.
fn file_safe(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Every variant of the manifest, in manifest order (shaders, entries, then the axes'
/// product with the last axis varying fastest). Two outputs with one path are an error.
pub fn plan(manifest: &Manifest) -> Result<Vec<Variant>, ManifestError> {
    let mut out = Vec::new();
    for (si, shader) in manifest.shaders.iter().enumerate() {
        for entry in &shader.entries {
            for values in product(shader) {
                if excluded(shader, entry, &values) {
                    continue;
                }
                out.push(variant(manifest, si, shader, entry, values, out.len()));
            }
        }
    }
    let mut seen: HashMap<&PathBuf, &str> = HashMap::new();
    for v in &out {
        for (_, path) in &v.outputs {
            if let Some(other) = seen.insert(path, &v.id) {
                return Err(ManifestError {
                    file: manifest.path.clone(),
                    line: 0,
                    column: 0,
                    code: "OSD0003",
                    message: format!(
                        "`{other}` and `{}` would both write {}: add `{{permutation}}` (or the axes) to the `output` template",
                        v.id,
                        path.display()
                    ),
                });
            }
        }
    }
    Ok(out)
}

/// The axes' product, last axis fastest.
fn product(shader: &ShaderSpec) -> Vec<Vec<(String, AxisValue)>> {
    let mut rows: Vec<Vec<(String, AxisValue)>> = vec![Vec::new()];
    for axis in &shader.axes {
        let mut next = Vec::with_capacity(rows.len() * axis.values.len());
        for row in &rows {
            for v in &axis.values {
                let mut r = row.clone();
                r.push((axis.name.clone(), v.clone()));
                next.push(r);
            }
        }
        rows = next;
    }
    rows
}

fn excluded(shader: &ShaderSpec, entry: &EntrySpec, values: &[(String, AxisValue)]) -> bool {
    shader.exclusions.iter().any(|ex| {
        ex.entry.as_ref().is_none_or(|e| *e == entry.name)
            && ex
                .values
                .iter()
                .all(|(name, value)| values.iter().any(|(n, v)| n == name && v == value))
    })
}

fn variant(
    manifest: &Manifest,
    si: usize,
    shader: &ShaderSpec,
    entry: &EntrySpec,
    values: Vec<(String, AxisValue)>,
    index: usize,
) -> Variant {
    let mut options = shader.options.clone();
    options.entry = entry.name.clone();
    options.profile = entry.profile.clone();
    for (axis, (_, value)) in shader.axes.iter().zip(&values) {
        match &axis.kind {
            AxisKind::Define => {
                let text = value.define_text().unwrap_or_default();
                options
                    .macros
                    .push(MacroOp::Define(format!("{}={text}", axis.name)));
            }
            AxisKind::SpecConstant(c) => {
                if let Some(v) = value.spec_value() {
                    options.spec_constants.push((c.clone(), v));
                }
            }
        }
    }
    let file_text = shader.file.to_string_lossy().replace('\\', "/");
    let mut id = format!("{file_text}:{}", entry.name);
    if !values.is_empty() {
        let list: Vec<String> = values.iter().map(|(n, v)| format!("{n}={v}")).collect();
        id.push_str(&format!(" [{}]", list.join(", ")));
    }
    let stem = shader
        .file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let permutation: String = values
        .iter()
        .map(|(n, v)| format!(".{}-{}", file_safe(n), file_safe(&v.to_string())))
        .collect();
    let outputs = shader
        .targets
        .iter()
        .map(|&t| {
            let rendered = render(&shader.output, |name| match name {
                "shader" => Some(file_safe(&stem)),
                "entry" => Some(file_safe(&entry.name)),
                "profile" => Some(file_safe(&entry.profile)),
                "stage" => Some(stage_name(&entry.profile).to_string()),
                "target" => Some(t.name().to_string()),
                "ext" => Some(t.extension().to_string()),
                "permutation" => Some(permutation.clone()),
                axis => values
                    .iter()
                    .find(|(n, _)| n == axis)
                    .map(|(_, v)| file_safe(&v.to_string())),
            });
            (t, manifest.out_dir.join(rendered))
        })
        .collect();
    Variant {
        index,
        id,
        shader: si,
        file: manifest.dir.join(&shader.file),
        entry: entry.clone(),
        axis_values: values,
        options,
        outputs,
    }
}

/// Replaces each `{name}` by `value(name)` (the manifest reader checked every name).
fn render(template: &str, value: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                out.push_str(&value(&after[..close]).unwrap_or_default());
                rest = &after[close + 1..];
            }
            None => {
                out.push_str(&rest[open..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The variants of shard `index` of `count` (1-based, `1 <= index <= count`): every
/// `count`-th variant of the manifest's list starting at `index - 1`, so the shards are
/// disjoint, cover the manifest, differ in size by at most one and do not depend on the
/// machine or the thread count.
pub fn shard(variants: Vec<Variant>, index: usize, count: usize) -> Vec<Variant> {
    variants
        .into_iter()
        .filter(|v| v.index % count == index - 1)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::stage_name;

    #[test]
    fn stage_placeholder_names_every_profile() {
        for (profile, name) in [
            ("vs_6_0", "vertex"),
            ("ps_6_0", "fragment"),
            ("cs_6_0", "compute"),
            ("gs_6_0", "geometry"),
            ("hs_6_0", "hull"),
            ("ds_6_0", "domain"),
            ("ms_6_5", "mesh"),
            ("as_6_5", "amplification"),
            ("lib_6_3", "library"),
            ("xs_6_0", "unknown"),
        ] {
            assert_eq!(stage_name(profile), name, "{profile}");
        }
    }
}
