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
var<private> in_var_POSITION: vec3<f32>;
var<private> in_var_NORMAL: vec3<f32>;
var<private> in_var_TEXCOORD0: vec2<f32>;
var<private> out_var_SV_Position: vec4<f32>;
var<private> out_var_NORMAL: vec3<f32>;
var<private> out_var_TEXCOORD0: vec2<f32>;

fn VSMain_body() {
    let _1: vec3<f32> = in_var_POSITION;
    let _2: mat4x4<f32> = transpose(PerObject.world);
    out_var_SV_Position = (vec4<f32>(_1.x, _1.y, _1.z, 1.0f) * _2) * transpose(PerFrame.viewProjection);
    out_var_NORMAL = in_var_NORMAL * mat3x3<f32>(vec3<f32>(_2[0][0], _2[0][1], _2[0][2]), vec3<f32>(_2[1][0], _2[1][1], _2[1][2]), vec3<f32>(_2[2][0], _2[2][1], _2[2][2]));
    out_var_TEXCOORD0 = in_var_TEXCOORD0 * PerObject.uvScale;
}

struct VSMain_in {
    @location(0) in_var_POSITION: vec3<f32>,
    @location(1) in_var_NORMAL: vec3<f32>,
    @location(2) in_var_TEXCOORD0: vec2<f32>,
}

struct VSMain_out {
    @builtin(position) out_var_SV_Position: vec4<f32>,
    @location(0) out_var_NORMAL: vec3<f32>,
    @location(1) out_var_TEXCOORD0: vec2<f32>,
}

@vertex
fn VSMain(input: VSMain_in) -> VSMain_out {
    in_var_POSITION = input.in_var_POSITION;
    in_var_NORMAL = input.in_var_NORMAL;
    in_var_TEXCOORD0 = input.in_var_TEXCOORD0;
    VSMain_body();
    return VSMain_out(out_var_SV_Position, out_var_NORMAL, out_var_TEXCOORD0);
}
