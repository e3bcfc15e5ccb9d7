//! What the drivers of the text backends (`emit` of GLSL, WGSL and MSL) share: the check that
//! the module was legalized for the target, the choice of the entry point, the stage and
//! derivative refusals, the identifier check of the entry point's name, and the loop printing
//! every used function (each refusal named after its function and placed in it). Each
//! backend passes its [`Lang`]: its name and its codes, as data.

use oneshader_ir::analysis::EntryInfo;
use oneshader_ir::effects::Effects;
use oneshader_ir::{Diagnostic, Func, InstId, Module, Stage};

use super::error::TextError;
use super::usage::{self, Entry};
use crate::{Legal, Target};

/// A text target as its driver names it.
pub(crate) struct Lang {
    /// The legalization target.
    pub target: Target,
    /// Its name in messages (`WGSL`).
    pub name: &'static str,
    /// Its `Target` variant as the message spells it (`Wgsl`).
    pub variant: &'static str,
    /// The code of a module legalized for another target.
    pub wrong_target: &'static str,
    /// The code of an entry point that cannot be chosen or named.
    pub entry: &'static str,
}

/// One diagnostic with `code` and `msg`.
pub(crate) fn err(code: &'static str, msg: impl Into<String>) -> Vec<Diagnostic> {
    vec![TextError::new(code, msg).into()]
}

/// Checks that `legal` was prepared for `lang` and chooses the entry point `wanted` (or the
/// only one).
pub(crate) fn entry_point<'l>(
    legal: &'l Legal<'_>,
    lang: &Lang,
    wanted: Option<&str>,
) -> Result<(&'l EntryInfo, Entry), Vec<Diagnostic>> {
    if legal.target() != lang.target {
        return Err(err(
            lang.wrong_target,
            format!(
                "the module was legalized for {}, not {}; prepare it with `prepare(m, \
                 Target::{})`",
                legal.target(),
                lang.name.to_ascii_lowercase(),
                lang.variant
            ),
        ));
    }
    let info = legal.info();
    let entry_info = usage::choose(info, wanted, lang.name).map_err(|e| err(lang.entry, e))?;
    let entry = usage::Entry::of(entry_info);
    Ok((entry_info, entry))
}

/// Refuses (with `code` and the message `msg` makes) an entry point of a stage other than
/// vertex, fragment and compute.
pub(crate) fn vertex_fragment_compute(
    entry: &Entry,
    code: &'static str,
    msg: impl FnOnce(&Entry) -> String,
) -> Result<(), Vec<Diagnostic>> {
    if matches!(
        entry.stage,
        Stage::Vertex | Stage::Fragment | Stage::Compute
    ) {
        Ok(())
    } else {
        Err(err(code, msg(entry)))
    }
}

/// Whether the entry point takes implicit derivatives; refused with `code` at the first
/// instruction that takes one unless it is a fragment shader (`only`: the sentence saying
/// where the target has them).
pub(crate) fn derivatives_in_fragment_only(
    m: &Module,
    entry_info: &EntryInfo,
    entry: &Entry,
    code: &'static str,
    only: &str,
) -> Result<bool, Vec<Diagnostic>> {
    let derivatives = entry_info.effects().contains(Effects::DERIVATIVES);
    if derivatives && entry.stage != Stage::Fragment {
        return Err(super::refusal_at(
            m,
            entry_info.first_with_effects(m, Effects::DERIVATIVES),
            code,
            format!(
                "{} entry point `{}` takes implicit derivatives (implicit-LOD sampling, \
                 CalculateLevelOfDetail or ddx/ddy); {only}",
                entry.stage.spelling(),
                entry.name
            ),
        ));
    }
    Ok(derivatives)
}

/// True when `name` is an ASCII identifier (letters, digits and `_`, not starting with a
/// digit, not empty).
pub(crate) fn is_identifier(name: &str) -> bool {
    !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit())
}

/// Prints every function of `funcs` with `print` (given the module context `cx`),
/// concatenated; a function's refusal goes to `diags`, named after the function and placed
/// in it.
pub(crate) fn print_functions<C>(
    m: &Module,
    funcs: &[Func],
    cx: &mut C,
    diags: &mut Vec<Diagnostic>,
    mut print: impl FnMut(&mut C, Func) -> Result<String, TextError>,
) -> String {
    let mut functions = String::new();
    for &f in funcs {
        match print(cx, f) {
            // The first function's buffer becomes the output (no copy of it).
            Ok(text) if functions.is_empty() => functions = text,
            Ok(text) => functions.push_str(&text),
            Err(e) => {
                let mut d: Diagnostic = e.into();
                d.message = format!("function @{}: {}", m.name(f.id()).unwrap_or("?"), d.message);
                diags.push(d.in_func(m, f.id()));
            }
        }
    }
    functions
}

/// Declares each global of `globals` (in their order) with `declare`; a refusal is named
/// after its global and placed at a use of it when it has no position of its own.
pub(crate) fn declare_each<T>(
    m: &Module,
    globals: impl IntoIterator<Item = (InstId, T)>,
    mut declare: impl FnMut(InstId, T) -> Result<(), TextError>,
) -> Vec<TextError> {
    let mut errors = Vec::new();
    for (g, extra) in globals {
        if let Err(e) = declare(g, extra) {
            let name = m.name(g).unwrap_or("?");
            let mut d = *e.0;
            d.message = format!("global @{name}: {}", d.message);
            errors.push(TextError::from(d.or_at_use(m, g)));
        }
    }
    errors
}
