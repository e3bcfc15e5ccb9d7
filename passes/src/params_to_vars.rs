//! `params_to_vars`: block parameters become function-local variables, for the text targets
//! (GLSL, WGSL, MSL), which have no phi and no block arguments.
//!
//! Every parameter of a block other than the entry block (whose parameters are the
//! function's) becomes a `var` declared at the top of the entry block, named after the
//! parameter. Each edge into the block (`br target(args)`, `loop header(args)`) stores its
//! arguments into the variables just before its terminator and passes none; the block starts
//! with one `load` per variable, and every use of a parameter becomes a use of its load.
//!
//! The arguments are SSA values computed before the stores, and the loads run before anything
//! else in the block, so the edges keep their parallel-copy meaning without temporaries: a
//! loop whose back edge swaps two header parameters (`br header(%b, %a)`) stores the values
//! the header loaded, not values another store just overwrote. A text backend must only keep
//! that order when it prints (a load is not moved past a store).
//!
//! Arguments that are `undef` store nothing (the variable keeps whatever it held, which is as
//! undefined). No parameter is a pointer (the verifier's OSV0027: logical addressing), so
//! every parameter has a type a variable can hold. [`crate::legalize::check`] holds the
//! result for text targets (OSG0006).

use oneshader_ir::{Block, Builder, Func, InstId, Module, Op};

use crate::split_edges::{args_start, incoming_edges};
use crate::{Pass, PassError};

/// The pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct ParamsToVars;

/// The first child of `entry` that is neither a parameter nor a `var`: new variables go just
/// before it, after the ones already there.
pub(crate) fn var_anchor(m: &Module, entry: Block) -> Option<InstId> {
    m.children(entry.id())
        .find(|&c| !matches!(m.op(c), Op::Param | Op::Var) && !m.op(c).is_decoration())
}

/// Turns the parameters of every non-entry block of `f` into variables. Returns how many
/// parameters it replaced.
pub fn params_to_vars(m: &mut Module, f: Func) -> usize {
    let Some(entry) = f.entry(m) else {
        return 0;
    };
    let blocks: Vec<Block> = f
        .blocks(m)
        .into_iter()
        .filter(|&b| b != entry && !b.params(m).is_empty())
        .collect();
    let mut count = 0;
    for b in blocks {
        count += convert_block(m, entry, b);
    }
    count
}

/// Converts the parameters of `b` (not the entry block).
fn convert_block(m: &mut Module, entry: Block, b: Block) -> usize {
    let params: Vec<(usize, InstId)> = b
        .params(m)
        .iter()
        .enumerate()
        .map(|(i, p)| (i, p.id()))
        .collect();
    // One variable per parameter, at the top of the entry block.
    let mut vars: Vec<InstId> = Vec::with_capacity(params.len());
    for &(_, p) in &params {
        // A verified parameter is typed.
        let Some(ty) = m.ty(p) else { continue };
        let anchor = var_anchor(m, entry);
        let mut bld = Builder::new(m);
        match anchor {
            Some(a) => bld.position_before(a),
            None => bld.position_at_end(entry),
        }
        let v = bld.var(ty);
        let name = m.name(p).map(str::to_string);
        m.set_name(v, name.as_deref());
        vars.push(v);
    }
    // Each incoming edge stores its arguments, then passes none of them.
    for e in incoming_edges(m, b) {
        let Some(start) = args_start(m.op(e.term)) else {
            continue;
        };
        let args = m.operands_vec(e.term);
        for (&(i, _), &v) in params.iter().zip(&vars) {
            let Some(&arg) = args.get(start + i) else {
                continue;
            };
            if m.op(arg) == Op::Undef {
                continue;
            }
            let mut bld = Builder::new(m);
            bld.position_before(e.term);
            bld.store(v, arg);
        }
        let kept: Vec<InstId> = args
            .iter()
            .enumerate()
            .filter(|&(k, _)| k < start || !params.iter().any(|&(i, _)| start + i == k))
            .map(|(_, &a)| a)
            .collect();
        // A terminator is never hoistable, so `set_operands` cannot refuse.
        let _ = m.set_operands(e.term, &kept);
    }
    // The block starts with one load per variable, which takes over the parameter's uses.
    let first = m
        .children(b.id())
        .find(|&c| m.op(c) != Op::Param && !m.op(c).is_decoration());
    for (&(_, p), &v) in params.iter().zip(&vars) {
        let mut bld = Builder::new(m);
        match first {
            Some(a) => bld.position_before(a),
            None => bld.position_at_end(b),
        }
        let l = bld.load(v);
        let name = m.name(p).map(str::to_string);
        m.set_name(l, name.as_deref());
        m.replace_uses_with(p, l);
        // No uses are left (replaced above) and a parameter's only children are
        // decorations, so removal cannot be refused.
        let _ = m.remove(p);
    }
    params.len()
}

/// True when some block other than an entry block still has parameters: the module needs
/// [`ParamsToVars`] before a text backend may read it. Returns the first such block.
pub fn first_block_with_params(m: &Module) -> Option<Block> {
    m.functions()
        .into_iter()
        .filter(|f| !f.is_declaration(m))
        .find_map(|f| {
            let entry = f.entry(m)?;
            f.blocks(m)
                .into_iter()
                .find(|&b| b != entry && !b.params(m).is_empty())
        })
}

impl Pass for ParamsToVars {
    fn name(&self) -> &'static str {
        "params_to_vars"
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        for f in m.functions() {
            if !f.is_declaration(m) {
                changed |= params_to_vars(m, f) > 0;
            }
        }
        Ok(changed)
    }

    fn idempotent(&self) -> bool {
        true
    }
}
