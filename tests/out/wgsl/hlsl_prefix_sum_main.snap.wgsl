@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
@group(0) @binding(2) var<storage, read_write> blockSums: array<u32>;
var<workgroup> scratch: array<u32, 256>;
var<private> in_var_SV_DispatchThreadID: vec3<u32>;
var<private> in_var_SV_GroupID: vec3<u32>;
var<private> in_var_SV_GroupIndex: u32;

fn main_body() {
    var _1: u32;
    var _2: u32;
    var _3: u32;
    var _8: u32;
    let _4: vec3<u32> = in_var_SV_GroupID;
    let _5: u32 = in_var_SV_GroupIndex;
    let _6: u32 = in_var_SV_DispatchThreadID.x;
    scratch[_5] = input[_6];
    workgroupBarrier();
    _1 = 1u;
    _2 = 0u;
    loop {
        let _7: u32 = _1;
        _8 = _2;
        if !(_7 < 128u) {
            break;
        }
        let _9: u32 = 1u - _8;
        let _10: u32 = (_8 * 128u) + _5;
        let _11: u32 = scratch[_10];
        if _5 >= _7 {
            _3 = _11 + scratch[_10 - _7];
        } else {
            _3 = _11;
        }
        scratch[(_9 * 128u) + _5] = _3;
        workgroupBarrier();
        _1 = _7 << 1u;
        _2 = _9;
    }
    let _12: u32 = scratch[(_8 * 128u) + _5];
    output[_6] = _12;
    if _5 == 127u {
        blockSums[_4.x] = _12;
    }
}

struct main_in {
    @builtin(global_invocation_id) in_var_SV_DispatchThreadID: vec3<u32>,
    @builtin(workgroup_id) in_var_SV_GroupID: vec3<u32>,
    @builtin(local_invocation_index) in_var_SV_GroupIndex: u32,
}

@compute @workgroup_size(128, 1, 1)
fn main(input: main_in) {
    in_var_SV_DispatchThreadID = input.in_var_SV_DispatchThreadID;
    in_var_SV_GroupID = input.in_var_SV_GroupID;
    in_var_SV_GroupIndex = input.in_var_SV_GroupIndex;
    main_body();
}
