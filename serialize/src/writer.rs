//! Saving a module as `.osir` bytes.
//!
//! The instruction stream is the module's tree in preorder, so the bytes depend only on the
//! module's structure, child order, payloads and name hints: slot-map keys and hash orders
//! never reach the file, and the same module always gives the same bytes.

use oneshader_ir::{InstId, Module, Op};
use rustc_hash::FxHashMap;
use slotmap::SecondaryMap;

use crate::format::{
    Body, CHECKSUM_FROM, CacheKey, FORMAT_VERSION, HEADER_LEN, INDEX_COLUMNS, IndexSection,
    InstSection, MAGIC, PRODUCER, SECTION_INDEX, SECTION_INSTS, SECTION_SOURCE_MAP,
    SECTION_STRINGS, SECTION_SYMBOLS, Section, SourceMapSection, StringSection, SymbolSection,
    checksum,
};
use crate::{SourceLocations, SymbolKind};

/// What to write besides the module.
#[derive(Clone, Debug)]
pub struct SaveOptions<'a> {
    /// The hash of the inputs that produced the module ([`CacheKey::from_inputs`]), or
    /// [`CacheKey::NONE`].
    pub cache_key: CacheKey,
    /// Free text naming the program that writes the file; [`PRODUCER`] by default.
    pub producer: &'a str,
    /// Where instructions came from, written as the optional source-map section.
    pub source_map: Option<&'a SourceLocations>,
    /// Whether to write the symbol index (optional section 0x8000_0002) that lets a linker
    /// load only the items it needs ([`crate::lazy`]).
    pub index: IndexPolicy,
}

/// When [`save_with`] writes the symbol index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IndexPolicy {
    /// For modules of at least [`INDEX_MIN_RECORDS`] instructions (libraries worth loading
    /// lazily); a small module loads in full about as fast as its index would be read.
    #[default]
    Auto,
    /// Always (tests, tools).
    Always,
    /// Never.
    Never,
}

/// The smallest module (in instructions, the module itself included) that
/// [`IndexPolicy::Auto`] writes an index for.
pub const INDEX_MIN_RECORDS: usize = 4096;

impl Default for SaveOptions<'_> {
    fn default() -> Self {
        SaveOptions {
            cache_key: CacheKey::NONE,
            producer: PRODUCER,
            source_map: None,
            index: IndexPolicy::Auto,
        }
    }
}

/// Why a module could not be saved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SaveError {
    /// An operand or type refers to an instruction that is not in the module's tree (a
    /// detached or removed instruction): the module is broken; the verifier says where.
    #[error("`{user}` refers to an instruction that is not in the module's tree")]
    NotInTree {
        /// The referring instruction, printed.
        user: String,
    },
    /// The source map names an instruction that is not in the module's tree (a pass removed
    /// it after the map was made: `SourceLocations::retain_in_tree` drops such entries).
    #[error(
        "the source map names {inst} (line {line}), which is not in the module's tree; \
         `SourceLocations::retain_in_tree` drops the locations of removed instructions"
    )]
    SourceMapNotInTree {
        /// The instruction, printed (or `a removed instruction` with its slot number).
        inst: String,
        /// Its location's line.
        line: u32,
    },
    /// The source map names a file index beyond its file list.
    #[error("the source map names file {index}, but lists only {len} files")]
    SourceMapFile {
        /// The file index used.
        index: u32,
        /// The number of files.
        len: usize,
    },
    /// More instructions than the format's 32-bit record indices can address.
    #[error("the module has more than 4294967294 instructions")]
    TooLarge,
}

/// Saves `m` with default options (no cache key, no source map).
pub fn save(m: &Module) -> Result<Vec<u8>, SaveError> {
    save_with(m, &SaveOptions::default())
}

/// Saves `m` as an `.osir` image.
pub fn save_with<'a>(m: &'a Module, opts: &SaveOptions<'a>) -> Result<Vec<u8>, SaveError> {
    let order = preorder(m);
    if order.len() >= u32::MAX as usize {
        return Err(SaveError::TooLarge);
    }
    let mut index: SecondaryMap<InstId, u32> = SecondaryMap::with_capacity(order.len());
    for (i, &id) in order.iter().enumerate() {
        index.insert(id, i as u32);
    }
    let mut strings = Strings::default();
    let mut insts = InstSection {
        ops: Vec::with_capacity(order.len()),
        child_counts: vec![0; order.len()],
        types: Vec::with_capacity(order.len()),
        operand_counts: Vec::with_capacity(order.len()),
        operands: Vec::with_capacity(order.len() * 2),
        literals: Vec::new(),
        names: Vec::new(),
    };
    let mut symbols = SymbolSection::default();
    let lookup = |user: InstId, v: InstId| -> Result<u32, SaveError> {
        index.get(v).copied().ok_or_else(|| SaveError::NotInTree {
            user: oneshader_ir::print::print_inst(m, user),
        })
    };
    for (i, &id) in order.iter().enumerate() {
        let op = m.op(id);
        insts.ops.push(op.wire_id());
        if let Some(p) = m.parent(id)
            && let Some(&pi) = index.get(p)
        {
            insts.child_counts[pi as usize] += 1;
        }
        insts.types.push(match m.ty(id) {
            Some(t) => lookup(id, t)? + 1,
            None => 0,
        });
        insts.operand_counts.push(m.num_operands(id) as u32);
        for o in m.operands(id) {
            insts.operands.push(lookup(id, o)?);
        }
        match op {
            Op::ConstBool | Op::ConstInt | Op::ConstFloat => {
                insts.literals.push(m.literal_bits(id).unwrap_or(0));
            }
            Op::ConstString => {
                let s = m.literal_str(id).unwrap_or("");
                insts.literals.push(strings.id(s) as u64);
            }
            _ => {}
        }
        if let Some(name) = m.name(id) {
            insts.names.push((i as u32, strings.id(name)));
        }
        if let Some((kind, name)) = symbol_of(m, id) {
            let target = m.parent(id).and_then(|p| index.get(p).copied());
            if let Some(target) = target {
                let kind = match kind {
                    SymbolKind::Export => 0,
                    SymbolKind::Import => 1,
                };
                symbols.symbols.push((kind, strings.id(name), target));
            }
        }
    }
    let source_map = match opts.source_map {
        Some(sm) => Some(encode_source_map(m, sm, &index, &mut strings)?),
        None => None,
    };

    let strings_bytes = encode(&StringSection {
        strings: strings.list,
    });
    let insts_bytes = encode(&insts);
    let symbols_bytes = encode(&symbols);
    let sm_bytes = source_map.as_ref().map(encode);
    let write_index = match opts.index {
        IndexPolicy::Auto => order.len() >= INDEX_MIN_RECORDS,
        IndexPolicy::Always => true,
        IndexPolicy::Never => false,
    };
    let index =
        write_index.then(|| build_index(&insts, &insts_bytes, &crate::lazy::entry_starts(&insts)));
    let index_bytes = index.as_ref().map(|ix| {
        encode(&IndexSection {
            items: &ix.items,
            offsets: &ix.offsets,
            starts: &ix.starts,
            always: &ix.always,
            hashes: &ix.hashes,
            tables: ix.tables,
            rest: rest_hash(
                opts.producer,
                &opts.cache_key.0,
                &strings_bytes,
                &symbols_bytes,
            ),
        })
    });
    let mut sections = vec![
        Section {
            id: SECTION_STRINGS,
            data: &strings_bytes,
        },
        Section {
            id: SECTION_INSTS,
            data: &insts_bytes,
        },
        Section {
            id: SECTION_SYMBOLS,
            data: &symbols_bytes,
        },
    ];
    if let Some(b) = &sm_bytes {
        sections.push(Section {
            id: SECTION_SOURCE_MAP,
            data: b,
        });
    }
    if let Some(b) = &index_bytes {
        sections.push(Section {
            id: SECTION_INDEX,
            data: b,
        });
    }
    let body = Body {
        producer: opts.producer,
        cache_key: opts.cache_key.0,
        sections,
    };
    let mut out = Vec::with_capacity(HEADER_LEN + insts_bytes.len() + strings_bytes.len() + 64);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&[0; 8]);
    out.extend_from_slice(&oneshader_ir::IR_SEMANTICS_VERSION.to_le_bytes());
    // Encoding plain structs of integers, strings and byte strings into a Vec cannot fail:
    // postcard's only error for these is running out of buffer, and a Vec grows.
    let mut out = postcard::to_extend(&body, out).unwrap_or_default();
    debug_assert!(out.len() > CHECKSUM_FROM);
    let sum = checksum(&out);
    out[12..20].copy_from_slice(&sum.to_le_bytes());
    Ok(out)
}

/// Postcard encoding of a section. Infallible for the section types of this crate (integers,
/// strings and vectors of them into a growable Vec).
fn encode<T: serde::Serialize>(v: &T) -> Vec<u8> {
    postcard::to_allocvec(v).unwrap_or_default()
}

/// The index's three byte strings (see [`IndexSection`]).
pub(crate) struct IndexBytes {
    pub(crate) items: Vec<u8>,
    pub(crate) offsets: Vec<u8>,
    pub(crate) starts: Vec<u8>,
    pub(crate) always: Vec<u8>,
    pub(crate) hashes: Vec<u8>,
    pub(crate) tables: u64,
}

/// XXH3-64 of an index entry: its first and end records, then its bytes in each column
/// (`ranges`, byte ranges of `inst`, the instruction section's data). Out-of-range ranges
/// hash as empty (the reader checks them before hashing).
pub(crate) fn entry_hash(inst: &[u8], first: u32, end: u32, ranges: &[(usize, usize)]) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&first.to_le_bytes());
    h.update(&end.to_le_bytes());
    for &(a, b) in ranges {
        h.update(inst.get(a..b).unwrap_or(&[]));
    }
    h.digest()
}

/// XXH3-64 of what a lazy load reads outside the instruction section and the index: the
/// producer, the cache key, the string and symbol sections' data.
pub(crate) fn rest_hash(
    producer: &str,
    cache_key: &[u8; 16],
    strings: &[u8],
    symbols: &[u8],
) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for p in [producer.as_bytes(), cache_key.as_slice(), strings, symbols] {
        h.update(&(p.len() as u64).to_le_bytes());
        h.update(p);
    }
    h.digest()
}

/// XXH3-64 of the index's tables.
pub(crate) fn tables_hash(parts: [&[u8]; 5]) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for p in parts {
        h.update(&(p.len() as u64).to_le_bytes());
        h.update(p);
    }
    h.digest()
}

/// Bytes of the postcard varint of `v`.
fn varint_len(v: u64) -> usize {
    let bits = 64 - v.leading_zeros() as usize;
    bits.max(1).div_ceil(7)
}

/// Where each index entry (starting at the records `item_starts`: module-level items, grouped
/// by `lazy::Grouping`) begins in each column of the encoded instruction section. Mirrors postcard's layout: a
/// column is its length as a varint, then its elements as varints (a name hint is two).
pub(crate) fn build_index(t: &InstSection, inst: &[u8], item_starts: &[u32]) -> IndexBytes {
    let n = t.ops.len();
    let k = item_starts.len();
    // Per record: how many operands / literals come before it; per item: its first name hint.
    let mut items = Vec::with_capacity((k + 1) * 4);
    let mut offsets = Vec::with_capacity((k + 1) * 4 * INDEX_COLUMNS);
    let mut starts = Vec::with_capacity((k + 1) * 12);
    let put = |v: &mut Vec<u8>, x: usize| v.extend_from_slice(&(x as u32).to_le_bytes());
    // Column starts: each column follows the previous one, after its own length prefix.
    let mut col_start = [0usize; INDEX_COLUMNS];
    let lens = [
        t.ops.len(),
        t.child_counts.len(),
        t.types.len(),
        t.operand_counts.len(),
        t.operands.len(),
        t.literals.len(),
        t.names.len(),
    ];
    let mut at = 0usize;
    let mut col_bytes = [0usize; INDEX_COLUMNS];
    col_bytes[0] = t.ops.iter().map(|&x| varint_len(x as u64)).sum();
    col_bytes[1] = t.child_counts.iter().map(|&x| varint_len(x as u64)).sum();
    col_bytes[2] = t.types.iter().map(|&x| varint_len(x as u64)).sum();
    col_bytes[3] = t.operand_counts.iter().map(|&x| varint_len(x as u64)).sum();
    col_bytes[4] = t.operands.iter().map(|&x| varint_len(x as u64)).sum();
    col_bytes[5] = t.literals.iter().map(|&x| varint_len(x)).sum();
    col_bytes[6] = t
        .names
        .iter()
        .map(|&(r, s)| varint_len(r as u64) + varint_len(s as u64))
        .sum();
    for c in 0..INDEX_COLUMNS {
        at += varint_len(lens[c] as u64);
        col_start[c] = at;
        at += col_bytes[c];
    }
    // Walk the records once, emitting an entry at each item start and the sentinel at the end.
    let mut pos = col_start;
    let (mut operand, mut literal, mut name) = (0usize, 0usize, 0usize);
    let mut next_item = item_starts.iter().copied().peekable();
    for i in 0..=n {
        if next_item.peek().is_some_and(|&s| s as usize == i) || i == n {
            next_item.next();
            // Name hints of records before `i`.
            while name < t.names.len() && (t.names[name].0 as usize) < i {
                let (r, s) = t.names[name];
                pos[6] += varint_len(r as u64) + varint_len(s as u64);
                name += 1;
            }
            put(&mut items, i);
            for p in pos {
                put(&mut offsets, p);
            }
            put(&mut starts, operand);
            put(&mut starts, literal);
            put(&mut starts, name);
        }
        if i == n {
            break;
        }
        pos[0] += varint_len(t.ops[i] as u64);
        pos[1] += varint_len(t.child_counts[i] as u64);
        pos[2] += varint_len(t.types[i] as u64);
        pos[3] += varint_len(t.operand_counts[i] as u64);
        let c = t.operand_counts[i] as usize;
        for &o in &t.operands[operand..operand + c] {
            pos[4] += varint_len(o as u64);
        }
        operand += c;
        if is_literal_wire(t.ops[i]) {
            pos[5] += varint_len(t.literals[literal]);
            literal += 1;
        }
    }
    // Entries holding a module decoration (always an entry's first record) or an entry point.
    let mut always = Vec::new();
    let bounds: Vec<usize> = item_starts
        .iter()
        .map(|&s| s as usize)
        .chain(std::iter::once(n))
        .collect();
    for (e, w) in bounds.windows(2).enumerate() {
        let decoration = Op::from_wire(t.ops[w[0]]).is_some_and(|op| op.is_decoration());
        let entry_point = t.ops[w[0]..w[1]]
            .iter()
            .any(|&x| x == Op::EntryPoint.wire_id());
        if decoration || entry_point {
            put(&mut always, e);
        }
    }
    // Hashes: entries, then the module record's ranges (from the columns' starts).
    let at = |e: usize, c: usize| -> usize {
        let i = (e * INDEX_COLUMNS + c) * 4;
        u32::from_le_bytes([offsets[i], offsets[i + 1], offsets[i + 2], offsets[i + 3]]) as usize
    };
    let mut hashes = Vec::with_capacity((k + 1) * 8);
    for e in 0..k {
        let ranges: Vec<(usize, usize)> = (0..INDEX_COLUMNS)
            .map(|c| (at(e, c), at(e + 1, c)))
            .collect();
        hashes.extend_from_slice(
            &entry_hash(inst, bounds[e] as u32, bounds[e + 1] as u32, &ranges).to_le_bytes(),
        );
    }
    let first = bounds.first().copied().unwrap_or(n) as u32;
    // The module record's ranges start at each column's length, so the lengths are covered.
    let root: Vec<(usize, usize)> = (0..INDEX_COLUMNS)
        .map(|c| (if c == 0 { 0 } else { at(k, c - 1) }, at(0, c)))
        .collect();
    hashes.extend_from_slice(&entry_hash(inst, 0, first, &root).to_le_bytes());
    let tables = tables_hash([&items, &offsets, &starts, &always, &hashes]);
    IndexBytes {
        items,
        offsets,
        starts,
        always,
        hashes,
        tables,
    }
}

/// True for the wire ids of the records that carry a literal payload.
pub(crate) fn is_literal_wire(w: u16) -> bool {
    w == Op::ConstBool.wire_id()
        || w == Op::ConstInt.wire_id()
        || w == Op::ConstFloat.wire_id()
        || w == Op::ConstString.wire_id()
}

/// The module's tree in preorder, without recursion or allocation beyond the result.
pub(crate) fn preorder(m: &Module) -> Vec<InstId> {
    let root = m.root();
    let mut out = Vec::with_capacity(m.len());
    let mut cur = root;
    loop {
        out.push(cur);
        if let Some(c) = m.first_child(cur) {
            cur = c;
            continue;
        }
        loop {
            if cur == root {
                return out;
            }
            if let Some(n) = m.next_sibling(cur) {
                cur = n;
                break;
            }
            match m.parent(cur) {
                Some(p) => cur = p,
                None => return out,
            }
        }
    }
}

/// The symbol an `export`/`import` decoration declares: its kind and mangled name (operand 0,
/// a string constant).
pub(crate) fn symbol_of(m: &Module, id: InstId) -> Option<(SymbolKind, &str)> {
    let kind = match m.op(id) {
        Op::Export => SymbolKind::Export,
        Op::Import => SymbolKind::Import,
        _ => return None,
    };
    let name = m.literal_str(m.try_operand(id, 0)?)?;
    Some((kind, name))
}

fn encode_source_map<'a>(
    m: &Module,
    sm: &'a SourceLocations,
    index: &SecondaryMap<InstId, u32>,
    strings: &mut Strings<'a>,
) -> Result<SourceMapSection, SaveError> {
    let files: Vec<u32> = sm.files.iter().map(|f| strings.id(f)).collect();
    let mut locations = Vec::with_capacity(sm.locations.len());
    for (id, loc) in &sm.locations {
        let rec = index
            .get(*id)
            .copied()
            .ok_or_else(|| SaveError::SourceMapNotInTree {
                inst: if m.contains(*id) {
                    format!("`{}`", oneshader_ir::print::print_inst(m, *id).trim())
                } else {
                    format!("a removed instruction (slot {})", id.slot_number())
                },
                line: loc.line,
            })?;
        if loc.file as usize >= files.len() {
            return Err(SaveError::SourceMapFile {
                index: loc.file,
                len: files.len(),
            });
        }
        locations.push((rec, loc.file, loc.line, loc.column));
    }
    // Record order, so the bytes do not depend on the order the caller listed them in.
    locations.sort_unstable();
    locations.dedup_by_key(|l| l.0);
    Ok(SourceMapSection { files, locations })
}

/// The string table being built: each string once, in first-use order.
#[derive(Default)]
struct Strings<'a> {
    list: Vec<&'a str>,
    ids: FxHashMap<&'a str, u32>,
}

impl<'a> Strings<'a> {
    fn id(&mut self, s: &'a str) -> u32 {
        if let Some(&i) = self.ids.get(s) {
            return i;
        }
        let i = self.list.len() as u32;
        self.list.push(s);
        self.ids.insert(s, i);
        i
    }
}
