//! `oneshader emit FILE.ir --target spirv|spirv-asm|glsl|wgsl|msl [--target-env ENV] [--entry NAME]
//! [--msl-binding-map FILE] [--msl-version V] [--msl-buffer-sizes-index N] [-o OUT]`: runs the target's legalization pipeline and its backend.
//!
//! `spirv` writes the binary module (to `-o`, or to stdout), `spirv-asm` its disassembly,
//! `glsl` GLSL 4.50 for Vulkan, `wgsl` WGSL and `msl` Metal Shading Language 2.4, each of one
//! entry point (`--entry NAME` chooses it when the module has several; `--target-env` does not
//! apply). `--msl-binding-map FILE` gives MSL resource indices (docs/msl-backend.md),
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
//! | OSC0033 | the legalization pipeline failed |

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use oneshader_backends::spirv::{self, LayoutRule, Options, TargetEnv};
use oneshader_backends::{glsl, msl, wgsl};

/// What `emit` produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Target {
    /// A SPIR-V binary module.
    Spirv,
    /// SPIR-V disassembly (text).
    SpirvAsm,
    /// WGSL (one entry point).
    Wgsl,
    /// GLSL 4.50 for Vulkan (one entry point).
    Glsl,
    /// Metal Shading Language 2.4 (one entry point).
    Msl,
}

/// Arguments of `oneshader emit`.
#[derive(Args, Debug)]
pub struct EmitArgs {
    /// The module (`.ir`).
    pub file: PathBuf,
    /// The output language.
    #[arg(long, value_enum)]
    pub target: Target,
    /// The target environment (dxc's spellings), default vulkan1.2.
    #[arg(long, value_name = "ENV", default_value = "vulkan1.2")]
    pub target_env: String,
    /// Strict std140/std430 buffer layout (dxc's `-fvk-use-gl-layout`).
    #[arg(long = "fvk-use-gl-layout")]
    pub gl_layout: bool,
    /// D3D buffer packing (dxc's `-fvk-use-dx-layout`).
    #[arg(long = "fvk-use-dx-layout")]
    pub dx_layout: bool,
    /// Scalar block layout (dxc's `-fvk-use-scalar-layout`).
    #[arg(long = "fvk-use-scalar-layout")]
    pub scalar_layout: bool,
    /// Leave out `OpName`/`OpMemberName`.
    #[arg(long)]
    pub no_names: bool,
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
    let env: TargetEnv = match args.target_env.parse() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error[OSC0030]: {e}");
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
    let mut opts = Options::for_env(env);
    if args.gl_layout {
        opts.cbuffer_rule = LayoutRule::Std140;
        opts.storage_rule = LayoutRule::Std430;
        opts.push_constant_rule = LayoutRule::Std430;
        opts.tbuffer_rule = LayoutRule::Std430;
    }
    if args.dx_layout {
        opts.cbuffer_rule = LayoutRule::DxCbuffer;
        opts.storage_rule = LayoutRule::Scalar;
        opts.push_constant_rule = LayoutRule::Scalar;
        opts.tbuffer_rule = LayoutRule::DxCbuffer;
    }
    if args.scalar_layout {
        opts.cbuffer_rule = LayoutRule::Scalar;
        opts.storage_rule = LayoutRule::Scalar;
        opts.push_constant_rule = LayoutRule::Scalar;
        opts.tbuffer_rule = LayoutRule::Scalar;
    }
    opts.debug_names = !args.no_names;
    if args.target == Target::Glsl {
        return emit_glsl(&args, &mut m, &opts);
    }
    if args.target == Target::Wgsl {
        return emit_wgsl(&args, &mut m, &opts);
    }
    if args.target == Target::Msl {
        return emit_msl(&args, &mut m, &opts);
    }
    // The backend's boundary: the `legalize(spirv)` pipeline, then its check.
    let legal = match oneshader_backends::prepare(&mut m, oneshader_backends::Target::Spirv) {
        Ok(legal) => legal,
        Err(diags) => {
            eprintln!("{file}: error[OSC0033]: the module could not be legalized for SPIR-V");
            eprint!("{}", super::ir_input::render_unspanned(&args.file, &diags));
            return ExitCode::from(1);
        }
    };
    let words = match spirv::emit(&legal, &opts) {
        Ok(w) => w,
        Err(diags) => {
            eprint!("{}", super::ir_input::render_unspanned(&args.file, &diags));
            return ExitCode::from(1);
        }
    };
    let bytes = match args.target {
        Target::SpirvAsm => match spirv::disassemble(&words) {
            Ok(text) => {
                let mut t = text.into_bytes();
                t.push(b'\n');
                t
            }
            Err(e) => {
                eprintln!("{file}: error[OSC0032]: cannot disassemble: {e}");
                return ExitCode::from(1);
            }
        },
        _ => spirv::to_bytes(&words),
    };
    let binary = args.target == Target::Spirv;
    super::io::write(args.output.as_deref(), &bytes, binary, "OSC0032")
}

/// `--target glsl`: the `legalize(glsl)` pipeline and the GLSL backend, with the layout
/// rules chosen for SPIR-V (the same options).
fn emit_glsl(args: &EmitArgs, m: &mut oneshader_ir::Module, opts: &Options) -> ExitCode {
    let file = super::io::input_name(&args.file);
    let legal = match oneshader_backends::prepare(m, oneshader_backends::Target::Glsl) {
        Ok(legal) => legal,
        Err(diags) => {
            eprintln!("{file}: error[OSC0033]: the module could not be legalized for GLSL");
            eprint!("{}", super::ir_input::render_unspanned(&args.file, &diags));
            return ExitCode::from(1);
        }
    };
    let gopts = glsl::Options {
        entry: args.entry.clone(),
        cbuffer_rule: opts.cbuffer_rule,
        storage_rule: opts.storage_rule,
        push_constant_rule: opts.push_constant_rule,
        tbuffer_rule: opts.tbuffer_rule,
        denorm: opts.denorm,
    };
    match glsl::emit(&legal, &gopts) {
        Ok(text) => write_output(args, text.as_bytes()),
        Err(diags) => {
            eprint!("{}", super::ir_input::render_unspanned(&args.file, &diags));
            ExitCode::from(1)
        }
    }
}

/// `--target wgsl`: the `legalize(wgsl)` pipeline and the WGSL backend, with the layout
/// rules chosen for SPIR-V (the same options).
fn emit_wgsl(args: &EmitArgs, m: &mut oneshader_ir::Module, opts: &Options) -> ExitCode {
    let file = super::io::input_name(&args.file);
    let binding_map = match &args.wgsl_binding_map {
        None => None,
        Some(p) => match std::fs::read_to_string(p) {
            Ok(t) => match oneshader_backends::bindings::WgslBindingMap::from_json(&t) {
                Ok(map) => Some(map),
                Err(e) => {
                    eprintln!(
                        "{}:{e}: error[OSC0034]: not a WGSL binding map",
                        p.display()
                    );
                    return ExitCode::from(1);
                }
            },
            Err(e) => {
                eprintln!("error[OSC0034]: --wgsl-binding-map {}: {e}", p.display());
                return ExitCode::from(1);
            }
        },
    };
    let legal = match oneshader_backends::prepare(m, oneshader_backends::Target::Wgsl) {
        Ok(legal) => legal,
        Err(diags) => {
            eprintln!("{file}: error[OSC0033]: the module could not be legalized for WGSL");
            eprint!("{}", super::ir_input::render_unspanned(&args.file, &diags));
            return ExitCode::from(1);
        }
    };
    let wopts = wgsl::Options {
        entry: args.entry.clone(),
        cbuffer_rule: opts.cbuffer_rule,
        storage_rule: opts.storage_rule,
        push_constant_rule: opts.push_constant_rule,
        tbuffer_rule: opts.tbuffer_rule,
        binding_map,
    };
    match wgsl::emit_with_interface(&legal, &wopts) {
        Ok((text, interface)) => {
            eprint!(
                "{}",
                super::ir_input::render_unspanned(&args.file, &interface.warnings)
            );
            write_output(args, text.as_bytes())
        }
        Err(diags) => {
            eprint!("{}", super::ir_input::render_unspanned(&args.file, &diags));
            ExitCode::from(1)
        }
    }
}

/// `--target msl`: the `legalize(msl)` pipeline and the MSL backend, with the layout rules
/// chosen for SPIR-V and the binding map.
fn emit_msl(args: &EmitArgs, m: &mut oneshader_ir::Module, opts: &Options) -> ExitCode {
    let file = super::io::input_name(&args.file);
    let binding_map = match &args.msl_binding_map {
        None => None,
        Some(p) => match std::fs::read_to_string(p)
            .map_err(|e| e.to_string())
            .and_then(|t| msl::BindingMap::from_json(&t))
        {
            Ok(map) => Some(map),
            Err(e) => {
                eprintln!("error[OSC0031]: --msl-binding-map {}: {e}", p.display());
                return ExitCode::from(1);
            }
        },
    };
    let legal = match oneshader_backends::prepare(m, oneshader_backends::Target::Msl) {
        Ok(legal) => legal,
        Err(diags) => {
            eprintln!("{file}: error[OSC0033]: the module could not be legalized for MSL");
            eprint!("{}", super::ir_input::render_unspanned(&args.file, &diags));
            return ExitCode::from(1);
        }
    };
    let mopts = msl::Options {
        entry: args.entry.clone(),
        cbuffer_rule: opts.cbuffer_rule,
        storage_rule: opts.storage_rule,
        push_constant_rule: opts.push_constant_rule,
        tbuffer_rule: opts.tbuffer_rule,
        binding_map,
        buffer_sizes_index: args.msl_buffer_sizes_index,
        version: args.msl_version,
    };
    match msl::emit(&legal, &mopts) {
        Ok(text) => write_output(args, text.as_bytes()),
        Err(diags) => {
            eprint!("{}", super::ir_input::render_unspanned(&args.file, &diags));
            ExitCode::from(1)
        }
    }
}

/// Writes text output to `-o` (`-`: stdout) or stdout.
fn write_output(args: &EmitArgs, bytes: &[u8]) -> ExitCode {
    super::io::write(args.output.as_deref(), bytes, false, "OSC0032")
}
