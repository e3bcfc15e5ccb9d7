// Inclusive prefix sum of 128-element blocks (Hillis-Steele scan in groupshared memory, two
// buffers ping-ponged between barriers). Each group also writes its block's total to
// `blockSums`, which a second dispatch of the same shader scans to offset the blocks.
//
//   oneshader compile examples/hlsl/prefix_sum.hlsl -T cs_6_0 -E main -o prefix_sum.spv

#define BLOCK 128

StructuredBuffer<uint> input : register(t0);
RWStructuredBuffer<uint> output : register(u1);
RWStructuredBuffer<uint> blockSums : register(u2);

groupshared uint scratch[2 * BLOCK];

[numthreads(BLOCK, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 group : SV_GroupID, uint i : SV_GroupIndex)
{
    uint current = 0;
    scratch[i] = input[id.x];
    GroupMemoryBarrierWithGroupSync();
    for (uint offset = 1; offset < BLOCK; offset <<= 1)
    {
        uint next = 1 - current;
        uint value = scratch[current * BLOCK + i];
        if (i >= offset)
            value += scratch[current * BLOCK + i - offset];
        scratch[next * BLOCK + i] = value;
        current = next;
        GroupMemoryBarrierWithGroupSync();
    }
    uint sum = scratch[current * BLOCK + i];
    output[id.x] = sum;
    if (i == BLOCK - 1)
        blockSums[group.x] = sum;
}
