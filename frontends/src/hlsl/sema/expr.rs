//! Semantic analysis, part 2: expressions. Names, members and swizzles, indexing, operators
//! with HLSL's usual arithmetic conversions, assignments, casts and constructors, initializer
//! lists (flat rules), calls with overload resolution and template deduction, and constant
//! evaluation.

use oneshader_ir::diag::{Diagnostic, Span};

use crate::hlsl::sema::conversions::{
    Shape, common_scalar, common_shape, implicit_cost, numeric_shape,
};
use crate::hlsl::sema::hir::*;
use crate::hlsl::sema::overload_rank::conversion_score;
use crate::hlsl::sema::{Sema, Sym, TArg, TemplateBody, TemplateId};
use crate::hlsl::syntax::ast::{self, BinaryOp, ExprKind as A, Literal, UnaryOp};

fn mk(kind: ExprKind, ty: TyId, span: Span) -> Expr {
    Expr { kind, ty, span }
}

impl<'a> Sema<'a> {
    // ---- entry points -------------------------------------------------------------------------

    /// Checks an expression.
    pub fn check_expr(&mut self, e: &'a ast::Expr) -> Expr {
        let span = e.span;
        match &e.kind {
            A::Literal(l) => self.literal(l, span),
            A::Name {
                path,
                template_args,
                qualifier,
            } => {
                let _ = template_args;
                match qualifier {
                    Some(q) => match self.lookup_qualified(q, path) {
                        Some(sym) => self.sym_value(sym, &path.to_text(), span),
                        None => Expr::error(span),
                    },
                    None => self.check_name(path, span),
                }
            }
            A::This => match self.bodies.fctx.as_ref().and_then(|f| f.this) {
                Some((l, sid)) => {
                    let ty = self.types.intern(TyKind::Struct(sid));
                    mk(ExprKind::Local(l), ty, span)
                }
                None => {
                    self.error("OSH1001", span, "`this` outside a method");
                    Expr::error(span)
                }
            },
            A::Unary { op, operand } => self.check_unary(*op, operand, span),
            A::Binary { op, lhs, rhs } => self.check_binary(*op, lhs, rhs, span),
            A::Assign { op, lhs, rhs } => self.check_assign(*op, lhs, rhs, span),
            A::Ternary {
                cond,
                then,
                otherwise,
            } => self.check_ternary(cond, then, otherwise, span),
            A::Cast {
                ty,
                array_dims,
                operand,
            } => {
                let mut t = self.resolve_type(ty);
                for d in array_dims.iter().rev() {
                    t = self.array_of(t, d);
                }
                let v = self.check_expr(operand);
                self.explicit_cast(v, t, span)
            }
            A::Construct { ty, args } => {
                let t = self.resolve_type(ty);
                let args: Vec<Expr> = args.iter().map(|a| self.check_expr(a)).collect();
                self.construct(t, args, span)
            }
            A::Call { callee, args } => self.check_call(callee, args, span),
            A::Member {
                base,
                member,
                template_args: _,
            } => {
                let b = self.check_expr(base);
                self.member(b, member, span)
            }
            A::Index { base, index } => {
                // `tex.mips[level][coord]` and `tex.sample[index][coord]`.
                if let A::Index {
                    base: inner,
                    index: level,
                } = &base.kind
                    && let A::Member {
                        base: tex,
                        member,
                        template_args: None,
                    } = &inner.kind
                    && matches!(member.name.as_str(), "mips" | "sample")
                {
                    let t = self.check_expr(tex);
                    if let TyKind::Texture(shape, elem, false) = self.types.kind(t.ty).clone() {
                        let lv = self.check_expr(level);
                        let c = self.check_expr(index);
                        return self.mips_or_sample(t, shape, elem, &member.name, lv, c, span);
                    }
                }
                if let Some(e) = self.heap_index(base, index, span) {
                    return e;
                }
                let b = self.check_expr(base);
                let i = self.check_expr(index);
                self.index(b, i, span)
            }
            A::InitList(_) => {
                self.error(
                    "OSH1013",
                    span,
                    "an initializer list is only allowed in a declaration",
                );
                Expr::error(span)
            }
            A::SamplerState(_) => {
                let t = self.types.intern(TyKind::Sampler(false));
                mk(ExprKind::Error, t, span)
            }
            A::SizeOf(arg) => {
                let ty = match arg.as_ref() {
                    ast::TemplateArg::Type(t) => self.resolve_type(t),
                    ast::TemplateArg::Expr(x) => self.check_expr(x).ty,
                };
                let size = self.size_of(ty);
                let u = self.types.uint();
                match size {
                    Some(s) => mk(ExprKind::Const(ConstVal::Int(s as i128)), u, span),
                    None => {
                        self.error(
                            "OSH1018",
                            span,
                            format!("`sizeof({})` is not supported", self.types.name(ty)),
                        );
                        Expr::error(span)
                    }
                }
            }
            A::Error => Expr::error(span),
        }
    }

    /// The size in bytes of a type (`sizeof`), as DXC computes it: C's natural layout, each
    /// member aligned to its scalar's size and a struct's size rounded up to its alignment
    /// (`{ int16_t a; float b; }` is 8, `{ uint64_t a; int b; }` is 16).
    fn size_of(&self, t: TyId) -> Option<u32> {
        self.size_align(t).map(|(size, _)| size)
    }

    /// [`Self::size_of`] and the alignment it implies.
    fn size_align(&self, t: TyId) -> Option<(u32, u32)> {
        Some(match self.types.kind(t) {
            TyKind::Scalar(s) => {
                let b = s.concrete().bits() / 8;
                (b, b)
            }
            TyKind::Vector(s, n) => {
                let b = s.concrete().bits() / 8;
                (b * (*n as u32), b)
            }
            TyKind::Matrix(s, r, c) => {
                let b = s.concrete().bits() / 8;
                (b * (*r as u32) * (*c as u32), b)
            }
            TyKind::Array(e, n) => {
                let (size, align) = self.size_align(*e)?;
                (size * n, align)
            }
            TyKind::Struct(s) => {
                let (mut end, mut max_align) = (0u32, 1u32);
                for f in &self.types.struct_def(*s).fields {
                    let (size, align) = self.size_align(f.ty)?;
                    end = end.next_multiple_of(align) + size;
                    max_align = max_align.max(align);
                }
                (end.next_multiple_of(max_align), max_align)
            }
            _ => return None,
        })
    }

    fn literal(&mut self, l: &Literal, span: Span) -> Expr {
        match l {
            Literal::Int { value, suffix } => {
                let s = match suffix.as_str() {
                    "" => Scalar::LitInt,
                    "u" => Scalar::U32,
                    "l" | "ll" => Scalar::I64,
                    "ul" | "lu" | "ull" | "llu" => Scalar::U64,
                    _ => Scalar::LitInt,
                };
                let v = if s == Scalar::LitInt {
                    *value as i64 as i128
                } else {
                    wrap_int(*value as i128, s)
                };
                let t = self.types.scalar(s);
                mk(ExprKind::Const(ConstVal::Int(v)), t, span)
            }
            Literal::Float { value, suffix } => {
                let s = match suffix.as_str() {
                    "" => Scalar::LitFloat,
                    "f" => Scalar::F32,
                    "h" => {
                        if self.opts.enable_16bit {
                            Scalar::F16
                        } else {
                            Scalar::F32
                        }
                    }
                    "l" | "lf" => Scalar::F64,
                    _ => Scalar::LitFloat,
                };
                let t = self.types.scalar(s);
                mk(ExprKind::Const(ConstVal::Float(*value)), t, span)
            }
            Literal::Bool(b) => {
                let t = self.types.bool();
                mk(ExprKind::Const(ConstVal::Bool(*b)), t, span)
            }
            Literal::Char(c) => {
                let t = self.types.int();
                mk(ExprKind::Const(ConstVal::Int(*c as i128)), t, span)
            }
            Literal::String(s) => {
                let t = self.types.intern(TyKind::String);
                mk(ExprKind::Str(s.clone()), t, span)
            }
        }
    }

    // ---- names --------------------------------------------------------------------------------

    /// The field `name` of the current method's `this`, as an expression.
    fn this_field(&mut self, name: &str, span: Span) -> Option<Expr> {
        let (l, sid) = self.bodies.fctx.as_ref()?.this?;
        let idx = self.types.struct_def(sid).field(name)?;
        let sty = self.types.intern(TyKind::Struct(sid));
        let fty = self.types.struct_def(sid).member_ty(idx)?;
        let this = mk(ExprKind::Local(l), sty, span);
        Some(mk(ExprKind::Field(Box::new(this), idx as u32), fty, span))
    }

    pub(in crate::hlsl) fn local_scoped(&self, name: &str) -> Option<Sym> {
        let f = self.bodies.fctx.as_ref()?;
        for s in f.scopes.iter().rev() {
            if let Some(sym) = s.get(name) {
                return Some(sym.clone());
            }
        }
        None
    }

    /// Resolves a name in value position.
    /// A member of a template instance: `Traits<float>::value`, `S<int>::create`; reported
    /// (OSH1001) when the instance has no such member.
    fn lookup_qualified(&mut self, q: &'a ast::TypeExpr, path: &'a ast::Path) -> Option<Sym> {
        let ty = self.resolve_type(q);
        if self.types.is_error(ty) {
            return None;
        }
        let mut cur = match self.type_ns(ty) {
            Some(ns) => Sym::Type(ty, Some(ns)),
            None => Sym::Type(ty, None),
        };
        for seg in &path.segments {
            let found = match &cur {
                Sym::Namespace(n) | Sym::Type(_, Some(n)) => self.lookup_in(*n, &seg.name),
                _ => None,
            };
            match found {
                Some(s) => cur = s,
                None => {
                    self.error(
                        "OSH1001",
                        seg.span,
                        format!("`{}` has no member `{}`", self.types.name(ty), seg.name),
                    );
                    return None;
                }
            }
        }
        Some(cur)
    }

    fn check_name(&mut self, path: &'a ast::Path, span: Span) -> Expr {
        let simple = path.segments.len() == 1 && !path.global;
        let sym = if simple {
            let name = &path.segments[0].name;
            if let Some(s) = self.local_scoped(name) {
                Some(s)
            } else if let Some(e) = self.this_field(name, span) {
                return e;
            } else {
                self.lookup(name)
            }
        } else {
            self.lookup_path(path)
        };
        match sym {
            Some(s) => self.sym_value(s, &path.to_text(), span),
            None => {
                self.error(
                    "OSH1001",
                    path.span,
                    format!("undefined name `{}`", path.to_text()),
                );
                Expr::error(span)
            }
        }
    }

    fn sym_value(&mut self, s: Sym, name: &str, span: Span) -> Expr {
        match s {
            Sym::Local(l) => {
                let ty = self.bodies.fctx.as_ref().map(|f| f.locals[l.0 as usize].ty);
                match ty {
                    Some(t) => mk(ExprKind::Local(l), t, span),
                    None => Expr::error(span),
                }
            }
            Sym::Global(g) => {
                let gd = &self.globals[g.0 as usize];
                if let (GlobalKind::SpecConst { .. }, ty) = (&gd.kind, gd.ty) {
                    return mk(ExprKind::Global(g), ty, span);
                }
                mk(ExprKind::Global(g), gd.ty, span)
            }
            Sym::CBufMember(g, i) => {
                let gty = self.globals[g.0 as usize].ty;
                let fty = match self.types.kind(gty) {
                    TyKind::Struct(sid) => self.types.struct_def(*sid).fields[i as usize].ty,
                    _ => Types::ERROR,
                };
                let base = mk(ExprKind::Global(g), gty, span);
                mk(ExprKind::Field(Box::new(base), i), fty, span)
            }
            Sym::Const(t, v) => mk(ExprKind::Const(v), t, span),
            Sym::Type(..) | Sym::StructTemplate(_) => {
                self.error("OSH1005", span, format!("`{name}` is a type, not a value"));
                Expr::error(span)
            }
            Sym::Overloads(..) => {
                self.error(
                    "OSH1018",
                    span,
                    format!("`{name}` is a function; function values are not supported"),
                );
                Expr::error(span)
            }
            Sym::Namespace(_) => {
                self.error(
                    "OSH1005",
                    span,
                    format!("`{name}` is a namespace, not a value"),
                );
                Expr::error(span)
            }
            Sym::Split(id) => {
                let ty = self.split.splits[id as usize].ty;
                mk(ExprKind::Split(id), ty, span)
            }
        }
    }

    // ---- conversions --------------------------------------------------------------------------

    /// Converts `e` implicitly to `to` (reports when impossible; warns on truncation).
    pub fn convert(&mut self, e: Expr, to: TyId, span: Span) -> Expr {
        if matches!(e.kind, ExprKind::HeapIndex(..)) {
            return self.heap_view(e, to, span);
        }
        if e.ty == to || self.types.is_error(e.ty) || self.types.is_error(to) {
            return Expr {
                ty: if self.types.is_error(e.ty) { e.ty } else { to },
                ..e
            };
        }
        if implicit_cost(&self.types, e.ty, to).is_none() {
            // Arrays and structs of the same layout (e.g. two template instances) convert by
            // flattening only explicitly; anything else is a mismatch.
            self.error(
                "OSH1005",
                span,
                format!(
                    "cannot convert from `{}` to `{}`",
                    self.types.name(e.ty),
                    self.types.name(to)
                ),
            );
            return Expr::error(span);
        }
        self.numeric_cast(e, to, span, true)
    }

    /// Builds the casts that take numeric `e` to numeric `to` (shape then scalar).
    fn numeric_cast(&mut self, e: Expr, to: TyId, span: Span, implicit: bool) -> Expr {
        if e.ty == to {
            return e;
        }
        let (Some(fs), Some(ts)) = (self.types.scalar_of(e.ty), self.types.scalar_of(to)) else {
            // Same aggregate (e.g. equal arrays of sampler types).
            return Expr { ty: to, ..e };
        };
        let Some(shape) = numeric_shape(&self.types, e.ty, to) else {
            return self.flatten_cast(e, to, span);
        };
        if shape == Shape::Truncate && implicit {
            self.warn(
                "OSH1006",
                span,
                format!(
                    "implicit truncation from `{}` to `{}`",
                    self.types.name(e.ty),
                    self.types.name(to)
                ),
            );
        }
        // Scalar conversion first, in the source shape.
        let mut cur = e;
        if fs != ts {
            let t = self.types.with_scalar(cur.ty, ts);
            cur = self.fold_cast(CastKind::Convert, cur, t, span);
        }
        if cur.ty == to {
            return cur;
        }
        let kind = match shape {
            Shape::Same => return Expr { ty: to, ..cur },
            Shape::Splat => {
                // A one-component vector or 1x1 matrix first becomes a scalar.
                if !matches!(self.types.kind(cur.ty), TyKind::Scalar(_)) {
                    let s = self.types.scalar(ts);
                    cur = mk(ExprKind::Cast(CastKind::Reshape, Box::new(cur)), s, span);
                }
                CastKind::Splat
            }
            Shape::Truncate => {
                if matches!(self.types.kind(cur.ty), TyKind::Matrix(..))
                    && !matches!(self.types.kind(to), TyKind::Matrix(..))
                {
                    // Matrix to scalar or vector: flatten keeps the leading elements.
                    CastKind::Flatten
                } else {
                    CastKind::Truncate
                }
            }
            Shape::Reshape => {
                let simple = matches!(
                    (self.types.kind(cur.ty), self.types.kind(to)),
                    (TyKind::Scalar(_), TyKind::Vector(_, 1))
                        | (TyKind::Vector(_, 1), TyKind::Scalar(_))
                        | (TyKind::Scalar(_), TyKind::Matrix(_, 1, 1))
                        | (TyKind::Matrix(_, 1, 1), TyKind::Scalar(_))
                );
                if simple {
                    CastKind::Reshape
                } else {
                    CastKind::Flatten
                }
            }
        };
        mk(ExprKind::Cast(kind, Box::new(cur)), to, span)
    }

    /// A cast whose operand is a constant folds into a constant.
    fn fold_cast(&mut self, kind: CastKind, e: Expr, to: TyId, span: Span) -> Expr {
        if kind == CastKind::Convert
            && let (ExprKind::Const(v), TyKind::Scalar(s)) = (&e.kind, self.types.kind(to))
        {
            return mk(ExprKind::Const(v.convert(*s)), to, span);
        }
        mk(ExprKind::Cast(kind, Box::new(e)), to, span)
    }

    fn flatten_cast(&mut self, e: Expr, to: TyId, span: Span) -> Expr {
        mk(ExprKind::Flatten(vec![e]), to, span)
    }

    /// `(T)x`.
    pub fn explicit_cast(&mut self, e: Expr, to: TyId, span: Span) -> Expr {
        if e.ty == to || self.types.is_error(e.ty) || self.types.is_error(to) {
            return Expr {
                ty: if self.types.is_error(e.ty) { e.ty } else { to },
                ..e
            };
        }
        if self.types.is_void(to) {
            return mk(
                ExprKind::Comma(Box::new(e), Box::new(Expr::error(span))),
                Types::VOID,
                span,
            )
            .with_void();
        }
        let from_n = self.types.is_numeric(e.ty);
        let to_n = self.types.is_numeric(to);
        if from_n && to_n {
            if numeric_shape(&self.types, e.ty, to).is_some() {
                return self.numeric_cast(e, to, span, false);
            }
            let (fc, tc) = (self.types.flat_count(e.ty), self.types.flat_count(to));
            if fc >= tc {
                return self.flatten_cast(e, to, span);
            }
        } else if !self.types.contains_resource(e.ty) && !self.types.contains_resource(to) {
            let to_scalar = matches!(self.types.kind(to), TyKind::Scalar(_));
            // `(S)0` zeroes every bit field and every storage word alike.
            let zero_splat = matches!(self.types.kind(e.ty), TyKind::Scalar(_))
                && self.eval_const(&e).is_some_and(|v| v.as_float() == 0.0);
            if (self.types.contains_bitfields(e.ty) && !to_scalar)
                || (self.types.contains_bitfields(to) && !zero_splat)
            {
                // DXC flattens a bit field as its whole storage word, once per bit field; the
                // storage words are this compiler's components. Only the first component
                // (a cast to a scalar) is the same in both: refuse the rest.
                self.error(
                    "OSH1018",
                    span,
                    format!(
                        "casting `{}` to `{}`: a struct with bit fields converts only to a scalar \
                         (its first storage word)",
                        self.types.name(e.ty),
                        self.types.name(to)
                    ),
                );
                return Expr::error(span);
            }
            let (fc, tc) = (self.types.flat_count(e.ty), self.types.flat_count(to));
            let scalar_src = matches!(self.types.kind(e.ty), TyKind::Scalar(_));
            if tc > 0 && (fc >= tc || scalar_src) {
                return self.flatten_cast(e, to, span);
            }
        } else if self.types.is_resource(e.ty) && self.types.is_resource(to) {
            return Expr { ty: to, ..e };
        }
        self.error(
            "OSH1005",
            span,
            format!(
                "cannot cast from `{}` to `{}`",
                self.types.name(e.ty),
                self.types.name(to)
            ),
        );
        Expr::error(span)
    }

    /// Checks an initializer (an initializer list or an expression) for a value of type `ty`.
    pub fn check_initializer(&mut self, e: &'a ast::Expr, ty: TyId) -> Expr {
        match &e.kind {
            A::InitList(items) => {
                let mut leaves = Vec::new();
                self.collect_init(items, &mut leaves);
                if self.types.is_error(ty) {
                    return Expr::error(e.span);
                }
                let ty = self.fix_unsized(ty, &leaves, e.span);
                self.flatten_to(ty, leaves, e.span)
            }
            _ => {
                let v = self.check_expr(e);
                if let TyKind::UnsizedArray(_) = self.types.kind(ty) {
                    return self.convert(v, ty, e.span);
                }
                self.convert(v, ty, e.span)
            }
        }
    }

    /// `T x[] = {...}`: the size comes from the initializer.
    fn fix_unsized(&mut self, ty: TyId, leaves: &[Expr], span: Span) -> TyId {
        if let TyKind::UnsizedArray(elem) = self.types.kind(ty).clone() {
            let per = self.types.flat_count(elem).max(1);
            let total: u32 = leaves.iter().map(|l| self.types.flat_count(l.ty)).sum();
            let n = total.div_ceil(per).max(1);
            let _ = span;
            return self.types.array(elem, n);
        }
        ty
    }

    fn collect_init(&mut self, items: &'a [ast::Expr], out: &mut Vec<Expr>) {
        for it in items {
            match &it.kind {
                A::InitList(inner) => self.collect_init(inner, out),
                _ => out.push(self.check_expr(it)),
            }
        }
    }

    /// A value of type `ty` from the flattened components of `parts` (initializer lists and
    /// constructors); checks the component count.
    pub fn flatten_to(&mut self, ty: TyId, parts: Vec<Expr>, span: Span) -> Expr {
        if parts.iter().any(|p| self.types.is_error(p.ty)) {
            return Expr::error(span);
        }
        // `{ s }` or `S(s)` for a value of the same type is a copy.
        if parts.len() == 1
            && implicit_cost(&self.types, parts[0].ty, ty).is_some_and(|c| c < 8)
            && (self.types.is_numeric(ty) || parts[0].ty == ty)
        {
            let p = parts
                .into_iter()
                .next()
                .unwrap_or_else(|| Expr::error(span));
            return self.convert(p, ty, span);
        }
        if let Some(t) = std::iter::once(ty)
            .chain(parts.iter().map(|p| p.ty))
            .find(|&t| self.types.contains_bitfields(t))
        {
            // The components of a struct with bit fields are its storage fields, not the
            // bit fields the user counts: refuse rather than fill the wrong bits.
            let name = self.types.name(t);
            self.error(
                "OSH1018",
                span,
                format!(
                    "initializer lists and constructors of `{name}`, a struct with bit fields, \
                     are not supported; assign the fields one by one"
                ),
            );
            return Expr::error(span);
        }
        let want = self.types.flat_count(ty);
        let mut have = 0u32;
        for p in &parts {
            if self.types.contains_resource(p.ty) && !self.types.is_resource(ty) {
                self.error(
                    "OSH1013",
                    p.span,
                    "resources cannot be part of an initializer list",
                );
                return Expr::error(span);
            }
            if !self.types.is_numeric(p.ty)
                && !matches!(self.types.kind(p.ty), TyKind::Array(..) | TyKind::Struct(_))
            {
                self.error(
                    "OSH1013",
                    p.span,
                    format!(
                        "`{}` cannot be part of an initializer",
                        self.types.name(p.ty)
                    ),
                );
                return Expr::error(span);
            }
            have += self.types.flat_count(p.ty);
        }
        if have != want {
            self.error(
                "OSH1013",
                span,
                format!(
                    "`{}` has {want} component(s) but the initializer gives {have}",
                    self.types.name(ty)
                ),
            );
            return Expr::error(span);
        }
        mk(ExprKind::Flatten(parts), ty, span)
    }

    /// `T(args)`.
    fn construct(&mut self, t: TyId, args: Vec<Expr>, span: Span) -> Expr {
        if self.types.is_error(t) {
            return Expr::error(span);
        }
        if args.len() == 1
            && matches!(self.types.kind(args[0].ty), TyKind::Scalar(_))
            && self.types.is_numeric(t)
        {
            // `float4(x)`: a splat.
            let a = args.into_iter().next().unwrap_or_else(|| Expr::error(span));
            return self.explicit_cast(a, t, span);
        }
        if self.types.is_resource(t) {
            self.error(
                "OSH1018",
                span,
                format!("`{}` cannot be constructed", self.types.name(t)),
            );
            return Expr::error(span);
        }
        self.flatten_to(t, args, span)
    }

    // ---- members, swizzles, indexing ----------------------------------------------------------

    fn member(&mut self, b: Expr, member: &'a ast::Ident, span: Span) -> Expr {
        if matches!(b.kind, ExprKind::Call(..)) && self.is_split_type(b.ty) {
            return self.split_call_field(b, member, span);
        }
        if let ExprKind::Split(id) = b.kind {
            return self.split_member(id, member, span);
        }
        let name = member.name.as_str();
        match self.types.kind(b.ty).clone() {
            TyKind::Error => Expr::error(span),
            TyKind::Struct(sid) => match self.types.struct_def(sid).field(name) {
                Some(i) => {
                    let fty = self
                        .types
                        .struct_def(sid)
                        .member_ty(i)
                        .unwrap_or(Types::ERROR);
                    mk(ExprKind::Field(Box::new(b), i as u32), fty, span)
                }
                None => {
                    // A static member through an object.
                    if let Some(ns) = self.type_ns(b.ty)
                        && let Some(s @ (Sym::Global(_) | Sym::Const(..))) =
                            self.lookup_in(ns, name)
                    {
                        return self.sym_value(s, name, span);
                    }
                    self.error(
                        "OSH1009",
                        member.span,
                        format!("`{}` has no member `{name}`", self.types.name(b.ty)),
                    );
                    Expr::error(span)
                }
            },
            TyKind::Scalar(s) | TyKind::Vector(s, _) => {
                let n = self.types.vec_len(b.ty).unwrap_or(1);
                match parse_swizzle(name, n) {
                    Ok(comps) => {
                        let ty = if comps.len() == 1 {
                            self.types.scalar(s)
                        } else {
                            self.types.vector(s, comps.len() as u8)
                        };
                        if let ExprKind::Const(v) = b.kind
                            && comps.len() == 1
                        {
                            return mk(ExprKind::Const(v), ty, span);
                        }
                        mk(ExprKind::Swizzle(Box::new(b), comps), ty, span)
                    }
                    Err(msg) => {
                        self.error("OSH1009", member.span, msg);
                        Expr::error(span)
                    }
                }
            }
            TyKind::Matrix(s, r, c) => match parse_mat_swizzle(name, r, c) {
                Ok(elems) => {
                    let ty = if elems.len() == 1 {
                        self.types.scalar(s)
                    } else {
                        self.types.vector(s, elems.len() as u8)
                    };
                    mk(ExprKind::MatSwizzle(Box::new(b), elems), ty, span)
                }
                Err(msg) => {
                    self.error("OSH1009", member.span, msg);
                    Expr::error(span)
                }
            },
            _ => {
                self.error(
                    "OSH1009",
                    member.span,
                    format!("`{}` has no member `{name}`", self.types.name(b.ty)),
                );
                Expr::error(span)
            }
        }
    }

    /// Converts an index to `int` or `uint` (scalar).
    fn index_value(&mut self, i: Expr, span: Span) -> Expr {
        match self.types.scalar_of(i.ty) {
            Some(s) if s == Scalar::U32 || s == Scalar::I32 => {
                let t = self.types.scalar(s);
                self.convert(i, t, span)
            }
            Some(_) => {
                let t = if self.types.scalar_of(i.ty).is_some_and(Scalar::is_unsigned) {
                    self.types.uint()
                } else {
                    self.types.int()
                };
                self.convert(i, t, span)
            }
            None => {
                if !self.types.is_error(i.ty) {
                    self.error(
                        "OSH1016",
                        i.span,
                        format!(
                            "an index must be an integer, not `{}`",
                            self.types.name(i.ty)
                        ),
                    );
                }
                Expr::error(span)
            }
        }
    }

    fn index(&mut self, b: Expr, i: Expr, span: Span) -> Expr {
        if matches!(self.types.kind(b.ty), TyKind::Struct(_))
            && let Some(e) =
                self.overloaded_operator("operator[]", b.clone(), vec![i.clone()], span)
        {
            return e;
        }
        let kind = self.types.kind(b.ty).clone();
        let (elem, len) = match kind {
            TyKind::Error => return Expr::error(span),
            TyKind::Array(e, n) => (e, Some(n)),
            TyKind::UnsizedArray(e) => (e, None),
            TyKind::Vector(s, n) => (self.types.scalar(s), Some(n as u32)),
            TyKind::Matrix(s, r, c) => (self.types.vector(s, c), Some(r as u32)),
            TyKind::Buffer(
                BufKind::Structured | BufKind::RWStructured | BufKind::Append | BufKind::Consume,
                e,
            ) => (e, None),
            TyKind::Texture(shape, e, _) => {
                let n = shape.dims() + shape.arrayed() as u8;
                let ct = if n == 1 {
                    self.types.uint()
                } else {
                    self.types.vector(Scalar::U32, n)
                };
                let ci = self.convert(i, ct, span);
                if matches!(
                    shape,
                    TexShape::T2DMS
                        | TexShape::T2DMSArray
                        | TexShape::Cube
                        | TexShape::CubeArray
                        | TexShape::Subpass
                        | TexShape::SubpassMS
                ) {
                    self.error(
                        "OSH1016",
                        span,
                        format!("`{}` cannot be indexed with `[]`", self.types.name(b.ty)),
                    );
                    return Expr::error(span);
                }
                return mk(ExprKind::TexIndex(Box::new(b), Box::new(ci)), e, span);
            }
            _ => {
                self.error(
                    "OSH1016",
                    span,
                    format!("`{}` cannot be indexed", self.types.name(b.ty)),
                );
                return Expr::error(span);
            }
        };
        let i = self.index_value(i, span);
        if let (Some(n), Some(v)) = (len, self.eval_const(&i)) {
            let v = v.as_int();
            if v < 0 || v >= n as i128 {
                self.error(
                    "OSH1016",
                    i.span,
                    format!("index {v} is out of range for `{}`", self.types.name(b.ty)),
                );
                return Expr::error(span);
            }
        }
        mk(ExprKind::Index(Box::new(b), Box::new(i)), elem, span)
    }

    /// A call of an overloaded operator (HLSL 2021): a method `operatorX` of the left
    /// operand's struct, or a free function `operatorX`. `None` when there is none.
    fn overloaded_operator(
        &mut self,
        name: &str,
        lhs: Expr,
        rest: Vec<Expr>,
        span: Span,
    ) -> Option<Expr> {
        if let Some(ns) = self.type_ns(lhs.ty)
            && let Some(Sym::Overloads(fs, ts)) = self.lookup_in(ns, name)
        {
            return Some(self.resolve_call(name, fs, ts, None, Some(lhs), rest, span));
        }
        if let Some(Sym::Overloads(fs, ts)) = self.lookup(name) {
            let mut args = vec![lhs];
            args.extend(rest);
            return Some(self.resolve_call(name, fs, ts, None, None, args, span));
        }
        None
    }

    /// `tex.mips[level][coord]` (a `Load` at that level) and `tex.sample[i][coord]` (a `Load`
    /// of sample `i` of a multisampled texture).
    #[allow(clippy::too_many_arguments)]
    fn mips_or_sample(
        &mut self,
        t: Expr,
        shape: TexShape,
        elem: TyId,
        which: &str,
        level: Expr,
        coord: Expr,
        span: Span,
    ) -> Expr {
        let ok = if which == "mips" {
            !shape.ms()
                && !matches!(
                    shape,
                    TexShape::Buffer | TexShape::Subpass | TexShape::SubpassMS
                )
        } else {
            matches!(shape, TexShape::T2DMS | TexShape::T2DMSArray)
        };
        if !ok {
            self.error(
                "OSH1009",
                span,
                format!("`{}` has no `.{which}` operator", self.types.name(t.ty)),
            );
            return Expr::error(span);
        }
        let n = shape.coord_len();
        let ct = if n == 1 {
            self.types.uint()
        } else {
            self.types.vector(Scalar::U32, n)
        };
        let cs = coord.span;
        let coord = self.convert(coord, ct, cs);
        let u = self.types.uint();
        let ls = level.span;
        let level = self.convert(level, u, ls);
        if which == "mips" {
            // The location with the level appended, as `Load` takes it.
            let it = self.types.vector(Scalar::I32, n + 1);
            let loc = mk(ExprKind::Flatten(vec![coord, level]), it, span);
            return mk(
                ExprKind::Method(ResMethod::Load, Box::new(t), vec![loc]),
                elem,
                span,
            );
        }
        let it = self.types.vector(Scalar::I32, n);
        let loc = mk(ExprKind::Flatten(vec![coord]), it, span);
        let i = self.types.int();
        let s = mk(ExprKind::Cast(CastKind::Convert, Box::new(level)), i, span);
        mk(
            ExprKind::Method(ResMethod::Load, Box::new(t), vec![loc, s]),
            elem,
            span,
        )
    }

    // ---- operators ----------------------------------------------------------------------------

    fn check_unary(&mut self, op: UnaryOp, operand: &'a ast::Expr, span: Span) -> Expr {
        let v = self.check_expr(operand);
        if self.types.is_error(v.ty) {
            return Expr::error(span);
        }
        match op {
            UnaryOp::Plus => {
                if !self.types.is_numeric(v.ty) {
                    return self.bad_unary(op, &v, span);
                }
                v
            }
            UnaryOp::Neg | UnaryOp::BitNot => {
                let Some(s) = self.types.scalar_of(v.ty) else {
                    return self.bad_unary(op, &v, span);
                };
                let target = if s == Scalar::Bool { Scalar::I32 } else { s };
                if op == UnaryOp::BitNot && !target.is_int() {
                    return self.bad_unary(op, &v, span);
                }
                let ty = self.types.with_scalar(v.ty, target);
                let v = self.convert(v, ty, span);
                if let ExprKind::Const(c) = &v.kind
                    && let Some(r) = fold_unary(
                        if op == UnaryOp::Neg {
                            UnOp::Neg
                        } else {
                            UnOp::BitNot
                        },
                        *c,
                        target,
                    )
                {
                    return mk(ExprKind::Const(r), ty, span);
                }
                let u = if op == UnaryOp::Neg {
                    UnOp::Neg
                } else {
                    UnOp::BitNot
                };
                mk(ExprKind::Unary(u, Box::new(v)), ty, span)
            }
            UnaryOp::Not => {
                if !self.types.is_numeric(v.ty) {
                    return self.bad_unary(op, &v, span);
                }
                let ty = self.types.with_scalar(v.ty, Scalar::Bool);
                let v = self.convert(v, ty, span);
                if let ExprKind::Const(c) = &v.kind {
                    return mk(ExprKind::Const(ConstVal::Bool(!c.as_bool())), ty, span);
                }
                mk(ExprKind::Unary(UnOp::Not, Box::new(v)), ty, span)
            }
            UnaryOp::PreInc | UnaryOp::PreDec | UnaryOp::PostInc | UnaryOp::PostDec => {
                if !self.types.is_numeric(v.ty) || self.types.scalar_of(v.ty) == Some(Scalar::Bool)
                {
                    return self.bad_unary(op, &v, span);
                }
                self.require_writable(&v);
                let ty = v.ty;
                let inc = matches!(op, UnaryOp::PreInc | UnaryOp::PostInc);
                let post = matches!(op, UnaryOp::PostInc | UnaryOp::PostDec);
                mk(ExprKind::IncDec(Box::new(v), inc, post), ty, span)
            }
        }
    }

    fn bad_unary(&mut self, op: UnaryOp, v: &Expr, span: Span) -> Expr {
        self.error(
            "OSH1010",
            span,
            format!(
                "operator `{}` does not apply to `{}`",
                op.symbol(),
                self.types.name(v.ty)
            ),
        );
        Expr::error(span)
    }

    /// The operation type of `a op b` (both operands are converted to it; comparisons
    /// produce bool of its shape).
    fn binary_type(&mut self, op: BinaryOp, a: &Expr, b: &Expr, span: Span) -> Option<TyId> {
        let (sa, sb) = (self.types.scalar_of(a.ty)?, self.types.scalar_of(b.ty)?);
        let mut s = common_scalar(sa, sb);
        match op {
            BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor => {
                if sa == Scalar::Bool && sb == Scalar::Bool {
                    s = Scalar::Bool;
                } else if !s.is_int() {
                    return None;
                }
            }
            BinaryOp::Shl | BinaryOp::Shr => {
                if !sa.is_int() && sa != Scalar::Bool || !sb.is_int() && sb != Scalar::Bool {
                    return None;
                }
                // The result has the left operand's type.
                s = if sa == Scalar::Bool { Scalar::I32 } else { sa };
            }
            BinaryOp::LogicalAnd | BinaryOp::LogicalOr => s = Scalar::Bool,
            BinaryOp::Eq | BinaryOp::Ne if sa == Scalar::Bool && sb == Scalar::Bool => {
                s = Scalar::Bool;
            }
            _ => {}
        }
        if s.is_literal() && !(sa.is_literal() && sb.is_literal()) {
            s = s.concrete();
        }
        let (ty, trunc) = common_shape(&mut self.types, a.ty, b.ty, s)?;
        if trunc {
            self.warn(
                "OSH1006",
                span,
                format!(
                    "implicit truncation of `{}` and `{}` to `{}`",
                    self.types.name(a.ty),
                    self.types.name(b.ty),
                    self.types.name(ty)
                ),
            );
        }
        Some(ty)
    }

    fn check_binary(
        &mut self,
        op: BinaryOp,
        lhs: &'a ast::Expr,
        rhs: &'a ast::Expr,
        span: Span,
    ) -> Expr {
        let a = self.check_expr(lhs);
        let b = self.check_expr(rhs);
        self.binary(op, a, b, span)
    }

    /// `a op b` on checked operands.
    pub fn binary(&mut self, op: BinaryOp, a: Expr, b: Expr, span: Span) -> Expr {
        if self.types.is_error(a.ty) || self.types.is_error(b.ty) {
            return Expr::error(span);
        }
        if op == BinaryOp::Comma {
            let ty = b.ty;
            return mk(ExprKind::Comma(Box::new(a), Box::new(b)), ty, span);
        }
        if matches!(self.types.kind(a.ty), TyKind::Struct(_))
            || matches!(self.types.kind(b.ty), TyKind::Struct(_))
        {
            let name = format!("operator{}", op.symbol());
            if let Some(e) = self.overloaded_operator(&name, a.clone(), vec![b.clone()], span) {
                return e;
            }
        }
        let Some(ty) = self.binary_type(op, &a, &b, span) else {
            self.error(
                "OSH1010",
                span,
                format!(
                    "operator `{}` does not apply to `{}` and `{}`",
                    op.symbol(),
                    self.types.name(a.ty),
                    self.types.name(b.ty)
                ),
            );
            return Expr::error(span);
        };
        let (sa, sb) = (a.span, b.span);
        if matches!(op, BinaryOp::Div | BinaryOp::Rem)
            && let ExprKind::Const(v) = &b.kind
            && self
                .types
                .scalar_of(ty)
                .is_some_and(|s| !s.is_float() && s != Scalar::Bool)
            && v.as_int() == 0
        {
            // As DXC (clang's -Wdivision-by-zero): the result is undefined, the program
            // still compiles.
            let what = if op == BinaryOp::Div {
                "division"
            } else {
                "remainder"
            };
            self.warn(
                "OSH1032",
                sb,
                format!("integer {what} by zero is undefined"),
            );
        }
        let a = self.convert_quiet(a, ty, sa);
        let b = if matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
            // The shift amount takes the left operand's type (the IR wants equal shapes).
            self.convert_quiet(b, ty, sb)
        } else {
            self.convert_quiet(b, ty, sb)
        };
        if matches!(op, BinaryOp::LogicalAnd | BinaryOp::LogicalOr) {
            let is_and = op == BinaryOp::LogicalAnd;
            if let (ExprKind::Const(x), ExprKind::Const(y)) = (&a.kind, &b.kind) {
                let v = if is_and {
                    x.as_bool() && y.as_bool()
                } else {
                    x.as_bool() || y.as_bool()
                };
                return mk(ExprKind::Const(ConstVal::Bool(v)), ty, span);
            }
            if matches!(self.types.kind(ty), TyKind::Scalar(_)) {
                return mk(
                    ExprKind::Logical(is_and, Box::new(a), Box::new(b)),
                    ty,
                    span,
                );
            }
            // Vectors: component-wise, both sides evaluated.
            let iop = if is_and {
                IntrinsicOp::LogicalAnd
            } else {
                IntrinsicOp::LogicalOr
            };
            return mk(ExprKind::Intrinsic(iop, vec![a, b]), ty, span);
        }
        let bop = match op {
            BinaryOp::Mul => BinOp::Mul,
            BinaryOp::Div => BinOp::Div,
            BinaryOp::Rem => BinOp::Rem,
            BinaryOp::Add => BinOp::Add,
            BinaryOp::Sub => BinOp::Sub,
            BinaryOp::Shl => BinOp::Shl,
            BinaryOp::Shr => BinOp::Shr,
            BinaryOp::Lt => BinOp::Lt,
            BinaryOp::Gt => BinOp::Gt,
            BinaryOp::Le => BinOp::Le,
            BinaryOp::Ge => BinOp::Ge,
            BinaryOp::Eq => BinOp::Eq,
            BinaryOp::Ne => BinOp::Ne,
            BinaryOp::BitAnd => BinOp::And,
            BinaryOp::BitXor => BinOp::Xor,
            BinaryOp::BitOr => BinOp::Or,
            BinaryOp::LogicalAnd | BinaryOp::LogicalOr | BinaryOp::Comma => BinOp::And,
        };
        let rty = if bop.is_comparison() {
            self.types.with_scalar(ty, Scalar::Bool)
        } else {
            ty
        };
        if let (ExprKind::Const(x), ExprKind::Const(y), Some(s)) =
            (&a.kind, &b.kind, self.types.scalar_of(ty))
            && matches!(self.types.kind(ty), TyKind::Scalar(_))
            && let Some(v) = fold_binary(bop, *x, *y, s)
        {
            return mk(ExprKind::Const(v), rty, span);
        }
        mk(ExprKind::Binary(bop, Box::new(a), Box::new(b)), rty, span)
    }

    /// Like [`Self::convert`] but without truncation warnings (the operator warned already).
    fn convert_quiet(&mut self, e: Expr, to: TyId, span: Span) -> Expr {
        if e.ty == to || self.types.is_error(e.ty) {
            return e;
        }
        if numeric_shape(&self.types, e.ty, to).is_some() {
            return self.numeric_cast(e, to, span, false);
        }
        self.convert(e, to, span)
    }

    fn check_ternary(
        &mut self,
        cond: &'a ast::Expr,
        then: &'a ast::Expr,
        otherwise: &'a ast::Expr,
        span: Span,
    ) -> Expr {
        let c = self.check_expr(cond);
        let a = self.check_expr(then);
        let b = self.check_expr(otherwise);
        if self.types.is_error(c.ty) || self.types.is_error(a.ty) || self.types.is_error(b.ty) {
            return Expr::error(span);
        }
        let result = if a.ty == b.ty {
            Some(a.ty)
        } else if let (Some(sa), Some(sb)) =
            (self.types.scalar_of(a.ty), self.types.scalar_of(b.ty))
        {
            let s = common_scalar(sa, sb);
            let s = if sa == Scalar::Bool && sb == Scalar::Bool {
                Scalar::Bool
            } else {
                s
            };
            let s = if s.is_literal() && !(sa.is_literal() && sb.is_literal()) {
                s.concrete()
            } else {
                s
            };
            common_shape(&mut self.types, a.ty, b.ty, s).map(|(t, _)| t)
        } else {
            None
        };
        let Some(mut ty) = result else {
            self.error(
                "OSH1005",
                span,
                format!(
                    "the branches of `?:` have incompatible types `{}` and `{}`",
                    self.types.name(a.ty),
                    self.types.name(b.ty)
                ),
            );
            return Expr::error(span);
        };
        let cond_vector = matches!(self.types.kind(c.ty), TyKind::Vector(_, n) if *n > 1);
        if cond_vector {
            // Component-wise selection.
            let n = self.types.vec_len(c.ty).unwrap_or(1);
            if let Some(s) = self.types.scalar_of(ty)
                && self.types.vec_len(ty).is_some()
            {
                ty = self.types.vector(s, n);
            }
            let bt = self.types.vector(Scalar::Bool, n);
            let cs = c.span;
            let c = self.convert(c, bt, cs);
            let (sa, sb) = (a.span, b.span);
            let a = self.convert_quiet(a, ty, sa);
            let b = self.convert_quiet(b, ty, sb);
            return mk(
                ExprKind::Intrinsic(IntrinsicOp::Select, vec![c, a, b]),
                ty,
                span,
            );
        }
        if self.types.scalar_of(ty).is_some_and(Scalar::is_literal)
            && !matches!((&a.kind, &b.kind), (ExprKind::Const(_), ExprKind::Const(_)))
        {
            ty = self.types.concrete(ty);
        }
        let bt = self.types.bool();
        let cs = c.span;
        let c = self.convert(c, bt, cs);
        let (sa, sb) = (a.span, b.span);
        let a = self.convert_quiet(a, ty, sa);
        let b = self.convert_quiet(b, ty, sb);
        if let ExprKind::Const(cv) = c.kind {
            return if cv.as_bool() { a } else { b };
        }
        mk(
            ExprKind::Ternary(Box::new(c), Box::new(a), Box::new(b)),
            ty,
            span,
        )
    }

    // ---- assignment ---------------------------------------------------------------------------

    /// Why `e` cannot be assigned, if it cannot.
    pub fn not_writable(&self, e: &Expr) -> Option<String> {
        match &e.kind {
            ExprKind::Error => None,
            ExprKind::Local(l) => {
                let f = self.bodies.fctx.as_ref()?;
                if f.local_const_flag
                    .get(l.0 as usize)
                    .copied()
                    .unwrap_or(false)
                {
                    Some(format!("`{}` is const", f.locals[l.0 as usize].name))
                } else {
                    None
                }
            }
            ExprKind::Global(g) => {
                let gd = &self.globals[g.0 as usize];
                match gd.kind {
                    GlobalKind::Static | GlobalKind::Groupshared => None,
                    GlobalKind::Const | GlobalKind::SpecConst { .. } => {
                        Some(format!("`{}` is const", gd.name))
                    }
                    GlobalKind::CBuffer { .. }
                    | GlobalKind::PushConstant
                    | GlobalKind::ShaderRecord => {
                        Some(format!("`{}` is read-only (a constant buffer)", gd.name))
                    }
                    GlobalKind::Resource => Some(format!("`{}` is a resource", gd.name)),
                }
            }
            ExprKind::Field(b, _) => self.not_writable(b),
            ExprKind::Swizzle(b, comps) => {
                if has_dup(comps) {
                    return Some("a swizzle with a repeated component cannot be assigned".into());
                }
                self.not_writable(b)
            }
            ExprKind::MatSwizzle(b, elems) => {
                if has_dup(elems) {
                    return Some("a swizzle with a repeated element cannot be assigned".into());
                }
                self.not_writable(b)
            }
            ExprKind::Index(b, _) => match self.types.kind(b.ty) {
                TyKind::Buffer(BufKind::RWStructured | BufKind::Append | BufKind::Consume, _) => {
                    None
                }
                TyKind::Buffer(..) => Some(format!("`{}` is read-only", self.types.name(b.ty))),
                _ => self.not_writable(b),
            },
            ExprKind::TexIndex(b, _) => match self.types.kind(b.ty) {
                TyKind::Texture(_, _, true) => None,
                _ => Some(format!("`{}` is read-only", self.types.name(b.ty))),
            },
            ExprKind::Cast(CastKind::Reshape, inner) => self.not_writable(inner),
            // `++a = b`, `(a += c) = b`, `(a = c) = b`: the result is the place `a` (C++'s rule,
            // which DXC keeps).
            ExprKind::IncDec(b, _, false)
            | ExprKind::Assign(b, _)
            | ExprKind::CompoundAssign { lhs: b, .. } => self.not_writable(b),
            _ => Some("the expression is not assignable".into()),
        }
    }

    /// Reports when `e` cannot be assigned.
    pub fn require_writable(&mut self, e: &Expr) -> bool {
        match self.not_writable(e) {
            None => true,
            Some(why) => {
                self.error("OSH1008", e.span, why);
                false
            }
        }
    }

    fn check_assign(
        &mut self,
        op: Option<BinaryOp>,
        lhs: &'a ast::Expr,
        rhs: &'a ast::Expr,
        span: Span,
    ) -> Expr {
        let l = self.check_expr(lhs);
        let r = match (&rhs.kind, op) {
            (A::InitList(_), None) => self.check_initializer(rhs, l.ty),
            _ => self.check_expr(rhs),
        };
        if self.types.is_error(l.ty) || self.types.is_error(r.ty) {
            return Expr::error(span);
        }
        if matches!(
            self.types.kind(l.ty),
            TyKind::Stream(..) | TyKind::RayQuery(_)
        ) {
            self.error(
                "OSH1008",
                span,
                format!("a `{}` cannot be assigned", self.types.name(l.ty)),
            );
            return Expr::error(span);
        }
        if let ExprKind::Split(id) = l.kind {
            if op.is_some() {
                self.error("OSH1010", span, "compound assignment to a struct");
                return Expr::error(span);
            }
            return self.split_assign(id, &r, span);
        }
        if let ExprKind::Split(_) = r.kind {
            self.error(
                "OSH1005",
                r.span,
                format!(
                    "a struct holding resources cannot be assigned to `{}`",
                    self.types.name(l.ty)
                ),
            );
            return Expr::error(span);
        }
        if self.types.is_resource(l.ty) {
            if let ExprKind::Local(_) = l.kind {
                let rs = r.span;
                let r = self.convert(r, l.ty, rs);
                let ty = l.ty;
                return mk(ExprKind::Assign(Box::new(l), Box::new(r)), ty, span);
            }
            self.error("OSH1008", l.span, "a resource cannot be assigned");
            return Expr::error(span);
        }
        if !self.require_writable(&l) {
            return Expr::error(span);
        }
        let ty = l.ty;
        match op {
            None => {
                let rs = r.span;
                let r = self.convert(r, ty, rs);
                mk(ExprKind::Assign(Box::new(l), Box::new(r)), ty, span)
            }
            Some(bop) => {
                let Some(op_ty) = self.binary_type(bop, &l, &r, span) else {
                    self.error(
                        "OSH1010",
                        span,
                        format!(
                            "operator `{}=` does not apply to `{}` and `{}`",
                            bop.symbol(),
                            self.types.name(l.ty),
                            self.types.name(r.ty)
                        ),
                    );
                    return Expr::error(span);
                };
                if implicit_cost(&self.types, op_ty, ty).is_none() {
                    self.error(
                        "OSH1005",
                        span,
                        format!(
                            "cannot assign `{}` to `{}`",
                            self.types.name(op_ty),
                            self.types.name(ty)
                        ),
                    );
                    return Expr::error(span);
                }
                let rs = r.span;
                let r = self.convert_quiet(r, op_ty, rs);
                let b = match bop {
                    BinaryOp::Mul => BinOp::Mul,
                    BinaryOp::Div => BinOp::Div,
                    BinaryOp::Rem => BinOp::Rem,
                    BinaryOp::Add => BinOp::Add,
                    BinaryOp::Sub => BinOp::Sub,
                    BinaryOp::Shl => BinOp::Shl,
                    BinaryOp::Shr => BinOp::Shr,
                    BinaryOp::BitAnd => BinOp::And,
                    BinaryOp::BitOr => BinOp::Or,
                    BinaryOp::BitXor => BinOp::Xor,
                    _ => {
                        self.error("OSH1010", span, "invalid compound assignment");
                        return Expr::error(span);
                    }
                };
                mk(
                    ExprKind::CompoundAssign {
                        op: b,
                        lhs: Box::new(l),
                        rhs: Box::new(r),
                        op_ty,
                    },
                    ty,
                    span,
                )
            }
        }
    }

    // ---- calls --------------------------------------------------------------------------------

    fn check_call(&mut self, callee: &'a ast::Expr, args: &'a [ast::Expr], span: Span) -> Expr {
        match &callee.kind {
            A::Member {
                base,
                member,
                template_args,
            } => {
                let b = self.check_expr(base);
                if self.types.is_error(b.ty) {
                    for a in args {
                        self.check_expr(a);
                    }
                    return Expr::error(span);
                }
                let argv: Vec<Expr> = args.iter().map(|a| self.check_expr(a)).collect();
                if let ExprKind::Split(_) = b.kind {
                    self.error(
                        "OSH1018",
                        member.span,
                        "methods of structs that hold resources are not supported",
                    );
                    return Expr::error(span);
                }
                if self.types.is_resource(b.ty)
                    || matches!(
                        self.types.kind(b.ty),
                        TyKind::Stream(..) | TyKind::RayQuery(_)
                    )
                {
                    return self.check_method(b, member, template_args.as_deref(), argv, span);
                }
                if let TyKind::Struct(_) = self.types.kind(b.ty) {
                    let ns = self.type_ns(b.ty);
                    if let Some(ns) = ns
                        && let Some(Sym::Overloads(fs, ts)) = self.lookup_in(ns, &member.name)
                    {
                        return self.resolve_call(
                            &member.name,
                            fs,
                            ts,
                            template_args.as_deref(),
                            Some(b),
                            argv,
                            span,
                        );
                    }
                }
                self.error(
                    "OSH1009",
                    member.span,
                    format!(
                        "`{}` has no method `{}`",
                        self.types.name(b.ty),
                        member.name
                    ),
                );
                Expr::error(span)
            }
            A::Name {
                path,
                template_args,
                qualifier,
            } => {
                let name = path.to_text();
                let simple = path.segments.len() == 1 && !path.global && qualifier.is_none();
                let sym = if let Some(q) = qualifier {
                    match self.lookup_qualified(q, path) {
                        Some(s) => Some(s),
                        None => return Expr::error(span),
                    }
                } else if simple {
                    let n = &path.segments[0].name;
                    self.local_scoped(n).or_else(|| self.lookup(n))
                } else {
                    self.lookup_path(path)
                };
                match sym {
                    Some(Sym::Overloads(fs, ts)) => {
                        let argv: Vec<Expr> = args.iter().map(|a| self.check_expr(a)).collect();
                        // An unqualified call of a method from a method passes `this`.
                        let this =
                            self.bodies
                                .fctx
                                .as_ref()
                                .and_then(|f| f.this)
                                .map(|(l, sid)| {
                                    let ty = self.types.intern(TyKind::Struct(sid));
                                    mk(ExprKind::Local(l), ty, callee.span)
                                });
                        let user = self.resolve_call_opt(
                            &path.last().name,
                            fs,
                            ts,
                            template_args.as_deref(),
                            this,
                            argv.clone(),
                            span,
                            simple
                                && crate::hlsl::sema::intrinsics::is_intrinsic(&path.last().name),
                        );
                        match user {
                            Some(e) => e,
                            None => self.check_intrinsic(
                                &path.last().name,
                                template_args.as_deref(),
                                argv,
                                span,
                            ),
                        }
                    }
                    Some(Sym::Type(t, _)) => {
                        let argv: Vec<Expr> = args.iter().map(|a| self.check_expr(a)).collect();
                        self.construct(t, argv, span)
                    }
                    Some(Sym::StructTemplate(tid)) => {
                        let t = match template_args {
                            Some(ta) => match self.resolve_template_args(tid, ta, span) {
                                Some(a) => self.instantiate_struct(tid, a, span),
                                None => Types::ERROR,
                            },
                            None => Types::ERROR,
                        };
                        let argv: Vec<Expr> = args.iter().map(|a| self.check_expr(a)).collect();
                        self.construct(t, argv, span)
                    }
                    Some(_) if simple && crate::hlsl::sema::intrinsics::is_intrinsic(&name) => {
                        let argv: Vec<Expr> = args.iter().map(|a| self.check_expr(a)).collect();
                        self.check_intrinsic(&name, template_args.as_deref(), argv, span)
                    }
                    Some(s) => {
                        let e = self.sym_value(s, &name, callee.span);
                        if matches!(self.types.kind(e.ty), TyKind::Struct(_)) {
                            let argv: Vec<Expr> = args.iter().map(|a| self.check_expr(a)).collect();
                            if let Some(r) = self.overloaded_operator("operator()", e, argv, span) {
                                return r;
                            }
                            self.error(
                                "OSH1005",
                                callee.span,
                                format!("`{name}` is not a function"),
                            );
                            return Expr::error(span);
                        }
                        if !self.types.is_error(e.ty) {
                            self.error(
                                "OSH1005",
                                callee.span,
                                format!("`{name}` is not a function"),
                            );
                        }
                        for a in args {
                            self.check_expr(a);
                        }
                        Expr::error(span)
                    }
                    None => {
                        let argv: Vec<Expr> = args.iter().map(|a| self.check_expr(a)).collect();
                        let base = if path.segments.len() == 2 && path.segments[0].name == "vk" {
                            format!("vk::{}", path.last().name)
                        } else {
                            name.clone()
                        };
                        if crate::hlsl::sema::intrinsics::is_intrinsic(&base) {
                            return self.check_intrinsic(
                                &base,
                                template_args.as_deref(),
                                argv,
                                span,
                            );
                        }
                        self.error("OSH1001", path.span, format!("undefined function `{name}`"));
                        Expr::error(span)
                    }
                }
            }
            _ => {
                self.check_expr(callee);
                for a in args {
                    self.check_expr(a);
                }
                self.error("OSH1018", callee.span, "this expression cannot be called");
                Expr::error(span)
            }
        }
    }

    /// Resolves a call among user functions and templates; reports when nothing matches.
    #[allow(clippy::too_many_arguments)]
    pub fn resolve_call(
        &mut self,
        name: &str,
        funcs: Vec<FuncId>,
        templates: Vec<TemplateId>,
        targs: Option<&'a [ast::TemplateArg]>,
        object: Option<Expr>,
        args: Vec<Expr>,
        span: Span,
    ) -> Expr {
        self.resolve_call_opt(name, funcs, templates, targs, object, args, span, false)
            .unwrap_or_else(|| Expr::error(span))
    }

    /// Like [`Self::resolve_call`]; with `quiet_fallback`, returns `None` instead of reporting
    /// when no candidate matches (an intrinsic of the same name is tried next).
    #[allow(clippy::too_many_arguments)]
    pub fn resolve_call_opt(
        &mut self,
        name: &str,
        funcs: Vec<FuncId>,
        templates: Vec<TemplateId>,
        targs: Option<&'a [ast::TemplateArg]>,
        object: Option<Expr>,
        args: Vec<Expr>,
        span: Span,
        quiet_fallback: bool,
    ) -> Option<Expr> {
        if args.iter().any(|a| self.types.is_error(a.ty))
            || object.as_ref().is_some_and(|o| self.types.is_error(o.ty))
        {
            return Some(Expr::error(span));
        }
        let mut candidates: Vec<FuncId> = Vec::new();
        for &f in &funcs {
            if targs.is_none() {
                candidates.push(f);
            }
        }
        for &t in &templates {
            let targ_list = match targs {
                Some(ta) => self.resolve_template_args(t, ta, span),
                None => self.deduce(t, &args),
            };
            if let Some(a) = targ_list
                && let Some(f) = self.instantiate_func(t, a, span)
            {
                candidates.push(f);
            }
        }
        // Score each candidate.
        let mut scored: Vec<(u64, FuncId)> = Vec::new();
        for &f in &candidates {
            if let Some(c) = self.call_cost(f, object.is_some(), &args) {
                scored.push((c, f));
            }
        }
        scored.sort_by_key(|s| s.0);
        let Some(&(best_cost, best)) = scored.first() else {
            if quiet_fallback {
                return None;
            }
            self.no_match(name, &candidates, &args, span);
            return Some(Expr::error(span));
        };
        let tied: Vec<FuncId> = scored
            .iter()
            .filter(|s| s.0 == best_cost)
            .map(|s| s.1)
            .collect();
        if tied.len() > 1 {
            // Candidates with the same parameters (a template instance next to the function
            // it equals) are one function; parameters that differ only in direction are not.
            let sigs: Vec<Vec<(TyId, ParamDir)>> = tied
                .iter()
                .map(|f| {
                    self.funcs[f.0 as usize]
                        .params
                        .iter()
                        .map(|p| (p.ty, p.dir))
                        .collect()
                })
                .collect();
            if sigs.iter().any(|s| *s != sigs[0]) {
                let mut d = Diagnostic::error("OSH1004", format!("ambiguous call to `{name}`"))
                    .with_span(span);
                for f in &tied {
                    d = d.with_note(format!("candidate: {}", self.signature(*f)));
                }
                self.push_diag(d);
                return Some(Expr::error(span));
            }
        }
        Some(self.build_call(best, object, args, span))
    }

    /// `f(T1, T2) -> R` for diagnostics.
    pub fn signature(&self, f: FuncId) -> String {
        let fd = &self.funcs[f.0 as usize];
        let params: Vec<String> = fd
            .params
            .iter()
            .filter(|p| p.name != "this")
            .map(|p| {
                let dir = match p.dir {
                    ParamDir::In => "",
                    ParamDir::Out => "out ",
                    ParamDir::InOut => "inout ",
                };
                format!("{dir}{}", self.types.name(p.ty))
            })
            .collect();
        format!(
            "{} {}({})",
            self.types.name(fd.ret),
            fd.name,
            params.join(", ")
        )
    }

    fn no_match(&mut self, name: &str, candidates: &[FuncId], args: &[Expr], span: Span) {
        let argt: Vec<String> = args.iter().map(|a| self.types.name(a.ty)).collect();
        let mut d = Diagnostic::error(
            "OSH1003",
            format!(
                "no overload of `{name}` matches the arguments ({})",
                argt.join(", ")
            ),
        )
        .with_span(span);
        for &f in candidates {
            d = d.with_note(format!("candidate: {}", self.signature(f)));
        }
        if candidates.is_empty() {
            d = d.with_note("no candidate could be instantiated for these arguments");
        }
        self.push_diag(d);
    }

    /// The cost of calling `f` with `args` (`None`: not viable).
    fn call_cost(&self, f: FuncId, has_object: bool, args: &[Expr]) -> Option<u64> {
        if let Some(sig) = self.split.func_sigs.get(&f) {
            // A function with split parameters: match the declared signature.
            let fd = &self.funcs[f.0 as usize];
            let takes_this = fd.params.first().is_some_and(|p| p.name == "this");
            if takes_this && !has_object || args.len() != sig.len() {
                return None;
            }
            let mut total = 0;
            for (a, sp) in args.iter().zip(sig) {
                if self.is_split_type(sp.ty) {
                    match a.kind {
                        ExprKind::Split(id) if self.split.splits[id as usize].ty == sp.ty => {}
                        // A call returning the struct (of resources only).
                        ExprKind::Call(..) if a.ty == sp.ty => {}
                        _ => return None,
                    }
                    continue;
                }
                let p = &fd.params[sp.first];
                if self.types.is_resource(p.ty) {
                    if a.ty != p.ty && !self.resource_compatible(a.ty, p.ty) {
                        return None;
                    }
                    continue;
                }
                total += self.arg_score(a, p.ty, p.dir)?;
            }
            return Some(total);
        }
        if args.iter().any(|a| matches!(a.kind, ExprKind::Split(_))) {
            return None;
        }
        let fd = &self.funcs[f.0 as usize];
        let params: Vec<&ParamDef> = fd
            .params
            .iter()
            .enumerate()
            .filter(|(i, p)| !(*i == 0 && p.name == "this" && fd.method_of.is_some()))
            .map(|(_, p)| p)
            .collect();
        let takes_this = fd.params.first().is_some_and(|p| p.name == "this");
        if takes_this && !has_object {
            return None;
        }
        if args.len() > params.len() {
            return None;
        }
        let required = params.iter().filter(|p| p.default.is_none()).count();
        if args.len() < required {
            return None;
        }
        let mut total = 0;
        for (a, p) in args.iter().zip(&params) {
            if self.types.is_resource(p.ty) || self.types.is_resource(a.ty) {
                if self.types.is_resource(p.ty) != self.types.is_resource(a.ty) {
                    return None;
                }
                if a.ty != p.ty && !self.resource_compatible(a.ty, p.ty) {
                    return None;
                }
                continue;
            }
            total += self.arg_score(a, p.ty, p.dir)?;
        }
        Some(total)
    }

    /// DXC's score of passing `a` to a parameter of type `param` (`overload_rank.rs`): the
    /// copy-in for `in` and `inout`, plus the copy-out for `out` and `inout`; `None` when a
    /// needed conversion does not exist or an `out` argument is not writable.
    fn arg_score(&self, a: &Expr, param: TyId, dir: ParamDir) -> Option<u64> {
        let mut score = 0;
        if matches!(dir, ParamDir::Out | ParamDir::InOut) {
            self.not_writable(a).is_none().then_some(())?;
            implicit_cost(&self.types, param, a.ty)?;
            score += conversion_score(&self.types, a.ty, param);
        }
        if matches!(dir, ParamDir::In | ParamDir::InOut) {
            implicit_cost(&self.types, a.ty, param)?;
            score += conversion_score(&self.types, param, a.ty);
        }
        Some(score)
    }

    fn resource_compatible(&self, a: TyId, p: TyId) -> bool {
        match (self.types.kind(a), self.types.kind(p)) {
            (TyKind::Sampler(_), TyKind::Sampler(_)) => true,
            (TyKind::Array(ea, na), TyKind::Array(ep, np)) => {
                na == np && (ea == ep || self.resource_compatible(*ea, *ep))
            }
            _ => false,
        }
    }

    fn build_call(&mut self, f: FuncId, object: Option<Expr>, args: Vec<Expr>, span: Span) -> Expr {
        // Split arguments pass their fields.
        let args = if let Some(sig) = self.split.func_sigs.get(&f).cloned() {
            let mut out = Vec::new();
            for (a, sp) in args.into_iter().zip(sig) {
                match a.kind {
                    ExprKind::Split(id) if self.is_split_type(sp.ty) => {
                        self.split_leaves(id, &mut out);
                    }
                    ExprKind::Call(..) if self.is_split_type(sp.ty) && a.ty == sp.ty => {
                        // `sampleIt(make(), uv)`: the fields the call returns.
                        out.extend(self.split_call_leaves(&a));
                    }
                    _ => out.push(a),
                }
            }
            out
        } else {
            args
        };
        let fd = self.funcs[f.0 as usize].clone();
        let takes_this = fd.params.first().is_some_and(|p| p.name == "this");
        let mut out = Vec::new();
        let mut params = fd.params.iter();
        if takes_this {
            params.next();
            if let Some(o) = object {
                let writable = self.not_writable(&o).is_none();
                // The method's own struct: a base method called on a derived object gets the
                // base inside it (lowering follows the nested base field).
                let ty = fd.params.first().map_or(o.ty, |p| p.ty);
                out.push(Arg::Out {
                    place: o,
                    param_ty: ty,
                    copy_in: true,
                    copy_out: writable,
                });
            }
        }
        let mut args = args.into_iter();
        for p in params {
            let a = match args.next() {
                Some(a) => a,
                None => match &p.default {
                    Some(d) => {
                        if let ExprKind::Error = d.kind
                            && let Some(held) =
                                self.bodies.held_defaults.get(&(d.span, p.ty)).cloned()
                        {
                            // The default does not check for this instance: its errors, then
                            // where the call left it out.
                            for h in held {
                                if h.is_error() {
                                    self.diag.errors += 1;
                                }
                                self.diag.diags.push(h);
                            }
                            self.error(
                                "OSH1003",
                                span,
                                format!(
                                    "`{}` leaves out `{}`, whose default argument does not \
                                     convert to `{}` in this instance",
                                    fd.name,
                                    p.name,
                                    self.types.name(p.ty)
                                ),
                            );
                        }
                        d.clone()
                    }
                    None => break,
                },
            };
            if self.types.is_resource(p.ty) {
                out.push(Arg::Resource(a));
                continue;
            }
            match p.dir {
                ParamDir::In => {
                    let s = a.span;
                    out.push(Arg::In(self.convert(a, p.ty, s)));
                }
                ParamDir::Out | ParamDir::InOut => out.push(Arg::Out {
                    place: a,
                    param_ty: p.ty,
                    copy_in: p.dir == ParamDir::InOut,
                    copy_out: true,
                }),
            }
        }
        mk(ExprKind::Call(f, out), fd.ret, span)
    }

    /// Deduces a function template's arguments from call arguments.
    fn deduce(&mut self, tid: TemplateId, args: &[Expr]) -> Option<Vec<TArg>> {
        let (params, decl) = {
            let t = &self.scope.templates[tid.0 as usize];
            let TemplateBody::Func(d) = &t.body else {
                return None;
            };
            (t.params, *d)
        };
        let names: Vec<Option<&str>> = params
            .iter()
            .map(|p| p.name.as_ref().map(|n| n.name.as_str()))
            .collect();
        let mut bound: Vec<Option<TArg>> = vec![None; params.len()];
        for (p, a) in decl.params.iter().zip(args) {
            let mut aty = a.ty;
            aty = self.types.concrete(aty);
            // `T x[N]`: the declarator's dimensions.
            if let Some(d) = &p.declarator
                && !d.array_dims.is_empty()
            {
                for dim in &d.array_dims {
                    match self.types.kind(aty).clone() {
                        TyKind::Array(e, n) => {
                            if let Some(ast::Expr {
                                kind: A::Name { path, .. },
                                ..
                            }) = &dim.size
                                && let Some(i) = names
                                    .iter()
                                    .position(|n| *n == Some(path.last().name.as_str()))
                            {
                                bound[i] = Some(TArg::Value(n as i128));
                            }
                            aty = e;
                        }
                        _ => return None,
                    }
                }
            }
            self.deduce_type(&p.ty, aty, &names, &mut bound);
        }
        let mut out = Vec::new();
        for (i, b) in bound.into_iter().enumerate() {
            match b {
                Some(x) => out.push(x),
                None => {
                    // A default argument.
                    let d = params[i].default.as_ref()?;
                    if params[i].value_type.is_some() {
                        match d {
                            ast::TemplateArg::Expr(e) => {
                                let h = self.check_expr(e);
                                out.push(TArg::Value(self.eval_const(&h)?.as_int()));
                            }
                            _ => return None,
                        }
                    } else {
                        match d {
                            ast::TemplateArg::Type(t) => out.push(TArg::Type(self.resolve_type(t))),
                            _ => return None,
                        }
                    }
                }
            }
        }
        Some(out)
    }

    fn deduce_type(
        &mut self,
        t: &'a ast::TypeExpr,
        aty: TyId,
        names: &[Option<&str>],
        bound: &mut [Option<TArg>],
    ) {
        let ast::TypeKind::Named { path, args } = &t.kind else {
            if let ast::TypeKind::Modified { inner, .. } = &t.kind {
                self.deduce_type(inner, aty, names, bound);
            }
            return;
        };
        let pos = |n: &str| names.iter().position(|x| *x == Some(n));
        if path.segments.len() == 1 {
            let n = path.segments[0].name.as_str();
            if args.is_none() {
                if let Some(i) = pos(n)
                    && bound[i].is_none()
                {
                    bound[i] = Some(TArg::Type(aty));
                }
                return;
            }
            let a = args.as_deref().unwrap_or(&[]);
            let value_at = |k: usize| -> Option<&str> {
                match a.get(k)? {
                    ast::TemplateArg::Type(ast::TypeExpr {
                        kind: ast::TypeKind::Named { path, args: None },
                        ..
                    }) => Some(path.last().name.as_str()),
                    ast::TemplateArg::Expr(ast::Expr {
                        kind: A::Name { path, .. },
                        ..
                    }) => Some(path.last().name.as_str()),
                    _ => None,
                }
            };
            let bind_type = |k: usize, ty: TyId, bound: &mut [Option<TArg>]| {
                if let Some(ast::TemplateArg::Type(te)) = a.get(k)
                    && let ast::TypeKind::Named { path, args: None } = &te.kind
                    && let Some(i) = pos(path.last().name.as_str())
                    && bound[i].is_none()
                {
                    bound[i] = Some(TArg::Type(ty));
                }
            };
            match (n, self.types.kind(aty).clone()) {
                ("vector", TyKind::Vector(s, len)) => {
                    let st = self.types.scalar(s);
                    bind_type(0, st, bound);
                    if let Some(v) = value_at(1)
                        && let Some(i) = pos(v)
                        && bound[i].is_none()
                    {
                        bound[i] = Some(TArg::Value(len as i128));
                    }
                }
                ("vector", TyKind::Scalar(s)) => {
                    let st = self.types.scalar(s);
                    bind_type(0, st, bound);
                    if let Some(v) = value_at(1)
                        && let Some(i) = pos(v)
                        && bound[i].is_none()
                    {
                        bound[i] = Some(TArg::Value(1));
                    }
                }
                ("matrix", TyKind::Matrix(s, r, c)) => {
                    let st = self.types.scalar(s);
                    bind_type(0, st, bound);
                    for (k, v) in [(1, r), (2, c)] {
                        if let Some(nm) = value_at(k)
                            && let Some(i) = pos(nm)
                            && bound[i].is_none()
                        {
                            bound[i] = Some(TArg::Value(v as i128));
                        }
                    }
                }
                (_, TyKind::Struct(sid)) => {
                    if let Some((_, iargs)) = self.scope.struct_instance.get(&sid).cloned() {
                        for (k, ia) in iargs.iter().enumerate() {
                            match ia {
                                TArg::Type(it) => {
                                    if let Some(ast::TemplateArg::Type(te)) = a.get(k) {
                                        self.deduce_type(te, *it, names, bound);
                                    }
                                }
                                TArg::Value(v) => {
                                    if let Some(nm) = value_at(k)
                                        && let Some(i) = pos(nm)
                                        && bound[i].is_none()
                                    {
                                        bound[i] = Some(TArg::Value(*v));
                                    }
                                }
                            }
                        }
                    }
                }
                (_, TyKind::Texture(_, e, _)) | (_, TyKind::Buffer(_, e)) => bind_type(0, e, bound),
                _ => {}
            }
        }
    }

    // ---- constant evaluation ------------------------------------------------------------------

    /// The value of a scalar constant expression.
    pub fn eval_const(&self, e: &Expr) -> Option<ConstVal> {
        let s = match self.types.kind(e.ty) {
            TyKind::Scalar(s) => *s,
            TyKind::Vector(s, 1) => *s,
            _ => return None,
        };
        match &e.kind {
            ExprKind::Const(v) => Some(*v),
            ExprKind::Local(l) => self
                .bodies
                .fctx
                .as_ref()
                .and_then(|f| f.local_consts.get(l.0 as usize).copied().flatten()),
            ExprKind::Global(g) => {
                let gd = &self.globals[g.0 as usize];
                match gd.kind {
                    GlobalKind::Const => gd.const_value,
                    _ => None,
                }
            }
            ExprKind::Cast(CastKind::Convert, x) => Some(self.eval_const(x)?.convert(s)),
            ExprKind::Cast(CastKind::Reshape | CastKind::Truncate, x) => self.eval_const(x),
            ExprKind::Swizzle(x, c) if c.len() == 1 && c[0] == 0 => self.eval_const(x),
            ExprKind::Unary(op, x) => fold_unary(*op, self.eval_const(x)?, s),
            ExprKind::Binary(op, a, b) => {
                let os = self.types.scalar_of(a.ty)?;
                fold_binary(*op, self.eval_const(a)?, self.eval_const(b)?, os)
            }
            ExprKind::Logical(and, a, b) => {
                let x = self.eval_const(a)?.as_bool();
                let y = self.eval_const(b)?.as_bool();
                Some(ConstVal::Bool(if *and { x && y } else { x || y }))
            }
            ExprKind::Ternary(c, a, b) => {
                if self.eval_const(c)?.as_bool() {
                    self.eval_const(a)
                } else {
                    self.eval_const(b)
                }
            }
            ExprKind::Comma(_, b) => self.eval_const(b),
            _ => None,
        }
    }
}

impl Expr {
    fn with_void(self) -> Expr {
        Expr {
            ty: Types::VOID,
            ..self
        }
    }
}

fn has_dup<T: PartialEq>(v: &[T]) -> bool {
    v.iter().enumerate().any(|(i, x)| v[..i].contains(x))
}

/// `xyzw`/`rgba` swizzles of a vector of `n` components.
pub fn parse_swizzle(name: &str, n: u8) -> Result<Vec<u8>, String> {
    if name.is_empty() || name.len() > 4 {
        return Err(format!("invalid swizzle `.{name}`"));
    }
    let xyzw = name.chars().all(|c| "xyzw".contains(c));
    let rgba = name.chars().all(|c| "rgba".contains(c));
    if !xyzw && !rgba {
        return Err(format!("invalid swizzle `.{name}`"));
    }
    let mut out = Vec::new();
    for c in name.chars() {
        let i = match c {
            'x' | 'r' => 0,
            'y' | 'g' => 1,
            'z' | 'b' => 2,
            _ => 3,
        };
        if i >= n {
            return Err(format!(
                "swizzle `.{name}` reads past the {n} component(s) of the vector"
            ));
        }
        out.push(i);
    }
    Ok(out)
}

/// `_m01_m10` (zero-based) or `_11_22` (one-based) matrix swizzles.
pub fn parse_mat_swizzle(name: &str, r: u8, c: u8) -> Result<Vec<(u8, u8)>, String> {
    let bad = || format!("invalid matrix swizzle `.{name}`");
    let mut out = Vec::new();
    let mut rest = name;
    while !rest.is_empty() {
        let Some(r1) = rest.strip_prefix('_') else {
            return Err(bad());
        };
        let (row, col, tail) = if let Some(r2) = r1.strip_prefix('m') {
            let b = r2.as_bytes();
            if b.len() < 2 || !b[0].is_ascii_digit() || !b[1].is_ascii_digit() {
                return Err(bad());
            }
            (b[0] - b'0', b[1] - b'0', &r2[2..])
        } else {
            let b = r1.as_bytes();
            if b.len() < 2 || !(b'1'..=b'4').contains(&b[0]) || !(b'1'..=b'4').contains(&b[1]) {
                return Err(bad());
            }
            (b[0] - b'1', b[1] - b'1', &r1[2..])
        };
        if row >= r || col >= c {
            return Err(format!(
                "matrix swizzle `.{name}` is out of range for a {r}x{c} matrix"
            ));
        }
        out.push((row, col));
        rest = tail;
    }
    if out.is_empty() || out.len() > 4 {
        return Err(bad());
    }
    Ok(out)
}

/// Folds a unary operation on a scalar of type `s`.
pub fn fold_unary(op: UnOp, v: ConstVal, s: Scalar) -> Option<ConstVal> {
    Some(match op {
        UnOp::Neg => match v {
            ConstVal::Float(f) => ConstVal::Float(-f).convert(s),
            ConstVal::Int(i) => ConstVal::Int(wrap_int(i.wrapping_neg(), s)),
            ConstVal::Bool(b) => ConstVal::Int(-(b as i128)),
        },
        UnOp::BitNot => match v {
            ConstVal::Int(i) => ConstVal::Int(wrap_int(!i, s)),
            _ => return None,
        },
        UnOp::Not => ConstVal::Bool(!v.as_bool()),
    })
}

/// Folds a binary operation on scalars of type `s` (`None` for division by zero and the like).
pub fn fold_binary(op: BinOp, a: ConstVal, b: ConstVal, s: Scalar) -> Option<ConstVal> {
    if s.is_float() {
        let (x, y) = (a.as_float(), b.as_float());
        let r = match op {
            BinOp::Add => x + y,
            BinOp::Sub => x - y,
            BinOp::Mul => x * y,
            BinOp::Div => {
                if y == 0.0 {
                    return None;
                }
                x / y
            }
            BinOp::Rem => {
                if y == 0.0 {
                    return None;
                }
                x % y
            }
            BinOp::Lt => return Some(ConstVal::Bool(x < y)),
            BinOp::Le => return Some(ConstVal::Bool(x <= y)),
            BinOp::Gt => return Some(ConstVal::Bool(x > y)),
            BinOp::Ge => return Some(ConstVal::Bool(x >= y)),
            BinOp::Eq => return Some(ConstVal::Bool(x == y)),
            BinOp::Ne => return Some(ConstVal::Bool(x != y)),
            _ => return None,
        };
        return Some(ConstVal::Float(r).convert(s));
    }
    if s == Scalar::Bool {
        let (x, y) = (a.as_bool(), b.as_bool());
        return Some(ConstVal::Bool(match op {
            BinOp::And => x && y,
            BinOp::Or => x || y,
            BinOp::Xor | BinOp::Ne => x != y,
            BinOp::Eq => x == y,
            _ => return None,
        }));
    }
    let (x, y) = (a.as_int(), b.as_int());
    let bits = if s == Scalar::LitInt { 64 } else { s.bits() };
    let r = match op {
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::Div => {
            if y == 0 {
                return None;
            }
            x.wrapping_div(y)
        }
        BinOp::Rem => {
            if y == 0 {
                return None;
            }
            x.wrapping_rem(y)
        }
        BinOp::Shl => x.wrapping_shl((y as u32) & (bits - 1)),
        BinOp::Shr => {
            let sh = (y as u32) & (bits - 1);
            if s.is_unsigned() {
                ((x as u128) >> sh) as i128
            } else {
                x >> sh
            }
        }
        BinOp::And => x & y,
        BinOp::Or => x | y,
        BinOp::Xor => x ^ y,
        BinOp::Lt => return Some(ConstVal::Bool(x < y)),
        BinOp::Le => return Some(ConstVal::Bool(x <= y)),
        BinOp::Gt => return Some(ConstVal::Bool(x > y)),
        BinOp::Ge => return Some(ConstVal::Bool(x >= y)),
        BinOp::Eq => return Some(ConstVal::Bool(x == y)),
        BinOp::Ne => return Some(ConstVal::Bool(x != y)),
    };
    Some(ConstVal::Int(wrap_int(r, s)))
}
