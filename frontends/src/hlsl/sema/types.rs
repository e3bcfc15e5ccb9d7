//! Semantic analysis, types: scalar and built-in type names, type expressions (arrays,
//! `unsigned`, named and qualified types), the built-in templates (vectors, matrices, textures,
//! buffers) and their arguments.

use oneshader_ir::diag::Span;

use crate::hlsl::sema::hir::*;
use crate::hlsl::sema::{Sema, Sym};
use crate::hlsl::syntax::ast::{self, Modifier, TemplateArg, TypeKind};

impl<'a> Sema<'a> {
    /// Maps a scalar spelling to its type (`None` when not a scalar name).
    pub fn scalar_by_name(&self, name: &str) -> Option<Scalar> {
        let half = if self.opts.enable_16bit {
            Scalar::F16
        } else {
            Scalar::F32
        };
        let (i16t, u16t) = if self.opts.enable_16bit {
            (Scalar::I16, Scalar::U16)
        } else {
            (Scalar::I32, Scalar::U32)
        };
        Some(match name {
            "bool" => Scalar::Bool,
            "int" | "int32_t" => Scalar::I32,
            "uint" | "dword" | "uint32_t" | "unsigned" => Scalar::U32,
            "half" => half,
            "float" | "float32_t" => Scalar::F32,
            "double" | "float64_t" => Scalar::F64,
            "min16float" | "min10float" => half,
            "min16int" | "min12int" => i16t,
            "min16uint" => u16t,
            "int16_t" => Scalar::I16,
            "uint16_t" => Scalar::U16,
            "int64_t" => Scalar::I64,
            "uint64_t" => Scalar::U64,
            "float16_t" => Scalar::F16,
            _ => return None,
        })
    }

    /// Parses `float4`, `int3x3`, `half` ... into a type.
    pub fn builtin_numeric(&mut self, name: &str) -> Option<TyId> {
        if let Some(s) = self.scalar_by_name(name) {
            return Some(self.types.scalar(s));
        }
        let b = name.as_bytes();
        let n = b.len();
        if n >= 2 && (b'1'..=b'4').contains(&b[n - 1]) {
            if n >= 4 && b[n - 2] == b'x' && (b'1'..=b'4').contains(&b[n - 3]) {
                let s = self.scalar_by_name(&name[..n - 3])?;
                return Some(self.types.matrix(s, b[n - 3] - b'0', b[n - 1] - b'0'));
            }
            let s = self.scalar_by_name(&name[..n - 1])?;
            return Some(self.types.vector(s, b[n - 1] - b'0'));
        }
        None
    }

    /// Resolves type syntax; reports and returns the error type when it is not a type.
    pub fn resolve_type(&mut self, t: &'a ast::TypeExpr) -> TyId {
        match &t.kind {
            TypeKind::Named { path, args } => {
                self.resolve_named_type(path, args.as_deref(), t.span)
            }
            TypeKind::Struct(s) => self.declare_struct(s, None),
            TypeKind::Typename(p) => self.resolve_named_type(p, None, t.span),
            TypeKind::Modified { modifiers, inner } => {
                let ty = self.resolve_type(inner);
                if modifiers.iter().any(|m| m.modifier == Modifier::Unsigned) {
                    return self.make_unsigned(ty);
                }
                ty
            }
            TypeKind::Array { element, dims } => {
                let mut ty = self.resolve_type(element);
                for d in dims.iter().rev() {
                    ty = self.array_of(ty, d);
                }
                ty
            }
            TypeKind::Error => Types::ERROR,
        }
    }

    /// `unsigned T`.
    pub fn make_unsigned(&mut self, ty: TyId) -> TyId {
        match self.types.scalar_of(ty) {
            Some(Scalar::I32) => self.types.with_scalar(ty, Scalar::U32),
            Some(Scalar::I16) => self.types.with_scalar(ty, Scalar::U16),
            Some(Scalar::I64) => self.types.with_scalar(ty, Scalar::U64),
            _ => ty,
        }
    }

    /// `elem[dim]`.
    pub fn array_of(&mut self, elem: TyId, d: &'a ast::ArrayDim) -> TyId {
        match &d.size {
            None => self.types.intern(TyKind::UnsizedArray(elem)),
            Some(e) => match self.const_int_expr(e) {
                Some(n) if n > 0 && n <= (1 << 24) => self.types.array(elem, n as u32),
                Some(n) => {
                    self.error(
                        "OSH1012",
                        e.span,
                        format!("array size must be positive (found {n})"),
                    );
                    Types::ERROR
                }
                None => Types::ERROR,
            },
        }
    }

    /// Evaluates a constant integer expression (reports when it is not one).
    pub fn const_int_expr(&mut self, e: &'a ast::Expr) -> Option<i128> {
        let h = self.check_expr(e);
        if self.types.is_error(h.ty) {
            return None;
        }
        match self.eval_const(&h) {
            Some(v) => Some(v.as_int()),
            None => {
                self.error("OSH1012", e.span, "a constant expression is required here");
                None
            }
        }
    }

    pub(in crate::hlsl) fn template_type_arg(&mut self, a: &'a TemplateArg, default: TyId) -> TyId {
        match a {
            TemplateArg::Type(t) => self.resolve_type(t),
            TemplateArg::Expr(e) => {
                // `Buffer<MyType>` where the parser saw an expression.
                if let ast::ExprKind::Name { path, .. } = &e.kind
                    && let Some(Sym::Type(t, _)) = self.lookup_path(path)
                {
                    return t;
                }
                self.error("OSH1017", e.span, "expected a type as template argument");
                default
            }
        }
    }

    pub(in crate::hlsl) fn template_int_arg(&mut self, a: &'a TemplateArg) -> Option<i128> {
        match a {
            TemplateArg::Expr(e) => self.const_int_expr(e),
            TemplateArg::Type(t) => {
                // A name the parser took for a type may be a constant.
                if let TypeKind::Named { path, args: None } = &t.kind
                    && let Some(Sym::Const(_, v)) = self.lookup_path(path)
                {
                    return Some(v.as_int());
                }
                self.error("OSH1017", t.span, "expected a constant template argument");
                None
            }
        }
    }

    fn resolve_named_type(
        &mut self,
        path: &'a ast::Path,
        args: Option<&'a [TemplateArg]>,
        span: Span,
    ) -> TyId {
        let name = path.last().name.as_str();
        if path.segments.len() == 1 {
            if args.is_none()
                && let Some(t) = self.builtin_numeric(name)
            {
                // A user typedef cannot shadow built-in numeric names in practice.
                return t;
            }
            if let Some(t) = self.builtin_template_type(name, args, span) {
                return t;
            }
        } else if path.segments.len() == 2 && path.segments[0].name == "vk" {
            if let Some(shape) = sampled_texture_shape(name) {
                let f4 = self.types.vector(Scalar::F32, 4);
                let e = match args.and_then(|a| a.first()) {
                    Some(x) => self.template_type_arg(x, f4),
                    None => f4,
                };
                self.check_texel_type(e, span);
                return self.types.intern(TyKind::SampledTexture(shape, e));
            }
            return self
                .types
                .intern(TyKind::Unsupported(format!("vk::{name}")));
        }
        match self.lookup_path(path) {
            Some(Sym::Type(t, _)) => {
                if args.is_some() {
                    self.error(
                        "OSH1017",
                        span,
                        format!("`{}` is not a template", path.to_text()),
                    );
                }
                t
            }
            Some(Sym::StructTemplate(tid)) => {
                let targs = self.resolve_template_args(tid, args.unwrap_or(&[]), span);
                match targs {
                    Some(a) => self.instantiate_struct(tid, a, span),
                    None => Types::ERROR,
                }
            }
            Some(_) => {
                self.error(
                    "OSH1002",
                    path.span,
                    format!("`{}` is not a type", path.to_text()),
                );
                Types::ERROR
            }
            None => {
                self.error(
                    "OSH1002",
                    path.span,
                    format!("unknown type `{}`", path.to_text()),
                );
                Types::ERROR
            }
        }
    }

    /// Built-in generic and object types: `vector<T, n>`, `matrix<T, r, c>`, textures, buffers,
    /// samplers, strings and the types OneShader knows but does not compile.
    fn builtin_template_type(
        &mut self,
        name: &str,
        args: Option<&'a [TemplateArg]>,
        span: Span,
    ) -> Option<TyId> {
        let a = args.unwrap_or(&[]);
        let f32t = self.types.float();
        let f4 = self.types.vector(Scalar::F32, 4);
        let elem = |s: &mut Self, i: usize, d: TyId| -> TyId {
            match a.get(i) {
                Some(x) => s.template_type_arg(x, d),
                None => d,
            }
        };
        let tex = |s: &mut Self, shape: TexShape, rw: bool| -> TyId {
            let e = elem(s, 0, f4);
            s.check_texel_type(e, span);
            s.types.intern(TyKind::Texture(shape, e, rw))
        };
        Some(match name {
            "vector" => {
                if a.is_empty() {
                    return Some(f4);
                }
                let e = elem(self, 0, f32t);
                let n = a.get(1).and_then(|x| self.template_int_arg(x)).unwrap_or(4);
                match self.types.scalar_of(e) {
                    Some(s) if (1..=4).contains(&n) => self.types.vector(s, n as u8),
                    _ => {
                        self.error(
                            "OSH1017",
                            span,
                            "`vector<T, N>` needs a scalar T and N in 1..4",
                        );
                        Types::ERROR
                    }
                }
            }
            "matrix" => {
                if a.is_empty() {
                    return Some(self.types.matrix(Scalar::F32, 4, 4));
                }
                let e = elem(self, 0, f32t);
                let r = a.get(1).and_then(|x| self.template_int_arg(x)).unwrap_or(4);
                let c = a.get(2).and_then(|x| self.template_int_arg(x)).unwrap_or(4);
                match self.types.scalar_of(e) {
                    Some(s) if (1..=4).contains(&r) && (1..=4).contains(&c) => {
                        self.types.matrix(s, r as u8, c as u8)
                    }
                    _ => {
                        self.error(
                            "OSH1017",
                            span,
                            "`matrix<T, R, C>` needs a scalar T and R, C in 1..4",
                        );
                        Types::ERROR
                    }
                }
            }
            "Texture1D" | "texture1D" => tex(self, TexShape::T1D, false),
            "Texture1DArray" => tex(self, TexShape::T1DArray, false),
            "Texture2D" | "texture2D" | "texture" | "Texture" => tex(self, TexShape::T2D, false),
            "Texture2DArray" => tex(self, TexShape::T2DArray, false),
            "Texture3D" | "texture3D" => tex(self, TexShape::T3D, false),
            "TextureCube" | "textureCUBE" => tex(self, TexShape::Cube, false),
            "TextureCubeArray" => tex(self, TexShape::CubeArray, false),
            "Texture2DMS" => tex(self, TexShape::T2DMS, false),
            "Texture2DMSArray" => tex(self, TexShape::T2DMSArray, false),
            "RWTexture1D" | "RasterizerOrderedTexture1D" => tex(self, TexShape::T1D, true),
            "RWTexture1DArray" | "RasterizerOrderedTexture1DArray" => {
                tex(self, TexShape::T1DArray, true)
            }
            "RWTexture2D" | "RasterizerOrderedTexture2D" => tex(self, TexShape::T2D, true),
            "RWTexture2DArray" | "RasterizerOrderedTexture2DArray" => {
                tex(self, TexShape::T2DArray, true)
            }
            "RWTexture3D" | "RasterizerOrderedTexture3D" => tex(self, TexShape::T3D, true),
            "RWTexture2DMS" => tex(self, TexShape::T2DMS, true),
            "RWTexture2DMSArray" => tex(self, TexShape::T2DMSArray, true),
            "Buffer" => tex(self, TexShape::Buffer, false),
            "RWBuffer" | "RasterizerOrderedBuffer" => tex(self, TexShape::Buffer, true),
            "SubpassInput" => tex(self, TexShape::Subpass, false),
            "SubpassInputMS" => tex(self, TexShape::SubpassMS, false),
            "StructuredBuffer"
            | "RWStructuredBuffer"
            | "RasterizerOrderedStructuredBuffer"
            | "AppendStructuredBuffer"
            | "ConsumeStructuredBuffer"
            | "ConstantBuffer"
            | "TextureBuffer" => {
                let kind = match name {
                    "StructuredBuffer" => BufKind::Structured,
                    "RWStructuredBuffer" | "RasterizerOrderedStructuredBuffer" => {
                        BufKind::RWStructured
                    }
                    "AppendStructuredBuffer" => BufKind::Append,
                    "ConsumeStructuredBuffer" => BufKind::Consume,
                    "ConstantBuffer" => BufKind::Constant,
                    _ => BufKind::TextureBuffer,
                };
                let e = match a.first() {
                    Some(x) => self.template_type_arg(x, Types::ERROR),
                    None => {
                        self.error(
                            "OSH1017",
                            span,
                            format!("`{name}` needs an element type: `{name}<T>`"),
                        );
                        Types::ERROR
                    }
                };
                if matches!(kind, BufKind::Constant | BufKind::TextureBuffer)
                    && !matches!(self.types.kind(e), TyKind::Struct(_) | TyKind::Error)
                {
                    self.error(
                        "OSH1017",
                        span,
                        format!("`{name}<T>` needs a struct T, not `{}`", self.types.name(e)),
                    );
                }
                self.types.intern(TyKind::Buffer(kind, e))
            }
            "ByteAddressBuffer" => self
                .types
                .intern(TyKind::Buffer(BufKind::ByteAddress, Types::VOID)),
            "RWByteAddressBuffer" | "RasterizerOrderedByteAddressBuffer" => self
                .types
                .intern(TyKind::Buffer(BufKind::RWByteAddress, Types::VOID)),
            "SamplerState" | "sampler" | "sampler1D" | "sampler2D" | "sampler3D"
            | "samplerCUBE" | "sampler_state" => self.types.intern(TyKind::Sampler(false)),
            "SamplerComparisonState" | "sampler2DShadow" => {
                self.types.intern(TyKind::Sampler(true))
            }
            "string" => self.types.intern(TyKind::String),
            "void" => Types::VOID,
            // A patch is an array of control points; the entry point's parameter records
            // which kind it was declared as (`ParamQual`).
            "InputPatch" | "OutputPatch" => {
                let e = match a.first() {
                    Some(x) => self.template_type_arg(x, Types::ERROR),
                    None => Types::ERROR,
                };
                let n = a.get(1).and_then(|x| self.template_int_arg(x));
                match n {
                    Some(n) if (1..=32).contains(&n) && !self.types.is_error(e) => {
                        self.types.array(e, n as u32)
                    }
                    _ => {
                        self.error(
                            "OSH1017",
                            span,
                            format!("`{name}<T, N>` needs a type T and N in 1..32"),
                        );
                        Types::ERROR
                    }
                }
            }
            "PointStream" | "LineStream" | "TriangleStream" => {
                let kind = match name {
                    "PointStream" => StreamKind::Point,
                    "LineStream" => StreamKind::Line,
                    _ => StreamKind::Triangle,
                };
                let e = match a.first() {
                    Some(x) => self.template_type_arg(x, Types::ERROR),
                    None => {
                        self.error(
                            "OSH1017",
                            span,
                            format!("`{name}` needs a vertex type: `{name}<T>`"),
                        );
                        Types::ERROR
                    }
                };
                self.types.intern(TyKind::Stream(kind, e))
            }
            // SM 6.6's packed 4 x 8-bit values are 32-bit words (as DXC's SPIR-V holds them;
            // `sema/packed.rs`).
            "uint8_t4_packed" | "int8_t4_packed" => self.types.uint(),
            "RaytracingAccelerationStructure" => self.types.intern(TyKind::AccelStruct),
            "RayDesc" => self.ray_desc(),
            "BuiltInTriangleIntersectionAttributes" => {
                let f2 = self.types.vector(Scalar::F32, 2);
                self.builtin_struct(
                    "BuiltInTriangleIntersectionAttributes",
                    &[("barycentrics", f2)],
                )
            }
            "RayQuery" => {
                let flags = match a.first() {
                    Some(x) => self.template_int_arg(x),
                    None => {
                        self.error("OSH1017", span, "`RayQuery<flags>` needs its ray flags");
                        None
                    }
                };
                let flags = flags.unwrap_or(0);
                if !(0..=u32::MAX as i128).contains(&flags) {
                    self.error(
                        "OSH1017",
                        span,
                        "`RayQuery` flags are a 32-bit unsigned value",
                    );
                }
                self.types.intern(TyKind::RayQuery(flags as u32))
            }
            "HitObject"
            | "FeedbackTexture2D"
            | "FeedbackTexture2DArray"
            | "DispatchNodeInputRecord"
            | "RWDispatchNodeInputRecord"
            | "GroupNodeInputRecords"
            | "RWGroupNodeInputRecords"
            | "ThreadNodeInputRecord"
            | "RWThreadNodeInputRecord"
            | "EmptyNodeInput"
            | "NodeOutput"
            | "NodeOutputArray"
            | "EmptyNodeOutput"
            | "EmptyNodeOutputArray"
            | "GroupNodeOutputRecords"
            | "ThreadNodeOutputRecords"
            | "VertexShader"
            | "PixelShader"
            | "GeometryShader"
            | "HullShader"
            | "DomainShader"
            | "ComputeShader"
            | "BlendState"
            | "DepthStencilState"
            | "RasterizerState"
            | "vertexshader"
            | "pixelshader" => {
                // Template arguments are still resolved so errors inside them are reported.
                for x in a {
                    if let TemplateArg::Type(t) = x {
                        self.resolve_type(t);
                    }
                }
                self.types.intern(TyKind::Unsupported(name.to_string()))
            }
            _ => return None,
        })
    }

    fn check_texel_type(&mut self, e: TyId, span: Span) {
        match self.types.kind(e) {
            TyKind::Scalar(_) | TyKind::Vector(..) | TyKind::Error => {}
            TyKind::Struct(_) => {}
            _ => self.error(
                "OSH1017",
                span,
                format!(
                    "a texture element must be a scalar or vector, not `{}`",
                    self.types.name(e)
                ),
            ),
        }
    }
}

/// The shape of `vk::SampledTexture*` (DXC spells the cube ones `CUBE`).
fn sampled_texture_shape(name: &str) -> Option<TexShape> {
    Some(match name {
        "SampledTexture1D" => TexShape::T1D,
        "SampledTexture1DArray" => TexShape::T1DArray,
        "SampledTexture2D" => TexShape::T2D,
        "SampledTexture2DArray" => TexShape::T2DArray,
        "SampledTexture3D" => TexShape::T3D,
        "SampledTextureCube" | "SampledTextureCUBE" => TexShape::Cube,
        "SampledTextureCubeArray" | "SampledTextureCUBEArray" => TexShape::CubeArray,
        "SampledTexture2DMS" => TexShape::T2DMS,
        "SampledTexture2DMSArray" => TexShape::T2DMSArray,
        _ => return None,
    })
}
