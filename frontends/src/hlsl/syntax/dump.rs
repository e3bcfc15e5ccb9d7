//! A readable, stable text dump of the AST (`oneshader parse --ast`), used by golden tests.
//!
//! Declarations and statements are printed one per line, indented by nesting, with their
//! `line:col`; expressions are printed inline as fully parenthesized source-like text so
//! precedence and the shape of the tree are visible: `(a + (b * c))`, `cast<float4>(x)`,
//! `construct<float4>(1, 2, 3, 4)`, `call(f, x)`, `member(v, xyz)`, `index(a, i)`.

use std::fmt::Write;

use oneshader_ir::diag::{SourceMap, Span};

use crate::hlsl::syntax::ast::*;

/// Dumps a translation unit.
pub fn dump(unit: &TranslationUnit, sources: &SourceMap) -> String {
    let mut d = Dumper {
        out: String::new(),
        sources,
        indent: 0,
    };
    d.line("TranslationUnit", None);
    d.indent += 1;
    for decl in &unit.decls {
        d.decl(decl);
    }
    d.out
}

struct Dumper<'a> {
    out: String,
    sources: &'a SourceMap,
    indent: usize,
}

impl Dumper<'_> {
    fn line(&mut self, text: &str, span: Option<Span>) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        if let Some(s) = span {
            let (l, c) = self.sources.line_col(s.file, s.start);
            let _ = write!(self.out, " @{l}:{c}");
        }
        self.out.push('\n');
    }

    fn nested(&mut self, f: impl FnOnce(&mut Self)) {
        self.indent += 1;
        f(self);
        self.indent -= 1;
    }

    fn attrs(&mut self, attrs: &[Attribute]) {
        for a in attrs {
            let t = format!("attribute {}", attr_text(a));
            self.line(&t, Some(a.span));
        }
    }

    fn decl(&mut self, d: &Decl) {
        match &d.kind {
            DeclKind::Var(v) => self.var(v, "Var"),
            DeclKind::Function(f) => self.function(f),
            DeclKind::Struct(s) => self.struct_decl(s),
            DeclKind::Buffer(b) => {
                let kw = match b.keyword {
                    BufferKeyword::CBuffer => "CBuffer",
                    BufferKeyword::TBuffer => "TBuffer",
                };
                let t = format!("{kw} {}{}", b.name.name, annotations_text(&b.annotations));
                self.line(&t, Some(d.span));
                self.nested(|s| {
                    s.attrs(&b.attributes);
                    for m in &b.members {
                        s.decl(m);
                    }
                });
            }
            DeclKind::Typedef(t) => {
                let names: Vec<String> = t.declarators.iter().map(declarator_head).collect();
                let text = format!(
                    "Typedef {}{}{} = {}",
                    template_text(&t.templates),
                    modifiers_text(&t.modifiers),
                    names.join(", "),
                    type_text(&t.ty)
                );
                self.line(&text, Some(d.span));
                self.nested(|n| {
                    n.attrs(&t.attributes);
                    if let TypeKind::Struct(s) = &t.ty.kind {
                        n.struct_decl(s);
                    }
                });
            }
            DeclKind::Enum(e) => {
                let t = format!(
                    "Enum{} {}{}",
                    if e.scoped { " class" } else { "" },
                    e.name.as_ref().map_or("<anonymous>", |n| n.name.as_str()),
                    e.base
                        .as_ref()
                        .map(|b| format!(" : {}", type_text(b)))
                        .unwrap_or_default()
                );
                self.line(&t, Some(d.span));
                self.nested(|s| {
                    for v in &e.variants {
                        let t = match &v.value {
                            Some(x) => format!("{} = {}", v.name.name, expr_text(x)),
                            None => v.name.name.clone(),
                        };
                        s.line(&t, Some(v.span));
                    }
                });
            }
            DeclKind::Namespace(n) => {
                let t = format!(
                    "Namespace {}",
                    n.name
                        .as_ref()
                        .map_or("<anonymous>".to_string(), Path::to_text)
                );
                self.line(&t, Some(d.span));
                self.nested(|s| {
                    for d in &n.decls {
                        s.decl(d);
                    }
                });
            }
            DeclKind::Using(p) => {
                self.line(&format!("Using {}", p.to_text()), Some(d.span));
            }
            DeclKind::UsingNamespace(p) => {
                self.line(&format!("UsingNamespace {}", p.to_text()), Some(d.span));
            }
            DeclKind::Technique { name } => {
                let t = format!(
                    "Technique {}",
                    name.as_ref().map_or("<anonymous>", |n| n.name.as_str())
                );
                self.line(&t, Some(d.span));
            }
            DeclKind::StaticAssert { cond, message } => {
                let t = format!(
                    "StaticAssert {}{}",
                    expr_text(cond),
                    message
                        .as_ref()
                        .map(|m| format!(", {}", expr_text(m)))
                        .unwrap_or_default()
                );
                self.line(&t, Some(d.span));
            }
            DeclKind::Empty => self.line("Empty", Some(d.span)),
            DeclKind::Error => self.line("Error", Some(d.span)),
        }
    }

    fn var(&mut self, v: &VarDecl, what: &str) {
        let t = format!(
            "{what} {}{}",
            modifiers_text(&v.modifiers),
            type_text(&v.ty)
        );
        self.line(&t, Some(v.span));
        self.nested(|s| {
            s.attrs(&v.attributes);
            if let TypeKind::Struct(st) = &v.ty.kind {
                s.struct_decl(st);
            }
            for d in &v.declarators {
                s.declarator(d);
            }
        });
    }

    fn declarator(&mut self, d: &Declarator) {
        let mut t = format!("{}{}", declarator_head(d), annotations_text(&d.annotations));
        if let Some(init) = &d.init {
            let _ = write!(t, " = {}", expr_text(init));
        }
        self.line(&t, Some(d.span));
        if !d.string_annotations.is_empty() {
            self.nested(|s| {
                for a in &d.string_annotations {
                    s.var(a, "Annotation");
                }
            });
        }
    }

    fn function(&mut self, f: &FunctionDecl) {
        let params: Vec<String> = f.params.iter().map(param_text).collect();
        let t = format!(
            "Function {}{}{} {}({}){}{}{}",
            template_text(&f.templates),
            modifiers_text(&f.modifiers),
            type_text(&f.return_type),
            qualified(&f.qualifier, &f.name)
                + &f.specialization_args
                    .as_ref()
                    .map(|a| format!("<{}>", args_text(a)))
                    .unwrap_or_default(),
            params.join(", "),
            if f.is_const { " const" } else { "" },
            annotations_text(&f.annotations),
            if f.body.is_none() { ";" } else { "" }
        );
        self.line(&t, Some(f.span));
        self.nested(|s| {
            s.attrs(&f.attributes);
            for p in &f.params {
                if !p.attributes.is_empty() {
                    let t = format!(
                        "param {} attributes: {}",
                        p.declarator
                            .as_ref()
                            .map_or("<unnamed>", |d| d.name.name.as_str()),
                        p.attributes
                            .iter()
                            .map(attr_text)
                            .collect::<Vec<_>>()
                            .join(" ")
                    );
                    s.line(&t, Some(p.span));
                }
            }
            if let Some(b) = &f.body {
                s.block(b);
            }
        });
    }

    fn struct_decl(&mut self, st: &StructDecl) {
        let kw = match st.keyword {
            StructKeyword::Struct => "Struct",
            StructKeyword::Class => "Class",
            StructKeyword::Interface => "Interface",
        };
        let mut t = format!(
            "{kw} {}{}",
            template_text(&st.templates),
            st.name.as_ref().map_or("<anonymous>", |n| n.name.as_str())
        );
        if let Some(args) = &st.specialization_args {
            let _ = write!(t, "<{}>", args_text(args));
        }
        if !st.bases.is_empty() {
            let b: Vec<String> = st.bases.iter().map(type_text).collect();
            let _ = write!(t, " : {}", b.join(", "));
        }
        if st.members.is_none() {
            t.push(';');
        }
        self.line(&t, Some(st.span));
        self.nested(|s| {
            s.attrs(&st.attributes);
            for m in st.members.iter().flatten() {
                s.decl(m);
            }
        });
    }

    fn block(&mut self, b: &Block) {
        self.line("Block", Some(b.span));
        self.nested(|s| {
            for st in &b.stmts {
                s.stmt(st);
            }
        });
    }

    fn stmt(&mut self, st: &Stmt) {
        self.attrs(&st.attributes);
        let span = Some(st.span);
        match &st.kind {
            StmtKind::Expr(e) => self.line(&format!("Expr {}", expr_text(e)), span),
            StmtKind::Decl(d) => self.decl(d),
            StmtKind::Block(b) => self.block(b),
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.line(&format!("If {}", cond_text(cond)), span);
                self.nested(|s| s.stmt(then));
                if let Some(o) = otherwise {
                    self.line("Else", None);
                    self.nested(|s| s.stmt(o));
                }
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                let t = format!(
                    "For cond={} step={}",
                    cond.as_ref().map_or("-".to_string(), expr_text),
                    step.as_ref().map_or("-".to_string(), expr_text)
                );
                self.line(&t, span);
                self.nested(|s| {
                    if let Some(i) = init {
                        s.line("init:", None);
                        s.nested(|s| s.stmt(i));
                    }
                    s.stmt(body);
                });
            }
            StmtKind::While { cond, body } => {
                self.line(&format!("While {}", cond_text(cond)), span);
                self.nested(|s| s.stmt(body));
            }
            StmtKind::DoWhile { body, cond } => {
                self.line(&format!("DoWhile {}", expr_text(cond)), span);
                self.nested(|s| s.stmt(body));
            }
            StmtKind::Switch { value, cases } => {
                self.line(&format!("Switch {}", cond_text(value)), span);
                self.nested(|s| {
                    for c in cases {
                        let labels: Vec<String> = c
                            .labels
                            .iter()
                            .map(|l| match l {
                                CaseLabel::Case(e) => format!("case {}", expr_text(e)),
                                CaseLabel::Default(_) => "default".to_string(),
                            })
                            .collect();
                        s.line(&labels.join(", "), Some(c.span));
                        s.nested(|s| {
                            for st in &c.body {
                                s.stmt(st);
                            }
                        });
                    }
                });
            }
            StmtKind::Label(l) => match l {
                CaseLabel::Case(e) => self.line(&format!("Label case {}", expr_text(e)), span),
                CaseLabel::Default(_) => self.line("Label default", span),
            },
            StmtKind::Break => self.line("Break", span),
            StmtKind::Continue => self.line("Continue", span),
            StmtKind::Return(v) => match v {
                Some(e) => self.line(&format!("Return {}", expr_text(e)), span),
                None => self.line("Return", span),
            },
            StmtKind::Discard => self.line("Discard", span),
            StmtKind::Empty => self.line("Empty", span),
            StmtKind::Error => self.line("Error", span),
        }
    }
}

fn template_text(ts: &[TemplateHeader]) -> String {
    ts.iter().map(header_text).collect()
}

fn qualified(q: &Option<TypeExpr>, name: &Ident) -> String {
    match q {
        Some(q) => format!("{}::{}", type_text(q), name.name),
        None => name.name.clone(),
    }
}

fn cond_text(c: &Condition) -> String {
    match c {
        Condition::Expr(e) => expr_text(e),
        Condition::Decl(d) => {
            let names: Vec<String> = d
                .declarators
                .iter()
                .map(|x| {
                    let mut s = declarator_head(x);
                    if let Some(i) = &x.init {
                        let _ = write!(s, " = {}", expr_text(i));
                    }
                    s
                })
                .collect();
            format!(
                "decl {}{} {}",
                modifiers_text(&d.modifiers),
                type_text(&d.ty),
                names.join(", ")
            )
        }
    }
}

fn header_text(t: &TemplateHeader) -> String {
    let ps: Vec<String> = t
        .params
        .iter()
        .map(|p| {
            let mut s = match &p.value_type {
                None => "typename".to_string(),
                Some(ty) => type_text(ty),
            };
            if let Some(n) = &p.name {
                s.push(' ');
                s.push_str(&n.name);
            }
            if let Some(d) = &p.default {
                s.push_str(" = ");
                s.push_str(&arg_text(d));
            }
            s
        })
        .collect();
    format!("template<{}> ", ps.join(", "))
}

fn modifiers_text(m: &[ModifierSpan]) -> String {
    let mut s = String::new();
    for m in m {
        s.push_str(m.modifier.keyword());
        s.push(' ');
    }
    s
}

fn attr_text(a: &Attribute) -> String {
    let mut s = String::new();
    s.push_str(match a.style {
        AttributeStyle::Single => "[",
        AttributeStyle::Double => "[[",
        AttributeStyle::Layout => "",
    });
    for n in &a.namespace {
        s.push_str(&n.name);
        s.push_str("::");
    }
    s.push_str(&a.name.name);
    if let Some(args) = &a.args {
        let a: Vec<String> = args.iter().map(expr_text).collect();
        let _ = write!(s, "({})", a.join(", "));
    }
    s.push_str(match a.style {
        AttributeStyle::Single => "]",
        AttributeStyle::Double => "]]",
        AttributeStyle::Layout => "",
    });
    s
}

fn annotations_text(a: &[PostAnnotation]) -> String {
    let mut s = String::new();
    for a in a {
        match a {
            PostAnnotation::Semantic(i) => {
                let _ = write!(s, " : {}", i.name);
            }
            PostAnnotation::Register { args, .. } => {
                let a: Vec<&str> = args.iter().map(|i| i.name.as_str()).collect();
                let _ = write!(s, " : register({})", a.join(", "));
            }
            PostAnnotation::BitField { width } => {
                let _ = write!(s, " : {}", expr_text(width));
            }
            PostAnnotation::PackOffset {
                register,
                component,
                ..
            } => {
                let _ = write!(s, " : packoffset({}", register.name);
                if let Some(c) = component {
                    let _ = write!(s, ".{}", c.name);
                }
                s.push(')');
            }
        }
    }
    s
}

fn declarator_head(d: &Declarator) -> String {
    let mut s = qualified(&d.qualifier, &d.name);
    for dim in &d.array_dims {
        match &dim.size {
            Some(e) => {
                let _ = write!(s, "[{}]", expr_text(e));
            }
            None => s.push_str("[]"),
        }
    }
    s
}

fn param_text(p: &Param) -> String {
    let mut s = format!("{}{}", modifiers_text(&p.modifiers), type_text(&p.ty));
    if let Some(d) = &p.declarator {
        let _ = write!(
            s,
            " {}{}",
            declarator_head(d),
            annotations_text(&d.annotations)
        );
        if let Some(i) = &d.init {
            let _ = write!(s, " = {}", expr_text(i));
        }
    }
    s
}

/// A type as text: `float4`, `Texture2D<float4>`, `struct S {...}`.
pub fn type_text(t: &TypeExpr) -> String {
    match &t.kind {
        TypeKind::Named { path, args } => match args {
            Some(a) => format!("{}<{}>", path.to_text(), args_text(a)),
            None => path.to_text(),
        },
        TypeKind::Struct(s) => format!(
            "struct {}",
            s.name.as_ref().map_or("<anonymous>", |n| n.name.as_str())
        ),
        TypeKind::Typename(p) => format!("typename {}", p.to_text()),
        TypeKind::Modified { modifiers, inner } => {
            format!("{}{}", modifiers_text(modifiers), type_text(inner))
        }
        TypeKind::Array { element, dims } => {
            let mut s = type_text(element);
            for d in dims {
                match &d.size {
                    Some(e) => {
                        let _ = write!(s, "[{}]", expr_text(e));
                    }
                    None => s.push_str("[]"),
                }
            }
            s
        }
        TypeKind::Error => "<error>".to_string(),
    }
}

fn args_text(a: &[TemplateArg]) -> String {
    a.iter().map(arg_text).collect::<Vec<_>>().join(", ")
}

fn arg_text(a: &TemplateArg) -> String {
    match a {
        TemplateArg::Type(t) => type_text(t),
        TemplateArg::Expr(e) => expr_text(e),
    }
}

/// An expression as fully parenthesized text.
pub fn expr_text(e: &Expr) -> String {
    let mut s = String::new();
    write_expr(&mut s, e);
    s
}

fn write_list(s: &mut String, items: &[Expr]) {
    for (i, a) in items.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        write_expr(s, a);
    }
}

fn write_expr(s: &mut String, e: &Expr) {
    match &e.kind {
        ExprKind::Literal(l) => match l {
            Literal::Int { value, suffix } => {
                let _ = write!(s, "{value}{suffix}");
            }
            Literal::Float { value, suffix } => {
                let _ = write!(s, "{value:?}{suffix}");
            }
            Literal::Bool(b) => {
                let _ = write!(s, "{b}");
            }
            Literal::String(v) => {
                let _ = write!(s, "{v:?}");
            }
            Literal::Char(c) => {
                let _ = write!(s, "char({c})");
            }
        },
        ExprKind::Name {
            path,
            template_args,
            qualifier,
        } => {
            // `T<a>::m` prints as `T::m<a>`, as before qualifiers were kept apart.
            let mut args = template_args.as_ref();
            if let Some(q) = qualifier
                && let TypeKind::Named { path: qp, args: qa } = &q.kind
            {
                s.push_str(&qp.to_text());
                s.push_str("::");
                args = args.or(qa.as_ref());
            }
            s.push_str(&path.to_text());
            if let Some(a) = args {
                let _ = write!(s, "<{}>", args_text(a));
            }
        }
        ExprKind::This => s.push_str("this"),
        ExprKind::Unary { op, operand } => {
            s.push('(');
            match op {
                UnaryOp::PostInc | UnaryOp::PostDec => {
                    write_expr(s, operand);
                    s.push_str(op.symbol());
                }
                _ => {
                    s.push_str(op.symbol());
                    write_expr(s, operand);
                }
            }
            s.push(')');
        }
        ExprKind::Binary { op, lhs, rhs } => {
            s.push('(');
            write_expr(s, lhs);
            if *op == BinaryOp::Comma {
                s.push_str(", ");
            } else {
                let _ = write!(s, " {} ", op.symbol());
            }
            write_expr(s, rhs);
            s.push(')');
        }
        ExprKind::Assign { op, lhs, rhs } => {
            s.push('(');
            write_expr(s, lhs);
            let _ = write!(s, " {}= ", op.map_or("", BinaryOp::symbol));
            write_expr(s, rhs);
            s.push(')');
        }
        ExprKind::Ternary {
            cond,
            then,
            otherwise,
        } => {
            s.push('(');
            write_expr(s, cond);
            s.push_str(" ? ");
            write_expr(s, then);
            s.push_str(" : ");
            write_expr(s, otherwise);
            s.push(')');
        }
        ExprKind::Cast {
            ty,
            array_dims,
            operand,
        } => {
            let _ = write!(s, "cast<{}", type_text(ty));
            for d in array_dims {
                s.push('[');
                if let Some(e) = &d.size {
                    write_expr(s, e);
                }
                s.push(']');
            }
            s.push_str(">(");
            write_expr(s, operand);
            s.push(')');
        }
        ExprKind::Construct { ty, args } => {
            let _ = write!(s, "construct<{}>(", type_text(ty));
            write_list(s, args);
            s.push(')');
        }
        ExprKind::Call { callee, args } => {
            s.push_str("call(");
            write_expr(s, callee);
            for a in args {
                s.push_str(", ");
                write_expr(s, a);
            }
            s.push(')');
        }
        ExprKind::Member {
            base,
            member,
            template_args,
        } => {
            s.push_str("member(");
            write_expr(s, base);
            let _ = write!(s, ", {}", member.name);
            if let Some(a) = template_args {
                let _ = write!(s, "<{}>", args_text(a));
            }
            s.push(')');
        }
        ExprKind::Index { base, index } => {
            s.push_str("index(");
            write_expr(s, base);
            s.push_str(", ");
            write_expr(s, index);
            s.push(')');
        }
        ExprKind::InitList(items) => {
            s.push('{');
            write_list(s, items);
            s.push('}');
        }
        ExprKind::SamplerState(items) => {
            s.push_str("sampler_state{");
            for (i, a) in items.iter().enumerate() {
                if i > 0 {
                    s.push_str("; ");
                }
                s.push_str(&a.name.name);
                if let Some(ix) = &a.index {
                    s.push('[');
                    write_expr(s, ix);
                    s.push(']');
                }
                s.push_str(" = ");
                write_expr(s, &a.value);
            }
            s.push('}');
        }
        ExprKind::SizeOf(a) => {
            let _ = write!(s, "sizeof({})", arg_text(a));
        }
        ExprKind::Error => s.push_str("<error>"),
    }
}
