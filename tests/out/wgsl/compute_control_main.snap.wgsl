@group(0) @binding(0) var<storage, read_write> out: array<u32>;
var<private> gid: vec3<u32>;

fn f(arg: u32) -> u32 {
    var _1: u32;
    var _2: u32;
    var _3: u32;
    var _7: u32;
    _1 = 0u;
    _2 = 0u;
    let _4: u32 = arg + 2u;
    loop {
        let _5: u32 = _2;
        if !(_5 < _4) {
            break;
        }
        _3 = 0u;
        var break_flag: bool = false;
        loop {
            let _6: u32 = _3;
            if !(_6 < 6u) {
                break;
            }
            switch (_6 + _2) % 5u {
            case 3u {
                _3 = _6 + 1u;
                continue;
            }
            case 2u {
                _7 = _1;
                if _7 > 300u {
                    break_flag = true;
                    break;
                }
                _1 = _7 + 100u;
                break;
            }
            case 1u {
                _1 = _1 + 10u;
                break;
            }
            case 0u {
                _1 = _1 + 1u;
                _1 = _1 + 10u;
                break;
            }
            case default {
                _1 = _1 + 1000u;
                break;
            }
            }
            if break_flag {
                break;
            }
            _1 = _1 + 3u;
            _3 = _6 + 1u;
        }
        let _8: u32 = _2;
        if _8 == 7u {
            _2 = _5 + 1u;
            continue;
        }
        _1 = _1 ^ _8;
        loop {
            let _9: u32 = _1 + 2u;
            _1 = _9;
            if (_9 % 7u) != 0u {
                continue;
            }
            break;
        }
        _2 = _5 + 1u;
    }
    return _1;
}

fn g(arg: u32) -> u32 {
    var _1: u32;
    if arg > 10u {
        _1 = arg * 3u;
    } else {
        return 5u;
    }
    return _1 + 1u;
}

fn h(arg: u32) -> u32 {
    if arg < 32u {
        return 1u;
    } else {
        return 2u;
    }
}

fn main_body() {
    let _1: u32 = gid.x;
    let _2: u32 = f(_1);
    out[_1] = _2;
    let _3: u32 = g(_1);
    out[_1 + 64u] = _3;
    let _4: u32 = h(_1);
    out[_1 + 128u] = _4;
}

struct main_in {
    @builtin(global_invocation_id) gid: vec3<u32>,
}

@compute @workgroup_size(64, 1, 1)
fn main(input: main_in) {
    gid = input.gid;
    main_body();
}
