//! The MSL backend: a [`Legal`] module in, Metal Shading Language 2.4 (macOS 12 / iOS 15; or
//! 2.1 to 3.0, [`Options::version`]) out,
//! one entry point per output: compute (`kernel`), vertex and fragment functions.
//!
//! There is no Metal compiler on Linux: the tests check the output with clang in C++17 mode
//! against a stand-in `<metal_stdlib>` (backends/tests/msl_stdlib/), and check its interface
//! (resource indices, vertex attributes, built-ins, stage-IO locations) against `spirv-cross
//! --msl` run on our own SPIR-V for the same shader. Nothing here has run on a GPU.
//!
//! The output means what the SPIR-V backend's output means: every IR operation is printed as
//! the MSL operation with its meaning (signed arithmetic wraps through `uint`, shift counts are
//! masked as the IR masks them, every literal carries its type, every conversion is spelled),
//! buffers get the offsets of [`oneshader_ir::layout`] under the same rules, stated with
//! explicit padding members and packed vectors where MSL's natural layout differs (or refused
//! where it cannot be stated). What MSL (or this backend) cannot express is refused with a
//! diagnostic naming the construct ([`error`] lists the codes), never approximated.
//!
//! The module is legalized for [`Target::Msl`] first ([`crate::prepare`]): every selection
//! has a merge block of its own, bools in buffers are `u32`, block parameters are variables,
//! so the printer rebuilds `if`/`switch`/`for (;;)` statements straight from the structured
//! constructs.
//!
//! Shape of the output: MSL has no mutable program-scope variables, so the IR's entry function
//! and the functions it calls are printed as `static inline` functions that take every global
//! the entry uses by reference (resources, private and threadgroup variables, stage inputs and
//! outputs); the MSL entry point (`kernel`, `vertex` or `fragment`, named as the IR's entry
//! point, `main` becoming `main0` as spirv-cross names it) takes the resources with their
//! indices and the stage inputs (`[[stage_in]]` struct, built-in parameters), declares the
//! private, threadgroup and output variables, calls the entry function and returns the
//! output struct.
//!
//! # Resource indices
//!
//! Each buffer (constant buffer, structured or byte-address buffer, push-constant block) gets a
//! `[[buffer(n)]]` index, each texture a `[[texture(n)]]`, each sampler a `[[sampler(n)]]`.
//! Default rule (spirv-cross's default for the same SPIR-V, so the two agree): each kind
//! counts from 0 in the order the module declares the globals the entry point uses. A [`BindingMap`] (`Options::binding_map`, `--msl-binding-map FILE`) gives the index of
//! each (stage, set, binding) instead; a resource it does not list is refused.
//!
//! ```
//! use oneshader_backends::{Target, msl, prepare};
//! let mut m = oneshader_ir::parse::parse(
//!     "global @data : ptr<storage_buffer, rtarray<u32>> [binding(0, 0)]\n\
//!      func @main() -> void [entry_point(compute, \"main\"), numthreads(1, 1, 1)] {\n\
//!      bb0:\n\
//!        %0 = element_addr @data, u32 0 : ptr<storage_buffer, u32>\n\
//!        store %0, u32 7\n\
//!        return\n\
//!      }\n",
//! ).unwrap();
//! let legal = prepare(&mut m, Target::Msl).unwrap();
//! let text = msl::emit(&legal, &msl::Options::default()).unwrap();
//! assert!(text.contains("kernel void main0(device uint* data [[buffer(0)]])"));
//! assert!(text.contains("data[0u] = 7u;"));
//! ```

mod control;
pub mod error;
mod func;
mod module;
mod names;
mod textures;

pub use error::MslError;
pub use oneshader_ir::layout::LayoutRule;

use std::fmt::Write as _;

use oneshader_ir::{Diagnostic, Errors, Op, Stage};
use rustc_hash::FxHashMap;

use crate::text::driver::{self, err};
use crate::text::usage;
use crate::{Legal, Target};
use error::{DERIVATIVES, ENTRY, STAGE, WRONG_TARGET};

/// The set under which [`BindingMap`] keeps push-constant entries (spirv-cross's
/// `ResourceBindingPushConstantDescriptorSet`, binding 0).
const PUSH_CONSTANT_SET: u32 = u32::MAX;

/// Resource indices chosen by the user: (stage, set, binding) -> the `[[buffer(n)]]` index,
/// as spirv-cross's `MSLResourceBinding` gives them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BindingMap {
    entries: FxHashMap<(Stage, u32, u32), u32>,
}

impl BindingMap {
    /// An empty map (every resource is then refused: use `Option<BindingMap>` = `None` for
    /// the default rule).
    pub fn new() -> BindingMap {
        BindingMap::default()
    }

    /// Sets the index of (stage, set, binding).
    pub fn insert(&mut self, stage: Stage, set: u32, binding: u32, index: u32) {
        self.entries.insert((stage, set, binding), index);
    }

    /// The index of (stage, set, binding), if the map gives one.
    pub fn get(&self, stage: Stage, set: u32, binding: u32) -> Option<u32> {
        if set == PUSH_CONSTANT_SET {
            return None;
        }
        self.entries.get(&(stage, set, binding)).copied()
    }

    /// Sets the `[[buffer(n)]]` index of the push-constant block of `stage` (spirv-cross's
    /// `MSLResourceBinding` with its push-constant set and binding).
    pub fn insert_push_constant(&mut self, stage: Stage, index: u32) {
        self.entries.insert((stage, PUSH_CONSTANT_SET, 0), index);
    }

    /// The buffer index of the push-constant block of `stage`, if the map gives one.
    pub fn push_constant(&self, stage: Stage) -> Option<u32> {
        self.entries.get(&(stage, PUSH_CONSTANT_SET, 0)).copied()
    }

    /// Every entry, `(stage, set, binding, index)`, sorted (a canonical order for keys and
    /// reports).
    pub fn entries(&self) -> Vec<(Stage, u32, u32, u32)> {
        let mut v: Vec<(Stage, u32, u32, u32)> = self
            .entries
            .iter()
            .map(|(&(st, set, b), &i)| (st, set, b, i))
            .collect();
        v.sort();
        v
    }

    /// Reads a map from JSON: an array of objects `{"stage": "vertex" | "fragment" |
    /// "compute", "set": N, "binding": N, "index": N}`, or `{"stage": ..., "push_constant":
    /// true, "index": N}` for the stage's push-constant block. `Err` with a message naming
    /// the entry that is malformed.
    pub fn from_json(text: &str) -> Result<BindingMap, String> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let list = v
            .as_array()
            .ok_or("the binding map is not a JSON array of entries")?;
        let mut map = BindingMap::new();
        for (k, e) in list.iter().enumerate() {
            let field = |name: &str| -> Result<u32, String> {
                e.get(name)
                    .and_then(|x| x.as_u64())
                    .and_then(|x| u32::try_from(x).ok())
                    .ok_or_else(|| format!("entry {k}: `{name}` is missing or not a u32"))
            };
            let stage = match e.get("stage").and_then(|s| s.as_str()) {
                Some("vertex") => Stage::Vertex,
                Some("fragment" | "pixel") => Stage::Fragment,
                Some("compute") => Stage::Compute,
                other => {
                    return Err(format!(
                        "entry {k}: `stage` is {other:?}; expected \"vertex\", \"fragment\" or \
                         \"compute\""
                    ));
                }
            };
            if e.get("push_constant").and_then(|p| p.as_bool()) == Some(true) {
                map.insert_push_constant(stage, field("index")?);
                continue;
            }
            let set = field("set")?;
            if set == PUSH_CONSTANT_SET {
                return Err(format!(
                    "entry {k}: set {set} is reserved for push constants (`\"push_constant\": \
                     true`)"
                ));
            }
            map.insert(stage, set, field("binding")?, field("index")?);
        }
        Ok(map)
    }
}

/// The kind of MSL index a resource takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndexKind {
    /// `[[buffer(n)]]`: constant buffers, structured and byte-address buffers, push constants.
    Buffer,
    /// `[[texture(n)]]`: textures, storage textures, texel buffers.
    Texture,
    /// `[[sampler(n)]]`.
    Sampler,
}

impl IndexKind {
    /// `buffer`, `texture` or `sampler` (the attribute's name).
    pub fn spelling(self) -> &'static str {
        match self {
            IndexKind::Buffer => "buffer",
            IndexKind::Texture => "texture",
            IndexKind::Sampler => "sampler",
        }
    }
}

/// Where one resource of the entry point is bound in the MSL output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceIndex {
    /// The IR global's name.
    pub name: String,
    /// Its descriptor set and binding; `None` for a push-constant block.
    pub set_binding: Option<(u32, u32)>,
    /// The index space.
    pub kind: IndexKind,
    /// The first index (an array of `count` textures or samplers takes `count` consecutive
    /// ones).
    pub index: u32,
    /// The number of indices it takes.
    pub count: u32,
}

/// The resource indices of an MSL output ([`emit_with_interface`]), for reflection.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Interface {
    /// Every resource the entry point uses, in declaration order.
    pub resources: Vec<ResourceIndex>,
    /// The `[[buffer(n)]]` index of the buffer-sizes buffer, when the entry point reads the
    /// length of a runtime array (element `k` must hold the byte size of the buffer bound at
    /// `[[buffer(k)]]`).
    pub buffer_sizes: Option<u32>,
}

/// How to emit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The entry point to emit (its `entry_point` name). `None`: the module's only one.
    pub entry: Option<String>,
    /// Layout of constant buffers. Default: DXC's relaxed std140, as the SPIR-V backend.
    pub cbuffer_rule: LayoutRule,
    /// Layout of storage buffers. Default: DXC's relaxed std430.
    pub storage_rule: LayoutRule,
    /// Layout of push constants (refused by this backend; kept for symmetry). Default:
    /// DXC's relaxed std430.
    pub push_constant_rule: LayoutRule,
    /// Layout of texture buffers (`tbuffer`). Default: DXC's relaxed std430.
    pub tbuffer_rule: LayoutRule,
    /// Resource indices by (stage, set, binding); `None`: the default rule (module docs).
    pub binding_map: Option<BindingMap>,
    /// The `[[buffer(n)]]` index of the buffer-sizes buffer, a `constant uint*` whose element
    /// `k` is the byte size of the buffer at `[[buffer(k)]]`, declared when the entry reads
    /// the length of a runtime array (`GetDimensions` on a structured or byte-address
    /// buffer). Default 25, spirv-cross's `buffer_size_buffer_index`.
    pub buffer_sizes_index: u32,
    /// The language version to print (default 2.4).
    pub version: MslVersion,
    /// Source line comments (`-Zi`, `-fspv-debug=`): `// file:line` before each statement
    /// whose HLSL line differs from the previous one's, from the IR's positions. Only the
    /// files are read. Default: none.
    pub line_comments: Option<crate::spirv::LineInfo>,
}

/// A Metal Shading Language version the backend can print: 2.1 to 3.0 (default 2.4, macOS
/// 12 / iOS 15). The output differs only where the language does: a construct the chosen
/// version lacks is refused by name (OSB0312).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MslVersion {
    /// Major version (2 or 3).
    pub major: u8,
    /// Minor version.
    pub minor: u8,
}

impl MslVersion {
    /// MSL 2.1 (macOS 10.14 / iOS 12).
    pub const V2_1: MslVersion = MslVersion { major: 2, minor: 1 };
    /// MSL 2.2 (macOS 10.15 / iOS 13).
    pub const V2_2: MslVersion = MslVersion { major: 2, minor: 2 };
    /// MSL 2.3 (macOS 11 / iOS 14).
    pub const V2_3: MslVersion = MslVersion { major: 2, minor: 3 };
    /// MSL 2.4 (macOS 12 / iOS 15), the default.
    pub const V2_4: MslVersion = MslVersion { major: 2, minor: 4 };
    /// MSL 3.0 (macOS 13 / iOS 16).
    pub const V3_0: MslVersion = MslVersion { major: 3, minor: 0 };
    /// Every version the backend prints.
    pub const ALL: [MslVersion; 5] = [
        MslVersion::V2_1,
        MslVersion::V2_2,
        MslVersion::V2_3,
        MslVersion::V2_4,
        MslVersion::V3_0,
    ];

    /// spirv-cross's spelling of the version (`--msl-version 20400`).
    pub fn spirv_cross_number(self) -> u32 {
        u32::from(self.major) * 10000 + u32::from(self.minor) * 100
    }
}

impl Default for MslVersion {
    fn default() -> MslVersion {
        MslVersion::V2_4
    }
}

impl std::fmt::Display for MslVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl std::str::FromStr for MslVersion {
    type Err = String;

    /// `2.1`, `2.2`, `2.3`, `2.4` or `3.0`.
    fn from_str(s: &str) -> Result<MslVersion, String> {
        MslVersion::ALL
            .into_iter()
            .find(|v| v.to_string() == s.trim())
            .ok_or_else(|| format!("MSL version `{s}` is not one of 2.1, 2.2, 2.3, 2.4, 3.0"))
    }
}

/// spirv-cross's default `buffer_size_buffer_index`, the default of
/// [`Options::buffer_sizes_index`].
pub const DEFAULT_BUFFER_SIZES_INDEX: u32 = 25;

impl Default for Options {
    fn default() -> Options {
        Options {
            entry: None,
            cbuffer_rule: LayoutRule::RelaxedStd140,
            storage_rule: LayoutRule::RelaxedStd430,
            push_constant_rule: LayoutRule::RelaxedStd430,
            tbuffer_rule: LayoutRule::RelaxedStd430,
            binding_map: None,
            buffer_sizes_index: DEFAULT_BUFFER_SIZES_INDEX,
            version: MslVersion::V2_4,
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

/// The MSL function name of an entry point named `name`: `name` itself, or `name0` when it
/// is reserved in MSL (`main` is `main0`, as spirv-cross names it).
pub fn entry_function_name(name: &str) -> String {
    if names::is_reserved(name) {
        format!("{name}0")
    } else {
        name.to_string()
    }
}

/// The MSL target as the shared driver names it.
const LANG: driver::Lang = driver::Lang {
    target: Target::Msl,
    name: "MSL",
    variant: "Msl",
    wrong_target: WRONG_TARGET,
    entry: ENTRY,
};

/// Emits one entry point of a module legalized for MSL as MSL text. Errors are diagnostics
/// (codes OSB0301.., see [`error`]) for what the backend cannot express.
pub fn emit(legal: &Legal<'_>, opts: &Options) -> Result<String, Errors> {
    emit_with_interface(legal, opts).map(|(text, _)| text)
}

/// [`emit`], also returning where each resource is bound (for reflection).
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
            "entry point `{}`: {} shaders are not supported by the MSL backend (vertex, \
             fragment and compute only)",
            entry.name,
            entry.stage.spelling()
        )
    })?;
    let fn_name = entry_function_name(&entry.name);
    if !driver::is_identifier(&fn_name) || names::is_reserved(&fn_name) {
        return Err(err(
            ENTRY,
            format!(
                "entry point `{}`: the name is not an MSL identifier the API can look up",
                entry.name
            ),
        ));
    }
    driver::derivatives_in_fragment_only(
        m,
        entry_info,
        &entry,
        DERIVATIVES,
        "MSL has derivatives in fragment functions only",
    )?;
    let used = usage::usage(info, entry_info);
    let mut cx = module::ModuleCx::new(m, opts, entry.clone());
    cx.names.reserve(&fn_name);
    cx.atomics.scan(m, &used.funcs);
    // The SIMD-group built-ins the lane index and count read are entry parameters every
    // function receives: declared before any function is printed.
    let mut simd = Vec::new();
    for &f in &used.funcs {
        for b in f.blocks(m) {
            for c in m.children(b.id()) {
                if m.op(c) != Op::CallIntrinsic {
                    continue;
                }
                let attr = match m
                    .imm_operand(c, 0)
                    .and_then(oneshader_ir::Intrinsic::from_u32)
                {
                    Some(oneshader_ir::Intrinsic::WaveGetLaneCount) => "threads_per_simdgroup",
                    Some(oneshader_ir::Intrinsic::WaveGetLaneIndex) => "thread_index_in_simdgroup",
                    // Not read by our spelling, but declared as spirv-cross declares them for
                    // these operations, so the two interfaces agree.
                    Some(oneshader_ir::Intrinsic::WaveActiveCountBits) => "threads_per_simdgroup",
                    Some(oneshader_ir::Intrinsic::WavePrefixCountBits) => {
                        "thread_index_in_simdgroup"
                    }
                    _ => continue,
                };
                if !simd.contains(&attr) {
                    simd.push(attr);
                }
            }
        }
    }
    if !simd.is_empty() && entry.stage == Stage::Vertex {
        return Err(err(
            error::UNMAPPED,
            format!(
                "vertex entry point `{}` reads the lane index or count; MSL has SIMD-group \
                 functions in fragment and kernel functions only",
                entry.name
            ),
        ));
    }
    for key in simd {
        // spirv-cross's spelling: the SIMD width of a kernel is its thread execution width.
        let attr = match (key, entry.stage) {
            ("threads_per_simdgroup", Stage::Compute) => "thread_execution_width",
            _ => key,
        };
        cx.simd_builtin(key, attr);
    }
    // Textures sampled with a depth comparison are MSL depth textures.
    for &f in &used.funcs {
        for b in f.blocks(m) {
            for c in m.children(b.id()) {
                if matches!(
                    m.op(c),
                    Op::SampleCmp
                        | Op::SampleCmpLevelZero
                        | Op::SampleCmpLevel
                        | Op::SampleCmpBias
                        | Op::SampleCmpGrad
                        | Op::GatherCmp
                ) {
                    let mut t = m.operand(c, 0);
                    while m.op(t) == Op::ElementAddr {
                        t = m.operand(t, 0);
                    }
                    cx.depth_textures.insert(t);
                }
            }
        }
    }
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
    // The lengths of runtime arrays come from the buffer-sizes buffer, declared first (as
    // spirv-cross declares it) so that no buffer takes its index.
    let reads_lengths = used.funcs.iter().any(|&f| {
        f.blocks(m)
            .iter()
            .any(|b| m.children(b.id()).any(|c| m.op(c) == Op::ArrayLength))
    });
    if reads_lengths {
        cx.declare_buffer_sizes();
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
    cx.sample_rate = entry.stage == Stage::Fragment
        && globals.iter().any(|&(g, _)| {
            m.has_decoration(g, Op::SampleDeco)
                && m.ty(g)
                    .and_then(|t| m.address_space(t))
                    .is_some_and(|s| s == oneshader_ir::AddressSpace::Input)
        });
    let mut functions = String::new();
    if diags.is_empty() {
        functions = driver::print_functions(m, &used.funcs, &mut cx, &mut diags, |cx, f| {
            let name = cx.item_names[&f.id()].clone();
            func::FnEmitter::new(cx, f).and_then(|e| e.emit(&name))
        });
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    let entry_fn = entry_wrapper(&mut cx, &fn_name, &body_name);
    let mut out = String::new();
    writeln!(
        out,
        "// Metal Shading Language {}, generated by OneShader.",
        opts.version
    )
    .ok();
    out.push_str("#include <metal_stdlib>\nusing namespace metal;\n\n");
    out.push_str(&cx.struct_decls());
    if !cx.const_decls.is_empty() {
        out.push_str(&cx.const_decls);
        out.push('\n');
    }
    out.push_str(&functions);
    out.push_str(&entry_fn);
    let interface = Interface {
        resources: cx.indices.clone(),
        buffer_sizes: cx.buffer_sizes.as_ref().map(|_| opts.buffer_sizes_index),
    };
    Ok((out, interface))
}

/// The element type of an MSL `array<T, N>` type name.
fn elem_of(array: &str) -> &str {
    array
        .trim_start_matches("array<")
        .rsplit_once(',')
        .map(|(e, _)| e)
        .unwrap_or("uint")
}

/// The MSL entry point: the resources and stage inputs in, the private, threadgroup and
/// output variables declared, the entry function called, the output struct returned.
fn entry_wrapper(cx: &mut module::ModuleCx<'_>, fn_name: &str, body: &str) -> String {
    let m = cx.m;
    let entry = cx.entry.clone();
    let mut out = String::new();
    let in_struct = cx
        .names
        .fresh(Some(&format!("{}_in", entry.name)), "entry_in", None);
    let out_struct = cx
        .names
        .fresh(Some(&format!("{}_out", entry.name)), "entry_out", None);
    let in_var = cx.names.fresh(Some("stage_input"), "stage_input", None);
    let out_var = cx.names.fresh(Some("stage_output"), "stage_output", None);
    let inputs = cx.inputs.clone();
    let mut outputs = cx.outputs.clone();
    let mut extra_locals = Vec::new();
    if entry.stage == Stage::Vertex
        && !outputs.is_empty()
        && !outputs.iter().any(|o| o.attr == "[[position]]")
    {
        // A vertex function that returns outputs returns a position (as spirv-cross adds
        // one); one the IR never writes is undefined, and zero is one of its values. A
        // vertex function without outputs returns void (rasterization off).
        let var = cx.names.fresh(Some("position_unwritten"), "position", None);
        extra_locals.push(format!("float4 {var} = float4(0.0f);"));
        outputs.push(module::Io {
            var,
            var_type: "float4".into(),
            member: cx.io_names.1.fresh(Some("position_unwritten"), "p", None),
            io_type: "float4".into(),
            attr: "[[position]]".into(),
            param: false,
            custom: None,
        });
    }
    let mut inputs = inputs;
    if entry.stage == Stage::Vertex && cx.view_index {
        // spirv-cross's vertex function reading the view index without multiview takes the
        // instance built-ins and writes the layer; the same interface here, with layer 0 (the
        // one a single-view draw renders).
        for attr in ["instance_id", "base_instance"] {
            let a = format!("[[{attr}]]");
            if !inputs.iter().any(|io| io.attr == a) {
                let member = cx
                    .names
                    .fresh(Some(&format!("{attr}_param")), "unused", None);
                inputs.push(module::Io {
                    var: cx
                        .names
                        .fresh(Some(&format!("{attr}_unused")), "unused", None),
                    var_type: "uint".into(),
                    member,
                    io_type: "uint".into(),
                    attr: a,
                    param: true,
                    custom: None,
                });
            }
        }
        if !outputs.is_empty()
            && !outputs
                .iter()
                .any(|o| o.attr == "[[render_target_array_index]]")
        {
            let var = cx.names.fresh(Some("layer_unwritten"), "layer", None);
            extra_locals.push(format!("uint {var} = 0u;"));
            outputs.push(module::Io {
                var,
                var_type: "uint".into(),
                member: cx.io_names.1.fresh(Some("layer_unwritten"), "l", None),
                io_type: "uint".into(),
                attr: "[[render_target_array_index]]".into(),
                param: false,
                custom: None,
            });
        }
    }
    if cx.sample_rate && !inputs.iter().any(|io| io.attr == "[[sample_id]]") {
        // Per-sample shading: Metal runs a fragment function per sample when it takes the
        // sample index, read or not.
        let member = cx.names.fresh(Some("sample_id_param"), "unused", None);
        inputs.push(module::Io {
            var: cx.names.fresh(Some("sample_id_unused"), "unused", None),
            var_type: "uint".into(),
            member,
            io_type: "uint".into(),
            attr: "[[sample_id]]".into(),
            param: true,
            custom: None,
        });
    }
    let staged: Vec<&module::Io> = inputs.iter().filter(|io| !io.param).collect();
    if !staged.is_empty() {
        writeln!(out, "struct {in_struct}\n{{").ok();
        for io in &staged {
            match &io.custom {
                Some((decls, _)) => {
                    for d in decls {
                        writeln!(out, "    {d}").ok();
                    }
                }
                None => {
                    writeln!(out, "    {} {} {};", io.io_type, io.member, io.attr).ok();
                }
            }
        }
        out.push_str("};\n\n");
    }
    if !outputs.is_empty() {
        writeln!(out, "struct {out_struct}\n{{").ok();
        for io in &outputs {
            match &io.custom {
                Some((decls, _)) => {
                    for d in decls {
                        writeln!(out, "    {d}").ok();
                    }
                }
                None => {
                    writeln!(out, "    {} {} {};", io.io_type, io.member, io.attr).ok();
                }
            }
        }
        out.push_str("};\n\n");
    }
    let mut params = Vec::new();
    if !staged.is_empty() {
        params.push(format!("{in_struct} {in_var} [[stage_in]]"));
    }
    for io in inputs.iter().filter(|io| io.param && io.custom.is_none()) {
        params.push(format!("{} {} {}", io.io_type, io.member, io.attr));
    }
    params.extend(cx.resources.iter().cloned());
    let (qual, ret) = match entry.stage {
        Stage::Compute => ("kernel", "void".to_string()),
        Stage::Vertex => (
            "vertex",
            if outputs.is_empty() {
                "void".to_string()
            } else {
                out_struct.clone()
            },
        ),
        _ => (
            "fragment",
            if outputs.is_empty() {
                "void".to_string()
            } else {
                out_struct.clone()
            },
        ),
    };
    if entry.stage == Stage::Compute {
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
        writeln!(
            out,
            "// numthreads({x}, {y}, {z}): dispatch with threadsPerThreadgroup = ({x}, {y}, {z})."
        )
        .ok();
    }
    if entry.stage == Stage::Fragment && m.has_decoration(entry.func.id(), Op::EarlyFragmentTests) {
        out.push_str("[[early_fragment_tests]]\n");
    }
    writeln!(out, "{qual} {ret} {fn_name}({})\n{{", params.join(", ")).ok();
    for l in &cx.locals {
        writeln!(out, "    {l}").ok();
    }
    for io in &inputs {
        if let Some((_, copies)) = &io.custom {
            writeln!(out, "    {} {} = {{}};", io.var_type, io.var).ok();
            for c in copies {
                writeln!(out, "    {}", c.replace("{io}", &in_var)).ok();
            }
            continue;
        }
        let src = if io.param {
            io.member.clone()
        } else {
            format!("{in_var}.{}", io.member)
        };
        let v = if io.var_type == io.io_type {
            src
        } else if io.var_type.starts_with("array<") {
            // An array of one element (the sample mask) from MSL's scalar.
            format!("{}{{{}({src})}}", io.var_type, elem_of(&io.var_type))
        } else {
            format!("{}({src})", io.var_type)
        };
        writeln!(out, "    {} {} = {v};", io.var_type, io.var).ok();
    }
    if cx.sample_rate
        && let Some(pos) = inputs.iter().find(|io| io.attr == "[[position]]")
        && let Some(id) = inputs.iter().find(|io| io.attr == "[[sample_id]]")
    {
        // Metal's `[[position]]` is the pixel center; per-sample shading reads the sample's
        // position (Vulkan's FragCoord under sample shading), as spirv-cross adjusts it.
        let src = if id.param {
            id.member.clone()
        } else {
            format!("{in_var}.{}", id.member)
        };
        writeln!(
            out,
            "    {v} = float4(float2({v}.xy) + (get_sample_position({src}) - float2(0.5f)), {v}.z, {v}.w);",
            v = pos.var
        )
        .ok();
    }
    for io in &cx.outputs {
        writeln!(out, "    {} {} = {{}};", io.var_type, io.var).ok();
    }
    for l in &extra_locals {
        writeln!(out, "    {l}").ok();
    }
    let args: Vec<String> = cx.env.iter().map(|e| e.name.clone()).collect();
    writeln!(out, "    {body}({});", args.join(", ")).ok();
    if ret != "void" {
        writeln!(out, "    {out_struct} {out_var} = {{}};").ok();
        for io in &outputs {
            if let Some((_, copies)) = &io.custom {
                for c in copies {
                    writeln!(out, "    {}", c.replace("{io}", &out_var)).ok();
                }
                continue;
            }
            let v = if io.var_type == io.io_type {
                io.var.clone()
            } else if io.var_type.starts_with("array<") {
                format!("{}({}[0])", io.io_type, io.var)
            } else {
                format!("{}({})", io.io_type, io.var)
            };
            writeln!(out, "    {out_var}.{} = {v};", io.member).ok();
        }
        writeln!(out, "    return {out_var};").ok();
    }
    out.push_str("}\n");
    out
}
