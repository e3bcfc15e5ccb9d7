//! `precise` where a target cannot keep it.
//!
//! HLSL's `precise` forbids reassociating or fusing an operation (SPIR-V `NoContraction`, GLSL
//! `precise`). WGSL has no way to say it, and MSL only through per-operation helpers this
//! backend does not emit, so Metal's default fast math may contract `a * b + c` into an `fma`.
//! Such a target warns instead of dropping it silently (a refusal under `-WX`):
//!
//! | code | meaning |
//! |---|---|
//! | OSB0214 | *warning*: WGSL cannot keep `precise`; the operation may be contracted |
//! | OSB0313 | *warning*: the MSL output does not keep `precise`; Metal's fast math may contract the operation |

use oneshader_ir::diag::Diagnostic;
use oneshader_ir::structure::Func;
use oneshader_ir::{InstId, Op};

use crate::{Legal, Target};

/// One warning for the `precise` operations of the module that `target` cannot keep, at the
/// first one's HLSL position and counting the others; none for targets that keep them.
pub fn unkept(legal: &Legal<'_>, target: Target) -> Vec<Diagnostic> {
    let (code, why) = match target {
        Target::Wgsl => (
            "OSB0214",
            "WGSL has no way to forbid contraction: this operation may be reassociated or fused",
        ),
        Target::Msl => (
            "OSB0313",
            "the MSL output does not keep it: Metal's default fast math may fuse this operation \
             into an `fma`",
        ),
        _ => return Vec::new(),
    };
    let m = legal.module();
    let ops: Vec<InstId> = m
        .functions()
        .into_iter()
        .flat_map(|f: Func| f.blocks(m))
        .flat_map(|b| m.children(b.id()).collect::<Vec<_>>())
        .filter(|&i| m.has_decoration(i, Op::Precise))
        .collect();
    let Some(&first) = ops.first() else {
        return Vec::new();
    };
    let mut d =
        Diagnostic::warning(code, format!("`precise` is not kept: {why}")).at_inst(m, first);
    if ops.len() > 1 {
        let n = ops.len() - 1;
        let s = if n == 1 { "" } else { "s" };
        d = d.with_note(format!(
            "{n} more `precise` operation{s} in the module {} not kept either",
            if n == 1 { "is" } else { "are" }
        ));
    }
    vec![d]
}
