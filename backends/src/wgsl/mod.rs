//! The WGSL backend: a [`Legal`] module in, WGSL out (as naga 30 parses and validates it,
//! with the naga capabilities beyond WebGPU's that the output's first line states, if any:
//! subgroups, binding arrays, f16, ...), one entry point per output.
//!
//! The output means what the SPIR-V backend's output means: every IR operation is printed as
//! the WGSL operation with its meaning (no implicit conversion is ever relied on: every
//! literal carries its type suffix, every conversion is spelled), buffers get the offsets
//! and strides of [`oneshader_ir::layout`] under the same rules, stated with `@size` on
//! members where WGSL's own layout differs (or refused where WGSL cannot state them), and
//! resources the same `@group`/`@binding` numbers as the SPIR-V backend's set and binding.
//! What WGSL cannot express is refused with a diagnostic naming the construct ([`error`]
//! lists the codes), never approximated.
//!
//! The module is legalized for [`Target::Wgsl`] first ([`crate::prepare`]): every selection
//! has a merge block of its own, bools in buffers are `u32`, block parameters are variables,
//! so the printer rebuilds `if`/`switch`/`loop` statements straight from the structured
//! constructs and never prints a phi.
//!
//! Shape of the output: stage inputs and outputs are module-scope `var<private>` variables
//! that the IR's entry function (printed as an ordinary function) reads and writes; the WGSL
//! entry point, named as the IR's, takes an input struct (`@location`, `@builtin`,
//! `@interpolate`), copies it into those variables, calls that function and returns an
//! output struct built from the output variables. Memory that atomics touch is declared
//! `atomic<T>` (see `module`). Identifiers that are WGSL keywords, reserved words or
//! predeclared names are renamed.
//!
//! ```
//! use oneshader_backends::{Target, wgsl, prepare};
//! let mut m = oneshader_ir::parse::parse(
//!     "global @data : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]\n\
//!      func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {\n\
//!      bb0:\n\
//!        %0 = element_addr @data, u32 0 : ptr<storage_buffer, u32>\n\
//!        store %0, u32 7\n\
//!        return\n\
//!      }\n",
//! ).unwrap();
//! let legal = prepare(&mut m, Target::Wgsl).unwrap();
//! let text = wgsl::emit(&legal, &wgsl::Options::default()).unwrap();
//! assert!(text.contains("@compute @workgroup_size(1, 1, 1)"));
//! assert!(text.contains("data[0u] = 7u;"));
//! ```

mod control;
pub mod error;
mod func;
mod module;
mod names;
mod textures;

pub use error::WgslError;
pub use oneshader_ir::layout::LayoutRule;

use std::fmt::Write as _;

use oneshader_ir::{Diagnostic, Errors, Op, Stage};

use crate::text::driver::{self, err};
use crate::text::usage;
use crate::{Legal, Target};
use error::{DERIVATIVES, ENTRY, STAGE, WRONG_TARGET};

/// How to emit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The entry point to emit (its `entry_point` name). `None`: the module's only one.
    pub entry: Option<String>,
    /// Layout of constant buffers. Default: DXC's relaxed std140, as the SPIR-V backend.
    pub cbuffer_rule: LayoutRule,
    /// Layout of storage buffers. Default: DXC's relaxed std430.
    pub storage_rule: LayoutRule,
    /// Layout of push constants (which WGSL refuses; kept for symmetry with the other
    /// backends' options). Default: DXC's relaxed std430.
    pub push_constant_rule: LayoutRule,
    /// Layout of texture buffers (`tbuffer`). Default: DXC's relaxed std430.
    pub tbuffer_rule: LayoutRule,
    /// Explicit resource places (`--wgsl-binding-map`); what it does not list is placed by
    /// the rules of [`crate::bindings`].
    pub binding_map: Option<crate::bindings::WgslBindingMap>,
    /// Source line comments (`-Zi`, `-fspv-debug=`): `// file:line` before each statement
    /// whose HLSL line differs from the previous one's, from the IR's positions. Only the
    /// files are read. Default: none.
    pub line_comments: Option<crate::spirv::LineInfo>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            entry: None,
            cbuffer_rule: LayoutRule::RelaxedStd140,
            storage_rule: LayoutRule::RelaxedStd430,
            push_constant_rule: LayoutRule::RelaxedStd430,
            tbuffer_rule: LayoutRule::RelaxedStd430,
            binding_map: None,
            line_comments: None,
        }
    }
}

impl Options {
    /// Options emitting the entry point named `entry`, other settings at their defaults.
    pub fn for_entry(entry: impl Into<String>) -> Options {
        Options {
            entry: Some(entry.into()),
            ..Options::default()
        }
    }
}

/// The WGSL target as the shared driver names it.
const LANG: driver::Lang = driver::Lang {
    target: Target::Wgsl,
    name: "WGSL",
    variant: "Wgsl",
    wrong_target: WRONG_TARGET,
    entry: ENTRY,
};

/// Emits one entry point of a module legalized for WGSL as WGSL text. Errors are
/// diagnostics (codes OSB0201.., see [`error`]) for what WGSL cannot express.
pub fn emit(legal: &Legal<'_>, opts: &Options) -> Result<String, Errors> {
    emit_with_interface(legal, opts).map(|(text, _)| text)
}

/// Where the WGSL output binds one resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourcePlace {
    /// The global's name.
    pub name: String,
    /// Its Vulkan (set, binding).
    pub vulkan: (u32, u32),
    /// Its place.
    pub place: crate::bindings::WgslPlace,
}

/// What the host needs to know of a WGSL output besides the text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Interface {
    /// Every resource the entry point uses, in declaration order, with its place.
    pub resources: Vec<ResourcePlace>,
    /// Warnings: a binding-map entry that places nothing (OSB0212), a point size of 1.0 left
    /// out (OSB0213).
    pub warnings: Vec<Diagnostic>,
}

/// [`emit`], and where each resource went ([`Interface`]).
pub fn emit_with_interface(
    legal: &Legal<'_>,
    opts: &Options,
) -> Result<(String, Interface), Errors> {
    emit_diags(legal, opts).map_err(Errors::new)
}

fn emit_diags(legal: &Legal<'_>, opts: &Options) -> Result<(String, Interface), Vec<Diagnostic>> {
    let (entry_info, entry) = driver::entry_point(legal, &LANG, opts.entry.as_deref())?;
    let m = legal.module();
    let info = legal.info();
    driver::vertex_fragment_compute(&entry, STAGE, |entry| {
        format!(
            "entry point `{}`: WGSL has no {} shaders (vertex, fragment and compute only)",
            entry.name,
            entry.stage.spelling()
        )
    })?;
    if names::is_reserved(&entry.name)
        || entry.name.starts_with('_')
        || !driver::is_identifier(&entry.name)
    {
        return Err(err(
            ENTRY,
            format!(
                "entry point `{}`: the name is not a WGSL identifier the API can look up \
                 (a keyword, a reserved or predeclared word, or not an identifier)",
                entry.name
            ),
        ));
    }
    let derivatives = driver::derivatives_in_fragment_only(
        m,
        entry_info,
        &entry,
        DERIVATIVES,
        "WGSL has derivatives in fragment shaders only",
    )?;
    let used = usage::usage(info, entry_info);
    let (places, warnings) =
        crate::bindings::wgsl_places(m, Some(entry.stage), opts.binding_map.as_ref())?;
    let mut cx = module::ModuleCx::new(m, opts, entry.clone());
    cx.places = places;
    if entry.stage == Stage::Fragment && m.has_decoration(entry.func.id(), Op::EarlyFragmentTests) {
        // `[earlydepthstencil]`: naga's `@early_depth_test(force)` (SPIR-V's
        // EarlyFragmentTests), behind its EARLY_DEPTH_TEST capability.
        cx.capabilities.insert("EARLY_DEPTH_TEST");
    }
    if derivatives {
        // Sampling and derivatives in non-uniform control flow mean in WGSL what they mean in
        // SPIR-V (undefined derivatives); naga's uniformity analysis would refuse them.
        cx.directives
            .insert("diagnostic(off, derivative_uniformity);");
    }
    cx.scan(&used.funcs).map_err(|e| vec![e.into()])?;
    let body_name = cx
        .names
        .fresh(Some(&format!("{}_body", entry.name)), "entry_body", None);
    for &f in &used.funcs {
        let n = if f == entry.func {
            body_name.clone()
        } else {
            cx.names.fresh(m.name(f.id()), "f", None)
        };
        cx.item_names.insert(f.id(), n);
    }
    let globals: Vec<_> = entry_info
        .globals()
        .iter()
        .map(|u| (u.global.id(), u.access))
        .collect();
    let mut diags: Vec<Diagnostic> = cx
        .declare_globals(&globals)
        .into_iter()
        .map(Diagnostic::from)
        .collect();
    // Every module-scope name a body may print is chosen before any body is printed.
    cx.prename(&used.funcs);
    let functions = driver::print_functions(m, &used.funcs, &mut cx, &mut diags, |cx, f| {
        let name = cx.item_names[&f.id()].clone();
        func::FnEmitter::new(cx, f).and_then(|e| e.emit(&name))
    });
    if entry.stage == Stage::Compute
        && cx.inputs.iter().any(|io| io.attrs.contains("subgroup_"))
        && let Some(d) = m.find_decoration(entry.func.id(), Op::NumThreads)
        && (m.imm_operand(d, 1).unwrap_or(1) > 1 || m.imm_operand(d, 2).unwrap_or(1) > 1)
    {
        diags.push(
            WgslError::new(
                error::RESOURCE,
                format!(
                    "compute entry point `{}` reads the lane index or count (WaveGetLaneIndex, WaveGetLaneCount, WaveIsFirstLane) with a multi-dimensional numthreads; naga takes the subgroup built-ins only with a one-dimensional workgroup size",
                    entry.name
                ),
            )
            .into(),
        );
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    let entry_fn = entry_wrapper(&mut cx, &body_name);
    let resources = entry_info
        .globals()
        .iter()
        .filter_map(|u| {
            let g = u.global.id();
            let d = m.find_decoration(g, Op::Binding)?;
            Some(ResourcePlace {
                name: m.name(g).unwrap_or("").to_string(),
                vulkan: (m.imm_operand(d, 0)?, m.imm_operand(d, 1)?),
                place: *cx.places.get(&g)?,
            })
        })
        .collect();
    let mut warnings = warnings;
    warnings.append(&mut cx.warnings);
    let text = cx
        .assemble(&entry_fn, &functions)
        .map_err(|e| vec![e.into()])?;
    Ok((
        text,
        Interface {
            resources,
            warnings,
        },
    ))
}

/// The WGSL entry point: IO structs in, private variables set, the body called, the output
/// struct returned.
fn entry_wrapper(cx: &mut module::ModuleCx<'_>, body: &str) -> String {
    let m = cx.m;
    let entry = cx.entry.clone();
    let mut out = String::new();
    let in_struct = cx
        .names
        .fresh(Some(&format!("{}_in", entry.name)), "entry_in", None);
    let out_struct = cx
        .names
        .fresh(Some(&format!("{}_out", entry.name)), "entry_out", None);
    let member_list = |ios: &[module::Io]| {
        let mut s = String::new();
        for io in ios {
            writeln!(s, "    {} {}: {},", io.attrs, io.member, io.io_type).ok();
        }
        s
    };
    let inputs = cx.inputs.clone();
    let mut outputs = cx.outputs.clone();
    if entry.stage == Stage::Vertex
        && !outputs
            .iter()
            .any(|o| o.attrs.starts_with("@builtin(position)"))
    {
        // WGSL vertex shaders must write a position; one the IR never writes is undefined,
        // and zero is one of its values.
        let var = cx.names.fresh(Some("position_unwritten"), "position", None);
        outputs.push(module::Io {
            var,
            member: cx.io_names.1.fresh(Some("position_unwritten"), "p", None),
            attrs: "@builtin(position)".into(),
            io_type: "vec4<f32>".into(),
            var_type: "vec4<f32>".into(),
            convert: "{}".into(),
        });
    }
    if !inputs.is_empty() {
        writeln!(out, "struct {in_struct} {{\n{}}}\n", member_list(&inputs)).ok();
    }
    if !outputs.is_empty() {
        writeln!(out, "struct {out_struct} {{\n{}}}\n", member_list(&outputs)).ok();
    }
    let attr = match entry.stage {
        Stage::Compute => {
            let (x, y, z) = m
                .find_decoration(entry.func.id(), Op::NumThreads)
                .map(|d| {
                    (
                        m.imm_operand(d, 0).unwrap_or(1),
                        m.imm_operand(d, 1).unwrap_or(1),
                        m.imm_operand(d, 2).unwrap_or(1),
                    )
                })
                .unwrap_or((1, 1, 1));
            format!("@compute @workgroup_size({x}, {y}, {z})")
        }
        Stage::Vertex => "@vertex".into(),
        _ if m.has_decoration(entry.func.id(), Op::EarlyFragmentTests) => {
            "@fragment @early_depth_test(force)".into()
        }
        _ => "@fragment".into(),
    };
    // The parameter is named against the module's names: a global `input` stays visible.
    let input = if inputs.is_empty() {
        String::new()
    } else {
        cx.names.fresh(Some("input"), "input", None)
    };
    let param = if inputs.is_empty() {
        String::new()
    } else {
        format!("{input}: {in_struct}")
    };
    let ret = if outputs.is_empty() {
        String::new()
    } else {
        format!(" -> {out_struct}")
    };
    writeln!(out, "{attr}\nfn {}({param}){ret} {{", entry.name).ok();
    for io in &inputs {
        let v = io.convert.replace("{}", &format!("{input}.{}", io.member));
        writeln!(out, "    {} = {v};", io.var).ok();
    }
    writeln!(out, "    {body}();").ok();
    if !outputs.is_empty() {
        let parts: Vec<String> = outputs
            .iter()
            .map(|io| io.convert.replace("{}", &io.var))
            .collect();
        writeln!(out, "    return {out_struct}({});", parts.join(", ")).ok();
    }
    out.push_str("}\n");
    // The private variables behind the interface.
    for io in inputs.iter().chain(outputs.iter()) {
        if !io.var_type.is_empty() {
            writeln!(cx.decls, "var<private> {}: {};", io.var, io.var_type).ok();
        }
    }
    out
}
