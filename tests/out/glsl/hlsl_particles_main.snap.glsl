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
    vec3 v;
    vec3 v_1;
    uvec3 t = gl_GlobalInvocationID;
    for (;;) {
        uint t_1 = t.x;
        if (t_1 >= Simulation.particleCount) {
            break;
        }
        Particle t_2 = particles.data[t_1];
        vec3 t_3 = t_2.position;
        float t_4 = t_2.age;
        vec3 t_5 = t_2.velocity;
        float t_6 = t_2.lifetime;
        if (t_4 >= t_6) {
            break;
        }
        float t_7 = Simulation.deltaTime;
        vec3 t_8 = vec3(t_7);
        float t_9 = max(1.0 - Simulation.drag * t_7, 0.0);
        vec3 t_10 = (t_5 + Simulation.gravity * t_8) * vec3(t_9);
        vec3 t_11 = t_3 + t_10 * t_8;
        float t_12 = t_11.y;
        if (t_12 < 0.0) {
            vec3 t_13 = t_11;
            t_13.y = -t_12;
            vec3 t_14 = t_10;
            t_14.y = -t_10.y * Simulation.restitution;
            v = t_13;
            v_1 = t_14;
        } else {
            v = t_11;
            v_1 = t_10;
        }
        float t_15 = t_4 + t_7;
        particles.data[t_1] = Particle(v, t_15, v_1, t_6);
        if (t_15 < t_6) {
            uint t_16 = atomicAdd(counters.data[0], 1u);
            aliveList.data[t_16] = t_1;
        } else {
            atomicAdd(counters.data[1], 1u);
        }
        break;
    }
}

