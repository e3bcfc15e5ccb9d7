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
    vec3 _1;
    uvec3 _2 = gl_GlobalInvocationID;
    for (;;) {
        uvec2 _3 = _2.xy;
        if (any(greaterThanEqual(_3, settings.size))) {
            break;
        }
        vec4 _4 = imageLoad(image, ivec2(_3));
        float _5 = settings.exposure;
        vec3 _6 = _4.xyz * vec3(_5);
        vec3 _7 = clamp(_6 * (_6 * vec3(2.51) + vec3(0.03)) / (_6 * (_6 * vec3(2.43) + vec3(0.59)) + vec3(0.14)), 0.0, 1.0);
        if (kOutputSrgb) {
            _1 = mix(pow(_7, vec3(0.41666666)) * vec3(1.055) - vec3(0.055), _7 * vec3(12.92), lessThanEqual(_7, vec3(0.0031308)));
        } else {
            _1 = _7;
        }
        vec3 _8 = _1;
        imageStore(image, ivec2(_3), vec4(_8.x, _8.y, _8.z, _4.w));
        break;
    }
}

