diagnostic(off, derivative_uniformity);

struct type_PerFrame {
    viewProjection: mat4x4<f32>,
    lightDirection: vec3<f32>,
    ambient: f32,
}

struct type_PerObject {
    world: mat4x4<f32>,
    tint: vec4<f32>,
    uvScale: vec2<f32>,
}

@group(0) @binding(0) var<uniform> PerFrame: type_PerFrame;
@group(0) @binding(1) var<uniform> PerObject: type_PerObject;
@group(0) @binding(252) var albedoMap: texture_2d<f32>;
@group(0) @binding(503) var linearWrap: sampler;
var<private> in_var_NORMAL: vec3<f32>;
var<private> in_var_TEXCOORD0: vec2<f32>;
var<private> out_var_SV_Target0: vec4<f32>;

fn PSMain_body() {
    let _1: vec4<f32> = textureSample(albedoMap, linearWrap, in_var_TEXCOORD0) * PerObject.tint;
    let _2: f32 = PerFrame.ambient;
    let _3: f32 = _2 + ((1.0f - _2) * clamp(dot(normalize(in_var_NORMAL), PerFrame.lightDirection), 0.0f, 1.0f));
    let _4: vec3<f32> = _1.xyz * vec3<f32>(_3, _3, _3);
    out_var_SV_Target0 = vec4<f32>(_4.x, _4.y, _4.z, _1.w);
}

struct PSMain_in {
    @location(0) in_var_NORMAL: vec3<f32>,
    @location(1) in_var_TEXCOORD0: vec2<f32>,
}

struct PSMain_out {
    @location(0) out_var_SV_Target0: vec4<f32>,
}

@fragment
fn PSMain(input: PSMain_in) -> PSMain_out {
    in_var_NORMAL = input.in_var_NORMAL;
    in_var_TEXCOORD0 = input.in_var_TEXCOORD0;
    PSMain_body();
    return PSMain_out(out_var_SV_Target0);
}
