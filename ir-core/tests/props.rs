//! Property tests: random sequences of builder calls and replacements keep the verifier clean,
//! use lists consistent and hoistable values unique; the printer and parser round-trip on the
//! random modules.

use std::collections::HashSet;

use oneshader_ir::{
    AddressSpace, Block, Builder, InstId, Module, Op, Payload, parse::parse, print::print_module,
    verify::verify,
};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Action {
    Const(u8, i32),
    Arith(u8, u16, u16),
    Diamond(u16, u16),
    Loop(u8),
    ReplaceWithConst(u16),
    GenericCascade(u8, u8),
    RetargetVector(u8),
    LocalVar(u16),
    NewFunction,
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        1 => (any::<u8>(), any::<i32>()).prop_map(|(k, v)| Action::Const(k, v)),
        4 => (any::<u8>(), any::<u16>(), any::<u16>()).prop_map(|(o, a, b)| Action::Arith(o, a, b)),
        1 => (any::<u16>(), any::<u16>()).prop_map(|(a, b)| Action::Diamond(a, b)),
        1 => (1u8..5).prop_map(Action::Loop),
        1 => any::<u16>().prop_map(Action::ReplaceWithConst),
        1 => (1u8..6, any::<u8>()).prop_map(|(d, s)| Action::GenericCascade(d, s)),
        1 => any::<u8>().prop_map(Action::RetargetVector),
        1 => any::<u16>().prop_map(Action::LocalVar),
        1 => Just(Action::NewFunction),
    ]
}

/// Builds functions `fn(i32, f32) -> i32` block by block, tracking which values dominate the
/// insertion point.
struct Gen {
    m: Module,
    block: Option<Block>,
    avail: Vec<InstId>,
    insts: Vec<InstId>,
    nfuncs: usize,
}

impl Gen {
    fn new() -> Gen {
        Gen {
            m: Module::new(),
            block: None,
            avail: Vec::new(),
            insts: Vec::new(),
            nfuncs: 0,
        }
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
                let c = match k % 3 {
                    0 => self.m.const_i32(*v),
                    1 => self.m.const_f32(*v as f32 / 8.0),
                    _ => {
                        let f32t = self.m.f32_type();
                        let v2 = self.m.vector_type(f32t, 2);
                        let x = self.m.const_f32(*v as f32);
                        self.m.const_composite(v2, &[x, x])
                    }
                };
                // Constants are always available.
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
                let b = self.block.unwrap();
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
                let f = self.m.func_of(self.block.unwrap().id()).unwrap();
                let (then, els, merge) = (
                    self.m.add_block(f),
                    self.m.add_block(f),
                    self.m.add_block(f),
                );
                let p = self.m.add_block_param(merge, i32t);
                let cur = self.block.unwrap();
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
                let f = self.m.func_of(self.block.unwrap().id()).unwrap();
                let header = self.m.add_block(f);
                let i = self.m.add_block_param(header, i32t);
                let body = self.m.add_block(f);
                let cont = self.m.add_block(f);
                let exit = self.m.add_block(f);
                let zero = self.m.const_i32(0);
                let one = self.m.const_i32(1);
                let limit = self.m.const_i32(*n as i32);
                let cur = self.block.unwrap();
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
                let ty = self.m.ty(v).unwrap();
                let c = if self.m.op(ty) == Op::I32 {
                    self.m.const_i32(*k as i32)
                } else {
                    self.m.const_f32(*k as f32)
                };
                self.m.replace_uses_with(v, c);
                assert!(!self.m.has_uses(v));
                self.m.remove(v).expect("no uses left");
                self.avail.retain(|&x| x != v);
                self.insts.retain(|&x| x != v);
            }
            Action::GenericCascade(depth, seed) => {
                let scalars = [Op::I32, Op::U32, Op::F32, Op::F16];
                let target_op = scalars[*seed as usize % scalars.len()];
                let target = self.m.intern(target_op, None, &[], Payload::None);
                // Part of the chain may already exist at module level.
                let mut cur = target;
                for lvl in 0..(*seed as usize % (*depth as usize + 1)) {
                    cur = if lvl % 2 == 0 {
                        self.m.array_type(cur, 3)
                    } else {
                        self.m.ptr_type(AddressSpace::Private, cur)
                    };
                }
                let g = self.m.add_generic("G");
                let tt = self.m.type_type();
                let t = self.m.add_generic_param(g, tt);
                let mut chain = t;
                for lvl in 0..*depth as usize {
                    chain = if lvl % 2 == 0 {
                        self.m.array_type(chain, 3)
                    } else {
                        self.m.ptr_type(AddressSpace::Private, chain)
                    };
                }
                self.m.set_generic_result(g, chain);
                self.m.replace_uses_with(t, target);
                let hoisted = self.m.resolve(chain);
                assert_eq!(self.m.parent(hoisted), Some(self.m.root()));
            }
            Action::RetargetVector(s) => {
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
                let ptr = self.m.ty(g.id()).unwrap();
                assert_eq!(self.m.pointee(ptr), Some(want));
            }
            Action::LocalVar(k) => {
                self.ensure_function();
                let i32t = self.m.i32_type();
                let vals = self.of_type(i32t);
                let x = vals[*k as usize % vals.len()];
                let b = self.block.unwrap();
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

/// Independent of the verifier: no two hoistable values share (op, type, operands, payload).
fn assert_hoistables_unique(m: &Module) {
    let mut seen = HashSet::new();
    let mut stack = vec![m.root()];
    while let Some(x) = stack.pop() {
        stack.extend(m.children(x));
        let op = m.op(x);
        if !op.is_hoistable() {
            continue;
        }
        let key = (
            op,
            m.ty(x),
            m.operands_vec(x),
            m.literal_bits(x),
            m.literal_str(x).map(str::to_string),
        );
        assert!(seen.insert(key), "duplicate hoistable {x:?}");
    }
}

/// Independent of the verifier: every slot is in its value's use list exactly once.
fn assert_use_lists(m: &Module) {
    let mut stack = vec![m.root()];
    while let Some(x) = stack.pop() {
        stack.extend(m.children(x));
        for (i, v) in m.operands(x).enumerate() {
            let n = m
                .uses(v)
                .filter(|u| u.user == x && u.slot == oneshader_ir::Slot::Operand(i as u32))
                .count();
            assert_eq!(n, 1);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn random_building_and_replacing_keeps_invariants(actions in prop::collection::vec(action(), 1..40)) {
        let mut g = Gen::new();
        for a in &actions {
            g.apply(a);
        }
        g.finish_function();
        let m = g.m;
        let diags = verify(&m);
        prop_assert!(diags.is_empty(), "{:#?}\n{}", diags, print_module(&m));
        assert_hoistables_unique(&m);
        assert_use_lists(&m);
        // Round trip.
        let text = print_module(&m);
        let m2 = parse(&text).map_err(|e| TestCaseError::fail(format!("{e:?}\n{text}")))?;
        prop_assert_eq!(print_module(&m2), text.clone());
        prop_assert!(verify(&m2).is_empty());
        // A clone is an independent, equal module.
        let c = m.clone();
        prop_assert_eq!(print_module(&c), text);
    }
}
