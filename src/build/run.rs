//! Running the variants: groups that share a preprocessing run, in parallel (rayon); keys,
//! cache lookups, and on a miss the shared compilation steps.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use oneshader_backends::spirv;
use oneshader_frontends::hlsl;
use oneshader_ir::Module;
use oneshader_ir::diag::{Diagnostic, Errors, FileId, Severity, SourceMap, Span};

use super::cache::{self, Cache, Lookup};
use super::manifest::Manifest;
use super::plan::Variant;
use super::remote::{self, ActionResult, OutputFile, Remote};
use super::{BuildError, BuildOptions, BuildReport, Progress, Status, VariantReport, ms};
use crate::compiler::{Compiler, input_files};
use crate::key::{self, CacheKey, SourceDigest};
use crate::target::{Emitted, EntryChoice, OutputKind};
use crate::{CompileOptions, Diagnostics};

/// Builds `variants` of `manifest` (the planned list, or a shard of it).
pub fn build_variants(
    manifest: &Manifest,
    variants: Vec<Variant>,
    opts: &BuildOptions,
    progress: &dyn Progress,
) -> Result<BuildReport, BuildError> {
    let start = Instant::now();
    let identity = opts.identity.clone().unwrap_or_else(key::compiler_identity);
    let mut warnings = Vec::new();
    let cache = if opts.use_cache {
        let dir = opts.resolved_cache_dir();
        match Cache::open(&dir) {
            Ok(c) => Some(c),
            Err(e) => {
                warnings.push(format!(
                    "warning[OSD0004]: cannot use the cache in {}: {e}; building without it",
                    dir.display()
                ));
                None
            }
        }
    } else {
        None
    };
    let remote = opts.resolved_remote(manifest)?.map(|config| {
        if config.authorization.is_none()
            && let Some(var) = &manifest.cache.auth_env
        {
            warnings.push(format!(
                "warning[OSD0008]: `auth_env` names ${var}, which is not set: requests to the remote cache carry no Authorization header"
            ));
        }
        Remote::new(config)
    });
    // Groups: the variants of one file and define set share a preprocessing run.
    let mut groups: Vec<Vec<Variant>> = Vec::new();
    let mut index: HashMap<_, usize> = HashMap::new();
    for v in variants {
        let k = v.group_key();
        match index.get(&k) {
            Some(&g) => groups[g].push(v),
            None => {
                index.insert(k, groups.len());
                groups.push(vec![v]);
            }
        }
    }
    let total: usize = groups.iter().map(Vec::len).sum();
    progress.start(total);
    let jobs = opts.jobs.unwrap_or(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .thread_name(|i| format!("oneshader-build-{i}"))
        // Room for the front end on the workers' own stacks (it then needs no new segment).
        .stack_size(hlsl::COMPILE_STACK + (8 << 20))
        .build()
        .map_err(|e| BuildError::Threads {
            jobs,
            message: e.to_string(),
        })?;
    let cx = Cx {
        compiler: Compiler::new(),
        cache: cache.as_ref(),
        remote: remote.as_ref(),
        identity: &identity,
        progress,
        wrote: std::sync::atomic::AtomicBool::new(false),
    };
    let results: Vec<(Vec<VariantReport>, Vec<PathBuf>)> =
        pool.install(|| groups.into_par_iter().map(|g| cx.group(g)).collect());
    let mut reports = Vec::with_capacity(total);
    let mut inputs = BTreeSet::new();
    inputs.insert(manifest.path.clone());
    for (r, i) in results {
        reports.extend(r);
        inputs.extend(i);
    }
    reports.sort_by_key(|r| r.index);
    // Only a build that wrote entries can have grown the cache past its cap; a cap given
    // explicitly is enforced every time.
    if let Some(c) = &cache
        && (cx.wrote.load(std::sync::atomic::Ordering::Relaxed) || opts.cache_max_size.is_some())
        && let Err(e) = c.evict(opts.cache_max_size.unwrap_or(super::DEFAULT_CACHE_MAX_SIZE))
    {
        warnings.push(format!(
            "warning[OSD0004]: cannot trim the cache in {}: {e}",
            c.root().display()
        ));
    }
    if let Some(r) = &remote {
        warnings.extend(r.warnings());
    }
    let count = |s: Status| reports.iter().filter(|r| r.status == s).count();
    let report = BuildReport {
        built: count(Status::Built),
        cached: count(Status::Cached),
        failed: count(Status::Failed),
        variants: reports,
        time_ms: ms(start.elapsed()),
        inputs: inputs.into_iter().collect(),
        cache_dir: cache.as_ref().map(|_| opts.resolved_cache_dir()),
        remote: remote.as_ref().map(Remote::report),
        warnings,
    };
    if opts.cargo_rerun_if_changed {
        print!("{}", report.cargo_rerun_if_changed());
    }
    Ok(report)
}

/// What every task reads.
struct Cx<'a> {
    compiler: Compiler,
    cache: Option<&'a Cache>,
    remote: Option<&'a Remote>,
    identity: &'a str,
    progress: &'a dyn Progress,
    /// Whether any entry was written (then the cache may need trimming).
    wrote: std::sync::atomic::AtomicBool,
}

/// A variant's diagnostics as stored in the cache: spans stay valid because the key covers
/// the text of every file in reading order, so a hit's source map has the same files.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
struct StoredDiag {
    error: bool,
    code: String,
    message: String,
    span: Option<(u32, u32, u32)>,
    labels: Vec<((u32, u32, u32), String)>,
    notes: Vec<String>,
}

fn store_span(s: Span) -> (u32, u32, u32) {
    (s.file.0, s.start, s.end)
}

fn load_span((file, start, end): (u32, u32, u32)) -> Span {
    Span {
        file: FileId(file),
        start,
        end,
    }
}

/// Diagnostic codes are `&'static str`; codes read back from the cache are interned once.
fn intern_code(code: &str) -> &'static str {
    static CODES: OnceLock<Mutex<BTreeSet<&'static str>>> = OnceLock::new();
    let mut set = CODES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(c) = set.get(code) {
        return c;
    }
    let leaked: &'static str = Box::leak(code.to_string().into_boxed_str());
    set.insert(leaked);
    leaked
}

impl StoredDiag {
    fn new(d: &Diagnostic) -> StoredDiag {
        StoredDiag {
            error: d.is_error(),
            code: d.code.to_string(),
            message: d.message.clone(),
            span: d.span.map(store_span),
            labels: d
                .labels
                .iter()
                .map(|(s, m)| (store_span(*s), m.clone()))
                .collect(),
            notes: d.notes.clone(),
        }
    }

    fn diagnostic(&self, files: usize) -> Diagnostic {
        let valid = |s: &(u32, u32, u32)| (s.0 as usize) < files;
        let mut d = Diagnostic::new(
            if self.error {
                Severity::Error
            } else {
                Severity::Warning
            },
            intern_code(&self.code),
            self.message.clone(),
        );
        d.span = self.span.filter(valid).map(load_span);
        d.labels = self
            .labels
            .iter()
            .filter(|(s, _)| valid(s))
            .map(|(s, m)| (load_span(*s), m.clone()))
            .collect();
        d.notes = self.notes.clone();
        d
    }
}

/// A variant's cache entry, stored under its module key: the `.osir` after `-O`, the
/// compilation's warnings, and each output produced so far under its output key.
#[derive(Serialize, Deserialize, Default)]
struct VariantEntry {
    osir: Vec<u8>,
    warnings: Vec<StoredDiag>,
    outputs: Vec<([u8; 16], Vec<u8>)>,
}

impl VariantEntry {
    fn output(&self, key: CacheKey) -> Option<&[u8]> {
        self.outputs
            .iter()
            .find(|(k, _)| *k == key.0)
            .map(|(_, b)| b.as_slice())
    }
}

/// One preprocessing run and what the group's variants share after it.
struct Shared {
    file: PathBuf,
    /// The preprocessor's output, until the first parse takes it.
    pre: Mutex<Option<hlsl::Preprocessed>>,
    /// Every file it read.
    inputs: Vec<PathBuf>,
    sources: SourceMap,
    parsed: OnceLock<hlsl::Parsed>,
    /// Lowered modules by (entry, profile): one lowering serves every spec-constant set.
    lowered: Mutex<HashMap<(String, String), Lowering>>,
}

/// One entry point's lowering, made by the first variant that needs it.
type Lowering = Arc<OnceLock<hlsl::CompileResult>>;

/// What a variant produced: every output's bytes, the warnings, and whether all came from the
/// cache.
struct Produced {
    bytes: Vec<Vec<u8>>,
    warnings: Vec<Diagnostic>,
    hit: bool,
    /// Some outputs (or the module) came from the remote cache.
    remote: bool,
}

/// A variant's entry as the caches have it: the local one, completed from the remote one.
struct Looked {
    entry: Option<VariantEntry>,
    /// The remote cache's action result, when it had one (its other files are kept when
    /// this build uploads the variant).
    action: Option<ActionResult>,
    /// The remote cache gave something.
    remote: bool,
}

/// What a variant needs for each target.
struct Planned<'v> {
    variant: &'v Variant,
    module_key: CacheKey,
    outputs: Vec<(OutputKind, PathBuf, CacheKey)>,
}

impl Cx<'_> {
    /// Runs one group: preprocess once, then each variant in parallel.
    fn group(&self, variants: Vec<Variant>) -> (Vec<VariantReport>, Vec<PathBuf>) {
        let first = &variants[0];
        let mut sources = SourceMap::new();
        let loader = self.compiler.loader();
        let fe = first.options.front_end_options();
        let pre = hlsl::preprocess_file(&first.file, &fe.preprocess, &loader, &mut sources);
        let digest = SourceDigest::new(&pre, &sources);
        let inputs = input_files(&pre);
        let shared = Shared {
            file: first.file.clone(),
            pre: Mutex::new(Some(pre)),
            inputs: inputs.clone(),
            sources,
            parsed: OnceLock::new(),
            lowered: Mutex::new(HashMap::new()),
        };
        let reports = variants
            .par_iter()
            .map(|v| {
                let t = Instant::now();
                let mut r = self.variant(&shared, digest, v);
                r.time_ms = ms(t.elapsed());
                self.progress.variant_done(&r);
                r
            })
            .collect();
        (reports, inputs)
    }

    fn variant(&self, shared: &Shared, digest: SourceDigest, v: &Variant) -> VariantReport {
        let module_key = key::module_key(digest, &v.options, self.identity);
        let outputs = v
            .outputs
            .iter()
            .map(|(t, path)| {
                let k = key::output_key(module_key, t.name(), &target_options(*t, &v.options));
                (*t, path.clone(), k)
            })
            .collect();
        let planned = Planned {
            variant: v,
            module_key,
            outputs,
        };
        match self.produce(shared, &planned) {
            Ok(Produced {
                bytes,
                warnings,
                hit,
                remote,
            }) => {
                let mut written = Vec::new();
                for ((_, path, _), data) in planned.outputs.iter().zip(&bytes) {
                    if let Err(e) = write_output(path, data) {
                        remove_outputs(v);
                        return failed(
                            v,
                            format!("error[OSD0005]: cannot write {}: {e}\n", path.display()),
                        );
                    }
                    written.push(path.clone());
                }
                VariantReport {
                    variant: v.id.clone(),
                    index: v.index,
                    status: if hit { Status::Cached } else { Status::Built },
                    outputs: written,
                    time_ms: 0.0,
                    cache_hit: hit,
                    remote_hit: hit && remote,
                    diagnostics: render(shared, &warnings),
                }
            }
            Err(rendered) => {
                remove_outputs(v);
                failed(v, rendered)
            }
        }
    }

    /// Every output's bytes, the warnings, and whether all came from the cache; or the
    /// rendered errors.
    fn produce(&self, shared: &Shared, p: &Planned<'_>) -> Result<Produced, String> {
        let files = shared.sources.len();
        let replay = |stored: &[StoredDiag]| -> Vec<Diagnostic> {
            stored.iter().map(|d| d.diagnostic(files)).collect()
        };
        let Looked {
            entry: cached,
            action,
            remote: from_remote,
        } = self.lookup(p);
        // 1. Every output from the cache.
        if let Some(e) = &cached {
            let found: Option<Vec<Vec<u8>>> = p
                .outputs
                .iter()
                .map(|(_, _, k)| e.output(*k).map(<[u8]>::to_vec))
                .collect();
            if let Some(bytes) = found {
                return Ok(Produced {
                    bytes,
                    warnings: replay(&e.warnings),
                    hit: true,
                    remote: from_remote,
                });
            }
        }
        // 2. The module from the cache, when no missing output needs the module as lowered
        // (the reflection); 3. else compile.
        let missing_reflection = p.outputs.iter().any(|(t, _, k)| {
            *t == OutputKind::Reflection && cached.as_ref().and_then(|e| e.output(*k)).is_none()
        });
        let loaded = cached
            .as_ref()
            .filter(|_| !missing_reflection)
            .and_then(|e| {
                oneshader_serialize::load(
                    &e.osir,
                    &oneshader_serialize::LoadOptions { verify: false },
                )
                .ok()
            });
        let (m, positions, mut entry, reflection) = match (loaded, cached) {
            (Some(l), Some(e)) => (l.module, l.source_map, e, None),
            _ => {
                let out = self.compile(shared, p)?;
                let warnings = out.diagnostics.iter().map(StoredDiag::new).collect();
                let Some(m) = out.ir.final_module else {
                    return Err("internal error: the compilation kept no module\n".into());
                };
                let positions = out.ir.final_positions;
                let osir = save_osir(&m, p.module_key, positions.as_ref())
                    .map_err(|e| format!("{e}\n"))?;
                let entry = VariantEntry {
                    osir,
                    warnings,
                    outputs: Vec::new(),
                };
                (m, positions, entry, out.reflection)
            }
        };
        let mut bytes = Vec::with_capacity(p.outputs.len());
        let mut spirv_words: Option<Vec<u32>> = None;
        for (t, _, k) in &p.outputs {
            if let Some(b) = entry.output(*k) {
                bytes.push(b.to_vec());
                continue;
            }
            let data = match t {
                OutputKind::Reflection => match &reflection {
                    Some(r) => {
                        // The device requirements are read off the SPIR-V, as `compile` does.
                        if spirv_words.is_none() {
                            spirv_words =
                                Some(emit_spirv(&m, &p.variant.options).map_err(|d| {
                                    render_plain(&shared.file, &d, &shared.sources)
                                })?);
                        }
                        let mut r = r.clone();
                        if let Some(w) = &spirv_words
                            && let Ok(d) = spirv::declared_requirements(w)
                        {
                            r.requirements = Some(crate::reflect::DeviceRequirements::from_spirv(
                                d.version,
                                &d.capabilities,
                                &d.extensions,
                            ));
                        }
                        r.to_json().into_bytes()
                    }
                    None => return Err("internal error: no reflection\n".into()),
                },
                _ => {
                    let (data, warnings) = emit(*t, &m, positions.as_ref(), p, &mut spirv_words)
                        .map_err(|d| render_plain(&shared.file, &d, &shared.sources))?;
                    // A backend's warnings replay with the module's.
                    for w in &warnings {
                        let w = StoredDiag::new(w);
                        if !entry.warnings.contains(&w) {
                            entry.warnings.push(w);
                        }
                    }
                    data
                }
            };
            entry.outputs.push((k.0, data.clone()));
            bytes.push(data);
        }
        self.store(p.module_key, &entry);
        self.upload(p.module_key, &entry, action.as_ref());
        Ok(Produced {
            bytes,
            warnings: replay(&entry.warnings),
            hit: false,
            remote: from_remote,
        })
    }

    /// Parses once per group, lowers once per entry, then finishes this variant (spec
    /// constants, `-O`) through the same code as [`Compiler::compile_file`].
    fn compile(&self, shared: &Shared, p: &Planned<'_>) -> Result<crate::CompileOutput, String> {
        let v = p.variant;
        let parsed = shared.parsed.get_or_init(|| {
            let pre = shared.pre.lock().unwrap_or_else(|e| e.into_inner()).take();
            hlsl::parse_preprocessed(pre.unwrap_or_default())
        });
        let cell = {
            let mut map = shared.lowered.lock().unwrap_or_else(|e| e.into_inner());
            map.entry((v.entry.name.clone(), v.entry.profile.clone()))
                .or_default()
                .clone()
        };
        let front = cell.get_or_init(|| {
            if parsed.has_errors() {
                hlsl::CompileResult {
                    module: None,
                    diagnostics: parsed.diagnostics.clone(),
                    stage: None,
                    library: false,
                    positions: Vec::new(),
                }
            } else {
                hlsl::compile_parsed(parsed, &v.options.front_end_options())
            }
        });
        let front = hlsl::CompileResult {
            module: front.module.clone(),
            diagnostics: front.diagnostics.clone(),
            stage: front.stage,
            library: front.library,
            positions: front.positions.clone(),
        };
        let mut opts = v.options.clone();
        opts.emit_spirv = false;
        opts.keep_final_ir = true;
        opts.reflect = p
            .outputs
            .iter()
            .any(|(t, _, _)| *t == OutputKind::Reflection);
        self.compiler
            .finish(
                &shared.file,
                front,
                shared.sources.clone(),
                &opts,
                p.module_key,
                shared.inputs.clone(),
            )
            .map_err(|e| {
                let mut s = e.diagnostics.render();
                if e.phase != crate::Phase::FrontEnd {
                    s.push_str(&format!("{e}\n"));
                }
                s
            })
    }

    /// The variant's entry: the local cache's; when it lacks an output the variant needs,
    /// completed from the remote cache (every blob checked against its digest, the module
    /// verified), and what the remote gave written to the local cache.
    fn lookup(&self, p: &Planned<'_>) -> Looked {
        let local = self.local_lookup(p.module_key);
        let complete = |e: &VariantEntry| p.outputs.iter().all(|(_, _, k)| e.output(*k).is_some());
        let Some(remote) = self
            .remote
            .filter(|_| !local.as_ref().is_some_and(complete))
        else {
            return Looked {
                entry: local,
                action: None,
                remote: false,
            };
        };
        let Some(action) = remote.get_action(p.module_key) else {
            remote.count_miss();
            return Looked {
                entry: local,
                action: None,
                remote: false,
            };
        };
        let mut entry = local;
        let mut gave = false;
        if entry.is_none() {
            entry = remote_module(remote, &action);
            gave = entry.is_some();
        }
        if let Some(e) = &mut entry {
            for (_, _, k) in &p.outputs {
                if e.output(*k).is_some() {
                    continue;
                }
                if let Some(d) = action.file(&remote::output_path(*k))
                    && let Some(bytes) = remote.get_blob(d)
                {
                    e.outputs.push((k.0, bytes));
                    gave = true;
                }
            }
        }
        if entry.as_ref().is_some_and(complete) {
            remote.count_hit();
        } else {
            remote.count_miss();
        }
        if gave && let Some(e) = &entry {
            self.store(p.module_key, e);
        }
        Looked {
            entry,
            action: Some(action),
            remote: gave,
        }
    }

    /// Uploads a variant's entry (when this build uploads): every blob, then the action
    /// result listing them, with the files of the server's earlier result this entry does
    /// not have (other targets' outputs).
    fn upload(&self, key: CacheKey, entry: &VariantEntry, previous: Option<&ActionResult>) {
        let Some(r) = self.remote.filter(|r| r.uploads()) else {
            return;
        };
        let Ok(warnings) = postcard::to_stdvec(&entry.warnings) else {
            return;
        };
        let mut files = vec![
            OutputFile {
                path: "osir".into(),
                digest: Some(r.put_blob(&entry.osir)),
            },
            OutputFile {
                path: "warnings".into(),
                digest: Some(r.put_blob(&warnings)),
            },
        ];
        for (k, bytes) in &entry.outputs {
            files.push(OutputFile {
                path: remote::output_path(CacheKey(*k)),
                digest: Some(r.put_blob(bytes)),
            });
        }
        if let Some(prev) = previous {
            for f in &prev.output_files {
                if !files.iter().any(|g| g.path == f.path) {
                    files.push(f.clone());
                }
            }
        }
        r.put_action(
            key,
            &ActionResult {
                output_files: files,
                exit_code: 0,
            },
        );
    }

    fn local_lookup(&self, key: CacheKey) -> Option<VariantEntry> {
        match self.cache?.get(key) {
            // An entry that does not decode is treated like a damaged one: rebuilt.
            Lookup::Hit(bytes) => postcard::from_bytes(&bytes).ok(),
            Lookup::Miss | Lookup::Corrupt => None,
        }
    }

    fn store(&self, key: CacheKey, entry: &VariantEntry) {
        if let Some(c) = self.cache
            && let Ok(bytes) = postcard::to_stdvec(entry)
        {
            // A cache that cannot be written only costs time on the next build.
            if c.put(key, &bytes).is_ok() {
                self.wrote.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        }
    }
}

/// A variant's module and warnings from the remote cache's action result: both blobs
/// checked against their digests, the warnings decoded and the module loaded with
/// verification (a blob that fails is reported and the variant is built locally).
fn remote_module(remote: &Remote, action: &ActionResult) -> Option<VariantEntry> {
    let osir_digest = action.file("osir")?;
    let warnings_digest = action.file("warnings")?;
    let osir = remote.get_blob(osir_digest)?;
    let warnings = remote.get_blob(warnings_digest)?;
    let Ok(warnings) = postcard::from_bytes::<Vec<StoredDiag>>(&warnings) else {
        remote.reject(
            &format!("cas/{}", warnings_digest.hash),
            "the warnings do not decode",
        );
        return None;
    };
    if let Err(e) =
        oneshader_serialize::load(&osir, &oneshader_serialize::LoadOptions { verify: true })
    {
        remote.reject(
            &format!("cas/{}", osir_digest.hash),
            &format!("the module does not load: {e}"),
        );
        return None;
    }
    Some(VariantEntry {
        osir,
        warnings,
        outputs: Vec::new(),
    })
}

/// The settings a target reads beyond the module (the output key's part).
fn target_options(t: OutputKind, opts: &CompileOptions) -> String {
    t.options_text(opts)
}

/// The `.osir` of the module after `-O`, carrying its module key and its instructions' HLSL
/// positions (as `compile --target osir` writes it).
pub(crate) fn save_osir(
    m: &Module,
    key: CacheKey,
    positions: Option<&oneshader_serialize::SourceLocations>,
) -> Result<Vec<u8>, String> {
    oneshader_serialize::save_with(
        m,
        &oneshader_serialize::SaveOptions {
            cache_key: key,
            source_map: positions,
            ..Default::default()
        },
    )
    .map_err(|e| format!("error[OSC0051]: cannot save the module: {e}"))
}

/// One target's output from the module after `-O` (not the reflection, which is built from
/// the module as lowered) and the backend's warnings. SPIR-V is emitted once for both SPIR-V
/// targets.
fn emit(
    t: OutputKind,
    m: &Module,
    positions: Option<&oneshader_serialize::SourceLocations>,
    p: &Planned<'_>,
    words: &mut Option<Vec<u32>>,
) -> Result<(Vec<u8>, Vec<Diagnostic>), Vec<Diagnostic>> {
    let text = |e: Emitted| (e.text.unwrap_or_default().into_bytes(), e.warnings);
    match t {
        OutputKind::Osir => save_osir(m, p.module_key, positions)
            .map(|b| (b, Vec::new()))
            .map_err(|e| vec![Diagnostic::error("OSC0051", e)]),
        OutputKind::Ir => Ok((
            oneshader_ir::print::print_module(m).into_bytes(),
            Vec::new(),
        )),
        OutputKind::Spirv | OutputKind::SpirvAsm => {
            if words.is_none() {
                *words = Some(emit_spirv(m, &p.variant.options)?);
            }
            let w = words.as_deref().unwrap_or_default();
            if t == OutputKind::Spirv {
                Ok((spirv::to_bytes(w), Vec::new()))
            } else {
                spirv_asm(w)
                    .map(|b| (b, Vec::new()))
                    .map_err(|e| vec![Diagnostic::error("OSC0053", e)])
            }
        }
        OutputKind::Glsl | OutputKind::Wgsl | OutputKind::Msl => {
            let mut opts = p.variant.options.clone();
            t.configure(&mut opts);
            Ok(text(emit_backend(m, &opts)?))
        }
        OutputKind::Reflection => Err(vec![Diagnostic::error(
            "OSC0056",
            "internal error: reflection is not emitted from the optimized module",
        )]),
    }
}

/// SPIR-V words from the module after `-O`, as [`Compiler`] emits them.
pub(crate) fn emit_spirv(m: &Module, opts: &CompileOptions) -> Result<Vec<u32>, Errors> {
    let mut opts = opts.clone();
    OutputKind::Spirv.configure(&mut opts);
    Ok(emit_backend(m, &opts)?.spirv)
}

/// The backend of `opts.target` on a copy of the module after `-O`, through the target
/// registry as [`Compiler`] runs it.
fn emit_backend(m: &Module, opts: &CompileOptions) -> Result<Emitted, Errors> {
    let mut m = m.clone();
    crate::target::emit(&mut m, opts, EntryChoice::IfSeveral(&opts.entry), None)
        .map_err(|e| e.diagnostics)
}

/// The disassembly `oneshader compile --target spirv-asm` writes: the text and a newline.
pub(crate) fn spirv_asm(words: &[u32]) -> Result<Vec<u8>, String> {
    let mut t = spirv::disassemble(words)
        .map_err(|e| format!("cannot disassemble: {e}"))?
        .into_bytes();
    t.push(b'\n');
    Ok(t)
}

fn render(shared: &Shared, diags: &[Diagnostic]) -> String {
    if diags.is_empty() {
        return String::new();
    }
    render_plain(&shared.file, diags, &shared.sources)
}

fn render_plain(file: &Path, diags: &[Diagnostic], sources: &SourceMap) -> String {
    Diagnostics {
        list: diags.to_vec(),
        sources: sources.clone(),
        file: file.display().to_string(),
    }
    .render()
}

fn failed(v: &Variant, diagnostics: String) -> VariantReport {
    VariantReport {
        variant: v.id.clone(),
        index: v.index,
        status: Status::Failed,
        outputs: Vec::new(),
        time_ms: 0.0,
        cache_hit: false,
        remote_hit: false,
        diagnostics,
    }
}

/// Writes an output unless it already has these bytes (so nothing downstream sees a new
/// modification time for an unchanged output); atomically.
fn write_output(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Ok(old) = std::fs::read(path)
        && old == bytes
    {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    cache::write_atomic(path, bytes)
}

/// Removes a failed variant's outputs from earlier builds: nothing stale stays behind.
fn remove_outputs(v: &Variant) {
    for (_, path) in &v.outputs {
        let _ = std::fs::remove_file(path);
    }
}
