//! SM 6.6 descriptor heaps, as DXC compiles them for Vulkan: `ResourceDescriptorHeap[i]` and
//! `SamplerDescriptorHeap[i]` are untyped ([`TyKind::HeapElement`]) until converted to the
//! resource type of what they initialize (`Texture2D<float4> t = ResourceDescriptorHeap[i];`,
//! an assignment, an argument, a cast). Each resource type a heap is converted to is a
//! *view*: a global runtime array of that type, named after the heap, made on first use;
//! the element is the view's element `i`. A heap's views share one binding: the first view
//! takes it (`bindings.rs` places heaps after every other resource, the resource heap before
//! the sampler heap, as DXC does; `-fvk-bind-resource-heap` / `-fvk-bind-sampler-heap`
//! choose it), the others name it in [`BindAttrs::shares`].

use oneshader_ir::diag::Span;

use crate::hlsl::sema::Sema;
use crate::hlsl::sema::hir::*;
use crate::hlsl::syntax::ast;

/// The heap a name denotes: `Some(false)` for `ResourceDescriptorHeap`, `Some(true)` for
/// `SamplerDescriptorHeap`.
pub(crate) fn heap_of_name(name: &str) -> Option<bool> {
    match name {
        "ResourceDescriptorHeap" => Some(false),
        "SamplerDescriptorHeap" => Some(true),
        _ => None,
    }
}

/// The name of a heap.
fn heap_name(sampler: bool) -> &'static str {
    if sampler {
        "SamplerDescriptorHeap"
    } else {
        "ResourceDescriptorHeap"
    }
}

impl<'a> Sema<'a> {
    /// `base[index]` when `base` names a descriptor heap the program does not shadow: the
    /// untyped element (`None` when `base` is something else).
    pub(in crate::hlsl) fn heap_index(
        &mut self,
        base: &'a ast::Expr,
        index: &'a ast::Expr,
        span: Span,
    ) -> Option<Expr> {
        let ast::ExprKind::Name {
            path,
            template_args: None,
            qualifier: None,
        } = &base.kind
        else {
            return None;
        };
        if path.global || path.segments.len() != 1 {
            return None;
        }
        let name = &path.segments[0].name;
        let sampler = heap_of_name(name)?;
        if self.local_scoped(name).is_some() || self.lookup(name).is_some() {
            return None;
        }
        let i = self.check_expr(index);
        let u = self.types.uint();
        let i = if matches!(self.types.kind(i.ty), TyKind::Scalar(s) if s.is_int()) {
            self.convert(i, u, index.span)
        } else {
            self.error(
                "OSH1005",
                index.span,
                format!(
                    "the index of `{}` must be an integer scalar, not `{}`",
                    heap_name(sampler),
                    self.types.name(i.ty)
                ),
            );
            Expr::error(index.span)
        };
        let ty = self.types.intern(TyKind::HeapElement(sampler));
        Some(Expr {
            kind: ExprKind::HeapIndex(sampler, Box::new(i)),
            ty,
            span,
        })
    }

    /// The heap element `e` as a `to`: element `i` of the heap's view of type `to` (made on
    /// first use). An error when `to` is not a resource type that heap holds.
    pub(in crate::hlsl) fn heap_view(&mut self, e: Expr, to: TyId, span: Span) -> Expr {
        let ExprKind::HeapIndex(sampler, index) = e.kind else {
            return Expr::error(span);
        };
        let fits = match self.types.kind(to) {
            TyKind::Sampler(_) => sampler,
            TyKind::Texture(..) | TyKind::Buffer(..) | TyKind::AccelStruct => !sampler,
            _ => false,
        };
        if !fits {
            let holds = if sampler {
                "samplers (`SamplerState`, `SamplerComparisonState`)"
            } else {
                "textures, buffers and acceleration structures"
            };
            self.error(
                "OSH1005",
                span,
                format!(
                    "cannot convert an element of `{}` to `{}`: the heap holds {holds}",
                    heap_name(sampler),
                    self.types.name(to)
                ),
            );
            return Expr::error(span);
        }
        let view = self.heap_view_global(sampler, to, span);
        let arr = self.globals[view.0 as usize].ty;
        let base = Expr {
            kind: ExprKind::Global(view),
            ty: arr,
            span,
        };
        Expr {
            kind: ExprKind::Index(Box::new(base), index),
            ty: to,
            span,
        }
    }

    /// The global of `sampler`'s heap viewed as an array of `to`, made on first use.
    fn heap_view_global(&mut self, sampler: bool, to: TyId, span: Span) -> GlobalId {
        if let Some(&g) = self.decl.heap_views.get(&(sampler, to)) {
            return g;
        }
        let first = self
            .decl
            .heap_views
            .iter()
            .filter(|((s, _), _)| *s == sampler)
            .map(|(_, g)| *g)
            .min_by_key(|g| g.0);
        let ty = self.types.intern(TyKind::UnsizedArray(to));
        // `-fspv-reflect`: the view's resource type, spelled from its type (no source text).
        let user_type = self.user_type(None, to);
        self.globals.push(GlobalDef {
            name: heap_name(sampler).to_string(),
            ty,
            kind: GlobalKind::Resource,
            major: None,
            bind: BindAttrs {
                heap: Some(sampler),
                shares: first,
                ..BindAttrs::default()
            },
            init: None,
            const_value: None,
            span,
            // No declaration: the heap's first use names it.
            name_span: span,
            user_type,
        });
        let g = GlobalId(self.globals.len() as u32 - 1);
        self.decl.heap_views.insert((sampler, to), g);
        g
    }
}
