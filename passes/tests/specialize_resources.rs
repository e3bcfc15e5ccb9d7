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

/// Buffers: a field of a uniform buffer and a storage buffer element at a run-time index.
#[test]
fn buffers_and_fields() {
    check(
        "specialize_resources",
        r"
struct @Params {
  scale: f32
  bias: f32
}
global @params : ptr<uniform, @Params> [binding(0, 0)]
global @data : ptr<storage_buffer, rtarray<f32>> [binding(0, 1)]
func @apply(%k: ptr<uniform, f32>, %d: ptr<storage_buffer, f32>) -> void {
bb0:
  %s = load %k : f32
  %x = load %d : f32
  %y = mul %x, %s : f32
  store %d, %y
  return
}
func @main(%i: u32) -> void {
bb0:
  %k = field_addr @params, 1 : ptr<uniform, f32>
  %d = element_addr @data, %i : ptr<storage_buffer, f32>
  call @apply(%k, %d)
  return
}",
        r"
struct @Params {
  scale: f32
  bias: f32
}
global @params : ptr<uniform, @Params> [binding(0, 0)]
global @data : ptr<storage_buffer, rtarray<f32>> [binding(0, 1)]
func @apply_params_data(%i: u32) -> void {
bb0:
  %k = field_addr @params, 1 : ptr<uniform, f32>
  %d = element_addr @data, %i : ptr<storage_buffer, f32>
  %s = load %k : f32
  %x = load %d : f32
  %y = mul %x, %s : f32
  store %d, %y
  return
}
func @main(%i: u32) -> void {
bb0:
  %k = field_addr @params, 1 : ptr<uniform, f32>
  %d = element_addr @data, %i : ptr<storage_buffer, f32>
  call @apply_params_data(%i)
  return
}",
    );
}

/// Recursion through a resource parameter reuses the clone (memoized), so the pass ends.
#[test]
fn recursion_reuses_the_clone() {
    check(
        "specialize_resources",
        r"
global @buf : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]
func @walk(%b: ptr<storage_buffer, rtarray<u32>>, %n: u32) -> void {
bb0:
  %z = eq %n, u32 0 : bool
  if_else %z, bb1, bb2, merge bb2
bb1:
  return
bb2:
  %m = sub %n, u32 1 : u32
  call @walk(%b, %m)
  return
}
func @main() -> void {
bb0:
  call @walk(@buf, u32 4)
  return
}",
        r"
global @buf : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]
func @walk_buf(%n: u32) -> void {
bb0:
  %z = eq %n, u32 0 : bool
  if_else %z, bb1, bb2, merge bb2
bb1:
  return
bb2:
  %m = sub %n, u32 1 : u32
  call @walk_buf(%m)
  return
}
func @main() -> void {
bb0:
  call @walk_buf(u32 4)
  return
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
