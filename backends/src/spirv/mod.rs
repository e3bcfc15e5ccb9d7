//! The SPIR-V backend: a [`Legal`] module in, SPIR-V words out.
//!
//! Words are written straight into per-section buffers with ids assigned once per IR value
//! (the IR is already deduplicated, so nothing is searched for); `rspirv` supplies the grammar
//! (opcodes, enumerants) and, in tests and [`disassemble`], the parser. docs/spirv-backend.md
//! describes how each IR construct maps to SPIR-V.
//!
//! ```
//! use oneshader_backends::spirv::{self, Options};
//! use oneshader_backends::{Target, prepare};
//! let mut m = oneshader_ir::parse::parse(
//!     "global @data : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]\n\
//!      func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {\n\
//!      bb0:\n\
//!        %0 = element_addr @data, u32 0 : ptr<storage_buffer, u32>\n\
//!        store %0, u32 7\n\
//!        return\n\
//!      }\n",
//! ).unwrap();
//! let legal = prepare(&mut m, Target::Spirv).unwrap();
//! let words = spirv::emit(&legal, &Options::default()).unwrap();
//! assert_eq!(words[0], 0x0723_0203);
//! ```

mod capabilities;
mod chains;
mod constants;
pub mod debuginfo;
mod encode;
pub mod error;
mod functions;
mod globals;
mod instructions;
mod intrinsics;
pub mod lines;
mod memory;
mod module;
pub mod target;
mod textures;
mod types;

pub use error::EmitError;
pub use lines::{DebugSet, LineInfo, SourceFile};
pub use oneshader_ir::layout::LayoutRule;
pub use target::{TargetEnv, UnknownTargetEnv};

use oneshader_ir::{Diagnostic, Errors, Op};

use crate::Legal;

/// How to emit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The target environment (SPIR-V version and rules). Default: vulkan1.2.
    pub target_env: TargetEnv,
    /// Layout of constant buffers (`uniform` globals). Default: DXC's relaxed std140.
    pub cbuffer_rule: LayoutRule,
    /// Layout of storage buffers. Default: DXC's relaxed std430.
    pub storage_rule: LayoutRule,
    /// Layout of push constants. Default: DXC's relaxed std430.
    pub push_constant_rule: LayoutRule,
    /// Layout of texture buffers (storage-buffer globals decorated `texture_buffer`, HLSL
    /// `tbuffer`/`TextureBuffer`). Default: DXC's relaxed std430; D3D packing
    /// ([`LayoutRule::DxCbuffer`]) under DXC's `-fvk-use-dx-layout`.
    pub tbuffer_rule: LayoutRule,
    /// Emit `OpName`/`OpMemberName` from the IR's name hints. Default: on.
    pub debug_names: bool,
    /// The 32-bit float denormal mode of every entry point (dxc's `-denorm preserve|ftz`).
    /// Default: none (the implementation's choice, dxc's `-denorm any`).
    pub denorm: Option<DenormMode>,
    /// The name of the `OpEntryPoint` (dxc's `-fspv-entrypoint-name=NAME`) instead of the
    /// entry point's own; for a module of one entry point (more is OSB0014). Default: none.
    pub entry_point_name: Option<String>,
    /// The only SPIR-V extensions the module may declare (dxc's `-fspv-extension=`, given once
    /// per extension; `KHR` permits every `SPV_KHR_*`): a module that needs another is refused
    /// with OSB0015 naming it. Default: none, any extension the module needs.
    pub allowed_extensions: Option<Vec<String>>,
    /// Line information (`-Zi`, `-fspv-debug=line`): `OpSource`, `OpString` per file,
    /// `OpLine`/`OpNoLine` from the IR's positions ([`lines`]). Default: none.
    pub line_info: Option<LineInfo>,
    /// List every stage input and output of the module in the entry point's interface, used
    /// or not (dxc's `-fspv-preserve-interface`), so a pipeline matching by location sees the
    /// variables the source declared even after `-O` removed their reads. Only for a module of
    /// one entry point (a library's unused variables belong to no entry point in particular).
    /// Default: off, the variables the entry point uses.
    pub preserve_interface: bool,
    /// DXC's `-fspv-reflect`: `OpDecorateString ... UserSemantic "SEMANTIC"` on every stage
    /// variable with a semantic (the IR's `semantic`, spelled as the source wrote it),
    /// `OpDecorateString ... UserTypeGOOGLE "texture2d:<float>"` on every resource with a
    /// `user_type`, and `OpDecorateId ... CounterBuffer %counter` linking a buffer to its
    /// counter (`counter`), with the extensions `SPV_GOOGLE_hlsl_functionality1` and
    /// `SPV_GOOGLE_user_type`. Default: off, none of them.
    pub reflect: bool,
}

/// True when the `-fspv-extension=` list `allowed` permits `ext` (`KHR` permits every
/// `SPV_KHR_*`).
pub(crate) fn permits(allowed: &[String], ext: &str) -> bool {
    allowed
        .iter()
        .any(|a| a == ext || (a == "KHR" && ext.starts_with("SPV_KHR_")))
}

/// A float denormal mode (`DenormPreserve` / `DenormFlushToZero` execution modes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DenormMode {
    /// Denormals are preserved.
    Preserve,
    /// Denormals are flushed to zero.
    FlushToZero,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            target_env: TargetEnv::default(),
            cbuffer_rule: LayoutRule::RelaxedStd140,
            storage_rule: LayoutRule::RelaxedStd430,
            push_constant_rule: LayoutRule::RelaxedStd430,
            tbuffer_rule: LayoutRule::RelaxedStd430,
            debug_names: true,
            denorm: None,
            entry_point_name: None,
            allowed_extensions: None,
            line_info: None,
            preserve_interface: false,
            reflect: false,
        }
    }
}

impl Options {
    /// Options for a target environment, other settings at their defaults.
    pub fn for_env(target_env: TargetEnv) -> Options {
        Options {
            target_env,
            ..Options::default()
        }
    }
}

/// Emits a legal module as SPIR-V. A module with entry points becomes a shader module; one
/// without is a library (`Linkage` capability, every function exported), for universal
/// environments only (Vulkan has no `Linkage`: OSB0006). Errors are
/// diagnostics (codes OSB0001.., see [`error`]) for what SPIR-V cannot express.
pub fn emit(legal: &Legal<'_>, opts: &Options) -> Result<Vec<u32>, Errors> {
    emit_diags(legal, opts).map_err(Errors::new)
}

fn emit_diags(legal: &Legal<'_>, opts: &Options) -> Result<Vec<u32>, Vec<Diagnostic>> {
    let m = legal.module();
    let mut e = module::Emitter::new(m, opts);
    // About five words per instruction: avoids regrowing the largest sections.
    e.s.functions.reserve(m.len() * 5);
    e.f.body.reserve(m.len() * 5);
    e.caps.add(rspirv::spirv::Capability::Shader);
    let info = legal.info();
    let library = info.entry_points().is_empty();
    // Functions first get their ids, so calls and entry points can name them.
    for f in m.functions() {
        e.id_of(f.id());
    }
    e.dbg_begin();
    e.emit_globals(info);
    e.emit_functions(library);
    let entries: Vec<_> = info.entry_points().iter().map(|p| p.func().id()).collect();
    e.dbg_entry_points(&entries);
    e.emit_sources();
    if library {
        e.emit_linkage();
        if opts.target_env.is_vulkan() {
            // Vulkan has no `Linkage` capability: a library is linked first (or emitted for a
            // universal environment, for spirv-link), never loaded as it is.
            e.diags.push(
                error::EmitError::new(
                    error::TARGET,
                    format!(
                        "the module has no entry point, so it is a library (`Linkage` capability, \
                         its functions exported), which the {} environment does not allow: link \
                         it with a shader (`--target osir`, `oneshader link`) or emit it for a \
                         universal environment (`--target-env universal1.5`)",
                        opts.target_env
                    ),
                )
                .into(),
            );
        }
    } else {
        e.emit_entry_points(info);
    }
    // An acceleration structure needs a ray-tracing capability even where nothing traces
    // through it (a resource passed around): ray queries are the one every stage has.
    if e.tkeys.contains_key(&module::TKey::AccelStruct)
        && !e.caps.has(rspirv::spirv::Capability::RayTracingKHR)
        && !e.caps.has(rspirv::spirv::Capability::RayQueryKHR)
    {
        e.ray_query_caps();
    }
    if let Some(op) = e.s.oversized()
        && e.diags.is_empty()
    {
        // Named after, and placed at, the declaration whose emission wrote it (a `cbuffer`
        // of too many members: its struct type).
        let what = e.oversized_in.map(|i| {
            let kind = if m.op(i) == Op::Func {
                "function"
            } else {
                "global"
            };
            format!("{kind} @{}: ", m.name(i).unwrap_or("?"))
        });
        let d: oneshader_ir::Diagnostic = error::EmitError::new(
            error::TOO_LARGE,
            format!(
                "{}an `Op{op:?}` instruction would be longer than SPIR-V's limit of 65535 words",
                what.unwrap_or_default()
            ),
        )
        .into();
        let d = match e.oversized_in {
            Some(i) if m.op(i) == Op::Func => d.in_func(m, i),
            Some(i) => d.or_at_use(m, i),
            None => d,
        };
        e.diags.push(d);
    }
    if let Some(allowed) = &opts.allowed_extensions {
        for ext in e.caps.extensions() {
            if !permits(allowed, ext) {
                e.diags.push(
                    error::EmitError::new(
                        error::EXTENSION,
                        format!(
                            "the module needs the SPIR-V extension `{ext}`, which the permitted \
                             extensions (`-fspv-extension=`: {}) do not include",
                            allowed.join(", ")
                        ),
                    )
                    .into(),
                );
            }
        }
    }
    if !e.diags.is_empty() {
        return Err(e.diags);
    }
    Ok(e.assemble())
}

/// The SPIR-V text of `words` (rspirv's disassembler), or the parse error.
pub fn disassemble(words: &[u32]) -> Result<String, String> {
    use rspirv::binary::Disassemble;
    let module = load(words)?;
    Ok(module.disassemble())
}

/// `words` as an `rspirv` module, or the parse error. Unlike `rspirv::dr::load_words` this
/// also reads extended instructions at module level (NonSemantic.Shader.DebugInfo.100's,
/// [`debuginfo`]), which rspirv's loader refuses as detached: they are appended to
/// `types_global_values`, where this backend writes them (after every type, constant and
/// global variable). An extended instruction inside a function but outside its blocks
/// (`spirv-opt` writes a `DebugNoScope` after a function's last terminator) is an error: an
/// `rspirv` module has no place for it.
pub fn load(words: &[u32]) -> Result<rspirv::dr::Module, String> {
    use rspirv::binary::{Consumer, ParseAction};
    struct Tolerant {
        loader: rspirv::dr::Loader,
        in_function: bool,
        module_level: Vec<rspirv::dr::Instruction>,
    }
    impl Consumer for Tolerant {
        fn initialize(&mut self) -> ParseAction {
            self.loader.initialize()
        }
        fn finalize(&mut self) -> ParseAction {
            self.loader.finalize()
        }
        fn consume_header(&mut self, header: rspirv::dr::ModuleHeader) -> ParseAction {
            self.loader.consume_header(header)
        }
        fn consume_instruction(&mut self, inst: rspirv::dr::Instruction) -> ParseAction {
            match inst.class.opcode {
                rspirv::spirv::Op::Function => self.in_function = true,
                rspirv::spirv::Op::FunctionEnd => self.in_function = false,
                rspirv::spirv::Op::ExtInst if !self.in_function => {
                    self.module_level.push(inst);
                    return ParseAction::Continue;
                }
                _ => {}
            }
            self.loader.consume_instruction(inst)
        }
    }
    let mut t = Tolerant {
        loader: rspirv::dr::Loader::new(),
        in_function: false,
        module_level: Vec::new(),
    };
    rspirv::binary::parse_words(words, &mut t).map_err(|e| e.to_string())?;
    let mut module = t.loader.module();
    module.types_global_values.extend(t.module_level);
    Ok(module)
}

/// What a SPIR-V module declares it needs: its version and the names of its capabilities and
/// extensions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declared {
    /// The SPIR-V version (major, minor).
    pub version: (u8, u8),
    /// `OpCapability` names, in module order.
    pub capabilities: Vec<String>,
    /// `OpExtension` names, in module order.
    pub extensions: Vec<String>,
}

/// What a module declares it needs, or the parse error.
pub fn declared_requirements(words: &[u32]) -> Result<Declared, String> {
    let module = load(words)?;
    let version = module
        .header
        .as_ref()
        .map(|h| h.version())
        .unwrap_or((1, 0));
    let caps = module
        .capabilities
        .iter()
        .filter_map(|i| match i.operands.first() {
            Some(rspirv::dr::Operand::Capability(c)) => Some(format!("{c:?}")),
            _ => None,
        })
        .collect();
    let exts = module
        .extensions
        .iter()
        .filter_map(|i| match i.operands.first() {
            Some(rspirv::dr::Operand::LiteralString(s)) => Some(s.clone()),
            _ => None,
        })
        .collect();
    Ok(Declared {
        version,
        capabilities: caps,
        extensions: exts,
    })
}

/// The module's words as bytes (little-endian), for writing a `.spv` file.
pub fn to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}
