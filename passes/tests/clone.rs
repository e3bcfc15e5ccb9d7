//! The cloner: within a module (with a value map) and across modules (hoisted values
//! re-interned, items mapped first).

mod common;
mod support_b;
use common::module;
use oneshader_ir::print::print_module;
use oneshader_ir::verify::verify;
use oneshader_ir::{Module, Op};
use oneshader_passes::clone::{CloneError, Cloner};
use support_b::assert_module;

const SRC: &str = r"
struct @Light {
  color: vec<f32, 3>
  intensity: f32 [offset(12)]
}
global @lights : ptr<storage_buffer, rtarray<@Light>> [binding(0, 1), readonly]
global @count : ptr<private, u32> = u32 0
func @brightest(%n: u32) -> f32 {
bb0:
  loop bb1(u32 0, f32 0.0), break bb2, continue bb3
bb1(%i: u32, %best: f32):
  %t = lt %i, %n : bool
  cond_br %t, bb4, bb2
bb4:
  %l = element_addr @lights, %i : ptr<storage_buffer, @Light>
  %p = field_addr %l, 1 : ptr<storage_buffer, f32>
  %v = load %p : f32
  %gt = gt %v, %best : bool
  %b2 = select %gt, %v, %best : f32
  br bb3
bb3:
  %i2 = add %i, u32 1 : u32
  br bb1(%i2, %b2)
bb2:
  store @count, %i
  return %best
}";

/// Cloning every item into an empty module, in order, reproduces the module exactly: types
/// and constants are re-interned in the destination, decorations and names come along.
#[test]
fn across_modules() {
    let src = module(SRC);
    let mut dst = Module::new();
    let mut c = Cloner::from_module(&src);
    let root = dst.root();
    for item in src.children(src.root()) {
        if src.op(item).is_hoistable() {
            continue;
        }
        c.clone_item(&mut dst, item, root).unwrap();
    }
    assert!(verify(&dst).is_empty(), "{:#?}", verify(&dst));
    assert_module(&dst, SRC);
}

/// A function referring to a global the destination does not have fails to clone across
/// modules unless the global is mapped first.
#[test]
fn unmapped_reference_across_modules() {
    let src = module(SRC);
    let f = src.func_by_name("brightest").unwrap();
    let mut dst = Module::new();
    let root = dst.root();
    let err = Cloner::from_module(&src)
        .clone_item(&mut dst, f.id(), root)
        .expect_err("the globals are not mapped");
    assert!(matches!(err, CloneError::Unmapped(_)), "{err}");
    // Cloning the items it refers to first (struct, then globals) maps them, then it works.
    let mut dst = Module::new();
    let root = dst.root();
    let mut c = Cloner::from_module(&src);
    let s = src.structs()[0];
    let ns = c.clone_item(&mut dst, s.id(), root).unwrap();
    for name in ["lights", "count"] {
        let g = src.global_by_name(name).unwrap();
        c.clone_item(&mut dst, g.id(), root).unwrap();
    }
    let nf = c.clone_item(&mut dst, f.id(), root).unwrap();
    assert!(verify(&dst).is_empty());
    assert_eq!(c.get(s.id()), Some(ns));
    assert_eq!(c.get(f.id()), Some(nf));
    assert_module(&dst, SRC);
}

/// Within one module, a function inside a generic is cloned to module level with the
/// generic's parameter mapped to `i32`: its types collapse onto the module's.
#[test]
fn within_a_module_with_a_value_map() {
    let mut m = module(
        r"
generic @id<%T: type> {
  func @id_impl(%x: %T) -> %T {
  bb0:
    %p = var : ptr<function, %T>
    store %p, %x
    %y = load %p : %T
    return %y
  }
  return @id_impl
}
func @other(%x: i32) -> i32 {
bb0:
  return %x
}",
    );
    let g = m.generics()[0];
    let body = m.generic_body(g);
    let t = body.params(&m)[0].id();
    let f = m
        .children(body.id())
        .find(|&c| m.op(c) == Op::Func)
        .unwrap();
    let i32t = m.i32_type();
    let before_types = m.children(m.root()).filter(|&c| m.op(c).is_type()).count();
    let mut c = Cloner::new();
    c.insert(t, i32t);
    let root = m.root();
    let nf = c.clone_item(&mut m, f, root).unwrap();
    assert!(verify(&m).is_empty(), "{:#?}", verify(&m));
    // `fn(i32) -> i32` existed (from @other); only `ptr<function, i32>` is new.
    let after_types = m.children(m.root()).filter(|&c| m.op(c).is_type()).count();
    assert_eq!(after_types, before_types + 1);
    assert_eq!(m.ty(nf), m.ty(m.func_by_name("other").unwrap().id()));
    let text = print_module(&m);
    assert!(
        text.contains(
            "func @id_impl(%0: i32) -> i32 {\nbb0:\n  %1 = var : ptr<function, i32>\n  store %1, %0\n  %2 = load %1 : i32\n  return %2\n}"
        ),
        "{text}"
    );
}

/// Cloning blocks into another function with parameters substituted (the inliner's use).
#[test]
fn blocks_with_substituted_parameters() {
    let mut m = module(
        r"
func @callee(%a: i32, %b: i32) -> i32 {
bb0:
  %c = lt %a, %b : bool
  if_else %c, bb1, bb2, merge bb3
bb1:
  br bb3(%a)
bb2:
  br bb3(%b)
bb3(%r: i32):
  return %r
}
func @host(%x: i32) -> i32 {
bb0:
  return %x
}",
    );
    let callee = m.func_by_name("callee").unwrap();
    let host = m.func_by_name("host").unwrap();
    let params: Vec<_> = callee.params(&m).iter().map(|p| p.id()).collect();
    let x = host.params(&m)[0].id();
    let seven = m.const_i32(7);
    let mut c = Cloner::new();
    c.insert(params[0], x);
    c.insert(params[1], seven);
    let entry = host.entry(&m).unwrap();
    let blocks = callee.blocks(&m);
    let new = c.clone_blocks(&mut m, &blocks, host, Some(entry)).unwrap();
    assert_eq!(new.len(), 4);
    assert!(
        new[0].params(&m).is_empty(),
        "substituted parameters are not copied"
    );
    assert_eq!(new[3].params(&m).len(), 1);
    let text = print_module(&m);
    assert!(
        text.contains("bb1:\n  %1 = lt %0, i32 7 : bool\n  if_else %1, bb2, bb3, merge bb4\nbb2:\n  br bb4(%0)\nbb3:\n  br bb4(i32 7)\nbb4(%2: i32):\n  return %2\n}"),
        "{text}"
    );
}

/// The span `start..start + 1` of file `file`.
fn at(file: u32, start: u32) -> oneshader_ir::Span {
    oneshader_ir::Span {
        file: oneshader_ir::FileId(file),
        start,
        end: start + 1,
    }
}

/// Functions and globals carry their declaration (`oneshader_ir::positions`): a copy within
/// one module keeps it, a copy across modules only through a file map.
#[test]
fn declarations_keep_their_positions_within_a_module_and_through_a_file_map() {
    let mut src = module(SRC);
    let find = |m: &Module, name: &str| {
        m.children(m.root())
            .find(|&i| m.name(i) == Some(name) && !m.op(i).is_hoistable())
            .expect("declared")
    };
    let (lights, count) = (find(&src, "lights"), find(&src, "count"));
    src.set_position(lights, Some(at(1, 7)));
    src.set_position(count, Some(at(1, 9)));
    let f = find(&src, "brightest");
    src.set_position(f, Some(at(0, 30)));
    // Within one module.
    let mut same = src.clone();
    let root = same.root();
    let copy = Cloner::new().clone_item(&mut same, lights, root).unwrap();
    assert_eq!(same.position(copy), Some(at(1, 7)));
    // Across modules without a map: nothing (the file ids are the source's).
    let mut dst = Module::new();
    let mut c = Cloner::from_module(&src);
    let root = dst.root();
    let g = c.clone_item(&mut dst, count, root).unwrap();
    assert_eq!(dst.position(g), None);
    // With one: file 0 of the source is file 3 here, file 1 file 5.
    let mut dst = Module::new();
    let files = vec![oneshader_ir::FileId(3), oneshader_ir::FileId(5)];
    let mut c = Cloner::from_module(&src).with_file_map(files);
    let root = dst.root();
    let mut copies = Vec::new();
    for item in src.children(src.root()) {
        if !src.op(item).is_hoistable() {
            copies.push(c.clone_item(&mut dst, item, root).unwrap());
        }
    }
    assert!(verify(&dst).is_empty(), "{:#?}", verify(&dst));
    assert_eq!(dst.position(find(&dst, "lights")), Some(at(5, 7)));
    assert_eq!(dst.position(find(&dst, "brightest")), Some(at(3, 30)));
    assert_eq!(dst.position(find(&dst, "count")), Some(at(5, 9)));
    assert_eq!(copies.len(), 4, "the struct, two globals, the function");
    let positioned = copies
        .iter()
        .filter(|&&c| dst.position(c).is_some())
        .count();
    assert_eq!(positioned, 3, "the struct carries none");
}

/// The linker copies each input's positions, declarations included, through the file map
/// `LinkOptions::source_files` gives it, and drops those of an input without one.
#[test]
fn the_linker_keeps_positions_through_its_file_maps() {
    use oneshader_passes::link::{LinkOptions, link};
    let lib = "func @twice(%0: f32) -> f32 [export(\"twice(f32)->f32\")] {\nbb0:\n  %1 = add %0, %0 : f32\n  return %1\n}\n";
    let shader = "global @out : ptr<storage_buffer, rtarray<f32>> [binding(0, 0)]\n\
        func @twice(f32) -> f32 [import(\"twice(f32)->f32\")]\n\
        func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {\n\
        bb0:\n  %0 = call @twice(f32 1.5) : f32\n\
        %1 = element_addr @out, u32 0 : ptr<storage_buffer, f32>\n  store %1, %0\n  return\n}\n";
    let (mut shader, mut lib) = (module(shader), module(lib));
    let named = |m: &Module, name: &str, op: Op| {
        m.children(m.root())
            .find(|&i| m.name(i) == Some(name) && m.op(i) == op)
            .expect("declared")
    };
    let out = named(&shader, "out", Op::Global);
    let main = named(&shader, "main", Op::Func);
    shader.set_position(out, Some(at(0, 4)));
    shader.set_position(main, Some(at(0, 40)));
    let twice = named(&lib, "twice", Op::Func);
    lib.set_position(twice, Some(at(0, 6)));
    let add = lib
        .subtree(twice)
        .into_iter()
        .find(|&i| lib.op(i) == Op::Add)
        .expect("an add");
    lib.set_position(add, Some(at(0, 20)));
    let opts = LinkOptions {
        source_files: vec![vec![oneshader_ir::FileId(0)], vec![oneshader_ir::FileId(1)]],
        ..Default::default()
    };
    let linked = link(&[shader.clone(), lib.clone()], &opts).unwrap();
    assert_eq!(
        linked.position(named(&linked, "out", Op::Global)),
        Some(at(0, 4))
    );
    assert_eq!(
        linked.position(named(&linked, "main", Op::Func)),
        Some(at(0, 40))
    );
    let twice = named(&linked, "twice", Op::Func);
    assert_eq!(linked.position(twice), Some(at(1, 6)));
    let add = linked
        .subtree(twice)
        .into_iter()
        .find(|&i| linked.op(i) == Op::Add)
        .expect("an add");
    assert_eq!(linked.position(add), Some(at(1, 20)));
    // Without maps nothing is kept.
    let bare = link(&[shader, lib], &LinkOptions::default()).unwrap();
    assert_eq!(bare.positions_len(), 0);
}
