#version 450
#extension GL_EXT_samplerless_texture_functions : require

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std140) uniform type_BlurParams_block {
    layout(offset = 0) uvec2 imageSize_1;
    layout(offset = 16) float weights[5];
} BlurParams;
layout(set = 0, binding = 1) uniform texture2D source;
layout(set = 0, binding = 2, rgba32f) uniform image2D destination;
shared vec4 cache[72];

void main() {
    uvec3 t = gl_WorkGroupID;
    uvec3 t_1 = gl_LocalInvocationID;
    for (;;) {
        int t_2 = int(t.y);
        int t_3 = int(t.x * 64u);
        uint t_4 = t_1.x;
        int t_5 = int(t_4);
        int t_6 = t_3 + t_5;
        uint t_7 = t_4 + 4u;
        int t_8 = int(BlurParams.imageSize_1[0u]);
        int t_9 = t_8 + -1;
        ivec3 t_10 = ivec3(clamp(t_6, 0, t_9), t_2, 0);
        cache[t_7] = texelFetch(source, t_10.xy, 0);
        if (t_4 < 4u) {
            ivec3 t_11 = ivec3(clamp(t_3 + -4 + t_5, 0, t_9), t_2, 0);
            cache[t_4] = texelFetch(source, t_11.xy, 0);
            ivec3 t_12 = ivec3(clamp(t_3 + 64 + t_5, 0, t_9), t_2, 0);
            cache[t_4 + 68u] = texelFetch(source, t_12.xy, 0);
        }
        barrier();
        if (t_6 >= t_8) {
            break;
        }
        float t_13 = BlurParams.weights[0];
        float t_14 = BlurParams.weights[1u];
        float t_15 = BlurParams.weights[2u];
        float t_16 = BlurParams.weights[3u];
        float t_17 = BlurParams.weights[4u];
        imageStore(destination, ivec2(uvec2(ivec2(t_6, t_2))), vec4(t_13) * cache[t_7] + vec4(t_14) * (cache[t_4 + 3u] + cache[t_4 + 5u]) + vec4(t_15) * (cache[t_4 + 2u] + cache[t_4 + 6u]) + vec4(t_16) * (cache[t_4 + 1u] + cache[t_4 + 7u]) + vec4(t_17) * (cache[t_4] + cache[t_4 + 8u]));
        break;
    }
}

