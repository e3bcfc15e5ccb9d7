//! Methods of textures, buffers and subpass inputs: `Sample*`, `Gather*`, `Load`,
//! `GetDimensions`, `CalculateLevelOfDetail*`, byte-address `Load*`/`Store*`/`Interlocked*`,
//! structured `Load`/`IncrementCounter`/`DecrementCounter`, `Append`/`Consume`, `SubpassLoad`.
//!
//! Analysis converts every argument to the type the method takes (coordinates to float or
//! int vectors of the texture's dimension, offsets to int vectors, outputs checked as
//! assignable places) and records the method as [`ExprKind::Method`]; lowering maps it onto
//! the IR's texture and buffer instructions.

use oneshader_ir::AtomicOp;
use oneshader_ir::diag::Span;

use crate::hlsl::sema::Sema;
use crate::hlsl::sema::hir::*;
use crate::hlsl::syntax::ast;

fn mk(kind: ExprKind, ty: TyId, span: Span) -> Expr {
    Expr { kind, ty, span }
}

/// The argument types of a texture read, by texture shape.
struct ReadTypes {
    /// The sampling coordinate.
    coord_f: TyId,
    /// A gradient.
    grad_t: TyId,
    /// An offset, when the shape has offsets.
    off_t: Option<TyId>,
    /// `Load`'s location (with the mip level of sampled textures).
    loc_t: TyId,
    /// The texel.
    elem: TyId,
}

impl<'a> Sema<'a> {
    fn vec_or_scalar(&mut self, s: Scalar, n: u8) -> TyId {
        if n == 1 {
            self.types.scalar(s)
        } else {
            self.types.vector(s, n)
        }
    }

    fn method_arity(&mut self, name: &str, lo: usize, hi: usize, got: usize, span: Span) -> bool {
        if got < lo || got > hi {
            let want = if lo == hi {
                lo.to_string()
            } else {
                format!("{lo} to {hi}")
            };
            self.error(
                "OSH1007",
                span,
                format!("`{name}` takes {want} argument(s), {got} given"),
            );
            return false;
        }
        true
    }

    fn conv_arg(&mut self, a: Expr, ty: TyId) -> Expr {
        let s = a.span;
        self.convert(a, ty, s)
    }

    fn sampler_arg(&mut self, a: Expr, cmp: bool, method: &str) -> Option<Expr> {
        match self.types.kind(a.ty) {
            TyKind::Sampler(c) => {
                if cmp && !*c {
                    self.error(
                        "OSH1005",
                        a.span,
                        format!("`{method}` needs a `SamplerComparisonState`"),
                    );
                    return None;
                }
                Some(a)
            }
            TyKind::Error => None,
            _ => {
                self.error(
                    "OSH1005",
                    a.span,
                    format!(
                        "`{method}` needs a sampler, not `{}`",
                        self.types.name(a.ty)
                    ),
                );
                None
            }
        }
    }

    fn out_place(&mut self, a: &Expr) -> bool {
        if self.types.is_error(a.ty) {
            return false;
        }
        if !self.types.is_numeric(a.ty) {
            self.error("OSH1005", a.span, "an output argument must be numeric");
            return false;
        }
        self.require_writable(a)
    }

    /// Checks `object.member(args)` where `object` is a resource.
    pub fn check_method(
        &mut self,
        object: Expr,
        member: &'a ast::Ident,
        targs: Option<&'a [ast::TemplateArg]>,
        args: Vec<Expr>,
        span: Span,
    ) -> Expr {
        if args.iter().any(|a| self.types.is_error(a.ty)) {
            return Expr::error(span);
        }
        let name = member.name.as_str();
        let mut args = args;
        if let ExprKind::Global(g) = object.kind
            && self.decl.sampled_textures.contains_key(&g)
            && (name.starts_with("Sample")
                || name.starts_with("Gather")
                || name.starts_with("CalculateLevelOfDetail"))
        {
            // `vk::SampledTexture*`: the sampler is the texture's own.
            let cmp = name.starts_with("SampleCmp") || name.starts_with("GatherCmp");
            if let Some(sg) = self.sampled_texture_sampler(g, cmp) {
                let ty = self.types.intern(TyKind::Sampler(cmp));
                args.insert(0, mk(ExprKind::Global(sg), ty, object.span));
            }
        }
        match self.types.kind(object.ty).clone() {
            TyKind::Texture(shape, elem, rw) => {
                self.texture_method(object, shape, elem, rw, name, args, span)
            }
            TyKind::Buffer(kind, elem) => {
                self.buffer_method(object, kind, elem, name, targs, args, span)
            }
            TyKind::Stream(_, elem) => self.stream_method(object, elem, member, args, span),
            TyKind::RayQuery(_) => self.ray_query_method(object, member, args, span),
            _ => {
                self.error(
                    "OSH1009",
                    member.span,
                    format!("`{}` has no method `{name}`", self.types.name(object.ty)),
                );
                Expr::error(span)
            }
        }
    }

    /// `Append(vertex)` and `RestartStrip()` of a geometry shader's output stream.
    fn stream_method(
        &mut self,
        object: Expr,
        elem: TyId,
        member: &'a ast::Ident,
        args: Vec<Expr>,
        span: Span,
    ) -> Expr {
        let name = member.name.as_str();
        match name {
            "Append" => {
                if !self.method_arity(name, 1, 1, args.len(), span) {
                    return Expr::error(span);
                }
                let args: Vec<Expr> = args.into_iter().map(|a| self.conv_arg(a, elem)).collect();
                mk(
                    ExprKind::Method(ResMethod::StreamAppend, Box::new(object), args),
                    Types::VOID,
                    span,
                )
            }
            "RestartStrip" => {
                if !self.method_arity(name, 0, 0, args.len(), span) {
                    return Expr::error(span);
                }
                mk(
                    ExprKind::Method(ResMethod::StreamRestart, Box::new(object), Vec::new()),
                    Types::VOID,
                    span,
                )
            }
            _ => {
                self.error(
                    "OSH1009",
                    member.span,
                    format!("`{}` has no method `{name}`", self.types.name(object.ty)),
                );
                Expr::error(span)
            }
        }
    }

    /// The methods of `RayQuery<flags>`.
    fn ray_query_method(
        &mut self,
        object: Expr,
        member: &'a ast::Ident,
        args: Vec<Expr>,
        span: Span,
    ) -> Expr {
        use oneshader_ir::RayQueryValue as V;
        let name = member.name.as_str();
        let n = args.len();
        let f = self.types.float();
        let u = self.types.uint();
        let b = self.types.bool();
        let f2 = self.types.vector(Scalar::F32, 2);
        let f3 = self.types.vector(Scalar::F32, 3);
        let m43 = self.types.matrix(Scalar::F32, 4, 3);
        let m34 = self.types.matrix(Scalar::F32, 3, 4);
        let method = |m: ResMethod, args: Vec<Expr>, ty: TyId| {
            mk(
                ExprKind::Method(m, Box::new(object.clone()), args),
                ty,
                span,
            )
        };
        let get = |v: V, post: RayQueryPost, ty: TyId| {
            mk(
                ExprKind::Method(
                    ResMethod::RayQueryGet(v, post),
                    Box::new(object.clone()),
                    Vec::new(),
                ),
                ty,
                span,
            )
        };
        // The getters: (name, value, post, type).
        let getters: [(&str, V, RayQueryPost, TyId); 40] = {
            use RayQueryPost::{None as P, Not, Transpose as T};
            [
                ("RayFlags", V::RayFlags, P, u),
                ("RayTMin", V::RayTmin, P, f),
                ("WorldRayOrigin", V::WorldRayOrigin, P, f3),
                ("WorldRayDirection", V::WorldRayDirection, P, f3),
                ("CandidateType", V::CandidateType, P, u),
                ("CandidateTriangleRayT", V::CandidateT, P, f),
                ("CandidateInstanceIndex", V::CandidateInstanceIndex, P, u),
                ("CandidateInstanceID", V::CandidateInstanceId, P, u),
                (
                    "CandidateInstanceContributionToHitGroupIndex",
                    V::CandidateSbtOffset,
                    P,
                    u,
                ),
                ("CandidateGeometryIndex", V::CandidateGeometryIndex, P, u),
                ("CandidatePrimitiveIndex", V::CandidatePrimitiveIndex, P, u),
                (
                    "CandidateTriangleBarycentrics",
                    V::CandidateBarycentrics,
                    P,
                    f2,
                ),
                ("CandidateTriangleFrontFace", V::CandidateFrontFace, P, b),
                (
                    "CandidateProceduralPrimitiveNonOpaque",
                    V::CandidateAabbOpaque,
                    Not,
                    b,
                ),
                (
                    "CandidateObjectRayDirection",
                    V::CandidateObjectRayDirection,
                    P,
                    f3,
                ),
                (
                    "CandidateObjectRayOrigin",
                    V::CandidateObjectRayOrigin,
                    P,
                    f3,
                ),
                (
                    "CandidateObjectToWorld4x3",
                    V::CandidateObjectToWorld,
                    P,
                    m43,
                ),
                (
                    "CandidateObjectToWorld3x4",
                    V::CandidateObjectToWorld,
                    T,
                    m34,
                ),
                (
                    "CandidateWorldToObject4x3",
                    V::CandidateWorldToObject,
                    P,
                    m43,
                ),
                (
                    "CandidateWorldToObject3x4",
                    V::CandidateWorldToObject,
                    T,
                    m34,
                ),
                ("CommittedStatus", V::CommittedStatus, P, u),
                ("CommittedRayT", V::CommittedT, P, f),
                ("CommittedInstanceIndex", V::CommittedInstanceIndex, P, u),
                ("CommittedInstanceID", V::CommittedInstanceId, P, u),
                (
                    "CommittedInstanceContributionToHitGroupIndex",
                    V::CommittedSbtOffset,
                    P,
                    u,
                ),
                ("CommittedGeometryIndex", V::CommittedGeometryIndex, P, u),
                ("CommittedPrimitiveIndex", V::CommittedPrimitiveIndex, P, u),
                (
                    "CommittedTriangleBarycentrics",
                    V::CommittedBarycentrics,
                    P,
                    f2,
                ),
                ("CommittedTriangleFrontFace", V::CommittedFrontFace, P, b),
                (
                    "CommittedObjectRayDirection",
                    V::CommittedObjectRayDirection,
                    P,
                    f3,
                ),
                (
                    "CommittedObjectRayOrigin",
                    V::CommittedObjectRayOrigin,
                    P,
                    f3,
                ),
                (
                    "CommittedObjectToWorld4x3",
                    V::CommittedObjectToWorld,
                    P,
                    m43,
                ),
                (
                    "CommittedObjectToWorld3x4",
                    V::CommittedObjectToWorld,
                    T,
                    m34,
                ),
                (
                    "CommittedWorldToObject4x3",
                    V::CommittedWorldToObject,
                    P,
                    m43,
                ),
                (
                    "CommittedWorldToObject3x4",
                    V::CommittedWorldToObject,
                    T,
                    m34,
                ),
                // Older spellings.
                ("CandidateObjectToWorld", V::CandidateObjectToWorld, T, m34),
                ("CandidateWorldToObject", V::CandidateWorldToObject, T, m34),
                ("CommittedObjectToWorld", V::CommittedObjectToWorld, T, m34),
                ("CommittedWorldToObject", V::CommittedWorldToObject, T, m34),
                ("CommittedRayTCurrent", V::CommittedT, P, f),
            ]
        };
        if let Some(&(_, v, post, ty)) = getters.iter().find(|g| g.0 == name) {
            if !self.method_arity(name, 0, 0, n, span) {
                return Expr::error(span);
            }
            return get(v, post, ty);
        }
        match name {
            "TraceRayInline" => {
                if !self.method_arity(name, 4, 4, n, span) {
                    return Expr::error(span);
                }
                let mut it = args.into_iter();
                let Some(accel) = it.next() else {
                    return Expr::error(span);
                };
                if !matches!(self.types.kind(accel.ty), TyKind::AccelStruct) {
                    self.error(
                        "OSH1005",
                        accel.span,
                        "the first argument of `TraceRayInline` is a                          `RaytracingAccelerationStructure`",
                    );
                    return Expr::error(span);
                }
                let rd = self.ray_desc();
                let mut out = vec![accel];
                if let (Some(fl), Some(mask), Some(ray)) = (it.next(), it.next(), it.next()) {
                    out.push(self.conv_arg(fl, u));
                    out.push(self.conv_arg(mask, u));
                    out.push(self.conv_arg(ray, rd));
                }
                method(ResMethod::RayQueryInit, out, Types::VOID)
            }
            "Proceed" | "Abort" | "CommitNonOpaqueTriangleHit" => {
                if !self.method_arity(name, 0, 0, n, span) {
                    return Expr::error(span);
                }
                match name {
                    "Proceed" => method(ResMethod::RayQueryProceed, Vec::new(), b),
                    "Abort" => method(ResMethod::RayQueryAbort, Vec::new(), Types::VOID),
                    _ => method(ResMethod::RayQueryCommitTriangle, Vec::new(), Types::VOID),
                }
            }
            "CommitProceduralPrimitiveHit" => {
                if !self.method_arity(name, 1, 1, n, span) {
                    return Expr::error(span);
                }
                let args: Vec<Expr> = args.into_iter().map(|a| self.conv_arg(a, f)).collect();
                method(ResMethod::RayQueryCommitProcedural, args, Types::VOID)
            }
            _ => {
                self.error(
                    "OSH1009",
                    member.span,
                    format!("`{}` has no method `{name}`", self.types.name(object.ty)),
                );
                Expr::error(span)
            }
        }
    }

    /// A texture read with its optional trailing operands (offset, or four for gathers; LOD
    /// clamp; `out uint status`), or one of the newer comparison reads: a
    /// [`ResMethod::TexRead`].
    #[allow(clippy::too_many_arguments)]
    fn tex_read_ext(
        &mut self,
        object: Expr,
        read: TexRead,
        name: &str,
        shape: TexShape,
        t: &ReadTypes,
        args: Vec<Expr>,
        span: Span,
    ) -> Expr {
        let n = args.len();
        let pre = match read {
            TexRead::Load => 1 + shape.ms() as usize,
            _ => 2,
        };
        let fixed = pre + read.fixed();
        let gather = matches!(read, TexRead::Gather(_) | TexRead::GatherCmp);
        let max_offsets = match t.off_t {
            None => 0,
            Some(_) if gather && shape.offset_len() == 2 => 4,
            Some(_) => 1,
        };
        let max = fixed + max_offsets + read.takes_clamp() as usize + 1;
        if !self.method_arity(name, fixed, max, n, span) {
            return Expr::error(span);
        }
        let mut rest = n - fixed;
        // Positional: the offset(s), then the clamp, then the status.
        let offsets = if max_offsets == 4 && rest >= 4 {
            4
        } else if max_offsets >= 1 && rest >= 1 {
            1
        } else {
            0
        };
        rest -= offsets;
        let clamp = read.takes_clamp() && rest >= 1;
        rest -= clamp as usize;
        let status = rest == 1;
        if rest > 1 || (max_offsets == 4 && offsets == 1 && n - fixed > 3) {
            self.error(
                "OSH1007",
                span,
                format!("`{name}` takes one offset or four, then an optional status"),
            );
            return Expr::error(span);
        }
        let f = self.types.float();
        // Interned for lowering, which converts the status (a `uint`) to the argument's type.
        self.types.uint();
        let elem_scalar = self.types.scalar_of(t.elem).unwrap_or(Scalar::F32);
        let cmp = read.compares();
        let mut it = args.into_iter();
        let mut out = Vec::new();
        if read == TexRead::Load {
            let Some(loc) = it.next() else {
                return Expr::error(span);
            };
            out.push(self.conv_arg(loc, t.loc_t));
            if shape.ms() {
                let Some(smp) = it.next() else {
                    return Expr::error(span);
                };
                let i = self.types.int();
                out.push(self.conv_arg(smp, i));
            }
        } else {
            let Some(smp) = it.next().and_then(|x| self.sampler_arg(x, cmp, name)) else {
                return Expr::error(span);
            };
            out.push(smp);
            let Some(uv) = it.next() else {
                return Expr::error(span);
            };
            out.push(self.conv_arg(uv, t.coord_f));
        }
        let fixed_tys: Vec<TyId> = match read {
            TexRead::SampleBias
            | TexRead::SampleLevel
            | TexRead::SampleCmp
            | TexRead::SampleCmpLevelZero
            | TexRead::GatherCmp => vec![f],
            TexRead::SampleGrad => vec![t.grad_t, t.grad_t],
            TexRead::SampleCmpLevel | TexRead::SampleCmpBias => vec![f, f],
            TexRead::SampleCmpGrad => vec![f, t.grad_t, t.grad_t],
            _ => Vec::new(),
        };
        for ty in fixed_tys {
            let Some(x) = it.next() else {
                return Expr::error(span);
            };
            out.push(self.conv_arg(x, ty));
        }
        for _ in 0..offsets {
            let (Some(o), Some(ot)) = (it.next(), t.off_t) else {
                return Expr::error(span);
            };
            out.push(self.conv_arg(o, ot));
        }
        if clamp {
            let Some(c) = it.next() else {
                return Expr::error(span);
            };
            out.push(self.conv_arg(c, f));
        }
        if status {
            let Some(st) = it.next() else {
                return Expr::error(span);
            };
            if let Some(why) = self.not_writable(&st) {
                self.error(
                    "OSH1008",
                    st.span,
                    format!("the status argument of `{name}` is written: {why}"),
                );
                return Expr::error(span);
            }
            if self.types.scalar_of(st.ty).is_none_or(|s| !s.is_int())
                || !matches!(self.types.kind(st.ty), TyKind::Scalar(_))
            {
                let ty = self.types.name(st.ty);
                self.error(
                    "OSH1005",
                    st.span,
                    format!("the status argument of `{name}` is an `out uint`, not `{ty}`"),
                );
                return Expr::error(span);
            }
            out.push(st);
        }
        let rty = if gather {
            self.types.vector(elem_scalar, 4)
        } else if cmp {
            self.types.scalar(elem_scalar)
        } else {
            t.elem
        };
        let method = ResMethod::TexRead {
            read,
            offsets: offsets as u8,
            clamp,
            status,
        };
        mk(ExprKind::Method(method, Box::new(object), out), rty, span)
    }

    #[allow(clippy::too_many_arguments)]
    fn texture_method(
        &mut self,
        object: Expr,
        shape: TexShape,
        elem: TyId,
        rw: bool,
        name: &str,
        args: Vec<Expr>,
        span: Span,
    ) -> Expr {
        let n = args.len();
        let coord_f = self.vec_or_scalar(Scalar::F32, shape.coord_len());
        let grad_t = self.vec_or_scalar(Scalar::F32, shape.dims());
        let off_len = shape.offset_len();
        let off_t = (off_len > 0).then(|| self.vec_or_scalar(Scalar::I32, off_len));
        let f = self.types.float();
        let elem_scalar = self.types.scalar_of(elem).unwrap_or(Scalar::F32);
        let sampled = !rw
            && !matches!(
                shape,
                TexShape::Buffer | TexShape::Subpass | TexShape::SubpassMS
            );
        let can_sample = sampled && !shape.ms();
        let bad = |s: &mut Self, what: &str| -> Expr {
            s.error(
                "OSH1009",
                span,
                format!("`{}` has no method `{what}`", s.types.name(object.ty)),
            );
            Expr::error(span)
        };
        let gather_comp = match name {
            "Gather" | "GatherRed" => Some(0),
            "GatherGreen" => Some(1),
            "GatherBlue" => Some(2),
            "GatherAlpha" => Some(3),
            _ => None,
        };
        match name {
            "Sample" | "SampleBias" | "SampleLevel" | "SampleGrad" | "SampleCmp"
            | "SampleCmpLevelZero" | "SampleCmpLevel" | "SampleCmpBias" | "SampleCmpGrad" => {
                if !can_sample {
                    return bad(self, name);
                }
                let read = match name {
                    "Sample" => TexRead::Sample,
                    "SampleBias" => TexRead::SampleBias,
                    "SampleLevel" => TexRead::SampleLevel,
                    "SampleGrad" => TexRead::SampleGrad,
                    "SampleCmp" => TexRead::SampleCmp,
                    "SampleCmpLevel" => TexRead::SampleCmpLevel,
                    "SampleCmpBias" => TexRead::SampleCmpBias,
                    "SampleCmpGrad" => TexRead::SampleCmpGrad,
                    _ => TexRead::SampleCmpLevelZero,
                };
                let short = 2 + read.fixed() + off_t.is_some() as usize;
                if n > short
                    || matches!(
                        read,
                        TexRead::SampleCmpLevel | TexRead::SampleCmpBias | TexRead::SampleCmpGrad
                    )
                {
                    let t = ReadTypes {
                        coord_f,
                        grad_t,
                        off_t,
                        loc_t: coord_f,
                        elem,
                    };
                    return self.tex_read_ext(object, read, name, shape, &t, args, span);
                }
                let (method, fixed) = match name {
                    "Sample" => (ResMethod::Sample, 2),
                    "SampleBias" => (ResMethod::SampleBias, 3),
                    "SampleLevel" => (ResMethod::SampleLevel, 3),
                    "SampleGrad" => (ResMethod::SampleGrad, 4),
                    "SampleCmp" => (ResMethod::SampleCmp, 3),
                    "SampleCmpLevel" => (ResMethod::SampleCmpLevel, 4),
                    _ => (ResMethod::SampleCmpLevelZero, 3),
                };
                let max = fixed + off_t.is_some() as usize;
                if n > max {
                    // A minimum-LOD clamp or a status output.
                    self.error(
                        "OSH1018",
                        args[max.min(n - 1)].span,
                        format!("`{name}` with a LOD clamp or status argument is not supported"),
                    );
                    return Expr::error(span);
                }
                if !self.method_arity(name, fixed, max, n, span) {
                    return Expr::error(span);
                }
                let cmp = matches!(
                    method,
                    ResMethod::SampleCmp
                        | ResMethod::SampleCmpLevelZero
                        | ResMethod::SampleCmpLevel
                );
                if method == ResMethod::SampleCmpLevel {
                    self.error("OSH1018", span, "`SampleCmpLevel` is not supported");
                    return Expr::error(span);
                }
                let mut it = args.into_iter();
                let Some(s) = it.next().and_then(|s| self.sampler_arg(s, cmp, name)) else {
                    return Expr::error(span);
                };
                let mut out = vec![s];
                let Some(uv) = it.next() else {
                    return Expr::error(span);
                };
                out.push(self.conv_arg(uv, coord_f));
                match method {
                    ResMethod::SampleBias | ResMethod::SampleLevel => {
                        let Some(x) = it.next() else {
                            return Expr::error(span);
                        };
                        out.push(self.conv_arg(x, f));
                    }
                    ResMethod::SampleGrad => {
                        for _ in 0..2 {
                            let Some(x) = it.next() else {
                                return Expr::error(span);
                            };
                            out.push(self.conv_arg(x, grad_t));
                        }
                    }
                    ResMethod::SampleCmp | ResMethod::SampleCmpLevelZero => {
                        let Some(x) = it.next() else {
                            return Expr::error(span);
                        };
                        out.push(self.conv_arg(x, f));
                    }
                    _ => {}
                }
                if let (Some(o), Some(ot)) = (it.next(), off_t) {
                    out.push(self.conv_arg(o, ot));
                }
                let rty = if cmp {
                    self.types.scalar(elem_scalar)
                } else {
                    elem
                };
                mk(ExprKind::Method(method, Box::new(object), out), rty, span)
            }
            _ if gather_comp.is_some() || name.starts_with("GatherCmp") => {
                let cmp = name.starts_with("GatherCmp");
                if !can_sample
                    || !matches!(
                        shape,
                        TexShape::T2D | TexShape::T2DArray | TexShape::Cube | TexShape::CubeArray
                    )
                {
                    return bad(self, name);
                }
                if cmp && name != "GatherCmp" && name != "GatherCmpRed" {
                    self.error(
                        "OSH1018",
                        span,
                        format!(
                            "`{name}` has no equivalent in Vulkan (a depth-comparison gather \
                             compares one component; DXC refuses it too)"
                        ),
                    );
                    return Expr::error(span);
                }
                let fixed = if cmp { 3 } else { 2 };
                let max = fixed + off_t.is_some() as usize;
                if n > max {
                    let read = if cmp {
                        TexRead::GatherCmp
                    } else {
                        TexRead::Gather(gather_comp.unwrap_or(0))
                    };
                    let t = ReadTypes {
                        coord_f,
                        grad_t,
                        off_t,
                        loc_t: coord_f,
                        elem,
                    };
                    return self.tex_read_ext(object, read, name, shape, &t, args, span);
                }
                if !self.method_arity(name, fixed, max, n, span) {
                    return Expr::error(span);
                }
                let mut it = args.into_iter();
                let Some(s) = it.next().and_then(|s| self.sampler_arg(s, cmp, name)) else {
                    return Expr::error(span);
                };
                let Some(uv) = it.next() else {
                    return Expr::error(span);
                };
                let mut out = vec![s, self.conv_arg(uv, coord_f)];
                if cmp {
                    let Some(r) = it.next() else {
                        return Expr::error(span);
                    };
                    out.push(self.conv_arg(r, f));
                }
                if let (Some(o), Some(ot)) = (it.next(), off_t) {
                    out.push(self.conv_arg(o, ot));
                }
                let rty = self.types.vector(elem_scalar, 4);
                let method = if cmp {
                    ResMethod::GatherCmp
                } else {
                    ResMethod::Gather(gather_comp.unwrap_or(0))
                };
                mk(ExprKind::Method(method, Box::new(object), out), rty, span)
            }
            "Load" => {
                if matches!(shape, TexShape::Subpass | TexShape::SubpassMS) {
                    return bad(self, name);
                }
                // Sampled non-buffer textures carry the mip level as the last coordinate.
                let with_mip = sampled && !shape.ms();
                let loc_len = shape.coord_len() + with_mip as u8;
                let loc_t = self.vec_or_scalar(Scalar::I32, loc_len);
                let fixed = 1 + shape.ms() as usize;
                let max = fixed + (off_t.is_some() && sampled) as usize;
                if n > max {
                    let t = ReadTypes {
                        coord_f,
                        grad_t,
                        off_t: off_t.filter(|_| sampled),
                        loc_t,
                        elem,
                    };
                    return self.tex_read_ext(object, TexRead::Load, name, shape, &t, args, span);
                }
                if !self.method_arity(name, fixed, max, n, span) {
                    return Expr::error(span);
                }
                let mut it = args.into_iter();
                let Some(loc) = it.next() else {
                    return Expr::error(span);
                };
                let mut out = vec![self.conv_arg(loc, loc_t)];
                if shape.ms() {
                    let Some(s) = it.next() else {
                        return Expr::error(span);
                    };
                    let i = self.types.int();
                    out.push(self.conv_arg(s, i));
                }
                if let (Some(o), Some(ot)) = (it.next(), off_t) {
                    out.push(self.conv_arg(o, ot));
                }
                mk(
                    ExprKind::Method(ResMethod::Load, Box::new(object), out),
                    elem,
                    span,
                )
            }
            "SubpassLoad" => {
                if !matches!(shape, TexShape::Subpass | TexShape::SubpassMS) {
                    return bad(self, name);
                }
                let want = shape.ms() as usize;
                if !self.method_arity(name, want, want, n, span) {
                    return Expr::error(span);
                }
                let i = self.types.int();
                let out: Vec<Expr> = args.into_iter().map(|a| self.conv_arg(a, i)).collect();
                mk(
                    ExprKind::Method(ResMethod::SubpassLoad, Box::new(object), out),
                    elem,
                    span,
                )
            }
            "GetDimensions" => {
                // Outputs: width[, height][, depth | elements][, samples | levels].
                let dims = shape.dims() as usize;
                let outs = if matches!(shape, TexShape::Subpass | TexShape::SubpassMS) {
                    return bad(self, name);
                } else {
                    dims + shape.arrayed() as usize
                        - (shape == TexShape::Cube || shape == TexShape::CubeArray) as usize
                };
                let with_mip_form = sampled && !shape.ms();
                let (mip, outs_n) = if with_mip_form && n == outs + 2 {
                    (true, outs + 1)
                } else if shape.ms() {
                    (false, outs + 1)
                } else {
                    (false, outs)
                };
                let expect = outs_n + mip as usize;
                if n != expect {
                    let alt = if with_mip_form {
                        format!("{outs} (or {} with a mip level)", outs + 2)
                    } else {
                        expect.to_string()
                    };
                    self.error(
                        "OSH1007",
                        span,
                        format!("`GetDimensions` takes {alt} argument(s), {n} given"),
                    );
                    return Expr::error(span);
                }
                let mut it = args.into_iter();
                let mut out = Vec::new();
                if mip {
                    let Some(m) = it.next() else {
                        return Expr::error(span);
                    };
                    let u = self.types.uint();
                    out.push(self.conv_arg(m, u));
                }
                for a in it {
                    if !self.out_place(&a) {
                        return Expr::error(span);
                    }
                    out.push(a);
                }
                let method = ResMethod::GetDimensions;
                // The first argument is the mip level when there is one more than outputs.
                let flag = self.types.bool();
                let marker = mk(ExprKind::Const(ConstVal::Bool(mip)), flag, span);
                let mut all = vec![marker];
                all.extend(out);
                mk(
                    ExprKind::Method(method, Box::new(object), all),
                    Types::VOID,
                    span,
                )
            }
            "CalculateLevelOfDetail" | "CalculateLevelOfDetailUnclamped" => {
                if !can_sample {
                    return bad(self, name);
                }
                if !self.method_arity(name, 2, 2, n, span) {
                    return Expr::error(span);
                }
                let mut it = args.into_iter();
                let Some(s) = it.next().and_then(|s| self.sampler_arg(s, false, name)) else {
                    return Expr::error(span);
                };
                let Some(uv) = it.next() else {
                    return Expr::error(span);
                };
                let uv_t = self.vec_or_scalar(Scalar::F32, shape.dims());
                let out = vec![s, self.conv_arg(uv, uv_t)];
                let m = if name == "CalculateLevelOfDetail" {
                    ResMethod::CalculateLod
                } else {
                    ResMethod::CalculateLodUnclamped
                };
                mk(ExprKind::Method(m, Box::new(object), out), f, span)
            }
            "GetSamplePosition" if shape.ms() && !matches!(shape, TexShape::SubpassMS) => {
                if !self.method_arity(name, 1, 1, n, span) {
                    return Expr::error(span);
                }
                let i = self.types.int();
                let out: Vec<Expr> = args.into_iter().map(|a| self.conv_arg(a, i)).collect();
                let f2 = self.types.vector(Scalar::F32, 2);
                mk(
                    ExprKind::Method(ResMethod::GetSamplePosition, Box::new(object), out),
                    f2,
                    span,
                )
            }
            _ => bad(self, name),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn buffer_method(
        &mut self,
        object: Expr,
        kind: BufKind,
        elem: TyId,
        name: &str,
        targs: Option<&'a [ast::TemplateArg]>,
        args: Vec<Expr>,
        span: Span,
    ) -> Expr {
        let n = args.len();
        let u = self.types.uint();
        let bad = |s: &mut Self| -> Expr {
            s.error(
                "OSH1009",
                span,
                format!("`{}` has no method `{name}`", s.types.name(object.ty)),
            );
            Expr::error(span)
        };
        match (kind, name) {
            (
                BufKind::ByteAddress | BufKind::RWByteAddress,
                "Load" | "Load2" | "Load3" | "Load4",
            ) => {
                if n == 2 {
                    self.error(
                        "OSH1018",
                        span,
                        "`Load` with a status argument is not supported",
                    );
                    return Expr::error(span);
                }
                if !self.method_arity(name, 1, 1, n, span) {
                    return Expr::error(span);
                }
                let rty = match (name, targs) {
                    ("Load", Some([t])) => match t {
                        ast::TemplateArg::Type(te) => self.resolve_type(te),
                        ast::TemplateArg::Expr(e) => {
                            self.error("OSH1017", e.span, "`Load<T>` needs a type");
                            Types::ERROR
                        }
                    },
                    ("Load", _) => u,
                    ("Load2", _) => self.types.vector(Scalar::U32, 2),
                    ("Load3", _) => self.types.vector(Scalar::U32, 3),
                    _ => self.types.vector(Scalar::U32, 4),
                };
                if self.types.is_error(rty) {
                    return Expr::error(span);
                }
                let out: Vec<Expr> = args.into_iter().map(|a| self.conv_arg(a, u)).collect();
                mk(
                    ExprKind::Method(ResMethod::Load, Box::new(object), out),
                    rty,
                    span,
                )
            }
            (BufKind::RWByteAddress, "Store" | "Store2" | "Store3" | "Store4") => {
                if !self.method_arity(name, 2, 2, n, span) {
                    return Expr::error(span);
                }
                let vty = match name {
                    "Store" => match targs {
                        Some([ast::TemplateArg::Type(te)]) => self.resolve_type(te),
                        _ => {
                            // `Store(addr, v)`: uint, or the value's own type (templated form
                            // with the argument deduced).
                            let t = self.types.concrete(args[1].ty);
                            if self.types.scalar_of(t).is_some_and(|s| s == Scalar::U32)
                                || !self.types.is_numeric(t)
                            {
                                t
                            } else if matches!(self.types.kind(t), TyKind::Scalar(_)) {
                                u
                            } else {
                                t
                            }
                        }
                    },
                    "Store2" => self.types.vector(Scalar::U32, 2),
                    "Store3" => self.types.vector(Scalar::U32, 3),
                    _ => self.types.vector(Scalar::U32, 4),
                };
                let mut it = args.into_iter();
                let (Some(a), Some(v)) = (it.next(), it.next()) else {
                    return Expr::error(span);
                };
                let out = vec![self.conv_arg(a, u), self.conv_arg(v, vty)];
                mk(
                    ExprKind::Method(ResMethod::Store, Box::new(object), out),
                    Types::VOID,
                    span,
                )
            }
            (
                BufKind::RWByteAddress,
                "InterlockedAdd"
                | "InterlockedAnd"
                | "InterlockedOr"
                | "InterlockedXor"
                | "InterlockedMin"
                | "InterlockedMax"
                | "InterlockedExchange",
            ) => {
                let op = match name {
                    "InterlockedAdd" => AtomicOp::Add,
                    "InterlockedAnd" => AtomicOp::And,
                    "InterlockedOr" => AtomicOp::Or,
                    "InterlockedXor" => AtomicOp::Xor,
                    "InterlockedMin" => AtomicOp::Min,
                    "InterlockedMax" => AtomicOp::Max,
                    _ => AtomicOp::Exchange,
                };
                if !self.method_arity(name, 2, 3, n, span) {
                    return Expr::error(span);
                }
                let mut it = args.into_iter();
                let (Some(a), Some(v)) = (it.next(), it.next()) else {
                    return Expr::error(span);
                };
                let vt = match self.types.scalar_of(v.ty) {
                    Some(Scalar::I32) => self.types.int(),
                    _ => u,
                };
                let mut out = vec![self.conv_arg(a, u), self.conv_arg(v, vt)];
                if let Some(o) = it.next() {
                    if !self.out_place(&o) {
                        return Expr::error(span);
                    }
                    out.push(o);
                }
                mk(
                    ExprKind::Method(ResMethod::Atomic(op), Box::new(object), out),
                    Types::VOID,
                    span,
                )
            }
            (BufKind::RWByteAddress, "InterlockedCompareExchange" | "InterlockedCompareStore") => {
                let xchg = name == "InterlockedCompareExchange";
                let want = if xchg { 4 } else { 3 };
                if !self.method_arity(name, want, want, n, span) {
                    return Expr::error(span);
                }
                let mut it = args.into_iter();
                let (Some(a), Some(c), Some(v)) = (it.next(), it.next(), it.next()) else {
                    return Expr::error(span);
                };
                let mut out = vec![
                    self.conv_arg(a, u),
                    self.conv_arg(c, u),
                    self.conv_arg(v, u),
                ];
                if let Some(o) = it.next() {
                    if !self.out_place(&o) {
                        return Expr::error(span);
                    }
                    out.push(o);
                }
                let m = if xchg {
                    ResMethod::AtomicCmpXchg
                } else {
                    ResMethod::AtomicCmpStore
                };
                mk(
                    ExprKind::Method(m, Box::new(object), out),
                    Types::VOID,
                    span,
                )
            }
            (
                BufKind::Structured | BufKind::RWStructured | BufKind::Append | BufKind::Consume,
                "GetDimensions",
            )
            | (BufKind::ByteAddress | BufKind::RWByteAddress, "GetDimensions") => {
                let byte = matches!(kind, BufKind::ByteAddress | BufKind::RWByteAddress);
                let want = if byte { 1 } else { 2 };
                if !self.method_arity(name, want, want, n, span) {
                    return Expr::error(span);
                }
                for a in &args {
                    if !self.out_place(a) {
                        return Expr::error(span);
                    }
                }
                let flag = self.types.bool();
                let mut all = vec![mk(ExprKind::Const(ConstVal::Bool(false)), flag, span)];
                all.extend(args);
                mk(
                    ExprKind::Method(ResMethod::GetDimensions, Box::new(object), all),
                    Types::VOID,
                    span,
                )
            }
            (BufKind::Structured | BufKind::RWStructured, "Load") => {
                if !self.method_arity(name, 1, 1, n, span) {
                    return Expr::error(span);
                }
                let out: Vec<Expr> = args.into_iter().map(|a| self.conv_arg(a, u)).collect();
                let idx = out.into_iter().next().unwrap_or_else(|| Expr::error(span));
                mk(ExprKind::Index(Box::new(object), Box::new(idx)), elem, span)
            }
            (BufKind::RWStructured, "IncrementCounter" | "DecrementCounter") => {
                if !self.method_arity(name, 0, 0, n, span) {
                    return Expr::error(span);
                }
                let m = if name == "IncrementCounter" {
                    ResMethod::IncrementCounter
                } else {
                    ResMethod::DecrementCounter
                };
                mk(ExprKind::Method(m, Box::new(object), Vec::new()), u, span)
            }
            (BufKind::Append, "Append") => {
                if !self.method_arity(name, 1, 1, n, span) {
                    return Expr::error(span);
                }
                let out: Vec<Expr> = args.into_iter().map(|a| self.conv_arg(a, elem)).collect();
                mk(
                    ExprKind::Method(ResMethod::Append, Box::new(object), out),
                    Types::VOID,
                    span,
                )
            }
            (BufKind::Consume, "Consume") => {
                if !self.method_arity(name, 0, 0, n, span) {
                    return Expr::error(span);
                }
                mk(
                    ExprKind::Method(ResMethod::Consume, Box::new(object), Vec::new()),
                    elem,
                    span,
                )
            }
            _ => bad(self),
        }
    }
}
