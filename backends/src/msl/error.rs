//! Diagnostics of the MSL backend. Whatever the module holds that the Metal Shading Language
//! cannot express, or that this backend cannot express with exactly the meaning the SPIR-V
//! backend gives it, is refused with a diagnostic naming the construct and, where the module
//! carries one, its HLSL source position; the backend never emits a guess.
//!
//! | code | meaning |
//! |---|---|
//! | OSB0301 | the `Legal` module was prepared for another target (run `prepare(m, Target::Msl)`) |
//! | OSB0302 | no entry point to emit: the module has none, `Options::entry` names none, or several exist and `Options::entry` does not choose |
//! | OSB0303 | a stage this backend has no entry point for (geometry, hull, domain, mesh, amplification, the ray-tracing stages) |
//! | OSB0304 | a type the backend does not express: 64-bit integers and floats, 8- and 16-bit integers, `half`, integer or bool matrices, textures and samplers (not yet), arrays of resources, `bool` or struct stage IO |
//! | OSB0305 | a buffer layout MSL's natural layout with padding members and packed vectors cannot state (a matrix stride other than MSL's column stride, an array stride other than MSL's element size, a member placed before MSL can place it) |
//! | OSB0306 | control flow the statement rebuilder cannot express: a switch case falling through to a case that cannot follow it, an unstructured edge |
//! | OSB0307 | an operation whose operands MSL cannot take: atomics on other than 32-bit integers or on texels, a whole struct or array loaded or stored when it holds atomics, pointer arguments that are not whole variables |
//! | OSB0308 | an operation or intrinsic without an MSL mapping in this backend: texture operations, wave operations, memory barriers without execution synchronization, ray queries, mesh and geometry operations, interpolation at a position |
//! | OSB0309 | implicit derivatives outside fragment shaders |
//! | OSB0310 | a malformed module (missing terminator, operand of the wrong kind): verify it first |
//! | OSB0311 | a resource, built-in or binding MSL does not have or the binding map does not give: built-ins without an MSL attribute, push constants, a binding-map entry that is missing or not a valid index |

use oneshader_ir::Diagnostic;

/// An error of the backend: one diagnostic (boxed to keep `Result`s small).
#[derive(Clone, Debug)]
pub struct MslError(pub Box<Diagnostic>);

impl MslError {
    /// An error with `code` and `message`.
    pub fn new(code: &'static str, message: impl Into<String>) -> MslError {
        MslError(Box::new(Diagnostic::error(code, message)))
    }
}

impl From<MslError> for Diagnostic {
    fn from(e: MslError) -> Diagnostic {
        *e.0
    }
}

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

/// A malformed-module error (a module the verifier would reject).
pub(crate) fn malformed(what: impl Into<String>) -> MslError {
    MslError::new(MALFORMED, what)
}
