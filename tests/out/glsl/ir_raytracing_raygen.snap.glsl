#version 460
#extension GL_EXT_ray_tracing : require

layout(set = 0, binding = 0) uniform accelerationStructureEXT scene;
layout(set = 1, binding = 0, rgba32f) uniform image2D image;
layout(location = 0) rayPayloadEXT vec4 payload;
layout(location = 0) callableDataEXT float call_data;

void main() {
    uvec3 _1 = gl_LaunchIDEXT;
    traceRayEXT(scene, 0u, 255u, 0u, 1u, 0u, vec3(_1), 0.001, vec3(0.0, 0.0, 1.0), 1000.0, 0);
    call_data = 2.0;
    executeCallableEXT(0u, 0);
    imageStore(image, ivec2(_1.xy), payload);
}

