#version 460
#extension GL_EXT_ray_tracing : require

layout(location = 0) rayPayloadInEXT vec4 hit_payload;

void main() {
    hit_payload = vec4(0.0);
}

