#version 450

layout(set = 0, binding = 0, std140) uniform Transforms_block {
    layout(column_major, offset = 0) mat4 world_view_proj;
} transforms;
layout(location = 0) in vec3 in_pos;
layout(location = 1) in vec2 in_uv;
layout(location = 0) out vec2 out_uv;

void main() {
    gl_Position = transforms.world_view_proj * vec4(in_pos, 1.0);
    out_uv = in_uv;
}

