RWStructuredBuffer<uint> values : register(u0);

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    values[id.x] = id.x * 2u;
}
