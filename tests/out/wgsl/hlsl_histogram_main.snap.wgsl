struct type_HistogramParams {
    keyCount: u32,
    shift: u32,
    @size(8) threadCount: u32,
}

@group(0) @binding(0) var<uniform> HistogramParams: type_HistogramParams;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read_write> histogram: array<atomic<u32>>;
var<workgroup> localBins: array<atomic<u32>, 64>;
var<private> in_var_SV_DispatchThreadID: vec3<u32>;
var<private> in_var_SV_GroupIndex: u32;

fn main_body() {
    var _1: u32;
    var _2: bool;
    let _3: vec3<u32> = in_var_SV_DispatchThreadID;
    let _4: u32 = in_var_SV_GroupIndex;
    let _5: bool = _4 < 64u;
    if _5 {
        atomicStore(&localBins[_4], 0u);
    }
    workgroupBarrier();
    _1 = _3.x;
    loop {
        let _6: u32 = _1;
        if !(_6 < HistogramParams.keyCount) {
            break;
        }
        _ = atomicAdd(&localBins[(keys[_6] >> (HistogramParams.shift & 31u)) & 63u], 1u);
        _1 = _6 + HistogramParams.threadCount;
    }
    workgroupBarrier();
    if _5 {
        _2 = atomicLoad(&localBins[_4]) != 0u;
    } else {
        _2 = false;
    }
    if _2 {
        _ = atomicAdd(&histogram[_4], atomicLoad(&localBins[_4]));
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
