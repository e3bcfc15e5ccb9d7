struct Padded_f32_16 {
    @size(16) v: f32,
}

struct type_BlurParams {
    imageSize: vec2<u32>,
    @align(16) weights: array<Padded_f32_16, 5>,
}

@group(0) @binding(0) var<uniform> BlurParams: type_BlurParams;
@group(0) @binding(251) var source: texture_2d<f32>;
@group(0) @binding(752) var destination: texture_storage_2d<rgba32float, write>;
var<workgroup> cache: array<vec4<f32>, 72>;
var<private> in_var_SV_GroupID: vec3<u32>;
var<private> in_var_SV_GroupThreadID: vec3<u32>;

fn main_body() {
    let _1: vec3<u32> = in_var_SV_GroupID;
    let _2: vec3<u32> = in_var_SV_GroupThreadID;
    loop {
        let _3: i32 = i32(_1.y);
        let _4: i32 = i32(_1.x * 64u);
        let _5: u32 = _2.x;
        let _6: i32 = i32(_5);
        let _7: i32 = _4 + _6;
        let _8: u32 = _5 + 4u;
        let _9: i32 = i32(BlurParams.imageSize[0u]);
        let _10: i32 = _9 + (-1i);
        let _11: vec3<i32> = vec3<i32>(clamp(_7, 0i, _10), _3, 0i);
        cache[_8] = textureLoad(source, _11.xy, 0i);
        if _5 < 4u {
            let _12: vec3<i32> = vec3<i32>(clamp((_4 + (-4i)) + _6, 0i, _10), _3, 0i);
            cache[_5] = textureLoad(source, _12.xy, 0i);
            let _13: vec3<i32> = vec3<i32>(clamp((_4 + 64i) + _6, 0i, _10), _3, 0i);
            cache[_5 + 68u] = textureLoad(source, _13.xy, 0i);
        }
        workgroupBarrier();
        if _7 >= _9 {
            break;
        }
        let _14: f32 = BlurParams.weights[0i].v;
        let _15: f32 = BlurParams.weights[1u].v;
        let _16: f32 = BlurParams.weights[2u].v;
        let _17: f32 = BlurParams.weights[3u].v;
        let _18: f32 = BlurParams.weights[4u].v;
        textureStore(destination, vec2<u32>(vec2<i32>(_7, _3)), ((((vec4<f32>(_14, _14, _14, _14) * cache[_8]) + (vec4<f32>(_15, _15, _15, _15) * (cache[_5 + 3u] + cache[_5 + 5u]))) + (vec4<f32>(_16, _16, _16, _16) * (cache[_5 + 2u] + cache[_5 + 6u]))) + (vec4<f32>(_17, _17, _17, _17) * (cache[_5 + 1u] + cache[_5 + 7u]))) + (vec4<f32>(_18, _18, _18, _18) * (cache[_5] + cache[_5 + 8u])));
        break;
    }
}

struct main_in {
    @builtin(workgroup_id) in_var_SV_GroupID: vec3<u32>,
    @builtin(local_invocation_id) in_var_SV_GroupThreadID: vec3<u32>,
}

@compute @workgroup_size(64, 1, 1)
fn main(input: main_in) {
    in_var_SV_GroupID = input.in_var_SV_GroupID;
    in_var_SV_GroupThreadID = input.in_var_SV_GroupThreadID;
    main_body();
}
