struct type_HistogramParams {
    keyCount: u32,
    shift: u32,
    @size(8) threadCount: u32,
}

@group(0) @binding(0) var<uniform> HistogramParams: type_HistogramParams;
@group(0) @binding(251) var<storage, read> keys: array<u32>;
@group(0) @binding(752) var<storage, read_write> histogram: array<atomic<u32>>;
var<workgroup> localBins: array<atomic<u32>, 64>;
var<private> in_var_SV_DispatchThreadID: vec3<u32>;
var<private> in_var_SV_GroupIndex: u32;

fn main_body() {
    var i: u32;
    var _1: bool;
    let _2: vec3<u32> = in_var_SV_DispatchThreadID;
    let _3: u32 = in_var_SV_GroupIndex;
    let _4: bool = _3 < 64u;
    if _4 {
        atomicStore(&localBins[_3], 0u);
    }
    workgroupBarrier();
    i = _2.x;
    loop {
        let i_1: u32 = i;
        if !(i_1 < HistogramParams.keyCount) {
            break;
        }
        _ = atomicAdd(&localBins[(keys[i_1] >> (HistogramParams.shift & 31u)) & 63u], 1u);
        i = i_1 + HistogramParams.threadCount;
    }
    workgroupBarrier();
    if _4 {
        _1 = atomicLoad(&localBins[_3]) != 0u;
    } else {
        _1 = false;
    }
    if _1 {
        _ = atomicAdd(&histogram[_3], atomicLoad(&localBins[_3]));
    }
}

struct main_in {
    @builtin(global_invocation_id) in_var_SV_DispatchThreadID: vec3<u32>,
    @builtin(local_invocation_index) in_var_SV_GroupIndex: u32,
}

@compute @workgroup_size(128, 1, 1)
fn main(input: main_in) {
    in_var_SV_DispatchThreadID = input.in_var_SV_DispatchThreadID;
    in_var_SV_GroupIndex = input.in_var_SV_GroupIndex;
    main_body();
}
