// [unroll] loops for the execution tests: nested loops whose inner bound depends on the outer
// variable, a loop with a break and one with a continue (unrolled at -O), and one whose bound is known only at run
// time (left a loop).

RWStructuredBuffer<uint> results : register(u0);

[numthreads(32, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint x = id.x;
    uint acc = x;
    [unroll] for (uint i = 0; i < 4; ++i)
    {
        [unroll] for (uint j = 0; j <= i; ++j)
        {
            acc = acc * 3 + i * j + (x >> j);
        }
    }
    uint bounded = 0;
    [unroll] for (uint k = 0; k < (x & 7); ++k)
    {
        bounded += k * x;
    }
    uint early = 0;
    [unroll] for (uint m = 0; m < 8; ++m)
    {
        if (m * x > 40)
            break;
        early += m + 1;
    }
    uint evens = 0;
    [unroll] for (uint q = 0; q < 6; ++q)
    {
        if (((q + x) & 1) != 0)
            continue;
        evens += q * 3 + 1;
    }
    results[x] = (acc ^ (bounded << 1)) + early * 65536 + evens * 16777216;
}
