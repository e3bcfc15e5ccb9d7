// A 64-bin histogram of 32-bit keys (bins by the key's bits [shift, shift + 6)). Each group
// counts into groupshared bins with atomic adds, then adds its non-zero bins to the global
// histogram: one global atomic per bin and group instead of one per key.
//
//   oneshader compile examples/hlsl/histogram.hlsl -T cs_6_0 -E main -o histogram.spv
//
// Dispatch any number of groups (the loop strides over the keys); zero `histogram` first.

#define BINS 64
#define GROUP_SIZE 128

cbuffer HistogramParams : register(b0)
{
    uint keyCount;
    uint shift;
    uint threadCount; // groups dispatched * GROUP_SIZE
};

StructuredBuffer<uint> keys : register(t1);
RWStructuredBuffer<uint> histogram : register(u2);

groupshared uint localBins[BINS];

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint localIndex : SV_GroupIndex)
{
    if (localIndex < BINS)
        localBins[localIndex] = 0;
    GroupMemoryBarrierWithGroupSync();

    for (uint i = id.x; i < keyCount; i += threadCount)
    {
        uint bin = (keys[i] >> shift) & (BINS - 1);
        InterlockedAdd(localBins[bin], 1);
    }
    GroupMemoryBarrierWithGroupSync();

    if (localIndex < BINS && localBins[localIndex] != 0)
        InterlockedAdd(histogram[localIndex], localBins[localIndex]);
}
