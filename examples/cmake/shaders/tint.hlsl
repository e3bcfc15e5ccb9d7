#include "common.hlsli"

Texture2D<float4> image : register(t0);
SamplerState linearSampler : register(s0);

float4 main(float2 uv : TEXCOORD0) : SV_Target
{
    return scaled(image.Sample(linearSampler, uv), STRENGTH);
}
