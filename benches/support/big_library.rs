//! A generated `.ir` library for linking benchmarks and tests: `functions` exported functions
//! of about 74 instructions each, constants included (so 13,500 make about a million), each calling
//! the one before it (except every fifth: chains of five), reading one of 64 private globals,
//! with constants of its own (so the library has many module-level values too), plus a few
//! structs and an exported generic. `small_shader` imports one function of it.

/// The library's IR text.
pub fn library_text(functions: usize) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(functions * 1400);
    s.push_str("struct @Light {\n  dir: vec<f32, 3>\n  power: f32\n}\n");
    for g in 0..64 {
        let _ = writeln!(s, "global @g{g} : ptr<private, f32> = f32 {g}.5");
    }
    s.push_str(
        "generic @choose<%0.T: type> [export(\"choose<type>(bool,$0,$0)->$0\")] {\n  \
         func @choose_impl(%1.c: bool, %2.a: %0, %3.b: %0) -> %0 {\n  bb0:\n    \
         %4 = select %1, %2, %3 : %0\n    return %4\n  }\n  return @choose_impl\n}\n",
    );
    s.push_str(
        "func @shade(%0.l: @Light, %1.x: f32) -> f32 [export(\"shade(@Light,f32)->f32\")] {\n\
         bb0:\n  %2 = extract %0, 1 : f32\n  %3 = mul %1, %2 : f32\n  return %3\n}\n",
    );
    for i in 0..functions {
        let _ = writeln!(
            s,
            "func @f{i}(%0.x: f32) -> f32 [export(\"f{i}(f32)->f32\")] {{\nbb0:"
        );
        let mut last = 0usize;
        let mut v = 1usize;
        if i % 5 != 0 {
            let _ = writeln!(s, "  %{v} = call @f{}(%{last}) : f32", i - 1);
            last = v;
            v += 1;
        }
        let _ = writeln!(s, "  %{v} = load @g{} : f32", i % 64);
        let g = v;
        v += 1;
        for k in 0..22 {
            let c = (i * 22 + k) as f32 * 0.25 + 1.0;
            let op = if k % 2 == 0 { "mul" } else { "add" };
            let _ = writeln!(s, "  %{v} = {op} %{last}, f32 {c:?} : f32");
            last = v;
            v += 1;
            let _ = writeln!(s, "  %{v} = sub %{last}, %{g} : f32");
            last = v;
            v += 1;
        }
        let _ = writeln!(s, "  return %{last}\n}}");
    }
    s
}

/// A compute shader importing `f{function}(f32)->f32` of the library.
pub fn small_shader(function: usize) -> String {
    format!(
        "global @out : ptr<storage_buffer, rtarray<f32>> [binding(0, 0)]\n\
         func @f{function}(f32) -> f32 [import(\"f{function}(f32)->f32\")]\n\
         func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {{\n\
         bb0:\n  %0 = call @f{function}(f32 1.5) : f32\n\
         %1 = element_addr @out, u32 0 : ptr<storage_buffer, f32>\n  store %1, %0\n  return\n}}\n"
    )
}
