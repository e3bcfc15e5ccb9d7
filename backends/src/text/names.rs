//! Identifiers shared by the text backends: a name hint reduced to
//! `[A-Za-z_][A-Za-z0-9_]*` (other characters become `_`, runs of `_` collapse, cut to 48
//! characters, never starting with a digit), renamed when the target reserves it, and made
//! unique in its scope with the first free suffix `_1`, `_2`, ... A name never starts with
//! `_` (a leading `_` becomes `v_`), so a backend may name values without hints `_N` without
//! asking. Each target supplies its reserved words ([`Namer::new`]).

use rustc_hash::{FxHashMap, FxHashSet};

/// `hint` reduced to a legal identifier (possibly reserved; see [`Namer::fresh`]).
fn sanitize(hint: &str) -> String {
    let mut out = String::with_capacity(hint.len().min(48));
    for c in hint.chars() {
        let c = if c.is_ascii_alphanumeric() { c } else { '_' };
        if c == '_' && out.ends_with('_') {
            continue;
        }
        out.push(c);
        if out.len() >= 48 {
            break;
        }
    }
    let out = out.trim_end_matches('_').to_string();
    if out.is_empty() {
        return String::new();
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        return format!("v{out}");
    }
    out
}

/// A set of taken names (a scope), and per stem the first suffix not yet tried, so naming
/// n values with one hint costs O(n), not O(n^2).
#[derive(Clone, Debug)]
pub(crate) struct Namer {
    taken: FxHashSet<String>,
    next_suffix: FxHashMap<String, u32>,
    /// The target's test for identifiers that may not be used as they are.
    is_reserved: fn(&str) -> bool,
    /// A prefix the target reserves (`gl_` in GLSL, `__` in WGSL): a hint starting with it
    /// (or with `_`) gets `v_` in front.
    reserved_prefix: &'static str,
}

impl Namer {
    /// An empty scope of a target whose reserved identifiers `is_reserved` tells, and which
    /// reserves identifiers starting with `reserved_prefix`.
    pub fn new(is_reserved: fn(&str) -> bool, reserved_prefix: &'static str) -> Namer {
        Namer {
            taken: FxHashSet::default(),
            next_suffix: FxHashMap::default(),
            is_reserved,
            reserved_prefix,
        }
    }

    /// Marks `name` as taken (helper functions, `main`).
    pub fn reserve(&mut self, name: &str) {
        self.taken.insert(name.to_string());
    }

    /// A fresh legal name from `hint` (or `fallback` when there is none or nothing of it is
    /// left), avoiding reserved words and the names taken here and in `outer`.
    pub fn fresh(&mut self, hint: Option<&str>, fallback: &str, outer: Option<&Namer>) -> String {
        let mut base = hint.map(sanitize).unwrap_or_default();
        if base.is_empty() {
            base = fallback.to_string();
        }
        if base.starts_with('_') || base.starts_with(self.reserved_prefix) {
            base = format!("v_{}", base.trim_start_matches('_'));
        }
        let is_reserved = self.is_reserved;
        let free = |n: &str, me: &Namer| {
            !is_reserved(n) && !me.taken.contains(n) && !outer.is_some_and(|o| o.taken.contains(n))
        };
        let name = if free(&base, self) {
            base
        } else {
            let trimmed = base.trim_end_matches(|c: char| c.is_ascii_digit());
            let stem = if trimmed.ends_with('_') {
                trimmed.trim_end_matches('_').to_string()
            } else {
                base.clone()
            };
            let stem = if stem.is_empty() {
                fallback.to_string()
            } else {
                stem
            };
            // A suffix makes any name legal unless the stem is reserved by its prefix.
            let stem = if is_reserved(&format!("{stem}_1")) {
                format!("v_{stem}")
            } else {
                stem
            };
            let first = self.next_suffix.get(&stem).copied().unwrap_or(1);
            let found = (first..u32::MAX)
                .map(|k| (k, format!("{stem}_{k}")))
                .find(|(_, n)| free(n, self));
            match found {
                Some((k, n)) => {
                    self.next_suffix.insert(stem, k + 1);
                    n
                }
                None => format!("{stem}_x"),
            }
        };
        self.taken.insert(name.clone());
        name
    }
}

/// The module-scope items that the bodies of some functions refer to and that a text backend
/// names at module scope: struct types and constants (composites and spec constants), each
/// once, in the order the functions (in the order given), their blocks and instructions first
/// reach them. A backend names all of them before it prints any function body
/// ([`module_refs`]), so no local name (chosen against the module scope) can equal a
/// module-scope name chosen later, and so hide it.
#[derive(Clone, Debug, Default)]
pub(crate) struct ModuleRefs {
    /// Struct types: of the globals given, of parameters, results and operands, and nested in
    /// those types (pointees, elements, fields), fields before the struct that holds them.
    pub structs: Vec<oneshader_ir::InstId>,
    /// Constants used as operands (`composite`, `zero`, `undef`, `spec_const`), and the
    /// constants nested in composite constants, in first-use order.
    pub consts: Vec<oneshader_ir::InstId>,
}

/// The [`ModuleRefs`] of `funcs` and `globals`.
pub(crate) fn module_refs(
    m: &oneshader_ir::Module,
    funcs: &[oneshader_ir::Func],
    globals: &[oneshader_ir::InstId],
) -> ModuleRefs {
    use oneshader_ir::{InstId, Op};
    struct Walk<'m> {
        m: &'m oneshader_ir::Module,
        seen: FxHashSet<InstId>,
        refs: ModuleRefs,
        /// The type walked last (most values have the type of the one before: no lookup).
        last_ty: Option<InstId>,
    }
    impl Walk<'_> {
        fn ty(&mut self, t: InstId) {
            let m = self.m;
            if self.last_ty == Some(t) {
                return;
            }
            if m.try_op(t).is_none_or(|op| !op.is_type()) {
                return;
            }
            // `t` is in `seen` from here on.
            self.last_ty = Some(t);
            if !self.seen.insert(t) {
                return;
            }
            for o in m.operands(t) {
                if m.try_op(o).is_some_and(|op| op.is_type()) {
                    self.ty(o);
                }
            }
            if m.op(t) == Op::Struct {
                for f in m.struct_fields(t) {
                    if let Some(ft) = m.ty(f) {
                        self.ty(ft);
                    }
                }
                self.refs.structs.push(t);
            }
        }
        fn value(&mut self, v: InstId) {
            let m = self.m;
            let Some(op) = m.try_op(v) else { return };
            if let Some(t) = m.ty(v) {
                self.ty(t);
            }
            if !(op.is_constant() || op == Op::SpecConst) || !self.seen.insert(v) {
                return;
            }
            for o in m.operands(v) {
                if m.try_op(o)
                    .is_some_and(|op| op.is_constant() || op == Op::SpecConst)
                {
                    self.value(o);
                }
            }
            if matches!(op, Op::Composite | Op::Zero | Op::Undef | Op::SpecConst) {
                self.refs.consts.push(v);
            }
        }
    }
    let mut w = Walk {
        m,
        seen: FxHashSet::default(),
        refs: ModuleRefs::default(),
        last_ty: None,
    };
    for &g in globals {
        if let Some(t) = m.ty(g) {
            w.ty(t);
        }
    }
    for &f in funcs {
        if let Some(t) = m.ty(f.id()) {
            w.ty(t);
        }
        for b in f.blocks(m) {
            for c in m.children(b.id()) {
                w.value(c);
                for o in m.operands(c) {
                    w.value(o);
                }
            }
        }
    }
    w.refs
}

/// Names chosen for module-scope items before any function body is printed, so that the
/// backend's lazy naming sites (a struct, a constant, declared on first use) take the name
/// chosen then rather than choosing one while a body is printed ([`ModuleRefs`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct Prenamed(FxHashMap<(oneshader_ir::InstId, u8), String>);

impl Prenamed {
    /// Chooses item `id`'s name (its slot `slot`: an item may have several names) in `scope`
    /// now, from `hint` or `fallback`.
    pub fn choose(
        &mut self,
        scope: &mut Namer,
        id: oneshader_ir::InstId,
        slot: u8,
        hint: Option<&str>,
        fallback: &str,
    ) {
        self.0
            .entry((id, slot))
            .or_insert_with(|| scope.fresh(hint, fallback, None));
    }

    /// The name chosen for item `id`'s slot `slot`, if one was and was not taken yet.
    pub fn get(&self, id: oneshader_ir::InstId, slot: u8) -> Option<&str> {
        self.0.get(&(id, slot)).map(String::as_str)
    }

    /// The name chosen for item `id`'s slot `slot`, or a fresh one from `scope` when none was.
    pub fn take(
        &mut self,
        scope: &mut Namer,
        id: oneshader_ir::InstId,
        slot: u8,
        hint: Option<&str>,
        fallback: &str,
    ) -> String {
        match self.0.remove(&(id, slot)) {
            Some(n) => n,
            None => scope.fresh(hint, fallback, None),
        }
    }
}
