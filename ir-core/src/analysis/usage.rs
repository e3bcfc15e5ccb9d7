//! Entry-point usage: per function, the globals its instructions name and how it accesses
//! them, how it accesses memory through its pointer parameters, and what calling it may do;
//! per entry point, the functions it reaches and the globals they use; per global, the
//! stages that reach it.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::call_graph::CallGraph;
use crate::effects::{Access, Effects};
use crate::imm::Stage;
use crate::module::{InstId, Module};
use crate::ops::Op;
use crate::structure::{Block, Func, Global};

/// The stage and exported name of function `f` when it is an entry point (decorated
/// `entry_point(stage, "name")`): the one reading of that decoration.
pub fn entry_point_of(m: &Module, f: Func) -> Option<(Stage, &str)> {
    let d = m.find_decoration(f.id(), Op::EntryPoint)?;
    let stage = m.imm_operand(d, 0).and_then(Stage::from_u32)?;
    let name = m.try_operand(d, 1).and_then(|s| m.literal_str(s))?;
    Some((stage, name))
}

/// A set of shader stages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StageSet(u16);

impl StageSet {
    /// No stage.
    pub const EMPTY: StageSet = StageSet(0);

    /// The set of one stage.
    pub fn of(stage: Stage) -> StageSet {
        StageSet(1 << stage.to_u32())
    }

    /// True when `stage` is in the set.
    pub fn contains(self, stage: Stage) -> bool {
        self.0 & (1 << stage.to_u32()) != 0
    }

    /// The union of two sets.
    pub fn union(self, other: StageSet) -> StageSet {
        StageSet(self.0 | other.0)
    }

    /// True when no stage is in the set.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The stages in the set, in [`Stage`] order.
    pub fn iter(self) -> impl Iterator<Item = Stage> {
        Stage::ALL
            .iter()
            .copied()
            .filter(move |&s| self.contains(s))
    }
}

/// A global named by some instruction, and how the memory it designates is accessed there
/// (an empty [`Access`] when it is only named: passed to a function that does not access
/// it, queried for a size).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GlobalUse {
    /// The global.
    pub global: Global,
    /// How it is accessed.
    pub access: Access,
}

/// What one function does, its callees included.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionInfo {
    globals: Vec<GlobalUse>,
    params: Vec<Access>,
    effects: Effects,
}

impl FunctionInfo {
    /// The globals its own instructions name, in the order of their first use, each with
    /// how the function accesses it: by its own instructions, and by the functions it
    /// calls through the pointer it passes them.
    pub fn globals(&self) -> &[GlobalUse] {
        &self.globals
    }

    /// How the function (and what it calls) accesses memory through its parameter `k`:
    /// empty for a parameter that is not a pointer or not accessed; for a declaration, whose
    /// body is unknown, read and written for every pointer parameter.
    pub fn param_access(&self, k: usize) -> Access {
        self.params.get(k).copied().unwrap_or_default()
    }

    /// What calling the function may do: the effects of its instructions and of the
    /// functions it calls, without [`Effects::CONTROL`] and [`Effects::ALLOCATES`] (its
    /// returns and variables are its own). A declaration may do anything a call may
    /// ([`Effects::UNKNOWN_CALL`]). [`Effects::READ`] and [`Effects::WRITE`] count
    /// accesses to its own variables too.
    pub fn effects(&self) -> Effects {
        self.effects
    }
}

/// One entry point and what it uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryInfo {
    func: Func,
    stage: Stage,
    name: String,
    functions: Vec<Func>,
    globals: Vec<GlobalUse>,
    effects: Effects,
    recursive: Option<Func>,
}

impl EntryInfo {
    /// The entry point's function.
    pub fn func(&self) -> Func {
        self.func
    }

    /// Its stage.
    pub fn stage(&self) -> Stage {
        self.stage
    }

    /// The name it is exported under.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The functions it reaches through calls, itself first (depth-first pre-order).
    pub fn functions(&self) -> &[Func] {
        &self.functions
    }

    /// The globals the instructions of those functions name, in module order, each with
    /// how the entry point accesses it (the union over its functions).
    pub fn globals(&self) -> &[GlobalUse] {
        &self.globals
    }

    /// How the entry point accesses `g`, or `None` when it does not use it.
    pub fn access_of(&self, g: Global) -> Option<Access> {
        self.globals
            .iter()
            .find(|u| u.global == g)
            .map(|u| u.access)
    }

    /// The first function it reaches (in [`EntryInfo::functions`] order) that is in a cycle
    /// of calls, if any: Vulkan's SPIR-V, GLSL, WGSL and MSL all forbid recursion, so every
    /// backend refuses such an entry point.
    pub fn recursive(&self) -> Option<Func> {
        self.recursive
    }

    /// What running it may do: the union of the effects of every function it reaches
    /// ([`FunctionInfo::effects`]); e.g. [`Effects::DERIVATIVES`] when it takes implicit
    /// derivatives somewhere.
    pub fn effects(&self) -> Effects {
        self.effects
    }

    /// The first instruction it reaches whose effects ([`Module::effects`]) include every
    /// flag of `fx`, in [`EntryInfo::functions`] order then block and instruction order:
    /// where a diagnostic about those effects points (the `ddx` that makes a compute entry
    /// point take derivatives). `None` when it reaches none.
    pub fn first_with_effects(&self, m: &Module, fx: Effects) -> Option<InstId> {
        self.functions.iter().find_map(|f| {
            f.blocks(m)
                .into_iter()
                .find_map(|b| m.children(b.id()).find(|&i| m.effects(i).contains(fx)))
        })
    }
}

/// The shared analyses of a module, computed once: the [`CallGraph`], what each function
/// does ([`FunctionInfo`]), what each entry point uses ([`EntryInfo`]) and which stages
/// reach each global. Every backend reads it (`Legal::info` in `oneshader-backends`), as
/// does reflection; nothing re-derives it.
///
/// Uses come from instruction operands: a global is used by a function when one of its
/// instructions names it, and by an entry point when one of the functions it reaches does.
/// Accesses follow pointers through access chains (`field_addr`, `element_addr`,
/// `texel_addr`) to the global or function parameter they start from; what a callee does
/// through a parameter is charged to the argument its caller passes, so a global passed to
/// a function that writes it is written by the caller. A pointer of another origin (a block
/// parameter, a `select`, a variable) leads nowhere. Decorations do not use globals: an
/// append buffer's `counter(@c)` links the two for reflection, and the counter is used
/// where an instruction names it.
///
/// Cost: one walk over every instruction of the module (twice in a cycle of calls, until
/// the parameters' accesses settle), then per entry point a walk over its call tree. It is
/// a snapshot: build it again after changing the module.
///
/// ```
/// use oneshader_ir::analysis::ModuleInfo;
/// use oneshader_ir::{Access, Stage};
/// let m = oneshader_ir::parse::parse(
///     "global @out : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]\n\
///      global @unused : ptr<storage_buffer, rtarray<u32>> [binding(0, 1)]\n\
///      func @put(%0: ptr<storage_buffer, u32>) -> void {\n\
///      bb0:\n  store %0, u32 7\n  return\n}\n\
///      func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {\n\
///      bb0:\n  %0 = element_addr @out, u32 0 : ptr<storage_buffer, u32>\n  call @put(%0)\n  return\n}\n",
/// ).unwrap();
/// let info = ModuleInfo::new(&m);
/// let e = &info.entry_points()[0];
/// assert_eq!((e.name(), e.stage(), e.functions().len()), ("main", Stage::Compute, 2));
/// let out = m.global_by_name("out").unwrap();
/// assert_eq!(e.access_of(out), Some(Access::WRITE));
/// assert!(info.stages_of(out).contains(Stage::Compute));
/// assert!(!info.is_used(m.global_by_name("unused").unwrap()));
/// ```
#[derive(Clone, Debug, Default)]
pub struct ModuleInfo {
    call_graph: CallGraph,
    functions: Vec<FunctionInfo>,
    entries: Vec<EntryInfo>,
    /// Per global (by module position): the stages that reach it and how they access it.
    globals: Vec<(StageSet, Access)>,
    global_pos: FxHashMap<InstId, u32>,
}

/// Where a pointer starts, within one function.
enum Root {
    Global(InstId),
    /// The function parameter with this index.
    Param(usize),
}

/// The global or parameter of `f` that `v` is an access chain of.
fn root_in(m: &Module, entry: Option<Block>, mut v: InstId) -> Option<Root> {
    loop {
        match m.try_op(v)? {
            Op::Global => return Some(Root::Global(v)),
            Op::FieldAddr | Op::ElementAddr | Op::TexelAddr => v = m.try_operand(v, 0)?,
            Op::Param => {
                let entry = entry?;
                if m.parent(v) != Some(entry.id()) {
                    return None;
                }
                return m
                    .children(entry.id())
                    .take_while(|&c| m.op(c) == Op::Param)
                    .position(|c| c == v)
                    .map(Root::Param);
            }
            _ => return None,
        }
    }
}

impl ModuleInfo {
    /// Analyses `m` (which should verify; what does not is skipped, never a panic).
    pub fn new(m: &Module) -> ModuleInfo {
        let call_graph = CallGraph::new(m);
        let global_list = m.globals();
        let global_pos: FxHashMap<InstId, u32> = global_list
            .iter()
            .enumerate()
            .map(|(k, g)| (g.id(), k as u32))
            .collect();
        let funcs = call_graph.functions();
        let mut functions: Vec<FunctionInfo> = vec![FunctionInfo::default(); funcs.len()];
        let components: Vec<Vec<Func>> = call_graph.components().map(<[Func]>::to_vec).collect();
        for comp in components {
            // Outside a cycle one visit settles a function; in one, visit the component
            // until nothing grows (accesses and effects only grow, so this ends).
            let cyclic = comp.len() > 1 || call_graph.is_recursive(comp[0]);
            loop {
                let mut grew = false;
                for &f in &comp {
                    let Some(k) = call_graph.position(f) else {
                        continue;
                    };
                    let info = function_info(m, f, &call_graph, &functions);
                    if info != functions[k] {
                        grew = true;
                        functions[k] = info;
                    }
                }
                if !cyclic || !grew {
                    break;
                }
            }
        }
        let mut globals = vec![(StageSet::EMPTY, Access::NONE); global_list.len()];
        let mut entries = Vec::new();
        for &f in funcs {
            let Some((stage, name)) = entry_point_of(m, f) else {
                continue;
            };
            let reached = call_graph.reachable([f]);
            let mut used: FxHashMap<u32, Access> = FxHashMap::default();
            let mut effects = Effects::PURE;
            for &g in &reached {
                let Some(info) = call_graph.position(g).map(|k| &functions[k]) else {
                    continue;
                };
                effects |= info.effects;
                for u in &info.globals {
                    if let Some(&pos) = global_pos.get(&u.global.id()) {
                        *used.entry(pos).or_default() |= u.access;
                    }
                }
            }
            let mut positions: Vec<(u32, Access)> = used.into_iter().collect();
            positions.sort_unstable_by_key(|&(pos, _)| pos);
            let mut uses = Vec::with_capacity(positions.len());
            for (pos, access) in positions {
                let slot = &mut globals[pos as usize];
                slot.0 = slot.0.union(StageSet::of(stage));
                slot.1 |= access;
                uses.push(GlobalUse {
                    global: global_list[pos as usize],
                    access,
                });
            }
            let recursive = reached
                .iter()
                .copied()
                .find(|&g| call_graph.is_recursive(g));
            entries.push(EntryInfo {
                func: f,
                stage,
                name: name.to_string(),
                functions: reached,
                globals: uses,
                effects,
                recursive,
            });
        }
        ModuleInfo {
            call_graph,
            functions,
            entries,
            globals,
            global_pos,
        }
    }

    /// The call graph.
    pub fn call_graph(&self) -> &CallGraph {
        &self.call_graph
    }

    /// What function `f` does, when it is a module-level function.
    pub fn function(&self, f: Func) -> Option<&FunctionInfo> {
        self.call_graph.position(f).map(|k| &self.functions[k])
    }

    /// The entry points, in module order.
    pub fn entry_points(&self) -> &[EntryInfo] {
        &self.entries
    }

    /// The entry point whose function is `f`.
    pub fn entry_point(&self, f: Func) -> Option<&EntryInfo> {
        self.entries.iter().find(|e| e.func == f)
    }

    /// The stages of the entry points that use `g`.
    pub fn stages_of(&self, g: Global) -> StageSet {
        self.global(g).0
    }

    /// How the entry points together access `g`.
    pub fn access_of(&self, g: Global) -> Access {
        self.global(g).1
    }

    /// True when some entry point uses `g`.
    pub fn is_used(&self, g: Global) -> bool {
        !self.stages_of(g).is_empty()
    }

    fn global(&self, g: Global) -> (StageSet, Access) {
        self.global_pos
            .get(&g.id())
            .and_then(|&k| self.globals.get(k as usize))
            .copied()
            .unwrap_or_default()
    }

    /// The globals a pointer value may designate, each once, in the order found: the global
    /// its access chain starts from, or, for a chain starting at a function parameter, the
    /// roots of the argument of every call of that function (before legalization, resources
    /// may still be passed to functions).
    pub fn roots(&self, m: &Module, ptr: InstId) -> Vec<Global> {
        let mut out: Vec<Global> = Vec::new();
        let mut work = vec![ptr];
        let mut seen: Vec<InstId> = Vec::new();
        while let Some(v) = work.pop() {
            if seen.contains(&v) {
                continue;
            }
            seen.push(v);
            let f = m.func_of(v);
            let entry = f.and_then(|f| f.entry(m));
            match root_in(m, entry, v) {
                Some(Root::Global(g)) => {
                    let g = Global::cast(m, g);
                    if !out.contains(&g) {
                        out.push(g);
                    }
                }
                Some(Root::Param(k)) => {
                    let sites = f.map_or(&[][..], |f| self.call_graph.call_sites(f));
                    for &call in sites {
                        if let Some(arg) = m.try_operand(call, k + 1) {
                            work.push(arg);
                        }
                    }
                }
                None => {}
            }
        }
        out
    }
}

/// The [`FunctionInfo`] of `f`, given what is known of its callees in `known`.
fn function_info(m: &Module, f: Func, cg: &CallGraph, known: &[FunctionInfo]) -> FunctionInfo {
    let entry = f.entry(m);
    if f.is_declaration(m) {
        let params = f.fn_type(m).map(|t| m.fn_params(t)).unwrap_or_default();
        return FunctionInfo {
            globals: Vec::new(),
            params: params
                .iter()
                .map(|&t| match m.try_op(t) {
                    Some(Op::Ptr) => Access::READ | Access::WRITE,
                    _ => Access::NONE,
                })
                .collect(),
            effects: Effects::UNKNOWN_CALL,
        };
    }
    let nparams = entry.map_or(0, |b| b.params(m).len());
    let mut info = FunctionInfo {
        globals: Vec::new(),
        params: vec![Access::NONE; nparams],
        effects: Effects::PURE,
    };
    let mut at: FxHashMap<InstId, usize> = FxHashMap::default();
    let mut charge = |info: &mut FunctionInfo, root: Option<Root>, access: Access| match root {
        Some(Root::Global(g)) => {
            let k = *at.entry(g).or_insert_with(|| {
                info.globals.push(GlobalUse {
                    global: Global::cast(m, g),
                    access: Access::NONE,
                });
                info.globals.len() - 1
            });
            info.globals[k].access |= access;
        }
        Some(Root::Param(k)) => {
            if let Some(p) = info.params.get_mut(k) {
                *p |= access;
            }
        }
        None => {}
    };
    let local = Effects::CONTROL | Effects::ALLOCATES;
    for b in m.children(f.id()) {
        if m.op(b) != Op::Block {
            continue;
        }
        for i in m.children(b) {
            let op = m.op(i);
            if op == Op::Param {
                continue;
            }
            for o in m.operands(i) {
                if m.try_op(o) == Some(Op::Global) {
                    charge(&mut info, Some(Root::Global(o)), Access::NONE);
                }
            }
            if op == Op::Call {
                let callee = m
                    .try_operand(i, 0)
                    .and_then(|c| Func::dyn_cast(m, c))
                    .and_then(|g| cg.position(g).map(|k| &known[k]));
                let args: SmallVec<[InstId; 4]> = m.operands(i).skip(1).collect();
                match callee {
                    Some(g) => {
                        info.effects |= g.effects;
                        for (k, &arg) in args.iter().enumerate() {
                            let a = g.param_access(k);
                            if !a.is_empty() {
                                charge(&mut info, root_in(m, entry, arg), a);
                            }
                        }
                    }
                    None => info.effects |= Effects::UNKNOWN_CALL,
                }
                continue;
            }
            info.effects |= m.effects(i).without(local);
            for (p, a) in m.memory_accesses(i) {
                charge(&mut info, root_in(m, entry, p), a);
            }
        }
    }
    info
}
