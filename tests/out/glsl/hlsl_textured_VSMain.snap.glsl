#version 450

layout(set = 0, binding = 0, std140) uniform type_PerFrame_block {
    layout(row_major, offset = 0) mat4 viewProjection;
    layout(offset = 64) vec3 lightDirection;
    layout(offset = 76) float ambient;
} PerFrame;
layout(set = 0, binding = 1, std140) uniform type_PerObject_block {
    layout(row_major, offset = 0) mat4 world;
    layout(offset = 64) vec4 tint;
    layout(offset = 80) vec2 uvScale;
} PerObject;
layout(location = 0) in vec3 in_var_POSITION;
layout(location = 1) in vec3 in_var_NORMAL;
layout(location = 2) in vec2 in_var_TEXCOORD0;
layout(location = 0) out vec3 out_var_NORMAL;
layout(location = 1) out vec2 out_var_TEXCOORD0;

void main() {
    vec3 _1 = in_var_POSITION;
    mat4 _2 = PerObject.world;
    gl_Position = vec4(_1.x, _1.y, _1.z, 1.0) * _2 * PerFrame.viewProjection;
    out_var_NORMAL = in_var_NORMAL * mat3(vec3(_2[0][0], _2[0][1], _2[0][2]), vec3(_2[1][0], _2[1][1], _2[1][2]), vec3(_2[2][0], _2[2][1], _2[2][2]));
    out_var_TEXCOORD0 = in_var_TEXCOORD0 * PerObject.uvScale;
}

