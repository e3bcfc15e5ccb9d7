// Expressions: precedence, casts, constructors, swizzles, calls.
struct S { float a; float2 b; };
Texture2D<float4> tex;
SamplerState samp;
ByteAddressBuffer raw;

float4 main(float2 uv : TEXCOORD0, float4 v : COLOR) : SV_Target {
  float x = 1 + 2 * 3 - 4 / 2 % 3;
  bool b = x < 2 && x > 1 || !(x == 3) && x != 4;
  int bits = 1 << 2 | 8 >> 1 & 3 ^ 5;
  int neg = -bits + +bits - ~bits;
  x += 1; x -= 1; x *= 2; x /= 2;
  bits %= 3; bits <<= 1; bits >>= 1; bits &= 7; bits |= 8; bits ^= 1;
  int post = bits++ + ++bits - bits-- - --bits;
  float t = b ? x : (x > 0 ? 1.0 : 2.0);
  float3 c3 = (float3)x;
  float2x2 m = (row_major float2x2)v;
  int i = (int)(x * 2.5);
  float p = (x) * 2;
  float4 c = float4(uv, 0.5h, 1.0f);
  S s = (S)0;
  S s2 = { 1.0, { 2.0, 3.0 } };
  float4 sw = v.wzyx + c.rrgg + 0.5.xxxx + 1.xxxx;
  float e = m._m00 + m[1][0] + s.b.y;
  float4 smp = tex.Sample(samp, uv) + tex.SampleLevel(samp, uv, 0);
  uint4 words = raw.Load4(0) + raw.Load<uint4>(16);
  float l = length(c.xyz) + max(1, min(2, 3)) + sizeof(float4) + sizeof(int[2]);
  x = t, x = p;
  bool cmp = uv.x < uv.y;
  uint hex = 0x1Fu + 017 + 10ul;
  double big = 1.5e-3 + 2.0L + .5;
  return c * sw + smp + float4(e, l, i, words.x) + (cmp ? 1 : 0);
}
