// `vk::SampledTexture2D` (issue 26, item 5): a texture with its own sampler, one combined
// image sampler descriptor. OneShader declares the texture and a sampler variable at the same
// binding (Vulkan lets both read a combined image sampler) and passes the sampler to each
// sampling method. Every texel is read four ways (SampleLevel at its centre, Load, the
// subscript and a Gather of the red channels around it), and GetDimensions reports the size.

vk::SampledTexture2D<float4> tex : register(t0);
RWStructuredBuffer<float4> o : register(u1);

[numthreads(8, 8, 1)]
void main(uint2 px : SV_DispatchThreadID)
{
    uint w, h;
    tex.GetDimensions(w, h);
    float2 uv = (float2(px) + 0.5) / float2(w, h);
    float4 a = tex.SampleLevel(uv, 0);
    float4 b = tex.Load(int3(px, 0));
    float4 c = tex[px];
    // Gather at a texel's upper-left corner: (x-1, y), (x, y), (x, y-1), (x-1, y-1) in
    // D3D's w, z, x, y order; clamped at the edges.
    float4 g = tex.GatherRed(float2(px) / float2(w, h));
    o[px.y * w + px.x] = float4(a.x + a.y, b.z + c.w, g.x + g.y, g.z + g.w + float(w * 100 + h));
}
