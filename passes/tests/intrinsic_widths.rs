//! `intrinsic_widths`: every bit intrinsic of 8-, 16- and 64-bit integers (scalars and
//! vectors, signed and unsigned) computes, after the rewrite, what the interpreter computes
//! for the call as written, on edge values and on seeded random ones; derivatives of `half`
//! and `double` become derivatives of `f32`; afterwards no call a target cannot take remains
//! (the check the backends' boundary runs, OSG0010), and a module without such calls is left
//! alone.

mod common;

use oneshader_ir::analysis::ModuleInfo;
use oneshader_ir::{Intrinsic, Module, Op};
use oneshader_passes::interp::{Exit, Interpreter};
use oneshader_passes::legalize::{Target, check};
use oneshader_passes::semantics::Scalar;
use oneshader_passes::value::Value;

const BIT_INTRINSICS: [&str; 4] = ["countbits", "reversebits", "firstbithigh", "firstbitlow"];

/// The scalar types the rewrite applies to, with their width.
const WIDTHS: [(&str, Scalar, u32); 6] = [
    ("u8", Scalar::U8, 8),
    ("i8", Scalar::I8, 8),
    ("u16", Scalar::U16, 16),
    ("i16", Scalar::I16, 16),
    ("u64", Scalar::U64, 64),
    ("i64", Scalar::I64, 64),
];

/// The result type HLSL gives each intrinsic of a `t` (DXC: `uint` for the counts and
/// positions; `reversebits` keeps the type). A second, 16- or 64-bit result type is tried
/// too, as hand-written IR may use one.
fn result_types(name: &str, t: &str) -> Vec<String> {
    if name == "reversebits" {
        vec![t.to_string()]
    } else {
        vec!["u32".into(), "i64".into(), "u16".into()]
    }
}

/// One function per intrinsic, operand type and result type: `@f{k}(x) -> r`, scalar and
/// two-component vector.
fn module_text() -> (String, Vec<(String, Scalar, u32, bool)>) {
    let mut text = String::new();
    let mut funcs = Vec::new();
    let mut k = 0;
    for name in BIT_INTRINSICS {
        for (t, s, bits) in WIDTHS {
            for r in result_types(name, t) {
                for vec in [false, true] {
                    let (tt, rt) = if vec {
                        (format!("vec<{t}, 2>"), format!("vec<{r}, 2>"))
                    } else {
                        (t.to_string(), r.clone())
                    };
                    let f = format!("f{k}");
                    k += 1;
                    text.push_str(&format!(
                        "func @{f}(%0: {tt}) -> {rt} {{\nbb0:\n  %1 = call_intrinsic {name}(%0) : {rt}\n  return %1\n}}\n"
                    ));
                    funcs.push((f, s, bits, vec));
                }
            }
        }
    }
    (text, funcs)
}

fn returned(m: &Module, f: &str, arg: &Value) -> Value {
    let func = m.func_by_name(f).expect("function exists");
    match Interpreter::new(m).call(func, std::slice::from_ref(arg)) {
        Ok(Exit::Return(Some(v))) => v,
        other => panic!("@{f}: {other:?}"),
    }
}

/// Edge values of a `bits`-wide integer and seeded random ones (xorshift).
fn inputs(bits: u32) -> Vec<u64> {
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let mut v = vec![
        0,
        1,
        2,
        3,
        mask,
        mask - 1,
        mask >> 1,
        (mask >> 1) + 1,
        1u64 << (bits - 1),
        0x8000_0000 & mask,
        0x1_0000_0000 & mask,
        0xffff_ffff & mask,
        0xffff_ffff_0000_0000 & mask,
    ];
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..200 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        // Random bit patterns, some with long runs of zeros or ones at either end.
        let y = match x % 4 {
            0 => x,
            1 => x >> (x % 61),
            2 => x << (x % 61),
            _ => !(x >> (x % 61)),
        };
        v.push(y & mask);
    }
    v
}

#[test]
fn bit_intrinsics_of_every_width_compute_what_the_call_computes() {
    let (text, funcs) = module_text();
    let before = common::module(&text);
    let mut after = common::module(&text);
    common::run("intrinsic_widths", &mut after);
    let mut checked = 0;
    for (f, s, bits, vec) in &funcs {
        for x in inputs(*bits) {
            let arg = if *vec {
                // The second lane differs, so a rewrite mixing lanes would show.
                let other = x.rotate_left(7) & s_mask(*bits);
                Value::Composite(vec![Value::Scalar(*s, x), Value::Scalar(*s, other)])
            } else {
                Value::Scalar(*s, x)
            };
            let want = returned(&before, f, &arg);
            let got = returned(&after, f, &arg);
            assert_eq!(got, want, "@{f} of {arg:?}");
            checked += 1;
        }
    }
    assert!(checked > 10_000, "{checked} cases");
}

fn s_mask(bits: u32) -> u64 {
    if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// The calls of `m`: (intrinsic, operand scalar width).
fn calls(m: &Module) -> Vec<(Intrinsic, u32)> {
    let mut out = Vec::new();
    for f in m.functions() {
        for b in f.blocks(m) {
            for i in b.insts(m) {
                if m.op(i) != Op::CallIntrinsic {
                    continue;
                }
                let w = m.imm_operand(i, 0).and_then(Intrinsic::from_u32).unwrap();
                let t = m.ty(m.operand(i, 1)).unwrap();
                out.push((w, m.scalar_bits(m.scalar_of(t).unwrap()).unwrap()));
            }
        }
    }
    out
}

#[test]
fn after_the_rewrite_every_bit_intrinsic_takes_32_bits_and_the_check_passes() {
    let (text, _) = module_text();
    let mut m = common::module(&text);
    let diags = check(&m, Target::Spirv, &ModuleInfo::new(&m));
    assert!(
        diags.iter().any(|d| d.code == "OSG0010"),
        "before the pass the check refuses: {diags:?}"
    );
    common::run("intrinsic_widths", &mut m);
    let cs = calls(&m);
    assert!(!cs.is_empty());
    assert!(cs.iter().all(|&(_, bits)| bits == 32), "{cs:?}");
    for target in [Target::Spirv, Target::Glsl, Target::Wgsl, Target::Msl] {
        let diags = check(&m, target, &ModuleInfo::new(&m));
        assert!(diags.is_empty(), "{target}: {diags:?}");
    }
}

#[test]
fn derivatives_of_half_and_double_are_taken_in_f32() {
    let mut m = common::module(
        "func @main(%0: f64, %1: vec<f16, 3>, %2: f32) -> f64 {\n\
         bb0:\n\
           %3 = call_intrinsic ddx(%0) : f64\n\
           %4 = call_intrinsic fwidth(%1) : vec<f16, 3>\n\
           %5 = call_intrinsic ddy_fine(%2) : f32\n\
           %6 = extract %4, 0 : f16\n\
           %7 = convert %6 : f64\n\
           %8 = add %3, %7 : f64\n\
           return %8\n\
         }\n",
    );
    common::run("intrinsic_widths", &mut m);
    let out = oneshader_ir::print::print_module(&m);
    assert!(
        out.contains("call_intrinsic ddx(") && out.contains(") : f32\n"),
        "{out}"
    );
    assert!(out.contains(") : vec<f32, 3>\n"), "{out}");
    let cs = calls(&m);
    assert_eq!(
        cs,
        vec![
            (Intrinsic::Ddx, 32),
            (Intrinsic::Fwidth, 32),
            (Intrinsic::DdyFine, 32)
        ]
    );
    assert!(check(&m, Target::Spirv, &ModuleInfo::new(&m)).is_empty());
}

#[test]
fn calls_of_32_bit_operands_are_left_alone() {
    common::check_unchanged(
        "intrinsic_widths",
        "func @f(%0: u32, %1: vec<i32, 2>, %2: f32) -> u32 {\n\
         bb0:\n\
           %3 = call_intrinsic countbits(%0) : u32\n\
           %4 = call_intrinsic firstbithigh(%1) : vec<u32, 2>\n\
           %5 = call_intrinsic ddx(%2) : f32\n\
           return %3\n\
         }\n",
    );
}
