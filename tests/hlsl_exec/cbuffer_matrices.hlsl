// Matrices in a constant buffer whose rows or columns are float2: DXC puts each in its own
// 16-byte register, a matrix stride WGSL's matrices cannot state (the WGSL backend declares
// one vector member per stored row or column). Constant and run-time row reads, whole reads
// and a product must see the bytes our SPIR-V sees.

cbuffer C : register(b0) {
    float a;                  // 0
    float2x2 cm;              // 16: columns (column-major) at 16 and 32
    row_major float3x2 rm;    // 48: rows at 48, 64 and 80
    float b;                  // 96 (after the matrix's last register)
    uint k;                   // 100
};

RWStructuredBuffer<float> outp : register(u1);

[numthreads(1, 1, 1)]
void main()
{
    outp[0] = cm[0][1];
    outp[1] = cm[1][0];
    outp[2] = rm[2][1];
    outp[3] = rm[1][0];
    float2 r = cm[k % 2];
    outp[4] = r.x;
    outp[5] = r.y;
    float2 q = rm[k % 3];
    outp[6] = q.x;
    outp[7] = q.y;
    float2x2 whole = cm;
    outp[8] = whole[1][1];
    float3x2 w2 = rm;
    outp[9] = w2[0][1];
    outp[10] = mul(float2(1, 2), cm).y;
    outp[11] = b + a;
}
