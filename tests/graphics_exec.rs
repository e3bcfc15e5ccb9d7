//! Execution of graphics pipelines: vertex, pixel, geometry, hull and domain shaders written
//! in HLSL here, compiled through the facade in four voices: SPIR-V at -O0 and at -O (both
//! validated by both spirv-vals) and GLSL at -O0 and at -O (compiled by glslang, its output
//! validated by spirv-val), drawn on Mesa's lavapipe into offscreen color attachments, and
//! read back. Every picture's pixels are computed independently in the test, and the four
//! voices must draw identical pictures.
//!
//! Geometry: attachments are `W` x `H` pixels; a full-screen quad is two triangles, (-1, -1),
//! (1, -1), (-1, 1) then (1, -1), (1, 1), (-1, 1), whose shared edge runs through the
//! centers of the pixels with x + y = W - 1 (square attachments): tests that tell the two
//! triangles apart skip those pixels, which the rasterizer's tie-breaking rule assigns.
//!
//! The tests fail (never skip) when the Vulkan loader or lavapipe is missing, with a message
//! naming `cargo xtask setup`.

mod support;

use oneshader::backends::Target as Backend;
use oneshader::{CompileOptions, Compiler, OptLevel, TargetEnv};
use oneshader_test_tools::{GlslStage, glslang_and_validate};
use oneshader_vulkan_harness::{
    Binding, Draw, Format, Gpu, Image, Resource, Sampler, Shader, ShaderKind, Target, Topology,
    VertexAttribute, VertexBuffer, VertexFormat,
};
use support::assert_valid;

/// One way of compiling the shaders of a draw: a backend at an optimization level.
#[derive(Clone, Copy, Debug)]
struct Voice {
    level: OptLevel,
    /// Through the GLSL backend and glslang, rather than the SPIR-V backend.
    glsl: bool,
}

const VOICES: [Voice; 4] = [
    Voice {
        level: OptLevel::O0,
        glsl: false,
    },
    Voice {
        level: OptLevel::O,
        glsl: false,
    },
    Voice {
        level: OptLevel::O0,
        glsl: true,
    },
    Voice {
        level: OptLevel::O,
        glsl: true,
    },
];

/// Compiles `src`'s `entry` for `profile` in `voice`: the SPIR-V backend's words, which both
/// validators must accept, or the GLSL backend's text compiled by glslang (whose output
/// spirv-val must accept).
fn spirv(src: &str, profile: &str, entry: &str, voice: Voice) -> Vec<u32> {
    spirv_with(src, CompileOptions::new(profile), entry, voice)
}

/// [`spirv`] with the other options of `base` (its profile, `-enable-16bit-types`...).
fn spirv_with(src: &str, base: CompileOptions, entry: &str, voice: Voice) -> Vec<u32> {
    let profile = base.profile.clone();
    let mut opts = base.entry(entry).opt_level(voice.level);
    if voice.glsl {
        opts = opts.target(Backend::Glsl);
    }
    let out = Compiler::new()
        .compile_source(format!("{entry}.hlsl"), src, &opts)
        .unwrap_or_else(|e| panic!("{voice:?}: {e}\n{}", e.diagnostics.render()));
    if voice.glsl {
        let text = out.glsl.expect("GLSL asked for");
        let stage = out.stage.map(GlslStage::of).expect("a GLSL stage");
        return glslang_and_validate(&text, stage)
            .unwrap_or_else(|e| panic!("{entry} ({profile}, {voice:?}): {e}"));
    }
    assert_valid(
        &out.spirv,
        TargetEnv::Vulkan1_2,
        &format!("{entry} ({profile}, {voice:?})"),
    );
    out.spirv
}

/// A shader of `src` for the pipeline in `voice`.
fn shader(kind: ShaderKind, src: &str, profile: &str, entry: &str, voice: Voice) -> Shader {
    Shader::new(kind, spirv(src, profile, entry, voice), entry)
}

/// Runs the draw `make` builds in each voice; asserts that all draw the same pictures (and
/// leave the same buffers), and returns the pictures and bindings of the first (SPIR-V at
/// -O0).
fn draw_levels(gpu: &Gpu, make: impl Fn(Voice) -> Draw) -> (Vec<Image>, Vec<Binding>) {
    let mut results: Vec<(Voice, Vec<Image>, Vec<Binding>)> = Vec::new();
    for voice in VOICES {
        let mut d = make(voice);
        let images = gpu.draw(&mut d);
        results.push((voice, images, d.bindings));
    }
    let (first, rest) = results.split_first().expect("four voices");
    for r in rest {
        assert_eq!(
            r.1, first.1,
            "{:?} draws another picture than {:?}",
            r.0, first.0
        );
        assert_eq!(
            r.2, first.2,
            "{:?} leaves other buffers than {:?}",
            r.0, first.0
        );
    }
    let first = results.swap_remove(0);
    (first.1, first.2)
}

/// The four channels of a float texel.
fn texel(img: &Image, x: u32, y: u32) -> [f32; 4] {
    let i = ((y * img.width + x) * 4) as usize;
    let w = &img.data[i..i + 4];
    [
        f32::from_bits(w[0]),
        f32::from_bits(w[1]),
        f32::from_bits(w[2]),
        f32::from_bits(w[3]),
    ]
}

/// The full-screen quad as two triangles of 2D positions.
const QUAD: [f32; 12] = [
    -1.0, -1.0, 1.0, -1.0, -1.0, 1.0, //
    1.0, -1.0, 1.0, 1.0, -1.0, 1.0,
];

/// True when pixel (x, y) of a square attachment of side `n` lies on the quad's diagonal.
fn on_diagonal(x: u32, y: u32, n: u32) -> bool {
    x + y == n - 1
}

/// True when pixel (x, y) of a square attachment of side `n` is inside the quad's first
/// triangle (off the diagonal).
fn in_first_triangle(x: u32, y: u32, n: u32) -> bool {
    x + y < n - 1
}

const PASS_VS: &str = "
struct VSOut { float4 pos : SV_Position; };
VSOut main(float2 p : POSITION) { VSOut o; o.pos = float4(p, 0.5, 1.0); return o; }
";

#[test]
fn vertex_and_pixel_shader_fill_with_a_flat_color() {
    const PS: &str = "float4 main() : SV_Target { return float4(0.25, 0.5, 0.75, 1.0); }";
    let gpu = Gpu::new();
    let (images, _) = draw_levels(&gpu, |level| {
        let mut d = Draw::new(
            vec![
                shader(ShaderKind::Vertex, PASS_VS, "vs_6_0", "main", level),
                shader(ShaderKind::Fragment, PS, "ps_6_0", "main", level),
            ],
            6,
            8,
            8,
        );
        d.vertex_buffers = vec![VertexBuffer::floats(0, 2, &QUAD)];
        d
    });
    for y in 0..8 {
        for x in 0..8 {
            assert_eq!(
                texel(&images[0], x, y),
                [0.25, 0.5, 0.75, 1.0],
                "pixel ({x}, {y})"
            );
        }
    }
}

#[test]
fn pixel_shader_reads_sv_position() {
    const PS: &str = "float4 main(float4 pos : SV_Position) : SV_Target { return pos; }";
    let gpu = Gpu::new();
    let (images, _) = draw_levels(&gpu, |level| {
        let mut d = Draw::new(
            vec![
                shader(ShaderKind::Vertex, PASS_VS, "vs_6_0", "main", level),
                shader(ShaderKind::Fragment, PS, "ps_6_0", "main", level),
            ],
            6,
            8,
            8,
        );
        d.vertex_buffers = vec![VertexBuffer::floats(0, 2, &QUAD)];
        d
    });
    // The pixel's center, the vertex depth, and 1 / w.
    for y in 0..8 {
        for x in 0..8 {
            let want = [x as f32 + 0.5, y as f32 + 0.5, 0.5, 1.0];
            assert_eq!(texel(&images[0], x, y), want, "pixel ({x}, {y})");
        }
    }
}

#[test]
fn interpolated_and_flat_attributes() {
    // `coord` is the pixel coordinate at the quad's corners, so its interpolation at a
    // pixel's center is that center (exact: the steps are powers of two); `id` is flat and
    // comes from each triangle's first vertex.
    const VS: &str = "
struct VSOut {
    float4 pos : SV_Position;
    float2 coord : COORD;
    noperspective float2 linear_coord : LINEAR;
    nointerpolation uint id : ID;
};
VSOut main(float2 p : POSITION, uint id : ID) {
    VSOut o;
    o.pos = float4(p, 0.0, 1.0);
    o.coord = (p + 1.0) * 4.0;
    o.linear_coord = (p + 1.0) * 2.0;
    o.id = id;
    return o;
}
";
    const PS: &str = "
float4 main(float4 pos : SV_Position, float2 coord : COORD,
            noperspective float2 linear_coord : LINEAR,
            nointerpolation uint id : ID) : SV_Target {
    return float4(coord, linear_coord.x, (float)id);
}
";
    let gpu = Gpu::new();
    let (images, _) = draw_levels(&gpu, |level| {
        let mut d = Draw::new(
            vec![
                shader(ShaderKind::Vertex, VS, "vs_6_0", "main", level),
                shader(ShaderKind::Fragment, PS, "ps_6_0", "main", level),
            ],
            6,
            8,
            8,
        );
        // Position (2 floats) and id (1 uint) per vertex.
        let ids = [10u32, 11, 12, 20, 21, 22];
        let mut data = Vec::new();
        for (k, id) in ids.iter().enumerate() {
            data.push(QUAD[2 * k].to_bits());
            data.push(QUAD[2 * k + 1].to_bits());
            data.push(*id);
        }
        d.vertex_buffers = vec![VertexBuffer {
            data,
            stride: 12,
            per_instance: false,
            attributes: vec![
                VertexAttribute {
                    location: 0,
                    format: VertexFormat::Float(2),
                    offset: 0,
                },
                VertexAttribute {
                    location: 1,
                    format: VertexFormat::Uint(1),
                    offset: 8,
                },
            ],
        }];
        d
    });
    for y in 0..8 {
        for x in 0..8 {
            let t = texel(&images[0], x, y);
            let (cx, cy) = (x as f32 + 0.5, y as f32 + 0.5);
            assert_eq!([t[0], t[1], t[2]], [cx, cy, cx / 2.0], "pixel ({x}, {y})");
            if !on_diagonal(x, y, 8) {
                let want = if in_first_triangle(x, y, 8) {
                    10.0
                } else {
                    20.0
                };
                assert_eq!(t[3], want, "flat id at pixel ({x}, {y})");
            }
        }
    }
}

#[test]
fn instancing_with_vertex_and_instance_ids_and_an_index_buffer() {
    // Four instances of a quadrant-sized quad (four vertices, six indices), placed by a
    // per-instance offset; each pixel records the instance and the provoking vertex's index.
    const VS: &str = "
struct VSOut { float4 pos : SV_Position; nointerpolation uint2 ids : IDS; };
VSOut main(float2 corner : CORNER, float2 offset : OFFSET,
           uint vid : SV_VertexID, uint iid : SV_InstanceID) {
    VSOut o;
    o.pos = float4(corner + offset, 0.0, 1.0);
    o.ids = uint2(iid, vid);
    return o;
}
";
    const PS: &str = "
float4 main(float4 pos : SV_Position, nointerpolation uint2 ids : IDS) : SV_Target {
    return float4((float)ids.x, (float)ids.y, 0.0, 1.0);
}
";
    let gpu = Gpu::new();
    let offsets: [[f32; 2]; 4] = [[-1.0, -1.0], [0.0, -1.0], [-1.0, 0.0], [0.0, 0.0]];
    let (images, _) = draw_levels(&gpu, |level| {
        let mut d = Draw::new(
            vec![
                shader(ShaderKind::Vertex, VS, "vs_6_0", "main", level),
                shader(ShaderKind::Fragment, PS, "ps_6_0", "main", level),
            ],
            6,
            8,
            8,
        );
        let corners = [0.0f32, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0];
        let offs: Vec<f32> = offsets.iter().flatten().copied().collect();
        let mut per_instance = VertexBuffer::floats(1, 2, &offs);
        per_instance.per_instance = true;
        d.vertex_buffers = vec![VertexBuffer::floats(0, 2, &corners), per_instance];
        d.indices = Some(vec![0, 1, 2, 2, 1, 3]);
        d.instances = 4;
        d
    });
    for y in 0..8u32 {
        for x in 0..8u32 {
            let instance = (x / 4) + 2 * (y / 4);
            let (lx, ly) = (x % 4, y % 4);
            let t = texel(&images[0], x, y);
            assert_eq!(t[0], instance as f32, "instance at pixel ({x}, {y})");
            // Triangle (0, 1, 2) below the local diagonal, (2, 1, 3) above it.
            if !on_diagonal(lx, ly, 4) {
                let vid = if in_first_triangle(lx, ly, 4) {
                    0.0
                } else {
                    2.0
                };
                assert_eq!(t[1], vid, "provoking vertex at pixel ({x}, {y})");
            }
        }
    }
}

#[test]
fn discard_keeps_the_clear_color() {
    const PS: &str = "
float4 main(float4 pos : SV_Position) : SV_Target {
    if (pos.x < 4.0) discard;
    clip(pos.y - 6.0);
    return float4(0.0, 1.0, 0.0, 1.0);
}
";
    let gpu = Gpu::new();
    let (images, _) = draw_levels(&gpu, |level| {
        let mut d = Draw::new(
            vec![
                shader(ShaderKind::Vertex, PASS_VS, "vs_6_0", "main", level),
                shader(ShaderKind::Fragment, PS, "ps_6_0", "main", level),
            ],
            6,
            8,
            8,
        );
        d.vertex_buffers = vec![VertexBuffer::floats(0, 2, &QUAD)];
        d.targets = vec![Target::rgba32f([1.0, 0.0, 1.0, 1.0])];
        d
    });
    for y in 0..8 {
        for x in 0..8 {
            let kept = x >= 4 && y >= 6;
            let want = if kept {
                [0.0, 1.0, 0.0, 1.0]
            } else {
                [1.0, 0.0, 1.0, 1.0]
            };
            assert_eq!(texel(&images[0], x, y), want, "pixel ({x}, {y})");
        }
    }
}

#[test]
fn textures_constant_buffers_push_constants_and_storage_buffers() {
    // Each pixel point-samples its own texel, scales it by a constant buffer's value, adds
    // a push constant, writes the result to a second render target's integer format too,
    // and counts itself in a storage buffer.
    const PS: &str = "
[[vk::binding(0, 0)]] Texture2D<float4> tex;
[[vk::binding(1, 0)]] SamplerState point;
[[vk::binding(2, 0)]] cbuffer Params { float4 scale; };
[[vk::binding(3, 0)]] RWByteAddressBuffer counter;
[[vk::binding(4, 0)]] RWStructuredBuffer<uint> seen;
struct Push { float4 bias; };
[[vk::push_constant]] Push push;
struct Out { float4 color : SV_Target0; uint code : SV_Target1; };
Out main(float4 pos : SV_Position) {
    float2 uv = pos.xy / 4.0;
    Out o;
    o.color = tex.Sample(point, uv) * scale + push.bias;
    o.code = (uint)pos.x + 10u * (uint)pos.y;
    uint before;
    counter.InterlockedAdd(0, 1u, before);
    seen[(uint)pos.y * 4u + (uint)pos.x] = o.code + 1u;
    return o;
}
";
    let gpu = Gpu::new();
    let texels: Vec<[f32; 4]> = (0..16)
        .map(|i| [i as f32, (i * 2) as f32, 0.5, 1.0])
        .collect();
    let scale = [2.0f32, 0.5, 4.0, 1.0];
    let bias = [1.0f32, -1.0, 0.25, 0.0];
    let (images, bindings) = draw_levels(&gpu, |level| {
        let mut d = Draw::new(
            vec![
                shader(ShaderKind::Vertex, PASS_VS, "vs_6_0", "main", level),
                shader(ShaderKind::Fragment, PS, "ps_6_0", "main", level),
            ],
            6,
            4,
            4,
        );
        d.vertex_buffers = vec![VertexBuffer::floats(0, 2, &QUAD)];
        d.targets = vec![Target::rgba32f([0.0; 4]), Target::zeroed(Format::R32Uint)];
        let data: Vec<u32> = texels.iter().flatten().map(|f| f.to_bits()).collect();
        d.bindings = vec![
            Binding::new(
                0,
                0,
                Resource::SampledImage(Image::new_2d(Format::Rgba32Float, 4, 4, data)),
            ),
            Binding::new(0, 1, Resource::Sampler(Sampler { compare: false })),
            Binding::new(
                0,
                2,
                Resource::UniformBuffer(scale.iter().map(|f| f.to_bits()).collect()),
            ),
            Binding::new(0, 3, Resource::StorageBuffer(vec![0])),
            Binding::new(0, 4, Resource::StorageBuffer(vec![0; 16])),
        ];
        d.push_constants = bias.iter().map(|f| f.to_bits()).collect();
        d
    });
    for y in 0..4u32 {
        for x in 0..4u32 {
            let t = texels[(y * 4 + x) as usize];
            let want: Vec<f32> = (0..4).map(|c| t[c] * scale[c] + bias[c]).collect();
            assert_eq!(
                texel(&images[0], x, y).to_vec(),
                want,
                "color at ({x}, {y})"
            );
            let code = x + 10 * y;
            assert_eq!(
                images[1].data[(y * 4 + x) as usize],
                code,
                "code at ({x}, {y})"
            );
        }
    }
    assert_eq!(bindings[3].words(), &[16], "every pixel counted once");
    let seen: Vec<u32> = (0..16).map(|i| (i % 4) + 10 * (i / 4) + 1).collect();
    assert_eq!(bindings[4].words(), &seen[..]);
}

#[test]
fn geometry_shader_emits_extra_primitives() {
    // The vertex shader draws the left half of the screen (two triangles); the geometry
    // shader emits each triangle where it is, colored by its primitive id, and a copy moved
    // to the right half in a second strip, colored by the vertex's index in the strip.
    const VS: &str = "
struct VSOut { float4 pos : SV_Position; float2 p : P; };
VSOut main(float2 p : POSITION) { VSOut o; o.pos = float4(p, 0.0, 1.0); o.p = p; return o; }
";
    const GS: &str = "
struct VSOut { float4 pos : SV_Position; float2 p : P; };
struct GSOut { float4 pos : SV_Position; nointerpolation float4 color : COLOR; };
[maxvertexcount(6)]
void main(triangle VSOut v[3], uint prim : SV_PrimitiveID, inout TriangleStream<GSOut> s) {
    GSOut o;
    for (uint i = 0; i < 3; i++) {
        o.pos = v[i].pos;
        o.color = float4(1.0, (float)prim, 0.0, 1.0);
        s.Append(o);
    }
    s.RestartStrip();
    for (uint j = 0; j < 3; j++) {
        o.pos = v[j].pos + float4(1.0, 0.0, 0.0, 0.0);
        o.color = float4(0.0, 1.0, (float)prim + 10.0, 1.0);
        s.Append(o);
    }
}
";
    const PS: &str = "
float4 main(float4 pos : SV_Position, nointerpolation float4 color : COLOR) : SV_Target {
    return color;
}
";
    // The left half, (-1..0) x (-1..1), as two triangles.
    const LEFT: [f32; 12] = [
        -1.0, -1.0, 0.0, -1.0, -1.0, 1.0, //
        0.0, -1.0, 0.0, 1.0, -1.0, 1.0,
    ];
    let gpu = Gpu::new();
    let (images, _) = draw_levels(&gpu, |level| {
        let mut d = Draw::new(
            vec![
                shader(ShaderKind::Vertex, VS, "vs_6_0", "main", level),
                shader(ShaderKind::Geometry, GS, "gs_6_0", "main", level),
                shader(ShaderKind::Fragment, PS, "ps_6_0", "main", level),
            ],
            6,
            8,
            8,
        );
        d.vertex_buffers = vec![VertexBuffer::floats(0, 2, &LEFT)];
        d
    });
    for y in 0..8u32 {
        for x in 0..8u32 {
            let t = texel(&images[0], x, y);
            // In the half's own 4 x 8 frame: the diagonal from (4, 0) to (0, 8) is
            // 2 * lx + y = 7 at pixel centers.
            let lx = x % 4;
            let on_edge = 2 * lx + y == 7;
            let first = 2 * lx + y < 7;
            if x < 4 {
                assert_eq!([t[0], t[2], t[3]], [1.0, 0.0, 1.0], "left pixel ({x}, {y})");
                if !on_edge {
                    assert_eq!(
                        t[1],
                        if first { 0.0 } else { 1.0 },
                        "primitive id ({x}, {y})"
                    );
                }
            } else {
                assert_eq!(
                    [t[0], t[1], t[3]],
                    [0.0, 1.0, 1.0],
                    "right pixel ({x}, {y})"
                );
                if !on_edge {
                    assert_eq!(
                        t[2],
                        if first { 10.0 } else { 11.0 },
                        "copy's id ({x}, {y})"
                    );
                }
            }
        }
    }
}

#[test]
fn geometry_shader_instances() {
    // `[instance(2)]`: instance 0 emits the left-half quad, instance 1 the right half, each
    // colored by its instance id.
    const VS: &str = "
struct VSOut { float4 pos : SV_Position; };
VSOut main(float2 p : POSITION) { VSOut o; o.pos = float4(p, 0.0, 1.0); return o; }
";
    const GS: &str = "
struct VSOut { float4 pos : SV_Position; };
struct GSOut { float4 pos : SV_Position; nointerpolation float id : ID; };
[maxvertexcount(4)]
[instance(2)]
void main(point VSOut v[1], uint id : SV_GSInstanceID, inout TriangleStream<GSOut> s) {
    float x0 = (float)id - 1.0;
    GSOut o;
    o.id = (float)id + 5.0;
    o.pos = float4(x0, -1.0, 0.0, 1.0); s.Append(o);
    o.pos = float4(x0 + 1.0, -1.0, 0.0, 1.0); s.Append(o);
    o.pos = float4(x0, 1.0, 0.0, 1.0); s.Append(o);
    o.pos = float4(x0 + 1.0, 1.0, 0.0, 1.0); s.Append(o);
}
";
    const PS: &str = "float4 main(float4 pos : SV_Position, nointerpolation float id : ID) : SV_Target { return id; }";
    let gpu = Gpu::new();
    let (images, _) = draw_levels(&gpu, |level| {
        let mut d = Draw::new(
            vec![
                shader(ShaderKind::Vertex, VS, "vs_6_0", "main", level),
                shader(ShaderKind::Geometry, GS, "gs_6_0", "main", level),
                shader(ShaderKind::Fragment, PS, "ps_6_0", "main", level),
            ],
            1,
            8,
            8,
        );
        d.vertex_buffers = vec![VertexBuffer::floats(0, 2, &[0.0, 0.0])];
        d.topology = Topology::PointList;
        d
    });
    for y in 0..8u32 {
        for x in 0..8u32 {
            let want = if x < 4 { 5.0 } else { 6.0 };
            assert_eq!(texel(&images[0], x, y), [want; 4], "pixel ({x}, {y})");
        }
    }
}

#[test]
fn tessellation_with_constant_factors() {
    // One quad patch of four control points (the screen's corners). The hull shader copies
    // the control points and sets every tessellation level to 4 in its patch-constant
    // function, with a tint; the domain shader places each vertex bilinearly and colors it
    // with u * u, which the rasterizer interpolates linearly between the tessellated
    // vertices: the picture shows u * u sampled at u = 0, 1/4, ..., 1 and interpolated in
    // between, which only those levels produce.
    const VS: &str = "
struct CP { float4 pos : POS; };
CP main(float2 p : POSITION) { CP c; c.pos = float4(p, 0.0, 1.0); return c; }
";
    const HS: &str = "
struct CP { float4 pos : POS; };
struct PC {
    float edges[4] : SV_TessFactor;
    float inside[2] : SV_InsideTessFactor;
    float tint : TINT;
};
PC constants(InputPatch<CP, 4> ip, uint prim : SV_PrimitiveID) {
    PC pc;
    [unroll] for (int i = 0; i < 4; i++) pc.edges[i] = 4.0;
    pc.inside[0] = 4.0;
    pc.inside[1] = 4.0;
    pc.tint = 0.5 + (float)prim;
    return pc;
}
[domain(\"quad\")]
[partitioning(\"integer\")]
[outputtopology(\"triangle_ccw\")]
[outputcontrolpoints(4)]
[patchconstantfunc(\"constants\")]
CP main(InputPatch<CP, 4> ip, uint id : SV_OutputControlPointID) {
    CP c;
    c.pos = ip[id].pos;
    return c;
}
";
    const DS: &str = "
struct CP { float4 pos : POS; };
struct PC {
    float edges[4] : SV_TessFactor;
    float inside[2] : SV_InsideTessFactor;
    float tint : TINT;
};
struct DSOut { float4 pos : SV_Position; float4 color : COLOR; };
[domain(\"quad\")]
DSOut main(PC pc, float2 uv : SV_DomainLocation, const OutputPatch<CP, 4> patch) {
    DSOut o;
    float4 bottom = lerp(patch[0].pos, patch[1].pos, uv.x);
    float4 top = lerp(patch[3].pos, patch[2].pos, uv.x);
    o.pos = lerp(bottom, top, uv.y);
    o.color = float4(uv.x * uv.x, pc.edges[0], pc.tint, pc.inside[1]);
    return o;
}
";
    const PS: &str =
        "float4 main(float4 pos : SV_Position, float4 color : COLOR) : SV_Target { return color; }";
    // GLSL states the spacing and vertex order in the evaluation shader: the GLSL voices'
    // domain shader repeats its hull shader's (the SPIR-V voices take them from the hull
    // shader, as DXC's output does).
    let ds = |voice: Voice| {
        if voice.glsl {
            DS.replace(
                "[domain(\"quad\")]",
                "[domain(\"quad\")] [partitioning(\"integer\")] [outputtopology(\"triangle_ccw\")]",
            )
        } else {
            DS.to_string()
        }
    };
    let gpu = Gpu::new();
    let (images, _) = draw_levels(&gpu, |level| {
        let mut d = Draw::new(
            vec![
                shader(ShaderKind::Vertex, VS, "vs_6_0", "main", level),
                shader(ShaderKind::TessControl, HS, "hs_6_0", "main", level),
                shader(ShaderKind::TessEval, &ds(level), "ds_6_0", "main", level),
                shader(ShaderKind::Fragment, PS, "ps_6_0", "main", level),
            ],
            4,
            8,
            8,
        );
        d.vertex_buffers = vec![VertexBuffer::floats(
            0,
            2,
            &[-1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0, 1.0],
        )];
        d.topology = Topology::PatchList(4);
        d
    });
    let level = 4.0f64;
    for y in 0..8u32 {
        for x in 0..8u32 {
            let t = texel(&images[0], x, y);
            // u at the pixel's center, and u * u interpolated between the tessellated
            // vertices around it.
            let u = (x as f64 + 0.5) / 8.0;
            let k = (u * level).floor();
            let (u0, u1) = (k / level, (k + 1.0) / level);
            let want = u0 * u0 + (u - u0) / (u1 - u0) * (u1 * u1 - u0 * u0);
            assert!(
                (t[0] as f64 - want).abs() < 1e-5,
                "pixel ({x}, {y}): u*u interpolated is {}, expected {want}",
                t[0]
            );
            assert_eq!(
                [t[1], t[2], t[3]],
                [4.0, 0.5, 4.0],
                "patch constants ({x}, {y})"
            );
        }
    }
}

/// Derivatives of `double` and `half` in a pixel shader (`-enable-16bit-types`, issue 26
/// reproducer 5): Vulkan's `OpDPdx` takes 32-bit floats, so they are taken of the values
/// converted to `float` (legalization pass `intrinsic_widths`, as DXC does). The inputs are
/// linear in the pixel position, so every derivative is exact: d = 2x + 3y gives ddx 2 and
/// ddy 3; h = x / 2 + y / 4 gives fwidth 0.75 and ddx_fine 0.5, at every pixel, in both
/// SPIR-V voices (validated by both spirv-vals).
#[test]
fn derivatives_of_double_and_half() {
    const PS: &str = "
float4 main(float4 pos : SV_Position) : SV_Target {
    double d = (double)(pos.x * 2.0 + pos.y * 3.0);
    half h = (half)(pos.x * 0.5 + pos.y * 0.25);
    return float4((float)ddx(d), (float)ddy(d), (float)fwidth(h), (float)ddx_fine(h));
}";
    let gpu = Gpu::new();
    let mut opts = CompileOptions::new("ps_6_2");
    opts.enable_16bit_types = true;
    for voice in VOICES.into_iter().filter(|v| !v.glsl) {
        let mut d = Draw::new(
            vec![
                shader(ShaderKind::Vertex, PASS_VS, "vs_6_0", "main", voice),
                Shader::new(
                    ShaderKind::Fragment,
                    spirv_with(PS, opts.clone(), "main", voice),
                    "main",
                ),
            ],
            6,
            8,
            8,
        );
        d.vertex_buffers = vec![VertexBuffer::floats(0, 2, &QUAD)];
        let images = gpu.draw(&mut d);
        for y in 0..8 {
            for x in 0..8 {
                assert_eq!(
                    texel(&images[0], x, y),
                    [2.0, 3.0, 0.75, 0.5],
                    "{voice:?}: pixel ({x}, {y})"
                );
            }
        }
    }
}
