// naga capabilities: IMMEDIATES

struct ToneMapSettings {
    exposure: f32,
    size_x: u32,
    @size(8) size_y: u32,
}

@id(0) override kOutputSrgb: bool = true;

@group(0) @binding(750) var image: texture_storage_2d<rgba32float, read_write>;
var<immediate> settings: ToneMapSettings;
var<private> in_var_SV_DispatchThreadID: vec3<u32>;

fn main_body() {
    var color: vec3<f32>;
    let _1: vec3<u32> = in_var_SV_DispatchThreadID;
    loop {
        let _2: vec2<u32> = _1.xy;
        if any(_2 >= vec2<u32>(settings.size_x, settings.size_y)) {
            break;
        }
        let _3: vec4<f32> = textureLoad(image, _2);
        let _4: f32 = settings.exposure;
        let _5: vec3<f32> = _3.xyz * vec3<f32>(_4, _4, _4);
        let _6: vec3<f32> = clamp((_5 * ((_5 * vec3<f32>(2.51f, 2.51f, 2.51f)) + vec3<f32>(0.03f, 0.03f, 0.03f))) / ((_5 * ((_5 * vec3<f32>(2.43f, 2.43f, 2.43f)) + vec3<f32>(0.59f, 0.59f, 0.59f))) + vec3<f32>(0.14f, 0.14f, 0.14f)), vec3<f32>(), vec3<f32>(1.0f));
        if kOutputSrgb {
            color = select((pow(_6, vec3<f32>(0.41666666f, 0.41666666f, 0.41666666f)) * vec3<f32>(1.055f, 1.055f, 1.055f)) - vec3<f32>(0.055f, 0.055f, 0.055f), _6 * vec3<f32>(12.92f, 12.92f, 12.92f), _6 <= vec3<f32>(0.0031308f, 0.0031308f, 0.0031308f));
        } else {
            color = _6;
        }
        let color_1: vec3<f32> = color;
        textureStore(image, _2, vec4<f32>(color_1.x, color_1.y, color_1.z, _3.w));
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
