#version 460
#extension GL_EXT_ray_query : require

layout(local_size_x = 1, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) uniform accelerationStructureEXT scene;
layout(set = 2, binding = 0, std430) buffer hits_block {
    layout(offset = 0) uint data[];
} hits;

void main() {
    rayQueryEXT _1;
    rayQueryInitializeEXT(_1, scene, 4u, 255u, vec3(0.0), 0.0, vec3(0.0, 0.0, 1.0), 100.0);
    for (;;) {
        bool _2 = rayQueryProceedEXT(_1);
        if (_2) {
            rayQueryConfirmIntersectionEXT(_1);
            continue;
        }
        break;
    }
    hits.data[0u] = rayQueryGetIntersectionTypeEXT(_1, true);
}

