//! Lowering, part 2: expressions. Places (pointers, swizzled and matrix-element places,
//! texels) and values; conversions and flattening; operators, short-circuits and `?:`;
//! calls with copy-in/copy-out. Intrinsics are lowered in `intrinsics.rs`, resource
//! methods in `resources.rs`.

use oneshader_ir::{InstId, Intrinsic, Op};

use crate::hlsl::lower::{LocalSlot, Lower, MatRep};
use crate::hlsl::sema::hir::*;

/// The most scalar components lowering builds one by one (initializer lists, flattening
/// casts); beyond it a diagnostic is given instead of a huge instruction stream.
const MAX_FLAT: usize = 1 << 16;

/// Where an lvalue lives.
#[derive(Clone, Debug)]
pub(crate) enum Place {
    /// A pointer to the whole value.
    Ptr(InstId),
    /// Components of the vector behind a pointer.
    Swizzle(InstId, Vec<u32>),
    /// Elements of the matrix (HLSL type) behind a pointer.
    MatElems(InstId, TyId, Vec<(u8, u8)>),
    /// A texel of a storage texture or typed buffer: (texture pointer, coordinate).
    Texel(InstId, InstId),
    /// A bit field inside the storage integer behind a pointer.
    Bits(InstId, Bits),
    /// Not addressable: a computed value.
    Value(InstId),
    /// Inside a mesh shader's split output array: the root node (of `Lower::split_nodes`),
    /// the field path into it, and the element index once given.
    Split(usize, Vec<u32>, Option<InstId>),
    /// Scalars behind separate pointers, one per component (a swizzle of a mesh shader's
    /// clip distances, which are floats of a shared array).
    Scattered(Vec<InstId>),
}

/// Where a bit field lives in its storage integer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bits {
    /// The storage field's index.
    storage: u32,
    /// The lowest bit.
    offset: u32,
    /// The number of bits.
    width: u32,
    /// The storage (and bit field) type.
    scalar: Scalar,
}

impl<'p> Lower<'p> {
    // ---- places -------------------------------------------------------------------------------

    fn imm_val(&mut self, i: u32) -> InstId {
        self.m.const_u32(i)
    }

    /// The place of an lvalue-like expression (a value for anything else).
    pub fn place(&mut self, e: &Expr) -> Place {
        let outer = self.positions.enter(&self.m, e.span);
        let p = self.place_here(e);
        self.positions.leave(&self.m, outer);
        p
    }

    fn place_here(&mut self, e: &Expr) -> Place {
        match &e.kind {
            ExprKind::Local(l) => {
                let slot = self.f.as_ref().map(|f| f.locals[l.0 as usize]);
                match slot {
                    Some(LocalSlot::Ptr(p)) => Place::Ptr(p),
                    Some(LocalSlot::Split(n)) => Place::Split(n, Vec::new(), None),
                    _ => {
                        let t = self.ir_ty(e.ty);
                        Place::Value(self.m.undef(t))
                    }
                }
            }
            ExprKind::Global(g) => {
                let gd = self.p.global(*g);
                match &gd.kind {
                    GlobalKind::Const
                        if gd.const_value.is_some() && self.types().scalar_of(gd.ty).is_some() =>
                    {
                        let v = gd.const_value.unwrap_or(ConstVal::Int(0));
                        let s = self.types().scalar_of(gd.ty).unwrap_or(Scalar::I32);
                        Place::Value(self.const_scalar(s, v))
                    }
                    GlobalKind::SpecConst { id, default } => {
                        let s = self.types().scalar_of(gd.ty).unwrap_or(Scalar::I32);
                        let d = self.const_scalar(s, *default);
                        let sc = self.m.spec_const(*id, d);
                        // The HLSL name is the spec constant's name hint (reflection reads it).
                        if self.m.name(sc).is_none() {
                            self.m.set_name(sc, Some(&gd.name));
                        }
                        Place::Value(sc)
                    }
                    _ => match self.global_ptr(*g) {
                        Some(p) => Place::Ptr(p),
                        None => {
                            let t = self.ir_ty(e.ty);
                            Place::Value(self.m.undef(t))
                        }
                    },
                }
            }
            ExprKind::Field(b, i) if let Some(bits) = self.bits_of(b.ty, *i) => {
                let path = self.field_path(b.ty, bits.storage);
                match self.place(b) {
                    Place::Ptr(p) => Place::Bits(self.field_addr_path(p, &path), bits),
                    Place::Split(..) => self.split_unaddressable(e),
                    other => {
                        let v = self.load_place(other, b.ty);
                        let word = self.bld().extract(v, &path);
                        Place::Value(self.bits_get(word, bits))
                    }
                }
            }
            ExprKind::Field(b, i) => {
                let path = self.field_path(b.ty, *i);
                match self.place(b) {
                    Place::Ptr(p) => Place::Ptr(self.field_addr_path(p, &path)),
                    Place::Split(n, mut fp, idx) => {
                        fp.push(*i);
                        self.split_place(n, fp, idx, e)
                    }
                    other => {
                        let v = self.load_place(other, b.ty);
                        Place::Value(self.bld().extract(v, &path))
                    }
                }
            }
            ExprKind::Index(b, i) => self.index_place(e, b, i),
            ExprKind::Swizzle(b, comps) => {
                let base_scalar = matches!(
                    self.types().kind(b.ty),
                    TyKind::Scalar(_) | TyKind::Vector(_, 1)
                );
                match self.place(b) {
                    Place::Ptr(p) if base_scalar => {
                        if comps.len() == 1 {
                            Place::Ptr(p)
                        } else {
                            let v = self.bld().load(p);
                            Place::Value(self.splat_value(v, e.ty))
                        }
                    }
                    Place::Ptr(p) => {
                        if comps.len() == 1 {
                            let k = self.imm_val(comps[0] as u32);
                            Place::Ptr(self.bld().element_addr(p, k))
                        } else {
                            Place::Swizzle(p, comps.iter().map(|&c| c as u32).collect())
                        }
                    }
                    Place::Split(n, fp, idx) => {
                        match self.split_components(n, &fp, idx, comps.iter().map(|&c| c as u32)) {
                            Some(ptrs) => Place::Scattered(ptrs),
                            None => self.split_unaddressable(e),
                        }
                    }
                    other => {
                        let v = self.load_place(other, b.ty);
                        Place::Value(self.swizzle_value(v, b.ty, comps, e.ty))
                    }
                }
            }
            ExprKind::MatSwizzle(b, elems) => match self.place(b) {
                Place::Split(..) => self.split_unaddressable(e),
                Place::Ptr(p) => {
                    if elems.len() == 1 {
                        let (r, c) = elems[0];
                        Place::Ptr(self.mat_elem_ptr(p, b.ty, r, c))
                    } else {
                        Place::MatElems(p, b.ty, elems.clone())
                    }
                }
                other => {
                    let v = self.load_place(other, b.ty);
                    let parts: Vec<InstId> = elems
                        .iter()
                        .map(|&(r, c)| self.mat_elem_value(v, b.ty, r, c))
                        .collect();
                    let v = if parts.len() == 1 {
                        parts[0]
                    } else {
                        let t = self.ir_ty(e.ty);
                        self.construct(t, &parts)
                    };
                    Place::Value(v)
                }
            },
            ExprKind::TexIndex(b, c) => {
                let Some(tp) = self.resource_ptr(b) else {
                    let t = self.ir_ty(e.ty);
                    return Place::Value(self.m.undef(t));
                };
                let cv = self.rvalue(c);
                Place::Texel(tp, cv)
            }
            ExprKind::Cast(CastKind::Reshape, x) => {
                let xt = self.ir_ty(x.ty);
                let et = self.ir_ty(e.ty);
                if xt == et {
                    return self.place(x);
                }
                Place::Value(self.rvalue(e))
            }
            // `++a`, `a op= c`, `a = c` as a place: the update, then the place it wrote.
            ExprKind::IncDec(_, _, false)
            | ExprKind::Assign(..)
            | ExprKind::CompoundAssign { .. }
                if !self.types().is_resource(e.ty) =>
            {
                self.update(e).0
            }
            _ => Place::Value(self.rvalue(e)),
        }
    }

    /// An assignment, compound assignment or increment `e` (not of a resource): performs it
    /// and returns the place it wrote (each operand evaluated once) and its value (for a
    /// postfix increment, the value before).
    fn update(&mut self, e: &Expr) -> (Place, InstId) {
        match &e.kind {
            ExprKind::Assign(l, r) => {
                let p = self.place(l);
                let v = self.rvalue(r);
                if let Some(root) = root_local(l) {
                    self.precise_if(root, v);
                }
                self.store_place(p.clone(), v);
                (p, v)
            }
            ExprKind::CompoundAssign {
                op,
                lhs,
                rhs,
                op_ty,
            } => {
                let p = self.place(lhs);
                let cur = self.load_place(p.clone(), lhs.ty);
                let cur = self.coerce(cur, lhs.ty, *op_ty);
                let r = self.rvalue(rhs);
                let res = self.binop(*op, cur, r, *op_ty);
                let out = self.coerce(res, *op_ty, lhs.ty);
                if let Some(root) = root_local(lhs) {
                    self.precise_if(root, out);
                }
                self.store_place(p.clone(), out);
                (p, out)
            }
            ExprKind::IncDec(x, inc, post) => {
                let p = self.place(x);
                let cur = self.load_place(p.clone(), x.ty);
                let s = self.types().scalar_of(x.ty).unwrap_or(Scalar::I32);
                let one = self.const_scalar(s, ConstVal::Int(1).convert(s));
                let one = self.splat_to(one, x.ty);
                let new = if *inc {
                    self.binop(BinOp::Add, cur, one, x.ty)
                } else {
                    self.binop(BinOp::Sub, cur, one, x.ty)
                };
                self.store_place(p.clone(), new);
                (p, if *post { cur } else { new })
            }
            _ => {
                let v = self.rvalue(e);
                (Place::Value(v), v)
            }
        }
    }

    fn index_place(&mut self, e: &Expr, b: &Expr, i: &Expr) -> Place {
        let bk = self.types().kind(b.ty).clone();
        if let TyKind::Buffer(..) = bk {
            let Some(bp) = self.resource_ptr(b) else {
                let t = self.ir_ty(e.ty);
                return Place::Value(self.m.undef(t));
            };
            let iv = self.rvalue(i);
            return Place::Ptr(self.bld().element_addr(bp, iv));
        }
        if self.types().is_resource(e.ty) {
            // An element of a resource array is used through `resource_ptr`.
            let t = self.ir_ty(e.ty);
            return Place::Value(self.m.undef(t));
        }
        let base = self.place(b);
        let iv = self.rvalue(i);
        match base {
            Place::Ptr(p) => Place::Ptr(self.elem_ptr(p, b.ty, iv)),
            Place::Split(n, fp, None) => self.split_place(n, fp, Some(iv), e),
            Place::Split(n, fp, idx @ Some(_)) => {
                // An element of a clip-distance array of a mesh vertex.
                match self.split_component_at(n, &fp, idx, iv) {
                    Some(p) => Place::Scattered(vec![p]),
                    None => self.split_unaddressable(e),
                }
            }
            other => {
                let v = self.load_place(other, b.ty);
                Place::Value(self.elem_value(v, b.ty, iv, e.ty))
            }
        }
    }

    /// A pointer to element `i` (run-time) of the container of HLSL type `ty` behind `p`.
    pub fn elem_ptr(&mut self, p: InstId, ty: TyId, i: InstId) -> InstId {
        match self.types().kind(ty).clone() {
            TyKind::Vector(_, 1) | TyKind::Scalar(_) => p,
            TyKind::Matrix(s, r, c) => match Self::mat_rep(s, r, c) {
                MatRep::Scalar => p,
                MatRep::Vec if r == 1 => p,
                _ => self.bld().element_addr(p, i),
            },
            _ => self.bld().element_addr(p, i),
        }
    }

    /// Element `i` of a container value.
    pub fn elem_value(&mut self, v: InstId, ty: TyId, i: InstId, ety: TyId) -> InstId {
        let konst = self
            .m
            .imm_value(i)
            .filter(|_| self.m.op(i) == Op::ConstInt)
            .or_else(|| self.m.const_int_value(i).map(|x| x as u32));
        match self.types().kind(ty).clone() {
            TyKind::Vector(_, 1) | TyKind::Scalar(_) => v,
            TyKind::Matrix(s, r, c) if Self::mat_rep(s, r, c) == MatRep::Scalar => v,
            TyKind::Matrix(s, r, c) if Self::mat_rep(s, r, c) == MatRep::Vec && r == 1 => v,
            TyKind::Vector(..) | TyKind::Matrix(..) => match konst {
                Some(k) => self.bld().extract(v, &[k]),
                None => {
                    if matches!(self.types().kind(ty), TyKind::Matrix(s, r, c) if Self::mat_rep(*s, *r, *c) == MatRep::Rows)
                    {
                        return self.spill_index(v, i, ety);
                    }
                    self.bld().extract_dyn(v, i)
                }
            },
            _ => match konst {
                Some(k) => self.bld().extract(v, &[k]),
                None => self.spill_index(v, i, ety),
            },
        }
    }

    /// Element `i` of an aggregate value through a temporary variable.
    fn spill_index(&mut self, v: InstId, i: InstId, _ety: TyId) -> InstId {
        let Some(t) = self.m.ty(v) else { return v };
        let tmp = self.new_var(t);
        self.bld().store(tmp, v);
        let p = self.bld().element_addr(tmp, i);
        self.bld().load(p)
    }

    /// A pointer to matrix element (r, c).
    pub fn mat_elem_ptr(&mut self, p: InstId, mty: TyId, r: u8, c: u8) -> InstId {
        let TyKind::Matrix(s, rows, cols) = self.types().kind(mty).clone() else {
            return p;
        };
        match Self::mat_rep(s, rows, cols) {
            MatRep::Scalar => p,
            MatRep::Vec => {
                let k = self.imm_val(if rows == 1 { c } else { r } as u32);
                self.bld().element_addr(p, k)
            }
            _ => {
                let rk = self.imm_val(r as u32);
                let row = self.bld().element_addr(p, rk);
                let ck = self.imm_val(c as u32);
                self.bld().element_addr(row, ck)
            }
        }
    }

    /// Matrix element (r, c) of a value.
    pub fn mat_elem_value(&mut self, v: InstId, mty: TyId, r: u8, c: u8) -> InstId {
        let TyKind::Matrix(s, rows, cols) = self.types().kind(mty).clone() else {
            return v;
        };
        match Self::mat_rep(s, rows, cols) {
            MatRep::Scalar => v,
            MatRep::Vec => {
                let k = if rows == 1 { c } else { r } as u32;
                self.bld().extract(v, &[k])
            }
            _ => self.bld().extract(v, &[r as u32, c as u32]),
        }
    }

    /// Records where an intrinsic call or texture read came from (`src_loc`), so that a
    /// backend refusing it (a run-time texel offset, an interpolant that is not an input...)
    /// points at the HLSL expression. A sparse read's texel is an extract of the read.
    fn mark_source(&mut self, v: InstId, span: oneshader_ir::diag::Span) {
        let Some(mut op) = self.m.try_op(v) else {
            return;
        };
        if op == Op::Construct {
            // A matrix intrinsic done row by row.
            let parts: Vec<InstId> = self.m.operands(v).collect();
            for p in parts {
                if self.m.try_op(p) == Some(Op::CallIntrinsic) {
                    self.mark_source(p, span);
                }
            }
            return;
        }
        let mut target = v;
        if op == Op::Extract
            && let Some(inner) = self.m.try_operand(v, 0)
            && self
                .m
                .try_op(inner)
                .is_some_and(|o| o.offset_index().is_some())
        {
            target = inner;
            op = self.m.op(inner);
        }
        let marked = op == Op::CallIntrinsic || op.offset_index().is_some();
        if marked && !self.m.has_decoration(target, Op::SrcLoc) {
            self.m
                .decorate_imm(target, Op::SrcLoc, &[span.file.0, span.start, span.end]);
        }
    }

    /// The IR path from a value of struct type `from` to its base of type `to`, when `to`
    /// is a (direct or indirect) base of `from`.
    fn base_of(&self, from: TyId, to: TyId) -> Option<Vec<u32>> {
        match (self.types().kind(from), self.types().kind(to)) {
            (TyKind::Struct(d), TyKind::Struct(b)) if d != b => self.base_path(*d, *b),
            _ => None,
        }
    }

    /// The address of the field at `path` (nested bases first) behind `p`.
    pub fn field_addr_path(&mut self, p: InstId, path: &[u32]) -> InstId {
        path.iter().fold(p, |q, &k| self.bld().field_addr(q, k))
    }

    /// The bit field that member `i` of struct type `ty` names, if it is one.
    fn bits_of(&self, ty: TyId, i: u32) -> Option<Bits> {
        let TyKind::Struct(sid) = self.types().kind(ty) else {
            return None;
        };
        let b = self.types().struct_def(*sid).bitfield(i as usize)?;
        Some(Bits {
            storage: b.storage,
            offset: b.offset,
            width: b.width,
            scalar: self.types().scalar_of(b.ty)?,
        })
    }

    fn bits_const(&mut self, s: Scalar, v: u64) -> InstId {
        self.const_scalar(s, ConstVal::Int(v as i128))
    }

    /// The value of a bit field in its storage word: shifted down, zero-extended (unsigned)
    /// or sign-extended (signed).
    fn bits_get(&mut self, word: InstId, b: Bits) -> InstId {
        let total = b.scalar.concrete().bits();
        let s = b.scalar;
        if b.width == total {
            return word;
        }
        if s.is_signed_int() {
            let up = total - b.offset - b.width;
            let mut v = word;
            if up > 0 {
                let k = self.bits_const(s, up as u64);
                v = self.bld().shl(v, k);
            }
            let k = self.bits_const(s, (total - b.width) as u64);
            self.bld().shr(v, k)
        } else {
            let mut v = word;
            if b.offset > 0 {
                let k = self.bits_const(s, b.offset as u64);
                v = self.bld().shr(v, k);
            }
            if b.offset + b.width < total {
                let k = self.bits_const(s, (1u64 << b.width) - 1);
                v = self.bld().and(v, k);
            }
            v
        }
    }

    /// `word` with bit field `b` replaced by the low bits of `v`.
    fn bits_set(&mut self, word: InstId, v: InstId, b: Bits) -> InstId {
        let total = b.scalar.concrete().bits();
        let s = b.scalar;
        if b.width == total {
            return v;
        }
        let ones = if b.width >= 64 {
            u64::MAX
        } else {
            (1u64 << b.width) - 1
        };
        let mask = ones << b.offset;
        let all = if total >= 64 {
            u64::MAX
        } else {
            (1u64 << total) - 1
        };
        let keep = self.bits_const(s, !mask & all);
        let kept = self.bld().and(word, keep);
        let mut placed = v;
        if b.offset > 0 {
            let k = self.bits_const(s, b.offset as u64);
            placed = self.bld().shl(placed, k);
        }
        let m = self.bits_const(s, mask);
        let placed = self.bld().and(placed, m);
        self.bld().or(kept, placed)
    }

    /// Reads a place.
    pub fn load_place(&mut self, p: Place, ty: TyId) -> InstId {
        match p {
            Place::Bits(p, b) => {
                let word = self.bld().load(p);
                self.bits_get(word, b)
            }
            Place::Ptr(p) => self.bld().load(p),
            Place::Swizzle(p, comps) => {
                let v = self.bld().load(p);
                self.bld().shuffle(v, v, &comps)
            }
            Place::MatElems(p, mty, elems) => {
                let mut parts = Vec::new();
                for (r, c) in elems {
                    let ep = self.mat_elem_ptr(p, mty, r, c);
                    parts.push(self.bld().load(ep));
                }
                let t = self.ir_ty(ty);
                self.construct(t, &parts)
            }
            Place::Texel(tp, coord) => {
                let t = self.ir_ty(ty);
                self.texel_read(Op::TextureLoad, t, &[tp, coord])
            }
            Place::Value(v) => v,
            Place::Split(n, path, idx) => self.split_load(n, &path, idx, ty),
            Place::Scattered(ptrs) => {
                if ptrs.len() == 1 {
                    return self.bld().load(ptrs[0]);
                }
                let parts: Vec<InstId> = ptrs.iter().map(|&p| self.bld().load(p)).collect();
                let t = self.ir_ty(ty);
                self.construct(t, &parts)
            }
        }
    }

    /// Writes a place.
    pub fn store_place(&mut self, p: Place, v: InstId) {
        match p {
            Place::Bits(p, b) => {
                let word = self.bld().load(p);
                let new = self.bits_set(word, v, b);
                self.bld().store(p, new);
            }
            Place::Ptr(p) => {
                self.bld().store(p, v);
            }
            Place::Swizzle(p, comps) => {
                for (k, c) in comps.into_iter().enumerate() {
                    let x = self.bld().extract(v, &[k as u32]);
                    let ci = self.imm_val(c);
                    let ep = self.bld().element_addr(p, ci);
                    self.bld().store(ep, x);
                }
            }
            Place::MatElems(p, mty, elems) => {
                for (k, (r, c)) in elems.into_iter().enumerate() {
                    let x = self.bld().extract(v, &[k as u32]);
                    let ep = self.mat_elem_ptr(p, mty, r, c);
                    self.bld().store(ep, x);
                }
            }
            Place::Texel(tp, coord) => {
                let v = self.bool_texel(v);
                self.bld().texture_store(tp, coord, v);
            }
            Place::Value(_) => {}
            Place::Split(n, path, idx) => self.split_store(n, &path, idx, v),
            Place::Scattered(ptrs) => {
                if ptrs.len() == 1 {
                    self.bld().store(ptrs[0], v);
                    return;
                }
                for (k, p) in ptrs.into_iter().enumerate() {
                    let x = self.bld().extract(v, &[k as u32]);
                    self.bld().store(p, x);
                }
            }
        }
    }

    /// The resource pointer an expression denotes (a global, an element of a resource
    /// array, or a resource local's alias).
    pub fn resource_ptr(&mut self, e: &Expr) -> Option<InstId> {
        match &e.kind {
            ExprKind::Global(g) => self.global_ptr(*g),
            ExprKind::Local(l) => match self.f.as_ref().map(|f| f.locals[l.0 as usize]) {
                Some(LocalSlot::Resource(p)) => Some(p),
                _ if self.f.as_ref().is_some_and(|f| f.ambiguous.contains(&l.0)) => {
                    let name = self.local_name(*l);
                    self.error(
                        e.span,
                        format!(
                            "the resource variable `{name}` names different resources on \
                             different paths here (it is given one inside a branch or loop \
                             whose path is known only at run time): SPIR-V cannot choose a \
                             resource at run time; use it inside that branch, or index a \
                             resource array"
                        ),
                    );
                    None
                }
                _ => {
                    self.error(
                        e.span,
                        "this resource variable is used before it is given a resource",
                    );
                    None
                }
            },
            ExprKind::Index(b, i) => {
                let bp = self.resource_ptr(b)?;
                let iv = self.rvalue(i);
                let a = self.bld().element_addr(bp, iv);
                if contains_nonuniform(i) {
                    self.m.decorate(a, Op::NonUniform, &[]);
                }
                Some(a)
            }
            ExprKind::Cast(_, x) => self.resource_ptr(x),
            ExprKind::Assign(l, r) => {
                // Copying a resource variable that was never given a resource (a struct copy
                // of partly set fields) leaves the target unset too; only a use reports it.
                if let ExprKind::Local(rid) = r.kind
                    && matches!(
                        self.f.as_ref().map(|f| f.locals[rid.0 as usize]),
                        Some(LocalSlot::None)
                    )
                {
                    if let ExprKind::Local(id) = l.kind
                        && let Some(f) = &mut self.f
                    {
                        f.locals[id.0 as usize] = LocalSlot::None;
                    }
                    return None;
                }
                let p = self.resource_ptr(r)?;
                if let ExprKind::Local(id) = l.kind {
                    self.set_alias(id, p);
                }
                Some(p)
            }
            ExprKind::Error => None,
            ExprKind::Comma(a, b) => {
                self.effect(a);
                self.resource_ptr(b)
            }
            ExprKind::Field(c, k) if matches!(c.kind, ExprKind::Call(..)) => {
                // Leaf `k` of the struct of resources a call returns (its call is lowered
                // once, by the `Comma` before the first leaf).
                let ExprKind::Call(f, args) = &c.kind else {
                    return None;
                };
                let r = match self.returned_resource(*f, args, 0) {
                    Ok(r) => r,
                    Err(why) => {
                        self.error(
                            e.span,
                            format!(
                                "the resources `{}` returns cannot be known when compiling: \
                                 {why}",
                                self.p.func(*f).name
                            ),
                        );
                        return None;
                    }
                };
                match r.kind {
                    ExprKind::Flatten(leaves) => {
                        let leaf = leaves.get(*k as usize)?.clone();
                        self.resource_ptr(&leaf)
                    }
                    _ => {
                        self.error(e.span, "a struct of resources is returned as one resource");
                        None
                    }
                }
            }
            ExprKind::Call(f, args) => {
                // The call keeps its effects; the resource it returns is named statically.
                self.effect(e);
                match self.returned_resource(*f, args, 0) {
                    Ok(r) => self.resource_ptr(&r),
                    Err(why) => {
                        self.error(
                            e.span,
                            format!(
                                "the resource `{}` returns cannot be known when compiling: \
                                 {why} (SPIR-V cannot return a resource; DXC's legalization \
                                 needs the same)",
                                self.p.func(*f).name
                            ),
                        );
                        None
                    }
                }
            }
            _ => {
                self.error(
                    e.span,
                    "a resource must be a global, an element of a resource array or a variable \
                     naming one",
                );
                None
            }
        }
    }

    // ---- values -------------------------------------------------------------------------------

    /// Lowers an expression for its effects only.
    pub fn effect(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Const(_) | ExprKind::Local(_) | ExprKind::Global(_) | ExprKind::Error => {}
            ExprKind::Comma(a, b) => {
                self.effect(a);
                self.effect(b);
            }
            ExprKind::Cast(_, x) if self.types().is_void(e.ty) => self.effect(x),
            _ => {
                self.rvalue(e);
            }
        }
    }

    /// Lowers an expression to its value (an undefined value for `void` and errors).
    pub fn rvalue(&mut self, e: &Expr) -> InstId {
        let outer = self.positions.enter(&self.m, e.span);
        let v = self.rvalue_here(e);
        self.positions.leave(&self.m, outer);
        v
    }

    fn rvalue_here(&mut self, e: &Expr) -> InstId {
        match &e.kind {
            ExprKind::Error => {
                let t = self.ir_ty(e.ty);
                self.m.undef(t)
            }
            ExprKind::Str(s) => self.m.const_string(s),
            ExprKind::HeapIndex(sampler, _) => {
                let heap = if *sampler {
                    "SamplerDescriptorHeap"
                } else {
                    "ResourceDescriptorHeap"
                };
                self.error(
                    e.span,
                    format!(
                        "an element of `{heap}` has no type until it initializes or is                          assigned to a resource variable (`Texture2D t = {heap}[i];`)"
                    ),
                );
                let t = self.ir_ty(e.ty);
                self.m.undef(t)
            }
            ExprKind::Const(v) => {
                let s = self.types().scalar_of(e.ty).unwrap_or(Scalar::I32);
                self.const_scalar(s, *v)
            }
            ExprKind::Local(_)
            | ExprKind::Global(_)
            | ExprKind::Field(..)
            | ExprKind::Index(..)
            | ExprKind::Swizzle(..)
            | ExprKind::MatSwizzle(..)
            | ExprKind::TexIndex(..) => {
                let p = self.place(e);
                self.load_place(p, e.ty)
            }
            ExprKind::Unary(op, x) => {
                let v = self.rvalue(x);
                self.unary(*op, v, x.ty)
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.rvalue(a);
                let y = self.rvalue(b);
                self.binop(*op, x, y, a.ty)
            }
            ExprKind::Logical(and, a, b) => self.logical(*and, a, b),
            ExprKind::Ternary(c, a, b) => self.ternary(c, a, b, e.ty),
            ExprKind::Assign(l, _) if self.types().is_resource(l.ty) => {
                self.resource_ptr(e);
                let t = self.ir_ty(e.ty);
                self.m.undef(t)
            }
            ExprKind::Assign(..) | ExprKind::CompoundAssign { .. } | ExprKind::IncDec(..) => {
                self.update(e).1
            }
            ExprKind::Call(f, args) => self.call(*f, args, e),
            ExprKind::Intrinsic(op, args) => {
                let v = self.intrinsic(*op, args, e);
                self.mark_source(v, e.span);
                v
            }
            ExprKind::Method(m, o, args) => {
                let v = self.method(*m, o, args, e);
                self.mark_source(v, e.span);
                v
            }
            ExprKind::Flatten(parts) => {
                let total = self.types().flat_count(e.ty) as usize;
                let one_constant = parts.len() == 1 && matches!(parts[0].kind, ExprKind::Const(_));
                if total > MAX_FLAT && !one_constant {
                    return self.too_large(e);
                }
                let mut leaves = Vec::new();
                for p in parts {
                    let v = self.rvalue(p);
                    if self.types().flat_count(p.ty) as usize > MAX_FLAT {
                        return self.too_large(p);
                    }
                    self.leaves(v, p.ty, &mut leaves);
                }
                self.assemble_leaves(leaves, e.ty)
            }
            ExprKind::Cast(k, x) => {
                if self.types().is_void(e.ty) {
                    self.effect(x);
                    let t = self.m.void_type();
                    return self.m.undef(t);
                }
                let v = self.rvalue(x);
                self.cast(*k, v, x.ty, e.ty)
            }
            ExprKind::Comma(a, b) => {
                self.effect(a);
                self.rvalue(b)
            }
            ExprKind::Split(_) => {
                self.error(
                    e.span,
                    "a struct that holds resources can only be used through its fields here",
                );
                let t = self.ir_ty(e.ty);
                self.m.undef(t)
            }
            ExprKind::ArrayLength(b) => match self.resource_ptr(b) {
                Some(p) => self.bld().array_length(p),
                None => self.m.const_u32(0),
            },
        }
    }

    // ---- conversions --------------------------------------------------------------------------

    /// Converts a value between HLSL types the way an implicit conversion does (used for
    /// copy-back of `out` arguments and compound assignments).
    pub fn coerce(&mut self, v: InstId, from: TyId, to: TyId) -> InstId {
        if from == to || self.types().is_error(from) || self.types().is_error(to) {
            return v;
        }
        let (Some(fs), Some(ts)) = (self.types().scalar_of(from), self.types().scalar_of(to))
        else {
            return v;
        };
        let fk = self.types().kind(from).clone();
        let tk = self.types().kind(to).clone();
        // Scalar first, in the source shape.
        let mut cur = v;
        let mut cur_ty = from;
        if fs.concrete() != ts.concrete() {
            let mid = match fk {
                TyKind::Scalar(_) => TyKind::Scalar(ts),
                TyKind::Vector(_, n) => TyKind::Vector(ts, n),
                TyKind::Matrix(_, r, c) => TyKind::Matrix(ts, r, c),
                _ => return v,
            };
            let mid_ty = self.find_type(&mid).unwrap_or(to);
            cur = self.convert_shape_same(cur, cur_ty, mid_ty, ts);
            cur_ty = mid_ty;
        }
        let cur_ir = self.m.ty(cur);
        let to_ir = self.ir_ty(to);
        if cur_ir == Some(to_ir) {
            return cur;
        }
        match (self.types().kind(cur_ty).clone(), tk) {
            (TyKind::Scalar(_), _) => self.splat_to(cur, to),
            (TyKind::Vector(_, 1), _) => self.splat_to(cur, to),
            _ => {
                let mut leaves = Vec::new();
                self.leaves(cur, cur_ty, &mut leaves);
                let mut it = leaves.into_iter();
                self.build(to, &mut it)
            }
        }
    }

    pub(in crate::hlsl) fn find_type(&self, k: &TyKind) -> Option<TyId> {
        self.p.types.lookup(k)
    }

    /// Numeric conversion keeping the shape.
    fn convert_shape_same(&mut self, v: InstId, from: TyId, to: TyId, ts: Scalar) -> InstId {
        match self.types().kind(from).clone() {
            TyKind::Matrix(fs, r, c) => {
                let frep = Self::mat_rep(fs, r, c);
                let trep = Self::mat_rep(ts, r, c);
                if frep == MatRep::Rows || trep == MatRep::Rows {
                    let row_t = self.types_scalar_vec(ts, c);
                    let mut rows = Vec::new();
                    for i in 0..r {
                        let row = self.bld().extract(v, &[i as u32]);
                        rows.push(self.bld().convert(row, row_t));
                    }
                    let t = self.ir_ty(to);
                    return self.construct(t, &rows);
                }
                let t = self.ir_ty(to);
                self.bld().convert(v, t)
            }
            _ => {
                let t = self.ir_ty(to);
                if self.m.ty(v) == Some(t) {
                    return v;
                }
                self.bld().convert(v, t)
            }
        }
    }

    /// A scalar value repeated to the shape of HLSL type `to`.
    pub fn splat_to(&mut self, s: InstId, to: TyId) -> InstId {
        let t = self.ir_ty(to);
        if self.m.ty(s) == Some(t) {
            return s;
        }
        match self.types().kind(to).clone() {
            TyKind::Vector(_, n) => {
                let parts = vec![s; n as usize];
                self.construct(t, &parts)
            }
            TyKind::Matrix(sc, r, c) => match Self::mat_rep(sc, r, c) {
                MatRep::Scalar => s,
                MatRep::Vec => {
                    let parts = vec![s; r.max(c) as usize];
                    self.construct(t, &parts)
                }
                _ => {
                    let rt = self.types_scalar_vec(sc, c);
                    let parts = vec![s; c as usize];
                    let row = self.construct(rt, &parts);
                    let rows = vec![row; r as usize];
                    self.construct(t, &rows)
                }
            },
            _ => s,
        }
    }

    fn splat_value(&mut self, v: InstId, to: TyId) -> InstId {
        self.splat_to(v, to)
    }

    fn swizzle_value(&mut self, v: InstId, bty: TyId, comps: &[u8], ety: TyId) -> InstId {
        if matches!(
            self.types().kind(bty),
            TyKind::Scalar(_) | TyKind::Vector(_, 1)
        ) {
            return self.splat_to(v, ety);
        }
        if comps.len() == 1 {
            return self.bld().extract(v, &[comps[0] as u32]);
        }
        let c: Vec<u32> = comps.iter().map(|&x| x as u32).collect();
        self.bld().shuffle(v, v, &c)
    }

    /// Lowers a cast.
    pub fn cast(&mut self, k: CastKind, v: InstId, from: TyId, to: TyId) -> InstId {
        let to_ir = self.ir_ty(to);
        match k {
            CastKind::Convert => {
                let Some(ts) = self.types().scalar_of(to) else {
                    return v;
                };
                if self.m.ty(v) == Some(to_ir) {
                    return v;
                }
                self.convert_shape_same(v, from, to, ts)
            }
            CastKind::Splat => self.splat_to(v, to),
            CastKind::Truncate => self.truncate(v, from, to),
            CastKind::Reshape => {
                if self.m.ty(v) == Some(to_ir) {
                    v
                } else {
                    let mut leaves = Vec::new();
                    self.leaves(v, from, &mut leaves);
                    let mut it = leaves.into_iter();
                    self.build(to, &mut it)
                }
            }
            CastKind::Flatten => {
                let total = self.types().flat_count(to) as usize;
                let constant = self.m.op(v).is_constant();
                if (total > MAX_FLAT && !constant)
                    || self.types().flat_count(from) as usize > MAX_FLAT
                {
                    let t = self.ir_ty(to);
                    self.error_once("a conversion of more than 65536 components is not supported");
                    return self.m.undef(t);
                }
                let mut leaves = Vec::new();
                self.leaves(v, from, &mut leaves);
                self.assemble_leaves(leaves, to)
            }
            CastKind::Bitcast => self.bld().bitcast(v, to_ir),
        }
    }

    fn truncate(&mut self, v: InstId, from: TyId, to: TyId) -> InstId {
        match (
            self.types().kind(from).clone(),
            self.types().kind(to).clone(),
        ) {
            (TyKind::Vector(_, _), TyKind::Scalar(_) | TyKind::Vector(_, 1)) => {
                self.bld().extract(v, &[0])
            }
            (TyKind::Vector(..), TyKind::Vector(_, m)) => {
                let idx: Vec<u32> = (0..m as u32).collect();
                self.bld().shuffle(v, v, &idx)
            }
            _ => {
                // Matrices: keep the leading rows and columns.
                let (TyKind::Matrix(s, _, _), TyKind::Matrix(_, r2, c2)) = (
                    self.types().kind(from).clone(),
                    self.types().kind(to).clone(),
                ) else {
                    let mut leaves = Vec::new();
                    self.leaves(v, from, &mut leaves);
                    let mut it = leaves.into_iter();
                    return self.build(to, &mut it);
                };
                let mut leaves = Vec::new();
                for r in 0..r2 {
                    for c in 0..c2 {
                        leaves.push((self.mat_elem_value(v, from, r, c), s));
                    }
                }
                let mut it = leaves.into_iter();
                self.build(to, &mut it)
            }
        }
    }

    /// A value of HLSL type `ty` from flattened leaves: one leaf is repeated (`(S)0`; a zero
    /// constant becomes the type's `zero`).
    fn assemble_leaves(&mut self, mut leaves: Vec<(InstId, Scalar)>, ty: TyId) -> InstId {
        let total = self.types().flat_count(ty) as usize;
        if leaves.len() == 1 && total > 1 {
            let l = leaves[0];
            let is_zero = match self.m.op(l.0) {
                Op::ConstInt | Op::ConstFloat | Op::ConstBool => {
                    self.m.literal_bits(l.0) == Some(0)
                }
                Op::Zero => true,
                _ => false,
            };
            if is_zero {
                let t = self.ir_ty(ty);
                return self.m.zero(t);
            }
            leaves = vec![l; total];
        }
        let mut it = leaves.into_iter();
        self.build(ty, &mut it)
    }

    fn too_large(&mut self, e: &Expr) -> InstId {
        self.error(
            e.span,
            "a value of more than 65536 components cannot be built element by element",
        );
        let t = self.ir_ty(e.ty);
        self.m.undef(t)
    }

    pub(crate) fn error_once(&mut self, msg: &str) {
        if !self.diags.iter().any(|d| d.message == msg) {
            self.diags
                .push(oneshader_ir::Diagnostic::error("OSH1040", msg));
        }
    }

    /// The scalar leaves of a value of HLSL type `ty`, in HLSL's flattening order.
    pub fn leaves(&mut self, v: InstId, ty: TyId, out: &mut Vec<(InstId, Scalar)>) {
        match self.types().kind(ty).clone() {
            TyKind::Scalar(s) | TyKind::Vector(s, 1) => out.push((v, s)),
            TyKind::Vector(s, n) => {
                for i in 0..n {
                    out.push((self.bld().extract(v, &[i as u32]), s));
                }
            }
            TyKind::Matrix(s, r, c) => {
                for i in 0..r {
                    for j in 0..c {
                        out.push((self.mat_elem_value(v, ty, i, j), s));
                    }
                }
            }
            TyKind::Array(e, n) => {
                for i in 0..n {
                    let x = self.bld().extract(v, &[i]);
                    self.leaves(x, e, out);
                }
            }
            TyKind::Struct(sid) => {
                let ftys: Vec<TyId> = self
                    .types()
                    .struct_def(sid)
                    .fields
                    .iter()
                    .map(|f| f.ty)
                    .collect();
                for (i, ft) in ftys.into_iter().enumerate() {
                    let path = self.field_path(ty, i as u32);
                    let x = self.bld().extract(v, &path);
                    self.leaves(x, ft, out);
                }
            }
            _ => {}
        }
    }

    /// A value of HLSL type `ty` built from scalar leaves (each converted).
    pub fn build(&mut self, ty: TyId, it: &mut dyn Iterator<Item = (InstId, Scalar)>) -> InstId {
        let t = self.ir_ty(ty);
        let mut leaf = |l: &mut Self, s: Scalar| -> InstId {
            match it.next() {
                Some((v, vs)) => {
                    if vs.concrete() == s.concrete() {
                        v
                    } else if let Some(c) = l.const_value_of(v) {
                        // A constant converts at compile time.
                        l.const_scalar(s, c.convert(s))
                    } else {
                        let st = l.scalar_ir(s);
                        l.bld().convert(v, st)
                    }
                }
                None => {
                    let st = l.scalar_ir(s);
                    l.m.zero(st)
                }
            }
        };
        match self.types().kind(ty).clone() {
            TyKind::Scalar(s) | TyKind::Vector(s, 1) => leaf(self, s),
            TyKind::Vector(s, n) => {
                let parts: Vec<InstId> = (0..n).map(|_| leaf(self, s)).collect();
                self.construct(t, &parts)
            }
            TyKind::Matrix(s, r, c) => {
                let mut flat = Vec::new();
                for _ in 0..(r as usize * c as usize) {
                    flat.push(leaf(self, s));
                }
                match Self::mat_rep(s, r, c) {
                    MatRep::Scalar => flat[0],
                    MatRep::Vec => self.construct(t, &flat),
                    _ => {
                        let rt = self.types_scalar_vec(s, c);
                        let rows: Vec<InstId> = flat
                            .chunks(c as usize)
                            .map(|ch| self.construct(rt, ch))
                            .collect();
                        self.construct(t, &rows)
                    }
                }
            }
            TyKind::Array(e, n) => {
                let mut parts = Vec::new();
                for _ in 0..n {
                    parts.push(self.build(e, it));
                }
                self.construct(t, &parts)
            }
            TyKind::Struct(sid) => {
                let ftys: Vec<TyId> = self
                    .types()
                    .struct_def(sid)
                    .fields
                    .iter()
                    .map(|f| f.ty)
                    .collect();
                let mut parts = Vec::new();
                for ft in ftys {
                    parts.push(self.build(ft, it));
                }
                self.struct_value(sid, &parts)
            }
            _ => self.m.undef(t),
        }
    }

    // ---- operators ----------------------------------------------------------------------------

    fn unary(&mut self, op: UnOp, v: InstId, ty: TyId) -> InstId {
        if self.is_rows(ty) {
            return self.map_rows1(v, ty, ty, |l, row| match op {
                UnOp::Neg => l.bld().neg(row),
                _ => l.bld().not(row),
            });
        }
        match op {
            UnOp::Neg => self.bld().neg(v),
            UnOp::Not | UnOp::BitNot => self.bld().not(v),
        }
    }

    pub(in crate::hlsl) fn is_rows(&self, ty: TyId) -> bool {
        matches!(self.types().kind(ty), TyKind::Matrix(s, r, c) if Self::mat_rep(*s, *r, *c) == MatRep::Rows)
    }

    pub(in crate::hlsl) fn is_ir_mat(&self, ty: TyId) -> bool {
        matches!(self.types().kind(ty), TyKind::Matrix(s, r, c) if Self::mat_rep(*s, *r, *c) == MatRep::Mat)
    }

    /// Applies `f` to each row of a matrix value, building a matrix of HLSL type `rty`.
    pub(in crate::hlsl) fn map_rows1(
        &mut self,
        v: InstId,
        ty: TyId,
        rty: TyId,
        mut f: impl FnMut(&mut Self, InstId) -> InstId,
    ) -> InstId {
        let TyKind::Matrix(_, r, _) = self.types().kind(ty).clone() else {
            return f(self, v);
        };
        let mut rows = Vec::new();
        for i in 0..r {
            let row = self.bld().extract(v, &[i as u32]);
            rows.push(f(self, row));
        }
        let t = self.ir_ty(rty);
        self.construct(t, &rows)
    }

    pub(in crate::hlsl) fn map_rows2(
        &mut self,
        a: InstId,
        b: InstId,
        ty: TyId,
        rty: TyId,
        mut f: impl FnMut(&mut Self, InstId, InstId) -> InstId,
    ) -> InstId {
        let TyKind::Matrix(_, r, _) = self.types().kind(ty).clone() else {
            return f(self, a, b);
        };
        let mut rows = Vec::new();
        for i in 0..r {
            let x = self.bld().extract(a, &[i as u32]);
            let y = self.bld().extract(b, &[i as u32]);
            rows.push(f(self, x, y));
        }
        let t = self.ir_ty(rty);
        self.construct(t, &rows)
    }

    /// A binary operation on two values of HLSL type `ty`.
    pub fn binop(&mut self, op: BinOp, a: InstId, b: InstId, ty: TyId) -> InstId {
        let irop = match op {
            BinOp::Add => Op::Add,
            BinOp::Sub => Op::Sub,
            BinOp::Mul => Op::Mul,
            BinOp::Div => Op::Div,
            BinOp::Rem => Op::Rem,
            BinOp::Shl => Op::Shl,
            BinOp::Shr => Op::Shr,
            BinOp::And => Op::And,
            BinOp::Or => Op::Or,
            BinOp::Xor => Op::Xor,
            BinOp::Lt => Op::Lt,
            BinOp::Le => Op::Le,
            BinOp::Gt => Op::Gt,
            BinOp::Ge => Op::Ge,
            BinOp::Eq => Op::Eq,
            BinOp::Ne => Op::Ne,
        };
        let matrix = matches!(self.types().kind(ty), TyKind::Matrix(s, r, c) if matches!(Self::mat_rep(*s, *r, *c), MatRep::Mat | MatRep::Rows));
        if matrix
            && (op.is_comparison()
                || self.is_rows(ty)
                || matches!(
                    op,
                    BinOp::Shl | BinOp::Shr | BinOp::And | BinOp::Or | BinOp::Xor
                ))
        {
            let TyKind::Matrix(_, r, c) = self.types().kind(ty).clone() else {
                return a;
            };
            let rty = if op.is_comparison() {
                self.find_type(&TyKind::Matrix(Scalar::Bool, r, c))
                    .unwrap_or(ty)
            } else {
                ty
            };
            return self.map_rows2(a, b, ty, rty, |l, x, y| {
                if op.is_comparison() {
                    l.bld().cmp(irop, x, y)
                } else {
                    l.bld().binary(irop, x, y)
                }
            });
        }
        if op.is_comparison() {
            self.bld().cmp(irop, a, b)
        } else {
            self.bld().binary(irop, a, b)
        }
    }

    fn logical(&mut self, and: bool, a: &Expr, b: &Expr) -> InstId {
        let x = self.rvalue(a);
        if is_pure_cheap(b) {
            let y = self.rvalue(b);
            return if and {
                self.bld().and(x, y)
            } else {
                self.bld().or(x, y)
            };
        }
        let then = self.new_block();
        let els = self.new_block();
        let merge = self.new_block();
        let bt = self.m.bool_type();
        let p = self.m.add_block_param(merge, bt);
        self.bld().if_else(x, then, els, merge);
        let k = self.m.const_bool(!and);
        // `a && b`: then evaluates b, else yields false; `a || b`: then yields true.
        self.switch_to(then);
        if and {
            let y = self.rvalue(b);
            self.bld().br(merge, &[y]);
        } else {
            self.bld().br(merge, &[k]);
        }
        self.switch_to(els);
        if and {
            self.bld().br(merge, &[k]);
        } else {
            let y = self.rvalue(b);
            self.bld().br(merge, &[y]);
        }
        self.switch_to(merge);
        p
    }

    fn ternary(&mut self, c: &Expr, a: &Expr, b: &Expr, ty: TyId) -> InstId {
        let cv = self.rvalue(c);
        let simple = matches!(
            self.types().kind(ty),
            TyKind::Scalar(_) | TyKind::Vector(..)
        );
        if simple && is_pure_cheap(a) && is_pure_cheap(b) {
            let x = self.rvalue(a);
            let y = self.rvalue(b);
            return self.bld().select(cv, x, y);
        }
        let then = self.new_block();
        let els = self.new_block();
        let merge = self.new_block();
        let t = self.ir_ty(ty);
        let p = self.m.add_block_param(merge, t);
        self.bld().if_else(cv, then, els, merge);
        self.switch_to(then);
        let x = self.rvalue(a);
        self.bld().br(merge, &[x]);
        self.switch_to(els);
        let y = self.rvalue(b);
        self.bld().br(merge, &[y]);
        self.switch_to(merge);
        p
    }

    // ---- calls --------------------------------------------------------------------------------

    fn call(&mut self, f: FuncId, args: &[Arg], e: &Expr) -> InstId {
        let Some(&callee) = self.funcs.get(&f) else {
            let t = self.ir_ty(e.ty);
            return self.m.undef(t);
        };
        let mut ir_args = Vec::new();
        let mut back = Vec::new();
        let params: Vec<TyId> = self.p.func(f).params.iter().map(|p| p.ty).collect();
        let fparams = &self.p.func(f).params;
        if let Some(&stage) = self.entry_stages.get(&f)
            && crate::hlsl::lower::entry::is_ray_tracing(stage)
        {
            self.error(
                e.span,
                format!(
                    "`{}` is a {} entry point; it cannot be called",
                    self.p.func(f).name,
                    stage.spelling()
                ),
            );
            let t = self.ir_ty(e.ty);
            return self.m.undef(t);
        }
        for (k, a) in args.iter().enumerate() {
            if let Some(p) = fparams.get(k) {
                if matches!(self.types().kind(p.ty), TyKind::Stream(..)) {
                    // The callee reaches the stream's globals itself.
                    if self.all_streams.len() > 1 {
                        self.error(
                            e.span,
                            "passing one of several output streams to a function is not \
                             supported: append to it in the entry point",
                        );
                    }
                    continue;
                }
                if self.is_virtual_param(f, p) {
                    self.error(
                        e.span,
                        "a mesh shader's output arrays cannot be passed to a function: write \
                         them in the entry point",
                    );
                    continue;
                }
                if let Arg::Out { place, .. } = a
                    && let ExprKind::Local(l) = place.kind
                    && matches!(
                        self.f.as_ref().map(|fs| fs.locals[l.0 as usize]),
                        Some(LocalSlot::Split(_))
                    )
                {
                    self.error(
                        e.span,
                        "a mesh shader's output arrays cannot be passed to a function: write \
                         them in the entry point",
                    );
                    continue;
                }
                if matches!(self.types().kind(p.ty), TyKind::RayQuery(_)) {
                    // By reference: the query's own variable.
                    let arg = match a {
                        Arg::In(x) | Arg::Out { place: x, .. } => x,
                        Arg::Resource(x) => x,
                    };
                    match self.place(arg) {
                        Place::Ptr(q) => ir_args.push(q),
                        _ => {
                            self.error(arg.span, "a ray query is passed as a variable");
                            let t = self.m.ray_query_type();
                            let pt = self.m.ptr_type(oneshader_ir::AddressSpace::Function, t);
                            ir_args.push(self.m.undef(pt));
                        }
                    }
                    continue;
                }
            }
            match a {
                Arg::In(x) => {
                    let v = self.rvalue(x);
                    // A derived struct passed as its base (a base method's `this`): the
                    // nested base field.
                    let v = match params.get(k).and_then(|&pt| self.base_of(x.ty, pt)) {
                        Some(path) => self.bld().extract(v, &path),
                        None => v,
                    };
                    ir_args.push(v);
                }
                Arg::Resource(x) => match self.resource_ptr(x) {
                    Some(p) => ir_args.push(p),
                    None => {
                        let t = self.m.void_type();
                        ir_args.push(self.m.undef(t));
                    }
                },
                Arg::Out {
                    place,
                    param_ty,
                    copy_in,
                    copy_out,
                } => {
                    let mut pl = self.place(place);
                    let mut place_ty = place.ty;
                    if let Some(path) = self.base_of(place.ty, *param_ty) {
                        // A base method's `this` on a derived object: the base inside it.
                        pl = match pl {
                            Place::Ptr(p) => Place::Ptr(self.field_addr_path(p, &path)),
                            other => {
                                let v = self.load_place(other, place.ty);
                                Place::Value(self.bld().extract(v, &path))
                            }
                        };
                        place_ty = *param_ty;
                    }
                    let pt = self.ir_ty(*param_ty);
                    let tmp = self.new_var(pt);
                    if *copy_in {
                        let v = self.load_place(pl.clone(), place_ty);
                        let v = self.coerce(v, place_ty, *param_ty);
                        self.bld().store(tmp, v);
                    }
                    ir_args.push(tmp);
                    if *copy_out && !matches!(pl, Place::Value(_)) {
                        back.push((pl, tmp, *param_ty, place_ty));
                    }
                }
            }
        }
        let r = self.bld().call(callee.id(), &ir_args);
        for (pl, tmp, pty, aty) in back {
            let v = self.bld().load(tmp);
            let v = self.coerce(v, pty, aty);
            self.store_place(pl, v);
        }
        r
    }
}

/// The local at the root of a place expression.
fn root_local(e: &Expr) -> Option<LocalId> {
    match &e.kind {
        ExprKind::Local(l) => Some(*l),
        ExprKind::Field(b, _)
        | ExprKind::Swizzle(b, _)
        | ExprKind::MatSwizzle(b, _)
        | ExprKind::Index(b, _)
        | ExprKind::Cast(_, b) => root_local(b),
        _ => None,
    }
}

/// The global at the root of a resource expression.
pub(in crate::hlsl) fn root_global(e: &Expr) -> Option<GlobalId> {
    match &e.kind {
        ExprKind::Global(g) => Some(*g),
        ExprKind::Cast(_, x) => root_global(x),
        _ => None,
    }
}

/// True when an expression mentions `NonUniformResourceIndex`.
pub fn contains_nonuniform(e: &Expr) -> bool {
    let mut found = false;
    crate::hlsl::sema::stmt::visit(e, &mut |x| {
        if matches!(
            x.kind,
            ExprKind::Intrinsic(IntrinsicOp::Ir(Intrinsic::NonUniformIndex), _)
        ) {
            found = true;
        }
    });
    found
}

/// True when evaluating `e` has no effects and cannot fault (so it may be evaluated
/// unconditionally: `select` instead of branches).
pub fn is_pure_cheap(e: &Expr) -> bool {
    let mut ok = true;
    crate::hlsl::sema::stmt::visit(e, &mut |x| match &x.kind {
        ExprKind::Assign(..)
        | ExprKind::CompoundAssign { .. }
        | ExprKind::IncDec(..)
        | ExprKind::Call(..)
        | ExprKind::Method(..)
        | ExprKind::TexIndex(..)
        | ExprKind::Logical(..)
        | ExprKind::Ternary(..) => ok = false,
        ExprKind::Intrinsic(op, _) => {
            if !matches!(
                op,
                IntrinsicOp::Ir(_)
                    | IntrinsicOp::Select
                    | IntrinsicOp::Mul
                    | IntrinsicOp::Bitcast
                    | IntrinsicOp::LogicalAnd
                    | IntrinsicOp::LogicalOr
            ) {
                ok = false;
            }
            if let IntrinsicOp::Ir(i) = op
                && matches!(i, Intrinsic::Frexp | Intrinsic::Modf | Intrinsic::Sincos)
            {
                ok = false;
            }
        }
        ExprKind::Index(_, i) if !matches!(i.kind, ExprKind::Const(_)) => ok = false,
        _ => {}
    });
    ok
}
