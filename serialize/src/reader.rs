//! Loading `.osir` bytes: handles before meaning.
//!
//! 1. The container: length, magic, format version (a newer one is refused with both versions
//!    named), checksum (a flipped byte is corruption, never loaded), IR-semantics version.
//! 2. The sections decode (postcard), and every handle is proven in range before anything is
//!    built: opcodes known, child counts forming one tree, type, operand, string and record
//!    indices inside their tables, operand counts fitting each opcode's signature, literal
//!    payloads present, hoistable values free of cycles, nesting within limits.
//! 3. The module is rebuilt through ir-core's API in linear time: non-hoistable instructions
//!    first (so forward references have targets), then hoistable values in dependency order,
//!    interned so that the dedup table is rebuilt (an equal pair is an error), then types and
//!    operands, then the tree in the file's order. Use lists are rebuilt by the store itself.
//! 4. The symbol table is checked against the decorations, and the module is verified.
//!
//! No input makes the loader panic; everything wrong is a [`LoadError`] with a code below.
//!
//! | code | meaning |
//! |---|---|
//! | OSL0001 | the file is shorter than the header, or the body ends early (truncated) |
//! | OSL0002 | wrong magic: not an `.osir` file |
//! | OSL0003 | unsupported format version (newer than this reader, or 0) |
//! | OSL0004 | checksum mismatch: the file is corrupted (a lazy load: a hash its symbol index keeps does not match what it names) |
//! | OSL0005 | the file was written under a different IR-semantics version |
//! | OSL0006 | a section does not decode, is missing, repeated or unknown, or its columns disagree in length |
//! | OSL0007 | unknown wire opcode |
//! | OSL0008 | an index (type, operand, string, record, file) is out of range |
//! | OSL0009 | an operand count or literal payload does not fit its opcode |
//! | OSL0010 | hoistable values form a cycle, or nest deeper than the limit |
//! | OSL0011 | two hoistable values are equal (the dedup table cannot hold both) |
//! | OSL0012 | the symbol table disagrees with the `export`/`import` decorations |
//! | OSL0013 | the tree is malformed: the first record is not the module, a second module record, child counts that do not add up, or nesting deeper than the limit |
//! | OSL0014 | the symbol index (optional section 0x8000_0002) does not decode, or disagrees with the instruction section: a damaged or lying index |
//!
//! A module that is well formed but does not verify is reported with the verifier's own
//! diagnostics (OSV codes) as [`LoadError::Invalid`].

use oneshader_ir::{Diagnostic, InstId, Module, Op, Payload, RawError};

use crate::format::{
    Body, CacheKey, FORMAT_VERSION, HEADER_LEN, Header, InstSection, MAGIC, OPTIONAL_SECTION_BIT,
    SECTION_INDEX, SECTION_INSTS, SECTION_SOURCE_MAP, SECTION_STRINGS, SECTION_SYMBOLS,
    SourceMapSection, StringSection, SymbolSection, checksum,
};
use crate::writer::symbol_of;
use crate::{SourceLoc, SourceLocations, Symbol, SymbolKind};

/// Deepest tree the loader accepts (module, generics nested in generics, functions, blocks):
/// far beyond real modules, and low enough that recursive consumers cannot overflow the stack.
pub const MAX_TREE_DEPTH: usize = 256;

/// Deepest nesting of hoistable values (a type of a type of ...) the loader accepts.
pub const MAX_VALUE_DEPTH: usize = 512;

/// How to load.
#[derive(Clone, Copy, Debug)]
pub struct LoadOptions {
    /// Run the verifier on the rebuilt module (default: yes). Without it, a well-formed file
    /// whose module breaks IR rules loads anyway: use it only for trusted files (e.g. a cache
    /// this program wrote) or to inspect broken ones.
    pub verify: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions { verify: true }
    }
}

/// A loaded file.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The module.
    pub module: Module,
    /// The file's metadata.
    pub header: Header,
    /// Exports and imports, in file order.
    pub symbols: Vec<Symbol>,
    /// The source map, when the file has one.
    pub source_map: Option<SourceLocations>,
}

/// Why bytes could not be loaded.
#[derive(Clone, Debug, thiserror::Error)]
pub enum LoadError {
    /// The bytes are not a well-formed `.osir` file (codes OSL0001..).
    #[error("{0}")]
    Malformed(Diagnostic),
    /// The file is well formed, but its module does not verify (the verifier's diagnostics).
    #[error("the module in the file does not verify ({} problems; the first: {})",
        .0.len(), .0.first().map(|d| d.to_string()).unwrap_or_default())]
    Invalid(Vec<Diagnostic>),
}

impl LoadError {
    /// The code of the (first) diagnostic.
    pub fn code(&self) -> &'static str {
        match self {
            LoadError::Malformed(d) => d.code,
            LoadError::Invalid(ds) => ds.first().map(|d| d.code).unwrap_or("OSV0000"),
        }
    }

    /// Every diagnostic.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        match self {
            LoadError::Malformed(d) => vec![d.clone()],
            LoadError::Invalid(ds) => ds.clone(),
        }
    }
}

/// OSL0006 unless the section ids strictly increase (each section once, in order): what
/// both the full and the lazy load require of a file.
pub(crate) fn sections_in_order(sections: &[crate::format::Section<'_>]) -> Result<(), LoadError> {
    for w in sections.windows(2) {
        if w[1].id <= w[0].id {
            return err(
                "OSL0006",
                format!("section {:#x} is out of order or repeated", w[1].id),
            );
        }
    }
    Ok(())
}

pub(crate) fn err<T>(code: &'static str, msg: impl Into<String>) -> Result<T, LoadError> {
    Err(LoadError::Malformed(Diagnostic::error(code, msg)))
}

/// Loads an `.osir` image.
pub fn load(bytes: &[u8], opts: &LoadOptions) -> Result<Loaded, LoadError> {
    load_decoded(Decoded::new(bytes)?, opts)
}

/// Checks, rebuilds and verifies decoded sections: the common part of [`load`] and the lazy
/// load ([`crate::lazy`]), which hands over the sections of the items it selected.
pub(crate) fn load_decoded(file: Decoded<'_>, opts: &LoadOptions) -> Result<Loaded, LoadError> {
    let plan = Plan::check(&file)?;
    if let Some(ix) = file.index {
        crate::lazy::check_full(ix, &file.insts, file.inst_bytes, file.rest)?;
    }
    let (module, ids) = plan.build(&file)?;
    let symbols = file.symbols();
    check_symbols(&module, &file, &ids)?;
    let source_map = file.source_map.as_ref().map(|sm| SourceLocations {
        files: sm
            .files
            .iter()
            .map(|&f| file.strings[f as usize].to_string())
            .collect(),
        locations: sm
            .locations
            .iter()
            .map(|&(rec, file, line, column)| (ids[rec as usize], SourceLoc { file, line, column }))
            .collect(),
    });
    if opts.verify {
        let diags = oneshader_ir::verify::verify(&module);
        if !diags.is_empty() {
            return Err(LoadError::Invalid(diags));
        }
    }
    Ok(Loaded {
        module,
        header: file.header,
        symbols,
        source_map,
    })
}

/// Reads and checks a file's header (magic, versions, checksum) without decoding the module:
/// what a build cache needs to decide whether a file is current.
pub fn read_header(bytes: &[u8]) -> Result<Header, LoadError> {
    let (header, _) = container(bytes)?;
    Ok(header)
}

/// Reads a file's exports and imports without building its module (every index checked).
pub fn read_symbols(bytes: &[u8]) -> Result<Vec<Symbol>, LoadError> {
    let file = Decoded::new(bytes)?;
    Plan::check(&file)?;
    if let Some(ix) = file.index {
        crate::lazy::check_full(ix, &file.insts, file.inst_bytes, file.rest)?;
    }
    Ok(file.symbols())
}

/// Checks the fixed header and decodes the body.
pub(crate) fn container(bytes: &[u8]) -> Result<(Header, Body<'_>), LoadError> {
    container_with(bytes, true)
}

/// [`container`], comparing the checksum only when `checksum` (a lazy load checks the hashes
/// its index keeps of what it reads instead: crate::lazy).
pub(crate) fn container_with(
    bytes: &[u8],
    checksum_too: bool,
) -> Result<(Header, Body<'_>), LoadError> {
    if bytes.is_empty() {
        return err("OSL0001", "the file is empty");
    }
    let magic_len = bytes.len().min(MAGIC.len());
    if bytes[..magic_len] != MAGIC[..magic_len] {
        return err(
            "OSL0002",
            "not an .osir file: the magic bytes `\\x89OSIR\\r\\n\\x1a` are missing",
        );
    }
    if bytes.len() < HEADER_LEN {
        return err(
            "OSL0001",
            format!(
                "the file is truncated: {} bytes, shorter than the {HEADER_LEN}-byte header",
                bytes.len()
            ),
        );
    }
    let u32_at =
        |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let format_version = u32_at(8);
    if format_version > FORMAT_VERSION {
        return err(
            "OSL0003",
            format!(
                "the file has .osir format version {format_version}, newer than version \
                 {FORMAT_VERSION} which this build reads; update OneShader"
            ),
        );
    }
    if format_version == 0 {
        return err(
            "OSL0003",
            "the file has .osir format version 0, which does not exist",
        );
    }
    let mut sum = [0u8; 8];
    sum.copy_from_slice(&bytes[12..20]);
    let stored = u64::from_le_bytes(sum);
    let actual = if checksum_too {
        checksum(bytes)
    } else {
        stored
    };
    if stored != actual {
        return err(
            "OSL0004",
            format!(
                "the file is corrupted: its checksum is {stored:016x} but its bytes hash to \
                 {actual:016x} (truncated or modified since it was written)"
            ),
        );
    }
    let ir_semantics_version = u32_at(20);
    if ir_semantics_version != oneshader_ir::IR_SEMANTICS_VERSION {
        return err(
            "OSL0005",
            format!(
                "the file was written under IR-semantics version {ir_semantics_version}, but \
                 this build uses version {}: opcodes may mean different things, so the file \
                 must be rebuilt from its source",
                oneshader_ir::IR_SEMANTICS_VERSION
            ),
        );
    }
    let body: Body<'_> = match postcard::take_from_bytes(&bytes[HEADER_LEN..]) {
        Ok((body, [])) => body,
        Ok((_, rest)) => {
            return err(
                "OSL0006",
                format!("{} unexpected bytes after the file's body", rest.len()),
            );
        }
        Err(e) => return Err(decode_error("the file's body", e)),
    };
    let header = Header {
        format_version,
        ir_semantics_version,
        producer: body.producer.to_string(),
        cache_key: CacheKey(body.cache_key),
        checksum: stored,
    };
    Ok((header, body))
}

pub(crate) fn decode_error(what: &str, e: postcard::Error) -> LoadError {
    match e {
        postcard::Error::DeserializeUnexpectedEnd => LoadError::Malformed(Diagnostic::error(
            "OSL0001",
            format!("the file is truncated: {what} ends early"),
        )),
        e => LoadError::Malformed(Diagnostic::error(
            "OSL0006",
            format!("{what} does not decode: {e}"),
        )),
    }
}

pub(crate) fn decode_section<'a, T: serde::Deserialize<'a>>(
    name: &str,
    data: &'a [u8],
) -> Result<T, LoadError> {
    match postcard::take_from_bytes(data) {
        Ok((v, [])) => Ok(v),
        Ok((_, rest)) => err(
            "OSL0006",
            format!(
                "the {name} section has {} unexpected bytes at its end",
                rest.len()
            ),
        ),
        Err(e) => Err(decode_error(&format!("the {name} section"), e)),
    }
}

/// The decoded sections of a file, indices not yet checked.
pub(crate) struct Decoded<'a> {
    pub(crate) header: Header,
    /// The raw symbol index, when the file has one (checked by [`load_decoded`]).
    pub(crate) index: Option<&'a [u8]>,
    /// The instruction section's raw data (for that check).
    pub(crate) inst_bytes: &'a [u8],
    /// The hash the index keeps of the producer, cache key, string and symbol sections
    /// (`writer::rest_hash`), computed (for that check too).
    pub(crate) rest: u64,
    pub(crate) strings: Vec<&'a str>,
    pub(crate) insts: InstSection,
    pub(crate) symbols: SymbolSection,
    pub(crate) source_map: Option<SourceMapSection>,
}

impl<'a> Decoded<'a> {
    fn new(bytes: &'a [u8]) -> Result<Decoded<'a>, LoadError> {
        let (header, body) = container(bytes)?;
        let mut strings: Option<StringSection<'a>> = None;
        let mut insts: Option<InstSection> = None;
        let mut symbols: Option<SymbolSection> = None;
        let mut source_map: Option<SourceMapSection> = None;
        let mut index: Option<&'a [u8]> = None;
        let mut inst_bytes: &'a [u8] = &[];
        let (mut raw_strings, mut raw_symbols): (&'a [u8], &'a [u8]) = (&[], &[]);
        sections_in_order(&body.sections)?;
        for s in &body.sections {
            match s.id {
                SECTION_STRINGS => {
                    raw_strings = s.data;
                    strings = Some(decode_section("string", s.data)?)
                }
                SECTION_INSTS => {
                    inst_bytes = s.data;
                    insts = Some(decode_section("instruction", s.data)?)
                }
                SECTION_SYMBOLS => {
                    raw_symbols = s.data;
                    symbols = Some(decode_section("symbol", s.data)?)
                }
                SECTION_SOURCE_MAP => source_map = Some(decode_section("source map", s.data)?),
                // Checked against the records once they are (crate::lazy::check_full).
                SECTION_INDEX => index = Some(s.data),
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
        let (Some(strings), Some(insts), Some(symbols)) = (strings, insts, symbols) else {
            return err(
                "OSL0006",
                "a required section (strings, instructions or symbols) is missing",
            );
        };
        let rest =
            crate::writer::rest_hash(body.producer, &body.cache_key, raw_strings, raw_symbols);
        Ok(Decoded {
            header,
            index,
            inst_bytes,
            rest,
            strings: strings.strings,
            insts,
            symbols,
            source_map,
        })
    }

    fn symbols(&self) -> Vec<Symbol> {
        // Indices were checked by `Plan::check`.
        self.symbols
            .symbols
            .iter()
            .map(|&(kind, name, rec)| Symbol {
                kind: if kind == 0 {
                    SymbolKind::Export
                } else {
                    SymbolKind::Import
                },
                name: self.strings[name as usize].to_string(),
                item: Op::from_wire(self.insts.ops[rec as usize]).unwrap_or(Op::Module),
            })
            .collect()
    }
}

/// What the checks proved, ready for building.
pub(crate) struct Plan {
    ops: Vec<Op>,
    /// Parent record of each record (0 for the root itself).
    parent: Vec<u32>,
    /// Start of each record's operands in the operand column.
    operand_start: Vec<usize>,
    /// Index into the literal column of each literal record (`u32::MAX` for others).
    literal_index: Vec<u32>,
    /// Hoistable records, operands before users.
    hoist_order: Vec<u32>,
}

impl Plan {
    pub(crate) fn check(f: &Decoded<'_>) -> Result<Plan, LoadError> {
        let t = &f.insts;
        let n = t.ops.len();
        if n == 0 {
            return err(
                "OSL0013",
                "the instruction stream is empty: no module record",
            );
        }
        if n >= u32::MAX as usize {
            return err("OSL0008", "too many records");
        }
        if t.child_counts.len() != n || t.types.len() != n || t.operand_counts.len() != n {
            return err(
                "OSL0006",
                format!(
                    "the instruction section's columns disagree: {n} opcodes, {} child counts, {} types, {} operand counts",
                    t.child_counts.len(),
                    t.types.len(),
                    t.operand_counts.len()
                ),
            );
        }
        if t.types[0] != 0 {
            return err("OSL0009", "the module record has a type");
        }
        let nstr = f.strings.len();
        // Opcodes, through a table indexed by wire id (`Op::from_wire` searches the list).
        let mut by_wire: Vec<Option<Op>> = Vec::new();
        for &op in oneshader_ir::ops::ALL_OPS {
            let w = op.wire_id() as usize;
            if by_wire.len() <= w {
                by_wire.resize(w + 1, None);
            }
            by_wire[w] = Some(op);
        }
        let mut ops = Vec::with_capacity(n);
        for (i, &w) in t.ops.iter().enumerate() {
            let Some(op) = by_wire.get(w as usize).copied().flatten() else {
                return err("OSL0007", format!("record {i} has unknown wire opcode {w}"));
            };
            if (op == Op::Module) != (i == 0) {
                return err(
                    "OSL0013",
                    if i == 0 {
                        format!("the first record is `{}`, not the module", op.spelling())
                    } else {
                        format!("record {i} is a second module record")
                    },
                );
            }
            ops.push(op);
        }
        // Tree: preorder with child counts.
        let mut parent = vec![0u32; n];
        let mut stack: Vec<(u32, u32)> = vec![(0, t.child_counts[0])];
        for (i, p) in parent.iter_mut().enumerate().skip(1) {
            while stack.last().is_some_and(|&(_, left)| left == 0) {
                stack.pop();
            }
            let Some(top) = stack.last_mut() else {
                return err(
                    "OSL0013",
                    format!(
                        "the child counts describe a tree of {i} records, but the file has {n}"
                    ),
                );
            };
            top.1 -= 1;
            *p = top.0;
            stack.push((i as u32, t.child_counts[i]));
            if stack.len() > MAX_TREE_DEPTH {
                return err(
                    "OSL0013",
                    format!("the tree nests deeper than {MAX_TREE_DEPTH} levels at record {i}"),
                );
            }
        }
        if stack.iter().any(|&(_, left)| left != 0) {
            return err(
                "OSL0013",
                format!("the child counts describe more records than the file's {n}"),
            );
        }
        // Types and operands.
        let total: u64 = t.operand_counts.iter().map(|&c| c as u64).sum();
        if total != t.operands.len() as u64 {
            return err(
                "OSL0006",
                format!(
                    "the operand counts add up to {total}, but the operand column has {}",
                    t.operands.len()
                ),
            );
        }
        let mut operand_start = Vec::with_capacity(n);
        let mut at = 0usize;
        for (i, &c) in t.operand_counts.iter().enumerate() {
            if !ops[i].info().arity_ok(c as usize) {
                return err(
                    "OSL0009",
                    format!(
                        "record {i} (`{}`) has {c} operands, which its opcode does not take",
                        ops[i].spelling()
                    ),
                );
            }
            let ty = t.types[i];
            if ty as usize > n {
                return err(
                    "OSL0008",
                    format!(
                        "record {i} has type record {}, but there are {n} records",
                        ty - 1
                    ),
                );
            }
            operand_start.push(at);
            at += c as usize;
        }
        if let Some((k, &o)) = t
            .operands
            .iter()
            .enumerate()
            .find(|&(_, &o)| o as usize >= n)
        {
            return err(
                "OSL0008",
                format!("operand {k} of the stream names record {o}, but there are {n} records"),
            );
        }
        // Literals.
        let mut literal_index = vec![u32::MAX; n];
        let mut lit = 0usize;
        for (i, op) in ops.iter().enumerate() {
            if !matches!(
                op,
                Op::ConstBool | Op::ConstInt | Op::ConstFloat | Op::ConstString
            ) {
                continue;
            }
            let Some(&v) = t.literals.get(lit) else {
                return err(
                    "OSL0009",
                    format!("record {i} (`{}`) has no literal payload", op.spelling()),
                );
            };
            match op {
                Op::ConstBool if v > 1 => {
                    return err(
                        "OSL0009",
                        format!("record {i}: a bool literal must be 0 or 1, not {v}"),
                    );
                }
                Op::ConstString if v >= nstr as u64 => {
                    return err(
                        "OSL0008",
                        format!("record {i} names string {v}, but there are {nstr}"),
                    );
                }
                _ => {}
            }
            literal_index[i] = lit as u32;
            lit += 1;
        }
        if lit != t.literals.len() {
            return err(
                "OSL0009",
                format!(
                    "{} literal payloads for {lit} literal records",
                    t.literals.len()
                ),
            );
        }
        // Names.
        let mut prev: Option<u32> = None;
        for &(rec, s) in &t.names {
            if rec as usize >= n || s as usize >= nstr {
                return err(
                    "OSL0008",
                    format!("a name hint names record {rec} and string {s}, out of range"),
                );
            }
            if prev.is_some_and(|p| rec <= p) {
                return err("OSL0006", "name hints are not in increasing record order");
            }
            prev = Some(rec);
        }
        // Symbols.
        for &(kind, s, rec) in &f.symbols.symbols {
            if kind > 1 || rec as usize >= n || s as usize >= nstr {
                return err(
                    "OSL0008",
                    format!("symbol entry ({kind}, string {s}, record {rec}) is out of range"),
                );
            }
        }
        // Source map.
        if let Some(sm) = &f.source_map {
            if sm.files.iter().any(|&s| s as usize >= nstr) {
                return err("OSL0008", "the source map names a string out of range");
            }
            let mut prev: Option<u32> = None;
            for &(rec, file, _, _) in &sm.locations {
                if rec as usize >= n || file as usize >= sm.files.len() {
                    return err(
                        "OSL0008",
                        format!("source location of record {rec} in file {file} is out of range"),
                    );
                }
                if prev.is_some_and(|p| rec <= p) {
                    return err(
                        "OSL0006",
                        "source locations are not in increasing record order",
                    );
                }
                prev = Some(rec);
            }
        }
        let mut plan = Plan {
            ops,
            parent,
            operand_start,
            literal_index,
            hoist_order: Vec::new(),
        };
        plan.hoist_order = plan.order_hoistables(t)?;
        Ok(plan)
    }

    fn operands<'t>(&self, t: &'t InstSection, i: usize) -> &'t [u32] {
        let s = self.operand_start[i];
        &t.operands[s..s + t.operand_counts[i] as usize]
    }

    /// Hoistable records in dependency order (type and hoistable operands first), by an
    /// iterative depth-first walk that reports cycles and excessive nesting.
    fn order_hoistables(&self, t: &InstSection) -> Result<Vec<u32>, LoadError> {
        const NEW: u8 = 0;
        const OPEN: u8 = 1;
        const DONE: u8 = 2;
        let n = self.ops.len();
        let mut state = vec![NEW; n];
        let mut depth = vec![0u16; n];
        let mut order = Vec::new();
        // (record, next dependency to look at: 0 = type, k = operand k-1)
        let mut stack: Vec<(u32, u32)> = Vec::new();
        for root in 0..n {
            if !self.ops[root].is_hoistable() || state[root] != NEW {
                continue;
            }
            state[root] = OPEN;
            stack.push((root as u32, 0));
            while let Some(top) = stack.last_mut() {
                let r = top.0 as usize;
                let k = top.1 as usize;
                top.1 += 1;
                let ops = self.operands(t, r);
                let dep = if k == 0 {
                    t.types[r].checked_sub(1)
                } else if let Some(&o) = ops.get(k - 1) {
                    Some(o)
                } else {
                    // Every dependency is done.
                    let deps = t.types[r]
                        .checked_sub(1)
                        .into_iter()
                        .chain(ops.iter().copied());
                    let d = deps
                        .filter(|&x| self.ops[x as usize].is_hoistable())
                        .map(|x| depth[x as usize])
                        .max()
                        .unwrap_or(0);
                    if d as usize >= MAX_VALUE_DEPTH {
                        return err(
                            "OSL0010",
                            format!(
                                "hoistable values nest deeper than {MAX_VALUE_DEPTH} at record {r}"
                            ),
                        );
                    }
                    depth[r] = d + 1;
                    state[r] = DONE;
                    order.push(r as u32);
                    stack.pop();
                    continue;
                };
                let Some(x) = dep else { continue };
                let x = x as usize;
                if !self.ops[x].is_hoistable() {
                    continue;
                }
                match state[x] {
                    DONE => {}
                    OPEN => {
                        return err(
                            "OSL0010",
                            format!(
                                "hoistable values form a cycle: record {r} (`{}`) depends on record {x} (`{}`), which depends on it",
                                self.ops[r].spelling(),
                                self.ops[x].spelling()
                            ),
                        );
                    }
                    _ => {
                        state[x] = OPEN;
                        stack.push((x as u32, 0));
                    }
                }
            }
        }
        Ok(order)
    }

    /// Rebuilds the module. Returns it with the id of every record.
    fn build(&self, f: &Decoded<'_>) -> Result<(Module, Vec<InstId>), LoadError> {
        let t = &f.insts;
        let n = self.ops.len();
        let mut m = Module::new();
        m.reserve(n, n + t.operands.len());
        let root = m.root();
        let mut ids = vec![InstId::default(); n];
        ids[0] = root;
        let raw = |e: RawError, i: usize| -> LoadError {
            LoadError::Malformed(Diagnostic::error(
                "OSL0009",
                format!("record {i} cannot be rebuilt: {e}"),
            ))
        };
        // 1. Non-hoistable instructions, with the root as a placeholder for each operand so that
        //    patching them later reuses the same use nodes.
        let mut placeholder: Vec<InstId> = Vec::new();
        for (i, slot) in ids.iter_mut().enumerate().skip(1) {
            let op = self.ops[i];
            if op.is_hoistable() {
                continue;
            }
            placeholder.clear();
            placeholder.resize(t.operand_counts[i] as usize, root);
            *slot = m
                .create_raw(op, None, &placeholder, Payload::None)
                .map_err(|e| raw(e, i))?;
        }
        // 2. Hoistable values, operands first, interned.
        let mut operands: Vec<InstId> = Vec::new();
        for &r in &self.hoist_order {
            let i = r as usize;
            let op = self.ops[i];
            let ty = t.types[i].checked_sub(1).map(|x| ids[x as usize]);
            operands.clear();
            operands.extend(self.operands(t, i).iter().map(|&o| ids[o as usize]));
            let lit = self.literal_index[i];
            let payload = if lit == u32::MAX {
                Payload::None
            } else if op == Op::ConstString {
                // Proven in range by `check`.
                Payload::Str(f.strings[t.literals[lit as usize] as usize])
            } else {
                Payload::Bits(t.literals[lit as usize])
            };
            let id = m
                .create_raw(op, ty, &operands, payload)
                .map_err(|e| raw(e, i))?;
            match m.intern_existing(id) {
                Ok(()) => {}
                Err(RawError::Duplicate(existing)) => {
                    let other = ids
                        .iter()
                        .position(|&x| x == existing)
                        .unwrap_or(usize::MAX);
                    return err(
                        "OSL0011",
                        format!(
                            "record {i} (`{}`) is equal to record {other}: hoistable values must be unique",
                            op.spelling()
                        ),
                    );
                }
                Err(e) => return Err(raw(e, i)),
            }
            ids[i] = id;
        }
        // 3. Types and operands of the non-hoistable instructions.
        for i in 1..n {
            if self.ops[i].is_hoistable() {
                continue;
            }
            let id = ids[i];
            if let Some(ty) = t.types[i].checked_sub(1) {
                m.set_type(id, Some(ids[ty as usize]));
            }
            let ops = self.operands(t, i);
            if !ops.is_empty() {
                operands.clear();
                operands.extend(ops.iter().map(|&o| ids[o as usize]));
                m.set_operands(id, &operands).map_err(|e| {
                    LoadError::Malformed(Diagnostic::error("OSL0009", format!("record {i}: {e}")))
                })?;
            }
        }
        // 4. The tree, in the file's order.
        for i in 1..n {
            m.append_raw(ids[self.parent[i] as usize], ids[i])
                .map_err(|e| raw(e, i))?;
        }
        // 5. Name hints.
        for &(rec, s) in &t.names {
            m.set_name(ids[rec as usize], Some(f.strings[s as usize]));
        }
        Ok((m, ids))
    }
}

/// The symbol table must list exactly the module's `export`/`import` decorations, in record
/// order (the module's tree order is the file's, so the records are walked, not the tree).
fn check_symbols(m: &Module, f: &Decoded<'_>, ids: &[InstId]) -> Result<(), LoadError> {
    let listed = &f.symbols.symbols;
    let mut next = listed.iter();
    let mut agree = true;
    let mut derived = 0usize;
    for (i, &w) in f.insts.ops.iter().enumerate() {
        if w != Op::Export.wire_id() && w != Op::Import.wire_id() {
            continue;
        }
        let id = ids[i];
        let Some((kind, name)) = symbol_of(m, id) else {
            continue;
        };
        derived += 1;
        let target = m.parent(id);
        agree &= next.next().is_some_and(|&(k, s, rec)| {
            let k = if k == 0 {
                SymbolKind::Export
            } else {
                SymbolKind::Import
            };
            kind == k && name == f.strings[s as usize] && target == Some(ids[rec as usize])
        });
    }
    if agree && next.next().is_none() {
        Ok(())
    } else {
        err(
            "OSL0012",
            format!(
                "the symbol table lists {} symbols that do not match the module's {derived} export/import decorations",
                listed.len()
            ),
        )
    }
}
