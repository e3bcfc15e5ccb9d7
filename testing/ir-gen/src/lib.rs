//! Test support: a generator of random valid IR modules for property tests. Random builder
//! calls and replacements (constants, arithmetic, diamonds with join parameters, counted loops,
//! local variables, replacements that merge values, generic-parameter cascades that hoist types
//! out of generics, vector retargets through `replace_operand`, names, structs, globals with
//! decorations and initializers, entry points, calls of a generic through `specialize`), so
//! tree order and slot keys get shuffled. The modules verify; the tests that use this crate
//! check invariants, round trips and serialization on them.

use oneshader_ir::{AddressSpace, Block, Builder, InstId, Module, Op, Payload, Stage};
use proptest::prelude::*;

/// One step of the random module builder.
#[derive(Clone, Debug)]
pub enum Action {
    /// A constant (the kind picked by the first number, the value from the second; floats
    /// include any bit pattern, NaNs too).
    Const(u8, i64),
    /// An `i32` or `f32` arithmetic instruction on two available values (picked by index).
    Arith(u8, u16, u16),
    /// An `if_else` diamond whose merge block takes a parameter joining the two values.
    Diamond(u16, u16),
    /// A counted loop of 1 to 4 iterations, its counter a block parameter of the header.
    Loop(u8),
    /// `replace_uses_with` of an earlier instruction by a constant.
    ReplaceWithConst(u16),
    /// A chain of nested generic parameters collapsed onto a scalar type (a cascade of
    /// hoists and merges with existing types): depth, then which scalar.
    GenericCascade(u8, u8),
    /// A name hint on an instruction (any text, quotes and spaces included).
    Name(u16, String),
    /// A struct type, sometimes nesting the previous one.
    Struct(u8),
    /// A storage-buffer or private global (a binding, a zero initializer or an export,
    /// depending on the numbers).
    Global(u8, u8),
    /// A compute entry point `main<k>`.
    Entry(u8),
    /// A local variable stored and loaded.
    LocalVar(u16),
    /// A call of the generic `@square<T>` through `specialize`.
    GenericCall(u16),
    /// `replace_operand` on a vector type, merging it into an existing one.
    RetargetVector(u8),
    /// Finishes the current function and starts another.
    NewFunction,
}

/// The strategy proptest draws [`Action`]s from (weighted towards constants and arithmetic).
pub fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        2 => (any::<u8>(), any::<i64>()).prop_map(|(k, v)| Action::Const(k, v)),
        4 => (any::<u8>(), any::<u16>(), any::<u16>()).prop_map(|(o, a, b)| Action::Arith(o, a, b)),
        1 => (any::<u16>(), any::<u16>()).prop_map(|(a, b)| Action::Diamond(a, b)),
        1 => (1u8..5).prop_map(Action::Loop),
        1 => any::<u16>().prop_map(Action::ReplaceWithConst),
        1 => (1u8..5, any::<u8>()).prop_map(|(d, s)| Action::GenericCascade(d, s)),
        2 => (any::<u16>(), "[a-z_][a-z0-9_. \"]{0,8}").prop_map(|(k, s)| Action::Name(k, s)),
        1 => any::<u8>().prop_map(Action::Struct),
        1 => (any::<u8>(), any::<u8>()).prop_map(|(a, b)| Action::Global(a, b)),
        1 => any::<u8>().prop_map(Action::Entry),
        1 => any::<u16>().prop_map(Action::LocalVar),
        1 => any::<u16>().prop_map(Action::GenericCall),
        1 => any::<u8>().prop_map(Action::RetargetVector),
        1 => Just(Action::NewFunction),
    ]
}

/// Builds functions `fn(i32, f32) -> i32` block by block, tracking which values dominate the
/// insertion point.
pub struct Gen {
    /// The module being built.
    pub m: Module,
    block: Option<Block>,
    avail: Vec<InstId>,
    insts: Vec<InstId>,
    nfuncs: usize,
    structs: Vec<InstId>,
    square: Option<InstId>,
}

impl Default for Gen {
    fn default() -> Self {
        Gen {
            m: Module::new(),
            block: None,
            avail: Vec::new(),
            insts: Vec::new(),
            nfuncs: 0,
            structs: Vec::new(),
            square: None,
        }
    }
}

impl Gen {
    /// Applies every action in order and returns the module (it verifies).
    pub fn build(actions: &[Action]) -> Module {
        let mut g = Gen::default();
        for a in actions {
            g.apply(a);
        }
        g.finish_function();
        g.m
    }

    fn finish_function(&mut self) {
        let Some(b) = self.block.take() else { return };
        let i32t = self.m.i32_type();
        let v = self
            .avail
            .iter()
            .rev()
            .copied()
            .find(|&v| self.m.ty(v) == Some(i32t))
            .unwrap_or_else(|| self.m.const_i32(0));
        Builder::at_end(&mut self.m, b).ret(Some(v));
        self.avail.clear();
        self.insts.clear();
    }

    fn ensure_function(&mut self) {
        if self.block.is_some() {
            return;
        }
        let i32t = self.m.i32_type();
        let f32t = self.m.f32_type();
        let name = format!("f{}", self.nfuncs);
        self.nfuncs += 1;
        let f = self.m.add_func(&name, i32t, &[i32t, f32t]);
        self.avail = f.params(&self.m).iter().map(|p| p.id()).collect();
        self.block = f.entry(&self.m);
    }

    fn of_type(&self, ty: InstId) -> Vec<InstId> {
        self.avail
            .iter()
            .copied()
            .filter(|&v| self.m.ty(v) == Some(ty))
            .collect()
    }

    fn apply(&mut self, a: &Action) {
        match a {
            Action::NewFunction => {
                self.finish_function();
                self.ensure_function();
            }
            Action::Const(k, v) => {
                let c = match k % 7 {
                    0 => self.m.const_i32(*v as i32),
                    1 => self.m.const_f32(*v as f32 / 8.0),
                    2 => {
                        // Any bit pattern, NaNs included.
                        let f32t = self.m.f32_type();
                        self.m.const_float_bits(f32t, (*v as u64) & 0xffff_ffff)
                    }
                    3 => {
                        let u64t = self.m.int_type(64, false);
                        self.m.const_int(u64t, *v as u64)
                    }
                    4 => self.m.const_bool(v % 2 == 0),
                    5 => {
                        let d = self.m.const_i32(*v as i32);
                        self.m.spec_const((*k as u32) % 8, d)
                    }
                    _ => {
                        let f32t = self.m.f32_type();
                        let v2 = self.m.vector_type(f32t, 2);
                        let x = self.m.const_f32(*v as f32);
                        self.m.const_composite(v2, &[x, x])
                    }
                };
                self.ensure_function();
                self.avail.push(c);
            }
            Action::Arith(o, a, b) => {
                self.ensure_function();
                let ty = if o % 2 == 0 {
                    self.m.i32_type()
                } else {
                    self.m.f32_type()
                };
                let vals = self.of_type(ty);
                if vals.is_empty() {
                    return;
                }
                let x = vals[*a as usize % vals.len()];
                let y = vals[*b as usize % vals.len()];
                let op = [Op::Add, Op::Sub, Op::Mul][(*o as usize / 2) % 3];
                let b = self.block.expect("ensured");
                let r = Builder::at_end(&mut self.m, b).binary(op, x, y);
                self.avail.push(r);
                self.insts.push(r);
            }
            Action::Diamond(a, b) => {
                self.ensure_function();
                let i32t = self.m.i32_type();
                let vals = self.of_type(i32t);
                let x = vals[*a as usize % vals.len()];
                let y = vals[*b as usize % vals.len()];
                let f = self
                    .m
                    .func_of(self.block.expect("ensured").id())
                    .expect("in a func");
                let (then, els, merge) = (
                    self.m.add_block(f),
                    self.m.add_block(f),
                    self.m.add_block(f),
                );
                let p = self.m.add_block_param(merge, i32t);
                let cur = self.block.expect("ensured");
                let mut bl = Builder::at_end(&mut self.m, cur);
                let c = bl.cmp(Op::Lt, x, y);
                bl.if_else(c, then, els, merge);
                bl.position_at_end(then);
                let t = bl.sub(x, y);
                bl.br(merge, &[t]);
                bl.position_at_end(els);
                let e = bl.sub(y, x);
                bl.br(merge, &[e]);
                self.avail.push(c);
                self.avail.push(p);
                self.insts.push(c);
                self.block = Some(merge);
            }
            Action::Loop(n) => {
                self.ensure_function();
                let i32t = self.m.i32_type();
                let f = self
                    .m
                    .func_of(self.block.expect("ensured").id())
                    .expect("in a func");
                let header = self.m.add_block(f);
                let i = self.m.add_block_param(header, i32t);
                let body = self.m.add_block(f);
                let cont = self.m.add_block(f);
                let exit = self.m.add_block(f);
                let zero = self.m.const_i32(0);
                let one = self.m.const_i32(1);
                let limit = self.m.const_i32(*n as i32);
                let cur = self.block.expect("ensured");
                let mut bl = Builder::at_end(&mut self.m, cur);
                bl.loop_(header, exit, cont, &[zero]);
                bl.position_at_end(header);
                let c = bl.cmp(Op::Lt, i, limit);
                bl.cond_br(c, body, exit);
                bl.position_at_end(body);
                bl.br(cont, &[]);
                bl.position_at_end(cont);
                let next = bl.add(i, one);
                bl.br(header, &[next]);
                self.avail.push(i);
                self.block = Some(exit);
            }
            Action::ReplaceWithConst(k) => {
                let candidates: Vec<InstId> = self
                    .insts
                    .iter()
                    .copied()
                    .filter(|&v| self.m.contains(v) && self.m.op(v) != Op::Lt)
                    .collect();
                if candidates.is_empty() {
                    return;
                }
                let v = candidates[*k as usize % candidates.len()];
                let ty = self.m.ty(v).expect("typed");
                let c = if self.m.op(ty) == Op::I32 {
                    self.m.const_i32(*k as i32)
                } else {
                    self.m.const_f32(*k as f32)
                };
                self.m.replace_uses_with(v, c);
                self.m.remove(v).expect("no uses left");
                self.avail.retain(|&x| x != v);
                self.insts.retain(|&x| x != v);
            }
            Action::GenericCascade(depth, seed) => {
                let scalars = [Op::I32, Op::U32, Op::F32, Op::F16];
                let target_op = scalars[*seed as usize % scalars.len()];
                let target = self.m.intern(target_op, None, &[], Payload::None);
                // Part of the chain may already exist at module level, so the collapse both
                // merges into existing types and hoists new ones.
                let mut existing = target;
                for lvl in 0..(*seed as usize / 2 % (*depth as usize + 1)) {
                    // Arrays of two lengths, alternating (an array of pointers, the classic
                    // example, is not a legal IR type: logical addressing stores no pointer).
                    existing = self.m.array_type(existing, 3 - (lvl % 2) as u32);
                }
                let g = self.m.add_generic("G");
                let tt = self.m.type_type();
                let t = self.m.add_generic_param(g, tt);
                let mut chain = t;
                for lvl in 0..*depth as usize {
                    chain = self.m.array_type(chain, 3 - (lvl % 2) as u32);
                }
                self.m.set_generic_result(g, chain);
                if seed % 2 == 0 {
                    // Collapse the generic: its types merge into or hoist to module level.
                    self.m.replace_uses_with(t, target);
                    let hoisted = self.m.resolve(chain);
                    assert_eq!(
                        self.m.parent(hoisted),
                        Some(self.m.root()),
                        "the cascade hoists the whole chain to module level"
                    );
                }
            }
            Action::RetargetVector(s) => {
                // `replace_operand` on a hoistable: vec<A, 3> becomes vec<B, 3>, merging into it
                // when it exists, and the global's pointer type follows.
                let scalars = [Op::I32, Op::U32, Op::F32];
                let from = self
                    .m
                    .intern(scalars[*s as usize % 3], None, &[], Payload::None);
                let to = self
                    .m
                    .intern(scalars[(*s as usize / 3) % 3], None, &[], Payload::None);
                let v = self.m.vector_type(from, 3);
                let g = self.m.add_global("vg", AddressSpace::Private, v, None);
                let now = self.m.replace_operand(v, 0, to);
                let want = self.m.vector_type(to, 3);
                assert_eq!(now, want);
                let ptr = self.m.ty(g.id()).expect("a global has a pointer type");
                assert_eq!(self.m.pointee(ptr), Some(want));
            }
            Action::Name(k, s) => {
                let pool: Vec<InstId> = self
                    .insts
                    .iter()
                    .chain(&self.avail)
                    .chain(&self.structs)
                    .copied()
                    .filter(|&v| self.m.contains(v))
                    .collect();
                if pool.is_empty() {
                    return;
                }
                let v = pool[*k as usize % pool.len()];
                // Module-level named constants print as `let`; function values as hints.
                self.m.set_name(v, Some(s));
            }
            Action::Struct(k) => {
                let f32t = self.m.f32_type();
                let v3 = self.m.vector_type(f32t, 3);
                let u32t = self.m.u32_type();
                let mut fields: Vec<(&str, InstId)> = vec![("position", v3), ("count", u32t)];
                if let Some(&prev) = self.structs.last()
                    && k % 2 == 0
                {
                    fields.push(("inner", prev));
                }
                let s = self.m.add_struct(&format!("S{k}"), &fields);
                if k % 3 == 0 {
                    let first = self.m.struct_fields(s.id())[0];
                    self.m.decorate_imm(first, Op::Offset, &[0]);
                }
                self.structs.push(s.id());
            }
            Action::Global(k, init) => {
                let pointee = match self.structs.last() {
                    Some(&s) if k % 2 == 0 => s,
                    _ => self.m.f32_type(),
                };
                let space = if k % 3 == 0 {
                    AddressSpace::StorageBuffer
                } else {
                    AddressSpace::Private
                };
                let initv =
                    (space == AddressSpace::Private && init % 2 == 0).then(|| self.m.zero(pointee));
                let g = self.m.add_global(&format!("g{k}"), space, pointee, initv);
                if space == AddressSpace::StorageBuffer {
                    self.m.decorate_imm(g.id(), Op::Binding, &[0, *init as u32]);
                }
                if init % 3 == 0 {
                    let s = self.m.const_string(&format!("g{k}_{init}"));
                    self.m.decorate(g.id(), Op::Export, &[s]);
                }
            }
            Action::Entry(k) => {
                let void = self.m.void_type();
                let f = self.m.add_func(&format!("main{k}"), void, &[]);
                let stage = self.m.imm(Stage::Compute.to_u32());
                let name = self.m.const_string(&format!("main{k}"));
                self.m.decorate(f.id(), Op::EntryPoint, &[stage, name]);
                self.m.decorate_imm(f.id(), Op::NumThreads, &[8, 1, 1]);
                let b = f.entry(&self.m).expect("has a body");
                Builder::at_end(&mut self.m, b).ret(None);
            }
            Action::GenericCall(k) => {
                // `generic @square<T> { func (x: T) -> T { mul x, x } }`, made once, called
                // through `specialize(@square, i32)`.
                let g = match self.square {
                    Some(g) => g,
                    None => {
                        let g = self.m.add_generic("square");
                        let tt = self.m.type_type();
                        let t = self.m.add_generic_param(g, tt);
                        let body = self.m.generic_body(g);
                        let fty = self.m.fn_type(t, &[t]);
                        let f = self.m.add_func_in(body.id(), "square_impl", fty);
                        let entry = self.m.add_block(f);
                        let x = self.m.add_block_param(entry, t);
                        let mut bl = Builder::at_end(&mut self.m, entry);
                        let sq = bl.mul(x, x);
                        bl.ret(Some(sq));
                        self.m.set_generic_result(g, f.id());
                        self.square = Some(g.id());
                        g.id()
                    }
                };
                self.ensure_function();
                let i32t = self.m.i32_type();
                let vals = self.of_type(i32t);
                let x = vals[*k as usize % vals.len()];
                let fty = self.m.fn_type(i32t, &[i32t]);
                let callee = self.m.specialize(g, &[i32t], fty);
                let b = self.block.expect("ensured");
                let r = Builder::at_end(&mut self.m, b).call(callee, &[x]);
                self.avail.push(r);
                self.insts.push(r);
            }
            Action::LocalVar(k) => {
                self.ensure_function();
                let i32t = self.m.i32_type();
                let vals = self.of_type(i32t);
                let x = vals[*k as usize % vals.len()];
                let b = self.block.expect("ensured");
                let mut bl = Builder::at_end(&mut self.m, b);
                let p = bl.var(i32t);
                bl.store(p, x);
                let l = bl.load(p);
                self.avail.push(l);
                self.insts.push(l);
            }
        }
    }
}
