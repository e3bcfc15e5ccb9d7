//! The meaning of every scalar operator, defined once and shared by the constant folder
//! ([`crate::combine`]) and the reference interpreter ([`crate::interp`]).
//!
//! Values are bit patterns: an integer is its two's complement bits zero-extended to 64 bits, a
//! float its IEEE-754 bits in the low bits (`f16` and `f32` zero-extended), a `bool` is 0 or 1.
//! Every operation returns a [`Folded`]: the result bits, and whether that result is the same on
//! every GPU (`foldable`). The interpreter uses the bits whatever the flag says; the folder
//! rewrites an instruction only when the flag is set.
//!
//! # Integer semantics
//!
//! - `add`, `sub`, `mul`, `neg` wrap at the type's width. Always foldable.
//! - `div` truncates toward zero, `rem` has the sign of the dividend (HLSL, SPIR-V
//!   `OpSDiv`/`OpSRem`). Division by zero and `MIN / -1` are undefined on GPUs, so never
//!   foldable; the interpreter gives them fixed values so that runs are reproducible: `x / 0`
//!   and `x % 0` are all-ones bits (D3D's unsigned rule, applied to both signednesses),
//!   `MIN / -1` is `MIN` and `MIN % -1` is 0.
//! - `shl`, `shr` take the shift amount modulo the width (`b & (bits - 1)`); `shr` is arithmetic
//!   on signed types and logical on unsigned ones. Always foldable.
//!
//! # Float semantics
//!
//! - `add`, `sub`, `mul`, `div` are IEEE-754 operations rounded to nearest-even in the
//!   operand's own precision. `f16` is computed in `f64` and rounded once to `f16`, which is
//!   correctly rounded because `f64` carries more than twice `f16`'s precision plus two bits.
//! - Foldable only when every operand and the result are *ordinary*: finite and either zero or
//!   normal. NaN, infinities and subnormals (which GPUs may flush) are left to the GPU.
//! - `div` is foldable only when the quotient is exact: Vulkan allows 2.5 ULP of error in
//!   division, so only a quotient that needs no rounding is the same everywhere.
//! - A multiplication or division of non-zero operands that rounds to zero is an underflow and
//!   not foldable.
//! - `rem` (`fmod`) is never foldable: GPUs compute it as `x - y * trunc(x / y)`.
//! - Comparisons are ordered (`ne` is unordered: true when an operand is NaN); foldable when
//!   both operands are ordinary.
//!
//! # Conversions
//!
//! - int to int: truncation or sign/zero extension by the source's signedness. Foldable.
//! - int to float: round to nearest-even; foldable only when exact.
//! - float to int: truncation toward zero; foldable when the operand is ordinary and the
//!   truncated value is in range. Out of range, NaN and infinities are undefined on GPUs; the
//!   interpreter saturates (NaN gives 0).
//! - float to float: exact widening, nearest-even narrowing; foldable when operand and result are
//!   ordinary and the value is unchanged.
//! - `bool` converts to 0/1 and from `x != 0`.
//! - `bitcast` keeps the bits; foldable unless the result is a float that is not ordinary.
//!
//! # Intrinsics
//!
//! [`intrinsic`] computes the component-wise intrinsics. Exact ones (integer `abs`/`min`/`max`/
//! `clamp`/`sign`, bit counting, float `abs`/`min`/`max`/`clamp`/`saturate`/`floor`/`ceil`/
//! `round`/`trunc`/`step`/`sign` on ordinary operands) are foldable. Transcendentals, `sqrt`,
//! `rsqrt`, `pow`, `fma`, `mad`, `lerp`, `smoothstep`, `frac`, `fmod`, `degrees`, `radians`
//! are computed with Rust's `std` float functions (close to, but not guaranteed equal to, any
//! GPU's) and are never foldable.

use oneshader_ir::{InstId, Intrinsic, Module, Op};

/// A scalar type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    /// `bool`.
    Bool,
    /// `i8`.
    I8,
    /// `i16`.
    I16,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `u8`.
    U8,
    /// `u16`.
    U16,
    /// `u32`.
    U32,
    /// `u64`.
    U64,
    /// `f16`.
    F16,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
}

impl Scalar {
    /// The scalar type of a scalar-type opcode.
    pub fn from_op(op: Op) -> Option<Scalar> {
        Some(match op {
            Op::Bool => Scalar::Bool,
            Op::I8 => Scalar::I8,
            Op::I16 => Scalar::I16,
            Op::I32 => Scalar::I32,
            Op::I64 => Scalar::I64,
            Op::U8 => Scalar::U8,
            Op::U16 => Scalar::U16,
            Op::U32 => Scalar::U32,
            Op::U64 => Scalar::U64,
            Op::F16 => Scalar::F16,
            Op::F32 => Scalar::F32,
            Op::F64 => Scalar::F64,
            _ => return None,
        })
    }

    /// The scalar type `ty` is, if it is one.
    pub fn of(m: &Module, ty: InstId) -> Option<Scalar> {
        Scalar::from_op(m.try_op(ty)?)
    }

    /// The opcode of this scalar type.
    pub fn op(self) -> Op {
        match self {
            Scalar::Bool => Op::Bool,
            Scalar::I8 => Op::I8,
            Scalar::I16 => Op::I16,
            Scalar::I32 => Op::I32,
            Scalar::I64 => Op::I64,
            Scalar::U8 => Op::U8,
            Scalar::U16 => Op::U16,
            Scalar::U32 => Op::U32,
            Scalar::U64 => Op::U64,
            Scalar::F16 => Op::F16,
            Scalar::F32 => Op::F32,
            Scalar::F64 => Op::F64,
        }
    }

    /// Width in bits (1 for `bool`).
    pub fn width(self) -> u32 {
        match self {
            Scalar::Bool => 1,
            Scalar::I8 | Scalar::U8 => 8,
            Scalar::I16 | Scalar::U16 | Scalar::F16 => 16,
            Scalar::I32 | Scalar::U32 | Scalar::F32 => 32,
            Scalar::I64 | Scalar::U64 | Scalar::F64 => 64,
        }
    }

    /// The mask of the type's bits.
    pub fn mask(self) -> u64 {
        let w = self.width();
        if w >= 64 { u64::MAX } else { (1u64 << w) - 1 }
    }

    /// `bool`.
    pub fn is_bool(self) -> bool {
        self == Scalar::Bool
    }

    /// An integer type (signed or unsigned).
    pub fn is_int(self) -> bool {
        matches!(
            self,
            Scalar::I8
                | Scalar::I16
                | Scalar::I32
                | Scalar::I64
                | Scalar::U8
                | Scalar::U16
                | Scalar::U32
                | Scalar::U64
        )
    }

    /// A signed integer type.
    pub fn is_signed(self) -> bool {
        matches!(self, Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64)
    }

    /// A float type.
    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F16 | Scalar::F32 | Scalar::F64)
    }

    /// The text spelling (`i32`, `f16`...).
    pub fn spelling(self) -> &'static str {
        self.op().spelling()
    }
}

impl std::fmt::Display for Scalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.spelling())
    }
}

/// The result of an operation: its bits, and whether it is the same on every GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Folded {
    /// The result's bits (normalized: only the type's bits may be set).
    pub bits: u64,
    /// True when every GPU computes exactly these bits, so the folder may use them.
    pub foldable: bool,
}

impl Folded {
    fn exact(bits: u64) -> Folded {
        Folded {
            bits,
            foldable: true,
        }
    }

    fn with(bits: u64, foldable: bool) -> Folded {
        Folded { bits, foldable }
    }
}

/// Why an operation has no meaning.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SemanticsError {
    /// The operator is not defined on this type (e.g. `shl` on a float).
    #[error("`{op}` is not defined on `{ty}`")]
    Undefined {
        /// The operator.
        op: &'static str,
        /// The operand type.
        ty: Scalar,
    },
    /// The conversion or bitcast is not defined between these types.
    #[error("`{op}` from `{from}` to `{to}` is not defined")]
    BadConversion {
        /// `convert` or `bitcast`.
        op: &'static str,
        /// Source type.
        from: Scalar,
        /// Destination type.
        to: Scalar,
    },
    /// The intrinsic is not component-wise or got the wrong number of operands.
    #[error("intrinsic `{0}` cannot be computed here")]
    Intrinsic(&'static str),
}

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `add`.
    Add,
    /// `sub`.
    Sub,
    /// `mul`.
    Mul,
    /// `div`.
    Div,
    /// `rem`.
    Rem,
    /// `and`.
    And,
    /// `or`.
    Or,
    /// `xor`.
    Xor,
    /// `shl`.
    Shl,
    /// `shr`.
    Shr,
}

impl BinaryOp {
    /// The operator of an opcode.
    pub fn from_op(op: Op) -> Option<BinaryOp> {
        Some(match op {
            Op::Add => BinaryOp::Add,
            Op::Sub => BinaryOp::Sub,
            Op::Mul => BinaryOp::Mul,
            Op::Div => BinaryOp::Div,
            Op::Rem => BinaryOp::Rem,
            Op::And => BinaryOp::And,
            Op::Or => BinaryOp::Or,
            Op::Xor => BinaryOp::Xor,
            Op::Shl => BinaryOp::Shl,
            Op::Shr => BinaryOp::Shr,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::Rem => "rem",
            BinaryOp::And => "and",
            BinaryOp::Or => "or",
            BinaryOp::Xor => "xor",
            BinaryOp::Shl => "shl",
            BinaryOp::Shr => "shr",
        }
    }
}

/// A unary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `neg`.
    Neg,
    /// `not`.
    Not,
}

impl UnaryOp {
    /// The operator of an opcode.
    pub fn from_op(op: Op) -> Option<UnaryOp> {
        match op {
            Op::Neg => Some(UnaryOp::Neg),
            Op::Not => Some(UnaryOp::Not),
            _ => None,
        }
    }
}

/// A comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompareOp {
    /// `eq` (ordered).
    Eq,
    /// `ne` (unordered).
    Ne,
    /// `lt`.
    Lt,
    /// `le`.
    Le,
    /// `gt`.
    Gt,
    /// `ge`.
    Ge,
}

impl CompareOp {
    /// The comparison of an opcode.
    pub fn from_op(op: Op) -> Option<CompareOp> {
        Some(match op {
            Op::Eq => CompareOp::Eq,
            Op::Ne => CompareOp::Ne,
            Op::Lt => CompareOp::Lt,
            Op::Le => CompareOp::Le,
            Op::Gt => CompareOp::Gt,
            Op::Ge => CompareOp::Ge,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            CompareOp::Eq => "eq",
            CompareOp::Ne => "ne",
            CompareOp::Lt => "lt",
            CompareOp::Le => "le",
            CompareOp::Gt => "gt",
            CompareOp::Ge => "ge",
        }
    }
}

// ---- bit helpers ---------------------------------------------------------------------------

/// The value of integer bits as an `i128` (sign-extended for signed types).
pub fn int_value(ty: Scalar, bits: u64) -> i128 {
    let bits = bits & ty.mask();
    if ty.is_signed() {
        sext(bits, ty.width()) as i128
    } else {
        bits as i128
    }
}

fn sext(bits: u64, width: u32) -> i64 {
    if width >= 64 {
        bits as i64
    } else {
        let s = 64 - width;
        ((bits << s) as i64) >> s
    }
}

fn signed_min(ty: Scalar) -> u64 {
    1u64 << (ty.width() - 1)
}

// ---- f16 -----------------------------------------------------------------------------------

pub use oneshader_ir::float16::{f16_to_f64, f64_to_f16};

/// The exact value of float bits of type `ty` as an `f64` (`f16` and `f32` convert exactly).
pub fn float_value(ty: Scalar, bits: u64) -> f64 {
    match ty {
        Scalar::F16 => f16_to_f64(bits as u16),
        Scalar::F32 => f32::from_bits(bits as u32) as f64,
        _ => f64::from_bits(bits),
    }
}

/// The bits of `x` rounded (nearest-even) to float type `ty`.
pub fn float_bits(ty: Scalar, x: f64) -> u64 {
    match ty {
        Scalar::F16 => f64_to_f16(x) as u64,
        Scalar::F32 => (x as f32).to_bits() as u64,
        _ => x.to_bits(),
    }
}

/// The class of a float.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatClass {
    /// `+0` or `-0`.
    Zero,
    /// A normal number.
    Normal,
    /// A subnormal number (GPUs may flush it to zero).
    Subnormal,
    /// An infinity.
    Infinite,
    /// Not a number.
    Nan,
}

/// Classifies float bits of type `ty`.
pub fn float_class(ty: Scalar, bits: u64) -> FloatClass {
    let (exp_bits, mant_bits) = match ty {
        Scalar::F16 => (5, 10),
        Scalar::F32 => (8, 23),
        _ => (11, 52),
    };
    let exp = (bits >> mant_bits) & ((1u64 << exp_bits) - 1);
    let mant = bits & ((1u64 << mant_bits) - 1);
    let max = (1u64 << exp_bits) - 1;
    match (exp, mant) {
        (0, 0) => FloatClass::Zero,
        (0, _) => FloatClass::Subnormal,
        (e, 0) if e == max => FloatClass::Infinite,
        (e, _) if e == max => FloatClass::Nan,
        _ => FloatClass::Normal,
    }
}

/// True for a float that folds the same everywhere: finite and zero or normal.
pub fn is_ordinary(ty: Scalar, bits: u64) -> bool {
    matches!(float_class(ty, bits), FloatClass::Zero | FloatClass::Normal)
}

fn is_zero_float(ty: Scalar, bits: u64) -> bool {
    float_class(ty, bits) == FloatClass::Zero
}

fn is_nan(ty: Scalar, bits: u64) -> bool {
    float_class(ty, bits) == FloatClass::Nan
}

/// Applies `f` in `ty`'s own precision: native for `f32` and `f64`, through `f64` with one
/// rounding for `f16`.
fn float_op2(
    ty: Scalar,
    a: u64,
    b: u64,
    f32op: fn(f32, f32) -> f32,
    f64op: fn(f64, f64) -> f64,
) -> u64 {
    match ty {
        Scalar::F32 => f32op(f32::from_bits(a as u32), f32::from_bits(b as u32)).to_bits() as u64,
        Scalar::F64 => f64op(f64::from_bits(a), f64::from_bits(b)).to_bits(),
        _ => f64_to_f16(f64op(f16_to_f64(a as u16), f16_to_f64(b as u16))) as u64,
    }
}

fn float_op1(ty: Scalar, a: u64, f32op: fn(f32) -> f32, f64op: fn(f64) -> f64) -> u64 {
    match ty {
        Scalar::F32 => f32op(f32::from_bits(a as u32)).to_bits() as u64,
        Scalar::F64 => f64op(f64::from_bits(a)).to_bits(),
        _ => f64_to_f16(f64op(f16_to_f64(a as u16))) as u64,
    }
}

/// True when `q` is exactly `a / b` (no rounding happened).
fn quotient_is_exact(ty: Scalar, a: u64, b: u64, q: u64) -> bool {
    match ty {
        Scalar::F64 => {
            let (a, b, q) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(q));
            q.mul_add(b, -a) == 0.0
        }
        _ => {
            // Products of two f16/f32 values are exact in f64 (at most 48 significant bits).
            float_value(ty, q) * float_value(ty, b) == float_value(ty, a)
        }
    }
}

// ---- operators -----------------------------------------------------------------------------

/// `a op b` on scalars of type `ty`.
pub fn binary(op: BinaryOp, ty: Scalar, a: u64, b: u64) -> Result<Folded, SemanticsError> {
    let undefined = || SemanticsError::Undefined { op: op.name(), ty };
    let mask = ty.mask();
    let (a, b) = (a & mask, b & mask);
    if ty.is_bool() {
        return Ok(Folded::exact(match op {
            BinaryOp::And => a & b,
            BinaryOp::Or => a | b,
            BinaryOp::Xor => a ^ b,
            _ => return Err(undefined()),
        }));
    }
    if ty.is_int() {
        let w = ty.width();
        return Ok(match op {
            BinaryOp::Add => Folded::exact(a.wrapping_add(b) & mask),
            BinaryOp::Sub => Folded::exact(a.wrapping_sub(b) & mask),
            BinaryOp::Mul => Folded::exact(a.wrapping_mul(b) & mask),
            BinaryOp::And => Folded::exact(a & b),
            BinaryOp::Or => Folded::exact(a | b),
            BinaryOp::Xor => Folded::exact(a ^ b),
            BinaryOp::Shl => Folded::exact((a << (b & (w as u64 - 1))) & mask),
            BinaryOp::Shr => {
                let s = b & (w as u64 - 1);
                if ty.is_signed() {
                    Folded::exact(((sext(a, w) >> s) as u64) & mask)
                } else {
                    Folded::exact(a >> s)
                }
            }
            BinaryOp::Div | BinaryOp::Rem => {
                let is_div = op == BinaryOp::Div;
                if b == 0 {
                    return Ok(Folded::with(mask, false));
                }
                if ty.is_signed() {
                    let min = signed_min(ty);
                    if a == min && b == mask {
                        return Ok(Folded::with(if is_div { min } else { 0 }, false));
                    }
                    let (x, y) = (sext(a, w), sext(b, w));
                    let r = if is_div {
                        x.wrapping_div(y)
                    } else {
                        x.wrapping_rem(y)
                    };
                    Folded::exact(r as u64 & mask)
                } else {
                    Folded::exact(if is_div { a / b } else { a % b })
                }
            }
        });
    }
    // Floats.
    let ordinary = is_ordinary(ty, a) && is_ordinary(ty, b);
    let r = match op {
        BinaryOp::Add => float_op2(ty, a, b, |x, y| x + y, |x, y| x + y),
        BinaryOp::Sub => float_op2(ty, a, b, |x, y| x - y, |x, y| x - y),
        BinaryOp::Mul => float_op2(ty, a, b, |x, y| x * y, |x, y| x * y),
        BinaryOp::Div => float_op2(ty, a, b, |x, y| x / y, |x, y| x / y),
        BinaryOp::Rem => {
            let r = float_op2(ty, a, b, |x, y| x % y, |x, y| x % y);
            return Ok(Folded::with(r, false));
        }
        _ => return Err(undefined()),
    };
    let mut foldable = ordinary && is_ordinary(ty, r);
    // A product or quotient of non-zero operands that rounds to zero is an underflow.
    let underflow = match op {
        BinaryOp::Mul => !is_zero_float(ty, a) && !is_zero_float(ty, b),
        BinaryOp::Div => !is_zero_float(ty, a),
        _ => false,
    };
    if foldable && underflow && is_zero_float(ty, r) {
        foldable = false;
    }
    if foldable && op == BinaryOp::Div && !quotient_is_exact(ty, a, b, r) {
        foldable = false;
    }
    Ok(Folded::with(r, foldable))
}

/// `op a` on a scalar of type `ty`.
pub fn unary(op: UnaryOp, ty: Scalar, a: u64) -> Result<Folded, SemanticsError> {
    let mask = ty.mask();
    let a = a & mask;
    match (op, ty) {
        (UnaryOp::Not, Scalar::Bool) => Ok(Folded::exact(a ^ 1)),
        (UnaryOp::Not, t) if t.is_int() => Ok(Folded::exact(!a & mask)),
        (UnaryOp::Neg, t) if t.is_int() => Ok(Folded::exact(a.wrapping_neg() & mask)),
        (UnaryOp::Neg, t) if t.is_float() => {
            let sign = 1u64 << (t.width() - 1);
            Ok(Folded::with(a ^ sign, is_ordinary(t, a)))
        }
        _ => Err(SemanticsError::Undefined {
            op: if op == UnaryOp::Neg { "neg" } else { "not" },
            ty,
        }),
    }
}

/// `a op b` on scalars of type `ty`; the result is a `bool` (0 or 1).
pub fn compare(op: CompareOp, ty: Scalar, a: u64, b: u64) -> Result<Folded, SemanticsError> {
    let mask = ty.mask();
    let (a, b) = (a & mask, b & mask);
    if ty.is_bool() {
        return match op {
            CompareOp::Eq => Ok(Folded::exact((a == b) as u64)),
            CompareOp::Ne => Ok(Folded::exact((a != b) as u64)),
            _ => Err(SemanticsError::Undefined { op: op.name(), ty }),
        };
    }
    if ty.is_int() {
        let (x, y) = (int_value(ty, a), int_value(ty, b));
        let r = match op {
            CompareOp::Eq => x == y,
            CompareOp::Ne => x != y,
            CompareOp::Lt => x < y,
            CompareOp::Le => x <= y,
            CompareOp::Gt => x > y,
            CompareOp::Ge => x >= y,
        };
        return Ok(Folded::exact(r as u64));
    }
    let (x, y) = (float_value(ty, a), float_value(ty, b));
    let r = match op {
        CompareOp::Eq => x == y,
        CompareOp::Ne => x != y,
        CompareOp::Lt => x < y,
        CompareOp::Le => x <= y,
        CompareOp::Gt => x > y,
        CompareOp::Ge => x >= y,
    };
    Ok(Folded::with(
        r as u64,
        is_ordinary(ty, a) && is_ordinary(ty, b),
    ))
}

/// Numeric conversion of `a` from `from` to `to`.
pub fn convert(from: Scalar, to: Scalar, a: u64) -> Result<Folded, SemanticsError> {
    let a = a & from.mask();
    if from == to {
        return Ok(Folded::exact(a));
    }
    if to.is_bool() {
        return Ok(if from.is_float() {
            Folded::with((float_value(from, a) != 0.0) as u64, is_ordinary(from, a))
        } else {
            Folded::exact((a != 0) as u64)
        });
    }
    if from.is_bool() {
        return Ok(Folded::exact(if to.is_float() {
            float_bits(to, a as f64)
        } else {
            a
        }));
    }
    if from.is_int() && to.is_int() {
        return Ok(Folded::exact(int_value(from, a) as u64 & to.mask()));
    }
    if from.is_int() {
        // Integer to float: nearest-even; exact when the value survives the round trip.
        let v = int_value(from, a);
        let r = int_to_float(to, v);
        let exact = float_to_int_exact(to, r) == Some(v);
        return Ok(Folded::with(r, exact));
    }
    if to.is_int() {
        let x = float_value(from, a);
        let t = x.trunc();
        let (lo, hi) = int_range(to);
        let in_range = !x.is_nan() && t >= lo as f64 && t <= hi as f64;
        let v: i128 = if x.is_nan() {
            0
        } else if t <= lo as f64 {
            lo
        } else if t >= hi as f64 {
            hi
        } else {
            t as i128
        };
        return Ok(Folded::with(
            v as u64 & to.mask(),
            in_range && is_ordinary(from, a),
        ));
    }
    // Float to float.
    let x = float_value(from, a);
    let r = if x.is_nan() {
        nan_convert(from, to, a)
    } else {
        float_bits(to, x)
    };
    let foldable = is_ordinary(from, a) && is_ordinary(to, r) && float_value(to, r) == x;
    Ok(Folded::with(r, foldable))
}

/// Converts a NaN between float widths keeping its sign and the top of its payload.
fn nan_convert(from: Scalar, to: Scalar, a: u64) -> u64 {
    // Through f64 (exact for every source): f32 -> f64 keeps the payload, f64 -> f32 and
    // f64 -> f16 keep its top bits.
    let wide = float_value(from, a);
    match to {
        Scalar::F64 => wide.to_bits(),
        Scalar::F32 => (wide as f32).to_bits() as u64,
        _ => f64_to_f16(wide) as u64,
    }
}

fn int_range(ty: Scalar) -> (i128, i128) {
    let w = ty.width();
    if ty.is_signed() {
        (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
    } else {
        (0, (1i128 << w) - 1)
    }
}

/// An integer rounded (nearest-even) to float type `ty`.
fn int_to_float(ty: Scalar, v: i128) -> u64 {
    match ty {
        // i128 -> f32 and -> f64 round to nearest-even in Rust.
        Scalar::F32 => (v as f32).to_bits() as u64,
        Scalar::F64 => (v as f64).to_bits(),
        _ => {
            // Every integer of up to 64 bits that rounds to a finite f16 is exact in f64 after
            // its first rounding only if it has at most 53 significant bits; round through an
            // exact path instead: f16 keeps 11 bits, so values above 2^53 are far beyond f16's
            // range (65504) and become infinities anyway.
            if v.unsigned_abs() > (1u128 << 53) {
                let sign = if v < 0 { 0x8000 } else { 0 };
                (sign | 0x7c00) as u64
            } else {
                f64_to_f16(v as f64) as u64
            }
        }
    }
}

/// The integer value of float bits when they hold an integer, exactly.
fn float_to_int_exact(ty: Scalar, bits: u64) -> Option<i128> {
    let x = float_value(ty, bits);
    if !x.is_finite() || x.trunc() != x || x.abs() > 1.8e19 {
        return None;
    }
    Some(x as i128)
}

/// Reinterprets the bits of `a` (type `from`) as type `to`; the widths must match.
pub fn bitcast(from: Scalar, to: Scalar, a: u64) -> Result<Folded, SemanticsError> {
    if from.width() != to.width() || from.is_bool() || to.is_bool() {
        return Err(SemanticsError::BadConversion {
            op: "bitcast",
            from,
            to,
        });
    }
    let a = a & from.mask();
    let foldable = !to.is_float() || is_ordinary(to, a);
    Ok(Folded::with(a, foldable))
}

// ---- intrinsics ----------------------------------------------------------------------------

/// True when `which` applies to each component separately (so [`intrinsic`] computes it):
/// its row of `oneshader_ir::intrinsic_facts`.
pub fn is_component_wise(which: Intrinsic) -> bool {
    which.is_component_wise()
}

/// Computes a component-wise intrinsic on one component of each operand. `result` is the
/// result's scalar type (e.g. `bool` for `isnan`, `u32` for `countbits`).
pub fn intrinsic(
    which: Intrinsic,
    result: Scalar,
    args: &[(Scalar, u64)],
) -> Result<Folded, SemanticsError> {
    use Intrinsic::*;
    let bad = || SemanticsError::Intrinsic(which.spelling());
    if !is_component_wise(which) {
        return Err(bad());
    }
    let (min_arity, max_arity) = which.arity();
    if args.len() < min_arity || args.len() > max_arity {
        return Err(bad());
    }
    let (ty, a) = (args[0].0, args[0].1 & args[0].0.mask());
    let arg = |i: usize| args[i].1 & args[i].0.mask();
    let all_ordinary = || {
        args.iter()
            .all(|&(t, b)| !t.is_float() || is_ordinary(t, b))
    };

    if which == NonUniformIndex {
        return Ok(Folded::exact(a));
    }
    if ty.is_int() || ty.is_bool() {
        let v = |i: usize| int_value(args[i].0, arg(i));
        let out = |x: i128| x as u64 & result.mask();
        return Ok(match which {
            Abs if ty.is_int() => {
                let x = v(0);
                // abs(MIN) has no positive counterpart: wraps to MIN, not foldable.
                let r = x.abs();
                Folded::with(out(r), !(ty.is_signed() && a == signed_min(ty)))
            }
            Sign if ty.is_int() => Folded::exact(out(v(0).signum())),
            Min if ty.is_int() => Folded::exact(out(v(0).min(v(1)))),
            Max if ty.is_int() => Folded::exact(out(v(0).max(v(1)))),
            Clamp if ty.is_int() => {
                let (x, lo, hi) = (v(0), v(1), v(2));
                Folded::with(out(x.max(lo).min(hi)), lo <= hi)
            }
            CountBits if ty.is_int() => Folded::exact(out(a.count_ones() as i128)),
            ReverseBits if ty.is_int() => {
                let w = ty.width();
                Folded::exact((a.reverse_bits() >> (64 - w)) & result.mask())
            }
            FirstBitLow if ty.is_int() => Folded::exact(if a == 0 {
                result.mask()
            } else {
                a.trailing_zeros() as u64
            }),
            FirstBitHigh if ty.is_int() => {
                let w = ty.width();
                // Signed: the highest bit that differs from the sign bit.
                let x = if ty.is_signed() && (a >> (w - 1)) & 1 == 1 {
                    !a & ty.mask()
                } else {
                    a
                };
                Folded::exact(if x == 0 {
                    result.mask()
                } else {
                    (63 - x.leading_zeros()) as u64
                })
            }
            F16ToF32 if ty.is_int() => {
                let h = (a & 0xffff) as u16;
                let r = float_bits(result, f16_to_f64(h));
                Folded::with(r, is_ordinary(Scalar::F16, h as u64))
            }
            _ => return Err(bad()),
        });
    }

    // Floats.
    let x = float_value(ty, a);
    let fv = |i: usize| float_value(args[i].0, arg(i));
    let round = |v: f64| float_bits(ty, v);
    Ok(match which {
        Abs => Folded::with(a & !(1u64 << (ty.width() - 1)), all_ordinary()),
        Sign => {
            let s = if x.is_nan() || x == 0.0 {
                0.0
            } else {
                x.signum()
            };
            let r = if result.is_float() {
                float_bits(result, s)
            } else {
                s as i64 as u64 & result.mask()
            };
            Folded::with(r, all_ordinary())
        }
        Floor => Folded::with(float_op1(ty, a, f32::floor, f64::floor), all_ordinary()),
        Ceil => Folded::with(float_op1(ty, a, f32::ceil, f64::ceil), all_ordinary()),
        Trunc => Folded::with(float_op1(ty, a, f32::trunc, f64::trunc), all_ordinary()),
        Round => Folded::with(
            float_op1(ty, a, f32::round_ties_even, f64::round_ties_even),
            all_ordinary(),
        ),
        Saturate => {
            let r = if x.is_nan() {
                round(0.0)
            } else if x <= 0.0 {
                // Keeps -0.0 as it is: max(x, 0) on GPUs is not consistent about the sign.
                if x == 0.0 { a } else { round(0.0) }
            } else if x >= 1.0 {
                round(1.0)
            } else {
                a
            };
            Folded::with(r, all_ordinary() && !is_zero_float(ty, a))
        }
        Min | Max => {
            let y = fv(1);
            // A NaN operand yields the other one (IEEE minNum/maxNum, GLSL.std.450 NMin).
            let pick_a =
                !x.is_nan() && (y.is_nan() || (which == Min && x <= y) || (which == Max && x >= y));
            let r = if pick_a { a } else { arg(1) };
            // min/max of +0 and -0 may give either sign on GPUs.
            let zeros = is_zero_float(ty, a) && is_zero_float(ty, arg(1));
            Folded::with(r, all_ordinary() && !zeros)
        }
        Clamp => {
            let (lo, hi) = (fv(1), fv(2));
            let r = if x.is_nan() || x < lo {
                arg(1)
            } else if x > hi {
                arg(2)
            } else {
                a
            };
            let zeros = args.iter().filter(|&&(t, b)| is_zero_float(t, b)).count() > 1;
            Folded::with(r & ty.mask(), all_ordinary() && lo <= hi && !zeros)
        }
        Step => {
            // step(edge, x) = x >= edge ? 1 : 0.
            let r = if fv(1) >= x { 1.0 } else { 0.0 };
            Folded::with(round(r), all_ordinary())
        }
        IsNan | IsInf | IsFinite => {
            let r = match which {
                IsNan => x.is_nan(),
                IsInf => x.is_infinite(),
                _ => x.is_finite(),
            };
            Folded::with(r as u64, all_ordinary())
        }
        F32ToF16 => Folded::with(
            f64_to_f16(x) as u64 & result.mask(),
            all_ordinary() && f16_to_f64(f64_to_f16(x)) == x,
        ),
        // Computed with std's functions; never foldable.
        Frac => Folded::with(round(x - x.floor()), false),
        Sqrt => Folded::with(float_op1(ty, a, f32::sqrt, f64::sqrt), false),
        Rsqrt => Folded::with(
            float_op1(ty, a, |v| 1.0 / v.sqrt(), |v| 1.0 / v.sqrt()),
            false,
        ),
        Rcp => Folded::with(float_op1(ty, a, |v| 1.0 / v, |v| 1.0 / v), false),
        Exp => Folded::with(float_op1(ty, a, f32::exp, f64::exp), false),
        Exp2 => Folded::with(float_op1(ty, a, f32::exp2, f64::exp2), false),
        Log => Folded::with(float_op1(ty, a, f32::ln, f64::ln), false),
        Log2 => Folded::with(float_op1(ty, a, f32::log2, f64::log2), false),
        Log10 => Folded::with(float_op1(ty, a, f32::log10, f64::log10), false),
        Sin => Folded::with(float_op1(ty, a, f32::sin, f64::sin), false),
        Cos => Folded::with(float_op1(ty, a, f32::cos, f64::cos), false),
        Tan => Folded::with(float_op1(ty, a, f32::tan, f64::tan), false),
        Asin => Folded::with(float_op1(ty, a, f32::asin, f64::asin), false),
        Acos => Folded::with(float_op1(ty, a, f32::acos, f64::acos), false),
        Atan => Folded::with(float_op1(ty, a, f32::atan, f64::atan), false),
        Sinh => Folded::with(float_op1(ty, a, f32::sinh, f64::sinh), false),
        Cosh => Folded::with(float_op1(ty, a, f32::cosh, f64::cosh), false),
        Tanh => Folded::with(float_op1(ty, a, f32::tanh, f64::tanh), false),
        Degrees => Folded::with(float_op1(ty, a, f32::to_degrees, f64::to_degrees), false),
        Radians => Folded::with(float_op1(ty, a, f32::to_radians, f64::to_radians), false),
        Pow => Folded::with(float_op2(ty, a, arg(1), f32::powf, f64::powf), false),
        Atan2 => Folded::with(float_op2(ty, a, arg(1), f32::atan2, f64::atan2), false),
        Fmod => Folded::with(float_op2(ty, a, arg(1), |p, q| p % q, |p, q| p % q), false),
        Fma => {
            let (b, c) = (fv(1), fv(2));
            let r = match ty {
                Scalar::F32 => (x as f32).mul_add(b as f32, c as f32).to_bits() as u64,
                Scalar::F64 => x.mul_add(b, c).to_bits(),
                _ => f64_to_f16(x.mul_add(b, c)) as u64,
            };
            Folded::with(r, false)
        }
        Mad => {
            // Unfused: multiply, round, add, round.
            let p = float_op2(ty, a, arg(1), |p, q| p * q, |p, q| p * q);
            let r = float_op2(ty, p, arg(2), |p, q| p + q, |p, q| p + q);
            Folded::with(r, false)
        }
        Lerp => {
            // a + t * (b - a), each step rounded.
            let d = float_op2(ty, arg(1), a, |p, q| p - q, |p, q| p - q);
            let p = float_op2(ty, arg(2), d, |p, q| p * q, |p, q| p * q);
            let r = float_op2(ty, a, p, |p, q| p + q, |p, q| p + q);
            Folded::with(r, false)
        }
        Smoothstep => {
            let (lo, hi, v) = (x, fv(1), fv(2));
            let t = ((v - lo) / (hi - lo)).clamp(0.0, 1.0);
            Folded::with(round(t * t * (3.0 - 2.0 * t)), false)
        }
        _ => return Err(bad()),
    })
}

/// True when `bits` of float type `ty` is a NaN (for callers that special-case NaN).
pub fn float_is_nan(ty: Scalar, bits: u64) -> bool {
    ty.is_float() && is_nan(ty, bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32b(x: f32) -> u64 {
        x.to_bits() as u64
    }

    #[test]
    fn integer_wrapping_and_widths() {
        let r = binary(BinaryOp::Add, Scalar::I8, 127, 1).unwrap();
        assert_eq!(r, Folded::exact(0x80));
        let r = binary(BinaryOp::Mul, Scalar::U16, 0xffff, 0xffff).unwrap();
        assert_eq!(r.bits, 1);
        let r = binary(BinaryOp::Sub, Scalar::U32, 0, 1).unwrap();
        assert_eq!(r.bits, 0xffff_ffff);
    }

    #[test]
    fn signed_division_truncates_and_remainder_follows_dividend() {
        let m = Scalar::I32.mask();
        let r = binary(BinaryOp::Div, Scalar::I32, (-7i32) as u32 as u64, 2).unwrap();
        assert_eq!(r, Folded::exact((-3i32) as u32 as u64));
        let r = binary(BinaryOp::Rem, Scalar::I32, (-7i32) as u32 as u64, 2).unwrap();
        assert_eq!(r, Folded::exact((-1i32) as u32 as u64));
        let r = binary(BinaryOp::Rem, Scalar::I32, 7, (-2i32) as u32 as u64).unwrap();
        assert_eq!(r, Folded::exact(1));
        // Undefined cases: fixed values, not foldable.
        let r = binary(BinaryOp::Div, Scalar::I32, 5, 0).unwrap();
        assert_eq!(r, Folded::with(m, false));
        let r = binary(BinaryOp::Div, Scalar::I32, 0x8000_0000, m).unwrap();
        assert_eq!(r, Folded::with(0x8000_0000, false));
        let r = binary(BinaryOp::Rem, Scalar::I32, 0x8000_0000, m).unwrap();
        assert_eq!(r, Folded::with(0, false));
        let r = binary(BinaryOp::Div, Scalar::U32, 0x8000_0000, m).unwrap();
        assert_eq!(r, Folded::exact(0));
    }

    #[test]
    fn shifts_are_masked() {
        let r = binary(BinaryOp::Shl, Scalar::U32, 1, 33).unwrap();
        assert_eq!(r.bits, 2);
        let r = binary(BinaryOp::Shr, Scalar::I32, 0x8000_0000, 31).unwrap();
        assert_eq!(r.bits, 0xffff_ffff);
        let r = binary(BinaryOp::Shr, Scalar::U32, 0x8000_0000, 63).unwrap();
        assert_eq!(r.bits, 1);
        let r = binary(BinaryOp::Shl, Scalar::U8, 0x81, 1).unwrap();
        assert_eq!(r.bits, 2);
        assert!(binary(BinaryOp::Shl, Scalar::F32, 1, 1).is_err());
    }

    #[test]
    fn float_folding_rules() {
        let t = Scalar::F32;
        let r = binary(BinaryOp::Add, t, f32b(1.5), f32b(2.25)).unwrap();
        assert_eq!(r, Folded::exact(f32b(3.75)));
        // Rounded but correctly: foldable.
        let r = binary(BinaryOp::Add, t, f32b(0.1), f32b(0.2)).unwrap();
        assert_eq!(r, Folded::exact(f32b(0.1f32 + 0.2f32)));
        // NaN operand.
        let r = binary(BinaryOp::Add, t, f32b(f32::NAN), f32b(1.0)).unwrap();
        assert!(!r.foldable);
        // Overflow to infinity.
        let r = binary(BinaryOp::Mul, t, f32b(1e30), f32b(1e30)).unwrap();
        assert!(!r.foldable);
        // Subnormal result.
        let r = binary(BinaryOp::Mul, t, f32b(1e-20), f32b(1e-20)).unwrap();
        assert!(!r.foldable);
        // Subnormal operand.
        let r = binary(BinaryOp::Add, t, f32b(1e-40), f32b(1.0)).unwrap();
        assert!(!r.foldable);
        // Division: exact quotient folds, a rounded one does not.
        let r = binary(BinaryOp::Div, t, f32b(3.0), f32b(4.0)).unwrap();
        assert_eq!(r, Folded::exact(f32b(0.75)));
        let r = binary(BinaryOp::Div, t, f32b(1.0), f32b(3.0)).unwrap();
        assert_eq!(r.bits, f32b(1.0 / 3.0));
        assert!(!r.foldable);
        let r = binary(BinaryOp::Div, t, f32b(1.0), f32b(0.0)).unwrap();
        assert!(!r.foldable);
        // Signed zeros are ordinary.
        let r = binary(BinaryOp::Sub, t, f32b(-0.0), f32b(0.0)).unwrap();
        assert_eq!(r, Folded::exact(f32b(-0.0)));
        // f64 division exactness.
        let r = binary(
            BinaryOp::Div,
            Scalar::F64,
            1.0f64.to_bits(),
            3.0f64.to_bits(),
        )
        .unwrap();
        assert!(!r.foldable);
        let r = binary(
            BinaryOp::Div,
            Scalar::F64,
            1.0f64.to_bits(),
            8.0f64.to_bits(),
        )
        .unwrap();
        assert_eq!(r, Folded::exact(0.125f64.to_bits()));
        // fmod never folds.
        let r = binary(BinaryOp::Rem, t, f32b(7.0), f32b(2.0)).unwrap();
        assert_eq!(r, Folded::with(f32b(1.0), false));
    }

    #[test]
    fn f16_arithmetic_rounds_in_f16() {
        let one = 0x3c00u64;
        let two = 0x4000u64;
        let r = binary(BinaryOp::Add, Scalar::F16, one, two).unwrap();
        assert_eq!(r, Folded::exact(0x4200)); // 3.0
        // 2048 + 1 = 2049 is not representable in f16 (11 bits): ties to even gives 2048.
        let r = binary(BinaryOp::Add, Scalar::F16, 0x6800, one).unwrap();
        assert_eq!(r.bits, 0x6800);
        // 2048 + 3 = 2051 -> 2052 (ties to even: 2050 and 2052, 2051 is halfway -> 2052).
        let r = binary(BinaryOp::Add, Scalar::F16, 0x6800, 0x4200).unwrap();
        assert_eq!(f16_to_f64(r.bits as u16), 2052.0);
        // 65504 * 2 overflows.
        let r = binary(BinaryOp::Mul, Scalar::F16, 0x7bff, two).unwrap();
        assert_eq!(r.bits, 0x7c00);
        assert!(!r.foldable);
    }

    #[test]
    fn f16_conversion_round_trips_and_rounds() {
        for bits in 0..=u16::MAX {
            let x = f16_to_f64(bits);
            let back = f64_to_f16(x);
            if x.is_nan() {
                assert_eq!(back & 0x7c00, 0x7c00);
                assert_ne!(back & 0x3ff, 0);
                assert_eq!(back & 0x8000, bits & 0x8000);
            } else {
                assert_eq!(back, bits, "{bits:#x} -> {x} -> {back:#x}");
            }
        }
        assert_eq!(f64_to_f16(65520.0), 0x7c00);
        assert_eq!(f64_to_f16(65519.99), 0x7bff);
        // Halfway between 0 and the smallest subnormal: ties to even (0).
        assert_eq!(f64_to_f16(2f64.powi(-25)), 0);
        assert_eq!(f64_to_f16(2f64.powi(-25) * 1.5), 1);
        assert_eq!(f64_to_f16(-1e-30), 0x8000);
        // Largest subnormal rounding up to the smallest normal.
        assert_eq!(f64_to_f16(2f64.powi(-14) - 2f64.powi(-26)), 0x0400);
    }

    #[test]
    fn comparisons_and_nan_ordering() {
        let nan = f32b(f32::NAN);
        let one = f32b(1.0);
        assert_eq!(
            compare(CompareOp::Eq, Scalar::F32, nan, nan).unwrap(),
            Folded::with(0, false)
        );
        assert_eq!(
            compare(CompareOp::Ne, Scalar::F32, nan, one).unwrap(),
            Folded::with(1, false)
        );
        assert_eq!(
            compare(CompareOp::Lt, Scalar::F32, f32b(-0.0), f32b(0.0)).unwrap(),
            Folded::exact(0)
        );
        assert_eq!(
            compare(CompareOp::Lt, Scalar::I32, 0xffff_ffff, 0).unwrap(),
            Folded::exact(1)
        );
        assert_eq!(
            compare(CompareOp::Lt, Scalar::U32, 0xffff_ffff, 0).unwrap(),
            Folded::exact(0)
        );
    }

    #[test]
    fn conversions() {
        // int -> float exact and inexact.
        let r = convert(Scalar::I32, Scalar::F32, (-3i32) as u32 as u64).unwrap();
        assert_eq!(r, Folded::exact(f32b(-3.0)));
        let r = convert(Scalar::I32, Scalar::F32, 16_777_217).unwrap();
        assert_eq!(r.bits, f32b(16_777_216.0));
        assert!(!r.foldable);
        // float -> int: truncation, range.
        let r = convert(Scalar::F32, Scalar::I32, f32b(-2.75)).unwrap();
        assert_eq!(r, Folded::exact((-2i32) as u32 as u64));
        let r = convert(Scalar::F32, Scalar::U8, f32b(300.0)).unwrap();
        assert_eq!(r, Folded::with(255, false));
        let r = convert(Scalar::F32, Scalar::I32, f32b(f32::NAN)).unwrap();
        assert_eq!(r, Folded::with(0, false));
        let r = convert(Scalar::F32, Scalar::U32, f32b(-0.5)).unwrap();
        assert_eq!(r, Folded::exact(0));
        // int -> int.
        let r = convert(Scalar::I8, Scalar::I32, 0x80).unwrap();
        assert_eq!(r.bits, 0xffff_ff80);
        let r = convert(Scalar::U8, Scalar::I32, 0x80).unwrap();
        assert_eq!(r.bits, 0x80);
        // float -> float.
        let r = convert(Scalar::F32, Scalar::F16, f32b(1.5)).unwrap();
        assert_eq!(r, Folded::exact(0x3e00));
        let r = convert(Scalar::F32, Scalar::F16, f32b(0.1)).unwrap();
        assert!(!r.foldable);
        let r = convert(Scalar::F16, Scalar::F64, 0x3e00).unwrap();
        assert_eq!(r, Folded::exact(1.5f64.to_bits()));
        // int -> f16 out of range.
        let r = convert(Scalar::I32, Scalar::F16, 100_000).unwrap();
        assert_eq!(r, Folded::with(0x7c00, false));
        // bool.
        assert_eq!(
            convert(Scalar::Bool, Scalar::F32, 1).unwrap().bits,
            f32b(1.0)
        );
        assert_eq!(convert(Scalar::I32, Scalar::Bool, 7).unwrap().bits, 1);
    }

    #[test]
    fn bitcasts() {
        let r = bitcast(Scalar::F32, Scalar::U32, f32b(1.0)).unwrap();
        assert_eq!(r, Folded::exact(0x3f80_0000));
        let r = bitcast(Scalar::U32, Scalar::F32, 0x7fc0_0000).unwrap();
        assert!(!r.foldable);
        assert!(bitcast(Scalar::U32, Scalar::F64, 0).is_err());
    }

    #[test]
    fn intrinsics_fold_only_when_exact() {
        let r = intrinsic(Intrinsic::Abs, Scalar::I32, &[(Scalar::I32, 0x8000_0000)]).unwrap();
        assert!(!r.foldable);
        let r = intrinsic(Intrinsic::Abs, Scalar::I32, &[(Scalar::I32, 0xffff_fffb)]).unwrap();
        assert_eq!(r, Folded::exact(5));
        let r = intrinsic(Intrinsic::Sqrt, Scalar::F32, &[(Scalar::F32, f32b(4.0))]).unwrap();
        assert_eq!(r, Folded::with(f32b(2.0), false));
        let r = intrinsic(Intrinsic::Floor, Scalar::F32, &[(Scalar::F32, f32b(-1.5))]).unwrap();
        assert_eq!(r, Folded::exact(f32b(-2.0)));
        let r = intrinsic(Intrinsic::Round, Scalar::F32, &[(Scalar::F32, f32b(2.5))]).unwrap();
        assert_eq!(r, Folded::exact(f32b(2.0)));
        let r = intrinsic(
            Intrinsic::FirstBitHigh,
            Scalar::U32,
            &[(Scalar::I32, (-1i32) as u32 as u64)],
        )
        .unwrap();
        assert_eq!(r.bits, 0xffff_ffff);
        let r = intrinsic(Intrinsic::FirstBitHigh, Scalar::U32, &[(Scalar::U32, 0x10)]).unwrap();
        assert_eq!(r.bits, 4);
        let r = intrinsic(
            Intrinsic::Max,
            Scalar::F32,
            &[(Scalar::F32, f32b(1.0)), (Scalar::F32, f32b(2.0))],
        )
        .unwrap();
        assert_eq!(r, Folded::exact(f32b(2.0)));
        assert!(intrinsic(Intrinsic::Dot, Scalar::F32, &[]).is_err());
    }
}
