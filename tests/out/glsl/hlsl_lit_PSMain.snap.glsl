#version 450

struct PointLight {
    vec3 position;
    float range;
    vec3 color;
    float intensity;
};

layout(set = 0, binding = 1, std140) uniform type_Lights_block {
    layout(offset = 0) PointLight lights[1];
} Lights;
layout(set = 0, binding = 0, std140) uniform type_PerFrame_block {
    layout(row_major, offset = 0) mat4 viewProjection;
    layout(offset = 64) vec3 ambient;
    layout(offset = 76) float shadowBias;
} PerFrame;
layout(set = 0, binding = 2) uniform texture2D albedoMap;
layout(set = 0, binding = 3) uniform sampler linearWrap;
layout(location = 0) in vec3 in_var_TEXCOORD0;
layout(location = 1) in vec3 in_var_TEXCOORD1;
layout(location = 2) in vec2 in_var_TEXCOORD2;
layout(location = 0) out vec4 out_var_SV_Target0;

void main() {
    PointLight _1 = Lights.lights[0];
    float _2 = _1.intensity;
    vec3 _3 = _1.position - in_var_TEXCOORD0;
    float _4 = length(_3);
    float _5 = clamp(1.0 - _4 / _1.range, 0.0, 1.0);
    float _6 = clamp(dot(normalize(in_var_TEXCOORD1), _3 / vec3(_4)), 0.0, 1.0);
    vec4 _7 = texture(sampler2D(albedoMap, linearWrap), in_var_TEXCOORD2);
    vec3 _8 = _7.xyz * (PerFrame.ambient + _1.color * vec3(_2) * vec3(_5) * vec3(_6));
    out_var_SV_Target0 = vec4(_8.x, _8.y, _8.z, _7.w);
}

