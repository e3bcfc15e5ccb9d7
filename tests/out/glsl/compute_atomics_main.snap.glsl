#version 450

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) buffer counters_block {
    layout(offset = 0) uint data[];
} counters;
layout(set = 0, binding = 1, std430) buffer tickets_block {
    layout(offset = 0) uint data[];
} tickets;

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint _1 = i + 1u;
    atomicAdd(counters.data[0u], _1);
    atomicMax(counters.data[1u], i);
    atomicMin(counters.data[2u], _1);
    atomicOr(counters.data[3u], 1u << (i & 31u & 31u));
    uint _2 = atomicAdd(counters.data[4u], 1u);
    tickets.data[i] = _2;
    atomicCompSwap(counters.data[5u], i == 7u ? 0u : 99u, _1);
}

