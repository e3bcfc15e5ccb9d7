//! Source lines in the text backends' output under `-Zi` / `-fspv-debug=`: GLSL's
//! `#line N "file"` directives and WGSL's and MSL's `// file:line` comments, one before each
//! statement whose HLSL line differs from the one marked last, read from the IR's positions.

use oneshader_ir::diag::Span;

use crate::spirv::LineInfo;

/// What has been marked so far, over the files of a [`LineInfo`].
pub(crate) struct LineMarks<'a> {
    info: &'a LineInfo,
    /// Byte offset of each line's start, per file (computed on first use).
    starts: Vec<Option<Vec<u32>>>,
    /// The (file, line) marked last.
    at: Option<(u32, u32)>,
}

impl<'a> LineMarks<'a> {
    /// Nothing marked yet, over `info`'s files.
    pub fn new(info: &'a LineInfo) -> LineMarks<'a> {
        LineMarks {
            info,
            starts: vec![None; info.files.len()],
            at: None,
        }
    }

    /// The printable name of `span`'s file and the 1-based line `span` starts on, when that
    /// line is not the one marked last (which it then becomes); `None` when it is, or when
    /// the file is not one of the [`LineInfo`]'s.
    pub fn next(&mut self, span: Span) -> Option<(String, u32)> {
        let file = span.file.0;
        let f = self.info.files.get(file as usize)?;
        let starts = self.starts.get_mut(file as usize)?.get_or_insert_with(|| {
            std::iter::once(0)
                .chain(
                    f.text
                        .bytes()
                        .enumerate()
                        .filter(|&(_, b)| b == b'\n')
                        .map(|(k, _)| k as u32 + 1),
                )
                .collect()
        });
        let line = starts.partition_point(|&s| s <= span.start) as u32;
        if self.at == Some((file, line)) {
            return None;
        }
        self.at = Some((file, line));
        // Into a string literal or a line comment: no quote, no line break.
        let name = f
            .name
            .chars()
            .map(|c| {
                if matches!(c, '"' | '\n' | '\r') {
                    '_'
                } else {
                    c
                }
            })
            .collect();
        Some((name, line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spirv::SourceFile;
    use oneshader_ir::diag::FileId;

    fn info() -> LineInfo {
        LineInfo {
            files: vec![
                SourceFile {
                    name: "a\"b.hlsl".into(),
                    text: "x\ny\n\nz".into(),
                },
                SourceFile {
                    name: "inc.h".into(),
                    text: "q".into(),
                },
            ],
            ..LineInfo::default()
        }
    }

    fn span(file: u32, start: u32) -> Span {
        Span {
            file: FileId(file),
            start,
            end: start + 1,
        }
    }

    #[test]
    fn marks_a_line_once_and_counts_from_one() {
        let info = info();
        let mut l = LineMarks::new(&info);
        assert_eq!(l.next(span(0, 0)), Some(("a_b.hlsl".into(), 1)));
        assert_eq!(l.next(span(0, 0)), None, "same line again");
        assert_eq!(l.next(span(0, 2)), Some(("a_b.hlsl".into(), 2)));
        assert_eq!(l.next(span(0, 5)), Some(("a_b.hlsl".into(), 4)));
        assert_eq!(
            l.next(span(1, 0)),
            Some(("inc.h".into(), 1)),
            "another file"
        );
        assert_eq!(l.next(span(0, 5)), Some(("a_b.hlsl".into(), 4)), "back");
        assert_eq!(l.next(span(7, 0)), None, "unknown file");
    }
}
