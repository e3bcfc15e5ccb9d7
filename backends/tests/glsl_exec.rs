//! Differential execution: the same IR program through the SPIR-V backend and through the GLSL
//! backend plus glslang, run on lavapipe with the same inputs; every output word must be equal.
//!
//! The program applies every operation family the GLSL backend maps by hand (remainders,
//! masked shifts, unordered `ne`, ordered comparisons, component-wise `select`, conversions
//! to and from `bool`, bitcasts, the matrix product's orientation, intrinsics with HLSL
//! meanings) to 64 pairs of edge-value inputs (NaN, infinities, -0.0, `INT_MIN`, shift counts
//! past the width...). Inputs that would make an operation undefined (division by zero,
//! `INT_MIN / -1`, float-to-int conversion out of range) are kept out by construction, so a
//! difference is a claim about an emitter. Expected values are also checked independently for
//! the operations whose HLSL meaning differs from GLSL's operator (`rem`, shifts, `ne`).
//!
//! lavapipe (Mesa 22.3 here) evaluates `OpSMod` like `OpSRem` (`-7 % 3` gives -1), so a GLSL
//! `%` on signed integers would pass the numeric comparison on this driver; the test also
//! checks glslang's SPIR-V for the operations themselves (no `OpSMod`, no `OpFMod`, an
//! unordered `!=`).

mod common;

use common::*;
use oneshader_backends::glsl;
use oneshader_backends::spirv::TargetEnv;
use oneshader_test_tools::{GlslStage, glslang_and_validate};
use oneshader_vulkan_harness::Gpu;

/// One operation: IR lines computing `%{r}` (a `u32`) from `%a` and `%b` (`u32`), with
/// temporaries named `%{t}...`.
struct Recipe {
    name: &'static str,
    body: String,
}

fn recipe(name: &'static str, body: &str) -> Recipe {
    Recipe {
        name,
        body: body.to_string(),
    }
}

/// `%x`, `%y` as `i32`; the divisor-safe `%d` (positive, nonzero).
const I32_IN: &str = "%{t}x = bitcast %a : i32\n%{t}y = bitcast %b : i32\n%{t}m = and %b, u32 32767 : u32\n%{t}o = or %{t}m, u32 1 : u32\n%{t}d = bitcast %{t}o : i32\n";
/// `%x`, `%y` as `f32`.
const F32_IN: &str = "%{t}x = bitcast %a : f32\n%{t}y = bitcast %b : f32\n";

fn i32_binary(name: &'static str, op: &str, safe: bool) -> Recipe {
    let rhs = if safe { "%{t}d" } else { "%{t}y" };
    recipe(
        name,
        &format!("{I32_IN}%{{t}}z = {op} %{{t}}x, {rhs} : i32\n%{{r}} = bitcast %{{t}}z : u32\n"),
    )
}

fn u32_binary(name: &'static str, op: &str, safe: bool) -> Recipe {
    let pre = "%{t}m = and %b, u32 32767 : u32\n%{t}d = or %{t}m, u32 1 : u32\n";
    let rhs = if safe { "%{t}d" } else { "%b" };
    recipe(name, &format!("{pre}%{{r}} = {op} %a, {rhs} : u32\n"))
}

fn f32_binary(name: &'static str, op: &str) -> Recipe {
    recipe(
        name,
        &format!("{F32_IN}%{{t}}z = {op} %{{t}}x, %{{t}}y : f32\n%{{r}} = bitcast %{{t}}z : u32\n"),
    )
}

fn compare(name: &'static str, ty: &str, op: &str) -> Recipe {
    let conv = match ty {
        "i32" => "%{t}x = bitcast %a : i32\n%{t}y = bitcast %b : i32\n",
        "f32" => F32_IN,
        _ => "%{t}x = add %a, u32 0 : u32\n%{t}y = add %b, u32 0 : u32\n",
    };
    recipe(
        name,
        &format!("{conv}%{{t}}c = {op} %{{t}}x, %{{t}}y : bool\n%{{r}} = convert %{{t}}c : u32\n"),
    )
}

fn intrinsic1(name: &'static str, ty: &str, f: &str, result: &str) -> Recipe {
    let conv = match ty {
        "i32" => "%{t}x = bitcast %a : i32\n",
        "f32" => "%{t}x = bitcast %a : f32\n",
        _ => "%{t}x = add %a, u32 0 : u32\n",
    };
    let back = if result == "u32" {
        "%{r} = add %{t}z, u32 0 : u32\n".to_string()
    } else {
        "%{r} = bitcast %{t}z : u32\n".to_string()
    };
    recipe(
        name,
        &format!("{conv}%{{t}}z = call_intrinsic {f}(%{{t}}x) : {result}\n{back}"),
    )
}

fn recipes() -> Vec<Recipe> {
    let mut v = vec![
        i32_binary("i32 add", "add", false),
        i32_binary("i32 sub", "sub", false),
        i32_binary("i32 mul", "mul", false),
        i32_binary("i32 div", "div", true),
        i32_binary("i32 rem", "rem", true),
        i32_binary("i32 and", "and", false),
        i32_binary("i32 or", "or", false),
        i32_binary("i32 xor", "xor", false),
        i32_binary("i32 shl", "shl", false),
        i32_binary("i32 shr", "shr", false),
        u32_binary("u32 div", "div", true),
        u32_binary("u32 rem", "rem", true),
        u32_binary("u32 shl", "shl", false),
        u32_binary("u32 shr", "shr", false),
        u32_binary("u32 mul", "mul", false),
        f32_binary("f32 add", "add"),
        f32_binary("f32 sub", "sub"),
        f32_binary("f32 mul", "mul"),
        f32_binary("f32 div", "div"),
        f32_binary("f32 rem", "rem"),
        compare("f32 eq", "f32", "eq"),
        compare("f32 ne", "f32", "ne"),
        compare("f32 lt", "f32", "lt"),
        compare("f32 le", "f32", "le"),
        compare("f32 gt", "f32", "gt"),
        compare("f32 ge", "f32", "ge"),
        compare("i32 lt", "i32", "lt"),
        compare("i32 ge", "i32", "ge"),
        compare("u32 lt", "u32", "lt"),
        compare("u32 ne", "u32", "ne"),
        recipe(
            "i32 neg, not",
            "%{t}x = bitcast %a : i32\n%{t}n = neg %{t}x : i32\n%{t}z = not %{t}n : i32\n%{r} = bitcast %{t}z : u32\n",
        ),
        recipe(
            "f32 neg",
            "%{t}x = bitcast %a : f32\n%{t}z = neg %{t}x : f32\n%{r} = bitcast %{t}z : u32\n",
        ),
        recipe(
            "bool logic",
            "%{t}x = bitcast %a : f32\n%{t}y = bitcast %b : f32\n%{t}p = lt %{t}x, %{t}y : bool\n%{t}q = ne %{t}x, %{t}x : bool\n%{t}u = and %{t}p, %{t}q : bool\n%{t}v = or %{t}p, %{t}q : bool\n%{t}w = xor %{t}u, %{t}v : bool\n%{t}n = not %{t}w : bool\n%{t}s = select %{t}n, u32 7, u32 9 : u32\n%{t}k = convert %{t}w : u32\n%{r} = add %{t}s, %{t}k : u32\n",
        ),
        recipe(
            "bool vector logic and select",
            "%{t}x = construct %a, %b : vec<u32, 2>\n%{t}y = construct %b, %a : vec<u32, 2>\n%{t}p = lt %{t}x, %{t}y : vec<bool, 2>\n%{t}q = gt %{t}x, vec<u32, 2> {u32 100, u32 100} : vec<bool, 2>\n%{t}u = and %{t}p, %{t}q : vec<bool, 2>\n%{t}v = or %{t}p, %{t}q : vec<bool, 2>\n%{t}w = xor %{t}u, %{t}v : vec<bool, 2>\n%{t}n = not %{t}w : vec<bool, 2>\n%{t}s = select %{t}n, %{t}x, %{t}y : vec<u32, 2>\n%{t}e = extract %{t}s, 0 : u32\n%{t}f = extract %{t}s, 1 : u32\n%{t}g = shl %{t}f, u32 3 : u32\n%{r} = xor %{t}e, %{t}g : u32\n",
        ),
        recipe(
            "to and from bool",
            "%{t}x = bitcast %a : f32\n%{t}c = convert %{t}x : bool\n%{t}i = bitcast %b : i32\n%{t}d = convert %{t}i : bool\n%{t}u = convert %{t}c : u32\n%{t}v = convert %{t}d : i32\n%{t}w = bitcast %{t}v : u32\n%{t}s = shl %{t}w, u32 1 : u32\n%{r} = or %{t}u, %{t}s : u32\n",
        ),
        recipe(
            "int to float",
            "%{t}x = bitcast %a : i32\n%{t}f = convert %{t}x : f32\n%{t}g = convert %b : f32\n%{t}z = add %{t}f, %{t}g : f32\n%{r} = bitcast %{t}z : u32\n",
        ),
        recipe(
            "float to int in range",
            "%{t}x = bitcast %a : f32\n%{t}c = call_intrinsic clamp(%{t}x, f32 -1000000.0, f32 1000000.0) : f32\n%{t}n = ne %{t}c, %{t}c : bool\n%{t}s = select %{t}n, f32 0.0, %{t}c : f32\n%{t}i = convert %{t}s : i32\n%{r} = bitcast %{t}i : u32\n",
        ),
        recipe(
            "vector shuffle and dynamic index",
            "%{t}v = construct %a, %b, u32 5, u32 6 : vec<u32, 4>\n%{t}w = construct %b, %a : vec<u32, 2>\n%{t}s = shuffle %{t}v, %{t}w, 5, 2, 0, 4 : vec<u32, 4>\n%{t}k = and %b, u32 3 : u32\n%{t}e = extract_dyn %{t}s, %{t}k : u32\n%{t}i = insert_dyn %{t}s, %a, %{t}k : vec<u32, 4>\n%{t}f = extract %{t}i, 3 : u32\n%{t}g = mul %{t}f, u32 31 : u32\n%{r} = add %{t}e, %{t}g : u32\n",
        ),
        recipe(
            "matrix product orientation",
            "%{t}x = convert %a : f32\n%{t}y = convert %b : f32\n%{t}r0 = construct %{t}x, f32 2.0, f32 3.0 : vec<f32, 3>\n%{t}r1 = construct f32 5.0, %{t}y, f32 7.0 : vec<f32, 3>\n%{t}m = construct %{t}r0, %{t}r1 : mat<f32, 2, 3>\n%{t}v = construct f32 1.0, f32 -2.0 : vec<f32, 2>\n%{t}w = construct f32 0.5, f32 1.0, f32 4.0 : vec<f32, 3>\n%{t}p = matmul %{t}v, %{t}m : vec<f32, 3>\n%{t}q = matmul %{t}m, %{t}w : vec<f32, 2>\n%{t}a1 = extract %{t}p, 2 : f32\n%{t}a2 = extract %{t}q, 1 : f32\n%{t}a3 = extract %{t}m, 1, 0 : f32\n%{t}s1 = mul %{t}a1, f32 3.0 : f32\n%{t}s2 = add %{t}s1, %{t}a2 : f32\n%{t}s3 = sub %{t}s2, %{t}a3 : f32\n%{r} = bitcast %{t}s3 : u32\n",
        ),
        recipe(
            "matrix arithmetic and transpose",
            "%{t}x = bitcast %a : f32\n%{t}y = bitcast %b : f32\n%{t}r0 = construct %{t}x, %{t}y : vec<f32, 2>\n%{t}r1 = construct %{t}y, f32 3.0 : vec<f32, 2>\n%{t}m = construct %{t}r0, %{t}r1 : mat<f32, 2, 2>\n%{t}n = call_intrinsic transpose(%{t}m) : mat<f32, 2, 2>\n%{t}s = add %{t}m, %{t}n : mat<f32, 2, 2>\n%{t}p = mul %{t}s, %{t}m : mat<f32, 2, 2>\n%{t}q = matmul %{t}p, %{t}n : mat<f32, 2, 2>\n%{t}e = extract %{t}q, 0, 1 : f32\n%{r} = bitcast %{t}e : u32\n",
        ),
        recipe(
            "f32 bitcasts of vectors",
            "%{t}v = construct %a, %b : vec<u32, 2>\n%{t}f = bitcast %{t}v : vec<f32, 2>\n%{t}g = call_intrinsic abs(%{t}f) : vec<f32, 2>\n%{t}i = bitcast %{t}g : vec<i32, 2>\n%{t}e = extract %{t}i, 1 : i32\n%{r} = bitcast %{t}e : u32\n",
        ),
        intrinsic1("abs i32", "i32", "abs", "i32"),
        intrinsic1("abs f32", "f32", "abs", "f32"),
        intrinsic1("sign i32", "i32", "sign", "i32"),
        intrinsic1("sign f32", "f32", "sign", "i32"),
        intrinsic1("floor", "f32", "floor", "f32"),
        intrinsic1("ceil", "f32", "ceil", "f32"),
        intrinsic1("trunc", "f32", "trunc", "f32"),
        intrinsic1("round (to even)", "f32", "round", "f32"),
        intrinsic1("frac", "f32", "frac", "f32"),
        intrinsic1("saturate", "f32", "saturate", "f32"),
        intrinsic1("countbits", "u32", "countbits", "u32"),
        intrinsic1("reversebits", "u32", "reversebits", "u32"),
        intrinsic1("firstbithigh u32", "u32", "firstbithigh", "u32"),
        intrinsic1("firstbithigh i32", "i32", "firstbithigh", "i32"),
        intrinsic1("firstbitlow", "u32", "firstbitlow", "u32"),
        intrinsic1("f32tof16", "f32", "f32tof16", "u32"),
        intrinsic1("f16tof32", "u32", "f16tof32", "f32"),
        recipe(
            "isnan, isinf, isfinite",
            "%{t}x = bitcast %a : f32\n%{t}n = call_intrinsic isnan(%{t}x) : bool\n%{t}i = call_intrinsic isinf(%{t}x) : bool\n%{t}f = call_intrinsic isfinite(%{t}x) : bool\n%{t}a = convert %{t}n : u32\n%{t}b = convert %{t}i : u32\n%{t}c = convert %{t}f : u32\n%{t}d = shl %{t}b, u32 1 : u32\n%{t}e = shl %{t}c, u32 2 : u32\n%{t}g = or %{t}a, %{t}d : u32\n%{r} = or %{t}g, %{t}e : u32\n",
        ),
        recipe(
            "min max clamp",
            "%{t}x = bitcast %a : i32\n%{t}y = bitcast %b : i32\n%{t}lo = call_intrinsic min(%{t}x, %{t}y) : i32\n%{t}hi = call_intrinsic max(%{t}x, %{t}y) : i32\n%{t}c = call_intrinsic clamp(i32 5, %{t}lo, %{t}hi) : i32\n%{t}u = call_intrinsic max(%a, %b) : u32\n%{t}cu = bitcast %{t}c : u32\n%{r} = xor %{t}cu, %{t}u : u32\n",
        ),
        recipe(
            "fmod and f32 min",
            "%{t}x = bitcast %a : f32\n%{t}y = bitcast %b : f32\n%{t}m = call_intrinsic fmod(%{t}x, %{t}y) : f32\n%{t}n = call_intrinsic min(%{t}m, f32 1000.0) : f32\n%{r} = bitcast %{t}n : u32\n",
        ),
        recipe(
            "integer mad and dot",
            "%{t}x = bitcast %a : i32\n%{t}y = bitcast %b : i32\n%{t}m = call_intrinsic mad(%{t}x, %{t}y, i32 7) : i32\n%{t}v = construct %{t}x, %{t}y, %{t}m : vec<i32, 3>\n%{t}w = construct %{t}y, i32 -3, %{t}x : vec<i32, 3>\n%{t}d = call_intrinsic dot(%{t}v, %{t}w) : i32\n%{r} = bitcast %{t}d : u32\n",
        ),
        recipe(
            "step and lerp",
            "%{t}x = bitcast %a : f32\n%{t}y = bitcast %b : f32\n%{t}s = call_intrinsic step(%{t}x, %{t}y) : f32\n%{t}l = call_intrinsic lerp(f32 2.0, f32 6.0, %{t}s) : f32\n%{r} = bitcast %{t}l : u32\n",
        ),
        recipe(
            "byte-address loads",
            "%{t}o = and %b, u32 60 : u32\n%{t}v = buffer_load @in, %{t}o : vec<f32, 2>\n%{t}w = buffer_load @in, %{t}o : i32\n%{t}e = extract %{t}v, 1 : f32\n%{t}u = bitcast %{t}e : u32\n%{t}x = bitcast %{t}w : u32\n%{r} = xor %{t}u, %{t}x : u32\n",
        ),
        recipe(
            "rcp and log10 bases",
            "%{t}x = convert %a : f32\n%{t}y = add %{t}x, f32 1.0 : f32\n%{t}r = call_intrinsic rcp(%{t}y) : f32\n%{r} = bitcast %{t}r : u32\n",
        ),
    ];
    for shift in ["shl", "shr"] {
        v.push(recipe(
            if shift == "shl" {
                "i32 vector shl by a scalar-typed vector"
            } else {
                "i32 vector shr"
            },
            &format!(
                "%{{t}}x = bitcast %a : i32\n%{{t}}v = construct %{{t}}x, i32 -1 : vec<i32, 2>\n%{{t}}w = construct %b, u32 40 : vec<u32, 2>\n%{{t}}s = {shift} %{{t}}v, %{{t}}w : vec<i32, 2>\n%{{t}}e = extract %{{t}}s, 0 : i32\n%{{t}}f = extract %{{t}}s, 1 : i32\n%{{t}}g = xor %{{t}}e, %{{t}}f : i32\n%{{r}} = bitcast %{{t}}g : u32\n"
            ),
        ));
    }
    v
}

/// The edge values the inputs are paired from.
const VALUES: [u32; 32] = [
    0,
    1,
    2,
    7,
    33,
    0xffff_ffff,
    0x8000_0000,
    0x7fff_ffff,
    0xffff_fff9, // -7
    0x3f80_0000, // 1.0
    0xbf80_0000, // -1.0
    0x7fc0_0000, // NaN
    0x7f80_0000, // inf
    0xff80_0000, // -inf
    0x0000_0001, // the smallest subnormal
    0x4049_0fdb, // pi
    0x3eaa_aaab, // 1/3
    0xc2c8_0000, // -100.0
    0x4b00_0001, // 8388609.0
    12345,
    0x4040_0000, // 3.0
    0xc0e0_0000, // -7.0
    0x3f00_0000, // 0.5
    0xbf00_0000, // -0.5
    0x3fc0_0000, // 1.5
    0x4020_0000, // 2.5
    0x0000_ffff,
    0x0001_0000,
    31,
    32,
    64,
    0xdead_beef,
];

fn program(recipes: &[Recipe]) -> String {
    let n = recipes.len();
    let mut s = String::from(
        "global @in : ptr<storage_buffer, rtarray<u32>> [binding(0, 0), readonly]\n\
         global @out : ptr<storage_buffer, rtarray<u32>> [binding(0, 1)]\n\
         global @gid : ptr<input, vec<u32, 3>> [builtin(global_invocation_id)]\n\
         func @main() -> void [entry_point(compute, \"main\"), numthreads(64, 1, 1)] {\n\
         bb0:\n  %g = load @gid : vec<u32, 3>\n  %i = extract %g, 0 : u32\n\
         %ia = mul %i, u32 2 : u32\n  %pa = element_addr @in, %ia : ptr<storage_buffer, u32>\n\
         %a = load %pa : u32\n  %ib = add %ia, u32 1 : u32\n\
         %pb = element_addr @in, %ib : ptr<storage_buffer, u32>\n  %b = load %pb : u32\n",
    );
    s.push_str(&format!("  %base = mul %i, u32 {n} : u32\n"));
    for (k, r) in recipes.iter().enumerate() {
        let body = r
            .body
            .replace("{t}", &format!("t{k}_"))
            .replace("{r}", &format!("r{k}"));
        for line in body.lines() {
            s.push_str("  ");
            s.push_str(line);
            s.push('\n');
        }
        s.push_str(&format!(
            "  %o{k} = add %base, u32 {k} : u32\n  %p{k} = element_addr @out, %o{k} : ptr<storage_buffer, u32>\n  store %p{k}, %r{k}\n"
        ));
    }
    s.push_str("  return\n}\n");
    s
}

fn inputs() -> Vec<u32> {
    let mut v = Vec::with_capacity(128);
    for i in 0..64usize {
        v.push(VALUES[i % 32]);
        v.push(VALUES[(i * 7 + 3 + i / 32) % 32]);
    }
    v
}

#[test]
fn every_operation_family_computes_the_same_bits_both_ways() {
    let recipes = recipes();
    let text = program(&recipes);
    let m = parse(&text);
    let spirv = emit_env(&m, TargetEnv::Vulkan1_2);
    assert_valid(&spirv, TargetEnv::Vulkan1_2);
    let glsl_text = emit_glsl(&m, &glsl::Options::default())
        .unwrap_or_else(|d| panic!("the GLSL backend refuses: {d:#?}"));
    let from_glsl =
        glslang_and_validate(&glsl_text, GlslStage::Compute).unwrap_or_else(|e| panic!("{e}"));
    let gpu = Gpu::new();
    let n = recipes.len();
    let run = |words: &[u32]| {
        let mut bufs = vec![inputs(), vec![0u32; 64 * n]];
        gpu.run(words, "main", &mut bufs, [1, 1, 1]);
        bufs.swap_remove(1)
    };
    let a = run(&spirv);
    let b = run(&from_glsl);
    let mut diffs = Vec::new();
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        if x != y {
            let (inv, k) = (i / n, i % n);
            let ins = inputs();
            diffs.push(format!(
                "{} with a = {:#010x}, b = {:#010x}: SPIR-V {x:#010x}, GLSL {y:#010x}",
                recipes[k].name,
                ins[inv * 2],
                ins[inv * 2 + 1]
            ));
        }
    }
    assert!(
        diffs.is_empty(),
        "{} differences:\n{}\n{glsl_text}",
        diffs.len(),
        diffs.join("\n")
    );
    // The operations themselves: drivers that keep OpSMod's meaning would tell `%` apart.
    let dr = load(&from_glsl);
    use rspirv::spirv::Op as S;
    assert_eq!(
        count_op(&dr, S::SMod),
        0,
        "signed `rem` must not be GLSL's `%`"
    );
    assert_eq!(
        count_op(&dr, S::FMod),
        0,
        "float `rem` must not be GLSL's `mod`"
    );
    assert!(count_op(&dr, S::FUnordNotEqual) > 0, "`ne` is unordered");
    assert!(count_op(&dr, S::FOrdLessThan) > 0, "`lt` is ordered");
    // Independent expectations for the operations GLSL spells differently.
    let ins = inputs();
    let at = |name: &str| {
        recipes
            .iter()
            .position(|r| r.name == name)
            .expect("a recipe")
    };
    for inv in 0..64 {
        let (x, y) = (ins[inv * 2], ins[inv * 2 + 1]);
        let d = ((y & 32767) | 1) as i32;
        let got = |name: &str| b[inv * n + at(name)];
        assert_eq!(
            got("i32 rem"),
            ((x as i32) % d) as u32,
            "rem keeps the dividend's sign"
        );
        assert_eq!(
            got("i32 shl"),
            (x as i32).wrapping_shl(y & 31) as u32,
            "shl masks"
        );
        assert_eq!(got("u32 shr"), x >> (y & 31), "shr masks");
        let (fx, fy) = (f32::from_bits(x), f32::from_bits(y));
        assert_eq!(got("f32 ne"), (fx != fy) as u32, "ne is unordered");
        assert_eq!(got("f32 eq"), (fx == fy) as u32, "eq is ordered");
    }
}
