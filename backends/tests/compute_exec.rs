//! Execution: compute programs written in IR text (backends/tests/compute/*.ir) are emitted,
//! validated by spirv-val, run on Mesa's lavapipe through the Vulkan loader, and the storage
//! buffers read back are compared with values computed here. Each program runs through the
//! voices of the differential oracle (`oneshader-oracle`, see [`VOICES`]): our SPIR-V at -O0
//! for vulkan1.0 and vulkan1.2 and at -O, our GLSL once the GLSL backend is here, our WGSL
//! through naga (at -O0 and -O, every program), and the
//! reference interpreter where the invocations do not communicate; every voice must leave
//! the same buffers (bit for bit; a scheduling-ordered list as a multiset), besides matching
//! the expected values.

mod common;

use common::*;
use oneshader_backends::spirv::TargetEnv;
use oneshader_oracle::{Case, Inputs, Oracle, Rule, Rules, Source, Voice};
use oneshader_passes::pipeline::OptLevel;
use oneshader_vulkan_harness::{Binding, Gpu, Resource};

/// The GPU voices every program runs through: our SPIR-V at -O0 for vulkan1.0 (SPIR-V 1.0:
/// interface lists of inputs and outputs only, the storage-buffer extension) and for
/// vulkan1.2 (SPIR-V 1.5), and at -O for vulkan1.2; our GLSL through glslang once the GLSL
/// backend is here (`oneshader_oracle::voice::GLSL_AVAILABLE`).
const VOICES: &[Voice] = &[
    Voice::Spirv {
        level: OptLevel::O0,
        env: TargetEnv::Vulkan1_0,
    },
    Voice::Spirv {
        level: OptLevel::O0,
        env: TargetEnv::Vulkan1_2,
    },
    Voice::Spirv {
        level: OptLevel::O,
        env: TargetEnv::Vulkan1_2,
    },
];

/// [`VOICES`] and the reference interpreter, for programs whose invocations do not
/// communicate (no barrier, no workgroup memory).
const VOICES_INTERP: &[Voice] = &[
    Voice::Spirv {
        level: OptLevel::O0,
        env: TargetEnv::Vulkan1_0,
    },
    Voice::Spirv {
        level: OptLevel::O0,
        env: TargetEnv::Vulkan1_2,
    },
    Voice::Spirv {
        level: OptLevel::O,
        env: TargetEnv::Vulkan1_2,
    },
    Voice::Interp,
];

/// Runs program `name` (entry `entry`) through `voices` (the GLSL voice added when this
/// build has it) on storage buffers `bufs` at set 0, bindings 0, 1, ...: the differential
/// oracle asserts that every voice leaves the same buffers (under `rules`), validating each
/// SPIR-V program first. Returns each voice with its buffers and program words (none for
/// the interpreter) for the expected-value checks.
fn run_voices(
    gpu: &Gpu,
    name: &str,
    entry: &str,
    bufs: Vec<Vec<u32>>,
    groups: [u32; 3],
    voices: &[Voice],
    rules: Rules,
) -> Vec<(Voice, Vec<Vec<u32>>, Vec<u32>)> {
    run_voices_glsl(gpu, name, entry, bufs, groups, voices, rules, true)
}

/// [`run_voices`], with the GLSL voice only when `glsl` is set (a program whose buffer
/// layout GLSL cannot state runs without it; a test checks the refusal instead).
#[allow(clippy::too_many_arguments)]
fn run_voices_glsl(
    gpu: &Gpu,
    name: &str,
    entry: &str,
    bufs: Vec<Vec<u32>>,
    groups: [u32; 3],
    voices: &[Voice],
    rules: Rules,
    glsl: bool,
) -> Vec<(Voice, Vec<Vec<u32>>, Vec<u32>)> {
    let bindings = bufs
        .into_iter()
        .enumerate()
        .map(|(i, b)| Binding::new(0, i as u32, Resource::StorageBuffer(b)))
        .collect();
    run_bindings(gpu, name, entry, bindings, groups, voices, rules, glsl)
}

/// [`run_voices_glsl`] on any resources (`bindings`); each voice's buffers come back in the
/// order of `bindings`.
#[allow(clippy::too_many_arguments)]
fn run_bindings(
    gpu: &Gpu,
    name: &str,
    entry: &str,
    bindings: Vec<Binding>,
    groups: [u32; 3],
    voices: &[Voice],
    rules: Rules,
    glsl: bool,
) -> Vec<(Voice, Vec<Vec<u32>>, Vec<u32>)> {
    let path = root().join("backends/tests/compute").join(name);
    let text = std::fs::read_to_string(&path).expect("compute program exists");
    let source = Source::Ir {
        module: parse(&text),
        entry: entry.to_string(),
    };
    let case = Case::new(name, source).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut voices = voices.to_vec();
    if glsl && oneshader_oracle::voice::GLSL_AVAILABLE {
        voices.push(Voice::Glsl {
            level: OptLevel::O0,
        });
    }
    // The WGSL voice runs every program: DXC's relaxed vector placement, which GLSL states
    // only with its shims (`split.ir`) or not at all (`layout.ir`), WGSL states by splitting
    // the vectors into components (`wgsl_splits_the_relaxed_vectors`).
    voices.push(Voice::Wgsl {
        level: OptLevel::O0,
    });
    voices.push(Voice::Wgsl { level: OptLevel::O });
    let inputs = Inputs::new(bindings, Vec::new(), groups);
    let report = Oracle::new(gpu)
        .run(&case, &voices, &inputs, &rules)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    report.assert_agreement();
    report
        .runs
        .into_iter()
        .map(|r| {
            let bufs = r.outputs.iter().map(|b| b.words().to_vec()).collect();
            let words = r.program.map(|p| p.words).unwrap_or_default();
            (r.voice, bufs, words)
        })
        .collect()
}

#[test]
fn prefix_sum_with_workgroup_memory_and_barriers() {
    let gpu = Gpu::new();
    let input: Vec<u32> = (0..128u32).map(|i| (i * 7 + 3) % 11).collect();
    let mut expected = vec![0u32; 128];
    for g in 0..2 {
        let mut acc = 0;
        for l in 0..64 {
            acc += input[g * 64 + l];
            expected[g * 64 + l] = acc;
        }
    }
    let name = "prefix_sum.ir";
    let bufs = vec![input.clone(), vec![0u32; 128]];
    for (env, bufs, _) in run_voices(&gpu, name, "scan", bufs, [2, 1, 1], VOICES, Rules::new()) {
        assert_eq!(bufs[1], expected, "prefix sums on {} ({env})", gpu.name);
    }
}

#[test]
fn loop_with_break_continue_and_block_params() {
    let gpu = Gpu::new();
    let mut expected = vec![0u32; 128];
    for i in 0..64u32 {
        let (mut k, mut sum) = (0u32, 0u32);
        while k < i + 3 {
            if k % 3 != 0 {
                if sum > 50 {
                    break;
                }
                sum += k * i;
            }
            k += 1;
        }
        expected[i as usize] = sum;
        expected[64 + i as usize] = k;
    }
    // Some invocations break early, others run to the end.
    assert!((0..64).any(|i| expected[64 + i] < i as u32 + 3));
    assert!((0..64).any(|i| expected[64 + i] == i as u32 + 3));
    let name = "loop_break_continue.ir";
    let bufs = vec![vec![0u32; 128]];
    for (env, bufs, _) in run_voices(
        &gpu,
        name,
        "main",
        bufs,
        [1, 1, 1],
        VOICES_INTERP,
        Rules::new(),
    ) {
        assert_eq!(bufs[0], expected, "loop results ({env})");
    }
}

#[test]
fn integer_and_float_arithmetic_on_edge_values() {
    let gpu = Gpu::new();
    let f = |x: f32| x.to_bits();
    let input: Vec<u32> = vec![
        i32::MAX as u32,
        1,
        (-7i32) as u32,
        2,
        u32::MAX,
        3,
        33,
        (-8i32) as u32,
        f(0.1),
        f(0.2),
        f(-2.7),
        16_777_217,
        f(1.0),
        f(3.0),
        i32::MIN as u32,
        (-1i32) as u32,
    ];
    let expected: Vec<u32> = vec![
        i32::MIN as u32,    // INT_MAX + 1 wraps
        (-3i32) as u32,     // -7 / 2 truncates
        (-1i32) as u32,     // -7 % 2 has the dividend's sign
        0x5555_5555,        // u32::MAX / 3
        0,                  // u32::MAX % 3
        2,                  // 1 << 33 masks to 1 << 1
        (-4i32) as u32,     // -8 >> 1 is arithmetic
        0x7fff_ffff,        // u32::MAX >> 33 masks to >> 1
        f(0.1 + 0.2),       // rounded to nearest
        f(1.0 / 3.0),       // (compared within 3 ulp below)
        (-2i32) as u32,     // float to int truncates
        f(16_777_216.0),    // 2^24 + 1 rounds to even
        f(4_294_967_296.0), // u32::MAX to float rounds up
        i32::MIN as u32,    // -INT_MIN wraps
        i32::MIN as u32,    // INT_MIN * -1 wraps
        (-14i32) as u32,    // -7 * 2
        7,                  // abs(-7)
        f(0.1),             // min(0.1, 0.2)
        0x8000_0000,        // -(0.1 - 0.1) is -0.0
        (-7i32) as u32,     // i32 to u32 keeps the bits
        1,                  // -7 < 2 signed
        0,                  // 0xfffffff9 < 2 unsigned
        f(-1.0),            // -7.0 % 2.0 keeps the dividend's sign
        (-1i32) as u32,     // clamp(-7, -1, 2)
        31,                 // firstbithigh(u32::MAX)
        2,                  // countbits(3)
    ];
    let name = "arith.ir";
    let bufs = vec![input.clone(), vec![0xdead_beef; expected.len()]];
    for (env, bufs, _) in run_voices(
        &gpu,
        name,
        "main",
        bufs,
        [1, 1, 1],
        VOICES_INTERP,
        Rules::new(),
    ) {
        for (k, (&got, &want)) in bufs[1].iter().zip(&expected).enumerate() {
            if k == 9 {
                assert!(
                    got.abs_diff(want) <= 3,
                    "1/3: got {:?}, want {:?} ({env})",
                    f32::from_bits(got),
                    f32::from_bits(want)
                );
            } else {
                assert_eq!(got, want, "result {k} ({env}): {got:#x} vs {want:#x}");
            }
        }
    }
}

#[test]
fn atomics_on_a_storage_buffer() {
    let gpu = Gpu::new();
    let name = "atomics.ir";
    let bufs = vec![vec![0, 0, u32::MAX, 0, 0, 0], vec![u32::MAX; 256]];
    for (env, bufs, _) in run_voices(
        &gpu,
        name,
        "main",
        bufs,
        [4, 1, 1],
        VOICES_INTERP,
        // The counter's original values go to invocations in scheduling order.
        Rules::new().with("tickets", Rule::Unordered { element_words: 1 }),
    ) {
        assert_eq!(bufs[0][0], (1..=256).sum::<u32>(), "atomic add ({env})");
        assert_eq!(bufs[0][1], 255, "atomic max");
        assert_eq!(bufs[0][2], 1, "atomic min");
        assert_eq!(bufs[0][3], u32::MAX, "atomic or");
        assert_eq!(bufs[0][4], 256, "counter");
        assert_eq!(
            bufs[0][5], 8,
            "only invocation 7's compare-exchange succeeds"
        );
        let mut tickets = bufs[1].clone();
        tickets.sort_unstable();
        assert_eq!(
            tickets,
            (0..256).collect::<Vec<u32>>(),
            "the counter's original values are a permutation"
        );
    }
}

#[test]
fn switch_with_fallthrough_and_default() {
    let gpu = Gpu::new();
    let input: Vec<i32> = vec![-5, 0, 1, 2, 3, -1, 7, 100, 2, 1, 0, -5, 4, 5, 6, i32::MIN];
    let classify = |x: i32| match x {
        0 | 1 => 30,
        2 => 20,
        -5 => 500,
        _ => -1,
    };
    let expected: Vec<u32> = input.iter().map(|&x| classify(x) as u32).collect();
    let name = "switch.ir";
    let bufs = vec![
        input.iter().map(|&x| x as u32).collect(),
        vec![0u32; input.len()],
    ];
    for (env, bufs, _) in run_voices(
        &gpu,
        name,
        "main",
        bufs,
        [1, 1, 1],
        VOICES_INTERP,
        Rules::new(),
    ) {
        assert_eq!(bufs[1], expected, "switch ({env})");
    }
}

#[test]
fn matrices_follow_dxc_conventions_in_buffers() {
    use oneshader_ir::layout::{LayoutRule, struct_layout};
    let gpu = Gpu::new();
    let text = std::fs::read_to_string(root().join("backends/tests/compute/matrix.ir"))
        .expect("matrix.ir exists");
    let m = parse(&text);
    let st = m.structs()[0].id();
    let l = struct_layout(&m, st, LayoutRule::RelaxedStd430).expect("layout");
    let offsets: Vec<u32> = l.fields.iter().map(|f| f.offset).collect();
    // Row-major 2x3: two rows of 3 floats, stride 16; column-major 2x3: three columns of 2
    // floats, stride 8; then v (float2) and w (float3, packed after it by the relaxed rule).
    assert_eq!(offsets, vec![0, 32, 56, 64]);
    let mm = [[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]];
    let nn = [[7.0f32, 8.0, 9.0], [10.0, 11.0, 12.0]];
    let v = [0.5f32, -2.0];
    let w = [1.0f32, 10.0, 100.0];
    let mut data = vec![0f32; (l.layout.size / 4) as usize];
    for r in 0..2 {
        for c in 0..3 {
            data[r * 4 + c] = mm[r][c];
            data[8 + c * 2 + r] = nn[r][c];
        }
    }
    data[14..16].copy_from_slice(&v);
    data[16..19].copy_from_slice(&w);
    // mul(v, m): v as a row vector times the 2x3 matrix; mul(n, w): the 2x3 matrix times w.
    let vm: Vec<f32> = (0..3).map(|c| v[0] * mm[0][c] + v[1] * mm[1][c]).collect();
    let nw: Vec<f32> = (0..2)
        .map(|r| (0..3).map(|c| nn[r][c] * w[c]).sum())
        .collect();
    let expected = vec![
        vm[0], vm[1], vm[2], nw[0], nw[1], mm[1][2], nn[1][0], mm[1][0], mm[1][2],
    ];
    let name = "matrix.ir";
    let bufs = vec![
        data.iter().map(|x| x.to_bits()).collect(),
        vec![0u32; expected.len()],
    ];
    for (env, bufs, _) in run_voices(
        &gpu,
        name,
        "main",
        bufs,
        [1, 1, 1],
        VOICES_INTERP,
        Rules::new(),
    ) {
        let got: Vec<f32> = bufs[1].iter().map(|&b| f32::from_bits(b)).collect();
        assert_eq!(got, expected, "matrix results ({env})");
    }
}

#[test]
fn relaxed_layout_and_bools_in_a_structured_buffer() {
    use oneshader_ir::layout::{LayoutRule, struct_layout, type_layout};
    let gpu = Gpu::new();
    let text = std::fs::read_to_string(root().join("backends/tests/compute/layout.ir"))
        .expect("layout.ir exists");
    let m = parse(&text);
    let st = m.structs()[0].id();
    let l = struct_layout(&m, st, LayoutRule::RelaxedStd430).expect("layout");
    let off: Vec<usize> = l.fields.iter().map(|f| f.offset as usize / 4).collect();
    // a 0, b 4 (packed after a), flag 16, c 20, d 32 (28 would straddle 32).
    assert_eq!(off, vec![0, 1, 4, 5, 8]);
    let items = m
        .ty(m.global_by_name("items").expect("@items").id())
        .and_then(|t| m.pointee(t))
        .expect("pointer");
    let stride = type_layout(&m, items, LayoutRule::RelaxedStd430, false)
        .expect("layout")
        .array_stride
        .expect("stride") as usize
        / 4;
    assert_eq!(stride, 12);
    let mut data = vec![0u32; stride * 4];
    let mut expected = Vec::new();
    for i in 0..4usize {
        let base = i * stride;
        let x = i as f32;
        let vals = [x, x + 0.5, x + 0.25, x + 0.125, 2.0 * x, 3.0, 0.5, 0.25];
        data[base + off[0]] = vals[0].to_bits();
        for k in 0..3 {
            data[base + off[1] + k] = vals[1 + k].to_bits();
        }
        data[base + off[2]] = (i % 2) as u32 * 7; // any nonzero word is true
        data[base + off[3]] = vals[4].to_bits();
        data[base + off[3] + 1] = vals[5].to_bits();
        data[base + off[4]] = vals[6].to_bits();
        data[base + off[4] + 1] = vals[7].to_bits();
        let sum: f32 =
            vals[0] + (vals[1] + vals[2] + vals[3]) + vals[4] + vals[5] + vals[6] + vals[7];
        expected.push(sum + if i % 2 == 1 { 1000.0 } else { 0.0 });
    }
    let name = "layout.ir";
    let bufs = vec![data.clone(), vec![0u32; 4]];
    // GLSL cannot state this layout (see `glsl_refuses_the_relaxed_struct_array`); WGSL
    // splits `b` into components.
    let runs = run_voices_glsl(
        &gpu,
        name,
        "main",
        bufs,
        [1, 1, 1],
        VOICES_INTERP,
        Rules::new(),
        false,
    );
    assert!(
        runs.iter().any(|(v, ..)| matches!(v, Voice::Wgsl { .. })),
        "the WGSL voice ran"
    );
    for (env, bufs, _) in runs {
        let got: Vec<f32> = bufs[1].iter().map(|&b| f32::from_bits(b)).collect();
        for (g, e) in got.iter().zip(&expected) {
            assert!((g - e).abs() < 1e-3, "sums {got:?} vs {expected:?} ({env})");
        }
        for i in 0..4usize {
            let base = i * stride;
            assert_eq!(
                bufs[0][base + off[2]],
                (i % 2 == 0) as u32,
                "flag flipped ({env})"
            );
            let b1 = f32::from_bits(bufs[0][base + off[1]]);
            assert_eq!(b1, 2.0 * (i as f32 + 0.5), "b doubled in place ({env})");
            // The neighbours of what was written are untouched.
            assert_eq!(bufs[0][base + off[0]], data[base + off[0]]);
            assert_eq!(bufs[0][base + off[3]], data[base + off[3]]);
        }
    }
}

/// `layout.ir`'s structured buffer packs `float3 b` right after `float a` (DXC's relaxed
/// std430) in an array of structs whose stride std430 rounds up: no GLSL packing states both,
/// so the GLSL backend refuses it, naming the buffer, instead of printing a layout the host
/// does not expect.
#[test]
fn glsl_refuses_the_relaxed_struct_array() {
    let text = std::fs::read_to_string(root().join("backends/tests/compute/layout.ir"))
        .expect("layout.ir exists");
    let d = emit_glsl(
        &parse(&text),
        &oneshader_backends::glsl::Options::for_entry("main"),
    )
    .expect_err("the layout has no GLSL form");
    assert!(
        d.iter()
            .any(|d| d.code == "OSB0105" && d.message.contains("buffer `items`")),
        "{d:#?}"
    );
}

/// WGSL cannot state `layout.ir`'s relaxed placement either (`float3 b` at offset 4, where WGSL
/// aligns a `vec3<f32>` to 16): the WGSL backend refuses it naming the member and the offset.
/// `layout.ir`'s and `split.ir`'s vectors at offset 4 (DXC's relaxed placement), which WGSL
/// aligns to 16 or 8, are declared one scalar member per component, each at its offset (the
/// GLSL backend's split-vector shim); the execution tests run both through the WGSL voice.
#[test]
fn wgsl_splits_the_relaxed_vectors() {
    for (name, members) in [
        (
            "layout.ir",
            &["    a: f32,\n    b_x: f32,\n    b_y: f32,\n    b_z: f32,\n"][..],
        ),
        (
            "split.ir",
            &[
                "    f1: f32,\n    f2_x: f32,\n    f2_y: f32,\n    f2_z: f32,\n",
                "    a: f32,\n    b_x: f32,\n    b_y: f32,\n",
            ][..],
        ),
    ] {
        let text = std::fs::read_to_string(root().join("backends/tests/compute").join(name))
            .expect("the program exists");
        let wgsl = emit_wgsl(
            &parse(&text),
            &oneshader_backends::wgsl::Options::for_entry("main"),
        )
        .unwrap_or_else(|d| panic!("{name}: {d:#?}"));
        for m in members {
            assert!(wgsl.contains(m), "{name}: no `{m}` in\n{wgsl}");
        }
    }
}

/// `split.ir`: vectors DXC's relaxed rules pack at 4 bytes next to arrays whose std140 or
/// std430 stride scalar packing would lose (GLSL declares them one component per member), a
/// struct with such a vector inside and a struct mixing row- and column-major matrices (GLSL
/// declares them one field per member): reads (whole, by field, by constant and run-time
/// component, through whole-block loads) and writes (whole-block, whole-struct and component
/// stores) reach the same bytes as in SPIR-V, and the padding between members stays as it
/// was.
#[test]
fn layout_shims_read_and_write_the_relaxed_offsets() {
    let gpu = Gpu::new();
    let f = |x: f32| x.to_bits();
    let pad = 0xdead_beef;
    // cb: a@0 b@4 t@16 (stride 16) c@80 d@92 n@96 (f1@96 f2@100).
    let mut cb = vec![pad; 28];
    cb[0] = f(1.0);
    cb[1] = f(2.0);
    cb[2] = f(3.0);
    for k in 0..4 {
        cb[4 + 4 * k] = f(10.0 + k as f32);
    }
    for k in 0..3 {
        cb[20 + k] = f(20.0 + k as f32);
        cb[25 + k] = f(31.0 + k as f32);
    }
    cb[23] = f(23.0);
    cb[24] = f(30.0);
    // sb: p@0 q@4 arr@16 (stride 16) r@48 mm@56 (p@56 row-major, q@72 column-major).
    let mut sb = vec![pad; 22];
    sb[0] = f(1.5);
    for k in 0..3 {
        sb[1 + k] = f(4.0 + k as f32);
        sb[4 + k] = f(7.0 + k as f32);
        sb[8 + k] = f(10.0 + k as f32);
    }
    sb[12] = f(13.0);
    // p = [[40, 41], [42, 43]] by rows; q = [[50, 51], [52, 53]] by columns.
    for (w, v) in [40.0, 41.0, 42.0, 43.0, 50.0, 52.0, 51.0, 53.0]
        .iter()
        .enumerate()
    {
        sb[14 + w] = f(*v);
    }
    let bindings = vec![
        Binding::new(0, 0, Resource::UniformBuffer(cb)),
        Binding::new(0, 1, Resource::StorageBuffer(sb.clone())),
        Binding::new(0, 2, Resource::StorageBuffer(vec![0; 14])),
    ];
    let runs = run_bindings(
        &gpu,
        "split.ir",
        "main",
        bindings,
        [1, 1, 1],
        VOICES_INTERP,
        Rules::new(),
        true,
    );
    assert!(
        runs.iter().any(|(v, ..)| matches!(v, Voice::Glsl { .. })),
        "the GLSL voice ran"
    );
    assert!(
        runs.iter().any(|(v, ..)| matches!(v, Voice::Wgsl { .. })),
        "the WGSL voice ran"
    );
    // b.x, b[1], b[k=1], t[3], c.z, whole.a, whole.b.y, whole.d, s.q.y, q[k=1], n.f2.z,
    // n.f2[1], mm.p[0][1], mm.q[0][1].
    let expected = [
        2.0f32, 3.0, 3.0, 13.0, 22.0, 1.0, 3.0, 23.0, 5.0, 5.0, 33.0, 32.0, 41.0, 51.0,
    ];
    let mut sb_after = sb.clone();
    sb_after[1] = f(105.0);
    sb_after[2] = f(10.0);
    sb_after[3] = f(12.0);
    sb_after[12] = f(14.0);
    // The matrices swapped: p (by rows) gets q's values, q (by columns) gets p's.
    for (w, v) in [50.0, 51.0, 52.0, 53.0, 40.0, 42.0, 41.0, 43.0]
        .iter()
        .enumerate()
    {
        sb_after[14 + w] = f(*v);
    }
    for (voice, bufs, _) in runs {
        let got: Vec<f32> = bufs[2].iter().map(|&b| f32::from_bits(b)).collect();
        assert_eq!(got, expected, "reads ({voice:?})");
        assert_eq!(bufs[1], sb_after, "writes ({voice:?})");
    }
}

/// `fold.ir`: float operations on constants (kept at -O0) compute the `f32` results in every
/// voice; glslang folds the GLSL spelling of each in double, so its literals must be the IR's
/// floats exactly (`1657711.6 * 116.75` from the decimals is another `f32`).
#[test]
fn float_operations_on_constants_round_as_f32() {
    let gpu = Gpu::new();
    let runs = run_voices(
        &gpu,
        "fold.ir",
        "main",
        vec![vec![0; 4]],
        [1, 1, 1],
        VOICES_INTERP,
        Rules::new(),
    );
    let third = 1.0f32 / 3.0;
    let expected = [
        1_657_711.6f32 * 116.75,
        0.1f32 * 3.0 + 0.7,
        0.3f32 * 10.0,
        third * 3.0,
    ];
    // The decimal spellings folded in double would give other floats here.
    assert_ne!(expected[0], (1_657_711.6f64 * 116.75) as f32);
    for (voice, bufs, _) in runs {
        let got: Vec<f32> = bufs[0].iter().map(|&b| f32::from_bits(b)).collect();
        assert_eq!(got, expected, "{voice:?}");
    }
}

#[test]
fn selections_merging_into_the_continue_block() {
    let gpu = Gpu::new();
    let expected: Vec<u32> = (0..16u32)
        .map(|i| {
            let mut acc = 0;
            for k in 0..i + 4 {
                acc = if k & 1 == 0 {
                    if k > 3 { acc + 10 * k } else { acc + k }
                } else {
                    acc + 100
                };
            }
            acc
        })
        .collect();
    let name = "merge_into_continue.ir";
    let bufs = vec![vec![0u32; 16]];
    for (env, bufs, words) in run_voices(
        &gpu,
        name,
        "main",
        bufs,
        [1, 1, 1],
        VOICES_INTERP,
        Rules::new(),
    ) {
        if let Voice::Spirv {
            level: OptLevel::O0,
            ..
        } = env
        {
            // Legalization (`own_merges`) gave both selections a merge of their own, which
            // no path reaches: the arms `continue`, and the continue block keeps its one phi.
            let dr = load(&words);
            assert_eq!(count_op(&dr, rspirv::spirv::Op::SelectionMerge), 2);
            assert_eq!(count_op(&dr, rspirv::spirv::Op::Unreachable), 2);
            assert_eq!(count_op(&dr, rspirv::spirv::Op::Phi), 2 + 1);
        }
        assert_eq!(bufs[0], expected, "({env})");
    }
}

/// The control-flow shapes of `control.ir` (nested loops, a switch with a fall-through, a loop
/// `break` and a `continue` from inside the switch, a `continue` of the outer loop, a
/// do-while, a value of an `if` arm used after it, an `if` whose arms both return), against
/// the same program in Rust.
#[test]
fn structured_control_flow_shapes() {
    fn f(n: u32) -> u32 {
        let mut acc: u32 = 0;
        let mut a = 0u32;
        while a < n + 2 {
            let mut b = 0u32;
            while b < 6 {
                let mut skip = false;
                match (b + a) % 5 {
                    0 => acc = acc.wrapping_add(11),
                    1 => acc = acc.wrapping_add(10),
                    2 => {
                        if acc > 300 {
                            break;
                        }
                        acc = acc.wrapping_add(100);
                    }
                    3 => skip = true,
                    _ => acc = acc.wrapping_add(1000),
                }
                if !skip {
                    acc = acc.wrapping_add(3);
                }
                b += 1;
            }
            if a != 7 {
                acc ^= a;
                loop {
                    acc = acc.wrapping_add(2);
                    if acc.is_multiple_of(7) {
                        break;
                    }
                }
            }
            a += 1;
        }
        acc
    }
    let g = |x: u32| if x > 10 { x * 3 + 1 } else { 5 };
    let h = |x: u32| if x < 32 { 1 } else { 2 };
    let mut expected = vec![0u32; 192];
    for i in 0..64u32 {
        expected[i as usize] = f(i);
        expected[64 + i as usize] = g(i);
        expected[128 + i as usize] = h(i);
    }
    // Both ways out of the inner loop happen.
    assert!(
        (0..64)
            .map(f)
            .collect::<std::collections::HashSet<_>>()
            .len()
            > 32
    );
    let gpu = Gpu::new();
    let bufs = vec![vec![0u32; 192]];
    let runs = run_voices(
        &gpu,
        "control.ir",
        "main",
        bufs,
        [1, 1, 1],
        VOICES_INTERP,
        Rules::new(),
    );
    for (voice, bufs, _) in runs {
        assert_eq!(bufs[0], expected, "({voice})");
    }
}
