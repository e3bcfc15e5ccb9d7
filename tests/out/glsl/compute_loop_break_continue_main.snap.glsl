#version 450

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) buffer out_1_block {
    layout(offset = 0) uint data[];
} out_1;

void main() {
    uint k;
    uint sum;
    uint next_sum;
    uint s;
    uint k_1;
    uint sum_1;
    uint i = gl_GlobalInvocationID.x;
    uint n = i + 3u;
    k = 0u;
    sum = 0u;
    for (;;) {
        k_1 = k;
        sum_1 = sum;
        if (!(k_1 < n)) {
            break;
        }
        if (k_1 % 3u == 0u) {
            next_sum = sum_1;
        } else {
            if (sum_1 > 50u) {
                break;
            }
            next_sum = sum_1 + k_1 * i;
        }
        s = next_sum;
        uint s_1 = s;
        k = k_1 + 1u;
        sum = s_1;
    }
    out_1.data[i] = sum_1;
    out_1.data[i + 64u] = k_1;
}

