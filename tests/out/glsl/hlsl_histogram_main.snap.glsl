#version 450
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x = 128, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std140) uniform type_HistogramParams_block {
    layout(offset = 0) uint keyCount;
    layout(offset = 4) uint shift;
    layout(offset = 8) uint threadCount;
} HistogramParams;
layout(set = 0, binding = 1, std430) readonly buffer keys_block {
    layout(offset = 0) uint data[];
} keys;
layout(set = 0, binding = 2, std430) buffer histogram_block {
    layout(offset = 0) uint data[];
} histogram;
shared uint localBins[64];

void main() {
    uint _1;
    bool _2;
    uvec3 _3 = gl_GlobalInvocationID;
    uint _4 = gl_LocalInvocationIndex;
    bool _5 = _4 < 64u;
    if (_5) {
        localBins[_4] = 0u;
    }
    barrier();
    _1 = _3.x;
    for (;;) {
        uint _6 = _1;
        if (!(_6 < HistogramParams.keyCount)) {
            break;
        }
        atomicAdd(localBins[keys.data[_6] >> (HistogramParams.shift & 31u) & 63u], 1u, gl_ScopeWorkgroup, 0, 0);
        _1 = _6 + HistogramParams.threadCount;
    }
    barrier();
    if (_5) {
        _2 = localBins[_4] != 0u;
    } else {
        _2 = false;
    }
    if (_2) {
        atomicAdd(histogram.data[_4], localBins[_4]);
    }
}

