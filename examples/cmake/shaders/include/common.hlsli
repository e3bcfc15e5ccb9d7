// Shared by blur.hlsl and tint.hlsl (fill.hlsl does not include it).
float4 scaled(float4 c, float k)
{
    return saturate(c * k);
}
