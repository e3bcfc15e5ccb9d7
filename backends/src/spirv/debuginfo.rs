//! The extended debug instruction sets, one writer for both (chosen by
//! [`LineInfo::debug_set`](super::LineInfo::debug_set)): NonSemantic.Shader.DebugInfo.100
//! (DXC's `-fspv-debug=vulkan`, `-fspv-debug=vulkan-with-source`) in place of
//! `OpLine`/`OpNoLine`, and OpenCL.DebugInfo.100 (`-fspv-debug=rich`,
//! `-fspv-debug=rich-with-source`), the older set it was derived from, beside them.
//!
//! What is written, and where (NonSemantic.Shader.DebugInfo.100; OpenCL.DebugInfo.100's
//! differences below):
//!
//! - `OpExtension "SPV_KHR_non_semantic_info"` (below SPIR-V 1.6, where it is core) and the
//!   `OpExtInstImport "NonSemantic.Shader.DebugInfo.100"`;
//! - at module level, after every type, constant and global variable (so nothing is referenced
//!   before it is defined, and nothing the shader computes moves): `DebugSource` per file a
//!   position names (with its text under [`LineInfo::embed_source`](super::LineInfo::embed_source),
//!   continued with `DebugSourceContinued` past an `OpString`'s size), one
//!   `DebugCompilationUnit` (version 1, DWARF 4, language HLSL, as DXC writes it), the debug
//!   types (`DebugTypeBasic`, `DebugTypeVector`, `DebugTypeMatrix`, `DebugTypeArray`,
//!   `DebugTypeComposite` with `DebugTypeMember`s, `DebugTypeFunction`), a `DebugFunction` per
//!   function (at its declaration, its scope line too), `DebugLocalVariable`s, a
//!   `DebugGlobalVariable` per named global other than stage inputs and outputs (at its
//!   declaration), and a `DebugEntryPoint` per entry point;
//! - in function bodies: `DebugScope` of the function at the start of every block (after its
//!   `OpPhi`s; a block ends a scope, as it ends a line) and where an instruction's scope
//!   changes (below), `DebugFunctionDefinition` in the entry
//!   block, `DebugLine`/`DebugNoLine` where `OpLine`/`OpNoLine` would be ([`super::lines`]),
//!   `DebugDeclare` of each named function variable where the IR declares it (before mem2reg:
//!   `-O0`), and `DebugValue` of each named block parameter after the block's `OpPhi`s (after
//!   mem2reg, which names the block parameters it makes after the variable) and of each value
//!   holding a source variable (`oneshader_ir::debug_values`) after its definition.
//!
//! Every operand the extended instruction set calls a constant is an `OpConstant` of 32-bit
//! unsigned integer type, as the specification requires. Types without an HLSL counterpart here
//! (resources, samplers, pointers to them) are `DebugTypeComposite`s of class kind with no members,
//! named by their IR spelling. A struct is placed at its declaration; a type or global without
//! one at line 1 of the main file; a function without one at its first positioned instruction.
//!
//! Scopes below the function come from the IR's debug scopes (`oneshader_ir::debug_scopes`):
//! a block of the source that declares locals is a `DebugLexicalBlock` (at its `{`, within the
//! scope around it), the code of an inlined function is in that function's `DebugFunction`
//! with a `DebugInlinedAt` (the call's line and scope, and the call's own inlined-at when the
//! caller was inlined too). A `DebugScope` is written before each instruction whose scope
//! differs from the one in effect (and at the start of every block, the function's); a local
//! variable's `DebugLocalVariable` is in its scope, and its `DebugDeclare` under it. An inlined
//! function that is no longer in the module keeps one `DebugFunction` (made from what the
//! inliner recorded of it), without a definition.
//!
//! OpenCL.DebugInfo.100 (the same instructions where the sets share them, with the grammar's
//! numbers, which are the same for those):
//!
//! - the import is `OpExtInstImport "OpenCL.DebugInfo.100"`, without an extension;
//! - versions, lines, columns, flags, encodings, tags, the language and vector sizes are
//!   literal words; sizes, offsets and array counts stay `OpConstant` ids; `DebugTypeBasic` has
//!   no flags operand; a `DebugGlobalVariable` is flagged `FlagIsDefinition`, as DXC flags it
//!   (spirv-opt's dead-code elimination aborts on one that is not);
//! - `DebugFunction` names its `OpFunction` (a forward reference the set allows) in place of
//!   `DebugFunctionDefinition`; a `DebugTypeComposite` comes before its `DebugTypeMember`s,
//!   which name it as their parent;
//! - there is no `DebugLine`/`DebugNoLine` (the lines are core `OpLine`/`OpNoLine`, as under
//!   `-Zi`, and `OpSource` names the main file), no `DebugEntryPoint`, no
//!   `DebugSourceContinued` (a file's text is one `OpString`; past an instruction's size that
//!   is OSB0010) and no `DebugTypeMatrix`: a matrix is a `DebugTypeArray` of its element
//!   with two counts, rows then columns, as DXC writes it; a run-time array, which would need
//!   a count of 0 the set forbids, is an opaque class composite.

use oneshader_ir::debug_scopes::{Callee, DebugScope, DebugScopeData};
use oneshader_ir::{InstId, Op};
use rspirv::spirv;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::encode::{MAX_WORDS, inst, inst_str};
use super::lines::DebugSet;
use super::module::Emitter;

/// Instruction numbers of the set.
mod op {
    pub const INFO_NONE: u32 = 0;
    pub const COMPILATION_UNIT: u32 = 1;
    pub const TYPE_BASIC: u32 = 2;
    pub const TYPE_ARRAY: u32 = 5;
    pub const TYPE_VECTOR: u32 = 6;
    pub const TYPE_FUNCTION: u32 = 8;
    pub const TYPE_COMPOSITE: u32 = 10;
    pub const TYPE_MEMBER: u32 = 11;
    pub const GLOBAL_VARIABLE: u32 = 18;
    pub const FUNCTION: u32 = 20;
    pub const LEXICAL_BLOCK: u32 = 21;
    pub const SCOPE: u32 = 23;
    pub const INLINED_AT: u32 = 25;
    pub const LOCAL_VARIABLE: u32 = 26;
    pub const DECLARE: u32 = 28;
    pub const VALUE: u32 = 29;
    pub const EXPRESSION: u32 = 31;
    pub const SOURCE: u32 = 35;
    pub const FUNCTION_DEFINITION: u32 = 101;
    pub const SOURCE_CONTINUED: u32 = 102;
    pub const LINE: u32 = 103;
    pub const NO_LINE: u32 = 104;
    pub const ENTRY_POINT: u32 = 107;
    pub const TYPE_MATRIX: u32 = 108;
}

/// `DebugBaseTypeAttributeEncoding` values.
const ENC_BOOLEAN: u32 = 2;
const ENC_FLOAT: u32 = 3;
const ENC_SIGNED: u32 = 4;
const ENC_UNSIGNED: u32 = 6;
/// `DebugInfoFlags`: public, local.
const FLAG_PUBLIC: u32 = 3;
const FLAG_LOCAL: u32 = 4;
/// `DebugInfoFlags`: definition.
const FLAG_DEFINITION: u32 = 8;
/// `DebugCompositeType`: class, structure.
const TAG_CLASS: u32 = 0;
const TAG_STRUCTURE: u32 = 1;
/// `SourceLanguage` HLSL.
const LANGUAGE_HLSL: u32 = 5;

/// The emitter's debug-information state.
#[derive(Default)]
pub(crate) struct Dbg {
    /// OpenCL.DebugInfo.100 (`-fspv-debug=rich`) rather than NonSemantic.Shader.DebugInfo.100.
    rich: bool,
    /// The `OpExtInstImport` id.
    import: u32,
    /// The `DebugCompilationUnit`.
    unit: u32,
    /// The empty `DebugExpression` (0 until first use).
    expression: u32,
    /// `DebugSource` per file id (0: not written yet).
    sources: Vec<u32>,
    /// `OpString` ids by text (names).
    strings: FxHashMap<String, u32>,
    /// Debug types by IR type.
    types: FxHashMap<InstId, u32>,
    /// `DebugFunction` by IR function.
    funcs: FxHashMap<InstId, u32>,
    /// `DebugFunction` of an inlined function no longer in the module, by name and
    /// declaration.
    gone_funcs: FxHashMap<(String, Option<oneshader_ir::Span>), u32>,
    /// `DebugLexicalBlock` by parent scope and block.
    blocks: FxHashMap<(u32, oneshader_ir::Span), u32>,
    /// `DebugInlinedAt` by (line, scope, inlined-at) of the call.
    inlined: FxHashMap<(u32, u32, Option<u32>), u32>,
    /// The (scope, inlined-at) of each IR debug scope in the function being written.
    scopes: FxHashMap<DebugScope, (u32, Option<u32>)>,
    /// The `DebugScope` in effect in the block being written.
    cur_scope: Option<(u32, Option<u32>)>,
    /// `DebugLocalVariable` by (scope, name, debug type).
    locals: FxHashMap<(u32, String, u32), u32>,
    /// The line in effect: (source, line, end line, column, end column).
    pub cur: Option<[u32; 5]>,
    /// Where the last `DebugLine` of the body starts and ends: a `DebugLine` that would
    /// follow it with nothing in between replaces it.
    pub last_line: Option<(usize, usize)>,
}

impl Emitter<'_> {
    /// True when an extended debug instruction set is being written.
    #[inline]
    pub(crate) fn shader_debug(&self) -> bool {
        self.dbg.is_some()
    }

    /// True when the set is OpenCL.DebugInfo.100.
    #[inline]
    fn rich(&self) -> bool {
        self.dbg.as_ref().is_some_and(|d| d.rich)
    }

    /// An operand the set takes as a number: under NonSemantic.Shader.DebugInfo.100 an
    /// `OpConstant` of 32-bit unsigned int, under OpenCL.DebugInfo.100 the literal itself.
    fn num(&mut self, v: u32) -> u32 {
        if self.rich() { v } else { self.const_u32(v) }
    }

    /// Starts the debug information: the extension, the import, the compilation unit (and the
    /// main file's `DebugSource`).
    pub(crate) fn dbg_begin(&mut self) {
        let Some(info) = &self.opts.line_info else {
            return;
        };
        let Some(set) = info.debug_set else {
            return;
        };
        let rich = set == DebugSet::OpenClDebugInfo;
        let main = info.main;
        let import = self.fresh();
        let name = if rich {
            "OpenCL.DebugInfo.100"
        } else {
            "NonSemantic.Shader.DebugInfo.100"
        };
        inst_str(
            &mut self.s.imports,
            spirv::Op::ExtInstImport,
            &[import],
            name,
            &[],
        );
        if self.minor < 6 && !rich {
            self.caps.ext("SPV_KHR_non_semantic_info");
        }
        self.dbg = Some(Dbg {
            rich,
            import,
            sources: vec![0; info.files.len()],
            ..Dbg::default()
        });
        let source = self.dbg_source(main as usize);
        let (v, dwarf, lang) = (self.num(1), self.num(4), self.num(LANGUAGE_HLSL));
        let unit = self.dbg_global(op::COMPILATION_UNIT, &[v, dwarf, source, lang]);
        if let Some(d) = &mut self.dbg {
            d.unit = unit;
        }
    }

    /// Writes a module-level instruction of the set; returns its id.
    fn dbg_global(&mut self, number: u32, operands: &[u32]) -> u32 {
        let void = self.void_ty();
        let id = self.fresh();
        self.dbg_global_as(void, id, number, operands);
        id
    }

    /// Writes a module-level instruction of the set as `id` (allocated before: a forward
    /// reference), with `void` the `OpTypeVoid`.
    fn dbg_global_as(&mut self, void: u32, id: u32, number: u32, operands: &[u32]) {
        let import = self.dbg.as_ref().map_or(0, |d| d.import);
        let mut w: SmallVec<[u32; 16]> = SmallVec::new();
        w.extend_from_slice(&[void, id, import, number]);
        w.extend_from_slice(operands);
        inst(&mut self.s.debug, spirv::Op::ExtInst, &w);
    }

    /// Writes an instruction of the set into the function body.
    fn dbg_local(&mut self, number: u32, operands: &[u32]) {
        let void = self.void_ty();
        let import = self.dbg.as_ref().map_or(0, |d| d.import);
        let id = self.fresh();
        let mut w: SmallVec<[u32; 8]> = SmallVec::new();
        w.extend_from_slice(&[void, id, import, number]);
        w.extend_from_slice(operands);
        inst(&mut self.f.body, spirv::Op::ExtInst, &w);
    }

    /// The `OpString` of `s` (written once).
    fn dbg_string(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.dbg.as_ref().and_then(|d| d.strings.get(s)) {
            return id;
        }
        let id = self.fresh();
        inst_str(&mut self.s.sources, spirv::Op::String, &[id], s, &[]);
        if let Some(d) = &mut self.dbg {
            d.strings.insert(s.to_string(), id);
        }
        id
    }

    /// The `DebugSource` of file `file` (written on first use, with its text when asked).
    pub(crate) fn dbg_source(&mut self, file: usize) -> u32 {
        let have = self
            .dbg
            .as_ref()
            .and_then(|d| d.sources.get(file).copied())
            .unwrap_or(0);
        if have != 0 {
            return have;
        }
        let opts = self.opts;
        let Some(info) = &opts.line_info else {
            return 0;
        };
        let Some(f) = info.files.get(file) else {
            return 0;
        };
        let name = self.file_string(file);
        let mut pieces: Vec<u32> = Vec::new();
        if info.embed_source && self.rich() {
            // OpenCL.DebugInfo.100 has no `DebugSourceContinued`: one `OpString`, which past
            // an instruction's size is OSB0010 (rather than a text cut short).
            let id = self.fresh();
            inst_str(&mut self.s.sources, spirv::Op::String, &[id], &f.text, &[]);
            pieces.push(id);
        } else if info.embed_source {
            // `OpString`s of at most an instruction's size, cut at character boundaries.
            let limit = (MAX_WORDS - 2) * 4 - 1;
            let mut rest = f.text.as_str();
            loop {
                let mut cut = rest.len().min(limit);
                while !rest.is_char_boundary(cut) {
                    cut -= 1;
                }
                let (piece, tail) = rest.split_at(cut);
                let id = self.fresh();
                inst_str(&mut self.s.sources, spirv::Op::String, &[id], piece, &[]);
                pieces.push(id);
                rest = tail;
                if rest.is_empty() {
                    break;
                }
            }
        }
        let mut operands: SmallVec<[u32; 2]> = SmallVec::new();
        operands.push(name);
        operands.extend(pieces.first().copied());
        let id = self.dbg_global(op::SOURCE, &operands);
        for &p in pieces.iter().skip(1) {
            self.dbg_global(op::SOURCE_CONTINUED, &[p]);
        }
        if let Some(d) = &mut self.dbg
            && let Some(s) = d.sources.get_mut(file)
        {
            *s = id;
        }
        id
    }

    /// The empty `DebugExpression`.
    fn dbg_expression(&mut self) -> u32 {
        let have = self.dbg.as_ref().map_or(0, |d| d.expression);
        if have != 0 {
            return have;
        }
        let id = self.dbg_global(op::EXPRESSION, &[]);
        if let Some(d) = &mut self.dbg {
            d.expression = id;
        }
        id
    }

    /// The debug type of IR type `ty` (written on first use, its parts first). `void` is
    /// `OpTypeVoid` itself, as a function's return type.
    fn dbg_type(&mut self, ty: InstId) -> u32 {
        if let Some(&id) = self.dbg.as_ref().and_then(|d| d.types.get(&ty)) {
            return id;
        }
        let m = self.m;
        let op = m.op(ty);
        let id = match op {
            Op::Void => self.void_ty(),
            Op::Bool => self.dbg_basic("bool", 32, ENC_BOOLEAN),
            Op::I8 | Op::I16 | Op::I32 | Op::I64 | Op::U8 | Op::U16 | Op::U32 | Op::U64 => {
                let bits = m.scalar_bits(ty).unwrap_or(32);
                let signed = op.is_signed_int_type();
                let name = match (signed, bits) {
                    (true, 32) => "int".to_string(),
                    (false, 32) => "uint".to_string(),
                    (true, b) => format!("int{b}_t"),
                    (false, b) => format!("uint{b}_t"),
                };
                let enc = if signed { ENC_SIGNED } else { ENC_UNSIGNED };
                self.dbg_basic(&name, bits, enc)
            }
            Op::F16 | Op::F32 | Op::F64 => {
                let bits = m.scalar_bits(ty).unwrap_or(32);
                let name = match bits {
                    16 => "half",
                    64 => "double",
                    _ => "float",
                };
                self.dbg_basic(name, bits, ENC_FLOAT)
            }
            Op::Vector => match m.vector_len(ty) {
                Some(n @ 2..=4) => {
                    let elem = self.dbg_type(m.operand(ty, 0));
                    let n = self.num(n);
                    self.dbg_global(op::TYPE_VECTOR, &[elem, n])
                }
                _ => self.dbg_opaque(ty),
            },
            Op::Matrix => match m.matrix_dims(ty) {
                // HLSL rows are SPIR-V columns (see `types.rs`): a vector of `cols`
                // components per row, `rows` of them.
                // OpenCL.DebugInfo.100 has no matrix type: a two-dimensional array of the
                // element, rows then columns, as DXC writes it.
                Some((rows, cols))
                    if self.rich() && (2..=4).contains(&cols) && (2..=4).contains(&rows) =>
                {
                    let elem = self.dbg_type(m.operand(ty, 0));
                    let (r, c) = (self.const_u32(rows), self.const_u32(cols));
                    self.dbg_global(op::TYPE_ARRAY, &[elem, r, c])
                }
                Some((rows, cols)) if (2..=4).contains(&cols) && (2..=4).contains(&rows) => {
                    let elem = self.dbg_type(m.operand(ty, 0));
                    let c = self.const_u32(cols);
                    let vector = self.dbg_global(op::TYPE_VECTOR, &[elem, c]);
                    let (r, column_major) = (self.const_u32(rows), self.const_u32(1));
                    self.dbg_global(op::TYPE_MATRIX, &[vector, r, column_major])
                }
                _ => self.dbg_opaque(ty),
            },
            Op::Array | Op::RuntimeArray => {
                let elem = self.dbg_type(m.operand(ty, 0));
                let n = if op == Op::Array {
                    m.array_len(ty).unwrap_or(0)
                } else {
                    0
                };
                // OpenCL.DebugInfo.100 wants a positive count: a run-time array is opaque there.
                if self.is_dbg_void(elem) || (n == 0 && self.rich()) {
                    self.dbg_opaque(ty)
                } else {
                    let n = self.const_u32(n);
                    self.dbg_global(op::TYPE_ARRAY, &[elem, n])
                }
            }
            Op::Struct => self.dbg_struct(ty),
            Op::Ptr => match m.pointee(ty) {
                Some(p) => self.dbg_type(p),
                None => self.dbg_opaque(ty),
            },
            _ => self.dbg_opaque(ty),
        };
        if let Some(d) = &mut self.dbg {
            d.types.insert(ty, id);
        }
        id
    }

    /// True when `id` is `OpTypeVoid` (not a debug type).
    fn is_dbg_void(&mut self, id: u32) -> bool {
        id == self.void_ty()
    }

    fn dbg_basic(&mut self, name: &str, bits: u32, encoding: u32) -> u32 {
        let name = self.dbg_string(name);
        if self.rich() {
            // Encoding a literal, and no flags operand.
            let size = self.const_u32(bits);
            return self.dbg_global(op::TYPE_BASIC, &[name, size, encoding]);
        }
        let (size, enc, flags) = (
            self.const_u32(bits),
            self.const_u32(encoding),
            self.const_u32(0),
        );
        self.dbg_global(op::TYPE_BASIC, &[name, size, enc, flags])
    }

    /// The size of a value of `ty` in bits as the debug types state it (members packed one
    /// after the other; opaque types 0).
    fn dbg_bits(&self, ty: InstId) -> u32 {
        let m = self.m;
        match m.try_op(ty) {
            Some(Op::Bool) => 32,
            Some(op) if op.is_scalar_type() => m.scalar_bits(ty).unwrap_or(32),
            Some(Op::Vector) => m.vector_len(ty).unwrap_or(0) * self.dbg_bits(m.operand(ty, 0)),
            Some(Op::Matrix) => {
                let (r, c) = m.matrix_dims(ty).unwrap_or((0, 0));
                r.saturating_mul(c)
                    .saturating_mul(self.dbg_bits(m.operand(ty, 0)))
            }
            Some(Op::Array) => m
                .array_len(ty)
                .unwrap_or(0)
                .saturating_mul(self.dbg_bits(m.operand(ty, 0))),
            Some(Op::Struct) => m
                .struct_fields(ty)
                .into_iter()
                .filter_map(|f| m.ty(f))
                .map(|t| self.dbg_bits(t))
                .fold(0u32, u32::saturating_add),
            _ => 0,
        }
    }

    /// Line 1, column 1 of the main file: where types without a recorded position are placed.
    fn dbg_nowhere(&mut self) -> (u32, u32, u32) {
        let main = self.opts.line_info.as_ref().map_or(0, |i| i.main) as usize;
        let source = self.dbg_source(main);
        let one = self.num(1);
        (source, one, one)
    }

    fn dbg_unit(&self) -> u32 {
        self.dbg.as_ref().map_or(0, |d| d.unit)
    }

    /// The described fields of struct `ty` (name string, debug type, offset and size constants,
    /// in bits; fields without a debug type left out) and the struct's size in bits: what both
    /// debug sets' `DebugTypeMember`s take.
    fn dbg_fields(&mut self, ty: InstId) -> (Vec<(u32, u32, u32, u32)>, u32) {
        let m = self.m;
        let mut fields = Vec::new();
        let mut offset = 0u32;
        for (k, f) in m.struct_fields(ty).into_iter().enumerate() {
            let Some(ft) = m.ty(f) else { continue };
            let fty = self.dbg_type(ft);
            if self.is_dbg_void(fty) {
                continue;
            }
            let name = m
                .name(f)
                .map_or_else(|| format!("field{k}"), str::to_string);
            let name = self.dbg_string(&name);
            let bits = self.dbg_bits(ft);
            let (off, size) = (self.const_u32(offset), self.const_u32(bits));
            offset = offset.saturating_add(bits);
            fields.push((name, fty, off, size));
        }
        (fields, offset)
    }

    /// A struct: its members, then the `DebugTypeComposite` (under OpenCL.DebugInfo.100 the
    /// composite first, its members naming it as their parent after it).
    fn dbg_struct(&mut self, ty: InstId) -> u32 {
        if self.rich() {
            return self.dbg_struct_rich(ty);
        }
        let m = self.m;
        let (source, line, col) = self.dbg_at(self.declaration(ty));
        let flags = self.const_u32(FLAG_PUBLIC);
        let (fields, offset) = self.dbg_fields(ty);
        let mut members: SmallVec<[u32; 16]> = SmallVec::new();
        for (name, fty, off, size) in fields {
            members.push(self.dbg_global(
                op::TYPE_MEMBER,
                &[name, fty, source, line, col, off, size, flags],
            ));
        }
        let name = m.name(ty).unwrap_or("struct").to_string();
        let name = self.dbg_string(&name);
        let (tag, size, unit) = (
            self.const_u32(TAG_STRUCTURE),
            self.const_u32(offset),
            self.dbg_unit(),
        );
        let mut w: SmallVec<[u32; 24]> = SmallVec::new();
        w.extend_from_slice(&[name, tag, source, line, col, unit, name, size, flags]);
        w.extend_from_slice(&members);
        self.dbg_global(op::TYPE_COMPOSITE, &w)
    }

    /// A struct under OpenCL.DebugInfo.100, whose `DebugTypeMember`s name the composite as
    /// their parent: the member types, the composite (its members forward references, which
    /// the set allows), then the members.
    fn dbg_struct_rich(&mut self, ty: InstId) -> u32 {
        let m = self.m;
        let (source, line, col) = self.dbg_at(self.declaration(ty));
        let (fields, offset) = self.dbg_fields(ty);
        let name = m.name(ty).unwrap_or("struct").to_string();
        let name = self.dbg_string(&name);
        let (size, unit, void) = (self.const_u32(offset), self.dbg_unit(), self.void_ty());
        let id = self.fresh();
        let members: SmallVec<[u32; 16]> = fields.iter().map(|_| self.fresh()).collect();
        let mut w: SmallVec<[u32; 24]> = SmallVec::new();
        w.extend_from_slice(&[
            name,
            TAG_STRUCTURE,
            source,
            line,
            col,
            unit,
            name,
            size,
            FLAG_PUBLIC,
        ]);
        w.extend_from_slice(&members);
        self.dbg_global_as(void, id, op::TYPE_COMPOSITE, &w);
        for (&member, &(n, fty, off, size)) in members.iter().zip(&fields) {
            self.dbg_global_as(
                void,
                member,
                op::TYPE_MEMBER,
                &[n, fty, source, line, col, id, off, size, FLAG_PUBLIC],
            );
        }
        id
    }

    /// A type with no debug counterpart: a member-less class composite named by its IR
    /// spelling.
    fn dbg_opaque(&mut self, ty: InstId) -> u32 {
        let m = self.m;
        let (source, line, col) = self.dbg_nowhere();
        let spelled = m
            .name(ty)
            .map_or_else(|| oneshader_ir::print::print_inst(m, ty), str::to_string);
        let name = self.dbg_string(&spelled);
        let (tag, size, flags, unit) = (
            self.num(TAG_CLASS),
            self.const_u32(0),
            self.num(FLAG_PUBLIC),
            self.dbg_unit(),
        );
        self.dbg_global(
            op::TYPE_COMPOSITE,
            &[name, tag, source, line, col, unit, name, size, flags],
        )
    }

    /// (source, line, column) of `span`'s start, as constants.
    fn dbg_at(&mut self, span: Option<oneshader_ir::Span>) -> (u32, u32, u32) {
        let Some(span) = span else {
            return self.dbg_nowhere();
        };
        let Some((line, col, _, _)) = self.span_lines(span) else {
            return self.dbg_nowhere();
        };
        let source = self.dbg_source(span.file.0 as usize);
        (source, self.num(line), self.num(col))
    }

    /// The earliest position among the instructions of function `f`.
    fn first_position(&self, f: InstId) -> Option<oneshader_ir::Span> {
        let m = self.m;
        let files = self.opts.line_info.as_ref().map_or(0, |i| i.files.len());
        oneshader_ir::Func::dyn_cast(m, f)?
            .blocks(m)
            .into_iter()
            .flat_map(|b| m.children(b.id()).collect::<Vec<_>>())
            .filter_map(|i| m.position(i))
            .filter(|p| (p.file.0 as usize) < files)
            .min_by_key(|p| (p.file.0, p.start))
    }

    /// The declaration position of function, global or struct `item`, when it names a file the line
    /// information holds.
    fn declaration(&self, item: InstId) -> Option<oneshader_ir::Span> {
        let files = self.opts.line_info.as_ref().map_or(0, |i| i.files.len());
        self.m
            .position(item)
            .filter(|p| (p.file.0 as usize) < files)
    }

    /// The `DebugFunction` of function `f` (its `DebugTypeFunction` first), written when the
    /// function is emitted.
    pub(crate) fn dbg_function(&mut self, f: InstId, fty: InstId) -> u32 {
        if let Some(&id) = self.dbg.as_ref().and_then(|d| d.funcs.get(&f)) {
            return id;
        }
        let name = self.m.name(f).unwrap_or("function").to_string();
        // At its declaration (its name, as DXC places it), the scope line too (the IR does
        // not record where the body's `{` is); a function without a declaration position is
        // placed at its first positioned instruction.
        let declared = self.declaration(f).or_else(|| self.first_position(f));
        let id = self.dbg_function_desc(&name, declared, Some(fty), Some(f));
        if let Some(d) = &mut self.dbg {
            d.funcs.insert(f, id);
        }
        id
    }

    /// The `DebugFunction` of an inlined function: the function's own while it is in the
    /// module, else one made from what the inliner kept of it.
    fn dbg_callee(&mut self, c: &Callee) -> u32 {
        let m = self.m;
        if m.try_op(c.func) == Some(Op::Func)
            && let Some(fty) = m.ty(c.func)
        {
            return self.dbg_function(c.func, fty);
        }
        let key = (c.name.clone(), c.declared);
        if let Some(&id) = self.dbg.as_ref().and_then(|d| d.gone_funcs.get(&key)) {
            return id;
        }
        let files = self.opts.line_info.as_ref().map_or(0, |i| i.files.len());
        let declared = c.declared.filter(|p| (p.file.0 as usize) < files);
        let fty = c.ty.filter(|&t| m.try_op(t) == Some(Op::FnType));
        let id = self.dbg_function_desc(&c.name, declared, fty, None);
        if let Some(d) = &mut self.dbg {
            d.gone_funcs.insert(key, id);
        }
        id
    }

    /// A `DebugFunction` named `name` declared at `declared`, of function type `fty` (a
    /// function of no parameters returning void without one), defining `def` when given.
    fn dbg_function_desc(
        &mut self,
        name: &str,
        declared: Option<oneshader_ir::Span>,
        fty: Option<InstId>,
        def: Option<InstId>,
    ) -> u32 {
        let m = self.m;
        let ret = fty.and_then(|t| m.fn_return(t)).map(|r| self.dbg_type(r));
        let mut w: SmallVec<[u32; 8]> = SmallVec::new();
        w.push(self.num(FLAG_PUBLIC));
        let void = self.void_ty();
        w.push(ret.unwrap_or(void));
        if let Some(t) = fty {
            for p in m.fn_params(t) {
                w.push(self.dbg_type(p));
            }
        }
        let ftype = self.dbg_global(op::TYPE_FUNCTION, &w);
        let name = self.dbg_string(name);
        let (source, line, col) = self.dbg_at(declared);
        let (unit, flags) = (self.dbg_unit(), self.num(FLAG_PUBLIC));
        let mut w: SmallVec<[u32; 10]> = SmallVec::new();
        w.extend_from_slice(&[name, ftype, source, line, col, unit, name, flags, line]);
        // OpenCL.DebugInfo.100 names the `OpFunction` here (a forward reference, which the
        // set allows; for a function no longer in the module, `DebugInfoNone`);
        // NonSemantic.Shader.DebugInfo.100 in `DebugFunctionDefinition`.
        if self.rich() {
            let f = match def {
                Some(f) => self.id_of(f),
                // A function optimized out: `DebugInfoNone`, as the set requires.
                None => self.dbg_global(op::INFO_NONE, &[]),
            };
            w.push(f);
        }
        self.dbg_global(op::FUNCTION, &w)
    }

    /// The (`DebugScope` scope, inlined-at) of IR debug scope `s` in the function being
    /// written (its `DebugFunction` `dfn`): the function, a `DebugLexicalBlock`, or an inlined
    /// function's with its `DebugInlinedAt` chain, written on first use.
    fn dbg_scope_of(&mut self, s: DebugScope, dfn: u32) -> (u32, Option<u32>) {
        if s == DebugScope::FUNCTION {
            return (dfn, None);
        }
        if let Some(&p) = self.dbg.as_ref().and_then(|d| d.scopes.get(&s)) {
            return p;
        }
        let m = self.m;
        let pair = match m.debug_scope_data(s).cloned() {
            None => (dfn, None),
            Some(DebugScopeData::Block { parent, span }) => {
                let (p, inlined) = self.dbg_scope_of(parent, dfn);
                (self.dbg_lexical_block(p, span), inlined)
            }
            Some(DebugScopeData::Inlined { callee, call }) => {
                let (cs, cinl) = self.dbg_scope_of(call.scope, dfn);
                let callee = self.dbg_callee(&callee);
                let line = self.span_lines(call.span).map_or(1, |l| l.0);
                let key = (line, cs, cinl);
                let at = match self.dbg.as_ref().and_then(|d| d.inlined.get(&key)) {
                    Some(&id) => id,
                    None => {
                        let mut w: SmallVec<[u32; 3]> = SmallVec::new();
                        w.push(self.num(line));
                        w.push(cs);
                        w.extend(cinl);
                        let id = self.dbg_global(op::INLINED_AT, &w);
                        if let Some(d) = &mut self.dbg {
                            d.inlined.insert(key, id);
                        }
                        id
                    }
                };
                (callee, Some(at))
            }
        };
        if let Some(d) = &mut self.dbg {
            d.scopes.insert(s, pair);
        }
        pair
    }

    /// The `DebugLexicalBlock` of the source block at `span` within debug scope `parent`.
    fn dbg_lexical_block(&mut self, parent: u32, span: oneshader_ir::Span) -> u32 {
        let key = (parent, span);
        if let Some(&id) = self.dbg.as_ref().and_then(|d| d.blocks.get(&key)) {
            return id;
        }
        let files = self.opts.line_info.as_ref().map_or(0, |i| i.files.len());
        let (source, line, col) = self.dbg_at(Some(span).filter(|p| (p.file.0 as usize) < files));
        let id = self.dbg_global(op::LEXICAL_BLOCK, &[source, line, col, parent]);
        if let Some(d) = &mut self.dbg {
            d.blocks.insert(key, id);
        }
        id
    }

    /// Makes the `DebugScope` of IR debug scope `s` the one in effect (writing it when another
    /// is).
    pub(crate) fn dbg_enter_scope(&mut self, s: DebugScope) {
        let Some(dfn) = self
            .cur_func
            .and_then(|f| self.dbg.as_ref().and_then(|d| d.funcs.get(&f).copied()))
        else {
            return;
        };
        let pair = self.dbg_scope_of(s, dfn);
        if self.dbg.as_ref().is_some_and(|d| d.cur_scope == Some(pair)) {
            return;
        }
        let mut w: SmallVec<[u32; 2]> = SmallVec::new();
        w.push(pair.0);
        w.extend(pair.1);
        self.dbg_local(op::SCOPE, &w);
        if let Some(d) = &mut self.dbg {
            d.cur_scope = Some(pair);
            // A line written before the scope stays: it is not replaced across a scope.
            d.last_line = None;
        }
    }

    /// The start of a block's body (after its `OpPhi`s): the function's `DebugScope`, in the
    /// entry block `DebugFunctionDefinition`, and a `DebugValue` per named block parameter.
    pub(crate) fn dbg_block_start(&mut self, b: oneshader_ir::Block, is_entry: bool) {
        if !self.shader_debug() {
            return;
        }
        let Some(f) = self.cur_func else { return };
        let Some(dfn) = self.dbg.as_ref().and_then(|d| d.funcs.get(&f).copied()) else {
            return;
        };
        if let Some(d) = &mut self.dbg {
            d.cur = None;
            d.last_line = None;
            d.cur_scope = Some((dfn, None));
            // IR debug scopes resolve against the function being written.
            if is_entry {
                d.scopes.clear();
            }
        }
        self.dbg_local(op::SCOPE, &[dfn]);
        if is_entry && self.rich() {
            return;
        }
        if is_entry {
            let fid = self.id_of(f);
            self.dbg_local(op::FUNCTION_DEFINITION, &[dfn, fid]);
            return;
        }
        let m = self.m;
        for p in b.params(m) {
            let p = p.id();
            let (Some(name), Some(t)) = (m.name(p), m.ty(p)) else {
                continue;
            };
            if m.op(t) == Op::Ptr {
                continue;
            }
            let Some(var) = self.dbg_variable(f, DebugScope::FUNCTION, name, t, m.position(p))
            else {
                continue;
            };
            let (value, expr) = (self.id_of(p), self.dbg_expression());
            self.dbg_local(op::VALUE, &[var, value, expr]);
        }
        for p in b.params(m) {
            self.dbg_values(p.id());
        }
    }

    /// The `DebugLocalVariable` `name` of type `ty` in debug scope `scope` of function `f`
    /// (one per scope, name and type), placed at `at` or at the function's start; none for a
    /// type that has no debug type.
    fn dbg_variable(
        &mut self,
        f: InstId,
        scope: DebugScope,
        name: &str,
        ty: InstId,
        at: Option<oneshader_ir::Span>,
    ) -> Option<u32> {
        let dty = self.dbg_type(ty);
        if self.is_dbg_void(dty) {
            return None;
        }
        let dfn = self.dbg.as_ref().and_then(|d| d.funcs.get(&f).copied())?;
        let (dfn, _) = self.dbg_scope_of(scope, dfn);
        let key = (dfn, name.to_string(), dty);
        if let Some(&id) = self.dbg.as_ref().and_then(|d| d.locals.get(&key)) {
            return Some(id);
        }
        let at = at.or_else(|| self.first_position(f));
        let (source, line, col) = self.dbg_at(at);
        let (n, flags) = (self.dbg_string(name), self.num(FLAG_LOCAL));
        let id = self.dbg_global(op::LOCAL_VARIABLE, &[n, dty, source, line, col, dfn, flags]);
        if let Some(d) = &mut self.dbg {
            d.locals.insert(key, id);
        }
        Some(id)
    }

    /// After value `v`'s definition: a `DebugValue` per source variable it holds
    /// (`oneshader_ir::debug_values`: the values `mem2reg` stored to a variable).
    pub(crate) fn dbg_values(&mut self, v: InstId) {
        if !self.shader_debug() {
            return;
        }
        let m = self.m;
        let (Some(f), Some(t)) = (self.cur_func, m.ty(v)) else {
            return;
        };
        if m.debug_variables(v).is_empty() || m.op(t) == Op::Ptr {
            return;
        }
        for var in m.debug_variables(v) {
            let Some(local) = self.dbg_variable(f, var.scope, &var.name, t, var.declared) else {
                continue;
            };
            let (value, expr) = (self.id_of(v), self.dbg_expression());
            self.dbg_local(op::VALUE, &[local, value, expr]);
        }
    }

    /// After a function variable's `OpVariable`: its `DebugLocalVariable` and `DebugDeclare`
    /// (named variables only).
    pub(crate) fn dbg_declare(&mut self, var: InstId) {
        if !self.shader_debug() {
            return;
        }
        let m = self.m;
        let (Some(f), Some(name), Some(t)) = (self.cur_func, m.name(var), m.ty(var)) else {
            return;
        };
        let Some(pointee) = m.pointee(t) else { return };
        let scope = m.debug_scope(var);
        let Some(local) = self.dbg_variable(f, scope, name, pointee, m.position(var)) else {
            return;
        };
        // Declared in its own scope (an inlined function's variable, hoisted to the caller's
        // entry block, in the inlined scope).
        self.dbg_enter_scope(scope);
        let (v, expr) = (self.id_of(var), self.dbg_expression());
        self.dbg_local(op::DECLARE, &[local, v, expr]);
    }

    /// Writes the `DebugLine` for `span` (when it differs from the one in effect), or with
    /// `None` a `DebugNoLine` when a line is in effect.
    pub(crate) fn dbg_line(&mut self, span: Option<oneshader_ir::Span>) {
        let Some(span) = span else {
            if let Some(d) = &mut self.dbg
                && d.cur.take().is_some()
            {
                self.dbg_local(op::NO_LINE, &[]);
            }
            return;
        };
        let Some((l0, c0, l1, c1)) = self.span_lines(span) else {
            return;
        };
        let source = self.dbg_source(span.file.0 as usize);
        let at = [source, l0, l1, c0, c1];
        if self.dbg.as_ref().is_some_and(|d| d.cur == Some(at)) {
            return;
        }
        let w = [
            source,
            self.const_u32(l0),
            self.const_u32(l1),
            self.const_u32(c0),
            self.const_u32(c1),
        ];
        // A line no instruction followed (the instruction wrote nothing, or folded into a
        // later one) is replaced rather than kept.
        let end = self.f.body.len();
        if let Some((start, last_end)) = self.dbg.as_ref().and_then(|d| d.last_line)
            && last_end == end
        {
            self.f.body.truncate(start);
        }
        let start = self.f.body.len();
        self.dbg_local(op::LINE, &w);
        let end = self.f.body.len();
        if let Some(d) = &mut self.dbg {
            d.cur = Some(at);
            d.last_line = Some((start, end));
        }
    }

    /// After a named global's `OpVariable` (`id`): its `DebugGlobalVariable` in the
    /// compilation unit, placed at its declaration (line 1 of the main file for a global
    /// without one).
    pub(crate) fn dbg_global_variable(&mut self, g: InstId, id: u32) {
        if !self.shader_debug() {
            return;
        }
        let m = self.m;
        let (Some(name), Some(pointee)) = (m.name(g), m.ty(g).and_then(|t| m.pointee(t))) else {
            return;
        };
        let dty = self.dbg_type(pointee);
        if self.is_dbg_void(dty) {
            return;
        }
        let (source, line, col) = self.dbg_at(self.declaration(g));
        let n = self.dbg_string(name);
        // OpenCL.DebugInfo.100: a definition, as DXC flags it (spirv-opt's dead-code
        // elimination aborts on a global that is not one).
        let flags = if self.rich() {
            FLAG_DEFINITION
        } else {
            self.const_u32(0)
        };
        let unit = self.dbg_unit();
        self.dbg_global(
            op::GLOBAL_VARIABLE,
            &[n, dty, source, line, col, unit, n, id, flags],
        );
    }

    /// After every function: a `DebugEntryPoint` per entry point.
    pub(crate) fn dbg_entry_points(&mut self, entries: &[InstId]) {
        // OpenCL.DebugInfo.100 has no `DebugEntryPoint`.
        if !self.shader_debug() || self.rich() {
            return;
        }
        let command_line = self
            .opts
            .line_info
            .as_ref()
            .map_or(String::new(), |i| i.command_line.clone());
        let signature = self.dbg_string(concat!("OneShader ", env!("CARGO_PKG_VERSION")));
        let args = self.dbg_string(&command_line);
        let unit = self.dbg_unit();
        for &f in entries {
            if let Some(dfn) = self.dbg.as_ref().and_then(|d| d.funcs.get(&f).copied()) {
                self.dbg_global(op::ENTRY_POINT, &[dfn, unit, signature, args]);
            }
        }
    }
}
