//! Linking separately compiled modules into one (ARCHITECTURE.md §7, docs/linking.md).
//!
//! [`link`] copies every input module into a fresh module. On the way:
//!
//! - hoistable values are re-interned in the new module, so `i32` of one input and `i32` of
//!   another become one value, and every type built on them collapses too;
//! - a struct type with the same name and identical fields (names, types, decorations) as a
//!   struct of an earlier input, as from a shared header, becomes that struct; same-name
//!   structs that differ stay two types (they only matter when they make an import's type
//!   differ from its export's, and that diagnostic explains the difference);
//! - every `import("name")` declaration (a function without body, a global, or a generic whose
//!   body yields a declaration) is bound to the item carrying `export("name")`: uses of the
//!   declaration become uses of the definition, and the declaration is not copied;
//! - source positions (instructions' and declarations') are kept for the inputs
//!   [`LinkOptions::source_files`] gives a file map, dropped for the others;
//! - generics specialized in one module but exported by another are then instantiated by the
//!   generic specialization pass;
//! - only what an entry point reaches is copied (through types, operands and children, an
//!   import standing for its export), unless [`LinkOptions::keep_exports`] (building a
//!   library), which also keeps every export and what it reaches; so the result depends on
//!   nothing else in the inputs, and a library loaded in part (only the items the link needs,
//!   `oneshader_serialize::LazyFile`) links to the same module as the whole library;
//! - finally, what no entry point reaches after specialization is dropped.
//!
//! Symbols are matched by their mangled names, which [`mangle`] and [`mangle_generic`] build
//! from a name and a signature (docs/linking.md); the linker only compares the strings, and
//! then checks that the two sides agree on the type.
//!
//! ```
//! use oneshader_ir::{parse::parse, print::print_module};
//! use oneshader_passes::link::{LinkOptions, link};
//!
//! let lib = parse(
//!     "func @twice(%0: f32) -> f32 [export(\"twice(f32)->f32\")] {\n\
//!      bb0:\n  %1 = add %0, %0 : f32\n  return %1\n}\n",
//! )?;
//! let shader = parse(
//!     "global @out : ptr<storage_buffer, rtarray<f32>> [binding(0, 0)]\n\
//!      func @twice(f32) -> f32 [import(\"twice(f32)->f32\")]\n\
//!      func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {\n\
//!      bb0:\n  %0 = call @twice(f32 1.5) : f32\n\
//!        %1 = element_addr @out, u32 0 : ptr<storage_buffer, f32>\n  store %1, %0\n  return\n}\n",
//! )?;
//! let linked = link(&[shader, lib], &LinkOptions::default())?;
//! let text = print_module(&linked);
//! assert!(text.contains("add %0, %0") && !text.contains("import("), "{text}");
//!
//! // A missing symbol is a diagnostic, not a panic.
//! let alone = parse("func @g(f32) -> f32 [import(\"g(f32)->f32\")]\n\
//!     func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {\n\
//!     bb0:\n  %0 = call @g(f32 1.0) : f32\n  return\n}\n")?;
//! let err = link(&[alone], &LinkOptions::default()).unwrap_err();
//! assert_eq!(err[0].code, "OSK0001");
//! # Ok::<(), oneshader_ir::Errors>(())
//! ```
//!
//! | code | meaning |
//! |---|---|
//! | OSK0001 | an import that no module exports (missing symbol) |
//! | OSK0002 | a symbol exported twice |
//! | OSK0003 | an import whose type differs from the export's |
//! | OSK0004 | an import bound to an export of another kind (function, global, generic) |
//! | OSK0005 | two entry points with the same stage and name |
//! | OSK0006 | an input module does not verify |
//! | OSK0007 | a malformed `export`/`import`: not a string, on a definition that is imported, on a declaration that is exported, or both on one item |
//! | OSK0008 | generic specialization of the linked module failed |
//! | OSK0009 | the linked module does not verify (a linker bug: please report it) |

use rustc_hash::{FxHashMap, FxHashSet};

use oneshader_ir::analysis::entry_point_of;
use oneshader_ir::diag::{Diagnostic, Errors};
use oneshader_ir::{Func, Generic, InstId, Module, Op, Stage};

use crate::Pass;
use crate::clone::Cloner;

/// How to link.
#[derive(Clone, Debug, Default)]
pub struct LinkOptions {
    /// Keep every export and what it reaches (building a library), not only what the entry
    /// points reach.
    pub keep_exports: bool,
    /// A name for each input module, used in diagnostics (file names); `module N` otherwise.
    pub module_names: Vec<String>,
    /// For each input module, where the files its positions name are in the linked module's
    /// source map: file `k` of input `i` is `source_files[i][k]`. The linked module keeps
    /// the positions (of instructions, functions and globals) of the inputs given one;
    /// without, an input's positions are dropped (its file ids would name the wrong files).
    pub source_files: Vec<Vec<oneshader_ir::FileId>>,
}

impl LinkOptions {
    fn name(&self, k: usize) -> String {
        self.module_names
            .get(k)
            .cloned()
            .unwrap_or_else(|| format!("module {k}"))
    }
}

// ---- mangling ----------------------------------------------------------------------------------

/// The mangled name of a function: `name(P1,P2,...)->R`, each type spelled by
/// [`type_spelling`]. Example: `scale(f32,vec<f32,3>)->vec<f32,3>`.
pub fn mangle(m: &Module, name: &str, params: &[InstId], ret: InstId) -> String {
    let mut s = String::from(name);
    signature(m, &mut s, params, ret, &[]);
    s
}

/// The mangled name of a generic: `name<K1,K2,...>` followed, when the generic yields a
/// function, by that function's `(params)->ret` with the generic's parameters spelled `$0`,
/// `$1`... Example: `square<type>($0)->$0`.
pub fn mangle_generic(m: &Module, name: &str, g: Generic) -> String {
    let params: Vec<InstId> = m.generic_body(g).params(m).iter().map(|p| p.id()).collect();
    let mut s = String::from(name);
    s.push('<');
    for (i, &p) in params.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        match m.ty(p) {
            Some(t) => spell(m, t, &params, &mut s),
            None => s.push('?'),
        }
    }
    s.push('>');
    if let Some(r) = m.generic_result(g)
        && let Some(f) = Func::dyn_cast(m, r)
        && let Some(fty) = f.fn_type(m)
        && let Some(ret) = m.fn_return(fty)
    {
        signature(m, &mut s, &m.fn_params(fty), ret, &params);
    }
    s
}

fn signature(m: &Module, s: &mut String, params: &[InstId], ret: InstId, gparams: &[InstId]) {
    s.push('(');
    for (i, &p) in params.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        spell(m, p, gparams, s);
    }
    s.push_str(")->");
    spell(m, ret, gparams, s);
}

/// The compact spelling of a type used in mangled names: the IR text spelling without spaces,
/// structs by `@name`, textures with every field (`texture<2d,vec<f32,4>,0,0,0,sampled,unknown>`).
pub fn type_spelling(m: &Module, ty: InstId) -> String {
    let mut s = String::new();
    spell(m, ty, &[], &mut s);
    s
}

fn spell(m: &Module, t: InstId, gparams: &[InstId], s: &mut String) {
    use std::fmt::Write as _;
    let Some(op) = m.try_op(t) else {
        s.push('?');
        return;
    };
    let imm = |i: usize| m.imm_operand(t, i).unwrap_or(0);
    match op {
        Op::Param => match gparams.iter().position(|&p| p == t) {
            Some(i) => {
                let _ = write!(s, "${i}");
            }
            None => s.push('?'),
        },
        Op::Struct => {
            s.push('@');
            s.push_str(m.name(t).unwrap_or("?"));
        }
        Op::Vector => {
            s.push_str("vec<");
            spell(m, m.operand(t, 0), gparams, s);
            let _ = write!(s, ",{}>", imm(1));
        }
        Op::Matrix => {
            s.push_str("mat<");
            spell(m, m.operand(t, 0), gparams, s);
            let _ = write!(s, ",{},{}>", imm(1), imm(2));
        }
        Op::Array => {
            s.push_str("array<");
            spell(m, m.operand(t, 0), gparams, s);
            let _ = write!(s, ",{}>", imm(1));
        }
        Op::RuntimeArray => {
            s.push_str("rtarray<");
            spell(m, m.operand(t, 0), gparams, s);
            s.push('>');
        }
        Op::Ptr => {
            let space = m
                .address_space(t)
                .map(|a| a.spelling().to_string())
                .unwrap_or_else(|| "?".into());
            let _ = write!(s, "ptr<{space},");
            spell(m, m.operand(t, 1), gparams, s);
            s.push('>');
        }
        Op::FnType => {
            let ops = m.operands_vec(t);
            s.push_str("fn");
            signature(m, s, &ops[1..], ops[0], gparams);
        }
        Op::Texture => {
            let d = m.texture_desc(t);
            s.push_str("texture<");
            match d {
                Some(d) => {
                    let _ = write!(s, "{},", d.dim.spelling());
                    spell(m, m.operand(t, 0), gparams, s);
                    let _ = write!(
                        s,
                        ",{},{},{},{},{}>",
                        d.arrayed as u32,
                        d.multisampled as u32,
                        d.depth,
                        d.access.spelling(),
                        d.format.spelling()
                    );
                }
                None => s.push_str("?>"),
            }
        }
        Op::Specialize => {
            let ops = m.operands_vec(t);
            s.push_str(m.name(ops[0]).unwrap_or("?"));
            s.push('<');
            for (i, &a) in ops[1..].iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                spell(m, a, gparams, s);
            }
            s.push('>');
        }
        op if op.is_constant() => {
            if let Some(ty) = m.ty(t) {
                spell(m, ty, gparams, s);
            }
            s.push(':');
            match (m.literal_bits(t), m.literal_str(t)) {
                (_, Some(text)) => s.push_str(text),
                (Some(bits), _) => {
                    let _ = write!(s, "{bits:#x}");
                }
                _ => s.push_str(op.spelling()),
            }
        }
        op => s.push_str(op.spelling()),
    }
}

// ---- linking -----------------------------------------------------------------------------------

/// An item of an input module: (module index, id in that module).
type ItemRef = (usize, InstId);

/// Export or import.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SymKind {
    Export,
    Import,
}

/// An `export`/`import` decoration found on a module-level item of an input.
#[derive(Clone, Debug)]
struct Sym {
    module: usize,
    item: InstId,
    kind: SymKind,
    name: String,
}

/// Links `modules` into one (see the module documentation). Inputs must verify. On success the
/// result verifies; otherwise every problem found is returned (codes OSK0001..).
pub fn link(modules: &[Module], opts: &LinkOptions) -> Result<Module, Errors> {
    let refs: Vec<&Module> = modules.iter().collect();
    link_diags(&refs, opts).map_err(Errors::new)
}

/// [`link`] of modules held elsewhere (a caller that loaded some inputs and borrows others
/// need not copy them into one slice).
pub fn link_refs(modules: &[&Module], opts: &LinkOptions) -> Result<Module, Errors> {
    link_diags(modules, opts).map_err(Errors::new)
}

fn link_diags(modules: &[&Module], opts: &LinkOptions) -> Result<Module, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    for (k, m) in modules.iter().enumerate() {
        let v = oneshader_ir::verify::verify(m);
        if !v.is_empty() {
            let mut d = Diagnostic::error(
                "OSK0006",
                format!("{} does not verify ({} problems)", opts.name(k), v.len()),
            );
            d.notes = v.iter().map(|x| x.to_string()).collect();
            diags.push(d);
        }
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    let syms = collect_symbols(modules, opts, &mut diags);

    // Exports by name; a second export of a name is an error.
    let mut exports: FxHashMap<&str, usize> = FxHashMap::default();
    for (i, s) in syms.iter().enumerate() {
        if s.kind != SymKind::Export {
            continue;
        }
        if let Some(&first) = exports.get(s.name.as_str()) {
            let f = &syms[first];
            let where_ = if f.module == s.module {
                format!("twice by {}", opts.name(s.module))
            } else {
                format!(
                    "by both {} and {}",
                    opts.name(f.module),
                    opts.name(s.module)
                )
            };
            let mut d = Diagnostic::error("OSK0002", format!("`{}` is exported {where_}", s.name));
            d.notes.push(format!(
                "first export: {} in {}",
                item_label(modules[f.module], f.item),
                opts.name(f.module)
            ));
            d.notes.push(format!(
                "second export: {} in {}",
                item_label(modules[s.module], s.item),
                opts.name(s.module)
            ));
            diags.push(d);
        } else {
            exports.insert(&s.name, i);
        }
    }

    // Bind every import to its export, checking kinds and types.
    let mut bindings: Vec<(ItemRef, ItemRef)> = Vec::new();
    for s in syms.iter().filter(|s| s.kind == SymKind::Import) {
        let mi = &modules[s.module];
        let Some(&e) = exports.get(s.name.as_str()) else {
            let mut d = Diagnostic::error(
                "OSK0001",
                format!(
                    "`{}` is imported by {} ({}) but no module exports it",
                    s.name,
                    opts.name(s.module),
                    item_label(mi, s.item)
                ),
            );
            let base = base_name(&s.name);
            for e in syms
                .iter()
                .filter(|e| e.kind == SymKind::Export && base_name(&e.name) == base)
                .take(3)
            {
                d.notes.push(format!(
                    "{} exports `{}`: a different signature",
                    opts.name(e.module),
                    e.name
                ));
            }
            diags.push(d);
            continue;
        };
        let e = &syms[e];
        let me = &modules[e.module];
        let (oi, oe) = (mi.op(s.item), me.op(e.item));
        if oi != oe {
            diags.push(Diagnostic::error(
                "OSK0004",
                format!(
                    "`{}` is imported by {} as a {} but exported by {} as a {}",
                    s.name,
                    opts.name(s.module),
                    oi.spelling(),
                    opts.name(e.module),
                    oe.spelling()
                ),
            ));
            continue;
        }
        let mut cmp = Compare::new(mi, me);
        let same = match oi {
            Op::Generic => cmp.same_generic(s.item, e.item),
            _ => match (mi.ty(s.item), me.ty(e.item)) {
                (Some(a), Some(b)) => cmp.same(a, b),
                (a, b) => a.is_none() && b.is_none(),
            },
        };
        if !same {
            let show = |m: &Module, item: InstId| -> String {
                if m.op(item) == Op::Generic {
                    mangle_generic(m, m.name(item).unwrap_or("?"), Generic::cast(m, item))
                } else {
                    m.ty(item)
                        .map(|t| oneshader_ir::print::print_inst(m, t))
                        .unwrap_or_default()
                }
            };
            let mut d = Diagnostic::error(
                "OSK0003",
                format!(
                    "`{}` is imported by {} with type `{}` but exported by {} with type `{}`",
                    s.name,
                    opts.name(s.module),
                    show(mi, s.item),
                    opts.name(e.module),
                    show(me, e.item)
                ),
            );
            for (a, b) in cmp.differing_structs() {
                d.notes.push(explain_structs(
                    mi,
                    a,
                    &opts.name(s.module),
                    me,
                    b,
                    &opts.name(e.module),
                ));
            }
            diags.push(d);
            continue;
        }
        bindings.push(((s.module, s.item), (e.module, e.item)));
    }

    check_entry_points(modules, opts, &mut diags);
    if !diags.is_empty() {
        return Err(diags);
    }

    // Only what the entry points (and with `keep_exports` the exports) reach is copied, so the
    // result depends on nothing else in the inputs: a library loaded in part
    // (`oneshader_serialize::LazyFile`) links to the same bytes as the whole library.
    let reached = reachable_items(modules, &bindings, opts.keep_exports);
    let structs = unify_structs(modules, &reached);
    let mut out = copy_modules(modules, &bindings, &structs, &reached, &opts.source_files)
        .map_err(|d| vec![d])?;

    let has_specialize = out
        .children(out.root())
        .any(|c| out.op(c) == Op::Specialize);
    if has_specialize {
        crate::specialize_generic::SpecializeGenerics
            .run(&mut out)
            .map_err(|e| {
                let mut d = Diagnostic::error(
                    "OSK0008",
                    format!("specializing generics after linking failed: {}", e.message),
                );
                d.notes = e.diagnostics.iter().map(|x| x.to_string()).collect();
                vec![d]
            })?;
    }
    drop_unreachable(&mut out, opts.keep_exports);

    let v = oneshader_ir::verify::verify(&out);
    if !v.is_empty() {
        let mut d = Diagnostic::error(
            "OSK0009",
            format!(
                "the linked module does not verify ({} problems): a linker bug",
                v.len()
            ),
        );
        d.notes = v.iter().map(|x| x.to_string()).collect();
        return Err(vec![d]);
    }
    Ok(out)
}

/// `@name` of an item, or its printed form.
fn item_label(m: &Module, item: InstId) -> String {
    match m.name(item) {
        Some(n) => format!("{} @{n}", m.op(item).spelling()),
        None => oneshader_ir::print::print_inst(m, item),
    }
}

/// The part of a mangled name before its signature.
fn base_name(s: &str) -> &str {
    let end = s.find(['(', '<']).unwrap_or(s.len());
    &s[..end]
}

fn collect_symbols(
    modules: &[&Module],
    opts: &LinkOptions,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Sym> {
    let mut syms = Vec::new();
    for (k, m) in modules.iter().enumerate() {
        for item in m.children(m.root()) {
            let op = m.op(item);
            if !matches!(op, Op::Func | Op::Global | Op::Generic) {
                continue;
            }
            let mut kinds = Vec::new();
            for d in m.decorations(item) {
                let kind = match m.op(d) {
                    Op::Export => SymKind::Export,
                    Op::Import => SymKind::Import,
                    _ => continue,
                };
                let Some(name) = m.try_operand(d, 0).and_then(|s| m.literal_str(s)) else {
                    diags.push(Diagnostic::error(
                        "OSK0007",
                        format!(
                            "{}: the symbol name of {} is not a string constant",
                            opts.name(k),
                            item_label(m, item)
                        ),
                    ));
                    continue;
                };
                kinds.push(kind);
                syms.push(Sym {
                    module: k,
                    item,
                    kind,
                    name: name.to_string(),
                });
            }
            let label = || format!("{}: {}", opts.name(k), item_label(m, item));
            if kinds.contains(&SymKind::Export) && kinds.contains(&SymKind::Import) {
                diags.push(Diagnostic::error(
                    "OSK0007",
                    format!("{} is both exported and imported", label()),
                ));
            }
            let has_body = match op {
                Op::Func => !Func::cast(m, item).is_declaration(m),
                Op::Global => m.num_operands(item) > 0,
                _ => true,
            };
            if kinds.contains(&SymKind::Import) && has_body && op != Op::Generic {
                diags.push(Diagnostic::error(
                    "OSK0007",
                    format!(
                        "{} is imported but has a {}: an import declares what another module defines",
                        label(),
                        if op == Op::Func { "body" } else { "initializer" }
                    ),
                ));
            }
            if kinds.contains(&SymKind::Export) && op == Op::Func && !has_body {
                diags.push(Diagnostic::error(
                    "OSK0007",
                    format!("{} is exported but has no body", label()),
                ));
            }
        }
    }
    syms
}

/// Two entry points of the same stage and name would collide in the linked module.
fn check_entry_points(modules: &[&Module], opts: &LinkOptions, diags: &mut Vec<Diagnostic>) {
    let mut seen: FxHashMap<(Stage, String), usize> = FxHashMap::default();
    for (k, m) in modules.iter().enumerate() {
        for f in m.functions() {
            let Some((stage, name)) = entry_point_of(m, f) else {
                continue;
            };
            let name = name.to_string();
            match seen.get(&(stage, name.clone())) {
                Some(&first) => {
                    let stage_name = stage.spelling();
                    diags.push(Diagnostic::error(
                        "OSK0005",
                        format!(
                            "{} and {} both define a {stage_name} entry point named \"{name}\"",
                            opts.name(first),
                            opts.name(k)
                        ),
                    ));
                }
                None => {
                    seen.insert((stage, name), k);
                }
            }
        }
    }
}

/// Structural comparison of types across two modules: hoistable types by structure, structs
/// by name and fields (assumed equal while being compared, for recursive structs), generic
/// parameters through a parameter pairing, other items by their symbol names.
struct Compare<'a> {
    a: &'a Module,
    b: &'a Module,
    params: Vec<(InstId, InstId)>,
    assumed: Vec<(InstId, InstId)>,
    /// Same-name struct pairs found different.
    differing: Vec<(InstId, InstId)>,
}

impl<'a> Compare<'a> {
    fn new(a: &'a Module, b: &'a Module) -> Compare<'a> {
        Compare {
            a,
            b,
            params: Vec::new(),
            assumed: Vec::new(),
            differing: Vec::new(),
        }
    }

    fn differing_structs(&self) -> Vec<(InstId, InstId)> {
        let mut out = self.differing.clone();
        out.dedup();
        out
    }

    fn same(&mut self, x: InstId, y: InstId) -> bool {
        let (a, b) = (self.a, self.b);
        let (ox, oy) = (a.op(x), b.op(y));
        if ox == Op::Param || oy == Op::Param {
            return self.params.contains(&(x, y));
        }
        if ox != oy {
            return false;
        }
        if ox == Op::Struct {
            if self.assumed.contains(&(x, y)) {
                return true;
            }
            if a.name(x) != b.name(y) {
                return false;
            }
            self.assumed.push((x, y));
            let (fx, fy) = (a.struct_fields(x), b.struct_fields(y));
            let mut same = fx.len() == fy.len() && self.same_decorations(x, y);
            if same {
                for (&p, &q) in fx.iter().zip(&fy) {
                    let types_same = match (a.ty(p), b.ty(q)) {
                        (Some(s), Some(t)) => self.same(s, t),
                        (s, t) => s.is_none() && t.is_none(),
                    };
                    if a.name(p) != b.name(q) || !types_same || !self.same_decorations(p, q) {
                        same = false;
                        break;
                    }
                }
            }
            if !same {
                self.assumed.retain(|&pair| pair != (x, y));
                self.differing.push((x, y));
            }
            return same;
        }
        if ox.is_hoistable() {
            if a.literal_bits(x) != b.literal_bits(y)
                || a.literal_str(x) != b.literal_str(y)
                || a.num_operands(x) != b.num_operands(y)
            {
                return false;
            }
            let types_same = match (a.ty(x), b.ty(y)) {
                (Some(s), Some(t)) => self.same(s, t),
                (s, t) => s.is_none() && t.is_none(),
            };
            if !types_same {
                return false;
            }
            let (px, py) = (a.operands_vec(x), b.operands_vec(y));
            return px.iter().zip(&py).all(|(&s, &t)| self.same(s, t));
        }
        // Functions, globals, generics named by a type (`specialize`): the same symbol.
        match (symbol_name(a, x), symbol_name(b, y)) {
            (Some(s), Some(t)) => s == t,
            _ => false,
        }
    }

    fn same_decorations(&mut self, x: InstId, y: InstId) -> bool {
        let dx: Vec<InstId> = self.a.decorations(x).collect();
        let dy: Vec<InstId> = self.b.decorations(y).collect();
        dx.len() == dy.len()
            && dx.iter().zip(&dy).all(|(&p, &q)| {
                self.a.op(p) == self.b.op(q)
                    && self.a.num_operands(p) == self.b.num_operands(q)
                    && {
                        let (op, oq) = (self.a.operands_vec(p), self.b.operands_vec(q));
                        op.iter().zip(&oq).all(|(&s, &t)| self.same(s, t))
                    }
            })
    }

    /// Two generics agree when their parameters have the same types and what they yield has
    /// the same type (or is the same type), with the parameters paired up.
    fn same_generic(&mut self, x: InstId, y: InstId) -> bool {
        let (a, b) = (self.a, self.b);
        let (gx, gy) = (Generic::cast(a, x), Generic::cast(b, y));
        let px = a.generic_body(gx).params(a);
        let py = b.generic_body(gy).params(b);
        if px.len() != py.len() {
            return false;
        }
        self.params = px.iter().zip(&py).map(|(p, q)| (p.id(), q.id())).collect();
        for (p, q) in px.iter().zip(&py) {
            match (a.ty(p.id()), b.ty(q.id())) {
                (Some(s), Some(t)) if self.same(s, t) => {}
                _ => return false,
            }
        }
        match (a.generic_result(gx), b.generic_result(gy)) {
            (Some(rx), Some(ry)) => {
                let (ox, oy) = (a.op(rx), b.op(ry));
                if ox == Op::Func && oy == Op::Func {
                    match (a.ty(rx), b.ty(ry)) {
                        (Some(s), Some(t)) => self.same(s, t),
                        _ => false,
                    }
                } else {
                    self.same(rx, ry)
                }
            }
            _ => false,
        }
    }
}

/// The mangled name an item exports or imports.
fn symbol_name(m: &Module, item: InstId) -> Option<&str> {
    m.decorations(item)
        .find(|&d| matches!(m.op(d), Op::Export | Op::Import))
        .and_then(|d| m.try_operand(d, 0))
        .and_then(|s| m.literal_str(s))
}

/// A note explaining how two same-name structs differ.
fn explain_structs(ma: &Module, a: InstId, na: &str, mb: &Module, b: InstId, nb: &str) -> String {
    let name = ma.name(a).unwrap_or("?");
    let (fa, fb) = (ma.struct_fields(a), mb.struct_fields(b));
    if fa.len() != fb.len() {
        return format!(
            "struct @{name} has {} fields in {na} but {} in {nb}",
            fa.len(),
            fb.len()
        );
    }
    let show = |m: &Module, f: InstId| {
        m.ty(f)
            .map(|t| oneshader_ir::print::print_inst(m, t))
            .unwrap_or_default()
    };
    for (i, (&p, &q)) in fa.iter().zip(&fb).enumerate() {
        let (sp, sq) = (show(ma, p), show(mb, q));
        if ma.name(p) != mb.name(q) || sp != sq {
            return format!(
                "struct @{name} differs at field {i}: `{}: {sp}` in {na}, `{}: {sq}` in {nb}",
                ma.name(p).unwrap_or("_"),
                mb.name(q).unwrap_or("_")
            );
        }
    }
    format!("struct @{name} differs between {na} and {nb} in its decorations")
}

/// The module-level items of the inputs that the linked module keeps: module decorations,
/// entry points (and with `keep_exports` every export), and what they reach through types,
/// operands and children, an import standing for the export it is bound to (the import
/// itself is not copied).
fn reachable_items(
    modules: &[&Module],
    bindings: &[(ItemRef, ItemRef)],
    keep_exports: bool,
) -> FxHashSet<ItemRef> {
    let bound: FxHashMap<ItemRef, ItemRef> = bindings.iter().copied().collect();
    let mut reached: FxHashSet<ItemRef> = FxHashSet::default();
    let mut work: Vec<ItemRef> = Vec::new();
    for (k, m) in modules.iter().enumerate() {
        for item in m.children(m.root()) {
            let keep = m.op(item).is_decoration()
                || m.has_decoration(item, Op::EntryPoint)
                || (keep_exports && m.has_decoration(item, Op::Export));
            if keep && reached.insert((k, item)) {
                work.push((k, item));
            }
        }
    }
    while let Some((k, item)) = work.pop() {
        let m = &modules[k];
        let root = m.root();
        for x in m.subtree(item) {
            for v in m.ty(x).into_iter().chain(m.operands(x)) {
                let top = top_item(m, v);
                if top == root {
                    continue;
                }
                let target = bound.get(&(k, top)).copied().unwrap_or((k, top));
                if reached.insert(target) {
                    work.push(target);
                }
            }
        }
    }
    reached
}

/// For each reached module-level struct of a later module, the reached struct of an earlier
/// module it unifies with: same name, identical fields. Within one module structs never unify
/// (they are nominal), and each earlier struct takes at most one struct of a given later
/// module.
fn unify_structs(modules: &[&Module], reached: &FxHashSet<ItemRef>) -> FxHashMap<ItemRef, ItemRef> {
    let mut canon: FxHashMap<ItemRef, ItemRef> = FxHashMap::default();
    let mut by_name: FxHashMap<&str, Vec<ItemRef>> = FxHashMap::default();
    for (k, m) in modules.iter().enumerate() {
        let mut taken: FxHashSet<ItemRef> = FxHashSet::default();
        for s in m.structs() {
            if !reached.contains(&(k, s.id())) {
                continue;
            }
            let Some(name) = m.name(s.id()) else { continue };
            let candidates = by_name.get(name).cloned().unwrap_or_default();
            let found = candidates.into_iter().find(|&(k2, s2)| {
                k2 != k
                    && !taken.contains(&(k2, s2))
                    && Compare::new(m, modules[k2]).same(s.id(), s2)
            });
            match found {
                Some(c) => {
                    taken.insert(c);
                    canon.insert((k, s.id()), c);
                }
                None => by_name.entry(name).or_default().push((k, s.id())),
            }
        }
    }
    canon
}

/// Copies the `reached` items of every module into a fresh one with one [`Cloner`] per module:
/// import declarations and unified structs are replaced by their definitions, hoistable
/// values re-interned (on first use, so in an order that only reached items decide),
/// positions kept through each module's file map in `source_files`.
fn copy_modules(
    modules: &[&Module],
    bindings: &[(ItemRef, ItemRef)],
    structs: &FxHashMap<ItemRef, ItemRef>,
    reached: &FxHashSet<ItemRef>,
    source_files: &[Vec<oneshader_ir::FileId>],
) -> Result<Module, Diagnostic> {
    let mut out = Module::new();
    let root = out.root();
    let skipped: FxHashSet<ItemRef> = bindings
        .iter()
        .map(|&(imp, _)| imp)
        .chain(structs.keys().copied())
        .collect();
    let internal = |what: &str| Diagnostic::error("OSK0009", format!("linker bug: {what}"));
    let mut cloners: Vec<Cloner<'_>> = modules
        .iter()
        .enumerate()
        .map(|(k, m)| match source_files.get(k) {
            Some(files) => Cloner::from_module(m).with_file_map(files.clone()),
            None => Cloner::from_module(m),
        })
        .collect();
    // Phase 1: every module's items (all but the skipped ones), in order, without operands.
    let mut created = Vec::with_capacity(modules.len());
    let mut root_decorations: Vec<InstId> = Vec::new();
    for (k, (m, cloner)) in modules.iter().zip(&mut cloners).enumerate() {
        let items: Vec<InstId> = m
            .children(m.root())
            .filter(|&c| {
                !m.op(c).is_hoistable() && !skipped.contains(&(k, c)) && reached.contains(&(k, c))
            })
            .collect();
        created.push(
            cloner
                .create(&mut out, &items)
                .map_err(|e| internal(&e.to_string()))?,
        );
        for item in items {
            let new = cloner
                .get(item)
                .ok_or_else(|| internal("an item was not copied"))?;
            out.move_to_end(new, root);
            if m.op(item).is_decoration() {
                root_decorations.push(new);
            }
        }
    }
    // Imports and unified structs stand for their definitions.
    let copy_of = |cloners: &[Cloner<'_>], (k, item): ItemRef, what: &str| {
        cloners[k].get(item).ok_or_else(|| internal(what))
    };
    for &((ki, imp), exp) in bindings {
        if !reached.contains(&exp) {
            // Neither the import nor its export is used: nothing refers to either.
            continue;
        }
        let target = copy_of(&cloners, exp, "an export was not copied")?;
        cloners[ki].insert(imp, target);
    }
    for (&(k, s), &canon) in structs {
        let target = copy_of(&cloners, canon, "a struct was not copied")?;
        cloners[k].insert(s, target);
    }
    // Phase 2: types and operands, re-interning hoistable values on the way.
    for (cloner, created) in cloners.iter_mut().zip(created) {
        cloner
            .link(&mut out, created)
            .map_err(|e| internal(&e.to_string()))?;
    }
    // Module decorations first, as the tree requires.
    if let Some(first_item) = out.children(root).find(|&c| !out.op(c).is_decoration()) {
        for d in root_decorations {
            out.move_before(d, first_item);
        }
    }
    Ok(out)
}

/// Removes every module-level item that no entry point (and, with `keep_exports`, no export)
/// reaches through types, operands and children.
fn drop_unreachable(m: &mut Module, keep_exports: bool) {
    let root = m.root();
    let items = m.children_snapshot(root);
    let mut reached: FxHashSet<InstId> = FxHashSet::default();
    let mut work: Vec<InstId> = Vec::new();
    for &item in &items {
        let op = m.op(item);
        let keep = op.is_decoration()
            || m.has_decoration(item, Op::EntryPoint)
            || (keep_exports && m.has_decoration(item, Op::Export));
        if keep && reached.insert(item) {
            work.push(item);
        }
    }
    while let Some(item) = work.pop() {
        for x in m.subtree(item) {
            for v in m.ty(x).into_iter().chain(m.operands(x)) {
                let top = top_item(m, v);
                if top != root && reached.insert(top) {
                    work.push(top);
                }
            }
        }
    }
    let dead: Vec<InstId> = items.into_iter().filter(|i| !reached.contains(i)).collect();
    if dead.is_empty() {
        return;
    }
    // Cut the uses between dead items made by ordinary instructions (calls between dead
    // functions, fields naming dead structs); what is left is acyclic (hoistable values).
    for &d in &dead {
        for x in m.subtree(d) {
            if m.op(x).is_hoistable() {
                continue;
            }
            if m.num_operands(x) > 0 {
                let _ = m.set_operands(x, &[]);
            }
            if m.ty(x).is_some() {
                m.set_type(x, None);
            }
        }
    }
    loop {
        let mut progress = false;
        for &d in &dead {
            if m.contains(d) && m.remove(d).is_ok() {
                progress = true;
            }
        }
        if !progress {
            break;
        }
    }
}

/// The module-level item containing `v` (or `v` itself when it is one).
fn top_item(m: &Module, v: InstId) -> InstId {
    let root = m.root();
    let mut cur = v;
    while let Some(p) = m.parent(cur) {
        if p == root {
            return cur;
        }
        cur = p;
    }
    cur
}
