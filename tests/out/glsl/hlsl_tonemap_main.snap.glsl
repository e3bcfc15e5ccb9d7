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
    vec3 v;
    uvec3 t = gl_GlobalInvocationID;
    for (;;) {
        uvec2 t_1 = t.xy;
        if (any(greaterThanEqual(t_1, settings.size))) {
            break;
        }
        vec4 t_2 = imageLoad(image, ivec2(t_1));
        float t_3 = settings.exposure;
        vec3 t_4 = t_2.xyz * vec3(t_3);
        vec3 t_5 = clamp(t_4 * (t_4 * vec3(2.51) + vec3(0.03)) / (t_4 * (t_4 * vec3(2.43) + vec3(0.59)) + vec3(0.14)), 0.0, 1.0);
        if (kOutputSrgb) {
            v = mix(pow(t_5, vec3(0.41666666)) * vec3(1.055) - vec3(0.055), t_5 * vec3(12.92), lessThanEqual(t_5, vec3(0.0031308)));
        } else {
            v = t_5;
        }
        vec3 t_6 = v;
        imageStore(image, ivec2(t_1), vec4(t_6.x, t_6.y, t_6.z, t_2.w));
        break;
    }
}

