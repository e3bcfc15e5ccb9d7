//! Legalization that Vulkan's SPIR-V needs at every optimization level, as DXC's legalization
//! does at `-O0`:
//!
//! - **Interpolation** (`interpolate_at_*`, HLSL `EvaluateAttribute*`) takes a pointer to a
//!   fragment-stage input. HLSL passes the attribute by value into the entry point's body, so
//!   the backend can follow the copy back to the input only once the body is inlined into the
//!   entry wrapper: when a function other than an entry point interpolates, calls are inlined.
//!   So with reading an input at a vertex (`attribute_at_vertex`, HLSL
//!   `GetAttributeAtVertex`), whose operand the backend follows back to a `flat` input.
//! - **Texel offsets** of image instructions other than gathers must be constants in Vulkan.
//!   An offset computed from the variable of an `[unroll]` loop becomes one once the loop is
//!   unrolled: when an image instruction has an offset that is not a constant, calls are
//!   inlined (an offset may be a parameter) and SROA, mem2reg, constant folding, unrolling and
//!   CFG simplification run to a fixed point.
//!
//! A module needing neither (the usual case, and every module the `-O` optimizer has already
//! handled) is left untouched; what remains afterwards is refused by the backend (OSB0012,
//! OSB0013) as before.

use oneshader_ir::{Intrinsic, Module, Op};

use crate::manager::PassManager;
use crate::{Pass, PassError};

const NAME: &str = "required_constants";

/// The pass (see the module documentation).
#[derive(Clone, Copy, Debug, Default)]
pub struct RequiredConstants;

/// What a module needs: (interpolation outside an entry point, a non-constant texel offset).
fn needs(m: &Module) -> (bool, bool) {
    let mut interpolate = false;
    let mut offsets = false;
    for f in m.functions() {
        let entry = m.find_decoration(f.id(), Op::EntryPoint).is_some();
        for b in f.blocks(m) {
            for i in m.children_snapshot(b.id()) {
                let op = m.op(i);
                if op == Op::CallIntrinsic && !entry {
                    let which = m.imm_operand(i, 0).and_then(Intrinsic::from_u32);
                    interpolate |= matches!(
                        which,
                        Some(
                            Intrinsic::InterpolateAtCentroid
                                | Intrinsic::InterpolateAtSample
                                | Intrinsic::InterpolateAtOffset
                                | Intrinsic::AttributeAtVertex
                        )
                    );
                }
                if op != Op::Gather
                    && op != Op::GatherCmp
                    && let Some(k) = op.offset_index()
                    && let Some(off) = m.try_operand(i, k)
                    && !m.try_op(off).is_some_and(|o| o.is_constant())
                {
                    offsets = true;
                }
            }
        }
        if interpolate && offsets {
            break;
        }
    }
    (interpolate, offsets)
}

impl Pass for RequiredConstants {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        let (interpolate, offsets) = needs(m);
        if !interpolate && !offsets {
            return Ok(false);
        }
        let mut pm = PassManager::new();
        pm.add(Box::new(crate::inline::Inline::default()));
        if offsets {
            pm.add_fixed_point(
                vec![
                    Box::new(crate::sroa::Sroa),
                    Box::new(crate::mem2reg::Mem2Reg),
                    Box::new(crate::combine::Combine),
                    Box::new(crate::unroll::Unroll),
                    Box::new(crate::simplify_cfg::SimplifyCfg),
                ],
                crate::pipeline::MAX_ROUNDS,
            );
        }
        pm.run(m)?;
        Ok(true)
    }
}
