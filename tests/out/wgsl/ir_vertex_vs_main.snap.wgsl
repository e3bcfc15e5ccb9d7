struct Transforms {
    world_view_proj: mat4x4<f32>,
}

@group(0) @binding(0) var<uniform> transforms: Transforms;
var<private> in_pos: vec3<f32>;
var<private> in_uv: vec2<f32>;
var<private> out_pos: vec4<f32>;
var<private> out_uv: vec2<f32>;

fn vs_main_body() {
    out_pos = transforms.world_view_proj * vec4<f32>(in_pos, 1.0f);
    out_uv = in_uv;
}

struct vs_main_in {
    @location(0) in_pos: vec3<f32>,
    @location(1) in_uv: vec2<f32>,
}

struct vs_main_out {
    @builtin(position) out_pos: vec4<f32>,
    @location(0) out_uv: vec2<f32>,
}

@vertex
fn vs_main(input: vs_main_in) -> vs_main_out {
    in_pos = input.in_pos;
    in_uv = input.in_uv;
    vs_main_body();
    return vs_main_out(out_pos, out_uv);
}
