//! `oneshader-serialize`: the `.osir` file, OneShader's binary form of an IR module.
//!
//! A module saved with [`save`] / [`save_with`] and read back with [`load`] is the same module:
//! the same tree in the same order, the same name hints, and so the same text form
//! (`print(load(save(m))) == print(m)`) and the same bytes when saved again. The format is a
//! small fixed header (magic, format version, checksum, IR-semantics version) followed by
//! postcard-encoded sections: a string table, the instruction stream in preorder with stable
//! wire opcodes and operands as record indices, the export/import table, an optional source
//! map and, for large modules, an optional symbol index that lets a linker decode only the
//! items it needs ([`LazyFile`], module [`lazy`]). docs/osir.md specifies every field.
//!
//! Loading never panics: an empty, truncated, corrupted, future-version or hostile file is a
//! [`LoadError`] with an `OSL` code (the table is in [`reader`]), and a well-formed file whose
//! module breaks IR rules is reported with the verifier's diagnostics. The loader checks every
//! handle before it builds anything, rebuilds the module through ir-core's API (so use lists
//! and the dedup table are rebuilt), then verifies.
//!
//! ```
//! let m = oneshader_ir::parse::parse("func @f() -> void {\nbb0:\n  return\n}\n").unwrap();
//! let bytes = oneshader_serialize::save(&m).unwrap();
//! let back = oneshader_serialize::load(&bytes, &Default::default()).unwrap();
//! assert_eq!(
//!     oneshader_ir::print::print_module(&back.module),
//!     oneshader_ir::print::print_module(&m)
//! );
//! ```

pub mod format;
pub mod lazy;
pub mod reader;
pub mod writer;

#[cfg(test)]
mod lazy_tests;
#[cfg(test)]
mod reader_tests;

use oneshader_ir::{FileId, InstId, Module, Op, SourceMap};

pub use format::{CacheKey, FORMAT_VERSION, HEADER_LEN, Header, MAGIC, PRODUCER, is_osir, reseal};
pub use lazy::{LazyFile, load_exports};
pub use reader::{LoadError, LoadOptions, Loaded, load, read_header, read_symbols};
pub use writer::{INDEX_MIN_RECORDS, IndexPolicy, SaveError, SaveOptions, save, save_with};

/// Whether a symbol is provided or needed by a module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    /// The module provides it (`export("name")`).
    Export,
    /// The module needs it from another module (`import("name")`).
    Import,
}

/// One entry of a file's export/import table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// Export or import.
    pub kind: SymbolKind,
    /// The mangled name (docs/linking.md).
    pub name: String,
    /// The kind of the decorated item: `func`, `global` or `generic`.
    pub item: Op,
}

/// A position in a source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceLoc {
    /// Index into [`SourceLocations::files`].
    pub file: u32,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

/// Where instructions came from: the optional source-map section, as file, line and column.
/// A module carries its instructions' positions as byte spans of a [`SourceMap`]
/// (`oneshader_ir::positions`); [`SourceLocations::of_module`] turns them into this.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceLocations {
    /// File names, as the producer wants them shown (they are not part of the cache key).
    pub files: Vec<String>,
    /// One location per instruction (at most one is kept per instruction when saving).
    pub locations: Vec<(InstId, SourceLoc)>,
}

impl SourceLocations {
    /// The positions of `m`'s instructions that are in its tree, as file, line and column of
    /// `sources`, in slot order (a position in a file the map does not hold is left out, not
    /// guessed).
    pub fn of_module(m: &Module, sources: &SourceMap) -> SourceLocations {
        let files = (0..sources.len())
            .map(|k| sources.name(FileId(k as u32)).to_string())
            .collect();
        let mut positions: Vec<(InstId, oneshader_ir::Span)> = m
            .positions()
            .filter(|&(i, s)| (s.file.0 as usize) < sources.len() && in_tree(m, i))
            .collect();
        positions.sort_by_key(|&(i, _)| i.slot_number());
        let locations = positions
            .into_iter()
            .map(|(i, s)| {
                let (line, column) = sources.line_col(s.file, s.start);
                let loc = SourceLoc {
                    file: s.file.0,
                    line: line as u32,
                    column: column as u32,
                };
                (i, loc)
            })
            .collect();
        SourceLocations { files, locations }
    }

    /// Drops the locations of instructions that are no longer in `m`'s tree (a pass removed
    /// them after the map was made), so [`save_with`] accepts the map; returns how many went.
    pub fn retain_in_tree(&mut self, m: &Module) -> usize {
        let before = self.locations.len();
        self.locations.retain(|&(i, _)| in_tree(m, i));
        before - self.locations.len()
    }
}

/// True when `i` is live and under `m`'s root.
pub(crate) fn in_tree(m: &Module, mut i: InstId) -> bool {
    if !m.contains(i) {
        return false;
    }
    while let Some(p) = m.parent(i) {
        i = p;
    }
    i == m.root()
}
