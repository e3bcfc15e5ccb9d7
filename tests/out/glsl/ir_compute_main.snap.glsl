#version 450

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) buffer data_block {
    layout(offset = 0) uint data[];
} data;

void main() {
    uint _1 = gl_GlobalInvocationID.x;
    data.data[_1] = data.data[_1] * 2u;
}

