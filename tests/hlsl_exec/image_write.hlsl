// Storage-image writes and image atomics for the execution tests: every invocation inside the
// image writes a value computed from its coordinates and counts itself in a 1x1 image.

[[vk::image_format("r32ui")]] RWTexture2D<uint> image : register(u0);
[[vk::image_format("r32ui")]] RWTexture2D<uint> counter : register(u1);

cbuffer Size : register(b2)
{
    uint2 size;
};

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    if (any(id.xy >= size))
        return;
    image[id.xy] = (id.x * 7 + id.y * 13) ^ (id.x << 8);
    InterlockedAdd(counter[uint2(0, 0)], 1);
}
