//! Lowering, part 2: expressions. Places (pointers, swizzled and matrix-element places,
//! texels) and values; conversions and flattening; operators, short-circuits and `?:`;
//! calls with copy-in/copy-out; intrinsics; resource methods.

use oneshader_ir::layout::{LayoutRule, type_layout};
use oneshader_ir::{AtomicOp, InstId, Intrinsic, Op};

use super::hir::*;
use super::lower::{LocalSlot, Lower, MatRep};

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
            _ => Place::Value(self.rvalue(e)),
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
                self.bld().texture_op(Op::TextureLoad, t, &[tp, coord])
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
                if let ExprKind::Local(id) = l.kind
                    && let Some(f) = &mut self.f
                {
                    f.locals[id.0 as usize] = LocalSlot::Resource(p);
                }
                Some(p)
            }
            ExprKind::Error => None,
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
        match &e.kind {
            ExprKind::Error => {
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
            ExprKind::Assign(l, r) => {
                if self.types().is_resource(l.ty) {
                    self.resource_ptr(e);
                    let t = self.ir_ty(e.ty);
                    return self.m.undef(t);
                }
                let p = self.place(l);
                let v = self.rvalue(r);
                if let Some(root) = root_local(l) {
                    self.precise_if(root, v);
                }
                self.store_place(p, v);
                v
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
                self.store_place(p, out);
                out
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
                self.store_place(p, new);
                if *post { cur } else { new }
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

    fn find_type(&self, k: &TyKind) -> Option<TyId> {
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

    fn is_rows(&self, ty: TyId) -> bool {
        matches!(self.types().kind(ty), TyKind::Matrix(s, r, c) if Self::mat_rep(*s, *r, *c) == MatRep::Rows)
    }

    fn is_ir_mat(&self, ty: TyId) -> bool {
        matches!(self.types().kind(ty), TyKind::Matrix(s, r, c) if Self::mat_rep(*s, *r, *c) == MatRep::Mat)
    }

    /// Applies `f` to each row of a matrix value, building a matrix of HLSL type `rty`.
    fn map_rows1(
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

    fn map_rows2(
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
            && super::lower_entry::is_ray_tracing(stage)
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

    // ---- intrinsics ---------------------------------------------------------------------------

    /// A pointer for an `out` argument of an intrinsic: the place's own pointer, or a
    /// temporary copied back afterwards.
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

    fn intrinsic(&mut self, op: IntrinsicOp, args: &[Expr], e: &Expr) -> InstId {
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

    // ---- resource methods ---------------------------------------------------------------------

    /// A [`ResMethod::TexRead`]: the IR read with its optional operands; a status output
    /// makes the result a `{u32 status, texel}` struct (sparse residency), whose status goes
    /// to the `out` argument.
    #[allow(clippy::too_many_arguments)]
    fn tex_read(
        &mut self,
        res: InstId,
        okind: &TyKind,
        read: TexRead,
        offsets: u8,
        clamp: bool,
        status: bool,
        args: &[Expr],
        e: &Expr,
    ) -> InstId {
        let rt = self.ir_ty(e.ty);
        let TyKind::Texture(shape, _, rw) = *okind else {
            return self.m.undef(rt);
        };
        let mut ops = vec![res];
        let mut k;
        if read == TexRead::Load {
            let loc = self.rvalue(&args[0]);
            k = 1;
            let sampled = !rw && !matches!(shape, TexShape::Buffer);
            if sampled && !shape.ms() {
                // The mip level is the last component of the location.
                let n = shape.coord_len() as u32;
                let coord = if n == 1 {
                    self.bld().extract(loc, &[0])
                } else {
                    let idx: Vec<u32> = (0..n).collect();
                    self.bld().shuffle(loc, loc, &idx)
                };
                let lod = self.bld().extract(loc, &[n]);
                ops.push(coord);
                ops.push(lod);
            } else if shape.ms() {
                ops.push(loc);
                ops.push(self.rvalue(&args[1]));
                k = 2;
            } else {
                ops.push(loc);
            }
        } else {
            let Some(s) = self.resource_ptr(&args[0]) else {
                return self.m.undef(rt);
            };
            ops.push(s);
            ops.push(self.rvalue(&args[1]));
            k = 2;
            if let TexRead::Gather(c) = read {
                ops.push(self.m.imm(c as u32));
            }
        }
        for _ in 0..read.fixed() {
            ops.push(self.rvalue(&args[k]));
            k += 1;
        }
        match offsets {
            0 if clamp => {
                // A clamp without an offset: a zero offset means none.
                let i = self.m.i32_type();
                let n = shape.offset_len().max(2) as u32;
                let t = self.m.vector_type(i, n);
                ops.push(self.m.zero(t));
            }
            0 => {}
            1 => {
                ops.push(self.rvalue(&args[k]));
                k += 1;
            }
            _ => {
                // Four offsets, one per gathered texel.
                let parts: Vec<InstId> = (0..4).map(|j| self.rvalue(&args[k + j])).collect();
                k += 4;
                let i = self.m.i32_type();
                let i2 = self.m.vector_type(i, 2);
                let arr = self.m.array_type(i2, 4);
                ops.push(self.construct(arr, &parts));
            }
        }
        if clamp {
            ops.push(self.rvalue(&args[k]));
            k += 1;
        }
        let op = match read {
            TexRead::Sample => Op::Sample,
            TexRead::SampleBias => Op::SampleBias,
            TexRead::SampleLevel => Op::SampleLevel,
            TexRead::SampleGrad => Op::SampleGrad,
            TexRead::SampleCmp => Op::SampleCmp,
            TexRead::SampleCmpLevelZero => Op::SampleCmpLevelZero,
            TexRead::SampleCmpLevel => Op::SampleCmpLevel,
            TexRead::SampleCmpBias => Op::SampleCmpBias,
            TexRead::SampleCmpGrad => Op::SampleCmpGrad,
            TexRead::Gather(_) => Op::Gather,
            TexRead::GatherCmp => Op::GatherCmp,
            TexRead::Load => Op::TextureLoad,
        };
        if !status {
            return self.bld().texture_op(op, rt, &ops);
        }
        let sparse = self.sparse_struct(rt);
        let r = self.bld().texture_op(op, sparse, &ops);
        let code = self.bld().extract(r, &[0]);
        let place = &args[k];
        let pl = self.place(place);
        // Sema interned `uint` when it checked the status argument.
        let code = match self.find_type(&TyKind::Scalar(Scalar::U32)) {
            Some(uint) => self.coerce(code, uint, place.ty),
            None => code,
        };
        self.store_place(pl, code);
        self.bld().extract(r, &[1])
    }

    /// The `{u32 status, T texel}` struct of a sparse read of texel type `texel` (one per
    /// texel type).
    fn sparse_struct(&mut self, texel: InstId) -> InstId {
        if let Some(&s) = self.sparse_structs.get(&texel) {
            return s;
        }
        let u = self.m.u32_type();
        let s = self.m.add_struct("SparseResidencyStruct", &[]);
        self.m.add_field(s, "status", u);
        self.m.add_field(s, "texel", texel);
        self.sparse_structs.insert(texel, s.id());
        s.id()
    }

    fn method(&mut self, m: ResMethod, obj: &Expr, args: &[Expr], e: &Expr) -> InstId {
        if matches!(
            m,
            ResMethod::StreamAppend
                | ResMethod::StreamRestart
                | ResMethod::RayQueryInit
                | ResMethod::RayQueryProceed
                | ResMethod::RayQueryAbort
                | ResMethod::RayQueryCommitTriangle
                | ResMethod::RayQueryCommitProcedural
                | ResMethod::RayQueryGet(..)
        ) {
            return self.stage_method(m, obj, args, e);
        }
        let rt = self.ir_ty(e.ty);
        let void = self.m.void_type();
        let undef_void = self.m.undef(void);
        let Some(res) = self.resource_ptr(obj) else {
            return self.m.undef(rt);
        };
        let okind = self.types().kind(obj.ty).clone();
        match m {
            // Handled above.
            ResMethod::StreamAppend
            | ResMethod::StreamRestart
            | ResMethod::RayQueryInit
            | ResMethod::RayQueryProceed
            | ResMethod::RayQueryAbort
            | ResMethod::RayQueryCommitTriangle
            | ResMethod::RayQueryCommitProcedural
            | ResMethod::RayQueryGet(..) => self.m.undef(rt),
            ResMethod::TexRead {
                read,
                offsets,
                clamp,
                status,
            } => self.tex_read(res, &okind, read, offsets, clamp, status, args, e),
            ResMethod::Sample
            | ResMethod::SampleBias
            | ResMethod::SampleLevel
            | ResMethod::SampleGrad
            | ResMethod::SampleCmp
            | ResMethod::SampleCmpLevelZero
            | ResMethod::GatherCmp => {
                let Some(s) = self.resource_ptr(&args[0]) else {
                    return self.m.undef(rt);
                };
                let mut ops = vec![res, s];
                for a in &args[1..] {
                    ops.push(self.rvalue(a));
                }
                let op = match m {
                    ResMethod::Sample => Op::Sample,
                    ResMethod::SampleBias => Op::SampleBias,
                    ResMethod::SampleLevel => Op::SampleLevel,
                    ResMethod::SampleGrad => Op::SampleGrad,
                    ResMethod::SampleCmp => Op::SampleCmp,
                    ResMethod::SampleCmpLevelZero => Op::SampleCmpLevelZero,
                    _ => Op::GatherCmp,
                };
                self.bld().texture_op(op, rt, &ops)
            }
            ResMethod::Gather(c) => {
                let Some(s) = self.resource_ptr(&args[0]) else {
                    return self.m.undef(rt);
                };
                let coord = self.rvalue(&args[1]);
                let comp = self.m.imm(c as u32);
                let mut ops = vec![res, s, coord, comp];
                if let Some(o) = args.get(2) {
                    ops.push(self.rvalue(o));
                }
                self.bld().texture_op(Op::Gather, rt, &ops)
            }
            ResMethod::CalculateLod | ResMethod::CalculateLodUnclamped => {
                let Some(s) = self.resource_ptr(&args[0]) else {
                    return self.m.undef(rt);
                };
                let coord = self.rvalue(&args[1]);
                let f = self.m.f32_type();
                let f2 = self.m.vector_type(f, 2);
                let q = self.bld().texture_op(Op::QueryLod, f2, &[res, s, coord]);
                let k = if m == ResMethod::CalculateLod { 0 } else { 1 };
                self.bld().extract(q, &[k])
            }
            ResMethod::Load => match okind {
                TyKind::Texture(shape, _, rw) => {
                    let loc = self.rvalue(&args[0]);
                    let sampled = !rw && !matches!(shape, TexShape::Buffer);
                    let mut ops = vec![res];
                    if sampled && !shape.ms() {
                        // The mip level is the last component of the location.
                        let n = shape.coord_len() as u32;
                        let coord = if n == 1 {
                            self.bld().extract(loc, &[0])
                        } else {
                            let idx: Vec<u32> = (0..n).collect();
                            self.bld().shuffle(loc, loc, &idx)
                        };
                        let lod = self.bld().extract(loc, &[n]);
                        ops.push(coord);
                        ops.push(lod);
                        if let Some(o) = args.get(1) {
                            ops.push(self.rvalue(o));
                        }
                    } else if shape.ms() {
                        ops.push(loc);
                        ops.push(self.rvalue(&args[1]));
                        if let Some(o) = args.get(2) {
                            ops.push(self.rvalue(o));
                        }
                    } else {
                        ops.push(loc);
                    }
                    self.bld().texture_op(Op::TextureLoad, rt, &ops)
                }
                TyKind::Buffer(..) => {
                    let addr = self.rvalue(&args[0]);
                    self.byte_load(res, addr, e.ty, e)
                }
                _ => self.m.undef(rt),
            },
            ResMethod::Store => {
                let addr = self.rvalue(&args[0]);
                let v = self.rvalue(&args[1]);
                self.byte_store(res, addr, v, args[1].ty, e);
                undef_void
            }
            ResMethod::SubpassLoad => {
                let i = self.m.i32_type();
                let i2 = self.m.vector_type(i, 2);
                let z = self.m.zero(i2);
                let mut ops = vec![res, z];
                if let Some(s) = args.first() {
                    ops.push(self.rvalue(s));
                }
                self.bld().texture_op(Op::TextureLoad, rt, &ops)
            }
            ResMethod::GetDimensions => {
                self.get_dimensions(res, &okind, args);
                undef_void
            }
            ResMethod::Append
            | ResMethod::Consume
            | ResMethod::IncrementCounter
            | ResMethod::DecrementCounter => {
                let Some(g) = root_global(obj) else {
                    self.error(e.span, "a buffer counter needs the buffer global itself");
                    return self.m.undef(rt);
                };
                let Some(&c) = self.counters.get(&g) else {
                    self.error(e.span, "this buffer has no counter");
                    return self.m.undef(rt);
                };
                let z = self.m.const_u32(0);
                let cp = self.bld().element_addr(c, z);
                let delta = match m {
                    ResMethod::Append | ResMethod::IncrementCounter => 1u32,
                    _ => u32::MAX,
                };
                let d = self.m.const_u32(delta);
                let old = self.bld().atomic_rmw(AtomicOp::Add, cp, d);
                match m {
                    ResMethod::IncrementCounter => old,
                    ResMethod::DecrementCounter => {
                        let one = self.m.const_u32(1);
                        self.bld().sub(old, one)
                    }
                    ResMethod::Append => {
                        let v = self.rvalue(&args[0]);
                        let p = self.bld().element_addr(res, old);
                        self.bld().store(p, v);
                        undef_void
                    }
                    _ => {
                        let one = self.m.const_u32(1);
                        let idx = self.bld().sub(old, one);
                        let p = self.bld().element_addr(res, idx);
                        self.bld().load(p)
                    }
                }
            }
            ResMethod::Atomic(aop) => {
                let addr = self.rvalue(&args[0]);
                let two = self.m.const_u32(2);
                let idx = self.bld().shr(addr, two);
                let p = self.bld().element_addr(res, idx);
                let mut v = self.rvalue(&args[1]);
                let u = self.m.u32_type();
                let signed = self.m.ty(v) != Some(u);
                if signed {
                    if matches!(aop, AtomicOp::Min | AtomicOp::Max) {
                        self.error(
                            e.span,
                            "signed InterlockedMin/Max on a byte-address buffer is not supported",
                        );
                    }
                    v = self.bld().bitcast(v, u);
                }
                let old = self.bld().atomic_rmw(aop, p, v);
                if let Some(o) = args.get(2) {
                    let ut = self.find_type(&TyKind::Scalar(Scalar::U32)).unwrap_or(o.ty);
                    let old = self.coerce(old, ut, o.ty);
                    let pl = self.place(o);
                    self.store_place(pl, old);
                }
                undef_void
            }
            ResMethod::AtomicCmpXchg | ResMethod::AtomicCmpStore => {
                let addr = self.rvalue(&args[0]);
                let two = self.m.const_u32(2);
                let idx = self.bld().shr(addr, two);
                let p = self.bld().element_addr(res, idx);
                let c = self.rvalue(&args[1]);
                let v = self.rvalue(&args[2]);
                let old = self.bld().atomic_cmpxchg(p, c, v);
                if let Some(o) = args.get(3) {
                    let ut = self.find_type(&TyKind::Scalar(Scalar::U32)).unwrap_or(o.ty);
                    let old = self.coerce(old, ut, o.ty);
                    let pl = self.place(o);
                    self.store_place(pl, old);
                }
                undef_void
            }
            ResMethod::GetSamplePosition => self.sample_position(res, &args[0]),
            ResMethod::SampleCmpLevel => {
                self.error(e.span, "this texture method cannot be lowered");
                self.m.undef(rt)
            }
        }
    }

    /// `GetSamplePosition(i)`: the texture's sample count picks one of D3D's standard
    /// patterns (in sixteenths of a pixel), kept in one table `[1 sample, 2, 4, 8, 16]` so that
    /// the pattern of `n` samples starts at entry `n - 1`; a count without a standard pattern,
    /// or an index past it, gives `(0, 0)` (entry 0, the one-sample position).
    fn sample_position(&mut self, res: InstId, index: &Expr) -> InstId {
        const PATTERNS: [(i8, i8); 31] = [
            (0, 0),
            (4, 4),
            (-4, -4),
            (-2, -6),
            (6, -2),
            (-6, 2),
            (2, 6),
            (1, -3),
            (-1, 3),
            (5, 1),
            (-3, -5),
            (-5, 5),
            (-7, -1),
            (3, 7),
            (7, -7),
            (1, 1),
            (-1, -3),
            (-3, 2),
            (4, -1),
            (-5, -2),
            (2, 5),
            (5, 3),
            (3, -5),
            (-2, 6),
            (0, -7),
            (-4, -6),
            (-6, 4),
            (-8, 0),
            (7, -4),
            (6, 7),
            (-7, -8),
        ];
        let f = self.m.f32_type();
        let f2 = self.m.vector_type(f, 2);
        let table = match self.sample_positions {
            Some(t) => t,
            None => {
                let entries: Vec<InstId> = PATTERNS
                    .iter()
                    .map(|&(x, y)| {
                        let cx = self
                            .m
                            .const_float_bits(f, (x as f32 / 16.0).to_bits() as u64);
                        let cy = self
                            .m
                            .const_float_bits(f, (y as f32 / 16.0).to_bits() as u64);
                        self.m.const_composite(f2, &[cx, cy])
                    })
                    .collect();
                let arr = self.m.array_type(f2, PATTERNS.len() as u32);
                let init = self.m.const_composite(arr, &entries);
                let g = self.m.add_global(
                    "standard.sample.positions",
                    oneshader_ir::AddressSpace::Private,
                    arr,
                    Some(init),
                );
                self.sample_positions = Some(g.id());
                g.id()
            }
        };
        let u = self.m.u32_type();
        let count = self.bld().texture_op(Op::QuerySamples, u, &[res]);
        let i = self.rvalue(index);
        let i = self.bld().convert(i, u);
        let mut standard = None;
        for n in [1u32, 2, 4, 8, 16] {
            let k = self.m.const_u32(n);
            let is = self.bld().cmp(Op::Eq, count, k);
            standard = Some(match standard {
                None => is,
                Some(acc) => self.bld().or(acc, is),
            });
        }
        let in_range = self.bld().cmp(Op::Lt, i, count);
        let valid = match standard {
            Some(s) => self.bld().and(s, in_range),
            None => in_range,
        };
        let one = self.m.const_u32(1);
        let start = self.bld().sub(count, one);
        let at = self.bld().add(start, i);
        let zero = self.m.const_u32(0);
        let idx = self.bld().select(valid, at, zero);
        let p = self.bld().element_addr(table, idx);
        self.bld().load(p)
    }

    fn get_dimensions(&mut self, res: InstId, okind: &TyKind, args: &[Expr]) {
        let mip = matches!(args[0].kind, ExprKind::Const(ConstVal::Bool(true)));
        let outs = &args[1 + mip as usize..];
        let u = self.m.u32_type();
        let ut = self.find_type(&TyKind::Scalar(Scalar::U32));
        let mut values: Vec<InstId> = Vec::new();
        match okind {
            TyKind::Texture(shape, _, rw) => {
                let n = (shape.dims() + shape.arrayed() as u8
                    - matches!(shape, TexShape::Cube | TexShape::CubeArray) as u8)
                    as u32;
                let st = if n == 1 { u } else { self.m.vector_type(u, n) };
                let mut ops = vec![res];
                let sampled = !rw && !matches!(shape, TexShape::Buffer);
                if mip {
                    ops.push(self.rvalue(&args[1]));
                } else if sampled && !shape.ms() {
                    ops.push(self.m.const_u32(0));
                }
                let size = self.bld().texture_op(Op::QuerySize, st, &ops);
                for i in 0..n {
                    values.push(if n == 1 {
                        size
                    } else {
                        self.bld().extract(size, &[i])
                    });
                }
                if shape.ms() {
                    values.push(self.bld().texture_op(Op::QuerySamples, u, &[res]));
                } else if mip {
                    values.push(self.bld().texture_op(Op::QueryLevels, u, &[res]));
                }
            }
            TyKind::Buffer(kind, elem) => {
                let len = self.bld().array_length(res);
                match kind {
                    BufKind::ByteAddress | BufKind::RWByteAddress => {
                        let four = self.m.const_u32(4);
                        values.push(self.bld().mul(len, four));
                    }
                    _ => {
                        values.push(len);
                        let et = self.ir_ty(*elem);
                        let stride = type_layout(&self.m, et, LayoutRule::RelaxedStd430, false)
                            .map(|l| l.size.div_ceil(l.align.max(1)) * l.align.max(1))
                            .unwrap_or(4);
                        values.push(self.m.const_u32(stride));
                    }
                }
            }
            _ => {}
        }
        for (o, v) in outs.iter().zip(values) {
            let v = match ut {
                Some(ut) => self.coerce(v, ut, o.ty),
                None => v,
            };
            let pl = self.place(o);
            self.store_place(pl, v);
        }
    }

    /// `Load`/`Load<T>` from a byte-address buffer at byte offset `addr`.
    fn byte_load(&mut self, buf: InstId, addr: InstId, ty: TyId, e: &Expr) -> InstId {
        let t = self.ir_ty(ty);
        match self.types().kind(ty).clone() {
            TyKind::Scalar(s) | TyKind::Vector(s, _) if s.bits() == 32 && s != Scalar::Bool => {
                self.bld().buffer_load(buf, addr, t)
            }
            TyKind::Scalar(Scalar::Bool) | TyKind::Vector(Scalar::Bool, _) => {
                let n = self.types().vec_len(ty).unwrap_or(1);
                let u = self.types_scalar_vec(Scalar::U32, n);
                let raw = self.bld().buffer_load(buf, addr, u);
                let z = self.m.zero(u);
                self.bld().cmp(Op::Ne, raw, z)
            }
            TyKind::Scalar(s) | TyKind::Vector(s, _) if matches!(s.bits(), 16 | 64) => {
                // 64-bit: two words; 16-bit: half of a word. Component by component.
                let n = self.types().vec_len(ty).unwrap_or(1);
                let size = s.bits() / 8;
                let mut parts = Vec::new();
                for k in 0..n as u32 {
                    let off = self.m.const_u32(k * size);
                    let a = self.bld().add(addr, off);
                    parts.push(self.byte_load_scalar(buf, a, s));
                }
                if n == 1 {
                    parts[0]
                } else {
                    self.construct(t, &parts)
                }
            }
            TyKind::Array(el, n) => {
                let size = self.byte_size(el);
                let mut parts = Vec::new();
                for i in 0..n {
                    let off = self.m.const_u32(i * size);
                    let a = self.bld().add(addr, off);
                    parts.push(self.byte_load(buf, a, el, e));
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
                let mut off = 0;
                for ft in ftys {
                    let o = self.m.const_u32(off);
                    let a = self.bld().add(addr, o);
                    parts.push(self.byte_load(buf, a, ft, e));
                    off += self.byte_size(ft);
                }
                self.struct_value(sid, &parts)
            }
            TyKind::Matrix(s, r, c) if s != Scalar::Bool => {
                let mut leaves = Vec::new();
                let st = self.scalar_ir(s);
                let size = s.concrete().bits() / 8;
                for i in 0..(r as u32 * c as u32) {
                    let o = self.m.const_u32(i * size);
                    let a = self.bld().add(addr, o);
                    let x = if size == 4 {
                        self.bld().buffer_load(buf, a, st)
                    } else {
                        self.byte_load_scalar(buf, a, s)
                    };
                    leaves.push((x, s));
                }
                let mut it = leaves.into_iter();
                self.build(ty, &mut it)
            }
            _ => {
                let msg = format!(
                    "`Load<{}>` from a byte-address buffer is not supported",
                    self.types().name(ty)
                );
                self.error(e.span, msg);
                self.m.undef(t)
            }
        }
    }

    /// `Store`/`Store<T>` into a byte-address buffer.
    fn byte_store(&mut self, buf: InstId, addr: InstId, v: InstId, ty: TyId, e: &Expr) {
        match self.types().kind(ty).clone() {
            TyKind::Scalar(s) | TyKind::Vector(s, _) if s.bits() == 32 && s != Scalar::Bool => {
                self.bld().buffer_store(buf, addr, v);
            }
            TyKind::Scalar(s) | TyKind::Vector(s, _) if matches!(s.bits(), 16 | 64) => {
                let n = self.types().vec_len(ty).unwrap_or(1);
                let size = s.bits() / 8;
                for k in 0..n as u32 {
                    let x = if n == 1 {
                        v
                    } else {
                        self.bld().extract(v, &[k])
                    };
                    let off = self.m.const_u32(k * size);
                    let a = self.bld().add(addr, off);
                    self.byte_store_scalar(buf, a, x, s);
                }
            }
            TyKind::Array(el, n) => {
                let size = self.byte_size(el);
                for i in 0..n {
                    let off = self.m.const_u32(i * size);
                    let a = self.bld().add(addr, off);
                    let x = self.bld().extract(v, &[i]);
                    self.byte_store(buf, a, x, el, e);
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
                let mut off = 0;
                for (i, ft) in ftys.into_iter().enumerate() {
                    let o = self.m.const_u32(off);
                    let a = self.bld().add(addr, o);
                    let path = self.field_path(ty, i as u32);
                    let x = self.bld().extract(v, &path);
                    self.byte_store(buf, a, x, ft, e);
                    off += self.byte_size(ft);
                }
            }
            TyKind::Matrix(s, r, c) if s != Scalar::Bool => {
                let size = s.concrete().bits() / 8;
                let mut k = 0;
                for i in 0..r {
                    for j in 0..c {
                        let x = self.mat_elem_value(v, ty, i, j);
                        let o = self.m.const_u32(k * size);
                        let a = self.bld().add(addr, o);
                        if size == 4 {
                            self.bld().buffer_store(buf, a, x);
                        } else {
                            self.byte_store_scalar(buf, a, x, s);
                        }
                        k += 1;
                    }
                }
            }
            _ => {
                let msg = format!(
                    "`Store` of `{}` into a byte-address buffer is not supported",
                    self.types().name(ty)
                );
                self.error(e.span, msg);
            }
        }
    }

    /// A 16- or 64-bit scalar from a byte-address buffer, through 32-bit words.
    fn byte_load_scalar(&mut self, buf: InstId, addr: InstId, s: Scalar) -> InstId {
        let u = self.m.u32_type();
        let st = self.scalar_ir(s);
        if s.bits() == 64 {
            let four = self.m.const_u32(4);
            let a1 = self.bld().add(addr, four);
            let lo = self.bld().buffer_load(buf, addr, u);
            let hi = self.bld().buffer_load(buf, a1, u);
            let u2 = self.m.vector_type(u, 2);
            let pair = self.construct(u2, &[lo, hi]);
            return self.bld().bitcast(pair, st);
        }
        // 16 bits: the half of the word the address selects.
        let word = self.bld().buffer_load(buf, addr, u);
        let two = self.m.const_u32(2);
        let three = self.m.const_u32(3);
        let half = self.bld().and(addr, two);
        let shift = self.bld().shl(half, three);
        let bits = self.bld().shr(word, shift);
        let u16t = self.m.int_type(16, false);
        let narrow = self.bld().convert(bits, u16t);
        if s == Scalar::U16 {
            narrow
        } else {
            self.bld().bitcast(narrow, st)
        }
    }

    /// Stores a 16- or 64-bit scalar into a byte-address buffer through 32-bit words (a
    /// 16-bit store rewrites its half of the word, not atomically, like DXC).
    fn byte_store_scalar(&mut self, buf: InstId, addr: InstId, v: InstId, s: Scalar) {
        let u = self.m.u32_type();
        if s.bits() == 64 {
            let u2 = self.m.vector_type(u, 2);
            let pair = self.bld().bitcast(v, u2);
            let lo = self.bld().extract(pair, &[0]);
            let hi = self.bld().extract(pair, &[1]);
            let four = self.m.const_u32(4);
            let a1 = self.bld().add(addr, four);
            self.bld().buffer_store(buf, addr, lo);
            self.bld().buffer_store(buf, a1, hi);
            return;
        }
        let u16t = self.m.int_type(16, false);
        let bits16 = if s == Scalar::U16 {
            v
        } else {
            self.bld().bitcast(v, u16t)
        };
        let wide = self.bld().convert(bits16, u);
        let two = self.m.const_u32(2);
        let three = self.m.const_u32(3);
        let half = self.bld().and(addr, two);
        let shift = self.bld().shl(half, three);
        let placed = self.bld().shl(wide, shift);
        let ffff = self.m.const_u32(0xffff);
        let mask = self.bld().shl(ffff, shift);
        let keep = self.bld().not(mask);
        let word = self.bld().buffer_load(buf, addr, u);
        let kept = self.bld().and(word, keep);
        let merged = self.bld().or(kept, placed);
        self.bld().buffer_store(buf, addr, merged);
    }

    /// Bytes of a type in a byte-address buffer (tightly packed 32-bit data).
    fn byte_size(&self, ty: TyId) -> u32 {
        match self.types().kind(ty) {
            TyKind::Scalar(s) => s.concrete().bits() / 8,
            TyKind::Vector(s, n) => s.concrete().bits() / 8 * *n as u32,
            TyKind::Matrix(s, r, c) => s.concrete().bits() / 8 * (*r as u32) * (*c as u32),
            TyKind::Array(e, n) => self.byte_size(*e) * n,
            TyKind::Struct(sid) => self
                .types()
                .struct_def(*sid)
                .fields
                .iter()
                .map(|f| self.byte_size(f.ty))
                .sum(),
            _ => 4,
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
fn root_global(e: &Expr) -> Option<GlobalId> {
    match &e.kind {
        ExprKind::Global(g) => Some(*g),
        ExprKind::Cast(_, x) => root_global(x),
        _ => None,
    }
}

/// True when an expression mentions `NonUniformResourceIndex`.
pub fn contains_nonuniform(e: &Expr) -> bool {
    let mut found = false;
    super::sema_stmt::visit(e, &mut |x| {
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
    super::sema_stmt::visit(e, &mut |x| match &x.kind {
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
