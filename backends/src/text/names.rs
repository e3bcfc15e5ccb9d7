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
