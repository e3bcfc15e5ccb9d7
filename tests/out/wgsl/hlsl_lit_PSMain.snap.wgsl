diagnostic(off, derivative_uniformity);

struct PointLight {
    position: vec3<f32>,
    range: f32,
    color: vec3<f32>,
    intensity: f32,
}

struct type_Lights {
    lights: array<PointLight, 1>,
}

struct type_PerFrame {
    viewProjection: mat4x4<f32>,
    ambient: vec3<f32>,
    shadowBias: f32,
}

@group(0) @binding(1) var<uniform> Lights: type_Lights;
@group(0) @binding(0) var<uniform> PerFrame: type_PerFrame;
@group(0) @binding(252) var albedoMap: texture_2d<f32>;
@group(0) @binding(503) var linearWrap: sampler;
var<private> in_var_TEXCOORD0: vec3<f32>;
var<private> in_var_TEXCOORD1: vec3<f32>;
var<private> in_var_TEXCOORD2: vec2<f32>;
var<private> out_var_SV_Target0: vec4<f32>;

fn PSMain_body() {
    let _1: PointLight = Lights.lights[0i];
    let _2: f32 = _1.intensity;
    let _3: vec3<f32> = _1.position - in_var_TEXCOORD0;
    let _4: f32 = length(_3);
    let _5: f32 = clamp(1.0f - (_4 / _1.range), 0.0f, 1.0f);
    let _6: f32 = clamp(dot(normalize(in_var_TEXCOORD1), _3 / vec3<f32>(_4, _4, _4)), 0.0f, 1.0f);
    let _7: vec4<f32> = textureSample(albedoMap, linearWrap, in_var_TEXCOORD2);
    let _8: vec3<f32> = _7.xyz * (PerFrame.ambient + (((_1.color * vec3<f32>(_2, _2, _2)) * vec3<f32>(_5, _5, _5)) * vec3<f32>(_6, _6, _6)));
    out_var_SV_Target0 = vec4<f32>(_8.x, _8.y, _8.z, _7.w);
}

struct PSMain_in {
    @location(0) in_var_TEXCOORD0: vec3<f32>,
    @location(1) in_var_TEXCOORD1: vec3<f32>,
    @location(2) in_var_TEXCOORD2: vec2<f32>,
}

struct PSMain_out {
    @location(0) out_var_SV_Target0: vec4<f32>,
}

@fragment
fn PSMain(input: PSMain_in) -> PSMain_out {
    in_var_TEXCOORD0 = input.in_var_TEXCOORD0;
    in_var_TEXCOORD1 = input.in_var_TEXCOORD1;
    in_var_TEXCOORD2 = input.in_var_TEXCOORD2;
    PSMain_body();
    return PSMain_out(out_var_SV_Target0);
}
