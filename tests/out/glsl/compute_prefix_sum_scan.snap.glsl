#version 450

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer input_1_block {
    layout(offset = 0) uint data[];
} input_1;
layout(set = 0, binding = 1, std430) buffer output_1_block {
    layout(offset = 0) uint data[];
} output_1;
shared uint temp[64];

void main() {
    uint offset_1;
    uint addend;
    uint lid = gl_LocalInvocationIndex;
    uint index_1 = gl_WorkGroupID.x * 64u + lid;
    temp[lid] = input_1.data[index_1];
    barrier();
    offset_1 = 1u;
    for (;;) {
        uint offset_2 = offset_1;
        if (!(offset_2 < 64u)) {
            break;
        }
        if (lid >= offset_2) {
            addend = temp[lid - offset_2];
        } else {
            addend = 0u;
        }
        uint addend_1 = addend;
        uint _1 = temp[lid];
        barrier();
        temp[lid] = _1 + addend_1;
        barrier();
        offset_1 = offset_2 << 1u;
    }
    output_1.data[index_1] = temp[lid];
}

