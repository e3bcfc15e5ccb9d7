//! The HLSL syntax: tokens ([`token`]), the lexer, the preprocessor (macros, conditionals,
//! includes, with every token's location kept through expansion), the parser and the
//! abstract syntax tree it builds ([`ast`]), and the tree's printer ([`dump`]). Nothing here
//! knows types or meaning: that is [`sema`](crate::hlsl::sema)'s job.

pub mod ast;
pub(crate) mod dump;
pub(crate) mod lexer;
pub(crate) mod parser;
pub(crate) mod preprocessor;
pub(crate) mod token;
pub(crate) mod types;
