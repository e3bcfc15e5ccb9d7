//! The HLSL front end's whole pipeline: preprocess, parse, analyze, lower.
//!
//! ```text
//! source ──preprocess/parse──> AST ──analyze──> hir::Program ──lower──> oneshader_ir::Module
//! ```
//!
//! [`compile_file`] and [`compile_text`] return a [`CompileResult`]: the module (when there was
//! no error) and every diagnostic of every phase, each with the user's span.

use std::path::Path;

use oneshader_ir::diag::{Diagnostic, SourceMap, Span};
use oneshader_ir::{InstId, Module, Stage};

use super::{Parsed, PreprocessOptions, SourceLoader};
use crate::hlsl::lower::{Lower, LowerOptions};
use crate::hlsl::sema::bindings::{BindingShift, RegisterBinding};
use crate::hlsl::sema::hir::{self, Major, Program};
use crate::hlsl::sema::{Sema, SemaOptions, Sym};
use crate::hlsl::syntax::ast;

/// Options of one compilation.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    /// The entry point (`-E`).
    pub entry: String,
    /// The shader profile (`-T`), e.g. `ps_6_0`, `vs_6_2`, `cs_6_6`.
    pub profile: String,
    /// Preprocessor options (`-D`, `-U`, `-I`).
    pub preprocess: PreprocessOptions,
    /// `-enable-16bit-types`: `half` and the `min16` types are 16-bit.
    pub enable_16bit_types: bool,
    /// `-Zpr`: matrices are row-major unless declared otherwise (default column-major, `-Zpc`).
    pub row_major: bool,
    /// `-HV`: the HLSL language version (2016, 2018, 2021).
    pub hlsl_version: u32,
    /// `-fvk-invert-y`: negate `SV_Position.y` in vertex shaders.
    pub invert_y: bool,
    /// `-fvk-use-dx-position-w`: `SV_Position.w` in pixel shaders is `1 / w`.
    pub dx_position_w: bool,
    /// `-fvk-support-nonzero-base-instance`: `SV_InstanceID` in vertex shaders is
    /// `InstanceIndex - BaseInstance` (DXC's; without it, `InstanceIndex`).
    pub nonzero_base_instance: bool,
    /// `-fvk-support-nonzero-base-vertex`: `SV_VertexID` in vertex shaders is
    /// `VertexIndex - BaseVertex` (DXC's; without it, `VertexIndex`).
    pub nonzero_base_vertex: bool,
    /// `-fvk-b-shift` / `-fvk-t-shift` / `-fvk-s-shift` / `-fvk-u-shift`.
    pub binding_shifts: Vec<BindingShift>,
    /// `-auto-binding-space N`: the descriptor set of resources whose set the source does not
    /// give (default 0).
    pub default_space: Option<u32>,
    /// `-fspv-use-unknown-image-format`: storage textures and texel buffers without
    /// `[[vk::image_format]]` keep the Unknown format; by default they get the format DXC
    /// infers from the texel type (`float4` Rgba32f, `uint2` Rg32ui, `int` R32i).
    pub unknown_image_format: bool,
    /// `-fvk-auto-shift-bindings`: resources without a `register` take the first free binding
    /// from their class's `-fvk-*-shift` rather than from 0 (DXC's rule).
    pub auto_shift_bindings: bool,
    /// `-fspv-flatten-resource-arrays`: an array of `N` resources takes `N` consecutive
    /// bindings (the facade then splits it into one global per element).
    pub flatten_resource_arrays: bool,
    /// `-fvk-bind-register xK SPACE BINDING SET` (`-vkbr`): explicit set and binding per
    /// register; when given, every resource must be mapped (OSH1031), as in DXC.
    pub bind_registers: Vec<RegisterBinding>,
    /// `-fvk-bind-globals BINDING SET`: the binding and set of `$Globals`.
    pub bind_globals: Option<(u32, u32)>,
    /// `-fvk-bind-resource-heap BINDING SET`: the binding and set of
    /// `ResourceDescriptorHeap` (default: after every other resource, in the default set).
    pub bind_resource_heap: Option<(u32, u32)>,
    /// `-fvk-bind-sampler-heap BINDING SET`: the binding and set of `SamplerDescriptorHeap`
    /// (default: after `ResourceDescriptorHeap`).
    pub bind_sampler_heap: Option<(u32, u32)>,
    /// `-fvk-bind-counter-heap BINDING SET`: the binding and set of the counters of the
    /// buffers of `ResourceDescriptorHeap` (by default the next free binding after the heap).
    pub bind_counter_heap: Option<(u32, u32)>,
    /// `-fvk-use-dx-layout`: constant buffers get D3D's packing, which stores each column of
    /// a `float1xN` (each row of a row-major `floatNx1`) in its own 16-byte register; such
    /// members are refused (OSH1018) rather than laid out as vectors.
    pub dx_layout: bool,
    /// `-fspv-preserve-bindings`: every resource and buffer declared is lowered (and so keeps
    /// its binding in the output), used or not.
    pub preserve_bindings: bool,
    /// Compiling for linking (`--target osir`/`ir`): a function declared without a body that
    /// is called becomes an import, and an `export` function an export (docs/linking.md),
    /// instead of OSH1026. Library profiles (`lib_*`) always export; they import only with
    /// this set (a module bound for SPIR-V cannot hold imports).
    pub allow_imports: bool,
}

impl Default for CompileOptions {
    fn default() -> CompileOptions {
        CompileOptions {
            entry: "main".into(),
            profile: "ps_6_0".into(),
            preprocess: PreprocessOptions::default(),
            enable_16bit_types: false,
            row_major: false,
            hlsl_version: 2021,
            invert_y: false,
            dx_position_w: false,
            nonzero_base_instance: false,
            nonzero_base_vertex: false,
            binding_shifts: Vec::new(),
            default_space: None,
            unknown_image_format: false,
            auto_shift_bindings: false,
            flatten_resource_arrays: false,
            bind_registers: Vec::new(),
            bind_globals: None,
            bind_resource_heap: None,
            bind_sampler_heap: None,
            bind_counter_heap: None,
            dx_layout: false,
            preserve_bindings: false,
            allow_imports: false,
        }
    }
}

/// What a compilation produced.
#[derive(Debug)]
pub struct CompileResult {
    /// The lowered, unoptimized module; `None` when an error was reported.
    pub module: Option<Module>,
    /// Every diagnostic of every phase, in order.
    pub diagnostics: Vec<Diagnostic>,
    /// The stage of the profile, when it was understood (`None` for a library profile).
    pub stage: Option<Stage>,
    /// The profile was a library (`lib_*`): the module holds every `[shader("...")]`
    /// entry point of the file, and its `export` functions and prototypes.
    pub library: bool,
    /// The HLSL positions the module carries (`oneshader_ir::positions`), in slot order: of
    /// each instruction, the innermost expression it was lowered from (or its statement's or
    /// function's); of each function and global, its declaration (the declared name). A
    /// later pass's removals leave ids that are no longer in the module.
    pub positions: Vec<(InstId, Span)>,
}

/// What a profile compiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// One entry point of a stage (`vs_*`, `ps_*`, `cs_*`, `gs_*`, `hs_*`, `ds_*`, `ms_*`,
    /// `as_*`), named by `-E`.
    Stage(Stage),
    /// A library (`lib_*`): every `[shader("...")]` function is an entry point.
    Library,
}

impl CompileResult {
    /// True when any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        oneshader_ir::diag::has_errors(&self.diagnostics)
    }
}

/// What a profile compiles (`ps_6_0` is a fragment shader, `lib_6_3` a library); a
/// malformed or unknown profile is OSH1022, a mesh or amplification profile before shader
/// model 6.5 OSH1021.
pub fn parse_profile(profile: &str) -> Result<Profile, Diagnostic> {
    let lower = profile.to_ascii_lowercase();
    let mut parts = lower.splitn(2, '_');
    let kind = parts.next().unwrap_or("");
    let version = parts.next().unwrap_or("");
    let version_ok = {
        let mut v = version.split('_');
        let major = v.next().and_then(|x| x.parse::<u32>().ok());
        let minor = v.next().map(|x| x.parse::<u32>().is_ok() || x == "x");
        major.is_some() && minor.unwrap_or(false)
    };
    if !version_ok {
        return Err(Diagnostic::error(
            "OSH1022",
            format!("malformed profile `{profile}` (expected e.g. `ps_6_0`, `vs_6_0`, `cs_6_0`)"),
        ));
    }
    let model = {
        let mut v = version.split('_');
        let major = v.next().and_then(|x| x.parse::<u32>().ok()).unwrap_or(0);
        let minor = v.next().and_then(|x| x.parse::<u32>().ok()).unwrap_or(0);
        (major, minor)
    };
    let stage = match kind {
        "vs" => Stage::Vertex,
        "ps" => Stage::Fragment,
        "cs" => Stage::Compute,
        "gs" => Stage::Geometry,
        "hs" => Stage::Hull,
        "ds" => Stage::Domain,
        "ms" => Stage::Mesh,
        "as" => Stage::Amplification,
        "lib" if version.ends_with("_x") || matches!(model, (6, 1..=10)) => {
            return Ok(Profile::Library);
        }
        "lib" => {
            return Err(Diagnostic::error(
                "OSH1022",
                format!(
                    "unknown shader model in profile `{profile}`: libraries need shader model \
                     6.1 to 6.10 (`lib_6_x` for the newest)"
                ),
            ));
        }
        _ => {
            return Err(Diagnostic::error(
                "OSH1022",
                format!(
                    "unknown profile `{profile}` (expected vs_*, ps_*, cs_*, gs_*, hs_*, ds_*, \
                     ms_*, as_* or lib_*)"
                ),
            ));
        }
    };
    // Shader models DXC knows: 6.0 to 6.10. Models 5.0 and 5.1 (fxc's) name the same stages
    // with nothing OneShader would compile differently, so they compile as 6.0; anything else
    // (4.x, 7.0, 9.9) is refused rather than guessed at.
    let known = matches!(model, (6, 0..=10))
        || (matches!(model, (5, 0 | 1)) && !matches!(stage, Stage::Mesh | Stage::Amplification));
    if !known || version.ends_with("_x") {
        return Err(Diagnostic::error(
            "OSH1022",
            format!(
                "unknown shader model in profile `{profile}`: OneShader compiles shader models \
                 6.0 to 6.10 (`lib_6_x` for the newest library model), and 5.0 and 5.1 as 6.0"
            ),
        ));
    }
    if matches!(stage, Stage::Mesh | Stage::Amplification) && model < (6, 5) {
        return Err(Diagnostic::error(
            "OSH1021",
            format!(
                "{} shaders need shader model 6.5 or later (profile `{profile}`)",
                stage.spelling()
            ),
        ));
    }
    Ok(Profile::Stage(stage))
}

/// Compiles the HLSL file at `path`.
pub fn compile_file(
    path: &Path,
    opts: &CompileOptions,
    loader: &dyn SourceLoader,
    sources: &mut SourceMap,
) -> CompileResult {
    let profile = match parse_profile(&opts.profile) {
        Ok(p) => p,
        Err(d) => {
            return CompileResult {
                module: None,
                diagnostics: vec![d],
                stage: None,
                library: false,
                positions: Vec::new(),
            };
        }
    };
    let parsed = super::parse_file(path, &opts.preprocess, loader, sources);
    with_big_stack(|| finish(&parsed, profile, opts))
}

/// Compiles `text` as if read from `path`.
pub fn compile_text(
    path: &Path,
    text: impl Into<String>,
    opts: &CompileOptions,
    loader: &dyn SourceLoader,
    sources: &mut SourceMap,
) -> CompileResult {
    let profile = match parse_profile(&opts.profile) {
        Ok(p) => p,
        Err(d) => {
            return CompileResult {
                module: None,
                diagnostics: vec![d],
                stage: None,
                library: false,
                positions: Vec::new(),
            };
        }
    };
    let parsed = super::parse_text(path, text.into(), &opts.preprocess, loader, sources);
    with_big_stack(|| finish(&parsed, profile, opts))
}

/// Analyzes and lowers an already preprocessed and parsed file (the preprocessor options in
/// `opts` are not used: `parsed` was made with them). A build that compiles several entry
/// points or option sets of one preprocessed file parses it once and calls this per entry.
pub fn compile_parsed(parsed: &Parsed, opts: &CompileOptions) -> CompileResult {
    let profile = match parse_profile(&opts.profile) {
        Ok(p) => p,
        Err(d) => {
            return CompileResult {
                module: None,
                diagnostics: vec![d],
                stage: None,
                library: false,
                positions: Vec::new(),
            };
        }
    };
    with_big_stack(|| finish(parsed, profile, opts))
}

/// Stack analysis and lowering run with (both recurse over the expression tree, which the
/// parser bounds to [`super::MAX_TREE_DEPTH`]).
pub const COMPILE_STACK: usize = 64 << 20;

/// Extra room [`with_big_stack`] gives a new segment, so that the front end's nested calls
/// (parsing inside a compilation) find enough stack left and run where they are.
const STACK_SLACK: usize = 4 << 20;

/// Runs `f` with at least [`COMPILE_STACK`] bytes of stack left: on the current stack when it
/// has that much (a thread the caller made big, such as the build driver's workers), else on
/// a freshly mapped stack segment of `COMPILE_STACK` plus slack (the `stacker` crate). Only
/// the pages the front end touches are ever backed by memory, and no thread is spawned: a
/// thread per compilation cost a `clone`, a new malloc arena and a scheduler round trip on
/// every file.
pub fn with_big_stack<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(COMPILE_STACK, COMPILE_STACK + STACK_SLACK, f)
}

fn finish(parsed: &Parsed, profile: Profile, opts: &CompileOptions) -> CompileResult {
    let mut diagnostics = parsed.diagnostics.clone();
    let (stage, library) = match profile {
        Profile::Stage(s) => (Some(s), false),
        Profile::Library => (None, true),
    };
    let result = |module, diagnostics, positions| CompileResult {
        module,
        diagnostics,
        stage,
        library,
        positions,
    };
    if parsed.has_errors() {
        return result(None, diagnostics, Vec::new());
    }
    let sopts = SemaOptions {
        entry: opts.entry.clone(),
        stage: stage.unwrap_or(Stage::Compute),
        library,
        enable_16bit: opts.enable_16bit_types,
        default_major: if opts.row_major {
            Major::Row
        } else {
            Major::Column
        },
        hlsl_version: opts.hlsl_version,
    };
    let (program, sema_diags) = analyze(parsed, sopts);
    diagnostics.extend(with_macro_notes(parsed, sema_diags));
    let Some(program) = program else {
        return result(None, diagnostics, Vec::new());
    };
    let lopts = LowerOptions {
        invert_y: opts.invert_y,
        dx_position_w: opts.dx_position_w,
        nonzero_base_instance: opts.nonzero_base_instance,
        nonzero_base_vertex: opts.nonzero_base_vertex,
        binding_shifts: opts.binding_shifts.clone(),
        default_space: opts.default_space,
        unknown_image_format: opts.unknown_image_format,
        auto_shift_bindings: opts.auto_shift_bindings,
        flatten_resource_arrays: opts.flatten_resource_arrays,
        bind_registers: opts.bind_registers.clone(),
        bind_globals: opts.bind_globals,
        bind_resource_heap: opts.bind_resource_heap,
        bind_sampler_heap: opts.bind_sampler_heap,
        bind_counter_heap: opts.bind_counter_heap,
        dx_layout: opts.dx_layout,
        preserve_bindings: opts.preserve_bindings,
        allow_imports: opts.allow_imports,
    };
    let (module, lower_diags, positions) = Lower::new(&program, lopts).run();
    diagnostics.extend(with_macro_notes(parsed, lower_diags));
    let module = module.filter(|_| !oneshader_ir::diag::has_errors(&diagnostics));
    // What only some stages may do (`discard` in a compute shader, a group barrier or
    // groupshared memory in a pixel shader) is the user's mistake: an error at its HLSL
    // position, in every build (OSH1033).
    if let Some(m) = &module {
        let misuse: Vec<Diagnostic> = oneshader_ir::verify::verify_stages(m)
            .into_iter()
            .map(|mut d| {
                d.code = "OSH1033";
                d
            })
            .collect();
        if !misuse.is_empty() {
            diagnostics.extend(with_macro_notes(parsed, misuse));
            return result(None, diagnostics, Vec::new());
        }
    }
    if cfg!(debug_assertions)
        && let Some(m) = &module
    {
        let v = oneshader_ir::verify::verify(m);
        if oneshader_ir::diag::has_errors(&v) {
            diagnostics.push(
                Diagnostic::error(
                    "OSH1040",
                    "internal error: the lowered module does not verify",
                )
                .with_note(format!(
                    "{:?}",
                    v.iter().take(5).map(|d| d.to_string()).collect::<Vec<_>>()
                )),
            );
            return result(None, diagnostics, Vec::new());
        }
    }
    result(module, diagnostics, positions)
}

/// Adds "in expansion of macro `X`" notes to diagnostics whose span is a macro's call site.
fn with_macro_notes(parsed: &Parsed, mut diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let table = &parsed.preprocessed.expansions;
    if table.records.is_empty() {
        return diags;
    }
    for d in &mut diags {
        if let Some(span) = d.span
            && let Some(exp) = table.expansion_at(span)
        {
            d.notes.extend(table.notes(Some(exp)));
        }
    }
    diags
}

/// `#pragma pack_matrix(row_major|column_major)`: (span of the first token after it, order).
fn pack_matrix_pragmas(parsed: &Parsed) -> Vec<(Span, Major)> {
    let mut out = Vec::new();
    for p in &parsed.preprocessed.pragmas {
        let texts: Vec<&str> = p.tokens.iter().map(|t| &*t.text).collect();
        if texts.first() != Some(&"pack_matrix") {
            continue;
        }
        let major = if texts.contains(&"row_major") {
            Major::Row
        } else if texts.contains(&"column_major") {
            Major::Column
        } else {
            continue;
        };
        let span = match parsed.preprocessed.tokens.get(p.position) {
            Some(t) => t.span,
            None => continue,
        };
        out.push((span, major));
    }
    out
}

/// A span at the start of the main file, for diagnostics about the whole program.
fn parsed_span(parsed: &Parsed) -> Span {
    Span {
        file: parsed.preprocessed.main_file,
        start: 0,
        end: 0,
    }
}

/// Semantic analysis of a parsed unit: the typed program, or `None` after errors.
pub fn analyze(parsed: &Parsed, opts: SemaOptions) -> (Option<Program>, Vec<Diagnostic>) {
    let unit: &ast::TranslationUnit = &parsed.unit;
    let stage = opts.stage;
    let entry_name = opts.entry.clone();
    let default_major = opts.default_major;
    let mut s = Sema::new(opts);
    s.decl.pragma_majors = pack_matrix_pragmas(parsed);
    s.declare_all(&unit.decls);
    let mut i = 0;
    while i < s.bodies.pending.len() {
        let f = s.bodies.pending[i];
        s.check_body(f);
        i += 1;
        if s.too_many_errors() {
            break;
        }
    }
    let library = s.opts.library;
    let mut entries = Vec::new();
    if library {
        unused_exported_templates(&mut s);
        entries = library_entries(&mut s);
    } else {
        let Some(entry) = stage_entry(&mut s, parsed, &entry_name) else {
            return (None, s.diag.diags);
        };
        entries.push((entry, stage));
    }
    if oneshader_ir::diag::has_errors(&s.diag.diags) {
        return (None, s.diag.diags);
    }
    let program = Program {
        types: s.types,
        globals: s.globals,
        funcs: s.funcs,
        entries,
        library,
        default_major,
    };
    (Some(program), s.diag.diags)
}

/// The entry point `-E` names (a function defined in the global scope), or `None` after a
/// diagnostic.
fn stage_entry(s: &mut Sema<'_>, parsed: &Parsed, entry_name: &str) -> Option<hir::FuncId> {
    let entry = match s.lookup_in(crate::hlsl::sema::ROOT, entry_name) {
        Some(Sym::Overloads(fs, _)) => fs
            .iter()
            .copied()
            .find(|f| s.funcs[f.0 as usize].body.is_some())
            .or_else(|| fs.first().copied()),
        _ => None,
    };
    let Some(entry) = entry else {
        // A declaration of that name that is not a function: point at it.
        let other = match s.lookup_in(crate::hlsl::sema::ROOT, entry_name) {
            Some(Sym::Global(g)) => Some(("a global variable", s.globals[g.0 as usize].span)),
            Some(Sym::CBufMember(g, i)) => {
                let gty = s.globals[g.0 as usize].ty;
                match s.types.kind(gty) {
                    hir::TyKind::Struct(sid) => s
                        .types
                        .struct_def(*sid)
                        .fields
                        .get(i as usize)
                        .map(|f| ("a constant-buffer member", f.span)),
                    _ => None,
                }
            }
            Some(Sym::Type(t, _)) => match s.types.kind(t) {
                hir::TyKind::Struct(sid) => Some(("a struct", s.types.struct_def(*sid).span)),
                _ => Some(("a type", parsed_span(parsed))),
            },
            Some(Sym::Namespace(_)) => Some(("a namespace", parsed_span(parsed))),
            Some(Sym::Const(..)) => Some(("a constant", parsed_span(parsed))),
            _ => None,
        };
        let diag = match other {
            Some((what, span)) => Diagnostic::error(
                "OSH1020",
                format!("the entry point `{entry_name}` is {what}, not a function"),
            )
            .with_span(span),
            None => Diagnostic::error(
                "OSH1020",
                format!(
                    "the entry point `{entry_name}` is not defined (no function of that name in \
                     the global scope; `-E` names it)"
                ),
            )
            // About the whole file: at its start.
            .with_span(parsed_span(parsed)),
        };
        s.push_diag(diag);
        return None;
    };
    if s.funcs[entry.0 as usize].body.is_none() {
        let span = s.funcs[entry.0 as usize].span;
        s.push_diag(
            Diagnostic::error(
                "OSH1026",
                format!("the entry point `{entry_name}` is declared but never defined"),
            )
            .with_span(span),
        );
    }
    Some(entry)
}

/// The stage a `[shader("...")]` attribute names.
pub(crate) fn shader_stage(name: &str) -> Option<Stage> {
    Some(match name {
        "vertex" => Stage::Vertex,
        "pixel" => Stage::Fragment,
        "compute" => Stage::Compute,
        "geometry" => Stage::Geometry,
        "hull" => Stage::Hull,
        "domain" => Stage::Domain,
        "mesh" => Stage::Mesh,
        "amplification" => Stage::Amplification,
        "raygeneration" => Stage::RayGeneration,
        "intersection" => Stage::Intersection,
        "anyhit" => Stage::AnyHit,
        "closesthit" => Stage::ClosestHit,
        "miss" => Stage::Miss,
        "callable" => Stage::Callable,
        _ => return None,
    })
}

/// OSH1034 for an `export`ed function template no function of the library instantiates: a
/// template has no code of its own, so there is nothing to export (the link would fail later
/// on a missing symbol). The library exports the instances its other functions call.
fn unused_exported_templates(s: &mut Sema<'_>) {
    let mut unused = Vec::new();
    for t in &s.scope.templates {
        if let crate::hlsl::sema::TemplateBody::Func(d) = &t.body
            && d.modifiers
                .iter()
                .any(|m| m.modifier == ast::Modifier::Export)
            && t.instances.is_empty()
        {
            unused.push((t.name.clone(), d.name.span));
        }
    }
    for (name, span) in unused {
        s.error(
            "OSH1034",
            span,
            format!(
                "the exported template `{name}` is never instantiated in this library, so \
                 nothing of it can be exported: export a function that calls `{name}` with \
                 the types the other modules need (a template has no code until it is \
                 instantiated)"
            ),
        );
    }
}

/// A library's entry points: every function with a body and a `[shader("...")]`
/// attribute, in declaration order. Stages OneShader does not compile (work-graph nodes)
/// and unknown stage names are errors.
fn library_entries(s: &mut Sema<'_>) -> Vec<(hir::FuncId, Stage)> {
    let mut out = Vec::new();
    for i in 0..s.funcs.len() {
        let f = &s.funcs[i];
        let Some(kind) = f.attrs.shader.clone() else {
            continue;
        };
        if f.body.is_none() || f.method_of.is_some() {
            continue;
        }
        let span = f.attrs.span.unwrap_or(f.span);
        match shader_stage(&kind) {
            Some(stage) => out.push((hir::FuncId(i as u32), stage)),
            None if kind == "node" => s.push_diag(
                Diagnostic::error(
                    "OSH1021",
                    format!(
                        "`{}` is a work-graph node shader (`[shader(\"node\")]`), which OneShader \
                         does not compile",
                        f.name
                    ),
                )
                .with_span(span),
            ),
            None => s.push_diag(
                Diagnostic::error(
                    "OSH1025",
                    format!(
                        "`[shader(\"{kind}\")]`: unknown stage (expected vertex, pixel, compute, \
                         geometry, hull, domain, mesh, amplification, raygeneration, \
                         intersection, anyhit, closesthit, miss or callable)"
                    ),
                )
                .with_span(span),
            ),
        }
    }
    out
}
