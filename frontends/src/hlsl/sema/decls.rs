//! Semantic analysis, declarations: the declaration driver, global variables (resources,
//! static and loose uniforms in `$Globals`, push constants), constant buffers with `packoffset`
//! and bit fields, typedefs, enums, matrix order (`row_major`, `#pragma pack_matrix`).

use oneshader_ir::diag::{Diagnostic, Span};

use crate::hlsl::sema::hir::*;
use crate::hlsl::sema::{Sema, Sym, TemplateBody, attr_is};
use crate::hlsl::syntax::ast::{self, DeclKind, Modifier, TemplateArg, TypeKind};

/// The resource type names DXC's `-fspv-reflect` spells in `UserTypeGOOGLE` (the others it
/// gives none, or spells through the type they name).
const DXC_USER_TYPES: &[&str] = &[
    "StructuredBuffer",
    "RWStructuredBuffer",
    "RasterizerOrderedStructuredBuffer",
    "ByteAddressBuffer",
    "RWByteAddressBuffer",
    "RasterizerOrderedByteAddressBuffer",
    "AppendStructuredBuffer",
    "ConsumeStructuredBuffer",
    "Texture1D",
    "Texture2D",
    "Texture3D",
    "TextureCube",
    "Texture1DArray",
    "Texture2DArray",
    "Texture2DMS",
    "Texture2DMSArray",
    "TextureCubeArray",
    "RWTexture1D",
    "RWTexture2D",
    "RWTexture3D",
    "RWTexture1DArray",
    "RWTexture2DArray",
    "RasterizerOrderedTexture1D",
    "RasterizerOrderedTexture1DArray",
    "RasterizerOrderedTexture2D",
    "RasterizerOrderedTexture2DArray",
    "RasterizerOrderedTexture3D",
    "Buffer",
    "RWBuffer",
    "RasterizerOrderedBuffer",
    "SubpassInput",
    "SubpassInputMS",
    "ConstantBuffer",
    "TextureBuffer",
    "RaytracingAccelerationStructure",
];

impl<'a> Sema<'a> {
    /// Processes a list of declarations in the current namespace.
    pub fn declare_all(&mut self, decls: &'a [ast::Decl]) {
        for d in decls {
            if self.too_many_errors() {
                return;
            }
            self.update_pragma_major(d.span);
            self.declare_decl(d);
        }
    }

    fn update_pragma_major(&mut self, span: Span) {
        for &(ps, m) in &self.decl.pragma_majors {
            if ps.file == span.file && ps.start <= span.start {
                self.decl.cur_major = m;
            }
        }
    }

    pub(in crate::hlsl) fn declare_decl(&mut self, d: &'a ast::Decl) {
        match &d.kind {
            DeclKind::Var(v) => self.declare_global_var(v),
            DeclKind::Function(f) => self.declare_function(f),
            DeclKind::Struct(s) => {
                self.declare_struct(s, None);
            }
            DeclKind::Buffer(b) => self.declare_cbuffer(b),
            DeclKind::Typedef(t) => self.declare_typedef(t),
            DeclKind::Enum(e) => self.declare_enum(e),
            DeclKind::Namespace(n) => {
                let saved = self.scope.cur_ns;
                match &n.name {
                    Some(p) => {
                        for seg in &p.segments {
                            let existing = self.lookup_in(self.scope.cur_ns, &seg.name);
                            let ns = match existing {
                                Some(Sym::Namespace(ns)) => ns,
                                _ => {
                                    let ns = self.new_ns(Some(self.scope.cur_ns));
                                    let cur = self.scope.cur_ns;
                                    self.declare(cur, &seg.name, Sym::Namespace(ns), seg.span);
                                    ns
                                }
                            };
                            self.scope.cur_ns = ns;
                        }
                    }
                    None => {
                        // An anonymous namespace: its names are visible in the enclosing one.
                        let ns = self.new_ns(Some(self.scope.cur_ns));
                        let cur = self.scope.cur_ns;
                        self.scope.nss[cur.0 as usize].usings.push(ns);
                        self.scope.cur_ns = ns;
                    }
                }
                self.declare_all(&n.decls);
                self.scope.cur_ns = saved;
            }
            DeclKind::UsingNamespace(p) => match self.lookup_path(p) {
                Some(Sym::Namespace(ns)) => {
                    let cur = self.scope_ns();
                    self.scope.nss[cur.0 as usize].usings.push(ns);
                }
                _ => self.error(
                    "OSH1001",
                    p.span,
                    format!("unknown namespace `{}`", p.to_text()),
                ),
            },
            DeclKind::Using(p) => match self.lookup_path(p) {
                Some(sym) => {
                    let name = p.last().name.clone();
                    self.declare_here(&name, sym, p.span);
                }
                None => self.error(
                    "OSH1001",
                    p.span,
                    format!("undefined name `{}`", p.to_text()),
                ),
            },
            DeclKind::StaticAssert { cond, message } => {
                let h = self.check_expr(cond);
                if !self.types.is_error(h.ty) {
                    match self.eval_const(&h) {
                        Some(v) if !v.as_bool() => {
                            let msg = match message.as_ref().map(|m| &m.kind) {
                                Some(ast::ExprKind::Literal(ast::Literal::String(s))) => s.clone(),
                                _ => "static assertion failed".into(),
                            };
                            self.error("OSH1012", cond.span, format!("static_assert: {msg}"));
                        }
                        Some(_) => {}
                        None => self.error(
                            "OSH1012",
                            cond.span,
                            "static_assert needs a constant expression",
                        ),
                    }
                }
            }
            DeclKind::Technique { .. } | DeclKind::Empty | DeclKind::Error => {}
        }
    }

    /// The matrix order of a declaration: its `row_major`/`column_major` modifier, else the
    /// order of the `#pragma pack_matrix` in effect when it differs from the command line's
    /// default (`None`: the default).
    pub fn major_of(&self, mods: &[ast::ModifierSpan]) -> Option<Major> {
        let mut r = None;
        for m in mods {
            match m.modifier {
                Modifier::RowMajor => r = Some(Major::Row),
                Modifier::ColumnMajor => r = Some(Major::Column),
                _ => {}
            }
        }
        r.or((self.decl.cur_major != self.opts.default_major).then_some(self.decl.cur_major))
    }

    /// The `row_major`/`column_major` modifier among `mods`, if any.
    fn explicit_major(mods: &[ast::ModifierSpan]) -> Option<Major> {
        mods.iter().rev().find_map(|m| match m.modifier {
            Modifier::RowMajor => Some(Major::Row),
            Modifier::ColumnMajor => Some(Major::Column),
            _ => None,
        })
    }

    /// The order written on a template's element type: `row_major` in
    /// `StructuredBuffer<row_major float3x3>`.
    fn elem_major(ty: &ast::TypeExpr) -> Option<Major> {
        let TypeKind::Named {
            args: Some(args), ..
        } = &ty.kind
        else {
            return None;
        };
        match args.first() {
            Some(TemplateArg::Type(t)) => match &t.kind {
                TypeKind::Modified { modifiers, .. } => Self::explicit_major(modifiers),
                _ => None,
            },
            _ => None,
        }
    }

    /// Applies `unsigned`/`signed` modifiers.
    pub fn apply_sign(&mut self, mods: &[ast::ModifierSpan], ty: TyId) -> TyId {
        if mods.iter().any(|m| m.modifier == Modifier::Unsigned) {
            self.make_unsigned(ty)
        } else {
            ty
        }
    }

    /// The declared type of one declarator: base type plus array dimensions.
    pub fn declarator_type(&mut self, base: TyId, d: &'a ast::Declarator) -> TyId {
        let mut ty = base;
        for dim in d.array_dims.iter().rev() {
            ty = self.array_of(ty, dim);
        }
        ty
    }

    pub(in crate::hlsl) fn has_mod(mods: &[ast::ModifierSpan], m: Modifier) -> bool {
        mods.iter().any(|x| x.modifier == m)
    }

    /// For a `vk::SampledTexture*` global, the texture type its global has; an array of them
    /// is refused (OSH1018), as is a `vk::SampledTexture*` under `static` or `groupshared`.
    fn sampled_texture_decl(&mut self, ty: TyId, d: &'a ast::Declarator) -> Option<TyId> {
        let inner = self.strip_arrays(ty);
        let TyKind::SampledTexture(shape, e) = *self.types.kind(inner) else {
            return None;
        };
        if ty != inner {
            self.error(
                "OSH1018",
                d.span,
                format!(
                    "arrays of `{}` are not supported: declare one global per texture",
                    self.types.name(inner)
                ),
            );
        }
        Some(self.types.intern(TyKind::Texture(shape, e, false)))
    }

    /// The sampler half of the `vk::SampledTexture*` global `tex` (`cmp` for the comparison
    /// sampler), made on first use: a global named `tex.sampler` sharing `tex`'s binding.
    pub(in crate::hlsl) fn sampled_texture_sampler(
        &mut self,
        tex: GlobalId,
        cmp: bool,
    ) -> Option<GlobalId> {
        let slots = *self.decl.sampled_textures.get(&tex)?;
        if let Some(g) = slots[cmp as usize] {
            return Some(g);
        }
        let t = self.globals.get(tex.0 as usize)?.clone();
        let register = t.bind.register.map(|(_, n, sp)| ('s', n, sp));
        self.globals.push(GlobalDef {
            name: format!("{}.{}", t.name, if cmp { "sampler_cmp" } else { "sampler" }),
            ty: self.types.intern(TyKind::Sampler(cmp)),
            kind: GlobalKind::Resource,
            major: None,
            bind: BindAttrs {
                register,
                vk_binding: t.bind.vk_binding,
                shares: Some(tex),
                ..BindAttrs::default()
            },
            init: None,
            const_value: None,
            span: t.span,
            name_span: t.name_span,
            user_type: None,
        });
        let g = GlobalId(self.globals.len() as u32 - 1);
        if let Some(s) = self.decl.sampled_textures.get_mut(&tex) {
            s[cmp as usize] = Some(g);
        }
        Some(g)
    }

    /// How SPIR-V's `UserTypeGOOGLE` spells resource type `ty` (DXC's `-fspv-reflect`), as
    /// `written` (the declaration's type syntax, when there is one): the type name in lower
    /// case, then its template arguments as `:<float4,64>` (the element type as OneShader
    /// names it, a sample count as its value), none when none was written (`texture2d`); an
    /// array of resources takes its element's. A name DXC does not list (a typedef, the
    /// legacy `texture2D`) is spelled by the type it names. `None` for what DXC gives no
    /// type: samplers and anything that is not a resource.
    pub(in crate::hlsl) fn user_type(
        &mut self,
        written: Option<&'a ast::TypeExpr>,
        ty: TyId,
    ) -> Option<String> {
        let elem = self.strip_arrays(ty);
        let elem_arg = match self.types.kind(elem) {
            TyKind::Texture(_, e, _) => Some(*e),
            TyKind::Buffer(BufKind::ByteAddress | BufKind::RWByteAddress, _) => None,
            TyKind::Buffer(_, e) => Some(*e),
            TyKind::AccelStruct => None,
            _ => return None,
        };
        if let Some(ast::TypeExpr {
            kind: TypeKind::Named { path, args },
            ..
        }) = written
            && path.segments.len() == 1
            && DXC_USER_TYPES.contains(&path.last().name.as_str())
        {
            let mut s = path.last().name.to_ascii_lowercase();
            if let Some(args) = args.as_deref().filter(|a| !a.is_empty()) {
                let mut parts = Vec::with_capacity(args.len());
                for (i, a) in args.iter().enumerate() {
                    parts.push(match (i, elem_arg) {
                        (0, Some(e)) => self.types.name(e),
                        _ => self.quiet_int_arg(a)?.to_string(),
                    });
                }
                s.push_str(":<");
                s.push_str(&parts.join(","));
                s.push('>');
            }
            return Some(s);
        }
        // Spelled by the type: `Texture2D<float4>` is `texture2d:<float4>`.
        let name = self.types.name(elem);
        Some(match name.split_once('<') {
            Some((head, rest)) => {
                format!("{}:<{}", head.to_ascii_lowercase(), rest.replace(", ", ","))
            }
            None => name.to_ascii_lowercase(),
        })
    }

    /// A constant template argument's value, or `None` without reporting anything (the
    /// type's own resolution reports what is wrong with it).
    fn quiet_int_arg(&mut self, a: &'a TemplateArg) -> Option<i128> {
        let (diags, errors) = (self.diag.diags.len(), self.diag.errors);
        let v = self.template_int_arg(a);
        self.diag.diags.truncate(diags);
        self.diag.errors = errors;
        v
    }

    pub(in crate::hlsl) fn declare_global_var(&mut self, v: &'a ast::VarDecl) {
        let base = self.resolve_type(&v.ty);
        let base = self.apply_sign(&v.modifiers, base);
        let is_static = Self::has_mod(&v.modifiers, Modifier::Static);
        let is_const = Self::has_mod(&v.modifiers, Modifier::Const);
        let groupshared = Self::has_mod(&v.modifiers, Modifier::Groupshared);
        // `StructuredBuffer<row_major float3x3>`: the order written on the element type.
        let major = Self::elem_major(&v.ty)
            .or_else(|| Self::explicit_major(&v.modifiers))
            .or_else(|| self.major_of(&v.modifiers));
        let push_constant = v
            .attributes
            .iter()
            .any(|a| attr_is(a, "vk", "push_constant"));
        let shader_record = v.attributes.iter().find(|a| {
            attr_is(a, "vk", "shader_record_ext") || attr_is(a, "vk", "shader_record_nv")
        });
        let spec_id = v
            .attributes
            .iter()
            .find(|a| attr_is(a, "vk", "constant_id"))
            .map(|a| (a, self.attr_u32_args(a)));
        for d in &v.declarators {
            let ty = self.declarator_type(base, d);
            if let Some(q) = &d.qualifier {
                // `float S::x = 1;`: the definition of a static member.
                self.define_static_member(q, d, ty);
                continue;
            }
            let mut bind = self.bind_attrs(&v.attributes, &d.annotations);
            bind.coherent = Self::has_mod(&v.modifiers, Modifier::GloballyCoherent);
            if self.is_split_type(ty) {
                // A struct holding resources: one global per field.
                let id = self.make_split(
                    &d.name.name,
                    ty,
                    crate::hlsl::sema::split::SplitKind::Global,
                    &bind,
                    d.span,
                );
                let ns = self.scope.cur_ns;
                self.declare(ns, &d.name.name, Sym::Split(id), d.name.span);
                continue;
            }
            if let Some(t) = self.sampled_texture_decl(ty, d) {
                self.globals.push(GlobalDef {
                    name: d.name.name.clone(),
                    ty: t,
                    kind: GlobalKind::Resource,
                    major: None,
                    bind,
                    init: None,
                    const_value: None,
                    span: d.span,
                    name_span: d.name.span,
                    // Not among the types DXC's `-fspv-reflect` names.
                    user_type: None,
                });
                let gid = GlobalId(self.globals.len() as u32 - 1);
                self.decl.sampled_textures.insert(gid, [None, None]);
                let ns = self.scope.cur_ns;
                self.declare(ns, &d.name.name, Sym::Global(gid), d.name.span);
                continue;
            }
            let is_res = self.types.is_resource(ty);
            let cbuf_like = matches!(
                self.types.kind(self.strip_arrays(ty)),
                TyKind::Buffer(BufKind::Constant | BufKind::TextureBuffer, _)
            );
            if push_constant && !self.check_push_constant(ty, &bind, d) {
                continue;
            }
            if let Some(a) = shader_record
                && !cbuf_like
            {
                self.error(
                    "OSH1029",
                    a.span,
                    format!(
                        "`[[vk::{}]]` applies to a `ConstantBuffer<T>` or a `cbuffer`, not a `{}`",
                        a.name.name,
                        self.types.name(ty)
                    ),
                );
                continue;
            }
            let (kind, gty) = if cbuf_like && shader_record.is_some() {
                (GlobalKind::ShaderRecord, self.unwrap_cbuffer_type(ty).0)
            } else if cbuf_like && push_constant {
                // `[[vk::push_constant]] ConstantBuffer<T> pc;` is a push-constant block of a `T`.
                (GlobalKind::PushConstant, self.unwrap_cbuffer_type(ty).0)
            } else if cbuf_like {
                // `ConstantBuffer<T> cb;` is a constant buffer whose value is a `T`.
                let (inner, tbuffer) = self.unwrap_cbuffer_type(ty);
                (GlobalKind::CBuffer { tbuffer }, inner)
            } else if let Some((attr, ids)) = &spec_id {
                let id = ids.first().copied().unwrap_or(0);
                let default = match &d.init {
                    Some(e) => {
                        let h = self.check_expr(e);
                        let h = self.convert(h, ty, e.span);
                        self.eval_const(&h).unwrap_or(ConstVal::Int(0))
                    }
                    None => {
                        self.error(
                            "OSH1025",
                            attr.span,
                            "a specialization constant needs a default value",
                        );
                        ConstVal::Int(0)
                    }
                };
                let Some(s) = self
                    .types
                    .scalar_of(ty)
                    .filter(|_| matches!(self.types.kind(ty), TyKind::Scalar(_)))
                else {
                    self.error(
                        "OSH1025",
                        attr.span,
                        "a specialization constant must be a scalar",
                    );
                    continue;
                };
                (
                    GlobalKind::SpecConst {
                        id,
                        default: default.convert(s),
                    },
                    ty,
                )
            } else if push_constant {
                (GlobalKind::PushConstant, ty)
            } else if groupshared {
                (GlobalKind::Groupshared, ty)
            } else if is_res || matches!(self.types.kind(ty), TyKind::Unsupported(_)) {
                (GlobalKind::Resource, ty)
            } else if is_static || (is_const && d.init.is_some()) {
                (GlobalKind::Static, ty)
            } else if matches!(self.types.kind(ty), TyKind::String) {
                (GlobalKind::Const, ty)
            } else {
                // A loose global: a member of the implicit `$Globals` constant buffer.
                if d.init.is_some() {
                    self.warn(
                        "OSH1028",
                        d.span,
                        format!(
                            "the initializer of `{}` is ignored: a global without `static` is a \
                             constant-buffer member set by the application",
                            d.name.name
                        ),
                    );
                }
                self.add_loose_uniform(d, ty, major);
                continue;
            };
            let user_type = match kind {
                GlobalKind::Resource | GlobalKind::CBuffer { .. } => {
                    self.user_type(Some(&v.ty), ty)
                }
                _ => None,
            };
            let mut g = GlobalDef {
                name: d.name.name.clone(),
                ty: gty,
                kind,
                major,
                bind,
                init: None,
                const_value: None,
                span: d.span,
                name_span: d.name.span,
                user_type,
            };
            // A `string` global is a constant (what a print's format may name).
            let string = matches!(self.types.kind(ty), TyKind::String);
            if (matches!(g.kind, GlobalKind::Static) || string)
                && let Some(init) = &d.init
            {
                let h = self.check_initializer(init, ty);
                if matches!(self.types.kind(ty), TyKind::UnsizedArray(_)) {
                    g.ty = h.ty;
                }
                if is_const && let Some(v) = self.eval_const(&h) {
                    g.const_value = Some(v);
                    g.kind = GlobalKind::Const;
                }
                g.init = Some(h);
            }
            self.globals.push(g);
            let gid = GlobalId(self.globals.len() as u32 - 1);
            let ns = self.scope.cur_ns;
            self.declare(ns, &d.name.name, Sym::Global(gid), d.name.span);
        }
    }

    /// Checks a `[[vk::push_constant]]` global, as DXC does: a struct or a
    /// `ConstantBuffer<T>` (not an array, not a texture buffer), without `vk::binding`, and one
    /// per program. False (after an error) when it is not one.
    fn check_push_constant(&mut self, ty: TyId, bind: &BindAttrs, d: &'a ast::Declarator) -> bool {
        let fits = match self.types.kind(ty) {
            TyKind::Struct(_) => true,
            TyKind::Buffer(BufKind::Constant, e) => {
                matches!(self.types.kind(*e), TyKind::Struct(_))
            }
            _ => false,
        };
        if !fits {
            let ty_name = self.types.name(ty);
            self.error(
                "OSH1029",
                d.span,
                format!(
                    "`[[vk::push_constant]]` applies to a global of struct type or a \
                     `ConstantBuffer<T>`, not to `{}` of type `{ty_name}`",
                    d.name.name
                ),
            );
            return false;
        }
        if bind.vk_binding.is_some() {
            self.error(
                "OSH1029",
                d.span,
                format!(
                    "`{}`: `[[vk::push_constant]]` cannot be used together with `[[vk::binding]]`",
                    d.name.name
                ),
            );
            return false;
        }
        if let Some(prev) = self.decl.push_constant_at {
            let diag = Diagnostic::error(
                "OSH1029",
                format!(
                    "`{}`: a second push-constant block; a shader has at most one",
                    d.name.name
                ),
            )
            .with_span(d.span)
            .with_label(prev, "the first push-constant block");
            self.push_diag(diag);
            return false;
        }
        self.decl.push_constant_at = Some(d.span);
        true
    }

    /// `ConstantBuffer<T>` (or an array of them) to (`T` or `T[n]`, is-texture-buffer).
    fn unwrap_cbuffer_type(&mut self, ty: TyId) -> (TyId, bool) {
        match self.types.kind(ty).clone() {
            TyKind::Buffer(k, e) => (e, k == BufKind::TextureBuffer),
            TyKind::Array(e, n) => {
                let (inner, tb) = self.unwrap_cbuffer_type(e);
                (self.types.array(inner, n), tb)
            }
            TyKind::UnsizedArray(e) => {
                let (inner, tb) = self.unwrap_cbuffer_type(e);
                (self.types.intern(TyKind::UnsizedArray(inner)), tb)
            }
            _ => (ty, false),
        }
    }

    /// The element type under array dimensions.
    pub fn strip_arrays(&self, mut ty: TyId) -> TyId {
        loop {
            match self.types.kind(ty) {
                TyKind::Array(e, _) | TyKind::UnsizedArray(e) => ty = *e,
                _ => return ty,
            }
        }
    }

    fn add_loose_uniform(&mut self, d: &'a ast::Declarator, ty: TyId, major: Option<Major>) {
        let offset = self.packoffset(&d.annotations);
        // `float x : register(c3);` places `x` at 48 bytes (DXC honours it under every layout
        // rule); the profile form `register(vs_5_0, c3)` too.
        let register_c = d.annotations.iter().find_map(|a| match a {
            ast::PostAnnotation::Register { args, span } => args.iter().find_map(|r| {
                let n = r.name.to_ascii_lowercase();
                n.strip_prefix('c')
                    .and_then(|k| k.parse::<u32>().ok())
                    .map(|k| (k, *span))
            }),
            _ => None,
        });
        let (g, idx) = self.add_globals_member(&d.name.name, ty, major, d.span);
        if let TyKind::Struct(sid) = self.types.kind(self.globals[g.0 as usize].ty).clone() {
            if let Some((k, span)) = register_c {
                let prev = self.types.structs[sid.0 as usize]
                    .fields
                    .iter()
                    .find(|f| f.register_c == Some(k))
                    .map(|f| (f.name.clone(), f.span));
                if let Some((name, at)) = prev {
                    let diag = Diagnostic::error(
                        "OSH1029",
                        format!(
                            "`{}` at register(c{k}) overlaps `{name}`, already at that register",
                            d.name.name
                        ),
                    )
                    .with_span(span)
                    .with_label(at, "the member already at that register");
                    self.push_diag(diag);
                } else if k.checked_mul(16).is_none() {
                    self.error("OSH1025", span, format!("register(c{k}) is out of range"));
                } else {
                    self.types.structs[sid.0 as usize].fields[idx as usize].register_c = Some(k);
                }
            }
            if let Some(off) = offset {
                self.types.structs[sid.0 as usize].fields[idx as usize].offset = Some(off);
            }
        }
        let ns = self.scope.cur_ns;
        self.declare(ns, &d.name.name, Sym::CBufMember(g, idx), d.name.span);
    }

    /// Adds a member to the implicit `$Globals` constant buffer (made on first use); returns
    /// the buffer and the member's index.
    pub fn add_globals_member(
        &mut self,
        name: &str,
        ty: TyId,
        major: Option<Major>,
        span: Span,
    ) -> (GlobalId, u32) {
        let g = match self.decl.globals_cbuffer {
            Some(g) => g,
            None => {
                let sid = StructId(self.types.structs.len() as u32);
                self.types.structs.push(StructDef {
                    name: "type.$Globals".into(),
                    fields: Vec::new(),
                    bitfields: Vec::new(),
                    bases: Vec::new(),
                    span,
                });
                let ns = self.new_ns(None);
                self.scope.struct_ns.push(ns);
                let sty = self.types.intern(TyKind::Struct(sid));
                self.globals.push(GlobalDef {
                    name: "$Globals".into(),
                    ty: sty,
                    kind: GlobalKind::CBuffer { tbuffer: false },
                    major: None,
                    bind: BindAttrs::default(),
                    init: None,
                    const_value: None,
                    span,
                    name_span: span,
                    // DXC names no type for `$Globals`.
                    user_type: None,
                });
                let g = GlobalId(self.globals.len() as u32 - 1);
                self.decl.globals_cbuffer = Some(g);
                g
            }
        };
        let TyKind::Struct(sid) = self.types.kind(self.globals[g.0 as usize].ty).clone() else {
            return (g, 0);
        };
        let fields = &mut self.types.structs[sid.0 as usize].fields;
        fields.push(FieldDef {
            name: name.to_string(),
            ty,
            major,
            io: IoAttrs::default(),
            offset: None,
            register_c: None,
            span,
        });
        (g, fields.len() as u32 - 1)
    }

    /// `packoffset(cN.x)` in bytes.
    pub fn packoffset(&mut self, annotations: &'a [ast::PostAnnotation]) -> Option<u32> {
        for a in annotations {
            if let ast::PostAnnotation::PackOffset {
                register,
                component,
                span,
            } = a
            {
                let r = register.name.to_ascii_lowercase();
                let Some(n) = r.strip_prefix('c').and_then(|n| n.parse::<u32>().ok()) else {
                    self.error("OSH1025", *span, "packoffset needs a register `cN`");
                    return None;
                };
                let comp = match component.as_ref().map(|c| c.name.to_ascii_lowercase()) {
                    None => 0,
                    Some(c) => match c.as_str() {
                        "x" | "r" => 0,
                        "y" | "g" => 1,
                        "z" | "b" => 2,
                        "w" | "a" => 3,
                        _ => {
                            self.error(
                                "OSH1025",
                                *span,
                                "packoffset component must be x, y, z or w",
                            );
                            0
                        }
                    },
                };
                return Some(n * 16 + comp * 4);
            }
        }
        None
    }

    fn define_static_member(&mut self, q: &'a ast::TypeExpr, d: &'a ast::Declarator, ty: TyId) {
        let owner = self.resolve_type(q);
        let Some(ns) = self.type_ns(owner) else {
            return;
        };
        match self.lookup_in(ns, &d.name.name) {
            Some(Sym::Global(g)) => {
                if let Some(init) = &d.init {
                    let saved = self.scope.cur_ns;
                    self.scope.cur_ns = ns;
                    let h = self.check_initializer(init, ty);
                    self.scope.cur_ns = saved;
                    let g = &mut self.globals[g.0 as usize];
                    if matches!(g.kind, GlobalKind::Const | GlobalKind::Static) {
                        g.init = Some(h);
                    }
                }
            }
            _ => self.error(
                "OSH1009",
                d.name.span,
                format!(
                    "`{}` has no static member `{}`",
                    self.types.name(owner),
                    d.name.name
                ),
            ),
        }
    }

    pub(in crate::hlsl) fn declare_typedef(&mut self, t: &'a ast::TypedefDecl) {
        if let Some(h) = t.templates.last()
            && !h.params.is_empty()
        {
            for d in &t.declarators {
                let tid = self.add_template(&d.name.name, TemplateBody::Alias(t), &h.params, None);
                self.declare_here(&d.name.name, Sym::StructTemplate(tid), d.name.span);
            }
            return;
        }
        let base = self.resolve_type(&t.ty);
        let base = self.apply_sign(&t.modifiers, base);
        for d in &t.declarators {
            let ty = self.declarator_type(base, d);
            let ns = self.type_ns(ty);
            self.declare_here(&d.name.name, Sym::Type(ty, ns), d.name.span);
        }
    }

    pub(in crate::hlsl) fn declare_enum(&mut self, e: &'a ast::EnumDecl) {
        let base = match &e.base {
            Some(b) => self.resolve_type(b),
            None => self.types.int(),
        };
        let scope = self.new_ns(Some(self.scope_ns()));
        let mut next: i128 = 0;
        for v in &e.variants {
            let val = match &v.value {
                Some(x) => self.const_int_expr(x).unwrap_or(next),
                None => next,
            };
            next = val.wrapping_add(1);
            let sym = Sym::Const(base, ConstVal::Int(val));
            self.scope.nss[scope.0 as usize]
                .names
                .insert(v.name.name.clone(), sym.clone());
            if !e.scoped {
                self.declare_here(&v.name.name, sym, v.name.span);
            }
        }
        if let Some(n) = &e.name {
            self.declare_here(&n.name, Sym::Type(base, Some(scope)), n.span);
        }
    }

    fn declare_cbuffer(&mut self, b: &'a ast::BufferDecl) {
        let sid = StructId(self.types.structs.len() as u32);
        self.types.structs.push(StructDef {
            name: format!("type.{}", b.name.name),
            fields: Vec::new(),
            bitfields: Vec::new(),
            bases: Vec::new(),
            span: b.span,
        });
        let sns = self.new_ns(None);
        self.scope.struct_ns.push(sns);
        let sty = self.types.intern(TyKind::Struct(sid));
        let bind = self.bind_attrs(&b.attributes, &b.annotations);
        let shader_record = b
            .attributes
            .iter()
            .any(|a| attr_is(a, "vk", "shader_record_ext") || attr_is(a, "vk", "shader_record_nv"));
        let tbuffer = b.keyword == ast::BufferKeyword::TBuffer;
        self.globals.push(GlobalDef {
            user_type: Some(if tbuffer { "tbuffer" } else { "cbuffer" }.to_string()),
            name: b.name.name.clone(),
            ty: sty,
            kind: if shader_record && b.keyword == ast::BufferKeyword::CBuffer {
                GlobalKind::ShaderRecord
            } else {
                GlobalKind::CBuffer {
                    tbuffer: b.keyword == ast::BufferKeyword::TBuffer,
                }
            },
            major: None,
            bind,
            init: None,
            const_value: None,
            span: b.span,
            name_span: b.name.span,
        });
        let g = GlobalId(self.globals.len() as u32 - 1);
        if let Some(a) = b
            .attributes
            .iter()
            .find(|a| attr_is(a, "vk", "push_constant"))
        {
            // DXC accepts the attribute only on struct-typed globals; a `cbuffer` would
            // silently stay a uniform buffer.
            self.error(
                "OSH1029",
                a.span,
                format!(
                    "`[[vk::push_constant]]` does not apply to a `{}`: declare \
                     `[[vk::push_constant]] ConstantBuffer<T> {};` (or a global of struct type) \
                     instead",
                    if b.keyword == ast::BufferKeyword::TBuffer {
                        "tbuffer"
                    } else {
                        "cbuffer"
                    },
                    b.name.name
                ),
            );
        }
        for m in &b.members {
            match &m.kind {
                DeclKind::Var(v) => {
                    let base = self.resolve_type(&v.ty);
                    let base = self.apply_sign(&v.modifiers, base);
                    let major = self.major_of(&v.modifiers);
                    if Self::has_mod(&v.modifiers, Modifier::Static) {
                        // A static inside a cbuffer is an ordinary static global.
                        self.declare_global_var(v);
                        continue;
                    }
                    for d in &v.declarators {
                        let ty = self.declarator_type(base, d);
                        if self.types.contains_resource(ty) {
                            // DXC moves resources declared in a cbuffer out of it.
                            let bind = self.bind_attrs(&v.attributes, &d.annotations);
                            let user_type = self.user_type(Some(&v.ty), ty);
                            self.globals.push(GlobalDef {
                                name: d.name.name.clone(),
                                ty,
                                kind: GlobalKind::Resource,
                                major,
                                bind,
                                init: None,
                                const_value: None,
                                span: d.span,
                                name_span: d.name.span,
                                user_type,
                            });
                            let rg = GlobalId(self.globals.len() as u32 - 1);
                            let ns = self.scope.cur_ns;
                            self.declare(ns, &d.name.name, Sym::Global(rg), d.name.span);
                            continue;
                        }
                        let offset = self.packoffset(&d.annotations);
                        let fields = &mut self.types.structs[sid.0 as usize].fields;
                        fields.push(FieldDef {
                            name: d.name.name.clone(),
                            ty,
                            major,
                            io: IoAttrs::default(),
                            offset,
                            register_c: None,
                            span: d.span,
                        });
                        let idx = fields.len() as u32 - 1;
                        let ns = self.scope.cur_ns;
                        self.declare(ns, &d.name.name, Sym::CBufMember(g, idx), d.name.span);
                    }
                }
                DeclKind::Struct(s) => {
                    self.declare_struct(s, None);
                }
                DeclKind::Typedef(t) => self.declare_typedef(t),
                DeclKind::Function(f) => self.declare_function(f),
                DeclKind::Empty | DeclKind::Error => {}
                _ => self.declare_decl(m),
            }
        }
    }

    /// Adds bit field `d` of type `ty` and width `width` to struct `sid`: into the open
    /// storage field when it has the same type and room for it (DXC's packing), else into a
    /// new storage field named after it.
    pub(in crate::hlsl) fn add_bitfield(
        &mut self,
        sid: StructId,
        d: &'a ast::Declarator,
        ty: TyId,
        width: &'a ast::Expr,
        open: &mut Option<(TyId, u32)>,
    ) {
        if self.opts.hlsl_version < 2021 {
            self.error(
                "OSH1030",
                d.span,
                format!(
                    "bit field `{}`: bit fields need HLSL 2021 (`-HV 2021`)",
                    d.name.name
                ),
            );
            return;
        }
        let bits = match self.types.kind(ty) {
            TyKind::Scalar(s) if s.is_int() => s.concrete().bits(),
            _ => {
                let t = self.types.name(ty);
                self.error(
                    "OSH1030",
                    d.span,
                    format!(
                        "bit field `{}` has type `{t}`; bit fields are integer scalars",
                        d.name.name
                    ),
                );
                return;
            }
        };
        let h = self.check_expr(width);
        let w = match self.eval_const(&h) {
            Some(v) => v.as_int(),
            None => {
                self.error(
                    "OSH1012",
                    width.span,
                    "a bit-field width must be a constant",
                );
                return;
            }
        };
        if w <= 0 || w > bits as i128 {
            self.error(
                "OSH1030",
                width.span,
                format!(
                    "bit field `{}`: a width of {w} does not fit its {bits}-bit type",
                    d.name.name
                ),
            );
            return;
        }
        let w = w as u32;
        let def = &mut self.types.structs[sid.0 as usize];
        let (storage, offset) = match *open {
            Some((t, next)) if t == ty && next + w <= bits && !def.fields.is_empty() => {
                (def.fields.len() as u32 - 1, next)
            }
            _ => {
                def.fields.push(FieldDef {
                    name: d.name.name.clone(),
                    ty,
                    major: None,
                    io: IoAttrs::default(),
                    offset: None,
                    register_c: None,
                    span: d.span,
                });
                (def.fields.len() as u32 - 1, 0)
            }
        };
        def.bitfields.push(BitFieldDef {
            name: d.name.name.clone(),
            ty,
            storage,
            offset,
            width: w,
            span: d.span,
        });
        *open = Some((ty, offset + w));
    }
}
