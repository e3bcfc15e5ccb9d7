//! Resource-parameter specialization: IR-text cases (input, expected output), verified after
//! the pass.

mod common;
use common::check;
mod support_b;

const RES: &str = r"
global @albedo : ptr<uniform_constant, texture<2d, vec<f32, 4>>> [binding(0, 0)]
global @normal : ptr<uniform_constant, texture<2d, vec<f32, 4>>> [binding(0, 1)]
global @samp : ptr<uniform_constant, sampler> [binding(0, 2)]
global @texs : ptr<uniform_constant, array<texture<2d, vec<f32, 4>>, 8>> [binding(1, 0)]
func @fetch(%t: ptr<uniform_constant, texture<2d, vec<f32, 4>>>, %s: ptr<uniform_constant, sampler>, %uv: vec<f32, 2>) -> vec<f32, 4> {
bb0:
  %v = sample %t, %s, %uv : vec<f32, 4>
  return %v
}
";

/// One clone per distinct resource tuple, memoized; non-resource parameters stay; the
/// original, called no more, is removed.
#[test]
fn one_clone_per_resource() {
    check(
        "specialize_resources",
        &format!(
            r"{RES}
func @main(%uv: vec<f32, 2>) -> vec<f32, 4> {{
bb0:
  %a = call @fetch(@albedo, @samp, %uv) : vec<f32, 4>
  %b = call @fetch(@normal, @samp, %uv) : vec<f32, 4>
  %c = call @fetch(@albedo, @samp, %b) : vec<f32, 4>
  %d = add %a, %c : vec<f32, 4>
  return %d
}}"
        )
        .replace("%b) : vec<f32, 4>\n  %d", "%uv) : vec<f32, 4>\n  %d"),
        r"
global @albedo : ptr<uniform_constant, texture<2d, vec<f32, 4>>> [binding(0, 0)]
global @normal : ptr<uniform_constant, texture<2d, vec<f32, 4>>> [binding(0, 1)]
global @samp : ptr<uniform_constant, sampler> [binding(0, 2)]
global @texs : ptr<uniform_constant, array<texture<2d, vec<f32, 4>>, 8>> [binding(1, 0)]
func @fetch_albedo_samp(%uv: vec<f32, 2>) -> vec<f32, 4> {
bb0:
  %v = sample @albedo, @samp, %uv : vec<f32, 4>
  return %v
}
func @fetch_normal_samp(%uv: vec<f32, 2>) -> vec<f32, 4> {
bb0:
  %v = sample @normal, @samp, %uv : vec<f32, 4>
  return %v
}
func @main(%uv: vec<f32, 2>) -> vec<f32, 4> {
bb0:
  %a = call @fetch_albedo_samp(%uv) : vec<f32, 4>
  %b = call @fetch_normal_samp(%uv) : vec<f32, 4>
  %c = call @fetch_albedo_samp(%uv) : vec<f32, 4>
  %d = add %a, %c : vec<f32, 4>
  return %d
}",
    );
}

/// A texture picked from an array at a run-time index: the clone receives the index as an
/// ordinary argument (appended) and rebuilds the access chain, `nonuniform` included; a
/// constant index is part of the key and rebuilt as is.
#[test]
fn array_element_at_run_time_index() {
    check(
        "specialize_resources",
        &format!(
            r"{RES}
func @main(%uv: vec<f32, 2>, %i: u32) -> vec<f32, 4> {{
bb0:
  %t = element_addr @texs, %i : ptr<uniform_constant, texture<2d, vec<f32, 4>>> [nonuniform]
  %a = call @fetch(%t, @samp, %uv) : vec<f32, 4>
  %t3 = element_addr @texs, u32 3 : ptr<uniform_constant, texture<2d, vec<f32, 4>>>
  %b = call @fetch(%t3, @samp, %uv) : vec<f32, 4>
  %d = add %a, %b : vec<f32, 4>
  return %d
}}"
        ),
        r"
global @albedo : ptr<uniform_constant, texture<2d, vec<f32, 4>>> [binding(0, 0)]
global @normal : ptr<uniform_constant, texture<2d, vec<f32, 4>>> [binding(0, 1)]
global @samp : ptr<uniform_constant, sampler> [binding(0, 2)]
global @texs : ptr<uniform_constant, array<texture<2d, vec<f32, 4>>, 8>> [binding(1, 0)]
func @fetch_texs_samp(%uv: vec<f32, 2>, %idx: u32) -> vec<f32, 4> {
bb0:
  %t = element_addr @texs, %idx : ptr<uniform_constant, texture<2d, vec<f32, 4>>> [nonuniform]
  %v = sample %t, @samp, %uv : vec<f32, 4>
  return %v
}
func @fetch_texs_samp.1(%uv: vec<f32, 2>) -> vec<f32, 4> {
bb0:
  %t = element_addr @texs, u32 3 : ptr<uniform_constant, texture<2d, vec<f32, 4>>>
  %v = sample %t, @samp, %uv : vec<f32, 4>
  return %v
}
func @main(%uv: vec<f32, 2>, %i: u32) -> vec<f32, 4> {
bb0:
  %t = element_addr @texs, %i : ptr<uniform_constant, texture<2d, vec<f32, 4>>> [nonuniform]
  %a = call @fetch_texs_samp(%uv, %i) : vec<f32, 4>
  %t3 = element_addr @texs, u32 3 : ptr<uniform_constant, texture<2d, vec<f32, 4>>>
  %b = call @fetch_texs_samp.1(%uv) : vec<f32, 4>
  %d = add %a, %b : vec<f32, 4>
  return %d
}",
    );
}

/// A resource function passing its parameter on to another: the caller is cloned first, then
/// the call inside the clone has a concrete resource and is rewritten in the next round; both
/// originals go.
#[test]
fn resources_passed_along() {
    check(
        "specialize_resources",
        &format!(
            r"{RES}
func @outer(%t: ptr<uniform_constant, texture<2d, vec<f32, 4>>>, %uv: vec<f32, 2>) -> vec<f32, 4> {{
bb0:
  %v = call @fetch(%t, @samp, %uv) : vec<f32, 4>
  return %v
}}
func @main(%uv: vec<f32, 2>) -> vec<f32, 4> {{
bb0:
  %a = call @outer(@normal, %uv) : vec<f32, 4>
  return %a
}}"
        ),
        r"
global @albedo : ptr<uniform_constant, texture<2d, vec<f32, 4>>> [binding(0, 0)]
global @normal : ptr<uniform_constant, texture<2d, vec<f32, 4>>> [binding(0, 1)]
global @samp : ptr<uniform_constant, sampler> [binding(0, 2)]
global @texs : ptr<uniform_constant, array<texture<2d, vec<f32, 4>>, 8>> [binding(1, 0)]
func @fetch_normal_samp(%uv: vec<f32, 2>) -> vec<f32, 4> {
bb0:
  %v = sample @normal, @samp, %uv : vec<f32, 4>
  return %v
}
func @outer_normal(%uv: vec<f32, 2>) -> vec<f32, 4> {
bb0:
  %v = call @fetch_normal_samp(%uv) : vec<f32, 4>
  return %v
}
func @main(%uv: vec<f32, 2>) -> vec<f32, 4> {
bb0:
  %a = call @outer_normal(%uv) : vec<f32, 4>
  return %a
}",
    );
}

/// Choosing a resource at run time (`select` between two resource pointers) is not valid IR:
/// no target can pass or choose resources dynamically, so the verifier says so before any
/// pass runs.
#[test]
fn dynamic_resource_choice_is_not_valid_ir() {
    let text = format!(
        r"{RES}
func @main(%c: bool, %uv: vec<f32, 2>) -> vec<f32, 4> {{
bb0:
  %t = select %c, @albedo, @normal : ptr<uniform_constant, texture<2d, vec<f32, 4>>>
  %a = call @fetch(%t, @samp, %uv) : vec<f32, 4>
  return %a
}}"
    );
    let m = oneshader_ir::parse::parse(&text).expect("parses");
    let diags = oneshader_ir::verify::verify(&m);
    assert!(
        diags
            .iter()
            .any(|d| d.code == "OSV0027" && d.message.contains("select")),
        "{diags:?}"
    );
}

/// Without resource parameters nothing changes.
#[test]
fn nothing_to_specialize() {
    for name in ["compute", "fragment", "loops", "generic", "vertex"] {
        let text = std::fs::read_to_string(format!("../examples/ir/{name}.ir")).unwrap();
        support_b::check_no_change("specialize_resources", &text);
    }
}

/// A function specialized for its resources is declared where the original is, and each
/// global `flatten_resource_arrays` makes of an array where the array is
/// (`oneshader_ir::positions`).
#[test]
fn new_functions_and_globals_keep_the_declaration_they_replace() {
    use oneshader_ir::{FileId, Module, Op, Span};
    use oneshader_passes::Pass;
    let at = |start: u32| Span {
        file: FileId(0),
        start,
        end: start + 1,
    };
    let named = |m: &Module, name: &str| {
        m.children(m.root())
            .find(|&i| m.name(i) == Some(name) && matches!(m.op(i), Op::Func | Op::Global))
            .unwrap_or_else(|| panic!("no @{name}"))
    };
    let text = format!(
        r"{RES}
func @main(%uv: vec<f32, 2>) -> vec<f32, 4> {{
bb0:
  %t = element_addr @texs, u32 3 : ptr<uniform_constant, texture<2d, vec<f32, 4>>>
  %a = call @fetch(%t, @samp, %uv) : vec<f32, 4>
  return %a
}}"
    );
    let mut m = common::module(&text);
    let (fetch, texs) = (named(&m, "fetch"), named(&m, "texs"));
    m.set_position(fetch, Some(at(10)));
    m.set_position(texs, Some(at(20)));
    oneshader_passes::flatten_resource_arrays::FlattenResourceArrays::default()
        .run(&mut m)
        .expect("flattens");
    for k in 0..8 {
        assert_eq!(m.position(named(&m, &format!("texs[{k}]"))), Some(at(20)));
    }
    common::run("specialize_resources", &mut m);
    let clone = named(&m, "fetch_texs[3]_samp");
    assert_eq!(m.position(clone), Some(at(10)));
}
