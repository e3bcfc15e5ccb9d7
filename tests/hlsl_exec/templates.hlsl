// HLSL 2021 templates as engine code writes them (issue 26, item 3): a template function
// whose parameter of the template's type has a default argument of another struct type
// (`Remap remap = IdentityRemap::create()`), called with and without it; static member
// functions and constants of template instances (`Traits<float>::value`,
// `Traits<int>::twice(4)`); a full specialization (`template<> struct Box<int>`); default
// template arguments; enum-scoped names (`E::B`, `F::FB`).

// (Not empty: lavapipe fails to create a pipeline whose SPIR-V holds a struct of no members.)
struct IdentityRemap {
    uint unused;
    static IdentityRemap create() { IdentityRemap r; r.unused = 0; return r; }
    uint apply(uint p) { return p; }
};
struct FlipRemap {
    uint size;
    static FlipRemap create(uint s) { FlipRemap r; r.size = s; return r; }
    uint apply(uint p) { return size - 1 - p; }
};

StructuredBuffer<uint> src : register(t0);
RWStructuredBuffer<uint> o : register(u1);

template<typename Remap = IdentityRemap>
uint load(uint i, Remap remap = IdentityRemap::create()) { return src[remap.apply(i)]; }

template<typename T> struct Traits {
    static const uint value = sizeof(T) * 2;
    static T twice(T x) { return x + x; }
};

template<typename T> struct Box { T v; T get() { return v; } };
template<> struct Box<int> { int v; int get() { return v + 100; } };

template<typename T, int N = 3> T scale(T x) { return x * N; }

enum class E { A = 1, B = 5 };
enum F { FA = 2, FB };

[numthreads(4, 1, 1)]
void main(uint i : SV_DispatchThreadID)
{
    uint base = i * 8;
    o[base + 0] = load(i);
    o[base + 1] = load<IdentityRemap>(i);
    o[base + 2] = load(i, FlipRemap::create(4));
    o[base + 3] = Traits<float>::value + Traits<uint16_t>::value;
    o[base + 4] = Traits<uint>::twice(i);
    Box<int> b; b.v = (int)i;
    Box<uint> c; c.v = i;
    o[base + 5] = (uint)b.get() + 1000 * c.get();
    o[base + 6] = scale(i) + 10 * scale<uint, 5>(i);
    o[base + 7] = (uint)E::B + 10 * (uint)F::FB;
}
