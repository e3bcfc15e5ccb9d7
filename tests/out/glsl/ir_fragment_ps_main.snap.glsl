#version 450

layout(set = 0, binding = 0) uniform texture2D albedo;
layout(set = 0, binding = 1) uniform sampler linear;
layout(location = 0) in vec2 uv;
layout(location = 1) flat in vec4 tint;
layout(location = 0) out vec4 target;

void main() {
    target = texture(sampler2D(albedo, linear), uv) * tint;
}

