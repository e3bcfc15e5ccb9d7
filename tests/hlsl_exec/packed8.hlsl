// The packed 8-bit intrinsics of SM 6.6 and dot2add (issue 26, item 6) on run-time inputs:
// each thread reads two words `a`, `b` and four ints `v`, and writes what each intrinsic
// gives for them (compared in tests/hlsl_exec.rs with a reference written from D3D's
// definitions). Compiled with -enable-16bit-types (the 16-bit unpacks need it).

StructuredBuffer<uint> words : register(t0);
StructuredBuffer<int4> vecs : register(t1);
StructuredBuffer<float4> halves : register(t2);
RWStructuredBuffer<uint> o : register(u3);

[numthreads(16, 1, 1)]
void main(uint i : SV_DispatchThreadID)
{
    uint8_t4_packed a = words[2 * i];
    int8_t4_packed b = words[2 * i + 1];
    int4 v = vecs[i];
    uint base = i * 16;
    o[base + 0] = pack_u8(uint4(v));
    o[base + 1] = pack_s8(v);
    o[base + 2] = pack_clamp_u8(v);
    o[base + 3] = pack_clamp_s8(v);
    o[base + 4] = pack_u8(uint16_t4(v));
    o[base + 5] = pack_clamp_s8(int16_t4(v));
    uint4 ua = unpack_u8u32(a);
    int4 sb = unpack_s8s32(b);
    o[base + 6] = ua.x + (ua.y << 8) + ua.z * ua.w;
    o[base + 7] = asuint(sb.x * 1000 + sb.y * 100 + sb.z * 10 + sb.w);
    uint16_t4 ua16 = unpack_u8u16(a);
    int16_t4 sb16 = unpack_s8s16(b);
    o[base + 8] = uint(ua16.w) * 65536 + uint(ua16.z);
    o[base + 9] = asuint(int(sb16.x) * int(sb16.w));
    o[base + 10] = dot4add_u8packed(a, b, 7u);
    o[base + 11] = asuint(dot4add_i8packed(a, b, -5));
    float4 h = halves[i];
    o[base + 12] = asuint(dot2add(half2(h.xy), half2(h.zw), 0.5));
    o[base + 13] = pack_s8(unpack_s8s32(b)) ^ b;
    o[base + 14] = pack_u8(unpack_u8u32(a)) ^ a;
    o[base + 15] = 0;
}
