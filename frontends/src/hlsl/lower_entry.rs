//! Lowering, part 3: the entry point. The HLSL entry function was lowered as `Name_body`;
//! this builds the wrapper `Name` (`fn() -> void`, `entry_point(stage, "Name")`,
//! `numthreads` for compute, `early_fragment_tests`), which calls `init_globals`, loads the
//! stage inputs from `input` globals, calls the body and stores the stage outputs to `output`
//! globals.
//!
//! Struct parameters and return values are flattened field by field; each leaf is a
//! `location(n)` varying (numbered in declaration order per direction, `[[vk::location]]`
//! overrides, `SV_TargetN` is location N) or a `builtin(...)` (see `semantics.rs`), with
//! `semantic("NAME", index)` for reflection and the interpolation decorations. Built-ins are
//! declared with the type SPIR-V wants and converted to the declared HLSL type; `bool`
//! varyings travel as `uint`.

use oneshader_ir::diag::Span;
use oneshader_ir::{AddressSpace, BuiltIn, InstId, Op, Stage};

use super::hir::*;
use super::lower::{FnState, Lower};
use super::semantics::{BuiltinShape, IoKind, builtin_shape, classify, vk_builtin};

/// The clip- or cull-distance declarations of one direction: (semantic index, float count)
/// each, and the array global they share once made.
type DistDecls = (Vec<(u32, u32)>, Option<InstId>);

/// Location numbering of one direction: explicit locations are reserved first.
#[derive(Default)]
struct LocAlloc {
    next: u32,
    taken: rustc_hash::FxHashSet<u32>,
    /// Locations given to a variable so far, with its name (duplicates are errors).
    used: rustc_hash::FxHashMap<u32, String>,
    /// Clip and cull distances by built-in: every declaration's (semantic index, float
    /// count), and the one array global they share once made.
    dist: rustc_hash::FxHashMap<u32, DistDecls>,
    /// Built-ins declared so far, with the declaration's name (duplicates are errors).
    builtins: rustc_hash::FxHashMap<u32, String>,
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
}

impl LocAlloc {
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

/// One flattened stage-IO leaf.
struct Leaf {
    ty: TyId,
    io: IoAttrs,
    name: String,
    span: Span,
}

impl<'p> Lower<'p> {
    /// Builds the entry wrapper.
    pub fn lower_entry(&mut self) {
        let eid = self.p.entry;
        let fd = self.p.func(eid);
        let Some(&body) = self.funcs.get(&eid) else {
            return;
        };
        let stage = self.p.stage;
        let void = self.m.void_type();
        let wrapper = self.m.add_func(&fd.name, void, &[]);
        let st = self.m.imm(stage.to_u32());
        let nm = self.m.const_string(&fd.name);
        self.m.decorate(wrapper.id(), Op::EntryPoint, &[st, nm]);
        match stage {
            Stage::Compute => {
                let [x, y, z] = match fd.attrs.numthreads {
                    Some(n) => n,
                    None => {
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
                };
                self.m
                    .decorate_imm(wrapper.id(), Op::NumThreads, &[x, y, z]);
            }
            Stage::Fragment if fd.attrs.early_depth_stencil => {
                self.m.decorate(wrapper.id(), Op::EarlyFragmentTests, &[]);
            }
            _ => {}
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
        });
        if let Some(init) = self.init_fn {
            self.bld().call(init.id(), &[]);
        }
        let mut in_loc = LocAlloc::default();
        let mut out_loc = LocAlloc::default();
        // Explicit locations (`SV_TargetN`, `[[vk::location(n)]]`) first, so automatic ones
        // avoid them.
        for p in &fd.params {
            if p.dir != ParamDir::Out {
                self.explicit_locations(p.ty, &p.io, true, &mut in_loc);
            }
            if p.dir != ParamDir::In {
                self.explicit_locations(p.ty, &p.io, false, &mut out_loc);
            }
        }
        self.explicit_locations(fd.ret, &fd.ret_io, false, &mut out_loc);
        let mut args = Vec::new();
        let mut outs: Vec<(InstId, &ParamDef)> = Vec::new();
        for p in &fd.params {
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
            match p.dir {
                ParamDir::In => {
                    let v = self.read_input(p.ty, &p.io, &p.name, p.span, &mut in_loc);
                    args.push(v);
                }
                ParamDir::Out | ParamDir::InOut => {
                    let t = self.ir_ty(p.ty);
                    let tmp = self.new_var(t);
                    if p.dir == ParamDir::InOut {
                        let v = self.read_input(p.ty, &p.io, &p.name, p.span, &mut in_loc);
                        self.bld().store(tmp, v);
                    }
                    args.push(tmp);
                    outs.push((tmp, p));
                }
            }
        }
        let r = self.bld().call(body.id(), &args);
        if !self.types().is_void(fd.ret) {
            if stage == Stage::Compute {
                self.error(fd.span, "a compute entry point returns nothing");
            } else {
                self.write_output(r, fd.ret, &fd.ret_io, "out", fd.span, &mut out_loc);
            }
        }
        for (tmp, p) in outs {
            if stage == Stage::Compute {
                self.error(p.span, "a compute entry point has no outputs");
                continue;
            }
            let v = self.bld().load(tmp);
            self.write_output(v, p.ty, &p.io, &p.name, p.span, &mut out_loc);
        }
        self.bld().ret(None);
        self.seal_blocks(wrapper);
        self.f = None;
    }

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

    fn read_input(
        &mut self,
        ty: TyId,
        io: &IoAttrs,
        name: &str,
        span: Span,
        loc: &mut LocAlloc,
    ) -> InstId {
        if let TyKind::Struct(sid) = self.types().kind(ty).clone() {
            let fields = self.types().struct_def(sid).fields.clone();
            let mut parts = Vec::new();
            let mut k = 0;
            for f in &fields {
                let fio = Self::field_io(io, f, &mut k);
                parts.push(self.read_input(f.ty, &fio, &format!("{name}.{}", f.name), f.span, loc));
            }
            return self.struct_value(sid, &parts);
        }
        let leaf = Leaf {
            ty,
            io: io.clone(),
            name: name.to_string(),
            span,
        };
        self.io_leaf(&leaf, true, loc, None).unwrap_or_else(|| {
            let t = self.ir_ty(ty);
            self.m.undef(t)
        })
    }

    fn write_output(
        &mut self,
        v: InstId,
        ty: TyId,
        io: &IoAttrs,
        name: &str,
        span: Span,
        loc: &mut LocAlloc,
    ) {
        if let TyKind::Struct(sid) = self.types().kind(ty).clone() {
            let fields = self.types().struct_def(sid).fields.clone();
            let mut k = 0;
            for (i, f) in fields.iter().enumerate() {
                let path = self.field_path(ty, i as u32);
                let x = self.bld().extract(v, &path);
                let fio = Self::field_io(io, f, &mut k);
                self.write_output(x, f.ty, &fio, &format!("{name}.{}", f.name), f.span, loc);
            }
            return;
        }
        let leaf = Leaf {
            ty,
            io: io.clone(),
            name: name.to_string(),
            span,
        };
        self.io_leaf(&leaf, false, loc, Some(v));
    }

    /// Reserves the explicit locations of an IO declaration tree.
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
            match classify(self.p.stage, input, &sem.upper(), sem.index) {
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

    /// Locations a varying of HLSL type `ty` occupies.
    fn location_count(&self, ty: TyId) -> u32 {
        match self.types().kind(ty) {
            TyKind::Scalar(s) | TyKind::Vector(s, _) => {
                let n = self.types().vec_len(ty).unwrap_or(1);
                if s.bits() == 64 && n > 2 { 2 } else { 1 }
            }
            TyKind::Matrix(_, r, _) => *r as u32,
            TyKind::Array(e, n) => self.location_count(*e) * n,
            _ => 1,
        }
    }

    /// Creates the global of one IO leaf; reads it (input) or writes `value` (output).
    fn io_leaf(
        &mut self,
        leaf: &Leaf,
        input: bool,
        loc: &mut LocAlloc,
        value: Option<InstId>,
    ) -> Option<InstId> {
        let stage = self.p.stage;
        let space = if input {
            AddressSpace::Input
        } else {
            AddressSpace::Output
        };
        let kind = if let Some(b) = &leaf.io.builtin {
            match vk_builtin(b) {
                Some(bi) => IoKind::Builtin(bi),
                None => {
                    self.error(leaf.span, format!("unknown `vk::builtin(\"{b}\")`"));
                    return None;
                }
            }
        } else {
            let what = if input { "input" } else { "output" };
            match &leaf.io.semantic {
                Some(sem) => match classify(stage, input, &sem.upper(), sem.index) {
                    Ok(k) => k,
                    Err(msg) if stage == Stage::Compute => {
                        self.diags.push(
                            oneshader_ir::Diagnostic::error("OSH1023", msg).with_span(sem.span),
                        );
                        return None;
                    }
                    Err(msg) => {
                        self.diags.push(
                            oneshader_ir::Diagnostic::warning(
                                "OSH1023",
                                format!("{msg}; it is passed as a user varying"),
                            )
                            .with_span(sem.span),
                        );
                        IoKind::Location
                    }
                },
                None if stage == Stage::Compute => {
                    self.diags.push(
                        oneshader_ir::Diagnostic::error(
                            "OSH1023",
                            format!(
                                "the compute-shader {what} `{}` needs a system-value semantic \
                                 (SV_DispatchThreadID, SV_GroupID, SV_GroupThreadID, SV_GroupIndex)",
                                leaf.name
                            ),
                        )
                        .with_span(leaf.span),
                    );
                    return None;
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
                    IoKind::Location
                }
            }
        };
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
        match kind {
            IoKind::Builtin(bi) => self.builtin_leaf(leaf, bi, space, &gname, value, loc),
            IoKind::Location | IoKind::Target(_) => {
                let (ir_t, is_bool) = self.varying_type(leaf.ty);
                let g = self.m.add_global(&gname, space, ir_t, None).id();
                let count = self.location_count(leaf.ty);
                let n = match (kind, leaf.io.location) {
                    (_, Some(l)) => l,
                    (IoKind::Target(t), None) => t,
                    _ => loc.next_free(count),
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
                self.io_decos(g, leaf, input);
                if input {
                    let v = self.bld().load(g);
                    Some(if is_bool {
                        let z = self.m.zero(ir_t);
                        self.bld().cmp(Op::Ne, v, z)
                    } else {
                        v
                    })
                } else {
                    let v = value?;
                    let v = if is_bool {
                        self.bld().convert(v, ir_t)
                    } else {
                        v
                    };
                    self.bld().store(g, v);
                    None
                }
            }
        }
    }

    /// The IR type of a varying; `bool` travels as `uint`.
    fn varying_type(&mut self, ty: TyId) -> (InstId, bool) {
        if self.types().scalar_of(ty) == Some(Scalar::Bool) {
            let n = self.types().vec_len(ty).unwrap_or(1);
            return (self.types_scalar_vec(Scalar::U32, n), true);
        }
        (self.ir_ty(ty), false)
    }

    fn io_decos(&mut self, g: InstId, leaf: &Leaf, input: bool) {
        if let Some(sem) = &leaf.io.semantic {
            let s = self.m.const_string(&sem.name);
            let i = self.m.imm(sem.index);
            self.m.decorate(g, Op::Semantic, &[s, i]);
        }
        // Interpolation applies to fragment inputs and the outputs that feed them.
        let applies = match self.p.stage {
            Stage::Fragment => input,
            Stage::Vertex => !input,
            _ => false,
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
        value: Option<InstId>,
        loc: &mut LocAlloc,
    ) -> Option<InstId> {
        let input = space == AddressSpace::Input;
        let ty = leaf.ty;
        let u = self.m.u32_type();
        let f = self.m.f32_type();
        let canon: Option<TyKind> = match builtin_shape(bi) {
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
            BuiltinShape::MaskArray | BuiltinShape::FloatArray => None,
        };
        let (ir_t, canon_ty) = match canon {
            Some(k) => {
                let ct = self.p.types.lookup(&k).unwrap_or(ty);
                (self.ir_ty(ct), Some(ct))
            }
            None => match builtin_shape(bi) {
                BuiltinShape::MaskArray => (self.m.array_type(u, 1), None),
                _ => {
                    let n = self.types().flat_count(ty).max(1);
                    (self.m.array_type(f, n), None)
                }
            },
        };
        // Clip and cull distances of every declaration share one array, each declaration at
        // its offset (ordered by semantic index), as DXC combines them.
        let is_dist = matches!(bi, BuiltIn::ClipDistance | BuiltIn::CullDistance);
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
                let g = self.m.add_global(&name, space, ir_t, None).id();
                let bv = self.m.imm(bi.to_u32());
                self.m.decorate(g, Op::BuiltinDeco, &[bv]);
                self.io_decos(g, leaf, input);
                if is_dist && let Some(d) = loc.dist.get_mut(&bi.to_u32()) {
                    d.1 = Some(g);
                }
                g
            }
        };
        if bi == BuiltIn::Position && !input && leaf.io.invariant {
            self.m.decorate(g, Op::Invariant, &[]);
        }
        match (canon_ty, builtin_shape(bi)) {
            (Some(ct), _) => {
                if input {
                    let mut v = self.bld().load(g);
                    if bi == BuiltIn::Position && self.opts.dx_position_w {
                        // D3D's SV_Position.w is 1/w.
                        let w = self.bld().extract(v, &[3]);
                        let one = self.m.const_f32(1.0);
                        let rw = self.bld().div(one, w);
                        v = self.bld().insert(v, rw, &[3]);
                    }
                    Some(self.coerce_io(v, ct, ty))
                } else {
                    let v = value?;
                    let mut v = self.coerce_io(v, ty, ct);
                    if bi == BuiltIn::Position && self.opts.invert_y {
                        let y = self.bld().extract(v, &[1]);
                        let ny = self.bld().neg(y);
                        v = self.bld().insert(v, ny, &[1]);
                    }
                    self.bld().store(g, v);
                    None
                }
            }
            (None, BuiltinShape::MaskArray) => {
                let z = self.m.const_u32(0);
                let p = self.bld().element_addr(g, z);
                let ut = self
                    .p
                    .types
                    .lookup(&TyKind::Scalar(Scalar::U32))
                    .unwrap_or(ty);
                if input {
                    let v = self.bld().load(p);
                    Some(self.coerce_io(v, ut, ty))
                } else {
                    let v = self.coerce_io(value?, ty, ut);
                    self.bld().store(p, v);
                    None
                }
            }
            _ => {
                // Clip and cull distances: an array of floats.
                let n = self.types().flat_count(ty).max(1);
                if input {
                    let mut leaves = Vec::new();
                    for i in 0..n {
                        let k = self.m.const_u32(dist_offset + i);
                        let p = self.bld().element_addr(g, k);
                        leaves.push((self.bld().load(p), Scalar::F32));
                    }
                    let mut it = leaves.into_iter();
                    Some(self.build(ty, &mut it))
                } else {
                    let v = value?;
                    let mut leaves = Vec::new();
                    self.leaves(v, ty, &mut leaves);
                    for (i, (x, s)) in leaves.into_iter().enumerate() {
                        let x = if s.concrete() != Scalar::F32 {
                            self.bld().convert(x, f)
                        } else {
                            x
                        };
                        let k = self.m.const_u32(dist_offset + i as u32);
                        let p = self.bld().element_addr(g, k);
                        self.bld().store(p, x);
                    }
                    None
                }
            }
        }
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
