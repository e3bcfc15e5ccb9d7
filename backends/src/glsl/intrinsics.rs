//! Intrinsics: GLSL built-in functions with HLSL's meanings, as the SPIR-V backend gives
//! them (its `GLSL.std.450` choices are GLSL's functions of the same name):
//!
//! | IR | GLSL |
//! |---|---|
//! | `round` | `roundEven` (HLSL rounds half to even) |
//! | `frac`, `rsqrt`, `lerp`, `atan2` | `fract`, `inversesqrt`, `mix`, `atan(y, x)` |
//! | `sign` of a float with an integer result | `int(sign(x))`; of an unsigned `uint(x != 0u)` |
//! | `saturate` | `clamp(x, 0.0, 1.0)` |
//! | `mad` | `fma` on floats (as the SPIR-V backend), `a * b + c` on integers |
//! | `dot` of integers | `os_idot` (multiply, then add the components) |
//! | `isfinite` | `os_isfinite` (`!(isnan(x) \|\| isinf(x))`) |
//! | `countbits`, `reversebits`, `firstbithigh`, `firstbitlow` | `bitCount`, `bitfieldReverse`, `findMSB`, `findLSB` (converted to the IR's result type) |
//! | `f32tof16`, `f16tof32` | `packHalf2x16(vec2(x, 0.0))`, `unpackHalf2x16(x).x` per component |
//! | `fmod` | `os_frem` (the dividend's sign, `OpFRem`) |
//! | `log10`, `rcp`, `ldexp` with a float exponent | `log2(x) * log10(2)`, `1.0 / x`, `x * exp2(e)` |
//! | `ddx`... | `dFdx`, `dFdxFine`, `dFdxCoarse`, `fwidth`... |
//! | `nonuniform_index` | `nonuniformEXT(i)` |
//! | wave operations | `GL_KHR_shader_subgroup_*` (`subgroupAdd`, `subgroupExclusiveAdd`, `subgroupBallotBitCount`, `subgroupQuadSwapHorizontal`...) |
//! | `interpolate_at_*` | `interpolateAtCentroid/Sample/Offset` of the fragment input the operand leads back to |

use oneshader_ir::{AddressSpace, InstId, Intrinsic, Op, ScalarKind, Slot};

use super::error::{GlslError, OPERANDS, R, UNMAPPED, malformed};
use super::expr::{E, Prec, binop, call};
use super::func::FnEmitter;

impl FnEmitter<'_, '_> {
    /// A pure `call_intrinsic`.
    pub fn intrinsic(&mut self, i: InstId) -> R<E> {
        use Intrinsic as I;
        let m = self.m;
        let which = m
            .imm_operand(i, 0)
            .and_then(Intrinsic::from_u32)
            .ok_or_else(|| malformed("unknown intrinsic"))?;
        let n = m.num_operands(i) - 1;
        let (min, max) = which.arity();
        if n < min || n > max {
            return Err(malformed(format!(
                "`{}` takes {min} operand(s), found {n}",
                which.spelling()
            )));
        }
        let arg_ir: Vec<InstId> = (1..=n).map(|k| m.operand(i, k)).collect();
        match which {
            I::DebugPrintf => return self.debug_printf(&arg_ir),
            I::DebugBreak => {
                return Err(GlslError::new(
                    UNMAPPED,
                    "`debug_break` (DebugBreak) has no GLSL equivalent",
                ));
            }
            _ => {}
        }
        let ty = self.ty_of(i)?;
        let arg_ty = arg_ir.first().and_then(|&a| m.ty(a));
        let kind = arg_ty.and_then(|t| m.scalar_kind(t));
        let simple = match which {
            I::Round => Some("roundEven"),
            I::Rsqrt => Some("inversesqrt"),
            I::Atan | I::Atan2 => Some("atan"),
            I::Faceforward => Some("faceforward"),
            I::Inverse => Some("inverse"),
            I::Degrees => Some("degrees"),
            I::Radians => Some("radians"),
            I::PackHalf2x16 => Some("packHalf2x16"),
            I::UnpackHalf2x16 => Some("unpackHalf2x16"),
            I::IsNan => Some("isnan"),
            I::IsInf => Some("isinf"),
            I::ReverseBits => Some("bitfieldReverse"),
            _ => crate::text::intrinsics::common_name(which),
        };
        if let Some(f) = simple {
            if which == I::ReverseBits {
                self.require_32_bit_int(i, which)?;
            }
            let args = self.values(&arg_ir)?;
            let refs: Vec<&E> = args.iter().collect();
            return Ok(call(f, &refs));
        }
        match which {
            I::Abs => {
                let a = self.value(arg_ir[0])?;
                Ok(if kind == Some(ScalarKind::Uint) {
                    a
                } else {
                    call("abs", &[&a])
                })
            }
            I::Sign => {
                let a = self.value(arg_ir[0])?;
                let tn = self.cx.type_name(ty)?;
                match kind {
                    Some(ScalarKind::Float) => {
                        let s = call("sign", &[&a]);
                        if m.scalar_kind(ty) == Some(ScalarKind::Float) {
                            Ok(s)
                        } else {
                            Ok(call(&tn, &[&s]))
                        }
                    }
                    Some(ScalarKind::Int) => {
                        let s = call("sign", &[&a]);
                        if arg_ty == Some(ty) {
                            Ok(s)
                        } else {
                            Ok(call(&tn, &[&s]))
                        }
                    }
                    _ => {
                        let at = arg_ty.ok_or_else(|| malformed("untyped operand"))?;
                        let zero = self.cx.zero_of(at)?;
                        let ne = if m.op(at) == Op::Vector {
                            call("notEqual", &[&a, &zero])
                        } else {
                            binop(&a, "!=", &zero, Prec::Equality)
                        };
                        Ok(call(&tn, &[&ne]))
                    }
                }
            }
            I::Saturate => {
                let a = self.value(arg_ir[0])?;
                let s = m
                    .scalar_of(ty)
                    .ok_or_else(|| malformed("saturate of a non-numeric type"))?;
                let zero = self.cx.scalar_literal(s, 0)?;
                let one_bits = match m.scalar_bits(s) {
                    Some(64) => 1f64.to_bits(),
                    Some(16) => 0x3c00,
                    _ => 1f32.to_bits() as u64,
                };
                let one = self.cx.scalar_literal(s, one_bits)?;
                Ok(call("clamp", &[&a, &zero, &one]))
            }
            I::Mad => {
                let args = self.values(&arg_ir)?;
                if kind == Some(ScalarKind::Float) {
                    Ok(call("fma", &[&args[0], &args[1], &args[2]]))
                } else {
                    let p = binop(&args[0], "*", &args[1], Prec::Multiplicative);
                    Ok(binop(&p, "+", &args[2], Prec::Additive))
                }
            }
            I::Dot => {
                let args = self.values(&arg_ir)?;
                if kind == Some(ScalarKind::Float) {
                    return Ok(call("dot", &[&args[0], &args[1]]));
                }
                let at = arg_ty.ok_or_else(|| malformed("untyped operand"))?;
                let len = m.vector_len(at).unwrap_or(1);
                if len == 1 {
                    return Ok(binop(&args[0], "*", &args[1], Prec::Multiplicative));
                }
                let vt = self.cx.type_name(at)?;
                let st = self.cx.type_name(ty)?;
                let sum: Vec<String> = (0..len)
                    .map(|k| format!("p.{}", ['x', 'y', 'z', 'w'][k as usize]))
                    .collect();
                self.cx.helper(&format!("os_idot {vt}"), || {
                    format!(
                        "{st} os_idot({vt} a, {vt} b) {{\n    {vt} p = a * b;\n    return {};\n}}\n",
                        sum.join(" + ")
                    )
                });
                Ok(call("os_idot", &[&args[0], &args[1]]))
            }
            I::IsFinite => {
                let a = self.value(arg_ir[0])?;
                let at = arg_ty.ok_or_else(|| malformed("untyped operand"))?;
                let an = self.cx.type_name(at)?;
                let rn = self.cx.type_name(ty)?;
                let body = if m.op(at) == Op::Vector {
                    format!("not(mix(isinf(x), {rn}(true), isnan(x)))")
                } else {
                    "!(isnan(x) || isinf(x))".to_string()
                };
                self.cx.helper(&format!("os_isfinite {an}"), || {
                    format!("{rn} os_isfinite({an} x) {{\n    return {body};\n}}\n")
                });
                Ok(call("os_isfinite", &[&a]))
            }
            I::All | I::Any => {
                let a = self.value(arg_ir[0])?;
                let at = arg_ty.ok_or_else(|| malformed("untyped operand"))?;
                let vector = m.op(at) == Op::Vector;
                let b = if kind == Some(ScalarKind::Bool) {
                    a
                } else {
                    let zero = self.cx.zero_of(at)?;
                    if vector {
                        call("notEqual", &[&a, &zero])
                    } else {
                        binop(&a, "!=", &zero, Prec::Equality)
                    }
                };
                if vector {
                    Ok(call(if which == I::All { "all" } else { "any" }, &[&b]))
                } else {
                    Ok(b)
                }
            }
            I::CountBits | I::FirstBitHigh | I::FirstBitLow => {
                self.require_32_bit_int(i, which)?;
                let a = self.value(arg_ir[0])?;
                let f = match which {
                    I::CountBits => "bitCount",
                    I::FirstBitHigh => "findMSB",
                    _ => "findLSB",
                };
                // GLSL returns `int`s; the IR's result type may be unsigned.
                let r = call(f, &[&a]);
                if m.scalar_kind(ty) == Some(ScalarKind::Int) {
                    Ok(r)
                } else {
                    let tn = self.cx.type_name(ty)?;
                    Ok(call(&tn, &[&r]))
                }
            }
            I::F32ToF16 | I::F16ToF32 => {
                let a = self.value(arg_ir[0])?;
                let at = arg_ty.ok_or_else(|| malformed("untyped operand"))?;
                let an = self.cx.type_name(at)?;
                let rn = self.cx.type_name(ty)?;
                let len = m.vector_len(ty).unwrap_or(1);
                let one = |x: &str| {
                    if which == I::F32ToF16 {
                        format!("packHalf2x16(vec2({x}, 0.0))")
                    } else {
                        format!("unpackHalf2x16({x}).x")
                    }
                };
                let body = if len == 1 {
                    one("x")
                } else {
                    let parts: Vec<String> = (0..len)
                        .map(|k| one(&format!("x.{}", ['x', 'y', 'z', 'w'][k as usize])))
                        .collect();
                    format!("{rn}({})", parts.join(", "))
                };
                let h = if which == I::F32ToF16 {
                    "os_f32tof16"
                } else {
                    "os_f16tof32"
                };
                self.cx.helper(&format!("{h} {an}"), || {
                    format!("{rn} {h}({an} x) {{\n    return {body};\n}}\n")
                });
                Ok(call(h, &[&a]))
            }
            I::Ddx | I::Ddy | I::DdxFine | I::DdyFine | I::DdxCoarse | I::DdyCoarse | I::Fwidth => {
                let a = self.value(arg_ir[0])?;
                let f = match which {
                    I::Ddx => "dFdx",
                    I::Ddy => "dFdy",
                    I::DdxFine => "dFdxFine",
                    I::DdyFine => "dFdyFine",
                    I::DdxCoarse => "dFdxCoarse",
                    I::DdyCoarse => "dFdyCoarse",
                    _ => "fwidth",
                };
                Ok(call(f, &[&a]))
            }
            I::Ldexp => {
                let args = self.values(&arg_ir)?;
                if m.ty(arg_ir[1]).and_then(|t| m.scalar_kind(t)) == Some(ScalarKind::Float) {
                    // HLSL's exponent is a float: x * exp2(e).
                    let e = call("exp2", &[&args[1]]);
                    Ok(binop(&args[0], "*", &e, Prec::Multiplicative))
                } else {
                    Ok(call("ldexp", &[&args[0], &args[1]]))
                }
            }
            I::Fmod => {
                let args = self.values(&arg_ir)?;
                let h = self.rem_helper(ty, true)?;
                Ok(call(&h, &[&args[0], &args[1]]))
            }
            I::Log10 => {
                let a = self.value(arg_ir[0])?;
                let s = m
                    .scalar_of(ty)
                    .ok_or_else(|| malformed("log10 of a non-numeric type"))?;
                let bits = match m.scalar_bits(s) {
                    Some(64) => std::f64::consts::LOG10_2.to_bits(),
                    Some(32) => (std::f64::consts::LOG10_2 as f32).to_bits() as u64,
                    _ => {
                        return Err(GlslError::new(
                            OPERANDS,
                            "`log10` needs 32- or 64-bit floats",
                        ));
                    }
                };
                let k = self.cx.scalar_literal(s, bits)?;
                let l = call("log2", &[&a]);
                Ok(binop(&l, "*", &k, Prec::Multiplicative))
            }
            I::Rcp => {
                let a = self.value(arg_ir[0])?;
                let s = m
                    .scalar_of(ty)
                    .ok_or_else(|| malformed("rcp of a non-numeric type"))?;
                let one_bits = match m.scalar_bits(s) {
                    Some(64) => 1f64.to_bits(),
                    Some(16) => 0x3c00,
                    _ => 1f32.to_bits() as u64,
                };
                let one = self.cx.scalar_literal(s, one_bits)?;
                Ok(binop(&one, "/", &a, Prec::Multiplicative))
            }
            I::NonUniformIndex => {
                self.cx.ext("GL_EXT_nonuniform_qualifier");
                let a = self.value(arg_ir[0])?;
                Ok(call("nonuniformEXT", &[&a]))
            }
            I::IsHelperLane => Ok(E::primary("gl_HelperInvocation")),
            I::RenderTargetSampleCount => Err(GlslError::new(
                UNMAPPED,
                "`render_target_sample_count` (GetRenderTargetSampleCount) has no GLSL \
                 equivalent",
            )),
            I::CheckAccessFullyMapped => {
                // The status of a sparse read is GLSL's residency code, kept as a `uint`
                // (the function is declared at assembly when no sparse read enables it).
                self.cx.resident_checks = true;
                let a = self.value(arg_ir[0])?;
                Ok(E::primary(format!(
                    "sparseTexelsResidentARB(int({}))",
                    a.text
                )))
            }
            I::AttributeAtVertex => {
                let text = self.at_vertex(arg_ir[0], arg_ir[1])?;
                Ok(E::primary(text))
            }
            I::InterpolateAtCentroid | I::InterpolateAtSample | I::InterpolateAtOffset => {
                let p = self.interpolant(arg_ir[0], which)?;
                let pe = E::primary(p);
                match which {
                    I::InterpolateAtCentroid => Ok(call("interpolateAtCentroid", &[&pe])),
                    I::InterpolateAtSample => {
                        let s = self.value(arg_ir[1])?;
                        let s = if self.kind_of(arg_ir[1]) == Some(ScalarKind::Int) {
                            s
                        } else {
                            call("int", &[&s])
                        };
                        Ok(call("interpolateAtSample", &[&pe, &s]))
                    }
                    _ => {
                        let o = self.value(arg_ir[1])?;
                        Ok(call("interpolateAtOffset", &[&pe, &o]))
                    }
                }
            }
            I::Modf | I::Frexp | I::Sincos => Err(malformed(
                "an out-parameter intrinsic printed as a pure value",
            )),
            _ => self.wave(which, ty, &arg_ir),
        }
    }

    /// The values of several operands.
    fn values(&mut self, vs: &[InstId]) -> R<Vec<E>> {
        vs.iter().map(|&v| self.value(v)).collect()
    }

    fn require_32_bit_int(&self, i: InstId, which: Intrinsic) -> R<()> {
        let m = self.m;
        let ok = m
            .ty(m.operand(i, 1))
            .and_then(|t| m.scalar_of(t))
            .is_some_and(|s| m.op(s).is_int_type() && m.scalar_bits(s) == Some(32));
        if ok {
            Ok(())
        } else {
            Err(GlslError::new(
                OPERANDS,
                format!(
                    "`{}` of a non-32-bit integer; GLSL's bit functions take 32-bit integers",
                    which.spelling()
                ),
            ))
        }
    }

    /// The fragment input an interpolation intrinsic reads, as an l-value path: the operand
    /// itself when it points into an input, or the input a function variable holding one
    /// copy of it was filled from (as the SPIR-V backend follows it).
    /// `name[vertex]` and the member and component path of the part of a `pervertexEXT`
    /// input an `attribute_at_vertex` operand designates ([`crate::attribute::trace`]); an
    /// operand that does not lead back to one is refused (OSB0109).
    fn at_vertex(&mut self, p: InstId, vertex: InstId) -> R<String> {
        let m = self.m;
        let fail = |why: String| {
            GlslError::new(
                UNMAPPED,
                format!(
                    "`attribute_at_vertex` (GetAttributeAtVertex) needs a `nointerpolation` \
                     fragment-stage input (or a member or component of one) as its \
                     attribute: {why}"
                ),
            )
        };
        let (g, path) = crate::attribute::trace(m, p).ok_or_else(|| {
            fail(
                "its operand does not lead back to one (the value must come straight from \
                 an entry-point input parameter or input struct field)"
                    .to_string(),
            )
        })?;
        if !self.cx.pervertex_inputs.contains(&g) {
            return Err(fail(format!(
                "the input `{}` it reads is not `nointerpolation` (only flat inputs have \
                 per-vertex values)",
                m.name(g).unwrap_or("?")
            )));
        }
        let name = self
            .cx
            .item_names
            .get(&g)
            .cloned()
            .ok_or_else(|| malformed("a global that was not declared"))?;
        let k = self.value(vertex)?;
        let mut text = format!("{name}[{}]", k.text);
        let mut t = m
            .ty(g)
            .and_then(|t| m.pointee(t))
            .ok_or_else(|| malformed("an input that is not a pointer"))?;
        for i in path {
            let k = match i {
                crate::attribute::Idx::Imm(k) => k as usize,
                crate::attribute::Idx::Const(c) => m
                    .const_int_value(c)
                    .and_then(|c| usize::try_from(c).ok())
                    .ok_or_else(|| malformed("an element index that is not a constant"))?,
            };
            match m.op(t) {
                Op::Struct => {
                    let field = self.cx.field_name(t, k);
                    text = format!("{text}.{field}");
                    t = m.operand(t, k);
                }
                Op::Vector | Op::Array => {
                    text = format!("{text}[{k}]");
                    t = m.operand(t, 0);
                }
                _ => {
                    return Err(fail(
                        "a part of a matrix input (only struct members, array elements and \
                         vector components are followed)"
                            .to_string(),
                    ));
                }
            }
        }
        Ok(text)
    }

    fn interpolant(&mut self, p: InstId, which: Intrinsic) -> R<String> {
        let m = self.m;
        let space = |v: InstId| m.ty(v).and_then(|t| m.address_space(t));
        if space(p) == Some(AddressSpace::Input) {
            return Ok(self.place(p)?.text);
        }
        let fail = || {
            GlslError::new(
                UNMAPPED,
                format!(
                    "`{}` needs a fragment-stage input: its operand does not lead back to one",
                    which.spelling()
                ),
            )
        };
        if m.op(p) != Op::Var {
            return Err(fail());
        }
        let mut stored = None;
        for u in m.uses(p) {
            match (m.op(u.user), u.slot) {
                (Op::Store, Slot::Operand(0)) => {
                    if stored.replace(m.operand(u.user, 1)).is_some() {
                        return Err(fail());
                    }
                }
                (Op::CallIntrinsic | Op::Load, _) => {}
                _ => return Err(fail()),
            }
        }
        let mut v = stored.ok_or_else(fail)?;
        let mut chain: Vec<Vec<u32>> = Vec::new();
        while m.op(v) == Op::Extract {
            chain.push(
                (1..m.num_operands(v))
                    .map(|k| m.imm_operand(v, k).unwrap_or(0))
                    .collect(),
            );
            v = m.operand(v, 0);
        }
        if m.op(v) != Op::Load {
            return Err(fail());
        }
        let q = m.operand(v, 0);
        if space(q) != Some(AddressSpace::Input) {
            return Err(fail());
        }
        let base = self.place(q)?;
        let mut text = base.text;
        let mut ty = m.ty(q).and_then(|t| m.pointee(t)).ok_or_else(fail)?;
        for idx in chain.iter().rev() {
            text.push_str(&self.index_path(ty, idx)?);
            for &k in idx {
                ty = m.element_type_of(ty, k).ok_or_else(fail)?;
            }
        }
        Ok(text)
    }

    fn wave(&mut self, which: Intrinsic, ty: InstId, args: &[InstId]) -> R<E> {
        use Intrinsic as I;
        let m = self.m;
        let ext = |e: &'static str, s: &mut Self| {
            s.cx.ext("GL_KHR_shader_subgroup_basic");
            s.cx.ext(e);
        };
        let vals = self.values(args)?;
        let one = |f: &str, v: &[E]| {
            let refs: Vec<&E> = v.iter().collect();
            call(f, &refs)
        };
        Ok(match which {
            I::WaveGetLaneCount => {
                self.cx.ext("GL_KHR_shader_subgroup_basic");
                E::primary("gl_SubgroupSize")
            }
            I::WaveGetLaneIndex => {
                self.cx.ext("GL_KHR_shader_subgroup_basic");
                E::primary("gl_SubgroupInvocationID")
            }
            I::WaveIsFirstLane => {
                self.cx.ext("GL_KHR_shader_subgroup_basic");
                E::primary("subgroupElect()")
            }
            I::WaveActiveAnyTrue => {
                ext("GL_KHR_shader_subgroup_vote", self);
                one("subgroupAny", &vals)
            }
            I::WaveActiveAllTrue => {
                ext("GL_KHR_shader_subgroup_vote", self);
                one("subgroupAll", &vals)
            }
            I::WaveActiveAllEqual if m.op(ty) == Op::Vector => {
                // Component-wise (a bool vector), while GLSL's compares whole vectors: one
                // vote per component, in a helper so the operand is computed once.
                ext("GL_KHR_shader_subgroup_vote", self);
                let at = m
                    .ty(args[0])
                    .ok_or_else(|| malformed("an untyped operand"))?;
                let an = self.cx.type_name(at)?;
                let rn = self.cx.type_name(ty)?;
                let n = m.vector_len(ty).unwrap_or(1);
                let parts: Vec<String> = (0..n)
                    .map(|k| format!("subgroupAllEqual(x.{})", ['x', 'y', 'z', 'w'][k as usize]))
                    .collect();
                self.cx.helper(&format!("os_all_equal {an}"), || {
                    format!(
                        "{rn} os_all_equal({an} x) {{\n    return {rn}({});\n}}\n",
                        parts.join(", ")
                    )
                });
                one("os_all_equal", &vals)
            }
            I::WaveActiveAllEqual => {
                ext("GL_KHR_shader_subgroup_vote", self);
                one("subgroupAllEqual", &vals)
            }
            I::WaveActiveBallot => {
                ext("GL_KHR_shader_subgroup_ballot", self);
                one("subgroupBallot", &vals)
            }
            I::WaveReadLaneFirst => {
                ext("GL_KHR_shader_subgroup_ballot", self);
                one("subgroupBroadcastFirst", &vals)
            }
            I::WaveReadLaneAt => {
                ext("GL_KHR_shader_subgroup_shuffle", self);
                let lane = if self.kind_of(args[1]) == Some(ScalarKind::Uint) {
                    vals[1].clone()
                } else {
                    call("uint", &[&vals[1]])
                };
                call("subgroupShuffle", &[&vals[0], &lane])
            }
            I::WaveActiveCountBits | I::WavePrefixCountBits => {
                ext("GL_KHR_shader_subgroup_ballot", self);
                let b = one("subgroupBallot", &vals);
                let f = if which == I::WaveActiveCountBits {
                    "subgroupBallotBitCount"
                } else {
                    "subgroupBallotExclusiveBitCount"
                };
                call(f, &[&b])
            }
            I::WaveActiveSum
            | I::WaveActiveProduct
            | I::WaveActiveMin
            | I::WaveActiveMax
            | I::WaveActiveBitAnd
            | I::WaveActiveBitOr
            | I::WaveActiveBitXor
            | I::WavePrefixSum
            | I::WavePrefixProduct => {
                ext("GL_KHR_shader_subgroup_arithmetic", self);
                let f = match which {
                    I::WaveActiveSum => "subgroupAdd",
                    I::WaveActiveProduct => "subgroupMul",
                    I::WaveActiveMin => "subgroupMin",
                    I::WaveActiveMax => "subgroupMax",
                    I::WaveActiveBitAnd => "subgroupAnd",
                    I::WaveActiveBitOr => "subgroupOr",
                    I::WaveActiveBitXor => "subgroupXor",
                    I::WavePrefixSum => "subgroupExclusiveAdd",
                    _ => "subgroupExclusiveMul",
                };
                one(f, &vals)
            }
            I::QuadReadAcrossX | I::QuadReadAcrossY | I::QuadReadAcrossDiagonal => {
                ext("GL_KHR_shader_subgroup_quad", self);
                let f = match which {
                    I::QuadReadAcrossX => "subgroupQuadSwapHorizontal",
                    I::QuadReadAcrossY => "subgroupQuadSwapVertical",
                    _ => "subgroupQuadSwapDiagonal",
                };
                one(f, &vals)
            }
            I::QuadReadLaneAt => {
                ext("GL_KHR_shader_subgroup_quad", self);
                let lane = m.const_int_value(args[1]).ok_or_else(|| {
                    GlslError::new(
                        OPERANDS,
                        "`quad_read_lane_at` with a lane computed at run time; GLSL's \
                         subgroupQuadBroadcast takes a constant lane",
                    )
                })?;
                let l = E::primary(format!("{lane}u"));
                call("subgroupQuadBroadcast", &[&vals[0], &l])
            }
            other => {
                let _ = ty;
                return Err(GlslError::new(
                    UNMAPPED,
                    format!("intrinsic `{}` has no GLSL mapping", other.spelling()),
                ));
            }
        })
    }
}

impl FnEmitter<'_, '_> {
    /// `debug_printf` as GL_EXT_debug_printf's `debugPrintfEXT`: the format a GLSL string
    /// literal (glslang reads `\"`, `\\`, `\n`, `\t` and `\r` in it; a format with another
    /// control character is refused rather than changed), then the values.
    fn debug_printf(&mut self, args: &[InstId]) -> R<E> {
        let m = self.m;
        let format = m
            .literal_str(args[0])
            .ok_or_else(|| malformed("a print's format is not a string"))?;
        let mut lit = String::with_capacity(format.len() + 2);
        lit.push('"');
        for c in format.chars() {
            match c {
                '"' => lit.push_str("\\\""),
                '\\' => lit.push_str("\\\\"),
                '\n' => lit.push_str("\\n"),
                '\t' => lit.push_str("\\t"),
                '\r' => lit.push_str("\\r"),
                c if c.is_control() => {
                    return Err(GlslError::new(
                        UNMAPPED,
                        format!(
                            "the format of a print holds the control character U+{:04X}, \
                             which a GLSL string literal cannot spell",
                            c as u32
                        ),
                    ));
                }
                c => lit.push(c),
            }
        }
        lit.push('"');
        self.cx.ext("GL_EXT_debug_printf");
        let mut parts = vec![lit];
        for &a in &args[1..] {
            parts.push(self.value(a)?.text);
        }
        Ok(E::primary(format!("debugPrintfEXT({})", parts.join(", "))))
    }
}
