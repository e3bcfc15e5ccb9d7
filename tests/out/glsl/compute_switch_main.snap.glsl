#version 450

layout(local_size_x = 16, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer input_1_block {
    layout(offset = 0) int data[];
} input_1;
layout(set = 0, binding = 1, std430) buffer output_1_block {
    layout(offset = 0) int data[];
} output_1;

int classify(int x) {
    int r;
    r = 0;
    switch (x) {
    case -5:
        {
            r = 500;
            break;
        }
    case 0:
    case 1:
        {
            r = 10;
        }
    case 2:
        {
            r = r + 20;
            break;
        }
    default:
        {
            r = -1;
            break;
        }
    }
    return r;
}

void main() {
    uint _1 = gl_GlobalInvocationID.x;
    int _2 = classify(input_1.data[_1]);
    output_1.data[_1] = _2;
}

