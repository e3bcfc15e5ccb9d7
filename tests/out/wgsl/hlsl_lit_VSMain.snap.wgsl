struct type_PerFrame {
    viewProjection: mat4x4<f32>,
    ambient: vec3<f32>,
    shadowBias: f32,
}

@group(0) @binding(0) var<uniform> PerFrame: type_PerFrame;
var<private> in_var_POSITION: vec3<f32>;
var<private> in_var_NORMAL: vec3<f32>;
var<private> in_var_TEXCOORD0: vec2<f32>;
var<private> out_var_SV_Position: vec4<f32>;
var<private> out_var_TEXCOORD0: vec3<f32>;
var<private> out_var_TEXCOORD1: vec3<f32>;
var<private> out_var_TEXCOORD2: vec2<f32>;

fn VSMain_body() {
    let _1: vec3<f32> = in_var_POSITION;
    out_var_SV_Position = vec4<f32>(_1.x, _1.y, _1.z, 1.0f) * transpose(PerFrame.viewProjection);
    out_var_TEXCOORD0 = _1;
    out_var_TEXCOORD1 = in_var_NORMAL;
    out_var_TEXCOORD2 = in_var_TEXCOORD0;
}

struct VSMain_in {
    @location(0) in_var_POSITION: vec3<f32>,
    @location(1) in_var_NORMAL: vec3<f32>,
    @location(2) in_var_TEXCOORD0: vec2<f32>,
}

struct VSMain_out {
    @builtin(position) out_var_SV_Position: vec4<f32>,
    @location(0) out_var_TEXCOORD0: vec3<f32>,
    @location(1) out_var_TEXCOORD1: vec3<f32>,
    @location(2) out_var_TEXCOORD2: vec2<f32>,
}

@vertex
fn VSMain(input: VSMain_in) -> VSMain_out {
    in_var_POSITION = input.in_var_POSITION;
    in_var_NORMAL = input.in_var_NORMAL;
    in_var_TEXCOORD0 = input.in_var_TEXCOORD0;
    VSMain_body();
    return VSMain_out(out_var_SV_Position, out_var_TEXCOORD0, out_var_TEXCOORD1, out_var_TEXCOORD2);
}
