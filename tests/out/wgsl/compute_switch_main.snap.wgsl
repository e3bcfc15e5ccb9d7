@group(0) @binding(0) var<storage, read> input: array<i32>;
@group(0) @binding(1) var<storage, read_write> output: array<i32>;
var<private> gid: vec3<u32>;

fn classify(x: i32) -> i32 {
    var r: i32;
    r = 0i;
    switch x {
    case -5i {
        r = 500i;
        break;
    }
    case 2i {
        r = r + 20i;
        break;
    }
    case 0i, 1i {
        r = 10i;
        r = r + 20i;
        break;
    }
    case default {
        r = -1i;
        break;
    }
    }
    return r;
}

fn main_body() {
    let _1: u32 = gid.x;
    let _2: i32 = classify(input[_1]);
    output[_1] = _2;
}

struct main_in {
    @builtin(global_invocation_id) gid: vec3<u32>,
}

@compute @workgroup_size(16, 1, 1)
fn main(input_1: main_in) {
    gid = input_1.gid;
    main_body();
}
