// countbits, reversebits, firstbithigh and firstbitlow of 16-, 32- and 64-bit integers,
// signed and unsigned, scalars and vectors, on run-time inputs (-enable-16bit-types): Vulkan
// takes 32-bit operands only, so the 16-bit ones are widened and the 64-bit ones split into
// halves (legalization pass `intrinsic_widths`). Integer `dot` of 16- and 64-bit vectors too.

StructuredBuffer<uint2> inp : register(t0);
RWStructuredBuffer<uint> outp : register(u1);

#define SLOTS 24

[numthreads(16, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint2 w = inp[id.x];
    uint64_t u64 = ((uint64_t)w.y << 32) | w.x;
    int64_t s64 = (int64_t)u64;
    uint16_t u16 = (uint16_t)w.x;
    int16_t s16 = (int16_t)(w.x >> 16);
    uint b = id.x * SLOTS;
    outp[b + 0] = countbits(u64);
    outp[b + 1] = countbits(s64);
    outp[b + 2] = countbits(u16);
    outp[b + 3] = countbits(s16);
    uint64_t r64 = reversebits(u64);
    outp[b + 4] = (uint)r64;
    outp[b + 5] = (uint)(r64 >> 32);
    outp[b + 6] = reversebits(u16);
    outp[b + 7] = (uint)(int)reversebits(s16);
    outp[b + 8] = firstbithigh(u64);
    outp[b + 9] = firstbithigh(s64);
    outp[b + 10] = firstbitlow(u64);
    outp[b + 11] = firstbitlow(s64);
    outp[b + 12] = firstbithigh(u16);
    outp[b + 13] = firstbithigh(s16);
    outp[b + 14] = firstbitlow(u16);
    outp[b + 15] = firstbitlow(s16);
    // Vectors: the lanes must not mix.
    uint16_t2 v16 = uint16_t2(u16, (uint16_t)w.y);
    uint2 c2 = countbits(v16);
    outp[b + 16] = c2.x;
    outp[b + 17] = c2.y;
    int64_t2 v64 = int64_t2(s64, ~s64);
    uint2 h2 = firstbithigh(v64);
    outp[b + 18] = h2.x;
    outp[b + 19] = h2.y;
    uint16_t2 r2 = reversebits(v16);
    outp[b + 20] = r2.x | ((uint)r2.y << 16);
    // The 32-bit forms, for reference in the same run.
    outp[b + 21] = firstbithigh((int)w.x);
    // Integer dot products of 16- and 64-bit vectors (wrapping at their width).
    outp[b + 22] = (uint)dot(v16, uint16_t2(3, 5));
    outp[b + 23] = (uint)dot(uint64_t2(u64, w.x), uint64_t2(7, u64));
}
