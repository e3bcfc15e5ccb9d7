// Integer and float arithmetic for the execution tests: signed division and remainder, shifts,
// bit intrinsics, min/max, float rounding, conversions and the common float intrinsics.

StructuredBuffer<float2> inputs : register(t0);
RWStructuredBuffer<uint> results : register(u1);

#define N 16

[numthreads(N, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    int i = (int)id.x - 8;
    uint u = id.x * 2654435761u;
    float a = inputs[id.x].x;
    float b = inputs[id.x].y;
    uint o = id.x * N;
    results[o + 0] = asuint(i / 3);
    results[o + 1] = asuint(i % 3);
    results[o + 2] = u >> 7;
    results[o + 3] = asuint(i >> 1);
    results[o + 4] = countbits(u);
    results[o + 5] = reversebits(u);
    results[o + 6] = firstbithigh(u);
    results[o + 7] = asuint(min(i, -2) * max(i, 3));
    results[o + 8] = asuint(a * b + a);
    results[o + 9] = asuint(floor(a));
    results[o + 10] = asuint(frac(a));
    results[o + 11] = asuint(sqrt(abs(b)));
    results[o + 12] = asuint(lerp(a, b, 0.25));
    results[o + 13] = asuint(clamp(a, -1.0, 1.0));
    results[o + 14] = asuint((int)a);
    results[o + 15] = (a < b ? 1u : 0u) | (a == b ? 2u : 0u) | ((uint)abs(i) << 2);
}
