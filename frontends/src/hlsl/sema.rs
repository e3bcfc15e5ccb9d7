//! Semantic analysis, part 1: scopes and name lookup, HLSL types, declarations (globals,
//! constant buffers, structs with methods and inheritance, typedefs, enums, namespaces,
//! functions and their overloads), templates instantiated on demand, and the driver that checks
//! every function body and picks the entry point.
//!
//! Expressions are checked in `sema_expr.rs`, statements in `sema_stmt.rs`; the result is a
//! [`Program`](super::hir::Program).
//!
//! Diagnostic codes of semantic analysis (`OSH1xxx`), listed in docs/diagnostics.md:
//!
//! | code | meaning |
//! |---|---|
//! | OSH1001 | undefined name |
//! | OSH1002 | unknown type name, or a name that is not a type where one is needed |
//! | OSH1003 | no overload matches the arguments (the candidates are listed) |
//! | OSH1004 | ambiguous call (the best candidates are listed) |
//! | OSH1005 | type mismatch: no implicit conversion between two types |
//! | OSH1006 | *warning*: implicit truncation of a vector or matrix |
//! | OSH1007 | wrong number of arguments |
//! | OSH1008 | not assignable: a constant, a read-only resource, an rvalue, a repeated swizzle |
//! | OSH1009 | no such member, method or swizzle |
//! | OSH1010 | an operator does not apply to its operand types |
//! | OSH1011 | redefinition of a name |
//! | OSH1012 | a constant expression is required (array sizes, template and attribute arguments, case labels) |
//! | OSH1013 | an initializer list or constructor does not match the type's component count |
//! | OSH1014 | `break`/`continue` outside a loop or switch |
//! | OSH1015 | a `return` value does not match the function (missing or superfluous) |
//! | OSH1016 | invalid index (out of range, or on a type that cannot be indexed) |
//! | OSH1017 | invalid template arguments, or template arguments that cannot be deduced |
//! | OSH1018 | a construct OneShader does not compile (named in the message) |
//! | OSH1020 | the entry point is not defined |
//! | OSH1021 | a stage OneShader does not compile (work-graph nodes; mesh or amplification before shader model 6.5) |
//! | OSH1022 | malformed profile, or a shader model that is not 6.0–6.10 (5.0/5.1 compile as 6.0) |
//! | OSH1023 | a semantic that is missing, unknown or not allowed for this stage and direction |
//! | OSH1025 | a malformed attribute (`numthreads`, `vk::binding`, `maxvertexcount`, `domain`, ...), or a stage attribute the entry point needs |
//! | OSH1026 | a function is called but never defined |
//! | OSH1027 | recursion (HLSL and SPIR-V forbid it) |
//! | OSH1028 | *warning*: an attribute or modifier is ignored |
//! | OSH1099 | too many errors; analysis stopped |

use oneshader_ir::diag::{Diagnostic, Span};
use oneshader_ir::{ImageFormat, Stage};
use rustc_hash::FxHashMap;

use super::ast::{self, DeclKind, Modifier, TemplateArg, TypeKind};
use super::hir::*;

/// Errors after which analysis stops reporting.
pub const MAX_SEMA_ERRORS: usize = 100;

/// Options of semantic analysis.
#[derive(Clone, Debug)]
pub struct SemaOptions {
    /// The entry point's name.
    pub entry: String,
    /// Its stage (ignored for a library).
    pub stage: Stage,
    /// A library (`lib_*`): every `[shader("...")]` function is an entry point; `export`
    /// functions are exported and prototypes imported.
    pub library: bool,
    /// `-enable-16bit-types`: `half` is 16-bit, `min16*` map to 16-bit types.
    pub enable_16bit: bool,
    /// Default matrix order (`-Zpc` column, the default; `-Zpr` row).
    pub default_major: Major,
    /// `-HV`: 2016, 2018, 2021 (default 2021).
    pub hlsl_version: u32,
}

impl Default for SemaOptions {
    fn default() -> SemaOptions {
        SemaOptions {
            entry: "main".into(),
            stage: Stage::Fragment,
            library: false,
            enable_16bit: false,
            default_major: Major::Column,
            hlsl_version: 2021,
        }
    }
}

/// A namespace-like scope: a namespace, a struct's members, an enum's enumerators, or a
/// template instance's parameter bindings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct NsId(pub u32);

/// A template.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct TemplateId(pub u32);

/// What a name denotes.
#[derive(Clone, Debug)]
pub(crate) enum Sym {
    /// A type; structs and enums carry their member scope.
    Type(TyId, Option<NsId>),
    /// A local variable.
    Local(LocalId),
    /// A global variable.
    Global(GlobalId),
    /// A member of a `cbuffer`: (the buffer global, field index).
    CBufMember(GlobalId, u32),
    /// A named constant (enumerator, template value parameter).
    Const(TyId, ConstVal),
    /// Functions and function templates of one name.
    Overloads(Vec<FuncId>, Vec<TemplateId>),
    /// A struct template.
    StructTemplate(TemplateId),
    /// A namespace.
    Namespace(NsId),
    /// A struct variable that holds resources, split into its fields (`sema_split.rs`).
    Split(u32),
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Ns {
    pub names: FxHashMap<String, Sym>,
    pub parent: Option<NsId>,
    pub usings: Vec<NsId>,
    /// For a struct's scope: the struct and its bases' scopes.
    pub owner: Option<StructId>,
    pub bases: Vec<NsId>,
}

/// A template argument after resolution.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum TArg {
    Type(TyId),
    Value(i128),
}

#[derive(Clone, Debug)]
pub(crate) enum TemplateBody<'a> {
    Func(&'a ast::FunctionDecl),
    Struct(&'a ast::StructDecl),
    /// `template<typename T> using V = vector<T, 3>;`
    Alias(&'a ast::TypedefDecl),
}

#[derive(Clone, Debug)]
pub(crate) struct Template<'a> {
    pub name: String,
    pub body: TemplateBody<'a>,
    pub params: &'a [ast::TemplateParam],
    /// The scope it was declared in.
    pub ns: NsId,
    /// The struct when it is a member template.
    pub owner: Option<StructId>,
    /// Instances by arguments.
    pub instances: FxHashMap<Vec<TArg>, Sym>,
}

/// Where a function's body comes from, for checking after every declaration is known.
#[derive(Clone, Debug)]
pub(crate) struct FuncSrc<'a> {
    pub decl: &'a ast::FunctionDecl,
    pub ns: NsId,
    pub checked: bool,
}

/// State while checking one function body.
#[derive(Clone, Debug)]
pub(crate) struct FnCtx {
    pub func: FuncId,
    pub locals: Vec<LocalDef>,
    pub local_consts: Vec<Option<ConstVal>>,
    pub local_const_flag: Vec<bool>,
    pub scopes: Vec<FxHashMap<String, Sym>>,
    pub ret: TyId,
    pub loops: u32,
    pub switches: u32,
    pub this: Option<(LocalId, StructId)>,
    pub ns: NsId,
}

/// The analyzer.
pub(crate) struct Sema<'a> {
    pub opts: SemaOptions,
    pub types: Types,
    pub globals: Vec<GlobalDef>,
    pub funcs: Vec<FuncDef>,
    pub func_src: Vec<Option<FuncSrc<'a>>>,
    pub nss: Vec<Ns>,
    pub templates: Vec<Template<'a>>,
    /// Struct template instances: the struct and its (template, args).
    pub struct_instance: FxHashMap<StructId, (TemplateId, Vec<TArg>)>,
    /// The scope of each struct.
    pub struct_ns: Vec<NsId>,
    pub diags: Vec<Diagnostic>,
    pub errors: usize,
    /// The implicit `$Globals` constant buffer, once a loose global needs it.
    pub globals_cbuffer: Option<GlobalId>,
    /// Where the push-constant block was declared (at most one).
    pub push_constant_at: Option<Span>,
    /// The current declaration scope (outside function bodies).
    pub cur_ns: NsId,
    pub fctx: Option<FnCtx>,
    /// Default matrix order in effect (changed by `#pragma pack_matrix`).
    pub cur_major: Major,
    /// Nesting of template instantiations (bounded).
    pub inst_depth: u32,
    /// Bodies still to check.
    pub pending: Vec<FuncId>,
    /// Struct declarations by struct (for methods declared inside).
    pub pragma_majors: Vec<(Span, Major)>,
    /// Split structs (structs holding resources), by id.
    pub splits: Vec<super::sema_split::SplitDef>,
    /// The declared signature of functions with split parameters.
    pub func_sigs: FxHashMap<FuncId, Vec<super::sema_split::SigParam>>,
    /// The built-in structs (`RayDesc`, `BuiltInTriangleIntersectionAttributes`), made on
    /// first use.
    pub builtin_structs: FxHashMap<&'static str, TyId>,
    /// The split parameters of functions: (name, split id), bound in the body.
    pub func_split_names: FxHashMap<FuncId, Vec<(String, u32)>>,
}

/// The root namespace.
pub(crate) const ROOT: NsId = NsId(0);

/// HLSL's built-in `uint` constants (ray flags, hit kinds, ray-query states).
const BUILTIN_CONSTANTS: &[(&str, u32)] = &[
    ("RAY_FLAG_NONE", 0),
    ("RAY_FLAG_FORCE_OPAQUE", 0x1),
    ("RAY_FLAG_FORCE_NON_OPAQUE", 0x2),
    ("RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH", 0x4),
    ("RAY_FLAG_SKIP_CLOSEST_HIT_SHADER", 0x8),
    ("RAY_FLAG_CULL_BACK_FACING_TRIANGLES", 0x10),
    ("RAY_FLAG_CULL_FRONT_FACING_TRIANGLES", 0x20),
    ("RAY_FLAG_CULL_OPAQUE", 0x40),
    ("RAY_FLAG_CULL_NON_OPAQUE", 0x80),
    ("RAY_FLAG_SKIP_TRIANGLES", 0x100),
    ("RAY_FLAG_SKIP_PROCEDURAL_PRIMITIVES", 0x200),
    ("HIT_KIND_TRIANGLE_FRONT_FACE", 0xFE),
    ("HIT_KIND_TRIANGLE_BACK_FACE", 0xFF),
    ("COMMITTED_NOTHING", 0),
    ("COMMITTED_TRIANGLE_HIT", 1),
    ("COMMITTED_PROCEDURAL_PRIMITIVE_HIT", 2),
    ("CANDIDATE_NON_OPAQUE_TRIANGLE", 0),
    ("CANDIDATE_PROCEDURAL_PRIMITIVE", 1),
];

impl<'a> Sema<'a> {
    pub fn new(opts: SemaOptions) -> Sema<'a> {
        let major = opts.default_major;
        Sema {
            opts,
            types: Types::new(),
            globals: Vec::new(),
            funcs: Vec::new(),
            func_src: Vec::new(),
            nss: vec![Ns::default()],
            templates: Vec::new(),
            struct_instance: FxHashMap::default(),
            struct_ns: Vec::new(),
            diags: Vec::new(),
            errors: 0,
            globals_cbuffer: None,
            push_constant_at: None,
            cur_ns: ROOT,
            fctx: None,
            cur_major: major,
            inst_depth: 0,
            pending: Vec::new(),
            pragma_majors: Vec::new(),
            splits: Vec::new(),
            func_sigs: FxHashMap::default(),
            func_split_names: FxHashMap::default(),
            builtin_structs: FxHashMap::default(),
        }
    }

    /// A built-in struct type of plain fields (made once; its members are reached like a
    /// user struct's).
    pub fn builtin_struct(&mut self, name: &'static str, fields: &[(&str, TyId)]) -> TyId {
        if let Some(&t) = self.builtin_structs.get(name) {
            return t;
        }
        let sid = StructId(self.types.structs.len() as u32);
        let span = Span {
            file: oneshader_ir::diag::FileId(0),
            start: 0,
            end: 0,
        };
        self.types.structs.push(StructDef {
            name: name.to_string(),
            fields: fields
                .iter()
                .map(|&(n, ty)| FieldDef {
                    name: n.to_string(),
                    ty,
                    major: None,
                    io: IoAttrs::default(),
                    offset: None,
                    register_c: None,
                    span,
                })
                .collect(),
            bitfields: Vec::new(),
            bases: Vec::new(),
            span,
        });
        let sns = self.new_ns(Some(ROOT));
        self.nss[sns.0 as usize].owner = Some(sid);
        self.struct_ns.push(sns);
        let ty = self.types.intern(TyKind::Struct(sid));
        self.builtin_structs.insert(name, ty);
        ty
    }

    /// `RayDesc`: `{ float3 Origin; float TMin; float3 Direction; float TMax; }`.
    pub fn ray_desc(&mut self) -> TyId {
        let f3 = self.types.vector(Scalar::F32, 3);
        let f = self.types.float();
        self.builtin_struct(
            "RayDesc",
            &[("Origin", f3), ("TMin", f), ("Direction", f3), ("TMax", f)],
        )
    }

    // ---- diagnostics --------------------------------------------------------------------------

    /// Reports an error (up to [`MAX_SEMA_ERRORS`]).
    pub fn error(&mut self, code: &'static str, span: Span, msg: impl Into<String>) {
        self.push_diag(Diagnostic::error(code, msg).with_span(span));
    }

    /// Reports a warning.
    pub fn warn(&mut self, code: &'static str, span: Span, msg: impl Into<String>) {
        if self
            .diags
            .iter()
            .any(|d| d.code == code && d.span == Some(span))
        {
            return;
        }
        if self.diags.len() < 4 * MAX_SEMA_ERRORS {
            self.diags
                .push(Diagnostic::warning(code, msg).with_span(span));
        }
    }

    /// Pushes a prepared diagnostic.
    pub fn push_diag(&mut self, d: Diagnostic) {
        if d.is_error() {
            self.errors += 1;
            if self.errors == MAX_SEMA_ERRORS + 1 {
                self.diags.push(
                    Diagnostic::error(
                        "OSH1099",
                        format!("{MAX_SEMA_ERRORS} errors reported; analysis stopped"),
                    )
                    .with_opt_span(d.span),
                );
            }
            if self.errors > MAX_SEMA_ERRORS {
                return;
            }
        }
        self.diags.push(d);
    }

    /// True once the error limit is reached.
    pub fn too_many_errors(&self) -> bool {
        self.errors > MAX_SEMA_ERRORS
    }

    // ---- scopes -------------------------------------------------------------------------------

    pub fn new_ns(&mut self, parent: Option<NsId>) -> NsId {
        self.nss.push(Ns {
            parent,
            ..Ns::default()
        });
        NsId(self.nss.len() as u32 - 1)
    }

    /// The scope declarations and lookups currently use.
    pub fn scope_ns(&self) -> NsId {
        match &self.fctx {
            Some(f) => f.ns,
            None => self.cur_ns,
        }
    }

    /// Declares `name` in namespace `ns`; functions of one name merge into one overload set.
    pub fn declare(&mut self, ns: NsId, name: &str, sym: Sym, span: Span) {
        let existing = self.nss[ns.0 as usize].names.get(name).cloned();
        match (existing, sym) {
            (None, sym) => {
                self.nss[ns.0 as usize].names.insert(name.to_string(), sym);
            }
            (Some(Sym::Overloads(mut f, mut t)), Sym::Overloads(f2, t2)) => {
                f.extend(f2);
                t.extend(t2);
                self.nss[ns.0 as usize]
                    .names
                    .insert(name.to_string(), Sym::Overloads(f, t));
            }
            (Some(Sym::Type(a, _)), Sym::Type(b, nsb)) if a == b => {
                if nsb.is_some() {
                    self.nss[ns.0 as usize]
                        .names
                        .insert(name.to_string(), Sym::Type(b, nsb));
                }
            }
            (Some(Sym::Namespace(_)), Sym::Namespace(n)) => {
                self.nss[ns.0 as usize]
                    .names
                    .insert(name.to_string(), Sym::Namespace(n));
            }
            (Some(_), sym) => {
                // HLSL code often redeclares globals in macro-heavy headers; the newest wins
                // after one diagnostic.
                self.error("OSH1011", span, format!("redefinition of `{name}`"));
                self.nss[ns.0 as usize].names.insert(name.to_string(), sym);
            }
        }
    }

    /// Declares a name in the innermost local scope (inside a body) or the current namespace.
    pub fn declare_here(&mut self, name: &str, sym: Sym, span: Span) {
        // A redeclaration in the same block replaces the previous name (DXC accepts some).
        if let Some(f) = &mut self.fctx
            && let Some(scope) = f.scopes.last_mut()
        {
            scope.insert(name.to_string(), sym);
            return;
        }
        let ns = self.cur_ns;
        self.declare(ns, name, sym, span);
    }

    /// Looks `name` up in one scope (with its usings and, for structs, its bases).
    pub fn lookup_in(&self, ns: NsId, name: &str) -> Option<Sym> {
        self.lookup_in_depth(ns, name, 0)
    }

    fn lookup_in_depth(&self, ns: NsId, name: &str, depth: u32) -> Option<Sym> {
        if depth > 32 {
            return None;
        }
        let n = &self.nss[ns.0 as usize];
        if let Some(s) = n.names.get(name) {
            return Some(s.clone());
        }
        for &b in &n.bases {
            if let Some(s) = self.lookup_in_depth(b, name, depth + 1) {
                return Some(s);
            }
        }
        for &u in &n.usings {
            if u != ns
                && let Some(s) = self.nss[u.0 as usize].names.get(name)
            {
                return Some(s.clone());
            }
        }
        None
    }

    /// Unqualified lookup: local scopes, then the namespaces from the current one outward.
    /// Fields of `this` are handled by the expression checker.
    pub fn lookup(&self, name: &str) -> Option<Sym> {
        if let Some(f) = &self.fctx {
            for s in f.scopes.iter().rev() {
                if let Some(sym) = s.get(name) {
                    return Some(sym.clone());
                }
            }
        }
        let mut ns = Some(self.scope_ns());
        let mut steps = 0;
        while let Some(n) = ns {
            if let Some(s) = self.lookup_in(n, name) {
                return Some(s);
            }
            ns = self.nss[n.0 as usize].parent;
            steps += 1;
            if steps > 64 {
                break;
            }
        }
        // The built-in constants, which a declaration of the same name hides.
        BUILTIN_CONSTANTS
            .iter()
            .find(|c| c.0 == name)
            .and_then(|&(_, v)| {
                let u = self.types.lookup(&TyKind::Scalar(Scalar::U32))?;
                Some(Sym::Const(u, ConstVal::Int(v as i128)))
            })
    }

    /// Lookup of a possibly qualified path.
    pub fn lookup_path(&self, path: &ast::Path) -> Option<Sym> {
        let segs = &path.segments;
        if segs.len() == 1 && !path.global {
            return self.lookup(&segs[0].name);
        }
        let mut cur = if path.global {
            self.lookup_in(ROOT, &segs[0].name)?
        } else {
            self.lookup(&segs[0].name)?
        };
        for seg in &segs[1..] {
            let ns = match &cur {
                Sym::Namespace(n) => *n,
                Sym::Type(_, Some(n)) => *n,
                _ => return None,
            };
            cur = self.lookup_in(ns, &seg.name)?;
        }
        Some(cur)
    }

    // ---- types --------------------------------------------------------------------------------

    /// Maps a scalar spelling to its type (`None` when not a scalar name).
    pub fn scalar_by_name(&self, name: &str) -> Option<Scalar> {
        let half = if self.opts.enable_16bit {
            Scalar::F16
        } else {
            Scalar::F32
        };
        let (i16t, u16t) = if self.opts.enable_16bit {
            (Scalar::I16, Scalar::U16)
        } else {
            (Scalar::I32, Scalar::U32)
        };
        Some(match name {
            "bool" => Scalar::Bool,
            "int" | "int32_t" => Scalar::I32,
            "uint" | "dword" | "uint32_t" | "unsigned" => Scalar::U32,
            "half" => half,
            "float" | "float32_t" => Scalar::F32,
            "double" | "float64_t" => Scalar::F64,
            "min16float" | "min10float" => half,
            "min16int" | "min12int" => i16t,
            "min16uint" => u16t,
            "int16_t" => Scalar::I16,
            "uint16_t" => Scalar::U16,
            "int64_t" => Scalar::I64,
            "uint64_t" => Scalar::U64,
            "float16_t" => Scalar::F16,
            _ => return None,
        })
    }

    /// Parses `float4`, `int3x3`, `half` ... into a type.
    pub fn builtin_numeric(&mut self, name: &str) -> Option<TyId> {
        if let Some(s) = self.scalar_by_name(name) {
            return Some(self.types.scalar(s));
        }
        let b = name.as_bytes();
        let n = b.len();
        if n >= 2 && (b'1'..=b'4').contains(&b[n - 1]) {
            if n >= 4 && b[n - 2] == b'x' && (b'1'..=b'4').contains(&b[n - 3]) {
                let s = self.scalar_by_name(&name[..n - 3])?;
                return Some(self.types.matrix(s, b[n - 3] - b'0', b[n - 1] - b'0'));
            }
            let s = self.scalar_by_name(&name[..n - 1])?;
            return Some(self.types.vector(s, b[n - 1] - b'0'));
        }
        None
    }

    /// Resolves type syntax; reports and returns the error type when it is not a type.
    pub fn resolve_type(&mut self, t: &'a ast::TypeExpr) -> TyId {
        match &t.kind {
            TypeKind::Named { path, args } => {
                self.resolve_named_type(path, args.as_deref(), t.span)
            }
            TypeKind::Struct(s) => self.declare_struct(s, None),
            TypeKind::Typename(p) => self.resolve_named_type(p, None, t.span),
            TypeKind::Modified { modifiers, inner } => {
                let ty = self.resolve_type(inner);
                if modifiers.iter().any(|m| m.modifier == Modifier::Unsigned) {
                    return self.make_unsigned(ty);
                }
                ty
            }
            TypeKind::Array { element, dims } => {
                let mut ty = self.resolve_type(element);
                for d in dims.iter().rev() {
                    ty = self.array_of(ty, d);
                }
                ty
            }
            TypeKind::Error => Types::ERROR,
        }
    }

    /// `unsigned T`.
    pub fn make_unsigned(&mut self, ty: TyId) -> TyId {
        match self.types.scalar_of(ty) {
            Some(Scalar::I32) => self.types.with_scalar(ty, Scalar::U32),
            Some(Scalar::I16) => self.types.with_scalar(ty, Scalar::U16),
            Some(Scalar::I64) => self.types.with_scalar(ty, Scalar::U64),
            _ => ty,
        }
    }

    /// `elem[dim]`.
    pub fn array_of(&mut self, elem: TyId, d: &'a ast::ArrayDim) -> TyId {
        match &d.size {
            None => self.types.intern(TyKind::UnsizedArray(elem)),
            Some(e) => match self.const_int_expr(e) {
                Some(n) if n > 0 && n <= (1 << 24) => self.types.array(elem, n as u32),
                Some(n) => {
                    self.error(
                        "OSH1012",
                        e.span,
                        format!("array size must be positive (found {n})"),
                    );
                    Types::ERROR
                }
                None => Types::ERROR,
            },
        }
    }

    /// Evaluates a constant integer expression (reports when it is not one).
    pub fn const_int_expr(&mut self, e: &'a ast::Expr) -> Option<i128> {
        let h = self.check_expr(e);
        if self.types.is_error(h.ty) {
            return None;
        }
        match self.eval_const(&h) {
            Some(v) => Some(v.as_int()),
            None => {
                self.error("OSH1012", e.span, "a constant expression is required here");
                None
            }
        }
    }

    fn template_type_arg(&mut self, a: &'a TemplateArg, default: TyId) -> TyId {
        match a {
            TemplateArg::Type(t) => self.resolve_type(t),
            TemplateArg::Expr(e) => {
                // `Buffer<MyType>` where the parser saw an expression.
                if let ast::ExprKind::Name { path, .. } = &e.kind
                    && let Some(Sym::Type(t, _)) = self.lookup_path(path)
                {
                    return t;
                }
                self.error("OSH1017", e.span, "expected a type as template argument");
                default
            }
        }
    }

    fn template_int_arg(&mut self, a: &'a TemplateArg) -> Option<i128> {
        match a {
            TemplateArg::Expr(e) => self.const_int_expr(e),
            TemplateArg::Type(t) => {
                // A name the parser took for a type may be a constant.
                if let TypeKind::Named { path, args: None } = &t.kind
                    && let Some(Sym::Const(_, v)) = self.lookup_path(path)
                {
                    return Some(v.as_int());
                }
                self.error("OSH1017", t.span, "expected a constant template argument");
                None
            }
        }
    }

    fn resolve_named_type(
        &mut self,
        path: &'a ast::Path,
        args: Option<&'a [TemplateArg]>,
        span: Span,
    ) -> TyId {
        let name = path.last().name.as_str();
        if path.segments.len() == 1 {
            if args.is_none()
                && let Some(t) = self.builtin_numeric(name)
            {
                // A user typedef cannot shadow built-in numeric names in practice.
                return t;
            }
            if let Some(t) = self.builtin_template_type(name, args, span) {
                return t;
            }
        } else if path.segments.len() == 2 && path.segments[0].name == "vk" {
            return self
                .types
                .intern(TyKind::Unsupported(format!("vk::{name}")));
        }
        match self.lookup_path(path) {
            Some(Sym::Type(t, _)) => {
                if args.is_some() {
                    self.error(
                        "OSH1017",
                        span,
                        format!("`{}` is not a template", path.to_text()),
                    );
                }
                t
            }
            Some(Sym::StructTemplate(tid)) => {
                let targs = self.resolve_template_args(tid, args.unwrap_or(&[]), span);
                match targs {
                    Some(a) => self.instantiate_struct(tid, a, span),
                    None => Types::ERROR,
                }
            }
            Some(_) => {
                self.error(
                    "OSH1002",
                    path.span,
                    format!("`{}` is not a type", path.to_text()),
                );
                Types::ERROR
            }
            None => {
                self.error(
                    "OSH1002",
                    path.span,
                    format!("unknown type `{}`", path.to_text()),
                );
                Types::ERROR
            }
        }
    }

    /// Built-in generic and object types: `vector<T, n>`, `matrix<T, r, c>`, textures, buffers,
    /// samplers, strings and the types OneShader knows but does not compile.
    fn builtin_template_type(
        &mut self,
        name: &str,
        args: Option<&'a [TemplateArg]>,
        span: Span,
    ) -> Option<TyId> {
        let a = args.unwrap_or(&[]);
        let f32t = self.types.float();
        let f4 = self.types.vector(Scalar::F32, 4);
        let elem = |s: &mut Self, i: usize, d: TyId| -> TyId {
            match a.get(i) {
                Some(x) => s.template_type_arg(x, d),
                None => d,
            }
        };
        let tex = |s: &mut Self, shape: TexShape, rw: bool| -> TyId {
            let e = elem(s, 0, f4);
            s.check_texel_type(e, span);
            s.types.intern(TyKind::Texture(shape, e, rw))
        };
        Some(match name {
            "vector" => {
                if a.is_empty() {
                    return Some(f4);
                }
                let e = elem(self, 0, f32t);
                let n = a.get(1).and_then(|x| self.template_int_arg(x)).unwrap_or(4);
                match self.types.scalar_of(e) {
                    Some(s) if (1..=4).contains(&n) => self.types.vector(s, n as u8),
                    _ => {
                        self.error(
                            "OSH1017",
                            span,
                            "`vector<T, N>` needs a scalar T and N in 1..4",
                        );
                        Types::ERROR
                    }
                }
            }
            "matrix" => {
                if a.is_empty() {
                    return Some(self.types.matrix(Scalar::F32, 4, 4));
                }
                let e = elem(self, 0, f32t);
                let r = a.get(1).and_then(|x| self.template_int_arg(x)).unwrap_or(4);
                let c = a.get(2).and_then(|x| self.template_int_arg(x)).unwrap_or(4);
                match self.types.scalar_of(e) {
                    Some(s) if (1..=4).contains(&r) && (1..=4).contains(&c) => {
                        self.types.matrix(s, r as u8, c as u8)
                    }
                    _ => {
                        self.error(
                            "OSH1017",
                            span,
                            "`matrix<T, R, C>` needs a scalar T and R, C in 1..4",
                        );
                        Types::ERROR
                    }
                }
            }
            "Texture1D" | "texture1D" => tex(self, TexShape::T1D, false),
            "Texture1DArray" => tex(self, TexShape::T1DArray, false),
            "Texture2D" | "texture2D" | "texture" | "Texture" => tex(self, TexShape::T2D, false),
            "Texture2DArray" => tex(self, TexShape::T2DArray, false),
            "Texture3D" | "texture3D" => tex(self, TexShape::T3D, false),
            "TextureCube" | "textureCUBE" => tex(self, TexShape::Cube, false),
            "TextureCubeArray" => tex(self, TexShape::CubeArray, false),
            "Texture2DMS" => tex(self, TexShape::T2DMS, false),
            "Texture2DMSArray" => tex(self, TexShape::T2DMSArray, false),
            "RWTexture1D" | "RasterizerOrderedTexture1D" => tex(self, TexShape::T1D, true),
            "RWTexture1DArray" | "RasterizerOrderedTexture1DArray" => {
                tex(self, TexShape::T1DArray, true)
            }
            "RWTexture2D" | "RasterizerOrderedTexture2D" => tex(self, TexShape::T2D, true),
            "RWTexture2DArray" | "RasterizerOrderedTexture2DArray" => {
                tex(self, TexShape::T2DArray, true)
            }
            "RWTexture3D" | "RasterizerOrderedTexture3D" => tex(self, TexShape::T3D, true),
            "RWTexture2DMS" => tex(self, TexShape::T2DMS, true),
            "RWTexture2DMSArray" => tex(self, TexShape::T2DMSArray, true),
            "Buffer" => tex(self, TexShape::Buffer, false),
            "RWBuffer" | "RasterizerOrderedBuffer" => tex(self, TexShape::Buffer, true),
            "SubpassInput" => tex(self, TexShape::Subpass, false),
            "SubpassInputMS" => tex(self, TexShape::SubpassMS, false),
            "StructuredBuffer"
            | "RWStructuredBuffer"
            | "RasterizerOrderedStructuredBuffer"
            | "AppendStructuredBuffer"
            | "ConsumeStructuredBuffer"
            | "ConstantBuffer"
            | "TextureBuffer" => {
                let kind = match name {
                    "StructuredBuffer" => BufKind::Structured,
                    "RWStructuredBuffer" | "RasterizerOrderedStructuredBuffer" => {
                        BufKind::RWStructured
                    }
                    "AppendStructuredBuffer" => BufKind::Append,
                    "ConsumeStructuredBuffer" => BufKind::Consume,
                    "ConstantBuffer" => BufKind::Constant,
                    _ => BufKind::TextureBuffer,
                };
                let e = match a.first() {
                    Some(x) => self.template_type_arg(x, Types::ERROR),
                    None => {
                        self.error(
                            "OSH1017",
                            span,
                            format!("`{name}` needs an element type: `{name}<T>`"),
                        );
                        Types::ERROR
                    }
                };
                if matches!(kind, BufKind::Constant | BufKind::TextureBuffer)
                    && !matches!(self.types.kind(e), TyKind::Struct(_) | TyKind::Error)
                {
                    self.error(
                        "OSH1017",
                        span,
                        format!("`{name}<T>` needs a struct T, not `{}`", self.types.name(e)),
                    );
                }
                self.types.intern(TyKind::Buffer(kind, e))
            }
            "ByteAddressBuffer" => self
                .types
                .intern(TyKind::Buffer(BufKind::ByteAddress, Types::VOID)),
            "RWByteAddressBuffer" | "RasterizerOrderedByteAddressBuffer" => self
                .types
                .intern(TyKind::Buffer(BufKind::RWByteAddress, Types::VOID)),
            "SamplerState" | "sampler" | "sampler1D" | "sampler2D" | "sampler3D"
            | "samplerCUBE" | "sampler_state" => self.types.intern(TyKind::Sampler(false)),
            "SamplerComparisonState" | "sampler2DShadow" => {
                self.types.intern(TyKind::Sampler(true))
            }
            "string" => self.types.intern(TyKind::String),
            "void" => Types::VOID,
            // A patch is an array of control points; the entry point's parameter records
            // which kind it was declared as (`ParamQual`).
            "InputPatch" | "OutputPatch" => {
                let e = match a.first() {
                    Some(x) => self.template_type_arg(x, Types::ERROR),
                    None => Types::ERROR,
                };
                let n = a.get(1).and_then(|x| self.template_int_arg(x));
                match n {
                    Some(n) if (1..=32).contains(&n) && !self.types.is_error(e) => {
                        self.types.array(e, n as u32)
                    }
                    _ => {
                        self.error(
                            "OSH1017",
                            span,
                            format!("`{name}<T, N>` needs a type T and N in 1..32"),
                        );
                        Types::ERROR
                    }
                }
            }
            "PointStream" | "LineStream" | "TriangleStream" => {
                let kind = match name {
                    "PointStream" => StreamKind::Point,
                    "LineStream" => StreamKind::Line,
                    _ => StreamKind::Triangle,
                };
                let e = match a.first() {
                    Some(x) => self.template_type_arg(x, Types::ERROR),
                    None => {
                        self.error(
                            "OSH1017",
                            span,
                            format!("`{name}` needs a vertex type: `{name}<T>`"),
                        );
                        Types::ERROR
                    }
                };
                self.types.intern(TyKind::Stream(kind, e))
            }
            "RaytracingAccelerationStructure" => self.types.intern(TyKind::AccelStruct),
            "RayDesc" => self.ray_desc(),
            "BuiltInTriangleIntersectionAttributes" => {
                let f2 = self.types.vector(Scalar::F32, 2);
                self.builtin_struct(
                    "BuiltInTriangleIntersectionAttributes",
                    &[("barycentrics", f2)],
                )
            }
            "RayQuery" => {
                let flags = match a.first() {
                    Some(x) => self.template_int_arg(x),
                    None => {
                        self.error("OSH1017", span, "`RayQuery<flags>` needs its ray flags");
                        None
                    }
                };
                let flags = flags.unwrap_or(0);
                if !(0..=u32::MAX as i128).contains(&flags) {
                    self.error(
                        "OSH1017",
                        span,
                        "`RayQuery` flags are a 32-bit unsigned value",
                    );
                }
                self.types.intern(TyKind::RayQuery(flags as u32))
            }
            "HitObject"
            | "FeedbackTexture2D"
            | "FeedbackTexture2DArray"
            | "uint8_t4_packed"
            | "int8_t4_packed"
            | "DispatchNodeInputRecord"
            | "RWDispatchNodeInputRecord"
            | "GroupNodeInputRecords"
            | "RWGroupNodeInputRecords"
            | "ThreadNodeInputRecord"
            | "RWThreadNodeInputRecord"
            | "EmptyNodeInput"
            | "NodeOutput"
            | "NodeOutputArray"
            | "EmptyNodeOutput"
            | "EmptyNodeOutputArray"
            | "GroupNodeOutputRecords"
            | "ThreadNodeOutputRecords"
            | "VertexShader"
            | "PixelShader"
            | "GeometryShader"
            | "HullShader"
            | "DomainShader"
            | "ComputeShader"
            | "BlendState"
            | "DepthStencilState"
            | "RasterizerState"
            | "vertexshader"
            | "pixelshader" => {
                // Template arguments are still resolved so errors inside them are reported.
                for x in a {
                    if let TemplateArg::Type(t) = x {
                        self.resolve_type(t);
                    }
                }
                self.types.intern(TyKind::Unsupported(name.to_string()))
            }
            _ => return None,
        })
    }

    fn check_texel_type(&mut self, e: TyId, span: Span) {
        match self.types.kind(e) {
            TyKind::Scalar(_) | TyKind::Vector(..) | TyKind::Error => {}
            TyKind::Struct(_) => {}
            _ => self.error(
                "OSH1017",
                span,
                format!(
                    "a texture element must be a scalar or vector, not `{}`",
                    self.types.name(e)
                ),
            ),
        }
    }

    // ---- templates ----------------------------------------------------------------------------

    /// Registers a template.
    pub fn add_template(
        &mut self,
        name: &str,
        body: TemplateBody<'a>,
        params: &'a [ast::TemplateParam],
        owner: Option<StructId>,
    ) -> TemplateId {
        let ns = self.scope_ns();
        self.templates.push(Template {
            name: name.to_string(),
            body,
            params,
            ns,
            owner,
            instances: FxHashMap::default(),
        });
        TemplateId(self.templates.len() as u32 - 1)
    }

    /// Resolves explicit template arguments (defaults filled in).
    pub fn resolve_template_args(
        &mut self,
        tid: TemplateId,
        args: &'a [TemplateArg],
        span: Span,
    ) -> Option<Vec<TArg>> {
        let params = self.templates[tid.0 as usize].params;
        if args.len() > params.len() {
            self.error(
                "OSH1017",
                span,
                format!(
                    "`{}` takes {} template argument(s), {} given",
                    self.templates[tid.0 as usize].name,
                    params.len(),
                    args.len()
                ),
            );
            return None;
        }
        let mut out = Vec::new();
        for (i, p) in params.iter().enumerate() {
            let a = match args.get(i).or(p.default.as_ref()) {
                Some(a) => a,
                None => {
                    self.error(
                        "OSH1017",
                        span,
                        format!(
                            "missing template argument for `{}`",
                            p.name.as_ref().map(|n| n.name.as_str()).unwrap_or("?")
                        ),
                    );
                    return None;
                }
            };
            if p.value_type.is_some() {
                out.push(TArg::Value(self.template_int_arg(a)?));
            } else {
                let t = self.template_type_arg(a, Types::ERROR);
                if self.types.is_error(t) {
                    return None;
                }
                out.push(TArg::Type(t));
            }
        }
        Some(out)
    }

    /// A scope binding a template's parameters to arguments.
    pub fn template_env(&mut self, tid: TemplateId, args: &[TArg]) -> NsId {
        let (parent, params) = {
            let t = &self.templates[tid.0 as usize];
            (t.ns, t.params)
        };
        let env = self.new_ns(Some(parent));
        for (p, a) in params.iter().zip(args) {
            let Some(name) = &p.name else { continue };
            let sym = match a {
                TArg::Type(t) => Sym::Type(*t, self.type_ns(*t)),
                TArg::Value(v) => {
                    let ty = match &p.value_type {
                        Some(vt) => {
                            // Earlier parameters are visible (`template<class T, T v>`).
                            let saved = self.cur_ns;
                            let saved_f = self.fctx.take();
                            self.cur_ns = env;
                            let t = self.resolve_type(vt);
                            self.cur_ns = saved;
                            self.fctx = saved_f;
                            t
                        }
                        None => self.types.int(),
                    };
                    Sym::Const(ty, ConstVal::Int(*v))
                }
            };
            self.nss[env.0 as usize]
                .names
                .insert(name.name.clone(), sym);
        }
        env
    }

    /// The member scope of a struct type.
    pub fn type_ns(&self, t: TyId) -> Option<NsId> {
        match self.types.kind(t) {
            TyKind::Struct(s) => self.struct_ns.get(s.0 as usize).copied(),
            _ => None,
        }
    }

    fn targs_text(&self, args: &[TArg]) -> String {
        args.iter()
            .map(|a| match a {
                TArg::Type(t) => self.types.name(*t),
                TArg::Value(v) => v.to_string(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Instantiates a struct template (memoized).
    pub fn instantiate_struct(&mut self, tid: TemplateId, args: Vec<TArg>, span: Span) -> TyId {
        if let Some(Sym::Type(t, _)) = self.templates[tid.0 as usize].instances.get(&args) {
            return *t;
        }
        if self.inst_depth > 32 {
            self.error("OSH1017", span, "template instantiation nested too deep");
            return Types::ERROR;
        }
        let decl = match self.templates[tid.0 as usize].body.clone() {
            TemplateBody::Struct(d) => d,
            TemplateBody::Alias(t) => {
                // An alias template: the aliased type with the parameters bound.
                let env = self.template_env(tid, &args);
                let saved_ns = self.cur_ns;
                let saved_f = self.fctx.take();
                self.cur_ns = env;
                self.inst_depth += 1;
                let ty = self.resolve_type(&t.ty);
                let ty = self.apply_sign(&t.modifiers, ty);
                let ty = match t.declarators.first() {
                    Some(d) => self.declarator_type(ty, d),
                    None => ty,
                };
                self.inst_depth -= 1;
                self.cur_ns = saved_ns;
                self.fctx = saved_f;
                let ns = self.type_ns(ty);
                self.templates[tid.0 as usize]
                    .instances
                    .insert(args, Sym::Type(ty, ns));
                return ty;
            }
            TemplateBody::Func(_) => return Types::ERROR,
        };
        let name = format!(
            "{}<{}>",
            self.templates[tid.0 as usize].name,
            self.targs_text(&args)
        );
        let env = self.template_env(tid, &args);
        let saved_ns = self.cur_ns;
        let saved_f = self.fctx.take();
        self.cur_ns = env;
        self.inst_depth += 1;
        let ty = self.declare_struct_named(decl, name, Some((tid, args.clone())));
        self.inst_depth -= 1;
        self.cur_ns = saved_ns;
        self.fctx = saved_f;
        ty
    }

    /// Instantiates a function template (memoized); its body is checked now.
    pub fn instantiate_func(
        &mut self,
        tid: TemplateId,
        args: Vec<TArg>,
        span: Span,
    ) -> Option<FuncId> {
        if let Some(Sym::Overloads(f, _)) = self.templates[tid.0 as usize].instances.get(&args) {
            return f.first().copied();
        }
        if self.inst_depth > 32 {
            self.error("OSH1017", span, "template instantiation nested too deep");
            return None;
        }
        let TemplateBody::Func(decl) = self.templates[tid.0 as usize].body.clone() else {
            return None;
        };
        let owner = self.templates[tid.0 as usize].owner;
        let env = self.template_env(tid, &args);
        let saved_ns = self.cur_ns;
        let saved_f = self.fctx.take();
        self.cur_ns = env;
        self.inst_depth += 1;
        let is_static = decl
            .modifiers
            .iter()
            .any(|m| m.modifier == Modifier::Static);
        let name = format!(
            "{}<{}>",
            self.templates[tid.0 as usize].name,
            self.targs_text(&args)
        );
        let fid = self.declare_func_sig(decl, env, owner, is_static, Some(name));
        self.templates[tid.0 as usize]
            .instances
            .insert(args, Sym::Overloads(vec![fid], vec![]));
        self.check_body(fid);
        self.inst_depth -= 1;
        self.cur_ns = saved_ns;
        self.fctx = saved_f;
        Some(fid)
    }

    // ---- declarations -------------------------------------------------------------------------

    /// Processes a list of declarations in the current namespace.
    pub fn declare_all(&mut self, decls: &'a [ast::Decl]) {
        for d in decls {
            if self.too_many_errors() {
                return;
            }
            self.update_pragma_major(d.span);
            self.declare_decl(d);
        }
    }

    fn update_pragma_major(&mut self, span: Span) {
        for &(ps, m) in &self.pragma_majors {
            if ps.file == span.file && ps.start <= span.start {
                self.cur_major = m;
            }
        }
    }

    fn declare_decl(&mut self, d: &'a ast::Decl) {
        match &d.kind {
            DeclKind::Var(v) => self.declare_global_var(v),
            DeclKind::Function(f) => self.declare_function(f),
            DeclKind::Struct(s) => {
                self.declare_struct(s, None);
            }
            DeclKind::Buffer(b) => self.declare_cbuffer(b),
            DeclKind::Typedef(t) => self.declare_typedef(t),
            DeclKind::Enum(e) => self.declare_enum(e),
            DeclKind::Namespace(n) => {
                let saved = self.cur_ns;
                match &n.name {
                    Some(p) => {
                        for seg in &p.segments {
                            let existing = self.lookup_in(self.cur_ns, &seg.name);
                            let ns = match existing {
                                Some(Sym::Namespace(ns)) => ns,
                                _ => {
                                    let ns = self.new_ns(Some(self.cur_ns));
                                    let cur = self.cur_ns;
                                    self.declare(cur, &seg.name, Sym::Namespace(ns), seg.span);
                                    ns
                                }
                            };
                            self.cur_ns = ns;
                        }
                    }
                    None => {
                        // An anonymous namespace: its names are visible in the enclosing one.
                        let ns = self.new_ns(Some(self.cur_ns));
                        let cur = self.cur_ns;
                        self.nss[cur.0 as usize].usings.push(ns);
                        self.cur_ns = ns;
                    }
                }
                self.declare_all(&n.decls);
                self.cur_ns = saved;
            }
            DeclKind::UsingNamespace(p) => match self.lookup_path(p) {
                Some(Sym::Namespace(ns)) => {
                    let cur = self.scope_ns();
                    self.nss[cur.0 as usize].usings.push(ns);
                }
                _ => self.error(
                    "OSH1001",
                    p.span,
                    format!("unknown namespace `{}`", p.to_text()),
                ),
            },
            DeclKind::Using(p) => match self.lookup_path(p) {
                Some(sym) => {
                    let name = p.last().name.clone();
                    self.declare_here(&name, sym, p.span);
                }
                None => self.error(
                    "OSH1001",
                    p.span,
                    format!("undefined name `{}`", p.to_text()),
                ),
            },
            DeclKind::StaticAssert { cond, message } => {
                let h = self.check_expr(cond);
                if !self.types.is_error(h.ty) {
                    match self.eval_const(&h) {
                        Some(v) if !v.as_bool() => {
                            let msg = match message.as_ref().map(|m| &m.kind) {
                                Some(ast::ExprKind::Literal(ast::Literal::String(s))) => s.clone(),
                                _ => "static assertion failed".into(),
                            };
                            self.error("OSH1012", cond.span, format!("static_assert: {msg}"));
                        }
                        Some(_) => {}
                        None => self.error(
                            "OSH1012",
                            cond.span,
                            "static_assert needs a constant expression",
                        ),
                    }
                }
            }
            DeclKind::Technique { .. } | DeclKind::Empty | DeclKind::Error => {}
        }
    }

    /// The matrix order of a declaration: its `row_major`/`column_major` modifier, else the
    /// order of the `#pragma pack_matrix` in effect when it differs from the command line's
    /// default (`None`: the default).
    pub fn major_of(&self, mods: &[ast::ModifierSpan]) -> Option<Major> {
        let mut r = None;
        for m in mods {
            match m.modifier {
                Modifier::RowMajor => r = Some(Major::Row),
                Modifier::ColumnMajor => r = Some(Major::Column),
                _ => {}
            }
        }
        r.or((self.cur_major != self.opts.default_major).then_some(self.cur_major))
    }

    /// The `row_major`/`column_major` modifier among `mods`, if any.
    fn explicit_major(mods: &[ast::ModifierSpan]) -> Option<Major> {
        mods.iter().rev().find_map(|m| match m.modifier {
            Modifier::RowMajor => Some(Major::Row),
            Modifier::ColumnMajor => Some(Major::Column),
            _ => None,
        })
    }

    /// The order written on a template's element type: `row_major` in
    /// `StructuredBuffer<row_major float3x3>`.
    fn elem_major(ty: &ast::TypeExpr) -> Option<Major> {
        let TypeKind::Named {
            args: Some(args), ..
        } = &ty.kind
        else {
            return None;
        };
        match args.first() {
            Some(TemplateArg::Type(t)) => match &t.kind {
                TypeKind::Modified { modifiers, .. } => Self::explicit_major(modifiers),
                _ => None,
            },
            _ => None,
        }
    }

    /// Applies `unsigned`/`signed` modifiers.
    pub fn apply_sign(&mut self, mods: &[ast::ModifierSpan], ty: TyId) -> TyId {
        if mods.iter().any(|m| m.modifier == Modifier::Unsigned) {
            self.make_unsigned(ty)
        } else {
            ty
        }
    }

    /// The declared type of one declarator: base type plus array dimensions.
    pub fn declarator_type(&mut self, base: TyId, d: &'a ast::Declarator) -> TyId {
        let mut ty = base;
        for dim in d.array_dims.iter().rev() {
            ty = self.array_of(ty, dim);
        }
        ty
    }

    fn has_mod(mods: &[ast::ModifierSpan], m: Modifier) -> bool {
        mods.iter().any(|x| x.modifier == m)
    }

    fn declare_global_var(&mut self, v: &'a ast::VarDecl) {
        let base = self.resolve_type(&v.ty);
        let base = self.apply_sign(&v.modifiers, base);
        let is_static = Self::has_mod(&v.modifiers, Modifier::Static);
        let is_const = Self::has_mod(&v.modifiers, Modifier::Const);
        let groupshared = Self::has_mod(&v.modifiers, Modifier::Groupshared);
        // `StructuredBuffer<row_major float3x3>`: the order written on the element type.
        let major = Self::elem_major(&v.ty)
            .or_else(|| Self::explicit_major(&v.modifiers))
            .or_else(|| self.major_of(&v.modifiers));
        let push_constant = v
            .attributes
            .iter()
            .any(|a| attr_is(a, "vk", "push_constant"));
        let shader_record = v.attributes.iter().find(|a| {
            attr_is(a, "vk", "shader_record_ext") || attr_is(a, "vk", "shader_record_nv")
        });
        let spec_id = v
            .attributes
            .iter()
            .find(|a| attr_is(a, "vk", "constant_id"))
            .map(|a| (a, self.attr_u32_args(a)));
        for d in &v.declarators {
            let ty = self.declarator_type(base, d);
            if let Some(q) = &d.qualifier {
                // `float S::x = 1;`: the definition of a static member.
                self.define_static_member(q, d, ty);
                continue;
            }
            let mut bind = self.bind_attrs(&v.attributes, &d.annotations);
            bind.coherent = Self::has_mod(&v.modifiers, Modifier::GloballyCoherent);
            if self.is_split_type(ty) {
                // A struct holding resources: one global per field.
                let id = self.make_split(
                    &d.name.name,
                    ty,
                    super::sema_split::SplitKind::Global,
                    &bind,
                    d.span,
                );
                let ns = self.cur_ns;
                self.declare(ns, &d.name.name, Sym::Split(id), d.name.span);
                continue;
            }
            let is_res = self.types.is_resource(ty);
            let cbuf_like = matches!(
                self.types.kind(self.strip_arrays(ty)),
                TyKind::Buffer(BufKind::Constant | BufKind::TextureBuffer, _)
            );
            if push_constant && !self.check_push_constant(ty, &bind, d) {
                continue;
            }
            if let Some(a) = shader_record
                && !cbuf_like
            {
                self.error(
                    "OSH1029",
                    a.span,
                    format!(
                        "`[[vk::{}]]` applies to a `ConstantBuffer<T>` or a `cbuffer`, not a `{}`",
                        a.name.name,
                        self.types.name(ty)
                    ),
                );
                continue;
            }
            let (kind, gty) = if cbuf_like && shader_record.is_some() {
                (GlobalKind::ShaderRecord, self.unwrap_cbuffer_type(ty).0)
            } else if cbuf_like && push_constant {
                // `[[vk::push_constant]] ConstantBuffer<T> pc;` is a push-constant block of a `T`.
                (GlobalKind::PushConstant, self.unwrap_cbuffer_type(ty).0)
            } else if cbuf_like {
                // `ConstantBuffer<T> cb;` is a constant buffer whose value is a `T`.
                let (inner, tbuffer) = self.unwrap_cbuffer_type(ty);
                (GlobalKind::CBuffer { tbuffer }, inner)
            } else if let Some((attr, ids)) = &spec_id {
                let id = ids.first().copied().unwrap_or(0);
                let default = match &d.init {
                    Some(e) => {
                        let h = self.check_expr(e);
                        let h = self.convert(h, ty, e.span);
                        self.eval_const(&h).unwrap_or(ConstVal::Int(0))
                    }
                    None => {
                        self.error(
                            "OSH1025",
                            attr.span,
                            "a specialization constant needs a default value",
                        );
                        ConstVal::Int(0)
                    }
                };
                let Some(s) = self
                    .types
                    .scalar_of(ty)
                    .filter(|_| matches!(self.types.kind(ty), TyKind::Scalar(_)))
                else {
                    self.error(
                        "OSH1025",
                        attr.span,
                        "a specialization constant must be a scalar",
                    );
                    continue;
                };
                (
                    GlobalKind::SpecConst {
                        id,
                        default: default.convert(s),
                    },
                    ty,
                )
            } else if push_constant {
                (GlobalKind::PushConstant, ty)
            } else if groupshared {
                (GlobalKind::Groupshared, ty)
            } else if is_res || matches!(self.types.kind(ty), TyKind::Unsupported(_)) {
                (GlobalKind::Resource, ty)
            } else if is_static || (is_const && d.init.is_some()) {
                (GlobalKind::Static, ty)
            } else if matches!(self.types.kind(ty), TyKind::String) {
                (GlobalKind::Const, ty)
            } else {
                // A loose global: a member of the implicit `$Globals` constant buffer.
                if d.init.is_some() {
                    self.warn(
                        "OSH1028",
                        d.span,
                        format!(
                            "the initializer of `{}` is ignored: a global without `static` is a \
                             constant-buffer member set by the application",
                            d.name.name
                        ),
                    );
                }
                self.add_loose_uniform(d, ty, major);
                continue;
            };
            let mut g = GlobalDef {
                name: d.name.name.clone(),
                ty: gty,
                kind,
                major,
                bind,
                init: None,
                const_value: None,
                span: d.span,
            };
            if matches!(g.kind, GlobalKind::Static)
                && let Some(init) = &d.init
            {
                let h = self.check_initializer(init, ty);
                if matches!(self.types.kind(ty), TyKind::UnsizedArray(_)) {
                    g.ty = h.ty;
                }
                if is_const && let Some(v) = self.eval_const(&h) {
                    g.const_value = Some(v);
                    g.kind = GlobalKind::Const;
                }
                g.init = Some(h);
            }
            self.globals.push(g);
            let gid = GlobalId(self.globals.len() as u32 - 1);
            let ns = self.cur_ns;
            self.declare(ns, &d.name.name, Sym::Global(gid), d.name.span);
        }
    }

    /// Checks a `[[vk::push_constant]]` global, as DXC does: a struct or a
    /// `ConstantBuffer<T>` (not an array, not a texture buffer), without `vk::binding`, and one
    /// per program. False (after an error) when it is not one.
    fn check_push_constant(&mut self, ty: TyId, bind: &BindAttrs, d: &'a ast::Declarator) -> bool {
        let fits = match self.types.kind(ty) {
            TyKind::Struct(_) => true,
            TyKind::Buffer(BufKind::Constant, e) => {
                matches!(self.types.kind(*e), TyKind::Struct(_))
            }
            _ => false,
        };
        if !fits {
            let ty_name = self.types.name(ty);
            self.error(
                "OSH1029",
                d.span,
                format!(
                    "`[[vk::push_constant]]` applies to a global of struct type or a \
                     `ConstantBuffer<T>`, not to `{}` of type `{ty_name}`",
                    d.name.name
                ),
            );
            return false;
        }
        if bind.vk_binding.is_some() {
            self.error(
                "OSH1029",
                d.span,
                format!(
                    "`{}`: `[[vk::push_constant]]` cannot be used together with `[[vk::binding]]`",
                    d.name.name
                ),
            );
            return false;
        }
        if let Some(prev) = self.push_constant_at {
            let diag = Diagnostic::error(
                "OSH1029",
                format!(
                    "`{}`: a second push-constant block; a shader has at most one",
                    d.name.name
                ),
            )
            .with_span(d.span)
            .with_label(prev, "the first push-constant block");
            self.push_diag(diag);
            return false;
        }
        self.push_constant_at = Some(d.span);
        true
    }

    /// `ConstantBuffer<T>` (or an array of them) to (`T` or `T[n]`, is-texture-buffer).
    fn unwrap_cbuffer_type(&mut self, ty: TyId) -> (TyId, bool) {
        match self.types.kind(ty).clone() {
            TyKind::Buffer(k, e) => (e, k == BufKind::TextureBuffer),
            TyKind::Array(e, n) => {
                let (inner, tb) = self.unwrap_cbuffer_type(e);
                (self.types.array(inner, n), tb)
            }
            TyKind::UnsizedArray(e) => {
                let (inner, tb) = self.unwrap_cbuffer_type(e);
                (self.types.intern(TyKind::UnsizedArray(inner)), tb)
            }
            _ => (ty, false),
        }
    }

    /// The element type under array dimensions.
    pub fn strip_arrays(&self, mut ty: TyId) -> TyId {
        loop {
            match self.types.kind(ty) {
                TyKind::Array(e, _) | TyKind::UnsizedArray(e) => ty = *e,
                _ => return ty,
            }
        }
    }

    fn add_loose_uniform(&mut self, d: &'a ast::Declarator, ty: TyId, major: Option<Major>) {
        let offset = self.packoffset(&d.annotations);
        // `float x : register(c3);` places `x` at 48 bytes (DXC honours it under every layout
        // rule); the profile form `register(vs_5_0, c3)` too.
        let register_c = d.annotations.iter().find_map(|a| match a {
            ast::PostAnnotation::Register { args, span } => args.iter().find_map(|r| {
                let n = r.name.to_ascii_lowercase();
                n.strip_prefix('c')
                    .and_then(|k| k.parse::<u32>().ok())
                    .map(|k| (k, *span))
            }),
            _ => None,
        });
        let (g, idx) = self.add_globals_member(&d.name.name, ty, major, d.span);
        if let TyKind::Struct(sid) = self.types.kind(self.globals[g.0 as usize].ty).clone() {
            if let Some((k, span)) = register_c {
                let prev = self.types.structs[sid.0 as usize]
                    .fields
                    .iter()
                    .find(|f| f.register_c == Some(k))
                    .map(|f| (f.name.clone(), f.span));
                if let Some((name, at)) = prev {
                    let diag = Diagnostic::error(
                        "OSH1029",
                        format!(
                            "`{}` at register(c{k}) overlaps `{name}`, already at that register",
                            d.name.name
                        ),
                    )
                    .with_span(span)
                    .with_label(at, "the member already at that register");
                    self.push_diag(diag);
                } else if k.checked_mul(16).is_none() {
                    self.error("OSH1025", span, format!("register(c{k}) is out of range"));
                } else {
                    self.types.structs[sid.0 as usize].fields[idx as usize].register_c = Some(k);
                }
            }
            if let Some(off) = offset {
                self.types.structs[sid.0 as usize].fields[idx as usize].offset = Some(off);
            }
        }
        let ns = self.cur_ns;
        self.declare(ns, &d.name.name, Sym::CBufMember(g, idx), d.name.span);
    }

    /// Adds a member to the implicit `$Globals` constant buffer (made on first use); returns
    /// the buffer and the member's index.
    pub fn add_globals_member(
        &mut self,
        name: &str,
        ty: TyId,
        major: Option<Major>,
        span: Span,
    ) -> (GlobalId, u32) {
        let g = match self.globals_cbuffer {
            Some(g) => g,
            None => {
                let sid = StructId(self.types.structs.len() as u32);
                self.types.structs.push(StructDef {
                    name: "type.$Globals".into(),
                    fields: Vec::new(),
                    bitfields: Vec::new(),
                    bases: Vec::new(),
                    span,
                });
                let ns = self.new_ns(None);
                self.struct_ns.push(ns);
                let sty = self.types.intern(TyKind::Struct(sid));
                self.globals.push(GlobalDef {
                    name: "$Globals".into(),
                    ty: sty,
                    kind: GlobalKind::CBuffer { tbuffer: false },
                    major: None,
                    bind: BindAttrs::default(),
                    init: None,
                    const_value: None,
                    span,
                });
                let g = GlobalId(self.globals.len() as u32 - 1);
                self.globals_cbuffer = Some(g);
                g
            }
        };
        let TyKind::Struct(sid) = self.types.kind(self.globals[g.0 as usize].ty).clone() else {
            return (g, 0);
        };
        let fields = &mut self.types.structs[sid.0 as usize].fields;
        fields.push(FieldDef {
            name: name.to_string(),
            ty,
            major,
            io: IoAttrs::default(),
            offset: None,
            register_c: None,
            span,
        });
        (g, fields.len() as u32 - 1)
    }

    /// `packoffset(cN.x)` in bytes.
    pub fn packoffset(&mut self, annotations: &'a [ast::PostAnnotation]) -> Option<u32> {
        for a in annotations {
            if let ast::PostAnnotation::PackOffset {
                register,
                component,
                span,
            } = a
            {
                let r = register.name.to_ascii_lowercase();
                let Some(n) = r.strip_prefix('c').and_then(|n| n.parse::<u32>().ok()) else {
                    self.error("OSH1025", *span, "packoffset needs a register `cN`");
                    return None;
                };
                let comp = match component.as_ref().map(|c| c.name.to_ascii_lowercase()) {
                    None => 0,
                    Some(c) => match c.as_str() {
                        "x" | "r" => 0,
                        "y" | "g" => 1,
                        "z" | "b" => 2,
                        "w" | "a" => 3,
                        _ => {
                            self.error(
                                "OSH1025",
                                *span,
                                "packoffset component must be x, y, z or w",
                            );
                            0
                        }
                    },
                };
                return Some(n * 16 + comp * 4);
            }
        }
        None
    }

    fn define_static_member(&mut self, q: &'a ast::TypeExpr, d: &'a ast::Declarator, ty: TyId) {
        let owner = self.resolve_type(q);
        let Some(ns) = self.type_ns(owner) else {
            return;
        };
        match self.lookup_in(ns, &d.name.name) {
            Some(Sym::Global(g)) => {
                if let Some(init) = &d.init {
                    let saved = self.cur_ns;
                    self.cur_ns = ns;
                    let h = self.check_initializer(init, ty);
                    self.cur_ns = saved;
                    let g = &mut self.globals[g.0 as usize];
                    if matches!(g.kind, GlobalKind::Const | GlobalKind::Static) {
                        g.init = Some(h);
                    }
                }
            }
            _ => self.error(
                "OSH1009",
                d.name.span,
                format!(
                    "`{}` has no static member `{}`",
                    self.types.name(owner),
                    d.name.name
                ),
            ),
        }
    }

    fn declare_typedef(&mut self, t: &'a ast::TypedefDecl) {
        if let Some(h) = t.templates.last()
            && !h.params.is_empty()
        {
            for d in &t.declarators {
                let tid = self.add_template(&d.name.name, TemplateBody::Alias(t), &h.params, None);
                self.declare_here(&d.name.name, Sym::StructTemplate(tid), d.name.span);
            }
            return;
        }
        let base = self.resolve_type(&t.ty);
        let base = self.apply_sign(&t.modifiers, base);
        for d in &t.declarators {
            let ty = self.declarator_type(base, d);
            let ns = self.type_ns(ty);
            self.declare_here(&d.name.name, Sym::Type(ty, ns), d.name.span);
        }
    }

    fn declare_enum(&mut self, e: &'a ast::EnumDecl) {
        let base = match &e.base {
            Some(b) => self.resolve_type(b),
            None => self.types.int(),
        };
        let scope = self.new_ns(Some(self.scope_ns()));
        let mut next: i128 = 0;
        for v in &e.variants {
            let val = match &v.value {
                Some(x) => self.const_int_expr(x).unwrap_or(next),
                None => next,
            };
            next = val.wrapping_add(1);
            let sym = Sym::Const(base, ConstVal::Int(val));
            self.nss[scope.0 as usize]
                .names
                .insert(v.name.name.clone(), sym.clone());
            if !e.scoped {
                self.declare_here(&v.name.name, sym, v.name.span);
            }
        }
        if let Some(n) = &e.name {
            self.declare_here(&n.name, Sym::Type(base, Some(scope)), n.span);
        }
    }

    fn declare_cbuffer(&mut self, b: &'a ast::BufferDecl) {
        let sid = StructId(self.types.structs.len() as u32);
        self.types.structs.push(StructDef {
            name: format!("type.{}", b.name.name),
            fields: Vec::new(),
            bitfields: Vec::new(),
            bases: Vec::new(),
            span: b.span,
        });
        let sns = self.new_ns(None);
        self.struct_ns.push(sns);
        let sty = self.types.intern(TyKind::Struct(sid));
        let bind = self.bind_attrs(&b.attributes, &b.annotations);
        let shader_record = b
            .attributes
            .iter()
            .any(|a| attr_is(a, "vk", "shader_record_ext") || attr_is(a, "vk", "shader_record_nv"));
        self.globals.push(GlobalDef {
            name: b.name.name.clone(),
            ty: sty,
            kind: if shader_record && b.keyword == ast::BufferKeyword::CBuffer {
                GlobalKind::ShaderRecord
            } else {
                GlobalKind::CBuffer {
                    tbuffer: b.keyword == ast::BufferKeyword::TBuffer,
                }
            },
            major: None,
            bind,
            init: None,
            const_value: None,
            span: b.span,
        });
        let g = GlobalId(self.globals.len() as u32 - 1);
        if let Some(a) = b
            .attributes
            .iter()
            .find(|a| attr_is(a, "vk", "push_constant"))
        {
            // DXC accepts the attribute only on struct-typed globals; a `cbuffer` would
            // silently stay a uniform buffer.
            self.error(
                "OSH1029",
                a.span,
                format!(
                    "`[[vk::push_constant]]` does not apply to a `{}`: declare \
                     `[[vk::push_constant]] ConstantBuffer<T> {};` (or a global of struct type) \
                     instead",
                    if b.keyword == ast::BufferKeyword::TBuffer {
                        "tbuffer"
                    } else {
                        "cbuffer"
                    },
                    b.name.name
                ),
            );
        }
        for m in &b.members {
            match &m.kind {
                DeclKind::Var(v) => {
                    let base = self.resolve_type(&v.ty);
                    let base = self.apply_sign(&v.modifiers, base);
                    let major = self.major_of(&v.modifiers);
                    if Self::has_mod(&v.modifiers, Modifier::Static) {
                        // A static inside a cbuffer is an ordinary static global.
                        self.declare_global_var(v);
                        continue;
                    }
                    for d in &v.declarators {
                        let ty = self.declarator_type(base, d);
                        if self.types.contains_resource(ty) {
                            // DXC moves resources declared in a cbuffer out of it.
                            let bind = self.bind_attrs(&v.attributes, &d.annotations);
                            self.globals.push(GlobalDef {
                                name: d.name.name.clone(),
                                ty,
                                kind: GlobalKind::Resource,
                                major,
                                bind,
                                init: None,
                                const_value: None,
                                span: d.span,
                            });
                            let rg = GlobalId(self.globals.len() as u32 - 1);
                            let ns = self.cur_ns;
                            self.declare(ns, &d.name.name, Sym::Global(rg), d.name.span);
                            continue;
                        }
                        let offset = self.packoffset(&d.annotations);
                        let fields = &mut self.types.structs[sid.0 as usize].fields;
                        fields.push(FieldDef {
                            name: d.name.name.clone(),
                            ty,
                            major,
                            io: IoAttrs::default(),
                            offset,
                            register_c: None,
                            span: d.span,
                        });
                        let idx = fields.len() as u32 - 1;
                        let ns = self.cur_ns;
                        self.declare(ns, &d.name.name, Sym::CBufMember(g, idx), d.name.span);
                    }
                }
                DeclKind::Struct(s) => {
                    self.declare_struct(s, None);
                }
                DeclKind::Typedef(t) => self.declare_typedef(t),
                DeclKind::Function(f) => self.declare_function(f),
                DeclKind::Empty | DeclKind::Error => {}
                _ => self.declare_decl(m),
            }
        }
    }

    /// Adds bit field `d` of type `ty` and width `width` to struct `sid`: into the open
    /// storage field when it has the same type and room for it (DXC's packing), else into a
    /// new storage field named after it.
    fn add_bitfield(
        &mut self,
        sid: StructId,
        d: &'a ast::Declarator,
        ty: TyId,
        width: &'a ast::Expr,
        open: &mut Option<(TyId, u32)>,
    ) {
        if self.opts.hlsl_version < 2021 {
            self.error(
                "OSH1030",
                d.span,
                format!(
                    "bit field `{}`: bit fields need HLSL 2021 (`-HV 2021`)",
                    d.name.name
                ),
            );
            return;
        }
        let bits = match self.types.kind(ty) {
            TyKind::Scalar(s) if s.is_int() => s.concrete().bits(),
            _ => {
                let t = self.types.name(ty);
                self.error(
                    "OSH1030",
                    d.span,
                    format!(
                        "bit field `{}` has type `{t}`; bit fields are integer scalars",
                        d.name.name
                    ),
                );
                return;
            }
        };
        let h = self.check_expr(width);
        let w = match self.eval_const(&h) {
            Some(v) => v.as_int(),
            None => {
                self.error(
                    "OSH1012",
                    width.span,
                    "a bit-field width must be a constant",
                );
                return;
            }
        };
        if w <= 0 || w > bits as i128 {
            self.error(
                "OSH1030",
                width.span,
                format!(
                    "bit field `{}`: a width of {w} does not fit its {bits}-bit type",
                    d.name.name
                ),
            );
            return;
        }
        let w = w as u32;
        let def = &mut self.types.structs[sid.0 as usize];
        let (storage, offset) = match *open {
            Some((t, next)) if t == ty && next + w <= bits && !def.fields.is_empty() => {
                (def.fields.len() as u32 - 1, next)
            }
            _ => {
                def.fields.push(FieldDef {
                    name: d.name.name.clone(),
                    ty,
                    major: None,
                    io: IoAttrs::default(),
                    offset: None,
                    register_c: None,
                    span: d.span,
                });
                (def.fields.len() as u32 - 1, 0)
            }
        };
        def.bitfields.push(BitFieldDef {
            name: d.name.name.clone(),
            ty,
            storage,
            offset,
            width: w,
            span: d.span,
        });
        *open = Some((ty, offset + w));
    }

    /// Declares a struct (named or anonymous); returns its type.
    pub fn declare_struct(&mut self, s: &'a ast::StructDecl, _hint: Option<&str>) -> TyId {
        if !s.templates.is_empty() && s.templates.iter().any(|t| !t.params.is_empty()) {
            let Some(name) = &s.name else {
                return Types::ERROR;
            };
            let params = &s.templates[s.templates.len() - 1].params;
            let owner = self.nss[self.scope_ns().0 as usize].owner;
            let tid = self.add_template(&name.name, TemplateBody::Struct(s), params, owner);
            self.declare_here(&name.name, Sym::StructTemplate(tid), name.span);
            return Types::ERROR;
        }
        let name = match &s.name {
            Some(n) => n.name.clone(),
            None => format!("anon.{}", self.types.structs.len()),
        };
        if s.members.is_none() {
            // A forward declaration: the type exists once defined.
            if let Some(Sym::Type(t, _)) = self.lookup(&name) {
                return t;
            }
        } else if let (Some(n), Some(Sym::Type(t, _))) =
            (&s.name, self.lookup_in(self.scope_ns(), &name))
            && let TyKind::Struct(sid) = self.types.kind(t).clone()
            && self.types.structs[sid.0 as usize].fields.is_empty()
            && self.struct_is_forward(sid)
        {
            // The definition of a forward-declared struct.
            let _ = n;
            return self.fill_struct(sid, s);
        }
        self.declare_struct_named(s, name, None)
    }

    fn struct_is_forward(&self, sid: StructId) -> bool {
        self.types.structs[sid.0 as usize]
            .name
            .ends_with("\u{0}fwd")
    }

    /// Declares a struct under `name` (template instances pass their own).
    pub fn declare_struct_named(
        &mut self,
        s: &'a ast::StructDecl,
        name: String,
        instance: Option<(TemplateId, Vec<TArg>)>,
    ) -> TyId {
        let sid = StructId(self.types.structs.len() as u32);
        let forward = s.members.is_none();
        self.types.structs.push(StructDef {
            name: if forward {
                format!("{name}\u{0}fwd")
            } else {
                name.clone()
            },
            fields: Vec::new(),
            bitfields: Vec::new(),
            bases: Vec::new(),
            span: s.span,
        });
        let parent = self.scope_ns();
        let sns = self.new_ns(Some(parent));
        self.nss[sns.0 as usize].owner = Some(sid);
        self.struct_ns.push(sns);
        let ty = self.types.intern(TyKind::Struct(sid));
        if let Some((tid, args)) = instance {
            self.templates[tid.0 as usize]
                .instances
                .insert(args.clone(), Sym::Type(ty, Some(sns)));
            self.struct_instance.insert(sid, (tid, args));
            // The template's own name inside its body names this instance.
            let tname = self.templates[tid.0 as usize].name.clone();
            self.nss[sns.0 as usize]
                .names
                .insert(tname, Sym::Type(ty, Some(sns)));
        } else if let Some(n) = &s.name {
            self.declare_here(&n.name, Sym::Type(ty, Some(sns)), n.span);
        }
        if forward {
            return ty;
        }
        self.fill_struct(sid, s)
    }

    fn fill_struct(&mut self, sid: StructId, s: &'a ast::StructDecl) -> TyId {
        let ty = self.types.intern(TyKind::Struct(sid));
        let sns = self.struct_ns[sid.0 as usize];
        {
            let name = &mut self.types.structs[sid.0 as usize].name;
            if let Some(stripped) = name.strip_suffix("\u{0}fwd") {
                *name = stripped.to_string();
            }
        }
        // Bases: their fields come first, their members are visible.
        for b in &s.bases {
            let bt = self.resolve_type(b);
            match self.types.kind(bt).clone() {
                TyKind::Struct(bs) => {
                    let fields = self.types.structs[bs.0 as usize].fields.clone();
                    // A base's bit fields keep their storage: the base's fields come first.
                    let mut bits = self.types.structs[bs.0 as usize].bitfields.clone();
                    let at = self.types.structs[sid.0 as usize].fields.len() as u32;
                    for b in &mut bits {
                        b.storage += at;
                    }
                    self.types.structs[sid.0 as usize].fields.extend(fields);
                    self.types.structs[sid.0 as usize].bitfields.extend(bits);
                    self.types.structs[sid.0 as usize].bases.push(bs);
                    let bns = self.struct_ns[bs.0 as usize];
                    self.nss[sns.0 as usize].bases.push(bns);
                }
                TyKind::Error => {}
                _ => self.error(
                    "OSH1002",
                    b.span,
                    format!("a base must be a struct, not `{}`", self.types.name(bt)),
                ),
            }
        }
        let Some(members) = &s.members else {
            return ty;
        };
        let saved = self.cur_ns;
        self.cur_ns = sns;
        // The open bit-field storage: (its type, the next free bit).
        let mut open_bits: Option<(TyId, u32)> = None;
        for m in members {
            if self.too_many_errors() {
                break;
            }
            match &m.kind {
                DeclKind::Var(v) => {
                    let is_static = Self::has_mod(&v.modifiers, Modifier::Static);
                    if is_static {
                        self.declare_global_var(v);
                        continue;
                    }
                    let base = self.resolve_type(&v.ty);
                    let base = self.apply_sign(&v.modifiers, base);
                    let major = self.major_of(&v.modifiers);
                    let interp = interp_of(&v.modifiers);
                    for d in &v.declarators {
                        let fty = self.declarator_type(base, d);
                        if fty == ty {
                            self.error("OSH1002", d.span, "a struct cannot contain itself");
                            continue;
                        }
                        if let Some(width) = d.annotations.iter().find_map(|a| match a {
                            ast::PostAnnotation::BitField { width } => Some(width),
                            _ => None,
                        }) {
                            self.add_bitfield(sid, d, fty, width, &mut open_bits);
                            continue;
                        }
                        open_bits = None;
                        let mut io = self.io_attrs(&v.attributes, &d.annotations);
                        io.interp = interp;
                        io.invariant = Self::has_mod(&v.modifiers, Modifier::Precise);
                        let offset = self.packoffset(&d.annotations).or_else(|| {
                            v.attributes
                                .iter()
                                .find(|a| attr_is(a, "vk", "offset"))
                                .and_then(|a| self.attr_u32_args(a).first().copied())
                        });
                        self.types.structs[sid.0 as usize].fields.push(FieldDef {
                            name: d.name.name.clone(),
                            ty: fty,
                            major,
                            io,
                            offset,
                            register_c: None,
                            span: d.span,
                        });
                    }
                }
                DeclKind::Function(f) => self.declare_method(f, sid),
                DeclKind::Struct(inner) => {
                    self.declare_struct(inner, None);
                }
                DeclKind::Typedef(t) => self.declare_typedef(t),
                DeclKind::Enum(e) => self.declare_enum(e),
                DeclKind::Empty | DeclKind::Error => {}
                _ => self.declare_decl(m),
            }
        }
        self.cur_ns = saved;
        ty
    }

    fn declare_method(&mut self, f: &'a ast::FunctionDecl, sid: StructId) {
        let is_static = f.modifiers.iter().any(|m| m.modifier == Modifier::Static);
        if f.templates.iter().any(|t| !t.params.is_empty()) {
            let params = &f.templates[f.templates.len() - 1].params;
            let tid = self.add_template(&f.name.name, TemplateBody::Func(f), params, Some(sid));
            self.declare_here(&f.name.name, Sym::Overloads(vec![], vec![tid]), f.name.span);
            return;
        }
        let ns = self.cur_ns;
        let fid = self.declare_func_sig(f, ns, Some(sid), is_static, None);
        self.declare_here(&f.name.name, Sym::Overloads(vec![fid], vec![]), f.name.span);
        if f.body.is_some() {
            self.pending.push(fid);
        }
    }

    fn declare_function(&mut self, f: &'a ast::FunctionDecl) {
        if f.templates.iter().any(|t| !t.params.is_empty()) {
            if let Some(q) = &f.qualifier {
                // An out-of-line member template of a struct template: not supported.
                let _ = q;
                self.error(
                    "OSH1018",
                    f.span,
                    "out-of-line definitions of member templates are not supported",
                );
                return;
            }
            let params = &f.templates[f.templates.len() - 1].params;
            let tid = self.add_template(&f.name.name, TemplateBody::Func(f), params, None);
            self.declare_here(&f.name.name, Sym::Overloads(vec![], vec![tid]), f.name.span);
            return;
        }
        if let Some(q) = &f.qualifier {
            self.define_out_of_line(q, f);
            return;
        }
        let ns = self.cur_ns;
        let fid = self.declare_func_sig(f, ns, None, false, None);
        // A definition after a prototype (or a second prototype) completes the first.
        if let Some(prev) = self.find_same_signature(ns, &f.name.name, fid) {
            if f.body.is_some() {
                if self.func_src[prev.0 as usize]
                    .as_ref()
                    .is_some_and(|s| s.decl.body.is_some())
                {
                    self.error(
                        "OSH1011",
                        f.name.span,
                        format!("redefinition of function `{}`", f.name.name),
                    );
                    return;
                }
                // Take the definition's parameter names and semantics.
                let def = self.funcs[fid.0 as usize].clone();
                self.funcs[prev.0 as usize] = def;
                self.func_src[prev.0 as usize] = self.func_src[fid.0 as usize].clone();
                self.pending.push(prev);
            }
            return;
        }
        self.declare_here(&f.name.name, Sym::Overloads(vec![fid], vec![]), f.name.span);
        if f.body.is_some() {
            self.pending.push(fid);
        }
    }

    fn find_same_signature(&self, ns: NsId, name: &str, fid: FuncId) -> Option<FuncId> {
        let Some(Sym::Overloads(fs, _)) = self.nss[ns.0 as usize].names.get(name) else {
            return None;
        };
        let want: Vec<TyId> = self.funcs[fid.0 as usize]
            .params
            .iter()
            .map(|p| p.ty)
            .collect();
        fs.iter().copied().find(|&f| {
            self.funcs[f.0 as usize]
                .params
                .iter()
                .map(|p| p.ty)
                .eq(want.iter().copied())
        })
    }

    fn define_out_of_line(&mut self, q: &'a ast::TypeExpr, f: &'a ast::FunctionDecl) {
        let owner = self.resolve_type(q);
        let Some(ns) = self.type_ns(owner) else {
            if let TypeKind::Named { path, .. } = &q.kind
                && let Some(Sym::Namespace(n)) = self.lookup_path(path)
            {
                // `void ns::f() {}`: a function of a namespace.
                let saved = self.cur_ns;
                self.cur_ns = n;
                let fid = self.declare_func_sig(f, n, None, false, None);
                if let Some(prev) = self.find_same_signature(n, &f.name.name, fid) {
                    let def = self.funcs[fid.0 as usize].clone();
                    self.funcs[prev.0 as usize] = def;
                    self.func_src[prev.0 as usize] = self.func_src[fid.0 as usize].clone();
                    self.pending.push(prev);
                } else {
                    self.declare_here(&f.name.name, Sym::Overloads(vec![fid], vec![]), f.name.span);
                    self.pending.push(fid);
                }
                self.cur_ns = saved;
                return;
            }
            if !self.types.is_error(owner) {
                self.error(
                    "OSH1002",
                    q.span,
                    format!("`{}` is not a struct", self.types.name(owner)),
                );
            }
            return;
        };
        let TyKind::Struct(sid) = self.types.kind(owner).clone() else {
            return;
        };
        let is_static = match self.nss[ns.0 as usize].names.get(&f.name.name) {
            Some(Sym::Overloads(fs, _)) => fs.iter().any(|&x| {
                self.funcs[x.0 as usize]
                    .params
                    .first()
                    .is_none_or(|p| p.name != "this")
            }),
            _ => false,
        };
        let saved = self.cur_ns;
        self.cur_ns = ns;
        let fid = self.declare_func_sig(f, ns, Some(sid), is_static, None);
        self.cur_ns = saved;
        if let Some(prev) = self.find_same_signature(ns, &f.name.name, fid) {
            let def = self.funcs[fid.0 as usize].clone();
            self.funcs[prev.0 as usize] = def;
            self.func_src[prev.0 as usize] = self.func_src[fid.0 as usize].clone();
            self.pending.push(prev);
        } else {
            self.error(
                "OSH1009",
                f.name.span,
                format!(
                    "`{}` declares no method `{}` with these parameters",
                    self.types.name(owner),
                    f.name.name
                ),
            );
        }
    }

    /// Declares a function's signature in scope `ns`; returns its id (not yet named in any
    /// scope).
    pub fn declare_func_sig(
        &mut self,
        f: &'a ast::FunctionDecl,
        ns: NsId,
        method_of: Option<StructId>,
        is_static: bool,
        name: Option<String>,
    ) -> FuncId {
        let saved = self.cur_ns;
        let saved_f = self.fctx.take();
        self.cur_ns = ns;
        let ret = self.resolve_type(&f.return_type);
        let ret = self.apply_sign(&f.modifiers, ret);
        let mut params = Vec::new();
        let mut locals = Vec::new();
        if let Some(sid) = method_of
            && !is_static
        {
            let sty = self.types.intern(TyKind::Struct(sid));
            locals.push(LocalDef {
                name: "this".into(),
                ty: sty,
                major: None,
                precise: false,
                span: f.name.span,
            });
            params.push(ParamDef {
                name: "this".into(),
                ty: sty,
                dir: ParamDir::InOut,
                io: IoAttrs::default(),
                uniform: false,
                qual: ParamQual::None,
                local: LocalId(0),
                default: None,
                major: None,
                span: f.name.span,
            });
        }
        let mut split_sig = Vec::new();
        let mut split_names = Vec::new();
        for p in &f.params {
            let base = self.resolve_type(&p.ty);
            let base = self.apply_sign(&p.modifiers, base);
            let (ty, name, span, io, default) = match &p.declarator {
                Some(d) => {
                    let ty = self.declarator_type(base, d);
                    let io = self.io_attrs(&p.attributes, &d.annotations);
                    (ty, d.name.name.clone(), d.span, io, d.init.as_ref())
                }
                None => (base, String::new(), p.span, IoAttrs::default(), None),
            };
            if self.types.is_void(ty) {
                // `f(void)`.
                continue;
            }
            if self.is_split_type(ty) {
                // A struct holding resources: one parameter per field.
                let saved_f = self.fctx.replace(super::sema::FnCtx {
                    func: FuncId(self.funcs.len() as u32),
                    locals: std::mem::take(&mut locals),
                    local_consts: Vec::new(),
                    local_const_flag: Vec::new(),
                    scopes: vec![FxHashMap::default()],
                    ret: Types::VOID,
                    loops: 0,
                    switches: 0,
                    this: None,
                    ns,
                });
                let first_local = self.fctx.as_ref().map(|f| f.locals.len()).unwrap_or(0);
                let id = self.make_split(
                    &name,
                    ty,
                    super::sema_split::SplitKind::Local,
                    &BindAttrs::default(),
                    span,
                );
                let ctx = std::mem::replace(&mut self.fctx, saved_f);
                if let Some(c) = ctx {
                    locals = c.locals;
                }
                let first = params.len();
                for (k, l) in locals.iter().enumerate().skip(first_local) {
                    params.push(ParamDef {
                        name: l.name.clone(),
                        ty: l.ty,
                        dir: ParamDir::In,
                        io: IoAttrs::default(),
                        uniform: false,
                        qual: ParamQual::None,
                        local: LocalId(k as u32),
                        default: None,
                        major: l.major,
                        span,
                    });
                }
                split_sig.push(super::sema_split::SigParam { ty, first });
                split_names.push((name, id));
                continue;
            }
            split_sig.push(super::sema_split::SigParam {
                ty,
                first: params.len(),
            });
            let has = |m: Modifier| p.modifiers.iter().any(|x| x.modifier == m);
            let dir = if has(Modifier::InOut) || (has(Modifier::In) && has(Modifier::Out)) {
                ParamDir::InOut
            } else if has(Modifier::Out) {
                ParamDir::Out
            } else {
                ParamDir::In
            };
            let mut io = io;
            io.interp = interp_of(&p.modifiers);
            io.invariant = has(Modifier::Precise);
            let declared_as = match &p.ty.kind {
                TypeKind::Named { path, .. } => path.last().name.as_str(),
                _ => "",
            };
            let qual = if declared_as == "InputPatch" {
                ParamQual::InputPatch
            } else if declared_as == "OutputPatch" {
                ParamQual::OutputPatch
            } else if has(Modifier::Vertices) {
                ParamQual::Vertices
            } else if has(Modifier::Indices) {
                ParamQual::Indices
            } else if has(Modifier::Primitives) {
                ParamQual::Primitives
            } else if has(Modifier::Payload) {
                ParamQual::Payload
            } else {
                use oneshader_ir::Primitive as P;
                [
                    (Modifier::Point, P::Point),
                    (Modifier::Line, P::Line),
                    (Modifier::Triangle, P::Triangle),
                    (Modifier::LineAdj, P::LineAdj),
                    (Modifier::TriangleAdj, P::TriangleAdj),
                ]
                .iter()
                .find(|(m, _)| has(*m))
                .map_or(ParamQual::None, |&(_, p)| ParamQual::Primitive(p))
            };
            let default = default.map(|e| {
                let h = self.check_expr(e);
                self.convert(h, ty, e.span)
            });
            let major = self.major_of(&p.modifiers);
            locals.push(LocalDef {
                name: name.clone(),
                ty,
                major,
                precise: has(Modifier::Precise),
                span,
            });
            params.push(ParamDef {
                name,
                ty,
                dir,
                io,
                uniform: has(Modifier::Uniform),
                qual,
                local: LocalId(locals.len() as u32 - 1),
                default,
                major,
                span,
            });
        }
        let ret_io = self.io_attrs(&f.attributes, &f.annotations);
        let attrs = self.func_attrs(&f.attributes);
        let full_name = name.unwrap_or_else(|| match method_of {
            Some(sid) => format!(
                "{}::{}",
                self.types.structs[sid.0 as usize].name, f.name.name
            ),
            None => f.name.name.clone(),
        });
        self.funcs.push(FuncDef {
            name: full_name,
            params,
            ret,
            ret_io,
            ret_major: self.major_of(&f.modifiers),
            locals,
            body: None,
            attrs,
            method_of,
            export: f.modifiers.iter().any(|m| m.modifier == Modifier::Export),
            span: f.name.span,
        });
        self.func_src.push(Some(FuncSrc {
            decl: f,
            ns,
            checked: false,
        }));
        if !split_names.is_empty() {
            let fid = FuncId(self.funcs.len() as u32 - 1);
            self.func_sigs.insert(fid, split_sig);
            self.func_split_names.insert(fid, split_names);
        }
        self.cur_ns = saved;
        self.fctx = saved_f;
        FuncId(self.funcs.len() as u32 - 1)
    }

    /// Checks a function's body (once).
    pub fn check_body(&mut self, fid: FuncId) {
        let Some(src) = self.func_src[fid.0 as usize].clone() else {
            return;
        };
        if src.checked {
            return;
        }
        let Some(body) = &src.decl.body else {
            return;
        };
        if let Some(s) = &mut self.func_src[fid.0 as usize] {
            s.checked = true;
        }
        let def = &self.funcs[fid.0 as usize];
        let mut scope = FxHashMap::default();
        for (i, l) in def.locals.iter().enumerate() {
            if !l.name.is_empty() && l.name != "this" {
                scope.insert(l.name.clone(), Sym::Local(LocalId(i as u32)));
            }
        }
        for (name, id) in self.func_split_names.get(&fid).into_iter().flatten() {
            scope.insert(name.clone(), Sym::Split(*id));
        }
        let this = match def.method_of {
            Some(sid) if def.params.first().is_some_and(|p| p.name == "this") => {
                Some((LocalId(0), sid))
            }
            _ => None,
        };
        let ns = src.ns;
        let nlocals = def.locals.len();
        let ctx = FnCtx {
            func: fid,
            locals: def.locals.clone(),
            local_consts: vec![None; nlocals],
            local_const_flag: vec![false; nlocals],
            scopes: vec![scope],
            ret: def.ret,
            loops: 0,
            switches: 0,
            this,
            ns,
        };
        let saved = self.fctx.replace(ctx);
        let stmts = self.check_block_stmts(&body.stmts);
        let ctx = std::mem::replace(&mut self.fctx, saved);
        if let Some(ctx) = ctx {
            let f = &mut self.funcs[fid.0 as usize];
            f.locals = ctx.locals;
            f.body = Some(stmts);
        }
    }

    // ---- attributes ---------------------------------------------------------------------------

    /// Integer arguments of an attribute (constant expressions).
    pub fn attr_u32_args(&mut self, a: &'a ast::Attribute) -> Vec<u32> {
        let mut out = Vec::new();
        for e in a.args.as_deref().unwrap_or(&[]) {
            match self.const_int_expr(e) {
                Some(v) if (0..=u32::MAX as i128).contains(&v) => out.push(v as u32),
                Some(_) => self.error("OSH1025", e.span, "attribute argument out of range"),
                None => {}
            }
        }
        out
    }

    fn attr_string_arg(a: &ast::Attribute) -> Option<String> {
        match a.args.as_deref()?.first().map(|e| &e.kind) {
            Some(ast::ExprKind::Literal(ast::Literal::String(s))) => Some(s.clone()),
            _ => None,
        }
    }

    fn func_attrs(&mut self, attrs: &'a [ast::Attribute]) -> FuncAttrs {
        let mut out = FuncAttrs::default();
        for a in attrs {
            let name = a.name.name.to_ascii_lowercase();
            match name.as_str() {
                "numthreads" if a.namespace.is_empty() => {
                    let v = self.attr_u32_args(a);
                    if v.len() != 3 || v.iter().any(|&x| x < 1) {
                        self.error(
                            "OSH1025",
                            a.span,
                            "`numthreads` takes three positive integers",
                        );
                        continue;
                    }
                    // D3D's limits (shader model 5 and later), which DXC enforces: x and y at
                    // most 1024, z at most 64, at most 1024 threads in a group.
                    let total = v.iter().map(|&x| x as u128).product::<u128>();
                    let bad = if v[0] > 1024 || v[1] > 1024 {
                        Some(format!(
                            "`numthreads({}, {}, {})`: x and y may be at most 1024",
                            v[0], v[1], v[2]
                        ))
                    } else if v[2] > 64 {
                        Some(format!(
                            "`numthreads({}, {}, {})`: z may be at most 64",
                            v[0], v[1], v[2]
                        ))
                    } else if total > 1024 {
                        Some(format!(
                            "`numthreads({}, {}, {})` asks for {total} threads per group; at most \
                             1024 are allowed",
                            v[0], v[1], v[2]
                        ))
                    } else {
                        None
                    };
                    match bad {
                        Some(msg) => self.error("OSH1025", a.span, msg),
                        None => out.numthreads = Some([v[0], v[1], v[2]]),
                    }
                }
                "earlydepthstencil" => out.early_depth_stencil = true,
                "shader" => out.shader = Self::attr_string_arg(a),
                "maxvertexcount" | "instance" | "outputcontrolpoints" => {
                    let v = self.attr_u32_args(a);
                    // D3D's limits: 1024 vertices, 32 control points; instances are
                    // bounded by the device (Vulkan guarantees 32; DXC accepts more).
                    let limit = match name.as_str() {
                        "maxvertexcount" => 1024,
                        "instance" => u32::MAX,
                        _ => 32,
                    };
                    match v.as_slice() {
                        [n] if (1..=limit).contains(n) => match name.as_str() {
                            "maxvertexcount" => out.max_vertex_count = Some(*n),
                            "instance" => {
                                if *n > 32 {
                                    self.warn(
                                        "OSH1025",
                                        a.span,
                                        format!(
                                            "`[instance({n})]`: D3D allows at most 32 \
                                             instances, and Vulkan devices only guarantee 32 \
                                             (`maxGeometryShaderInvocations`)"
                                        ),
                                    );
                                }
                                out.instance = Some(*n);
                            }
                            _ => out.output_control_points = Some(*n),
                        },
                        _ if limit == u32::MAX => self.error(
                            "OSH1025",
                            a.span,
                            format!("`{name}` takes one positive integer"),
                        ),
                        _ => self.error(
                            "OSH1025",
                            a.span,
                            format!("`{name}` takes one integer from 1 to {limit}"),
                        ),
                    }
                }
                "domain" | "partitioning" | "outputtopology" => {
                    let arg = Self::attr_string_arg(a).unwrap_or_default();
                    let ok = match name.as_str() {
                        "domain" => {
                            out.domain = match arg.as_str() {
                                "tri" => Some(oneshader_ir::TessDomain::Triangle),
                                "quad" => Some(oneshader_ir::TessDomain::Quad),
                                "isoline" => Some(oneshader_ir::TessDomain::Isoline),
                                _ => None,
                            };
                            out.domain.is_some()
                        }
                        "partitioning" => {
                            out.partitioning = match arg.as_str() {
                                "integer" => Some(oneshader_ir::Partitioning::Integer),
                                "fractional_even" => {
                                    Some(oneshader_ir::Partitioning::FractionalEven)
                                }
                                "fractional_odd" => Some(oneshader_ir::Partitioning::FractionalOdd),
                                "pow2" => Some(oneshader_ir::Partitioning::Pow2),
                                _ => None,
                            };
                            out.partitioning.is_some()
                        }
                        _ => {
                            use oneshader_ir::Primitive as P;
                            // Hull (`triangle_cw`...) and mesh (`triangle`) spellings; the
                            // entry point's stage checks which applies.
                            out.output_topology = match arg.as_str() {
                                "point" => Some(P::Point),
                                "line" => Some(P::Line),
                                "triangle" => Some(P::Triangle),
                                "triangle_cw" => Some(P::TriangleCw),
                                "triangle_ccw" => Some(P::TriangleCcw),
                                _ => None,
                            };
                            out.output_topology.is_some()
                        }
                    };
                    if !ok {
                        let expect = match name.as_str() {
                            "domain" => "\"tri\", \"quad\" or \"isoline\"",
                            "partitioning" => {
                                "\"integer\", \"fractional_even\", \"fractional_odd\" or \"pow2\""
                            }
                            _ => {
                                "\"point\", \"line\", \"triangle\", \"triangle_cw\" or \"triangle_ccw\""
                            }
                        };
                        self.error(
                            "OSH1025",
                            a.span,
                            format!("`[{name}(\"{arg}\")]`: expected {expect}"),
                        );
                    }
                }
                "patchconstantfunc" => match Self::attr_string_arg(a) {
                    Some(f) => out.patch_constant_func = Some((f, a.span)),
                    None => self.error(
                        "OSH1025",
                        a.span,
                        "`patchconstantfunc` takes the function's name as a string",
                    ),
                },
                // A promise about the tessellation factors the patch-constant function
                // produces, which lets D3D drivers optimize; Vulkan has no counterpart and
                // the factors are what the function writes either way.
                "maxtessfactor" => {}
                _ => {}
            }
            if out.span.is_none()
                && matches!(
                    name.as_str(),
                    "maxvertexcount"
                        | "instance"
                        | "domain"
                        | "partitioning"
                        | "outputtopology"
                        | "outputcontrolpoints"
                        | "patchconstantfunc"
                        | "numthreads"
                        | "shader"
                )
            {
                out.span = Some(a.span);
            }
        }
        out
    }

    /// Stage-IO attributes from attributes and annotations.
    pub fn io_attrs(
        &mut self,
        attrs: &'a [ast::Attribute],
        annotations: &'a [ast::PostAnnotation],
    ) -> IoAttrs {
        let mut io = IoAttrs::default();
        for a in annotations {
            if let ast::PostAnnotation::Semantic(id) = a {
                io.semantic = Some(split_semantic(&id.name, id.span));
            }
        }
        for a in attrs {
            if attr_is(a, "vk", "location") {
                io.location = self.attr_u32_args(a).first().copied();
            } else if attr_is(a, "vk", "builtin") {
                io.builtin = Self::attr_string_arg(a);
            }
        }
        io
    }

    /// Binding attributes of a resource or buffer declaration.
    pub fn bind_attrs(
        &mut self,
        attrs: &'a [ast::Attribute],
        annotations: &'a [ast::PostAnnotation],
    ) -> BindAttrs {
        let mut b = BindAttrs::default();
        let (mut layout_binding, mut layout_set) = (None, None);
        for a in annotations {
            if let ast::PostAnnotation::Register { args, span } = a {
                // `register(t0, space1)`, `register(ps_5_0, s0)`, `register(space1)`.
                let mut class = None;
                let mut space = None;
                for arg in args {
                    let s = arg.name.to_ascii_lowercase();
                    if let Some(n) = s.strip_prefix("space") {
                        match n.parse::<u32>() {
                            Ok(v) => space = Some(v),
                            Err(_) => self.error("OSH1025", arg.span, "malformed register space"),
                        }
                    } else if s.contains('_') {
                        // A profile name: registers for other profiles are kept anyway.
                    } else if let Some(c) = s.chars().next()
                        && let Some(n) = register_number(&s[c.len_utf8()..])
                    {
                        class = Some((c, n));
                    } else {
                        self.error(
                            "OSH1025",
                            *span,
                            format!("malformed register `{}`", arg.name),
                        );
                    }
                }
                match class {
                    Some((c, n)) => b.register = Some((c, n, space)),
                    None => b.register = Some(('?', u32::MAX, space)),
                }
            }
        }
        for a in attrs {
            if attr_is(a, "vk", "binding") {
                let v = self.attr_u32_args(a);
                match v.as_slice() {
                    // DXC: without a set, the default space (not the register's).
                    [bi] => b.vk_binding = Some((*bi, None)),
                    [bi, s] => b.vk_binding = Some((*bi, Some(*s))),
                    _ => self.error("OSH1025", a.span, "`vk::binding` takes (binding[, set])"),
                }
            } else if attr_is(a, "vk", "counter_binding") {
                b.counter_binding = self.attr_u32_args(a).first().copied();
            } else if attr_is(a, "vk", "image_format") {
                b.format = Self::attr_string_arg(a).and_then(|s| image_format(&s));
            } else if attr_is(a, "vk", "input_attachment_index") {
                b.input_attachment = self.attr_u32_args(a).first().copied();
            } else if a.style == ast::AttributeStyle::Layout {
                // glslang's `layout(set = 0, binding = 1)`: the same as
                // `[[vk::binding(1, 0)]]`.
                for arg in a.args.as_deref().unwrap_or(&[]) {
                    let ast::ExprKind::Assign { op: None, lhs, rhs } = &arg.kind else {
                        continue;
                    };
                    let ast::ExprKind::Name { path, .. } = &lhs.kind else {
                        continue;
                    };
                    let key = path.last().name.as_str();
                    if key != "set" && key != "binding" {
                        continue;
                    }
                    let v = match self.const_int_expr(rhs) {
                        Some(v) if (0..=u32::MAX as i128).contains(&v) => v as u32,
                        _ => {
                            self.error("OSH1025", rhs.span, format!("malformed layout `{key}`"));
                            continue;
                        }
                    };
                    if key == "set" {
                        layout_set = Some(v);
                    } else {
                        layout_binding = Some(v);
                    }
                }
            }
        }
        if let Some(bi) = layout_binding
            && b.vk_binding.is_none()
        {
            b.vk_binding = Some((bi, layout_set));
        }
        b
    }
}

/// The number of a register: `5` in `t5`; DX9's array forms `s[5]` (register 5) and `s3[2]`
/// (register 3 + 2).
fn register_number(rest: &str) -> Option<u32> {
    if let Some(open) = rest.find('[') {
        let base = if open == 0 {
            0
        } else {
            rest[..open].parse::<u32>().ok()?
        };
        let idx = rest[open + 1..]
            .strip_suffix(']')?
            .trim()
            .parse::<u32>()
            .ok()?;
        return base.checked_add(idx);
    }
    rest.parse::<u32>().ok()
}

/// True when `a` is `[[ns::name]]` (or `[name]` when `ns` is empty).
pub fn attr_is(a: &ast::Attribute, ns: &str, name: &str) -> bool {
    a.name.name == name
        && (if ns.is_empty() {
            a.namespace.is_empty()
        } else {
            a.namespace.len() == 1 && a.namespace[0].name == ns
        })
}

/// Interpolation modifiers of a declaration.
pub fn interp_of(mods: &[ast::ModifierSpan]) -> Interp {
    let mut i = Interp::default();
    for m in mods {
        match m.modifier {
            Modifier::NoInterpolation => i.flat = true,
            Modifier::NoPerspective => i.noperspective = true,
            Modifier::Centroid => i.centroid = true,
            Modifier::Sample => i.sample = true,
            _ => {}
        }
    }
    i
}

/// Splits `TEXCOORD3` into `("TEXCOORD", 3)`.
pub fn split_semantic(s: &str, span: Span) -> Semantic {
    let digits = s.len() - s.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (name, idx) = s.split_at(s.len() - digits);
    Semantic {
        name: name.to_string(),
        index: idx.parse().unwrap_or(0),
        explicit_index: digits > 0,
        span,
    }
}

/// `[[vk::image_format("rgba8")]]` spellings.
pub fn image_format(s: &str) -> Option<ImageFormat> {
    if s == "unknown" {
        return Some(ImageFormat::Unknown);
    }
    ImageFormat::from_spelling(s)
}
