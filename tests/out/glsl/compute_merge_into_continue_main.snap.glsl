#version 450

layout(local_size_x = 16, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) buffer out_1_block {
    layout(offset = 0) uint data[];
} out_1;

void main() {
    uint k;
    uint acc;
    uint next;
    uint acc_1;
    uint i = gl_GlobalInvocationID.x;
    uint n = i + 4u;
    k = 0u;
    acc = 0u;
    for (;;) {
        uint k_1 = k;
        acc_1 = acc;
        if (!(k_1 < n)) {
            break;
        }
        if ((k_1 & 1u) == 0u) {
            if (k_1 > 3u) {
                next = acc_1 + k_1 * 10u;
                uint next_1 = next;
                k = k_1 + 1u;
                acc = next_1;
                continue;
            } else {
                next = acc_1 + k_1;
                uint next_1 = next;
                k = k_1 + 1u;
                acc = next_1;
                continue;
            }
        } else {
            next = acc_1 + 100u;
            uint next_1 = next;
            k = k_1 + 1u;
            acc = next_1;
            continue;
        }
    }
    out_1.data[i] = acc_1;
}

