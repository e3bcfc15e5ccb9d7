//! Reflection of shaders written here, checked field by field, and buffer layouts
//! cross-checked against the `Offset`, `ArrayStride` and `MatrixStride` decorations the SPIR-V
//! backend emits for the same module (read back with rspirv), under every layout option.

use std::collections::HashMap;

use oneshader::reflect::{
    ConstValue, DescriptorType, Interpolation, Member, Reflection, ResourceKind, Scalar,
    ShaderStage, Type,
};
use oneshader::{BufferLayout, CompileOptions, Compiler, OptLevel};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, Op};

fn compile(source: &str, opts: &CompileOptions) -> oneshader::CompileOutput {
    match Compiler::new().compile_source("test.hlsl", source, opts) {
        Ok(out) => out,
        Err(e) => panic!("{e}\n{}", e.diagnostics.render()),
    }
}

fn reflect(source: &str, profile: &str, entry: &str) -> Reflection {
    let opts = CompileOptions::new(profile).entry(entry).with_reflection();
    compile(source, &opts).reflection.expect("asked for")
}

fn members(t: &Type) -> &[Member] {
    match t {
        Type::Struct { members, .. } => members,
        other => panic!("not a struct: {other:?}"),
    }
}

fn member<'a>(t: &'a Type, name: &str) -> &'a Member {
    members(t)
        .iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("no member `{name}` in {t:?}"))
}

const LAYOUT: &str = r#"
struct Inner { float x; float3 v; float2 w; };
struct Light { float3 pos; float range; float3 color; bool on; Inner inner[2]; };
cbuffer Frame : register(b0) {
    float time;
    float3 sun;
    float2 jitter;
    float exposure;
    float weights[5];
    row_major float4x3 rm;
    float3x3 cm;
    float2x2 small;
    Light lights[2];
    int2 tiles[3];
};
struct Particle { float3 pos; float life; float3 vel; uint flags; row_major float2x3 m; float s[2]; };
RWStructuredBuffer<Particle> particles : register(u1);
StructuredBuffer<float3> points : register(t2);
struct PC { float4 tint; float2 scale; uint mode; float3 dir; float3x2 xf; };
[[vk::push_constant]] PC pc;

[numthreads(4, 2, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    Particle p = particles[id.x];
    float acc = time + sun.y + jitter.x + exposure + weights[id.x % 5] + rm[1].z + cm[2].x
        + small[1].y + lights[id.y & 1].inner[1].w.y + (lights[0].on ? 1.0 : 0.0)
        + (float)tiles[2].y + points[id.x].z + pc.tint.w + pc.dir.x + pc.xf[2].y;
    p.life -= acc;
    p.m[1].z += p.s[1];
    particles[id.x] = p;
}
"#;

/// DXC's default layout, computed by hand from the relaxed std140/std430 rules.
#[test]
fn constant_buffer_offsets_follow_dxc_rules() {
    let r = reflect(LAYOUT, "cs_6_0", "main");
    let frame = r.resource("Frame").expect("Frame");
    assert_eq!(frame.kind, ResourceKind::ConstantBuffer);
    assert_eq!(frame.descriptor_type, DescriptorType::UniformBuffer);
    assert_eq!((frame.set, frame.binding), (0, 0));
    let t = frame.ty.as_ref().expect("a buffer has contents");
    let offsets: Vec<(String, u32)> = members(t)
        .iter()
        .map(|m| (m.name.clone(), m.offset.expect("laid out")))
        .collect();
    let expect = [
        ("time", 0),
        ("sun", 4), // relaxed: a float3 after a float shares the first 16 bytes
        ("jitter", 16),
        ("exposure", 24),
        ("weights", 32), // arrays start on 16 bytes
        ("rm", 112),     // 5 elements of stride 16
        ("cm", 176),     // row_major float4x3: 4 rows of float3, stride 16
        ("small", 224),  // float3x3: 3 columns of float3
        ("lights", 256), // float2x2: 2 columns, padded to 16 each
        ("tiles", 448),  // 2 lights of 96 bytes
    ];
    let expect: Vec<(String, u32)> = expect.iter().map(|(n, o)| (n.to_string(), *o)).collect();
    assert_eq!(offsets, expect);
    assert_eq!(frame.size, Some(496));
    let Type::Array { stride, length, .. } = &member(t, "weights").ty else {
        panic!("weights is an array")
    };
    assert_eq!((*stride, *length), (Some(16), Some(5)));
    let Type::Matrix {
        rows,
        columns,
        matrix_stride,
        row_major,
        ..
    } = &member(t, "rm").ty
    else {
        panic!("rm is a matrix")
    };
    assert_eq!((*rows, *columns), (4, 3));
    assert_eq!((*matrix_stride, *row_major), (Some(16), Some(true)));
    assert_eq!(member(t, "rm").size, Some(64));
    let Type::Matrix { row_major, .. } = &member(t, "cm").ty else {
        panic!("cm is a matrix")
    };
    assert_eq!(*row_major, Some(false));
    // Light: pos 0, range 12, color 16, on 28 (a bool is 4 bytes), inner 32 (2 x 32).
    let Type::Array {
        element, stride, ..
    } = &member(t, "lights").ty
    else {
        panic!("lights is an array")
    };
    assert_eq!(*stride, Some(96));
    let light: Vec<Option<u32>> = members(element).iter().map(|m| m.offset).collect();
    assert_eq!(light, [Some(0), Some(12), Some(16), Some(28), Some(32)]);
    assert_eq!(
        member(element, "on").ty,
        Type::Scalar {
            scalar: Scalar::Bool
        }
    );
    let Type::Array { element, .. } = &member(element, "inner").ty else {
        panic!("inner is an array")
    };
    let inner: Vec<Option<u32>> = members(element).iter().map(|m| m.offset).collect();
    assert_eq!(inner, [Some(0), Some(4), Some(16)]);

    // The structured buffer: an array without a length; Particle under relaxed std430.
    let particles = r.resource("particles").expect("particles");
    assert_eq!(particles.kind, ResourceKind::RwStructuredBuffer);
    assert_eq!(particles.descriptor_type, DescriptorType::StorageBuffer);
    assert!(!particles.readonly && particles.used);
    let Some(Type::Array {
        element,
        length,
        stride,
    }) = &particles.ty
    else {
        panic!("a structured buffer holds an array")
    };
    assert_eq!(*length, None);
    // pos 0, life 12, vel 16, flags 28, m 32 (2 rows of float3: stride 16, 32 bytes), s 64.
    let p: Vec<Option<u32>> = members(element).iter().map(|m| m.offset).collect();
    assert_eq!(
        p,
        [Some(0), Some(12), Some(16), Some(28), Some(32), Some(64)]
    );
    assert_eq!(*stride, Some(80));
    let points = r.resource("points").expect("points");
    assert_eq!(points.kind, ResourceKind::StructuredBuffer);
    assert!(points.readonly);
    let Some(Type::Array { stride, .. }) = &points.ty else {
        panic!("an array")
    };
    assert_eq!(
        *stride,
        Some(16),
        "float3 elements are 16 bytes apart in std430"
    );

    // Push constants: tint 0, scale 16, mode 24, dir 32 (at 28 the float3 would straddle the
    // 16-byte boundary at 32), xf 48 (3x2 column-major: 2 columns of float3, stride 16).
    let pc = &r.push_constants[0];
    assert_eq!(pc.name, "pc");
    let o: Vec<Option<u32>> = members(&pc.ty).iter().map(|m| m.offset).collect();
    assert_eq!(o, [Some(0), Some(16), Some(24), Some(32), Some(48)]);
    assert_eq!(pc.size, 80);
    assert!(pc.used);
}

/// Decorations of a SPIR-V module, indexed for layout checks.
struct Spirv {
    names: HashMap<String, u32>,
    member_decorations: HashMap<(u32, u32, Decoration), Option<u32>>,
    decorations: HashMap<(u32, Decoration), Option<u32>>,
    types: HashMap<u32, Instruction>,
    variables: HashMap<u32, u32>,
}

fn id(o: &Operand) -> u32 {
    match o {
        Operand::IdRef(i) => *i,
        other => panic!("not an id: {other:?}"),
    }
}

fn literal(o: &Operand) -> u32 {
    match o {
        Operand::LiteralBit32(v) => *v,
        other => panic!("not a literal: {other:?}"),
    }
}

impl Spirv {
    fn new(words: &[u32]) -> Spirv {
        let m = rspirv::dr::load_words(words).expect("rspirv reads the module");
        let mut s = Spirv {
            names: HashMap::new(),
            member_decorations: HashMap::new(),
            decorations: HashMap::new(),
            types: HashMap::new(),
            variables: HashMap::new(),
        };
        for i in &m.debug_names {
            if i.class.opcode == Op::Name
                && let Operand::LiteralString(n) = &i.operands[1]
            {
                s.names.insert(n.clone(), id(&i.operands[0]));
            }
        }
        for i in &m.annotations {
            match i.class.opcode {
                Op::MemberDecorate => {
                    let Operand::Decoration(d) = i.operands[2] else {
                        continue;
                    };
                    let value = i.operands.get(3).map(literal);
                    s.member_decorations
                        .insert((id(&i.operands[0]), literal(&i.operands[1]), d), value);
                }
                Op::Decorate => {
                    let Operand::Decoration(d) = i.operands[1] else {
                        continue;
                    };
                    let value = match i.operands.get(2) {
                        Some(Operand::LiteralBit32(v)) => Some(*v),
                        _ => None,
                    };
                    s.decorations.insert((id(&i.operands[0]), d), value);
                }
                _ => {}
            }
        }
        for i in &m.types_global_values {
            let Some(r) = i.result_id else { continue };
            if i.class.opcode == Op::Variable {
                s.variables.insert(r, i.result_type.expect("typed"));
            } else {
                s.types.insert(r, i.clone());
            }
        }
        s
    }

    /// The type a named variable points to.
    fn pointee_of(&self, name: &str) -> u32 {
        let var = self.names[name];
        let ptr = &self.types[&self.variables[&var]];
        assert_eq!(ptr.class.opcode, Op::TypePointer);
        id(&ptr.operands[1])
    }

    /// Checks `t` (laid out by reflection) against the SPIR-V type `ty`.
    fn check(&self, t: &Type, ty: u32, path: &str) {
        let inst = &self.types[&ty];
        match t {
            Type::Struct { members, .. } => {
                assert_eq!(inst.class.opcode, Op::TypeStruct, "{path}");
                assert_eq!(inst.operands.len(), members.len(), "{path}: member count");
                for (i, m) in members.iter().enumerate() {
                    let i32 = i as u32;
                    let path = format!("{path}.{}", m.name);
                    assert_eq!(
                        self.member_decorations.get(&(ty, i32, Decoration::Offset)),
                        Some(&m.offset),
                        "{path}: Offset"
                    );
                    // MatrixStride and majorness sit on the member whose type is (an array
                    // of) matrices. SPIR-V's majorness names the other axis: the IR's
                    // mat<R, C> is C columns of R components in SPIR-V, so HLSL row_major is
                    // SPIR-V ColMajor.
                    let mut inner = &m.ty;
                    while let Type::Array { element, .. } = inner {
                        inner = element;
                    }
                    if let Type::Matrix {
                        matrix_stride,
                        row_major,
                        ..
                    } = inner
                    {
                        assert_eq!(
                            self.member_decorations
                                .get(&(ty, i32, Decoration::MatrixStride))
                                .copied()
                                .flatten(),
                            *matrix_stride,
                            "{path}: MatrixStride"
                        );
                        let spirv_col_major =
                            self.member_decorations
                                .contains_key(&(ty, i32, Decoration::ColMajor));
                        assert_eq!(Some(spirv_col_major), *row_major, "{path}: majorness");
                    }
                    self.check(&m.ty, id(&inst.operands[i]), &path);
                }
            }
            Type::Array {
                element,
                length,
                stride,
            } => {
                let want = if length.is_some() {
                    Op::TypeArray
                } else {
                    Op::TypeRuntimeArray
                };
                assert_eq!(inst.class.opcode, want, "{path}");
                assert_eq!(
                    self.decorations
                        .get(&(ty, Decoration::ArrayStride))
                        .copied()
                        .flatten(),
                    *stride,
                    "{path}: ArrayStride"
                );
                self.check(element, id(&inst.operands[0]), &format!("{path}[]"));
            }
            Type::Matrix { rows, columns, .. } => {
                assert_eq!(inst.class.opcode, Op::TypeMatrix, "{path}");
                // The IR's (HLSL's) rows become SPIR-V columns: `rows` vectors of `columns`
                // components.
                assert_eq!(
                    literal(&inst.operands[1]),
                    *rows,
                    "{path}: SPIR-V column count"
                );
                let column = &self.types[&id(&inst.operands[0])];
                assert_eq!(column.class.opcode, Op::TypeVector, "{path}: column type");
                assert_eq!(
                    literal(&column.operands[1]),
                    *columns,
                    "{path}: components per SPIR-V column"
                );
            }
            Type::Vector { components, .. } => {
                assert_eq!(inst.class.opcode, Op::TypeVector, "{path}");
                assert_eq!(literal(&inst.operands[1]), *components, "{path}");
            }
            Type::Scalar { scalar } => {
                let want = match scalar {
                    // Bools in buffers are stored as 32-bit integers.
                    Scalar::Bool | Scalar::U32 | Scalar::I32 => Op::TypeInt,
                    Scalar::F32 => Op::TypeFloat,
                    other => panic!("{path}: unexpected scalar {other:?}"),
                };
                assert_eq!(inst.class.opcode, want, "{path}");
            }
            Type::Other { ir } => panic!("{path}: undescribed type {ir}"),
        }
    }
}

#[test]
fn layouts_match_the_spirv_decorations_under_every_rule() {
    for layout in [
        BufferLayout::Dxc,
        BufferLayout::Gl,
        BufferLayout::Dx,
        BufferLayout::Scalar,
    ] {
        for opt in [OptLevel::O0, OptLevel::O] {
            let mut opts = CompileOptions::new("cs_6_0").with_reflection();
            opts.layout = layout;
            opts.opt_level = opt;
            let out = compile(LAYOUT, &opts);
            let r = out.reflection.as_ref().expect("asked for");
            assert_eq!(r.layout, layout.rules());
            let spv = Spirv::new(&out.spirv);
            let frame = r.resource("Frame").expect("Frame");
            let ty = frame.ty.as_ref().expect("contents");
            spv.check(ty, spv.pointee_of("Frame"), &format!("{layout:?} Frame"));
            // Structured buffers are wrapped in a one-member Block struct.
            for name in ["particles", "points"] {
                let wrapper = spv.pointee_of(name);
                let inst = &spv.types[&wrapper];
                assert_eq!(inst.operands.len(), 1);
                assert_eq!(
                    spv.member_decorations
                        .get(&(wrapper, 0, Decoration::Offset)),
                    Some(&Some(0))
                );
                let ty = r
                    .resource(name)
                    .and_then(|r| r.ty.as_ref())
                    .expect("contents");
                spv.check(ty, id(&inst.operands[0]), &format!("{layout:?} {name}"));
            }
            let pc = &r.push_constants[0];
            spv.check(&pc.ty, spv.pointee_of("pc"), &format!("{layout:?} pc"));
        }
    }
}

#[test]
fn gl_and_dx_layouts_differ_where_they_should() {
    let mut opts = CompileOptions::new("cs_6_0").with_reflection();
    opts.layout = BufferLayout::Gl;
    let gl = compile(LAYOUT, &opts).reflection.expect("asked for");
    let t = gl
        .resource("Frame")
        .and_then(|r| r.ty.as_ref())
        .expect("Frame");
    // Strict std140: the float3 after a float moves to 16.
    assert_eq!(member(t, "sun").offset, Some(16));
    opts.layout = BufferLayout::Dx;
    let dx = compile(LAYOUT, &opts).reflection.expect("asked for");
    let t = dx
        .resource("Frame")
        .and_then(|r| r.ty.as_ref())
        .expect("Frame");
    // D3D packing: the last array element (and the last row or column of a matrix) is not
    // padded, and a struct is not rounded up: weights 4 x 16 + 4 = 68 bytes; rm 3 x 16 + 12 =
    // 60; small 16 + 8 = 24; Light 88 (its `inner` is 32 + 24 bytes), so `lights` is 96 + 88.
    assert_eq!(member(t, "weights").size, Some(68));
    assert_eq!(member(t, "rm").size, Some(60));
    assert_eq!(member(t, "small").size, Some(24));
    assert_eq!(member(t, "lights").offset, Some(256));
    assert_eq!(member(t, "lights").size, Some(184));
    assert_eq!(member(t, "tiles").offset, Some(448));
    let Type::Array { element, .. } = &member(t, "lights").ty else {
        panic!("lights is an array")
    };
    let Type::Struct { size, .. } = &**element else {
        panic!("Light is a struct")
    };
    assert_eq!(*size, Some(88));
}

const VERTEX_PIXEL: &str = r#"
struct VSIn {
    float3 pos : POSITION;
    float3 normal : NORMAL;
    float2 uv : TEXCOORD0;
    float4 color : COLOR1;
};
struct VSOut {
    float4 pos : SV_Position;
    float2 uv : TEXCOORD0;
    nointerpolation uint material : MATERIAL;
    noperspective float3 normal : NORMAL;
    centroid float4 color : COLOR1;
};
cbuffer Camera : register(b0, space1) { float4x4 viewProj; };
[[vk::binding(3, 2)]] cbuffer Object { float4x4 world; uint materialId; };
Texture2D<float4> albedo : register(t0);
TextureCube<float4> envMap : register(t1);
Texture2DArray<float> shadows : register(t2);
Texture2D<float4> layers[4] : register(t3);
SamplerState linearSampler : register(s0);
SamplerComparisonState shadowSampler : register(s1);
Texture2D<float4> unused : register(t9);

VSOut VSMain(VSIn v, uint vid : SV_VertexID) {
    VSOut o;
    o.pos = mul(viewProj, mul(world, float4(v.pos, 1)));
    o.uv = v.uv;
    o.material = materialId + vid;
    o.normal = v.normal;
    o.color = v.color;
    return o;
}

float4 PSMain(VSOut i, bool front : SV_IsFrontFace) : SV_Target0 {
    float4 c = albedo.Sample(linearSampler, i.uv) * i.color;
    c += envMap.Sample(linearSampler, i.normal);
    c *= shadows.SampleCmpLevelZero(shadowSampler, float3(i.uv, 0), 0.5);
    c += layers[i.material % 4].Sample(linearSampler, i.uv);
    return front ? c : -c;
}
"#;

/// (semantic, semantic index, location, built-in) of an input.
type InputRow<'a> = (Option<&'a str>, Option<u32>, Option<u32>, Option<&'a str>);
/// (semantic, location, built-in, interpolation) of an output.
type OutputRow<'a> = (&'a str, Option<u32>, Option<&'a str>, &'a [Interpolation]);

#[test]
fn vertex_stage_io_bindings_and_semantics() {
    let r = reflect(VERTEX_PIXEL, "vs_6_0", "VSMain");
    assert_eq!(r.format, oneshader::reflect::FORMAT_VERSION);
    assert_eq!(r.entry_points.len(), 1);
    let e = r.entry_point("VSMain").expect("entry");
    assert_eq!(e.stage, ShaderStage::Vertex);
    assert_eq!(e.workgroup_size, None);
    let inputs: Vec<InputRow> = e
        .inputs
        .iter()
        .map(|v| {
            (
                v.semantic.as_deref(),
                v.semantic_index,
                v.location,
                v.builtin.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        inputs,
        [
            (Some("POSITION"), Some(0), Some(0), None),
            (Some("NORMAL"), Some(0), Some(1), None),
            (Some("TEXCOORD"), Some(0), Some(2), None),
            (Some("COLOR"), Some(1), Some(3), None),
            (Some("SV_VertexID"), Some(0), None, Some("vertex_index")),
        ]
    );
    assert_eq!(
        e.inputs[0].ty,
        Type::Vector {
            scalar: Scalar::F32,
            components: 3
        }
    );
    let outputs: Vec<OutputRow> = e
        .outputs
        .iter()
        .map(|v| {
            (
                v.semantic.as_deref().unwrap_or(""),
                v.location,
                v.builtin.as_deref(),
                v.interpolation.as_slice(),
            )
        })
        .collect();
    assert_eq!(
        outputs,
        [
            ("TEXCOORD", Some(0), None, &[][..]),
            ("MATERIAL", Some(1), None, &[Interpolation::Flat][..]),
            ("NORMAL", Some(2), None, &[Interpolation::NoPerspective][..]),
            ("COLOR", Some(3), None, &[Interpolation::Centroid][..]),
            ("SV_Position", None, Some("position"), &[][..]),
        ]
    );
    assert_eq!(
        e.outputs[1].ty,
        Type::Scalar {
            scalar: Scalar::U32
        }
    );
    // register(b0, space1) is set 1; [[vk::binding(3, 2)]] wins over registers.
    let camera = r.resource("Camera").expect("Camera");
    assert_eq!((camera.set, camera.binding), (1, 0));
    assert!(camera.used);
    let object = r.resource("Object").expect("Object");
    assert_eq!((object.set, object.binding), (2, 3));
    let t = object.ty.as_ref().expect("contents");
    assert_eq!(member(t, "materialId").offset, Some(64));
    assert_eq!(object.size, Some(80));
    // The front end lowers only what the entry point reaches: the pixel shader's resources
    // are not part of the vertex shader's module.
    assert!(r.resource("albedo").is_none());
    assert!(r.resources.iter().all(|r| r.used));
    // Sorted by set, binding, name.
    let order: Vec<(u32, u32)> = r.resources.iter().map(|r| (r.set, r.binding)).collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted);
}

#[test]
fn pixel_textures_samplers_and_arrays() {
    let r = reflect(VERTEX_PIXEL, "ps_6_0", "PSMain");
    let e = r.entry_point("PSMain").expect("entry");
    assert_eq!(e.stage, ShaderStage::Fragment);
    let front = e
        .inputs
        .iter()
        .find(|v| v.semantic.as_deref() == Some("SV_IsFrontFace"))
        .expect("front-face input");
    assert_eq!(front.builtin.as_deref(), Some("front_facing"));
    assert_eq!(e.outputs.len(), 1);
    assert_eq!(e.outputs[0].semantic.as_deref(), Some("SV_Target"));
    assert_eq!(e.outputs[0].location, Some(0));
    let tex = |name: &str| {
        let r = r.resource(name).unwrap_or_else(|| panic!("{name}"));
        (
            r.kind,
            r.descriptor_type,
            r.binding,
            r.array_size,
            r.used,
            r.texture.clone().expect("texture"),
        )
    };
    let (kind, dt, binding, array, used, info) = tex("albedo");
    assert_eq!(
        (kind, dt, binding, array, used),
        (
            ResourceKind::Texture,
            DescriptorType::SampledImage,
            0,
            None,
            true
        )
    );
    assert_eq!(
        (info.dim.as_str(), info.arrayed, info.multisampled),
        ("2d", false, false)
    );
    assert_eq!(
        info.sampled_type,
        Type::Vector {
            scalar: Scalar::F32,
            components: 4
        }
    );
    assert_eq!(info.format, None);
    let (.., info) = tex("envMap");
    assert_eq!(info.dim, "cube");
    let (.., info) = tex("shadows");
    assert_eq!((info.dim.as_str(), info.arrayed), ("2d", true));
    assert_eq!(
        info.sampled_type,
        Type::Scalar {
            scalar: Scalar::F32
        }
    );
    let (_, _, binding, array, used, _) = tex("layers");
    assert_eq!((binding, array, used), (3, Some(4), true));
    assert!(r.resource("unused").is_none());
    let s = r.resource("linearSampler").expect("sampler");
    assert_eq!(
        (s.kind, s.descriptor_type, s.set, s.binding),
        (ResourceKind::Sampler, DescriptorType::Sampler, 0, 0)
    );
    let s = r.resource("shadowSampler").expect("sampler");
    assert_eq!((s.kind, s.binding), (ResourceKind::ComparisonSampler, 1));
    // The vertex shader's constant buffers are not part of the pixel shader.
    assert!(r.resource("Camera").is_none());
}

const BUFFERS: &str = r#"
ByteAddressBuffer rawIn : register(t0);
RWByteAddressBuffer rawOut : register(u0);
AppendStructuredBuffer<uint2> appended : register(u1);
ConsumeStructuredBuffer<float4> consumed : register(u2);
Buffer<float4> texels : register(t3);
[[vk::image_format("r32ui")]] RWBuffer<uint> counts : register(u4);
[[vk::image_format("rgba16f")]] RWTexture2D<float4> image : register(u5);
RWTexture3D<uint> volume : register(u6);
StructuredBuffer<uint> plainUints : register(t7);
tbuffer Lookup : register(t8) { float4 table[4]; uint tableSize; };
[[vk::constant_id(0)]] const uint kTileSize = 16;
[[vk::constant_id(4)]] const float kScale = 0.5;
[[vk::constant_id(2)]] const bool kFast = true;
[[vk::constant_id(7)]] const int kBias = -3;

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 gid : SV_GroupID, uint index : SV_GroupIndex) {
    uint v = rawIn.Load(id.x * 4) + plainUints[id.x] + tableSize;
    rawOut.Store(id.x * 4, v * kTileSize);
    appended.Append(uint2(v, gid.x));
    float4 c = consumed.Consume() * kScale + texels[index] + table[v & 3];
    if (kFast) { counts[id.x] = (uint)c.x; }
    image[id.xy] = c;
    InterlockedAdd(volume[id], (uint)kBias);
}
"#;

#[test]
fn buffer_kinds_counters_and_spec_constants() {
    let r = reflect(BUFFERS, "cs_6_0", "main");
    let e = r.entry_point("main").expect("entry");
    assert_eq!(e.stage, ShaderStage::Compute);
    assert_eq!(e.workgroup_size, Some([64, 1, 1]));
    let builtins: Vec<&str> = e
        .inputs
        .iter()
        .filter_map(|v| v.builtin.as_deref())
        .collect();
    assert_eq!(
        builtins,
        [
            "global_invocation_id",
            "local_invocation_index",
            "workgroup_id"
        ]
    );
    assert!(e.outputs.is_empty());
    let kind = |name: &str| r.resource(name).unwrap_or_else(|| panic!("{name}")).kind;
    assert_eq!(kind("rawIn"), ResourceKind::ByteAddressBuffer);
    assert_eq!(kind("rawOut"), ResourceKind::RwByteAddressBuffer);
    assert_eq!(kind("appended"), ResourceKind::AppendStructuredBuffer);
    assert_eq!(kind("consumed"), ResourceKind::ConsumeStructuredBuffer);
    assert_eq!(kind("texels"), ResourceKind::TexelBuffer);
    assert_eq!(kind("counts"), ResourceKind::StorageTexelBuffer);
    assert_eq!(kind("image"), ResourceKind::StorageTexture);
    assert_eq!(kind("volume"), ResourceKind::StorageTexture);
    assert_eq!(kind("plainUints"), ResourceKind::StructuredBuffer);
    assert_eq!(kind("Lookup"), ResourceKind::Tbuffer);
    let dt = |name: &str| r.resource(name).expect("exists").descriptor_type;
    assert_eq!(dt("texels"), DescriptorType::UniformTexelBuffer);
    assert_eq!(dt("counts"), DescriptorType::StorageTexelBuffer);
    assert_eq!(dt("image"), DescriptorType::StorageImage);
    assert_eq!(dt("Lookup"), DescriptorType::StorageBuffer);
    // Each append/consume buffer names its counter, which is a resource of its own.
    for name in ["appended", "consumed"] {
        let res = r.resource(name).expect("exists");
        let c = res.counter.as_ref().expect("a counter");
        assert_eq!(c.name, format!("counter.var.{name}"));
        let counter = r.resource(&c.name).expect("the counter is listed");
        assert_eq!(counter.kind, ResourceKind::Counter);
        assert_eq!((counter.set, counter.binding), (c.set, c.binding));
        assert_ne!(
            (c.set, c.binding),
            (res.set, res.binding),
            "the counter has its own binding"
        );
    }
    let image = r
        .resource("image")
        .and_then(|r| r.texture.as_ref())
        .expect("texture");
    assert_eq!(image.format.as_deref(), Some("rgba16f"));
    let volume = r
        .resource("volume")
        .and_then(|r| r.texture.as_ref())
        .expect("texture");
    assert_eq!(volume.dim, "3d");
    assert_eq!(
        r.resource("counts")
            .and_then(|r| r.texture.as_ref())
            .and_then(|t| t.format.as_deref()),
        Some("r32ui")
    );
    // tbuffer members are laid out with the storage-buffer rule (relaxed std430).
    let lookup = r.resource("Lookup").expect("Lookup");
    assert!(lookup.readonly);
    let t = lookup.ty.as_ref().expect("contents");
    assert_eq!(member(t, "tableSize").offset, Some(64));
    let specs: Vec<(u32, Option<&str>, Scalar, ConstValue)> = r
        .spec_constants
        .iter()
        .map(|s| (s.id, s.name.as_deref(), s.ty, s.default))
        .collect();
    assert_eq!(
        specs,
        [
            (0, Some("kTileSize"), Scalar::U32, ConstValue::UInt(16)),
            (2, Some("kFast"), Scalar::Bool, ConstValue::Bool(true)),
            (4, Some("kScale"), Scalar::F32, ConstValue::Float(0.5)),
            (7, Some("kBias"), Scalar::I32, ConstValue::Int(-3)),
        ]
    );
}

#[test]
fn json_form_round_trips_and_omits_absent_fields() {
    let r = reflect(BUFFERS, "cs_6_0", "main");
    let text = r.to_json();
    assert_eq!(Reflection::from_json(&text).expect("parses"), r);
    let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(v["format"], 1);
    assert_eq!(v["layout"]["constant_buffer"], "relaxed_std140");
    assert_eq!(
        v["entry_points"][0]["workgroup_size"],
        serde_json::json!([64, 1, 1])
    );
    let raw = v["resources"]
        .as_array()
        .expect("a list")
        .iter()
        .find(|r| r["name"] == "rawIn")
        .expect("rawIn");
    assert_eq!(raw["kind"], "byte_address_buffer");
    assert_eq!(raw["descriptor_type"], "storage_buffer");
    assert_eq!(raw["type"]["kind"], "array");
    assert_eq!(raw["type"]["stride"], 4);
    assert!(raw.get("texture").is_none() && raw.get("counter").is_none());
    assert!(raw.get("array_size").is_none());
}

#[test]
fn descriptor_arrays_and_binding_shifts() {
    let src = r#"
struct Material { float4 color; float roughness; };
ConstantBuffer<Material> materials[3] : register(b0);
Texture2D<float4> textures[8] : register(t0);
SamplerState samplers[2] : register(s0, space1);
RWStructuredBuffer<float4> output : register(u0);
[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint m = id.x % 3;
    output[id.x] = materials[m].color * materials[m].roughness
        + textures[id.x % 8].SampleLevel(samplers[id.x % 2], float2(0.5, 0.5), 0);
}
"#;
    let mut opts = CompileOptions::new("cs_6_0").with_reflection();
    opts.emit_spirv = false;
    // dxc's -fvk-t-shift 10 0 and -fvk-u-shift 20 all.
    opts.binding_shifts = vec![
        oneshader::BindingShift {
            class: 't',
            shift: 10,
            space: Some(0),
        },
        oneshader::BindingShift {
            class: 'u',
            shift: 20,
            space: None,
        },
    ];
    let r = compile(src, &opts).reflection.expect("asked for");
    let materials = r.resource("materials").expect("materials");
    assert_eq!(materials.kind, ResourceKind::ConstantBuffer);
    assert_eq!(materials.array_size, Some(3));
    assert_eq!((materials.set, materials.binding), (0, 0));
    // The contents are one Material, not the array.
    let t = materials.ty.as_ref().expect("contents");
    assert_eq!(member(t, "roughness").offset, Some(16));
    assert_eq!(materials.size, Some(32));
    let textures = r.resource("textures").expect("textures");
    assert_eq!(textures.array_size, Some(8));
    assert_eq!((textures.set, textures.binding), (0, 10));
    let samplers = r.resource("samplers").expect("samplers");
    assert_eq!(samplers.array_size, Some(2));
    assert_eq!((samplers.set, samplers.binding), (1, 0));
    let output = r.resource("output").expect("output");
    assert_eq!(output.array_size, None);
    assert_eq!((output.set, output.binding), (0, 20));
}
