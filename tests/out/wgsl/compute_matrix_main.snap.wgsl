struct Data {
    m: mat2x3<f32>,
    n: mat3x2<f32>,
    v: vec2<f32>,
    w: vec3<f32>,
}

@group(0) @binding(0) var<storage, read> data: Data;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

fn main_body() {
    let m: mat2x3<f32> = data.m;
    let _1: mat2x3<f32> = transpose(data.n);
    let _2: vec3<f32> = m * data.v;
    let _3: vec2<f32> = data.w * _1;
    let _4: vec3<f32> = data.m[1u];
    out[0u] = _2.x;
    out[1u] = _2.y;
    out[2u] = _2.z;
    out[3u] = _3.x;
    out[4u] = _3.y;
    out[5u] = m[1][2];
    out[6u] = _1[1][0];
    out[7u] = _4.x;
    out[8u] = _4.z;
}

@compute @workgroup_size(1, 1, 1)
fn main() {
    main_body();
}
