struct Padded_f32_16 {
    @size(16) v: f32,
}

struct N {
    f1: f32,
    f2_x: f32,
    f2_y: f32,
    f2_z: f32,
}

struct C {
    a: f32,
    b_x: f32,
    b_y: f32,
    @align(16) t: array<Padded_f32_16, 4>,
    c: vec3<f32>,
    d: f32,
    n: N,
}

struct M {
    p: mat2x2<f32>,
    q: mat2x2<f32>,
}

struct M_1 {
    p: mat2x2<f32>,
    q: mat2x2<f32>,
}

struct S {
    p: f32,
    q_x: f32,
    q_y: f32,
    q_z: f32,
    arr: array<vec3<f32>, 2>,
    r: f32,
    mm: M,
}

struct S_1 {
    p: f32,
    q: vec3<f32>,
    arr: array<vec3<f32>, 2>,
    r: f32,
    mm: M_1,
}

@group(0) @binding(0) var<uniform> cb: C;
@group(0) @binding(1) var<storage, read_write> sb: S;
@group(0) @binding(2) var<storage, read_write> out: array<f32, 14>;
var<private> gid: vec3<u32>;

fn main_body() {
    let _1: u32 = (gid.x & 1u) ^ 1u;
    let _2: C = cb;
    let _3: S = sb;
    let _4: M = _3.mm;
    let _5: S_1 = S_1(_3.p, vec3<f32>(_3.q_x, _3.q_y, _3.q_z), _3.arr, _3.r, M_1(_4.p, transpose(_4.q)));
    let _6: vec3<f32> = _5.q;
    let _7: f32 = _6.y;
    let _8: M = sb.mm;
    let _9: M_1 = M_1(_8.p, transpose(_8.q));
    out = array<f32, 14>(vec2<f32>(cb.b_x, cb.b_y).x, cb.b_y, vec2<f32>(cb.b_x, cb.b_y)[_1], cb.t[3u].v, cb.c.z, _2.a, vec2<f32>(_2.b_x, _2.b_y).y, _2.d, _7, vec3<f32>(sb.q_x, sb.q_y, sb.q_z)[_1], cb.n.f2_z, cb.n.f2_y, _9.p[0][1], _9.q[0][1]);
    var _10: S_1 = _5;
    _10.q = _6 + _6;
    var _11: S_1 = _10;
    _11.r = _5.r + 1.0f;
    let _12: M_1 = _11.mm;
    sb = S(_11.p, (_11.q).x, (_11.q).y, (_11.q).z, _11.arr, _11.r, M(_12.p, transpose(_12.q)));
    sb.q_x = _7 + 100.0f;
    let _13: M_1 = M_1(_9.q, _9.p);
    sb.mm = M(_13.p, transpose(_13.q));
}

struct main_in {
    @builtin(global_invocation_id) gid: vec3<u32>,
}

@compute @workgroup_size(1, 1, 1)
fn main(input: main_in) {
    gid = input.gid;
    main_body();
}
