// b0, t0 and u0: one Vulkan binding under DXC's default rule, three WGSL bindings.
cbuffer Params : register(b0) { uint scale; uint bias; };
StructuredBuffer<uint> src : register(t0);
RWStructuredBuffer<uint> dst : register(u0);

[numthreads(8, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
    dst[i] = src[i] * scale + bias;
}
