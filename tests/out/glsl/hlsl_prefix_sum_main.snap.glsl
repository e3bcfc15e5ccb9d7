#version 450

layout(local_size_x = 128, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer input_1_block {
    layout(offset = 0) uint data[];
} input_1;
layout(set = 0, binding = 1, std430) buffer output_1_block {
    layout(offset = 0) uint data[];
} output_1;
layout(set = 0, binding = 2, std430) buffer blockSums_block {
    layout(offset = 0) uint data[];
} blockSums;
shared uint scratch[256];

void main() {
    uint _1;
    uint _2;
    uint _3;
    uint _8;
    uvec3 _4 = gl_WorkGroupID;
    uint _5 = gl_LocalInvocationIndex;
    uint _6 = gl_GlobalInvocationID.x;
    scratch[_5] = input_1.data[_6];
    barrier();
    _1 = 1u;
    _2 = 0u;
    for (;;) {
        uint _7 = _1;
        _8 = _2;
        if (!(_7 < 128u)) {
            break;
        }
        uint _9 = 1u - _8;
        uint _10 = _8 * 128u + _5;
        uint _11 = scratch[_10];
        if (_5 >= _7) {
            _3 = _11 + scratch[_10 - _7];
        } else {
            _3 = _11;
        }
        scratch[_9 * 128u + _5] = _3;
        barrier();
        _1 = _7 << 1u;
        _2 = _9;
    }
    uint _12 = scratch[_8 * 128u + _5];
    output_1.data[_6] = _12;
    if (_5 == 127u) {
        blockSums.data[_4.x] = _12;
    }
}

