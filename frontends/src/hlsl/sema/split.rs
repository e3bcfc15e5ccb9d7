//! Structs that hold resources (`struct Material { Texture2D albedo; SamplerState s; float4
//! tint; }`). SPIR-V cannot store a texture in a struct, so such a variable is *split*: each
//! field becomes its own variable (a resource alias, a data local, or for globals a resource
//! global or a `$Globals` member), named `var.field`. A name that denotes a split struct is an
//! [`ExprKind::Split`] during analysis; member access picks the field's variable, assignment
//! and initialization go field by field, and a function parameter of such a type becomes one
//! parameter per field, so calls pass the fields. A function may return such a struct when
//! every field is a resource (`BindlessTex make()`): its `return` lists the fields
//! ([`ExprKind::Flatten`]), and a call's fields are [`Sema::split_call_field`]s that lowering
//! resolves to the globals the `return` names (`lower/resource_returns.rs`). What remains
//! unsupported (arrays of such structs, returning one with data fields, methods on one) is
//! reported.

use oneshader_ir::diag::Span;

use crate::hlsl::sema::hir::*;
use crate::hlsl::sema::{Sema, Sym};
use crate::hlsl::syntax::ast;

/// A split struct: its type and one entry per field.
#[derive(Clone, Debug)]
pub(crate) struct SplitDef {
    pub ty: TyId,
    pub fields: Vec<SplitField>,
}

/// One field of a split struct.
#[derive(Clone, Debug)]
pub(crate) enum SplitField {
    /// The variable holding the field.
    Leaf(Expr),
    /// A field that is itself a struct holding resources.
    Nested(u32),
}

/// A parameter of the declared signature of a function with split parameters: its type and
/// the first of the lowered parameters it became.
#[derive(Clone, Debug)]
pub(crate) struct SigParam {
    pub ty: TyId,
    pub first: usize,
}

/// How the variables of a split are created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SplitKind {
    /// Locals of the function being checked.
    Local,
    /// Globals (resources, and `$Globals` members for data).
    Global,
}

fn mk(kind: ExprKind, ty: TyId, span: Span) -> Expr {
    Expr { kind, ty, span }
}

impl<'a> Sema<'a> {
    /// True for a struct type with a resource inside.
    pub fn is_split_type(&self, t: TyId) -> bool {
        matches!(self.types.kind(t), TyKind::Struct(_)) && self.types.contains_resource(t)
    }

    /// Creates the variables of a split struct named `name`; `bind` goes to the first
    /// resource of a global split.
    pub fn make_split(
        &mut self,
        name: &str,
        ty: TyId,
        kind: SplitKind,
        bind: &BindAttrs,
        span: Span,
    ) -> u32 {
        let TyKind::Struct(sid) = self.types.kind(ty).clone() else {
            return 0;
        };
        let fields = self.types.struct_def(sid).fields.clone();
        let mut out = Vec::new();
        let mut bind = Some(bind.clone());
        for f in &fields {
            let fname = format!("{name}.{}", f.name);
            if self.is_split_type(f.ty) {
                let b = bind.take().unwrap_or_default();
                out.push(SplitField::Nested(
                    self.make_split(&fname, f.ty, kind, &b, span),
                ));
                continue;
            }
            if matches!(self.types.kind(f.ty), TyKind::Array(e, _) if self.is_split_type(*e)) {
                self.error(
                    "OSH1018",
                    span,
                    "arrays of structs that hold resources are not supported",
                );
                out.push(SplitField::Leaf(Expr::error(span)));
                continue;
            }
            let e = match kind {
                SplitKind::Local => {
                    let l = self.add_local(&fname, f.ty, span);
                    mk(ExprKind::Local(l), f.ty, span)
                }
                SplitKind::Global => {
                    if self.types.is_resource(f.ty) {
                        let b = if self.types.is_resource(f.ty) {
                            bind.take().unwrap_or_default()
                        } else {
                            BindAttrs::default()
                        };
                        let user_type = self.user_type(None, f.ty);
                        self.globals.push(GlobalDef {
                            name: fname.clone(),
                            ty: f.ty,
                            kind: GlobalKind::Resource,
                            major: f.major,
                            bind: b,
                            init: None,
                            const_value: None,
                            span,
                            name_span: span,
                            user_type,
                        });
                        let g = GlobalId(self.globals.len() as u32 - 1);
                        mk(ExprKind::Global(g), f.ty, span)
                    } else {
                        let (g, idx) = self.add_globals_member(&fname, f.ty, f.major, span);
                        let gty = self.globals[g.0 as usize].ty;
                        let base = mk(ExprKind::Global(g), gty, span);
                        mk(ExprKind::Field(Box::new(base), idx), f.ty, span)
                    }
                }
            };
            out.push(SplitField::Leaf(e));
        }
        self.split.splits.push(SplitDef { ty, fields: out });
        self.split.splits.len() as u32 - 1
    }

    /// The variables of a split in field order, nested splits flattened.
    pub fn split_leaves(&self, id: u32, out: &mut Vec<Expr>) {
        let Some(def) = self.split.splits.get(id as usize) else {
            return;
        };
        for f in &def.fields {
            match f {
                SplitField::Leaf(e) => out.push(e.clone()),
                SplitField::Nested(n) => self.split_leaves(*n, out),
            }
        }
    }

    /// `split.member`.
    pub fn split_member(&mut self, id: u32, member: &ast::Ident, span: Span) -> Expr {
        let Some(def) = self.split.splits.get(id as usize).cloned() else {
            return Expr::error(span);
        };
        let TyKind::Struct(sid) = self.types.kind(def.ty).clone() else {
            return Expr::error(span);
        };
        let Some(i) = self.types.struct_def(sid).field(&member.name) else {
            self.error(
                "OSH1009",
                member.span,
                format!(
                    "`{}` has no member `{}`",
                    self.types.name(def.ty),
                    member.name
                ),
            );
            return Expr::error(span);
        };
        let Some(field) = def.fields.get(i) else {
            self.error(
                "OSH1018",
                member.span,
                format!(
                    "bit field `{}` of a struct holding resources is not supported",
                    member.name
                ),
            );
            return Expr::error(span);
        };
        match field {
            SplitField::Leaf(e) => Expr { span, ..e.clone() },
            SplitField::Nested(n) => {
                let ty = self.split.splits[*n as usize].ty;
                mk(ExprKind::Split(*n), ty, span)
            }
        }
    }

    /// `dst = src` for split structs: field by field (a comma chain of assignments).
    pub fn split_assign(&mut self, dst: u32, src: &Expr, span: Span) -> Expr {
        let ExprKind::Split(s) = src.kind else {
            self.error(
                "OSH1005",
                src.span,
                format!(
                    "cannot assign `{}` to a struct that holds resources",
                    self.types.name(src.ty)
                ),
            );
            return Expr::error(span);
        };
        if self.split.splits[dst as usize].ty != self.split.splits[s as usize].ty {
            self.error(
                "OSH1005",
                src.span,
                format!(
                    "cannot convert from `{}` to `{}`",
                    self.types.name(self.split.splits[s as usize].ty),
                    self.types.name(self.split.splits[dst as usize].ty)
                ),
            );
            return Expr::error(span);
        }
        let mut d = Vec::new();
        let mut r = Vec::new();
        self.split_leaves(dst, &mut d);
        self.split_leaves(s, &mut r);
        let mut acc: Option<Expr> = None;
        for (l, v) in d.into_iter().zip(r) {
            let ty = l.ty;
            if let ExprKind::Global(_) = l.kind
                && self.types.is_resource(ty)
            {
                self.error("OSH1008", span, "a global resource cannot be assigned");
                return Expr::error(span);
            }
            if let Some(why) = self.not_writable(&l)
                && !self.types.is_resource(ty)
            {
                self.error("OSH1008", span, why);
                return Expr::error(span);
            }
            let a = mk(ExprKind::Assign(Box::new(l), Box::new(v)), ty, span);
            acc = Some(match acc {
                None => a,
                Some(p) => mk(ExprKind::Comma(Box::new(p), Box::new(a)), ty, span),
            });
        }
        let e = acc.unwrap_or_else(|| Expr::error(span));
        mk(
            ExprKind::Cast(CastKind::Reshape, Box::new(e)),
            Types::VOID,
            span,
        )
    }

    /// The statements initializing a split local from an initializer (a list or a split).
    pub fn split_init(&mut self, id: u32, init: &'a ast::Expr, out: &mut Vec<Stmt>) {
        let mut leaves = Vec::new();
        self.split_leaves(id, &mut leaves);
        let ast::ExprKind::InitList(items) = &init.kind else {
            let src = self.check_expr(init);
            if matches!(src.kind, ExprKind::Call(..)) && src.ty == self.split.splits[id as usize].ty
            {
                // `BindlessTex b = make();`.
                let vals = self.split_call_leaves(&src);
                for (l, v) in leaves.into_iter().zip(vals) {
                    if let ExprKind::Local(lid) = l.kind {
                        out.push(Stmt::Local(lid, Some(v)));
                    }
                }
                return;
            }
            if let ExprKind::Split(s) = src.kind
                && self.split.splits[s as usize].ty == self.split.splits[id as usize].ty
            {
                let mut r = Vec::new();
                self.split_leaves(s, &mut r);
                for (l, v) in leaves.into_iter().zip(r) {
                    if let ExprKind::Local(lid) = l.kind {
                        out.push(Stmt::Local(lid, Some(v)));
                    }
                }
            } else if !self.types.is_error(src.ty) {
                self.error(
                    "OSH1005",
                    init.span,
                    format!(
                        "cannot initialize `{}` from `{}`",
                        self.types.name(self.split.splits[id as usize].ty),
                        self.types.name(src.ty)
                    ),
                );
            }
            return;
        };
        let mut parts = Vec::new();
        self.collect_init_items(items, &mut parts);
        let mut it = parts.into_iter().peekable();
        for l in leaves {
            let want = self.types.flat_count(l.ty).max(1);
            let mut got = 0;
            let mut mine = Vec::new();
            while got < want {
                let Some(p) = it.next() else { break };
                got += if self.types.is_resource(p.ty) {
                    1
                } else {
                    self.types.flat_count(p.ty)
                };
                mine.push(p);
            }
            if got != want {
                self.error(
                    "OSH1013",
                    init.span,
                    format!(
                        "the initializer does not match the fields of `{}`",
                        self.types.name(self.split.splits[id as usize].ty)
                    ),
                );
                return;
            }
            let v = if mine.len() == 1 && (self.types.is_resource(l.ty) || mine[0].ty == l.ty) {
                let p = mine.pop().unwrap_or_else(|| Expr::error(init.span));
                let s = p.span;
                self.convert(p, l.ty, s)
            } else {
                self.flatten_to(l.ty, mine, init.span)
            };
            if let ExprKind::Local(lid) = l.kind {
                out.push(Stmt::Local(lid, Some(v)));
            }
        }
        if it.peek().is_some() {
            self.error("OSH1013", init.span, "too many initializers");
        }
    }

    /// The items of an initializer list, nested lists flattened.
    pub fn collect_init_items(&mut self, items: &'a [ast::Expr], out: &mut Vec<Expr>) {
        for it in items {
            match &it.kind {
                ast::ExprKind::InitList(inner) => self.collect_init_items(inner, out),
                _ => out.push(self.check_expr(it)),
            }
        }
    }

    /// Declares a split local and its initialization.
    pub fn split_local(
        &mut self,
        name: &str,
        ty: TyId,
        init: Option<&'a ast::Expr>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) {
        let id = self.make_split(name, ty, SplitKind::Local, &BindAttrs::default(), span);
        if let Some(i) = init {
            self.split_init(id, i, out);
        }
        self.declare_here(name, Sym::Split(id), span);
    }
}

impl<'a> Sema<'a> {
    /// True when every leaf of split type `ty` is a resource (such a struct can be returned).
    pub fn split_all_resources(&self, ty: TyId) -> bool {
        let TyKind::Struct(sid) = self.types.kind(ty) else {
            return false;
        };
        self.types.struct_def(*sid).fields.iter().all(|f| {
            self.types.is_resource(f.ty)
                || (self.is_split_type(f.ty) && self.split_all_resources(f.ty))
        })
    }

    /// The leaf types of split type `ty`, nested splits flattened.
    fn split_leaf_types(&self, ty: TyId, out: &mut Vec<TyId>) {
        let TyKind::Struct(sid) = self.types.kind(ty) else {
            return;
        };
        for f in &self.types.struct_def(*sid).fields {
            if self.is_split_type(f.ty) {
                self.split_leaf_types(f.ty, out);
            } else {
                out.push(f.ty);
            }
        }
    }

    /// `return s;` in a function returning split type `ret`: the leaves of `s` in order, or
    /// an error when `ret` holds data too.
    pub fn split_return(&mut self, h: Expr, ret: TyId, span: Span) -> Expr {
        if !self.split_all_resources(ret) {
            self.error(
                "OSH1018",
                span,
                format!(
                    "returning `{}`, a struct holding resources and data, is not supported: \
                     return a struct of resources only, or pass the data separately",
                    self.types.name(ret)
                ),
            );
            return Expr::error(span);
        }
        match h.kind {
            ExprKind::Split(id) if self.split.splits[id as usize].ty == ret => {
                let mut leaves = Vec::new();
                self.split_leaves(id, &mut leaves);
                mk(ExprKind::Flatten(leaves), ret, span)
            }
            // `return make();`: the same fields.
            ExprKind::Call(..) if h.ty == ret => h,
            _ => {
                if !self.types.is_error(h.ty) {
                    self.error(
                        "OSH1005",
                        span,
                        format!(
                            "cannot return `{}` as `{}`",
                            self.types.name(h.ty),
                            self.types.name(ret)
                        ),
                    );
                }
                Expr::error(span)
            }
        }
    }

    /// The leaves of what a call returning split type `call.ty` returns: leaf `k` is
    /// `Field(call, k)` (`k` counts leaves, nested splits flattened), which lowering resolves
    /// to the resource the callee's `return` names without calling again; the first is
    /// `(call, leaf 0)` so the call runs once for its effects.
    pub fn split_call_leaves(&mut self, call: &Expr) -> Vec<Expr> {
        let mut tys = Vec::new();
        self.split_leaf_types(call.ty, &mut tys);
        tys.into_iter()
            .enumerate()
            .map(|(k, t)| {
                let f = mk(
                    ExprKind::Field(Box::new(call.clone()), k as u32),
                    t,
                    call.span,
                );
                if k == 0 {
                    mk(
                        ExprKind::Comma(Box::new(call.clone()), Box::new(f)),
                        t,
                        call.span,
                    )
                } else {
                    f
                }
            })
            .collect()
    }

    /// `make().t`: the leaf of a call's split result named by `member` (a direct field).
    pub fn split_call_field(&mut self, call: Expr, member: &ast::Ident, span: Span) -> Expr {
        let TyKind::Struct(sid) = self.types.kind(call.ty).clone() else {
            return Expr::error(span);
        };
        let def = self.types.struct_def(sid).clone();
        let Some(i) = def.field(&member.name) else {
            self.error(
                "OSH1009",
                member.span,
                format!(
                    "`{}` has no member `{}`",
                    self.types.name(call.ty),
                    member.name
                ),
            );
            return Expr::error(span);
        };
        let mut k = 0;
        for f in &def.fields[..i] {
            let mut t = Vec::new();
            if self.is_split_type(f.ty) {
                self.split_leaf_types(f.ty, &mut t);
                k += t.len();
            } else {
                k += 1;
            }
        }
        let fty = def.fields[i].ty;
        if self.is_split_type(fty) {
            self.error(
                "OSH1018",
                member.span,
                "a nested struct of a returned struct of resources is not supported: name its \
                 resources one level up",
            );
            return Expr::error(span);
        }
        let f = mk(ExprKind::Field(Box::new(call.clone()), k as u32), fty, span);
        mk(ExprKind::Comma(Box::new(call), Box::new(f)), fty, span)
    }
}
