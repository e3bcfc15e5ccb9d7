//! Every intrinsic of the IR, called once with typical operand types in a fragment shader,
//! emits SPIR-V that spirv-val accepts (vulkan1.1 and vulkan1.3, since wave operations need
//! subgroups); the one without a SPIR-V equivalent is refused with a diagnostic.

mod common;

use common::*;
use oneshader_backends::spirv::{Options, TargetEnv};
use oneshader_ir::Intrinsic;

/// The call of each intrinsic: (result type, operands). `%f` is an f32, `%v` a vec<f32, 3>,
/// `%u` a u32, `%i` an i32, `%b` a vec<bool, 3>, `%m` a mat<f32, 3, 3>, `%pf`/`%pv`/`%pi` f32,
/// vec<f32, 3> and i32 variables.
fn call_of(w: Intrinsic) -> Option<(&'static str, &'static str)> {
    use Intrinsic::*;
    Some(match w {
        Abs
        | Floor
        | Ceil
        | Round
        | Trunc
        | Frac
        | Sqrt
        | Rsqrt
        | Exp
        | Exp2
        | Log
        | Log2
        | Sin
        | Cos
        | Tan
        | Asin
        | Acos
        | Atan
        | Sinh
        | Cosh
        | Tanh
        | Normalize
        | Saturate
        | Degrees
        | Radians
        | Ddx
        | Ddy
        | DdxFine
        | DdyFine
        | DdxCoarse
        | DdyCoarse
        | Fwidth
        | Log10
        | Rcp
        | WaveReadLaneFirst
        | WaveActiveSum
        | WaveActiveProduct
        | WaveActiveMin
        | WaveActiveMax
        | WavePrefixSum
        | WavePrefixProduct
        | QuadReadAcrossX
        | QuadReadAcrossY
        | QuadReadAcrossDiagonal => ("vec<f32, 3>", "%v"),
        Sign => ("vec<i32, 3>", "%v"),
        Pow | Atan2 | Min | Max | Step | Reflect | Fmod => ("vec<f32, 3>", "%v, %v"),
        Ldexp => ("vec<f32, 3>", "%v, %v"),
        Clamp | Lerp | Smoothstep | Fma | Mad | Faceforward => ("vec<f32, 3>", "%v, %v, %v"),
        Refract => ("vec<f32, 3>", "%v, %v, %f"),
        Dot | Distance => ("f32", "%v, %v"),
        Length => ("f32", "%v"),
        Cross => ("vec<f32, 3>", "%v, %v"),
        Determinant => ("f32", "%m"),
        Transpose | Inverse => ("mat<f32, 3, 3>", "%m"),
        IsNan | IsInf | IsFinite => ("vec<bool, 3>", "%v"),
        All | Any => ("bool", "%b"),
        CountBits | ReverseBits | FirstBitHigh | FirstBitLow | NonUniformIndex
        | WaveActiveBitAnd | WaveActiveBitOr | WaveActiveBitXor => ("u32", "%u"),
        F32ToF16 => ("u32", "%f"),
        F16ToF32 => ("f32", "%u"),
        PackHalf2x16 => ("u32", "%v2"),
        UnpackHalf2x16 => ("vec<f32, 2>", "%u"),
        Frexp => ("vec<f32, 3>", "%v, %pv"),
        Modf => ("vec<f32, 3>", "%v, %pv"),
        Sincos => ("void", "%f, %pf, %pf2"),
        WaveGetLaneCount | WaveGetLaneIndex => ("u32", ""),
        WaveIsFirstLane | IsHelperLane => ("bool", ""),
        WaveActiveAnyTrue | WaveActiveAllTrue => ("bool", "%c"),
        WaveActiveBallot => ("vec<u32, 4>", "%c"),
        WaveActiveCountBits | WavePrefixCountBits => ("u32", "%c"),
        WaveActiveAllEqual => ("bool", "%f"),
        WaveReadLaneAt | QuadReadLaneAt => ("f32", "%f, %u"),
        CheckAccessFullyMapped => ("bool", "%u"),
        DebugPrintf => ("void", r#""x %f %u", %f, %u"#),
        DebugBreak => ("void", ""),
        // Interpolation reads a stage input through a pointer: spirv_gaps.rs tests it (and
        // tests/attribute_at_vertex.rs `attribute_at_vertex`).
        InterpolateAtCentroid | InterpolateAtSample | InterpolateAtOffset | AttributeAtVertex => {
            return None;
        }
        RenderTargetSampleCount => return None,
    })
}

fn shader(w: Intrinsic, result: &str, args: &str) -> String {
    let call = format!(
        "  %r = call_intrinsic {}({args}) : {result}\n",
        w.spelling()
    );
    format!(
        r#"
global @in : ptr<input, vec<f32, 3>> [location(0)]
global @out : ptr<output, vec<f32, 4>> [location(0)]
func @ps() -> void [entry_point(fragment, "ps")] {{
bb0:
  %pf = var : ptr<function, f32>
  %pf2 = var : ptr<function, f32>
  %pv = var : ptr<function, vec<f32, 3>>
  %v = load @in : vec<f32, 3>
  %f = extract %v, 0 : f32
  %v2 = shuffle %v, %v, 0, 1 : vec<f32, 2>
  %u = bitcast %f : u32
  %i = bitcast %f : i32
  %c = gt %f, f32 0.5 : bool
  %b = construct %c, %c, %c : vec<bool, 3>
  %m = construct %v, %v, %v : mat<f32, 3, 3>
{call}  %o = construct %v, %f : vec<f32, 4>
  store @out, %o
  return
}}
"#
    )
}

#[test]
fn every_intrinsic_validates() {
    let mut checked = 0;
    for &w in Intrinsic::ALL {
        let Some((result, args)) = call_of(w) else {
            continue;
        };
        let text = shader(w, result, args);
        let m = parse(&text);
        for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
            if w == Intrinsic::QuadReadLaneAt && env == TargetEnv::Vulkan1_1 {
                // The test's lane is computed at run time: SPIR-V 1.5 or later only.
                let err = common::try_emit(&m, &Options::for_env(env)).expect_err("refused");
                assert!(
                    err.iter()
                        .any(|d| d.code == "OSB0006" && d.message.contains("SPIR-V 1.5")),
                    "{err:?}"
                );
                continue;
            }
            let words = match common::try_emit(&m, &Options::for_env(env)) {
                Ok(w) => w,
                Err(d) => panic!("{}: {d:?}", w.spelling()),
            };
            if let Err(e) = spirv_val(&words, env) {
                panic!("{} ({env}): {e}", w.spelling());
            }
        }
        checked += 1;
    }
    // Not here: render_target_sample_count (refused below) and the four interpolation
    // intrinsics (spirv_gaps.rs).
    assert_eq!(checked, Intrinsic::ALL.len() - 5);
    let text = "func @f() -> u32 {\nbb0:\n  %0 = call_intrinsic render_target_sample_count() : u32\n  return %0\n}\n";
    let err = common::try_emit(&parse(text), &Options::default()).expect_err("refused");
    assert!(
        err.iter()
            .any(|d| d.code == "OSB0006" && d.message.contains("render_target_sample_count")),
        "{err:?}"
    );
}

/// A fragment shader whose body is `calls` (after the values of [`shader`] and an integer
/// matrix `%im`, an array of vectors as the IR stores it).
fn shader_with(calls: &str) -> String {
    shader(Intrinsic::Abs, "vec<f32, 3>", "%v").replace(
        "  %r = call_intrinsic abs(%v) : vec<f32, 3>\n",
        &format!(
            "  %iv = bitcast %v : vec<i32, 3>\n  %im = construct %iv, %iv : array<vec<i32, 3>, 2>\n{calls}"
        ),
    )
}

/// The group operations take scalars and vectors only, and `OpGroupNonUniformAllEqual`
/// yields one `bool`: vectors are compared component by component and matrices (float, or
/// integer as arrays of vectors) row by row, then put back together (as DXC does). A current
/// spirv-val rejects one `AllEqual` with a vector result and group operations on matrices.
#[test]
fn wave_operands_of_every_shape_validate() {
    let text = shader_with(
        "  %e1 = call_intrinsic wave_active_all_equal(%v) : vec<bool, 3>
  %e2 = call_intrinsic wave_active_all_equal(%m) : array<vec<bool, 3>, 3>
  %e3 = call_intrinsic wave_active_all_equal(%im) : array<vec<bool, 3>, 2>
  %e4 = call_intrinsic wave_active_all_equal(%iv) : vec<bool, 3>
  %s1 = call_intrinsic wave_active_sum(%m) : mat<f32, 3, 3>
  %s2 = call_intrinsic wave_active_min(%im) : array<vec<i32, 3>, 2>
  %s3 = call_intrinsic wave_prefix_product(%im) : array<vec<i32, 3>, 2>
  %s4 = call_intrinsic wave_active_bit_xor(%im) : array<vec<i32, 3>, 2>
  %s5 = call_intrinsic wave_read_lane_first(%m) : mat<f32, 3, 3>
  %s6 = call_intrinsic wave_read_lane_at(%im, %u) : array<vec<i32, 3>, 2>
  %s7 = call_intrinsic quad_read_across_y(%m) : mat<f32, 3, 3>
  %s8 = call_intrinsic quad_read_lane_at(%m, u32 3) : mat<f32, 3, 3>
",
    );
    let m = parse(&text);
    for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
        let words = match common::try_emit(&m, &Options::for_env(env)) {
            Ok(w) => w,
            Err(d) => panic!("{env}: {d:?}"),
        };
        if let Err(e) = spirv_val(&words, env) {
            panic!("{env}: {e}");
        }
        let text = oneshader_backends::spirv::disassemble(&words).expect("disassembles");
        // e1: 3 components, e2: 3 rows of 3, e3: 2 rows of 3, e4: 3.
        assert_eq!(
            text.matches("OpGroupNonUniformAllEqual").count(),
            3 + 9 + 6 + 3,
            "{text}"
        );
        assert_eq!(text.matches("OpGroupNonUniformSMin").count(), 2, "{text}");
    }
}

/// `OpGroupNonUniformQuadBroadcast` takes a run-time index only from SPIR-V 1.5 on: before,
/// `QuadReadLaneAt` with a lane that is not a constant is refused, naming the target to use.
#[test]
fn quad_lane_must_be_constant_before_spirv_1_5() {
    let text = shader_with("  %q = call_intrinsic quad_read_lane_at(%f, %u) : f32\n");
    let m = parse(&text);
    let err = common::try_emit(&m, &Options::for_env(TargetEnv::Vulkan1_1)).expect_err("refused");
    assert!(
        err.iter().any(|d| d.code == "OSB0006"
            && d.message.contains("QuadReadLaneAt")
            && d.message.contains("vulkan1.2")),
        "{err:?}"
    );
    for env in [TargetEnv::Vulkan1_2, TargetEnv::Vulkan1_3] {
        let words = common::try_emit(&m, &Options::for_env(env)).expect("emits");
        if let Err(e) = spirv_val(&words, env) {
            panic!("{env}: {e}");
        }
    }
}
