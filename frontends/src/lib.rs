//! OneShader's front ends: source languages in, OneShader IR out.
//!
//! Today the crate holds the first half of the HLSL front end ([`hlsl`]): a C-style preprocessor
//! that keeps every token's location through macro expansion, and a parser that builds a plain,
//! owned abstract syntax tree (every node with a [`Span`](oneshader_ir::diag::Span)) with error
//! recovery. Semantic analysis and lowering to IR build on that AST. All problems are reported as
//! [`oneshader_ir::diag::Diagnostic`]s; no input makes this crate panic, loop forever or run out
//! of stack (every recursion and every expansion is bounded, with a diagnostic).
//!
//! Invariants for code built on the AST: node spans point at the user's text (for tokens that
//! came from a macro, at the macro's call site); the token stream ([`hlsl::Preprocessed`]) keeps
//! the exact spelling location and expansion chain when a phase needs more.

pub mod hlsl;
