//! Functions that return resources (`RWStructuredBuffer<S> get() { return g; }`), resolved
//! statically as DXC's legalization resolves them.
//!
//! SPIR-V (logical addressing) cannot return a texture or buffer from a function, so such a
//! function is lowered returning nothing (its body keeps its effects), and each call in a
//! resource position (`get()[i]`, `Texture2D t = pick(0);`, `f(get())`) names the resource
//! its `return` reaches. That resource is found by walking the callee's HIR with its
//! parameters bound to the call's arguments: a branch whose condition folds to a constant
//! (`if (i == 0)` in `pick(0)`, a `static const`) takes its arm; a resource local of the
//! callee is followed to what it was given; nested resource-returning calls are walked in
//! turn (up to [`MAX_DEPTH`]). The returned expression is rebuilt in the caller's terms:
//! globals, elements of resource arrays indexed by constants, constant-buffer values or the
//! callee's unchanged `in` parameters (the caller's argument, evaluated again, which needs it
//! to be free of effects). Anything else (a `return` under a condition known only at run
//! time, a loop, an index computed from the callee's locals) is refused by the caller with
//! the reason, never guessed.

use rustc_hash::FxHashMap;

use crate::hlsl::lower::Lower;
use crate::hlsl::sema::expr::{fold_binary, fold_unary};
use crate::hlsl::sema::hir::*;

/// How deep resource-returning calls may nest (`outer()` returning `inner()`).
pub const MAX_DEPTH: u32 = 16;

/// The callee's names, bound while its body is walked.
#[derive(Default)]
struct Env {
    /// Unchanged parameters: the caller's argument expressions.
    params: FxHashMap<u32, Expr>,
    /// Resource locals: the resource each was last given (caller terms).
    aliases: FxHashMap<u32, Expr>,
}

impl Lower<'_> {
    /// The resource a call of `f` with `args` returns, as an expression of the caller (no
    /// calls left in it); `Err` with the reason when it cannot be known when compiling.
    pub fn returned_resource(&self, f: FuncId, args: &[Arg], depth: u32) -> Result<Expr, String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "resource-returning calls nest deeper than {MAX_DEPTH}"
            ));
        }
        let fd = self.p.func(f);
        let Some(body) = &fd.body else {
            return Err(format!("`{}` has no body here", fd.name));
        };
        let mut env = Env::default();
        for (p, a) in fd.params.iter().zip(args) {
            let x = match a {
                Arg::In(x) | Arg::Resource(x) => x,
                Arg::Out { .. } => continue,
            };
            if !writes_local(body, p.local) && self.pure_in_caller(x) {
                env.params.insert(p.local.0, x.clone());
            }
        }
        match self.walk(fd, body, &mut env, depth)? {
            Some(e) => Ok(e),
            None => Err(format!("`{}` reaches its end without a `return`", fd.name)),
        }
    }

    /// The statements of `fd` in order: `Some` with the resource of the first `return`
    /// reached, `None` when they fall through.
    fn walk(
        &self,
        fd: &FuncDef,
        stmts: &[Stmt],
        env: &mut Env,
        depth: u32,
    ) -> Result<Option<Expr>, String> {
        for s in stmts {
            match s {
                Stmt::Return(Some(e)) => return self.resolve(fd, e, env, depth).map(Some),
                Stmt::Block(b) | Stmt::Scope(_, b) => {
                    if let Some(x) = self.walk(fd, b, env, depth)? {
                        return Ok(Some(x));
                    }
                }
                Stmt::If {
                    cond,
                    then,
                    otherwise,
                    ..
                } => match self.fold(cond, env) {
                    Some(v) => {
                        let arm = if v.as_bool() { then } else { otherwise };
                        if let Some(x) = self.walk(fd, arm, env, depth)? {
                            return Ok(Some(x));
                        }
                    }
                    None if returns_or_aliases(self, then)
                        || returns_or_aliases(self, otherwise) =>
                    {
                        return Err(format!(
                            "`{}` returns (or picks) a resource under a condition known only at \
                             run time",
                            fd.name
                        ));
                    }
                    None => {}
                },
                Stmt::Loop { init, body, .. }
                    if returns_or_aliases(self, init) || returns_or_aliases(self, body) =>
                {
                    return Err(format!(
                        "`{}` returns (or picks) a resource inside a loop",
                        fd.name
                    ));
                }
                Stmt::Switch { cases, .. }
                    if cases.iter().any(|c| returns_or_aliases(self, &c.body)) =>
                {
                    return Err(format!(
                        "`{}` returns (or picks) a resource inside a `switch`",
                        fd.name
                    ));
                }
                Stmt::Local(l, Some(init)) if self.types().is_resource(init.ty) => {
                    let r = self.resolve(fd, init, env, depth)?;
                    env.aliases.insert(l.0, r);
                }
                Stmt::Expr(e) => {
                    if let ExprKind::Assign(l, r) = &e.kind
                        && let ExprKind::Local(id) = l.kind
                        && self.types().is_resource(l.ty)
                    {
                        let r = self.resolve(fd, r, env, depth)?;
                        env.aliases.insert(id.0, r);
                    }
                }
                _ => {}
            }
        }
        Ok(None)
    }

    /// A resource expression of the callee in the caller's terms.
    fn resolve(&self, fd: &FuncDef, e: &Expr, env: &Env, depth: u32) -> Result<Expr, String> {
        let kind = match &e.kind {
            ExprKind::Global(_) => return Ok(e.clone()),
            ExprKind::Local(l) => {
                return env
                    .params
                    .get(&l.0)
                    .or_else(|| env.aliases.get(&l.0))
                    .cloned()
                    .ok_or_else(|| {
                        let name = fd
                            .locals
                            .get(l.0 as usize)
                            .map(|d| d.name.as_str())
                            .unwrap_or("?");
                        format!(
                            "`{}` returns `{name}`, which is not known to name one resource there",
                            fd.name
                        )
                    });
            }
            ExprKind::Index(b, i) => ExprKind::Index(
                Box::new(self.resolve(fd, b, env, depth)?),
                Box::new(self.value_in_caller(fd, i, env)?),
            ),
            ExprKind::Cast(k, x) => ExprKind::Cast(*k, Box::new(self.resolve(fd, x, env, depth)?)),
            // The effects of `a` belong to the callee's own lowering.
            ExprKind::Comma(_, b) => return self.resolve(fd, b, env, depth),
            // Leaf `k` of a struct of resources a call returns.
            ExprKind::Field(c, k) if matches!(c.kind, ExprKind::Call(..)) => {
                let r = self.resolve(fd, c, env, depth)?;
                return match r.kind {
                    ExprKind::Flatten(mut leaves) if (*k as usize) < leaves.len() => {
                        Ok(leaves.swap_remove(*k as usize))
                    }
                    _ => Err(format!(
                        "`{}` takes a field of a call that does not return a struct of resources",
                        fd.name
                    )),
                };
            }
            // A struct of resources: its leaves (`sema/split.rs`).
            ExprKind::Flatten(items) => ExprKind::Flatten(
                items
                    .iter()
                    .map(|x| self.resolve(fd, x, env, depth))
                    .collect::<Result<_, _>>()?,
            ),
            ExprKind::Ternary(c, a, b) => match self.fold(c, env) {
                Some(v) => return self.resolve(fd, if v.as_bool() { a } else { b }, env, depth),
                None => {
                    return Err(format!(
                        "`{}` chooses a resource with `?:` on a value known only at run time",
                        fd.name
                    ));
                }
            },
            ExprKind::Call(g, args) => {
                let mut outer = Vec::with_capacity(args.len());
                for a in args {
                    outer.push(match a {
                        Arg::In(x) => Arg::In(self.value_in_caller(fd, x, env)?),
                        Arg::Resource(x) => Arg::Resource(self.resolve(fd, x, env, depth)?),
                        Arg::Out { .. } => {
                            return Err(format!(
                                "`{}` passes an `out` argument to a resource-returning call",
                                fd.name
                            ));
                        }
                    });
                }
                return self.returned_resource(*g, &outer, depth + 1);
            }
            _ => {
                return Err(format!(
                    "`{}` returns a resource expression that does not name one resource",
                    fd.name
                ));
            }
        };
        Ok(Expr {
            kind,
            ty: e.ty,
            span: e.span,
        })
    }

    /// A value of the callee (an index) rebuilt in the caller's terms: constants, globals
    /// that cannot change (constants, constant-buffer members), unchanged parameters.
    fn value_in_caller(&self, fd: &FuncDef, e: &Expr, env: &Env) -> Result<Expr, String> {
        let bad = || {
            format!(
                "`{}` indexes the resource it returns with a value computed inside it",
                fd.name
            )
        };
        let b = |x: &Expr| -> Result<Box<Expr>, String> {
            self.value_in_caller(fd, x, env).map(Box::new)
        };
        let kind = match &e.kind {
            ExprKind::Const(_) => e.kind.clone(),
            ExprKind::Global(g) if self.fixed_global(*g) => e.kind.clone(),
            ExprKind::Local(l) => return env.params.get(&l.0).cloned().ok_or_else(bad),
            ExprKind::Field(x, i) => ExprKind::Field(b(x)?, *i),
            ExprKind::Swizzle(x, c) => ExprKind::Swizzle(b(x)?, c.clone()),
            ExprKind::Index(x, i) => ExprKind::Index(b(x)?, b(i)?),
            ExprKind::Unary(op, x) => ExprKind::Unary(*op, b(x)?),
            ExprKind::Binary(op, x, y) => ExprKind::Binary(*op, b(x)?, b(y)?),
            ExprKind::Cast(k, x) => ExprKind::Cast(*k, b(x)?),
            _ => return Err(bad()),
        };
        Ok(Expr {
            kind,
            ty: e.ty,
            span: e.span,
        })
    }

    /// A global whose value no function changes: a constant, a constant-buffer member, a
    /// resource.
    fn fixed_global(&self, g: GlobalId) -> bool {
        !matches!(
            self.p.global(g).kind,
            GlobalKind::Static | GlobalKind::Groupshared
        )
    }

    /// True for a caller expression that can be evaluated again with the same result: no
    /// calls, assignments or reads of memory another invocation may change.
    fn pure_in_caller(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Const(_) | ExprKind::Local(_) | ExprKind::Error => true,
            ExprKind::Global(g) => self.fixed_global(*g),
            ExprKind::Field(x, _) | ExprKind::Swizzle(x, _) | ExprKind::Unary(_, x) => {
                self.pure_in_caller(x)
            }
            ExprKind::Cast(_, x) => self.pure_in_caller(x),
            ExprKind::Index(x, i) | ExprKind::Binary(_, x, i) => {
                self.pure_in_caller(x) && self.pure_in_caller(i)
            }
            _ => false,
        }
    }

    /// The constant value of a scalar condition of the callee, its parameters bound.
    fn fold(&self, e: &Expr, env: &Env) -> Option<ConstVal> {
        let s = match self.types().kind(e.ty) {
            TyKind::Scalar(s) | TyKind::Vector(s, 1) => *s,
            _ => return None,
        };
        match &e.kind {
            ExprKind::Const(v) => Some(*v),
            ExprKind::Local(l) => {
                let x = env.params.get(&l.0)?;
                self.fold(x, &Env::default())
            }
            ExprKind::Global(g) => {
                let gd = self.p.global(*g);
                match gd.kind {
                    GlobalKind::Const => gd.const_value,
                    _ => None,
                }
            }
            ExprKind::Cast(CastKind::Convert, x) => Some(self.fold(x, env)?.convert(s)),
            ExprKind::Cast(CastKind::Reshape | CastKind::Truncate, x) => self.fold(x, env),
            ExprKind::Swizzle(x, c) if c.len() == 1 && c[0] == 0 => self.fold(x, env),
            ExprKind::Unary(op, x) => fold_unary(*op, self.fold(x, env)?, s),
            ExprKind::Binary(op, a, b) => {
                let os = self.types().scalar_of(a.ty)?;
                fold_binary(*op, self.fold(a, env)?, self.fold(b, env)?, os)
            }
            ExprKind::Logical(and, a, b) => {
                let x = self.fold(a, env)?.as_bool();
                let y = self.fold(b, env)?.as_bool();
                Some(ConstVal::Bool(if *and { x && y } else { x || y }))
            }
            ExprKind::Ternary(c, a, b) => {
                if self.fold(c, env)?.as_bool() {
                    self.fold(a, env)
                } else {
                    self.fold(b, env)
                }
            }
            _ => None,
        }
    }
}

/// True when the statements return, or give a resource local a resource.
fn returns_or_aliases(l: &Lower<'_>, stmts: &[Stmt]) -> bool {
    let mut found = false;
    for s in stmts {
        visit_stmt(s, &mut |st| match st {
            Stmt::Return(_) => found = true,
            Stmt::Local(_, Some(init)) if l.types().is_resource(init.ty) => found = true,
            _ => {}
        });
        crate::hlsl::lower::stmt_exprs(s, &mut |e| {
            crate::hlsl::sema::stmt::visit(e, &mut |x| {
                if let ExprKind::Assign(t, _) = &x.kind
                    && l.types().is_resource(t.ty)
                {
                    found = true;
                }
            })
        });
    }
    found
}

/// True when some statement writes local `local` (an assignment, `++`, an `out` argument).
fn writes_local(stmts: &[Stmt], local: LocalId) -> bool {
    let mut found = false;
    let is_it = |e: &Expr| matches!(e.kind, ExprKind::Local(l) if l == local);
    for s in stmts {
        crate::hlsl::lower::stmt_exprs(s, &mut |e| {
            crate::hlsl::sema::stmt::visit(e, &mut |x| match &x.kind {
                ExprKind::Assign(t, _) | ExprKind::IncDec(t, ..) if is_it(t) => found = true,
                ExprKind::CompoundAssign { lhs, .. } if is_it(lhs) => found = true,
                ExprKind::Call(_, args)
                    if args
                        .iter()
                        .any(|a| matches!(a, Arg::Out { place, .. } if is_it(place))) =>
                {
                    found = true;
                }
                _ => {}
            })
        });
    }
    found
}

/// Calls `f` on a statement and every statement nested in it.
fn visit_stmt(s: &Stmt, f: &mut dyn FnMut(&Stmt)) {
    f(s);
    match s {
        Stmt::Block(b) | Stmt::Scope(_, b) => b.iter().for_each(|x| visit_stmt(x, f)),
        Stmt::If {
            then, otherwise, ..
        } => {
            then.iter().for_each(|x| visit_stmt(x, f));
            otherwise.iter().for_each(|x| visit_stmt(x, f));
        }
        Stmt::Loop { init, body, .. } => {
            init.iter().for_each(|x| visit_stmt(x, f));
            body.iter().for_each(|x| visit_stmt(x, f));
        }
        Stmt::Switch { cases, .. } => cases
            .iter()
            .for_each(|c| c.body.iter().for_each(|x| visit_stmt(x, f))),
        _ => {}
    }
}
