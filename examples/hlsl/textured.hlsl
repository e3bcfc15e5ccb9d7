// A textured, lit mesh: the vertex shader transforms positions and normals with two constant
// buffers; the pixel shader samples an albedo texture and applies a Lambert term.
//
//   oneshader compile examples/hlsl/textured.hlsl -T vs_6_0 -E VSMain -o textured.vert.spv
//   oneshader compile examples/hlsl/textured.hlsl -T ps_6_0 -E PSMain -o textured.frag.spv

cbuffer PerFrame : register(b0)
{
    float4x4 viewProjection;
    float3 lightDirection; // towards the light, normalized
    float ambient;
};

cbuffer PerObject : register(b1)
{
    float4x4 world;
    float4 tint;
    float2 uvScale;
};

Texture2D<float4> albedoMap : register(t2);
SamplerState linearWrap : register(s3);

struct VSInput
{
    float3 position : POSITION;
    float3 normal : NORMAL;
    float2 uv : TEXCOORD0;
};

struct VSOutput
{
    float4 position : SV_Position;
    float3 normal : NORMAL;
    float2 uv : TEXCOORD0;
};

VSOutput VSMain(VSInput input)
{
    VSOutput output;
    float4 worldPosition = mul(world, float4(input.position, 1.0));
    output.position = mul(viewProjection, worldPosition);
    // The world matrix has no non-uniform scale here, so it transforms normals too.
    output.normal = mul((float3x3)world, input.normal);
    output.uv = input.uv * uvScale;
    return output;
}

float4 PSMain(VSOutput input) : SV_Target0
{
    float3 n = normalize(input.normal);
    float diffuse = saturate(dot(n, lightDirection));
    float4 albedo = albedoMap.Sample(linearWrap, input.uv) * tint;
    return float4(albedo.rgb * (ambient + (1.0 - ambient) * diffuse), albedo.a);
}
