// Resources as values (issue 26, item 4): functions that return buffers, resource locals and
// resource parameters, each resolved when compiling to the global it names (SPIR-V cannot
// hold a resource in a variable or return one). `pick(0)` and `pick(1)` take different
// arms of a branch on their parameter; `outer()` returns what `inner()` returns; `second(k)`
// returns from an `if` without `else` or falls through to its last `return`; a resource
// local given a resource inside a branch is used inside that branch.

StructuredBuffer<uint> a : register(t0);
StructuredBuffer<uint> b : register(t1);
StructuredBuffer<uint> c : register(t2);
StructuredBuffer<uint> d : register(t3);
RWStructuredBuffer<uint> o : register(u4);

StructuredBuffer<uint> pick(int which)
{
    if (which == 0)
        return a;
    else
        return b;
}

StructuredBuffer<uint> inner() { return b; }
StructuredBuffer<uint> outer() { return inner(); }

StructuredBuffer<uint> second(uint k)
{
    if (k == 0)
        return c;
    return d;
}

StructuredBuffer<uint> through(StructuredBuffer<uint> p)
{
    StructuredBuffer<uint> q = p;
    return q;
}

uint twice(StructuredBuffer<uint> p, uint i) { return 2 * p[i]; }

[numthreads(4, 1, 1)]
void main(uint i : SV_DispatchThreadID)
{
    StructuredBuffer<uint> local = pick(1);
    uint v = pick(0)[i] + 10 * local[i] + 100 * outer()[i];
    v += 1000 * second(1)[i] + 10000 * twice(through(a), i);
    if (i > 1) {
        StructuredBuffer<uint> t = a;
        t = second(0);
        v += 100000 * t[i];
    }
    o[i] = v;
}
