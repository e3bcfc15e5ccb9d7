// Control flow for the execution tests: loops with break and continue, a switch with a shared
// case body, out/inout parameters, short-circuit evaluation with a side effect, early return.

RWStructuredBuffer<uint> results : register(u0);
RWStructuredBuffer<uint> touched : register(u1);

uint collatzSteps(uint n)
{
    uint steps = 0;
    while (n != 1)
    {
        if (steps >= 200)
            break;
        n = (n & 1) != 0 ? 3 * n + 1 : n / 2;
        steps++;
    }
    return steps;
}

void classify(uint x, out uint kind, inout uint acc)
{
    switch (x % 6)
    {
    case 0:
        kind = 10;
        break;
    case 1:
    case 2:
        kind = 20;
        acc += x;
        break;
    case 3:
        kind = 30;
        if (x > 20)
        {
            acc *= 2;
            break;
        }
        acc += 1;
        break;
    default:
        kind = 40;
        acc ^= x;
        break;
    }
}

uint nested(uint n)
{
    uint total = 0;
    for (uint i = 0; i < n; ++i)
    {
        if (i % 3 == 0)
            continue;
        for (uint j = i; j < n; j += 2)
        {
            if (j * i > 40)
                break;
            total += j ^ i;
        }
    }
    return total;
}

bool touch(uint x)
{
    InterlockedAdd(touched[0], 1);
    return x % 4 == 0;
}

[numthreads(32, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint x = id.x;
    if (x >= 60)
        return;
    uint kind;
    uint acc = x * 3;
    classify(x, kind, acc);
    uint flags = 0;
    // touch() runs only for even x.
    if (x % 2 == 0 && touch(x))
        flags |= 1;
    if (x < 5 || touch(x))
        flags |= 2;
    results[x * 4 + 0] = collatzSteps(x + 1);
    results[x * 4 + 1] = kind * 1000 + acc;
    results[x * 4 + 2] = nested(x % 13);
    results[x * 4 + 3] = flags;
}
