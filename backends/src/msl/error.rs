//! Diagnostics of the MSL backend. Whatever the module holds that the Metal Shading Language
//! cannot express, or that this backend cannot express with exactly the meaning the SPIR-V
//! backend gives it, is refused with a diagnostic naming the construct and, where the module
//! carries one, its HLSL source position; the backend never emits a guess.
//!
//! | code | meaning |
//! |---|---|
//! | OSB0301 | the `Legal` module was prepared for another target (run `prepare(m, Target::Msl)`) |
//! | OSB0302 | no entry point to emit: the module has none, `Options::entry` names none, or several exist and `Options::entry` does not choose; or a name that is not an MSL identifier |
//! | OSB0303 | a stage this backend has no entry point for (geometry, hull, domain, mesh, amplification, the ray-tracing stages) |
//! | OSB0304 | a type the backend does not express: `double`, 8-bit integers, integer, bool and `half` matrices, unsized arrays of buffers, arrays of textures without a constant length, subpass inputs, multisampled array textures, acceleration structures, `bool`, struct, 16- and 64-bit stage IO, textures of other than 32-bit texels |
//! | OSB0305 | a buffer layout MSL's natural layout with padding members, packed vectors and 4-vector arrays cannot state |
//! | OSB0306 | control flow the statement rebuilder cannot express: a switch case falling through to a case that cannot follow it, an unstructured edge |
//! | OSB0307 | an operation whose operands the backend cannot take: 64-bit atomics, atomics on texels, a whole struct or array loaded or stored when it holds atomics, pointer arguments into atomic, packed or padded locations, run-time texel offsets |
//! | OSB0308 | an operation or intrinsic without an MSL mapping in this backend: wave operations in vertex functions, memory-only barriers, intrinsics on 16- and 64-bit values outside the mapped set, some texture forms, fine derivatives, ray queries, mesh and geometry operations, `attribute_at_vertex` (`GetAttributeAtVertex`) |
//! | OSB0309 | implicit derivatives outside fragment shaders |
//! | OSB0310 | a malformed module (missing terminator, operand of the wrong kind): verify it first |
//! | OSB0311 | a resource, built-in or binding the backend does not map: built-ins without an MSL attribute here, a binding-map entry (resource or push-constant block) that is missing, a buffer at the buffer-sizes buffer's index |
//! | OSB0312 | a construct the chosen MSL version (`Options::version`, `--msl-version`) lacks, named with the version that has it |
//! | OSB0313 | *warning*: `precise` is not kept (Metal's fast math may fuse the operation; `crate::precise`) |
//!
//! docs/diagnostics.md lists each code's cases in full.

/// An error of the backend: one diagnostic (the text backends' one error type).
pub type MslError = crate::text::error::TextError;

/// Result of the backend's internal steps.
pub(crate) type R<T> = Result<T, MslError>;

pub(crate) const WRONG_TARGET: &str = "OSB0301";
pub(crate) const ENTRY: &str = "OSB0302";
pub(crate) const STAGE: &str = "OSB0303";
pub(crate) const TYPE: &str = "OSB0304";
pub(crate) const LAYOUT: &str = "OSB0305";
pub(crate) const CONTROL: &str = "OSB0306";
pub(crate) const OPERANDS: &str = "OSB0307";
pub(crate) const UNMAPPED: &str = "OSB0308";
pub(crate) const DERIVATIVES: &str = "OSB0309";
pub(crate) const MALFORMED: &str = "OSB0310";
pub(crate) const RESOURCE: &str = "OSB0311";
pub(crate) const VERSION: &str = "OSB0312";

/// A malformed-module error (a module the verifier would reject).
pub(crate) fn malformed(what: impl Into<String>) -> MslError {
    MslError::new(MALFORMED, what)
}
