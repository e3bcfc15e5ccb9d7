#version 450

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) buffer out_1_block {
    layout(offset = 0) uint data[];
} out_1;

uint f(uint arg) {
    uint _1;
    uint _2;
    uint _3;
    uint _7;
    _1 = 0u;
    _2 = 0u;
    uint _4 = arg + 2u;
    for (;;) {
        uint _5 = _2;
        if (!(_5 < _4)) {
            break;
        }
        _3 = 0u;
        bool break_flag = false;
        for (;;) {
            uint _6 = _3;
            if (!(_6 < 6u)) {
                break;
            }
            switch ((_6 + _2) % 5u) {
            case 3u:
                {
                    _3 = _6 + 1u;
                    continue;
                }
            case 2u:
                {
                    _7 = _1;
                    if (_7 > 300u) {
                        break_flag = true;
                        break;
                    }
                    _1 = _7 + 100u;
                    break;
                }
            case 0u:
                {
                    _1 = _1 + 1u;
                }
            case 1u:
                {
                    _1 = _1 + 10u;
                    break;
                }
            default:
                {
                    _1 = _1 + 1000u;
                    break;
                }
            }
            if (break_flag) {
                break;
            }
            _1 = _1 + 3u;
            _3 = _6 + 1u;
        }
        uint _8 = _2;
        if (_8 == 7u) {
            _2 = _5 + 1u;
            continue;
        }
        _1 = _1 ^ _8;
        for (;;) {
            uint _9 = _1 + 2u;
            _1 = _9;
            if (_9 % 7u != 0u) {
                continue;
            }
            break;
        }
        _2 = _5 + 1u;
    }
    return _1;
}

uint g(uint arg) {
    uint _1;
    if (arg > 10u) {
        _1 = arg * 3u;
    } else {
        return 5u;
    }
    return _1 + 1u;
}

uint h(uint arg) {
    if (arg < 32u) {
        return 1u;
    } else {
        return 2u;
    }
}

void main() {
    uint _1 = gl_GlobalInvocationID.x;
    uint _2 = f(_1);
    out_1.data[_1] = _2;
    uint _3 = g(_1);
    out_1.data[_1 + 64u] = _3;
    uint _4 = h(_1);
    out_1.data[_1 + 128u] = _4;
}

