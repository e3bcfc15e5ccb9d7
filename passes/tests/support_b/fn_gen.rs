//! The generator of random well-formed functions for the differential tests: integer
//! (`i32`, `u32`) and `f32` parameters, local variables, assignments of random expressions,
//! `if`/`else`, `if` expressions joining in a merge-block parameter, `switch`es with a shared
//! target and a fall-through, counted loops with `break`/`continue`, and calls of up to two
//! helpers that return early (see passes/tests/differential.rs, which runs them in the
//! interpreter before and after `-O`). Shared with testing/oracle/tests/random_programs.rs
//! (which runs them on lavapipe) through a `#[path]` module. Everything is derived from a
//! seed; [`generate`] returns the module text and `@f`'s parameter types.

#![allow(dead_code)]

use oneshader_passes::semantics::Scalar;

/// SplitMix64: small, deterministic, good enough to pick program shapes.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    I32,
    U32,
    F32,
}

impl Ty {
    pub fn text(self) -> &'static str {
        match self {
            Ty::I32 => "i32",
            Ty::U32 => "u32",
            Ty::F32 => "f32",
        }
    }

    pub fn scalar(self) -> Scalar {
        match self {
            Ty::I32 => Scalar::I32,
            Ty::U32 => Scalar::U32,
            Ty::F32 => Scalar::F32,
        }
    }
}

pub const TYS: [Ty; 3] = [Ty::I32, Ty::U32, Ty::F32];

/// Interesting bit patterns of each type.
fn special(rng: &mut Rng, ty: Ty) -> u64 {
    match ty {
        Ty::I32 | Ty::U32 => rng.pick(&[
            0u64,
            1,
            2,
            3,
            7,
            31,
            32,
            0xffff_ffff,
            0x8000_0000,
            0x7fff_ffff,
            0xffff_fff0,
            100,
        ]),
        Ty::F32 => rng.pick(&[
            0.0f32.to_bits() as u64,
            (-0.0f32).to_bits() as u64,
            1.0f32.to_bits() as u64,
            (-1.0f32).to_bits() as u64,
            0.5f32.to_bits() as u64,
            3.0f32.to_bits() as u64,
            0.1f32.to_bits() as u64,
            1e30f32.to_bits() as u64,
            1e-40f32.to_bits() as u64,
            f32::INFINITY.to_bits() as u64,
            f32::NEG_INFINITY.to_bits() as u64,
            0x7fc0_0000,
            0xffc0_0001,
            16_777_217.0f32.to_bits() as u64,
            3e9f32.to_bits() as u64,
        ]),
    }
}

/// A random value of `ty`: special values half of the time, otherwise random bits (small
/// integers, or any non-signaling float).
pub fn random_bits(rng: &mut Rng, ty: Ty) -> u64 {
    if rng.chance(30) {
        // The values algebraic identities are about: they make wrong identities visible.
        return match ty {
            Ty::I32 | Ty::U32 => rng.pick(&[0u64, 1, 0xffff_ffff]),
            Ty::F32 => rng.pick(&[
                0.0f32.to_bits() as u64,
                (-0.0f32).to_bits() as u64,
                1.0f32.to_bits() as u64,
                0x7fc0_0000,
                f32::INFINITY.to_bits() as u64,
            ]),
        };
    }
    if rng.chance(40) {
        return special(rng, ty);
    }
    match ty {
        Ty::I32 | Ty::U32 => {
            if rng.chance(70) {
                rng.below(41).wrapping_sub(20) & 0xffff_ffff
            } else {
                rng.next() & 0xffff_ffff
            }
        }
        Ty::F32 => {
            let x = if rng.chance(70) {
                ((rng.below(2001) as f32) - 1000.0) / 8.0
            } else {
                f32::from_bits(rng.next() as u32)
            };
            let mut b = x.to_bits();
            if x.is_nan() {
                // Quiet NaNs only (see the module documentation).
                b |= 0x0040_0000;
            }
            b as u64
        }
    }
}

fn const_text(ty: Ty, bits: u64) -> String {
    match ty {
        Ty::I32 => format!("i32 {}", bits as u32 as i32),
        Ty::U32 => format!("u32 {}", bits as u32),
        Ty::F32 => format!("f32 0x{:08x}", bits as u32),
    }
}

/// Where a variable lives: its own `var`, or an element of the array `var`.
#[derive(Clone, Copy, Debug)]
enum Slot {
    Var(usize),
    Elem(usize),
}

struct Gen {
    rng: Rng,
    params: Vec<Ty>,
    /// Variable types and locations.
    vars: Vec<(Ty, Slot)>,
    /// The finished blocks: label, parameter list, lines.
    blocks: Vec<(String, String, Vec<String>)>,
    /// The block being filled.
    cur: usize,
    next_value: usize,
    next_label: usize,
    /// Enclosing loops, innermost last: (counter value, break label, continue label).
    loops: Vec<(String, String, String)>,
    /// Instructions left to emit (keeps programs small).
    budget: usize,
    /// Functions this one may call: (name, parameter types, return type).
    helpers: Vec<(String, Vec<Ty>, Ty)>,
    /// The return type when this is a helper (which may return early).
    ret: Option<Ty>,
}

impl Gen {
    fn value(&mut self) -> String {
        self.next_value += 1;
        format!("%t{}", self.next_value)
    }

    fn label(&mut self) -> String {
        self.next_label += 1;
        format!("b{}", self.next_label)
    }

    fn new_block(&mut self, params: String) -> (usize, String) {
        let l = self.label();
        self.blocks.push((l.clone(), params, Vec::new()));
        (self.blocks.len() - 1, l)
    }

    fn emit(&mut self, line: String) {
        self.blocks[self.cur].2.push(line);
        self.budget = self.budget.saturating_sub(1);
    }

    fn address(&mut self, v: usize) -> String {
        match self.vars[v].1 {
            Slot::Var(k) => format!("%v{k}"),
            Slot::Elem(k) => {
                let a = self.value();
                self.emit(format!(
                    "{a} = element_addr %arr, i32 {k} : ptr<function, i32>"
                ));
                a
            }
        }
    }

    fn vars_of(&self, ty: Ty) -> Vec<usize> {
        (0..self.vars.len())
            .filter(|&v| self.vars[v].0 == ty)
            .collect()
    }

    fn leaf(&mut self, ty: Ty) -> String {
        loop {
            match self.rng.below(4) {
                0 => {
                    let ps: Vec<usize> = (0..self.params.len())
                        .filter(|&p| self.params[p] == ty)
                        .collect();
                    if !ps.is_empty() {
                        return format!("%p{}", self.rng.pick(&ps));
                    }
                }
                1 => {
                    let vs = self.vars_of(ty);
                    if !vs.is_empty() {
                        let v = self.rng.pick(&vs);
                        let a = self.address(v);
                        let t = self.value();
                        self.emit(format!("{t} = load {a} : {}", ty.text()));
                        return t;
                    }
                }
                2 if ty == Ty::I32 && !self.loops.is_empty() => {
                    let k = self.rng.below(self.loops.len() as u64) as usize;
                    return self.loops[k].0.clone();
                }
                3 if self.rng.chance(40) => {
                    let callees: Vec<usize> = (0..self.helpers.len())
                        .filter(|&h| self.helpers[h].2 == ty)
                        .collect();
                    if callees.is_empty() {
                        continue;
                    }
                    let h = self.rng.pick(&callees);
                    let (name, ptys, _) = self.helpers[h].clone();
                    let args: Vec<String> = ptys.iter().map(|&t| self.simple_leaf(t)).collect();
                    let t = self.value();
                    self.emit(format!(
                        "{t} = call @{name}({}) : {}",
                        args.join(", "),
                        ty.text()
                    ));
                    return t;
                }
                _ => {
                    let b = random_bits(&mut self.rng, ty);
                    return const_text(ty, b);
                }
            }
        }
    }

    /// A parameter or a constant (call arguments, so that calls do not nest).
    fn simple_leaf(&mut self, ty: Ty) -> String {
        let ps: Vec<usize> = (0..self.params.len())
            .filter(|&p| self.params[p] == ty)
            .collect();
        if !ps.is_empty() && self.rng.chance(60) {
            return format!("%p{}", self.rng.pick(&ps));
        }
        let b = random_bits(&mut self.rng, ty);
        const_text(ty, b)
    }

    fn expr(&mut self, ty: Ty, depth: u32) -> String {
        if depth == 0 || self.budget == 0 || self.rng.chance(30) {
            return self.leaf(ty);
        }
        match self.rng.below(10) {
            0..=5 => {
                let ops: &[&str] = match ty {
                    Ty::F32 => &["add", "sub", "mul", "div", "add", "mul", "rem"],
                    _ => &[
                        "add", "sub", "mul", "div", "rem", "and", "or", "xor", "shl", "shr", "add",
                        "sub", "mul",
                    ],
                };
                let op = self.rng.pick(ops);
                let a = self.expr(ty, depth - 1);
                let b = self.expr(ty, depth - 1);
                let t = self.value();
                self.emit(format!("{t} = {op} {a}, {b} : {}", ty.text()));
                t
            }
            6 => {
                let op = if ty == Ty::F32 || self.rng.chance(50) {
                    "neg"
                } else {
                    "not"
                };
                let a = self.expr(ty, depth - 1);
                let t = self.value();
                self.emit(format!("{t} = {op} {a} : {}", ty.text()));
                t
            }
            7 => {
                let from = self.rng.pick(&TYS);
                let a = self.expr(from, depth - 1);
                let t = self.value();
                let op =
                    if from != ty && self.rng.chance(20) && (from == Ty::F32) != (ty == Ty::F32) {
                        "bitcast"
                    } else {
                        "convert"
                    };
                if from == ty {
                    return a;
                }
                self.emit(format!("{t} = {op} {a} : {}", ty.text()));
                t
            }
            _ => {
                let c = self.cond(depth - 1);
                let a = self.expr(ty, depth - 1);
                let b = self.expr(ty, depth - 1);
                let t = self.value();
                self.emit(format!("{t} = select {c}, {a}, {b} : {}", ty.text()));
                t
            }
        }
    }

    fn cond(&mut self, depth: u32) -> String {
        if depth > 0 && self.rng.chance(20) {
            let a = self.cond(depth - 1);
            let b = self.cond(depth - 1);
            let op = self.rng.pick(&["and", "or", "xor"]);
            let t = self.value();
            self.emit(format!("{t} = {op} {a}, {b} : bool"));
            return t;
        }
        if depth > 0 && self.rng.chance(10) {
            let a = self.cond(depth - 1);
            let t = self.value();
            self.emit(format!("{t} = not {a} : bool"));
            return t;
        }
        let ty = self.rng.pick(&TYS);
        let a = self.expr(ty, depth.min(2));
        let b = self.expr(ty, depth.min(2));
        let op = self.rng.pick(&["eq", "ne", "lt", "le", "gt", "ge"]);
        let t = self.value();
        self.emit(format!("{t} = {op} {a}, {b} : bool"));
        t
    }

    fn store(&mut self, v: usize, value: &str) {
        let a = self.address(v);
        self.emit(format!("store {a}, {value}"));
    }

    fn stmts(&mut self, depth: u32, count: u64) {
        for _ in 0..count {
            if self.budget == 0 {
                return;
            }
            self.stmt(depth);
        }
    }

    fn stmt(&mut self, depth: u32) {
        let choice = self.rng.below(14);
        let v = self.rng.below(self.vars.len() as u64) as usize;
        let ty = self.vars[v].0;
        match choice {
            // if/else statement
            0 | 1 if depth > 0 => {
                let c = self.cond(2);
                let (t, tl) = self.new_block(String::new());
                let (e, el) = self.new_block(String::new());
                let (mj, ml) = self.new_block(String::new());
                self.emit(format!("if_else {c}, {tl}, {el}, merge {ml}"));
                self.cur = t;
                let n = self.rng.below(3) + 1;
                self.stmts(depth - 1, n);
                self.emit(format!("br {ml}"));
                self.cur = e;
                if self.rng.chance(70) {
                    let n = self.rng.below(3);
                    self.stmts(depth - 1, n);
                }
                self.emit(format!("br {ml}"));
                self.cur = mj;
            }
            // if expression: the value joins in a parameter of the merge block
            2 if depth > 0 => {
                let c = self.cond(2);
                let (t, tl) = self.new_block(String::new());
                let (e, el) = self.new_block(String::new());
                let j = self.value();
                let (mj, ml) = self.new_block(format!("({j}: {})", ty.text()));
                self.emit(format!("if_else {c}, {tl}, {el}, merge {ml}"));
                self.cur = t;
                let a = self.expr(ty, 3);
                self.emit(format!("br {ml}({a})"));
                self.cur = e;
                let b = self.expr(ty, 3);
                self.emit(format!("br {ml}({b})"));
                self.cur = mj;
                self.store(v, &j);
            }
            // counted loop
            3 | 4 if depth > 0 && self.loops.len() < 2 => {
                let bound = if self.rng.chance(50) && self.params.contains(&Ty::I32) {
                    let ps: Vec<usize> = (0..self.params.len())
                        .filter(|&p| self.params[p] == Ty::I32)
                        .collect();
                    let p = self.rng.pick(&ps);
                    let t = self.value();
                    self.emit(format!("{t} = and %p{p}, i32 7 : i32"));
                    t
                } else {
                    format!("i32 {}", self.rng.below(6))
                };
                let i = self.value();
                let (h, hl) = self.new_block(format!("({i}: i32)"));
                let (body, bl) = self.new_block(String::new());
                let (cont, cl) = self.new_block(String::new());
                let (exit, xl) = self.new_block(String::new());
                // Half the loops ask to be unrolled (taken when the bound is a constant and
                // the body has no break or continue).
                let hint = if self.rng.chance(50) {
                    " [unroll(0)]"
                } else {
                    ""
                };
                self.emit(format!("loop {hl}(i32 0), break {xl}, continue {cl}{hint}"));
                self.cur = h;
                let c = self.value();
                self.emit(format!("{c} = lt {i}, {bound} : bool"));
                self.emit(format!("cond_br {c}, {bl}, {xl}"));
                self.cur = cont;
                let n = self.value();
                self.emit(format!("{n} = add {i}, i32 1 : i32"));
                self.emit(format!("br {hl}({n})"));
                self.cur = body;
                self.loops.push((i, xl, cl.clone()));
                let count = self.rng.below(4) + 1;
                self.stmts(depth - 1, count);
                self.loops.pop();
                self.emit(format!("br {cl}"));
                self.cur = exit;
            }
            // switch with a shared target and a fall-through: values live across cases stay in
            // memory (switch targets take no parameters)
            6 if depth > 0 => {
                let e = self.expr(Ty::I32, 2);
                let sel = self.value();
                self.emit(format!("{sel} = and {e}, i32 3 : i32"));
                let (c0, l0) = self.new_block(String::new());
                let (c1, l1) = self.new_block(String::new());
                let (d, dl) = self.new_block(String::new());
                let (mj, ml) = self.new_block(String::new());
                let shared = if self.rng.chance(50) { &l0 } else { &l1 };
                self.emit(format!(
                    "switch {sel}, merge {ml}, default {dl}, [i32 0: {l0}, i32 1: {l1}, i32 2: {shared}]"
                ));
                self.cur = c1;
                let n = self.rng.below(2) + 1;
                self.stmts(depth - 1, n);
                // Case 1 falls through into case 0 half of the time.
                let fall = self.rng.chance(50);
                self.emit(format!("br {}", if fall { &l0 } else { &ml }));
                self.cur = c0;
                let n = self.rng.below(2) + 1;
                self.stmts(depth - 1, n);
                self.emit(format!("br {ml}"));
                self.cur = d;
                let n = self.rng.below(2);
                self.stmts(depth - 1, n);
                self.emit(format!("br {ml}"));
                self.cur = mj;
            }
            // early return from a helper, possibly from inside loops and selections
            7 if self.ret.is_some() => {
                let rt = self.ret.unwrap_or(Ty::I32);
                let c = self.cond(1);
                let (r, rl) = self.new_block(String::new());
                let (next, nl) = self.new_block(String::new());
                self.emit(format!("if_else {c}, {rl}, {nl}, merge {nl}"));
                self.cur = r;
                let v = self.expr(rt, 2);
                self.emit(format!("return {v}"));
                self.cur = next;
            }
            // break or continue under a condition
            5 if !self.loops.is_empty() => {
                let (_, xl, cl) = self.loops.last().cloned().unwrap_or_default();
                let c = self.cond(1);
                let (next, nl) = self.new_block(String::new());
                let target = if self.rng.chance(50) { xl } else { cl };
                self.emit(format!("cond_br {c}, {target}, {nl}"));
                self.cur = next;
            }
            _ => {
                let e = self.expr(ty, 3);
                self.store(v, &e);
            }
        }
    }
}

/// Generates the body of one function; returns its text and the generator's state.
fn gen_function(
    rng: Rng,
    name: &str,
    params: &[Ty],
    helpers: Vec<(String, Vec<Ty>, Ty)>,
    ret: Option<Ty>,
) -> (String, Rng, Vec<Ty>) {
    let mut rng = rng;
    let nvars = rng.below(4) as usize + 1;
    let mut vars: Vec<(Ty, Slot)> = (0..nvars).map(|k| (rng.pick(&TYS), Slot::Var(k))).collect();
    let with_array = rng.chance(50);
    if with_array {
        for k in 0..3 {
            vars.push((Ty::I32, Slot::Elem(k)));
        }
    }
    let mut g = Gen {
        rng,
        params: params.to_vec(),
        vars,
        blocks: vec![("entry".into(), String::new(), Vec::new())],
        cur: 0,
        next_value: 0,
        next_label: 0,
        loops: Vec::new(),
        budget: if ret.is_some() { 60 } else { 160 },
        helpers,
        ret,
    };
    for k in 0..nvars {
        let ty = g.vars[k].0;
        g.emit(format!("%v{k} = var : ptr<function, {}>", ty.text()));
    }
    if with_array {
        g.emit("%arr = var : ptr<function, array<i32, 3>>".into());
    }
    // Every variable starts initialized (a read of fresh memory is undefined on a GPU).
    for v in 0..g.vars.len() {
        let ty = g.vars[v].0;
        let init = g.simple_leaf(ty);
        g.store(v, &init);
    }
    let count = g.rng.below(6) + 2;
    g.stmts(3, count);
    let ret_ty = match ret {
        Some(rt) => {
            let v = g.expr(rt, 3);
            g.emit(format!("return {v}"));
            rt.text().to_string()
        }
        None => {
            let mut results = Vec::new();
            for v in 0..g.vars.len() {
                let ty = g.vars[v].0;
                let a = g.address(v);
                let t = g.value();
                g.emit(format!("{t} = load {a} : {}", ty.text()));
                results.push(t);
            }
            let out = g.value();
            g.emit(format!("{out} = construct {} : @Out", results.join(", ")));
            g.emit(format!("return {out}"));
            "@Out".to_string()
        }
    };
    let ps: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(k, t)| format!("%p{k}: {}", t.text()))
        .collect();
    let mut text = format!("func @{name}({}) -> {ret_ty} {{\n", ps.join(", "));
    for (label, bparams, lines) in &g.blocks {
        text.push_str(&format!("{label}{bparams}:\n"));
        for l in lines {
            text.push_str(&format!("  {l}\n"));
        }
    }
    text.push_str("}\n");
    let var_types = g.vars.iter().map(|v| v.0).collect();
    (text, g.rng, var_types)
}

/// Generates a module: up to two helpers (which may return early) and `@f`, which may call
/// them. Returns its text and `@f`'s parameter types.
pub fn generate(seed: u64) -> (String, Vec<Ty>) {
    let mut rng = Rng(seed);
    let mut helpers: Vec<(String, Vec<Ty>, Ty)> = Vec::new();
    let mut helper_text = String::new();
    for h in 0..rng.below(3) {
        let n = rng.below(3) as usize + 1;
        let params: Vec<Ty> = (0..n).map(|_| rng.pick(&TYS)).collect();
        let ret = rng.pick(&TYS);
        let name = format!("h{h}");
        let (text, r, _) = gen_function(rng, &name, &params, Vec::new(), Some(ret));
        rng = r;
        helper_text.push_str(&text);
        helper_text.push('\n');
        helpers.push((name, params, ret));
    }
    let nparams = rng.below(4) as usize + 1;
    let params: Vec<Ty> = (0..nparams).map(|_| rng.pick(&TYS)).collect();
    let (main_text, _, var_types) = gen_function(rng, "f", &params, helpers, None);
    let mut text = String::from("struct @Out {\n");
    for (k, ty) in var_types.iter().enumerate() {
        text.push_str(&format!("  r{k}: {}\n", ty.text()));
    }
    text.push_str("}\n\n");
    text.push_str(&helper_text);
    text.push_str(&main_text);
    (text, params)
}
