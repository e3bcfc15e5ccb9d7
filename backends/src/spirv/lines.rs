//! Source-level line information (`-Zi`, `-fspv-debug=line`): an `OpString` per source file a
//! position names (includes are their own files), one `OpSource` for the main file (language
//! HLSL, its version, the file, and its text when [`LineInfo::embed_source`] asks, continued
//! with `OpSourceContinued` past an instruction's size), and `OpLine`/`OpNoLine` before the
//! instructions of function bodies from the IR's positions (`oneshader_ir::positions`).
//!
//! An `OpLine` is written when the position changes and an `OpNoLine` when an instruction
//! without one follows one with one; a block's label ends both (SPIR-V: a line applies until
//! the end of its block), so every block starts without a line. None goes before a block's
//! `OpPhi`s, among the entry block's `OpVariable`s, or between a merge instruction and its
//! branch: a terminator's line is written before its merge instruction.

use oneshader_ir::{InstId, Op};
use rspirv::spirv;

use super::encode::{MAX_WORDS, inst, inst_str};
use super::module::Emitter;

/// The source files line information refers to (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct LineInfo {
    /// The files, indexed by the IR positions' file ids (`oneshader_ir::FileId`).
    pub files: Vec<SourceFile>,
    /// The main file: the one `OpSource` names.
    pub main: u32,
    /// The HLSL version `OpSource` states (DXC's: 600).
    pub version: u32,
    /// Put the main file's text into `OpSource` (`-Qembed_debug`); under a
    /// [`LineInfo::debug_set`] every file's text into its `DebugSource` instead
    /// (`-fspv-debug=vulkan-with-source`, `-fspv-debug=rich-with-source`).
    pub embed_source: bool,
    /// The extended debug instruction set written beside (or in place of) the lines
    /// ([`super::debuginfo`]), if any.
    pub debug_set: Option<DebugSet>,
    /// The command line `DebugEntryPoint` records (NonSemantic.Shader.DebugInfo.100 only).
    pub command_line: String,
}

/// An extended instruction set of debug information ([`super::debuginfo`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DebugSet {
    /// NonSemantic.Shader.DebugInfo.100 (`-fspv-debug=vulkan`), in place of `OpLine`/`OpNoLine`
    /// (its `DebugLine`/`DebugNoLine`); `OpSource` then names no file (the `DebugSource`s are
    /// the files).
    ShaderDebugInfo,
    /// OpenCL.DebugInfo.100 (`-fspv-debug=rich`), beside `OpLine`/`OpNoLine` (the set has no
    /// line instructions of its own) and `OpSource` naming the main file.
    OpenClDebugInfo,
}

/// One source file: its name as the compilation saw it, and its text.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SourceFile {
    /// The name (`OpString`).
    pub name: String,
    /// The text, for line numbers and [`LineInfo::embed_source`].
    pub text: String,
}

/// The emitter's line state.
pub(crate) struct Lines {
    /// `OpString` id per file (0: not used yet).
    strings: Vec<u32>,
    /// Byte offset of each line's start, per file (computed on first use).
    starts: Vec<Option<Vec<u32>>>,
    /// The line in effect: (file string, line, column).
    cur: Option<(u32, u32, u32)>,
}

impl Lines {
    /// The state for `info`'s files.
    pub fn new(info: &LineInfo) -> Lines {
        Lines {
            strings: vec![0; info.files.len()],
            starts: vec![None; info.files.len()],
            cur: None,
        }
    }
}

/// 1-based line and column (in characters) of `offset` in `text`, with `starts` the line
/// starts of `text`.
fn line_col(text: &str, starts: &[u32], offset: u32) -> (u32, u32) {
    let offset = (offset as usize).min(text.len());
    let k = starts.partition_point(|&s| s as usize <= offset).max(1) - 1;
    let start = starts[k] as usize;
    let col = text
        .get(start..offset)
        .map_or(offset - start, |s| s.chars().count());
    (k as u32 + 1, col as u32 + 1)
}

impl Emitter<'_> {
    /// A block's label was written: no line is in effect.
    pub(crate) fn lines_new_block(&mut self) {
        if let Some(l) = &mut self.lines {
            l.cur = None;
        }
        if let Some(d) = &mut self.dbg {
            d.cur = None;
            d.last_line = None;
        }
    }

    /// Writes the `OpLine` (or `OpNoLine`) that instruction `i` needs before it; under
    /// [`DebugSet::ShaderDebugInfo`] the `DebugLine` (or `DebugNoLine`) instead.
    pub(crate) fn line_before(&mut self, i: InstId) {
        let opts = self.opts;
        let (Some(info), Some(_)) = (&opts.line_info, &self.lines) else {
            return;
        };
        let m = self.m;
        if m.op(i) == Op::Var {
            return;
        }
        // The scope first (an instruction without a position stays in the one in effect).
        if self.shader_debug()
            && let Some(o) = m.origin(i)
        {
            self.dbg_enter_scope(o.scope);
        }
        let want = m
            .position(i)
            .filter(|s| (s.file.0 as usize) < info.files.len());
        if info.debug_set == Some(DebugSet::ShaderDebugInfo) {
            self.dbg_line(want);
            return;
        }
        let Some(span) = want else {
            if let Some(l) = &mut self.lines
                && l.cur.take().is_some()
            {
                inst(&mut self.f.body, spirv::Op::NoLine, &[]);
            }
            return;
        };
        let file = span.file.0 as usize;
        let string = self.file_string(file);
        let Some((line, col, _, _)) = self.span_lines(span) else {
            return;
        };
        let Some(l) = &mut self.lines else { return };
        let at = (string, line, col);
        if l.cur != Some(at) {
            l.cur = Some(at);
            inst(&mut self.f.body, spirv::Op::Line, &[string, line, col]);
        }
    }

    /// 1-based (line, column) of the start and of the end of `span`, if its file is known.
    pub(crate) fn span_lines(&mut self, span: oneshader_ir::Span) -> Option<(u32, u32, u32, u32)> {
        let opts = self.opts;
        let info = opts.line_info.as_ref()?;
        let file = span.file.0 as usize;
        let text = &info.files.get(file)?.text;
        let l = self.lines.as_mut()?;
        let starts = l.starts.get_mut(file)?.get_or_insert_with(|| {
            std::iter::once(0)
                .chain(
                    text.bytes()
                        .enumerate()
                        .filter(|&(_, b)| b == b'\n')
                        .map(|(k, _)| k as u32 + 1),
                )
                .collect()
        });
        let (line, col) = line_col(text, starts, span.start);
        let (end_line, end_col) = line_col(text, starts, span.end.max(span.start));
        Some((line, col, end_line, end_col))
    }

    /// The `OpString` id of file `file` (allocated on first use).
    pub(crate) fn file_string(&mut self, file: usize) -> u32 {
        let have = self
            .lines
            .as_ref()
            .and_then(|l| l.strings.get(file).copied())
            .unwrap_or(0);
        if have != 0 {
            return have;
        }
        let id = self.fresh();
        if let Some(l) = &mut self.lines
            && let Some(s) = l.strings.get_mut(file)
        {
            *s = id;
        }
        id
    }

    /// Writes the `OpString`s of the files used and the main file's `OpSource` into the
    /// debug section (after every function, when the files used are known).
    pub(crate) fn emit_sources(&mut self) {
        let opts = self.opts;
        let Some(info) = &opts.line_info else {
            return;
        };
        let main = info.main as usize;
        let main_string = (main < info.files.len()).then(|| self.file_string(main));
        let Some(l) = &self.lines else { return };
        for (k, &id) in l.strings.iter().enumerate() {
            if id != 0 {
                inst_str(
                    &mut self.s.sources,
                    spirv::Op::String,
                    &[id],
                    &info.files[k].name,
                    &[],
                );
            }
        }
        let mut head = vec![spirv::SourceLanguage::HLSL as u32, info.version];
        // Under NonSemantic.Shader.DebugInfo.100 the files are the `DebugSource`s: an
        // `OpSource` naming the main file too would make it a second, empty file to a
        // debugger (RenderDoc lists both and maps lines to the empty one).
        // Under OpenCL.DebugInfo.100 `OpSource` names the main file, as under `-Zi`.
        let shader_debug_info = info.debug_set == Some(DebugSet::ShaderDebugInfo);
        if !shader_debug_info {
            head.extend(main_string);
        }
        // With a debug set the text is in the `DebugSource`s.
        if !info.embed_source || main_string.is_none() || info.debug_set.is_some() {
            inst(&mut self.s.sources, spirv::Op::Source, &head);
            return;
        }
        // The text, cut at character boundaries into pieces that fit an instruction: the
        // first after `OpSource`'s operands, the rest in `OpSourceContinued`.
        let text = info.files[main].text.as_str();
        let room = |operands: usize| (MAX_WORDS - 1 - operands) * 4 - 1;
        let mut rest = text;
        let mut first = true;
        loop {
            let limit = room(if first { head.len() } else { 0 });
            let mut cut = rest.len().min(limit);
            while !rest.is_char_boundary(cut) {
                cut -= 1;
            }
            let (piece, tail) = rest.split_at(cut);
            if first {
                inst_str(&mut self.s.sources, spirv::Op::Source, &head, piece, &[]);
                first = false;
            } else {
                inst_str(
                    &mut self.s.sources,
                    spirv::Op::SourceContinued,
                    &[],
                    piece,
                    &[],
                );
            }
            rest = tail;
            if rest.is_empty() {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::line_col;

    #[test]
    fn line_and_column_count_lines_from_one_and_characters() {
        let text = "ab\nçd\n\nx";
        let starts = [0, 3, 7, 8];
        assert_eq!(line_col(text, &starts, 0), (1, 1));
        assert_eq!(line_col(text, &starts, 1), (1, 2));
        assert_eq!(line_col(text, &starts, 3), (2, 1));
        // `d` after the two-byte `ç` is the second character.
        assert_eq!(line_col(text, &starts, 5), (2, 2));
        assert_eq!(line_col(text, &starts, 8), (4, 1));
    }
}
