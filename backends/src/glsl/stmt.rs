//! Instructions with effects: stores, calls, atomics, barriers, image and byte-address
//! buffer writes, and the intrinsics that write through out-pointers.
//!
//! | IR | GLSL |
//! |---|---|
//! | `store p, v` | `path = v;` (a whole storage block member by member; a built-in converted to its GLSL type) |
//! | `call @f, args` | `f(args)`; a pointer argument is a local variable passed to an `inout` parameter |
//! | `atomic_rmw op, p, v` | `atomicAdd(path, v)`... (`sub` as `atomicAdd` of `-v`; `load` `atomicLoad`; `store` and `exchange` `atomicExchange`); workgroup memory with `gl_ScopeWorkgroup`, as the SPIR-V backend's scope |
//! | `atomic_rmw` on `texel_addr` | `imageAtomicAdd(img, coord[, sample], v)`... |
//! | `atomic_cmpxchg` | `atomicCompSwap`, `imageAtomicCompSwap` |
//! | `barrier sync\|workgroup` | `barrier()` |
//! | other `barrier` flags | `controlBarrier`/`memoryBarrier` with explicit scopes and semantics (`GL_KHR_memory_scope_semantics`), the SPIR-V backend's exactly |
//! | `buffer_store` | one word store per component |

use crate::text::printer::FnText as _;
use crate::text::walker::CSyntax as _;
use oneshader_ir::{AddressSpace, AtomicOp, BarrierFlags, InstId, Intrinsic, Op, ScalarKind};

use super::error::{GlslError, OPERANDS, R, malformed};
use super::expr::{E, Prec, call};
use super::func::FnEmitter;
use super::layout::Shape;

impl FnEmitter<'_, '_> {
    /// Prints an instruction with an effect whose result (if any) nobody uses.
    pub fn statement(&mut self, i: InstId) -> R<()> {
        let m = self.m;
        match m.op(i) {
            Op::Store => self.store(i),
            Op::Barrier => {
                let s = self.barrier(i);
                self.line_fmt(format_args!("{s};"));
                Ok(())
            }
            Op::TextureStore => {
                let s = self.texture_store(i)?;
                self.line_fmt(format_args!("{s};"));
                Ok(())
            }
            Op::BufferStore => self.buffer_store(i),
            Op::RayQueryInit | Op::RayQueryAbort | Op::RayQueryConfirm | Op::RayQueryGenerate => {
                let s = self.ray_query_statement(i)?;
                self.line_fmt(format_args!("{s};"));
                Ok(())
            }
            Op::TraceRay => {
                let accel = self.lvalue(m.operand(i, 0))?;
                let mut args = vec![accel];
                for k in 1..10 {
                    args.push(self.value(m.operand(i, k))?.text);
                }
                let loc = self.data_location(m.operand(i, 10), true)?;
                args.push(loc.to_string());
                self.line_fmt(format_args!("traceRayEXT({});", args.join(", ")));
                Ok(())
            }
            Op::ExecuteCallable => {
                let sbt = self.value(m.operand(i, 0))?;
                let loc = self.data_location(m.operand(i, 1), false)?;
                self.line_fmt(format_args!("executeCallableEXT({}, {loc});", sbt.text));
                Ok(())
            }
            Op::SetMeshOutputs => {
                let v = self.value(m.operand(i, 0))?;
                let p = self.value(m.operand(i, 1))?;
                self.line_fmt(format_args!("SetMeshOutputsEXT({}, {});", v.text, p.text));
                Ok(())
            }
            Op::EmitVertex | Op::EndPrimitive => {
                // Stream 0 is GLSL's unnumbered form (glslang emits OpEmitVertex /
                // OpEndPrimitive for it, as the SPIR-V backend does).
                let stream = m.imm_operand(i, 0).unwrap_or(0);
                let (plain, streamed) = if m.op(i) == Op::EmitVertex {
                    ("EmitVertex", "EmitStreamVertex")
                } else {
                    ("EndPrimitive", "EndStreamPrimitive")
                };
                if stream == 0 {
                    self.line_fmt(format_args!("{plain}();"));
                } else {
                    self.line_fmt(format_args!("{streamed}({stream});"));
                }
                Ok(())
            }
            Op::CallIntrinsic
                if m.imm_operand(i, 0).and_then(Intrinsic::from_u32) == Some(Intrinsic::Sincos) =>
            {
                let x = self.value(m.operand(i, 1))?;
                let s = self.lvalue(m.operand(i, 2))?;
                let c = self.lvalue(m.operand(i, 3))?;
                self.line_fmt(format_args!("{s} = sin({});", x.text));
                self.line_fmt(format_args!("{c} = cos({});", x.text));
                Ok(())
            }
            _ => {
                let e = self.effect_expr(i)?;
                self.line_fmt(format_args!("{e};"));
                self.flush_after();
                Ok(())
            }
        }
    }

    /// Prints the statements queued to follow the last one.
    pub fn flush_after(&mut self) {
        for s in std::mem::take(&mut self.after) {
            self.line(&s);
        }
    }

    /// The expression of an effect instruction with a result (a call, an atomic, `frexp`,
    /// `modf`). Statements it needs before are printed; statements after are queued in
    /// `self.after`.
    pub fn effect_expr(&mut self, i: InstId) -> R<String> {
        let m = self.m;
        match m.op(i) {
            Op::Call => self.call_expr(i),
            Op::AtomicRmw | Op::AtomicCmpXchg => self.atomic(i),
            Op::CallIntrinsic
                if matches!(
                    m.imm_operand(i, 0).and_then(Intrinsic::from_u32),
                    Some(Intrinsic::DebugPrintf | Intrinsic::DebugBreak)
                ) =>
            {
                Ok(self.intrinsic(i)?.text)
            }
            Op::CallIntrinsic => self.out_param_intrinsic(i),
            Op::ReportHit => {
                let t = self.value(m.operand(i, 0))?;
                let kind = self.value(m.operand(i, 1))?;
                Ok(format!("reportIntersectionEXT({}, {})", t.text, kind.text))
            }
            Op::RayQueryProceed => {
                let q = self.lvalue(m.operand(i, 0))?;
                Ok(format!("rayQueryProceedEXT({q})"))
            }
            op => Err(malformed(format!("`{}` has no value", op.spelling()))),
        }
    }

    fn call_expr(&mut self, i: InstId) -> R<String> {
        let m = self.m;
        let callee = m.operand(i, 0);
        if m.try_op(callee) != Some(Op::Func) {
            return Err(malformed("a call whose callee is not a function"));
        }
        let name = self
            .cx
            .item_names
            .get(&callee)
            .cloned()
            .ok_or_else(|| malformed("a call to a function that is not emitted"))?;
        let mut args = Vec::new();
        let mut roots: Vec<InstId> = Vec::new();
        for k in 1..m.num_operands(i) {
            let a = m.operand(i, k);
            let is_ptr = m.ty(a).is_some_and(|t| m.op(t) == Op::Ptr);
            if is_ptr {
                // Only a function's own memory passes exactly as `inout` (copy in, copy
                // out): nothing else can see it during the call.
                let mut root = a;
                while matches!(m.op(root), Op::FieldAddr | Op::ElementAddr) {
                    root = m.operand(root, 0);
                }
                let local = matches!(m.op(root), Op::Var)
                    || (m.op(root) == Op::Param && self.names.contains_key(&root));
                if !local || roots.contains(&root) {
                    return Err(GlslError::new(
                        OPERANDS,
                        format!(
                            "a call to `{name}` passes a pointer {}; GLSL passes local \
                             variables to `inout` parameters (copy in, copy out), which is \
                             exact only for distinct local variables",
                            if local {
                                "to the same variable twice"
                            } else {
                                "that is not a local variable"
                            }
                        ),
                    ));
                }
                roots.push(root);
                args.push(self.lvalue(a)?);
            } else {
                args.push(self.value(a)?.text);
            }
        }
        Ok(format!("{name}({})", args.join(", ")))
    }

    /// `val` (the value of `v`) as something cheap to repeat: itself when it is a name or a
    /// literal, else a new local holding it.
    fn named_for_reuse(&mut self, val: E, v: InstId) -> R<E> {
        let simple = val
            .text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
        if simple {
            return Ok(val);
        }
        let ty = self.ty_of(v)?;
        let tn = self.cx.type_name(ty)?;
        let name = self.local_name(Some("stored"), "s");
        self.line_fmt(format_args!("{tn} {name} = {};", val.text));
        Ok(E::primary(name))
    }

    /// Stores `val` (an expression safe to repeat, of IR type `ty`) member by member.
    fn store_shape(&mut self, shape: &Shape<String>, ty: InstId, val: &str) -> R<()> {
        let m = self.m;
        match shape {
            Shape::Whole(path) => self.line_fmt(format_args!("{path} = {val};")),
            Shape::Split(comps) => {
                for (c, path) in comps.iter().enumerate() {
                    self.line_fmt(format_args!("{path} = {val}[{c}];"));
                }
            }
            Shape::Struct(fields) => {
                for (k, f) in fields.iter().enumerate() {
                    let ft = m
                        .struct_fields(ty)
                        .get(k)
                        .and_then(|&fd| m.ty(fd))
                        .ok_or_else(|| malformed("a shape with more fields than its struct"))?;
                    let name = self.cx.field_name(ty, k);
                    self.store_shape(f, ft, &format!("{val}.{name}"))?;
                }
            }
        }
        Ok(())
    }

    fn store(&mut self, i: InstId) -> R<()> {
        let m = self.m;
        let p = m.operand(i, 0);
        let v = m.operand(i, 1);
        let place = self.place(p)?;
        let val = self.value(v)?;
        if let Some(a) = &place.arrayed {
            // Only the hull shader writes per-vertex outputs, and only its own vertex.
            return Err(GlslError::new(
                OPERANDS,
                format!(
                    "a store of a whole array of vertices (`{}`); GLSL hull shaders write their \
                     own vertex only (`[gl_InvocationID]`)",
                    a.prefix
                ),
            ));
        }
        if let Some(shape) = &place.shape {
            // Spread over block members: one store per member, from a named value.
            let val = self.named_for_reuse(val, v)?;
            let ty = self.ty_of(v)?;
            return self.store_shape(shape, ty, &val.at_least(Prec::Primary).to_string());
        }
        if place.rvalue {
            return Err(GlslError::new(
                OPERANDS,
                format!(
                    "a store with a run-time component index into `{}`, a vector buffer member \
                     that GLSL declares one component per member",
                    place.text
                ),
            ));
        }
        let val = match place.builtin {
            Some(kind) => {
                let t = self.ty_of(v)?;
                let gt = self.builtin_type(t, kind)?;
                let from = self
                    .m
                    .scalar_of(t)
                    .and_then(|s| super::module::kind_of_scalar(m, s));
                if from == Some(kind) || m.op(t) == Op::Array {
                    val
                } else {
                    call(&gt, &[&val])
                }
            }
            None => val,
        };
        self.line_fmt(format_args!("{} = {};", place.text, val.text));
        Ok(())
    }

    fn buffer_store(&mut self, i: InstId) -> R<()> {
        let m = self.m;
        let v = m.operand(i, 2);
        let ty = self.ty_of(v)?;
        let scalar = self.word_scalar(i, ty)?;
        let (arr, index) = self.word_index(i)?;
        let val = self.value(v)?;
        let n = m.vector_len(ty).unwrap_or(1);
        for k in 0..n {
            let idx = if k == 0 {
                index.clone()
            } else {
                format!("{index} + {k}u")
            };
            let comp = if n == 1 {
                val.text.clone()
            } else {
                format!(
                    "{}.{}",
                    val.at_least(Prec::Primary),
                    ['x', 'y', 'z', 'w'][k as usize]
                )
            };
            let word = match m.op(scalar) {
                Op::U32 => comp,
                Op::I32 => format!("uint({comp})"),
                _ => format!("floatBitsToUint({comp})"),
            };
            self.line_fmt(format_args!("{arr}[{idx}] = {word};"));
        }
        Ok(())
    }

    /// The scope arguments of an atomic on pointer `p` (`None`: GLSL's default, device).
    fn atomic_scope(&self, p: InstId) -> Option<&'static str> {
        let m = self.m;
        let space = m.ty(p).and_then(|t| m.address_space(t));
        (space == Some(AddressSpace::Workgroup)).then_some("gl_ScopeWorkgroup, 0, 0")
    }

    fn atomic(&mut self, i: InstId) -> R<String> {
        let m = self.m;
        let is_rmw = m.op(i) == Op::AtomicRmw;
        let p = if is_rmw {
            m.operand(i, 1)
        } else {
            m.operand(i, 0)
        };
        let ty = self.ty_of(i)?;
        let k = m.scalar_kind(ty);
        if !matches!(k, Some(ScalarKind::Int | ScalarKind::Uint)) || m.op(ty) == Op::Vector {
            return Err(GlslError::new(
                OPERANDS,
                format!(
                    "atomics on `{}` are not supported (integer scalars only)",
                    oneshader_ir::print::print_inst(m, ty)
                ),
            ));
        }
        if m.scalar_bits(ty) == Some(64) {
            self.cx.ext("GL_EXT_shader_atomic_int64");
        }
        // An image texel: `imageAtomic*(image, coord[, sample], ...)`.
        let (prefix, target) = if m.op(p) == Op::TexelAddr {
            let img_p = m.operand(p, 0);
            let img = self.place(img_p)?;
            let d = m
                .ty(img_p)
                .and_then(|t| m.pointee(t))
                .and_then(|t| m.texture_desc(t))
                .ok_or_else(|| malformed("a texel address of a non-image"))?;
            let coord = self.int_coord(m.operand(p, 1))?;
            let mut t = format!("{}, {}", img.text, coord.text);
            if d.multisampled {
                let s = self.value(m.operand(p, 2))?;
                t.push_str(&format!(", int({})", s.text));
            }
            ("imageAtomic", t)
        } else {
            ("atomic", self.lvalue(p)?)
        };
        let scope = if prefix == "atomic" {
            self.atomic_scope(p)
        } else {
            None
        };
        if scope.is_some() {
            self.cx.ext("GL_KHR_memory_scope_semantics");
        }
        let with_scope = |args: String| match scope {
            Some(s) => format!("{args}, {s}"),
            None => args,
        };
        if !is_rmw {
            let cmp = self.value(m.operand(i, 1))?;
            let v = self.value(m.operand(i, 2))?;
            // With a scope, `atomicCompSwap` takes the semantics of the equal and of the
            // unequal case.
            let args = with_scope(format!("{target}, {}, {}", cmp.text, v.text));
            let args = if scope.is_some() {
                format!("{args}, 0, 0")
            } else {
                args
            };
            return Ok(format!("{prefix}CompSwap({args})"));
        }
        let aop = m
            .imm_operand(i, 0)
            .and_then(AtomicOp::from_u32)
            .ok_or_else(|| malformed("unknown atomic operation"))?;
        if aop == AtomicOp::Load {
            // `atomicLoad` always takes its scope.
            self.cx.ext("GL_KHR_memory_scope_semantics");
            let s = scope.unwrap_or("gl_ScopeDevice, 0, 0");
            return Ok(format!("{prefix}Load({target}, {s})"));
        }
        let v = self.value(m.operand(i, 2))?;
        let (f, v) = match aop {
            AtomicOp::Add => ("Add", v),
            AtomicOp::Sub => ("Add", super::expr::negate(&v)),
            AtomicOp::Min => ("Min", v),
            AtomicOp::Max => ("Max", v),
            AtomicOp::And => ("And", v),
            AtomicOp::Or => ("Or", v),
            AtomicOp::Xor => ("Xor", v),
            AtomicOp::Exchange | AtomicOp::Store => ("Exchange", v),
            AtomicOp::Load => unreachable!("handled above"),
        };
        Ok(format!(
            "{prefix}{f}({})",
            with_scope(format!("{target}, {}", v.text))
        ))
    }

    /// The SPIR-V backend's barrier: execution scope workgroup when `sync`, memory scope
    /// device with `device` memory (workgroup otherwise), semantics acquire-release with the
    /// memory kinds named.
    fn barrier(&mut self, i: InstId) -> String {
        let m = self.m;
        let flags = BarrierFlags(m.imm_operand(i, 0).unwrap_or(0));
        let sync = flags.contains(BarrierFlags::GROUP_SYNC);
        let device = flags.contains(BarrierFlags::DEVICE_MEMORY);
        let workgroup = flags.contains(BarrierFlags::WORKGROUP_MEMORY);
        if sync && workgroup && !device {
            // `barrier()` is exactly this (workgroup scopes, acquire-release workgroup memory).
            return "barrier()".into();
        }
        if sync && !workgroup && !device && self.cx.entry.stage == oneshader_ir::Stage::Hull {
            // A hull shader's `barrier()` is a control barrier without memory semantics
            // (memory scope `Invocation`), exactly the SPIR-V backend's.
            return "barrier()".into();
        }
        self.cx.ext("GL_KHR_memory_scope_semantics");
        let mut storage = Vec::new();
        if device {
            storage.push("gl_StorageSemanticsBuffer");
            storage.push("gl_StorageSemanticsImage");
        }
        if workgroup {
            storage.push("gl_StorageSemanticsShared");
        }
        let (storage, sem) = if storage.is_empty() {
            ("0".to_string(), "0")
        } else {
            (storage.join(" | "), "gl_SemanticsAcquireRelease")
        };
        let scope = if device {
            "gl_ScopeDevice"
        } else if !workgroup {
            // No memory: the `Invocation` scope, as the SPIR-V backend's.
            "gl_ScopeInvocation"
        } else {
            "gl_ScopeWorkgroup"
        };
        if sync {
            format!("controlBarrier(gl_ScopeWorkgroup, {scope}, {storage}, {sem})")
        } else {
            format!("memoryBarrier({scope}, {storage}, {sem})")
        }
    }

    /// `frexp`/`modf` (which write through a pointer) as an expression.
    fn out_param_intrinsic(&mut self, i: InstId) -> R<String> {
        let m = self.m;
        let which = m
            .imm_operand(i, 0)
            .and_then(Intrinsic::from_u32)
            .ok_or_else(|| malformed("unknown intrinsic"))?;
        let x = self.value(m.operand(i, 1))?;
        let p = m.operand(i, 2);
        let place = self.lvalue(p)?;
        match which {
            Intrinsic::Modf => Ok(format!("modf({}, {place})", x.text)),
            Intrinsic::Frexp => {
                let pointee = m
                    .ty(p)
                    .and_then(|t| m.pointee(t))
                    .ok_or_else(|| malformed("frexp's exponent is not a pointer"))?;
                if m.scalar_kind(pointee) == Some(ScalarKind::Float) {
                    // HLSL's exponent is a float: take GLSL's integer one and convert it.
                    let n = m.vector_len(pointee).unwrap_or(1);
                    let it = if n == 1 {
                        "int".to_string()
                    } else {
                        format!("ivec{n}")
                    };
                    let tmp = self.local_name(Some("exponent"), "e");
                    self.line_fmt(format_args!("{it} {tmp};"));
                    let ft = self.cx.type_name(pointee)?;
                    self.after.push(format!("{place} = {ft}({tmp});"));
                    Ok(format!("frexp({}, {tmp})", x.text))
                } else {
                    Ok(format!("frexp({}, {place})", x.text))
                }
            }
            other => Err(malformed(format!(
                "`{}` is not an intrinsic with an out-parameter",
                other.spelling()
            ))),
        }
    }

    /// An integer coordinate as GLSL's image and fetch functions take it (`ivecN`).
    pub fn int_coord(&mut self, v: InstId) -> R<E> {
        let m = self.m;
        let e = self.value(v)?;
        let t = self.ty_of(v)?;
        let bits = m.scalar_of(t).and_then(|s| m.scalar_bits(s));
        match m.scalar_kind(t) {
            Some(ScalarKind::Int) if bits == Some(32) => Ok(e),
            _ => {
                let n = m.vector_len(t).unwrap_or(1);
                let tn = if n == 1 {
                    "int".to_string()
                } else {
                    format!("ivec{n}")
                };
                Ok(call(&tn, &[&e]))
            }
        }
    }
}

impl FnEmitter<'_, '_> {
    /// `ray_query_init`, `_abort`, `_confirm`, `_generate` (GL_EXT_ray_query), each the
    /// SPIR-V instruction the SPIR-V backend emits.
    fn ray_query_statement(&mut self, i: InstId) -> R<String> {
        let m = self.m;
        self.cx.ext("GL_EXT_ray_query");
        let q = self.lvalue(m.operand(i, 0))?;
        Ok(match m.op(i) {
            Op::RayQueryInit => {
                let accel = self.lvalue(m.operand(i, 1))?;
                let mut args = vec![q, accel];
                for k in 2..8 {
                    args.push(self.value(m.operand(i, k))?.text);
                }
                format!("rayQueryInitializeEXT({})", args.join(", "))
            }
            Op::RayQueryAbort => format!("rayQueryTerminateEXT({q})"),
            Op::RayQueryConfirm => format!("rayQueryConfirmIntersectionEXT({q})"),
            _ => {
                let t = self.value(m.operand(i, 1))?;
                format!("rayQueryGenerateIntersectionEXT({q}, {})", t.text)
            }
        })
    }
}

impl FnEmitter<'_, '_> {
    /// The location GLSL names the payload (`payload`) or callable-data global `p` by: the
    /// pointer must be the global itself.
    fn data_location(&mut self, p: InstId, payload: bool) -> R<usize> {
        let list = if payload {
            &self.cx.payloads
        } else {
            &self.cx.callables
        };
        list.iter().position(|&g| g == p).ok_or_else(|| {
            GlslError::new(
                OPERANDS,
                format!(
                    "the {} operand is not a declared {} global (GLSL passes one by location)",
                    if payload { "payload" } else { "callable-data" },
                    if payload { "payload" } else { "callable-data" },
                ),
            )
        })
    }
}
