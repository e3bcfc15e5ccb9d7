struct Particle {
    position: vec3<f32>,
    age: f32,
    velocity: vec3<f32>,
    lifetime: f32,
}

struct type_Simulation {
    gravity: vec3<f32>,
    deltaTime: f32,
    particleCount: u32,
    drag: f32,
    restitution: f32,
}

@group(0) @binding(0) var<uniform> Simulation: type_Simulation;
@group(0) @binding(1) var<storage, read_write> particles: array<Particle>;
@group(0) @binding(2) var<storage, read_write> aliveList: array<u32>;
@group(0) @binding(3) var<storage, read_write> counters: array<atomic<u32>>;
var<private> in_var_SV_DispatchThreadID: vec3<u32>;

fn main_body() {
    var _1: vec3<f32>;
    var _2: vec3<f32>;
    let _3: vec3<u32> = in_var_SV_DispatchThreadID;
    loop {
        let _4: u32 = _3.x;
        if _4 >= Simulation.particleCount {
            break;
        }
        let _5: Particle = particles[_4];
        let _6: vec3<f32> = _5.position;
        let _7: f32 = _5.age;
        let _8: vec3<f32> = _5.velocity;
        let _9: f32 = _5.lifetime;
        if _7 >= _9 {
            break;
        }
        let _10: f32 = Simulation.deltaTime;
        let _11: vec3<f32> = vec3<f32>(_10, _10, _10);
        let _12: f32 = max(1.0f - (Simulation.drag * _10), 0.0f);
        let _13: vec3<f32> = (_8 + (Simulation.gravity * _11)) * vec3<f32>(_12, _12, _12);
        let _14: vec3<f32> = _6 + (_13 * _11);
        let _15: f32 = _14.y;
        if _15 < 0.0f {
            var _16: vec3<f32> = _14;
            _16.y = -_15;
            var _17: vec3<f32> = _13;
            _17.y = (-_13.y) * Simulation.restitution;
            _1 = _16;
            _2 = _17;
        } else {
            _1 = _14;
            _2 = _13;
        }
        let _18: f32 = _7 + _10;
        particles[_4] = Particle(_1, _18, _2, _9);
        if _18 < _9 {
            let _19: u32 = atomicAdd(&counters[0i], 1u);
            aliveList[_19] = _4;
        } else {
            _ = atomicAdd(&counters[1i], 1u);
        }
        break;
    }
}

struct main_in {
    @builtin(global_invocation_id) in_var_SV_DispatchThreadID: vec3<u32>,
}

@compute @workgroup_size(64, 1, 1)
fn main(input: main_in) {
    in_var_SV_DispatchThreadID = input.in_var_SV_DispatchThreadID;
    main_body();
}
