// msad4 (issue 26, item 6) on run-time inputs: each thread reads a reference word, a
// two-word source and an accumulator, and writes msad4 of them (compared in
// tests/hlsl_exec.rs with a reference written from D3D's definition).

StructuredBuffer<uint> refs : register(t0);
StructuredBuffer<uint2> sources : register(t1);
StructuredBuffer<uint4> accums : register(t2);
RWStructuredBuffer<uint4> o : register(u3);

[numthreads(16, 1, 1)]
void main(uint i : SV_DispatchThreadID)
{
    o[i] = msad4(refs[i], sources[i], accums[i]);
}
