//! The generated module the emission benchmarks share (`spirv_emit`, `glsl_emit`): one compute
//! entry point of 100 segments of about 1000 arithmetic and comparison instructions over
//! `i32`, `u32` and `f32`, each segment ending in an `if_else` diamond whose merge block takes
//! a block parameter, and a final store to a storage buffer.

use std::fmt::Write as _;

const SEGMENTS: usize = 100;
const PER_SEGMENT: usize = 1000;

/// The generated module's IR text.
pub fn generate() -> String {
    let mut t = String::new();
    t.push_str("global @out : ptr<storage_buffer, rtarray<i32>> [binding(0, 0)]\n");
    t.push_str("global @gid : ptr<input, vec<u32, 3>> [builtin(global_invocation_id)]\n");
    t.push_str(
        "func @main() -> void [entry_point(compute, \"main\"), numthreads(64, 1, 1)] {\nbb0:\n",
    );
    t.push_str("  %v0 = load @gid : vec<u32, 3>\n  %u0 = extract %v0, 0 : u32\n");
    t.push_str("  %x0 = bitcast %u0 : i32\n  %f0 = convert %x0 : f32\n  br bb1(%x0)\n");
    let mut block = 1;
    for s in 0..SEGMENTS {
        let _ = writeln!(t, "bb{block}(%p{s}: i32):");
        let mut last = format!("%p{s}");
        let mut lastf = "%f0".to_string();
        let mut k = 0;
        while k < PER_SEGMENT - 8 {
            let a = format!("%a{s}_{k}");
            let _ = writeln!(t, "  {a} = add {last}, i32 {k} : i32");
            let b = format!("%b{s}_{k}");
            let _ = writeln!(t, "  {b} = mul {a}, {last} : i32");
            let c = format!("%c{s}_{k}");
            let _ = writeln!(t, "  {c} = xor {b}, i32 0x5a5a : i32");
            let d = format!("%d{s}_{k}");
            let _ = writeln!(t, "  {d} = lt {c}, {a} : bool");
            let e = format!("%e{s}_{k}");
            let _ = writeln!(t, "  {e} = select {d}, {c}, {b} : i32");
            let f = format!("%g{s}_{k}");
            let _ = writeln!(t, "  {f} = convert {e} : f32");
            let g = format!("%h{s}_{k}");
            let _ = writeln!(t, "  {g} = mul {f}, {lastf} : f32");
            let h = format!("%i{s}_{k}");
            let _ = writeln!(t, "  {h} = sub {e}, {a} : i32");
            last = h;
            lastf = g;
            k += 8;
        }
        let _ = writeln!(t, "  %cond{s} = gt {last}, i32 0 : bool");
        let (then, els, merge) = (block + 1, block + 2, block + 3);
        let _ = writeln!(t, "  if_else %cond{s}, bb{then}, bb{els}, merge bb{merge}");
        let _ = writeln!(
            t,
            "bb{then}:\n  %t{s} = add {last}, i32 1 : i32\n  br bb{merge}(%t{s})"
        );
        let _ = writeln!(
            t,
            "bb{els}:\n  %n{s} = sub {last}, i32 1 : i32\n  br bb{merge}(%n{s})"
        );
        let _ = writeln!(t, "bb{merge}(%m{s}: i32):");
        let next = block + 4;
        if s + 1 < SEGMENTS {
            let _ = writeln!(t, "  br bb{next}(%m{s})");
        } else {
            let _ = writeln!(
                t,
                "  %ptr = element_addr @out, %u0 : ptr<storage_buffer, i32>\n  store %ptr, %m{s}\n  return"
            );
        }
        block = next;
    }
    t.push_str("}\n");
    t
}
