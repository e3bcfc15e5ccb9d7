//! Semantic analysis, attributes: their arguments, a function's stage attributes
//! (`numthreads`, `outputtopology`, ...), and the I/O and binding attributes of parameters and
//! globals (`vk::location`, `register`, `vk::binding`, ...).

use crate::hlsl::sema::hir::*;
use crate::hlsl::sema::{Sema, attr_is, image_format, split_semantic};
use crate::hlsl::syntax::ast::{self};

impl<'a> Sema<'a> {
    /// Integer arguments of an attribute (constant expressions).
    pub fn attr_u32_args(&mut self, a: &'a ast::Attribute) -> Vec<u32> {
        let mut out = Vec::new();
        for e in a.args.as_deref().unwrap_or(&[]) {
            match self.const_int_expr(e) {
                Some(v) if (0..=u32::MAX as i128).contains(&v) => out.push(v as u32),
                Some(_) => self.error("OSH1025", e.span, "attribute argument out of range"),
                None => {}
            }
        }
        out
    }

    fn attr_string_arg(a: &ast::Attribute) -> Option<String> {
        match a.args.as_deref()?.first().map(|e| &e.kind) {
            Some(ast::ExprKind::Literal(ast::Literal::String(s))) => Some(s.clone()),
            _ => None,
        }
    }

    pub(in crate::hlsl) fn func_attrs(&mut self, attrs: &'a [ast::Attribute]) -> FuncAttrs {
        let mut out = FuncAttrs::default();
        for a in attrs {
            let name = a.name.name.to_ascii_lowercase();
            match name.as_str() {
                "numthreads" if a.namespace.is_empty() => {
                    let v = self.attr_u32_args(a);
                    if v.len() != 3 || v.iter().any(|&x| x < 1) {
                        self.error(
                            "OSH1025",
                            a.span,
                            "`numthreads` takes three positive integers",
                        );
                        continue;
                    }
                    // D3D's limits (shader model 5 and later), which DXC enforces: x and y at
                    // most 1024, z at most 64, at most 1024 threads in a group.
                    let total = v.iter().map(|&x| x as u128).product::<u128>();
                    let bad = if v[0] > 1024 || v[1] > 1024 {
                        Some(format!(
                            "`numthreads({}, {}, {})`: x and y may be at most 1024",
                            v[0], v[1], v[2]
                        ))
                    } else if v[2] > 64 {
                        Some(format!(
                            "`numthreads({}, {}, {})`: z may be at most 64",
                            v[0], v[1], v[2]
                        ))
                    } else if total > 1024 {
                        Some(format!(
                            "`numthreads({}, {}, {})` asks for {total} threads per group; at most \
                             1024 are allowed",
                            v[0], v[1], v[2]
                        ))
                    } else {
                        None
                    };
                    match bad {
                        Some(msg) => self.error("OSH1025", a.span, msg),
                        None => out.numthreads = Some([v[0], v[1], v[2]]),
                    }
                }
                "earlydepthstencil" => out.early_depth_stencil = true,
                "shader" => out.shader = Self::attr_string_arg(a),
                "maxvertexcount" | "instance" | "outputcontrolpoints" => {
                    let v = self.attr_u32_args(a);
                    // D3D's limits: 1024 vertices, 32 control points; instances are
                    // bounded by the device (Vulkan guarantees 32; DXC accepts more).
                    let limit = match name.as_str() {
                        "maxvertexcount" => 1024,
                        "instance" => u32::MAX,
                        _ => 32,
                    };
                    match v.as_slice() {
                        [n] if (1..=limit).contains(n) => match name.as_str() {
                            "maxvertexcount" => out.max_vertex_count = Some(*n),
                            "instance" => {
                                if *n > 32 {
                                    self.warn(
                                        "OSH1025",
                                        a.span,
                                        format!(
                                            "`[instance({n})]`: D3D allows at most 32 \
                                             instances, and Vulkan devices only guarantee 32 \
                                             (`maxGeometryShaderInvocations`)"
                                        ),
                                    );
                                }
                                out.instance = Some(*n);
                            }
                            _ => out.output_control_points = Some(*n),
                        },
                        _ if limit == u32::MAX => self.error(
                            "OSH1025",
                            a.span,
                            format!("`{name}` takes one positive integer"),
                        ),
                        _ => self.error(
                            "OSH1025",
                            a.span,
                            format!("`{name}` takes one integer from 1 to {limit}"),
                        ),
                    }
                }
                "domain" | "partitioning" | "outputtopology" => {
                    let arg = Self::attr_string_arg(a).unwrap_or_default();
                    let ok = match name.as_str() {
                        "domain" => {
                            out.domain = match arg.as_str() {
                                "tri" => Some(oneshader_ir::TessDomain::Triangle),
                                "quad" => Some(oneshader_ir::TessDomain::Quad),
                                "isoline" => Some(oneshader_ir::TessDomain::Isoline),
                                _ => None,
                            };
                            out.domain.is_some()
                        }
                        "partitioning" => {
                            out.partitioning = match arg.as_str() {
                                "integer" => Some(oneshader_ir::Partitioning::Integer),
                                "fractional_even" => {
                                    Some(oneshader_ir::Partitioning::FractionalEven)
                                }
                                "fractional_odd" => Some(oneshader_ir::Partitioning::FractionalOdd),
                                "pow2" => Some(oneshader_ir::Partitioning::Pow2),
                                _ => None,
                            };
                            out.partitioning.is_some()
                        }
                        _ => {
                            use oneshader_ir::Primitive as P;
                            // Hull (`triangle_cw`...) and mesh (`triangle`) spellings; the
                            // entry point's stage checks which applies.
                            out.output_topology = match arg.as_str() {
                                "point" => Some(P::Point),
                                "line" => Some(P::Line),
                                "triangle" => Some(P::Triangle),
                                "triangle_cw" => Some(P::TriangleCw),
                                "triangle_ccw" => Some(P::TriangleCcw),
                                _ => None,
                            };
                            out.output_topology.is_some()
                        }
                    };
                    if !ok {
                        let expect = match name.as_str() {
                            "domain" => "\"tri\", \"quad\" or \"isoline\"",
                            "partitioning" => {
                                "\"integer\", \"fractional_even\", \"fractional_odd\" or \"pow2\""
                            }
                            _ => {
                                "\"point\", \"line\", \"triangle\", \"triangle_cw\" or \"triangle_ccw\""
                            }
                        };
                        self.error(
                            "OSH1025",
                            a.span,
                            format!("`[{name}(\"{arg}\")]`: expected {expect}"),
                        );
                    }
                }
                "patchconstantfunc" => match Self::attr_string_arg(a) {
                    Some(f) => out.patch_constant_func = Some((f, a.span)),
                    None => self.error(
                        "OSH1025",
                        a.span,
                        "`patchconstantfunc` takes the function's name as a string",
                    ),
                },
                // A promise about the tessellation factors the patch-constant function
                // produces, which lets D3D drivers optimize; Vulkan has no counterpart and
                // the factors are what the function writes either way.
                "maxtessfactor" => {}
                _ => {}
            }
            if out.span.is_none()
                && matches!(
                    name.as_str(),
                    "maxvertexcount"
                        | "instance"
                        | "domain"
                        | "partitioning"
                        | "outputtopology"
                        | "outputcontrolpoints"
                        | "patchconstantfunc"
                        | "numthreads"
                        | "shader"
                )
            {
                out.span = Some(a.span);
            }
        }
        out
    }

    /// Stage-IO attributes from attributes and annotations.
    pub fn io_attrs(
        &mut self,
        attrs: &'a [ast::Attribute],
        annotations: &'a [ast::PostAnnotation],
    ) -> IoAttrs {
        let mut io = IoAttrs::default();
        for a in annotations {
            if let ast::PostAnnotation::Semantic(id) = a {
                io.semantic = Some(split_semantic(&id.name, id.span));
            }
        }
        for a in attrs {
            if attr_is(a, "vk", "location") {
                io.location = self.attr_u32_args(a).first().copied();
            } else if attr_is(a, "vk", "builtin") {
                io.builtin = Self::attr_string_arg(a);
            }
        }
        io
    }

    /// Binding attributes of a resource or buffer declaration.
    pub fn bind_attrs(
        &mut self,
        attrs: &'a [ast::Attribute],
        annotations: &'a [ast::PostAnnotation],
    ) -> BindAttrs {
        let mut b = BindAttrs::default();
        let (mut layout_binding, mut layout_set) = (None, None);
        for a in annotations {
            if let ast::PostAnnotation::Register { args, span } = a {
                // `register(t0, space1)`, `register(ps_5_0, s0)`, `register(space1)`.
                let mut class = None;
                let mut space = None;
                for arg in args {
                    let s = arg.name.to_ascii_lowercase();
                    if let Some(n) = s.strip_prefix("space") {
                        match n.parse::<u32>() {
                            Ok(v) => space = Some(v),
                            Err(_) => self.error("OSH1025", arg.span, "malformed register space"),
                        }
                    } else if s.contains('_') {
                        // A profile name: registers for other profiles are kept anyway.
                    } else if let Some(c) = s.chars().next()
                        && let Some(n) = register_number(&s[c.len_utf8()..])
                    {
                        class = Some((c, n));
                    } else {
                        self.error(
                            "OSH1025",
                            *span,
                            format!("malformed register `{}`", arg.name),
                        );
                    }
                }
                match class {
                    Some((c, n)) => b.register = Some((c, n, space)),
                    None => b.register = Some(('?', u32::MAX, space)),
                }
            }
        }
        for a in attrs {
            if attr_is(a, "vk", "binding") {
                let v = self.attr_u32_args(a);
                match v.as_slice() {
                    // DXC: without a set, the default space (not the register's).
                    [bi] => b.vk_binding = Some((*bi, None)),
                    [bi, s] => b.vk_binding = Some((*bi, Some(*s))),
                    _ => self.error("OSH1025", a.span, "`vk::binding` takes (binding[, set])"),
                }
            } else if attr_is(a, "vk", "counter_binding") {
                b.counter_binding = self.attr_u32_args(a).first().copied();
            } else if attr_is(a, "vk", "image_format") {
                b.format = Self::attr_string_arg(a).and_then(|s| image_format(&s));
            } else if attr_is(a, "vk", "input_attachment_index") {
                b.input_attachment = self.attr_u32_args(a).first().copied();
            } else if a.style == ast::AttributeStyle::Layout {
                // glslang's `layout(set = 0, binding = 1)`: the same as
                // `[[vk::binding(1, 0)]]`.
                for arg in a.args.as_deref().unwrap_or(&[]) {
                    let ast::ExprKind::Assign { op: None, lhs, rhs } = &arg.kind else {
                        continue;
                    };
                    let ast::ExprKind::Name { path, .. } = &lhs.kind else {
                        continue;
                    };
                    let key = path.last().name.as_str();
                    if key != "set" && key != "binding" {
                        continue;
                    }
                    let v = match self.const_int_expr(rhs) {
                        Some(v) if (0..=u32::MAX as i128).contains(&v) => v as u32,
                        _ => {
                            self.error("OSH1025", rhs.span, format!("malformed layout `{key}`"));
                            continue;
                        }
                    };
                    if key == "set" {
                        layout_set = Some(v);
                    } else {
                        layout_binding = Some(v);
                    }
                }
            }
        }
        if let Some(bi) = layout_binding
            && b.vk_binding.is_none()
        {
            b.vk_binding = Some((bi, layout_set));
        }
        b
    }
}

/// The number of a register: `5` in `t5`; DX9's array forms `s[5]` (register 5) and `s3[2]`
/// (register 3 + 2).
fn register_number(rest: &str) -> Option<u32> {
    if let Some(open) = rest.find('[') {
        let base = if open == 0 {
            0
        } else {
            rest[..open].parse::<u32>().ok()?
        };
        let idx = rest[open + 1..]
            .strip_suffix(']')?
            .trim()
            .parse::<u32>()
            .ok()?;
        return base.checked_add(idx);
    }
    rest.parse::<u32>().ok()
}
