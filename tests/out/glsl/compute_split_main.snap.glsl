#version 450

layout(local_size_x = 1, local_size_y = 1, local_size_z = 1) in;

struct N {
    float f1;
    vec3 f2;
};

struct C {
    float a;
    vec2 b;
    float t[4];
    vec3 c;
    float d;
    N n;
};

struct M {
    mat2 p;
    mat2 q;
};

struct S {
    float p;
    vec3 q;
    vec3 arr[2];
    float r;
    M mm;
};

layout(set = 0, binding = 0, std140) uniform C_block {
    layout(offset = 0) float a;
    layout(offset = 4) float b_x;
    layout(offset = 8) float b_y;
    layout(offset = 16) float t[4];
    layout(offset = 80) vec3 c;
    layout(offset = 92) float d;
    layout(offset = 96) float n_f1;
    layout(offset = 100) float n_f2_x;
    layout(offset = 104) float n_f2_y;
    layout(offset = 108) float n_f2_z;
} cb;
layout(set = 0, binding = 1, std430) buffer S_block {
    layout(offset = 0) float p;
    layout(offset = 4) float q_x;
    layout(offset = 8) float q_y;
    layout(offset = 12) float q_z;
    layout(offset = 16) vec3 arr[2];
    layout(offset = 48) float r;
    layout(column_major, offset = 56) mat2 mm_p;
    layout(row_major, offset = 72) mat2 mm_q;
} sb;
layout(set = 0, binding = 2, std430) buffer out_1_block {
    layout(offset = 0) float data[14];
} out_1;

void main() {
    uint _1 = gl_GlobalInvocationID.x & 1u ^ 1u;
    C _2 = C(cb.a, vec2(cb.b_x, cb.b_y), cb.t, cb.c, cb.d, N(cb.n_f1, vec3(cb.n_f2_x, cb.n_f2_y, cb.n_f2_z)));
    S _3 = S(sb.p, vec3(sb.q_x, sb.q_y, sb.q_z), sb.arr, sb.r, M(sb.mm_p, sb.mm_q));
    vec3 _4 = _3.q;
    float _5 = _4.y;
    M _6 = M(sb.mm_p, sb.mm_q);
    out_1.data = float[14](vec2(cb.b_x, cb.b_y).x, cb.b_y, vec2(cb.b_x, cb.b_y)[_1], cb.t[3u], cb.c.z, _2.a, _2.b.y, _2.d, _5, vec3(sb.q_x, sb.q_y, sb.q_z)[_1], N(cb.n_f1, vec3(cb.n_f2_x, cb.n_f2_y, cb.n_f2_z)).f2.z, cb.n_f2_y, _6.p[0][1], _6.q[0][1]);
    S _7 = _3;
    _7.q = _4 + _4;
    S _8 = _7;
    _8.r = _3.r + 1.0;
    sb.p = _8.p;
    sb.q_x = _8.q[0];
    sb.q_y = _8.q[1];
    sb.q_z = _8.q[2];
    sb.arr = _8.arr;
    sb.r = _8.r;
    sb.mm_p = _8.mm.p;
    sb.mm_q = _8.mm.q;
    sb.q_x = _5 + 100.0;
    M stored = M(_6.q, _6.p);
    sb.mm_p = stored.p;
    sb.mm_q = stored.q;
}

