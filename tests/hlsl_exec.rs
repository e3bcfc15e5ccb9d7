//! Execution: compute shaders written in HLSL (the examples in examples/hlsl/ and the programs
//! in tests/hlsl_exec/) are compiled through the library facade, validated by spirv-val, run
//! on Mesa's lavapipe and their results compared with values computed here. Each shader runs
//! through every GPU voice of the differential oracle (`oneshader-oracle`: our SPIR-V at -O0
//! and at -O, our GLSL through glslang once the GLSL backend is here) on the same inputs, and
//! the voices must leave identical buffers and images (an append-style list compares as a
//! multiset) besides matching the expected values. Constant buffers are filled at the
//! offsets the reflection gives, so these tests also check that reflection matches what the
//! shader reads.
//!
//! The tests fail (never skip) when the Vulkan loader or lavapipe is missing, with a message
//! naming `cargo xtask setup`.

mod support;

use oneshader::reflect::{Reflection, Resource as Reflected, Type};
use oneshader::{CompileOptions, Compiler, OptLevel, Target, TargetEnv};
use oneshader_oracle::{Case, Inputs, Oracle, Rule, Rules, Source, Voice};
use oneshader_vulkan_harness::{Binding, Format, Gpu, Image, Resource};
use support::*;

/// The reflection of `path`'s `main` (also checking that its SPIR-V at -O0 validates).
fn reflection(path: &str) -> Reflection {
    let opts = CompileOptions::new("cs_6_0")
        .opt_level(OptLevel::O0)
        .with_reflection();
    let out = compile_file(path, &opts);
    assert_valid(&out.spirv, TargetEnv::Vulkan1_2, path);
    out.reflection.expect("asked for")
}

/// Runs `path`'s `main` through every GPU voice of the differential oracle (our SPIR-V at
/// -O0 and at -O; our GLSL through glslang; our WGSL through naga where the WGSL backend
/// takes the shader) on the same
/// `bindings` and push constants, asserts that they leave identical results (under
/// `rules`), and returns each voice's bindings and program words for the expected-value
/// checks.
fn run_voices(
    gpu: &Gpu,
    path: &str,
    bindings: Vec<Binding>,
    push: &[u32],
    groups: [u32; 3],
    rules: Rules,
) -> Vec<(Voice, Vec<Binding>, Vec<u32>)> {
    let options = CompileOptions::new("cs_6_0");
    run_voices_where(gpu, path, options, bindings, push, groups, rules, |_| true)
}

/// [`run_voices`] with compile `options` and the voices `keep` keeps only (for a shader a
/// backend refuses).
#[allow(clippy::too_many_arguments)]
fn run_voices_where(
    gpu: &Gpu,
    path: &str,
    options: CompileOptions,
    bindings: Vec<Binding>,
    push: &[u32],
    groups: [u32; 3],
    rules: Rules,
    keep: impl Fn(&Voice) -> bool,
) -> Vec<(Voice, Vec<Binding>, Vec<u32>)> {
    let source = Source::Hlsl {
        path: root().join(path),
        options,
    };
    // The WGSL voice runs where the WGSL backend takes the shader; where it does not, the
    // refusal must be one of its own (OSB02xx: an image atomic, DXC's relaxed placement).
    let (mut voices, _) = Voice::gpu_voices_for(&source).unwrap_or_else(|e| panic!("{path}: {e}"));
    voices.retain(|v| keep(v));
    let case = Case::new(path, source).unwrap_or_else(|e| panic!("{path}: {e}"));
    let inputs = Inputs::new(bindings, push.to_vec(), groups);
    let report = Oracle::new(gpu)
        .run(&case, &voices, &inputs, &rules)
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    report.assert_agreement();
    report
        .runs
        .into_iter()
        .map(|r| {
            let words = r.program.map(|p| p.words).unwrap_or_default();
            (r.voice, r.outputs, words)
        })
        .collect()
}

fn binding_of(r: &Reflection, name: &str) -> (u32, u32) {
    let res = r
        .resource(name)
        .unwrap_or_else(|| panic!("reflection lists `{name}`"));
    (res.set, res.binding)
}

/// The words of constant buffer `res`, with each named member's words placed at the offset
/// the reflection gives; an array member takes one element per `stride`.
fn cbuffer(res: &Reflected, values: &[(&str, &[u32])]) -> Vec<u32> {
    let size = res.size.expect("a buffer has a size") as usize;
    let mut words = vec![0u32; size.div_ceil(4)];
    let Some(Type::Struct { members, .. }) = &res.ty else {
        panic!("a constant buffer holds a struct")
    };
    for (name, vals) in values {
        let m = members
            .iter()
            .find(|m| m.name == *name)
            .unwrap_or_else(|| panic!("member `{name}`"));
        let at = m.offset.expect("laid out") as usize / 4;
        match &m.ty {
            Type::Array {
                stride: Some(stride),
                length,
                ..
            } => {
                assert_eq!(Some(vals.len() as u32), *length, "`{name}` length");
                for (k, v) in vals.iter().enumerate() {
                    words[at + k * *stride as usize / 4] = *v;
                }
            }
            _ => words[at..at + vals.len()].copy_from_slice(vals),
        }
    }
    words
}

/// A small deterministic generator (xorshift), so inputs vary without a dependency.
struct Rng(u32);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }

    /// A float in [lo, hi).
    fn float(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * (self.next() >> 8) as f32 / (1u32 << 24) as f32
    }
}

fn close(a: f32, b: f32, tol: f32) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

#[test]
fn blur_with_groupshared_memory_and_barriers() {
    let gpu = Gpu::new();
    const RADIUS: usize = 4;
    let (width, height) = (100u32, 3u32);
    let mut rng = Rng(0x1234_5678);
    let pixels: Vec<[f32; 4]> = (0..width * height)
        .map(|_| {
            [
                rng.float(0.0, 1.0),
                rng.float(0.0, 1.0),
                rng.float(0.0, 1.0),
                1.0,
            ]
        })
        .collect();
    let raw = [1.0f32, 0.8, 0.5, 0.25, 0.1];
    let total: f32 = raw[0] + 2.0 * raw[1..].iter().sum::<f32>();
    let weights: Vec<f32> = raw.iter().map(|w| w / total).collect();
    // Clamp-to-edge horizontal blur, summed in the shader's order.
    let mut expected = vec![[0f32; 4]; (width * height) as usize];
    for y in 0..height as i32 {
        for x in 0..width as i32 {
            let at =
                |dx: i32| pixels[(y * width as i32 + (x + dx).clamp(0, width as i32 - 1)) as usize];
            let out = &mut expected[(y * width as i32 + x) as usize];
            for (c, value) in out.iter_mut().enumerate() {
                let mut sum = weights[0] * at(0)[c];
                for (i, w) in weights.iter().enumerate().skip(1) {
                    sum += w * (at(-(i as i32))[c] + at(i as i32)[c]);
                }
                *value = sum;
            }
        }
    }
    let source: Vec<u32> = pixels.iter().flatten().map(|f| f.to_bits()).collect();
    let path = "examples/hlsl/blur.hlsl";
    let r = reflection(path);
    let params = r.resource("BlurParams").expect("the cbuffer");
    let w: Vec<u32> = weights.iter().map(|w| w.to_bits()).collect();
    assert_eq!(w.len(), RADIUS + 1);
    let cb = cbuffer(params, &[("imageSize", &[width, height]), ("weights", &w)]);
    let (s0, b0) = binding_of(&r, "BlurParams");
    let (s1, b1) = binding_of(&r, "source");
    let (s2, b2) = binding_of(&r, "destination");
    let bindings = vec![
        Binding::new(s0, b0, Resource::UniformBuffer(cb)),
        Binding::new(
            s1,
            b1,
            Resource::SampledImage(Image::new_2d(
                Format::Rgba32Float,
                width,
                height,
                source.clone(),
            )),
        ),
        Binding::new(
            s2,
            b2,
            Resource::StorageImage(Image::zeroed(Format::Rgba32Float, width, height)),
        ),
    ];
    let groups = width.div_ceil(64);
    for (level, bindings, _) in
        run_voices(&gpu, path, bindings, &[], [groups, height, 1], Rules::new())
    {
        let out = bindings[2].words();
        for (i, e) in expected.iter().enumerate() {
            for c in 0..4 {
                let got = f32::from_bits(out[i * 4 + c]);
                assert!(
                    close(got, e[c], 1e-5),
                    "pixel {i} channel {c}: {got} != {} ({level:?}, {})",
                    e[c],
                    gpu.name
                );
            }
        }
    }
}

/// A particle as the shader stores it (relaxed std430: 32 bytes).
#[derive(Clone, Copy, Debug)]
struct Particle {
    position: [f32; 3],
    age: f32,
    velocity: [f32; 3],
    lifetime: f32,
}

impl Particle {
    fn words(&self) -> [u32; 8] {
        let p = self.position;
        let v = self.velocity;
        [p[0], p[1], p[2], self.age, v[0], v[1], v[2], self.lifetime].map(f32::to_bits)
    }

    fn from_words(w: &[u32]) -> Particle {
        let f = |i: usize| f32::from_bits(w[i]);
        Particle {
            position: [f(0), f(1), f(2)],
            age: f(3),
            velocity: [f(4), f(5), f(6)],
            lifetime: f(7),
        }
    }
}

#[test]
fn particle_update_with_a_structured_buffer_and_atomics() {
    let gpu = Gpu::new();
    let count = 200u32;
    let (gravity, dt, drag, restitution) = ([0.0f32, -9.8, 0.5], 0.05f32, 0.2f32, 0.6f32);
    let mut rng = Rng(0xdead_beef);
    let particles: Vec<Particle> = (0..count)
        .map(|i| {
            let lifetime = 1.0 + (i % 7) as f32 * 0.5;
            // A third are dead already, some die during this step, the rest live on; the
            // ages sit a quarter step away from the thresholds.
            let age = match i % 3 {
                0 => lifetime + 0.25,
                1 if i % 2 == 0 => lifetime - 0.75 * dt,
                _ => rng.float(0.0, lifetime - 2.0 * dt),
            };
            Particle {
                position: [
                    rng.float(-5.0, 5.0),
                    rng.float(0.05, 3.0),
                    rng.float(-5.0, 5.0),
                ],
                age,
                velocity: [
                    rng.float(-1.0, 1.0),
                    rng.float(-8.0, 4.0),
                    rng.float(-1.0, 1.0),
                ],
                lifetime,
            }
        })
        .collect();
    // The step on the CPU, in the shader's order of operations.
    let mut expected = particles.clone();
    let mut alive = Vec::new();
    let mut died = 0u32;
    let mut bounced = 0;
    for (i, p) in expected.iter_mut().enumerate() {
        if p.age >= p.lifetime {
            continue;
        }
        let keep = (1.0 - drag * dt).max(0.0);
        for (c, g) in gravity.iter().enumerate() {
            p.velocity[c] += g * dt;
            p.velocity[c] *= keep;
            p.position[c] += p.velocity[c] * dt;
        }
        if p.position[1] < 0.0 {
            p.position[1] = -p.position[1];
            p.velocity[1] = -p.velocity[1] * restitution;
            bounced += 1;
        }
        p.age += dt;
        if p.age < p.lifetime {
            alive.push(i as u32);
        } else {
            died += 1;
        }
    }
    assert!(
        bounced > 0 && died > 0 && !alive.is_empty(),
        "every path is taken"
    );
    let path = "examples/hlsl/particles.hlsl";
    let r = reflection(path);
    let buf = r.resource("particles").expect("particles");
    let Some(Type::Array { stride, .. }) = &buf.ty else {
        panic!("a structured buffer")
    };
    assert_eq!(*stride, Some(32), "the layout this test writes");
    let sim = r.resource("Simulation").expect("the cbuffer");
    let cb = cbuffer(
        sim,
        &[
            ("gravity", &gravity.map(f32::to_bits)),
            ("deltaTime", &[dt.to_bits()]),
            ("particleCount", &[count]),
            ("drag", &[drag.to_bits()]),
            ("restitution", &[restitution.to_bits()]),
        ],
    );
    let data: Vec<u32> = particles.iter().flat_map(Particle::words).collect();
    let at = |name| binding_of(&r, name);
    let bindings = vec![
        Binding::new(
            at("Simulation").0,
            at("Simulation").1,
            Resource::UniformBuffer(cb),
        ),
        Binding::new(
            at("particles").0,
            at("particles").1,
            Resource::StorageBuffer(data),
        ),
        Binding::new(
            at("aliveList").0,
            at("aliveList").1,
            Resource::StorageBuffer(vec![u32::MAX; count as usize]),
        ),
        Binding::new(
            at("counters").0,
            at("counters").1,
            Resource::StorageBuffer(vec![0; 2]),
        ),
    ];
    // The compacted list's order depends on scheduling: its voices compare as multisets.
    let rules = Rules::new().with("aliveList", Rule::Unordered { element_words: 1 });
    for (level, bindings, _) in
        run_voices(&gpu, path, bindings, &[], [count.div_ceil(64), 1, 1], rules)
    {
        let counters = bindings[3].words();
        assert_eq!(
            counters,
            [alive.len() as u32, died],
            "alive and died ({level:?})"
        );
        // The order of the compacted list depends on scheduling; its contents do not.
        let mut list = bindings[2].words()[..alive.len()].to_vec();
        list.sort_unstable();
        assert_eq!(list, alive, "alive list ({level:?})");
        assert!(
            bindings[2].words()[alive.len()..]
                .iter()
                .all(|&w| w == u32::MAX)
        );
        let got = bindings[1].words();
        for (i, e) in expected.iter().enumerate() {
            let g = Particle::from_words(&got[i * 8..i * 8 + 8]);
            let ok = (0..3).all(|c| {
                close(g.position[c], e.position[c], 1e-5)
                    && close(g.velocity[c], e.velocity[c], 1e-5)
            }) && g.age == e.age
                && g.lifetime == e.lifetime;
            assert!(ok, "particle {i}: {g:?} != {e:?} ({level:?})");
        }
    }
}

#[test]
fn histogram_with_groupshared_and_global_atomics() {
    let gpu = Gpu::new();
    let mut rng = Rng(42);
    let keys: Vec<u32> = (0..5000).map(|_| rng.next()).collect();
    let shift = 3u32;
    let groups = 3u32;
    let mut expected = vec![0u32; 64];
    for k in &keys {
        expected[((k >> shift) & 63) as usize] += 1;
    }
    let path = "examples/hlsl/histogram.hlsl";
    let r = reflection(path);
    let cb = cbuffer(
        r.resource("HistogramParams").expect("cbuffer"),
        &[
            ("keyCount", &[keys.len() as u32]),
            ("shift", &[shift]),
            ("threadCount", &[groups * 128]),
        ],
    );
    let at = |name| binding_of(&r, name);
    let bindings = vec![
        Binding::new(
            at("HistogramParams").0,
            at("HistogramParams").1,
            Resource::UniformBuffer(cb),
        ),
        Binding::new(
            at("keys").0,
            at("keys").1,
            Resource::StorageBuffer(keys.clone()),
        ),
        Binding::new(
            at("histogram").0,
            at("histogram").1,
            Resource::StorageBuffer(vec![0; 64]),
        ),
    ];
    for (level, bindings, _) in run_voices(&gpu, path, bindings, &[], [groups, 1, 1], Rules::new())
    {
        assert_eq!(
            bindings[2].words(),
            expected.as_slice(),
            "histogram ({level:?})"
        );
    }
}

#[test]
fn prefix_sum_of_blocks() {
    let gpu = Gpu::new();
    let blocks = 4usize;
    let mut rng = Rng(7);
    let input: Vec<u32> = (0..128 * blocks).map(|_| rng.next() % 1000).collect();
    let mut expected = vec![0u32; input.len()];
    let mut sums = vec![0u32; blocks];
    for b in 0..blocks {
        let mut acc = 0;
        for i in 0..128 {
            acc += input[b * 128 + i];
            expected[b * 128 + i] = acc;
        }
        sums[b] = acc;
    }
    let path = "examples/hlsl/prefix_sum.hlsl";
    let r = reflection(path);
    let at = |name| binding_of(&r, name);
    let bindings = vec![
        Binding::new(
            at("input").0,
            at("input").1,
            Resource::StorageBuffer(input.clone()),
        ),
        Binding::new(
            at("output").0,
            at("output").1,
            Resource::StorageBuffer(vec![0; input.len()]),
        ),
        Binding::new(
            at("blockSums").0,
            at("blockSums").1,
            Resource::StorageBuffer(vec![0; blocks]),
        ),
    ];
    for (level, bindings, _) in run_voices(
        &gpu,
        path,
        bindings,
        &[],
        [blocks as u32, 1, 1],
        Rules::new(),
    ) {
        assert_eq!(bindings[1].words(), expected.as_slice(), "scan ({level:?})");
        assert_eq!(
            bindings[2].words(),
            sums.as_slice(),
            "block sums ({level:?})"
        );
    }
}

#[test]
fn tone_mapping_with_push_constants_and_a_storage_image() {
    let gpu = Gpu::new();
    let (width, height) = (20u32, 13u32);
    let exposure = 1.7f32;
    let mut rng = Rng(99);
    let hdr: Vec<f32> = (0..width * height * 4)
        .map(|_| rng.float(0.0, 4.0))
        .collect();
    let aces = |x: f32| {
        let (a, b, c, d, e) = (2.51f32, 0.03f32, 2.43f32, 0.59f32, 0.14f32);
        ((x * (a * x + b)) / (x * (c * x + d) + e)).clamp(0.0, 1.0)
    };
    let srgb = |x: f32| {
        if x <= 0.0031308 {
            x * 12.92
        } else {
            1.055 * x.powf(1.0 / 2.4) - 0.055
        }
    };
    let expected: Vec<f32> = hdr
        .chunks(4)
        .flat_map(|p| {
            [
                srgb(aces(p[0] * exposure)),
                srgb(aces(p[1] * exposure)),
                srgb(aces(p[2] * exposure)),
                p[3],
            ]
        })
        .collect();
    let path = "examples/hlsl/tonemap.hlsl";
    let r = reflection(path);
    // Push constants: exposure, then the uint2 size at the offset reflection gives.
    let pc = &r.push_constants[0];
    let Type::Struct { members, .. } = &pc.ty else {
        panic!("a struct")
    };
    let size_at = members[1].offset.expect("laid out") as usize / 4;
    let mut push = vec![0u32; pc.size as usize / 4];
    push[0] = exposure.to_bits();
    push[size_at] = width;
    push[size_at + 1] = height;
    let (set, binding) = binding_of(&r, "image");
    let bindings = vec![Binding::new(
        set,
        binding,
        Resource::StorageImage(Image::new_2d(
            Format::Rgba32Float,
            width,
            height,
            hdr.iter().map(|f| f.to_bits()).collect(),
        )),
    )];
    for (level, bindings, _) in run_voices(
        &gpu,
        path,
        bindings,
        &push,
        [width.div_ceil(8), height.div_ceil(8), 1],
        Rules::new(),
    ) {
        for (i, (&g, &e)) in bindings[0].words().iter().zip(&expected).enumerate() {
            let g = f32::from_bits(g);
            assert!(close(g, e, 1e-4), "component {i}: {g} != {e} ({level:?})");
        }
    }
}

#[test]
fn control_flow_loops_switch_and_short_circuits() {
    let gpu = Gpu::new();
    fn collatz(mut n: u32) -> u32 {
        let mut steps = 0;
        while n != 1 {
            if steps >= 200 {
                break;
            }
            n = if n & 1 != 0 { 3 * n + 1 } else { n / 2 };
            steps += 1;
        }
        steps
    }
    fn classify(x: u32, acc: &mut u32) -> u32 {
        match x % 6 {
            0 => 10,
            1 | 2 => {
                *acc += x;
                20
            }
            3 => {
                if x > 20 {
                    *acc *= 2;
                } else {
                    *acc += 1;
                }
                30
            }
            _ => {
                *acc ^= x;
                40
            }
        }
    }
    fn nested(n: u32) -> u32 {
        let mut total = 0;
        for i in 0..n {
            if i % 3 == 0 {
                continue;
            }
            let mut j = i;
            while j < n {
                if j * i > 40 {
                    break;
                }
                total += j ^ i;
                j += 2;
            }
        }
        total
    }
    let mut expected = vec![0u32; 64 * 4];
    let mut touches = 0;
    for x in 0..60u32 {
        let mut acc = x * 3;
        let kind = classify(x, &mut acc);
        let mut flags = 0;
        if x % 2 == 0 {
            touches += 1;
            if x % 4 == 0 {
                flags |= 1;
            }
        }
        if x < 5 {
            flags |= 2;
        } else {
            touches += 1;
            if x % 4 == 0 {
                flags |= 2;
            }
        }
        let o = x as usize * 4;
        expected[o] = collatz(x + 1);
        expected[o + 1] = kind * 1000 + acc;
        expected[o + 2] = nested(x % 13);
        expected[o + 3] = flags;
    }
    let path = "tests/hlsl_exec/control_flow.hlsl";
    let r = reflection(path);
    let at = |name| binding_of(&r, name);
    let bindings = vec![
        Binding::new(
            at("results").0,
            at("results").1,
            Resource::StorageBuffer(vec![0; 64 * 4]),
        ),
        Binding::new(
            at("touched").0,
            at("touched").1,
            Resource::StorageBuffer(vec![0]),
        ),
    ];
    for (level, bindings, _) in run_voices(&gpu, path, bindings, &[], [2, 1, 1], Rules::new()) {
        assert_eq!(
            bindings[0].words(),
            expected.as_slice(),
            "results ({level:?})"
        );
        assert_eq!(
            bindings[1].words(),
            [touches],
            "right operands evaluated ({level:?})"
        );
    }
}

/// How many instructions of opcode `op` a SPIR-V module holds (after the 5-word header each
/// instruction starts with its word count in the high half and its opcode in the low half).
fn count_op(words: &[u32], op: rspirv::spirv::Op) -> usize {
    let mut at = 5;
    let mut n = 0;
    while at < words.len() {
        let w = words[at];
        if w & 0xffff == op as u32 {
            n += 1;
        }
        at += ((w >> 16) as usize).max(1);
    }
    n
}

/// `[unroll]` loops compute the same at -O0 (loops) and at -O (unrolled, except the one whose
/// bound is known only at run time; the copies of the one with a `break` inside a run-once
/// loop, those of the one with a `continue` each in one of their own).
#[test]
fn unrolled_loops_compute_what_the_loops_do() {
    let gpu = Gpu::new();
    let expected: Vec<u32> = (0..64u32)
        .map(|x| {
            let mut acc = x;
            for i in 0..4u32 {
                for j in 0..=i {
                    acc = acc.wrapping_mul(3).wrapping_add(i * j).wrapping_add(x >> j);
                }
            }
            let bounded: u32 = (0..(x & 7)).map(|k| k * x).sum();
            let early: u32 = (0..8u32).take_while(|m| m * x <= 40).map(|m| m + 1).sum();
            let evens: u32 = (0..6u32)
                .filter(|q| (q + x) & 1 == 0)
                .map(|q| q * 3 + 1)
                .sum();
            (acc ^ (bounded << 1))
                .wrapping_add(early * 65536)
                .wrapping_add(evens.wrapping_mul(16_777_216))
        })
        .collect();
    let mut loops = Vec::new();
    let path = "tests/hlsl_exec/unroll.hlsl";
    let r = reflection(path);
    let at = binding_of(&r, "results");
    let bindings = vec![Binding::new(
        at.0,
        at.1,
        Resource::StorageBuffer(vec![0; 64]),
    )];
    for (level, bindings, words) in run_voices(&gpu, path, bindings, &[], [2, 1, 1], Rules::new()) {
        if matches!(level, Voice::Spirv { .. }) {
            loops.push(count_op(&words, rspirv::spirv::Op::LoopMerge));
        }
        assert_eq!(bindings[0].words(), expected.as_slice(), "{level:?}");
    }
    // At -O: the loop with a run-time bound, the run-once loop the unrolled copies of the loop
    // with a break sit in, and one run-once loop per copy (6) of the loop with a continue.
    assert_eq!(loops, [5, 8], "OpLoopMerge count at -O0 and at -O");
}

#[test]
fn integer_and_float_math() {
    let gpu = Gpu::new();
    let inputs: Vec<[f32; 2]> = (0..16)
        .map(|k| {
            let a = (k as f32 - 7.5) * 0.73;
            let b = if k == 5 {
                a
            } else {
                (k as f32 * 1.37).sin() * 3.0
            };
            [a, b]
        })
        .collect();
    let mut expected: Vec<(u32, bool)> = Vec::new(); // (bits, is a float)
    for (k, &[a, b]) in inputs.iter().enumerate() {
        let i = k as i32 - 8;
        let u = (k as u32).wrapping_mul(2_654_435_761);
        let fb = |f: f32| (f.to_bits(), true);
        let int = |v: u32| (v, false);
        expected.extend([
            int((i / 3) as u32),
            int((i % 3) as u32),
            int(u >> 7),
            int((i >> 1) as u32),
            int(u.count_ones()),
            int(u.reverse_bits()),
            int(if u == 0 {
                u32::MAX
            } else {
                31 - u.leading_zeros()
            }),
            int((i.min(-2) * i.max(3)) as u32),
            fb(a * b + a),
            fb(a.floor()),
            fb(a - a.floor()),
            fb(b.abs().sqrt()),
            fb(a + (b - a) * 0.25),
            fb(a.clamp(-1.0, 1.0)),
            int(a as i32 as u32),
            int((a < b) as u32 | (((a == b) as u32) << 1) | (i.unsigned_abs() << 2)),
        ]);
    }
    assert!(
        inputs.iter().any(|[a, b]| a == b),
        "the equality bit is exercised"
    );
    let path = "tests/hlsl_exec/math.hlsl";
    let r = reflection(path);
    let at = |name| binding_of(&r, name);
    let data: Vec<u32> = inputs.iter().flatten().map(|f| f.to_bits()).collect();
    let bindings = vec![
        Binding::new(
            at("inputs").0,
            at("inputs").1,
            Resource::StorageBuffer(data),
        ),
        Binding::new(
            at("results").0,
            at("results").1,
            Resource::StorageBuffer(vec![0; 256]),
        ),
    ];
    for (level, bindings, _) in run_voices(&gpu, path, bindings, &[], [1, 1, 1], Rules::new()) {
        for (n, (&got, &(want, is_float))) in bindings[1].words().iter().zip(&expected).enumerate()
        {
            let ok = if is_float {
                close(f32::from_bits(got), f32::from_bits(want), 1e-6)
            } else {
                got == want
            };
            assert!(
                ok,
                "thread {} result {}: {got:#x} ({}) != {want:#x} ({}) ({level:?})",
                n / 16,
                n % 16,
                f32::from_bits(got),
                f32::from_bits(want)
            );
        }
    }
}

#[test]
fn storage_image_writes_and_image_atomics() {
    let gpu = Gpu::new();
    let (width, height) = (20u32, 10u32);
    let expected: Vec<u32> = (0..height)
        .flat_map(|y| (0..width).map(move |x| (x * 7 + y * 13) ^ (x << 8)))
        .collect();
    let path = "tests/hlsl_exec/image_write.hlsl";
    let r = reflection(path);
    let at = |name| binding_of(&r, name);
    let cb = cbuffer(
        r.resource("Size").expect("cbuffer"),
        &[("size", &[width, height])],
    );
    let bindings = vec![
        Binding::new(
            at("image").0,
            at("image").1,
            Resource::StorageImage(Image::zeroed(Format::R32Uint, width, height)),
        ),
        Binding::new(
            at("counter").0,
            at("counter").1,
            Resource::StorageImage(Image::zeroed(Format::R32Uint, 1, 1)),
        ),
        Binding::new(at("Size").0, at("Size").1, Resource::UniformBuffer(cb)),
    ];
    for (level, bindings, _) in run_voices(&gpu, path, bindings, &[], [3, 2, 1], Rules::new()) {
        assert_eq!(
            bindings[0].words(),
            expected.as_slice(),
            "image ({level:?})"
        );
        assert_eq!(
            bindings[1].words(),
            [width * height],
            "atomic count ({level:?})"
        );
    }
}

/// Arrays of matrices in structured buffers (tests/hlsl_exec/matrix_arrays.hlsl): the WGSL
/// backend declares the column-major ones as arrays of transposed matrices, so element reads,
/// whole-array and whole-struct copies and row reads and writes must reach the bytes our
/// SPIR-V reaches.
#[test]
fn arrays_of_matrices_in_structured_buffers() {
    let gpu = Gpu::new();
    // S and R are 12 words: S's cm[k] (r, c) at word 6k + 2c + r (by columns), R's rm[k]
    // (r, c) at word 6k + 2r + c (by rows). Every word of buf starts as its own index, every
    // word of rbuf as 100 + its index.
    let cm = |e: usize, k: usize, r: usize, c: usize| 12 * e + 6 * k + 2 * c + r;
    let rm = |e: usize, k: usize, r: usize, c: usize| 12 * e + 6 * k + 2 * r + c;
    let buf: Vec<f32> = (0..36).map(|w| w as f32).collect();
    let rbuf: Vec<f32> = (0..24).map(|w| 100.0 + w as f32).collect();
    let expected_out = vec![
        buf[cm(0, 1, 0, 1)],
        buf[cm(0, 1, 1, 2)],
        rbuf[rm(0, 0, 2, 1)],
        buf[cm(0, 0, 1, 0)],
        buf[cm(0, 0, 0, 2)],
        rbuf[rm(0, 1, 1, 0)],
        buf[cm(0, 1, 0, 2)],
    ];
    let mut expected_buf = buf.clone();
    expected_buf[12..24].copy_from_slice(&buf[..12]); // buf[1].cm = buf[0].cm
    expected_buf[24..36].copy_from_slice(&buf[..12]); // buf[2] = buf[0]
    for (c, v) in [700.0, 800.0, 900.0].into_iter().enumerate() {
        expected_buf[cm(1, 0, 1, c)] = v; // row 1 of buf[1].cm[0]
    }
    let mut expected_rbuf = rbuf.clone();
    for w in 0..6 {
        expected_rbuf[rm(1, 1, 0, 0) + w] = rbuf[rm(0, 0, 0, 0) + w]; // rm[1] = rm[0]
        expected_rbuf[rm(1, 0, 0, 0) + w] = rbuf[rm(0, 1, 0, 0) + w]; // rm[0] = rm[1]
    }
    let path = "tests/hlsl_exec/matrix_arrays.hlsl";
    let r = reflection(path);
    let at = |name| binding_of(&r, name);
    let words = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
    let bindings = vec![
        Binding::new(
            at("buf").0,
            at("buf").1,
            Resource::StorageBuffer(words(&buf)),
        ),
        Binding::new(
            at("rbuf").0,
            at("rbuf").1,
            Resource::StorageBuffer(words(&rbuf)),
        ),
        Binding::new(
            at("outp").0,
            at("outp").1,
            Resource::StorageBuffer(vec![0; expected_out.len()]),
        ),
    ];
    let runs = run_voices(&gpu, path, bindings, &[], [1, 1, 1], Rules::new());
    assert!(
        runs.iter().any(|(v, ..)| matches!(v, Voice::Wgsl { .. })),
        "the WGSL voice ran"
    );
    let floats = |b: &Binding| {
        b.words()
            .iter()
            .map(|&w| f32::from_bits(w))
            .collect::<Vec<f32>>()
    };
    for (voice, bindings, _) in runs {
        assert_eq!(floats(&bindings[2]), expected_out, "reads ({voice:?})");
        assert_eq!(floats(&bindings[0]), expected_buf, "buf writes ({voice:?})");
        assert_eq!(
            floats(&bindings[1]),
            expected_rbuf,
            "rbuf writes ({voice:?})"
        );
    }
}

/// Matrices of float2 rows or columns in a constant buffer (tests/hlsl_exec/cbuffer_matrices.hlsl):
/// DXC's matrix stride of 16 is not WGSL's 8, so the WGSL backend declares one vector member
/// per stored row or column; every voice must read the same words.
#[test]
fn float2_matrices_in_a_constant_buffer() {
    let gpu = Gpu::new();
    let path = "tests/hlsl_exec/cbuffer_matrices.hlsl";
    let r = reflection(path);
    let res = r.resource("C").expect("reflection lists `C`");
    let Some(Type::Struct { members, .. }) = &res.ty else {
        panic!("a constant buffer holds a struct")
    };
    let offsets: Vec<(String, u32)> = members
        .iter()
        .map(|m| (m.name.clone(), m.offset.expect("laid out")))
        .collect();
    let want: Vec<(String, u32)> = [("a", 0), ("cm", 16), ("rm", 48), ("b", 96), ("k", 100)]
        .iter()
        .map(|&(n, o)| (n.to_string(), o))
        .collect();
    assert_eq!(offsets, want, "DXC's constant-buffer placement");
    // Every word is 1000 + its index, but k (word 25) = 1.
    let mut words: Vec<u32> = (0..26).map(|w| (1000.0 + w as f32).to_bits()).collect();
    words[25] = 1;
    let w = |i: usize| 1000.0 + i as f32;
    let expected = vec![
        w(8),  // cm[0][1]: column 1 (word 8), component 0
        w(5),  // cm[1][0]: column 0 (word 4), component 1
        w(21), // rm[2][1]: row 2 (word 20), component 1
        w(16), // rm[1][0]
        w(5),  // cm[1] = (column 0's [1], column 1's [1])
        w(9),
        w(16), // rm[1]
        w(17),
        w(9),              // whole cm [1][1]
        w(13),             // whole rm [0][1]
        w(8) + 2.0 * w(9), // mul(float2(1, 2), cm).y
        w(24) + w(0),      // b + a
    ];
    let (cs, cb) = binding_of(&r, "C");
    let (os, ob) = binding_of(&r, "outp");
    let bindings = vec![
        Binding::new(cs, cb, Resource::UniformBuffer(words)),
        Binding::new(os, ob, Resource::StorageBuffer(vec![0; expected.len()])),
    ];
    let runs = run_voices(&gpu, path, bindings, &[], [1, 1, 1], Rules::new());
    assert!(
        runs.iter().any(|(v, ..)| matches!(v, Voice::Wgsl { .. })),
        "the WGSL voice ran"
    );
    for (voice, bindings, _) in runs {
        let got: Vec<f32> = bindings[1]
            .words()
            .iter()
            .map(|&b| f32::from_bits(b))
            .collect();
        assert_eq!(got, expected, "reads ({voice:?})");
    }
}

/// `f32tof16` and `f16tof32` (tests/hlsl_exec/half_conversions.hlsl), scalar and vector, through
/// every voice (the WGSL one prints them with `pack2x16float`/`unpack2x16float`): halves of
/// floats in f16's normal range, rounded to nearest even, and floats of halves whose high 16
/// bits are ignored. The expected bits are worked out by hand in the comments.
#[test]
fn half_conversions() {
    let gpu = Gpu::new();
    // (float, its half's bits)
    let to_half: [(f32, u32); 12] = [
        (1.0, 0x3c00),
        (-2.5, 0xc100),               // -1.25 * 2^1: exponent 16, mantissa 0x100
        (65504.0, 0x7bff),            // the largest finite half
        (-65504.0, 0xfbff),           //
        (0.1, 0x2e66),                // 1.6 * 2^-4: mantissa 614.4 rounds to 614
        (1.0 / 3.0, 0x3555),          // 1.333 * 2^-2: mantissa 341.33 rounds to 341
        (1.0 + 1.0 / 2048.0, 0x3c00), // halfway between mantissas 0 and 1: the even one
        (1.0 + 3.0 / 2048.0, 0x3c02), // halfway between 1 and 2: the even one
        (1.0 / 16384.0, 0x0400),      // 2^-14, the smallest normal half
        (-0.0, 0x8000),
        (1000.0, 0x63d0), // 1.953125 * 2^9: exponent 24, mantissa 976
        (-0.75, 0xba00),  // -1.5 * 2^-1: exponent 14, mantissa 512
    ];
    // (u32 holding a half in its low bits, the float)
    let from_half: [(u32, f32); 12] = [
        (0x3c00, 1.0),
        (0xc100, -2.5),
        (0x7bff, 65504.0),
        (0x0001_3c00, 1.0), // the high half is ignored
        (0xffff_c100, -2.5),
        (0x2e66, 0.099_975_586), // (1 + 614/1024) / 16 = 0.0999755859375
        (0x0400, 1.0 / 16384.0),
        (0x8000, -0.0),
        (0x7c00, f32::INFINITY),
        (0x3555, 0.333_251_95), // (1 + 341/1024) / 4 = 0.333251953125
        (0xfc00, f32::NEG_INFINITY),
        (0xabcd_63d0, 1000.0),
    ];
    // The decimals above are the f32s of the exact halves.
    assert_eq!(0.099_975_586f32, (1.0 + 614.0 / 1024.0) / 16.0);
    assert_eq!(0.333_251_95f32, (1.0 + 341.0 / 1024.0) / 4.0);
    let path = "tests/hlsl_exec/half_conversions.hlsl";
    let r = reflection(path);
    let at = |name| binding_of(&r, name);
    let bindings = vec![
        Binding::new(
            at("floats").0,
            at("floats").1,
            Resource::StorageBuffer(to_half.iter().map(|(f, _)| f.to_bits()).collect()),
        ),
        Binding::new(
            at("halves").0,
            at("halves").1,
            Resource::StorageBuffer(from_half.iter().map(|&(h, _)| h).collect()),
        ),
        Binding::new(
            at("packed").0,
            at("packed").1,
            Resource::StorageBuffer(vec![0xdead_beef; 12]),
        ),
        Binding::new(
            at("unpacked").0,
            at("unpacked").1,
            Resource::StorageBuffer(vec![0xdead_beef; 12]),
        ),
    ];
    let runs = run_voices(&gpu, path, bindings, &[], [1, 1, 1], Rules::new());
    assert!(
        runs.iter().any(|(v, ..)| matches!(v, Voice::Wgsl { .. })),
        "the WGSL voice ran"
    );
    let want_packed: Vec<u32> = to_half.iter().map(|&(_, h)| h).collect();
    let want_unpacked: Vec<u32> = from_half.iter().map(|(_, f)| f.to_bits()).collect();
    for (voice, bindings, _) in runs {
        assert_eq!(bindings[2].words(), want_packed, "f32tof16 ({voice:?})");
        assert_eq!(bindings[3].words(), want_unpacked, "f16tof32 ({voice:?})");
    }
}

/// Buffer structs whose first member is at a non-zero offset
/// (tests/hlsl_exec/offset_structs.hlsl): the WGSL backend declares a leading padding member;
/// every voice reads the members at their offsets and leaves the padding bytes alone.
#[test]
fn structs_whose_first_member_is_at_an_offset() {
    let gpu = Gpu::new();
    let path = "tests/hlsl_exec/offset_structs.hlsl";
    let r = reflection(path);
    let res = r.resource("cb").expect("reflection lists `cb`");
    let Some(Type::Struct { members, .. }) = &res.ty else {
        panic!("a constant buffer holds a struct")
    };
    let offsets: Vec<(String, u32)> = members
        .iter()
        .map(|m| (m.name.clone(), m.offset.expect("laid out")))
        .collect();
    let want: Vec<(String, u32)> = [("a", 4), ("k", 8), ("s", 16), ("b", 48)]
        .iter()
        .map(|&(n, o)| (n.to_string(), o))
        .collect();
    assert_eq!(offsets, want, "the constant buffer's placement");
    const JUNK: u32 = 0xdead_beef;
    const UNTOUCHED: u32 = 0xcafe_f00d;
    let f = |x: f32| x.to_bits();
    // C: a at word 1, k at 2, s.x at 5 (s at 16, x at 4 in it), s.y at 8..12, b at 12.
    let mut cb = vec![JUNK; 16];
    cb[1] = f(1.0);
    cb[2] = f(2.0);
    cb[5] = f(3.0);
    cb[8..12].copy_from_slice(&[f(10.0), f(20.0), f(30.0), f(40.0)]);
    cb[12] = f(5.0);
    // E: 24 bytes (words): padding 0 and 1, a at 2 and 3, c at 4, the tail 5.
    let ins = vec![
        JUNK,
        JUNK,
        f(1.5),
        f(-2.0),
        7,
        JUNK,
        JUNK,
        JUNK,
        f(0.25),
        f(4.0),
        100,
        JUNK,
    ];
    // a * k + s.y.zw; c + s.x + a + b
    let expected = vec![
        UNTOUCHED,
        UNTOUCHED,
        f(33.0),
        f(36.0),
        16,
        UNTOUCHED,
        UNTOUCHED,
        UNTOUCHED,
        f(30.5),
        f(48.0),
        109,
        UNTOUCHED,
    ];
    let at = |name| binding_of(&r, name);
    let bindings = vec![
        Binding::new(at("cb").0, at("cb").1, Resource::UniformBuffer(cb)),
        Binding::new(at("ins").0, at("ins").1, Resource::StorageBuffer(ins)),
        Binding::new(
            at("outs").0,
            at("outs").1,
            Resource::StorageBuffer(vec![UNTOUCHED; 12]),
        ),
    ];
    // GLSL cannot state an offset on a struct nested in a block (OSB0105): its voice is left
    // out.
    let glsl = Compiler::new().compile_file(
        root().join(path),
        &CompileOptions::new("cs_6_0").target(Target::Glsl),
    );
    let Err(e) = glsl else {
        panic!("the GLSL backend refuses it")
    };
    let e = e.diagnostics.render();
    assert!(e.contains("error[OSB0105]"), "{e}");
    let options = CompileOptions::new("cs_6_0");
    let runs = run_voices_where(
        &gpu,
        path,
        options,
        bindings,
        &[],
        [1, 1, 1],
        Rules::new(),
        |v| !matches!(v, Voice::Glsl { .. }),
    );
    assert!(
        runs.iter().any(|(v, ..)| matches!(v, Voice::Wgsl { .. })),
        "the WGSL voice ran"
    );
    assert!(
        runs.iter().any(|(v, ..)| matches!(v, Voice::Spirv { .. })),
        "our SPIR-V ran"
    );
    for (voice, bindings, _) in runs {
        assert_eq!(bindings[2].words(), expected, "outs ({voice:?})");
    }
}

/// 16-bit floats (tests/hlsl_exec/half_math.hlsl, `-enable-16bit-types`): the WGSL voice
/// declares them `f16` behind `enable f16;` (and splits an f16 with `frexp` of its f32);
/// every result is exact in f16, so every voice must give these bits.
#[test]
fn half_precision_arithmetic() {
    let gpu = Gpu::new();
    let path = "tests/hlsl_exec/half_math.hlsl";
    let r = reflection(path);
    let at = |name| binding_of(&r, name);
    let f = |x: f32| x.to_bits();
    let (nan, inf) = (f32::NAN, f32::INFINITY);
    let inp: Vec<u32> = [
        [1.0, 2.0, 3.0, 0.5],
        [-2.5, 0.25, 6.0, -3.0],
        [0.5, 4.0, 1.0, 2.0],
        [7.0, -1.0, 0.125, -0.75],
    ]
    .iter()
    .flatten()
    .map(|&x| f(x))
    .collect();
    let cls: Vec<u32> = [
        [nan, inf, 1.0, 0.0],
        [1.0, -inf, nan, 0.0],
        [inf, 1.0, -inf, 0.0],
        [0.0, 0.0, 65504.0, 0.0],
    ]
    .iter()
    .flatten()
    .map(|&x| f(x))
    .collect();
    // a = x * y + 1.5; v = (x, y, z) * a - (z, y, x); s = saturate(w) + max(x, y) +
    // min(z, 2) + clamp(w, -1, 1)
    let expected_out: Vec<u32> = [
        [0.5, 5.0, 9.5, 5.0],            // a = 3.5
        [-8.1875, -0.03125, 7.75, 1.25], // a = 0.875
        [0.75, 10.0, 3.0, 7.0],          // a = 3.5
        [-38.625, 6.5, -7.6875, 6.375],  // a = -5.5
    ]
    .iter()
    .flatten()
    .map(|&x| f(x))
    .collect();
    // isnan(c.x) | isinf(c.y) << 1 | isfinite(c.z) << 2 | (uint)(int)x << 3
    let expected_flags = vec![1 | 2 | 4 | 8, 2 | ((-2i32 as u32) << 3), 0, 4 | (7 << 3)];
    // frexp(z): 3 = 0.75 * 2^2, 6 = 0.75 * 2^3, 1 = 0.5 * 2^1, 0.125 = 0.5 * 2^-2
    let expected_parts: Vec<u32> = [0.75, 2.0, 0.75, 3.0, 0.5, 1.0, 0.5, -2.0]
        .iter()
        .map(|&x: &f32| f(x))
        .collect();
    let bindings = vec![
        Binding::new(at("inp").0, at("inp").1, Resource::StorageBuffer(inp)),
        Binding::new(at("cls").0, at("cls").1, Resource::StorageBuffer(cls)),
        Binding::new(
            at("outp").0,
            at("outp").1,
            Resource::StorageBuffer(vec![0; 16]),
        ),
        Binding::new(
            at("flags").0,
            at("flags").1,
            Resource::StorageBuffer(vec![0; 4]),
        ),
        Binding::new(
            at("parts").0,
            at("parts").1,
            Resource::StorageBuffer(vec![0; 8]),
        ),
    ];
    let mut options = CompileOptions::new("cs_6_2");
    options.enable_16bit_types = true;
    let wgsl = Compiler::new()
        .compile_file(root().join(path), &options.clone().target(Target::Wgsl))
        .expect("WGSL")
        .wgsl
        .expect("WGSL text");
    assert!(
        wgsl.starts_with("// naga capabilities: SHADER_FLOAT16\n\nenable f16;\n"),
        "{wgsl}"
    );
    assert!(wgsl.contains("vec4<f16>("), "{wgsl}");
    let runs = run_voices_where(
        &gpu,
        path,
        options,
        bindings,
        &[],
        [1, 1, 1],
        Rules::new(),
        |_| true,
    );
    assert!(
        runs.iter().any(|(v, ..)| matches!(v, Voice::Wgsl { .. })),
        "the WGSL voice ran"
    );
    for (voice, bindings, _) in runs {
        assert_eq!(bindings[2].words(), expected_out, "outp ({voice:?})");
        assert_eq!(bindings[3].words(), expected_flags, "flags ({voice:?})");
        assert_eq!(bindings[4].words(), expected_parts, "frexp ({voice:?})");
    }
}

/// The options of the 16-bit shaders: `cs_6_2 -enable-16bit-types`.
fn options_16bit() -> CompileOptions {
    let mut options = CompileOptions::new("cs_6_2");
    options.enable_16bit_types = true;
    options
}

/// HLSL's `firstbithigh` of a `bits`-wide integer `x` (its low `bits` bits), signed or not:
/// the position of the highest set bit, or for a negative signed value of the highest bit
/// that differs from the sign bit; `u32::MAX` when there is none.
fn first_bit_high(x: u64, bits: u32, signed: bool) -> u32 {
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    let mut x = x & mask;
    if signed && (x >> (bits - 1)) & 1 == 1 {
        x = !x & mask;
    }
    if x == 0 {
        u32::MAX
    } else {
        63 - x.leading_zeros()
    }
}

/// HLSL's `firstbitlow`: the position of the lowest set bit, `u32::MAX` when there is none.
fn first_bit_low(x: u64, bits: u32) -> u32 {
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    let x = x & mask;
    if x == 0 { u32::MAX } else { x.trailing_zeros() }
}

/// Bit intrinsics of 16- and 64-bit integers (tests/hlsl_exec/bit_widths.hlsl,
/// `-enable-16bit-types`) on run-time inputs, at -O0 and -O (the constant folder cannot hide
/// them): every SPIR-V voice validates with both spirv-vals and computes what the reference
/// functions here compute. Issue 26, reproducer 5.
#[test]
fn bit_intrinsics_of_16_and_64_bit_integers() {
    let gpu = Gpu::new();
    let path = "tests/hlsl_exec/bit_widths.hlsl";
    let options = options_16bit();
    for level in [OptLevel::O0, OptLevel::O] {
        for env in [TargetEnv::Vulkan1_0, TargetEnv::Vulkan1_2] {
            let out = compile_file(path, &options.clone().opt_level(level).target_env(env));
            assert_valid(&out.spirv, env, path);
        }
    }
    let mut rng = Rng(0x1234_5678);
    let mut words: Vec<(u32, u32)> = vec![
        (0, 0),
        (u32::MAX, u32::MAX),
        (1, 0),
        (0, 1),
        (0x8000_0000, 0),
        (0, 0x8000_0000),
        (0xffff_fffe, 0xffff_ffff),
        (0x0000_8000, 0x7fff_ffff),
        (0x7fff_0000, 0xffff_0000),
        (0x0001_0000, 0x0000_ffff),
    ];
    while words.len() < 16 {
        let lo = rng.next() >> (rng.next() % 32);
        let hi = rng.next() << (rng.next() % 32);
        words.push((lo, hi));
    }
    const SLOTS: usize = 24;
    let inp: Vec<u32> = words.iter().flat_map(|&(l, h)| [l, h]).collect();
    let bindings = vec![
        Binding::new(0, 0, Resource::StorageBuffer(inp)),
        Binding::new(0, 1, Resource::StorageBuffer(vec![0xdead_beef; 16 * SLOTS])),
    ];
    let runs = run_voices_where(
        &gpu,
        path,
        options,
        bindings,
        &[],
        [1, 1, 1],
        Rules::new(),
        |_| true,
    );
    let mut want = Vec::new();
    for &(lo, hi) in &words {
        let u64v = (u64::from(hi) << 32) | u64::from(lo);
        let u16v = u64::from(lo & 0xffff);
        let s16v = u64::from(lo >> 16);
        let rev16 = |x: u64| u32::from((x as u16).reverse_bits());
        let r64 = u64v.reverse_bits();
        let v16y = u64::from(hi & 0xffff);
        want.extend_from_slice(&[
            u64v.count_ones(),
            u64v.count_ones(),
            u16v.count_ones(),
            s16v.count_ones(),
            r64 as u32,
            (r64 >> 32) as u32,
            rev16(u16v),
            // reversebits of the int16_t, sign-extended to int.
            i32::from(rev16(s16v) as u16 as i16) as u32,
            first_bit_high(u64v, 64, false),
            first_bit_high(u64v, 64, true),
            first_bit_low(u64v, 64),
            first_bit_low(u64v, 64),
            first_bit_high(u16v, 16, false),
            first_bit_high(s16v, 16, true),
            first_bit_low(u16v, 16),
            first_bit_low(s16v, 16),
            u16v.count_ones(),
            v16y.count_ones(),
            first_bit_high(u64v, 64, true),
            first_bit_high(!u64v, 64, true),
            rev16(u16v) | (rev16(v16y) << 16),
            first_bit_high(u64::from(lo), 32, true),
            u32::from(
                (u16v as u16)
                    .wrapping_mul(3)
                    .wrapping_add((v16y as u16).wrapping_mul(5)),
            ),
            u64v.wrapping_mul(7)
                .wrapping_add(u64::from(lo).wrapping_mul(u64v)) as u32,
        ]);
    }
    assert_eq!(want.len(), 16 * SLOTS);
    let mut spirv_voices = 0;
    for (voice, bindings, _) in runs {
        spirv_voices += usize::from(matches!(voice, Voice::Spirv { .. }));
        let got = bindings[1].words();
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(
                g,
                w,
                "{voice:?}: thread {}, slot {} (input {:08x} {:08x})",
                k / SLOTS,
                k % SLOTS,
                words[k / SLOTS].1,
                words[k / SLOTS].0
            );
        }
    }
    assert_eq!(spirv_voices, 2, "SPIR-V at -O0 and at -O ran");
}

/// The bits of the half of `x`, a float a half holds exactly (zero or normal).
fn exact_half(x: f32) -> u32 {
    if x == 0.0 {
        return 0;
    }
    let b = x.to_bits();
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    assert!(
        (1..31).contains(&exp) && b & 0x1fff == 0,
        "{x} is not an exact half"
    );
    ((b >> 16) & 0x8000) | ((exp as u32) << 10) | ((b >> 13) & 0x3ff)
}

/// A texture and a storage image of 16-bit floats (tests/hlsl_exec/half_images.hlsl,
/// `-enable-16bit-types`, issue 26 reproducer 4): both are 32-bit image types in the SPIR-V
/// (Vulkan forbids a `half` sampled type), read and written with conversions, at -O0 and -O,
/// validated by both spirv-vals; the storage image holds every texel doubled.
#[test]
fn textures_and_storage_images_of_halves() {
    let gpu = Gpu::new();
    let path = "tests/hlsl_exec/half_images.hlsl";
    let options = options_16bit();
    for level in [OptLevel::O0, OptLevel::O] {
        for env in [TargetEnv::Vulkan1_0, TargetEnv::Vulkan1_2] {
            let out = compile_file(path, &options.clone().opt_level(level).target_env(env));
            assert_valid(&out.spirv, env, path);
            let text = oneshader::backends::spirv::disassemble(&out.spirv).expect("parses");
            // Every image's sampled type is a 32-bit float.
            let images: Vec<&str> = text
                .lines()
                .filter_map(|l| l.split("OpTypeImage ").nth(1))
                .filter_map(|rest| rest.split_whitespace().next())
                .collect();
            assert_eq!(images.len(), 2, "{text}");
            for id in images {
                let def = format!("{id} = OpTypeFloat 32");
                assert!(text.lines().any(|l| l.trim() == def), "{id}: {text}");
            }
        }
    }
    let (w, h) = (8u32, 8u32);
    // Channel c of texel (x, y): x + 8y + c / 4, exact in f16; doubled still exact.
    let value = |x: u32, y: u32, c: u32| (x + 8 * y) as f32 + c as f32 * 0.25;
    let pack = |f: &dyn Fn(u32, u32, u32) -> f32| -> Vec<u32> {
        (0..h)
            .flat_map(|y| (0..w).map(move |x| (x, y)))
            .flat_map(|(x, y)| {
                [
                    exact_half(f(x, y, 0)) | (exact_half(f(x, y, 1)) << 16),
                    exact_half(f(x, y, 2)) | (exact_half(f(x, y, 3)) << 16),
                ]
            })
            .collect()
    };
    let texels = pack(&value);
    let want = pack(&|x, y, c| 2.0 * value(x, y, c));
    let bindings = vec![
        Binding::new(
            0,
            0,
            Resource::SampledImage(Image::new_2d(Format::Rgba16Float, w, h, texels)),
        ),
        Binding::new(
            0,
            1,
            Resource::StorageImage(Image::zeroed(Format::Rgba16Float, w, h)),
        ),
        Binding::new(
            0,
            2,
            Resource::Sampler(oneshader_vulkan_harness::Sampler { compare: false }),
        ),
    ];
    let runs = run_voices_where(
        &gpu,
        path,
        options,
        bindings,
        &[],
        [1, 1, 1],
        Rules::new(),
        |_| true,
    );
    for (voice, bindings, _) in runs {
        assert_eq!(bindings[1].words(), want.as_slice(), "{voice:?}");
    }
}

/// `vk::SampledTexture2D` on lavapipe: its SPIR-V holds the texture and a sampler variable at
/// one binding (a combined image sampler descriptor, which Vulkan lets both read), validated
/// by both spirv-vals at -O0 and -O; the shader's SampleLevel, Load, subscript, GatherRed and
/// GetDimensions read what the descriptor holds, in both SPIR-V voices.
#[test]
fn sampled_texture_reads_its_combined_descriptor() {
    let gpu = Gpu::new();
    let path = "tests/hlsl_exec/sampled_texture.hlsl";
    for level in [OptLevel::O0, OptLevel::O] {
        let out = compile_file(path, &CompileOptions::new("cs_6_0").opt_level(level));
        assert_valid(&out.spirv, TargetEnv::Vulkan1_2, path);
        let text = oneshader::backends::spirv::disassemble(&out.spirv).expect("parses");
        let at0: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("OpDecorate") && l.trim_end().ends_with("Binding 0"))
            .collect();
        assert_eq!(
            at0.len(),
            2,
            "the texture and its sampler at binding 0: {text}"
        );
        assert!(text.contains("OpTypeSampler"), "{text}");
    }
    let (w, h) = (8u32, 4u32);
    // Channel c of texel (x, y) holds x + 10y + 0.25c, exact in f32.
    let value = |x: u32, y: u32, c: u32| (x + 10 * y) as f32 + 0.25 * c as f32;
    let texels: Vec<u32> = (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .flat_map(|(x, y)| (0..4).map(move |c| value(x, y, c).to_bits()))
        .collect();
    let bindings = vec![
        Binding::new(
            0,
            0,
            Resource::CombinedImageSampler(
                Image::new_2d(Format::Rgba32Float, w, h, texels),
                oneshader_vulkan_harness::Sampler { compare: false },
            ),
        ),
        Binding::new(0, 1, Resource::StorageBuffer(vec![0; (w * h * 4) as usize])),
    ];
    // The GLSL and WGSL voices bind a separate texture and sampler: only the SPIR-V voices
    // read a combined descriptor.
    let runs = run_voices_where(
        &gpu,
        path,
        CompileOptions::new("cs_6_0"),
        bindings,
        &[],
        [1, 1, 1],
        Rules::new(),
        |v| matches!(v, Voice::Spirv { .. }),
    );
    assert!(runs.len() >= 2, "both SPIR-V voices ran");
    let red = |x: i32, y: i32| {
        let cx = x.clamp(0, w as i32 - 1) as u32;
        let cy = y.clamp(0, h as i32 - 1) as u32;
        value(cx, cy, 0)
    };
    for (voice, bindings, _) in runs {
        let out = bindings[1].words();
        for y in 0..h {
            for x in 0..w {
                let i = ((y * w + x) * 4) as usize;
                let got: Vec<f32> = out[i..i + 4].iter().map(|b| f32::from_bits(*b)).collect();
                let (xi, yi) = (x as i32, y as i32);
                let want = [
                    value(x, y, 0) + value(x, y, 1),
                    value(x, y, 2) + value(x, y, 3),
                    red(xi - 1, yi) + red(xi, yi),
                    red(xi, yi - 1) + red(xi - 1, yi - 1) + (w * 100 + h) as f32,
                ];
                assert_eq!(got, want, "texel ({x}, {y}), {voice:?}");
            }
        }
    }
}

/// Functions returning buffers, resource locals and parameters (issue 26, item 4) on
/// lavapipe: each call names the buffer its `return` reaches for the call's arguments
/// (`pick(0)` `a`, `pick(1)` `b`, `second(1)` `d`), every voice agrees and the values
/// are the ones computed here from the buffers' contents.
#[test]
fn functions_returning_resources_name_their_globals() {
    let gpu = Gpu::new();
    let path = "tests/hlsl_exec/resource_returns.hlsl";
    for level in [OptLevel::O0, OptLevel::O] {
        for env in [TargetEnv::Vulkan1_0, TargetEnv::Vulkan1_2] {
            let out = compile_file(
                path,
                &CompileOptions::new("cs_6_0")
                    .opt_level(level)
                    .target_env(env),
            );
            assert_valid(&out.spirv, env, path);
        }
    }
    let a = [1u32, 2, 3, 4];
    let b = [5u32, 6, 7, 8];
    let c = [9u32, 1, 2, 3];
    let d = [4u32, 5, 6, 7];
    let r = reflection(path);
    let bind = |name: &str, words: Vec<u32>| {
        let (s, b) = binding_of(&r, name);
        Binding::new(s, b, Resource::StorageBuffer(words))
    };
    let bindings = vec![
        bind("a", a.to_vec()),
        bind("b", b.to_vec()),
        bind("c", c.to_vec()),
        bind("d", d.to_vec()),
        bind("o", vec![0; 4]),
    ];
    let want: Vec<u32> = (0..4)
        .map(|i| {
            let mut v = a[i] + 10 * b[i] + 100 * b[i] + 1000 * d[i] + 10000 * 2 * a[i];
            if i > 1 {
                v += 100000 * c[i];
            }
            v
        })
        .collect();
    for (voice, bindings, _) in run_voices(&gpu, path, bindings, &[], [1, 1, 1], Rules::new()) {
        assert_eq!(bindings[4].words(), want.as_slice(), "{voice:?}");
    }
}

/// Templates as engine code writes them (issue 26, item 3) on lavapipe, -enable-16bit-types
/// for `uint16_t`: default template and function arguments (one of another struct type),
/// static members of instances, a full specialization, enum-scoped names; every voice agrees
/// with the values computed here.
#[test]
fn templates_with_defaults_static_members_and_specializations() {
    let gpu = Gpu::new();
    let path = "tests/hlsl_exec/templates.hlsl";
    let options = options_16bit();
    for level in [OptLevel::O0, OptLevel::O] {
        let out = compile_file(path, &options.clone().opt_level(level));
        assert_valid(&out.spirv, TargetEnv::Vulkan1_2, path);
    }
    let src = [7u32, 11, 13, 17];
    let bindings = vec![
        Binding::new(0, 0, Resource::StorageBuffer(src.to_vec())),
        Binding::new(0, 1, Resource::StorageBuffer(vec![0; 32])),
    ];
    let want: Vec<u32> = (0..4u32)
        .flat_map(|i| {
            let s = src[i as usize];
            [
                s,
                s,
                src[(3 - i) as usize],
                4 * 2 + 2 * 2,
                2 * i,
                (i + 100) + 1000 * i,
                3 * i + 10 * 5 * i,
                5 + 10 * 3,
            ]
        })
        .collect();
    let runs = run_voices_where(
        &gpu,
        path,
        options,
        bindings,
        &[],
        [1, 1, 1],
        Rules::new(),
        |_| true,
    );
    for (voice, bindings, _) in runs {
        assert_eq!(bindings[1].words(), want.as_slice(), "{voice:?}");
    }
}

/// Byte `k` of `w`, zero- or sign-extended.
fn byte_of(w: u32, k: u32, signed: bool) -> i64 {
    let b = (w >> (8 * k)) & 0xFF;
    if signed {
        b as u8 as i8 as i64
    } else {
        b as i64
    }
}

/// The packed 8-bit intrinsics and dot2add (issue 26, item 6) on lavapipe on run-time
/// inputs, at -O0 and -O in every voice, against a reference written here from D3D's
/// definitions (the low byte of each component; clamps to 0..255 and -128..127; bytes zero- or
/// sign-extended; `acc + sum(a_k * b_k)`; `acc + a.x*b.x + a.y*b.y` in float).
#[test]
fn packed_8bit_intrinsics_and_dot2add() {
    let gpu = Gpu::new();
    let path = "tests/hlsl_exec/packed8.hlsl";
    let options = options_16bit();
    for level in [OptLevel::O0, OptLevel::O] {
        let out = compile_file(path, &options.clone().opt_level(level));
        assert_valid(&out.spirv, TargetEnv::Vulkan1_2, path);
    }
    let n = 16usize;
    let mut rng = Rng(0x5eed_2626);
    let words: Vec<u32> = (0..2 * n).map(|_| rng.next()).collect();
    // Components around the clamp ranges, and some far outside.
    let vecs: Vec<i32> = (0..4 * n)
        .map(|k| match k % 5 {
            0 => (rng.next() % 600) as i32 - 300,
            1 => (rng.next() % 256) as i32,
            2 => -((rng.next() % 200) as i32),
            3 => rng.next() as i32,
            _ => (rng.next() % 40000) as i32 - 20000,
        })
        .collect();
    // Halves exact in f16: multiples of 1/8 in -16..16.
    let halves: Vec<f32> = (0..4 * n)
        .map(|_| ((rng.next() % 257) as i32 - 128) as f32 / 8.0)
        .collect();
    let bindings = vec![
        Binding::new(0, 0, Resource::StorageBuffer(words.clone())),
        Binding::new(
            0,
            1,
            Resource::StorageBuffer(vecs.iter().map(|&x| x as u32).collect()),
        ),
        Binding::new(
            0,
            2,
            Resource::StorageBuffer(halves.iter().map(|x| x.to_bits()).collect()),
        ),
        Binding::new(0, 3, Resource::StorageBuffer(vec![0; 16 * n])),
    ];
    let pack = |c: [i64; 4]| -> u32 {
        (0..4).fold(0u32, |acc, k| acc | (((c[k] as u32) & 0xFF) << (8 * k)))
    };
    let mut want = Vec::new();
    for i in 0..n {
        let (a, b) = (words[2 * i], words[2 * i + 1]);
        let v: [i64; 4] = std::array::from_fn(|k| vecs[4 * i + k] as i64);
        // `uint16_t4(v)` / `int16_t4(v)` keep the low 16 bits.
        let v16u: [i64; 4] = std::array::from_fn(|k| (v[k] as u16) as i64);
        let v16s: [i64; 4] = std::array::from_fn(|k| (v[k] as i16) as i64);
        let ua: [i64; 4] = std::array::from_fn(|k| byte_of(a, k as u32, false));
        let sb: [i64; 4] = std::array::from_fn(|k| byte_of(b, k as u32, true));
        let h: [f32; 4] = std::array::from_fn(|k| halves[4 * i + k]);
        let dot_u = (0..4).fold(7u32, |s, k| {
            s.wrapping_add((byte_of(a, k, false) * byte_of(b, k, false)) as u32)
        });
        let dot_i = (0..4).fold(-5i32, |s, k| {
            s.wrapping_add((byte_of(a, k, true) * byte_of(b, k, true)) as i32)
        });
        want.extend([
            pack(v),
            pack(v),
            pack(v.map(|x| x.clamp(0, 255))),
            pack(v.map(|x| x.clamp(-128, 127))),
            pack(v16u),
            pack(v16s.map(|x| x.clamp(-128, 127))),
            (ua[0] + (ua[1] << 8) + ua[2] * ua[3]) as u32,
            (sb[0] * 1000 + sb[1] * 100 + sb[2] * 10 + sb[3]) as i32 as u32,
            (ua[3] * 65536 + ua[2]) as u32,
            (sb[0] * sb[3]) as i32 as u32,
            dot_u,
            dot_i as u32,
            (0.5f32 + h[0] * h[2] + h[1] * h[3]).to_bits(),
            0,
            0,
            0,
        ]);
    }
    let runs = run_voices_where(
        &gpu,
        path,
        options,
        bindings,
        &[],
        [1, 1, 1],
        Rules::new(),
        |_| true,
    );
    for (voice, bindings, _) in runs {
        let got = bindings[3].words();
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "thread {} output {} ({voice:?})", k / 16, k % 16);
        }
    }
}

/// Increments and assignments used as places (`++a = b`, `(c += 5) *= 3`, `++arr[i++] = 100`)
/// on lavapipe in every voice: the update happens, then the assignment to the same place, and
/// each operand is evaluated once.
#[test]
fn increments_and_assignments_are_places_evaluated_once() {
    let gpu = Gpu::new();
    let path = "tests/hlsl_exec/lvalue_updates.hlsl";
    let (a, b) = (4i32, 9i32);
    let mut input = vec![0u32; 10];
    input[0] = a as u32;
    input[1] = b as u32;
    let bindings = vec![Binding::new(0, 0, Resource::StorageBuffer(input))];
    let want: Vec<u32> = [a, b, b + 2, b + 2, (a + 5) * 3, 8, 100, 20, 1, b - 3]
        .iter()
        .map(|&v| v as u32)
        .collect();
    let runs = run_voices(&gpu, path, bindings, &[], [1, 1, 1], Rules::new());
    for (voice, bindings, _) in runs {
        assert_eq!(bindings[0].words(), &want[..], "{voice:?}");
    }
}

/// `isnormal` (SM 6.9) on lavapipe in every voice, against Rust's `f32::is_normal`: zeros,
/// subnormals, the extreme normals, infinities and NaNs, as scalars, a vector and a matrix.
#[test]
fn isnormal_is_true_only_for_normal_floats() {
    let gpu = Gpu::new();
    let path = "tests/hlsl_exec/isnormal.hlsl";
    let values: [f32; 16] = [
        0.0,
        -0.0,
        f32::from_bits(1),
        f32::from_bits(0x007F_FFFF),
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        1.0,
        -2.5,
        f32::MAX,
        f32::MIN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        1.0e-39,
        3.0e38,
    ];
    let flag = |k: usize| values[k].is_normal() as u32;
    let mut want: Vec<u32> = (0..16).map(flag).collect();
    want.push(flag(1) | flag(4) << 1 | flag(6) << 2 | flag(8) << 3);
    want.push(flag(2) | flag(3) << 1 | flag(5) << 2 | flag(7) << 3);
    let bindings = vec![
        Binding::new(
            0,
            0,
            Resource::StorageBuffer(values.iter().map(|v| v.to_bits()).collect()),
        ),
        Binding::new(0, 1, Resource::StorageBuffer(vec![0; 18])),
    ];
    let runs = run_voices(&gpu, path, bindings, &[], [1, 1, 1], Rules::new());
    for (voice, bindings, _) in runs {
        assert_eq!(bindings[1].words(), &want[..], "{voice:?}");
    }
}

/// `msad4` (issue 26, item 6) on lavapipe through every voice: D3D's masked sum of absolute
/// differences of the reference's bytes against the four 4-byte windows of the 8-byte source
/// (zero reference bytes masked), added to the accumulator, on inputs with zero bytes,
/// equal bytes and sums up to 65535 (past it D3D leaves the result undefined).
#[test]
fn msad4_computes_d3ds_masked_sums_of_absolute_differences() {
    let gpu = Gpu::new();
    let path = "tests/hlsl_exec/msad4.hlsl";
    let n = 16usize;
    let mut rng = Rng(0x0ad4_2626);
    // Some reference bytes zero (masked), some source bytes equal to the reference's.
    let refs: Vec<u32> = (0..n)
        .map(|k| match k % 4 {
            0 => rng.next() & 0xFF00_FF00,
            1 => rng.next(),
            2 => 0xFFFF_FFFF,
            _ => rng.next() & 0x00FF_FFFF,
        })
        .collect();
    let sources: Vec<u32> = (0..2 * n)
        .map(|k| if k % 6 == 0 { refs[k / 2] } else { rng.next() })
        .collect();
    // Sums past 65535 are undefined (D3D's documentation): accumulators up to 65535 - 4 * 255.
    let mut accums: Vec<u32> = (0..4 * n)
        .map(|k| {
            if k % 7 == 0 {
                65535 - 1020
            } else {
                rng.next() % 5000
            }
        })
        .collect();
    // Row 0: the worked example of D3D's msad4 documentation, whose result is
    // {153, 6, 92, 113}.
    let (mut refs, mut sources) = (refs, sources);
    refs[0] = 0xA100_B2C3;
    sources[0] = 0xD7B0_C372;
    sources[1] = 0x4F57_C2A3;
    accums[..4].copy_from_slice(&[1, 2, 3, 4]);
    let byte = |w: u32, j: u32| (w >> (8 * j)) & 0xFF;
    let mut want = Vec::new();
    for i in 0..n {
        let (r, sx, sy) = (refs[i], sources[2 * i], sources[2 * i + 1]);
        let src = (sy as u64) << 32 | sx as u64;
        for w in 0..4u32 {
            let window = (src >> (8 * w)) as u32;
            let sad = (0..4)
                .filter(|&j| byte(r, j) != 0)
                .map(|j| byte(r, j).abs_diff(byte(window, j)))
                .sum::<u32>();
            want.push(accums[4 * i + w as usize] + sad);
        }
    }
    assert_eq!(
        want[..4],
        [153, 6, 92, 113],
        "the reference reproduces D3D's example"
    );
    let bindings = vec![
        Binding::new(0, 0, Resource::StorageBuffer(refs)),
        Binding::new(0, 1, Resource::StorageBuffer(sources)),
        Binding::new(0, 2, Resource::StorageBuffer(accums)),
        Binding::new(0, 3, Resource::StorageBuffer(vec![0; 4 * n])),
    ];
    let runs = run_voices(&gpu, path, bindings, &[], [1, 1, 1], Rules::new());
    assert!(runs.len() >= 2, "at least our SPIR-V at -O0 and -O");
    for (voice, bindings, _) in runs {
        let got = bindings[3].words();
        assert_eq!(got, &want[..], "{voice:?}");
    }
}

/// Structs of resources returned from functions (issue 26, item 4) on lavapipe: each field of
/// `make(0)` and `make(1)` (and `second()`, which returns `make(1)`) names the globals the
/// argument picks, through a local, a parameter and a direct member read; the values are
/// the buffers' and textures' contents in every voice.
#[test]
fn structs_of_resources_returned_from_functions() {
    let gpu = Gpu::new();
    let path = "tests/hlsl_exec/struct_returns.hlsl";
    for level in [OptLevel::O0, OptLevel::O] {
        let out = compile_file(path, &CompileOptions::new("cs_6_0").opt_level(level));
        assert_valid(&out.spirv, TargetEnv::Vulkan1_2, path);
    }
    let buf0 = [3u32, 5, 7, 9];
    let buf1 = [20u32, 40, 60, 80];
    // Texture k, texel x: (x + 10k, x + 10k + 1, 0, 0).
    let tex = |k: u32| -> Vec<u32> {
        (0..4u32)
            .flat_map(|x| [(x + 10 * k) as f32, (x + 10 * k + 1) as f32, 0.0, 0.0])
            .map(f32::to_bits)
            .collect()
    };
    let r = reflection(path);
    let at = |name: &str, res: Resource| {
        let (s, b) = binding_of(&r, name);
        Binding::new(s, b, res)
    };
    let bindings = vec![
        at("b0", Resource::StorageBuffer(buf0.to_vec())),
        at("b1", Resource::StorageBuffer(buf1.to_vec())),
        at(
            "t0",
            Resource::SampledImage(Image::new_2d(Format::Rgba32Float, 4, 1, tex(0))),
        ),
        at(
            "t1",
            Resource::SampledImage(Image::new_2d(Format::Rgba32Float, 4, 1, tex(1))),
        ),
        at("o", Resource::StorageBuffer(vec![0; 16])),
    ];
    let want: Vec<u32> = (0..4u32)
        .flat_map(|i| {
            let iu = i as usize;
            let read = |buf: &[u32; 4], k: u32| buf[iu] + 1000 * (i + 10 * k);
            [buf0[iu], i + 1, read(&buf1, 1), buf1[iu] + read(&buf0, 0)]
        })
        .collect();
    for (voice, bindings, _) in run_voices(&gpu, path, bindings, &[], [1, 1, 1], Rules::new()) {
        assert_eq!(bindings[4].words(), want.as_slice(), "{voice:?}");
    }
}
