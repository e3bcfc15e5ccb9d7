//! `oneshader build --emit-ninja FILE`: the manifest's variants as a Ninja file, so a build
//! system that distributes Ninja edges (or runs them itself) does the work instead of the
//! built-in driver.
//!
//! Each (variant, target) is one edge running `oneshader compile` with exactly the options
//! the built-in driver uses, `-MD -MF $out.d` and `depfile = $out.d` / `deps = gcc`, so Ninja
//! rebuilds an output when its source, one of its includes, or its command line changes. The
//! outputs are byte for byte those of `oneshader build`. A generator edge rewrites the Ninja
//! file when the manifest changes (Ninja runs in the Ninja file's folder, as with
//! `ninja -C DIR`). Other paths are absolute.

use std::path::{Path, PathBuf};

use super::manifest::Manifest;
use super::plan::Variant;
use crate::target::OutputKind;
use crate::{
    BufferLayout, CompileOptions, MacroOp, MatrixOrder, OptLevel, SpecConstKey, SpecValue,
};

/// The `oneshader compile` arguments (after `compile FILE`) that produce `target` for a
/// variant with options `opts`, without `-o`.
pub fn compile_args(opts: &CompileOptions, target: OutputKind) -> Vec<String> {
    let mut a: Vec<String> = vec![
        "-T".into(),
        opts.profile.clone(),
        "-E".into(),
        opts.entry.clone(),
        "--target".into(),
        target.name().into(),
    ];
    for m in &opts.macros {
        match m {
            MacroOp::Define(d) => a.extend(["-D".to_string(), d.clone()]),
            MacroOp::Undef(u) => a.extend(["-U".to_string(), u.clone()]),
        }
    }
    for d in &opts.include_dirs {
        a.extend(["-I".to_string(), absolute(d).display().to_string()]);
    }
    if opts.opt_level == OptLevel::O0 {
        a.push("-O0".into());
    }
    a.extend(["--target-env".into(), opts.target_env.to_string()]);
    match opts.layout {
        BufferLayout::Dxc => {}
        BufferLayout::Gl => a.push("-fvk-use-gl-layout".into()),
        BufferLayout::Dx => a.push("-fvk-use-dx-layout".into()),
        BufferLayout::Scalar => a.push("-fvk-use-scalar-layout".into()),
    }
    if opts.matrix_order == MatrixOrder::RowMajor {
        a.push("-Zpr".into());
    }
    if opts.enable_16bit_types {
        a.push("-enable-16bit-types".into());
    }
    if opts.hlsl_version != 2021 {
        a.extend(["-HV".into(), opts.hlsl_version.to_string()]);
    }
    if opts.invert_y {
        a.push("-fvk-invert-y".into());
    }
    if opts.dx_position_w {
        a.push("-fvk-use-dx-position-w".into());
    }
    for b in &opts.binding_shifts {
        a.push(format!("-fvk-{}-shift", b.class));
        a.push(b.shift.to_string());
        a.push(b.space.map_or_else(|| "all".to_string(), |s| s.to_string()));
    }
    if !opts.debug_names {
        a.push("--no-names".into());
    }
    // SPIR-V's own decorations: the command line refuses the flag for the other targets.
    if opts.spirv_reflect && matches!(target, OutputKind::Spirv | OutputKind::SpirvAsm) {
        a.push("-fspv-reflect".into());
    }
    if let Some(space) = opts.default_space {
        a.extend(["-auto-binding-space".into(), space.to_string()]);
    }
    for r in &opts.bind_registers {
        a.push("-fvk-bind-register".into());
        a.push(format!("{}{}", r.class, r.number));
        a.extend([r.space, r.binding, r.set].map(|n| n.to_string()));
    }
    for (flag, place) in [
        ("-fvk-bind-globals", opts.bind_globals),
        ("-fvk-bind-resource-heap", opts.bind_resource_heap),
        ("-fvk-bind-sampler-heap", opts.bind_sampler_heap),
        ("-fvk-bind-counter-heap", opts.bind_counter_heap),
    ] {
        if let Some((binding, set)) = place {
            a.extend([flag.into(), binding.to_string(), set.to_string()]);
        }
    }
    if opts.preserve_bindings {
        a.push("-fspv-preserve-bindings".into());
    }
    match opts.denorm {
        None => {}
        Some(crate::backends::spirv::DenormMode::Preserve) => {
            a.extend(["-denorm".into(), "preserve".into()])
        }
        Some(crate::backends::spirv::DenormMode::FlushToZero) => {
            a.extend(["-denorm".into(), "ftz".into()])
        }
    }
    for (constant, value) in &opts.spec_constants {
        let c = match constant {
            SpecConstKey::Id(id) => id.to_string(),
            SpecConstKey::Name(n) => n.clone(),
        };
        let v = match *value {
            SpecValue::Bool(b) => b.to_string(),
            SpecValue::Int(i) => i.to_string(),
            SpecValue::Float(f) => format!("{f:?}"),
            SpecValue::Bits(b) => format!("0x{b:x}"),
        };
        a.extend(["--spec-const".into(), format!("{c}={v}")]);
    }
    a
}

/// `path` made absolute against the current folder (not canonicalized: symbolic links and
/// `..` stay as written).
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Escapes a path for a Ninja `build` line: `$`, space and `:` get a `$`.
fn ninja_path(p: &Path) -> String {
    let s = p.display().to_string();
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '$' | ' ' | ':' | '\n') {
            out.push('$');
        }
        out.push(c);
    }
    out
}

/// Quotes one argument for the POSIX shell Ninja runs commands with, and escapes `$` for
/// Ninja.
fn shell_arg(a: &str) -> String {
    let plain = !a.is_empty()
        && a.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=+,:@%".contains(c));
    let quoted = if plain {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', "'\\''"))
    };
    quoted.replace('$', "$$")
}

/// The Ninja file for `variants` of `manifest`, running `oneshader` (the executable) and
/// regenerated by `regenerate` (the `oneshader build ... --emit-ninja FILE` arguments after
/// the executable) into `ninja_file`.
pub fn ninja_file(
    manifest: &Manifest,
    variants: &[Variant],
    oneshader: &Path,
    ninja_file: &Path,
    regenerate: &[String],
) -> String {
    let mut out = String::new();
    out.push_str(
        "# Written by `oneshader build --emit-ninja`; regenerated when the manifest changes.\n",
    );
    out.push_str("ninja_required_version = 1.3\n");
    out.push_str(&format!(
        "oneshader = {}\n\n",
        shell_arg(&absolute(oneshader).display().to_string())
    ));
    out.push_str("rule compile\n");
    out.push_str("  command = $oneshader compile $in $args -MD -MF $out.d -o $out\n");
    out.push_str("  depfile = $out.d\n");
    out.push_str("  deps = gcc\n");
    out.push_str("  description = oneshader $variant -> $out\n\n");
    out.push_str("rule regenerate\n");
    out.push_str(&format!(
        "  command = $oneshader {}\n",
        regenerate
            .iter()
            .map(|a| shell_arg(a))
            .collect::<Vec<_>>()
            .join(" ")
    ));
    out.push_str("  generator = 1\n");
    out.push_str("  description = oneshader: regenerate $out\n\n");
    // Ninja matches the file it loaded by the path it was given, which is relative to the
    // folder it runs in (`ninja -C DIR`): the file's own name.
    let own_name = ninja_file
        .file_name()
        .map_or_else(|| ninja_file.to_path_buf(), PathBuf::from);
    out.push_str(&format!(
        "build {}: regenerate {}\n\n",
        ninja_path(&own_name),
        ninja_path(&absolute(&manifest.path))
    ));
    let mut all = Vec::new();
    for v in variants {
        for (t, path) in &v.outputs {
            let path = absolute(path);
            out.push_str(&format!(
                "build {}: compile {}\n",
                ninja_path(&path),
                ninja_path(&absolute(&v.file))
            ));
            let args: Vec<String> = compile_args(&v.options, *t)
                .iter()
                .map(|a| shell_arg(a))
                .collect();
            out.push_str(&format!("  args = {}\n", args.join(" ")));
            // A description is free text; only `$` needs escaping.
            out.push_str(&format!("  variant = {}\n", v.id.replace('$', "$$")));
            all.push(ninja_path(&path));
        }
    }
    out.push_str(&format!("\nbuild all: phony {}\n", all.join(" ")));
    out.push_str("default all\n");
    out
}
