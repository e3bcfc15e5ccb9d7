// Arrays of matrices in structured buffers, column-major (HLSL's default) and row-major:
// element reads, whole-array and whole-struct copies, element, row and whole-array writes.
// Every voice (our SPIR-V, GLSL, and WGSL through naga, which declares the column-major
// matrices transposed) must reach the same bytes.

struct S {
    float2x3 cm[2];              // 3 columns of float2 each: 24 bytes
};

struct R {
    row_major float3x2 rm[2];    // 3 rows of float2 each: 24 bytes
};

RWStructuredBuffer<S> buf : register(u0);
RWStructuredBuffer<R> rbuf : register(u1);
RWStructuredBuffer<float> outp : register(u2);

[numthreads(1, 1, 1)]
void main()
{
    S s = buf[0];
    R t = rbuf[0];
    float2x3 a = buf[0].cm[1];
    float3x2 b = t.rm[0];
    outp[0] = a[0][1];
    outp[1] = a[1][2];
    outp[2] = b[2][1];
    outp[3] = s.cm[0][1][0];
    float2x3 arr[2] = buf[0].cm;
    outp[4] = arr[0][0][2];
    outp[5] = rbuf[0].rm[1][1][0];
    float3 row = s.cm[1][0];
    outp[6] = row.z;
    buf[1].cm = arr;
    rbuf[1].rm[1] = b;
    rbuf[1].rm[0] = t.rm[1];
    buf[2] = s;
    buf[1].cm[0][1] = float3(700, 800, 900);
}
