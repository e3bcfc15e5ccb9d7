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
    uvec3 _1 = gl_WorkGroupID;
    uvec3 _2 = gl_LocalInvocationID;
    for (;;) {
        int _3 = int(_1.y);
        int _4 = int(_1.x * 64u);
        uint _5 = _2.x;
        int _6 = int(_5);
        int _7 = _4 + _6;
        uint _8 = _5 + 4u;
        int _9 = int(BlurParams.imageSize_1[0u]);
        int _10 = _9 + -1;
        ivec3 _11 = ivec3(clamp(_7, 0, _10), _3, 0);
        cache[_8] = texelFetch(source, _11.xy, 0);
        if (_5 < 4u) {
            ivec3 _12 = ivec3(clamp(_4 + -4 + _6, 0, _10), _3, 0);
            cache[_5] = texelFetch(source, _12.xy, 0);
            ivec3 _13 = ivec3(clamp(_4 + 64 + _6, 0, _10), _3, 0);
            cache[_5 + 68u] = texelFetch(source, _13.xy, 0);
        }
        barrier();
        if (_7 >= _9) {
            break;
        }
        float _14 = BlurParams.weights[0];
        float _15 = BlurParams.weights[1u];
        float _16 = BlurParams.weights[2u];
        float _17 = BlurParams.weights[3u];
        float _18 = BlurParams.weights[4u];
        imageStore(destination, ivec2(uvec2(ivec2(_7, _3))), vec4(_14) * cache[_8] + vec4(_15) * (cache[_5 + 3u] + cache[_5 + 5u]) + vec4(_16) * (cache[_5 + 2u] + cache[_5 + 6u]) + vec4(_17) * (cache[_5 + 1u] + cache[_5 + 7u]) + vec4(_18) * (cache[_5] + cache[_5 + 8u]));
        break;
    }
}

