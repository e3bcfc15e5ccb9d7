//! The target registry: every output OneShader writes ([`OutputKind`]), what each needs from
//! the compilation, which backend makes it, and the one function that runs a backend
//! ([`emit`]).
//!
//! The library ([`crate::Compiler`]), `oneshader compile`, `oneshader emit`, `oneshader build`,
//! the cache keys, the C API and the Python module all read this module, so a target's name,
//! extension, options and entry-point rule are stated once:
//!
//! - a SPIR-V module holds every entry point of the module;
//! - a GLSL, WGSL or MSL output holds one: the only one, or (a library with several) the one
//!   `-E` / `--entry` names.
//!
//! ```
//! use oneshader::{CompileOptions, Compiler, OutputKind};
//!
//! let kind = OutputKind::from_name("wgsl").expect("a target");
//! assert_eq!((kind.extension(), kind.is_binary()), ("wgsl", false));
//! let mut opts = CompileOptions::new("cs_6_0");
//! kind.configure(&mut opts);
//! let src = "RWStructuredBuffer<uint> b; [numthreads(1,1,1)] void main(uint i : SV_DispatchThreadID) { b[i] = i; }";
//! let out = Compiler::new().compile_source("t.hlsl", src, &opts).expect("compiles");
//! let text = String::from_utf8(kind.bytes(&out)?).expect("text");
//! assert!(text.contains("@compute"));
//! # Ok::<(), oneshader::target::OutputError>(())
//! ```

use std::fmt;

#[cfg(feature = "glsl")]
use oneshader_backends::glsl;
#[cfg(feature = "msl")]
use oneshader_backends::msl;
#[cfg(feature = "wgsl")]
use oneshader_backends::wgsl;
use oneshader_backends::{Legal, Target, spirv};
use oneshader_ir::Module;
use oneshader_ir::diag::{Diagnostic, Errors};
use oneshader_serialize::SourceLocations;

use crate::compiler::{CompileOptions, CompileOutput, Phase};

/// What a compilation writes as its output: `oneshader compile --target NAME`,
/// `oneshader emit --target NAME`, a manifest's `targets = [...]`, the C API's `OS_TARGET_*`
/// and Python's `target=`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OutputKind {
    /// The SPIR-V binary (the default).
    #[default]
    Spirv,
    /// The SPIR-V disassembly.
    SpirvAsm,
    /// GLSL 4.50 for Vulkan (docs/glsl-backend.md).
    Glsl,
    /// WGSL (docs/wgsl-backend.md).
    Wgsl,
    /// Metal Shading Language (docs/msl-backend.md).
    Msl,
    /// The IR text of the final module.
    Ir,
    /// The `.osir` binary module with its module key.
    Osir,
    /// The reflection JSON (docs/reflection.md).
    Reflection,
}

/// One row of the registry.
struct Row {
    kind: OutputKind,
    name: &'static str,
    extension: &'static str,
    binary: bool,
    backend: Option<Target>,
}

/// The registry, in the order of the names in docs.
const ROWS: [Row; 8] = [
    Row {
        kind: OutputKind::Spirv,
        name: "spirv",
        extension: "spv",
        binary: true,
        backend: Some(Target::Spirv),
    },
    Row {
        kind: OutputKind::SpirvAsm,
        name: "spirv-asm",
        extension: "spvasm",
        binary: false,
        backend: Some(Target::Spirv),
    },
    Row {
        kind: OutputKind::Glsl,
        name: "glsl",
        extension: "glsl",
        binary: false,
        backend: Some(Target::Glsl),
    },
    Row {
        kind: OutputKind::Wgsl,
        name: "wgsl",
        extension: "wgsl",
        binary: false,
        backend: Some(Target::Wgsl),
    },
    Row {
        kind: OutputKind::Msl,
        name: "msl",
        extension: "metal",
        binary: false,
        backend: Some(Target::Msl),
    },
    Row {
        kind: OutputKind::Osir,
        name: "osir",
        extension: "osir",
        binary: true,
        backend: None,
    },
    Row {
        kind: OutputKind::Ir,
        name: "ir",
        extension: "ir",
        binary: false,
        backend: None,
    },
    // The reflection's device requirements are read off the SPIR-V: it runs that backend.
    Row {
        kind: OutputKind::Reflection,
        name: "reflection",
        extension: "json",
        binary: false,
        backend: Some(Target::Spirv),
    },
];

impl OutputKind {
    /// Every output, in the order of their names in docs.
    pub const ALL: [OutputKind; 8] = [
        OutputKind::Spirv,
        OutputKind::SpirvAsm,
        OutputKind::Glsl,
        OutputKind::Wgsl,
        OutputKind::Msl,
        OutputKind::Osir,
        OutputKind::Ir,
        OutputKind::Reflection,
    ];

    fn row(self) -> &'static Row {
        // Every kind has its row: `every_kind_has_one_row` checks the table.
        ROWS.iter().find(|r| r.kind == self).unwrap_or(&ROWS[0])
    }

    /// The kind named `name` (`--target NAME`, a manifest's target).
    pub fn from_name(name: &str) -> Option<OutputKind> {
        ROWS.iter().find(|r| r.name == name).map(|r| r.kind)
    }

    /// Its name (what [`OutputKind::from_name`] reads; `{target}` in output templates).
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// The file extension of its outputs (`{ext}`).
    pub fn extension(self) -> &'static str {
        self.row().extension
    }

    /// Whether the output is bytes a terminal cannot show.
    pub fn is_binary(self) -> bool {
        self.row().binary
    }

    /// The backend that makes it; `None` for the module outputs (`ir`, `osir`).
    pub fn backend(self) -> Option<Target> {
        self.row().backend
    }

    /// Every name, in the order of [`OutputKind::ALL`] (for messages and `--help`).
    pub fn names() -> impl Iterator<Item = &'static str> {
        OutputKind::ALL.into_iter().map(OutputKind::name)
    }

    /// Sets what a compilation must run and keep to produce this output: the backend
    /// ([`CompileOptions::target`], [`CompileOptions::emit_spirv`]), the final module for
    /// `ir`/`osir`, the reflection for `reflection` (other reflection requests stay).
    pub fn configure(self, opts: &mut CompileOptions) {
        opts.emit_spirv = self.backend().is_some();
        if let Some(t) = self.backend() {
            opts.target = t;
        }
        opts.keep_final_ir = self.backend().is_none();
        opts.reflect |= self == OutputKind::Reflection;
    }

    /// The settings this output reads beyond the module: the part of an output key
    /// ([`crate::key::output_key`]) that is not the module key or the target's name.
    pub fn options_text(self, opts: &CompileOptions) -> String {
        crate::key::output_options_text(self, opts)
    }

    /// The output's bytes from a compilation [`OutputKind::configure`] set up, with the
    /// final module's positions from [`crate::IrModules::final_positions`].
    pub fn bytes(self, out: &CompileOutput) -> Result<Vec<u8>, OutputError> {
        self.bytes_with_positions(out, out.ir.final_positions.as_ref())
    }

    /// [`OutputKind::bytes`] with the `.osir` source map given (`oneshader compile` writes
    /// file names relative to the working folder).
    pub fn bytes_with_positions(
        self,
        out: &CompileOutput,
        positions: Option<&SourceLocations>,
    ) -> Result<Vec<u8>, OutputError> {
        let kept = || out.ir.final_module.as_ref().ok_or(OutputError::NotKept);
        Ok(match self {
            OutputKind::Spirv => out.spirv_bytes(),
            OutputKind::SpirvAsm => disassembly(&out.spirv)?.into_bytes(),
            OutputKind::Glsl => out
                .glsl
                .clone()
                .ok_or(OutputError::NotEmitted(self))?
                .into(),
            OutputKind::Wgsl => out
                .wgsl
                .clone()
                .ok_or(OutputError::NotEmitted(self))?
                .into(),
            OutputKind::Msl => out.msl.clone().ok_or(OutputError::NotEmitted(self))?.into(),
            OutputKind::Reflection => out
                .reflection
                .as_ref()
                .ok_or(OutputError::NotEmitted(self))?
                .to_json()
                .into_bytes(),
            OutputKind::Ir => oneshader_ir::print::print_module(kept()?).into_bytes(),
            // The module key goes into the file: a cache can tell whether it is current.
            OutputKind::Osir => oneshader_serialize::save_with(
                kept()?,
                &oneshader_serialize::SaveOptions {
                    cache_key: out.cache_key,
                    source_map: positions,
                    ..Default::default()
                },
            )
            .map_err(|e| OutputError::Save(e.to_string()))?,
        })
    }
}

impl fmt::Display for OutputKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The disassembly `--target spirv-asm` writes: the text and a newline.
pub fn disassembly(words: &[u32]) -> Result<String, OutputError> {
    let mut t = spirv::disassemble(words).map_err(|e| OutputError::Disassemble(e.to_string()))?;
    t.push('\n');
    Ok(t)
}

/// Why an output's bytes could not be made from a compilation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutputError {
    /// The SPIR-V does not disassemble.
    Disassemble(String),
    /// The module does not save as `.osir`.
    Save(String),
    /// The compilation did not keep the final module (`ir`, `osir` need
    /// [`CompileOptions::keep_final_ir`]).
    NotKept,
    /// The compilation did not make this output (it was configured for another).
    NotEmitted(OutputKind),
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutputError::Disassemble(e) => write!(f, "cannot disassemble: {e}"),
            OutputError::Save(e) => write!(f, "cannot save the module: {e}"),
            OutputError::NotKept => f.write_str("the final module was not kept"),
            OutputError::NotEmitted(k) => {
                write!(f, "the compilation was not set up for the {k} output")
            }
        }
    }
}

impl std::error::Error for OutputError {}

/// What a backend made of a module.
#[derive(Debug, Default)]
pub struct Emitted {
    /// SPIR-V words (the SPIR-V backend).
    pub spirv: Vec<u32>,
    /// The text (GLSL, WGSL, MSL).
    pub text: Option<String>,
    /// The backend's warnings (WGSL's point-size warning OSB0213, `precise` not kept
    /// OSB0214 / OSB0313).
    pub warnings: Vec<Diagnostic>,
    /// Where the MSL output binds each resource.
    #[cfg(feature = "msl")]
    pub msl_interface: Option<msl::Interface>,
}

/// Why [`emit`] made no output: the phase ([`Phase::Legalization`]: the module is not legal
/// for the target after its legalization; [`Phase::Backend`]: the backend refused it or this
/// build has none) and the diagnostics, ending with one summary naming the target.
#[derive(Debug)]
pub struct EmitError {
    /// Where it failed.
    pub phase: Phase,
    /// The diagnostics, the summary last (OSC0052 or OSC0053).
    pub diagnostics: Errors,
}

impl fmt::Display for EmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.diagnostics, f)
    }
}

impl std::error::Error for EmitError {}

/// Which entry point a backend's output holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryChoice<'a> {
    /// The module's only one (text targets); every one (SPIR-V).
    Only,
    /// `-E NAME` of a compilation: a text target of a module with several entry points (a
    /// library) holds this one; SPIR-V holds every one, as DXC's `lib_*` output does.
    IfSeveral(&'a str),
    /// `--entry NAME` of `oneshader emit`: a text target holds this one; for SPIR-V, which
    /// holds every entry point, it is refused (OSC0035) unless it is the module's only one.
    Named(&'a str),
}

/// Runs the backend of `opts.target` on a module after the optimizer: the target's
/// legalization and check ([`oneshader_backends::prepare`]), then the backend with the
/// options `opts` gives it and the entry point `entry` chooses. `line_info` is the debug
/// information of `-Zi` / `-fspv-debug=` (SPIR-V's lines and DebugInfo, GLSL's `#line`).
///
/// A failure ([`EmitError`]) carries the backend's diagnostics and one summary naming the
/// target: OSC0052 (not legal after legalization) or OSC0053 (the backend refused).
pub fn emit(
    m: &mut Module,
    opts: &CompileOptions,
    entry: EntryChoice<'_>,
    line_info: Option<spirv::LineInfo>,
) -> Result<Emitted, EmitError> {
    let target = opts.target;
    let legal = oneshader_backends::prepare(m, target).map_err(|mut d| {
        d.push(Diagnostic::error(
            "OSC0052",
            format!("the module is not legal for {target} after legalization"),
        ));
        EmitError {
            phase: Phase::Legalization,
            diagnostics: d,
        }
    })?;
    emit_legal(&legal, opts, entry, line_info).map_err(|mut d| {
        if d.iter().any(|d| d.is_error()) {
            d.push(Diagnostic::error(
                "OSC0053",
                format!("the {target} backend refused the module"),
            ));
        }
        EmitError {
            phase: Phase::Backend,
            diagnostics: d,
        }
    })
}

fn emit_legal(
    legal: &Legal<'_>,
    opts: &CompileOptions,
    entry: EntryChoice<'_>,
    line_info: Option<spirv::LineInfo>,
) -> Result<Emitted, Errors> {
    let all = legal.info().entry_points();
    let (named, several) = match entry {
        EntryChoice::Only => (None, None),
        EntryChoice::IfSeveral(e) => (None, (all.len() > 1).then(|| e.to_string())),
        EntryChoice::Named(e) => (Some(e.to_string()), None),
    };
    #[cfg_attr(
        not(any(feature = "glsl", feature = "wgsl", feature = "msl")),
        allow(unused_variables)
    )]
    let entry = named.clone().or(several);
    let mut out = Emitted::default();
    match opts.target {
        Target::Spirv => {
            if let Some(e) = &named
                && !(all.len() == 1 && all[0].name() == e.as_str())
            {
                return Err(Errors::new(vec![Diagnostic::error(
                    "OSC0035",
                    format!(
                        "SPIR-V output holds every entry point of the module: `{e}` cannot be \
                         chosen (the entry choice is for GLSL, WGSL and MSL, whose output holds \
                         one)"
                    ),
                )]));
            }
            let mut sopts = opts.spirv_options();
            sopts.line_info = line_info;
            out.spirv = spirv::emit(legal, &sopts)?;
        }
        #[cfg(feature = "glsl")]
        Target::Glsl => {
            let mut gopts = opts.glsl_options();
            gopts.entry = entry;
            gopts.line_directives = line_info;
            out.text = Some(glsl::emit(legal, &gopts)?);
        }
        #[cfg(feature = "wgsl")]
        Target::Wgsl => {
            let mut wopts = opts.wgsl_options();
            wopts.entry = entry;
            wopts.line_comments = line_info;
            let (text, interface) = wgsl::emit_with_interface(legal, &wopts)?;
            out.text = Some(text);
            out.warnings = interface.warnings;
            out.warnings
                .extend(oneshader_backends::precise::unkept(legal, Target::Wgsl));
        }
        #[cfg(feature = "msl")]
        Target::Msl => {
            let mut mopts = opts.msl_options();
            mopts.entry = entry;
            mopts.line_comments = line_info;
            let (text, interface) = msl::emit_with_interface(legal, &mopts)?;
            out.text = Some(text);
            out.msl_interface = Some(interface);
            out.warnings = oneshader_backends::precise::unkept(legal, Target::Msl);
        }
        other => {
            return Err(Errors::new(vec![Diagnostic::error(
                "OSC0059",
                format!(
                    "this build of OneShader has no {other} backend (the `oneshader` crate's \
                     cargo feature `{other}` is off)"
                ),
            )]));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_one_row_and_names_round_trip() {
        for k in OutputKind::ALL {
            assert_eq!(ROWS.iter().filter(|r| r.kind == k).count(), 1, "{k:?}");
            assert_eq!(OutputKind::from_name(k.name()), Some(k));
        }
        assert_eq!(ROWS.len(), OutputKind::ALL.len());
        assert_eq!(OutputKind::from_name("hlsl"), None);
    }

    #[test]
    fn configure_runs_the_backend_the_row_names() {
        for k in OutputKind::ALL {
            let mut o = CompileOptions::new("cs_6_0");
            k.configure(&mut o);
            assert_eq!(o.emit_spirv, k.backend().is_some(), "{k}");
            assert_eq!(o.keep_final_ir, k.backend().is_none(), "{k}");
            assert_eq!(o.reflect, k == OutputKind::Reflection, "{k}");
            if let Some(t) = k.backend() {
                assert_eq!(o.target, t, "{k}");
            }
        }
    }
}
