//! Voices: the ways a compute shader becomes a program that runs on lavapipe.
//!
//! Every voice starts from the same [`Source`]: HLSL compiled through the facade
//! ([`oneshader::Compiler`]) with the case's options, or an IR module. What differs is the
//! path after the front end:
//!
//! - [`Voice::Spirv`]: our SPIR-V backend, at `-O0` (legalization only) or `-O` (the
//!   optimizer), for a target environment. Two levels of the same backend make the optimizer
//!   differential, which needs no other backend.
//! - [`Voice::Glsl`]: our GLSL backend, then `glslangValidator -V --target-env vulkan1.2 -S
//!   comp` to SPIR-V. Its one plug-in place is [`glsl_words`].
//! - [`Voice::Wgsl`]: our WGSL backend, then naga (`naga::front::wgsl`, the validator,
//!   `naga::back::spv`) to SPIR-V, validated like every other voice. Its one plug-in place is
//!   [`wgsl_words`]. naga's SPIR-V is checked by the system's `spirv-val` only (naga 30
//!   decorates workgroup arrays with `ArrayStride`, which the current validator rejects).
//! - [`Voice::Interp`]: the reference interpreter, for IR sources only
//!   ([`crate::interp`]); it runs the module as given, before legalization and
//!   optimization, so it catches what a shared front end or legalization hides from the
//!   GPU voices.
//!
//! Every program a GPU voice makes is validated before it runs (both `spirv-val`s of
//! `oneshader-test-tools`): running invalid SPIR-V is undefined, so a disagreement on it
//! would mean nothing.

use std::fmt;
use std::path::PathBuf;

use oneshader::backends::spirv;
use oneshader::ir::Module;
use oneshader::passes::pipeline::optimize;
use oneshader::{BufferLayout, CompileOptions, Compiler, OptLevel, TargetEnv};

use crate::OracleError;

/// True when the GLSL backend is part of this build, so [`Voice::Glsl`] can run (see
/// [`glsl_words`]).
pub const GLSL_AVAILABLE: bool = true;

/// One way through the compiler to the GPU (or to the interpreter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Voice {
    /// Our SPIR-V at an optimization level, for a target environment (HLSL sources use the
    /// environment of their options).
    Spirv {
        /// `-O0` or `-O`.
        level: OptLevel,
        /// The environment an IR source is emitted for.
        env: TargetEnv,
    },
    /// Our GLSL at an optimization level, compiled to SPIR-V by glslang.
    Glsl {
        /// `-O0` or `-O`.
        level: OptLevel,
    },
    /// Our WGSL at an optimization level, compiled to SPIR-V by naga.
    Wgsl {
        /// `-O0` or `-O`.
        level: OptLevel,
    },
    /// The reference interpreter (IR sources only).
    Interp,
}

impl Voice {
    /// Our SPIR-V at `level` for vulkan1.2.
    pub fn spirv(level: OptLevel) -> Voice {
        Voice::Spirv {
            level,
            env: TargetEnv::Vulkan1_2,
        }
    }

    /// Every GPU voice this build has: our SPIR-V at `-O0` and at `-O`, our GLSL at `-O`
    /// once the GLSL backend is here ([`GLSL_AVAILABLE`]), and our WGSL at `-O` through naga.
    pub fn gpu_voices() -> Vec<Voice> {
        let mut v = vec![Voice::spirv(OptLevel::O0), Voice::spirv(OptLevel::O)];
        if GLSL_AVAILABLE {
            v.push(Voice::Glsl { level: OptLevel::O });
        }
        v.push(Voice::Wgsl { level: OptLevel::O });
        v
    }

    /// [`Voice::gpu_voices`] for `source`: without the WGSL voice when the WGSL backend
    /// refuses the shader with a refusal of its own (`OSB02xx`: what WGSL cannot express),
    /// whose text is returned beside; `Err` when the WGSL path fails any other way.
    pub fn gpu_voices_for(source: &Source) -> Result<(Vec<Voice>, Option<String>), String> {
        let mut voices = Voice::gpu_voices();
        match wgsl_text(OptLevel::O, source) {
            Ok(_) => Ok((voices, None)),
            Err(e) if e.contains("error[OSB02") => {
                voices.retain(|v| !matches!(v, Voice::Wgsl { .. }));
                Ok((voices, Some(e)))
            }
            Err(e) => Err(format!(
                "the WGSL path fails without a refusal of its own: {e}"
            )),
        }
    }

    /// True for the voices that run on the GPU.
    pub fn is_gpu(self) -> bool {
        !matches!(self, Voice::Interp)
    }
}

impl fmt::Display for Voice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = |l: &OptLevel| match l {
            OptLevel::O0 => "-O0",
            OptLevel::O => "-O",
        };
        match self {
            Voice::Spirv { level: l, env } => write!(f, "spirv {} {env}", level(l)),
            Voice::Glsl { level: l } => write!(f, "glsl {}", level(l)),
            Voice::Wgsl { level: l } => write!(f, "wgsl {}", level(l)),
            Voice::Interp => f.write_str("interp"),
        }
    }
}

/// What the voices compile.
#[derive(Clone, Debug)]
pub enum Source {
    /// An HLSL file and its options (each voice sets the optimization level and target).
    Hlsl {
        /// The file.
        path: PathBuf,
        /// Profile, entry, defines, layout...
        options: CompileOptions,
    },
    /// An IR module (it must verify) and the name of its compute entry point.
    Ir {
        /// The module as written or generated.
        module: Module,
        /// The entry point's name.
        entry: String,
    },
}

impl Source {
    /// The entry point's name in the source.
    pub fn entry(&self) -> &str {
        match self {
            Source::Hlsl { options, .. } => &options.entry,
            Source::Ir { entry, .. } => entry,
        }
    }

    /// The reflection of the source: for HLSL the facade's (with the options' layout
    /// rules), for IR `oneshader_reflect::reflect` with DXC's default rules (those the SPIR-V
    /// backend's default options use).
    pub fn reflect(&self) -> Result<oneshader::reflect::Reflection, OracleError> {
        match self {
            Source::Hlsl { path, options } => {
                let mut opts = options.clone().with_reflection();
                opts.emit_spirv = false;
                let out = Compiler::new().compile_file(path, &opts).map_err(|e| {
                    OracleError::Compile {
                        voice: "reflection".into(),
                        message: format!("{e}\n{}", e.diagnostics.render()),
                    }
                })?;
                out.reflection.ok_or_else(|| OracleError::Compile {
                    voice: "reflection".into(),
                    message: "the facade returned no reflection".into(),
                })
            }
            Source::Ir { module, .. } => {
                oneshader::reflect::reflect(module, &oneshader::reflect::LayoutRules::default())
                    .map_err(|e| OracleError::Compile {
                        voice: "reflection".into(),
                        message: e.to_string(),
                    })
            }
        }
    }
}

/// A program a GPU voice made: validated SPIR-V words and the entry point's name in them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// The words.
    pub words: Vec<u32>,
    /// The entry point (glslang names every entry point `main`).
    pub entry: String,
    /// Resources the program binds elsewhere than the source's Vulkan (set, binding): each
    /// `(vulkan, target)`. WGSL places resources by register class (docs/wgsl-backend.md
    /// "Bindings"), and naga's SPIR-V keeps those places.
    pub rebind: Vec<((u32, u32), (u32, u32))>,
    /// Texel buffers (by the source's Vulkan set and binding) the program declares as storage
    /// buffers of their texels: WGSL has no texel buffers (the reflection's
    /// `wgsl.storage_buffer`).
    pub as_buffers: Vec<(u32, u32)>,
}

fn diags(d: &[oneshader::Diagnostic]) -> String {
    d.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Compiles `source` the way `voice` does and validates the result. `Voice::Interp` makes
/// no program: `Err(OracleError::NotGpu)`.
pub fn compile(voice: Voice, source: &Source) -> Result<Program, OracleError> {
    let fail = |message: String| OracleError::Compile {
        voice: voice.to_string(),
        message,
    };
    let layout = match source {
        Source::Hlsl { options, .. } => options.layout,
        Source::Ir { .. } => BufferLayout::Dxc,
    };
    let (words, env) = match (voice, source) {
        (Voice::Interp, _) => return Err(OracleError::NotGpu),
        (Voice::Glsl { level }, _) => {
            let words = glsl_words(level, source).map_err(fail)?;
            let words = validate(words, TargetEnv::Vulkan1_2, layout).map_err(|message| {
                OracleError::Invalid {
                    voice: voice.to_string(),
                    message,
                }
            })?;
            return Ok(Program {
                words,
                entry: "main".into(),
                rebind: Vec::new(),
                as_buffers: Vec::new(),
            });
        }
        (Voice::Wgsl { level }, _) => {
            let (words, entry) = wgsl_words(level, source).map_err(fail)?;
            // naga's SPIR-V goes through the system validator only (see
            // `oneshader_test_tools::spirv_val_system`: naga 30 breaks a rule newer than it).
            oneshader_test_tools::spirv_val_system(&words, &["--target-env", "vulkan1.2"])
                .map_err(|message| OracleError::Invalid {
                    voice: voice.to_string(),
                    message,
                })?;
            // Where the WGSL output put each resource, as the reflection states it, and which
            // texel buffers it reads as storage buffers.
            let reflection = source.reflect()?;
            let as_buffers = reflection
                .resources
                .iter()
                .filter(|r| r.wgsl.as_ref().is_some_and(|w| w.storage_buffer))
                .map(|r| (r.set, r.binding))
                .collect();
            let rebind = reflection
                .resources
                .iter()
                .filter_map(|r| {
                    let w = r.wgsl.as_ref()?;
                    ((w.group, w.binding) != (r.set, r.binding))
                        .then_some(((r.set, r.binding), (w.group, w.binding)))
                })
                .collect();
            return Ok(Program {
                words,
                entry,
                rebind,
                as_buffers,
            });
        }
        (Voice::Spirv { level, .. }, Source::Hlsl { path, options }) => {
            let opts = options.clone().opt_level(level);
            let out = Compiler::new()
                .compile_file(path, &opts)
                .map_err(|e| fail(format!("{e}\n{}", e.diagnostics.render())))?;
            (out.spirv, options.target_env)
        }
        (Voice::Spirv { level, env }, Source::Ir { module, .. }) => {
            let mut m = module.clone();
            if level == OptLevel::O {
                optimize(OptLevel::O)
                    .run(&mut m)
                    .map_err(|e| fail(format!("-O failed: {e}")))?;
            }
            let legal = oneshader::backends::prepare(&mut m, oneshader::backends::Target::Spirv)
                .map_err(|d| fail(diags(&d)))?;
            let words =
                spirv::emit(&legal, &spirv::Options::for_env(env)).map_err(|d| fail(diags(&d)))?;
            (words, env)
        }
    };
    let words = validate(words, env, layout).map_err(|message| OracleError::Invalid {
        voice: voice.to_string(),
        message,
    })?;
    Ok(Program {
        words,
        entry: source.entry().to_string(),
        rebind: Vec::new(),
        as_buffers: Vec::new(),
    })
}

/// Validates with both `spirv-val`s for `env`: with `--relax-block-layout` for Vulkan 1.0
/// (DXC's relaxed layout needs VK_KHR_relaxed_block_layout there) and
/// `--scalar-block-layout` when the buffers follow the scalar or D3D rules (the harness's
/// device enables `scalarBlockLayout`).
fn validate(words: Vec<u32>, env: TargetEnv, layout: BufferLayout) -> Result<Vec<u32>, String> {
    let name = env.spirv_val_name();
    let mut args: Vec<&str> = vec!["--target-env", &name];
    if env == TargetEnv::Vulkan1_0 {
        args.push("--relax-block-layout");
    }
    if matches!(layout, BufferLayout::Scalar | BufferLayout::Dx) {
        args.push("--scalar-block-layout");
    }
    oneshader_test_tools::spirv_val_args(&words, &args)?;
    Ok(words)
}

/// The GLSL voice's words: our GLSL for the source at `level` (for HLSL the facade with the
/// GLSL target, for IR `optimize(level)`, `prepare(Target::Glsl)` and `glsl::emit` with the
/// layout rules the SPIR-V voices use), compiled by `glslangValidator -V --target-env
/// vulkan1.2 -S comp`.
pub fn glsl_words(level: OptLevel, source: &Source) -> Result<Vec<u32>, String> {
    use oneshader::Target;
    use oneshader::backends::glsl;
    let text = match source {
        Source::Hlsl { path, options } => {
            let opts = options.clone().opt_level(level).target(Target::Glsl);
            let out = Compiler::new()
                .compile_file(path, &opts)
                .map_err(|e| format!("{e}\n{}", e.diagnostics.render()))?;
            out.glsl
                .ok_or_else(|| "the facade returned no GLSL".to_string())?
        }
        Source::Ir { module, entry } => {
            let mut m = module.clone();
            if level == OptLevel::O {
                optimize(OptLevel::O)
                    .run(&mut m)
                    .map_err(|e| format!("-O failed: {e}"))?;
            }
            let legal =
                oneshader::backends::prepare(&mut m, Target::Glsl).map_err(|d| diags(&d))?;
            glsl::emit(&legal, &glsl::Options::for_entry(entry.as_str())).map_err(|d| diags(&d))?
        }
    };
    oneshader_test_tools::glslang(&text, oneshader_test_tools::GlslStage::Compute)
        .map_err(|e| format!("glslang rejects the GLSL backend's output: {e}"))
}

/// Our WGSL for `source` at `level`: for HLSL the facade with the WGSL target, for IR
/// `optimize(level)`, `prepare(Target::Wgsl)` and `wgsl::emit` with the layout rules the
/// SPIR-V voices use.
pub fn wgsl_text(level: OptLevel, source: &Source) -> Result<String, String> {
    use oneshader::Target;
    use oneshader::backends::wgsl;
    match source {
        Source::Hlsl { path, options } => {
            let opts = options.clone().opt_level(level).target(Target::Wgsl);
            let out = Compiler::new()
                .compile_file(path, &opts)
                .map_err(|e| format!("{e}\n{}", e.diagnostics.render()))?;
            out.wgsl
                .ok_or_else(|| "the facade returned no WGSL".to_string())
        }
        Source::Ir { module, entry } => {
            let mut m = module.clone();
            if level == OptLevel::O {
                optimize(OptLevel::O)
                    .run(&mut m)
                    .map_err(|e| format!("-O failed: {e}"))?;
            }
            let legal =
                oneshader::backends::prepare(&mut m, Target::Wgsl).map_err(|d| diags(&d))?;
            wgsl::emit(&legal, &wgsl::Options::for_entry(entry.as_str())).map_err(|d| diags(&d))
        }
    }
}

/// The WGSL voice's words and entry point: [`wgsl_text`], parsed, validated and written as
/// SPIR-V by naga (`oneshader_test_tools::naga_spirv`). The WGSL entry point keeps the
/// source's name.
pub fn wgsl_words(level: OptLevel, source: &Source) -> Result<(Vec<u32>, String), String> {
    let text = wgsl_text(level, source)?;
    let words = oneshader_test_tools::naga_spirv(&text)
        .map_err(|e| format!("naga rejects the WGSL backend's output: {e}\n{text}"))?;
    Ok((words, source.entry().to_string()))
}
