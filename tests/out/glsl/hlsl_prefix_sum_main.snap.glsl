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
    uint offset_1;
    uint current;
    uint value;
    uint current_1;
    uvec3 _1 = gl_WorkGroupID;
    uint _2 = gl_LocalInvocationIndex;
    uint _3 = gl_GlobalInvocationID.x;
    scratch[_2] = input_1.data[_3];
    barrier();
    offset_1 = 1u;
    current = 0u;
    for (;;) {
        uint offset_2 = offset_1;
        current_1 = current;
        if (!(offset_2 < 128u)) {
            break;
        }
        uint _4 = 1u - current_1;
        uint _5 = current_1 * 128u + _2;
        uint _6 = scratch[_5];
        if (_2 >= offset_2) {
            value = _6 + scratch[_5 - offset_2];
        } else {
            value = _6;
        }
        scratch[_4 * 128u + _2] = value;
        barrier();
        offset_1 = offset_2 << 1u;
        current = _4;
    }
    uint _7 = scratch[current_1 * 128u + _2];
    output_1.data[_3] = _7;
    if (_2 == 127u) {
        blockSums.data[_1.x] = _7;
    }
}

