//! Lowering, part 4: what only some stages have. Geometry streams (`Append`,
//! `RestartStrip`), mesh shaders (`SetMeshOutputCounts`, `DispatchMesh`, the elements of the
//! split output arrays), ray tracing (`TraceRay`, `ReportHit`, `CallShader`, `IgnoreHit`,
//! `AcceptHitAndEndSearch`, the system values read through functions) and ray queries
//! (`RayQuery<flags>` methods).
//!
//! Each is checked against the stages of the entry points that reach the function it is
//! written in (a function no entry point reaches, a library export, is not restricted):
//! the IR's verifier requires it (OSV0028), and the diagnostic here points at the source.

use oneshader_ir::diag::Span;
use oneshader_ir::{AddressSpace, BuiltIn, InstId, Intrinsic, Op, Stage};

use crate::hlsl::lower::entry::{Conv, SplitNode};
use crate::hlsl::lower::expr::Place;
use crate::hlsl::lower::{LocalSlot, Lower};
use crate::hlsl::sema::hir::*;

impl<'p> Lower<'p> {
    /// True when every entry point that reaches the current function is of one of
    /// `allowed`; otherwise an error naming `what` and the offending stage.
    pub(crate) fn require_stages(&mut self, span: Span, allowed: &[Stage], what: &str) -> bool {
        let Some(f) = self.cur_func else {
            return true;
        };
        let stages = self.func_stages.get(&f).cloned().unwrap_or_default();
        if let Some(bad) = stages.iter().find(|s| !allowed.contains(s)) {
            let names: Vec<&str> = allowed
                .iter()
                .map(|s| crate::hlsl::sema::semantics::stage_name(*s))
                .collect();
            self.error(
                span,
                format!(
                    "{what} is available in {} shaders only; this function is reached from a \
                     {} entry point",
                    names.join(", "),
                    crate::hlsl::sema::semantics::stage_name(*bad)
                ),
            );
            return false;
        }
        true
    }

    // ---- mesh outputs -------------------------------------------------------------------------

    /// The node of a split output at a field path.
    fn split_node(&self, root: usize, path: &[u32]) -> Option<&SplitNode> {
        let mut n = self.split_nodes.get(root)?;
        for &k in path {
            match n {
                SplitNode::Struct(kids) => n = kids.get(k as usize)?,
                SplitNode::Leaf(_) => return None,
            }
        }
        Some(n)
    }

    /// A place inside a split output: a pointer once a leaf and its element are known.
    pub(crate) fn split_place(
        &mut self,
        root: usize,
        path: Vec<u32>,
        index: Option<InstId>,
        e: &Expr,
    ) -> Place {
        match (self.split_node(root, &path).cloned(), index) {
            // Clip and cull distances are floats inside a shared array: read and written
            // whole (`split_load`/`split_store`).
            (Some(SplitNode::Leaf(lg)), Some(_))
                if !matches!(lg.conv, Conv::Plain)
                    && !matches!(lg.conv, Conv::Builtin(ct) if ct == lg.ty) =>
            {
                Place::Split(root, path, index)
            }
            (Some(SplitNode::Leaf(lg)), Some(i)) => Place::Ptr(self.bld().element_addr(lg.g, i)),
            (Some(_), _) => Place::Split(root, path, index),
            (None, _) => {
                self.error(e.span, "this member of a mesh output cannot be addressed");
                let t = self.ir_ty(e.ty);
                Place::Value(self.m.undef(t))
            }
        }
    }

    /// A part of a mesh output the body cannot address on its own (a component of a
    /// clip distance, a bit field): an error, never a silently dropped write.
    pub(crate) fn split_unaddressable(&mut self, e: &Expr) -> Place {
        self.error(
            e.span,
            "this part of a mesh output cannot be written on its own: assign the whole member",
        );
        let t = self.ir_ty(e.ty);
        Place::Value(self.m.undef(t))
    }

    /// Pointers to components `comps` of a clip- or cull-distance member of a split output
    /// element; `None` for anything else.
    pub(crate) fn split_components(
        &mut self,
        root: usize,
        path: &[u32],
        index: Option<InstId>,
        comps: impl Iterator<Item = u32>,
    ) -> Option<Vec<InstId>> {
        let i = index?;
        let Some(SplitNode::Leaf(lg)) = self.split_node(root, path).cloned() else {
            return None;
        };
        let Conv::Dist { offset } = lg.conv else {
            return None;
        };
        let elem = self.bld().element_addr(lg.g, i);
        let mut out = Vec::new();
        for c in comps {
            let k = self.m.const_u32(offset + c);
            out.push(self.bld().element_addr(elem, k));
        }
        Some(out)
    }

    /// A pointer to the run-time component `k` of a clip- or cull-distance member of a split
    /// output element; `None` for anything else.
    pub(crate) fn split_component_at(
        &mut self,
        root: usize,
        path: &[u32],
        index: Option<InstId>,
        k: InstId,
    ) -> Option<InstId> {
        let i = index?;
        let Some(SplitNode::Leaf(lg)) = self.split_node(root, path).cloned() else {
            return None;
        };
        let Conv::Dist { offset } = lg.conv else {
            return None;
        };
        let elem = self.bld().element_addr(lg.g, i);
        let u = self.m.u32_type();
        let k = if self.m.ty(k) == Some(u) {
            k
        } else {
            self.bld().convert(k, u)
        };
        let at = if offset == 0 {
            k
        } else {
            let o = self.m.const_u32(offset);
            self.bld().add(k, o)
        };
        Some(self.bld().element_addr(elem, at))
    }

    /// Reads a whole element (or struct member) of a split output.
    pub(crate) fn split_load(
        &mut self,
        root: usize,
        path: &[u32],
        index: Option<InstId>,
        ty: TyId,
    ) -> InstId {
        let node = self.split_node(root, path).cloned();
        match (node, index) {
            (Some(node), Some(i)) => self.split_node_load(&node, i, ty),
            _ => {
                self.error_once(
                    "a mesh shader's output array is read or written element by element \
                     (`verts[i] = v`), not as a whole",
                );
                let t = self.ir_ty(ty);
                self.m.undef(t)
            }
        }
    }

    fn split_node_load(&mut self, node: &SplitNode, i: InstId, ty: TyId) -> InstId {
        match node {
            SplitNode::Leaf(lg) if lg.conv != Conv::Plain => self.leaf_load(*lg, Some(i)),
            SplitNode::Leaf(lg) => {
                let p = self.bld().element_addr(lg.g, i);
                self.bld().load(p)
            }
            SplitNode::Struct(kids) => {
                let TyKind::Struct(sid) = self.types().kind(ty).clone() else {
                    let t = self.ir_ty(ty);
                    return self.m.undef(t);
                };
                let fields = self.types().struct_def(sid).fields.clone();
                let parts: Vec<InstId> = kids
                    .iter()
                    .zip(&fields)
                    .map(|(k, f)| self.split_node_load(k, i, f.ty))
                    .collect();
                self.struct_value(sid, &parts)
            }
        }
    }

    /// Writes a whole element (or struct member) of a split output.
    pub(crate) fn split_store(
        &mut self,
        root: usize,
        path: &[u32],
        index: Option<InstId>,
        v: InstId,
    ) {
        let node = self.split_node(root, path).cloned();
        match (node, index) {
            (Some(node), Some(i)) => self.split_node_store(&node, i, v),
            _ => self.error_once(
                "a mesh shader's output array is read or written element by element \
                 (`verts[i] = v`), not as a whole",
            ),
        }
    }

    fn split_node_store(&mut self, node: &SplitNode, i: InstId, v: InstId) {
        match node {
            SplitNode::Leaf(lg) if lg.conv != Conv::Plain => self.leaf_store(*lg, v, Some(i)),
            SplitNode::Leaf(lg) => {
                let p = self.bld().element_addr(lg.g, i);
                self.bld().store(p, v);
            }
            SplitNode::Struct(kids) => {
                for (k, kid) in kids.iter().enumerate() {
                    let x = self.bld().extract(v, &[k as u32]);
                    self.split_node_store(kid, i, x);
                }
            }
        }
    }

    // ---- intrinsics ---------------------------------------------------------------------------

    /// The global `TraceRay`, `CallShader` or `ReportHit` passes data through: one per
    /// address space and type.
    fn ray_data_global(&mut self, space: AddressSpace, ty: TyId) -> InstId {
        let t = self.ir_ty(ty);
        let key = (space.to_u32(), t);
        if let Some(&g) = self.ray_data.get(&key) {
            return g;
        }
        let name = match space {
            AddressSpace::RayPayload => "payload",
            AddressSpace::CallableData => "callable_data",
            _ => "hit_attributes",
        };
        let g = self.m.add_global(name, space, t, None).id();
        self.ray_data.insert(key, g);
        g
    }

    /// False (with OSH1040 at `span`) when an intersection entry point that reaches the
    /// current function already reports hits with attributes of another type than `ty`:
    /// each attribute type is a hit-attribute global of its own, and Vulkan allows one per
    /// entry point.
    fn one_hit_attribute_type(&mut self, span: Span, ty: TyId) -> bool {
        let Some(f) = self.cur_func else {
            return true;
        };
        let t = self.ir_ty(ty);
        let entries = self.func_entries.get(&f).cloned().unwrap_or_default();
        for entry in entries {
            match self.hit_attributes.get(&entry) {
                Some(&(prev, prev_ty)) if prev != t => {
                    let msg = format!(
                        "`ReportHit` with attributes of type `{}`: the intersection entry point \
                         `{}` already reports hits with `{}`, and an entry point has one \
                         hit-attribute variable (report every hit with one attribute type)",
                        self.types().name(ty),
                        self.p.func(entry).name,
                        self.types().name(prev_ty)
                    );
                    self.error(span, msg);
                    return false;
                }
                Some(_) => {}
                None => {
                    self.hit_attributes.insert(entry, (t, ty));
                }
            }
        }
        true
    }

    /// The intrinsics of the mesh and ray-tracing stages.
    pub(crate) fn stage_intrinsic(&mut self, op: IntrinsicOp, args: &[Expr], e: &Expr) -> InstId {
        use Stage::*;
        let rt = self.ir_ty(e.ty);
        let void = self.m.void_type();
        let undef_void = self.m.undef(void);
        match op {
            IntrinsicOp::SetMeshOutputCounts => {
                if !self.require_stages(e.span, &[Mesh], "`SetMeshOutputCounts`") {
                    return undef_void;
                }
                let v = self.rvalue(&args[0]);
                let p = self.rvalue(&args[1]);
                self.bld().set_mesh_outputs(v, p);
                undef_void
            }
            IntrinsicOp::DispatchMesh => {
                if !self.require_stages(e.span, &[Amplification], "`DispatchMesh`") {
                    return undef_void;
                }
                let x = self.rvalue(&args[0]);
                let y = self.rvalue(&args[1]);
                let z = self.rvalue(&args[2]);
                let payload = match &args[3].kind {
                    ExprKind::Global(g) => self.global_ptr(*g),
                    _ => None,
                };
                self.bld().dispatch_mesh(x, y, z, payload);
                self.terminate();
                undef_void
            }
            IntrinsicOp::TraceRay => {
                if !self.require_stages(e.span, &[RayGeneration, ClosestHit, Miss], "`TraceRay`") {
                    return undef_void;
                }
                let Some(accel) = self.resource_ptr(&args[0]) else {
                    return undef_void;
                };
                let mut ops = [accel; 11];
                for (k, a) in args[1..6].iter().enumerate() {
                    ops[k + 1] = self.rvalue(a);
                }
                let ray = self.rvalue(&args[6]);
                for (k, slot) in (6..10).enumerate() {
                    ops[slot] = self.bld().extract(ray, &[k as u32]);
                }
                let payload = &args[7];
                let g = self.ray_data_global(AddressSpace::RayPayload, payload.ty);
                let pl = self.place(payload);
                let v = self.load_place(pl.clone(), payload.ty);
                self.bld().store(g, v);
                ops[10] = g;
                self.bld().trace_ray(&ops);
                let back = self.bld().load(g);
                self.store_place(pl, back);
                undef_void
            }
            IntrinsicOp::CallShader => {
                if !self.require_stages(
                    e.span,
                    &[RayGeneration, ClosestHit, Miss, Callable],
                    "`CallShader`",
                ) {
                    return undef_void;
                }
                let index = self.rvalue(&args[0]);
                let data = &args[1];
                let g = self.ray_data_global(AddressSpace::CallableData, data.ty);
                let pl = self.place(data);
                let v = self.load_place(pl.clone(), data.ty);
                self.bld().store(g, v);
                self.bld().execute_callable(index, g);
                let back = self.bld().load(g);
                self.store_place(pl, back);
                undef_void
            }
            IntrinsicOp::ReportHit => {
                if !self.require_stages(e.span, &[Intersection], "`ReportHit`") {
                    return self.m.undef(rt);
                }
                if !self.one_hit_attribute_type(e.span, args[2].ty) {
                    return self.m.undef(rt);
                }
                let t = self.rvalue(&args[0]);
                let kind = self.rvalue(&args[1]);
                let attr = self.rvalue(&args[2]);
                let g = self.ray_data_global(AddressSpace::HitAttribute, args[2].ty);
                self.bld().store(g, attr);
                self.bld().report_hit(t, kind)
            }
            IntrinsicOp::IgnoreHit | IntrinsicOp::AcceptHitAndEndSearch => {
                let name = if op == IntrinsicOp::IgnoreHit {
                    "`IgnoreHit`"
                } else {
                    "`AcceptHitAndEndSearch`"
                };
                if !self.require_stages(e.span, &[AnyHit], name) {
                    return undef_void;
                }
                if op == IntrinsicOp::IgnoreHit {
                    self.bld().ignore_hit();
                } else {
                    self.bld().accept_hit();
                }
                self.terminate();
                undef_void
            }
            IntrinsicOp::SystemValue(b, transpose) => {
                let allowed: &[Stage] = match b {
                    BuiltIn::LaunchId | BuiltIn::LaunchSize => &[
                        RayGeneration,
                        Intersection,
                        AnyHit,
                        ClosestHit,
                        Miss,
                        Callable,
                    ],
                    BuiltIn::WorldRayOrigin
                    | BuiltIn::WorldRayDirection
                    | BuiltIn::RayTmin
                    | BuiltIn::RayTmax
                    | BuiltIn::IncomingRayFlags => &[Intersection, AnyHit, ClosestHit, Miss],
                    BuiltIn::HitKind => &[AnyHit, ClosestHit],
                    _ => &[Intersection, AnyHit, ClosestHit],
                };
                let what = format!("`{}`", ray_value_name(b, transpose));
                if !self.require_stages(e.span, allowed, &what) {
                    return self.m.undef(rt);
                }
                let g = self.builtin_input(b);
                let v = self.bld().load(g);
                if transpose {
                    self.bld().intrinsic(Intrinsic::Transpose, rt, &[v])
                } else {
                    v
                }
            }
            _ => self.m.undef(rt),
        }
    }

    // ---- streams and ray queries --------------------------------------------------------------

    /// The methods of geometry streams and ray queries.
    pub(crate) fn stage_method(
        &mut self,
        m: ResMethod,
        obj: &Expr,
        args: &[Expr],
        e: &Expr,
    ) -> InstId {
        let rt = self.ir_ty(e.ty);
        let void = self.m.void_type();
        let undef_void = self.m.undef(void);
        match m {
            ResMethod::StreamAppend | ResMethod::StreamRestart => {
                let Some(info) = self.stream_of(obj) else {
                    return undef_void;
                };
                if m == ResMethod::StreamAppend {
                    let v = self.rvalue(&args[0]);
                    self.bld().store(info.staging, v);
                    self.bld().call(info.emit.id(), &[]);
                } else {
                    self.bld().end_primitive(info.index);
                }
                undef_void
            }
            _ => {
                let TyKind::RayQuery(flags) = self.types().kind(obj.ty).clone() else {
                    return self.m.undef(rt);
                };
                let q = match self.place(obj) {
                    Place::Ptr(q) => q,
                    _ => {
                        self.error(obj.span, "a ray query is used through its variable");
                        return self.m.undef(rt);
                    }
                };
                self.ray_query_method(m, q, flags, args, e)
            }
        }
    }

    /// The stream a `Append`/`RestartStrip` object names.
    fn stream_of(&mut self, obj: &Expr) -> Option<crate::hlsl::lower::entry::StreamInfo> {
        if let ExprKind::Local(l) = obj.kind
            && let Some(LocalSlot::Stream(s)) = self.f.as_ref().map(|f| f.locals[l.0 as usize])
        {
            if let Some(info) = s {
                return Some(info);
            }
            // A function that received a stream: the program's only stream.
            match self.all_streams.as_slice() {
                [only] => return Some(*only),
                [] => {
                    self.error(
                        obj.span,
                        "this stream is not a geometry shader's output stream",
                    );
                    return None;
                }
                _ => {
                    self.error(
                        obj.span,
                        "with several output streams, append to them in the entry point",
                    );
                    return None;
                }
            }
        }
        self.error(
            obj.span,
            "an output stream is used through the entry point's parameter",
        );
        None
    }

    fn ray_query_method(
        &mut self,
        m: ResMethod,
        q: InstId,
        flags: u32,
        args: &[Expr],
        e: &Expr,
    ) -> InstId {
        let rt = self.ir_ty(e.ty);
        let void = self.m.void_type();
        let undef_void = self.m.undef(void);
        match m {
            ResMethod::RayQueryInit => {
                let Some(accel) = self.resource_ptr(&args[0]) else {
                    return undef_void;
                };
                let f = self.rvalue(&args[1]);
                // The query's own flags are or-ed into the ones given here.
                let f = if flags != 0 {
                    let k = self.m.const_u32(flags);
                    self.bld().binary(Op::Or, f, k)
                } else {
                    f
                };
                let mask = self.rvalue(&args[2]);
                let ray = self.rvalue(&args[3]);
                let mut ops = [q, accel, f, mask, q, q, q, q];
                for (k, slot) in (4..8).enumerate() {
                    ops[slot] = self.bld().extract(ray, &[k as u32]);
                }
                self.bld().ray_query_init(&ops);
                undef_void
            }
            ResMethod::RayQueryProceed => self.bld().ray_query_op(Op::RayQueryProceed, q),
            ResMethod::RayQueryAbort => {
                self.bld().ray_query_op(Op::RayQueryAbort, q);
                undef_void
            }
            ResMethod::RayQueryCommitTriangle => {
                self.bld().ray_query_op(Op::RayQueryConfirm, q);
                undef_void
            }
            ResMethod::RayQueryCommitProcedural => {
                let t = self.rvalue(&args[0]);
                self.bld().ray_query_generate(q, t);
                undef_void
            }
            ResMethod::RayQueryGet(which, post) => {
                let t = match post {
                    RayQueryPost::Transpose => {
                        let f = self.m.f32_type();
                        self.m.matrix_type(f, 4, 3)
                    }
                    _ => rt,
                };
                let v = self.bld().ray_query_get(which, q, t);
                match post {
                    RayQueryPost::None => v,
                    RayQueryPost::Not => self.bld().unary(Op::Not, v),
                    RayQueryPost::Transpose => self.bld().intrinsic(Intrinsic::Transpose, rt, &[v]),
                }
            }
            _ => self.m.undef(rt),
        }
    }
}

/// The HLSL function that reads built-in `b`, for diagnostics.
fn ray_value_name(b: BuiltIn, transpose: bool) -> &'static str {
    match b {
        BuiltIn::LaunchId => "DispatchRaysIndex",
        BuiltIn::LaunchSize => "DispatchRaysDimensions",
        BuiltIn::WorldRayOrigin => "WorldRayOrigin",
        BuiltIn::WorldRayDirection => "WorldRayDirection",
        BuiltIn::ObjectRayOrigin => "ObjectRayOrigin",
        BuiltIn::ObjectRayDirection => "ObjectRayDirection",
        BuiltIn::RayTmin => "RayTMin",
        BuiltIn::RayTmax => "RayTCurrent",
        BuiltIn::InstanceId => "InstanceIndex",
        BuiltIn::InstanceCustomIndex => "InstanceID",
        BuiltIn::GeometryIndex => "GeometryIndex",
        BuiltIn::PrimitiveId => "PrimitiveIndex",
        BuiltIn::HitKind => "HitKind",
        BuiltIn::IncomingRayFlags => "RayFlags",
        BuiltIn::ObjectToWorld if transpose => "ObjectToWorld3x4",
        BuiltIn::ObjectToWorld => "ObjectToWorld4x3",
        BuiltIn::WorldToObject if transpose => "WorldToObject3x4",
        BuiltIn::WorldToObject => "WorldToObject4x3",
        _ => "a system value",
    }
}
