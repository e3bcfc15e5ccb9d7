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
//! - An [`InstId`] belongs to the module that made it (and its clones): debug builds panic
//!   when one is used on another module; release builds do not check.
//!
//! The [`verify`] module checks all of this and more; tests run it after every change.
//! The text form ([`print`](mod@print), [`parse`]) round-trips and is the language of pass tests.
//! [`diag`] is the project's one diagnostic type, shared by every crate.
//!
//! # Example: build, verify, walk, replace
//!
//! ```
//! use oneshader_ir::{Builder, Module, Op, print::print_module, verify::verify_ok};
//!
//! // fn @madd(a: i32, b: i32) -> i32 { return a * b + a; }
//! let mut m = Module::new();
//! let i32t = m.i32_type();
//! let f = m.add_func("madd", i32t, &[i32t, i32t]);
//! let entry = f.entry(&m).expect("add_func makes an entry block");
//! let [a, b] = [f.params(&m)[0].id(), f.params(&m)[1].id()];
//! let mut bl = Builder::at_end(&mut m, entry);
//! let prod = bl.mul(a, b);
//! let sum = bl.add(prod, a);
//! bl.ret(Some(sum));
//! verify_ok(&m)?;
//!
//! // Walk: functions, their blocks, each block's instructions, and the users of a value.
//! let mut ops = Vec::new();
//! for func in m.functions() {
//!     for block in func.blocks(&m) {
//!         ops.extend(block.insts(&m).into_iter().map(|i| m.op(i)));
//!     }
//! }
//! assert_eq!(ops, [Op::Mul, Op::Add, Op::Return]);
//! let users = m.users(a); // in use-list order (the newest use first)
//! assert!(users.len() == 2 && users.contains(&prod) && users.contains(&sum));
//!
//! // Replace every value use of `a` by the constant 3; `a` keeps no uses.
//! let three = m.const_i32(3);
//! m.replace_uses_with(a, three);
//! assert!(m.users(a).is_empty());
//! assert!(print_module(&m).contains("mul i32 3, %"), "{}", print_module(&m));
//! verify_ok(&m)?;
//! # Ok::<(), oneshader_ir::Errors>(())
//! ```
//!
//! Ids stay valid across edits of other instructions; see the hazards above for replacements
//! that merge hoistable values.
//!
//! What an instruction does besides computing its result is declared once, as a column of the
//! instruction table ([`ops`]) and of the intrinsic table ([`intrinsic_facts`]); passes ask
//! [`effects`] ([`Module::effects`]) rather than keeping opcode lists. Analyses of a
//! whole module (the call graph, entry-point usage) are in [`analysis`], computed once and
//! shared by passes, backends and reflection.

pub mod analysis;
pub mod builder;
pub mod cfg;
pub mod constructs;
pub mod debug_scopes;
pub mod debug_values;
pub mod diag;
pub mod effects;
pub mod float16;
pub mod imm;
pub mod inst_table;
pub mod intrinsic_facts;
pub mod layout;
pub mod module;
pub mod ops;
pub mod parse;
pub mod positions;
mod prefetch;
pub mod print;
pub mod raw;
pub mod register;
pub mod replace;
mod store;
pub mod structure;
pub mod types;
pub mod verify;
pub mod walk;

pub use builder::{Builder, InsertPoint};
pub use diag::{Diagnostic, Errors, FileId, Severity, SourceMap, Span};
pub use effects::{Access, Effects};
pub use imm::{
    AddressSpace, AtomicOp, BarrierFlags, BuiltIn, Dim, ImageFormat, ImmKind, Intrinsic,
    Partitioning, Primitive, RayQueryValue, Stage, TessDomain, TextureAccess, ValueShape,
};
pub use inst_table::{InstTable, SlotVec};
pub use module::{InstId, MemoryStats, Module, Payload, RemoveError, Slot, UseRef};
pub use ops::{Category, Family, IR_SEMANTICS_VERSION, Kind, Op, OpInfo, Rest, TypeRule};
pub use raw::RawError;
pub use replace::SetOperandError;
pub use structure::{
    Block, Constant, Decoration, Field, Func, Generic, Global, NameLookupError, Param, StructType,
    Terminator, Type,
};
pub use types::{ScalarKind, TextureDesc};
