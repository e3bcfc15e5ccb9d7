// Exposure and ACES filmic tone mapping (Narkowicz's fit) of an HDR image, in place, with the
// result converted to sRGB. Shows storage-texture reads and writes, push constants and
// specialization constants.
//
//   oneshader compile examples/hlsl/tonemap.hlsl -T cs_6_0 -E main --reflect tonemap.json -o tonemap.spv

[[vk::image_format("rgba32f")]] RWTexture2D<float4> image : register(u0);

struct ToneMapSettings
{
    float exposure;
    uint2 size;
};
[[vk::push_constant]] ToneMapSettings settings;

[[vk::constant_id(0)]] const bool kOutputSrgb = true;

float3 aces(float3 x)
{
    const float a = 2.51, b = 0.03, c = 2.43, d = 0.59, e = 0.14;
    return saturate((x * (a * x + b)) / (x * (c * x + d) + e));
}

float3 toSrgb(float3 linearColor)
{
    float3 low = linearColor * 12.92;
    float3 high = 1.055 * pow(linearColor, 1.0 / 2.4) - 0.055;
    return select(linearColor <= 0.0031308, low, high);
}

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    if (any(id.xy >= settings.size))
        return;
    float4 hdr = image[id.xy];
    float3 color = aces(hdr.rgb * settings.exposure);
    if (kOutputSrgb)
        color = toSrgb(color);
    image[id.xy] = float4(color, hdr.a);
}
