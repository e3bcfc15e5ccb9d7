//! The `.osir` container: the fixed header, the postcard-encoded body and its sections, the
//! cache key, and the public description of a file's metadata. docs/osir.md is the prose
//! specification of everything here; keep the two in step.
//!
//! ```text
//! offset  size  field
//! 0       8     magic: 89 'O' 'S' 'I' 'R' 0D 0A 1A
//! 8       4     format version, u32 little-endian
//! 12      8     checksum, u64 little-endian: XXH3-64 (seed 0) of every byte from offset 20 on
//! 20      4     IR-semantics version, u32 little-endian
//! 24      ...   body: postcard(Body)
//! ```

use serde::{Deserialize, Serialize};

/// The eight bytes every `.osir` file starts with. The first byte is not ASCII (so the file
/// is never mistaken for text), and the CR LF and Ctrl-Z bytes detect transfers that rewrite
/// line endings or stop at an end-of-file mark (the trick PNG uses).
pub const MAGIC: [u8; 8] = *b"\x89OSIR\r\n\x1a";

/// The container format this crate writes, and the newest one it reads.
pub const FORMAT_VERSION: u32 = 1;

/// The length of the fixed header before the postcard body.
pub const HEADER_LEN: usize = 24;

/// Where the checksummed bytes start: everything after the magic, the format version and the
/// checksum itself.
pub(crate) const CHECKSUM_FROM: usize = 20;

/// The producer string written by default: this crate's name and version.
pub const PRODUCER: &str = concat!("oneshader ", env!("CARGO_PKG_VERSION"));

/// Section ids. An id with the high bit set marks an optional section: a reader that does not
/// know it skips it. Any other unknown id is an error (new required sections come with a new
/// format version).
pub(crate) const SECTION_STRINGS: u32 = 1;
pub(crate) const SECTION_INSTS: u32 = 2;
pub(crate) const SECTION_SYMBOLS: u32 = 3;
pub(crate) const SECTION_SOURCE_MAP: u32 = 0x8000_0001;
pub(crate) const SECTION_INDEX: u32 = 0x8000_0002;
pub(crate) const OPTIONAL_SECTION_BIT: u32 = 0x8000_0000;

/// The postcard-encoded body after the fixed header.
#[derive(Serialize, Deserialize)]
pub(crate) struct Body<'a> {
    /// Free text naming the program that wrote the file (information only).
    #[serde(borrow)]
    pub producer: &'a str,
    /// See [`CacheKey`].
    pub cache_key: [u8; 16],
    /// The sections, in increasing id order (optional sections after required ones).
    #[serde(borrow)]
    pub sections: Vec<Section<'a>>,
}

/// One section: its id and its own postcard encoding.
#[derive(Serialize, Deserialize)]
pub(crate) struct Section<'a> {
    pub id: u32,
    #[serde(borrow, with = "serde_bytes_borrowed")]
    pub data: &'a [u8],
}

/// `&[u8]` as a postcard byte string (length + bytes) rather than a sequence of u8 values.
mod serde_bytes_borrowed {
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(v)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<&'de [u8], D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = &'de [u8];
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a byte string")
            }
            fn visit_borrowed_bytes<E>(self, v: &'de [u8]) -> Result<&'de [u8], E> {
                Ok(v)
            }
        }
        d.deserialize_bytes(V)
    }
}

/// Section 1: every string of the file (name hints, string constants, source file names), each
/// once, in first-use order.
#[derive(Serialize, Deserialize)]
pub(crate) struct StringSection<'a> {
    #[serde(borrow)]
    pub strings: Vec<&'a str>,
}

/// Section 2: the instruction stream, the module's tree in preorder (the module root first),
/// as parallel columns. Record `i` is the `i`-th instruction of the preorder walk.
#[derive(Serialize, Deserialize, Default)]
pub(crate) struct InstSection {
    /// Wire opcode of each record (`Op::wire_id`).
    pub ops: Vec<u16>,
    /// Number of children of each record; with preorder this fixes the tree.
    pub child_counts: Vec<u32>,
    /// Type of each record: 0 for none, else the record index of the type plus one.
    pub types: Vec<u32>,
    /// Number of operands of each record.
    pub operand_counts: Vec<u32>,
    /// Every record's operands, concatenated: record indices.
    pub operands: Vec<u32>,
    /// The payload of each literal record (`const_bool`, `const_int`, `const_float`,
    /// `const_string`), in record order: the bits, or for strings the string index.
    pub literals: Vec<u64>,
    /// Name hints: (record index, string index), in increasing record order.
    pub names: Vec<(u32, u32)>,
}

/// Section 3: what the module exports and imports, for linkers and build tools that look at a
/// file without loading it. Derived from the `export`/`import` decorations; the loader checks
/// that the two agree.
#[derive(Serialize, Deserialize, Default)]
pub(crate) struct SymbolSection {
    /// (kind: 0 export, 1 import; string index of the mangled name; record index of the
    /// decorated item), in record order.
    pub symbols: Vec<(u8, u32, u32)>,
}

/// Optional section 0x8000_0001: where instructions came from in the source.
#[derive(Serialize, Deserialize, Default)]
pub(crate) struct SourceMapSection {
    /// String indices of the file names.
    pub files: Vec<u32>,
    /// (record index, file index, line, column), in increasing record order.
    pub locations: Vec<(u32, u32, u32, u32)>,
}

/// The instruction section's columns, in their order in the section: the order of the byte
/// offsets of each entry of [`IndexSection::offsets`].
pub(crate) const INDEX_COLUMNS: usize = 7;
/// Column numbers within an index entry's offsets.
pub(crate) const COL_OPS: usize = 0;
pub(crate) const COL_CHILD_COUNTS: usize = 1;
pub(crate) const COL_TYPES: usize = 2;
pub(crate) const COL_OPERAND_COUNTS: usize = 3;
pub(crate) const COL_OPERANDS: usize = 4;
pub(crate) const COL_LITERALS: usize = 5;
pub(crate) const COL_NAMES: usize = 6;

/// Optional section 0x8000_0002: the symbol index, where each module-level item (each child of
/// the module record, with its subtree; consecutive types and constants share an entry, see
/// `lazy::Grouping`) sits in the instruction section, so that a lazy load
/// ([`crate::lazy`]) decodes only the items a link needs. Every field is a byte string of
/// little-endian `u32` values (fixed width: entry `k` is read without decoding the others).
/// With `K` items there are `K + 1` entries, the last one a sentinel for the section's end.
#[derive(Serialize, Deserialize)]
pub(crate) struct IndexSection<'a> {
    /// Entry `k`: the record index of item `k`'s first record (its root); the sentinel is the
    /// number of records.
    #[serde(borrow, with = "serde_bytes_borrowed")]
    pub items: &'a [u8],
    /// Entry `k`: for each of the [`INDEX_COLUMNS`] columns, the byte offset inside the
    /// instruction section's data of item `k`'s first element of that column; the sentinel's
    /// are the ends of the columns.
    #[serde(borrow, with = "serde_bytes_borrowed")]
    pub offsets: &'a [u8],
    /// Entry `k`: the element index of item `k`'s first operand, first literal and first name
    /// hint; the sentinel's are the three columns' lengths.
    #[serde(borrow, with = "serde_bytes_borrowed")]
    pub starts: &'a [u8],
    /// The entries every lazy load includes (those holding a module decoration or an entry
    /// point), in increasing order.
    #[serde(borrow, with = "serde_bytes_borrowed")]
    pub always: &'a [u8],
    /// `u64` LE per entry: XXH3-64 of the entry's first and end records (two `u32` LE) and its
    /// bytes in each column in column order; the sentinel's: the same of the module record's
    /// ranges (before entry 0), each from the start of its column's length. A lazy load checks the hash of each entry it decodes, which
    /// binds the entry's offsets and records to the bytes they name.
    #[serde(borrow, with = "serde_bytes_borrowed")]
    pub hashes: &'a [u8],
    /// XXH3-64 of the five tables above, each length-prefixed.
    pub tables: u64,
    /// XXH3-64 of the producer, the cache key and the string and symbol sections' data, each
    /// length-prefixed: with the tables' and the entries' hashes, what lets a lazy load check
    /// the bytes it reads without hashing the whole file.
    pub rest: u64,
}

/// A hash of everything that produced a module (preprocessed source, options, compiler
/// version), written into the file so that a build cache can tell whether a saved module is
/// still the one the inputs would produce. It never includes paths or modification times, so
/// the same inputs give the same key on every machine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CacheKey(pub [u8; 16]);

impl CacheKey {
    /// The key of a module that was not produced from hashed inputs (all zero).
    pub const NONE: CacheKey = CacheKey([0; 16]);

    /// The key of a compilation: XXH3-128 over the preprocessed source, each option (in the
    /// order given: sort them first when their order does not matter) and the compiler version,
    /// each part length-prefixed so that no two different input lists collide by concatenation.
    pub fn from_inputs(
        preprocessed_source: &[u8],
        options: &[&str],
        compiler_version: &str,
    ) -> Self {
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        let mut part = |tag: u8, bytes: &[u8]| {
            h.update(&[tag]);
            h.update(&(bytes.len() as u64).to_le_bytes());
            h.update(bytes);
        };
        part(b's', preprocessed_source);
        for o in options {
            part(b'o', o.as_bytes());
        }
        part(b'v', compiler_version.as_bytes());
        CacheKey(h.digest128().to_le_bytes())
    }

    /// The key as 32 lowercase hex digits.
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// What a file's header and body say about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The container format version.
    pub format_version: u32,
    /// The IR-semantics version the module was written under.
    pub ir_semantics_version: u32,
    /// The program that wrote the file (information only).
    pub producer: String,
    /// See [`CacheKey`].
    pub cache_key: CacheKey,
    /// The stored checksum (it matched the bytes, or the header would not have been read).
    pub checksum: u64,
}

/// The XXH3-64 checksum of a file's checksummed bytes (offset 20 on).
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes.get(CHECKSUM_FROM..).unwrap_or(&[]))
}

/// Recomputes and stores the checksum of `bytes` (an `.osir` image of at least the header's
/// length; shorter slices are left alone). For tests and fuzzers that change a file on purpose
/// and want the loader to look past the checksum.
pub fn reseal(bytes: &mut [u8]) {
    if bytes.len() < HEADER_LEN {
        return;
    }
    let sum = checksum(bytes);
    bytes[12..20].copy_from_slice(&sum.to_le_bytes());
}

/// True when `bytes` starts with the `.osir` magic.
pub fn is_osir(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}
