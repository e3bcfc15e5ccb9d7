//! `combine`: exact constant folding and algebraic identities.
//!
//! Only rewrites whose result is the same on every GPU (ARCHITECTURE.md §3):
//!
//! - Constant folding goes through [`crate::semantics`] and [`crate::interp`]'s value operators
//!   (the interpreter's own code), and happens only when every lane is `foldable`: wrapping
//!   integer arithmetic, masked shifts, float `add`/`sub`/`mul` and exact `div` on ordinary
//!   operands. Division by zero, `MIN / -1`, NaN, infinities, subnormals, out-of-range
//!   float-to-int conversions and transcendentals stay for the GPU. `spec_const` and `undef`
//!   are never folded.
//! - Integer and `bool` identities: `x + 0`, `x - 0`, `x - x`, `x * 1`, `x * 0`, `x * -1`,
//!   `x / 1`, `x % 1`, `x & 0`, `x & ~0`, `x & x`, `x | 0`, `x | ~0`, `x | x`, `x ^ 0`, `x ^ x`,
//!   `x << 0`, `x >> 0`, `0 << x`, `0 >> x`, `x == x` and the other self-comparisons,
//!   `not(not x)`, `neg(neg x)`, `not(a < b)` to `a >= b` (integers only), `b == true`,
//!   `b != false`; reassociation of constant chains (`(x + 1) + 2` to `x + 3`, `x - 3` to
//!   `x + -3`); constants move to the right of commutative operators.
//! - Float identities, exact for every input including `-0.0`, infinities and NaN: `x * 1`,
//!   `x / 1`, `x + (-0.0)`, `x - (+0.0)`, `neg(neg x)`. Not `x + 0.0` (wrong for `x = -0.0`),
//!   not `x * 0`, not `x - x` (NaN and infinities). Floats are never reassociated.
//! - Structure: `select` of a constant condition or of equal arms, `extract` from `construct`,
//!   `insert` or a constant, `construct` of a vector's own components in order, identity
//!   `shuffle`s, `convert`/`bitcast` to the operand's own type, `bitcast(bitcast(x))` back to
//!   `x`'s type.
//!
//! An instruction decorated `precise` is only constant-folded (folding is exact); identities,
//! operand swaps and reassociation leave it alone.

use smallvec::SmallVec;

use oneshader_ir::{Builder, Func, InstId, InstTable, Intrinsic, Module, Op};

use crate::analyses::FunctionAnalyses;
use crate::semantics::{self, BinaryOp, CompareOp, Scalar, UnaryOp};
use crate::value::{
    self, Value, binary_value, compare_value, construct_value, convert_value, known_constant,
    set_path, unary_value, value_to_constant, zero_value,
};
use crate::{FunctionPass, Pass, PassError, run_per_function};

/// The `combine` pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct Combine;

impl Pass for Combine {
    fn name(&self) -> &'static str {
        "combine"
    }

    /// The work list revisits every user of a rewritten instruction until nothing changes.
    fn idempotent(&self) -> bool {
        true
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        run_per_function(self, m)
    }

    fn as_function_pass(&mut self) -> Option<&mut dyn FunctionPass> {
        Some(self)
    }
}

impl FunctionPass for Combine {
    fn run_on_function(
        &mut self,
        m: &mut Module,
        f: Func,
        analyses: &mut FunctionAnalyses,
    ) -> Result<bool, PassError> {
        Ok(combine_with(m, f, analyses))
    }

    /// Terminators are never rewritten: blocks and edges stay.
    fn keeps_analyses(&self) -> bool {
        true
    }
}

/// What to do with an instruction.
enum Rewrite {
    /// Every use becomes this value; the instruction goes away.
    Replace(InstId),
    /// The instruction was changed in place; look at it again.
    Changed,
}

/// Runs `combine` on one function; true when it changed anything.
pub fn combine_function(m: &mut Module, f: Func) -> bool {
    combine_with(m, f, &mut FunctionAnalyses::new())
}

/// [`combine_function`] with the function's cached CFG (for its reverse post-order).
fn combine_with(m: &mut Module, f: Func, analyses: &mut FunctionAnalyses) -> bool {
    let cfg = analyses.cfg(m, f);
    let mut order: Vec<InstId> = Vec::new();
    for b in cfg.rpo() {
        for i in m.children(b.id()) {
            if m.op(i).is_instruction() {
                order.push(i);
            }
        }
    }
    // A FIFO in program order: an instruction whose operand was rewritten is usually still
    // waiting further down the queue, and is then looked at once, after all its operands.
    // (A stack revisited such a user after every operand: a `construct` of 40k folded
    // `convert`s was scanned 40k times, quadratic.) Users already visited go to the back.
    let mut queued: InstTable<()> = order.iter().map(|&i| (i, ())).collect();
    let mut work: std::collections::VecDeque<InstId> = order.into();
    let mut changed = false;
    while let Some(i) = work.pop_front() {
        queued.remove(i);
        if !m.contains(i) || m.parent(i).is_none() {
            continue;
        }
        let Some(rw) = simplify(m, i) else { continue };
        changed = true;
        let mut push = |x: InstId, work: &mut std::collections::VecDeque<InstId>| {
            if m.op(x).is_instruction() && queued.insert(x, ()).is_none() {
                work.push_back(x);
            }
        };
        match rw {
            Rewrite::Replace(v) => {
                let users: Vec<InstId> = m.uses(i).map(|u| u.user).collect();
                for u in users {
                    push(u, &mut work);
                }
                if m.op(v).is_instruction() {
                    push(v, &mut work);
                }
                m.replace_uses_with(i, v);
                // `i` has no uses left; removal cannot fail on an instruction in a block.
                let _ = m.remove(i);
            }
            Rewrite::Changed => {
                let users: Vec<InstId> = m.uses(i).map(|u| u.user).collect();
                push(i, &mut work);
                for u in users {
                    push(u, &mut work);
                }
            }
        }
    }
    changed
}

// ---- constants ---------------------------------------------------------------------------------

/// The scalar lanes of a constant (inline up to four: no allocation for scalars and short
/// vectors, which is most of what the rules look at).
fn lanes_of(m: &Module, v: InstId) -> Option<SmallVec<[(Scalar, u64); 4]>> {
    let val = known_constant(m, v)?;
    let mut lanes = SmallVec::new();
    value::flatten(&val, &mut lanes);
    (!lanes.is_empty()).then_some(lanes)
}

/// True when `v` is a constant whose every lane satisfies `pred`.
fn all_lanes(m: &Module, v: InstId, pred: impl Fn(Scalar, u64) -> bool) -> bool {
    lanes_of(m, v).is_some_and(|l| l.iter().all(|&(t, b)| pred(t, b & t.mask())))
}

fn is_int_const(m: &Module, v: InstId, k: i128) -> bool {
    all_lanes(m, v, |t, b| {
        (t.is_int() || t.is_bool()) && semantics::int_value(t, b) == k
    })
}

fn is_all_ones(m: &Module, v: InstId) -> bool {
    all_lanes(m, v, |t, b| t.is_int() && b == t.mask())
}

fn is_float_const(m: &Module, v: InstId, x: f64) -> bool {
    all_lanes(m, v, |t, b| {
        t.is_float() && semantics::float_value(t, b) == x
    })
}

fn is_neg_zero(m: &Module, v: InstId) -> bool {
    all_lanes(m, v, |t, b| t.is_float() && b == 1u64 << (t.width() - 1))
}

fn is_pos_zero(m: &Module, v: InstId) -> bool {
    all_lanes(m, v, |t, b| t.is_float() && b == 0)
}

fn has_nan_lane(m: &Module, v: InstId) -> bool {
    lanes_of(m, v).is_some_and(|l| l.iter().any(|&(t, b)| semantics::float_is_nan(t, b)))
}

fn is_constant(m: &Module, v: InstId) -> bool {
    known_constant(m, v).is_some()
}

fn materialize(m: &mut Module, ty: InstId, v: &Value) -> Option<Rewrite> {
    value_to_constant(m, ty, v).map(Rewrite::Replace)
}

/// The kind of the element scalar of `v`'s type.
fn scalar_of_value(m: &Module, v: InstId) -> Option<Scalar> {
    let t = m.ty(v)?;
    Scalar::of(m, m.scalar_of(t)?)
}

// ---- the rules ---------------------------------------------------------------------------------

fn simplify(m: &mut Module, i: InstId) -> Option<Rewrite> {
    let op = m.op(i);
    let ty = m.ty(i)?;
    if let Some(r) = fold(m, i, op, ty) {
        return Some(r);
    }
    if m.has_decoration(i, Op::Precise) {
        return None;
    }
    let ops: SmallVec<[InstId; 4]> = m.operands(i).collect();
    if let Some(bop) = BinaryOp::from_op(op) {
        return binary_rules(m, i, bop, ty, ops[0], ops[1]);
    }
    if let Some(cop) = CompareOp::from_op(op) {
        return compare_rules(m, i, cop, ty, ops[0], ops[1]);
    }
    match op {
        Op::Neg | Op::Not => {
            let a = ops[0];
            if m.op(a) == op && !m.has_decoration(a, Op::Precise) {
                return Some(Rewrite::Replace(m.operand(a, 0)));
            }
            if op == Op::Not && m.op(a).is_instruction() {
                let inner = CompareOp::from_op(m.op(a))?;
                let s = scalar_of_value(m, m.operand(a, 0))?;
                if s.is_float() {
                    // !(a < b) is not (a >= b) when an operand is NaN.
                    return None;
                }
                let inverse = match inner {
                    CompareOp::Eq => Op::Ne,
                    CompareOp::Ne => Op::Eq,
                    CompareOp::Lt => Op::Ge,
                    CompareOp::Le => Op::Gt,
                    CompareOp::Gt => Op::Le,
                    CompareOp::Ge => Op::Lt,
                };
                let (x, y) = (m.operand(a, 0), m.operand(a, 1));
                let mut b = Builder::new(m);
                b.position_before(i);
                let n = b.emit(inverse, Some(ty), &[x, y]);
                return Some(Rewrite::Replace(n));
            }
            None
        }
        Op::Select => {
            let (c, a, b) = (ops[0], ops[1], ops[2]);
            if a == b {
                return Some(Rewrite::Replace(a));
            }
            if let Some(lanes) = lanes_of(m, c) {
                if lanes.iter().all(|l| l.1 & 1 == 1) {
                    return Some(Rewrite::Replace(a));
                }
                if lanes.iter().all(|l| l.1 & 1 == 0) {
                    return Some(Rewrite::Replace(b));
                }
            }
            None
        }
        Op::Convert => (m.ty(ops[0]) == Some(ty)).then_some(Rewrite::Replace(ops[0])),
        Op::Bitcast => {
            let a = ops[0];
            if m.ty(a) == Some(ty) {
                return Some(Rewrite::Replace(a));
            }
            if m.op(a) == Op::Bitcast && m.ty(m.operand(a, 0)) == Some(ty) {
                return Some(Rewrite::Replace(m.operand(a, 0)));
            }
            None
        }
        Op::Extract => extract_rules(m, i, ty, &ops),
        Op::Construct => {
            // construct(v.0, v.1, ..., v.n-1) of v's own type is v.
            if m.op(ty) != Op::Vector {
                return None;
            }
            let mut src = None;
            for (k, &e) in ops.iter().enumerate() {
                if m.op(e) != Op::Extract || m.num_operands(e) != 2 {
                    return None;
                }
                if m.imm_operand(e, 1) != Some(k as u32) {
                    return None;
                }
                let s = m.operand(e, 0);
                if *src.get_or_insert(s) != s {
                    return None;
                }
            }
            let s = src?;
            (m.ty(s) == Some(ty) && m.vector_len(ty) == Some(ops.len() as u32))
                .then_some(Rewrite::Replace(s))
        }
        Op::Shuffle => {
            let (a, b) = (ops[0], ops[1]);
            let idx: Vec<u32> = ops[2..].iter().filter_map(|&k| m.imm_value(k)).collect();
            let la = m.ty(a).and_then(|t| m.vector_len(t))?;
            let n = idx.len() as u32;
            if m.ty(a) == Some(ty) && idx.iter().enumerate().all(|(k, &x)| x == k as u32) {
                return Some(Rewrite::Replace(a));
            }
            if m.ty(b) == Some(ty)
                && n == la
                && idx.iter().enumerate().all(|(k, &x)| x == la + k as u32)
            {
                return Some(Rewrite::Replace(b));
            }
            None
        }
        _ => None,
    }
}

/// Folds an instruction whose operands are all constants.
fn fold(m: &mut Module, i: InstId, op: Op, ty: InstId) -> Option<Rewrite> {
    let nops = m.num_operands(i);
    let operand_const = |m: &Module, k: usize| known_constant(m, m.operand(i, k));
    if let Some(bop) = BinaryOp::from_op(op) {
        let (a, b) = (operand_const(m, 0)?, operand_const(m, 1)?);
        let (v, ok) = binary_value(bop, &a, &b).ok()?;
        return if ok { materialize(m, ty, &v) } else { None };
    }
    if let Some(cop) = CompareOp::from_op(op) {
        let (a, b) = (operand_const(m, 0)?, operand_const(m, 1)?);
        let (v, ok) = compare_value(cop, &a, &b).ok()?;
        return if ok { materialize(m, ty, &v) } else { None };
    }
    if let Some(uop) = UnaryOp::from_op(op) {
        let a = operand_const(m, 0)?;
        let (v, ok) = unary_value(uop, &a).ok()?;
        return if ok { materialize(m, ty, &v) } else { None };
    }
    match op {
        Op::Convert | Op::Bitcast => {
            let a = operand_const(m, 0)?;
            let r = if op == Op::Convert {
                convert_value(m, &a, ty)
            } else {
                value::bitcast_value(m, &a, ty)
            };
            let (v, ok) = r.ok()?;
            if ok { materialize(m, ty, &v) } else { None }
        }
        Op::Construct => {
            let elems = (0..nops)
                .map(|k| operand_const(m, k))
                .collect::<Option<Vec<_>>>()?;
            let v = construct_value(m, ty, elems).ok()?;
            materialize(m, ty, &v)
        }
        Op::Extract => {
            let mut v = operand_const(m, 0)?;
            for k in 1..nops {
                let idx = m.imm_operand(i, k)?;
                v = value::element(&v, idx as u64).ok()?;
            }
            materialize(m, ty, &v)
        }
        Op::Insert => {
            let mut v = operand_const(m, 0)?;
            let e = operand_const(m, 1)?;
            let path: Vec<u32> = (2..nops)
                .map(|k| m.imm_operand(i, k))
                .collect::<Option<_>>()?;
            set_path(&mut v, &path, e).ok()?;
            materialize(m, ty, &v)
        }
        Op::Shuffle => {
            let (a, b) = (operand_const(m, 0)?, operand_const(m, 1)?);
            let idx: Vec<u32> = (2..nops)
                .map(|k| m.imm_operand(i, k))
                .collect::<Option<_>>()?;
            let v = value::shuffle_value(&a, &b, &idx).ok()?;
            materialize(m, ty, &v)
        }
        Op::CallIntrinsic => {
            let which = Intrinsic::from_u32(m.imm_operand(i, 0)?)?;
            if which == Intrinsic::Dot {
                return fold_int_dot(m, i, ty);
            }
            if !semantics::is_component_wise(which) || which == Intrinsic::NonUniformIndex {
                return None;
            }
            let args = (1..nops)
                .map(|k| operand_const(m, k))
                .collect::<Option<Vec<_>>>()?;
            let result = Scalar::of(m, m.scalar_of(ty)?)?;
            let refs: Vec<&Value> = args.iter().collect();
            let (v, ok) = value::zip_n(&refs, &mut |lanes| {
                Ok((result, semantics::intrinsic(which, result, lanes)?))
            })
            .ok()?;
            if ok { materialize(m, ty, &v) } else { None }
        }
        _ => None,
    }
}

/// `dot` of constant integer vectors (or scalars): wrapping products and sums, the same on
/// every GPU. Float `dot` is left to the GPU (the order and fusion of its operations are the
/// implementation's).
fn fold_int_dot(m: &mut Module, i: InstId, ty: InstId) -> Option<Rewrite> {
    if !Scalar::of(m, m.scalar_of(ty)?)?.is_int() || m.num_operands(i) != 3 {
        return None;
    }
    let (a, b) = (
        known_constant(m, m.operand(i, 1))?,
        known_constant(m, m.operand(i, 2))?,
    );
    let v = match (&a, &b) {
        (Value::Scalar(..), Value::Scalar(..)) => binary_value(BinaryOp::Mul, &a, &b).ok()?.0,
        _ => value::dot_value(&a, &b).ok()?,
    };
    materialize(m, ty, &v)
}

fn is_commutative(op: BinaryOp) -> bool {
    matches!(
        op,
        BinaryOp::Add | BinaryOp::Mul | BinaryOp::And | BinaryOp::Or | BinaryOp::Xor
    )
}

/// Emits `op a, b : ty` before `i`.
fn emit_before(m: &mut Module, i: InstId, op: Op, ty: InstId, operands: &[InstId]) -> InstId {
    let mut b = Builder::new(m);
    b.position_before(i);
    b.emit(op, Some(ty), operands)
}

fn binary_rules(
    m: &mut Module,
    i: InstId,
    op: BinaryOp,
    ty: InstId,
    a: InstId,
    b: InstId,
) -> Option<Rewrite> {
    let s = scalar_of_value(m, a)?;
    // Constants to the right of commutative operators (not a NaN constant: which NaN an
    // operation returns depends on the operand order on some hardware).
    if is_commutative(op) && is_constant(m, a) && !is_constant(m, b) && !has_nan_lane(m, a) {
        // `i` is an ordinary instruction: set_operands cannot refuse.
        let _ = m.set_operands(i, &[b, a]);
        return Some(Rewrite::Changed);
    }
    if s.is_float() {
        return match op {
            BinaryOp::Mul | BinaryOp::Div if is_float_const(m, b, 1.0) => Some(Rewrite::Replace(a)),
            BinaryOp::Add if is_neg_zero(m, b) => Some(Rewrite::Replace(a)),
            BinaryOp::Sub if is_pos_zero(m, b) => Some(Rewrite::Replace(a)),
            _ => None,
        };
    }
    if s.is_bool() {
        let t = |m: &Module, v| is_int_const(m, v, 1);
        let f = |m: &Module, v| is_int_const(m, v, 0);
        return match op {
            BinaryOp::And if t(m, b) || a == b => Some(Rewrite::Replace(a)),
            BinaryOp::And if f(m, b) => Some(Rewrite::Replace(b)),
            BinaryOp::Or if f(m, b) || a == b => Some(Rewrite::Replace(a)),
            BinaryOp::Or if t(m, b) => Some(Rewrite::Replace(b)),
            BinaryOp::Xor if f(m, b) => Some(Rewrite::Replace(a)),
            BinaryOp::Xor if t(m, b) => {
                Some(Rewrite::Replace(emit_before(m, i, Op::Not, ty, &[a])))
            }
            BinaryOp::Xor if a == b => {
                let z = m.zero(ty);
                Some(Rewrite::Replace(z))
            }
            _ => None,
        };
    }
    // Integers.
    let zero_of = |m: &mut Module| -> InstId {
        let v = zero_value(m, ty).unwrap_or(Value::Opaque);
        value_to_constant(m, ty, &v).unwrap_or_else(|| m.zero(ty))
    };
    match op {
        BinaryOp::Add | BinaryOp::Or | BinaryOp::Xor if is_int_const(m, b, 0) => {
            return Some(Rewrite::Replace(a));
        }
        BinaryOp::Sub if is_int_const(m, b, 0) => return Some(Rewrite::Replace(a)),
        BinaryOp::Sub | BinaryOp::Xor if a == b => return Some(Rewrite::Replace(zero_of(m))),
        BinaryOp::Mul | BinaryOp::Div if is_int_const(m, b, 1) => {
            return Some(Rewrite::Replace(a));
        }
        BinaryOp::Mul | BinaryOp::And if is_int_const(m, b, 0) => {
            return Some(Rewrite::Replace(b));
        }
        BinaryOp::Mul if is_all_ones(m, b) => {
            return Some(Rewrite::Replace(emit_before(m, i, Op::Neg, ty, &[a])));
        }
        BinaryOp::Rem if is_int_const(m, b, 1) => return Some(Rewrite::Replace(zero_of(m))),
        BinaryOp::And if is_all_ones(m, b) || a == b => return Some(Rewrite::Replace(a)),
        BinaryOp::Or if a == b => return Some(Rewrite::Replace(a)),
        BinaryOp::Or if is_all_ones(m, b) => return Some(Rewrite::Replace(b)),
        BinaryOp::Shl | BinaryOp::Shr => {
            let amount_zero = all_lanes(m, b, |t, bits| {
                t.is_int() && bits & (s.width() as u64 - 1) == 0
            });
            if amount_zero || is_int_const(m, a, 0) {
                return Some(Rewrite::Replace(a));
            }
            return None;
        }
        _ => {}
    }
    // x - c  ->  x + (-c): one canonical form for constant offsets.
    if op == BinaryOp::Sub && !is_constant(m, a) {
        let c = known_constant(m, b)?;
        let (neg, _) = unary_value(UnaryOp::Neg, &c).ok()?;
        let nc = value_to_constant(m, ty, &neg)?;
        let n = emit_before(m, i, Op::Add, ty, &[a, nc]);
        return Some(Rewrite::Replace(n));
    }
    // (x op c1) op c2  ->  x op (c1 op c2) for associative integer operators.
    if is_commutative(op)
        && is_constant(m, b)
        && m.op(a) == m.op(i)
        && !m.has_decoration(a, Op::Precise)
    {
        let (x, c1) = (m.operand(a, 0), m.operand(a, 1));
        let (v1, v2) = (known_constant(m, c1)?, known_constant(m, b)?);
        let (v, ok) = binary_value(op, &v1, &v2).ok()?;
        if !ok {
            return None;
        }
        let c = value_to_constant(m, ty, &v)?;
        let n = emit_before(m, i, m.op(i), ty, &[x, c]);
        return Some(Rewrite::Replace(n));
    }
    None
}

fn compare_rules(
    m: &mut Module,
    i: InstId,
    op: CompareOp,
    ty: InstId,
    a: InstId,
    b: InstId,
) -> Option<Rewrite> {
    let s = scalar_of_value(m, a)?;
    if s.is_float() {
        return None;
    }
    if matches!(op, CompareOp::Eq | CompareOp::Ne) && is_constant(m, a) && !is_constant(m, b) {
        // `i` is an ordinary instruction: set_operands cannot refuse.
        let _ = m.set_operands(i, &[b, a]);
        return Some(Rewrite::Changed);
    }
    if a == b {
        let r = matches!(op, CompareOp::Eq | CompareOp::Le | CompareOp::Ge);
        let n = m.vector_len(ty).unwrap_or(1);
        let v = if m.op(ty) == Op::Vector {
            Value::Composite(vec![Value::bool(r); n as usize])
        } else {
            Value::bool(r)
        };
        return materialize(m, ty, &v);
    }
    if s.is_bool() {
        let keeps = (op == CompareOp::Eq && is_int_const(m, b, 1))
            || (op == CompareOp::Ne && is_int_const(m, b, 0));
        if keeps {
            return Some(Rewrite::Replace(a));
        }
        let flips = (op == CompareOp::Eq && is_int_const(m, b, 0))
            || (op == CompareOp::Ne && is_int_const(m, b, 1));
        if flips {
            return Some(Rewrite::Replace(emit_before(m, i, Op::Not, ty, &[a])));
        }
    }
    None
}

fn extract_rules(m: &mut Module, i: InstId, ty: InstId, ops: &[InstId]) -> Option<Rewrite> {
    let src = ops[0];
    let idx: Vec<u32> = ops[1..]
        .iter()
        .map(|&k| m.imm_value(k))
        .collect::<Option<_>>()?;
    let first = *idx.first()?;
    match m.op(src) {
        Op::Construct => {
            let sty = m.ty(src)?;
            let parts: Vec<InstId> = m.operands(src).collect();
            let (part, rest): (InstId, Vec<u32>) = if m.op(sty) == Op::Vector {
                // Components may come from scalars and vectors: find the one holding `first`.
                let mut offset = 0u32;
                let mut found = None;
                for &p in &parts {
                    let n = m.ty(p).and_then(|t| m.vector_len(t)).unwrap_or(1);
                    if first < offset + n {
                        found = Some(if m.ty(p).is_some_and(|t| m.op(t) == Op::Vector) {
                            (p, vec![first - offset])
                        } else {
                            (p, Vec::new())
                        });
                        break;
                    }
                    offset += n;
                }
                found?
            } else {
                (*parts.get(first as usize)?, Vec::new())
            };
            let mut rest = rest;
            rest.extend_from_slice(&idx[1..]);
            if rest.is_empty() {
                return Some(Rewrite::Replace(part));
            }
            let mut operands = vec![part];
            operands.extend(rest.iter().map(|&k| m.imm(k)));
            let n = emit_before(m, i, Op::Extract, ty, &operands);
            Some(Rewrite::Replace(n))
        }
        Op::Insert => {
            let ins: Vec<InstId> = m.operands(src).collect();
            let ins_idx: Vec<u32> = ins[2..]
                .iter()
                .map(|&k| m.imm_value(k))
                .collect::<Option<_>>()?;
            if ins_idx == idx {
                return Some(Rewrite::Replace(ins[1]));
            }
            // Disjoint paths: read through the insert.
            let common = ins_idx.iter().zip(&idx).take_while(|(x, y)| x == y).count();
            if common < ins_idx.len() && common < idx.len() {
                // `i` is an ordinary instruction: set_operand cannot refuse.
                let _ = m.set_operand(i, 0, ins[0]);
                return Some(Rewrite::Changed);
            }
            None
        }
        Op::Load => narrow_load(m, i, ty, src, &idx),
        _ => None,
    }
}

/// `extract (load p), path` where nothing else uses the load: only the part the path names is
/// read, `load (addr p, path)`, at the load's place (so it stays ordered with the stores
/// around it). The address follows the path through structs and arrays; the rest of the path
/// (into a vector or matrix, which are read whole) stays an `extract` of the narrower load.
/// A load with decorations is left alone.
fn narrow_load(
    m: &mut Module,
    i: InstId,
    ty: InstId,
    load: InstId,
    idx: &[u32],
) -> Option<Rewrite> {
    if m.uses(load).nth(1).is_some() || m.first_child(load).is_some() {
        return None;
    }
    // How much of the path addresses can follow (read-only, so nothing is built in vain).
    let mut pointee = m.ty(m.operand(load, 0)).and_then(|t| m.pointee(t))?;
    let mut taken = 0;
    for &k in idx {
        let inside = match m.op(pointee) {
            Op::Struct => true,
            Op::Array => m.array_len(pointee).is_some_and(|len| k < len),
            _ => false,
        };
        let Some(elem) = m.element_type_of(pointee, k).filter(|_| inside) else {
            break;
        };
        pointee = elem;
        taken += 1;
    }
    if taken == 0 {
        return None;
    }
    let mut ptr = m.operand(load, 0);
    let mut bl = Builder::new(m);
    bl.position_before(load);
    for &k in &idx[..taken] {
        ptr = if bl.m.op(bl.m.ty(ptr).and_then(|t| bl.m.pointee(t))?) == Op::Struct {
            bl.field_addr(ptr, k)
        } else {
            let index = bl.m.const_u32(k);
            bl.element_addr(ptr, index)
        };
    }
    let narrow = bl.load(ptr);
    let rest = &idx[taken..];
    if rest.is_empty() {
        return Some(Rewrite::Replace(narrow));
    }
    let mut operands = vec![narrow];
    operands.extend(rest.iter().map(|&k| m.imm(k)));
    Some(Rewrite::Replace(emit_before(
        m,
        i,
        Op::Extract,
        ty,
        &operands,
    )))
}
