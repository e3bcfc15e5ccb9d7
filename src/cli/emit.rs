//! `oneshader emit FILE.ir --target spirv|spirv-asm|glsl|wgsl|msl [--target-env ENV] [--entry NAME]
//! [--msl-binding-map FILE] [--msl-version V] [--msl-buffer-sizes-index N] [-o OUT]`: runs the target's legalization pipeline and its backend.
//!
//! `spirv` writes the binary module (to `-o`, or to stdout), `spirv-asm` its disassembly,
//! `glsl` GLSL 4.50 for Vulkan, `wgsl` WGSL and `msl` Metal Shading Language 2.4, each of one
//! entry point (`--entry NAME` chooses it when the module has several; `--target-env` does not
//! apply). A SPIR-V module holds every entry point: `--entry` with a SPIR-V target is refused
//! (OSC0035) unless it names the only one. `--msl-binding-map FILE` gives MSL resource indices (docs/msl-backend.md),
//! `--wgsl-binding-map FILE` WGSL groups and bindings (docs/wgsl-backend.md).
//! `--target-env` takes dxc's spellings (vulkan1.0, vulkan1.1, vulkan1.1spirv1.4, vulkan1.2,
//! vulkan1.3, universal1.0..universal1.6; default vulkan1.2). Buffer layout follows DXC's
//! default (relaxed std140 for constant buffers, relaxed std430 for storage buffers and push
//! constants); `--fvk-use-gl-layout`, `--fvk-use-dx-layout` and `--fvk-use-scalar-layout`
//! select dxc's alternatives.
//!
//! | code | meaning |
//! |---|---|
//! | OSC0030 | unknown `--target-env` |
//! | OSC0031 | the MSL binding map cannot be read |
//! | OSC0034 | the WGSL binding map cannot be read or is not a binding map |
//! | OSC0032 | the output file cannot be written |
//! | OSC0035 | `--entry` with `--target spirv` or `spirv-asm` naming other than the module's only entry point (SPIR-V holds every one) |
//! | OSC0052 | the module is not legal for the target after legalization |
//! | OSC0053 | the backend refused the module |

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use oneshader::target::{self, EntryChoice};
use oneshader::{BufferLayout, CompileOptions, OutputKind};
use oneshader_backends::{msl, spirv};

/// `--target`: the outputs a backend makes from IR (the registry's [`OutputKind`]s that
/// have a backend, less the reflection, which needs the HLSL).
fn parse_target(name: &str) -> Result<OutputKind, String> {
    match OutputKind::from_name(name) {
        Some(k) if k.backend().is_some() && k != OutputKind::Reflection => Ok(k),
        _ => Err(format!(
            "`{name}` is not an output of emit (spirv, spirv-asm, glsl, wgsl, msl)"
        )),
    }
}

/// Arguments of `oneshader emit`.
#[derive(Args, Debug)]
pub struct EmitArgs {
    /// The module (`.ir`).
    pub file: PathBuf,
    /// The output language: spirv, spirv-asm, glsl, wgsl or msl.
    #[arg(long, value_parser = parse_target, value_name = "TARGET")]
    pub target: OutputKind,
    /// The target environment (dxc's spellings), default vulkan1.2.
    #[arg(long, value_name = "ENV", default_value = "vulkan1.2")]
    pub target_env: String,
    /// Strict std140/std430 buffer layout (dxc's `-fvk-use-gl-layout`).
    #[arg(long = "fvk-use-gl-layout", conflicts_with_all = ["dx_layout", "scalar_layout"])]
    pub gl_layout: bool,
    /// D3D buffer packing (dxc's `-fvk-use-dx-layout`).
    #[arg(long = "fvk-use-dx-layout", conflicts_with = "scalar_layout")]
    pub dx_layout: bool,
    /// Scalar block layout (dxc's `-fvk-use-scalar-layout`).
    #[arg(long = "fvk-use-scalar-layout")]
    pub scalar_layout: bool,
    /// Leave out `OpName`/`OpMemberName`.
    #[arg(long)]
    pub no_names: bool,
    /// DXC's reflection decorations in the SPIR-V (`UserSemantic`, `UserTypeGOOGLE`,
    /// `CounterBuffer`; dxc's `-fspv-reflect`), from the module's `semantic`, `user_type` and
    /// `counter` decorations. SPIR-V targets only (OSC0036 for the others).
    #[arg(long = "fspv-reflect")]
    pub spirv_reflect: bool,
    /// The entry point to emit (GLSL: one per output), by its `entry_point` name.
    #[arg(long, value_name = "NAME")]
    pub entry: Option<String>,
    /// MSL resource indices: a JSON array of `{"stage", "set", "binding", "index"}`.
    #[arg(long, value_name = "FILE")]
    pub msl_binding_map: Option<PathBuf>,
    /// WGSL resource places: a JSON array of `{"register", "space", "group", "binding"}` or
    /// `{"set", "binding", "group", "wgsl_binding"}` (docs/wgsl-backend.md).
    #[arg(long, value_name = "FILE")]
    pub wgsl_binding_map: Option<PathBuf>,
    /// The Metal Shading Language version of `--target msl` (2.1, 2.2, 2.3, 2.4, 3.0).
    #[arg(long, value_name = "VERSION", default_value = "2.4")]
    pub msl_version: msl::MslVersion,
    /// The `[[buffer(N)]]` index of the MSL buffer-sizes buffer (runtime-array lengths).
    #[arg(long, value_name = "N", default_value_t = msl::DEFAULT_BUFFER_SIZES_INDEX)]
    pub msl_buffer_sizes_index: u32,
    /// Write the output here instead of stdout.
    #[arg(short = 'o', long = "output", visible_alias = "Fo", value_name = "OUT")]
    pub output: Option<PathBuf>,
}

/// Runs `oneshader emit`.
pub fn run(args: EmitArgs) -> ExitCode {
    let file = super::io::input_name(&args.file);
    let opts = match options(&args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(1);
        }
    };
    let mut m = match super::ir_input::read_module(&args.file) {
        Ok(m) => m,
        Err(rendered) => {
            eprint!("{rendered}");
            return ExitCode::from(1);
        }
    };
    let diags = oneshader_ir::verify::verify(&m);
    if !diags.is_empty() {
        eprint!("{}", super::ir_input::render_unspanned(&args.file, &diags));
        return ExitCode::from(1);
    }
    // The registry's boundary and backend, as `compile` and `build` run them.
    let entry = match &args.entry {
        Some(e) => EntryChoice::Named(e),
        None => EntryChoice::Only,
    };
    let emitted = match target::emit(&mut m, &opts, entry, None) {
        Ok(e) => e,
        Err(e) => {
            eprint!(
                "{}",
                super::ir_input::render_unspanned(&args.file, &e.diagnostics)
            );
            return ExitCode::from(1);
        }
    };
    eprint!(
        "{}",
        super::ir_input::render_unspanned(&args.file, &emitted.warnings)
    );
    let bytes = match args.target {
        OutputKind::Spirv => spirv::to_bytes(&emitted.spirv),
        OutputKind::SpirvAsm => match target::disassembly(&emitted.spirv) {
            Ok(text) => text.into_bytes(),
            Err(e) => {
                eprintln!("{file}: error[OSC0032]: {e}");
                return ExitCode::from(1);
            }
        },
        _ => emitted.text.unwrap_or_default().into_bytes(),
    };
    super::io::write(
        args.output.as_deref(),
        &bytes,
        args.target.is_binary(),
        "OSC0032",
    )
}

/// The compile options `emit`'s arguments stand for: the target, its environment, the
/// buffer layout, names and the per-target settings, each read once.
fn options(args: &EmitArgs) -> Result<CompileOptions, String> {
    let mut opts = CompileOptions::default();
    args.target.configure(&mut opts);
    opts.target_env = args
        .target_env
        .parse()
        .map_err(|e| format!("error[OSC0030]: {e}"))?;
    opts.layout = if args.gl_layout {
        BufferLayout::Gl
    } else if args.dx_layout {
        BufferLayout::Dx
    } else if args.scalar_layout {
        BufferLayout::Scalar
    } else {
        BufferLayout::Dxc
    };
    opts.debug_names = !args.no_names;
    if args.spirv_reflect && !matches!(args.target, OutputKind::Spirv | OutputKind::SpirvAsm) {
        return Err(format!(
            "error[OSC0036]: `--fspv-reflect` adds SPIR-V reflection decorations; `--target {}`              has no such decorations, so it is refused rather than ignored",
            args.target.name()
        ));
    }
    opts.spirv_reflect = args.spirv_reflect;
    if let Some(p) = &args.msl_binding_map {
        let map = std::fs::read_to_string(p)
            .map_err(|e| e.to_string())
            .and_then(|t| msl::BindingMap::from_json(&t))
            .map_err(|e| format!("error[OSC0031]: --msl-binding-map {}: {e}", p.display()))?;
        opts.msl_binding_map = Some(map);
    }
    if let Some(p) = &args.wgsl_binding_map {
        let t = std::fs::read_to_string(p)
            .map_err(|e| format!("error[OSC0034]: --wgsl-binding-map {}: {e}", p.display()))?;
        let map = oneshader_backends::bindings::WgslBindingMap::from_json(&t).map_err(|e| {
            format!(
                "{}:{e}: error[OSC0034]: not a WGSL binding map",
                p.display()
            )
        })?;
        opts.wgsl_binding_map = Some(map);
    }
    opts.msl_version = args.msl_version;
    opts.msl_buffer_sizes_index = args.msl_buffer_sizes_index;
    Ok(opts)
}
