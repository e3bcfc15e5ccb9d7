//! The GLSL backend: a [`Legal`] module in, GLSL 4.50 for Vulkan out (`#version 450`, 4.60
//! with ray queries; `GL_KHR_vulkan_glsl`: `set`/`binding`, `push_constant`, `constant_id`),
//! one entry point per output (vertex, fragment, compute, geometry, hull or domain), for
//! glslang (`glslangValidator -V`).
//!
//! The output means what the SPIR-V backend's output means, to the bit: every IR operation is
//! printed as GLSL that glslang compiles to the SPIR-V operation the SPIR-V backend emits (or,
//! where GLSL has no such operator, to a small helper with exactly its meaning, such as
//! `os_srem` for the IR's signed remainder), buffers get the offsets, strides and majorness
//! of [`oneshader_ir::layout`] under the same rules, and resources the same set and binding
//! numbers. What GLSL cannot express exactly is refused with a diagnostic naming the
//! construct ([`error`] lists the codes), never approximated.
//!
//! The module is legalized for [`Target::Glsl`] first ([`crate::prepare`]):
//! besides the specializations, every selection has a merge block of its own and block
//! parameters are variables, so the printer rebuilds `if`/`switch`/`for` statements straight
//! from the structured constructs (`control`) and never prints a phi.
//!
//! The parts (private modules of backends/src/glsl/; what the entry point reaches comes from
//! the text backends' shared `usage`): `module` (declarations and assembly), `layout` (block layouts), `types`,
//! `literals`, `names`, `func` (which values print inline), `control` (statements), `expr`,
//! `stmt`, `intrinsics`, `textures`; [`error`] lists the codes.
//!
//! ```
//! use oneshader_backends::{Target, glsl, prepare};
//! let mut m = oneshader_ir::parse::parse(
//!     "global @data : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]\n\
//!      func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {\n\
//!      bb0:\n\
//!        %0 = element_addr @data, u32 0 : ptr<storage_buffer, u32>\n\
//!        store %0, u32 7\n\
//!        return\n\
//!      }\n",
//! ).unwrap();
//! let legal = prepare(&mut m, Target::Glsl).unwrap();
//! let text = glsl::emit(&legal, &glsl::Options::default()).unwrap();
//! assert!(text.starts_with("#version 450\n"));
//! assert!(text.contains("data.data[0u] = 7u;"));
//! ```

mod control;
pub mod error;
mod expr;
mod func;
mod intrinsics;
mod layout;
mod literals;
mod module;
mod names;
mod stmt;
mod textures;
mod types;

use crate::text::driver;
use crate::text::usage;

pub use crate::spirv::DenormMode;
pub use error::GlslError;
pub use oneshader_ir::layout::LayoutRule;

use oneshader_ir::effects::Effects;
use oneshader_ir::{Diagnostic, Errors, Module, Op, Partitioning, Primitive, Stage, TessDomain};

use crate::{Legal, Target};
use error::{DERIVATIVES, STAGE, WRONG_TARGET};

/// How to emit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The entry point to emit (its `entry_point` name). `None`: the module's only one.
    pub entry: Option<String>,
    /// Layout of constant buffers (`uniform` globals). Default: DXC's relaxed std140, as the
    /// SPIR-V backend.
    pub cbuffer_rule: LayoutRule,
    /// Layout of storage buffers. Default: DXC's relaxed std430.
    pub storage_rule: LayoutRule,
    /// Layout of push constants. Default: DXC's relaxed std430.
    pub push_constant_rule: LayoutRule,
    /// Layout of texture buffers (storage-buffer globals decorated `texture_buffer`, HLSL
    /// `tbuffer`/`TextureBuffer`). Default: DXC's relaxed std430, as the SPIR-V backend.
    pub tbuffer_rule: LayoutRule,
    /// The 32-bit float denormal mode of the entry point (dxc's `-denorm preserve|ftz`),
    /// stated through `GL_EXT_spirv_intrinsics` as the SPIR-V backend's execution mode.
    /// Default: none.
    pub denorm: Option<DenormMode>,
    /// Source line directives (`-Zi`, `-fspv-debug=`): `#line N "file"` before each statement
    /// whose HLSL line differs from the previous one's, from the IR's positions, with
    /// `GL_GOOGLE_cpp_style_line_directive`, so glslang's `-g` output and its messages point at
    /// the HLSL. Only the files are read. Default: none.
    pub line_directives: Option<crate::spirv::LineInfo>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            entry: None,
            cbuffer_rule: LayoutRule::RelaxedStd140,
            storage_rule: LayoutRule::RelaxedStd430,
            push_constant_rule: LayoutRule::RelaxedStd430,
            tbuffer_rule: LayoutRule::RelaxedStd430,
            denorm: None,
            line_directives: None,
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

/// Emits one entry point of a module legalized for GLSL as GLSL text. Errors are
/// diagnostics (codes OSB0101.., see [`error`]) for what GLSL cannot express exactly.
pub fn emit(legal: &Legal<'_>, opts: &Options) -> Result<String, Errors> {
    emit_diags(legal, opts).map_err(Errors::new)
}

/// The GLSL target as the shared driver names it.
const LANG: driver::Lang = driver::Lang {
    target: Target::Glsl,
    name: "GLSL",
    variant: "Glsl",
    wrong_target: WRONG_TARGET,
    entry: error::ENTRY,
};

fn emit_diags(legal: &Legal<'_>, opts: &Options) -> Result<String, Vec<Diagnostic>> {
    let (entry_info, entry) = driver::entry_point(legal, &LANG, opts.entry.as_deref())?;
    let m = legal.module();
    let info = legal.info();
    let used = usage::usage(info, entry_info);
    let mut cx = module::ModuleCx::new(m, opts, entry.clone());
    for &f in &used.funcs {
        if f != entry.func {
            let n = cx.names.fresh(m.name(f.id()), "f", None);
            cx.item_names.insert(f.id(), n);
        }
    }
    let mut diags: Vec<Diagnostic> = cx
        .declare_globals(&used.globals)
        .into_iter()
        .map(Diagnostic::from)
        .collect();
    // Every module-scope name a body may print is chosen before any body is printed.
    cx.prename(&used.funcs);
    let functions = driver::print_functions(m, &used.funcs, &mut cx, &mut diags, |cx, f| {
        func::FnEmitter::new(cx, f).and_then(|e| e.emit(f == entry.func))
    });
    let derivatives = entry_info.effects().contains(Effects::DERIVATIVES);
    let stage_layout = match stage_layout(&mut cx, &entry, derivatives) {
        Ok(s) => s,
        Err(e) => {
            // A derivative error points at the first instruction that takes one.
            let e = if e.0.code == DERIVATIVES {
                e.at(m, entry_info.first_with_effects(m, Effects::DERIVATIVES))
            } else {
                e
            };
            diags.push(e.into());
            String::new()
        }
    };
    if !diags.is_empty() {
        return Err(diags);
    }
    cx.assemble(&stage_layout, &functions)
        .map_err(|e| vec![e.into()])
}

/// The entry point's `layout(...) in;` lines: workgroup size, derivative group, early
/// fragment tests.
fn stage_layout(
    cx: &mut module::ModuleCx<'_>,
    entry: &usage::Entry,
    derivatives: bool,
) -> error::R<String> {
    let m = cx.m;
    let f = entry.func.id();
    let mut out = String::new();
    if matches!(
        entry.stage,
        Stage::Compute | Stage::Mesh | Stage::Amplification
    ) {
        let (x, y, z) = m
            .find_decoration(f, Op::NumThreads)
            .map(|d| {
                (
                    m.imm_operand(d, 0).unwrap_or(1),
                    m.imm_operand(d, 1).unwrap_or(1),
                    m.imm_operand(d, 2).unwrap_or(1),
                )
            })
            .unwrap_or((1, 1, 1));
        out.push_str(&format!(
            "layout(local_size_x = {x}, local_size_y = {y}, local_size_z = {z}) in;\n"
        ));
        if derivatives && entry.stage == Stage::Compute {
            // The SPIR-V backend's choice (DXC's for cs_6_6).
            let group = if x.is_multiple_of(2) && y.is_multiple_of(2) {
                "derivative_group_quadsNV"
            } else if (x as u64 * y as u64 * z as u64).is_multiple_of(4) {
                "derivative_group_linearNV"
            } else {
                return Err(GlslError::new(
                    DERIVATIVES,
                    format!(
                        "compute entry point `{}` takes implicit derivatives with \
                         numthreads({x}, {y}, {z}); a derivative group needs even x and y \
                         (2x2 quads) or a multiple of 4 threads",
                        entry.name
                    ),
                ));
            };
            cx.ext("GL_NV_compute_shader_derivatives");
            out.push_str(&format!("layout({group}) in;\n"));
        }
    }
    if let Some(mode) = cx.opts.denorm {
        // SPV_KHR_float_controls' execution mode on 32-bit floats, as the SPIR-V backend
        // declares it (GLSL has no spelling of its own).
        let (em, cap) = match mode {
            DenormMode::Preserve => (4459, 4464),
            DenormMode::FlushToZero => (4460, 4465),
        };
        cx.ext("GL_EXT_spirv_intrinsics");
        out.push_str(&format!(
            "spirv_execution_mode(extensions = [\"SPV_KHR_float_controls\"], capabilities = \
             [{cap}], {em}, 32);\n"
        ));
    }
    match entry.stage {
        Stage::Geometry => geometry_layout(m, entry, &mut out)?,
        Stage::Hull => hull_layout(cx, entry, &mut out)?,
        Stage::Domain => domain_layout(m, entry, &mut out)?,
        Stage::Mesh => {
            cx.ext("GL_EXT_mesh_shader");
            mesh_layout(m, entry, &mut out)?
        }
        Stage::Amplification => cx.ext("GL_EXT_mesh_shader"),
        Stage::RayGeneration
        | Stage::Intersection
        | Stage::AnyHit
        | Stage::ClosestHit
        | Stage::Miss
        | Stage::Callable => cx.ext("GL_EXT_ray_tracing"),
        _ => {}
    }
    match entry.stage {
        Stage::Compute => {}
        Stage::Fragment if m.has_decoration(f, Op::EarlyFragmentTests) => {
            out.push_str("layout(early_fragment_tests) in;\n");
        }
        Stage::Fragment => {}
        _ if derivatives => {
            return Err(GlslError::new(
                DERIVATIVES,
                format!(
                    "{} entry point `{}` takes implicit derivatives (implicit-LOD sampling, \
                     CalculateLevelOfDetail or ddx/ddy), which exist only in fragment and \
                     compute shaders",
                    entry.stage.spelling(),
                    entry.name
                ),
            ));
        }
        _ => {}
    }
    Ok(out)
}

/// An immediate mode decoration of the entry point.
fn mode(m: &Module, entry: &usage::Entry, op: Op) -> Option<u32> {
    m.find_decoration(entry.func.id(), op)
        .and_then(|d| m.imm_operand(d, 0))
}

fn missing_mode(entry: &usage::Entry, what: &str) -> GlslError {
    GlslError::new(
        error::MALFORMED,
        format!(
            "{} entry point `{}` has no `{what}`",
            entry.stage.spelling(),
            entry.name
        ),
    )
}

/// A geometry shader's input primitive, invocations, output primitive and vertex count.
fn geometry_layout(m: &Module, entry: &usage::Entry, out: &mut String) -> error::R<()> {
    let input = match mode(m, entry, Op::InputPrimitive).and_then(Primitive::from_u32) {
        Some(Primitive::Point) => "points",
        Some(Primitive::Line) => "lines",
        Some(Primitive::LineAdj) => "lines_adjacency",
        Some(Primitive::Triangle) => "triangles",
        Some(Primitive::TriangleAdj) => "triangles_adjacency",
        _ => return Err(missing_mode(entry, "input_primitive")),
    };
    out.push_str(&format!("layout({input}) in;\n"));
    if let Some(n) = mode(m, entry, Op::Invocations) {
        out.push_str(&format!("layout(invocations = {n}) in;\n"));
    }
    let output = match mode(m, entry, Op::OutputPrimitive).and_then(Primitive::from_u32) {
        Some(Primitive::Point) => "points",
        Some(Primitive::LineStrip) => "line_strip",
        Some(Primitive::TriangleStrip) => "triangle_strip",
        _ => return Err(missing_mode(entry, "output_primitive")),
    };
    let n = mode(m, entry, Op::MaxVertices).ok_or_else(|| missing_mode(entry, "max_vertices"))?;
    out.push_str(&format!("layout({output}, max_vertices = {n}) out;\n"));
    Ok(())
}

/// SPIR-V execution modes (`ExecutionMode` numbers) of the tessellator the entry point
/// states: domain, spacing, vertex order or point mode, as the SPIR-V backend declares them.
fn tess_modes(m: &Module, entry: &usage::Entry) -> error::R<Vec<(u32, &'static str)>> {
    let mut modes = Vec::new();
    match mode(m, entry, Op::TessDomainDeco).and_then(TessDomain::from_u32) {
        Some(TessDomain::Triangle) => modes.push((22, "triangles")),
        Some(TessDomain::Quad) => modes.push((24, "quads")),
        Some(TessDomain::Isoline) => modes.push((25, "isolines")),
        None => {}
    }
    match mode(m, entry, Op::TessPartitioning).and_then(Partitioning::from_u32) {
        Some(Partitioning::Integer) => modes.push((1, "equal_spacing")),
        Some(Partitioning::FractionalEven) => modes.push((2, "fractional_even_spacing")),
        Some(Partitioning::FractionalOdd) => modes.push((3, "fractional_odd_spacing")),
        Some(Partitioning::Pow2) => {
            return Err(GlslError::new(
                STAGE,
                format!(
                    "{} entry point `{}`: `pow2` partitioning has no GLSL spacing (equal, \
                     fractional even and fractional odd exist)",
                    entry.stage.spelling(),
                    entry.name
                ),
            ));
        }
        None => {}
    }
    match mode(m, entry, Op::OutputPrimitive).and_then(Primitive::from_u32) {
        Some(Primitive::Point) => modes.push((10, "point_mode")),
        Some(Primitive::TriangleCw) => modes.push((4, "cw")),
        Some(Primitive::TriangleCcw) => modes.push((5, "ccw")),
        _ => {}
    }
    Ok(modes)
}

/// A hull shader's output patch size, and the tessellator modes it states. GLSL lets only
/// the evaluation shader state the domain, spacing and order; they are declared here as the
/// SPIR-V execution modes they are (`GL_EXT_spirv_intrinsics`), as the SPIR-V backend's.
fn hull_layout(
    cx: &mut module::ModuleCx<'_>,
    entry: &usage::Entry,
    out: &mut String,
) -> error::R<()> {
    let m = cx.m;
    let n = mode(m, entry, Op::OutputControlPoints)
        .ok_or_else(|| missing_mode(entry, "output_control_points"))?;
    out.push_str(&format!("layout(vertices = {n}) out;\n"));
    let modes = tess_modes(m, entry)?;
    if !modes.is_empty() {
        cx.ext("GL_EXT_spirv_intrinsics");
    }
    for (em, name) in modes {
        out.push_str(&format!("spirv_execution_mode({em}); // {name}\n"));
    }
    Ok(())
}

/// A domain shader's tessellator modes. glslang gives every tessellation evaluation shader a
/// spacing and a vertex order (equal_spacing and ccw when none is written), and Vulkan
/// requires them to equal the hull shader's: a domain entry point that does not state them
/// (HLSL states them on the hull shader only) is refused rather than given defaults that
/// may contradict its hull shader.
fn domain_layout(m: &Module, entry: &usage::Entry, out: &mut String) -> error::R<()> {
    let modes = tess_modes(m, entry)?;
    let has = |ids: &[u32]| modes.iter().any(|(id, _)| ids.contains(id));
    let isolines = has(&[25]);
    let missing = if !has(&[22, 24, 25]) {
        Some("domain (`tess_domain`, HLSL `[domain(...)]`)")
    } else if !has(&[1, 2, 3]) {
        Some("spacing (`tess_partitioning`, HLSL `[partitioning(...)]`)")
    } else if !isolines && !has(&[4, 5, 10]) {
        Some(
            "vertex order (`output_primitive`, HLSL `[outputtopology(\"triangle_cw\" | \
             \"triangle_ccw\" | \"point\")]`)",
        )
    } else {
        None
    };
    if let Some(what) = missing {
        return Err(GlslError::new(
            STAGE,
            format!(
                "domain entry point `{}` states no tessellation {what}: a GLSL tessellation \
                 evaluation shader always states the domain, spacing and vertex order \
                 (glslang assumes equal_spacing and ccw), and they must be the hull \
                 shader's; repeat the hull shader's `[partitioning]` and `[outputtopology]` \
                 on the domain shader",
                entry.name
            ),
        ));
    }
    let names: Vec<&str> = modes.iter().map(|(_, n)| *n).collect();
    out.push_str(&format!("layout({}) in;\n", names.join(", ")));
    Ok(())
}

/// A mesh shader's output primitive and counts (the workgroup size is printed as for compute).
fn mesh_layout(m: &Module, entry: &usage::Entry, out: &mut String) -> error::R<()> {
    let prim = match mode(m, entry, Op::OutputPrimitive).and_then(Primitive::from_u32) {
        Some(Primitive::Point) => "points",
        Some(Primitive::Line) => "lines",
        Some(Primitive::Triangle) => "triangles",
        _ => return Err(missing_mode(entry, "output_primitive")),
    };
    let v = mode(m, entry, Op::MaxVertices).ok_or_else(|| missing_mode(entry, "max_vertices"))?;
    let p =
        mode(m, entry, Op::MaxPrimitives).ok_or_else(|| missing_mode(entry, "max_primitives"))?;
    out.push_str(&format!(
        "layout({prim}, max_vertices = {v}, max_primitives = {p}) out;\n"
    ));
    Ok(())
}
