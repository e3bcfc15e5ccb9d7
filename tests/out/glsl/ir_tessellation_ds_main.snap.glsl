#version 450

layout(triangles, equal_spacing, cw) in;

layout(location = 0) in vec4 ds_in[];
layout(location = 1) patch in vec4 ds_tint;
layout(location = 0) out vec4 ds_color;

void main() {
    vec3 _1 = gl_TessCoord;
    vec4 _2[3] = vec4[3](ds_in[0], ds_in[1], ds_in[2]);
    float _3 = _1.x;
    float _4 = _1.y;
    float _5 = _1.z;
    gl_Position = _2[0] * vec4(_3) + _2[1] * vec4(_4) + _2[2] * vec4(_5);
    ds_color = ds_tint;
}

