//! Buffer layouts as DXC lays them out: shaders written here, compiled through the facade,
//! their `Offset`/`ArrayStride`/`MatrixStride`/majorness decorations read back from the SPIR-V
//! (rspirv) and compared with the offsets DXC's rules give (worked out by hand in each test),
//! and the output checked by `spirv-val` under the block-layout option DXC validates with.

mod support;

use std::collections::HashMap;

use oneshader::{BufferLayout, CompileOptions, Compiler, MatrixOrder};
use oneshader_test_tools::spirv_val_args;
use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass};

/// The decorations of a compiled module, by id.
struct Decos {
    module: Module,
    names: HashMap<u32, String>,
}

fn word(o: &Operand) -> u32 {
    match o {
        Operand::IdRef(v) | Operand::LiteralBit32(v) => *v,
        Operand::Decoration(d) => *d as u32,
        Operand::StorageClass(s) => *s as u32,
        other => panic!("unexpected operand {other:?}"),
    }
}

impl Decos {
    fn new(words: &[u32]) -> Decos {
        let module = rspirv::dr::load_words(words).expect("the output loads");
        let mut names = HashMap::new();
        for i in &module.debug_names {
            if i.class.opcode == Op::Name
                && let (Some(Operand::IdRef(id)), Some(Operand::LiteralString(s))) =
                    (i.operands.first(), i.operands.get(1))
            {
                names.insert(*id, s.clone());
            }
        }
        Decos { module, names }
    }

    fn annotations(&self) -> impl Iterator<Item = &Instruction> {
        self.module.annotations.iter()
    }

    /// The struct types named `name` (a struct used under two layouts appears twice).
    fn structs(&self, name: &str) -> Vec<u32> {
        self.module
            .types_global_values
            .iter()
            .filter(|i| i.class.opcode == Op::TypeStruct)
            .filter_map(|i| i.result_id)
            .filter(|id| self.names.get(id).map(String::as_str) == Some(name))
            .collect()
    }

    /// The one laid-out struct named `name` (the one with `Offset` decorations).
    fn laid_out(&self, name: &str) -> u32 {
        let found: Vec<u32> = self
            .structs(name)
            .into_iter()
            .filter(|&s| self.member_deco(s, 0, Decoration::Offset).is_some())
            .collect();
        assert_eq!(found.len(), 1, "laid-out structs named `{name}`: {found:?}");
        found[0]
    }

    fn member_deco(&self, st: u32, member: u32, d: Decoration) -> Option<Vec<u32>> {
        self.annotations()
            .find(|i| {
                i.class.opcode == Op::MemberDecorate
                    && word(&i.operands[0]) == st
                    && word(&i.operands[1]) == member
                    && word(&i.operands[2]) == d as u32
            })
            .map(|i| i.operands[3..].iter().map(word).collect())
    }

    fn deco(&self, id: u32, d: Decoration) -> Option<Vec<u32>> {
        self.annotations()
            .find(|i| {
                i.class.opcode == Op::Decorate
                    && word(&i.operands[0]) == id
                    && word(&i.operands[1]) == d as u32
            })
            .map(|i| i.operands[2..].iter().map(word).collect())
    }

    /// The `Offset` of every member of the laid-out struct `name`.
    fn offsets(&self, name: &str) -> Vec<u32> {
        let st = self.laid_out(name);
        (0..)
            .map_while(|m| self.member_deco(st, m, Decoration::Offset))
            .map(|v| v[0])
            .collect()
    }

    /// The type of member `member` of struct `st`.
    fn member_type(&self, st: u32, member: u32) -> u32 {
        let def = self
            .module
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(st))
            .expect("the struct is defined");
        word(&def.operands[member as usize])
    }

    /// The `ArrayStride` of member `member` of the laid-out struct `name`.
    fn member_array_stride(&self, name: &str, member: u32) -> u32 {
        let t = self.member_type(self.laid_out(name), member);
        self.deco(t, Decoration::ArrayStride)
            .expect("an array stride")[0]
    }

    /// `MatrixStride` and majorness (`"RowMajor"`/`"ColMajor"`, SPIR-V's spelling) of a member.
    fn matrix(&self, name: &str, member: u32) -> (u32, &'static str) {
        let st = self.laid_out(name);
        let stride = self
            .member_deco(st, member, Decoration::MatrixStride)
            .expect("a matrix stride")[0];
        let major = if self.member_deco(st, member, Decoration::ColMajor).is_some() {
            "ColMajor"
        } else if self.member_deco(st, member, Decoration::RowMajor).is_some() {
            "RowMajor"
        } else {
            "none"
        };
        (stride, major)
    }

    /// The storage class of the variable named `name`.
    fn storage_class(&self, name: &str) -> u32 {
        let v = self
            .module
            .types_global_values
            .iter()
            .find(|i| {
                i.class.opcode == Op::Variable
                    && i.result_id
                        .is_some_and(|id| self.names.get(&id).map(String::as_str) == Some(name))
            })
            .unwrap_or_else(|| panic!("no variable `{name}`"));
        word(&v.operands[0])
    }
}

/// Compiles `src` (`ps_6_0` unless the source has `[numthreads]`) with `layout`, validates it
/// under the block-layout option DXC validates that layout with, and reads the decorations.
fn compile_with(src: &str, opts: CompileOptions) -> Decos {
    let out = match Compiler::new().compile_source("layout.hlsl", src, &opts) {
        Ok(out) => out,
        Err(e) => panic!("{e}\n{}", e.diagnostics.render()),
    };
    let env = opts.target_env.spirv_val_name();
    let mut args = vec!["--target-env", env.as_str()];
    match opts.layout {
        BufferLayout::Dx | BufferLayout::Scalar => args.push("--scalar-block-layout"),
        BufferLayout::Dxc => args.push("--relax-block-layout"),
        BufferLayout::Gl => {}
    }
    if let Err(e) = spirv_val_args(&out.spirv, &args) {
        panic!("spirv-val {args:?} rejects the output:\n{e}\n--- source ---\n{src}");
    }
    Decos::new(&out.spirv)
}

fn options(src: &str, layout: BufferLayout) -> CompileOptions {
    let profile = if src.contains("numthreads") {
        "cs_6_2"
    } else {
        "ps_6_2"
    };
    let mut o = CompileOptions::new(profile);
    o.layout = layout;
    o
}

fn compile(src: &str, layout: BufferLayout) -> Decos {
    compile_with(src, options(src, layout))
}

fn errors(src: &str) -> String {
    let opts = options(src, BufferLayout::Dxc);
    match Compiler::new().compile_source("layout.hlsl", src, &opts) {
        Ok(_) => panic!("expected an error, compiled:\n{src}"),
        Err(e) => e.diagnostics.render(),
    }
}

// ---- push constants ----------------------------------------------------------------------------

#[test]
fn push_constant_constant_buffer_is_a_push_constant_block() {
    let d = compile(
        r#"
struct P { float4 color; uint idx; float3 dir; };
[[vk::push_constant]] ConstantBuffer<P> pc;
float4 main() : SV_Target { return pc.color * pc.idx + pc.dir.x; }
"#,
        BufferLayout::Dxc,
    );
    assert_eq!(d.storage_class("pc"), StorageClass::PushConstant as u32);
    let var = d
        .names
        .iter()
        .find(|(_, n)| n.as_str() == "pc")
        .map(|(id, _)| *id)
        .expect("pc");
    assert_eq!(d.deco(var, Decoration::DescriptorSet), None);
    assert_eq!(d.deco(var, Decoration::Binding), None);
    // Push constants use the storage-buffer rule (relaxed std430): `dir` packs after `idx`.
    assert_eq!(d.offsets("P"), vec![0, 16, 20]);
}

#[test]
fn push_constant_on_a_cbuffer_or_non_struct_is_refused() {
    let e = errors(
        r#"
[[vk::push_constant]] cbuffer C { float4 color; };
float4 main() : SV_Target { return color; }
"#,
    );
    assert!(
        e.contains("layout.hlsl:2:1: error[OSH1029]") && e.contains("cbuffer"),
        "{e}"
    );
    let e = errors(
        r#"
struct P { float4 c; };
[[vk::push_constant]] float4 x;
[[vk::push_constant]] P a;
[[vk::push_constant]] P b;
[[vk::push_constant]] TextureBuffer<P> t;
float4 main() : SV_Target { return a.c; }
"#,
    );
    assert!(e.contains("layout.hlsl:3:30: error[OSH1029]"), "{e}");
    assert!(
        e.contains("layout.hlsl:5:25: error[OSH1029]") && e.contains("second push-constant"),
        "{e}"
    );
    assert!(e.contains("layout.hlsl:6:40: error[OSH1029]"), "{e}");
}

// ---- matrix order ------------------------------------------------------------------------------

#[test]
fn pragma_pack_matrix_sets_the_order_of_later_declarations() {
    let src = r#"
#pragma pack_matrix(row_major)
struct S { float2x3 a; column_major float2x3 b; float x; };
cbuffer C { float2x3 m; float y; S s; };
#pragma pack_matrix(column_major)
cbuffer D { float2x3 n; float z; };
float4 main() : SV_Target { return m[1].z + y + s.a[0].x + s.b[1].y + s.x + n[0].x + z; }
"#;
    let d = compile(src, BufferLayout::Dxc);
    // Row-major float2x3: two rows of 3 floats, 16 bytes apart (32 bytes); HLSL row-major is
    // SPIR-V ColMajor (DXC's convention). Column-major: three columns (48 bytes).
    assert_eq!(d.matrix("type.C", 0), (16, "ColMajor"));
    assert_eq!(d.offsets("type.C"), vec![0, 32, 48]);
    assert_eq!(d.matrix("S", 0), (16, "ColMajor"));
    assert_eq!(d.matrix("S", 1), (16, "RowMajor"));
    assert_eq!(d.offsets("S"), vec![0, 32, 80]);
    assert_eq!(d.matrix("type.D", 0), (16, "RowMajor"));
    assert_eq!(d.offsets("type.D"), vec![0, 48]);
    // Under -Zpr the pragma still wins where it is in effect.
    let mut o = options(src, BufferLayout::Dxc);
    o.matrix_order = MatrixOrder::RowMajor;
    let d = compile_with(src, o);
    assert_eq!(d.matrix("type.C", 0), (16, "ColMajor"));
    assert_eq!(d.matrix("type.D", 0), (16, "RowMajor"));
}

#[test]
fn structured_buffer_elements_take_the_declared_order() {
    let d = compile(
        r#"
#pragma pack_matrix(row_major)
StructuredBuffer<float2x3> a;
#pragma pack_matrix(column_major)
StructuredBuffer<float2x3> b;
StructuredBuffer<row_major float3x3> c;
RWStructuredBuffer<float> o;
[numthreads(1, 1, 1)]
void main() { o[0] = a[0][1].z + b[0][1].z + c[0][2].z; }
"#,
        BufferLayout::Dxc,
    );
    // Each buffer's block wraps a runtime array of matrices; the block's member carries the
    // order: row-major (SPIR-V ColMajor) for `a` and `c`, column-major for `b`.
    let block_of = |var: &str| {
        let v = d
            .module
            .types_global_values
            .iter()
            .find(|i| {
                i.class.opcode == Op::Variable
                    && i.result_id
                        .is_some_and(|id| d.names.get(&id).map(String::as_str) == Some(var))
            })
            .expect("variable");
        let ptr = v.result_type.expect("typed");
        let ptr_def = d
            .module
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(ptr))
            .expect("pointer type");
        word(&ptr_def.operands[1])
    };
    let order = |var: &str| {
        let b = block_of(var);
        let stride = d
            .member_deco(b, 0, Decoration::MatrixStride)
            .expect("stride")[0];
        let col = d.member_deco(b, 0, Decoration::ColMajor).is_some();
        (stride, col)
    };
    assert_eq!(order("a"), (16, true));
    assert_eq!(order("b"), (8, false));
    assert_eq!(order("c"), (16, true));
}

// ---- bit fields --------------------------------------------------------------------------------

const BITFIELDS: &str = r#"
struct P {
    uint lo : 4;
    uint mid : 7;
    uint hi : 21;   // lo, mid and hi share one uint
    int whole;
    int s1 : 3;
    int s2 : 29;    // s1 and s2 share one int
};
RWStructuredBuffer<P> data : register(u0);
RWStructuredBuffer<uint4> results : register(u1);
[numthreads(16, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint i = id.x;
    P p = data[i];
    results[2 * i] = uint4(p.lo, p.mid, p.hi, asuint(p.s1));
    results[2 * i + 1] = uint4(asuint(p.s2), asuint(p.whole), data[i].hi, 0);
    data[i].mid = i + 100;
    data[i].lo += 1;
    p.s2 = -3 * (int)i;
    data[i].s2 = p.s2;
    data[i].s1 = (int)i;
}
"#;

/// HLSL 2021 bit fields: consecutive fields of one type share a storage integer (DXC's
/// packing), so `P` is three 32-bit words; reads shift and mask (sign-extending signed
/// fields), writes replace only their bits. Run on lavapipe at -O0 and -O.
#[test]
fn bit_fields_pack_into_shared_words_and_read_and_write_their_bits() {
    use oneshader::OptLevel;
    use oneshader_vulkan_harness::{Binding, Gpu, Resource};
    let d = compile(BITFIELDS, BufferLayout::Dxc);
    // `P` is {uint, int, int}: offsets 0, 4, 8; the runtime array's stride is 12.
    assert_eq!(d.offsets("P"), vec![0, 4, 8]);
    let stride = d
        .annotations()
        .filter(|i| {
            i.class.opcode == Op::Decorate && word(&i.operands[1]) == Decoration::ArrayStride as u32
        })
        .map(|i| word(&i.operands[2]))
        .collect::<Vec<_>>();
    assert!(stride.contains(&12), "array strides {stride:?}");

    let sext = |v: u32, bits: u32| ((v << (32 - bits)) as i32 >> (32 - bits)) as u32;
    let mut rng = 0x1234_5678u32;
    let mut input = Vec::new();
    for _ in 0..16 * 3 {
        rng ^= rng << 13;
        rng ^= rng >> 17;
        rng ^= rng << 5;
        input.push(rng);
    }
    let mut want_results = Vec::new();
    let mut want_data = input.clone();
    for i in 0..16u32 {
        let (w0, w1, w2) = (
            input[3 * i as usize],
            input[3 * i as usize + 1],
            input[3 * i as usize + 2],
        );
        let (lo, mid, hi) = (w0 & 0xf, (w0 >> 4) & 0x7f, w0 >> 11);
        let (s1, s2) = (sext(w2 & 7, 3), sext(w2 >> 3, 29));
        want_results.extend([lo, mid, hi, s1, s2, w1, hi, 0]);
        let lo2 = (lo + 1) & 0xf;
        let mid2 = (i + 100) & 0x7f;
        want_data[3 * i as usize] = (w0 & !0x7ff) | (mid2 << 4) | lo2;
        let s2 = (-3 * i as i32) as u32;
        want_data[3 * i as usize + 2] = ((s2 << 3) & !7) | (i & 7);
    }
    let gpu = Gpu::new();
    for level in [OptLevel::O0, OptLevel::O] {
        let mut o = options(BITFIELDS, BufferLayout::Dxc);
        o.opt_level = level;
        o.profile = "cs_6_0".into();
        let out = Compiler::new()
            .compile_source("bits.hlsl", BITFIELDS, &o)
            .unwrap_or_else(|e| panic!("{e}\n{}", e.diagnostics.render()));
        let mut bindings = vec![
            Binding::new(0, 0, Resource::StorageBuffer(input.clone())),
            Binding::new(0, 1, Resource::StorageBuffer(vec![0; 16 * 8])),
        ];
        gpu.dispatch(&out.spirv, "main", &mut bindings, &[], [1, 1, 1]);
        assert_eq!(
            bindings[1].words(),
            want_results.as_slice(),
            "reads ({level:?})"
        );
        assert_eq!(
            bindings[0].words(),
            want_data.as_slice(),
            "writes ({level:?})"
        );
    }
}

#[test]
fn bit_field_misuse_is_refused() {
    let e = errors(
        r#"
struct A { float f : 3; uint w : 33; uint z : 0; };
RWStructuredBuffer<A> b;
float4 main() : SV_Target { return b[0].f; }
"#,
    );
    assert!(e.contains("layout.hlsl:2:18: error[OSH1030]"), "{e}");
    assert!(e.contains("layout.hlsl:2:34: error[OSH1030]"), "{e}");
    assert!(e.contains("layout.hlsl:2:47: error[OSH1030]"), "{e}");
    // The components of an initializer list would be the storage words, not the fields.
    let e = errors(
        r#"
struct B { uint a : 4; uint b : 4; };
float4 main() : SV_Target { B x = { 1, 2 }; return x.a; }
"#,
    );
    assert!(
        e.contains("error[OSH1018]") && e.contains("bit fields"),
        "{e}"
    );
    // DXC flattens each bit field as its whole storage word; only a cast to a scalar (the
    // first word) means the same here, the others are refused.
    let e = errors(
        r#"
struct B { uint a : 4; uint b : 4; uint c; };
RWStructuredBuffer<uint> o;
float4 main() : SV_Target { B x; x.a = 1; x.b = 2; x.c = 3; o[0] = (uint)x; return (float)(uint2)x; }
"#,
    );
    assert!(
        e.contains("layout.hlsl:4:91: error[OSH1018]") && e.contains("converts only to a scalar"),
        "{e}"
    );
    assert_eq!(e.matches("error[").count(), 1, "{e}");
    // `(S)0` zeroes the struct: the same in both views.
    let d = compile(
        r#"
struct Z { uint a : 4; uint b : 4; };
RWStructuredBuffer<Z> o;
[numthreads(1, 1, 1)]
void main() { Z z = (Z)0; z.b = 3; o[0] = z; }
"#,
        BufferLayout::Dxc,
    );
    assert_eq!(d.offsets("Z"), vec![0]);
    let e = errors(
        r#"
struct Z { uint a : 4; uint b : 4; };
float4 main() : SV_Target { Z z = (Z)5; return z.a; }
"#,
    );
    assert!(e.contains("error[OSH1018]"), "{e}");
}

// ---- $Globals registers, D3D packing, scalar layout ------------------------------------------

const REGISTER_C: &str = r#"
float x;                       // after the last register: 200
float y : register(c0);        // 0
float z : register(c2);        // 32
float w : register(c1);        // 16
float2 arr2[3] : register(c10);// 160, 40 bytes under D3D packing, 48 otherwise
float4 v;                      // 208 (D3D) / 224
float s;                       // 224 (D3D) / 240
float4 main() : SV_Target { return x + y + z + w + arr2[1].x + v + s; }
"#;

/// `register(cN)` on `$Globals` members places them at 16 N bytes (DXC honours it under every
/// layout rule); the members without one follow the last register in declaration order. The
/// IR keeps the registered members first (in register order), so the SPIR-V member order is
/// `y w z arr2 x v s`.
#[test]
fn register_c_places_globals_members() {
    let d = compile(REGISTER_C, BufferLayout::Dx);
    assert_eq!(
        d.offsets("type.$Globals"),
        vec![0, 16, 32, 160, 200, 208, 224]
    );
    let d = compile(REGISTER_C, BufferLayout::Dxc);
    assert_eq!(
        d.offsets("type.$Globals"),
        vec![0, 16, 32, 160, 208, 224, 240]
    );
    let e = errors(
        r#"
float a : register(c1);
float b : register(c1);
float4 main() : SV_Target { return a + b; }
"#,
    );
    assert!(
        e.contains("layout.hlsl:3:11: error[OSH1029]") && e.contains("register(c1)"),
        "{e}"
    );
    // Explicit placements that overlap are refused, not emitted.
    let e = errors(
        r#"
float4 a : register(c1);
float4 b : register(c0);
float4 c;
cbuffer K { float4 k0; float k1 : packoffset(c0.y); };
float4 main() : SV_Target { return a + b + c + k0 + k1; }
"#,
    );
    assert!(e.contains("overlaps field `k0`"), "{e}");
}

/// Under -fvk-use-dx-layout a `tbuffer` gets D3D's constant-buffer packing, like a
/// `cbuffer` (it was laid out with the storage-buffer rule): arrays and structs start on a
/// 16-byte boundary and are not padded at the end.
#[test]
fn dx_layout_packs_texture_buffers_like_constant_buffers() {
    let src = r#"
struct S { float a; float3 b; };
tbuffer T { float x; float2 arr[2]; float y; S s; float z; };
TextureBuffer<S> tb;
float4 main() : SV_Target { return x + arr[1].x + y + s.b.x + z + tb.b.y; }
"#;
    let d = compile(src, BufferLayout::Dx);
    // x 0, arr 16 (stride 16, 24 bytes), y 40, s 48 (16 bytes), z 64.
    assert_eq!(d.offsets("type.T"), vec![0, 16, 40, 48, 64]);
    // The reflection gives the host the same offsets.
    let mut o = options(src, BufferLayout::Dx);
    o.reflect = true;
    let r = Compiler::new()
        .compile_source("layout.hlsl", src, &o)
        .expect("compiles")
        .reflection
        .expect("asked for");
    let Some(oneshader::reflect::Type::Struct { members, .. }) =
        &r.resource("T").expect("T is reflected").ty
    else {
        panic!("a struct")
    };
    let offsets: Vec<Option<u32>> = members.iter().map(|m| m.offset).collect();
    assert_eq!(offsets, [0, 16, 40, 48, 64].map(Some));
    assert_eq!(d.member_array_stride("type.T", 1), 16);
    // The default rule for texture buffers is the storage buffers': relaxed std430.
    let d = compile(src, BufferLayout::Dxc);
    assert_eq!(d.offsets("type.T"), vec![0, 8, 24, 32, 48]);
}

/// A float1xN (column-major) in a constant buffer takes one register per column under D3D
/// packing; OneShader lays it out as a vector, so it refuses instead of emitting the wrong
/// offsets.
#[test]
fn dx_layout_refuses_one_component_matrix_columns() {
    let src = r#"
cbuffer B { float a; float1x2 m; float b; };
float4 main() : SV_Target { return a + m[0].y + b; }
"#;
    let opts = options(src, BufferLayout::Dx);
    let e = match Compiler::new().compile_source("layout.hlsl", src, &opts) {
        Ok(_) => panic!("compiled"),
        Err(e) => e.diagnostics.render(),
    };
    assert!(
        e.contains("layout.hlsl:2:1: error[OSH1018]") && e.contains("`float1x2` (member `m`)"),
        "{e}"
    );
    // Under the default rule it is a vector, as in DXC.
    let d = compile(src, BufferLayout::Dxc);
    assert_eq!(d.offsets("type.B"), vec![0, 4, 12]);
}

/// Scalar block layout rounds a struct's size up to its alignment (DXC does, for
/// compatibility with C), so `{uint64_t; uint}` has a stride of 16; nested structs with 16-bit
/// members under D3D's structured-buffer rule likewise.
#[test]
fn scalar_layout_rounds_struct_sizes() {
    let src = r#"
struct W { uint64_t a; uint b; };
struct H { half h; W w; half tail; };
RWStructuredBuffer<W> ws;
RWStructuredBuffer<H> hs;
[numthreads(1, 1, 1)]
void main() { ws[1].b = 3; hs[1].w.b = ws[0].b + (uint)hs[0].tail; }
"#;
    let mut o = options(src, BufferLayout::Scalar);
    o.enable_16bit_types = true;
    let d = compile_with(src, o);
    assert_eq!(d.offsets("W"), vec![0, 8]);
    // H: h 0, w 8 (aligned to 8), tail 24; size 32.
    assert_eq!(d.offsets("H"), vec![0, 8, 24]);
    let strides: Vec<u32> = d
        .annotations()
        .filter(|i| {
            i.class.opcode == Op::Decorate && word(&i.operands[1]) == Decoration::ArrayStride as u32
        })
        .map(|i| word(&i.operands[2]))
        .collect();
    assert!(
        strides.contains(&16) && strides.contains(&32),
        "{strides:?}"
    );
}

// ---- inheritance -------------------------------------------------------------------------------

/// A derived struct holds its base as one member, as DXC lays it out: under the
/// constant-buffer rule the base is padded to 16 bytes like any struct member, so `b` is at 16
/// (it was at 4 when bases were flattened into the derived struct).
#[test]
fn base_structs_are_nested_members() {
    let src = r#"
struct B { float a; };
struct D : B { float b; };
struct E : D { float2 e; };
cbuffer C { E x; float c; };
float4 main() : SV_Target { return x.a + x.b + x.e.y + c; }
"#;
    let d = compile(src, BufferLayout::Dxc);
    assert_eq!(d.offsets("D"), vec![0, 16]);
    assert_eq!(d.offsets("E"), vec![0, 32]);
    assert_eq!(d.offsets("type.C"), vec![0, 48]);
    // Storage buffers (relaxed std430) pad a base only to its own alignment.
    let src = r#"
struct B { float a; };
struct D : B { float b; };
RWStructuredBuffer<D> s;
[numthreads(1, 1, 1)]
void main() { s[1].b = s[0].a; }
"#;
    let d = compile(src, BufferLayout::Dxc);
    assert_eq!(d.offsets("D"), vec![0, 4]);
}

/// Base methods run on the base inside a derived object (they were refused: the call passed
/// the derived object), a cast to the base takes that part, and writes through the base
/// method reach the derived object. Run on lavapipe.
#[test]
fn base_methods_and_casts_work_on_derived_objects() {
    use oneshader::OptLevel;
    use oneshader_vulkan_harness::{Binding, Gpu, Resource};
    let src = r#"
struct B { float a; void bump() { a += 1; } float twice() { return a * 2; } };
struct D : B { float b; void both() { bump(); b += a; } };
RWStructuredBuffer<float> o : register(u0);
[numthreads(1, 1, 1)]
void main() {
    D d;
    d.a = o[0];
    d.b = o[1];
    d.bump();               // a = 2.5
    B x = (B)d;             // x.a = 2.5
    d.both();               // a = 3.5, b = 2 + 3.5
    o[2] = d.twice() + d.b + x.a;   // 7 + 5.5 + 2.5
}
"#;
    let gpu = Gpu::new();
    for level in [OptLevel::O0, OptLevel::O] {
        let mut o = options(src, BufferLayout::Dxc);
        o.opt_level = level;
        let out = Compiler::new()
            .compile_source("inherit.hlsl", src, &o)
            .unwrap_or_else(|e| panic!("{e}\n{}", e.diagnostics.render()));
        let mut bindings = vec![Binding::new(
            0,
            0,
            Resource::StorageBuffer(vec![1.5f32.to_bits(), 2.0f32.to_bits(), 0]),
        )];
        gpu.dispatch(&out.spirv, "main", &mut bindings, &[], [1, 1, 1]);
        assert_eq!(f32::from_bits(bindings[0].words()[2]), 15.0, "{level:?}");
    }
}
