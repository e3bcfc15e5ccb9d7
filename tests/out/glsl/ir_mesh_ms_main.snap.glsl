#version 450
#extension GL_EXT_mesh_shader : require

layout(local_size_x = 3, local_size_y = 1, local_size_z = 1) in;
layout(triangles, max_vertices = 3, max_primitives = 1) out;

out gl_MeshPerVertexEXT {
    vec4 gl_Position;
} gl_MeshVerticesEXT[];

taskPayloadSharedEXT float payload;
layout(location = 0) out vec4 ms_color[3];
layout(location = 1) perprimitiveEXT flat out uint ms_layer[1];

void main() {
    SetMeshOutputsEXT(3u, 1u);
    uint _1 = gl_LocalInvocationIndex;
    vec4 _2 = vec4(float(_1), payload, 0.0, 1.0);
    gl_MeshVerticesEXT[_1].gl_Position = _2;
    ms_color[_1] = _2;
    if (_1 == 0u) {
        gl_PrimitiveTriangleIndicesEXT[0u] = uvec3(0u, 1u, 2u);
        ms_layer[0u] = 7u;
    }
}

