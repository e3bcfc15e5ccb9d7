@group(0) @binding(0) var<storage, read> values: array<u32>;
@group(0) @binding(1) var<storage, read_write> counter: array<atomic<u32>>;
var<workgroup> group_total: atomic<u32>;
var<private> gid: vec3<u32>;
var<private> lid: u32;

fn accumulate_body() {
    let _1: bool = lid == 0u;
    if _1 {
        atomicStore(&group_total, 0u);
    }
    workgroupBarrier();
    _ = atomicAdd(&group_total, values[gid.x]);
    workgroupBarrier();
    if _1 {
        _ = atomicAdd(&counter[0u], atomicLoad(&group_total));
    }
}

struct accumulate_in {
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
}

@compute @workgroup_size(32, 1, 1)
fn accumulate(input: accumulate_in) {
    gid = input.gid;
    lid = input.lid;
    accumulate_body();
}
