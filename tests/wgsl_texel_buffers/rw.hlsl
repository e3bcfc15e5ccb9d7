// Texel buffers of every kind WGSL can hold as a storage buffer: a read-only `Buffer<float4>`,
// a `RWBuffer<float2>` written and read, a `RWBuffer<uint>` with atomics, a length query.
Buffer<float4> src : register(t0);
RWBuffer<float2> pairs : register(u1);
RWBuffer<uint> count : register(u2);
RWBuffer<int> signed_out : register(u3);

[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint n;
    src.GetDimensions(n);
    float4 v = src[id.x];
    pairs[id.x] = pairs[id.x] * v.xy + v.zw + float(n);
    uint before;
    InterlockedAdd(count[0], id.x + 1, before);
    signed_out[id.x] = -int(id.x) * 3;
}
