//! Lazy loading: decoding only the module-level items a link needs.
//!
//! A file with the symbol index (optional section 0x8000_0002, `IndexSection` in `format.rs`) says where
//! each module-level item (a child of the module record, with its subtree: a function, a
//! global, a struct, a generic, a type or constant, a module decoration) sits in every column
//! of the instruction section. [`LazyFile::load`] starts from the items that export the
//! requested symbols, every import declaration, every module decoration and every entry point,
//! decodes those items, follows their types and operands to the items they name, and so on;
//! then it hands the selected records, renumbered, to the same checks, rebuild and verifier as
//! [`crate::load`]. The result is the module those items form, in the file's order: what a
//! full load gives with every item no request reaches left out.
//!
//! The index is derived data, so it is checked before it is trusted (OSL0014):
//!
//! - when the file is opened, in time linear in the number of entries (not of records): the
//!   tables' lengths and their hash, every offset inside its column and in order, entries in
//!   order, the sentinels at the columns' ends, the module record's hash;
//! - when an entry is decoded: its hash, over its first and end records and the bytes its
//!   offsets name, must be the one the writer computed from the true ones (so an offset or a
//!   record boundary that lies names other bytes and is caught); each column's range holds
//!   exactly its elements; its child counts form whole module-level items; its name hints
//!   name its own records and its neighbours' do not; an entry holding a module decoration or
//!   an entry point must be listed as one every load includes;
//! - a full load ([`crate::load`]) of a file with an index rebuilds the index from the records
//!   and refuses the file when the two differ, so a file with a lying index never loads in
//!   full, and no file loads in full but not lazily.
//!
//! A lazy load does not hash the whole file (for a million instructions that alone would cost
//! more than everything else it does): the index keeps XXH3 hashes of the producer, cache key,
//! string and symbol sections, of its own tables, and of each entry, and the lazy load checks
//! the hashes of everything it reads (a mismatch is OSL0004, like a checksum's). A damaged byte
//! in an entry it does not read is not noticed, and does not matter to what it loads; the
//! header's `checksum` is the stored one, not recomputed. What the lazy load does not read it
//! does not check: a consistent forgery (an index whose hashes were recomputed for wrong
//! offsets) gives a module that is well formed and, with verification, valid, as any forged
//! file may; the full load refuses it.
//!
//! A file without an index (written by an older build, or small: [`crate::IndexPolicy`]) is
//! loaded in full by [`LazyFile::load`]; the result is then the whole module.

use std::borrow::Cow;

use rustc_hash::{FxHashMap, FxHashSet};

use oneshader_ir::Op;

use crate::format::{
    COL_CHILD_COUNTS, COL_LITERALS, COL_NAMES, COL_OPERAND_COUNTS, COL_OPERANDS, COL_OPS,
    COL_TYPES, FORMAT_VERSION, Header, INDEX_COLUMNS, IndexSection, InstSection,
    OPTIONAL_SECTION_BIT, SECTION_INDEX, SECTION_INSTS, SECTION_SOURCE_MAP, SECTION_STRINGS,
    SECTION_SYMBOLS, SymbolSection,
};
use crate::reader::{
    Decoded, LoadError, LoadOptions, Loaded, container, container_with, decode_section, err,
    sections_in_order,
};
use crate::writer::is_literal_wire;
use crate::{Symbol, SymbolKind};

fn index_err<T>(msg: impl Into<String>) -> Result<T, LoadError> {
    err("OSL0014", format!("the symbol index {}", msg.into()))
}

/// A hash kept by the index does not match the bytes: OSL0004, as a checksum mismatch.
fn corrupted<T>(msg: &str) -> Result<T, LoadError> {
    err(
        "OSL0004",
        format!("the file is corrupted (or its symbol index lies): {msg}"),
    )
}

/// Reads a postcard varint of at most `max_bytes` bytes at `*pos`, advancing it.
fn varint(data: &[u8], pos: &mut usize, max_bytes: usize) -> Option<u64> {
    let mut v: u64 = 0;
    for i in 0..max_bytes {
        let b = *data.get(*pos)?;
        *pos += 1;
        v |= ((b & 0x7f) as u64) << (7 * i);
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

/// Bytes of a postcard varint of each width.
const U16_BYTES: usize = 3;
const U32_BYTES: usize = 5;
const U64_BYTES: usize = 10;
/// `usize` lengths are encoded as 64-bit varints.
const LEN_BYTES: usize = 10;

/// Reads the `u32` at entry `i` of a little-endian array.
fn le_u32(data: &[u8], i: usize) -> usize {
    let at = i * 4;
    match data.get(at..at + 4) {
        Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize,
        None => usize::MAX,
    }
}

const FLAG_HOISTABLE: u8 = 1;

/// Per wire opcode: [`FLAG_HOISTABLE`] or 0.
fn wire_flags() -> &'static [u8] {
    static FLAGS: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    FLAGS.get_or_init(|| {
        let mut t: Vec<u8> = Vec::new();
        for &op in oneshader_ir::ops::ALL_OPS {
            let w = op.wire_id() as usize;
            if t.len() <= w {
                t.resize(w + 1, 0);
            }
            t[w] = if op.is_hoistable() { FLAG_HOISTABLE } else { 0 };
        }
        t
    })
}

/// Records an index entry groups at most (roughly): consecutive module-level types and
/// constants share an entry up to this size, so that a library's many constants do not each
/// cost an entry; every other module-level item starts its own.
pub(crate) const GROUP_RECORDS: u64 = 32;

/// The writer's and the readers' rule for where index entries start: at every module-level
/// item that is not hoistable, at a hoistable one after a non-hoistable entry, and when the
/// current run of hoistable items has reached [`GROUP_RECORDS`].
#[derive(Default)]
pub(crate) struct Grouping {
    started: bool,
    hoistable: bool,
    /// Records of the current entry so far (counted by the caller).
    pub(crate) records: u64,
}

impl Grouping {
    /// At a module-level item: whether it starts an entry.
    pub(crate) fn starts_entry(&mut self, hoistable: bool) -> bool {
        let new = !self.started || !hoistable || !self.hoistable || self.records >= GROUP_RECORDS;
        if new {
            self.started = true;
            self.hoistable = hoistable;
            self.records = 0;
        }
        new
    }
}

/// The first record of each index entry of `t` (checked records), by [`Grouping`].
pub(crate) fn entry_starts(t: &InstSection) -> Vec<u32> {
    let flags = wire_flags();
    let mut out = Vec::new();
    let mut owed: u64 = 0;
    let mut group = Grouping::default();
    for i in 1..t.ops.len() {
        let cc = t.child_counts.get(i).copied().unwrap_or(0) as u64;
        if owed == 0 {
            let fl = flags.get(t.ops[i] as usize).copied().unwrap_or(0);
            if group.starts_entry(fl & FLAG_HOISTABLE != 0) {
                out.push(i as u32);
            }
            owed = cc;
        } else {
            owed = owed - 1 + cc;
        }
        group.records += 1;
    }
    out
}

/// A file opened for lazy loading: its header, string table, symbols and index read and
/// checked, its instructions not yet decoded.
pub struct LazyFile<'a> {
    bytes: &'a [u8],
    header: Header,
    inner: Option<Indexed<'a>>,
}

/// What a file with an index holds, checked.
struct Indexed<'a> {
    /// Each string's bytes (not yet checked to be UTF-8).
    strings: Vec<&'a [u8]>,
    symbols: SymbolSection,
    inst: &'a [u8],
    ix: IndexSection<'a>,
    /// Number of items.
    k: usize,
    /// Number of records.
    n: usize,
    /// Items that every lazy load includes: module decorations and entry points.
    always: Vec<u32>,
    /// Where each column's elements start (after its length).
    col_start: [usize; INDEX_COLUMNS],
    /// The entry holding each symbol's record (`u32::MAX` for the module record).
    sym_entry: Vec<u32>,
}

impl<'a> LazyFile<'a> {
    /// Opens an `.osir` image: the container checks of [`crate::load`] (magic, versions; the
    /// whole-file checksum only for a file without an index, see the module documentation),
    /// the sections' order, and for a file with a symbol index, the string table, the symbol
    /// table and the index itself.
    pub fn open(bytes: &'a [u8]) -> Result<LazyFile<'a>, LoadError> {
        let (header, body) = container_with(bytes, false)?;
        let (mut strings, mut inst, mut index) = (None, None, None);
        let mut raw_symbols: Option<&[u8]> = None;
        sections_in_order(&body.sections)?;
        for s in &body.sections {
            match s.id {
                SECTION_STRINGS => strings = Some(s.data),
                SECTION_INSTS => inst = Some(s.data),
                SECTION_SYMBOLS => raw_symbols = Some(s.data),
                SECTION_INDEX => index = Some(s.data),
                SECTION_SOURCE_MAP => {}
                id if id & OPTIONAL_SECTION_BIT != 0 => {}
                id => {
                    return err(
                        "OSL0006",
                        format!(
                            "unknown required section {id:#x} (not written by format version {FORMAT_VERSION})"
                        ),
                    );
                }
            }
        }
        let Some(index) = index else {
            // No index: the file loads in full, so it is checked in full.
            container(bytes)?;
            return Ok(LazyFile {
                bytes,
                header,
                inner: None,
            });
        };
        let (Some(strings), Some(inst), Some(raw_symbols)) = (strings, inst, raw_symbols) else {
            return err(
                "OSL0006",
                "a required section (strings, instructions or symbols) is missing",
            );
        };
        let ix: IndexSection<'a> = match postcard::take_from_bytes(index) {
            Ok((ix, [])) => ix,
            _ => return index_err("does not decode"),
        };
        // What is read outside the instructions, against the hash the writer kept.
        let rest = crate::writer::rest_hash(body.producer, &body.cache_key, strings, raw_symbols);
        if rest != ix.rest {
            return corrupted(
                "its producer, cache key, string or symbol section do not match the hash its \
                 symbol index keeps",
            );
        }
        let symbols = decode_section::<SymbolSection>("symbol", raw_symbols)?;
        let strings = string_table(strings)?;
        let inner = Indexed::check(strings, symbols, inst, ix)?;
        for &(kind, s, rec) in &inner.symbols.symbols {
            if kind > 1 || rec as usize >= inner.n || s as usize >= inner.strings.len() {
                return err(
                    "OSL0008",
                    format!("symbol entry ({kind}, string {s}, record {rec}) is out of range"),
                );
            }
        }
        Ok(LazyFile {
            bytes,
            header,
            inner: Some(inner),
        })
    }

    /// The file's metadata.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// True when the file has a symbol index (otherwise [`LazyFile::load`] loads it in full).
    pub fn has_index(&self) -> bool {
        self.inner.is_some()
    }

    /// Every export and import of the file, in file order. Without an index this decodes and
    /// checks the whole file, like [`crate::read_symbols`]; with one, it decodes the entries
    /// holding the decorated items (to tell their kind): [`LazyFile::symbol_names`] does not.
    pub fn symbols(&self) -> Result<Vec<Symbol>, LoadError> {
        let Some(f) = &self.inner else {
            return crate::read_symbols(self.bytes);
        };
        let mut decoded: FxHashMap<usize, Item> = FxHashMap::default();
        let mut out = Vec::with_capacity(f.symbols.symbols.len());
        for &(kind, s, rec) in &f.symbols.symbols {
            let item = match f.item_of(rec as usize) {
                Some(k) => {
                    if let std::collections::hash_map::Entry::Vacant(v) = decoded.entry(k) {
                        v.insert(f.decode_item(k)?);
                    }
                    decoded
                        .get(&k)
                        .and_then(|it| it.ops.get(rec as usize - f.start(k)).copied())
                        .and_then(Op::from_wire)
                        .unwrap_or(Op::Module)
                }
                None => Op::Module,
            };
            out.push(Symbol {
                kind: if kind == 0 {
                    SymbolKind::Export
                } else {
                    SymbolKind::Import
                },
                name: f.string(s)?.to_string(),
                item,
            });
        }
        Ok(out)
    }

    /// The kind and name of every export and import, in file order, read from the symbol
    /// table alone (what a linker needs to plan a lazy load; borrowed from the file's bytes
    /// when it has an index).
    pub fn symbol_names(&self) -> Result<Vec<(SymbolKind, Cow<'a, str>)>, LoadError> {
        let Some(f) = &self.inner else {
            return Ok(crate::read_symbols(self.bytes)?
                .into_iter()
                .map(|s| (s.kind, Cow::Owned(s.name)))
                .collect());
        };
        f.symbols
            .symbols
            .iter()
            .map(|&(kind, s, _)| {
                let kind = if kind == 0 {
                    SymbolKind::Export
                } else {
                    SymbolKind::Import
                };
                Ok((kind, Cow::Borrowed(f.string(s)?)))
            })
            .collect()
    }

    /// The names this file exports more than once (each once), without hashing every name:
    /// a name is one string of the table, so a repeated export repeats its string index.
    pub fn exported_twice(&self) -> Result<Vec<Cow<'a, str>>, LoadError> {
        let Some(f) = &self.inner else {
            let mut names: Vec<String> = crate::read_symbols(self.bytes)?
                .into_iter()
                .filter(|s| s.kind == SymbolKind::Export)
                .map(|s| s.name)
                .collect();
            names.sort_unstable();
            let mut twice: Vec<Cow<'a, str>> = names
                .windows(2)
                .filter(|w| w[0] == w[1])
                .map(|w| Cow::Owned(w[0].clone()))
                .collect();
            twice.dedup();
            return Ok(twice);
        };
        let mut ids: Vec<u32> = f
            .symbols
            .symbols
            .iter()
            .filter(|s| s.0 == 0)
            .map(|s| s.1)
            .collect();
        ids.sort_unstable();
        let mut twice: Vec<u32> = ids
            .windows(2)
            .filter(|w| w[0] == w[1])
            .map(|w| w[0])
            .collect();
        twice.dedup();
        twice
            .into_iter()
            .map(|s| Ok(Cow::Borrowed(f.string(s)?)))
            .collect()
    }

    /// Loads the items that export the symbols named in `exports`, every import declaration,
    /// every module decoration and entry point, and everything they reach through types and
    /// operands; names no item exports are ignored (the linker reports what is missing). The
    /// module is checked and (with `opts.verify`) verified like a full load's; its symbols
    /// are those of the loaded items. The source map is not read (`source_map` is `None`).
    /// A file without an index is loaded in full.
    pub fn load(&self, exports: &[&str], opts: &LoadOptions) -> Result<Loaded, LoadError> {
        let Some(f) = &self.inner else {
            return crate::load(self.bytes, opts);
        };
        let wanted: FxHashSet<&str> = exports.iter().copied().collect();
        let mut roots: Vec<usize> = f.always.iter().map(|&k| k as usize).collect();
        for (&(kind, s, _), &k) in f.symbols.symbols.iter().zip(&f.sym_entry) {
            if k != u32::MAX && (kind == 1 || wanted.contains(f.string(s)?)) {
                roots.push(k as usize);
            }
        }
        let decoded = f.closure(roots)?;
        let file = f.compact(&self.header, decoded)?;
        crate::reader::load_decoded(file, opts)
    }
}

/// Opens `bytes` and loads what `exports` need ([`LazyFile::load`]).
pub fn load_exports(
    bytes: &[u8],
    exports: &[&str],
    opts: &LoadOptions,
) -> Result<Loaded, LoadError> {
    LazyFile::open(bytes)?.load(exports, opts)
}

/// The strings of a string section, located without checking that they are UTF-8 (each is
/// checked when used).
fn string_table(data: &[u8]) -> Result<Vec<&[u8]>, LoadError> {
    let bad = || err("OSL0006", "the string section does not decode");
    let mut pos = 0usize;
    let Some(count) = varint(data, &mut pos, LEN_BYTES) else {
        return bad();
    };
    // Each string takes at least one byte: a larger count is a lie.
    if count > data.len() as u64 {
        return bad();
    }
    let mut out = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let Some(len) = varint(data, &mut pos, LEN_BYTES) else {
            return bad();
        };
        let end = (pos as u64).saturating_add(len);
        if end > data.len() as u64 {
            return bad();
        }
        out.push(&data[pos..end as usize]);
        pos = end as usize;
    }
    if pos != data.len() {
        return err(
            "OSL0006",
            format!(
                "the string section has {} unexpected bytes at its end",
                data.len() - pos
            ),
        );
    }
    Ok(out)
}

/// One decoded item: its records' columns (record indices still the file's).
#[derive(Default)]
struct Item {
    ops: Vec<u16>,
    child_counts: Vec<u32>,
    types: Vec<u32>,
    operand_counts: Vec<u32>,
    operands: Vec<u32>,
    literals: Vec<u64>,
    names: Vec<(u32, u32)>,
    /// Module-level items in it.
    trees: u32,
}

/// Decodes exactly `count` varints filling `data[a..b]`.
fn decode_range(
    data: &[u8],
    a: usize,
    b: usize,
    count: usize,
    max_bytes: usize,
    what: &str,
) -> Result<Vec<u64>, LoadError> {
    // Every varint takes at least one byte.
    if a > b || b > data.len() || count > b - a {
        return index_err(format!("gives a wrong range for the {what}"));
    }
    let slice = &data[..b];
    let mut pos = a;
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let Some(v) = varint(slice, &mut pos, max_bytes) else {
            return index_err(format!("gives a range for the {what} that does not decode"));
        };
        out.push(v);
    }
    if pos != b {
        return index_err(format!(
            "gives a range for the {what} that does not end where its elements do"
        ));
    }
    Ok(out)
}

fn to_u32(v: Vec<u64>, what: &str) -> Result<Vec<u32>, LoadError> {
    v.into_iter()
        .map(|x| u32::try_from(x).or_else(|_| err("OSL0006", format!("{what} exceeds u32"))))
        .collect()
}

impl<'a> Indexed<'a> {
    /// Entry `k`'s first record.
    fn start(&self, k: usize) -> usize {
        le_u32(self.ix.items, k)
    }

    /// Entry `k`'s byte offset in column `c`.
    fn offset(&self, k: usize, c: usize) -> usize {
        le_u32(self.ix.offsets, k * INDEX_COLUMNS + c)
    }

    /// Entry `k`'s first element of the operand (0), literal (1) or name (2) column.
    fn elem(&self, k: usize, j: usize) -> usize {
        le_u32(self.ix.starts, k * 3 + j)
    }

    fn string(&self, s: u32) -> Result<&'a str, LoadError> {
        let Some(&b) = self.strings.get(s as usize) else {
            return err("OSL0008", format!("string {s} is out of range"));
        };
        std::str::from_utf8(b).or_else(|_| err("OSL0006", format!("string {s} is not valid UTF-8")))
    }

    /// The item holding record `rec`; `None` for the module record (and records past the
    /// end, which the caller has excluded).
    fn item_of(&self, rec: usize) -> Option<usize> {
        if rec < self.start(0) || rec >= self.n {
            return None;
        }
        // The last entry in 0..k whose start is <= rec.
        let (mut lo, mut hi) = (0usize, self.k);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if self.start(mid) <= rec {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(lo)
    }

    /// Checks the index against the instruction section's bytes (module documentation).
    fn check(
        strings: Vec<&'a [u8]>,
        symbols: SymbolSection,
        inst: &'a [u8],
        ix: IndexSection<'a>,
    ) -> Result<Indexed<'a>, LoadError> {
        let entries = ix.items.len() / 4;
        if entries == 0
            || ix.items.len() != entries * 4
            || ix.offsets.len() != entries * 4 * INDEX_COLUMNS
            || ix.starts.len() != entries * 12
        {
            return index_err("has tables of inconsistent lengths");
        }
        if ix.hashes.len() != entries * 8 {
            return index_err("has tables of inconsistent lengths");
        }
        if crate::writer::tables_hash([ix.items, ix.offsets, ix.starts, ix.always, ix.hashes])
            != ix.tables
        {
            return corrupted("the symbol index's tables do not match their hash");
        }
        let k = entries - 1;
        let mut f = Indexed {
            strings,
            symbols,
            inst,
            ix,
            k,
            n: 0,
            always: Vec::new(),
            col_start: [0; INDEX_COLUMNS],
            sym_entry: Vec::new(),
        };
        // The columns: each a length, then its elements up to the sentinel's offset.
        let mut col_start = [0usize; INDEX_COLUMNS];
        let mut col_len = [0usize; INDEX_COLUMNS];
        let mut pos = 0usize;
        for c in 0..INDEX_COLUMNS {
            let Some(len) = varint(inst, &mut pos, LEN_BYTES) else {
                return err(
                    "OSL0001",
                    "the file is truncated: the instruction section ends early",
                );
            };
            let Ok(len) = usize::try_from(len) else {
                return err("OSL0006", "the instruction section does not decode");
            };
            col_start[c] = pos;
            col_len[c] = len;
            let end = f.offset(k, c);
            if end < pos || end > inst.len() {
                return index_err(format!("puts the end of column {c} outside the section"));
            }
            pos = end;
        }
        if pos != inst.len() {
            return index_err("does not end where the instruction section does");
        }
        let n = col_len[COL_OPS];
        f.n = n;
        if n == 0 || n >= u32::MAX as usize {
            return err(
                "OSL0013",
                "the instruction stream has no module record, or too many",
            );
        }
        if col_len[COL_CHILD_COUNTS..=COL_OPERAND_COUNTS]
            .iter()
            .any(|&l| l != n)
        {
            return err(
                "OSL0006",
                "the instruction section's columns disagree in length",
            );
        }
        // Entries in order; the module record alone before item 0; sentinels at the ends.
        if f.start(0) != 1 || f.start(k) != n {
            return index_err("does not cover the records from 1 to the end");
        }
        let elems = [
            col_len[COL_OPERANDS],
            col_len[COL_LITERALS],
            col_len[COL_NAMES],
        ];
        for e in 0..=k {
            if e > 0 && f.start(e) <= f.start(e - 1) {
                return index_err(format!("lists item {e} out of order"));
            }
            for (c, &start) in col_start.iter().enumerate() {
                let prev = if e == 0 { start } else { f.offset(e - 1, c) };
                if f.offset(e, c) < prev {
                    return index_err(format!("gives item {e} an offset out of order"));
                }
            }
            for (j, &total) in elems.iter().enumerate() {
                if f.elem(e, j) > total || (e > 0 && f.elem(e, j) < f.elem(e - 1, j)) {
                    return index_err(format!("gives item {e} an element start out of order"));
                }
            }
        }
        for (j, &total) in elems.iter().enumerate() {
            if f.elem(k, j) != total {
                return index_err("does not end at the columns' ends");
            }
        }
        // The entries every lazy load includes: in range, in order.
        let always: Vec<u32> = (0..f.ix.always.len() / 4)
            .map(|i| le_u32(f.ix.always, i) as u32)
            .collect();
        if !f.ix.always.len().is_multiple_of(4)
            || always.iter().any(|&e| e as usize >= k)
            || always.windows(2).any(|w| w[0] >= w[1])
        {
            return index_err("lists entries to load always out of range or out of order");
        }
        f.always = always;
        f.col_start = col_start;
        // The module record and the columns' lengths, against their hash.
        let root: [(usize, usize); INDEX_COLUMNS] = std::array::from_fn(|c| {
            let from = if c == 0 { 0 } else { f.offset(k, c - 1) };
            (from, f.offset(0, c))
        });
        f.check_hash(k, 0, f.start(0), &root)?;
        // Each symbol's entry, by a walk of the two in record order (the writer's), or a
        // search when the table is out of order.
        let mut sym_entry = Vec::with_capacity(f.symbols.symbols.len());
        let mut e = 0usize;
        let mut prev = 0u32;
        for &(_, _, rec) in &f.symbols.symbols {
            if rec < prev {
                e = f.item_of(rec as usize).unwrap_or(0);
            }
            prev = rec;
            while e + 1 < k && f.start(e + 1) <= rec as usize {
                e += 1;
            }
            sym_entry.push(if (rec as usize) < f.start(0) || rec as usize >= n {
                u32::MAX
            } else {
                e as u32
            });
        }
        f.sym_entry = sym_entry;
        Ok(f)
    }

    /// Decodes item `k` (entry `k + 1` of the ranges above: item `k` spans entries `k` to
    /// `k + 1`), checking it against the index.
    fn decode_item(&self, k: usize) -> Result<Item, LoadError> {
        let d = self.inst;
        let (r0, r1) = (self.start(k), self.start(k + 1));
        let ranges: [(usize, usize); INDEX_COLUMNS] =
            std::array::from_fn(|c| (self.offset(k, c), self.offset(k + 1, c)));
        self.check_hash(k, r0, r1, &ranges)?;
        let recs = r1 - r0;
        let r = |c: usize| (self.offset(k, c), self.offset(k + 1, c));
        let (a, b) = r(COL_OPS);
        let ops: Vec<u16> = decode_range(d, a, b, recs, U16_BYTES, "opcodes")?
            .into_iter()
            .map(|w| w as u16)
            .collect();
        let (a, b) = r(COL_CHILD_COUNTS);
        let child_counts = to_u32(
            decode_range(d, a, b, recs, U32_BYTES, "child counts")?,
            "a child count",
        )?;
        let (a, b) = r(COL_TYPES);
        let types = to_u32(decode_range(d, a, b, recs, U32_BYTES, "types")?, "a type")?;
        let (a, b) = r(COL_OPERAND_COUNTS);
        let operand_counts = to_u32(
            decode_range(d, a, b, recs, U32_BYTES, "operand counts")?,
            "an operand count",
        )?;
        let nops = self.elem(k + 1, 0) - self.elem(k, 0);
        let (a, b) = r(COL_OPERANDS);
        let operands = to_u32(
            decode_range(d, a, b, nops, U32_BYTES, "operands")?,
            "an operand",
        )?;
        let nlit = self.elem(k + 1, 1) - self.elem(k, 1);
        let (a, b) = r(COL_LITERALS);
        let literals = decode_range(d, a, b, nlit, U64_BYTES, "literals")?;
        let names = self.names_of(k)?;
        let in_item = |rec: u32| (r0..r1).contains(&(rec as usize));
        if names.iter().any(|&(rec, _)| !in_item(rec)) || names.windows(2).any(|w| w[0].0 >= w[1].0)
        {
            return index_err(format!("gives item {k} name hints of other records"));
        }
        // The neighbours' name hints are not this item's.
        if k > 0
            && self
                .names_of(k - 1)?
                .last()
                .is_some_and(|&(rec, _)| in_item(rec))
        {
            return index_err(format!("gives item {k}'s name hints to item {}", k - 1));
        }
        if k + 1 < self.k
            && self
                .names_of(k + 1)?
                .first()
                .is_some_and(|&(rec, _)| in_item(rec))
        {
            return index_err(format!("gives item {k}'s name hints to item {}", k + 1));
        }
        // Whole module-level items, exactly these records (proven at open; counted here).
        let mut owed: u64 = 0;
        let mut trees = 0u32;
        for &c in &child_counts {
            if owed == 0 {
                trees += 1;
                owed = c as u64;
            } else {
                owed = owed - 1 + c as u64;
            }
        }
        if owed != 0 {
            return index_err(format!(
                "gives entry {k} {recs} records, but its last item has more"
            ));
        }
        // An entry holding a module decoration or an entry point is one every load includes.
        let always = self.always.binary_search(&(k as u32)).is_ok();
        let decoration = Op::from_wire(ops[0]).is_some_and(|op| op.is_decoration());
        if !always && (decoration || ops.contains(&Op::EntryPoint.wire_id())) {
            return index_err(format!(
                "does not list entry {k}, which holds a module decoration or an entry point, \
                 among those every load includes"
            ));
        }
        Ok(Item {
            ops,
            child_counts,
            types,
            operand_counts,
            operands,
            literals,
            names,
            trees,
        })
    }

    /// Checks the hash of entry `k` (the module record's for `k == self.k`) over its records
    /// and byte ranges.
    fn check_hash(
        &self,
        k: usize,
        first: usize,
        end: usize,
        ranges: &[(usize, usize); INDEX_COLUMNS],
    ) -> Result<(), LoadError> {
        if ranges.iter().any(|&(a, b)| a > b || b > self.inst.len()) {
            return index_err(format!("gives entry {k} byte ranges outside the section"));
        }
        let want = match self.ix.hashes.get(k * 8..k * 8 + 8) {
            Some(b) => u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
            None => return index_err(format!("has no hash for entry {k}")),
        };
        if crate::writer::entry_hash(self.inst, first as u32, end as u32, ranges) != want {
            return corrupted(&format!(
                "the bytes entry {k} of the symbol index names do not match its hash (its \
                 offsets or records do not name the bytes it was written for)"
            ));
        }
        Ok(())
    }

    /// The name hints in item `k`'s range.
    fn names_of(&self, k: usize) -> Result<Vec<(u32, u32)>, LoadError> {
        let count = self.elem(k + 1, 2) - self.elem(k, 2);
        let v = decode_range(
            self.inst,
            self.offset(k, COL_NAMES),
            self.offset(k + 1, COL_NAMES),
            2 * count,
            U32_BYTES,
            "name hints",
        )?;
        let v = to_u32(v, "a name hint")?;
        Ok(v.chunks_exact(2).map(|p| (p[0], p[1])).collect())
    }

    /// The module record's own columns (the ranges before item 0).
    fn decode_root(&self) -> Result<Item, LoadError> {
        let d = self.inst;
        let col_start = self.col_start;
        let ranges: [(usize, usize); INDEX_COLUMNS] =
            std::array::from_fn(|c| (col_start[c], self.offset(0, c)));
        let r = |c: usize| ranges[c];
        let one = |c: usize, what: &str| -> Result<Vec<u32>, LoadError> {
            let (a, b) = r(c);
            to_u32(decode_range(d, a, b, 1, U32_BYTES, what)?, what)
        };
        let (a, b) = r(COL_OPS);
        let ops = decode_range(d, a, b, 1, U16_BYTES, "opcodes")?
            .into_iter()
            .map(|w| w as u16)
            .collect();
        let operand_counts = one(COL_OPERAND_COUNTS, "operand counts")?;
        let (a, b) = r(COL_OPERANDS);
        let operands = to_u32(
            decode_range(d, a, b, self.elem(0, 0), U32_BYTES, "operands")?,
            "an operand",
        )?;
        let (a, b) = r(COL_NAMES);
        let names = to_u32(
            decode_range(d, a, b, 2 * self.elem(0, 2), U32_BYTES, "name hints")?,
            "a name hint",
        )?;
        let names: Vec<(u32, u32)> = names.chunks_exact(2).map(|p| (p[0], p[1])).collect();
        if names.iter().any(|&(rec, _)| rec != 0) {
            return index_err("gives the module record name hints of other records");
        }
        if self.elem(0, 1) != 0 {
            return index_err("gives the module record literals");
        }
        Ok(Item {
            ops,
            child_counts: one(COL_CHILD_COUNTS, "child counts")?,
            types: one(COL_TYPES, "types")?,
            operand_counts,
            operands,
            literals: Vec::new(),
            names,
            trees: 0,
        })
    }

    /// Decodes the items `roots` reach through types and operands, by item index.
    fn closure(&self, roots: Vec<usize>) -> Result<FxHashMap<usize, Item>, LoadError> {
        let mut done: FxHashMap<usize, Item> = FxHashMap::default();
        let mut work = roots;
        while let Some(k) = work.pop() {
            if done.contains_key(&k) {
                continue;
            }
            let item = self.decode_item(k)?;
            let refs = item
                .types
                .iter()
                .filter_map(|&t| t.checked_sub(1))
                .chain(item.operands.iter().copied());
            for r in refs {
                if r as usize >= self.n {
                    return err(
                        "OSL0008",
                        format!("item {k} names record {r}, but there are {}", self.n),
                    );
                }
                if let Some(j) = self.item_of(r as usize)
                    && !done.contains_key(&j)
                {
                    work.push(j);
                }
            }
            done.insert(k, item);
        }
        Ok(done)
    }

    /// The sections of the module the decoded items form: their records renumbered in file
    /// order after the module record, strings and symbols narrowed to what they use.
    fn compact(
        &self,
        header: &Header,
        items: FxHashMap<usize, Item>,
    ) -> Result<Decoded<'a>, LoadError> {
        let mut order: Vec<usize> = items.keys().copied().collect();
        order.sort_unstable();
        // New index of each loaded item's first record.
        let mut base: FxHashMap<usize, u32> = FxHashMap::default();
        let mut next = 1u32;
        for &k in &order {
            base.insert(k, next);
            next += (self.start(k + 1) - self.start(k)) as u32;
        }
        let remap = |r: u32| -> Result<u32, LoadError> {
            match self.item_of(r as usize) {
                None if r == 0 => Ok(0),
                Some(k) => match base.get(&k) {
                    Some(&b) => Ok(b + (r - self.start(k) as u32)),
                    None => index_err(format!("leaves out item {k}, which is used")),
                },
                None => err("OSL0008", format!("record {r} is out of range")),
            }
        };
        let mut strings: Vec<&'a str> = Vec::new();
        let mut string_ids: FxHashMap<u32, u32> = FxHashMap::default();
        let mut string = |s: u32| -> Result<u32, LoadError> {
            if let Some(&i) = string_ids.get(&s) {
                return Ok(i);
            }
            let i = strings.len() as u32;
            strings.push(self.string(s)?);
            string_ids.insert(s, i);
            Ok(i)
        };
        let mut t = InstSection::default();
        let root = self.decode_root()?;
        let parts = std::iter::once((0usize, &root)).chain(
            order
                .iter()
                .filter_map(|k| items.get(k).map(|it| (self.start(*k), it))),
        );
        let const_string = Op::ConstString.wire_id();
        for (first, it) in parts {
            t.ops.extend_from_slice(&it.ops);
            t.child_counts.extend_from_slice(&it.child_counts);
            for &ty in &it.types {
                t.types.push(match ty.checked_sub(1) {
                    Some(r) => remap(r)? + 1,
                    None => 0,
                });
            }
            t.operand_counts.extend_from_slice(&it.operand_counts);
            for &o in &it.operands {
                t.operands.push(remap(o)?);
            }
            let mut lit = it.literals.iter();
            for &w in &it.ops {
                if !is_literal_wire(w) {
                    continue;
                }
                let Some(&v) = lit.next() else {
                    return index_err("gives an item too few literals");
                };
                t.literals.push(if w == const_string {
                    string(u32::try_from(v).unwrap_or(u32::MAX))? as u64
                } else {
                    v
                });
            }
            for &(rec, s) in &it.names {
                let rec = if first == 0 { 0 } else { remap(rec)? };
                t.names.push((rec, string(s)?));
            }
        }
        // The module record's children are the loaded items.
        let children: u32 = items.values().map(|it| it.trees).sum();
        if let Some(c) = t.child_counts.first_mut() {
            *c = children;
        }
        let mut symbols = SymbolSection::default();
        for (&(kind, s, rec), &k) in self.symbols.symbols.iter().zip(&self.sym_entry) {
            if k == u32::MAX || base.contains_key(&(k as usize)) {
                symbols.symbols.push((kind, string(s)?, remap(rec)?));
            }
        }
        Ok(Decoded {
            header: header.clone(),
            index: None,
            inst_bytes: &[],
            rest: 0,
            strings,
            insts: t,
            symbols,
            source_map: None,
        })
    }
}

/// A full load's check of a file's index: it must be exactly the index of its records (the
/// one [`crate::save_with`] writes), so that a file with a lying index is refused by both
/// kinds of load.
pub(crate) fn check_full(
    index: &[u8],
    insts: &InstSection,
    inst_bytes: &[u8],
    rest: u64,
) -> Result<(), LoadError> {
    let ix: IndexSection<'_> = match postcard::take_from_bytes(index) {
        Ok((ix, [])) => ix,
        _ => return index_err("does not decode"),
    };
    let starts = entry_starts(insts);
    let want = crate::writer::build_index(insts, inst_bytes, &starts);
    if ix.items != want.items.as_slice()
        || ix.offsets != want.offsets.as_slice()
        || ix.starts != want.starts.as_slice()
        || ix.always != want.always.as_slice()
        || ix.hashes != want.hashes.as_slice()
        || ix.tables != want.tables
        || ix.rest != rest
    {
        return index_err("disagrees with the instruction section");
    }
    Ok(())
}
