//! Resource-parameter specialization: a function taking a resource is cloned per distinct
//! resource it is called with.
//!
//! SPIR-V (logical addressing, no variable pointers) cannot pass a texture, sampler or buffer
//! to a function as a value of its own, so this pass runs at every optimization level. A
//! *resource parameter* is a function parameter of pointer type in one of the resource
//! address spaces (see [`is_resource_pointer`]): `uniform_constant` (textures, samplers),
//! `uniform` (constant buffers), `storage_buffer`, `push_constant`, `input` and `output`.
//!
//! For each call of such a function, every resource argument must be a global or an access
//! chain (`field_addr`, `element_addr`) rooted at one. The resource arguments, with run-time
//! indices abstracted, form the key of a clone: `f(@albedo)` and `f(@normals)` give two clones,
//! `f(element_addr @textures, %i)` one clone that receives `%i` as an ordinary integer
//! argument appended to its parameters and rebuilds `element_addr @textures, %i` (with the
//! same `nonuniform` decoration) at the start of its body. Constant indices and field numbers
//! are part of the key. The call is rewritten to call the clone.
//!
//! A caller that is itself a resource function passes its own parameters along; such calls are
//! rewritten once the caller has been cloned (the clone's parameters are concrete chains), so
//! the pass repeats until no call changes. Clones are memoized per (function, key), so
//! recursion reuses the clone. An original with no caller left is removed (unless exported).
//! A resource argument that is not statically a global or a chain into one (e.g. a pointer
//! loaded from a variable or chosen by `select`) cannot be specialized and fails the pass.

use rustc_hash::FxHashMap;

use oneshader_ir::{AddressSpace, Block, Builder, Func, InstId, Module, Op};

use crate::clone::Cloner;
use crate::{Pass, PassError};

const NAME: &str = "specialize_resources";

/// Most clones per run (guards against keys that keep growing).
pub const MAX_CLONES: usize = 4096;

/// True when `ty` is a pointer into a resource address space, which SPIR-V cannot pass to a
/// function: every space but `function`, `private` and `workgroup` (`uniform_constant`,
/// `uniform`, `storage_buffer`, `push_constant`, `input`, `output`, `image` texel pointers,
/// and the mesh and ray-tracing stages' payload, attribute, callable-data and
/// shader-record spaces).
pub fn is_resource_pointer(m: &Module, ty: InstId) -> bool {
    m.address_space(ty).is_some_and(|s| {
        !matches!(
            s,
            AddressSpace::Function | AddressSpace::Private | AddressSpace::Workgroup
        )
    })
}

/// True when `f` has a resource parameter.
pub fn has_resource_params(m: &Module, f: Func) -> bool {
    m.ty(f.id())
        .map(|t| m.fn_params(t).iter().any(|&p| is_resource_pointer(m, p)))
        .unwrap_or(false)
}

/// The resource-parameter specialization pass (`specialize_resources`).
#[derive(Clone, Copy, Debug, Default)]
pub struct SpecializeResources;

/// One step of an access chain, as part of a key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Step {
    /// `field_addr _, k` (the immediate), with its result type.
    Field(InstId, InstId),
    /// `element_addr _, c` with a constant index.
    ConstElem(InstId, InstId, bool),
    /// `element_addr _, i` with a run-time index of the given type.
    DynElem(InstId, InstId, bool),
}

/// A resource argument with run-time indices abstracted.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Chain {
    root: InstId,
    steps: Vec<Step>,
}

/// The outcome of analyzing one resource argument.
enum Resolved {
    /// Rooted at a global; the run-time index values, in order.
    Concrete(Chain, Vec<InstId>),
    /// Passes a parameter of the caller along (wait until the caller is cloned).
    Pending,
}

fn resolve_chain(m: &Module, arg: InstId) -> Result<Resolved, String> {
    let mut steps: Vec<Step> = Vec::new();
    let mut dyn_vals: Vec<InstId> = Vec::new();
    let mut v = arg;
    loop {
        match m.op(v) {
            Op::Global => break,
            Op::Param => return Ok(Resolved::Pending),
            Op::FieldAddr => {
                let ty = m.ty(v).ok_or("a field address without type")?;
                steps.push(Step::Field(m.operand(v, 1), ty));
                v = m.operand(v, 0);
            }
            Op::ElementAddr => {
                let ty = m.ty(v).ok_or("an element address without type")?;
                let idx = m.operand(v, 1);
                let nonuniform = m.has_decoration(v, Op::NonUniform);
                if m.op(idx).is_hoistable() {
                    steps.push(Step::ConstElem(idx, ty, nonuniform));
                } else {
                    let ity = m.ty(idx).ok_or("an index without type")?;
                    steps.push(Step::DynElem(ity, ty, nonuniform));
                    dyn_vals.push(idx);
                }
                v = m.operand(v, 0);
            }
            _ => {
                return Err(format!(
                    "`{}` is not a global or an access chain into one",
                    oneshader_ir::print::print_inst(m, arg)
                ));
            }
        }
    }
    steps.reverse();
    dyn_vals.reverse();
    Ok(Resolved::Concrete(Chain { root: v, steps }, dyn_vals))
}

/// The key of a clone: per parameter, the chain of a resource parameter (`None` for others).
type Key = Vec<Option<Chain>>;

impl Pass for SpecializeResources {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        let mut memo: FxHashMap<(InstId, Key), Func> = FxHashMap::default();
        // Per original, the last clone placed: clones follow it in creation order.
        let mut anchors: FxHashMap<InstId, InstId> = FxHashMap::default();
        let mut originals: Vec<Func> = Vec::new();
        let mut changed = false;
        loop {
            let targets: Vec<Func> = m
                .functions()
                .into_iter()
                .filter(|&f| !f.is_declaration(m) && has_resource_params(m, f))
                .collect();
            if targets.is_empty() {
                // No call can need rewriting: skip the walk over every instruction.
                break;
            }
            for &t in &targets {
                if !originals.contains(&t) && !memo.values().any(|&c| c == t) {
                    originals.push(t);
                }
            }
            let mut progress = false;
            for f in m.functions() {
                for b in f.blocks(m) {
                    let mut next = m.first_child(b.id());
                    while let Some(inst) = next {
                        // Read first: rewriting replaces `inst`.
                        next = m.next_sibling(inst);
                        if m.op(inst) != Op::Call {
                            continue;
                        }
                        let callee = m.operand(inst, 0);
                        let Some(cf) = Func::dyn_cast(m, callee) else {
                            continue;
                        };
                        if !targets.contains(&cf) {
                            continue;
                        }
                        if rewrite_call(m, inst, cf, &mut memo, &mut anchors)? {
                            progress = true;
                            changed = true;
                        }
                    }
                }
            }
            if !progress {
                break;
            }
        }
        // Originals nobody calls any more go away, including those called only by other
        // originals that go away (recursion).
        changed |= remove_dead_originals(m, &originals);
        Ok(changed)
    }
}

/// Removes the originals that are neither exported, nor entry points, nor used from outside
/// the set of removable originals. Returns true when any was removed.
fn remove_dead_originals(m: &mut Module, originals: &[Func]) -> bool {
    let mut dead: Vec<Func> = originals
        .iter()
        .copied()
        .filter(|f| {
            m.contains(f.id())
                && !m.has_decoration(f.id(), Op::Export)
                && !m.has_decoration(f.id(), Op::EntryPoint)
        })
        .collect();
    // Drop from the set every original used from outside it, until stable.
    loop {
        let before = dead.len();
        let snapshot = dead.clone();
        dead.retain(|f| {
            m.uses(f.id()).all(|u| {
                m.op(u.user) == Op::Call
                    && m.func_of(u.user)
                        .is_some_and(|caller| snapshot.contains(&caller))
            })
        });
        if dead.len() == before {
            break;
        }
    }
    if dead.is_empty() {
        return false;
    }
    // Their calls of each other go first, so the functions have no uses left.
    for &f in &dead {
        for call in m.users(f.id()) {
            if m.contains(call) {
                if m.has_uses(call)
                    && let Some(t) = m.ty(call)
                {
                    let u = m.undef(t);
                    m.replace_uses_with(call, u);
                }
                let _ = m.remove(call);
            }
        }
    }
    for f in dead {
        let _ = m.remove(f.id());
    }
    true
}

/// Rewrites `call` (to resource function `f`) to call the clone for its resource arguments;
/// returns false when an argument is still a parameter of the caller.
fn rewrite_call(
    m: &mut Module,
    call: InstId,
    f: Func,
    memo: &mut FxHashMap<(InstId, Key), Func>,
    anchors: &mut FxHashMap<InstId, InstId>,
) -> Result<bool, PassError> {
    let Some(fty) = m.ty(f.id()) else {
        return Ok(false);
    };
    let ptys = m.fn_params(fty);
    let args: Vec<InstId> = m.operands(call).skip(1).collect();
    if args.len() != ptys.len() {
        return Ok(false);
    }
    let mut key: Key = Vec::with_capacity(args.len());
    let mut kept: Vec<InstId> = Vec::new();
    let mut dyn_vals: Vec<InstId> = Vec::new();
    for (&a, &pt) in args.iter().zip(&ptys) {
        if !is_resource_pointer(m, pt) {
            key.push(None);
            kept.push(a);
            continue;
        }
        match resolve_chain(m, a) {
            Ok(Resolved::Pending) => return Ok(false),
            Ok(Resolved::Concrete(chain, dv)) => {
                key.push(Some(chain));
                dyn_vals.extend(dv);
            }
            Err(msg) => {
                let caller = m
                    .func_of(call)
                    .and_then(|cf| m.name(cf.id()).map(str::to_string))
                    .unwrap_or_default();
                return Err(PassError::new(
                    NAME,
                    format!(
                        "in @{caller}: a resource argument of `{}`: {msg}; resources must be \
                         statically known to be passed to a function",
                        oneshader_ir::print::print_inst(m, call)
                    ),
                ));
            }
        }
    }
    let memo_key = (f.id(), key);
    let clone = match memo.get(&memo_key) {
        Some(&c) => c,
        None => {
            if memo.len() >= MAX_CLONES {
                return Err(PassError::new(
                    NAME,
                    format!("more than {MAX_CLONES} clones of functions with resource parameters"),
                ));
            }
            let anchor = anchors
                .get(&f.id())
                .copied()
                .filter(|&a| m.contains(a))
                .unwrap_or(f.id());
            let c = make_clone(m, f, &memo_key.1, anchor)?;
            anchors.insert(f.id(), c.id());
            memo.insert(memo_key, c);
            c
        }
    };
    let mut ops = vec![clone.id()];
    ops.extend(kept);
    ops.extend(dyn_vals);
    // A call is not hoistable: `set_operands` cannot refuse.
    let _ = m.set_operands(call, &ops);
    Ok(true)
}

fn make_clone(m: &mut Module, f: Func, key: &Key, anchor: InstId) -> Result<Func, PassError> {
    let fty = m
        .ty(f.id())
        .ok_or_else(|| PassError::new(NAME, "function without type"))?;
    let ret = m
        .fn_return(fty)
        .ok_or_else(|| PassError::new(NAME, "function without return type"))?;
    let ptys = m.fn_params(fty);
    // New parameters: the non-resource ones, then one per run-time index.
    let mut new_params: Vec<InstId> = Vec::new();
    for (pt, k) in ptys.iter().zip(key) {
        if k.is_none() {
            new_params.push(*pt);
        }
    }
    for chain in key.iter().flatten() {
        for s in &chain.steps {
            if let Step::DynElem(ity, _, _) = s {
                new_params.push(*ity);
            }
        }
    }
    let mut name = m.name(f.id()).unwrap_or("f").to_string();
    for chain in key.iter().flatten() {
        name.push('_');
        name.push_str(m.name(chain.root).unwrap_or("res"));
    }
    let nf = m.add_func(&name, ret, &new_params);
    m.move_after(nf.id(), anchor);
    // The specialization is the function declared where `f` is.
    let declared = m.position(f.id());
    m.set_position(nf.id(), declared);
    let entry = nf
        .entry(m)
        .ok_or_else(|| PassError::new(NAME, "new function without entry block"))?;
    let entry_params: Vec<InstId> = entry.params(m).iter().map(|p| p.id()).collect();
    let old_params: Vec<InstId> = f.params(m).iter().map(|p| p.id()).collect();
    let mut cloner = Cloner::new();
    let mut kept_i = 0;
    let mut dyn_i = key.iter().filter(|k| k.is_none()).count();
    for (i, k) in key.iter().enumerate() {
        let old = old_params[i];
        match k {
            None => {
                if let Some(n) = m.name(old).map(str::to_string) {
                    m.set_name(entry_params[kept_i], Some(&n));
                }
                cloner.insert(old, entry_params[kept_i]);
                kept_i += 1;
            }
            Some(chain) => {
                let mut b = Builder::at_end(m, entry);
                let mut cur = chain.root;
                for s in &chain.steps {
                    cur = match s {
                        Step::Field(k, ty) => b.emit(Op::FieldAddr, Some(*ty), &[cur, *k]),
                        Step::ConstElem(c, ty, nu) => {
                            let e = b.emit(Op::ElementAddr, Some(*ty), &[cur, *c]);
                            if *nu {
                                b.m.decorate(e, Op::NonUniform, &[]);
                            }
                            e
                        }
                        Step::DynElem(_, ty, nu) => {
                            let idx = entry_params[dyn_i];
                            dyn_i += 1;
                            let e = b.emit(Op::ElementAddr, Some(*ty), &[cur, idx]);
                            if *nu {
                                b.m.decorate(e, Op::NonUniform, &[]);
                            }
                            e
                        }
                    };
                }
                cloner.insert(old, cur);
            }
        }
    }
    let blocks = f.blocks(m);
    let new_blocks = cloner
        .clone_blocks(m, &blocks, nf, Some(entry))
        .map_err(|e| PassError::new(NAME, e.to_string()))?;
    // The clone of the old entry block follows the new entry directly and nothing branches
    // to it (an entry block is never a branch target): fold it into the new entry.
    if let Some(&first) = new_blocks.first() {
        merge_into(m, entry, first);
    }
    Ok(nf)
}

/// Moves every child of `from` to the end of `into`, then removes `from`.
fn merge_into(m: &mut Module, into: Block, from: Block) {
    for c in m.children_snapshot(from.id()) {
        m.move_to_end(c, into.id());
    }
    // `from` is empty and was never a branch target.
    let _ = m.remove(from.id());
}
