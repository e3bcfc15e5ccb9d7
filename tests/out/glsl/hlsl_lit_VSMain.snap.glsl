#version 450

layout(set = 0, binding = 0, std140) uniform type_PerFrame_block {
    layout(row_major, offset = 0) mat4 viewProjection;
    layout(offset = 64) vec3 ambient;
    layout(offset = 76) float shadowBias;
} PerFrame;
layout(location = 0) in vec3 in_var_POSITION;
layout(location = 1) in vec3 in_var_NORMAL;
layout(location = 2) in vec2 in_var_TEXCOORD0;
layout(location = 0) out vec3 out_var_TEXCOORD0;
layout(location = 1) out vec3 out_var_TEXCOORD1;
layout(location = 2) out vec2 out_var_TEXCOORD2;

void main() {
    vec3 _1 = in_var_POSITION;
    gl_Position = vec4(_1.x, _1.y, _1.z, 1.0) * PerFrame.viewProjection;
    out_var_TEXCOORD0 = _1;
    out_var_TEXCOORD1 = in_var_NORMAL;
    out_var_TEXCOORD2 = in_var_TEXCOORD0;
}

