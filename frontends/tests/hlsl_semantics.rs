//! HLSL semantics checked by running the lowered IR in the reference interpreter
//! (`oneshader_passes::interp`), before and after `-O`: switch fall-through, loops with
//! `break`/`continue`, short-circuit evaluation with side effects, `out`/`inout` copy-in and
//! copy-out, integer arithmetic, conversions, swizzle writes, matrix indexing and `mul`,
//! initializer lists, value semantics of structs and arrays, statics. Expected values are
//! computed here in Rust.

mod sema_common;

use oneshader_ir::Module;
use oneshader_passes::interp::{Exit, Interpreter, Value};
use oneshader_passes::pipeline::OptLevel;
use sema_common::{module, pipeline};

/// Runs the compute entry point `main` with `SV_DispatchThreadID.x == x` and returns what it
/// stored in `sink[0]`: unoptimized, after `-O0` (legalization) and after `-O`, which must all
/// agree. The entry wrapper (inputs, the body call, `init_globals`) runs too.
fn run(src: &str, x: u32) -> Value {
    let mut results = Vec::new();
    for level in [None, Some(OptLevel::O0), Some(OptLevel::O)] {
        let mut m = module(src, "cs_6_0");
        if let Some(l) = level {
            pipeline(&mut m, l);
        }
        results.push(run_main(&m, x));
    }
    assert_eq!(results[0], results[1], "-O0 changed the result for x = {x}");
    assert_eq!(results[0], results[2], "-O changed the result for x = {x}");
    results.pop().unwrap_or(Value::Opaque)
}

fn run_main(m: &Module, x: u32) -> Value {
    let g = |name: &str| {
        m.global_by_name(name).unwrap_or_else(|| {
            panic!(
                "no global {name} in\n{}",
                oneshader_ir::print::print_module(m)
            )
        })
    };
    let main = m.func_by_name("main").expect("an entry point @main");
    let mut it = Interpreter::new(m);
    let tid = Value::Composite(vec![Value::u32(x), Value::u32(0), Value::u32(0)]);
    it.set_global(g("in.var.SV_DispatchThreadID"), tid)
        .expect("input");
    it.set_global(g("sink"), Value::Composite(vec![Value::i32(0)]))
        .expect("sink");
    match it.call(main, &[]) {
        Ok(Exit::Return(None)) => {}
        other => panic!("main ended with {other:?}"),
    }
    let sink = it.global_value(g("sink")).expect("sink").clone();
    sink.elements()
        .and_then(|e| e.first().cloned())
        .unwrap_or(Value::Opaque)
}

fn i(v: Value) -> i32 {
    v.as_scalar()
        .map(|(_, b)| b as u32 as i32)
        .unwrap_or(i32::MIN)
}

fn f(v: Value) -> f32 {
    v.as_scalar()
        .map(|(_, b)| f32::from_bits(b as u32))
        .unwrap_or(f32::NAN)
}

/// The compute entry point: `sink[0]` receives the bits of `everything(x)`.
const MAIN: &str = "
RWStructuredBuffer<int> sink;
[numthreads(1, 1, 1)] void main(uint3 id : SV_DispatchThreadID) { sink[0] = asint(everything(id.x)); }
";

#[test]
fn switch_falls_through_and_breaks() {
    let src = format!(
        "{}{MAIN}",
        "
int pick(int x) {
    int r = 0;
    switch (x) {
        case 0: r = 10; break;
        case 1:
        case 2: r += 5;
        case 3: r *= 3; break;
        case 7: return 70;
        default: r = -1;
    }
    return r + x;
}
int everything(uint x) { return pick((int)x - 1); }"
    );
    let expect = |x: i32| -> i32 {
        let r = match x {
            0 => 10,
            1..=3 => {
                let r = if x == 3 { 0 } else { 5 };
                r * 3
            }
            7 => return 70,
            _ => -1,
        };
        r + x
    };
    for x in 0..10u32 {
        assert_eq!(
            i(run(&src, x)),
            expect(x as i32 - 1),
            "pick({})",
            x as i32 - 1
        );
    }
}

#[test]
fn loops_break_continue_and_do_while() {
    let src = format!(
        "{}{MAIN}",
        "
int loops(int n) {
    int acc = 0;
    for (int i = 0; i < n; ++i) {
        if (i == 2) continue;
        if (acc > 40) break;
        acc += i;
    }
    int k = n;
    do {
        k--;
        if (k == 3) continue;
        if (k < -2) break;
        acc += k * 2;
    } while (k > 0);
    int w = 0;
    while (w < n && acc % 7 != 0) { acc += 1; w++; }
    return acc * 100 + w;
}
int everything(uint x) { return loops(x); }"
    );
    let expect = |n: i32| -> i32 {
        let mut acc = 0;
        let mut i = 0;
        while i < n {
            if i == 2 {
                i += 1;
                continue;
            }
            if acc > 40 {
                break;
            }
            acc += i;
            i += 1;
        }
        let mut k = n;
        loop {
            k -= 1;
            if k != 3 {
                if k < -2 {
                    break;
                }
                acc += k * 2;
            }
            if k <= 0 {
                break;
            }
        }
        let mut w = 0;
        while w < n && acc % 7 != 0 {
            acc += 1;
            w += 1;
        }
        acc * 100 + w
    };
    for n in 0..12 {
        assert_eq!(i(run(&src, n)), expect(n as i32), "loops({n})");
    }
}

#[test]
fn short_circuit_evaluates_the_right_side_only_when_needed() {
    let src = format!(
        "{}{MAIN}",
        "
bool bump(inout int c, bool r) { c += 1; return r; }
int sc(int x) {
    int c = 0;
    bool a = (x > 0) && bump(c, x > 5);
    bool b = (x > 2) || bump(c, x < -3);
    int t = x > 1 ? (bump(c, true) ? 100 : 0) : 7;
    return c * 1000 + (a ? 100 : 0) + (b ? 10 : 0) + t;
}
int everything(uint x) { return sc((int)x - 5); }"
    );
    let expect = |x: i32| -> i32 {
        let mut c = 0;
        let a = x > 0 && {
            c += 1;
            x > 5
        };
        let b = x > 2 || {
            c += 1;
            x < -3
        };
        let t = if x > 1 {
            c += 1;
            100
        } else {
            7
        };
        c * 1000 + if a { 100 } else { 0 } + if b { 10 } else { 0 } + t
    };
    for x in 0..13u32 {
        assert_eq!(
            i(run(&src, x)),
            expect(x as i32 - 5),
            "sc({})",
            x as i32 - 5
        );
    }
}

#[test]
fn out_and_inout_arguments_copy_in_and_out() {
    let src = format!(
        "{}{MAIN}",
        "
void setter(out int a, inout float b, int c) { a = c * 2; b = b * c; c = 0; }
void swap(inout int a, inout int b) { int t = a; a = b; b = t; }
int params(int x) {
    int a = 99; float b = 1.5; int c = x;
    setter(a, b, c);
    int4 v = int4(1, 2, 3, 4);
    swap(v.x, v.w);
    float conv = 2;
    int asInt = 5;
    setter(asInt, conv, x);
    return a * 1000 + (int)(b * 10) + c + v.x * 10000000 + v.w * 1000000 + asInt + (int)conv;
}
int everything(uint x) { return params(x); }"
    );
    for x in 0..5 {
        let xi = x as i32;
        let (a, b, c) = (xi * 2, 1.5 * xi as f32, xi);
        let (vx, vw) = (4, 1);
        let (as_int, conv) = (xi * 2, 2 * xi);
        let expect =
            a * 1000 + (b * 10.0) as i32 + c + vx * 10_000_000 + vw * 1_000_000 + as_int + conv;
        assert_eq!(i(run(&src, x)), expect, "params({x})");
    }
}

#[test]
fn integer_arithmetic_and_conversions() {
    let src = format!(
        "{}{MAIN}",
        "
static const int2 pairs[5] = { int2(7, 3), int2(-7, 3), int2(7, -3), int2(-7, -3), int2(0, 5) };
int idiv(int a, int b) { return a / b * 1000 + a % b; }
int everything(uint x) {
    int2 p = pairs[x % 5];
    return idiv(p.x, p.y);
}"
    );
    for (x, (a, b)) in [(7, 3), (-7, 3), (7, -3), (-7, -3), (0, 5)]
        .into_iter()
        .enumerate()
    {
        assert_eq!(
            i(run(&src, x as u32)),
            a / b * 1000 + a % b,
            "idiv({a}, {b})"
        );
    }
    let src = format!(
        "{}{MAIN}",
        "
int everything(uint x) {
    uint w = x - 5u;
    int a = (int)x - 3;
    int shifts = (a << 33) + (a >> 1);
    float f = a * 1.3;
    int t = (int)f;
    bool b = a;
    int bm = b + (a > 3) * 10 + !a * 100;
    return (int)(w >> 28) * 100000 + shifts * 1000 + t * 10 + bm;
}"
    );
    for x in 0..8u32 {
        let w = x.wrapping_sub(5);
        let a = x as i32 - 3;
        let shifts = a.wrapping_shl(1).wrapping_add(a >> 1);
        let t = (a as f32 * 1.3) as i32;
        let bm = (a != 0) as i32 + (a > 3) as i32 * 10 + (a == 0) as i32 * 100;
        let expect = (w >> 28) as i32 * 100_000 + shifts * 1000 + t * 10 + bm;
        assert_eq!(i(run(&src, x)), expect, "x = {x}");
    }
}

#[test]
fn swizzles_matrices_and_initializer_lists() {
    let src = format!(
        "{}{MAIN}",
        "
float swz(float s) {
    float4 v = float4(1, 2, 3, 4) * s;
    v.zx = v.xz;
    v.y += 10;
    float2 w = v.wy;
    return v.x * 1000 + v.y * 100 + v.z * 10 + w.x + w.y * 0.5;
}
float everything(uint x) { return swz(x); }"
    );
    let s = 2.0f32;
    let v = [s, 2.0 * s, 3.0 * s, 4.0 * s];
    let v2 = [v[2], v[1] + 10.0, v[0], v[3]];
    let expect = v2[0] * 1000.0 + v2[1] * 100.0 + v2[2] * 10.0 + v2[3] + v2[1] * 0.5;
    assert_eq!(f(run(&src, 2)), expect);

    let src = format!(
        "{}{MAIN}",
        "
float mats(float s) {
    float2x3 m = { 1, 2, 3, 4, 5, 6 };
    m *= s;
    float3 v = float3(1, 10, 100);
    float2 mv = mul(m, v);
    float3 vm = mul(float2(1, 10), m);
    float3x2 t = transpose(m);
    return m[1][0] * 1000 + m._m02 + mv.x + mv.y * 0.001 + vm.z + t[2][1] * 0.5 + m._23;
}
float everything(uint x) { return mats(x); }"
    );
    // HLSL element order is row by row; mul(m, v) multiplies the rows by v.
    let m = [[s, 2.0 * s, 3.0 * s], [4.0 * s, 5.0 * s, 6.0 * s]];
    let v = [1.0, 10.0, 100.0];
    let mv = [
        m[0][0] * v[0] + m[0][1] * v[1] + m[0][2] * v[2],
        m[1][0] * v[0] + m[1][1] * v[1] + m[1][2] * v[2],
    ];
    let vm2 = m[0][2] + 10.0 * m[1][2];
    let expect = m[1][0] * 1000.0 + m[0][2] + mv[0] + mv[1] * 0.001 + vm2 + m[1][2] * 0.5 + m[1][2];
    let got = f(run(&src, 2));
    assert!((got - expect).abs() < 1e-3, "mats: {got} vs {expect}");

    let src = format!(
        "{}{MAIN}",
        "
int imat(int s) {
    int2x2 m = int2x2(1, 2, 3, 4) * s;
    m[0] = m[1] + 1;
    return m[0][0] * 100 + m[0][1] * 10 + m._22;
}
int everything(uint x) { return imat(x); }"
    );
    let k = 3;
    let m = [[k, 2 * k], [3 * k, 4 * k]];
    let r0 = [m[1][0] + 1, m[1][1] + 1];
    assert_eq!(i(run(&src, k as u32)), r0[0] * 100 + r0[1] * 10 + m[1][1]);
}

#[test]
fn structs_and_arrays_are_values_and_statics_initialize() {
    let src = format!(
        "{}{MAIN}",
        "
struct S { int a; float b[2]; };
static int base = 40;
static int derived = base + 2;
int values(int x) {
    S s = { x, { 1.5, 2.5 } };
    S t = s;
    t.a = 7;
    t.b[1] = 9;
    int arr[3] = { 1, 2, 3 };
    int copy[3] = arr;
    copy[0] = 100;
    return s.a * 1000 + (int)s.b[1] * 100 + t.a * 10 + arr[0] + copy[0] + derived;
}
int everything(uint x) { return values(x); }"
    );
    let expect = 4 * 1000 + 2 * 100 + 7 * 10 + 1 + 100 + 42;
    assert_eq!(i(run(&src, 4)), expect);
}

#[test]
fn static_initializers_run_in_order_and_may_call_functions() {
    let src = format!(
        "{}{MAIN}",
        "
int seed() { return 5; }
static int a = seed() * 2;
static int b = a + 1;
static const int c = 7;
int everything(uint x) { return a * 100 + b * 10 + c + x; }"
    );
    assert_eq!(i(run(&src, 1)), 10 * 100 + 11 * 10 + 7 + 1);
}

#[test]
fn compound_assignment_vectors_and_degenerate_matrices() {
    let src = format!(
        "{}{MAIN}",
        "
struct Node { int v[3]; float2 p; };
int everything(uint x) {
    int i = 3;
    i += 1.75;               // computed in float, truncated back: 4
    i *= 2.5;                // 10
    uint u = 7u;
    u /= 2;                  // 3
    float f = -7.5 % 2;      // -1.5 (sign of the dividend)
    int4 v = int4(1, 2, 3, 4);
    v.yw *= int2(10, 100);   // 1, 20, 3, 400
    bool4 gt = v > 2;
    int4 s = gt ? v : -v;    // -1, 20, 3, 400
    float3 sc = (float)x.xxx;
    float1x3 row = { 1, 2, 3 };
    float3x1 col = { 4, 5, 6 };
    float1x1 prod = mul(row, col);         // 32
    float3 rv = mul(float3(1, 1, 1), mul(col, row)); // rows: col * row summed
    Node n;
    n.v[0] = 1; n.v[1] = 2; n.v[2] = 3;
    n.v[x % 3] += 10;
    n.p = float2(0.5, 0.25);
    n.p.yx = n.p;
    int bits = (0xF0 & 0x3C) | (1 << 4) ^ 0x5;
    return i * 1000000 + (int)u * 100000 + (int)(f * 10) * 10000 + s.x + s.y + s.z + s.w
        + (int)(prod._11) * 100 + (int)(sc.y + rv.z) + n.v[1] * 1000 + (int)(n.p.x * 100) + bits;
}"
    );
    let x = 4u32;
    let s = -1 + 20 + 3 + 400;
    // mul(col, row) is the 3x3 outer product; float3(1,1,1) times it sums its rows.
    let col = [4.0f32, 5.0, 6.0];
    let row = [1.0f32, 2.0, 3.0];
    let rv_z: f32 = col.iter().map(|c| c * row[2]).sum();
    let nv1 = 2 + if x % 3 == 1 { 10 } else { 0 };
    let bits = (0xF0 & 0x3C) | ((1 << 4) ^ 0x5);
    let expect = 10 * 1_000_000
        + 3 * 100_000
        + (-15) * 10_000
        + s
        + 32 * 100
        + (x as f32 + rv_z) as i32
        + nv1 * 1000
        + 25
        + bits;
    assert_eq!(i(run(&src, x)), expect);
}

#[test]
fn overloaded_operators() {
    let src = format!(
        "{}{MAIN}",
        "
struct V2 {
    int x, y;
    V2 operator+(V2 o) { V2 r; r.x = x + o.x; r.y = y + o.y; return r; }
    int operator[](int i) { return i == 0 ? x : y; }
    int operator()(int k) { return x * k + y; }
};
int everything(uint n) {
    V2 a = { (int)n, 2 };
    V2 b = { 10, 20 };
    V2 c = a + b;
    return c[0] * 1000 + c[1] * 10 + a(3);
}"
    );
    let n = 4;
    assert_eq!(
        i(run(&src, n as u32)),
        (n + 10) * 1000 + 22 * 10 + (n * 3 + 2)
    );
}

#[test]
fn declarations_in_conditions() {
    let src = format!(
        "{}{MAIN}",
        "
int next(inout int c) { c -= 1; return c; }
int everything(uint x) {
    int c = (int)x;
    int sum = 0;
    while (int k = next(c)) { sum += k; }
    switch (int m = (int)x % 3) { case 0: sum += 100; break; case 1: sum += 200 + m; break; default: sum += 300; }
    if (int z = sum - 10) { sum += z * 1000; }
    return sum;
}"
    );
    for x in 0..6u32 {
        let mut c = x as i32;
        let mut sum = 0;
        loop {
            c -= 1;
            if c == 0 {
                break;
            }
            sum += c;
            if c < -100 {
                break;
            }
        }
        let m = x as i32 % 3;
        sum += match m {
            0 => 100,
            1 => 200 + m,
            _ => 300,
        };
        let z = sum - 10;
        if z != 0 {
            sum += z * 1000;
        }
        if x == 0 {
            // `next` counts down from 0 through the negatives until it wraps: skip x = 0.
            continue;
        }
        assert_eq!(i(run(&src, x)), sum, "x = {x}");
    }
}

#[test]
fn alias_templates_and_dependent_value_parameters() {
    let src = format!(
        "{}{MAIN}",
        "
template<typename T> using Vec3 = vector<T, 3>;
template<class T, T V> struct Const { static T get() { return V; } };
template<typename T, int N> T total(vector<T, N> v) { T s = 0; for (int i = 0; i < N; ++i) s += v[i]; return s; }
typedef Const<int, 7> Seven;
int everything(uint x) {
    Vec3<int> v = int3(x, 2 * x, 3);
    return total(v) * 10 + Seven::get();
}"
    );
    assert_eq!(i(run(&src, 5)), (5 + 10 + 3) * 10 + 7);
}
