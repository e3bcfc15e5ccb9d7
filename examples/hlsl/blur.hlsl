// Horizontal pass of a separable Gaussian blur (run it again on the transposed image for the
// vertical pass). Each group of 64 threads blurs 64 pixels of one row: the group loads its
// pixels and RADIUS more on each side into groupshared memory once, waits at a barrier, and
// then every thread reads its 2 * RADIUS + 1 taps from that cache instead of the texture.
// Pixels outside the image repeat the edge pixel.
//
//   oneshader compile examples/hlsl/blur.hlsl -T cs_6_0 -E main --reflect blur.json -o blur.spv
//
// Dispatch ceil(width / 64) x height x 1 groups.

#define GROUP_SIZE 64
#define RADIUS 4

cbuffer BlurParams : register(b0)
{
    uint2 imageSize;
    float weights[RADIUS + 1]; // weights[0] is the center tap, weights[i] the taps at +-i
};

Texture2D<float4> source : register(t1);
[[vk::image_format("rgba32f")]] RWTexture2D<float4> destination : register(u2);

groupshared float4 cache[GROUP_SIZE + 2 * RADIUS];

float4 loadClamped(int x, int y)
{
    x = clamp(x, 0, (int)imageSize.x - 1);
    return source.Load(int3(x, y, 0));
}

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 group : SV_GroupID, uint3 thread : SV_GroupThreadID)
{
    int y = (int)group.y;
    int rowStart = (int)(group.x * GROUP_SIZE);
    int x = rowStart + (int)thread.x;

    cache[thread.x + RADIUS] = loadClamped(x, y);
    if (thread.x < RADIUS)
    {
        cache[thread.x] = loadClamped(rowStart - RADIUS + (int)thread.x, y);
        cache[thread.x + GROUP_SIZE + RADIUS] = loadClamped(rowStart + GROUP_SIZE + (int)thread.x, y);
    }
    GroupMemoryBarrierWithGroupSync();

    if (x >= (int)imageSize.x)
        return;
    uint center = thread.x + RADIUS;
    float4 sum = weights[0] * cache[center];
    [unroll]
    for (uint i = 1; i <= RADIUS; ++i)
        sum += weights[i] * (cache[center - i] + cache[center + i]);
    destination[int2(x, y)] = sum;
}
