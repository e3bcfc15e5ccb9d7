//! Which entry point a text backend prints, and what it uses: read from the module's shared
//! analyses ([`oneshader_ir::analysis::ModuleInfo`], carried by the `Legal`), never derived
//! here. Shared by the GLSL, WGSL and MSL backends (each output holds one entry point).

use oneshader_ir::analysis::{EntryInfo, ModuleInfo};
use oneshader_ir::{Func, InstId, Stage};
use rustc_hash::FxHashSet;

/// The entry point being printed.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    /// Its function.
    pub func: Func,
    /// Its stage.
    pub stage: Stage,
    /// Its name.
    pub name: String,
}

impl Entry {
    /// The entry point `e` describes.
    pub fn of(e: &EntryInfo) -> Entry {
        Entry {
            func: e.func(),
            stage: e.stage(),
            name: e.name().to_string(),
        }
    }
}

/// The entry point `wanted` names (or the only one when `wanted` is `None`); `Err` with the
/// message of the refusal (`lang`: the target's name, for the message).
pub(crate) fn choose<'i>(
    info: &'i ModuleInfo,
    wanted: Option<&str>,
    lang: &str,
) -> Result<&'i EntryInfo, String> {
    let all = info.entry_points();
    let list = || {
        all.iter()
            .map(|e| format!("`{}` ({})", e.name(), e.stage().spelling()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match wanted {
        Some(w) => all.iter().find(|e| e.name() == w).ok_or_else(|| {
            if all.is_empty() {
                format!("no entry point `{w}`: the module has no entry points")
            } else {
                format!("no entry point `{w}`; the module has {}", list())
            }
        }),
        None => match all {
            [one] => Ok(one),
            [] => Err(format!(
                "the module has no entry point: {lang} output is one shader stage (a library \
                 of functions has no {lang} form)"
            )),
            _ => Err(format!(
                "the module has {} entry points ({}); choose one (`Options::entry`, `--entry \
                 NAME`): {lang} output holds one",
                all.len(),
                list()
            )),
        },
    }
}

/// The functions `entry` reaches, callees before callers (the order GLSL declares them in;
/// the entry point itself last), and the globals they name.
pub(crate) struct Usage {
    pub funcs: Vec<Func>,
    pub globals: FxHashSet<InstId>,
}

/// The usage of `entry` (which reaches no recursion: the legality check refuses it).
pub(crate) fn usage(info: &ModuleInfo, entry: &EntryInfo) -> Usage {
    let reached: FxHashSet<Func> = entry.functions().iter().copied().collect();
    let funcs = info
        .call_graph()
        .bottom_up()
        .filter(|f| reached.contains(f))
        .collect();
    let globals = entry.globals().iter().map(|u| u.global.id()).collect();
    Usage { funcs, globals }
}
