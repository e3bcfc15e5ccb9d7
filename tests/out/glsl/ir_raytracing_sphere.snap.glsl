#version 460
#extension GL_EXT_ray_tracing : require

hitAttributeEXT vec2 sphere_attribs;

void main() {
    sphere_attribs = vec2(0.25, 0.5);
    reportIntersectionEXT(1.0, 1u);
}

