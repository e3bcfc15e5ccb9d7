#include "common.hlsli"

RWStructuredBuffer<float4> pixels : register(u0);

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 left = pixels[max(id.x, 1) - 1];
    float4 right = pixels[id.x + 1];
    pixels[id.x] = scaled((left + pixels[id.x] + right) / 3.0, 1.0);
}
