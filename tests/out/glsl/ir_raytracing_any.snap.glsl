#version 460
#extension GL_EXT_ray_tracing : require

void main() {
    if (gl_HitKindEXT == 0u) {
        ignoreIntersectionEXT;
    } else {
        terminateRayEXT;
    }
}

