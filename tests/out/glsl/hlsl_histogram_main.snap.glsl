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
    uint v;
    bool v_1;
    uvec3 t = gl_GlobalInvocationID;
    uint t_1 = gl_LocalInvocationIndex;
    bool t_2 = t_1 < 64u;
    if (t_2) {
        localBins[t_1] = 0u;
    }
    barrier();
    v = t.x;
    for (;;) {
        uint t_3 = v;
        if (!(t_3 < HistogramParams.keyCount)) {
            break;
        }
        atomicAdd(localBins[keys.data[t_3] >> (HistogramParams.shift & 31u) & 63u], 1u, gl_ScopeWorkgroup, 0, 0);
        v = t_3 + HistogramParams.threadCount;
    }
    barrier();
    if (t_2) {
        v_1 = localBins[t_1] != 0u;
    } else {
        v_1 = false;
    }
    if (v_1) {
        atomicAdd(histogram.data[t_1], localBins[t_1]);
    }
}

