//! Storage forms: host-shared memory that holds a type in another form than the IR's values.
//!
//! Some targets cannot store a type the way the IR's values hold it. No target stores a `bool`
//! where a host reads it (DXC stores a `u32`, see `bool_storage`), and WGSL stores matrices only
//! as columns, which are HLSL's rows, so a column-major HLSL matrix is stored as its transpose
//! (see `transpose_storage`). A [`Form`] says which leaf types (scalars, vectors, matrices;
//! never arrays or structs) memory holds differently and how a value converts; [`rewrite`]
//! applies it to every `uniform`, `storage_buffer`, `push_constant` and `shader_record` global
//! whose contents hold such a leaf:
//!
//! - the global's type becomes its storage form: an array holds the storage form of its
//!   element, a struct becomes a copy (named like the original, placed right after it) whose
//!   fields have their storage form and keep their decorations ([`Form::mark`] adjusts those
//!   of a field or global whose leaves changed); the original type stays for values;
//! - access chains (`field_addr`, `element_addr`) from the global are retyped;
//! - a `load` reads the storage form and converts to the value form, a `store` converts to the
//!   storage form first; whole arrays and structs convert element by element;
//! - an `element_addr` into a leaf its storage form does not index the same way (a transposed
//!   matrix) is the form's to rewrite ([`Form::leaf_element`]);
//! - `array_length` stays; any other use of a pointer whose pointee changes form is refused;
//! - last, a store whose converted value is exactly a value loaded in the storage form (a
//!   buffer-to-buffer copy through conversions that cancel: `transpose` twice, `construct`
//!   of every `extract`) stores the loaded value, and the dead conversions are removed. A
//!   bool's do not cancel (`!= 0` then `select 1, 0` normalizes the word), so a bool copy keeps them.
//!
//! Which matrices are row-major follows the IR's layout rules
//! ([`oneshader_ir::layout::is_row_major`]): a field's or global's own decoration.

use rustc_hash::FxHashMap;

use oneshader_ir::layout::is_row_major;
use oneshader_ir::{AddressSpace, Builder, InsertPoint, InstId, Module, Op, Slot};

use crate::PassError;

/// How one storage form stores its leaves.
pub(crate) trait Form {
    /// The pass's name (in its errors).
    fn name(&self) -> &'static str;

    /// True when leaf `ty` (not an array or struct), in memory whose matrices are row-major
    /// when `row_major`, is stored in another form.
    fn changes_leaf(&self, m: &Module, ty: InstId, row_major: bool) -> bool;

    /// The storage form of a leaf `changes_leaf` holds for.
    fn storage_leaf(&self, m: &mut Module, ty: InstId) -> InstId;

    /// Emits, at `at`, leaf value `v` converted from value type `ty` to storage type `st`
    /// (`into_storage`), or from `st` back to `ty`.
    fn convert(
        &self,
        m: &mut Module,
        at: InsertPoint,
        v: InstId,
        ty: InstId,
        st: InstId,
        into_storage: bool,
    ) -> InstId;

    /// Adjusts the decorations of a field or global whose leaves (possibly inside arrays) now
    /// have their storage form.
    fn mark(&self, _m: &mut Module, _target: InstId) {}

    /// Rewrites `ea`, an `element_addr` into a changed leaf whose base pointer already has
    /// the storage type, and every use of it; `Ok(false)` when indexing the storage form is
    /// the same as indexing the value (then `ea` is retyped like any access chain).
    fn leaf_element(&self, _m: &mut Module, _ea: InstId) -> Result<bool, PassError> {
        Ok(false)
    }
}

/// Address spaces a host reads or writes: where storage forms apply.
pub(crate) fn host_shared(space: Option<AddressSpace>) -> bool {
    matches!(
        space,
        Some(
            AddressSpace::Uniform
                | AddressSpace::StorageBuffer
                | AddressSpace::PushConstant
                | AddressSpace::ShaderRecord
        )
    )
}

/// True when `ty` (in memory whose matrices are row-major when `row_major`) holds a leaf `form`
/// stores differently, as an array element or (with the field's own majorness) a field.
pub(crate) fn changes(form: &impl Form, m: &Module, ty: InstId, row_major: bool) -> bool {
    let mut stack = vec![(ty, row_major, 0u32)];
    while let Some((t, rm, depth)) = stack.pop() {
        if depth > 64 {
            continue;
        }
        match m.try_op(t) {
            Some(Op::Array | Op::RuntimeArray) => stack.push((m.operand(t, 0), rm, depth + 1)),
            Some(Op::Struct) => {
                for f in m.struct_fields(t) {
                    if let Some(ft) = m.ty(f) {
                        stack.push((ft, is_row_major(m, f), depth + 1));
                    }
                }
            }
            Some(_) if form.changes_leaf(m, t, rm) => return true,
            _ => {}
        }
    }
    false
}

/// The first host-shared global of `m` whose contents hold a leaf `form` stores differently:
/// what a module the pass ran on no longer has.
pub(crate) fn first_changed_global(form: &impl Form, m: &Module) -> Option<InstId> {
    m.globals().into_iter().map(|g| g.id()).find(|&g| {
        m.ty(g).is_some_and(|t| {
            host_shared(m.address_space(t))
                && m.pointee(t)
                    .is_some_and(|p| changes(form, m, p, is_row_major(m, g)))
        })
    })
}

/// Rewrites every host-shared global whose contents change form (see the module docs);
/// returns whether anything changed.
pub(crate) fn rewrite(form: &impl Form, m: &mut Module) -> Result<bool, PassError> {
    let mut r = Rewriter {
        m,
        form,
        storage: FxHashMap::default(),
        converted_stores: Vec::new(),
    };
    let mut changed = false;
    // Each global is rewritten once; a global found twice would loop forever.
    let mut done = rustc_hash::FxHashSet::default();
    while let Some(g) = first_changed_global(form, r.m) {
        if !done.insert(g) {
            return Err(PassError::new(
                form.name(),
                format!(
                    "@{} still holds memory in another form after its rewrite",
                    r.m.name(g).unwrap_or("?")
                ),
            ));
        }
        r.global(g)?;
        changed = true;
    }
    // A store of a value just loaded from memory of the same form (a buffer-to-buffer copy)
    // converted twice: store what was loaded.
    for store in std::mem::take(&mut r.converted_stores) {
        if !r.m.contains(store) {
            continue;
        }
        let v = r.m.operand(store, 1);
        let src = exact_source(r.m, v, 0);
        if src != v && r.m.ty(src) == r.m.ty(v) {
            r.m.replace_operand(store, 1, src);
            remove_dead_conversions(r.m, v);
        }
    }
    Ok(changed)
}

/// The value `v` is exactly, through the conversions a storage form emits: `extract` of a
/// `construct`, `transpose` of a `transpose`, and a `construct` of every element of one
/// value of its own type in order. `v` itself when none applies.
fn exact_source(m: &Module, v: InstId, depth: u32) -> InstId {
    if depth > 64 {
        return v;
    }
    match m.op(v) {
        Op::Extract if m.num_operands(v) == 2 => {
            let c = exact_source(m, m.operand(v, 0), depth + 1);
            let k = m.imm_operand(v, 1).unwrap_or(u32::MAX) as usize;
            if m.op(c) == Op::Construct && k < m.num_operands(c) {
                exact_source(m, m.operand(c, k), depth + 1)
            } else {
                v
            }
        }
        Op::CallIntrinsic if is_transpose(m, v) => {
            let inner = exact_source(m, m.operand(v, 1), depth + 1);
            if is_transpose(m, inner) && m.ty(m.operand(inner, 1)) == m.ty(v) {
                exact_source(m, m.operand(inner, 1), depth + 1)
            } else {
                v
            }
        }
        Op::Construct if matches!(m.ty(v).map(|t| m.op(t)), Some(Op::Struct | Op::Array)) => {
            let mut whole = None;
            for k in 0..m.num_operands(v) {
                let e = exact_source(m, m.operand(v, k), depth + 1);
                let from = (m.op(e) == Op::Extract
                    && m.num_operands(e) == 2
                    && m.imm_operand(e, 1) == Some(k as u32))
                .then(|| m.operand(e, 0));
                match (from, whole) {
                    (Some(w), None) => whole = Some(w),
                    (Some(w), Some(x)) if w == x => {}
                    _ => return v,
                }
            }
            match whole {
                Some(w) if m.ty(w) == m.ty(v) => w,
                _ => v,
            }
        }
        _ => v,
    }
}

fn is_transpose(m: &Module, v: InstId) -> bool {
    m.op(v) == Op::CallIntrinsic
        && m.imm_operand(v, 0) == Some(oneshader_ir::Intrinsic::Transpose.to_u32())
}

/// Removes `v` and the conversions feeding it (`construct`, `extract`, `transpose`) that
/// nothing uses any more.
fn remove_dead_conversions(m: &mut Module, v: InstId) {
    let mut work = vec![v];
    while let Some(x) = work.pop() {
        if !m.contains(x)
            || m.has_uses(x)
            || !(matches!(m.op(x), Op::Construct | Op::Extract) || is_transpose(m, x))
            || m.func_of(x).is_none()
        {
            continue;
        }
        let ops: Vec<InstId> = m.operands(x).collect();
        if m.remove(x).is_ok() {
            work.extend(ops);
        }
    }
}

/// True when `ty`, with its arrays peeled, is not a struct: a field or global of that type
/// takes [`Form::mark`] when it changes.
fn leaves_only(m: &Module, mut ty: InstId) -> bool {
    while matches!(m.try_op(ty), Some(Op::Array | Op::RuntimeArray)) {
        ty = m.operand(ty, 0);
    }
    m.try_op(ty) != Some(Op::Struct)
}

/// Rewrites types and converts values; `storage` memoizes the storage form of each (type,
/// majorness).
struct Rewriter<'m, 'f, F: Form> {
    m: &'m mut Module,
    form: &'f F,
    storage: FxHashMap<(InstId, bool), InstId>,
    /// The stores whose value this rewrite converted into the storage form.
    converted_stores: Vec<InstId>,
}

impl<F: Form> Rewriter<'_, '_, F> {
    /// The storage form of `ty` in memory whose matrices are row-major when `row_major`.
    fn storage_type(&mut self, ty: InstId, row_major: bool) -> InstId {
        // A struct's fields carry their own majorness.
        let key = (ty, row_major && self.m.op(ty) != Op::Struct);
        if let Some(&t) = self.storage.get(&key) {
            return t;
        }
        let out = if !changes(self.form, self.m, ty, row_major) {
            ty
        } else {
            match self.m.op(ty) {
                Op::Array => {
                    let n = self.m.array_len(ty).unwrap_or(1);
                    let e = self.m.operand(ty, 0);
                    let e = self.storage_type(e, row_major);
                    self.m.array_type(e, n)
                }
                Op::RuntimeArray => {
                    let e = self.m.operand(ty, 0);
                    let e = self.storage_type(e, row_major);
                    self.m.runtime_array_type(e)
                }
                Op::Struct => self.storage_struct(ty),
                _ => self.form.storage_leaf(self.m, ty),
            }
        };
        self.storage.insert(key, out);
        out
    }

    /// A copy of struct `st` with every field in its storage form, decorations kept (and
    /// marked where the field's leaves changed), placed right after the original.
    fn storage_struct(&mut self, st: InstId) -> InstId {
        let fields = self.m.struct_fields(st);
        let mut new_fields: Vec<(String, InstId)> = Vec::with_capacity(fields.len());
        for &f in &fields {
            let name = self.m.name(f).unwrap_or("").to_string();
            let ft = self.m.ty(f).unwrap_or(st);
            let rm = is_row_major(self.m, f);
            let nt = self.storage_type(ft, rm);
            new_fields.push((name, nt));
        }
        let name = self.m.name(st).unwrap_or("S").to_string();
        let refs: Vec<(&str, InstId)> = new_fields.iter().map(|(n, t)| (n.as_str(), *t)).collect();
        let copy = self.m.add_struct(&name, &refs).id();
        self.m.move_after(copy, st);
        let copied = self.m.struct_fields(copy);
        for ((&from, &to), (_, nt)) in fields.iter().zip(&copied).zip(&new_fields) {
            let decos: Vec<InstId> = self.m.decorations(from).collect();
            for d in decos {
                let op = self.m.op(d);
                let ops = self.m.operands_vec(d);
                self.m.decorate(to, op, &ops);
            }
            let ft = self.m.ty(from).unwrap_or(st);
            if changes(self.form, self.m, ft, is_row_major(self.m, from))
                && leaves_only(self.m, *nt)
            {
                self.form.mark(self.m, to);
            }
        }
        copy
    }

    /// Emits, at `at`, value `v` converted between the value type `ty` and its storage form:
    /// into the storage form when `into_storage`, else from it (`v` then has the storage form).
    fn converted(
        &mut self,
        at: InsertPoint,
        v: InstId,
        ty: InstId,
        row_major: bool,
        into_storage: bool,
    ) -> InstId {
        // A square matrix's transpose has its own type: what changes is the content.
        if !changes(self.form, self.m, ty, row_major) {
            return v;
        }
        let st = self.storage_type(ty, row_major);
        let (from, to) = if into_storage { (ty, st) } else { (st, ty) };
        match self.m.op(ty) {
            Op::Array | Op::Struct => self.rebuild(at, v, from, to, into_storage, row_major),
            _ => self.form.convert(self.m, at, v, ty, st, into_storage),
        }
    }

    /// Converts an array or struct element by element: `v` has type `from`, the result `to`;
    /// `into_storage` says which way each element goes.
    fn rebuild(
        &mut self,
        at: InsertPoint,
        v: InstId,
        from: InstId,
        to: InstId,
        into_storage: bool,
        row_major: bool,
    ) -> InstId {
        let value_ty = if into_storage { from } else { to };
        // Each element's value type and majorness.
        let elems_of: Vec<(InstId, bool)> = match self.m.op(value_ty) {
            Op::Array => {
                let n = self.m.array_len(value_ty).unwrap_or(0);
                vec![(self.m.operand(value_ty, 0), row_major); n as usize]
            }
            _ => self
                .m
                .struct_fields(value_ty)
                .iter()
                .filter_map(|&f| Some((self.m.ty(f)?, is_row_major(self.m, f))))
                .collect(),
        };
        let mut elems = Vec::with_capacity(elems_of.len());
        for (i, &(et, rm)) in elems_of.iter().enumerate() {
            let e = {
                let mut b = Builder::new(self.m);
                b.set_point(at);
                b.extract(v, &[i as u32])
            };
            let c = self.converted(at, e, et, rm, into_storage);
            elems.push(c);
        }
        let mut b = Builder::new(self.m);
        b.set_point(at);
        b.construct(to, &elems)
    }

    /// Rewrites global `g` and every access through it.
    fn global(&mut self, g: InstId) -> Result<(), PassError> {
        let Some(ptr) = self.m.ty(g) else {
            return Ok(());
        };
        let (Some(space), Some(pointee)) = (self.m.address_space(ptr), self.m.pointee(ptr)) else {
            return Ok(());
        };
        let rm = is_row_major(self.m, g);
        let new_pointee = self.storage_type(pointee, rm);
        let new_ptr = self.m.ptr_type(space, new_pointee);
        self.m.set_type(g, Some(new_ptr));
        if leaves_only(self.m, new_pointee) {
            self.form.mark(self.m, g);
        }
        // Pointers derived from the global, with the type each pointed to before and the
        // majorness of the memory there.
        let mut work = vec![(g, pointee, rm)];
        while let Some((p, old, rm)) = work.pop() {
            for u in self.m.uses_snapshot(p) {
                let Slot::Operand(slot) = u.slot else {
                    continue;
                };
                let user = u.user;
                if !self.m.contains(user) {
                    continue;
                }
                let op = self.m.op(user);
                if op.is_decoration() {
                    continue;
                }
                match op {
                    Op::FieldAddr | Op::ElementAddr if slot == 0 => {
                        if op == Op::ElementAddr
                            && !matches!(self.m.op(old), Op::Array | Op::RuntimeArray)
                            && self.form.changes_leaf(self.m, old, rm)
                            && self.form.leaf_element(self.m, user)?
                        {
                            continue;
                        }
                        let Some(rt) = self.m.ty(user) else { continue };
                        let Some(elem) = self.m.pointee(rt) else {
                            continue;
                        };
                        let erm = if op == Op::FieldAddr {
                            let k = self.m.imm_operand(user, 1).unwrap_or(0) as usize;
                            self.m
                                .struct_fields(old)
                                .get(k)
                                .is_some_and(|&f| is_row_major(self.m, f))
                        } else {
                            rm
                        };
                        let ne = self.storage_type(elem, erm);
                        let np = self.m.ptr_type(space, ne);
                        self.m.set_type(user, Some(np));
                        work.push((user, elem, erm));
                    }
                    Op::Load => {
                        let value_ty = self.m.ty(user).unwrap_or(old);
                        if !changes(self.form, self.m, value_ty, rm) {
                            continue;
                        }
                        let st = self.storage_type(value_ty, rm);
                        let uses = self.m.uses_snapshot(user);
                        self.m.set_type(user, Some(st));
                        let Some(next) = self.m.next_sibling(user) else {
                            continue;
                        };
                        let v =
                            self.converted(InsertPoint::Before(next), user, value_ty, rm, false);
                        for u in uses {
                            if let Slot::Operand(i) = u.slot {
                                self.m.replace_operand(u.user, i as usize, v);
                            }
                        }
                    }
                    Op::Store if slot == 0 => {
                        let v = self.m.operand(user, 1);
                        let Some(vt) = self.m.ty(v) else { continue };
                        let nv = self.converted(InsertPoint::Before(user), v, vt, rm, true);
                        if nv != v {
                            self.m.replace_operand(user, 1, nv);
                            self.converted_stores.push(user);
                        }
                    }
                    Op::ArrayLength => {}
                    _ if !changes(self.form, self.m, old, rm) => {}
                    _ => {
                        return Err(PassError::new(
                            self.form.name(),
                            format!(
                                "`{}` uses a pointer into a buffer whose memory holds `{}` in \
                                 another form; only loads, stores and access chains can \
                                 (specialize resources first)",
                                oneshader_ir::print::print_inst(self.m, user),
                                oneshader_ir::print::print_inst(self.m, old),
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}
