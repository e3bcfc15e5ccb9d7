//! What one entry point uses: the functions it reaches through calls (callees before
//! callers, as GLSL declares them) and the globals those functions name.
//!
//! TODO(analysis): replace with ir-core's shared entry-point usage and call-graph analysis
//! once it lands on main (branch `analyses`); this is the simple version the GLSL backend
//! needs meanwhile, read from the IR's use lists.

use oneshader_ir::{Func, InstId, Module, Op, Stage};
use rustc_hash::FxHashSet;

use super::error::{CONTROL, ENTRY, GlslError, R};

/// An entry point of the module.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    /// The function.
    pub func: Func,
    /// Its stage.
    pub stage: Stage,
    /// The name the `entry_point` decoration gives it.
    pub name: String,
}

/// Every entry point of `m`, in function order.
pub(crate) fn entries(m: &Module) -> Vec<Entry> {
    let mut out = Vec::new();
    for f in m.functions() {
        let Some(d) = m.find_decoration(f.id(), Op::EntryPoint) else {
            continue;
        };
        let Some(stage) = m.imm_operand(d, 0).and_then(Stage::from_u32) else {
            continue;
        };
        let name = m
            .try_operand(d, 1)
            .and_then(|s| m.literal_str(s))
            .or_else(|| m.name(f.id()))
            .unwrap_or("main")
            .to_string();
        out.push(Entry {
            func: f,
            stage,
            name,
        });
    }
    out
}

/// The entry point `wanted` names (or the only one when `wanted` is `None`).
pub(crate) fn choose(m: &Module, wanted: Option<&str>) -> R<Entry> {
    let all = entries(m);
    let list = || {
        all.iter()
            .map(|e| format!("`{}` ({})", e.name, e.stage.spelling()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match wanted {
        Some(w) => all.iter().find(|e| e.name == w).cloned().ok_or_else(|| {
            GlslError::new(
                ENTRY,
                if all.is_empty() {
                    format!("no entry point `{w}`: the module has no entry points")
                } else {
                    format!("no entry point `{w}`; the module has {}", list())
                },
            )
        }),
        None => match all.len() {
            1 => Ok(all[0].clone()),
            0 => Err(GlslError::new(
                ENTRY,
                "the module has no entry point: GLSL output is one shader stage (a library of \
                 functions has no GLSL form)",
            )),
            _ => Err(GlslError::new(
                ENTRY,
                format!(
                    "the module has {} entry points ({}); choose one (`Options::entry`, \
                     `--entry NAME`): GLSL output holds one",
                    all.len(),
                    list()
                ),
            )),
        },
    }
}

/// The functions `entry` reaches (itself last, every callee before its callers) and the
/// globals they name.
pub(crate) struct Usage {
    pub funcs: Vec<Func>,
    pub globals: FxHashSet<InstId>,
}

/// Computes the usage of `entry`; a call cycle (recursion, which GLSL forbids) is an error.
pub(crate) fn usage(m: &Module, entry: Func) -> R<Usage> {
    let mut funcs = Vec::new();
    let mut globals = FxHashSet::default();
    let mut done: FxHashSet<InstId> = FxHashSet::default();
    let mut on_stack: FxHashSet<InstId> = FxHashSet::default();
    // Iterative post-order over the call graph: (function, its callees, next callee).
    let mut stack: Vec<(Func, Vec<Func>, usize)> = Vec::new();
    let callees = |f: Func, globals: &mut FxHashSet<InstId>| -> Vec<Func> {
        let mut out: Vec<Func> = Vec::new();
        for b in f.blocks(m) {
            for i in m.children(b.id()) {
                for v in m.operands(i) {
                    match m.try_op(v) {
                        Some(Op::Global) => {
                            globals.insert(v);
                        }
                        Some(Op::Func) if m.op(i) == Op::Call => {
                            let g = Func::cast(m, v);
                            if !out.contains(&g) {
                                out.push(g);
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        out
    };
    on_stack.insert(entry.id());
    let c = callees(entry, &mut globals);
    stack.push((entry, c, 0));
    while let Some((f, cs, next)) = stack.last_mut() {
        if let Some(&g) = cs.get(*next) {
            *next += 1;
            if done.contains(&g.id()) {
                continue;
            }
            if !on_stack.insert(g.id()) {
                return Err(GlslError::new(
                    CONTROL,
                    format!(
                        "@{} calls itself (directly or through other functions); GLSL has no \
                         recursion",
                        m.name(g.id()).unwrap_or("?")
                    ),
                ));
            }
            let c = callees(g, &mut globals);
            stack.push((g, c, 0));
        } else {
            let f = *f;
            on_stack.remove(&f.id());
            done.insert(f.id());
            funcs.push(f);
            stack.pop();
        }
    }
    Ok(Usage { funcs, globals })
}
