//! The build manifest (`oneshader.toml`): which shaders to compile, with which entry points,
//! options, permutations and targets, and where the outputs go. docs/build.md describes the
//! format for users; this module reads it into a [`Manifest`] and reports every mistake as a
//! [`ManifestError`] with `file:line:column`.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{self, MapAccess, Visitor};
use toml::Spanned;

use crate::target::OutputKind;
use crate::{
    BufferLayout, CompileOptions, MacroOp, MatrixOrder, OptLevel, SpecConstKey, TargetEnv,
};

/// A value of a permutation axis.
#[derive(Clone, Debug, PartialEq)]
pub enum AxisValue {
    /// `true` / `false` (a define gets `1` / `0`).
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A floating-point number (spec constants only).
    Float(f64),
    /// A string (defines only): the macro's replacement text.
    Str(String),
}

impl AxisValue {
    /// The text a define gets, or `None` for a value a define cannot take (a float).
    pub fn define_text(&self) -> Option<String> {
        match self {
            AxisValue::Bool(b) => Some(if *b { "1" } else { "0" }.to_string()),
            AxisValue::Int(i) => Some(i.to_string()),
            AxisValue::Float(_) => None,
            AxisValue::Str(s) => Some(s.clone()),
        }
    }

    /// The value as a spec-constant value, or `None` for a string.
    pub fn spec_value(&self) -> Option<crate::SpecValue> {
        match self {
            AxisValue::Bool(b) => Some(crate::SpecValue::Bool(*b)),
            AxisValue::Int(i) => Some(crate::SpecValue::Int(*i as i128)),
            AxisValue::Float(f) => Some(crate::SpecValue::Float(*f)),
            AxisValue::Str(_) => None,
        }
    }
}

impl fmt::Display for AxisValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AxisValue::Bool(b) => write!(f, "{b}"),
            AxisValue::Int(i) => write!(f, "{i}"),
            AxisValue::Float(x) => write!(f, "{x:?}"),
            AxisValue::Str(s) => f.write_str(s),
        }
    }
}

/// What an axis varies.
#[derive(Clone, Debug, PartialEq)]
pub enum AxisKind {
    /// A preprocessor define: each value is `-D NAME=VALUE`.
    Define,
    /// A spec constant, by name or `constant_id`: each value replaces it before `-O`.
    SpecConstant(SpecConstKey),
}

/// One permutation axis: a name and its values; the variants are the product of the axes.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    /// The define's or spec constant's name (as written in the manifest).
    pub name: String,
    /// Define or spec constant.
    pub kind: AxisKind,
    /// Its values, in manifest order.
    pub values: Vec<AxisValue>,
}

/// A combination of axis values (and optionally an entry point) that is not built.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Exclusion {
    /// When set, the exclusion applies to this entry point only.
    pub entry: Option<String>,
    /// Axis name and value; a variant is excluded when it has all of them.
    pub values: Vec<(String, AxisValue)>,
}

/// An entry point and its profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntrySpec {
    /// The function name (`-E`).
    pub name: String,
    /// The profile (`-T`).
    pub profile: String,
}

/// One `[[shader]]` of the manifest, with the `[defaults]` applied.
#[derive(Clone, Debug)]
pub struct ShaderSpec {
    /// The HLSL file, relative to the manifest's folder (as written).
    pub file: PathBuf,
    /// Its entry points.
    pub entries: Vec<EntrySpec>,
    /// Options common to its variants (defines, include folders made relative to the
    /// manifest's folder, language and target settings); entry, profile and axis values are
    /// set per variant.
    pub options: CompileOptions,
    /// What each variant produces.
    pub targets: Vec<OutputKind>,
    /// The output path template, relative to the output folder.
    pub output: String,
    /// The permutation axes, in manifest order.
    pub axes: Vec<Axis>,
    /// Combinations not built.
    pub exclusions: Vec<Exclusion>,
}

/// A whole manifest.
#[derive(Clone, Debug)]
pub struct Manifest {
    /// The manifest file.
    pub path: PathBuf,
    /// The folder relative paths in it are resolved against.
    pub dir: PathBuf,
    /// The output folder (default `target/shaders` in the manifest's folder).
    pub out_dir: PathBuf,
    /// The shaders, in manifest order.
    pub shaders: Vec<ShaderSpec>,
    /// The `[cache]` table: the remote cache (docs/build.md).
    pub cache: CacheSettings,
}

/// The manifest's `[cache]` table. The command line (`--remote-cache`,
/// `--remote-cache-upload`) and the environment (`ONESHADER_REMOTE_CACHE`,
/// `ONESHADER_REMOTE_CACHE_UPLOAD`) win over it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheSettings {
    /// `remote = "URL"`: the remote cache's base URL (checked: `http://` or `https://`).
    pub remote: Option<String>,
    /// `upload = true`: upload what the build compiles.
    pub upload: Option<bool>,
    /// `auth_env = "VAR"`: the environment variable holding the `Authorization` header's
    /// value (default `ONESHADER_REMOTE_CACHE_AUTH`).
    pub auth_env: Option<String>,
}

/// A mistake in a manifest, with its place.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}: error[{code}]: {message}", location(file, *line, *column))]
pub struct ManifestError {
    /// The manifest file.
    pub file: PathBuf,
    /// 1-based line (0 when the error has no place, e.g. the file cannot be read).
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// `OSD0001` (cannot read), `OSD0002` (not TOML, or a field of the wrong name or type),
    /// `OSD0003` (a value that does not make sense).
    pub code: &'static str,
    /// What is wrong.
    pub message: String,
}

fn location(file: &Path, line: usize, column: usize) -> String {
    if line == 0 {
        file.display().to_string()
    } else {
        format!("{}:{line}:{column}", file.display())
    }
}

/// The default output template.
pub const DEFAULT_OUTPUT: &str = "{shader}.{entry}{permutation}.{ext}";
/// The default output folder, relative to the manifest.
pub const DEFAULT_OUT_DIR: &str = "target/shaders";

// ---- the TOML shape -------------------------------------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    out_dir: Option<Spanned<String>>,
    #[serde(default)]
    defaults: RawOptions,
    #[serde(default)]
    shader: Vec<Spanned<RawShader>>,
    #[serde(default)]
    cache: RawCache,
}

/// The `[cache]` table.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawCache {
    remote: Option<Spanned<String>>,
    upload: Option<bool>,
    auth_env: Option<Spanned<String>>,
}

/// Options that `[defaults]` and each `[[shader]]` take.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawOptions {
    include_dirs: Option<Vec<String>>,
    defines: Option<Vec<Spanned<String>>>,
    targets: Option<Spanned<Vec<Spanned<String>>>>,
    target_env: Option<Spanned<String>>,
    opt: Option<Spanned<String>>,
    layout: Option<Spanned<String>>,
    matrix_order: Option<Spanned<String>>,
    enable_16bit_types: Option<bool>,
    hlsl_version: Option<u32>,
    invert_y: Option<bool>,
    dx_position_w: Option<bool>,
    debug_names: Option<bool>,
    spirv_reflect: Option<bool>,
    wgsl_binding_map: Option<Spanned<String>>,
    output: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawShader {
    file: Spanned<String>,
    entry: Option<Spanned<String>>,
    profile: Option<Spanned<String>>,
    entries: Option<Vec<Spanned<RawEntry>>>,
    #[serde(default)]
    permutations: OrderedTable,
    #[serde(default)]
    spec_constants: OrderedTable,
    #[serde(default)]
    exclude: Vec<Spanned<OrderedScalars>>,
    // The options again (serde cannot flatten with `deny_unknown_fields`).
    include_dirs: Option<Vec<String>>,
    defines: Option<Vec<Spanned<String>>>,
    targets: Option<Spanned<Vec<Spanned<String>>>>,
    target_env: Option<Spanned<String>>,
    opt: Option<Spanned<String>>,
    layout: Option<Spanned<String>>,
    matrix_order: Option<Spanned<String>>,
    enable_16bit_types: Option<bool>,
    hlsl_version: Option<u32>,
    invert_y: Option<bool>,
    dx_position_w: Option<bool>,
    debug_names: Option<bool>,
    spirv_reflect: Option<bool>,
    wgsl_binding_map: Option<Spanned<String>>,
    output: Option<Spanned<String>>,
}

impl RawShader {
    /// The option fields, moved out.
    fn take_options(&mut self) -> RawOptions {
        RawOptions {
            include_dirs: self.include_dirs.take(),
            defines: self.defines.take(),
            targets: self.targets.take(),
            target_env: self.target_env.take(),
            opt: self.opt.take(),
            layout: self.layout.take(),
            matrix_order: self.matrix_order.take(),
            enable_16bit_types: self.enable_16bit_types.take(),
            hlsl_version: self.hlsl_version.take(),
            invert_y: self.invert_y.take(),
            dx_position_w: self.dx_position_w.take(),
            debug_names: self.debug_names.take(),
            spirv_reflect: self.spirv_reflect.take(),
            wgsl_binding_map: self.wgsl_binding_map.take(),
            output: self.output.take(),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    entry: Spanned<String>,
    profile: Spanned<String>,
}

/// A scalar TOML value.
#[derive(Deserialize, Clone, Debug)]
#[serde(untagged)]
enum RawScalar {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
}

impl From<RawScalar> for AxisValue {
    fn from(r: RawScalar) -> AxisValue {
        match r {
            RawScalar::Bool(b) => AxisValue::Bool(b),
            RawScalar::Int(i) => AxisValue::Int(i),
            RawScalar::Float(f) => AxisValue::Float(f),
            RawScalar::Str(s) => AxisValue::Str(s),
        }
    }
}

/// A table of `name = [values]` in document order (axes are ordered: the order names the
/// outputs).
#[derive(Default)]
struct OrderedTable(Vec<(Spanned<String>, SpannedValues)>);

/// An axis's list of values, with places.
type SpannedValues = Spanned<Vec<Spanned<RawScalar>>>;

impl<'de> Deserialize<'de> for OrderedTable {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OrderedTable;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a table of `NAME = [values...]`")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedTable, A::Error> {
                let mut out = Vec::new();
                while let Some(k) = map.next_key::<Spanned<String>>()? {
                    let v = map.next_value::<SpannedValues>()?;
                    out.push((k, v));
                }
                Ok(OrderedTable(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// A table of `name = value` in document order (an exclusion).
struct OrderedScalars(Vec<(Spanned<String>, Spanned<RawScalar>)>);

impl<'de> Deserialize<'de> for OrderedScalars {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OrderedScalars;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a table of `AXIS = value`")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedScalars, A::Error> {
                let mut out = Vec::new();
                while let Some(k) = map.next_key::<Spanned<String>>()? {
                    out.push((k, map.next_value::<Spanned<RawScalar>>()?));
                }
                Ok(OrderedScalars(out))
            }
        }
        d.deserialize_map(V)
    }
}

// ---- reading ------------------------------------------------------------------------------

/// Reads and checks the manifest at `path`.
pub fn load(path: &Path) -> Result<Manifest, ManifestError> {
    let text = std::fs::read_to_string(path).map_err(|e| ManifestError {
        file: path.to_path_buf(),
        line: 0,
        column: 0,
        code: "OSD0001",
        message: format!("cannot read the manifest: {e}"),
    })?;
    parse(path, &text)
}

/// Parses manifest text as if read from `path` (relative paths in it are resolved against
/// `path`'s folder).
pub fn parse(path: &Path, text: &str) -> Result<Manifest, ManifestError> {
    let cx = Cx { path, text };
    let raw: RawManifest = toml::from_str(text).map_err(|e| {
        let message = e.message().trim_end().to_string();
        match e.span() {
            Some(span) => cx.error_at(span.start, "OSD0002", message),
            None => cx.error_at(0, "OSD0002", message),
        }
    })?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let out_dir = match &raw.out_dir {
        Some(o) if o.get_ref().is_empty() => {
            return Err(cx.error(o.span(), "`out_dir` is empty"));
        }
        Some(o) => dir.join(o.get_ref()),
        None => dir.join(DEFAULT_OUT_DIR),
    };
    if raw.shader.is_empty() {
        return Err(cx.error_at(0, "OSD0003", "the manifest has no `[[shader]]`".to_string()));
    }
    if let Some(url) = &raw.cache.remote
        && let Err(e) = super::remote::RemoteConfig::new(url.get_ref())
    {
        return Err(cx.error(url.span(), e));
    }
    if let Some(var) = &raw.cache.auth_env
        && (var.get_ref().is_empty() || var.get_ref().contains(['=', '\0']))
    {
        return Err(cx.error(
            var.span(),
            format!(
                "`auth_env` `{}` is not an environment variable name",
                var.get_ref()
            ),
        ));
    }
    let cache = CacheSettings {
        remote: raw.cache.remote.map(Spanned::into_inner),
        upload: raw.cache.upload,
        auth_env: raw.cache.auth_env.map(Spanned::into_inner),
    };
    let mut shaders = Vec::new();
    for s in raw.shader {
        let span = s.span();
        shaders.push(cx.shader(&dir, &raw.defaults, s.into_inner(), span)?);
    }
    Ok(Manifest {
        path: path.to_path_buf(),
        dir,
        out_dir,
        shaders,
        cache,
    })
}

struct Cx<'a> {
    path: &'a Path,
    text: &'a str,
}

impl Cx<'_> {
    fn error_at(&self, offset: usize, code: &'static str, message: String) -> ManifestError {
        let offset = offset.min(self.text.len());
        let before = &self.text[..offset];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        ManifestError {
            file: self.path.to_path_buf(),
            line,
            column,
            code,
            message,
        }
    }

    fn error(&self, span: std::ops::Range<usize>, message: impl Into<String>) -> ManifestError {
        self.error_at(span.start, "OSD0003", message.into())
    }

    fn shader(
        &self,
        dir: &Path,
        defaults: &RawOptions,
        mut raw: RawShader,
        span: std::ops::Range<usize>,
    ) -> Result<ShaderSpec, ManifestError> {
        let own = raw.take_options();
        let file = raw.file.get_ref();
        if file.is_empty() {
            return Err(self.error(raw.file.span(), "`file` is empty"));
        }
        // Entry points: `entries = [...]`, or `entry` + `profile`.
        let mut entries = Vec::new();
        match (&raw.entries, &raw.entry, &raw.profile) {
            (Some(list), None, None) => {
                for e in list {
                    let e = e.get_ref();
                    self.check_profile(&e.profile)?;
                    entries.push(EntrySpec {
                        name: e.entry.get_ref().clone(),
                        profile: e.profile.get_ref().clone(),
                    });
                }
                if entries.is_empty() {
                    return Err(self.error(span, "`entries` is empty"));
                }
            }
            (None, entry, Some(profile)) => {
                self.check_profile(profile)?;
                entries.push(EntrySpec {
                    name: entry
                        .as_ref()
                        .map_or_else(|| "main".to_string(), |e| e.get_ref().clone()),
                    profile: profile.get_ref().clone(),
                });
            }
            (Some(_), _, _) => {
                return Err(self.error(
                    span,
                    "give either `entries = [...]` or `entry` and `profile`, not both",
                ));
            }
            (None, _, None) => {
                return Err(self.error(
                    span,
                    "a shader needs `profile` (and `entry`, default `main`) or `entries = [{ entry = \"...\", profile = \"...\" }]`",
                ));
            }
        }
        for (i, e) in entries.iter().enumerate() {
            if entries[..i].iter().any(|o| o.name == e.name) {
                return Err(self.error(span.clone(), format!("entry `{}` is listed twice", e.name)));
            }
        }

        let mut options = CompileOptions::default();
        for dirs in [&defaults.include_dirs, &own.include_dirs]
            .into_iter()
            .flatten()
        {
            options
                .include_dirs
                .extend(dirs.iter().map(|d| dir.join(d)));
        }
        for defs in [&defaults.defines, &own.defines].into_iter().flatten() {
            for d in defs {
                let name = d.get_ref().split('=').next().unwrap_or("");
                if !is_identifier(name) {
                    return Err(self.error(
                        d.span(),
                        format!(
                            "`{}` is not a define (expected `NAME` or `NAME=VALUE`)",
                            d.get_ref()
                        ),
                    ));
                }
                options.macros.push(MacroOp::Define(d.get_ref().clone()));
            }
        }
        let pick = |a: &Option<Spanned<String>>, b: &Option<Spanned<String>>| {
            b.clone().or_else(|| a.clone())
        };
        if let Some(env) = pick(&defaults.target_env, &own.target_env) {
            options.target_env = env
                .get_ref()
                .parse::<TargetEnv>()
                .map_err(|e| self.error(env.span(), e.to_string()))?;
        }
        if let Some(opt) = pick(&defaults.opt, &own.opt) {
            options.opt_level = match opt.get_ref().as_str() {
                "O" | "O1" | "O2" | "O3" => OptLevel::O,
                "O0" => OptLevel::O0,
                other => {
                    return Err(self.error(
                        opt.span(),
                        format!("unknown optimization level `{other}` (\"O\" or \"O0\")"),
                    ));
                }
            };
        }
        if let Some(l) = pick(&defaults.layout, &own.layout) {
            options.layout = match l.get_ref().as_str() {
                "dxc" => BufferLayout::Dxc,
                "gl" => BufferLayout::Gl,
                "dx" => BufferLayout::Dx,
                "scalar" => BufferLayout::Scalar,
                other => {
                    return Err(self.error(
                        l.span(),
                        format!("unknown layout `{other}` (dxc, gl, dx or scalar)"),
                    ));
                }
            };
        }
        if let Some(m) = pick(&defaults.matrix_order, &own.matrix_order) {
            options.matrix_order = match m.get_ref().as_str() {
                "column" | "column_major" => MatrixOrder::ColumnMajor,
                "row" | "row_major" => MatrixOrder::RowMajor,
                other => {
                    return Err(self.error(
                        m.span(),
                        format!("unknown matrix order `{other}` (column or row)"),
                    ));
                }
            };
        }
        let flag = |a: Option<bool>, b: Option<bool>, default: bool| b.or(a).unwrap_or(default);
        options.enable_16bit_types =
            flag(defaults.enable_16bit_types, own.enable_16bit_types, false);
        options.invert_y = flag(defaults.invert_y, own.invert_y, false);
        options.dx_position_w = flag(defaults.dx_position_w, own.dx_position_w, false);
        options.debug_names = flag(defaults.debug_names, own.debug_names, true);
        // The SPIR-V outputs' reflection decorations (`-fspv-reflect`); the text targets
        // have none, as `spirv_` says.
        options.spirv_reflect = flag(defaults.spirv_reflect, own.spirv_reflect, false);
        options.hlsl_version = own.hlsl_version.or(defaults.hlsl_version).unwrap_or(2021);
        if let Some(map) = pick(&defaults.wgsl_binding_map, &own.wgsl_binding_map) {
            let file = dir.join(map.get_ref());
            let text = std::fs::read_to_string(&file).map_err(|e| {
                self.error(
                    map.span(),
                    format!("`wgsl_binding_map`: cannot read {}: {e}", file.display()),
                )
            })?;
            let parsed =
                oneshader_backends::bindings::WgslBindingMap::from_json(&text).map_err(|e| {
                    self.error(
                        map.span(),
                        format!("`wgsl_binding_map`: {}:{e}", file.display()),
                    )
                })?;
            options.wgsl_binding_map = Some(parsed);
        }

        let targets = match own.targets.as_ref().or(defaults.targets.as_ref()) {
            None => vec![OutputKind::Spirv],
            Some(list) => {
                let mut out = Vec::new();
                for t in list.get_ref() {
                    let Some(target) = OutputKind::from_name(t.get_ref()) else {
                        let known: Vec<&str> = OutputKind::ALL.iter().map(|t| t.name()).collect();
                        return Err(self.error(
                            t.span(),
                            format!(
                                "unknown target `{}` (targets: {})",
                                t.get_ref(),
                                known.join(", ")
                            ),
                        ));
                    };
                    if !out.contains(&target) {
                        out.push(target);
                    }
                }
                if out.is_empty() {
                    return Err(self.error(list.span(), "`targets` is empty"));
                }
                out
            }
        };

        // Axes: defines, then spec constants, each in document order.
        let mut axes: Vec<Axis> = Vec::new();
        for (table, is_define) in [(&raw.permutations, true), (&raw.spec_constants, false)] {
            for (name, values) in &table.0 {
                let n = name.get_ref();
                if axes.iter().any(|a| &a.name == n) {
                    return Err(self.error(name.span(), format!("axis `{n}` is given twice")));
                }
                let kind = if is_define {
                    if !is_identifier(n) {
                        return Err(self.error(name.span(), format!("`{n}` is not a macro name")));
                    }
                    AxisKind::Define
                } else if let Ok(id) = n.parse::<u32>() {
                    AxisKind::SpecConstant(SpecConstKey::Id(id))
                } else if is_identifier(n) {
                    AxisKind::SpecConstant(SpecConstKey::Name(n.clone()))
                } else {
                    return Err(self.error(
                        name.span(),
                        format!("`{n}` is neither a spec constant's name nor its constant_id"),
                    ));
                };
                if values.get_ref().is_empty() {
                    return Err(self.error(values.span(), format!("axis `{n}` has no values")));
                }
                let mut vals: Vec<AxisValue> = Vec::new();
                for v in values.get_ref() {
                    let value = AxisValue::from(v.get_ref().clone());
                    let ok = if is_define {
                        value.define_text().is_some()
                    } else {
                        value.spec_value().is_some()
                    };
                    if !ok {
                        return Err(self.error(
                            v.span(),
                            if is_define {
                                format!("define axis `{n}`: a value is a string, an integer or a boolean")
                            } else {
                                format!("spec-constant axis `{n}`: a value is a boolean, an integer or a number")
                            },
                        ));
                    }
                    if vals.contains(&value) {
                        return Err(self.error(
                            v.span(),
                            format!("axis `{n}`: value `{value}` is given twice"),
                        ));
                    }
                    vals.push(value);
                }
                axes.push(Axis {
                    name: n.clone(),
                    kind,
                    values: vals,
                });
            }
        }
        let mut exclusions = Vec::new();
        for ex in &raw.exclude {
            let mut e = Exclusion::default();
            for (k, v) in &ex.get_ref().0 {
                let value = AxisValue::from(v.get_ref().clone());
                if k.get_ref() == "entry" {
                    match value {
                        AxisValue::Str(s) if entries.iter().any(|e| e.name == s) => {
                            e.entry = Some(s)
                        }
                        _ => {
                            return Err(self.error(
                                v.span(),
                                format!("`entry = {value}` in an exclusion names no entry point of this shader"),
                            ));
                        }
                    }
                    continue;
                }
                let Some(axis) = axes.iter().find(|a| &a.name == k.get_ref()) else {
                    return Err(self.error(
                        k.span(),
                        format!("exclusion: `{}` is not an axis of this shader", k.get_ref()),
                    ));
                };
                if !axis.values.contains(&value) {
                    return Err(self.error(
                        v.span(),
                        format!(
                            "exclusion: `{value}` is not a value of axis `{}`",
                            axis.name
                        ),
                    ));
                }
                e.values.push((k.get_ref().clone(), value));
            }
            if e.entry.is_none() && e.values.is_empty() {
                return Err(self.error(ex.span(), "an empty exclusion would exclude everything"));
            }
            exclusions.push(e);
        }

        let output = match own.output.as_ref().or(defaults.output.as_ref()) {
            Some(t) => {
                check_template(t.get_ref(), &axes).map_err(|m| self.error(t.span(), m))?;
                t.get_ref().clone()
            }
            None => DEFAULT_OUTPUT.to_string(),
        };

        Ok(ShaderSpec {
            file: PathBuf::from(file),
            entries,
            options,
            targets,
            output,
            axes,
            exclusions,
        })
    }

    fn check_profile(&self, profile: &Spanned<String>) -> Result<(), ManifestError> {
        oneshader_frontends::hlsl::parse_profile(profile.get_ref())
            .map(|_| ())
            .map_err(|d| self.error(profile.span(), d.message))
    }
}

/// True for a C identifier.
fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The placeholders every template may use.
pub const PLACEHOLDERS: &[&str] = &[
    "shader",
    "entry",
    "profile",
    "stage",
    "target",
    "ext",
    "permutation",
];

/// Checks that every `{name}` in `template` is a placeholder or an axis, and that the
/// template names the target (`{ext}` or `{target}`), so two targets never share a path.
fn check_template(template: &str, axes: &[Axis]) -> Result<(), String> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            return Err(format!("output template `{template}`: `{{` without `}}`"));
        };
        names.push(&after[..close]);
        rest = &after[close + 1..];
    }
    if rest.contains('}') {
        return Err(format!("output template `{template}`: `}}` without `{{`"));
    }
    for n in &names {
        if !PLACEHOLDERS.contains(n) && !axes.iter().any(|a| &a.name == n) {
            return Err(format!(
                "output template `{template}`: unknown placeholder `{{{n}}}` (known: {}, or an axis name)",
                PLACEHOLDERS
                    .iter()
                    .map(|p| format!("{{{p}}}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    if !names.iter().any(|n| *n == "ext" || *n == "target") {
        return Err(format!(
            "output template `{template}` names neither `{{ext}}` nor `{{target}}`, so two targets would write one file"
        ));
    }
    Ok(())
}
