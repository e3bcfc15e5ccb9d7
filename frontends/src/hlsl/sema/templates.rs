//! Semantic analysis, templates: declared templates, their arguments (types and constants, with
//! defaults), the scope that binds them, and instantiation of struct and function templates on
//! demand (bounded nesting).

use oneshader_ir::diag::Span;
use rustc_hash::FxHashMap;

use crate::hlsl::sema::hir::*;
use crate::hlsl::sema::{NsId, Sema, Sym, TArg, Template, TemplateBody, TemplateId};
use crate::hlsl::syntax::ast::{self, Modifier, TemplateArg};

impl<'a> Sema<'a> {
    /// Registers a template.
    pub fn add_template(
        &mut self,
        name: &str,
        body: TemplateBody<'a>,
        params: &'a [ast::TemplateParam],
        owner: Option<StructId>,
    ) -> TemplateId {
        let ns = self.scope_ns();
        self.scope.templates.push(Template {
            name: name.to_string(),
            body,
            params,
            ns,
            owner,
            instances: FxHashMap::default(),
        });
        TemplateId(self.scope.templates.len() as u32 - 1)
    }

    /// Resolves explicit template arguments (defaults filled in).
    pub fn resolve_template_args(
        &mut self,
        tid: TemplateId,
        args: &'a [TemplateArg],
        span: Span,
    ) -> Option<Vec<TArg>> {
        let params = self.scope.templates[tid.0 as usize].params;
        if args.len() > params.len() {
            self.error(
                "OSH1017",
                span,
                format!(
                    "`{}` takes {} template argument(s), {} given",
                    self.scope.templates[tid.0 as usize].name,
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
            let t = &self.scope.templates[tid.0 as usize];
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
                            let saved = self.scope.cur_ns;
                            let saved_f = self.bodies.fctx.take();
                            self.scope.cur_ns = env;
                            let t = self.resolve_type(vt);
                            self.scope.cur_ns = saved;
                            self.bodies.fctx = saved_f;
                            t
                        }
                        None => self.types.int(),
                    };
                    Sym::Const(ty, ConstVal::Int(*v))
                }
            };
            self.scope.nss[env.0 as usize]
                .names
                .insert(name.name.clone(), sym);
        }
        env
    }

    /// The member scope of a struct type.
    pub fn type_ns(&self, t: TyId) -> Option<NsId> {
        match self.types.kind(t) {
            TyKind::Struct(s) => self.scope.struct_ns.get(s.0 as usize).copied(),
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
        if let Some(Sym::Type(t, _)) = self.scope.templates[tid.0 as usize].instances.get(&args) {
            return *t;
        }
        if self.scope.inst_depth > 32 {
            self.error("OSH1017", span, "template instantiation nested too deep");
            return Types::ERROR;
        }
        let decl = match self.scope.templates[tid.0 as usize].body.clone() {
            TemplateBody::Struct(d) => d,
            TemplateBody::Alias(t) => {
                // An alias template: the aliased type with the parameters bound.
                let env = self.template_env(tid, &args);
                let saved_ns = self.scope.cur_ns;
                let saved_f = self.bodies.fctx.take();
                self.scope.cur_ns = env;
                self.scope.inst_depth += 1;
                let ty = self.resolve_type(&t.ty);
                let ty = self.apply_sign(&t.modifiers, ty);
                let ty = match t.declarators.first() {
                    Some(d) => self.declarator_type(ty, d),
                    None => ty,
                };
                self.scope.inst_depth -= 1;
                self.scope.cur_ns = saved_ns;
                self.bodies.fctx = saved_f;
                let ns = self.type_ns(ty);
                self.scope.templates[tid.0 as usize]
                    .instances
                    .insert(args, Sym::Type(ty, ns));
                return ty;
            }
            TemplateBody::Func(_) => return Types::ERROR,
        };
        let name = format!(
            "{}<{}>",
            self.scope.templates[tid.0 as usize].name,
            self.targs_text(&args)
        );
        let env = self.template_env(tid, &args);
        let saved_ns = self.scope.cur_ns;
        let saved_f = self.bodies.fctx.take();
        self.scope.cur_ns = env;
        self.scope.inst_depth += 1;
        let ty = self.declare_struct_named(decl, name, Some((tid, args.clone())));
        self.scope.inst_depth -= 1;
        self.scope.cur_ns = saved_ns;
        self.bodies.fctx = saved_f;
        ty
    }

    /// Instantiates a function template (memoized); its body is checked now.
    pub fn instantiate_func(
        &mut self,
        tid: TemplateId,
        args: Vec<TArg>,
        span: Span,
    ) -> Option<FuncId> {
        if let Some(Sym::Overloads(f, _)) =
            self.scope.templates[tid.0 as usize].instances.get(&args)
        {
            return f.first().copied();
        }
        if self.scope.inst_depth > 32 {
            self.error("OSH1017", span, "template instantiation nested too deep");
            return None;
        }
        let TemplateBody::Func(decl) = self.scope.templates[tid.0 as usize].body.clone() else {
            return None;
        };
        let owner = self.scope.templates[tid.0 as usize].owner;
        let env = self.template_env(tid, &args);
        let saved_ns = self.scope.cur_ns;
        let saved_f = self.bodies.fctx.take();
        self.scope.cur_ns = env;
        self.scope.inst_depth += 1;
        let is_static = decl
            .modifiers
            .iter()
            .any(|m| m.modifier == Modifier::Static);
        let name = format!(
            "{}<{}>",
            self.scope.templates[tid.0 as usize].name,
            self.targs_text(&args)
        );
        let fid = self.declare_func_sig(decl, env, owner, is_static, Some(name));
        self.scope.templates[tid.0 as usize]
            .instances
            .insert(args, Sym::Overloads(vec![fid], vec![]));
        self.check_body(fid);
        self.scope.inst_depth -= 1;
        self.scope.cur_ns = saved_ns;
        self.bodies.fctx = saved_f;
        Some(fid)
    }
}
