//! A generator of random structured programs for the inliner's property tests: a callee
//! whose `return`s sit at random depths inside selections, counted loops (with `break` and
//! `continue`) and switches (with fall-through and switch breaks), called from a loop. Shared
//! by passes/tests/inline.rs (reference interpreter) and tests/passes_b_spirv.rs (SPIR-V
//! backend and spirv-val) through a `#[path]` module.

/// SplitMix64, for deterministic program shapes from a proptest seed.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Generates a structured callee `@callee(i32, i32) -> i32` whose `return`s sit at random
/// depths inside selections, counted loops (with `break`/`continue`) and switches (with
/// fall-through and switch breaks). Every local lives in a `var` (so no block parameters are
/// needed) and is initialized before anything reads it: an uninitialized read would make the
/// result undefined, and a pass may legitimately refine `undef` to any value. Besides scalars
/// there are a constant-indexed array and a struct (split by SROA), a run-time-indexed array
/// (kept in memory), a vector addressed per component at constant and run-time indices
/// (rewritten to whole-vector accesses, then promoted), and whole-aggregate copies.
pub struct ProgramGen {
    rng: Rng,
    body: String,
    decls: String,
    labels: usize,
    values: usize,
    vars: Vec<String>,
    /// Innermost first: (break, continue) of the enclosing loops, `None` for a switch.
    breakable: Vec<Option<(String, String)>>,
    /// Innermost first: the merges of the enclosing switches.
    switch_merges: Vec<String>,
    /// Loop counters (not assigned by random statements, so every loop ends).
    counters: Vec<String>,
}

impl ProgramGen {
    fn label(&mut self, what: &str) -> String {
        self.labels += 1;
        format!("{what}{}", self.labels)
    }

    fn value(&mut self) -> String {
        self.values += 1;
        format!("%v{}", self.values)
    }

    fn new_var(&mut self) -> String {
        let v = format!("%x{}", self.vars.len() + self.counters.len());
        self.decls += &format!("  {v} = var : ptr<function, i32>\n  store {v}, i32 0\n");
        self.vars.push(v.clone());
        v
    }

    /// A loop counter: read by expressions, written only by its loop.
    fn new_counter(&mut self) -> String {
        let v = format!("%x{}", self.vars.len() + self.counters.len());
        self.decls += &format!("  {v} = var : ptr<function, i32>\n  store {v}, i32 0\n");
        self.counters.push(v.clone());
        v
    }

    /// A pointer to an `i32` inside the aggregates: an element of `%arr` (constant index, so
    /// SROA splits it), a field of `%st`, an element of `%dyn` at a run-time index in bounds
    /// (which keeps `%dyn` in memory), or a component of `%vec` (constant or run-time index).
    fn aggregate_element(&mut self) -> String {
        let p = self.value();
        match self.rng.below(5) {
            3 => {
                let k = self.rng.below(4);
                self.body += &format!("  {p} = element_addr %vec, i32 {k} : ptr<function, i32>\n");
            }
            4 => {
                let x = self.operand_scalar();
                let i = self.value();
                self.body += &format!("  {i} = and {x}, i32 3 : i32\n");
                self.body += &format!("  {p} = element_addr %vec, {i} : ptr<function, i32>\n");
            }
            0 => {
                let k = self.rng.below(3);
                self.body += &format!("  {p} = element_addr %arr, i32 {k} : ptr<function, i32>\n");
            }
            1 => {
                let k = self.rng.below(2);
                self.body += &format!("  {p} = field_addr %st, {k} : ptr<function, i32>\n");
            }
            _ => {
                let x = self.operand_scalar();
                let i = self.value();
                self.body += &format!("  {i} = and {x}, i32 1 : i32\n");
                self.body += &format!("  {p} = element_addr %dyn, {i} : ptr<function, i32>\n");
            }
        }
        p
    }

    /// An `i32` operand: a parameter, a constant, a loaded variable or aggregate element.
    fn operand(&mut self) -> String {
        if self.rng.below(5) == 0 {
            let p = self.aggregate_element();
            let r = self.value();
            self.body += &format!("  {r} = load {p} : i32\n");
            return r;
        }
        self.operand_scalar()
    }

    /// An `i32` operand that is not read from an aggregate.
    fn operand_scalar(&mut self) -> String {
        match self.rng.below(4) {
            0 => "%a".to_string(),
            1 => "%b".to_string(),
            2 => format!("i32 {}", self.rng.below(9) as i32 - 4),
            _ => {
                let n = (self.vars.len() + self.counters.len()) as u64;
                let i = self.rng.below(n) as usize;
                let v = if i < self.vars.len() {
                    self.vars[i].clone()
                } else {
                    self.counters[i - self.vars.len()].clone()
                };
                let r = self.value();
                self.body += &format!("  {r} = load {v} : i32\n");
                r
            }
        }
    }

    fn expr(&mut self) -> String {
        let x = self.operand();
        let y = self.operand();
        let op = ["add", "sub", "mul", "xor"][self.rng.below(4) as usize];
        let r = self.value();
        self.body += &format!("  {r} = {op} {x}, {y} : i32\n");
        r
    }

    fn start_block(&mut self, label: &str) {
        self.body += &format!("{label}:\n");
    }

    /// Emits statements into the current block; returns true when the block was terminated
    /// (by `return`, `break` or `continue`), which ends the list.
    fn stmts(&mut self, depth: u32) -> bool {
        let n = 1 + self.rng.below(3);
        for _ in 0..n {
            if self.stmt(depth) {
                return true;
            }
        }
        false
    }

    fn stmt(&mut self, depth: u32) -> bool {
        let choice = if depth == 0 {
            self.rng.below(3)
        } else {
            self.rng.below(8)
        };
        match choice {
            0 | 1 => {
                let e = self.expr();
                match self.rng.below(6) {
                    0 => {
                        let p = self.aggregate_element();
                        self.body += &format!("  store {p}, {e}\n");
                    }
                    1 => {
                        // Whole-aggregate copies: loads and stores SROA splits.
                        let w = self.value();
                        let t = self.value();
                        self.body += &format!(
                            "  {w} = load %arr : array<i32, 3>\n  store %arr2, {w}\n  \
                             {t} = load %st : @Pair\n  store %st2, {t}\n"
                        );
                        let v = self.vars[self.rng.below(self.vars.len() as u64) as usize].clone();
                        self.body += &format!("  store {v}, {e}\n");
                    }
                    _ => {
                        let v = self.vars[self.rng.below(self.vars.len() as u64) as usize].clone();
                        self.body += &format!("  store {v}, {e}\n");
                    }
                }
                false
            }
            2 => {
                // return, break or continue (when there is an enclosing loop or switch).
                match (self.rng.below(3), self.breakable.first().cloned()) {
                    (1, Some(Some((brk, _)))) => {
                        self.body += &format!("  br {brk}\n");
                        true
                    }
                    (1, Some(None)) => {
                        // A switch break.
                        let m = self.switch_merges[0].clone();
                        self.body += &format!("  br {m}\n");
                        true
                    }
                    (2, Some(Some((_, cont)))) => {
                        self.body += &format!("  br {cont}\n");
                        true
                    }
                    _ => {
                        let e = self.expr();
                        self.body += &format!("  return {e}\n");
                        true
                    }
                }
            }
            3 | 4 => {
                // if / else
                let x = self.operand();
                let y = self.operand();
                let c = self.value();
                self.body += &format!("  {c} = lt {x}, {y} : bool\n");
                let (t, e, mg) = (self.label("then"), self.label("else"), self.label("merge"));
                self.body += &format!("  if_else {c}, {t}, {e}, merge {mg}\n");
                self.start_block(&t);
                let tt = self.stmts(depth - 1);
                if !tt {
                    self.body += &format!("  br {mg}\n");
                }
                self.start_block(&e);
                let et = self.stmts(depth - 1);
                if !et {
                    self.body += &format!("  br {mg}\n");
                }
                self.start_block(&mg);
                if tt && et {
                    self.body += "  unreachable\n";
                    return true;
                }
                false
            }
            5 | 6 => {
                // for (i = 0; i < k; i++) { ... }
                let i = self.new_counter();
                let k = 1 + self.rng.below(3);
                let (h, body, cont, brk) = (
                    self.label("head"),
                    self.label("body"),
                    self.label("cont"),
                    self.label("exit"),
                );
                self.body +=
                    &format!("  store {i}, i32 0\n  loop {h}, break {brk}, continue {cont}\n");
                self.start_block(&h);
                let iv = self.value();
                let c = self.value();
                self.body += &format!(
                    "  {iv} = load {i} : i32\n  {c} = lt {iv}, i32 {k} : bool\n  cond_br {c}, {body}, {brk}\n"
                );
                self.start_block(&body);
                self.breakable.insert(0, Some((brk.clone(), cont.clone())));
                let bt = self.stmts(depth - 1);
                self.breakable.remove(0);
                if !bt {
                    self.body += &format!("  br {cont}\n");
                }
                self.start_block(&cont);
                let a = self.value();
                let b = self.value();
                self.body += &format!(
                    "  {a} = load {i} : i32\n  {b} = add {a}, i32 1 : i32\n  store {i}, {b}\n  br {h}\n"
                );
                self.start_block(&brk);
                false
            }
            _ => {
                // switch (x & 3) { case 0: ...; (fall through or break) case 1: ...; default: ... }
                let x = self.operand();
                let s = self.value();
                self.body += &format!("  {s} = and {x}, i32 3 : i32\n");
                let (c0, c1, d, mg) = (
                    self.label("case"),
                    self.label("case"),
                    self.label("default"),
                    self.label("swmerge"),
                );
                self.body +=
                    &format!("  switch {s}, merge {mg}, default {d}, [i32 0: {c0}, i32 1: {c1}]\n");
                self.breakable.insert(0, None);
                self.switch_merges.insert(0, mg.clone());
                for (blk, next) in [(&c0, Some(&c1)), (&c1, None), (&d, None)] {
                    self.start_block(blk);
                    let t = self.stmts(depth - 1);
                    if !t {
                        match next {
                            Some(n) if self.rng.below(2) == 0 => {
                                self.body += &format!("  br {n}\n");
                            }
                            _ => self.body += &format!("  br {mg}\n"),
                        }
                    }
                }
                self.breakable.remove(0);
                self.switch_merges.remove(0);
                // The merge may be unreachable (every case returned); what follows is then
                // dead but well formed.
                self.start_block(&mg);
                false
            }
        }
    }

    /// The module text for `seed`: `@callee` and a `@main(%a: i32, %b: i32) -> i32` that
    /// calls it before and inside a loop.
    pub fn program(seed: u64) -> String {
        let mut g = ProgramGen {
            rng: Rng(seed),
            body: String::new(),
            decls: String::new(),
            labels: 0,
            values: 0,
            vars: Vec::new(),
            breakable: Vec::new(),
            switch_merges: Vec::new(),
            counters: Vec::new(),
        };
        g.new_var();
        g.new_var();
        g.decls += "  %arr = var : ptr<function, array<i32, 3>>\n  \
                    store %arr, array<i32, 3> {i32 1, i32 2, i32 3}\n  \
                    %arr2 = var : ptr<function, array<i32, 3>>\n  \
                    store %arr2, array<i32, 3> zero\n  \
                    %st = var : ptr<function, @Pair>\n  store %st, @Pair zero\n  \
                    %st2 = var : ptr<function, @Pair>\n  store %st2, @Pair zero\n  \
                    %dyn = var : ptr<function, array<i32, 2>>\n  \
                    store %dyn, array<i32, 2> zero\n  \
                    %vec = var : ptr<function, vec<i32, 4>>\n  \
                    store %vec, vec<i32, 4> {i32 4, i32 3, i32 2, i32 1}\n";
        let terminated = g.stmts(3);
        if !terminated {
            let e = g.expr();
            let c = g.value();
            let d = g.value();
            g.body +=
                &format!("  {c} = load %arr2 : array<i32, 3>\n  {d} = extract {c}, 1 : i32\n");
            let r = g.value();
            g.body += &format!("  {r} = add {e}, {d} : i32\n  return {r}\n");
        }
        format!(
            "struct @Pair {{\n  a: i32\n  b: i32\n}}\n\
             func @callee(%a: i32, %b: i32) -> i32 {{\nentry:\n{}{}}}\n{}",
            g.decls,
            g.body,
            r"
func @main(%a: i32, %b: i32) -> i32 {
entry:
  %first = call @callee(%a, %b) : i32
  loop head(i32 0, %first), break exit, continue cont
head(%k: i32, %acc: i32):
  %t = lt %k, i32 3 : bool
  cond_br %t, body, exit
body:
  %ak = add %a, %k : i32
  %r = call @callee(%ak, %b) : i32
  %m = mul %acc, i32 31 : i32
  %acc2 = add %m, %r : i32
  br cont
cont:
  %k2 = add %k, i32 1 : i32
  br head(%k2, %acc2)
exit:
  return %acc
}"
        )
    }
}
