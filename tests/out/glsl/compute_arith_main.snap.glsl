#version 450

layout(local_size_x = 1, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer in_1_block {
    layout(offset = 0) uint data[];
} in_1;
layout(set = 0, binding = 1, std430) buffer out_1_block {
    layout(offset = 0) uint data[];
} out_1;

int os_srem(int a, int b) {
    return a - b * (a / b);
}

float os_frem(float a, float b) {
    return a - b * trunc(a / b);
}

uint get(uint k) {
    return in_1.data[k];
}

void put(uint k, uint v) {
    out_1.data[k] = v;
}

void main() {
    uint _1 = get(0u);
    uint _2 = get(1u);
    int one = int(_2);
    uint _3 = get(2u);
    int minus7 = int(_3);
    uint _4 = get(3u);
    int two = int(_4);
    uint umax = get(4u);
    uint three = get(5u);
    uint s33 = get(6u);
    uint _5 = get(7u);
    uint _6 = get(8u);
    float f01 = uintBitsToFloat(_6);
    uint _7 = get(9u);
    float f02 = uintBitsToFloat(_7);
    uint _8 = get(10u);
    uint _9 = get(11u);
    uint _10 = get(12u);
    uint _11 = get(13u);
    uint _12 = get(14u);
    int int_min = int(_12);
    uint _13 = get(15u);
    int minus1 = int(_13);
    put(0u, uint(int(_1) + one));
    put(1u, uint(minus7 / two));
    put(2u, uint(os_srem(minus7, two)));
    put(3u, umax / three);
    put(4u, umax % three);
    put(5u, _2 << (s33 & 31u));
    put(6u, uint(int(_5) >> (one & 31)));
    put(7u, umax >> (s33 & 31u));
    put(8u, floatBitsToUint(f01 + f02));
    put(9u, floatBitsToUint(uintBitsToFloat(_10) / uintBitsToFloat(_11)));
    put(10u, uint(int(uintBitsToFloat(_8))));
    put(11u, floatBitsToUint(float(int(_9))));
    put(12u, floatBitsToUint(float(umax)));
    put(13u, uint(-int_min));
    put(14u, uint(int_min * minus1));
    put(15u, uint(minus7 * two));
    put(16u, uint(abs(minus7)));
    put(17u, floatBitsToUint(min(f01, f02)));
    put(18u, floatBitsToUint(-(f01 - f01)));
    put(19u, uint(minus7));
    put(20u, uint(minus7 < two));
    put(21u, uint(_3 < _4));
    put(22u, floatBitsToUint(os_frem(float(minus7), float(two))));
    put(23u, uint(clamp(minus7, minus1, two)));
    put(24u, uint(findMSB(umax)));
    put(25u, uint(bitCount(three)));
}

