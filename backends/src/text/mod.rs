//! What the text backends (GLSL, WGSL, MSL) share: identifiers ([`names`]), the choice of the
//! entry point and what it reaches ([`usage`]), which values print inline ([`roles`]), where a
//! statement list sits among the breakable statements around it ([`Region`]), and the
//! locations atomics touch ([`atomics`], for WGSL and MSL, whose atomics need atomic types), the
//! statement walker of all three ([`walker`]), the per-function helpers of their printers
//! ([`printer`]), the prologue of their drivers ([`driver`]), the source lines they mark under `-Zi`
//! ([`lines`]), and their one error type ([`error`]).

pub(crate) mod atomics;
pub(crate) mod driver;
pub mod error;
pub(crate) mod expr;
pub(crate) mod intrinsics;
pub(crate) mod lines;
pub(crate) mod names;
pub(crate) mod printer;
pub(crate) mod roles;
pub(crate) mod table;
pub(crate) mod usage;
pub(crate) mod walker;

use oneshader_ir::diag::Span;
use oneshader_ir::{InstId, Module, Op};

/// The source range of instruction `i` (its `src_loc` decoration, which the front end puts on
/// intrinsic calls, texture reads and other instructions it can place), if it has one: a
/// refusal points at the HLSL it came from.
pub(crate) fn span_of(m: &Module, i: InstId) -> Option<Span> {
    m.src_span(i)
}

/// A backend's refusal as the one diagnostic of an `Err`, at the source position of
/// instruction `at` when there is one.
pub(crate) fn refusal_at(
    m: &Module,
    at: Option<InstId>,
    code: &'static str,
    msg: impl Into<String>,
) -> Vec<oneshader_ir::Diagnostic> {
    let d = oneshader_ir::Diagnostic::error(code, msg);
    vec![match at {
        Some(i) => d.at_inst(m, i),
        None => d,
    }]
}

/// True when `ty`, in buffer memory whose matrices are row-major when `row_major` (the
/// field's or global's own majorness), is a column-major matrix or an array (of arrays) of
/// them: what legalization's `transpose_storage` leaves in no buffer of WGSL or MSL, whose
/// backends print every buffer matrix by HLSL rows.
pub(crate) fn column_major_matrix(m: &Module, mut ty: InstId, row_major: bool) -> bool {
    while matches!(m.op(ty), Op::Array | Op::RuntimeArray) {
        ty = m.operand(ty, 0);
    }
    !row_major && m.op(ty) == Op::Matrix
}

/// A breakable statement around the current position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Brk {
    Loop(usize),
    Switch(usize),
}

/// Where a statement list sits.
#[derive(Clone, Debug, Default)]
pub(crate) struct Region {
    /// Enclosing loops and switches, innermost last.
    pub breakables: Vec<Brk>,
    /// The loop whose body's top level this list is (a `continue` at its end is implicit).
    pub loop_top: Option<usize>,
    /// The switch whose case this list is the top level of (reaching another case target
    /// is a fall-through).
    pub case_top: Option<usize>,
    /// The function body's own list (a `return;` at its end is implicit).
    pub fn_top: bool,
}

impl Region {
    /// A list nested one level deeper (an `if` arm).
    pub fn nested(&self) -> Region {
        Region {
            breakables: self.breakables.clone(),
            loop_top: None,
            case_top: None,
            fn_top: false,
        }
    }
}
