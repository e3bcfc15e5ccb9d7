#version 450
#extension GL_EXT_mesh_shader : require

layout(local_size_x = 1, local_size_y = 1, local_size_z = 1) in;

taskPayloadSharedEXT float payload;

void main() {
    payload = 0.5;
    EmitMeshTasksEXT(1u, 1u, 1u);
}

