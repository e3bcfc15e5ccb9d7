//! The compiler facade: HLSL source in, SPIR-V words (or GLSL text), diagnostics, reflection
//! and IR out.
//!
//! ```text
//! source ──front end──> IR ──reflect──> Reflection
//!                        └──specialize (always), optimizer (-O)──> IR ──target::emit──>
//!                           prepare(target) ──> Legal ──SPIR-V backend──> words
//!                                                     ──GLSL, WGSL, MSL backend──> text
//! ```
//!
//! [`Compiler`] holds what outlives one compilation (in-memory include files, whether the file
//! system may be read); [`CompileOptions`] is one compilation's settings, with dxc's defaults.
//! The CLI's `oneshader compile` is a thin layer over this module, so a tool compiling in
//! process gets exactly what the command line produces.
//!
//! Diagnostics this module adds to the front end's (also listed in docs/diagnostics.md):
//!
//! | code | meaning |
//! |---|---|
//! | OSC0052 | the legalization pipeline failed ([`Phase::Legalization`]) |
//! | OSC0053 | the backend (SPIR-V, GLSL, WGSL or MSL) refused the module ([`Phase::Backend`]; its own `OSB` diagnostics come first) |
//! | OSC0056 | reflection failed: a buffer's contents have no layout under its rule ([`Phase::Reflection`]) |
//! | OSC0057 | a spec-constant override names no spec constant, or its value does not fit the constant's type ([`Phase::Specialization`]) |
//! | OSC0059 | a target this build has no backend for ([`Phase::Backend`]) |
//!
//! A failing optimization pass is not an error: the specialized module is used and a warning
//! (OSO0001) says why.

use std::fmt;
use std::path::{Path, PathBuf};

pub use oneshader_backends::Target;
#[cfg(feature = "glsl")]
use oneshader_backends::glsl;
#[cfg(feature = "msl")]
use oneshader_backends::msl;
use oneshader_backends::spirv::{self, LayoutRule};
#[cfg(feature = "wgsl")]
use oneshader_backends::wgsl;
use oneshader_frontends::hlsl::{self, FsLoader, MemoryLoader, SourceLoader};
use oneshader_ir::diag::{Diagnostic, FileId, SourceMap};
use oneshader_ir::{Module, Op, Stage};
use oneshader_passes::Pass;
use oneshader_passes::pipeline;
pub use oneshader_passes::specialize_spec::SpecValue;
use oneshader_passes::specialize_spec::SpecializeSpecConstants;
use oneshader_serialize::{CacheKey, SourceLocations};

pub use oneshader_backends::spirv::TargetEnv;
pub use oneshader_frontends::hlsl::{BindingShift, MacroOp, RegisterBinding};
pub use oneshader_passes::pipeline::OptLevel;

use crate::reflect::{self, LayoutRules, Reflection};

/// Which buffer layout rules to follow (dxc's `-fvk-use-*-layout` options).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BufferLayout {
    /// DXC's default: relaxed std140 for constant buffers, relaxed std430 for storage buffers
    /// and push constants (a vector may start at its component alignment when it does not
    /// straddle a 16-byte boundary).
    #[default]
    Dxc,
    /// Strict std140 / std430 (`-fvk-use-gl-layout`).
    Gl,
    /// D3D's constant-buffer packing, scalar layout for the rest (`-fvk-use-dx-layout`).
    Dx,
    /// Scalar block layout everywhere (`-fvk-use-scalar-layout`).
    Scalar,
}

impl BufferLayout {
    /// The rule of each kind of buffer.
    pub fn rules(self) -> LayoutRules {
        let (constant_buffer, storage_buffer, push_constant) = match self {
            BufferLayout::Dxc => (
                LayoutRule::RelaxedStd140,
                LayoutRule::RelaxedStd430,
                LayoutRule::RelaxedStd430,
            ),
            BufferLayout::Gl => (LayoutRule::Std140, LayoutRule::Std430, LayoutRule::Std430),
            BufferLayout::Dx => (
                LayoutRule::DxCbuffer,
                LayoutRule::Scalar,
                LayoutRule::Scalar,
            ),
            BufferLayout::Scalar => (LayoutRule::Scalar, LayoutRule::Scalar, LayoutRule::Scalar),
        };
        LayoutRules {
            constant_buffer,
            storage_buffer,
            push_constant,
            texture_buffer: self.texture_buffer_rule(),
        }
    }
}

impl BufferLayout {
    /// The rule of texture buffers (`tbuffer`, `TextureBuffer<T>`): DXC lays them out like
    /// storage buffers, except under `-fvk-use-dx-layout`, where they get D3D's
    /// constant-buffer packing.
    pub fn texture_buffer_rule(self) -> LayoutRule {
        match self {
            BufferLayout::Dx => LayoutRule::DxCbuffer,
            BufferLayout::Dxc => LayoutRule::RelaxedStd430,
            BufferLayout::Gl => LayoutRule::Std430,
            BufferLayout::Scalar => LayoutRule::Scalar,
        }
    }
}

/// Names a specialization constant: by its `[[vk::constant_id(N)]]` number or by the name
/// of its HLSL declaration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SpecConstKey {
    /// The constant id.
    Id(u32),
    /// The declared name.
    Name(String),
}

impl std::str::FromStr for SpecConstKey {
    type Err = std::convert::Infallible;

    /// A number is an id, anything else a name.
    fn from_str(s: &str) -> Result<SpecConstKey, Self::Err> {
        Ok(match s.parse::<u32>() {
            Ok(id) => SpecConstKey::Id(id),
            Err(_) => SpecConstKey::Name(s.to_string()),
        })
    }
}

impl fmt::Display for SpecConstKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecConstKey::Id(id) => write!(f, "{id}"),
            SpecConstKey::Name(n) => f.write_str(n),
        }
    }
}

/// Parses a command-line spec-constant value: `true`/`false`, an integer (decimal, `0x` hex,
/// negative), or a float. The constant's type decides later whether it fits.
pub fn parse_spec_value(text: &str) -> Option<SpecValue> {
    let t = text.trim();
    match t {
        "true" => return Some(SpecValue::Bool(true)),
        "false" => return Some(SpecValue::Bool(false)),
        _ => {}
    }
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t),
    };
    let int = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Some(h) => i128::from_str_radix(h, 16).ok(),
        None => body.parse::<i128>().ok(),
    };
    if let Some(v) = int {
        return Some(SpecValue::Int(if neg { -v } else { v }));
    }
    t.parse::<f64>().ok().map(SpecValue::Float)
}

/// The overrides as the `specialize_spec` pass takes them: keys resolved to ids (a name is a
/// spec constant's HLSL name), values fitted to the constant's type (an integer given for a
/// float constant is that float). An unknown key is an error naming the known ones.
fn resolve_spec_constants(
    m: &Module,
    overrides: &[(SpecConstKey, SpecValue)],
) -> Result<Vec<(u32, SpecValue)>, String> {
    let specs: Vec<(u32, Option<&str>, Option<Op>)> = m
        .children(m.root())
        .filter(|&c| m.op(c) == Op::SpecConst)
        .filter_map(|c| {
            let id = m.imm_operand(c, 0)?;
            Some((id, m.name(c), m.ty(c).map(|t| m.op(t))))
        })
        .collect();
    let known = || {
        let list: Vec<String> = specs
            .iter()
            .map(|(id, n, _)| match n {
                Some(n) => format!("{id} ({n})"),
                None => id.to_string(),
            })
            .collect();
        if list.is_empty() {
            "the shader has none".to_string()
        } else {
            format!("known: {}", list.join(", "))
        }
    };
    let mut out = Vec::new();
    for (key, value) in overrides {
        let found = specs.iter().find(|(id, name, _)| match key {
            SpecConstKey::Id(k) => id == k,
            SpecConstKey::Name(k) => *name == Some(k.as_str()),
        });
        let Some(&(id, _, op)) = found else {
            return Err(format!("no specialization constant `{key}` ({})", known()));
        };
        let value = match (op, *value) {
            (Some(o), SpecValue::Int(v)) if o.is_float_type() => SpecValue::Float(v as f64),
            (Some(o), SpecValue::Bool(b)) if o.is_int_type() => SpecValue::Int(b as i128),
            (_, v) => v,
        };
        out.push((id, value));
    }
    Ok(out)
}

/// Default storage order of matrices (dxc's `-Zpc` / `-Zpr`); `row_major` and `column_major`
/// on a declaration, and `#pragma pack_matrix`, override it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MatrixOrder {
    /// Column-major (HLSL's default, `-Zpc`).
    #[default]
    ColumnMajor,
    /// Row-major (`-Zpr`).
    RowMajor,
}

/// The settings of one compilation. [`Default`] gives dxc's defaults with profile `ps_6_0`
/// and entry `main`; [`CompileOptions::new`] takes the profile.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    /// The entry point (`-E`). Default `main`.
    pub entry: String,
    /// The shader profile (`-T`): `vs_6_0`, `ps_6_0`, `cs_6_0`... Default `ps_6_0`.
    pub profile: String,
    /// `-D NAME[=VALUE]` and `-U NAME`, applied in order.
    pub macros: Vec<MacroOp>,
    /// `-I` folders, searched after the including file's folder.
    pub include_dirs: Vec<PathBuf>,
    /// `-O0` (legalization only) or `-O` (the optimizer). Default `-O`.
    pub opt_level: OptLevel,
    /// The SPIR-V target environment. Default vulkan1.2.
    pub target_env: TargetEnv,
    /// Buffer layout rules. Default: DXC's.
    pub layout: BufferLayout,
    /// Default matrix storage order. Default column-major.
    pub matrix_order: MatrixOrder,
    /// `-enable-16bit-types`: `half` and the `min16` types are 16-bit.
    pub enable_16bit_types: bool,
    /// `-HV`: the HLSL version (2016, 2018, 2021). Default 2021.
    pub hlsl_version: u32,
    /// `-fvk-invert-y`: negate `SV_Position.y` in vertex shaders.
    pub invert_y: bool,
    /// `-fvk-use-dx-position-w`: `SV_Position.w` is `1 / w` in pixel shaders.
    pub dx_position_w: bool,
    /// `-fvk-support-nonzero-base-instance`: a vertex shader's `SV_InstanceID` is
    /// `InstanceIndex - BaseInstance`, as D3D counts it (default: `InstanceIndex`).
    pub nonzero_base_instance: bool,
    /// `-fvk-support-nonzero-base-vertex`: a vertex shader's `SV_VertexID` is
    /// `VertexIndex - BaseVertex`, as D3D counts it (default: `VertexIndex`).
    pub nonzero_base_vertex: bool,
    /// `-fvk-b-shift` / `-fvk-t-shift` / `-fvk-s-shift` / `-fvk-u-shift`.
    pub binding_shifts: Vec<BindingShift>,
    /// `-auto-binding-space N`: the descriptor set of resources whose set the source does not
    /// give. Default 0.
    pub default_space: Option<u32>,
    /// `-fvk-bind-register xK SPACE BINDING SET`: explicit set and binding per register; when
    /// any is given, every resource must have one (OSH1031). Default none.
    pub bind_registers: Vec<RegisterBinding>,
    /// `-fvk-bind-globals BINDING SET`: binding and set of `$Globals`. Default: the next free
    /// binding.
    pub bind_globals: Option<(u32, u32)>,
    /// `-fvk-bind-resource-heap BINDING SET`: binding and set of `ResourceDescriptorHeap`.
    /// Default: the next free binding of the default set after every other resource.
    pub bind_resource_heap: Option<(u32, u32)>,
    /// `-fvk-bind-sampler-heap BINDING SET`: binding and set of `SamplerDescriptorHeap`.
    /// Default: the next free binding after `ResourceDescriptorHeap`'s.
    pub bind_sampler_heap: Option<(u32, u32)>,
    /// `-fvk-bind-counter-heap BINDING SET`: binding and set of the counters of the buffers
    /// of `ResourceDescriptorHeap` (DXC's `counter_var_ResourceDescriptorHeap`; by default the
    /// next free binding after the heap).
    pub bind_counter_heap: Option<(u32, u32)>,
    /// `-fspv-preserve-bindings`: keep every declared resource and buffer (with its binding)
    /// in the output, used or not. Default off.
    pub preserve_bindings: bool,
    /// `-fspv-use-unknown-image-format`: storage textures and texel buffers without
    /// `[[vk::image_format]]` keep the Unknown format. Default off: DXC's inferred format
    /// (`float4` Rgba32f, `uint2` Rg32ui, `int` R32i; three components stay Unknown).
    pub unknown_image_format: bool,
    /// `-fvk-auto-shift-bindings`: resources without a `register` take the first free binding
    /// from their register class's `-fvk-*-shift` (the class their type binds as) rather than
    /// from 0. Default off.
    pub auto_shift_bindings: bool,
    /// `-fspv-flatten-resource-arrays`: an array of `N` resources becomes `N` resources at
    /// consecutive bindings (`t[0]`, `t[1]`, ...), for every target; an access through a
    /// run-time index becomes a switch over the elements, as DXC builds it (an index out of
    /// range accesses nothing and reads zero). Unsized arrays, arrays of arrays, buffers with
    /// counters and what a switch cannot hold (an element passed to a function, an access in
    /// a loop's continue block) are refused (OSG0013). Default off.
    pub flatten_resource_arrays: bool,
    /// `-denorm preserve|ftz`: the 32-bit float denormal mode of the entry point. Default none
    /// (`-denorm any`).
    pub denorm: Option<spirv::DenormMode>,
    /// Specialization-constant overrides (`--spec-const ID|NAME=VALUE`): each named
    /// `[[vk::constant_id]]` constant becomes that value before the optimizer runs, so it
    /// folds; the others stay specialization constants. Default none.
    pub spec_constants: Vec<(SpecConstKey, SpecValue)>,
    /// Emit `OpName`/`OpMemberName`. Default on.
    pub debug_names: bool,
    /// The SPIR-V `OpEntryPoint` name (`-fspv-entrypoint-name=NAME`) instead of the HLSL
    /// entry point's; SPIR-V only, one entry point only (OSB0014). Default none.
    pub spirv_entry_point_name: Option<String>,
    /// The only SPIR-V extensions the output may declare (`-fspv-extension=`, once per
    /// extension; `KHR` permits every `SPV_KHR_*`); another one needed is OSB0015. SPIR-V only.
    /// Default none: whatever the module needs.
    pub spirv_allowed_extensions: Option<Vec<String>>,
    /// `-fspv-preserve-interface`: the SPIR-V entry point lists every stage input and output
    /// the module declares, used or not (modules of one entry point). SPIR-V only. Default
    /// off.
    pub spirv_preserve_interface: bool,
    /// `-fspv-reflect`: the SPIR-V output carries DXC's reflection decorations, each stage
    /// variable's HLSL semantic (`UserSemantic`), each bound resource's HLSL type
    /// (`UserTypeGOOGLE`, `"texture2d:<float>"`) and each buffer's counter
    /// (`CounterBuffer`), with `SPV_GOOGLE_hlsl_functionality1` and `SPV_GOOGLE_user_type`.
    /// SPIR-V outputs only: GLSL, WGSL and MSL have no such decorations (the command line
    /// refuses `-fspv-reflect` with them). Default off.
    pub spirv_reflect: bool,
    /// Source-level debug information in the SPIR-V output (`-Zi`, `-fspv-debug=line`,
    /// `-Qembed_debug`). Default none.
    pub debug_info: DebugInfo,
    /// What the backend produces: [`Target::Spirv`] (default, [`CompileOutput::spirv`]) or
    /// [`Target::Glsl`] (GLSL 4.50 for Vulkan, [`CompileOutput::glsl`]) or [`Target::Wgsl`]
    /// (WGSL, [`CompileOutput::wgsl`]) or [`Target::Msl`] (Metal Shading Language 2.4,
    /// [`CompileOutput::msl`]).
    pub target: Target,
    /// MSL resource indices by (stage, set, binding) (`--msl-binding-map FILE`); `None`: the
    /// MSL backend's default rule (docs/msl-backend.md). Used when the target is MSL.
    #[cfg(feature = "msl")]
    pub msl_binding_map: Option<msl::BindingMap>,
    /// WGSL resource places (`--wgsl-binding-map FILE`); what it does not list is placed by
    /// the rules of docs/wgsl-backend.md "Bindings". Used when the target is WGSL, and by the
    /// reflection's `wgsl` places for every target.
    pub wgsl_binding_map: Option<oneshader_backends::bindings::WgslBindingMap>,
    /// The Metal Shading Language version of the MSL output (`--msl-version 2.1..3.0`,
    /// default 2.4). Used when the target is MSL.
    #[cfg(feature = "msl")]
    pub msl_version: msl::MslVersion,
    /// The `[[buffer(n)]]` index of the MSL buffer-sizes buffer, declared when a shader reads
    /// the length of a runtime array (`--msl-buffer-sizes-index N`, default 25 as
    /// spirv-cross's). Used when the target is MSL.
    #[cfg(feature = "msl")]
    pub msl_buffer_sizes_index: u32,
    /// Run the backend of [`CompileOptions::target`] (the name is from when SPIR-V was the only
    /// one). Default on; off when only the IR or the reflection is wanted.
    /// Off, the module may be linked later (`oneshader link`): a function declared without a
    /// body that is called becomes an import and an `export` function an export
    /// (docs/linking.md; library profiles export either way, but import only with this off).
    pub emit_spirv: bool,
    /// Build the [`Reflection`] ([`CompileOutput::reflection`]). Default off.
    pub reflect: bool,
    /// Keep a copy of the module as lowered, before legalization
    /// ([`IrModules::unoptimized`]). Default off.
    pub keep_unoptimized_ir: bool,
    /// Keep the module the backend reads, after optimization and legalization
    /// ([`IrModules::final_module`]). Default off.
    pub keep_final_ir: bool,
}

impl Default for CompileOptions {
    fn default() -> CompileOptions {
        CompileOptions {
            entry: "main".into(),
            profile: "ps_6_0".into(),
            macros: Vec::new(),
            include_dirs: Vec::new(),
            opt_level: OptLevel::O,
            target_env: TargetEnv::default(),
            layout: BufferLayout::default(),
            matrix_order: MatrixOrder::default(),
            enable_16bit_types: false,
            hlsl_version: 2021,
            invert_y: false,
            dx_position_w: false,
            nonzero_base_instance: false,
            nonzero_base_vertex: false,
            binding_shifts: Vec::new(),
            default_space: None,
            bind_registers: Vec::new(),
            bind_globals: None,
            bind_resource_heap: None,
            bind_sampler_heap: None,
            bind_counter_heap: None,
            preserve_bindings: false,
            unknown_image_format: false,
            auto_shift_bindings: false,
            flatten_resource_arrays: false,
            spec_constants: Vec::new(),
            denorm: None,
            debug_names: true,
            spirv_entry_point_name: None,
            spirv_allowed_extensions: None,
            spirv_preserve_interface: false,
            spirv_reflect: false,
            debug_info: DebugInfo::None,
            target: Target::Spirv,
            #[cfg(feature = "msl")]
            msl_binding_map: None,
            wgsl_binding_map: None,
            #[cfg(feature = "msl")]
            msl_version: msl::MslVersion::V2_4,
            #[cfg(feature = "msl")]
            msl_buffer_sizes_index: msl::DEFAULT_BUFFER_SIZES_INDEX,
            emit_spirv: true,
            reflect: false,
            keep_unoptimized_ir: false,
            keep_final_ir: false,
        }
    }
}

impl CompileOptions {
    /// Options for `profile` (`cs_6_0`...), everything else at its default.
    pub fn new(profile: impl Into<String>) -> CompileOptions {
        CompileOptions {
            profile: profile.into(),
            ..CompileOptions::default()
        }
    }

    /// Sets the entry point.
    pub fn entry(mut self, entry: impl Into<String>) -> CompileOptions {
        self.entry = entry.into();
        self
    }

    /// Adds `-D NAME=VALUE` (`value` `None`: `-D NAME`, which defines it as `1`).
    pub fn define(mut self, name: &str, value: Option<&str>) -> CompileOptions {
        self.macros.push(MacroOp::Define(match value {
            Some(v) => format!("{name}={v}"),
            None => name.to_string(),
        }));
        self
    }

    /// Adds an `-I` folder.
    pub fn include_dir(mut self, dir: impl Into<PathBuf>) -> CompileOptions {
        self.include_dirs.push(dir.into());
        self
    }

    /// Sets the optimization level.
    pub fn opt_level(mut self, level: OptLevel) -> CompileOptions {
        self.opt_level = level;
        self
    }

    /// Sets the target environment.
    pub fn target_env(mut self, env: TargetEnv) -> CompileOptions {
        self.target_env = env;
        self
    }

    /// Sets the backend's target.
    pub fn target(mut self, target: Target) -> CompileOptions {
        self.target = target;
        self
    }

    /// Asks for the reflection.
    pub fn with_reflection(mut self) -> CompileOptions {
        self.reflect = true;
        self
    }

    /// The HLSL front end's options for these compile options: the entry, profile, macros,
    /// include directories and every binding and layout option, converted as the pipeline
    /// converts them. A tool that runs the front end itself (to inspect the unoptimized IR,
    /// or to lower with its own loader) uses this instead of re-reading `-T`/`-E`/`-D`/`-I`.
    ///
    /// ```
    /// use oneshader::frontends::hlsl;
    /// use oneshader::CompileOptions;
    ///
    /// let o = CompileOptions::from_dxc_args(["-T", "cs_6_0", "-E", "Main", "-DN=4"])?;
    /// let fe = o.front_end_options();
    /// assert_eq!((fe.entry.as_str(), fe.profile.as_str()), ("Main", "cs_6_0"));
    /// let src = "RWStructuredBuffer<uint> b; [numthreads(N,1,1)] void Main(uint i : SV_DispatchThreadID) { b[i] = i; }";
    /// let mut sources = oneshader::SourceMap::new();
    /// let r = hlsl::compile_text(
    ///     std::path::Path::new("t.hlsl"),
    ///     src,
    ///     &fe,
    ///     &hlsl::MemoryLoader::new(),
    ///     &mut sources,
    /// );
    /// assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    /// assert!(r.module.is_some());
    /// # Ok::<(), oneshader::dxc_args::ArgError>(())
    /// ```
    pub fn front_end_options(&self) -> hlsl::CompileOptions {
        hlsl::CompileOptions {
            entry: self.entry.clone(),
            profile: self.profile.clone(),
            preprocess: hlsl::PreprocessOptions {
                macros: self.macros.clone(),
                include_dirs: self.include_dirs.clone(),
            },
            enable_16bit_types: self.enable_16bit_types,
            row_major: self.matrix_order == MatrixOrder::RowMajor,
            hlsl_version: self.hlsl_version,
            invert_y: self.invert_y,
            dx_position_w: self.dx_position_w,
            nonzero_base_instance: self.nonzero_base_instance,
            nonzero_base_vertex: self.nonzero_base_vertex,
            binding_shifts: self.binding_shifts.clone(),
            dx_layout: self.layout == BufferLayout::Dx,
            preserve_bindings: self.preserve_bindings,
            default_space: self.default_space,
            unknown_image_format: self.unknown_image_format,
            auto_shift_bindings: self.auto_shift_bindings,
            flatten_resource_arrays: self.flatten_resource_arrays,
            bind_registers: self.bind_registers.clone(),
            bind_globals: self.bind_globals,
            bind_resource_heap: self.bind_resource_heap,
            bind_sampler_heap: self.bind_sampler_heap,
            bind_counter_heap: self.bind_counter_heap,
            // A module kept as IR may be linked: prototypes become imports.
            allow_imports: !self.emit_spirv,
        }
    }

    /// The optimizer's settings beyond the level ([`pipeline::optimizer`]).
    pub fn optimize_options(&self) -> pipeline::OptimizeOptions {
        pipeline::OptimizeOptions {
            keep_unused_resources: self.preserve_bindings,
        }
    }

    /// The SPIR-V backend's options.
    pub fn spirv_options(&self) -> spirv::Options {
        let rules = self.layout.rules();
        spirv::Options {
            target_env: self.target_env,
            cbuffer_rule: rules.constant_buffer,
            storage_rule: rules.storage_buffer,
            push_constant_rule: rules.push_constant,
            tbuffer_rule: rules.texture_buffer,
            debug_names: self.debug_names,
            denorm: self.denorm,
            entry_point_name: self.spirv_entry_point_name.clone(),
            allowed_extensions: self.spirv_allowed_extensions.clone(),
            // The sources are the compilation's: `finish` fills them in.
            line_info: None,
            preserve_interface: self.spirv_preserve_interface,
            reflect: self.spirv_reflect,
        }
    }

    /// A key of every option that can change what a compilation with these options produces
    /// (equal options give equal keys; `Eq`/`Hash` on the options themselves would have to
    /// compare floats of spec-constant values). A tool's cache combines it with the sources
    /// and the compiler's identity ([`crate::key::compiler_identity`]);
    /// [`CompileOutput::cache_key`] is the module key that already hashes the preprocessed
    /// sources.
    ///
    /// ```
    /// use oneshader::CompileOptions;
    ///
    /// let a = CompileOptions::new("ps_6_0").define("FAST", Some("1"));
    /// assert_eq!(a.cache_key(), a.clone().cache_key());
    /// assert_ne!(a.cache_key(), a.clone().define("FAST", Some("0")).cache_key());
    /// ```
    pub fn cache_key(&self) -> CacheKey {
        crate::key::options_key(self)
    }

    /// The GLSL backend's options (the same layout rules as SPIR-V's).
    #[cfg(feature = "glsl")]
    pub fn glsl_options(&self) -> glsl::Options {
        let rules = self.layout.rules();
        glsl::Options {
            entry: None,
            cbuffer_rule: rules.constant_buffer,
            storage_rule: rules.storage_buffer,
            push_constant_rule: rules.push_constant,
            tbuffer_rule: rules.texture_buffer,
            denorm: self.denorm,
            line_directives: None,
        }
    }

    /// The MSL backend's options (the same layout rules as SPIR-V's, and the binding map).
    #[cfg(feature = "msl")]
    pub fn msl_options(&self) -> msl::Options {
        let rules = self.layout.rules();
        msl::Options {
            entry: None,
            cbuffer_rule: rules.constant_buffer,
            storage_rule: rules.storage_buffer,
            push_constant_rule: rules.push_constant,
            tbuffer_rule: rules.texture_buffer,
            binding_map: self.msl_binding_map.clone(),
            buffer_sizes_index: self.msl_buffer_sizes_index,
            version: self.msl_version,
            line_comments: None,
        }
    }

    /// The WGSL backend's options (the same layout rules as SPIR-V's).
    #[cfg(feature = "wgsl")]
    pub fn wgsl_options(&self) -> wgsl::Options {
        let rules = self.layout.rules();
        wgsl::Options {
            entry: None,
            cbuffer_rule: rules.constant_buffer,
            storage_rule: rules.storage_buffer,
            push_constant_rule: rules.push_constant,
            tbuffer_rule: rules.texture_buffer,
            binding_map: self.wgsl_binding_map.clone(),
            line_comments: None,
        }
    }
}

/// The reflection of resource arrays `-fspv-flatten-resource-arrays` flattens after `-O`:
/// each becomes its elements, `name[k]` at binding `binding + k` (register `number + k`, WGSL
/// binding `+ k`), as `flatten_resource_arrays` will declare them.
fn expand_flattened(r: &mut Reflection) {
    let mut out = Vec::with_capacity(r.resources.len());
    for res in std::mem::take(&mut r.resources) {
        match res.array_size {
            Some(n) if n > 0 => {
                for k in 0..n {
                    let mut e = res.clone();
                    e.name = format!("{}[{k}]", res.name);
                    e.binding = res.binding + k;
                    e.array_size = None;
                    if let Some(reg) = e.register.as_mut() {
                        reg.number = reg.number.map(|x| x + k);
                    }
                    if let Some(w) = e.wgsl.as_mut() {
                        w.binding += k;
                    }
                    out.push(e);
                }
            }
            _ => out.push(res),
        }
    }
    r.resources = out;
}

/// Records in the reflection where WGSL output binds each resource (the same rules the
/// WGSL backend applies, `oneshader_backends::bindings`), matched by name and Vulkan set and
/// binding. Map entries for other stages do not apply. A resource the rules cannot place
/// has no `wgsl` place (the WGSL backend refuses it, naming it).
fn add_wgsl_places(
    r: &mut Reflection,
    m: &oneshader_ir::Module,
    stage: Option<oneshader_ir::Stage>,
    map: Option<&oneshader_backends::bindings::WgslBindingMap>,
) {
    let Ok((places, _warnings)) = oneshader_backends::bindings::wgsl_places(m, stage, map) else {
        return;
    };
    for g in m.globals() {
        let Some(place) = places.get(&g.id()) else {
            continue;
        };
        let name = m.name(g.id()).unwrap_or("");
        let Some(d) = m.find_decoration(g.id(), oneshader_ir::Op::Binding) else {
            continue;
        };
        let vulkan = (m.imm_operand(d, 0), m.imm_operand(d, 1));
        if let Some(res) = r
            .resources
            .iter_mut()
            .find(|res| res.name == name && (Some(res.set), Some(res.binding)) == vulkan)
        {
            res.wgsl = Some(reflect::WgslBinding {
                group: place.group,
                binding: place.binding,
                storage_buffer: oneshader_passes::texel_buffers::converts(m, g.id()),
            });
        }
    }
}

/// Records the MSL output's resource indices in the reflection: each resource (matched by
/// set, binding and name) and push-constant block (by name) the entry point uses, and the
/// buffer-sizes buffer.
#[cfg(feature = "msl")]
fn add_msl_indices(r: &mut Reflection, interface: &msl::Interface) {
    let index = |x: &msl::ResourceIndex| reflect::MslIndex {
        kind: x.kind.spelling().to_string(),
        index: x.index,
        count: x.count,
    };
    for x in &interface.resources {
        match x.set_binding {
            Some((set, binding)) => {
                if let Some(res) = r
                    .resources
                    .iter_mut()
                    .find(|res| res.set == set && res.binding == binding && res.name == x.name)
                {
                    res.msl = Some(index(x));
                }
            }
            None => {
                if let Some(p) = r.push_constants.iter_mut().find(|p| p.name == x.name) {
                    p.msl = Some(index(x));
                }
            }
        }
    }
    r.msl_buffer_sizes = interface.buffer_sizes;
}

/// Source-level debug information ([`CompileOptions::debug_info`]): in SPIR-V as each variant
/// says; in GLSL every variant is `#line N "file"` directives, in WGSL and MSL `// file:line`
/// comments, before each statement whose HLSL line differs from the previous one's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DebugInfo {
    /// None (the default).
    #[default]
    None,
    /// `-Zi` / `-fspv-debug=line`: `OpSource` naming the main file, an `OpString` per source
    /// file (includes are their own), `OpLine`/`OpNoLine` on instructions from the IR's
    /// positions, which survive `-O` (`oneshader_ir::positions`).
    Lines,
    /// [`DebugInfo::Lines`] with the main file's text in `OpSource` (`-Zi -Qembed_debug`).
    LinesWithSource,
    /// `-fspv-debug=vulkan`: NonSemantic.Shader.DebugInfo.100 as DXC writes it (compilation
    /// unit, sources, types, functions, scopes, `DebugLine`s, local variables, entry points;
    /// `oneshader_backends::spirv::debuginfo`) instead of `OpLine`.
    Vulkan,
    /// [`DebugInfo::Vulkan`] with every file's text in its `DebugSource`
    /// (`-fspv-debug=vulkan-with-source`).
    VulkanWithSource,
    /// `-fspv-debug=rich`: OpenCL.DebugInfo.100 as DXC writes it (compilation unit, sources,
    /// types, functions, scopes, local and global variables;
    /// `oneshader_backends::spirv::debuginfo`) beside [`DebugInfo::Lines`]' `OpLine`s.
    Rich,
    /// [`DebugInfo::Rich`] with every file's text in its `DebugSource`
    /// (`-fspv-debug=rich-with-source`).
    RichWithSource,
}

/// The backend's line information for `sources` under `debug` (`None` when off): file ids are
/// the source map's, the main file is the first one the preprocessor read, and the version
/// is the profile's shader model as DXC states it (`cs_6_2`: 620).
fn line_info(
    debug: DebugInfo,
    sources: &SourceMap,
    profile: &str,
    entry: &str,
) -> Option<spirv::LineInfo> {
    if debug == DebugInfo::None {
        return None;
    }
    let files = (0..sources.len())
        .map(|k| {
            let f = FileId(k as u32);
            spirv::SourceFile {
                name: sources.name(f).to_string(),
                text: sources.text(f).to_string(),
            }
        })
        .collect();
    let mut model = profile
        .rsplit('_')
        .take(2)
        .filter_map(|p| p.parse::<u32>().ok());
    let (minor, major) = (model.next().unwrap_or(0), model.next().unwrap_or(6));
    Some(spirv::LineInfo {
        files,
        main: 0,
        version: major * 100 + minor * 10,
        embed_source: matches!(
            debug,
            DebugInfo::LinesWithSource | DebugInfo::VulkanWithSource | DebugInfo::RichWithSource
        ),
        debug_set: match debug {
            DebugInfo::Vulkan | DebugInfo::VulkanWithSource => {
                Some(spirv::DebugSet::ShaderDebugInfo)
            }
            DebugInfo::Rich | DebugInfo::RichWithSource => Some(spirv::DebugSet::OpenClDebugInfo),
            DebugInfo::None | DebugInfo::Lines | DebugInfo::LinesWithSource => None,
        },
        command_line: format!("-E {entry} -T {profile}"),
    })
}

/// Diagnostics together with the source files they point into, so they can be rendered as
/// `file:line:col: error[CODE]: message` with the source line and a caret.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    /// The diagnostics, in the order the phases reported them.
    pub list: Vec<Diagnostic>,
    /// Every file the front end read (the main file, includes, command-line macros).
    pub sources: SourceMap,
    /// The main file's name: diagnostics without a source position (from the optimizer or
    /// the backend) are rendered as `name: error[CODE]: message`.
    pub file: String,
}

impl Diagnostics {
    /// Renders every diagnostic, each ending in a newline.
    pub fn render(&self) -> String {
        self.list.iter().map(|d| self.render_one(d)).collect()
    }

    /// Renders one diagnostic (with its source line and caret when it has a position).
    pub fn render_one(&self, d: &Diagnostic) -> String {
        if d.span.is_some() {
            self.sources.render(d)
        } else {
            format!("{}: {d}\n", self.file)
        }
    }

    /// True when one of them is an error.
    pub fn has_errors(&self) -> bool {
        oneshader_ir::diag::has_errors(&self.list)
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// The diagnostics.
    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.list.iter()
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

/// The IR modules a compilation kept (see [`CompileOptions::keep_unoptimized_ir`] and
/// [`CompileOptions::keep_final_ir`]).
#[derive(Clone, Debug, Default)]
pub struct IrModules {
    /// The module as lowered by the front end.
    pub unoptimized: Option<Module>,
    /// The module after legalization and (at `-O`) optimization: what the backend read.
    pub final_module: Option<Module>,
    /// Where the instructions of [`IrModules::final_module`] come from in the HLSL source:
    /// file, line and column of the innermost expression each was lowered from (what the
    /// `.osir` source-map section holds). Positions are part of the IR and survive the
    /// optimizer (`oneshader_ir::positions`): instructions of no expression take their
    /// statement's or function's. Functions and globals are listed too, each at its
    /// declaration (the declared name).
    pub final_positions: Option<SourceLocations>,
}

/// A preprocessed file ([`Compiler::preprocess_file`]).
#[derive(Debug)]
pub struct Preprocessed {
    /// The text after preprocessing, without line markers (`#pragma` lines kept).
    pub text: String,
    /// Every file read, the main file first, each once.
    pub inputs: Vec<PathBuf>,
    /// Warnings.
    pub diagnostics: Diagnostics,
}

/// What a successful compilation produced.
#[derive(Debug)]
pub struct CompileOutput {
    /// The SPIR-V module's words (empty unless the target is SPIR-V and
    /// [`CompileOptions::emit_spirv`] is on).
    pub spirv: Vec<u32>,
    /// The GLSL text, when the target is GLSL (and [`CompileOptions::emit_spirv`] is on).
    pub glsl: Option<String>,
    /// The WGSL text, when the target is WGSL (and [`CompileOptions::emit_spirv`] is on).
    pub wgsl: Option<String>,
    /// The MSL text, when the target is MSL (and [`CompileOptions::emit_spirv`] is on).
    pub msl: Option<String>,
    /// Warnings (and notes); errors end the compilation with a [`CompileError`].
    pub diagnostics: Diagnostics,
    /// The reflection, when [`CompileOptions::reflect`] asked for it.
    pub reflection: Option<Reflection>,
    /// The IR modules asked for.
    pub ir: IrModules,
    /// The entry point's stage (`None` for a library profile, `lib_*`, whose module holds
    /// every `[shader("...")]` entry point of the file).
    pub stage: Option<Stage>,
    /// The module key of the compilation ([`crate::key::module_key`]): a hash of every input
    /// and setting that decides the module, never a path; `.osir` files carry it.
    pub cache_key: CacheKey,
    /// Every file the preprocessor read, the main file first, each once (for dependency
    /// files and build systems).
    pub inputs: Vec<PathBuf>,
}

impl CompileOutput {
    /// The SPIR-V module as bytes (little-endian), as written to a `.spv` file.
    pub fn spirv_bytes(&self) -> Vec<u8> {
        spirv::to_bytes(&self.spirv)
    }
}

/// The phase a compilation failed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Phase {
    /// Preprocessing, parsing, analysis or lowering: errors in the user's source.
    FrontEnd,
    /// Reflection: a buffer's contents have no layout (code OSC0056).
    Reflection,
    /// Legalization (generic and resource-parameter specialization) failed (code OSC0052).
    Legalization,
    /// The backend refused the module (code OSC0053), or the target has none (OSC0059).
    Backend,
    /// A spec-constant override names no spec constant or does not fit its type (code
    /// OSC0057).
    Specialization,
}

/// A failed compilation: the phase and every diagnostic so far.
///
/// `Display` is the first error with its position (`file:line:col: error[CODE]: message`) and
/// how many more there are; `{:#}` renders every diagnostic with its source line, as the
/// command line prints them. `Debug` names the phase, the file and each diagnostic in one line,
/// without source text.
#[derive(Clone)]
pub struct CompileError {
    /// Where it failed.
    pub phase: Phase,
    /// What went wrong (and the warnings before it).
    pub diagnostics: Diagnostics,
}

impl CompileError {
    /// What failed, in words ("the backend refused the module").
    fn what(&self) -> &'static str {
        match self.phase {
            Phase::FrontEnd => "the source has errors",
            Phase::Reflection => "reflection failed",
            Phase::Legalization => "the legalization pipeline failed",
            Phase::Backend => "the backend refused the module",
            Phase::Specialization => "a spec-constant override does not apply",
        }
    }

    /// The line a command line prints after the rendered diagnostics: the file, what failed
    /// and how many errors there are, without repeating any of them.
    ///
    /// ```
    /// use oneshader::{CompileOptions, Compiler};
    ///
    /// let e = Compiler::new()
    ///     .compile_source("bad.hlsl", "float4 main() : SV_Target { return a + b; }", &CompileOptions::new("ps_6_0"))
    ///     .unwrap_err();
    /// assert_eq!(e.summary(), "bad.hlsl: the source has errors (2 errors)");
    /// ```
    pub fn summary(&self) -> String {
        let n = self.diagnostics.iter().filter(|d| d.is_error()).count();
        let s = if n == 1 { "" } else { "s" };
        format!("{}: {} ({n} error{s})", self.diagnostics.file, self.what())
    }
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = self.what();
        let diags = &self.diagnostics;
        if f.alternate() {
            return write!(f, "{}: {what}\n{}", diags.file, diags.render());
        }
        let errors: Vec<&Diagnostic> = diags.iter().filter(|d| d.is_error()).collect();
        let Some(first) = errors.first() else {
            return write!(f, "{}: {what}", diags.file);
        };
        let rendered = diags.render_one(first);
        let line = rendered.lines().next().unwrap_or_default();
        write!(f, "{what}: {line}")?;
        match errors.len() {
            1 => Ok(()),
            2 => write!(f, " (and 1 more error)"),
            n => write!(f, " (and {} more errors)", n - 1),
        }
    }
}

impl fmt::Debug for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompileError")
            .field("phase", &self.phase)
            .field("file", &self.diagnostics.file)
            .field(
                "diagnostics",
                &self
                    .diagnostics
                    .iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl std::error::Error for CompileError {}

/// Compiles HLSL. Holds in-memory include files, an optional include loader and whether the
/// file system may be read; one `Compiler` serves any number of compilations, from any number
/// of threads (it is `Send` and `Sync`).
#[derive(Clone, Debug)]
pub struct Compiler {
    includes: MemoryLoader,
    loader: Option<IncludeLoader>,
    filesystem: bool,
}

/// The host's include loader ([`Compiler::set_include_loader`]).
#[derive(Clone)]
struct IncludeLoader(std::sync::Arc<LoadFn>);

/// A function giving a file's text, or `None` when there is no such file.
type LoadFn = dyn Fn(&Path) -> Option<String> + Send + Sync;

impl fmt::Debug for IncludeLoader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("IncludeLoader")
    }
}

impl Default for Compiler {
    fn default() -> Compiler {
        Compiler::new()
    }
}

/// Files from memory first, then from the host's loader, then (when allowed) from disk.
pub(crate) struct Loader<'a> {
    memory: &'a MemoryLoader,
    host: Option<&'a IncludeLoader>,
    filesystem: bool,
}

impl SourceLoader for Loader<'_> {
    fn load(&self, path: &Path) -> std::io::Result<String> {
        let e = match self.memory.load(path) {
            Ok(text) => return Ok(text),
            Err(e) => e,
        };
        if let Some(text) = self.host.and_then(|h| (h.0)(path)) {
            return Ok(text);
        }
        if self.filesystem {
            FsLoader.load(path)
        } else {
            Err(e)
        }
    }

    fn canonical(&self, path: &Path) -> PathBuf {
        if self.filesystem && self.memory.load(path).is_err() {
            FsLoader.canonical(path)
        } else {
            hlsl::normalize(path)
        }
    }
}

impl Compiler {
    /// A compiler that reads includes from the file system and has no in-memory files.
    pub fn new() -> Compiler {
        Compiler {
            includes: MemoryLoader::new(),
            loader: None,
            filesystem: true,
        }
    }

    /// Sets the host's include loader (as DXC's `IDxcIncludeHandler`): for each path
    /// `#include` tries (beside the including file, then each include folder, then the name as
    /// written; the main file too for [`Compiler::compile_file`]), after the in-memory files
    /// and before the file system, `load` gives the file's text or `None` when it has no such
    /// file. It may be called from several threads at once when the compiler is shared.
    ///
    /// ```
    /// use oneshader::{CompileOptions, Compiler};
    ///
    /// let mut c = Compiler::new();
    /// c.set_filesystem_access(false);
    /// c.set_include_loader(|path| {
    ///     (path == std::path::Path::new("shaders/common.hlsli")).then(|| "#define N 8\n".to_string())
    /// });
    /// let src = "#include \"common.hlsli\"\nRWStructuredBuffer<uint> o;\n\
    ///            [numthreads(N, 1, 1)] void main(uint i : SV_DispatchThreadID) { o[i] = i; }";
    /// let out = c.compile_source("shaders/main.hlsl", src, &CompileOptions::new("cs_6_0").with_reflection())?;
    /// assert_eq!(out.reflection.unwrap().entry_points[0].workgroup_size, Some([8, 1, 1]));
    /// assert_eq!(out.inputs.len(), 2);
    /// # Ok::<(), oneshader::CompileError>(())
    /// ```
    pub fn set_include_loader(
        &mut self,
        load: impl Fn(&Path) -> Option<String> + Send + Sync + 'static,
    ) -> &mut Self {
        self.loader = Some(IncludeLoader(std::sync::Arc::new(load)));
        self
    }

    /// The module key ([`crate::key::module_key`]) that compiling `source` as `name` with
    /// `opts` would give ([`CompileOutput::cache_key`]), after preprocessing only: a host
    /// keeping its own cache looks the key up before compiling. A profile that does not parse,
    /// a missing include or a malformed directive is a [`CompileError`] in
    /// [`Phase::FrontEnd`].
    ///
    /// ```
    /// use oneshader::{CompileOptions, Compiler};
    ///
    /// let c = Compiler::new();
    /// let opts = CompileOptions::new("ps_6_0");
    /// let src = "float4 main() : SV_Target { return 1; }";
    /// let key = c.module_key("a.hlsl", src, &opts)?;
    /// assert_eq!(key, c.compile_source("a.hlsl", src, &opts)?.cache_key);
    /// assert_ne!(key, c.module_key("a.hlsl", src, &CompileOptions::new("ps_6_1"))?);
    /// # Ok::<(), oneshader::CompileError>(())
    /// ```
    pub fn module_key(
        &self,
        name: impl AsRef<Path>,
        source: impl Into<String>,
        opts: &CompileOptions,
    ) -> Result<CacheKey, CompileError> {
        let name = name.as_ref();
        let mut sources = SourceMap::new();
        let fe = opts.front_end_options();
        let mut list = Vec::new();
        if let Err(d) = hlsl::parse_profile(&opts.profile) {
            list.push(d);
        }
        let pre = if list.is_empty() {
            let pre = hlsl::preprocess_text(
                name,
                source.into(),
                &fe.preprocess,
                &self.loader(),
                &mut sources,
            );
            list.extend(pre.diagnostics.iter().filter(|d| d.is_error()).cloned());
            Some(pre)
        } else {
            None
        };
        match pre {
            Some(pre) if list.is_empty() => Ok(crate::key::module_key(
                crate::key::SourceDigest::new(&pre, &sources),
                opts,
                &crate::key::compiler_identity(),
            )),
            _ => Err(CompileError {
                phase: Phase::FrontEnd,
                diagnostics: Diagnostics {
                    list,
                    sources,
                    file: name.display().to_string(),
                },
            }),
        }
    }

    /// Adds (or replaces) an in-memory file that `#include` finds by this path (relative
    /// paths are found from a source compiled under a relative name, or through an include
    /// folder). In-memory files win over files on disk.
    pub fn add_include(&mut self, path: impl AsRef<Path>, text: impl Into<String>) -> &mut Self {
        self.includes.add(path, text);
        self
    }

    /// Allows or forbids reading files from disk (default allowed). A sandboxed tool turns
    /// it off: then only in-memory files can be included.
    pub fn set_filesystem_access(&mut self, allowed: bool) -> &mut Self {
        self.filesystem = allowed;
        self
    }

    /// Compiles `source` as if read from a file named `name` (diagnostics use the name;
    /// `#include "x"` looks beside it).
    pub fn compile_source(
        &self,
        name: impl AsRef<Path>,
        source: impl Into<String>,
        opts: &CompileOptions,
    ) -> Result<CompileOutput, CompileError> {
        let name = name.as_ref();
        let mut sources = SourceMap::new();
        let loader = self.loader();
        let fe = opts.front_end_options();
        if let Err(d) = hlsl::parse_profile(&opts.profile) {
            return self.finish(
                name,
                front_failure(d),
                sources,
                opts,
                CacheKey::NONE,
                Vec::new(),
            );
        }
        let pre = hlsl::preprocess_text(name, source.into(), &fe.preprocess, &loader, &mut sources);
        self.compile_preprocessed(name, pre, sources, opts)
    }

    /// Compiles the file at `path` (read from memory when added with
    /// [`Compiler::add_include`], else from disk).
    pub fn compile_file(
        &self,
        path: impl AsRef<Path>,
        opts: &CompileOptions,
    ) -> Result<CompileOutput, CompileError> {
        let path = path.as_ref();
        let mut sources = SourceMap::new();
        let loader = self.loader();
        let fe = opts.front_end_options();
        if let Err(d) = hlsl::parse_profile(&opts.profile) {
            return self.finish(
                path,
                front_failure(d),
                sources,
                opts,
                CacheKey::NONE,
                Vec::new(),
            );
        }
        let pre = hlsl::preprocess_file(path, &fe.preprocess, &loader, &mut sources);
        self.compile_preprocessed(path, pre, sources, opts)
    }

    /// Preprocesses the file at `path` with the options' macros and include folders (and
    /// this compiler's in-memory files): the text `oneshader preprocess` prints, like `cpp
    /// -P`, and the files read. Errors (a missing include, a malformed directive) end it with
    /// a [`CompileError`] in [`Phase::FrontEnd`].
    ///
    /// ```
    /// use oneshader::{CompileOptions, Compiler};
    ///
    /// let mut c = Compiler::new();
    /// c.add_include("common.hlsli", "#define SCALE 2.0\n");
    /// c.add_include("main.hlsl", "#include \"common.hlsli\"\nfloat f() { return SCALE; }\n");
    /// let out = c.preprocess_file("main.hlsl", &CompileOptions::new("ps_6_0"))?;
    /// assert!(out.text.contains("return 2.0;"), "{}", out.text);
    /// assert_eq!(out.inputs.len(), 2);
    /// # Ok::<(), oneshader::CompileError>(())
    /// ```
    pub fn preprocess_file(
        &self,
        path: impl AsRef<Path>,
        opts: &CompileOptions,
    ) -> Result<Preprocessed, CompileError> {
        let path = path.as_ref();
        let mut sources = SourceMap::new();
        let pre = hlsl::preprocess_file(
            path,
            &opts.front_end_options().preprocess,
            &self.loader(),
            &mut sources,
        );
        let text = pre.to_text(&sources);
        let inputs = input_files(&pre);
        let diagnostics = Diagnostics {
            list: pre.diagnostics,
            sources,
            file: path.display().to_string(),
        };
        if diagnostics.has_errors() {
            return Err(CompileError {
                phase: Phase::FrontEnd,
                diagnostics,
            });
        }
        Ok(Preprocessed {
            text,
            inputs,
            diagnostics,
        })
    }

    /// Finishes a module a tool built or changed the way [`Compiler::compile_file`] finishes
    /// the front end's: reflection (when asked), spec-constant overrides, legalization, `-O`,
    /// the target's backend, with the same diagnostics. The module must verify; otherwise
    /// the error is in [`Phase::FrontEnd`] and carries the verifier's diagnostics. The
    /// options that only reach the front end (profile, entry, macros) are not used; the
    /// output's stage is the module's entry point's when it has exactly one. `name` names the
    /// module in diagnostics.
    ///
    /// ```
    /// use oneshader::{CompileOptions, Compiler, Target};
    ///
    /// let c = Compiler::new();
    /// let opts = CompileOptions::new("cs_6_0").with_reflection();
    /// let mut m = c
    ///     .compile_source(
    ///         "k.hlsl",
    ///         "RWStructuredBuffer<float> o;\n[numthreads(8, 1, 1)] void main(uint i : SV_DispatchThreadID) { o[i] = 2.0 * i; }",
    ///         &CompileOptions { keep_unoptimized_ir: true, ..opts.clone() },
    ///     )?
    ///     .ir
    ///     .unoptimized
    ///     .expect("kept");
    /// // ... a tool's own pass changes `m` here ...
    /// let out = c.finish_module("k (edited)", m, &opts.target(Target::Glsl))?;
    /// assert!(out.glsl.expect("GLSL asked").contains("layout(local_size_x = 8"));
    /// assert!(out.reflection.is_some());
    /// # Ok::<(), oneshader::CompileError>(())
    /// ```
    pub fn finish_module(
        &self,
        name: impl AsRef<Path>,
        m: Module,
        opts: &CompileOptions,
    ) -> Result<CompileOutput, CompileError> {
        let diagnostics = oneshader_ir::verify::verify(&m);
        let front = if oneshader_ir::diag::has_errors(&diagnostics) {
            hlsl::CompileResult {
                module: None,
                diagnostics,
                stage: None,
                library: false,
                positions: Vec::new(),
            }
        } else {
            let info = oneshader_ir::analysis::ModuleInfo::new(&m);
            let entries = info.entry_points();
            let stage = match entries {
                [one] => Some(one.stage()),
                _ => None,
            };
            hlsl::CompileResult {
                module: Some(m),
                diagnostics,
                stage,
                library: entries.len() != 1,
                positions: Vec::new(),
            }
        };
        self.finish(
            name.as_ref(),
            front,
            SourceMap::new(),
            opts,
            CacheKey::NONE,
            Vec::new(),
        )
    }

    /// Everything after the preprocessor: the key, then parsing, analysis, lowering and
    /// [`Compiler::finish`].
    fn compile_preprocessed(
        &self,
        path: &Path,
        pre: hlsl::Preprocessed,
        sources: SourceMap,
        opts: &CompileOptions,
    ) -> Result<CompileOutput, CompileError> {
        let key = crate::key::module_key(
            crate::key::SourceDigest::new(&pre, &sources),
            opts,
            &crate::key::compiler_identity(),
        );
        let inputs = input_files(&pre);
        let parsed = hlsl::parse_preprocessed(pre);
        let front = if parsed.has_errors() {
            hlsl::CompileResult {
                module: None,
                diagnostics: parsed.diagnostics,
                stage: None,
                library: false,
                positions: Vec::new(),
            }
        } else {
            hlsl::compile_parsed(&parsed, &opts.front_end_options())
        };
        self.finish(path, front, sources, opts, key, inputs)
    }

    pub(crate) fn loader(&self) -> Loader<'_> {
        Loader {
            memory: &self.includes,
            host: self.loader.as_ref(),
            filesystem: self.filesystem,
        }
    }

    /// Everything after the front end: reflection, spec-constant values, legalization,
    /// optimization, SPIR-V. `key` and `inputs` are passed through to the output.
    pub(crate) fn finish(
        &self,
        path: &Path,
        front: hlsl::CompileResult,
        sources: SourceMap,
        opts: &CompileOptions,
        key: CacheKey,
        inputs: Vec<PathBuf>,
    ) -> Result<CompileOutput, CompileError> {
        let mut diagnostics = Diagnostics {
            list: front.diagnostics,
            sources,
            file: path.display().to_string(),
        };
        let fail = |phase, diagnostics| Err(CompileError { phase, diagnostics });
        let stage = front.stage;
        let Some(mut m) = front.module else {
            return fail(Phase::FrontEnd, diagnostics);
        };
        if diagnostics.has_errors() {
            return fail(Phase::FrontEnd, diagnostics);
        }
        // `-fspv-flatten-resource-arrays`: one resource per element, before the reflection
        // describes them; an array indexed by a run-time value waits for the specializations
        // (no resource passed to a function is left) and at `-O` for the optimizer (an
        // unrolled loop makes its indices constant), then gets its switches; the reflection
        // lists its elements as the pass will make them.
        let flatten = |m: &mut Module, leave_dynamic: bool| {
            use oneshader_passes::Pass as _;
            oneshader_passes::flatten_resource_arrays::FlattenResourceArrays { leave_dynamic }
                .run(m)
                .map_err(|e| {
                    let mut d = e.diagnostics.clone();
                    if d.is_empty() {
                        d.push(Diagnostic::error("OSC0052", e.to_string()));
                    }
                    d
                })
        };
        if opts.flatten_resource_arrays
            && let Err(d) = flatten(&mut m, true)
        {
            diagnostics.list.extend(d);
            return fail(Phase::Legalization, diagnostics);
        }
        let mut ir = IrModules::default();
        let reflection = if opts.reflect {
            match reflect::reflect(&m, &opts.layout.rules()) {
                // The lowering names spec constants after their HLSL declarations.
                Ok(mut r) => {
                    add_wgsl_places(&mut r, &m, stage, opts.wgsl_binding_map.as_ref());
                    if opts.flatten_resource_arrays {
                        expand_flattened(&mut r);
                    }
                    Some(r)
                }
                Err(e) => {
                    diagnostics
                        .list
                        .push(Diagnostic::error("OSC0056", e.to_string()));
                    return fail(Phase::Reflection, diagnostics);
                }
            }
        } else {
            None
        };
        if opts.keep_unoptimized_ir {
            ir.unoptimized = Some(m.clone());
        }
        // Spec-constant overrides before anything folds.
        if !opts.spec_constants.is_empty() {
            let applied = resolve_spec_constants(&m, &opts.spec_constants).and_then(|ov| {
                SpecializeSpecConstants::new(ov)
                    .run(&mut m)
                    .map_err(|e| e.to_string())
            });
            if let Err(msg) = applied {
                diagnostics.list.push(Diagnostic::error("OSC0057", msg));
                return fail(Phase::Specialization, diagnostics);
            }
        }
        // The specializations always, once: no target expresses generics or resources
        // passed to functions.
        if let Err(e) = pipeline::specialize().run(&mut m) {
            diagnostics.list.push(
                Diagnostic::error("OSC0052", format!("the legalization pipeline failed: {e}"))
                    .with_note("the module as lowered is kept by `keep_unoptimized_ir`"),
            );
            diagnostics.list.extend(e.diagnostics);
            return fail(Phase::Legalization, diagnostics);
        }
        // At -O0, what waited for the specializations gets its switches.
        if opts.flatten_resource_arrays
            && opts.opt_level != OptLevel::O
            && let Err(d) = flatten(&mut m, false)
        {
            diagnostics.list.extend(d);
            return fail(Phase::Legalization, diagnostics);
        }
        // The optimizer at -O; a failing pass falls back to the specialized module with a
        // warning (OSO0001).
        if opts.opt_level == OptLevel::O {
            let mut pm = pipeline::optimizer(opts.opt_level, &opts.optimize_options());
            let (_report, warnings) = pm.run_with_fallback(&mut m);
            let fell_back = !warnings.is_empty();
            diagnostics.list.extend(warnings);
            // What waited for the optimizer: constant indices now, or switches.
            if opts.flatten_resource_arrays
                && let Err(d) = flatten(&mut m, false)
            {
                diagnostics.list.extend(d);
                return fail(Phase::Legalization, diagnostics);
            }
            // `[unroll]` loops the optimizer could not unroll (OSO0004), unless it fell back
            // to the legalized module, where nothing was unrolled.
            if !fell_back {
                diagnostics
                    .list
                    .extend(oneshader_passes::unroll::not_unrolled(&m));
            }
        }
        let mut spirv = Vec::new();
        let mut glsl_text = None;
        let mut wgsl_text = None;
        let mut msl_text = None;
        #[cfg(feature = "msl")]
        let mut msl_interface = None;
        if opts.emit_spirv {
            // The boundary (legalization for the target, one verification), then the
            // backend, as every caller of the target registry runs them.
            let line_info = line_info(
                opts.debug_info,
                &diagnostics.sources,
                &opts.profile,
                &opts.entry,
            );
            let entry = crate::target::EntryChoice::IfSeveral(&opts.entry);
            match crate::target::emit(&mut m, opts, entry, line_info) {
                Ok(e) => {
                    spirv = e.spirv;
                    diagnostics.list.extend(e.warnings);
                    #[cfg(feature = "msl")]
                    {
                        msl_interface = e.msl_interface;
                    }
                    match opts.target {
                        Target::Glsl => glsl_text = e.text,
                        Target::Wgsl => wgsl_text = e.text,
                        Target::Msl => msl_text = e.text,
                        _ => {}
                    }
                }
                Err(e) => {
                    diagnostics.list.extend(e.diagnostics);
                    return fail(e.phase, diagnostics);
                }
            }
        }
        if opts.keep_final_ir {
            ir.final_positions = Some(SourceLocations::of_module(&m, &diagnostics.sources));
            ir.final_module = Some(m);
        }
        // What the device needs, read off the SPIR-V the backend emitted.
        let mut reflection = reflection;
        if let Some(r) = reflection.as_mut()
            && !spirv.is_empty()
            && let Ok(d) = spirv::declared_requirements(&spirv)
        {
            r.requirements = Some(reflect::DeviceRequirements::from_spirv(
                d.version,
                &d.capabilities,
                &d.extensions,
            ));
        }
        // Where the MSL output binds each resource.
        #[cfg(feature = "msl")]
        if let (Some(r), Some(i)) = (reflection.as_mut(), msl_interface.as_ref()) {
            add_msl_indices(r, i);
        }
        Ok(CompileOutput {
            spirv,
            glsl: glsl_text,
            wgsl: wgsl_text,
            msl: msl_text,
            diagnostics,
            reflection,
            ir,
            stage,
            cache_key: key,
            inputs,
        })
    }
}

/// A front-end result with one error and no module.
fn front_failure(d: Diagnostic) -> hlsl::CompileResult {
    hlsl::CompileResult {
        module: None,
        diagnostics: vec![d],
        stage: None,
        library: false,
        positions: Vec::new(),
    }
}

/// The files a preprocessing run read, the main file first, each once.
pub(crate) fn input_files(pre: &hlsl::Preprocessed) -> Vec<PathBuf> {
    let mut seen = std::collections::HashSet::new();
    pre.files
        .iter()
        .filter(|(_, p)| seen.insert(p.clone()))
        .map(|(_, p)| p.clone())
        .collect()
}
