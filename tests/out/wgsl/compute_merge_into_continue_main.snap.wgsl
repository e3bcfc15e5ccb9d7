@group(0) @binding(0) var<storage, read_write> out: array<u32>;
var<private> gid: vec3<u32>;

fn main_body() {
    var k: u32;
    var acc: u32;
    var next: u32;
    var acc_1: u32;
    let i: u32 = gid.x;
    let n: u32 = i + 4u;
    k = 0u;
    acc = 0u;
    loop {
        let k_1: u32 = k;
        acc_1 = acc;
        if !(k_1 < n) {
            break;
        }
        if (k_1 & 1u) == 0u {
            if k_1 > 3u {
                next = acc_1 + (k_1 * 10u);
                let next_1: u32 = next;
                k = k_1 + 1u;
                acc = next_1;
                continue;
            } else {
                next = acc_1 + k_1;
                let next_1: u32 = next;
                k = k_1 + 1u;
                acc = next_1;
                continue;
            }
        } else {
            next = acc_1 + 100u;
            let next_1: u32 = next;
            k = k_1 + 1u;
            acc = next_1;
            continue;
        }
    }
    out[i] = acc_1;
}

struct main_in {
    @builtin(global_invocation_id) gid: vec3<u32>,
}

@compute @workgroup_size(16, 1, 1)
fn main(input: main_in) {
    gid = input.gid;
    main_body();
}
