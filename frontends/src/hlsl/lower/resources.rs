//! Lowering, part 2c: methods of textures, buffers and subpass inputs (the analysis side is
//! `sema/resources.rs`): texture reads with their optional operands and sparse status,
//! `GetDimensions`, sample positions, byte-address loads and stores split into 32-bit words.

use crate::hlsl::lower::Lower;
use crate::hlsl::lower::expr::root_global;
use crate::hlsl::sema::hir::*;
use oneshader_ir::layout::{LayoutRule, type_layout};
use oneshader_ir::{AddressSpace, AtomicOp, InstId, Op};

impl Lower<'_> {
    /// A [`ResMethod::TexRead`]: the IR read with its optional operands; a status output
    /// makes the result a `{u32 status, texel}` struct (sparse residency), whose status goes
    /// to the `out` argument.
    #[allow(clippy::too_many_arguments)]
    fn tex_read(
        &mut self,
        res: InstId,
        okind: &TyKind,
        read: TexRead,
        offsets: u8,
        clamp: bool,
        status: bool,
        args: &[Expr],
        e: &Expr,
    ) -> InstId {
        let rt = self.ir_ty(e.ty);
        let TyKind::Texture(shape, _, rw) = *okind else {
            return self.m.undef(rt);
        };
        let mut ops = vec![res];
        let mut k;
        if read == TexRead::Load {
            let loc = self.rvalue(&args[0]);
            k = 1;
            let sampled = !rw && !matches!(shape, TexShape::Buffer);
            if sampled && !shape.ms() {
                // The mip level is the last component of the location.
                let n = shape.coord_len() as u32;
                let coord = if n == 1 {
                    self.bld().extract(loc, &[0])
                } else {
                    let idx: Vec<u32> = (0..n).collect();
                    self.bld().shuffle(loc, loc, &idx)
                };
                let lod = self.bld().extract(loc, &[n]);
                ops.push(coord);
                ops.push(lod);
            } else if shape.ms() {
                ops.push(loc);
                ops.push(self.rvalue(&args[1]));
                k = 2;
            } else {
                ops.push(loc);
            }
        } else {
            let Some(s) = self.resource_ptr(&args[0]) else {
                return self.m.undef(rt);
            };
            ops.push(s);
            ops.push(self.rvalue(&args[1]));
            k = 2;
            if let TexRead::Gather(c) = read {
                ops.push(self.m.imm(c as u32));
            }
        }
        for _ in 0..read.fixed() {
            ops.push(self.rvalue(&args[k]));
            k += 1;
        }
        match offsets {
            0 if clamp => {
                // A clamp without an offset: a zero offset means none.
                let i = self.m.i32_type();
                let n = shape.offset_len().max(2) as u32;
                let t = self.m.vector_type(i, n);
                ops.push(self.m.zero(t));
            }
            0 => {}
            1 => {
                ops.push(self.rvalue(&args[k]));
                k += 1;
            }
            _ => {
                // Four offsets, one per gathered texel.
                let parts: Vec<InstId> = (0..4).map(|j| self.rvalue(&args[k + j])).collect();
                k += 4;
                let i = self.m.i32_type();
                let i2 = self.m.vector_type(i, 2);
                let arr = self.m.array_type(i2, 4);
                ops.push(self.construct(arr, &parts));
            }
        }
        if clamp {
            ops.push(self.rvalue(&args[k]));
            k += 1;
        }
        let op = match read {
            TexRead::Sample => Op::Sample,
            TexRead::SampleBias => Op::SampleBias,
            TexRead::SampleLevel => Op::SampleLevel,
            TexRead::SampleGrad => Op::SampleGrad,
            TexRead::SampleCmp => Op::SampleCmp,
            TexRead::SampleCmpLevelZero => Op::SampleCmpLevelZero,
            TexRead::SampleCmpLevel => Op::SampleCmpLevel,
            TexRead::SampleCmpBias => Op::SampleCmpBias,
            TexRead::SampleCmpGrad => Op::SampleCmpGrad,
            TexRead::Gather(_) => Op::Gather,
            TexRead::GatherCmp => Op::GatherCmp,
            TexRead::Load => Op::TextureLoad,
        };
        if !status {
            return self.texel_read(op, rt, &ops);
        }
        let sparse = self.sparse_struct(rt);
        let r = self.bld().texture_op(op, sparse, &ops);
        let code = self.bld().extract(r, &[0]);
        let place = &args[k];
        let pl = self.place(place);
        // Sema interned `uint` when it checked the status argument.
        let code = match self.find_type(&TyKind::Scalar(Scalar::U32)) {
            Some(uint) => self.coerce(code, uint, place.ty),
            None => code,
        };
        self.store_place(pl, code);
        self.bld().extract(r, &[1])
    }

    /// A texture read of texel type `rt`. Textures of `bool` hold `uint` texels (as DXC
    /// declares them): the read is of the `uint` shape and the result is `texel != 0`.
    pub(super) fn texel_read(&mut self, op: Op, rt: InstId, ops: &[InstId]) -> InstId {
        let elem = self.m.scalar_of(rt).unwrap_or(rt);
        if self.m.op(elem) != Op::Bool {
            return self.bld().texture_op(op, rt, ops);
        }
        let u = self.m.u32_type();
        let ut = match self.m.op(rt) {
            Op::Vector => {
                let n = self.m.vector_len(rt).unwrap_or(1);
                self.m.vector_type(u, n)
            }
            _ => u,
        };
        let r = self.bld().texture_op(op, ut, ops);
        let zero = self.m.zero(ut);
        self.bld().cmp(Op::Ne, r, zero)
    }

    /// A value stored to a texel: `bool` texels are stored as `uint` 1 or 0 (the texture's
    /// type, [`Lower::texel_read`]); anything else unchanged.
    pub(super) fn bool_texel(&mut self, v: InstId) -> InstId {
        let Some(t) = self.m.ty(v) else { return v };
        let elem = self.m.scalar_of(t).unwrap_or(t);
        if self.m.op(elem) != Op::Bool {
            return v;
        }
        let u = self.m.u32_type();
        let (ut, n) = match self.m.op(t) {
            Op::Vector => {
                let n = self.m.vector_len(t).unwrap_or(1);
                (self.m.vector_type(u, n), n)
            }
            _ => (u, 1),
        };
        let one = self.m.const_int(u, 1);
        let ones = if n == 1 {
            one
        } else {
            self.m.const_composite(ut, &vec![one; n as usize])
        };
        let zero = self.m.zero(ut);
        self.bld().select(v, ones, zero)
    }

    /// The `{u32 status, T texel}` struct of a sparse read of texel type `texel` (one per
    /// texel type).
    fn sparse_struct(&mut self, texel: InstId) -> InstId {
        if let Some(&s) = self.sparse_structs.get(&texel) {
            return s;
        }
        let u = self.m.u32_type();
        let s = self.m.add_struct("SparseResidencyStruct", &[]);
        self.m.add_field(s, "status", u);
        self.m.add_field(s, "texel", texel);
        self.sparse_structs.insert(texel, s.id());
        s.id()
    }

    pub(in crate::hlsl) fn method(
        &mut self,
        m: ResMethod,
        obj: &Expr,
        args: &[Expr],
        e: &Expr,
    ) -> InstId {
        if matches!(
            m,
            ResMethod::StreamAppend
                | ResMethod::StreamRestart
                | ResMethod::RayQueryInit
                | ResMethod::RayQueryProceed
                | ResMethod::RayQueryAbort
                | ResMethod::RayQueryCommitTriangle
                | ResMethod::RayQueryCommitProcedural
                | ResMethod::RayQueryGet(..)
        ) {
            return self.stage_method(m, obj, args, e);
        }
        let rt = self.ir_ty(e.ty);
        let void = self.m.void_type();
        let undef_void = self.m.undef(void);
        let Some(res) = self.resource_ptr(obj) else {
            return self.m.undef(rt);
        };
        let okind = self.types().kind(obj.ty).clone();
        match m {
            // Handled above.
            ResMethod::StreamAppend
            | ResMethod::StreamRestart
            | ResMethod::RayQueryInit
            | ResMethod::RayQueryProceed
            | ResMethod::RayQueryAbort
            | ResMethod::RayQueryCommitTriangle
            | ResMethod::RayQueryCommitProcedural
            | ResMethod::RayQueryGet(..) => self.m.undef(rt),
            ResMethod::TexRead {
                read,
                offsets,
                clamp,
                status,
            } => self.tex_read(res, &okind, read, offsets, clamp, status, args, e),
            ResMethod::Sample
            | ResMethod::SampleBias
            | ResMethod::SampleLevel
            | ResMethod::SampleGrad
            | ResMethod::SampleCmp
            | ResMethod::SampleCmpLevelZero
            | ResMethod::GatherCmp => {
                let Some(s) = self.resource_ptr(&args[0]) else {
                    return self.m.undef(rt);
                };
                let mut ops = vec![res, s];
                for a in &args[1..] {
                    ops.push(self.rvalue(a));
                }
                let op = match m {
                    ResMethod::Sample => Op::Sample,
                    ResMethod::SampleBias => Op::SampleBias,
                    ResMethod::SampleLevel => Op::SampleLevel,
                    ResMethod::SampleGrad => Op::SampleGrad,
                    ResMethod::SampleCmp => Op::SampleCmp,
                    ResMethod::SampleCmpLevelZero => Op::SampleCmpLevelZero,
                    _ => Op::GatherCmp,
                };
                self.bld().texture_op(op, rt, &ops)
            }
            ResMethod::Gather(c) => {
                let Some(s) = self.resource_ptr(&args[0]) else {
                    return self.m.undef(rt);
                };
                let coord = self.rvalue(&args[1]);
                let comp = self.m.imm(c as u32);
                let mut ops = vec![res, s, coord, comp];
                if let Some(o) = args.get(2) {
                    ops.push(self.rvalue(o));
                }
                self.bld().texture_op(Op::Gather, rt, &ops)
            }
            ResMethod::CalculateLod | ResMethod::CalculateLodUnclamped => {
                let Some(s) = self.resource_ptr(&args[0]) else {
                    return self.m.undef(rt);
                };
                let coord = self.rvalue(&args[1]);
                let f = self.m.f32_type();
                let f2 = self.m.vector_type(f, 2);
                let q = self.bld().texture_op(Op::QueryLod, f2, &[res, s, coord]);
                let k = if m == ResMethod::CalculateLod { 0 } else { 1 };
                self.bld().extract(q, &[k])
            }
            ResMethod::Load => match okind {
                TyKind::Texture(shape, _, rw) => {
                    let loc = self.rvalue(&args[0]);
                    let sampled = !rw && !matches!(shape, TexShape::Buffer);
                    let mut ops = vec![res];
                    if sampled && !shape.ms() {
                        // The mip level is the last component of the location.
                        let n = shape.coord_len() as u32;
                        let coord = if n == 1 {
                            self.bld().extract(loc, &[0])
                        } else {
                            let idx: Vec<u32> = (0..n).collect();
                            self.bld().shuffle(loc, loc, &idx)
                        };
                        let lod = self.bld().extract(loc, &[n]);
                        ops.push(coord);
                        ops.push(lod);
                        if let Some(o) = args.get(1) {
                            ops.push(self.rvalue(o));
                        }
                    } else if shape.ms() {
                        ops.push(loc);
                        ops.push(self.rvalue(&args[1]));
                        if let Some(o) = args.get(2) {
                            ops.push(self.rvalue(o));
                        }
                    } else {
                        ops.push(loc);
                    }
                    self.texel_read(Op::TextureLoad, rt, &ops)
                }
                TyKind::Buffer(..) => {
                    let addr = self.rvalue(&args[0]);
                    self.byte_load(res, addr, e.ty, e)
                }
                _ => self.m.undef(rt),
            },
            ResMethod::Store => {
                let addr = self.rvalue(&args[0]);
                let v = self.rvalue(&args[1]);
                self.byte_store(res, addr, v, args[1].ty, e);
                undef_void
            }
            ResMethod::SubpassLoad => {
                let i = self.m.i32_type();
                let i2 = self.m.vector_type(i, 2);
                let z = self.m.zero(i2);
                let mut ops = vec![res, z];
                if let Some(s) = args.first() {
                    ops.push(self.rvalue(s));
                }
                self.bld().texture_op(Op::TextureLoad, rt, &ops)
            }
            ResMethod::GetDimensions => {
                self.get_dimensions(res, &okind, args);
                undef_void
            }
            ResMethod::Append
            | ResMethod::Consume
            | ResMethod::IncrementCounter
            | ResMethod::DecrementCounter => {
                let z = self.m.const_u32(0);
                let cp = match root_global(obj) {
                    Some(g) => {
                        let Some(&c) = self.counters.get(&g) else {
                            self.error(e.span, "this buffer has no counter");
                            return self.m.undef(rt);
                        };
                        self.bld().element_addr(c, z)
                    }
                    // An element of the resource heap: the same element of its counters.
                    None => match self.heap_element(res) {
                        Some(index) => {
                            let Some(c) = self.heap_counter() else {
                                return self.m.undef(rt);
                            };
                            let buffer = self.bld().element_addr(c, index);
                            self.bld().element_addr(buffer, z)
                        }
                        None => {
                            self.error(
                                e.span,
                                "a buffer counter needs the buffer global itself or an element \
                                 of `ResourceDescriptorHeap`",
                            );
                            return self.m.undef(rt);
                        }
                    },
                };
                let delta = match m {
                    ResMethod::Append | ResMethod::IncrementCounter => 1u32,
                    _ => u32::MAX,
                };
                let d = self.m.const_u32(delta);
                let old = self.bld().atomic_rmw(AtomicOp::Add, cp, d);
                match m {
                    ResMethod::IncrementCounter => old,
                    ResMethod::DecrementCounter => {
                        let one = self.m.const_u32(1);
                        self.bld().sub(old, one)
                    }
                    ResMethod::Append => {
                        let v = self.rvalue(&args[0]);
                        let p = self.bld().element_addr(res, old);
                        self.bld().store(p, v);
                        undef_void
                    }
                    _ => {
                        let one = self.m.const_u32(1);
                        let idx = self.bld().sub(old, one);
                        let p = self.bld().element_addr(res, idx);
                        self.bld().load(p)
                    }
                }
            }
            ResMethod::Atomic(aop) => {
                let addr = self.rvalue(&args[0]);
                let two = self.m.const_u32(2);
                let idx = self.bld().shr(addr, two);
                let p = self.bld().element_addr(res, idx);
                let mut v = self.rvalue(&args[1]);
                let u = self.m.u32_type();
                let signed = self.m.ty(v) != Some(u);
                if signed {
                    if matches!(aop, AtomicOp::Min | AtomicOp::Max) {
                        self.error(
                            e.span,
                            "signed InterlockedMin/Max on a byte-address buffer is not supported",
                        );
                    }
                    v = self.bld().bitcast(v, u);
                }
                let old = self.bld().atomic_rmw(aop, p, v);
                if let Some(o) = args.get(2) {
                    let ut = self.find_type(&TyKind::Scalar(Scalar::U32)).unwrap_or(o.ty);
                    let old = self.coerce(old, ut, o.ty);
                    let pl = self.place(o);
                    self.store_place(pl, old);
                }
                undef_void
            }
            ResMethod::AtomicCmpXchg | ResMethod::AtomicCmpStore => {
                let addr = self.rvalue(&args[0]);
                let two = self.m.const_u32(2);
                let idx = self.bld().shr(addr, two);
                let p = self.bld().element_addr(res, idx);
                let c = self.rvalue(&args[1]);
                let v = self.rvalue(&args[2]);
                let old = self.bld().atomic_cmpxchg(p, c, v);
                if let Some(o) = args.get(3) {
                    let ut = self.find_type(&TyKind::Scalar(Scalar::U32)).unwrap_or(o.ty);
                    let old = self.coerce(old, ut, o.ty);
                    let pl = self.place(o);
                    self.store_place(pl, old);
                }
                undef_void
            }
            ResMethod::GetSamplePosition => self.sample_position(res, &args[0]),
            ResMethod::SampleCmpLevel => {
                self.error(e.span, "this texture method cannot be lowered");
                self.m.undef(rt)
            }
        }
    }

    /// `GetSamplePosition(i)`: the texture's sample count picks one of D3D's standard
    /// patterns (in sixteenths of a pixel), kept in one table `[1 sample, 2, 4, 8, 16]` so that
    /// the pattern of `n` samples starts at entry `n - 1`; a count without a standard pattern,
    /// or an index past it, gives `(0, 0)` (entry 0, the one-sample position).
    fn sample_position(&mut self, res: InstId, index: &Expr) -> InstId {
        const PATTERNS: [(i8, i8); 31] = [
            (0, 0),
            (4, 4),
            (-4, -4),
            (-2, -6),
            (6, -2),
            (-6, 2),
            (2, 6),
            (1, -3),
            (-1, 3),
            (5, 1),
            (-3, -5),
            (-5, 5),
            (-7, -1),
            (3, 7),
            (7, -7),
            (1, 1),
            (-1, -3),
            (-3, 2),
            (4, -1),
            (-5, -2),
            (2, 5),
            (5, 3),
            (3, -5),
            (-2, 6),
            (0, -7),
            (-4, -6),
            (-6, 4),
            (-8, 0),
            (7, -4),
            (6, 7),
            (-7, -8),
        ];
        let f = self.m.f32_type();
        let f2 = self.m.vector_type(f, 2);
        let table = match self.sample_positions {
            Some(t) => t,
            None => {
                let entries: Vec<InstId> = PATTERNS
                    .iter()
                    .map(|&(x, y)| {
                        let cx = self
                            .m
                            .const_float_bits(f, (x as f32 / 16.0).to_bits() as u64);
                        let cy = self
                            .m
                            .const_float_bits(f, (y as f32 / 16.0).to_bits() as u64);
                        self.m.const_composite(f2, &[cx, cy])
                    })
                    .collect();
                let arr = self.m.array_type(f2, PATTERNS.len() as u32);
                let init = self.m.const_composite(arr, &entries);
                let g = self.m.add_global(
                    "standard.sample.positions",
                    oneshader_ir::AddressSpace::Private,
                    arr,
                    Some(init),
                );
                self.sample_positions = Some(g.id());
                g.id()
            }
        };
        let u = self.m.u32_type();
        let count = self.bld().texture_op(Op::QuerySamples, u, &[res]);
        let i = self.rvalue(index);
        let i = self.bld().convert(i, u);
        let mut standard = None;
        for n in [1u32, 2, 4, 8, 16] {
            let k = self.m.const_u32(n);
            let is = self.bld().cmp(Op::Eq, count, k);
            standard = Some(match standard {
                None => is,
                Some(acc) => self.bld().or(acc, is),
            });
        }
        let in_range = self.bld().cmp(Op::Lt, i, count);
        let valid = match standard {
            Some(s) => self.bld().and(s, in_range),
            None => in_range,
        };
        let one = self.m.const_u32(1);
        let start = self.bld().sub(count, one);
        let at = self.bld().add(start, i);
        let zero = self.m.const_u32(0);
        let idx = self.bld().select(valid, at, zero);
        let p = self.bld().element_addr(table, idx);
        self.bld().load(p)
    }

    fn get_dimensions(&mut self, res: InstId, okind: &TyKind, args: &[Expr]) {
        let mip = matches!(args[0].kind, ExprKind::Const(ConstVal::Bool(true)));
        let outs = &args[1 + mip as usize..];
        let u = self.m.u32_type();
        let ut = self.find_type(&TyKind::Scalar(Scalar::U32));
        let mut values: Vec<InstId> = Vec::new();
        match okind {
            TyKind::Texture(shape, _, rw) => {
                let n = (shape.dims() + shape.arrayed() as u8
                    - matches!(shape, TexShape::Cube | TexShape::CubeArray) as u8)
                    as u32;
                let st = if n == 1 { u } else { self.m.vector_type(u, n) };
                let mut ops = vec![res];
                let sampled = !rw && !matches!(shape, TexShape::Buffer);
                if mip {
                    ops.push(self.rvalue(&args[1]));
                } else if sampled && !shape.ms() {
                    ops.push(self.m.const_u32(0));
                }
                let size = self.bld().texture_op(Op::QuerySize, st, &ops);
                for i in 0..n {
                    values.push(if n == 1 {
                        size
                    } else {
                        self.bld().extract(size, &[i])
                    });
                }
                if shape.ms() {
                    values.push(self.bld().texture_op(Op::QuerySamples, u, &[res]));
                } else if mip {
                    values.push(self.bld().texture_op(Op::QueryLevels, u, &[res]));
                }
            }
            TyKind::Buffer(kind, elem) => {
                let len = self.bld().array_length(res);
                match kind {
                    BufKind::ByteAddress | BufKind::RWByteAddress => {
                        let four = self.m.const_u32(4);
                        values.push(self.bld().mul(len, four));
                    }
                    _ => {
                        values.push(len);
                        let et = self.ir_ty(*elem);
                        let stride = type_layout(&self.m, et, LayoutRule::RelaxedStd430, false)
                            .map(|l| l.size.div_ceil(l.align.max(1)) * l.align.max(1))
                            .unwrap_or(4);
                        values.push(self.m.const_u32(stride));
                    }
                }
            }
            _ => {}
        }
        for (o, v) in outs.iter().zip(values) {
            let v = match ut {
                Some(ut) => self.coerce(v, ut, o.ty),
                None => v,
            };
            let pl = self.place(o);
            self.store_place(pl, v);
        }
    }

    /// `Load`/`Load<T>` from a byte-address buffer at byte offset `addr`.
    fn byte_load(&mut self, buf: InstId, addr: InstId, ty: TyId, e: &Expr) -> InstId {
        let t = self.ir_ty(ty);
        match self.types().kind(ty).clone() {
            TyKind::Scalar(s) | TyKind::Vector(s, _) if s.bits() == 32 && s != Scalar::Bool => {
                self.bld().buffer_load(buf, addr, t)
            }
            TyKind::Scalar(Scalar::Bool) | TyKind::Vector(Scalar::Bool, _) => {
                let n = self.types().vec_len(ty).unwrap_or(1);
                let u = self.types_scalar_vec(Scalar::U32, n);
                let raw = self.bld().buffer_load(buf, addr, u);
                let z = self.m.zero(u);
                self.bld().cmp(Op::Ne, raw, z)
            }
            TyKind::Scalar(s) | TyKind::Vector(s, _) if matches!(s.bits(), 16 | 64) => {
                // 64-bit: two words; 16-bit: half of a word. Component by component.
                let n = self.types().vec_len(ty).unwrap_or(1);
                let size = s.bits() / 8;
                let mut parts = Vec::new();
                for k in 0..n as u32 {
                    let off = self.m.const_u32(k * size);
                    let a = self.bld().add(addr, off);
                    parts.push(self.byte_load_scalar(buf, a, s));
                }
                if n == 1 {
                    parts[0]
                } else {
                    self.construct(t, &parts)
                }
            }
            TyKind::Array(el, n) => {
                let size = self.byte_size(el);
                let mut parts = Vec::new();
                for i in 0..n {
                    let off = self.m.const_u32(i * size);
                    let a = self.bld().add(addr, off);
                    parts.push(self.byte_load(buf, a, el, e));
                }
                self.construct(t, &parts)
            }
            TyKind::Struct(sid) => {
                let ftys: Vec<TyId> = self
                    .types()
                    .struct_def(sid)
                    .fields
                    .iter()
                    .map(|f| f.ty)
                    .collect();
                let mut parts = Vec::new();
                let mut off = 0;
                for ft in ftys {
                    let o = self.m.const_u32(off);
                    let a = self.bld().add(addr, o);
                    parts.push(self.byte_load(buf, a, ft, e));
                    off += self.byte_size(ft);
                }
                self.struct_value(sid, &parts)
            }
            TyKind::Matrix(s, r, c) if s != Scalar::Bool => {
                let mut leaves = Vec::new();
                let st = self.scalar_ir(s);
                let size = s.concrete().bits() / 8;
                for i in 0..(r as u32 * c as u32) {
                    let o = self.m.const_u32(i * size);
                    let a = self.bld().add(addr, o);
                    let x = if size == 4 {
                        self.bld().buffer_load(buf, a, st)
                    } else {
                        self.byte_load_scalar(buf, a, s)
                    };
                    leaves.push((x, s));
                }
                let mut it = leaves.into_iter();
                self.build(ty, &mut it)
            }
            _ => {
                let msg = format!(
                    "`Load<{}>` from a byte-address buffer is not supported",
                    self.types().name(ty)
                );
                self.error(e.span, msg);
                self.m.undef(t)
            }
        }
    }

    /// `Store`/`Store<T>` into a byte-address buffer.
    fn byte_store(&mut self, buf: InstId, addr: InstId, v: InstId, ty: TyId, e: &Expr) {
        match self.types().kind(ty).clone() {
            TyKind::Scalar(s) | TyKind::Vector(s, _) if s.bits() == 32 && s != Scalar::Bool => {
                self.bld().buffer_store(buf, addr, v);
            }
            TyKind::Scalar(s) | TyKind::Vector(s, _) if matches!(s.bits(), 16 | 64) => {
                let n = self.types().vec_len(ty).unwrap_or(1);
                let size = s.bits() / 8;
                for k in 0..n as u32 {
                    let x = if n == 1 {
                        v
                    } else {
                        self.bld().extract(v, &[k])
                    };
                    let off = self.m.const_u32(k * size);
                    let a = self.bld().add(addr, off);
                    self.byte_store_scalar(buf, a, x, s);
                }
            }
            TyKind::Array(el, n) => {
                let size = self.byte_size(el);
                for i in 0..n {
                    let off = self.m.const_u32(i * size);
                    let a = self.bld().add(addr, off);
                    let x = self.bld().extract(v, &[i]);
                    self.byte_store(buf, a, x, el, e);
                }
            }
            TyKind::Struct(sid) => {
                let ftys: Vec<TyId> = self
                    .types()
                    .struct_def(sid)
                    .fields
                    .iter()
                    .map(|f| f.ty)
                    .collect();
                let mut off = 0;
                for (i, ft) in ftys.into_iter().enumerate() {
                    let o = self.m.const_u32(off);
                    let a = self.bld().add(addr, o);
                    let path = self.field_path(ty, i as u32);
                    let x = self.bld().extract(v, &path);
                    self.byte_store(buf, a, x, ft, e);
                    off += self.byte_size(ft);
                }
            }
            TyKind::Matrix(s, r, c) if s != Scalar::Bool => {
                let size = s.concrete().bits() / 8;
                let mut k = 0;
                for i in 0..r {
                    for j in 0..c {
                        let x = self.mat_elem_value(v, ty, i, j);
                        let o = self.m.const_u32(k * size);
                        let a = self.bld().add(addr, o);
                        if size == 4 {
                            self.bld().buffer_store(buf, a, x);
                        } else {
                            self.byte_store_scalar(buf, a, x, s);
                        }
                        k += 1;
                    }
                }
            }
            _ => {
                let msg = format!(
                    "`Store` of `{}` into a byte-address buffer is not supported",
                    self.types().name(ty)
                );
                self.error(e.span, msg);
            }
        }
    }

    /// A 16- or 64-bit scalar from a byte-address buffer, through 32-bit words.
    fn byte_load_scalar(&mut self, buf: InstId, addr: InstId, s: Scalar) -> InstId {
        let u = self.m.u32_type();
        let st = self.scalar_ir(s);
        if s.bits() == 64 {
            let four = self.m.const_u32(4);
            let a1 = self.bld().add(addr, four);
            let lo = self.bld().buffer_load(buf, addr, u);
            let hi = self.bld().buffer_load(buf, a1, u);
            let u2 = self.m.vector_type(u, 2);
            let pair = self.construct(u2, &[lo, hi]);
            return self.bld().bitcast(pair, st);
        }
        // 16 bits: the half of the word the address selects.
        let word = self.bld().buffer_load(buf, addr, u);
        let two = self.m.const_u32(2);
        let three = self.m.const_u32(3);
        let half = self.bld().and(addr, two);
        let shift = self.bld().shl(half, three);
        let bits = self.bld().shr(word, shift);
        let u16t = self.m.int_type(16, false);
        let narrow = self.bld().convert(bits, u16t);
        if s == Scalar::U16 {
            narrow
        } else {
            self.bld().bitcast(narrow, st)
        }
    }

    /// Stores a 16- or 64-bit scalar into a byte-address buffer through 32-bit words (a
    /// 16-bit store rewrites its half of the word, not atomically, like DXC).
    fn byte_store_scalar(&mut self, buf: InstId, addr: InstId, v: InstId, s: Scalar) {
        let u = self.m.u32_type();
        if s.bits() == 64 {
            let u2 = self.m.vector_type(u, 2);
            let pair = self.bld().bitcast(v, u2);
            let lo = self.bld().extract(pair, &[0]);
            let hi = self.bld().extract(pair, &[1]);
            let four = self.m.const_u32(4);
            let a1 = self.bld().add(addr, four);
            self.bld().buffer_store(buf, addr, lo);
            self.bld().buffer_store(buf, a1, hi);
            return;
        }
        let u16t = self.m.int_type(16, false);
        let bits16 = if s == Scalar::U16 {
            v
        } else {
            self.bld().bitcast(v, u16t)
        };
        let wide = self.bld().convert(bits16, u);
        let two = self.m.const_u32(2);
        let three = self.m.const_u32(3);
        let half = self.bld().and(addr, two);
        let shift = self.bld().shl(half, three);
        let placed = self.bld().shl(wide, shift);
        let ffff = self.m.const_u32(0xffff);
        let mask = self.bld().shl(ffff, shift);
        let keep = self.bld().not(mask);
        let word = self.bld().buffer_load(buf, addr, u);
        let kept = self.bld().and(word, keep);
        let merged = self.bld().or(kept, placed);
        self.bld().buffer_store(buf, addr, merged);
    }

    /// Bytes of a type in a byte-address buffer (tightly packed 32-bit data).
    fn byte_size(&self, ty: TyId) -> u32 {
        match self.types().kind(ty) {
            TyKind::Scalar(s) => s.concrete().bits() / 8,
            TyKind::Vector(s, n) => s.concrete().bits() / 8 * *n as u32,
            TyKind::Matrix(s, r, c) => s.concrete().bits() / 8 * (*r as u32) * (*c as u32),
            TyKind::Array(e, n) => self.byte_size(*e) * n,
            TyKind::Struct(sid) => self
                .types()
                .struct_def(*sid)
                .fields
                .iter()
                .map(|f| self.byte_size(f.ty))
                .sum(),
            _ => 4,
        }
    }
}

impl Lower<'_> {
    /// The index of `res` in `ResourceDescriptorHeap`, when it is an element of one of the
    /// heap's views.
    fn heap_element(&self, res: InstId) -> Option<InstId> {
        let m = &self.m;
        (m.try_op(res) == Some(Op::ElementAddr) && self.heap_views.contains(&m.operand(res, 0)))
            .then(|| m.operand(res, 1))
    }

    /// The counters of the resource heap's buffers (DXC's `counter_var_ResourceDescriptorHeap`):
    /// a run-time array of counter buffers at the binding `bindings.rs` placed beside the heap,
    /// made on first use.
    fn heap_counter(&mut self) -> Option<InstId> {
        if let Some(c) = self.heap_counter {
            return Some(c);
        }
        let ((set, binding), chosen) = self.bindings.heap_counter?;
        let u = self.m.u32_type();
        let counter = self.m.runtime_array_type(u);
        let all = self.m.runtime_array_type(counter);
        let c = self.m.add_global(
            "counter.var.ResourceDescriptorHeap",
            AddressSpace::StorageBuffer,
            all,
            None,
        );
        self.m.decorate_imm(c.id(), Op::Binding, &[set, binding]);
        // A UAV of its own without a register, like a buffer's counter.
        self.m.decorate_imm(
            c.id(),
            Op::HlslRegister,
            &[3, u32::MAX, set, u32::from(chosen)],
        );
        self.heap_counter = Some(c.id());
        Some(c.id())
    }
}
