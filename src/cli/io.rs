//! Files named on the command line, where `-` is standard input (for an input) or standard
//! output (for an output), for every command. Diagnostics name standard input `<stdin>`.
//! Binary output (SPIR-V, `.osir`) to a terminal is refused with a hint (OSC0005).

use std::io::{IsTerminal as _, Read as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::OnceLock;

/// The name diagnostics give standard input.
pub const STDIN_NAME: &str = "<stdin>";

/// Whether `path` is `-`, standard input or output.
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// The name of an input in diagnostics: `<stdin>` for `-`.
pub fn input_name(path: &Path) -> String {
    if is_stdio(path) {
        STDIN_NAME.to_string()
    } else {
        path.display().to_string()
    }
}

/// Standard input, read once (a second `-` gets the same bytes).
fn stdin_bytes() -> std::io::Result<Vec<u8>> {
    static STDIN: OnceLock<Result<Vec<u8>, String>> = OnceLock::new();
    STDIN
        .get_or_init(|| {
            let mut v = Vec::new();
            std::io::stdin()
                .lock()
                .read_to_end(&mut v)
                .map(|_| v)
                .map_err(|e| e.to_string())
        })
        .clone()
        .map_err(std::io::Error::other)
}

/// Reads an input file, or standard input for `-`.
pub fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    if is_stdio(path) {
        stdin_bytes()
    } else {
        std::fs::read(path)
    }
}

/// Whether the output goes to standard output (`None` or `-`).
pub fn to_stdout(path: Option<&Path>) -> bool {
    path.is_none_or(is_stdio)
}

/// Writes a command's output to `path`, or to standard output for `None` or `-`
/// ([`super::write_stdout`]). `binary` output to a terminal is refused (OSC0005). A file that
/// cannot be written is `error[CODE]` with `code` (exit 1), and no half-written file is left
/// at `path`: the bytes go to a temporary file beside it, renamed over it once complete.
pub fn write(path: Option<&Path>, bytes: &[u8], binary: bool, code: &str) -> ExitCode {
    match path {
        Some(p) if !is_stdio(p) => match write_whole(p, bytes) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error[{code}]: cannot write {}: {e}", p.display());
                ExitCode::from(1)
            }
        },
        _ => {
            if binary && std::io::stdout().is_terminal() {
                eprintln!(
                    "error[OSC0005]: binary output is not written to a terminal; \
                     name a file with `-o FILE`, or pipe it (`| xxd`)"
                );
                return ExitCode::from(1);
            }
            super::write_stdout(bytes)
        }
    }
}

/// Refuses a command line that sends two outputs to standard output (OSC0050), where they
/// would be interleaved: `outputs` are each output's name (`-o`, `--reflect`...) and path.
pub fn one_stdout(outputs: &[(&str, Option<&PathBuf>, bool)]) -> Result<(), String> {
    let to: Vec<&str> = outputs
        .iter()
        .filter(|(_, p, wanted)| *wanted && to_stdout(p.map(PathBuf::as_path)))
        .map(|(n, _, _)| *n)
        .collect();
    if to.len() > 1 {
        return Err(format!(
            "{} all write to standard output; give all but one of them a file",
            to.join(" and ")
        ));
    }
    Ok(())
}

/// Writes `bytes` to `path` whole or not at all: into `.NAME.PID.tmp` in the same directory
/// (so the rename cannot cross file systems), then renamed over `path`. The temporary file is
/// removed when a step fails. A path that exists and is not a regular file (`/dev/null`, a
/// FIFO a build tool reads) is written in place: renaming over it would replace it.
fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return std::fs::write(path, bytes);
    }
    let name = path.file_name().ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "the path names no file")
    })?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    let result = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
