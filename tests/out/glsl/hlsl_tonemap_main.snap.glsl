#version 450
#extension GL_EXT_scalar_block_layout : require

layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;

layout(constant_id = 0) const bool kOutputSrgb = true;

layout(set = 0, binding = 0, rgba32f) uniform image2D image;
layout(push_constant, scalar) uniform ToneMapSettings_block {
    layout(offset = 0) float exposure;
    layout(offset = 4) uvec2 size;
} settings;

void main() {
    vec3 color;
    uvec3 _1 = gl_GlobalInvocationID;
    for (;;) {
        uvec2 _2 = _1.xy;
        if (any(greaterThanEqual(_2, settings.size))) {
            break;
        }
        vec4 _3 = imageLoad(image, ivec2(_2));
        float _4 = settings.exposure;
        vec3 _5 = _3.xyz * vec3(_4);
        vec3 _6 = clamp(_5 * (_5 * vec3(2.51) + vec3(0.03)) / (_5 * (_5 * vec3(2.43) + vec3(0.59)) + vec3(0.14)), 0.0, 1.0);
        if (kOutputSrgb) {
            color = mix(pow(_6, vec3(0.41666666)) * vec3(1.055) - vec3(0.055), _6 * vec3(12.92), lessThanEqual(_6, vec3(0.0031308)));
        } else {
            color = _6;
        }
        vec3 color_1 = color;
        imageStore(image, ivec2(_2), vec4(color_1.x, color_1.y, color_1.z, _3.w));
        break;
    }
}

