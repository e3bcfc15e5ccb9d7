//! The reference interpreter: executes IR functions on concrete values, to check that passes
//! preserve meaning (the differential test runs a function before and after `-O` and compares
//! the results bit for bit) and to let users run a function from the CLI (`oneshader interp`).
//!
//! # Model
//!
//! - A [`Value`] is a scalar (its [`Scalar`] type and bits), a composite (vector components,
//!   matrix rows, array elements or struct fields, in order), a pointer into the interpreter's
//!   memory, or an opaque handle (textures, samplers, functions).
//! - Every scalar operator is computed by [`crate::semantics`], the same code the constant
//!   folder uses, so a folded constant is bit-identical to what the interpreter computes.
//! - Memory: each `var` gets one allocation per call frame (executing the same `var` twice in a
//!   frame reuses it), freed when the frame returns; globals get one allocation each, holding
//!   their initializer or zeros. Fresh memory and `undef` read as all-zero bits, so a pass that
//!   turns an uninitialized load into `undef` does not change results.
//! - Runtime arrays start empty; [`Interpreter::set_global`] fills any global.
//! - Intrinsics: component-wise ones come from [`crate::semantics::intrinsic`]; `dot`, `cross`,
//!   `length`, `normalize` and the other vector intrinsics are built from the same operators in
//!   a fixed order. Transcendentals use Rust's `std` float functions, which are close to but not
//!   guaranteed equal to any GPU's: that is why the folder never folds them.
//! - `discard` ends the whole invocation, also from inside a called function
//!   ([`Exit::Discard`]).
//! - One invocation: wave operations see a wave of one lane (`wave_active_sum(x)` is `x`, the
//!   lane index is 0), derivatives are zero, `is_helper_lane` is false.
//! - Textures, byte-address buffers and texel pointers are not modelled: running an instruction
//!   that needs them is an [`InterpError::Unsupported`].
//! - Every executed instruction counts as one step; past [`Interpreter::with_max_steps`] (default
//!   10 million) execution stops with [`InterpError::StepLimit`], so a non-terminating program
//!   returns an error instead of hanging. Calls nest at most [`MAX_CALL_DEPTH`] deep.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use oneshader_ir::print::print_inst;
use oneshader_ir::{AtomicOp, Block, Func, Global, InstId, Intrinsic, Module, Op};

use crate::semantics::{
    self, BinaryOp, CompareOp, Folded, Scalar, SemanticsError, UnaryOp, float_bits, float_value,
};

/// The deepest call nesting the interpreter allows.
pub const MAX_CALL_DEPTH: usize = 256;

/// The default step limit.
pub const DEFAULT_MAX_STEPS: u64 = 10_000_000;

/// A runtime value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// A scalar: its type and bits (see [`crate::semantics`] for the encoding).
    Scalar(Scalar, u64),
    /// A vector (components), matrix (rows), array (elements) or struct (fields).
    Composite(Vec<Value>),
    /// A pointer into the interpreter's memory.
    Pointer(Pointer),
    /// A handle the interpreter does not look into (texture, sampler, function).
    Opaque,
}

/// A pointer: an allocation and a path of element indices into it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pointer {
    /// The allocation.
    pub alloc: u32,
    /// Indices from the allocation's value down to the pointee.
    pub path: SmallVec<[u32; 4]>,
}

impl Value {
    /// An `i32`.
    pub fn i32(v: i32) -> Value {
        Value::Scalar(Scalar::I32, v as u32 as u64)
    }

    /// A `u32`.
    pub fn u32(v: u32) -> Value {
        Value::Scalar(Scalar::U32, v as u64)
    }

    /// An `f32`.
    pub fn f32(v: f32) -> Value {
        Value::Scalar(Scalar::F32, v.to_bits() as u64)
    }

    /// A `bool`.
    pub fn bool(v: bool) -> Value {
        Value::Scalar(Scalar::Bool, v as u64)
    }

    /// The scalar type and bits, when this is a scalar.
    pub fn as_scalar(&self) -> Option<(Scalar, u64)> {
        match *self {
            Value::Scalar(t, b) => Some((t, b)),
            _ => None,
        }
    }

    /// A `bool`'s truth, when this is a `bool`.
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            Value::Scalar(Scalar::Bool, b) => Some(b & 1 == 1),
            _ => None,
        }
    }

    /// The components of a composite.
    pub fn elements(&self) -> Option<&[Value]> {
        match self {
            Value::Composite(v) => Some(v),
            _ => None,
        }
    }
}

/// Why execution stopped without a result.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InterpError {
    /// More steps than allowed: probably an endless loop.
    #[error("step limit of {0} instructions reached (does the program terminate?)")]
    StepLimit(u64),
    /// Calls nested too deep: probably unbounded recursion.
    #[error("calls nested more than {MAX_CALL_DEPTH} deep")]
    CallDepth,
    /// An instruction the interpreter does not model.
    #[error("cannot interpret `{0}`")]
    Unsupported(String),
    /// An index outside its array, vector or matrix.
    #[error("index {index} out of bounds (length {len}) in `{inst}`")]
    OutOfBounds {
        /// The instruction.
        inst: String,
        /// The index.
        index: u64,
        /// The length.
        len: usize,
    },
    /// `unreachable` was executed.
    #[error("executed `unreachable` in @{0}")]
    Unreachable(String),
    /// Operands or arguments of the wrong shape (the module does not verify, or the caller
    /// passed wrong arguments).
    #[error("type mismatch: {0}")]
    Type(String),
    /// The function has no body (an import or declaration).
    #[error("@{0} has no body")]
    NoBody(String),
    /// A scalar operator has no meaning on its operand type.
    #[error("{0}")]
    Semantics(#[from] SemanticsError),
}

/// How a function call ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exit {
    /// `return`, with the value when the function returns one.
    Return(Option<Value>),
    /// `discard` ended the invocation.
    Discard,
}

/// One call's state.
struct Frame {
    func: Func,
    values: FxHashMap<InstId, Value>,
    vars: FxHashMap<InstId, u32>,
    /// The next instruction to execute.
    cursor: Option<InstId>,
    /// The `call` in the caller that waits for this frame's result.
    call_site: Option<InstId>,
    /// The memory size when the frame was entered (its `var`s live above it).
    mark: usize,
}

/// The reference interpreter over one module.
pub struct Interpreter<'m> {
    m: &'m Module,
    memory: Vec<Value>,
    globals: FxHashMap<InstId, u32>,
    constants: FxHashMap<InstId, Value>,
    steps: u64,
    max_steps: u64,
}

impl<'m> Interpreter<'m> {
    /// An interpreter over `m`, with every global allocated (initializer or zeros).
    pub fn new(m: &'m Module) -> Interpreter<'m> {
        let mut it = Interpreter {
            m,
            memory: Vec::new(),
            globals: FxHashMap::default(),
            constants: FxHashMap::default(),
            steps: 0,
            max_steps: DEFAULT_MAX_STEPS,
        };
        for g in m.globals() {
            let init = m
                .try_operand(g.id(), 0)
                .and_then(|c| constant_value(m, c))
                .or_else(|| {
                    let pointee = m.ty(g.id()).and_then(|t| m.pointee(t))?;
                    zero_value(m, pointee)
                })
                .unwrap_or(Value::Opaque);
            let a = it.memory.len() as u32;
            it.memory.push(init);
            it.globals.insert(g.id(), a);
        }
        it
    }

    /// Sets the step limit.
    pub fn with_max_steps(mut self, max_steps: u64) -> Interpreter<'m> {
        self.max_steps = max_steps;
        self
    }

    /// Instructions executed so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Replaces the contents of a global (e.g. a stage input or a storage buffer's elements).
    pub fn set_global(&mut self, g: Global, v: Value) -> Result<(), InterpError> {
        let a = *self
            .globals
            .get(&g.id())
            .ok_or_else(|| InterpError::Type("not a global of this module".into()))?;
        self.memory[a as usize] = v;
        Ok(())
    }

    /// The current contents of a global.
    pub fn global_value(&self, g: Global) -> Option<&Value> {
        self.globals
            .get(&g.id())
            .and_then(|&a| self.memory.get(a as usize))
    }

    /// Calls `f` with `args`.
    pub fn call(&mut self, f: Func, args: &[Value]) -> Result<Exit, InterpError> {
        self.run_func(f, args.to_vec())
    }

    fn step(&mut self) -> Result<(), InterpError> {
        self.steps += 1;
        if self.steps > self.max_steps {
            return Err(InterpError::StepLimit(self.max_steps));
        }
        Ok(())
    }

    fn func_name(&self, f: InstId) -> String {
        self.m.name(f).unwrap_or("?").to_string()
    }

    /// A frame for a call of `f` with `args`, positioned at its first instruction.
    fn enter(
        &self,
        f: Func,
        args: Vec<Value>,
        call_site: Option<InstId>,
    ) -> Result<Frame, InterpError> {
        let m = self.m;
        let entry = f
            .entry(m)
            .ok_or_else(|| InterpError::NoBody(self.func_name(f.id())))?;
        let params = entry.params(m);
        if params.len() != args.len() {
            return Err(InterpError::Type(format!(
                "@{} takes {} arguments, got {}",
                self.func_name(f.id()),
                params.len(),
                args.len()
            )));
        }
        let mut frame = Frame {
            func: f,
            cursor: m.first_child(entry.id()),
            call_site,
            mark: self.memory.len(),
            values: FxHashMap::default(),
            vars: FxHashMap::default(),
        };
        for (p, a) in params.iter().zip(args) {
            frame.values.insert(p.id(), a);
        }
        Ok(frame)
    }

    /// Runs `f` to its end. Calls push frames on an explicit stack (no Rust recursion, so deep
    /// recursion in the program is an error, never a crash).
    fn run_func(&mut self, f: Func, args: Vec<Value>) -> Result<Exit, InterpError> {
        let base = self.memory.len();
        let mut stack = vec![self.enter(f, args, None)?];
        let result = self.run_stack(&mut stack);
        self.memory.truncate(base);
        result
    }

    fn run_stack(&mut self, stack: &mut Vec<Frame>) -> Result<Exit, InterpError> {
        let m = self.m;
        loop {
            let Some(frame) = stack.last_mut() else {
                return Ok(Exit::Return(None));
            };
            let Some(i) = frame.cursor else {
                return Err(InterpError::Type(format!(
                    "a block of @{} has no terminator",
                    self.func_name(frame.func.id())
                )));
            };
            frame.cursor = m.next_sibling(i);
            let op = m.op(i);
            if op == Op::Param || op.is_decoration() {
                continue;
            }
            self.step()?;
            if op == Op::Call {
                let ops = m.operands_vec(i);
                let callee = Func::dyn_cast(m, ops[0]).ok_or_else(|| self.unsupported(i))?;
                let args = ops[1..]
                    .iter()
                    .map(|&a| self.operand(frame, a))
                    .collect::<Result<Vec<_>, _>>()?;
                if stack.len() >= MAX_CALL_DEPTH {
                    return Err(InterpError::CallDepth);
                }
                let callee_frame = self.enter(callee, args, Some(i))?;
                stack.push(callee_frame);
                continue;
            }
            if !op.is_terminator() {
                if let Some(v) = self.exec(frame, i)? {
                    frame.values.insert(i, v);
                }
                continue;
            }
            let ops = m.operands_vec(i);
            let (target, args): (InstId, &[InstId]) = match op {
                Op::Br => (ops[0], &ops[1..]),
                Op::Loop => (ops[0], &ops[3..]),
                Op::CondBr | Op::IfElse => {
                    let c = self.bool_operand(frame, ops[0], i)?;
                    (if c { ops[1] } else { ops[2] }, &[])
                }
                Op::Switch => {
                    let (ty, bits) = self
                        .operand(frame, ops[0])?
                        .as_scalar()
                        .ok_or_else(|| self.type_error(i, "the selector is not a scalar"))?;
                    let mut target = ops[2];
                    for pair in ops[3..].chunks(2) {
                        let case = m.literal_bits(pair[0]).unwrap_or(0) & ty.mask();
                        if case == bits & ty.mask() {
                            target = pair[1];
                            break;
                        }
                    }
                    (target, &[])
                }
                Op::Return => {
                    let v = match ops.first() {
                        Some(&v) => Some(self.operand(frame, v)?),
                        None => None,
                    };
                    let done = stack.pop();
                    if let Some(done) = &done {
                        self.memory.truncate(done.mark);
                    }
                    match (stack.last_mut(), done.and_then(|d| d.call_site)) {
                        (Some(caller), Some(site)) => {
                            if let Some(v) = v {
                                caller.values.insert(site, v);
                            }
                            continue;
                        }
                        _ => return Ok(Exit::Return(v)),
                    }
                }
                // `discard` ends the invocation, from any depth.
                Op::Discard => return Ok(Exit::Discard),
                // Ray-tracing and mesh terminators hand control to the pipeline, which the
                // interpreter does not model.
                Op::IgnoreHit | Op::AcceptHit | Op::DispatchMesh => {
                    return Err(self.unsupported(i));
                }
                _ => return Err(InterpError::Unreachable(self.func_name(frame.func.id()))),
            };
            let target = Block::dyn_cast(m, target)
                .ok_or_else(|| self.type_error(i, "the branch target is not a block"))?;
            let params = target.params(m);
            if params.len() != args.len() {
                return Err(self.type_error(i, "branch arguments do not match the target"));
            }
            let vals = args
                .iter()
                .map(|&a| self.operand(frame, a))
                .collect::<Result<Vec<_>, _>>()?;
            for (p, v) in params.iter().zip(vals) {
                frame.values.insert(p.id(), v);
            }
            frame.cursor = m.first_child(target.id());
        }
    }

    fn type_error(&self, inst: InstId, msg: &str) -> InterpError {
        InterpError::Type(format!("{msg} in `{}`", print_inst(self.m, inst)))
    }

    fn unsupported(&self, inst: InstId) -> InterpError {
        InterpError::Unsupported(print_inst(self.m, inst))
    }

    /// The value of an operand: a local, a constant, a global's address.
    fn operand(&mut self, frame: &Frame, v: InstId) -> Result<Value, InterpError> {
        if let Some(x) = frame.values.get(&v) {
            return Ok(x.clone());
        }
        if let Some(x) = self.constants.get(&v) {
            return Ok(x.clone());
        }
        let m = self.m;
        match m.try_op(v) {
            Some(Op::Global) => {
                let a = self.globals.get(&v).copied().unwrap_or(u32::MAX);
                Ok(Value::Pointer(Pointer {
                    alloc: a,
                    path: SmallVec::new(),
                }))
            }
            Some(Op::Func) => Ok(Value::Opaque),
            Some(op) if op.is_hoistable() => {
                let c = constant_value(m, v)
                    .ok_or_else(|| InterpError::Unsupported(print_inst(m, v)))?;
                self.constants.insert(v, c.clone());
                Ok(c)
            }
            _ => Err(InterpError::Type(format!(
                "`{}` is used before it is defined",
                print_inst(m, v)
            ))),
        }
    }

    fn bool_operand(
        &mut self,
        frame: &Frame,
        v: InstId,
        inst: InstId,
    ) -> Result<bool, InterpError> {
        self.operand(frame, v)?
            .as_bool()
            .ok_or_else(|| self.type_error(inst, "the condition is not a bool"))
    }

    fn index_operand(
        &mut self,
        frame: &Frame,
        v: InstId,
        inst: InstId,
    ) -> Result<u64, InterpError> {
        match self.operand(frame, v)? {
            Value::Scalar(t, b) if t.is_int() => {
                let v = semantics::int_value(t, b);
                // A negative index is out of bounds of everything.
                Ok(if v < 0 { u64::MAX } else { v as u64 })
            }
            _ => Err(self.type_error(inst, "the index is not an integer")),
        }
    }

    fn deref(&self, p: &Pointer, inst: InstId) -> Result<&Value, InterpError> {
        let mut v = self
            .memory
            .get(p.alloc as usize)
            .ok_or_else(|| self.type_error(inst, "dangling pointer"))?;
        for &i in &p.path {
            let elems = v
                .elements()
                .ok_or_else(|| self.type_error(inst, "address into a non-composite"))?;
            v = elems
                .get(i as usize)
                .ok_or_else(|| InterpError::OutOfBounds {
                    inst: print_inst(self.m, inst),
                    index: i as u64,
                    len: elems.len(),
                })?;
        }
        Ok(v)
    }

    fn deref_mut(&mut self, p: &Pointer, inst: InstId) -> Result<&mut Value, InterpError> {
        let m = self.m;
        let mut v = self.memory.get_mut(p.alloc as usize).ok_or_else(|| {
            InterpError::Type(format!("dangling pointer in `{}`", print_inst(m, inst)))
        })?;
        for &i in &p.path {
            let Value::Composite(elems) = v else {
                return Err(InterpError::Type(format!(
                    "address into a non-composite in `{}`",
                    print_inst(m, inst)
                )));
            };
            let len = elems.len();
            v = elems
                .get_mut(i as usize)
                .ok_or_else(|| InterpError::OutOfBounds {
                    inst: print_inst(m, inst),
                    index: i as u64,
                    len,
                })?;
        }
        Ok(v)
    }

    fn pointer_operand(
        &mut self,
        frame: &Frame,
        v: InstId,
        inst: InstId,
    ) -> Result<Pointer, InterpError> {
        match self.operand(frame, v)? {
            Value::Pointer(p) => Ok(p),
            _ => Err(self.type_error(inst, "not a pointer")),
        }
    }

    fn result_scalar(&self, inst: InstId) -> Result<Scalar, InterpError> {
        self.m
            .ty(inst)
            .and_then(|t| self.m.scalar_of(t))
            .and_then(|s| Scalar::of(self.m, s))
            .ok_or_else(|| self.type_error(inst, "the result type has no scalar"))
    }

    /// Executes a non-terminator; returns its value (`None` for `void` instructions).
    fn exec(&mut self, frame: &mut Frame, i: InstId) -> Result<Option<Value>, InterpError> {
        let m = self.m;
        let op = m.op(i);
        let ops = m.operands_vec(i);
        let v = |this: &mut Self, k: usize| -> Result<Value, InterpError> {
            let id = *ops
                .get(k)
                .ok_or_else(|| this.type_error(i, "missing operand"))?;
            this.operand(frame, id)
        };
        if BinaryOp::from_op(op).is_some()
            || CompareOp::from_op(op).is_some()
            || UnaryOp::from_op(op).is_some()
        {
            let args: Vec<Value> = (0..ops.len())
                .map(|k| v(self, k))
                .collect::<Result<_, _>>()?;
            return match operator_value(op, &args) {
                Some(r) => Ok(Some(r?.0)),
                None => Err(self.type_error(i, "wrong number of operands")),
            };
        }
        Ok(Some(match op {
            Op::Convert | Op::Bitcast => {
                let a = v(self, 0)?;
                let ty = m
                    .ty(i)
                    .ok_or_else(|| self.type_error(i, "no result type"))?;
                let r = if op == Op::Convert {
                    convert_value(m, &a, ty)
                } else {
                    bitcast_value(m, &a, ty)
                };
                r?.0
            }
            Op::Select => {
                let (c, a, b) = (v(self, 0)?, v(self, 1)?, v(self, 2)?);
                select_value(&c, &a, &b)?
            }
            Op::Construct => {
                let ty = m
                    .ty(i)
                    .ok_or_else(|| self.type_error(i, "no result type"))?;
                let elems = (0..ops.len())
                    .map(|k| v(self, k))
                    .collect::<Result<Vec<_>, _>>()?;
                construct_value(m, ty, elems)?
            }
            Op::Extract => {
                let mut x = v(self, 0)?;
                for &idx in &ops[1..] {
                    let k = m.imm_value(idx).unwrap_or(u32::MAX);
                    x = element(&x, k as u64).map_err(|len| InterpError::OutOfBounds {
                        inst: print_inst(m, i),
                        index: k as u64,
                        len,
                    })?;
                }
                x
            }
            Op::Insert => {
                let mut x = v(self, 0)?;
                let e = v(self, 1)?;
                let path: Vec<u32> = ops[2..]
                    .iter()
                    .map(|&k| m.imm_value(k).unwrap_or(u32::MAX))
                    .collect();
                set_path(&mut x, &path, e).map_err(|(index, len)| InterpError::OutOfBounds {
                    inst: print_inst(m, i),
                    index,
                    len,
                })?;
                x
            }
            Op::ExtractDyn => {
                let x = v(self, 0)?;
                let k = self.index_operand(frame, ops[1], i)?;
                element(&x, k).map_err(|len| InterpError::OutOfBounds {
                    inst: print_inst(m, i),
                    index: k,
                    len,
                })?
            }
            Op::InsertDyn => {
                let mut x = v(self, 0)?;
                let e = v(self, 1)?;
                let k = self.index_operand(frame, ops[2], i)?;
                let path = [u32::try_from(k).unwrap_or(u32::MAX)];
                set_path(&mut x, &path, e).map_err(|(index, len)| InterpError::OutOfBounds {
                    inst: print_inst(m, i),
                    index,
                    len,
                })?;
                x
            }
            Op::Shuffle => {
                let (a, b) = (v(self, 0)?, v(self, 1)?);
                let idx: Vec<u32> = ops[2..]
                    .iter()
                    .map(|&k| m.imm_value(k).unwrap_or(u32::MAX))
                    .collect();
                shuffle_value(&a, &b, &idx).map_err(|(index, len)| InterpError::OutOfBounds {
                    inst: print_inst(m, i),
                    index,
                    len,
                })?
            }
            Op::MatMul => {
                let (a, b) = (v(self, 0)?, v(self, 1)?);
                matmul_value(&a, &b)?
            }
            Op::Var => {
                let a = match frame.vars.get(&i) {
                    Some(&a) => a,
                    None => {
                        let pointee = m.ty(i).and_then(|t| m.pointee(t));
                        let init = pointee
                            .and_then(|t| zero_value(m, t))
                            .unwrap_or(Value::Opaque);
                        let a = self.memory.len() as u32;
                        self.memory.push(init);
                        frame.vars.insert(i, a);
                        a
                    }
                };
                Value::Pointer(Pointer {
                    alloc: a,
                    path: SmallVec::new(),
                })
            }
            Op::Load => {
                let p = self.pointer_operand(frame, ops[0], i)?;
                self.deref(&p, i)?.clone()
            }
            Op::Store => {
                let p = self.pointer_operand(frame, ops[0], i)?;
                let x = v(self, 1)?;
                *self.deref_mut(&p, i)? = x;
                return Ok(None);
            }
            Op::FieldAddr | Op::ElementAddr => {
                let mut p = self.pointer_operand(frame, ops[0], i)?;
                let k = if op == Op::FieldAddr {
                    m.imm_value(ops[1]).unwrap_or(u32::MAX) as u64
                } else {
                    self.index_operand(frame, ops[1], i)?
                };
                // Check the bounds now, so the error names the address computation.
                let len = self.deref(&p, i)?.elements().map_or(0, <[Value]>::len);
                if k >= len as u64 {
                    return Err(InterpError::OutOfBounds {
                        inst: print_inst(m, i),
                        index: k,
                        len,
                    });
                }
                p.path.push(k as u32);
                Value::Pointer(p)
            }
            Op::CallIntrinsic => {
                let which = m
                    .imm_value(ops[0])
                    .and_then(Intrinsic::from_u32)
                    .ok_or_else(|| self.unsupported(i))?;
                let args = (1..ops.len())
                    .map(|k| v(self, k))
                    .collect::<Result<Vec<_>, _>>()?;
                return self.intrinsic(i, which, &args);
            }
            Op::AtomicRmw => {
                let aop = m
                    .imm_value(ops[0])
                    .and_then(AtomicOp::from_u32)
                    .ok_or_else(|| self.unsupported(i))?;
                let p = self.pointer_operand(frame, ops[1], i)?;
                let x = v(self, 2)?;
                let old = self.deref(&p, i)?.clone();
                let new = atomic_value(aop, &old, &x).ok_or_else(|| self.unsupported(i))?;
                if let Some(new) = new {
                    *self.deref_mut(&p, i)? = new;
                }
                old
            }
            Op::AtomicCmpXchg => {
                let p = self.pointer_operand(frame, ops[0], i)?;
                let (cmp, new) = (v(self, 1)?, v(self, 2)?);
                let old = self.deref(&p, i)?.clone();
                if old == cmp {
                    *self.deref_mut(&p, i)? = new;
                }
                old
            }
            Op::Barrier => return Ok(None),
            Op::ArrayLength => {
                let p = self.pointer_operand(frame, ops[0], i)?;
                let len = self.deref(&p, i)?.elements().map_or(0, <[Value]>::len);
                Value::u32(len as u32)
            }
            _ => return Err(self.unsupported(i)),
        }))
    }

    fn intrinsic(
        &mut self,
        i: InstId,
        which: Intrinsic,
        args: &[Value],
    ) -> Result<Option<Value>, InterpError> {
        use Intrinsic::*;
        let m = self.m;
        let arity = which.arity();
        if args.len() < arity.0 || args.len() > arity.1 {
            return Err(self.type_error(i, "wrong number of intrinsic operands"));
        }
        let ty = m.ty(i);
        if semantics::is_component_wise(which) {
            let result = self.result_scalar(i)?;
            let refs: SmallVec<[&Value; 3]> = args.iter().collect();
            let (r, _) = zip_n(&refs, &mut |lanes| {
                Ok((result, semantics::intrinsic(which, result, lanes)?))
            })?;
            return Ok(Some(r));
        }
        let zero_of = |this: &Self| {
            ty.and_then(|t| zero_value(m, t))
                .ok_or_else(|| this.type_error(i, "no result type"))
        };
        Ok(Some(match which {
            Dot => dot_value(&args[0], &args[1])?,
            Cross => cross_value(&args[0], &args[1])?,
            Length => length_value(&args[0])?,
            Distance => {
                let d = binary_value(BinaryOp::Sub, &args[0], &args[1])?.0;
                length_value(&d)?
            }
            Normalize => {
                let len = length_value(&args[0])?;
                binary_value(BinaryOp::Div, &args[0], &len)?.0
            }
            Reflect => {
                // i - 2 * dot(n, i) * n
                let (inc, n) = (&args[0], &args[1]);
                let d = dot_value(n, inc)?;
                let two = scalar_like(&d, 2.0)?;
                let k = binary_value(BinaryOp::Mul, &two, &d)?.0;
                let kn = binary_value(BinaryOp::Mul, &k, n)?.0;
                binary_value(BinaryOp::Sub, inc, &kn)?.0
            }
            Refract => refract_value(&args[0], &args[1], &args[2])?,
            Faceforward => {
                // dot(ng, i) < 0 ? n : -n
                let d = dot_value(&args[2], &args[1])?;
                let zero = scalar_like(&d, 0.0)?;
                let neg = compare_value(CompareOp::Lt, &d, &zero)?.0;
                if neg.as_bool() == Some(true) {
                    args[0].clone()
                } else {
                    unary_value(UnaryOp::Neg, &args[0])?.0
                }
            }
            Determinant => determinant_value(&args[0])?,
            Transpose => transpose_value(&args[0])?,
            All | Any => {
                let mut lanes = Vec::new();
                flatten(&args[0], &mut lanes);
                let truth = |&(t, b): &(Scalar, u64)| {
                    if t.is_float() {
                        float_value(t, b) != 0.0
                    } else {
                        b & t.mask() != 0
                    }
                };
                let r = if which == All {
                    lanes.iter().all(truth)
                } else {
                    lanes.iter().any(truth)
                };
                Value::bool(r)
            }
            Ldexp => {
                let refs = [&args[0], &args[1]];
                zip_n(&refs, &mut |l| {
                    let (t, x) = l[0];
                    let e = if l[1].0.is_float() {
                        float_value(l[1].0, l[1].1)
                    } else {
                        semantics::int_value(l[1].0, l[1].1) as f64
                    };
                    let r = float_value(t, x) * 2f64.powf(e);
                    Ok((
                        t,
                        Folded {
                            bits: float_bits(t, r),
                            foldable: false,
                        },
                    ))
                })?
                .0
            }
            Frexp | Modf => {
                let Value::Pointer(p) = &args[1] else {
                    return Err(self.type_error(i, "the out operand is not a pointer"));
                };
                let out_proto = self.deref(p, i)?.clone();
                let (r, out) = if which == Frexp {
                    frexp_value(&args[0], &out_proto)?
                } else {
                    modf_value(&args[0])?
                };
                *self.deref_mut(p, i)? = out;
                r
            }
            Sincos => {
                let (Value::Pointer(ps), Value::Pointer(pc)) = (&args[1], &args[2]) else {
                    return Err(self.type_error(i, "the out operands are not pointers"));
                };
                let (ps, pc) = (ps.clone(), pc.clone());
                let refs = [&args[0]];
                let s = zip_n(&refs, &mut |l| {
                    Ok((l[0].0, semantics::intrinsic(Sin, l[0].0, l)?))
                })?
                .0;
                let c = zip_n(&refs, &mut |l| {
                    Ok((l[0].0, semantics::intrinsic(Cos, l[0].0, l)?))
                })?
                .0;
                *self.deref_mut(&ps, i)? = s;
                *self.deref_mut(&pc, i)? = c;
                return Ok(None);
            }
            PackHalf2x16 => {
                let mut lanes = Vec::new();
                flatten(&args[0], &mut lanes);
                if lanes.len() != 2 {
                    return Err(self.type_error(i, "pack_half_2x16 takes two components"));
                }
                let h = |(t, b): (Scalar, u64)| semantics::f64_to_f16(float_value(t, b)) as u64;
                Value::u32((h(lanes[0]) | (h(lanes[1]) << 16)) as u32)
            }
            UnpackHalf2x16 => {
                let Value::Scalar(_, b) = args[0] else {
                    return Err(self.type_error(i, "unpack_half_2x16 takes a u32"));
                };
                let f = |h: u64| Value::f32(semantics::f16_to_f64(h as u16) as f32);
                Value::Composite(vec![f(b & 0xffff), f((b >> 16) & 0xffff)])
            }
            // One invocation: a wave of one lane, a quad of identical lanes.
            WaveGetLaneCount => Value::u32(1),
            WaveGetLaneIndex => Value::u32(0),
            WaveIsFirstLane => Value::bool(true),
            WaveActiveAnyTrue
            | WaveActiveAllTrue
            | WaveReadLaneFirst
            | WaveActiveSum
            | WaveActiveProduct
            | WaveActiveMin
            | WaveActiveMax
            | WaveActiveBitAnd
            | WaveActiveBitOr
            | WaveActiveBitXor
            | QuadReadAcrossX
            | QuadReadAcrossY
            | QuadReadAcrossDiagonal
            | WaveReadLaneAt
            | QuadReadLaneAt => args[0].clone(),
            WaveActiveBallot => {
                let b = args[0].as_bool().unwrap_or(false);
                Value::Composite(vec![
                    Value::u32(b as u32),
                    Value::u32(0),
                    Value::u32(0),
                    Value::u32(0),
                ])
            }
            WaveActiveCountBits => Value::u32(args[0].as_bool().unwrap_or(false) as u32),
            WavePrefixCountBits => Value::u32(0),
            WaveActiveAllEqual => Value::bool(true),
            WavePrefixSum => zero_of(self)?,
            WavePrefixProduct => {
                let z = zero_of(self)?;
                map_lanes(&z, &mut |t, _| {
                    if t.is_float() { float_bits(t, 1.0) } else { 1 }
                })
            }
            Ddx | Ddy | DdxFine | DdyFine | DdxCoarse | DdyCoarse | Fwidth => zero_of(self)?,
            IsHelperLane => Value::bool(false),
            RenderTargetSampleCount => Value::u32(1),
            _ => return Err(self.unsupported(i)),
        }))
    }
}

// ---- constants and values --------------------------------------------------------------------

/// The value of a constant (`spec_const` gives its default; `undef` gives zeros).
pub fn constant_value(m: &Module, c: InstId) -> Option<Value> {
    match m.try_op(c)? {
        Op::ConstBool | Op::ConstInt | Op::ConstFloat => {
            let s = Scalar::of(m, m.ty(c)?)?;
            Some(Value::Scalar(s, m.literal_bits(c)? & s.mask()))
        }
        Op::Composite => Some(Value::Composite(
            m.operands(c)
                .map(|e| constant_value(m, e))
                .collect::<Option<Vec<_>>>()?,
        )),
        Op::Zero | Op::Undef => zero_value(m, m.ty(c)?),
        Op::SpecConst => constant_value(m, m.try_operand(c, 1)?),
        _ => None,
    }
}

/// The all-zero value of a type (`None` for types without a value, like `void`).
pub fn zero_value(m: &Module, ty: InstId) -> Option<Value> {
    Some(match m.try_op(ty)? {
        op if op.is_scalar_type() => Value::Scalar(Scalar::from_op(op)?, 0),
        Op::Vector | Op::Array => {
            let n = m.imm_operand(ty, 1)?;
            let e = zero_value(m, m.try_operand(ty, 0)?)?;
            Value::Composite(vec![e; n as usize])
        }
        Op::Matrix => {
            let (rows, cols) = m.matrix_dims(ty)?;
            let e = zero_value(m, m.try_operand(ty, 0)?)?;
            let row = Value::Composite(vec![e; cols as usize]);
            Value::Composite(vec![row; rows as usize])
        }
        Op::Struct => Value::Composite(
            m.struct_fields(ty)
                .into_iter()
                .map(|f| zero_value(m, m.ty(f)?))
                .collect::<Option<Vec<_>>>()?,
        ),
        Op::RuntimeArray => Value::Composite(Vec::new()),
        Op::Texture | Op::Sampler | Op::SamplerCmp | Op::Ptr | Op::FnType => Value::Opaque,
        _ => return None,
    })
}

/// Makes the constant of type `ty` holding `v` (`None` when `v` does not fit `ty`).
pub fn value_to_constant(m: &mut Module, ty: InstId, v: &Value) -> Option<InstId> {
    match v {
        Value::Scalar(s, bits) => {
            if Scalar::of(m, ty)? != *s {
                return None;
            }
            Some(if s.is_bool() {
                m.const_bool(*bits & 1 == 1)
            } else if s.is_float() {
                m.const_float_bits(ty, *bits)
            } else {
                m.const_int(ty, *bits)
            })
        }
        Value::Composite(elems) => {
            let op = m.try_op(ty)?;
            if !matches!(op, Op::Vector | Op::Matrix | Op::Array | Op::Struct) {
                return None;
            }
            let expected = match op {
                Op::Vector | Op::Array => m.imm_operand(ty, 1)? as usize,
                Op::Matrix => m.matrix_dims(ty)?.0 as usize,
                _ => m.struct_fields(ty).len(),
            };
            if expected != elems.len() {
                return None;
            }
            let mut out = Vec::with_capacity(elems.len());
            for (k, e) in elems.iter().enumerate() {
                let et = m.element_type(ty, k as u32)?;
                out.push(value_to_constant(m, et, e)?);
            }
            Some(m.const_composite(ty, &out))
        }
        _ => None,
    }
}

/// Parses a value of type `ty` from command-line text: `5`, `-2.5`, `true`, `0x7fc00000` (a
/// float's bits), and composites in parentheses or brackets: `(1, 2, 3)`, `[(1, 0), (0, 1)]`.
pub fn parse_value(m: &Module, ty: InstId, text: &str) -> Result<Value, String> {
    let text = text.trim();
    let type_name = || print_inst(m, ty);
    let op = m.try_op(ty).ok_or("unknown type")?;
    if let Some(s) = Scalar::from_op(op) {
        return parse_scalar(s, text)
            .ok_or_else(|| format!("`{text}` is not a valid {}", type_name()));
    }
    let inner = text
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .or_else(|| text.strip_prefix('[').and_then(|t| t.strip_suffix(']')))
        .or_else(|| text.strip_prefix('{').and_then(|t| t.strip_suffix('}')))
        .ok_or_else(|| format!("a {} is written in parentheses: `({text})`", type_name()))?;
    let parts = split_top_level(inner);
    let expected = match op {
        Op::Vector | Op::Array => m.imm_operand(ty, 1).unwrap_or(0) as usize,
        Op::Matrix => m.matrix_dims(ty).map_or(0, |d| d.0 as usize),
        Op::Struct => m.struct_fields(ty).len(),
        _ => return Err(format!("cannot pass a {} on the command line", type_name())),
    };
    if parts.len() != expected {
        return Err(format!(
            "a {} has {expected} elements, got {}",
            type_name(),
            parts.len()
        ));
    }
    let mut out = Vec::with_capacity(parts.len());
    for (k, p) in parts.iter().enumerate() {
        let et = m
            .element_type_of(ty, k as u32)
            .ok_or_else(|| format!("cannot pass a {} on the command line", type_name()))?;
        out.push(parse_value(m, et, p)?);
    }
    Ok(Value::Composite(out))
}

/// Splits a comma-separated list at the top level (commas inside brackets do not split).
pub fn split_top_level(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in text.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() || !parts.is_empty() {
        parts.push(cur.trim().to_string());
    }
    parts
}

fn parse_scalar(s: Scalar, text: &str) -> Option<Value> {
    if s.is_bool() {
        return match text {
            "true" | "1" => Some(Value::bool(true)),
            "false" | "0" => Some(Value::bool(false)),
            _ => None,
        };
    }
    let hex = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .and_then(|h| u64::from_str_radix(h, 16).ok());
    if s.is_float() {
        if let Some(bits) = hex {
            return (bits <= s.mask()).then_some(Value::Scalar(s, bits));
        }
        let x: f64 = match text {
            "inf" | "+inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            "nan" => f64::NAN,
            _ => text.parse().ok()?,
        };
        let bits = match s {
            // Parse f32 text directly so that decimal rounding happens once.
            Scalar::F32 => text
                .parse::<f32>()
                .map(|f| f.to_bits() as u64)
                .unwrap_or_else(|_| float_bits(s, x)),
            _ => float_bits(s, x),
        };
        return Some(Value::Scalar(s, bits));
    }
    let v: i128 = match hex {
        Some(h) => h as i128,
        None => text.parse().ok()?,
    };
    let (lo, hi) = if s.is_signed() {
        (-(1i128 << (s.width() - 1)), (1i128 << s.width()) - 1)
    } else {
        (0, (1i128 << s.width()) - 1)
    };
    (v >= lo && v <= hi).then_some(Value::Scalar(s, v as u64 & s.mask()))
}

/// Formats a value of type `ty` in the IR text's constant syntax (`i32 5`,
/// `vec<f32, 2> {f32 1.0, f32 2.0}`).
pub fn format_value(m: &Module, ty: InstId, v: &Value) -> String {
    let mut scratch = m.clone();
    match value_to_constant(&mut scratch, ty, v) {
        Some(c) => print_inst(&scratch, c),
        None => format!("{v:?}"),
    }
}

// ---- value-level operators (shared with the folder) --------------------------------------------

/// Collects the scalar lanes of a value, depth first.
pub fn flatten(v: &Value, out: &mut Vec<(Scalar, u64)>) {
    match v {
        Value::Scalar(t, b) => out.push((*t, *b)),
        Value::Composite(es) => es.iter().for_each(|e| flatten(e, out)),
        _ => {}
    }
}

fn map_lanes(v: &Value, f: &mut dyn FnMut(Scalar, u64) -> u64) -> Value {
    match v {
        Value::Scalar(t, b) => Value::Scalar(*t, f(*t, *b) & t.mask()),
        Value::Composite(es) => Value::Composite(es.iter().map(|e| map_lanes(e, f)).collect()),
        other => other.clone(),
    }
}

type LaneFn<'a> = dyn FnMut(&[(Scalar, u64)]) -> Result<(Scalar, Folded), InterpError> + 'a;

/// Applies `f` lane by lane to operands of the same shape (a scalar operand is broadcast).
/// Returns the result and whether every lane was foldable.
pub fn zip_n(args: &[&Value], f: &mut LaneFn<'_>) -> Result<(Value, bool), InterpError> {
    let len = args.iter().find_map(|a| a.elements().map(<[Value]>::len));
    match len {
        None => {
            let mut lanes: SmallVec<[(Scalar, u64); 3]> = SmallVec::new();
            for a in args {
                lanes.push(
                    a.as_scalar()
                        .ok_or_else(|| InterpError::Type("operand is not a number".into()))?,
                );
            }
            let (t, r) = f(&lanes)?;
            Ok((Value::Scalar(t, r.bits & t.mask()), r.foldable))
        }
        Some(n) => {
            let mut out = Vec::with_capacity(n);
            let mut foldable = true;
            for k in 0..n {
                let mut sub: SmallVec<[&Value; 3]> = SmallVec::new();
                for a in args {
                    match a {
                        Value::Composite(es) => sub.push(es.get(k).ok_or_else(|| {
                            InterpError::Type("operands of different lengths".into())
                        })?),
                        Value::Scalar(..) => sub.push(a),
                        _ => return Err(InterpError::Type("operand is not a number".into())),
                    }
                }
                let (v, fo) = zip_n(&sub, f)?;
                foldable &= fo;
                out.push(v);
            }
            Ok((Value::Composite(out), foldable))
        }
    }
}

/// The value of an arithmetic, comparison or unary operator `op` on `args` (the meaning the
/// interpreter, the folder and the unroller share), and whether every lane folds exactly;
/// `None` when `op` is not such an operator or `args` has the wrong length.
pub fn operator_value(op: Op, args: &[Value]) -> Option<Result<(Value, bool), InterpError>> {
    match args {
        [a, b] => {
            if let Some(bop) = BinaryOp::from_op(op) {
                return Some(binary_value(bop, a, b));
            }
            CompareOp::from_op(op).map(|cop| compare_value(cop, a, b))
        }
        [a] => UnaryOp::from_op(op).map(|uop| unary_value(uop, a)),
        _ => None,
    }
}

/// `a op b`, component-wise.
pub fn binary_value(op: BinaryOp, a: &Value, b: &Value) -> Result<(Value, bool), InterpError> {
    zip_n(&[a, b], &mut |l| {
        Ok((l[0].0, semantics::binary(op, l[0].0, l[0].1, l[1].1)?))
    })
}

/// `a op b`, component-wise, giving `bool`s.
pub fn compare_value(op: CompareOp, a: &Value, b: &Value) -> Result<(Value, bool), InterpError> {
    zip_n(&[a, b], &mut |l| {
        Ok((
            Scalar::Bool,
            semantics::compare(op, l[0].0, l[0].1, l[1].1)?,
        ))
    })
}

/// `op a`, component-wise.
pub fn unary_value(op: UnaryOp, a: &Value) -> Result<(Value, bool), InterpError> {
    zip_n(&[a], &mut |l| {
        Ok((l[0].0, semantics::unary(op, l[0].0, l[0].1)?))
    })
}

fn target_scalar(m: &Module, ty: InstId) -> Result<Scalar, InterpError> {
    m.scalar_of(ty)
        .and_then(|s| Scalar::of(m, s))
        .ok_or_else(|| InterpError::Type("conversion to a non-numeric type".into()))
}

/// Converts `a` to type `ty` (same shape), component-wise.
pub fn convert_value(m: &Module, a: &Value, ty: InstId) -> Result<(Value, bool), InterpError> {
    let to = target_scalar(m, ty)?;
    zip_n(&[a], &mut |l| {
        Ok((to, semantics::convert(l[0].0, to, l[0].1)?))
    })
}

/// Reinterprets the bits of `a` as type `ty` (same total size; lanes are concatenated
/// little-endian, so `vec<u16, 2>` to `u32` puts component 0 in the low half).
pub fn bitcast_value(m: &Module, a: &Value, ty: InstId) -> Result<(Value, bool), InterpError> {
    let to = target_scalar(m, ty)?;
    let mut lanes = Vec::new();
    flatten(a, &mut lanes);
    let total: u32 = lanes.iter().map(|l| l.0.width()).sum();
    let n = m.vector_len(ty).unwrap_or(1);
    if total != to.width() * n {
        return Err(InterpError::Type("bitcast between different sizes".into()));
    }
    if lanes.len() as u32 == n {
        return zip_n(&[a], &mut |l| {
            Ok((to, semantics::bitcast(l[0].0, to, l[0].1)?))
        });
    }
    // Different lane counts: concatenate the bits, then cut them into the new lanes.
    let mut bytes: Vec<u8> = Vec::new();
    for (t, b) in &lanes {
        let w = t.width() / 8;
        bytes.extend_from_slice(&b.to_le_bytes()[..w as usize]);
    }
    let w = (to.width() / 8) as usize;
    let mut out = Vec::new();
    let mut foldable = true;
    for chunk in bytes.chunks(w) {
        let mut buf = [0u8; 8];
        buf[..chunk.len()].copy_from_slice(chunk);
        let bits = u64::from_le_bytes(buf);
        let r = semantics::bitcast(to, to, bits)?;
        foldable &= r.foldable;
        out.push(Value::Scalar(to, r.bits));
    }
    Ok(if n == 1 {
        (out.pop().unwrap_or(Value::Scalar(to, 0)), foldable)
    } else {
        (Value::Composite(out), foldable)
    })
}

/// `c ? a : b`, component-wise when `c` is a vector.
pub fn select_value(c: &Value, a: &Value, b: &Value) -> Result<Value, InterpError> {
    match c {
        Value::Scalar(Scalar::Bool, bit) => Ok(if bit & 1 == 1 { a.clone() } else { b.clone() }),
        Value::Composite(cs) => {
            let (Some(xs), Some(ys)) = (a.elements(), b.elements()) else {
                return Err(InterpError::Type(
                    "select of a vector condition on scalars".into(),
                ));
            };
            if cs.len() != xs.len() || xs.len() != ys.len() {
                return Err(InterpError::Type(
                    "select operands of different lengths".into(),
                ));
            }
            Ok(Value::Composite(
                cs.iter()
                    .zip(xs.iter().zip(ys))
                    .map(|(c, (x, y))| select_value(c, x, y))
                    .collect::<Result<_, _>>()?,
            ))
        }
        _ => Err(InterpError::Type(
            "the select condition is not a bool".into(),
        )),
    }
}

/// Builds a value of type `ty` from `construct` operands: a vector takes scalars and vectors
/// (flattened in order); other composites take their elements.
pub fn construct_value(m: &Module, ty: InstId, elems: Vec<Value>) -> Result<Value, InterpError> {
    if m.try_op(ty) == Some(Op::Vector) {
        let mut lanes = Vec::new();
        for e in &elems {
            flatten(e, &mut lanes);
        }
        let n = m.vector_len(ty).unwrap_or(0) as usize;
        if lanes.len() != n {
            return Err(InterpError::Type(format!(
                "construct of a {n}-vector from {} components",
                lanes.len()
            )));
        }
        return Ok(Value::Composite(
            lanes
                .into_iter()
                .map(|(t, b)| Value::Scalar(t, b))
                .collect(),
        ));
    }
    Ok(Value::Composite(elems))
}

/// Element `k` of a composite (`Err(len)` when out of bounds).
pub fn element(v: &Value, k: u64) -> Result<Value, usize> {
    let es = v.elements().ok_or(0usize)?;
    usize::try_from(k)
        .ok()
        .and_then(|k| es.get(k))
        .cloned()
        .ok_or(es.len())
}

fn set_path(v: &mut Value, path: &[u32], e: Value) -> Result<(), (u64, usize)> {
    let Some((&first, rest)) = path.split_first() else {
        *v = e;
        return Ok(());
    };
    let Value::Composite(es) = v else {
        return Err((first as u64, 0));
    };
    let len = es.len();
    let slot = es.get_mut(first as usize).ok_or((first as u64, len))?;
    set_path(slot, rest, e)
}

/// `shuffle a, b, indices`: indices past `a`'s length pick from `b`.
pub fn shuffle_value(a: &Value, b: &Value, idx: &[u32]) -> Result<Value, (u64, usize)> {
    let mut lanes: Vec<Value> = Vec::new();
    for x in [a, b] {
        match x {
            Value::Composite(es) => lanes.extend(es.iter().cloned()),
            other => lanes.push(other.clone()),
        }
    }
    let picked = idx
        .iter()
        .map(|&k| {
            lanes
                .get(k as usize)
                .cloned()
                .ok_or((k as u64, lanes.len()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(if picked.len() == 1 {
        picked.into_iter().next().unwrap_or(Value::Opaque)
    } else {
        Value::Composite(picked)
    })
}

fn scalar_like(v: &Value, x: f64) -> Result<Value, InterpError> {
    let mut lanes = Vec::new();
    flatten(v, &mut lanes);
    let t = lanes
        .first()
        .map(|l| l.0)
        .ok_or_else(|| InterpError::Type("empty value".into()))?;
    Ok(Value::Scalar(
        t,
        if t.is_float() {
            float_bits(t, x)
        } else {
            x as i64 as u64 & t.mask()
        },
    ))
}

/// `dot(a, b)`: products summed left to right, each step rounded.
pub fn dot_value(a: &Value, b: &Value) -> Result<Value, InterpError> {
    let p = binary_value(BinaryOp::Mul, a, b)?.0;
    let lanes = p
        .elements()
        .ok_or_else(|| InterpError::Type("dot of scalars".into()))?;
    let mut acc = lanes
        .first()
        .cloned()
        .ok_or_else(|| InterpError::Type("dot of empty vectors".into()))?;
    for l in &lanes[1..] {
        acc = binary_value(BinaryOp::Add, &acc, l)?.0;
    }
    Ok(acc)
}

fn length_value(v: &Value) -> Result<Value, InterpError> {
    let d = match v {
        Value::Scalar(..) => binary_value(BinaryOp::Mul, v, v)?.0,
        _ => dot_value(v, v)?,
    };
    let refs = [&d];
    Ok(zip_n(&refs, &mut |l| {
        Ok((l[0].0, semantics::intrinsic(Intrinsic::Sqrt, l[0].0, l)?))
    })?
    .0)
}

fn cross_value(a: &Value, b: &Value) -> Result<Value, InterpError> {
    let (Some(x), Some(y)) = (a.elements(), b.elements()) else {
        return Err(InterpError::Type("cross of non-vectors".into()));
    };
    if x.len() != 3 || y.len() != 3 {
        return Err(InterpError::Type("cross of non-3-vectors".into()));
    }
    let term = |i: usize, j: usize| -> Result<Value, InterpError> {
        let p = binary_value(BinaryOp::Mul, &x[i], &y[j])?.0;
        let q = binary_value(BinaryOp::Mul, &x[j], &y[i])?.0;
        Ok(binary_value(BinaryOp::Sub, &p, &q)?.0)
    };
    Ok(Value::Composite(vec![
        term(1, 2)?,
        term(2, 0)?,
        term(0, 1)?,
    ]))
}

fn refract_value(inc: &Value, n: &Value, eta: &Value) -> Result<Value, InterpError> {
    let d = dot_value(n, inc)?;
    let (Some((t, db)), Some((_, eb))) = (d.as_scalar(), eta.as_scalar()) else {
        return Err(InterpError::Type("refract operands".into()));
    };
    let (dv, ev) = (float_value(t, db), float_value(t, eb));
    let k = 1.0 - ev * ev * (1.0 - dv * dv);
    if k < 0.0 {
        return Ok(map_lanes(inc, &mut |_, _| 0));
    }
    let s = ev * dv + k.sqrt();
    let mut lanes_i = Vec::new();
    let mut lanes_n = Vec::new();
    flatten(inc, &mut lanes_i);
    flatten(n, &mut lanes_n);
    Ok(Value::Composite(
        lanes_i
            .iter()
            .zip(&lanes_n)
            .map(|(&(t, a), &(_, b))| {
                Value::Scalar(
                    t,
                    float_bits(t, ev * float_value(t, a) - s * float_value(t, b)),
                )
            })
            .collect(),
    ))
}

fn matrix_f64(v: &Value) -> Option<(Scalar, Vec<Vec<f64>>)> {
    let rows = v.elements()?;
    let mut t = Scalar::F32;
    let mut out = Vec::new();
    for r in rows {
        let mut row = Vec::new();
        for e in r.elements()? {
            let (s, b) = e.as_scalar()?;
            t = s;
            row.push(if s.is_float() {
                float_value(s, b)
            } else {
                semantics::int_value(s, b) as f64
            });
        }
        out.push(row);
    }
    Some((t, out))
}

fn det(mat: &[Vec<f64>]) -> f64 {
    match mat.len() {
        0 => 1.0,
        1 => mat[0][0],
        2 => mat[0][0] * mat[1][1] - mat[0][1] * mat[1][0],
        n => (0..n)
            .map(|c| {
                let minor: Vec<Vec<f64>> = mat[1..]
                    .iter()
                    .map(|r| {
                        r.iter()
                            .enumerate()
                            .filter(|&(k, _)| k != c)
                            .map(|(_, &x)| x)
                            .collect()
                    })
                    .collect();
                let sign = if c % 2 == 0 { 1.0 } else { -1.0 };
                sign * mat[0][c] * det(&minor)
            })
            .sum(),
    }
}

fn determinant_value(v: &Value) -> Result<Value, InterpError> {
    let (t, mat) =
        matrix_f64(v).ok_or_else(|| InterpError::Type("determinant of a non-matrix".into()))?;
    if mat.iter().any(|r| r.len() != mat.len()) {
        return Err(InterpError::Type(
            "determinant of a non-square matrix".into(),
        ));
    }
    Ok(Value::Scalar(t, float_bits(t, det(&mat))))
}

fn transpose_value(v: &Value) -> Result<Value, InterpError> {
    let rows = v
        .elements()
        .ok_or_else(|| InterpError::Type("transpose of a non-matrix".into()))?;
    let cols = rows
        .first()
        .and_then(Value::elements)
        .map_or(0, <[Value]>::len);
    let mut out = Vec::with_capacity(cols);
    for c in 0..cols {
        let col = rows
            .iter()
            .map(|r| element(r, c as u64).map_err(|_| InterpError::Type("ragged matrix".into())))
            .collect::<Result<Vec<_>, _>>()?;
        out.push(Value::Composite(col));
    }
    Ok(Value::Composite(out))
}

/// The matrix product (HLSL `mul`): matrix * matrix, matrix * vector (the vector is a column),
/// vector * matrix (a row). Each output component is a `dot` of a row and a column.
pub fn matmul_value(a: &Value, b: &Value) -> Result<Value, InterpError> {
    let is_matrix = |v: &Value| {
        v.elements()
            .and_then(|es| es.first())
            .is_some_and(|e| e.elements().is_some())
    };
    let columns = |mat: &Value| -> Result<Vec<Value>, InterpError> {
        match transpose_value(mat)? {
            Value::Composite(c) => Ok(c),
            _ => Err(InterpError::Type("matmul".into())),
        }
    };
    match (is_matrix(a), is_matrix(b)) {
        (true, true) => {
            let cols = columns(b)?;
            let rows = a.elements().unwrap_or(&[]);
            let mut out = Vec::new();
            for r in rows {
                let row = cols
                    .iter()
                    .map(|c| dot_value(r, c))
                    .collect::<Result<Vec<_>, _>>()?;
                out.push(Value::Composite(row));
            }
            Ok(Value::Composite(out))
        }
        (true, false) => {
            let rows = a.elements().unwrap_or(&[]);
            Ok(Value::Composite(
                rows.iter()
                    .map(|r| dot_value(r, b))
                    .collect::<Result<Vec<_>, _>>()?,
            ))
        }
        (false, true) => {
            let cols = columns(b)?;
            Ok(Value::Composite(
                cols.iter()
                    .map(|c| dot_value(a, c))
                    .collect::<Result<Vec<_>, _>>()?,
            ))
        }
        (false, false) => Err(InterpError::Type("matmul of two vectors".into())),
    }
}

fn frexp_value(x: &Value, exp_proto: &Value) -> Result<(Value, Value), InterpError> {
    let mut lanes = Vec::new();
    flatten(x, &mut lanes);
    let mut eprot = Vec::new();
    flatten(exp_proto, &mut eprot);
    let mut mant = Vec::new();
    let mut exps = Vec::new();
    for (k, &(t, b)) in lanes.iter().enumerate() {
        let v = float_value(t, b);
        let (mv, e) = if v == 0.0 || !v.is_finite() {
            (v, 0)
        } else {
            let e = v.abs().log2().floor() as i32 + 1;
            let mut mv = v / 2f64.powi(e);
            let mut e = e;
            // Guard against log2 rounding at powers of two.
            if mv.abs() >= 1.0 {
                mv /= 2.0;
                e += 1;
            } else if mv.abs() < 0.5 {
                mv *= 2.0;
                e -= 1;
            }
            (mv, e)
        };
        mant.push(Value::Scalar(t, float_bits(t, mv)));
        let et = eprot.get(k).map_or(Scalar::I32, |l| l.0);
        exps.push(Value::Scalar(
            et,
            if et.is_float() {
                float_bits(et, e as f64)
            } else {
                e as i64 as u64 & et.mask()
            },
        ));
    }
    Ok(if lanes.len() == 1 && x.as_scalar().is_some() {
        (mant.remove(0), exps.remove(0))
    } else {
        (Value::Composite(mant), Value::Composite(exps))
    })
}

fn modf_value(x: &Value) -> Result<(Value, Value), InterpError> {
    let frac = map_lanes(x, &mut |t, b| {
        let v = float_value(t, b);
        float_bits(t, v - v.trunc())
    });
    let int = map_lanes(x, &mut |t, b| float_bits(t, float_value(t, b).trunc()));
    Ok((frac, int))
}

/// The new memory value of an atomic read-modify-write (`Some(None)` when the operation only
/// reads), or `None` when the operation is not defined on the operands.
fn atomic_value(op: AtomicOp, old: &Value, x: &Value) -> Option<Option<Value>> {
    let (t, a) = old.as_scalar()?;
    let (_, b) = x.as_scalar()?;
    let bin = |o: BinaryOp| semantics::binary(o, t, a, b).ok().map(|r| r.bits);
    let r = match op {
        AtomicOp::Add => bin(BinaryOp::Add)?,
        AtomicOp::Sub => bin(BinaryOp::Sub)?,
        AtomicOp::And => bin(BinaryOp::And)?,
        AtomicOp::Or => bin(BinaryOp::Or)?,
        AtomicOp::Xor => bin(BinaryOp::Xor)?,
        AtomicOp::Min | AtomicOp::Max => {
            let (va, vb) = (semantics::int_value(t, a), semantics::int_value(t, b));
            let pick_b = if op == AtomicOp::Min {
                vb < va
            } else {
                vb > va
            };
            if pick_b { b } else { a }
        }
        AtomicOp::Exchange | AtomicOp::Store => b,
        AtomicOp::Load => return Some(None),
    };
    Some(Some(Value::Scalar(t, r & t.mask())))
}
