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
    uint v;
    uint v_1;
    uint v_2;
    uint t_4;
    uvec3 t = gl_WorkGroupID;
    uint t_1 = gl_LocalInvocationIndex;
    uint t_2 = gl_GlobalInvocationID.x;
    scratch[t_1] = input_1.data[t_2];
    barrier();
    v = 1u;
    v_1 = 0u;
    for (;;) {
        uint t_3 = v;
        t_4 = v_1;
        if (!(t_3 < 128u)) {
            break;
        }
        uint t_5 = 1u - t_4;
        uint t_6 = t_4 * 128u + t_1;
        uint t_7 = scratch[t_6];
        if (t_1 >= t_3) {
            v_2 = t_7 + scratch[t_6 - t_3];
        } else {
            v_2 = t_7;
        }
        scratch[t_5 * 128u + t_1] = v_2;
        barrier();
        v = t_3 << 1u;
        v_1 = t_5;
    }
    uint t_8 = scratch[t_4 * 128u + t_1];
    output_1.data[t_2] = t_8;
    if (t_1 == 127u) {
        blockSums.data[t.x] = t_8;
    }
}

