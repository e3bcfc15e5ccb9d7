//! Semantic analysis, part 3: statements and local declarations.

use oneshader_ir::diag::Span;
use rustc_hash::FxHashMap;

use crate::hlsl::sema::hir::*;
use crate::hlsl::sema::{Sema, Sym};
use crate::hlsl::syntax::ast::{self, Modifier, StmtKind};

impl<'a> Sema<'a> {
    /// Checks the statements of a block in a new scope.
    pub fn check_block_stmts(&mut self, stmts: &'a [ast::Stmt]) -> Vec<Stmt> {
        self.push_scope();
        let mut out = Vec::new();
        for s in stmts {
            if self.too_many_errors() {
                break;
            }
            self.check_stmt(s, &mut out);
        }
        self.pop_scope();
        out
    }

    fn push_scope(&mut self) {
        if let Some(f) = &mut self.bodies.fctx {
            f.scopes.push(FxHashMap::default());
        }
    }

    fn pop_scope(&mut self) {
        if let Some(f) = &mut self.bodies.fctx {
            f.scopes.pop();
        }
    }

    /// The body of a control statement: its statements (a block's own, or the single one).
    fn check_sub(&mut self, s: &'a ast::Stmt) -> Vec<Stmt> {
        match &s.kind {
            StmtKind::Block(b) => {
                let body = self.check_block_stmts(&b.stmts);
                scoped(b, body)
            }
            _ => {
                self.push_scope();
                let mut out = Vec::new();
                self.check_stmt(s, &mut out);
                self.pop_scope();
                out
            }
        }
    }

    fn hints(&mut self, attrs: &'a [ast::Attribute]) -> Hints {
        let mut h = Hints::default();
        for a in attrs {
            match a.name.name.to_ascii_lowercase().as_str() {
                "unroll" => {
                    let n = self.attr_u32_args(a).first().copied().unwrap_or(0);
                    h.unroll = Some(n);
                }
                "loop" | "fastopt" => h.dont_unroll = true,
                "flatten" => h.flatten = true,
                "branch" | "call" => h.branch = true,
                _ => {}
            }
        }
        h
    }

    /// A condition converted to `bool` (a scalar).
    fn condition(&mut self, c: &'a ast::Condition, out: &mut Vec<Stmt>) -> Expr {
        let e = match c {
            ast::Condition::Expr(e) => self.check_expr(e),
            ast::Condition::Decl(v) => {
                self.check_local_decl(v, out);
                match v.declarators.first() {
                    Some(d) => match self.lookup(&d.name.name) {
                        Some(Sym::Local(l)) => {
                            let ty = self
                                .bodies
                                .fctx
                                .as_ref()
                                .map(|f| f.locals[l.0 as usize].ty)
                                .unwrap_or(Types::ERROR);
                            Expr {
                                kind: ExprKind::Local(l),
                                ty,
                                span: d.span,
                            }
                        }
                        _ => Expr::error(v.span),
                    },
                    None => Expr::error(v.span),
                }
            }
        };
        self.cond_bool(e)
    }

    /// Converts a condition to a scalar `bool` (vectors are an error: use `any`/`all`).
    pub fn cond_bool(&mut self, e: Expr) -> Expr {
        if self.types.is_error(e.ty) {
            return e;
        }
        let span = e.span;
        match self.types.kind(e.ty) {
            TyKind::Scalar(_) | TyKind::Vector(_, 1) | TyKind::Matrix(_, 1, 1) => {
                let b = self.types.bool();
                self.convert(e, b, span)
            }
            TyKind::Vector(..) | TyKind::Matrix(..) => {
                // DXC reduces to the first component with a warning.
                self.warn(
                    "OSH1006",
                    span,
                    format!(
                        "a condition of type `{}` uses its first component",
                        self.types.name(e.ty)
                    ),
                );
                let b = self.types.bool();
                self.convert(e, b, span)
            }
            _ => {
                self.error(
                    "OSH1005",
                    span,
                    format!(
                        "a condition must be a scalar, not `{}`",
                        self.types.name(e.ty)
                    ),
                );
                Expr::error(span)
            }
        }
    }

    fn check_stmt(&mut self, s: &'a ast::Stmt, out: &mut Vec<Stmt>) {
        match &s.kind {
            StmtKind::Expr(e) => {
                let h = self.check_expr(e);
                out.push(Stmt::Expr(h));
            }
            StmtKind::Decl(d) => match &d.kind {
                ast::DeclKind::Var(v) => self.check_local_decl(v, out),
                ast::DeclKind::Typedef(_)
                | ast::DeclKind::Struct(_)
                | ast::DeclKind::Enum(_)
                | ast::DeclKind::Using(_)
                | ast::DeclKind::UsingNamespace(_)
                | ast::DeclKind::StaticAssert { .. } => {
                    // Declared in the current local scope.
                    let saved = self.scope.cur_ns;
                    if let Some(f) = &self.bodies.fctx {
                        self.scope.cur_ns = f.ns;
                    }
                    self.declare_local_decl(d);
                    self.scope.cur_ns = saved;
                }
                ast::DeclKind::Empty | ast::DeclKind::Error => {}
                // A prototype inside a body names a function defined elsewhere, which lookup
                // finds anyway.
                ast::DeclKind::Function(f) if f.body.is_none() => {}
                _ => self.error(
                    "OSH1018",
                    d.span,
                    "this declaration is not allowed inside a function",
                ),
            },
            StmtKind::Block(b) => {
                let body = self.check_block_stmts(&b.stmts);
                out.extend(scoped(b, vec![Stmt::Block(body)]));
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.push_scope();
                let mut pre = Vec::new();
                let c = self.condition(cond, &mut pre);
                let hints = self.hints(&s.attributes);
                let t = self.check_sub(then);
                let o = match otherwise {
                    Some(o) => self.check_sub(o),
                    None => Vec::new(),
                };
                self.pop_scope();
                let st = Stmt::If {
                    cond: c,
                    then: t,
                    otherwise: o,
                    hints,
                };
                if pre.is_empty() {
                    out.push(st);
                } else {
                    pre.push(st);
                    out.push(Stmt::Block(pre));
                }
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                self.push_scope();
                let mut init_out = Vec::new();
                if let Some(i) = init {
                    self.check_stmt(i, &mut init_out);
                }
                let c = cond.as_ref().map(|c| {
                    let e = self.check_expr(c);
                    self.cond_bool(e)
                });
                let st = step.as_ref().map(|x| self.check_expr(x));
                let hints = self.hints(&s.attributes);
                self.enter_loop();
                let b = self.check_sub(body);
                self.leave_loop();
                self.pop_scope();
                out.push(Stmt::Loop {
                    init: init_out,
                    cond: c,
                    step: st,
                    body: b,
                    test_first: true,
                    hints,
                });
            }
            StmtKind::While { cond, body } => {
                self.push_scope();
                let mut pre = Vec::new();
                let mut c = self.condition(cond, &mut pre);
                // `while (T x = e)`: the declaration is evaluated before every test.
                for st in pre.into_iter().rev() {
                    if let Stmt::Local(l, Some(init)) = st {
                        let ty = init.ty;
                        let span = c.span;
                        let lv = Expr {
                            kind: ExprKind::Local(l),
                            ty,
                            span,
                        };
                        let set = Expr {
                            kind: ExprKind::Assign(Box::new(lv), Box::new(init)),
                            ty,
                            span,
                        };
                        let bt = c.ty;
                        c = Expr {
                            kind: ExprKind::Comma(Box::new(set), Box::new(c)),
                            ty: bt,
                            span,
                        };
                    }
                }
                let hints = self.hints(&s.attributes);
                self.enter_loop();
                let b = self.check_sub(body);
                self.leave_loop();
                self.pop_scope();
                out.push(Stmt::Loop {
                    init: Vec::new(),
                    cond: Some(c),
                    step: None,
                    body: b,
                    test_first: true,
                    hints,
                });
            }
            StmtKind::DoWhile { body, cond } => {
                let hints = self.hints(&s.attributes);
                self.enter_loop();
                let b = self.check_sub(body);
                self.leave_loop();
                let e = self.check_expr(cond);
                let c = self.cond_bool(e);
                out.push(Stmt::Loop {
                    init: Vec::new(),
                    cond: Some(c),
                    step: None,
                    body: b,
                    test_first: false,
                    hints,
                });
            }
            StmtKind::Switch { value, cases } => self.check_switch(s, value, cases, out),
            StmtKind::Label(_) => self.error(
                "OSH1018",
                s.span,
                "a `case` label inside a nested block of a `switch` is not supported",
            ),
            StmtKind::Break => {
                let ok = self
                    .bodies
                    .fctx
                    .as_ref()
                    .is_some_and(|f| f.loops > 0 || f.switches > 0);
                if !ok {
                    self.error("OSH1014", s.span, "`break` outside a loop or switch");
                }
                out.push(Stmt::Break);
            }
            StmtKind::Continue => {
                let ok = self.bodies.fctx.as_ref().is_some_and(|f| f.loops > 0);
                if !ok {
                    self.error("OSH1014", s.span, "`continue` outside a loop");
                }
                out.push(Stmt::Continue);
            }
            StmtKind::Return(v) => {
                let ret = self
                    .bodies
                    .fctx
                    .as_ref()
                    .map(|f| f.ret)
                    .unwrap_or(Types::VOID);
                match v {
                    Some(e) => {
                        let h = self.check_expr(e);
                        if self.types.is_void(ret) {
                            if self.types.is_void(h.ty) || self.types.is_error(h.ty) {
                                out.push(Stmt::Expr(h));
                                out.push(Stmt::Return(None));
                            } else {
                                self.error(
                                    "OSH1015",
                                    e.span,
                                    "a `void` function cannot return a value",
                                );
                                out.push(Stmt::Return(None));
                            }
                        } else if self.is_split_type(ret) {
                            let h = self.split_return(h, ret, e.span);
                            out.push(Stmt::Return(Some(h)));
                        } else {
                            let span = e.span;
                            let h = self.convert(h, ret, span);
                            out.push(Stmt::Return(Some(h)));
                        }
                    }
                    None => {
                        if !self.types.is_void(ret) && !self.types.is_error(ret) {
                            self.error(
                                "OSH1015",
                                s.span,
                                format!("this function must return a `{}`", self.types.name(ret)),
                            );
                        }
                        out.push(Stmt::Return(None));
                    }
                }
            }
            StmtKind::Discard => out.push(Stmt::Discard(s.span)),
            StmtKind::Empty | StmtKind::Error => {}
        }
    }

    fn declare_local_decl(&mut self, d: &'a ast::Decl) {
        match &d.kind {
            ast::DeclKind::Typedef(_) | ast::DeclKind::Struct(_) | ast::DeclKind::Enum(_) => {
                // These declare into the innermost local scope via `declare_here`.
                self.declare_all(std::slice::from_ref(d));
            }
            _ => self.declare_all(std::slice::from_ref(d)),
        }
    }

    fn enter_loop(&mut self) {
        if let Some(f) = &mut self.bodies.fctx {
            f.loops += 1;
        }
    }

    fn leave_loop(&mut self) {
        if let Some(f) = &mut self.bodies.fctx {
            f.loops -= 1;
        }
    }

    fn check_switch(
        &mut self,
        s: &'a ast::Stmt,
        value: &'a ast::Condition,
        cases: &'a [ast::SwitchCase],
        out: &mut Vec<Stmt>,
    ) {
        self.push_scope();
        let mut pre = Vec::new();
        let v = match value {
            ast::Condition::Expr(e) => self.check_expr(e),
            ast::Condition::Decl(v) => {
                // `switch (T x = e)`: declared before the switch.
                self.check_local_decl(v, &mut pre);
                match v
                    .declarators
                    .first()
                    .and_then(|d| self.lookup(&d.name.name))
                {
                    Some(Sym::Local(l)) => {
                        let ty = self
                            .bodies
                            .fctx
                            .as_ref()
                            .map(|f| f.locals[l.0 as usize].ty)
                            .unwrap_or(Types::ERROR);
                        Expr {
                            kind: ExprKind::Local(l),
                            ty,
                            span: v.span,
                        }
                    }
                    _ => Expr::error(value.span()),
                }
            }
        };
        let span = v.span;
        let v = match self.types.scalar_of(v.ty) {
            Some(sc)
                if matches!(
                    self.types.kind(v.ty),
                    TyKind::Scalar(_) | TyKind::Vector(_, 1)
                ) =>
            {
                let t = if sc.is_unsigned() {
                    self.types.uint()
                } else {
                    self.types.int()
                };
                self.convert(v, t, span)
            }
            _ => {
                if !self.types.is_error(v.ty) {
                    self.error(
                        "OSH1005",
                        span,
                        format!(
                            "a switch selector must be an integer scalar, not `{}`",
                            self.types.name(v.ty)
                        ),
                    );
                }
                Expr::error(span)
            }
        };
        let hints = self.hints(&s.attributes);
        if let Some(f) = &mut self.bodies.fctx {
            f.switches += 1;
        }
        let mut seen: Vec<i128> = Vec::new();
        let mut has_default = false;
        let mut groups = Vec::new();
        for c in cases {
            let mut labels = Vec::new();
            for l in &c.labels {
                match l {
                    ast::CaseLabel::Case(e) => {
                        if let Some(x) = self.const_int_expr(e) {
                            let x = match self.types.scalar_of(v.ty) {
                                Some(sc) => wrap_int(x, sc),
                                None => x,
                            };
                            if seen.contains(&x) {
                                self.error("OSH1012", e.span, format!("duplicate case value {x}"));
                            } else {
                                seen.push(x);
                                labels.push(CaseValue::Value(x));
                            }
                        }
                    }
                    ast::CaseLabel::Default(sp) => {
                        if has_default {
                            self.error("OSH1012", *sp, "more than one `default` label");
                        } else {
                            has_default = true;
                            labels.push(CaseValue::Default);
                        }
                    }
                }
            }
            self.push_scope();
            let mut body = Vec::new();
            for st in &c.body {
                self.check_stmt(st, &mut body);
            }
            self.pop_scope();
            groups.push(Case { labels, body });
        }
        if let Some(f) = &mut self.bodies.fctx {
            f.switches -= 1;
        }
        self.pop_scope();
        pre.push(Stmt::Switch {
            value: v,
            cases: groups,
            hints,
        });
        if pre.len() == 1 {
            out.extend(pre);
        } else {
            out.push(Stmt::Block(pre));
        }
    }

    /// Adds a local variable to the current function and scope.
    pub fn add_local(&mut self, name: &str, ty: TyId, span: Span) -> LocalId {
        let Some(f) = &mut self.bodies.fctx else {
            return LocalId(0);
        };
        f.locals.push(LocalDef {
            name: name.to_string(),
            ty,
            major: None,
            precise: false,
            span,
        });
        f.local_consts.push(None);
        f.local_const_flag.push(false);
        let id = LocalId(f.locals.len() as u32 - 1);
        if let Some(scope) = f.scopes.last_mut() {
            scope.insert(name.to_string(), Sym::Local(id));
        }
        id
    }

    fn check_local_decl(&mut self, v: &'a ast::VarDecl, out: &mut Vec<Stmt>) {
        let base = self.resolve_type(&v.ty);
        let base = self.apply_sign(&v.modifiers, base);
        let has = |m: Modifier| v.modifiers.iter().any(|x| x.modifier == m);
        let is_static = has(Modifier::Static);
        let is_const = has(Modifier::Const);
        let major = self.major_of(&v.modifiers);
        let precise = has(Modifier::Precise);
        if has(Modifier::Groupshared) {
            self.error(
                "OSH1018",
                v.span,
                "`groupshared` variables must be declared at global scope",
            );
        }
        for d in &v.declarators {
            let mut ty = self.declarator_type(base, d);
            if matches!(
                self.types.kind(self.strip_arrays(ty)),
                TyKind::Unsupported(_) | TyKind::SampledTexture(..)
            ) {
                self.error(
                    "OSH1018",
                    d.span,
                    format!("`{}` is not supported", self.types.name(ty)),
                );
                ty = Types::ERROR;
            }
            if self.is_split_type(ty) && !is_static {
                self.split_local(&d.name.name, ty, d.init.as_ref(), d.span, out);
                continue;
            }
            if is_static {
                // A static local is a private global initialized once.
                let init = d.init.as_ref().map(|e| self.check_initializer(e, ty));
                let ty = init
                    .as_ref()
                    .filter(|_| matches!(self.types.kind(ty), TyKind::UnsizedArray(_)))
                    .map(|i| i.ty)
                    .unwrap_or(ty);
                if let Some(i) = &init
                    && uses_locals(i)
                {
                    self.error(
                        "OSH1018",
                        i.span,
                        "a `static` local must be initialized by an expression that uses no \
                         local variables",
                    );
                }
                let const_value = if is_const {
                    init.as_ref().and_then(|i| self.eval_const(i))
                } else {
                    None
                };
                let fname = self
                    .bodies
                    .fctx
                    .as_ref()
                    .map(|f| self.funcs[f.func.0 as usize].name.clone())
                    .unwrap_or_default();
                self.globals.push(GlobalDef {
                    name: format!("{fname}.{}", d.name.name),
                    ty,
                    kind: if const_value.is_some() {
                        GlobalKind::Const
                    } else {
                        GlobalKind::Static
                    },
                    major,
                    bind: BindAttrs::default(),
                    init,
                    const_value,
                    span: d.span,
                    name_span: d.name.span,
                    user_type: None,
                });
                let g = GlobalId(self.globals.len() as u32 - 1);
                self.declare_here(&d.name.name, Sym::Global(g), d.name.span);
                continue;
            }
            // The variable is in scope in its own initializer (`float x = x = f();`), as in
            // C++ and DXC; an unsized array takes its size from the initializer first.
            let sized = !matches!(self.types.kind(ty), TyKind::UnsizedArray(_));
            let early = sized.then(|| self.add_local(&d.name.name, ty, d.span));
            let init = d.init.as_ref().map(|e| self.check_initializer(e, ty));
            if let (TyKind::UnsizedArray(_), Some(i)) = (self.types.kind(ty), &init) {
                ty = i.ty;
            }
            if is_const && init.is_none() && !self.types.is_error(ty) {
                self.error(
                    "OSH1013",
                    d.span,
                    format!("the const variable `{}` needs an initializer", d.name.name),
                );
            }
            let l = match early {
                Some(l) => l,
                None => self.add_local(&d.name.name, ty, d.span),
            };
            if let Some(f) = &mut self.bodies.fctx {
                f.locals[l.0 as usize].major = major;
                f.locals[l.0 as usize].precise = precise;
                f.local_const_flag[l.0 as usize] = is_const;
            }
            if is_const && let Some(i) = &init {
                let v = self.eval_const(i);
                if let Some(f) = &mut self.bodies.fctx {
                    f.local_consts[l.0 as usize] = v;
                }
            }
            if self.types.is_resource(ty) && init.is_none() {
                // A resource local without initializer is only useful once assigned.
            }
            out.push(Stmt::Local(l, init));
        }
    }
}

/// True when an expression reads a local variable.
pub fn uses_locals(e: &Expr) -> bool {
    let mut found = false;
    visit(e, &mut |x| {
        if matches!(x.kind, ExprKind::Local(_)) {
            found = true;
        }
    });
    found
}

/// Calls `f` on every sub-expression (pre-order).
pub fn visit(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Error
        | ExprKind::Str(_)
        | ExprKind::Const(_)
        | ExprKind::Local(_)
        | ExprKind::Global(_)
        | ExprKind::Split(_) => {}
        ExprKind::Field(b, _)
        | ExprKind::Swizzle(b, _)
        | ExprKind::MatSwizzle(b, _)
        | ExprKind::Unary(_, b)
        | ExprKind::Cast(_, b)
        | ExprKind::ArrayLength(b)
        | ExprKind::HeapIndex(_, b)
        | ExprKind::IncDec(b, _, _) => visit(b, f),
        ExprKind::Index(a, b)
        | ExprKind::TexIndex(a, b)
        | ExprKind::Binary(_, a, b)
        | ExprKind::Logical(_, a, b)
        | ExprKind::Assign(a, b)
        | ExprKind::Comma(a, b)
        | ExprKind::CompoundAssign { lhs: a, rhs: b, .. } => {
            visit(a, f);
            visit(b, f);
        }
        ExprKind::Ternary(a, b, c) => {
            visit(a, f);
            visit(b, f);
            visit(c, f);
        }
        ExprKind::Call(_, args) => {
            for a in args {
                match a {
                    Arg::In(x) | Arg::Resource(x) => visit(x, f),
                    Arg::Out { place, .. } => visit(place, f),
                }
            }
        }
        ExprKind::Intrinsic(_, args) | ExprKind::Flatten(args) => {
            for a in args {
                visit(a, f);
            }
        }
        ExprKind::Method(_, o, args) => {
            visit(o, f);
            for a in args {
                visit(a, f);
            }
        }
    }
}

/// The statements of block `b`: in a [`Stmt::Scope`] of the block when it declares a local
/// directly (a lexical scope of the debug information), as they are otherwise.
fn scoped(b: &ast::Block, body: Vec<Stmt>) -> Vec<Stmt> {
    let declares = b
        .stmts
        .iter()
        .any(|s| matches!(&s.kind, StmtKind::Decl(d) if matches!(d.kind, ast::DeclKind::Var(_))));
    if declares {
        vec![Stmt::Scope(b.span, body)]
    } else {
        body
    }
}
