// naga capabilities: IMMEDIATES

struct ToneMapSettings {
    exposure: f32,
    size_x: u32,
    @size(8) size_y: u32,
}

@id(0) override kOutputSrgb: bool = true;

@group(0) @binding(0) var image: texture_storage_2d<rgba32float, read_write>;
var<immediate> settings: ToneMapSettings;
var<private> in_var_SV_DispatchThreadID: vec3<u32>;

fn main_body() {
    var _1: vec3<f32>;
    let _2: vec3<u32> = in_var_SV_DispatchThreadID;
    loop {
        let _3: vec2<u32> = _2.xy;
        if any(_3 >= vec2<u32>(settings.size_x, settings.size_y)) {
            break;
        }
        let _4: vec4<f32> = textureLoad(image, _3);
        let _5: f32 = settings.exposure;
        let _6: vec3<f32> = _4.xyz * vec3<f32>(_5, _5, _5);
        let _7: vec3<f32> = clamp((_6 * ((_6 * vec3<f32>(2.51f, 2.51f, 2.51f)) + vec3<f32>(0.03f, 0.03f, 0.03f))) / ((_6 * ((_6 * vec3<f32>(2.43f, 2.43f, 2.43f)) + vec3<f32>(0.59f, 0.59f, 0.59f))) + vec3<f32>(0.14f, 0.14f, 0.14f)), vec3<f32>(), vec3<f32>(1.0f));
        if kOutputSrgb {
            _1 = select((pow(_7, vec3<f32>(0.41666666f, 0.41666666f, 0.41666666f)) * vec3<f32>(1.055f, 1.055f, 1.055f)) - vec3<f32>(0.055f, 0.055f, 0.055f), _7 * vec3<f32>(12.92f, 12.92f, 12.92f), _7 <= vec3<f32>(0.0031308f, 0.0031308f, 0.0031308f));
        } else {
            _1 = _7;
        }
        let _8: vec3<f32> = _1;
        textureStore(image, _3, vec4<f32>(_8.x, _8.y, _8.z, _4.w));
        break;
    }
}

struct main_in {
    @builtin(global_invocation_id) in_var_SV_DispatchThreadID: vec3<u32>,
}

@compute @workgroup_size(8, 8, 1)
fn main(input: main_in) {
    in_var_SV_DispatchThreadID = input.in_var_SV_DispatchThreadID;
    main_body();
}
