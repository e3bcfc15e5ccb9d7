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
@group(0) @binding(751) var<storage, read_write> particles: array<Particle>;
@group(0) @binding(752) var<storage, read_write> aliveList: array<u32>;
@group(0) @binding(753) var<storage, read_write> counters: array<atomic<u32>>;
var<private> in_var_SV_DispatchThreadID: vec3<u32>;

fn main_body() {
    var p_position: vec3<f32>;
    var p_velocity: vec3<f32>;
    let _1: vec3<u32> = in_var_SV_DispatchThreadID;
    loop {
        let _2: u32 = _1.x;
        if _2 >= Simulation.particleCount {
            break;
        }
        let _3: Particle = particles[_2];
        let _4: vec3<f32> = _3.position;
        let _5: f32 = _3.age;
        let _6: vec3<f32> = _3.velocity;
        let _7: f32 = _3.lifetime;
        if _5 >= _7 {
            break;
        }
        let _8: f32 = Simulation.deltaTime;
        let _9: vec3<f32> = vec3<f32>(_8, _8, _8);
        let _10: f32 = max(1.0f - (Simulation.drag * _8), 0.0f);
        let _11: vec3<f32> = (_6 + (Simulation.gravity * _9)) * vec3<f32>(_10, _10, _10);
        let _12: vec3<f32> = _4 + (_11 * _9);
        let _13: f32 = _12.y;
        if _13 < 0.0f {
            var _14: vec3<f32> = _12;
            _14.y = -_13;
            var _15: vec3<f32> = _11;
            _15.y = (-_11.y) * Simulation.restitution;
            p_position = _14;
            p_velocity = _15;
        } else {
            p_position = _12;
            p_velocity = _11;
        }
        let _16: f32 = _5 + _8;
        particles[_2] = Particle(p_position, _16, p_velocity, _7);
        if _16 < _7 {
            let _17: u32 = atomicAdd(&counters[0i], 1u);
            aliveList[_17] = _2;
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
