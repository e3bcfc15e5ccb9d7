@group(0) @binding(0) var<storage, read> in: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

fn get_1(k: u32) -> u32 {
    return in[k];
}

fn put(k: u32, v: u32) {
    out[k] = v;
}

fn main_body() {
    let _1: u32 = get_1(0u);
    let _2: u32 = get_1(1u);
    let one: i32 = bitcast<i32>(_2);
    let _3: u32 = get_1(2u);
    let minus7: i32 = bitcast<i32>(_3);
    let _4: u32 = get_1(3u);
    let two: i32 = bitcast<i32>(_4);
    let umax: u32 = get_1(4u);
    let three: u32 = get_1(5u);
    let s33: u32 = get_1(6u);
    let _5: u32 = get_1(7u);
    let _6: u32 = get_1(8u);
    let f01: f32 = bitcast<f32>(_6);
    let _7: u32 = get_1(9u);
    let f02: f32 = bitcast<f32>(_7);
    let _8: u32 = get_1(10u);
    let _9: u32 = get_1(11u);
    let _10: u32 = get_1(12u);
    let _11: u32 = get_1(13u);
    let _12: u32 = get_1(14u);
    let int_min: i32 = bitcast<i32>(_12);
    let _13: u32 = get_1(15u);
    let minus1: i32 = bitcast<i32>(_13);
    put(0u, bitcast<u32>(bitcast<i32>(_1) + one));
    put(1u, bitcast<u32>(minus7 / two));
    put(2u, bitcast<u32>(minus7 % two));
    put(3u, umax / three);
    put(4u, umax % three);
    put(5u, _2 << (s33 & 31u));
    put(6u, bitcast<u32>(bitcast<i32>(_5) >> (u32(one) & 31u)));
    put(7u, umax >> (s33 & 31u));
    put(8u, bitcast<u32>(f01 + f02));
    put(9u, bitcast<u32>(bitcast<f32>(_10) / bitcast<f32>(_11)));
    put(10u, bitcast<u32>(i32(bitcast<f32>(_8))));
    put(11u, bitcast<u32>(f32(bitcast<i32>(_9))));
    put(12u, bitcast<u32>(f32(umax)));
    put(13u, bitcast<u32>(-int_min));
    put(14u, bitcast<u32>(int_min * minus1));
    put(15u, bitcast<u32>(minus7 * two));
    put(16u, bitcast<u32>(abs(minus7)));
    put(17u, bitcast<u32>(min(f01, f02)));
    put(18u, bitcast<u32>(-(f01 - f01)));
    put(19u, u32(minus7));
    put(20u, u32(minus7 < two));
    put(21u, u32(_3 < _4));
    put(22u, bitcast<u32>(f32(minus7) % f32(two)));
    put(23u, bitcast<u32>(clamp(minus7, minus1, two)));
    put(24u, firstLeadingBit(umax));
    put(25u, countOneBits(three));
}

@compute @workgroup_size(1, 1, 1)
fn main() {
    main_body();
}
