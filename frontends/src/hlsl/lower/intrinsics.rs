//! Lowering, part 2b: intrinsic calls (the analysis side is `sema/intrinsics.rs`). Element-wise
//! intrinsics become IR intrinsics lane by lane or row by row on matrices; `out` arguments go
//! through a pointer (a temporary copied back when the place is not function memory of the
//! written type); atomics, `mul` and the vector and matrix functions are special-cased.

use crate::hlsl::lower::expr::Place;
use crate::hlsl::lower::{Lower, MatRep};
use crate::hlsl::sema::hir::*;
use oneshader_ir::{InstId, Intrinsic, Op};

impl Lower<'_> {
    /// A pointer for an `out` argument of an intrinsic that writes a `want`: the place's own
    /// pointer when it is function memory of that type, or a temporary copied back (and
    /// converted) afterwards.
    fn out_ptr(&mut self, e: &Expr, want: TyId) -> (InstId, Option<(Place, InstId, TyId, TyId)>) {
        let pl = self.place(e);
        if let Place::Ptr(p) = pl
            && want == e.ty
            && self.m.ty(p).and_then(|t| self.m.address_space(t))
                == Some(oneshader_ir::AddressSpace::Function)
        {
            return (p, None);
        }
        let t = self.ir_ty(want);
        let tmp = self.new_var(t);
        (tmp, Some((pl, tmp, want, e.ty)))
    }

    fn finish_out(&mut self, back: Option<(Place, InstId, TyId, TyId)>) {
        if let Some((pl, tmp, from, to)) = back {
            let v = self.bld().load(tmp);
            let v = self.coerce(v, from, to);
            self.store_place(pl, v);
        }
    }

    pub(in crate::hlsl) fn intrinsic(
        &mut self,
        op: IntrinsicOp,
        args: &[Expr],
        e: &Expr,
    ) -> InstId {
        let rt = self.ir_ty(e.ty);
        let void = self.m.void_type();
        let undef_void = self.m.undef(void);
        match op {
            IntrinsicOp::Ir(w @ (Intrinsic::Frexp | Intrinsic::Modf | Intrinsic::Sincos)) => {
                let x = self.rvalue(&args[0]);
                let mut ptrs = Vec::new();
                let mut backs = Vec::new();
                let want = args[0].ty;
                for a in &args[1..] {
                    let (p, back) = self.out_ptr(a, want);
                    ptrs.push(p);
                    backs.push(back);
                }
                let res_t = if w == Intrinsic::Sincos { void } else { rt };
                let r = if let TyKind::Matrix(s, rows, c) = self.types().kind(args[0].ty).clone()
                    && matches!(Self::mat_rep(s, rows, c), MatRep::Mat | MatRep::Rows)
                {
                    // Row by row, each output through a pointer to its row.
                    let row_t = self.types_scalar_vec(s, c);
                    let mut out_rows = Vec::new();
                    for i in 0..rows as u32 {
                        let xi = self.bld().extract(x, &[i]);
                        let k = self.m.const_u32(i);
                        let mut ops = vec![xi];
                        for &p in &ptrs {
                            ops.push(self.bld().element_addr(p, k));
                        }
                        let t = if w == Intrinsic::Sincos { void } else { row_t };
                        out_rows.push(self.bld().intrinsic(w, t, &ops));
                    }
                    if w == Intrinsic::Sincos {
                        undef_void
                    } else {
                        self.construct(rt, &out_rows)
                    }
                } else {
                    let mut ops = vec![x];
                    ops.extend(ptrs.iter().copied());
                    self.bld().intrinsic(w, res_t, &ops)
                };
                for b in backs {
                    self.finish_out(b);
                }
                r
            }
            IntrinsicOp::Ir(which) => {
                let vals: Vec<InstId> = args.iter().map(|a| self.rvalue(a)).collect();
                let arg_ty = args.first().map(|a| a.ty);
                let matrix_arg = arg_ty.is_some_and(|t| {
                    matches!(self.types().kind(t), TyKind::Matrix(s, r, c) if matches!(Self::mat_rep(*s, *r, *c), MatRep::Mat | MatRep::Rows))
                });
                if matrix_arg && !matches!(which, Intrinsic::Transpose | Intrinsic::Determinant) {
                    return self.intrinsic_rows(which, &vals, arg_ty.unwrap_or(e.ty), e.ty);
                }
                if which == Intrinsic::Transpose {
                    let at = arg_ty.unwrap_or(e.ty);
                    if !self.is_ir_mat(at) {
                        // Degenerate and integer matrices: rebuild element by element.
                        let TyKind::Matrix(s, r, c) = self.types().kind(at).clone() else {
                            return vals[0];
                        };
                        let mut leaves = Vec::new();
                        for j in 0..c {
                            for i in 0..r {
                                leaves.push((self.mat_elem_value(vals[0], at, i, j), s));
                            }
                        }
                        let mut it = leaves.into_iter();
                        return self.build(e.ty, &mut it);
                    }
                }
                if which == Intrinsic::Determinant {
                    let at = arg_ty.unwrap_or(e.ty);
                    if !self.is_ir_mat(at) {
                        // A 1x1 matrix: the element itself.
                        return vals[0];
                    }
                }
                if matches!(which, Intrinsic::All | Intrinsic::Any)
                    && let Some(at) = arg_ty
                    && matches!(
                        self.types().kind(at),
                        TyKind::Scalar(_) | TyKind::Vector(_, 1)
                    )
                    && self.types().scalar_of(at) == Some(Scalar::Bool)
                {
                    return vals[0];
                }
                if matches!(which, Intrinsic::FirstBitHigh | Intrinsic::FirstBitLow)
                    && let Some(vt) = vals.first().and_then(|&v| self.m.ty(v))
                    && vt != rt
                    && self.m.scalar_of(vt).and_then(|s| self.m.scalar_bits(s)) == Some(32)
                {
                    // DXC types the position `uint`; the call keeps its operand's type (as
                    // GLSL's `findMSB` and WGSL's `firstLeadingBit` do) and is reinterpreted.
                    // Other widths are widened or split by legalization (`intrinsic_widths`).
                    let r = self.bld().intrinsic(which, vt, &vals);
                    return self.bld().bitcast(r, rt);
                }
                let r = self.bld().intrinsic(which, rt, &vals);
                if self.types().is_void(e.ty) {
                    undef_void
                } else {
                    r
                }
            }
            IntrinsicOp::Mul => self.mul(args, e),
            IntrinsicOp::Bitcast => {
                let v = self.rvalue(&args[0]);
                if matches!(self.types().kind(args[0].ty), TyKind::Matrix(s, r, c) if Self::mat_rep(*s, *r, *c) != MatRep::Vec && Self::mat_rep(*s, *r, *c) != MatRep::Scalar)
                {
                    let rty = e.ty;
                    return self.map_rows1(v, args[0].ty, rty, |l, row| {
                        let t = l.m.ty(row).and_then(|t| l.m.vector_len(t)).unwrap_or(1);
                        let s = l.types().scalar_of(rty).unwrap_or(Scalar::U32);
                        let target = l.types_scalar_vec(s, t as u8);
                        l.bld().bitcast(row, target)
                    });
                }
                self.bld().bitcast(v, rt)
            }
            IntrinsicOp::AsDouble => {
                let lo = self.rvalue(&args[0]);
                let hi = self.rvalue(&args[1]);
                let n = self.types().vec_len(e.ty).unwrap_or(1);
                let u = self.m.u32_type();
                let u2 = self.m.vector_type(u, 2);
                let d = self.m.float_type(64);
                if n == 1 {
                    let pair = self.construct(u2, &[lo, hi]);
                    return self.bld().bitcast(pair, d);
                }
                let mut parts = Vec::new();
                for i in 0..n as u32 {
                    let l = self.bld().extract(lo, &[i]);
                    let h = self.bld().extract(hi, &[i]);
                    let pair = self.construct(u2, &[l, h]);
                    parts.push(self.bld().bitcast(pair, d));
                }
                self.construct(rt, &parts)
            }
            IntrinsicOp::SplitDouble => {
                let d = self.rvalue(&args[0]);
                let u = self.m.u32_type();
                let u2 = self.m.vector_type(u, 2);
                let pair = self.bld().bitcast(d, u2);
                let lo = self.bld().extract(pair, &[0]);
                let hi = self.bld().extract(pair, &[1]);
                let pl = self.place(&args[1]);
                self.store_place(pl, lo);
                let ph = self.place(&args[2]);
                self.store_place(ph, hi);
                undef_void
            }
            IntrinsicOp::Interpolate(w) => {
                // A variable holding the attribute: the backend follows its one store back to
                // the stage input (DXC passes a temporary variable the same way).
                let x = self.rvalue(&args[0]);
                let xt = self.ir_ty(args[0].ty);
                let var = self.new_var(xt);
                self.bld().store(var, x);
                let mut ops = vec![var];
                if let Some(extra) = args.get(1) {
                    let v = self.rvalue(extra);
                    ops.push(if w == Intrinsic::InterpolateAtOffset {
                        // A snapped offset is in 1/16 pixel: float2(offset) / 16.
                        let f = self.m.f32_type();
                        let f2 = self.m.vector_type(f, 2);
                        let fv = self.bld().convert(v, f2);
                        let k = self.m.const_f32(1.0 / 16.0);
                        let kv = self.m.const_composite(f2, &[k, k]);
                        self.bld().mul(fv, kv)
                    } else {
                        v
                    });
                }
                self.bld().intrinsic(w, rt, &ops)
            }
            IntrinsicOp::Dst => {
                let a = self.rvalue(&args[0]);
                let b = self.rvalue(&args[1]);
                let s = self.types().scalar_of(e.ty).unwrap_or(Scalar::F32);
                let one = self.const_scalar(s, ConstVal::Float(1.0));
                let ay = self.bld().extract(a, &[1]);
                let by = self.bld().extract(b, &[1]);
                let y = self.bld().mul(ay, by);
                let z = self.bld().extract(a, &[2]);
                let w = self.bld().extract(b, &[3]);
                self.construct(rt, &[one, y, z, w])
            }
            IntrinsicOp::Lit => {
                // ambient 1; diffuse max(n.l, 0); specular 0 when n.l < 0 or n.h < 0, else
                // (n.h)^m; w 1.
                let nl = self.rvalue(&args[0]);
                let nh = self.rvalue(&args[1]);
                let mm = self.rvalue(&args[2]);
                let s = self.types().scalar_of(e.ty).unwrap_or(Scalar::F32);
                let st = self.ir_ty(args[0].ty);
                let one = self.const_scalar(s, ConstVal::Float(1.0));
                let zero = self.const_scalar(s, ConstVal::Float(0.0));
                let diffuse = self.bld().intrinsic(Intrinsic::Max, st, &[nl, zero]);
                let b = self.m.bool_type();
                let nl_neg = self.bld().emit(Op::Lt, Some(b), &[nl, zero]);
                let nh_neg = self.bld().emit(Op::Lt, Some(b), &[nh, zero]);
                let either = self.bld().emit(Op::Or, Some(b), &[nl_neg, nh_neg]);
                let pw = self.bld().intrinsic(Intrinsic::Pow, st, &[nh, mm]);
                let spec = self.bld().select(either, zero, pw);
                self.construct(rt, &[one, diffuse, spec, one])
            }
            IntrinsicOp::Clip => {
                let v = self.rvalue(&args[0]);
                let ty = args[0].ty;
                let s = self.types().scalar_of(ty).unwrap_or(Scalar::F32);
                let zero = self.const_scalar(s, ConstVal::Float(0.0));
                let zero = self.splat_to(zero, ty);
                let c = self.binop(BinOp::Lt, v, zero, ty);
                let b = self.m.bool_type();
                let any = match self.types().kind(ty) {
                    TyKind::Scalar(_) | TyKind::Vector(_, 1) => c,
                    TyKind::Vector(..) => self.bld().intrinsic(Intrinsic::Any, b, &[c]),
                    _ => {
                        let mut leaves = Vec::new();
                        let bty = self
                            .find_type(&match self.types().kind(ty) {
                                TyKind::Matrix(_, r, cc) => TyKind::Matrix(Scalar::Bool, *r, *cc),
                                k => k.clone(),
                            })
                            .unwrap_or(ty);
                        self.leaves(c, bty, &mut leaves);
                        let mut acc = leaves[0].0;
                        for (x, _) in leaves.into_iter().skip(1) {
                            acc = self.bld().or(acc, x);
                        }
                        acc
                    }
                };
                let kill = self.new_block();
                let els = self.new_block();
                let merge = self.new_block();
                self.bld().if_else(any, kill, els, merge);
                self.switch_to(kill);
                self.bld().discard();
                self.switch_to(els);
                self.bld().br(merge, &[]);
                self.switch_to(merge);
                undef_void
            }
            IntrinsicOp::Atomic(aop) => {
                let (p, kind_ok) = self.atomic_ptr(&args[0]);
                if !kind_ok {
                    return undef_void;
                }
                let v = self.rvalue(&args[1]);
                let old = self.bld().atomic_rmw(aop, p, v);
                if let Some(o) = args.get(2) {
                    let old = self.coerce(old, args[0].ty, o.ty);
                    let pl = self.place(o);
                    self.store_place(pl, old);
                }
                undef_void
            }
            IntrinsicOp::AtomicCmpXchg | IntrinsicOp::AtomicCmpStore => {
                let (p, ok) = self.atomic_ptr(&args[0]);
                if !ok {
                    return undef_void;
                }
                let c = self.rvalue(&args[1]);
                let v = self.rvalue(&args[2]);
                let old = self.bld().atomic_cmpxchg(p, c, v);
                if let Some(o) = args.get(3) {
                    let old = self.coerce(old, args[0].ty, o.ty);
                    let pl = self.place(o);
                    self.store_place(pl, old);
                }
                undef_void
            }
            IntrinsicOp::Barrier(f) => {
                self.bld().barrier(f);
                undef_void
            }
            IntrinsicOp::Select => {
                let c = self.rvalue(&args[0]);
                let a = self.rvalue(&args[1]);
                let b = self.rvalue(&args[2]);
                if matches!(self.types().kind(e.ty), TyKind::Matrix(s, r, cc) if matches!(Self::mat_rep(*s, *r, *cc), MatRep::Mat | MatRep::Rows))
                {
                    let scalar_cond = matches!(self.types().kind(args[0].ty), TyKind::Scalar(_));
                    let ct = args[0].ty;
                    let TyKind::Matrix(_, r, _) = self.types().kind(e.ty).clone() else {
                        return a;
                    };
                    let mut rows = Vec::new();
                    for i in 0..r as u32 {
                        let ci = if scalar_cond {
                            c
                        } else {
                            let _ = ct;
                            self.bld().extract(c, &[i])
                        };
                        let x = self.bld().extract(a, &[i]);
                        let y = self.bld().extract(b, &[i]);
                        rows.push(self.bld().select(ci, x, y));
                    }
                    return self.construct(rt, &rows);
                }
                self.bld().select(c, a, b)
            }
            IntrinsicOp::LogicalAnd | IntrinsicOp::LogicalOr => {
                let a = self.rvalue(&args[0]);
                let b = self.rvalue(&args[1]);
                let irop = if op == IntrinsicOp::LogicalAnd {
                    Op::And
                } else {
                    Op::Or
                };
                if self.is_rows(e.ty) {
                    return self.map_rows2(a, b, e.ty, e.ty, |l, x, y| l.bld().binary(irop, x, y));
                }
                self.bld().binary(irop, a, b)
            }
            IntrinsicOp::ColorToUbyte4 => {
                let c = self.rvalue(&args[0]);
                let swz = self.bld().shuffle(c, c, &[2, 1, 0, 3]);
                let k = self.m.const_f32(255.002);
                let f = self.m.f32_type();
                let f4 = self.m.vector_type(f, 4);
                let kv = self.construct(f4, &[k, k, k, k]);
                let scaled = self.bld().mul(swz, kv);
                self.bld().convert(scaled, rt)
            }
            IntrinsicOp::Nop => undef_void,
            IntrinsicOp::SetMeshOutputCounts
            | IntrinsicOp::DispatchMesh
            | IntrinsicOp::TraceRay
            | IntrinsicOp::ReportHit
            | IntrinsicOp::CallShader
            | IntrinsicOp::IgnoreHit
            | IntrinsicOp::AcceptHitAndEndSearch
            | IntrinsicOp::SystemValue(..) => self.stage_intrinsic(op, args, e),
            IntrinsicOp::Unsupported(name) => {
                self.error(e.span, format!("the intrinsic `{name}` cannot be lowered"));
                self.m.undef(rt)
            }
        }
    }

    /// An element-wise intrinsic on matrices, row by row (`all`/`any` reduce the rows).
    fn intrinsic_rows(
        &mut self,
        which: Intrinsic,
        vals: &[InstId],
        aty: TyId,
        rty: TyId,
    ) -> InstId {
        let TyKind::Matrix(s, r, c) = self.types().kind(aty).clone() else {
            return vals[0];
        };
        let row_in = self.types_scalar_vec(s, c);
        let _ = row_in;
        let res_scalar = self.types().scalar_of(rty).unwrap_or(s);
        let row_out = self.types_scalar_vec(res_scalar, c);
        let b = self.m.bool_type();
        let mut rows = Vec::new();
        for i in 0..r as u32 {
            let parts: Vec<InstId> = vals
                .iter()
                .map(|&v| {
                    let is_mat = self
                        .m
                        .ty(v)
                        .is_some_and(|t| matches!(self.m.op(t), Op::Matrix | Op::Array));
                    if is_mat {
                        self.bld().extract(v, &[i])
                    } else {
                        v
                    }
                })
                .collect();
            let out_t = if matches!(which, Intrinsic::All | Intrinsic::Any) {
                b
            } else {
                row_out
            };
            rows.push(self.bld().intrinsic(which, out_t, &parts));
        }
        if matches!(which, Intrinsic::All | Intrinsic::Any) {
            let mut acc = rows[0];
            for &x in &rows[1..] {
                acc = if which == Intrinsic::All {
                    self.bld().and(acc, x)
                } else {
                    self.bld().or(acc, x)
                };
            }
            return acc;
        }
        let t = self.ir_ty(rty);
        self.construct(t, &rows)
    }

    /// The pointer an atomic works on (a texel pointer for storage textures).
    fn atomic_ptr(&mut self, dest: &Expr) -> (InstId, bool) {
        match self.place(dest) {
            Place::Ptr(p) => (p, true),
            Place::Texel(tp, coord) => {
                let t = self.ir_ty(dest.ty);
                let z = self.m.const_u32(0);
                (self.bld().texel_addr(tp, coord, z, t), true)
            }
            _ => {
                self.error(
                    dest.span,
                    "an atomic needs a variable in groupshared memory or in a buffer",
                );
                (self.m.const_u32(0), false)
            }
        }
    }

    /// `mul(a, b)`.
    fn mul(&mut self, args: &[Expr], e: &Expr) -> InstId {
        let (at, bt) = (args[0].ty, args[1].ty);
        let a = self.rvalue(&args[0]);
        let b = self.rvalue(&args[1]);
        let rt = self.ir_ty(e.ty);
        let ka = self.types().kind(at).clone();
        let kb = self.types().kind(bt).clone();
        let float = self.types().scalar_of(e.ty).is_some_and(Scalar::is_float);
        match (&ka, &kb) {
            (TyKind::Vector(..), TyKind::Vector(..)) => {
                if matches!(ka, TyKind::Vector(_, 1)) {
                    return self.bld().mul(a, b);
                }
                return self.bld().intrinsic(Intrinsic::Dot, rt, &[a, b]);
            }
            (TyKind::Vector(_, n), TyKind::Matrix(..)) if float && *n > 1 && self.is_ir_mat(bt) => {
                return self.bld().matmul(a, b, rt);
            }
            (TyKind::Matrix(..), TyKind::Vector(_, n)) if float && *n > 1 && self.is_ir_mat(at) => {
                return self.bld().matmul(a, b, rt);
            }
            (TyKind::Matrix(..), TyKind::Matrix(..))
                if float && self.is_ir_mat(at) && self.is_ir_mat(bt) && self.is_ir_mat(e.ty) =>
            {
                return self.bld().matmul(a, b, rt);
            }
            _ => {}
        }
        // Everything else element by element: result[i][j] = sum_k a[i][k] * b[k][j].
        let (ar, ac) = shape_rc(&ka, true);
        let (_br, bc) = shape_rc(&kb, false);
        let s = self.types().scalar_of(e.ty).unwrap_or(Scalar::F32);
        let mut leaves = Vec::new();
        for i in 0..ar {
            for j in 0..bc {
                let mut acc: Option<InstId> = None;
                for k in 0..ac {
                    let x = self.operand_elem(a, at, &ka, i, k, true);
                    let y = self.operand_elem(b, bt, &kb, k, j, false);
                    let p = self.bld().mul(x, y);
                    acc = Some(match acc {
                        None => p,
                        Some(q) => self.bld().add(q, p),
                    });
                }
                if let Some(v) = acc {
                    leaves.push((v, s));
                }
            }
        }
        let mut it = leaves.into_iter();
        self.build(e.ty, &mut it)
    }

    /// Element (i, j) of a `mul` operand (vectors are a row on the left, a column on the
    /// right).
    fn operand_elem(
        &mut self,
        v: InstId,
        ty: TyId,
        k: &TyKind,
        i: u8,
        j: u8,
        left: bool,
    ) -> InstId {
        match k {
            TyKind::Scalar(_) | TyKind::Vector(_, 1) => v,
            TyKind::Vector(..) => {
                let idx = if left { j } else { i };
                self.bld().extract(v, &[idx as u32])
            }
            TyKind::Matrix(..) => self.mat_elem_value(v, ty, i, j),
            _ => v,
        }
    }
}

/// Rows and columns of a `mul` operand (a vector is a row on the left, a column on the right).
fn shape_rc(k: &TyKind, left: bool) -> (u8, u8) {
    match k {
        TyKind::Scalar(_) => (1, 1),
        TyKind::Vector(_, n) => {
            if left {
                (1, *n)
            } else {
                (*n, 1)
            }
        }
        TyKind::Matrix(_, r, c) => (*r, *c),
        _ => (1, 1),
    }
}
