//! Diagnostics of the GLSL backend. Whatever the module holds that GLSL 4.50 for Vulkan
//! (with the extensions the backend uses) cannot express, or cannot express with exactly the
//! meaning the SPIR-V backend gives it, is refused with a diagnostic naming the construct; the
//! backend never emits GLSL that glslang rejects, and never a guess.
//!
//! | code | meaning |
//! |---|---|
//! | OSB0101 | the `Legal` module was prepared for another target (run `prepare(m, Target::Glsl)`) |
//! | OSB0102 | no entry point to emit: the module has none (a library), `Options::entry` names none, or several exist and `Options::entry` does not choose |
//! | OSB0103 | a domain entry point that does not state its domain, spacing and winding; a built-in output in a vertex stream other than 0; a built-in without a GLSL variable in the stage |
//! | OSB0104 | a type GLSL cannot express here (integer or bool matrix, `string`, `type`, a 16-bit texel type, a 64-bit sampled texel type, a resource or pointer inside a buffer) |
//! | OSB0105 | a buffer layout GLSL cannot state even with the split-vector and flattened-struct shims: an array or matrix stride, or an offset inside an array of structs, that none of std140, std430 and scalar produce, mixed majorness or empty structs inside an array of structs; names the buffer and member |
//! | OSB0106 | retired (was: a `bool` in a buffer; `bool_storage` stores them as `u32` for every target, and the boundary's OSG0005 holds it) |
//! | OSB0107 | control flow the statement rebuilder cannot express: a switch case falling through to a case that cannot follow it, or an edge the structured analysis does not classify (verify the module first); recursion is the boundary's OSG0004 |
//! | OSB0108 | an operation with operands GLSL cannot map exactly (`switch` on a 64-bit selector, a run-time texel offset outside a gather, a constant one outside -8..7, `quad_read_lane_at` with a run-time lane, a level-zero depth comparison on an arrayed or cube texture, float atomics, byte-address access of non-32-bit data, a pointer argument that is not a local variable, an atomic, `out` argument or run-time-indexed store on a buffer member split into components or flattened into fields) |
//! | OSB0109 | an intrinsic or built-in without a GLSL mapping (`render_target_sample_count`, an `attribute_at_vertex` operand that does not lead back to a `flat` fragment input, a sparse-residency subpass load, 1D or buffer read, or gather with four computed offsets, an interpolation operand that does not lead back to a fragment input) |
//! | OSB0110 | implicit derivatives reached from an entry point that has none (see the SPIR-V backend's OSB0011) |
//! | OSB0111 | a malformed module (missing terminator, operand of the wrong kind): verify it first |
//! | OSB0112 | a stage interface beyond the limits glslang compiles against (its default resources): a fragment output location of 32 or more, any other location of 4095 or more, more than 8 clip or cull distances (or more than 8 together) |

/// An error of the backend: one diagnostic (the text backends' one error type).
pub type GlslError = crate::text::error::TextError;

/// Result of the backend's internal steps.
pub(crate) type R<T> = Result<T, GlslError>;

pub(crate) const WRONG_TARGET: &str = "OSB0101";
pub(crate) const ENTRY: &str = "OSB0102";
pub(crate) const STAGE: &str = "OSB0103";
pub(crate) const TYPE: &str = "OSB0104";
pub(crate) const LAYOUT: &str = "OSB0105";
pub(crate) const CONTROL: &str = "OSB0107";
pub(crate) const OPERANDS: &str = "OSB0108";
pub(crate) const UNMAPPED: &str = "OSB0109";
pub(crate) const DERIVATIVES: &str = "OSB0110";
pub(crate) const MALFORMED: &str = "OSB0111";
pub(crate) const LIMITS: &str = "OSB0112";

/// A malformed-module error (a module the verifier would reject).
pub(crate) fn malformed(what: impl Into<String>) -> GlslError {
    GlslError::new(MALFORMED, what)
}
