diagnostic(off, derivative_uniformity);

@group(0) @binding(0) var albedo: texture_2d<f32>;
@group(0) @binding(1) var linear: sampler;
var<private> uv: vec2<f32>;
var<private> tint: vec4<f32>;
var<private> target_1: vec4<f32>;

fn ps_main_body() {
    target_1 = textureSample(albedo, linear, uv) * tint;
}

struct ps_main_in {
    @location(0) uv: vec2<f32>,
    @location(1) @interpolate(flat) tint: vec4<f32>,
}

struct ps_main_out {
    @location(0) target_1: vec4<f32>,
}

@fragment
fn ps_main(input: ps_main_in) -> ps_main_out {
    uv = input.uv;
    tint = input.tint;
    ps_main_body();
    return ps_main_out(target_1);
}
