@group(0) @binding(0) var<storage, read_write> counters: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> tickets: array<u32>;
var<private> gid: vec3<u32>;

fn main_body() {
    let i: u32 = gid.x;
    let _1: u32 = i + 1u;
    _ = atomicAdd(&counters[0u], _1);
    _ = atomicMax(&counters[1u], i);
    _ = atomicMin(&counters[2u], _1);
    _ = atomicOr(&counters[3u], 1u << ((i & 31u) & 31u));
    let _2: u32 = atomicAdd(&counters[4u], 1u);
    tickets[i] = _2;
    _ = atomicCompareExchangeWeak(&counters[5u], select(99u, 0u, i == 7u), _1).old_value;
}

struct main_in {
    @builtin(global_invocation_id) gid: vec3<u32>,
}

@compute @workgroup_size(64, 1, 1)
fn main(input: main_in) {
    gid = input.gid;
    main_body();
}
