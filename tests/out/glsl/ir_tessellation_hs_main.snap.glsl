#version 450
#extension GL_EXT_spirv_intrinsics : require

layout(vertices = 3) out;
spirv_execution_mode(22); // triangles
spirv_execution_mode(1); // equal_spacing
spirv_execution_mode(4); // cw

layout(location = 0) in vec4 hs_in[];
layout(location = 0) out vec4 hs_out[3];
layout(location = 1) patch out vec4 hs_tint;

const float table[4] = float[4](2.0, 2.0, 2.0, 1.0);

void main() {
    uint _1 = uint(gl_InvocationID);
    hs_out[gl_InvocationID] = hs_in[_1];
    barrier();
    if (_1 == 0u) {
        gl_TessLevelOuter = table;
        gl_TessLevelInner[0u] = 3.0;
        hs_tint = vec4(1.0, 0.5, 0.25, 1.0);
    }
}

