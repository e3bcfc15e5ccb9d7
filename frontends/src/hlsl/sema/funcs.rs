//! Semantic analysis, structs and functions: struct declarations (forward, templated,
//! inheritance, methods), function declarations and overloads (same-signature redefinitions,
//! out-of-line methods), signatures, and checking bodies.

use rustc_hash::FxHashMap;

use crate::hlsl::sema::hir::*;
use crate::hlsl::sema::{
    FnCtx, FuncSrc, NsId, Sema, Sym, TArg, TemplateBody, TemplateId, attr_is, interp_of,
};
use crate::hlsl::syntax::ast::{self, DeclKind, Modifier, TypeKind};

impl<'a> Sema<'a> {
    /// Declares a struct (named or anonymous); returns its type.
    pub fn declare_struct(&mut self, s: &'a ast::StructDecl, _hint: Option<&str>) -> TyId {
        if let (Some(args), Some(name)) = (&s.specialization_args, &s.name) {
            return self.declare_specialization(s, name, args);
        }
        if !s.templates.is_empty() && s.templates.iter().any(|t| !t.params.is_empty()) {
            let Some(name) = &s.name else {
                return Types::ERROR;
            };
            let params = &s.templates[s.templates.len() - 1].params;
            let owner = self.scope.nss[self.scope_ns().0 as usize].owner;
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

    /// `template<> struct S<int> { ... };`: the instance of `S` for those arguments, made
    /// now (so `S<int>` finds it instead of instantiating the primary template). A partial
    /// specialization (`template<typename T> struct S<T, 1>`) is refused (OSH1018), naming it.
    fn declare_specialization(
        &mut self,
        s: &'a ast::StructDecl,
        name: &'a ast::Ident,
        args: &'a [ast::TemplateArg],
    ) -> TyId {
        if s.templates.iter().any(|t| !t.params.is_empty()) {
            self.error(
                "OSH1018",
                name.span,
                format!(
                    "the partial specialization of `{}` is not supported: specialize every \
                     argument (`template<> struct {}<...>`)",
                    name.name, name.name
                ),
            );
            return Types::ERROR;
        }
        let Some(Sym::StructTemplate(tid)) = self.lookup(&name.name) else {
            self.error(
                "OSH1017",
                name.span,
                format!(
                    "`{}` is specialized but no struct template `{}` is declared before it",
                    name.name, name.name
                ),
            );
            return Types::ERROR;
        };
        let Some(targs) = self.resolve_template_args(tid, args, name.span) else {
            return Types::ERROR;
        };
        if self.scope.templates[tid.0 as usize]
            .instances
            .contains_key(&targs)
        {
            self.error(
                "OSH1011",
                name.span,
                format!(
                    "`{}` is specialized for arguments it was already instantiated or \
                     specialized with",
                    name.name
                ),
            );
            return Types::ERROR;
        }
        let text = format!(
            "{}<{}>",
            name.name,
            targs
                .iter()
                .map(|a| match a {
                    TArg::Type(t) => self.types.name(*t),
                    TArg::Value(v) => v.to_string(),
                })
                .collect::<Vec<_>>()
                .join(", ")
        );
        self.declare_struct_named(s, text, Some((tid, targs)))
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
        self.scope.nss[sns.0 as usize].owner = Some(sid);
        self.scope.struct_ns.push(sns);
        let ty = self.types.intern(TyKind::Struct(sid));
        if let Some((tid, args)) = instance {
            self.scope.templates[tid.0 as usize]
                .instances
                .insert(args.clone(), Sym::Type(ty, Some(sns)));
            self.scope.struct_instance.insert(sid, (tid, args));
            // The template's own name inside its body names this instance.
            let tname = self.scope.templates[tid.0 as usize].name.clone();
            self.scope.nss[sns.0 as usize]
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
        let sns = self.scope.struct_ns[sid.0 as usize];
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
                    let bns = self.scope.struct_ns[bs.0 as usize];
                    self.scope.nss[sns.0 as usize].bases.push(bns);
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
        let saved = self.scope.cur_ns;
        self.scope.cur_ns = sns;
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
        self.scope.cur_ns = saved;
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
        let ns = self.scope.cur_ns;
        let fid = self.declare_func_sig(f, ns, Some(sid), is_static, None);
        self.declare_here(&f.name.name, Sym::Overloads(vec![fid], vec![]), f.name.span);
        if f.body.is_some() {
            self.bodies.pending.push(fid);
        }
    }

    pub(in crate::hlsl) fn declare_function(&mut self, f: &'a ast::FunctionDecl) {
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
        let ns = self.scope.cur_ns;
        let fid = self.declare_func_sig(f, ns, None, false, None);
        // A definition after a prototype (or a second prototype) completes the first.
        if let Some(prev) = self.find_same_signature(ns, &f.name.name, fid) {
            if f.body.is_some() {
                if self.bodies.func_src[prev.0 as usize]
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
                self.bodies.func_src[prev.0 as usize] =
                    self.bodies.func_src[fid.0 as usize].clone();
                self.bodies.pending.push(prev);
            }
            return;
        }
        self.declare_here(&f.name.name, Sym::Overloads(vec![fid], vec![]), f.name.span);
        if f.body.is_some() {
            self.bodies.pending.push(fid);
        }
    }

    fn find_same_signature(&self, ns: NsId, name: &str, fid: FuncId) -> Option<FuncId> {
        let Some(Sym::Overloads(fs, _)) = self.scope.nss[ns.0 as usize].names.get(name) else {
            return None;
        };
        // Parameters that differ only in direction (`uint` and `out uint`) make distinct
        // overloads, as in DXC.
        let want: Vec<(TyId, ParamDir)> = self.funcs[fid.0 as usize]
            .params
            .iter()
            .map(|p| (p.ty, p.dir))
            .collect();
        fs.iter().copied().find(|&f| {
            self.funcs[f.0 as usize]
                .params
                .iter()
                .map(|p| (p.ty, p.dir))
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
                let saved = self.scope.cur_ns;
                self.scope.cur_ns = n;
                let fid = self.declare_func_sig(f, n, None, false, None);
                if let Some(prev) = self.find_same_signature(n, &f.name.name, fid) {
                    let def = self.funcs[fid.0 as usize].clone();
                    self.funcs[prev.0 as usize] = def;
                    self.bodies.func_src[prev.0 as usize] =
                        self.bodies.func_src[fid.0 as usize].clone();
                    self.bodies.pending.push(prev);
                } else {
                    self.declare_here(&f.name.name, Sym::Overloads(vec![fid], vec![]), f.name.span);
                    self.bodies.pending.push(fid);
                }
                self.scope.cur_ns = saved;
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
        let is_static = match self.scope.nss[ns.0 as usize].names.get(&f.name.name) {
            Some(Sym::Overloads(fs, _)) => fs.iter().any(|&x| {
                self.funcs[x.0 as usize]
                    .params
                    .first()
                    .is_none_or(|p| p.name != "this")
            }),
            _ => false,
        };
        let saved = self.scope.cur_ns;
        self.scope.cur_ns = ns;
        let fid = self.declare_func_sig(f, ns, Some(sid), is_static, None);
        self.scope.cur_ns = saved;
        if let Some(prev) = self.find_same_signature(ns, &f.name.name, fid) {
            let def = self.funcs[fid.0 as usize].clone();
            self.funcs[prev.0 as usize] = def;
            self.bodies.func_src[prev.0 as usize] = self.bodies.func_src[fid.0 as usize].clone();
            self.bodies.pending.push(prev);
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
        let saved = self.scope.cur_ns;
        let saved_f = self.bodies.fctx.take();
        self.scope.cur_ns = ns;
        let ret = self.resolve_type(&f.return_type);
        let ret = self.apply_sign(&f.modifiers, ret);
        if matches!(self.types.kind(ret), TyKind::SampledTexture(..)) {
            self.error(
                "OSH1018",
                f.return_type.span,
                format!(
                    "returning a `{}` is not supported: sample the global itself",
                    self.types.name(ret)
                ),
            );
        }
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
            if matches!(
                self.types.kind(self.strip_arrays(ty)),
                TyKind::SampledTexture(..)
            ) {
                self.error(
                    "OSH1018",
                    span,
                    format!(
                        "a parameter of type `{}` is not supported: sample the global itself",
                        self.types.name(ty)
                    ),
                );
            }
            if self.is_split_type(ty) {
                // A struct holding resources: one parameter per field.
                let saved_f = self.bodies.fctx.replace(crate::hlsl::sema::FnCtx {
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
                let first_local = self
                    .bodies
                    .fctx
                    .as_ref()
                    .map(|f| f.locals.len())
                    .unwrap_or(0);
                let id = self.make_split(
                    &name,
                    ty,
                    crate::hlsl::sema::split::SplitKind::Local,
                    &BindAttrs::default(),
                    span,
                );
                let ctx = std::mem::replace(&mut self.bodies.fctx, saved_f);
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
                split_sig.push(crate::hlsl::sema::split::SigParam { ty, first });
                split_names.push((name, id));
                continue;
            }
            split_sig.push(crate::hlsl::sema::split::SigParam {
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
                // In a template instance the default is C++'s: checked where a call leaves
                // the argument out, so `Remap remap = IdentityRemap::create()` instantiates
                // for a `FlipRemap` given explicitly. Its errors wait for such a call.
                let (n, errs) = (self.diag.diags.len(), self.diag.errors);
                let h = self.check_expr(e);
                let h = self.convert(h, ty, e.span);
                if self.scope.inst_depth > 0 && self.diag.errors > errs {
                    let held: Vec<_> = self.diag.diags.drain(n..).collect();
                    self.diag.errors = errs;
                    self.bodies.held_defaults.insert((e.span, ty), held);
                    return Expr::error(e.span);
                }
                h
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
        self.bodies.func_src.push(Some(FuncSrc {
            decl: f,
            ns,
            checked: false,
        }));
        if !split_names.is_empty() {
            let fid = FuncId(self.funcs.len() as u32 - 1);
            self.split.func_sigs.insert(fid, split_sig);
            self.split.func_split_names.insert(fid, split_names);
        }
        self.scope.cur_ns = saved;
        self.bodies.fctx = saved_f;
        FuncId(self.funcs.len() as u32 - 1)
    }

    /// Checks a function's body (once).
    pub fn check_body(&mut self, fid: FuncId) {
        let Some(src) = self.bodies.func_src[fid.0 as usize].clone() else {
            return;
        };
        if src.checked {
            return;
        }
        let Some(body) = &src.decl.body else {
            return;
        };
        if let Some(s) = &mut self.bodies.func_src[fid.0 as usize] {
            s.checked = true;
        }
        let def = &self.funcs[fid.0 as usize];
        let mut scope = FxHashMap::default();
        for (i, l) in def.locals.iter().enumerate() {
            if !l.name.is_empty() && l.name != "this" {
                scope.insert(l.name.clone(), Sym::Local(LocalId(i as u32)));
            }
        }
        for (name, id) in self.split.func_split_names.get(&fid).into_iter().flatten() {
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
        let saved = self.bodies.fctx.replace(ctx);
        let stmts = self.check_block_stmts(&body.stmts);
        let ctx = std::mem::replace(&mut self.bodies.fctx, saved);
        if let Some(ctx) = ctx {
            let f = &mut self.funcs[fid.0 as usize];
            f.locals = ctx.locals;
            f.body = Some(stmts);
        }
    }
}
