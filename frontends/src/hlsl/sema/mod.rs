//! Semantic analysis, part 1: the analyzer's state, diagnostics, scopes and name lookup.
//!
//! The rest of the analyzer is split by what it checks: types in `types.rs`, templates
//! instantiated on demand in `templates.rs`, declarations (globals, constant buffers,
//! typedefs, enums) in `decls.rs`, structs with methods and functions with their
//! overloads in `funcs.rs`, attributes in `attrs.rs`, expressions in
//! `expr.rs` (intrinsics in `intrinsics.rs`, resource methods in `resources.rs`),
//! statements in `stmt.rs`; the result is a [`Program`](crate::hlsl::sema::hir::Program).
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

pub(crate) mod attrs;
pub(crate) mod bindings;
pub(crate) mod conversions;
pub(crate) mod decls;
pub(crate) mod expr;
pub(crate) mod funcs;
pub(crate) mod heaps;
pub mod hir;
pub(crate) mod intrinsics;
pub(crate) mod overload_rank;
pub(crate) mod packed;
pub(crate) mod resources;
pub(crate) mod semantics;
pub(crate) mod split;
pub(crate) mod stmt;
pub(crate) mod templates;
pub(crate) mod types;

use oneshader_ir::diag::{Diagnostic, Span};
use oneshader_ir::{ImageFormat, Stage};
use rustc_hash::FxHashMap;

use crate::hlsl::sema::hir::*;
use crate::hlsl::syntax::ast::{self, Modifier};

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
    /// A struct variable that holds resources, split into its fields (`split.rs`).
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

/// The analyzer. Its state is grouped by what it is for; the groups are visible to the rest of
/// the front end (`super`), which reads the program being built and the diagnostics.
pub(crate) struct Sema<'a> {
    pub(in crate::hlsl) opts: SemaOptions,
    /// The program being built: its types, globals and functions.
    pub(in crate::hlsl) types: Types,
    pub(in crate::hlsl) globals: Vec<GlobalDef>,
    pub(in crate::hlsl) funcs: Vec<FuncDef>,
    /// Diagnostics so far.
    pub(in crate::hlsl) diag: DiagState,
    /// Namespaces, the current scope and templates.
    pub(in crate::hlsl) scope: Scopes<'a>,
    /// Function bodies: where each comes from, which wait to be checked, the one being checked.
    pub(in crate::hlsl) bodies: Bodies<'a>,
    /// What declarations accumulate: `$Globals`, the push-constant block, matrix order,
    /// built-in structs.
    pub(in crate::hlsl) decl: DeclState,
    /// Split structs (structs holding resources) and the functions that take them.
    pub(in crate::hlsl) split: SplitState,
}

/// The diagnostics of analysis.
#[derive(Default)]
pub(crate) struct DiagState {
    /// Every diagnostic so far, in order.
    pub(in crate::hlsl) diags: Vec<Diagnostic>,
    /// How many of them are errors.
    pub(in crate::hlsl) errors: usize,
}

/// Namespaces, scopes and templates.
pub(crate) struct Scopes<'a> {
    /// Every namespace (the root, namespaces, structs, template environments).
    pub(in crate::hlsl) nss: Vec<Ns>,
    /// The current declaration scope (outside function bodies).
    pub(in crate::hlsl) cur_ns: NsId,
    /// The scope of each struct.
    pub(in crate::hlsl) struct_ns: Vec<NsId>,
    /// Declared templates.
    pub(in crate::hlsl) templates: Vec<Template<'a>>,
    /// Struct template instances: the struct and its (template, args).
    pub(in crate::hlsl) struct_instance: FxHashMap<StructId, (TemplateId, Vec<TArg>)>,
    /// Nesting of template instantiations (bounded).
    pub(in crate::hlsl) inst_depth: u32,
}

/// Function bodies.
#[derive(Default)]
pub(crate) struct Bodies<'a> {
    /// Where each function's body comes from.
    pub(in crate::hlsl) func_src: Vec<Option<FuncSrc<'a>>>,
    /// Bodies still to check.
    pub(in crate::hlsl) pending: Vec<FuncId>,
    /// The body being checked.
    pub(in crate::hlsl) fctx: Option<FnCtx>,
    /// Default arguments of template instances that do not check for the instance's
    /// parameter type, by (default's position, parameter type): their diagnostics, reported
    /// where a call leaves the argument out.
    pub(in crate::hlsl) held_defaults: FxHashMap<(Span, TyId), Vec<Diagnostic>>,
}

/// What declarations accumulate.
pub(crate) struct DeclState {
    /// The implicit `$Globals` constant buffer, once a loose global needs it.
    pub(in crate::hlsl) globals_cbuffer: Option<GlobalId>,
    /// Where the push-constant block was declared (at most one).
    pub(in crate::hlsl) push_constant_at: Option<Span>,
    /// Default matrix order in effect (changed by `#pragma pack_matrix`).
    pub(in crate::hlsl) cur_major: Major,
    /// The `#pragma pack_matrix` directives, by position.
    pub(in crate::hlsl) pragma_majors: Vec<(Span, Major)>,
    /// The built-in structs (`RayDesc`, `BuiltInTriangleIntersectionAttributes`), made on
    /// first use.
    pub(in crate::hlsl) builtin_structs: FxHashMap<&'static str, TyId>,
    /// The texture globals of `vk::SampledTexture*` declarations and their samplers (a
    /// `SamplerState` and a `SamplerComparisonState`, each made on first use and sharing the
    /// texture's binding).
    pub(in crate::hlsl) sampled_textures: FxHashMap<GlobalId, [Option<GlobalId>; 2]>,
    /// The views of the descriptor heaps (`heaps.rs`): (sampler heap, resource type) -> the
    /// global runtime array of that type.
    pub(in crate::hlsl) heap_views: FxHashMap<(bool, TyId), GlobalId>,
}

/// Split structs and the functions that take them.
#[derive(Default)]
pub(crate) struct SplitState {
    /// Split structs (structs holding resources), by id.
    pub(in crate::hlsl) splits: Vec<crate::hlsl::sema::split::SplitDef>,
    /// The declared signature of functions with split parameters.
    pub(in crate::hlsl) func_sigs: FxHashMap<FuncId, Vec<crate::hlsl::sema::split::SigParam>>,
    /// The split parameters of functions: (name, split id), bound in the body.
    pub(in crate::hlsl) func_split_names: FxHashMap<FuncId, Vec<(String, u32)>>,
}

/// The root namespace.
pub(crate) const ROOT: NsId = NsId(0);

/// HLSL's built-in `uint` constants (ray flags, hit kinds, ray-query states).
pub(in crate::hlsl) const BUILTIN_CONSTANTS: &[(&str, u32)] = &[
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

/// The `vk::` constants DXC declares: SPIR-V's memory scopes (`vk::DeviceScope`, for
/// `vk::ReadClock` and inline SPIR-V), with SPIR-V's values.
pub(in crate::hlsl) const VK_CONSTANTS: &[(&str, u32)] = &[
    ("CrossDeviceScope", 0),
    ("DeviceScope", 1),
    ("WorkgroupScope", 2),
    ("SubgroupScope", 3),
    ("InvocationScope", 4),
    ("QueueFamilyScope", 5),
];

impl<'a> Sema<'a> {
    pub fn new(opts: SemaOptions) -> Sema<'a> {
        let major = opts.default_major;
        Sema {
            opts,
            types: Types::new(),
            globals: Vec::new(),
            funcs: Vec::new(),
            diag: DiagState::default(),
            scope: Scopes {
                nss: vec![Ns::default()],
                cur_ns: ROOT,
                struct_ns: Vec::new(),
                templates: Vec::new(),
                struct_instance: FxHashMap::default(),
                inst_depth: 0,
            },
            bodies: Bodies::default(),
            decl: DeclState {
                globals_cbuffer: None,
                push_constant_at: None,
                cur_major: major,
                pragma_majors: Vec::new(),
                builtin_structs: FxHashMap::default(),
                sampled_textures: FxHashMap::default(),
                heap_views: FxHashMap::default(),
            },
            split: SplitState::default(),
        }
    }

    /// A built-in struct type of plain fields (made once; its members are reached like a
    /// user struct's).
    pub fn builtin_struct(&mut self, name: &'static str, fields: &[(&str, TyId)]) -> TyId {
        if let Some(&t) = self.decl.builtin_structs.get(name) {
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
        self.scope.nss[sns.0 as usize].owner = Some(sid);
        self.scope.struct_ns.push(sns);
        let ty = self.types.intern(TyKind::Struct(sid));
        self.decl.builtin_structs.insert(name, ty);
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
            .diag
            .diags
            .iter()
            .any(|d| d.code == code && d.span == Some(span))
        {
            return;
        }
        if self.diag.diags.len() < 4 * MAX_SEMA_ERRORS {
            self.diag
                .diags
                .push(Diagnostic::warning(code, msg).with_span(span));
        }
    }

    /// Pushes a prepared diagnostic.
    pub fn push_diag(&mut self, d: Diagnostic) {
        if d.is_error() {
            self.diag.errors += 1;
            if self.diag.errors == MAX_SEMA_ERRORS + 1 {
                self.diag.diags.push(
                    Diagnostic::error(
                        "OSH1099",
                        format!("{MAX_SEMA_ERRORS} errors reported; analysis stopped"),
                    )
                    .with_opt_span(d.span),
                );
            }
            if self.diag.errors > MAX_SEMA_ERRORS {
                return;
            }
        }
        self.diag.diags.push(d);
    }

    /// True once the error limit is reached.
    pub fn too_many_errors(&self) -> bool {
        self.diag.errors > MAX_SEMA_ERRORS
    }

    // ---- scopes -------------------------------------------------------------------------------

    pub fn new_ns(&mut self, parent: Option<NsId>) -> NsId {
        self.scope.nss.push(Ns {
            parent,
            ..Ns::default()
        });
        NsId(self.scope.nss.len() as u32 - 1)
    }

    /// The scope declarations and lookups currently use.
    pub fn scope_ns(&self) -> NsId {
        match &self.bodies.fctx {
            Some(f) => f.ns,
            None => self.scope.cur_ns,
        }
    }

    /// Declares `name` in namespace `ns`; functions of one name merge into one overload set.
    pub fn declare(&mut self, ns: NsId, name: &str, sym: Sym, span: Span) {
        let existing = self.scope.nss[ns.0 as usize].names.get(name).cloned();
        match (existing, sym) {
            (None, sym) => {
                self.scope.nss[ns.0 as usize]
                    .names
                    .insert(name.to_string(), sym);
            }
            (Some(Sym::Overloads(mut f, mut t)), Sym::Overloads(f2, t2)) => {
                f.extend(f2);
                t.extend(t2);
                self.scope.nss[ns.0 as usize]
                    .names
                    .insert(name.to_string(), Sym::Overloads(f, t));
            }
            (Some(Sym::Type(a, _)), Sym::Type(b, nsb)) if a == b => {
                if nsb.is_some() {
                    self.scope.nss[ns.0 as usize]
                        .names
                        .insert(name.to_string(), Sym::Type(b, nsb));
                }
            }
            (Some(Sym::Namespace(_)), Sym::Namespace(n)) => {
                self.scope.nss[ns.0 as usize]
                    .names
                    .insert(name.to_string(), Sym::Namespace(n));
            }
            (Some(_), sym) => {
                // HLSL code often redeclares globals in macro-heavy headers; the newest wins
                // after one diagnostic.
                self.error("OSH1011", span, format!("redefinition of `{name}`"));
                self.scope.nss[ns.0 as usize]
                    .names
                    .insert(name.to_string(), sym);
            }
        }
    }

    /// Declares a name in the innermost local scope (inside a body) or the current namespace.
    pub fn declare_here(&mut self, name: &str, sym: Sym, span: Span) {
        // A redeclaration in the same block replaces the previous name (DXC accepts some).
        if let Some(f) = &mut self.bodies.fctx
            && let Some(scope) = f.scopes.last_mut()
        {
            scope.insert(name.to_string(), sym);
            return;
        }
        let ns = self.scope.cur_ns;
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
        let n = &self.scope.nss[ns.0 as usize];
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
                && let Some(s) = self.scope.nss[u.0 as usize].names.get(name)
            {
                return Some(s.clone());
            }
        }
        None
    }

    /// Unqualified lookup: local scopes, then the namespaces from the current one outward.
    /// Fields of `this` are handled by the expression checker.
    pub fn lookup(&self, name: &str) -> Option<Sym> {
        if let Some(f) = &self.bodies.fctx {
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
            ns = self.scope.nss[n.0 as usize].parent;
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
        let first = if path.global {
            self.lookup_in(ROOT, &segs[0].name)
        } else {
            self.lookup(&segs[0].name)
        };
        let Some(mut cur) = first else {
            // `vk::DeviceScope` and its siblings, unless the program declares a `vk`.
            if segs.len() == 2 && segs[0].name == "vk" {
                let &(_, v) = VK_CONSTANTS.iter().find(|c| c.0 == segs[1].name)?;
                let u = self.types.lookup(&TyKind::Scalar(Scalar::U32))?;
                return Some(Sym::Const(u, ConstVal::Int(v as i128)));
            }
            return None;
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
