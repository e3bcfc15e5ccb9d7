//! The intrinsic names GLSL, WGSL and MSL spell alike (C's math library and GLSL's built-ins,
//! which WGSL and Metal took over): each target's table lists its own spellings and falls
//! back to this one.

use oneshader_ir::Intrinsic;

/// The function all three languages call `which` by, with the IR's operands in order, when
/// they agree on one.
pub(crate) fn common_name(which: Intrinsic) -> Option<&'static str> {
    use Intrinsic as I;
    Some(match which {
        I::Floor => "floor",
        I::Ceil => "ceil",
        I::Trunc => "trunc",
        I::Frac => "fract",
        I::Sqrt => "sqrt",
        I::Exp => "exp",
        I::Exp2 => "exp2",
        I::Log => "log",
        I::Log2 => "log2",
        I::Pow => "pow",
        I::Sin => "sin",
        I::Cos => "cos",
        I::Tan => "tan",
        I::Asin => "asin",
        I::Acos => "acos",
        I::Atan => "atan",
        I::Sinh => "sinh",
        I::Cosh => "cosh",
        I::Tanh => "tanh",
        I::Lerp => "mix",
        I::Step => "step",
        I::Smoothstep => "smoothstep",
        I::Fma => "fma",
        I::Cross => "cross",
        I::Length => "length",
        I::Distance => "distance",
        I::Normalize => "normalize",
        I::Reflect => "reflect",
        I::Refract => "refract",
        I::Determinant => "determinant",
        I::Transpose => "transpose",
        I::Min => "min",
        I::Max => "max",
        I::Clamp => "clamp",
        _ => return None,
    })
}
