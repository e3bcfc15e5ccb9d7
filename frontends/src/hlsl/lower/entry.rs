//! Lowering, part 3: entry points. Each HLSL entry function was lowered as `Name_body`; this
//! builds the wrapper `Name` (`fn() -> void`, `entry_point(stage, "Name")` and the stage's
//! execution-mode decorations), which calls `init_globals`, loads the stage inputs from
//! `input` globals, calls the body and stores the stage outputs to `output` globals.
//!
//! Struct parameters and return values are flattened field by field; each leaf is a
//! `location(n)` varying (numbered in declaration order per direction, `[[vk::location]]`
//! overrides, `SV_TargetN` is location N) or a `builtin(...)` (see `sema/semantics.rs`), with
//! `semantic("NAME", index)` for reflection and the interpolation decorations. Built-ins are
//! declared with the type SPIR-V wants and converted to the declared HLSL type; `bool`
//! varyings travel as `uint`.
//!
//! Per stage:
//!
//! - **geometry**: the input primitive's parameter (`triangle VSOut v[3]`) is read from
//!   arrays, one element per vertex. Each output stream (`inout TriangleStream<T> s`) has a
//!   private staging variable of type `T` and an emit function that writes it to the stage
//!   outputs and emits the vertex; `s.Append(v)` stores `v` there and calls it, wherever it
//!   is written, and `s.RestartStrip()` ends the strip. Several streams get `stream(n)`
//!   outputs.
//! - **hull**: `InputPatch<T, N>` is read from arrays; the body's result (one control
//!   point) is written at `SV_OutputControlPointID` into array outputs; then, as DXC lowers
//!   it, a `barrier sync` and, in invocation 0 only, the patch-constant function, whose
//!   `OutputPatch<T, N>` is read back from those outputs and whose result is written to
//!   `patch` outputs (`SV_TessFactor` and `SV_InsideTessFactor` to the tessellation levels).
//! - **domain**: `OutputPatch<T, N>` is read from arrays, the patch constants from `patch`
//!   inputs, `SV_DomainLocation` from the tessellation coordinate.
//! - **mesh**: `out vertices`, `out indices` and `out primitives` arrays are not copied:
//!   they are the stage outputs themselves, split per leaf (each an array global), and the
//!   body writes their elements in place; `in payload` is loaded from the `task_payload`
//!   global.
//! - **ray tracing**: the `inout` payload (closest hit, any hit, miss) and callable data
//!   are passed to the body as pointers to the `incoming_ray_payload` /
//!   `incoming_callable_data` global (so `IgnoreHit` and `AcceptHitAndEndSearch` keep what
//!   was written); hit attributes are loaded from the `hit_attribute` global.

use oneshader_ir::diag::Span;
use oneshader_ir::{
    AddressSpace, BarrierFlags, BuiltIn, Func, InstId, Op, Partitioning, Primitive, Stage,
    TessDomain,
};
use rustc_hash::FxHashMap;

use crate::hlsl::lower::{FnState, Lower};
use crate::hlsl::sema::hir::*;
use crate::hlsl::sema::semantics::{
    BuiltinShape, IoKind, arrayed_inputs, builtin_shape, classify, pre_raster, stage_name,
    vk_builtin,
};

/// The clip- or cull-distance declarations of one direction: (semantic index, float count)
/// each, and the array global they share once made.
type DistDecls = (Vec<(u32, u32)>, Option<InstId>);

/// Location numbering of one direction: explicit locations are reserved first.
#[derive(Default)]
pub(crate) struct LocAlloc {
    next: u32,
    taken: rustc_hash::FxHashSet<u32>,
    /// Locations given to a variable so far, with its name (duplicates are errors).
    used: FxHashMap<u32, String>,
    /// Clip and cull distances by built-in: every declaration's (semantic index, float
    /// count), and the one array global they share once made.
    dist: FxHashMap<u32, DistDecls>,
    /// Built-ins declared so far, with the declaration's name (duplicates are errors).
    builtins: FxHashMap<u32, String>,
    /// Locations chosen before the variables are made, by semantic string and whether the
    /// varying is per patch (hull outputs and domain inputs, numbered in alphabetical order;
    /// a control-point and a patch-constant varying may share a semantic).
    preassigned: FxHashMap<(String, bool), u32>,
}

impl LocAlloc {
    /// The first element of a distance declaration with semantic index `index` in its
    /// built-in's combined array (declarations ordered by index), and the array's length.
    fn dist_slot(&self, bi: BuiltIn, index: u32) -> (u32, u32) {
        let Some((decls, _)) = self.dist.get(&bi.to_u32()) else {
            return (0, 0);
        };
        let mut sorted = decls.clone();
        sorted.sort();
        let total = sorted.iter().map(|d| d.1).sum();
        let offset = sorted.iter().take_while(|d| d.0 < index).map(|d| d.1).sum();
        (offset, total)
    }

    /// The first of `n` consecutive free locations at or after the cursor.
    fn next_free(&mut self, n: u32) -> u32 {
        loop {
            let start = self.next;
            if (start..start + n).all(|l| !self.taken.contains(&l)) {
                self.next = start + n;
                for l in start..start + n {
                    self.taken.insert(l);
                }
                return start;
            }
            self.next += 1;
        }
    }
}

/// How the stage-IO declarations of one parameter or result are held.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct IoCtx {
    /// One element per vertex (or control point, or mesh vertex or primitive): the
    /// globals are arrays of this length.
    pub array: Option<u32>,
    /// Per patch (hull outputs, domain inputs).
    pub patch: bool,
    /// Per primitive (mesh primitive outputs).
    pub per_primitive: bool,
    /// The geometry-shader stream, when there are several.
    pub stream: Option<u32>,
}

/// How a stage-IO global holds its HLSL leaf.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Conv {
    /// As declared.
    Plain,
    /// A `bool` (vector) travelling as `uint`.
    Bool,
    /// A built-in of another HLSL type (the SPIR-V one), converted.
    Builtin(TyId),
    /// `uint[1]` (the sample mask).
    Mask,
    /// Floats at an offset of the shared clip- or cull-distance array.
    Dist {
        /// The first element.
        offset: u32,
    },
    /// The leading elements of the tessellation levels (`float[4]` or `float[2]`).
    Levels,
}

/// One stage-IO global and how it holds the HLSL leaf it stands for.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LeafGlobal {
    /// The global.
    pub g: InstId,
    /// The declared HLSL type of the leaf.
    pub ty: TyId,
    /// How the global holds it.
    pub conv: Conv,
    /// The global is an array, one element per vertex.
    pub arrayed: bool,
    /// The built-in it is, if any.
    pub builtin: Option<BuiltIn>,
}

/// The stage outputs a mesh shader's `out vertices/indices/primitives` array stands for:
/// a tree of leaves following the element type, each leaf an array global.
#[derive(Clone, Debug)]
pub(crate) enum SplitNode {
    /// A leaf.
    Leaf(LeafGlobal),
    /// A struct's fields, in HIR field order.
    Struct(Vec<SplitNode>),
}

/// A geometry shader's output stream: the private variable `Append` stores the vertex in,
/// and the function that writes it to the outputs and emits it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StreamInfo {
    /// The staging variable (private, of the stream's vertex type).
    pub staging: InstId,
    /// `fn() -> void`: writes the outputs from the staging variable, then `emit_vertex`.
    pub emit: Func,
    /// The stream's number.
    pub index: u32,
}

/// One flattened stage-IO leaf.
struct Leaf {
    ty: TyId,
    io: IoAttrs,
    name: String,
    span: Span,
}

impl<'p> Lower<'p> {
    // ---- stage IO -----------------------------------------------------------------------------

    /// The IO attributes of field `f` of a struct declared with `parent`'s attributes:
    /// interpolation is inherited, and a semantic on the struct numbers the fields without
    /// one (`S s : A` gives `A0`, `A1`, ... as DXC does).
    fn field_io(parent: &IoAttrs, f: &FieldDef, k: &mut u32) -> IoAttrs {
        let mut fio = f.io.clone();
        fio.interp.flat |= parent.interp.flat;
        fio.interp.noperspective |= parent.interp.noperspective;
        fio.interp.centroid |= parent.interp.centroid;
        fio.interp.sample |= parent.interp.sample;
        if fio.semantic.is_none()
            && let Some(s) = &parent.semantic
        {
            fio.semantic = Some(Semantic {
                name: s.name.clone(),
                index: s.index + *k,
                explicit_index: true,
                span: s.span,
            });
            *k += 1;
        }
        fio
    }

    /// Reads a stage input of HLSL type `ty`; with `ctx.array`, the value of every vertex:
    /// an IR `array<ty, n>`.
    fn read_input(
        &mut self,
        ty: TyId,
        io: &IoAttrs,
        name: &str,
        span: Span,
        loc: &mut LocAlloc,
        ctx: IoCtx,
    ) -> InstId {
        if let TyKind::Struct(sid) = self.types().kind(ty).clone() {
            let fields = self.types().struct_def(sid).fields.clone();
            let mut parts = Vec::new();
            let mut k = 0;
            for f in &fields {
                let fio = Self::field_io(io, f, &mut k);
                let fname = format!("{name}.{}", f.name);
                parts.push(self.read_input(f.ty, &fio, &fname, f.span, loc, ctx));
            }
            let Some(n) = ctx.array else {
                return self.struct_value(sid, &parts);
            };
            // Per vertex: the struct of every field's element.
            let mut elems = Vec::new();
            for v in 0..n {
                let fv: Vec<InstId> = parts.iter().map(|&a| self.bld().extract(a, &[v])).collect();
                elems.push(self.struct_value(sid, &fv));
            }
            let st = self.ir_ty(ty);
            let at = self.m.array_type(st, n);
            return self.construct(at, &elems);
        }
        let leaf = Leaf {
            ty,
            io: io.clone(),
            name: name.to_string(),
            span,
        };
        let t = self.ir_ty(ty);
        let whole = match ctx.array {
            Some(n) => self.m.array_type(t, n),
            None => t,
        };
        let Some(lg) = self.make_leaf(&leaf, true, loc, ctx) else {
            return self.m.undef(whole);
        };
        match ctx.array {
            None => self.leaf_load(lg, None),
            Some(n) => {
                let mut elems = Vec::new();
                for v in 0..n {
                    let i = self.m.const_u32(v);
                    elems.push(self.leaf_load(lg, Some(i)));
                }
                self.construct(whole, &elems)
            }
        }
    }

    /// Writes `v` (HLSL type `ty`) to stage outputs; with `ctx.array`, at element `index`.
    /// Every leaf global made is appended to `made` when given.
    #[allow(clippy::too_many_arguments)]
    fn write_output(
        &mut self,
        v: InstId,
        ty: TyId,
        io: &IoAttrs,
        name: &str,
        span: Span,
        loc: &mut LocAlloc,
        ctx: IoCtx,
        index: Option<InstId>,
        made: &mut Option<&mut Vec<LeafGlobal>>,
    ) {
        if let TyKind::Struct(sid) = self.types().kind(ty).clone() {
            let fields = self.types().struct_def(sid).fields.clone();
            let mut k = 0;
            for (i, f) in fields.iter().enumerate() {
                let path = self.field_path(ty, i as u32);
                let x = self.bld().extract(v, &path);
                let fio = Self::field_io(io, f, &mut k);
                let fname = format!("{name}.{}", f.name);
                self.write_output(x, f.ty, &fio, &fname, f.span, loc, ctx, index, made);
            }
            return;
        }
        let leaf = Leaf {
            ty,
            io: io.clone(),
            name: name.to_string(),
            span,
        };
        let Some(lg) = self.make_leaf(&leaf, false, loc, ctx) else {
            return;
        };
        if let Some(list) = made.as_mut() {
            list.push(lg);
        }
        self.leaf_store(lg, v, index);
    }

    /// Rebuilds a value of HLSL type `ty` for vertex `index` from leaf globals made by
    /// [`Lower::write_output`] (consumed in order).
    fn read_back(
        &mut self,
        ty: TyId,
        leaves: &mut std::slice::Iter<'_, LeafGlobal>,
        index: InstId,
    ) -> InstId {
        if let TyKind::Struct(sid) = self.types().kind(ty).clone() {
            let fields = self.types().struct_def(sid).fields.clone();
            let parts: Vec<InstId> = fields
                .iter()
                .map(|f| self.read_back(f.ty, leaves, index))
                .collect();
            return self.struct_value(sid, &parts);
        }
        match leaves.next() {
            Some(&lg) => self.leaf_load(lg, Some(index)),
            None => {
                let t = self.ir_ty(ty);
                self.m.undef(t)
            }
        }
    }

    /// Reserves the explicit locations of an IO declaration tree (and counts the clip and
    /// cull distances each declaration contributes).
    fn explicit_locations(&self, ty: TyId, io: &IoAttrs, input: bool, loc: &mut LocAlloc) {
        if let TyKind::Struct(sid) = self.types().kind(ty) {
            let mut k = 0;
            for f in &self.types().struct_def(*sid).fields {
                let fio = Self::field_io(io, f, &mut k);
                self.explicit_locations(f.ty, &fio, input, loc);
            }
            return;
        }
        let n = self.location_count(ty);
        if let Some(l) = io.location {
            loc.taken.extend(l..l + n);
        } else if let Some(sem) = &io.semantic {
            match classify(self.stage, input, &sem.upper(), sem.index) {
                Ok(IoKind::Target(t)) => loc.taken.extend(t..t + n),
                Ok(IoKind::Builtin(bi @ (BuiltIn::ClipDistance | BuiltIn::CullDistance))) => {
                    let count = self.types().flat_count(ty).max(1);
                    loc.dist
                        .entry(bi.to_u32())
                        .or_default()
                        .0
                        .push((sem.index, count));
                }
                _ => {}
            }
        }
    }

    /// The varyings of an IO declaration tree that get an automatic location: (semantic
    /// string, per patch (false here; the caller sets it), locations), in declaration order.
    fn automatic_locations(
        &self,
        ty: TyId,
        io: &IoAttrs,
        name: &str,
        input: bool,
        out: &mut Vec<(String, bool, u32)>,
    ) {
        if let TyKind::Struct(sid) = self.types().kind(ty) {
            let mut k = 0;
            for f in &self.types().struct_def(*sid).fields {
                let fio = Self::field_io(io, f, &mut k);
                let fname = format!("{name}.{}", f.name);
                self.automatic_locations(f.ty, &fio, &fname, input, out);
            }
            return;
        }
        if io.location.is_some() || io.builtin.is_some() {
            return;
        }
        let key = match &io.semantic {
            Some(sem) => {
                if let Ok(IoKind::Builtin(_) | IoKind::Target(_)) =
                    classify(self.stage, input, &sem.upper(), sem.index)
                {
                    return;
                }
                if sem.explicit_index {
                    format!("{}{}", sem.name, sem.index)
                } else {
                    sem.name.clone()
                }
            }
            None => name.to_string(),
        };
        out.push((key, false, self.location_count(ty)));
    }

    /// Numbers the automatic locations of `decls` in the alphabetical order of their
    /// semantic strings (DXC's rule for hull outputs and domain inputs, which keeps the two
    /// stages' per-vertex and per-patch varyings matched whatever order each declares them
    /// in).
    fn preassign_alphabetically(
        &self,
        decls: &[(TyId, &IoAttrs, &str, bool)],
        input: bool,
        loc: &mut LocAlloc,
    ) {
        let mut leaves = Vec::new();
        for &(ty, io, name, patch) in decls {
            let start = leaves.len();
            self.automatic_locations(ty, io, name, input, &mut leaves);
            for leaf in &mut leaves[start..] {
                leaf.1 = patch;
            }
        }
        // Stable: a per-vertex and a per-patch varying of one semantic keep the order in
        // which they were gathered (control points first).
        leaves.sort_by(|a, b| a.0.cmp(&b.0));
        for (key, patch, count) in leaves {
            let key = (key, patch);
            if loc.preassigned.contains_key(&key) {
                continue;
            }
            let l = loc.next_free(count);
            loc.preassigned.insert(key, l);
        }
    }

    /// Locations a varying of HLSL type `ty` occupies.
    fn location_count(&self, ty: TyId) -> u32 {
        match self.types().kind(ty) {
            TyKind::Scalar(s) | TyKind::Vector(s, _) => {
                let n = self.types().vec_len(ty).unwrap_or(1);
                if s.bits() == 64 && n > 2 { 2 } else { 1 }
            }
            // A matrix with one row or one column is a vector (DXC); otherwise each row
            // takes a vector's locations.
            TyKind::Matrix(s, r, c) => {
                let (rows, len) = if *r == 1 || *c == 1 {
                    (1, (*r).max(*c))
                } else {
                    (u32::from(*r), *c)
                };
                rows * if s.bits() == 64 && len > 2 { 2 } else { 1 }
            }
            TyKind::Array(e, n) => self.location_count(*e) * n,
            _ => 1,
        }
    }

    /// What an IO leaf is: a built-in or a varying (with a warning or an error when its
    /// semantic does not fit the stage), `None` after an error.
    fn leaf_kind(&mut self, leaf: &Leaf, input: bool) -> Option<IoKind> {
        let stage = self.stage;
        if let Some(b) = &leaf.io.builtin {
            return match vk_builtin(b) {
                Some(bi) => Some(IoKind::Builtin(bi)),
                None => {
                    self.error(leaf.span, format!("unknown `vk::builtin(\"{b}\")`"));
                    None
                }
            };
        }
        let what = if input { "input" } else { "output" };
        // Stages whose inputs are system values only.
        let system_only = matches!(stage, Stage::Compute | Stage::Amplification)
            || (stage == Stage::Mesh && input);
        match &leaf.io.semantic {
            Some(sem) => match classify(stage, input, &sem.upper(), sem.index) {
                Ok(k) => Some(k),
                Err(msg) if system_only => {
                    self.diags
                        .push(oneshader_ir::Diagnostic::error("OSH1023", msg).with_span(sem.span));
                    None
                }
                Err(msg) => {
                    self.diags.push(
                        oneshader_ir::Diagnostic::warning(
                            "OSH1023",
                            format!("{msg}; it is passed as a user varying"),
                        )
                        .with_span(sem.span),
                    );
                    Some(IoKind::Location)
                }
            },
            None if system_only => {
                self.diags.push(
                    oneshader_ir::Diagnostic::error(
                        "OSH1023",
                        format!(
                            "the {}-shader {what} `{}` needs a system-value semantic \
                             (SV_DispatchThreadID, SV_GroupID, SV_GroupThreadID, SV_GroupIndex)",
                            stage_name(stage),
                            leaf.name
                        ),
                    )
                    .with_span(leaf.span),
                );
                None
            }
            None => {
                // DXC requires a semantic; glslang numbers such varyings in order. Do the
                // latter, with a warning.
                self.diags.push(
                    oneshader_ir::Diagnostic::warning(
                        "OSH1023",
                        format!(
                            "the entry-point {what} `{}` has no semantic; it gets the next \
                             free location",
                            leaf.name
                        ),
                    )
                    .with_span(leaf.span),
                );
                Some(IoKind::Location)
            }
        }
    }

    /// Creates the global of one IO leaf (decorated, its location allocated), declared at the
    /// leaf (the parameter, field or return value it stands for); `None` after an error.
    fn make_leaf(
        &mut self,
        leaf: &Leaf,
        input: bool,
        loc: &mut LocAlloc,
        ctx: IoCtx,
    ) -> Option<LeafGlobal> {
        let mark = self.item_mark();
        let made = self.make_leaf_global(leaf, input, loc, ctx);
        self.declare_new_items(mark, leaf.span);
        made
    }

    /// [`Lower::make_leaf`] without the position.
    fn make_leaf_global(
        &mut self,
        leaf: &Leaf,
        input: bool,
        loc: &mut LocAlloc,
        ctx: IoCtx,
    ) -> Option<LeafGlobal> {
        let space = if input {
            AddressSpace::Input
        } else {
            AddressSpace::Output
        };
        let kind = self.leaf_kind(leaf, input)?;
        let sem_name = leaf
            .io
            .semantic
            .as_ref()
            .map(|s| {
                if s.explicit_index {
                    format!("{}{}", s.name, s.index)
                } else {
                    s.name.clone()
                }
            })
            .unwrap_or_else(|| leaf.name.clone());
        let gname = format!("{}.var.{sem_name}", if input { "in" } else { "out" });
        let arrayed = |lw: &mut Self, t: InstId| match ctx.array {
            Some(n) => lw.m.array_type(t, n),
            None => t,
        };
        match kind {
            IoKind::Builtin(bi) => self.builtin_leaf(leaf, bi, space, &gname, loc, ctx),
            IoKind::Location | IoKind::Target(_) => {
                let (ir_t, is_bool) = self.varying_type(leaf.ty);
                let gt = arrayed(self, ir_t);
                let g = self.m.add_global(&gname, space, gt, None).id();
                let count = self.location_count(leaf.ty);
                let n = match (kind, leaf.io.location) {
                    (_, Some(l)) => l,
                    (IoKind::Target(t), None) => t,
                    _ => match loc.preassigned.get(&(sem_name.clone(), ctx.patch)) {
                        Some(&l) => l,
                        None => loc.next_free(count),
                    },
                };
                for l in n..n + count {
                    if let Some(prev) = loc.used.insert(l, leaf.name.clone()) {
                        let what = if input { "input" } else { "output" };
                        self.diags.push(
                            oneshader_ir::Diagnostic::error(
                                "OSH1023",
                                format!(
                                    "`{}` and `{prev}` are both at {what} location {l} (`{sem_name}`)",
                                    leaf.name
                                ),
                            )
                            .with_span(leaf.span),
                        );
                        return None;
                    }
                }
                self.m.decorate_imm(g, Op::Location, &[n]);
                self.io_decos(g, leaf, input, ctx, None);
                Some(LeafGlobal {
                    g,
                    ty: leaf.ty,
                    conv: if is_bool { Conv::Bool } else { Conv::Plain },
                    arrayed: ctx.array.is_some(),
                    builtin: None,
                })
            }
        }
    }

    /// Reads a leaf (element `index` of an arrayed one).
    pub(crate) fn leaf_load(&mut self, lg: LeafGlobal, index: Option<InstId>) -> InstId {
        let ty = lg.ty;
        let p = match (lg.arrayed, index) {
            (true, Some(i)) => self.bld().element_addr(lg.g, i),
            _ => lg.g,
        };
        match lg.conv {
            Conv::Plain => self.bld().load(p),
            Conv::Bool => {
                let v = self.bld().load(p);
                let t = self.m.ty(v).unwrap_or_else(|| self.m.u32_type());
                let z = self.m.zero(t);
                self.bld().cmp(Op::Ne, v, z)
            }
            Conv::Builtin(ct) => {
                let mut v = self.bld().load(p);
                if lg.builtin == Some(BuiltIn::Position)
                    && self.stage == Stage::Fragment
                    && self.opts.dx_position_w
                {
                    // D3D's SV_Position.w is 1/w.
                    let w = self.bld().extract(v, &[3]);
                    let one = self.m.const_f32(1.0);
                    let rw = self.bld().div(one, w);
                    v = self.bld().insert(v, rw, &[3]);
                }
                // DXC's `-fvk-support-nonzero-base-*`: the D3D index counts from the draw's
                // first instance (vertex), Vulkan's from zero.
                let base = match lg.builtin {
                    Some(BuiltIn::InstanceIndex) if self.opts.nonzero_base_instance => {
                        Some((BuiltIn::BaseInstance, "gl_BaseInstance"))
                    }
                    Some(BuiltIn::VertexIndex) if self.opts.nonzero_base_vertex => {
                        Some((BuiltIn::BaseVertex, "gl_BaseVertex"))
                    }
                    _ => None,
                };
                if let Some((b, name)) = base
                    && self.stage == Stage::Vertex
                {
                    let g = self.base_builtin(lg.g, b, name);
                    let first = self.bld().load(g);
                    v = self.bld().sub(v, first);
                }
                self.coerce_io(v, ct, ty)
            }
            Conv::Mask => {
                let z = self.m.const_u32(0);
                let e = self.bld().element_addr(p, z);
                let v = self.bld().load(e);
                let ut = self.uint_ty(ty);
                self.coerce_io(v, ut, ty)
            }
            Conv::Dist { .. } | Conv::Levels => self.float_elems_load(p, lg.conv, ty),
        }
    }

    /// The input global of built-in `b` (`BaseInstance`, `BaseVertex`) of the same type as the
    /// index global `like`, made on first use.
    fn base_builtin(&mut self, like: InstId, b: BuiltIn, name: &str) -> InstId {
        let existing = self.m.globals().into_iter().find(|g| {
            self.m
                .find_decoration(g.id(), Op::BuiltinDeco)
                .and_then(|d| self.m.imm_operand(d, 0))
                == Some(b.to_u32())
        });
        if let Some(g) = existing {
            return g.id();
        }
        let t = self
            .m
            .ty(like)
            .and_then(|t| self.m.pointee(t))
            .unwrap_or_else(|| self.m.u32_type());
        let g = self.m.add_global(name, AddressSpace::Input, t, None).id();
        let bv = self.m.imm(b.to_u32());
        self.m.decorate(g, Op::BuiltinDeco, &[bv]);
        g
    }

    /// Writes a leaf (element `index` of an arrayed one).
    pub(crate) fn leaf_store(&mut self, lg: LeafGlobal, v: InstId, index: Option<InstId>) {
        let ty = lg.ty;
        let p = match (lg.arrayed, index) {
            (true, Some(i)) => self.bld().element_addr(lg.g, i),
            _ => lg.g,
        };
        match lg.conv {
            Conv::Plain => {
                self.bld().store(p, v);
            }
            Conv::Bool => {
                let t = self.m.ty(lg.g).and_then(|t| self.m.pointee(t));
                let t = match (t, lg.arrayed) {
                    (Some(t), true) => self.m.element_type(t, 0).unwrap_or(t),
                    (Some(t), false) => t,
                    (None, _) => self.m.u32_type(),
                };
                let c = self.bld().convert(v, t);
                self.bld().store(p, c);
            }
            Conv::Builtin(ct) => {
                let mut v = self.coerce_io(v, ty, ct);
                if lg.builtin == Some(BuiltIn::Position)
                    && self.opts.invert_y
                    && pre_raster(self.stage)
                {
                    let y = self.bld().extract(v, &[1]);
                    let ny = self.bld().neg(y);
                    v = self.bld().insert(v, ny, &[1]);
                }
                self.bld().store(p, v);
            }
            Conv::Mask => {
                let ut = self.uint_ty(ty);
                let v = self.coerce_io(v, ty, ut);
                let z = self.m.const_u32(0);
                let e = self.bld().element_addr(p, z);
                self.bld().store(e, v);
            }
            Conv::Dist { .. } | Conv::Levels => {
                let offset = match lg.conv {
                    Conv::Dist { offset } => offset,
                    _ => 0,
                };
                let f = self.m.f32_type();
                let mut leaves = Vec::new();
                self.leaves(v, ty, &mut leaves);
                for (i, (x, s)) in leaves.into_iter().enumerate() {
                    let x = if s.concrete() != Scalar::F32 {
                        self.bld().convert(x, f)
                    } else {
                        x
                    };
                    let k = self.m.const_u32(offset + i as u32);
                    let e = self.bld().element_addr(p, k);
                    self.bld().store(e, x);
                }
            }
        }
    }

    /// The HLSL `uint` type (interned up front).
    fn uint_ty(&self, fallback: TyId) -> TyId {
        self.p
            .types
            .lookup(&TyKind::Scalar(Scalar::U32))
            .unwrap_or(fallback)
    }

    /// Reads the floats of a clip/cull distance declaration or of tessellation levels from
    /// the float array behind `p`, as HLSL type `ty`.
    fn float_elems_load(&mut self, p: InstId, conv: Conv, ty: TyId) -> InstId {
        let offset = match conv {
            Conv::Dist { offset } => offset,
            _ => 0,
        };
        let n = self.types().flat_count(ty).max(1);
        let mut leaves = Vec::new();
        for i in 0..n {
            let k = self.m.const_u32(offset + i);
            let e = self.bld().element_addr(p, k);
            leaves.push((self.bld().load(e), Scalar::F32));
        }
        let mut it = leaves.into_iter();
        self.build(ty, &mut it)
    }

    /// The IR type of a varying; `bool` travels as `uint`.
    fn varying_type(&mut self, ty: TyId) -> (InstId, bool) {
        if self.types().scalar_of(ty) == Some(Scalar::Bool) {
            let n = self.types().vec_len(ty).unwrap_or(1);
            return (self.types_scalar_vec(Scalar::U32, n), true);
        }
        (self.ir_ty(ty), false)
    }

    /// The decorations of stage variable `g` from its declaration `leaf`: the semantic (or
    /// `whole`, the semantic naming a variable that combines several declarations: the
    /// clip and cull distances), patch, per-primitive, stream and interpolation.
    fn io_decos(
        &mut self,
        g: InstId,
        leaf: &Leaf,
        input: bool,
        ctx: IoCtx,
        whole: Option<&'static str>,
    ) {
        let sem = match (whole, &leaf.io.semantic) {
            (Some(name), _) => Some((name.to_string(), 0, false)),
            (None, Some(sem)) => Some((sem.name.clone(), sem.index, sem.explicit_index)),
            (None, None) => None,
        };
        if let Some((name, index, written)) = sem {
            let s = self.m.const_string(&name);
            let i = self.m.imm(index);
            // `semantic("NAME", 0, 1)`: the source spelled the zero (`TEXCOORD0`); otherwise
            // an index is spelled exactly when it is not 0.
            if index == 0 && written {
                let w = self.m.imm(1);
                self.m.decorate(g, Op::Semantic, &[s, i, w]);
            } else {
                self.m.decorate(g, Op::Semantic, &[s, i]);
            }
        }
        if ctx.patch {
            self.m.decorate(g, Op::Patch, &[]);
        }
        if ctx.per_primitive {
            self.m.decorate(g, Op::PerPrimitive, &[]);
        }
        if let Some(n) = ctx.stream {
            self.m.decorate_imm(g, Op::StreamDeco, &[n]);
        }
        // Interpolation applies to fragment inputs and the outputs that feed them.
        let applies = if input {
            self.stage == Stage::Fragment
        } else {
            pre_raster(self.stage) && !ctx.per_primitive
        };
        if applies {
            let ip = leaf.io.interp;
            if ip.flat {
                self.m.decorate(g, Op::Flat, &[]);
            }
            if ip.noperspective {
                self.m.decorate(g, Op::NoPerspective, &[]);
            }
            if ip.centroid {
                self.m.decorate(g, Op::Centroid, &[]);
            }
            if ip.sample {
                self.m.decorate(g, Op::SampleDeco, &[]);
            }
        }
    }

    fn builtin_leaf(
        &mut self,
        leaf: &Leaf,
        bi: BuiltIn,
        space: AddressSpace,
        gname: &str,
        loc: &mut LocAlloc,
        ctx: IoCtx,
    ) -> Option<LeafGlobal> {
        let input = space == AddressSpace::Input;
        // Position, point size and distances are one value per vertex in the inputs of
        // geometry and tessellation shaders and the outputs of hull and mesh shaders: they
        // come from (or go to) an array of vertices, never a single value.
        let per_vertex = matches!(
            bi,
            BuiltIn::Position | BuiltIn::PointSize | BuiltIn::ClipDistance | BuiltIn::CullDistance
        );
        let arrayed = if input {
            matches!(self.stage, Stage::Geometry | Stage::Hull | Stage::Domain)
        } else {
            matches!(self.stage, Stage::Hull | Stage::Mesh)
        };
        if per_vertex && arrayed && ctx.array.is_none() {
            let sem = leaf
                .io
                .semantic
                .as_ref()
                .map_or_else(|| leaf.name.clone(), |s| s.name.clone());
            let from = match (self.stage, input) {
                (Stage::Geometry, _) => "the input primitive's vertices",
                (Stage::Hull, true) => "the `InputPatch`",
                (Stage::Domain, _) => "the `OutputPatch`",
                (Stage::Hull, false) => "the output control point (the entry point's result)",
                _ => "the `out vertices` array",
            };
            self.diags.push(
                oneshader_ir::Diagnostic::error(
                    "OSH1023",
                    format!(
                        "`{sem}` is one value per vertex in a {} shader's {}: use it through {from}",
                        stage_name(self.stage),
                        if input { "inputs" } else { "outputs" }
                    ),
                )
                .with_span(leaf.span),
            );
            return None;
        }
        let ty = leaf.ty;
        let u = self.m.u32_type();
        let f = self.m.f32_type();
        let shape = builtin_shape(bi);
        let canon: Option<TyKind> = match shape {
            BuiltinShape::Float4 => Some(TyKind::Vector(Scalar::F32, 4)),
            BuiltinShape::Float3 => Some(TyKind::Vector(Scalar::F32, 3)),
            BuiltinShape::Float => Some(TyKind::Scalar(Scalar::F32)),
            BuiltinShape::Uint3 => Some(TyKind::Vector(Scalar::U32, 3)),
            BuiltinShape::Bool => Some(TyKind::Scalar(Scalar::Bool)),
            BuiltinShape::Uint => Some(TyKind::Scalar(
                if self.types().scalar_of(ty) == Some(Scalar::I32) {
                    Scalar::I32
                } else {
                    Scalar::U32
                },
            )),
            BuiltinShape::MaskArray | BuiltinShape::FloatArray | BuiltinShape::TessLevels(_) => {
                None
            }
        };
        let is_dist = matches!(bi, BuiltIn::ClipDistance | BuiltIn::CullDistance);
        if let BuiltinShape::TessLevels(len) = shape {
            // `float[k]` (k at most the levels' count) or, for the inner level of
            // triangles, a `float`.
            let ok = match self.types().kind(ty) {
                TyKind::Array(e, k) => {
                    *k <= len && self.types().scalar_of(*e).is_some_and(|s| s.is_float())
                }
                TyKind::Scalar(s) => s.is_float(),
                _ => false,
            };
            if !ok {
                self.error(
                    leaf.span,
                    format!(
                        "`{}` is a `float[{len}]` built-in: declare it as `float[n]` with n at \
                         most {len} (or a `float`), not `{}`",
                        leaf.name,
                        self.types().name(ty)
                    ),
                );
                return None;
            }
        }
        if ctx.array.is_some() && matches!(shape, BuiltinShape::MaskArray) {
            self.error(
                leaf.span,
                format!(
                    "`{}`: the `{}` built-in cannot be read per vertex",
                    leaf.name,
                    bi.spelling()
                ),
            );
            return None;
        }
        let (ir_t, canon_ty) = match canon {
            Some(k) => {
                let ct = self.p.types.lookup(&k).unwrap_or(ty);
                (self.ir_ty(ct), Some(ct))
            }
            None => match shape {
                BuiltinShape::MaskArray => (self.m.array_type(u, 1), None),
                BuiltinShape::TessLevels(len) => (self.m.array_type(f, len), None),
                _ => {
                    let n = self.types().flat_count(ty).max(1);
                    (self.m.array_type(f, n), None)
                }
            },
        };
        // Clip and cull distances of every declaration share one array, each declaration at
        // its offset (ordered by semantic index), as DXC combines them.
        if !is_dist && let Some(prev) = loc.builtins.insert(bi.to_u32(), leaf.name.clone()) {
            self.diags.push(
                oneshader_ir::Diagnostic::error(
                    "OSH1023",
                    format!(
                        "`{}` and `{prev}` are both the `{}` built-in",
                        leaf.name,
                        bi.spelling()
                    ),
                )
                .with_span(leaf.span),
            );
            return None;
        }
        let (dist_offset, dist_total) = match &leaf.io.semantic {
            Some(sem) if is_dist => loc.dist_slot(bi, sem.index),
            _ => (0, 0),
        };
        let shared = is_dist
            .then(|| loc.dist.get(&bi.to_u32()).and_then(|d| d.1))
            .flatten();
        let g = match shared {
            Some(g) => g,
            None => {
                let ir_t = if is_dist && dist_total > 0 {
                    self.m.array_type(f, dist_total)
                } else {
                    ir_t
                };
                let gt = match ctx.array {
                    Some(n) => self.m.array_type(ir_t, n),
                    None => ir_t,
                };
                let name = if is_dist {
                    format!(
                        "{}.var.{}",
                        if input { "in" } else { "out" },
                        if bi == BuiltIn::ClipDistance {
                            "SV_ClipDistance"
                        } else {
                            "SV_CullDistance"
                        }
                    )
                } else {
                    gname.to_string()
                };
                let g = self.m.add_global(&name, space, gt, None).id();
                let bv = self.m.imm(bi.to_u32());
                self.m.decorate(g, Op::BuiltinDeco, &[bv]);
                // The tessellation levels are per patch whatever the declaration says.
                let ctx = IoCtx {
                    patch: ctx.patch
                        || matches!(bi, BuiltIn::TessLevelOuter | BuiltIn::TessLevelInner),
                    ..ctx
                };
                // The combined distance array is the whole of `SV_ClipDistance` (or
                // `SV_CullDistance`), whichever declarations it holds, as DXC names it.
                let whole = match bi {
                    BuiltIn::ClipDistance => Some("SV_ClipDistance"),
                    BuiltIn::CullDistance => Some("SV_CullDistance"),
                    _ => None,
                };
                self.io_decos(g, leaf, input, ctx, whole);
                if is_dist && let Some(d) = loc.dist.get_mut(&bi.to_u32()) {
                    d.1 = Some(g);
                }
                g
            }
        };
        if bi == BuiltIn::Position && !input && leaf.io.invariant {
            self.m.decorate(g, Op::Invariant, &[]);
        }
        let conv = match (canon_ty, shape) {
            (Some(ct), _) => Conv::Builtin(ct),
            (None, BuiltinShape::MaskArray) => Conv::Mask,
            (None, BuiltinShape::TessLevels(_)) => Conv::Levels,
            _ => Conv::Dist {
                offset: dist_offset,
            },
        };
        Some(LeafGlobal {
            g,
            ty,
            conv,
            arrayed: ctx.array.is_some(),
            builtin: Some(bi),
        })
    }

    /// Converts between a built-in's SPIR-V type and the declared type (truncating or
    /// extending vectors: `uint2 id : SV_DispatchThreadID` takes `.xy`).
    fn coerce_io(&mut self, v: InstId, from: TyId, to: TyId) -> InstId {
        if from == to {
            return v;
        }
        let (Some(fl), Some(tl)) = (self.types().vec_len(from), self.types().vec_len(to)) else {
            return self.coerce(v, from, to);
        };
        if fl > tl {
            let s = self.types().scalar_of(from).unwrap_or(Scalar::U32);
            let mid = self
                .p
                .types
                .lookup(&if tl == 1 {
                    TyKind::Scalar(s)
                } else {
                    TyKind::Vector(s, tl)
                })
                .unwrap_or(to);
            let t = if tl == 1 {
                self.bld().extract(v, &[0])
            } else {
                let idx: Vec<u32> = (0..tl as u32).collect();
                self.bld().shuffle(v, v, &idx)
            };
            return self.coerce(t, mid, to);
        }
        if fl < tl && fl > 1 {
            // Extend with zeros.
            let s = self.types().scalar_of(from).unwrap_or(Scalar::U32);
            let mut leaves = Vec::new();
            self.leaves(v, from, &mut leaves);
            let z = self.const_scalar(s, ConstVal::Int(0));
            while leaves.len() < tl as usize {
                leaves.push((z, s));
            }
            let mut it = leaves.into_iter();
            return self.build(to, &mut it);
        }
        self.coerce(v, from, to)
    }
}

/// True for the ray-tracing stages.
pub(crate) fn is_ray_tracing(stage: Stage) -> bool {
    matches!(
        stage,
        Stage::RayGeneration
            | Stage::Intersection
            | Stage::AnyHit
            | Stage::ClosestHit
            | Stage::Miss
            | Stage::Callable
    )
}

/// What an entry point's parameter is to its wrapper.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EntryParam {
    /// Read from (and, `out`/`inout`, written to) stage IO.
    Io,
    /// Read per vertex from array inputs (a geometry shader's input primitive, a patch).
    Arrayed(u32),
    /// A geometry shader's output stream: no IR parameter.
    Stream,
    /// A mesh shader's `out vertices/indices/primitives`: no IR parameter.
    MeshOutput,
    /// A mesh shader's `in payload`: loaded from the `task_payload` global.
    TaskPayload,
    /// A ray-tracing payload or callable data (`inout`): a pointer to the incoming global.
    RayPointer(AddressSpace),
    /// Hit attributes (`in`): loaded from the `hit_attribute` global.
    HitAttributes,
}

impl<'p> Lower<'p> {
    /// What parameter `p` of entry point `f` (of `stage`) is; `None` when `f` is not an
    /// entry point.
    pub(crate) fn entry_param(&self, f: FuncId, p: &ParamDef) -> Option<EntryParam> {
        let stage = *self.entry_stages.get(&f)?;
        if matches!(self.types().kind(p.ty), TyKind::Stream(..)) {
            return Some(EntryParam::Stream);
        }
        Some(match p.qual {
            ParamQual::Vertices | ParamQual::Indices | ParamQual::Primitives
                if stage == Stage::Mesh =>
            {
                EntryParam::MeshOutput
            }
            ParamQual::Payload if stage == Stage::Mesh => EntryParam::TaskPayload,
            ParamQual::Primitive(_) | ParamQual::InputPatch | ParamQual::OutputPatch
                if arrayed_inputs(stage) =>
            {
                match self.types().kind(p.ty) {
                    TyKind::Array(_, n) => EntryParam::Arrayed(*n),
                    _ => EntryParam::Io,
                }
            }
            _ if is_ray_tracing(stage) && p.dir != ParamDir::In => match stage {
                Stage::Callable => EntryParam::RayPointer(AddressSpace::IncomingCallableData),
                _ => EntryParam::RayPointer(AddressSpace::IncomingRayPayload),
            },
            _ if is_ray_tracing(stage) => EntryParam::HitAttributes,
            _ => EntryParam::Io,
        })
    }

    /// True when parameter `p` of function `f` has no IR parameter (geometry streams, the
    /// mesh outputs of a mesh entry point).
    pub(crate) fn is_virtual_param(&self, f: FuncId, p: &ParamDef) -> bool {
        matches!(self.types().kind(p.ty), TyKind::Stream(..))
            || self.entry_param(f, p) == Some(EntryParam::MeshOutput)
    }

    /// The global standing for a ray-tracing entry point's payload, callable data or hit
    /// attributes: one per entry point and space.
    fn entry_ray_global(&mut self, eid: FuncId, space: AddressSpace, ty: TyId) -> InstId {
        let key = (eid, space.to_u32());
        if let Some(&g) = self.entry_ray_globals.get(&key) {
            return g;
        }
        let t = self.ir_ty(ty);
        let name = match space {
            AddressSpace::IncomingRayPayload => "incoming_payload",
            AddressSpace::IncomingCallableData => "incoming_callable_data",
            AddressSpace::HitAttribute => "hit_attributes",
            _ => "ray_data",
        };
        let g = self.m.add_global(name, space, t, None).id();
        self.entry_ray_globals.insert(key, g);
        g
    }

    /// Before function bodies are lowered: the staging variables and emit functions of a
    /// geometry entry point's streams, the split outputs of a mesh entry point, and the
    /// checks of ray-tracing parameters.
    pub fn prepare_entry(&mut self, eid: FuncId, stage: Stage) {
        let mark = self.item_mark();
        self.prepare_entry_items(eid, stage);
        // What it made for the stage (a stream's staging global and emit function, mesh
        // outputs) and no parameter claimed stands at the entry point's declaration.
        let at = self.p.func(eid).span;
        self.declare_new_items(mark, at);
    }

    /// [`Lower::prepare_entry`] without the positions.
    fn prepare_entry_items(&mut self, eid: FuncId, stage: Stage) {
        self.stage = stage;
        let fd = self.p.func(eid);
        match stage {
            Stage::Geometry => self.prepare_streams(eid),
            Stage::Mesh => self.prepare_mesh_outputs(eid),
            _ if is_ray_tracing(stage) => self.check_ray_params(eid, stage),
            _ => {
                for p in &fd.params {
                    if matches!(self.types().kind(p.ty), TyKind::Stream(..)) {
                        self.error(
                            p.span,
                            format!(
                                "`{}`: output streams are parameters of geometry shaders only",
                                p.name
                            ),
                        );
                    }
                }
            }
        }
    }

    /// The parameters of a ray-tracing entry point: a payload (`inout`) and attributes
    /// (`in`) for hit shaders, a payload for miss shaders, callable data for callable
    /// shaders, nothing for ray-generation and intersection shaders.
    fn check_ray_params(&mut self, eid: FuncId, stage: Stage) {
        let fd = self.p.func(eid);
        let want: &[(&str, bool)] = match stage {
            Stage::AnyHit | Stage::ClosestHit => &[("payload", true), ("attributes", false)],
            Stage::Miss => &[("payload", true)],
            Stage::Callable => &[("callable data", true)],
            _ => &[],
        };
        let shape_ok = fd.params.len() == want.len()
            && fd.params.iter().zip(want).all(|(p, &(_, inout))| {
                (p.dir != ParamDir::In) == inout
                    && matches!(self.types().kind(p.ty), TyKind::Struct(_))
                    && !self.types().contains_resource(p.ty)
            });
        if !shape_ok {
            let list: Vec<String> = want
                .iter()
                .map(|(n, inout)| format!("{} {n} struct", if *inout { "inout" } else { "in" }))
                .collect();
            let expect = if list.is_empty() {
                "no parameters".to_string()
            } else {
                list.join(", ")
            };
            self.error(
                fd.span,
                format!(
                    "the {} entry point `{}` takes {expect}",
                    stage.spelling(),
                    fd.name
                ),
            );
        }
        if !self.types().is_void(fd.ret) {
            self.error(
                fd.span,
                format!(
                    "the {} entry point `{}` returns nothing",
                    stage.spelling(),
                    fd.name
                ),
            );
        }
    }

    /// A geometry entry point's streams: one staging variable and one emit function each.
    fn prepare_streams(&mut self, eid: FuncId) {
        let fd = self.p.func(eid);
        let streams: Vec<&ParamDef> = fd
            .params
            .iter()
            .filter(|p| matches!(self.types().kind(p.ty), TyKind::Stream(..)))
            .collect();
        let several = streams.len() > 1;
        let mut out_loc = LocAlloc::default();
        for p in &streams {
            if let TyKind::Stream(_, elem) = self.types().kind(p.ty) {
                self.explicit_locations(*elem, &p.io, false, &mut out_loc);
            }
        }
        for (k, p) in streams.into_iter().enumerate() {
            let TyKind::Stream(_, elem) = self.types().kind(p.ty).clone() else {
                continue;
            };
            if p.dir != ParamDir::InOut {
                self.error(
                    p.span,
                    format!("the stream `{}` must be declared `inout`", p.name),
                );
                continue;
            }
            let t = self.ir_ty(elem);
            let staging = self
                .m
                .add_global(
                    &format!("{}.vertex", p.name),
                    AddressSpace::Private,
                    t,
                    None,
                )
                .id();
            let void = self.m.void_type();
            let emit = self
                .m
                .add_func(&format!("{}.emit.{}", fd.name, p.name), void, &[]);
            let Some(entry) = emit.entry(&self.m) else {
                continue;
            };
            self.f = Some(FnState {
                func: emit,
                entry,
                cur: Some(entry),
                locals: Vec::new(),
                precise: Vec::new(),
                targets: Vec::new(),
                branch_depth: 0,
                declared_depth: FxHashMap::default(),
                hir: None,
                alias_depth: FxHashMap::default(),
                ambiguous: rustc_hash::FxHashSet::default(),
            });
            let index = k as u32;
            let ctx = IoCtx {
                stream: several.then_some(index),
                ..IoCtx::default()
            };
            let v = self.bld().load(staging);
            self.write_output(
                v,
                elem,
                &p.io,
                &p.name,
                p.span,
                &mut out_loc,
                ctx,
                None,
                &mut None,
            );
            self.bld().emit_vertex(index);
            self.bld().ret(None);
            self.seal_blocks(emit);
            self.f = None;
            let info = StreamInfo {
                staging,
                emit,
                index,
            };
            self.streams.insert((eid, p.local), info);
            self.all_streams.push(info);
        }
    }

    /// A mesh entry point's `out vertices/indices/primitives` arrays: the stage outputs,
    /// split per leaf into array globals.
    fn prepare_mesh_outputs(&mut self, eid: FuncId) {
        let fd = self.p.func(eid);
        let topology = fd.attrs.output_topology;
        let mut out_loc = LocAlloc::default();
        for p in &fd.params {
            if matches!(p.qual, ParamQual::Vertices | ParamQual::Primitives)
                && let TyKind::Array(e, _) = self.types().kind(p.ty)
            {
                self.explicit_locations(*e, &p.io, false, &mut out_loc);
            }
        }
        for p in &fd.params {
            if !matches!(
                p.qual,
                ParamQual::Vertices | ParamQual::Indices | ParamQual::Primitives
            ) {
                continue;
            }
            let (elem, n) = match self.types().kind(p.ty) {
                TyKind::Array(e, n) if p.dir == ParamDir::Out => (*e, *n),
                _ => {
                    self.error(
                        p.span,
                        format!(
                            "the mesh output `{}` must be an `out` array (`out vertices T v[N]`)",
                            p.name
                        ),
                    );
                    continue;
                }
            };
            let node = if p.qual == ParamQual::Indices {
                use oneshader_ir::Primitive as P;
                let (bi, want) = match topology {
                    Some(P::Point) => (BuiltIn::PrimitivePointIndices, TyKind::Scalar(Scalar::U32)),
                    Some(P::Line) => (
                        BuiltIn::PrimitiveLineIndices,
                        TyKind::Vector(Scalar::U32, 2),
                    ),
                    _ => (
                        BuiltIn::PrimitiveTriangleIndices,
                        TyKind::Vector(Scalar::U32, 3),
                    ),
                };
                if self.types().kind(elem) != &want {
                    let want_name = match want {
                        TyKind::Scalar(_) => "uint",
                        TyKind::Vector(_, 2) => "uint2",
                        _ => "uint3",
                    };
                    self.error(
                        p.span,
                        format!(
                            "the mesh indices `{}` of this output topology are `{want_name}`, \
                             not `{}`",
                            p.name,
                            self.types().name(elem)
                        ),
                    );
                    continue;
                }
                let t = self.ir_ty(elem);
                let at = self.m.array_type(t, n);
                let g = self
                    .m
                    .add_global(
                        &format!("out.var.{}", bi.spelling()),
                        AddressSpace::Output,
                        at,
                        None,
                    )
                    .id();
                let bv = self.m.imm(bi.to_u32());
                self.m.decorate(g, Op::BuiltinDeco, &[bv]);
                SplitNode::Leaf(LeafGlobal {
                    g,
                    ty: elem,
                    conv: Conv::Plain,
                    arrayed: true,
                    builtin: Some(bi),
                })
            } else {
                let ctx = IoCtx {
                    array: Some(n),
                    per_primitive: p.qual == ParamQual::Primitives,
                    ..IoCtx::default()
                };
                match self.split_tree(elem, &p.io, &p.name, p.span, &mut out_loc, ctx) {
                    Some(node) => node,
                    None => continue,
                }
            };
            let id = self.split_nodes.len();
            self.split_nodes.push(node);
            self.mesh_outputs.insert((eid, p.local), id);
        }
    }

    /// The split outputs of one mesh output element type.
    fn split_tree(
        &mut self,
        ty: TyId,
        io: &IoAttrs,
        name: &str,
        span: Span,
        loc: &mut LocAlloc,
        ctx: IoCtx,
    ) -> Option<SplitNode> {
        if let TyKind::Struct(sid) = self.types().kind(ty).clone() {
            let fields = self.types().struct_def(sid).fields.clone();
            if !self.types().struct_def(sid).bases.is_empty() {
                self.error(
                    span,
                    format!("`{name}`: mesh outputs of derived structs are not supported"),
                );
                return None;
            }
            let mut kids = Vec::new();
            let mut k = 0;
            for f in &fields {
                let fio = Self::field_io(io, f, &mut k);
                let fname = format!("{name}.{}", f.name);
                kids.push(self.split_tree(f.ty, &fio, &fname, f.span, loc, ctx)?);
            }
            return Some(SplitNode::Struct(kids));
        }
        let leaf = Leaf {
            ty,
            io: io.clone(),
            name: name.to_string(),
            span,
        };
        let lg = self.make_leaf(&leaf, false, loc, ctx)?;
        // The body writes the elements in place; members that need a conversion (a `bool`
        // varying, a built-in of another type, clip distances inside their shared array) are
        // written whole.
        Some(SplitNode::Leaf(lg))
    }

    /// Builds the wrapper of entry point `eid`. The wrapper, and what it makes that no
    /// parameter or return value claims, are declared where the entry point is.
    pub fn lower_entry(&mut self, eid: FuncId, stage: Stage) {
        let mark = self.item_mark();
        self.lower_entry_wrapper(eid, stage);
        let at = self.p.func(eid).span;
        self.declare_new_items(mark, at);
    }

    /// [`Lower::lower_entry`] without the declaration positions.
    fn lower_entry_wrapper(&mut self, eid: FuncId, stage: Stage) {
        self.stage = stage;
        let fd = self.p.func(eid);
        let Some(&body) = self.funcs.get(&eid) else {
            return;
        };
        let void = self.m.void_type();
        let wrapper = self.m.add_func(&fd.name, void, &[]);
        let st = self.m.imm(stage.to_u32());
        let nm = self.m.const_string(&fd.name);
        self.m.decorate(wrapper.id(), Op::EntryPoint, &[st, nm]);
        if !self.stage_modes(wrapper.id(), eid, stage) {
            return;
        }
        let Some(entry) = wrapper.entry(&self.m) else {
            return;
        };
        self.f = Some(FnState {
            func: wrapper,
            entry,
            cur: Some(entry),
            locals: Vec::new(),
            precise: Vec::new(),
            targets: Vec::new(),
            branch_depth: 0,
            declared_depth: FxHashMap::default(),
            hir: None,
            alias_depth: FxHashMap::default(),
            ambiguous: rustc_hash::FxHashSet::default(),
        });
        // The wrapper's glue stands for the entry point's declaration.
        let outer = self.positions.enter_construct(&self.m, fd.span);
        if let Some(init) = self.init_fn {
            self.bld().call(init.id(), &[]);
        }
        let mut in_loc = LocAlloc::default();
        let mut out_loc = LocAlloc::default();
        let mut pcf = None;
        if stage == Stage::Hull
            && let Some(f) = self.patch_constant_func(eid)
        {
            pcf = Some(f);
        }
        // Explicit locations (`SV_TargetN`, `[[vk::location(n)]]`) first, so automatic ones
        // avoid them; the patch-constant function's too.
        let mut decls: Vec<&ParamDef> = fd.params.iter().collect();
        if let Some(f) = pcf {
            decls.extend(self.p.func(f).params.iter());
        }
        for p in decls {
            let kind = self.entry_param(eid, p).unwrap_or(EntryParam::Io);
            let ty = match (kind, self.types().kind(p.ty)) {
                (EntryParam::Arrayed(_), TyKind::Array(e, _)) => *e,
                (EntryParam::Io, _) => p.ty,
                _ => continue,
            };
            if p.qual == ParamQual::OutputPatch && stage == Stage::Hull {
                continue;
            }
            if p.dir != ParamDir::Out {
                self.explicit_locations(ty, &p.io, true, &mut in_loc);
            }
            if p.dir != ParamDir::In {
                self.explicit_locations(ty, &p.io, false, &mut out_loc);
            }
        }
        if !self.types().is_void(fd.ret) {
            self.explicit_locations(fd.ret, &fd.ret_io, false, &mut out_loc);
        }
        if let Some(f) = pcf {
            let pf = self.p.func(f);
            if !self.types().is_void(pf.ret) {
                self.explicit_locations(pf.ret, &pf.ret_io, false, &mut out_loc);
            }
        }
        // Hull outputs and domain inputs: alphabetical locations (DXC's rule).
        if stage == Stage::Hull {
            let mut decls: Vec<(TyId, &IoAttrs, &str, bool)> = Vec::new();
            if !self.types().is_void(fd.ret) {
                decls.push((fd.ret, &fd.ret_io, "out", false));
            }
            if let Some(f) = pcf {
                let pf = self.p.func(f);
                if !self.types().is_void(pf.ret) {
                    decls.push((pf.ret, &pf.ret_io, "patch", true));
                }
                for p in &pf.params {
                    if p.dir != ParamDir::In {
                        decls.push((p.ty, &p.io, &p.name, true));
                    }
                }
            }
            self.preassign_alphabetically(&decls, false, &mut out_loc);
        }
        if stage == Stage::Domain {
            let mut decls: Vec<(TyId, &IoAttrs, &str, bool)> = Vec::new();
            for p in &fd.params {
                if p.dir == ParamDir::Out {
                    continue;
                }
                let (ty, patch) = match (self.entry_param(eid, p), self.types().kind(p.ty)) {
                    (Some(EntryParam::Arrayed(_)), TyKind::Array(e, _)) => (*e, false),
                    _ => (p.ty, true),
                };
                decls.push((ty, &p.io, &p.name, patch));
            }
            self.preassign_alphabetically(&decls, true, &mut in_loc);
        }
        let mut inputs = InputCache::default();
        let (args, outs) = self.entry_args(eid, stage, &mut in_loc, &mut inputs);
        let r = self.bld().call(body.id(), &args);
        let system_only = matches!(stage, Stage::Compute | Stage::Amplification | Stage::Mesh)
            || is_ray_tracing(stage);
        if !self.types().is_void(fd.ret) {
            if system_only {
                self.error(
                    fd.span,
                    format!("a {} entry point returns nothing", stage_name(stage)),
                );
            } else if stage == Stage::Hull {
                self.hull_outputs(eid, r, pcf, &mut out_loc, &mut in_loc, &mut inputs);
            } else {
                self.write_output(
                    r,
                    fd.ret,
                    &fd.ret_io,
                    "out",
                    fd.span,
                    &mut out_loc,
                    IoCtx::default(),
                    None,
                    &mut None,
                );
            }
        } else if stage == Stage::Hull {
            self.hull_outputs(eid, r, pcf, &mut out_loc, &mut in_loc, &mut inputs);
        }
        for (tmp, p) in outs {
            if system_only {
                self.error(
                    p.span,
                    format!("a {} entry point has no outputs", stage_name(stage)),
                );
                continue;
            }
            let v = self.bld().load(tmp);
            self.write_output(
                v,
                p.ty,
                &p.io,
                &p.name,
                p.span,
                &mut out_loc,
                IoCtx::default(),
                None,
                &mut None,
            );
        }
        if self.reachable_now() {
            self.bld().ret(None);
        }
        self.seal_blocks(wrapper);
        self.positions.leave_construct(&self.m, outer);
        self.f = None;
    }

    /// The arguments of the body call (reading the inputs), and the `out`/`inout`
    /// temporaries to write back.
    fn entry_args(
        &mut self,
        eid: FuncId,
        stage: Stage,
        in_loc: &mut LocAlloc,
        inputs: &mut InputCache,
    ) -> (Vec<InstId>, Vec<(InstId, &'p ParamDef)>) {
        let fd = self.p.func(eid);
        let mut args = Vec::new();
        let mut outs: Vec<(InstId, &ParamDef)> = Vec::new();
        for p in &fd.params {
            let kind = self.entry_param(eid, p).unwrap_or(EntryParam::Io);
            match kind {
                EntryParam::Stream | EntryParam::MeshOutput => continue,
                EntryParam::RayPointer(space) => {
                    let g = self.entry_ray_global(eid, space, p.ty);
                    args.push(g);
                    continue;
                }
                EntryParam::HitAttributes => {
                    let g = self.entry_ray_global(eid, AddressSpace::HitAttribute, p.ty);
                    let v = self.bld().load(g);
                    args.push(v);
                    continue;
                }
                EntryParam::TaskPayload => {
                    let g = self.mesh_payload_global(p.ty);
                    let v = self.bld().load(g);
                    args.push(v);
                    continue;
                }
                EntryParam::Arrayed(_) | EntryParam::Io => {}
            }
            if p.uniform || self.types().is_resource(p.ty) {
                self.error(
                    p.span,
                    format!(
                        "the entry-point parameter `{}` is `uniform` or a resource; declare it as a global instead",
                        p.name
                    ),
                );
                continue;
            }
            if matches!(self.types().kind(p.ty), TyKind::RayQuery(_)) {
                self.error(
                    p.span,
                    format!(
                        "the entry-point parameter `{}` cannot be a ray query",
                        p.name
                    ),
                );
                continue;
            }
            // A domain shader's inputs other than the control points and system values
            // are the patch constants.
            let patch = stage == Stage::Domain && kind == EntryParam::Io;
            match p.dir {
                ParamDir::In => {
                    let v = self.entry_input(p, kind, patch, in_loc, inputs);
                    args.push(v);
                }
                ParamDir::Out | ParamDir::InOut => {
                    if let EntryParam::Arrayed(_) = kind {
                        self.error(
                            p.span,
                            format!("`{}`: per-vertex inputs are `in` parameters", p.name),
                        );
                        continue;
                    }
                    let t = self.ir_ty(p.ty);
                    let tmp = self.new_var(t);
                    if p.dir == ParamDir::InOut {
                        let v = self.entry_input(p, kind, patch, in_loc, inputs);
                        self.bld().store(tmp, v);
                    }
                    args.push(tmp);
                    outs.push((tmp, p));
                }
            }
        }
        (args, outs)
    }

    /// Reads one entry-point input parameter (once per semantic or per patch type: the
    /// hull shader's patch-constant function reuses what the control-point function read).
    fn entry_input(
        &mut self,
        p: &ParamDef,
        kind: EntryParam,
        patch: bool,
        loc: &mut LocAlloc,
        inputs: &mut InputCache,
    ) -> InstId {
        let key = match (kind, &p.io.semantic) {
            (EntryParam::Arrayed(_), _) => Some(format!("patch:{}", p.ty.0)),
            (_, Some(sem)) if !matches!(self.types().kind(p.ty), TyKind::Struct(_)) => {
                Some(format!("{}{}:{}", sem.upper(), sem.index, p.ty.0))
            }
            _ => None,
        };
        if let Some(k) = &key
            && let Some(&v) = inputs.values.get(k)
        {
            return v;
        }
        let v = match (kind, self.types().kind(p.ty).clone()) {
            (EntryParam::Arrayed(n), TyKind::Array(e, _)) => self.read_input(
                e,
                &p.io,
                &p.name,
                p.span,
                loc,
                IoCtx {
                    array: Some(n),
                    ..IoCtx::default()
                },
            ),
            _ => self.read_input(
                p.ty,
                &p.io,
                &p.name,
                p.span,
                loc,
                IoCtx {
                    patch,
                    ..IoCtx::default()
                },
            ),
        };
        if let Some(k) = key {
            inputs.values.insert(k, v);
        }
        v
    }

    /// A mesh shader's payload global (`task_payload`), one per payload type.
    fn mesh_payload_global(&mut self, ty: TyId) -> InstId {
        let t = self.ir_ty(ty);
        if let Some(&g) = self.mesh_payloads.get(&t) {
            return g;
        }
        let g = self
            .m
            .add_global("payload", AddressSpace::TaskPayload, t, None)
            .id();
        self.mesh_payloads.insert(t, g);
        g
    }

    /// The patch-constant function a hull entry point names.
    fn patch_constant_func(&mut self, eid: FuncId) -> Option<FuncId> {
        let (name, span) = self.p.func(eid).attrs.patch_constant_func.clone()?;
        let found = self
            .p
            .funcs
            .iter()
            .enumerate()
            .find(|(_, f)| f.name == name && f.body.is_some() && f.method_of.is_none())
            .map(|(i, _)| FuncId(i as u32));
        if found.is_none() {
            self.error(
                span,
                format!("the patch-constant function `{name}` is not defined"),
            );
        }
        found
    }

    /// A hull entry point after its body: the control point written at
    /// `SV_OutputControlPointID`, a barrier, and, in invocation 0, the patch-constant
    /// function with its results written per patch.
    fn hull_outputs(
        &mut self,
        eid: FuncId,
        r: InstId,
        pcf: Option<FuncId>,
        out_loc: &mut LocAlloc,
        in_loc: &mut LocAlloc,
        inputs: &mut InputCache,
    ) {
        let fd = self.p.func(eid);
        let n = fd.attrs.output_control_points.unwrap_or(1);
        let id = self.invocation_id(inputs);
        let mut leaves = Vec::new();
        if !self.types().is_void(fd.ret) {
            self.write_output(
                r,
                fd.ret,
                &fd.ret_io,
                "out",
                fd.span,
                out_loc,
                IoCtx {
                    array: Some(n),
                    ..IoCtx::default()
                },
                Some(id),
                &mut Some(&mut leaves),
            );
        }
        let Some(pcf) = pcf else {
            return;
        };
        let Some(&pfunc) = self.funcs.get(&pcf) else {
            return;
        };
        self.bld().barrier(BarrierFlags::GROUP_SYNC);
        let zero = self.m.const_u32(0);
        let first = self.bld().cmp(Op::Eq, id, zero);
        let then = self.new_block();
        let merge = self.new_block();
        self.bld().if_else(first, then, merge, merge);
        self.switch_to(then);
        let pd = self.p.func(pcf);
        let mut args = Vec::new();
        let mut outs = Vec::new();
        for p in &pd.params {
            if p.qual == ParamQual::OutputPatch {
                let ok = matches!(self.types().kind(p.ty), TyKind::Array(e, k) if *e == fd.ret && *k == n);
                if !ok {
                    self.error(
                        p.span,
                        format!(
                            "`{}`: the patch-constant function's `OutputPatch` must hold the \
                             hull shader's {n} control points of type `{}`",
                            p.name,
                            self.types().name(fd.ret)
                        ),
                    );
                    let t = self.ir_ty(p.ty);
                    args.push(self.m.undef(t));
                    continue;
                }
                let mut elems = Vec::new();
                for v in 0..n {
                    let i = self.m.const_u32(v);
                    let mut it = leaves.iter();
                    elems.push(self.read_back(fd.ret, &mut it, i));
                }
                let t = self.ir_ty(p.ty);
                args.push(self.construct(t, &elems));
                continue;
            }
            let kind = match (p.qual, self.types().kind(p.ty)) {
                (ParamQual::InputPatch, TyKind::Array(_, k)) => EntryParam::Arrayed(*k),
                _ => EntryParam::Io,
            };
            match p.dir {
                ParamDir::In => {
                    let v = self.entry_input(p, kind, false, in_loc, inputs);
                    args.push(v);
                }
                _ => {
                    let t = self.ir_ty(p.ty);
                    let tmp = self.new_var(t);
                    if p.dir == ParamDir::InOut {
                        let v = self.entry_input(p, kind, false, in_loc, inputs);
                        self.bld().store(tmp, v);
                    }
                    args.push(tmp);
                    outs.push((tmp, p));
                }
            }
        }
        let pc = self.bld().call(pfunc.id(), &args);
        let patch = IoCtx {
            patch: true,
            ..IoCtx::default()
        };
        if !self.types().is_void(pd.ret) {
            self.write_output(
                pc, pd.ret, &pd.ret_io, "patch", pd.span, out_loc, patch, None, &mut None,
            );
        }
        for (tmp, p) in outs {
            let v = self.bld().load(tmp);
            self.write_output(
                v, p.ty, &p.io, &p.name, p.span, out_loc, patch, None, &mut None,
            );
        }
        self.bld().br(merge, &[]);
        self.switch_to(merge);
    }

    /// The hull shader's invocation (control point) id: the input the entry point read, or
    /// a built-in input of its own.
    fn invocation_id(&mut self, inputs: &mut InputCache) -> InstId {
        if let Some(&v) = inputs.invocation_id.as_ref() {
            return v;
        }
        for (k, &v) in &inputs.values {
            if k.starts_with("SV_OUTPUTCONTROLPOINTID")
                && self.m.ty(v).and_then(|t| self.m.try_op(t)) == Some(Op::U32)
            {
                inputs.invocation_id = Some(v);
                return v;
            }
        }
        let g = self.builtin_input(BuiltIn::InvocationId);
        let v = self.bld().load(g);
        inputs.invocation_id = Some(v);
        v
    }

    /// A built-in input global of the SPIR-V type of `b` (made once per module), for the
    /// intrinsics that read system values and for the wrapper's own needs.
    pub(crate) fn builtin_input(&mut self, b: BuiltIn) -> InstId {
        if let Some(&g) = self.builtin_inputs.get(&b.to_u32()) {
            return g;
        }
        let f = self.m.f32_type();
        let u = self.m.u32_type();
        let t = match builtin_shape(b) {
            BuiltinShape::Float4 => self.m.vector_type(f, 4),
            BuiltinShape::Float3 => self.m.vector_type(f, 3),
            BuiltinShape::Float => f,
            BuiltinShape::Uint3 => self.m.vector_type(u, 3),
            BuiltinShape::Bool => self.m.bool_type(),
            _ => u,
        };
        let t = match b {
            BuiltIn::ObjectToWorld | BuiltIn::WorldToObject => self.m.matrix_type(f, 4, 3),
            BuiltIn::RayTmin | BuiltIn::RayTmax => f,
            BuiltIn::WorldRayOrigin
            | BuiltIn::WorldRayDirection
            | BuiltIn::ObjectRayOrigin
            | BuiltIn::ObjectRayDirection => self.m.vector_type(f, 3),
            _ => t,
        };
        let g = self
            .m
            .add_global(
                &format!("in.var.{}", b.spelling()),
                AddressSpace::Input,
                t,
                None,
            )
            .id();
        let bv = self.m.imm(b.to_u32());
        self.m.decorate(g, Op::BuiltinDeco, &[bv]);
        self.builtin_inputs.insert(b.to_u32(), g);
        g
    }

    /// The execution-mode decorations of an entry point of `stage`, from the function's
    /// attributes and parameters; false after an error.
    fn stage_modes(&mut self, w: InstId, eid: FuncId, stage: Stage) -> bool {
        let fd = self.p.func(eid);
        let at = fd.attrs.span.unwrap_or(fd.span);
        let before = self.diags.iter().filter(|d| d.is_error()).count();
        let advise = |lw: &mut Self, what: &str, why: &str| {
            lw.diags.push(
                oneshader_ir::Diagnostic::warning(
                    "OSH1025",
                    format!(
                        "the {} entry point `{}` has no `{what}`; {why}",
                        stage_name(stage),
                        fd.name
                    ),
                )
                .with_span(at),
            );
        };
        let need = |lw: &mut Self, what: &str| {
            lw.diags.push(
                oneshader_ir::Diagnostic::error(
                    "OSH1025",
                    format!(
                        "the {} entry point `{}` needs `{what}`",
                        stage_name(stage),
                        fd.name
                    ),
                )
                .with_span(at),
            );
        };
        match stage {
            Stage::Compute | Stage::Mesh | Stage::Amplification => {
                let [x, y, z] = match fd.attrs.numthreads {
                    Some(n) => n,
                    None if stage == Stage::Compute => {
                        // DXC requires the attribute; glslang defaults to one thread.
                        self.diags.push(
                            oneshader_ir::Diagnostic::warning(
                                "OSH1025",
                                format!(
                                    "the compute entry point `{}` has no `[numthreads(x, y, z)]`; \
                                     using (1, 1, 1)",
                                    fd.name
                                ),
                            )
                            .with_span(fd.span),
                        );
                        [1, 1, 1]
                    }
                    None => {
                        need(self, "[numthreads(x, y, z)]");
                        [1, 1, 1]
                    }
                };
                self.m.decorate_imm(w, Op::NumThreads, &[x, y, z]);
                if stage == Stage::Mesh {
                    self.mesh_modes(w, eid);
                }
            }
            Stage::Fragment if fd.attrs.early_depth_stencil => {
                self.m.decorate(w, Op::EarlyFragmentTests, &[]);
            }
            Stage::Geometry => {
                let prim = fd.params.iter().find_map(|p| match p.qual {
                    ParamQual::Primitive(k) => Some((k, p)),
                    _ => None,
                });
                match prim {
                    Some((k, p)) => {
                        let want = k.input_vertices().unwrap_or(1);
                        match self.types().kind(p.ty) {
                            TyKind::Array(_, n) if *n == want => {}
                            // Nothing is read from an empty struct: the size does not matter
                            // (DXC accepts it).
                            TyKind::Array(e, _) if self.types().flat_count(*e) == 0 => {
                                self.diags.push(
                                    oneshader_ir::Diagnostic::warning(
                                        "OSH1025",
                                        format!(
                                            "the input primitive `{}` is `{}`: it has {want} \
                                             vertices",
                                            p.name,
                                            k.spelling()
                                        ),
                                    )
                                    .with_span(p.span),
                                );
                            }
                            _ => self.error(
                                p.span,
                                format!(
                                    "the input primitive `{}` is `{}`: declare it as an array \
                                     of {want} vertices",
                                    p.name,
                                    k.spelling()
                                ),
                            ),
                        }
                        let v = self.m.imm(k.to_u32());
                        self.m.decorate(w, Op::InputPrimitive, &[v]);
                    }
                    None => need(self, "an input primitive parameter (`triangle VSOut v[3]`)"),
                }
                let stream = fd
                    .params
                    .iter()
                    .find_map(|p| match self.types().kind(p.ty) {
                        TyKind::Stream(k, _) => Some(*k),
                        _ => None,
                    });
                match stream {
                    Some(k) => {
                        let out = match k {
                            StreamKind::Point => Primitive::Point,
                            StreamKind::Line => Primitive::LineStrip,
                            StreamKind::Triangle => Primitive::TriangleStrip,
                        };
                        let v = self.m.imm(out.to_u32());
                        self.m.decorate(w, Op::OutputPrimitive, &[v]);
                    }
                    None => need(
                        self,
                        "an output stream parameter (`inout TriangleStream<T> s`)",
                    ),
                }
                match fd.attrs.max_vertex_count {
                    Some(n) => {
                        self.m.decorate_imm(w, Op::MaxVertices, &[n]);
                    }
                    None => need(self, "[maxvertexcount(n)]"),
                }
                if let Some(n) = fd.attrs.instance {
                    self.m.decorate_imm(w, Op::Invocations, &[n]);
                }
            }
            Stage::Hull => {
                let elsewhere = "the domain shader must declare it (Vulkan takes the \
                                 tessellation modes from either stage)";
                match fd.attrs.domain {
                    Some(d) => {
                        let v = self.m.imm(d.to_u32());
                        self.m.decorate(w, Op::TessDomainDeco, &[v]);
                    }
                    None => advise(
                        self,
                        "[domain(\"tri\" | \"quad\" | \"isoline\")]",
                        elsewhere,
                    ),
                }
                self.tess_modes(w, eid, Some(elsewhere));
                match fd.attrs.output_control_points {
                    Some(n) => {
                        self.m.decorate_imm(w, Op::OutputControlPoints, &[n]);
                    }
                    None => need(self, "[outputcontrolpoints(n)]"),
                }
                if fd.attrs.patch_constant_func.is_none() {
                    need(self, "[patchconstantfunc(\"name\")]");
                }
            }
            Stage::Domain => {
                match fd.attrs.domain {
                    Some(d) => {
                        let v = self.m.imm(d.to_u32());
                        self.m.decorate(w, Op::TessDomainDeco, &[v]);
                    }
                    None => advise(
                        self,
                        "[domain(\"tri\" | \"quad\" | \"isoline\")]",
                        "the hull shader must declare it",
                    ),
                }
                // Optional: the hull shader's spacing and winding, repeated (a GLSL
                // tessellation evaluation shader always states them).
                self.tess_modes(w, eid, None);
            }
            _ => {}
        }
        self.inapplicable_attributes(eid, stage);
        self.diags.iter().filter(|d| d.is_error()).count() == before
    }

    /// Warns about each stage attribute of an entry point whose stage has no use for it
    /// (DXC ignores them too): written but without effect, it is named rather than dropped
    /// silently.
    fn inapplicable_attributes(&mut self, eid: FuncId, stage: Stage) {
        use Stage as S;
        let fd = self.p.func(eid);
        let at = fd.attrs.span.unwrap_or(fd.span);
        let a = &fd.attrs;
        let checks: [(&str, bool, &[Stage]); 9] = [
            (
                "numthreads",
                a.numthreads.is_some(),
                &[S::Compute, S::Mesh, S::Amplification],
            ),
            ("earlydepthstencil", a.early_depth_stencil, &[S::Fragment]),
            (
                "maxvertexcount",
                a.max_vertex_count.is_some(),
                &[S::Geometry],
            ),
            ("instance", a.instance.is_some(), &[S::Geometry]),
            ("domain", a.domain.is_some(), &[S::Hull, S::Domain]),
            (
                "partitioning",
                a.partitioning.is_some(),
                &[S::Hull, S::Domain],
            ),
            (
                "outputtopology",
                a.output_topology.is_some(),
                &[S::Hull, S::Domain, S::Mesh],
            ),
            (
                "outputcontrolpoints",
                a.output_control_points.is_some(),
                &[S::Hull],
            ),
            (
                "patchconstantfunc",
                a.patch_constant_func.is_some(),
                &[S::Hull],
            ),
        ];
        for (name, written, stages) in checks {
            if written && !stages.contains(&stage) {
                self.diags.push(
                    oneshader_ir::Diagnostic::warning(
                        "OSH1025",
                        format!(
                            "`[{name}]` has no effect on the {} entry point `{}`; it is ignored",
                            stage_name(stage),
                            fd.name
                        ),
                    )
                    .with_span(at),
                );
            }
        }
    }

    /// The tessellation spacing and winding of a hull entry point (and, when written, of a
    /// domain entry point that repeats its hull shader's). `elsewhere`: why a missing one is
    /// worth a warning (hull shaders), `None` when they are optional.
    fn tess_modes(&mut self, w: InstId, eid: FuncId, elsewhere: Option<&str>) {
        let fd = self.p.func(eid);
        let at = fd.attrs.span.unwrap_or(fd.span);
        let stage = if elsewhere.is_some() {
            Stage::Hull
        } else {
            Stage::Domain
        };
        let advise = |lw: &mut Self, what: &str, why: &str| {
            lw.diags.push(
                oneshader_ir::Diagnostic::warning(
                    "OSH1025",
                    format!(
                        "the {} entry point `{}` has no `{what}`; {why}",
                        stage_name(stage),
                        fd.name
                    ),
                )
                .with_span(at),
            );
        };
        match fd.attrs.partitioning {
            Some(Partitioning::Pow2) => self.diags.push(
                oneshader_ir::Diagnostic::error(
                    "OSH1025",
                    "`[partitioning(\"pow2\")]` has no Vulkan equivalent (integer, \
                     fractional_even and fractional_odd do)",
                )
                .with_span(at),
            ),
            Some(p) => {
                let v = self.m.imm(p.to_u32());
                self.m.decorate(w, Op::TessPartitioning, &[v]);
            }
            None => {
                if let Some(why) = elsewhere {
                    advise(self, "[partitioning(...)]", why);
                }
            }
        }
        let isoline = fd.attrs.domain == Some(TessDomain::Isoline);
        match fd.attrs.output_topology {
            Some(Primitive::Line) if !isoline => {
                // DXC and glslang accept it: no winding is declared.
                self.diags.push(
                    oneshader_ir::Diagnostic::warning(
                        "OSH1025",
                        "`[outputtopology(\"line\")]` fits isolines; the tessellator \
                         makes triangles for this domain, and no winding is declared",
                    )
                    .with_span(at),
                );
                let v = self.m.imm(Primitive::Line.to_u32());
                self.m.decorate(w, Op::OutputPrimitive, &[v]);
            }
            Some(t)
                if t == Primitive::Point
                    || (isoline && t == Primitive::Line)
                    || (!isoline
                        && matches!(t, Primitive::TriangleCw | Primitive::TriangleCcw)) =>
            {
                let v = self.m.imm(t.to_u32());
                self.m.decorate(w, Op::OutputPrimitive, &[v]);
            }
            Some(t) => self.diags.push(
                oneshader_ir::Diagnostic::error(
                    "OSH1025",
                    format!(
                        "`[outputtopology]` `{}` does not fit the domain (isolines make \
                         `line` or `point`, triangles and quads `triangle_cw`, \
                         `triangle_ccw` or `point`)",
                        t.spelling()
                    ),
                )
                .with_span(at),
            ),
            None => {
                if elsewhere.is_some() {
                    advise(
                        self,
                        "[outputtopology(...)]",
                        "the domain shader must declare the winding",
                    );
                }
            }
        }
    }

    /// A mesh entry point's output topology and vertex and primitive counts.
    fn mesh_modes(&mut self, w: InstId, eid: FuncId) {
        let fd = self.p.func(eid);
        let at = fd.attrs.span.unwrap_or(fd.span);
        match fd.attrs.output_topology {
            Some(t @ (Primitive::Point | Primitive::Line | Primitive::Triangle)) => {
                let v = self.m.imm(t.to_u32());
                self.m.decorate(w, Op::OutputPrimitive, &[v]);
            }
            _ => self.diags.push(
                oneshader_ir::Diagnostic::error(
                    "OSH1025",
                    format!(
                        "the mesh entry point `{}` needs `[outputtopology(\"point\" | \"line\" | \
                         \"triangle\")]`",
                        fd.name
                    ),
                )
                .with_span(at),
            ),
        }
        let count = |q: ParamQual| {
            fd.params
                .iter()
                .find(|p| p.qual == q)
                .and_then(|p| match self.types().kind(p.ty) {
                    TyKind::Array(_, n) => Some(*n),
                    _ => None,
                })
        };
        match (count(ParamQual::Vertices), count(ParamQual::Indices)) {
            (Some(v), Some(p)) => {
                self.m.decorate_imm(w, Op::MaxVertices, &[v]);
                self.m.decorate_imm(w, Op::MaxPrimitives, &[p]);
            }
            _ => self.diags.push(
                oneshader_ir::Diagnostic::error(
                    "OSH1025",
                    format!(
                        "the mesh entry point `{}` needs `out vertices` and `out indices` array \
                         parameters",
                        fd.name
                    ),
                )
                .with_span(at),
            ),
        }
    }
}

/// Inputs the wrapper read, for the hull shader's patch-constant function to reuse.
#[derive(Default)]
struct InputCache {
    values: FxHashMap<String, InstId>,
    invocation_id: Option<InstId>,
}
