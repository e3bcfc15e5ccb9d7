@group(0) @binding(250) var<storage, read> input: array<u32>;
@group(0) @binding(751) var<storage, read_write> output: array<u32>;
@group(0) @binding(752) var<storage, read_write> blockSums: array<u32>;
var<workgroup> scratch: array<u32, 256>;
var<private> in_var_SV_DispatchThreadID: vec3<u32>;
var<private> in_var_SV_GroupID: vec3<u32>;
var<private> in_var_SV_GroupIndex: u32;

fn main_body() {
    var offset: u32;
    var current: u32;
    var value: u32;
    var current_1: u32;
    let _1: vec3<u32> = in_var_SV_GroupID;
    let _2: u32 = in_var_SV_GroupIndex;
    let _3: u32 = in_var_SV_DispatchThreadID.x;
    scratch[_2] = input[_3];
    workgroupBarrier();
    offset = 1u;
    current = 0u;
    loop {
        let offset_1: u32 = offset;
        current_1 = current;
        if !(offset_1 < 128u) {
            break;
        }
        let _4: u32 = 1u - current_1;
        let _5: u32 = (current_1 * 128u) + _2;
        let _6: u32 = scratch[_5];
        if _2 >= offset_1 {
            value = _6 + scratch[_5 - offset_1];
        } else {
            value = _6;
        }
        scratch[(_4 * 128u) + _2] = value;
        workgroupBarrier();
        offset = offset_1 << 1u;
        current = _4;
    }
    let _7: u32 = scratch[(current_1 * 128u) + _2];
    output[_3] = _7;
    if _2 == 127u {
        blockSums[_1.x] = _7;
    }
}

struct main_in {
    @builtin(global_invocation_id) in_var_SV_DispatchThreadID: vec3<u32>,
    @builtin(workgroup_id) in_var_SV_GroupID: vec3<u32>,
    @builtin(local_invocation_index) in_var_SV_GroupIndex: u32,
}

@compute @workgroup_size(128, 1, 1)
fn main(input_1: main_in) {
    in_var_SV_DispatchThreadID = input_1.in_var_SV_DispatchThreadID;
    in_var_SV_GroupID = input_1.in_var_SV_GroupID;
    in_var_SV_GroupIndex = input_1.in_var_SV_GroupIndex;
    main_body();
}
