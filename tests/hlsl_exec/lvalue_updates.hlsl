// Increments and assignments as places (C++'s rule, which DXC keeps): `++a = b` increments
// `a` and then assigns `b` to it; `(a += c) = d` and `(a = c) = d` likewise; each operand is
// evaluated once (an index with a side effect moves once). Compared in tests/hlsl_exec.rs.

RWStructuredBuffer<int> o : register(u0);

[numthreads(1, 1, 1)]
void main()
{
    int a = o[0];
    int b = o[1];
    ++(++a) = ++(++b);          // b = b + 2; a = b
    o[2] = a;
    o[3] = b;
    int c = o[0];
    (c += 5) *= 3;              // c = (c + 5) * 3
    o[4] = c;
    int d = 0;
    (d = 7) += 1;               // d = 8
    o[5] = d;
    int arr[3] = { 10, 20, 30 };
    int i = 0;
    ++arr[i++] = 100;           // arr[0] = 100, i = 1 (the index is evaluated once)
    o[6] = arr[0];
    o[7] = arr[1];
    o[8] = i;
    int m = o[1];
    --m -= 2;                   // m = m - 3
    o[9] = m;
}
