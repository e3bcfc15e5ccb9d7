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
layout(set = 0, binding = 2) uniform texture2D albedoMap;
layout(set = 0, binding = 3) uniform sampler linearWrap;
layout(location = 0) in vec3 in_var_NORMAL;
layout(location = 1) in vec2 in_var_TEXCOORD0;
layout(location = 0) out vec4 out_var_SV_Target0;

void main() {
    vec4 _1 = texture(sampler2D(albedoMap, linearWrap), in_var_TEXCOORD0) * PerObject.tint;
    float _2 = PerFrame.ambient;
    float _3 = _2 + (1.0 - _2) * clamp(dot(normalize(in_var_NORMAL), PerFrame.lightDirection), 0.0, 1.0);
    vec3 _4 = _1.xyz * vec3(_3);
    out_var_SV_Target0 = vec4(_4.x, _4.y, _4.z, _1.w);
}

