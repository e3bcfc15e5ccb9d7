//! Legalization per target: the passes that turn any verified module into one a backend can
//! print without working anything out for itself, and the check that a module is legal for a
//! target (the backends' boundary runs it; see `oneshader_backends::Legal`).
//!
//! [`crate::pipeline::legalize`] builds the pipeline of a [`Target`]; it runs after the
//! optimizer, before every backend:
//!
//! | pass | targets | what the module no longer holds afterwards |
//! |---|---|---|
//! | `specialize_generic` | all | generics and `specialize` values |
//! | `specialize_resources` | all | functions taking resource or buffer pointers |
//! | `required_constants` | spirv | interpolation outside the entry point, texel offsets computed from `[unroll]` loop variables (inlining, unrolling; a no-op when neither occurs) |
//! | `own_merges` | all | selections or switches merging into a loop's break or continue block |
//! | `bool_storage` | all | bools in `uniform`, `storage_buffer` or `push_constant` memory (stored as `u32`, as DXC does) |
//! | `intrinsic_widths` | all | bit intrinsics (`countbits`, `reversebits`, `firstbithigh`, `firstbitlow`) of integers that are not 32-bit, derivatives of floats that are not (computed on 32-bit halves or widened values, as DXC does) |
//! | `image_widths` | all | textures and storage images of 8- or 16-bit elements (they hold 32-bit ones, converted at each read and write, as DXC does) |
//! | `texel_buffers` | WGSL | texel buffers (`Buffer<T>`, `RWBuffer<T>`) whose texels are their element's bytes (32-bit scalars, 2- or 4-vectors; unknown or matching format): storage buffers `rtarray<T>` at the same binding |
//! | `transpose_storage` | WGSL, MSL | column-major matrices in `uniform`, `storage_buffer` or `push_constant` memory (stored as their row-major transposes) |
//! | `params_to_vars` | text (GLSL, WGSL, MSL) | parameters of blocks other than the entry block |
//! | `case_copies` | WGSL | switch cases falling through to another case (each gets a copy of the case it falls into) |
//!
//! [`check`] is the other side of that table: one diagnostic per rule a module breaks, with
//! the pass that would have fixed it. A module that verifies and passes `check` for a target
//! is what that target's backend accepts; a backend refuses only what the target language
//! cannot express at all.
//!
//! | code | rule |
//! |---|---|
//! | OSG0001 | no generic and no `specialize` value remains |
//! | OSG0002 | a function parameter of pointer type points into `function`, `private` or `workgroup` memory |
//! | OSG0003 | every selection and switch has a merge block of its own |
//! | OSG0004 | no entry point reaches a recursive function (every target forbids recursion; no pass removes it) |
//! | OSG0005 | no bool in host-shared memory |
//! | OSG0006 | text targets: no block parameters outside the entry block |
//! | OSG0007 | WGSL: no switch case falls through to another case |
//! | OSG0009 | WGSL, MSL: no column-major matrix in host-shared memory |
//! | OSG0010 | no bit intrinsic of integers and no derivative of floats other than 32-bit (Vulkan's `OpBitCount`.. and `OpDPdx`.. take 32-bit operands: VUID-StandaloneSpirv-Base-04781) |
//! | OSG0011 | no texture or storage image of 8- or 16-bit elements (Vulkan: VUID-StandaloneSpirv-OpTypeImage-04656) |
//!
//! A legalization pass may also refuse what it cannot legalize, with a code of this family
//! ([`crate::PassError::refusal`]):
//!
//! | code | pass | refusal |
//! |---|---|---|
//! | OSG0008 | `case_copies` | a pointer defined in a switch case another case falls into, used after the switch (the copy of the case cannot hand it on: a pointer cannot be held in a variable) |
//! | OSG0012 | `image_widths` | a texel pointer (`texel_addr`, image atomics) into an image of 16-bit elements (stored as 32 bits, it has no 16-bit texel to point to) |

use oneshader_ir::analysis::ModuleInfo;
use oneshader_ir::diag::Diagnostic;
use oneshader_ir::print::print_inst;
use oneshader_ir::{AddressSpace, Module, Op};

/// The language a module is legalized for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Target {
    /// SPIR-V (Vulkan and universal environments).
    Spirv,
    /// GLSL 4.50 for Vulkan.
    Glsl,
    /// WGSL.
    Wgsl,
    /// Metal Shading Language.
    Msl,
}

impl Target {
    /// True for the targets that print source text (every one but SPIR-V): they need block
    /// parameters turned into variables.
    pub fn is_text(self) -> bool {
        !matches!(self, Target::Spirv)
    }

    /// True for the targets whose buffer matrices are declared by HLSL rows only (WGSL and
    /// MSL have column matrices, which are HLSL's rows): `transpose_storage` stores their
    /// column-major matrices as row-major transposes.
    pub fn stores_matrices_by_rows(self) -> bool {
        matches!(self, Target::Wgsl | Target::Msl)
    }

    /// The target's name as the CLI spells it.
    pub fn name(self) -> &'static str {
        match self {
            Target::Spirv => "spirv",
            Target::Glsl => "glsl",
            Target::Wgsl => "wgsl",
            Target::Msl => "msl",
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Checks that `m` is legal for `target`: every rule of the module table above, with `info`
/// the module's analyses (`ModuleInfo::new(m)`). Returns one diagnostic per broken rule and
/// offending instruction (at most a few per rule); empty when the module is legal. Assumes a
/// module that verifies.
pub fn check(m: &Module, target: Target, info: &ModuleInfo) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for e in info.entry_points() {
        if let Some(f) = e.recursive() {
            out.push(Diagnostic::error(
                "OSG0004",
                format!(
                    "entry point `{}` reaches @{}, which calls itself (directly or through other \
                     functions); {target} forbids recursion",
                    e.name(),
                    m.name(f.id()).unwrap_or("?")
                ),
            ));
        }
    }
    let run_pass = |pass: &str| format!("run the `legalize({target})` pipeline (pass `{pass}`)");
    if let Some(g) = m.generics().first() {
        out.push(
            Diagnostic::error(
                "OSG0001",
                format!(
                    "generic @{} is still in the module; backends print only specialized code",
                    m.name(g.id()).unwrap_or("?")
                ),
            )
            .with_note(run_pass("specialize_generic")),
        );
    }
    for f in m.functions() {
        for p in f.params(m) {
            let Some(t) = m.ty(p.id()) else { continue };
            if m.op(t) != Op::Ptr {
                continue;
            }
            let passable = matches!(
                m.address_space(t),
                Some(AddressSpace::Function | AddressSpace::Private | AddressSpace::Workgroup)
            );
            if !passable {
                out.push(
                    Diagnostic::error(
                        "OSG0002",
                        format!(
                            "function @{} takes a parameter of type `{}`: a pointer into a \
                             resource or buffer cannot be passed to a function",
                            m.name(f.id()).unwrap_or("?"),
                            print_inst(m, t)
                        ),
                    )
                    .with_note(run_pass("specialize_resources")),
                );
            }
        }
    }
    if let Some(term) = crate::own_merges::has_shared_merges(m) {
        let f = m.func_of(term).and_then(|f| m.name(f.id())).unwrap_or("?");
        out.push(
            Diagnostic::error(
                "OSG0003",
                format!(
                    "in @{f}, `{}` merges into a loop's break or continue block; each selection \
                     needs a merge block of its own",
                    print_inst(m, term)
                ),
            )
            .with_note(run_pass("own_merges")),
        );
    }
    if let Some(g) = crate::bool_storage::holds_shared_bools(m) {
        out.push(
            Diagnostic::error(
                "OSG0005",
                format!(
                    "global @{} holds bools in memory a host shares; they are stored as `u32`",
                    m.name(g).unwrap_or("?")
                ),
            )
            .with_note(run_pass("bool_storage")),
        );
    }
    if target.is_text()
        && let Some(b) = crate::params_to_vars::first_block_with_params(m)
    {
        let f = m
            .func_of(b.id())
            .and_then(|f| m.name(f.id()))
            .unwrap_or("?");
        out.push(
            Diagnostic::error(
                "OSG0006",
                format!(
                    "in @{f}, a block other than the entry block has parameters; {target} has \
                     no block arguments"
                ),
            )
            .with_note(run_pass("params_to_vars")),
        );
    }
    if target.stores_matrices_by_rows()
        && let Some(g) = crate::transpose_storage::first_column_major(m)
    {
        out.push(
            Diagnostic::error(
                "OSG0009",
                format!(
                    "global @{} holds column-major matrices; {target} stores a buffer's \
                     matrices by HLSL rows, so they are stored as their row-major transposes",
                    m.name(g).unwrap_or("?")
                ),
            )
            .with_note(run_pass("transpose_storage")),
        );
    }
    if let Some(i) = crate::intrinsic_widths::first_unsupported_width(m) {
        let f = m.func_of(i).and_then(|f| m.name(f.id())).unwrap_or("?");
        out.push(
            Diagnostic::error(
                "OSG0010",
                format!(
                    "in @{f}, `{}` applies a bit intrinsic or a derivative to a width other \
                     than 32 bits; {target} takes 32-bit operands only",
                    print_inst(m, i)
                ),
            )
            .with_note(run_pass("intrinsic_widths")),
        );
    }
    if let Some(g) = crate::image_widths::first_narrow_image(m) {
        out.push(
            Diagnostic::error(
                "OSG0011",
                format!(
                    "global @{} holds an image of 16-bit elements; {target} images hold \
                     32-bit elements",
                    m.name(g).unwrap_or("?")
                ),
            )
            .with_note(run_pass("image_widths")),
        );
    }
    if target == Target::Wgsl
        && let Some(b) = crate::case_copies::first_fallthrough(m)
    {
        let f = m
            .func_of(b.id())
            .and_then(|f| m.name(f.id()))
            .unwrap_or("?");
        out.push(
            Diagnostic::error(
                "OSG0007",
                format!(
                    "in @{f}, a switch case falls through to another case; {target} cases \
                     never fall through"
                ),
            )
            .with_note(run_pass("case_copies")),
        );
    }
    out
}
