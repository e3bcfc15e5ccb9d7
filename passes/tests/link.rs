//! Linking: the examples under examples/link link into one valid module; types and shared
//! structs unify; imports bind to exports; exported generics are specialized by importers;
//! unreachable code is dropped unless exports are kept; each diagnostic has a test.

use oneshader_ir::{Module, Op, parse::parse, print::print_module, verify::verify};
use oneshader_passes::link::{LinkOptions, link, mangle, mangle_generic, type_spelling};

fn example(name: &str) -> Module {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/link")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("example exists");
    parse(&text).unwrap_or_else(|e| panic!("{name}: {e:?}"))
}

fn p(text: &str) -> Module {
    parse(text).unwrap_or_else(|e| panic!("{e:?}\n{text}"))
}

fn named(names: &[&str]) -> LinkOptions {
    LinkOptions {
        keep_exports: false,
        module_names: names.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    }
}

/// Links and expects a diagnostic with `code` (and no other code); returns its message and
/// notes.
fn link_err(mods: &[Module], code: &str) -> (String, Vec<String>) {
    let names: Vec<String> = (0..mods.len()).map(|i| format!("m{i}.ir")).collect();
    let opts = LinkOptions {
        keep_exports: false,
        module_names: names,
        ..Default::default()
    };
    match link(mods, &opts) {
        Ok(m) => panic!("linked, expected {code}:\n{}", print_module(&m)),
        Err(ds) => {
            let d = ds
                .iter()
                .find(|d| d.code == code)
                .unwrap_or_else(|| panic!("no {code} in {ds:#?}"));
            assert!(
                ds.iter().all(|d| d.code == code || d.code == "OSK0001"),
                "{ds:#?}"
            );
            (d.message.clone(), d.notes.clone())
        }
    }
}

const LINKED_EXAMPLES: &str = "\
struct @Params {
  scale: f32
  bias: f32
}
global @results : ptr<storage_buffer, rtarray<f32>> [binding(0, 0), export(\"results\")]

func @apply(%0.p: @Params, %1.x: f32) -> f32 [export(\"apply(@Params,f32)->f32\")] {
bb0:
  %2 = extract %0, 0 : f32
  %3 = extract %0, 1 : f32
  %4 = mul %1, %2 : f32
  %5 = add %4, %3 : f32
  return %5
}

func @lerp3(%0.a: f32, %1.b: f32, %2.t: f32) -> f32 [export(\"lerp3(f32,f32,f32)->f32\")] {
bb0:
  %3 = sub %1, %0 : f32
  %4 = mul %3, %2 : f32
  %5 = add %0, %4 : f32
  return %5
}

func @choose_impl(%0.c: bool, %1.a: f32, %2.b: f32) -> f32 {
bb0:
  %3 = select %0, %1, %2 : f32
  return %3
}

func @choose_impl.1(%0.c: bool, %1.a: u32, %2.b: u32) -> u32 {
bb0:
  %3 = select %0, %1, %2 : u32
  return %3
}
global @gid : ptr<input, vec<u32, 3>> [builtin(global_invocation_id)]

func @main() -> void [entry_point(compute, \"main\"), numthreads(64, 1, 1)] {
bb0:
  %0 = load @gid : vec<u32, 3>
  %1 = extract %0, 0 : u32
  %2 = convert %1 : f32
  %3 = construct f32 2.0, f32 0.5 : @Params
  %4 = call @apply(%3, %2) : f32
  %5 = lt %4, f32 100.0 : bool
  %6 = call @choose_impl(%5, %4, f32 100.0) : f32
  %7 = element_addr @results, %1 : ptr<storage_buffer, f32>
  store %7, %6
  return
}
global @gid.1 : ptr<input, vec<u32, 3>> [builtin(global_invocation_id)]

func @blend() -> void [entry_point(compute, \"blend\"), numthreads(32, 1, 1)] {
bb0:
  %0 = load @gid.1 : vec<u32, 3>
  %1 = extract %0, 0 : u32
  %2 = lt %1, u32 16 : bool
  %3 = call @choose_impl.1(%2, %1, u32 16) : u32
  %4 = convert %3 : f32
  %5 = call @lerp3(f32 0.0, %4, f32 0.25) : f32
  %6 = element_addr @results, %1 : ptr<storage_buffer, f32>
  store %6, %5
  return
}
";

/// The expected text in the printer's canonical form (so the comparison does not depend on
/// printer details such as whether references repeat name hints).
fn canonical(text: &str) -> String {
    print_module(&p(text))
}

#[test]
fn the_examples_link_into_one_valid_module() {
    let mods = [
        example("lib.ir"),
        example("shader_a.ir"),
        example("shader_b.ir"),
    ];
    let out = link(&mods, &named(&["lib.ir", "shader_a.ir", "shader_b.ir"]))
        .unwrap_or_else(|d| panic!("{d:#?}"));
    assert!(verify(&out).is_empty());
    let text = print_module(&out);
    assert_eq!(text, canonical(LINKED_EXAMPLES), "\n{text}");
    // One struct (the header's two copies unified), no generic left, nothing imported.
    assert_eq!(out.structs().len(), 1);
    assert!(out.generics().is_empty());
    assert!(!text.contains("import("));
    assert!(!text.contains("unused_helper"));
}

#[test]
fn keep_exports_keeps_the_library_and_drops_the_rest() {
    let lib = example("lib.ir");
    let out = link(
        std::slice::from_ref(&lib),
        &LinkOptions {
            keep_exports: true,
            module_names: vec!["lib.ir".into()],
            ..Default::default()
        },
    )
    .unwrap();
    let text = print_module(&out);
    for f in ["@apply", "@lerp3", "@choose", "@results"] {
        assert!(text.contains(f), "{f} kept:\n{text}");
    }
    assert!(!text.contains("unused_helper"), "{text}");
    assert_eq!(
        out.generics().len(),
        1,
        "the exported generic stays a generic"
    );
    // Without --keep-exports a library without entry points links to nothing.
    let empty = link(std::slice::from_ref(&lib), &LinkOptions::default()).unwrap();
    assert_eq!(print_module(&empty), "");
    // A linked library links again with its users.
    let again = link(
        &[out, example("shader_a.ir"), example("shader_b.ir")],
        &LinkOptions::default(),
    )
    .unwrap();
    assert_eq!(print_module(&again), canonical(LINKED_EXAMPLES));
}

#[test]
fn hoistable_values_unify_across_modules() {
    let a = p("global @x : ptr<private, vec<i32, 4>> [export(\"x\")]\n");
    let b = p("\
global @x : ptr<private, vec<i32, 4>> [import(\"x\")]
global @y : ptr<private, array<vec<i32, 4>, 2>>
func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {
bb0:
  %0 = load @x : vec<i32, 4>
  %1 = element_addr @y, i32 0 : ptr<private, vec<i32, 4>>
  store %1, %0
  return
}
");
    let out = link(&[a, b], &LinkOptions::default()).unwrap();
    let x = out.global_by_name("x").unwrap();
    let y = out.global_by_name("y").unwrap();
    let px = out.pointee(out.ty(x.id()).unwrap()).unwrap();
    let py = out.pointee(out.ty(y.id()).unwrap()).unwrap();
    // `vec<i32, 4>` of module a and of module b are one value.
    assert_eq!(out.operand(py, 0), px);
    let i32s = out.all_ids().filter(|&i| out.op(i) == Op::I32).count();
    assert_eq!(i32s, 1);
}

#[test]
fn same_name_structs_that_differ_stay_two_types() {
    let a = p("\
struct @S {
  a: f32
}
global @ga : ptr<private, @S>
func @fa() -> void [entry_point(compute, \"fa\"), numthreads(1, 1, 1)] {
bb0:
  %0 = load @ga : @S
  store @ga, %0
  return
}
");
    let b = p("\
struct @S {
  a: i32
}
global @gb : ptr<private, @S>
func @fb() -> void [entry_point(compute, \"fb\"), numthreads(1, 1, 1)] {
bb0:
  %0 = load @gb : @S
  store @gb, %0
  return
}
");
    let out = link(&[a, b], &LinkOptions::default()).unwrap();
    assert_eq!(out.structs().len(), 2);
    assert!(print_module(&out).contains("struct @S.1 {\n  a: i32\n}"));
}

#[test]
fn structs_of_one_module_stay_nominal() {
    // Two identical structs in one module are two types (the text form cannot even name them
    // alike, so build them); a later module's copy unifies with the first only.
    use oneshader_ir::AddressSpace;
    let mut a = Module::new();
    let f32t = a.f32_type();
    let s1 = a.add_struct("S", &[("a", f32t)]);
    let s2 = a.add_struct("S", &[("a", f32t)]);
    for (name, s) in [("g1", s1), ("g2", s2)] {
        let g = a.add_global(name, AddressSpace::Private, s.id(), None);
        let sym = a.const_string(name);
        a.decorate(g.id(), Op::Export, &[sym]);
    }
    let b = p("\
struct @S {
  a: f32
}
global @g3 : ptr<private, @S> [export(\"g3\")]
");
    let out = link(
        &[a, b],
        &LinkOptions {
            keep_exports: true,
            module_names: Vec::new(),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(out.structs().len(), 2, "{}", print_module(&out));
    let pointee = |n: &str| {
        let g = out.global_by_name(n).unwrap();
        out.pointee(out.ty(g.id()).unwrap()).unwrap()
    };
    assert_ne!(pointee("g1"), pointee("g2"));
    assert_eq!(pointee("g1"), pointee("g3"));
}

#[test]
fn missing_symbol() {
    let a = p("\
func @f(f32) -> f32 [import(\"f(f32)->f32\")]
func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {
bb0:
  %0 = call @f(f32 1.0) : f32
  return
}
");
    let b = p("\
func @f(%0: i32) -> i32 [export(\"f(i32)->i32\")] {
bb0:
  return %0
}
");
    let (msg, notes) = link_err(&[a, b], "OSK0001");
    assert_eq!(
        msg,
        "`f(f32)->f32` is imported by m0.ir (func @f) but no module exports it"
    );
    assert_eq!(
        notes,
        vec!["m1.ir exports `f(i32)->i32`: a different signature"]
    );
}

#[test]
fn symbol_exported_twice() {
    let def = "func @f(%0: f32) -> f32 [export(\"f(f32)->f32\")] {\nbb0:\n  return %0\n}\n";
    let (msg, notes) = link_err(&[p(def), p(def)], "OSK0002");
    assert_eq!(msg, "`f(f32)->f32` is exported by both m0.ir and m1.ir");
    assert_eq!(notes.len(), 2);
}

#[test]
fn import_whose_type_differs_explains_the_struct() {
    // The shared header changed between the two compilations.
    let lib = p("\
struct @Light {
  color: vec<f32, 4>
}
func @shade(%0: @Light) -> f32 [export(\"shade(@Light)->f32\")] {
bb0:
  return f32 1.0
}
");
    let user = p("\
struct @Light {
  color: vec<f32, 3>
}
func @shade(@Light) -> f32 [import(\"shade(@Light)->f32\")]
");
    let (msg, notes) = link_err(&[lib, user], "OSK0003");
    assert_eq!(
        msg,
        "`shade(@Light)->f32` is imported by m1.ir with type `fn(@Light) -> f32` but exported by m0.ir with type `fn(@Light) -> f32`"
    );
    assert_eq!(
        notes,
        vec![
            "struct @Light differs at field 0: `color: vec<f32, 3>` in m1.ir, `color: vec<f32, 4>` in m0.ir"
        ]
    );
    // A plain type mismatch of a global.
    let a = p("global @g : ptr<private, f32> [export(\"g\")]\n");
    let b = p("global @g : ptr<private, i32> [import(\"g\")]\n");
    let (msg, _) = link_err(&[a, b], "OSK0003");
    assert!(
        msg.contains("`ptr<private, i32>`") && msg.contains("`ptr<private, f32>`"),
        "{msg}"
    );
}

#[test]
fn import_of_another_kind() {
    let a = p("global @g : ptr<private, f32> [export(\"g\")]\n");
    let b = p("func @g() -> void [import(\"g\")]\n");
    let (msg, _) = link_err(&[a, b], "OSK0004");
    assert_eq!(
        msg,
        "`g` is imported by m1.ir as a func but exported by m0.ir as a global"
    );
}

#[test]
fn colliding_entry_points() {
    let e = "func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {\nbb0:\n  return\n}\n";
    let (msg, _) = link_err(&[p(e), p(e)], "OSK0005");
    assert_eq!(
        msg,
        "m0.ir and m1.ir both define a compute entry point named \"main\""
    );
}

#[test]
fn invalid_input_module() {
    let mut bad = p("func @f(%0: i32) -> i32 {\nbb0:\n  return %0\n}\n");
    // Break it: the function now returns a float constant.
    let ret = bad.functions()[0].entry(&bad).unwrap().insts(&bad)[0];
    let one = bad.const_f32(1.0);
    bad.set_operand(ret, 0, one).unwrap();
    let (msg, notes) = link_err(&[bad], "OSK0006");
    assert!(msg.starts_with("m0.ir does not verify"), "{msg}");
    assert!(notes.iter().any(|n| n.contains("OSV0019")), "{notes:?}");
}

#[test]
fn malformed_symbols() {
    let (msg, _) = link_err(
        &[p(
            "func @f() -> void [import(\"f()->void\")] {\nbb0:\n  return\n}\n",
        )],
        "OSK0007",
    );
    assert!(msg.contains("is imported but has a body"), "{msg}");
    let (msg, _) = link_err(
        &[p("func @f() -> void [export(\"f()->void\")]\n")],
        "OSK0007",
    );
    assert!(msg.contains("is exported but has no body"), "{msg}");
}

#[test]
fn mangled_names() {
    let mut m = Module::new();
    let f32t = m.f32_type();
    let v3 = m.vector_type(f32t, 3);
    let s = m.add_struct("Light", &[("color", v3)]);
    let ptr = m.ptr_type(oneshader_ir::AddressSpace::StorageBuffer, s.id());
    let u32t = m.u32_type();
    let mat = m.matrix_type(f32t, 4, 3);
    assert_eq!(
        mangle(&m, "shade", &[s.id(), v3, mat], f32t),
        "shade(@Light,vec<f32,3>,mat<f32,4,3>)->f32"
    );
    let void = m.void_type();
    assert_eq!(mangle(&m, "run", &[], void), "run()->void");
    assert_eq!(type_spelling(&m, ptr), "ptr<storage_buffer,@Light>");
    let tex = m.texture_type(oneshader_ir::TextureDesc {
        sampled_type: u32t,
        dim: oneshader_ir::Dim::D2,
        arrayed: true,
        multisampled: false,
        depth: 0,
        access: oneshader_ir::TextureAccess::Storage,
        format: oneshader_ir::ImageFormat::R32ui,
    });
    assert_eq!(
        type_spelling(&m, tex),
        "texture<2d,u32,1,0,0,storage,r32ui>"
    );
    let lib = example("lib.ir");
    let g = lib.generics()[0];
    assert_eq!(
        mangle_generic(&lib, "choose", g),
        "choose<type>(bool,$0,$0)->$0"
    );
    // The example's exports use exactly these names.
    let apply = lib.func_by_name("apply").unwrap();
    let fty = apply.fn_type(&lib).unwrap();
    let name = mangle(
        &lib,
        "apply",
        &lib.fn_params(fty),
        lib.fn_return(fty).unwrap(),
    );
    assert!(
        print_module(&lib).contains(&format!("export(\"{name}\")")),
        "{name}"
    );
}

#[test]
fn generics_yielding_types_link_and_specialize() {
    let lib = p("\
generic @Pair<%0.T: type> [export(\"Pair<type>\")] {
  struct @P {
    a: %0
    b: %0
  }
  return @P
}
");
    let user = p("\
generic @Pair<%0.T: type> [import(\"Pair<type>\")] {
  struct @P {
    a: %0
    b: %0
  }
  return @P
}
global @g : ptr<private, specialize<type>(@Pair, f32)>
func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {
bb0:
  %0 = load @g : specialize<type>(@Pair, f32)
  store @g, %0
  return
}
");
    let out = link(&[lib, user.clone()], &LinkOptions::default()).unwrap();
    assert_eq!(
        print_module(&out),
        canonical(
            "\
struct @P {
  a: f32
  b: f32
}
global @g : ptr<private, @P>

func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {
bb0:
  %0 = load @g : @P
  store @g, %0
  return
}
"
        )
    );
    // A declaration that disagrees (one parameter more) is a type mismatch.
    let other = p("\
generic @Pair<%0.T: type, %1.U: type> [export(\"Pair<type>\")] {
  struct @P {
    a: %0
    b: %1
  }
  return @P
}
");
    let (msg, _) = link_err(&[other, user], "OSK0003");
    assert!(
        msg.starts_with("`Pair<type>` is imported by m1.ir"),
        "{msg}"
    );
}

#[test]
fn specialization_failure_after_linking() {
    // A generic that instantiates itself with ever larger arguments.
    let m = p("\
generic @G<%0.T: type> [export(\"G<type>($0)->$0\")] {
  func @g_impl(%1.x: %0) -> %0 {
  bb0:
    %2 = call specialize<fn(array<%0, 2>) -> array<%0, 2>>(@G, array<%0, 2>)(array<%0, 2> undef) : array<%0, 2>
    return %1
  }
  return @g_impl
}
func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {
bb0:
  %0 = call specialize<fn(i32) -> i32>(@G, i32)(i32 1) : i32
  return
}
");
    let (msg, _) = link_err(&[m], "OSK0008");
    assert!(
        msg.starts_with("specializing generics after linking failed:"),
        "{msg}"
    );
}
