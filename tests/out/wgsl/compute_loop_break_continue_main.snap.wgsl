@group(0) @binding(0) var<storage, read_write> out: array<u32>;
var<private> gid: vec3<u32>;

fn main_body() {
    var k: u32;
    var sum: u32;
    var next_sum: u32;
    var s: u32;
    var k_1: u32;
    var sum_1: u32;
    let i: u32 = gid.x;
    let n: u32 = i + 3u;
    k = 0u;
    sum = 0u;
    loop {
        k_1 = k;
        sum_1 = sum;
        if !(k_1 < n) {
            break;
        }
        if (k_1 % 3u) == 0u {
            next_sum = sum_1;
        } else {
            if sum_1 > 50u {
                break;
            }
            next_sum = sum_1 + (k_1 * i);
        }
        s = next_sum;
        let s_1: u32 = s;
        k = k_1 + 1u;
        sum = s_1;
    }
    out[i] = sum_1;
    out[i + 64u] = k_1;
}

struct main_in {
    @builtin(global_invocation_id) gid: vec3<u32>,
}

@compute @workgroup_size(64, 1, 1)
fn main(input: main_in) {
    gid = input.gid;
    main_body();
}
