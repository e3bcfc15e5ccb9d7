// isnormal (SM 6.9) on run-time values: zeros, subnormals, the smallest and largest normals,
// infinities and NaNs, as scalars, vectors and a matrix (compared in tests/hlsl_exec.rs with
// Rust's f32::is_normal).

StructuredBuffer<float> v : register(t0);
RWStructuredBuffer<uint> o : register(u1);

[numthreads(16, 1, 1)]
void main(uint i : SV_DispatchThreadID)
{
    o[i] = isnormal(v[i]) ? 1 : 0;
    if (i == 0)
    {
        float4 q = float4(v[1], v[4], v[6], v[8]);
        bool4 b = isnormal(q);
        o[16] = (b.x ? 1 : 0) | (b.y ? 2 : 0) | (b.z ? 4 : 0) | (b.w ? 8 : 0);
        float2x2 m = float2x2(v[2], v[3], v[5], v[7]);
        bool2x2 n = isnormal(m);
        o[17] = (n[0][0] ? 1 : 0) | (n[0][1] ? 2 : 0) | (n[1][0] ? 4 : 0) | (n[1][1] ? 8 : 0);
    }
}
