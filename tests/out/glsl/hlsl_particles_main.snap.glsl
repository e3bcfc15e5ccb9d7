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
    vec3 p_position;
    vec3 p_velocity;
    uvec3 _1 = gl_GlobalInvocationID;
    for (;;) {
        uint _2 = _1.x;
        if (_2 >= Simulation.particleCount) {
            break;
        }
        Particle _3 = particles.data[_2];
        vec3 _4 = _3.position;
        float _5 = _3.age;
        vec3 _6 = _3.velocity;
        float _7 = _3.lifetime;
        if (_5 >= _7) {
            break;
        }
        float _8 = Simulation.deltaTime;
        vec3 _9 = vec3(_8);
        float _10 = max(1.0 - Simulation.drag * _8, 0.0);
        vec3 _11 = (_6 + Simulation.gravity * _9) * vec3(_10);
        vec3 _12 = _4 + _11 * _9;
        float _13 = _12.y;
        if (_13 < 0.0) {
            vec3 _14 = _12;
            _14.y = -_13;
            vec3 _15 = _11;
            _15.y = -_11.y * Simulation.restitution;
            p_position = _14;
            p_velocity = _15;
        } else {
            p_position = _12;
            p_velocity = _11;
        }
        float _16 = _5 + _8;
        particles.data[_2] = Particle(p_position, _16, p_velocity, _7);
        if (_16 < _7) {
            uint _17 = atomicAdd(counters.data[0], 1u);
            aliveList.data[_17] = _2;
        } else {
            atomicAdd(counters.data[1], 1u);
        }
        break;
    }
}

