// A texture and a storage image of 16-bit floats (-enable-16bit-types, issue 26 reproducer
// 4): Vulkan images hold 32-bit elements (VUID-StandaloneSpirv-OpTypeImage-04656), so both
// are declared with `float` texels and every read and write converts (legalization pass
// `image_widths`), as DXC does. The storage image reads back what the texture holds, doubled.

Texture2D<float16_t4> t : register(t0);
[[vk::image_format("rgba16f")]] RWTexture2D<float16_t4> o : register(u1);
SamplerState s : register(s2);

[numthreads(8, 8, 1)]
void main(uint2 px : SV_DispatchThreadID)
{
    // Texel centres, so nearest and linear filtering read the same texel.
    float16_t4 a = t.SampleLevel(s, (float2(px) + 0.5) / 8.0, 0);
    o[px] = a + t[px];
}
