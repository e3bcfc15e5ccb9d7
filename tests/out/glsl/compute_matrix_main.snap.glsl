#version 450

layout(local_size_x = 1, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer Data_block {
    layout(column_major, offset = 0) mat2x3 m;
    layout(row_major, offset = 32) mat2x3 n;
    layout(offset = 56) vec2 v;
    layout(offset = 64) vec3 w;
} data;
layout(set = 0, binding = 1, std430) buffer out_1_block {
    layout(offset = 0) float data[];
} out_1;

void main() {
    mat2x3 m = data.m;
    mat2x3 n = data.n;
    vec3 _1 = m * data.v;
    vec2 _2 = data.w * n;
    vec3 _3 = data.m[1u];
    out_1.data[0u] = _1.x;
    out_1.data[1u] = _1.y;
    out_1.data[2u] = _1.z;
    out_1.data[3u] = _2.x;
    out_1.data[4u] = _2.y;
    out_1.data[5u] = m[1][2];
    out_1.data[6u] = n[1][0];
    out_1.data[7u] = _3.x;
    out_1.data[8u] = _3.z;
}

