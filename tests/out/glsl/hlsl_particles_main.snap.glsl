#version 450

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

struct Particle {
    vec3 position;
    float age;
    vec3 velocity;
    float lifetime;
};

layout(set = 0, binding = 0, std140) uniform type_Simulation_block {
    layout(offset = 0) vec3 gravity;
    layout(offset = 12) float deltaTime;
    layout(offset = 16) uint particleCount;
    layout(offset = 20) float drag;
    layout(offset = 24) float restitution;
} Simulation;
layout(set = 0, binding = 1, std430) buffer particles_block {
    layout(offset = 0) Particle data[];
} particles;
layout(set = 0, binding = 2, std430) buffer aliveList_block {
    layout(offset = 0) uint data[];
} aliveList;
layout(set = 0, binding = 3, std430) buffer counters_block {
    layout(offset = 0) uint data[];
} counters;

void main() {
    vec3 _1;
    vec3 _2;
    uvec3 _3 = gl_GlobalInvocationID;
    for (;;) {
        uint _4 = _3.x;
        if (_4 >= Simulation.particleCount) {
            break;
        }
        Particle _5 = particles.data[_4];
        vec3 _6 = _5.position;
        float _7 = _5.age;
        vec3 _8 = _5.velocity;
        float _9 = _5.lifetime;
        if (_7 >= _9) {
            break;
        }
        float _10 = Simulation.deltaTime;
        vec3 _11 = vec3(_10);
        float _12 = max(1.0 - Simulation.drag * _10, 0.0);
        vec3 _13 = (_8 + Simulation.gravity * _11) * vec3(_12);
        vec3 _14 = _6 + _13 * _11;
        float _15 = _14.y;
        if (_15 < 0.0) {
            vec3 _16 = _14;
            _16.y = -_15;
            vec3 _17 = _13;
            _17.y = -_13.y * Simulation.restitution;
            _1 = _16;
            _2 = _17;
        } else {
            _1 = _14;
            _2 = _13;
        }
        float _18 = _7 + _10;
        particles.data[_4] = Particle(_1, _18, _2, _9);
        if (_18 < _9) {
            uint _19 = atomicAdd(counters.data[0], 1u);
            aliveList.data[_19] = _4;
        } else {
            atomicAdd(counters.data[1], 1u);
        }
        break;
    }
}

