//! The module analyses (call graph, entry-point usage) and instruction effects, on
//! hand-written IR: calls, recursion, entry points sharing functions, globals used only
//! through a callee or through a pointer parameter, unused globals, declarations.

use oneshader_ir::analysis::{CallGraph, ModuleInfo, StageSet, entry_point_of};
use oneshader_ir::parse::parse;
use oneshader_ir::{Access, Effects, Func, Global, InstId, Module, Stage};

fn module(text: &str) -> Module {
    let m = parse(text).expect("parses");
    let diags = oneshader_ir::verify::verify(&m);
    assert!(diags.is_empty(), "{diags:?}");
    m
}

fn func(m: &Module, name: &str) -> Func {
    m.func_by_name(name)
        .unwrap_or_else(|| panic!("no function @{name}"))
}

fn global(m: &Module, name: &str) -> Global {
    m.global_by_name(name)
        .unwrap_or_else(|| panic!("no global @{name}"))
}

fn names(m: &Module, fs: &[Func]) -> Vec<String> {
    fs.iter()
        .map(|f| m.name(f.id()).unwrap_or("?").to_string())
        .collect()
}

const CALLS: &str = "func @c() -> void {
bb0:
  return
}
func @b() -> void {
bb0:
  call @c()
  return
}
func @a() -> void {
bb0:
  call @c()
  call @b()
  call @c()
  return
}
func @lonely() -> void {
bb0:
  return
}
";

#[test]
fn callees_callers_and_call_sites_are_in_module_order() {
    let m = module(CALLS);
    let cg = CallGraph::new(&m);
    let (a, b, c) = (func(&m, "a"), func(&m, "b"), func(&m, "c"));
    // Distinct callees in the order of their first call; repeated calls are one edge.
    assert_eq!(cg.callees(a), &[c, b]);
    assert_eq!(cg.callees(b), &[c]);
    assert!(cg.callees(c).is_empty());
    // Distinct callers in module order.
    assert_eq!(cg.callers(c), &[b, a]);
    assert_eq!(cg.callers(a), &[] as &[Func]);
    // Every call instruction naming `c`: one in @b, two in @a.
    let sites = cg.call_sites(c);
    assert_eq!(sites.len(), 3);
    assert_eq!(m.func_of(sites[0]), Some(b));
    assert!(sites[1..].iter().all(|&s| m.func_of(s) == Some(a)));
    assert_eq!(cg.call_sites(b).len(), 1);
}

#[test]
fn bottom_up_puts_every_callee_before_its_callers() {
    let m = module(CALLS);
    let cg = CallGraph::new(&m);
    let order: Vec<Func> = cg.bottom_up().collect();
    assert_eq!(order.len(), 4);
    let pos = |f: Func| order.iter().position(|&x| x == f).expect("listed");
    for &f in cg.functions() {
        for &g in cg.callees(f) {
            assert!(pos(g) < pos(f), "{:?} after its caller", m.name(g.id()));
        }
    }
    assert!(!cg.has_recursion());
    assert_eq!(cg.components().len(), 4);
    // Reachability: from @b, @b and @c; from @lonely, itself only.
    assert_eq!(names(&m, &cg.reachable([func(&m, "b")])), vec!["b", "c"]);
    assert_eq!(
        names(&m, &cg.reachable([func(&m, "lonely")])),
        vec!["lonely"]
    );
}

#[test]
fn recursion_is_found_and_grouped_into_components() {
    let m = module(
        "func @even(%0: u32) -> bool {
bb0:
  %1 = eq %0, u32 0 : bool
  if_else %1, bb1, bb2, merge bb3
bb1:
  br bb3(bool true)
bb2:
  %2 = sub %0, u32 1 : u32
  %3 = call @odd(%2) : bool
  br bb3(%3)
bb3(%4: bool):
  return %4
}
func @odd(%0: u32) -> bool {
bb0:
  %1 = eq %0, u32 0 : bool
  if_else %1, bb1, bb2, merge bb3
bb1:
  br bb3(bool false)
bb2:
  %2 = sub %0, u32 1 : u32
  %3 = call @even(%2) : bool
  br bb3(%3)
bb3(%4: bool):
  return %4
}
func @self(%0: u32) -> u32 {
bb0:
  %1 = call @self(%0) : u32
  return %1
}
func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {
bb0:
  %0 = call @even(u32 4) : bool
  return
}
",
    );
    let cg = CallGraph::new(&m);
    let (even, odd, selfr, main) = (
        func(&m, "even"),
        func(&m, "odd"),
        func(&m, "self"),
        func(&m, "main"),
    );
    assert!(cg.has_recursion());
    assert!(cg.is_recursive(even) && cg.is_recursive(odd));
    assert!(cg.is_recursive(selfr), "a function calling itself");
    assert!(!cg.is_recursive(main));
    assert_eq!(cg.component(even), cg.component(odd));
    assert_ne!(cg.component(even), cg.component(main));
    assert_ne!(cg.component(selfr), cg.component(main));
    let comps: Vec<&[Func]> = cg.components().collect();
    let pair = comps
        .iter()
        .position(|c| c.contains(&even))
        .expect("a component");
    assert_eq!(comps[pair].len(), 2);
    let of_main = comps
        .iter()
        .position(|c| c.contains(&main))
        .expect("listed");
    assert!(pair < of_main, "the cycle comes before its caller");
    // The entry point reaches the cycle (every shader target forbids that).
    let info = ModuleInfo::new(&m);
    assert_eq!(info.entry_points()[0].recursive(), Some(even));
}

const SHARED: &str = "global @light : ptr<uniform, vec<f32, 4>> [binding(0, 0)]
global @pos : ptr<output, vec<f32, 4>> [builtin(position)]
global @color : ptr<output, vec<f32, 4>> [location(0)]
global @scratch : ptr<private, f32>
global @unused : ptr<storage_buffer, rtarray<u32>> [binding(0, 1)]
func @shade() -> vec<f32, 4> {
bb0:
  %0 = load @light : vec<f32, 4>
  return %0
}
func @vs() -> void [entry_point(vertex, \"vs\")] {
bb0:
  %0 = call @shade() : vec<f32, 4>
  store @pos, %0
  return
}
func @ps() -> void [entry_point(fragment, \"ps\")] {
bb0:
  %0 = call @shade() : vec<f32, 4>
  store @color, %0
  %1 = extract %0, 0 : f32
  store @scratch, %1
  return
}
";

#[test]
fn entry_points_sharing_a_function_share_its_globals() {
    let m = module(SHARED);
    let info = ModuleInfo::new(&m);
    let entries = info.entry_points();
    assert_eq!(entries.len(), 2);
    let (vs, ps) = (&entries[0], &entries[1]);
    assert_eq!((vs.name(), vs.stage()), ("vs", Stage::Vertex));
    assert_eq!((ps.name(), ps.stage()), ("ps", Stage::Fragment));
    assert_eq!(names(&m, vs.functions()), vec!["vs", "shade"]);
    assert_eq!(vs.recursive(), None);
    assert_eq!(names(&m, ps.functions()), vec!["ps", "shade"]);
    // @light is named only by @shade, which both reach.
    let light = global(&m, "light");
    assert_eq!(vs.access_of(light), Some(Access::READ));
    assert_eq!(ps.access_of(light), Some(Access::READ));
    let both = StageSet::of(Stage::Vertex).union(StageSet::of(Stage::Fragment));
    assert_eq!(info.stages_of(light), both);
    assert_eq!(
        info.stages_of(light).iter().collect::<Vec<_>>(),
        vec![Stage::Vertex, Stage::Fragment]
    );
    // Each output belongs to one stage.
    assert_eq!(
        info.stages_of(global(&m, "pos")),
        StageSet::of(Stage::Vertex)
    );
    assert_eq!(
        info.stages_of(global(&m, "color")),
        StageSet::of(Stage::Fragment)
    );
    assert_eq!(ps.access_of(global(&m, "pos")), None);
    // An entry point's globals are in module order, whatever order they are used in.
    let used: Vec<&str> = ps
        .globals()
        .iter()
        .map(|u| m.name(u.global.id()).unwrap_or("?"))
        .collect();
    assert_eq!(used, vec!["light", "color", "scratch"]);
}

#[test]
fn unused_globals_are_reached_by_no_stage() {
    let m = module(SHARED);
    let info = ModuleInfo::new(&m);
    let unused = global(&m, "unused");
    assert!(!info.is_used(unused));
    assert!(info.stages_of(unused).is_empty());
    assert_eq!(info.access_of(unused), Access::NONE);
    assert!(
        info.entry_points()
            .iter()
            .all(|e| e.access_of(unused).is_none())
    );
    assert!(info.is_used(global(&m, "scratch")));
}

#[test]
fn accesses_through_pointer_parameters_are_charged_to_the_callers_global() {
    let m = module(
        "global @buf : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]
global @counter : ptr<storage_buffer, rtarray<u32>> [binding(0, 1)]
global @ro : ptr<storage_buffer, rtarray<u32>> [binding(0, 2)]
global @sized : ptr<storage_buffer, rtarray<u32>> [binding(0, 3)]
func @put(%0: ptr<storage_buffer, u32>, %1: u32) -> void {
bb0:
  store %0, %1
  return
}
func @get(%0: ptr<storage_buffer, u32>) -> u32 {
bb0:
  %1 = load %0 : u32
  return %1
}
func @relay(%0: ptr<storage_buffer, u32>, %1: ptr<storage_buffer, u32>) -> void {
bb0:
  %2 = call @get(%1) : u32
  call @put(%0, %2)
  %3 = atomic_rmw add, %1, u32 1 : u32
  return
}
func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {
bb0:
  %0 = element_addr @buf, u32 0 : ptr<storage_buffer, u32>
  %1 = element_addr @counter, u32 0 : ptr<storage_buffer, u32>
  call @relay(%0, %1)
  %2 = element_addr @ro, u32 1 : ptr<storage_buffer, u32>
  %3 = call @get(%2) : u32
  %4 = array_length @sized : u32
  return
}
",
    );
    let info = ModuleInfo::new(&m);
    let relay = info.function(func(&m, "relay")).expect("analysed");
    assert_eq!(relay.param_access(0), Access::WRITE);
    assert_eq!(relay.param_access(1), Access::READ | Access::ATOMIC);
    assert_eq!(relay.param_access(2), Access::NONE, "out of range");
    let put = info.function(func(&m, "put")).expect("analysed");
    assert_eq!(put.param_access(1), Access::NONE, "not a pointer");
    let e = &info.entry_points()[0];
    // Two levels of calls away from the store and the load.
    assert_eq!(e.access_of(global(&m, "buf")), Some(Access::WRITE));
    assert_eq!(
        e.access_of(global(&m, "counter")),
        Some(Access::READ | Access::ATOMIC)
    );
    assert_eq!(e.access_of(global(&m, "ro")), Some(Access::READ));
    assert!(!Access::READ.writes() && Access::ATOMIC.writes() && Access::ATOMIC.reads());
    // Named but neither read nor written.
    assert_eq!(e.access_of(global(&m, "sized")), Some(Access::NONE));
    // The callees name no global: only @main does.
    assert!(relay.globals().is_empty());
    assert_eq!(
        info.function(func(&m, "main"))
            .expect("analysed")
            .globals()
            .len(),
        4
    );
    // `roots` follows the parameter of @get to the arguments of both calls of it.
    let get = func(&m, "get");
    let load = get.entry(&m).expect("a body").insts(&m)[0];
    let p = m.operand(load, 0);
    let roots: Vec<&str> = info
        .roots(&m, p)
        .iter()
        .map(|g| m.name(g.id()).unwrap_or("?"))
        .collect();
    assert_eq!(roots.len(), 2);
    assert!(
        roots.contains(&"counter") && roots.contains(&"ro"),
        "{roots:?}"
    );
}

#[test]
fn recursion_settles_the_accesses_of_parameters() {
    // @ping stores through its parameter only by way of @pong, which calls it back.
    let m = module(
        "global @buf : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]
func @ping(%0: ptr<storage_buffer, u32>, %1: u32) -> void {
bb0:
  %2 = eq %1, u32 0 : bool
  if_else %2, bb1, bb2, merge bb2
bb1:
  call @pong(%0, %1)
  br bb2
bb2:
  return
}
func @pong(%0: ptr<storage_buffer, u32>, %1: u32) -> void {
bb0:
  %2 = eq %1, u32 0 : bool
  if_else %2, bb1, bb2, merge bb3
bb1:
  store %0, %1
  br bb3
bb2:
  %3 = sub %1, u32 1 : u32
  call @ping(%0, %3)
  br bb3
bb3:
  return
}
func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {
bb0:
  %0 = element_addr @buf, u32 0 : ptr<storage_buffer, u32>
  call @ping(%0, u32 3)
  return
}
",
    );
    let info = ModuleInfo::new(&m);
    assert_eq!(
        info.function(func(&m, "ping"))
            .expect("analysed")
            .param_access(0),
        Access::WRITE
    );
    assert_eq!(
        info.entry_points()[0].access_of(global(&m, "buf")),
        Some(Access::WRITE)
    );
}

#[test]
fn declarations_are_callees_that_may_do_anything() {
    let m = module(
        "global @buf : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]
func @ext(ptr<storage_buffer, u32>, u32) -> void [import(\"ext\")]
func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {
bb0:
  %0 = element_addr @buf, u32 0 : ptr<storage_buffer, u32>
  call @ext(%0, u32 1)
  return
}
",
    );
    let cg = CallGraph::new(&m);
    let (ext, main) = (func(&m, "ext"), func(&m, "main"));
    assert_eq!(cg.callees(main), &[ext]);
    assert_eq!(cg.bottom_up().collect::<Vec<_>>(), vec![ext, main]);
    let info = ModuleInfo::new(&m);
    let d = info.function(ext).expect("analysed");
    assert_eq!(d.effects(), Effects::UNKNOWN_CALL);
    assert_eq!(d.param_access(0), Access::READ | Access::WRITE);
    assert_eq!(d.param_access(1), Access::NONE);
    let e = &info.entry_points()[0];
    assert_eq!(names(&m, e.functions()), vec!["main", "ext"]);
    assert_eq!(
        e.access_of(global(&m, "buf")),
        Some(Access::READ | Access::WRITE)
    );
    assert!(e.effects().contains(Effects::BARRIER));
}

#[test]
fn entry_effects_include_what_their_callees_do() {
    let m = module(
        "global @tex : ptr<uniform_constant, texture<2d, vec<f32, 4>>> [binding(0, 0)]
global @smp : ptr<uniform_constant, sampler> [binding(0, 1)]
global @uv : ptr<input, vec<f32, 2>> [location(0)]
global @out : ptr<output, vec<f32, 4>> [location(0)]
func @fetch(%0: vec<f32, 2>) -> vec<f32, 4> {
bb0:
  %1 = sample @tex, @smp, %0 : vec<f32, 4>
  return %1
}
func @pure(%0: f32) -> f32 {
bb0:
  %1 = mul %0, %0 : f32
  return %1
}
func @ps() -> void [entry_point(fragment, \"ps\")] {
bb0:
  %0 = load @uv : vec<f32, 2>
  %1 = call @fetch(%0) : vec<f32, 4>
  store @out, %1
  return
}
func @cs() -> void [entry_point(compute, \"cs\"), numthreads(1, 1, 1)] {
bb0:
  %0 = call @pure(f32 2.0) : f32
  barrier sync|workgroup
  return
}
",
    );
    let info = ModuleInfo::new(&m);
    let fetch = info.function(func(&m, "fetch")).expect("analysed");
    assert!(
        fetch
            .effects()
            .contains(Effects::DERIVATIVES | Effects::CONVERGENT)
    );
    assert!(
        info.function(func(&m, "pure"))
            .expect("analysed")
            .effects()
            .is_pure(),
        "its return is its own"
    );
    let ps = info.entry_point(func(&m, "ps")).expect("an entry point");
    assert!(ps.effects().contains(Effects::DERIVATIVES));
    assert!(ps.effects().contains(Effects::WRITE));
    assert_eq!(ps.access_of(global(&m, "tex")), Some(Access::READ));
    assert_eq!(ps.access_of(global(&m, "smp")), Some(Access::NONE));
    let cs = info.entry_point(func(&m, "cs")).expect("an entry point");
    assert!(!cs.effects().contains(Effects::DERIVATIVES));
    assert!(cs.effects().contains(Effects::BARRIER));
    assert!(cs.globals().is_empty());
    assert_eq!(
        entry_point_of(&m, func(&m, "cs")),
        Some((Stage::Compute, "cs"))
    );
    assert_eq!(entry_point_of(&m, func(&m, "pure")), None);
}

/// The instructions of the entry block of the only function.
fn insts(m: &Module) -> Vec<InstId> {
    m.functions()[0].entry(m).expect("a body").insts(m)
}

#[test]
fn effects_are_exact_per_instruction() {
    let m = module(
        "global @cb : ptr<uniform, f32> [binding(0, 0)]
global @sb : ptr<storage_buffer, rtarray<f32>> [binding(0, 1)]
global @uv : ptr<input, vec<f32, 2>> [location(0)]
func @f() -> void [entry_point(fragment, \"f\")] {
bb0:
  %0 = load @cb : f32
  %1 = element_addr @sb, u32 0 : ptr<storage_buffer, f32>
  %2 = load %1 : f32
  %3 = var : ptr<function, f32>
  %4 = var : ptr<function, f32>
  call_intrinsic sincos(%0, %3, %4)
  %5 = call_intrinsic ddx(%2) : f32
  %6 = call_intrinsic wave_active_sum(%2) : f32
  %7 = call_intrinsic interpolate_at_centroid(@uv) : vec<f32, 2>
  %8 = call_intrinsic sqrt(%2) : f32
  %9 = atomic_rmw add, %1, f32 1.0 : f32
  store %1, %8
  return
}
",
    );
    let i = insts(&m);
    let fx = |k: usize| m.effects(i[k]);
    assert!(
        fx(0).is_pure(),
        "a constant buffer is read-only while the shader runs"
    );
    assert!(fx(1).is_pure());
    assert_eq!(fx(2), Effects::READ);
    assert_eq!(fx(3), Effects::ALLOCATES);
    assert_eq!(
        fx(5),
        Effects::WRITE,
        "sincos writes through its out operands"
    );
    assert_eq!(fx(6), Effects::CONVERGENT | Effects::DERIVATIVES);
    assert_eq!(fx(7), Effects::CONVERGENT);
    assert!(
        fx(8).is_pure(),
        "interpolating a stage input reads nothing that changes"
    );
    assert!(fx(9).is_pure());
    assert_eq!(fx(10), Effects::READ | Effects::WRITE);
    assert_eq!(fx(11), Effects::WRITE);
    assert_eq!(fx(12), Effects::CONTROL);
    // Which operands are accessed, and how.
    let acc = |k: usize| m.memory_accesses(i[k]).to_vec();
    assert_eq!(acc(0), vec![(m.operand(i[0], 0), Access::READ)]);
    assert_eq!(acc(5), vec![(i[3], Access::WRITE), (i[4], Access::WRITE)]);
    assert_eq!(acc(10), vec![(i[1], Access::ATOMIC)]);
    assert_eq!(acc(11), vec![(i[1], Access::WRITE)]);
    assert!(acc(9).is_empty());
}
