//! `oneshader compile FILE.hlsl -T PROFILE -E ENTRY [--target spirv|spirv-asm|glsl|wgsl|msl|ir|osir|reflection]
//! [-O0|-O] [-D..] [-I..] [--target-env ENV] [--reflect OUT.json] [-MD] [-MF FILE] -o OUT`: the
//! whole pipeline. HLSL is preprocessed, parsed, analyzed and lowered to IR; legalization (and
//! at `-O` the optimizer) runs; the SPIR-V backend writes the binary (or `--target spirv-asm`
//! its disassembly, `--target glsl` the GLSL backend the GLSL text, `--target wgsl` the WGSL
//! backend the WGSL text, `--target msl` the MSL backend the Metal Shading Language text,
//! `--target ir` the IR text,
//! `--target osir` the binary module with its module key, `--target reflection` the reflection
//! JSON). The pipeline is the library's ([`oneshader::Compiler`]): this file only reads the
//! command line and writes files.
//!
//! Options follow dxc's spellings, which clap cannot express (`-fcgl`, `-HV 2021`, `-Fo OUT`,
//! `-O3`), so this command reads its arguments itself:
//!
//! | option | meaning |
//! |---|---|
//! | `-T PROFILE` | `vs_6_0`, `ps_6_0`, `cs_6_0`, `gs_6_0`, `hs_6_0`, `ds_6_0`, `ms_6_5`, `as_6_5`; `lib_6_3`..: a library, every `[shader("...")]` function an entry point (`-E` unused) |
//! | `-E NAME` | the entry point (default `main`; unused for `lib_*` profiles) |
//! | `-o OUT`, `-Fo OUT` | the output file (stdout when absent) |
//! | `--target spirv\|spirv-asm\|glsl\|wgsl\|msl\|ir\|osir\|reflection` | what to write (default `spirv`) |
//! | `--msl-binding-map FILE` | MSL resource indices: a JSON array of `{"stage", "set", "binding", "index"}` (docs/msl-backend.md) |
//! | `--msl-version 2.1\|2.2\|2.3\|2.4\|3.0` | the Metal Shading Language version of the MSL output (default 2.4) |
//! | `--msl-buffer-sizes-index N` | the `[[buffer(N)]]` index of the MSL buffer-sizes buffer (runtime-array lengths; default 25, spirv-cross's) |
//! | `-O0`, `-O`, `-O1`..`-O3` | `-O0`: legalization only; any other level: the optimizer |
//! | `--target-env ENV`, `-fspv-target-env=ENV` | vulkan1.0..vulkan1.3, vulkan1.1spirv1.4, universal1.0..1.6 (default vulkan1.2) |
//! | `-D NAME[=V]`, `-DNAME[=V]`, `-U NAME`, `-I DIR` (attached forms too) | preprocessor |
//! | `-enable-16bit-types` | `half` and `min16*` are 16-bit |
//! | `-Zpr`, `-Zpc` | default matrix order row- / column-major |
//! | `-HV VERSION` | HLSL version (2016, 2018, 2021) |
//! | `-fvk-use-gl-layout`, `-fvk-use-dx-layout`, `-fvk-use-scalar-layout` | buffer layout rules |
//! | `-fvk-b-shift N SPACE`, `-fvk-t-shift`, `-fvk-s-shift`, `-fvk-u-shift` | add N to the binding numbers of that register class in SPACE (or `all`) |
//! | `-fvk-invert-y` | negate `SV_Position.y` in vertex shaders |
//! | `-fspv-preserve-bindings` | keep every declared resource and buffer, used or not |
//! | `-auto-binding-space N` | the descriptor set of resources whose set the source does not give |
//! | `-fvk-bind-register xK SPACE BINDING SET`, `-vkbr` | set and binding of the resource at `register(xK, spaceSPACE)`; then every resource needs one (OSH1031) |
//! | `-fvk-bind-globals BINDING SET` | binding and set of `$Globals` |
//! | `-no-warnings` | print errors only |
//! | `-denorm preserve\|ftz\|any` | 32-bit float denormal mode of the entry point (`DenormPreserve`/`DenormFlushToZero`) |
//! | `-Oconfig=...` | accepted and ignored (dxc's spirv-opt recipe; OneShader's pipeline runs) |
//! | `/Zpr`, `/O3`... | dxc's slash spellings of the switches without a value |
//! | `-fvk-use-dx-position-w` | `SV_Position.w` is `1 / w` in pixel shaders |
//! | `-Zi`, `-fspv-debug=line` | SPIR-V line information: `OpSource`, `OpString` per file, `OpLine`/`OpNoLine` |
//! | `-Qembed_debug` | with `-Zi`: the main file's text in `OpSource` |
//! | `-spirv`, `-fcgl`, `-Vd`, `-Od`, other `-fvk-*`/`-fspv-*` | accepted and ignored |
//! | `--reflect OUT.json` | write the reflection (docs/reflection.md), built from the module as lowered |
//! | `--spec-const ID\|NAME=VALUE` | override a `[[vk::constant_id]]` constant (by id or declared name) with `true`, `false`, an integer or a float, before the optimizer folds (repeatable) |
//! | `--no-names` | leave out `OpName`/`OpMemberName` |
//! | `-MD` | also write a dependency file (Make syntax: the output depends on the input and every file it included) to `OUT.d`, or to the `-MF` file |
//! | `-MF FILE` | the dependency file's name (implies `-MD`) |
//!
//! | code | meaning |
//! |---|---|
//! | OSC0050 | bad command line (unknown option, missing value, no input file) |
//! | OSC0051 | the output (or reflection) file cannot be written |
//! | OSC0052 | the legalization pipeline failed |
//! | OSC0053 | the backend (SPIR-V or GLSL) refused the module |
//! | OSC0054 | retired (was: `--reflect` is not available yet) |
//! | OSC0055 | unknown target environment |
//! | OSC0056 | reflection failed: a buffer's contents have no layout under its rule |
//! | OSC0057 | a `--spec-const` names no spec constant of the shader, or its value does not fit |
//! | OSC0058 | `-MD` without an output file (`-o`) or `-MF` file |

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use oneshader::{BufferLayout, CompileOptions, Compiler, MacroOp, MatrixOrder, OptLevel, Phase};
use oneshader_frontends::hlsl;

/// Arguments of `oneshader compile` (read by hand: dxc's spellings).
#[derive(Args, Debug)]
pub struct CompileArgs {
    /// FILE.hlsl followed by dxc-style options: -T PROFILE -E ENTRY [--target spirv|glsl|wgsl|msl|ir|osir]
    /// [-O0|-O] [-D NAME[=V]] [-U NAME] [-I DIR] [--target-env ENV] [-enable-16bit-types]
    /// [-Zpr|-Zpc] [--reflect OUT.json] -o OUT (see docs/cli.md).
    #[arg(allow_hyphen_values = true, trailing_var_arg = true, num_args = 0..)]
    pub args: Vec<String>,
}

/// What to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Spirv,
    SpirvAsm,
    Glsl,
    Wgsl,
    Msl,
    Ir,
    Osir,
    Reflection,
}

/// The parsed command line.
#[derive(Debug)]
struct Parsed {
    file: PathBuf,
    output: Option<PathBuf>,
    target: Target,
    /// The target environment as spelled (checked in [`run`], OSC0055).
    env: String,
    compile: CompileOptions,
    reflect: Option<PathBuf>,
    /// `-no-warnings`: print errors only.
    no_warnings: bool,
    /// `-MD`: write a dependency file.
    depfile: bool,
    /// `-MF FILE`.
    depfile_path: Option<PathBuf>,
}

/// dxc switches also accepted with a slash (`/Zpr`).
const SLASH_SWITCHES: &[&str] = &[
    "Zpr",
    "Zpc",
    "Zi",
    "Od",
    "O0",
    "O1",
    "O2",
    "O3",
    "WX",
    "spirv",
    "fcgl",
    "Vd",
    "nologo",
    "enable-16bit-types",
];

const USAGE: &str = "usage: oneshader compile FILE.hlsl -T PROFILE [-E ENTRY] \
[--target spirv|spirv-asm|glsl|wgsl|msl|ir|osir|reflection] [-O0|-O] [-D NAME[=V]]... [-U NAME]... [-I DIR]... \
[--target-env ENV] [-enable-16bit-types] [-Zpr|-Zpc] [--spec-const ID|NAME=VALUE]... [--no-names] \
[--reflect OUT.json] [--msl-binding-map FILE] [--msl-version V] [--msl-buffer-sizes-index N] [-MD] [-MF FILE] [-o OUT]";

fn parse_args(args: &[String]) -> Result<Parsed, String> {
    let mut file = None;
    let mut output = None;
    let mut target = Target::Spirv;
    let mut env = "vulkan1.2".to_string();
    let mut c = CompileOptions::default();
    let mut profile = None;
    let mut reflect = None;
    let mut no_warnings = false;
    let mut depfile = false;
    let mut depfile_path = None;
    let mut embed_debug = false;
    let mut i = 0;
    // The value of an option given attached (`-DX`) or as the next argument (`-D X`).
    let value = |i: &mut usize, attached: &str, name: &str| -> Result<String, String> {
        if !attached.is_empty() {
            return Ok(attached.trim_start_matches('=').to_string());
        }
        *i += 1;
        args.get(*i)
            .cloned()
            .ok_or_else(|| format!("option `{name}` needs a value"))
    };
    while i < args.len() {
        let mut a = args[i].as_str();
        // dxc also takes its switches with a slash (`/Zpr`); an input path never matches one.
        let slashed;
        if let Some(rest) = a.strip_prefix('/')
            && SLASH_SWITCHES.contains(&rest)
        {
            slashed = format!("-{rest}");
            a = slashed.as_str();
        }
        if !a.starts_with('-') || a == "-" {
            if file.is_some() {
                return Err(format!("more than one input file (`{a}`)"));
            }
            file = Some(PathBuf::from(a));
            i += 1;
            continue;
        }
        match a {
            "-h" | "--help" => return Err(String::new()),
            // Line information in the SPIR-V (`-Qembed_debug` adds the text).
            "-Zi" | "-fspv-debug=line" => c.debug_info = oneshader::DebugInfo::Lines,
            "-Qembed_debug" => embed_debug = true,
            "-spirv" | "-fcgl" | "-Vd" | "-Od" | "-WX" | "-Zss" | "-Zsb" | "-Gec" | "-Ges"
            | "-Gis" | "-Ni" | "-No" | "-Vi" | "-nologo" => {}
            "-enable-16bit-types" => c.enable_16bit_types = true,
            "-Zpr" => c.matrix_order = MatrixOrder::RowMajor,
            "-Zpc" => c.matrix_order = MatrixOrder::ColumnMajor,
            "-O" | "-O1" | "-O2" | "-O3" => c.opt_level = OptLevel::O,
            "-O0" => c.opt_level = OptLevel::O0,
            "-fvk-invert-y" => c.invert_y = true,
            "-no-warnings" => no_warnings = true,
            "-denorm" => {
                c.denorm = match args.get(i + 1).map(String::as_str) {
                    Some("preserve") => Some(oneshader::backends::spirv::DenormMode::Preserve),
                    Some("ftz") => Some(oneshader::backends::spirv::DenormMode::FlushToZero),
                    Some("any") => None,
                    _ => return Err("`-denorm` takes preserve, ftz or any".into()),
                };
                i += 1;
            }
            "-auto-binding-space" => {
                let v = args.get(i + 1).and_then(|v| v.parse::<u32>().ok());
                c.default_space = Some(v.ok_or("`-auto-binding-space` takes a space number")?);
                i += 1;
            }
            "-fvk-bind-globals" => {
                // `-fvk-bind-globals BINDING SET`.
                let n = |k: usize| args.get(i + k).and_then(|v| v.parse::<u32>().ok());
                let (Some(b), Some(s)) = (n(1), n(2)) else {
                    return Err("`-fvk-bind-globals` takes a binding and a set".into());
                };
                c.bind_globals = Some((b, s));
                i += 2;
            }
            "-fvk-bind-register" | "-vkbr" => {
                // `-fvk-bind-register xK SPACE BINDING SET`.
                let reg = args.get(i + 1).map(|r| r.to_ascii_lowercase());
                let n = |k: usize| args.get(i + k).and_then(|v| v.parse::<u32>().ok());
                let parsed = reg.as_deref().and_then(|r| {
                    let class = r.chars().next()?;
                    let number = r.get(1..)?.parse::<u32>().ok()?;
                    Some((class, number))
                });
                let (Some((class, number)), Some(space), Some(binding), Some(set)) =
                    (parsed, n(2), n(3), n(4))
                else {
                    return Err(format!(
                        "`{a}` takes a register (`t5`), a space, a binding and a set"
                    ));
                };
                c.bind_registers.push(oneshader::RegisterBinding {
                    class,
                    number,
                    space,
                    binding,
                    set,
                });
                i += 4;
            }
            "-fspv-preserve-bindings" => c.preserve_bindings = true,
            "--no-names" => c.debug_names = false,
            "-MD" => depfile = true,
            "-fvk-use-dx-position-w" => c.dx_position_w = true,
            "-fvk-b-shift" | "-fvk-t-shift" | "-fvk-s-shift" | "-fvk-u-shift" => {
                // `-fvk-t-shift N SPACE|all`.
                let class = a.as_bytes()[5] as char;
                let n = args.get(i + 1).and_then(|v| v.parse::<u32>().ok());
                let space = args.get(i + 2).map(String::as_str);
                let (Some(shift), Some(space)) = (n, space) else {
                    return Err(format!(
                        "`{a}` takes a shift and a space (a number or `all`)"
                    ));
                };
                let space = if space == "all" {
                    None
                } else {
                    Some(space.parse::<u32>().map_err(|_| {
                        format!("`{a}`: the space must be a number or `all`, not `{space}`")
                    })?)
                };
                c.binding_shifts.push(hlsl::BindingShift {
                    class,
                    shift,
                    space,
                });
                i += 2;
            }
            "-fvk-use-gl-layout" | "--fvk-use-gl-layout" => c.layout = BufferLayout::Gl,
            "-fvk-use-dx-layout" | "--fvk-use-dx-layout" => c.layout = BufferLayout::Dx,
            "-fvk-use-scalar-layout" | "--fvk-use-scalar-layout" => c.layout = BufferLayout::Scalar,
            _ => {
                let (name, attached) = split_option(a);
                match name {
                    "-T" => profile = Some(value(&mut i, attached, "-T")?),
                    "-E" => c.entry = value(&mut i, attached, "-E")?,
                    "-o" | "-Fo" => output = Some(PathBuf::from(value(&mut i, attached, name)?)),
                    "-D" => c
                        .macros
                        .push(MacroOp::Define(value(&mut i, attached, "-D")?)),
                    "-U" => c
                        .macros
                        .push(MacroOp::Undef(value(&mut i, attached, "-U")?)),
                    "-I" => c
                        .include_dirs
                        .push(PathBuf::from(value(&mut i, attached, "-I")?)),
                    "-HV" => {
                        let v = value(&mut i, attached, "-HV")?;
                        // `202x` is dxc's name for the language after 2021.
                        c.hlsl_version = if v == "202x" {
                            2021
                        } else {
                            v.parse()
                                .map_err(|_| format!("`-HV` takes a year, not `{v}`"))?
                        };
                    }
                    "--target" => {
                        target = match value(&mut i, attached, "--target")?.as_str() {
                            "spirv" => Target::Spirv,
                            "spirv-asm" => Target::SpirvAsm,
                            "glsl" => Target::Glsl,
                            "wgsl" => Target::Wgsl,
                            "msl" => Target::Msl,
                            "ir" => Target::Ir,
                            "osir" => Target::Osir,
                            "reflection" => Target::Reflection,
                            other => {
                                return Err(format!(
                                    "unknown target `{other}` (spirv, spirv-asm, glsl, wgsl, msl, ir, osir or reflection)"
                                ));
                            }
                        }
                    }
                    "--target-env" | "-fspv-target-env" => {
                        env = value(&mut i, attached, name)?;
                    }
                    "--reflect" => reflect = Some(PathBuf::from(value(&mut i, attached, name)?)),
                    "--msl-binding-map" => {
                        let path = value(&mut i, attached, name)?;
                        let text = std::fs::read_to_string(&path)
                            .map_err(|e| format!("`--msl-binding-map {path}`: {e}"))?;
                        c.msl_binding_map = Some(
                            oneshader_backends::msl::BindingMap::from_json(&text)
                                .map_err(|e| format!("`--msl-binding-map {path}`: {e}"))?,
                        );
                    }
                    "--msl-version" => {
                        let v = value(&mut i, attached, name)?;
                        c.msl_version = v.parse().map_err(|e| format!("`--msl-version`: {e}"))?;
                    }
                    "--msl-buffer-sizes-index" => {
                        let v = value(&mut i, attached, name)?;
                        c.msl_buffer_sizes_index = v.parse().map_err(|_| {
                            format!("`--msl-buffer-sizes-index` takes a buffer index, not `{v}`")
                        })?;
                    }
                    "--spec-const" => {
                        // `--spec-const ID|NAME=VALUE`.
                        let v = value(&mut i, attached, name)?;
                        let (key, val) = v.split_once('=').ok_or_else(|| {
                            format!("`--spec-const` takes ID=VALUE or NAME=VALUE, not `{v}`")
                        })?;
                        let parsed = oneshader::parse_spec_value(val).ok_or_else(|| {
                            format!(
                                "`--spec-const {v}`: `{val}` is not true, false, an integer or a float"
                            )
                        })?;
                        let key = key
                            .parse()
                            .unwrap_or(oneshader::SpecConstKey::Name(key.into()));
                        c.spec_constants.push((key, parsed));
                    }
                    // dxc's spirv-opt recipe: OneShader's own pipeline runs instead.
                    _ if a.starts_with("-Oconfig=") => {}
                    "-MF" => {
                        depfile = true;
                        depfile_path = Some(PathBuf::from(value(&mut i, attached, name)?));
                    }
                    _ if a.starts_with("-fvk-")
                        || a.starts_with("-fspv-")
                        || a.starts_with("-W") =>
                    {
                        // dxc options that do not change what OneShader produces today.
                    }
                    _ => return Err(format!("unknown option `{a}`")),
                }
            }
        }
        i += 1;
    }
    let file = file.ok_or("no input file")?;
    c.profile = profile.ok_or("`-T PROFILE` is required (e.g. -T ps_6_0)")?;
    if embed_debug && c.debug_info == oneshader::DebugInfo::Lines {
        c.debug_info = oneshader::DebugInfo::LinesWithSource;
    }
    Ok(Parsed {
        file,
        output,
        target,
        env,
        compile: c,
        reflect,
        no_warnings,
        depfile,
        depfile_path,
    })
}

/// Splits `-DNAME=1` into (`-D`, `NAME=1`), `--target=ir` into (`--target`, `=ir`),
/// `-fspv-target-env=vulkan1.3` into (`-fspv-target-env`, `=vulkan1.3`).
fn split_option(a: &str) -> (&str, &str) {
    if let Some(eq) = a.find('=')
        && a.starts_with("--")
    {
        return (&a[..eq], &a[eq..]);
    }
    if let Some(rest) = a.strip_prefix("-fspv-target-env") {
        return ("-fspv-target-env", rest);
    }
    for p in ["-HV", "-Fo", "-MF"] {
        if let Some(rest) = a.strip_prefix(p) {
            return (p, rest);
        }
    }
    if a.starts_with("--") {
        return (a, "");
    }
    for p in ["-T", "-E", "-o", "-D", "-U", "-I"] {
        if let Some(rest) = a.strip_prefix(p) {
            return (p, rest);
        }
    }
    (a, "")
}

/// Runs `oneshader compile`.
pub fn run(args: CompileArgs) -> ExitCode {
    let mut p = match parse_args(&args.args) {
        Ok(p) => p,
        Err(msg) if msg.is_empty() => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(msg) => {
            eprintln!("error[OSC0050]: {msg}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    p.compile.target_env = match p.env.parse() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error[OSC0055]: {e}");
            return ExitCode::from(1);
        }
    };
    // The reflection's device requirements are read off the SPIR-V: emitted for it too.
    p.compile.emit_spirv = matches!(
        p.target,
        Target::Spirv
            | Target::SpirvAsm
            | Target::Glsl
            | Target::Wgsl
            | Target::Msl
            | Target::Reflection
    );
    if p.target == Target::Glsl {
        p.compile.target = oneshader::Target::Glsl;
    }
    if p.target == Target::Wgsl {
        p.compile.target = oneshader::Target::Wgsl;
    }
    if p.target == Target::Msl {
        p.compile.target = oneshader::Target::Msl;
    }
    p.compile.keep_final_ir = matches!(p.target, Target::Ir | Target::Osir);
    p.compile.reflect = p.reflect.is_some() || p.target == Target::Reflection;
    // Where the dependency file goes: `-MF`, else the output's name with `.d` added.
    let depfile = match (&p.depfile_path, &p.output) {
        _ if !p.depfile => None,
        (Some(d), _) => Some(d.clone()),
        (None, Some(o)) => Some(PathBuf::from(format!("{}.d", o.display()))),
        (None, None) => {
            eprintln!("error[OSC0058]: -MD needs an output file (-o) or a dependency file (-MF)");
            return ExitCode::from(2);
        }
    };
    let file = p.file.display().to_string();
    let out = match Compiler::new().compile_file(&p.file, &p.compile) {
        Ok(mut out) => {
            if p.no_warnings {
                out.diagnostics.list.retain(|d| d.is_error());
            }
            out
        }
        Err(mut e) => {
            if p.no_warnings {
                e.diagnostics.list.retain(|d| d.is_error());
            }
            eprint!("{}", e.diagnostics.render());
            if e.phase != Phase::FrontEnd {
                // The failing phase's own diagnostic (OSC0052/53/56) is among those rendered.
                eprintln!("{e}");
            }
            return ExitCode::from(1);
        }
    };
    if !out.diagnostics.is_empty() {
        eprint!("{}", out.diagnostics.render());
    }
    // The source map names files relative to the working directory when they are under it
    // (as `oneshader build` names them, relative to its manifest), so the bytes do not
    // depend on where the project sits or how the path was spelled.
    let positions = out.ir.final_positions.as_ref().map(|sm| {
        let cwd = std::env::current_dir().ok();
        let mut sm = sm.clone();
        for f in &mut sm.files {
            if let Some(rel) = cwd
                .as_deref()
                .and_then(|c| std::path::Path::new(f.as_str()).strip_prefix(c).ok())
            {
                *f = rel.display().to_string();
            }
        }
        sm
    });
    let bytes = match (p.target, &out.ir.final_module) {
        (Target::Spirv, _) => out.spirv_bytes(),
        (Target::SpirvAsm, _) => match oneshader_backends::spirv::disassemble(&out.spirv) {
            Ok(text) => {
                let mut t = text.into_bytes();
                t.push(b'\n');
                t
            }
            Err(e) => {
                eprintln!("{file}: error[OSC0051]: cannot disassemble: {e}");
                return ExitCode::from(1);
            }
        },
        (Target::Reflection, _) => out
            .reflection
            .as_ref()
            .map(|r| r.to_json().into_bytes())
            .unwrap_or_default(),
        (Target::Glsl, _) => out.glsl.clone().unwrap_or_default().into_bytes(),
        (Target::Wgsl, _) => out.wgsl.clone().unwrap_or_default().into_bytes(),
        (Target::Msl, _) => out.msl.clone().unwrap_or_default().into_bytes(),
        (Target::Ir, Some(m)) => oneshader_ir::print::print_module(m).into_bytes(),
        // The module key goes into the file: a cache can tell whether it is current.
        (Target::Osir, Some(m)) => match oneshader_serialize::save_with(
            m,
            &oneshader_serialize::SaveOptions {
                cache_key: out.cache_key,
                source_map: positions.as_ref(),
                ..Default::default()
            },
        ) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("{file}: error[OSC0051]: cannot save the module: {e}");
                return ExitCode::from(1);
            }
        },
        // `keep_final_ir` was set for these targets.
        (_, None) => Vec::new(),
    };
    let written = match &p.output {
        Some(path) => std::fs::write(path, &bytes).map_err(|e| (path.display().to_string(), e)),
        None => {
            let written = super::write_stdout(&bytes);
            if written != ExitCode::SUCCESS {
                return written;
            }
            Ok(())
        }
    };
    if let Err((to, e)) = written {
        eprintln!("error[OSC0051]: cannot write {to}: {e}");
        return ExitCode::from(1);
    }
    if let (Some(path), Some(r)) = (&p.reflect, &out.reflection)
        && let Err(e) = std::fs::write(path, r.to_json())
    {
        eprintln!("error[OSC0051]: cannot write {}: {e}", path.display());
        return ExitCode::from(1);
    }
    if let Some(d) = depfile {
        // The rule's target is the output (the dependency file itself when writing to
        // standard output).
        let target = p.output.clone().unwrap_or_else(|| d.clone());
        let rule = oneshader::depfile::make_rule(&target, &out.inputs);
        if let Err(e) = std::fs::write(&d, rule) {
            eprintln!("error[OSC0051]: cannot write {}: {e}", d.display());
            return ExitCode::from(1);
        }
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn dxc_spellings() {
        let p = parse_args(&s(&[
            "a.hlsl",
            "-T",
            "ps_6_0",
            "-E",
            "PSMain",
            "-spirv",
            "-fcgl",
            "-HV",
            "2021",
            "-DX=1",
            "-D",
            "Y",
            "-UZ",
            "-Iinc",
            "-O0",
            "-fspv-target-env=vulkan1.3",
            "-Fo",
            "out.spv",
            "-Zpr",
            "-enable-16bit-types",
        ]))
        .unwrap();
        assert_eq!(p.file, PathBuf::from("a.hlsl"));
        assert_eq!(p.compile.profile, "ps_6_0");
        assert_eq!(p.compile.entry, "PSMain");
        assert_eq!(p.compile.hlsl_version, 2021);
        assert_eq!(p.compile.opt_level, OptLevel::O0);
        assert_eq!(p.env, "vulkan1.3");
        assert_eq!(p.output, Some(PathBuf::from("out.spv")));
        assert!(p.compile.matrix_order == MatrixOrder::RowMajor && p.compile.enable_16bit_types);
        assert_eq!(
            p.compile.macros,
            vec![
                MacroOp::Define("X=1".into()),
                MacroOp::Define("Y".into()),
                MacroOp::Undef("Z".into())
            ]
        );
        assert_eq!(p.compile.include_dirs, vec![PathBuf::from("inc")]);
        let p = parse_args(&s(&[
            "-TCS_6_0",
            "b.hlsl",
            "--target=ir",
            "-O3",
            "--target-env",
            "vulkan1.0",
        ]))
        .unwrap();
        assert_eq!(p.target, Target::Ir);
        assert_eq!(p.compile.opt_level, OptLevel::O);
        assert_eq!(p.env, "vulkan1.0");
        let p = parse_args(&s(&[
            "c.hlsl",
            "-T",
            "vs_6_0",
            "-fvk-t-shift",
            "10",
            "0",
            "-fvk-s-shift",
            "20",
            "all",
            "-fvk-invert-y",
        ]))
        .unwrap();
        assert!(p.compile.invert_y);
        assert_eq!(
            p.compile.binding_shifts,
            vec![
                hlsl::BindingShift {
                    class: 't',
                    shift: 10,
                    space: Some(0)
                },
                hlsl::BindingShift {
                    class: 's',
                    shift: 20,
                    space: None
                }
            ]
        );
        assert!(parse_args(&s(&["a.hlsl"])).is_err());
        assert!(parse_args(&s(&["a.hlsl", "-T", "ps_6_0", "-bogus"])).is_err());
    }
}
