#version 450
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x = 32, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer values_block {
    layout(offset = 0) uint data[];
} values;
layout(set = 0, binding = 1, std430) buffer counter_block {
    layout(offset = 0) uint data[];
} counter;
shared uint group_total;

void main() {
    bool _1 = gl_LocalInvocationIndex == 0u;
    if (_1) {
        group_total = 0u;
    }
    barrier();
    atomicAdd(group_total, values.data[gl_GlobalInvocationID.x], gl_ScopeWorkgroup, 0, 0);
    barrier();
    if (_1) {
        atomicAdd(counter.data[0u], group_total);
    }
}

