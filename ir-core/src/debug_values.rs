//! Which source variables an SSA value holds, for debug information after `mem2reg`.
//!
//! Before `mem2reg` a local is a `var` with its name, position and debug scope, and the
//! SPIR-V backend describes it with `DebugDeclare`. Once `mem2reg` has removed the `var`, the
//! values stored to it carry a [`DebugVariable`] each (a side table like names and positions:
//! not an operand, so it never keeps a value alive, never blocks an optimization and never
//! changes what the module computes), and the backend writes a `DebugValue` after the value's
//! definition. A value keeps its entries through [`Module::replace_all_uses_with`] (the
//! replacement takes them, so a value folded or merged into another still names the
//! variable), the cloner within one module and the inliner (whose re-rooted scopes apply to
//! them too); they are dropped with the value, and are not part of the text form or `.osir`.

use crate::debug_scopes::DebugScope;
use crate::diag::Span;
use crate::module::{InstId, Module};
use crate::ops::Op;

/// A source variable a value is assigned to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DebugVariable {
    /// The variable's name.
    pub name: Box<str>,
    /// Where it is declared.
    pub declared: Option<Span>,
    /// The debug scope it is declared in.
    pub scope: DebugScope,
}

impl Module {
    /// The source variables value `id` is assigned to (empty for most values).
    pub fn debug_variables(&self, id: InstId) -> &[DebugVariable] {
        self.debug_values.get(&id).map_or(&[], Vec::as_slice)
    }

    /// Records that value `id` is assigned to `var` (once per variable). Ignored for what is
    /// not an ordinary instruction's value (a constant, a parameter, a dead id).
    pub fn add_debug_variable(&mut self, id: InstId, var: DebugVariable) {
        if !self
            .try_op(id)
            .is_some_and(|op| op.is_instruction() || op == Op::Param)
        {
            return;
        }
        let list = self.debug_values.entry(id).or_default();
        if !list.contains(&var) {
            list.push(var);
        }
    }

    /// Replaces the variables of `id` (none with an empty list).
    pub fn set_debug_variables(&mut self, id: InstId, vars: Vec<DebugVariable>) {
        if vars.is_empty() {
            self.debug_values.remove(&id);
        } else if self.contains(id) {
            self.debug_values.insert(id, vars);
        }
    }

    /// Moves the variables of `from` to `to` (which keeps its own), as when `to` replaces
    /// `from`.
    pub(crate) fn move_debug_variables(&mut self, from: InstId, to: InstId) {
        if from == to {
            return;
        }
        if let Some(vars) = self.debug_values.remove(&from) {
            for v in vars {
                self.add_debug_variable(to, v);
            }
        }
    }

    /// How many values carry debug variables.
    pub fn debug_values_len(&self) -> usize {
        self.debug_values.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Builder;

    #[test]
    fn a_replacement_takes_the_replaced_values_variables_and_removal_drops_them() {
        let mut m = Module::new();
        let i32t = m.i32_type();
        let f = m.add_func("f", i32t, &[i32t]);
        let entry = f.entry(&m).expect("entry");
        let a = f.params(&m)[0].id();
        let (x, y) = {
            let mut b = Builder::at_end(&mut m, entry);
            (b.add(a, a), b.mul(a, a))
        };
        let var = |name: &str| DebugVariable {
            name: name.into(),
            declared: None,
            scope: DebugScope::FUNCTION,
        };
        m.add_debug_variable(x, var("t"));
        m.add_debug_variable(x, var("t"));
        m.add_debug_variable(y, var("u"));
        assert_eq!(m.debug_variables(x), &[var("t")], "once per variable");
        // A constant holds no variable: it is defined nowhere in a function.
        let one = m.const_i32(1);
        m.add_debug_variable(one, var("c"));
        assert!(m.debug_variables(one).is_empty());
        m.replace_all_uses_with(x, y);
        assert_eq!(m.debug_variables(y), &[var("u"), var("t")]);
        m.remove(x).expect("unused");
        assert_eq!(m.debug_values_len(), 1);
        m.remove(y).expect("unused");
        assert_eq!(m.debug_values_len(), 0);
    }
}
