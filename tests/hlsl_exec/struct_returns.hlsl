// Structs of resources returned from functions (issue 26, item 4), as bindless-style engine
// code writes them: `make(k)` fills a struct of a buffer and a texture from the globals its
// argument picks and returns it; the caller reads through the returned struct, through a
// local initialized from it, and through a function taking it as a parameter. Each field
// names its global when compiling.

struct Bindless {
    StructuredBuffer<uint> buf;
    Texture2D<float4> tex;
};

StructuredBuffer<uint> b0 : register(t0);
StructuredBuffer<uint> b1 : register(t1);
Texture2D<float4> t0 : register(t2);
Texture2D<float4> t1 : register(t3);
RWStructuredBuffer<uint> o : register(u4);

Bindless make(int k)
{
    Bindless r;
    if (k == 0) {
        r.buf = b0;
        r.tex = t0;
    } else {
        r.buf = b1;
        r.tex = t1;
    }
    return r;
}

Bindless second() { return make(1); }

uint read(Bindless b, uint i) { return b.buf[i] + 1000 * (uint)b.tex.Load(int3(i, 0, 0)).x; }

[numthreads(4, 1, 1)]
void main(uint i : SV_DispatchThreadID)
{
    Bindless first = make(0);
    o[i * 4 + 0] = first.buf[i];
    o[i * 4 + 1] = (uint)first.tex.Load(int3(i, 0, 0)).y;
    o[i * 4 + 2] = read(second(), i);
    o[i * 4 + 3] = make(1).buf[i] + read(make(0), i);
}
