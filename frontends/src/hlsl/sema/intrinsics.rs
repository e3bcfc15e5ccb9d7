//! The HLSL intrinsics table: signatures by overload family and the operation each becomes.
//!
//! Most intrinsics are *element-wise*: every argument is brought to one common type (the
//! usual arithmetic conversions: the highest-ranked scalar, the largest shape, scalars
//! splatted) constrained to a class (float-like, numeric, integer, any), and the result has
//! that type (or `bool`/`uint` of its shape). Those live in [`ELEMENTWISE`]; the rest (vector
//! and matrix functions, `mul`, bit casts, atomics, barriers, waves) are special-cased in
//! [`Sema::check_intrinsic`].

use oneshader_ir::diag::{Diagnostic, Span};
use oneshader_ir::{AtomicOp, BarrierFlags, Intrinsic};

use crate::hlsl::sema::Sema;
use crate::hlsl::sema::conversions::{common_scalar, common_shape};
use crate::hlsl::sema::hir::*;
use crate::hlsl::syntax::ast;

/// The scalar class an intrinsic accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Floats; integer and bool arguments become `float`.
    Float,
    /// Floats and integers; bools become `int`.
    Numeric,
    /// Integers only.
    Int,
    /// Anything numeric, bool included.
    Any,
}

/// What an element-wise intrinsic returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ret {
    /// The common type.
    Same,
    /// `bool` of the common shape.
    Bool,
    /// `uint` of the common shape.
    Uint,
    /// `int` of the common shape.
    SInt,
}

/// Element-wise intrinsics: name, arity, class, result, IR intrinsic.
pub const ELEMENTWISE: &[(&str, usize, Class, Ret, Intrinsic)] = {
    use Class::*;
    use Intrinsic as I;
    use Ret::*;
    &[
        ("abs", 1, Numeric, Same, I::Abs),
        ("sign", 1, Numeric, SInt, I::Sign),
        ("floor", 1, Float, Same, I::Floor),
        ("ceil", 1, Float, Same, I::Ceil),
        ("round", 1, Float, Same, I::Round),
        ("trunc", 1, Float, Same, I::Trunc),
        ("frac", 1, Float, Same, I::Frac),
        ("sqrt", 1, Float, Same, I::Sqrt),
        ("rsqrt", 1, Float, Same, I::Rsqrt),
        ("exp", 1, Float, Same, I::Exp),
        ("exp2", 1, Float, Same, I::Exp2),
        ("log", 1, Float, Same, I::Log),
        ("log2", 1, Float, Same, I::Log2),
        ("log10", 1, Float, Same, I::Log10),
        ("pow", 2, Float, Same, I::Pow),
        ("sin", 1, Float, Same, I::Sin),
        ("cos", 1, Float, Same, I::Cos),
        ("tan", 1, Float, Same, I::Tan),
        ("asin", 1, Float, Same, I::Asin),
        ("acos", 1, Float, Same, I::Acos),
        ("atan", 1, Float, Same, I::Atan),
        ("atan2", 2, Float, Same, I::Atan2),
        ("sinh", 1, Float, Same, I::Sinh),
        ("cosh", 1, Float, Same, I::Cosh),
        ("tanh", 1, Float, Same, I::Tanh),
        ("min", 2, Numeric, Same, I::Min),
        ("max", 2, Numeric, Same, I::Max),
        ("clamp", 3, Numeric, Same, I::Clamp),
        ("lerp", 3, Float, Same, I::Lerp),
        ("step", 2, Float, Same, I::Step),
        ("smoothstep", 3, Float, Same, I::Smoothstep),
        ("saturate", 1, Float, Same, I::Saturate),
        ("degrees", 1, Float, Same, I::Degrees),
        ("radians", 1, Float, Same, I::Radians),
        ("rcp", 1, Float, Same, I::Rcp),
        ("fmod", 2, Float, Same, I::Fmod),
        ("ldexp", 2, Float, Same, I::Ldexp),
        ("mad", 3, Numeric, Same, I::Mad),
        ("fma", 3, Float, Same, I::Fma),
        ("ddx", 1, Float, Same, I::Ddx),
        ("ddy", 1, Float, Same, I::Ddy),
        ("ddx_fine", 1, Float, Same, I::DdxFine),
        ("ddy_fine", 1, Float, Same, I::DdyFine),
        ("ddx_coarse", 1, Float, Same, I::DdxCoarse),
        ("ddy_coarse", 1, Float, Same, I::DdyCoarse),
        ("fwidth", 1, Float, Same, I::Fwidth),
        ("reversebits", 1, Int, Same, I::ReverseBits),
        ("countbits", 1, Int, Uint, I::CountBits),
        ("firstbithigh", 1, Int, Uint, I::FirstBitHigh),
        ("firstbitlow", 1, Int, Uint, I::FirstBitLow),
        ("isnan", 1, Float, Bool, I::IsNan),
        ("isinf", 1, Float, Bool, I::IsInf),
        ("isfinite", 1, Float, Bool, I::IsFinite),
        ("normalize", 1, Float, Same, I::Normalize),
        ("reflect", 2, Float, Same, I::Reflect),
        ("faceforward", 3, Float, Same, I::Faceforward),
        ("WaveActiveSum", 1, Numeric, Same, I::WaveActiveSum),
        ("WaveActiveProduct", 1, Numeric, Same, I::WaveActiveProduct),
        ("WaveActiveMin", 1, Numeric, Same, I::WaveActiveMin),
        ("WaveActiveMax", 1, Numeric, Same, I::WaveActiveMax),
        ("WaveActiveBitAnd", 1, Int, Same, I::WaveActiveBitAnd),
        ("WaveActiveBitOr", 1, Int, Same, I::WaveActiveBitOr),
        ("WaveActiveBitXor", 1, Int, Same, I::WaveActiveBitXor),
        ("WavePrefixSum", 1, Numeric, Same, I::WavePrefixSum),
        ("WavePrefixProduct", 1, Numeric, Same, I::WavePrefixProduct),
        ("WaveReadLaneFirst", 1, Any, Same, I::WaveReadLaneFirst),
        ("WaveActiveAllEqual", 1, Any, Bool, I::WaveActiveAllEqual),
        // An early spelling glslang still accepts.
        (
            "WaveActiveAllEqualBool",
            1,
            Any,
            Bool,
            I::WaveActiveAllEqual,
        ),
        ("QuadReadAcrossX", 1, Any, Same, I::QuadReadAcrossX),
        ("QuadReadAcrossY", 1, Any, Same, I::QuadReadAcrossY),
        (
            "QuadReadAcrossDiagonal",
            1,
            Any,
            Same,
            I::QuadReadAcrossDiagonal,
        ),
        ("NonUniformResourceIndex", 1, Int, Same, I::NonUniformIndex),
    ]
};

/// The other intrinsic names [`Sema::check_intrinsic`] knows.
const SPECIAL: &[&str] = &[
    "isnormal",
    "dot",
    "cross",
    "length",
    "distance",
    "refract",
    "determinant",
    "transpose",
    "mul",
    "all",
    "any",
    "asfloat",
    "asint",
    "asuint",
    "asdouble",
    "asfloat16",
    "asint16",
    "asuint16",
    "f32tof16",
    "f16tof32",
    "frexp",
    "modf",
    "sincos",
    "clip",
    "abort",
    "printf",
    "errorf",
    "DebugBreak",
    "InterlockedAdd",
    "InterlockedAnd",
    "InterlockedOr",
    "InterlockedXor",
    "InterlockedMin",
    "InterlockedMax",
    "InterlockedExchange",
    "InterlockedCompareExchange",
    "InterlockedCompareStore",
    "GroupMemoryBarrier",
    "GroupMemoryBarrierWithGroupSync",
    "DeviceMemoryBarrier",
    "DeviceMemoryBarrierWithGroupSync",
    "AllMemoryBarrier",
    "AllMemoryBarrierWithGroupSync",
    "WaveGetLaneCount",
    "WaveGetLaneIndex",
    "WaveIsFirstLane",
    "WaveActiveAnyTrue",
    "WaveActiveAllTrue",
    "WaveActiveBallot",
    "WaveReadLaneAt",
    "WaveActiveCountBits",
    "WavePrefixCountBits",
    "QuadReadLaneAt",
    "select",
    "and",
    "or",
    "IsHelperLane",
    "GetRenderTargetSampleCount",
    "D3DCOLORtoUBYTE4",
    "dst",
    "lit",
    "noise",
    "msad4",
    "EvaluateAttributeAtSample",
    "EvaluateAttributeCentroid",
    "EvaluateAttributeAtCentroid",
    "EvaluateAttributeSnapped",
    "GetAttributeAtVertex",
    "GetRenderTargetSamplePosition",
    "tex1D",
    "tex2D",
    "tex3D",
    "texCUBE",
    "tex2Dlod",
    "tex2Dproj",
    "tex2Dbias",
    "tex2Dgrad",
    "CheckAccessFullyMapped",
    "dot4add_u8packed",
    "dot4add_i8packed",
    "dot2add",
    "pack_u8",
    "pack_s8",
    "pack_clamp_u8",
    "pack_clamp_s8",
    "unpack_u8u16",
    "unpack_u8u32",
    "unpack_s8s16",
    "unpack_s8s32",
    "WaveMatch",
    "WaveMultiPrefixSum",
    "WaveMultiPrefixProduct",
    "WaveMultiPrefixCountBits",
    "WaveMultiPrefixBitAnd",
    "WaveMultiPrefixBitOr",
    "WaveMultiPrefixBitXor",
    "QuadAny",
    "QuadAll",
    "vk::RawBufferLoad",
    "vk::RawBufferStore",
    "vk::ReadClock",
    "SetMeshOutputCounts",
    "DispatchMesh",
    "TraceRay",
    "ReportHit",
    "CallShader",
    "IgnoreHit",
    "AcceptHitAndEndSearch",
    "DispatchRaysIndex",
    "DispatchRaysDimensions",
    "WorldRayOrigin",
    "WorldRayDirection",
    "ObjectRayOrigin",
    "ObjectRayDirection",
    "RayTMin",
    "RayTCurrent",
    "InstanceIndex",
    "InstanceID",
    "GeometryIndex",
    "PrimitiveIndex",
    "HitKind",
    "RayFlags",
    "ObjectToWorld",
    "ObjectToWorld3x4",
    "ObjectToWorld4x3",
    "WorldToObject",
    "WorldToObject3x4",
    "WorldToObject4x3",
];

/// The ray-tracing system values read through functions: name, built-in, shape, transposed.
const RAY_SYSTEM_VALUES: &[(&str, oneshader_ir::BuiltIn, &str, bool)] = {
    use oneshader_ir::BuiltIn as B;
    &[
        ("DispatchRaysIndex", B::LaunchId, "uint3", false),
        ("DispatchRaysDimensions", B::LaunchSize, "uint3", false),
        ("WorldRayOrigin", B::WorldRayOrigin, "float3", false),
        ("WorldRayDirection", B::WorldRayDirection, "float3", false),
        ("ObjectRayOrigin", B::ObjectRayOrigin, "float3", false),
        ("ObjectRayDirection", B::ObjectRayDirection, "float3", false),
        ("RayTMin", B::RayTmin, "float", false),
        ("RayTCurrent", B::RayTmax, "float", false),
        ("InstanceIndex", B::InstanceId, "uint", false),
        ("InstanceID", B::InstanceCustomIndex, "uint", false),
        ("GeometryIndex", B::GeometryIndex, "uint", false),
        ("PrimitiveIndex", B::PrimitiveId, "uint", false),
        ("HitKind", B::HitKind, "uint", false),
        ("RayFlags", B::IncomingRayFlags, "uint", false),
        ("ObjectToWorld", B::ObjectToWorld, "float3x4", true),
        ("ObjectToWorld3x4", B::ObjectToWorld, "float3x4", true),
        ("ObjectToWorld4x3", B::ObjectToWorld, "float4x3", false),
        ("WorldToObject", B::WorldToObject, "float3x4", true),
        ("WorldToObject3x4", B::WorldToObject, "float3x4", true),
        ("WorldToObject4x3", B::WorldToObject, "float4x3", false),
    ]
};

/// True when `name` is an HLSL intrinsic function.
pub fn is_intrinsic(name: &str) -> bool {
    ELEMENTWISE.iter().any(|e| e.0 == name) || SPECIAL.contains(&name)
}

fn mk(kind: ExprKind, ty: TyId, span: Span) -> Expr {
    Expr { kind, ty, span }
}

impl<'a> Sema<'a> {
    /// The common type of element-wise arguments in `class`, or a diagnostic.
    fn common_type(&mut self, args: &[Expr], class: Class) -> Option<TyId> {
        let mut s: Option<Scalar> = None;
        for a in args {
            let sa = self.types.scalar_of(a.ty)?;
            s = Some(match s {
                None => sa,
                Some(p) => {
                    if p == Scalar::Bool && sa == Scalar::Bool {
                        Scalar::Bool
                    } else {
                        common_scalar(p, sa)
                    }
                }
            });
        }
        let mut s = s?;
        let all_lit = args
            .iter()
            .all(|a| self.types.scalar_of(a.ty).is_some_and(Scalar::is_literal));
        if s.is_literal() && !all_lit {
            s = s.concrete();
        }
        s = match class {
            Class::Float if !s.is_float() => Scalar::F32,
            Class::Float => s,
            Class::Numeric if s == Scalar::Bool => Scalar::I32,
            Class::Numeric => s,
            Class::Int if s.is_float() => Scalar::U32,
            Class::Int if s == Scalar::Bool => Scalar::I32,
            Class::Int => s,
            Class::Any => s,
        };
        s = s.concrete();
        let mut ty = self.types.scalar(s);
        for a in args {
            ty = common_shape(&mut self.types, ty, a.ty, s)?.0;
        }
        Some(ty)
    }

    fn arity_error(&mut self, name: &str, want: &str, got: usize, span: Span) -> Expr {
        self.error(
            "OSH1007",
            span,
            format!("`{name}` takes {want} argument(s), {got} given"),
        );
        Expr::error(span)
    }

    fn intrinsic_mismatch(&mut self, name: &str, args: &[Expr], expect: &str, span: Span) -> Expr {
        let argt: Vec<String> = args.iter().map(|a| self.types.name(a.ty)).collect();
        self.push_diag(
            Diagnostic::error(
                "OSH1003",
                format!(
                    "no overload of `{name}` matches the arguments ({})",
                    argt.join(", ")
                ),
            )
            .with_span(span)
            .with_note(format!("`{name}` takes {expect}")),
        );
        Expr::error(span)
    }

    fn conv_all(&mut self, args: Vec<Expr>, ty: TyId) -> Vec<Expr> {
        args.into_iter()
            .map(|a| {
                let s = a.span;
                self.convert(a, ty, s)
            })
            .collect()
    }

    /// `printf(format, values...)`: the format a string literal or a `string` constant, the
    /// values numeric scalars or vectors (literals as `int` and `float`, as DXC passes them);
    /// `NonSemantic.DebugPrintf` in SPIR-V, `debugPrintfEXT` in GLSL.
    fn printf(&mut self, args: Vec<Expr>, span: Span) -> Expr {
        let mut args = args.into_iter();
        let Some(format) = args.next() else {
            return self.arity_error("printf", "1 or more", 0, span);
        };
        let text = match &format.kind {
            ExprKind::Str(s) => Some(s.clone()),
            ExprKind::Global(g) => match &self.globals[g.0 as usize].init {
                Some(Expr {
                    kind: ExprKind::Str(s),
                    ..
                }) => Some(s.clone()),
                _ => None,
            },
            _ => None,
        };
        let Some(text) = text else {
            self.error(
                "OSH1005",
                format.span,
                "the format of `printf` must be a string literal or a `string` constant",
            );
            return Expr::error(span);
        };
        let mut out = vec![Expr {
            kind: ExprKind::Str(text),
            ty: format.ty,
            span: format.span,
        }];
        for a in args {
            let numeric = match self.types.kind(a.ty) {
                TyKind::Scalar(s) | TyKind::Vector(s, _) => *s != Scalar::Bool,
                _ => false,
            };
            if !numeric {
                self.error(
                    "OSH1005",
                    a.span,
                    format!(
                        "`printf` prints numeric scalars and vectors, not `{}`",
                        self.types.name(a.ty)
                    ),
                );
                return Expr::error(span);
            }
            let ty = self.types.concrete(a.ty);
            let s = a.span;
            out.push(self.convert(a, ty, s));
        }
        Expr {
            kind: ExprKind::Intrinsic(IntrinsicOp::Ir(Intrinsic::DebugPrintf), out),
            ty: Types::VOID,
            span,
        }
    }

    /// Checks a call of intrinsic `name`.
    pub fn check_intrinsic(
        &mut self,
        name: &str,
        _targs: Option<&'a [ast::TemplateArg]>,
        args: Vec<Expr>,
        span: Span,
    ) -> Expr {
        if args.iter().any(|a| self.types.is_error(a.ty)) {
            return Expr::error(span);
        }
        if let Some(&(_, n, class, ret, op)) = ELEMENTWISE.iter().find(|e| e.0 == name) {
            if args.len() != n {
                return self.arity_error(name, &n.to_string(), args.len(), span);
            }
            let Some(ty) = self.common_type(&args, class) else {
                let expect = match class {
                    Class::Float => "float scalars, vectors or matrices",
                    Class::Numeric => "numeric scalars, vectors or matrices",
                    Class::Int => "integer scalars or vectors",
                    Class::Any => "scalars, vectors or matrices",
                };
                return self.intrinsic_mismatch(name, &args, expect, span);
            };
            if matches!(
                op,
                Intrinsic::Normalize | Intrinsic::Reflect | Intrinsic::Faceforward
            ) && matches!(self.types.kind(ty), TyKind::Matrix(..))
            {
                return self.intrinsic_mismatch(name, &args, "float vectors", span);
            }
            let args = self.conv_all(args, ty);
            let rty = match ret {
                Ret::Same => ty,
                Ret::Bool => self.types.with_scalar(ty, Scalar::Bool),
                Ret::Uint => self.types.with_scalar(ty, Scalar::U32),
                Ret::SInt => self.types.with_scalar(ty, Scalar::I32),
            };
            if op == Intrinsic::Abs && self.types.scalar_of(ty).is_some_and(Scalar::is_unsigned) {
                // `abs` of an unsigned value is the value.
                return args.into_iter().next().unwrap_or_else(|| Expr::error(span));
            }
            return mk(ExprKind::Intrinsic(IntrinsicOp::Ir(op), args), rty, span);
        }
        if crate::hlsl::sema::packed::PACKED.contains(&name) {
            return self.packed_intrinsic(name, args, span);
        }
        let n = args.len();
        match name {
            "dot" => {
                if n != 2 {
                    return self.arity_error(name, "2", n, span);
                }
                let Some(ty) = self.common_type(&args, Class::Numeric) else {
                    return self.intrinsic_mismatch(name, &args, "two numeric vectors", span);
                };
                if matches!(self.types.kind(ty), TyKind::Matrix(..)) {
                    return self.intrinsic_mismatch(name, &args, "two numeric vectors", span);
                }
                let args = self.conv_all(args, ty);
                let s = self.types.scalar_of(ty).unwrap_or(Scalar::F32);
                let st = self.types.scalar(s);
                if matches!(self.types.kind(ty), TyKind::Scalar(_)) {
                    let mut it = args.into_iter();
                    let (a, b) = (it.next(), it.next());
                    if let (Some(a), Some(b)) = (a, b) {
                        return mk(
                            ExprKind::Binary(BinOp::Mul, Box::new(a), Box::new(b)),
                            st,
                            span,
                        );
                    }
                    return Expr::error(span);
                }
                mk(
                    ExprKind::Intrinsic(IntrinsicOp::Ir(Intrinsic::Dot), args),
                    st,
                    span,
                )
            }
            "cross" => {
                if n != 2 {
                    return self.arity_error(name, "2", n, span);
                }
                let f3 = self.types.vector(Scalar::F32, 3);
                let ok = args
                    .iter()
                    .all(|a| matches!(self.types.kind(a.ty), TyKind::Vector(_, 3)));
                if !ok {
                    return self.intrinsic_mismatch(name, &args, "two float3 vectors", span);
                }
                let ty = self.common_type(&args, Class::Float).unwrap_or(f3);
                let args = self.conv_all(args, ty);
                mk(
                    ExprKind::Intrinsic(IntrinsicOp::Ir(Intrinsic::Cross), args),
                    ty,
                    span,
                )
            }
            "length" | "distance" => {
                let want = if name == "length" { 1 } else { 2 };
                if n != want {
                    return self.arity_error(name, &want.to_string(), n, span);
                }
                let Some(ty) = self.common_type(&args, Class::Float) else {
                    return self.intrinsic_mismatch(name, &args, "float vectors", span);
                };
                if matches!(self.types.kind(ty), TyKind::Matrix(..)) {
                    return self.intrinsic_mismatch(name, &args, "float vectors", span);
                }
                let args = self.conv_all(args, ty);
                let s = self.types.scalar_of(ty).unwrap_or(Scalar::F32);
                let st = self.types.scalar(s);
                let op = if name == "length" {
                    Intrinsic::Length
                } else {
                    Intrinsic::Distance
                };
                mk(ExprKind::Intrinsic(IntrinsicOp::Ir(op), args), st, span)
            }
            "refract" => {
                if n != 3 {
                    return self.arity_error(name, "3", n, span);
                }
                let Some(ty) = self.common_type(&args[..2], Class::Float) else {
                    return self.intrinsic_mismatch(name, &args, "(vector, vector, scalar)", span);
                };
                let s = self.types.scalar_of(ty).unwrap_or(Scalar::F32);
                let st = self.types.scalar(s);
                let mut it = args.into_iter();
                let (Some(i), Some(nn), Some(eta)) = (it.next(), it.next(), it.next()) else {
                    return Expr::error(span);
                };
                let (si, sn, se) = (i.span, nn.span, eta.span);
                let v = vec![
                    self.convert(i, ty, si),
                    self.convert(nn, ty, sn),
                    self.convert(eta, st, se),
                ];
                mk(
                    ExprKind::Intrinsic(IntrinsicOp::Ir(Intrinsic::Refract), v),
                    ty,
                    span,
                )
            }
            "determinant" | "transpose" => {
                if n != 1 {
                    return self.arity_error(name, "1", n, span);
                }
                let TyKind::Matrix(s, r, c) = self.types.kind(args[0].ty).clone() else {
                    return self.intrinsic_mismatch(name, &args, "a matrix", span);
                };
                if name == "determinant" {
                    if r != c {
                        return self.intrinsic_mismatch(name, &args, "a square float matrix", span);
                    }
                    let s = if s.is_float() {
                        s.concrete()
                    } else {
                        Scalar::F32
                    };
                    let mt = self.types.matrix(s, r, c);
                    let args = self.conv_all(args, mt);
                    let st = self.types.scalar(s);
                    return mk(
                        ExprKind::Intrinsic(IntrinsicOp::Ir(Intrinsic::Determinant), args),
                        st,
                        span,
                    );
                }
                let rt = self.types.matrix(s.concrete(), c, r);
                mk(
                    ExprKind::Intrinsic(IntrinsicOp::Ir(Intrinsic::Transpose), args),
                    rt,
                    span,
                )
            }
            "mul" => self.check_mul(args, span),
            "all" | "any" => {
                if n != 1 {
                    return self.arity_error(name, "1", n, span);
                }
                if !self.types.is_numeric(args[0].ty) {
                    return self.intrinsic_mismatch(
                        name,
                        &args,
                        "a scalar, vector or matrix",
                        span,
                    );
                }
                let args = self.literal_to_concrete(args);
                let b = self.types.bool();
                let op = if name == "all" {
                    Intrinsic::All
                } else {
                    Intrinsic::Any
                };
                mk(ExprKind::Intrinsic(IntrinsicOp::Ir(op), args), b, span)
            }
            "asfloat" | "asint" | "asuint" | "asfloat16" | "asint16" | "asuint16" => {
                if name == "asuint" && n == 3 {
                    return self.split_double(args, span);
                }
                if n != 1 {
                    return self.arity_error(name, "1", n, span);
                }
                let to = match name {
                    "asfloat" => Scalar::F32,
                    "asint" => Scalar::I32,
                    "asuint" => Scalar::U32,
                    "asfloat16" => Scalar::F16,
                    "asint16" => Scalar::I16,
                    _ => Scalar::U16,
                };
                let Some(from) = self.types.scalar_of(args[0].ty) else {
                    return self.intrinsic_mismatch(name, &args, "a numeric value", span);
                };
                // A literal takes the first type of the intrinsic's table that fits it, as in
                // DXC: the 32-bit forms take `uint` (`int` when negative) and `float`; the
                // 16-bit forms list no 32-bit type, so any literal becomes `half` first
                // (`asuint16(1)` is the bits of `1.0h`, 0x3C00, as DXC computes it).
                let from = if from.is_literal() {
                    if to.bits() == 16 {
                        Scalar::F16
                    } else if from == Scalar::LitFloat {
                        Scalar::F32
                    } else if to == Scalar::F32 {
                        Scalar::U32
                    } else {
                        Scalar::I32
                    }
                } else {
                    from
                };
                if from.bits() != to.bits() || from == Scalar::Bool {
                    return self.intrinsic_mismatch(
                        name,
                        &args,
                        &format!("a value of {}-bit components", to.bits()),
                        span,
                    );
                }
                let src_ty = self.types.with_scalar(args[0].ty, from);
                let args = self.conv_all(args, src_ty);
                let rty = self.types.with_scalar(src_ty, to);
                if from == to {
                    return args.into_iter().next().unwrap_or_else(|| Expr::error(span));
                }
                mk(ExprKind::Intrinsic(IntrinsicOp::Bitcast, args), rty, span)
            }
            "asdouble" => {
                if n != 2 {
                    return self.arity_error(name, "2", n, span);
                }
                let Some(ty) = self.common_type(&args, Class::Int) else {
                    return self.intrinsic_mismatch(name, &args, "two uint values", span);
                };
                let ut = self.types.with_scalar(ty, Scalar::U32);
                let args = self.conv_all(args, ut);
                let rty = self.types.with_scalar(ut, Scalar::F64);
                mk(ExprKind::Intrinsic(IntrinsicOp::AsDouble, args), rty, span)
            }
            "f32tof16" => {
                if n != 1 {
                    return self.arity_error(name, "1", n, span);
                }
                let Some(ty) = self.common_type(&args, Class::Float) else {
                    return self.intrinsic_mismatch(name, &args, "floats", span);
                };
                let ft = self.types.with_scalar(ty, Scalar::F32);
                let args = self.conv_all(args, ft);
                let rty = self.types.with_scalar(ft, Scalar::U32);
                mk(
                    ExprKind::Intrinsic(IntrinsicOp::Ir(Intrinsic::F32ToF16), args),
                    rty,
                    span,
                )
            }
            "f16tof32" => {
                if n != 1 {
                    return self.arity_error(name, "1", n, span);
                }
                let Some(ty) = self.common_type(&args, Class::Numeric) else {
                    return self.intrinsic_mismatch(name, &args, "uints", span);
                };
                let ut = self.types.with_scalar(ty, Scalar::U32);
                let args = self.conv_all(args, ut);
                let rty = self.types.with_scalar(ut, Scalar::F32);
                mk(
                    ExprKind::Intrinsic(IntrinsicOp::Ir(Intrinsic::F16ToF32), args),
                    rty,
                    span,
                )
            }
            "frexp" | "modf" => {
                if n != 2 {
                    return self.arity_error(name, "2", n, span);
                }
                let Some(ty) = self.common_type(&args[..1], Class::Float) else {
                    return self.intrinsic_mismatch(name, &args, "a float and an out float", span);
                };
                let mut it = args.into_iter();
                let (Some(x), Some(out)) = (it.next(), it.next()) else {
                    return Expr::error(span);
                };
                if !self.require_writable(&out) {
                    return Expr::error(span);
                }
                if out.ty != ty
                    && crate::hlsl::sema::conversions::implicit_cost(&self.types, ty, out.ty)
                        .is_none()
                {
                    let want = self.types.name(ty);
                    self.error(
                        "OSH1005",
                        out.span,
                        format!("the output argument of `{name}` must take a `{want}`"),
                    );
                    return Expr::error(span);
                }
                let xs = x.span;
                let x = self.convert(x, ty, xs);
                let op = if name == "frexp" {
                    Intrinsic::Frexp
                } else {
                    Intrinsic::Modf
                };
                mk(
                    ExprKind::Intrinsic(IntrinsicOp::Ir(op), vec![x, out]),
                    ty,
                    span,
                )
            }
            "sincos" => {
                if n != 3 {
                    return self.arity_error(name, "3", n, span);
                }
                let Some(ty) = self.common_type(&args[..1], Class::Float) else {
                    return self.intrinsic_mismatch(name, &args, "(x, out s, out c)", span);
                };
                let mut it = args.into_iter();
                let (Some(x), Some(s), Some(c)) = (it.next(), it.next(), it.next()) else {
                    return Expr::error(span);
                };
                for o in [&s, &c] {
                    if !self.require_writable(o) {
                        return Expr::error(span);
                    }
                    if o.ty != ty
                        && crate::hlsl::sema::conversions::implicit_cost(&self.types, ty, o.ty)
                            .is_none()
                    {
                        self.error(
                            "OSH1005",
                            o.span,
                            format!(
                                "the outputs of `sincos` must take a `{}`",
                                self.types.name(ty)
                            ),
                        );
                        return Expr::error(span);
                    }
                }
                let xs = x.span;
                let x = self.convert(x, ty, xs);
                mk(
                    ExprKind::Intrinsic(IntrinsicOp::Ir(Intrinsic::Sincos), vec![x, s, c]),
                    Types::VOID,
                    span,
                )
            }
            "clip" => {
                if n != 1 {
                    return self.arity_error(name, "1", n, span);
                }
                let Some(ty) = self.common_type(&args, Class::Float) else {
                    return self.intrinsic_mismatch(name, &args, "a float value", span);
                };
                let args = self.conv_all(args, ty);
                mk(
                    ExprKind::Intrinsic(IntrinsicOp::Clip, args),
                    Types::VOID,
                    span,
                )
            }
            "printf" => self.printf(args, span),
            "DebugBreak" => {
                if n != 0 {
                    return self.arity_error(name, "0", n, span);
                }
                mk(
                    ExprKind::Intrinsic(IntrinsicOp::Ir(Intrinsic::DebugBreak), Vec::new()),
                    Types::VOID,
                    span,
                )
            }
            "abort" => mk(
                ExprKind::Intrinsic(IntrinsicOp::Nop, Vec::new()),
                Types::VOID,
                span,
            ),
            "InterlockedAdd"
            | "InterlockedAnd"
            | "InterlockedOr"
            | "InterlockedXor"
            | "InterlockedMin"
            | "InterlockedMax"
            | "InterlockedExchange" => {
                let op = match name {
                    "InterlockedAdd" => AtomicOp::Add,
                    "InterlockedAnd" => AtomicOp::And,
                    "InterlockedOr" => AtomicOp::Or,
                    "InterlockedXor" => AtomicOp::Xor,
                    "InterlockedMin" => AtomicOp::Min,
                    "InterlockedMax" => AtomicOp::Max,
                    _ => AtomicOp::Exchange,
                };
                if !(2..=3).contains(&n) || (op == AtomicOp::Exchange && n != 3) {
                    return self.arity_error(name, "2 or 3", n, span);
                }
                self.atomic(name, IntrinsicOp::Atomic(op), args, 1, span)
            }
            "InterlockedCompareExchange" => {
                if n != 4 {
                    return self.arity_error(name, "4", n, span);
                }
                self.atomic(name, IntrinsicOp::AtomicCmpXchg, args, 2, span)
            }
            "InterlockedCompareStore" => {
                if n != 3 {
                    return self.arity_error(name, "3", n, span);
                }
                self.atomic(name, IntrinsicOp::AtomicCmpStore, args, 2, span)
            }
            "GroupMemoryBarrier"
            | "GroupMemoryBarrierWithGroupSync"
            | "DeviceMemoryBarrier"
            | "DeviceMemoryBarrierWithGroupSync"
            | "AllMemoryBarrier"
            | "AllMemoryBarrierWithGroupSync" => {
                if n != 0 {
                    return self.arity_error(name, "0", n, span);
                }
                let mut f = match name {
                    "GroupMemoryBarrier" | "GroupMemoryBarrierWithGroupSync" => {
                        BarrierFlags::WORKGROUP_MEMORY
                    }
                    "DeviceMemoryBarrier" | "DeviceMemoryBarrierWithGroupSync" => {
                        BarrierFlags::DEVICE_MEMORY
                    }
                    _ => BarrierFlags::WORKGROUP_MEMORY.union(BarrierFlags::DEVICE_MEMORY),
                };
                if name.ends_with("WithGroupSync") {
                    f = f.union(BarrierFlags::GROUP_SYNC);
                }
                mk(
                    ExprKind::Intrinsic(IntrinsicOp::Barrier(f), Vec::new()),
                    Types::VOID,
                    span,
                )
            }
            "WaveGetLaneCount"
            | "WaveGetLaneIndex"
            | "WaveIsFirstLane"
            | "IsHelperLane"
            | "GetRenderTargetSampleCount" => {
                if n != 0 {
                    return self.arity_error(name, "0", n, span);
                }
                let (op, ty) = match name {
                    "WaveGetLaneCount" => (Intrinsic::WaveGetLaneCount, self.types.uint()),
                    "WaveGetLaneIndex" => (Intrinsic::WaveGetLaneIndex, self.types.uint()),
                    "WaveIsFirstLane" => (Intrinsic::WaveIsFirstLane, self.types.bool()),
                    "IsHelperLane" => (Intrinsic::IsHelperLane, self.types.bool()),
                    _ => (Intrinsic::RenderTargetSampleCount, self.types.uint()),
                };
                mk(
                    ExprKind::Intrinsic(IntrinsicOp::Ir(op), Vec::new()),
                    ty,
                    span,
                )
            }
            "WaveActiveAnyTrue"
            | "WaveActiveAllTrue"
            | "WaveActiveBallot"
            | "WaveActiveCountBits"
            | "WavePrefixCountBits" => {
                if n != 1 {
                    return self.arity_error(name, "1", n, span);
                }
                let b = self.types.bool();
                let args = self.conv_all(args, b);
                let (op, ty) = match name {
                    "WaveActiveAnyTrue" => (Intrinsic::WaveActiveAnyTrue, b),
                    "WaveActiveAllTrue" => (Intrinsic::WaveActiveAllTrue, b),
                    "WaveActiveBallot" => (
                        Intrinsic::WaveActiveBallot,
                        self.types.vector(Scalar::U32, 4),
                    ),
                    "WaveActiveCountBits" => (Intrinsic::WaveActiveCountBits, self.types.uint()),
                    _ => (Intrinsic::WavePrefixCountBits, self.types.uint()),
                };
                mk(ExprKind::Intrinsic(IntrinsicOp::Ir(op), args), ty, span)
            }
            "WaveReadLaneAt" | "QuadReadLaneAt" => {
                if n != 2 {
                    return self.arity_error(name, "2", n, span);
                }
                let Some(ty) = self.common_type(&args[..1], Class::Any) else {
                    return self.intrinsic_mismatch(name, &args, "(value, lane)", span);
                };
                let u = self.types.uint();
                let mut it = args.into_iter();
                let (Some(x), Some(l)) = (it.next(), it.next()) else {
                    return Expr::error(span);
                };
                let (xs, ls) = (x.span, l.span);
                let v = vec![self.convert(x, ty, xs), self.convert(l, u, ls)];
                let op = if name == "WaveReadLaneAt" {
                    Intrinsic::WaveReadLaneAt
                } else {
                    Intrinsic::QuadReadLaneAt
                };
                mk(ExprKind::Intrinsic(IntrinsicOp::Ir(op), v), ty, span)
            }
            "select" => {
                if n != 3 {
                    return self.arity_error(name, "3", n, span);
                }
                let Some(ty) = self.common_type(&args[1..], Class::Any) else {
                    return self.intrinsic_mismatch(name, &args, "(cond, a, b)", span);
                };
                let ty = match (
                    self.types.kind(args[0].ty).clone(),
                    self.types.kind(ty).clone(),
                ) {
                    (TyKind::Vector(_, n), TyKind::Scalar(s)) => self.types.vector(s, n),
                    _ => ty,
                };
                let ct = self.types.with_scalar(ty, Scalar::Bool);
                let mut it = args.into_iter();
                let (Some(c), Some(a), Some(b)) = (it.next(), it.next(), it.next()) else {
                    return Expr::error(span);
                };
                let (cs, as_, bs) = (c.span, a.span, b.span);
                let c = if matches!(self.types.kind(c.ty), TyKind::Scalar(_)) {
                    let bt = self.types.bool();
                    self.convert(c, bt, cs)
                } else {
                    self.convert(c, ct, cs)
                };
                let v = vec![c, self.convert(a, ty, as_), self.convert(b, ty, bs)];
                mk(ExprKind::Intrinsic(IntrinsicOp::Select, v), ty, span)
            }
            "isnormal" => {
                // SM 6.9: neither zero, subnormal, infinite nor NaN. SPIR-V's OpIsNormal needs
                // the Kernel capability; as DXC, OneShader tests the value instead: finite
                // and at least the type's smallest normal magnitude in absolute value.
                if n != 1 {
                    return self.arity_error(name, "1", n, span);
                }
                let Some(ty) = self.common_type(&args, Class::Float) else {
                    return self.intrinsic_mismatch(name, &args, "a float value", span);
                };
                let s = self.types.scalar_of(ty).unwrap_or(Scalar::F32);
                let min_normal = match s {
                    Scalar::F16 => f64::from(f32::from_bits(0x3880_0000)), // 2^-14
                    Scalar::F64 => f64::MIN_POSITIVE,                      // 2^-1022
                    _ => f64::from(f32::MIN_POSITIVE),                     // 2^-126
                };
                let bt = self.types.with_scalar(ty, Scalar::Bool);
                let x = self.conv_all(args, ty).into_iter().next();
                let Some(x) = x else {
                    return Expr::error(span);
                };
                let (set, x) = self.temp(x, span);
                let finite = mk(
                    ExprKind::Intrinsic(IntrinsicOp::Ir(Intrinsic::IsFinite), vec![x.clone()]),
                    bt,
                    span,
                );
                let abs = mk(
                    ExprKind::Intrinsic(IntrinsicOp::Ir(Intrinsic::Abs), vec![x]),
                    ty,
                    span,
                );
                let st = self.types.scalar(s);
                let least = mk(ExprKind::Const(ConstVal::Float(min_normal)), st, span);
                let least = self.convert(least, ty, span);
                let big = mk(
                    ExprKind::Binary(BinOp::Ge, Box::new(abs), Box::new(least)),
                    bt,
                    span,
                );
                let both = mk(
                    ExprKind::Intrinsic(IntrinsicOp::LogicalAnd, vec![finite, big]),
                    bt,
                    span,
                );
                mk(ExprKind::Comma(Box::new(set), Box::new(both)), bt, span)
            }
            "and" | "or" => {
                if n != 2 {
                    return self.arity_error(name, "2", n, span);
                }
                let Some(ty) = self.common_type(&args, Class::Any) else {
                    return self.intrinsic_mismatch(name, &args, "two bool values", span);
                };
                let bt = self.types.with_scalar(ty, Scalar::Bool);
                let args = self.conv_all(args, bt);
                let op = if name == "and" {
                    IntrinsicOp::LogicalAnd
                } else {
                    IntrinsicOp::LogicalOr
                };
                mk(ExprKind::Intrinsic(op, args), bt, span)
            }
            "EvaluateAttributeCentroid"
            | "EvaluateAttributeAtCentroid"
            | "EvaluateAttributeAtSample"
            | "EvaluateAttributeSnapped" => {
                let (which, want) = match name {
                    "EvaluateAttributeAtSample" => (Intrinsic::InterpolateAtSample, 2),
                    "EvaluateAttributeSnapped" => (Intrinsic::InterpolateAtOffset, 2),
                    _ => (Intrinsic::InterpolateAtCentroid, 1),
                };
                if n != want {
                    return self.arity_error(name, if want == 1 { "1" } else { "2" }, n, span);
                }
                let Some(ty) = self.common_type(&args[..1], Class::Float) else {
                    return self.intrinsic_mismatch(name, &args, "a float attribute", span);
                };
                if !matches!(
                    self.types.kind(ty),
                    TyKind::Scalar(Scalar::F32) | TyKind::Vector(Scalar::F32, _)
                ) {
                    return self.intrinsic_mismatch(name, &args, "a float attribute", span);
                }
                let mut it = args.into_iter();
                let Some(x) = it.next() else {
                    return Expr::error(span);
                };
                let xs = x.span;
                let mut out = vec![self.convert(x, ty, xs)];
                if let Some(extra) = it.next() {
                    let et = if which == Intrinsic::InterpolateAtSample {
                        self.types.uint()
                    } else {
                        self.types.vector(Scalar::I32, 2)
                    };
                    let es = extra.span;
                    out.push(self.convert(extra, et, es));
                }
                mk(
                    ExprKind::Intrinsic(IntrinsicOp::Interpolate(which), out),
                    ty,
                    span,
                )
            }
            "GetAttributeAtVertex" => {
                // The attribute's value at vertex 0, 1 or 2 of the primitive: the backend
                // follows the operand back to a `nointerpolation` input (SPIR-V reads it
                // through a `PerVertexKHR` array).
                if n != 2 {
                    return self.arity_error(name, "2", n, span);
                }
                let ty = args[0].ty;
                if !matches!(
                    self.types.kind(ty),
                    TyKind::Scalar(_) | TyKind::Vector(_, _)
                ) {
                    return self.intrinsic_mismatch(
                        name,
                        &args,
                        "a scalar or vector attribute and a vertex index",
                        span,
                    );
                }
                let mut it = args.into_iter();
                let (Some(x), Some(k)) = (it.next(), it.next()) else {
                    return Expr::error(span);
                };
                let ks = k.span;
                let ut = self.types.uint();
                let k = self.convert(k, ut, ks);
                mk(
                    ExprKind::Intrinsic(
                        IntrinsicOp::Interpolate(Intrinsic::AttributeAtVertex),
                        vec![x, k],
                    ),
                    ty,
                    span,
                )
            }
            "dst" | "lit" => {
                let (want, op) = if name == "dst" {
                    (2, IntrinsicOp::Dst)
                } else {
                    (3, IntrinsicOp::Lit)
                };
                if n != want {
                    return self.arity_error(name, if want == 2 { "2" } else { "3" }, n, span);
                }
                let Some(ty) = self.common_type(&args, Class::Float) else {
                    return self.intrinsic_mismatch(name, &args, "float values", span);
                };
                let s = self.types.scalar_of(ty).unwrap_or(Scalar::F32);
                let at = if op == IntrinsicOp::Dst {
                    self.types.vector(s, 4)
                } else {
                    self.types.scalar(s)
                };
                let args = self.conv_all(args, at);
                let rty = self.types.vector(s, 4);
                mk(ExprKind::Intrinsic(op, args), rty, span)
            }
            "CheckAccessFullyMapped" => {
                if n != 1 {
                    return self.arity_error(name, "1", n, span);
                }
                let u = self.types.uint();
                let args = self.conv_all(args, u);
                let b = self.types.bool();
                mk(
                    ExprKind::Intrinsic(IntrinsicOp::Ir(Intrinsic::CheckAccessFullyMapped), args),
                    b,
                    span,
                )
            }
            "D3DCOLORtoUBYTE4" => {
                if n != 1 {
                    return self.arity_error(name, "1", n, span);
                }
                let f4 = self.types.vector(Scalar::F32, 4);
                let args = self.conv_all(args, f4);
                let i4 = self.types.vector(Scalar::I32, 4);
                mk(
                    ExprKind::Intrinsic(IntrinsicOp::ColorToUbyte4, args),
                    i4,
                    span,
                )
            }
            "SetMeshOutputCounts" => {
                if n != 2 {
                    return self.arity_error(name, "2", n, span);
                }
                let u = self.types.uint();
                let args = self.conv_all(args, u);
                mk(
                    ExprKind::Intrinsic(IntrinsicOp::SetMeshOutputCounts, args),
                    Types::VOID,
                    span,
                )
            }
            "DispatchMesh" => {
                if n != 4 {
                    return self.arity_error(name, "4", n, span);
                }
                let mut it = args.into_iter();
                let u = self.types.uint();
                let mut out: Vec<Expr> = (0..3)
                    .filter_map(|_| it.next())
                    .map(|a| {
                        let s = a.span;
                        self.convert(a, u, s)
                    })
                    .collect();
                let Some(payload) = it.next() else {
                    return Expr::error(span);
                };
                let groupshared = match &payload.kind {
                    ExprKind::Global(g) => {
                        self.globals[g.0 as usize].kind == GlobalKind::Groupshared
                    }
                    _ => false,
                };
                if !groupshared || !matches!(self.types.kind(payload.ty), TyKind::Struct(_)) {
                    self.error(
                        "OSH1005",
                        payload.span,
                        "the payload of `DispatchMesh` is a `groupshared` struct variable",
                    );
                    return Expr::error(span);
                }
                out.push(payload);
                mk(
                    ExprKind::Intrinsic(IntrinsicOp::DispatchMesh, out),
                    Types::VOID,
                    span,
                )
            }
            "TraceRay" => {
                if n != 8 {
                    return self.arity_error(name, "8", n, span);
                }
                let mut it = args.into_iter();
                let Some(accel) = it.next() else {
                    return Expr::error(span);
                };
                if !matches!(self.types.kind(accel.ty), TyKind::AccelStruct) {
                    self.error(
                        "OSH1005",
                        accel.span,
                        "the first argument of `TraceRay` is a `RaytracingAccelerationStructure`",
                    );
                    return Expr::error(span);
                }
                let u = self.types.uint();
                let mut out = vec![accel];
                for _ in 0..5 {
                    if let Some(a) = it.next() {
                        let s = a.span;
                        out.push(self.convert(a, u, s));
                    }
                }
                let rd = self.ray_desc();
                if let Some(r) = it.next() {
                    let s = r.span;
                    out.push(self.convert(r, rd, s));
                }
                let Some(payload) = it.next() else {
                    return Expr::error(span);
                };
                if !self.ray_data_arg(&payload, "payload", "TraceRay") {
                    return Expr::error(span);
                }
                out.push(payload);
                mk(
                    ExprKind::Intrinsic(IntrinsicOp::TraceRay, out),
                    Types::VOID,
                    span,
                )
            }
            "CallShader" => {
                if n != 2 {
                    return self.arity_error(name, "2", n, span);
                }
                let mut it = args.into_iter();
                let (Some(index), Some(data)) = (it.next(), it.next()) else {
                    return Expr::error(span);
                };
                let u = self.types.uint();
                let s = index.span;
                let index = self.convert(index, u, s);
                if !self.ray_data_arg(&data, "callable data", "CallShader") {
                    return Expr::error(span);
                }
                mk(
                    ExprKind::Intrinsic(IntrinsicOp::CallShader, vec![index, data]),
                    Types::VOID,
                    span,
                )
            }
            "ReportHit" => {
                if n != 3 {
                    return self.arity_error(name, "3", n, span);
                }
                let mut it = args.into_iter();
                let (Some(t), Some(kind), Some(attr)) = (it.next(), it.next(), it.next()) else {
                    return Expr::error(span);
                };
                let f = self.types.float();
                let u = self.types.uint();
                let (ts, ks) = (t.span, kind.span);
                let t = self.convert(t, f, ts);
                let kind = self.convert(kind, u, ks);
                if !matches!(self.types.kind(attr.ty), TyKind::Struct(_))
                    || self.types.contains_resource(attr.ty)
                {
                    self.error(
                        "OSH1005",
                        attr.span,
                        "the attributes of `ReportHit` are a struct of plain data",
                    );
                    return Expr::error(span);
                }
                let b = self.types.bool();
                mk(
                    ExprKind::Intrinsic(IntrinsicOp::ReportHit, vec![t, kind, attr]),
                    b,
                    span,
                )
            }
            "IgnoreHit" | "AcceptHitAndEndSearch" => {
                if n != 0 {
                    return self.arity_error(name, "0", n, span);
                }
                let op = if name == "IgnoreHit" {
                    IntrinsicOp::IgnoreHit
                } else {
                    IntrinsicOp::AcceptHitAndEndSearch
                };
                mk(ExprKind::Intrinsic(op, Vec::new()), Types::VOID, span)
            }
            _ if let Some(&(_, b, shape, transpose)) =
                RAY_SYSTEM_VALUES.iter().find(|v| v.0 == name) =>
            {
                if n != 0 {
                    return self.arity_error(name, "0", n, span);
                }
                let ty = match shape {
                    "uint3" => self.types.vector(Scalar::U32, 3),
                    "float3" => self.types.vector(Scalar::F32, 3),
                    "float" => self.types.float(),
                    "float3x4" => self.types.matrix(Scalar::F32, 3, 4),
                    "float4x3" => self.types.matrix(Scalar::F32, 4, 3),
                    _ => self.types.uint(),
                };
                mk(
                    ExprKind::Intrinsic(IntrinsicOp::SystemValue(b, transpose), Vec::new()),
                    ty,
                    span,
                )
            }
            other => {
                let static_name = SPECIAL
                    .iter()
                    .find(|s| **s == other)
                    .copied()
                    .unwrap_or("intrinsic");
                // Why, where there is more to say than "not yet".
                let why = match other {
                    "noise" => {
                        ": it has no defined result (D3D10 and later removed it; DXC refuses it \
                         for every shader model 6 target)"
                    }
                    "errorf" => {
                        ": it has no SPIR-V form (DXC refuses it too); use `printf`, which \
                         prints through `NonSemantic.DebugPrintf`"
                    }
                    _ => "",
                };
                self.error(
                    "OSH1018",
                    span,
                    format!("the intrinsic `{other}` is not supported{why}"),
                );
                mk(
                    ExprKind::Intrinsic(IntrinsicOp::Unsupported(static_name), Vec::new()),
                    Types::ERROR,
                    span,
                )
            }
        }
    }

    /// The payload of `TraceRay` or the data of `CallShader`: an assignable struct of plain
    /// data (passed `inout`).
    fn ray_data_arg(&mut self, e: &Expr, what: &str, func: &str) -> bool {
        if !matches!(self.types.kind(e.ty), TyKind::Struct(_)) || self.types.contains_resource(e.ty)
        {
            self.error(
                "OSH1005",
                e.span,
                format!("the {what} of `{func}` is a struct of plain data"),
            );
            return false;
        }
        self.require_writable(e)
    }

    fn literal_to_concrete(&mut self, args: Vec<Expr>) -> Vec<Expr> {
        args.into_iter()
            .map(|a| {
                let t = self.types.concrete(a.ty);
                let s = a.span;
                self.convert(a, t, s)
            })
            .collect()
    }

    fn split_double(&mut self, args: Vec<Expr>, span: Span) -> Expr {
        let mut it = args.into_iter();
        let (Some(d), Some(lo), Some(hi)) = (it.next(), it.next(), it.next()) else {
            return Expr::error(span);
        };
        let dt = self.types.scalar(Scalar::F64);
        let ds = d.span;
        let d = self.convert(d, dt, ds);
        let u = self.types.uint();
        for o in [&lo, &hi] {
            if !self.require_writable(o) {
                return Expr::error(span);
            }
            if o.ty != u {
                self.error(
                    "OSH1005",
                    o.span,
                    "the outputs of `asuint(double, ...)` must be `uint`",
                );
                return Expr::error(span);
            }
        }
        mk(
            ExprKind::Intrinsic(IntrinsicOp::SplitDouble, vec![d, lo, hi]),
            Types::VOID,
            span,
        )
    }

    /// `Interlocked*(dest, v... [, out original])`: `values` value operands after `dest`.
    fn atomic(
        &mut self,
        name: &str,
        op: IntrinsicOp,
        args: Vec<Expr>,
        values: usize,
        span: Span,
    ) -> Expr {
        let mut it = args.into_iter();
        let Some(dest) = it.next() else {
            return Expr::error(span);
        };
        if !self.require_writable(&dest) {
            return Expr::error(span);
        }
        let dt = dest.ty;
        if !matches!(self.types.kind(dt), TyKind::Scalar(s) if s.is_int()) {
            self.error(
                "OSH1005",
                dest.span,
                format!(
                    "`{name}` needs an integer destination, not `{}`",
                    self.types.name(dt)
                ),
            );
            return Expr::error(span);
        }
        let mut out = vec![dest];
        for _ in 0..values {
            let Some(v) = it.next() else {
                return Expr::error(span);
            };
            let s = v.span;
            out.push(self.convert(v, dt, s));
        }
        if let Some(orig) = it.next() {
            if !self.require_writable(&orig) {
                return Expr::error(span);
            }
            if self.types.scalar_of(orig.ty).is_none() {
                self.error(
                    "OSH1005",
                    orig.span,
                    "the original value goes to an integer variable",
                );
                return Expr::error(span);
            }
            out.push(orig);
        }
        mk(ExprKind::Intrinsic(op, out), Types::VOID, span)
    }

    /// `mul(a, b)`.
    fn check_mul(&mut self, args: Vec<Expr>, span: Span) -> Expr {
        if args.len() != 2 {
            return self.arity_error("mul", "2", args.len(), span);
        }
        let (Some(sa), Some(sb)) = (
            self.types.scalar_of(args[0].ty),
            self.types.scalar_of(args[1].ty),
        ) else {
            return self.intrinsic_mismatch("mul", &args, "scalars, vectors or matrices", span);
        };
        let mut s = common_scalar(sa, sb);
        if s == crate::hlsl::sema::hir::Scalar::Bool {
            s = crate::hlsl::sema::hir::Scalar::I32;
        }
        let s = s.concrete();
        let (ka, kb) = (
            self.types.kind(args[0].ty).clone(),
            self.types.kind(args[1].ty).clone(),
        );
        let mut it = args.into_iter();
        let (Some(a), Some(b)) = (it.next(), it.next()) else {
            return Expr::error(span);
        };
        use TyKind::*;
        // Shapes as (rows, cols); vectors are rows on the left and columns on the right.
        // Mismatched inner dimensions are truncated to the smaller one with a warning (as
        // glslang does; DXC rejects them).
        let trunc;
        let (at, bt, rt) = match (&ka, &kb) {
            (Scalar(_), _) | (_, Scalar(_)) => {
                // Component-wise with a scalar.
                return self.binary(ast::BinaryOp::Mul, a, b, span);
            }
            (Vector(_, n), Vector(_, m)) => {
                let k = (*n).min(*m);
                trunc = n != m;
                let st = self.types.scalar(s);
                (self.types.vector(s, k), self.types.vector(s, k), st)
            }
            (Vector(_, n), Matrix(_, r, c)) => {
                let k = (*n).min(*r);
                trunc = n != r;
                (
                    self.types.vector(s, k),
                    self.types.matrix(s, k, *c),
                    self.types.vector(s, *c),
                )
            }
            (Matrix(_, r, c), Vector(_, n)) => {
                let k = (*n).min(*c);
                trunc = n != c;
                (
                    self.types.matrix(s, *r, k),
                    self.types.vector(s, k),
                    self.types.vector(s, *r),
                )
            }
            (Matrix(_, r, k), Matrix(_, k2, c)) => {
                let kk = (*k).min(*k2);
                trunc = k != k2;
                (
                    self.types.matrix(s, *r, kk),
                    self.types.matrix(s, kk, *c),
                    self.types.matrix(s, *r, *c),
                )
            }
            _ => {
                let argv = [a, b];
                return self.intrinsic_mismatch("mul", &argv, "scalars, vectors or matrices", span);
            }
        };
        if trunc {
            self.warn(
                "OSH1006",
                span,
                format!(
                    "`mul` of `{}` and `{}`: the inner dimensions differ and are truncated",
                    self.types.name(a.ty),
                    self.types.name(b.ty)
                ),
            );
        }
        let (sa, sb) = (a.span, b.span);
        let a = self.convert(a, at, sa);
        let b = self.convert(b, bt, sb);
        mk(ExprKind::Intrinsic(IntrinsicOp::Mul, vec![a, b]), rt, span)
    }
}
