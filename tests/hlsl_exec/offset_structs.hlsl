// Buffer structs whose first member is at a non-zero offset (`[[vk::offset]]`), in a constant
// buffer (a nested struct too) and in structured buffers, read whole and member by member and
// written member by member: the WGSL backend declares a leading padding member, and every
// voice must read and write the same bytes.

struct Inner { [[vk::offset(4)]] float x; float4 y; };
struct C { [[vk::offset(4)]] float a; float k; Inner s; float b; };
ConstantBuffer<C> cb : register(b0);

struct E { [[vk::offset(8)]] float2 a; uint c; };
StructuredBuffer<E> ins : register(t1);
RWStructuredBuffer<E> outs : register(u2);

[numthreads(2, 1, 1)]
void main(uint i : SV_DispatchThreadID)
{
    E e = ins[i];
    E f = { e.a * cb.k + cb.s.y.zw, e.c + (uint)cb.s.x };
    outs[i].a = f.a;
    outs[i].c = f.c + (uint)(cb.a + cb.b);
}
