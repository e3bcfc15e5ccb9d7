//! The reference interpreter: executes IR functions on concrete values, to check that passes
//! preserve meaning (the differential test runs a function before and after `-O` and compares
//! the results bit for bit) and to let users run a function from the CLI (`oneshader interp`).
//!
//! # Model
//!
//! - A [`Value`] is a scalar (its [`Scalar`] type and bits), a composite (vector components,
//!   matrix rows, array elements or struct fields, in order), a pointer into the interpreter's
//!   memory, or an opaque handle (textures, samplers, functions).
//! - Every operator is computed by the value algebra ([`crate::value`], over
//!   [`crate::semantics`]), the same code the constant folder and the unroller use, so a folded
//!   constant is bit-identical to what the interpreter computes.
//! - Memory: each `var` gets one allocation per call frame (executing the same `var` twice in a
//!   frame reuses it), freed when the frame returns; globals get one allocation each, holding
//!   their initializer or zeros. Fresh memory and `undef` read as all-zero bits, so a pass that
//!   turns an uninitialized load into `undef` does not change results.
//! - Runtime arrays start empty; [`Interpreter::set_global`] fills any global.
//! - Intrinsics: component-wise ones come from [`crate::semantics::intrinsic`]; `dot`, `cross`,
//!   `length`, `normalize` and the other vector intrinsics are built from the same operators in
//!   a fixed order ([`crate::value`]). Transcendentals use Rust's `std` float functions, which are close to but not
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

use crate::semantics::{self, BinaryOp, CompareOp, Folded, Scalar, SemanticsError, UnaryOp};
use crate::semantics::{float_bits, float_value};
use crate::value::{
    ValueError, atomic_value, binary_value, bitcast_value, compare_value, constant_value,
    construct_value, convert_value, cross_value, determinant_value, dot_value, element, flatten,
    frexp_value, length_value, map_lanes, matmul_value, modf_value, operator_value, refract_value,
    scalar_like, select_value, set_path, shuffle_value, transpose_value, unary_value, zero_value,
    zip_n,
};

/// The runtime values the interpreter computes with live in the value algebra; re-exported here
/// because they are the interpreter's inputs and outputs.
pub use crate::value::{Pointer, Value};

/// The deepest call nesting the interpreter allows.
pub const MAX_CALL_DEPTH: usize = 256;

/// The default step limit.
pub const DEFAULT_MAX_STEPS: u64 = 10_000_000;

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

impl From<ValueError> for InterpError {
    fn from(e: ValueError) -> InterpError {
        match e {
            ValueError::Type(t) => InterpError::Type(t),
            ValueError::Semantics(s) => InterpError::Semantics(s),
        }
    }
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
                // Debug output and breaks compute nothing.
                if matches!(which, Intrinsic::DebugPrintf | Intrinsic::DebugBreak) {
                    return Ok(None);
                }
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
