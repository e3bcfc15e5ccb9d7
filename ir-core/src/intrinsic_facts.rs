//! What each intrinsic is, in one table: how many operands it takes, whether it applies to
//! each component separately, and its effects ([`Effects`]). One row per intrinsic and no
//! default arm, so a new intrinsic does not compile until its row says what it is (it never
//! defaults to "one operand, pure"). The folder, the interpreter, the verifier, CSE and DCE
//! read these facts here; which operands are pointers it accesses is beside its effects in
//! [`crate::effects`].

use crate::effects::Effects;
use crate::imm::Intrinsic;

/// The facts of one intrinsic ([`Intrinsic::facts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntrinsicFacts {
    /// The fewest operands it takes (the intrinsic's own id not counted).
    pub min_args: usize,
    /// The most operands it takes.
    pub max_args: usize,
    /// It applies to each component of its vector operands separately (so a folder can
    /// compute it one component at a time).
    pub component_wise: bool,
    /// What `call_intrinsic` of it does besides computing its result.
    pub effects: Effects,
}

const PURE: Effects = Effects::PURE;
const READ: Effects = Effects::READ;
const WRITE: Effects = Effects::WRITE;
const CONVERGENT: Effects = Effects::CONVERGENT;
/// Derivatives: convergent, and defined only where derivatives are (fragment shaders, compute
/// with derivative groups).
const DERIVATIVE: Effects = Effects::CONVERGENT.union(Effects::DERIVATIVES);

impl Intrinsic {
    /// The intrinsic's row of the table.
    pub fn facts(self) -> IntrinsicFacts {
        use Intrinsic::*;
        let ((min_args, max_args), component_wise, effects) = match self {
            Abs => ((1, 1), true, PURE),
            Sign => ((1, 1), true, PURE),
            Floor => ((1, 1), true, PURE),
            Ceil => ((1, 1), true, PURE),
            Round => ((1, 1), true, PURE),
            Trunc => ((1, 1), true, PURE),
            Frac => ((1, 1), true, PURE),
            Sqrt => ((1, 1), true, PURE),
            Rsqrt => ((1, 1), true, PURE),
            Exp => ((1, 1), true, PURE),
            Exp2 => ((1, 1), true, PURE),
            Log => ((1, 1), true, PURE),
            Log2 => ((1, 1), true, PURE),
            Pow => ((2, 2), true, PURE),
            Sin => ((1, 1), true, PURE),
            Cos => ((1, 1), true, PURE),
            Tan => ((1, 1), true, PURE),
            Asin => ((1, 1), true, PURE),
            Acos => ((1, 1), true, PURE),
            Atan => ((1, 1), true, PURE),
            Atan2 => ((2, 2), true, PURE),
            Sinh => ((1, 1), true, PURE),
            Cosh => ((1, 1), true, PURE),
            Tanh => ((1, 1), true, PURE),
            Min => ((2, 2), true, PURE),
            Max => ((2, 2), true, PURE),
            Clamp => ((3, 3), true, PURE),
            Lerp => ((3, 3), true, PURE),
            Step => ((2, 2), true, PURE),
            Smoothstep => ((3, 3), true, PURE),
            Fma => ((3, 3), true, PURE),
            Mad => ((3, 3), true, PURE),
            Dot => ((2, 2), false, PURE),
            Cross => ((2, 2), false, PURE),
            Length => ((1, 1), false, PURE),
            Distance => ((2, 2), false, PURE),
            Normalize => ((1, 1), false, PURE),
            Reflect => ((2, 2), false, PURE),
            Refract => ((3, 3), false, PURE),
            Faceforward => ((3, 3), false, PURE),
            Determinant => ((1, 1), false, PURE),
            Transpose => ((1, 1), false, PURE),
            IsNan => ((1, 1), true, PURE),
            IsInf => ((1, 1), true, PURE),
            IsFinite => ((1, 1), true, PURE),
            All => ((1, 1), false, PURE),
            Any => ((1, 1), false, PURE),
            CountBits => ((1, 1), true, PURE),
            ReverseBits => ((1, 1), true, PURE),
            FirstBitHigh => ((1, 1), true, PURE),
            FirstBitLow => ((1, 1), true, PURE),
            F32ToF16 => ((1, 1), true, PURE),
            F16ToF32 => ((1, 1), true, PURE),
            Ddx => ((1, 1), false, DERIVATIVE),
            Ddy => ((1, 1), false, DERIVATIVE),
            DdxFine => ((1, 1), false, DERIVATIVE),
            DdyFine => ((1, 1), false, DERIVATIVE),
            DdxCoarse => ((1, 1), false, DERIVATIVE),
            DdyCoarse => ((1, 1), false, DERIVATIVE),
            Fwidth => ((1, 1), false, DERIVATIVE),
            Ldexp => ((2, 2), false, PURE),
            Frexp => ((2, 2), false, WRITE), // writes the exponent through its pointer operand
            Modf => ((2, 2), false, WRITE),  // writes the integer part through its pointer operand
            Saturate => ((1, 1), true, PURE),
            Degrees => ((1, 1), true, PURE),
            Radians => ((1, 1), true, PURE),
            NonUniformIndex => ((1, 1), true, PURE),
            WaveGetLaneCount => ((0, 0), false, CONVERGENT),
            WaveGetLaneIndex => ((0, 0), false, CONVERGENT),
            WaveIsFirstLane => ((0, 0), false, CONVERGENT),
            WaveActiveAnyTrue => ((1, 1), false, CONVERGENT),
            WaveActiveAllTrue => ((1, 1), false, CONVERGENT),
            WaveActiveBallot => ((1, 1), false, CONVERGENT),
            WaveReadLaneAt => ((2, 2), false, CONVERGENT),
            WaveReadLaneFirst => ((1, 1), false, CONVERGENT),
            WaveActiveSum => ((1, 1), false, CONVERGENT),
            WaveActiveProduct => ((1, 1), false, CONVERGENT),
            WaveActiveMin => ((1, 1), false, CONVERGENT),
            WaveActiveMax => ((1, 1), false, CONVERGENT),
            WaveActiveBitAnd => ((1, 1), false, CONVERGENT),
            WaveActiveBitOr => ((1, 1), false, CONVERGENT),
            WaveActiveBitXor => ((1, 1), false, CONVERGENT),
            WaveActiveCountBits => ((1, 1), false, CONVERGENT),
            WavePrefixSum => ((1, 1), false, CONVERGENT),
            WavePrefixProduct => ((1, 1), false, CONVERGENT),
            WavePrefixCountBits => ((1, 1), false, CONVERGENT),
            WaveActiveAllEqual => ((1, 1), false, CONVERGENT),
            QuadReadAcrossX => ((1, 1), false, CONVERGENT),
            QuadReadAcrossY => ((1, 1), false, CONVERGENT),
            QuadReadAcrossDiagonal => ((1, 1), false, CONVERGENT),
            QuadReadLaneAt => ((2, 2), false, CONVERGENT),
            Sincos => ((3, 3), false, WRITE), // writes both results through its pointer operands
            Fmod => ((2, 2), true, PURE),
            Log10 => ((1, 1), true, PURE),
            PackHalf2x16 => ((1, 1), false, PURE),
            UnpackHalf2x16 => ((1, 1), false, PURE),
            Rcp => ((1, 1), true, PURE),
            RenderTargetSampleCount => ((0, 0), false, READ), // state of the pipeline
            IsHelperLane => ((0, 0), false, READ), // state of the invocation, not a function of the operands
            Inverse => ((1, 1), false, PURE),
            InterpolateAtCentroid => ((1, 1), false, READ), // reads the input its pointer operand designates
            InterpolateAtSample => ((2, 2), false, READ), // reads the input its pointer operand designates
            InterpolateAtOffset => ((2, 2), false, READ), // reads the input its pointer operand designates
            AttributeAtVertex => ((2, 2), false, READ), // reads the input its pointer operand designates
            CheckAccessFullyMapped => ((1, 1), false, PURE),
            DebugPrintf => ((1, usize::MAX), false, Effects::OUTPUT),
            DebugBreak => ((0, 0), false, Effects::OUTPUT),
        };
        IntrinsicFacts {
            min_args,
            max_args,
            component_wise,
            effects,
        }
    }

    /// The number of operands the intrinsic takes: `(min, max)`.
    pub fn arity(self) -> (usize, usize) {
        let f = self.facts();
        (f.min_args, f.max_args)
    }

    /// True when the intrinsic applies to each component separately.
    pub fn is_component_wise(self) -> bool {
        self.facts().component_wise
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows that contradict each other are caught here: a component-wise intrinsic is a pure
    /// function of one to three operands, and an intrinsic that reads or writes memory says
    /// which operands it does it through.
    #[test]
    fn rows_are_consistent() {
        for &w in Intrinsic::ALL {
            let f = w.facts();
            assert!(f.min_args <= f.max_args, "{w:?}");
            if f.component_wise {
                assert_eq!(
                    f.effects,
                    Effects::PURE,
                    "{w:?} is component-wise but not pure"
                );
                assert!((1..=3).contains(&f.max_args), "{w:?}");
            }
            let writes = f.effects.intersects(Effects::WRITE);
            let out_params = w.pointer_operands();
            assert_eq!(
                writes,
                out_params
                    .iter()
                    .any(|(_, a)| a.contains(crate::effects::Access::WRITE)),
                "{w:?}: its effects and its pointer operands disagree"
            );
        }
    }
}
