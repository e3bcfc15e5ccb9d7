// One simulation step of a particle system. Every live particle falls under gravity with
// linear drag, bounces off the floor plane y = 0 and ages; the indices of the particles still
// alive after the step are appended to a compacted list (a slot taken with an atomic add), and
// the ones that died are counted.
//
//   oneshader compile examples/hlsl/particles.hlsl -T cs_6_0 -E main -o particles.spv
//
// Dispatch ceil(particleCount / 64) x 1 x 1 groups; reset `counters` to zero first.

struct Particle
{
    float3 position;
    float age;
    float3 velocity;
    float lifetime;
};

cbuffer Simulation : register(b0)
{
    float3 gravity;
    float deltaTime;
    uint particleCount;
    float drag;        // fraction of the velocity lost per second
    float restitution; // fraction of the vertical speed kept by a bounce
};

RWStructuredBuffer<Particle> particles : register(u1);
RWStructuredBuffer<uint> aliveList : register(u2);
RWStructuredBuffer<uint> counters : register(u3); // [0] alive, [1] died this step

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint index = id.x;
    if (index >= particleCount)
        return;
    Particle p = particles[index];
    if (p.age >= p.lifetime)
        return; // dead before this step

    p.velocity += gravity * deltaTime;
    p.velocity *= max(1.0 - drag * deltaTime, 0.0);
    p.position += p.velocity * deltaTime;
    if (p.position.y < 0.0)
    {
        p.position.y = -p.position.y;
        p.velocity.y = -p.velocity.y * restitution;
    }
    p.age += deltaTime;
    particles[index] = p;

    if (p.age < p.lifetime)
    {
        uint slot;
        InterlockedAdd(counters[0], 1, slot);
        aliveList[slot] = index;
    }
    else
    {
        InterlockedAdd(counters[1], 1);
    }
}
