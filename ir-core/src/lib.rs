//! `oneshader-ir`: OneShader's typed IR, in which everything is an instruction.
//!
//! A [`Module`] owns one slot map of instructions. Types, constants, globals, functions, blocks,
//! block parameters, ordinary instructions, decorations, generics and the module itself are all
//! instructions with an opcode ([`Op`], defined once in [`ops`]), an optional type, operands and
//! children. Operands and types are nodes of intrusive use lists, so `uses(v)` and
//! `replace_uses_with` cost O(#uses) with no side tables.
//!
//! # Invariants
//!
//! - Tree: Module -> {decorations, hoisted values, structs, globals, functions, generics};
//!   Func -> blocks; Block -> params, instructions, exactly one terminator. A function's
//!   parameters are its entry block's params. Decorations are the first children of what they
//!   decorate.
//! - Hoistable values (every type but `struct`, constants, `spec_const`, `specialize`) are
//!   unique: two structurally equal ones are the same [`InstId`] (so type equality is id
//!   equality), and they live in the outermost scope where their operands are visible: the
//!   module, or a generic's body. Never inside a function.
//! - SSA with block parameters: only `br` and `loop` pass arguments, and only they may target a
//!   block that has parameters. Structured terminators (`if_else`, `loop`, `switch`) name their
//!   merge/break/continue blocks as operands.
//!
//! # Hazards for pass writers
//!
//! - Never change a child list or a use list while iterating it: take a snapshot first
//!   ([`Module::children_snapshot`], [`Module::uses_snapshot`], [`Module::users`]).
//! - Replacing a value can merge hoistable users into existing equal values (the cascade):
//!   an [`InstId`] you hold may go stale. Call [`Module::resolve`] before using an id kept
//!   across a replacement.
//! - Do not set operands of hoistable values directly: [`Module::set_operand`] refuses;
//!   [`Module::replace_operand`] keeps the invariants.
//! - [`Module::remove`] refuses to remove what is still used.
//!
//! The [`verify`] module checks all of this and more; tests run it after every change.
//! The text form ([`print`](mod@print), [`parse`]) round-trips and is the language of pass tests.
//! [`diag`] is the project's one diagnostic type, shared by every crate.
//!
//! What an instruction does besides computing its result is declared once, in [`effects`]
//! ([`Module::effects`]); passes ask there rather than keeping opcode lists. Analyses of a
//! whole module (the call graph, entry-point usage) are in [`analysis`], computed once and
//! shared by passes, backends and reflection.

pub mod analysis;
pub mod builder;
pub mod cfg;
pub mod constructs;
pub mod diag;
pub mod effects;
pub mod imm;
pub mod inst_table;
pub mod layout;
pub mod module;
pub mod ops;
pub mod parse;
mod prefetch;
pub mod print;
pub mod raw;
pub mod replace;
pub mod structure;
pub mod types;
pub mod verify;

pub use builder::{Builder, InsertPoint};
pub use diag::{Diagnostic, FileId, Severity, SourceMap, Span};
pub use effects::{Access, Effects};
pub use imm::{
    AddressSpace, AtomicOp, BarrierFlags, BuiltIn, Dim, ImageFormat, ImmKind, Intrinsic,
    Partitioning, Primitive, RayQueryValue, Stage, TessDomain, TextureAccess, ValueShape,
};
pub use inst_table::{InstTable, SlotVec};
pub use module::{InstId, MemoryStats, Module, Payload, RemoveError, Slot, UseRef};
pub use ops::{Family, IR_SEMANTICS_VERSION, Kind, Op, OpInfo, Rest, TypeRule};
pub use raw::RawError;
pub use replace::SetOperandError;
pub use structure::{
    Block, Constant, Decoration, Field, Func, Generic, Global, NameLookupError, Param, StructType,
    Terminator, Type,
};
pub use types::{ScalarKind, TextureDesc};
