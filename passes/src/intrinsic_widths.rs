//! `intrinsic_widths`: bit intrinsics on 32-bit integers and derivatives of 32-bit floats
//! only, as Vulkan takes them.
//!
//! Vulkan's `OpBitCount`, `OpBitReverse` and GLSL.std.450's `FindILsb`/`FindSMsb`/`FindUMsb`
//! take 32-bit operands (VUID-StandaloneSpirv-Base-04781; the rule holds for every target:
//! GLSL's `bitCount` and `findMSB` are 32-bit functions, WGSL has no other integers), and
//! `OpDPdx` and its kin 32-bit floats. HLSL applies `countbits`, `reversebits`,
//! `firstbithigh` and `firstbitlow` to 16- and 64-bit integers and `ddx`.. `fwidth` to `half`
//! and `double`; the IR keeps those calls as HLSL wrote them (the interpreter and the folder
//! compute them at their own width), and this pass rewrites each one for a target, as DXC's
//! SPIR-V emitter does:
//!
//! | call | becomes |
//! |---|---|
//! | `countbits(x)`, 8/16-bit | `countbits(zext32(x))` |
//! | `countbits(x)`, 64-bit | `countbits(lo) + countbits(hi)` |
//! | `reversebits(x)`, 8/16-bit | `trunc(reversebits(zext32(x)) >> (32 - w))` |
//! | `reversebits(x)`, 64-bit | `zext64(reversebits(lo)) << 32 \| zext64(reversebits(hi))` |
//! | `firstbitlow(x)`, 8/16-bit | `firstbitlow(zext32(x))` |
//! | `firstbitlow(x)`, 64-bit | `lo != 0 ? firstbitlow(lo) : hi != 0 ? 32 + firstbitlow(hi) : -1` |
//! | `firstbithigh(x)`, 8/16-bit | `firstbithigh(sext32(x))` signed, `firstbithigh(zext32(x))` unsigned |
//! | `firstbithigh(x)`, 64-bit | with `s` = the sign of signed `x` (0 for unsigned) spread over 32 bits, `y` = the halves xor `s`: `y.hi != 0 ? 32 + firstbithigh(y.hi) : firstbithigh(y.lo)` |
//! | `ddx(x)` .. `fwidth(x)`, `half` or `double` | `convert(ddx(convert(x, f32)))` |
//!
//! (`lo`/`hi` are the low and high 32 bits; DXC refuses 64-bit `firstbithigh` and
//! `firstbitlow` for SPIR-V, OneShader computes them.) The bit counts and positions are computed
//! as 32-bit integers and converted to the call's result type (a position of -1, "no bit",
//! stays all ones at every width). Vectors are rewritten component-wise in one go.
//!
//! It runs in every target's legalization ([`crate::legalize`]); afterwards
//! [`first_unsupported_width`] finds nothing, which the backends' boundary checks (OSG0010).

use oneshader_ir::{Builder, InstId, Intrinsic, Module, Op, ScalarKind};

use crate::{Pass, PassError};

const NAME: &str = "intrinsic_widths";

/// The pass (see the module documentation).
#[derive(Clone, Copy, Debug, Default)]
pub struct IntrinsicWidths;

/// True for the intrinsics that take 32-bit integers only.
fn is_bit_intrinsic(w: Intrinsic) -> bool {
    matches!(
        w,
        Intrinsic::CountBits
            | Intrinsic::ReverseBits
            | Intrinsic::FirstBitHigh
            | Intrinsic::FirstBitLow
    )
}

/// True for the derivatives, which take 32-bit floats only.
fn is_derivative(w: Intrinsic) -> bool {
    matches!(
        w,
        Intrinsic::Ddx
            | Intrinsic::Ddy
            | Intrinsic::DdxFine
            | Intrinsic::DdyFine
            | Intrinsic::DdxCoarse
            | Intrinsic::DdyCoarse
            | Intrinsic::Fwidth
    )
}

/// The intrinsic `i` calls and the width of its first operand's scalars, when `i` is a call
/// this pass rewrites: a bit intrinsic on integers that are not 32-bit, or a derivative of
/// floats that are not.
fn unsupported(m: &Module, i: InstId) -> Option<(Intrinsic, u32)> {
    if m.op(i) != Op::CallIntrinsic {
        return None;
    }
    let w = m.imm_operand(i, 0).and_then(Intrinsic::from_u32)?;
    let t = m.ty(m.try_operand(i, 1)?)?;
    let bits = m.scalar_bits(m.scalar_of(t)?)?;
    let kind = m.scalar_kind(t)?;
    let wrong = match kind {
        ScalarKind::Int | ScalarKind::Uint => is_bit_intrinsic(w),
        ScalarKind::Float => is_derivative(w),
        ScalarKind::Bool => false,
    };
    (wrong && bits != 32).then_some((w, bits))
}

/// The first call in `m` that a target cannot take as it stands (a bit intrinsic on integers,
/// or a derivative of floats, that are not 32-bit): what a module legalized for any target
/// no longer has.
pub fn first_unsupported_width(m: &Module) -> Option<InstId> {
    m.functions().into_iter().find_map(|f| {
        f.blocks(m).into_iter().find_map(|b| {
            b.insts(m)
                .into_iter()
                .find(|&i| unsupported(m, i).is_some())
        })
    })
}

/// Builds the rewritten calls: a builder positioned before the call, and the number of
/// components (`None` for a scalar).
struct Rewriter<'m> {
    b: Builder<'m>,
    n: Option<u32>,
}

impl Rewriter<'_> {
    /// The scalar type `scalar` in the call's shape.
    fn shaped(&mut self, scalar: InstId) -> InstId {
        match self.n {
            Some(n) => self.b.m.vector_type(scalar, n),
            None => scalar,
        }
    }

    fn int_ty(&mut self, bits: u32, signed: bool) -> InstId {
        let s = self.b.m.int_type(bits, signed);
        self.shaped(s)
    }

    /// The integer constant `v` (its low `bits` bits) of type `ty`, splatted over the shape.
    fn splat(&mut self, ty: InstId, v: u64) -> InstId {
        let m = &mut *self.b.m;
        let s = m.scalar_of(ty).unwrap_or(ty);
        let c = m.const_int(s, v);
        match self.n {
            Some(n) => m.const_composite(ty, &vec![c; n as usize]),
            None => c,
        }
    }

    /// `x` (an integer of `bits` bits) as the unsigned integer of its width.
    fn unsigned(&mut self, x: InstId, bits: u32) -> InstId {
        let ut = self.int_ty(bits, false);
        if self.b.m.ty(x) == Some(ut) {
            x
        } else {
            self.b.bitcast(x, ut)
        }
    }

    /// `x` zero-extended to 32 bits.
    fn zext32(&mut self, x: InstId, bits: u32) -> InstId {
        let u = self.unsigned(x, bits);
        let u32t = self.int_ty(32, false);
        self.b.convert(u, u32t)
    }

    /// The low and high 32 bits of the 64-bit integer `x`, as `u32`s.
    fn halves(&mut self, x: InstId) -> (InstId, InstId) {
        let u = self.unsigned(x, 64);
        let u64t = self.int_ty(64, false);
        let u32t = self.int_ty(32, false);
        let lo = self.b.convert(u, u32t);
        let k32 = self.splat(u64t, 32);
        let sh = self.b.shr(u, k32);
        let hi = self.b.convert(sh, u32t);
        (lo, hi)
    }

    /// `v` converted (or reinterpreted, at the same width) to `to`.
    fn fit(&mut self, v: InstId, to: InstId) -> InstId {
        let m = &*self.b.m;
        let from = m.ty(v);
        if from == Some(to) {
            return v;
        }
        let same_width = from
            .and_then(|f| m.scalar_of(f))
            .and_then(|s| m.scalar_bits(s))
            == m.scalar_of(to).and_then(|s| m.scalar_bits(s));
        let both_int = from.and_then(|f| m.scalar_kind(f)).is_some_and(is_int)
            && m.scalar_kind(to).is_some_and(is_int);
        if same_width && both_int {
            self.b.bitcast(v, to)
        } else {
            self.b.convert(v, to)
        }
    }

    /// The bit position `w` (`firstbithigh` or `firstbitlow`) of the 32-bit `v`, as an `i32`
    /// (so that "no bit", -1, stays all ones when converted to any width). The call's result
    /// type is its operand's, which every target states directly (GLSL's `findMSB`, WGSL's
    /// `firstLeadingBit` return their operand's type).
    fn find(&mut self, w: Intrinsic, v: InstId) -> InstId {
        let i32t = self.int_ty(32, true);
        let vt = self.b.m.ty(v).unwrap_or(i32t);
        let r = self.b.intrinsic(w, vt, &[v]);
        if vt == i32t {
            r
        } else {
            self.b.bitcast(r, i32t)
        }
    }

    /// `c ? a : b` with `c` the comparison `x != 0`.
    fn select_nonzero(&mut self, x: InstId, a: InstId, b: InstId) -> InstId {
        let xt = self.b.m.ty(x).unwrap_or(x);
        let zero = self.splat(xt, 0);
        let c = self.b.cmp(Op::Ne, x, zero);
        self.b.select(c, a, b)
    }

    /// The bit intrinsic `w` of the integer `x` (`bits` wide, signed or not) computed on
    /// 32-bit halves or a widened value; the result has type `rt`.
    fn bits(&mut self, w: Intrinsic, x: InstId, bits: u32, signed: bool, rt: InstId) -> InstId {
        let u32t = self.int_ty(32, false);
        let i32t = self.int_ty(32, true);
        match (w, bits) {
            (Intrinsic::CountBits, 64) => {
                let (lo, hi) = self.halves(x);
                let a = self.b.intrinsic(w, u32t, &[lo]);
                let c = self.b.intrinsic(w, u32t, &[hi]);
                let r = self.b.add(a, c);
                self.fit(r, rt)
            }
            (Intrinsic::CountBits, _) => {
                let v = self.zext32(x, bits);
                let r = self.b.intrinsic(w, u32t, &[v]);
                self.fit(r, rt)
            }
            (Intrinsic::ReverseBits, 64) => {
                let (lo, hi) = self.halves(x);
                let rl = self.b.intrinsic(w, u32t, &[lo]);
                let rh = self.b.intrinsic(w, u32t, &[hi]);
                let u64t = self.int_ty(64, false);
                let wl = self.b.convert(rl, u64t);
                let wh = self.b.convert(rh, u64t);
                let k32 = self.splat(u64t, 32);
                let top = self.b.shl(wl, k32);
                let r = self.b.or(top, wh);
                self.fit(r, rt)
            }
            (Intrinsic::ReverseBits, _) => {
                let v = self.zext32(x, bits);
                let r = self.b.intrinsic(w, u32t, &[v]);
                let k = self.splat(u32t, u64::from(32 - bits));
                let r = self.b.shr(r, k);
                let ut = self.int_ty(bits, false);
                let r = self.b.convert(r, ut);
                self.fit(r, rt)
            }
            (Intrinsic::FirstBitLow, 64) => {
                let (lo, hi) = self.halves(x);
                let l = self.find(w, lo);
                let h = self.find(w, hi);
                let k32 = self.splat(i32t, 32);
                let h = self.b.add(h, k32);
                let none = self.splat(i32t, u64::MAX);
                let h = self.select_nonzero(hi, h, none);
                let r = self.select_nonzero(lo, l, h);
                self.fit(r, rt)
            }
            (Intrinsic::FirstBitHigh, 64) => {
                let (mut lo, mut hi) = self.halves(x);
                if signed {
                    // Positions of the highest bit that differs from the sign bit: those of
                    // the highest set bit once the sign is xored away.
                    let sh = self.b.bitcast(hi, i32t);
                    let k31 = self.splat(i32t, 31);
                    let s = self.b.shr(sh, k31);
                    let s = self.b.bitcast(s, u32t);
                    hi = self.b.xor(hi, s);
                    lo = self.b.xor(lo, s);
                }
                let l = self.find(w, lo);
                let h = self.find(w, hi);
                let k32 = self.splat(i32t, 32);
                let h = self.b.add(h, k32);
                let r = self.select_nonzero(hi, h, l);
                self.fit(r, rt)
            }
            (Intrinsic::FirstBitHigh, _) if signed => {
                // Sign extension keeps the highest bit that differs from the sign bit.
                let v = self.b.convert(x, i32t);
                let r = self.find(w, v);
                self.fit(r, rt)
            }
            _ => {
                // `firstbitlow`, unsigned `firstbithigh`: zero extension keeps the positions.
                let v = self.zext32(x, bits);
                let r = self.find(w, v);
                self.fit(r, rt)
            }
        }
    }
}

fn is_int(k: ScalarKind) -> bool {
    matches!(k, ScalarKind::Int | ScalarKind::Uint)
}

/// Rewrites the call `i` (one [`unsupported`] accepts).
fn rewrite(m: &mut Module, i: InstId, w: Intrinsic, bits: u32) -> Result<(), PassError> {
    let x = m.operand(i, 1);
    let bad = || PassError::new(NAME, "an intrinsic call without a typed operand and result");
    let xt = m.ty(x).ok_or_else(bad)?;
    let rt = m.ty(i).ok_or_else(bad)?;
    let n = (m.op(xt) == Op::Vector).then(|| m.vector_len(xt)).flatten();
    let kind = m.scalar_kind(xt).ok_or_else(bad)?;
    let mut b = Builder::new(m);
    b.position_before(i);
    let mut r = Rewriter { b, n };
    let new = if kind == ScalarKind::Float {
        let f32s = r.b.m.float_type(32);
        let f32t = r.shaped(f32s);
        let v = r.b.convert(x, f32t);
        let d = r.b.intrinsic(w, f32t, &[v]);
        r.fit(d, rt)
    } else {
        r.bits(w, x, bits, kind == ScalarKind::Int, rt)
    };
    m.replace_uses_with(i, new);
    m.remove(i)
        .map_err(|e| PassError::new(NAME, format!("could not remove a rewritten call: {e}")))?;
    Ok(())
}

impl Pass for IntrinsicWidths {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        for f in m.functions() {
            for b in f.blocks(m) {
                for i in b.insts(m) {
                    if let Some((w, bits)) = unsupported(m, i) {
                        rewrite(m, i, w, bits)?;
                        changed = true;
                    }
                }
            }
        }
        Ok(changed)
    }

    fn idempotent(&self) -> bool {
        true
    }
}
