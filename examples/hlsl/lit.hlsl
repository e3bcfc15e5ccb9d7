// A mesh lit by point lights, with permutations: LIGHTS (how many lights, default 1) and SHADOWS
// (0 or 1, default 0) are defines that examples/oneshader.toml varies; lighting.hlsli is shared.
//
//   oneshader compile examples/hlsl/lit.hlsl -T vs_6_0 -E VSMain -o lit.vert.spv
//   oneshader compile examples/hlsl/lit.hlsl -T ps_6_0 -E PSMain -D LIGHTS=4 -D SHADOWS=1 -o lit.frag.spv
//   oneshader build examples/oneshader.toml

#include "lighting.hlsli"

#ifndef SHADOWS
#define SHADOWS 0
#endif

cbuffer PerFrame : register(b0)
{
    float4x4 viewProjection;
    float3 ambient;
    float shadowBias;
};

Texture2D<float4> albedoMap : register(t2);
SamplerState linearWrap : register(s3);
#if SHADOWS
Texture2D<float> shadowMap : register(t4);
#endif

struct VSInput
{
    float3 position : POSITION;
    float3 normal : NORMAL;
    float2 uv : TEXCOORD0;
};

struct VSOutput
{
    float4 position : SV_Position;
    float3 worldPos : TEXCOORD0;
    float3 normal : TEXCOORD1;
    float2 uv : TEXCOORD2;
};

VSOutput VSMain(VSInput input)
{
    VSOutput o;
    o.position = mul(viewProjection, float4(input.position, 1.0));
    o.worldPos = input.position;
    o.normal = input.normal;
    o.uv = input.uv;
    return o;
}

float4 PSMain(VSOutput input) : SV_Target0
{
    float3 n = normalize(input.normal);
    float3 light = ambient;
    [unroll]
    for (int i = 0; i < LIGHTS; ++i)
        light += lambert(n, input.worldPos, lights[i]);
#if SHADOWS
    float depth = shadowMap.Sample(linearWrap, input.uv);
    light *= depth + shadowBias < input.position.z ? 0.25 : 1.0;
#endif
    float4 albedo = albedoMap.Sample(linearWrap, input.uv);
    return float4(albedo.rgb * light, albedo.a);
}
