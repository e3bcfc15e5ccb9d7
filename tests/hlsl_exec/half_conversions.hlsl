// f32tof16 and f16tof32, scalar and vector, for the execution tests: halves of floats in
// f16's normal range (negatives, 65504, values that round to nearest even), and floats of
// halves whose high 16 bits must be ignored.

StructuredBuffer<float4> floats : register(t0);
StructuredBuffer<uint4> halves : register(t1);
RWStructuredBuffer<uint4> packed : register(u2);
RWStructuredBuffer<float4> unpacked : register(u3);

[numthreads(3, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 f = floats[id.x];
    packed[id.x] = uint4(f32tof16(f.x), f32tof16(f.yzw));
    uint4 h = halves[id.x];
    unpacked[id.x] = float4(f16tof32(h.xy), f16tof32(h.z), f16tof32(h.w));
}
