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
    uint i;
    bool _1;
    uvec3 _2 = gl_GlobalInvocationID;
    uint _3 = gl_LocalInvocationIndex;
    bool _4 = _3 < 64u;
    if (_4) {
        localBins[_3] = 0u;
    }
    barrier();
    i = _2.x;
    for (;;) {
        uint i_1 = i;
        if (!(i_1 < HistogramParams.keyCount)) {
            break;
        }
        atomicAdd(localBins[keys.data[i_1] >> (HistogramParams.shift & 31u) & 63u], 1u, gl_ScopeWorkgroup, 0, 0);
        i = i_1 + HistogramParams.threadCount;
    }
    barrier();
    if (_4) {
        _1 = localBins[_3] != 0u;
    } else {
        _1 = false;
    }
    if (_1) {
        atomicAdd(histogram.data[_3], localBins[_3]);
    }
}

