#version 450

layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;

in gl_PerVertex {
    vec4 gl_Position;
} gl_in[];

layout(location = 0) in vec3 in_color[3];
layout(location = 0) out vec4 out_color;

void main() {
    uint _1;
    float _2 = float(uint(gl_PrimitiveIDIn));
    _1 = 0u;
    for (;;) {
        uint _3 = _1;
        if (!(_3 < 3u)) {
            break;
        }
        gl_Position = gl_in[_3].gl_Position;
        out_color = vec4(in_color[_3], _2);
        EmitVertex();
        _1 = _3 + 1u;
    }
    EndPrimitive();
}

