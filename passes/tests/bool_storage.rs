//! `bool_storage`: bools in buffers and push constants become `u32` in memory, with a
//! conversion at each load (`ne v, 0`) and store (`select b, 1, 0`), through access chains and
//! whole-struct and whole-array loads; what no host shares (function variables, workgroup
//! memory) keeps its bools; the boundary's check (OSG0005) refuses a module that skipped it.

mod common;
use common::{check, module};

const INPUT: &str = r#"
struct @Flags {
  on: bool
  mask: vec<bool, 3>
  scale: f32 [offset(16)]
}
struct @Params {
  flags: @Flags
  list: array<bool, 2>
}
global @params : ptr<uniform, @Params> [binding(0, 0)]
global @out : ptr<storage_buffer, rtarray<bool>> [binding(0, 1)]
func @main() -> void [entry_point(compute, "main"), numthreads(1, 1, 1)] {
bb0:
  %0 = field_addr @params, 0 : ptr<uniform, @Flags>
  %1 = load %0 : @Flags
  %2 = extract %1, 0 : bool
  %3 = field_addr @params, 1 : ptr<uniform, array<bool, 2>>
  %4 = element_addr %3, u32 1 : ptr<uniform, bool>
  %5 = load %4 : bool
  %6 = and %2, %5 : bool
  %7 = element_addr @out, u32 0 : ptr<storage_buffer, bool>
  store %7, %6
  %8 = load @params : @Params
  %9 = extract %8, 1 : array<bool, 2>
  %10 = extract %9, 0 : bool
  %11 = element_addr @out, u32 1 : ptr<storage_buffer, bool>
  store %11, %10
  return
}
"#;

#[test]
fn bools_in_buffers_are_stored_as_u32() {
    check(
        "bool_storage",
        INPUT,
        r#"
struct @Flags {
  on: bool
  mask: vec<bool, 3>
  scale: f32 [offset(16)]
}
struct @Flags.1 {
  on: u32
  mask: vec<u32, 3>
  scale: f32 [offset(16)]
}
struct @Params {
  flags: @Flags
  list: array<bool, 2>
}
struct @Params.1 {
  flags: @Flags.1
  list: array<u32, 2>
}
global @params : ptr<uniform, @Params.1> [binding(0, 0)]
global @out : ptr<storage_buffer, rtarray<u32>> [binding(0, 1)]
func @main() -> void [entry_point(compute, "main"), numthreads(1, 1, 1)] {
bb0:
  %0 = field_addr @params, 0 : ptr<uniform, @Flags.1>
  %1 = load %0 : @Flags.1
  %2 = extract %1, 0 : u32
  %3 = ne %2, u32 zero : bool
  %4 = extract %1, 1 : vec<u32, 3>
  %5 = ne %4, vec<u32, 3> zero : vec<bool, 3>
  %6 = extract %1, 2 : f32
  %7 = construct %3, %5, %6 : @Flags
  %8 = extract %7, 0 : bool
  %9 = field_addr @params, 1 : ptr<uniform, array<u32, 2>>
  %10 = element_addr %9, u32 1 : ptr<uniform, u32>
  %11 = load %10 : u32
  %12 = ne %11, u32 zero : bool
  %13 = and %8, %12 : bool
  %14 = element_addr @out, u32 0 : ptr<storage_buffer, u32>
  %15 = select %13, u32 1, u32 zero : u32
  store %14, %15
  %16 = load @params : @Params.1
  %17 = extract %16, 0 : @Flags.1
  %18 = extract %17, 0 : u32
  %19 = ne %18, u32 zero : bool
  %20 = extract %17, 1 : vec<u32, 3>
  %21 = ne %20, vec<u32, 3> zero : vec<bool, 3>
  %22 = extract %17, 2 : f32
  %23 = construct %19, %21, %22 : @Flags
  %24 = extract %16, 1 : array<u32, 2>
  %25 = extract %24, 0 : u32
  %26 = ne %25, u32 zero : bool
  %27 = extract %24, 1 : u32
  %28 = ne %27, u32 zero : bool
  %29 = construct %26, %28 : array<bool, 2>
  %30 = construct %23, %29 : @Params
  %31 = extract %30, 1 : array<bool, 2>
  %32 = extract %31, 0 : bool
  %33 = element_addr @out, u32 1 : ptr<storage_buffer, u32>
  %34 = select %32, u32 1, u32 zero : u32
  store %33, %34
  return
}
"#,
    );
}

#[test]
fn the_boundary_refuses_bools_in_buffers() {
    let m = module(INPUT);
    let info = oneshader_ir::analysis::ModuleInfo::new(&m);
    let d = oneshader_passes::legalize::check(&m, oneshader_passes::legalize::Target::Spirv, &info);
    assert!(
        d.iter().any(|d| d.code == "OSG0005"
            && d.message.contains("@params")
            && d.notes.iter().any(|n| n.contains("bool_storage"))),
        "{d:?}"
    );
    let mut m = module(INPUT);
    common::run("bool_storage", &mut m);
    let info = oneshader_ir::analysis::ModuleInfo::new(&m);
    let d = oneshader_passes::legalize::check(&m, oneshader_passes::legalize::Target::Spirv, &info);
    assert!(d.is_empty(), "{d:?}");
}

#[test]
fn a_bool_copied_between_buffers_is_stored_as_0_or_1() {
    // DXC reads a stored bool as `!= 0` and stores `select b, 1, 0`: a copy normalizes the
    // word (5 becomes 1), so the conversions do not cancel as a transpose's do.
    check(
        "bool_storage",
        r#"
global @b : ptr<storage_buffer, rtarray<bool>> [binding(0, 0)]
func @main() -> void [entry_point(compute, "main"), numthreads(1, 1, 1)] {
bb0:
  %0 = element_addr @b, u32 0 : ptr<storage_buffer, bool>
  %1 = load %0 : bool
  %2 = element_addr @b, u32 1 : ptr<storage_buffer, bool>
  store %2, %1
  return
}
"#,
        r#"
global @b : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]
func @main() -> void [entry_point(compute, "main"), numthreads(1, 1, 1)] {
bb0:
  %0 = element_addr @b, u32 0 : ptr<storage_buffer, u32>
  %1 = load %0 : u32
  %2 = ne %1, u32 zero : bool
  %3 = element_addr @b, u32 1 : ptr<storage_buffer, u32>
  %4 = select %2, u32 1, u32 zero : u32
  store %3, %4
  return
}
"#,
    );
}
