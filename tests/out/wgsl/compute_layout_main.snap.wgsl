struct Item {
    a: f32,
    b_x: f32,
    b_y: f32,
    b_z: f32,
    flag: u32,
    c: array<f32, 2>,
    @size(16) d: vec2<f32>,
}

struct Item_1 {
    a: f32,
    b: vec3<f32>,
    flag: bool,
    c: array<f32, 2>,
    d: vec2<f32>,
}

@group(0) @binding(0) var<storage, read_write> items: array<Item>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
var<private> gid: vec3<u32>;

fn main_body() {
    let i: u32 = gid.x;
    let item: Item = items[i];
    let _1: Item_1 = Item_1(item.a, vec3<f32>(item.b_x, item.b_y, item.b_z), item.flag != u32(), item.c, item.d);
    let _2: vec3<f32> = _1.b;
    let _3: bool = _1.flag;
    let _4: array<f32, 2> = _1.c;
    let _5: vec2<f32> = _1.d;
    out[i] = (((((_1.a + dot(_2, vec3<f32>(1.0f, 1.0f, 1.0f))) + _4[0]) + _4[1]) + _5.x) + _5.y) + select(0.0f, 1000.0f, _3);
    items[i].flag = select(u32(), 1u, !_3);
    let vec = _2 + _2;
    items[i].b_x = vec.x;
    items[i].b_y = vec.y;
    items[i].b_z = vec.z;
}

struct main_in {
    @builtin(global_invocation_id) gid: vec3<u32>,
}

@compute @workgroup_size(4, 1, 1)
fn main(input: main_in) {
    gid = input.gid;
    main_body();
}
