//! `oneshader compile FILE.hlsl -T PROFILE -E ENTRY [--target spirv|spirv-asm|glsl|wgsl|msl|ir|osir|reflection]
//! [-O0|-O] [-D..] [-I..] [--target-env ENV] [--reflect OUT.json] [-MD] [-MF FILE] -o OUT`: the
//! whole pipeline. HLSL is preprocessed, parsed, analyzed and lowered to IR; legalization (and
//! at `-O` the optimizer) runs; the SPIR-V backend writes the binary (or `--target spirv-asm`
//! its disassembly, `--target glsl` the GLSL backend the GLSL text, `--target wgsl` the WGSL
//! backend the WGSL text, `--target msl` the MSL backend the Metal Shading Language text,
//! `--target ir` the IR text,
//! `--target osir` the binary module with its module key, `--target reflection` the reflection
//! JSON). The pipeline is the library's ([`oneshader::Compiler`]): this file only reads the
//! command line and writes files.
//!
//! Options follow dxc's spellings, which clap cannot express (`-fcgl`, `-HV 2021`, `-Fo OUT`,
//! `-O3`, `/T ps_6_0`): the library's [`oneshader::dxc_args::DxcArgs::parse`] reads them, and
//! its table of every DXC option (docs/cli.md, "Every DXC option") says which are honoured,
//! which refused (OSC0050 naming the option) and which cannot change the output.
//!
//! | code | meaning |
//! |---|---|
//! | OSC0050 | bad command line (unknown or refused option, missing value, no input file) |
//! | OSC0051 | the output (or reflection) file cannot be written |
//! | OSC0052 | the legalization pipeline failed |
//! | OSC0053 | the backend (SPIR-V or GLSL) refused the module |
//! | OSC0054 | retired (was: `--reflect` is not available yet) |
//! | OSC0055 | unknown target environment |
//! | OSC0056 | reflection failed: a buffer's contents have no layout under its rule |
//! | OSC0057 | a `--spec-const` names no spec constant of the shader, or its value does not fit |
//! | OSC0058 | `-MD` without an output file (`-o`) or `-MF` file |
//! | OSC0060 | `-WX`: the compilation gave warnings |

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::io;
use oneshader::Compiler;
use oneshader::dxc_args::DxcArgs;

/// Arguments of `oneshader compile` (read by hand: dxc's spellings).
#[derive(Args, Debug)]
pub struct CompileArgs {
    /// FILE.hlsl followed by dxc-style options: -T PROFILE -E ENTRY [--target spirv|glsl|wgsl|msl|ir|osir]
    /// [-O0|-O] [-D NAME[=V]] [-U NAME] [-I DIR] [--target-env ENV] [-enable-16bit-types]
    /// [-Zpr|-Zpc] [--reflect OUT.json] -o OUT (see docs/cli.md).
    #[arg(allow_hyphen_values = true, trailing_var_arg = true, num_args = 0..)]
    pub args: Vec<String>,
}

const USAGE: &str = "usage: oneshader compile FILE.hlsl -T PROFILE [-E ENTRY] \
[--target spirv|spirv-asm|glsl|wgsl|msl|ir|osir|reflection] [-O0|-O] [-D NAME[=V]]... [-U NAME]... [-I DIR]... \
[--target-env ENV] [-enable-16bit-types] [-Zpr|-Zpc] [--spec-const ID|NAME=VALUE]... [--no-names] \
[--reflect OUT.json] [--msl-binding-map FILE] [--msl-version V] [--msl-buffer-sizes-index N] [-MD] [-MF FILE] [-o OUT] \
(every DXC option: docs/cli.md)";

/// The parsed command line: [`DxcArgs`] with the input and `-T` present.
struct Parsed {
    file: PathBuf,
    args: DxcArgs,
}

/// Reads the command line; `Ok(None)` after printing the usage or the version.
fn parse_args(args: &[String]) -> Result<Option<Parsed>, oneshader::dxc_args::ArgError> {
    let d = DxcArgs::parse(args)?;
    if d.help {
        super::write_stdout(format!("{USAGE}\n").as_bytes());
        return Ok(None);
    }
    if d.version {
        super::write_stdout(format!("oneshader {}\n", env!("CARGO_PKG_VERSION")).as_bytes());
        return Ok(None);
    }
    let plain = oneshader::dxc_args::ArgError::plain;
    let file = d.input.clone().ok_or_else(|| plain("no input file"))?;
    if !d.profile_given {
        return Err(plain("`-T PROFILE` is required (e.g. -T ps_6_0)"));
    }
    Ok(Some(Parsed { file, args: d }))
}

/// `-P`: writes the preprocessed text to `to`.
fn preprocess(
    file: &std::path::Path,
    to: &std::path::Path,
    opts: &oneshader::CompileOptions,
) -> ExitCode {
    let name = io::input_name(file);
    let mut compiler = Compiler::new();
    let path = if io::is_stdio(file) {
        match io::read(file).map(String::from_utf8) {
            Ok(Ok(text)) => {
                compiler.add_include(io::STDIN_NAME, text);
                std::path::PathBuf::from(io::STDIN_NAME)
            }
            _ => {
                eprintln!("error[OSC0002]: cannot read {name} as UTF-8 text");
                return ExitCode::from(1);
            }
        }
    } else {
        file.to_path_buf()
    };
    match compiler.preprocess_file(&path, opts) {
        Ok(out) => {
            if !out.diagnostics.is_empty() {
                eprint!("{}", out.diagnostics.render());
            }
            io::write(Some(to), out.text.as_bytes(), false, "OSC0051")
        }
        Err(e) => {
            eprint!("{}", e.diagnostics.render());
            eprintln!("{}", e.summary());
            ExitCode::from(1)
        }
    }
}

/// Runs `oneshader compile`.
pub fn run(args: CompileArgs) -> ExitCode {
    let (file_path, mut p) = match parse_args(&args.args) {
        Ok(Some(p)) => (p.file, p.args),
        Ok(None) => return ExitCode::SUCCESS,
        Err(e) if e.code == "OSC0050" => {
            eprintln!("{e}\n{USAGE}");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(1);
        }
    };
    if let Some(to) = &p.preprocess {
        return preprocess(&file_path, to, &p.options);
    }
    p.output_kind.configure(&mut p.options);
    p.options.reflect |= p.reflect.is_some();
    // Where the dependency file goes: `-MF`, else the output's name with `.d` added.
    let named_output = p.output.clone().filter(|o| !io::is_stdio(o));
    let depfile = match (&p.depfile_path, &named_output) {
        _ if !p.depfile => None,
        (Some(d), _) => Some(d.clone()),
        (None, Some(o)) => Some(PathBuf::from(format!("{}.d", o.display()))),
        (None, None) => {
            eprintln!("error[OSC0058]: -MD needs an output file (-o) or a dependency file (-MF)");
            return ExitCode::from(2);
        }
    };
    let main_output = p.output.is_some() || (p.header.is_none() && p.listing.is_none());
    if let Err(msg) = io::one_stdout(&[
        ("the output", p.output.as_ref(), main_output),
        ("`-Fh`", p.header.as_ref(), p.header.is_some()),
        ("`-Fc`", p.listing.as_ref(), p.listing.is_some()),
        ("`--reflect`", p.reflect.as_ref(), p.reflect.is_some()),
        ("`-MF`", depfile.as_ref(), depfile.is_some()),
    ]) {
        eprintln!("error[OSC0050]: {msg}");
        return ExitCode::from(2);
    }
    let file = io::input_name(&file_path);
    let compiled = if io::is_stdio(&file_path) {
        match io::read(&file_path).map(String::from_utf8) {
            Ok(Ok(text)) => Compiler::new().compile_source(io::STDIN_NAME, text, &p.options),
            Ok(Err(_)) => {
                eprintln!("error[OSC0002]: {file} is not UTF-8 text");
                return ExitCode::from(1);
            }
            Err(e) => {
                eprintln!("error[OSC0002]: cannot read {file}: {e}");
                return ExitCode::from(1);
            }
        }
    } else {
        Compiler::new().compile_file(&file_path, &p.options)
    };
    let out = match compiled {
        Ok(mut out) => {
            if p.no_warnings {
                out.diagnostics.list.retain(|d| d.is_error());
            }
            out
        }
        Err(mut e) => {
            if p.no_warnings {
                e.diagnostics.list.retain(|d| d.is_error());
            }
            // Each diagnostic once (the failing phase's own, OSC0052/53/56, among them),
            // then one line with the count.
            eprint!("{}", e.diagnostics.render());
            eprintln!("{}", e.summary());
            return ExitCode::from(1);
        }
    };
    if !out.diagnostics.is_empty() {
        eprint!("{}", out.diagnostics.render());
    }
    if p.warnings_as_errors && !out.diagnostics.is_empty() {
        let n = out.diagnostics.len();
        let s = if n == 1 { "" } else { "s" };
        eprintln!("{file}: error[OSC0060]: {n} warning{s} and `-WX` (warnings are errors)");
        return ExitCode::from(1);
    }
    // The source map names files relative to the working directory when they are under it
    // (as `oneshader build` names them, relative to its manifest), so the bytes do not
    // depend on where the project sits or how the path was spelled.
    let positions = out.ir.final_positions.as_ref().map(|sm| {
        let cwd = std::env::current_dir().ok();
        let mut sm = sm.clone();
        for f in &mut sm.files {
            if let Some(rel) = cwd
                .as_deref()
                .and_then(|c| std::path::Path::new(f.as_str()).strip_prefix(c).ok())
            {
                *f = rel.display().to_string();
            }
        }
        sm
    });
    let bytes = match p.output_kind.bytes_with_positions(&out, positions.as_ref()) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{file}: error[OSC0051]: {e}");
            return ExitCode::from(1);
        }
    };
    // `-Fh` (the C header) and `-Fc` (the listing) hold the SPIR-V and its disassembly;
    // with either and no `-Fo`, as DXC, only they are written.
    if p.header.is_some() || p.listing.is_some() {
        let disassembly = match oneshader_backends::spirv::disassemble(&out.spirv) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("{file}: error[OSC0051]: cannot disassemble: {e}");
                return ExitCode::from(1);
            }
        };
        if let Some(h) = &p.header {
            let text = oneshader::dxc_args::c_header(&p.header_array_name(), &bytes, &disassembly);
            let written = io::write(Some(h), text.as_bytes(), false, "OSC0051");
            if written != ExitCode::SUCCESS {
                return written;
            }
        }
        if let Some(l) = &p.listing {
            let written = io::write(
                Some(l),
                format!("{disassembly}\n").as_bytes(),
                false,
                "OSC0051",
            );
            if written != ExitCode::SUCCESS {
                return written;
            }
        }
    }
    let main_output = p.output.is_some() || (p.header.is_none() && p.listing.is_none());
    let binary = p.output_kind.is_binary();
    let written = if main_output {
        io::write(p.output.as_deref(), &bytes, binary, "OSC0051")
    } else {
        ExitCode::SUCCESS
    };
    if written != ExitCode::SUCCESS {
        return written;
    }
    if let (Some(path), Some(r)) = (&p.reflect, &out.reflection) {
        let written = io::write(Some(path), r.to_json().as_bytes(), false, "OSC0051");
        if written != ExitCode::SUCCESS {
            return written;
        }
    }
    if let Some(d) = depfile {
        // The rule's target is the output (the dependency file itself when writing to
        // standard output, or the input when both go there); standard input is no file
        // to depend on.
        let target = named_output
            .or_else(|| Some(d.clone()).filter(|d| !io::is_stdio(d)))
            .unwrap_or_else(|| PathBuf::from(&file));
        let inputs: Vec<PathBuf> = out
            .inputs
            .iter()
            .filter(|f| f.as_os_str() != io::STDIN_NAME)
            .cloned()
            .collect();
        let rule = oneshader::depfile::make_rule(&target, &inputs);
        let written = io::write(Some(&d), rule.as_bytes(), false, "OSC0051");
        if written != ExitCode::SUCCESS {
            return written;
        }
    }
    ExitCode::SUCCESS
}
