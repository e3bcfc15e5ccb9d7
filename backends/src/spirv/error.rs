//! Diagnostics of the SPIR-V backend. Whatever the module holds that SPIR-V (or the chosen
//! target environment) cannot express is reported with a diagnostic naming the construct;
//! the backend never panics on a module it cannot translate.
//!
//! | code | meaning |
//! |---|---|
//! | OSB0001 | a type SPIR-V cannot express here (integer or bool matrix, `string`, `type`, a generic parameter, an opaque type inside a buffer) |
//! | OSB0002 | a generic left unspecialized (`specialize` as a callee or type): run the legalization pipeline first |
//! | OSB0003 | a function declaration without a body (an import): link the module first |
//! | OSB0004 | a pointer that SPIR-V's logical addressing cannot pass (a call or function parameter taking a resource or buffer pointer; a block parameter of pointer type): run the legalization pipeline first |
//! | OSB0005 | a stage mode SPIR-V cannot express (`pow2` tessellation partitioning) |
//! | OSB0006 | an operation the target environment does not have (wave operations before SPIR-V 1.3, `render_target_sample_count`; mesh shading and ray-tracing entry points before SPIR-V 1.4 (ray queries need no more than SPIR-V 1.0, as `SPV_KHR_ray_query` says); a library, which needs `Linkage`, in a Vulkan environment) |
//! | OSB0007 | an operation with operands the backend cannot map (e.g. `buffer_load` of a type that is not made of 32-bit scalars, `array_length` of a pointer that is not a buffer's runtime array, float atomics) |
//! | OSB0008 | a buffer type without a valid layout (a runtime array that is not last) |
//! | OSB0009 | a malformed module (missing terminator, a branch to the entry block, an operand of the wrong kind): verify it first |
//! | OSB0010 | an instruction longer than SPIR-V's 65535 words (a constant or `construct` of more than 65532 elements of one flat array; any other oversized instruction by its opcode, named after and placed at the global or function whose emission wrote it), or a `switch` of more than 16,383 cases (SPIR-V's limit per OpSwitch) |
//! | OSB0011 | implicit derivatives (implicit-LOD sampling, `query_lod`, `ddx`/`ddy`) reached from an entry point that has none: a stage other than fragment and compute, or a compute entry point with a `numthreads` no derivative group fits (x or y odd and the thread count not a multiple of 4) |
//! | OSB0013 | a texel offset computed at run time on an image instruction other than a gather, for a Vulkan target (Vulkan takes run-time offsets only on gathers) |
//! | OSB0014 | `Options::entry_point_name` (dxc's `-fspv-entrypoint-name`) given for a module of more than one entry point, which would all get the one name |
//! | OSB0015 | the module needs a SPIR-V extension `Options::allowed_extensions` (dxc's `-fspv-extension=`) does not permit |
//! | OSB0012 | an interpolation intrinsic (`interpolate_at_*`, from HLSL `EvaluateAttribute*`) whose operand does not lead back to a fragment-stage input, or an `attribute_at_vertex` (`GetAttributeAtVertex`) whose operand does not lead back (through copies, fields and components) to a `flat` (`nointerpolation`) fragment-stage input |

use oneshader_ir::Diagnostic;

/// An error of the backend: one diagnostic (boxed to keep `Result`s small on the hot path).
#[derive(Clone, Debug)]
pub struct EmitError(pub Box<Diagnostic>);

impl EmitError {
    /// An error with `code` and `message`.
    pub fn new(code: &'static str, message: impl Into<String>) -> EmitError {
        EmitError(Box::new(Diagnostic::error(code, message)))
    }

    /// Places the error at the source position of instruction `i` (if it has one).
    pub fn at(mut self, m: &oneshader_ir::Module, i: Option<oneshader_ir::InstId>) -> EmitError {
        if let Some(i) = i {
            *self.0 = (*self.0).clone().at_inst(m, i);
        }
        self
    }

    /// Adds a note.
    pub fn note(mut self, note: impl Into<String>) -> EmitError {
        *self.0 = (*self.0).clone().with_note(note);
        self
    }
}

impl From<EmitError> for Diagnostic {
    fn from(e: EmitError) -> Diagnostic {
        *e.0
    }
}

/// Result of the backend's internal steps.
pub(crate) type R<T> = Result<T, EmitError>;

pub(crate) const UNSUPPORTED_TYPE: &str = "OSB0001";
pub(crate) const UNSPECIALIZED: &str = "OSB0002";
pub(crate) const DECLARATION: &str = "OSB0003";
pub(crate) const POINTER: &str = "OSB0004";
pub(crate) const STAGE: &str = "OSB0005";
pub(crate) const TARGET: &str = "OSB0006";
pub(crate) const OPERANDS: &str = "OSB0007";
pub(crate) const LAYOUT: &str = "OSB0008";
pub(crate) const MALFORMED: &str = "OSB0009";
pub(crate) const TOO_LARGE: &str = "OSB0010";
pub(crate) const DERIVATIVES: &str = "OSB0011";
pub(crate) const INTERPOLANT: &str = "OSB0012";
pub(crate) const OFFSET_NOT_CONSTANT: &str = "OSB0013";
pub(crate) const ENTRY_NAME: &str = "OSB0014";
pub(crate) const EXTENSION: &str = "OSB0015";
