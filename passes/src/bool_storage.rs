//! `bool_storage`: bools in host-shared memory are stored as `u32`.
//!
//! A `bool` has no size or bit pattern a host can share: SPIR-V gives `OpTypeBool` no layout,
//! WGSL calls it not host-shareable, and GLSL and MSL pick their own. DXC stores an HLSL
//! `bool` in a constant buffer, structured buffer or push constant as a 32-bit integer, 0 or 1,
//! and so does OneShader, for every target: this pass rewrites each `uniform`,
//! `storage_buffer` and `push_constant` global whose contents hold a bool so that the memory
//! holds `u32` (vectors of bools become vectors of `u32`, arrays and structs are rewritten
//! element by element: a struct holding a bool gets a copy with the bools replaced, its field
//! decorations kept, and the original stays for values), and converts at every access: a
//! `load` reads the `u32` form and turns it back into the bool form (`ne v, 0`), a `store`
//! turns a bool into `select b, 1, 0` first. Access chains into the global are retyped.
//!
//! It runs in every target's legalization ([`crate::legalize`]); afterwards
//! [`holds_shared_bools`] finds nothing, which the backends' boundary checks (OSG0005).

use rustc_hash::FxHashMap;

use oneshader_ir::{AddressSpace, Builder, InsertPoint, InstId, Module, Op, Slot};

use crate::{Pass, PassError};

const NAME: &str = "bool_storage";

/// The pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct BoolStorage;

/// Address spaces a host reads or writes: where bools are stored as `u32`.
fn host_shared(space: Option<AddressSpace>) -> bool {
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

/// True when `ty` is or holds a `bool` (as a vector component, array element or field).
fn holds_bool(m: &Module, ty: InstId) -> bool {
    let mut stack = vec![(ty, 0u32)];
    while let Some((t, depth)) = stack.pop() {
        if depth > 64 {
            continue;
        }
        match m.try_op(t) {
            Some(Op::Bool) => return true,
            Some(Op::Vector | Op::Array | Op::RuntimeArray) => {
                stack.push((m.operand(t, 0), depth + 1));
            }
            Some(Op::Struct) => {
                for f in m.struct_fields(t) {
                    if let Some(ft) = m.ty(f) {
                        stack.push((ft, depth + 1));
                    }
                }
            }
            _ => {}
        }
    }
    false
}

/// The first global of `m` in host-shared memory whose contents hold a bool: what a module
/// legalized for any target no longer has.
pub fn holds_shared_bools(m: &Module) -> Option<InstId> {
    m.globals().into_iter().map(|g| g.id()).find(|&g| {
        m.ty(g).is_some_and(|t| {
            host_shared(m.address_space(t)) && m.pointee(t).is_some_and(|p| holds_bool(m, p))
        })
    })
}

/// Rewrites types and converts values; `storage` memoizes the `u32` form of each type.
struct Rewriter<'m> {
    m: &'m mut Module,
    storage: FxHashMap<InstId, InstId>,
}

impl Rewriter<'_> {
    /// The form of `ty` in host-shared memory: every `bool` a `u32`.
    fn storage_type(&mut self, ty: InstId) -> InstId {
        if let Some(&t) = self.storage.get(&ty) {
            return t;
        }
        let m = &mut *self.m;
        let out = if !holds_bool(m, ty) {
            ty
        } else {
            match m.op(ty) {
                Op::Bool => m.int_type(32, false),
                Op::Vector => {
                    let n = m.vector_len(ty).unwrap_or(1);
                    let u = m.int_type(32, false);
                    m.vector_type(u, n)
                }
                Op::Array => {
                    let n = m.array_len(ty).unwrap_or(1);
                    let e = m.operand(ty, 0);
                    let e = self.storage_type(e);
                    self.m.array_type(e, n)
                }
                Op::RuntimeArray => {
                    let e = m.operand(ty, 0);
                    let e = self.storage_type(e);
                    self.m.runtime_array_type(e)
                }
                Op::Struct => self.storage_struct(ty),
                _ => ty,
            }
        };
        self.storage.insert(ty, out);
        out
    }

    /// A copy of struct `st` with every field in its storage form, decorations kept, placed
    /// right after the original.
    fn storage_struct(&mut self, st: InstId) -> InstId {
        let fields = self.m.struct_fields(st);
        let mut new_fields: Vec<(String, InstId)> = Vec::with_capacity(fields.len());
        for &f in &fields {
            let name = self.m.name(f).unwrap_or("").to_string();
            let ft = self.m.ty(f).unwrap_or(st);
            let nt = self.storage_type(ft);
            new_fields.push((name, nt));
        }
        let name = self.m.name(st).unwrap_or("S").to_string();
        let refs: Vec<(&str, InstId)> = new_fields.iter().map(|(n, t)| (n.as_str(), *t)).collect();
        let copy = self.m.add_struct(&name, &refs).id();
        self.m.move_after(copy, st);
        let copied = self.m.struct_fields(copy);
        for (&from, &to) in fields.iter().zip(&copied) {
            let decos: Vec<InstId> = self.m.decorations(from).collect();
            for d in decos {
                let op = self.m.op(d);
                let ops = self.m.operands_vec(d);
                self.m.decorate(to, op, &ops);
            }
        }
        copy
    }

    /// Emits, at `at`, the storage form of value `v` of type `ty`.
    fn store_form(&mut self, at: InsertPoint, v: InstId, ty: InstId) -> InstId {
        let st = self.storage_type(ty);
        if st == ty {
            return v;
        }
        match self.m.op(ty) {
            Op::Bool | Op::Vector => {
                let n = self.m.vector_len(ty).unwrap_or(1);
                let u = self.m.int_type(32, false);
                let one = self.m.const_int(u, 1);
                let ones = if n > 1 {
                    self.m.const_composite(st, &vec![one; n as usize])
                } else {
                    one
                };
                let zero = self.m.zero(st);
                let mut b = Builder::new(self.m);
                b.set_point(at);
                b.select(v, ones, zero)
            }
            _ => self.rebuild(at, v, ty, st, true),
        }
    }

    /// Emits, at `at`, the value form (type `ty`) of `v`, which has `ty`'s storage form.
    fn value_form(&mut self, at: InsertPoint, v: InstId, ty: InstId) -> InstId {
        let st = self.storage_type(ty);
        if st == ty {
            return v;
        }
        match self.m.op(ty) {
            Op::Bool | Op::Vector => {
                let zero = self.m.zero(st);
                let mut b = Builder::new(self.m);
                b.set_point(at);
                b.cmp(Op::Ne, v, zero)
            }
            _ => self.rebuild(at, v, st, ty, false),
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
    ) -> InstId {
        let (n, elem_types): (u32, Vec<InstId>) = match self.m.op(to) {
            Op::Array => {
                let n = self.m.array_len(to).unwrap_or(0);
                let value_elem = if into_storage {
                    self.m.operand(from, 0)
                } else {
                    self.m.operand(to, 0)
                };
                (n, vec![value_elem; n as usize])
            }
            _ => {
                let value_struct = if into_storage { from } else { to };
                let tys: Vec<InstId> = self
                    .m
                    .struct_fields(value_struct)
                    .iter()
                    .filter_map(|&f| self.m.ty(f))
                    .collect();
                (tys.len() as u32, tys)
            }
        };
        let mut elems = Vec::with_capacity(n as usize);
        for (i, &et) in elem_types.iter().enumerate() {
            let e = {
                let mut b = Builder::new(self.m);
                b.set_point(at);
                b.extract(v, &[i as u32])
            };
            let c = if into_storage {
                self.store_form(at, e, et)
            } else {
                self.value_form(at, e, et)
            };
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
        let new_pointee = self.storage_type(pointee);
        let new_ptr = self.m.ptr_type(space, new_pointee);
        self.m.set_type(g, Some(new_ptr));
        // Pointers derived from the global, with the type each pointed to before.
        let mut work = vec![(g, pointee)];
        while let Some((p, old)) = work.pop() {
            for u in self.m.uses_snapshot(p) {
                let Slot::Operand(slot) = u.slot else {
                    continue;
                };
                let user = u.user;
                let op = self.m.op(user);
                if op.is_decoration() {
                    continue;
                }
                match op {
                    Op::FieldAddr | Op::ElementAddr if slot == 0 => {
                        let Some(rt) = self.m.ty(user) else { continue };
                        let Some(elem) = self.m.pointee(rt) else {
                            continue;
                        };
                        let ne = self.storage_type(elem);
                        let np = self.m.ptr_type(space, ne);
                        self.m.set_type(user, Some(np));
                        work.push((user, elem));
                    }
                    Op::Load => {
                        let value_ty = self.m.ty(user).unwrap_or(old);
                        let st = self.storage_type(value_ty);
                        if st == value_ty {
                            continue;
                        }
                        let uses = self.m.uses_snapshot(user);
                        self.m.set_type(user, Some(st));
                        let Some(next) = self.m.next_sibling(user) else {
                            continue;
                        };
                        let v = self.value_form(InsertPoint::Before(next), user, value_ty);
                        for u in uses {
                            if let Slot::Operand(i) = u.slot {
                                self.m.replace_operand(u.user, i as usize, v);
                            }
                        }
                    }
                    Op::Store if slot == 0 => {
                        let v = self.m.operand(user, 1);
                        let Some(vt) = self.m.ty(v) else { continue };
                        let nv = self.store_form(InsertPoint::Before(user), v, vt);
                        if nv != v {
                            self.m.replace_operand(user, 1, nv);
                        }
                    }
                    Op::ArrayLength => {}
                    _ => {
                        return Err(PassError::new(
                            NAME,
                            format!(
                                "`{}` uses a pointer into a buffer that holds bools; only loads, \
                                 stores and access chains can (specialize resources first)",
                                oneshader_ir::print::print_inst(self.m, user)
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

impl Pass for BoolStorage {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        let mut r = Rewriter {
            m,
            storage: FxHashMap::default(),
        };
        while let Some(g) = holds_shared_bools(r.m) {
            r.global(g)?;
            changed = true;
        }
        Ok(changed)
    }

    fn idempotent(&self) -> bool {
        true
    }
}
