#version 450

layout(local_size_x = 1, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) buffer data_block {
    layout(offset = 0) float data[4];
} data;

const float table[3] = float[3](0.10000000149011612, 0.20000000298023224, 0.30000001192092896);

void main() {
    float _1 = data.data[0u];
    data.data = float[4](1657711.625 * 116.75 + _1, 0.10000000149011612 * 3.0 + 0.699999988079071 + _1, table[2] * 10.0 + _1, 1.0 / 3.0 * 3.0 + _1);
}

