@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
var<workgroup> temp: array<u32, 64>;
var<private> lid: u32;
var<private> wid: vec3<u32>;

fn scan_body() {
    var offset: u32;
    var addend: u32;
    let lid_1: u32 = lid;
    let index: u32 = (wid.x * 64u) + lid_1;
    temp[lid_1] = input[index];
    workgroupBarrier();
    offset = 1u;
    loop {
        let offset_1: u32 = offset;
        if !(offset_1 < 64u) {
            break;
        }
        if lid_1 >= offset_1 {
            addend = temp[lid_1 - offset_1];
        } else {
            addend = 0u;
        }
        let addend_1: u32 = addend;
        let _1: u32 = temp[lid_1];
        workgroupBarrier();
        temp[lid_1] = _1 + addend_1;
        workgroupBarrier();
        offset = offset_1 << 1u;
    }
    output[index] = temp[lid_1];
}

struct scan_in {
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
}

@compute @workgroup_size(64, 1, 1)
fn scan(input_1: scan_in) {
    lid = input_1.lid;
    wid = input_1.wid;
    scan_body();
}
