const k: array<f32, 3> = array<f32, 3>(0.1f, 0.2f, 0.3f);

@group(0) @binding(0) var<storage, read_write> data: array<f32, 4>;

fn main_body() {
    let _1: f32 = data[0u];
    data = array<f32, 4>((1657711.6f * 116.75f) + _1, ((0.1f * 3.0f) + 0.7f) + _1, (k[2] * 10.0f) + _1, ((1.0f / 3.0f) * 3.0f) + _1);
}

@compute @workgroup_size(1, 1, 1)
fn main() {
    main_body();
}
