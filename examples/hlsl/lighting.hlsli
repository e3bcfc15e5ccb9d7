// Shared by lit.hlsl: the light list and a Lambert term. `oneshader build` hashes this file into
// the key of every variant that includes it, so editing it rebuilds exactly those variants.

#ifndef LIGHTS
#define LIGHTS 1
#endif

struct PointLight
{
    float3 position;
    float range;
    float3 color;
    float intensity;
};

cbuffer Lights : register(b1)
{
    PointLight lights[LIGHTS];
};

float3 lambert(float3 normal, float3 worldPos, PointLight light)
{
    float3 toLight = light.position - worldPos;
    float dist = length(toLight);
    float falloff = saturate(1.0 - dist / light.range);
    return light.color * light.intensity * falloff * saturate(dot(normal, toLight / dist));
}
