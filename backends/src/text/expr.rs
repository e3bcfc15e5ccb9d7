//! Expressions of the MSL and WGSL printers: text plus whether it is primary (a name,
//! literal, call, member or index), so an operator knows to parenthesize its operands. (GLSL
//! keeps full precedence levels: its `E` is in glsl/expr.rs.) Also the byte-address word
//! reads both print the same way but for their spellings.

use oneshader_ir::Op;

/// An expression: its text and whether it is primary.
#[derive(Clone, Debug)]
pub(crate) struct E {
    /// The expression's text.
    pub text: String,
    /// True for names, literals, calls, members and indexing.
    pub primary: bool,
}

impl E {
    /// A primary expression.
    pub fn primary(text: impl Into<String>) -> E {
        E {
            text: text.into(),
            primary: true,
        }
    }

    /// An operator expression (parenthesized where it is an operand).
    pub fn op(text: impl Into<String>) -> E {
        E {
            text: text.into(),
            primary: false,
        }
    }

    /// The text, parenthesized unless primary (formatted where it is written: no `String` of
    /// its own).
    pub fn p(&self) -> Paren<'_> {
        Paren(self)
    }
}

/// An expression as an operand: its text, parenthesized unless primary ([`E::p`]).
pub(crate) struct Paren<'a>(&'a E);

impl std::fmt::Display for Paren<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.primary {
            f.write_str(&self.0.text)
        } else {
            write!(f, "({})", self.0.text)
        }
    }
}

/// `a op b`, each operand parenthesized unless primary.
pub(crate) fn bin(a: &E, op: &str, b: &E) -> E {
    E::op(format!("{} {op} {}", a.p(), b.p()))
}

/// `f(args...)`.
/// A matrix of type `tn` built from its `n` row (or column) vectors `part(0..n)`: the
/// component-wise operations WGSL's and MSL's matrices lack (`*` is their matrix product; no
/// `/`, `%` or, in both, unary minus on matrices).
pub(crate) fn per_vector(tn: &str, n: u32, part: impl Fn(u32) -> String) -> E {
    let parts: Vec<String> = (0..n).map(part).collect();
    E::primary(format!("{tn}({})", parts.join(", ")))
}

pub(crate) fn call(f: &str, args: &[&E]) -> E {
    let a: Vec<&str> = args.iter().map(|e| e.text.as_str()).collect();
    E::primary(format!("{f}({})", a.join(", ")))
}

/// How a target spells the pieces of a byte-address word read.
pub(crate) struct WordSpelling {
    /// An atomic load of the word `w` (its address is `&w`).
    pub atomic_load: fn(&str) -> String,
    /// The bits of the `u32` word `w` as the 32-bit scalar `scalar` (`Op::I32` or a float).
    pub bits_as: fn(Op, &str) -> String,
    /// The bits of the 32-bit scalar `x` (not `u32`) as a `u32` word.
    pub bits_of: fn(&str) -> String,
    /// The `int` byte offset `x` as a `u32`.
    pub offset_as_uint: fn(&str) -> String,
    /// An atomic store of `v` to the word `w` (its address is `&w`).
    pub atomic_store: fn(&str, &str) -> String,
}

/// The `n` words from `index` on of the word array `arr`, each read atomically when `atomic`
/// and reinterpreted as `scalar` (`Op::U32` as is).
pub(crate) fn word_reads(
    arr: &str,
    index: &E,
    n: u32,
    atomic: bool,
    scalar: Op,
    sp: &WordSpelling,
) -> Vec<String> {
    (0..n)
        .map(|k| {
            let w = if k == 0 {
                format!("{arr}[{}]", index.text)
            } else {
                format!("{arr}[{} + {k}u]", index.p())
            };
            let w = if atomic { (sp.atomic_load)(&w) } else { w };
            match scalar {
                Op::U32 => w,
                s => (sp.bits_as)(s, &w),
            }
        })
        .collect()
}
