#version 460
#extension GL_EXT_ray_tracing : require

layout(location = 0) callableDataInEXT float incoming_data;

void main() {
    incoming_data = incoming_data * 2.0;
}

