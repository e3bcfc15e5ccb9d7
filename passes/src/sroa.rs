//! SROA (scalar replacement of aggregates): a struct or small-array `var` whose address does
//! not escape becomes one `var` per element, recursively.
//!
//! A `var` of struct type, or of array type with at most [`MAX_ARRAY_ELEMENTS`] elements, is
//! split when every use is one of:
//! - `field_addr var, k`, or `element_addr var, c` with a constant in-range index `c`: the
//!   address of element `k` becomes the element's own `var` (whatever is done with that address
//!   afterwards, even passing it to a call, concerns only that element);
//! - `load var`: becomes a load of every element and a `construct`;
//! - `store var, v`: becomes `extract v, k` and a store per element (extracting from a
//!   constant folds on the spot: a `composite`'s operand, `undef`, and `zero`, which gives a
//!   literal for scalar elements: `i32 0`, `f32 0.0`, `false`).
//!
//! A `var` used in any other way (passed to a call, stored as a value, indexed at run time,
//! used by an atomic...) stays whole. The new element `var`s are split in turn when they are
//! aggregates, so nested structs flatten completely; what remains is scalars, vectors and
//! matrices, which mem2reg promotes. Element `var`s are created next to the original and named
//! `name.field` / `name.index` after its name hint; a `row_major`/`col_major` decoration of a
//! struct field carries over to the field's `var`.
//!
//! The array cap ([`MAX_ARRAY_ELEMENTS`] = 16) keeps whole-array loads and stores, which become
//! one load or store per element, from growing code without bound; bigger arrays stay in
//! memory (they are usually indexed at run time anyway).
//!
//! **Component access.** A `var` of vector or matrix type (including one SROA just created)
//! that is addressed per component (`v.x = 1` is `element_addr` + `store`) is not promotable
//! by mem2reg as it stands. When every address taken from it is only loaded from, stored to,
//! or indexed further (a matrix row, then a component), each access becomes an access of the
//! whole value: a load through `element_addr v, i` becomes `load v` + `extract` (or
//! `extract_dyn` for a run-time index), and a store becomes `load v` + `insert`
//! (`insert_dyn`) + `store v`. The variable is then loaded and stored whole only, and mem2reg
//! promotes it. Out-of-range indices were undefined before and stay undefined.

use oneshader_ir::{Builder, Func, InsertPoint, InstId, Module, Op, Slot};
use smallvec::SmallVec;

use crate::analyses::FunctionAnalyses;
use crate::{FunctionPass, Pass, PassError, run_per_function};

/// Arrays with more elements than this are not split.
pub const MAX_ARRAY_ELEMENTS: u32 = 16;

/// The SROA pass (`sroa`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Sroa;

impl Pass for Sroa {
    fn name(&self) -> &'static str {
        "sroa"
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        run_per_function(self, m)
    }

    fn as_function_pass(&mut self) -> Option<&mut dyn FunctionPass> {
        Some(self)
    }
}

/// Only instructions change; the pass manager may keep the function's analyses.
impl FunctionPass for Sroa {
    fn run_on_function(
        &mut self,
        m: &mut Module,
        f: Func,
        _analyses: &mut FunctionAnalyses,
    ) -> Result<bool, PassError> {
        Ok(sroa_function(m, f))
    }

    fn keeps_analyses(&self) -> bool {
        true
    }
}

/// Runs `sroa` on one function's variables; true when it changed anything.
pub fn sroa_function(m: &mut Module, f: Func) -> bool {
    {
        let mut work: Vec<InstId> = Vec::new();
        for b in f.blocks(m) {
            for c in m.children(b.id()) {
                if m.op(c) == Op::Var {
                    work.push(c);
                }
            }
        }
        // Process in program order: pop from the back of a reversed list.
        work.reverse();
        let mut changed = false;
        let mut leaves: Vec<InstId> = Vec::new();
        while let Some(v) = work.pop() {
            if !m.contains(v) {
                continue;
            }
            match split_var(m, v) {
                Some(elems) => {
                    changed = true;
                    for e in elems.into_iter().rev() {
                        work.push(e);
                    }
                }
                None => leaves.push(v),
            }
        }
        for v in leaves {
            if m.contains(v) {
                changed |= whole_value_access(m, v);
            }
        }
        changed
    }
}

/// The element types of an aggregate pointee that SROA splits: struct fields (with their
/// field instruction), or array elements.
fn split_shape(m: &Module, pointee: InstId) -> Option<Vec<(InstId, Option<InstId>)>> {
    match m.op(pointee) {
        Op::Struct => {
            let fields = m.struct_fields(pointee);
            if fields.is_empty() {
                return None;
            }
            fields
                .into_iter()
                .map(|f| m.ty(f).map(|t| (t, Some(f))))
                .collect()
        }
        Op::Array => {
            let n = m.array_len(pointee)?;
            if n == 0 || n > MAX_ARRAY_ELEMENTS {
                return None;
            }
            let elem = m.operand(pointee, 0);
            Some((0..n).map(|_| (elem, None)).collect())
        }
        _ => None,
    }
}

/// How a use of the aggregate var is rewritten.
enum UseKind {
    /// `field_addr`/`element_addr` of element k.
    Addr(usize),
    Load,
    Store,
}

fn classify_uses(m: &Module, var: InstId, n: usize) -> Option<Vec<(InstId, UseKind)>> {
    let mut out = Vec::new();
    for u in m.uses(var) {
        let user = u.user;
        let kind = match (m.op(user), u.slot) {
            (Op::Load, Slot::Operand(0)) => UseKind::Load,
            (Op::Store, Slot::Operand(0)) if m.operand(user, 1) != var => UseKind::Store,
            (Op::FieldAddr, Slot::Operand(0)) => {
                let k = m.imm_operand(user, 1)? as usize;
                if k >= n {
                    return None;
                }
                UseKind::Addr(k)
            }
            (Op::ElementAddr, Slot::Operand(0)) => {
                let idx = m.operand(user, 1);
                let k = m.const_int_value(idx)?;
                if k < 0 || k >= n as i128 {
                    return None;
                }
                UseKind::Addr(k as usize)
            }
            _ => return None,
        };
        out.push((user, kind));
    }
    Some(out)
}

/// Element `k` of a constant composite, folded (`zero`, `undef`, `composite`).
fn const_element(m: &mut Module, c: InstId, k: usize, elem_ty: InstId) -> Option<InstId> {
    match m.op(c) {
        Op::Zero => Some(zero_of(m, elem_ty)),
        Op::Undef => Some(m.undef(elem_ty)),
        Op::Composite => m.try_operand(c, k),
        _ => None,
    }
}

/// The zero of `ty`: a literal for scalars (`i32 0`, `f32 0.0`, `false`), `zero` otherwise.
fn zero_of(m: &mut Module, ty: InstId) -> InstId {
    match m.op(ty) {
        Op::Bool => m.const_bool(false),
        op if op.is_int_type() => m.const_int(ty, 0),
        op if op.is_float_type() => m.const_float_bits(ty, 0),
        _ => m.zero(ty),
    }
}

/// Splits `var` when it qualifies; returns the new element vars.
fn split_var(m: &mut Module, var: InstId) -> Option<Vec<InstId>> {
    let ptr_ty = m.ty(var)?;
    let pointee = m.pointee(ptr_ty)?;
    let shape = split_shape(m, pointee)?;
    let uses = classify_uses(m, var, shape.len())?;
    let base_name: Option<String> = m.name(var).map(str::to_string);
    // The element vars, right after the original.
    let mut elems: Vec<InstId> = Vec::with_capacity(shape.len());
    let mut anchor = var;
    for (k, &(ety, field)) in shape.iter().enumerate() {
        let v = {
            let mut b = Builder::new(m);
            b.set_point(InsertPoint::Detached);
            b.var(ety)
        };
        m.move_after(v, anchor);
        anchor = v;
        let suffix = field
            .and_then(|f| m.name(f).map(str::to_string))
            .unwrap_or_else(|| k.to_string());
        if let Some(base) = &base_name {
            m.set_name(v, Some(&format!("{base}.{suffix}")));
        }
        if let Some(f) = field {
            for d in [Op::RowMajor, Op::ColMajor] {
                if m.has_decoration(f, d) {
                    m.decorate(v, d, &[]);
                }
            }
        } else {
            for d in [Op::RowMajor, Op::ColMajor] {
                if m.has_decoration(var, d) {
                    m.decorate(v, d, &[]);
                }
            }
        }
        elems.push(v);
    }
    for (user, kind) in uses {
        match kind {
            UseKind::Addr(k) => {
                m.replace_uses_with(user, elems[k]);
                // No uses remain.
                let _ = m.remove(user);
            }
            UseKind::Load => {
                let mut parts = Vec::with_capacity(elems.len());
                let mut b = Builder::new(m);
                b.position_before(user);
                for &e in &elems {
                    parts.push(b.load(e));
                }
                let whole = b.construct(pointee, &parts);
                m.replace_uses_with(user, whole);
                let _ = m.remove(user);
            }
            UseKind::Store => {
                let value = m.operand(user, 1);
                for (k, &e) in elems.iter().enumerate() {
                    let ety = shape[k].0;
                    let part = match const_element(m, value, k, ety) {
                        Some(c) => c,
                        None => {
                            let mut b = Builder::new(m);
                            b.position_before(user);
                            b.extract(value, &[k as u32])
                        }
                    };
                    let mut b = Builder::new(m);
                    b.position_before(user);
                    b.store(e, part);
                }
                let _ = m.remove(user);
            }
        }
    }
    // Every use was rewritten.
    let _ = m.remove(var);
    Some(elems)
}

/// True when `ptr` (an address into a vector or matrix variable) is only loaded from, stored
/// to, or indexed further while it still points to a vector or matrix; collects the
/// `element_addr`s met, outermost first.
fn component_accesses_only(m: &Module, ptr: InstId, chain: &mut Vec<InstId>) -> bool {
    let indexable = m
        .ty(ptr)
        .and_then(|t| m.pointee(t))
        .is_some_and(|p| matches!(m.op(p), Op::Vector | Op::Matrix));
    for u in m.uses(ptr) {
        let ok = match (m.op(u.user), u.slot) {
            (Op::Load, Slot::Operand(0)) => true,
            (Op::Store, Slot::Operand(0)) => m.operand(u.user, 1) != ptr,
            (Op::ElementAddr, Slot::Operand(0)) if indexable => {
                let idx = m.operand(u.user, 1);
                let int_index = m.ty(idx).is_some_and(|t| m.op(t).is_int_type());
                int_index && {
                    chain.push(u.user);
                    component_accesses_only(m, u.user, chain)
                }
            }
            _ => false,
        };
        if !ok {
            return false;
        }
    }
    true
}

/// The `element_addr` indices from `var` to `ptr` (outermost first).
fn access_path(m: &Module, var: InstId, ptr: InstId) -> SmallVec<[InstId; 2]> {
    let mut path: SmallVec<[InstId; 2]> = SmallVec::new();
    let mut cur = ptr;
    while cur != var && m.op(cur) == Op::ElementAddr {
        path.push(m.operand(cur, 1));
        cur = m.operand(cur, 0);
    }
    path.reverse();
    path
}

/// The constant value of an index, when it is a literal integer.
fn const_index(m: &Module, idx: InstId) -> Option<u32> {
    let v = m.const_int_value(idx)?;
    u32::try_from(v).ok()
}

/// Reads `path` out of `whole` before `at`: `extract` for constant indices (several in one
/// instruction), `extract_dyn` for run-time ones.
fn read_path(m: &mut Module, at: InstId, whole: InstId, path: &[InstId]) -> InstId {
    let mut b = Builder::new(m);
    b.position_before(at);
    let mut cur = whole;
    let mut consts: Vec<u32> = Vec::new();
    for &i in path {
        match const_index(b.m, i) {
            Some(k) => consts.push(k),
            None => {
                if !consts.is_empty() {
                    cur = b.extract(cur, &consts);
                    consts.clear();
                }
                cur = b.extract_dyn(cur, i);
            }
        }
    }
    if !consts.is_empty() {
        cur = b.extract(cur, &consts);
    }
    cur
}

/// `whole` with the element at `path` replaced by `value`, built before `at`.
fn write_path(m: &mut Module, at: InstId, whole: InstId, path: &[InstId], value: InstId) -> InstId {
    let Some((&first, rest)) = path.split_first() else {
        return value;
    };
    if path.iter().all(|&i| const_index(m, i).is_some()) {
        let idx: Vec<u32> = path.iter().filter_map(|&i| const_index(m, i)).collect();
        let mut b = Builder::new(m);
        b.position_before(at);
        return b.insert(whole, value, &idx);
    }
    // One level at a time: read the inner composite, update it, put it back.
    let updated = if rest.is_empty() {
        value
    } else {
        let inner = read_path(m, at, whole, &[first]);
        write_path(m, at, inner, rest, value)
    };
    let mut b = Builder::new(m);
    b.position_before(at);
    match const_index(b.m, first) {
        Some(k) => b.insert(whole, updated, &[k]),
        None => b.insert_dyn(whole, updated, first),
    }
}

/// Rewrites the component accesses of a vector or matrix `var` as whole-value loads and
/// stores (see the module documentation); returns true when it did.
fn whole_value_access(m: &mut Module, var: InstId) -> bool {
    let Some(pointee) = m.ty(var).and_then(|t| m.pointee(t)) else {
        return false;
    };
    if !matches!(m.op(pointee), Op::Vector | Op::Matrix) {
        return false;
    }
    let mut chain: Vec<InstId> = Vec::new();
    if !component_accesses_only(m, var, &mut chain) || chain.is_empty() {
        return false;
    }
    for &addr in &chain {
        for user in m.users(addr) {
            match m.op(user) {
                Op::Load if m.operand(user, 0) == addr => {
                    let path = access_path(m, var, addr);
                    let whole = {
                        let mut b = Builder::new(m);
                        b.position_before(user);
                        b.load(var)
                    };
                    let part = read_path(m, user, whole, &path);
                    m.replace_uses_with(user, part);
                    // Its uses were just replaced.
                    let _ = m.remove(user);
                }
                Op::Store if m.operand(user, 0) == addr => {
                    let path = access_path(m, var, addr);
                    let value = m.operand(user, 1);
                    let whole = {
                        let mut b = Builder::new(m);
                        b.position_before(user);
                        b.load(var)
                    };
                    let updated = write_path(m, user, whole, &path, value);
                    {
                        let mut b = Builder::new(m);
                        b.position_before(user);
                        b.store(var, updated);
                    }
                    // A store has no uses.
                    let _ = m.remove(user);
                }
                _ => {}
            }
        }
    }
    // Innermost addresses first: each has no uses left once its own users are gone.
    for &addr in chain.iter().rev() {
        let _ = m.remove(addr);
    }
    true
}
