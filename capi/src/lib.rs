//! OneShader's C API: `liboneshader_c.a` / `liboneshader_c.so` and `include/oneshader.h`
//! (generated from this file by cbindgen; `tests/header.rs` checks it is current).
//! docs/c-api.md is the guide, with a complete example that the tests compile.
//!
//! Objects, each released by its own `*_free`:
//!
//! - `os_compiler`: the options of a dxc-style command line (read by the same parser as
//!   `oneshader compile`, [`oneshader_lib::CompileOptions::from_dxc_args`]) and an optional
//!   include handler. It is immutable once made and may be shared by any number of threads
//!   compiling at once (then the include handler is called from those threads).
//! - `os_result`: what one operation produced: a status, the output bytes, the reflection
//!   JSON, the files read, the module keys and the diagnostics (rendered, and one by one with
//!   their positions). Every pointer it gives stays valid until it is freed.
//! - `os_module`: an IR module loaded from `.osir` bytes or linked from others, to save, link
//!   or emit for any target.
//!
//! Nothing here panics across the boundary: every function runs its body under
//! [`std::panic::catch_unwind`], and a panic becomes an `OS_ERROR_INTERNAL` result (or a
//! null, zero or false return where the function has no result). Bad input (null pointers,
//! strings that are not UTF-8, a source that is not text, options that do not parse, damaged
//! `.osir` bytes) gives an error result with a code and a message.
//!
//! Codes this layer adds (the compiler's own keep theirs):
//!
//! | code | meaning |
//! |---|---|
//! | OSA0001 | a required pointer argument is null |
//! | OSA0002 | a string argument is not UTF-8 |
//! | OSA0003 | the source is not text (not UTF-8, or holds a NUL byte) |
//! | OSA0004 | a compiler argument names a file or an action, which the C API takes as parameters |
//! | OSA0005 | an internal error (a panic, caught) |
//! | OSA0006 | an unknown target number |
//! | OSA0007 | the module cannot be saved or printed |

// FFI: the C API takes raw pointers from C and hands out pointers to Rust objects, which needs
// `unsafe`; the workspace denies it elsewhere. Each unsafe block is small and says why it holds.
#![allow(unsafe_code)]
// The types keep the C names the header declares (`os_compiler`, `os_result`...).
#![allow(non_camel_case_types)]
// An `os_result` is the error of the helpers below: made once per failing call, moved into
// its box for C; boxing it earlier would only add an allocation.
#![allow(clippy::result_large_err)]

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::OnceLock;

use oneshader_lib::dxc_args::{DxcArgs, OutputKind};
use oneshader_lib::ir::Module;
use oneshader_lib::key;
use oneshader_lib::passes::link::{LinkOptions, link};
use oneshader_lib::serialize::{self, CacheKey, LoadOptions, PRODUCER, SaveOptions};
use oneshader_lib::{
    CompileError, CompileOptions, CompileOutput, Compiler, Diagnostic, Diagnostics, Severity,
    SourceMap,
};

/// What an operation came to: `OS_OK` or one of the `OS_ERROR_*` values.
pub type os_status = u32;
/// Success.
pub const OS_OK: os_status = 0;
/// A required pointer argument is null (OSA0001).
pub const OS_ERROR_NULL_ARGUMENT: os_status = 1;
/// A string argument is not UTF-8 (OSA0002).
pub const OS_ERROR_INVALID_UTF8: os_status = 2;
/// The source is not text (OSA0003).
pub const OS_ERROR_NOT_TEXT: os_status = 3;
/// The compiler's arguments do not parse, or name what the C API does not take from them
/// (OSC0050, OSC0055, OSA0004), or the target number is unknown (OSA0006).
pub const OS_ERROR_INVALID_OPTIONS: os_status = 4;
/// The source has errors, or the compilation failed later (the diagnostics say where).
pub const OS_ERROR_COMPILE: os_status = 5;
/// The `.osir` bytes are damaged, or their module does not verify (OSL codes, verifier codes).
pub const OS_ERROR_INVALID_OSIR: os_status = 6;
/// The modules do not link (OSK codes).
pub const OS_ERROR_LINK: os_status = 7;
/// An internal error: a panic was caught at the boundary (OSA0005), or a module could not be
/// saved (OSA0007).
pub const OS_ERROR_INTERNAL: os_status = 8;

/// What a compilation or an emission produces.
pub type os_target = u32;
/// The compiler's `--target` argument (SPIR-V when it has none).
pub const OS_TARGET_DEFAULT: os_target = 0;
/// A SPIR-V binary module (little-endian words).
pub const OS_TARGET_SPIRV: os_target = 1;
/// The SPIR-V disassembly (text).
pub const OS_TARGET_SPIRV_ASM: os_target = 2;
/// GLSL 4.50 for Vulkan (text, one entry point).
pub const OS_TARGET_GLSL: os_target = 3;
/// WGSL (text).
pub const OS_TARGET_WGSL: os_target = 4;
/// Metal Shading Language (text).
pub const OS_TARGET_MSL: os_target = 5;
/// The IR text of the final module.
pub const OS_TARGET_IR: os_target = 6;
/// The `.osir` binary module, with its module key (to link, or to cache).
pub const OS_TARGET_OSIR: os_target = 7;
/// The reflection JSON (also given by `os_result_reflection` for every target).
pub const OS_TARGET_REFLECTION: os_target = 8;

/// How bad a diagnostic is.
pub type os_severity = u32;
/// A note.
pub const OS_SEVERITY_NOTE: os_severity = 0;
/// A warning: the output is still produced.
pub const OS_SEVERITY_WARNING: os_severity = 1;
/// An error.
pub const OS_SEVERITY_ERROR: os_severity = 2;

/// The host's include loader, as DXC's `IDxcIncludeHandler`: called with each path
/// `#include` tries (beside the including file, then each `-I` folder, then the name as
/// written). It returns 0 and sets `*data` and `*len` to the file's bytes when it has the
/// file, anything else when it has not (the next candidate is tried). The bytes must stay
/// valid until `release` is called with them; text that is not UTF-8 is read with U+FFFD in
/// place of bad bytes.
pub type os_include_fn = Option<
    unsafe extern "C" fn(
        user: *mut c_void,
        path: *const c_char,
        data: *mut *const u8,
        len: *mut usize,
    ) -> c_int,
>;

/// Called once for each file `os_include_fn` gave, after its bytes were copied.
pub type os_release_fn =
    Option<unsafe extern "C" fn(user: *mut c_void, data: *const u8, len: usize)>;

/// An include handler: `load` (required), `release` (may be null) and the `user` pointer
/// both get. With a handler, the compiler reads no file itself: the handler is its only way
/// to files. When the compiler is shared by several threads, the handler is called from them,
/// at the same time, and must be safe for that.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct os_include_handler {
    /// Loads one file.
    pub load: os_include_fn,
    /// Releases what `load` gave (may be null).
    pub release: os_release_fn,
    /// Passed to both.
    pub user: *mut c_void,
}

/// One diagnostic of an `os_result`. The strings belong to the result.
#[repr(C)]
pub struct os_diagnostic {
    /// `OS_SEVERITY_ERROR`, `OS_SEVERITY_WARNING` or `OS_SEVERITY_NOTE`.
    pub severity: os_severity,
    /// The code (`"OSH1001"`).
    pub code: *const c_char,
    /// The file the position is in, else the main file's name (or `""` when there is none).
    pub file: *const c_char,
    /// The 1-based line, 0 when the diagnostic has no position.
    pub line: u32,
    /// The 1-based column (in characters), 0 when the diagnostic has no position.
    pub column: u32,
    /// The message, without position or code.
    pub message: *const c_char,
    /// The notes, one a line (`""` when none).
    pub notes: *const c_char,
}

/// A compiler: options and an include handler. Made by `os_compiler_new`, released by
/// `os_compiler_free`; shareable by threads.
pub struct os_compiler {
    compiler: Compiler,
    options: CompileOptions,
    default_target: os_target,
    no_warnings: bool,
    warnings_as_errors: bool,
}

// What docs/c-api.md promises: one compiler may be shared by threads, and results and
// modules may move between them.
const _: fn() = || {
    fn shareable<T: Send + Sync>() {}
    shareable::<os_compiler>();
    shareable::<os_result>();
    shareable::<os_module>();
};

/// What an operation produced. Released by `os_result_free`.
pub struct os_result {
    status: os_status,
    /// The output, with one NUL byte after it (not counted) so that text is a C string.
    output: Vec<u8>,
    reflection: Option<CString>,
    dependencies: Vec<CString>,
    rendered: CString,
    message: CString,
    diagnostics: Vec<DiagStrings>,
    module_key: Option<[u8; 16]>,
    output_key: Option<[u8; 16]>,
}

/// A diagnostic with its strings made C strings.
struct DiagStrings {
    severity: os_severity,
    code: CString,
    file: CString,
    line: u32,
    column: u32,
    message: CString,
    notes: CString,
}

/// An IR module: loaded from `.osir` bytes or linked. Released by `os_module_free`.
pub struct os_module {
    module: Module,
    /// Its `.osir` bytes (as loaded, or as saved after linking).
    bytes: Vec<u8>,
    key: CacheKey,
}

/// A C string from Rust text: NUL bytes (which no message should hold) become U+FFFD.
fn cstring(s: &str) -> CString {
    CString::new(s.replace('\0', "\u{fffd}")).unwrap_or_default()
}

impl os_result {
    fn empty(status: os_status) -> os_result {
        os_result {
            status,
            output: vec![0],
            reflection: None,
            dependencies: Vec::new(),
            rendered: CString::default(),
            message: CString::default(),
            diagnostics: Vec::new(),
            module_key: None,
            output_key: None,
        }
    }

    /// A failure of this layer, with one diagnostic.
    fn error(status: os_status, code: &'static str, message: impl Into<String>) -> os_result {
        let d = Diagnostic::error(code, message);
        let mut r = os_result::empty(status);
        r.message = cstring(&d.to_string());
        r.rendered = cstring(&format!("{d}\n"));
        r.diagnostics = vec![diag_strings(&d, &SourceMap::new(), "")];
        r
    }

    fn set_diagnostics(&mut self, diags: &Diagnostics) {
        self.rendered = cstring(&diags.render());
        self.diagnostics = diags
            .iter()
            .map(|d| diag_strings(d, &diags.sources, &diags.file))
            .collect();
    }

    fn set_output(&mut self, mut bytes: Vec<u8>) {
        bytes.push(0);
        self.output = bytes;
    }

    fn into_ptr(self) -> *mut os_result {
        Box::into_raw(Box::new(self))
    }
}

fn diag_strings(d: &Diagnostic, sources: &SourceMap, main: &str) -> DiagStrings {
    let (file, line, column) = match d.span {
        Some(s) => {
            let (l, c) = sources.line_col(s.file, s.start);
            (sources.name(s.file), l as u32, c as u32)
        }
        None => (main, 0, 0),
    };
    DiagStrings {
        severity: match d.severity {
            Severity::Error => OS_SEVERITY_ERROR,
            Severity::Warning => OS_SEVERITY_WARNING,
            _ => OS_SEVERITY_NOTE,
        },
        code: cstring(d.code),
        file: cstring(file),
        line,
        column,
        message: cstring(&d.message),
        notes: cstring(&d.notes.join("\n")),
    }
}

/// Runs `body`, turning a panic into `fallback()`.
fn guard<T>(fallback: impl FnOnce() -> T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|_| fallback())
}

/// Runs a body that makes a result; a panic is an `OS_ERROR_INTERNAL` result.
fn guard_result(body: impl FnOnce() -> os_result) -> *mut os_result {
    guard(
        || {
            os_result::error(
                OS_ERROR_INTERNAL,
                "OSA0005",
                "internal error: the compiler panicked (please report it with the input)",
            )
        },
        body,
    )
    .into_ptr()
}

/// Stores `r` in `*error` when `error` is not null.
///
/// # Safety
/// `error` is null or valid for a write of one pointer.
unsafe fn put_error(error: *mut *mut os_result, r: os_result) {
    if !error.is_null() {
        // SAFETY: the caller passes a null or writable `os_result **`.
        unsafe { *error = r.into_ptr() };
    }
}

/// A required string argument.
///
/// # Safety
/// `p` is null or points to a NUL-terminated string.
unsafe fn arg_str<'a>(p: *const c_char, what: &str) -> Result<&'a str, os_result> {
    if p.is_null() {
        return Err(null_arg(what));
    }
    // SAFETY: not null, and NUL-terminated by the caller's contract.
    let s = unsafe { CStr::from_ptr(p) };
    s.to_str().map_err(|_| {
        os_result::error(
            OS_ERROR_INVALID_UTF8,
            "OSA0002",
            format!("`{what}` is not UTF-8"),
        )
    })
}

/// An optional string argument (null: `None`).
///
/// # Safety
/// As [`arg_str`].
unsafe fn opt_str<'a>(p: *const c_char, what: &str) -> Result<Option<&'a str>, os_result> {
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller's contract, passed on.
    unsafe { arg_str(p, what) }.map(Some)
}

/// `len` bytes at `p` (a null `p` is allowed when `len` is 0).
///
/// # Safety
/// `p` is null or valid for reads of `len` bytes.
unsafe fn arg_bytes<'a>(p: *const u8, len: usize, what: &str) -> Result<&'a [u8], os_result> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(null_arg(what));
    }
    // SAFETY: not null, `len` bytes readable by the caller's contract; the slice lives no
    // longer than the call.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

fn null_arg(what: &str) -> os_result {
    os_result::error(
        OS_ERROR_NULL_ARGUMENT,
        "OSA0001",
        format!("`{what}` is null"),
    )
}

/// The library's version (`"0.1.0"`), a static string.
#[unsafe(no_mangle)]
pub extern "C" fn os_version() -> *const c_char {
    static V: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(v) => v,
            Err(_) => c"",
        };
    guard(std::ptr::null, || V.as_ptr())
}

/// The compiler's identity, which every module key includes (version, build identity, debug or
/// not): a static string. Two libraries with the same identity give the same keys.
#[unsafe(no_mangle)]
pub extern "C" fn os_identity() -> *const c_char {
    static ID: OnceLock<CString> = OnceLock::new();
    guard(std::ptr::null, || {
        ID.get_or_init(|| cstring(&key::compiler_identity()))
            .as_ptr()
    })
}

/// The host's handler, callable from any thread (the host promises it, docs above).
#[derive(Clone, Copy)]
struct HostIncludes(os_include_handler);

// SAFETY: the handler's contract (`os_include_handler`) makes it safe to call from the
// threads that share the compiler; the user pointer is only passed back to it.
unsafe impl Send for HostIncludes {}
// SAFETY: as above.
unsafe impl Sync for HostIncludes {}

impl HostIncludes {
    fn load(&self, path: &Path) -> Option<String> {
        let load = self.0.load?;
        let path = CString::new(path.to_string_lossy().into_owned()).ok()?;
        let mut data: *const u8 = std::ptr::null();
        let mut len = 0usize;
        // SAFETY: a C function of the documented signature, given a valid C string and two
        // writable locals.
        let rc = unsafe { load(self.0.user, path.as_ptr(), &mut data, &mut len) };
        if rc != 0 {
            return None;
        }
        let text = if data.is_null() || len == 0 {
            String::new()
        } else {
            // SAFETY: the handler gave `len` readable bytes at `data`, valid until released.
            let bytes = unsafe { std::slice::from_raw_parts(data, len) };
            String::from_utf8_lossy(bytes).into_owned()
        };
        if let Some(release) = self.0.release {
            // SAFETY: gives back exactly what `load` gave, once.
            unsafe { release(self.0.user, data, len) };
        }
        Some(text)
    }
}

/// Makes a compiler from dxc-style arguments (`{"-T", "ps_6_0", "-E", "main", "-O3"}`, read
/// as `oneshader compile` reads them) and an optional include handler (null: the compiler
/// reads `#include`d files from disk). `args` may be null when `nargs` is 0. Arguments that
/// name files or actions (an input file, `-Fo`, `--reflect`, `-Fh`, `-Fc`, `-P`, `-MD`,
/// `-MF`, `-help`, `--version`) are refused: the C API takes those as parameters. `-WX` and
/// `-no-warnings` apply to every compilation; `--target` becomes the `OS_TARGET_DEFAULT`.
///
/// Returns the compiler, or null with an error result in `*error` (when `error` is not
/// null) whose diagnostic names the argument.
///
/// # Safety
/// `args` points to `nargs` NUL-terminated strings (or is null with `nargs` 0); `includes` is
/// null or points to a handler (copied); `error` is null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_compiler_new(
    args: *const *const c_char,
    nargs: usize,
    includes: *const os_include_handler,
    error: *mut *mut os_result,
) -> *mut os_compiler {
    let made = guard(
        || {
            Err(os_result::error(
                OS_ERROR_INTERNAL,
                "OSA0005",
                "internal error: the compiler panicked",
            ))
        },
        // SAFETY: the caller's contract, passed on.
        || unsafe { compiler_new(args, nargs, includes) },
    );
    match made {
        Ok(c) => Box::into_raw(Box::new(c)),
        Err(r) => {
            // SAFETY: the caller's contract.
            unsafe { put_error(error, r) };
            std::ptr::null_mut()
        }
    }
}

/// # Safety
/// As [`os_compiler_new`].
unsafe fn compiler_new(
    args: *const *const c_char,
    nargs: usize,
    includes: *const os_include_handler,
) -> Result<os_compiler, os_result> {
    let ptrs: &[*const c_char] = if nargs == 0 {
        &[]
    } else if args.is_null() {
        return Err(null_arg("args"));
    } else {
        // SAFETY: `args` holds `nargs` pointers by the caller's contract.
        unsafe { std::slice::from_raw_parts(args, nargs) }
    };
    let mut list = Vec::with_capacity(nargs);
    for (i, &p) in ptrs.iter().enumerate() {
        // SAFETY: each is a NUL-terminated string by the caller's contract.
        list.push(unsafe { arg_str(p, &format!("args[{i}]")) }?.to_string());
    }
    let invalid = |code, msg: String| os_result::error(OS_ERROR_INVALID_OPTIONS, code, msg);
    let parsed = DxcArgs::parse(&list).map_err(|e| invalid(e.code, e.message))?;
    let refused = [
        (
            parsed.input.is_some(),
            "an input file (pass the source to os_compile)",
        ),
        (
            parsed.output.is_some(),
            "an output file (-Fo/-o: the result holds the output)",
        ),
        (
            parsed.reflect.is_some(),
            "--reflect (os_result_reflection gives the JSON)",
        ),
        (
            parsed.header.is_some() || parsed.header_name.is_some(),
            "-Fh/-Vn",
        ),
        (parsed.listing.is_some(), "-Fc (use OS_TARGET_SPIRV_ASM)"),
        (parsed.preprocess.is_some(), "-P"),
        (
            parsed.depfile || parsed.depfile_path.is_some(),
            "-MD/-MF (os_result_dependency gives the files read)",
        ),
        (parsed.help || parsed.version, "-help/--version"),
    ];
    if let Some((_, what)) = refused.iter().find(|(given, _)| *given) {
        return Err(invalid(
            "OSA0004",
            format!("the compiler's arguments cannot name {what}"),
        ));
    }
    let default_target = match parsed.output_kind {
        OutputKind::Spirv => OS_TARGET_SPIRV,
        OutputKind::SpirvAsm => OS_TARGET_SPIRV_ASM,
        OutputKind::Glsl => OS_TARGET_GLSL,
        OutputKind::Wgsl => OS_TARGET_WGSL,
        OutputKind::Msl => OS_TARGET_MSL,
        OutputKind::Ir => OS_TARGET_IR,
        OutputKind::Osir => OS_TARGET_OSIR,
        OutputKind::Reflection => OS_TARGET_REFLECTION,
    };
    let mut compiler = Compiler::new();
    if !includes.is_null() {
        // SAFETY: not null, points to a handler by the caller's contract (copied here).
        let handler = HostIncludes(unsafe { *includes });
        if handler.0.load.is_none() {
            return Err(null_arg("includes->load"));
        }
        compiler.set_filesystem_access(false);
        compiler.set_include_loader(move |p| handler.load(p));
    }
    Ok(os_compiler {
        compiler,
        options: parsed.options,
        default_target,
        no_warnings: parsed.no_warnings,
        warnings_as_errors: parsed.warnings_as_errors,
    })
}

/// Releases a compiler (null: nothing). Results and modules it made stay valid.
///
/// # Safety
/// `c` is null or was returned by `os_compiler_new` and not freed; no other thread uses it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_compiler_free(c: *mut os_compiler) {
    guard(
        || (),
        || {
            if !c.is_null() {
                // SAFETY: made by `Box::into_raw` in `os_compiler_new`, freed once.
                drop(unsafe { Box::from_raw(c) });
            }
        },
    )
}

/// A target, checked: the CLI's own [`OutputKind`].
type Kind = OutputKind;

/// The kind `target` names (`OS_TARGET_DEFAULT`: the compiler's default).
fn kind_of(c: &os_compiler, target: os_target) -> Result<Kind, os_result> {
    let t = if target == OS_TARGET_DEFAULT {
        c.default_target
    } else {
        target
    };
    Ok(match t {
        OS_TARGET_SPIRV => Kind::Spirv,
        OS_TARGET_SPIRV_ASM => Kind::SpirvAsm,
        OS_TARGET_GLSL => Kind::Glsl,
        OS_TARGET_WGSL => Kind::Wgsl,
        OS_TARGET_MSL => Kind::Msl,
        OS_TARGET_IR => Kind::Ir,
        OS_TARGET_OSIR => Kind::Osir,
        OS_TARGET_REFLECTION => Kind::Reflection,
        _ => {
            return Err(os_result::error(
                OS_ERROR_INVALID_OPTIONS,
                "OSA0006",
                format!("unknown target {target} (OS_TARGET_* values are 0 to 8)"),
            ));
        }
    })
}

/// Sets what the compilation emits and keeps, as `oneshader compile` does for the target.
fn configure(kind: Kind, opts: &mut CompileOptions) {
    kind.configure(opts);
    opts.reflect = true;
}

/// The options of one compilation: the compiler's, with `entry` and `profile` when given, set
/// up for the target.
fn options_for(
    c: &os_compiler,
    entry: Option<&str>,
    profile: Option<&str>,
    kind: Kind,
) -> CompileOptions {
    let mut opts = c.options.clone();
    if let Some(e) = entry {
        opts.entry = e.to_string();
    }
    if let Some(p) = profile {
        opts.profile = p.to_string();
    }
    configure(kind, &mut opts);
    opts
}

/// The result of a compilation or an emission.
fn finish_result(
    c: &os_compiler,
    compiled: Result<CompileOutput, CompileError>,
    opts: &CompileOptions,
    kind: Kind,
) -> os_result {
    let mut out = match compiled {
        Ok(out) => out,
        Err(mut e) => {
            if c.no_warnings {
                e.diagnostics.list.retain(|d| d.is_error());
            }
            let mut r = os_result::empty(OS_ERROR_COMPILE);
            r.message = cstring(&e.to_string());
            r.set_diagnostics(&e.diagnostics);
            return r;
        }
    };
    if c.no_warnings {
        out.diagnostics.list.retain(|d| d.is_error());
    }
    if c.warnings_as_errors && !out.diagnostics.is_empty() {
        let n = out.diagnostics.len();
        let s = if n == 1 { "" } else { "s" };
        let msg = format!("{n} warning{s} and `-WX` (warnings are errors)");
        out.diagnostics
            .list
            .push(Diagnostic::error("OSC0060", msg.clone()));
        let mut r = os_result::empty(OS_ERROR_COMPILE);
        r.message = cstring(&format!("{}: error[OSC0060]: {msg}", out.diagnostics.file));
        r.set_diagnostics(&out.diagnostics);
        return r;
    }
    let fail = |msg: String| {
        let mut r = os_result::error(OS_ERROR_INTERNAL, "OSA0007", msg);
        r.set_diagnostics(&out.diagnostics);
        r
    };
    let bytes = match kind.bytes(&out) {
        Ok(b) => b,
        Err(e) => return fail(e.to_string()),
    };
    let mut r = os_result::empty(OS_OK);
    r.set_output(bytes);
    r.set_diagnostics(&out.diagnostics);
    r.reflection = out.reflection.as_ref().map(|x| cstring(&x.to_json()));
    r.dependencies = out
        .inputs
        .iter()
        .map(|p| cstring(&p.display().to_string()))
        .collect();
    if out.cache_key != CacheKey::NONE {
        r.module_key = Some(out.cache_key.0);
        r.output_key = Some(
            key::output_key(
                out.cache_key,
                kind.name(),
                &key::output_options_text(kind, opts),
            )
            .0,
        );
    }
    r
}

/// The compiler and the source of `os_compile` and `os_compiler_key`, checked.
///
/// # Safety
/// As [`os_compile`].
#[allow(clippy::type_complexity)]
unsafe fn compile_args<'a>(
    c: *const os_compiler,
    name: *const c_char,
    source: *const u8,
    len: usize,
    entry: *const c_char,
    profile: *const c_char,
    target: os_target,
) -> Result<(&'a os_compiler, &'a str, String, CompileOptions, Kind), os_result> {
    if c.is_null() {
        return Err(null_arg("compiler"));
    }
    // SAFETY: not null, made by `os_compiler_new` and alive by the caller's contract; only
    // read (it is `Sync`).
    let c = unsafe { &*c };
    // SAFETY: the caller's contract for each argument.
    let name = unsafe { arg_str(name, "name") }?;
    // SAFETY: as above.
    let bytes = unsafe { arg_bytes(source, len, "source") }?;
    // SAFETY: as above.
    let entry = unsafe { opt_str(entry, "entry") }?;
    // SAFETY: as above.
    let profile = unsafe { opt_str(profile, "profile") }?;
    let kind = kind_of(c, target)?;
    let text = match std::str::from_utf8(bytes) {
        Ok(t) if !t.contains('\0') => t.to_string(),
        Ok(t) => {
            let at = t.find('\0').unwrap_or_default();
            return Err(not_text(name, format!("a NUL byte at offset {at}")));
        }
        Err(e) => {
            return Err(not_text(
                name,
                format!("bytes that are not UTF-8 at offset {}", e.valid_up_to()),
            ));
        }
    };
    let opts = options_for(c, entry, profile, kind);
    Ok((c, name, text, opts, kind))
}

fn not_text(name: &str, what: String) -> os_result {
    os_result::error(
        OS_ERROR_NOT_TEXT,
        "OSA0003",
        format!("the source `{name}` is not text: it holds {what}"),
    )
}

/// Compiles `len` bytes of HLSL at `source` as if read from a file named `name` (diagnostics
/// use the name; `#include "x"` looks beside it) for `target`, with the compiler's options
/// and `entry` and `profile` when they are not null (`-E` and `-T` otherwise). Never returns
/// null: check `os_result_status`. The result holds the output, the reflection JSON, the files
/// read, the module and output keys, and the diagnostics (warnings on success).
///
/// # Safety
/// `c` is a live compiler; `name` a NUL-terminated string; `source` is valid for `len` bytes
/// (or null with `len` 0); `entry` and `profile` are null or NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_compile(
    c: *const os_compiler,
    name: *const c_char,
    source: *const u8,
    len: usize,
    entry: *const c_char,
    profile: *const c_char,
    target: os_target,
) -> *mut os_result {
    guard_result(|| {
        // SAFETY: the caller's contract, passed on.
        match unsafe { compile_args(c, name, source, len, entry, profile, target) } {
            Ok((c, name, text, opts, kind)) => {
                let compiled = c.compiler.compile_source(name, text, &opts);
                finish_result(c, compiled, &opts, kind)
            }
            Err(r) => r,
        }
    })
}

/// The keys compiling the same source would give, after preprocessing only, so that a host
/// can look its own cache up before compiling: `os_result_module_key` (the module after `-O`,
/// the key `.osir` files carry) and `os_result_output_key` (that and the target's settings).
/// The result has no output; a missing include or a bad profile is an `OS_ERROR_COMPILE`
/// result with its diagnostics. Arguments as `os_compile`.
///
/// # Safety
/// As `os_compile`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_compiler_key(
    c: *const os_compiler,
    name: *const c_char,
    source: *const u8,
    len: usize,
    entry: *const c_char,
    profile: *const c_char,
    target: os_target,
) -> *mut os_result {
    guard_result(|| {
        // SAFETY: the caller's contract, passed on.
        let (c, name, text, opts, kind) =
            match unsafe { compile_args(c, name, source, len, entry, profile, target) } {
                Ok(a) => a,
                Err(r) => return r,
            };
        match c.compiler.module_key(name, text, &opts) {
            Ok(k) => {
                let mut r = os_result::empty(OS_OK);
                r.module_key = Some(k.0);
                r.output_key =
                    Some(key::output_key(k, kind.name(), &key::output_options_text(kind, &opts)).0);
                r
            }
            Err(e) => {
                let mut r = os_result::empty(OS_ERROR_COMPILE);
                r.message = cstring(&e.to_string());
                r.set_diagnostics(&e.diagnostics);
                r
            }
        }
    })
}

/// Reads a result; `None` for null.
///
/// # Safety
/// `r` is null or a live result.
unsafe fn result<'a>(r: *const os_result) -> Option<&'a os_result> {
    // SAFETY: null or made by `into_ptr` and not freed, by the caller's contract.
    unsafe { r.as_ref() }
}

/// Stores `n` in `*len` when `len` is not null.
///
/// # Safety
/// `len` is null or writable.
unsafe fn put_len(len: *mut usize, n: usize) {
    if !len.is_null() {
        // SAFETY: writable by the caller's contract.
        unsafe { *len = n };
    }
}

/// The result's status: `OS_OK` or an `OS_ERROR_*` value (`OS_ERROR_NULL_ARGUMENT` for a null
/// result).
///
/// # Safety
/// `r` is null or a live result.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_result_status(r: *const os_result) -> os_status {
    // SAFETY: the caller's contract.
    guard(
        || OS_ERROR_INTERNAL,
        || unsafe { result(r) }.map_or(OS_ERROR_NULL_ARGUMENT, |r| r.status),
    )
}

/// The output bytes (SPIR-V, text, `.osir`...), their count in `*len` (when `len` is not
/// null). A NUL byte follows them (not counted), so text output is also a C string. Empty
/// (length 0, still a valid pointer) for a failed operation; null only for a null result.
///
/// # Safety
/// `r` is null or a live result; `len` is null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_result_output(r: *const os_result, len: *mut usize) -> *const u8 {
    guard(std::ptr::null, || {
        // SAFETY: the caller's contract.
        let (p, n) = match unsafe { result(r) } {
            Some(r) => (r.output.as_ptr(), r.output.len().saturating_sub(1)),
            None => (std::ptr::null(), 0),
        };
        // SAFETY: the caller's contract.
        unsafe { put_len(len, n) };
        p
    })
}

/// The reflection JSON (docs/reflection.md) as a C string, its length in `*len` (when not
/// null); null when the operation failed.
///
/// # Safety
/// `r` is null or a live result; `len` is null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_result_reflection(
    r: *const os_result,
    len: *mut usize,
) -> *const c_char {
    guard(std::ptr::null, || {
        // SAFETY: the caller's contract.
        let refl = unsafe { result(r) }.and_then(|r| r.reflection.as_ref());
        // SAFETY: the caller's contract.
        unsafe { put_len(len, refl.map_or(0, |s| s.as_bytes().len())) };
        refl.map_or(std::ptr::null(), |s| s.as_ptr())
    })
}

/// How many files the compilation read (the main file first, then each include once).
///
/// # Safety
/// `r` is null or a live result.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_result_dependency_count(r: *const os_result) -> usize {
    // SAFETY: the caller's contract.
    guard(
        || 0,
        || unsafe { result(r) }.map_or(0, |r| r.dependencies.len()),
    )
}

/// The `i`th file read, as its path was spelled; null when `i` is out of range.
///
/// # Safety
/// `r` is null or a live result.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_result_dependency(r: *const os_result, i: usize) -> *const c_char {
    guard(std::ptr::null, || {
        // SAFETY: the caller's contract.
        unsafe { result(r) }
            .and_then(|r| r.dependencies.get(i))
            .map_or(std::ptr::null(), |s| s.as_ptr())
    })
}

/// Every diagnostic rendered as the command line prints them (`file:line:col:
/// error[CODE]: message`, the source line and a caret), `""` when there are none; the length
/// in `*len` when not null.
///
/// # Safety
/// `r` is null or a live result; `len` is null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_result_diagnostics_text(
    r: *const os_result,
    len: *mut usize,
) -> *const c_char {
    guard(std::ptr::null, || {
        // SAFETY: the caller's contract.
        let s = unsafe { result(r) }.map(|r| &r.rendered);
        // SAFETY: the caller's contract.
        unsafe { put_len(len, s.map_or(0, |s| s.as_bytes().len())) };
        s.map_or(std::ptr::null(), |s| s.as_ptr())
    })
}

/// One line saying what failed (the first error with its position, and how many more), `""`
/// on success.
///
/// # Safety
/// `r` is null or a live result.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_result_message(r: *const os_result) -> *const c_char {
    guard(std::ptr::null, || {
        // SAFETY: the caller's contract.
        unsafe { result(r) }.map_or(std::ptr::null(), |r| r.message.as_ptr())
    })
}

/// How many diagnostics the result has.
///
/// # Safety
/// `r` is null or a live result.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_result_diagnostic_count(r: *const os_result) -> usize {
    // SAFETY: the caller's contract.
    guard(
        || 0,
        || unsafe { result(r) }.map_or(0, |r| r.diagnostics.len()),
    )
}

/// Fills `*out` with the `i`th diagnostic (its strings belong to the result) and returns
/// true; false (and `*out` untouched) when `i` is out of range or a pointer is null.
///
/// # Safety
/// `r` is null or a live result; `out` is null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_result_diagnostic(
    r: *const os_result,
    i: usize,
    out: *mut os_diagnostic,
) -> bool {
    guard(
        || false,
        || {
            // SAFETY: the caller's contract.
            let Some(d) = unsafe { result(r) }.and_then(|r| r.diagnostics.get(i)) else {
                return false;
            };
            if out.is_null() {
                return false;
            }
            let value = os_diagnostic {
                severity: d.severity,
                code: d.code.as_ptr(),
                file: d.file.as_ptr(),
                line: d.line,
                column: d.column,
                message: d.message.as_ptr(),
                notes: d.notes.as_ptr(),
            };
            // SAFETY: not null, writable by the caller's contract.
            unsafe { out.write(value) };
            true
        },
    )
}

/// Copies a 16-byte key to `out` when there is one.
///
/// # Safety
/// `out` is null or writable for 16 bytes.
unsafe fn put_key(k: Option<[u8; 16]>, out: *mut u8) -> bool {
    match k {
        Some(k) if !out.is_null() => {
            // SAFETY: 16 writable bytes by the caller's contract; the source is a local array.
            unsafe { std::ptr::copy_nonoverlapping(k.as_ptr(), out, 16) };
            true
        }
        _ => false,
    }
}

/// Copies the module key (16 bytes: a hash of every input and setting that decides the
/// module after `-O`, never a path) to `out` and returns true; false when the result has
/// none (a failure, a module loaded or linked without one).
///
/// # Safety
/// `r` is null or a live result; `out` is null or writable for 16 bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_result_module_key(r: *const os_result, out: *mut u8) -> bool {
    guard(
        || false,
        // SAFETY: the caller's contract.
        || unsafe { put_key(result(r).and_then(|r| r.module_key), out) },
    )
}

/// Copies the output key (the module key, the target and the settings only that target
/// reads) to `out` and returns true; false when the result has none.
///
/// # Safety
/// As `os_result_module_key`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_result_output_key(r: *const os_result, out: *mut u8) -> bool {
    guard(
        || false,
        // SAFETY: the caller's contract.
        || unsafe { put_key(result(r).and_then(|r| r.output_key), out) },
    )
}

/// Releases a result (null: nothing); every pointer it gave becomes invalid.
///
/// # Safety
/// `r` is null or a live result, freed once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_result_free(r: *mut os_result) {
    guard(
        || (),
        || {
            if !r.is_null() {
                // SAFETY: made by `Box::into_raw` (`os_result::into_ptr`), freed once.
                drop(unsafe { Box::from_raw(r) });
            }
        },
    )
}

/// Loads an `.osir` module from `len` bytes at `data` (checked and verified: damaged bytes
/// are an `OS_ERROR_INVALID_OSIR` error, never a crash). Returns the module, or null with an
/// error result in `*error` (when not null).
///
/// # Safety
/// `data` is valid for `len` bytes (or null with `len` 0); `error` is null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_module_load(
    data: *const u8,
    len: usize,
    error: *mut *mut os_result,
) -> *mut os_module {
    let loaded = guard(
        || {
            Err(os_result::error(
                OS_ERROR_INTERNAL,
                "OSA0005",
                "internal error: the loader panicked",
            ))
        },
        || {
            // SAFETY: the caller's contract.
            let bytes = unsafe { arg_bytes(data, len, "data") }?;
            match serialize::load(bytes, &LoadOptions::default()) {
                Ok(l) => Ok(os_module {
                    module: l.module,
                    bytes: bytes.to_vec(),
                    key: l.header.cache_key,
                }),
                Err(e) => {
                    let diags = Diagnostics {
                        list: e.diagnostics(),
                        sources: SourceMap::new(),
                        file: "<osir>".to_string(),
                    };
                    let mut r = os_result::empty(OS_ERROR_INVALID_OSIR);
                    r.message = cstring(&format!("cannot load the .osir module: {e}"));
                    r.set_diagnostics(&diags);
                    Err(r)
                }
            }
        },
    );
    match loaded {
        Ok(m) => Box::into_raw(Box::new(m)),
        Err(r) => {
            // SAFETY: the caller's contract.
            unsafe { put_error(error, r) };
            std::ptr::null_mut()
        }
    }
}

/// Reads a module; an error result for null.
///
/// # Safety
/// `m` is null or a live module.
unsafe fn module<'a>(m: *const os_module, what: &str) -> Result<&'a os_module, os_result> {
    // SAFETY: null or made by `Box::into_raw` and not freed, by the caller's contract.
    unsafe { m.as_ref() }.ok_or_else(|| null_arg(what))
}

/// The module's `.osir` bytes (as loaded, or as written by `os_module_link`) as the result's
/// output, with its module key (when it has one).
///
/// # Safety
/// `m` is null or a live module.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_module_save(m: *const os_module) -> *mut os_result {
    guard_result(|| {
        // SAFETY: the caller's contract.
        let m = match unsafe { module(m, "module") } {
            Ok(m) => m,
            Err(r) => return r,
        };
        let mut r = os_result::empty(OS_OK);
        r.set_output(m.bytes.clone());
        r.module_key = (m.key != CacheKey::NONE).then_some(m.key.0);
        r
    })
}

/// Copies the module key the module's `.osir` header carries to `out` (16 bytes) and returns
/// true; false when it has none (all zero) or a pointer is null.
///
/// # Safety
/// `m` is null or a live module; `out` is null or writable for 16 bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_module_key(m: *const os_module, out: *mut u8) -> bool {
    guard(
        || false,
        || {
            // SAFETY: the caller's contract.
            let k = unsafe { module(m, "module") }
                .ok()
                .map(|m| m.key)
                .filter(|k| *k != CacheKey::NONE);
            // SAFETY: the caller's contract.
            unsafe { put_key(k.map(|k| k.0), out) }
        },
    )
}

/// Links `n` modules (docs/linking.md): imports bind to exports, and only what the entry
/// points reach is kept, or every export too with `keep_exports` (building a library). The
/// linked module's key is the one `oneshader link` gives the same inputs. Returns the new
/// module (the inputs are not changed), or null with an error result in `*error` (when not
/// null) holding the linker's diagnostics.
///
/// # Safety
/// `modules` points to `n` live modules (or is null with `n` 0); `error` is null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_module_link(
    modules: *const *const os_module,
    n: usize,
    keep_exports: bool,
    error: *mut *mut os_result,
) -> *mut os_module {
    let linked = guard(
        || {
            Err(os_result::error(
                OS_ERROR_INTERNAL,
                "OSA0005",
                "internal error: the linker panicked",
            ))
        },
        // SAFETY: the caller's contract, passed on.
        || unsafe { link_modules(modules, n, keep_exports) },
    );
    match linked {
        Ok(m) => Box::into_raw(Box::new(m)),
        Err(r) => {
            // SAFETY: the caller's contract.
            unsafe { put_error(error, r) };
            std::ptr::null_mut()
        }
    }
}

/// # Safety
/// As [`os_module_link`].
unsafe fn link_modules(
    modules: *const *const os_module,
    n: usize,
    keep_exports: bool,
) -> Result<os_module, os_result> {
    let ptrs: &[*const os_module] = if n == 0 {
        &[]
    } else if modules.is_null() {
        return Err(null_arg("modules"));
    } else {
        // SAFETY: `n` pointers by the caller's contract.
        unsafe { std::slice::from_raw_parts(modules, n) }
    };
    let mut inputs = Vec::with_capacity(n);
    for (i, &p) in ptrs.iter().enumerate() {
        // SAFETY: each a live module or null, by the caller's contract.
        inputs.push(unsafe { module(p, &format!("modules[{i}]")) }?);
    }
    let list: Vec<Module> = inputs.iter().map(|m| m.module.clone()).collect();
    let opts = LinkOptions {
        keep_exports,
        module_names: (0..n).map(|i| format!("modules[{i}]")).collect(),
        ..Default::default()
    };
    let linked = link(&list, &opts).map_err(|e| {
        let diags = Diagnostics {
            list: e.into_vec(),
            sources: SourceMap::new(),
            file: "<link>".to_string(),
        };
        let mut r = os_result::empty(OS_ERROR_LINK);
        let first = diags
            .iter()
            .find(|d| d.is_error())
            .map(|d| d.to_string())
            .unwrap_or_default();
        r.message = cstring(&format!("the modules do not link: {first}"));
        r.set_diagnostics(&diags);
        r
    })?;
    // The key `oneshader link` gives: the inputs' bytes in order and the options.
    let mut bytes = Vec::new();
    for m in &inputs {
        bytes.extend_from_slice(&(m.bytes.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&m.bytes);
    }
    let options: &[&str] = if keep_exports {
        &["link", "--keep-exports"]
    } else {
        &["link"]
    };
    let key = CacheKey::from_inputs(&bytes, options, PRODUCER);
    let saved = serialize::save_with(
        &linked,
        &SaveOptions {
            cache_key: key,
            ..SaveOptions::default()
        },
    )
    .map_err(|e| {
        os_result::error(
            OS_ERROR_INTERNAL,
            "OSA0007",
            format!("cannot save the linked module: {e}"),
        )
    })?;
    Ok(os_module {
        module: linked,
        bytes: saved,
        key,
    })
}

/// Finishes a module for `target` with the compiler's options, as `os_compile` finishes a
/// source: reflection, spec constants, legalization, `-O`, the backend. `name` names it in
/// diagnostics (null: `"module"`); `entry` (null: the compiler's `-E`) picks the entry point
/// for targets that hold one (GLSL, MSL) when the module has several. Never returns null.
///
/// # Safety
/// `c` is a live compiler, `m` a live module; `name` and `entry` are null or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_compiler_emit(
    c: *const os_compiler,
    m: *const os_module,
    name: *const c_char,
    entry: *const c_char,
    target: os_target,
) -> *mut os_result {
    guard_result(|| {
        // SAFETY: the caller's contract, passed on.
        match unsafe { emit_args(c, m, name, entry) } {
            Ok((c, m, name, entry)) => {
                let kind = match kind_of(c, target) {
                    Ok(k) => k,
                    Err(r) => return r,
                };
                let opts = options_for(c, entry, None, kind);
                let done =
                    c.compiler
                        .finish_module(name.unwrap_or("module"), m.module.clone(), &opts);
                finish_result(c, done, &opts, kind)
            }
            Err(r) => r,
        }
    })
}

/// # Safety
/// As [`os_compiler_emit`].
#[allow(clippy::type_complexity)]
unsafe fn emit_args<'a>(
    c: *const os_compiler,
    m: *const os_module,
    name: *const c_char,
    entry: *const c_char,
) -> Result<
    (
        &'a os_compiler,
        &'a os_module,
        Option<&'a str>,
        Option<&'a str>,
    ),
    os_result,
> {
    if c.is_null() {
        return Err(null_arg("compiler"));
    }
    // SAFETY: not null, a live compiler by the caller's contract; only read.
    let c = unsafe { &*c };
    // SAFETY: the caller's contract for each argument.
    let m = unsafe { module(m, "module") }?;
    // SAFETY: as above.
    let name = unsafe { opt_str(name, "name") }?;
    // SAFETY: as above.
    let entry = unsafe { opt_str(entry, "entry") }?;
    Ok((c, m, name, entry))
}

/// Releases a module (null: nothing).
///
/// # Safety
/// `m` is null or a live module, freed once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_module_free(m: *mut os_module) {
    guard(
        || (),
        || {
            if !m.is_null() {
                // SAFETY: made by `Box::into_raw` in `os_module_load`/`os_module_link`.
                drop(unsafe { Box::from_raw(m) });
            }
        },
    )
}
