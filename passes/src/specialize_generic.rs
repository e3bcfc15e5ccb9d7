//! Generic specialization: every `specialize(@G, args...)` with concrete arguments is replaced
//! by a clone of what `@G` yields for those arguments.
//!
//! A `generic` is a body block whose parameters are the generic parameters; the body holds
//! items (functions, structs, nested generics) and hoisted values that mention the parameters,
//! and ends in `return` of what the generic yields (a function or a type). For each
//! `specialize(@G, args)` at module level (its arguments mention no generic parameter), the
//! items of `@G`'s body are cloned to module level with [`Cloner`], each parameter mapped to
//! its argument. The cloner re-interns every hoisted value with the mapped operands, so the
//! clone's types deduplicate against the module's (`fn(%T) -> %T` becomes the module's
//! `fn(i32) -> i32`). Then `replace_uses_with(specialize, result)` makes every user refer to
//! the clone; its cascade re-interns the hoisted users (`ptr<function, specialize<type>(@Pair,
//! f32)>` becomes `ptr<function, @Pair_impl>`).
//!
//! Instantiations are memoized per (generic, arguments). A clone may contain new module-level
//! `specialize` values (a generic using another generic with its own parameter, now concrete);
//! the pass repeats until none is left. Clones of items the result does not use are dropped.
//! Finally, generics nobody uses any more are removed unless exported. A generic that keeps
//! instantiating itself with ever new arguments is cut off after [`MAX_INSTANTIATIONS`], or
//! when an argument nests deeper than [`MAX_ARGUMENT_DEPTH`].

use rustc_hash::FxHashMap;

use oneshader_ir::{Generic, InstId, Module, Op};

use crate::clone::Cloner;
use crate::{Pass, PassError};

/// Most instantiations per run (guards against generics that instantiate themselves forever).
pub const MAX_INSTANTIATIONS: usize = 4096;

/// Deepest nesting of a specialization argument (`array<array<...>>`): a generic that
/// instantiates itself with ever deeper types is stopped here, long before the types get deep
/// enough to exhaust the stack of code that walks them.
pub const MAX_ARGUMENT_DEPTH: usize = 64;

/// The nesting depth of a hoisted value (1 for a leaf), computed up to `limit + 1`.
fn nesting_depth(m: &Module, v: InstId, limit: usize) -> usize {
    if limit == 0 {
        return 1;
    }
    let op = match m.try_op(v) {
        Some(op) if op.is_hoistable() => op,
        _ => return 1,
    };
    let _ = op;
    let mut deepest = 0;
    for o in m.operands(v).chain(m.ty(v)) {
        deepest = deepest.max(nesting_depth(m, o, limit - 1));
        if deepest > limit {
            break;
        }
    }
    1 + deepest
}

const NAME: &str = "specialize_generic";

/// The generic specialization pass (`specialize_generic`).
#[derive(Clone, Copy, Debug, Default)]
pub struct SpecializeGenerics;

impl Pass for SpecializeGenerics {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        let mut memo: FxHashMap<(InstId, Vec<InstId>), InstId> = FxHashMap::default();
        // Per generic, the last clone placed: clones follow their generic in instantiation
        // order.
        let mut anchors: FxHashMap<InstId, InstId> = FxHashMap::default();
        let mut changed = false;
        let mut count = 0usize;
        loop {
            let specs: Vec<InstId> = m
                .children(m.root())
                .filter(|&c| m.op(c) == Op::Specialize)
                .collect();
            if specs.is_empty() {
                break;
            }
            let mut progress = false;
            for s in specs {
                let s = m.resolve(s);
                if !m.contains(s) || m.op(s) != Op::Specialize || m.parent(s) != Some(m.root()) {
                    continue;
                }
                if !m.has_uses(s) {
                    // An orphan: nothing to instantiate.
                    let _ = m.remove(s);
                    progress = true;
                    continue;
                }
                let ops = m.operands_vec(s);
                let g = ops[0];
                let args = ops[1..].to_vec();
                let key = (g, args.clone());
                let result = match memo.get(&key) {
                    Some(&r) => m.resolve(r),
                    None => {
                        count += 1;
                        if let Some(&deep) = args.iter().find(|&&a| {
                            nesting_depth(m, a, MAX_ARGUMENT_DEPTH) > MAX_ARGUMENT_DEPTH
                        }) {
                            let _ = deep;
                            return Err(PassError::new(
                                NAME,
                                format!(
                                    "an argument of `@{}` nests deeper than {MAX_ARGUMENT_DEPTH} \
                                     levels: a generic keeps instantiating itself with growing \
                                     arguments",
                                    m.name(g).unwrap_or("?")
                                ),
                            ));
                        }
                        if count > MAX_INSTANTIATIONS {
                            return Err(PassError::new(
                                NAME,
                                format!(
                                    "more than {MAX_INSTANTIATIONS} instantiations: a generic keeps \
                                     instantiating itself (last: `{}`)",
                                    oneshader_ir::print::print_inst(m, s)
                                ),
                            ));
                        }
                        let anchor = anchors
                            .get(&g)
                            .copied()
                            .filter(|&a| m.contains(a) && m.parent(a) == Some(m.root()))
                            .unwrap_or(g);
                        // Operand 0 of `specialize` is a generic in a well-formed module
                        // (OSV0005).
                        let Some(gen_view) = Generic::dyn_cast(m, g) else {
                            return Err(PassError::new(
                                NAME,
                                "a `specialize` does not name a generic",
                            ));
                        };
                        let (r, last) = instantiate(m, gen_view, &args, anchor)?;
                        anchors.insert(g, last);
                        memo.insert(key, r);
                        r
                    }
                };
                m.replace_uses_with(s, result);
                if m.contains(s) && !m.has_uses(s) {
                    let _ = m.remove(s);
                }
                progress = true;
                changed = true;
            }
            if !progress {
                break;
            }
        }
        changed |= remove_unused_generics(m);
        Ok(changed)
    }
}

/// Clones the items of `g`'s body with its parameters mapped to `args`, placing them at module
/// level after `anchor`; returns what the generic yields for them and the last item placed
/// (or `anchor` when none was kept).
pub fn instantiate(
    m: &mut Module,
    g: Generic,
    args: &[InstId],
    anchor: InstId,
) -> Result<(InstId, InstId), PassError> {
    let body = m.generic_body(g);
    let params = body.params(m);
    if params.len() != args.len() {
        return Err(PassError::new(
            NAME,
            format!(
                "`{}` has {} parameter(s) but is given {} argument(s)",
                oneshader_ir::print::print_inst(m, g.id()),
                params.len(),
                args.len()
            ),
        ));
    }
    let Some(yielded) = m.generic_result(g) else {
        return Err(PassError::new(
            NAME,
            format!(
                "`{}` does not end in `return` of what it yields",
                oneshader_ir::print::print_inst(m, g.id())
            ),
        ));
    };
    let mut cloner = Cloner::new();
    for (p, &a) in params.iter().zip(args) {
        cloner.insert(p.id(), a);
    }
    let items: Vec<InstId> = m
        .children(body.id())
        .filter(|&c| matches!(m.op(c), Op::Func | Op::Struct | Op::Generic | Op::Global))
        .collect();
    let root = m.root();
    let first_anchor = anchor;
    let mut anchor = anchor;
    let mut clones: Vec<InstId> = Vec::with_capacity(items.len());
    for item in items {
        let new = cloner
            .clone_item(m, item, root)
            .map_err(|e| PassError::new(NAME, e.to_string()))?;
        m.move_after(new, anchor);
        anchor = new;
        clones.push(new);
    }
    let result = cloner
        .value(m, yielded)
        .map_err(|e| PassError::new(NAME, e.to_string()))?;
    // Drop clones nothing uses (helpers the result does not reach), repeatedly since one may
    // be the only user of another.
    loop {
        let mut removed = false;
        for &id in &clones {
            if m.contains(id) && id != result && !m.has_uses(id) && m.remove(id).is_ok() {
                removed = true;
            }
        }
        if !removed {
            break;
        }
    }
    let last = clones
        .iter()
        .rev()
        .copied()
        .find(|&c| m.contains(c))
        .unwrap_or(first_anchor);
    Ok((result, last))
}

/// True when `id` lies inside `ancestor`'s subtree.
fn inside(m: &Module, id: InstId, ancestor: InstId) -> bool {
    let mut cur = Some(id);
    while let Some(c) = cur {
        if c == ancestor {
            return true;
        }
        cur = m.parent(c);
    }
    false
}

/// Removes module-level generics nothing outside themselves refers to (a generic may
/// specialize itself in its own body), unless exported; returns true when any was removed.
fn remove_unused_generics(m: &mut Module) -> bool {
    let mut changed = false;
    loop {
        let mut removed = false;
        for g in m.generics() {
            if m.has_decoration(g.id(), Op::Export)
                || m.uses(g.id()).any(|u| !inside(m, u.user, g.id()))
            {
                continue;
            }
            if m.remove(g.id()).is_ok() {
                removed = true;
            }
        }
        if !removed {
            break;
        }
        changed = true;
    }
    changed
}
