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
    vec3 t = in_var_POSITION;
    mat4 t_1 = PerObject.world;
    vec3 t_2 = in_var_NORMAL * mat3(vec3(t_1[0][0], t_1[0][1], t_1[0][2]), vec3(t_1[1][0], t_1[1][1], t_1[1][2]), vec3(t_1[2][0], t_1[2][1], t_1[2][2]));
    vec2 t_3 = in_var_TEXCOORD0 * PerObject.uvScale;
    gl_Position = vec4(t.x, t.y, t.z, 1.0) * t_1 * PerFrame.viewProjection;
    out_var_NORMAL = t_2;
    out_var_TEXCOORD0 = t_3;
}

