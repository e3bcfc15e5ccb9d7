//! OneShader's front ends: source languages in, OneShader IR out.
//!
//! The crate holds the HLSL front end ([`hlsl`]): a C-style preprocessor that keeps every
//! token's location through macro expansion, a parser that builds a plain, owned abstract
//! syntax tree (every node with a [`Span`](oneshader_ir::diag::Span)) with error recovery,
//! semantic analysis (types, overloads, templates, resources, entry-point signatures) and
//! lowering to IR ([`hlsl::compile_file`], [`hlsl::compile_text`]). All problems are reported
//! as [`oneshader_ir::diag::Diagnostic`]s; no input makes this crate panic, loop forever or run
//! out of stack (every recursion and every expansion is bounded, with a diagnostic). Most
//! users reach it through the `oneshader` facade's `Compiler`, which adds optimization, the
//! backends and reflection.
//!
//! Invariants for code built on the AST: node spans point at the user's text (for tokens that
//! came from a macro, at the macro's call site); the token stream ([`hlsl::Preprocessed`]) keeps
//! the exact spelling location and expansion chain when a phase needs more.

pub mod hlsl;
