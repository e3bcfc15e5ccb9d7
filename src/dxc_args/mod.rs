//! DXC's command line: the arguments `dxc -spirv ...` takes, read into [`CompileOptions`] and
//! the files to write. `oneshader compile` reads its arguments with [`DxcArgs::parse`]; a tool
//! that drives the library with a build script's dxc arguments calls the same function (or
//! [`CompileOptions::from_dxc_args`] when it wants the options alone), so every option means
//! the same everywhere.
//!
//! Every option of DXC's table is in [`OPTIONS`] with what OneShader does with it: honoured,
//! refused (an [`ArgError`] naming the option and why), or accepted because it cannot change
//! the output. Nothing is accepted and ignored. docs/cli.md lists the same table.
//!
//! Spellings follow DXC's option parser: `-T ps_6_0` and `-Tps_6_0`, `/T ps_6_0` for the
//! options DXC takes with a slash, `-fspv-target-env=vulkan1.2`, `-fvk-b-shift 1 0`;
//! OneShader's own long options also take `--target=ir`. An argument that is not an option is
//! the input file; `-` is standard input. A slash argument naming an existing file is an
//! input, not an option.

use std::fmt;
use std::path::PathBuf;

use crate::{BufferLayout, CompileOptions, MacroOp, MatrixOrder, OptLevel};
use oneshader_frontends::hlsl;

mod table;

pub use table::{DEBUG_INFO, Form, OPTIONS, OptionSpec, Support};

/// What `oneshader compile` writes as its main output: the registry's [`OutputKind`].
pub use crate::target::OutputKind;

/// A command line that does not parse, or names an option OneShader refuses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgError {
    /// The diagnostic code: `OSC0050` (the command line), `OSC0055` (an unknown target
    /// environment).
    pub code: &'static str,
    /// The option as spelled, when the error is about one.
    pub option: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl ArgError {
    fn new(option: impl Into<String>, message: impl Into<String>) -> ArgError {
        ArgError {
            code: "OSC0050",
            option: Some(option.into()),
            message: message.into(),
        }
    }

    /// An error about the command line as a whole (`no input file`).
    pub fn plain(message: impl Into<String>) -> ArgError {
        ArgError {
            code: "OSC0050",
            option: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error[{}]: {}", self.code, self.message)
    }
}

impl std::error::Error for ArgError {}

/// A parsed dxc-style command line: the compile options and the files to write.
#[derive(Clone, Debug, Default)]
pub struct DxcArgs {
    /// The input file (`-` is standard input); `None` when none was given.
    pub input: Option<PathBuf>,
    /// Whether `-T` was given (DXC requires it; [`CompileOptions`] defaults to `ps_6_0`).
    pub profile_given: bool,
    /// The compile options.
    pub options: CompileOptions,
    /// What the main output is (`--target`).
    pub output_kind: OutputKind,
    /// `-Fo`/`-o`: the main output's file (`-` or none: standard output).
    pub output: Option<PathBuf>,
    /// `--reflect FILE`: the reflection JSON's file.
    pub reflect: Option<PathBuf>,
    /// `-Fh FILE`: a C header holding the SPIR-V ([`c_header`]).
    pub header: Option<PathBuf>,
    /// `-Vn NAME`: the header's array name (default `g_` and the entry point).
    pub header_name: Option<String>,
    /// `-Fc FILE`: the SPIR-V disassembly.
    pub listing: Option<PathBuf>,
    /// `-P`: preprocess only, to this file (`-Fi FILE`, else the input with `.i`).
    pub preprocess: Option<PathBuf>,
    /// `-MD`: write a Make dependency file.
    pub depfile: bool,
    /// `-MF FILE`: the dependency file's name.
    pub depfile_path: Option<PathBuf>,
    /// `-no-warnings`: print errors only.
    pub no_warnings: bool,
    /// `-WX`: a warning fails the compilation.
    pub warnings_as_errors: bool,
    /// `-help`, `-?`, `--help`: print the usage.
    pub help: bool,
    /// `--version`: print the version.
    pub version: bool,
    /// `-Qembed_debug` was given (read after every option: it needs `-Zi`).
    embed_debug: bool,
    /// `-Qstrip_debug` was given (read after every option: it wins over `-Zi`).
    strip_debug: bool,
}

impl DxcArgs {
    /// The name of the `-Fh` header's array: `-Vn`, else `g_` and the entry point.
    pub fn header_array_name(&self) -> String {
        self.header_name
            .clone()
            .unwrap_or_else(|| format!("g_{}", self.options.entry))
    }
}

/// The C header DXC's `-Fh` writes: the disassembly inside `#if 0`, then the bytes as
/// `const unsigned char NAME[] = { 0x03, ... };`, twelve a line, with CRLF line ends as DXC
/// writes them on every system.
///
/// ```
/// let h = oneshader::dxc_args::c_header("g_main", &[3, 2, 0x23, 7], "; SPIR-V\nOpCapability Shader");
/// assert_eq!(
///     h,
///     "#if 0\r\n; SPIR-V\r\nOpCapability Shader\r\n#endif\r\n\r\nconst unsigned char g_main[] = {\r\n  0x03, 0x02, 0x23, 0x07\r\n};\r\n"
/// );
/// ```
pub fn c_header(name: &str, bytes: &[u8], disassembly: &str) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(disassembly.len() * 11 / 10 + bytes.len() * 6 + 100);
    s.push_str("#if 0\r\n");
    for c in disassembly.trim_end_matches(['\0', '\n']).chars() {
        if c == '\n' {
            s.push('\r');
        }
        s.push(c);
    }
    s.push_str("\r\n#endif\r\n");
    let _ = write!(s, "\r\nconst unsigned char {name}[] = {{");
    for (i, b) in bytes.iter().enumerate() {
        if i != 0 {
            s.push(',');
        }
        if i % 12 == 0 {
            s.push_str("\r\n ");
        }
        let _ = write!(s, " 0x{b:02x}");
    }
    s.push_str("\r\n};\r\n");
    s
}

impl CompileOptions {
    /// The compile options of a dxc-style command line (`["-T", "ps_6_0", "-E", "main",
    /// "-fvk-invert-y"]`): the same reading as `oneshader compile`'s ([`DxcArgs::parse`]),
    /// keeping only the options; the input file and output files, if named, are left out.
    /// An option OneShader refuses, or one that does not parse, is an [`ArgError`] naming it.
    ///
    /// ```
    /// use oneshader::{CompileOptions, OptLevel};
    ///
    /// let o = CompileOptions::from_dxc_args(["-T", "cs_6_0", "-E", "CSMain", "-Od", "-DN=4"])?;
    /// assert_eq!((o.profile.as_str(), o.entry.as_str()), ("cs_6_0", "CSMain"));
    /// assert_eq!(o.opt_level, OptLevel::O0);
    /// let e = CompileOptions::from_dxc_args(["-T", "ps_6_0", "-Zs"]).unwrap_err();
    /// assert_eq!((e.code, e.option.as_deref()), ("OSC0050", Some("-Zs")));
    /// # Ok::<(), oneshader::dxc_args::ArgError>(())
    /// ```
    pub fn from_dxc_args<I, S>(args: I) -> Result<CompileOptions, ArgError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let args: Vec<String> = args.into_iter().map(Into::into).collect();
        Ok(DxcArgs::parse(&args)?.options)
    }
}

/// One matched option: its table row, how it was spelled, and its values.
struct Matched<'a> {
    spec: &'static OptionSpec,
    spelled: &'a str,
    values: Vec<String>,
}

/// Finds the option `arg` spells (DXC's rule: the longest name the argument starts with
/// whose form accepts it) and takes its values from the following arguments.
fn match_option<'a>(args: &'a [String], i: &mut usize) -> Result<Option<Matched<'a>>, ArgError> {
    let arg = args[*i].as_str();
    let (prefix, body) = if let Some(b) = arg.strip_prefix("--") {
        ("--", b)
    } else if let Some(b) = arg.strip_prefix('-') {
        ("-", b)
    } else if let Some(b) = arg.strip_prefix('/') {
        // An existing file is an input (`/tmp/a.hlsl`), not `/T mp/a.hlsl`.
        if std::path::Path::new(arg).exists() {
            return Ok(None);
        }
        ("/", b)
    } else {
        return Ok(None);
    };
    let mut best: Option<(&'static OptionSpec, &'a str)> = None;
    for spec in OPTIONS {
        if !spec.takes_prefix(prefix) {
            continue;
        }
        let rest = if body == spec.name {
            ""
        } else if let Some(rest) = body.strip_prefix(spec.name) {
            match spec.form {
                Form::Joined | Form::JoinedOrSeparate | Form::CommaJoined => rest,
                // OneShader's long options also take `--target=ir`.
                Form::Separate if prefix == "--" && rest.starts_with('=') => rest,
                _ => continue,
            }
        } else {
            continue;
        };
        if best.is_none_or(|(b, _)| spec.name.len() > b.name.len()) {
            best = Some((spec, rest));
        }
    }
    let Some((spec, rest)) = best else {
        if prefix == "/" {
            // Not an option of DXC's with a slash: a path.
            return Ok(None);
        }
        return Err(ArgError::new(arg, format!("unknown option `{arg}`")));
    };
    let mut next = |what: &str| -> Result<String, ArgError> {
        *i += 1;
        args.get(*i)
            .cloned()
            .ok_or_else(|| ArgError::new(arg, format!("option `{arg}` needs {what}")))
    };
    let values = match spec.form {
        Form::Flag => Vec::new(),
        Form::Joined => vec![rest.to_string()],
        Form::CommaJoined => rest.split(',').map(str::to_string).collect(),
        Form::Separate if !rest.is_empty() => vec![rest[1..].to_string()],
        Form::Separate => vec![next("a value")?],
        Form::JoinedOrSeparate if !rest.is_empty() => vec![rest.to_string()],
        Form::JoinedOrSeparate => vec![next("a value")?],
        Form::Multi(n) => {
            let mut v = Vec::new();
            for _ in 0..n {
                v.push(next(&format!("{n} values"))?);
            }
            v
        }
    };
    Ok(Some(Matched {
        spec,
        spelled: arg,
        values,
    }))
}

impl DxcArgs {
    /// Reads a dxc-style command line (without the program name). Refused options, unknown
    /// ones, missing or malformed values and a second input file are [`ArgError`]s (code
    /// OSC0050; an unknown target environment OSC0055). Whether an input and `-T` were given
    /// is left to the caller ([`DxcArgs::input`], [`DxcArgs::profile_given`]).
    pub fn parse(args: &[String]) -> Result<DxcArgs, ArgError> {
        let mut d = DxcArgs::default();
        let mut env: Option<String> = None;
        let mut fi: Option<PathBuf> = None;
        let mut i = 0;
        while i < args.len() {
            let a = args[i].as_str();
            let m = if a == "-" {
                None
            } else {
                match_option(args, &mut i)?
            };
            let Some(m) = m else {
                if let Some(first) = &d.input {
                    return Err(ArgError::new(
                        a,
                        format!("more than one input file (`{}` and `{a}`)", first.display()),
                    ));
                }
                d.input = Some(PathBuf::from(a));
                i += 1;
                continue;
            };
            match m.spec.support {
                Support::Refused(why) => {
                    return Err(ArgError::new(
                        m.spelled,
                        format!("`{}` is not supported: {why}", m.spelled),
                    ));
                }
                Support::NoEffect(_) => {
                    if m.spec.name == "W" && !m.values[0].starts_with("no-") {
                        return Err(ArgError::new(
                            m.spelled,
                            format!(
                                "`{}` is not supported: OneShader's warnings have their own codes; `-WX` makes every warning an error",
                                m.spelled
                            ),
                        ));
                    }
                }
                Support::Honoured(_) => d.apply(&m, &mut env, &mut fi)?,
            }
            i += 1;
        }
        // Debug information: `-Qembed_debug` needs `-Zi`; `-Qstrip_debug` removes it.
        if d.embed_debug {
            if d.options.debug_info == crate::DebugInfo::None {
                return Err(ArgError::new(
                    "-Qembed_debug",
                    "`-Qembed_debug` embeds the source in debug information: it needs `-Zi`",
                ));
            }
            d.options.debug_info = match d.options.debug_info {
                crate::DebugInfo::Vulkan | crate::DebugInfo::VulkanWithSource => {
                    crate::DebugInfo::VulkanWithSource
                }
                crate::DebugInfo::Rich | crate::DebugInfo::RichWithSource => {
                    crate::DebugInfo::RichWithSource
                }
                _ => crate::DebugInfo::LinesWithSource,
            };
        }
        if d.strip_debug {
            d.options.debug_info = crate::DebugInfo::None;
        }
        // `-P` writes the preprocessed text only: to `-Fi`, else beside the input.
        match (d.preprocess.is_some(), fi) {
            (true, Some(f)) => d.preprocess = Some(f),
            (true, None) => {
                let input = d.input.clone().unwrap_or_else(|| PathBuf::from("-"));
                d.preprocess = Some(if input.as_os_str() == "-" {
                    input
                } else {
                    input.with_extension("i")
                });
            }
            (false, Some(_)) => {
                return Err(ArgError::new(
                    "-Fi",
                    "`-Fi` names the file `-P` writes; without `-P` nothing would be written",
                ));
            }
            (false, None) => {}
        }
        if d.preprocess.is_some() {
            let others = [
                (d.output.is_some(), "-Fo"),
                (d.header.is_some(), "-Fh"),
                (d.listing.is_some(), "-Fc"),
                (d.reflect.is_some(), "-Fre"),
                (d.depfile, "-MD"),
            ];
            if let Some((_, name)) = others.iter().find(|(given, _)| *given) {
                return Err(ArgError::new(
                    *name,
                    format!("`-P` only preprocesses: `{name}` would not be written"),
                ));
            }
        }
        // Options that belong to one target.
        let spirv_out = matches!(d.output_kind, OutputKind::Spirv | OutputKind::SpirvAsm);
        for (given, name) in [(d.header.is_some(), "-Fh"), (d.listing.is_some(), "-Fc")] {
            if given && d.output_kind != OutputKind::Spirv {
                return Err(ArgError::new(
                    name,
                    format!("`{name}` writes SPIR-V (`--target spirv`, the default)"),
                ));
            }
        }
        if d.options.spirv_preserve_interface && !spirv_out {
            return Err(ArgError::new(
                "-fspv-preserve-interface",
                "`-fspv-preserve-interface` keeps unused stage variables in the SPIR-V entry point; it has no meaning for this `--target`",
            ));
        }
        if d.options.spirv_reflect && !spirv_out {
            return Err(ArgError::new(
                "-fspv-reflect",
                "`-fspv-reflect` adds SPIR-V reflection decorations (UserSemantic, UserTypeGOOGLE, CounterBuffer); this `--target` has no such decorations, so it is refused rather than ignored",
            ));
        }
        if d.options.spirv_allowed_extensions.is_some() && !spirv_out {
            return Err(ArgError::new(
                "-fspv-extension=",
                "`-fspv-extension=` restricts the SPIR-V extensions; it has no meaning for this `--target`",
            ));
        }
        // GLSL takes them as `#line` directives, WGSL and MSL as `// file:line` comments.
        if d.options.debug_info != crate::DebugInfo::None
            && !spirv_out
            && !matches!(
                d.output_kind,
                OutputKind::Glsl | OutputKind::Wgsl | OutputKind::Msl
            )
        {
            let set = match d.options.debug_info {
                crate::DebugInfo::Vulkan | crate::DebugInfo::VulkanWithSource => Some(
                    "`-fspv-debug=vulkan`/`vulkan-with-source` write debug information into SPIR-V (NonSemantic.Shader.DebugInfo.100)",
                ),
                crate::DebugInfo::Rich | crate::DebugInfo::RichWithSource => Some(
                    "`-fspv-debug=rich`/`rich-with-source` write debug information into SPIR-V (OpenCL.DebugInfo.100)",
                ),
                _ => None,
            };
            return Err(if let Some(set) = set {
                ArgError::new(
                    "-fspv-debug=",
                    format!(
                        "{set} and source lines into GLSL, WGSL and MSL; this `--target` has none (the `.osir` source map always holds the positions), so it is refused rather than ignored"
                    ),
                )
            } else {
                ArgError::new(
                    "-Zi",
                    "`-Zi`/`-fspv-debug=line` write line information into SPIR-V, GLSL, WGSL and MSL; this `--target` has none (the `.osir` source map always holds the positions), so it is refused rather than ignored",
                )
            });
        }
        if d.options.spirv_entry_point_name.is_some() && !spirv_out {
            return Err(ArgError::new(
                "-fspv-entrypoint-name=",
                "`-fspv-entrypoint-name=` names the SPIR-V entry point; it has no meaning for this `--target`",
            ));
        }
        if d.options.spirv_entry_point_name.is_some()
            && d.options.profile.to_ascii_lowercase().starts_with("lib")
        {
            return Err(ArgError::new(
                "-fspv-entrypoint-name=",
                "`-fspv-entrypoint-name=` names the one entry point of a stage profile; a `lib_*` module has several",
            ));
        }
        if let Some(env) = env {
            d.options.target_env =
                env.parse()
                    .map_err(|e: crate::backends::spirv::UnknownTargetEnv| ArgError {
                        code: "OSC0055",
                        option: Some("-fspv-target-env".into()),
                        message: e.to_string(),
                    })?;
        }
        Ok(d)
    }

    /// Applies one honoured option.
    fn apply(
        &mut self,
        m: &Matched<'_>,
        env: &mut Option<String>,
        fi: &mut Option<PathBuf>,
    ) -> Result<(), ArgError> {
        let c = &mut self.options;
        let v = |k: usize| m.values[k].as_str();
        let spelled = m.spelled;
        let bad = |what: String| ArgError::new(spelled, what);
        let number = |k: usize| -> Result<u32, ArgError> {
            m.values[k].parse::<u32>().map_err(|_| {
                ArgError::new(
                    spelled,
                    format!("`{spelled}` takes a number, not `{}`", m.values[k]),
                )
            })
        };
        match m.spec.name {
            "D" => c.macros.push(MacroOp::Define(v(0).to_string())),
            "U" => c.macros.push(MacroOp::Undef(v(0).to_string())),
            "I" => c.include_dirs.push(PathBuf::from(v(0))),
            "O0" | "Od" => c.opt_level = OptLevel::O0,
            "O" | "O1" | "O2" | "O3" => c.opt_level = OptLevel::O,
            "help" | "help-hidden" | "?" | "h" => self.help = true,
            "version" => self.version = true,
            "MD" => self.depfile = true,
            "MF" => {
                self.depfile = true;
                self.depfile_path = Some(PathBuf::from(v(0)));
            }
            "HV" => {
                // `202x` is DXC's name for the language after 2021.
                c.hlsl_version = match v(0) {
                    "202x" => 2021,
                    y @ ("2016" | "2017" | "2018" | "2021") => y.parse().unwrap_or(2021),
                    other => {
                        return Err(bad(format!(
                            "`-HV` takes 2016, 2017, 2018, 2021 or 202x, not `{other}`"
                        )));
                    }
                };
            }
            "no-warnings" => self.no_warnings = true,
            "WX" => self.warnings_as_errors = true,
            "enable-16bit-types" => c.enable_16bit_types = true,
            "auto-binding-space" => c.default_space = Some(number(0)?),
            "encoding" => {
                if !v(0).eq_ignore_ascii_case("utf8") {
                    return Err(bad(format!(
                        "`-encoding {}` is not supported: OneShader reads and writes utf8 only",
                        v(0)
                    )));
                }
            }
            "spirv" => {}
            "fvk-b-shift" | "fvk-t-shift" | "fvk-s-shift" | "fvk-u-shift" => {
                let class = m.spec.name.as_bytes()[4] as char;
                let shift = number(0)?;
                let space = match v(1) {
                    "all" => None,
                    _ => Some(number(1)?),
                };
                c.binding_shifts.push(hlsl::BindingShift {
                    class,
                    shift,
                    space,
                });
            }
            "fvk-bind-globals" => c.bind_globals = Some((number(0)?, number(1)?)),
            "fvk-bind-resource-heap" => c.bind_resource_heap = Some((number(0)?, number(1)?)),
            "fvk-bind-sampler-heap" => c.bind_sampler_heap = Some((number(0)?, number(1)?)),
            "fvk-bind-counter-heap" => c.bind_counter_heap = Some((number(0)?, number(1)?)),
            "fvk-bind-register" | "vkbr" => {
                let reg = v(0).to_ascii_lowercase();
                let parsed = reg.chars().next().and_then(|class| {
                    let n = reg.get(1..)?.parse::<u32>().ok()?;
                    Some((class, n))
                });
                let Some((class, number_)) = parsed else {
                    return Err(bad(format!(
                        "`{spelled}` takes a register (`t5`), a space, a binding and a set, not `{}`",
                        v(0)
                    )));
                };
                c.bind_registers.push(crate::RegisterBinding {
                    class,
                    number: number_,
                    space: number(1)?,
                    binding: number(2)?,
                    set: number(3)?,
                });
            }
            "fvk-invert-y" => c.invert_y = true,
            "fvk-use-dx-position-w" => c.dx_position_w = true,
            "fvk-support-nonzero-base-instance" => c.nonzero_base_instance = true,
            "fvk-support-nonzero-base-vertex" => c.nonzero_base_vertex = true,
            "fvk-use-gl-layout" => c.layout = BufferLayout::Gl,
            "fvk-use-dx-layout" => c.layout = BufferLayout::Dx,
            "fvk-use-scalar-layout" => c.layout = BufferLayout::Scalar,
            "fspv-target-env=" | "target-env" => *env = Some(v(0).to_string()),
            "fspv-preserve-bindings" => c.preserve_bindings = true,
            "fspv-preserve-interface" => c.spirv_preserve_interface = true,
            "fspv-reflect" => c.spirv_reflect = true,
            "fvk-auto-shift-bindings" => c.auto_shift_bindings = true,
            "fspv-flatten-resource-arrays" => c.flatten_resource_arrays = true,
            "fspv-use-unknown-image-format" => c.unknown_image_format = true,
            "T" => {
                c.profile = v(0).to_string();
                self.profile_given = true;
            }
            "E" => c.entry = v(0).to_string(),
            "Zpr" => c.matrix_order = MatrixOrder::RowMajor,
            "Zpc" => c.matrix_order = MatrixOrder::ColumnMajor,
            "denorm" => {
                c.denorm = match v(0) {
                    "preserve" => Some(crate::backends::spirv::DenormMode::Preserve),
                    "ftz" => Some(crate::backends::spirv::DenormMode::FlushToZero),
                    "any" => None,
                    other => {
                        return Err(bad(format!(
                            "`-denorm` takes preserve, ftz or any, not `{other}`"
                        )));
                    }
                }
            }
            "Fo" | "o" => self.output = Some(PathBuf::from(v(0))),
            "no-names" => c.debug_names = false,
            "Qstrip_debug" => {
                c.debug_names = false;
                self.strip_debug = true;
            }
            // `-Zi` asks for line information at least: it keeps `-fspv-debug=vulkan*`.
            "Zi" => {
                if c.debug_info == crate::DebugInfo::None {
                    c.debug_info = crate::DebugInfo::Lines;
                }
            }
            "fspv-debug=" => {
                let keep_source = matches!(
                    c.debug_info,
                    crate::DebugInfo::LinesWithSource
                        | crate::DebugInfo::VulkanWithSource
                        | crate::DebugInfo::RichWithSource
                );
                c.debug_info = match v(0) {
                    // Line information never lowers debug information asked for.
                    "line" => match c.debug_info {
                        crate::DebugInfo::None => crate::DebugInfo::Lines,
                        other => other,
                    },
                    "vulkan" if keep_source => crate::DebugInfo::VulkanWithSource,
                    "vulkan" => crate::DebugInfo::Vulkan,
                    "vulkan-with-source" => crate::DebugInfo::VulkanWithSource,
                    "rich" if keep_source => crate::DebugInfo::RichWithSource,
                    "rich" => crate::DebugInfo::Rich,
                    "rich-with-source" => crate::DebugInfo::RichWithSource,
                    other => {
                        return Err(bad(format!(
                            "`-fspv-debug={other}` is not supported: {}",
                            table::DEBUG_INFO
                        )));
                    }
                };
            }
            "Qembed_debug" => self.embed_debug = true,
            "fspv-extension=" => {
                if v(0).is_empty() {
                    return Err(bad("`-fspv-extension=` needs an extension name".into()));
                }
                c.spirv_allowed_extensions
                    .get_or_insert_with(Vec::new)
                    .push(v(0).to_string());
            }
            "fspv-entrypoint-name=" => {
                if v(0).is_empty() {
                    return Err(bad("`-fspv-entrypoint-name=` needs a name".into()));
                }
                c.spirv_entry_point_name = Some(v(0).to_string());
            }
            "target" => {
                self.output_kind = OutputKind::from_name(v(0)).ok_or_else(|| {
                    bad(format!(
                        "unknown target `{}` (spirv, spirv-asm, glsl, wgsl, msl, ir, osir or reflection)",
                        v(0)
                    ))
                })?;
            }
            "reflect" | "Fre" => self.reflect = Some(PathBuf::from(v(0))),
            "Fh" => self.header = Some(PathBuf::from(v(0))),
            "Vn" => self.header_name = Some(v(0).to_string()),
            "Fc" => self.listing = Some(PathBuf::from(v(0))),
            "P" => self.preprocess = Some(PathBuf::new()),
            "Fi" => *fi = Some(PathBuf::from(v(0))),
            #[cfg(feature = "msl")]
            "msl-binding-map" => {
                let path = v(0);
                let text = std::fs::read_to_string(path)
                    .map_err(|e| bad(format!("`--msl-binding-map {path}`: {e}")))?;
                c.msl_binding_map = Some(
                    crate::backends::msl::BindingMap::from_json(&text)
                        .map_err(|e| bad(format!("`--msl-binding-map {path}`: {e}")))?,
                );
            }
            "wgsl-binding-map" => {
                let path = v(0);
                let text = std::fs::read_to_string(path)
                    .map_err(|e| bad(format!("`--wgsl-binding-map {path}`: {e}")))?;
                c.wgsl_binding_map = Some(
                    crate::backends::bindings::WgslBindingMap::from_json(&text)
                        .map_err(|e| bad(format!("{path}:{e}")))?,
                );
            }
            #[cfg(feature = "msl")]
            "msl-version" => {
                c.msl_version = v(0)
                    .parse()
                    .map_err(|e| bad(format!("`--msl-version`: {e}")))?;
            }
            #[cfg(feature = "msl")]
            "msl-buffer-sizes-index" => {
                c.msl_buffer_sizes_index = v(0).parse().map_err(|_| {
                    bad(format!(
                        "`--msl-buffer-sizes-index` takes a buffer index, not `{}`",
                        v(0)
                    ))
                })?;
            }
            #[cfg(not(feature = "msl"))]
            "msl-binding-map" | "msl-version" | "msl-buffer-sizes-index" => {
                return Err(bad(format!(
                    "`--{}` sets the MSL output, and this build of OneShader has no MSL \
                     backend (cargo feature `msl`)",
                    m.spec.name
                )));
            }
            "spec-const" => {
                let text = v(0);
                let (key, val) = text.split_once('=').ok_or_else(|| {
                    bad(format!(
                        "`--spec-const` takes ID=VALUE or NAME=VALUE, not `{text}`"
                    ))
                })?;
                let parsed = crate::parse_spec_value(val).ok_or_else(|| {
                    bad(format!(
                        "`--spec-const {text}`: `{val}` is not true, false, an integer or a float"
                    ))
                })?;
                let key = key.parse().unwrap_or(crate::SpecConstKey::Name(key.into()));
                c.spec_constants.push((key, parsed));
            }
            other => {
                // A row marked honoured without a reading here: a bug of this file, reported
                // rather than ignored (the table test exercises every honoured row).
                return Err(bad(format!(
                    "`{spelled}` (`{other}`) is marked honoured but not read"
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TargetEnv;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn every_output_kind_is_read_back_from_its_name() {
        use OutputKind as K;
        for k in [
            K::Spirv,
            K::SpirvAsm,
            K::Glsl,
            K::Wgsl,
            K::Msl,
            K::Ir,
            K::Osir,
            K::Reflection,
        ] {
            assert_eq!(OutputKind::from_name(k.name()), Some(k), "{k:?}");
        }
        assert_eq!(OutputKind::from_name("spirv-bin"), None);
    }

    #[test]
    fn dxc_spellings() {
        let p = DxcArgs::parse(&s(&[
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
        assert_eq!(p.input, Some(PathBuf::from("a.hlsl")));
        let c = &p.options;
        assert_eq!(c.profile, "ps_6_0");
        assert_eq!(c.entry, "PSMain");
        assert_eq!(c.hlsl_version, 2021);
        assert_eq!(c.opt_level, OptLevel::O0);
        assert_eq!(c.target_env, TargetEnv::Vulkan1_3);
        assert_eq!(p.output, Some(PathBuf::from("out.spv")));
        assert!(c.matrix_order == MatrixOrder::RowMajor && c.enable_16bit_types);
        assert_eq!(
            c.macros,
            vec![
                MacroOp::Define("X=1".into()),
                MacroOp::Define("Y".into()),
                MacroOp::Undef("Z".into())
            ]
        );
        assert_eq!(c.include_dirs, vec![PathBuf::from("inc")]);
        let p = DxcArgs::parse(&s(&[
            "-TCS_6_0",
            "b.hlsl",
            "--target=ir",
            "-O3",
            "--target-env",
            "vulkan1.0",
        ]))
        .unwrap();
        assert_eq!(p.output_kind, OutputKind::Ir);
        assert_eq!(p.options.opt_level, OptLevel::O);
        assert_eq!(p.options.target_env, TargetEnv::Vulkan1_0);
        let p = DxcArgs::parse(&s(&[
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
        assert!(p.options.invert_y);
        assert_eq!(
            p.options.binding_shifts,
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
        let e = DxcArgs::parse(&s(&["a.hlsl", "-T", "ps_6_0", "-bogus"])).unwrap_err();
        assert_eq!(e.option.as_deref(), Some("-bogus"));
        let e = DxcArgs::parse(&s(&["a.hlsl", "b.hlsl"])).unwrap_err();
        assert!(e.message.contains("more than one input"), "{e}");
        let e = DxcArgs::parse(&s(&["a.hlsl", "-fspv-target-env=vulkan9"])).unwrap_err();
        assert_eq!(e.code, "OSC0055");
    }

    #[test]
    fn slash_spellings_take_values() {
        let p = DxcArgs::parse(&s(&[
            "/T", "ps_6_0", "/E", "PSMain", "/Fo", "x.spv", "/DA=1", "/Zpr", "/O3", "a.hlsl",
        ]))
        .unwrap();
        assert_eq!(p.options.profile, "ps_6_0");
        assert_eq!(p.options.entry, "PSMain");
        assert_eq!(p.output, Some(PathBuf::from("x.spv")));
        assert_eq!(p.options.macros, vec![MacroOp::Define("A=1".into())]);
        assert_eq!(p.options.matrix_order, MatrixOrder::RowMajor);
        // An option DXC takes with a dash only is not an option with a slash: a path.
        let p = DxcArgs::parse(&s(&["/fvk-invert-y"])).unwrap();
        assert_eq!(p.input, Some(PathBuf::from("/fvk-invert-y")));
        // An existing file is an input even when it looks like `/T...`.
        let tmp = std::env::temp_dir();
        let p = DxcArgs::parse(&[tmp.display().to_string()]).unwrap();
        assert_eq!(p.input, Some(tmp));
    }

    #[test]
    fn warnings_other_than_no_are_refused() {
        assert!(DxcArgs::parse(&s(&["-Wno-unused-value"])).is_ok());
        let e = DxcArgs::parse(&s(&["-Werror"])).unwrap_err();
        assert_eq!(e.option.as_deref(), Some("-Werror"));
        let p = DxcArgs::parse(&s(&["-WX"])).unwrap();
        assert!(p.warnings_as_errors);
    }

    #[test]
    fn longest_name_wins_and_forms_hold() {
        // `-Fre` is not `-Fe` with `re`; `-Odump` is not `-O` plus `dump`.
        let e = DxcArgs::parse(&s(&["-Odump"])).unwrap_err();
        assert_eq!(e.option.as_deref(), Some("-Odump"));
        // A flag takes no attached value: `-Zprx` is unknown.
        let e = DxcArgs::parse(&s(&["-Zprx"])).unwrap_err();
        assert!(e.message.contains("unknown option"), "{e}");
        // A missing value names the option.
        let e = DxcArgs::parse(&s(&["-fvk-b-shift", "1"])).unwrap_err();
        assert!(e.message.contains("`-fvk-b-shift` needs 2 values"), "{e}");
    }
}
