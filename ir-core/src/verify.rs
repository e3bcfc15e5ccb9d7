//! The verifier: `verify(&Module) -> Vec<Diagnostic>`, never panicking on any module the
//! public API can build (including corrupted ones).
//!
//! Checks run in layers, handles before meaning: tree links and placement first, then use
//! lists, then operand kinds; instructions that fail a structural layer are not type-checked.
//! Every message names the offending instruction in text form.
//!
//! The codes (`OSV0001` ..) and the rule each one checks are listed once, in docs/ir-ops.md
//! ("What the verifier enforces"); a unit test keeps that list and this file in step.

use crate::BuiltIn;
use rustc_hash::FxHashSet;
use slotmap::SecondaryMap;

use crate::inst_table::InstTable;

use crate::analysis::{ModuleInfo, StageSet};
use crate::cfg::Cfg;
use crate::constructs::{BadEdge, Construct, ConstructKind, Constructs};
use crate::diag::{Diagnostic, Errors};
use crate::imm::Intrinsic;
use crate::imm::{
    AddressSpace, BarrierFlags, Partitioning, Primitive, RayQueryValue, Stage, TessDomain,
    TextureAccess, ValueShape,
};
use crate::module::{InstId, Module, NIL};
use crate::ops::{Kind, Op, TypeRule};
use crate::print::{InstPrinter, print_inst};
use crate::structure::{Block, Func};

/// Verifies the module; an empty result means it is valid.
pub fn verify(m: &Module) -> Vec<Diagnostic> {
    let mut v = Verifier {
        m,
        diags: Vec::new(),
        bad: FxHashSet::default(),
        printer: None,
        for_source: false,
    };
    v.run();
    v.diags
}

/// The stage rules alone (OSV0028: what only some stages may do, reached from an entry point
/// of another stage), as a front end reports them for user code: each diagnostic is at the
/// instruction's or global's source position ([`Diagnostic::at_inst`]) and its message names
/// the entry point and the stages, without the IR. The module must be otherwise valid (a
/// front end's lowered module is).
pub fn verify_stages(m: &Module) -> Vec<Diagnostic> {
    let mut v = Verifier {
        m,
        diags: Vec::new(),
        bad: FxHashSet::default(),
        printer: None,
        for_source: true,
    };
    v.stage_rules();
    v.diags
}

/// Verifies and returns `Err` with the diagnostics when anything is wrong.
pub fn verify_ok(m: &Module) -> Result<(), Errors> {
    let d = verify(m);
    if d.is_empty() {
        Ok(())
    } else {
        Err(Errors::new(d))
    }
}

/// Most diagnostics reported for one module (a corrupted module could otherwise produce one
/// per instruction).
const MAX_DIAGS: usize = 200;

struct Verifier<'a> {
    m: &'a Module,
    diags: Vec<Diagnostic>,
    /// Instructions that failed a structural check; later layers skip them.
    bad: FxHashSet<InstId>,
    /// Prints the instructions diagnostics name; made at the first one, since naming the
    /// module's items costs a walk of the module.
    printer: Option<InstPrinter<'a>>,
    /// Diagnostics for a front end's user ([`verify_stages`]): positioned, the IR as a note.
    for_source: bool,
}

impl<'a> Verifier<'a> {
    fn report(&mut self, code: &'static str, id: Option<InstId>, msg: impl Into<String>) {
        if self.diags.len() >= MAX_DIAGS {
            return;
        }
        let mut msg = msg.into();
        let Some(id) = id else {
            self.diags.push(Diagnostic::error(code, msg));
            return;
        };
        if !self.for_source
            && let Some(f) = self.m.try_op(id).and_then(|_| self.m.func_of(id))
        {
            let name = self.m.name(f.id()).unwrap_or("?");
            msg = format!("{msg}; in @{name}");
        }
        let ir = self.describe(id);
        self.bad.insert(id);
        let d = if self.for_source {
            // For a front end: the message stays about the program, the IR instruction is a
            // note, and the position is where the instruction came from.
            Diagnostic::error(code, msg)
                .with_note(format!("IR: `{ir}`"))
                .at_inst_or_use(self.m, id)
        } else {
            Diagnostic::error(code, format!("{msg}: `{ir}`"))
        };
        self.diags.push(d);
    }

    fn describe(&mut self, id: InstId) -> String {
        if !self.m.contains(id) {
            return "<removed instruction>".into();
        }
        // Printing walks operands; printing a structurally broken instruction is still safe
        // because the printer only reads live ids.
        let m = self.m;
        self.printer
            .get_or_insert_with(|| InstPrinter::new(m))
            .print(id)
    }

    fn run(&mut self) {
        let order = self.tree();
        self.use_lists();
        for &id in &order {
            self.operand_kinds(id);
        }
        for &id in &order {
            if self.bad.contains(&id) {
                continue;
            }
            let op = self.m.op(id);
            if op.is_hoistable() {
                self.hoistable(id);
            } else if op.is_decoration() {
                self.decoration(id);
            } else if op == Op::Global {
                self.global(id);
            } else if op == Op::Struct {
                let fields = self.m.struct_fields(id);
                for &f in &fields {
                    if self.m.ty(f).is_none_or(|t| !self.is_type(t)) {
                        self.report("OSV0018", Some(f), "a field's type must be a type");
                    }
                }
                self.struct_memory(id, &fields);
            }
        }
        if self
            .diags
            .iter()
            .any(|d| matches!(d.code, "OSV0001" | "OSV0002" | "OSV0004"))
        {
            // Control-flow analyses assume a sound tree and use lists.
            return;
        }
        let funcs: Vec<InstId> = order
            .iter()
            .copied()
            .filter(|&id| self.m.op(id) == Op::Func)
            .collect();
        for f in funcs {
            self.function(Func::cast(self.m, f));
        }
        self.entry_points(&order);
    }

    // ---- layer 1: tree ---------------------------------------------------------------------

    /// Walks the tree from the root, checking links and placement; returns preorder.
    fn tree(&mut self) -> Vec<InstId> {
        let m = self.m;
        let mut order = Vec::new();
        let mut seen: SecondaryMap<InstId, ()> = SecondaryMap::with_capacity(m.len());
        let mut stack = vec![m.root()];
        seen.insert(m.root(), ());
        while let Some(p) = stack.pop() {
            order.push(p);
            let first = m.inst(p).first_child;
            let mut prev: Option<InstId> = None;
            let mut cur = first;
            let mut kids = Vec::new();
            while let Some(c) = cur {
                if !m.contains(c) {
                    self.report(
                        "OSV0001",
                        Some(p),
                        "a child link points at a removed instruction",
                    );
                    break;
                }
                if seen.insert(c, ()).is_some() {
                    self.report(
                        "OSV0001",
                        Some(c),
                        "the child list has a cycle or shares a node",
                    );
                    break;
                }
                let ci = m.inst(c);
                if ci.parent != Some(p) {
                    self.report(
                        "OSV0001",
                        Some(c),
                        "child's parent link does not name its parent",
                    );
                }
                if let Some(pr) = prev
                    && ci.prev != Some(pr)
                {
                    self.report("OSV0001", Some(c), "previous-sibling link is wrong");
                }
                kids.push(c);
                prev = Some(c);
                cur = ci.next;
            }
            if let (Some(f), Some(last)) = (first, prev)
                && m.contains(f)
                && m.inst(f).prev != Some(last)
            {
                self.report(
                    "OSV0001",
                    Some(p),
                    "first child does not link to the last child",
                );
            }
            self.placement(p, &kids);
            for &c in kids.iter().rev() {
                stack.push(c);
            }
        }
        for id in m.all_ids() {
            if !seen.contains_key(id) {
                self.report(
                    "OSV0001",
                    Some(id),
                    "instruction is not in the module's tree",
                );
            }
        }
        order
    }

    fn placement(&mut self, p: InstId, kids: &[InstId]) {
        let m = self.m;
        let pop = m.op(p);
        // Decorations first.
        let mut past_decos = false;
        for &c in kids {
            let op = m.op(c);
            if op.is_decoration() {
                if past_decos {
                    self.report("OSV0002", Some(c), "decorations must be the first children");
                }
            } else {
                past_decos = true;
            }
        }
        let is_generic_body =
            pop == Op::Block && m.parent(p).is_some_and(|g| m.op(g) == Op::Generic);
        for &c in kids {
            let op = m.op(c);
            if op.is_decoration() {
                continue;
            }
            let ok = match pop {
                Op::Module => {
                    op.is_hoistable()
                        || matches!(op, Op::Struct | Op::Global | Op::Func | Op::Generic)
                }
                Op::Func => op == Op::Block,
                Op::Generic => op == Op::Block,
                Op::Struct => op == Op::Field,
                Op::Block if is_generic_body => {
                    op.is_hoistable()
                        || matches!(op, Op::Param | Op::Struct | Op::Func | Op::Generic)
                        || op == Op::Return
                }
                Op::Block => op == Op::Param || op.is_instruction() || op.is_terminator(),
                _ => false,
            };
            if !ok {
                self.report(
                    "OSV0002",
                    Some(c),
                    format!(
                        "a `{}` cannot be a child of a `{}`",
                        op.spelling(),
                        pop.spelling()
                    ),
                );
            }
        }
        if pop == Op::Generic && kids.iter().filter(|&&c| m.op(c) == Op::Block).count() != 1 {
            self.report("OSV0002", Some(p), "a generic has exactly one body block");
        }
        if pop == Op::Block {
            // Params first.
            let mut past_params = false;
            for &c in kids {
                let op = m.op(c);
                if op == Op::Param {
                    if past_params {
                        self.report("OSV0002", Some(c), "block parameters must come first");
                    }
                } else if !op.is_decoration() {
                    past_params = true;
                }
            }
            let in_func = m.parent(p).is_some_and(|f| m.op(f) == Op::Func);
            if in_func {
                let terms: Vec<usize> = kids
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| m.op(**c).is_terminator())
                    .map(|(i, _)| i)
                    .collect();
                match terms.as_slice() {
                    [] => self.report("OSV0003", Some(p), "block has no terminator"),
                    [i] if *i + 1 == kids.len() => {}
                    [i] => self.report(
                        "OSV0003",
                        Some(kids[*i]),
                        "terminator is not the last instruction of its block",
                    ),
                    _ => self.report(
                        "OSV0003",
                        Some(kids[terms[1]]),
                        "block has more than one terminator",
                    ),
                }
            }
            if is_generic_body {
                let rets = kids.iter().filter(|&&c| m.op(c) == Op::Return).count();
                if rets != 1 || kids.last().is_none_or(|&c| m.op(c) != Op::Return) {
                    self.report(
                        "OSV0003",
                        Some(p),
                        "a generic's body ends in exactly one `return` of what it yields",
                    );
                }
            }
        }
    }

    // ---- layer 2: use lists ------------------------------------------------------------------

    fn use_lists(&mut self) {
        let m = self.m;
        let mut expected: SecondaryMap<InstId, usize> = SecondaryMap::with_capacity(m.len());
        for id in m.all_ids() {
            let inst = m.inst(id);
            let start = inst.uses_start as usize;
            let end = start + 1 + inst.num_operands as usize;
            if end > m.uses.len() {
                self.report(
                    "OSV0004",
                    Some(id),
                    "operand range lies outside the use pool",
                );
                continue;
            }
            for (k, u) in m.uses[start..end].iter().enumerate() {
                if u.user != id {
                    self.report("OSV0004", Some(id), "a use node does not name its user");
                }
                match u.value {
                    Some(v) if !m.contains(v) => self.report(
                        "OSV0004",
                        Some(id),
                        "an operand refers to a removed instruction",
                    ),
                    Some(v) => {
                        if let Some(e) = expected.entry(v) {
                            *e.or_insert(0) += 1;
                        }
                    }
                    None if k > 0 => self.report("OSV0004", Some(id), "an operand slot is empty"),
                    None => {}
                }
            }
        }
        for id in m.all_ids() {
            let mut count = 0usize;
            let mut prev = NIL;
            let mut cur = m.inst(id).use_head;
            let limit = m.uses.len() + 1;
            while cur != NIL {
                let Some(u) = m.uses.get(cur as usize) else {
                    self.report("OSV0004", Some(id), "use list points outside the use pool");
                    break;
                };
                if u.value != Some(id) {
                    self.report("OSV0004", Some(id), "use list holds a use of another value");
                    break;
                }
                if u.prev != prev {
                    self.report("OSV0004", Some(id), "use list back link is wrong");
                    break;
                }
                count += 1;
                if count > limit {
                    self.report("OSV0004", Some(id), "use list has a cycle");
                    break;
                }
                prev = cur;
                cur = u.next;
            }
            let want = expected.get(id).copied().unwrap_or(0);
            if count != want && count <= limit {
                self.report(
                    "OSV0004",
                    Some(id),
                    format!("use list has {count} node(s) but {want} slot(s) refer to it"),
                );
            }
        }
    }

    // ---- layer 3: operand kinds ------------------------------------------------------------

    fn is_type(&self, id: InstId) -> bool {
        let m = self.m;
        match m.try_op(id) {
            Some(op) if op.is_type() => true,
            // A generic type parameter, or a specialization yielding a type.
            Some(Op::Param) | Some(Op::Specialize) => {
                m.ty(id).and_then(|t| m.try_op(t)) == Some(Op::TypeType)
            }
            _ => false,
        }
    }

    fn is_u32_const(&self, id: InstId) -> bool {
        let m = self.m;
        m.try_op(id) == Some(Op::ConstInt) && m.ty(id).and_then(|t| m.try_op(t)) == Some(Op::U32)
    }

    fn operand_kinds(&mut self, id: InstId) {
        let m = self.m;
        let op = m.op(id);
        let info = op.info();
        let n = m.num_operands(id);
        if !info.arity_ok(n) {
            self.report(
                "OSV0005",
                Some(id),
                format!("`{}` does not take {n} operand(s)", op.spelling()),
            );
            return;
        }
        // Type presence follows the rule.
        let has_ty = m.ty(id).is_some();
        let wants_ty = info.ty != TypeRule::None;
        if has_ty != wants_ty {
            self.report(
                "OSV0005",
                Some(id),
                if wants_ty {
                    "instruction has no type"
                } else {
                    "instruction must not have a type"
                },
            );
            return;
        }
        if let Some(t) = m.ty(id)
            && m.contains(t)
            && !self.is_type(t)
        {
            self.report("OSV0005", Some(id), "the type slot does not hold a type");
            return;
        }
        for i in 0..n {
            let Some(v) = m.try_operand(id, i) else {
                continue;
            };
            if !m.contains(v) {
                continue; // reported by use_lists
            }
            let vop = m.op(v);
            let ok = match info.kind(i) {
                Some(Kind::Block) | Some(Kind::Join(_)) => vop == Op::Block,
                Some(Kind::Type) => self.is_type(v),
                Some(Kind::TypeOrValue) => true,
                Some(Kind::Func) => {
                    vop == Op::Func
                        || (vop == Op::Specialize
                            && m.ty(v).and_then(|t| m.try_op(t)) == Some(Op::FnType))
                }
                Some(Kind::Generic) => vop == Op::Generic,
                Some(Kind::Int) => self.is_u32_const(v),
                Some(Kind::Imm(k)) => {
                    self.is_u32_const(v) && m.imm_value(v).is_some_and(|x| k.is_valid(x))
                }
                Some(Kind::Const) => vop == Op::ConstInt,
                Some(Kind::Str) => vop == Op::ConstString,
                Some(Kind::Value) => {
                    // A generic may yield a type.
                    let yields = op == Op::Return
                        && m.parent(id)
                            .and_then(|b| m.parent(b))
                            .is_some_and(|g| m.op(g) == Op::Generic);
                    !matches!(vop, Op::Block | Op::Module | Op::Field)
                        && !vop.is_decoration()
                        && !vop.is_terminator()
                        && (!vop.is_type() || yields)
                }
                None => false,
            };
            if !ok {
                let want = match info.kind(i) {
                    Some(Kind::Block) | Some(Kind::Join(_)) => "a block".to_string(),
                    Some(Kind::Type) => "a type".to_string(),
                    Some(Kind::Func) => "a function".to_string(),
                    Some(Kind::Generic) => "a generic".to_string(),
                    Some(Kind::Int) => "a u32 immediate".to_string(),
                    Some(Kind::Imm(k)) => format!("a valid {k:?} immediate"),
                    Some(Kind::Const) => "an integer constant".to_string(),
                    Some(Kind::Str) => "a string constant".to_string(),
                    _ => "a value".to_string(),
                };
                self.report(
                    "OSV0005",
                    Some(id),
                    format!("operand {i} of `{}` must be {want}", op.spelling()),
                );
                return;
            }
        }
    }

    // ---- hoistable values ------------------------------------------------------------------

    fn hoistable(&mut self, id: InstId) {
        let m = self.m;
        if !m.is_interned(id) {
            self.report("OSV0006", Some(id), "hoistable value is not interned");
        } else if let Some(other) = m.lookup_like(id) {
            let _ = other;
            self.report(
                "OSV0006",
                Some(id),
                "two hoistable values are structurally equal",
            );
        }
        // Scope.
        let parent = m.parent(id);
        let in_scope_parent = parent.is_some_and(|p| {
            p == m.root()
                || (m.op(p) == Op::Block && m.parent(p).is_some_and(|g| m.op(g) == Op::Generic))
        });
        if !in_scope_parent {
            self.report(
                "OSV0007",
                Some(id),
                "hoistable value must live at module level or in a generic's body",
            );
        } else {
            for v in m.operands(id).chain(m.ty(id)) {
                if !m.contains(v) {
                    continue;
                }
                let vop = m.op(v);
                let local = vop.is_instruction()
                    || vop.is_terminator()
                    || (vop == Op::Param && !self.is_generic_param(v));
                if local {
                    self.report(
                        "OSV0007",
                        Some(id),
                        "hoistable value uses a function-local value",
                    );
                    return;
                }
            }
            let required = m.required_scope(id);
            if parent != Some(required) {
                self.report(
                    "OSV0007",
                    Some(id),
                    "hoistable value is not in the outermost scope its operands allow",
                );
            }
        }
        self.well_formed(id);
    }

    fn is_generic_param(&self, v: InstId) -> bool {
        let m = self.m;
        m.op(v) == Op::Param
            && m.parent(v)
                .and_then(|b| m.parent(b))
                .is_some_and(|g| m.op(g) == Op::Generic)
    }

    /// Types and constants are well formed (OSV0018).
    fn well_formed(&mut self, id: InstId) {
        let m = self.m;
        let op = m.op(id);
        let ty = m.ty(id);
        let tyop = ty.and_then(|t| m.try_op(t));
        let fail = |v: &mut Self, msg: &str| v.report("OSV0018", Some(id), msg.to_string());
        match op {
            Op::Vector => {
                let e = m.operand(id, 0);
                let n = m.imm_operand(id, 1).unwrap_or(0);
                if !m.try_op(e).is_some_and(|o| o.is_scalar_type()) && !self.is_generic_param(e) {
                    fail(self, "a vector's element must be a scalar type");
                } else if !(2..=4).contains(&n) {
                    fail(self, "a vector has 2 to 4 components");
                }
            }
            Op::Matrix => {
                let e = m.operand(id, 0);
                let r = m.imm_operand(id, 1).unwrap_or(0);
                let c = m.imm_operand(id, 2).unwrap_or(0);
                if !m
                    .try_op(e)
                    .is_some_and(|o| o.is_scalar_type() && o != Op::Bool)
                    && !self.is_generic_param(e)
                {
                    fail(self, "a matrix's element must be a numeric scalar type");
                } else if !(1..=4).contains(&r) || !(1..=4).contains(&c) {
                    fail(self, "a matrix has 1 to 4 rows and columns");
                }
            }
            Op::Array if m.imm_operand(id, 1) == Some(0) => {
                fail(self, "an array has at least one element");
            }
            Op::Ptr => self.pointer_type(id),
            Op::Array | Op::RuntimeArray if holds(m, m.operand(id, 0), Holds::Pointer) => {
                self.report(
                    "OSV0027",
                    Some(id),
                    "an array cannot hold pointers (logical addressing stores no pointer)",
                );
            }
            Op::Texture => {
                let t = m.operand(id, 0);
                let ok_elem = m.scalar_of(t).is_some_and(|s| m.op(s) != Op::Bool)
                    && m.try_op(t) != Some(Op::Matrix);
                let flags_ok = (2..=4).all(|i| m.imm_operand(id, i).is_some_and(|v| v <= 2))
                    && m.imm_operand(id, 2).is_some_and(|v| v <= 1)
                    && m.imm_operand(id, 3).is_some_and(|v| v <= 1);
                if !ok_elem {
                    fail(
                        self,
                        "a texture's element must be a numeric scalar or vector",
                    );
                } else if !flags_ok {
                    fail(
                        self,
                        "texture flags: arrayed and multisampled are 0/1, depth 0..2",
                    );
                }
            }
            Op::ConstBool if tyop != Some(Op::Bool) => {
                fail(self, "a bool constant must have type bool");
            }
            Op::ConstInt => {
                if !tyop.is_some_and(|o| o.is_int_type()) {
                    fail(self, "an integer constant must have an integer type");
                } else if let (Some(b), Some(w)) =
                    (m.literal_bits(id), ty.and_then(|t| m.scalar_bits(t)))
                    && w < 64
                    && b >> w != 0
                {
                    fail(self, "integer constant bits exceed its type's width");
                }
            }
            Op::ConstFloat => {
                if !tyop.is_some_and(|o| o.is_float_type()) {
                    fail(self, "a float constant must have a float type");
                } else if let (Some(b), Some(w)) =
                    (m.literal_bits(id), ty.and_then(|t| m.scalar_bits(t)))
                    && w < 64
                    && b >> w != 0
                {
                    fail(self, "float constant bits exceed its type's width");
                }
            }
            Op::ConstString if tyop != Some(Op::StringType) => {
                fail(self, "a string constant must have type string");
            }
            Op::Composite => self.composite(id),
            Op::Zero | Op::Undef => {}
            Op::SpecConst => {
                let d = m.operand(id, 1);
                if !matches!(
                    m.try_op(d),
                    Some(Op::ConstBool | Op::ConstInt | Op::ConstFloat)
                ) {
                    fail(self, "a spec_const's default must be a scalar constant");
                } else if m.ty(d) != ty {
                    fail(self, "a spec_const has its default's type");
                }
            }
            Op::Specialize => {
                let g = m.operand(id, 0);
                let nparams = m
                    .children(g)
                    .find(|&b| m.op(b) == Op::Block)
                    .map(|b| m.children(b).filter(|&c| m.op(c) == Op::Param).count())
                    .unwrap_or(0);
                if nparams != m.num_operands(id) - 1 {
                    fail(self, "specialize needs one argument per generic parameter");
                }
            }
            _ => {}
        }
    }

    /// OSV0026 and OSV0027 on a struct's fields: a runtime array only as the last field (a
    /// storage buffer's), and no pointer fields.
    fn struct_memory(&mut self, id: InstId, fields: &[InstId]) {
        let m = self.m;
        for (i, &f) in fields.iter().enumerate() {
            let Some(t) = m.ty(f) else { continue };
            if holds(m, t, Holds::Pointer) {
                self.report(
                    "OSV0027",
                    Some(f),
                    "a struct field cannot hold a pointer (logical addressing stores no pointer)",
                );
            }
            if holds(m, t, Holds::RayQuery) || holds(m, t, Holds::Accel) {
                self.report(
                    "OSV0029",
                    Some(f),
                    "a struct field cannot hold a `ray_query` or an `accel_struct` (opaque \
                     objects live in variables of their own)",
                );
            }
            let last = i + 1 == fields.len();
            if holds(m, t, Holds::RuntimeArray) && !(last && is_plain_rtarray(m, t)) {
                self.report(
                    "OSV0026",
                    Some(f),
                    format!(
                        "a runtime array may only be the last field of a struct, as \
                         `rtarray<T>` with no runtime array in `T`; in @{}",
                        m.name(id).unwrap_or("?")
                    ),
                );
            }
        }
    }

    /// OSV0026 and OSV0027 on a pointer type: no pointer to a pointer, and a runtime array
    /// only behind a pointer into buffer or resource memory.
    fn pointer_type(&mut self, id: InstId) {
        let m = self.m;
        let Some(pointee) = m.try_operand(id, 1) else {
            return;
        };
        if holds(m, pointee, Holds::Pointer) {
            self.report(
                "OSV0027",
                Some(id),
                "a pointer to a pointer: logical addressing stores no pointer in memory \
                 (keep the pointee in a variable, or index the resource again)",
            );
        }
        let space = m.address_space(id);
        if holds(m, pointee, Holds::RayQuery)
            && !(m.try_op(pointee) == Some(Op::RayQuery)
                && matches!(space, Some(AddressSpace::Function | AddressSpace::Private)))
        {
            self.report(
                "OSV0029",
                Some(id),
                "a `ray_query` lives only in a `function` or `private` variable of its own",
            );
        }
        if holds(m, pointee, Holds::Accel) && space != Some(AddressSpace::UniformConstant) {
            self.report(
                "OSV0029",
                Some(id),
                "an `accel_struct` is a resource: it lives only in `uniform_constant` memory",
            );
        }
        let buffer_like = matches!(
            space,
            Some(
                AddressSpace::StorageBuffer | AddressSpace::Uniform | AddressSpace::UniformConstant
            )
        );
        if !buffer_like && holds(m, pointee, Holds::RuntimeArray) {
            self.report(
                "OSV0026",
                Some(id),
                "a runtime array lives only in storage buffers (or as an unbounded array of \
                 resources); this pointer's space holds ordinary memory",
            );
        }
    }

    /// OSV0027: a block parameter (outside the entry block) is a phi, and phis of pointers
    /// need variable pointers, which logical addressing does not have.
    fn memory_param(&mut self, p: InstId) {
        let m = self.m;
        if m.ty(p).is_some_and(|t| holds(m, t, Holds::Pointer)) {
            self.report(
                "OSV0027",
                Some(p),
                "a block parameter cannot be a pointer (logical addressing: choose between \
                 values, not addresses, or keep the choice in a variable index)",
            );
        }
    }

    /// OSV0026 and OSV0027 on an instruction: no value holding a runtime array, no `select`
    /// of pointers, and pointer arguments of calls into function, private or workgroup memory
    /// are memory object declarations (SPIR-V's logical addressing; HLSL's `out`/`inout`
    /// arguments are copied through a variable, as its copy-in/copy-out semantics say).
    fn memory_value(&mut self, inst: InstId, entry: Block) {
        let m = self.m;
        let op = m.op(inst);
        if let Some(t) = m.ty(inst)
            && m.try_op(t) != Some(Op::Ptr)
            && holds(m, t, Holds::RuntimeArray)
        {
            self.report(
                "OSV0026",
                Some(inst),
                "a value cannot hold a runtime array; read its elements through a pointer",
            );
        }
        if let Some(t) = m.ty(inst)
            && m.try_op(t) != Some(Op::Ptr)
            && (holds(m, t, Holds::RayQuery) || holds(m, t, Holds::Accel))
        {
            self.report(
                "OSV0029",
                Some(inst),
                "a `ray_query` or `accel_struct` is never a value: instructions take a pointer \
                 to it",
            );
        }
        match op {
            Op::Select if m.ty(inst).is_some_and(|t| holds(m, t, Holds::Pointer)) => {
                self.report(
                    "OSV0027",
                    Some(inst),
                    "`select` cannot choose between pointers (logical addressing)",
                );
            }
            Op::Call => {
                for a in m.operands(inst).skip(1) {
                    // Pointers into resources and buffers are legalization's business
                    // (`specialize_resources` clones the callee per resource).
                    let ordinary = m.ty(a).is_some_and(|t| {
                        m.try_op(t) == Some(Op::Ptr)
                            && matches!(
                                m.address_space(t),
                                Some(
                                    AddressSpace::Function
                                        | AddressSpace::Private
                                        | AddressSpace::Workgroup
                                )
                            )
                    });
                    if !ordinary {
                        continue;
                    }
                    let declared = match m.try_op(a) {
                        Some(Op::Var | Op::Global) => true,
                        Some(Op::Param) => m.parent(a) == Some(entry.id()),
                        _ => false,
                    };
                    if !declared {
                        self.report(
                            "OSV0027",
                            Some(inst),
                            "a pointer argument must be a variable, a global or a parameter \
                             (logical addressing), not an address computed from one",
                        );
                        break;
                    }
                }
            }
            _ => {}
        }
    }

    /// OSV0026: what a resource global's pointee may be when it holds a runtime array.
    fn global_memory(&mut self, id: InstId, space: Option<AddressSpace>, pointee: InstId) {
        let m = self.m;
        if !holds(m, pointee, Holds::RuntimeArray) {
            return;
        }
        let ok = match space {
            // A buffer block, or an array of them (a descriptor array of buffers).
            Some(AddressSpace::StorageBuffer) => {
                is_buffer_block(m, pointee)
                    || (matches!(m.try_op(pointee), Some(Op::Array | Op::RuntimeArray))
                        && is_buffer_block(m, m.operand(pointee, 0)))
            }
            // An unbounded array of resources or constant buffers.
            Some(AddressSpace::Uniform | AddressSpace::UniformConstant) => {
                is_plain_rtarray(m, pointee)
            }
            // Reported on the pointer type.
            _ => true,
        };
        if !ok {
            self.report(
                "OSV0026",
                Some(id),
                "a runtime array may only be a storage buffer's element (or its struct's last \
                 field), or an unbounded array of resources",
            );
        }
    }

    fn composite(&mut self, id: InstId) {
        let m = self.m;
        let Some(ty) = m.ty(id) else { return };
        let elems = m.operands_vec(id);
        for &e in &elems {
            if !m
                .try_op(e)
                .is_some_and(|o| o.is_constant() || o == Op::SpecConst)
            {
                self.report("OSV0018", Some(id), "composite elements must be constants");
                return;
            }
        }
        if let Err(msg) = self.check_construct(ty, &elems) {
            self.report("OSV0018", Some(id), msg);
        }
    }

    /// Element counts and types of a composite (shared by `composite` and `construct`).
    fn check_construct(&self, ty: InstId, elems: &[InstId]) -> Result<(), String> {
        let m = self.m;
        let types: Vec<Option<InstId>> = elems.iter().map(|&e| m.ty(e)).collect();
        match m.try_op(ty) {
            Some(Op::Vector) => {
                let elem = m.operand(ty, 0);
                let n = m.imm_operand(ty, 1).unwrap_or(0);
                let mut total = 0;
                for t in &types {
                    let Some(t) = *t else {
                        return Err("vector parts must have types".into());
                    };
                    if t == elem {
                        total += 1;
                    } else if m.try_op(t) == Some(Op::Vector) && m.operand(t, 0) == elem {
                        total += m.imm_operand(t, 1).unwrap_or(0);
                    } else {
                        return Err(
                            "vector parts must be scalars or vectors of its element type".into(),
                        );
                    }
                }
                if total != n {
                    return Err(format!("vector of {n} built from {total} component(s)"));
                }
            }
            Some(Op::Matrix) => {
                let (r, c) = m.matrix_dims(ty).unwrap_or((0, 0));
                let elem = m.operand(ty, 0);
                if types.len() != r as usize {
                    return Err(format!(
                        "matrix of {r} rows built from {} part(s)",
                        types.len()
                    ));
                }
                for t in &types {
                    let ok = match t {
                        Some(t) if c == 1 => *t == elem,
                        Some(t) => {
                            m.try_op(*t) == Some(Op::Vector)
                                && m.operand(*t, 0) == elem
                                && m.imm_operand(*t, 1) == Some(c)
                        }
                        None => false,
                    };
                    if !ok {
                        return Err("matrix rows must be vectors of its element type".into());
                    }
                }
            }
            Some(Op::Array) => {
                let elem = m.operand(ty, 0);
                let n = m.imm_operand(ty, 1).unwrap_or(0);
                if types.len() != n as usize {
                    return Err(format!(
                        "array of {n} built from {} element(s)",
                        types.len()
                    ));
                }
                if types.iter().any(|t| *t != Some(elem)) {
                    return Err("array elements must have the element type".into());
                }
            }
            Some(Op::Struct) => {
                let fields = m.struct_fields(ty);
                if fields.len() != types.len() {
                    return Err(format!(
                        "struct of {} fields built from {} part(s)",
                        fields.len(),
                        types.len()
                    ));
                }
                for (f, t) in fields.iter().zip(&types) {
                    if m.ty(*f) != *t {
                        return Err("struct parts must have the field types".into());
                    }
                }
            }
            _ => return Err("only vectors, matrices, arrays and structs are composites".into()),
        }
        Ok(())
    }

    // ---- decorations and globals -----------------------------------------------------------

    fn decoration(&mut self, id: InstId) {
        let m = self.m;
        let op = m.op(id);
        let Some(target) = m.parent(id) else { return };
        let top = m.op(target);
        let decorates = op.info().decorates;
        // Stage-IO qualifiers go on input and output globals only.
        let ok = decorates.allows(top)
            && (decorates != crate::ops::DecoTargets::STAGE_IO
                || matches!(
                    m.ty(target).and_then(|t| m.address_space(t)),
                    Some(AddressSpace::Input | AddressSpace::Output)
                ));
        if !ok {
            self.report(
                "OSV0017",
                Some(id),
                format!("`{}` cannot decorate a `{}`", op.spelling(), top.spelling()),
            );
        }
        if op == Op::Counter && m.try_op(m.operand(id, 0)) != Some(Op::Global) {
            self.report("OSV0017", Some(id), "`counter` names a global");
        }
    }

    fn global(&mut self, id: InstId) {
        let m = self.m;
        let Some(ty) = m.ty(id) else { return };
        let space = m.address_space(ty);
        match space {
            None => {
                self.report("OSV0023", Some(id), "a global's type must be a pointer");
                return;
            }
            Some(AddressSpace::Function) => {
                self.report(
                    "OSV0023",
                    Some(id),
                    "a global cannot be in the function space",
                );
            }
            _ => {}
        }
        if let Some(pointee) = m.pointee(ty) {
            self.global_memory(id, space, pointee);
        }
        if let Some(init) = m.try_operand(id, 0) {
            let is_const = m
                .try_op(init)
                .is_some_and(|o| o.is_constant() || o == Op::SpecConst);
            if !is_const {
                self.report(
                    "OSV0023",
                    Some(id),
                    "a global's initializer must be a constant",
                );
            } else if m.ty(init) != m.pointee(ty) {
                self.report(
                    "OSV0023",
                    Some(id),
                    "a global's initializer must have the pointee type",
                );
            }
        }
    }

    // ---- functions ---------------------------------------------------------------------------

    fn function(&mut self, f: Func) {
        let m = self.m;
        let fid = f.id();
        if self.bad.contains(&fid) {
            return;
        }
        let Some(fty) = m.ty(fid) else { return };
        if m.try_op(fty) != Some(Op::FnType) {
            self.report(
                "OSV0008",
                Some(fid),
                "a function's type must be a `fn` type",
            );
            return;
        }
        let blocks = f.blocks(m);
        if blocks.is_empty() {
            return;
        }
        // OSV0021: entry params vs fn type.
        let params: Vec<Option<InstId>> =
            blocks[0].params(m).iter().map(|p| m.ty(p.id())).collect();
        let want: Vec<Option<InstId>> = m.fn_params(fty).into_iter().map(Some).collect();
        if params != want {
            self.report(
                "OSV0021",
                Some(fid),
                "entry-block parameters do not match the function type",
            );
        }
        let block_set: FxHashSet<InstId> = blocks.iter().map(|b| b.id()).collect();
        let cfg = Cfg::new(m, f);
        // Positions of every local definition, for dominance.
        // Sized by the function's slot window: one table per function must not cost the module.
        let mut def_pos: InstTable<(Block, usize)> = InstTable::new();
        for &b in &blocks {
            for (i, c) in m.children(b.id()).enumerate() {
                def_pos.insert(c, (b, i));
            }
        }
        let entry = blocks[0];
        if !cfg.preds(entry).is_empty() {
            self.report(
                "OSV0013",
                Some(entry.id()),
                "the entry block cannot be a branch target",
            );
        }
        let ret_ty = m.fn_return(fty);
        let opaque = |t: InstId| {
            m.try_op(t) != Some(Op::Ptr)
                && (holds(m, t, Holds::RayQuery) || holds(m, t, Holds::Accel))
        };
        if ret_ty.is_some_and(opaque) || m.fn_params(fty).into_iter().any(opaque) {
            self.report(
                "OSV0029",
                Some(fid),
                "a `ray_query` or `accel_struct` is passed to a function by pointer, never by \
                 value",
            );
        }
        if ret_ty.is_some_and(|t| holds(m, t, Holds::Pointer)) {
            self.report(
                "OSV0027",
                Some(fid),
                "a function cannot return a pointer (logical addressing)",
            );
        }
        let before = self.diags.len();
        let cons = Constructs::new(m, f);
        for &b in &blocks {
            for (pos, inst) in m.children(b.id()).enumerate() {
                if self.bad.contains(&inst) {
                    continue;
                }
                let op = m.op(inst);
                if op == Op::Param {
                    if b != entry {
                        self.memory_param(inst);
                    }
                    continue;
                }
                if !self.visibility(inst, fid, &block_set) {
                    continue;
                }
                if cfg.is_reachable(b) {
                    self.dominance(inst, b, pos, &cfg, &def_pos);
                }
                if op.is_terminator() {
                    self.terminator(inst, b, ret_ty, &cons);
                } else {
                    self.inst_types(inst);
                    self.memory_value(inst, entry);
                }
            }
        }
        for c in cons.list() {
            if c.kind == ConstructKind::Loop {
                self.loop_shape(c, &cfg);
            }
        }
        // The structured rules read the constructs, which assume sound loops and branches.
        if self.diags.len() == before {
            self.structured(&cons, &cfg);
        }
    }

    /// OSV0024 and OSV0025: SPIR-V's structured control-flow rules, which the IR keeps.
    fn structured(&mut self, cons: &Constructs, cfg: &Cfg) {
        let m = self.m;
        for (block, a, b) in cons.join_conflicts() {
            let (ta, tb) = (cons.get(a).term, cons.get(b).term);
            self.report(
                "OSV0024",
                Some(tb),
                format!(
                    "block {} is already the join of `{}`; a block is the merge, break or continue \
                     block of one construct (a selection may merge into the break or continue \
                     block of the innermost loop around it)",
                    self.block_label(block),
                    print_inst(m, ta)
                ),
            );
        }
        let scfg = cons.cfg();
        for (k, c) in cons.list().iter().enumerate() {
            let mut joins: smallvec::SmallVec<[Block; 2]> = smallvec::smallvec![c.join];
            joins.extend(c.cont);
            // A selection merging into its loop's break or continue block: that block belongs
            // to the loop, whose header dominates it.
            let into_loop = cons.enclosing_loop(k).is_some_and(|l| {
                let l = cons.get(l);
                c.kind != ConstructKind::Loop && (l.join == c.join || l.cont == Some(c.join))
            });
            for j in joins.into_iter().filter(|_| !into_loop) {
                if scfg.is_reachable(j) && !scfg.dominates(c.entry, j) {
                    self.report(
                        "OSV0024",
                        Some(c.term),
                        format!(
                            "the construct's header does not dominate its join block {}: another \
                             path reaches it without passing through the header",
                            self.block_label(j)
                        ),
                    );
                }
            }
        }
        for &p in cfg.rpo().to_vec().iter() {
            let Some(term) = p.terminator(m) else {
                continue;
            };
            for s in cfg.succs(p) {
                let Err(bad) = cons.edge(p, s) else {
                    continue;
                };
                let target = self.block_label(s);
                let msg = match bad {
                    BadEdge::Backward => format!(
                        "the branch to {target} goes back to an earlier block and is not a \
                         loop's back edge (from its continue block to its header)"
                    ),
                    BadEdge::Enters(k) => format!(
                        "the branch to {target} enters the construct of `{}` other than through \
                         its header",
                        print_inst(m, cons.get(k).term)
                    ),
                    BadEdge::Leaves(k) => format!(
                        "the branch to {target} leaves the construct of `{}` but not by a \
                         structured exit (its merge, the innermost loop's break or continue \
                         block, the innermost switch's merge, or return/discard)",
                        print_inst(m, cons.get(k).term)
                    ),
                };
                self.report("OSV0025", Some(term), msg);
                break;
            }
        }
    }

    /// `bbN` for a block of its function (its position), for messages.
    fn block_label(&self, b: Block) -> String {
        let m = self.m;
        match m.parent(b.id()) {
            Some(f) => {
                let pos = m
                    .children(f)
                    .filter(|&c| m.op(c) == Op::Block)
                    .position(|c| c == b.id());
                match pos {
                    Some(i) => format!("bb{i}"),
                    None => "a block".into(),
                }
            }
            None => "a block".into(),
        }
    }

    /// OSV0016 and OSV0013: operands are visible from this function.
    fn visibility(&mut self, inst: InstId, func: InstId, blocks: &FxHashSet<InstId>) -> bool {
        let m = self.m;
        for v in m.operands(inst) {
            if !m.contains(v) {
                continue;
            }
            let vop = m.op(v);
            if vop == Op::Block {
                if !blocks.contains(&v) {
                    self.report(
                        "OSV0013",
                        Some(inst),
                        "branch target or join block of another function",
                    );
                    return false;
                }
                continue;
            }
            let local = vop.is_instruction() || vop == Op::Param;
            if !local {
                continue;
            }
            if vop == Op::Param && self.is_generic_param(v) {
                // Visible when the function is inside that generic.
                let body = m.parent(v);
                let mut cur = m.parent(func);
                let mut inside = false;
                while let Some(c) = cur {
                    if Some(c) == body {
                        inside = true;
                        break;
                    }
                    cur = m.parent(c);
                }
                if !inside {
                    self.report(
                        "OSV0016",
                        Some(inst),
                        "uses a parameter of a generic that does not enclose it",
                    );
                    return false;
                }
                continue;
            }
            if m.func_of(v).map(|f| f.id()) != Some(func) {
                self.report("OSV0016", Some(inst), "uses a value of another function");
                return false;
            }
        }
        true
    }

    /// OSV0014: every local operand's definition dominates this use.
    fn dominance(
        &mut self,
        inst: InstId,
        b: Block,
        pos: usize,
        cfg: &Cfg,
        def_pos: &InstTable<(Block, usize)>,
    ) {
        let m = self.m;
        for v in m.operands(inst) {
            let Some(&(db, dpos)) = def_pos.get(v) else {
                continue;
            };
            if m.op(v) == Op::Block {
                continue;
            }
            let ok = if db == b {
                dpos < pos
            } else {
                cfg.dominates(db, b)
            };
            if !ok {
                let vtext = self.describe(v);
                self.report(
                    "OSV0014",
                    Some(inst),
                    format!("the definition of `{vtext}` does not dominate this use"),
                );
                return;
            }
        }
    }

    fn params_of(&self, b: InstId) -> Vec<InstId> {
        let m = self.m;
        m.children(b)
            .take_while(|&c| m.op(c) == Op::Param)
            .collect()
    }

    fn check_args(&mut self, inst: InstId, target: InstId, args: &[InstId]) {
        let m = self.m;
        let params = self.params_of(target);
        if params.len() != args.len() {
            self.report(
                "OSV0009",
                Some(inst),
                format!(
                    "passes {} argument(s) to a block with {} parameter(s)",
                    args.len(),
                    params.len()
                ),
            );
            return;
        }
        for (p, a) in params.iter().zip(args) {
            if m.ty(*p) != m.ty(*a) {
                self.report(
                    "OSV0009",
                    Some(inst),
                    "argument type differs from the parameter type",
                );
                return;
            }
        }
    }

    fn terminator(&mut self, inst: InstId, b: Block, ret_ty: Option<InstId>, cons: &Constructs) {
        let m = self.m;
        let op = m.op(inst);
        let ops = m.operands_vec(inst);
        let no_params = |v: &mut Self, target: InstId| {
            if !v.params_of(target).is_empty() {
                v.report(
                    "OSV0010",
                    Some(inst),
                    "a conditional edge cannot target a block with parameters",
                );
            }
        };
        let is_bool = |v: InstId| m.ty(v).and_then(|t| m.try_op(t)) == Some(Op::Bool);
        match op {
            Op::Br => self.check_args(inst, ops[0], &ops[1..]),
            Op::Loop => {
                self.check_args(inst, ops[0], &ops[3..]);
            }
            Op::CondBr => {
                if !is_bool(ops[0]) {
                    self.report("OSV0008", Some(inst), "a branch condition must be a bool");
                }
                no_params(self, ops[1]);
                no_params(self, ops[2]);
                self.cond_br_placement(inst, b, cons, ops[1], ops[2]);
            }
            Op::IfElse => {
                if !is_bool(ops[0]) {
                    self.report("OSV0008", Some(inst), "a branch condition must be a bool");
                }
                no_params(self, ops[1]);
                no_params(self, ops[2]);
            }
            Op::Switch => {
                let sel_ty = m.ty(ops[0]);
                if !sel_ty
                    .and_then(|t| m.try_op(t))
                    .is_some_and(|o| o.is_int_type())
                {
                    self.report(
                        "OSV0008",
                        Some(inst),
                        "a switch selector must be an integer",
                    );
                }
                no_params(self, ops[2]);
                let mut seen = FxHashSet::default();
                for pair in ops[3..].chunks(2) {
                    if m.ty(pair[0]) != sel_ty {
                        self.report(
                            "OSV0022",
                            Some(inst),
                            "a case value must have the selector's type",
                        );
                        return;
                    }
                    if !seen.insert(pair[0]) {
                        self.report("OSV0022", Some(inst), "duplicate case value");
                        return;
                    }
                    no_params(self, pair[1]);
                }
            }
            Op::DispatchMesh => {
                let u32s = ops[..3].iter().all(|&v| self.is_u32_value(v));
                let payload_ok = ops
                    .get(3)
                    .is_none_or(|&p| self.is_variable_in(p, &[AddressSpace::TaskPayload]));
                if !u32s || !payload_ok {
                    self.report(
                        "OSV0008",
                        Some(inst),
                        "`dispatch_mesh` takes three u32 group counts and optionally the \
                         `task_payload` global",
                    );
                }
            }
            Op::Return => {
                let is_void = ret_ty.and_then(|t| m.try_op(t)) == Some(Op::Void);
                let ok = match ops.first() {
                    None => is_void,
                    Some(&v) => !is_void && m.ty(v) == ret_ty,
                };
                if !ok {
                    self.report(
                        "OSV0019",
                        Some(inst),
                        "`return` does not match the function's return type",
                    );
                }
            }
            _ => {}
        }
    }

    fn loop_shape(&mut self, lp: &Construct, cfg: &Cfg) {
        let m = self.m;
        let (pre, header, brk) = (lp.declared_in, lp.entry, lp.join);
        let Some(cont) = lp.cont else { return };
        if header == pre || header == brk || header == cont || brk == cont {
            self.report(
                "OSV0011",
                Some(lp.term),
                "a loop's pre-header, header, break and continue blocks must be distinct",
            );
            return;
        }
        if let Some(ht) = header.terminator(m)
            && !matches!(m.op(ht), Op::Br | Op::CondBr)
        {
            self.report(
                "OSV0011",
                Some(ht),
                "a loop header must end in `br` or `cond_br`",
            );
        }
        if let Some(ct) = cont.terminator(m) {
            let back = m.op(ct) == Op::Br && m.operand(ct, 0) == header.id();
            if !back && m.op(ct) != Op::Unreachable {
                self.report(
                    "OSV0011",
                    Some(ct),
                    "a loop's continue block must end in `br` to its header",
                );
            }
        }
        for p in cfg.preds(header) {
            if p != pre && p != cont {
                let t = p.terminator(m).unwrap_or(p.id());
                self.report(
                    "OSV0011",
                    Some(t),
                    "only the pre-header's `loop` and the continue block may branch to a loop header",
                );
            }
        }
    }

    fn cond_br_placement(
        &mut self,
        inst: InstId,
        b: Block,
        cons: &Constructs,
        t: InstId,
        f: InstId,
    ) {
        if let Some(l) = cons.loop_of_header(b) {
            // SPIR-V puts no selection in a loop header, and a branch after `OpLoopMerge`
            // may not introduce two new blocks: one target is this loop's break or continue.
            let l = cons.get(l);
            let exit = [t, f]
                .iter()
                .any(|&x| x == l.join.id() || l.cont.is_some_and(|c| c.id() == x));
            if !exit {
                self.report(
                    "OSV0012",
                    Some(inst),
                    "a loop header's `cond_br` must have its loop's break or continue block as \
                     a target; test the condition in an `if_else` at the top of the body",
                );
            }
            return;
        }
        let innermost = cons.innermost_loop(b).map(|l| cons.get(l));
        let ok = innermost.is_some_and(|l| {
            [t, f]
                .iter()
                .any(|&x| x == l.join.id() || l.cont.is_some_and(|c| c.id() == x))
        });
        if !ok {
            self.report(
                "OSV0012",
                Some(inst),
                "`cond_br` must end a loop header or target the innermost loop's break or \
                 continue block; use `if_else`",
            );
        }
    }

    // ---- instruction types -------------------------------------------------------------------

    fn inst_types(&mut self, inst: InstId) {
        if let Err(msg) = self.type_rule(inst) {
            let code = if msg.starts_with("call") {
                "OSV0020"
            } else {
                "OSV0008"
            };
            self.report(code, Some(inst), msg);
        }
    }

    fn type_rule(&self, inst: InstId) -> Result<(), String> {
        let m = self.m;
        let op = m.op(inst);
        let ty = m.ty(inst);
        let ops = m.operands_vec(inst);
        let tyof = |v: InstId| m.ty(v);
        let opof = |t: Option<InstId>| t.and_then(|t| m.try_op(t));
        let numeric = |t: Option<InstId>| {
            t.and_then(|t| m.scalar_of(t))
                .is_some_and(|s| m.op(s) != Op::Bool)
        };
        let int_or_bool = |t: Option<InstId>| {
            t.and_then(|t| m.scalar_of(t)).is_some_and(|s| {
                let o = m.op(s);
                o == Op::Bool || o.is_int_type()
            }) && opof(t) != Some(Op::Matrix)
        };
        let is_int = |t: Option<InstId>| {
            t.and_then(|t| m.scalar_of(t))
                .is_some_and(|s| m.op(s).is_int_type())
                && opof(t) != Some(Op::Matrix)
        };
        let pointee = |v: InstId| tyof(v).and_then(|t| m.pointee(t));
        // Inside generics, values whose types mention a type parameter are checked only once
        // specialized.
        if ty.is_some_and(|t| self.is_opaque(t))
            || ops
                .iter()
                .any(|&v| tyof(v).is_some_and(|t| self.is_opaque(t)))
        {
            return Ok(());
        }
        // The generic rule first.
        match op.info().ty {
            TypeRule::SameAs(n) if ty != tyof(ops[n as usize]) => {
                return Err(format!("`{}` has the type of operand {n}", op.spelling()));
            }
            TypeRule::Pointee(n) => {
                let p = pointee(ops[n as usize]);
                if p.is_none() {
                    return Err(format!(
                        "operand {n} of `{}` must be a pointer",
                        op.spelling()
                    ));
                }
                if ty != p {
                    return Err(format!(
                        "`{}` has the pointee type of operand {n}",
                        op.spelling()
                    ));
                }
            }
            TypeRule::Void if opof(ty) != Some(Op::Void) => {
                return Err(format!("`{}` has type void", op.spelling()));
            }
            TypeRule::BoolOf(n) => {
                let a = tyof(ops[n as usize]);
                let want_len = a.and_then(|t| m.vector_len(t));
                let is_bool_shape = ty.is_some_and(|t| {
                    m.scalar_of(t).is_some_and(|s| m.op(s) == Op::Bool)
                        && m.vector_len(t) == want_len
                });
                if !is_bool_shape {
                    return Err("a comparison yields bool of its operands' shape".into());
                }
            }
            _ => {}
        }
        match op {
            Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Rem
                if (tyof(ops[0]) != tyof(ops[1]) || !numeric(tyof(ops[0]))) =>
            {
                return Err("arithmetic needs two operands of one numeric type".into());
            }
            Op::Neg if !numeric(tyof(ops[0])) => {
                return Err("`neg` needs a numeric operand".into());
            }
            Op::And | Op::Or | Op::Xor
                if (tyof(ops[0]) != tyof(ops[1]) || !int_or_bool(tyof(ops[0]))) =>
            {
                return Err(
                    "bitwise operations need two operands of one integer or bool type".into(),
                );
            }
            Op::Not if !int_or_bool(tyof(ops[0])) => {
                return Err("`not` needs an integer or bool operand".into());
            }
            Op::Shl | Op::Shr => {
                let (a, b) = (tyof(ops[0]), tyof(ops[1]));
                if !is_int(a)
                    || !is_int(b)
                    || a.and_then(|t| m.vector_len(t)) != b.and_then(|t| m.vector_len(t))
                {
                    return Err("shifts need integer operands of one shape".into());
                }
            }
            Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge => {
                let a = tyof(ops[0]);
                if a != tyof(ops[1]) {
                    return Err("comparison operands must have one type".into());
                }
                let scalar_or_vec = matches!(opof(a), Some(Op::Vector))
                    || opof(a).is_some_and(|o| o.is_scalar_type());
                if !scalar_or_vec {
                    return Err("comparisons work on scalars and vectors".into());
                }
                if !matches!(op, Op::Eq | Op::Ne) && !numeric(a) {
                    return Err("ordering comparisons need numeric operands".into());
                }
            }
            Op::MatMul => self.matmul(ty, tyof(ops[0]), tyof(ops[1]))?,
            Op::Convert => {
                let (a, r) = (tyof(ops[0]), ty);
                let shape = |t: Option<InstId>| match opof(t) {
                    Some(Op::Vector) => t.and_then(|t| m.vector_len(t)).map(|n| (n, 0)),
                    Some(Op::Matrix) => t.and_then(|t| m.matrix_dims(t)),
                    Some(o) if o.is_scalar_type() => Some((1, 0)),
                    _ => None,
                };
                if shape(a).is_none() || shape(a) != shape(r) {
                    return Err("`convert` keeps the shape (scalar, vector, matrix)".into());
                }
            }
            Op::Bitcast => {
                let size = |t: Option<InstId>| {
                    let t = t?;
                    Some(m.scalar_bits(m.scalar_of(t)?)? * m.vector_len(t)?)
                };
                if size(tyof(ops[0])).is_none() || size(tyof(ops[0])) != size(ty) {
                    return Err("`bitcast` keeps the size in bits".into());
                }
            }
            Op::Construct => {
                let Some(t) = ty else { return Ok(()) };
                self.check_construct(t, &ops)?;
            }
            Op::Extract | Op::Insert => {
                let (base, idx_from) = (tyof(ops[0]), if op == Op::Extract { 1 } else { 2 });
                let mut cur = base;
                for &i in &ops[idx_from..] {
                    let Some(c) = cur else { break };
                    let idx = m.imm_value(i).unwrap_or(u32::MAX);
                    let len = match m.try_op(c) {
                        Some(Op::Vector) => m.vector_len(c),
                        Some(Op::Matrix) => m.matrix_dims(c).map(|d| d.0),
                        Some(Op::Array) => m.array_len(c),
                        Some(Op::Struct) => Some(m.struct_fields(c).len() as u32),
                        _ => None,
                    };
                    match len {
                        Some(n) if idx < n => cur = m.element_type_of(c, idx),
                        _ => return Err("composite index out of range".into()),
                    }
                }
                let want = if op == Op::Extract { ty } else { tyof(ops[1]) };
                if cur.is_none() || cur != want {
                    return Err(format!(
                        "`{}` element type does not match the indexed element",
                        op.spelling()
                    ));
                }
            }
            Op::ExtractDyn | Op::InsertDyn => {
                let base = tyof(ops[0]);
                if !matches!(opof(base), Some(Op::Vector | Op::Matrix)) {
                    return Err("dynamic indexing works on vectors and matrices".into());
                }
                let idx = if op == Op::ExtractDyn { ops[1] } else { ops[2] };
                if !is_int(tyof(idx)) || opof(tyof(idx)) == Some(Op::Vector) {
                    return Err("an index must be an integer scalar".into());
                }
                let elem = base.and_then(|b| m.element_type_of(b, 0));
                let want = if op == Op::ExtractDyn {
                    ty
                } else {
                    tyof(ops[1])
                };
                if elem.is_none() || elem != want {
                    return Err("element type mismatch".into());
                }
            }
            Op::Shuffle => {
                let (a, b) = (tyof(ops[0]), tyof(ops[1]));
                let (la, lb) = (
                    a.and_then(|t| m.vector_len(t)),
                    b.and_then(|t| m.vector_len(t)),
                );
                let (Some(la), Some(lb)) = (la, lb) else {
                    return Err("`shuffle` takes vectors".into());
                };
                if a.and_then(|t| m.scalar_of(t)) != b.and_then(|t| m.scalar_of(t)) {
                    return Err("`shuffle` operands share an element type".into());
                }
                for &i in &ops[2..] {
                    if m.imm_value(i).is_none_or(|x| x >= la + lb) {
                        return Err("`shuffle` index out of range".into());
                    }
                }
                let n = (ops.len() - 2) as u32;
                if ty.and_then(|t| m.vector_len(t)) != Some(n)
                    || ty.and_then(|t| m.scalar_of(t)) != a.and_then(|t| m.scalar_of(t))
                {
                    return Err("`shuffle` yields one component per index".into());
                }
            }
            Op::Select => {
                let c = tyof(ops[0]);
                let cbool = c
                    .and_then(|t| m.scalar_of(t))
                    .is_some_and(|s| m.op(s) == Op::Bool);
                if !cbool {
                    return Err("`select` condition must be bool".into());
                }
                if tyof(ops[1]) != tyof(ops[2]) {
                    return Err("`select` operands must have one type".into());
                }
                if opof(c) == Some(Op::Vector)
                    && c.and_then(|t| m.vector_len(t)) != tyof(ops[1]).and_then(|t| m.vector_len(t))
                {
                    return Err("a vector condition matches the operands' length".into());
                }
            }
            Op::Var if ty.and_then(|t| m.address_space(t)) != Some(AddressSpace::Function) => {
                return Err("`var` has type ptr<function, T>".into());
            }
            Op::Store => {
                let p = pointee(ops[0]);
                if p.is_none() {
                    return Err("`store` needs a pointer".into());
                }
                if p != tyof(ops[1]) {
                    return Err("`store` value must have the pointee type".into());
                }
            }
            Op::FieldAddr => {
                let p = pointee(ops[0]);
                if opof(p) != Some(Op::Struct) {
                    return Err("`field_addr` needs a pointer to a struct".into());
                }
                let idx = m.imm_value(ops[1]).unwrap_or(u32::MAX);
                let field_ty = p.and_then(|s| m.element_type_of(s, idx));
                self.addr_result(ty, ops[0], field_ty)?;
            }
            Op::ElementAddr => {
                let p = pointee(ops[0]);
                if !matches!(
                    opof(p),
                    Some(Op::Array | Op::RuntimeArray | Op::Vector | Op::Matrix)
                ) {
                    return Err(
                        "`element_addr` needs a pointer to an array, vector or matrix".into(),
                    );
                }
                if !is_int(tyof(ops[1])) || opof(tyof(ops[1])) == Some(Op::Vector) {
                    return Err("an index must be an integer scalar".into());
                }
                let elem = p.and_then(|t| m.element_type_of(t, 0));
                self.addr_result(ty, ops[0], elem)?;
            }
            Op::TexelAddr => {
                let tex = pointee(ops[0]).and_then(|t| m.texture_desc(t));
                if tex.is_none_or(|d| d.access != TextureAccess::Storage) {
                    return Err("`texel_addr` needs a pointer to a storage texture".into());
                }
                if ty.and_then(|t| m.address_space(t)) != Some(AddressSpace::Image) {
                    return Err("`texel_addr` yields ptr<image, T>".into());
                }
            }
            Op::Call => {
                let fty = tyof(ops[0]);
                let params = fty.map(|t| m.fn_params(t)).unwrap_or_default();
                let args: Vec<Option<InstId>> = ops[1..].iter().map(|&a| tyof(a)).collect();
                if params.len() != args.len() {
                    return Err(format!(
                        "call passes {} argument(s) to a function of {}",
                        args.len(),
                        params.len()
                    ));
                }
                if params.iter().zip(&args).any(|(p, a)| Some(*p) != *a) {
                    return Err("call argument type differs from the parameter type".into());
                }
                if fty.and_then(|t| m.fn_return(t)) != ty {
                    return Err("call result type differs from the callee's return type".into());
                }
            }
            Op::CallIntrinsic => {
                let which = m.imm_value(ops[0]).and_then(Intrinsic::from_u32);
                if let Some(w) = which {
                    let (lo, hi) = w.arity();
                    let n = ops.len() - 1;
                    if n < lo || n > hi {
                        return Err(format!(
                            "intrinsic `{}` takes {lo}..={hi} operand(s), not {n}",
                            w.spelling()
                        ));
                    }
                    // The format of a print is a string constant; what it prints are numbers
                    // (scalars or vectors), the only values the debug channels take.
                    if w == Intrinsic::DebugPrintf {
                        if m.op(ops[1]) != Op::ConstString {
                            return Err(
                                "the format of `debug_printf` must be a `const_string`".into()
                            );
                        }
                        for &v in &ops[2..] {
                            let number =
                                |t: InstId| m.op(t).is_int_type() || m.op(t).is_float_type();
                            let ok = tyof(v).is_some_and(|t| {
                                number(t) || (m.op(t) == Op::Vector && number(m.operand(t, 0)))
                            });
                            if !ok {
                                return Err(
                                    "`debug_printf` prints integer and float scalars and vectors only"
                                        .into(),
                                );
                            }
                        }
                    }
                }
            }
            Op::Sample
            | Op::SampleBias
            | Op::SampleLevel
            | Op::SampleGrad
            | Op::SampleCmp
            | Op::SampleCmpLevelZero
            | Op::SampleCmpLevel
            | Op::SampleCmpBias
            | Op::SampleCmpGrad
            | Op::Gather
            | Op::GatherCmp
            | Op::QueryLod => {
                if pointee(ops[0]).and_then(|t| m.texture_desc(t)).is_none() {
                    return Err(format!("`{}` needs a pointer to a texture", op.spelling()));
                }
                if let Some(k) = op.min_lod_index()
                    && let Some(&c) = ops.get(k)
                    && opof(tyof(c)) != Some(Op::F32)
                {
                    return Err(format!("the min_lod of `{}` must be an f32", op.spelling()));
                }
                if let Some(k) = op.offset_index()
                    && let Some(&o) = ops.get(k)
                    && opof(tyof(o)) == Some(Op::Array)
                {
                    let t = tyof(o).expect("an array-typed operand has a type");
                    let four_i2 = m.array_len(t) == Some(4)
                        && m.vector_len(m.operand(t, 0)) == Some(2)
                        && m.scalar_of(m.operand(t, 0)).map(|s| m.op(s)) == Some(Op::I32);
                    if !matches!(op, Op::Gather | Op::GatherCmp) || !four_i2 {
                        return Err(format!(
                            "`{}` takes one offset (an integer scalar or vector); only `gather` and `gather_cmp` take four, as `array<vec<i32, 2>, 4>`",
                            op.spelling()
                        ));
                    }
                }
                let s = opof(pointee(ops[1]));
                let want = if matches!(
                    op,
                    Op::SampleCmp
                        | Op::SampleCmpLevelZero
                        | Op::SampleCmpLevel
                        | Op::SampleCmpBias
                        | Op::SampleCmpGrad
                        | Op::GatherCmp
                ) {
                    Op::SamplerCmp
                } else {
                    Op::Sampler
                };
                if s != Some(want) && s != Some(Op::Sampler) && s != Some(Op::SamplerCmp) {
                    return Err(format!("`{}` needs a pointer to a sampler", op.spelling()));
                }
            }
            Op::TextureLoad
            | Op::TextureStore
            | Op::QuerySize
            | Op::QueryLevels
            | Op::QuerySamples
                if pointee(ops[0]).and_then(|t| m.texture_desc(t)).is_none() =>
            {
                return Err(format!("`{}` needs a pointer to a texture", op.spelling()));
            }
            Op::BufferLoad | Op::BufferStore => {
                let space = tyof(ops[0]).and_then(|t| m.address_space(t));
                if space != Some(AddressSpace::StorageBuffer) {
                    return Err(format!(
                        "`{}` needs a pointer into a storage buffer",
                        op.spelling()
                    ));
                }
                if !is_int(tyof(ops[1])) {
                    return Err("a byte offset must be an integer".into());
                }
            }
            Op::AtomicRmw | Op::AtomicCmpXchg => {
                let ptr = if op == Op::AtomicRmw { ops[1] } else { ops[0] };
                let p = pointee(ptr);
                if !p.is_some_and(|t| m.op(t).is_int_type() || m.op(t).is_float_type()) {
                    return Err("atomics work on integer or float scalars".into());
                }
                for &v in &ops[(if op == Op::AtomicRmw { 2 } else { 1 })..] {
                    if tyof(v) != p {
                        return Err("atomic operand type differs from the pointee type".into());
                    }
                }
            }
            Op::SetMeshOutputs if !self.is_u32_value(ops[0]) || !self.is_u32_value(ops[1]) => {
                return Err("`set_mesh_outputs` takes two u32 counts".into());
            }
            Op::TraceRay => {
                self.accel_operand(ops[0], "trace_ray")?;
                if !ops[1..6].iter().all(|&v| self.is_u32_value(v)) {
                    return Err(
                        "`trace_ray` flags, cull mask, SBT offset, SBT stride and miss \
                                index are u32"
                            .into(),
                    );
                }
                self.ray_operands(&ops[6..10], "trace_ray")?;
                if !self.is_variable_in(
                    ops[10],
                    &[AddressSpace::RayPayload, AddressSpace::IncomingRayPayload],
                ) {
                    return Err("the payload of `trace_ray` is a `ray_payload` or \
                                `incoming_ray_payload` global"
                        .into());
                }
            }
            Op::ReportHit => {
                if !self.is_f32_value(ops[0]) || !self.is_u32_value(ops[1]) {
                    return Err("`report_hit` takes an f32 distance and a u32 hit kind".into());
                }
                if opof(ty) != Some(Op::Bool) {
                    return Err("`report_hit` yields bool".into());
                }
            }
            Op::ExecuteCallable => {
                if !self.is_u32_value(ops[0]) {
                    return Err("the SBT index of `execute_callable` is u32".into());
                }
                if !self.is_variable_in(
                    ops[1],
                    &[
                        AddressSpace::CallableData,
                        AddressSpace::IncomingCallableData,
                    ],
                ) {
                    return Err("the data of `execute_callable` is a `callable_data` or \
                                `incoming_callable_data` global"
                        .into());
                }
            }
            Op::RayQueryInit => {
                self.ray_query_operand(ops[0], op)?;
                self.accel_operand(ops[1], "ray_query_init")?;
                if !self.is_u32_value(ops[2]) || !self.is_u32_value(ops[3]) {
                    return Err("`ray_query_init` flags and cull mask are u32".into());
                }
                self.ray_operands(&ops[4..8], "ray_query_init")?;
            }
            Op::RayQueryProceed | Op::RayQueryAbort | Op::RayQueryConfirm => {
                self.ray_query_operand(ops[0], op)?;
                if op == Op::RayQueryProceed && opof(ty) != Some(Op::Bool) {
                    return Err("`ray_query_proceed` yields bool".into());
                }
            }
            Op::RayQueryGenerate => {
                self.ray_query_operand(ops[0], op)?;
                if !self.is_f32_value(ops[1]) {
                    return Err("`ray_query_generate` takes an f32 distance".into());
                }
            }
            Op::RayQueryGet => {
                self.ray_query_operand(ops[1], op)?;
                let which = m
                    .imm_value(ops[0])
                    .and_then(RayQueryValue::from_u32)
                    .ok_or("`ray_query_get` names a ray-query value")?;
                if !ty.is_some_and(|t| self.has_shape(t, which.shape())) {
                    return Err(format!(
                        "`ray_query_get {}` yields {}",
                        which.spelling(),
                        shape_name(which.shape())
                    ));
                }
            }
            Op::ArrayLength => {
                let p = pointee(ops[0]);
                let ok = opof(p) == Some(Op::RuntimeArray)
                    || (opof(p) == Some(Op::Struct)
                        && p.and_then(|s| m.struct_fields(s).last().copied())
                            .and_then(|f| m.ty(f))
                            .and_then(|t| m.try_op(t))
                            == Some(Op::RuntimeArray));
                if !ok {
                    return Err("`array_length` needs a pointer to a runtime array".into());
                }
                if opof(ty) != Some(Op::U32) {
                    return Err("`array_length` yields u32".into());
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// True when `v` is a `u32` scalar.
    fn is_u32_value(&self, v: InstId) -> bool {
        self.m.ty(v).and_then(|t| self.m.try_op(t)) == Some(Op::U32)
    }

    /// True when `v` is an `f32` scalar.
    fn is_f32_value(&self, v: InstId) -> bool {
        self.m.ty(v).and_then(|t| self.m.try_op(t)) == Some(Op::F32)
    }

    /// True when `v` is a `vec<f32, 3>`.
    fn is_f32x3_value(&self, v: InstId) -> bool {
        let m = self.m;
        m.ty(v).is_some_and(|t| {
            m.try_op(t) == Some(Op::Vector)
                && m.vector_len(t) == Some(3)
                && m.scalar_of(t).and_then(|s| m.try_op(s)) == Some(Op::F32)
        })
    }

    /// True when `v` is a memory object declaration (a global, or a parameter standing for
    /// one until legalization specializes it) pointing into one of `spaces`.
    fn is_variable_in(&self, v: InstId, spaces: &[AddressSpace]) -> bool {
        let m = self.m;
        matches!(m.try_op(v), Some(Op::Global | Op::Param))
            && m.ty(v)
                .and_then(|t| m.address_space(t))
                .is_some_and(|s| spaces.contains(&s))
    }

    /// The acceleration-structure operand of `trace_ray` and `ray_query_init`: a
    /// `uniform_constant` pointer to an `accel_struct`.
    fn accel_operand(&self, v: InstId, what: &str) -> Result<(), String> {
        let m = self.m;
        let ok = m.ty(v).is_some_and(|t| {
            m.address_space(t) == Some(AddressSpace::UniformConstant)
                && m.pointee(t).and_then(|p| m.try_op(p)) == Some(Op::AccelStruct)
        });
        if ok {
            Ok(())
        } else {
            Err(format!(
                "the first operand of `{what}` points to an `accel_struct` (uniform_constant)"
            ))
        }
    }

    /// A ray: origin, tmin, direction, tmax.
    fn ray_operands(&self, v: &[InstId], what: &str) -> Result<(), String> {
        if self.is_f32x3_value(v[0])
            && self.is_f32_value(v[1])
            && self.is_f32x3_value(v[2])
            && self.is_f32_value(v[3])
        {
            Ok(())
        } else {
            Err(format!(
                "the ray of `{what}` is origin (vec<f32, 3>), tmin (f32), direction \
                 (vec<f32, 3>), tmax (f32)"
            ))
        }
    }

    /// The query operand of the `ray_query_*` instructions: a pointer to a `ray_query`.
    fn ray_query_operand(&self, v: InstId, op: Op) -> Result<(), String> {
        let m = self.m;
        let ok = m.ty(v).and_then(|t| m.pointee(t)).and_then(|p| m.try_op(p)) == Some(Op::RayQuery);
        if ok {
            Ok(())
        } else {
            Err(format!(
                "`{}` takes a pointer to a `ray_query`",
                op.spelling()
            ))
        }
    }

    /// True when `t` has the shape `shape`.
    fn has_shape(&self, t: InstId, shape: ValueShape) -> bool {
        let m = self.m;
        let scalar = |t: InstId| m.scalar_of(t).and_then(|s| m.try_op(s));
        match shape {
            ValueShape::Bool => m.try_op(t) == Some(Op::Bool),
            ValueShape::U32 => m.try_op(t) == Some(Op::U32),
            ValueShape::F32 => m.try_op(t) == Some(Op::F32),
            ValueShape::F32x2 | ValueShape::F32x3 | ValueShape::U32x3 => {
                let (n, s) = match shape {
                    ValueShape::F32x2 => (2, Op::F32),
                    ValueShape::F32x3 => (3, Op::F32),
                    _ => (3, Op::U32),
                };
                m.try_op(t) == Some(Op::Vector)
                    && m.vector_len(t) == Some(n)
                    && scalar(t) == Some(s)
            }
            ValueShape::Mat4x3 => {
                m.try_op(t) == Some(Op::Matrix)
                    && m.matrix_dims(t) == Some((4, 3))
                    && scalar(t) == Some(Op::F32)
            }
        }
    }

    /// True when a type mentions a generic parameter or a `specialize`.
    fn is_opaque(&self, t: InstId) -> bool {
        let m = self.m;
        let mut stack = vec![t];
        let mut steps = 0;
        while let Some(x) = stack.pop() {
            steps += 1;
            if steps > 64 {
                return false;
            }
            match m.try_op(x) {
                Some(Op::Param) | Some(Op::Specialize) => return true,
                Some(op) if op.is_hoistable() && op.is_type() => {
                    stack.extend(m.operands(x).filter(|&o| {
                        m.try_op(o)
                            .is_some_and(|o| o.is_type() || o == Op::Param || o == Op::Specialize)
                    }));
                }
                _ => {}
            }
        }
        false
    }

    fn addr_result(
        &self,
        ty: Option<InstId>,
        base: InstId,
        elem: Option<InstId>,
    ) -> Result<(), String> {
        let m = self.m;
        let space = m.ty(base).and_then(|t| m.address_space(t));
        let ok = ty.is_some_and(|t| m.address_space(t) == space && m.pointee(t) == elem)
            && elem.is_some();
        if ok {
            Ok(())
        } else {
            Err("an address has type ptr<same space, element type>".into())
        }
    }

    fn matmul(
        &self,
        ty: Option<InstId>,
        a: Option<InstId>,
        b: Option<InstId>,
    ) -> Result<(), String> {
        let m = self.m;
        let (Some(a), Some(b), Some(r)) = (a, b, ty) else {
            return Err("`matmul` operands need types".into());
        };
        let sa = m.scalar_of(a);
        if sa.is_none()
            || sa != m.scalar_of(b)
            || sa != m.scalar_of(r)
            || sa.is_some_and(|s| m.op(s) == Op::Bool)
        {
            return Err("`matmul` works on one numeric element type".into());
        }
        let ok = match (m.matrix_dims(a), m.matrix_dims(b)) {
            (Some((ra, ca)), Some((rb, cb))) => ca == rb && m.matrix_dims(r) == Some((ra, cb)),
            (Some((ra, ca)), None) => {
                m.try_op(b) == Some(Op::Vector)
                    && m.vector_len(b) == Some(ca)
                    && m.vector_len(r) == Some(ra)
                    && m.try_op(r) == Some(Op::Vector)
            }
            (None, Some((rb, cb))) => {
                m.try_op(a) == Some(Op::Vector)
                    && m.vector_len(a) == Some(rb)
                    && m.vector_len(r) == Some(cb)
                    && m.try_op(r) == Some(Op::Vector)
            }
            (None, None) => false,
        };
        if ok {
            Ok(())
        } else {
            Err("`matmul` dimensions do not agree".into())
        }
    }

    // ---- entry points ------------------------------------------------------------------------

    fn entry_points(&mut self, order: &[InstId]) {
        let m = self.m;
        for &f in order {
            if m.op(f) != Op::Func || self.bad.contains(&f) {
                continue;
            }
            let entry = m.find_decoration(f, Op::EntryPoint);
            let threads = m.find_decoration(f, Op::NumThreads);
            let Some(e) = entry else {
                if threads.is_some() {
                    self.report(
                        "OSV0015",
                        Some(f),
                        "`numthreads` on a function that is not an entry point",
                    );
                }
                if let Some(d) = STAGE_MODES
                    .iter()
                    .find_map(|&(op, _)| m.find_decoration(f, op))
                {
                    self.report(
                        "OSV0015",
                        Some(f),
                        format!(
                            "`{}` on a function that is not an entry point",
                            m.op(d).spelling()
                        ),
                    );
                }
                continue;
            };
            let stage = m.imm_operand(e, 0).and_then(Stage::from_u32);
            let fty = m.ty(f);
            let void_ret =
                fty.and_then(|t| m.fn_return(t)).and_then(|t| m.try_op(t)) == Some(Op::Void);
            let no_params = fty.is_some_and(|t| m.fn_params(t).is_empty());
            if !void_ret || !no_params {
                self.report("OSV0015", Some(f), "an entry point is `fn() -> void`");
            }
            if Func::cast(m, f).is_declaration(m) {
                self.report("OSV0015", Some(f), "an entry point needs a body");
            }
            if let Some(stage) = stage {
                self.stage_decorations(f, stage);
            }
            let needs_threads = matches!(
                stage,
                Some(Stage::Compute | Stage::Mesh | Stage::Amplification)
            );
            match (needs_threads, threads) {
                (true, None) => self.report(
                    "OSV0015",
                    Some(f),
                    "a compute entry point needs `numthreads`",
                ),
                (false, Some(_)) => self.report(
                    "OSV0015",
                    Some(f),
                    "`numthreads` only applies to compute, mesh and amplification entry points",
                ),
                (true, Some(t)) if (0..3).any(|i| m.imm_operand(t, i).is_none_or(|v| v == 0)) => {
                    self.report("OSV0015", Some(f), "`numthreads` values must be at least 1");
                }
                _ => {}
            }
        }
        // The usage analysis assumes a module that is otherwise sound.
        if self.diags.is_empty() {
            self.stage_rules();
        }
    }

    /// OSV0015: the execution-mode decorations of an entry point of `stage` (see
    /// [`STAGE_MODES`]): the ones the stage needs are there, with values its pipeline
    /// accepts, and no other stage's.
    fn stage_decorations(&mut self, f: InstId, stage: Stage) {
        let m = self.m;
        let int = |op: Op| m.find_decoration(f, op).map(|d| m.imm_operand(d, 0));
        for &(op, stages) in STAGE_MODES {
            let Some(d) = m.find_decoration(f, op) else {
                if required_mode(op, stage) {
                    self.report(
                        "OSV0015",
                        Some(f),
                        format!(
                            "a {} entry point needs `{}`",
                            stage.spelling(),
                            op.spelling()
                        ),
                    );
                }
                continue;
            };
            if !stages.contains(&stage) {
                self.report(
                    "OSV0015",
                    Some(f),
                    format!(
                        "`{}` does not apply to a {} entry point",
                        op.spelling(),
                        stage.spelling()
                    ),
                );
                continue;
            }
            let v = m.imm_operand(d, 0);
            let ok = match op {
                Op::InputPrimitive => v
                    .and_then(Primitive::from_u32)
                    .is_some_and(|p| p.input_vertices().is_some()),
                Op::OutputPrimitive => {
                    let allowed: &[Primitive] = match stage {
                        Stage::Geometry => &[
                            Primitive::Point,
                            Primitive::LineStrip,
                            Primitive::TriangleStrip,
                        ],
                        Stage::Mesh => &[Primitive::Point, Primitive::Line, Primitive::Triangle],
                        _ => {
                            // The tessellator makes points or the domain's own primitive
                            // (`line`: no vertex order declared); a winding only for triangles
                            // and quads.
                            let isoline = int(Op::TessDomainDeco).flatten()
                                == Some(TessDomain::Isoline.to_u32());
                            if isoline {
                                &[Primitive::Point, Primitive::Line]
                            } else {
                                &[
                                    Primitive::Point,
                                    Primitive::Line,
                                    Primitive::TriangleCw,
                                    Primitive::TriangleCcw,
                                ]
                            }
                        }
                    };
                    v.and_then(Primitive::from_u32)
                        .is_some_and(|p| allowed.contains(&p))
                }
                Op::TessDomainDeco => v.and_then(TessDomain::from_u32).is_some(),
                Op::TessPartitioning => v.and_then(Partitioning::from_u32).is_some(),
                // Counts: at least 1; Vulkan's guaranteed limits bound the patch size (32)
                // and the geometry instances (32).
                Op::OutputControlPoints => v.is_some_and(|n| (1..=32).contains(&n)),
                _ => v.is_some_and(|n| n >= 1),
            };
            if !ok {
                self.report(
                    "OSV0015",
                    Some(d),
                    format!(
                        "this value of `{}` does not fit a {} entry point",
                        op.spelling(),
                        stage.spelling()
                    ),
                );
            }
        }
    }

    /// OSV0028: what only some stages may do. Every instruction of a function an entry
    /// point reaches is allowed in the entry point's stage ([`op_stages`]), every global it
    /// uses lives in an address space the stage has ([`space_stages`]), and the per-patch,
    /// per-primitive and stream qualifiers sit on the inputs or outputs of the stages that
    /// have them, per-vertex built-ins are arrays where a stage sees several vertices, and
    /// an entry point uses at most one global of each incoming ray-tracing memory
    /// (`incoming_ray_payload`, `hit_attribute`, `incoming_callable_data`).
    fn stage_rules(&mut self) {
        let m = self.m;
        let info = ModuleInfo::new(m);
        // Per function, its stage-restricted instructions (found once).
        let mut restricted: rustc_hash::FxHashMap<InstId, Vec<InstId>> =
            rustc_hash::FxHashMap::default();
        for e in info.entry_points() {
            let stage = e.stage();
            for &f in e.functions() {
                let list = restricted.entry(f.id()).or_insert_with(|| {
                    let mut out = Vec::new();
                    for b in f.blocks(m) {
                        for i in m.children(b.id()) {
                            if op_stages(m, i).is_some() {
                                out.push(i);
                            }
                        }
                    }
                    out
                });
                let bad: Vec<(InstId, StageSet)> = list
                    .iter()
                    .filter_map(|&i| {
                        let allowed = op_stages(m, i)?;
                        (!allowed.contains(stage)).then_some((i, allowed))
                    })
                    .collect();
                for (i, allowed) in bad {
                    let names: Vec<&str> = allowed.iter().map(|s| s.spelling()).collect();
                    self.report(
                        "OSV0028",
                        Some(i),
                        format!(
                            "entry point `{}` ({}) reaches an instruction only {} shaders have",
                            e.name(),
                            stage.spelling(),
                            names.join(", ")
                        ),
                    );
                }
            }
            for u in e.globals() {
                let g = u.global.id();
                let Some(space) = m.ty(g).and_then(|t| m.address_space(t)) else {
                    continue;
                };
                if let Some(allowed) = space_stages(space)
                    && !allowed.contains(stage)
                {
                    self.report(
                        "OSV0028",
                        Some(g),
                        format!(
                            "entry point `{}` ({}) uses a global in `{}` memory, which that \
                             stage does not have",
                            e.name(),
                            stage.spelling(),
                            space.spelling()
                        ),
                    );
                }
                let input = space == AddressSpace::Input;
                let output = space == AddressSpace::Output;
                // Per-vertex built-ins of the stages that see several vertices are arrays of
                // vertices.
                let per_vertex = m
                    .find_decoration(g, Op::BuiltinDeco)
                    .and_then(|d| m.imm_operand(d, 0))
                    .and_then(BuiltIn::from_u32)
                    .filter(|b| {
                        matches!(
                            b,
                            BuiltIn::Position
                                | BuiltIn::PointSize
                                | BuiltIn::ClipDistance
                                | BuiltIn::CullDistance
                        )
                    });
                let arrayed = (input
                    && matches!(stage, Stage::Geometry | Stage::Hull | Stage::Domain))
                    || (output && matches!(stage, Stage::Hull | Stage::Mesh));
                let pointee = m.ty(g).and_then(|t| m.pointee(t));
                if let Some(b) = per_vertex
                    && arrayed
                    && pointee.and_then(|t| m.try_op(t)) != Some(Op::Array)
                {
                    self.report(
                        "OSV0028",
                        Some(g),
                        format!(
                            "the `{}` built-in is one value per vertex in the {} of a {} entry \
                             point (`{}`): an array of vertices",
                            b.spelling(),
                            if input { "inputs" } else { "outputs" },
                            stage.spelling(),
                            e.name()
                        ),
                    );
                }
                let rules = [
                    (
                        Op::Patch,
                        (stage == Stage::Hull && output) || (stage == Stage::Domain && input),
                        "hull outputs and domain inputs",
                    ),
                    (
                        Op::PerPrimitive,
                        (stage == Stage::Mesh && output) || (stage == Stage::Fragment && input),
                        "mesh outputs and fragment inputs",
                    ),
                    (
                        Op::StreamDeco,
                        stage == Stage::Geometry && output,
                        "geometry outputs",
                    ),
                ];
                for (op, ok, what) in rules {
                    if !ok && m.has_decoration(g, op) {
                        self.report(
                            "OSV0028",
                            Some(g),
                            format!(
                                "`{}` applies to {what}; entry point `{}` ({}) uses this global",
                                op.spelling(),
                                e.name(),
                                stage.spelling()
                            ),
                        );
                    }
                }
            }
            // Vulkan allows one incoming payload, one hit-attribute and one incoming
            // callable-data variable per entry point.
            for space in [
                AddressSpace::IncomingRayPayload,
                AddressSpace::HitAttribute,
                AddressSpace::IncomingCallableData,
            ] {
                let mut of_space = e
                    .globals()
                    .iter()
                    .map(|u| u.global.id())
                    .filter(|&g| m.ty(g).and_then(|t| m.address_space(t)) == Some(space));
                if let (Some(_), Some(second)) = (of_space.next(), of_space.next()) {
                    self.report(
                        "OSV0028",
                        Some(second),
                        format!(
                            "entry point `{}` ({}) uses more than one global in `{}` memory; \
                             an entry point has at most one",
                            e.name(),
                            stage.spelling(),
                            space.spelling()
                        ),
                    );
                }
            }
        }
    }
}

/// The execution-mode decorations of entry points and the stages each applies to.
const STAGE_MODES: &[(Op, &[Stage])] = &[
    (Op::InputPrimitive, &[Stage::Geometry]),
    (
        Op::OutputPrimitive,
        &[Stage::Geometry, Stage::Hull, Stage::Domain, Stage::Mesh],
    ),
    (Op::MaxVertices, &[Stage::Geometry, Stage::Mesh]),
    (Op::MaxPrimitives, &[Stage::Mesh]),
    (Op::Invocations, &[Stage::Geometry]),
    (Op::TessDomainDeco, &[Stage::Hull, Stage::Domain]),
    (Op::TessPartitioning, &[Stage::Hull, Stage::Domain]),
    (Op::OutputControlPoints, &[Stage::Hull]),
];

/// True when an entry point of `stage` must carry the mode decoration `op`.
fn required_mode(op: Op, stage: Stage) -> bool {
    match stage {
        Stage::Geometry => matches!(
            op,
            Op::InputPrimitive | Op::OutputPrimitive | Op::MaxVertices
        ),
        // The tessellation domain, spacing and winding may come from either tessellation
        // stage (Vulkan combines them); the hull shader's output patch size only from it.
        Stage::Hull => op == Op::OutputControlPoints,
        Stage::Mesh => matches!(
            op,
            Op::OutputPrimitive | Op::MaxVertices | Op::MaxPrimitives
        ),
        _ => false,
    }
}

/// A set of stages from a list.
fn stages(list: &[Stage]) -> StageSet {
    list.iter()
        .fold(StageSet::EMPTY, |acc, &s| acc.union(StageSet::of(s)))
}

/// The stages that may execute instruction `i`, when only some may (OSV0028).
fn op_stages(m: &Module, i: InstId) -> Option<StageSet> {
    use Stage::*;
    Some(match m.op(i) {
        Op::EmitVertex | Op::EndPrimitive => stages(&[Geometry]),
        Op::SetMeshOutputs => stages(&[Mesh]),
        Op::DispatchMesh => stages(&[Amplification]),
        Op::TraceRay => stages(&[RayGeneration, ClosestHit, Miss]),
        Op::ExecuteCallable => stages(&[RayGeneration, ClosestHit, Miss, Callable]),
        Op::ReportHit => stages(&[Intersection]),
        Op::IgnoreHit | Op::AcceptHit => stages(&[AnyHit]),
        Op::Discard => stages(&[Fragment]),
        // Invocations wait for each other only where they form workgroups (Vulkan: compute,
        // mesh, task, tessellation control).
        Op::Barrier
            if m.imm_operand(i, 0)
                .is_some_and(|f| BarrierFlags(f).contains(BarrierFlags::GROUP_SYNC)) =>
        {
            stages(&[Compute, Hull, Mesh, Amplification])
        }
        _ => return None,
    })
}

/// The stages that have memory of `space`, when only some do (OSV0028).
fn space_stages(space: AddressSpace) -> Option<StageSet> {
    use Stage::*;
    Some(match space {
        AddressSpace::Workgroup => stages(&[Compute, Mesh, Amplification]),
        AddressSpace::TaskPayload => stages(&[Mesh, Amplification]),
        AddressSpace::RayPayload => stages(&[RayGeneration, ClosestHit, Miss]),
        AddressSpace::IncomingRayPayload => stages(&[AnyHit, ClosestHit, Miss]),
        AddressSpace::HitAttribute => stages(&[Intersection, AnyHit, ClosestHit]),
        AddressSpace::CallableData => stages(&[RayGeneration, ClosestHit, Miss, Callable]),
        AddressSpace::IncomingCallableData => stages(&[Callable]),
        AddressSpace::ShaderRecord => stages(&[
            RayGeneration,
            Intersection,
            AnyHit,
            ClosestHit,
            Miss,
            Callable,
        ]),
        _ => return None,
    })
}

/// The spelling of a value shape, for messages.
fn shape_name(shape: ValueShape) -> &'static str {
    match shape {
        ValueShape::Bool => "bool",
        ValueShape::U32 => "u32",
        ValueShape::F32 => "f32",
        ValueShape::F32x2 => "vec<f32, 2>",
        ValueShape::F32x3 => "vec<f32, 3>",
        ValueShape::U32x3 => "vec<u32, 3>",
        ValueShape::Mat4x3 => "mat<f32, 4, 3>",
    }
}

/// What [`holds`] looks for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Holds {
    RuntimeArray,
    Pointer,
    RayQuery,
    Accel,
}

/// True when `ty` is, or holds as an element or field at any depth, a runtime array or a
/// pointer. Bounded: a malformed module could nest types in a cycle through structs.
fn holds(m: &Module, ty: InstId, what: Holds) -> bool {
    let mut stack = vec![(ty, 0u32)];
    while let Some((t, depth)) = stack.pop() {
        if depth > 64 {
            continue;
        }
        match m.try_op(t) {
            Some(Op::RuntimeArray) if what == Holds::RuntimeArray => return true,
            Some(Op::Ptr) if what == Holds::Pointer => return true,
            Some(Op::RayQuery) if what == Holds::RayQuery => return true,
            Some(Op::AccelStruct) if what == Holds::Accel => return true,
            Some(Op::Array | Op::RuntimeArray) => stack.push((m.operand(t, 0), depth + 1)),
            Some(Op::Struct) => {
                for f in m.struct_fields(t) {
                    if let Some(ft) = m.ty(f) {
                        stack.push((ft, depth + 1));
                    }
                }
            }
            _ => {}
        }
    }
    false
}

/// `rtarray<T>` with no runtime array in `T`.
fn is_plain_rtarray(m: &Module, ty: InstId) -> bool {
    m.try_op(ty) == Some(Op::RuntimeArray) && !holds(m, m.operand(ty, 0), Holds::RuntimeArray)
}

/// What one storage buffer holds: a plain runtime array, or a struct whose only runtime array
/// is its last field (checked on the struct itself), or anything without a runtime array.
fn is_buffer_block(m: &Module, ty: InstId) -> bool {
    match m.try_op(ty) {
        Some(Op::RuntimeArray) => is_plain_rtarray(m, ty),
        Some(Op::Struct) => {
            let fields = m.struct_fields(ty);
            let n = fields.len();
            fields.iter().enumerate().all(|(i, &f)| {
                m.ty(f).is_some_and(|t| {
                    !holds(m, t, Holds::RuntimeArray) || (i + 1 == n && is_plain_rtarray(m, t))
                })
            })
        }
        _ => !holds(m, ty, Holds::RuntimeArray),
    }
}

#[cfg(test)]
#[path = "verify_tests.rs"]
mod tests;
