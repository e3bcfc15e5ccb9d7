// Top-level declarations of every kind.
#define BINDING 3
typedef float4 Color;
typedef float3x3 Basis[2];
using Index = uint;
namespace lighting {
  struct Light { float3 dir; float intensity; };
  namespace detail { static const float PI = 3.14159; }
}
enum Mode { Off, On = 2, Auto };
enum class Filter : uint { Point, Linear };

struct Material {
  Color albedo : COLOR0;
  row_major float4x4 transform;
  uint flags : 8;
  float shade(float3 n, lighting::Light l) { return saturate(dot(n, -l.dir)) * l.intensity; }
  static float scale() { return 2.0; }
};

cbuffer PerFrame : register(b0, space1) {
  float4x4 viewProj : packoffset(c0);
  float time : packoffset(c4.y);
};
tbuffer Extra : register(t9) { float4 extra[4]; }
ConstantBuffer<Material> gMaterial : register(b1);
[[vk::binding(BINDING, 1)]] Texture2D<float4> gAlbedo : register(t0);
[[vk::binding(4)]] [[vk::image_format("rgba8")]] RWTexture2D<unorm float4> gOut;
SamplerState gSampler : register(s0);
SamplerComparisonState gShadow;
RWStructuredBuffer<Material> gMaterials : register(u0);
StructuredBuffer<row_major float3x3> gBases;
Texture2DMS<float4, 4> gMS;
Buffer<uint2> gPairs;
ByteAddressBuffer gRaw;
AppendStructuredBuffer<uint> gAppend;
vector<float, 3> gVec = {1, 2, 3};
matrix<half, 2, 2> gMat;
static const uint kSizes[3] = { 1, 2, 4 };
static float gUnsized[] = { 1.0, 2.0 };
groupshared float gShared[64];
uniform float gUniform;
extern int gExtern;
min16float4 gLowp;
uint64_t gWide;
[[vk::push_constant]] struct { float4 tint; } gPush;

template<typename T, uint N>
struct FixedArray { T items[N]; T get(uint i) { return items[i]; } };
template<typename T>
T twice(T v) { return v + v; }
template<> float twice<float>(float v);

sampler2D gLegacy;
texture gTexture < string UIName = "Diffuse"; >;
sampler gLegacySampler = sampler_state { Texture = <gTexture>; MinFilter = LINEAR; AddressU = WRAP; };
float4 gTweak : COLOR < string UIWidget = "color"; > = float4(1, 1, 1, 1);

float4 helper(in float3 a, out float b, inout float c, uniform float d = 1.0);
float S_helper(Material m);
