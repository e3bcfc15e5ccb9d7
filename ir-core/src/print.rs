//! The deterministic text form of a module (grammar: docs/ir-text.md).
//!
//! Output never depends on slot-map keys, hash order or anything but the module's structure,
//! child order and name hints: values are numbered per top-level item in print order (`%0`,
//! `%1`, block parameters included), blocks by position (`bb0`), types and constants are
//! printed inline, and module-level items are named by their hints (made unique
//! deterministically).

use std::fmt::Write as _;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::imm::ImmKind;
use crate::module::{InstId, Module};
use crate::ops::{Kind, Op};
use crate::types::sign_extend;

/// Prints the whole module.
pub fn print_module(m: &Module) -> String {
    let mut p = Printer::new(m);
    p.module();
    p.out
}

/// Prints one instruction (types and constants inline, values numbered as in a whole-module
/// print of the function containing it). Meant for diagnostics. Each call names the module's
/// items and numbers the function again; to print many instructions, use one [`InstPrinter`].
pub fn print_inst(m: &Module, id: InstId) -> String {
    InstPrinter::new(m).print(id)
}

/// Prints instructions of one module one at a time, the way [`print_inst`] does, naming the
/// module's items once and numbering each function only when the instruction asked for is in
/// a different one from the last: printing every instruction of a function costs about one
/// print of the function. Holds the module borrowed, so it reflects the module as it was when
/// made.
pub struct InstPrinter<'a> {
    p: Printer<'a>,
    /// The item (function or generic) whose values are numbered now.
    numbered: Option<InstId>,
}

impl<'a> InstPrinter<'a> {
    /// A printer for `m` (names its module-level items once).
    pub fn new(m: &'a Module) -> InstPrinter<'a> {
        InstPrinter {
            p: Printer::new(m),
            numbered: None,
        }
    }

    /// The text of instruction `id`, as [`print_inst`] prints it.
    pub fn print(&mut self, id: InstId) -> String {
        let m = self.p.m;
        if !m.contains(id) {
            return "<removed instruction>".to_string();
        }
        let p = &mut self.p;
        let top = top_item_of(m, id);
        if matches!(m.try_op(top), Some(Op::Func | Op::Generic)) && self.numbered != Some(top) {
            p.number_item(top);
            self.numbered = Some(top);
        }
        let op = m.op(id);
        if op.is_type() {
            return p.ty(id);
        }
        if op.is_hoistable() || op == Op::Global || op == Op::Func || op == Op::Generic {
            if op.is_hoistable() {
                return p.value(id);
            }
            return format!("{} {}", op.spelling(), p.global_name(id));
        }
        if op == Op::Block {
            return p.block_name(id);
        }
        if op == Op::Param {
            let t = m.ty(id).map(|t| p.ty(t)).unwrap_or_default();
            return format!("{}: {}", p.value(id), t);
        }
        if op.is_decoration() {
            return p.decoration(id);
        }
        p.out.clear();
        p.inst_line(id);
        p.out.trim().to_string()
    }
}

/// The module-level item (function or generic) that contains `id`.
fn top_item_of(m: &Module, id: InstId) -> InstId {
    let mut cur = id;
    while let Some(p) = m.parent(cur) {
        if p == m.root() {
            return cur;
        }
        cur = p;
    }
    cur
}

/// True when `s` can be printed as a bare name after `@`, `%` or a block label.
pub(crate) fn is_bare_name(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$')
}

/// Quotes a string in the text form's syntax.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

struct Printer<'a> {
    m: &'a Module,
    out: String,
    globals: FxHashMap<InstId, String>,
    locals: FxHashMap<InstId, String>,
    blocks: FxHashMap<InstId, String>,
}

impl<'a> Printer<'a> {
    fn new(m: &'a Module) -> Printer<'a> {
        let mut p = Printer {
            m,
            out: String::new(),
            globals: FxHashMap::default(),
            locals: FxHashMap::default(),
            blocks: FxHashMap::default(),
        };
        p.name_globals();
        p
    }

    /// Gives every module-level item, every item nested in a generic body and every named
    /// non-type hoistable value a unique `@name`, in tree order.
    fn name_globals(&mut self) {
        let m = self.m;
        let mut taken: FxHashSet<String> = FxHashSet::default();
        let mut counter = 0usize;
        let mut stack = vec![m.root()];
        let mut order = Vec::new();
        while let Some(scope) = stack.pop() {
            let mut nested = Vec::new();
            for c in m.children(scope) {
                let op = m.op(c);
                let named_let = op.is_hoistable() && !op.is_type() && m.name(c).is_some();
                if matches!(op, Op::Struct | Op::Global | Op::Func | Op::Generic) || named_let {
                    order.push(c);
                }
                if op == Op::Generic
                    && let Some(body) = m.children(c).find(|&b| m.op(b) == Op::Block)
                {
                    nested.push(body);
                }
            }
            stack.extend(nested.into_iter().rev());
        }
        for id in order {
            let base = match m.name(id) {
                Some(n) => n.to_string(),
                None => {
                    let prefix = match m.op(id) {
                        Op::Struct => "S",
                        Op::Global => "g",
                        Op::Func => "f",
                        Op::Generic => "G",
                        _ => "c",
                    };
                    counter += 1;
                    format!("{prefix}{}", counter - 1)
                }
            };
            let mut name = base.clone();
            let mut n = 1;
            while taken.contains(&name) {
                name = format!("{base}.{n}");
                n += 1;
            }
            taken.insert(name.clone());
            let printed = if is_bare_name(&name) {
                format!("@{name}")
            } else {
                format!("@{}", quote(&name))
            };
            self.globals.insert(id, printed);
        }
    }

    fn global_name(&self, id: InstId) -> String {
        self.globals
            .get(&id)
            .cloned()
            .unwrap_or_else(|| "@<unnamed>".to_string())
    }

    fn local_name(&self, n: usize, id: InstId) -> String {
        match self.m.name(id) {
            Some(h) if is_bare_name(h) => format!("%{n}.{h}"),
            Some(h) => format!("%{n}.{}", quote(h)),
            None => format!("%{n}"),
        }
    }

    /// Numbers the values and blocks of one module-level item (a function or generic).
    fn number_item(&mut self, item: InstId) {
        self.locals.clear();
        self.blocks.clear();
        let mut next = 0usize;
        self.number_rec(item, &mut next);
    }

    fn number_rec(&mut self, item: InstId, next: &mut usize) {
        let m = self.m;
        match m.op(item) {
            Op::Func => {
                for (bi, b) in m
                    .children(item)
                    .filter(|&c| m.op(c) == Op::Block)
                    .enumerate()
                {
                    // Block hints that are not plain names are not printed.
                    let label = match m.name(b) {
                        Some(h) if is_bare_name(h) => format!("bb{bi}.{h}"),
                        _ => format!("bb{bi}"),
                    };
                    self.blocks.insert(b, label);
                    for c in m.children(b) {
                        if self.defines_value(c) {
                            let name = self.local_name(*next, c);
                            self.locals.insert(c, name);
                            *next += 1;
                        }
                    }
                }
            }
            Op::Generic => {
                let Some(body) = m.children(item).find(|&c| m.op(c) == Op::Block) else {
                    return;
                };
                for c in m.children(body) {
                    if m.op(c) == Op::Param {
                        let name = self.local_name(*next, c);
                        self.locals.insert(c, name);
                        *next += 1;
                    }
                }
                for c in m.children(body) {
                    if matches!(m.op(c), Op::Func | Op::Generic) {
                        self.number_rec(c, next);
                    }
                }
            }
            _ => {}
        }
    }

    /// Params, and instructions except the `void` statements (`store`, ..., a call of a `void`
    /// function or intrinsic such as `sincos`). An instruction that should yield a value keeps its `%n =` even when its type
    /// is (wrongly) `void`, so invalid modules print faithfully too.
    fn defines_value(&self, id: InstId) -> bool {
        let m = self.m;
        match m.op(id) {
            Op::Param => true,
            op if op.is_instruction() => {
                let is_void = m.ty(id).is_none_or(|t| m.try_op(t) == Some(Op::Void));
                !(is_void
                    && (op.info().ty == crate::ops::TypeRule::Void
                        || matches!(op, Op::Call | Op::CallIntrinsic)))
            }
            _ => false,
        }
    }

    fn block_name(&self, id: InstId) -> String {
        match self.blocks.get(&id) {
            Some(label) => label.split('.').next().unwrap_or("bb?").to_string(),
            None => "bb?".to_string(),
        }
    }

    // ---- module ----------------------------------------------------------------------------

    fn module(&mut self) {
        let m = self.m;
        let root = m.root();
        let mut first = true;
        // Decorations of the module itself.
        let decos: Vec<InstId> = m.decorations(root).collect();
        if !decos.is_empty() {
            let list = self.decoration_list(root);
            let _ = writeln!(self.out, "module{list}");
            first = false;
        }
        // Named hoistable values first, so every reference to them follows their definition.
        for c in m.children(root) {
            if self.is_let(c) {
                self.let_item(c);
                first = false;
            }
        }
        for c in m.children(root) {
            let op = m.op(c);
            if !matches!(op, Op::Struct | Op::Global | Op::Func | Op::Generic) {
                continue;
            }
            if !first && matches!(op, Op::Func | Op::Generic | Op::Struct) {
                self.out.push('\n');
            }
            first = false;
            match op {
                Op::Struct => self.struct_item(c, ""),
                Op::Global => self.global_item(c),
                Op::Func => {
                    self.number_item(c);
                    self.func_item(c, "");
                }
                _ => {
                    self.number_item(c);
                    self.generic_item(c, "");
                }
            }
        }
    }

    fn is_let(&self, id: InstId) -> bool {
        let op = self.m.op(id);
        op.is_hoistable() && !op.is_type() && self.m.name(id).is_some()
    }

    fn let_item(&mut self, id: InstId) {
        let name = self.global_name(id);
        let v = self.value_inline(id);
        let _ = writeln!(self.out, "let {name} = {v}");
    }

    fn struct_item(&mut self, id: InstId, indent: &str) {
        let m = self.m;
        let name = self.global_name(id);
        let decos = self.decoration_list(id);
        let _ = writeln!(self.out, "{indent}struct {name}{decos} {{");
        for f in m.children(id).filter(|&c| m.op(c) == Op::Field) {
            let fname = match m.name(f) {
                Some(n) if is_bare_name(n) => n.to_string(),
                Some(n) => quote(n),
                None => "_".to_string(),
            };
            let t = m
                .ty(f)
                .map(|t| self.ty(t))
                .unwrap_or_else(|| "<none>".into());
            let decos = self.decoration_list(f);
            let _ = writeln!(self.out, "{indent}  {fname}: {t}{decos}");
        }
        let _ = writeln!(self.out, "{indent}}}");
    }

    fn global_item(&mut self, id: InstId) {
        let m = self.m;
        let name = self.global_name(id);
        let t = m
            .ty(id)
            .map(|t| self.ty(t))
            .unwrap_or_else(|| "<none>".into());
        let init = match m.try_operand(id, 0) {
            Some(v) => format!(" = {}", self.value(v)),
            None => String::new(),
        };
        let decos = self.decoration_list(id);
        let _ = writeln!(self.out, "global {name} : {t}{init}{decos}");
    }

    fn func_item(&mut self, id: InstId, indent: &str) {
        let m = self.m;
        let name = self.global_name(id);
        let fty = m.ty(id);
        let ret = fty
            .and_then(|t| m.fn_return(t))
            .map(|t| self.ty(t))
            .unwrap_or_else(|| "<none>".into());
        let decos = self.decoration_list(id);
        let blocks: Vec<InstId> = m.children(id).filter(|&c| m.op(c) == Op::Block).collect();
        if blocks.is_empty() {
            let params: Vec<String> = fty
                .map(|t| m.fn_params(t))
                .unwrap_or_default()
                .into_iter()
                .map(|t| self.ty(t))
                .collect();
            let _ = writeln!(
                self.out,
                "{indent}func {name}({}) -> {ret}{decos}",
                params.join(", ")
            );
            return;
        }
        let params: Vec<String> = m
            .children(blocks[0])
            .filter(|&c| m.op(c) == Op::Param)
            .map(|p| self.param_decl(p))
            .collect();
        let _ = writeln!(
            self.out,
            "{indent}func {name}({}) -> {ret}{decos} {{",
            params.join(", ")
        );
        for (i, &b) in blocks.iter().enumerate() {
            self.block(b, i == 0, indent);
        }
        let _ = writeln!(self.out, "{indent}}}");
    }

    fn param_decl(&self, p: InstId) -> String {
        let t = self
            .m
            .ty(p)
            .map(|t| self.ty(t))
            .unwrap_or_else(|| "<none>".into());
        let decos = self.decoration_list(p);
        format!("{}: {t}{decos}", self.value(p))
    }

    fn block(&mut self, b: InstId, entry: bool, indent: &str) {
        let m = self.m;
        let label = self.blocks.get(&b).cloned().unwrap_or_else(|| "bb?".into());
        let params: Vec<String> = m
            .children(b)
            .filter(|&c| m.op(c) == Op::Param)
            .map(|p| self.param_decl(p))
            .collect();
        if entry || params.is_empty() {
            let _ = writeln!(self.out, "{indent}{label}:");
        } else {
            let _ = writeln!(self.out, "{indent}{label}({}):", params.join(", "));
        }
        for c in m.children(b) {
            let op = m.op(c);
            if op == Op::Param {
                continue;
            }
            self.out.push_str(indent);
            self.inst_line(c);
        }
    }

    fn generic_item(&mut self, id: InstId, indent: &str) {
        let m = self.m;
        let name = self.global_name(id);
        let decos = self.decoration_list(id);
        let Some(body) = m.children(id).find(|&c| m.op(c) == Op::Block) else {
            let _ = writeln!(self.out, "{indent}generic {name}<>{decos} {{\n{indent}}}");
            return;
        };
        let params: Vec<String> = m
            .children(body)
            .filter(|&c| m.op(c) == Op::Param)
            .map(|p| self.param_decl(p))
            .collect();
        let _ = writeln!(
            self.out,
            "{indent}generic {name}<{}>{decos} {{",
            params.join(", ")
        );
        let inner = format!("{indent}  ");
        for c in m.children(body) {
            if self.is_let(c) {
                let name = self.global_name(c);
                let v = self.value_inline(c);
                let _ = writeln!(self.out, "{inner}let {name} = {v}");
            }
        }
        for c in m.children(body) {
            match m.op(c) {
                Op::Struct => self.struct_item(c, &inner),
                Op::Func => self.func_item(c, &inner),
                Op::Generic => self.generic_item(c, &inner),
                op if op.is_terminator() => {
                    self.out.push_str(indent);
                    self.inst_line(c);
                }
                _ => {}
            }
        }
        let _ = writeln!(self.out, "{indent}}}");
    }

    // ---- instructions ------------------------------------------------------------------------

    fn inst_line(&mut self, id: InstId) {
        let m = self.m;
        let op = m.op(id);
        let mut line = String::from("  ");
        if self.defines_value(id) {
            let _ = write!(line, "{} = ", self.value(id));
        }
        line.push_str(op.spelling());
        let operands = self.operand_text(id);
        if !operands.is_empty() {
            line.push(' ');
            line.push_str(&operands);
        }
        if self.defines_value(id)
            && let Some(t) = m.ty(id)
        {
            let _ = write!(line, " : {}", self.ty(t));
        }
        line.push_str(&self.decoration_list(id));
        line.push('\n');
        self.out.push_str(&line);
    }

    fn operand_text(&self, id: InstId) -> String {
        let m = self.m;
        let op = m.op(id);
        let ops = m.operands_vec(id);
        let info = op.info();
        let join = |v: &[InstId], kinds_from: usize| -> Vec<String> {
            v.iter()
                .enumerate()
                .map(|(i, &o)| self.operand(o, info.kind(kinds_from + i)))
                .collect()
        };
        match op {
            Op::Call | Op::CallIntrinsic if !ops.is_empty() => {
                let head = self.operand(ops[0], info.kind(0));
                format!("{head}({})", join(&ops[1..], 1).join(", "))
            }
            Op::Br if !ops.is_empty() => self.target_with_args(ops[0], &ops[1..]),
            Op::Loop if ops.len() >= 3 => {
                format!(
                    "{}, break {}, continue {}",
                    self.target_with_args(ops[0], &ops[3..]),
                    self.block_name(ops[1]),
                    self.block_name(ops[2])
                )
            }
            Op::Switch if ops.len() >= 3 => {
                let cases: Vec<String> = ops[3..]
                    .chunks(2)
                    .map(|c| {
                        let target = c.get(1).map(|&b| self.block_name(b)).unwrap_or_default();
                        format!("{}: {}", self.value(c[0]), target)
                    })
                    .collect();
                format!(
                    "{}, merge {}, default {}, [{}]",
                    self.value(ops[0]),
                    self.block_name(ops[1]),
                    self.block_name(ops[2]),
                    cases.join(", ")
                )
            }
            _ => join(&ops, 0).join(", "),
        }
    }

    fn target_with_args(&self, target: InstId, args: &[InstId]) -> String {
        let name = self.block_name(target);
        if args.is_empty() {
            name
        } else {
            let a: Vec<String> = args.iter().map(|&v| self.value(v)).collect();
            format!("{name}({})", a.join(", "))
        }
    }

    /// One operand, printed according to its slot kind.
    fn operand(&self, v: InstId, kind: Option<Kind>) -> String {
        let m = self.m;
        match kind {
            Some(Kind::Block) => self.block_name(v),
            Some(Kind::Join(word)) => format!("{word} {}", self.block_name(v)),
            Some(Kind::Type) => self.ty(v),
            Some(Kind::Int) => match m.imm_value(v) {
                Some(n) if m.ty(v).and_then(|t| m.try_op(t)) == Some(Op::U32) => n.to_string(),
                _ => self.value(v),
            },
            Some(Kind::Imm(k)) => match m.imm_value(v).and_then(|n| k.spell(n)) {
                Some(s) if m.ty(v).and_then(|t| m.try_op(t)) == Some(Op::U32) => s,
                _ => self.value(v),
            },
            _ => self.value(v),
        }
    }

    /// A value reference: a local number, a global name, or an inline constant or type.
    fn value(&self, v: InstId) -> String {
        if let Some(n) = self.locals.get(&v) {
            return n.clone();
        }
        if let Some(n) = self.globals.get(&v) {
            return n.clone();
        }
        let m = self.m;
        match m.try_op(v) {
            None => "<removed>".to_string(),
            Some(op) if op.is_type() => self.ty(v),
            Some(op) if op.is_hoistable() => self.value_inline(v),
            Some(Op::Block) => self.block_name(v),
            Some(_) => "<out of scope>".to_string(),
        }
    }

    /// A hoistable value spelled out (ignoring any `let` name it has).
    fn value_inline(&self, v: InstId) -> String {
        let m = self.m;
        let op = m.op(v);
        let ty = m.ty(v);
        let tys = ty.map(|t| self.ty(t)).unwrap_or_else(|| "<none>".into());
        match op {
            Op::ConstBool => format!("bool {}", m.literal_bits(v).unwrap_or(0) != 0),
            Op::ConstInt => {
                let bits = m.literal_bits(v).unwrap_or(0);
                let t = ty.and_then(|t| m.try_op(t));
                let width = ty.and_then(|t| m.scalar_bits(t)).unwrap_or(64);
                match t {
                    Some(t) if t.is_signed_int_type() => {
                        format!("{tys} {}", sign_extend(bits, width))
                    }
                    _ => format!("{tys} {bits}"),
                }
            }
            Op::ConstFloat => {
                let bits = m.literal_bits(v).unwrap_or(0);
                format!("{tys} {}", float_text(ty.and_then(|t| m.try_op(t)), bits))
            }
            Op::ConstString => quote(m.literal_str(v).unwrap_or("")),
            Op::Composite => {
                let elems: Vec<String> = m.operands(v).map(|e| self.value(e)).collect();
                format!("{tys} {{{}}}", elems.join(", "))
            }
            Op::Zero => format!("{tys} zero"),
            Op::Undef => format!("{tys} undef"),
            Op::SpecConst => {
                let id = m
                    .imm_operand(v, 0)
                    .map(|n| n.to_string())
                    .unwrap_or_else(|| "?".into());
                let def = m
                    .try_operand(v, 1)
                    .map(|d| self.value(d))
                    .unwrap_or_default();
                format!("spec_const({id}, {def})")
            }
            Op::Specialize => self.specialize_text(v),
            _ if op.is_type() => self.ty(v),
            _ => "<bad value>".to_string(),
        }
    }

    fn specialize_text(&self, v: InstId) -> String {
        let m = self.m;
        let tys = m
            .ty(v)
            .map(|t| self.ty(t))
            .unwrap_or_else(|| "<none>".into());
        let args: Vec<String> = m
            .operands(v)
            .map(|a| {
                if m.try_op(a).is_some_and(|o| o.is_type()) || self.is_type_param(a) {
                    self.ty(a)
                } else {
                    self.value(a)
                }
            })
            .collect();
        format!("specialize<{tys}>({})", args.join(", "))
    }

    fn is_type_param(&self, v: InstId) -> bool {
        let m = self.m;
        m.try_op(v) == Some(Op::Param) && m.ty(v).and_then(|t| m.try_op(t)) == Some(Op::TypeType)
    }

    /// A type, inline.
    fn ty(&self, t: InstId) -> String {
        let m = self.m;
        let Some(op) = m.try_op(t) else {
            return "<removed>".to_string();
        };
        let arg = |i: usize| -> String {
            m.try_operand(t, i)
                .map(|x| self.ty(x))
                .unwrap_or_else(|| "?".into())
        };
        let int = |i: usize| -> String {
            m.try_operand(t, i)
                .and_then(|x| m.imm_value(x))
                .map(|n| n.to_string())
                .unwrap_or_else(|| "?".into())
        };
        match op {
            _ if op.is_scalar_type() => op.spelling().to_string(),
            Op::Void
            | Op::Sampler
            | Op::SamplerCmp
            | Op::StringType
            | Op::TypeType
            | Op::AccelStruct
            | Op::RayQuery => op.spelling().to_string(),
            Op::Vector => format!("vec<{}, {}>", arg(0), int(1)),
            Op::Matrix => format!("mat<{}, {}, {}>", arg(0), int(1), int(2)),
            Op::Array => format!("array<{}, {}>", arg(0), int(1)),
            Op::RuntimeArray => format!("rtarray<{}>", arg(0)),
            Op::Ptr => {
                let space = m
                    .try_operand(t, 0)
                    .and_then(|x| m.imm_value(x))
                    .and_then(|n| ImmKind::AddressSpace.spell(n))
                    .unwrap_or_else(|| "?".into());
                format!("ptr<{space}, {}>", arg(1))
            }
            Op::FnType => {
                let params: Vec<String> = (1..m.num_operands(t)).map(arg).collect();
                format!("fn({}) -> {}", params.join(", "), arg(0))
            }
            Op::Texture => self.texture_text(t),
            Op::Struct => self.global_name(t),
            Op::Param => self.value(t),
            Op::Specialize => self.specialize_text(t),
            _ => self.value(t),
        }
    }

    fn texture_text(&self, t: InstId) -> String {
        let m = self.m;
        let imm = |i: usize| m.try_operand(t, i).and_then(|x| m.imm_value(x));
        let spell = |i: usize, k: ImmKind| {
            imm(i)
                .and_then(|n| k.spell(n))
                .unwrap_or_else(|| "?".into())
        };
        let mut parts = vec![
            spell(1, ImmKind::Dim),
            m.try_operand(t, 0)
                .map(|x| self.ty(x))
                .unwrap_or_else(|| "?".into()),
        ];
        if imm(2) == Some(1) {
            parts.push("array".into());
        }
        if imm(3) == Some(1) {
            parts.push("ms".into());
        }
        match imm(4) {
            Some(1) => parts.push("depth".into()),
            Some(2) => parts.push("depth?".into()),
            _ => {}
        }
        if imm(5) == Some(1) {
            parts.push("storage".into());
        }
        if imm(6).is_some_and(|f| f != 0) {
            parts.push(spell(6, ImmKind::ImageFormat));
        }
        format!("texture<{}>", parts.join(", "))
    }

    // ---- decorations -------------------------------------------------------------------------

    fn decoration_list(&self, target: InstId) -> String {
        let decos: Vec<String> = self
            .m
            .decorations(target)
            .map(|d| self.decoration(d))
            .collect();
        if decos.is_empty() {
            String::new()
        } else {
            format!(" [{}]", decos.join(", "))
        }
    }

    fn decoration(&self, d: InstId) -> String {
        let m = self.m;
        let op = m.op(d);
        if m.num_operands(d) == 0 {
            return op.spelling().to_string();
        }
        let info = op.info();
        let args: Vec<String> = m
            .operands(d)
            .enumerate()
            .map(|(i, o)| self.operand(o, info.kind(i)))
            .collect();
        format!("{}({})", op.spelling(), args.join(", "))
    }
}

/// The text of a float constant: shortest round-trip decimal for finite f32/f64 values, hex
/// bits otherwise (and always for f16).
fn float_text(ty: Option<Op>, bits: u64) -> String {
    match ty {
        Some(Op::F32) => {
            let f = f32::from_bits(bits as u32);
            if f.is_finite() {
                format!("{f:?}")
            } else {
                format!("0x{:08x}", bits as u32)
            }
        }
        Some(Op::F64) => {
            let f = f64::from_bits(bits);
            if f.is_finite() {
                format!("{f:?}")
            } else {
                format!("0x{bits:016x}")
            }
        }
        _ => format!("0x{:04x}", bits),
    }
}
