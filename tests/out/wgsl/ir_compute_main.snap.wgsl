@group(0) @binding(0) var<storage, read_write> data: array<u32>;
var<private> gid: vec3<u32>;

fn main_body() {
    let _1: u32 = gid.x;
    data[_1] = data[_1] * 2u;
}

struct main_in {
    @builtin(global_invocation_id) gid: vec3<u32>,
}

@compute @workgroup_size(64, 1, 1)
fn main(input: main_in) {
    gid = input.gid;
    main_body();
}
