// 16-bit floats (`half` with -enable-16bit-types) in arithmetic, min/max/clamp/saturate,
// frexp and the class tests, with inputs whose every result is exact in f16, for the
// execution tests.

StructuredBuffer<float4> inp : register(t0);
StructuredBuffer<float4> cls : register(t1);
RWStructuredBuffer<float4> outp : register(u2);
RWStructuredBuffer<uint> flags : register(u3);
RWStructuredBuffer<float2> parts : register(u4);

[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    half4 h = (half4)inp[id.x];
    half4 c = (half4)cls[id.x];
    half a = h.x * h.y + (half)1.5;
    half3 v = h.xyz * a - h.zyx;
    half s = saturate(h.w) + max(h.x, h.y) + min(h.z, (half)2.0) + clamp(h.w, (half)-1.0, (half)1.0);
    outp[id.x] = float4(v, s);
    flags[id.x] = (isnan(c.x) ? 1u : 0u) | (isinf(c.y) ? 2u : 0u) | (isfinite(c.z) ? 4u : 0u)
        | ((uint)(int)h.x << 3);
    half e;
    half m = frexp(h.z, e);
    parts[id.x] = float2(m, e);
}
