//! The packed 8-bit intrinsics of SM 6.6 (`pack_u8`, `pack_s8`, `pack_clamp_u8`,
//! `pack_clamp_s8`, `unpack_u8u32`, `unpack_s8s32`, `unpack_u8u16`, `unpack_s8s16`,
//! `dot4add_u8packed`, `dot4add_i8packed`), `dot2add` and `msad4`, written as the integer
//! arithmetic D3D defines for them. `uint8_t4_packed` and `int8_t4_packed` are 32-bit `uint`s (as DXC's
//! SPIR-V holds them): byte `k` of the value is component `k` (bits `8k..8k+7`).
//!
//! - `pack_u8(v)`, `pack_s8(v)`: the low 8 bits of each component of an integer 4-vector.
//! - `pack_clamp_u8(v)`, `pack_clamp_s8(v)`: each signed component clamped to 0..255 or
//!   -128..127 first.
//! - `unpack_u8u32(p)` / `unpack_u8u16(p)`: the bytes zero-extended; `unpack_s8s32(p)` /
//!   `unpack_s8s16(p)`: sign-extended.
//! - `dot4add_u8packed(a, b, acc)`: `acc + sum(a_k * b_k)` of the unsigned bytes (a `uint`,
//!   wrapping); `dot4add_i8packed(a, b, acc)`: the same of the signed bytes (an `int`).
//! - `dot2add(a, b, acc)`: `acc + a.x * b.x + a.y * b.y`, `a` and `b` `half2` taken to
//!   `float`, the sum in `float`.
//! - `msad4(reference, source, accum)` (SM 5): component `i` of the result is `accum[i]` plus
//!   the masked sum of absolute differences between the bytes of `reference` and the four
//!   bytes of `source` (a `uint2`, 8 bytes, `x` first) starting at byte `i`; a zero byte of
//!   `reference` adds nothing. That is D3D's definition and DXIL's `Msad` on the windows
//!   `(source.x >> 8i) | (source.y << (32 - 8i))`; DXC's SPIR-V builds windows 1 to 3 with a
//!   left shift instead (`(source.x << 8i)` with `source.y`'s low bytes on top), which gives
//!   other numbers: OneShader follows D3D. The sums wrap (as `uint` addition).
//!
//! Arguments used more than once go through a temporary, so each is evaluated once.

use oneshader_ir::Intrinsic;
use oneshader_ir::diag::Span;

use crate::hlsl::sema::Sema;
use crate::hlsl::sema::hir::*;

/// The intrinsics of this module.
pub const PACKED: &[&str] = &[
    "pack_u8",
    "pack_s8",
    "pack_clamp_u8",
    "pack_clamp_s8",
    "unpack_u8u32",
    "unpack_s8s32",
    "unpack_u8u16",
    "unpack_s8s16",
    "dot4add_u8packed",
    "dot4add_i8packed",
    "dot2add",
    "msad4",
];

fn mk(kind: ExprKind, ty: TyId, span: Span) -> Expr {
    Expr { kind, ty, span }
}

impl Sema<'_> {
    /// A `uint`/`int` constant.
    fn k(&mut self, v: i128, signed: bool, span: Span) -> Expr {
        let t = if signed {
            self.types.int()
        } else {
            self.types.uint()
        };
        mk(ExprKind::Const(ConstVal::Int(v)), t, span)
    }

    fn bin(&mut self, op: BinOp, a: Expr, b: Expr, span: Span) -> Expr {
        let ty = a.ty;
        mk(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty, span)
    }

    /// `e` in a fresh local: (the assignment, a read of the local).
    pub(in crate::hlsl) fn temp(&mut self, e: Expr, span: Span) -> (Expr, Expr) {
        let ty = e.ty;
        let l = self.add_local("packed.tmp", ty, span);
        let r = mk(ExprKind::Local(l), ty, span);
        let a = mk(ExprKind::Assign(Box::new(r.clone()), Box::new(e)), ty, span);
        (a, r)
    }

    /// Byte `k` of the `uint` `p`, zero- or sign-extended to a 32-bit integer.
    fn byte(&mut self, p: &Expr, k: u32, signed: bool, span: Span) -> Expr {
        if signed {
            let int = self.types.int();
            let sh = self.k(24 - 8 * k as i128, false, span);
            let up = self.bin(BinOp::Shl, p.clone(), sh, span);
            let up = self.convert(up, int, span);
            let down = self.k(24, true, span);
            self.bin(BinOp::Shr, up, down, span)
        } else {
            let sh = self.k(8 * k as i128, false, span);
            let x = self.bin(BinOp::Shr, p.clone(), sh, span);
            let m = self.k(0xFF, false, span);
            self.bin(BinOp::And, x, m, span)
        }
    }

    /// Checks and expands one of [`PACKED`].
    pub fn packed_intrinsic(&mut self, name: &str, args: Vec<Expr>, span: Span) -> Expr {
        let want = match name {
            "dot4add_u8packed" | "dot4add_i8packed" | "dot2add" | "msad4" => 3,
            _ => 1,
        };
        if args.len() != want {
            self.error(
                "OSH1003",
                span,
                format!("`{name}` takes {want} argument(s), {} given", args.len()),
            );
            return Expr::error(span);
        }
        let uint = self.types.uint();
        let mut args = args.into_iter();
        let Some(a0) = args.next() else {
            return Expr::error(span);
        };
        match name {
            "pack_u8" | "pack_s8" | "pack_clamp_u8" | "pack_clamp_s8" => {
                let ok = matches!(self.types.kind(a0.ty), TyKind::Vector(s, 4)
                    if s.is_int() && s.bits() <= 32 || s.is_literal() && !s.is_float());
                if !ok {
                    self.error(
                        "OSH1003",
                        a0.span,
                        format!(
                            "`{name}` takes a 4-vector of 16- or 32-bit integers, not `{}`",
                            self.types.name(a0.ty)
                        ),
                    );
                    return Expr::error(span);
                }
                let s = match self.types.scalar_of(a0.ty) {
                    Some(s) if s.is_literal() => Scalar::I32,
                    Some(s) => s,
                    None => Scalar::I32,
                };
                let clamp = name.starts_with("pack_clamp");
                // The clamps take signed components (DXC's signatures: int32_t4, int16_t4).
                let s = match s {
                    Scalar::U16 | Scalar::I16 if clamp => Scalar::I16,
                    _ if clamp => Scalar::I32,
                    s => s,
                };
                let vt = self.types.vector(s, 4);
                let mut v = self.convert(a0, vt, span);
                if clamp {
                    let (lo, hi) = if name == "pack_clamp_u8" {
                        (0, 255)
                    } else {
                        (-128, 127)
                    };
                    let lo = self.k(lo, true, span);
                    let lo = self.convert(lo, vt, span);
                    let hi = self.k(hi, true, span);
                    let hi = self.convert(hi, vt, span);
                    v = mk(
                        ExprKind::Intrinsic(IntrinsicOp::Ir(Intrinsic::Clamp), vec![v, lo, hi]),
                        vt,
                        span,
                    );
                }
                let u4 = self.types.vector(Scalar::U32, 4);
                let v = self.convert(v, u4, span);
                let (set, t) = self.temp(v, span);
                let mut acc: Option<Expr> = None;
                for k in 0..4u32 {
                    let c = mk(
                        ExprKind::Swizzle(Box::new(t.clone()), vec![k as u8]),
                        uint,
                        span,
                    );
                    let m = self.k(0xFF, false, span);
                    let c = self.bin(BinOp::And, c, m, span);
                    let sh = self.k(8 * k as i128, false, span);
                    let c = self.bin(BinOp::Shl, c, sh, span);
                    acc = Some(match acc {
                        None => c,
                        Some(p) => self.bin(BinOp::Or, p, c, span),
                    });
                }
                let body = acc.unwrap_or_else(|| Expr::error(span));
                mk(ExprKind::Comma(Box::new(set), Box::new(body)), uint, span)
            }
            "unpack_u8u32" | "unpack_s8s32" | "unpack_u8u16" | "unpack_s8s16" => {
                if !matches!(self.types.kind(a0.ty), TyKind::Scalar(s) | TyKind::Vector(s, 1)
                    if s.is_int() && s.bits() == 32 || s.is_literal() && !s.is_float())
                {
                    self.error(
                        "OSH1003",
                        a0.span,
                        format!(
                            "`{name}` takes a packed 4 x 8-bit value (`uint8_t4_packed`, \
                             `int8_t4_packed`), not `{}`",
                            self.types.name(a0.ty)
                        ),
                    );
                    return Expr::error(span);
                }
                let signed = name.starts_with("unpack_s8");
                let p = self.convert(a0, uint, span);
                let (set, t) = self.temp(p, span);
                let parts: Vec<Expr> = (0..4).map(|k| self.byte(&t, k, signed, span)).collect();
                let s32 = if signed { Scalar::I32 } else { Scalar::U32 };
                let v32 = self.types.vector(s32, 4);
                let v = mk(ExprKind::Flatten(parts), v32, span);
                if name.ends_with("16") && !self.opts.enable_16bit {
                    self.error(
                        "OSH1003",
                        span,
                        format!("`{name}` returns 16-bit integers: it needs -enable-16bit-types"),
                    );
                    return Expr::error(span);
                }
                let v = if name.ends_with("16") {
                    let s16 = if signed { Scalar::I16 } else { Scalar::U16 };
                    let v16 = self.types.vector(s16, 4);
                    self.convert(v, v16, span)
                } else {
                    v
                };
                let ty = v.ty;
                mk(ExprKind::Comma(Box::new(set), Box::new(v)), ty, span)
            }
            "dot4add_u8packed" | "dot4add_i8packed" => {
                let (Some(b0), Some(acc)) = (args.next(), args.next()) else {
                    return Expr::error(span);
                };
                let signed = name == "dot4add_i8packed";
                let rt = if signed {
                    self.types.int()
                } else {
                    self.types.uint()
                };
                let a = self.convert(a0, uint, span);
                let b = self.convert(b0, uint, span);
                let acc = self.convert(acc, rt, span);
                let (sa, ta) = self.temp(a, span);
                let (sb, tb) = self.temp(b, span);
                let mut sum = acc;
                for k in 0..4 {
                    let x = self.byte(&ta, k, signed, span);
                    let y = self.byte(&tb, k, signed, span);
                    let p = self.bin(BinOp::Mul, x, y, span);
                    sum = self.bin(BinOp::Add, sum, p, span);
                }
                let sets = mk(ExprKind::Comma(Box::new(sa), Box::new(sb)), uint, span);
                mk(ExprKind::Comma(Box::new(sets), Box::new(sum)), rt, span)
            }
            "msad4" => {
                let (Some(src), Some(acc)) = (args.next(), args.next()) else {
                    return Expr::error(span);
                };
                self.msad4(a0, src, acc, span)
            }
            _ => {
                // dot2add(half2 a, half2 b, float acc).
                let (Some(b0), Some(acc)) = (args.next(), args.next()) else {
                    return Expr::error(span);
                };
                // `half` is 32-bit without -enable-16bit-types.
                let hs = if self.opts.enable_16bit {
                    Scalar::F16
                } else {
                    Scalar::F32
                };
                let h2 = self.types.vector(hs, 2);
                let f2 = self.types.vector(Scalar::F32, 2);
                let f = self.types.float();
                let a = self.convert(a0, h2, span);
                let a = self.convert(a, f2, span);
                let b = self.convert(b0, h2, span);
                let b = self.convert(b, f2, span);
                let acc = self.convert(acc, f, span);
                let (sa, ta) = self.temp(a, span);
                let (sb, tb) = self.temp(b, span);
                let mut sum = acc;
                for k in 0..2u8 {
                    let x = mk(ExprKind::Swizzle(Box::new(ta.clone()), vec![k]), f, span);
                    let y = mk(ExprKind::Swizzle(Box::new(tb.clone()), vec![k]), f, span);
                    let p = self.bin(BinOp::Mul, x, y, span);
                    sum = self.bin(BinOp::Add, sum, p, span);
                }
                let sets = mk(ExprKind::Comma(Box::new(sa), Box::new(sb)), f2, span);
                mk(ExprKind::Comma(Box::new(sets), Box::new(sum)), f, span)
            }
        }
    }

    /// `msad4(reference, source, accum)` (see the module documentation).
    fn msad4(&mut self, reference: Expr, source: Expr, accum: Expr, span: Span) -> Expr {
        let uint = self.types.uint();
        let u2 = self.types.vector(Scalar::U32, 2);
        let u4 = self.types.vector(Scalar::U32, 4);
        let boolean = self.types.intern(TyKind::Scalar(Scalar::Bool));
        let r = self.convert(reference, uint, span);
        let s = self.convert(source, u2, span);
        let a = self.convert(accum, u4, span);
        let mut sets = Vec::new();
        let (set, r) = self.temp(r, span);
        sets.push(set);
        let (set, s) = self.temp(s, span);
        sets.push(set);
        let (set, a) = self.temp(a, span);
        sets.push(set);
        let sx = mk(ExprKind::Swizzle(Box::new(s.clone()), vec![0]), uint, span);
        let sy = mk(ExprKind::Swizzle(Box::new(s), vec![1]), uint, span);
        // The reference's bytes, and whether each counts.
        let mut refs = Vec::new();
        for j in 0..4 {
            let b = self.byte(&r, j, false, span);
            let (set, b) = self.temp(b, span);
            sets.push(set);
            let zero = self.k(0, false, span);
            let counts = mk(
                ExprKind::Binary(BinOp::Ne, Box::new(b.clone()), Box::new(zero)),
                boolean,
                span,
            );
            refs.push((b, counts));
        }
        let mut parts = Vec::new();
        for i in 0..4u32 {
            // The four bytes of `source` from byte `i`.
            let w = if i == 0 {
                sx.clone()
            } else {
                let lo = self.k(8 * i as i128, false, span);
                let lo = self.bin(BinOp::Shr, sx.clone(), lo, span);
                let hi = self.k(32 - 8 * i as i128, false, span);
                let hi = self.bin(BinOp::Shl, sy.clone(), hi, span);
                self.bin(BinOp::Or, lo, hi, span)
            };
            let (set, w) = self.temp(w, span);
            sets.push(set);
            let mut sum = mk(
                ExprKind::Swizzle(Box::new(a.clone()), vec![i as u8]),
                uint,
                span,
            );
            for (j, (rb, counts)) in refs.iter().enumerate() {
                let wb = self.byte(&w, j as u32, false, span);
                let (set, wb) = self.temp(wb, span);
                sets.push(set);
                let hi = mk(
                    ExprKind::Intrinsic(
                        IntrinsicOp::Ir(Intrinsic::Max),
                        vec![rb.clone(), wb.clone()],
                    ),
                    uint,
                    span,
                );
                let lo = mk(
                    ExprKind::Intrinsic(IntrinsicOp::Ir(Intrinsic::Min), vec![rb.clone(), wb]),
                    uint,
                    span,
                );
                let d = self.bin(BinOp::Sub, hi, lo, span);
                let zero = self.k(0, false, span);
                let d = mk(
                    ExprKind::Ternary(Box::new(counts.clone()), Box::new(d), Box::new(zero)),
                    uint,
                    span,
                );
                sum = self.bin(BinOp::Add, sum, d, span);
            }
            parts.push(sum);
        }
        let mut out = mk(ExprKind::Flatten(parts), u4, span);
        for set in sets.into_iter().rev() {
            out = mk(ExprKind::Comma(Box::new(set), Box::new(out)), u4, span);
        }
        out
    }
}
