//! The module-level part of the MSL output: names, types, literals, struct declarations with
//! explicit padding members (so that MSL's natural C++ layout puts every member at the offset
//! of [`oneshader_ir::layout`]), the entry point's resources with their `[[buffer(n)]]`
//! indices, its stage IO, and the globals every printed function receives.
//!
//! MSL has no mutable program-scope variables: resources are parameters of the entry point,
//! private variables and stage IO are locals of the entry point, and `threadgroup` variables
//! are declared in the kernel's body. The functions the entry reaches (the IR's entry function
//! among them) take every global the entry uses as a reference parameter (the *environment*,
//! [`ModuleCx::env`]), so a function reads and writes the entry's own memory.

use std::fmt::Write as _;

use oneshader_ir::layout::{self, LayoutRule};
use oneshader_ir::{AddressSpace, BuiltIn, InstId, Module, Op, ScalarKind, Stage};
use rustc_hash::{FxHashMap, FxHashSet};

use super::error::{LAYOUT, MALFORMED, MslError, OPERANDS, R, RESOURCE, TYPE, VERSION, malformed};
use super::names::{Namer, namer};
use super::{MslVersion, Options};
use crate::text::atomics::{AtomicLocs, Loc};
use crate::text::column_major_matrix;
use crate::text::names::Prenamed;
use crate::text::usage::Entry;

/// A stage input or output of the entry point.
#[derive(Clone, Debug)]
pub(crate) struct Io {
    /// The local the functions use (passed by reference).
    pub var: String,
    /// The MSL type of the local (the IR's type).
    pub var_type: String,
    /// The member of the IO struct, or the parameter name of a built-in input.
    pub member: String,
    /// Its MSL type there.
    pub io_type: String,
    /// Its attribute (`[[attribute(0)]]`, `[[position]]`, `[[user(locn1)]]`).
    pub attr: String,
    /// True for a built-in input, which is a parameter of its own rather than a member of
    /// the `[[stage_in]]` struct.
    pub param: bool,
    /// Members and copies replacing the single member (clip distances): the member
    /// declarations, and the statements copying between the local and the IO struct (`{io}`
    /// stands for the struct variable).
    pub custom: Option<(Vec<String>, Vec<String>)>,
}

/// A global every printed function receives as a parameter.
#[derive(Clone, Debug)]
pub(crate) struct EnvItem {
    /// The parameter's declaration in a function (`device S& buf`).
    pub param: String,
    /// The name (the argument passed along).
    pub name: String,
}

/// Where a struct member sits, as MSL declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum FieldForm {
    /// The member as its type says.
    Plain,
    /// A packed vector (`packed_float3`): read through a conversion to the plain vector.
    Packed,
    /// A (row-major) matrix whose 2-component rows are 16 bytes apart (DXC's constant
    /// buffers): declared as an array of `float4`, each HLSL row in the leading two
    /// components.
    PaddedMatrix,
    /// An array of such matrices (each element 16 bytes per row apart from the next):
    /// declared as an array of arrays of `float4`.
    PaddedMatrices,
    /// An array of scalars or 2-vectors of `n` components whose layout stride is 16 bytes
    /// (DXC's constant buffers): declared as an array of 4-vectors, each element read from
    /// its first `n` components.
    Padded(u32),
}

/// One struct type's MSL declaration.
#[derive(Clone, Debug, Default)]
struct StructDecl {
    /// Per IR field: its index among the declared members (padding members interleave).
    member_index: Vec<usize>,
    /// Number of declared members.
    members: usize,
    /// The declaration's text.
    text: String,
}

/// The module being printed.
pub(crate) struct ModuleCx<'m> {
    pub m: &'m Module,
    pub opts: &'m Options,
    pub entry: Entry,
    pub names: Namer,
    /// Module-scope names chosen before any body is printed ([`ModuleCx::prename`]).
    pub prenamed: Prenamed,
    /// Names of globals and functions.
    pub item_names: FxHashMap<InstId, String>,
    struct_names: FxHashMap<InstId, String>,
    field_names: FxHashMap<InstId, Vec<String>>,
    /// The layout rule each struct used in host-shared memory is declared under.
    struct_rules: FxHashMap<InstId, LayoutRule>,
    structs: FxHashMap<InstId, StructDecl>,
    struct_order: Vec<InstId>,
    /// How each struct field (struct, index) is declared.
    pub forms: FxHashMap<(InstId, usize), FieldForm>,
    /// Atomic locations and their prefixes.
    pub atomics: AtomicLocs,
    /// Texture globals sampled with a depth comparison: declared `depth2d` etc.
    pub depth_textures: FxHashSet<InstId>,
    /// Globals that are a pointer to a runtime array (`device T* name`).
    pub pointer_globals: FxHashSet<InstId>,
    /// The environment, in the order of the entry's globals.
    pub env: Vec<EnvItem>,
    /// The entry point's resource parameters.
    pub resources: Vec<String>,
    /// Its `threadgroup` and `thread` declarations.
    pub locals: Vec<String>,
    pub inputs: Vec<Io>,
    pub outputs: Vec<Io>,
    /// Member names of the input and output structs.
    pub io_names: (Namer, Namer),
    /// Program-scope declarations of function constants.
    pub const_decls: String,
    /// The locals of the SIMD-group built-ins, by attribute.
    pub simd_vars: FxHashMap<&'static str, String>,
    /// Resource indices given so far, per kind (buffer, texture, sampler).
    next_index: [u32; 3],
    /// The `[[buffer(n)]]` index of each buffer global.
    pub buffer_index: FxHashMap<InstId, u32>,
    /// The name of the buffer-sizes parameter (`constant uint*`, the byte size of each
    /// buffer at that buffer's index) when a runtime array's length is read.
    pub buffer_sizes: Option<String>,
    /// The entry reads the view index (the constant 0 without multiview).
    pub view_index: bool,
    /// The fragment entry reads an input at sample rate (`sample` interpolation, on a varying
    /// or on `SV_Position`): the entry takes `[[sample_id]]` whether or not it reads it,
    /// which makes Metal run it per sample (as spirv-cross declares it).
    pub sample_rate: bool,
    /// Where each resource is bound, in declaration order (for reflection).
    pub indices: Vec<super::ResourceIndex>,
    /// Arrays of buffers (arrays of pointers in MSL): true when the elements are blocks
    /// (dereferenced to name their members), false for runtime arrays.
    pub buffer_arrays: FxHashMap<InstId, bool>,
    /// The source lines marked so far (the options' `line_comments`).
    pub lines: Option<crate::text::lines::LineMarks<'m>>,
}

/// A column-major matrix in a buffer: what `legalize(msl)` (`transpose_storage`) leaves none
/// of; the boundary's OSG0009 refuses a module that skipped it.
fn column_major() -> MslError {
    malformed(
        "a column-major matrix in a buffer (the `transpose_storage` pass stores them row-major)",
    )
}

fn scalar_name(m: &Module, s: InstId) -> R<&'static str> {
    Ok(match m.op(s) {
        Op::Bool => "bool",
        Op::I32 => "int",
        Op::U32 => "uint",
        Op::F32 => "float",
        Op::I64 => "long",
        Op::U64 => "ulong",
        Op::F16 => "half",
        Op::I16 => "short",
        Op::U16 => "ushort",
        op => {
            return Err(MslError::new(
                TYPE,
                format!(
                    "the scalar type `{}` is not supported by the MSL backend (bool, short, \
                     ushort, int, uint, long, ulong, half and float are; double and 8-bit \
                     integers are refused)",
                    op.spelling()
                ),
            ));
        }
    })
}

/// MSL's own alignment and size of a type (Metal Shading Language Specification, section
/// 2.1 "Scalar data types", 2.2 "Vector data types" (3-component vectors are aligned and sized
/// as 4-component ones), 2.2.3 "Packed vector types", 2.3 "Matrix data types" (an array of
/// column vectors)); `form` says how a struct member is declared. A matrix is HLSL's row-major
/// one: MSL's columns are its rows (legalization's `transpose_storage` leaves no column-major
/// matrix in a buffer).
fn msl_align_size(m: &Module, ty: InstId, form: &FieldForm) -> Option<(u32, u32)> {
    let vec = |n: u32| if n == 3 { (16, 16) } else { (4 * n, 4 * n) };
    Some(match m.op(ty) {
        Op::Bool | Op::I32 | Op::U32 | Op::F32 => (4, 4),
        Op::I64 | Op::U64 => (8, 8),
        Op::F16 | Op::I16 | Op::U16 => (2, 2),
        Op::Vector => {
            let n = m.vector_len(ty)?;
            let b = m.scalar_bits(m.operand(ty, 0))? / 8;
            if *form == FieldForm::Packed {
                (b, b * n)
            } else if n == 3 {
                (4 * b, 4 * b)
            } else {
                (b * n, b * n)
            }
        }
        Op::Matrix => {
            // MSL columns: HLSL rows of `cols` components.
            let (rows, cols) = m.matrix_dims(ty)?;
            if *form == FieldForm::PaddedMatrix {
                return Some((16, 16 * rows));
            }
            let (a, s) = vec(cols);
            (a, s * rows)
        }
        Op::Array => {
            if *form == FieldForm::PaddedMatrices {
                let (rows, _) = m.matrix_dims(m.operand(ty, 0))?;
                return Some((16, 16 * rows * m.array_len(ty)?));
            }
            let (a, s) = msl_align_size(m, m.operand(ty, 0), &FieldForm::Plain)?;
            (a, s * m.array_len(ty)?)
        }
        Op::RuntimeArray => {
            let (a, _) = msl_align_size(m, m.operand(ty, 0), &FieldForm::Plain)?;
            (a, 0)
        }
        _ => return None,
    })
}

impl<'m> ModuleCx<'m> {
    /// A context printing `entry` of `m`.
    pub fn new(m: &'m Module, opts: &'m Options, entry: Entry) -> ModuleCx<'m> {
        ModuleCx {
            m,
            opts,
            entry,
            names: namer(),
            prenamed: Prenamed::default(),
            item_names: FxHashMap::default(),
            struct_names: FxHashMap::default(),
            field_names: FxHashMap::default(),
            struct_rules: FxHashMap::default(),
            structs: FxHashMap::default(),
            struct_order: Vec::new(),
            forms: FxHashMap::default(),
            atomics: AtomicLocs::default(),
            pointer_globals: FxHashSet::default(),
            depth_textures: FxHashSet::default(),
            env: Vec::new(),
            resources: Vec::new(),
            locals: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            io_names: (namer(), namer()),
            next_index: [0; 3],
            buffer_index: FxHashMap::default(),
            buffer_sizes: None,
            view_index: false,
            sample_rate: false,
            indices: Vec::new(),
            buffer_arrays: FxHashMap::default(),
            simd_vars: FxHashMap::default(),
            const_decls: String::new(),
            lines: opts
                .line_comments
                .as_ref()
                .map(crate::text::lines::LineMarks::new),
        }
    }

    /// Refuses `what` unless the chosen MSL version has it (`since`).
    pub fn require(&self, since: MslVersion, what: &str) -> R<()> {
        if self.opts.version < since {
            return Err(MslError::new(
                VERSION,
                format!(
                    "{what} needs MSL {since}; the output is MSL {} (`--msl-version`)",
                    self.opts.version
                ),
            ));
        }
        Ok(())
    }

    /// The SIMD-group built-in `key` (`thread_index_in_simdgroup`, `threads_per_simdgroup`),
    /// spelled `attr` in the entry's stage: an entry parameter copied into a local every
    /// function receives.
    pub fn simd_builtin(&mut self, key: &'static str, attr: &'static str) {
        let var = self.names.fresh(Some(key), "simd", None);
        let member = self
            .names
            .fresh(Some(&format!("{key}_param")), "simd", None);
        self.simd_vars.insert(key, var.clone());
        self.env.push(EnvItem {
            param: format!("thread uint& {var}"),
            name: var.clone(),
        });
        self.inputs.push(Io {
            var,
            var_type: "uint".into(),
            member,
            io_type: "uint".into(),
            attr: format!("[[{attr}]]"),
            param: true,
            custom: None,
        });
    }

    /// The location pointer `p` designates, when it has one.
    pub fn loc_of(&self, p: InstId) -> Option<Loc> {
        crate::text::atomics::loc_of(self.m, p)
    }

    /// Chooses the names of the struct types and spec constants that the bodies of `funcs`
    /// may name at module scope, before any body is printed, so a local name (chosen against
    /// the module scope) never equals one of them.
    pub fn prename(&mut self, funcs: &[oneshader_ir::Func]) {
        let m = self.m;
        let refs = crate::text::names::module_refs(m, funcs, &[]);
        for t in refs.structs {
            if !self.struct_names.contains_key(&t) {
                self.prenamed.choose(&mut self.names, t, 0, m.name(t), "S");
            }
        }
        for c in refs.consts {
            if m.op(c) == Op::SpecConst && !self.item_names.contains_key(&c) {
                self.prenamed
                    .choose(&mut self.names, c, 0, m.name(c), "spec");
                let n = self.prenamed.get(c, 0).unwrap_or("spec").to_string();
                self.prenamed
                    .choose(&mut self.names, c, 1, Some(&format!("{n}_fc")), "spec");
            }
        }
    }

    /// The name of struct type `ty`.
    pub fn struct_name(&mut self, ty: InstId) -> String {
        if let Some(n) = self.struct_names.get(&ty) {
            return n.clone();
        }
        let n = self
            .prenamed
            .take(&mut self.names, ty, 0, self.m.name(ty), "S");
        self.struct_names.insert(ty, n.clone());
        n
    }

    /// The name of field `i` of struct `ty`.
    pub fn field_name(&mut self, ty: InstId, i: usize) -> String {
        if !self.field_names.contains_key(&ty) {
            let m = self.m;
            let mut scope = namer();
            let names = m
                .struct_fields(ty)
                .iter()
                .map(|&f| scope.fresh(m.name(f), "field", None))
                .collect();
            self.field_names.insert(ty, names);
        }
        self.field_names[&ty]
            .get(i)
            .cloned()
            .unwrap_or_else(|| format!("field_{i}"))
    }

    /// How field `i` of `st` is declared.
    pub fn form(&self, st: InstId, i: usize) -> FieldForm {
        self.forms
            .get(&(st, i))
            .cloned()
            .unwrap_or(FieldForm::Plain)
    }

    /// The MSL type of `ty`.
    pub fn type_name(&mut self, ty: InstId) -> R<String> {
        self.type_at(ty, None)
    }

    /// The MSL type of `ty` stored at `loc` (atomic there when an atomic touches it).
    pub fn type_at(&mut self, ty: InstId, loc: Option<&Loc>) -> R<String> {
        let m = self.m;
        let op = m
            .try_op(ty)
            .ok_or_else(|| malformed("a type refers to a removed instruction"))?;
        if let Some(l) = loc
            && self.atomics.atomics.contains(l)
        {
            return match op {
                Op::I32 => Ok("atomic_int".into()),
                Op::U32 => Ok("atomic_uint".into()),
                _ => Err(MslError::new(
                    OPERANDS,
                    format!(
                        "an atomic on `{}`; MSL atomics are on 32-bit integers only (64-bit \
                         atomics are refused)",
                        oneshader_ir::print::print_inst(m, ty)
                    ),
                )),
            };
        }
        if matches!(m.op(m.scalar_of(ty).unwrap_or(ty)), Op::I64 | Op::U64) {
            self.require(MslVersion::V2_2, "64-bit integers (`long`, `ulong`)")?;
        }
        Ok(match op {
            _ if op.is_scalar_type() => scalar_name(m, ty)?.to_string(),
            Op::Vector => {
                let e = m.operand(ty, 0);
                format!("{}{}", scalar_name(m, e)?, m.vector_len(ty).unwrap_or(4))
            }
            Op::Matrix => {
                let e = m.operand(ty, 0);
                if m.op(e) != Op::F32 {
                    return Err(MslError::new(
                        TYPE,
                        format!(
                            "the matrix type `{}`; MSL matrices hold float or half, and the \
                             MSL backend declares float ones only",
                            oneshader_ir::print::print_inst(m, ty)
                        ),
                    ));
                }
                let (r, c) = m.matrix_dims(ty).ok_or_else(|| malformed("a bad matrix"))?;
                format!("float{r}x{c}")
            }
            Op::Array => {
                let inner = loc.map(|l| Loc::Elem(Box::new(l.clone())));
                let e = self.type_at(m.operand(ty, 0), inner.as_ref())?;
                format!("array<{e}, {}>", m.array_len(ty).unwrap_or(0))
            }
            Op::RuntimeArray => {
                return Err(MslError::new(
                    TYPE,
                    "a runtime array other than a buffer's last member",
                ));
            }
            Op::Struct => {
                self.declare_struct(ty, None)?;
                self.struct_name(ty)
            }
            Op::Sampler | Op::SamplerCmp => "sampler".into(),
            Op::Texture => {
                let d = m
                    .texture_desc(ty)
                    .ok_or_else(|| malformed("a bad texture"))?;
                self.texture_type(ty, &d, false, "read")?
            }
            Op::Ptr => {
                let space = m.address_space(ty);
                let pointee = m.pointee(ty).ok_or_else(|| malformed("a bad pointer"))?;
                let s = match space {
                    Some(AddressSpace::Function | AddressSpace::Private) => "thread",
                    Some(AddressSpace::Workgroup) => "threadgroup",
                    _ => {
                        return Err(MslError::new(
                            OPERANDS,
                            "a pointer parameter into memory other than function, private or \
                             workgroup memory",
                        ));
                    }
                };
                format!("{s} {}&", self.type_name(pointee)?)
            }
            _ => {
                return Err(MslError::new(
                    TYPE,
                    format!(
                        "the type `{}` has no MSL form in this backend",
                        oneshader_ir::print::print_inst(m, ty)
                    ),
                ));
            }
        })
    }

    /// A scalar literal of scalar type `ty` with the IR bits `bits`.
    pub fn scalar_literal(&mut self, ty: InstId, bits: u64) -> R<String> {
        let m = self.m;
        Ok(match m.op(ty) {
            Op::Bool => if bits != 0 { "true" } else { "false" }.into(),
            Op::I32 => {
                let v = bits as u32 as i32;
                if v == i32::MIN {
                    "(-2147483647 - 1)".into()
                } else {
                    format!("{v}")
                }
            }
            Op::U32 => format!("{}u", bits as u32),
            Op::F32 => f32_literal(bits as u32),
            Op::I64 => {
                let v = bits as i64;
                if v == i64::MIN {
                    "(-9223372036854775807l - 1l)".into()
                } else {
                    format!("{v}l")
                }
            }
            Op::U64 => format!("{bits}ul"),
            Op::I16 => format!("short({})", bits as u16 as i16),
            Op::U16 => format!("ushort({}u)", bits as u16),
            Op::F16 => format!("half({})", f32_literal(f16_to_f32_bits(bits as u16))),
            _ => {
                scalar_name(m, ty)?;
                return Err(malformed("a scalar literal of a non-scalar type"));
            }
        })
    }

    /// The MSL text of constant `c`: literals, `T(...)` for vectors and matrices, `T{...}`
    /// for arrays and structs (padding members get `{}`), `T{}` for zero and undefined.
    pub fn constant(&mut self, c: InstId) -> R<String> {
        let m = self.m;
        let ty = m.ty(c).ok_or_else(|| malformed("an untyped constant"))?;
        match m.op(c) {
            Op::ConstBool | Op::ConstInt | Op::ConstFloat => {
                let bits = m.literal_bits(c).unwrap_or(0);
                self.scalar_literal(ty, bits)
            }
            Op::Zero | Op::Undef => {
                let tn = self.type_name(ty)?;
                Ok(format!("{tn}{{}}"))
            }
            Op::Composite => {
                let mut parts = Vec::new();
                for k in 0..m.num_operands(c) {
                    let v = m.operand(c, k);
                    parts.push(self.constant(v)?);
                }
                self.composite(ty, parts)
            }
            Op::SpecConst => {
                // A function constant the pipeline may set, and its default when it does not
                // (as spirv-cross declares them).
                if let Some(n) = self.item_names.get(&c) {
                    return Ok(n.clone());
                }
                let id = m.imm_operand(c, 0).unwrap_or(0);
                let def = self.constant(m.operand(c, 1))?;
                let tn = self.type_name(ty)?;
                if !(m.op(ty).is_scalar_type() || m.op(ty) == Op::Vector) {
                    return Err(MslError::new(
                        TYPE,
                        format!(
                            "a specialization constant of type `{tn}`; MSL function constants \
                             are scalars and vectors"
                        ),
                    ));
                }
                let n = self.prenamed.take(&mut self.names, c, 0, m.name(c), "spec");
                let fc =
                    self.prenamed
                        .take(&mut self.names, c, 1, Some(&format!("{n}_fc")), "spec");
                writeln!(
                    self.const_decls,
                    "constant {tn} {fc} [[function_constant({id})]];\nconstant {tn} {n} = \
                     is_function_constant_defined({fc}) ? {fc} : {def};"
                )
                .ok();
                self.item_names.insert(c, n.clone());
                Ok(n)
            }
            _ => Err(malformed("a constant of an unknown kind")),
        }
    }

    /// A composite of type `ty` from its parts' text.
    pub fn composite(&mut self, ty: InstId, parts: Vec<String>) -> R<String> {
        let m = self.m;
        let tn = self.type_name(ty)?;
        match m.op(ty) {
            Op::Struct => {
                if (0..parts.len()).any(|k| {
                    matches!(
                        self.form(ty, k),
                        FieldForm::Padded(_) | FieldForm::PaddedMatrix | FieldForm::PaddedMatrices
                    )
                }) {
                    return Err(MslError::new(
                        OPERANDS,
                        "a value of a struct holding a constant-buffer array of scalars or \
                         2-vectors (declared with 16-byte elements); not supported by the MSL \
                         backend",
                    ));
                }
                let decl = self
                    .structs
                    .get(&ty)
                    .cloned()
                    .ok_or_else(|| malformed("a struct that was not declared"))?;
                let mut members = vec!["{}".to_string(); decl.members];
                for (k, v) in parts.into_iter().enumerate() {
                    let at = decl
                        .member_index
                        .get(k)
                        .copied()
                        .ok_or_else(|| malformed("a struct value with too many parts"))?;
                    members[at] = v;
                }
                Ok(format!("{tn}{{{}}}", members.join(", ")))
            }
            Op::Array => Ok(format!("{tn}{{{}}}", parts.join(", "))),
            _ => Ok(format!("{tn}({})", parts.join(", "))),
        }
    }

    /// The rule a buffer global of `space` is laid out under.
    fn rule_of(&self, g: InstId, space: AddressSpace) -> LayoutRule {
        match space {
            AddressSpace::Uniform => self.opts.cbuffer_rule,
            AddressSpace::PushConstant => self.opts.push_constant_rule,
            _ if self.m.has_decoration(g, Op::TextureBuffer) => self.opts.tbuffer_rule,
            _ => self.opts.storage_rule,
        }
    }

    /// Declares struct `st` (and the structs it holds), laid out under `rule` when it is in
    /// host-shared memory: members at exactly the layout's offsets, with padding members and
    /// packed vectors where MSL's natural placement differs. A struct declared under one
    /// rule and needed under another (or without one) is refused.
    fn declare_struct(&mut self, st: InstId, rule: Option<LayoutRule>) -> R<()> {
        let m = self.m;
        let name = self.struct_name(st);
        if self.structs.contains_key(&st) {
            let had = self.struct_rules.get(&st).copied();
            if let (Some(a), Some(b)) = (had, rule)
                && a != b
                && !same_msl_layout(m, st, a, b)
            {
                return Err(MslError::new(
                    LAYOUT,
                    format!(
                        "struct `{name}` is used in buffers under two layouts; MSL declares a \
                         struct once"
                    ),
                ));
            }
            if rule.is_some() && had.is_none() {
                return Err(MslError::new(
                    LAYOUT,
                    format!(
                        "struct `{name}` is used both in a buffer and as a local value before \
                         its buffer use; not supported by the MSL backend"
                    ),
                ));
            }
            return Ok(());
        }
        // Reserve the entry first (recursion through nested structs ends here).
        self.structs.insert(st, StructDecl::default());
        let fields = m.struct_fields(st);
        let mut decl = StructDecl::default();
        let mut text = format!("struct {name}\n{{\n");
        let mut pads = 0;
        match rule {
            None => {
                for (k, &f) in fields.iter().enumerate() {
                    let ft = m.ty(f).ok_or_else(|| malformed("an untyped field"))?;
                    let tn = self.type_name(ft)?;
                    let fname = self.field_name(st, k);
                    writeln!(text, "    {tn} {fname};").ok();
                    decl.member_index.push(k);
                }
                decl.members = fields.len();
            }
            Some(rule) => {
                self.struct_rules.insert(st, rule);
                let sl = layout::struct_layout(m, st, rule).map_err(|e| {
                    MslError::new(LAYOUT, format!("struct `{name}` has no buffer layout: {e}"))
                })?;
                let mut cur = 0u32;
                let mut max_align = 1u32;
                for (k, fl) in sl.fields.iter().enumerate() {
                    let ft = m
                        .ty(fl.field)
                        .ok_or_else(|| malformed("an untyped field"))?;
                    let fname = self.field_name(st, k);
                    let loc = Loc::Field(st, k);
                    // Nested structs and arrays of them are laid out under the same rule.
                    let mut inner = ft;
                    while matches!(m.op(inner), Op::Array | Op::RuntimeArray) {
                        inner = m.operand(inner, 0);
                    }
                    if m.op(inner) == Op::Struct {
                        self.declare_struct(inner, Some(rule))?;
                    }
                    if column_major_matrix(m, ft, fl.row_major) {
                        return Err(column_major());
                    }
                    let mut form = FieldForm::Plain;
                    // 2-component rows 16 bytes apart: an array of `float4` (per element of an
                    // array of such matrices, their rows back to back).
                    if let Some((_, 2)) = m.matrix_dims(ft)
                        && fl.layout.matrix_stride == Some(16)
                    {
                        form = FieldForm::PaddedMatrix;
                    }
                    if m.op(ft) == Op::Array
                        && let Some((rows, 2)) = m.matrix_dims(m.operand(ft, 0))
                        && fl.layout.matrix_stride == Some(16)
                        && fl.layout.array_stride == Some(16 * rows)
                    {
                        form = FieldForm::PaddedMatrices;
                    }
                    let (mut align, mut size) = self.member_align_size(ft, &form, &fname)?;
                    if m.op(ft) == Op::Vector && fl.offset % align != 0 {
                        form = FieldForm::Packed;
                        (align, size) = self.member_align_size(ft, &form, &fname)?;
                    }
                    // A 3-vector whose 16 bytes would overlap the next member is packed.
                    if m.op(ft) == Op::Vector && form == FieldForm::Plain {
                        let next = sl.fields.get(k + 1).map(|n| n.offset);
                        if next.is_some_and(|n| n < fl.offset + size)
                            || (next.is_none() && fl.offset + size > sl.layout.size)
                        {
                            form = FieldForm::Packed;
                            (align, size) = self.member_align_size(ft, &form, &fname)?;
                        }
                    }
                    // DXC's 16-byte stride for arrays of scalars and 2-vectors: arrays of
                    // 4-vectors, read through their leading components.
                    if m.op(ft) == Op::Array
                        && fl.layout.array_stride == Some(16)
                        && let e = m.operand(ft, 0)
                        && m.scalar_of(e).and_then(|t| m.scalar_bits(t)) == Some(32)
                        && (m.op(e).is_scalar_type()
                            || (m.op(e) == Op::Vector && m.vector_len(e) == Some(2)))
                    {
                        let n = if m.op(e) == Op::Vector { 2 } else { 1 };
                        form = FieldForm::Padded(n);
                        align = 16;
                        size = 16 * m.array_len(ft).unwrap_or(0);
                    }
                    if fl.offset < cur || fl.offset % align != 0 {
                        return Err(MslError::new(
                            LAYOUT,
                            format!(
                                "member `{fname}` of struct `{name}` is at offset {} under \
                                 {}, where MSL cannot place a `{}` (alignment {align}, next \
                                 free byte {cur})",
                                fl.offset,
                                rule.name(),
                                oneshader_ir::print::print_inst(m, ft)
                            ),
                        ));
                    }
                    if fl.offset > cur {
                        writeln!(text, "    char _pad{pads}[{}];", fl.offset - cur).ok();
                        pads += 1;
                        decl.members += 1;
                    }
                    if form == FieldForm::Packed && m.scalar_bits(m.operand(ft, 0)) == Some(64) {
                        return Err(MslError::new(
                            LAYOUT,
                            format!(
                                "member `{fname}` of struct `{name}` is a vector of 64-bit \
                                 integers at offset {} under {}, which needs a packed vector; \
                                 MSL has packed vectors of 16- and 32-bit elements only",
                                fl.offset,
                                rule.name()
                            ),
                        ));
                    }
                    let tn = match (&form, m.op(ft)) {
                        (FieldForm::Packed, _) => format!("packed_{}", self.type_name(ft)?),
                        (FieldForm::Padded(_), _) => {
                            let e = m.operand(ft, 0);
                            let sn = scalar_name(m, m.scalar_of(e).unwrap_or(e))?;
                            format!("array<{sn}4, {}>", m.array_len(ft).unwrap_or(0))
                        }
                        (FieldForm::PaddedMatrix, _) => {
                            let (r, _) = m.matrix_dims(ft).unwrap_or((4, 4));
                            format!("array<float4, {r}>")
                        }
                        (FieldForm::PaddedMatrices, _) => {
                            let (r, _) = m.matrix_dims(m.operand(ft, 0)).unwrap_or((4, 4));
                            let n = m.array_len(ft).unwrap_or(0);
                            format!("array<array<float4, {r}>, {n}>")
                        }
                        (_, Op::RuntimeArray) => {
                            let inner = Loc::Elem(Box::new(loc.clone()));
                            self.type_at(m.operand(ft, 0), Some(&inner))?
                        }
                        _ => self.type_at(ft, Some(&loc))?,
                    };
                    if !matches!(
                        form,
                        FieldForm::Padded(_) | FieldForm::PaddedMatrix | FieldForm::PaddedMatrices
                    ) {
                        self.check_strides(ft, &fl.layout, &fname, &name)?;
                    }
                    if form != FieldForm::Plain {
                        self.forms.insert((st, k), form);
                    }
                    decl.member_index.push(decl.members);
                    decl.members += 1;
                    if m.op(ft) == Op::RuntimeArray {
                        writeln!(text, "    {tn} {fname}[1];").ok();
                    } else {
                        writeln!(text, "    {tn} {fname};").ok();
                    }
                    cur = fl.offset + size;
                    max_align = max_align.max(align);
                }
                let ends_in_rt = fields
                    .last()
                    .and_then(|&f| m.ty(f))
                    .is_some_and(|t| m.op(t) == Op::RuntimeArray);
                if !ends_in_rt {
                    let size = sl.layout.size;
                    if size > cur {
                        let natural = cur.div_ceil(max_align) * max_align;
                        if natural != size {
                            writeln!(text, "    char _pad{pads}[{}];", size - cur).ok();
                            decl.members += 1;
                        }
                    }
                    let total = size.max(cur).div_ceil(max_align) * max_align;
                    if total != size.max(cur) || size < cur {
                        return Err(MslError::new(
                            LAYOUT,
                            format!(
                                "struct `{name}` is {size} bytes under {}, which MSL cannot \
                                 state (its alignment is {max_align})",
                                rule.name()
                            ),
                        ));
                    }
                }
            }
        }
        text.push_str("};\n\n");
        decl.text = text;
        self.structs.insert(st, decl);
        self.struct_order.push(st);
        Ok(())
    }

    /// MSL's alignment and size of member type `ft` declared as `form` (structs, and arrays
    /// of them, by their declared layout).
    fn member_align_size(&self, ft: InstId, form: &FieldForm, fname: &str) -> R<(u32, u32)> {
        let m = self.m;
        if let Some(r) = msl_align_size(m, ft, form) {
            return Ok(r);
        }
        let mut inner = ft;
        let mut count = 1u32;
        loop {
            match m.op(inner) {
                Op::Array => count *= m.array_len(inner).unwrap_or(0),
                Op::RuntimeArray => count = 0,
                _ => break,
            }
            inner = m.operand(inner, 0);
        }
        if m.op(inner) == Op::Struct
            && let Some(rule) = self.struct_rules.get(&inner)
            && let Ok(sl) = layout::struct_layout(m, inner, *rule)
        {
            return Ok((self.struct_align(inner), sl.layout.size * count));
        }
        Err(MslError::new(
            LAYOUT,
            format!(
                "member `{fname}` of type `{}` has no MSL buffer layout",
                oneshader_ir::print::print_inst(m, ft)
            ),
        ))
    }

    /// The MSL alignment of a struct declared for a buffer: its largest member alignment.
    fn struct_align(&self, st: InstId) -> u32 {
        let m = self.m;
        let mut a = 1;
        for (k, &f) in m.struct_fields(st).iter().enumerate() {
            let Some(ft) = m.ty(f) else { continue };
            let form = self.form(st, k);
            let fa = match msl_align_size(m, ft, &form) {
                Some((fa, _)) => fa,
                None => {
                    let mut inner = ft;
                    while matches!(m.op(inner), Op::Array | Op::RuntimeArray) {
                        inner = m.operand(inner, 0);
                    }
                    if m.op(inner) == Op::Struct {
                        self.struct_align(inner)
                    } else {
                        4
                    }
                }
            };
            a = a.max(fa);
        }
        a
    }

    /// Checks that the layout's array and matrix strides of a member (its matrices row-major)
    /// are MSL's.
    fn check_strides(
        &self,
        ft: InstId,
        tl: &layout::TypeLayout,
        fname: &str,
        sname: &str,
    ) -> R<()> {
        let m = self.m;
        if let Some(ms) = tl.matrix_stride {
            let mut mt = ft;
            while matches!(m.op(mt), Op::Array | Op::RuntimeArray) {
                mt = m.operand(mt, 0);
            }
            if let Some((_, cols)) = m.matrix_dims(mt) {
                // A matrix, or one array (sized or not) of them.
                if m.op(ft) != Op::Matrix
                    && !(matches!(m.op(ft), Op::Array | Op::RuntimeArray)
                        && m.op(m.operand(ft, 0)) == Op::Matrix)
                {
                    return Err(MslError::new(
                        LAYOUT,
                        format!(
                            "member `{fname}` of struct `{sname}` is an array of arrays of \
                             matrices; not supported by the MSL backend"
                        ),
                    ));
                }
                // MSL's columns: HLSL rows of `cols` components.
                let col = if cols == 3 { 16 } else { 4 * cols };
                if ms != col {
                    return Err(MslError::new(
                        LAYOUT,
                        format!(
                            "member `{fname}` of struct `{sname}` is a matrix whose vectors are \
                             {ms} bytes apart; MSL's are {col}"
                        ),
                    ));
                }
            }
        }
        if let Some(stride) = tl.array_stride {
            let e = m.operand(ft, 0);
            let es = match msl_align_size(m, e, &FieldForm::Plain) {
                Some((a, s)) => s.div_ceil(a) * a,
                None => {
                    let mut inner = e;
                    while m.op(inner) == Op::Array {
                        inner = m.operand(inner, 0);
                    }
                    match self.struct_rules.get(&inner) {
                        Some(rule) => {
                            let sl = layout::struct_layout(m, inner, *rule)
                                .map_err(|err| MslError::new(LAYOUT, err.to_string()))?;
                            let mut n = 1;
                            let mut t = e;
                            while m.op(t) == Op::Array {
                                n *= m.array_len(t).unwrap_or(0);
                                t = m.operand(t, 0);
                            }
                            sl.layout.size * n
                        }
                        None => 0,
                    }
                }
            };
            if stride != es {
                return Err(MslError::new(
                    LAYOUT,
                    format!(
                        "member `{fname}` of struct `{sname}` is an array with a {stride}-byte \
                         stride; MSL's elements of `{}` are {es} bytes apart",
                        oneshader_ir::print::print_inst(m, e)
                    ),
                ));
            }
            if matches!(m.op(e), Op::Array | Op::RuntimeArray) {
                let el = layout::type_layout(m, e, LayoutRule::Std430, false)
                    .map_err(|err| MslError::new(LAYOUT, err.to_string()))?;
                let _ = el;
            }
        }
        Ok(())
    }

    /// The MSL type of a texture (`depth`: sampled with comparisons; `acc`: the access of a
    /// storage texture, `read`, `write` or `read_write`).
    pub fn texture_type(
        &mut self,
        ty: InstId,
        d: &oneshader_ir::types::TextureDesc,
        depth: bool,
        acc: &str,
    ) -> R<String> {
        use oneshader_ir::{Dim, TextureAccess};
        let m = self.m;
        let what = || oneshader_ir::print::print_inst(m, ty);
        let elem = m.scalar_of(d.sampled_type).unwrap_or(d.sampled_type);
        let sname = scalar_name(m, elem)?;
        if m.scalar_bits(elem) != Some(32) {
            return Err(MslError::new(
                TYPE,
                format!("`{}`: MSL textures hold 32-bit texels here", what()),
            ));
        }
        let base = match (d.dim, d.arrayed, d.multisampled) {
            (Dim::D1, false, false) => "texture1d",
            (Dim::D1, true, false) => "texture1d_array",
            (Dim::D2, false, false) => "texture2d",
            (Dim::D2, true, false) => "texture2d_array",
            (Dim::D2, false, true) => "texture2d_ms",
            (Dim::D3, false, false) => "texture3d",
            (Dim::Cube, false, false) => "texturecube",
            (Dim::Cube, true, false) => "texturecube_array",
            (Dim::Buffer, false, false) => "texture_buffer",
            _ => {
                return Err(MslError::new(
                    TYPE,
                    format!(
                        "`{}` (subpass inputs, multisampled arrays) is not supported by the \
                         MSL backend",
                        what()
                    ),
                ));
            }
        };
        if depth {
            if sname != "float" || d.access == TextureAccess::Storage {
                return Err(MslError::new(
                    TYPE,
                    "a depth comparison on a texture whose texel is not a float",
                ));
            }
            let b = base.replacen("texture", "depth", 1);
            if b == "depth1d" || b == "depth3d" {
                return Err(MslError::new(
                    TYPE,
                    format!(
                        "a depth comparison on `{}`; MSL has no such depth texture",
                        what()
                    ),
                ));
            }
            return Ok(format!("{b}<float>"));
        }
        if d.dim == Dim::Buffer {
            // `Buffer<T>` is read only; `RWBuffer<T>` by the entry point's use.
            let acc = if d.access == TextureAccess::Storage {
                acc
            } else {
                "read"
            };
            return Ok(format!("{base}<{sname}, access::{acc}>"));
        }
        if d.access == TextureAccess::Storage {
            if d.multisampled {
                return Err(MslError::new(
                    TYPE,
                    format!("`{}`: MSL has no multisampled storage textures", what()),
                ));
            }
            return Ok(format!("{base}<{sname}, access::{acc}>"));
        }
        Ok(format!("{base}<{sname}>"))
    }

    /// The first resource index of `kind` (0 buffer, 1 texture, 2 sampler) for global `g`,
    /// which takes `count` consecutive indices (an array of textures): the binding map's, or
    /// the default rule's (see the module documentation of `msl`).
    fn resource_index(&mut self, g: InstId, kind: usize, count: u32) -> R<u32> {
        let i = self.resource_index_of(g, kind, count)?;
        let m = self.m;
        let set_binding = m.find_decoration(g, Op::Binding).map(|d| {
            (
                m.imm_operand(d, 0).unwrap_or(0),
                m.imm_operand(d, 1).unwrap_or(0),
            )
        });
        // Two buffers at one (set, binding) are one descriptor in Vulkan (aliased memory,
        // which spirv-cross merges into one `void*` buffer): not stated here.
        if kind == 0
            && let Some(sb) = set_binding
            && let Some(other) = self
                .indices
                .iter()
                .find(|x| x.kind == super::IndexKind::Buffer && x.set_binding == Some(sb))
        {
            return Err(MslError::new(
                RESOURCE,
                format!(
                    "buffers `{}` and `{}` share set {}, binding {} (aliased descriptors); not \
                     supported by the MSL backend",
                    other.name,
                    m.name(g).unwrap_or("?"),
                    sb.0,
                    sb.1
                ),
            ));
        }
        self.indices.push(super::ResourceIndex {
            name: m.name(g).unwrap_or_default().to_string(),
            set_binding,
            kind: [
                super::IndexKind::Buffer,
                super::IndexKind::Texture,
                super::IndexKind::Sampler,
            ][kind.min(2)],
            index: i,
            count: count.max(1),
        });
        Ok(i)
    }

    fn resource_index_of(&mut self, g: InstId, kind: usize, count: u32) -> R<u32> {
        let m = self.m;
        let (set, binding) = match m.find_decoration(g, Op::Binding) {
            Some(d) => (
                m.imm_operand(d, 0).unwrap_or(0),
                m.imm_operand(d, 1).unwrap_or(0),
            ),
            None => {
                return Err(MslError::new(
                    RESOURCE,
                    "a resource without a binding decoration",
                ));
            }
        };
        if let Some(map) = &self.opts.binding_map {
            return map.get(self.entry.stage, set, binding).ok_or_else(|| {
                MslError::new(
                    RESOURCE,
                    format!(
                        "the binding map has no entry for stage {}, set {set}, binding \
                             {binding}",
                        self.entry.stage.spelling()
                    ),
                )
            });
        }
        let i = self.next_index[kind];
        self.next_index[kind] += count.max(1);
        Ok(i)
    }

    /// Declares the buffer-sizes parameter (spirv-cross's `spvBufferSizeConstants`) at
    /// `Options::buffer_sizes_index`: element `n` is the byte size of the buffer bound at
    /// `[[buffer(n)]]`, so a runtime array's length is `(size - offset) / stride`.
    pub fn declare_buffer_sizes(&mut self) {
        let name = self.names.fresh(Some("buffer_sizes"), "buffer_sizes", None);
        let decl = format!("constant uint* {name}");
        self.resources.push(format!(
            "{decl} [[buffer({})]]",
            self.opts.buffer_sizes_index
        ));
        self.env.push(EnvItem {
            param: decl,
            name: name.clone(),
        });
        self.buffer_sizes = Some(name);
    }

    /// Refuses a buffer index that is the buffer-sizes buffer's.
    fn check_buffer_index(&self, index: u32) -> R<()> {
        if self.buffer_sizes.is_some() && index == self.opts.buffer_sizes_index {
            return Err(MslError::new(
                RESOURCE,
                format!(
                    "buffer index {index} is the buffer-sizes buffer's (the lengths of runtime \
                     arrays); choose another buffer-sizes index or binding"
                ),
            ));
        }
        Ok(())
    }

    /// The offset and element stride of the runtime array `p` points to (`array_length`'s
    /// operand: a buffer global holding only the runtime array, or a field of one), and the
    /// buffer global.
    pub fn runtime_array_extent(&self, p: InstId) -> R<(InstId, u32, u32)> {
        let m = self.m;
        let (g, field) = match m.op(p) {
            Op::Global => (p, None),
            Op::FieldAddr if m.op(m.operand(p, 0)) == Op::Global => (
                m.operand(p, 0),
                Some(m.imm_operand(p, 1).unwrap_or(0) as usize),
            ),
            _ => {
                return Err(MslError::new(
                    OPERANDS,
                    "`array_length` of a runtime array that is not a buffer global's (the \
                     global itself or its last field)",
                ));
            }
        };
        let ty = m.ty(g).ok_or_else(|| malformed("a global has no type"))?;
        let space = m
            .address_space(ty)
            .ok_or_else(|| malformed("a global's type is not a pointer"))?;
        let pointee = m
            .pointee(ty)
            .ok_or_else(|| malformed("a global's type is not a pointer"))?;
        let rule = self.rule_of(g, space);
        let no_layout =
            |e: layout::LayoutError| MslError::new(LAYOUT, format!("no buffer layout: {e}"));
        let (offset, stride) = match field {
            None => {
                let tl = layout::type_layout(m, pointee, rule, layout::is_row_major(m, g))
                    .map_err(no_layout)?;
                (0, tl.array_stride)
            }
            Some(k) => {
                let sl = layout::struct_layout(m, pointee, rule).map_err(no_layout)?;
                let fl = sl
                    .fields
                    .get(k)
                    .ok_or_else(|| malformed("a field address past the fields"))?;
                (fl.offset, fl.layout.array_stride)
            }
        };
        let stride = stride
            .filter(|&s| s > 0)
            .ok_or_else(|| malformed("`array_length` of something that is not a runtime array"))?;
        Ok((g, offset, stride))
    }

    /// Declares every global the entry uses (in module order), recording errors per global.
    pub fn declare_globals(
        &mut self,
        used: &[(InstId, oneshader_ir::effects::Access)],
    ) -> Vec<MslError> {
        let m = self.m;
        crate::text::driver::declare_each(m, used.iter().copied(), |g, access| {
            self.declare_global(g, access)
        })
    }

    fn declare_global(&mut self, g: InstId, access: oneshader_ir::effects::Access) -> R<()> {
        let m = self.m;
        let ty = m.ty(g).ok_or_else(|| malformed("a global has no type"))?;
        let space = m
            .address_space(ty)
            .ok_or_else(|| malformed("a global's type is not a pointer"))?;
        let pointee = m
            .pointee(ty)
            .ok_or_else(|| malformed("a global's type is not a pointer"))?;
        if matches!(space, AddressSpace::Input | AddressSpace::Output) {
            return self.declare_io(g, space == AddressSpace::Input, pointee);
        }
        let name = self.names.fresh(m.name(g), "g", None);
        self.item_names.insert(g, name.clone());
        let loc = Loc::Global(g);
        match space {
            AddressSpace::Uniform | AddressSpace::StorageBuffer => {
                // An array of buffers as the SPIR-V backend reads the IR (other arrays in a
                // storage buffer are one buffer holding the array).
                if crate::buffers::is_descriptor_array(m, space, pointee) {
                    if m.op(pointee) == Op::Array {
                        return self.declare_buffer_array(g, access, space, pointee, name);
                    }
                    return Err(MslError::new(
                        TYPE,
                        "an unsized array of buffers (one descriptor per element); not \
                         supported by the MSL backend (argument buffers)",
                    ));
                }
                let rule = self.rule_of(g, space);
                let (qual, tn) = self.buffer_type(g, pointee, rule, &loc)?;
                let writes = access.writes() || self.atomics.holds(g);
                let q = if space == AddressSpace::Uniform {
                    "constant"
                } else if writes {
                    "device"
                } else {
                    "const device"
                };
                let index = self.resource_index(g, 0, 1)?;
                self.check_buffer_index(index)?;
                self.buffer_index.insert(g, index);
                let decl = format!("{q} {tn}{qual} {name}");
                self.resources.push(format!("{decl} [[buffer({index})]]"));
                self.env.push(EnvItem { param: decl, name });
                Ok(())
            }
            AddressSpace::PushConstant => {
                // A `constant` buffer at the next buffer index, as spirv-cross places push
                // constants, or where the binding map's push-constant entry puts it.
                let rule = self.rule_of(g, space);
                let (qual, tn) = self.buffer_type(g, pointee, rule, &loc)?;
                let index = match &self.opts.binding_map {
                    Some(map) => map.push_constant(self.entry.stage).ok_or_else(|| {
                        MslError::new(
                            RESOURCE,
                            format!(
                                "the binding map has no push-constant entry for stage {} \
                                 (`{{\"stage\": \"{}\", \"push_constant\": true, \
                                 \"index\": N}}`)",
                                self.entry.stage.spelling(),
                                self.entry.stage.spelling()
                            ),
                        )
                    })?,
                    None => {
                        let i = self.next_index[0];
                        self.next_index[0] += 1;
                        i
                    }
                };
                self.check_buffer_index(index)?;
                self.indices.push(super::ResourceIndex {
                    name: m.name(g).unwrap_or_default().to_string(),
                    set_binding: None,
                    kind: super::IndexKind::Buffer,
                    index,
                    count: 1,
                });
                let decl = format!("constant {tn}{qual} {name}");
                self.resources.push(format!("{decl} [[buffer({index})]]"));
                self.env.push(EnvItem { param: decl, name });
                Ok(())
            }
            AddressSpace::UniformConstant => {
                // An array of textures or samplers of a constant length is an `array<T, N>`
                // parameter taking N consecutive indices (as spirv-cross declares it).
                let (elem, count) = match m.op(pointee) {
                    Op::Array
                        if matches!(
                            m.op(m.operand(pointee, 0)),
                            Op::Texture | Op::Sampler | Op::SamplerCmp
                        ) =>
                    {
                        (m.operand(pointee, 0), m.array_len(pointee).unwrap_or(0))
                    }
                    Op::Array | Op::RuntimeArray => {
                        return Err(MslError::new(
                            TYPE,
                            "an array of textures or samplers without a constant length, or of \
                             arrays; not supported by the MSL backend (argument buffers)",
                        ));
                    }
                    _ => (pointee, 1),
                };
                let (t, kind, attr) = if let Some(d) = m.texture_desc(elem) {
                    let depth = self.depth_textures.contains(&g);
                    let acc = if !access.writes() {
                        "read"
                    } else if !access.reads() {
                        "write"
                    } else {
                        "read_write"
                    };
                    (self.texture_type(elem, &d, depth, acc)?, 1, "texture")
                } else if matches!(m.op(elem), Op::Sampler | Op::SamplerCmp) {
                    ("sampler".to_string(), 2, "sampler")
                } else {
                    return Err(MslError::new(
                        TYPE,
                        format!(
                            "the resource type `{}` has no MSL form in this backend",
                            oneshader_ir::print::print_inst(m, pointee)
                        ),
                    ));
                };
                let index = self.resource_index(g, kind, count)?;
                let t = if m.op(pointee) == Op::Array {
                    format!("array<{t}, {count}>")
                } else {
                    t
                };
                self.resources
                    .push(format!("{t} {name} [[{attr}({index})]]"));
                self.env.push(EnvItem {
                    param: format!("{t} {name}"),
                    name,
                });
                Ok(())
            }
            AddressSpace::Workgroup => {
                let t = self.type_at(pointee, Some(&loc))?;
                if m.try_operand(g, 0).is_some() {
                    return Err(MslError::new(
                        TYPE,
                        "a threadgroup variable with an initializer; MSL threadgroup variables \
                         take none",
                    ));
                }
                self.locals.push(format!("threadgroup {t} {name};"));
                self.env.push(EnvItem {
                    param: format!("threadgroup {t}& {name}"),
                    name,
                });
                Ok(())
            }
            AddressSpace::Private => {
                let t = self.type_name(pointee)?;
                let init = match m.try_operand(g, 0) {
                    Some(init) => self.constant(init)?,
                    None => format!("{t}{{}}"),
                };
                self.locals.push(format!("{t} {name} = {init};"));
                self.env.push(EnvItem {
                    param: format!("thread {t}& {name}"),
                    name,
                });
                Ok(())
            }
            AddressSpace::TaskPayload
            | AddressSpace::RayPayload
            | AddressSpace::IncomingRayPayload
            | AddressSpace::HitAttribute
            | AddressSpace::CallableData
            | AddressSpace::IncomingCallableData
            | AddressSpace::ShaderRecord => Err(MslError::new(
                RESOURCE,
                format!(
                    "a variable in `{}` memory; the MSL backend has no mesh or ray-tracing \
                     stages",
                    space.spelling()
                ),
            )),
            AddressSpace::Function | AddressSpace::Image => Err(malformed(format!(
                "a global in `{}` memory",
                space.spelling()
            ))),
            AddressSpace::Input | AddressSpace::Output => Err(malformed("stage IO")),
        }
    }

    /// A constant-length array of buffers (`ConstantBuffer<S> cbs[3]`, `RWStructuredBuffer<T>
    /// bufs[2]`), as spirv-cross declares one without argument buffers: one entry parameter
    /// per element at consecutive buffer indices, gathered into an array of pointers the
    /// functions receive (`array<constant S*, 3> cbs = {cbs_0, cbs_1, cbs_2};`).
    fn declare_buffer_array(
        &mut self,
        g: InstId,
        access: oneshader_ir::effects::Access,
        space: AddressSpace,
        pointee: InstId,
        name: String,
    ) -> R<()> {
        let m = self.m;
        if self.atomics.holds(g) {
            return Err(MslError::new(
                OPERANDS,
                "atomics in an array of buffers; not supported by the MSL backend",
            ));
        }
        let n = m
            .array_len(pointee)
            .ok_or_else(|| malformed("an array without a length"))?;
        let elem = m.operand(pointee, 0);
        let rule = self.rule_of(g, space);
        let loc = Loc::Elem(Box::new(Loc::Global(g)));
        let (_, tn) = self.buffer_type(g, elem, rule, &loc)?;
        let q = if space == AddressSpace::Uniform {
            "constant"
        } else if access.writes() {
            "device"
        } else {
            "const device"
        };
        let index = self.resource_index(g, 0, n)?;
        let mut elems = Vec::new();
        for k in 0..n {
            self.check_buffer_index(index + k)?;
            let e = self.names.fresh(Some(&format!("{name}_{k}")), "buf", None);
            self.resources
                .push(format!("{q} {tn}* {e} [[buffer({})]]", index + k));
            elems.push(e);
        }
        let t = format!("array<{q} {tn}*, {n}>");
        self.locals
            .push(format!("{t} {name} = {{{}}};", elems.join(", ")));
        self.env.push(EnvItem {
            param: format!("thread {t}& {name}"),
            name,
        });
        self.buffer_arrays.insert(g, m.op(elem) == Op::Struct);
        Ok(())
    }

    /// The MSL type of a buffer's contents and the declarator suffix (`&` for a struct,
    /// `*` for a runtime array, `&` for anything else).
    fn buffer_type(
        &mut self,
        g: InstId,
        pointee: InstId,
        rule: LayoutRule,
        loc: &Loc,
    ) -> R<(&'static str, String)> {
        let m = self.m;
        if column_major_matrix(m, pointee, layout::is_row_major(m, g)) {
            return Err(column_major());
        }
        match m.op(pointee) {
            Op::Struct => {
                self.declare_struct(pointee, Some(rule))?;
                Ok(("&", self.struct_name(pointee)))
            }
            Op::RuntimeArray => {
                let e = m.operand(pointee, 0);
                let tl = layout::type_layout(m, pointee, rule, layout::is_row_major(m, g))
                    .map_err(|err| MslError::new(LAYOUT, format!("no buffer layout: {err}")))?;
                let mut inner = e;
                while m.op(inner) == Op::Array {
                    inner = m.operand(inner, 0);
                }
                if m.op(inner) == Op::Struct {
                    self.declare_struct(inner, Some(rule))?;
                }
                let inner_loc = Loc::Elem(Box::new(loc.clone()));
                let tn = self.type_at(e, Some(&inner_loc))?;
                self.check_strides(pointee, &tl, "(elements)", "the buffer")?;
                self.pointer_globals.insert(g);
                Ok(("*", tn))
            }
            _ => {
                let tl = layout::type_layout(m, pointee, rule, layout::is_row_major(m, g))
                    .map_err(|err| MslError::new(LAYOUT, format!("no buffer layout: {err}")))?;
                if matches!(m.op(pointee), Op::Array) {
                    let mut inner = m.operand(pointee, 0);
                    while m.op(inner) == Op::Array {
                        inner = m.operand(inner, 0);
                    }
                    if m.op(inner) == Op::Struct {
                        self.declare_struct(inner, Some(rule))?;
                    }
                }
                self.check_strides(pointee, &tl, "(contents)", "the buffer")?;
                Ok(("&", self.type_at(pointee, Some(loc))?))
            }
        }
    }

    fn declare_io(&mut self, g: InstId, input: bool, pointee: InstId) -> R<()> {
        let m = self.m;
        let stage = self.entry.stage;
        let var = self
            .names
            .fresh(m.name(g), if input { "in" } else { "out" }, None);
        self.item_names.insert(g, var.clone());
        let var_type = self.type_name(pointee)?;
        self.env.push(EnvItem {
            param: format!("thread {var_type}& {var}"),
            name: var.clone(),
        });
        let builtin_input = input && m.has_decoration(g, Op::BuiltinDeco);
        let member = if builtin_input {
            // A parameter of the entry point: a name of the module's scope.
            let hint = format!("{}_param", m.name(g).unwrap_or("builtin"));
            self.names.fresh(Some(&hint), "builtin", None)
        } else if input {
            self.io_names.0.fresh(m.name(g), "v", None)
        } else {
            self.io_names.1.fresh(m.name(g), "v", None)
        };
        let builtin = m
            .find_decoration(g, Op::BuiltinDeco)
            .and_then(|d| m.imm_operand(d, 0))
            .and_then(BuiltIn::from_u32);
        // Clip distances: a `[[clip_distance]]` array out of a vertex function, plus one
        // `[[user(clipK)]]` varying per element, which a fragment function reads back (cull
        // distances only as fragment inputs: Metal does not cull by them), as spirv-cross
        // declares them.
        let clip = match (builtin, stage, input) {
            (Some(BuiltIn::ClipDistance), Stage::Vertex, false) => Some("clip"),
            (Some(BuiltIn::ClipDistance), Stage::Fragment, true) => Some("clip"),
            (Some(BuiltIn::CullDistance), Stage::Fragment, true) => Some("cull"),
            _ => None,
        };
        if let Some(kind) = clip {
            let n = m.array_len(pointee).unwrap_or(0);
            let elem = m.operand(pointee, 0);
            if m.op(pointee) != Op::Array || m.op(elem) != Op::F32 || !(1..=8).contains(&n) {
                return Err(MslError::new(
                    TYPE,
                    "clip or cull distances that are not an array of 1 to 8 floats",
                ));
            }
            let mut decls = Vec::new();
            let mut copies = Vec::new();
            if !input {
                decls.push(format!("float {member} [[clip_distance]] [{n}];"));
                for k in 0..n {
                    copies.push(format!("{{io}}.{member}[{k}] = {var}[{k}];"));
                }
            }
            for k in 0..n {
                decls.push(format!("float {member}_{k} [[user({kind}{k})]];"));
                copies.push(if input {
                    format!("{var}[{k}] = {{io}}.{member}_{k};")
                } else {
                    format!("{{io}}.{member}_{k} = {var}[{k}];")
                });
            }
            let io = Io {
                var,
                io_type: var_type.clone(),
                var_type,
                member,
                attr: String::new(),
                param: false,
                custom: Some((decls, copies)),
            };
            if input {
                self.inputs.push(io);
            } else {
                self.outputs.push(io);
            }
            return Ok(());
        }
        if builtin == Some(BuiltIn::HelperInvocation) && stage == Stage::Fragment && input {
            // No attribute: MSL asks `simd_is_helper_thread()`, as spirv-cross does.
            let io = Io {
                var: var.clone(),
                io_type: var_type.clone(),
                var_type,
                member,
                attr: String::new(),
                param: true,
                custom: Some((
                    Vec::new(),
                    vec![format!("{var} = simd_is_helper_thread();")],
                )),
            };
            self.inputs.push(io);
            return Ok(());
        }
        if builtin == Some(BuiltIn::ViewIndex) && input {
            // Without multiview (spirv-cross's default, which this backend shares) every draw
            // renders view 0: the view index is the constant 0, as spirv-cross declares it.
            // A vertex function reading it also takes the instance built-ins and writes layer
            // 0, as spirv-cross's does (entry_wrapper).
            if !matches!(m.op(pointee), Op::U32 | Op::I32) {
                return Err(MslError::new(
                    TYPE,
                    "a view index that is not a 32-bit integer scalar",
                ));
            }
            let zero = self.scalar_literal(pointee, 0)?;
            let io = Io {
                var: var.clone(),
                io_type: var_type.clone(),
                var_type,
                member,
                attr: String::new(),
                param: true,
                custom: Some((Vec::new(), vec![format!("{var} = {zero};")])),
            };
            self.view_index = true;
            self.inputs.push(io);
            return Ok(());
        }
        if let Some(b) = builtin {
            use BuiltIn as B;
            let ok = |stages: &[(Stage, bool)]| stages.contains(&(stage, input));
            let (attr, mty) = match b {
                B::Position if ok(&[(Stage::Vertex, false), (Stage::Fragment, true)]) => {
                    ("position", "float4")
                }
                B::VertexIndex if ok(&[(Stage::Vertex, true)]) => ("vertex_id", "uint"),
                B::InstanceIndex if ok(&[(Stage::Vertex, true)]) => ("instance_id", "uint"),
                B::FrontFacing if ok(&[(Stage::Fragment, true)]) => ("front_facing", "bool"),
                B::FragDepth if ok(&[(Stage::Fragment, false)]) => ("depth(any)", "float"),
                B::SampleIndex if ok(&[(Stage::Fragment, true)]) => ("sample_id", "uint"),
                B::GlobalInvocationId if ok(&[(Stage::Compute, true)]) => {
                    ("thread_position_in_grid", "uint3")
                }
                B::LocalInvocationId if ok(&[(Stage::Compute, true)]) => {
                    ("thread_position_in_threadgroup", "uint3")
                }
                B::WorkgroupId if ok(&[(Stage::Compute, true)]) => {
                    ("threadgroup_position_in_grid", "uint3")
                }
                B::NumWorkgroups if ok(&[(Stage::Compute, true)]) => {
                    ("threadgroups_per_grid", "uint3")
                }
                B::LocalInvocationIndex if ok(&[(Stage::Compute, true)]) => {
                    ("thread_index_in_threadgroup", "uint")
                }
                B::BaseVertex if ok(&[(Stage::Vertex, true)]) => ("base_vertex", "uint"),
                B::BaseInstance if ok(&[(Stage::Vertex, true)]) => ("base_instance", "uint"),
                B::PointSize if ok(&[(Stage::Vertex, false)]) => ("point_size", "float"),
                B::Layer if ok(&[(Stage::Vertex, false)]) => ("render_target_array_index", "uint"),
                B::ViewportIndex if ok(&[(Stage::Vertex, false)]) => {
                    ("viewport_array_index", "uint")
                }
                B::SampleMask if ok(&[(Stage::Fragment, true), (Stage::Fragment, false)]) => {
                    ("sample_mask", "uint")
                }
                B::Barycentric if ok(&[(Stage::Fragment, true)]) => {
                    self.require(
                        MslVersion::V2_2,
                        "barycentric coordinates (`SV_Barycentrics`)",
                    )?;
                    if interpolation(m, g, pointee).is_some() {
                        // MSL would take a qualifier, but spirv-cross refuses the decorated
                        // SPIR-V, so no check could compare the interface: refused.
                        return Err(MslError::new(
                            RESOURCE,
                            "barycentric coordinates with an interpolation qualifier \
                             (`noperspective`, `centroid`, `sample`); not supported by the MSL \
                             backend (perspective-correct center barycentrics are)",
                        ));
                    }
                    ("barycentric_coord", "float3")
                }
                B::PrimitiveId if ok(&[(Stage::Fragment, true)]) => {
                    self.require(MslVersion::V2_2, "the primitive ID in a fragment function")?;
                    ("primitive_id", "uint")
                }
                B::Layer if ok(&[(Stage::Fragment, true)]) => ("render_target_array_index", "uint"),
                B::ViewportIndex if ok(&[(Stage::Fragment, true)]) => {
                    ("viewport_array_index", "uint")
                }
                B::FragStencilRef if ok(&[(Stage::Fragment, false)]) => ("stencil", "uint"),
                _ => {
                    return Err(MslError::new(
                        RESOURCE,
                        format!(
                            "the `{}` built-in as a {} {}; not supported by the MSL backend",
                            b.spelling(),
                            stage.spelling(),
                            if input { "input" } else { "output" }
                        ),
                    ));
                }
            };
            let vlen = |t: &str| t.chars().last().filter(|c| c.is_ascii_digit());
            // The sample mask is an array of one `uint` in the IR (SPIR-V's), a `uint` in MSL.
            let one_elem_array = m.op(pointee) == Op::Array && m.array_len(pointee) == Some(1);
            if !one_elem_array
                && (vlen(&var_type) != vlen(mty)
                    || (m.op(pointee) != Op::Vector) != (vlen(mty).is_none()))
            {
                return Err(MslError::new(
                    TYPE,
                    format!(
                        "the `{}` built-in declared as `{var_type}`; MSL's is `{mty}`",
                        b.spelling()
                    ),
                ));
            }
            // Barycentrics are a member of the `[[stage_in]]` struct, interpolated as the
            // IR says (as spirv-cross declares them); other built-in inputs are parameters.
            let staged = b == B::Barycentric;
            let attr = match (staged, interpolation(m, g, pointee)) {
                (true, Some(q)) => format!("[[{attr}, {q}]]"),
                _ => format!("[[{attr}]]"),
            };
            let io = Io {
                var,
                var_type,
                member,
                io_type: mty.to_string(),
                attr,
                param: input && !staged,
                custom: None,
            };
            if input {
                self.inputs.push(io);
            } else {
                self.outputs.push(io);
            }
            return Ok(());
        }
        let l = m
            .find_decoration(g, Op::Location)
            .and_then(|d| m.imm_operand(d, 0))
            .ok_or_else(|| {
                MslError::new(
                    MALFORMED,
                    "a stage input or output without a location or built-in",
                )
            })?;
        // The attribute of location `loc` holding a value of type `ty`.
        let attr_at = |loc: u32, ty: InstId| -> String {
            let a = match (stage, input) {
                (Stage::Vertex, true) => format!("attribute({loc})"),
                (Stage::Fragment, false) => format!("color({loc})"),
                _ => format!("user(locn{loc})"),
            };
            match interpolation(m, g, ty) {
                Some(q) if stage == Stage::Fragment && input => format!("[[{a}, {q}]]"),
                _ => format!("[[{a}]]"),
            }
        };
        // An array of 32-bit scalars or vectors, or a float matrix (its MSL columns, HLSL's
        // rows): one member per element at consecutive locations, as spirv-cross flattens
        // them.
        let flat = match m.op(pointee) {
            Op::Array => {
                let e = m.operand(pointee, 0);
                let ok = (m.op(e) == Op::Vector || m.op(e).is_scalar_type())
                    && m.scalar_of(e).and_then(|t| m.scalar_bits(t)) == Some(32)
                    && m.scalar_kind(e) != Some(ScalarKind::Bool);
                match m.array_len(pointee) {
                    Some(n) if ok => Some((n, e, self.type_name(e)?)),
                    _ => None,
                }
            }
            Op::Matrix if m.op(m.operand(pointee, 0)) == Op::F32 => m
                .matrix_dims(pointee)
                .map(|(r, c)| (r, pointee, format!("float{c}"))),
            _ => None,
        };
        if let Some((n, elem, et)) = flat {
            let mut decls = Vec::new();
            let mut copies = Vec::new();
            for k in 0..n {
                let names = if input {
                    &mut self.io_names.0
                } else {
                    &mut self.io_names.1
                };
                let mk = names.fresh(Some(&format!("{member}_{k}")), "v", None);
                decls.push(format!("{et} {mk} {};", attr_at(l + k, elem)));
                copies.push(if input {
                    format!("{var}[{k}] = {{io}}.{mk};")
                } else {
                    format!("{{io}}.{mk} = {var}[{k}];")
                });
            }
            let io = Io {
                var,
                io_type: var_type.clone(),
                var_type,
                member,
                attr: String::new(),
                param: false,
                custom: Some((decls, copies)),
            };
            if input {
                self.inputs.push(io);
            } else {
                self.outputs.push(io);
            }
            return Ok(());
        }
        if !matches!(m.op(pointee), Op::Vector) && !m.op(pointee).is_scalar_type() {
            return Err(MslError::new(
                TYPE,
                format!(
                    "the stage {} at location {l} has type `{}`; the MSL backend takes scalar \
                     and vector stage inputs and outputs (and arrays and matrices of them)",
                    if input { "input" } else { "output" },
                    oneshader_ir::print::print_inst(m, pointee)
                ),
            ));
        }
        if m.scalar_kind(pointee) == Some(ScalarKind::Bool) {
            return Err(MslError::new(
                TYPE,
                "a `bool` stage input or output; MSL interfaces hold no bools",
            ));
        }
        if m.scalar_of(pointee).and_then(|t| m.scalar_bits(t)) != Some(32) {
            return Err(MslError::new(
                TYPE,
                format!(
                    "the stage {} at location {l} has type `{}`; the MSL backend takes 32-bit \
                     stage inputs and outputs",
                    if input { "input" } else { "output" },
                    oneshader_ir::print::print_inst(m, pointee)
                ),
            ));
        }
        let attr = attr_at(l, pointee);
        let io = Io {
            var,
            io_type: var_type.clone(),
            var_type,
            member,
            attr,
            param: false,
            custom: None,
        };
        if input {
            self.inputs.push(io);
        } else {
            self.outputs.push(io);
        }
        Ok(())
    }

    /// The struct declarations, in dependency order.
    pub fn struct_decls(&self) -> String {
        let mut s = String::new();
        for st in &self.struct_order {
            if let Some(d) = self.structs.get(st) {
                s.push_str(&d.text);
            }
        }
        s
    }
}

/// True when struct `st` (and every struct it holds) has the same offsets, sizes, strides
/// and majorness under rules `a` and `b` (alignments aside, which MSL derives itself): one
/// MSL declaration states both.
fn same_msl_layout(m: &Module, st: InstId, a: LayoutRule, b: LayoutRule) -> bool {
    let (Ok(la), Ok(lb)) = (
        layout::struct_layout(m, st, a),
        layout::struct_layout(m, st, b),
    ) else {
        return false;
    };
    let shape = |t: &layout::TypeLayout| (t.size, t.array_stride, t.matrix_stride);
    if la.layout.size != lb.layout.size || la.fields.len() != lb.fields.len() {
        return false;
    }
    la.fields.iter().zip(&lb.fields).all(|(x, y)| {
        if x.offset != y.offset
            || x.row_major != y.row_major
            || shape(&x.layout) != shape(&y.layout)
        {
            return false;
        }
        let mut inner = m.ty(x.field);
        while let Some(t) = inner.filter(|&t| matches!(m.op(t), Op::Array | Op::RuntimeArray)) {
            inner = Some(m.operand(t, 0));
        }
        match inner {
            Some(t) if m.op(t) == Op::Struct => same_msl_layout(m, t, a, b),
            _ => true,
        }
    })
}

/// The MSL interpolation qualifier of fragment input `g` of type `ty` (`None`: MSL's
/// default, perspective-correct at the pixel center).
fn interpolation(m: &Module, g: InstId, ty: InstId) -> Option<&'static str> {
    let int = m.scalar_kind(ty) != Some(ScalarKind::Float);
    let centroid = m.has_decoration(g, Op::Centroid);
    let sample = m.has_decoration(g, Op::SampleDeco);
    let persp = !m.has_decoration(g, Op::NoPerspective);
    if int || m.has_decoration(g, Op::Flat) {
        return Some("flat");
    }
    match (persp, centroid, sample) {
        (true, false, false) => None,
        (true, true, _) => Some("centroid_perspective"),
        (true, false, true) => Some("sample_perspective"),
        (false, false, false) => Some("center_no_perspective"),
        (false, true, _) => Some("centroid_no_perspective"),
        (false, false, true) => Some("sample_no_perspective"),
    }
}

/// The bits of the f32 equal to the f16 with bits `h` (every f16 is an f32).
pub(crate) fn f16_to_f32_bits(h: u16) -> u32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from((h >> 10) & 0x1f);
    let man = u32::from(h & 0x3ff);
    match (exp, man) {
        (0, 0) => sign,
        (0, _) => {
            // A subnormal: man * 2^-24, normalized.
            let shift = man.leading_zeros() - 21;
            let man = (man << shift) & 0x3ff;
            sign | ((127 - 15 + 1 - shift) << 23) | (man << 13)
        }
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, _) => sign | 0x7fc0_0000 | (man << 13),
        _ => sign | ((exp + 127 - 15) << 23) | (man << 13),
    }
}

/// An MSL literal of the f32 with bits `bits`: the shortest decimal that reads back as the
/// same value with an `f` suffix, or `as_type<float>(0x...u)` for NaNs, infinities and
/// subnormals.
pub(crate) fn f32_literal(bits: u32) -> String {
    let v = f32::from_bits(bits);
    if !v.is_finite() || (v != 0.0 && !v.is_normal()) || (v == 0.0 && v.is_sign_negative()) {
        return format!("as_type<float>({bits:#x}u)");
    }
    let mut s = format!("{v:?}");
    if !s.contains('.') && !s.contains('e') {
        s.push_str(".0");
    }
    if s.contains('e') && !s.contains('.') {
        // `1e10` is a valid C++ floating literal already.
    }
    format!("{s}f")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_bits_widen_exactly() {
        for (h, f) in [
            (0x3c00u16, 1.0f32),
            (0xc000, -2.0),
            (0x7bff, 65504.0),
            (0x0001, 1.0 / 16_777_216.0),
            (0x03ff, 1023.0 / 16_777_216.0),
            (0x0400, 1.0 / 16_384.0),
            (0x3555, 1365.0 / 4096.0),
        ] {
            assert_eq!(f32::from_bits(f16_to_f32_bits(h)), f, "{h:#x}");
        }
        assert!(f32::from_bits(f16_to_f32_bits(0x7e00)).is_nan());
        assert_eq!(f16_to_f32_bits(0xfc00), f32::NEG_INFINITY.to_bits());
        assert_eq!(f16_to_f32_bits(0x8000), (-0.0f32).to_bits());
    }

    #[test]
    fn float_literals_read_back_exactly() {
        for v in [0.0f32, 1.0, -2.5, 0.1, 1e30, 3.4028235e38, 1.1754944e-38] {
            let s = f32_literal(v.to_bits());
            let t = s.trim_end_matches('f');
            assert_eq!(t.parse::<f32>().ok(), Some(v), "{s}");
        }
        assert_eq!(
            f32_literal(f32::NAN.to_bits()),
            "as_type<float>(0x7fc00000u)"
        );
        assert_eq!(
            f32_literal((-0.0f32).to_bits()),
            "as_type<float>(0x80000000u)"
        );
    }
}
