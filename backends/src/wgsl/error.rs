//! Diagnostics of the WGSL backend. Whatever the module holds that WGSL (as naga 30 validates
//! it) cannot express, or cannot express with exactly the meaning the SPIR-V backend gives
//! it, is refused with a diagnostic naming the construct and, where the module carries one,
//! its source position; the backend never emits WGSL that naga rejects on purpose, and never
//! a guess.
//!
//! | code | meaning |
//! |---|---|
//! | OSB0201 | the `Legal` module was prepared for another target (run `prepare(m, Target::Wgsl)`) |
//! | OSB0202 | no entry point to emit: the module has none, `Options::entry` names none, or several exist and `Options::entry` does not choose |
//! | OSB0203 | a stage WGSL has no entry point for (geometry, hull, domain, mesh, amplification, the ray-tracing stages) |
//! | OSB0204 | a type WGSL cannot express: 64-bit integers and floats, 8- and 16-bit integers, integer, bool or `f16` matrices, `f16` texels, arrays of textures or buffers, texel buffers legalization could not make storage buffers (`texel_buffers`), subpass inputs, 1D array textures, storage textures of unknown format, `bool` or array stage inputs and outputs |
//! | OSB0205 | a buffer layout WGSL's `@align`/`@size` cannot state: a member whose offset is not a multiple of its WGSL alignment (DXC's relaxed vector placement), an array or matrix stride other than WGSL's, a struct used in buffers under two layouts that place its fields or their elements differently |
//! | OSB0206 | control flow the statement rebuilder cannot express: an unstructured edge, a block reached twice (a switch case falling into another never reaches the backend: legalization copies it, `case_copies`) |
//! | OSB0207 | an operation whose operands WGSL cannot take: atomics on other than 32-bit integers or on texels, a whole struct or array loaded or stored when it holds atomics, a run-time texel offset, a pointer argument that is not a whole variable, a whole store to a buffer of a struct declared with a leading padding member (its first member is at a non-zero offset), a derivative or texture operation on `f16` values |
//! | OSB0208 | an operation or intrinsic without a WGSL mapping: wave and quad operations, memory barriers without execution synchronization, `query_lod`, min-LOD clamps, sparse residency, textures of struct texels, sampling integer textures, interpolation at centroid/sample/offset, `GetRenderTargetSampleCount`, `GetAttributeAtVertex` |
//! | OSB0209 | implicit derivatives outside fragment shaders (WGSL has no compute derivatives) |
//! | OSB0210 | a malformed module (missing terminator, operand of the wrong kind): verify it first |
//! | OSB0211 | a resource or built-in WGSL (as naga 30 validates it) does not have: two resources at one binding, subgroup built-ins in a compute shader with a multi-dimensional workgroup, built-ins without a WGSL spelling (clip and cull distances, layer, viewport index, view index outside vertex and fragment inputs, shading rate, stencil reference, ...) |
//! | OSB0212 | *warning*: a binding-map entry places no resource of the shader (`crate::bindings`) |
//! | OSB0213 | *warning*: a vertex shader's point size (`PSIZE`) that is always 1.0 is left out (WebGPU draws one-pixel points; WGSL has no point-size output); any other point size is OSB0211 |
//! | OSB0214 | *warning*: `precise` is not kept (WGSL cannot forbid contraction; `crate::precise`) |

/// An error of the backend: one diagnostic (the text backends' one error type).
pub type WgslError = crate::text::error::TextError;

/// Result of the backend's internal steps.
pub(crate) type R<T> = Result<T, WgslError>;

pub(crate) const WRONG_TARGET: &str = "OSB0201";
pub(crate) const ENTRY: &str = "OSB0202";
pub(crate) const STAGE: &str = "OSB0203";
pub(crate) const TYPE: &str = "OSB0204";
pub(crate) const LAYOUT: &str = "OSB0205";
pub(crate) const CONTROL: &str = "OSB0206";
pub(crate) const OPERANDS: &str = "OSB0207";
pub(crate) const UNMAPPED: &str = "OSB0208";
pub(crate) const DERIVATIVES: &str = "OSB0209";
pub(crate) const MALFORMED: &str = "OSB0210";
pub(crate) const RESOURCE: &str = "OSB0211";

/// A malformed-module error (a module the verifier would reject).
pub(crate) fn malformed(what: impl Into<String>) -> WgslError {
    WgslError::new(MALFORMED, what)
}
