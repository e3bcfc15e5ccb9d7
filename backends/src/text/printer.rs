//! What the function printers of the text backends (GLSL, WGSL, MSL) share beyond the
//! statement walk ([`super::walker`]): naming locals against the module scope, the role of a
//! value, placing an error at an instruction, and the types of values. A printer implements
//! the three accessors of [`FnText`] and gets the rest.

use oneshader_ir::constructs::ConstructKind;
use oneshader_ir::{Block, Func, InstId, Module, Op, ScalarKind};
use rustc_hash::FxHashSet;

use super::error::TextError;
use super::expr::{E, WordSpelling, bin, call, word_reads};
use super::names::Namer;
use super::roles::{self, Role};
use super::table::IdMap;
use super::walker::{CSyntax, WalkState};

/// A text backend's function printer.
pub(crate) trait FnText<'m>: CSyntax<'m, Error = TextError> {
    /// The namer of the function's locals and the module scope they are chosen against.
    fn namers(&mut self) -> (&mut Namer, &Namer);
    /// The role of each value of the function ([`super::roles::analyze`]).
    fn roles(&self) -> &super::table::IdMap<Role>;
    /// The counter of the function's unnamed values (`_N`).
    fn temps(&mut self) -> &mut u32;
    /// The names of the function's parameters, variables and named values.
    fn local_names(&mut self) -> &mut IdMap<String>;
    /// The named values declared at the top of the function.
    fn hoisted(&self) -> &FxHashSet<InstId>;
    /// Prints instruction `i` as a statement (its result unused, or it has effects).
    fn statement(&mut self, i: InstId) -> Result<(), TextError>;
    /// Prints instruction `i` as the definition of its local.
    fn named(&mut self, i: InstId) -> Result<(), TextError>;

    /// The source lines marked so far, when the output marks them (`-Zi`, `-fspv-debug=`).
    fn line_marks(&mut self) -> Option<&mut super::lines::LineMarks<'m>>;

    /// Before the line of statement or local `i`: a `// file:line` comment when its HLSL line
    /// is not the one marked last (WGSL and MSL; GLSL writes `#line` directives instead).
    fn before_line(&mut self, i: InstId) {
        // Most outputs mark no lines: no position looked up.
        if self.line_marks().is_none() {
            return;
        }
        let m = self.module();
        let Some(span) = m.position(i) else {
            return;
        };
        if let Some((file, line)) = self.line_marks().and_then(|l| l.next(span)) {
            self.line_fmt(format_args!("// {file}:{line}"));
        }
    }

    /// Prints the instructions of `b` (not its terminator) by their roles: statements and
    /// locals here, inline values at their uses, variables at the top of the function.
    fn print_block(&mut self, b: Block) -> Result<(), TextError> {
        let m = self.module();
        for c in m.children(b.id()) {
            let op = m.op(c);
            if op == Op::Param || op.is_decoration() || op.is_terminator() {
                continue;
            }
            match self.role(c) {
                Role::Var | Role::Address | Role::Inline | Role::Dead => {}
                Role::Statement => {
                    self.before_line(c);
                    self.statement(c).map_err(|e| self.located(c, e))?
                }
                Role::Named => {
                    self.before_line(c);
                    self.named(c).map_err(|e| self.located(c, e))?
                }
            }
        }
        Ok(())
    }

    /// The function's signature: its return type, its entry block, and each parameter (its
    /// id, its local name, now taken, and its type).
    #[allow(clippy::type_complexity)]
    fn signature(&mut self) -> Result<(InstId, Block, Vec<(InstId, String, InstId)>), TextError> {
        let m = self.module();
        let f = self.func();
        let fty = m
            .ty(f.id())
            .ok_or_else(|| self.malformed("a function has no type"))?;
        let ret = m
            .fn_return(fty)
            .ok_or_else(|| self.malformed("a function's type is not a `fn` type"))?;
        let entry = f
            .entry(m)
            .ok_or_else(|| self.malformed("a function without a body"))?;
        let mut params = Vec::new();
        for p in entry.params(m) {
            let t = m
                .ty(p.id())
                .ok_or_else(|| self.malformed("an untyped parameter"))?;
            let pname = self.local_name(m.name(p.id()), "arg");
            self.local_names().insert(p.id(), pname.clone());
            params.push((p.id(), pname, t));
        }
        Ok((ret, entry, params))
    }

    /// Names the function's variables and named values in block order (from their hints, or
    /// `_N`), then the break flags of its loops; in a language that falls through
    /// ([`CSyntax::FALLS_THROUGH`]), records the case targets of each switch.
    fn name_locals(&mut self) {
        let m = self.module();
        let mut named = Vec::new();
        for b in self.func().blocks(m) {
            for c in m.children(b.id()) {
                if let Some(Role::Var | Role::Named) = self.roles().get(&c) {
                    let n = self.value_name(c);
                    named.push((c, n));
                }
            }
        }
        // The highest and lowest slots first: the table's window is sized once.
        let ends = [
            named
                .iter()
                .enumerate()
                .max_by_key(|(_, (c, _))| c.slot_number()),
            named
                .iter()
                .enumerate()
                .min_by_key(|(_, (c, _))| c.slot_number()),
        ]
        .map(|e| e.map(|(k, _)| k));
        for k in ends.into_iter().flatten() {
            let (c, n) = std::mem::take(&mut named[k]);
            if !n.is_empty() {
                self.local_names().insert(c, n);
            }
        }
        for (c, n) in named {
            if !n.is_empty() {
                self.local_names().insert(c, n);
            }
        }
        let flagged: Vec<usize> = self.walk().loop_flags.keys().copied().collect();
        for k in flagged {
            let n = self.local_name(Some("break_flag"), "flag");
            self.walk_mut().loop_flags.insert(k, n);
        }
        if !Self::FALLS_THROUGH {
            return;
        }
        let mut all = Vec::new();
        for (k, c) in self.walk().cons.list().iter().enumerate() {
            if c.kind == ConstructKind::Switch {
                let t = c.term;
                let mut targets = vec![Block::cast(m, m.operand(t, 2))];
                let mut i = 3;
                while i + 1 < m.num_operands(t) {
                    targets.push(Block::cast(m, m.operand(t, i + 1)));
                    i += 2;
                }
                all.push((k, targets));
            }
        }
        self.walk_mut().case_targets.extend(all);
    }

    /// What the top of the function declares: each variable (its name and pointee type) in
    /// block order, then each hoisted value (its name and type) by name.
    #[allow(clippy::type_complexity)]
    fn top_decls(&mut self) -> Result<(Vec<(String, InstId)>, Vec<(String, InstId)>), TextError> {
        let m = self.module();
        let mut vars = Vec::new();
        for b in self.func().blocks(m) {
            for c in m.children(b.id()) {
                if self.roles().get(&c) == Some(&Role::Var) {
                    let t = m
                        .ty(c)
                        .and_then(|t| m.pointee(t))
                        .ok_or_else(|| self.malformed("a var without a pointee type"))?;
                    vars.push((self.local_names()[&c].clone(), t));
                }
            }
        }
        let mut hoisted = Vec::new();
        for h in self.hoisted().iter().copied().collect::<Vec<_>>() {
            let t = self.ty_of(h)?;
            hoisted.push((self.local_names()[&h].clone(), t));
        }
        hoisted.sort_by(|a, b| a.0.cmp(&b.0));
        Ok((vars, hoisted))
    }

    /// A fresh local name from `hint` (or `fallback`), clashing with no module-scope name.
    fn local_name(&mut self, hint: Option<&str>, fallback: &str) -> String {
        let (locals, scope) = self.namers();
        locals.fresh(hint, fallback, Some(scope))
    }

    /// The name of a value or variable: from its hint, or `_N` without one. Names from hints
    /// never start with `_` ([`Namer::fresh`]), so `_N` needs no lookup.
    fn value_name(&mut self, v: InstId) -> String {
        match self.module().name(v) {
            Some(h) => self.local_name(Some(h), "v"),
            None => {
                let t = self.temps();
                *t += 1;
                temp_name(*t)
            }
        }
    }

    /// The role of instruction `i` (a local when the analysis gave it none).
    fn role(&self, i: InstId) -> Role {
        self.roles().get(&i).copied().unwrap_or(Role::Named)
    }

    /// `e` with the source range of `i`, when it has one and `e` has none yet.
    fn located(&self, i: InstId, mut e: TextError) -> TextError {
        if e.0.span.is_none() {
            e.0.span = super::span_of(self.module(), i);
        }
        e
    }

    /// The type of value `v`.
    fn ty_of(&self, v: InstId) -> Result<InstId, TextError> {
        self.module()
            .ty(v)
            .ok_or_else(|| self.malformed("an untyped value"))
    }

    /// The scalar kind of value `v`'s type, if it is numeric or boolean.
    fn kind_of(&self, v: InstId) -> Option<ScalarKind> {
        let m = self.module();
        m.ty(v).and_then(|t| m.scalar_kind(t))
    }
}

/// The operands WGSL and MSL print more than once (they get a local so nothing is computed
/// twice): a shuffle's sources, a byte-address access's offset (and stored value), and every
/// operand of the intrinsics `all_of` lists; `special` gives those of other intrinsics.
pub(crate) fn repeated_operands(
    m: &Module,
    i: InstId,
    all_of: &[oneshader_ir::Intrinsic],
    special: impl Fn(oneshader_ir::Intrinsic) -> Option<Vec<InstId>>,
) -> Vec<InstId> {
    match m.op(i) {
        Op::Shuffle => vec![m.operand(i, 0), m.operand(i, 1)],
        Op::BufferLoad => vec![m.operand(i, 1)],
        Op::BufferStore => vec![m.operand(i, 1), m.operand(i, 2)],
        Op::CallIntrinsic => match m
            .imm_operand(i, 0)
            .and_then(oneshader_ir::Intrinsic::from_u32)
        {
            Some(which) if all_of.contains(&which) => {
                (1..m.num_operands(i)).map(|k| m.operand(i, k)).collect()
            }
            Some(which) => special(which).unwrap_or_default(),
            None => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// `_N`: the name of the `n`th unnamed value, written digit by digit (this runs once per
/// value of a function, and `format!` is the larger part of its cost).
fn temp_name(n: u32) -> String {
    let mut digits = [0u8; 10];
    let mut k = digits.len();
    let mut rest = n;
    loop {
        k -= 1;
        digits[k] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let mut s = String::with_capacity(1 + digits.len() - k);
    s.push('_');
    s.extend(digits[k..].iter().map(|&d| char::from(d)));
    s
}

/// The statement walker's state for `f` and the roles of its values ([`roles::analyze`]),
/// for a printer that prints the operands `repeated` lists of an instruction more than once
/// (they get a local, so nothing is computed twice) and gives the values `needs_local`
/// accepts a local; the loops that need a break flag are entered (unnamed) in the state.
pub(crate) fn analyze_fn(
    m: &Module,
    f: Func,
    repeated: fn(&Module, InstId) -> Vec<InstId>,
    needs_local: fn(&Module, InstId) -> bool,
) -> (WalkState, roles::Roles) {
    let mut walk = WalkState::new(m, f);
    let mut forced: FxHashSet<InstId> = FxHashSet::default();
    let mut insts = 0;
    for b in f.blocks(m) {
        for c in m.children(b.id()) {
            forced.extend(repeated(m, c));
            insts += 1;
        }
    }
    // About a line of 40 bytes an instruction: the buffer grows (and copies itself) rarely.
    walk.out.reserve(insts * 40);
    let mut r = roles::analyze(m, f, &walk.cons, &walk.cfg, &forced, needs_local);
    for k in r.flagged_loops.drain(..) {
        walk.loop_flags.insert(k, String::new());
    }
    (walk, r)
}

/// A function printer whose expressions are [`E`] (WGSL and MSL): comparisons and
/// byte-address buffer access, written once over the target's [`WordSpelling`].
pub(crate) trait ExprText<'m>: FnText<'m> {
    /// How the target spells byte-address words.
    const WORDS: WordSpelling;
    /// The target's code of an operation whose operands it cannot take.
    const OPERANDS: &'static str;

    /// The text of constant (or specialization constant) `v`.
    fn constant_text(&mut self, v: InstId) -> Result<String, TextError>;
    /// Instruction `i`'s value as an expression (its role is inline, or its local is being
    /// defined).
    fn inst_expr(&mut self, i: InstId) -> Result<E, TextError>;

    /// Value `v` as an operand: a constant, the local holding it, or its expression when it
    /// prints inline.
    fn value(&mut self, v: InstId) -> Result<E, TextError> {
        let m = self.module();
        let op = m
            .try_op(v)
            .ok_or_else(|| self.malformed("an operand refers to a removed instruction"))?;
        if op.is_constant() || op == Op::SpecConst {
            let text = self.constant_text(v)?;
            // A negative literal is an operator expression.
            let primary = !text.starts_with('-');
            return Ok(E { text, primary });
        }
        if let Some(n) = self.local_names().get(&v) {
            return Ok(E::primary(n.clone()));
        }
        match op {
            Op::Global | Op::FieldAddr | Op::ElementAddr | Op::Var => {
                Err(self.malformed("a pointer used as a value"))
            }
            _ if op.is_instruction() => match self.role(v) {
                Role::Inline => self.inst_expr(v),
                _ => Err(self.malformed("a value used before its definition")),
            },
            _ => Err(self.malformed(&format!("an operand is a `{}`", op.spelling()))),
        }
    }
    /// The text of the place pointer `p` designates.
    fn place_text(&mut self, p: InstId) -> Result<String, TextError>;
    /// The target's name of type `t`.
    fn type_name(&mut self, t: InstId) -> Result<String, TextError>;
    /// True when the words of byte-address buffer `p` are atomic (an atomic touches them).
    fn atomic_words(&self, p: InstId) -> bool;

    /// How the language spells `and` and `or` of booleans (WGSL's `&`, `|`; MSL's `&&`,
    /// `||`).
    const BOOL_AND_OR: [&'static str; 2];
    /// True when `dot` takes integer vectors (WGSL) and not only float ones (MSL).
    const INTEGER_DOT: bool;

    /// True when a shuffle prints runs of components from one source as one swizzle (WGSL:
    /// `a.xy`); false for one swizzle per component (MSL: `a.x, a.y`).
    const SWIZZLE_RUNS: bool;

    /// A shuffle of two vectors: swizzles of its sources, in a constructor of the result type
    /// unless it is one swizzle of one source.
    fn shuffle(&mut self, i: InstId) -> Result<E, TextError> {
        const COMPONENTS: [char; 4] = ['x', 'y', 'z', 'w'];
        let m = self.module();
        let ty = self.ty_of(i)?;
        let xa = m.operand(i, 0);
        let na = m.ty(xa).and_then(|t| m.vector_len(t)).unwrap_or(4);
        let srcs = [self.value(xa)?, self.value(m.operand(i, 1))?];
        let mut runs: Vec<(usize, String)> = Vec::new();
        for k in 2..m.num_operands(i) {
            let k = m.imm_operand(i, k).unwrap_or(0);
            let (src, c) = if k < na { (0, k) } else { (1, k - na) };
            let ch = *COMPONENTS
                .get(c as usize)
                .ok_or_else(|| self.malformed("a shuffle index out of range"))?;
            match runs.last_mut() {
                Some((s, sw)) if Self::SWIZZLE_RUNS && *s == src => sw.push(ch),
                _ => runs.push((src, ch.to_string())),
            }
        }
        if Self::SWIZZLE_RUNS && runs.len() == 1 {
            let (s, sw) = &runs[0];
            return Ok(E::primary(format!("{}.{sw}", srcs[*s].p())));
        }
        let parts: Vec<String> = runs
            .iter()
            .map(|(s, sw)| format!("{}.{sw}", srcs[*s].p()))
            .collect();
        let tn = self.type_name(ty)?;
        Ok(E::primary(format!("{tn}({})", parts.join(", "))))
    }

    /// A bitwise or logical operation (`and`, `or`, `xor`, `not`): `xor` of booleans is `!=`,
    /// `not` is `!` or `~`.
    fn logic(&mut self, i: InstId) -> Result<E, TextError> {
        let m = self.module();
        let op = m.op(i);
        let boolean = self.kind_of(i) == Some(ScalarKind::Bool);
        let a = self.value(m.operand(i, 0))?;
        if op == Op::Not {
            return Ok(E::op(format!(
                "{}{}",
                if boolean { "!" } else { "~" },
                a.p()
            )));
        }
        let b = self.value(m.operand(i, 1))?;
        let [and, or] = Self::BOOL_AND_OR;
        Ok(match (op, boolean) {
            (Op::And, true) => bin(&a, and, &b),
            (Op::Or, true) => bin(&a, or, &b),
            (Op::And, false) => bin(&a, "&", &b),
            (Op::Or, false) => bin(&a, "|", &b),
            (Op::Xor, true) => bin(&a, "!=", &b),
            _ => bin(&a, "^", &b),
        })
    }

    /// HLSL's `mul` of vectors and matrices. HLSL rows are the columns of WGSL's and MSL's
    /// matrices: every product swaps its operands.
    fn matmul(&mut self, i: InstId) -> Result<E, TextError> {
        let m = self.module();
        let x = m.operand(i, 0);
        let y = m.operand(i, 1);
        let tx = m.ty(x).map(|t| m.op(t));
        let ty = m.ty(y).map(|t| m.op(t));
        let a = self.value(x)?;
        let b = self.value(y)?;
        let dot = Self::INTEGER_DOT || self.kind_of(x) == Some(ScalarKind::Float);
        Ok(match (tx, ty) {
            (Some(Op::Vector), Some(Op::Matrix))
            | (Some(Op::Matrix), Some(Op::Vector))
            | (Some(Op::Matrix), Some(Op::Matrix)) => bin(&b, "*", &a),
            (Some(Op::Vector), Some(Op::Vector)) if dot => call("dot", &[&a, &b]),
            (Some(Op::Matrix), Some(_)) => bin(&a, "*", &b),
            (Some(_), Some(Op::Matrix)) => bin(&b, "*", &a),
            _ => {
                return Err(TextError::new(
                    Self::OPERANDS,
                    "`matmul` needs float matrix and vector operands",
                ));
            }
        })
    }

    /// A comparison: `a op b`.
    fn compare(&mut self, i: InstId) -> Result<E, TextError> {
        let m = self.module();
        let sym = match m.op(i) {
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            _ => ">=",
        };
        let a = self.value(m.operand(i, 0))?;
        let b = self.value(m.operand(i, 1))?;
        Ok(bin(&a, sym, &b))
    }

    /// The word array and index of a byte-address access.
    fn word_index(&mut self, i: InstId) -> Result<(String, E), TextError> {
        let m = self.module();
        let buf = self.place_text(m.operand(i, 0))?;
        let off_ir = m.operand(i, 1);
        let off = self.value(off_ir)?;
        let off = if self.kind_of(off_ir) == Some(ScalarKind::Uint) {
            off
        } else {
            E::primary((Self::WORDS.offset_as_uint)(&off.text))
        };
        Ok((buf, bin(&off, ">>", &E::primary("2u"))))
    }

    /// The 32-bit scalar of the words a byte-address access of `ty` reads or writes.
    fn word_scalar(&self, i: InstId, ty: InstId) -> Result<InstId, TextError> {
        crate::words::word_scalar(self.module(), i, ty)
            .map_err(|msg| TextError::new(Self::OPERANDS, msg))
    }

    /// A byte-address load: one word per component.
    fn buffer_load(&mut self, i: InstId) -> Result<E, TextError> {
        let m = self.module();
        let ty = self.ty_of(i)?;
        let (arr, index) = self.word_index(i)?;
        let scalar = self.word_scalar(i, ty)?;
        let n = m.vector_len(ty).unwrap_or(1);
        let atomic = self.atomic_words(m.operand(i, 0));
        let mut parts = word_reads(&arr, &index, n, atomic, m.op(scalar), &Self::WORDS);
        if n == 1 {
            return Ok(E::primary(parts.remove(0)));
        }
        let tn = self.type_name(ty)?;
        Ok(E::primary(format!("{tn}({})", parts.join(", "))))
    }

    /// A byte-address store: one word per component.
    fn buffer_store(&mut self, i: InstId) -> Result<(), TextError> {
        const COMPONENTS: [char; 4] = ['x', 'y', 'z', 'w'];
        let m = self.module();
        let v_ir = m.operand(i, 2);
        let ty = self.ty_of(v_ir)?;
        let (arr, index) = self.word_index(i)?;
        let scalar = self.word_scalar(i, ty)?;
        let v = self.value(v_ir)?;
        let n = m.vector_len(ty).unwrap_or(1);
        for k in 0..n {
            let comp = if n == 1 {
                v.text.clone()
            } else {
                format!("{}.{}", v.p(), COMPONENTS[k as usize])
            };
            let word = match m.op(scalar) {
                Op::U32 => comp,
                _ => (Self::WORDS.bits_of)(&comp),
            };
            let idx = if k == 0 {
                index.text.clone()
            } else {
                format!("{} + {k}u", index.p())
            };
            if self.atomic_words(m.operand(i, 0)) {
                let s = (Self::WORDS.atomic_store)(&format!("{arr}[{idx}]"), &word);
                self.line_fmt(format_args!("{s};"));
            } else {
                self.line_fmt(format_args!("{arr}[{idx}] = {word};"));
            }
        }
        Ok(())
    }
}

/// The [`FnText`] impl of a text backend's `FnEmitter` (from its fields `locals`, `cx.names`,
/// `roles` and `temps`), written once: invoked in each backend's `control` module.
macro_rules! fn_emitter_text {
    () => {
        $crate::text::printer::fn_emitter_text!(@impl {});
    };
    // The emitter's own `before_line` (GLSL's `#line` directives instead of comments).
    (before_line) => {
        $crate::text::printer::fn_emitter_text!(@impl {
            fn before_line(&mut self, i: oneshader_ir::InstId) {
                FnEmitter::before_line(self, i)
            }
        });
    };
    (@impl { $($extra:tt)* }) => {
        impl<'m> $crate::text::printer::FnText<'m> for FnEmitter<'_, 'm> {
            $($extra)*

            fn line_marks(&mut self) -> Option<&mut $crate::text::lines::LineMarks<'m>> {
                self.cx.lines.as_mut()
            }

            fn namers(&mut self) -> (&mut $crate::text::names::Namer, &$crate::text::names::Namer) {
                (&mut self.locals, &self.cx.names)
            }

            fn roles(
                &self,
            ) -> &$crate::text::table::IdMap<$crate::text::roles::Role> {
                &self.roles
            }

            fn temps(&mut self) -> &mut u32 {
                &mut self.temps
            }

            fn local_names(&mut self) -> &mut $crate::text::table::IdMap<String> {
                &mut self.names
            }

            fn hoisted(&self) -> &rustc_hash::FxHashSet<oneshader_ir::InstId> {
                &self.hoisted
            }

            fn statement(
                &mut self,
                i: oneshader_ir::InstId,
            ) -> Result<(), $crate::text::error::TextError> {
                FnEmitter::statement(self, i)
            }

            fn named(
                &mut self,
                i: oneshader_ir::InstId,
            ) -> Result<(), $crate::text::error::TextError> {
                FnEmitter::named(self, i)
            }
        }
    };
}
pub(crate) use fn_emitter_text;

#[cfg(test)]
mod tests {
    #[test]
    fn temp_names_are_decimal() {
        for n in [0, 1, 9, 10, 99, 100, 12345, u32::MAX] {
            assert_eq!(super::temp_name(n), format!("_{n}"));
        }
    }
}
