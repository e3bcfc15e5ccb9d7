// D3D registers as engines write them: every class counts from 0, so under DXC's default
// Vulkan rule `albedo` (t0), `samp` (s0) and `Frame` (b0) share binding 0.
cbuffer Frame : register(b0) { float4x4 mvp; float4 tint; };
Texture2D albedo : register(t0);
SamplerState samp : register(s0);
Texture2D<float> shadow : register(t1);
SamplerComparisonState cmp : register(s1);

struct V { float4 pos : SV_Position; float2 uv : TEXCOORD0; };

V vs(float3 p : POSITION, float2 uv : TEXCOORD0) {
    V o;
    o.pos = mul(mvp, float4(p, 1));
    o.uv = uv;
    return o;
}

float4 ps(V i) : SV_Target {
    return albedo.Sample(samp, i.uv) * tint * shadow.SampleCmpLevelZero(cmp, i.uv, 0.5);
}
